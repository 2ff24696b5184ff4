/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_net_rogue.c - the network access path's trust boundary, attacked from
 * both sides over raw UCX on 127.0.0.1.
 *
 * The exporter's network server (net_server.c) answers requests from another
 * machine's importer; the importer (net_client.c) believes nothing the
 * exporter answers beyond what it checked. Neither may trust the other, so:
 *
 *  a. A rogue importer against a real export's server. This process exports
 *     two ranges (read-write and read-only) with a network offer on
 *     127.0.0.1/lo, each with canary bytes around it, and talks to its own
 *     server with a UCX context, worker and endpoints of its own, sending
 *     headers it builds byte by byte: malformed ones (bad magic, version,
 *     size, operation, length, data) must get the connection closed without
 *     a reply; messages of active-message ids the server never registered,
 *     and requests without a reply endpoint, are ignored; well-formed
 *     refusals must come back with the right status (wrong token
 *     NOT_PERMITTED, unknown or revoked export NOT_FOUND, outside the export
 *     INVALID_VALUE, a write to a read-only export NOT_PERMITTED) and leave
 *     the connection up; 32 requests in flight are served and the 33rd
 *     disconnects the peer; peers that vanish mid-write are reaped; no more
 *     than 64 peers are served at once; peers that never take their replies
 *     (holding all of the server's bounce buffers) are disconnected after
 *     FERRY_LINK_NET_TIMEOUT_MS, and the budget is honest importers' again
 *     (taking fresh replies beside the held ones does not save them);
 *     64 silent strangers cannot keep an honest importer out. No byte outside an export (nor
 *     inside it, for a refused write) ever changes, the server (this
 *     process) never crashes, and an honest import through the same server
 *     works afterwards.
 *
 *  b. A rogue exporter against an honest importer. A fake server (a thread
 *     with a raw UCX listener on 127.0.0.1) is named in a forged descriptor
 *     and answers the importer's stat and reads with lies: a stat whose range
 *     or permission differs from the descriptor's (the import is refused
 *     NOT_PERMITTED), a silent stat, bad magic, a reply to an id never asked,
 *     a read reply with too few or too many bytes or a header that says more
 *     than comes, data beside a failed status, another operation's reply,
 *     "not found", messages of ids the importer never registered, silence
 *     (the copy fails after FERRY_LINK_NET_TIMEOUT_MS), the connection closed
 *     mid-read, every read answered twice, a reply started and then frozen.
 *     The honest importer must fail with an error code and a log line
 *     (sampled: the 1st, 2nd, 4th... offender), never hang, never write
 *     outside its destination (canaries), and leak nothing (the ASan build
 *     runs this too; UCX's own complaints are watched where it has them).
 *
 * The meson test sets FERRY_LINK_NET=always and UCX_MEM_EVENTS=no;
 * NET_ROGUE_FILTER=<cmocka pattern> runs only the tests it matches.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include <doca_types.h>

#include "link/export_desc_priv.h"
#include "link/ferry_access.h"
#include "link/ferry_export.h"
#include "link/net_priv.h"
#include "link/net_wire.h"
#include "desc_samples.h"
#include "ferry_test.h"
#include "ferry_test_rss.h"
#include "xproc_common.h"

#define CALL           "test_net_rogue"
#define EXP_LEN        NET_CHUNK_MAX /* one chunk: a whole-export read is one request */
#define CANARY         4096u
#define CANARY_BYTE    0xcc
#define WAIT_MS        5000 /* a reply, or the server closing a connection */
#define MAX_PEERS      64   /* net_server.c NET_MAX_PEERS */
#define MAX_INFLIGHT   32   /* net_server.c NET_PEER_MAX_INFLIGHT */
#define EXTRA_PEERS    6
#define MAX_HELD       1024           /* test_server_drops_stalled_readers: 32 peers x 32 reads */
#define CLIENT_TIMEOUT 600            /* FERRY_LINK_NET_TIMEOUT_MS for part b */
#define SERVER_TIMEOUT 3000           /* FERRY_LINK_NET_TIMEOUT_MS as the server reads it at start (part a) */
#define BOUNCE_BUDGET  (256ull << 20) /* net_server.c NET_BOUNCE_BUDGET */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The server gives a closed importer's place back only once UCX has closed
 * its endpoint: tests that count places wait for the earlier tests' peers
 * to be gone rather than guess how long that takes on a loaded machine.
 */
static void wait_server_empty(void)
{
	double end = now_s() + 12.0;

	while (net_server_peers() != 0 && now_s() < end)
		usleep(2000);
	assert_int_equal(net_server_peers(), 0);
}

static void put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get_le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* ---- a raw UCX context on lo, over TCP, as the other machine would have ---- */

static void ucx_open(ucp_context_h *ctx, ucp_worker_h *w)
{
	ucp_config_t *cfg;
	ucp_params_t prm = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_AM};
	ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				  .thread_mode = UCS_THREAD_MODE_SINGLE};

	assert_int_equal(ucp_config_read(NULL, NULL, &cfg), UCS_OK);
	assert_int_equal(ucp_config_modify(cfg, "TLS", "tcp"), UCS_OK);
	assert_int_equal(ucp_config_modify(cfg, "NET_DEVICES", "lo"), UCS_OK);
	assert_int_equal(ucp_init(&prm, cfg, ctx), UCS_OK);
	ucp_config_release(cfg);
	assert_int_equal(ucp_worker_create(*ctx, &wp, w), UCS_OK);
}

static void ucx_close(ucp_context_h ctx, ucp_worker_h w)
{
	ucp_worker_destroy(w);
	ucp_cleanup(ctx);
}

/* Progress until a request is done, at most @p ms; force-closing its endpoint ends it otherwise. */
static ucs_status_t ucx_wait(ucp_worker_h w, ucs_status_ptr_t req, int ms)
{
	double end = now_s() + ms / 1000.0;
	ucs_status_t st;

	if (!UCS_PTR_IS_PTR(req))
		return UCS_PTR_STATUS(req);
	while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS && now_s() < end)
		if (ucp_worker_progress(w) == 0)
			usleep(200);
	if (st == UCS_INPROGRESS)
		ucp_request_cancel(w, req);
	while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS)
		ucp_worker_progress(w);
	ucp_request_free(req);
	return st;
}

static void ucx_ep_close(ucp_worker_h w, ucp_ep_h ep)
{
	ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};

	(void)ucx_wait(w, ucp_ep_close_nbx(ep, &prm), WAIT_MS);
}

/* ---- what UCX itself says (its warnings are not DOCA log lines; stdout unless UCX_LOG_FILE) ---- */

static int saved_out[2] = {-1, -1};
static FILE *captured;

static void output_capture_begin(void)
{
	fflush(stdout);
	fflush(stderr);
	captured = tmpfile();
	assert_non_null(captured);
	for (int fd = 1; fd <= 2; fd++) {
		saved_out[fd - 1] = dup(fd);
		assert_true(saved_out[fd - 1] >= 0);
		assert_true(dup2(fileno(captured), fd) >= 0);
	}
}

static void output_capture_end(char *out, size_t room)
{
	size_t n;

	fflush(stdout);
	fflush(stderr);
	for (int fd = 1; fd <= 2; fd++) {
		assert_true(dup2(saved_out[fd - 1], fd) >= 0);
		close(saved_out[fd - 1]);
	}
	rewind(captured);
	n = fread(out, 1, room - 1, captured);
	out[n] = '\0';
	fclose(captured);
	fputs(out, stderr); /* still shown */
}

/* ================= a. a rogue importer against a real export's server ================= */

struct region {
	uint8_t *mem; /* canary, export, canary */
	uint8_t *base;
	uint8_t shadow[EXP_LEN]; /* what the export must hold */
	struct ferry_link_export *exp;
	struct ferry_export_desc d;
	uint8_t raw[FERRY_DESC_MAX_LEN];
	size_t raw_len;
};

static struct region rw, ro;

static void region_open(struct region *r, uint32_t access, uint64_t seed)
{
	struct ferry_link_net_offer offer = {.iface = "lo"};
	const void *desc;
	const char *why = NULL;

	offer.ipv4.s_addr = htonl(INADDR_LOOPBACK);
	r->mem = malloc(EXP_LEN + 2 * CANARY);
	assert_non_null(r->mem);
	memset(r->mem, CANARY_BYTE, EXP_LEN + 2 * CANARY);
	r->base = r->mem + CANARY;
	xp_fill(r->base, EXP_LEN, seed);
	memcpy(r->shadow, r->base, EXP_LEN);
	assert_int_equal(ferry_link_export_open(r->base, EXP_LEN, access, 0, &offer, CALL, &r->exp), DOCA_SUCCESS);
	ferry_link_export_desc(r->exp, &desc, &r->raw_len);
	assert_true(r->raw_len <= sizeof(r->raw));
	memcpy(r->raw, desc, r->raw_len);
	assert_int_equal(ferry_export_desc_decode(r->raw, r->raw_len, &r->d, &why), DOCA_SUCCESS);
	assert_true((r->d.hints & FERRY_DESC_HINT_NET) != 0);
	assert_int_not_equal(r->d.net_port, 0);
}

/* Nothing outside the export changed, and the export holds what it must. */
static void region_check(const struct region *r)
{
	for (size_t i = 0; i < CANARY; i++) {
		assert_int_equal(r->mem[i], CANARY_BYTE);
		assert_int_equal(r->base[EXP_LEN + i], CANARY_BYTE);
	}
	assert_memory_equal(r->base, r->shadow, EXP_LEN);
}

/* The rogue importer: one worker, endpoints to the server, the replies that came back. */
struct reply {
	uint8_t hdr[64];
	size_t hdr_len;
	size_t data_len;
	uint8_t data[256];
	bool rndv;
};

struct rogue {
	ucp_context_h ctx;
	ucp_worker_h w;
	ucp_ep_h eps[MAX_PEERS + EXTRA_PEERS];
	_Atomic int failed[MAX_PEERS + EXTRA_PEERS]; /* the endpoint's error handler ran */
	unsigned int neps;
	struct reply replies[MAX_PEERS + EXTRA_PEERS + 8];
	unsigned int nreplies;
	void *held[MAX_HELD]; /* rendezvous replies never fetched: their sends stay in flight */
	unsigned int nheld;
};

