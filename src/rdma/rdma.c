/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma.c - DOCA RDMA: the context type, its connections, the UCX worker and
 * progress. Task types are in rdma_task.c, remote memory in rdma_mem.c; the
 * layout and the map of DOCA operations onto UCX are in rdma_priv.h.
 *
 * Call order (see ferry_ctx.h for the generic half):
 *   doca_rdma_create (takes the process's UCP context) -> setters, set_conf
 *   -> doca_ctx_start (rdma_start: a UCP worker, its event fd watched by the
 *   PE, a new random token; RUNNING at once, as DOCA 3.3 does)
 *   -> doca_rdma_export (a connection and its descriptor) -> doca_rdma_connect
 *   (an endpoint to the peer's worker) -> tasks -> doca_pe_progress
 *   (rdma_progress: ucp_worker_progress, then everything UCX finished)
 *   -> doca_ctx_stop (rdma_stop: endpoints force-closed, so UCX fails their
 *   operations; posted receives and waiting tasks flushed with IO_FAILED)
 *   -> IDLE (rdma_stopped: the worker goes) -> doca_rdma_destroy.
 *
 * Trust: a peer's descriptor is decoded and checked (rdma_desc.c) before its
 * worker address reaches UCX; every message's header is checked against this
 * instance's token and connections before anything is taken from it.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <ucs/config/global_opts.h>

#include <doca_buf.h>
#include <doca_dev.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_ucx_am.h"
#include "common/ferry_util.h"
#include "core/ferry_dev.h"
#include "link/ferry_export.h"
#include "link/ferry_link.h"
#include "rdma/rdma_desc_priv.h"
#include "rdma/rdma_priv.h"

FERRY_LOG_MODULE("rdma");

/* Rounds of ucp_worker_progress per progress call, at most (it returns 0 when idle). */
#define RDMA_PROGRESS_ROUNDS   16
/* How long the IDLE step waits for force-closed endpoints (never blocks longer). */
#define RDMA_CLOSE_DEADLINE_NS (1000ull * 1000 * 1000)
/* How often progress polls the pidfds of peers on this host. */
#define RDMA_LIVENESS_NS       (1000ull * 1000)

/*
 * Messages dropped, one count per rule: a peer may repeat them at will, so
 * the lines are sampled (1st, 2nd, 4th, ...).
 */
static _Atomic uint64_t dropped_foreign, dropped_stranger, dropped_malformed, dropped_liveness, dropped_unexpected;
static _Atomic uint64_t dropped_over, dropped_not_peer;

/* What woke the service thread (epoll data). */
enum { SERVICE_EV_WORKER, SERVICE_EV_QUIT, SERVICE_EV_PEER };

static inline struct doca_rdma *rdma_of_ctx(struct doca_ctx *ctx)
{
	return ferry_container_of(ctx, struct doca_rdma, ctx);
}

static inline struct doca_rdma *rdma_of_task(const struct rdma_task *task)
{
	return rdma_of_ctx(task->base.ctx);
}

void rdma_task_finish(struct rdma_task *task, doca_error_t status)
{
	if (status != DOCA_SUCCESS && task->status == DOCA_SUCCESS)
		task->status = status;
	ferry_task_list_push(&rdma_of_task(task)->done, &task->base);
}

doca_error_t rdma_status_of(const struct doca_rdma *rdma, ucs_status_t st)
{
	switch (st) {
	case UCS_OK:
		return DOCA_SUCCESS;
	case UCS_ERR_CANCELED:
		/*
		 * Flushed by a stop (as DOCA DMA flushes), or by the forced close of
		 * an endpoint UCX failed (the service thread closes it at once): a
		 * lost connection either way, whichever of the two UCX reports first.
		 */
	case UCS_ERR_CONNECTION_RESET:
	case UCS_ERR_ENDPOINT_TIMEOUT:
	case UCS_ERR_UNREACHABLE:
	case UCS_ERR_REJECTED:
	case UCS_ERR_NOT_CONNECTED:
		return rdma->stopping ? DOCA_ERROR_IO_FAILED : DOCA_ERROR_CONNECTION_RESET;
	case UCS_ERR_MESSAGE_TRUNCATED:
		return DOCA_ERROR_TOO_BIG;
	default:
		return DOCA_ERROR_IO_FAILED;
	}
}

/* ---- messages from peers (inside ucp_worker_progress: record, never call the user) ---- */

/*
 * The oldest posted receive the program still owns. A receive freed while
 * posted (orphaned) gets no message: its buffer may be gone, and the message
 * goes to the next receive. It goes back to its pool (no callback).
 */
static struct rdma_task *next_receive(struct doca_rdma *rdma)
{
	struct doca_task *t;

	while ((t = rdma->receives.head) != NULL && t->orphaned)
		rdma_task_finish(rdma_task_of(ferry_task_list_pop(&rdma->receives)), DOCA_ERROR_IO_FAILED);
	return t != NULL ? rdma_task_of(ferry_task_list_pop(&rdma->receives)) : NULL;
}

struct doca_rdma_connection *rdma_conn_addressed(struct doca_rdma *rdma, uint64_t token, uint32_t id)
{
	struct doca_rdma_connection *conn;

	if (token != rdma->token || (id & RDMA_CONN_SLOT_MASK) >= rdma->num_conns)
		return NULL;
	/* The whole id: a peer of the slot's earlier connection reaches nothing. */
	conn = &rdma->conns[id & RDMA_CONN_SLOT_MASK];
	return conn->state == RDMA_CONN_FREE || conn->id != id ? NULL : conn;
}

static struct doca_rdma_connection *conn_of_msg(struct doca_rdma *rdma, const struct rdma_msg_hdr *h)
{
	return rdma_conn_addressed(rdma, h->dst_token, h->dst_conn);
}

static void release_unexpected(struct doca_rdma *rdma, struct rdma_unexpected *u)
{
	if (u->data == NULL)
		return;
	if (u->is_desc)
		ucp_am_data_release(rdma->worker, u->data);
	else
		free(u->data);
	u->data = NULL;
}

/* ---- liveness: ping and pong ---- */

static void ctl_sent(void *request, ucs_status_t status, void *user_data)
{
	(void)status;
	(void)user_data;
	ucp_request_free(request);
}

/* A ping or pong, eager, with a reply endpoint; a failure only means no answer. */
static void send_ctl(ucp_ep_h ep, const struct rdma_msg_hdr *hdr, const void *payload, size_t len)
{
	ucp_request_param_t p;

	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_FLAGS;
	p.cb.send = ctl_sent;
	p.flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER;
	(void)ucp_am_send_nbx(ep, RDMA_AM_ID, hdr, sizeof(*hdr), payload, len, &p);
}

/*
 * Answer a ping, now or not at all: a pinger that leaves its transport full
 * would otherwise have a UCX request queued here for every ping it sends, as
 * many as it likes (test_ping_flood_bounded). A dropped pong costs an honest
 * pinger nothing but its next ping.
 */
static void send_pong(ucp_ep_h reply_ep, uint64_t dst_token, uint32_t dst_conn)
{
	struct rdma_msg_hdr pong = {.dst_token = dst_token, .dst_conn = dst_conn, .opcode = RDMA_MSG_PONG};
	ucp_request_param_t p;

	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
	p.flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER;
	/* Sent, or UCS_ERR_NO_RESOURCE: with FORCE_IMM_CMPL UCX keeps no request, and no pointer to the header. */
	(void)ucp_am_send_nbx(reply_ep, RDMA_AM_ID, &pong, sizeof(pong), NULL, 0, &p);
}

/* Ask the peer of @p conn whether it is there (the service thread, under the lock). */
static void send_ping(struct doca_rdma_connection *conn)
{
	memset(&conn->ping_hdr, 0, sizeof(conn->ping_hdr));
	conn->ping_hdr.dst_token = conn->peer_token;
	conn->ping_hdr.dst_conn = conn->peer_conn;
	conn->ping_hdr.opcode = RDMA_MSG_PING;
	conn->ping_hdr.imm = conn->id;
	conn->ping_token = conn->rdma->token;
	conn->ping_pending = true;
	send_ctl(conn->ep, &conn->ping_hdr, &conn->ping_token, sizeof(conn->ping_token));
}

/* A ping (answer it) or a pong (the peer is there: the stall clock starts again); inside the AM handler. */
static void liveness_msg(struct doca_rdma *rdma, const struct rdma_msg_hdr *h, const void *data, size_t length,
			 const ucp_am_recv_param_t *param)
{
	struct doca_rdma_connection *conn = conn_of_msg(rdma, h);
	bool ping = h->opcode == RDMA_MSG_PING;
	uint64_t src_token = 0;
	uint64_t nth;

	if (conn == NULL || rdma_msg_key_of(h) != 0 || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0 ||
	    (ping ? length != sizeof(src_token) || (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) == 0
		  : length != 0 || h->imm != 0)) {
		if (ferry_log_sampled(&dropped_liveness, &nth))
			FERRY_ERR(
				"rdma %p: dropped a malformed %s or one for no connection of this context in this run "
				"(%llu so far)",
				(void *)rdma, ping ? "ping" : "pong", (unsigned long long)nth);
		return;
	}
	if (!ping) {
		/*
		 * Only the peer's own answer, on the endpoint the ping left by: any
		 * peer of this instance knows the token, and a stranger's pongs would
		 * keep a connection whose peer is gone from ever being declared lost.
		 */
		if ((param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) == 0 || param->reply_ep != conn->ep) {
			if (ferry_log_sampled(&dropped_liveness, &nth))
				FERRY_ERR(
					"rdma %p: connection %u: dropped a pong not from its peer's endpoint (%llu so "
					"far)",
					(void *)rdma, conn->id, (unsigned long long)nth);
			return;
		}
		conn->ping_pending = false;
		conn->ops_seen = conn->ops_done;
		conn->stall_since = ferry_link_now_ns();
		return;
	}
	memcpy(&src_token, data, sizeof(src_token));
	send_pong(param->reply_ep, src_token, h->imm);
}

static ucs_status_t am_cb(void *arg, const void *header, size_t header_length, void *data, size_t length,
			  const ucp_am_recv_param_t *param)
{
	struct doca_rdma *rdma = arg;
	struct rdma_unexpected *u;
	struct rdma_msg_hdr h;
	struct doca_rdma_connection *conn;
	bool held = (param->recv_attr & (UCP_AM_RECV_ATTR_FLAG_DATA | UCP_AM_RECV_ATTR_FLAG_RNDV)) != 0;
	uint64_t nth;

	if (header_length != sizeof(h)) {
		if (ferry_log_sampled(&dropped_foreign, &nth))
			FERRY_ERR("rdma %p: dropped a message with a %zu-byte header (expected %zu): not from a Ferry "
				  "peer (%llu dropped so far)",
				  (void *)rdma, header_length, sizeof(h), (unsigned long long)nth);
		return UCS_OK;
	}
	memcpy(&h, header, sizeof(h));
	if (h.opcode == RDMA_MSG_PING || h.opcode == RDMA_MSG_PONG) {
		if (!rdma->stopping)
			liveness_msg(rdma, &h, data, length, param);
		return UCS_OK;
	}
	if (h.opcode == RDMA_MSG_HELLO || h.opcode == RDMA_MSG_BYE) {
		if (!rdma->stopping)
			rdma_cm_message(rdma, &h, data, length, param);
		return UCS_OK;
	}
	conn = conn_of_msg(rdma, &h);
	if (conn == NULL || rdma->stopping) {
		if (!rdma->stopping && ferry_log_sampled(&dropped_stranger, &nth))
			FERRY_ERR("rdma %p: dropped a message for connection %u of another instance or run (%llu "
				  "dropped so far)",
				  (void *)rdma, h.dst_conn, (unsigned long long)nth);
		return UCS_OK;
	}
	if (rdma_conn_over(conn)) {
		/* Over: as a queue pair in error, it takes no more messages (they were sent before the peer knew). */
		if (ferry_log_sampled(&dropped_over, &nth))
			FERRY_ERR("rdma %p: dropped a message for connection %u, which is over (%llu dropped so far)",
				  (void *)rdma, conn->id, (unsigned long long)nth);
		return UCS_OK;
	}
	if (conn->state == RDMA_CONN_CONNECTED ? rdma_msg_key_of(&h) != conn->msg_key_in : rdma_msg_key_of(&h) == 0) {
		if (ferry_log_sampled(&dropped_not_peer, &nth))
			FERRY_ERR("rdma %p: connection %u: dropped a message not from its peer (%llu dropped so far)",
				  (void *)rdma, conn->id, (unsigned long long)nth);
		return UCS_OK;
	}
	if (h.opcode > DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM ||
	    (h.opcode == DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM && length != 0) || length > RDMA_MAX_MESSAGE) {
		if (ferry_log_sampled(&dropped_malformed, &nth))
			FERRY_ERR("rdma %p: connection %u: dropped a malformed message (opcode %u, %zu bytes; %llu "
				  "dropped so far)",
				  (void *)rdma, conn->id, h.opcode, length, (unsigned long long)nth);
		return UCS_OK;
	}
	/*
	 * The common case: a receive waits and no message is ahead of this one:
	 * fill it from UCX's buffer. On the PE's thread only: whether a posted
	 * receive was freed (orphaned) is the PE thread's to read, so a message
	 * the service thread takes waits in the ring for progress to match it.
	 */
	if (rdma->in_progress && rdma->unexp_count == 0 && (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) == 0) {
		struct rdma_task *task = next_receive(rdma);
		struct rdma_unexpected now = {
			.conn = conn, .hdr = h, .len = length, .data = length != 0 ? data : NULL, .borrowed = true};

		if (task != NULL) {
			rdma_receive_fill(task, &now);
			return UCS_OK;
		}
	}
	if (rdma->unexp_count == RDMA_MAX_UNEXPECTED) {
		if (ferry_log_sampled(&dropped_unexpected, &nth))
			FERRY_ERR("rdma %p: connection %u: %u messages already wait for a receive task; dropped one of "
				  "%zu bytes (post receives before the peer sends; %llu dropped so far)",
				  (void *)rdma, conn->id, RDMA_MAX_UNEXPECTED, length, (unsigned long long)nth);
		return UCS_OK;
	}
	/*
	 * A peer may send eagerly, its bytes along, before any receive is posted:
	 * held, 256 messages of up to 1 GiB would be memory without bound.
	 */
	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) == 0 &&
	    length > RDMA_MAX_UNEXPECTED_BYTES - rdma->unexp_bytes) {
		if (ferry_log_sampled(&dropped_unexpected, &nth))
			FERRY_ERR(
				"rdma %p: connection %u: %llu bytes already wait for a receive task; dropped a message "
				"of %zu bytes past %u (post receives before the peer sends; %llu dropped so far)",
				(void *)rdma, conn->id, (unsigned long long)rdma->unexp_bytes, length,
				RDMA_MAX_UNEXPECTED_BYTES, (unsigned long long)nth);
		return UCS_OK;
	}
	u = &rdma->unexpected[(rdma->unexp_head + rdma->unexp_count) % RDMA_MAX_UNEXPECTED];
	u->conn = conn;
	u->hdr = h;
	u->len = length;
	u->is_rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
	u->is_desc = held;
	u->borrowed = false;
	u->data = NULL;
	if (length != 0) {
		if (held) {
			u->data = data;
		} else {
			/* UCX's buffer is not ours after return: copy. */
			u->data = malloc(length);
			if (u->data == NULL) {
				FERRY_ERR("rdma %p: no memory to hold a message of %zu bytes; dropped", (void *)rdma,
					  length);
				return UCS_OK;
			}
			memcpy(u->data, data, length);
		}
	}
	rdma->unexp_count++;
	if (!u->is_rndv)
		rdma->unexp_bytes += length;
	return u->is_desc && u->data != NULL ? UCS_INPROGRESS : UCS_OK;
}

