/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_net_path.c - the network access path's ops in one process: a buffer
 * exported with the network path on 127.0.0.1 and imported back through it
 * (FERRY_LINK_NET=always), so every copy crosses the process's own network
 * server. Single reads and writes, scattered reads and gathered writes of
 * several pieces (empty ones, ones of many chunks) in one window, the checks
 * made before anything moves (a piece outside the export, a read-only
 * export: nothing of the run lands), the export revoked under the import,
 * and DOCA DMA tasks submitted in a batch through the path (the inline
 * channel hands a run of them to read_scatter / write_gather).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "ferry_test_dev.h"
#include "link/ferry_access.h"
#include "link/ferry_export.h"

#define LEN     (4u << 20)
#define MACHINE 0u
#define CALL    "test_net_path"

struct fixture {
	uint8_t *mem; /* the exporter's */
	uint8_t *local;
	struct ferry_link_export *exp;
	struct ferry_link_import *imp;
	const struct ferry_access *path;
	const void *desc;
	size_t desc_len;
};

static void fill(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 131 + seed);
}

static int open_fixture(void **state, uint32_t access)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ferry_link_net_offer offer = {.iface = "lo"};
	struct ferry_link_view view;

	setenv("FERRY_LINK_NET", "always", 1);
	assert_non_null(f);
	f->mem = malloc(LEN);
	f->local = malloc(LEN);
	assert_true(f->mem != NULL && f->local != NULL);
	fill(f->mem, LEN, 1);
	inet_pton(AF_INET, "127.0.0.1", &offer.ipv4);
	assert_int_equal(ferry_link_export_open(f->mem, LEN, access, MACHINE, &offer, CALL, &f->exp), DOCA_SUCCESS);
	ferry_link_export_desc(f->exp, &f->desc, &f->desc_len);
	assert_int_equal(ferry_link_import_open(f->desc, f->desc_len, MACHINE, 0, CALL, &f->imp, &view), DOCA_SUCCESS);
	f->path = ferry_link_import_access(f->imp);
	assert_string_equal(ferry_access_name(f->path), "net");
	assert_false(ferry_access_mapped(f->path));
	*state = f;
	return 0;
}

static int setup_rw(void **state)
{
	return open_fixture(state, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
}

static int setup_ro(void **state)
{
	return open_fixture(state, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->imp != NULL)
		ferry_link_import_close(f->imp);
	if (f->exp != NULL)
		ferry_link_export_close(f->exp);
	free(f->mem);
	free(f->local);
	free(f);
	unsetenv("FERRY_LINK_NET");
	return 0;
}

static uint64_t at(const struct fixture *f, size_t off)
{
	return (uintptr_t)f->mem + off;
}

static void test_read_write(void **state)
{
	struct fixture *f = *state;

	/* One byte, one chunk, many chunks, the whole export. */
	static const size_t sizes[] = {1, 4096, 300000, LEN};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t off = LEN - sizes[k];

		memset(f->local, 0, LEN);
		assert_int_equal(f->path->ops->read(f->path, f->local, at(f, off), sizes[k]), DOCA_SUCCESS);
		assert_memory_equal(f->local, f->mem + off, sizes[k]);
		fill(f->local, sizes[k], (unsigned)k + 7);
		assert_int_equal(f->path->ops->write(f->path, at(f, off), f->local, sizes[k]), DOCA_SUCCESS);
		assert_memory_equal(f->mem + off, f->local, sizes[k]);
	}
}

static void test_scatter_gather(void **state)
{
	struct fixture *f = *state;
	/* Empty, small, a chunk and a bit, several chunks; out of order in the export. */
	static const size_t off[] = {4096, 0, 1u << 20, 2u << 20, 100};
	static const size_t len[] = {0, 4000, 262145, 900000, 1};
	struct ferry_access_rpiece rp[5];
	struct ferry_access_piece wp[5];
	size_t done = 99, local = 0;

	memset(f->local, 0, LEN);
	for (size_t i = 0; i < 5; i++) {
		rp[i] = (struct ferry_access_rpiece){f->local + local, at(f, off[i]), len[i]};
		local += len[i] + 64;
	}
	assert_int_equal(f->path->ops->read_scatter(f->path, rp, 5, &done), DOCA_SUCCESS);
	assert_int_equal(done, 5);
	for (size_t i = 0; i < 5; i++)
		assert_memory_equal(rp[i].dst, f->mem + off[i], len[i]);

	fill(f->local, LEN, 99);
	local = 0;
	for (size_t i = 0; i < 5; i++) {
		wp[i] = (struct ferry_access_piece){at(f, off[i] + 8192 * (i + 1)), f->local + local, len[i]};
		local += len[i] + 64;
	}
	done = 99;
	assert_int_equal(f->path->ops->write_gather(f->path, wp, 5, &done), DOCA_SUCCESS);
	assert_int_equal(done, 5);
	for (size_t i = 0; i < 5; i++)
		assert_memory_equal(f->mem + off[i] + 8192 * (i + 1), wp[i].src, len[i]);
}

