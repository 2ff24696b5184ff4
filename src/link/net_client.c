/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_client.c - the importer's side of the network access path (net_priv.h):
 * the access ops "net" (ferry_access.h), which copy to and from an export
 * through its exporter's network server, in chunks of NET_CHUNK_MAX with up
 * to NET_WINDOW of them in flight.
 *
 * One connection per import; whichever thread copies drives its UCX worker,
 * one thread at a time (n->lock), so the copy engines' workers and a
 * producer may share an import. A copy never waits longer than
 * FERRY_LINK_NET_TIMEOUT_MS (default 10 s) for the exporter: after that, or
 * once UCX reports the connection broken, the connection is lost for good,
 * its copies fail DOCA_ERROR_NOT_CONNECTED, and the import says the exporter
 * is gone (FERRY_LINK_EXITED), as a dead exporter's import does on this host.
 *
 * The exporter is another machine's process and may lie: every reply is
 * decoded and checked (net_rep_decode), must answer a request in flight with
 * its operation and, for a read, exactly the bytes asked for; the first that
 * does not loses the connection. The range and permission are the server's
 * (its stat answer at open), and must be what the descriptor claimed.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_types.h>

#include "common/ferry_env.h"
#include "common/ferry_log.h"
#include "link/ferry_access.h"
#include "link/ferry_link.h"
#include "link/link_priv.h"
#include "link/net_priv.h"
#include "link/net_ucx.h"

FERRY_LOG_MODULE("link");

#define NET_WINDOW             16
#define NET_TIMEOUT_MS_DEFAULT 10000u
#define NET_TIMEOUT_MS_MAX     3600000u
#define NET_WAIT_SLICE_MS      100
#define NET_SPIN_NS            200000ull /* poll this long after the last event before sleeping */

enum net_state {
	NET_LIVE = 0,
	NET_REVOKED, /* the server says the export is gone */
	NET_LOST,    /* the connection broke, timed out, or the server broke the protocol */
};

/*
 * One request in flight. UCX's requests are polled, never called back: the
 * thread that waits for the slot checks them (wait_slots), so nothing runs
 * outside that thread and its lock.
 */
struct net_slot {
	bool busy;
	uint8_t piece; /* which piece of a gathered copy (transfer) */
	bool replied;  /* the reply, and a read's bytes, are here */
	uint16_t op;
	uint64_t id;
	uint8_t *dst; /* a read's destination */
	uint32_t len;
	doca_error_t status;
	struct net_rep rep;
	uint8_t hdr[NET_REQ_LEN];
	ucs_status_ptr_t send_req; /* the request's send, while UCX holds it (and a write's source) */
	void *rndv_desc;           /* a read's rendezvous bytes, still to fetch */
	ucs_status_ptr_t recv_req; /* ...being fetched into bounce */
	uint8_t *bounce;           /* a late fetch never lands in a caller's buffer */
};

struct link_net {
	struct ferry_access base; /* first: the access ops recover us from it */
	const struct net_ucx *u;
	pthread_mutex_t lock;
	ucp_context_h ctx;
	ucp_worker_h worker;
	int efd;
	ucp_ep_h ep;
	_Atomic int state;
	uint64_t export_id;
	uint8_t token[FERRY_DESC_TOKEN_LEN];
	uint64_t addr; /* the range and permission the server answered */
	uint64_t len;
	uint32_t access;
	uint64_t next_id;
	uint64_t timeout_ns;
	pid_t owner;                 /* UCX does not support fork: a forked child's copy of the import is dead */
	_Atomic uint64_t checked_ns; /* when net_alive last looked at the worker */
	char peer[32];               /* "a.b.c.d:port", for log lines */
	struct net_slot slots[NET_WINDOW];
	bool *piece_failed; /* during a transfer: which of its pieces had a chunk fail */
};

static _Atomic uint64_t broken_servers;

static inline struct link_net *net_of(const struct ferry_access *a)
{
	return (struct link_net *)(uintptr_t)a;
}

/* The exporter broke the protocol: one line, and the connection is lost. */
static void server_broke(struct link_net *n, const char *why)
{
	uint64_t nth;

	if (atomic_exchange(&n->state, NET_LOST) != NET_LOST && ferry_log_sampled(&broken_servers, &nth))
		FERRY_WARN("ferry net path: exporter at %s sent a bad reply (%s); the import is lost (%llu so far)",
			   n->peer, why, (unsigned long long)nth);
}

