/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mmap_advise.c - doca_mmap_advise: invalid input, capabilities, the
 * configuration and state rules, submit's checks of the buf, completion only
 * from a later progress (also when a DMA completion callback submits, as
 * DOCA's cache_invalidate sample does), stop flushing, tasks freed in flight.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ferry_test.h"
#include "ferry_test_dev.h"

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>

#include "core/mem_priv.h"

#define MEM_LEN  8192u
#define NUM_BUFS 16u

struct fix {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_mmap_advise *adv;
	struct doca_ctx *ctx;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	char mem[MEM_LEN];

	/* What the callbacks saw. */
	unsigned ok, errors;
	doca_error_t last_status;
	uint64_t last_user;
	struct doca_mmap_advise_task_invalidate_cache *last_task;
	bool free_in_cb;
};

static const union doca_data no_data = {.u64 = 0};

static void on_task(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data tud, union doca_data cud,
		    bool success)
{
	struct fix *f = cud.ptr;
	struct doca_task *base = doca_mmap_advise_task_invalidate_cache_as_doca_task(task);

	if (success)
		f->ok++;
	else
		f->errors++;
	f->last_status = doca_task_get_status(base);
	f->last_user = tud.u64;
	f->last_task = task;
	if (f->free_in_cb)
		doca_task_free(base);
}

static void on_ok(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data tud, union doca_data cud)
{
	on_task(task, tud, cud, true);
}

static void on_err(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data tud, union doca_data cud)
{
	on_task(task, tud, cud, false);
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	union doca_data ud;

	if (f == NULL)
		return -1;
	f->dev = ferry_test_open_dev("b1:00.0", NULL);
	if (f->dev == NULL || doca_pe_create(&f->pe) != DOCA_SUCCESS ||
	    doca_mmap_advise_create(f->dev, &f->adv) != DOCA_SUCCESS)
		return -1;
	f->ctx = doca_mmap_advise_as_ctx(f->adv);
	ud.ptr = f;
	if (doca_ctx_set_user_data(f->ctx, ud) != DOCA_SUCCESS || doca_pe_connect_ctx(f->pe, f->ctx) != DOCA_SUCCESS)
		return -1;
	if (doca_mmap_create(&f->mmap) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(f->mmap, f->mem, MEM_LEN) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(f->mmap, f->dev) != DOCA_SUCCESS || doca_mmap_start(f->mmap) != DOCA_SUCCESS)
		return -1;
	if (doca_buf_inventory_create(NUM_BUFS, &f->inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(f->inv) != DOCA_SUCCESS)
		return -1;
	ferry_test_log_reset();
	*state = f;
	return 0;
}

/* Teardown also proves the test left the context IDLE and gave every buf back. */
static int teardown(void **state)
{
	struct fix *f = *state;
	int rc = 0;

	if (doca_mmap_advise_destroy(f->adv) != DOCA_SUCCESS)
		rc = -1;
	if (doca_pe_destroy(f->pe) != DOCA_SUCCESS)
		rc = -1;
	if (doca_buf_inventory_destroy(f->inv) != DOCA_SUCCESS)
		rc = -1;
	if (doca_mmap_destroy(f->mmap) != DOCA_SUCCESS)
		rc = -1;
	if (doca_dev_close(f->dev) != DOCA_SUCCESS)
		rc = -1;
	free(f);
	return rc;
}

static void start(struct fix *f, uint32_t num_tasks)
{
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(f->adv, on_ok, on_err, num_tasks),
			 DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
}

static void stop_idle(struct fix *f)
{
	enum doca_ctx_states st;
	doca_error_t err = doca_ctx_stop(f->ctx);

	assert_true(err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS);
	for (int i = 0; i < 100; i++) {
		assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
		if (st == DOCA_CTX_STATE_IDLE)
			return;
		(void)doca_pe_progress(f->pe);
	}
	fail_msg("the context did not reach IDLE");
}

static struct doca_buf *new_buf(struct fix *f, size_t off, size_t len)
{
	struct doca_buf *buf = NULL;

	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem + off, len, &buf), DOCA_SUCCESS);
	return buf;
}

static struct doca_mmap_advise_task_invalidate_cache *new_task(struct fix *f, struct doca_buf *buf, uint64_t user)
{
	struct doca_mmap_advise_task_invalidate_cache *task = NULL;
	union doca_data ud = {.u64 = user};

