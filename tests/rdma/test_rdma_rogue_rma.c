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
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ucp/api/ucp.h>

#include "rdma/rdma_desc_priv.h"
#include "rdma_fixture.h"

#define SECRET_LEN 4096u
#define PROBE_LEN  64u
#define SETTLE_MS  500u

struct rogue {
	ucp_context_h ctx;
	ucp_worker_h w;
	ucp_ep_h ep;
	ucp_mem_h memh;
	ucp_rkey_h rkey;
	uint8_t mem[PROBE_LEN];
};

static void rogue_open(struct rogue *r, const uint8_t *victim_addr)
{
	ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES,
			       .features = UCP_FEATURE_AM | UCP_FEATURE_RMA | UCP_FEATURE_AMO64};
	ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				  .thread_mode = UCS_THREAD_MODE_SINGLE};
	ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
			      .address = (const ucp_address_t *)victim_addr};
	ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
				   .address = r->mem,
				   .length = sizeof(r->mem)};
	void *packed = NULL;
	size_t packed_len = 0;

	assert_int_equal(ucp_init(&params, NULL, &r->ctx), UCS_OK);
	assert_int_equal(ucp_worker_create(r->ctx, &wp, &r->w), UCS_OK);
	assert_int_equal(ucp_ep_create(r->w, &ep, &r->ep), UCS_OK);
	/* A key of the rogue's own memory: UCX's software put and get carry the target address beside it. */
	assert_int_equal(ucp_mem_map(r->ctx, &mp, &r->memh), UCS_OK);
	assert_int_equal(ucp_rkey_pack(r->ctx, r->memh, &packed, &packed_len), UCS_OK);
	assert_int_equal(ucp_ep_rkey_unpack(r->ep, packed, &r->rkey), UCS_OK);
	ucp_rkey_buffer_release(packed);
}

static void rogue_close(struct rogue *r)
{
	ucp_request_param_t close = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
	ucs_status_ptr_t req;

	ucp_rkey_destroy(r->rkey);
	req = ucp_ep_close_nbx(r->ep, &close);
	while (UCS_PTR_IS_PTR(req) && ucp_request_check_status(req) == UCS_INPROGRESS)
		ucp_worker_progress(r->w);
	if (UCS_PTR_IS_PTR(req))
		ucp_request_free(req);
	ucp_mem_unmap(r->ctx, r->memh);
	ucp_worker_destroy(r->w);
	ucp_cleanup(r->ctx);
}

/* Progress the rogue and the victim for @p ms: whatever the victim's worker does with the operations, it does now. */
static void settle(struct rogue *r, struct side *victim, unsigned int ms)
{
	uint64_t end = side_now_ms() + ms;

	while (side_now_ms() < end) {
		ucp_worker_progress(r->w);
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
	fire(ucp_put_nbx(r->ep, r->mem, PROBE_LEN, secret, r->rkey, &p));
	fire(ucp_put_nbx(r->ep, r->mem, PROBE_LEN, readonly, r->rkey, &p));
	fire(ucp_get_nbx(r->ep, stolen, PROBE_LEN, secret + PROBE_LEN, r->rkey, &p));
	fire(ucp_atomic_op_nbx(r->ep, UCP_ATOMIC_OP_ADD, &one, 1, secret + 2 * PROBE_LEN, r->rkey, &amo));
	fire(ucp_atomic_op_nbx(r->ep, UCP_ATOMIC_OP_ADD, &one, 1, readonly + PROBE_LEN, r->rkey, &amo));
	fire(ucp_ep_flush_nbx(r->ep, &p));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raw_ucx_rma_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
