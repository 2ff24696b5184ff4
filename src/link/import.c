/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * import.c - the importer side of the link: check a descriptor against the
 * running system, fetch the memory from the exporter's agent, map it at the
 * exporter's own addresses (so bufs the importer builds from the exporter's
 * addresses point at the same bytes), and watch the exporter's liveness.
 *
 * Several imports of one export in one process share one mapping (refcounted).
 * An import of this process's own export needs no mapping at all.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <doca_types.h>

#include "common/ferry_log.h"
#include "link/export_desc.h"
#include "link/ferry_export.h"
#include "link/ferry_link.h"
#include "link/link_priv.h"
#include "link/ferry_remote.h"

FERRY_LOG_MODULE("link");

/* One mapping of one export, shared by its imports in this process. */
struct link_mapping {
	struct link_mapping *next;
	uint32_t pid;
	uint64_t start_time;
	uint64_t export_id;
	unsigned int refs;
	void *map_base;      /* NULL for an import of our own export */
	size_t map_len;
	void *state_map;
	const _Atomic uint32_t *state; /* in state_map */
	size_t page;
	int pidfd;           /* -1 for our own export */
	bool is_remote;      /* reached by cross-memory attach; `remote` is valid */
	_Atomic uint64_t checked_ns;
	struct ferry_remote remote;
};

struct ferry_link_import {
	struct link_mapping *m;
};

static pthread_mutex_t import_lock = PTHREAD_MUTEX_INITIALIZER;
static struct link_mapping *mappings;

/* ---- checks against the running system ---- */

static doca_error_t check_identity(const struct ferry_export_desc *d, uint32_t machine, const char *call)
{
	uint8_t boot[FERRY_DESC_BOOT_ID_LEN];
	uint64_t start;
	doca_error_t err = ferry_link_boot_id(boot);

	if (err != DOCA_SUCCESS)
		return err;
	if (memcmp(boot, d->boot_id, sizeof(boot)) != 0)
		return FERRY_RULE(DOCA_ERROR_NOT_FOUND, "%s: descriptor is stale: it comes from another boot of the machine",
				  call);
	if (d->uid != (uint32_t)getuid())
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "%s: descriptor was exported by uid %u; only the same user (uid %u) may import it", call,
				  (unsigned)d->uid, (unsigned)getuid());
	if (d->machine != machine)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "%s: descriptor was exported on emulated DPU %u; the importing device is on DPU %u", call,
				  (unsigned)d->machine, (unsigned)machine);
	if (ferry_link_pid_start_time((int)d->pid, &start) != DOCA_SUCCESS || start != d->start_time)
		return FERRY_RULE(DOCA_ERROR_NOT_FOUND, "%s: descriptor is stale: exporter pid %u is gone or was restarted",
				  call, (unsigned)d->pid);
	return DOCA_SUCCESS;
}

/* ---- talking to the exporter's agent ---- */

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static doca_error_t agent_connect(const struct ferry_export_desc *d, const char *call, int *out)
{
	struct ferry_link_addr addr;
	struct ucred cred;
	int fd;

	if (ferry_link_abstract_addr(&addr, d->agent) != DOCA_SUCCESS)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: exporter pid %u names no usable memory agent", call,
				  (unsigned)d->pid);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (const struct sockaddr *)&addr.sun, addr.len) != 0) {
		int saved = errno;
		if (fd >= 0)
			close(fd);
		return FERRY_RULE(DOCA_ERROR_NOT_FOUND, "%s: exporter pid %u has no memory agent at @%s: %s", call,
				  (unsigned)d->pid, d->agent, strerror(saved));
	}
	/* The socket name is not proof of anything: the peer must be the exporter itself. */
	if (!ferry_link_peer_cred(fd, &cred) || (uint32_t)cred.pid != d->pid ||
	    cred.uid != getuid()) {
		close(fd);
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "%s: the agent at @%s is pid %d uid %u, not the exporter pid %u of uid %u", call, d->agent,
				  (int)cred.pid, (unsigned)cred.uid, (unsigned)d->pid, (unsigned)getuid());
	}
	ferry_link_set_timeouts(fd, 5);
	*out = fd;
	return DOCA_SUCCESS;
}

