/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctx.c - the generic context state machine, task pools and the doca_ctx_* and
 * doca_task_* entry points. Context types plug in through struct ferry_ctx_ops
 * (see ferry_ctx.h for the call order).
 *
 * States: IDLE -> (STARTING ->) RUNNING -> STOPPING -> IDLE. A stop with tasks
 * in flight leaves the context STOPPING; the type flushes the tasks through
 * progress and pe.c calls ferry_ctx_try_finish_stop after each progress pass.
 * A task the user frees in flight completes into its pool without a callback
 * (doca_task_free), so such a stop still reaches IDLE.
 */
#include <stdlib.h>
#include <string.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "core/ferry_ctx.h"
#include "core/ctx_priv.h"
#include "core/fault.h"
#include "core/ferry_dev.h"

FERRY_LOG_MODULE("ctx");

#define FERRY_CACHE_LINE 64u

const char *ferry_ctx_state_name(enum doca_ctx_states state)
{
	switch (state) {
	case DOCA_CTX_STATE_IDLE:
		return "IDLE";
	case DOCA_CTX_STATE_STARTING:
		return "STARTING";
	case DOCA_CTX_STATE_RUNNING:
		return "RUNNING";
	case DOCA_CTX_STATE_STOPPING:
		return "STOPPING";
	}
	return "INVALID";
}

static void ctx_set_state(struct doca_ctx *ctx, enum doca_ctx_states next)
{
	enum doca_ctx_states prev = ctx->state;

	if (prev == next)
		return;
	ctx->state = next;
	if (ctx->state_changed_cb != NULL)
		ctx->state_changed_cb(ctx->user_data, ctx, prev, next);
}

void ferry_ctx_init(struct doca_ctx *ctx, const struct ferry_ctx_ops *ops, const char *name, struct doca_dev *dev)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->ops = ops;
	ctx->name = name;
	ctx->dev = dev;
	ctx->state = DOCA_CTX_STATE_IDLE;
	if (dev != NULL)
		ferry_dev_get(dev);
}

void ferry_ctx_add_pool(struct doca_ctx *ctx, struct ferry_task_pool *pool, const char *task_name, size_t task_size,
			ferry_task_complete_fn complete)
{
	memset(pool, 0, sizeof(*pool));
	pool->task_name = task_name;
	pool->ctx = ctx;
	pool->elem_size = (task_size + FERRY_CACHE_LINE - 1) & ~(size_t)(FERRY_CACHE_LINE - 1);
	pool->complete = complete;
	if (ctx->num_pools < sizeof(ctx->pools) / sizeof(ctx->pools[0]))
		ctx->pools[ctx->num_pools++] = pool;
	else
		FERRY_CRIT("context '%s' has more task types than the generic code supports", ctx->name);
}

doca_error_t ferry_ctx_check_idle(const struct doca_ctx *ctx, const char *call)
{
	if (ctx->state != DOCA_CTX_STATE_IDLE)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "context '%s' is %s; configuration needs IDLE",
				     ctx->name, ferry_ctx_state_name(ctx->state));
	return DOCA_SUCCESS;
}

doca_error_t ferry_ctx_check_destroyable(struct doca_ctx *ctx, const char *call)
{
	if (ctx->state != DOCA_CTX_STATE_IDLE)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "context '%s' is %s; destroy needs IDLE (stop it first)", ctx->name,
				     ferry_ctx_state_name(ctx->state));
	if (ferry_pe_in_callback(ctx->pe) && ferry_pe_current_ctx(ctx->pe) == ctx)
		return FERRY_RULE_IN(call, DOCA_ERROR_IN_USE,
				     "context '%s' is being progressed; destroy it after doca_pe_progress returns",
				     ctx->name);
	return DOCA_SUCCESS;
}

static void pool_release(struct ferry_task_pool *pool)
{
	free(pool->mem);
	pool->mem = NULL;
	pool->free_list = NULL;
	pool->num_free = 0;
}

void ferry_ctx_fini(struct doca_ctx *ctx)
{
	if (ctx->pe != NULL)
		ferry_pe_disconnect_ctx(ctx->pe, ctx);
	for (uint32_t i = 0; i < ctx->num_pools; i++) {
		pool_release(ctx->pools[i]);
		ferry_fault_pool_release(ctx->pools[i]);
	}
	if (ctx->dev != NULL)
		ferry_dev_put(ctx->dev);
	ctx->dev = NULL;
}

