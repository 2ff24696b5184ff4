/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_inventory.c - doca_buf_inventory: invalid input, state rules, the
 * range rules of get_by_args (with their exact boundaries), element counts,
 * exhaustion, dup of lone bufs and lists, user data.
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

#define NUM_ELEMS 4u

static int setup(void **state)
{
	return mem_fixture_setup(state, NUM_ELEMS);
}

static int teardown(void **state)
{
	return mem_fixture_teardown(state);
}

static void put(struct doca_buf *buf)
{
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
}

/* ---- create / destroy / start / stop ---- */

static void test_create_invalid(void **state)
{
	struct doca_buf_inventory *inv = NULL;

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_create(4, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_inventory_create: output pointer is NULL");
	assert_int_equal(doca_buf_inventory_create(0, &inv), DOCA_ERROR_INVALID_VALUE);
	assert_logged("num_elements is 0");
#if SIZE_MAX > UINT32_MAX
	assert_int_equal(doca_buf_inventory_create((size_t)UINT32_MAX + 1, &inv), DOCA_ERROR_INVALID_VALUE);
	assert_logged("exceeds the limit");
#endif
	assert_null(inv);
	assert_int_equal(doca_buf_inventory_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_stop(NULL), DOCA_ERROR_INVALID_VALUE);
}

static void test_getters_invalid(void **state)
{
	struct doca_buf_inventory *inv = NULL;
	union doca_data ud;
	uint32_t n;

	(void)state;
	assert_int_equal(doca_buf_inventory_create(2, &inv), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_get_num_elements(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_inventory_get_num_elements: inventory is NULL");
	assert_int_equal(doca_buf_inventory_get_num_elements(inv, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_get_num_free_elements(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_get_num_free_elements(inv, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_get_user_data(inv, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
}

static void test_counts_and_states(void **state)
{
	struct doca_buf_inventory *inv = NULL;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(doca_buf_inventory_create(7, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_get_num_elements(inv, &n), DOCA_SUCCESS);
	assert_int_equal(n, 7);
	assert_int_equal(free_elems(inv), 7);

	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_stop(inv), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_buf_inventory_stop: inventory");
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_ERROR_BAD_STATE);
	assert_logged("already started");
	assert_int_equal(free_elems(inv), 7);
	assert_int_equal(doca_buf_inventory_stop(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(free_elems(inv), 7);
	/* Destroy implies stop. */
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
}

static void test_user_data(void **state)
{
	struct doca_buf_inventory *inv = NULL;
	union doca_data ud = {.u64 = 5};

	(void)state;
	assert_int_equal(doca_buf_inventory_create(1, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_get_user_data(inv, &ud), DOCA_SUCCESS);
	assert_int_equal(ud.u64, 0);
	ud.u64 = 0xfeedbeefcafeULL;
	assert_int_equal(doca_buf_inventory_set_user_data(inv, ud), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	ud.u64 = 0;
	assert_int_equal(doca_buf_inventory_get_user_data(inv, &ud), DOCA_SUCCESS);
	assert_int_equal(ud.u64, 0xfeedbeefcafeULL);
	ferry_test_log_reset();
	ud.u64 = 1;
	assert_int_equal(doca_buf_inventory_set_user_data(inv, ud), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_buf_inventory_set_user_data: inventory");
	assert_int_equal(doca_buf_inventory_get_user_data(inv, &ud), DOCA_SUCCESS);
	assert_int_equal(ud.u64, 0xfeedbeefcafeULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
}

/* ---- taking bufs: invalid input and states ---- */

static void test_get_invalid_arguments(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *b = NULL;

	assert_int_equal(doca_buf_inventory_buf_get_by_args(NULL, f->mmap, f->mem, 8, f->mem, 0, &b),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_inventory_buf_get_by_args: inventory is NULL");
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, NULL, f->mem, 8, f->mem, 0, &b),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("mmap is NULL");
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 8, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("buf is NULL");
	assert_null(b);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
}

static void test_get_needs_started_objects(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_mmap *idle = NULL;
	struct doca_buf *b = NULL;

	assert_int_equal(doca_mmap_create(&idle), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(idle, f->mem, 64), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, idle, f->mem, 8, &b), DOCA_ERROR_BAD_STATE);
	assert_logged("is not started");
	assert_int_equal(doca_mmap_destroy(idle), DOCA_SUCCESS);

	assert_int_equal(doca_buf_inventory_stop(f->inv), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 8, &b), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_buf_inventory_buf_get_by_args: inventory");
	assert_null(b);
	assert_int_equal(doca_buf_inventory_start(f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 8, &b), DOCA_SUCCESS);
	put(b);
}

/* ---- range rules ---- */

static void test_range_boundaries(void **state)
{
	struct mem_fixture *f = *state;
	char *end = f->mem + FIX_MEM_LEN;
	struct doca_buf *b = NULL;

	/* Window one byte past the end of the mmap. */
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, end - 16, 17, &b),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("lies outside mmap");
	/* Window starting one byte before the mmap. */
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, (void *)((uintptr_t)f->mem - 1), 8, &b),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("lies outside mmap");
	/* Window starting at the end. */
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, end, 1, &b), DOCA_ERROR_INVALID_VALUE);
	/* A length that would wrap the address space. */
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem + 8, SIZE_MAX, &b),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, NULL, 8, &b), DOCA_ERROR_INVALID_VALUE);
	/* Data outside the window, by one byte on each side. */
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem + 8, 16, f->mem + 7, 1, &b),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("lies outside the buffer");
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem + 8, 16, f->mem + 8, 17, &b),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem + 8, 16, f->mem + 20, 5, &b),
			 DOCA_ERROR_INVALID_VALUE);
	assert_null(b);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
	assert_int_equal(mmap_bufs(f->mmap), 0);

	/* Exactly to the end: fine. */
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, end - 16, 16, &b), DOCA_SUCCESS);
	put(b);
	/* The whole mmap. */
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem, FIX_MEM_LEN, &b), DOCA_SUCCESS);
	put(b);
	/* Data ending exactly at the end of the window, and empty data at the very end. */
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem + 8, 16, f->mem + 20, 4, &b),
			 DOCA_SUCCESS);
	put(b);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem + 8, 16, f->mem + 24, 0, &b),
			 DOCA_SUCCESS);
	put(b);
}

