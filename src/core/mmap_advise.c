/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mmap_advise.c - doca_mmap_advise: a context whose one task type, invalidate
 * cache, has nothing to do on Ferry (memory is coherent between the emulated
 * devices and the CPU) but keeps DOCA's task life: checked at submit,
 * completed from doca_pe_progress.
 *
 * Call order: create -> task_invalidate_cache_set_conf -> doca_pe_connect_ctx
 * -> doca_ctx_start -> alloc_init -> doca_task_submit -> progress ->
 * doca_task_free -> doca_ctx_stop -> destroy (ferry_ctx.h has the rest).
 *
 * Completion is never inside doca_task_submit, and not in the same progress
 * pass that saw the submit either: a task submitted from a callback (another
 * context's, on the same PE, as DOCA's cache_invalidate sample does) waits
 * on `deferred` until this context's next progress moves it to `ready`; a
 * task submitted outside progress goes to `ready` and completes at the next
 * one. A stop flushes both lists with DOCA_ERROR_IO_FAILED, like DMA.
 *
 * Threading: one thread at a time, the one that progresses the PE.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <doca_buf.h>
#include <doca_dev.h>
#include <doca_mmap_advise.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_ctx.h"
#include "core/ferry_dev.h"
#include "core/ferry_memview.h"

FERRY_LOG_MODULE("mmap_advise");

/* The most tasks one context may configure. */
#define MA_MAX_TASKS        65536u
/* The smallest max buffer size reported: what the default DMA caps allow. */
#define MA_MIN_MAX_BUF_SIZE (UINT64_C(1) << 31)

struct doca_mmap_advise {
	struct doca_ctx ctx; /* first: the generic machinery */
	struct ferry_task_pool pool;
	doca_mmap_advise_task_invalidate_cache_completion_cb_t ok_cb;
	doca_mmap_advise_task_invalidate_cache_completion_cb_t err_cb;
	struct ferry_task_list ready;    /* complete at the next progress */
	struct ferry_task_list deferred; /* submitted during progress: ready after this pass */
	bool flushing;                   /* stopping: every queued task completes with an error */
};

struct doca_mmap_advise_task_invalidate_cache {
	struct doca_task base; /* first */
	struct doca_buf *buf;
};

static struct doca_mmap_advise *ma_of_ctx(struct doca_ctx *ctx)
{
	return ferry_container_of(ctx, struct doca_mmap_advise, ctx);
}

static struct doca_mmap_advise_task_invalidate_cache *inv_of(struct doca_task *task)
{
	return ferry_container_of(task, struct doca_mmap_advise_task_invalidate_cache, base);
}

static uint64_t max_buf_size(const struct doca_devinfo *devinfo)
{
	const struct ferry_dma_caps *caps = ferry_devinfo_dma_caps(devinfo);

	if (caps == NULL || caps->max_buf_size < MA_MIN_MAX_BUF_SIZE)
		return MA_MIN_MAX_BUF_SIZE;
	return caps->max_buf_size;
}

/* ---- context ops ---- */

static doca_error_t ma_start(struct doca_ctx *ctx)
{
	ma_of_ctx(ctx)->flushing = false;
	return DOCA_SUCCESS;
}

static void ma_stop(struct doca_ctx *ctx)
{
	ma_of_ctx(ctx)->flushing = true;
}

static void ma_stopped(struct doca_ctx *ctx)
{
	ma_of_ctx(ctx)->flushing = false;
}

