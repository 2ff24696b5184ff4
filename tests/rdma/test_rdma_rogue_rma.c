/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_rogue_rma.c - a peer that speaks UCX directly, not through Ferry,
 * aims UCX's own one-sided operations (put, get, atomic add) at an RDMA
 * context's worker: at memory the program never exported, and at a range it
 * exported read-only. The rogue needs no secret for that: it packs a remote
 * key of its own memory and sends UCX's software put and get, which name a
 * raw address (UCX 1.13 emulates them with active messages over shared memory
 * and TCP, and the target's worker copies to or from that address, unchecked).
 *
 * The program's memory must come out of it untouched and unread: a context's
 * worker serves remote accesses only through Ferry's own protocol, which
 * checks each against an export the requester holds the key of.
 *
 * The rogue is a UCX worker of this process, connected by the worker address
 * inside the context's connection descriptor (doca_rdma_export), as in
 * test_rdma_stray_am.c.
 *
 * A second rogue speaks Ferry's own protocol (rdma_rma.c) and holds the
 * victim's descriptors, so it knows the connection's token and id and an
 * export's id and key: what it forges beyond that (a wrong key, a range
 * outside the export, an access the export or the context does not grant, a
 * request that breaks the protocol, a misaddressed request or answer) must
 * be refused with the right status or dropped, and leave the export, the
 * memory around it and a secret buffer untouched. A correct request of the
 * same rogue lands, so none of the refusals passes for want of a harness that
 * works. After each, the victim still serves its honest peer and completes
 * its own requests.
 *
 * Last, the victim is the requester: the rogue plays its peer (a raw UCX
 * worker behind a connection descriptor of its own making) and holds its read
 * unanswered, while a stranger who knows the victim's connection token and id
 * and the read's sequence number (predictable: the connection's first) forges
 * the answer from a worker of its own. The victim must take only the answer
 * that comes back on the endpoint its request left by.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ucp/api/ucp.h>

#include "common/ferry_bytes.h"
#include "rdma/rdma_desc_priv.h"
#include "rdma/rdma_priv.h"
#include "rdma_fixture.h"
#include "ucx_rogue.h"

#define SECRET_LEN 4096u
#define PROBE_LEN  64u
#define SETTLE_MS  500u

struct rogue {
	struct ucx_rogue u;
	ucp_mem_h memh;
	ucp_rkey_h rkey;
	uint8_t mem[PROBE_LEN];
};

static void rogue_open(struct rogue *r, const uint8_t *victim_addr)
{
	ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
				   .address = r->mem,
				   .length = sizeof(r->mem)};
	void *packed = NULL;
	size_t packed_len = 0;

	ucx_rogue_open(&r->u, UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_AMO64, victim_addr);
	/* A key of the rogue's own memory: UCX's software put and get carry the target address beside it. */
	assert_int_equal(ucp_mem_map(r->u.ctx, &mp, &r->memh), UCS_OK);
	assert_int_equal(ucp_rkey_pack(r->u.ctx, r->memh, &packed, &packed_len), UCS_OK);
	assert_int_equal(ucp_ep_rkey_unpack(r->u.ep, packed, &r->rkey), UCS_OK);
	ucp_rkey_buffer_release(packed);
}

static void rogue_close(struct rogue *r)
{
	ucp_rkey_destroy(r->rkey);
	ucp_mem_unmap(r->u.ctx, r->memh);
	ucx_rogue_close(&r->u);
}

/* Progress the rogue and the victim for @p ms: whatever the victim's worker does with the operations, it does now. */
static void settle(struct rogue *r, struct side *victim, unsigned int ms)
{
	uint64_t end = side_now_ms() + ms;

	while (side_now_ms() < end) {
		ucp_worker_progress(r->u.w);
		(void)doca_pe_progress(victim->pe);
	}
}

/* Fire one operation and let go of its request: a refused one may never complete. */
static void fire(ucs_status_ptr_t req)
{
	if (UCS_PTR_IS_PTR(req))
		ucp_request_free(req);
}

static void rogue_attack(struct rogue *r, struct side *victim, uint64_t secret, uint64_t readonly, uint8_t *stolen)
{
	static uint64_t one = 1;
	ucp_request_param_t p = {.op_attr_mask = 0};
	ucp_request_param_t amo = {.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
				   .datatype = ucp_dt_make_contig(sizeof(uint64_t))};

	memset(r->mem, 0xee, sizeof(r->mem));
	fire(ucp_put_nbx(r->u.ep, r->mem, PROBE_LEN, secret, r->rkey, &p));
	fire(ucp_put_nbx(r->u.ep, r->mem, PROBE_LEN, readonly, r->rkey, &p));
	fire(ucp_get_nbx(r->u.ep, stolen, PROBE_LEN, secret + PROBE_LEN, r->rkey, &p));
	fire(ucp_atomic_op_nbx(r->u.ep, UCP_ATOMIC_OP_ADD, &one, 1, secret + 2 * PROBE_LEN, r->rkey, &amo));
	fire(ucp_atomic_op_nbx(r->u.ep, UCP_ATOMIC_OP_ADD, &one, 1, readonly + PROBE_LEN, r->rkey, &amo));
	fire(ucp_ep_flush_nbx(r->u.ep, &p));
	settle(r, victim, SETTLE_MS);
}