/* ---- task pools ---- */

doca_error_t ferry_task_pool_configure(struct ferry_task_pool *pool, uint32_t num_tasks, const char *call)
{
	doca_error_t err = ferry_ctx_check_idle(pool->ctx, call);

	if (err != DOCA_SUCCESS)
		return err;
	if (num_tasks == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "context '%s': the %s task pool needs at least 1 task", pool->ctx->name,
				     pool->task_name);
	pool->capacity = num_tasks;
	return DOCA_SUCCESS;
}

/*
 * Build a pool's free list in fresh memory at every start (the size may have
 * changed while IDLE); a stop reaches IDLE only once every task is back, so
 * nothing points into the old memory.
 */
static doca_error_t pool_prepare(struct ferry_task_pool *pool)
{
	if (pool->capacity == 0)
		return DOCA_SUCCESS;
	pool_release(pool);
	pool->mem = ferry_aligned_alloc(FERRY_CACHE_LINE, (size_t)pool->capacity * pool->elem_size);
	if (pool->mem == NULL)
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_NO_MEMORY, "context '%s': no memory for %u %s tasks",
				     pool->ctx->name, pool->capacity, pool->task_name);
	pool->free_list = NULL;
	for (uint32_t i = pool->capacity; i-- > 0;) {
		struct doca_task *task = (struct doca_task *)((char *)pool->mem + (size_t)i * pool->elem_size);

		task->ctx = pool->ctx;
		task->pool = pool;
		task->state = FERRY_TASK_FREE;
		task->orphaned = false;
		task->owner = NULL;
		task->next = pool->free_list;
		pool->free_list = task;
	}
	pool->num_free = pool->capacity;
	ferry_fault_pool_prepare(pool);
	return DOCA_SUCCESS;
}

doca_error_t ferry_task_pool_get(struct ferry_task_pool *pool, const char *call, struct doca_task **out)
{
	struct doca_ctx *ctx = pool->ctx;
	struct doca_task *task;

	if (ctx->state != DOCA_CTX_STATE_RUNNING)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "context '%s' is %s; task allocation needs RUNNING",
				     ctx->name, ferry_ctx_state_name(ctx->state));
	task = pool->free_list;
	if (task == NULL) {
		if (pool->capacity == 0)
			return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
					     "context '%s': %s tasks were not configured before start", ctx->name,
					     pool->task_name);
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "context '%s': all %u %s tasks are allocated",
				     ctx->name, pool->capacity, pool->task_name);
	}
	pool->free_list = task->next;
	pool->num_free--;
	/* Clear the type's part of the element; the header is set below. */
	memset((char *)task + sizeof(*task), 0, pool->elem_size - sizeof(*task));
	task->user_data.u64 = 0;
	task->status = DOCA_SUCCESS;
	task->state = FERRY_TASK_ALLOCATED;
	task->owner = NULL;
	task->next = NULL;
	*out = task;
	return DOCA_SUCCESS;
}

static bool task_is_valid(const struct doca_task *task, const char *call)
{
	if (task == NULL) {
		FERRY_ERR("%s: task is NULL", call);
		return false;
	}
	return true;
}

static void task_put(struct doca_task *task)
{
	struct ferry_task_pool *pool = task->pool;

	task->state = FERRY_TASK_FREE;
	task->orphaned = false;
	task->owner = NULL;
	task->next = pool->free_list;
	pool->free_list = task;
	pool->num_free++;
}

/* ---- completion ---- */

/*
 * The rare endings: the user freed the task in flight (nobody may see it
 * again but its pool), or a graph node owns it (the graph, not the type's
 * callback, hears of it). An orphan of a graph still tells the graph, so
 * its instance finishes.
 */
static void task_complete_aside(struct doca_task *task, doca_error_t status)
{
	struct ferry_task_owner *owner = task->owner;

	task->owner = NULL;
	if (task->orphaned) {
		task_put(task);
	} else {
		task->status = status;
		task->state = FERRY_TASK_ALLOCATED;
	}
	if (owner != NULL)
		owner->complete(owner, task, status);
}