static void rogue_on_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	(void)ep;
	(void)status;
	atomic_store((_Atomic int *)arg, 1);
}

static ucs_status_t rogue_on_reply(void *arg, const void *header, size_t header_length, void *data, size_t length,
				   const ucp_am_recv_param_t *param)
{
	struct rogue *g = arg;
	struct reply *r;

	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0 && g->nheld < MAX_HELD) {
		g->held[g->nheld++] = data;
		return UCS_INPROGRESS; /* never fetched: the server's reply stays in flight */
	}
	if (g->nreplies == sizeof(g->replies) / sizeof(g->replies[0]))
		return UCS_OK;
	r = &g->replies[g->nreplies++];
	r->hdr_len = header_length < sizeof(r->hdr) ? header_length : sizeof(r->hdr);
	memcpy(r->hdr, header, r->hdr_len);
	r->data_len = length;
	r->rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
	if (!r->rndv)
		memcpy(r->data, data, length < sizeof(r->data) ? length : sizeof(r->data));
	return UCS_OK;
}

static void rogue_open(struct rogue *g)
{
	ucp_am_handler_param_t am = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
						   UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
				     .id = NET_AM_REPLY,
				     .cb = rogue_on_reply,
				     .arg = g,
				     .flags = UCP_AM_FLAG_WHOLE_MSG};

	memset(g, 0, sizeof(*g));
	ucx_open(&g->ctx, &g->w);
	assert_int_equal(ucp_worker_set_am_recv_handler(g->w, &am), UCS_OK);
}

/* Another endpoint to the server at 127.0.0.1:@p port; its index. */
static unsigned int rogue_connect(struct rogue *g, uint16_t port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port)};
	ucp_ep_params_t ep;
	unsigned int i = g->neps;

	assert_true(i < MAX_PEERS + EXTRA_PEERS);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(&ep, 0, sizeof(ep));
	ep.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
	ep.sockaddr.addr = (const struct sockaddr *)&sin;
	ep.sockaddr.addrlen = sizeof(sin);
	ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	ep.err_handler.cb = rogue_on_ep_error;
	ep.err_handler.arg = &g->failed[i];
	assert_int_equal(ucp_ep_create(g->w, &ep, &g->eps[i]), UCS_OK);
	g->neps++;
	return i;
}

static void rogue_close(struct rogue *g)
{
	for (unsigned int i = 0; i < g->nheld; i++)
		ucp_am_data_release(g->w, g->held[i]);
	for (unsigned int i = 0; i < g->neps; i++)
		ucx_ep_close(g->w, g->eps[i]);
	ucx_close(g->ctx, g->w);
}

/* Send a request's header and data on endpoint @p i; UCX's verdict on the send. */
static ucs_status_t rogue_send(struct rogue *g, unsigned int i, const void *hdr, size_t hdr_len, const void *data,
			       size_t data_len)
{
	ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_AM_SEND_FLAG_REPLY};

	return ucx_wait(g->w, ucp_am_send_nbx(g->eps[i], NET_AM_REQUEST, hdr, hdr_len, data, data_len, &prm), WAIT_MS);
}

/* Progress until @p want replies are here or endpoint @p i failed, at most @p ms. */
static void rogue_progress(struct rogue *g, unsigned int want, int i, int ms)
{
	double end = now_s() + ms / 1000.0;

	while (g->nreplies < want && (i < 0 || !atomic_load(&g->failed[i])) && now_s() < end)
		if (ucp_worker_progress(g->w) == 0)
			usleep(500);
}

/* A request header as an honest importer builds it, for the region's export. */
static void req_build(uint8_t hdr[NET_REQ_LEN], const struct region *r, uint16_t op, uint64_t id, uint64_t addr,
		      uint32_t len)
{
	struct net_req req = {.op = op, .id = id, .export_id = r->d.export_id, .addr = addr, .len = len};

	memcpy(req.token, r->d.token, sizeof(req.token));
	net_req_encode(&req, hdr);
}

/* One request on endpoint @p i; the reply, checked, with its status. */
static int32_t ask(struct rogue *g, unsigned int i, const uint8_t *hdr, const void *data, size_t data_len,
		   struct net_rep *rep)
{
	unsigned int before = g->nreplies;
	const char *why = NULL;
	const struct reply *r;

	assert_int_equal(rogue_send(g, i, hdr, NET_REQ_LEN, data, data_len), UCS_OK);
	rogue_progress(g, before + 1, (int)i, WAIT_MS);
	assert_int_equal(g->nreplies, before + 1);
	assert_false(atomic_load(&g->failed[i]));
	r = &g->replies[before];
	assert_false(r->rndv);
	assert_int_equal(net_rep_decode(r->hdr, r->hdr_len, r->data_len, rep, &why), DOCA_SUCCESS);
	assert_int_equal(rep->id, get_le(hdr + 8, 8));
	if (rep->len != 0)
		assert_true(rep->len <= sizeof(r->data));
	return rep->status;
}

/* A connection to @p r's server that presented @p r's token (a STAT, answered): its endpoint. */
static unsigned int rogue_connect_known(struct rogue *g, const struct region *r)
{
	uint8_t hdr[NET_REQ_LEN];
	struct net_rep rep;
	unsigned int i = rogue_connect(g, r->d.net_port);

	req_build(hdr, r, NET_OP_STAT, 1, 0, 0);
	assert_int_equal(ask(g, i, hdr, NULL, 0, &rep), DOCA_SUCCESS);
	return i;
}

/* @p n reads of all of @p r on endpoint @p i (ids 2..n+1), sent and not waited for. */
static void send_reads(struct rogue *g, unsigned int i, const struct region *r, unsigned int n)
{
	uint8_t hdr[NET_REQ_LEN];

	for (unsigned int m = 0; m < n; m++) {
		req_build(hdr, r, NET_OP_READ, m + 2, (uint64_t)(uintptr_t)r->base, EXP_LEN);
		assert_int_equal(rogue_send(g, i, hdr, NET_REQ_LEN, NULL, 0), UCS_OK);
	}
}

/* ---- the malformed: closed without a reply ---- */

struct bad_request {
	const char *name;
	void (*edit)(uint8_t *hdr, size_t *hdr_len, size_t *data_len);
};

static void bad_magic(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)hl;
	(void)dl;
	h[0] ^= 0xff;
}

static void bad_version(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)hl;
	(void)dl;
	put_le(h + 4, 2, 2);
}

static void short_header(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)h;
	(void)dl;
	*hl = NET_REQ_LEN - 1;
}

static void long_header(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)h;
	(void)dl;
	*hl = NET_REQ_LEN + 8;
}

static void unknown_op(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)hl;
	(void)dl;
	put_le(h + 6, 4, 2);
}

static void len_zero(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)hl;
	*dl = 0;
	put_le(h + 48, 0, 4);
}

static void len_too_big(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)hl;
	*dl = NET_CHUNK_MAX + 1;
	put_le(h + 48, NET_CHUNK_MAX + 1, 4);
}

static void data_short(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)h;
	(void)hl;
	*dl -= 1;
}

static void data_long(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)h;
	(void)hl;
	*dl += 1;
}

static void read_with_data(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)hl;
	(void)dl; /* the write's data stays beside a read */
	put_le(h + 6, NET_OP_READ, 2);
}

static void reserved_set(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)hl;
	(void)dl;
	h[NET_REQ_LEN - 1] = 1;
}

static void stat_with_addr(uint8_t *h, size_t *hl, size_t *dl)
{
	(void)hl;
	*dl = 0;
	put_le(h + 6, NET_OP_STAT, 2);
}

static const struct bad_request bad_requests[] = {
	{"bad magic", bad_magic},
	{"version 2", bad_version},
	{"header one byte short", short_header},
	{"header 8 bytes long", long_header},
	{"unknown operation", unknown_op},
	{"length 0", len_zero},
	{"length above NET_CHUNK_MAX", len_too_big},
	{"write with one byte less data than its length", data_short},
	{"write with one byte more data than its length", data_long},
	{"read carrying data", read_with_data},
	{"reserved field set", reserved_set},
	{"stat with an address and a length", stat_with_addr},
};

static uint8_t big_data[NET_CHUNK_MAX + 8];

static int group_setup(void **state)
{
	struct rlimit lim;

	(void)state;
	/* 70 peers of one process on both ends of lo: several sockets each. */
	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &lim);
	}
	ferry_test_log_reset();
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	return 0;
}

static void test_exports_offered(void **state)
{
	(void)state;
	/* The server reads it once, at its start; importers made later read their own. */
	setenv("FERRY_LINK_NET_TIMEOUT_MS", "3000", 1); /* SERVER_TIMEOUT */
	region_open(&rw, DOCA_ACCESS_FLAG_PCI_READ_WRITE, 11);
	region_open(&ro, DOCA_ACCESS_FLAG_PCI_READ_ONLY, 22);
	unsetenv("FERRY_LINK_NET_TIMEOUT_MS");
	assert_int_equal(rw.d.net_port, ro.d.net_port); /* one server per process */
}

/* Each malformed request (a write of 100 bytes, then broken one way) ends its connection, unanswered. */
static void test_server_closes_malformed(void **state)
{
	struct rogue g;

	(void)state;
	ferry_test_log_reset();
	memset(big_data, 0xee, sizeof(big_data));
	rogue_open(&g);
	for (size_t k = 0; k < sizeof(bad_requests) / sizeof(bad_requests[0]); k++) {
		uint8_t hdr[NET_REQ_LEN + 8] = {0};
		size_t hdr_len = NET_REQ_LEN, data_len = 100;
		unsigned int i = rogue_connect(&g, rw.d.net_port);
		unsigned int before = g.nreplies;
		double t0 = now_s();

		req_build(hdr, &rw, NET_OP_WRITE, 1000 + k, (uint64_t)(uintptr_t)rw.base, 100);
		bad_requests[k].edit(hdr, &hdr_len, &data_len);
		(void)rogue_send(&g, i, hdr, hdr_len, big_data, data_len);
		rogue_progress(&g, before + 1, (int)i, WAIT_MS);
		if (!atomic_load(&g.failed[i]) || g.nreplies != before)
			fail_msg("'%s': the server %s", bad_requests[k].name,
				 g.nreplies != before ? "answered" : "kept the connection");
		print_message("  %-48s closed after %.0f ms\n", bad_requests[k].name, (now_s() - t0) * 1e3);
		region_check(&rw);
	}
	rogue_close(&g);
	/* Logged sparingly (the 1st, 2nd, 4th, 8th... offender of the process): 12 peers, 4 lines. */
	assert_int_equal(ferry_test_log_count("ferry net server: disconnected importer"), 4);
	assert_true(ferry_test_log_has("malformed request: bad magic"));
}