static void test_raw_ucx_rma_refused(void **state)
{
	struct side a = {0}, b = {0};
	struct doca_rdma_connection *ca, *cb;
	struct ferry_rdma_conn_desc d;
	const void *da, *db, *mdesc;
	size_t la, lb, mlen;
	const char *why = NULL;
	uint8_t *secret = aligned_alloc(64, SECRET_LEN);
	uint8_t stolen[PROBE_LEN];
	struct rogue r;

	(void)state;
	assert_non_null(secret);
	pattern_fill(secret, SECRET_LEN, 41);
	/* The victim grants its peers everything; its memory is exported read-only. */
	assert_int_equal(
		side_init(&a, DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC,
			  DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ),
		DOCA_SUCCESS);
	assert_int_equal(side_init(&b, DOCA_ACCESS_FLAG_RDMA_READ, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), DOCA_SUCCESS);
	pattern_fill(a.mem, 2 * PROBE_LEN, 42);
	assert_int_equal(doca_mmap_export_rdma(a.mmap, a.dev, &mdesc, &mlen), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(a.rdma, &da, &la, &ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(b.rdma, &db, &lb, &cb), DOCA_SUCCESS);
	assert_int_equal(ferry_rdma_conn_desc_decode(da, la, &d, &why), DOCA_SUCCESS);

	memset(stolen, 0, sizeof(stolen));
	rogue_open(&r, d.addr);
	rogue_attack(&r, &a, (uint64_t)(uintptr_t)secret, (uint64_t)(uintptr_t)a.mem, stolen);
	rogue_close(&r);

	assert_true(pattern_check(secret, SECRET_LEN, 41));
	assert_true(pattern_check(a.mem, 2 * PROBE_LEN, 42));
	assert_false(pattern_check(stolen, PROBE_LEN, 41) && stolen[0] == secret[PROBE_LEN]);
	assert_memory_not_equal(stolen, secret + PROBE_LEN, PROBE_LEN);

	/* The victim goes on: its honest peer reads the read-only export. */
	assert_int_equal(doca_rdma_connect(a.rdma, db, lb, ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(b.rdma, da, la, cb), DOCA_SUCCESS);
	struct doca_mmap *remote = NULL;
	struct doca_rdma_task_read *rt;
	struct doca_buf *src, *dst = side_buf(&b, 0, PROBE_LEN, 0);
	union doca_data ud = {.u64 = 0};
	unsigned int ok = b.ok;

	assert_int_equal(doca_mmap_create_from_export(NULL, mdesc, mlen, b.dev, &remote), DOCA_SUCCESS);
	src = side_remote_buf(&b, remote, a.mem, PROBE_LEN, PROBE_LEN);
	assert_non_null(src);
	assert_int_equal(doca_rdma_task_read_allocate_init(b.rdma, cb, src, dst, ud, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_read_as_task(rt)), DOCA_SUCCESS);
	assert_true(side_wait(&b, &a, &b.ok, ok + 1, 5000));
	assert_true(pattern_check(b.mem, PROBE_LEN, 42));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	assert_true(side_stop(&a, &b));
	assert_true(side_stop(&b, &a));
	assert_int_equal(doca_mmap_destroy(remote), DOCA_SUCCESS);
	side_fini(&a);
	side_fini(&b);
	free(secret);
}

/* ---- a rogue that speaks Ferry's own one-sided protocol (rdma_rma.c) ---- */

#define WIN_LEN     4096u /* an export, with a guard of as many bytes on either side */
#define WAIT_MS     5000u
#define QUIET_MS    200u
#define MAX_ANSWERS 64u
#define ROGUE_TOKEN 0x5eed5eed5eed5eedull
#define SEED_LO     51u /* the guard below an export */
#define SEED_WIN    52u /* the export */
#define SEED_HI     53u /* the guard above it */
#define SEED_SECRET 54u
#define SEED_PEER   55u /* the honest peer's memory */
#define SEED_WRITE  56u /* bytes a request writes */

/*
 * An answer the victim sent the rogue (or a request, when the rogue plays the
 * victim's peer), with the first bytes of its data and the endpoint back.
 */
struct rogue_answer {
	struct rdma_rma_hdr h;
	size_t length;
	uint8_t data[256];
	ucp_ep_h reply_ep; /* NULL when it came without one */
};

struct rma_rogue {
	struct ucx_rogue u;
	struct rogue_answer got[MAX_ANSWERS];
	unsigned int n;   /* answers in got */
	unsigned int odd; /* messages of RDMA_AM_RMA_ID that were no answer's shape */
	uint64_t seq;     /* the next request's */
};

/* Everything the victim sends back on the rogue's reply endpoint is recorded, whatever it is. */
static ucs_status_t rogue_answer_cb(void *arg, const void *header, size_t header_length, void *data, size_t length,
				    const ucp_am_recv_param_t *param)
{
	struct rma_rogue *r = arg;
	struct rogue_answer *a;

	if (header_length != sizeof(a->h) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0 ||
	    r->n == MAX_ANSWERS) {
		r->odd++;
		return UCS_OK;
	}
	a = &r->got[r->n++];
	memcpy(&a->h, header, sizeof(a->h));
	a->length = length;
	memcpy(a->data, data, length < sizeof(a->data) ? length : sizeof(a->data));
	a->reply_ep = (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) != 0 ? param->reply_ep : NULL;
	return UCS_OK;
}

/* A rogue with an endpoint to @p victim_addr; with NULL, one that only the victim reaches (it plays its peer). */
static void rma_rogue_open(struct rma_rogue *r, const uint8_t *victim_addr)
{
	ucp_am_handler_param_t hp = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
						   UCP_AM_HANDLER_PARAM_FIELD_ARG,
				     .id = RDMA_AM_RMA_ID,
				     .cb = rogue_answer_cb,
				     .arg = r};

	memset(r, 0, sizeof(*r));
	ucx_rogue_open(&r->u, UCP_FEATURE_AM, victim_addr);
	assert_int_equal(ucp_worker_set_am_recv_handler(r->u.w, &hp), UCS_OK);
}

static void rma_progress(struct rma_rogue *r, struct side *victim)
{
	ucp_worker_progress(r->u.w);
	(void)doca_pe_progress(victim->pe);
}

/*
 * Send @p hdr_len bytes of header and @p len of data on @p ep, one of @p r's
 * worker, as Ferry's requests and answers go (eager, with a reply endpoint,
 * unless @p no_reply).
 */
static void rma_send_on(struct rma_rogue *r, ucp_ep_h ep, struct side *victim, const void *hdr, size_t hdr_len,
			const void *data, size_t len, bool no_reply)
{
	ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
				 .flags = UCP_AM_SEND_FLAG_EAGER | (no_reply ? 0 : UCP_AM_SEND_FLAG_REPLY)};
	ucs_status_ptr_t req = ucp_am_send_nbx(ep, RDMA_AM_RMA_ID, hdr, hdr_len, data, len, &p);
	uint64_t end = side_now_ms() + WAIT_MS;

	assert_false(UCS_PTR_IS_ERR(req));
	while (UCS_PTR_IS_PTR(req) && ucp_request_check_status(req) == UCS_INPROGRESS && side_now_ms() < end)
		rma_progress(r, victim);
	if (UCS_PTR_IS_PTR(req)) {
		assert_int_equal(ucp_request_check_status(req), UCS_OK);
		ucp_request_free(req);
	}
}

/* rma_send_on, on the rogue's own endpoint to the victim. */
static void rma_send_raw(struct rma_rogue *r, struct side *victim, const void *hdr, size_t hdr_len, const void *data,
			 size_t len, bool no_reply)
{
	rma_send_on(r, r->u.ep, victim, hdr, hdr_len, data, len, no_reply);
}