/* The buf of a submitted task: set, in use, every buf of its list from a started mmap of the device. */
static doca_error_t check_buf(const struct doca_mmap_advise *ma, const struct doca_mmap_advise_task_invalidate_cache *t)
{
	const char *call = "doca_task_submit";
	uint64_t total = 0, limit;

	if (t->buf == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "mmap advise invalidate cache task %p has no buf "
				     "(doca_mmap_advise_task_invalidate_cache_set_buf)",
				     (const void *)t);
	if (t->buf->refcount == 0 || !t->buf->is_head)
		return FERRY_RULE_IN(
			call, DOCA_ERROR_INVALID_VALUE, "mmap advise invalidate cache task %p: buf %p is %s",
			(const void *)t, (const void *)t->buf,
			t->buf->refcount == 0 ? "free (back in its inventory)" : "not the head of its list");
	for (const struct doca_buf *buf = t->buf; buf != NULL; buf = ferry_buf_next(buf)) {
		const struct doca_mmap *mmap = ferry_buf_mmap(buf);

		if (mmap == NULL || !ferry_mmap_is_usable(mmap))
			return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
					     "mmap advise invalidate cache task %p: buf %p belongs to an mmap that is "
					     "not started or no longer valid",
					     (const void *)t, (const void *)buf);
		if (!ferry_mmap_has_dev(mmap, ma->ctx.dev))
			return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
					     "mmap advise invalidate cache task %p: buf %p: device %s was not added to "
					     "its mmap %p (doca_mmap_add_dev)",
					     (const void *)t, (const void *)buf, ferry_dev_name(ma->ctx.dev),
					     (const void *)mmap);
		total += buf->len;
	}
	limit = max_buf_size(doca_dev_as_devinfo(ma->ctx.dev));
	if (total > limit)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "mmap advise invalidate cache task %p: %llu bytes is above the maximum of %llu "
				     "(doca_mmap_advise_task_cache_invalidate_get_max_buf_size)",
				     (const void *)t, (unsigned long long)total, (unsigned long long)limit);
	return DOCA_SUCCESS;
}

static doca_error_t ma_submit(struct doca_task *task)
{
	struct doca_mmap_advise *ma = ma_of_ctx(task->ctx);
	doca_error_t err = check_buf(ma, inv_of(task));

	if (err != DOCA_SUCCESS)
		return err;
	/* Nothing to invalidate: coherent memory. Only the completion is due. */
	ferry_task_list_push(ferry_pe_in_callback(ma->ctx.pe) ? &ma->deferred : &ma->ready, task);
	return DOCA_SUCCESS;
}

static uint32_t ma_progress(struct doca_ctx *ctx)
{
	struct doca_mmap_advise *ma = ma_of_ctx(ctx);
	/* A snapshot: what the callbacks below submit goes to `deferred`, for a later pass. */
	struct ferry_task_list now = ma->ready;
	doca_error_t status = ma->flushing ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS;
	struct doca_task *task;
	uint32_t n = 0;

	ma->ready = (struct ferry_task_list){NULL, NULL};
	if (ma->flushing) {
		/* A stop completes everything queued: the deferred tasks too. */
		while ((task = ferry_task_list_pop(&ma->deferred)) != NULL)
			ferry_task_list_push(&now, task);
	}
	while ((task = ferry_task_list_pop(&now)) != NULL) {
		ferry_task_complete(task, status);
		n++;
	}
	/* What was submitted during this pass (here or before it, by another context) is due next time. */
	while ((task = ferry_task_list_pop(&ma->deferred)) != NULL)
		ferry_task_list_push(&ma->ready, task);
	return n;
}

static bool ma_has_pending(struct doca_ctx *ctx)
{
	const struct doca_mmap_advise *ma = ma_of_ctx(ctx);

	return ma->ready.head != NULL || ma->deferred.head != NULL;
}

static const struct ferry_ctx_ops ma_ops = {
	.start = ma_start,
	.stop = ma_stop,
	.stopped = ma_stopped,
	.submit = ma_submit,
	.progress = ma_progress,
	.has_pending = ma_has_pending,
};

/* Completion trampoline: the typed callbacks, with no function pointer cast. */
static void inv_complete(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data,
			 bool success)
{
	struct doca_mmap_advise *ma = ma_of_ctx(task->ctx);

	if (success)
		ma->ok_cb(inv_of(task), task_user_data, ctx_user_data);
	else
		ma->err_cb(inv_of(task), task_user_data, ctx_user_data);
}

/* ---- public: context ---- */