static void on_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct link_net *n = arg;

	(void)ep;
	FERRY_DBG("ferry net path: connection to %s broke: %s", n->peer, n->u->status_string(status));
	atomic_store(&n->state, NET_LOST);
}

/* ---- replies ---- */

static struct net_slot *slot_of(struct link_net *n, uint64_t id)
{
	for (unsigned int i = 0; i < NET_WINDOW; i++)
		if (n->slots[i].busy && n->slots[i].id == id)
			return &n->slots[i];
	return NULL;
}

/* The server's code as this side reports it: its word is not trusted to be one of ours. */
static doca_error_t reply_status(struct link_net *n, int32_t status)
{
	switch (status) {
	case DOCA_SUCCESS:
		return DOCA_SUCCESS;
	case DOCA_ERROR_NOT_FOUND:
	case DOCA_ERROR_NOT_CONNECTED: /* a re-export whose own exporter (the host) revoked it or exited */
		atomic_store(&n->state, NET_REVOKED);
		return DOCA_ERROR_NOT_CONNECTED;
	case DOCA_ERROR_NOT_PERMITTED:
		return DOCA_ERROR_NOT_PERMITTED;
	case DOCA_ERROR_INVALID_VALUE:
		return DOCA_ERROR_INVALID_VALUE;
	case DOCA_ERROR_TIME_OUT: /* a re-export whose copy through the host's memory is stuck: the import stays */
		return DOCA_ERROR_TIME_OUT;
	default:
		return DOCA_ERROR_IO_FAILED;
	}
}

static ucs_status_t on_reply(void *arg, const void *header, size_t header_length, void *data, size_t length,
			     const ucp_am_recv_param_t *param)
{
	struct link_net *n = arg;
	struct net_rep rep;
	const char *why = NULL;
	struct net_slot *s;

	if (net_rep_decode(header, header_length, length, &rep, &why) != DOCA_SUCCESS) {
		server_broke(n, why);
		return UCS_OK;
	}
	s = slot_of(n, rep.id);
	if (s == NULL || s->replied || s->rndv_desc != NULL || s->recv_req != NULL || s->op != rep.op) {
		server_broke(n, "a reply to no request in flight");
		return UCS_OK;
	}
	if (rep.status == DOCA_SUCCESS && rep.op == NET_OP_READ && rep.len != s->len) {
		server_broke(n, "a read answered with another length");
		return UCS_OK;
	}
	s->rep = rep;
	s->status = reply_status(n, rep.status);
	if (rep.len != 0 && (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
		s->rndv_desc = data;
		return UCS_INPROGRESS; /* fetched outside this callback (slot_poll) */
	}
	if (rep.len != 0)
		memcpy(s->dst, data, rep.len);
	s->replied = true;
	return UCS_OK;
}

/* ---- slots ---- */

/* A finished UCX request's status; INPROGRESS while it runs. Frees it when done. */
static ucs_status_t request_done(struct link_net *n, ucs_status_ptr_t *req)
{
	ucs_status_t st = n->u->request_check_status(*req);

	if (st != UCS_INPROGRESS) {
		n->u->request_free(*req);
		*req = NULL;
	}
	return st;
}

/* A read's rendezvous bytes came into the bounce buffer (@p st: UCS_OK), or did not: the slot has its answer. */
static void fetch_done(struct net_slot *s, ucs_status_t st)
{
	if (st == UCS_OK)
		memcpy(s->dst, s->bounce, s->len);
	else
		s->status = DOCA_ERROR_NOT_CONNECTED;
	s->replied = true;
}

/* Start fetching a read's rendezvous bytes into the slot's bounce buffer (allocated at first use). */
static void fetch_start(struct link_net *n, struct net_slot *s)
{
	ucp_request_param_t prm = {.op_attr_mask = 0};
	void *desc = s->rndv_desc;

	s->rndv_desc = NULL;
	if (s->bounce == NULL)
		s->bounce = malloc(NET_CHUNK_MAX);
	if (s->bounce == NULL) {
		n->u->am_data_release(n->worker, desc);
		s->status = DOCA_ERROR_NO_MEMORY;
		s->replied = true;
		atomic_store(&n->state, NET_LOST); /* the stream of replies cannot go on */
		return;
	}
	s->recv_req = n->u->am_recv_data_nbx(n->worker, desc, s->bounce, s->len, &prm);
	if (!UCS_PTR_IS_PTR(s->recv_req)) {
		ucs_status_t st = UCS_PTR_STATUS(s->recv_req);

		s->recv_req = NULL;
		fetch_done(s, st);
	}
}

/* Move one slot on: its send, its rendezvous fetch. True when it is done. */
static bool slot_poll(struct link_net *n, struct net_slot *s)
{
	if (s->send_req != NULL && request_done(n, &s->send_req) != UCS_INPROGRESS && s->status == DOCA_SUCCESS &&
	    !s->replied && atomic_load(&n->state) != NET_LIVE)
		s->status = DOCA_ERROR_NOT_CONNECTED;
	if (s->rndv_desc != NULL)
		fetch_start(n, s);
	if (s->recv_req != NULL) {
		ucs_status_t st = request_done(n, &s->recv_req);

		if (st != UCS_INPROGRESS)
			fetch_done(s, st);
	}
	return s->send_req == NULL && s->replied;
}

static doca_error_t slot_issue(struct link_net *n, struct net_slot *s, uint16_t op, uint64_t addr, void *local,
			       uint32_t len)
{
	struct net_req req = {.op = op, .id = ++n->next_id, .export_id = n->export_id, .addr = addr, .len = len};
	/* Eager, as the server's replies: a chunk goes at once (rendezvous would add round trips). */
	ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				   .flags = UCP_AM_SEND_FLAG_REPLY |
					    (len <= NET_EAGER_MAX ? UCP_AM_SEND_FLAG_EAGER : 0)};

	memcpy(req.token, n->token, sizeof(req.token));
	*s = (struct net_slot){.busy = true, .op = op, .id = req.id, .dst = local, .len = len, .bounce = s->bounce};
	net_req_encode(&req, s->hdr);
	s->send_req = n->u->am_send_nbx(n->ep, NET_AM_REQUEST, s->hdr, NET_REQ_LEN, op == NET_OP_WRITE ? local : NULL,
					op == NET_OP_WRITE ? len : 0, &prm);
	if (!UCS_PTR_IS_PTR(s->send_req)) {
		ucs_status_t st = UCS_PTR_STATUS(s->send_req);

		s->send_req = NULL;
		if (st != UCS_OK) {
			s->busy = false;
			atomic_store(&n->state, NET_LOST);
			return DOCA_ERROR_NOT_CONNECTED;
		}
	}
	return DOCA_SUCCESS;
}

