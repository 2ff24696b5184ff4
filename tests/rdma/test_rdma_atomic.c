/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_atomic - DOCA RDMA's atomic tasks between two contexts of one
 * process, over whatever UCX_TLS the suite sets: fetch and add and compare
 * and swap change the remote word and hand back its old value (after the
 * result buf's data, which grows by 8), the accessors, and each refusal:
 * an unaligned or short remote word, a local buf as the remote word, a result
 * buf without room, an export or a peer context without RDMA_ATOMIC.
 */
#include "ferry_test.h"
#include "rdma_fixture.h"

#define WAIT_MS 10000u

static const uint32_t ATOMIC_MMAP = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
				    DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC;

struct pair {
	struct side a; /* requester */
	struct side b; /* target */
	struct doca_rdma_connection *ca, *cb;
	struct doca_mmap *exp, *imp; /* b's memory [SIDE_MEM / 2, SIDE_MEM), as a imports it */
	uint8_t *word;               /* b's memory at the start of the export */
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

static void export_b(struct pair *p, uint32_t perm)
{
	const void *desc;
	size_t len;

	assert_int_equal(doca_mmap_create(&p->exp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(p->exp, p->word, SIDE_MEM / 2), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(p->exp, perm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(p->exp, p->b.dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(p->exp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(p->exp, p->b.dev, &desc, &len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, len, p->a.dev, &p->imp), DOCA_SUCCESS);
}

static int setup_with(void **state, uint32_t target_perm, uint32_t export_perm)
{
	struct pair *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	ferry_test_log_reset();
	assert_int_equal(side_init(&p->a, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, ATOMIC_MMAP), DOCA_SUCCESS);
	assert_int_equal(side_init(&p->b, target_perm, ATOMIC_MMAP), DOCA_SUCCESS);
	p->word = p->b.mem + SIDE_MEM / 2;
	pair_connect(p);
	export_b(p, export_perm);
	*state = p;
	return 0;
}

static int pair_setup(void **state)
{
	return setup_with(state, ATOMIC_MMAP, ATOMIC_MMAP);
}

/* The export grants read and write only. */
static int pair_setup_no_atomic_export(void **state)
{
	return setup_with(state, ATOMIC_MMAP, ATOMIC_MMAP & ~(uint32_t)DOCA_ACCESS_FLAG_RDMA_ATOMIC);
}

/* The target's context does not allow remote atomics. */
static int pair_setup_no_atomic_ctx(void **state)
{
	return setup_with(state, ATOMIC_MMAP & ~(uint32_t)DOCA_ACCESS_FLAG_RDMA_ATOMIC, ATOMIC_MMAP);
}

static int pair_teardown(void **state)
{
	struct pair *p = *state;

	assert_true(side_stop(&p->a, &p->b));
	assert_true(side_stop(&p->b, &p->a));
	assert_int_equal(doca_mmap_destroy(p->imp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_stop(p->exp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(p->exp), DOCA_SUCCESS);
	side_fini(&p->a);
	side_fini(&p->b);
	free(p);
	return 0;
}

/* A buf over the remote word at offset @p off of the export, @p len bytes from its data address. */
static struct doca_buf *remote_word(struct pair *p, size_t off, size_t len)
{
	struct doca_buf *buf = side_remote_buf(&p->a, p->imp, p->word + off, len, 0);

	assert_non_null(buf);
	return buf;
}

static uint64_t load(const uint8_t *at)
{
	uint64_t v;

	memcpy(&v, at, sizeof(v));
	return v;
}

static void store(uint8_t *at, uint64_t v)
{
	memcpy(at, &v, sizeof(v));
}

static struct doca_rdma_task_atomic_fetch_add *fetch_add(struct pair *p, struct doca_buf *dst, struct doca_buf *res,
							 uint64_t add)
{
	struct doca_rdma_task_atomic_fetch_add *t;

	assert_int_equal(doca_rdma_task_atomic_fetch_add_allocate_init(p->a.rdma, p->ca, dst, res, add,
								       (union doca_data){.u64 = add}, &t),
			 DOCA_SUCCESS);
	return t;
}

static struct doca_rdma_task_atomic_cmp_swp *cmp_swp(struct pair *p, struct doca_buf *dst, struct doca_buf *res,
						     uint64_t cmp, uint64_t swap)
{
	struct doca_rdma_task_atomic_cmp_swp *t;

	assert_int_equal(doca_rdma_task_atomic_cmp_swp_allocate_init(p->a.rdma, p->ca, dst, res, cmp, swap,
								     (union doca_data){0}, &t),
			 DOCA_SUCCESS);
	return t;
}

/* ---- correctness ---- */

static void test_fetch_add(void **state)
{
	struct pair *p = *state;
	struct doca_buf *dst = remote_word(p, 64, 8);
	struct doca_buf *res = side_buf(&p->a, 0, 64, 0);
	struct doca_rdma_task_atomic_fetch_add *t;
	size_t len = 0;

	store(p->word + 64, 0xfffffffffffffff0ull);
	t = fetch_add(p, dst, res, 0x20);
	assert_int_equal(doca_task_submit(doca_rdma_task_atomic_fetch_add_as_task(t)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	assert_int_equal(p->a.failed, 0);
	/* The old value after the result buf's (empty) data; the addition wraps modulo 2^64. */
	assert_int_equal(load(p->a.mem), 0xfffffffffffffff0ull);
	assert_int_equal(load(p->word + 64), 0x10);
	assert_int_equal(doca_buf_get_data_len(res, &len), DOCA_SUCCESS);
	assert_int_equal(len, 8);
	/* Again: the second old value lands after the first. */
	assert_int_equal(doca_task_submit(doca_rdma_task_atomic_fetch_add_as_task(t)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 2, WAIT_MS));
	assert_int_equal(load(p->a.mem + 8), 0x10);
	assert_int_equal(load(p->word + 64), 0x30);
	assert_int_equal(doca_buf_get_data_len(res, &len), DOCA_SUCCESS);
	assert_int_equal(len, 16);
	/* Many in flight at once: each sees a distinct old value, the sum is exact. */
	{
		struct doca_rdma_task_atomic_fetch_add *many[SIDE_TASKS - 1];
		struct doca_buf *rb[SIDE_TASKS - 1];
		const unsigned int n = SIDE_TASKS - 1;
		uint64_t seen = 0;

		store(p->word + 64, 0);
		for (unsigned int i = 0; i < n; i++) {
			rb[i] = side_buf(&p->a, 4096 + i * 8, 8, 0);
			assert_non_null(rb[i]);
			many[i] = fetch_add(p, dst, rb[i], 1ull << i);
			assert_int_equal(doca_task_submit(doca_rdma_task_atomic_fetch_add_as_task(many[i])),
					 DOCA_SUCCESS);
		}
		assert_true(side_wait(&p->a, &p->b, &p->a.ok, 2 + n, WAIT_MS));
		assert_int_equal(p->a.failed, 0);
		assert_int_equal(load(p->word + 64), (1ull << n) - 1);
		/* Each old value is the sum of the additions before it: together they order the tasks. */
		for (unsigned int i = 0; i < n; i++) {
			uint64_t old = load(p->a.mem + 4096 + i * 8);

			assert_int_equal(old & (1ull << i), 0);
			seen |= old;
			doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(many[i]));
			doca_buf_dec_refcount(rb[i], NULL);
		}
		assert_int_equal(seen & ~((1ull << n) - 1), 0);
	}
	doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(t));
	doca_buf_dec_refcount(dst, NULL);
	doca_buf_dec_refcount(res, NULL);
}

static void test_cmp_swp(void **state)
{
	struct pair *p = *state;
	struct doca_buf *dst = remote_word(p, 4096, 64);
	struct doca_buf *res = side_buf(&p->a, 128, 64, 8); /* 8 bytes of data already: the old value goes after */
	struct doca_rdma_task_atomic_cmp_swp *t;
	size_t len = 0;

	store(p->a.mem + 128, 0x1111);
	store(p->word + 4096, 42);
	store(p->word + 4104, 0xabcdef); /* beyond the word: untouched */
	/* Unequal: no swap, the old value comes back. */
	t = cmp_swp(p, dst, res, 41, 7);
	assert_int_equal(doca_task_submit(doca_rdma_task_atomic_cmp_swp_as_task(t)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
	assert_int_equal(load(p->word + 4096), 42);
	assert_int_equal(load(p->a.mem + 128), 0x1111);
	assert_int_equal(load(p->a.mem + 136), 42);
	assert_int_equal(doca_buf_get_data_len(res, &len), DOCA_SUCCESS);
	assert_int_equal(len, 16);
	/* Equal: swapped. */
	doca_rdma_task_atomic_cmp_swp_set_cmp_data(t, 42);
	assert_int_equal(doca_task_submit(doca_rdma_task_atomic_cmp_swp_as_task(t)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.ok, 2, WAIT_MS));
	assert_int_equal(p->a.failed, 0);
	assert_int_equal(load(p->word + 4096), 7);
	assert_int_equal(load(p->a.mem + 144), 42);
	assert_int_equal(load(p->word + 4104), 0xabcdef);
	doca_task_free(doca_rdma_task_atomic_cmp_swp_as_task(t));
	doca_buf_dec_refcount(dst, NULL);
	doca_buf_dec_refcount(res, NULL);
}

static void test_accessors(void **state)
{
	struct pair *p = *state;
	struct doca_buf *dst = remote_word(p, 0, 8);
	struct doca_buf *res = side_buf(&p->a, 0, 8, 0);
	struct doca_rdma_task_atomic_cmp_swp *c = cmp_swp(p, dst, res, 1, 2);
	struct doca_rdma_task_atomic_fetch_add *f = fetch_add(p, dst, res, 3);

	assert_ptr_equal(doca_rdma_task_atomic_cmp_swp_get_dst_buf(c), dst);
	assert_ptr_equal(doca_rdma_task_atomic_cmp_swp_get_result_buf(c), res);
	assert_int_equal(doca_rdma_task_atomic_cmp_swp_get_cmp_data(c), 1);
	assert_int_equal(doca_rdma_task_atomic_cmp_swp_get_swap_data(c), 2);
	assert_ptr_equal(doca_rdma_task_atomic_cmp_swp_get_rdma_connection(c), p->ca);
	doca_rdma_task_atomic_cmp_swp_set_swap_data(c, 20);
	doca_rdma_task_atomic_cmp_swp_set_cmp_data(c, 10);
	doca_rdma_task_atomic_cmp_swp_set_result_buf(c, NULL);
	doca_rdma_task_atomic_cmp_swp_set_dst_buf(c, NULL);
	assert_int_equal(doca_rdma_task_atomic_cmp_swp_get_swap_data(c), 20);
	assert_int_equal(doca_rdma_task_atomic_cmp_swp_get_cmp_data(c), 10);
	assert_null(doca_rdma_task_atomic_cmp_swp_get_result_buf(c));
	assert_null(doca_rdma_task_atomic_cmp_swp_get_dst_buf(c));
	assert_int_equal(doca_rdma_task_atomic_fetch_add_get_add_data(f), 3);
	doca_rdma_task_atomic_fetch_add_set_add_data(f, 30);
	assert_int_equal(doca_rdma_task_atomic_fetch_add_get_add_data(f), 30);
	assert_ptr_equal(doca_rdma_task_atomic_fetch_add_get_dst_buf(f), dst);
	assert_ptr_equal(doca_rdma_task_atomic_fetch_add_get_result_buf(f), res);
	doca_rdma_task_atomic_fetch_add_set_rdma_connection(f, NULL);
	assert_null(doca_rdma_task_atomic_fetch_add_get_rdma_connection(f));
	/* NULL tasks: a log line, no crash. */
	assert_int_equal(doca_rdma_task_atomic_fetch_add_get_add_data(NULL), 0);
	assert_null(doca_rdma_task_atomic_cmp_swp_as_task(NULL));
	/* A missing connection is refused at allocation, a missing buf at submit. */
	{
		struct doca_rdma_task_atomic_fetch_add *none;

		assert_int_equal(doca_rdma_task_atomic_fetch_add_allocate_init(p->a.rdma, NULL, dst, res, 1,
									       (union doca_data){0}, &none),
				 DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(doca_rdma_task_atomic_fetch_add_allocate_init(p->a.rdma, p->ca, dst, res, 1,
									       (union doca_data){0}, NULL),
				 DOCA_ERROR_INVALID_VALUE);
	}
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_atomic_cmp_swp_as_task(c)), DOCA_ERROR_INVALID_VALUE);
	assert_logged("has no destination buf");
	/* set_conf only while IDLE, with both callbacks. */
	assert_int_equal(
		doca_rdma_task_atomic_fetch_add_set_conf(p->a.rdma, atomic_fetch_add_ok_cb, atomic_fetch_add_err_cb, 4),
		DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_rdma_task_atomic_cmp_swp_set_conf(NULL, atomic_cmp_swp_ok_cb, atomic_cmp_swp_err_cb, 4),
			 DOCA_ERROR_INVALID_VALUE);
	doca_task_free(doca_rdma_task_atomic_cmp_swp_as_task(c));
	doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(f));
	doca_buf_dec_refcount(dst, NULL);
	doca_buf_dec_refcount(res, NULL);
}

/* ---- refusals at submit (what the program got wrong) ---- */

static void refused(struct pair *p, struct doca_buf *dst, struct doca_buf *res, const char *rule)
{
	struct doca_rdma_task_atomic_fetch_add *t = fetch_add(p, dst, res, 1);

	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_atomic_fetch_add_as_task(t)), DOCA_ERROR_INVALID_VALUE);
	assert_logged(rule);
	doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(t));
}

static void test_refusals(void **state)
{
	struct pair *p = *state;
	struct doca_buf *unaligned = remote_word(p, 4, 8);
	struct doca_buf *short_word = remote_word(p, 8, 4);
	struct doca_buf *dst = remote_word(p, 0, 8);
	struct doca_buf *full = side_buf(&p->a, 0, 8, 8); /* no room after its data */
	struct doca_buf *res = side_buf(&p->a, 64, 8, 0);
	struct doca_buf *local_dst = side_buf(&p->a, 128, 8, 0);

	refused(p, unaligned, res, "not 8-byte aligned");
	refused(p, short_word, res, "fewer than 8 bytes");
	refused(p, dst, full, "the old value needs 8");
	refused(p, local_dst, res, "doca_mmap_export_rdma");
	refused(p, dst, dst, "not of an imported mmap");
	assert_int_equal(load(p->word), 0);
	assert_int_equal(p->a.ok + p->a.failed, 0);
	doca_buf_dec_refcount(unaligned, NULL);
	doca_buf_dec_refcount(short_word, NULL);
	doca_buf_dec_refcount(dst, NULL);
	doca_buf_dec_refcount(full, NULL);
	doca_buf_dec_refcount(res, NULL);
	doca_buf_dec_refcount(local_dst, NULL);
}

/* The last word of a 16-byte export is in range (the range check counts the word's 8 bytes, not more). */
static void test_word_at_export_end(void **state)
{
	struct pair *p = *state;
	struct doca_mmap *small;
	struct doca_buf *dst, *res = side_buf(&p->a, 0, 8, 0);
	const void *desc;
	size_t len;

	assert_int_equal(doca_mmap_create(&small), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(small, p->word + 8192, 16), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(small, ATOMIC_MMAP), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(small, p->b.dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(small), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(small, p->b.dev, &desc, &len), DOCA_SUCCESS);
	{
		struct doca_mmap *imp;

		assert_int_equal(doca_mmap_create_from_export(NULL, desc, len, p->a.dev, &imp), DOCA_SUCCESS);
		/* The buf itself must lie in the import; ask for one that ends at its end. */
		assert_int_equal(doca_buf_inventory_buf_get_by_args(p->a.inv, imp, p->word + 8192 + 8, 8,
								    p->word + 8192 + 8, 0, &dst),
				 DOCA_SUCCESS);
		store(p->word + 8192 + 8, 5);
		{
			struct doca_rdma_task_atomic_fetch_add *t = fetch_add(p, dst, res, 1);

			assert_int_equal(doca_task_submit(doca_rdma_task_atomic_fetch_add_as_task(t)), DOCA_SUCCESS);
			assert_true(side_wait(&p->a, &p->b, &p->a.ok, 1, WAIT_MS));
			assert_int_equal(load(p->word + 8192 + 8), 6);
			doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(t));
		}
		doca_buf_dec_refcount(dst, NULL);
		assert_int_equal(doca_mmap_destroy(imp), DOCA_SUCCESS);
	}
	doca_buf_dec_refcount(res, NULL);
	assert_int_equal(doca_mmap_stop(small), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(small), DOCA_SUCCESS);
}

/* ---- refusals of the peer's side (error callback, DOCA_ERROR_NOT_PERMITTED) ---- */

static void not_permitted(void **state, const char *rule)
{
	struct pair *p = *state;
	struct doca_buf *dst = remote_word(p, 0, 8);
	struct doca_buf *res = side_buf(&p->a, 0, 8, 0);
	struct doca_rdma_task_atomic_cmp_swp *c = cmp_swp(p, dst, res, 0, 99);
	struct doca_rdma_task_atomic_fetch_add *f = fetch_add(p, dst, res, 1);
	size_t len = 1;

	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_rdma_task_atomic_cmp_swp_as_task(c)), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_atomic_fetch_add_as_task(f)), DOCA_SUCCESS);
	assert_true(side_wait(&p->a, &p->b, &p->a.failed, 2, WAIT_MS));
	assert_int_equal(p->a.ok, 0);
	assert_int_equal(doca_task_get_status(doca_rdma_task_atomic_cmp_swp_as_task(c)), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_task_get_status(doca_rdma_task_atomic_fetch_add_as_task(f)), DOCA_ERROR_NOT_PERMITTED);
	assert_logged(rule);
	assert_int_equal(load(p->word), 0);
	assert_int_equal(doca_buf_get_data_len(res, &len), DOCA_SUCCESS);
	assert_int_equal(len, 0);
	doca_task_free(doca_rdma_task_atomic_cmp_swp_as_task(c));
	doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(f));
	doca_buf_dec_refcount(dst, NULL);
	doca_buf_dec_refcount(res, NULL);
}

static void test_export_without_atomic(void **state)
{
	not_permitted(state, "without RDMA atomic permission");
}

static void test_context_without_atomic(void **state)
{
	not_permitted(state, "does not allow remote atomic");
}

static void test_caps(void **state)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_true(n > 0);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(doca_rdma_cap_task_atomic_cmp_swp_is_supported(list[i]), DOCA_SUCCESS);
		assert_int_equal(doca_rdma_cap_task_atomic_fetch_add_is_supported(list[i]), DOCA_SUCCESS);
	}
	assert_int_equal(doca_rdma_cap_task_atomic_cmp_swp_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps),
		cmocka_unit_test_setup_teardown(test_fetch_add, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_cmp_swp, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_accessors, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_word_at_export_end, pair_setup, pair_teardown),
		cmocka_unit_test_setup_teardown(test_export_without_atomic, pair_setup_no_atomic_export, pair_teardown),
		cmocka_unit_test_setup_teardown(test_context_without_atomic, pair_setup_no_atomic_ctx, pair_teardown),
	};

	ferry_test_log_reset();
	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
