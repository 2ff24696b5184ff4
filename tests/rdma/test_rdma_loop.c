/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_loop - DOCA RDMA between two contexts of one process, over
 * whatever UCX_TLS the suite sets (shared memory or TCP on the loopback
 * interface): argument and state rules, messages of 1 B to 1 MiB checked byte
 * by byte, immediates, writes and reads into an exported mmap, the permission
 * refusals, refused descriptors, a connection slot reused after a disconnect,
 * the flush of a stop, and a sync event of the peer read, set and added to
 * over the network while its owner sleeps in a wait.
 */
#include <pthread.h>

#include <doca_sync_event.h>

#include "ferry_test.h"
#include "rdma_fixture.h"

#define WAIT_MS       10000u
#define RDMA_LIST_CAP 16u /* doca_rdma_cap_get_max_send_buf_list_len */

static const uint32_t RW_MMAP = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
				DOCA_ACCESS_FLAG_RDMA_WRITE;
static const uint32_t RESPONDER = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
				  DOCA_ACCESS_FLAG_RDMA_WRITE;

struct pair {
	struct side a; /* requester */
	struct side b; /* responder */
	struct doca_rdma_connection *ca, *cb;
};

static void pair_connect(struct pair *p)
{
	const void *da, *db;
	size_t la, lb;

	assert_int_equal(doca_rdma_export(p->a.rdma, &da, &la, &p->ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(p->b.rdma, &db, &lb, &p->cb), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(p->a.rdma, db, lb, p->ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(p->b.rdma, da, la, p->cb), DOCA_SUCCESS);
}

/* A requester and a responder whose context grants @p responder_perm. */
static int pair_setup_with(void **state, uint32_t responder_perm)
{
	struct pair *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	ferry_test_log_reset();
	assert_int_equal(side_init(&p->a, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, RW_MMAP), DOCA_SUCCESS);
	assert_int_equal(side_init(&p->b, responder_perm, RW_MMAP), DOCA_SUCCESS);
	*state = p;
	return 0;
}

static int pair_setup(void **state)
{
	return pair_setup_with(state, RESPONDER);
}

/* As pair_setup, with B's context also open to remote atomics (network sync events). */
static int pair_setup_atomic(void **state)
{
	return pair_setup_with(state, RESPONDER | DOCA_ACCESS_FLAG_RDMA_ATOMIC);
}

static int pair_teardown(void **state)
{
	struct pair *p = *state;

	assert_true(side_stop(&p->a, &p->b));
	assert_true(side_stop(&p->b, &p->a));
	side_fini(&p->a);
	side_fini(&p->b);
	free(p);
	return 0;
}

/* ---- rules ---- */

static void test_properties(void **state)
{
	struct doca_dev *dev = side_open_dev();
	struct doca_rdma *rdma = NULL;
	uint32_t u32 = 0;
	uint16_t u16 = 0;
	enum doca_rdma_transport_type tt;
	struct doca_rdma_gid gid;
	struct doca_devinfo *info;

	(void)state;
	assert_non_null(dev);
	info = doca_dev_as_devinfo(dev);
	assert_int_equal(doca_rdma_create(NULL, &rdma), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_create(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_create(dev, &rdma), DOCA_SUCCESS);
	/* Defaults, then what was set reads back. */
	assert_int_equal(doca_rdma_get_permissions(rdma, &u32), DOCA_SUCCESS);
	assert_int_equal(u32, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	assert_int_equal(doca_rdma_set_permissions(rdma, 1u << 9), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_set_permissions(rdma, RESPONDER), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_get_permissions(rdma, &u32), DOCA_SUCCESS);
	assert_int_equal(u32, RESPONDER);
	assert_int_equal(doca_rdma_set_gid_index(rdma, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_set_gid_index(rdma, 0), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_get_gid_index(rdma, &u32), DOCA_SUCCESS);
	assert_int_equal(u32, 0);
	assert_int_equal(doca_rdma_set_transport_type(rdma, DOCA_RDMA_TRANSPORT_TYPE_DC), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_get_transport_type(rdma, &tt), DOCA_SUCCESS);
	assert_int_equal(tt, DOCA_RDMA_TRANSPORT_TYPE_DC);
	assert_int_equal(doca_rdma_set_transport_type(rdma, (enum doca_rdma_transport_type)7),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_set_send_queue_size(rdma, 100), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_get_send_queue_size(rdma, &u32), DOCA_SUCCESS);
	assert_int_equal(u32, 128); /* rounded up */
	assert_int_equal(doca_rdma_set_recv_queue_size(rdma, 16), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_rdma_get_recv_queue_size(rdma, &u32), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_rdma_get_max_num_connections(rdma, &u16), DOCA_SUCCESS);
	assert_int_equal(u16, 1);
	assert_int_equal(doca_rdma_set_max_num_connections(rdma, 0), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_rdma_set_max_num_connections(rdma, 4), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_get_max_num_connections(rdma, &u16), DOCA_SUCCESS);
	assert_int_equal(u16, 4);
	assert_int_equal(doca_rdma_get_dpa_handle(rdma, &(doca_dpa_dev_rdma_t){0}), DOCA_ERROR_BAD_STATE);
	/* Caps of the device. */
	assert_int_equal(doca_rdma_cap_task_send_is_supported(info), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_cap_task_write_imm_is_supported(info), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_cap_task_atomic_cmp_swp_is_supported(info), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_cap_task_atomic_fetch_add_is_supported(info), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_cap_task_atomic_fetch_add_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_cap_task_send_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_cap_transport_type_is_supported(info, DOCA_RDMA_TRANSPORT_TYPE_DC), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_cap_get_max_message_size(info, &u32), DOCA_SUCCESS);
	assert_true(u32 >= (1u << 20));
	assert_int_equal(doca_rdma_cap_get_gid_table_size(info, &u32), DOCA_SUCCESS);
	assert_int_equal(u32, 1);
	assert_int_equal(doca_rdma_cap_get_gid(info, 0, 1, &gid), DOCA_SUCCESS);
	assert_int_equal(gid.raw[12], 127);
	assert_int_equal(doca_rdma_cap_get_gid(info, 0, 2, &gid), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_destroy(rdma), DOCA_SUCCESS);
	(void)doca_dev_close(dev);
}

static void test_state_rules(void **state)
{
	struct pair *p = *state;
	struct doca_rdma_connection *c1, *c2;
	const void *d;
	size_t l;
	uint32_t perm;
	struct doca_rdma_task_send *send;

	/* RUNNING at once, as DOCA 3.3: setters refused, export allowed. */
	assert_int_equal(doca_rdma_set_permissions(p->a.rdma, RESPONDER), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_rdma_get_permissions(p->a.rdma, &perm), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_destroy(p->a.rdma), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_rdma_export(p->a.rdma, NULL, &l, &c1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_export(p->a.rdma, &d, &l, &c1), DOCA_SUCCESS);
	/* One connection by default. */
	assert_int_equal(doca_rdma_export(p->a.rdma, &d, &l, &c2), DOCA_ERROR_FULL);
	/* A connection of another context, twice the same connect. */
	assert_int_equal(doca_rdma_export(p->b.rdma, &d, &l, &c2), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(p->a.rdma, d, l, c2), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_connect(p->a.rdma, d, l, c1), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(p->a.rdma, d, l, c1), DOCA_ERROR_BAD_STATE);
	/* A task needs its connection. */
	assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, NULL, NULL, (union doca_data){0}, &send),
			 DOCA_ERROR_INVALID_VALUE);
}

static void test_export_before_start(void **state)
{
	struct side s;
	const void *d;
	size_t l;
	struct doca_rdma_connection *c;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.dev = side_open_dev();
	assert_non_null(s.dev);
	assert_int_equal(doca_rdma_create(s.dev, &s.rdma), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(s.rdma, &d, &l, &c), DOCA_ERROR_BAD_STATE);
	assert_logged("connections need RUNNING");
	side_fini(&s);
}

/* ---- messages ---- */

static void send_one(struct pair *p, size_t len, uint32_t seed, bool imm)
{
	struct doca_buf *src = side_buf(&p->a, 0, len, len);
	struct doca_buf *dst = side_buf(&p->b, 0, SIDE_MEM / 2, 0);
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st = NULL;
	struct doca_rdma_task_send_imm *sit = NULL;
	unsigned int a_ok = p->a.ok, b_ok = p->b.ok;
	size_t got = 0;

	assert_non_null(src);
	assert_non_null(dst);
	pattern_fill(p->a.mem, len, seed);
	memset(p->b.mem, 0, len + 16);
	assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, dst, (union doca_data){0}, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
	if (imm) {
		assert_int_equal(doca_rdma_task_send_imm_allocate_init(p->a.rdma, p->ca, src, 0xABCD,
								       (union doca_data){0}, &sit),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_send_imm_as_task(sit)), DOCA_SUCCESS);
	} else {
		assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, p->ca, src, (union doca_data){0}, &st),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
	}
	assert_true(side_wait(&p->a, &p->b, &p->b.ok, b_ok + 1, WAIT_MS));
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, a_ok + 1, WAIT_MS));
	assert_int_equal(p->a.failed + p->b.failed, 0);
	assert_int_equal(doca_buf_get_data_len(dst, &got), DOCA_SUCCESS);
	assert_int_equal(got, len);
	assert_int_equal(doca_rdma_task_receive_get_result_len(rt), len);
	assert_int_equal(doca_rdma_task_receive_get_result_opcode(rt),
			 imm ? DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM : DOCA_RDMA_OPCODE_RECV_SEND);
	if (imm)
		assert_int_equal(doca_rdma_task_receive_get_result_immediate_data(rt), 0xABCD);
	assert_ptr_equal(doca_rdma_task_receive_get_result_rdma_connection(rt), p->cb);
	assert_true(pattern_check(p->b.mem, len, seed));
	assert_int_equal(p->b.mem[len], 0); /* nothing beyond */
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	if (imm)
		doca_task_free(doca_rdma_task_send_imm_as_task(sit));
	else
		doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
}

