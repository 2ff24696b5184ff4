/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dma_alloc.c - every allocation of doca_dma_create and of a DMA
 * context's start fails in turn (ferry_test_alloc.h).
 *
 * A start allocates the memcpy task pool (doca_ctx_start), then opens the
 * local copy channel of the chosen engine and the cross-process (inline)
 * channel; the engine's share is counted as tests/engine/test_engine_alloc.c
 * counts it. Each failure must return DOCA_ERROR_NO_MEMORY with its line (the
 * start DOCA_ERROR_INITIALIZATION, DOCA's code for it), leave the context
 * IDLE and able to start, and free what it had built.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "dma/dma_priv.h"
#include "engine/engine_priv.h"
#include "ferry_test.h"
#include "ferry_test_ctx.h"
#include "ferry_test_alloc.h"
#include "ferry_test_dev.h"
#include "ferry_test_wait.h"

static struct doca_dev *g_dev;

/* Allocations of ferry_chan_open per kind (test_engine_alloc.c has the why). */
#define CHAN_INLINE_POINTS 2u
#define CHAN_CROSS_POINTS  3u
#define CHAN_WORKER_POINTS (3u + ferry_worker_count())

static int group_setup(void **state)
{
	(void)state;
	unsetenv("FERRY_DMA_ENGINE"); /* the walks name their engine */
	g_dev = ferry_test_open_dev("b1:00.0", NULL);
	assert_non_null(g_dev);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	assert_int_equal(doca_dev_close(g_dev), DOCA_SUCCESS);
	return 0;
}

/* ---- doca_dma_create ---- */

static doca_error_t create_attempt(void *arg)
{
	return doca_dma_create(g_dev, (struct doca_dma **)arg);
}

static void create_failed(void *arg)
{
	assert_null(*(struct doca_dma **)arg);
}

static void create_succeeded(void *arg)
{
	struct doca_dma **dma = arg;

	assert_non_null(*dma);
	assert_int_equal(doca_dma_destroy(*dma), DOCA_SUCCESS);
	*dma = NULL;
}

static void test_create(void **state)
{
	struct doca_dma *dma = NULL;
	struct ferry_test_alloc_walk w = {.call = "doca_dma_create",
					  .logged = "doca_dma_create: no memory",
					  .attempt = create_attempt,
					  .failed = create_failed,
					  .succeeded = create_succeeded,
					  .arg = &dma};

	(void)state;
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
}

/* ---- start ---- */

static void on_task(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	(void)ctx_ud;
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

struct start_arg {
	enum ferry_engine_kind engine;
	struct doca_pe *pe;
	struct doca_dma *dma;
};

static void start_prepare(void *arg)
{
	struct start_arg *a = arg;

	assert_int_equal(doca_pe_create(&a->pe), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(g_dev, &a->dma), DOCA_SUCCESS);
	assert_int_equal(doca_dma_task_memcpy_set_conf(a->dma, on_task, on_task, 64), DOCA_SUCCESS);
	assert_int_equal(ferry_dma_set_engine(a->dma, a->engine), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(a->pe, doca_dma_as_ctx(a->dma)), DOCA_SUCCESS);
}

static doca_error_t start_attempt(void *arg)
{
	return doca_ctx_start(doca_dma_as_ctx(((struct start_arg *)arg)->dma));
}

static void start_failed(void *arg)
{
	struct start_arg *a = arg;

	assert_int_equal(ferry_test_ctx_state(doca_dma_as_ctx(a->dma)), DOCA_CTX_STATE_IDLE);
	for (unsigned int i = 0; i < FERRY_DMA_CHANS; i++)
		assert_null(a->dma->chans[i]);
	assert_null(a->dma->pool.mem);
}

/* Started: one copy goes through, then the context stops. */
static void start_succeeded(void *arg)
{
	struct start_arg *a = arg;
	struct doca_ctx *ctx = doca_dma_as_ctx(a->dma);
	struct doca_dma_task_memcpy *task = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_mmap *mmap = NULL;
	struct doca_buf *src = NULL, *dst = NULL;
	char mem[128];
	size_t inflight = 1;
	union doca_data ud = {.u64 = 0};

	assert_int_equal(ferry_test_ctx_state(ctx), DOCA_CTX_STATE_RUNNING);
	memset(mem, 0, sizeof(mem));
	memcpy(mem, "ferry", 6);
	assert_int_equal(doca_mmap_create(&mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(mmap, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(mmap, g_dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(2, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, mmap, mem, 6, &src), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(inv, mmap, mem + 64, 64, &dst), DOCA_SUCCESS);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(a->dma, src, dst, ud, &task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
	FERRY_PROGRESS_UNTIL(a->pe, doca_ctx_get_num_inflight_tasks(ctx, &inflight) == DOCA_SUCCESS && inflight == 0,
			     FERRY_TEST_WAIT_MS);
	assert_int_equal(inflight, 0);
	assert_string_equal(mem + 64, "ferry");
	assert_int_equal(doca_buf_dec_refcount(src, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(dst, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(mmap), DOCA_SUCCESS);
	(void)doca_ctx_stop(ctx);
	FERRY_PROGRESS_UNTIL(a->pe, ferry_test_ctx_state(ctx) == DOCA_CTX_STATE_IDLE, FERRY_TEST_WAIT_MS);
	assert_int_equal(ferry_test_ctx_state(ctx), DOCA_CTX_STATE_IDLE);
}

static void start_cleanup(void *arg)
{
	struct start_arg *a = arg;

	assert_int_equal(doca_dma_destroy(a->dma), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(a->pe), DOCA_SUCCESS);
	a->dma = NULL;
	a->pe = NULL;
}

static unsigned int walk_start(enum ferry_engine_kind engine)
{
	struct start_arg a = {.engine = engine};
	struct ferry_test_alloc_walk w = {.call = "doca_ctx_start (dma)",
					  .logged = "doca_ctx_start",
					  .fails_with = DOCA_ERROR_INITIALIZATION,
					  .prepare = start_prepare,
					  .attempt = start_attempt,
					  .failed = start_failed,
					  .succeeded = start_succeeded,
					  .cleanup = start_cleanup,
					  .arg = &a};

	/* What the first start of a kind sets up for good (the worker pool): not inside a step. */
	start_prepare(&a);
	assert_int_equal(start_attempt(&a), DOCA_SUCCESS);
	start_succeeded(&a);
	start_cleanup(&a);
	return ferry_test_alloc_walk(&w);
}

static void test_start_inline(void **state)
{
	(void)state;
	/* The task pool, the local channel, the cross-process channel. */
	assert_int_equal(walk_start(FERRY_ENGINE_INLINE), 1 + CHAN_INLINE_POINTS + CHAN_CROSS_POINTS);
}

static void test_start_worker(void **state)
{
	(void)state;
	assert_int_equal(walk_start(FERRY_ENGINE_WORKER), 1 + CHAN_WORKER_POINTS + CHAN_CROSS_POINTS);
}

static void test_start_auto(void **state)
{
	(void)state;
	assert_int_equal(walk_start(FERRY_ENGINE_AUTO), 1 + CHAN_WORKER_POINTS + CHAN_CROSS_POINTS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_start_inline),
		cmocka_unit_test(test_start_worker),
		cmocka_unit_test(test_start_auto),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
