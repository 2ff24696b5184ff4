/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pe.c - the progress engine: a list of contexts, progressed in turn, and a
 * notification handle for event-driven programs.
 *
 * Notification handle: an epoll fd that contains one eventfd (written when a
 * completion lands while the PE is armed) plus any fds a context type watches
 * (Comch sockets). doca_pe_request_notification arms the PE and then checks for
 * work already pending, so a completion that raced with arming is never lost:
 * the arming store and the engines' completion publish are both followed by a
 * full fence before each side reads the other's flag (see ferry_pe_wake).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "core/ferry_ctx.h"
#include "core/ctx_priv.h"
#include "core/fault.h"

FERRY_LOG_MODULE("pe");

struct doca_pe {
	struct doca_ctx *ctxs;      /* connected contexts, singly linked by pe_next */
	struct doca_ctx *iter_next; /* progress loop cursor; fixed up when a ctx leaves */
	struct doca_ctx *current;   /* context being progressed, or NULL */
	bool in_progress;           /* inside doca_pe_progress (callbacks run here) */
	int epoll_fd;               /* the notification handle */
	int event_fd;               /* wakes epoll_fd */
	atomic_int armed;           /* a notification was requested and not yet signalled */
	int bell_fd;                /* ferry_pe_bell's socket, -1 until asked for */
	uint64_t bell_token;
};

doca_error_t doca_pe_create(struct doca_pe **pe_out)
{
	struct doca_pe *pe;
	struct epoll_event ev = {.events = EPOLLIN};
	int saved;

	if (pe_out == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "output pointer is NULL");
	pe = ferry_calloc(1, sizeof(*pe));
	if (pe == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for a progress engine");
	pe->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	pe->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ev.data.fd = pe->event_fd;
	if (pe->epoll_fd < 0 || pe->event_fd < 0 || epoll_ctl(pe->epoll_fd, EPOLL_CTL_ADD, pe->event_fd, &ev) != 0)
		goto fail;
	atomic_init(&pe->armed, 0);
	pe->bell_fd = -1;
	*pe_out = pe;
	return DOCA_SUCCESS;

fail:
	saved = errno;
	if (pe->epoll_fd >= 0)
		close(pe->epoll_fd);
	if (pe->event_fd >= 0)
		close(pe->event_fd);
	free(pe);
	return FERRY_RULE(DOCA_ERROR_OPERATING_SYSTEM, "notification handle: %s", strerror(saved));
}

doca_error_t doca_pe_destroy(struct doca_pe *pe)
{
	FERRY_ARG_NOT_NULL(pe);
	if (pe->in_progress)
		return FERRY_RULE(DOCA_ERROR_IN_USE, "pe %p is being progressed (called from a callback)", (void *)pe);
	if (pe->ctxs != NULL)
		return FERRY_RULE(DOCA_ERROR_IN_USE, "context '%s' is still connected to pe %p; destroy contexts first",
				  pe->ctxs->name, (void *)pe);
	if (pe->bell_fd >= 0)
		close(pe->bell_fd);
	close(pe->event_fd);
	close(pe->epoll_fd);
	free(pe);
	return DOCA_SUCCESS;
}

doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	if (pe == NULL || ctx == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "pe and ctx must not be NULL");
	if (ctx->pe != NULL) /* DOCA's answer: NOT_PERMITTED */
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "context '%s' is already connected to pe %p; a context has one "
				  "pe for life",
				  ctx->name, (void *)ctx->pe);
	if (ctx->state != DOCA_CTX_STATE_IDLE)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "context '%s' is %s; connect needs IDLE", ctx->name,
				  ferry_ctx_state_name(ctx->state));
	ctx->pe = pe;
	ctx->pe_next = pe->ctxs;
	pe->ctxs = ctx;
	return DOCA_SUCCESS;
}

