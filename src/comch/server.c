/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * server.c - the DPU-side Comch server context.
 *
 * Call order: doca_comch_server_create (DPU-side device + its representor of a host
 * function + name) -> setters and event registration while IDLE -> doca_ctx_start
 * (server_start listens at the rendezvous address, see ferry_link.h, and goes RUNNING
 * at once) -> doca_pe_progress (server_progress: completes send tasks, accepts,
 * runs handshakes, delivers messages and connection events, reaps dead peers) ->
 * doca_ctx_stop (server_stop says BYE to every client, frees every connection
 * without events, fails backlogged sends; IDLE once progress completed them) ->
 * doca_comch_server_destroy.
 *
 * One internal epoll set holds the listening socket and every connection; the
 * progress engine watches that one descriptor, so its notification handle wakes on
 * a new client, a message or a dead peer, and progress costs one epoll_wait plus
 * the work that is ready, however many clients there are. The set also holds a
 * timer for the earliest handshake deadline and, while a connection's sends wait
 * for room, that connection's EPOLLOUT: nothing a peer does or leaves undone
 * keeps the PE busy while there is no work. When accept fails (no fds) the
 * listener rests SERVER_ACCEPT_PAUSE_NS, with a sampled line, and the timer
 * brings it back.
 *
 * Untrusted peers: a connection is "pending" until its HELLO passed every check
 * (exact name, the host function the representor stands for, equal max message
 * size, room for one more client). A pending peer that sends anything else,
 * nothing within FERRY_COMCH_HANDSHAKE_MS (default 2000 ms), or a bad frame is cut
 * off without an event, and so is the oldest pending peer when a newcomer finds
 * every slot taken; an established one that breaks the protocol is cut off
 * with a disconnect event and a log line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <doca_dev.h>

#include "comch/comch_priv.h"
#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_dev.h"

FERRY_LOG_MODULE("comch");

#define SERVER_SLOTS                (COMCH_CAP_MAX_CLIENTS + 64u) /* headroom for pending handshakes */
#define SERVER_LISTEN_TAG           UINT64_MAX
#define SERVER_TIMER_TAG            (UINT64_MAX - 1u)
#define SERVER_EVENTS_PER_POLL      64
#define SERVER_ACCEPTS_PER_POLL     64
#define SERVER_HANDSHAKE_MS_DEFAULT 2000u
#define SERVER_DEADLINE_SCAN_NS     50000000ull
#define SERVER_SOLO_EPOLL_EVERY     64u
#define SERVER_ACCEPT_PAUSE_NS      100000000ull /* the listener rests this long when accept fails (no fds) */

static struct doca_comch_server *server_of_ctx(struct doca_ctx *ctx)
{
	return ferry_container_of(ferry_container_of(ctx, struct comch_ep, ctx), struct doca_comch_server, ep);
}

/* ---- connection table ---- */

/* Take @p conn out of the slot table and the counts (idempotent). */
static void server_unlist(struct doca_comch_server *server, struct doca_comch_connection *conn)
{
	if (server->solo == conn)
		server->solo = NULL;
	if (server->slots[conn->slot] != conn)
		return;
	server->slots[conn->slot] = NULL;
	server->generations[conn->slot]++;
	if (conn->established)
		server->num_conns--;
	else
		server->num_pending--;
}

static void server_free_conn(struct doca_comch_server *server, struct doca_comch_connection *conn,
			     doca_error_t task_status)
{
	struct comch_ep *ep = &server->ep;

	server_unlist(server, conn);
	if (conn->broken)
		ep->num_broken--;
	comch_fast_conn_gone(conn);
	comch_conn_fail_backlog(ep, conn, task_status);
	if (conn->fd >= 0) {
		(void)epoll_ctl(server->epoll_fd, EPOLL_CTL_DEL, conn->fd, NULL);
		close(conn->fd);
	}
	conn->magic = 0;
	free(conn);
}

/*
 * End a connection from progress. The connection leaves the table before the
 * disconnect callback runs, so the callback may do anything (even stop the server)
 * and the memory stays valid for the callback's duration.
 */
static uint32_t server_drop(struct doca_comch_server *server, struct doca_comch_connection *conn)
{
	bool notify = conn->established && !conn->quiet && server->disconnect_cb != NULL;

	server_unlist(server, conn);
	if (notify)
		server->disconnect_cb(&server->ep.conn_event, conn, 1);
	server_free_conn(server, conn, DOCA_ERROR_CONNECTION_ABORTED);
	return notify ? 1 : 0;
}