/* Posted receives take waiting messages, oldest first. */
static void match_receives(struct doca_rdma *rdma)
{
	while (rdma->unexp_count != 0) {
		struct rdma_unexpected *u = &rdma->unexpected[rdma->unexp_head];
		struct rdma_task *task = next_receive(rdma);

		if (task == NULL)
			break;
		rdma->unexp_head = (rdma->unexp_head + 1) % RDMA_MAX_UNEXPECTED;
		rdma->unexp_count--;
		if (!u->is_rndv)
			rdma->unexp_bytes -= u->len;
		rdma_receive_fill(task, u);
	}
}

static void drop_unexpected(struct doca_rdma *rdma)
{
	while (rdma->unexp_count != 0) {
		release_unexpected(rdma, &rdma->unexpected[rdma->unexp_head]);
		rdma->unexp_head = (rdma->unexp_head + 1) % RDMA_MAX_UNEXPECTED;
		rdma->unexp_count--;
	}
	rdma->unexp_head = 0;
	rdma->unexp_bytes = 0;
}

/* ---- endpoints ---- */

/*
 * A failed connection's peer leaves the service thread's set at once: an
 * exited process's pidfd stays readable, and the thread spun on it until the
 * PE's progress dropped the pidfd, which a program waiting on stdin never
 * calls (a core for as long as it waited). The PE's notification handle
 * keeps watching it: the program must progress to see the end.
 */
static void service_unwatch_peer(struct doca_rdma_connection *conn)
{
	if (conn->pidfd >= 0 && conn->rdma->service_epfd >= 0)
		(void)epoll_ctl(conn->rdma->service_epfd, EPOLL_CTL_DEL, conn->pidfd, NULL);
}

void rdma_ep_err_cb(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct doca_rdma_connection *conn = arg;

	(void)ep;
	if (conn->cm && !conn->rdma->stopping) {
		/* Not yet established: the connection failed; established: the peer left. */
		if (conn->state == RDMA_CONN_CONNECTING)
			conn->events |= RDMA_EV_FAILURE;
		else if (conn->state == RDMA_CONN_CONNECTED)
			conn->events |= RDMA_EV_DISCONNECT;
		if (conn->events != 0)
			conn->rdma->events_pending = true;
		if (rdma_conn_over(conn))
			return; /* already over: its endpoint is closed or closing */
		if (conn->state == RDMA_CONN_CONNECTING) {
			FERRY_ERR("rdma %p: connection %u could not be set up: %s", (void *)conn->rdma, conn->id,
				  ucs_status_string(status));
			conn->rdma->connecting--;
		}
	}
	if (conn->state == RDMA_CONN_CONNECTED && !conn->rdma->stopping)
		FERRY_ERR("rdma %p: connection %u lost its peer (pid %u): %s; its tasks complete with "
			  "DOCA_ERROR_CONNECTION_RESET",
			  (void *)conn->rdma, conn->id, conn->peer_pid, ucs_status_string(status));
	conn->state = RDMA_CONN_FAILED;
	conn->need_close = true;
	service_unwatch_peer(conn);
}

/* Force-close the endpoint of @p conn, leaving need_close for the PE's progress to finish the connection. */
static void rdma_conn_close_ep_keep(struct doca_rdma_connection *conn)
{
	rdma_conn_close_ep(conn);
	conn->need_close = true;
}

void rdma_conn_close_ep(struct doca_rdma_connection *conn)
{
	ucp_request_param_t p;
	void *req;

	if (conn->ep == NULL)
		return;
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
	p.flags = UCP_EP_CLOSE_FLAG_FORCE;
	req = ucp_ep_close_nbx(conn->ep, &p);
	conn->ep = NULL;
	conn->need_close = false;
	if (UCS_PTR_IS_PTR(req))
		conn->close_req = req;
}