static void test_send_receive_sizes(void **state)
{
	struct pair *p = *state;
	static const size_t sizes[] = {1, 7, 64, 4096, 8191, 65536, 300000, 1u << 20};

	pair_connect(p);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		send_one(p, sizes[i], (uint32_t)i, false);
		send_one(p, sizes[i], (uint32_t)i + 100, true);
	}
}

/* An empty message (NULL source) completes a receive with NULL destination. */
static void test_empty_message(void **state)
{
	struct pair *p = *state;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send_imm *st;

	pair_connect(p);
	assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, NULL, (union doca_data){0}, &rt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_send_imm_allocate_init(p->a.rdma, p->ca, NULL, 7, (union doca_data){0}, &st),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_imm_as_task(st)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->b.ok, 1, WAIT_MS));
	assert_int_equal(doca_rdma_task_receive_get_result_len(rt), 0);
	assert_int_equal(doca_rdma_task_receive_get_result_immediate_data(rt), 7);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_send_imm_as_task(st));
}

/* A send before the peer posted its receive, and before this side connected, still arrives. */
static void test_send_early(void **state)
{
	struct pair *p = *state;
	const void *da, *db;
	size_t la, lb;
	struct doca_buf *src = side_buf(&p->a, 0, 100, 100);
	struct doca_buf *dst = side_buf(&p->b, 0, 4096, 0);
	struct doca_rdma_task_send *st;
	struct doca_rdma_task_receive *rt;

	pattern_fill(p->a.mem, 100, 5);
	assert_int_equal(doca_rdma_export(p->a.rdma, &da, &la, &p->ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(p->b.rdma, &db, &lb, &p->cb), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, p->ca, src, (union doca_data){0}, &st),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
	for (int i = 0; i < 50; i++) {
		(void)doca_pe_progress(p->a.pe);
		(void)doca_pe_progress(p->b.pe);
	}
	assert_int_equal(p->a.ok + p->a.failed, 0); /* waits for connect */
	assert_int_equal(doca_rdma_connect(p->a.rdma, db, lb, p->ca), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	/* The responder connects and posts only now. */
	assert_int_equal(doca_rdma_connect(p->b.rdma, da, la, p->cb), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, dst, (union doca_data){0}, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->b.ok, 1, WAIT_MS));
	assert_true(pattern_check(p->b.mem, 100, 5));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
}

/* A receive freed while posted takes no message: the next one does. */
static void test_orphan_receive(void **state)
{
	struct pair *p = *state;
	struct doca_buf *src = side_buf(&p->a, 0, 32, 32);
	struct doca_buf *d1 = side_buf(&p->b, 0, 64, 0), *d2 = side_buf(&p->b, 4096, 64, 0);
	struct doca_rdma_task_receive *r1, *r2;
	struct doca_rdma_task_send *st;
	size_t got = 0;

	pair_connect(p);
	pattern_fill(p->a.mem, 32, 11);
	assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, d1, (union doca_data){0}, &r1), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, d2, (union doca_data){0}, &r2), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(r1)), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(r2)), DOCA_SUCCESS);
	doca_task_free(doca_rdma_task_receive_as_task(r1));
	assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, p->ca, src, (union doca_data){0}, &st),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->b.ok, 1, WAIT_MS));
	assert_ptr_equal(p->b.last_task, doca_rdma_task_receive_as_task(r2));
	assert_int_equal(doca_buf_get_data_len(d2, &got), DOCA_SUCCESS);
	assert_int_equal(got, 32);
	assert_true(pattern_check(p->b.mem + 4096, 32, 11));
	assert_int_equal(doca_buf_get_data_len(d1, &got), DOCA_SUCCESS);
	assert_int_equal(got, 0);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	doca_task_free(doca_rdma_task_receive_as_task(r2));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(d1, NULL);
	doca_buf_dec_refcount(d2, NULL);
}

static void test_receive_too_small(void **state)
{
	struct pair *p = *state;
	struct doca_buf *src = side_buf(&p->a, 0, 1000, 1000);
	struct doca_buf *dst = side_buf(&p->b, 0, 999, 0);
	struct doca_rdma_task_send *st;
	struct doca_rdma_task_receive *rt;

	pair_connect(p);
	assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, dst, (union doca_data){0}, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, p->ca, src, (union doca_data){0}, &st),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->b.failed, 1, WAIT_MS));
	assert_int_equal(p->b.last_status, DOCA_ERROR_TOO_BIG);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
}

/* Two connections between the same contexts: each message names its own connection. */
static void test_two_connections(void **state)
{
	struct pair *p = *state;
	struct doca_rdma_connection *ca[2], *cb[2];
	struct doca_rdma_task_receive *rt[2];
	struct doca_rdma_task_send *st[2];
	struct doca_buf *src[2], *dst[2];

	/* Restart both with room for two connections. */
	assert_true(side_stop(&p->a, &p->b));
	assert_true(side_stop(&p->b, &p->a));
	assert_int_equal(doca_rdma_set_max_num_connections(p->a.rdma, 2), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_set_max_num_connections(p->b.rdma, 2), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(p->a.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(p->b.ctx), DOCA_SUCCESS);
	for (int i = 0; i < 2; i++) {
		const void *da, *db;
		size_t la, lb;
		uint32_t id = 99;

		assert_int_equal(doca_rdma_export(p->a.rdma, &da, &la, &ca[i]), DOCA_SUCCESS);
		assert_int_equal(doca_rdma_export(p->b.rdma, &db, &lb, &cb[i]), DOCA_SUCCESS);
		assert_int_equal(doca_rdma_connect(p->a.rdma, db, lb, ca[i]), DOCA_SUCCESS);
		assert_int_equal(doca_rdma_connect(p->b.rdma, da, la, cb[i]), DOCA_SUCCESS);
		assert_int_equal(doca_rdma_connection_get_id(cb[i], &id), DOCA_SUCCESS);
		assert_int_equal(id, (uint32_t)i);
	}
	for (int i = 0; i < 2; i++) {
		src[i] = side_buf(&p->a, (size_t)i * 4096, 100, 100);
		dst[i] = side_buf(&p->b, (size_t)i * 4096, 4096, 0);
		pattern_fill(p->a.mem + i * 4096, 100, (uint32_t)i + 50);
		assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, dst[i], (union doca_data){0}, &rt[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt[i])), DOCA_SUCCESS);
	}
	/* The second connection sends first: receives fill in arrival order, whatever the connection. */
	for (int i = 1; i >= 0; i--) {
		unsigned int ok = p->b.ok;

		assert_int_equal(
			doca_rdma_task_send_allocate_init(p->a.rdma, ca[i], src[i], (union doca_data){0}, &st[i]),
			DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st[i])), DOCA_SUCCESS);
		assert_true(side_wait(&p->a, &p->b, &p->b.ok, ok + 1, WAIT_MS));
	}
	assert_ptr_equal(doca_rdma_task_receive_get_result_rdma_connection(rt[0]), cb[1]);
	assert_ptr_equal(doca_rdma_task_receive_get_result_rdma_connection(rt[1]), cb[0]);
	assert_true(pattern_check(p->b.mem, 100, 51));
	assert_true(pattern_check(p->b.mem + 4096, 100, 50));
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 2, WAIT_MS));
	for (int i = 0; i < 2; i++) {
		doca_task_free(doca_rdma_task_receive_as_task(rt[i]));
		doca_task_free(doca_rdma_task_send_as_task(st[i]));
		doca_buf_dec_refcount(src[i], NULL);
		doca_buf_dec_refcount(dst[i], NULL);
	}
}

