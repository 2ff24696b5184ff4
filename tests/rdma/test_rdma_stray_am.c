/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_stray_am.c - a peer that speaks UCX directly sends an RDMA
 * context's worker active messages of ids Ferry never registered (the
 * largest, 65535, and small ones next to Ferry's own). UCX before 1.21 reads
 * outside its table of handlers for such an id, and before 1.17 may call an
 * uninitialised entry of it (common/ferry_ucx_am.h): the context's worker
 * must drop them and go on. Afterwards the context still exchanges a message
 * and a write with its honest peer.
 *
 * The rogue is a UCX worker of this process, connected by the worker address
 * inside the context's connection descriptor (doca_rdma_export).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ucp/api/ucp.h>

#include "rdma/rdma_desc_priv.h"
#include "rdma_fixture.h"
#include "ucx_rogue.h"

#define WAIT_MS 5000

static const unsigned int stray_ids[] = {65535, 65000, 4096, 255, 31, 17, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};

/* Send each stray id to the worker at @p addr, from a worker of our own; progress both sides meanwhile. */
static void send_strays(struct side *victim, const uint8_t *addr, size_t addr_len)
{
	static uint8_t payload[300000]; /* large enough to go by rendezvous too */
	struct ucx_rogue rogue;
	ucp_worker_h w;
	ucp_ep_h e;

	(void)addr_len;
	ucx_rogue_open(&rogue, UCP_FEATURE_AM, addr);
	w = rogue.w;
	e = rogue.ep;
	for (size_t k = 0; k < sizeof(stray_ids) / sizeof(stray_ids[0]); k++) {
		for (size_t len = 8; len <= sizeof(payload); len *= 300) {
			ucp_request_param_t prm = {.op_attr_mask = 0};
			uint64_t hdr = 0xdeadbeefcafef00dull;
			ucs_status_ptr_t r = ucp_am_send_nbx(e, stray_ids[k], &hdr, sizeof(hdr), payload, len, &prm);
			uint64_t end = side_now_ms() + WAIT_MS;

			while (UCS_PTR_IS_PTR(r) && ucp_request_check_status(r) == UCS_INPROGRESS &&
			       side_now_ms() < end) {
				ucp_worker_progress(w);
				(void)doca_pe_progress(victim->pe);
			}
			if (UCS_PTR_IS_PTR(r))
				ucp_request_free(r);
		}
	}
	/* Let the victim take whatever is still on its way. */
	for (int i = 0; i < 2000; i++) {
		ucp_worker_progress(w);
		(void)doca_pe_progress(victim->pe);
	}
	ucx_rogue_close(&rogue);
}

static void test_stray_ids_dropped(void **state)
{
	struct side a = {0}, b = {0};
	struct doca_rdma_connection *ca, *cb;
	struct ferry_rdma_conn_desc d;
	const void *da, *db;
	size_t la, lb;
	const char *why = NULL;
	unsigned int ok;

	(void)state;
	assert_int_equal(side_init(&a, DOCA_ACCESS_FLAG_RDMA_WRITE,
				   DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE),
			 DOCA_SUCCESS);
	assert_int_equal(side_init(&b, DOCA_ACCESS_FLAG_RDMA_WRITE,
				   DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(a.rdma, &da, &la, &ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(b.rdma, &db, &lb, &cb), DOCA_SUCCESS);
	assert_int_equal(ferry_rdma_conn_desc_decode(da, la, &d, &why), DOCA_SUCCESS);

	send_strays(&a, d.addr, d.addr_len);

	/* The victim goes on: it connects to its honest peer and takes a message. */
	assert_int_equal(doca_rdma_connect(a.rdma, db, lb, ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(b.rdma, da, la, cb), DOCA_SUCCESS);
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st;
	struct doca_buf *rbuf = side_buf(&a, 0, 64, 0), *sbuf = side_buf(&b, 0, 64, 64);
	union doca_data ud = {.u64 = 0};

	pattern_fill(b.mem, 64, 5);
	assert_int_equal(doca_rdma_task_receive_allocate_init(a.rdma, rbuf, ud, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_send_allocate_init(b.rdma, cb, sbuf, ud, &st), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
	ok = a.ok;
	assert_true(side_wait(&a, &b, &a.ok, ok + 1, WAIT_MS));
	assert_true(pattern_check(a.mem, 64, 5));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(rbuf, NULL);
	doca_buf_dec_refcount(sbuf, NULL);
	assert_true(side_stop(&a, &b));
	assert_true(side_stop(&b, &a));
	side_fini(&a);
	side_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stray_ids_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
