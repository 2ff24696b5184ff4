/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_server.c - the exporter's side of the network access path (net_priv.h):
 * one thread per process, started by the first export that offers the path,
 * answers importers' requests (net_wire.h) over UCX active messages.
 *
 * The importer is another machine's process and may be hostile. Nothing it
 * sends is taken on trust: every header is decoded and checked
 * (net_req_decode), every request names an export and proves its token, and
 * the export table (link_export_serve_net, under the table's lock) checks the
 * range and the permission and copies, so an export revoked by doca_mmap_stop
 * is never touched afterwards (a re-export's copy that was already running
 * when it closed may still land, as a DMA in flight would: its close does not
 * wait for it; queued ones never start). The exporter's memory is only ever
 * copied to or from a bounce buffer of the server, never handed to UCX: a reply still
 * in flight to a slow importer cannot read memory the program has since
 * freed. Resources are bounded: NET_MAX_PEERS connections (when all are
 * taken, the oldest that has not proved a token gives way: peer_room), each with at most
 * NET_PEER_MAX_INFLIGHT requests being served (an importer that sends more
 * is disconnected), and NET_BOUNCE_BUDGET bytes of bounce buffers in all (a
 * request beyond it fails DOCA_ERROR_NO_MEMORY); a peer that breaks the
 * protocol is disconnected, and so is one that leaves a reply (or a write's
 * bytes) waiting longer than FERRY_LINK_NET_TIMEOUT_MS (wait_begin), or it
 * could hold its share of the budget and its place for as long as it likes.
 *
 * A re-export's bytes are in another process (the host's, by cross-memory
 * attach), and a copy of them may never return (a page the host does not
 * serve): the server thread never makes it, but hands it to the re-export's
 * copier thread (link_export_copy_start, agent.c) and serves on; the copier
 * posts it back (net_server_copied) and the server thread answers. A copy
 * still out after the deadline (half of FERRY_LINK_NET_TIMEOUT_MS, so that
 * the importer, which gives up on a silent server after the whole of it,
 * hears the answer first) is answered DOCA_ERROR_TIME_OUT and left to its
 * copier, with its buffer; its re-export refuses until it returns. At exit
 * the server thread is joined, never a copier.
 *
 * The worker is driven only by the server thread, under srv.lock; another
 * thread takes the lock only to add a listener (at an export). Lock order:
 * srv.lock, then the export table's lock (agent.c), then srv.done_lock, which
 * guards only the list of ended copies and the wake-up write.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/ferry_env.h"
#include "common/ferry_log.h"
#include "link/ferry_link.h"
#include "link/net_priv.h"
#include "link/net_ucx.h"

FERRY_LOG_MODULE("link");

#define NET_MAX_LISTENERS      4
#define NET_MAX_PEERS          64
#define NET_PEER_MAX_INFLIGHT  32             /* an honest importer keeps NET_WINDOW (16) in flight; replies may lag */
#define NET_BOUNCE_BUDGET      (256ull << 20) /* bytes of bounce buffers, all peers together */
#define NET_IDLE_POLL_MS       100            /* UCX's keepalive needs progress now and then */
#define NET_AUTH_NS            (10ull * 1000000000ull) /* to present a valid token, or be dropped */
#define NET_SPIN_NS            200000ull               /* after the last event, poll this long before sleeping */
#define NET_TIMEOUT_MS_DEFAULT 10000u                  /* FERRY_LINK_NET_TIMEOUT_MS, as the importer reads it */
#define NET_TIMEOUT_MS_MAX     3600000u

struct net_listener {
	ucp_listener_h handle;
	struct in_addr ipv4;
	uint16_t port;
};

struct net_peer {
	struct net_peer *next;
	ucp_ep_h ep;
	unsigned int inflight; /* jobs that point here */
	bool failed;           /* send nothing more; close */
	bool authenticated;    /* presented a valid token once */
	uint64_t born_ns;      /* when it connected */
	bool closing;
	void *close_req;               /* UCX's close request while it runs */
	struct net_job *whead, *wtail; /* jobs waiting on it (wait_begin), oldest first */
	char name[48];                 /* for log lines */
};

