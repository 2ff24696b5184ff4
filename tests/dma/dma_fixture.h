/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_fixture.h - what the DMA tests share: the host device b1:00.0, a PE, a
 * DMA context with recording callbacks, and mmaps of every kind a rule needs
 * (writable, read-only, without the device), all from one inventory.
 */
#ifndef FERRY_TEST_DMA_FIXTURE_H_
#define FERRY_TEST_DMA_FIXTURE_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "dma/dma_priv.h"
#include "ferry_test.h"
#include "ferry_test_dev.h"
#include "ferry_test_wait.h"

#define FIX_MEM_LEN    (4u << 20) /* per mmap */
#define FIX_NUM_BUFS   4096u
#define FIX_MAX_STATES 16

struct dma_fix {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	uint8_t *src_mem, *dst_mem, *ro_mem, *nodev_mem;
	struct doca_mmap *src_mmap, *dst_mmap, *ro_mmap, *nodev_mmap;

	/* What the callbacks saw. */
	unsigned successes, errors;
	doca_error_t last_status;
	struct doca_dma_task_memcpy *last_task;
	bool free_in_cb; /* callbacks free the task */
	void (*on_complete)(struct dma_fix *f, struct doca_dma_task_memcpy *task, bool success);
	enum doca_ctx_states states[FIX_MAX_STATES]; /* next_state of each change */
	unsigned num_states;
};

static inline void fix_on_task(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud,
			       bool success)
{
	struct dma_fix *f = ctx_ud.ptr;

	(void)task_ud;
	if (success)
		f->successes++;
	else
		f->errors++;
	f->last_status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	f->last_task = task;
	if (f->on_complete != NULL)
		f->on_complete(f, task, success);
	if (f->free_in_cb)
		doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static inline void fix_on_success(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	fix_on_task(task, task_ud, ctx_ud, true);
}

static inline void fix_on_error(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	fix_on_task(task, task_ud, ctx_ud, false);
}

static inline void fix_on_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
				enum doca_ctx_states next)
{
	struct dma_fix *f = ud.ptr;

	(void)ctx;
	(void)prev;
	if (f->num_states < FIX_MAX_STATES)
		f->states[f->num_states++] = next;
}

static inline struct doca_mmap *fix_mmap(struct dma_fix *f, uint8_t *mem, uint32_t access, bool add_dev)
{
	struct doca_mmap *mmap = NULL;

	if (doca_mmap_create(&mmap) != DOCA_SUCCESS || doca_mmap_set_memrange(mmap, mem, FIX_MEM_LEN) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(mmap, access) != DOCA_SUCCESS ||
	    (add_dev && doca_mmap_add_dev(mmap, f->dev) != DOCA_SUCCESS) || doca_mmap_start(mmap) != DOCA_SUCCESS)
		return NULL;
	return mmap;
}