/* The connection is over: UCX lets go of every request (and every write's source) before we return. */
static void connection_lose(struct link_net *n)
{
	ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};

	atomic_store(&n->state, NET_LOST);
	if (n->ep == NULL)
		return;
	(void)net_ucx_wait(n->u, n->worker, n->u->ep_close_nbx(n->ep, &prm));
	n->ep = NULL;
	for (unsigned int i = 0; i < NET_WINDOW; i++) {
		struct net_slot *s = &n->slots[i];

		if (s->send_req != NULL)
			(void)request_done(n, &s->send_req);
		/*
		 * A read's bytes still being fetched: closing the endpoint does not end
		 * the fetch, so UCX would keep the request past the worker's end. Let go
		 * of it (UCX returns it when it ends); it only ever lands in the bounce
		 * buffer, which lives until net_client_close. A reply that came during
		 * the close and was never fetched is released.
		 */
		if (s->recv_req != NULL && request_done(n, &s->recv_req) == UCS_INPROGRESS) {
			n->u->request_free(s->recv_req);
			s->recv_req = NULL;
		}
		if (s->rndv_desc != NULL) {
			n->u->am_data_release(n->worker, s->rndv_desc);
			s->rndv_desc = NULL;
		}
	}
}

/* Sleep on the worker's event fd for at most @p ms, unless UCX has something now. */
static void wait_events(struct link_net *n, int ms)
{
	struct pollfd p = {.fd = n->efd, .events = POLLIN};

	if (n->u->worker_arm(n->worker) == UCS_OK)
		(void)poll(&p, 1, ms);
}

/*
 * How far the window has got: a step for each request sent, each reply
 * whose bytes are being fetched, each reply here. Only these count as the
 * exporter answering; any other traffic (messages of ids nobody registered,
 * which UCX drops) does not.
 */