/* ---- what each get builds ---- */

static void expect_buf(const struct doca_buf *b, void *head, size_t len, void *data, size_t data_len)
{
	void *p = NULL;
	size_t n = 0;
	uint16_t rc = 0;

	assert_int_equal(doca_buf_get_head(b, &p), DOCA_SUCCESS);
	assert_ptr_equal(p, head);
	assert_int_equal(doca_buf_get_len(b, &n), DOCA_SUCCESS);
	assert_int_equal(n, len);
	assert_int_equal(doca_buf_get_data(b, &p), DOCA_SUCCESS);
	assert_ptr_equal(p, data);
	assert_int_equal(doca_buf_get_data_len(b, &n), DOCA_SUCCESS);
	assert_int_equal(n, data_len);
	assert_int_equal(doca_buf_get_refcount(b, &rc), DOCA_SUCCESS);
	assert_int_equal(rc, 1);
}

static void test_get_variants(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *a = NULL, *d = NULL, *g = NULL;

	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem + 64, 128, &a), DOCA_SUCCESS);
	expect_buf(a, f->mem + 64, 128, f->mem + 64, 0);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem + 256, 32, &d), DOCA_SUCCESS);
	expect_buf(d, f->mem + 256, 32, f->mem + 256, 32);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem, 100, f->mem + 10, 20, &g),
			 DOCA_SUCCESS);
	expect_buf(g, f->mem, 100, f->mem + 10, 20);
	assert_ptr_equal(ferry_buf_mmap(a), f->mmap);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 3);
	assert_int_equal(mmap_bufs(f->mmap), 3);
	put(a);
	put(d);
	put(g);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
	assert_int_equal(mmap_bufs(f->mmap), 0);
}