/* Everything but the DMA configuration: tests choose num_tasks and the engine. */
static inline int fix_setup(void **state)
{
	struct dma_fix *f = calloc(1, sizeof(*f));
	union doca_data ud = {.ptr = f};

	if (f == NULL)
		return -1;
	unsetenv("FERRY_DMA_ENGINE"); /* tests pick engines with ferry_dma_set_engine */
	f->dev = ferry_test_open_dev("b1:00.0", NULL);
	f->src_mem = aligned_alloc(64, FIX_MEM_LEN);
	f->dst_mem = aligned_alloc(64, FIX_MEM_LEN);
	f->ro_mem = aligned_alloc(64, FIX_MEM_LEN);
	f->nodev_mem = aligned_alloc(64, FIX_MEM_LEN);
	if (f->dev == NULL || f->src_mem == NULL || f->dst_mem == NULL || f->ro_mem == NULL || f->nodev_mem == NULL)
		return -1;
	f->src_mmap = fix_mmap(f, f->src_mem, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, true);
	f->dst_mmap = fix_mmap(f, f->dst_mem, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, true);
	f->ro_mmap = fix_mmap(f, f->ro_mem, DOCA_ACCESS_FLAG_LOCAL_READ_ONLY, true);
	f->nodev_mmap = fix_mmap(f, f->nodev_mem, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, false);
	if (f->src_mmap == NULL || f->dst_mmap == NULL || f->ro_mmap == NULL || f->nodev_mmap == NULL)
		return -1;
	if (doca_buf_inventory_create(FIX_NUM_BUFS, &f->inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(f->inv) != DOCA_SUCCESS)
		return -1;
	if (doca_pe_create(&f->pe) != DOCA_SUCCESS || doca_dma_create(f->dev, &f->dma) != DOCA_SUCCESS)
		return -1;
	f->ctx = doca_dma_as_ctx(f->dma);
	if (doca_ctx_set_user_data(f->ctx, ud) != DOCA_SUCCESS ||
	    doca_ctx_set_state_changed_cb(f->ctx, fix_on_state) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(f->pe, f->ctx) != DOCA_SUCCESS)
		return -1;
	ferry_test_log_reset();
	*state = f;
	return 0;
}

/* Progress until the context is IDLE (false when FERRY_TEST_WAIT_MS passed first). */
static inline bool fix_drain_to_idle(struct dma_fix *f)
{
	uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

	while (!ferry_test_expired(until)) {
		if (doca_ctx_get_state(f->ctx, &st) != DOCA_SUCCESS)
			return false;
		if (st == DOCA_CTX_STATE_IDLE)
			return true;
		if (doca_pe_progress(f->pe) == 0)
			ferry_test_idle();
	}
	return false;
}

/* Progress until no task is in flight (false when FERRY_TEST_WAIT_MS passed first). */
static inline bool fix_drain_inflight(struct dma_fix *f)
{
	uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	size_t inflight = 1;

	while (!ferry_test_expired(until)) {
		if (doca_ctx_get_num_inflight_tasks(f->ctx, &inflight) != DOCA_SUCCESS)
			return false;
		if (inflight == 0)
			return true;
		if (doca_pe_progress(f->pe) == 0)
			ferry_test_idle();
	}
	return false;
}

/* Stop (if needed) and progress to IDLE. */
static inline bool fix_stop(struct dma_fix *f)
{
	enum doca_ctx_states st;

	if (doca_ctx_get_state(f->ctx, &st) != DOCA_SUCCESS)
		return false;
	if (st != DOCA_CTX_STATE_IDLE && st != DOCA_CTX_STATE_STOPPING)
		(void)doca_ctx_stop(f->ctx);
	return fix_drain_to_idle(f);
}

/* Teardown proves the test gave every buf back and left the context destroyable. */
static inline int fix_teardown(void **state)
{
	struct dma_fix *f = *state;
	int rc = 0;

	if (!fix_stop(f))
		rc = -1;
	if (doca_dma_destroy(f->dma) != DOCA_SUCCESS)
		rc = -1;
	if (doca_pe_destroy(f->pe) != DOCA_SUCCESS)
		rc = -1;
	if (doca_buf_inventory_destroy(f->inv) != DOCA_SUCCESS)
		rc = -1;
	if (doca_mmap_destroy(f->src_mmap) != DOCA_SUCCESS || doca_mmap_destroy(f->dst_mmap) != DOCA_SUCCESS ||
	    doca_mmap_destroy(f->ro_mmap) != DOCA_SUCCESS || doca_mmap_destroy(f->nodev_mmap) != DOCA_SUCCESS)
		rc = -1;
	if (doca_dev_close(f->dev) != DOCA_SUCCESS)
		rc = -1;
	free(f->src_mem);
	free(f->dst_mem);
	free(f->ro_mem);
	free(f->nodev_mem);
	free(f);
	return rc;
}

/* Configure memcpy tasks, pick the engine, start. */
static inline void fix_start(struct dma_fix *f, uint32_t num_tasks, enum ferry_engine_kind engine)
{
	assert_int_equal(doca_dma_task_memcpy_set_conf(f->dma, fix_on_success, fix_on_error, num_tasks), DOCA_SUCCESS);
	assert_int_equal(ferry_dma_set_engine(f->dma, engine), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
}

/* A source buf whose data is [mem + off, + len). */
static inline struct doca_buf *fix_src_buf(struct dma_fix *f, struct doca_mmap *mmap, uint8_t *mem, size_t off,
					   size_t len)
{
	struct doca_buf *buf = NULL;

	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, mmap, mem + off, len, &buf), DOCA_SUCCESS);
	return buf;
}

/* An empty destination buf over [mem + off, + len). */
static inline struct doca_buf *fix_dst_buf(struct dma_fix *f, struct doca_mmap *mmap, uint8_t *mem, size_t off,
					   size_t len)
{
	struct doca_buf *buf = NULL;

	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, mmap, mem + off, len, &buf), DOCA_SUCCESS);
	return buf;
}

static inline size_t fix_data_len(const struct doca_buf *buf)
{
	size_t n = SIZE_MAX;

	assert_int_equal(doca_buf_get_data_len(buf, &n), DOCA_SUCCESS);
	return n;
}

static inline void fix_put(struct doca_buf *buf)
{
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
}

/* Progress until @p n more completions arrived. */
static inline void fix_wait_completions(struct dma_fix *f, unsigned n)
{
	unsigned target = f->successes + f->errors + n;

	for (unsigned long i = 0; f->successes + f->errors < target; i++) {
		if (i > 200000000ul)
			fail_msg("completions did not arrive (%u of %u)", f->successes + f->errors, target);
		(void)doca_pe_progress(f->pe);
	}
}

static inline void fix_fill_random(uint8_t *p, size_t n, uint32_t *seed)
{
	for (size_t i = 0; i < n; i++) {
		*seed = *seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(*seed >> 16);
	}
}

static const enum ferry_engine_kind fix_engines[] = {FERRY_ENGINE_INLINE, FERRY_ENGINE_WORKER, FERRY_ENGINE_AUTO};
#define FIX_NUM_ENGINES (sizeof(fix_engines) / sizeof(fix_engines[0]))

#endif /* FERRY_TEST_DMA_FIXTURE_H_ */