static unsigned int window_steps(const struct link_net *n)
{
	unsigned int steps = 0;

	for (unsigned int i = 0; i < NET_WINDOW; i++) {
		const struct net_slot *s = &n->slots[i];

		if (s->busy)
			steps += (s->send_req == NULL) + (s->replied || s->rndv_desc != NULL || s->recv_req != NULL) +
				 s->replied;
	}
	return steps;
}

static bool any_busy(const struct link_net *n)
{
	for (unsigned int i = 0; i < NET_WINDOW; i++)
		if (n->slots[i].busy)
			return true;
	return false;
}

/*
 * Progress until a busy slot is done (@p all: every one), the connection is
 * lost, or the exporter has been silent for the timeout; then free the done
 * slots (all of them when the connection is lost). The first failure among
 * them is the answer.
 */
static doca_error_t wait_slots(struct link_net *n, bool all)
{
	uint64_t deadline = ferry_link_now_ns() + n->timeout_ns, busy_until = ferry_link_now_ns() + NET_SPIN_NS;
	doca_error_t err = DOCA_SUCCESS;
	unsigned int steps = window_steps(n);
	bool lost = false;

	for (;;) {
		unsigned int events = n->u->worker_progress(n->worker), done = 0, pending = 0;

		for (unsigned int i = 0; i < NET_WINDOW; i++)
			if (n->slots[i].busy)
				slot_poll(n, &n->slots[i]) ? done++ : pending++;
		if (pending == 0 || (!all && done > 0))
			break;
		if (atomic_load(&n->state) == NET_LOST || ferry_link_now_ns() >= deadline) {
			if (atomic_load(&n->state) != NET_LOST)
				FERRY_WARN("ferry net path: exporter at %s did not answer within %llu ms; the import "
					   "is lost",
					   n->peer, (unsigned long long)(n->timeout_ns / 1000000u));
			connection_lose(n);
			err = DOCA_ERROR_NOT_CONNECTED;
			lost = true;
			break;
		}
		/*
		 * The exporter answered: its silence counts anew. Traffic that answers
		 * nothing does not reset it, or an exporter that sends stray messages
		 * and never replies would hold the copy for as long as it likes.
		 */
		if (window_steps(n) != steps) {
			steps = window_steps(n);
			deadline = ferry_link_now_ns() + n->timeout_ns;
		}
		if (events != 0)
			busy_until = ferry_link_now_ns() + NET_SPIN_NS; /* a reply is microseconds away: poll on */
		else if (ferry_link_now_ns() >= busy_until)
			wait_events(n, NET_WAIT_SLICE_MS); /* it is not: sleep */
	}
	for (unsigned int i = 0; i < NET_WINDOW; i++) {
		struct net_slot *s = &n->slots[i];

		if (!s->busy || (!lost && !slot_poll(n, s)))
			continue;
		if (err == DOCA_SUCCESS && s->status != DOCA_SUCCESS)
			err = s->status;
		if (n->piece_failed != NULL && (lost || s->status != DOCA_SUCCESS))
			n->piece_failed[s->piece] = true;
		s->busy = false;
	}
	return err;
}

/* ---- the access ops ---- */

static doca_error_t check_range(const struct link_net *n, uint64_t addr, size_t len, const char *what)
{
	if (!link_range_inside(n->addr, n->len, addr, len))
		return FERRY_RULE_IN(what, DOCA_ERROR_INVALID_VALUE,
				     "[0x%llx, +%zu) lies outside the export [0x%llx, +%llu) at %s",
				     (unsigned long long)addr, len, (unsigned long long)n->addr,
				     (unsigned long long)n->len, n->peer);
	return atomic_load(&n->state) == NET_LIVE ? DOCA_SUCCESS : DOCA_ERROR_NOT_CONNECTED;
}

/* One piece of a gathered copy: @p len bytes between the exporter's @p remote and local @p local. */
struct net_span {
	uint64_t remote;
	uint8_t *local;
	size_t len;
};

/*
 * Move the pieces in chunks, up to NET_WINDOW in flight across pieces: a
 * chunk goes as soon as a slot frees. After a failure nothing more goes, and
 * what is in flight is waited for. *@p whole counts the pieces, from the
 * first, that landed whole. n->lock held.
 */