/* Stop watching the peer process. */
static void conn_drop_pidfd(struct doca_rdma_connection *conn)
{
	if (conn->pidfd < 0)
		return;
	ferry_pe_unwatch_fd(conn->rdma->ctx.pe, conn->pidfd);
	if (conn->rdma->service_epfd >= 0)
		(void)epoll_ctl(conn->rdma->service_epfd, EPOLL_CTL_DEL, conn->pidfd, NULL);
	close(conn->pidfd);
	conn->pidfd = -1;
}

/* True when the peer process of @p conn (on this host) has exited. */
static bool conn_peer_exited(const struct doca_rdma_connection *conn)
{
	struct pollfd pfd = {.fd = conn->pidfd, .events = POLLIN};

	return conn->pidfd >= 0 && conn->state == RDMA_CONN_CONNECTED && poll(&pfd, 1, 0) > 0;
}

static void conn_mark_dead(struct doca_rdma_connection *conn)
{
	if (rdma_conn_over(conn))
		return;
	if (conn->cm && conn->state == RDMA_CONN_CONNECTED) {
		conn->events |= RDMA_EV_DISCONNECT;
		conn->rdma->events_pending = true;
	}
	FERRY_INFO("rdma %p: connection %u: the peer process (pid %u) has exited; its tasks complete with "
		   "DOCA_ERROR_CONNECTION_RESET",
		   (void *)conn->rdma, conn->id, conn->peer_pid);
	conn->state = RDMA_CONN_FAILED;
	conn->need_close = true;
	service_unwatch_peer(conn);
}

bool rdma_conn_peer_gone(struct doca_rdma_connection *conn)
{
	if (conn_peer_exited(conn))
		conn_mark_dead(conn);
	return conn->state == RDMA_CONN_FAILED;
}

/*
 * A peer on this host is watched with a pidfd (immune to pid reuse: opened,
 * then the start time checked): UCX 1.13's shared-memory transports have no
 * peer-failure detection. Elsewhere UCX's own (keepalive, TCP errors) serves.
 */
void rdma_conn_watch_peer(struct doca_rdma *rdma, struct doca_rdma_connection *conn, uint32_t pid, uint64_t start_time,
			  const uint8_t boot_id[16])
{
	uint64_t start = 0;
	int fd;

	conn->pidfd = -1;
	if (memcmp(boot_id, rdma->boot_id, sizeof(rdma->boot_id)) != 0 || pid == 0)
		return;
	fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (fd < 0)
		return;
	if (ferry_link_pid_start_time((int)pid, &start) != DOCA_SUCCESS || start != start_time ||
	    ferry_pe_watch_fd(rdma->ctx.pe, fd) != DOCA_SUCCESS) {
		/* Not the same process (another pid namespace, or it is gone): UCX alone then. */
		close(fd);
		return;
	}
	conn->pidfd = fd;
	/* The service thread wakes when the peer exits, whether or not the PE's thread is progressing. */
	{
		struct epoll_event ev = {.events = EPOLLIN, .data.u32 = SERVICE_EV_PEER};

		if (rdma->service_epfd >= 0)
			(void)epoll_ctl(rdma->service_epfd, EPOLL_CTL_ADD, fd, &ev);
	}
}

/* True once the close of @p conn's endpoint has finished (or none was started). */
static bool conn_close_done(struct doca_rdma_connection *conn)
{
	if (conn->close_req == NULL)
		return true;
	if (ucp_request_check_status(conn->close_req) == UCS_INPROGRESS)
		return false;
	ucp_request_free(conn->close_req);
	conn->close_req = NULL;
	return true;
}

/* A connection whose peer went away: close its endpoint, fail what waits on it. */
static void conn_fail_waiting(struct doca_rdma_connection *conn, doca_error_t status)
{
	struct doca_task *t;

	while ((t = ferry_task_list_pop(&conn->waiting)) != NULL)
		rdma_task_finish(rdma_task_of(t), status);
	while ((t = ferry_task_list_pop(&conn->behind_link)) != NULL)
		rdma_task_finish(rdma_task_of(t), status);
	while ((t = ferry_task_list_pop(&conn->deferred)) != NULL) {
		struct rdma_task *task = rdma_task_of(t);

		task->awaiting_msg = false;
		if (task->pending == 0)
			rdma_task_finish(task, status);
		else if (task->status == DOCA_SUCCESS)
			task->status = status; /* its flush completes it */
	}
}

void rdma_conn_flush(struct doca_rdma_connection *conn, doca_error_t status)
{
	conn_fail_waiting(conn, status);
	rdma_conn_detach_ops(conn, status);
}

/* ---- context ops ---- */

static uint32_t deliver(struct ferry_task_list *batch)
{
	struct doca_task *t;
	uint32_t n = 0;

	while ((t = ferry_task_list_pop(batch)) != NULL) {
		rdma_task_deliver(rdma_task_of(t));
		n++;
	}
	return n;
}