static void test_exhaustion_and_return(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *b[NUM_ELEMS + 1] = {0};

	for (uint32_t i = 0; i < NUM_ELEMS; i++) {
		assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem + i, 1, &b[i]),
				 DOCA_SUCCESS);
		assert_int_equal(free_elems(f->inv), NUM_ELEMS - i - 1);
	}
	/* Distinct descriptors. */
	for (uint32_t i = 0; i < NUM_ELEMS; i++)
		for (uint32_t j = i + 1; j < NUM_ELEMS; j++)
			assert_ptr_not_equal(b[i], b[j]);
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 1, &b[NUM_ELEMS]),
			 DOCA_ERROR_NO_MEMORY);
	assert_logged("doca_buf_inventory_buf_get_by_args: inventory");
	assert_logged("is empty");
	assert_null(b[NUM_ELEMS]);

	/* Out bufs block destroy but not stop. */
	assert_int_equal(doca_buf_inventory_destroy(f->inv), DOCA_ERROR_IN_USE);
	assert_logged("doca_buf_inventory_destroy: inventory");
	assert_logged("still has 4 of 4 buf(s) out");
	assert_int_equal(doca_buf_inventory_stop(f->inv), DOCA_SUCCESS);

	/* Bufs still work and go home after the inventory stopped. */
	put(b[0]);
	assert_int_equal(free_elems(f->inv), 1);
	assert_int_equal(doca_buf_inventory_start(f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem, 1, &b[NUM_ELEMS]), DOCA_SUCCESS);
	/* LIFO: the descriptor just returned is handed out again. */
	assert_ptr_equal(b[NUM_ELEMS], b[0]);
	put(b[NUM_ELEMS]);
	for (uint32_t i = 1; i < NUM_ELEMS; i++)
		put(b[i]);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
}

/* ---- dup ---- */

static void test_dup_invalid(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *src = NULL, *tail = NULL, *dst = NULL;

	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem, 8, &src), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem + 8, 8, &tail), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_buf_dup(NULL, src, &dst), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_inventory_buf_dup: inventory is NULL");
	assert_int_equal(doca_buf_inventory_buf_dup(f->inv, NULL, &dst), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_buf_inventory_buf_dup(f->inv, src, NULL), DOCA_ERROR_INVALID_VALUE);

	assert_int_equal(doca_buf_chain_list(src, tail), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_buf_dup(f->inv, tail, &dst), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("only the head of a list can be duplicated");

	/* Two free descriptors, a list of two: fits; a list of three does not, and takes nothing. */
	struct doca_buf *third = NULL;
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem + 16, 8, &third), DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(src, third), DOCA_SUCCESS);
	assert_int_equal(free_elems(f->inv), 1);
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_buf_dup(f->inv, src, &dst), DOCA_ERROR_NO_MEMORY);
	assert_logged("has 1 free buf(s), the list of src buf");
	assert_int_equal(free_elems(f->inv), 1);
	assert_null(dst);

	assert_int_equal(doca_buf_inventory_stop(f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_dup(f->inv, src, &dst), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_buf_inventory_start(f->inv), DOCA_SUCCESS);

	put(src);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
	ferry_test_log_reset();
	assert_int_equal(doca_buf_inventory_buf_dup(f->inv, src, &dst), DOCA_ERROR_BAD_STATE);
	assert_logged("is free");
	assert_null(dst);
}

static void test_dup_lone_buf(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf_inventory *other = NULL;
	struct doca_buf *src = NULL, *dst = NULL;

	assert_int_equal(doca_buf_inventory_create(1, &other), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(other), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem, 64, f->mem + 4, 9, &src),
			 DOCA_SUCCESS);
	assert_int_equal(doca_buf_inc_refcount(src, NULL), DOCA_SUCCESS);
	/* Into another inventory. */
	assert_int_equal(doca_buf_inventory_buf_dup(other, src, &dst), DOCA_SUCCESS);
	assert_ptr_not_equal(dst, src);
	expect_buf(dst, f->mem, 64, f->mem + 4, 9); /* refcount 1, whatever src's is */
	assert_ptr_equal(ferry_buf_mmap(dst), f->mmap);
	assert_int_equal(free_elems(other), 0);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 1);
	assert_int_equal(mmap_bufs(f->mmap), 2);

	/* Independent: moving the copy's data leaves the source alone. */
	assert_int_equal(doca_buf_set_data(dst, f->mem + 32, 1), DOCA_SUCCESS);
	expect_buf(dst, f->mem, 64, f->mem + 32, 1);
	put(src);
	put(src);
	put(dst);
	assert_int_equal(free_elems(other), 1);
	assert_int_equal(mmap_bufs(f->mmap), 0);
	assert_int_equal(doca_buf_inventory_destroy(other), DOCA_SUCCESS);
}