doca_error_t doca_mmap_advise_create(struct doca_dev *dev, struct doca_mmap_advise **mmap_advise)
{
	struct doca_mmap_advise *ma;

	FERRY_ARG_NOT_NULL(dev);
	FERRY_ARG_NOT_NULL(mmap_advise);
	ma = ferry_calloc(1, sizeof(*ma));
	if (ma == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for an mmap advise context");
	ferry_ctx_init(&ma->ctx, &ma_ops, "mmap_advise", dev);
	ferry_ctx_add_pool(&ma->ctx, &ma->pool, "mmap advise invalidate cache",
			   sizeof(struct doca_mmap_advise_task_invalidate_cache), inv_complete);
	*mmap_advise = ma;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_advise_destroy(struct doca_mmap_advise *mmap_advise)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(mmap_advise);
	err = ferry_ctx_check_destroyable(&mmap_advise->ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	ferry_ctx_fini(&mmap_advise->ctx);
	free(mmap_advise);
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_mmap_advise_as_ctx(struct doca_mmap_advise *mmap_advise)
{
	if (mmap_advise == NULL) {
		FERRY_ERR("%s: mmap_advise is NULL", __func__);
		return NULL;
	}
	return &mmap_advise->ctx;
}

/* ---- public: capabilities ---- */

doca_error_t doca_mmap_advise_cap_task_cache_invalidate_is_supported(const struct doca_devinfo *devinfo)
{
	FERRY_ARG_NOT_NULL(devinfo);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_advise_task_cache_invalidate_get_max_buf_size(const struct doca_devinfo *devinfo,
								     uint64_t *buf_size)
{
	FERRY_ARG_NOT_NULL(devinfo);
	FERRY_ARG_NOT_NULL(buf_size);
	*buf_size = max_buf_size(devinfo);
	return DOCA_SUCCESS;
}

/* ---- public: the invalidate cache task ---- */

doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
	struct doca_mmap_advise *mmap_advise, doca_mmap_advise_task_invalidate_cache_completion_cb_t completion_cb,
	doca_mmap_advise_task_invalidate_cache_completion_cb_t error_cb, uint32_t num_tasks)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(mmap_advise);
	if (completion_cb == NULL || error_cb == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "mmap advise %p: the completion and error callbacks must not be NULL",
				  (void *)mmap_advise);
	if (mmap_advise->ctx.state != DOCA_CTX_STATE_IDLE)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "mmap advise %p's context is %s; task configuration needs IDLE", (void *)mmap_advise,
				  ferry_ctx_state_name(mmap_advise->ctx.state));
	if (num_tasks > MA_MAX_TASKS)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap advise %p: %u tasks is above the limit of %u",
				  (void *)mmap_advise, num_tasks, MA_MAX_TASKS);
	err = ferry_task_pool_configure(&mmap_advise->pool, num_tasks, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	mmap_advise->ok_cb = completion_cb;
	mmap_advise->err_cb = error_cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_advise_task_invalidate_cache_alloc_init(struct doca_mmap_advise *mmap_advise,
							       struct doca_buf *buf, union doca_data user_data,
							       struct doca_mmap_advise_task_invalidate_cache **task)
{
	struct doca_task *base;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(mmap_advise);
	FERRY_ARG_NOT_NULL(task);
	err = ferry_task_pool_get(&mmap_advise->pool, __func__, &base);
	if (err != DOCA_SUCCESS)
		return err;
	base->user_data = user_data;
	*task = inv_of(base);
	(*task)->buf = buf;
	return DOCA_SUCCESS;
}

struct doca_task *doca_mmap_advise_task_invalidate_cache_as_doca_task(
	struct doca_mmap_advise_task_invalidate_cache *task)
{
	return task != NULL ? &task->base : NULL;
}

void doca_mmap_advise_task_invalidate_cache_set_buf(struct doca_mmap_advise_task_invalidate_cache *task,
						    struct doca_buf *buf)
{
	if (task == NULL) {
		FERRY_ERR("%s: task is NULL", __func__);
		return;
	}
	task->buf = buf;
}

struct doca_buf *doca_mmap_advise_task_invalidate_cache_get_buf(
	const struct doca_mmap_advise_task_invalidate_cache *task)
{
	if (task == NULL) {
		FERRY_ERR("%s: task is NULL", __func__);
		return NULL;
	}
	return task->buf;
}
