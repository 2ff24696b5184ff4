/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wq_ctx.c - the context life cycle of DOCA 1.x/2.x: devices added, started,
 * then attached to work queues; detached, stopped, devices removed.
 *
 * doca_ctx_start and doca_ctx_stop keep their names in DOCA 3 with another
 * meaning, so the legacy headers rename them to ferry_wq_ctx_start/_stop.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_dev.h"
#include "legacy/legacy_api.h"

FERRY_LOG_MODULE("workq");

#define WQ_MAX_NUM_CTX 1024

/*
 * The generic context's ops. Nothing of DOCA 3 may run this context: a DOCA 3
 * doca_ctx_start reaching it (after doca_pe_connect_ctx) is refused here.
 */
static doca_error_t refuse_start(struct doca_ctx *ctx)
{
	return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_NOT_SUPPORTED,
			     "context '%s' %p belongs to DOCA's work-queue API (1.x/2.x): start it with that "
			     "generation's doca_ctx_start and run its jobs through a doca_workq",
			     ctx->name, (void *)ctx);
}

static void no_stop(struct doca_ctx *ctx)
{
	(void)ctx;
}

static doca_error_t refuse_submit(struct doca_task *task)
{
	(void)task;
	return DOCA_ERROR_NOT_SUPPORTED;
}

static uint32_t no_progress(struct doca_ctx *ctx)
{
	(void)ctx;
	return 0;
}

static const struct ferry_ctx_ops refusing_ops = {
	.start = refuse_start,
	.stop = no_stop,
	.submit = refuse_submit,
	.progress = no_progress,
};

const char *ferry_legacy_call_name(const char *func)
{
	static const char *const prefixes[] = {"ferry_v22_", "ferry_v14_", "ferry_wq_"};
	static _Thread_local char name[96];

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		if (strncmp(func, prefixes[i], n) == 0) {
			snprintf(name, sizeof(name), "doca_%s", func + n);
			return name;
		}
	}
	return func;
}

/* Contexts alive, against doca_ctx_get_max_num_ctx. */
static _Atomic uint32_t num_ctx;

doca_error_t ferry_wq_ctx_init(struct ferry_wq_ctx *ctx, const struct ferry_wq_ctx_kind *kind, const char *call)
{
	if (atomic_fetch_add_explicit(&num_ctx, 1, memory_order_relaxed) >= WQ_MAX_NUM_CTX) {
		atomic_fetch_sub_explicit(&num_ctx, 1, memory_order_relaxed);
		return FERRY_RULE_IN(
			call, DOCA_ERROR_NO_MEMORY,
			"%u work-queue contexts exist, the most a process may have (doca_ctx_get_max_num_ctx)",
			WQ_MAX_NUM_CTX);
	}
	ferry_ctx_init(&ctx->generic, &refusing_ops, kind->name, NULL);
	ctx->magic = FERRY_WQ_CTX_MAGIC;
	ctx->kind = kind;
	return DOCA_SUCCESS;
}

struct ferry_wq_ctx *ferry_wq_ctx_from(struct doca_ctx *ctx, const char *call)
{
	struct ferry_wq_ctx *wctx;

	if (ctx == NULL) {
		(void)FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "ctx is NULL");
		return NULL;
	}
	if (ctx->ops != &refusing_ops) {
		(void)FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				    "context '%s' %p is a DOCA 3 context; work-queue calls take only contexts of "
				    "the work-queue API (doca_dma_create of DOCA 1.x/2.x, ...)",
				    ctx->name != NULL ? ctx->name : "?", (void *)ctx);
		return NULL;
	}
	wctx = ferry_container_of(ctx, struct ferry_wq_ctx, generic);
	return wctx->magic == FERRY_WQ_CTX_MAGIC ? wctx : NULL;
}

doca_error_t ferry_wq_ctx_check_destroyable(const struct ferry_wq_ctx *ctx, const char *call)
{
	if (ctx->num_attached != 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_IN_USE,
				     "%s context %p is still on %u work queue(s); doca_ctx_workq_rm them first",
				     ctx->kind->name, (const void *)ctx, ctx->num_attached);
	if (ctx->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "%s context %p is started; doca_ctx_stop it first",
				     ctx->kind->name, (const void *)ctx);
	return DOCA_SUCCESS;
}