	assert_int_equal(doca_mmap_advise_task_invalidate_cache_alloc_init(f->adv, buf, ud, &task), DOCA_SUCCESS);
	assert_non_null(task);
	return task;
}

static doca_error_t submit(struct doca_mmap_advise_task_invalidate_cache *task)
{
	return doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(task));
}

static void task_free(struct doca_mmap_advise_task_invalidate_cache *task)
{
	doca_task_free(doca_mmap_advise_task_invalidate_cache_as_doca_task(task));
}

/* ---- invalid input, capabilities ---- */

static void test_null_arguments(void **state)
{
	struct fix *f = *state;
	struct doca_mmap_advise *adv = NULL;
	struct doca_mmap_advise_task_invalidate_cache *task = NULL;
	uint64_t size = 0;

	assert_int_equal(doca_mmap_advise_create(NULL, &adv), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_mmap_advise_create: dev is NULL");
	assert_int_equal(doca_mmap_advise_create(f->dev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_mmap_advise_as_ctx(NULL));
	assert_int_equal(doca_mmap_advise_cap_task_cache_invalidate_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(NULL, &size),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(doca_dev_as_devinfo(f->dev), NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(NULL, on_ok, on_err, 4),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_alloc_init(NULL, NULL, no_data, &task),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_alloc_init(f->adv, NULL, no_data, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_mmap_advise_task_invalidate_cache_as_doca_task(NULL));
	ferry_test_log_reset();
	doca_mmap_advise_task_invalidate_cache_set_buf(NULL, NULL);
	assert_logged("doca_mmap_advise_task_invalidate_cache_set_buf: task is NULL");
	assert_null(doca_mmap_advise_task_invalidate_cache_get_buf(NULL));
	assert_logged("doca_mmap_advise_task_invalidate_cache_get_buf: task is NULL");
}

static void test_caps(void **state)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_true(n > 0);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t adv_max = 0, dma_max = 0;

		assert_int_equal(doca_mmap_advise_cap_task_cache_invalidate_is_supported(list[i]), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_advise_task_cache_invalidate_get_max_buf_size(list[i], &adv_max),
				 DOCA_SUCCESS);
		assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_size(list[i], &dma_max), DOCA_SUCCESS);
		assert_true(adv_max >= dma_max);
		assert_true(adv_max > 0);
	}
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
}

/* ---- configuration and state ---- */

static void test_conf_rules(void **state)
{
	struct fix *f = *state;
	struct doca_mmap_advise_task_invalidate_cache *task = NULL, *t1, *t2;

	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(f->adv, NULL, on_err, 4),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("callbacks must not be NULL");
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(f->adv, on_ok, NULL, 4),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(f->adv, on_ok, on_err, 0),
			 DOCA_ERROR_INVALID_VALUE);
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(f->adv, on_ok, on_err, UINT32_MAX),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("above the limit");
	/* Not configured yet: alloc needs a RUNNING context. */
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_alloc_init(f->adv, NULL, no_data, &task),
			 DOCA_ERROR_BAD_STATE);
	start(f, 2);
	ferry_test_log_reset();
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(f->adv, on_ok, on_err, 4),
			 DOCA_ERROR_NOT_PERMITTED);
	assert_logged("task configuration needs IDLE");
	assert_int_equal(doca_mmap_advise_destroy(f->adv), DOCA_ERROR_BAD_STATE);
	/* The pool holds two tasks: the third is refused like any other type's. */
	t1 = new_task(f, NULL, 1);
	t2 = new_task(f, NULL, 2);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_alloc_init(f->adv, NULL, no_data, &task),
			 DOCA_ERROR_NO_MEMORY);
	task_free(t1);
	t1 = new_task(f, NULL, 3);
	task_free(t1);
	task_free(t2);
	stop_idle(f);
	/* IDLE again: reconfigurable, and the new size holds after a restart. */
	start(f, 3);
	t1 = new_task(f, NULL, 0);
	t2 = new_task(f, NULL, 0);
	task = new_task(f, NULL, 0);
	task_free(t1);
	task_free(t2);
	task_free(task);
	stop_idle(f);
}