static uint32_t rdma_progress(struct doca_ctx *ctx)
{
	struct doca_rdma *rdma = rdma_of_ctx(ctx);
	struct ferry_task_list batch;
	struct doca_task *t;

	if (rdma->worker == NULL)
		return 0;
	/* Seen by the service thread (no clock here: a clock read was 6% of a 64 B ping-pong). */
	atomic_store_explicit(&rdma->pe_calls, atomic_load_explicit(&rdma->pe_calls, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	ferry_biased_owner_lock(&rdma->lock);
	rdma->in_progress = true;
	/* One round per call: the program calls doca_pe_progress again, and a second round is mostly empty. */
	(void)ucp_worker_progress(rdma->worker);
	if (rdma->connecting != 0)
		rdma_cm_check_timeouts(rdma);
	for (uint32_t i = 0; i < rdma->num_conns; i++) {
		struct doca_rdma_connection *conn = &rdma->conns[i];

		if (conn->need_close) {
			conn_fail_waiting(conn, DOCA_ERROR_CONNECTION_RESET);
			rdma_conn_close_ep(conn);
			conn->need_close = false; /* also when the service thread closed the endpoint already */
			conn_drop_pidfd(conn);
			rdma_conn_detach_ops(conn, DOCA_ERROR_CONNECTION_RESET);
		}
		if (conn->close_req != NULL)
			(void)conn_close_done(conn);
		/* Over (either side disconnected, or the peer died): its peer's exit wakes nobody. */
		if (conn->pidfd >= 0 && rdma_conn_over(conn))
			conn_drop_pidfd(conn);
	}
	if (!rdma->stopping) {
		while ((t = ferry_task_list_pop(&rdma->ready)) != NULL)
			rdma_task_issue(rdma_task_of(t));
		if (rdma->deferred) {
			rdma->deferred = false;
			for (uint32_t i = 0; i < rdma->num_conns; i++)
				if (rdma->conns[i].deferred.head != NULL)
					rdma_conn_run_deferred(&rdma->conns[i]);
		}
		match_receives(rdma);
	}
	/*
	 * Only what is done now, and outside the lock: the callbacks may submit,
	 * and a callback that resubmits a failing task cannot spin here.
	 */
	batch = rdma->done;
	rdma->done.head = rdma->done.tail = NULL;
	rdma->in_progress = false;
	bool events = rdma->events_pending;
	ferry_biased_owner_unlock(&rdma->lock);
	uint32_t n = deliver(&batch);

	if (events)
		rdma_cm_deliver(rdma);
	return n;
}

static bool pending_locked(struct doca_rdma *rdma)
{
	if (rdma->done.head != NULL || rdma->ready.head != NULL || rdma->deferred || rdma->events_pending ||
	    (rdma->receives.head != NULL && rdma->unexp_count != 0))
		return true;
	for (uint32_t i = 0; i < rdma->num_conns; i++)
		if (rdma->conns[i].need_close || conn_peer_exited(&rdma->conns[i]))
			return true;
	/* Armed: the event fd (watched by the PE) wakes for anything UCX gets from now on. */
	return ucp_worker_arm(rdma->worker) == UCS_ERR_BUSY;
}

static bool rdma_has_pending(struct doca_ctx *ctx)
{
	struct doca_rdma *rdma = rdma_of_ctx(ctx);
	bool pending;

	if (rdma->worker == NULL)
		return false;
	ferry_biased_owner_lock(&rdma->lock);
	pending = pending_locked(rdma);
	ferry_biased_owner_unlock(&rdma->lock);
	return pending;
}

/*
 * The service thread. UCX 1.13 serves a peer's reads and writes of this
 * process's memory (and the rendezvous of its messages) from this worker's
 * progress, over shared memory as over TCP, and DOCA programs wait on stdin
 * or spin in a sync-event wait while their peer accesses their memory. So
 * when the PE's thread has not progressed this context since the thread last
 * looked (at most RDMA_SERVICE_LOOK_MS ago), this thread progresses the worker
 * whenever its event fd wakes, and rings the PE for what completed;
 * completions are still delivered by doca_pe_progress. While the PE
 * progresses, the thread only looks once per RDMA_SERVICE_LOOK_MS, and then
 * polls the pidfds of peers on this host (the PE's progress never reads a
 * clock for that).
 */
#define RDMA_SERVICE_LOOK_MS 1

/* True when some connection of @p rdma is up: operations may start on it at any time. */
static bool any_connected_locked(const struct doca_rdma *rdma)
{
	for (uint32_t i = 0; i < rdma->num_conns; i++)
		if (rdma->conns[i].state == RDMA_CONN_CONNECTED)
			return true;
	return false;
}

/* Mark connections whose peer process exited; true when one was found. */
static bool poll_peers_locked(struct doca_rdma *rdma)
{
	bool found = false;

	for (uint32_t i = 0; i < rdma->num_conns; i++) {
		if (conn_peer_exited(&rdma->conns[i])) {
			conn_mark_dead(&rdma->conns[i]);
			found = true;
		}
	}
	return found;
}

/* Watch the worker's fd or not (level-triggered: while the PE works, it would wake this thread all the time). */
static void service_watch_worker(struct doca_rdma *rdma, bool on)
{
	struct epoll_event ev = {.events = on ? EPOLLIN : 0, .data.u32 = SERVICE_EV_WORKER};

	(void)epoll_ctl(rdma->service_epfd, EPOLL_CTL_MOD, rdma->efd, &ev);
}

/*
 * A link that goes away silently (cable, interface down) fails no UCX
 * operation for a long time: TCP retransmits for many minutes. So a
 * connection with one-sided operations in flight of which none completed for
 * the context's timeout (FERRY_RDMA_TIMEOUT_MS) is declared lost, as RC gives
 * up after its retries: its tasks complete with DOCA_ERROR_CONNECTION_RESET.
 * With only messages in flight, the peer is asked (ping) half way; no answer
 * by the timeout means lost too.
 * Checked by the service thread at most every RDMA_STALL_LOOK_MS, under the
 * lock. Returns true when a connection was declared lost; *busy says whether
 * any has operations in flight (then the thread must look again).
 */
#define RDMA_STALL_LOOK_MS 50

static bool check_stalls_locked(struct doca_rdma *rdma, uint64_t now, bool *busy)
{
	bool lost = false;

	*busy = false;
	for (uint32_t i = 0; i < rdma->num_conns; i++) {
		struct doca_rdma_connection *conn = &rdma->conns[i];

		if (conn->state != RDMA_CONN_CONNECTED || conn->ops == 0 || rdma->stopping) {
			conn->stall_since = 0;
			conn->ping_pending = false;
			continue;
		}
		*busy = true;
		if (conn->stall_since == 0 || conn->ops_done != conn->ops_seen) {
			conn->ops_seen = conn->ops_done;
			conn->stall_since = now;
			conn->ping_pending = false;
			continue;
		}
		/*
		 * Only messages: a large one may wait, rightly, for the peer's receive.
		 * Half way, ask the peer; its pong starts the clock again.
		 */
		if (conn->timed_ops == 0 && !conn->ping_pending &&
		    now - conn->stall_since >= rdma->stall_timeout_ns / 2)
			send_ping(conn);
		if (now - conn->stall_since < rdma->stall_timeout_ns)
			continue;
		FERRY_ERR("rdma %p: connection %u: %u UCX operations in flight (%u one-sided) and none completed%s for "
			  "%llu ms (FERRY_RDMA_TIMEOUT_MS): the link or the peer is gone; its tasks complete with "
			  "DOCA_ERROR_CONNECTION_RESET",
			  (void *)rdma, conn->id, conn->ops, conn->timed_ops,
			  conn->timed_ops == 0 ? ", nor did the peer answer" : "",
			  (unsigned long long)(rdma->stall_timeout_ns / 1000000u));
		if (conn->cm) {
			conn->events |= RDMA_EV_DISCONNECT;
			rdma->events_pending = true;
		}
		conn->state = RDMA_CONN_FAILED;
		conn->need_close = true;
		conn->stall_since = 0;
		lost = true;
	}
	return lost;
}

static void *service_main(void *arg)
{
	struct doca_rdma *rdma = arg;
	uint64_t seen = atomic_load_explicit(&rdma->pe_calls, memory_order_relaxed);
	uint64_t next_stall_look = 0;
	bool watching = true, in_flight = false;
	int timeout = -1;

	for (;;) {
		struct epoll_event evs[8];
		bool wake = false, peer = false;
		uint64_t calls, now;
		int n = epoll_wait(rdma->service_epfd, evs, 8,
				   in_flight && (timeout < 0 || timeout > RDMA_STALL_LOOK_MS) ? RDMA_STALL_LOOK_MS
											      : timeout);

		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			if (evs[i].data.u32 == SERVICE_EV_QUIT)
				return NULL;
			peer |= evs[i].data.u32 == SERVICE_EV_PEER;
		}
		now = ferry_link_now_ns();
		if (now >= next_stall_look) {
			bool lost;

			next_stall_look = now + RDMA_STALL_LOOK_MS * 1000000ull;
			ferry_biased_other_lock(&rdma->lock);
			lost = check_stalls_locked(rdma, now, &in_flight);
			ferry_biased_other_unlock(&rdma->lock);
			if (lost)
				ferry_pe_wake(rdma->ctx.pe);
		}
		if (peer) {
			/* A peer process on this host exited: tell the PE, even while it is at work. */
			ferry_biased_other_lock(&rdma->lock);
			wake = poll_peers_locked(rdma);
			ferry_biased_other_unlock(&rdma->lock);
			if (wake)
				ferry_pe_wake(rdma->ctx.pe);
		}
		timeout = -1;
		calls = atomic_load_explicit(&rdma->pe_calls, memory_order_relaxed);
		if (calls != seen) {
			/* The PE's thread is at work: leave the worker to it, look again later. */
			seen = calls;
			timeout = RDMA_SERVICE_LOOK_MS;
			if (watching)
				service_watch_worker(rdma, false);
			watching = false;
			continue;
		}
		if (!watching)
			service_watch_worker(rdma, true);
		watching = true;
		ferry_biased_other_lock(&rdma->lock);
		for (int i = 0; i < RDMA_PROGRESS_ROUNDS && ucp_worker_progress(rdma->worker) != 0; i++)
			;
		/*
		 * An endpoint UCX failed is closed at once, not at the PE's next
		 * progress: UCX 1.13 aborts the process when data of a failed TCP
		 * endpoint still arrives (a link that comes back) and its put
		 * handler must answer on it. The PE's progress does the rest.
		 */
		for (uint32_t i = 0; i < rdma->num_conns; i++)
			if (rdma->conns[i].need_close && rdma->conns[i].ep != NULL)
				rdma_conn_close_ep_keep(&rdma->conns[i]);
		wake = poll_peers_locked(rdma) || rdma->done.head != NULL || rdma->events_pending ||
		       (rdma->receives.head != NULL && rdma->unexp_count != 0) || rdma->deferred;
		/*
		 * The PE's thread may start operations after this look without waking
		 * this thread (it progresses the worker itself), and a stopped peer
		 * sends no event: while a connection is up, look at the stalls at
		 * least every RDMA_STALL_LOOK_MS.
		 */
		if (!in_flight && any_connected_locked(rdma))
			in_flight = true;
		/* Busy: more to do at once; else armed, and the fd wakes this thread for the next event. */
		if (ucp_worker_arm(rdma->worker) == UCS_ERR_BUSY)
			timeout = 0;
		ferry_biased_other_unlock(&rdma->lock);
		if (wake)
			ferry_pe_wake(rdma->ctx.pe);
	}
	return NULL;
}

static doca_error_t service_start(struct doca_rdma *rdma, const char *call)
{
	struct epoll_event worker = {.events = EPOLLIN, .data.u32 = SERVICE_EV_WORKER};
	struct epoll_event quit = {.events = EPOLLIN, .data.u32 = SERVICE_EV_QUIT};

	rdma->service_quit_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rdma->service_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (rdma->service_quit_fd < 0 || rdma->service_epfd < 0 ||
	    epoll_ctl(rdma->service_epfd, EPOLL_CTL_ADD, rdma->efd, &worker) != 0 ||
	    epoll_ctl(rdma->service_epfd, EPOLL_CTL_ADD, rdma->service_quit_fd, &quit) != 0 ||
	    pthread_create(&rdma->service, NULL, service_main, rdma) != 0) {
		if (rdma->service_quit_fd >= 0)
			close(rdma->service_quit_fd);
		if (rdma->service_epfd >= 0)
			close(rdma->service_epfd);
		rdma->service_quit_fd = rdma->service_epfd = -1;
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "rdma %p: cannot start its service thread",
				     (void *)rdma);
	}
	rdma->service_running = true;
	return DOCA_SUCCESS;
}

