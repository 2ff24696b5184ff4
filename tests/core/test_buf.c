/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_buf.c - doca_buf: invalid input, reference counting (to zero, past
 * zero, to the limit), the data window and its boundaries, and lists (chain,
 * chain_tail, unchain, release through the head).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include "core/ferry_memview.h"
#include "ferry_test.h"
#include "mem_fixture.h"

#define NUM_ELEMS 8u

static int setup(void **state)
{
	return mem_fixture_setup(state, NUM_ELEMS);
}

static int teardown(void **state)
{
	return mem_fixture_teardown(state);
}

static struct doca_buf *take(struct mem_fixture *f, size_t off, size_t len)
{
	struct doca_buf *b = NULL;

	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem + off, len, &b), DOCA_SUCCESS);
	return b;
}

static uint16_t refcount_of(const struct doca_buf *b)
{
	uint16_t rc = 0xbeef;

	assert_int_equal(doca_buf_get_refcount(b, &rc), DOCA_SUCCESS);
	return rc;
}

static uint32_t list_len_of(const struct doca_buf *b)
{
	uint32_t n = 0;

	assert_int_equal(doca_buf_get_list_len(b, &n), DOCA_SUCCESS);
	return n;
}

static struct doca_buf *next_of(struct doca_buf *b)
{
	struct doca_buf *n = (struct doca_buf *)(uintptr_t)1;

	assert_int_equal(doca_buf_get_next_in_list(b, &n), DOCA_SUCCESS);
	return n;
}

static struct doca_buf *last_of(struct doca_buf *b)
{
	struct doca_buf *l = NULL;

	assert_int_equal(doca_buf_get_last_in_list(b, &l), DOCA_SUCCESS);
	return l;
}

static void expect_flags(const struct doca_buf *b, uint8_t first, uint8_t last, uint8_t in_list)
{
	uint8_t v = 9;

	assert_int_equal(doca_buf_is_first_in_list(b, &v), DOCA_SUCCESS);
	assert_int_equal(v, first);
	assert_int_equal(doca_buf_is_last_in_list(b, &v), DOCA_SUCCESS);
	assert_int_equal(v, last);
	assert_int_equal(doca_buf_is_in_list(b, &v), DOCA_SUCCESS);
	assert_int_equal(v, in_list);
}

/* ---- invalid input ---- */