static void test_buf_accessors(void **state)
{
	struct fix *f = *state;
	struct doca_buf *a = new_buf(f, 0, 64), *b = new_buf(f, 64, 64);
	struct doca_mmap_advise_task_invalidate_cache *task;

	start(f, 1);
	task = new_task(f, a, 0);
	assert_ptr_equal(doca_mmap_advise_task_invalidate_cache_get_buf(task), a);
	doca_mmap_advise_task_invalidate_cache_set_buf(task, b);
	assert_ptr_equal(doca_mmap_advise_task_invalidate_cache_get_buf(task), b);
	assert_ptr_equal(doca_task_get_ctx(doca_mmap_advise_task_invalidate_cache_as_doca_task(task)), f->ctx);
	task_free(task);
	stop_idle(f);
	assert_int_equal(doca_buf_dec_refcount(a, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(b, NULL), DOCA_SUCCESS);
}

/* ---- submit ---- */

static void test_submit_checks(void **state)
{
	struct fix *f = *state;
	struct doca_buf *buf = new_buf(f, 0, 256), *freed = new_buf(f, 256, 64), *other = NULL;
	struct doca_mmap *nodev = NULL;
	struct doca_mmap_advise_task_invalidate_cache *task;
	size_t inflight = 1;
	static char nodev_mem[256];

	assert_int_equal(doca_mmap_create(&nodev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(nodev, nodev_mem, sizeof(nodev_mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(nodev), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, nodev, nodev_mem, 64, &other), DOCA_SUCCESS);
	start(f, 1);
	task = new_task(f, NULL, 0);

	ferry_test_log_reset();
	assert_int_equal(submit(task), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_task_submit: mmap advise invalidate cache task");
	assert_logged("has no buf");

	assert_int_equal(doca_buf_dec_refcount(freed, NULL), DOCA_SUCCESS);
	doca_mmap_advise_task_invalidate_cache_set_buf(task, freed);
	ferry_test_log_reset();
	assert_int_equal(submit(task), DOCA_ERROR_INVALID_VALUE);
	assert_logged("is free");

	/* An mmap that is not started (forged: a started mmap with bufs cannot be stopped). */
	doca_mmap_advise_task_invalidate_cache_set_buf(task, buf);
	f->mmap->started = false;
	ferry_test_log_reset();
	assert_int_equal(submit(task), DOCA_ERROR_BAD_STATE);
	f->mmap->started = true;
	assert_logged("not started or no longer valid");

	doca_mmap_advise_task_invalidate_cache_set_buf(task, other);
	ferry_test_log_reset();
	assert_int_equal(submit(task), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_mmap_add_dev");

	/* A refused submit leaves nothing in flight and the task the caller's. */
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f->ctx, &inflight), DOCA_SUCCESS);
	assert_int_equal(inflight, 0);
	doca_mmap_advise_task_invalidate_cache_set_buf(task, buf);
	assert_int_equal(submit(task), DOCA_SUCCESS);
	while (f->ok == 0)
		(void)doca_pe_progress(f->pe);
	assert_int_equal(f->errors, 0);
	task_free(task);
	stop_idle(f);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(other, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(nodev), DOCA_SUCCESS);
}

static void test_completes_from_progress_only(void **state)
{
	struct fix *f = *state;
	struct doca_buf *buf = new_buf(f, 0, MEM_LEN);
	struct doca_mmap_advise_task_invalidate_cache *tasks[4];
	size_t inflight = 0;

	start(f, 4);
	for (unsigned i = 0; i < 4; i++) {
		tasks[i] = new_task(f, buf, 100 + i);
		assert_int_equal(submit(tasks[i]), DOCA_SUCCESS);
		assert_int_equal(f->ok + f->errors, 0); /* never inside submit */
	}
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f->ctx, &inflight), DOCA_SUCCESS);
	assert_int_equal(inflight, 4);
	assert_int_equal(doca_pe_progress(f->pe), 1);
	assert_int_equal(f->ok, 4);
	assert_int_equal(f->errors, 0);
	assert_int_equal(f->last_status, DOCA_SUCCESS);
	assert_int_equal(f->last_user, 103); /* in submission order */
	assert_ptr_equal(f->last_task, tasks[3]);
	/* The buf is untouched and still the task's. */
	assert_ptr_equal(doca_mmap_advise_task_invalidate_cache_get_buf(tasks[0]), buf);
	/* A completed task may be submitted again. */
	assert_int_equal(submit(tasks[0]), DOCA_SUCCESS);
	assert_int_equal(f->ok, 4);
	(void)doca_pe_progress(f->pe);
	assert_int_equal(f->ok, 5);
	for (unsigned i = 0; i < 4; i++)
		task_free(tasks[i]);
	stop_idle(f);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
}

/* A callback that resubmits its own task: the new run completes at a later progress, not in this pass. */
static unsigned resubmits_left;
static unsigned resubmit_seen;

static void on_ok_resubmit(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data tud,
			   union doca_data cud)
{
	(void)tud;
	(void)cud;
	resubmit_seen++;
	if (resubmits_left > 0) {
		resubmits_left--;
		assert_int_equal(submit(task), DOCA_SUCCESS);
	} else {
		task_free(task);
	}
}

static void test_resubmit_from_callback(void **state)
{
	struct fix *f = *state;
	struct doca_buf *buf = new_buf(f, 0, 64);
	struct doca_mmap_advise_task_invalidate_cache *task = NULL;

	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(f->adv, on_ok_resubmit, on_err, 1),
			 DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
	resubmits_left = 3;
	resubmit_seen = 0;
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_alloc_init(f->adv, buf, no_data, &task), DOCA_SUCCESS);
	assert_int_equal(submit(task), DOCA_SUCCESS);
	for (unsigned pass = 1; pass <= 4; pass++) {
		(void)doca_pe_progress(f->pe);
		assert_int_equal(resubmit_seen, pass);
	}
	(void)doca_pe_progress(f->pe);
	assert_int_equal(resubmit_seen, 4);
	stop_idle(f);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
}