/*
 * Whether the nth breach of @p rule (a literal: its address is its identity) by
 * this server's peers gets a line: the 1st, 2nd, 4th, ... A peer may repeat a
 * breach at will (a connection each), so every one a line would be a log
 * flood; rules beyond the table share its last counter.
 */
static bool server_log_sampled(struct doca_comch_server *server, const char *rule, uint64_t *nth)
{
	struct comch_log_rule *r = server->log_rules;
	uint32_t i = 0;

	while (i + 1 < COMCH_LOG_RULES && r[i].rule != NULL && r[i].rule != rule)
		i++;
	if (r[i].rule == NULL)
		r[i].rule = rule;
	return ferry_log_sampled(&r[i].count, nth);
}

static uint32_t server_lost(struct doca_comch_server *server, struct doca_comch_connection *conn, const char *rule,
			    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* End @p conn with a line: an error line (sampled per @p rule) when it broke one, else an info line. */
static uint32_t server_lost(struct doca_comch_server *server, struct doca_comch_connection *conn, const char *rule,
			    const char *fmt, ...)
{
	char why[256];
	uint64_t nth = 0;
	va_list ap;

	if (rule != NULL && !server_log_sampled(server, rule, &nth))
		return server_drop(server, conn);
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (rule != NULL)
		FERRY_ERR("comch server '%s': client %u (pid %d) %s; connection closed (%llu so far)", server->ep.name,
			  conn->id, (int)conn->peer_pid, why, (unsigned long long)nth);
	else
		FERRY_INFO("comch server '%s': client %u (pid %d) %s", server->ep.name, conn->id, (int)conn->peer_pid,
			   why);
	return server_drop(server, conn);
}

static int server_find_slot(const struct doca_comch_server *server)
{
	for (uint32_t i = 0; i < server->num_slots; i++) {
		if (server->slots[i] == NULL)
			return (int)i;
	}
	return -1;
}

/*
 * Every slot is taken: the oldest connection still in its handshake gives
 * its place to the newcomer (its slot, or -1 when all are clients). Silent
 * connections opened by anyone who can reach the socket, renewed at each
 * deadline, would otherwise keep every new client out; an honest client
 * sends its HELLO at once, so it gives way only to as many newer connections
 * as there are slots, all arriving before its HELLO is read.
 */
static int server_make_room(struct doca_comch_server *server)
{
	struct doca_comch_connection *oldest = NULL;
	uint32_t slot;

	for (uint32_t i = 0; i < server->num_slots; i++) {
		struct doca_comch_connection *c = server->slots[i];

		if (c != NULL && !c->established && (oldest == NULL || c->deadline_ns < oldest->deadline_ns))
			oldest = c;
	}
	if (oldest == NULL)
		return -1;
	slot = oldest->slot;
	(void)server_lost(server, oldest, "gave way",
			  "gave its place to a newer connection (every slot taken, its handshake not done)");
	return (int)slot;
}

static void server_accept_one(struct doca_comch_server *server, int fd, pid_t pid)
{
	struct doca_comch_connection *conn;
	struct epoll_event ev = {.events = EPOLLIN};
	int slot = server_find_slot(server);
	uint64_t nth = 0;

	if (slot < 0)
		slot = server_make_room(server);

	if (slot < 0) {
		if (server_log_sampled(server, "no room", &nth))
			FERRY_WARN("comch server '%s': no room for the connection of pid %d; closed (%llu so far)",
				   server->ep.name, (int)pid, (unsigned long long)nth);
		close(fd);
		return;
	}
	/* Nothing is taken yet: on failure the client sees its connection close and may try again. */
	conn = ferry_calloc(1, sizeof(*conn));
	if (conn == NULL) {
		FERRY_WARN("comch server '%s': no memory for the connection of pid %d; closed", server->ep.name,
			   (int)pid);
		close(fd);
		return;
	}
	conn->magic = COMCH_CONN_MAGIC;
	conn->ep = &server->ep;
	conn->fd = fd;
	conn->peer_pid = pid;
	conn->slot = (uint32_t)slot;
	conn->generation = server->generations[slot];
	conn->id = ++server->next_id;
	conn->deadline_ns = ferry_link_now_ns() +
			    comch_env_ms_as_ns("FERRY_COMCH_HANDSHAKE_MS", SERVER_HANDSHAKE_MS_DEFAULT);
	ev.data.u64 = (uint64_t)slot;
	if (epoll_ctl(server->epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) {
		FERRY_WARN("comch server '%s': cannot watch the connection of pid %d: %s", server->ep.name, (int)pid,
			   strerror(errno));
		close(fd);
		free(conn);
		return;
	}
	server->slots[slot] = conn;
	server->num_pending++;
}

/* The listen socket's events in the epoll set: EPOLLIN, or none while the listener rests. */
static void server_listen_events(struct doca_comch_server *server, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.u64 = SERVER_LISTEN_TAG};

	(void)epoll_ctl(server->epoll_fd, EPOLL_CTL_MOD, server->listen_fd, &ev);
}

/*
 * accept failed (the process is out of fds, most likely): the client stays in
 * the listen backlog and the socket readable, so rest the listener a moment
 * (the timer brings it back) rather than fail again at every progress.
 */
static void server_rest_listener(struct doca_comch_server *server, int err)
{
	uint64_t nth = 0;

	if (server_log_sampled(server, "accept failed", &nth))
		FERRY_ERR("comch server '%s': cannot accept a client: %s; trying again in %llu ms (%llu so far)",
			  server->ep.name, strerror(err), (unsigned long long)(SERVER_ACCEPT_PAUSE_NS / 1000000u),
			  (unsigned long long)nth);
	server_listen_events(server, 0);
	server->listen_rest_until = ferry_link_now_ns() + SERVER_ACCEPT_PAUSE_NS;
}

/* The listener's rest is over: new clients are accepted again. */
static void server_wake_listener(struct doca_comch_server *server)
{
	if (server->listen_rest_until == 0 || ferry_link_now_ns() < server->listen_rest_until)
		return;
	server->listen_rest_until = 0;
	server_listen_events(server, EPOLLIN);
}

static void server_accept_all(struct doca_comch_server *server)
{
	for (int i = 0; i < SERVER_ACCEPTS_PER_POLL; i++) {
		int fd = -1;
		pid_t pid = 0;
		doca_error_t err = ferry_link_accept(server->listen_fd, &fd, &pid);

		if (err == DOCA_ERROR_OPERATING_SYSTEM)
			server_rest_listener(server, errno);
		if (err != DOCA_SUCCESS)
			return;
		server_accept_one(server, fd, pid);
	}
}

/* ---- handshake ---- */

static void server_refuse(struct doca_comch_server *server, struct doca_comch_connection *conn, doca_error_t err,
			  const char *reason)
{
	uint8_t frame[FERRY_FRAME_REFUSE_MAX];
	size_t len = ferry_frame_build_refuse(frame, err, reason);
	uint64_t nth = 0;

	/* Sampled per error: a client may come back with the same HELLO at will. */
	if (server_log_sampled(server, doca_error_get_name(err), &nth))
		FERRY_WARN("comch server '%s': refused client %u (pid %d): %s (%s; %llu so far)", server->ep.name,
			   conn->id, (int)conn->peer_pid, reason, doca_error_get_name(err), (unsigned long long)nth);
	(void)ferry_link_send(conn->fd, frame, len);
	(void)server_drop(server, conn);
}

/* The first reason a HELLO is refused, or DOCA_SUCCESS. */
static doca_error_t server_judge_hello(const struct doca_comch_server *server, const struct ferry_frame_hello *hello,
				       char *reason, size_t reason_size)
{
	const struct comch_ep *ep = &server->ep;

	if (hello->name_len != strlen(ep->name) || memcmp(hello->name, ep->name, hello->name_len) != 0) {
		snprintf(reason, reason_size, "no server named '%.*s' here (this one is '%s')", (int)hello->name_len,
			 hello->name, ep->name);
		return DOCA_ERROR_NOT_FOUND;
	}
	if (hello->machine != server->machine || hello->dev_len != strlen(server->host_function) ||
	    memcmp(hello->dev, server->host_function, hello->dev_len) != 0) {
		snprintf(reason, reason_size,
			 "client device %.*s (machine %u) is not the host function %s (machine %u) that the server's "
			 "representor stands for",
			 (int)hello->dev_len, hello->dev, hello->machine, server->host_function, server->machine);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (hello->max_msg_size != ep->max_msg_size) {
		snprintf(reason, reason_size,
			 "max message size mismatch: client %u, server %u (set the same value on both sides)",
			 hello->max_msg_size, ep->max_msg_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (server->num_conns >= COMCH_CAP_MAX_CLIENTS) {
		snprintf(reason, reason_size, "server already holds %u clients (doca_comch_cap_get_max_clients)",
			 COMCH_CAP_MAX_CLIENTS);
		return DOCA_ERROR_FULL;
	}
	return DOCA_SUCCESS;
}

static bool server_running(const struct doca_comch_server *server);

/*
 * A HELLO: welcome or refuse. *stop is set unless the client is welcomed and
 * may go on: frames it sent right behind its HELLO (in the same receive
 * batch) are then handled, not dropped.
 */
static uint32_t server_on_hello(struct doca_comch_server *server, struct doca_comch_connection *conn,
				const struct ferry_frame_hello *hello, bool *stop)
{
	uint8_t frame[FERRY_FRAME_HDR_LEN + 12];
	char reason[FERRY_FRAME_REASON_MAX];
	doca_error_t err = server_judge_hello(server, hello, reason, sizeof(reason));
	size_t len;

	*stop = true;
	if (err != DOCA_SUCCESS) {
		server_refuse(server, conn, err, reason);
		return 0;
	}
	len = ferry_frame_build_welcome(frame, server->ep.max_msg_size, server->ep.recv_queue_size, conn->id);
	if (ferry_link_send(conn->fd, frame, len) != DOCA_SUCCESS)
		return server_lost(server, conn, NULL, "went away during the handshake");
	conn->established = true;
	comch_conn_fault_arm(conn);
	server->num_pending--;
	server->num_conns++;
	if (comch_fast_conn_up(conn) != DOCA_SUCCESS)
		return server_lost(server, conn, NULL, "cannot be served: no memory for its fast path");
	server->solo = server->num_conns == 1 ? conn : NULL;
	FERRY_DBG("comch server '%s': client %u (pid %d) connected", server->ep.name, conn->id, (int)conn->peer_pid);
	if (server->connect_cb != NULL)
		server->connect_cb(&server->ep.conn_event, conn, 1);
	*stop = !server_running(server) || conn->broken;
	return 1;
}

/* ---- receive ---- */

static bool server_running(const struct doca_comch_server *server)
{
	return server->ep.ctx.state == DOCA_CTX_STATE_RUNNING;
}

/* Handle one parsed frame; returns events delivered. Sets *stop when @p conn is gone or busy. */
static uint32_t server_on_frame(struct doca_comch_server *server, struct doca_comch_connection *conn,
				const struct ferry_frame *f, bool *stop)
{
	struct comch_ep *ep = &server->ep;

	if (!conn->established) {
		if (f->type == FERRY_FRAME_HELLO)
			return server_on_hello(server, conn, &f->u.hello, stop);
		*stop = true;
		return server_lost(server, conn, "frame before HELLO", "sent frame type %d before HELLO", (int)f->type);
	}
	switch (f->type) {
	case FERRY_FRAME_MSG:
		if (ep->recv_cb == NULL) {
			FERRY_DBG("comch server '%s': message dropped: no msg-recv callback registered", ep->name);
			return 0;
		}
		ep->recv_cb(&ep->recv_event, (uint8_t *)(uintptr_t)f->payload, f->payload_len, conn);
		*stop = !server_running(server) || conn->broken;
		return 1;
	case FERRY_FRAME_BYE:
		*stop = true;
		return server_lost(server, conn, NULL, "disconnected");
	case FERRY_FRAME_CONSUMER_UP:
	case FERRY_FRAME_CONSUMER_DOWN:
	case FERRY_FRAME_DONE_RING: {
		const char *why = NULL;
		uint32_t n = comch_fast_on_frame(conn, f, &why);

		if (n == UINT32_MAX) {
			*stop = true;
			return server_lost(server, conn, why, "broke the fast-path protocol: %s", why);
		}
		*stop = !server_running(server) || conn->broken;
		return n;
	}
	default:
		*stop = true;
		return server_lost(server, conn, "unexpected frame type", "sent unexpected frame type %d",
				   (int)f->type);
	}
}

/* One received datagram of a connection (comch_datagram_fn). */
static uint32_t server_on_datagram(struct comch_ep *ep, struct doca_comch_connection *conn, const uint8_t *buf,
				   size_t len, bool *stop)
{
	struct doca_comch_server *server = ferry_container_of(ep, struct doca_comch_server, ep);
	struct ferry_frame f;
	const char *why = NULL;
	doca_error_t err;

	if (len > ep->rx_cap) {
		*stop = true;
		return server_lost(server, conn, "oversized frame", "sent an oversized frame (more than %zu bytes)",
				   ep->rx_cap);
	}
	err = ferry_frame_parse(buf, len, ep->max_msg_size, &f, &why);
	if (err != DOCA_SUCCESS) {
		*stop = true;
		return server_lost(server, conn, why, "sent a bad frame: %s (%s)", why, doca_error_get_name(err));
	}
	return server_on_frame(server, conn, &f, stop);
}

static uint32_t server_read_conn(struct doca_comch_server *server, struct doca_comch_connection *conn)
{
	uint32_t n = 0;

	if (comch_conn_read(&server->ep, conn, server_on_datagram, &n) != DOCA_SUCCESS)
		n += server_lost(server, conn, NULL, "closed the connection (peer exited or was killed)");
	return n;
}

/* ---- progress ---- */

static uint32_t server_poll_sockets(struct doca_comch_server *server)
{
	struct epoll_event evs[SERVER_EVENTS_PER_POLL];
	uint32_t n = 0;
	int ready = epoll_wait(server->epoll_fd, evs, SERVER_EVENTS_PER_POLL, 0);

	for (int i = 0; i < ready && server_running(server); i++) {
		struct doca_comch_connection *conn;

		if (evs[i].data.u64 == SERVER_LISTEN_TAG) {
			server_accept_all(server);
			continue;
		}
		if (evs[i].data.u64 == SERVER_TIMER_TAG)
			continue; /* a handshake deadline: housekeeping looks, server_set_timer re-arms */
		conn = server->slots[evs[i].data.u64];
		if (conn != NULL && !conn->broken)
			n += server_read_conn(server, conn);
	}
	return n;
}

/*
 * Wake the PE at @p at (CLOCK_MONOTONIC ns; 0: never), the earliest handshake
 * deadline, or at the end of the listener's rest if that comes first: both are
 * timed, not polled, so a client that says nothing leaves the server asleep
 * until its deadline.
 */
static void server_set_timer(struct doca_comch_server *server, uint64_t at)
{
	if (server->listen_rest_until != 0 && (at == 0 || server->listen_rest_until < at))
		at = server->listen_rest_until;
	comch_timer_set(server->timer_fd, &server->timer_at, at);
}

/* Backlogs, broken connections and handshake deadlines: scanned only when some exist. */
static uint32_t server_housekeeping(struct doca_comch_server *server)
{
	struct comch_ep *ep = &server->ep;
	uint64_t now = server->num_pending > 0 ? ferry_link_now_ns() : 0;
	uint64_t next = 0; /* the earliest deadline still to come */
	uint32_t n = 0;

	for (uint32_t i = 0; i < server->num_slots && server_running(server); i++) {
		struct doca_comch_connection *conn = server->slots[i];

		if (conn == NULL)
			continue;
		if (conn->backlog.head != NULL && !conn->broken)
			(void)comch_conn_flush_backlog(ep, conn);
		if (conn->broken)
			n += server_lost(server, conn, NULL, "%s",
					 conn->quiet ? "was disconnected by the server"
						     : "cannot be written to (peer gone)");
		else if (!conn->established && now >= conn->deadline_ns)
			n += server_lost(server, conn, "handshake deadline", "did not complete the handshake in time");
		else if (!conn->established && (next == 0 || conn->deadline_ns < next))
			next = conn->deadline_ns;
	}
	if (server_running(server))
		server_set_timer(server, next);
	return n;
}

/* comch_ep.watch_out: the connection's events in the server's epoll set, which the PE watches. */
static void server_watch_out(struct comch_ep *ep, struct doca_comch_connection *conn, bool on)
{
	struct doca_comch_server *server = ferry_container_of(ep, struct doca_comch_server, ep);
	struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0u), .data.u64 = conn->slot};

	if (epoll_ctl(server->epoll_fd, EPOLL_CTL_MOD, conn->fd, &ev) != 0)
		FERRY_WARN("comch server '%s': client %u: cannot watch for room: %s", ep->name, conn->id,
			   strerror(errno));
}

static uint32_t server_progress(struct doca_ctx *ctx)
{
	struct doca_comch_server *server = server_of_ctx(ctx);
	struct comch_ep *ep = &server->ep;
	uint32_t n = comch_list_complete(&ep->done);

	if (!server_running(server))
		return n;
	/*
	 * One client and nothing else going on (the common case of a DOCA sample or a
	 * benchmark): read its socket directly and ask epoll about the listen socket
	 * only every SERVER_SOLO_EPOLL_EVERY calls, which saves a system call on the
	 * message's path. Everything is still found, a new client a little later.
	 */
	server_wake_listener(server);
	if (ctx->events_held)
		; /* messages and new clients wait in their sockets (ferry_ctx.h) */
	else if (server->solo != NULL && server->num_pending == 0 &&
		 (++server->poll_tick % SERVER_SOLO_EPOLL_EVERY) != 0 && !server->solo->broken)
		n += server_read_conn(server, server->solo);
	else
		n += server_poll_sockets(server);
	comch_ep_attend(ep, server->slots, server->num_slots);
	if (server_running(server) && (ep->num_backlogged > 0 || ep->num_broken > 0 || server->num_pending > 0))
		n += server_housekeeping(server);
	else if (server_running(server))
		server_set_timer(server, 0); /* no deadline (the last pending client is through) */
	return n;
}

static bool server_has_pending(struct doca_ctx *ctx)
{
	struct doca_comch_server *server = server_of_ctx(ctx);
	const struct comch_ep *ep = &server->ep;

	/* Sockets, sends waiting for room and handshake deadlines need no polling: the PE watches the epoll set. */
	return ep->done.head != NULL || ep->num_broken > 0 ||
	       atomic_load_explicit(&ep->fast_attention, memory_order_relaxed);
}

/* ---- start / stop ---- */

static doca_error_t server_open_sockets(struct doca_comch_server *server, const char *domain)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = SERVER_LISTEN_TAG};
	struct epoll_event timer_ev = {.events = EPOLLIN, .data.u64 = SERVER_TIMER_TAG};
	doca_error_t err;

	err = ferry_link_listen(&server->addr, &server->listen_fd, &server->lock_fd);
	if (err == DOCA_ERROR_ALREADY_EXIST)
		return FERRY_RULE_IN("doca_ctx_start", err,
				     "comch server '%s': another server already listens under this name "
				     "for host function %s in domain '%s'",
				     server->ep.name, server->host_function, domain);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN("doca_ctx_start", err, "comch server '%s': cannot listen at %s: %s",
				     server->ep.name, server->addr.text, strerror(errno));
	server->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	server->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	server->timer_at = 0;
	server->listen_rest_until = 0;
	if (server->epoll_fd < 0 || server->timer_fd < 0 ||
	    epoll_ctl(server->epoll_fd, EPOLL_CTL_ADD, server->listen_fd, &ev) != 0 ||
	    epoll_ctl(server->epoll_fd, EPOLL_CTL_ADD, server->timer_fd, &timer_ev) != 0)
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_OPERATING_SYSTEM, "comch server '%s': epoll: %s",
				     server->ep.name, strerror(errno));
	return ferry_pe_watch_fd(server->ep.ctx.pe, server->epoll_fd);
}