void ferry_pe_disconnect_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	struct doca_ctx **link = &pe->ctxs;

	while (*link != NULL && *link != ctx)
		link = &(*link)->pe_next;
	if (*link == ctx)
		*link = ctx->pe_next;
	/* A callback may destroy a context the progress loop is about to visit. */
	if (pe->iter_next == ctx)
		pe->iter_next = ctx->pe_next;
	if (pe->current == ctx)
		pe->current = NULL;
	ctx->pe = NULL;
	ctx->pe_next = NULL;
}

struct doca_ctx *ferry_pe_current_ctx(const struct doca_pe *pe)
{
	return pe != NULL ? pe->current : NULL;
}

bool ferry_pe_in_callback(const struct doca_pe *pe)
{
	return pe != NULL && pe->in_progress;
}

uint8_t doca_pe_progress(struct doca_pe *pe)
{
	uint32_t delivered = 0;

	if (pe == NULL) {
		FERRY_ERR("%s: pe is NULL", __func__);
		return 0;
	}
	if (pe->in_progress) {
		FERRY_ERR("%s: pe %p is already progressing; progress must not be called from a callback", __func__,
			  (void *)pe);
		return 0;
	}
	pe->in_progress = true;
	for (struct doca_ctx *ctx = pe->ctxs; ctx != NULL; ctx = pe->iter_next) {
		pe->iter_next = ctx->pe_next;
		if (ctx->state == DOCA_CTX_STATE_IDLE)
			continue;
		pe->current = ctx;
		delivered += ctx->ops->progress(ctx);
		if (__builtin_expect(ctx->fault_held != 0, 0))
			delivered += ferry_fault_release_due(ctx);
		/*
		 * The type's progress has returned, so the IDLE callback that
		 * finishing a stop delivers may destroy ctx (DOCA's pe_reactive
		 * sample does): clear current first, touch ctx no more after.
		 */
		pe->current = NULL;
		if (ferry_ctx_try_finish_stop(ctx))
			delivered++;
	}
	pe->iter_next = NULL;
	pe->in_progress = false;
	return delivered > 0 ? 1 : 0;
}

doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle)
{
	if (pe == NULL || handle == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "pe and output must not be NULL");
	*handle = pe->epoll_fd;
	return DOCA_SUCCESS;
}

static void pe_signal(struct doca_pe *pe)
{
	uint64_t one = 1;
	ssize_t rc;

	do {
		rc = write(pe->event_fd, &one, sizeof(one));
	} while (rc < 0 && errno == EINTR);
	/* EAGAIN means the counter is saturated: the fd is readable anyway. */
}

static bool ctx_has_pending(struct doca_ctx *ctx)
{
	if (ctx->state == DOCA_CTX_STATE_IDLE)
		return false;
	if (ferry_ctx_can_finish_stop(ctx))
		return true; /* progress must move it to IDLE */
	if (ctx->fault_held != 0)
		return true; /* a FERRY_FAULT delay: progress finishes it when due */
	if (ctx->ops->has_pending != NULL)
		return ctx->ops->has_pending(ctx);
	return ctx->num_inflight > 0;
}

/* Empty the doorbell: what rang it is looked at by the has_pending checks that follow. */
static void bell_drain(struct doca_pe *pe)
{
	char buf[16];

	if (pe->bell_fd >= 0)
		while (recv(pe->bell_fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			;
}

doca_error_t doca_pe_request_notification(struct doca_pe *pe)
{
	FERRY_ARG_NOT_NULL(pe);
	bell_drain(pe);
	atomic_store_explicit(&pe->armed, 1, memory_order_seq_cst);
	for (struct doca_ctx *ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next) {
		if (ctx_has_pending(ctx)) {
			if (atomic_exchange_explicit(&pe->armed, 0, memory_order_acq_rel))
				pe_signal(pe);
			break;
		}
	}
	return DOCA_SUCCESS;
}

void ferry_pe_wake(struct doca_pe *pe)
{
	if (pe == NULL)
		return;
	/* Order the caller's completion publish before reading 'armed' (pairs with the
	 * seq_cst store in doca_pe_request_notification). */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&pe->armed, memory_order_relaxed) &&
	    atomic_exchange_explicit(&pe->armed, 0, memory_order_acq_rel))
		pe_signal(pe);
}