/* A piece outside the export refuses the whole run before anything moves. */
static void test_run_checked_first(void **state)
{
	struct fixture *f = *state;
	struct ferry_access_piece wp[3];
	struct ferry_access_rpiece rp[2];
	size_t done = 99;
	uint8_t *before = malloc(LEN);

	assert_non_null(before);
	memcpy(before, f->mem, LEN);
	fill(f->local, LEN, 42);
	wp[0] = (struct ferry_access_piece){at(f, 0), f->local, 4096};
	wp[1] = (struct ferry_access_piece){at(f, LEN - 10), f->local, 11}; /* one byte past the end */
	wp[2] = (struct ferry_access_piece){at(f, 8192), f->local, 4096};
	assert_int_equal(f->path->ops->write_gather(f->path, wp, 3, &done), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(done, 0);
	assert_memory_equal(f->mem, before, LEN);
	rp[0] = (struct ferry_access_rpiece){f->local, at(f, 0), 16};
	rp[1] = (struct ferry_access_rpiece){f->local, (uintptr_t)f->mem - 1, 2}; /* one byte before */
	done = 99;
	assert_int_equal(f->path->ops->read_scatter(f->path, rp, 2, &done), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(done, 0);
	free(before);
}

static void test_read_only(void **state)
{
	struct fixture *f = *state;
	struct ferry_access_piece wp = {at(f, 0), f->local, 16};
	size_t done = 99;

	assert_int_equal(f->path->ops->read(f->path, f->local, at(f, 0), 4096), DOCA_SUCCESS);
	assert_int_equal(f->path->ops->write(f->path, at(f, 0), f->local, 16), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(f->path->ops->write_gather(f->path, &wp, 1, &done), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(done, 0);
}

/* The exporter revokes the export: the next copy fails, the import is revoked, not gone. */
static void test_revoked(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(f->path->ops->read(f->path, f->local, at(f, 0), 4096), DOCA_SUCCESS);
	ferry_link_export_close(f->exp);
	f->exp = NULL;
	assert_int_equal(f->path->ops->read(f->path, f->local, at(f, 0), 4096), DOCA_ERROR_NOT_CONNECTED);
	assert_false(f->path->ops->alive(f->path));
	assert_int_equal(ferry_link_import_liveness(f->imp), FERRY_LINK_REVOKED);
	assert_false(ferry_link_import_alive(f->imp));
}

/* The server runs on one interface per process: an export offered on another is refused with a line. */
static void test_one_interface(void **state)
{
	struct fixture *f = *state;
	struct ferry_link_net_offer other = {.iface = "ferrynosuch0"};
	struct ferry_link_net_offer same = {.iface = "lo"};
	struct ferry_link_export *e = NULL;

	inet_pton(AF_INET, "127.0.0.2", &other.ipv4);
	assert_int_equal(
		ferry_link_export_open(f->mem, 4096, DOCA_ACCESS_FLAG_PCI_READ_ONLY, MACHINE, &other, CALL, &e),
		DOCA_ERROR_NOT_SUPPORTED);
	/* Another address on the same interface is one more listener of the same server. */
	inet_pton(AF_INET, "127.0.0.2", &same.ipv4);
	assert_int_equal(ferry_link_export_open(f->mem, 4096, DOCA_ACCESS_FLAG_PCI_READ_ONLY, MACHINE, &same, CALL, &e),
			 DOCA_SUCCESS);
	ferry_link_export_close(e);
}

/* ---- DOCA DMA through the path, tasks submitted in a batch ---- */

#define TASKS 24

struct dma {
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_buf_inventory *inv;
	struct doca_dma_task_memcpy *tasks[TASKS];
	unsigned next, done, failed;
};

/*
 * Each completion submits the next three tasks: submitted inside progress,
 * they ring one doorbell together, and the inline channel hands the run to
 * the path's read_scatter or write_gather.
 */
static void on_done(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct dma *d = cud.ptr;

	(void)tud;
	d->done++;
	d->failed += doca_task_get_status(doca_dma_task_memcpy_as_task(task)) != DOCA_SUCCESS;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	for (int k = 0; k < 3 && d->next < TASKS; k++)
		d->failed += doca_task_submit(doca_dma_task_memcpy_as_task(d->tasks[d->next++])) != DOCA_SUCCESS;
}

/* TASKS copies of different sizes, submitted in runs from the callbacks; remote -> local or back. */
static void dma_batch(struct fixture *f, struct doca_dev *dev, struct doca_mmap *remote, struct doca_mmap *lm,
		      bool to_remote)
{
	struct dma d = {0};
	union doca_data ud = {.ptr = &d};
	struct doca_buf *bufs[2 * TASKS];
	size_t off = 0, offs[TASKS], lens[TASKS];

	assert_int_equal(doca_buf_inventory_create(2 * TASKS, &d.inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(d.inv), DOCA_SUCCESS);
	assert_int_equal(doca_pe_create(&d.pe), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(dev, &d.dma), DOCA_SUCCESS);
	assert_int_equal(doca_dma_task_memcpy_set_conf(d.dma, on_done, on_done, TASKS), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_user_data(doca_dma_as_ctx(d.dma), ud), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(d.pe, doca_dma_as_ctx(d.dma)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_dma_as_ctx(d.dma)), DOCA_SUCCESS);
	for (unsigned i = 0; i < TASKS; i++) {
		size_t n = 1000 + (size_t)i * 9000; /* 1000 B to 208 KiB */
		union doca_data tud = {.u64 = i};
		struct doca_buf **src = &bufs[2 * i], **dst = &bufs[2 * i + 1];

		assert_int_equal(doca_buf_inventory_buf_get_by_data(d.inv, to_remote ? lm : remote,
								    (to_remote ? f->local : f->mem) + off, n, src),
				 DOCA_SUCCESS);
		assert_int_equal(doca_buf_inventory_buf_get_by_addr(d.inv, to_remote ? remote : lm,
								    (to_remote ? f->mem : f->local) + off, n, dst),
				 DOCA_SUCCESS);
		assert_int_equal(doca_dma_task_memcpy_alloc_init(d.dma, *src, *dst, tud, &d.tasks[i]), DOCA_SUCCESS);
		offs[i] = off;
		lens[i] = n;
		off += n + 512; /* gaps the copies leave alone */
	}
	d.next = 1;
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(d.tasks[0])), DOCA_SUCCESS);
	for (int spins = 0; d.done < TASKS && spins < 10000000; spins++)
		(void)doca_pe_progress(d.pe);
	assert_int_equal(d.done, TASKS);
	assert_int_equal(d.failed, 0);
	for (unsigned i = 0; i < TASKS; i++)
		assert_memory_equal(f->local + offs[i], f->mem + offs[i], lens[i]);
	for (unsigned i = 0; i < 2 * TASKS; i++)
		doca_buf_dec_refcount(bufs[i], NULL);
	assert_int_equal(doca_ctx_stop(doca_dma_as_ctx(d.dma)), DOCA_SUCCESS);
	assert_int_equal(doca_dma_destroy(d.dma), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(d.pe), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(d.inv), DOCA_SUCCESS);
}

static void test_dma_batches(void **state)
{
	struct fixture *f = *state;
	struct doca_dev *dev = ferry_test_open_dev("03:00.0", NULL);
	struct doca_mmap *remote = NULL, *lm = NULL;

	assert_non_null(dev);
	assert_int_equal(doca_mmap_create_from_export(NULL, f->desc, f->desc_len, dev, &remote), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create(&lm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(lm, f->local, LEN), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(lm, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(lm, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(lm), DOCA_SUCCESS);
	memset(f->local, 0, LEN);
	dma_batch(f, dev, remote, lm, false);
	fill(f->local, LEN, 77);
	dma_batch(f, dev, remote, lm, true);
	assert_int_equal(doca_mmap_destroy(lm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(remote), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_write, setup_rw, teardown),
		cmocka_unit_test_setup_teardown(test_scatter_gather, setup_rw, teardown),
		cmocka_unit_test_setup_teardown(test_run_checked_first, setup_rw, teardown),
		cmocka_unit_test_setup_teardown(test_read_only, setup_ro, teardown),
		cmocka_unit_test_setup_teardown(test_revoked, setup_rw, teardown),
		cmocka_unit_test_setup_teardown(test_one_interface, setup_rw, teardown),
		cmocka_unit_test_setup_teardown(test_dma_batches, setup_rw, teardown),
	};

	alarm(120);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