/* One request being served. */
struct net_job {
	struct net_job *next;
	struct net_peer *peer;
	struct net_req req;
	struct net_rep rep;
	uint8_t hdr[NET_REP_LEN];
	void *data;                    /* bounce buffer: a read's bytes, a rendezvous write's bytes */
	void *rndv_desc;               /* a rendezvous write whose bytes are still to be fetched */
	bool reexport;                 /* its export is a re-export: a copier thread copies */
	struct net_copy *copy;         /* handed to the copier (data is the copy's meanwhile) */
	uint64_t deadline_ns;          /* ...and answered TIME_OUT after this */
	struct net_job *hprev, *hnext; /* srv.handed, in the order handed (so in deadline order) */
	struct net_job *wprev, *wnext; /* its peer's waiting jobs: a reply UCX sends, a write's bytes it fetches */
	uint64_t wait_ns;              /* since when it waits (the oldest: or since the one before it ended) */
};

static struct {
	pthread_mutex_t lock;
	_Atomic pid_t pid; /* the process the server runs in; 0 before the first export that offers the path */
	const struct net_ucx *u;
	ucp_context_h ctx;
	ucp_worker_h worker;
	int efd;
	int wake_fd;
	char iface[16];
	struct net_listener listeners[NET_MAX_LISTENERS];
	unsigned int nlisteners;
	struct net_peer *peers;
	unsigned int npeers;
	uint64_t bounce_bytes;                /* held by jobs now, at most NET_BOUNCE_BUDGET */
	struct net_job *ready;                /* replies to send, LIFO (each answers its own request id) */
	struct net_job *fetching;             /* rendezvous writes to fetch */
	struct net_job *handed, *handed_last; /* jobs whose copy a copier makes */
	uint64_t copy_timeout_ns;             /* a handed copy's deadline */
	uint64_t peer_timeout_ns;             /* how long a peer may leave its oldest reply or write waiting */
	pthread_mutex_t done_lock;
	struct net_copy *done; /* under done_lock: copies ended, to answer */
	bool closed;           /* under done_lock: the server stopped; a copy that ends is freed */
	pthread_t thread;
	_Atomic bool stopping; /* the process exits: server_stop */
	bool forked;           /* this is a forked child of a process whose server ran */
} srv = {.lock = PTHREAD_MUTEX_INITIALIZER, .done_lock = PTHREAD_MUTEX_INITIALIZER, .efd = -1, .wake_fd = -1};

static _Atomic uint64_t refused_requests, refused_peers, wrong_tokens;

/* ---- peers ---- */

static struct net_peer *peer_of(ucp_ep_h ep)
{
	for (struct net_peer *p = srv.peers; p != NULL; p = p->next)
		if (p->ep == ep)
			return p;
	return NULL;
}

static void peer_fail(struct net_peer *p, const char *fmt_rule, const char *detail)
{
	uint64_t nth;

	if (!p->failed && fmt_rule != NULL && ferry_log_sampled(&refused_peers, &nth))
		FERRY_WARN("ferry net server: disconnected %s: %s%s%s (%llu so far)", p->name, fmt_rule,
			   detail != NULL ? ": " : "", detail != NULL ? detail : "", (unsigned long long)nth);
	p->failed = true;
}

static void on_peer_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	(void)ep;
	(void)status;
	((struct net_peer *)arg)->failed = true; /* the importer left or the link broke: no log, it is normal */
}

/* "importer a.b.c.d:port", as its connection request says, for log lines. */
static void peer_name(ucp_conn_request_h req, char *out, size_t size)
{
	ucp_conn_request_attr_t attr = {.field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ADDR};
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&attr.client_address;
	char ip[INET_ADDRSTRLEN] = "?";

	if (srv.u->conn_request_query(req, &attr) == UCS_OK && sin->sin_family == AF_INET)
		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
	snprintf(out, size, "importer %s:%u", ip, sin->sin_family == AF_INET ? (unsigned)ntohs(sin->sin_port) : 0u);
}

/*
 * Room for one more peer. Strangers (no valid token yet) are dropped after
 * NET_AUTH_NS, but may connect again at once: were places first come first
 * served, anyone reaching the port could keep them all, and every honest
 * importer out, with NET_MAX_PEERS connections every 10 s. So when all live
 * places are taken, the oldest stranger gives its place to the newcomer (an
 * honest importer proves its token one round trip after it connects). Those
 * closing still count, up to as many again, so a flood of connections
 * cannot grow the server without bound while they close.
 */