void ferry_pe_wake_own(struct doca_pe *pe)
{
	if (pe != NULL && atomic_load_explicit(&pe->armed, memory_order_relaxed) &&
	    atomic_exchange_explicit(&pe->armed, 0, memory_order_acq_rel))
		pe_signal(pe);
}

doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle)
{
	uint64_t count;

	FERRY_ARG_NOT_NULL(pe);
	/*
	 * The handle only names what was waited on; DOCA's own pe_event sample
	 * passes 0 here, so any value is accepted and the PE's handle is cleared.
	 */
	(void)handle;
	atomic_store_explicit(&pe->armed, 0, memory_order_relaxed);
	while (read(pe->event_fd, &count, sizeof(count)) > 0)
		;
	bell_drain(pe);
	return DOCA_SUCCESS;
}

doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks)
{
	size_t total = 0;

	if (pe == NULL || num_inflight_tasks == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "pe and output must not be NULL");
	for (const struct doca_ctx *ctx = pe->ctxs; ctx != NULL; ctx = ctx->pe_next)
		total += ctx->num_inflight;
	*num_inflight_tasks = total;
	return DOCA_SUCCESS;
}

doca_error_t doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode mode)
{
	FERRY_ARG_NOT_NULL(pe);
	if (mode != DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE && mode != DOCA_PE_EVENT_MODE_PROGRESS_ALL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "unknown mode %d", (int)mode);
	return DOCA_SUCCESS;
}

/* The abstract socket address of bell @p token. */
static socklen_t bell_addr(uint64_t token, struct sockaddr_un *sun)
{
	int n;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1, "ferry-bell-%016llx", (unsigned long long)token);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

uint64_t ferry_pe_bell(struct doca_pe *pe)
{
	struct sockaddr_un sun;
	uint64_t token = 0;
	int fd;

	if (pe->bell_fd >= 0)
		return pe->bell_token;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	/* A random name: only a peer told the token (through memory it shares with us) rings it. */
	if (getrandom(&token, sizeof(token), 0) != sizeof(token) || token == 0 ||
	    bind(fd, (struct sockaddr *)&sun, bell_addr(token, &sun)) != 0 ||
	    ferry_pe_watch_fd(pe, fd) != DOCA_SUCCESS) {
		close(fd);
		return 0;
	}
	pe->bell_fd = fd;
	pe->bell_token = token;
	return token;
}

static int bell_sender = -1;
static pthread_once_t bell_sender_once = PTHREAD_ONCE_INIT;

static void bell_sender_open(void)
{
	bell_sender = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

void ferry_pe_bell_ring(uint64_t token)
{
	struct sockaddr_un sun;
	const char ding = 1;

	if (token == 0)
		return;
	pthread_once(&bell_sender_once, bell_sender_open);
	/* A full bell is rung already; a gone one has nobody to wake. */
	if (bell_sender >= 0)
		(void)sendto(bell_sender, &ding, 1, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&sun,
			     bell_addr(token, &sun));
}

doca_error_t ferry_pe_watch_fd(struct doca_pe *pe, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};

	if (epoll_ctl(pe->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0)
		return FERRY_RULE(DOCA_ERROR_OPERATING_SYSTEM, "pe %p, fd %d: %s", (void *)pe, fd, strerror(errno));
	return DOCA_SUCCESS;
}

void ferry_pe_watch_fd_out(struct doca_pe *pe, int fd, bool out)
{
	struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0u), .data.fd = fd};

	if (epoll_ctl(pe->epoll_fd, EPOLL_CTL_MOD, fd, &ev) != 0)
		FERRY_WARN("pe %p, fd %d: cannot watch for room: %s", (void *)pe, fd, strerror(errno));
}

void ferry_pe_unwatch_fd(struct doca_pe *pe, int fd)
{
	(void)epoll_ctl(pe->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
}