/* ---- the cache_invalidate sample's shape: a DMA completion submits the invalidate task ---- */

struct dma_side {
	struct fix *f;
	struct doca_mmap_advise_task_invalidate_cache *inv;
	doca_error_t submit_err;
	unsigned dma_done;
};

static void on_dma_ok(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct dma_side *d = tud.ptr;

	(void)cud;
	(void)task;
	d->dma_done++;
	d->submit_err = submit(d->inv);
	/* Still not inside submit: the invalidate waits for a later progress. */
	assert_int_equal(d->f->ok + d->f->errors, 0);
}

static void on_dma_err(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct dma_side *d = tud.ptr;

	(void)cud;
	(void)task;
	d->submit_err = DOCA_ERROR_IO_FAILED;
	d->dma_done++;
}

static void test_submit_from_dma_callback(void **state)
{
	struct fix *f = *state;
	struct doca_dma *dma = NULL;
	struct doca_ctx *dctx;
	struct doca_dma_task_memcpy *copy = NULL;
	struct doca_buf *src = new_buf(f, 0, 1024), *dst = NULL;
	struct dma_side d = {.f = f, .submit_err = DOCA_ERROR_UNKNOWN};
	union doca_data ud = {.ptr = &d};
	unsigned passes = 0;
	enum doca_ctx_states st;

	memset(f->mem, 0x5a, 1024);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->mmap, f->mem + 4096, 1024, &dst), DOCA_SUCCESS);
	assert_int_equal(doca_buf_set_data(src, f->mem, 1024), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(f->dev, &dma), DOCA_SUCCESS);
	dctx = doca_dma_as_ctx(dma);
	assert_int_equal(doca_dma_task_memcpy_set_conf(dma, on_dma_ok, on_dma_err, 1), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(f->pe, dctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(dctx), DOCA_SUCCESS);
	start(f, 1);
	d.inv = new_task(f, src, 7);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(dma, src, dst, ud, &copy), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(copy)), DOCA_SUCCESS);
	/* Progress until the copy completes: the invalidate is not done in that same pass. */
	while (d.dma_done == 0) {
		assert_true(++passes < 100000);
		(void)doca_pe_progress(f->pe);
	}
	assert_int_equal(d.submit_err, DOCA_SUCCESS);
	assert_int_equal(f->ok + f->errors, 0);
	while (f->ok == 0) {
		assert_true(++passes < 100000);
		(void)doca_pe_progress(f->pe);
	}
	assert_int_equal(f->errors, 0);
	assert_int_equal(f->last_user, 7);
	assert_memory_equal(f->mem + 4096, f->mem, 1024);
	/* The sample's cleanup: free both tasks, then stop each context. */
	doca_task_free(doca_dma_task_memcpy_as_task(copy));
	task_free(d.inv);
	assert_int_equal(doca_ctx_stop(dctx), DOCA_SUCCESS);
	stop_idle(f);
	assert_int_equal(doca_ctx_get_state(dctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_dma_destroy(dma), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(src, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(dst, NULL), DOCA_SUCCESS);
}

/* ---- stop, tasks freed in flight ---- */

static void test_stop_flushes(void **state)
{
	struct fix *f = *state;
	struct doca_buf *buf = new_buf(f, 0, 64);
	enum doca_ctx_states st;

	start(f, 3);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(submit(new_task(f, buf, i)), DOCA_SUCCESS);
	f->free_in_cb = true;
	assert_int_equal(doca_ctx_stop(f->ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	assert_int_equal(f->ok + f->errors, 0); /* flushed from progress, not inside stop */
	(void)doca_pe_progress(f->pe);
	assert_int_equal(f->ok, 0);
	assert_int_equal(f->errors, 3);
	assert_int_equal(f->last_status, DOCA_ERROR_IO_FAILED);
	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	/* Started again, it works as before. */
	start(f, 3);
	assert_int_equal(submit(new_task(f, buf, 9)), DOCA_SUCCESS);
	(void)doca_pe_progress(f->pe);
	assert_int_equal(f->ok, 1);
	stop_idle(f);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
}

static void test_freed_in_flight(void **state)
{
	struct fix *f = *state;
	struct doca_buf *buf = new_buf(f, 0, 64);
	struct doca_mmap_advise_task_invalidate_cache *a, *b, *c;
	size_t inflight = 0;

	start(f, 3);
	a = new_task(f, buf, 1);
	b = new_task(f, buf, 2);
	c = new_task(f, buf, 3);
	assert_int_equal(submit(a), DOCA_SUCCESS);
	assert_int_equal(submit(b), DOCA_SUCCESS);
	ferry_test_log_reset();
	task_free(a); /* in flight: core marks it, and it returns to the pool without a callback */
	assert_logged("in flight");
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f->ctx, &inflight), DOCA_SUCCESS);
	assert_int_equal(inflight, 2);
	(void)doca_pe_progress(f->pe);
	assert_int_equal(f->ok, 1);
	assert_int_equal(f->last_user, 2);
	/* One in flight freed, then a stop: the flush also returns it quietly. */
	assert_int_equal(submit(c), DOCA_SUCCESS);
	task_free(c);
	task_free(b);
	stop_idle(f);
	assert_int_equal(f->ok, 1);
	assert_int_equal(f->errors, 0);
	/* Every task is back in the pool: three allocate again after a restart. */
	start(f, 3);
	a = new_task(f, buf, 0);
	b = new_task(f, buf, 0);
	c = new_task(f, buf, 0);
	task_free(a);
	task_free(b);
	task_free(c);
	stop_idle(f);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
}

/* A task submitted from a callback and then a stop: the deferred task is flushed too. */
static void on_ok_submit_other(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data tud,
			       union doca_data cud)
{
	struct fix *f = cud.ptr;

	f->ok++;
	if (tud.ptr != NULL)
		assert_int_equal(submit(tud.ptr), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(f->ctx), DOCA_ERROR_IN_PROGRESS);
	task_free(task);
}

static void test_stop_flushes_deferred(void **state)
{
	struct fix *f = *state;
	struct doca_buf *buf = new_buf(f, 0, 64);
	struct doca_mmap_advise_task_invalidate_cache *first = NULL, *second;
	union doca_data ud;

	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(f->adv, on_ok_submit_other, on_err, 2),
			 DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
	second = new_task(f, buf, 0);
	ud.ptr = second;
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_alloc_init(f->adv, buf, ud, &first), DOCA_SUCCESS);
	assert_int_equal(submit(first), DOCA_SUCCESS);
	f->free_in_cb = true;
	/* Pass 1: the first completes, its callback submits the second and stops the context. */
	(void)doca_pe_progress(f->pe);
	assert_int_equal(f->ok, 1);
	assert_int_equal(f->errors, 0);
	/* Pass 2: the second, deferred, is flushed. */
	stop_idle(f);
	assert_int_equal(f->ok, 1);
	assert_int_equal(f->errors, 1);
	assert_int_equal(f->last_status, DOCA_ERROR_IO_FAILED);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null_arguments, setup, teardown),
		cmocka_unit_test(test_caps),
		cmocka_unit_test_setup_teardown(test_conf_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_buf_accessors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_completes_from_progress_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resubmit_from_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_from_dma_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_flushes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_freed_in_flight, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_flushes_deferred, setup, teardown),
	};

	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