static bool peer_room(void)
{
	struct net_peer *oldest = NULL;
	unsigned int live = 0;

	for (struct net_peer *p = srv.peers; p != NULL; p = p->next) {
		if (p->failed)
			continue;
		live++;
		if (!p->authenticated)
			oldest = p; /* the list is newest first */
	}
	if (srv.npeers >= 2 * NET_MAX_PEERS)
		return false;
	if (live < NET_MAX_PEERS)
		return true;
	if (oldest == NULL)
		return false;
	peer_fail(oldest, "gave its place to a newer connection (no valid token yet)", NULL);
	return true;
}

static void on_conn(ucp_conn_request_h req, void *arg)
{
	ucp_ep_params_t ep;
	struct net_peer *p;
	uint64_t nth;

	p = peer_room() ? calloc(1, sizeof(*p)) : NULL;
	if (p == NULL) {
		if (ferry_log_sampled(&refused_peers, &nth))
			FERRY_WARN("ferry net server: refused a connection: %u importers connected already, at most %u "
				   "(%llu refused so far)",
				   srv.npeers, NET_MAX_PEERS, (unsigned long long)nth);
		(void)srv.u->listener_reject(((struct net_listener *)arg)->handle, req);
		return;
	}
	peer_name(req, p->name, sizeof(p->name)); /* before ep_create, which takes the request */
	memset(&ep, 0, sizeof(ep));
	ep.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep.conn_request = req;
	ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	ep.err_handler.cb = on_peer_error;
	ep.err_handler.arg = p;
	if (srv.u->ep_create(srv.worker, &ep, &p->ep) != UCS_OK) {
		free(p);
		return;
	}
	p->born_ns = ferry_link_now_ns();
	p->next = srv.peers;
	srv.peers = p;
	srv.npeers++;
}

/*
 * A reply UCX still sends, or a write's bytes it still fetches, waits on the
 * peer reading or writing its socket, and holds a job (and a bounce buffer)
 * meanwhile. The oldest of a peer's must end within srv.peer_timeout_ns of
 * its start, or of the end of the one before it (a slow link moves them one
 * at a time); past that the peer is one an honest importer would have given
 * up on (it waits as long), and reap_peers disconnects it. Newer ones that
 * end do not count, so a peer cannot keep big replies held by taking small
 * ones beside them.
 */
static void wait_begin(struct net_job *j)
{
	struct net_peer *p = j->peer;

	j->wait_ns = ferry_link_now_ns();
	j->wnext = NULL;
	j->wprev = p->wtail;
	*(p->wtail != NULL ? &p->wtail->wnext : &p->whead) = j;
	p->wtail = j;
}

static void wait_end(struct net_job *j)
{
	struct net_peer *p = j->peer;
	bool oldest = j->wprev == NULL;

	*(j->wprev != NULL ? &j->wprev->wnext : &p->whead) = j->wnext;
	*(j->wnext != NULL ? &j->wnext->wprev : &p->wtail) = j->wprev;
	j->wprev = j->wnext = NULL;
	if (oldest && p->whead != NULL)
		p->whead->wait_ns = ferry_link_now_ns();
}

static bool peer_stalled(const struct net_peer *p, uint64_t now)
{
	return p->whead != NULL && now > p->whead->wait_ns && now - p->whead->wait_ns > srv.peer_timeout_ns;
}

/*
 * Close failed peers, and those that never presented a valid token within
 * NET_AUTH_NS (they would hold a place for nothing); free them once closed
 * and no job points at them.
 */
static void reap_peers(void)
{
	uint64_t now = ferry_link_now_ns();

	for (struct net_peer **l = &srv.peers; *l != NULL;) {
		struct net_peer *p = *l;

		if (!p->authenticated && now - p->born_ns > NET_AUTH_NS)
			peer_fail(p, "no valid token within 10 s", NULL);
		if (peer_stalled(p, now))
			peer_fail(p, "kept a reply or a write's bytes waiting longer than FERRY_LINK_NET_TIMEOUT_MS",
				  NULL);
		if (p->failed && !p->closing) {
			ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
						   .flags = UCP_EP_CLOSE_FLAG_FORCE};
			p->close_req = srv.u->ep_close_nbx(p->ep, &prm);
			p->closing = true;
		}
		if (p->closing && UCS_PTR_IS_PTR(p->close_req) &&
		    srv.u->request_check_status(p->close_req) != UCS_INPROGRESS) {
			srv.u->request_free(p->close_req);
			p->close_req = NULL;
		}
		if (p->closing && !UCS_PTR_IS_PTR(p->close_req) && p->inflight == 0) {
			*l = p->next;
			srv.npeers--;
			free(p);
			continue;
		}
		l = &p->next;
	}
}