/* Send @p len pattern bytes (@p seed) on @p conn of @p from, with a task of its own; its completion status. */
static doca_error_t send_pattern(struct side *from, struct side *to, struct doca_rdma_connection *conn, size_t len,
				 uint32_t seed)
{
	struct doca_buf *src = side_buf(from, 0, len, len);
	struct doca_rdma_task_send *st;
	unsigned int done = from->ok + from->failed;
	doca_error_t status;

	pattern_fill(from->mem, len, seed);
	assert_int_equal(doca_rdma_task_send_allocate_init(from->rdma, conn, src, (union doca_data){0}, &st),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
	for (uint64_t t0 = side_now_ms(); from->ok + from->failed == done;) {
		assert_true(side_now_ms() - t0 < WAIT_MS);
		(void)doca_pe_progress(from->pe);
		(void)doca_pe_progress(to->pe);
	}
	status = doca_task_get_status(doca_rdma_task_send_as_task(st));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(src, NULL);
	return status;
}

/*
 * A connection the program disconnected gives its slot to the next export,
 * under a new id: a task still naming the old connection is refused until
 * its connection is set again, and the old peer's messages, still addressed
 * to the old id, reach nothing.
 */
static void test_connection_slot_reused(void **state)
{
	struct pair *p = *state;
	struct doca_rdma_connection *old_a, *old_b, *new_b;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *stale;
	struct doca_buf *dst, *src;
	const void *da, *db;
	size_t la, lb;
	uint32_t old_id = 0, new_id = 0;
	uint64_t t0;

	/* A holds one connection at a time; B two (the old one stays up on its side). */
	assert_true(side_stop(&p->a, &p->b));
	assert_true(side_stop(&p->b, &p->a));
	assert_int_equal(doca_rdma_set_max_num_connections(p->a.rdma, 1), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_set_max_num_connections(p->b.rdma, 2), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(p->a.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(p->b.ctx), DOCA_SUCCESS);
	pair_connect(p);
	old_a = p->ca;
	old_b = p->cb;
	assert_int_equal(doca_rdma_connection_get_id(old_a, &old_id), DOCA_SUCCESS);
	src = side_buf(&p->a, 0, 64, 64);
	assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, old_a, src, (union doca_data){0}, &stale),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(p->a.rdma, &da, &la, &p->ca), DOCA_ERROR_FULL);
	assert_int_equal(doca_rdma_connection_disconnect(old_a), DOCA_SUCCESS);
	/* The slot is free once the endpoint's close is done: progress until then. */
	t0 = side_now_ms();
	while (doca_rdma_export(p->a.rdma, &da, &la, &p->ca) != DOCA_SUCCESS) {
		assert_true(side_now_ms() - t0 < WAIT_MS);
		(void)doca_pe_progress(p->a.pe);
		(void)doca_pe_progress(p->b.pe);
	}
	assert_int_equal(doca_rdma_connection_get_id(p->ca, &new_id), DOCA_SUCCESS);
	assert_int_not_equal(new_id, old_id);
	assert_int_equal(doca_rdma_export(p->b.rdma, &db, &lb, &new_b), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(p->a.rdma, db, lb, p->ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(p->b.rdma, da, la, new_b), DOCA_SUCCESS);

	/* The task of the old connection: refused, then sent once its connection is set again. */
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(stale)), DOCA_ERROR_INVALID_VALUE);
	assert_logged("its connection was disconnected");
	doca_rdma_task_send_set_rdma_connection(stale, p->ca);

	/* B's old connection still points at the old id: what it sends is dropped; the new one's arrives. */
	dst = side_buf(&p->a, 4096, 4096, 0);
	assert_int_equal(doca_rdma_task_receive_allocate_init(p->a.rdma, dst, (union doca_data){0}, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
	(void)send_pattern(&p->b, &p->a, old_b, 100, 7);
	for (int i = 0; i < 1000; i++) {
		(void)doca_pe_progress(p->a.pe);
		(void)doca_pe_progress(p->b.pe);
	}
	assert_int_equal(p->a.ok, 0);
	assert_logged("of another instance or run");
	assert_int_equal(send_pattern(&p->b, &p->a, new_b, 100, 8), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	assert_true(pattern_check(p->a.mem + 4096, 100, 8));
	assert_ptr_equal(doca_rdma_task_receive_get_result_rdma_connection(rt), p->ca);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(stale)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 2, WAIT_MS));
	doca_task_free(doca_rdma_task_send_as_task(stale));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
}

/* ---- remote memory ---- */

/* B exports [half, end) of its memory with @p perm; A imports it. */
static struct doca_mmap *import_b(struct pair *p, struct doca_mmap **exported, uint32_t perm)
{
	struct doca_mmap *m, *imp = NULL;
	const void *desc;
	size_t len;

	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, p->b.mem + SIDE_MEM / 2, SIDE_MEM / 2), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, perm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, p->b.dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(m, p->b.dev, &desc, &len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, len, p->a.dev, &imp), DOCA_SUCCESS);
	*exported = m;
	return imp;
}