static void service_stop(struct doca_rdma *rdma)
{
	uint64_t one = 1;

	if (!rdma->service_running)
		return;
	if (write(rdma->service_quit_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		FERRY_WARN("rdma %p: cannot signal its service thread", (void *)rdma);
	pthread_join(rdma->service, NULL);
	close(rdma->service_quit_fd);
	close(rdma->service_epfd);
	rdma->service_quit_fd = rdma->service_epfd = -1;
	rdma->service_running = false;
}

static void rdma_release_worker(struct doca_rdma *rdma)
{
	service_stop(rdma);
	if (rdma->conns != NULL) {
		for (uint32_t i = 0; i < rdma->num_conns; i++) {
			free(rdma->conns[i].desc);
			free(rdma->conns[i].rma_ring);
			rdma_cm_conn_release(&rdma->conns[i]);
		}
		free(rdma->conns);
		rdma->conns = NULL;
	}
	rdma->num_conns = 0;
	rdma->events_pending = false;
	rdma->connecting = 0;
	if (rdma->efd >= 0 && rdma->ctx.pe != NULL)
		ferry_pe_unwatch_fd(rdma->ctx.pe, rdma->efd);
	rdma->efd = -1;
	if (rdma->worker != NULL) {
		/*
		 * Requests to a peer that died over a transport without failure
		 * detection never complete in UCX 1.13 (their tasks were handed back
		 * already, rdma_conn_detach_ops): UCX warns about each at destroy.
		 * Expected here, so quiet for this call.
		 */
		ucs_log_level_t level = ucs_global_opts.log_component.log_level;

		if (rdma->orphan_ops != 0 && level < UCS_LOG_LEVEL_DEBUG)
			ucs_global_opts.log_component.log_level = UCS_LOG_LEVEL_ERROR;
		ucp_worker_destroy(rdma->worker);
		ucs_global_opts.log_component.log_level = level;
	}
	rdma->worker = NULL;
	rdma->orphan_ops = 0;
	rdma_free_ops(rdma);
	rdma_rma_release(rdma);
	free(rdma->worker_addr);
	rdma->worker_addr = NULL;
	rdma->worker_addr_len = 0;
}

doca_error_t rdma_net_identity(const struct doca_rdma *rdma, const char *call, struct ferry_net_identity *id)
{
	return ferry_devinfo_net_require(doca_dev_as_devinfo(rdma->ctx.dev), call, id);
}

static doca_error_t rdma_start(struct doca_ctx *ctx)
{
	struct doca_rdma *rdma = rdma_of_ctx(ctx);
	const char *call = "doca_ctx_start";
	ucp_worker_params_t wp;
	ucp_am_handler_param_t ap;
	ucp_address_t *addr;
	size_t addr_len;
	ucs_status_t st;
	doca_error_t err;
	struct ferry_net_identity id;

	/* A device bound to an identity this host lacks cannot be reached: say so now, not at connect. */
	err = rdma_net_identity(rdma, call, &id);
	if (err != DOCA_SUCCESS)
		return err;
	memset(&wp, 0, sizeof(wp));
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SERIALIZED; /* two threads, never at once (rdma->lock) */
	st = ucp_worker_create(rdma->ucp, &wp, &rdma->worker);
	if (st != UCS_OK) {
		rdma->worker = NULL;
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "rdma %p: no UCX worker (ucp_worker_create: %s)",
				     (void *)rdma, ucs_status_string(st));
	}
	rdma->efd = -1;
	st = ucp_worker_get_efd(rdma->worker, &rdma->efd);
	if (st != UCS_OK) {
		err = FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "rdma %p: no UCX event fd (%s)", (void *)rdma,
				    ucs_status_string(st));
		rdma->efd = -1;
		goto fail;
	}
	err = ferry_pe_watch_fd(ctx->pe, rdma->efd);
	if (err != DOCA_SUCCESS) {
		rdma->efd = -1;
		goto fail;
	}
	memset(&ap, 0, sizeof(ap));
	ap.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
			UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
	ap.id = RDMA_AM_ID;
	/*
	 * Not persistent: most messages find their receive posted and are copied
	 * straight from UCX's buffer; one that arrives first is copied aside
	 * (or held, when UCX offers its buffer for keeps).
	 */
	ap.flags = UCP_AM_FLAG_WHOLE_MSG;
	ap.cb = am_cb;
	ap.arg = rdma;
	/* A peer may send ids nobody registered: UCX before 1.21 must have a handler for each (common/ferry_ucx_am.h). */
	st = ferry_ucx_guard_am_ids(ucp_worker_set_am_recv_handler, ucp_get_version, rdma->worker);
	if (st == UCS_OK)
		st = ucp_worker_set_am_recv_handler(rdma->worker, &ap);
	/* One-sided requests and their answers: each is taken whole from UCX's buffer (rdma_rma.c). */
	ap.id = RDMA_AM_RMA_ID;
	ap.cb = rdma_rma_am_cb;
	if (st == UCS_OK)
		st = ucp_worker_set_am_recv_handler(rdma->worker, &ap);
	if (st == UCS_OK)
		st = ucp_worker_get_address(rdma->worker, &addr, &addr_len);
	if (st != UCS_OK) {
		err = FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "rdma %p: UCX worker setup failed (%s)",
				    (void *)rdma, ucs_status_string(st));
		goto fail;
	}
	if (addr_len > FERRY_RDMA_CONN_MAX_ADDR) {
		ucp_worker_release_address(rdma->worker, addr);
		err = FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION,
				    "rdma %p: the UCX worker address takes %zu bytes, more than a descriptor holds "
				    "(%u); narrow UCX_TLS",
				    (void *)rdma, addr_len, FERRY_RDMA_CONN_MAX_ADDR);
		goto fail;
	}
	rdma->worker_addr = ferry_malloc(addr_len);
	if (rdma->worker_addr != NULL)
		memcpy(rdma->worker_addr, addr, addr_len);
	rdma->worker_addr_len = addr_len;
	ucp_worker_release_address(rdma->worker, addr);
	rdma->conns = ferry_calloc(rdma->max_conns, sizeof(*rdma->conns));
	if (rdma->worker_addr == NULL || rdma->conns == NULL) {
		err = FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "rdma %p: no memory for its connections", (void *)rdma);
		goto fail;
	}
	if (ferry_link_boot_id(rdma->boot_id) != DOCA_SUCCESS ||
	    ferry_link_pid_start_time((int)getpid(), &rdma->start_time) != DOCA_SUCCESS) {
		/* Peers then cannot watch this process: they fall back to UCX's own detection. */
		memset(rdma->boot_id, 0, sizeof(rdma->boot_id));
		rdma->start_time = 0;
	}
	do {
		if (getrandom(&rdma->token, sizeof(rdma->token), 0) != (ssize_t)sizeof(rdma->token))
			rdma->token = ferry_link_now_ns() ^ ((uint64_t)getpid() << 32);
	} while (rdma->token == 0);
	rdma->num_conns = 0;
	rdma->stopping = false;
	rdma->deferred = false;
	rdma->receives.head = rdma->receives.tail = NULL;
	rdma->done.head = rdma->done.tail = NULL;
	rdma->ready.head = rdma->ready.tail = NULL;
	rdma->unexp_head = rdma->unexp_count = 0;
	rdma->unexp_bytes = 0;
	err = rdma_rma_start(rdma);
	if (err != DOCA_SUCCESS)
		goto fail;
	/* The worker armed once: its fd wakes the service thread for the first event. */
	(void)ucp_worker_arm(rdma->worker);
	err = service_start(rdma, call);
	if (err != DOCA_SUCCESS)
		goto fail;
	/* DOCA 3.3: RUNNING at once; programs export and connect from the RUNNING callback. */
	return DOCA_SUCCESS;
fail:
	rdma_release_worker(rdma);
	return err;
}

static void rdma_stop(struct doca_ctx *ctx)
{
	struct doca_rdma *rdma = rdma_of_ctx(ctx);
	struct doca_task *t;

	ferry_biased_owner_lock(&rdma->lock);
	rdma->stopping = true;
	rdma_cm_stop(rdma);
	/* Completions go through progress: everything here only queues. */
	while ((t = ferry_task_list_pop(&rdma->receives)) != NULL)
		rdma_task_finish(rdma_task_of(t), DOCA_ERROR_IO_FAILED);
	while ((t = ferry_task_list_pop(&rdma->ready)) != NULL)
		rdma_task_finish(rdma_task_of(t), DOCA_ERROR_IO_FAILED);
	rdma_link_flush(rdma, DOCA_ERROR_IO_FAILED); /* a copy under way completes on its own */
	for (uint32_t i = 0; i < rdma->num_conns; i++) {
		conn_fail_waiting(&rdma->conns[i], DOCA_ERROR_IO_FAILED);
		/* Force: UCX completes every operation still on the endpoint with an error. */
		rdma_conn_close_ep(&rdma->conns[i]);
		conn_drop_pidfd(&rdma->conns[i]);
		/* What UCX cancelled is back already; what it would never complete is handed back here. */
		ucp_worker_progress(rdma->worker);
		rdma_conn_detach_ops(&rdma->conns[i], DOCA_ERROR_IO_FAILED);
	}
	drop_unexpected(rdma);
	ferry_biased_owner_unlock(&rdma->lock);
}

static void rdma_stopped(struct doca_ctx *ctx)
{
	struct doca_rdma *rdma = rdma_of_ctx(ctx);
	uint64_t deadline = ferry_link_now_ns() + RDMA_CLOSE_DEADLINE_NS;
	bool all;

	/* From here the PE's thread alone uses the worker (the link thread has nothing left to copy). */
	service_stop(rdma);
	rdma_link_stop(rdma);
	/* Force-closed endpoints finish within a few progress calls; the deadline is a guard. */
	do {
		all = true;
		for (uint32_t i = 0; i < rdma->num_conns; i++)
			all &= conn_close_done(&rdma->conns[i]);
		if (!all)
			ucp_worker_progress(rdma->worker);
	} while (!all && ferry_link_now_ns() < deadline);
	if (!all)
		FERRY_WARN("rdma %p: UCX did not finish closing its endpoints within 1 s", (void *)rdma);
	for (uint32_t i = 0; i < rdma->num_conns; i++) {
		if (rdma->conns[i].close_req != NULL) {
			ucp_request_cancel(rdma->worker, rdma->conns[i].close_req);
			ucp_request_free(rdma->conns[i].close_req);
		}
	}
	drop_unexpected(rdma);
	rdma_release_worker(rdma);
	rdma->stopping = false;
}

static doca_error_t rdma_submit(struct doca_task *base);

static const struct ferry_ctx_ops rdma_ops = {
	.start = rdma_start,
	.stop = rdma_stop,
	.stopped = rdma_stopped,
	.submit = rdma_submit,
	.progress = rdma_progress,
	.has_pending = rdma_has_pending,
};

static doca_error_t rdma_submit(struct doca_task *base)
{
	struct doca_rdma *rdma = rdma_of_ctx(base->ctx);
	doca_error_t err;

	ferry_biased_owner_lock(&rdma->lock);
	err = rdma_task_submit(rdma_task_of(base));
	ferry_biased_owner_unlock(&rdma->lock);
	return err;
}

/* FERRY_RDMA_TIMEOUT_MS: 1 to RDMA_MAX_TIMEOUT_MS milliseconds, default RDMA_DEFAULT_TIMEOUT_MS. */
static doca_error_t stall_timeout(uint64_t *ns)
{
	const char *v = getenv("FERRY_RDMA_TIMEOUT_MS");
	unsigned long ms = RDMA_DEFAULT_TIMEOUT_MS;

	if (v != NULL && *v != '\0') {
		char *end;

		errno = 0;
		ms = strtoul(v, &end, 10);
		if (errno != 0 || *end != '\0' || v[0] < '0' || v[0] > '9' || ms == 0 || ms > RDMA_MAX_TIMEOUT_MS)
			return FERRY_RULE_IN("doca_rdma_create", DOCA_ERROR_INVALID_VALUE,
					     "FERRY_RDMA_TIMEOUT_MS '%s' is not a number of milliseconds from 1 to %u",
					     v, RDMA_MAX_TIMEOUT_MS);
	}
	*ns = (uint64_t)ms * 1000000u;
	return DOCA_SUCCESS;
}

