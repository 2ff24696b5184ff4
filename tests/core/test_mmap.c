/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mmap.c - doca_mmap: invalid input, configuration rules, state rules,
 * devices, free callback, user data, export/import rules, the ferry_mem.h view.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#include "core/ferry_memview.h"
#include "ferry_test.h"
#include "mem_fixture.h"

static char mem[256];

static struct doca_mmap *new_mmap(void)
{
	struct doca_mmap *m = NULL;

	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_non_null(m);
	return m;
}

static struct doca_mmap *new_started_mmap(void)
{
	struct doca_mmap *m = new_mmap();

	assert_int_equal(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	return m;
}

/* ---- devices for add_dev: the emulated machine's first two ---- */

struct devs {
	struct doca_devinfo **list;
	uint32_t n;
	struct doca_dev *dev[2];
};

static int devs_setup(void **state)
{
	struct devs *d = calloc(1, sizeof(*d));

	if (d == NULL || doca_devinfo_create_list(&d->list, &d->n) != DOCA_SUCCESS || d->n < 2)
		return -1;
	for (int i = 0; i < 2; i++)
		if (doca_dev_open(d->list[i], &d->dev[i]) != DOCA_SUCCESS)
			return -1;
	ferry_test_log_reset();
	*state = d;
	return 0;
}

static int devs_teardown(void **state)
{
	struct devs *d = *state;
	int rc = 0;

	for (int i = 0; i < 2; i++)
		if (doca_dev_close(d->dev[i]) != DOCA_SUCCESS)
			rc = -1;
	doca_devinfo_destroy_list(d->list);
	free(d);
	return rc;
}

/* ---- invalid input ---- */

static void test_null_arguments(void **state)
{
	struct doca_mmap *m = new_mmap();
	union doca_data ud = {.u64 = 0};
	void *addr;
	size_t len;
	uint32_t u32;
	uint8_t u8;

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_mmap_create");
	assert_int_equal(doca_mmap_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_mmap_destroy: mmap is NULL");
	assert_int_equal(doca_mmap_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_set_memrange(NULL, mem, 1), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_mmap_set_memrange: mmap is NULL");
	assert_int_equal(doca_mmap_get_memrange(NULL, &addr, &len), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_get_memrange(m, NULL, &len), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_get_memrange(m, &addr, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_set_permissions(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_get_user_data(m, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_set_free_cb(NULL, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_set_max_num_devices(NULL, 2), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_get_max_num_devices(NULL, &u32), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_get_max_num_devices(m, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_get_num_bufs(NULL, &u32), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_get_num_bufs(m, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_get_exported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_get_from_export(m, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_add_dev(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_add_dev(m, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_mmap_add_dev: dev is NULL");
	assert_int_equal(doca_mmap_rm_dev(m, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_cap_is_export_pci_supported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_cap_is_create_from_export_pci_supported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

/* ---- memory range ---- */

static void test_memrange_rules(void **state)
{
	struct doca_mmap *m = new_mmap();
	void *addr = NULL;
	size_t len = 0;

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_get_memrange(m, &addr, &len), DOCA_ERROR_BAD_STATE);
	assert_logged("has no memory range");
	assert_int_equal(doca_mmap_set_memrange(m, NULL, 16), DOCA_ERROR_INVALID_VALUE);
	assert_logged("addr is NULL");
	assert_int_equal(doca_mmap_set_memrange(m, mem, 0), DOCA_ERROR_INVALID_VALUE);
	assert_logged("len is 0");
	assert_int_equal(doca_mmap_set_memrange(m, (void *)(UINTPTR_MAX - 8), 16), DOCA_ERROR_INVALID_VALUE);
	assert_logged("wraps around");
	assert_int_equal(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_get_memrange(m, &addr, &len), DOCA_SUCCESS);
	assert_ptr_equal(addr, mem);
	assert_int_equal(len, sizeof(mem));

	ferry_test_log_reset();
	assert_int_equal(doca_mmap_set_memrange(m, mem + 1, 4), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("can be set once");
	assert_int_equal(doca_mmap_get_memrange(m, &addr, &len), DOCA_SUCCESS);
	assert_ptr_equal(addr, mem);

	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_set_memrange(m, mem, 8), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_mmap_set_memrange: mmap");
	assert_logged("is started");
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

static void test_dmabuf_not_supported(void **state)
{
	struct doca_mmap *m = new_mmap();

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_set_dmabuf_memrange(NULL, 3, mem, 0, 8), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_set_dmabuf_memrange(m, 3, mem, 0, 8), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("doca_mmap_set_dmabuf_memrange");
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

/* ---- start / stop ---- */

static void test_start_stop_rules(void **state)
{
	struct doca_mmap *m = new_mmap();

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_start(m), DOCA_ERROR_INVALID_VALUE);
	assert_logged("has no memory range");
	assert_false(ferry_mmap_is_usable(m));
	assert_int_equal(doca_mmap_stop(m), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_mmap_stop: mmap");

	assert_int_equal(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_true(ferry_mmap_is_usable(m));
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_start(m), DOCA_ERROR_BAD_STATE);
	assert_logged("already started");
	assert_int_equal(doca_mmap_stop(m), DOCA_SUCCESS);
	assert_false(ferry_mmap_is_usable(m));
	/* A stopped map can be reconfigured and restarted. */
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_true(ferry_mmap_is_usable(m));
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

static void test_setters_need_stopped_mmap(void **state)
{
	struct doca_mmap *m = new_started_mmap();
	union doca_data ud = {.u64 = 7};

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_mmap_set_permissions");
	assert_int_equal(doca_mmap_set_user_data(m, ud), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_mmap_set_user_data");
	assert_int_equal(doca_mmap_set_free_cb(m, NULL, NULL), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_mmap_set_free_cb");
	assert_int_equal(doca_mmap_set_max_num_devices(m, 4), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("doca_mmap_set_max_num_devices");
	/* Nothing changed. */
	assert_int_equal(ferry_mmap_access(m), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	assert_int_equal(doca_mmap_get_user_data(m, &ud), DOCA_SUCCESS);
	assert_int_equal(ud.u64, 0);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

/* ---- permissions ---- */

static void test_permissions(void **state)
{
	struct doca_mmap *m = new_mmap();

	(void)state;
	/* Default lets local tasks write, as DOCA's DMA samples rely on. */
	assert_int_equal(ferry_mmap_access(m), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);

	ferry_test_log_reset();
	assert_int_equal(doca_mmap_set_permissions(m, 1u << 7), DOCA_ERROR_INVALID_VALUE);
	assert_logged("unknown access bits 0x80");
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_RDMA_WRITE), DOCA_ERROR_INVALID_VALUE);
	assert_logged("needs LOCAL_READ_WRITE");
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_RDMA_ATOMIC), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_mmap_access(m), DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);

	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY), DOCA_SUCCESS);
	assert_int_equal(ferry_mmap_access(m), DOCA_ACCESS_FLAG_LOCAL_READ_ONLY);
	uint32_t pci = DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING;
	assert_int_equal(doca_mmap_set_permissions(m, pci), DOCA_SUCCESS);
	assert_int_equal(ferry_mmap_access(m), pci);
	uint32_t rdma = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
			DOCA_ACCESS_FLAG_RDMA_ATOMIC;
	assert_int_equal(doca_mmap_set_permissions(m, rdma), DOCA_SUCCESS);
	assert_int_equal(ferry_mmap_access(m), rdma);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

/* ---- user data ---- */

static void test_enable_thread_safety(void **state)
{
	struct doca_mmap *m = new_mmap();

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_enable_thread_safety(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_enable_thread_safety(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	/* DOCA documents NOT_PERMITTED for a started map (was BAD_STATE). */
	assert_int_equal(doca_mmap_enable_thread_safety(m), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("call it before doca_mmap_start");
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

static void test_user_data_round_trip(void **state)
{
	struct doca_mmap *m = new_mmap();
	union doca_data ud = {.u64 = 1};
	int anchor;

	(void)state;
	assert_int_equal(doca_mmap_get_user_data(m, &ud), DOCA_SUCCESS);
	assert_int_equal(ud.u64, 0);
	ud.ptr = &anchor;
	assert_int_equal(doca_mmap_set_user_data(m, ud), DOCA_SUCCESS);
	ud.ptr = NULL;
	assert_int_equal(doca_mmap_get_user_data(m, &ud), DOCA_SUCCESS);
	assert_ptr_equal(ud.ptr, &anchor);
	/* Still readable while started. */
	assert_int_equal(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	ud.ptr = NULL;
	assert_int_equal(doca_mmap_get_user_data(m, &ud), DOCA_SUCCESS);
	assert_ptr_equal(ud.ptr, &anchor);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

/* ---- free callback ---- */

struct free_record {
	int calls;
	void *addr;
	size_t len;
	void *cookie;
};

static void record_free(void *addr, size_t len, void *cookie)
{
	struct free_record *r = cookie;

	r->calls++;
	r->addr = addr;
	r->len = len;
	r->cookie = cookie;
}

static void test_free_cb_called_once_at_destroy(void **state)
{
	struct free_record rec = {0};
	struct doca_mmap *m = new_mmap();

	(void)state;
	assert_int_equal(doca_mmap_set_memrange(m, mem + 8, 100), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_free_cb(m, record_free, &rec), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_stop(m), DOCA_SUCCESS);
	assert_int_equal(rec.calls, 0);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	/* Destroy while started: stops implicitly, then hands the range back. */
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
	assert_int_equal(rec.calls, 1);
	assert_ptr_equal(rec.addr, mem + 8);
	assert_int_equal(rec.len, 100);
	assert_ptr_equal(rec.cookie, &rec);
}

static void test_free_cb_rules(void **state)
{
	struct free_record rec = {0};
	struct doca_mmap *m;

	(void)state;
	/* Never started: the range was never handed over, so nothing is given back. */
	m = new_mmap();
	assert_int_equal(doca_mmap_set_memrange(m, mem, 8), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_free_cb(m, record_free, &rec), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
	assert_int_equal(rec.calls, 0);

	/* A NULL callback removes the one set before. */
	m = new_mmap();
	assert_int_equal(doca_mmap_set_memrange(m, mem, 8), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_free_cb(m, record_free, &rec), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_free_cb(m, NULL, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
	assert_int_equal(rec.calls, 0);
}

/* ---- bufs keep the map alive ---- */

static void test_stop_and_destroy_refused_while_bufs_exist(void **state)
{
	struct free_record rec = {0};
	struct doca_mmap *m = new_mmap();
	struct doca_buf_inventory *inv = NULL;
	struct doca_buf *b1 = NULL, *b2 = NULL;

	(void)state;
	assert_int_equal(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_free_cb(m, record_free, &rec), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(mmap_bufs(m), 0);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(inv, m, mem, 16, &b1), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, m, mem + 16, 16, &b2), DOCA_SUCCESS);
	assert_int_equal(mmap_bufs(m), 2);

	ferry_test_log_reset();
	assert_int_equal(doca_mmap_stop(m), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("doca_mmap_stop: mmap");
	assert_logged("still has 2 buf(s)");
	assert_true(ferry_mmap_is_usable(m));
	assert_int_equal(doca_mmap_destroy(m), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("doca_mmap_destroy: mmap");
	assert_int_equal(rec.calls, 0);

	assert_int_equal(doca_buf_dec_refcount(b1, NULL), DOCA_SUCCESS);
	assert_int_equal(mmap_bufs(m), 1);
	assert_int_equal(doca_mmap_stop(m), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_buf_dec_refcount(b2, NULL), DOCA_SUCCESS);
	assert_int_equal(mmap_bufs(m), 0);
	assert_int_equal(doca_mmap_stop(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
	assert_int_equal(rec.calls, 1);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
}

/* ---- devices ---- */

static void test_add_rm_dev(void **state)
{
	struct devs *d = *state;
	struct doca_mmap *m = new_mmap();
	uint32_t max = 0;

	ferry_test_log_reset();
	assert_int_equal(doca_mmap_get_max_num_devices(m, &max), DOCA_SUCCESS);
	assert_true(max >= 2);
	assert_false(ferry_mmap_has_dev(m, d->dev[0]));
	assert_int_equal(doca_mmap_rm_dev(m, d->dev[0]), DOCA_ERROR_NOT_FOUND);
	assert_logged("doca_mmap_rm_dev: device");
	assert_logged("was never added");

	assert_int_equal(doca_mmap_add_dev(m, d->dev[0]), DOCA_SUCCESS);
	assert_true(ferry_mmap_has_dev(m, d->dev[0]));
	assert_false(ferry_mmap_has_dev(m, d->dev[1]));
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_add_dev(m, d->dev[0]), DOCA_ERROR_ALREADY_EXIST);
	assert_logged("is already in mmap");

	/* The map holds the device: closing it is refused until the map lets go. */
	assert_int_equal(doca_dev_close(d->dev[0]), DOCA_ERROR_IN_USE);

	assert_int_equal(doca_mmap_add_dev(m, d->dev[1]), DOCA_SUCCESS);
	assert_true(ferry_mmap_has_dev(m, d->dev[1]));
	assert_int_equal(doca_mmap_rm_dev(m, d->dev[0]), DOCA_SUCCESS);
	assert_false(ferry_mmap_has_dev(m, d->dev[0]));
	assert_true(ferry_mmap_has_dev(m, d->dev[1]));
	assert_int_equal(doca_mmap_rm_dev(m, d->dev[0]), DOCA_ERROR_NOT_FOUND);

	/* Device changes need a stopped map. */
	assert_int_equal(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_add_dev(m, d->dev[0]), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("doca_mmap_add_dev: mmap");
	assert_int_equal(doca_mmap_rm_dev(m, d->dev[1]), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("doca_mmap_rm_dev: mmap");
	assert_true(ferry_mmap_has_dev(m, d->dev[1]));

	/* Destroy drops the device reference the map held. */
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

static void test_max_num_devices(void **state)
{
	struct devs *d = *state;
	struct doca_mmap *m = new_mmap();
	uint32_t max = 0;

	ferry_test_log_reset();
	assert_int_equal(doca_mmap_set_max_num_devices(m, 0), DOCA_ERROR_INVALID_VALUE);
	assert_logged("must be at least 1");
	assert_int_equal(doca_mmap_set_max_num_devices(m, 1), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_get_max_num_devices(m, &max), DOCA_SUCCESS);
	assert_int_equal(max, 1);
	assert_int_equal(doca_mmap_add_dev(m, d->dev[0]), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_add_dev(m, d->dev[1]), DOCA_ERROR_NO_MEMORY);
	assert_logged("maximum of 1 device(s)");
	assert_false(ferry_mmap_has_dev(m, d->dev[1]));

	assert_int_equal(doca_mmap_set_max_num_devices(m, 2), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, d->dev[1]), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_max_num_devices(m, 1), DOCA_ERROR_INVALID_VALUE);
	assert_logged("already holds 2 device(s)");

	/* Fixed at first start, even once stopped again. */
	assert_int_equal(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_stop(m), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_set_max_num_devices(m, 3), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("fixed at first start");
	assert_int_equal(doca_mmap_get_max_num_devices(m, &max), DOCA_SUCCESS);
	assert_int_equal(max, 2);
	/* But devices can still change on a stopped map. */
	assert_int_equal(doca_mmap_rm_dev(m, d->dev[1]), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

/* ---- export / import within one process (cross-process: tests/link) ---- */

static void test_export_import_rules(void **state)
{
	struct devs *d = *state;
	struct doca_mmap *m = new_mmap();
	struct doca_mmap *imported = NULL;
	const void *desc = NULL;
	size_t desc_len = 0;
	uint8_t flag = 9;
	char blob[16] = {0};

	assert_int_equal(doca_mmap_add_dev(m, d->dev[0]), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, mem, sizeof(mem)), DOCA_SUCCESS);

	ferry_test_log_reset();
	assert_int_equal(doca_mmap_export_pci(NULL, d->dev[0], &desc, &desc_len), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_export_pci(m, d->dev[0], NULL, &desc_len), DOCA_ERROR_INVALID_VALUE);
	/* Not started: DOCA documents NOT_PERMITTED (was BAD_STATE). */
	assert_int_equal(doca_mmap_export_pci(m, d->dev[0], &desc, &desc_len), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("doca_mmap_export_pci: mmap");
	assert_logged("is not started; export needs a started mmap");
	/* Started, but without a PCI permission: DOCA refuses the export. */
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_export_pci(m, d->dev[0], &desc, &desc_len), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("no PCI permission");
	assert_int_equal(doca_mmap_stop(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	ferry_test_log_reset();
	/* A device not in the map: DOCA documents NOT_FOUND (was INVALID_VALUE). */
	assert_int_equal(doca_mmap_export_pci(m, d->dev[1], &desc, &desc_len), DOCA_ERROR_NOT_FOUND);
	assert_logged("was not added");
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_export_rdma(m, d->dev[0], &desc, &desc_len), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("doca_mmap_export_rdma");

	ferry_test_log_reset();
	assert_int_equal(doca_mmap_create_from_export(NULL, NULL, 16, d->dev[1], &imported), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_create_from_export(NULL, blob, 0, d->dev[1], &imported), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_create_from_export(NULL, blob, sizeof(blob), d->dev[1], &imported),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_mmap_create_from_export: descriptor refused");
	assert_null(imported);
	/* A pointer that is not an open device is refused before anything reads it. */
	uint64_t not_a_dev[16] = {0};
	ferry_test_log_reset();
	assert_int_equal(
		doca_mmap_create_from_export(NULL, blob, sizeof(blob), (struct doca_dev *)(void *)not_a_dev, &imported),
		DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not an open device");

	/* Success: the descriptor is stable while the map stays started. */
	assert_int_equal(doca_mmap_export_pci(m, d->dev[0], &desc, &desc_len), DOCA_SUCCESS);
	assert_non_null(desc);
	assert_true(desc_len > 0);
	const void *again = NULL;
	size_t again_len = 0;
	assert_int_equal(doca_mmap_export_pci(m, d->dev[0], &again, &again_len), DOCA_SUCCESS);
	assert_ptr_equal(again, desc);
	assert_int_equal(again_len, desc_len);
	assert_int_equal(doca_mmap_get_exported(m, &flag), DOCA_SUCCESS);
	assert_int_equal(flag, 1);
	/* The map owns the bytes until it stops: keep a copy for after. */
	uint8_t saved[512];
	assert_true(desc_len <= sizeof(saved));
	memcpy(saved, desc, desc_len);

	/* Import in the same process: the same addresses, read back. */
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, desc_len, d->dev[1], &imported), DOCA_SUCCESS);
	/* Fresh from an export (started already), thread safety may still be asked for; on the exporter, no more. */
	assert_int_equal(doca_mmap_enable_thread_safety(imported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_enable_thread_safety(m), DOCA_ERROR_NOT_PERMITTED);
	/* Once a buf is taken from it, no more (DOCA: NOT_PERMITTED). */
	struct doca_buf_inventory *inv = NULL;
	struct doca_buf *buf = NULL;
	assert_int_equal(doca_buf_inventory_create(1, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(inv, imported, mem, 8, &buf), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_enable_thread_safety(imported), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("has 1 buf(s) taken already");
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	/*
	 * A map created from an export is started for life: each setter answers
	 * the code DOCA documents for it (BAD_STATE where that is its only state
	 * error, NOT_PERMITTED where DOCA names imports), and stop is refused.
	 */
	union doca_data ud = {.u64 = 7};
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_set_permissions(imported, DOCA_ACCESS_FLAG_PCI_READ_ONLY), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_mmap_set_permissions: mmap");
	assert_int_equal(doca_mmap_set_free_cb(imported, NULL, NULL), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_mmap_set_user_data(imported, ud), DOCA_ERROR_BAD_STATE);
	assert_logged("was created from an export; it cannot be reconfigured");
	assert_int_equal(doca_mmap_set_memrange(imported, mem, 8), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_mmap_set_max_num_devices(imported, 4), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_mmap_add_dev(imported, d->dev[0]), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_mmap_rm_dev(imported, d->dev[1]), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_mmap_start(imported), DOCA_ERROR_NOT_PERMITTED);
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_stop(imported), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("destroy it instead of stopping it");
	void *addr = NULL;
	size_t len = 0;
	assert_int_equal(doca_mmap_get_memrange(imported, &addr, &len), DOCA_SUCCESS);
	assert_ptr_equal(addr, mem);
	assert_int_equal(len, sizeof(mem));
	assert_int_equal(doca_mmap_get_from_export(imported, &flag), DOCA_SUCCESS);
	assert_int_equal(flag, 1);
	assert_true(ferry_mmap_is_usable(imported));
	assert_true(ferry_mmap_has_dev(imported, d->dev[1]));
	assert_int_equal(doca_mmap_export_pci(imported, d->dev[1], &again, &again_len), DOCA_ERROR_NOT_PERMITTED);

	/* Stopping the exporter revokes: the import turns unusable, new imports are refused. */
	assert_int_equal(doca_mmap_stop(m), DOCA_SUCCESS);
	assert_false(ferry_mmap_is_usable(imported));
	ferry_test_log_reset();
	struct doca_mmap *late = NULL;
	assert_int_equal(doca_mmap_create_from_export(NULL, saved, desc_len, d->dev[1], &late), DOCA_ERROR_NOT_FOUND);
	assert_logged("no longer exists");
	assert_null(late);
	assert_int_equal(doca_mmap_destroy(imported), DOCA_SUCCESS);

	flag = 9;
	assert_int_equal(doca_mmap_cap_is_export_pci_supported(doca_dev_as_devinfo(d->dev[0]), &flag), DOCA_SUCCESS);
	assert_int_equal(flag, 1);
	flag = 9;
	assert_int_equal(doca_mmap_cap_is_create_from_export_pci_supported(doca_dev_as_devinfo(d->dev[1]), &flag),
			 DOCA_SUCCESS);
	assert_int_equal(flag, 1);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_memrange_rules),
		cmocka_unit_test(test_dmabuf_not_supported),
		cmocka_unit_test(test_start_stop_rules),
		cmocka_unit_test(test_setters_need_stopped_mmap),
		cmocka_unit_test(test_permissions),
		cmocka_unit_test(test_user_data_round_trip),
		cmocka_unit_test(test_enable_thread_safety),
		cmocka_unit_test(test_free_cb_called_once_at_destroy),
		cmocka_unit_test(test_free_cb_rules),
		cmocka_unit_test(test_stop_and_destroy_refused_while_bufs_exist),
		cmocka_unit_test_setup_teardown(test_add_rm_dev, devs_setup, devs_teardown),
		cmocka_unit_test_setup_teardown(test_max_num_devices, devs_setup, devs_teardown),
		cmocka_unit_test_setup_teardown(test_export_import_rules, devs_setup, devs_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