static inline void task_finish(struct doca_task *task, doca_error_t status)
{
	struct doca_ctx *ctx = task->ctx;

	ctx->num_inflight--;
	/* One predictable branch for both rare cases (bitwise or: no second jump). */
	if (__builtin_expect(task->orphaned | (task->owner != NULL), 0)) {
		task_complete_aside(task, status);
		return;
	}
	task->status = status;
	task->state = FERRY_TASK_ALLOCATED;
	task->pool->complete(task, task->user_data, ctx->user_data, status == DOCA_SUCCESS);
}

void ferry_task_complete_now(struct doca_task *task, doca_error_t status)
{
	task_finish(task, status);
}

/* Out of line, so that the fast path keeps status in a register and ends in a tail call. */
__attribute__((noinline, cold)) static void task_complete_faulted(struct doca_task *task, doca_error_t status)
{
	if (!ferry_fault_on_complete(task, &status))
		task_finish(task, status);
	/* else held back by a delay: still in flight, finished by a later progress */
}

void ferry_task_complete(struct doca_task *task, doca_error_t status)
{
	/* FERRY_FAULT: the pool's site is NULL unless a rule names this pool, so off costs one branch. */
	if (__builtin_expect(task->pool->fault != NULL, 0)) {
		task_complete_faulted(task, status);
		return;
	}
	task_finish(task, status);
}

/* ---- state machine ---- */

void ferry_ctx_set_running(struct doca_ctx *ctx)
{
	if (ctx->state == DOCA_CTX_STATE_STARTING)
		ctx_set_state(ctx, DOCA_CTX_STATE_RUNNING);
}

static void ctx_finish_stop(struct doca_ctx *ctx)
{
	if (ctx->ops->stopped != NULL)
		ctx->ops->stopped(ctx);
	ctx_set_state(ctx, DOCA_CTX_STATE_IDLE);
}

/* Every task of every pool is back in its pool (none in flight, none held by the user). */
static bool ctx_all_tasks_free(const struct doca_ctx *ctx)
{
	for (uint32_t i = 0; i < ctx->num_pools; i++) {
		const struct ferry_task_pool *pool = ctx->pools[i];

		if (pool->mem != NULL && pool->num_free != pool->capacity)
			return false;
	}
	return true;
}

bool ferry_ctx_can_finish_stop(const struct doca_ctx *ctx)
{
	return ctx->state == DOCA_CTX_STATE_STOPPING && ctx->num_inflight == 0 && ctx_all_tasks_free(ctx);
}

/*
 * As in DOCA, a stopping context reaches IDLE only once nothing is in flight
 * and the user has freed every task: the pools are rebuilt at the next start.
 */
bool ferry_ctx_try_finish_stop(struct doca_ctx *ctx)
{
	if (!ferry_ctx_can_finish_stop(ctx))
		return false;
	ctx_finish_stop(ctx);
	return true;
}

/* Callers come from STARTING or RUNNING only, so ops->stop runs once per stop. */
static void ctx_begin_stop(struct doca_ctx *ctx)
{
	ctx_set_state(ctx, DOCA_CTX_STATE_STOPPING);
	ctx->ops->stop(ctx);
}

void ferry_ctx_fail(struct doca_ctx *ctx, doca_error_t why)
{
	if (ctx->state == DOCA_CTX_STATE_STARTING || ctx->state == DOCA_CTX_STATE_RUNNING) {
		ctx->fail_status = why;
		ctx_begin_stop(ctx);
	}
}

doca_error_t doca_ctx_start(struct doca_ctx *ctx)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(ctx);
	if (ctx->state != DOCA_CTX_STATE_IDLE)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "context '%s' is %s; start needs IDLE", ctx->name,
				  ferry_ctx_state_name(ctx->state));
	if (ctx->pe == NULL) /* DOCA's answer for a context with no PE */
		return FERRY_RULE(DOCA_ERROR_NOT_CONNECTED,
				  "context '%s' is not connected to a progress engine (doca_pe_connect_ctx)",
				  ctx->name);
	ctx->fail_status = DOCA_SUCCESS;
	ferry_fault_init();
	for (uint32_t i = 0; i < ctx->num_pools; i++) {
		err = pool_prepare(ctx->pools[i]);
		if (err != DOCA_SUCCESS)
			goto fail;
	}
	err = ctx->ops->start(ctx);
	if (err == DOCA_SUCCESS) {
		ctx_set_state(ctx, DOCA_CTX_STATE_RUNNING);
		return DOCA_SUCCESS;
	}
	if (err == DOCA_ERROR_IN_PROGRESS) {
		ctx_set_state(ctx, DOCA_CTX_STATE_STARTING);
		return err;
	}