/*
 * Messages the server has no handler for: another active-message id (the
 * reply's, unknown ones, the largest), and a request sent without a reply
 * endpoint. UCX drops them; the server neither crashes nor answers, and the
 * connection still serves a stat afterwards.
 */
static void test_server_ignores_strangers(void **state)
{
	static const unsigned int ids[] = {NET_AM_REPLY, 0, 7, 31, 255, 65535};
	ucp_request_param_t plain = {.op_attr_mask = 0};
	uint8_t hdr[NET_REQ_LEN];
	struct net_rep rep;
	struct rogue g;
	unsigned int i;

	(void)state;
	memset(big_data, 0xee, sizeof(big_data));
	rogue_open(&g);
	i = rogue_connect_known(&g, &rw);
	for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_AM_SEND_FLAG_REPLY};

		req_build(hdr, &rw, NET_OP_WRITE, 10 + k, (uint64_t)(uintptr_t)rw.base, 64);
		(void)ucx_wait(g.w, ucp_am_send_nbx(g.eps[i], ids[k], hdr, NET_REQ_LEN, big_data, 64, &prm), WAIT_MS);
	}
	/* A valid write without UCP_AM_SEND_FLAG_REPLY: nobody to answer, so not served at all. */
	req_build(hdr, &rw, NET_OP_WRITE, 20, (uint64_t)(uintptr_t)rw.base, 64);
	(void)ucx_wait(g.w, ucp_am_send_nbx(g.eps[i], NET_AM_REQUEST, hdr, NET_REQ_LEN, big_data, 64, &plain), WAIT_MS);
	req_build(hdr, &rw, NET_OP_WRITE, 21, (uint64_t)(uintptr_t)rw.base, EXP_LEN);
	(void)ucx_wait(g.w, ucp_am_send_nbx(g.eps[i], NET_AM_REQUEST, hdr, NET_REQ_LEN, big_data, EXP_LEN, &plain),
		       WAIT_MS);
	rogue_progress(&g, g.nreplies + 1, (int)i, 300);
	req_build(hdr, &rw, NET_OP_STAT, 2, 0, 0);
	assert_int_equal(ask(&g, i, hdr, NULL, 0, &rep), DOCA_SUCCESS);
	assert_int_equal(g.nreplies, 2); /* the two stats, nothing else */
	rogue_close(&g);
	region_check(&rw);
}

/* Well-formed requests the export table refuses: the right status, the connection kept, nothing written. */
static void test_server_refuses(void **state)
{
	static const struct {
		const char *name;
		int64_t off;  /* from the export's start */
		uint64_t abs; /* or an absolute address when not 0 */
		uint32_t len;
	} outside[] = {
		{"below the export", -16, 0, 32},
		{"one byte below", -1, 0, 1},
		{"at its end", EXP_LEN, 0, 1},
		{"above it", EXP_LEN + 64, 0, 64},
		{"straddling its end", EXP_LEN - 16, 0, 32},
		{"addr + len wraps", 0, UINT64_MAX - 15, 32},
		{"the last byte of the address space", 0, UINT64_MAX, 1},
	};
	uint8_t hdr[NET_REQ_LEN];
	struct net_rep rep;
	struct rogue g;
	uint64_t base = (uint64_t)(uintptr_t)rw.base;
	uint64_t id = 1;
	unsigned int i;

	(void)state;
	ferry_test_log_reset();
	memset(big_data, 0xee, sizeof(big_data));
	rogue_open(&g);
	i = rogue_connect(&g, rw.d.net_port);

	/* The rogue's own requests are right when nothing is wrong with them. */
	req_build(hdr, &rw, NET_OP_STAT, id++, 0, 0);
	assert_int_equal(ask(&g, i, hdr, NULL, 0, &rep), DOCA_SUCCESS);
	assert_int_equal(rep.addr, base);
	assert_int_equal(rep.export_len, EXP_LEN);
	assert_int_equal(rep.access, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	req_build(hdr, &rw, NET_OP_READ, id++, base + 100, 64);
	assert_int_equal(ask(&g, i, hdr, NULL, 0, &rep), DOCA_SUCCESS);
	assert_int_equal(rep.len, 64);
	assert_memory_equal(g.replies[g.nreplies - 1].data, rw.shadow + 100, 64);
	req_build(hdr, &rw, NET_OP_WRITE, id++, base + 200, 64);
	assert_int_equal(ask(&g, i, hdr, big_data, 64, &rep), DOCA_SUCCESS);
	memset(rw.shadow + 200, 0xee, 64);
	region_check(&rw);

	/* A wrong token: stat, read and write. */
	for (uint16_t op = NET_OP_STAT; op <= NET_OP_WRITE; op++) {
		req_build(hdr, &rw, op, id++, op == NET_OP_STAT ? 0 : base, op == NET_OP_STAT ? 0 : 64);
		hdr[24 + 5] ^= 0x01;
		assert_int_equal(ask(&g, i, hdr, big_data, op == NET_OP_WRITE ? 64 : 0, &rep),
				 DOCA_ERROR_NOT_PERMITTED);
		assert_int_equal(rep.len, 0);
	}
	/* An export id nobody made. */
	req_build(hdr, &rw, NET_OP_READ, id++, base, 64);
	put_le(hdr + 16, rw.d.export_id + 1000, 8);
	assert_int_equal(ask(&g, i, hdr, NULL, 0, &rep), DOCA_ERROR_NOT_FOUND);
	/* The read-only export's token with the read-write export's id: the token is per export. */
	req_build(hdr, &rw, NET_OP_READ, id++, base, 64);
	memcpy(hdr + 24, ro.d.token, FERRY_DESC_TOKEN_LEN);
	assert_int_equal(ask(&g, i, hdr, NULL, 0, &rep), DOCA_ERROR_NOT_PERMITTED);
	/* Outside the export: reads and writes. */
	for (size_t k = 0; k < sizeof(outside) / sizeof(outside[0]); k++) {
		uint64_t addr = outside[k].abs != 0 ? outside[k].abs : base + (uint64_t)outside[k].off;

		req_build(hdr, &rw, NET_OP_READ, id++, addr, outside[k].len);
		if (ask(&g, i, hdr, NULL, 0, &rep) != DOCA_ERROR_INVALID_VALUE)
			fail_msg("read %s: status %d", outside[k].name, rep.status);
		assert_int_equal(rep.len, 0);
		req_build(hdr, &rw, NET_OP_WRITE, id++, addr, outside[k].len);
		if (ask(&g, i, hdr, big_data, outside[k].len, &rep) != DOCA_ERROR_INVALID_VALUE)
			fail_msg("write %s: status %d", outside[k].name, rep.status);
		region_check(&rw);
	}
	/* A write to the read-only export, inside its range. */
	req_build(hdr, &ro, NET_OP_WRITE, id++, (uint64_t)(uintptr_t)ro.base, 64);
	assert_int_equal(ask(&g, i, hdr, big_data, 64, &rep), DOCA_ERROR_NOT_PERMITTED);
	/* A write of a whole chunk (rendezvous, most likely) to it. */
	req_build(hdr, &ro, NET_OP_WRITE, id++, (uint64_t)(uintptr_t)ro.base, EXP_LEN);
	assert_int_equal(ask(&g, i, hdr, big_data, EXP_LEN, &rep), DOCA_ERROR_NOT_PERMITTED);
	region_check(&ro);
	/* After all that, the connection still serves. */
	req_build(hdr, &ro, NET_OP_READ, id++, (uint64_t)(uintptr_t)ro.base + EXP_LEN - 64, 64);
	assert_int_equal(ask(&g, i, hdr, NULL, 0, &rep), DOCA_SUCCESS);
	assert_memory_equal(g.replies[g.nreplies - 1].data, ro.shadow + EXP_LEN - 64, 64);
	rogue_close(&g);
	region_check(&rw);
	region_check(&ro);
	assert_true(ferry_test_log_has("presented a wrong token"));
	assert_true(ferry_test_log_has("outside export"));
}

/* A revoked export (doca_mmap_stop) is gone for the server too: NOT_FOUND, its bytes untouched. */
static void test_server_revoked(void **state)
{
	struct region gone;
	uint8_t hdr[NET_REQ_LEN];
	struct net_rep rep;
	struct rogue g;
	unsigned int i;

	(void)state;
	memset(big_data, 0xee, sizeof(big_data));
	region_open(&gone, DOCA_ACCESS_FLAG_PCI_READ_WRITE, 33);
	rogue_open(&g);
	i = rogue_connect(&g, gone.d.net_port);
	req_build(hdr, &gone, NET_OP_STAT, 1, 0, 0);
	assert_int_equal(ask(&g, i, hdr, NULL, 0, &rep), DOCA_SUCCESS);
	ferry_link_export_close(gone.exp);
	req_build(hdr, &gone, NET_OP_WRITE, 2, (uint64_t)(uintptr_t)gone.base, 64);
	assert_int_equal(ask(&g, i, hdr, big_data, 64, &rep), DOCA_ERROR_NOT_FOUND);
	req_build(hdr, &gone, NET_OP_STAT, 3, 0, 0);
	assert_int_equal(ask(&g, i, hdr, NULL, 0, &rep), DOCA_ERROR_NOT_FOUND);
	rogue_close(&g);
	region_check(&gone);
	free(gone.mem);
}

/*
 * More than MAX_INFLIGHT requests in flight: whole-chunk reads, whose replies
 * go by rendezvous and which this side never fetches, so none completes.
 * MAX_INFLIGHT are allowed (all their replies come, held); one more cuts
 * the peer off.
 */
static void test_server_bounds_inflight(void **state)
{
	uint8_t hdr[MAX_INFLIGHT + 1][NET_REQ_LEN];
	ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_AM_SEND_FLAG_REPLY};
	ucs_status_ptr_t sends[MAX_INFLIGHT + 1];
	struct rogue g;
	unsigned int i;
	double t0, end;

	(void)state;
	rogue_open(&g);
	i = rogue_connect(&g, rw.d.net_port);
	for (unsigned int k = 0; k < MAX_INFLIGHT; k++) {
		req_build(hdr[k], &rw, NET_OP_READ, k + 1, (uint64_t)(uintptr_t)rw.base, EXP_LEN);
		sends[k] = ucp_am_send_nbx(g.eps[i], NET_AM_REQUEST, hdr[k], NET_REQ_LEN, NULL, 0, &prm);
	}
	end = now_s() + WAIT_MS / 1000.0;
	while (g.nheld + g.nreplies < MAX_INFLIGHT && !atomic_load(&g.failed[i]) && now_s() < end)
		if (ucp_worker_progress(g.w) == 0)
			usleep(500);
	/* MAX_INFLIGHT replies in flight (rendezvous: the server's sends wait for this side), the peer still served. */
	assert_int_equal(g.nheld, MAX_INFLIGHT);
	assert_false(atomic_load(&g.failed[i]));
	req_build(hdr[MAX_INFLIGHT], &rw, NET_OP_READ, MAX_INFLIGHT + 1, (uint64_t)(uintptr_t)rw.base, 64);
	sends[MAX_INFLIGHT] = ucp_am_send_nbx(g.eps[i], NET_AM_REQUEST, hdr[MAX_INFLIGHT], NET_REQ_LEN, NULL, 0, &prm);
	t0 = now_s();
	rogue_progress(&g, UINT32_MAX, (int)i, WAIT_MS);
	assert_true(atomic_load(&g.failed[i]));
	print_message("  request %u in flight: disconnected after %.0f ms; %u eager replies\n", MAX_INFLIGHT + 1,
		      (now_s() - t0) * 1e3, g.nreplies);
	assert_int_equal(g.nreplies, 0);
	for (unsigned int k = 0; k <= MAX_INFLIGHT; k++)
		(void)ucx_wait(g.w, sends[k], WAIT_MS);
	rogue_close(&g);
	region_check(&rw);
}