static void rma_send(struct rma_rogue *r, struct side *victim, const struct rdma_rma_hdr *h, const void *data,
		     size_t len)
{
	rma_send_raw(r, victim, h, sizeof(*h), data, len, false);
}

/* The answer to the request numbered @p seq, waited for; NULL when none comes. */
static const struct rogue_answer *rma_answer(struct rma_rogue *r, struct side *victim, uint64_t seq)
{
	uint64_t end = side_now_ms() + WAIT_MS;

	for (;;) {
		for (unsigned int i = 0; i < r->n; i++)
			if (r->got[i].h.seq == seq)
				return &r->got[i];
		if (side_now_ms() > end)
			return NULL;
		rma_progress(r, victim);
	}
}

/* Send @p h and return its answer's status; -1 when no answer came. */
static int rma_ask(struct rma_rogue *r, struct side *victim, const struct rdma_rma_hdr *h, const void *data, size_t len)
{
	const struct rogue_answer *a;

	rma_send(r, victim, h, data, len);
	a = rma_answer(r, victim, h->seq);
	if (a == NULL)
		return -1;
	/* An answer goes back to the requester, says it is one, and a refusal carries nothing. */
	assert_int_equal(a->h.op, RDMA_RMA_ANSWER);
	assert_int_equal(a->h.dst_token, h->src_token);
	assert_int_equal(a->h.dst_conn, h->src_conn);
	if (a->h.status != RDMA_RMA_OK)
		assert_int_equal(a->length, 0);
	return a->h.status;
}

/* Progress for QUIET_MS: the victim must send nothing back. */
static void rma_expect_silence(struct rma_rogue *r, struct side *victim)
{
	unsigned int n = r->n, odd = r->odd;
	uint64_t end = side_now_ms() + QUIET_MS;

	while (side_now_ms() < end)
		rma_progress(r, victim);
	assert_int_equal(r->n, n);
	assert_int_equal(r->odd, odd);
}

/* An export of WIN_LEN bytes in the middle of a buffer, its neighbours guards. */
struct window {
	uint8_t *buf; /* guard, export, guard */
	struct doca_mmap *mmap;
	uint64_t id, key, base;
	const void *desc;
	size_t desc_len;
};

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void window_fill(struct window *w)
{
	pattern_fill(w->buf, WIN_LEN, SEED_LO);
	pattern_fill(w->buf + WIN_LEN, WIN_LEN, SEED_WIN);
	pattern_fill(w->buf + 2 * WIN_LEN, WIN_LEN, SEED_HI);
}

static bool window_intact(const struct window *w)
{
	return pattern_check(w->buf, WIN_LEN, SEED_LO) && pattern_check(w->buf + WIN_LEN, WIN_LEN, SEED_WIN) &&
	       pattern_check(w->buf + 2 * WIN_LEN, WIN_LEN, SEED_HI);
}