void ferry_wq_ctx_fini(struct ferry_wq_ctx *ctx)
{
	if (ctx->dev != NULL)
		ferry_dev_put(ctx->dev);
	ctx->magic = 0;
	ferry_ctx_fini(&ctx->generic);
	atomic_fetch_sub_explicit(&num_ctx, 1, memory_order_relaxed);
}

doca_error_t doca_ctx_dev_add(struct doca_ctx *ctx, struct doca_dev *dev)
{
	struct ferry_wq_ctx *wctx = ferry_wq_ctx_from(ctx, __func__);

	if (wctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	LEGACY_ARG_NOT_NULL(dev);
	if (wctx->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "%s context %p is started; add devices before doca_ctx_start",
				  wctx->kind->name, (void *)ctx);
	if (wctx->dev == dev)
		return FERRY_RULE(DOCA_ERROR_IN_USE, "device %s is already added to %s context %p", ferry_dev_name(dev),
				  wctx->kind->name, (void *)ctx);
	if (!wctx->kind->needs_dev)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "a %s context takes no device", wctx->kind->name);
	if (wctx->dev != NULL)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "%s context %p already has device %s; it takes one",
				  wctx->kind->name, (void *)ctx, ferry_dev_name(wctx->dev));
	ferry_dev_get(dev);
	wctx->dev = dev;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_dev_rm(struct doca_ctx *ctx, struct doca_dev *dev)
{
	struct ferry_wq_ctx *wctx = ferry_wq_ctx_from(ctx, __func__);

	if (wctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	LEGACY_ARG_NOT_NULL(dev);
	if (wctx->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "%s context %p is started; doca_ctx_stop it first",
				  wctx->kind->name, (void *)ctx);
	if (wctx->dev != dev)
		return FERRY_RULE(DOCA_ERROR_NOT_FOUND, "device %s was not added to %s context %p", ferry_dev_name(dev),
				  wctx->kind->name, (void *)ctx);
	ferry_dev_put(dev);
	wctx->dev = NULL;
	return DOCA_SUCCESS;
}

doca_error_t ferry_wq_ctx_start(struct doca_ctx *ctx)
{
	struct ferry_wq_ctx *wctx = ferry_wq_ctx_from(ctx, "doca_ctx_start");
	doca_error_t err;

	if (wctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (wctx->started)
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_BAD_STATE, "%s context %p is already started",
				     wctx->kind->name, (void *)ctx);
	if (wctx->kind->needs_dev && wctx->dev == NULL)
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_INVALID_VALUE,
				     "%s context %p has no device (doca_ctx_dev_add)", wctx->kind->name, (void *)ctx);
	err = wctx->kind->start(wctx);
	if (err != DOCA_SUCCESS)
		return err;
	wctx->started = true;
	return DOCA_SUCCESS;
}

doca_error_t ferry_wq_ctx_stop(struct doca_ctx *ctx)
{
	struct ferry_wq_ctx *wctx = ferry_wq_ctx_from(ctx, "doca_ctx_stop");

	if (wctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (!wctx->started)
		return FERRY_RULE_IN("doca_ctx_stop", DOCA_ERROR_BAD_STATE, "%s context %p is not started",
				     wctx->kind->name, (void *)ctx);
	if (wctx->num_attached != 0)
		return FERRY_RULE_IN("doca_ctx_stop", DOCA_ERROR_NOT_PERMITTED,
				     "%s context %p is still on %u work queue(s); doca_ctx_workq_rm them first",
				     wctx->kind->name, (void *)ctx, wctx->num_attached);
	if (wctx->kind->stop != NULL)
		wctx->kind->stop(wctx);
	wctx->started = false;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_get_max_num_ctx(uint32_t *max_num_ctx)
{
	LEGACY_ARG_NOT_NULL(max_num_ctx);
	*max_num_ctx = WQ_MAX_NUM_CTX;
	return DOCA_SUCCESS;
}

doca_error_t doca_ctx_get_event_driven_supported(struct doca_ctx *ctx, uint8_t *event_supported)
{
	if (ferry_wq_ctx_from(ctx, __func__) == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	LEGACY_ARG_NOT_NULL(event_supported);
	*event_supported = 1;
	return DOCA_SUCCESS;
}