/* Receive the reply and up to two fds; any fds beyond those are closed. */
static doca_error_t agent_receive(int fd, struct link_rep *rep, int fds[2])
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = rep, .iov_len = sizeof(*rep)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
	ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);

	fds[0] = fds[1] = -1;
	for (struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL; c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int got[4];
		memcpy(got, CMSG_DATA(c), k * sizeof(int));
		for (size_t i = 0; i < k; i++) {
			if (i < 2 && fds[i] < 0)
				fds[i] = got[i];
			else
				close(got[i]);
		}
	}
	if (n != (ssize_t)sizeof(*rep) || rep->magic != LINK_MSG_MAGIC || (msg.msg_flags & MSG_CTRUNC) != 0) {
		close_fds(fds, 2);
		return DOCA_ERROR_CONNECTION_RESET;
	}
	return DOCA_SUCCESS;
}

static doca_error_t fetch_from_agent(const struct ferry_export_desc *d, const char *call, struct link_rep *rep,
				     int fds[2])
{
	struct link_req req = {.magic = LINK_MSG_MAGIC, .version = LINK_MSG_VERSION, .export_id = d->export_id};
	int sock;
	doca_error_t err;

	memcpy(req.token, d->token, sizeof(req.token));
	if (d->pid == (uint32_t)getpid()) {
		ferry_link_serve(&req, rep, &fds[1], &fds[0]);
	} else {
		err = agent_connect(d, call, &sock);
		if (err != DOCA_SUCCESS)
			return err;
		if (send(sock, &req, sizeof(req), MSG_NOSIGNAL) != (ssize_t)sizeof(req))
			err = DOCA_ERROR_CONNECTION_RESET;
		else
			err = agent_receive(sock, rep, fds);
		close(sock);
		if (err != DOCA_SUCCESS)
			return FERRY_RULE(err, "%s: exporter pid %u's agent did not answer", call, (unsigned)d->pid);
	}
	switch (rep->status) {
	case DOCA_SUCCESS:
		if (fds[0] >= 0)
			return DOCA_SUCCESS;
		return FERRY_RULE(DOCA_ERROR_CONNECTION_RESET, "%s: exporter pid %u's agent sent no state page", call,
				  (unsigned)d->pid);
	case DOCA_ERROR_NOT_PERMITTED:
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "%s: export %llu of pid %u refused the token (forged descriptor?)",
				  call, (unsigned long long)d->export_id, (unsigned)d->pid);
	case DOCA_ERROR_NOT_FOUND:
		return FERRY_RULE(DOCA_ERROR_NOT_FOUND, "%s: export %llu of pid %u no longer exists (its mmap was stopped)",
				  call, (unsigned long long)d->export_id, (unsigned)d->pid);
	default:
		return FERRY_RULE((doca_error_t)rep->status, "%s: exporter pid %u's agent answered error %d", call,
				  (unsigned)d->pid, (int)rep->status);
	}
}

/* ---- mappings ---- */

static void mapping_free(struct link_mapping *m)
{
	if (m->map_base != NULL)
		munmap(m->map_base, m->map_len);
	if (m->state_map != NULL)
		munmap(m->state_map, m->page);
	if (m->pidfd >= 0)
		close(m->pidfd);
	free(m);
}

/* Ordinary memory, or a shared range whose addresses are taken here: copy by pid. */
static doca_error_t use_cma(struct link_mapping *m, const struct ferry_export_desc *d, const char *call)
{
	if (!ferry_link_cma_enabled())
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
				  "%s: the exported range is ordinary memory; only memory from ferry_mem_alloc_shared "
				  "can be imported by another process in this build",
				  call);
	m->is_remote = true;
	m->remote.pid = (int)d->pid;
	m->remote.addr = d->addr;
	m->remote.len = d->len;
	m->remote.access = d->access;
	return DOCA_SUCCESS;
}