/* Connect @p npeers importers at once, each asking a stat: how many are served and how many turned away. */
static void connect_many(unsigned int npeers, unsigned int *served, unsigned int *failed)
{
	uint8_t hdr[MAX_PEERS + EXTRA_PEERS][NET_REQ_LEN];
	ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_AM_SEND_FLAG_REPLY};
	ucs_status_ptr_t sends[MAX_PEERS + EXTRA_PEERS];
	struct rogue g;
	double end;

	assert_true(npeers <= MAX_PEERS + EXTRA_PEERS);
	wait_server_empty();
	rogue_open(&g);
	for (unsigned int k = 0; k < npeers; k++) {
		unsigned int i = rogue_connect(&g, rw.d.net_port);

		req_build(hdr[k], &rw, NET_OP_STAT, k + 1, 0, 0);
		sends[k] = ucp_am_send_nbx(g.eps[i], NET_AM_REQUEST, hdr[k], NET_REQ_LEN, NULL, 0, &prm);
	}
	end = now_s() + WAIT_MS / 1000.0;
	do {
		*failed = 0;
		for (unsigned int k = 0; k < g.neps; k++)
			*failed += atomic_load(&g.failed[k]) != 0;
		if (ucp_worker_progress(g.w) == 0)
			usleep(500);
	} while (g.nreplies + *failed < g.neps && now_s() < end);
	*served = 0;
	for (unsigned int k = 0; k < g.nreplies; k++) {
		struct net_rep rep;
		const char *why;

		assert_int_equal(
			net_rep_decode(g.replies[k].hdr, g.replies[k].hdr_len, g.replies[k].data_len, &rep, &why),
			DOCA_SUCCESS);
		*served += rep.status == DOCA_SUCCESS;
	}
	print_message("  %u peers: %u served, %u refused\n", g.neps, *served, *failed);
	for (unsigned int k = 0; k < npeers; k++)
		(void)ucx_wait(g.w, sends[k], WAIT_MS);
	rogue_close(&g);
}

/*
 * Importers that start a whole-chunk write (its bytes by rendezvous, fetched
 * by the server) and vanish before sending the bytes: no token is checked
 * before the fetch, so anyone can do this. Each such peer must still be
 * reaped once its connection is gone, or a few thousand bytes of nobody's
 * would fill the server's 64 peer places for good.
 */
static void test_server_abandoned_writes(void **state)
{
	unsigned int served, failed;

	(void)state;
	memset(big_data, 0xee, sizeof(big_data));
	for (unsigned int k = 0; k < 4; k++) {
		ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_AM_SEND_FLAG_REPLY};
		uint8_t hdr[NET_REQ_LEN];
		struct rogue g;
		unsigned int i;

		rogue_open(&g);
		i = rogue_connect_known(&g, &rw);
		req_build(hdr, &rw, NET_OP_WRITE, 2, (uint64_t)(uintptr_t)rw.base, EXP_LEN);
		/* The rendezvous starts here; this worker is not progressed while the server asks for the bytes. */
		ucs_status_ptr_t send = ucp_am_send_nbx(g.eps[i], NET_AM_REQUEST, hdr, NET_REQ_LEN, big_data, EXP_LEN,
							&prm);
		usleep(200000);
		ucs_status_ptr_t bad_send = NULL;
		if (k % 2 == 1) {
			/* Half of them also break the protocol meanwhile: the server drops them itself, mid-fetch. */
			static uint8_t bad[NET_REQ_LEN];

			req_build(bad, &rw, NET_OP_STAT, 3, 0, 0);
			bad[0] ^= 0xff;
			bad_send = ucp_am_send_nbx(g.eps[i], NET_AM_REQUEST, bad, NET_REQ_LEN, NULL, 0, &prm);
			usleep(200000);
		}
		/* Vanish: the endpoint's lanes are dropped at once (force), the bytes never sent. */
		ucx_ep_close(g.w, g.eps[i]);
		assert_int_not_equal(ucx_wait(g.w, send, WAIT_MS), UCS_OK);
		(void)ucx_wait(g.w, bad_send, WAIT_MS);
		ucx_close(g.ctx, g.w);
	}
	usleep(1500000); /* the server sees the connections gone */
	connect_many(MAX_PEERS, &served, &failed);
	assert_int_equal(served, MAX_PEERS);
	assert_int_equal(failed, 0);
	region_check(&rw);
}

/* 64 importers at once, then 6 more: the 6 are turned away, the 64 are served. */
static void test_server_bounds_peers(void **state)
{
	unsigned int served, failed;

	(void)state;
	connect_many(MAX_PEERS + EXTRA_PEERS, &served, &failed);
	assert_int_equal(served, MAX_PEERS);
	assert_int_equal(failed, EXTRA_PEERS);
}

/*
 * Connections that never present a valid token (silent, or only wrong
 * tokens) are dropped after 10 s, so they cannot hold the server's places;
 * one that did present one stays.
 */
static void test_server_drops_tokenless(void **state)
{
	uint8_t hdr[NET_REQ_LEN];
	struct net_rep rep;
	struct rogue g;
	unsigned int silent, wrong, honest;
	double end;

	(void)state;
	wait_server_empty(); /* the 70 peers of the test before */
	rogue_open(&g);
	silent = rogue_connect(&g, rw.d.net_port);
	wrong = rogue_connect(&g, rw.d.net_port);
	honest = rogue_connect(&g, rw.d.net_port);
	req_build(hdr, &rw, NET_OP_STAT, 1, 0, 0);
	hdr[24] ^= 1; /* the token */
	assert_int_equal(ask(&g, wrong, hdr, NULL, 0, &rep), DOCA_ERROR_NOT_PERMITTED);
	req_build(hdr, &rw, NET_OP_STAT, 2, 0, 0);
	assert_int_equal(ask(&g, honest, hdr, NULL, 0, &rep), DOCA_SUCCESS);
	end = now_s() + 14.0;
	while ((!atomic_load(&g.failed[silent]) || !atomic_load(&g.failed[wrong])) && now_s() < end)
		if (ucp_worker_progress(g.w) == 0)
			usleep(1000);
	assert_true(atomic_load(&g.failed[silent]));
	assert_true(atomic_load(&g.failed[wrong]));
	assert_false(atomic_load(&g.failed[honest]));
	req_build(hdr, &rw, NET_OP_STAT, 3, 0, 0);
	assert_int_equal(ask(&g, honest, hdr, NULL, 0, &rep), DOCA_SUCCESS);
	rogue_close(&g);
}

/* One whole-export read through an honest import of @p r; its status (or the open's, if it fails). */
static doca_error_t honest_read(const struct region *r, uint8_t *buf)
{
	struct ferry_link_import *imp;
	struct ferry_link_view view;
	const struct ferry_access *a;
	doca_error_t err = ferry_link_import_open(r->raw, r->raw_len, 0, 0, CALL, &imp, &view);

	if (err != DOCA_SUCCESS)
		return err;
	a = ferry_link_import_access(imp);
	assert_string_equal(a->ops->name, "net");
	err = a->ops->read(a, buf, (uint64_t)(uintptr_t)r->base, EXP_LEN);
	ferry_link_import_close(imp);
	return err;
}

#define STALL_PEERS ((unsigned int)(BOUNCE_BUDGET / ((uint64_t)MAX_INFLIGHT * EXP_LEN)))

/*
 * Importers that hold the token, ask for whole-chunk reads and never take
 * the replies (they go by rendezvous: the server's sends wait for this
 * side): every reply in flight holds a bounce buffer of the server. 32 such
 * peers with 32 reads each hold the whole 256 MiB budget; kept, they would
 * make every other importer's read fail NO_MEMORY for as long as they like,
 * and keep the server 256 MiB larger. An importer that has not taken a reply
 * within FERRY_LINK_NET_TIMEOUT_MS (an honest one would have given the
 * connection up by then) must be disconnected and its buffers freed.
 */