static void test_null_arguments(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *b = take(f, 0, 8);
	struct doca_buf *out;
	void *p;
	size_t n;
	uint16_t rc;
	uint32_t u32;
	uint8_t u8;

	assert_int_equal(doca_buf_inc_refcount(NULL, &rc), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_inc_refcount: buf is NULL");
	assert_int_equal(doca_buf_dec_refcount(NULL, &rc), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_dec_refcount: buf is NULL");
	assert_int_equal(doca_buf_get_refcount(NULL, &rc), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_refcount(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_get_refcount: refcount is NULL");
	assert_int_equal(doca_buf_get_len(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_len(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_head(NULL, &p), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_head(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_data(NULL, &p), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_data(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_data_len(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_data_len(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_set_data(NULL, f->mem, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_set_data(b, NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_logged("data is NULL");
	assert_int_equal(doca_buf_set_data_len(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_reset_data_len(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_next_in_list(NULL, &out), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_next_in_list(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_last_in_list(NULL, &out), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_last_in_list(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_is_first_in_list(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_is_last_in_list(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_is_in_list(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_list_len(NULL, &u32), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_get_list_len(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_chain_list(NULL, b), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_chain_list: list1 is NULL");
	assert_int_equal(doca_buf_chain_list(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_chain_list_tail(b, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_unchain_list(NULL, b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_unchain_list(b, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(refcount_of(b), 1);
	assert_int_equal(doca_buf_dec_refcount(b, NULL), DOCA_SUCCESS);
}

/* ---- reference count ---- */

static void test_refcount_to_zero_returns_element(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *b = take(f, 0, 8);
	uint16_t before = 0;

	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 1);
	assert_int_equal(refcount_of(b), 1);
	assert_int_equal(doca_buf_inc_refcount(b, &before), DOCA_SUCCESS);
	assert_int_equal(before, 1);
	assert_int_equal(refcount_of(b), 2);
	assert_int_equal(doca_buf_inc_refcount(b, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(b, &before), DOCA_SUCCESS);
	assert_int_equal(before, 3);
	assert_int_equal(doca_buf_dec_refcount(b, &before), DOCA_SUCCESS);
	assert_int_equal(before, 2);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 1);
	assert_int_equal(mmap_bufs(f->mmap), 1);
	assert_int_equal(doca_buf_dec_refcount(b, &before), DOCA_SUCCESS);
	assert_int_equal(before, 1);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
	assert_int_equal(mmap_bufs(f->mmap), 0);
	assert_int_equal(refcount_of(b), 0);

	/* A free descriptor refuses every change. */
	ferry_test_log_reset();
	assert_int_equal(doca_buf_dec_refcount(b, NULL), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_buf_dec_refcount: buf");
	assert_logged("already returned to its inventory");
	assert_int_equal(doca_buf_inc_refcount(b, NULL), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_buf_inc_refcount: buf");
	assert_int_equal(doca_buf_set_data(b, f->mem, 1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_buf_set_data_len(b, 1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_buf_reset_data_len(b), DOCA_ERROR_BAD_STATE);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
}

static void test_refcount_limit(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *b = take(f, 0, 8);
	uint16_t before = 0;

	for (uint32_t i = 1; i < UINT16_MAX; i++)
		assert_int_equal(doca_buf_inc_refcount(b, NULL), DOCA_SUCCESS);
	assert_int_equal(refcount_of(b), UINT16_MAX);
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inc_refcount(b, &before), DOCA_ERROR_TOO_BIG);
	assert_logged("already holds 65535 references");
	assert_int_equal(refcount_of(b), UINT16_MAX);
	for (uint32_t i = UINT16_MAX; i > 1; i--)
		assert_int_equal(doca_buf_dec_refcount(b, NULL), DOCA_SUCCESS);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 1);
	assert_int_equal(doca_buf_dec_refcount(b, &before), DOCA_SUCCESS);
	assert_int_equal(before, 1);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
}

/* ---- data window ---- */

static void expect_data(const struct doca_buf *b, void *data, size_t data_len)
{
	void *p = NULL;
	size_t n = 0;

	assert_int_equal(doca_buf_get_data(b, &p), DOCA_SUCCESS);
	assert_ptr_equal(p, data);
	assert_int_equal(doca_buf_get_data_len(b, &n), DOCA_SUCCESS);
	assert_int_equal(n, data_len);
}

static void test_set_data_boundaries(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *b = NULL;
	char *head = f->mem + 100;

	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, head, 50, &b), DOCA_SUCCESS);
	/* One byte before the head, one byte past the end, a start past the end. */
	assert_int_equal(doca_buf_set_data(b, head - 1, 1), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_set_data: buf");
	assert_logged("lies outside the buffer");
	assert_int_equal(doca_buf_set_data(b, head, 51), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_set_data(b, head + 49, 2), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_set_data(b, head + 51, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_set_data(b, head + 10, SIZE_MAX), DOCA_ERROR_INVALID_VALUE);
	expect_data(b, head, 0);

	/* Exactly the window, exactly to its end, empty at its end. */
	assert_int_equal(doca_buf_set_data(b, head, 50), DOCA_SUCCESS);
	expect_data(b, head, 50);
	assert_int_equal(doca_buf_set_data(b, head + 49, 1), DOCA_SUCCESS);
	expect_data(b, head + 49, 1);
	assert_int_equal(doca_buf_set_data(b, head + 50, 0), DOCA_SUCCESS);
	expect_data(b, head + 50, 0);

	/* set_data_len keeps the start; reset_data_len empties. */
	assert_int_equal(doca_buf_set_data(b, head + 10, 5), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_buf_set_data_len(b, 41), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_set_data_len: buf");
	expect_data(b, head + 10, 5);
	assert_int_equal(doca_buf_set_data_len(b, 40), DOCA_SUCCESS);
	expect_data(b, head + 10, 40);
	assert_int_equal(doca_buf_reset_data_len(b), DOCA_SUCCESS);
	expect_data(b, head + 10, 0);

	/* The window itself never moves. */
	void *p = NULL;
	size_t n = 0;
	assert_int_equal(doca_buf_get_head(b, &p), DOCA_SUCCESS);
	assert_ptr_equal(p, head);
	assert_int_equal(doca_buf_get_len(b, &n), DOCA_SUCCESS);
	assert_int_equal(n, 50);
	assert_int_equal(doca_buf_dec_refcount(b, NULL), DOCA_SUCCESS);
}

/* ---- lists ---- */

static void test_lone_buf_is_a_list_of_one(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *b = take(f, 0, 8);

	expect_flags(b, 1, 1, 0);
	assert_int_equal(list_len_of(b), 1);
	assert_null(next_of(b));
	assert_ptr_equal(last_of(b), b);
	assert_int_equal(doca_buf_dec_refcount(b, NULL), DOCA_SUCCESS);
}

static void test_chain_and_release_through_head(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *a = take(f, 0, 8), *b = take(f, 8, 8), *c = take(f, 16, 8);

	assert_int_equal(doca_buf_chain_list(a, b), DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(a, c), DOCA_SUCCESS);
	assert_int_equal(list_len_of(a), 3);
	assert_ptr_equal(next_of(a), b);
	assert_ptr_equal(next_of(b), c);
	assert_null(next_of(c));
	assert_ptr_equal(last_of(a), c);
	assert_ptr_equal(last_of(b), c);
	expect_flags(a, 1, 0, 1);
	expect_flags(b, 0, 0, 1);
	expect_flags(c, 0, 1, 1);
	assert_int_equal(refcount_of(b), 1);

	/* Only the head moves the count or answers for the list. */
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inc_refcount(b, NULL), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("doca_buf_inc_refcount: buf");
	assert_logged("only the head of a list");
	assert_int_equal(doca_buf_dec_refcount(c, NULL), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("release the list through its head");
	uint32_t n;
	assert_int_equal(doca_buf_get_list_len(b, &n), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("doca_buf_get_list_len: buf");
	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 3);

	/* Head's count guards the list: two refs, two decs. */
	assert_int_equal(doca_buf_inc_refcount(a, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(a, NULL), DOCA_SUCCESS);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 3);
	assert_int_equal(mmap_bufs(f->mmap), 3);
	assert_int_equal(doca_buf_dec_refcount(a, NULL), DOCA_SUCCESS);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
	assert_int_equal(mmap_bufs(f->mmap), 0);
	assert_int_equal(refcount_of(b), 0);
	assert_int_equal(refcount_of(c), 0);
}

static void test_chain_rules(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *a = take(f, 0, 8), *b = take(f, 8, 8), *c = take(f, 16, 8), *d = take(f, 24, 8);

	ferry_test_log_reset();
	assert_int_equal(doca_buf_chain_list(a, a), DOCA_ERROR_INVALID_VALUE);
	assert_logged("are the same buf");
	/* list2 must have exactly one reference. */
	assert_int_equal(doca_buf_inc_refcount(b, NULL), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_buf_chain_list(a, b), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("list2");
	assert_logged("has reference count 2; chaining needs exactly 1");
	assert_int_equal(doca_buf_dec_refcount(b, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(a, b), DOCA_SUCCESS);
	/* list1 may hold several references. */
	assert_int_equal(doca_buf_inc_refcount(c, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(c, d), DOCA_SUCCESS);
	assert_int_equal(refcount_of(c), 2);
	assert_int_equal(doca_buf_dec_refcount(c, NULL), DOCA_SUCCESS);

	/* Neither side may be the inside of a list. */
	ferry_test_log_reset();
	assert_int_equal(doca_buf_chain_list(b, c), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("list1");
	assert_int_equal(doca_buf_chain_list(c, b), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_buf_chain_list(a, d), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(list_len_of(a), 2);
	assert_int_equal(list_len_of(c), 2);

	/* chain_list_tail must be given list1's real tail. */
	ferry_test_log_reset();
	assert_int_equal(doca_buf_chain_list_tail(a, a, c), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_chain_list_tail: list1_tail");
	assert_int_equal(doca_buf_chain_list_tail(a, b, c), DOCA_SUCCESS);
	assert_int_equal(list_len_of(a), 4);
	assert_ptr_equal(last_of(a), d);
	assert_ptr_equal(next_of(b), c);

	/* A free buf cannot be chained. */
	struct doca_buf *e = take(f, 32, 8);
	assert_int_equal(doca_buf_dec_refcount(e, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(a, e), DOCA_ERROR_BAD_STATE);
	assert_int_equal(list_len_of(a), 4);

	assert_int_equal(doca_buf_dec_refcount(a, NULL), DOCA_SUCCESS);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
}

static void test_unchain(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *b[5];

	for (int i = 0; i < 5; i++) {
		b[i] = take(f, 8 * i, 8);
		if (i > 0)
			assert_int_equal(doca_buf_chain_list(b[0], b[i]), DOCA_SUCCESS);
	}
	struct doca_buf *stranger = take(f, 64, 8);

	ferry_test_log_reset();
	assert_int_equal(doca_buf_unchain_list(b[0], stranger), DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not part of list");
	assert_int_equal(doca_buf_unchain_list(b[0], b[0]), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_unchain_list(b[1], b[3]), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("doca_buf_unchain_list: list1");
	assert_int_equal(list_len_of(b[0]), 5);

	/* Cut before b[3]: [0,1,2] and [3,4]. */
	assert_int_equal(doca_buf_inc_refcount(b[0], NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_unchain_list(b[0], b[3]), DOCA_SUCCESS);
	assert_int_equal(list_len_of(b[0]), 3);
	assert_int_equal(list_len_of(b[3]), 2);
	assert_ptr_equal(last_of(b[0]), b[2]);
	assert_ptr_equal(last_of(b[3]), b[4]);
	assert_null(next_of(b[2]));
	expect_flags(b[2], 0, 1, 1);
	expect_flags(b[3], 1, 0, 1);
	assert_int_equal(refcount_of(b[0]), 2);
	assert_int_equal(refcount_of(b[3]), 1);

	/* Cut off the last one: [0,1] and a lone [2]. */
	assert_int_equal(doca_buf_unchain_list(b[0], b[2]), DOCA_SUCCESS);
	expect_flags(b[2], 1, 1, 0);
	assert_int_equal(list_len_of(b[0]), 2);

	/* Each part now lives on its own. */
	assert_int_equal(doca_buf_dec_refcount(b[3], NULL), DOCA_SUCCESS);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 4);
	assert_int_equal(doca_buf_dec_refcount(b[2], NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(b[0], NULL), DOCA_SUCCESS);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 3);
	assert_int_equal(doca_buf_dec_refcount(b[0], NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(stranger, NULL), DOCA_SUCCESS);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
}

static void test_list_across_inventories_and_mmaps(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf_inventory *inv2 = NULL;
	struct doca_mmap *mmap2 = NULL;
	static char other_mem[64];
	struct doca_buf *x = NULL;

	assert_int_equal(doca_buf_inventory_create(1, &inv2), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv2), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create(&mmap2), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(mmap2, other_mem, sizeof(other_mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mmap2), DOCA_SUCCESS);

	struct doca_buf *a = take(f, 0, 8);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv2, mmap2, other_mem, 8, &x), DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(a, x), DOCA_SUCCESS);
	assert_ptr_equal(ferry_buf_mmap(x), mmap2);
	assert_int_equal(mmap_bufs(mmap2), 1);
	assert_int_equal(doca_buf_dec_refcount(a, NULL), DOCA_SUCCESS);
	/* Each buf went home to its own inventory and left its own mmap. */
	assert_int_equal(free_elems(inv2), 1);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
	assert_int_equal(mmap_bufs(mmap2), 0);
	assert_int_equal(mmap_bufs(f->mmap), 0);
	assert_int_equal(doca_mmap_destroy(mmap2), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(inv2), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refcount_to_zero_returns_element, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refcount_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_data_boundaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lone_buf_is_a_list_of_one, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_and_release_through_head, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unchain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_across_inventories_and_mmaps, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