fail:
	/* Still IDLE: no task was handed out, so the pools go back whole. */
	for (uint32_t i = 0; i < ctx->num_pools; i++)
		pool_release(ctx->pools[i]);
	/*
	 * DOCA documents INITIALIZATION for a start that could not set up its
	 * resources, allocation failures included; the failing step logged why.
	 */
	if (err == DOCA_ERROR_NO_MEMORY)
		err = DOCA_ERROR_INITIALIZATION;
	return err;
}

doca_error_t doca_ctx_stop(struct doca_ctx *ctx)
{
	FERRY_ARG_NOT_NULL(ctx);
	if (ctx->pe == NULL) /* DOCA's answer, as for doca_ctx_start */
		return FERRY_RULE(DOCA_ERROR_NOT_CONNECTED,
				  "context '%s' is not connected to a progress engine (doca_pe_connect_ctx)",
				  ctx->name);
	switch (ctx->state) {
	case DOCA_CTX_STATE_IDLE:
		/*
		 * DOCA documents no error for this, and its samples stop a context
		 * that a callback already stopped and count anything but success as
		 * a failure (dma_local_copy): stopping an IDLE context is a no-op.
		 */
		FERRY_DBG("%s: context '%s' is already IDLE", __func__, ctx->name);
		return DOCA_SUCCESS;
	case DOCA_CTX_STATE_STOPPING:
		return DOCA_ERROR_IN_PROGRESS;
	case DOCA_CTX_STATE_STARTING:
	case DOCA_CTX_STATE_RUNNING:
		break;
	}
	ctx_begin_stop(ctx);
	/*
	 * From a callback, the last steps (ops->stopped, the IDLE callback) wait
	 * for the progress pass to leave the type's code: the IDLE callback may
	 * destroy the context, which must not happen under the type's feet.
	 */
	if (ferry_pe_in_callback(ctx->pe))
		return DOCA_ERROR_IN_PROGRESS;
	if (ferry_ctx_try_finish_stop(ctx))
		return DOCA_SUCCESS;
	return DOCA_ERROR_IN_PROGRESS;
}

doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks)
{
	if (ctx == NULL || num_inflight_tasks == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "ctx and output must not be NULL");
	*num_inflight_tasks = ctx->num_inflight;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data)
{
	FERRY_ARG_NOT_NULL(ctx);
	ctx->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data)
{
	if (ctx == NULL || user_data == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "ctx and output must not be NULL");
	*user_data = ctx->user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(ctx);
	err = ferry_ctx_check_idle(ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	ctx->state_changed_cb = cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state)
{
	if (ctx == NULL || state == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "ctx and output must not be NULL");
	*state = ctx->state;
	return DOCA_SUCCESS;
}

void doca_ctx_flush_tasks(struct doca_ctx *ctx)
{
	if (ctx == NULL) {
		FERRY_ERR("%s: ctx is NULL", __func__);
		return;
	}
	if (ctx->state != DOCA_CTX_STATE_IDLE && ctx->ops->flush != NULL)
		ctx->ops->flush(ctx);
}

/* Ferry runs every data path on the CPU: offload targets are refused with a line. */
static doca_error_t no_offload(const struct doca_ctx *ctx, const char *call, const char *target)
{
	if (ctx == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "ctx is NULL");
	return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED, "context '%s': Ferry has no %s data path", ctx->name,
			     target);
}

doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev)
{
	(void)gpu_dev;
	return no_offload(ctx, __func__, "GPU");
}

doca_error_t doca_ctx_set_datapath_on_dpa(struct doca_ctx *ctx, struct doca_dpa *dpa_dev)
{
	(void)dpa_dev;
	return no_offload(ctx, __func__, "DPA");
}