unsigned int net_server_peers(void)
{
	unsigned int n;

	pthread_mutex_lock(&srv.lock);
	n = srv.npeers;
	pthread_mutex_unlock(&srv.lock);
	return n;
}

/* ---- jobs ---- */

static void job_free(struct net_job *j)
{
	j->peer->inflight--;
	if (j->data != NULL)
		srv.bounce_bytes -= j->req.len;
	free(j->data);
	free(j);
}

static void job_ready(struct net_job *j)
{
	j->next = srv.ready;
	srv.ready = j;
}

/*
 * The export table answers (@p buf NULL: only whether the request may go);
 * a refusal that smells of an attack is logged, sparingly.
 */
static doca_error_t job_ask(struct net_job *j, void *buf)
{
	uint64_t nth;
	bool reexport = false;
	doca_error_t err = link_export_serve_net(&j->req, buf, &j->rep, &reexport);

	if (buf == NULL)
		j->reexport = reexport;

	if (err == DOCA_ERROR_NOT_PERMITTED && j->req.op != NET_OP_WRITE && ferry_log_sampled(&wrong_tokens, &nth))
		FERRY_WARN("ferry net server: %s presented a wrong token for export %llu (%llu refusals so far)",
			   j->peer->name, (unsigned long long)j->req.export_id, (unsigned long long)nth);
	else if (err == DOCA_ERROR_INVALID_VALUE && ferry_log_sampled(&refused_requests, &nth))
		FERRY_WARN("ferry net server: %s asked for [0x%llx, +%u) outside export %llu (%llu refusals so far)",
			   j->peer->name, (unsigned long long)j->req.addr, j->req.len,
			   (unsigned long long)j->req.export_id, (unsigned long long)nth);
	if (err == DOCA_SUCCESS)
		j->peer->authenticated = true;
	return err;
}

/* The reply of @p j is ready: a failed one carries no bytes. */
static void job_answered(struct net_job *j)
{
	if (j->rep.len == 0 && j->data != NULL) {
		srv.bounce_bytes -= j->req.len;
		free(j->data);
		j->data = NULL;
	}
	job_ready(j);
}

/* ---- copies through a re-export's path (agent.c's copier threads) ---- */

static void handed_unlink(struct net_job *j)
{
	*(j->hprev != NULL ? &j->hprev->hnext : &srv.handed) = j->hnext;
	*(j->hnext != NULL ? &j->hnext->hprev : &srv.handed_last) = j->hprev;
	j->hprev = j->hnext = NULL;
	j->copy = NULL;
}

/* @p j's copy ended with @p status: answer it. */
static void job_copied(struct net_job *j, doca_error_t status)
{
	j->rep = (struct net_rep){.op = j->req.op, .id = j->req.id, .status = status};
	if (status == DOCA_SUCCESS && j->req.op == NET_OP_READ)
		j->rep.len = j->req.len;
	job_answered(j);
}

/* Hand @p j's copy (its bytes in j->data) to its re-export's copier; a refusal is answered at once. */
static void job_hand_off(struct net_job *j)
{
	struct net_copy *c = calloc(1, sizeof(*c));
	doca_error_t err = DOCA_ERROR_NO_MEMORY;

	if (c != NULL) {
		c->req = j->req;
		c->buf = j->data;
		c->job = j;
		err = link_export_copy_start(c);
	}
	if (err != DOCA_SUCCESS) {
		free(c);
		job_copied(j, err);
		return;
	}
	j->copy = c;
	j->deadline_ns = ferry_link_now_ns() + srv.copy_timeout_ns;
	j->hprev = srv.handed_last;
	*(srv.handed_last != NULL ? &srv.handed_last->hnext : &srv.handed) = j;
	srv.handed_last = j;
}

void net_server_copied(struct net_copy *c)
{
	uint64_t one = 1;

	pthread_mutex_lock(&srv.done_lock);
	if (srv.closed || atomic_load(&srv.pid) != getpid()) {
		/* Nobody answers any more (the server stopped, or this is a forked child). */
		pthread_mutex_unlock(&srv.done_lock);
		free(c->buf);
		free(c);
		return;
	}
	c->next = srv.done;
	srv.done = c;
	(void)write(srv.wake_fd, &one, sizeof(one));
	pthread_mutex_unlock(&srv.done_lock);
}