/*
 * Map the exporter's pages at the exporter's addresses. When they are taken
 * here and @p may_fall_back, leave map_base NULL and succeed (CMA takes over).
 */
static doca_error_t map_memory(struct link_mapping *m, const struct ferry_export_desc *d, const struct link_rep *rep,
			       int mem_fd, const char *call, bool may_fall_back)
{
	int prot = d->access == DOCA_ACCESS_FLAG_PCI_READ_WRITE ? PROT_READ | PROT_WRITE : PROT_READ;

	if (rep->map_base > d->addr || rep->map_base + rep->map_len < d->addr + d->len)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: exporter's agent described pages that miss the range",
				  call);
	void *p = mmap((void *)(uintptr_t)rep->map_base, rep->map_len, prot, MAP_SHARED | MAP_FIXED_NOREPLACE, mem_fd,
		       (off_t)rep->mem_off);
	if (p == MAP_FAILED || p != (void *)(uintptr_t)rep->map_base) {
		if (p != MAP_FAILED)
			munmap(p, rep->map_len); /* old kernels ignore NOREPLACE and pick another place */
		if (may_fall_back)
			return DOCA_SUCCESS;
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY,
				  "%s: cannot map the exporter's range %p + %llu at the same address here (address in use)",
				  call, (void *)(uintptr_t)d->addr, (unsigned long long)d->len);
	}
	m->map_base = p;
	m->map_len = rep->map_len;
	return DOCA_SUCCESS;
}

static doca_error_t mapping_create(const struct ferry_export_desc *d, const struct link_rep *rep, int fds[2],
				   const char *call, struct link_mapping **out)
{
	struct link_mapping *m = calloc(1, sizeof(*m));
	doca_error_t err = DOCA_SUCCESS;

	if (m == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "%s: out of memory for an import", call);
	m->pidfd = -1;
	m->page = (size_t)sysconf(_SC_PAGESIZE);
	m->pid = d->pid;
	m->start_time = d->start_time;
	m->export_id = d->export_id;
	m->refs = 1;
	void *st = mmap(NULL, m->page, PROT_READ, MAP_SHARED, fds[0], 0);
	if (st == MAP_FAILED) {
		free(m);
		return FERRY_RULE(DOCA_ERROR_OPERATING_SYSTEM, "%s: cannot map the export's state page: %s", call,
				  strerror(errno));
	}
	m->state_map = st;
	m->state = st;
	if (d->pid != (uint32_t)getpid()) {
		if (fds[1] >= 0)
			err = map_memory(m, d, rep, fds[1], call, ferry_link_cma_enabled());
		if (fds[1] < 0 || m->map_base == NULL)
			err = err != DOCA_SUCCESS ? err : use_cma(m, d, call);
		/* Liveness of the exporter, immune to pid reuse. */
		if (err == DOCA_SUCCESS) {
			m->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)d->pid, 0);
			uint64_t start;
			if (m->pidfd < 0 || ferry_link_pid_start_time((int)d->pid, &start) != DOCA_SUCCESS ||
			    start != d->start_time)
				err = FERRY_RULE(DOCA_ERROR_NOT_FOUND, "%s: exporter pid %u exited during the import", call,
						 (unsigned)d->pid);
			m->remote.state = m->state;
			m->remote.pidfd = m->pidfd;
			m->remote.checked_ns = &m->checked_ns;
		}
	}
	if (err != DOCA_SUCCESS) {
		mapping_free(m);
		return err;
	}
	*out = m;
	return DOCA_SUCCESS;
}

