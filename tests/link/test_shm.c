/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_shm.c - ferry_mem_alloc_shared / ferry_mem_free_shared and the lookup
 * doca_mmap_export_pci uses to tell shareable ranges from ordinary memory;
 * exports across fork.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/wait.h>

#include <doca_dev.h>
#include <doca_mmap.h>
#include <ferry_mem.h>

#include "core/ferry_memview.h"
#include "link/ferry_export.h"

static void test_invalid_input(void **state)
{
	int x = 0;

	(void)state;
	errno = 0;
	assert_null(ferry_mem_alloc_shared(0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(ferry_mem_alloc_shared(SIZE_MAX));
	assert_int_not_equal(errno, 0);
	assert_int_equal(ferry_mem_free_shared(NULL), 0);
	errno = 0;
	assert_int_equal(ferry_mem_free_shared(&x), -1);
	assert_int_equal(errno, EINVAL);
}

static void test_alloc_is_zeroed_aligned_and_distinct(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *a = ferry_mem_alloc_shared(1);
	uint8_t *b = ferry_mem_alloc_shared(3 * page + 1);

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal((uintptr_t)a % page, 0);
	assert_int_equal((uintptr_t)b % page, 0);
	assert_ptr_not_equal(a, b);
	for (size_t i = 0; i < 4 * page; i++)
		assert_int_equal(b[i], 0); /* rounded up to whole pages, all usable */
	memset(b, 0xee, 4 * page);
	assert_int_equal(ferry_mem_free_shared(a), 0);
	assert_int_equal(ferry_mem_free_shared(b), 0);
	assert_int_equal(ferry_mem_free_shared(b), -1); /* twice */
}

static void test_lookup(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *blk = ferry_mem_alloc_shared(2 * page);
	uint8_t *plain = malloc(64);
	void *base = NULL;
	int fd = -1;

	(void)state;
	assert_non_null(blk);
	assert_int_equal(ferry_shm_lookup(plain, 64, &fd, &base), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(ferry_shm_lookup(blk + 2 * page, 1, &fd, &base), DOCA_ERROR_NOT_FOUND);    /* one past */
	assert_int_equal(ferry_shm_lookup(blk + page, page + 1, &fd, &base), DOCA_ERROR_NOT_FOUND); /* overhangs */
	assert_int_equal(ferry_shm_lookup(blk - 1, 2, &fd, &base), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(ferry_shm_lookup(blk + 10, page, &fd, &base), DOCA_SUCCESS);
	assert_ptr_equal(base, blk);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ferry_shm_lookup(blk, 2 * page, &fd, &base), DOCA_SUCCESS);
	close(fd);
	assert_int_equal(ferry_mem_free_shared(blk), 0);
	assert_int_equal(ferry_shm_lookup(blk, 1, &fd, &base), DOCA_ERROR_NOT_FOUND);
	free(plain);
}

/* Two processes that allocate alike must not get the same address (importers map at it). */
static void test_forked_processes_get_different_addresses(void **state)
{
	int p[2];
	uintptr_t mine, theirs = 0;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	void *blk = ferry_mem_alloc_shared(1 << 20);
	if (pid == 0) {
		uintptr_t v = (uintptr_t)blk;
		_exit(write(p[1], &v, sizeof(v)) == (ssize_t)sizeof(v) ? 0 : 1);
	}
	mine = (uintptr_t)blk;
	assert_int_equal(read(p[0], &theirs, sizeof(theirs)), (ssize_t)sizeof(theirs));
	assert_int_not_equal(mine, theirs);
	close(p[0]);
	close(p[1]);
	ferry_mem_free_shared(blk);
}

/* A forked child inherits the exporter's mmap; tearing it down there must not revoke the parent's export. */
static void test_forked_child_does_not_revoke(void **state)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	struct doca_dev *dev = NULL;
	struct doca_mmap *m = NULL, *imp = NULL;
	const void *desc;
	size_t desc_len;
	uint8_t *blk = ferry_mem_alloc_shared(4096);
	int status = 0;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, blk, 4096), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_pci(m, dev, &desc, &desc_len), DOCA_SUCCESS);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(doca_mmap_destroy(m) == DOCA_SUCCESS ? 0 : 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, desc_len, dev, &imp), DOCA_SUCCESS);
	assert_true(ferry_mmap_is_usable(imp));
	assert_int_equal(doca_mmap_destroy(imp), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	doca_devinfo_destroy_list(list);
	ferry_mem_free_shared(blk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_input),
		cmocka_unit_test(test_alloc_is_zeroed_aligned_and_distinct),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_forked_processes_get_different_addresses),
		cmocka_unit_test(test_forked_child_does_not_revoke),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