/* Answer the requests whose copies ended; free the copies answered without them (they held their bytes). */
static void copies_ended(void)
{
	struct net_copy *c;

	pthread_mutex_lock(&srv.done_lock);
	c = srv.done;
	srv.done = NULL;
	pthread_mutex_unlock(&srv.done_lock);
	while (c != NULL) {
		struct net_copy *next = c->next;
		struct net_job *j = c->job;

		if (j != NULL) {
			handed_unlink(j);
			job_copied(j, c->status);
		} else {
			srv.bounce_bytes -= c->req.len;
			free(c->buf);
		}
		free(c);
		c = next;
	}
}

/*
 * Handed copies past their deadline: answered TIME_OUT. One still running is
 * left to its copier with its bytes (its re-export now refuses until it
 * returns); one still queued is taken back.
 */
static void copies_overdue(void)
{
	uint64_t now = ferry_link_now_ns();
	struct net_job *j;

	while ((j = srv.handed) != NULL && now >= j->deadline_ns) {
		struct net_copy *c = j->copy;

		switch (link_export_copy_overdue(c)) {
		case NET_COPY_ENDED:
			copies_ended(); /* it is in srv.done: answered with its own status */
			if (srv.handed == j)
				return; /* cannot be; do not spin */
			continue;
		case NET_COPY_QUEUED:
			free(c);
			break;
		case NET_COPY_RUNNING:
			c->job = NULL; /* the copy keeps its buffer, and its place in the budget */
			j->data = NULL;
			break;
		}
		handed_unlink(j);
		job_copied(j, DOCA_ERROR_TIME_OUT);
	}
}

/* How long the server may sleep: until the first handed copy's deadline, NET_IDLE_POLL_MS at most. */
static int poll_ms(void)
{
	uint64_t now = ferry_link_now_ns();

	if (srv.handed == NULL || srv.handed->deadline_ns >= now + NET_IDLE_POLL_MS * 1000000ull)
		return NET_IDLE_POLL_MS;
	return srv.handed->deadline_ns <= now ? 0 : (int)((srv.handed->deadline_ns - now + 999999u) / 1000000u);
}

/* Answer the request from @p buf (a write's bytes, or a read's bounce buffer), or hand it to a copier. */
static void job_serve(struct net_job *j, void *buf)
{
	if (j->reexport) {
		job_hand_off(j);
		return;
	}
	(void)job_ask(j, buf);
	job_answered(j);
}

static void on_write_fetched(void *request, ucs_status_t status, size_t length, void *user_data)
{
	struct net_job *j = user_data;

	(void)length;
	srv.u->request_free(request);
	wait_end(j);
	if (status != UCS_OK) {
		j->peer->failed = true;
		job_free(j);
		return;
	}
	job_serve(j, j->data);
}

/* Fetch the bytes of rendezvous writes (outside the receive callback, where UCX allows it). */
static void fetch_writes(void)
{
	while (srv.fetching != NULL) {
		struct net_job *j = srv.fetching;
		ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
					   .cb.recv_am = on_write_fetched,
					   .user_data = j};

		srv.fetching = j->next;
		/* Fetched even for a failed peer: UCX ends the rendezvous either way, and no reply goes. */
		ucs_status_ptr_t r = srv.u->am_recv_data_nbx(srv.worker, j->rndv_desc, j->data, j->req.len, &prm);
		if (UCS_PTR_IS_PTR(r)) {
			wait_begin(j);
			continue; /* on_write_fetched serves it */
		}
		if (UCS_PTR_STATUS(r) != UCS_OK) {
			j->peer->failed = true;
			job_free(j);
		} else {
			job_serve(j, j->data);
		}
	}
}

static void on_reply_sent(void *request, ucs_status_t status, void *user_data)
{
	struct net_job *j = user_data;

	if (status != UCS_OK)
		j->peer->failed = true;
	srv.u->request_free(request);
	wait_end(j);
	job_free(j);
}

static void send_replies(void)
{
	while (srv.ready != NULL) {
		struct net_job *j = srv.ready;
		/* Eager: a chunk goes at once, without rendezvous's extra round trips (TCP fragments it). */
		ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
							   UCP_OP_ATTR_FIELD_FLAGS,
					   .cb.send = on_reply_sent,
					   .user_data = j,
					   .flags = j->rep.len <= NET_EAGER_MAX ? UCP_AM_SEND_FLAG_EAGER : 0};

		srv.ready = j->next;
		if (j->peer->failed) {
			job_free(j);
			continue;
		}
		net_rep_encode(&j->rep, j->hdr);
		ucs_status_ptr_t r = srv.u->am_send_nbx(j->peer->ep, NET_AM_REPLY, j->hdr, NET_REP_LEN, j->data,
							j->rep.len, &prm);
		if (UCS_PTR_IS_PTR(r)) {
			wait_begin(j);
			continue; /* on_reply_sent frees it */
		}
		if (UCS_PTR_STATUS(r) != UCS_OK)
			j->peer->failed = true;
		job_free(j);
	}
}