static void test_server_drops_stalled_readers(void **state)
{
	uint8_t *buf = malloc(EXP_LEN);
	unsigned int dropped = 0;
	uint64_t rss0, rss_held, rss_after;
	doca_error_t full, after;
	struct rogue g;
	double t0, end;

	(void)state;
	assert_non_null(buf);
	wait_server_empty();
	rss0 = ferry_test_resident_bytes();
	rogue_open(&g);
	for (unsigned int k = 0; k < STALL_PEERS; k++)
		send_reads(&g, rogue_connect_known(&g, &rw), &rw, MAX_INFLIGHT);
	end = now_s() + 10.0;
	while (g.nheld < STALL_PEERS * MAX_INFLIGHT && now_s() < end)
		if (ucp_worker_progress(g.w) == 0)
			usleep(500);
	assert_int_equal(g.nheld, STALL_PEERS * MAX_INFLIGHT);
	rss_held = ferry_test_resident_bytes();
	full = honest_read(&rw, buf); /* the budget is the stalled peers' */
	t0 = now_s();
	end = t0 + SERVER_TIMEOUT / 1000.0 + 6.0;
	while (dropped < STALL_PEERS && now_s() < end) {
		if (ucp_worker_progress(g.w) == 0)
			usleep(1000);
		dropped = 0;
		for (unsigned int k = 0; k < g.neps; k++)
			dropped += atomic_load(&g.failed[k]) != 0;
	}
	t0 = now_s() - t0;
	assert_int_equal(dropped, STALL_PEERS);
	wait_server_empty();
	rss_after = ferry_test_resident_bytes();
	print_message("  %u peers x %u reads never taken: an honest read %s; %u of them disconnected %.1f s "
		      "later; resident %+.0f MiB with them, %+.0f MiB after\n",
		      STALL_PEERS, MAX_INFLIGHT, doca_error_get_name(full), dropped, t0,
		      ((double)rss_held - (double)rss0) / 1048576.0, ((double)rss_after - (double)rss0) / 1048576.0);
	after = honest_read(&rw, buf);
	assert_int_equal(after, DOCA_SUCCESS);
	assert_memory_equal(buf, rw.shadow, EXP_LEN);
	assert_int_not_equal(full, DOCA_SUCCESS);
	rogue_close(&g);
	region_check(&rw);
	free(buf);
}

/*
 * A peer that leaves its first replies untaken, but keeps taking fresh ones
 * beside them: what it takes must not keep what it holds. The oldest reply
 * it leaves waiting has it disconnected after FERRY_LINK_NET_TIMEOUT_MS all
 * the same.
 */
static void test_server_drops_partly_stalled_reader(void **state)
{
	ucp_request_param_t fetch = {.op_attr_mask = 0};
	uint8_t hdr[NET_REQ_LEN], *buf = malloc(EXP_LEN);
	unsigned int taken = 0, i;
	struct rogue g;
	double t0, end;

	(void)state;
	assert_non_null(buf);
	wait_server_empty();
	rogue_open(&g);
	i = rogue_connect_known(&g, &rw);
	send_reads(&g, i, &rw, 4);
	end = now_s() + WAIT_MS / 1000.0;
	while (g.nheld < 4 && now_s() < end)
		if (ucp_worker_progress(g.w) == 0)
			usleep(500);
	assert_int_equal(g.nheld, 4);
	t0 = now_s();
	end = t0 + 2.0 * SERVER_TIMEOUT / 1000.0;
	while (!atomic_load(&g.failed[i]) && now_s() < end) {
		unsigned int before = g.nheld;
		double until = now_s() + WAIT_MS / 1000.0;

		req_build(hdr, &rw, NET_OP_READ, 100 + taken, (uint64_t)(uintptr_t)rw.base, EXP_LEN);
		if (rogue_send(&g, i, hdr, NET_REQ_LEN, NULL, 0) != UCS_OK)
			break;
		while (g.nheld == before && !atomic_load(&g.failed[i]) && now_s() < until)
			if (ucp_worker_progress(g.w) == 0)
				usleep(500);
		if (g.nheld != before + 1)
			break;
		/* Taken: its bytes fetched, so the server's send of it ends. */
		if (ucx_wait(g.w, ucp_am_recv_data_nbx(g.w, g.held[before], buf, EXP_LEN, &fetch), WAIT_MS) == UCS_OK) {
			assert_memory_equal(buf, rw.shadow, EXP_LEN);
			taken++;
		}
		g.nheld--;
		usleep(100000);
	}
	t0 = now_s() - t0;
	print_message("  4 replies held, %u taken beside them: disconnected after %.1f s\n", taken, t0);
	assert_true(atomic_load(&g.failed[i]));
	assert_true(taken >= 2);
	assert_true(t0 < SERVER_TIMEOUT / 1000.0 + 1.5);
	rogue_close(&g);
	free(buf);
}

/*
 * Strangers (no token) that take all 64 places and say nothing. Each is
 * dropped after 10 s, but may connect again at once: 64 connections every
 * 10 s, from anyone who reaches the port, would keep every honest importer
 * out. A newcomer must get a place while any is held by a peer that has not
 * presented a valid token (the oldest such gives way).
 */
static void test_server_strangers_give_way(void **state)
{
	uint8_t *buf = malloc(EXP_LEN);
	unsigned int evicted = 0;
	doca_error_t err;
	struct rogue g;
	double t0, end;

	(void)state;
	assert_non_null(buf);
	wait_server_empty();
	rogue_open(&g);
	for (unsigned int k = 0; k < MAX_PEERS; k++)
		(void)rogue_connect(&g, rw.d.net_port);
	end = now_s() + WAIT_MS / 1000.0;
	while (net_server_peers() < MAX_PEERS && now_s() < end)
		if (ucp_worker_progress(g.w) == 0)
			usleep(500);
	assert_int_equal(net_server_peers(), MAX_PEERS);
	t0 = now_s();
	err = honest_read(&rw, buf);
	t0 = now_s() - t0;
	end = now_s() + 1.0;
	while (now_s() < end)
		if (ucp_worker_progress(g.w) == 0)
			usleep(500);
	for (unsigned int k = 0; k < g.neps; k++)
		evicted += atomic_load(&g.failed[k]) != 0;
	print_message("  64 silent strangers: an honest import's read %s after %.0f ms; %u stranger(s) gave way\n",
		      doca_error_get_name(err), t0 * 1e3, evicted);
	assert_int_equal(err, DOCA_SUCCESS);
	assert_memory_equal(buf, rw.shadow, EXP_LEN);
	assert_int_equal(evicted, 1);
	rogue_close(&g);
	free(buf);
}

/* After every attack, an honest import through the same server works, both ways. */
static void test_server_honest_import_after(void **state)
{
	struct ferry_link_import *imp;
	struct ferry_link_view view;
	const struct ferry_access *a;
	uint8_t *buf = malloc(EXP_LEN);

	(void)state;
	assert_non_null(buf);
	wait_server_empty();
	assert_int_equal(ferry_link_import_open(rw.raw, rw.raw_len, 0, 0, CALL, &imp, &view), DOCA_SUCCESS);
	a = ferry_link_import_access(imp);
	assert_string_equal(a->ops->name, "net");
	assert_int_equal(a->ops->read(a, buf, (uint64_t)(uintptr_t)rw.base, EXP_LEN), DOCA_SUCCESS);
	assert_memory_equal(buf, rw.shadow, EXP_LEN);
	xp_fill(buf, EXP_LEN, 44);
	assert_int_equal(a->ops->write(a, (uint64_t)(uintptr_t)rw.base, buf, EXP_LEN), DOCA_SUCCESS);
	memcpy(rw.shadow, buf, EXP_LEN);
	region_check(&rw);
	ferry_link_import_close(imp);
	assert_int_equal(ferry_link_import_open(ro.raw, ro.raw_len, 0, 0, CALL, &imp, &view), DOCA_SUCCESS);
	a = ferry_link_import_access(imp);
	assert_int_equal(a->ops->read(a, buf, (uint64_t)(uintptr_t)ro.base, EXP_LEN), DOCA_SUCCESS);
	assert_memory_equal(buf, ro.shadow, EXP_LEN);
	assert_int_equal(a->ops->write(a, (uint64_t)(uintptr_t)ro.base, buf, 64), DOCA_ERROR_NOT_PERMITTED);
	ferry_link_import_close(imp);
	region_check(&ro);
	free(buf);
}

/* ================= b. a rogue exporter against an honest importer ================= */

enum lie {
	LIE_NONE = 0,
	LIE_STAT_RANGE,  /* the stat answers another length */
	LIE_STAT_ADDR,   /* ...another address */
	LIE_STAT_ACCESS, /* ...read-only for a read-write descriptor */
	LIE_STAT_SILENT, /* the stat is never answered */
	LIE_BAD_MAGIC,
	LIE_WRONG_ID,     /* a reply to an id never asked */
	LIE_SHORT_READ,   /* fewer bytes than asked */
	LIE_LONG_READ,    /* more bytes than asked (as many as the header says) */
	LIE_LEN_MISMATCH, /* the header says the bytes asked for, one byte less comes */
	LIE_TWICE,        /* every read answered twice */
	LIE_FREEZE,       /* the first read's reply started, then the server stops for 2 s */
	LIE_DATA_ON_FAIL,
	LIE_WRONG_OP,  /* a write's reply to a read */
	LIE_NOT_FOUND, /* the export is "gone" */
	LIE_ALIEN_AM,  /* messages of ids the importer has no handler for, then the truth */
	LIE_SILENT,    /* reads never answered */
	LIE_CLOSE,     /* the connection closed mid-read */
	LIE_TRICKLE,   /* reads never answered, but a stray message comes every 100 ms for 4 s */
	LIE_FAIL_AT,   /* a read at FAKE_ADDR + FAIL_OFF is refused (INVALID_VALUE), the others answered */
};

#define FAKE_MAX_EPS 8
#define FAKE_ADDR    0x7f0012340000ull
#define FAKE_LEN     (1u << 20)
#define FAIL_OFF     65536u