static void server_close_sockets(struct doca_comch_server *server)
{
	if (server->epoll_fd >= 0) {
		ferry_pe_unwatch_fd(server->ep.ctx.pe, server->epoll_fd);
		close(server->epoll_fd);
	}
	if (server->timer_fd >= 0)
		close(server->timer_fd);
	ferry_link_unlisten(&server->addr, server->listen_fd, server->lock_fd);
	server->timer_fd = -1;
	server->epoll_fd = -1;
	server->listen_fd = -1;
	server->lock_fd = -1;
}

static doca_error_t server_start(struct doca_ctx *ctx)
{
	struct doca_comch_server *server = server_of_ctx(ctx);
	const char *domain = NULL;
	doca_error_t err = comch_ep_rendezvous(&server->ep, &server->addr, server->machine, server->host_function,
					       &domain);

	if (err == DOCA_SUCCESS)
		err = comch_ep_alloc_buffers(&server->ep);
	if (err != DOCA_SUCCESS)
		return err;
	err = server_open_sockets(server, domain);
	if (err != DOCA_SUCCESS) {
		server_close_sockets(server);
		comch_ep_free_buffers(&server->ep);
		return err;
	}
	FERRY_DBG("comch server '%s': listening at %s", server->ep.name, server->addr.text);
	return DOCA_SUCCESS;
}