/* ---- requests ---- */

static struct net_job *job_new(struct net_peer *p, const struct net_req *req)
{
	struct net_job *j = calloc(1, sizeof(*j));

	if (j == NULL)
		return NULL;
	j->peer = p;
	j->req = *req;
	p->inflight++;
	return j;
}

/*
 * A bounce buffer for the bytes that must wait somewhere (a read's, a
 * rendezvous write's). Many importers each with a full window must not
 * exhaust the exporter's memory: false beyond NET_BOUNCE_BUDGET.
 */
static bool job_bounce(struct net_job *j)
{
	if (srv.bounce_bytes + j->req.len > NET_BOUNCE_BUDGET)
		return false;
	j->data = malloc(j->req.len);
	if (j->data == NULL)
		return false;
	srv.bounce_bytes += j->req.len;
	return true;
}

static ucs_status_t on_request(void *arg, const void *header, size_t header_length, void *data, size_t length,
			       const ucp_am_recv_param_t *param)
{
	struct net_peer *p = (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) ? peer_of(param->reply_ep) : NULL;
	bool rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
	struct net_req req;
	const char *why = NULL;
	struct net_job *j;

	(void)arg;
	if (p == NULL || p->failed)
		return UCS_OK; /* nobody to answer: dropped (UCX completes a rendezvous it was not asked to fetch) */
	if (net_req_decode(header, header_length, length, &req, &why) != DOCA_SUCCESS) {
		peer_fail(p, "malformed request", why);
		return UCS_OK;
	}
	if (p->inflight >= NET_PEER_MAX_INFLIGHT) {
		peer_fail(p, "more requests in flight than allowed", NULL);
		return UCS_OK;
	}
	j = job_new(p, &req);
	if (j == NULL) {
		peer_fail(p, "out of memory for a request", NULL);
		return UCS_OK;
	}
	/* Token, range and permission first: a refused request costs no memory and fetches nothing. */
	if (req.op != NET_OP_STAT && job_ask(j, NULL) != DOCA_SUCCESS) {
		job_ready(j);
		return UCS_OK; /* a rendezvous's bytes are dropped */
	}
	/* A re-export's write waits for its copier: its eager bytes, valid only in this call, are copied too. */
	if ((req.op == NET_OP_READ || (req.op == NET_OP_WRITE && (rndv || j->reexport))) && !job_bounce(j)) {
		/* No room for its bytes now: this request fails, the connection goes on (a rendezvous's bytes are dropped). */
		j->rep = (struct net_rep){.op = req.op, .id = req.id, .status = DOCA_ERROR_NO_MEMORY};
		job_ready(j);
		return UCS_OK;
	}
	if (req.op == NET_OP_WRITE && rndv) {
		j->rndv_desc = data;
		j->next = srv.fetching;
		srv.fetching = j;
		return UCS_INPROGRESS; /* fetch_writes takes the descriptor */
	}
	/* A write's eager bytes are valid during this call: served from where they are. */
	if (req.op == NET_OP_WRITE && j->reexport)
		memcpy(j->data, data, req.len);
	job_serve(j, req.op == NET_OP_WRITE && !j->reexport ? data : j->data);
	return UCS_OK;
}

/* ---- the thread ---- */

static void server_stop(void);

/*
 * fork: the server thread holds srv.lock while it progresses (and the export
 * table's lock inside it); taking srv.lock around the fork leaves both free
 * in the child. The child has no server thread and cannot start one: UCX
 * does not support fork (its objects and threads are the parent's).
 */
static void fork_prepare(void)
{
	pthread_mutex_lock(&srv.lock);
	pthread_mutex_lock(&srv.done_lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&srv.done_lock);
	pthread_mutex_unlock(&srv.lock);
}

static void fork_child(void)
{
	srv.forked = true;
	pthread_mutex_unlock(&srv.done_lock);
	pthread_mutex_unlock(&srv.lock);
}

