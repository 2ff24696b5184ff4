/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wq_dma.c - DOCA DMA of the work-queue generation: the memcpy job.
 *
 * A DMA context attached to a work queue runs a DOCA 3 DMA context on that
 * queue's engine, with a task pool of the queue's depth: a job becomes a
 * memcpy task (same checks, same engines, local or host<->DPU), its completion
 * the queue's event. doca_dma_create keeps its name in DOCA 3 with a device
 * argument, so the legacy headers rename it: ferry_v22_dma_create for 1.5 and
 * 2.x, ferry_v14_dma_create for 1.3/1.4, whose job also says how many bytes
 * to copy.
 */
#include <stdlib.h>

#include <doca_buf.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_pe.h>

#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_memview.h"
#include "dma/dma_priv.h"
#include "legacy/legacy_api.h"

FERRY_LOG_MODULE("workq");

/* struct doca_dma of the legacy headers: a context of the DMA kind. */
struct ferry_wq_dma {
	struct ferry_wq_ctx ctx;
};

/*
 * What an attachment runs on: a DOCA 3 DMA context and the memcpy tasks it
 * already finished. A finished task is kept for the next job rather than
 * freed and allocated again (the pool zeroes what it hands out): at 64 B that
 * is most of what a job costs beyond a task.
 */
struct wq_dma_engine {
	struct doca_dma *dma;
	bool running; /* false once a failed copy stopped dma: the next job starts it again */
	uint32_t num_idle;
	struct doca_dma_task_memcpy *idle[]; /* the work queue's depth of them */
};

static bool engine_running(const struct ferry_wq_attach *att)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(att->engine_ctx, &state);
	return state == DOCA_CTX_STATE_RUNNING;
}

static void drop_idle(struct wq_dma_engine *eng)
{
	while (eng->num_idle > 0)
		doca_task_free(doca_dma_task_memcpy_as_task(eng->idle[--eng->num_idle]));
}

static void job_done(struct doca_dma_task_memcpy *task, union doca_data task_user_data, union doca_data ctx_user_data)
{
	struct ferry_wq_attach *att = ctx_user_data.ptr;
	struct wq_dma_engine *eng = att->kind_data;
	struct doca_task *t = &task->base;
	doca_error_t status = t->status;

	ferry_workq_complete(att, task_user_data, status);
	/* A copy that succeeded leaves its context running (a stop would flush it with an error). */
	if (status == DOCA_SUCCESS || engine_running(att)) {
		eng->idle[eng->num_idle++] = task; /* at most depth tasks exist, so there is room */
		return;
	}
	eng->running = false;
	/*
	 * A failed copy stops a DOCA 3 DMA context; it reaches IDLE once every task
	 * is back in its pool. The work queue starts it again at the next job
	 * (a failed job does not stop a context of the work-queue API).
	 */
	doca_task_free(t);
	drop_idle(eng);
}

/* After a failed copy: let the stop finish (flushing what was still queued), then start again. */
/*
 * Give back the idle tasks and progress the work queue's engine until the
 * DMA context is IDLE (a stop finishing; nothing of it is pending). True when
 * it got there.
 */
static bool settle_idle(struct ferry_wq_attach *att)
{
	struct doca_pe *pe = ferry_workq_pe(att->workq);
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;

	drop_idle(att->kind_data);
	for (int spins = 0; spins < 1000000; spins++) {
		(void)doca_ctx_get_state(att->engine_ctx, &state);
		if (state == DOCA_CTX_STATE_IDLE)
			return true;
		(void)doca_pe_progress(pe);
	}
	return false;
}