/* A request the fake received, kept until its thread answers outside the callback. */
struct fake_req {
	ucp_ep_h ep;
	struct net_req req;
	size_t data_len;
};

struct fake {
	pthread_t thr;
	ucp_context_h ctx;
	ucp_worker_h w;
	ucp_listener_h listener;
	uint16_t port;
	_Atomic int lie;
	_Atomic bool stop;
	bool running;               /* its thread started, not yet joined */
	_Atomic unsigned int reads; /* read requests seen */
	ucp_ep_h eps[FAKE_MAX_EPS];
	unsigned int neps;
	struct fake_req pending[16];
	unsigned int npending;
	ucs_status_ptr_t sends[64];
	bool used[64];       /* sends[k] and hdrs[k] belong to a send UCX still holds */
	ucp_ep_h trickle_ep; /* LIE_TRICKLE: where the stray messages go, and until when */
	double next_trickle, trickle_end;
	uint8_t hdrs[64][NET_REP_LEN];
	uint8_t data[NET_CHUNK_MAX + 64];
};

/* The one fake of a test: not on its stack, so that a failed test's teardown can still stop it. */
static struct fake the_fake;

static void fake_on_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	(void)arg;
	(void)ep;
	(void)status;
}

static void fake_on_conn(ucp_conn_request_h req, void *arg)
{
	struct fake *f = arg;
	ucp_ep_params_t ep;

	if (f->neps == FAKE_MAX_EPS) {
		(void)ucp_listener_reject(f->listener, req);
		return;
	}
	memset(&ep, 0, sizeof(ep));
	ep.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep.conn_request = req;
	ep.err_mode = UCP_ERR_HANDLING_MODE_PEER;
	ep.err_handler.cb = fake_on_ep_error;
	if (ucp_ep_create(f->w, &ep, &f->eps[f->neps]) == UCS_OK)
		f->neps++;
}

static ucs_status_t fake_on_request(void *arg, const void *header, size_t header_length, void *data, size_t length,
				    const ucp_am_recv_param_t *param)
{
	struct fake *f = arg;
	struct fake_req *p;
	const char *why;

	(void)data;
	if (f->npending == sizeof(f->pending) / sizeof(f->pending[0]) ||
	    (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) == 0)
		return UCS_OK;
	p = &f->pending[f->npending];
	/* The honest importer's requests: decoded with the codec, which is fuzzed apart. */
	if (net_req_decode(header, header_length, length, &p->req, &why) != DOCA_SUCCESS)
		return UCS_OK;
	p->ep = param->reply_ep;
	p->data_len = length;
	f->npending++;
	return UCS_OK; /* a rendezvous write's bytes are never fetched: UCX drops them */
}

static void fake_send(struct fake *f, ucp_ep_h ep, const struct net_rep *rep, size_t data_len)
{
	ucp_request_param_t prm = {.op_attr_mask = 0};
	ucs_status_ptr_t r;
	size_t k = 0;

	while (k < sizeof(f->sends) / sizeof(f->sends[0]) && f->used[k])
		k++;
	if (k == sizeof(f->sends) / sizeof(f->sends[0]))
		return;
	net_rep_encode(rep, f->hdrs[k]);
	if (atomic_load(&f->lie) == LIE_BAD_MAGIC && rep->op == NET_OP_READ)
		f->hdrs[k][0] = 'X';
	/* The header and the data stay where they are until UCX is done with them. */
	r = ucp_am_send_nbx(ep, NET_AM_REPLY, f->hdrs[k], NET_REP_LEN, f->data, data_len, &prm);
	if (UCS_PTR_IS_PTR(r)) {
		f->sends[k] = r;
		f->used[k] = true;
	}
}

/* Answer one request the way the lie says. */
static void fake_answer(struct fake *f, const struct fake_req *p)
{
	enum lie lie = (enum lie)atomic_load(&f->lie);
	struct net_rep rep = {.op = p->req.op, .id = p->req.id, .status = DOCA_SUCCESS};
	size_t data_len = 0;

	if (p->req.op == NET_OP_STAT) {
		rep.addr = FAKE_ADDR;
		rep.export_len = FAKE_LEN;
		rep.access = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
		if (lie == LIE_STAT_SILENT)
			return;
		if (lie == LIE_STAT_RANGE)
			rep.export_len = 2 * FAKE_LEN;
		if (lie == LIE_STAT_ADDR)
			rep.addr = FAKE_ADDR - 4096;
		if (lie == LIE_STAT_ACCESS)
			rep.access = DOCA_ACCESS_FLAG_PCI_READ_ONLY;
		fake_send(f, p->ep, &rep, 0);
		return;
	}
	if (p->req.op == NET_OP_READ) {
		atomic_fetch_add(&f->reads, 1);
		rep.len = p->req.len;
	}
	switch (lie) {
	case LIE_SILENT:
		return;
	case LIE_TRICKLE:
		f->trickle_ep = p->ep;
		f->next_trickle = now_s();
		f->trickle_end = now_s() + 4.0;
		return;
	case LIE_CLOSE: {
		ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};

		for (unsigned int i = 0; i < f->neps; i++) {
			if (f->eps[i] == p->ep) {
				(void)ucx_wait(f->w, ucp_ep_close_nbx(p->ep, &prm), WAIT_MS);
				f->eps[i] = f->eps[--f->neps];
				break;
			}
		}
		return;
	}
	case LIE_WRONG_ID:
		rep.id += 1000;
		break;
	case LIE_SHORT_READ:
		rep.len = p->req.op == NET_OP_READ ? p->req.len - 1 : 0;
		break;
	case LIE_LONG_READ:
		rep.len = p->req.op == NET_OP_READ ? p->req.len + 64 : 0;
		break;
	case LIE_LEN_MISMATCH:
		data_len = rep.len - 1;
		fake_send(f, p->ep, &rep, data_len);
		return;
	case LIE_TWICE:
		fake_send(f, p->ep, &rep, rep.len);
		break;
	case LIE_FREEZE:
		if (atomic_load(&f->reads) == 1) {
			fake_send(f, p->ep, &rep, rep.len);
			for (int k = 0; k < 3; k++)
				(void)ucp_worker_progress(f->w);
			usleep(2000000); /* the importer's fetch of those bytes waits on us */
			return;
		}
		break;
	case LIE_DATA_ON_FAIL:
		rep.status = DOCA_ERROR_INVALID_VALUE;
		rep.len = 64;
		break;
	case LIE_WRONG_OP:
		rep.op = p->req.op == NET_OP_READ ? NET_OP_WRITE : NET_OP_READ;
		rep.len = 0;
		break;
	case LIE_ALIEN_AM: {
		static const unsigned int ids[] = {NET_AM_REQUEST, 0, 255, 65535};
		ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_AM_SEND_FLAG_REPLY};

		for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
			ucp_request_param_t *pp = k % 2 == 0 ? &prm : &(ucp_request_param_t){.op_attr_mask = 0};

			(void)ucx_wait(f->w, ucp_am_send_nbx(p->ep, ids[k], f->hdrs[0], NET_REP_LEN, f->data, 64, pp),
				       WAIT_MS);
		}
		break;
	}
	case LIE_NOT_FOUND:
		rep.status = DOCA_ERROR_NOT_FOUND;
		rep.len = 0;
		break;
	case LIE_FAIL_AT:
		if (p->req.op == NET_OP_READ && p->req.addr == FAKE_ADDR + FAIL_OFF) {
			rep.status = DOCA_ERROR_INVALID_VALUE;
			rep.len = 0;
		}
		break;
	default:
		break;
	}
	data_len = rep.len;
	fake_send(f, p->ep, &rep, data_len);
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;

	while (!atomic_load(&f->stop)) {
		unsigned int n = ucp_worker_progress(f->w);

		for (unsigned int k = 0; k < f->npending; k++)
			fake_answer(f, &f->pending[k]);
		f->npending = 0;
		for (size_t k = 0; k < sizeof(f->sends) / sizeof(f->sends[0]); k++) {
			if (f->used[k] && ucp_request_check_status(f->sends[k]) != UCS_INPROGRESS) {
				ucp_request_free(f->sends[k]);
				f->used[k] = false;
			}
		}
		if (f->trickle_ep != NULL && now_s() >= f->next_trickle && now_s() < f->trickle_end) {
			static const uint8_t stray[16];
			ucp_request_param_t prm = {.op_attr_mask = 0};

			/* A message of an id the importer does not use: dropped there, but traffic all the same. */
			(void)ucx_wait(f->w, ucp_am_send_nbx(f->trickle_ep, 7, stray, sizeof(stray), NULL, 0, &prm),
				       WAIT_MS);
			f->next_trickle = now_s() + 0.1;
		}
		if (n == 0)
			usleep(200);
	}
	return NULL;
}

static void fake_start(struct fake *f, enum lie lie)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	ucp_listener_params_t lp;
	ucp_listener_attr_t la = {.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR};
	ucp_am_handler_param_t am = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
						   UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
				     .id = NET_AM_REQUEST,
				     .cb = fake_on_request,
				     .arg = f,
				     .flags = UCP_AM_FLAG_WHOLE_MSG};

	memset(f, 0, sizeof(*f));
	atomic_store(&f->lie, lie);
	xp_fill(f->data, sizeof(f->data), 77);
	ucx_open(&f->ctx, &f->w);
	assert_int_equal(ucp_worker_set_am_recv_handler(f->w, &am), UCS_OK);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(&lp, 0, sizeof(lp));
	lp.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
	lp.sockaddr.addr = (const struct sockaddr *)&sin;
	lp.sockaddr.addrlen = sizeof(sin);
	lp.conn_handler.cb = fake_on_conn;
	lp.conn_handler.arg = f;
	assert_int_equal(ucp_listener_create(f->w, &lp, &f->listener), UCS_OK);
	assert_int_equal(ucp_listener_query(f->listener, &la), UCS_OK);
	f->port = ntohs(((const struct sockaddr_in *)&la.sockaddr)->sin_port);
	assert_int_equal(pthread_create(&f->thr, NULL, fake_main, f), 0);
	f->running = true;
}