/* ---- tasks ---- */

static doca_error_t task_submit(struct doca_task *task, uint32_t flags, const char *call, bool quiet_again)
{
	struct doca_ctx *ctx;
	doca_error_t err;

	if (!task_is_valid(task, call))
		return DOCA_ERROR_INVALID_VALUE;
	ctx = task->ctx;
	if (task->state != FERRY_TASK_ALLOCATED)
		return FERRY_RULE_IN(
			call, DOCA_ERROR_BAD_STATE, "%s task %p is %s; only an allocated, idle task can be submitted",
			task->pool->task_name, (void *)task,
			task->state == FERRY_TASK_SUBMITTED && !task->orphaned ? "already in flight" : "free");
	if (ctx->state != DOCA_CTX_STATE_RUNNING)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "context '%s' is %s; tasks need RUNNING", ctx->name,
				     ferry_ctx_state_name(ctx->state));
	task->state = FERRY_TASK_SUBMITTED;
	ctx->num_inflight++;
	err = ctx->ops->submit(task);
	if (err != DOCA_SUCCESS) {
		task->state = FERRY_TASK_ALLOCATED;
		ctx->num_inflight--;
		if (err == DOCA_ERROR_AGAIN && !quiet_again)
			FERRY_DBG("%s: context '%s': queue full; progress and retry", call, ctx->name);
		return err;
	}
	if ((flags & DOCA_TASK_SUBMIT_FLAG_FLUSH) && ctx->ops->flush != NULL)
		ctx->ops->flush(ctx);
	return DOCA_SUCCESS;
}

doca_error_t doca_task_submit(struct doca_task *task)
{
	return task_submit(task, DOCA_TASK_SUBMIT_FLAG_FLUSH, __func__, false);
}

doca_error_t doca_task_try_submit(struct doca_task *task)
{
	return task_submit(task, DOCA_TASK_SUBMIT_FLAG_FLUSH, __func__, true);
}

doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags)
{
	const uint32_t known = DOCA_TASK_SUBMIT_FLAG_FLUSH | DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS;

	if ((flags & ~known) != 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "unknown flags 0x%x", flags & ~known);
	return task_submit(task, flags, __func__, false);
}

/*
 * Freeing a task in flight breaks DOCA's rule, yet programs do it at teardown
 * (free everything, then stop). The context still owns the task, so it is
 * only marked: it completes or is flushed as usual, and ferry_task_complete
 * puts it back in its pool without a callback, so the stop still reaches IDLE.
 * One line per context says so; a teardown of thousands of tasks is not
 * thousands of lines.
 */
static void task_orphan(struct doca_task *task)
{
	struct doca_ctx *ctx = task->ctx;

	task->orphaned = true;
	if (ctx->orphan_logged)
		return;
	ctx->orphan_logged = true;
	FERRY_ERR("doca_task_free: %s task %p of context '%s' is in flight; it returns to its pool when it "
		  "completes, without a callback; further such frees on this context are not logged",
		  task->pool->task_name, (void *)task, ctx->name);
}

void doca_task_free(struct doca_task *task)
{
	if (!task_is_valid(task, __func__))
		return;
	if (task->state == FERRY_TASK_SUBMITTED && !task->orphaned) {
		task_orphan(task);
		return;
	}
	if (task->state != FERRY_TASK_ALLOCATED) {
		FERRY_ERR("%s: %s task %p is already free", __func__, task->pool->task_name, (void *)task);
		return;
	}
	task_put(task);
}

doca_error_t doca_task_get_status(const struct doca_task *task)
{
	if (!task_is_valid(task, __func__))
		return DOCA_ERROR_INVALID_VALUE;
	return task->status;
}

void doca_task_set_user_data(struct doca_task *task, union doca_data user_data)
{
	if (task_is_valid(task, __func__))
		task->user_data = user_data;
}

union doca_data doca_task_get_user_data(const struct doca_task *task)
{
	union doca_data none = {.u64 = 0};

	if (!task_is_valid(task, __func__))
		return none;
	return task->user_data;
}

struct doca_ctx *doca_task_get_ctx(const struct doca_task *task)
{
	if (!task_is_valid(task, __func__))
		return NULL;
	return task->ctx;
}