static void drop_mmaps(struct doca_mmap *exported, struct doca_mmap *imported)
{
	assert_int_equal(doca_mmap_destroy(imported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_stop(exported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(exported), DOCA_SUCCESS);
}

static void test_write_read(void **state)
{
	struct pair *p = *state;
	struct doca_mmap *exp, *imp;
	uint8_t *remote_mem = p->b.mem + SIDE_MEM / 2;
	const size_t len = 200000;
	struct doca_buf *src, *rdst, *rsrc, *back;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rt;
	size_t got = 0;

	pair_connect(p);
	imp = import_b(p, &exp, RW_MMAP);
	src = side_buf(&p->a, 0, len, len);
	back = side_buf(&p->a, SIDE_MEM / 2, len, 0);
	rdst = side_remote_buf(&p->a, imp, remote_mem + 4096, len, 0);
	assert_non_null(src);
	assert_non_null(rdst);
	pattern_fill(p->a.mem, len, 42);
	assert_int_equal(doca_rdma_task_write_allocate_init(p->a.rdma, p->ca, src, rdst, (union doca_data){0}, &wt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_write_as_task(wt)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	assert_true(pattern_check(remote_mem + 4096, len, 42));
	/* Read it back from the remote buf's data segment. */
	rsrc = side_remote_buf(&p->a, imp, remote_mem + 4096, len, len);
	assert_non_null(rsrc);
	assert_int_equal(doca_rdma_task_read_allocate_init(p->a.rdma, p->ca, rsrc, back, (union doca_data){0}, &rt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_read_as_task(rt)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 2, WAIT_MS));
	assert_int_equal(p->a.failed, 0);
	assert_int_equal(doca_rdma_task_read_get_result_len(rt), len);
	assert_int_equal(doca_buf_get_data_len(back, &got), DOCA_SUCCESS);
	assert_int_equal(got, len);
	assert_true(pattern_check(p->a.mem + SIDE_MEM / 2, len, 42));
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(back, NULL);
	doca_buf_dec_refcount(rdst, NULL);
	doca_buf_dec_refcount(rsrc, NULL);
	drop_mmaps(exp, imp);
}

/*
 * The program disconnects while a large write (more requests than the
 * window: some still to send), a read and a message behind them are out:
 * every one of them still completes, none waits for the context's stop. The
 * peer, not told (no connection manager), sends on: nothing of it is received.
 */
static void test_disconnect_with_tasks_out(void **state)
{
	struct pair *p = *state;
	struct doca_mmap *exp, *imp;
	uint8_t *remote_mem = p->b.mem + SIDE_MEM / 2;
	const size_t len = SIDE_MEM / 2;
	struct doca_buf *src = side_buf(&p->a, 0, len, len), *back = side_buf(&p->a, len, 65536, 0);
	struct doca_buf *msg = side_buf(&p->a, len + 65536, 64, 64), *rdst, *rsrc;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rt;
	struct doca_rdma_task_send *st;

	pair_connect(p);
	imp = import_b(p, &exp, RW_MMAP);
	rdst = side_remote_buf(&p->a, imp, remote_mem, len, 0);
	rsrc = side_remote_buf(&p->a, imp, remote_mem, 65536, 65536);
	assert_non_null(rdst);
	assert_non_null(rsrc);
	assert_int_equal(doca_rdma_task_write_allocate_init(p->a.rdma, p->ca, src, rdst, (union doca_data){0}, &wt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_read_allocate_init(p->a.rdma, p->ca, rsrc, back, (union doca_data){0}, &rt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, p->ca, msg, (union doca_data){0}, &st),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_write_as_task(wt)), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_read_as_task(rt)), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connection_disconnect(p->ca), DOCA_SUCCESS);
	for (uint64_t t0 = side_now_ms(); p->a.ok + p->a.failed < 3;) {
		assert_true(side_now_ms() - t0 < 3000);
		(void)doca_pe_progress(p->a.pe);
		(void)doca_pe_progress(p->b.pe);
	}
	print_message("after the disconnect: %u tasks ended well, %u with an error (last %s)\n", p->a.ok, p->a.failed,
		      doca_error_get_name(p->a.last_status));

	/* B still thinks it is connected: its message reaches nothing of A's (a receive waits in vain). */
	struct doca_buf *rbuf = side_buf(&p->a, len + 65536 + 4096, 4096, 0);
	struct doca_rdma_task_receive *recv;

	assert_int_equal(doca_rdma_task_receive_allocate_init(p->a.rdma, rbuf, (union doca_data){0}, &recv),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(recv)), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(send_pattern(&p->b, &p->a, p->cb, 100, 9), DOCA_SUCCESS);
	for (int i = 0; i < 2000; i++) {
		(void)doca_pe_progress(p->a.pe);
		(void)doca_pe_progress(p->b.pe);
	}
	assert_int_equal(p->a.ok + p->a.failed, 3);
	assert_logged("which is over");
	doca_task_free(doca_rdma_task_receive_as_task(recv)); /* freed while posted: no callback */
	doca_buf_dec_refcount(rbuf, NULL);
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(back, NULL);
	doca_buf_dec_refcount(msg, NULL);
	doca_buf_dec_refcount(rdst, NULL);
	doca_buf_dec_refcount(rsrc, NULL);
	drop_mmaps(exp, imp);
}

/* A write with immediate: the bytes are there when the peer's receive completes with opcode 2. */
static void test_write_imm(void **state)
{
	struct pair *p = *state;
	struct doca_mmap *exp, *imp;
	uint8_t *remote_mem = p->b.mem + SIDE_MEM / 2;
	const size_t len = 70000;
	struct doca_buf *src, *rdst;
	struct doca_rdma_task_write_imm *wt;
	struct doca_rdma_task_receive *rt;

	pair_connect(p);
	imp = import_b(p, &exp, RW_MMAP);
	src = side_buf(&p->a, 0, len, len);
	rdst = side_remote_buf(&p->a, imp, remote_mem, len, 0);
	pattern_fill(p->a.mem, len, 9);
	assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, NULL, (union doca_data){0}, &rt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
	assert_int_equal(
		doca_rdma_task_write_imm_allocate_init(p->a.rdma, p->ca, src, rdst, 0xABCD, (union doca_data){0}, &wt),
		DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_write_imm_as_task(wt)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->b.ok, 1, WAIT_MS));
	assert_int_equal(doca_rdma_task_receive_get_result_opcode(rt), DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM);
	assert_int_equal(doca_rdma_task_receive_get_result_immediate_data(rt), 0xABCD);
	assert_true(pattern_check(remote_mem, len, 9));
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	assert_int_equal(p->a.failed + p->b.failed, 0);
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_write_imm_as_task(wt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(rdst, NULL);
	drop_mmaps(exp, imp);
}

/* A read-only export refuses a write (NOT_PERMITTED through the error callback); a read still works. */
static void test_read_only_export(void **state)
{
	struct pair *p = *state;
	struct doca_mmap *exp, *imp;
	uint8_t *remote_mem = p->b.mem + SIDE_MEM / 2;
	struct doca_buf *src, *rdst, *back;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rt;

	pair_connect(p);
	imp = import_b(p, &exp, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ);
	memset(remote_mem, 0x5a, 64);
	src = side_buf(&p->a, 0, 64, 64);
	back = side_buf(&p->a, 4096, 64, 0);
	rdst = side_remote_buf(&p->a, imp, remote_mem, 64, 0);
	memset(p->a.mem, 0x11, 64);
	ferry_test_log_reset();
	assert_int_equal(doca_rdma_task_write_allocate_init(p->a.rdma, p->ca, src, rdst, (union doca_data){0}, &wt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_write_as_task(wt)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.failed, 1, WAIT_MS));
	assert_int_equal(p->a.last_status, DOCA_ERROR_NOT_PERMITTED);
	assert_logged("without RDMA write permission");
	assert_int_equal(remote_mem[0], 0x5a);
	doca_buf_dec_refcount(rdst, NULL);
	rdst = side_remote_buf(&p->a, imp, remote_mem, 64, 64);
	assert_int_equal(doca_rdma_task_read_allocate_init(p->a.rdma, p->ca, rdst, back, (union doca_data){0}, &rt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_read_as_task(rt)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	assert_int_equal(p->a.mem[4096], 0x5a);
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(back, NULL);
	doca_buf_dec_refcount(rdst, NULL);
	drop_mmaps(exp, imp);
}

/* The peer's context forbids remote writes: refused as well, even on a read-write export. */
static void test_peer_context_forbids_write(void **state)
{
	struct pair *p = *state;
	struct doca_mmap *exp, *imp;
	struct doca_buf *src, *rdst;
	struct doca_rdma_task_write *wt;

	/* Swap roles: B writes into A's memory; A's context has only LOCAL_READ_WRITE. */
	pair_connect(p);
	{
		struct doca_mmap *m;
		const void *desc;
		size_t len;

		assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_set_memrange(m, p->a.mem + SIDE_MEM / 2, SIDE_MEM / 2), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_set_permissions(m, RW_MMAP), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_add_dev(m, p->a.dev), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_export_rdma(m, p->a.dev, &desc, &len), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_create_from_export(NULL, desc, len, p->b.dev, &imp), DOCA_SUCCESS);
		exp = m;
	}
	src = side_buf(&p->b, 0, 64, 64);
	rdst = side_remote_buf(&p->b, imp, p->a.mem + SIDE_MEM / 2, 64, 0);
	ferry_test_log_reset();
	assert_int_equal(doca_rdma_task_write_allocate_init(p->b.rdma, p->cb, src, rdst, (union doca_data){0}, &wt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_write_as_task(wt)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->b.failed, 1, WAIT_MS));
	assert_int_equal(p->b.last_status, DOCA_ERROR_NOT_PERMITTED);
	assert_logged("does not allow remote write");
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(rdst, NULL);
	drop_mmaps(exp, imp);
}

/* ---- descriptors ---- */

static void test_bad_conn_descriptors(void **state)
{
	struct pair *p = *state;
	const void *da, *db;
	size_t la, lb;
	uint8_t forged[65536];
	const uint8_t garbage[64] = {1, 2, 3};

	assert_int_equal(doca_rdma_export(p->a.rdma, &da, &la, &p->ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(p->b.rdma, &db, &lb, &p->cb), DOCA_SUCCESS);
	assert_true(lb <= sizeof(forged));
	ferry_test_log_reset();
	assert_int_equal(doca_rdma_connect(p->a.rdma, garbage, sizeof(garbage), p->ca), DOCA_ERROR_CONNECTION_ABORTED);
	assert_logged("bad magic");
	assert_int_equal(doca_rdma_connect(p->a.rdma, db, lb - 1, p->ca), DOCA_ERROR_CONNECTION_ABORTED);
	assert_logged("truncated");
	assert_int_equal(doca_rdma_connect(p->a.rdma, db, 3, p->ca), DOCA_ERROR_CONNECTION_ABORTED);
	/* One byte of the worker address changed: the checksum says so. */
	memcpy(forged, db, lb);
	forged[lb - 1] ^= 0x40;
	assert_int_equal(doca_rdma_connect(p->a.rdma, forged, lb, p->ca), DOCA_ERROR_CONNECTION_ABORTED);
	assert_logged("checksum");
	/* Another version. */
	memcpy(forged, db, lb);
	forged[4] = 1;
	assert_int_equal(doca_rdma_connect(p->a.rdma, forged, lb, p->ca), DOCA_ERROR_CONNECTION_ABORTED);
	assert_logged("version");
	/* The memory descriptor is not a connection descriptor. */
	assert_int_equal(doca_rdma_connect(p->a.rdma, NULL, lb, p->ca), DOCA_ERROR_INVALID_VALUE);
	/* The connection is still usable after all that. */
	assert_int_equal(doca_rdma_connect(p->a.rdma, db, lb, p->ca), DOCA_SUCCESS);
}

static void test_bad_mem_descriptors(void **state)
{
	struct pair *p = *state;
	struct doca_mmap *m, *imp = NULL;
	const void *desc;
	size_t len;
	uint8_t forged[16384];

	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, p->b.mem, 4096), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, p->b.dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	/* No RDMA permission: nothing to export. */
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_export_rdma(m, p->b.dev, &desc, &len), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("no RDMA permission");
	assert_int_equal(doca_mmap_stop(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, RW_MMAP), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(m, p->b.dev, &desc, &len), DOCA_SUCCESS);
	assert_true(len <= sizeof(forged));
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, len - 1, p->a.dev, &imp), DOCA_ERROR_INVALID_VALUE);
	assert_logged("truncated");
	memcpy(forged, desc, len);
	forged[32] |= 0x80; /* an access bit that is no RDMA bit */
	assert_int_equal(doca_mmap_create_from_export(NULL, forged, len, p->a.dev, &imp), DOCA_ERROR_INVALID_VALUE);
	assert_logged("checksum");
	memcpy(forged, desc, len);
	forged[4] = 9;
	assert_int_equal(doca_mmap_create_from_export(NULL, forged, len, p->a.dev, &imp),
			 DOCA_ERROR_UNSUPPORTED_VERSION);
	assert_null(imp);
	/* The real one imports; an RDMA import cannot be re-exported; it can be stopped (NVIDIA's samples do), once. */
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, len, p->a.dev, &imp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(imp, p->a.dev, &desc, &len), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_mmap_stop(imp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_stop(imp), DOCA_ERROR_BAD_STATE);
	drop_mmaps(m, imp);
}

/*
 * The storage application's path: A's memory exported over PCI, imported by
 * B, which exports that import for RDMA; A's RDMA write through it lands in
 * A's memory. A read-only PCI export re-exports read-only.
 */
static void reexport_round(struct pair *p, uint32_t pci_perm)
{
	struct doca_mmap *pci_exp, *pci_imp = NULL, *rdma_imp = NULL;
	uint8_t *target = p->a.mem + SIDE_MEM / 2;
	struct doca_rdma_task_write *wt;
	struct doca_buf *src, *rdst;
	const void *desc;
	size_t len;

	assert_int_equal(doca_mmap_create(&pci_exp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(pci_exp, target, SIDE_MEM / 2), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(pci_exp, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | pci_perm),
			 DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(pci_exp, p->a.dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(pci_exp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_pci(pci_exp, p->a.dev, &desc, &len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, len, p->b.dev, &pci_imp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(pci_imp, p->b.dev, &desc, &len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, len, p->a.dev, &rdma_imp), DOCA_SUCCESS);
	src = side_buf(&p->a, 0, 4096, 4096);
	rdst = side_remote_buf(&p->a, rdma_imp, target + 8192, 4096, 0);
	assert_non_null(src);
	assert_non_null(rdst);
	pattern_fill(p->a.mem, 4096, 77);
	memset(target + 8192, 0, 4096);
	assert_int_equal(doca_rdma_task_write_allocate_init(p->a.rdma, p->ca, src, rdst, (union doca_data){0}, &wt),
			 DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_write_as_task(wt)), DOCA_SUCCESS);
	if (pci_perm == DOCA_ACCESS_FLAG_PCI_READ_WRITE) {
		assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
		assert_true(pattern_check(target + 8192, 4096, 77));
	} else {
		assert_true(side_wait(&p->a, &p->b, &p->a.failed, 1, WAIT_MS));
		assert_int_equal(p->a.last_status, DOCA_ERROR_NOT_PERMITTED);
		assert_logged("exported without RDMA write permission");
		assert_int_equal(target[8192], 0);
	}
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(rdst, NULL);
	assert_int_equal(doca_mmap_destroy(rdma_imp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(pci_imp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_stop(pci_exp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(pci_exp), DOCA_SUCCESS);
}

static void test_reexport_pci_import(void **state)
{
	struct pair *p = *state;

	pair_connect(p);
	reexport_round(p, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	reexport_round(p, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
}

/* ---- lists of source bufs ---- */

/* As pair_setup, with A's context taking source lists of up to 4 bufs. */
static int pair_setup_lists(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	ferry_test_log_reset();
	assert_int_equal(side_prepare(&p->a, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, RW_MMAP), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_set_max_send_buf_list_len(p->a.rdma, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_set_max_send_buf_list_len(p->a.rdma, RDMA_LIST_CAP + 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_set_max_send_buf_list_len(p->a.rdma, 4), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(p->a.ctx), DOCA_SUCCESS);
	assert_int_equal(side_init(&p->b, RESPONDER, RW_MMAP), DOCA_SUCCESS);
	*state = p;
	return 0;
}

/* A chain of @p n bufs of A's memory from @p off, segment i holding lens[i] bytes (pattern seed 5). */
static struct doca_buf *chain(struct pair *p, size_t off, const size_t *lens, int n)
{
	struct doca_buf *head = NULL;

	for (int i = 0; i < n; i++) {
		struct doca_buf *b = side_buf(&p->a, off, lens[i] + 64, lens[i]);

		assert_non_null(b);
		if (head == NULL)
			head = b;
		else
			assert_int_equal(doca_buf_chain_list(head, b), DOCA_SUCCESS);
		off += lens[i] + 64; /* gaps between the segments: only their data travels */
	}
	return head;
}

/* The bytes of the chain's segments, in order, into @p out. */
static size_t gather(struct doca_buf *head, uint8_t *out)
{
	size_t n = 0;

	for (struct doca_buf *b = head; b != NULL;) {
		struct doca_buf *next = NULL;
		void *data = NULL;
		size_t len = 0;

		assert_int_equal(doca_buf_get_data(b, &data), DOCA_SUCCESS);
		assert_int_equal(doca_buf_get_data_len(b, &len), DOCA_SUCCESS);
		memcpy(out + n, data, len);
		n += len;
		assert_int_equal(doca_buf_get_next_in_list(b, &next), DOCA_SUCCESS);
		b = next;
	}
	return n;
}

static void test_source_lists(void **state)
{
	static const size_t lens[] = {1000, 0, 70000, 3};
	static const size_t five[] = {1, 2, 3, 4, 5};
	static uint8_t want[80000];
	struct pair *p = *state;
	struct doca_mmap *exp, *imp;
	struct doca_buf *src, *dst, *rdst, *too_long;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st, *st5;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rd;
	uint32_t cap = 0;
	size_t n, got = 0;

	assert_int_equal(doca_rdma_cap_get_max_send_buf_list_len(doca_dev_as_devinfo(p->a.dev), &cap), DOCA_SUCCESS);
	assert_int_equal(cap, RDMA_LIST_CAP);
	pair_connect(p);
	pattern_fill(p->a.mem, SIDE_MEM / 4, 5);
	src = chain(p, 0, lens, 4);
	n = gather(src, want);
	assert_int_equal(n, 71003);
	/* A message: the receiver gets the segments' data back to back. */
	dst = side_buf(&p->b, 0, SIDE_MEM / 2, 0);
	memset(p->b.mem, 0, n + 16);
	assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, dst, (union doca_data){0}, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, p->ca, src, (union doca_data){0}, &st),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->b.ok, 1, WAIT_MS));
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	assert_int_equal(doca_buf_get_data_len(dst, &got), DOCA_SUCCESS);
	assert_int_equal(got, n);
	assert_memory_equal(p->b.mem, want, n);
	assert_int_equal(p->b.mem[n], 0);
	/* A write: the same bytes land back to back in the remote buf, whose data grows by their sum. */
	imp = import_b(p, &exp, RW_MMAP);
	rdst = side_remote_buf(&p->a, imp, p->b.mem + SIDE_MEM / 2, SIDE_MEM / 4, 0);
	assert_non_null(rdst);
	assert_int_equal(doca_rdma_task_write_allocate_init(p->a.rdma, p->ca, src, rdst, (union doca_data){0}, &wt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_write_as_task(wt)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 2, WAIT_MS));
	assert_int_equal(p->a.failed + p->b.failed, 0);
	assert_memory_equal(p->b.mem + SIDE_MEM / 2, want, n);
	assert_int_equal(doca_buf_get_data_len(rdst, &got), DOCA_SUCCESS);
	assert_int_equal(got, n);
	/* Five bufs are one more than this context takes. */
	too_long = chain(p, SIDE_MEM / 4, five, 5);
	assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, p->ca, too_long, (union doca_data){0}, &st5),
			 DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st5)), DOCA_ERROR_INVALID_VALUE);
	assert_logged("the source is a list of more than 4 bufs");
	/* A read's destination list is bounded the same way. */
	assert_int_equal(doca_rdma_task_read_allocate_init(p->a.rdma, p->ca, rdst, too_long, (union doca_data){0}, &rd),
			 DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_read_as_task(rd)), DOCA_ERROR_INVALID_VALUE);
	assert_logged("the destination is a list of more than 4 bufs");
	/* A remote buf is never a list (a write's destination here). */
	doca_task_free(doca_rdma_task_write_as_task(wt));
	assert_int_equal(
		doca_buf_chain_list(rdst, side_remote_buf(&p->a, imp, p->b.mem + SIDE_MEM / 2 + 200000, 64, 0)),
		DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_write_allocate_init(p->a.rdma, p->ca, src, rdst, (union doca_data){0}, &wt),
			 DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_write_as_task(wt)), DOCA_ERROR_INVALID_VALUE);
	assert_logged("the destination buf is a list; only a local source or a receive's or read's destination");
	assert_int_equal(p->a.failed + p->b.failed, 0);
	doca_task_free(doca_rdma_task_read_as_task(rd));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_task_free(doca_rdma_task_send_as_task(st5));
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(too_long, NULL);
	doca_buf_dec_refcount(dst, NULL);
	doca_buf_dec_refcount(rdst, NULL);
	drop_mmaps(exp, imp);
}

/*
 * A read into a list of 3 bufs: the remote bytes fill the free space after
 * each buf's data, in order (a full buf takes none), and each buf's data grows
 * by what it took; a read larger than the list's free space is refused.
 */
static void test_read_into_list(void **state)
{
	struct pair *p = *state;
	struct doca_mmap *exp, *imp;
	uint8_t *remote_mem = p->b.mem + SIDE_MEM / 2;
	const size_t len = 50000;
	struct doca_buf *rsrc, *rbig, *head, *full, *tail;
	struct doca_rdma_task_read *rt, *big;
	size_t got = 0;

	pair_connect(p);
	imp = import_b(p, &exp, RW_MMAP);
	pattern_fill(remote_mem, len, 17);
	rsrc = side_remote_buf(&p->a, imp, remote_mem, len, len);
	memset(p->a.mem, 0xEE, 70000);
	head = side_buf(&p->a, 0, 1000, 10);    /* 990 free after 10 bytes of data */
	full = side_buf(&p->a, 2048, 64, 64);   /* no room: skipped */
	tail = side_buf(&p->a, 4096, 60000, 0); /* the rest */
	assert_non_null(rsrc);
	assert_non_null(head);
	assert_non_null(full);
	assert_non_null(tail);
	assert_int_equal(doca_buf_chain_list(head, full), DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(head, tail), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_read_allocate_init(p->a.rdma, p->ca, rsrc, head, (union doca_data){0}, &rt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_read_as_task(rt)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	assert_int_equal(p->a.failed, 0);
	assert_int_equal(doca_rdma_task_read_get_result_len(rt), len);
	assert_int_equal(doca_buf_get_data_len(head, &got), DOCA_SUCCESS);
	assert_int_equal(got, 1000);
	assert_int_equal(doca_buf_get_data_len(full, &got), DOCA_SUCCESS);
	assert_int_equal(got, 64);
	assert_int_equal(doca_buf_get_data_len(tail, &got), DOCA_SUCCESS);
	assert_int_equal(got, len - 990);
	assert_int_equal(p->a.mem[9], 0xEE); /* the head's own data is untouched */
	assert_memory_equal(p->a.mem + 10, remote_mem, 990);
	assert_int_equal(p->a.mem[2048], 0xEE);
	assert_memory_equal(p->a.mem + 4096, remote_mem + 990, len - 990);
	assert_int_equal(p->a.mem[4096 + len - 990], 0xEE);
	/* More than the list's free space now (10990 bytes, all in the tail): refused with one line. */
	rbig = side_remote_buf(&p->a, imp, remote_mem, 11000, 11000);
	assert_non_null(rbig);
	assert_int_equal(doca_rdma_task_read_allocate_init(p->a.rdma, p->ca, rbig, head, (union doca_data){0}, &big),
			 DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_read_as_task(big)), DOCA_ERROR_INVALID_VALUE);
	assert_logged("11000 bytes do not fit the 10990 free bytes after the destination buf's data");
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_task_free(doca_rdma_task_read_as_task(big));
	doca_buf_dec_refcount(head, NULL);
	doca_buf_dec_refcount(rsrc, NULL);
	doca_buf_dec_refcount(rbig, NULL);
	drop_mmaps(exp, imp);
}

/* A receive into a list of 3 bufs: a small message (copied) and a large one (rendezvous) are scattered in order. */
static void test_receive_list(void **state)
{
	static const size_t rooms[] = {100, 40000, 300000};
	struct pair *p = *state;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st;
	uint32_t cap = 0;

	assert_int_equal(doca_rdma_cap_task_receive_get_max_dst_buf_list_len(doca_dev_as_devinfo(p->b.dev),
									     DOCA_RDMA_TRANSPORT_TYPE_RC, &cap),
			 DOCA_SUCCESS);
	assert_int_equal(cap, RDMA_LIST_CAP);
	pair_connect(p);
	for (int round = 0; round < 2; round++) {
		size_t len = round == 0 ? 150 : 340000, at = 0, off = 0;
		struct doca_buf *src = side_buf(&p->a, 0, len, len), *dst = NULL, *segs[3];

		pattern_fill(p->a.mem, len, 9 + (uint32_t)round);
		for (int i = 0; i < 3; i++) {
			segs[i] = side_buf(&p->b, off, rooms[i], 0);
			assert_non_null(segs[i]);
			if (dst == NULL)
				dst = segs[i];
			else
				assert_int_equal(doca_buf_chain_list(dst, segs[i]), DOCA_SUCCESS);
			off += rooms[i] + 4096;
		}
		assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, dst, (union doca_data){0}, &rt),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
		assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, p->ca, src, (union doca_data){0}, &st),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
		assert_true(side_wait(&p->a, &p->b, &p->b.ok, (unsigned)round + 1, WAIT_MS));
		assert_true(side_wait(&p->a, &p->b, &p->a.ok, (unsigned)round + 1, WAIT_MS));
		assert_int_equal(p->a.failed + p->b.failed, 0);
		assert_int_equal(doca_rdma_task_receive_get_result_len(rt), len);
		/* Each buf holds the next part of the message, as much as it had room for. */
		for (int i = 0; i < 3; i++) {
			size_t got = 0, want = len - at < rooms[i] ? len - at : rooms[i];
			void *data = NULL;

			assert_int_equal(doca_buf_get_data_len(segs[i], &got), DOCA_SUCCESS);
			assert_int_equal(got, want);
			assert_int_equal(doca_buf_get_data(segs[i], &data), DOCA_SUCCESS);
			assert_memory_equal(data, p->a.mem + at, want);
			at += want;
		}
		assert_int_equal(at, len);
		doca_task_free(doca_rdma_task_receive_as_task(rt));
		doca_task_free(doca_rdma_task_send_as_task(st));
		doca_buf_dec_refcount(src, NULL);
		doca_buf_dec_refcount(dst, NULL);
	}
	/* Four bufs are one more than this context's receives take. */
	{
		struct doca_buf *dst = side_buf(&p->b, 0, 64, 0);

		for (int i = 1; i < 4; i++)
			assert_int_equal(doca_buf_chain_list(dst, side_buf(&p->b, (size_t)i * 4096, 64, 0)),
					 DOCA_SUCCESS);
		assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, dst, (union doca_data){0}, &rt),
				 DOCA_SUCCESS);
		ferry_test_log_reset();
		assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_ERROR_INVALID_VALUE);
		assert_logged("the destination is a list of more than 3 bufs");
		doca_task_free(doca_rdma_task_receive_as_task(rt));
		doca_buf_dec_refcount(dst, NULL);
	}
}

