/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem_fixture.h - a started mmap over a static array and a started inventory,
 * shared by the mmap, buf and inventory tests.
 */
#ifndef FERRY_TEST_MEM_FIXTURE_H_
#define FERRY_TEST_MEM_FIXTURE_H_

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#define FIX_MEM_LEN 4096u

struct mem_fixture {
	char mem[FIX_MEM_LEN];
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	uint32_t num_elements;
};

static inline int mem_fixture_setup(void **state, uint32_t num_elements)
{
	struct mem_fixture *f = calloc(1, sizeof(*f));

	if (f == NULL || doca_mmap_create(&f->mmap) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(f->mmap, f->mem, sizeof(f->mem)) != DOCA_SUCCESS ||
	    doca_mmap_start(f->mmap) != DOCA_SUCCESS ||
	    doca_buf_inventory_create(num_elements, &f->inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(f->inv) != DOCA_SUCCESS)
		return -1;
	f->num_elements = num_elements;
	ferry_test_log_reset();
	*state = f;
	return 0;
}

/* Teardown also proves that the test gave every buf back. */
static inline int mem_fixture_teardown(void **state)
{
	struct mem_fixture *f = *state;
	int rc = 0;

	if (doca_buf_inventory_destroy(f->inv) != DOCA_SUCCESS)
		rc = -1;
	if (doca_mmap_destroy(f->mmap) != DOCA_SUCCESS)
		rc = -1;
	free(f);
	return rc;
}

static inline uint32_t free_elems(const struct doca_buf_inventory *inv)
{
	uint32_t n = UINT32_MAX;

	assert_int_equal(doca_buf_inventory_get_num_free_elements(inv, &n), DOCA_SUCCESS);
	return n;
}

static inline uint32_t mmap_bufs(const struct doca_mmap *mmap)
{
	uint32_t n = UINT32_MAX;

	assert_int_equal(doca_mmap_get_num_bufs(mmap, &n), DOCA_SUCCESS);
	return n;
}

#endif /* FERRY_TEST_MEM_FIXTURE_H_ */