static void fake_stop(struct fake *f)
{
	atomic_store(&f->stop, true);
	assert_int_equal(pthread_join(f->thr, NULL), 0);
	f->running = false;
	for (size_t k = 0; k < sizeof(f->sends) / sizeof(f->sends[0]); k++)
		if (f->used[k])
			(void)ucx_wait(f->w, f->sends[k], WAIT_MS);
	for (unsigned int k = 0; k < f->neps; k++)
		ucx_ep_close(f->w, f->eps[k]);
	ucp_listener_destroy(f->listener);
	ucx_close(f->ctx, f->w);
}

/* A descriptor for the fake's export, with its network section pointing at the fake. */
static size_t forged_desc(const struct fake *f, uint32_t access, uint8_t *out)
{
	struct ferry_export_desc d = net_sample_desc();
	size_t n;

	d.net_ipv4[0] = 127;
	d.net_ipv4[1] = 0;
	d.net_ipv4[2] = 0;
	d.net_ipv4[3] = 1;
	d.net_port = f->port;
	d.addr = FAKE_ADDR;
	d.len = FAKE_LEN;
	d.access = access;
	n = ferry_export_desc_encode(&d, out, FERRY_DESC_MAX_LEN);
	assert_true(n > 0);
	return n;
}

static int lie_setup(void **state)
{
	(void)state;
	setenv("FERRY_LINK_NET_TIMEOUT_MS", "600", 1);
	ferry_test_log_reset();
	return 0;
}

static int lie_teardown(void **state)
{
	(void)state;
	if (the_fake.running) /* a test that failed midway */
		fake_stop(&the_fake);
	unsetenv("FERRY_LINK_NET_TIMEOUT_MS");
	return 0;
}

/*
 * Leave freed small chunks full of 0xcc for the next allocations of their
 * size: a table of a few handler entries that UCX leaves partly
 * uninitialised (before 1.17) then holds this garbage, not zeros.
 */
static void poison_small_chunks(void)
{
	void *chunks[64];

	for (size_t size = 24; size <= 192; size += 24) {
		for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
			chunks[k] = malloc(size);
			assert_non_null(chunks[k]);
			memset(chunks[k], CANARY_BYTE, size);
		}
		for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++)
			free(chunks[k]);
	}
}

/*
 * Start the fake lying @p lie and open a read-write import of it, which must
 * succeed (the lies below come at copies, not at the stat); its access path.
 */
static const struct ferry_access *import_fake(struct fake *f, enum lie lie, struct ferry_link_import **imp)
{
	uint8_t raw[FERRY_DESC_MAX_LEN];
	struct ferry_link_view view;

	fake_start(f, lie);
	size_t n = forged_desc(f, DOCA_ACCESS_FLAG_PCI_READ_WRITE, raw);
	if (lie == LIE_ALIEN_AM)
		poison_small_chunks();
	assert_int_equal(ferry_link_import_open(raw, n, 0, 0, CALL, imp, &view), DOCA_SUCCESS);
	return ferry_link_import_access(*imp);
}

/* An import the fake refuses to describe truthfully: refused with @p want, quickly. */
static void expect_import_refused(enum lie lie, uint32_t access, doca_error_t want, const char *logged)
{
	uint8_t raw[FERRY_DESC_MAX_LEN];
	struct ferry_link_import *imp = NULL;
	struct ferry_link_view view;
	struct fake *f = &the_fake;
	double t0;

	ferry_test_log_reset();
	fake_start(f, lie);
	size_t n = forged_desc(f, access, raw);
	t0 = now_s();
	assert_int_equal(ferry_link_import_open(raw, n, 0, 0, CALL, &imp, &view), want);
	assert_true(now_s() - t0 < 5.0);
	assert_null(imp);
	fake_stop(f);
	if (!ferry_test_log_has(logged))
		fail_msg("no log line with '%s'", logged);
}

static void test_honest_import_of_fake(void **state)
{
	uint8_t *buf = malloc(NET_CHUNK_MAX + 4096);
	struct ferry_link_import *imp;
	struct fake *f = &the_fake;

	(void)state;
	/* The fake answers truthfully: the honest importer reads what it sends. */
	const struct ferry_access *a = import_fake(f, LIE_NONE, &imp);
	assert_string_equal(a->ops->name, "net");
	assert_int_equal(a->ops->read(a, buf, FAKE_ADDR, 4096), DOCA_SUCCESS);
	assert_memory_equal(buf, f->data, 4096);
	assert_int_equal(a->ops->read(a, buf, FAKE_ADDR, NET_CHUNK_MAX + 4096), DOCA_SUCCESS);
	assert_memory_equal(buf, f->data, NET_CHUNK_MAX);
	ferry_link_import_close(imp);
	fake_stop(f);
	free(buf);
}

static void test_lying_stat(void **state)
{
	(void)state;
	expect_import_refused(LIE_STAT_RANGE, DOCA_ACCESS_FLAG_PCI_READ_WRITE, DOCA_ERROR_NOT_PERMITTED,
			      "the descriptor claims");
	expect_import_refused(LIE_STAT_ADDR, DOCA_ACCESS_FLAG_PCI_READ_WRITE, DOCA_ERROR_NOT_PERMITTED,
			      "the descriptor claims");
	expect_import_refused(LIE_STAT_ACCESS, DOCA_ACCESS_FLAG_PCI_READ_WRITE, DOCA_ERROR_NOT_PERMITTED,
			      "the descriptor claims");
	/* The server says read-write where the descriptor said read-only: also a lie, also refused. */
	expect_import_refused(LIE_NONE, DOCA_ACCESS_FLAG_PCI_READ_ONLY, DOCA_ERROR_NOT_PERMITTED,
			      "the descriptor claims");
}

static void test_silent_stat(void **state)
{
	double t0 = now_s();

	(void)state;
	expect_import_refused(LIE_STAT_SILENT, DOCA_ACCESS_FLAG_PCI_READ_WRITE, DOCA_ERROR_CONNECTION_ABORTED,
			      "did not answer");
	assert_true(now_s() - t0 >= 0.55); /* FERRY_LINK_NET_TIMEOUT_MS=600 */
}

/* Open an import of the fake, which lies at reads; read @p len into a buffer with canaries around it. */
static doca_error_t read_from_liar(enum lie lie, size_t len, double *secs, struct fake *f,
				   struct ferry_link_import **imp)
{
	uint8_t *buf = malloc(len + 2 * CANARY);
	doca_error_t err;
	double t0;

	assert_non_null(buf);
	memset(buf, CANARY_BYTE, len + 2 * CANARY);
	const struct ferry_access *a = import_fake(f, lie, imp);
	ferry_test_log_reset();
	t0 = now_s();
	err = a->ops->read(a, buf + CANARY, FAKE_ADDR + 4096, len);
	*secs = now_s() - t0;
	for (size_t i = 0; i < CANARY; i++) {
		assert_int_equal(buf[i], CANARY_BYTE);
		assert_int_equal(buf[CANARY + len + i], CANARY_BYTE);
	}
	free(buf);
	return err;
}

/* Every lie at a read: the read fails, logged, within the timeout, and the import is lost for good. */
static void test_lying_reads(void **state)
{
	static const struct {
		enum lie lie;
		const char *name;
		doca_error_t want;
		const char *logged;
	} lies[] = {
		{LIE_BAD_MAGIC, "bad magic", DOCA_ERROR_NOT_CONNECTED, "bad magic"},
		{LIE_WRONG_ID, "a reply to an id never asked", DOCA_ERROR_NOT_CONNECTED, "no request in flight"},
		{LIE_SHORT_READ, "one byte short", DOCA_ERROR_NOT_CONNECTED, "another length"},
		{LIE_LONG_READ, "64 bytes too many", DOCA_ERROR_NOT_CONNECTED, "sent a bad reply"},
		{LIE_LEN_MISMATCH, "a byte less data than its header", DOCA_ERROR_NOT_CONNECTED, "sent a bad reply"},
		{LIE_DATA_ON_FAIL, "data beside a failure", DOCA_ERROR_NOT_CONNECTED, "a failed request carries data"},
		{LIE_WRONG_OP, "a write's reply to a read", DOCA_ERROR_NOT_CONNECTED, "no request in flight"},
	};
	static const size_t lens[] = {100, 3 * NET_CHUNK_MAX + 5};
	unsigned int broken = 0;

	(void)state;
	setenv("FERRY_LINK_NET_TIMEOUT_MS", "3000", 1); /* a lie must end the copy long before this */
	for (size_t k = 0; k < sizeof(lies) / sizeof(lies[0]); k++) {
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			struct ferry_link_import *imp;
			struct fake *f = &the_fake;
			double s;
			doca_error_t err = read_from_liar(lies[k].lie, lens[l], &s, f, &imp);

			print_message("  %-32s %7zu bytes: %s after %.0f ms\n", lies[k].name, lens[l],
				      doca_error_get_name(err), s * 1e3);
			if (err != lies[k].want)
				fail_msg("%s: %s", lies[k].name, doca_error_get_name(err));
			/* Logged sparingly: the 1st, 2nd, 4th, 8th... broken exporter of the process. */
			broken++;
			if ((broken & (broken - 1)) == 0 && !ferry_test_log_has(lies[k].logged))
				fail_msg("%s: no log line with '%s'", lies[k].name, lies[k].logged);
			assert_true(s < 1.5); /* a bad reply ends the copy at once, not at the timeout */
			assert_false(ferry_link_import_alive(imp));
			assert_int_equal(ferry_link_import_liveness(imp), FERRY_LINK_EXITED);
			uint8_t one;
			const struct ferry_access *a = ferry_link_import_access(imp);
			assert_int_equal(a->ops->read(a, &one, FAKE_ADDR, 1), DOCA_ERROR_NOT_CONNECTED);
			ferry_link_import_close(imp);
			fake_stop(f);
		}
	}
}

/*
 * The exporter sends messages of active-message ids the importer never
 * registered (up to 65535, the largest), then answers truthfully: UCX drops
 * them (UCX before 1.21 would read outside its handler table for them; the
 * network path makes that table cover every id), and the read succeeds.
 */