static doca_error_t restart_engine(struct ferry_wq_attach *att)
{
	if (!settle_idle(att))
		return FERRY_RULE_IN("doca_workq_submit", DOCA_ERROR_BAD_STATE,
				     "dma context %p: the copy engine did not come back after a failed job",
				     (void *)att->ctx);
	if (doca_ctx_start(att->engine_ctx) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	((struct wq_dma_engine *)att->kind_data)->running = true;
	return DOCA_SUCCESS;
}

static doca_error_t dma_start(struct ferry_wq_ctx *ctx)
{
	return doca_dma_cap_task_memcpy_is_supported(doca_dev_as_devinfo(ctx->dev));
}

static doca_error_t dma_attach(struct ferry_wq_attach *att, uint32_t depth)
{
	struct wq_dma_engine *eng;
	struct doca_ctx *ctx;
	doca_error_t err;

	eng = calloc(1, sizeof(*eng) + depth * sizeof(eng->idle[0]));
	if (eng == NULL)
		return FERRY_RULE_IN("doca_ctx_workq_add", DOCA_ERROR_NO_MEMORY, "out of memory");
	err = doca_dma_create(att->ctx->dev, &eng->dma);
	if (err != DOCA_SUCCESS) {
		free(eng);
		return err;
	}
	ctx = doca_dma_as_ctx(eng->dma);
	err = doca_dma_task_memcpy_set_conf(eng->dma, job_done, job_done, depth);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_set_user_data(ctx, (union doca_data){.ptr = att});
	if (err == DOCA_SUCCESS)
		err = doca_pe_connect_ctx(ferry_workq_pe(att->workq), ctx);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_start(ctx);
	if (err != DOCA_SUCCESS) {
		(void)doca_dma_destroy(eng->dma);
		free(eng);
		return err;
	}
	eng->running = true;
	att->engine_ctx = ctx;
	att->kind_data = eng;
	return DOCA_SUCCESS;
}

static void dma_detach(struct ferry_wq_attach *att)
{
	struct wq_dma_engine *eng = att->kind_data;

	/* Nothing is pending (doca_ctx_workq_rm checked): a stop, or one a failed copy began, ends soon. */
	drop_idle(eng);
	if (engine_running(att))
		(void)doca_ctx_stop(att->engine_ctx);
	(void)settle_idle(att);
	if (doca_dma_destroy(eng->dma) != DOCA_SUCCESS)
		FERRY_ERR("doca_ctx_workq_rm: dma context %p: its copy engine did not stop; it is leaked",
			  (void *)att->ctx);
	free(eng);
	att->engine_ctx = NULL;
	att->kind_data = NULL;
}

/*
 * The job's buffers as a task of the attachment's DMA context: an idle one if
 * there is, else a new one. Inlined into both kinds' submits: one call less
 * per job.
 */
static inline __attribute__((always_inline)) doca_error_t submit_task(struct ferry_wq_attach *att,
								      const struct ferry_dma_job *job,
								      union doca_data tag)
{
	struct wq_dma_engine *eng = att->kind_data;
	struct doca_dma_task_memcpy *task;
	doca_error_t err;

	if (!eng->running) {
		err = restart_engine(att);
		if (err != DOCA_SUCCESS)
			return err;
	}
	if (eng->num_idle > 0) {
		/* A task of ours, ALLOCATED and idle: set what alloc_init would (the 64 B job rate depends on it). */
		task = eng->idle[--eng->num_idle];
		task->src = job->src_buff;
		task->dst = job->dst_buff;
		task->base.user_data = tag;
	} else {
		err = doca_dma_task_memcpy_alloc_init(eng->dma, job->src_buff, job->dst_buff, tag, &task);
		if (err != DOCA_SUCCESS)
			return err;
	}
	/* The doorbell rings once for all jobs submitted since the last retrieve (ferry_workq_flush). */
	err = doca_task_submit_ex(&task->base, DOCA_TASK_SUBMIT_FLAG_NONE);
	if (err != DOCA_SUCCESS)
		eng->idle[eng->num_idle++] = task;
	return err;
}

static doca_error_t check_bufs(const struct ferry_dma_job *job)
{
	if (job->src_buff == NULL || job->dst_buff == NULL)
		return FERRY_RULE_IN("doca_workq_submit", DOCA_ERROR_INVALID_VALUE,
				     "dma memcpy job: src_buff or dst_buff is NULL");
	return DOCA_SUCCESS;
}

/* 1.5 and 2.x: the source's data is appended to the destination's. */
static doca_error_t dma_submit(struct ferry_wq_attach *att, const struct ferry_job *job, union doca_data tag)
{
	const struct ferry_dma_job *dma_job = ferry_container_of(job, struct ferry_dma_job, base);
	size_t len = 0;
	doca_error_t err = check_bufs(dma_job);

	if (err != DOCA_SUCCESS)
		return err;
	len = ferry_buf_data_len(dma_job->src_buff);
	/* DOCA 3 fails an empty copy at completion and stops the context; a job is refused at once. */
	if (len == 0)
		return FERRY_RULE_IN("doca_workq_submit", DOCA_ERROR_INVALID_VALUE,
				     "dma memcpy job: source buf %p has no data (doca_buf_set_data)",
				     (const void *)dma_job->src_buff);
	return submit_task(att, dma_job, tag);
}

/*
 * 1.3/1.4: the job names the byte count; the copy takes that many bytes from
 * the source's data pointer, whatever its data length says, and writes them
 * at the destination's data pointer (its data length becomes the count).
 */
/* Bytes from @p buf's data pointer to the end of the buf (DOCA 3's checks of @p buf run first). */
static doca_error_t room_from_data(const struct doca_buf *buf, void **data, size_t *room)
{
	void *head = NULL;
	size_t len = 0;
	doca_error_t err = doca_buf_get_head(buf, &head);

	if (err == DOCA_SUCCESS)
		err = doca_buf_get_len(buf, &len);
	if (err == DOCA_SUCCESS)
		err = doca_buf_get_data(buf, data);
	if (err == DOCA_SUCCESS)
		*room = len - (size_t)((uint8_t *)*data - (uint8_t *)head);
	return err;
}

static doca_error_t dma_submit_v14(struct ferry_wq_attach *att, const struct ferry_job *job, union doca_data tag)
{
	const struct ferry_dma_job_v14 *v14 = ferry_container_of(job, struct ferry_dma_job_v14, job.base);
	struct doca_buf *src = (struct doca_buf *)(uintptr_t)v14->job.src_buff;
	size_t n = v14->num_bytes_to_copy, src_room = 0, dst_room = 0;
	void *src_data = NULL, *dst_data = NULL;
	doca_error_t err = check_bufs(&v14->job);

	if (err != DOCA_SUCCESS)
		return err;
	if (n == 0)
		return FERRY_RULE_IN("doca_workq_submit", DOCA_ERROR_INVALID_VALUE,
				     "dma memcpy job: num_bytes_to_copy is 0");
	err = room_from_data(src, &src_data, &src_room);
	if (err == DOCA_SUCCESS)
		err = room_from_data(v14->job.dst_buff, &dst_data, &dst_room);
	if (err != DOCA_SUCCESS)
		return err;
	if (n > src_room || n > dst_room)
		return FERRY_RULE_IN("doca_workq_submit", DOCA_ERROR_INVALID_VALUE,
				     "dma memcpy job: num_bytes_to_copy %zu is more than the %s buf %p holds from its "
				     "data on (%zu bytes)",
				     n, n > src_room ? "source" : "destination",
				     n > src_room ? (void *)src : (void *)v14->job.dst_buff,
				     n > src_room ? src_room : dst_room);
	/* DOCA 3 appends to the destination's data; 1.x writes from its start. */
	err = doca_buf_set_data(src, src_data, n);
	if (err == DOCA_SUCCESS)
		err = doca_buf_reset_data_len(v14->job.dst_buff);
	if (err != DOCA_SUCCESS)
		return err;
	return submit_task(att, &v14->job, tag);
}

static void dma_destroy(struct ferry_wq_ctx *ctx)
{
	free(ferry_container_of(ctx, struct ferry_wq_dma, ctx));
}

static const struct ferry_wq_ctx_kind dma_kind = {
	.name = "dma",
	.needs_dev = true,
	.first_job_type = FERRY_DMA_JOB_MEMCPY,
	.last_job_type = FERRY_DMA_JOB_MEMCPY,
	.start = dma_start,
	.attach = dma_attach,
	.detach = dma_detach,
	.submit = dma_submit,
	.destroy = dma_destroy,
};

static const struct ferry_wq_ctx_kind dma_kind_v14 = {
	.name = "dma",
	.needs_dev = true,
	.first_job_type = FERRY_DMA_JOB_MEMCPY,
	.last_job_type = FERRY_DMA_JOB_MEMCPY,
	.start = dma_start,
	.attach = dma_attach,
	.detach = dma_detach,
	.submit = dma_submit_v14,
	.destroy = dma_destroy,
};

static doca_error_t dma_create(const struct ferry_wq_ctx_kind *kind, struct ferry_wq_dma **dma)
{
	struct ferry_wq_dma *d;

	if (dma == NULL)
		return FERRY_RULE_IN("doca_dma_create", DOCA_ERROR_INVALID_VALUE, "dma is NULL");
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return FERRY_RULE_IN("doca_dma_create", DOCA_ERROR_NO_MEMORY, "out of memory for a DMA context");
	if (ferry_wq_ctx_init(&d->ctx, kind, "doca_dma_create") != DOCA_SUCCESS) {
		free(d);
		return DOCA_ERROR_NO_MEMORY;
	}
	*dma = d;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_dma_create(struct ferry_wq_dma **dma)
{
	return dma_create(&dma_kind, dma);
}

doca_error_t ferry_v14_dma_create(struct ferry_wq_dma **dma)
{
	return dma_create(&dma_kind_v14, dma);
}

doca_error_t ferry_wq_dma_destroy(struct ferry_wq_dma *dma)
{
	doca_error_t err;

	LEGACY_ARG_NOT_NULL(dma);
	if (ferry_wq_ctx_from(&dma->ctx.generic, "doca_dma_destroy") == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = ferry_wq_ctx_check_destroyable(&dma->ctx, "doca_dma_destroy");
	if (err != DOCA_SUCCESS)
		return err;
	ferry_wq_ctx_fini(&dma->ctx);
	dma->ctx.kind->destroy(&dma->ctx);
	return DOCA_SUCCESS;
}

struct doca_ctx *ferry_wq_dma_as_ctx(struct ferry_wq_dma *dma)
{
	return dma != NULL ? &dma->ctx.generic : NULL;
}

doca_error_t doca_dma_job_get_supported(struct doca_devinfo *devinfo, int job_type)
{
	LEGACY_ARG_NOT_NULL(devinfo);
	if (job_type != FERRY_DMA_JOB_MEMCPY)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "job type %#x is not a DMA job", job_type);
	return doca_dma_cap_task_memcpy_is_supported(devinfo);
}

doca_error_t doca_dma_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size)
{
	return doca_dma_cap_task_memcpy_get_max_buf_size(devinfo, buf_size);
}

doca_error_t doca_dma_get_max_list_buf_num_elem(const struct doca_devinfo *devinfo, uint32_t *max_list_num_elem)
{
	return doca_dma_cap_task_memcpy_get_max_buf_list_len(devinfo, max_list_num_elem);
}

/* 1.3: DOCA_DMA_CAP_HW_OFFLOAD (bit 0) when the device copies at all. */
doca_error_t doca_dma_devinfo_caps_get(struct doca_devinfo *devinfo, uint32_t *caps)
{
	LEGACY_ARG_NOT_NULL(devinfo);
	LEGACY_ARG_NOT_NULL(caps);
	*caps = doca_dma_cap_task_memcpy_is_supported(devinfo) == DOCA_SUCCESS ? 1u : 0u;
	return DOCA_SUCCESS;
}