static doca_error_t transfer(struct link_net *n, uint16_t op, const struct net_span *sp, size_t num, size_t *whole)
{
	bool failed[FERRY_ACCESS_GATHER_MAX] = {false};
	doca_error_t err = DOCA_SUCCESS;
	size_t piece = 0, off = 0;

	n->piece_failed = failed;
	for (;;) {
		for (unsigned int i = 0; i < NET_WINDOW && err == DOCA_SUCCESS; i++) {
			while (piece < num && sp[piece].len == 0)
				piece++; /* an empty piece lands at once: no chunk */
			if (piece == num)
				break;
			uint32_t chunk = (uint32_t)(sp[piece].len - off < NET_CHUNK_MAX ? sp[piece].len - off
											: NET_CHUNK_MAX);

			if (n->slots[i].busy)
				continue;
			err = slot_issue(n, &n->slots[i], op, sp[piece].remote + off, sp[piece].local + off, chunk);
			n->slots[i].piece = (uint8_t)piece;
			if (err != DOCA_SUCCESS)
				failed[piece] = true;
			off += chunk;
			if (off == sp[piece].len) {
				piece++;
				off = 0;
			}
		}
		if (!any_busy(n))
			break;
		doca_error_t waited = wait_slots(n, piece >= num || err != DOCA_SUCCESS);
		if (err == DOCA_SUCCESS)
			err = waited;
	}
	n->piece_failed = NULL;
	/* Pieces past the first failed or never finished one did not land whole, as far as the caller knows. */
	for (*whole = 0; *whole < piece && !failed[*whole]; (*whole)++)
		;
	return err;
}

/* The checks every copy makes before anything goes: owner, permission, range. */
static doca_error_t net_check(const struct link_net *n, uint16_t op, const struct net_span *sp, size_t num)
{
	const char *what = op == NET_OP_WRITE ? "ferry net write" : "ferry net read";

	if (getpid() != n->owner)
		return FERRY_RULE_IN(what, DOCA_ERROR_NOT_CONNECTED,
				     "the import of the export at %s belongs to pid %d (UCX does not support fork)",
				     n->peer, (int)n->owner);
	if (op == NET_OP_WRITE && n->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
		return FERRY_RULE_IN(what, DOCA_ERROR_NOT_PERMITTED, "the export at %s is read-only", n->peer);
	if (num > FERRY_ACCESS_GATHER_MAX)
		return FERRY_RULE_IN(what, DOCA_ERROR_INVALID_VALUE, "%zu pieces; at most %u", num,
				     FERRY_ACCESS_GATHER_MAX);
	for (size_t i = 0; i < num; i++) {
		doca_error_t err = check_range(n, sp[i].remote, sp[i].len, what);

		if (err != DOCA_SUCCESS)
			return err;
	}
	return DOCA_SUCCESS;
}

/* Check, then move the pieces (empty ones land at once, in their place). */
static doca_error_t net_copy(const struct ferry_access *a, uint16_t op, const struct net_span *sp, size_t num,
			     size_t *whole)
{
	struct link_net *n = net_of(a);
	doca_error_t err = net_check(n, op, sp, num);

	*whole = 0;
	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&n->lock);
	err = atomic_load(&n->state) == NET_LIVE ? transfer(n, op, sp, num, whole) : DOCA_ERROR_NOT_CONNECTED;
	pthread_mutex_unlock(&n->lock);
	return err;
}

static doca_error_t net_read(const struct ferry_access *a, void *dst, uint64_t src, size_t len)
{
	struct net_span sp = {src, dst, len};
	size_t whole;

	return net_copy(a, NET_OP_READ, &sp, 1, &whole);
}

static doca_error_t net_write(const struct ferry_access *a, uint64_t dst, const void *src, size_t len)
{
	/* The source is only read: UCX sends from it. */
	struct net_span sp = {dst, (uint8_t *)(uintptr_t)src, len};
	size_t whole;

	return net_copy(a, NET_OP_WRITE, &sp, 1, &whole);
}