/* ---- public: context ---- */

doca_error_t doca_rdma_create(struct doca_dev *dev, struct doca_rdma **rdma_out)
{
	struct doca_rdma *rdma;
	uint64_t stall_ns;
	doca_error_t err;

	if (dev == NULL || rdma_out == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s is NULL", dev == NULL ? "dev" : "rdma");
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device", (void *)dev);
	err = stall_timeout(&stall_ns);
	if (err != DOCA_SUCCESS)
		return err;
	rdma = ferry_calloc(1, sizeof(*rdma));
	if (rdma == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for an RDMA context");
	err = rdma_ucp_get(&rdma->ucp, __func__);
	if (err != DOCA_SUCCESS) {
		free(rdma);
		return err;
	}
	ferry_ctx_init(&rdma->ctx, &rdma_ops, "rdma", dev);
	for (int k = 0; k < RDMA_TASK_KINDS; k++)
		ferry_ctx_add_pool(&rdma->ctx, &rdma->pools[k], rdma_task_names[k], sizeof(struct rdma_task),
				   rdma_task_trampolines[k]);
	rdma->permissions = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	rdma->max_conns = RDMA_DEFAULT_CONNECTIONS;
	rdma->transport = DOCA_RDMA_TRANSPORT_TYPE_RC;
	rdma->send_queue_size = RDMA_DEFAULT_SEND_QUEUE;
	rdma->max_send_buf_list_len = 1;
	rdma->recv_buf_list_len = 1;
	rdma->mtu = DOCA_MTU_SIZE_1K_BYTES;
	rdma->sl = 0;
	rdma->cm_timeout = 5000;
	rdma->rnr_retry_count = 7;
	rdma->stall_timeout_ns = stall_ns;
	rdma->efd = -1;
	rdma->service_quit_fd = -1;
	rdma->service_epfd = -1;
	ferry_biased_lock_init(&rdma->lock);
	pthread_mutex_init(&rdma->link_mutex, NULL);
	pthread_cond_init(&rdma->link_cond, NULL);
	*rdma_out = rdma;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_destroy(struct doca_rdma *rdma)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(rdma);
	err = ferry_ctx_check_destroyable(&rdma->ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	ferry_ctx_fini(&rdma->ctx);
	rdma_ucp_put();
	pthread_cond_destroy(&rdma->link_cond);
	pthread_mutex_destroy(&rdma->link_mutex);
	ferry_biased_lock_fini(&rdma->lock);
	free(rdma);
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_rdma_as_ctx(struct doca_rdma *rdma)
{
	if (rdma == NULL) {
		FERRY_ERR("%s: rdma is NULL", __func__);
		return NULL;
	}
	return &rdma->ctx;
}

/* ---- public: export / connect ---- */

static doca_error_t check_running(const struct doca_rdma *rdma, const char *call)
{
	if (rdma->ctx.state != DOCA_CTX_STATE_RUNNING || rdma->worker == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "rdma %p is %s; connections need RUNNING",
				     (const void *)rdma, ferry_ctx_state_name(rdma->ctx.state));
	return DOCA_SUCCESS;
}

static doca_error_t export_locked(struct doca_rdma *rdma, const void **local_rdma_conn_details,
				  size_t *local_rdma_conn_details_size, struct doca_rdma_connection **rdma_connection)
{
	const char *call = "doca_rdma_export";
	struct ferry_rdma_conn_desc d;
	struct doca_rdma_connection *conn;
	doca_error_t err;

	if (rdma == NULL || local_rdma_conn_details == NULL || local_rdma_conn_details_size == NULL ||
	    rdma_connection == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL",
				     rdma == NULL                           ? "rdma"
				     : local_rdma_conn_details == NULL      ? "local_rdma_conn_details"
				     : local_rdma_conn_details_size == NULL ? "local_rdma_conn_details_size"
									    : "rdma_connection");
	err = check_running(rdma, call);
	if (err != DOCA_SUCCESS)
		return err;
	conn = rdma_conn_new(rdma);
	if (conn == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_FULL,
				     "rdma %p: all %u connection(s) are in use (doca_rdma_set_max_num_connections)",
				     (void *)rdma, rdma->max_conns);
	d.start_time = rdma->start_time;
	memcpy(d.boot_id, rdma->boot_id, sizeof(d.boot_id));
	d.transport = (uint16_t)rdma->transport;
	d.token = rdma->token;
	d.conn_id = conn->id;
	d.permissions = rdma->permissions;
	d.pid = (uint32_t)getpid();
	d.addr_len = (uint16_t)rdma->worker_addr_len;
	d.addr = rdma->worker_addr;
	conn->desc = ferry_malloc(ferry_rdma_conn_desc_size(&d));
	if (conn->desc == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "rdma %p: no memory for a connection descriptor",
				     (void *)rdma);
	conn->desc_len = ferry_rdma_conn_desc_encode(&d, conn->desc, ferry_rdma_conn_desc_size(&d));
	if (conn->desc_len == 0) {
		free(conn->desc);
		conn->desc = NULL;
		return FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_ABORTED, "rdma %p: cannot describe connection %u",
				     (void *)rdma, conn->id);
	}
	conn->state = RDMA_CONN_EXPORTED;
	*local_rdma_conn_details = conn->desc;
	*local_rdma_conn_details_size = conn->desc_len;
	*rdma_connection = conn;
	return DOCA_SUCCESS;
}

/* Whether a task or a message of @p rdma still names @p conn. */
static bool conn_named(struct doca_rdma *rdma, const struct doca_rdma_connection *conn)
{
	struct ferry_task_list *lists[] = {&rdma->done, &rdma->ready};

	for (uint32_t i = 0; i < rdma->unexp_count; i++)
		if (rdma->unexpected[(rdma->unexp_head + i) % RDMA_MAX_UNEXPECTED].conn == conn)
			return true;
	for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++)
		for (struct doca_task *t = lists[l]->head; t != NULL; t = t->next)
			if (rdma_task_of(t)->conn == conn)
				return true;
	return false;
}

/*
 * A connection is over for good: the program let it go (disconnected it, or
 * was told of its end by the connection manager), its endpoint is closed and
 * nothing in flight, waiting or undelivered names it.
 */
static bool conn_reclaimable(struct doca_rdma *rdma, const struct doca_rdma_connection *conn)
{
	return conn->released && rdma_conn_over(conn) && conn->ep == NULL && conn->close_req == NULL &&
	       !conn->need_close && conn->pidfd < 0 && conn->live == NULL && conn->waiting.head == NULL &&
	       conn->deferred.head == NULL && conn->rma_head == NULL && conn->link_busy == 0 &&
	       conn->behind_link.head == NULL && conn->events == 0 && conn->conn_req == NULL &&
	       conn != rdma->delivering && !conn_named(rdma, conn);
}

/* Empty slot @p slot for a new connection, the next generation of its id. */
static struct doca_rdma_connection *conn_fill_slot(struct doca_rdma *rdma, uint32_t slot)
{
	struct doca_rdma_connection *conn = &rdma->conns[slot];
	uint32_t generation = slot < rdma->num_conns ? (conn->id >> RDMA_CONN_SLOT_BITS) + 1 : 0;

	if (slot < rdma->num_conns) {
		/* Its pidfd went at the progress that saw it over (the PE's watch is the PE thread's to change). */
		free(conn->desc);
		free(conn->rma_ring);
		rdma_cm_conn_release(conn);
	} else {
		rdma->num_conns++;
	}
	memset(conn, 0, sizeof(*conn));
	conn->rdma = rdma;
	conn->id = slot | (generation << RDMA_CONN_SLOT_BITS);
	conn->pidfd = -1;
	return conn;
}

/*
 * A slot for a new connection: one never used, else one whose connection is
 * over for good (so a long-lived server takes client after client, and
 * clients that leave, are refused or time out do not use its slots up).
 */
struct doca_rdma_connection *rdma_conn_new(struct doca_rdma *rdma)
{
	if (rdma->num_conns < rdma->max_conns)
		return conn_fill_slot(rdma, rdma->num_conns);
	for (uint32_t i = 0; i < rdma->num_conns; i++)
		if (conn_reclaimable(rdma, &rdma->conns[i]))
			return conn_fill_slot(rdma, i);
	return NULL;
}

void rdma_conn_keys(struct doca_rdma_connection *conn)
{
	uint64_t token = conn->rdma->token;

	conn->msg_key_out = rdma_msg_key(conn->peer_token, conn->peer_conn, token, conn->id);
	conn->msg_key_in = rdma_msg_key(token, conn->id, conn->peer_token, conn->peer_conn);
}

uint32_t rdma_conn_stamp(struct doca_rdma *rdma, const struct doca_rdma_connection *conn)
{
	uint32_t id = UINT32_MAX;

	ferry_biased_owner_lock(&rdma->lock);
	if (rdma->conns != NULL && conn >= rdma->conns && conn < rdma->conns + rdma->num_conns)
		id = conn->id;
	ferry_biased_owner_unlock(&rdma->lock);
	return id;
}

/*
 * A server's endpoint for a client's connection request. UCX takes the
 * request whatever the outcome, with one exception: a request whose header
 * it cannot read (an unknown version, which any host can send) comes back
 * with UCS_ERR_UNSUPPORTED untouched, and is rejected here (else its socket
 * and memory would stay until the listener goes). A retry would use a
 * request UCX already freed. The error mode is the client's own (UCX's
 * header carries it): asking for another makes UCX 1.13 fail after it took
 * the request.
 */
static ucs_status_t rdma_ep_accept(struct doca_rdma *rdma, struct doca_rdma_connection *conn, ucp_ep_params_t *ep)
{
	ucs_status_t st = ucp_ep_create(rdma->worker, ep, &conn->ep);

	if (st == UCS_ERR_UNSUPPORTED && rdma->listener != NULL)
		(void)ucp_listener_reject(rdma->listener, ep->conn_request);
	return st;
}

/* An endpoint to a peer by its worker address or its socket address: PEER mode where UCX can watch the peer. */
static ucs_status_t rdma_ep_connect(struct doca_rdma *rdma, struct doca_rdma_connection *conn, ucp_ep_params_t *ep)
{
	ucs_log_level_t level = ucs_global_opts.log_component.log_level;
	ucs_status_t st;

	ep->field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
	ep->err_mode = UCP_ERR_HANDLING_MODE_PEER;
	/*
	 * Where UCX cannot watch the peer it refuses PEER mode with an ERROR line
	 * on stderr; that is expected here (the fallback below), so UCX's log is
	 * quiet for this one call.
	 */
	if (level < UCS_LOG_LEVEL_DEBUG)
		ucs_global_opts.log_component.log_level = UCS_LOG_LEVEL_FATAL;
	st = ucp_ep_create(rdma->worker, ep, &conn->ep);
	ucs_global_opts.log_component.log_level = level;
	if (st == UCS_OK)
		return st;
	/*
	 * UCX 1.13 cannot detect a dead peer over shared memory, and then refuses
	 * PEER mode there: connect without it, the pidfd watch
	 * (rdma_conn_watch_peer) taking its place.
	 */
	ep->field_mask &= ~(uint64_t)UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep->err_mode = UCP_ERR_HANDLING_MODE_NONE;
	return ucp_ep_create(rdma->worker, ep, &conn->ep);
}

ucs_status_t rdma_ep_create(struct doca_rdma *rdma, struct doca_rdma_connection *conn, ucp_ep_params_t *ep)
{
	ucs_status_t st;

	ep->field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep->err_handler.cb = rdma_ep_err_cb;
	ep->err_handler.arg = conn;
	st = ep->field_mask & UCP_EP_PARAM_FIELD_CONN_REQUEST ? rdma_ep_accept(rdma, conn, ep)
							      : rdma_ep_connect(rdma, conn, ep);
	if (st != UCS_OK)
		conn->ep = NULL;
	return st;
}

static bool conn_belongs(const struct doca_rdma *rdma, const struct doca_rdma_connection *conn)
{
	return rdma->conns != NULL && conn >= rdma->conns && conn < rdma->conns + rdma->num_conns && conn->rdma == rdma;
}

static doca_error_t connect_locked(struct doca_rdma *rdma, const void *remote_rdma_conn_details,
				   size_t remote_rdma_conn_details_size, struct doca_rdma_connection *rdma_connection)
{
	const char *call = "doca_rdma_connect";
	struct ferry_rdma_conn_desc d;
	struct doca_rdma_connection *conn = rdma_connection;
	ucp_ep_params_t ep;
	const char *why = NULL;
	struct doca_task *t;
	ucs_status_t st;
	doca_error_t err;

	if (rdma == NULL || remote_rdma_conn_details == NULL || conn == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL",
				     rdma == NULL                       ? "rdma"
				     : remote_rdma_conn_details == NULL ? "remote_rdma_conn_details"
									: "rdma_connection");
	err = check_running(rdma, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (!conn_belongs(rdma, conn))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "connection %p was not exported by rdma %p in this run", (void *)conn,
				     (void *)rdma);
	if (conn->state != RDMA_CONN_EXPORTED)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "rdma %p: connection %u is already %s", (void *)rdma,
				     conn->id, conn->state == RDMA_CONN_CONNECTED ? "connected" : "failed");
	err = ferry_rdma_conn_desc_decode(remote_rdma_conn_details, remote_rdma_conn_details_size, &d, &why);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_ABORTED,
				     "rdma %p: connection %u: the peer's descriptor is refused (%zu bytes): %s",
				     (void *)rdma, conn->id, remote_rdma_conn_details_size, why);
	memset(&ep, 0, sizeof(ep));
	ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
	ep.address = (const ucp_address_t *)d.addr;
	st = rdma_ep_create(rdma, conn, &ep);
	if (st == UCS_OK && ep.err_mode == UCP_ERR_HANDLING_MODE_NONE &&
	    memcmp(d.boot_id, rdma->boot_id, sizeof(d.boot_id)) != 0)
		FERRY_WARN("rdma %p: connection %u: this UCX transport cannot tell when the peer (on another host) "
			   "dies; tasks to a dead peer may never complete",
			   (void *)rdma, conn->id);
	if (st != UCS_OK) {
		conn->ep = NULL;
		return FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_ABORTED,
				     "rdma %p: connection %u: UCX cannot reach the peer (pid %u): %s", (void *)rdma,
				     conn->id, d.pid, ucs_status_string(st));
	}
	rdma_conn_watch_peer(rdma, conn, d.pid, d.start_time, d.boot_id);
	conn->peer_token = d.token;
	conn->peer_conn = d.conn_id;
	rdma_conn_keys(conn);
	conn->peer_perm = d.permissions;
	conn->peer_pid = d.pid;
	conn->state = RDMA_CONN_CONNECTED;
	/* Tasks that waited for the connection go out from progress, in order. */
	while ((t = ferry_task_list_pop(&conn->waiting)) != NULL)
		ferry_task_list_push(&rdma->ready, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_export(struct doca_rdma *rdma, const void **local_rdma_conn_details,
			      size_t *local_rdma_conn_details_size, struct doca_rdma_connection **rdma_connection)
{
	doca_error_t err;

	if (rdma == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "rdma is NULL");
	ferry_biased_owner_lock(&rdma->lock);
	err = export_locked(rdma, local_rdma_conn_details, local_rdma_conn_details_size, rdma_connection);
	ferry_biased_owner_unlock(&rdma->lock);
	return err;
}

doca_error_t doca_rdma_connect(struct doca_rdma *rdma, const void *remote_rdma_conn_details,
			       size_t remote_rdma_conn_details_size, struct doca_rdma_connection *rdma_connection)
{
	doca_error_t err;

	if (rdma == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "rdma is NULL");
	ferry_biased_owner_lock(&rdma->lock);
	err = connect_locked(rdma, remote_rdma_conn_details, remote_rdma_conn_details_size, rdma_connection);
	ferry_biased_owner_unlock(&rdma->lock);
	return err;
}

doca_error_t doca_rdma_connection_set_user_data(struct doca_rdma_connection *rdma_connection,
						union doca_data connection_user_data)
{
	FERRY_ARG_NOT_NULL(rdma_connection);
	rdma_connection->user_data = connection_user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_connection_get_user_data(const struct doca_rdma_connection *rdma_connection,
						union doca_data *connection_user_data)
{
	FERRY_ARG_NOT_NULL(rdma_connection);
	FERRY_ARG_NOT_NULL(connection_user_data);
	*connection_user_data = rdma_connection->user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_connection_get_id(const struct doca_rdma_connection *rdma_connection, uint32_t *connection_id)
{
	FERRY_ARG_NOT_NULL(rdma_connection);
	FERRY_ARG_NOT_NULL(connection_id);
	*connection_id = rdma_connection->id;
	return DOCA_SUCCESS;
}

/* ---- public: properties ---- */

#define PERMISSION_BITS                                                                                            \
	((uint32_t)(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | \
		    DOCA_ACCESS_FLAG_RDMA_ATOMIC))

/* Every setter: not NULL, IDLE. */
static doca_error_t settable(struct doca_rdma *rdma, const char *call)
{
	if (rdma == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "rdma is NULL");
	return ferry_ctx_check_idle(&rdma->ctx, call);
}

doca_error_t doca_rdma_set_permissions(struct doca_rdma *rdma, uint32_t permissions)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if ((permissions & ~PERMISSION_BITS) != 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "rdma %p: permissions 0x%x hold bits other than LOCAL_READ_WRITE and RDMA_*",
				  (void *)rdma, permissions);
	rdma->permissions = permissions;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_permissions(struct doca_rdma *rdma, uint32_t *permissions)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(permissions);
	*permissions = rdma->permissions;
	return DOCA_SUCCESS;
}

/* Ferry's devices have a GID table of this size (rdma_caps below). */
#define RDMA_GID_TABLE_SIZE 1u

doca_error_t doca_rdma_set_gid_index(struct doca_rdma *rdma, uint32_t gid_index)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (gid_index >= RDMA_GID_TABLE_SIZE)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "rdma %p: GID index %u is outside the device's table of %u entries", (void *)rdma,
				  gid_index, RDMA_GID_TABLE_SIZE);
	rdma->gid_index = gid_index;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_gid_index(const struct doca_rdma *rdma, uint32_t *gid_index)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(gid_index);
	*gid_index = rdma->gid_index;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_max_num_connections(struct doca_rdma *rdma, uint16_t max_num_connections)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (max_num_connections == 0 || max_num_connections > RDMA_MAX_CONNECTIONS)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "rdma %p: %u connections; Ferry allows 1 to %u",
				  (void *)rdma, max_num_connections, RDMA_MAX_CONNECTIONS);
	rdma->max_conns = max_num_connections;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_max_num_connections(struct doca_rdma *rdma, uint16_t *max_num_connections)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(max_num_connections);
	*max_num_connections = rdma->max_conns;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_transport_type(struct doca_rdma *rdma, enum doca_rdma_transport_type transport_type)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (transport_type != DOCA_RDMA_TRANSPORT_TYPE_RC && transport_type != DOCA_RDMA_TRANSPORT_TYPE_DC)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "rdma %p: unknown transport type %d", (void *)rdma,
				  (int)transport_type);
	rdma->transport = transport_type;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_transport_type(const struct doca_rdma *rdma, enum doca_rdma_transport_type *transport_type)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(transport_type);
	*transport_type = rdma->transport;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_send_queue_size(struct doca_rdma *rdma, uint32_t send_queue_size)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (send_queue_size == 0 || send_queue_size > RDMA_MAX_SEND_QUEUE)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "rdma %p: send queue size %u; allowed 1 to %u",
				  (void *)rdma, send_queue_size, RDMA_MAX_SEND_QUEUE);
	rdma->send_queue_size = ferry_pow2_at_least(send_queue_size);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_send_queue_size(const struct doca_rdma *rdma, uint32_t *send_queue_size)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(send_queue_size);
	*send_queue_size = rdma->send_queue_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_recv_queue_size(struct doca_rdma *rdma, uint32_t recv_queue_size)
{
	(void)recv_queue_size;
	FERRY_ARG_NOT_NULL(rdma);
	return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
			  "rdma %p: the receive queue size is a GPU/DPA setting; the CPU data path has none",
			  (void *)rdma);
}