static void *server_main(void *arg)
{
	struct pollfd pfd[2];

	uint64_t busy_until = 0;

	(void)arg;
	while (!atomic_load(&srv.stopping)) {
		ucs_status_t armed = UCS_ERR_BUSY;
		unsigned int events = 0, n;
		uint64_t junk;

		pthread_mutex_lock(&srv.lock);
		while ((n = srv.u->worker_progress(srv.worker)) != 0)
			events += n;
		fetch_writes();
		copies_ended();
		copies_overdue();
		send_replies();
		reap_peers();
		/*
		 * An importer streams chunks back to back: the next request follows
		 * a reply by microseconds, less than a sleep and a wake-up cost.
		 */
		if (events != 0)
			busy_until = ferry_link_now_ns() + NET_SPIN_NS;
		else if (ferry_link_now_ns() >= busy_until)
			armed = srv.u->worker_arm(srv.worker);
		pthread_mutex_unlock(&srv.lock);
		if (armed == UCS_ERR_BUSY)
			continue;
		pfd[0] = (struct pollfd){.fd = srv.efd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = srv.wake_fd, .events = POLLIN};
		if (poll(pfd, 2, poll_ms()) > 0 && (pfd[1].revents & POLLIN) != 0)
			(void)read(srv.wake_fd, &junk, sizeof(junk));
	}
	return NULL;
}

/* UCX, a worker and the thread; srv.lock held. */
static doca_error_t server_start(const struct ferry_link_net_offer *offer, const char *call)
{
	ucp_am_handler_param_t am;
	doca_error_t err = net_ucx_get(call, &srv.u);

	if (err != DOCA_SUCCESS)
		return err;
	err = net_ucx_context(srv.u, offer->iface, "ferry-link-server", call, &srv.ctx);
	if (err != DOCA_SUCCESS)
		return err;
	err = net_ucx_worker(srv.u, srv.ctx, call, &srv.worker, &srv.efd);
	if (err != DOCA_SUCCESS)
		goto fail_ctx;
	memset(&am, 0, sizeof(am));
	am.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
			UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
	am.id = NET_AM_REQUEST;
	am.cb = on_request;
	am.flags = UCP_AM_FLAG_WHOLE_MSG;
	srv.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (srv.wake_fd < 0 || srv.u->set_am_handler(srv.worker, &am) != UCS_OK) {
		err = FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "cannot set up the network server");
		goto fail_worker;
	}
	int rc = pthread_create(&srv.thread, NULL, server_main, NULL);
	if (rc != 0) {
		err = FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "cannot start the network server thread: %s",
				    strerror(rc));
		goto fail_worker;
	}
	snprintf(srv.iface, sizeof(srv.iface), "%s", offer->iface);
	/* An importer's patience: a peer may stall its replies as long; a copy, half (its TIME_OUT is heard first). */
	srv.peer_timeout_ns = ferry_env_u64("FERRY_LINK_NET_TIMEOUT_MS", 1, NET_TIMEOUT_MS_MAX,
					    NET_TIMEOUT_MS_DEFAULT) *
			      1000000ull;
	srv.copy_timeout_ns = srv.peer_timeout_ns / 2;
	srv.pid = getpid();
	(void)atexit(server_stop);
	(void)pthread_atfork(fork_prepare, fork_parent, fork_child);
	return DOCA_SUCCESS;
fail_worker:
	if (srv.wake_fd >= 0)
		close(srv.wake_fd);
	srv.wake_fd = -1;
	srv.u->worker_destroy(srv.worker);
fail_ctx:
	srv.u->cleanup(srv.ctx);
	return err;
}