/* As pair_setup, with B's receives taking lists of up to 3 bufs. */
static int pair_setup_recv_lists(void **state)
{
	struct pair *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	ferry_test_log_reset();
	assert_int_equal(side_init(&p->a, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, RW_MMAP), DOCA_SUCCESS);
	assert_int_equal(side_prepare(&p->b, RESPONDER, RW_MMAP), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_receive_set_dst_buf_list_len(p->b.rdma, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_task_receive_set_dst_buf_list_len(p->b.rdma, RDMA_LIST_CAP + 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_task_receive_set_dst_buf_list_len(p->b.rdma, 3), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(p->b.ctx), DOCA_SUCCESS);
	*state = p;
	return 0;
}

/* ---- stop ---- */

static void test_stop_flushes(void **state)
{
	struct pair *p = *state;
	struct doca_rdma_task_receive *rt[3];
	struct doca_buf *dst = side_buf(&p->b, 0, 4096, 0);

	pair_connect(p);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(doca_rdma_task_receive_allocate_init(p->b.rdma, i == 0 ? dst : NULL,
								      (union doca_data){0}, &rt[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt[i])), DOCA_SUCCESS);
	}
	assert_int_equal(doca_ctx_stop(p->b.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_true(side_wait(&p->b, &p->a, &p->b.failed, 3, WAIT_MS));
	assert_int_equal(p->b.last_status, DOCA_ERROR_IO_FAILED);
	for (int i = 0; i < 3; i++)
		doca_task_free(doca_rdma_task_receive_as_task(rt[i]));
	doca_buf_dec_refcount(dst, NULL);
	assert_true(side_stop(&p->b, &p->a));
	assert_true(side_stop(&p->a, &p->b));
	/* Restart: a new run voids the old connections; new ones work. */
	assert_int_equal(doca_ctx_start(p->a.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(p->b.ctx), DOCA_SUCCESS);
	p->a.ok = p->a.failed = p->b.ok = p->b.failed = 0;
	pair_connect(p);
	send_one(p, 5000, 3, true);
}

/* A stop flushes a task UCX still holds (a 1 MiB send nobody receives); the peer drops what it held. */
static void test_stop_inflight(void **state)
{
	struct pair *p = *state;
	struct doca_buf *src = side_buf(&p->a, 0, 1u << 20, 1u << 20);
	struct doca_rdma_task_send *st[1];

	pair_connect(p);
	assert_int_equal(doca_rdma_task_send_allocate_init(p->a.rdma, p->ca, src, (union doca_data){0}, &st[0]),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st[0])), DOCA_SUCCESS);
	for (int i = 0; i < 100; i++) {
		(void)doca_pe_progress(p->a.pe);
		(void)doca_pe_progress(p->b.pe);
	}
	assert_int_equal(p->a.ok + p->a.failed, 0); /* the rendezvous waits for a receive */
	assert_int_equal(doca_ctx_stop(p->a.ctx), DOCA_ERROR_IN_PROGRESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.failed, 1, WAIT_MS));
	assert_int_equal(p->a.last_status, DOCA_ERROR_IO_FAILED);
	doca_task_free(doca_rdma_task_send_as_task(st[0]));
	doca_buf_dec_refcount(src, NULL);
	assert_true(side_stop(&p->a, &p->b));
	/* The message B holds for a receive goes with B's stop. */
	assert_true(side_stop(&p->b, &p->a));
}

/* ---- sync events of a network peer ---- */

/* B's event, open to network publishers and exported; A's handle on it. */
struct net_event {
	struct doca_sync_event *ev;
	struct doca_sync_event_remote_net *rn;
};

static void net_event_make(struct pair *p, struct net_event *n)
{
	const uint8_t *blob = NULL;
	size_t sz = 0;

	assert_int_equal(doca_sync_event_cap_is_export_to_remote_net_supported(doca_dev_as_devinfo(p->b.dev)),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_create(&n->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_remote_net(n->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(n->ev, p->b.dev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(n->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_export_to_remote_net(n->ev, &blob, &sz), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_remote_net_create_from_export(p->a.dev, blob, sz, &n->rn), DOCA_SUCCESS);
}

static void net_event_drop(struct net_event *n)
{
	assert_int_equal(doca_sync_event_remote_net_destroy(n->rn), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_stop(n->ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(n->ev), DOCA_SUCCESS);
}

static uint64_t event_value(struct doca_sync_event *ev)
{
	uint64_t v = 0;

	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	return v;
}

/* A's 8-byte buf at @p off of its memory holding @p value (data_len 8). */
static struct doca_buf *value_buf(struct side *s, size_t off, uint64_t value)
{
	memcpy(s->mem + off, &value, sizeof(value));
	return side_buf(s, off, sizeof(value), sizeof(value));
}

static void test_net_sync_event(void **state)
{
	struct pair *p = *state;
	struct net_event n;
	struct doca_rdma_task_remote_net_sync_event_notify_set *set;
	struct doca_rdma_task_remote_net_sync_event_get *get;
	struct doca_rdma_task_remote_net_sync_event_notify_add *add;
	struct doca_buf *src, *dst, *res;
	uint64_t got = 0;
	size_t len = 0;

	pair_connect(p);
	net_event_make(p, &n);
	/* set: B's value becomes A's 8 bytes */
	src = value_buf(&p->a, 0, 0xD0CA);
	assert_int_equal(doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(p->a.rdma, p->ca, n.rn, src,
										       (union doca_data){0}, &set),
			 DOCA_SUCCESS);
	assert_ptr_equal(doca_rdma_task_remote_net_sync_event_notify_set_get_sync_event(set), n.rn);
	assert_int_equal(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_set_as_task(set)), DOCA_SUCCESS);
	memset(p->a.mem, 0xff, 8); /* the value was taken at submit */
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	assert_int_equal(event_value(n.ev), 0xD0CA);
	/* get: B updates locally, A reads it after its data (data_len grows by 8) */
	assert_int_equal(doca_sync_event_update_set(n.ev, 0xD0CB), DOCA_SUCCESS);
	dst = side_buf(&p->a, 4096, 64, 8);
	assert_int_equal(doca_rdma_task_remote_net_sync_event_get_allocate_init(p->a.rdma, p->ca, n.rn, dst,
										(union doca_data){0}, &get),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_remote_net_sync_event_get_as_task(get)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 2, WAIT_MS));
	memcpy(&got, p->a.mem + 4096 + 8, sizeof(got));
	assert_int_equal(got, 0xD0CB);
	assert_int_equal(doca_rdma_task_remote_net_sync_event_get_get_result_len(get), 8);
	assert_int_equal(doca_buf_get_data_len(dst, &len), DOCA_SUCCESS);
	assert_int_equal(len, 16);
	/* add: atomic, the value before it lands in the result buf */
	res = side_buf(&p->a, 8192, 8, 0);
	assert_int_equal(doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(p->a.rdma, p->ca, n.rn, res, 5,
										       (union doca_data){0}, &add),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_remote_net_sync_event_notify_add_get_add_data(add), 5);
	assert_int_equal(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_add_as_task(add)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 3, WAIT_MS));
	assert_int_equal(p->a.failed, 0);
	memcpy(&got, p->a.mem + 8192, sizeof(got));
	assert_int_equal(got, 0xD0CB);
	assert_int_equal(event_value(n.ev), 0xD0CB + 5);
	doca_task_free(doca_rdma_task_remote_net_sync_event_notify_set_as_task(set));
	doca_task_free(doca_rdma_task_remote_net_sync_event_get_as_task(get));
	doca_task_free(doca_rdma_task_remote_net_sync_event_notify_add_as_task(add));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	doca_buf_dec_refcount(res, NULL);
	net_event_drop(&n);
}

struct waiter {
	struct doca_sync_event *ev;
	uint64_t threshold;
	doca_error_t result;
};

static void *wait_above(void *arg)
{
	struct waiter *w = arg;

	w->result = doca_sync_event_wait_gt(w->ev, w->threshold, UINT64_MAX);
	return NULL;
}

/* B's thread sleeps in wait_gt and never progresses; A's adds from 8 tasks in flight still land and wake it. */
static void test_net_sync_event_owner_blocked(void **state)
{
	enum { ADDS = 8 };
	struct pair *p = *state;
	struct net_event n;
	struct doca_rdma_task_remote_net_sync_event_notify_add *add[ADDS];
	struct doca_buf *res[ADDS];
	struct waiter w;
	pthread_t t;
	uint64_t before[ADDS];

	pair_connect(p);
	net_event_make(p, &n);
	w = (struct waiter){n.ev, ADDS * 10 - 1, DOCA_ERROR_UNKNOWN};
	assert_int_equal(pthread_create(&t, NULL, wait_above, &w), 0);
	for (int i = 0; i < ADDS; i++) {
		res[i] = side_buf(&p->a, 8192 + 64 * (size_t)i, 8, 0);
		assert_int_equal(doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
					 p->a.rdma, p->ca, n.rn, res[i], 10, (union doca_data){0}, &add[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_add_as_task(add[i])),
				 DOCA_SUCCESS);
	}
	/* Only A progresses. */
	assert_true(side_wait(&p->a, NULL, &p->a.ok, ADDS, WAIT_MS));
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.result, DOCA_SUCCESS);
	assert_int_equal(event_value(n.ev), ADDS * 10);
	/* Each add saw a distinct value before it: 0, 10, ..., 70 in some order. */
	for (int i = 0; i < ADDS; i++) {
		memcpy(&before[i], p->a.mem + 8192 + 64 * (size_t)i, sizeof(before[i]));
		assert_int_equal(before[i] % 10, 0);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(before[i], before[j]);
		doca_task_free(doca_rdma_task_remote_net_sync_event_notify_add_as_task(add[i]));
		doca_buf_dec_refcount(res[i], NULL);
	}
	net_event_drop(&n);
}

struct timed_waiter {
	struct doca_sync_event *ev;
	uint64_t threshold;
	uint64_t woke_ns;
	doca_error_t result;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *wait_above_timed(void *arg)
{
	struct timed_waiter *w = arg;

	w->result = doca_sync_event_wait_gt(w->ev, w->threshold, UINT64_MAX);
	w->woke_ns = now_ns();
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The owner sleeps in wait_gt; a peer's set wakes it at once: the target that
 * writes the value wakes its sleepers, as a local update does. (Before, the
 * owner's waiters re-checked every millisecond: a median of about 500 us; a
 * set that woke nobody would leave them to the 50 ms re-check.)
 */
static void test_net_sync_event_set_wakes_owner(void **state)
{
	enum { ROUNDS = 21 };
	struct pair *p = *state;
	struct net_event n;
	uint64_t late_us[ROUNDS];

	pair_connect(p);
	net_event_make(p, &n);
	for (int r = 0; r < ROUNDS; r++) {
		struct timed_waiter w = {n.ev, (uint64_t)r, 0, DOCA_ERROR_UNKNOWN};
		struct doca_rdma_task_remote_net_sync_event_notify_set *set;
		struct doca_buf *src = value_buf(&p->a, 0, (uint64_t)r + 1);
		unsigned int ok = p->a.ok;
		uint64_t done_ns;
		pthread_t t;

		assert_int_equal(pthread_create(&t, NULL, wait_above_timed, &w), 0);
		usleep(3000); /* asleep in the futex by now */
		assert_int_equal(doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
					 p->a.rdma, p->ca, n.rn, src, (union doca_data){0}, &set),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_set_as_task(set)),
				 DOCA_SUCCESS);
		/* Only A progresses: B's service thread serves the set. */
		assert_true(side_wait(&p->a, NULL, &p->a.ok, ok + 1, WAIT_MS));
		done_ns = now_ns();
		assert_int_equal(pthread_join(t, NULL), 0);
		assert_int_equal(w.result, DOCA_SUCCESS);
		late_us[r] = w.woke_ns > done_ns ? (w.woke_ns - done_ns) / 1000 : 0;
		doca_task_free(doca_rdma_task_remote_net_sync_event_notify_set_as_task(set));
		doca_buf_dec_refcount(src, NULL);
	}
	qsort(late_us, ROUNDS, sizeof(late_us[0]), cmp_u64);
	print_message("owner woke %llu us (median) after the set completed; max %llu us\n",
		      (unsigned long long)late_us[ROUNDS / 2], (unsigned long long)late_us[ROUNDS - 1]);
	assert_true(late_us[ROUNDS / 2] < 250);
	net_event_drop(&n);
}

static void test_net_sync_event_refusals(void **state)
{
	struct pair *p = *state;
	struct net_event n;
	struct doca_sync_event *plain;
	struct doca_sync_event_remote_net *rn = NULL;
	struct doca_rdma_task_remote_net_sync_event_notify_set *set;
	struct doca_rdma_task_remote_net_sync_event_notify_add *add;
	struct doca_mmap *exp, *imp, *not_mmap = NULL;
	struct doca_buf *src4, *res;
	const uint8_t *blob = NULL;
	const void *mdesc = NULL;
	uint8_t forged[16384];
	size_t sz = 0, mlen = 0;

	pair_connect(p);
	net_event_make(p, &n);
	/* A PCI export is not a network one, and back. */
	assert_int_equal(doca_sync_event_create(&plain), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(plain), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_export_to_remote_net(plain, &blob, &sz), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("has no network publisher");
	assert_int_equal(doca_sync_event_export_to_remote_pci(plain, p->b.dev, &blob, &sz), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_remote_net_create_from_export(p->a.dev, blob, sz, &rn),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_sync_event_create_from_export takes it");
	assert_null(rn);
	/* An mmap's RDMA export wrapped as an event's: the range is not one 8-byte value. */
	imp = import_b(p, &exp, RW_MMAP | DOCA_ACCESS_FLAG_RDMA_ATOMIC);
	assert_int_equal(doca_mmap_export_rdma(exp, p->b.dev, &mdesc, &mlen), DOCA_SUCCESS);
	assert_true(mlen + 12 <= sizeof(forged));
	assert_int_equal(doca_sync_event_export_to_remote_net(n.ev, &blob, &sz), DOCA_SUCCESS);
	memcpy(forged, blob, 12); /* the header of a real network descriptor, then the mmap's descriptor */
	forged[8] = (uint8_t)mlen;
	forged[9] = (uint8_t)(mlen >> 8);
	forged[10] = forged[11] = 0;
	memcpy(forged + 12, mdesc, mlen);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_remote_net_create_from_export(p->a.dev, forged, mlen + 12, &rn),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not a sync event's aligned 8-byte value");
	assert_int_equal(doca_mmap_create_from_export(NULL, blob, sz, p->a.dev, &not_mmap), DOCA_ERROR_INVALID_VALUE);
	assert_null(not_mmap);
	/* A source that is not 8 bytes; an event that is not one. */
	src4 = side_buf(&p->a, 0, 8, 4);
	assert_int_equal(doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(p->a.rdma, p->ca, n.rn, src4,
										       (union doca_data){0}, &set),
			 DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_set_as_task(set)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("holds 4 bytes of data; an event's value is 8");
	doca_rdma_task_remote_net_sync_event_notify_set_set_sync_event(
		set, (struct doca_sync_event_remote_net *)(void *)forged);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_set_as_task(set)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not a sync event made by doca_sync_event_remote_net_create_from_export");
	/* A full result buf. */
	res = side_buf(&p->a, 8192, 8, 4);
	assert_int_equal(doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(p->a.rdma, p->ca, n.rn, res, 1,
										       (union doca_data){0}, &add),
			 DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_add_as_task(add)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("free bytes after its data; the value needs 8");
	assert_int_equal(p->a.ok + p->a.failed, 0);
	doca_task_free(doca_rdma_task_remote_net_sync_event_notify_set_as_task(set));
	doca_task_free(doca_rdma_task_remote_net_sync_event_notify_add_as_task(add));
	doca_buf_dec_refcount(src4, NULL);
	doca_buf_dec_refcount(res, NULL);
	drop_mmaps(exp, imp);
	assert_int_equal(doca_sync_event_stop(plain), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(plain), DOCA_SUCCESS);
	net_event_drop(&n);
}

/* The event's owner forbids remote atomics in its RDMA context: the add fails NOT_PERMITTED, the value stays. */
static void test_net_sync_event_peer_forbids(void **state)
{
	struct pair *p = *state;
	struct net_event n;
	struct doca_rdma_task_remote_net_sync_event_notify_add *add;
	struct doca_buf *res;

	pair_connect(p);
	net_event_make(p, &n);
	res = side_buf(&p->a, 8192, 8, 0);
	assert_int_equal(doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(p->a.rdma, p->ca, n.rn, res, 1,
										       (union doca_data){0}, &add),
			 DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_remote_net_sync_event_notify_add_as_task(add)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.failed, 1, WAIT_MS));
	assert_int_equal(p->a.last_status, DOCA_ERROR_NOT_PERMITTED);
	assert_logged("does not allow remote atomics");
	assert_int_equal(event_value(n.ev), 0);
	doca_task_free(doca_rdma_task_remote_net_sync_event_notify_add_as_task(add));
	doca_buf_dec_refcount(res, NULL);
	net_event_drop(&n);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_properties),
		cmocka_unit_test(test_export_before_start),
		cmocka_unit_test_setup_teardown(test_state_rules, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_send_receive_sizes, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_empty_message, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_send_early, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_orphan_receive, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_two_connections, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_receive_too_small, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_write_read, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_write_imm, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_read_only_export, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_peer_context_forbids_write, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_bad_conn_descriptors, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_bad_mem_descriptors, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_reexport_pci_import, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_source_lists, pair_setup_lists, pair_teardown),
		cmocka_unit_test_setup_teardown(test_read_into_list, pair_setup_lists, pair_teardown),
		cmocka_unit_test_setup_teardown(test_receive_list, pair_setup_recv_lists, pair_teardown),
		cmocka_unit_test_setup_teardown(test_connection_slot_reused, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_disconnect_with_tasks_out, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_stop_flushes, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_stop_inflight, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_net_sync_event, pair_setup_atomic, pair_teardown),
		cmocka_unit_test_setup_teardown(test_net_sync_event_owner_blocked, pair_setup_atomic, pair_teardown),
		cmocka_unit_test_setup_teardown(test_net_sync_event_set_wakes_owner, pair_setup_atomic, pair_teardown),
		cmocka_unit_test_setup_teardown(test_net_sync_event_refusals, pair_setup_atomic, pair_teardown),
		cmocka_unit_test_setup_teardown(test_net_sync_event_peer_forbids, pair_setup, pair_teardown),
	};

	ferry_test_log_reset();
	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