/* A run of writes in one window: copies of several tasks overlap on the network. */
static doca_error_t net_write_gather(const struct ferry_access *a, const struct ferry_access_piece *pieces, size_t num,
				     size_t *written)
{
	struct net_span sp[FERRY_ACCESS_GATHER_MAX];

	*written = 0;
	for (size_t i = 0; i < num && i < FERRY_ACCESS_GATHER_MAX; i++)
		sp[i] = (struct net_span){pieces[i].dst, (uint8_t *)(uintptr_t)pieces[i].src, pieces[i].len};
	return net_copy(a, NET_OP_WRITE, sp, num, written);
}

/* A run of reads in one window. */
static doca_error_t net_read_scatter(const struct ferry_access *a, const struct ferry_access_rpiece *pieces, size_t num,
				     size_t *read)
{
	struct net_span sp[FERRY_ACCESS_GATHER_MAX];

	*read = 0;
	for (size_t i = 0; i < num && i < FERRY_ACCESS_GATHER_MAX; i++)
		sp[i] = (struct net_span){pieces[i].src, pieces[i].dst, pieces[i].len};
	return net_copy(a, NET_OP_READ, sp, num, read);
}

#define NET_ALIVE_CHECK_NS 1000000ull

/*
 * Live, as far as this side knows. Nobody drives an idle connection's worker,
 * so at most every millisecond the asking thread looks at it (when no copy
 * holds it): an exporter whose process died or whose host closed the
 * connection is seen here, before a task is built on it.
 */
static bool net_alive(const struct ferry_access *a)
{
	struct link_net *n = net_of(a);
	uint64_t now = ferry_link_now_ns();

	if (atomic_load(&n->state) != NET_LIVE || getpid() != n->owner)
		return false;
	if (now - atomic_load_explicit(&n->checked_ns, memory_order_relaxed) >= NET_ALIVE_CHECK_NS &&
	    pthread_mutex_trylock(&n->lock) == 0) {
		atomic_store_explicit(&n->checked_ns, now, memory_order_relaxed);
		if (n->ep != NULL)
			(void)n->u->worker_progress(n->worker);
		pthread_mutex_unlock(&n->lock);
	}
	return atomic_load(&n->state) == NET_LIVE;
}

static const struct ferry_access_ops link_access_net_ops = {
	.name = "net",
	.mapped = false,
	.remote_machine = true,
	.read = net_read,
	.write = net_write,
	.write_gather = net_write_gather,
	.read_scatter = net_read_scatter,
	.alive = net_alive,
};

const struct ferry_access *net_client_access(const struct link_net *n)
{
	return &n->base;
}

enum ferry_link_liveness net_client_liveness(const struct link_net *n)
{
	switch (atomic_load(&n->state)) {
	case NET_LIVE:
		return FERRY_LINK_LIVE;
	case NET_REVOKED:
		return FERRY_LINK_REVOKED;
	default:
		return FERRY_LINK_EXITED;
	}
}

/* ---- open and close ---- */

static doca_error_t connect_server(struct link_net *n, const struct ferry_export_desc *d, const char *call)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(d->net_port)};
	ucp_am_handler_param_t am = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
						   UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
				     .id = NET_AM_REPLY,
				     .cb = on_reply,
				     .arg = n,
				     .flags = UCP_AM_FLAG_WHOLE_MSG};
	ucp_ep_params_t ep;
	ucs_status_t st;

	memcpy(&sin.sin_addr, d->net_ipv4, sizeof(d->net_ipv4));
	/* Loopback stays on lo; elsewhere UCX picks the interfaces (UCX_NET_DEVICES to choose). */
	doca_error_t err = net_ucx_context(n->u, d->net_ipv4[0] == 127 ? "lo" : NULL, "ferry-link-client", call,
					   &n->ctx);
	if (err != DOCA_SUCCESS)
		return err;
	err = net_ucx_worker(n->u, n->ctx, call, &n->worker, &n->efd);
	if (err != DOCA_SUCCESS) {
		n->u->cleanup(n->ctx);
		n->ctx = NULL;
		return err;
	}
	st = n->u->set_am_handler(n->worker, &am);
	if (st == UCS_OK) {
		memset(&ep, 0, sizeof(ep));
		ep.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
				UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
		ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
		ep.sockaddr.addr = (const struct sockaddr *)&sin;
		ep.sockaddr.addrlen = sizeof(sin);
		ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
		ep.err_handler.cb = on_ep_error;
		ep.err_handler.arg = n;
		st = n->u->ep_create(n->worker, &ep, &n->ep);
	}
	if (st != UCS_OK) {
		n->ep = NULL;
		return FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_ABORTED, "cannot connect to the exporter at %s: %s",
				     n->peer, n->u->status_string(st));
	}
	return DOCA_SUCCESS;
}