static void test_alien_messages_to_importer(void **state)
{
	struct ferry_link_import *imp;
	struct fake *f = &the_fake;
	double s;

	(void)state;
	assert_int_equal(read_from_liar(LIE_ALIEN_AM, 100, &s, f, &imp), DOCA_SUCCESS);
	assert_true(ferry_link_import_alive(imp));
	ferry_link_import_close(imp);
	fake_stop(f);
}

/*
 * A run of reads (read_scatter) whose third piece the exporter refuses: the
 * run fails with the refusal, and the count of pieces that landed whole
 * names the caller's pieces, an empty one included: the first two.
 */
static void test_run_fails_midway(void **state)
{
	struct fake *f = &the_fake;
	struct ferry_link_import *imp;
	static uint8_t buf[4][100];
	struct ferry_access_rpiece rp[4] = {
		{buf[0], FAKE_ADDR, 0},              /* empty: lands at once */
		{buf[1], FAKE_ADDR + 4096, 100},     /* answered */
		{buf[2], FAKE_ADDR + FAIL_OFF, 100}, /* refused */
		{buf[3], FAKE_ADDR + 2 * FAIL_OFF, 100},
	};
	size_t whole = 99;

	(void)state;
	const struct ferry_access *a = import_fake(f, LIE_FAIL_AT, &imp);
	assert_int_equal(a->ops->read_scatter(a, rp, 4, &whole), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(whole, 2);
	assert_true(ferry_link_import_alive(imp)); /* a refusal is an answer: the import goes on */
	ferry_link_import_close(imp);
	fake_stop(f);
}

/* The server says the export is gone: the read fails and the import says revoked. */
static void test_revoked_by_server(void **state)
{
	struct ferry_link_import *imp;
	struct fake *f = &the_fake;
	double s;

	(void)state;
	assert_int_equal(read_from_liar(LIE_NOT_FOUND, 100, &s, f, &imp), DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(ferry_link_import_liveness(imp), FERRY_LINK_REVOKED);
	ferry_link_import_close(imp);
	fake_stop(f);
}

/* Silence: the read fails after FERRY_LINK_NET_TIMEOUT_MS (600), not never. */
static void test_silent_reads(void **state)
{
	struct ferry_link_import *imp;
	struct fake *f = &the_fake;
	double s;

	(void)state;
	assert_int_equal(read_from_liar(LIE_SILENT, 2 * NET_CHUNK_MAX, &s, f, &imp), DOCA_ERROR_NOT_CONNECTED);
	print_message("  silent exporter: failed after %.0f ms\n", s * 1e3);
	assert_true(s >= 0.55 && s < 5.0);
	assert_true(ferry_test_log_has("did not answer within"));
	assert_int_equal(ferry_link_import_liveness(imp), FERRY_LINK_EXITED);
	ferry_link_import_close(imp);
	fake_stop(f);
}

/*
 * An exporter that never answers but keeps the connection busy (a stray
 * message every 100 ms): traffic is not an answer, and the read must still
 * fail after FERRY_LINK_NET_TIMEOUT_MS (600), not when the exporter pleases.
 */
static void test_busy_but_silent(void **state)
{
	struct ferry_link_import *imp;
	struct fake *f = &the_fake;
	double s;

	(void)state;
	assert_int_equal(read_from_liar(LIE_TRICKLE, 2 * NET_CHUNK_MAX, &s, f, &imp), DOCA_ERROR_NOT_CONNECTED);
	print_message("  busy but silent exporter: failed after %.0f ms\n", s * 1e3);
	assert_true(s >= 0.55 && s < 2.0);
	assert_int_equal(ferry_link_import_liveness(imp), FERRY_LINK_EXITED);
	ferry_link_import_close(imp);
	fake_stop(f);
}

/* The connection closed mid-read: the read fails, before the timeout is all used. */
static void test_closed_mid_read(void **state)
{
	struct ferry_link_import *imp;
	struct fake *f = &the_fake;
	double s;

	(void)state;
	assert_int_equal(read_from_liar(LIE_CLOSE, 2 * NET_CHUNK_MAX, &s, f, &imp), DOCA_ERROR_NOT_CONNECTED);
	print_message("  closed mid-read: failed after %.0f ms\n", s * 1e3);
	assert_true(s < 5.0);
	assert_true(atomic_load(&f->reads) >= 1);
	assert_int_equal(ferry_link_import_liveness(imp), FERRY_LINK_EXITED);
	ferry_link_import_close(imp);
	fake_stop(f);
}

/* A lie at a write: it fails too (the write's source is only read). */
static void test_lying_write(void **state)
{
	uint8_t src[4096];
	struct ferry_link_import *imp;
	struct fake *f = &the_fake;

	(void)state;
	memset(src, 0x5a, sizeof(src));
	const struct ferry_access *a = import_fake(f, LIE_WRONG_OP, &imp);
	ferry_test_log_reset();
	assert_int_equal(a->ops->write(a, FAKE_ADDR, src, sizeof(src)), DOCA_ERROR_NOT_CONNECTED);
	assert_false(ferry_link_import_alive(imp));
	for (size_t i = 0; i < sizeof(src); i++)
		assert_int_equal(src[i], 0x5a);
	ferry_link_import_close(imp);
	fake_stop(f);
}

/*
 * Every read answered twice. The second answer of a finished read must never
 * land in the caller's buffer, which it may have reused: it ends the
 * connection instead. (UCX may hold the second answer until more bytes come,
 * so the import is lost at the latest during the next copies.)
 */
static void test_duplicate_replies(void **state)
{
	uint8_t a_buf[100], b_buf[100];
	struct ferry_link_import *imp;
	struct fake *f = &the_fake;
	doca_error_t err;
	int copies = 0;

	(void)state;
	const struct ferry_access *a = import_fake(f, LIE_TWICE, &imp);
	err = a->ops->read(a, a_buf, FAKE_ADDR, sizeof(a_buf));
	if (err == DOCA_SUCCESS)
		assert_memory_equal(a_buf, f->data, sizeof(a_buf));
	memset(a_buf, CANARY_BYTE, sizeof(a_buf));
	while (err == DOCA_SUCCESS && ++copies < 20) {
		usleep(20000);
		memset(b_buf, 0, sizeof(b_buf));
		err = a->ops->read(a, b_buf, FAKE_ADDR, sizeof(b_buf));
		if (err == DOCA_SUCCESS)
			assert_memory_equal(b_buf, f->data, sizeof(b_buf));
	}
	print_message("  answered twice: lost after %d copies\n", copies);
	assert_int_equal(err, DOCA_ERROR_NOT_CONNECTED);
	assert_false(ferry_link_import_alive(imp));
	assert_int_equal(a->ops->read(a, b_buf, FAKE_ADDR, sizeof(b_buf)), DOCA_ERROR_NOT_CONNECTED);
	for (size_t i = 0; i < sizeof(a_buf); i++)
		assert_int_equal(a_buf[i], CANARY_BYTE);
	assert_int_equal(ferry_link_import_liveness(imp), FERRY_LINK_EXITED);
	ferry_link_import_close(imp);
	fake_stop(f);
}

/*
 * The exporter starts a read's (rendezvous) reply and then stops for longer
 * than the timeout: the read fails after FERRY_LINK_NET_TIMEOUT_MS with the
 * fetch of those bytes still under way, and closing the import afterwards
 * frees everything (the ASan build checks) and writes nothing.
 */
static void test_frozen_mid_reply(void **state)
{
	struct ferry_link_import *imp;
	struct fake *f = &the_fake;
	char said[4096];
	double s;

	(void)state;
	assert_int_equal(read_from_liar(LIE_FREEZE, 3 * NET_CHUNK_MAX, &s, f, &imp), DOCA_ERROR_NOT_CONNECTED);
	print_message("  exporter frozen mid-reply: failed after %.0f ms\n", s * 1e3);
	assert_true(s >= 0.55 && s < 5.0);
	/* UCX names the requests a worker is destroyed with: there must be none. */
	output_capture_begin();
	ferry_link_import_close(imp);
	output_capture_end(said, sizeof(said));
	if (strstr(said, "was not returned") != NULL)
		fail_msg("the import's close left UCX requests behind: %s", said);
	fake_stop(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exports_offered),
		cmocka_unit_test(test_server_closes_malformed),
		cmocka_unit_test(test_server_ignores_strangers),
		cmocka_unit_test(test_server_refuses),
		cmocka_unit_test(test_server_revoked),
		cmocka_unit_test(test_server_bounds_inflight),
		cmocka_unit_test(test_server_abandoned_writes),
		cmocka_unit_test(test_server_bounds_peers),
		cmocka_unit_test(test_server_drops_tokenless),
		cmocka_unit_test(test_server_drops_stalled_readers),
		cmocka_unit_test(test_server_drops_partly_stalled_reader),
		cmocka_unit_test(test_server_strangers_give_way),
		cmocka_unit_test(test_server_honest_import_after),
		cmocka_unit_test_setup_teardown(test_honest_import_of_fake, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_lying_stat, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_silent_stat, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_lying_reads, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_alien_messages_to_importer, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_revoked_by_server, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_run_fails_midway, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_silent_reads, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_busy_but_silent, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_closed_mid_read, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_lying_write, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_replies, lie_setup, lie_teardown),
		cmocka_unit_test_setup_teardown(test_frozen_mid_reply, lie_setup, lie_teardown),
	};
	int rc;

	if (getenv("FERRY_LINK_NET") == NULL || strcmp(getenv("FERRY_LINK_NET"), "always") != 0) {
		fprintf(stderr, "run with FERRY_LINK_NET=always (meson test sets it)\n");
		return 1;
	}
	if (getenv("NET_ROGUE_FILTER") != NULL) /* one test or a few, by cmocka's pattern */
		cmocka_set_test_filter(getenv("NET_ROGUE_FILTER"));
	signal(SIGPIPE, SIG_IGN);
	alarm(240); /* nothing here may hang: the whole run is bounded */
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	if (rw.exp != NULL)
		ferry_link_export_close(rw.exp);
	if (ro.exp != NULL)
		ferry_link_export_close(ro.exp);
	free(rw.mem);
	free(ro.mem);
	return rc;
}