/* Export the window's middle with @p access (DOCA_ACCESS_FLAG_RDMA_* bits); its id and key from the descriptor. */
static void window_open(struct window *w, struct doca_dev *dev, uint32_t access)
{
	struct ferry_rdma_mem_desc d;
	const char *why = NULL;

	memset(w, 0, sizeof(*w));
	w->buf = aligned_alloc(4096, 3 * WIN_LEN);
	assert_non_null(w->buf);
	window_fill(w);
	assert_int_equal(doca_mmap_create(&w->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(w->mmap, w->buf + WIN_LEN, WIN_LEN), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(w->mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | access), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(w->mmap, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(w->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(w->mmap, dev, &w->desc, &w->desc_len), DOCA_SUCCESS);
	assert_int_equal(ferry_rdma_mem_desc_decode(w->desc, w->desc_len, &d, &why), DOCA_SUCCESS);
	assert_int_equal(d.kind, FERRY_RDMA_MEM_KIND_KEY);
	assert_int_equal(d.body_len, FERRY_RDMA_MEM_KEY_LEN);
	assert_int_equal(d.addr, (uint64_t)(uintptr_t)(w->buf + WIN_LEN));
	assert_int_equal(d.len, WIN_LEN);
	w->base = d.addr;
	w->id = le64(d.body);
	w->key = le64(d.body + 8);
}

static void window_close(struct window *w)
{
	assert_int_equal(doca_mmap_stop(w->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(w->mmap), DOCA_SUCCESS);
	free(w->buf);
}

/* A victim (a), its honest peer (b), an export of the victim's, a secret of its outside any export, the rogue. */
struct stage {
	struct side a, b;
	struct doca_rdma_connection *ca, *cb;
	const void *da, *db, *bdesc;
	size_t la, lb, blen;
	uint64_t token; /* the victim connection's, from its descriptor */
	uint32_t conn_id;
	struct window rw; /* read, write and atomics */
	uint8_t *secret;
	struct rma_rogue r;
};

#define RDMA_ALL (DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC)

/* @p victim_perm: the victim context's permissions. */
static void stage_open(struct stage *s, uint32_t victim_perm)
{
	struct ferry_rdma_conn_desc d;
	const char *why = NULL;

	memset(s, 0, sizeof(*s));
	s->secret = aligned_alloc(64, SECRET_LEN);
	assert_non_null(s->secret);
	pattern_fill(s->secret, SECRET_LEN, SEED_SECRET);
	assert_int_equal(side_init(&s->a, victim_perm, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | RDMA_ALL), DOCA_SUCCESS);
	assert_int_equal(side_init(&s->b, RDMA_ALL, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | RDMA_ALL), DOCA_SUCCESS);
	pattern_fill(s->b.mem, PROBE_LEN, SEED_PEER);
	assert_int_equal(doca_mmap_export_rdma(s->b.mmap, s->b.dev, &s->bdesc, &s->blen), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(s->a.rdma, &s->da, &s->la, &s->ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(s->b.rdma, &s->db, &s->lb, &s->cb), DOCA_SUCCESS);
	assert_int_equal(ferry_rdma_conn_desc_decode(s->da, s->la, &d, &why), DOCA_SUCCESS);
	s->token = d.token;
	s->conn_id = d.conn_id;
	window_open(&s->rw, s->a.dev, RDMA_ALL);
	rma_rogue_open(&s->r, d.addr);
}

static void stage_connect(struct stage *s)
{
	assert_int_equal(doca_rdma_connect(s->a.rdma, s->db, s->lb, s->ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(s->b.rdma, s->da, s->la, s->cb), DOCA_SUCCESS);
}

/* Nothing the rogue did reached memory: the export and its guards, the secret. */
static void stage_intact(const struct stage *s)
{
	assert_true(window_intact(&s->rw));
	assert_true(pattern_check(s->secret, SECRET_LEN, SEED_SECRET));
}

static void stage_close(struct stage *s)
{
	ucx_rogue_close(&s->r.u);
	assert_true(side_stop(&s->a, &s->b));
	assert_true(side_stop(&s->b, &s->a));
	window_close(&s->rw);
	side_fini(&s->a);
	side_fini(&s->b);
	free(s->secret);
}

/* A correct request of the rogue's to the victim's connection and the rw export (answer wanted). */
static struct rdma_rma_hdr forge(struct stage *s, uint16_t op, uint64_t offset, uint32_t len)
{
	struct rdma_rma_hdr h;

	memset(&h, 0, sizeof(h));
	h.dst_token = s->token;
	h.dst_conn = s->conn_id;
	h.src_token = ROGUE_TOKEN;
	h.src_conn = 7;
	h.seq = s->r.seq++;
	h.export_id = s->rw.id;
	h.key = s->rw.key;
	h.addr = s->rw.base + offset;
	h.len = len;
	h.op = op;
	h.flags = RDMA_RMA_F_ANSWER;
	return h;
}

/* The data of the rogue's requests: @p len bytes of SEED_WRITE, or none. */
static const void *write_bytes(size_t len)
{
	static uint8_t bytes[RDMA_RMA_MAX_CHUNK + 64];

	assert_true(len <= sizeof(bytes));
	pattern_fill(bytes, sizeof(bytes), SEED_WRITE);
	return len != 0 ? bytes : NULL;
}

/* Ask @p h with @p len bytes of data: its status must be @p want. */
static void expect(struct stage *s, struct rdma_rma_hdr h, size_t len, int want)
{
	assert_int_equal(rma_ask(&s->r, &s->a, &h, write_bytes(len), len), want);
}

/* Send @p h with @p len bytes of data: no answer comes (none asked, or the request is dropped). */
static void post(struct stage *s, struct rdma_rma_hdr h, size_t len)
{
	rma_send(&s->r, &s->a, &h, write_bytes(len), len);
	rma_expect_silence(&s->r, &s->a);
}

/* A request that is dropped: no answer, and the next correct one is answered (it arrived, in order, behind it). */
static void expect_dropped(struct stage *s, const void *hdr, size_t hdr_len, bool no_reply)
{
	rma_send_raw(&s->r, &s->a, hdr, hdr_len, NULL, 0, no_reply);
	rma_expect_silence(&s->r, &s->a);
	expect(s, forge(s, RDMA_RMA_READ, 0, 8), 0, RDMA_RMA_OK);
}

/* Submit @p task of side @p s (@p other progresses too) and wait for it: it must succeed. */
static void run_task(struct side *s, struct side *other, struct doca_task *task)
{
	unsigned int done = s->ok + s->failed;
	uint64_t end = side_now_ms() + WAIT_MS;

	assert_int_equal(doca_task_submit(task), DOCA_SUCCESS);
	while (s->ok + s->failed == done && side_now_ms() < end) {
		(void)doca_pe_progress(s->pe);
		(void)doca_pe_progress(other->pe);
	}
	assert_int_equal(s->ok + s->failed, done + 1);
	/* The status by name: a refusal the honest request inherited shows here. */
	assert_string_equal(doca_error_get_name(s->last_status), doca_error_get_name(DOCA_SUCCESS));
	doca_task_free(task);
}

/* The honest side goes on: b writes and reads the victim's export (unless the victim allows no write), a reads b. */
static void honest_ops(struct stage *s, bool victim_writable)
{
	struct doca_mmap *rw = NULL, *peer = NULL;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rt;
	struct doca_buf *src, *dst;
	union doca_data ud = {.u64 = 0};
	uint8_t *at_victim = s->rw.buf + WIN_LEN + PROBE_LEN;

	assert_int_equal(doca_mmap_create_from_export(NULL, s->rw.desc, s->rw.desc_len, s->b.dev, &rw), DOCA_SUCCESS);
	if (victim_writable) {
		pattern_fill(s->b.mem + 2 * PROBE_LEN, PROBE_LEN, SEED_WRITE);
		src = side_buf(&s->b, 2 * PROBE_LEN, PROBE_LEN, PROBE_LEN);
		dst = side_remote_buf(&s->b, rw, at_victim, PROBE_LEN, 0);
		assert_non_null(src);
		assert_non_null(dst);
		assert_int_equal(doca_rdma_task_write_allocate_init(s->b.rdma, s->cb, src, dst, ud, &wt), DOCA_SUCCESS);
		run_task(&s->b, &s->a, doca_rdma_task_write_as_task(wt));
		assert_true(pattern_check(at_victim, PROBE_LEN, SEED_WRITE));
		doca_buf_dec_refcount(src, NULL);
		doca_buf_dec_refcount(dst, NULL);
		window_fill(&s->rw);
	}
	src = side_remote_buf(&s->b, rw, at_victim, PROBE_LEN, PROBE_LEN);
	dst = side_buf(&s->b, 3 * PROBE_LEN, PROBE_LEN, 0);
	assert_non_null(src);
	assert_non_null(dst);
	assert_int_equal(doca_rdma_task_read_allocate_init(s->b.rdma, s->cb, src, dst, ud, &rt), DOCA_SUCCESS);
	run_task(&s->b, &s->a, doca_rdma_task_read_as_task(rt));
	assert_memory_equal(s->b.mem + 3 * PROBE_LEN, at_victim, PROBE_LEN);
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);

	/* The victim's own request: its answer must find it, whatever answers were forged before. */
	assert_int_equal(doca_mmap_create_from_export(NULL, s->bdesc, s->blen, s->a.dev, &peer), DOCA_SUCCESS);
	src = side_remote_buf(&s->a, peer, s->b.mem, PROBE_LEN, PROBE_LEN);
	dst = side_buf(&s->a, 0, PROBE_LEN, 0);
	assert_non_null(src);
	assert_non_null(dst);
	memset(s->a.mem, 0, PROBE_LEN);
	assert_int_equal(doca_rdma_task_read_allocate_init(s->a.rdma, s->ca, src, dst, ud, &rt), DOCA_SUCCESS);
	run_task(&s->a, &s->b, doca_rdma_task_read_as_task(rt));
	assert_true(pattern_check(s->a.mem, PROBE_LEN, SEED_PEER));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	assert_int_equal(doca_mmap_destroy(rw), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(peer), DOCA_SUCCESS);
}

/* The harness works: each operation, correct, lands or reads and is answered OK. */
static void test_ferry_rma_control(void **state)
{
	struct stage s;
	struct rdma_rma_hdr h;
	const struct rogue_answer *a;
	uint64_t word;

	(void)state;
	stage_open(&s, RDMA_ALL);
	expect(&s, forge(&s, RDMA_RMA_WRITE, 2 * PROBE_LEN, PROBE_LEN), PROBE_LEN, RDMA_RMA_OK);
	assert_true(pattern_check(s.rw.buf + WIN_LEN + 2 * PROBE_LEN, PROBE_LEN, SEED_WRITE));
	window_fill(&s.rw);

	h = forge(&s, RDMA_RMA_READ, PROBE_LEN, PROBE_LEN);
	assert_int_equal(rma_ask(&s.r, &s.a, &h, NULL, 0), RDMA_RMA_OK);
	a = rma_answer(&s.r, &s.a, h.seq);
	assert_int_equal(a->length, PROBE_LEN + sizeof(uint64_t));
	assert_memory_equal(a->data, s.rw.buf + WIN_LEN + PROBE_LEN, PROBE_LEN);
	memcpy(&word, a->data + PROBE_LEN, sizeof(word));
	assert_int_equal(word, RDMA_RMA_OK);

	memcpy(&word, s.rw.buf + WIN_LEN + 3 * PROBE_LEN, sizeof(word));
	h = forge(&s, RDMA_RMA_FADD, 3 * PROBE_LEN, 8);
	h.operand = 5;
	assert_int_equal(rma_ask(&s.r, &s.a, &h, NULL, 0), RDMA_RMA_OK);
	assert_int_equal(rma_answer(&s.r, &s.a, h.seq)->h.operand, word);
	h = forge(&s, RDMA_RMA_CSWAP, 3 * PROBE_LEN, 8);
	h.compare = word + 5;
	h.operand = word;
	assert_int_equal(rma_ask(&s.r, &s.a, &h, NULL, 0), RDMA_RMA_OK);
	assert_int_equal(rma_answer(&s.r, &s.a, h.seq)->h.operand, word + 5);
	stage_intact(&s); /* the compare-and-swap put the word back */

	stage_connect(&s);
	honest_ops(&s, true);
	stage_close(&s);
}

/* Cases 1-3: a wrong key, an unknown export, a range outside the export: NO_EXPORT, nothing touched. */
static void test_ferry_rma_no_export(void **state)
{
	static const uint16_t ops[] = {RDMA_RMA_WRITE, RDMA_RMA_READ, RDMA_RMA_CSWAP, RDMA_RMA_FADD};
	struct stage s;
	struct rdma_rma_hdr h;

	(void)state;
	stage_open(&s, RDMA_ALL);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		uint32_t len = ops[i] == RDMA_RMA_WRITE || ops[i] == RDMA_RMA_READ ? PROBE_LEN : 8;
		size_t data = ops[i] == RDMA_RMA_WRITE ? len : 0;

		h = forge(&s, ops[i], PROBE_LEN, len);
		h.key++;
		h.operand = 1;
		expect(&s, h, data, RDMA_RMA_NO_EXPORT);
		h = forge(&s, ops[i], PROBE_LEN, len);
		h.key ^= 1ull << 63;
		h.operand = 1;
		expect(&s, h, data, RDMA_RMA_NO_EXPORT);
		h = forge(&s, ops[i], PROBE_LEN, len);
		h.export_id = ~s.rw.id;
		h.operand = 1;
		expect(&s, h, data, RDMA_RMA_NO_EXPORT);
		h = forge(&s, ops[i], PROBE_LEN, len);
		h.export_id = 0;
		h.operand = 1;
		expect(&s, h, data, RDMA_RMA_NO_EXPORT);
		/* Just below the export, straddling its end, just past it. */
		h = forge(&s, ops[i], 0, len);
		h.addr -= len;
		h.operand = 1;
		expect(&s, h, data, RDMA_RMA_NO_EXPORT);
		h = forge(&s, ops[i], WIN_LEN - 8, len);
		h.operand = 1;
		if (len > 8)
			expect(&s, h, data, RDMA_RMA_NO_EXPORT);
		h = forge(&s, ops[i], WIN_LEN, len);
		h.operand = 1;
		expect(&s, h, data, RDMA_RMA_NO_EXPORT);
		/* The secret, by its own address, with the export's right key. */
		h = forge(&s, ops[i], 0, len);
		h.addr = (uint64_t)(uintptr_t)s.secret;
		h.operand = 1;
		expect(&s, h, data, RDMA_RMA_NO_EXPORT);
		/* A range whose end wraps around 2^64. */
		h = forge(&s, ops[i], 0, len);
		h.addr = UINT64_MAX - 7;
		h.operand = 1;
		expect(&s, h, data, RDMA_RMA_NO_EXPORT);
		stage_intact(&s);
	}
	/* The largest request, starting inside, ends far past the export. */
	expect(&s, forge(&s, RDMA_RMA_WRITE, 0, RDMA_RMA_MAX_CHUNK), RDMA_RMA_MAX_CHUNK, RDMA_RMA_NO_EXPORT);
	expect(&s, forge(&s, RDMA_RMA_READ, WIN_LEN - PROBE_LEN, RDMA_RMA_MAX_CHUNK), 0, RDMA_RMA_NO_EXPORT);
	stage_intact(&s);
	stage_connect(&s);
	honest_ops(&s, true);
	stage_close(&s);
}

/* Ask the export @p w: a request of the rogue's, otherwise correct. */
static struct rdma_rma_hdr forge_at(struct stage *s, const struct window *w, uint16_t op, uint32_t len)
{
	struct rdma_rma_hdr h = forge(s, op, PROBE_LEN, len);

	h.export_id = w->id;
	h.key = w->key;
	h.addr = w->base + PROBE_LEN;
	h.operand = 1;
	return h;
}

/* Case 4: an access the export does not grant: NOT_PERMITTED; what it grants is served. */
static void test_ferry_rma_export_access(void **state)
{
	struct window ro, noatomic;
	struct stage s;

	(void)state;
	stage_open(&s, RDMA_ALL);
	window_open(&ro, s.a.dev, DOCA_ACCESS_FLAG_RDMA_READ);
	window_open(&noatomic, s.a.dev, DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE);
	expect(&s, forge_at(&s, &ro, RDMA_RMA_WRITE, PROBE_LEN), PROBE_LEN, RDMA_RMA_NOT_PERMITTED);
	expect(&s, forge_at(&s, &ro, RDMA_RMA_FADD, 8), 0, RDMA_RMA_NOT_PERMITTED);
	expect(&s, forge_at(&s, &ro, RDMA_RMA_CSWAP, 8), 0, RDMA_RMA_NOT_PERMITTED);
	expect(&s, forge_at(&s, &noatomic, RDMA_RMA_FADD, 8), 0, RDMA_RMA_NOT_PERMITTED);
	expect(&s, forge_at(&s, &noatomic, RDMA_RMA_CSWAP, 8), 0, RDMA_RMA_NOT_PERMITTED);
	assert_true(window_intact(&ro));
	assert_true(window_intact(&noatomic));
	/* The same exports, for what they grant. */
	expect(&s, forge_at(&s, &ro, RDMA_RMA_READ, PROBE_LEN), 0, RDMA_RMA_OK);
	expect(&s, forge_at(&s, &noatomic, RDMA_RMA_WRITE, PROBE_LEN), PROBE_LEN, RDMA_RMA_OK);
	assert_true(pattern_check(noatomic.buf + WIN_LEN + PROBE_LEN, PROBE_LEN, SEED_WRITE));
	stage_intact(&s);
	window_close(&ro);
	window_close(&noatomic);
	stage_connect(&s);
	honest_ops(&s, true);
	stage_close(&s);
}

/* Case 5: the victim's context grants no write, though the export does: NOT_PERMITTED. */
static void test_ferry_rma_context_access(void **state)
{
	struct stage s;

	(void)state;
	stage_open(&s, DOCA_ACCESS_FLAG_RDMA_READ);
	expect(&s, forge(&s, RDMA_RMA_WRITE, PROBE_LEN, PROBE_LEN), PROBE_LEN, RDMA_RMA_NOT_PERMITTED);
	expect(&s, forge(&s, RDMA_RMA_FADD, PROBE_LEN, 8), 0, RDMA_RMA_NOT_PERMITTED);
	expect(&s, forge(&s, RDMA_RMA_CSWAP, PROBE_LEN, 8), 0, RDMA_RMA_NOT_PERMITTED);
	expect(&s, forge(&s, RDMA_RMA_READ, PROBE_LEN, PROBE_LEN), 0, RDMA_RMA_OK);
	stage_intact(&s);
	stage_connect(&s);
	honest_ops(&s, false);
	stage_close(&s);
}

/* Case 6: requests that break the protocol, with the right key inside the export: MALFORMED. */
static void test_ferry_rma_malformed(void **state)
{
	struct stage s;
	struct rdma_rma_hdr h;

	(void)state;
	stage_open(&s, RDMA_ALL);
	expect(&s, forge(&s, RDMA_RMA_WRITE, 0, 0), 0, RDMA_RMA_MALFORMED);
	expect(&s, forge(&s, RDMA_RMA_READ, 0, 0), 0, RDMA_RMA_MALFORMED);
	expect(&s, forge(&s, RDMA_RMA_READ, 0, RDMA_RMA_MAX_CHUNK + 1), 0, RDMA_RMA_MALFORMED);
	expect(&s, forge(&s, RDMA_RMA_WRITE, 0, RDMA_RMA_MAX_CHUNK + 1), RDMA_RMA_MAX_CHUNK + 1, RDMA_RMA_MALFORMED);
	/* A write's data shorter or longer than it says. */
	expect(&s, forge(&s, RDMA_RMA_WRITE, 0, PROBE_LEN), PROBE_LEN / 2, RDMA_RMA_MALFORMED);
	expect(&s, forge(&s, RDMA_RMA_WRITE, 0, PROBE_LEN / 2), PROBE_LEN, RDMA_RMA_MALFORMED);
	expect(&s, forge(&s, RDMA_RMA_WRITE, 0, PROBE_LEN), 0, RDMA_RMA_MALFORMED);
	/* Data on what carries none. */
	expect(&s, forge(&s, RDMA_RMA_READ, 0, PROBE_LEN), 8, RDMA_RMA_MALFORMED);
	expect(&s, forge(&s, RDMA_RMA_FADD, 0, 8), 8, RDMA_RMA_MALFORMED);
	/* An atomic that is not one aligned word. */
	expect(&s, forge(&s, RDMA_RMA_CSWAP, 0, 16), 0, RDMA_RMA_MALFORMED);
	expect(&s, forge(&s, RDMA_RMA_FADD, 0, 4), 0, RDMA_RMA_MALFORMED);
	expect(&s, forge(&s, RDMA_RMA_FADD, 4, 8), 0, RDMA_RMA_MALFORMED);
	expect(&s, forge(&s, RDMA_RMA_CSWAP, 1, 8), 0, RDMA_RMA_MALFORMED);
	/* Operations that do not exist. */
	expect(&s, forge(&s, 77, 0, 8), 0, RDMA_RMA_MALFORMED);
	expect(&s, forge(&s, 0, 0, 8), 0, RDMA_RMA_MALFORMED);
	/* Fields a request keeps zero; flags it does not know. */
	h = forge(&s, RDMA_RMA_WRITE, 0, PROBE_LEN);
	h.status = RDMA_RMA_NO_EXPORT;
	expect(&s, h, PROBE_LEN, RDMA_RMA_MALFORMED);
	h = forge(&s, RDMA_RMA_WRITE, 0, PROBE_LEN);
	h.reserved = 1;
	expect(&s, h, PROBE_LEN, RDMA_RMA_MALFORMED);
	h = forge(&s, RDMA_RMA_WRITE, 0, PROBE_LEN);
	h.flags |= 2;
	expect(&s, h, PROBE_LEN, RDMA_RMA_MALFORMED);
	h = forge(&s, RDMA_RMA_WRITE, 0, PROBE_LEN);
	h.flags |= 1u << 31;
	expect(&s, h, PROBE_LEN, RDMA_RMA_MALFORMED);
	stage_intact(&s);
	stage_connect(&s);
	honest_ops(&s, true);
	stage_close(&s);
}

/*
 * Answers the victim never asked for, numbered @p seq to @p seq + 2, the
 * shapes of a read's, a write's and an atomic's: dropped, without a word.
 */
static void forge_answers(struct stage *s, uint64_t seq)
{
	uint8_t bytes[PROBE_LEN + sizeof(uint64_t)];
	struct rdma_rma_hdr h;

	memset(bytes, 0xee, sizeof(bytes));
	for (unsigned int i = 0; i < 3; i++) {
		memset(&h, 0, sizeof(h));
		h.dst_token = s->token;
		h.dst_conn = s->conn_id;
		h.seq = seq + i;
		h.op = RDMA_RMA_ANSWER;
		h.len = i == 0 ? PROBE_LEN : 0;
		h.operand = 0xeeeeeeeeu;
		rma_send_raw(&s->r, &s->a, &h, sizeof(h), i == 0 ? bytes : NULL, i == 0 ? sizeof(bytes) : 0, false);
	}
	rma_expect_silence(&s->r, &s->a);
	stage_intact(s);
}

/* Cases 7-9: misaddressed requests, a header of the wrong size, forged answers: dropped without a word. */
static void test_ferry_rma_dropped(void **state)
{
	uint8_t wide[sizeof(struct rdma_rma_hdr) + 8];
	struct stage s;
	struct rdma_rma_hdr h;

	(void)state;
	stage_open(&s, RDMA_ALL);
	h = forge(&s, RDMA_RMA_FADD, PROBE_LEN, 8);
	h.operand = 1;
	h.dst_token ^= 1;
	expect_dropped(&s, &h, sizeof(h), false);
	h.dst_token = s.token;
	h.dst_conn = s.conn_id + 1;
	expect_dropped(&s, &h, sizeof(h), false);
	h.dst_conn = UINT32_MAX;
	expect_dropped(&s, &h, sizeof(h), false);
	/* Correct but for the reply endpoint the answer would go on. */
	h.dst_conn = s.conn_id;
	expect_dropped(&s, &h, sizeof(h), true);
	/* A header cut short, or too long. */
	expect_dropped(&s, &h, 40, false);
	memset(wide, 0, sizeof(wide));
	memcpy(wide, &h, sizeof(h));
	expect_dropped(&s, wide, sizeof(wide), false);
	stage_intact(&s);
	/* Answers before the victim ever sent a request on the connection. */
	forge_answers(&s, 0);

	/* Connected, the connection takes requests from its peer only. */
	stage_connect(&s);
	honest_ops(&s, true);
	h = forge(&s, RDMA_RMA_FADD, PROBE_LEN, 8);
	h.operand = 1;
	post(&s, h, 0);
	stage_intact(&s);

	/* Answers to requests not made yet (the victim's next seq among them) or long ago. */
	forge_answers(&s, 1);
	forge_answers(&s, 1000);
	assert_int_equal(s.a.failed, 0);
	honest_ops(&s, true);
	stage_close(&s);
}

/* A write's request that asks no answer (one of a write's first ones) and is refused: a wrong key. */
static void leave_refusal(struct stage *s)
{
	struct rdma_rma_hdr h = forge(s, RDMA_RMA_WRITE, 0, PROBE_LEN);

	h.key++;
	h.flags = 0;
	post(s, h, PROBE_LEN);
}

/* Case 10: a write's request refused without an answer: the next answer of the connection carries that refusal, once. */
static void test_ferry_rma_refusal_kept(void **state)
{
	struct stage s;

	(void)state;
	stage_open(&s, RDMA_ALL);
	leave_refusal(&s);
	/* Its bytes, sent now, land: the request is served, and answered with the refusal before it. */
	expect(&s, forge(&s, RDMA_RMA_WRITE, 2 * PROBE_LEN, PROBE_LEN), PROBE_LEN, RDMA_RMA_NO_EXPORT);
	assert_true(pattern_check(s.rw.buf + WIN_LEN, PROBE_LEN, SEED_WIN));
	assert_true(pattern_check(s.rw.buf + WIN_LEN + 2 * PROBE_LEN, PROBE_LEN, SEED_WRITE));
	window_fill(&s.rw);
	expect(&s, forge(&s, RDMA_RMA_WRITE, 2 * PROBE_LEN, PROBE_LEN), PROBE_LEN, RDMA_RMA_OK);
	window_fill(&s.rw);
	stage_intact(&s);
	stage_connect(&s);
	honest_ops(&s, true);
	stage_close(&s);
}

/*
 * A stranger holding the connection's descriptor leaves a refused request
 * without an answer on it before the peer connects (an exported connection
 * takes requests from anyone who names it): the peer's first request must not
 * inherit that refusal. It does today: doca_rdma_connect keeps
 * conn->rma_refused, and serve() hands it to the peer's first answer, so the
 * peer's correct write fails with DOCA_ERROR_NOT_FOUND though its bytes landed.
 */
static void test_ferry_rma_refusal_before_connect(void **state)
{
	struct stage s;

	(void)state;
	stage_open(&s, RDMA_ALL);
	leave_refusal(&s);
	stage_intact(&s);
	stage_connect(&s);
	honest_ops(&s, true);
	stage_close(&s);
}

/* ---- the victim as requester: its peer is the rogue, and a stranger forges the answer ---- */

#define FORGED_BASE 0x10000000ull /* the rogue's "export": an address the victim only names, never touches */
#define SEED_ANSWER 57u           /* the bytes the rogue's true answer carries */

/* Answer the victim's read numbered @p seq on connection @p to with PROBE_LEN @p bytes, sent by @p r on @p ep. */
static void answer_read(struct rma_rogue *r, ucp_ep_h ep, struct side *victim, const struct ferry_rdma_conn_desc *to,
			uint64_t seq, const uint8_t *bytes)
{
	uint8_t data[PROBE_LEN + sizeof(uint64_t)];
	struct rdma_rma_hdr h;

	memset(&h, 0, sizeof(h));
	h.dst_token = to->token;
	h.dst_conn = to->conn_id;
	h.seq = seq;
	h.op = RDMA_RMA_ANSWER;
	h.status = RDMA_RMA_OK;
	h.len = PROBE_LEN; /* addr 0: the bytes are the read's first */
	memcpy(data, bytes, PROBE_LEN);
	memset(data + PROBE_LEN, 0, sizeof(uint64_t)); /* the status word after a read's bytes: RDMA_RMA_OK */
	rma_send_on(r, ep, victim, &h, sizeof(h), data, sizeof(data), false);
}

/*
 * Case 11: a stranger forges the answer to the victim's read in flight, with
 * everything the answer names right (the connection's token and id, the
 * read's seq, its length), from an endpoint pair of its own: dropped, the read
 * still waits and its buffer holds nothing of it. The peer's answer on the
 * request's reply endpoint then completes the read with the peer's bytes.
 */
static void test_ferry_rma_forged_read_answer(void **state)
{
	static uint8_t pdesc[FERRY_RDMA_CONN_MAX_LEN], mdesc[FERRY_RDMA_MEM_MAX_LEN];
	uint8_t body[FERRY_RDMA_MEM_KEY_LEN], forged[PROBE_LEN], honest[PROBE_LEN], zeros[PROBE_LEN] = {0};
	struct ferry_rdma_conn_desc vd, pd;
	struct ferry_rdma_mem_desc md;
	struct rma_rogue peer, stranger;
	struct side a;
	struct doca_rdma_connection *ca;
	struct doca_mmap *remote = NULL;
	struct doca_rdma_task_read *rt;
	struct doca_buf *src, *dst;
	const struct rogue_answer *req;
	union doca_data ud = {.u64 = 0};
	size_t plen, mlen, la;
	const void *da;
	const char *why = NULL;
	uint64_t end;

	(void)state;
	assert_int_equal(side_init(&a, RDMA_ALL, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | RDMA_ALL), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(a.rdma, &da, &la, &ca), DOCA_SUCCESS);
	assert_int_equal(ferry_rdma_conn_desc_decode(da, la, &vd, &why), DOCA_SUCCESS);

	/*
	 * The peer: a worker of its own, described as a Ferry context would
	 * describe itself. This process's pid, start time and boot id: the
	 * victim watches a live process, as with an honest peer here.
	 */
	rma_rogue_open(&peer, NULL);
	plen = ucx_rogue_describe(&peer.u, &vd, RDMA_ALL, &pd, pdesc);
	/* And an export of the peer's, read-only, by an id and key it made up. */
	ferry_le_put64(body, 0x1d1d1d1d1d1d1d1dull);
	ferry_le_put64(body + 8, 0x4b4b4b4b4b4b4b4bull);
	memset(&md, 0, sizeof(md));
	md.kind = FERRY_RDMA_MEM_KIND_KEY;
	md.addr = FORGED_BASE;
	md.len = WIN_LEN;
	md.access = DOCA_ACCESS_FLAG_RDMA_READ;
	md.pid = (uint32_t)getpid();
	md.body_len = sizeof(body);
	md.body = body;
	mlen = ferry_rdma_mem_desc_encode(&md, mdesc, sizeof(mdesc));
	assert_int_not_equal(mlen, 0);
	assert_int_equal(doca_mmap_create_from_export(NULL, mdesc, mlen, a.dev, &remote), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(a.rdma, pdesc, plen, ca), DOCA_SUCCESS);
	rma_rogue_open(&stranger, vd.addr);

	/* The victim reads the peer's export; the peer keeps the request and answers nothing yet. */
	memset(a.mem, 0, PROBE_LEN);
	src = side_remote_buf(&a, remote, (void *)(uintptr_t)FORGED_BASE, PROBE_LEN, PROBE_LEN);
	dst = side_buf(&a, 0, PROBE_LEN, 0);
	assert_non_null(src);
	assert_non_null(dst);
	assert_int_equal(doca_rdma_task_read_allocate_init(a.rdma, ca, src, dst, ud, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_read_as_task(rt)), DOCA_SUCCESS);
	end = side_now_ms() + WAIT_MS;
	while (peer.n == 0 && side_now_ms() < end)
		rma_progress(&peer, &a);
	assert_int_equal(peer.n, 1);
	req = &peer.got[0];
	assert_int_equal(req->h.op, RDMA_RMA_READ);
	assert_int_equal(req->h.dst_token, pd.token);
	assert_int_equal(req->h.dst_conn, pd.conn_id);
	assert_int_equal(req->h.src_token, vd.token);
	assert_int_equal(req->h.src_conn, vd.conn_id);
	assert_int_equal(req->h.export_id, le64(body));
	assert_int_equal(req->h.key, le64(body + 8));
	assert_int_equal(req->h.addr, FORGED_BASE);
	assert_int_equal(req->h.len, PROBE_LEN);
	assert_int_equal(req->h.flags, RDMA_RMA_F_ANSWER);
	assert_non_null(req->reply_ep);

	/* The stranger's answer, right in all it names, from its own endpoint pair. */
	memset(forged, 0xee, sizeof(forged));
	answer_read(&stranger, stranger.u.ep, &a, &vd, req->h.seq, forged);
	rma_expect_silence(&stranger, &a);
	rma_expect_silence(&peer, &a);
	assert_int_equal(a.ok + a.failed, 0);
	assert_memory_equal(a.mem, zeros, PROBE_LEN);

	/* The peer's answer, on the endpoint the request came by. */
	pattern_fill(honest, sizeof(honest), SEED_ANSWER);
	answer_read(&peer, req->reply_ep, &a, &vd, req->h.seq, honest);
	end = side_now_ms() + WAIT_MS;
	while (a.ok + a.failed == 0 && side_now_ms() < end)
		rma_progress(&peer, &a);
	assert_int_equal(a.ok + a.failed, 1);
	assert_string_equal(doca_error_get_name(a.last_status), doca_error_get_name(DOCA_SUCCESS));
	assert_memory_equal(a.mem, honest, PROBE_LEN);

	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	ucx_rogue_close(&stranger.u);
	assert_true(side_stop(&a, NULL));
	ucx_rogue_close(&peer.u);
	assert_int_equal(doca_mmap_destroy(remote), DOCA_SUCCESS);
	side_fini(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_ucx_rma_refused),
		cmocka_unit_test(test_ferry_rma_control),
		cmocka_unit_test(test_ferry_rma_no_export),
		cmocka_unit_test(test_ferry_rma_export_access),
		cmocka_unit_test(test_ferry_rma_context_access),
		cmocka_unit_test(test_ferry_rma_malformed),
		cmocka_unit_test(test_ferry_rma_dropped),
		cmocka_unit_test(test_ferry_rma_refusal_kept),
		cmocka_unit_test(test_ferry_rma_refusal_before_connect),
		cmocka_unit_test(test_ferry_rma_forged_read_answer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