static doca_error_t listener_add(const struct ferry_link_net_offer *offer, const char *call, uint16_t *port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr = offer->ipv4};
	ucp_listener_params_t lp;
	ucp_listener_attr_t la = {.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR};
	struct net_listener *l = &srv.listeners[srv.nlisteners];
	char ip[INET_ADDRSTRLEN];
	ucs_status_t st;

	inet_ntop(AF_INET, &offer->ipv4, ip, sizeof(ip));
	if (srv.nlisteners == NET_MAX_LISTENERS)
		return FERRY_RULE_IN(call, DOCA_ERROR_FULL, "the network server listens on %u addresses already",
				     NET_MAX_LISTENERS);
	sin.sin_port = htons((uint16_t)ferry_env_u64("FERRY_LINK_NET_PORT", 0, 65535, 0));
	memset(&lp, 0, sizeof(lp));
	lp.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
	lp.sockaddr.addr = (const struct sockaddr *)&sin;
	lp.sockaddr.addrlen = sizeof(sin);
	lp.conn_handler.cb = on_conn;
	lp.conn_handler.arg = l;
	st = srv.u->listener_create(srv.worker, &lp, &l->handle);
	if (st == UCS_OK) {
		st = srv.u->listener_query(l->handle, &la);
		if (st != UCS_OK)
			srv.u->listener_destroy(l->handle);
	}
	if (st != UCS_OK)
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "the network server cannot listen on %s:%u: %s",
				     ip, (unsigned)ntohs(sin.sin_port), srv.u->status_string(st));
	l->ipv4 = offer->ipv4;
	l->port = ntohs(((const struct sockaddr_in *)&la.sockaddr)->sin_port);
	srv.nlisteners++;
	FERRY_DBG("ferry net server: listening on %s:%u (%s)", ip, (unsigned)l->port, offer->iface);
	*port = l->port;
	return DOCA_SUCCESS;
}

doca_error_t net_server_listen(const struct ferry_link_net_offer *offer, const char *call, uint16_t *port)
{
	doca_error_t err = DOCA_SUCCESS;
	uint64_t one = 1;

	/* The server thread holds the lock while it progresses: ask it to let go. */
	/* pid is stored after wake_fd is: a server of this process has its eventfd. */
	if (atomic_load(&srv.pid) == getpid())
		(void)write(srv.wake_fd, &one, sizeof(one));
	pthread_mutex_lock(&srv.lock);
	if (srv.forked) {
		err = FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				    "a forked child of a process whose network server runs cannot offer the network "
				    "path (UCX does not support fork); export from the parent, or exec first");
	} else if (srv.pid != getpid()) {
		err = server_start(offer, call);
	} else if (strcmp(srv.iface, offer->iface) != 0) {
		err = FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				    "the network server runs on interface %s; an export on %s cannot be offered too "
				    "(one interface per process)",
				    srv.iface, offer->iface);
	}
	for (unsigned int i = 0; err == DOCA_SUCCESS && i < srv.nlisteners; i++) {
		if (srv.listeners[i].ipv4.s_addr == offer->ipv4.s_addr) {
			*port = srv.listeners[i].port;
			pthread_mutex_unlock(&srv.lock);
			return DOCA_SUCCESS;
		}
	}
	if (err == DOCA_SUCCESS)
		err = listener_add(offer, call, port);
	pthread_mutex_unlock(&srv.lock);
	return err;
}

/*
 * At exit (a normal one: a killed process leaves nothing to free; registered
 * with atexit when the server starts, so it runs before UCX's own library
 * destructors), the server ends: its thread first, then every connection (forced: importers
 * see the exporter gone), the replies UCX still held, listeners, worker and
 * UCX itself, so nothing of it outlives the process's own clean-up.
 */
#define NET_STOP_ROUNDS 1000

static void server_stop(void)
{
	uint64_t one = 1;

	if (srv.pid != getpid() || srv.u == NULL)
		return;
	atomic_store(&srv.stopping, true);
	(void)write(srv.wake_fd, &one, sizeof(one));
	pthread_join(srv.thread, NULL); /* it never waits on a copy; copier threads are not joined */
	for (struct net_peer *p = srv.peers; p != NULL; p = p->next)
		p->failed = true;
	/*
	 * From now on a copy that ends is freed by its copier (a stuck one, never:
	 * the process ends it), with its bytes; copies are not touched after this.
	 */
	pthread_mutex_lock(&srv.done_lock);
	srv.closed = true;
	pthread_mutex_unlock(&srv.done_lock);
	copies_ended(); /* those that ended before: answered (to failed peers: freed) */
	while (srv.handed != NULL) {
		struct net_job *j = srv.handed;

		j->data = NULL; /* the copy's */
		handed_unlink(j);
		job_free(j);
	}
	/* Forced closes hand every reply still in flight back to its callback, which frees its job. */
	for (int i = 0; i < NET_STOP_ROUNDS && srv.peers != NULL; i++) {
		(void)srv.u->worker_progress(srv.worker);
		fetch_writes();
		send_replies();
		reap_peers();
	}
	for (unsigned int i = 0; i < srv.nlisteners; i++)
		srv.u->listener_destroy(srv.listeners[i].handle);
	srv.u->worker_destroy(srv.worker);
	srv.u->cleanup(srv.ctx);
	close(srv.wake_fd);
	srv.pid = 0;
}