static struct link_mapping *mapping_find(const struct ferry_export_desc *d)
{
	for (struct link_mapping *m = mappings; m != NULL; m = m->next)
		if (m->pid == d->pid && m->start_time == d->start_time && m->export_id == d->export_id)
			return m;
	return NULL;
}

bool ferry_link_peer_alive(const _Atomic uint32_t *state, int pidfd)
{
	if (atomic_load_explicit(state, memory_order_acquire) != LINK_STATE_LIVE)
		return false;
	if (pidfd >= 0) {
		/* A pidfd turns readable when its process exits. */
		struct pollfd p = {.fd = pidfd, .events = POLLIN};
		if (poll(&p, 1, 0) != 0)
			return false;
	}
	return true;
}

#define PIDFD_CHECK_NS 1000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool ferry_link_peer_alive_cached(const _Atomic uint32_t *state, int pidfd, _Atomic uint64_t *checked_ns)
{
	uint64_t t = mono_ns();

	if (t - atomic_load_explicit(checked_ns, memory_order_relaxed) < PIDFD_CHECK_NS)
		return ferry_link_peer_alive(state, -1);
	if (!ferry_link_peer_alive(state, pidfd))
		return false;
	atomic_store_explicit(checked_ns, t, memory_order_relaxed);
	return true;
}

static bool mapping_alive(struct link_mapping *m)
{
	return ferry_link_peer_alive_cached(m->state, m->pidfd, &m->checked_ns);
}

doca_error_t ferry_link_import_open(const void *desc, size_t desc_len, uint32_t machine, const char *call,
				    struct ferry_link_import **imp, struct ferry_link_view *view)
{
	struct ferry_export_desc d;
	struct link_rep rep;
	const char *why = NULL;
	int fds[2] = {-1, -1};
	struct link_mapping *m = NULL;
	doca_error_t err = ferry_export_desc_decode(desc, desc_len, &d, &why);

	if (err != DOCA_SUCCESS)
		return FERRY_RULE(err, "%s: descriptor refused (%zu bytes): %s", call, desc_len, why);
	err = check_identity(&d, machine, call);
	if (err != DOCA_SUCCESS)
		return err;
	struct ferry_link_import *handle = calloc(1, sizeof(*handle));
	if (handle == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "%s: out of memory for an import", call);
	/* Every import proves the token to the exporter, even when a mapping exists. */
	err = fetch_from_agent(&d, call, &rep, fds);
	if (err == DOCA_SUCCESS) {
		pthread_mutex_lock(&import_lock);
		m = mapping_find(&d);
		if (m != NULL && mapping_alive(m)) {
			m->refs++;
		} else {
			err = mapping_create(&d, &rep, fds, call, &m);
			if (err == DOCA_SUCCESS) {
				m->next = mappings;
				mappings = m;
			}
		}
		pthread_mutex_unlock(&import_lock);
	}
	close_fds(fds, 2);
	if (err != DOCA_SUCCESS) {
		free(handle);
		return err;
	}
	handle->m = m;
	view->addr = (void *)(uintptr_t)d.addr;
	view->len = (size_t)d.len;
	view->access = d.access;
	*imp = handle;
	return DOCA_SUCCESS;
}

bool ferry_link_import_alive(const struct ferry_link_import *imp)
{
	return mapping_alive(imp->m);
}

const struct ferry_remote *ferry_link_import_remote(const struct ferry_link_import *imp)
{
	return imp->m->is_remote ? &imp->m->remote : NULL;
}

void ferry_link_import_close(struct ferry_link_import *imp)
{
	struct link_mapping *m = imp->m;
	bool last;

	pthread_mutex_lock(&import_lock);
	last = --m->refs == 0;
	if (last) {
		for (struct link_mapping **l = &mappings; *l != NULL; l = &(*l)->next) {
			if (*l == m) {
				*l = m->next;
				break;
			}
		}
	}
	pthread_mutex_unlock(&import_lock);
	if (last)
		mapping_free(m);
	free(imp);
}