doca_error_t doca_rdma_get_recv_queue_size(const struct doca_rdma *rdma, uint32_t *recv_queue_size)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(recv_queue_size);
	return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
			  "rdma %p: the receive queue size is a GPU/DPA setting; the CPU data path has none",
			  (const void *)rdma);
}

doca_error_t doca_rdma_set_max_send_buf_list_len(struct doca_rdma *rdma, uint32_t max_send_buf_list_len)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (max_send_buf_list_len == 0 || max_send_buf_list_len > RDMA_MAX_BUF_LIST)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "rdma %p: send lists of %u bufs; 1..%u (doca_rdma_cap_get_max_send_buf_list_len)",
				  (void *)rdma, max_send_buf_list_len, RDMA_MAX_BUF_LIST);
	rdma->max_send_buf_list_len = max_send_buf_list_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_max_send_buf_list_len(const struct doca_rdma *rdma, uint32_t *max_send_buf_list_len)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(max_send_buf_list_len);
	*max_send_buf_list_len = rdma->max_send_buf_list_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_mtu(struct doca_rdma *rdma, enum doca_mtu_size mtu)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if ((int)mtu < (int)DOCA_MTU_SIZE_256_BYTES || (int)mtu > (int)DOCA_MTU_SIZE_4K_BYTES)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "rdma %p: unknown MTU %d", (void *)rdma, (int)mtu);
	rdma->mtu = mtu;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_mtu(const struct doca_rdma *rdma, enum doca_mtu_size *mtu)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(mtu);
	*mtu = rdma->mtu;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_grh_enabled(struct doca_rdma *rdma, uint8_t grh_enabled)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	rdma->grh_enabled = grh_enabled != 0;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_grh_enabled(const struct doca_rdma *rdma, uint8_t *grh_enabled)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(grh_enabled);
	*grh_enabled = rdma->grh_enabled;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_sl(struct doca_rdma *rdma, uint32_t sl)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (sl > 15)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "rdma %p: service level %u is above 15", (void *)rdma, sl);
	rdma->sl = sl;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_sl(const struct doca_rdma *rdma, uint32_t *sl)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(sl);
	*sl = rdma->sl;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_connection_request_timeout(struct doca_rdma *rdma, uint16_t timeout)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	rdma->cm_timeout = timeout;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_connection_request_timeout(const struct doca_rdma *rdma, uint16_t *timeout)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(timeout);
	*timeout = rdma->cm_timeout;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_rnr_retry_count(struct doca_rdma *rdma, uint8_t rnr_retry_count)
{
	doca_error_t err = settable(rdma, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (rnr_retry_count > 7)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "rdma %p: RNR retry count %u is above 7", (void *)rdma,
				  rnr_retry_count);
	rdma->rnr_retry_count = rnr_retry_count;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_rnr_retry_count(const struct doca_rdma *rdma, uint8_t *rnr_retry_count)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(rnr_retry_count);
	*rnr_retry_count = rdma->rnr_retry_count;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_get_dpa_handle(struct doca_rdma *rdma, doca_dpa_dev_rdma_t *dpa_rdma)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(dpa_rdma);
	return FERRY_RULE(DOCA_ERROR_BAD_STATE, "rdma %p: Ferry has no DPA data path", (void *)rdma);
}