/* Ask the server what the export is, and hold the descriptor to it. */
static doca_error_t stat_export(struct link_net *n, const struct ferry_export_desc *d, const char *call)
{
	struct net_slot *s = &n->slots[0];
	doca_error_t err = slot_issue(n, s, NET_OP_STAT, 0, NULL, 0);
	struct net_rep rep = {0};

	if (err == DOCA_SUCCESS) {
		err = wait_slots(n, true);
		rep = s->rep;
	}
	switch (err) {
	case DOCA_SUCCESS:
		break;
	case DOCA_ERROR_NOT_CONNECTED:
		if (atomic_load(&n->state) == NET_REVOKED)
			return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND,
					     "export %llu at %s no longer exists (its mmap was stopped)",
					     (unsigned long long)d->export_id, n->peer);
		return FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_ABORTED, "the exporter at %s did not answer", n->peer);
	case DOCA_ERROR_NOT_PERMITTED:
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "export %llu at %s refused the token (forged descriptor?)",
				     (unsigned long long)d->export_id, n->peer);
	default:
		return FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_RESET, "the exporter at %s answered error %s", n->peer,
				     doca_error_get_name(err));
	}
	if (rep.addr != d->addr || rep.export_len != d->len || rep.access != d->access)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "export %llu at %s is [0x%llx, +%llu) access %u; the descriptor claims [0x%llx, "
				     "+%llu) access %u",
				     (unsigned long long)d->export_id, n->peer, (unsigned long long)rep.addr,
				     (unsigned long long)rep.export_len, (unsigned)rep.access,
				     (unsigned long long)d->addr, (unsigned long long)d->len, (unsigned)d->access);
	n->addr = rep.addr;
	n->len = rep.export_len;
	n->access = rep.access;
	return DOCA_SUCCESS;
}

doca_error_t net_client_open(const struct ferry_export_desc *d, const char *call, struct link_net **out)
{
	struct link_net *n = calloc(1, sizeof(*n));
	char ip[INET_ADDRSTRLEN];
	doca_error_t err;

	if (n == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory for an import");
	n->base.ops = &link_access_net_ops;
	n->efd = -1;
	n->owner = getpid();
	pthread_mutex_init(&n->lock, NULL);
	n->export_id = d->export_id;
	memcpy(n->token, d->token, sizeof(n->token));
	n->timeout_ns = ferry_env_u64("FERRY_LINK_NET_TIMEOUT_MS", 1, NET_TIMEOUT_MS_MAX, NET_TIMEOUT_MS_DEFAULT) *
			1000000ull;
	inet_ntop(AF_INET, d->net_ipv4, ip, sizeof(ip));
	snprintf(n->peer, sizeof(n->peer), "%s:%u", ip, (unsigned)d->net_port);
	err = net_ucx_get(call, &n->u);
	if (err == DOCA_SUCCESS)
		err = connect_server(n, d, call);
	if (err == DOCA_SUCCESS)
		err = stat_export(n, d, call);
	if (err != DOCA_SUCCESS) {
		net_client_close(n);
		return err;
	}
	FERRY_DBG("ferry net path: export %llu of pid %u reached at %s", (unsigned long long)d->export_id,
		  (unsigned)d->pid, n->peer);
	*out = n;
	return DOCA_SUCCESS;
}

void net_client_close(struct link_net *n)
{
	/* A forked child frees only its memory: the UCX objects are the parent's. */
	if (n->worker != NULL && getpid() == n->owner) {
		if (n->ep != NULL) {
			/* Forced: no round trip to an exporter that may be gone; the server sees the end at once. */
			ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
						   .flags = UCP_EP_CLOSE_FLAG_FORCE};

			(void)net_ucx_wait(n->u, n->worker, n->u->ep_close_nbx(n->ep, &prm));
		}
		n->u->worker_destroy(n->worker);
	}
	if (n->ctx != NULL && getpid() == n->owner)
		n->u->cleanup(n->ctx);
	for (unsigned int i = 0; i < NET_WINDOW; i++)
		free(n->slots[i].bounce);
	pthread_mutex_destroy(&n->lock);
	free(n);
}