static void server_stop(struct doca_ctx *ctx)
{
	struct doca_comch_server *server = server_of_ctx(ctx);

	/* No events during stop (it may run outside progress): clients hear BYE, tasks fail. */
	for (uint32_t i = 0; i < server->num_slots; i++) {
		struct doca_comch_connection *conn = server->slots[i];

		if (conn == NULL)
			continue;
		if (conn->established)
			comch_conn_say_bye(conn);
		server_free_conn(server, conn, DOCA_ERROR_CONNECTION_ABORTED);
	}
	server_close_sockets(server);
}

static void server_stopped(struct doca_ctx *ctx)
{
	comch_ep_free_buffers(&server_of_ctx(ctx)->ep);
}

static doca_error_t server_submit(struct doca_task *task)
{
	struct doca_comch_task_send *send = ferry_container_of(task, struct doca_comch_task_send, base);
	struct doca_comch_server *server = ferry_container_of(send->ep, struct doca_comch_server, ep);
	struct doca_comch_connection *conn = server->slots[send->conn_slot];

	if (conn == NULL || server->generations[send->conn_slot] != send->conn_generation || conn->broken)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_NOT_CONNECTED,
				     "comch server '%s': the task's connection has ended; free the task",
				     server->ep.name);
	comch_conn_send_task(&server->ep, conn, send);
	return DOCA_SUCCESS;
}