doca_error_t doca_rdma_get_gpu_handle(struct doca_rdma *rdma, struct doca_gpu_dev_rdma **gpu_rdma)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(gpu_rdma);
	return FERRY_RULE(DOCA_ERROR_BAD_STATE, "rdma %p: Ferry has no GPU data path", (void *)rdma);
}

/* ---- public: capabilities (every emulated device is an RDMA device) ---- */

static doca_error_t devinfo_ok(const struct doca_devinfo *devinfo, const char *call)
{
	if (devinfo == NULL || !ferry_devinfo_is_valid(devinfo))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "devinfo %p is not a device",
				     (const void *)devinfo);
	return DOCA_SUCCESS;
}

#define RDMA_CAP_U32(name, value)                                                            \
	doca_error_t doca_rdma_cap_##name(const struct doca_devinfo *devinfo, uint32_t *out) \
	{                                                                                    \
		doca_error_t err = devinfo_ok(devinfo, __func__);                            \
		if (err != DOCA_SUCCESS)                                                     \
			return err;                                                          \
		FERRY_ARG_NOT_NULL(out);                                                     \
		*out = (value);                                                              \
		return DOCA_SUCCESS;                                                         \
	}

RDMA_CAP_U32(get_max_recv_queue_size, RDMA_MAX_SEND_QUEUE)
RDMA_CAP_U32(get_max_send_queue_size, RDMA_MAX_SEND_QUEUE)
RDMA_CAP_U32(get_max_send_buf_list_len, RDMA_MAX_BUF_LIST)
RDMA_CAP_U32(get_max_message_size, RDMA_MAX_MESSAGE)
RDMA_CAP_U32(get_gid_table_size, RDMA_GID_TABLE_SIZE)

doca_error_t doca_rdma_cap_get_gid(const struct doca_devinfo *devinfo, uint32_t start_index, uint32_t num_entries,
				   struct doca_rdma_gid *gid_array)
{
	doca_error_t err = devinfo_ok(devinfo, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	FERRY_ARG_NOT_NULL(gid_array);
	if (num_entries == 0 || start_index >= RDMA_GID_TABLE_SIZE || num_entries > RDMA_GID_TABLE_SIZE - start_index)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "entries %u + %u are outside the GID table of %u",
				  start_index, num_entries, RDMA_GID_TABLE_SIZE);
	/* ::ffff:<IPv4 of the device's network identity>, as RoCE v2 derives a GID from an address. */
	{
		struct ferry_net_identity id;

		if (ferry_devinfo_net_resolve(devinfo, &id) != DOCA_SUCCESS)
			return FERRY_RULE(DOCA_ERROR_NOT_FOUND,
					  "device %s is bound to network identity '%s', which no interface of this "
					  "host has",
					  ferry_devinfo_name(devinfo), ferry_devinfo_net(devinfo));
		memset(gid_array[0].raw, 0, DOCA_GID_BYTE_LENGTH);
		gid_array[0].raw[10] = 0xff;
		gid_array[0].raw[11] = 0xff;
		memcpy(&gid_array[0].raw[12], &id.ipv4, 4);
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_cap_transport_type_is_supported(const struct doca_devinfo *devinfo,
						       enum doca_rdma_transport_type transport_type)
{
	doca_error_t err = devinfo_ok(devinfo, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	return transport_type == DOCA_RDMA_TRANSPORT_TYPE_RC || transport_type == DOCA_RDMA_TRANSPORT_TYPE_DC
		       ? DOCA_SUCCESS
		       : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_rdma_cap_task_receive_get_max_dst_buf_list_len(const struct doca_devinfo *devinfo,
								 enum doca_rdma_transport_type transport_type,
								 uint32_t *max_buf_list_len)
{
	doca_error_t err = devinfo_ok(devinfo, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	FERRY_ARG_NOT_NULL(max_buf_list_len);
	if (transport_type != DOCA_RDMA_TRANSPORT_TYPE_RC && transport_type != DOCA_RDMA_TRANSPORT_TYPE_DC)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "unknown transport type %d", (int)transport_type);
	*max_buf_list_len = RDMA_MAX_BUF_LIST;
	return DOCA_SUCCESS;
}

#define RDMA_CAP_TASK(name, answer)                                                               \
	doca_error_t doca_rdma_cap_task_##name##_is_supported(const struct doca_devinfo *devinfo) \
	{                                                                                         \
		doca_error_t err = devinfo_ok(devinfo, __func__);                                 \
		return err != DOCA_SUCCESS ? err : (answer);                                      \
	}

RDMA_CAP_TASK(receive, DOCA_SUCCESS)
RDMA_CAP_TASK(send, DOCA_SUCCESS)
RDMA_CAP_TASK(send_imm, DOCA_SUCCESS)
RDMA_CAP_TASK(read, DOCA_SUCCESS)
RDMA_CAP_TASK(write, DOCA_SUCCESS)
RDMA_CAP_TASK(write_imm, DOCA_SUCCESS)
RDMA_CAP_TASK(atomic_cmp_swp, DOCA_SUCCESS)
RDMA_CAP_TASK(atomic_fetch_add, DOCA_SUCCESS)
RDMA_CAP_TASK(remote_net_sync_event_get, DOCA_SUCCESS)
RDMA_CAP_TASK(remote_net_sync_event_notify_set, DOCA_SUCCESS)
RDMA_CAP_TASK(remote_net_sync_event_notify_add, DOCA_SUCCESS)