/* Reuse re-aims a lone buf within its mmap, in place: same buf, same counts, no inventory trip. */
static void test_reuse(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf *b = NULL, *other = NULL;

	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->mmap, f->mem, 64, f->mem + 4, 9, &b),
			 DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_reuse_by_addr(b, f->mem + 128, 256), DOCA_SUCCESS);
	expect_buf(b, f->mem + 128, 256, f->mem + 128, 0);
	assert_int_equal(doca_buf_inventory_buf_reuse_by_data(b, f->mem + 1000, 17), DOCA_SUCCESS);
	expect_buf(b, f->mem + 1000, 17, f->mem + 1000, 17);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 1);
	assert_int_equal(mmap_bufs(f->mmap), 1);
	/* The whole mmap, and its last byte, are fine; one byte past is not (and the buf stays as it was). */
	assert_int_equal(doca_buf_inventory_buf_reuse_by_addr(b, f->mem, FIX_MEM_LEN), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_reuse_by_data(b, f->mem + FIX_MEM_LEN - 1, 1), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_reuse_by_data(b, f->mem + FIX_MEM_LEN - 1, 2),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_buf_inventory_buf_reuse_by_data");
	assert_int_equal(doca_buf_inventory_buf_reuse_by_addr(b, f->mem - 1, 2), DOCA_ERROR_INVALID_VALUE);
	expect_buf(b, f->mem + FIX_MEM_LEN - 1, 1, f->mem + FIX_MEM_LEN - 1, 1);
	assert_int_equal(doca_buf_inventory_buf_reuse_by_addr(NULL, f->mem, 1), DOCA_ERROR_INVALID_VALUE);
	/* Two holders, or a list: not in place. */
	assert_int_equal(doca_buf_inc_refcount(b, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_reuse_by_addr(b, f->mem, 8), DOCA_ERROR_NOT_PERMITTED);
	put(b);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem + 8, 8, &other), DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(b, other), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_reuse_by_addr(b, f->mem, 8), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_buf_inventory_buf_reuse_by_addr(other, f->mem, 8), DOCA_ERROR_NOT_PERMITTED);
	put(b); /* the list goes back whole */
	/* A buf given back is not reused. */
	assert_int_equal(doca_buf_inventory_buf_reuse_by_addr(b, f->mem, 8), DOCA_ERROR_BAD_STATE);
	assert_int_equal(mmap_bufs(f->mmap), 0);
}

static void test_dup_list(void **state)
{
	struct mem_fixture *f = *state;
	struct doca_buf_inventory *other = NULL;
	struct doca_buf *s[3] = {0};
	struct doca_buf *dst = NULL, *it = NULL;
	uint32_t len = 0;

	assert_int_equal(doca_buf_inventory_create(3, &other), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(other), DOCA_SUCCESS);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, f->mmap, f->mem + 100 * i, 10 + i, &s[i]),
				 DOCA_SUCCESS);
		if (i > 0)
			assert_int_equal(doca_buf_chain_list(s[0], s[i]), DOCA_SUCCESS);
	}
	assert_int_equal(doca_buf_inventory_buf_dup(other, s[0], &dst), DOCA_SUCCESS);
	assert_int_equal(free_elems(other), 0);
	assert_int_equal(doca_buf_get_list_len(dst, &len), DOCA_SUCCESS);
	assert_int_equal(len, 3);
	it = dst;
	for (int i = 0; i < 3; i++) {
		assert_non_null(it);
		for (int j = 0; j < 3; j++)
			assert_ptr_not_equal(it, s[j]);
		expect_buf(it, f->mem + 100 * i, 10 + i, f->mem + 100 * i, 10 + i);
		assert_int_equal(doca_buf_get_next_in_list(it, &it), DOCA_SUCCESS);
	}
	assert_null(it);
	assert_int_equal(doca_buf_get_last_in_list(dst, &it), DOCA_SUCCESS);
	uint8_t first = 1;
	assert_int_equal(doca_buf_is_first_in_list(it, &first), DOCA_SUCCESS);
	assert_int_equal(first, 0);

	/* Releasing the copy's head returns its whole list to its own inventory. */
	put(dst);
	assert_int_equal(free_elems(other), 3);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS - 3);
	put(s[0]);
	assert_int_equal(free_elems(f->inv), NUM_ELEMS);
	assert_int_equal(doca_buf_inventory_destroy(other), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_invalid),
		cmocka_unit_test(test_getters_invalid),
		cmocka_unit_test(test_counts_and_states),
		cmocka_unit_test(test_user_data),
		cmocka_unit_test_setup_teardown(test_get_invalid_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_needs_started_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_range_boundaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_variants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exhaustion_and_return, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dup_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dup_lone_buf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dup_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reuse, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