static const struct ferry_ctx_ops server_ops = {
	.start = server_start,
	.stop = server_stop,
	.stopped = server_stopped,
	.submit = server_submit,
	.progress = server_progress,
	.has_pending = server_has_pending,
};

/* ---- create / destroy ---- */

static doca_error_t server_check_devices(struct doca_dev *dev, struct doca_dev_rep *repr)
{
	const struct doca_devinfo *devinfo;
	const struct doca_devinfo_rep *rep_info;

	if (!ferry_dev_is_open(dev))
		return FERRY_RULE_IN("doca_comch_server_create", DOCA_ERROR_INVALID_VALUE,
				     "dev %p is not an open device", (void *)dev);
	devinfo = doca_dev_as_devinfo(dev);
	if (ferry_devinfo_side(devinfo) != FERRY_SIDE_DPU)
		return FERRY_RULE_IN("doca_comch_server_create", DOCA_ERROR_NOT_SUPPORTED,
				     "device %s is on the host side; a server needs a DPU-side device",
				     ferry_dev_name(dev));
	if (!ferry_dev_rep_is_open(repr))
		return FERRY_RULE_IN("doca_comch_server_create", DOCA_ERROR_INVALID_VALUE,
				     "repr %p is not an open representor", (void *)repr);
	rep_info = ferry_dev_rep_info(repr);
	if (ferry_devinfo_rep_manager(rep_info) != devinfo)
		return FERRY_RULE_IN("doca_comch_server_create", DOCA_ERROR_INVALID_VALUE,
				     "representor %s does not belong to device %s", ferry_dev_rep_name(repr),
				     ferry_dev_name(dev));
	if (ferry_devinfo_rep_peer(rep_info) == NULL)
		return FERRY_RULE_IN("doca_comch_server_create", DOCA_ERROR_NOT_SUPPORTED,
				     "representor %s stands for no host function a client could open",
				     ferry_dev_rep_name(repr));
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr, const char *name,
				      struct doca_comch_server **comch_server)
{
	const struct doca_devinfo *peer;
	struct doca_comch_server *server;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(dev);
	FERRY_ARG_NOT_NULL(repr);
	FERRY_ARG_NOT_NULL(comch_server);
	err = comch_ep_check_name(__func__, name);
	if (err == DOCA_SUCCESS)
		err = server_check_devices(dev, repr);
	if (err != DOCA_SUCCESS)
		return err;
	server = ferry_calloc(1, sizeof(*server));
	if (server == NULL)
		goto no_memory;
	server->slots = ferry_calloc(SERVER_SLOTS, sizeof(*server->slots));
	if (server->slots == NULL)
		goto no_memory;
	server->generations = ferry_calloc(SERVER_SLOTS, sizeof(*server->generations));
	if (server->generations == NULL)
		goto no_memory;
	comch_ep_init(&server->ep, &server_ops, true, dev);
	server->ep.watch_out = server_watch_out;
	strcpy(server->ep.name, name); /* length checked above */
	peer = ferry_devinfo_rep_peer(ferry_dev_rep_info(repr));
	server->machine = ferry_devinfo_machine(peer);
	snprintf(server->host_function, sizeof(server->host_function), "%s", ferry_devinfo_name(peer));
	server->repr = repr;
	ferry_dev_rep_get(repr);
	server->num_slots = SERVER_SLOTS;
	server->listen_fd = -1;
	server->lock_fd = -1;
	server->epoll_fd = -1;
	server->timer_fd = -1;
	*comch_server = server;
	return DOCA_SUCCESS;

no_memory:
	/* Nothing but the memory is taken before the last allocation. */
	if (server != NULL) {
		free(server->slots);
		free(server->generations);
	}
	free(server);
	return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for server '%s'", name);
}

doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(comch_server);
	err = ferry_ctx_check_destroyable(&comch_server->ep.ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	ferry_ctx_fini(&comch_server->ep.ctx);
	ferry_dev_rep_put(comch_server->repr);
	free(comch_server->slots);
	free(comch_server->generations);
	free(comch_server);
	return DOCA_SUCCESS;
}

/* ---- setters and getters ---- */

doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server, uint32_t size)
{
	FERRY_ARG_NOT_NULL(comch_server);
	return comch_ep_set_max_msg_size(&comch_server->ep, __func__, size);
}

doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server, uint32_t *size)
{
	FERRY_ARG_NOT_NULL(comch_server);
	FERRY_ARG_NOT_NULL(size);
	*size = comch_server->ep.max_msg_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server, uint32_t size)
{
	FERRY_ARG_NOT_NULL(comch_server);
	return comch_ep_set_recv_queue_size(&comch_server->ep, __func__, size);
}

doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server, uint32_t *size)
{
	FERRY_ARG_NOT_NULL(comch_server);
	FERRY_ARG_NOT_NULL(size);
	*size = comch_server->ep.recv_queue_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server, struct doca_dev **dev)
{
	FERRY_ARG_NOT_NULL(comch_server);
	FERRY_ARG_NOT_NULL(dev);
	*dev = comch_server->ep.ctx.dev;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_server_get_device_repr(const struct doca_comch_server *comch_server, struct doca_dev_rep **repr)
{
	FERRY_ARG_NOT_NULL(comch_server);
	FERRY_ARG_NOT_NULL(repr);
	*repr = comch_server->repr;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server)
{
	return comch_server == NULL ? NULL : &comch_server->ep.ctx;
}

doca_error_t doca_comch_server_task_send_set_conf(struct doca_comch_server *comch_server,
						  doca_comch_task_send_completion_cb_t task_completion_cb,
						  doca_comch_task_send_completion_cb_t task_error_cb,
						  uint32_t num_send_tasks)
{
	FERRY_ARG_NOT_NULL(comch_server);
	return comch_ep_task_send_set_conf(&comch_server->ep, __func__, task_completion_cb, task_error_cb,
					   num_send_tasks);
}

doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
						    struct doca_comch_connection *peer, const void *msg, uint32_t len,
						    struct doca_comch_task_send **task)
{
	FERRY_ARG_NOT_NULL(comch_server);
	return comch_ep_task_send_alloc_init(&comch_server->ep, __func__, peer, msg, len, task);
}

doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
						       doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	FERRY_ARG_NOT_NULL(comch_server);
	return comch_ep_register_msg_recv(&comch_server->ep, __func__, recv_event_cb);
}

doca_error_t doca_comch_server_event_connection_status_changed_register(
	struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(comch_server);
	FERRY_ARG_NOT_NULL(connect_event_cb);
	FERRY_ARG_NOT_NULL(disconnect_event_cb);
	err = ferry_ctx_check_idle(&comch_server->ep.ctx, __func__);
	if (err == DOCA_SUCCESS) {
		comch_server->connect_cb = connect_event_cb;
		comch_server->disconnect_cb = disconnect_event_cb;
	}
	return err;
}

doca_error_t doca_comch_server_event_consumer_register(struct doca_comch_server *comch_server,
						       doca_comch_event_consumer_cb_t new_consumer_event_cb,
						       doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
	FERRY_ARG_NOT_NULL(comch_server);
	return comch_ep_register_consumer(&comch_server->ep, __func__, new_consumer_event_cb,
					  expired_consumer_event_cb);
}

doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
					  struct doca_comch_connection *connection)
{
	uint32_t producers, consumers;

	FERRY_ARG_NOT_NULL(comch_server);
	FERRY_ARG_NOT_NULL(connection);
	if (connection->magic != COMCH_CONN_MAGIC || connection->ep != &comch_server->ep || !connection->established)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "server '%s': connection %p is not one of its clients",
				  comch_server->ep.name, (void *)connection);
	if (comch_server->ep.ctx.state != DOCA_CTX_STATE_RUNNING)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "server '%s' is %s; needs RUNNING", comch_server->ep.name,
				  ferry_ctx_state_name(comch_server->ep.ctx.state));
	comch_fast_conn_users(connection, &producers, &consumers);
	if (producers != 0 || consumers != 0)
		return FERRY_RULE(DOCA_ERROR_IN_USE,
				  "server '%s': client %u still has %u producers and %u "
				  "consumers; destroy them first",
				  comch_server->ep.name, connection->id, producers, consumers);
	if (connection->broken)
		return DOCA_SUCCESS; /* already on its way out */
	comch_conn_say_bye(connection);
	connection->quiet = true;
	comch_conn_mark_broken(connection);
	return DOCA_SUCCESS;
}
