/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_ctx.h (DOCA 1.4 flavour) - contexts, jobs, events and work queues.
 *
 * A context (a DMA, a sync event, ...) gets its device (doca_ctx_dev_add), is
 * started, then added to one or more work queues (doca_ctx_workq_add). The
 * program fills a job on its stack, submits it to a work queue and pulls one
 * event per doca_workq_progress_retrieve call; the event's result holds the
 * job's doca_error_t. A work queue holds at most "depth" jobs submitted and
 * not yet retrieved (DOCA_ERROR_NO_MEMORY beyond). Teardown: remove the work
 * queues, stop, remove the device, destroy.
 *
 * Event-driven mode: enable it before the work queue joins a context, get the
 * handle (a file descriptor for epoll), arm, wait, clear, retrieve until
 * DOCA_ERROR_AGAIN, arm again.
 */
#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_dev;
struct doca_workq;

/** Job types are <library>_FIRST + n; each library's first job type is its FIRST + 1. */
#define DOCA_ACTION_SDK_RANGE 16
enum doca_action_type {
	DOCA_ACTION_NONE = 0,
	DOCA_ACTION_DMA_FIRST = 1 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_DEVEMU_FIRST = 2 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_DEVEMU_BLOCK_FIRST = 3 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_VIRTIO_FIRST = 4 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_VBLK_FIRST = 5 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_REGEX_FIRST = 6 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_NVME_FIRST = 7 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_APPSHIELD_FIRST = 8 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_SHA_FIRST = 9 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_COMPRESS_FIRST = 10 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_IPSEC_FIRST = 11 << DOCA_ACTION_SDK_RANGE,
	DOCA_ACTION_RMAX_FIRST = 12 << DOCA_ACTION_SDK_RANGE,
};

enum doca_job_flags {
	DOCA_JOB_FLAGS_NONE = 0,
};

enum doca_workq_retrieve_flags {
	DOCA_WORKQ_RETRIEVE_FLAGS_NONE = 0,
};

/** The head of every job; only these fields and the job type's own are read. */
struct doca_job {
	int type;                  /**< e.g. DOCA_DMA_JOB_MEMCPY */
	int flags;                 /**< enum doca_job_flags */
	struct doca_ctx *ctx;      /**< the context that runs the job */
	union doca_data user_data; /**< handed back, untouched, in the job's event */
};

/** A finished job, from doca_workq_progress_retrieve. */
struct doca_event {
	int type;                  /**< the job's type */
	union doca_data user_data; /**< the job's user_data */
	union doca_data result;    /**< result.u64: the job's doca_error_t */
};

/* ---- work queues ---- */

/** A work queue of @p depth (at least 1) jobs in flight. */
__DOCA_EXPERIMENTAL doca_error_t doca_workq_create(uint32_t depth, struct doca_workq **workq);
/** Refused (DOCA_ERROR_IN_USE) while the work queue is added to a context. */
__DOCA_EXPERIMENTAL doca_error_t doca_workq_destroy(struct doca_workq *workq);
__DOCA_EXPERIMENTAL doca_error_t doca_workq_get_depth(const struct doca_workq *workq, uint32_t *depth);
/** Only before the work queue joins a context. */
__DOCA_EXPERIMENTAL doca_error_t doca_workq_set_depth(struct doca_workq *workq, uint32_t depth);
/**
 * Queue a job: DOCA_ERROR_NO_MEMORY when depth jobs are out, DOCA_ERROR_NOT_FOUND
 * when the work queue is not on job->ctx, DOCA_ERROR_BAD_STATE when that context
 * is stopped, DOCA_ERROR_INVALID_VALUE for a job the context cannot run.
 */
__DOCA_EXPERIMENTAL doca_error_t doca_workq_submit(struct doca_workq *workq, struct doca_job const *job);
/**
 * Do the work and hand back at most one finished job: DOCA_SUCCESS, or
 * DOCA_ERROR_IO_FAILED for a job that failed (its error in ev->result.u64), or
 * DOCA_ERROR_AGAIN when none has finished (@p ev untouched).
 */
__DOCA_EXPERIMENTAL doca_error_t doca_workq_progress_retrieve(struct doca_workq *workq, struct doca_event *ev,
							      int flags);
__DOCA_EXPERIMENTAL doca_error_t doca_workq_set_event_driven_enable(struct doca_workq *workq, uint8_t enable);
__DOCA_EXPERIMENTAL doca_error_t doca_workq_get_event_driven_enable(struct doca_workq *workq, uint8_t *enabled);
/** The file descriptor to wait on; asking for it turns event-driven mode on. */
__DOCA_EXPERIMENTAL doca_error_t doca_workq_get_event_handle(struct doca_workq *workq, doca_event_handle_t *handle);
/** Make the handle readable once a job finishes (at once if one already has). */
__DOCA_EXPERIMENTAL doca_error_t doca_workq_event_handle_arm(struct doca_workq *workq);
__DOCA_EXPERIMENTAL doca_error_t doca_workq_event_handle_clear(struct doca_workq *workq, doca_event_handle_t handle);

/* ---- contexts ---- */

__DOCA_EXPERIMENTAL doca_error_t doca_ctx_get_max_num_ctx(uint32_t *max_num_ctx);
/** Before doca_ctx_start; a context takes one device. */
__DOCA_EXPERIMENTAL doca_error_t doca_ctx_dev_add(struct doca_ctx *ctx, struct doca_dev *dev);
__DOCA_EXPERIMENTAL doca_error_t doca_ctx_dev_rm(struct doca_ctx *ctx, struct doca_dev *dev);
/** Start a configured context; work queues are added after it. */
__DOCA_EXPERIMENTAL doca_error_t doca_ctx_start(struct doca_ctx *ctx) FERRY_LEGACY_SYMBOL(ferry_wq_ctx_start);
/** Refused (DOCA_ERROR_NOT_PERMITTED) while work queues are added. */
__DOCA_EXPERIMENTAL doca_error_t doca_ctx_stop(struct doca_ctx *ctx) FERRY_LEGACY_SYMBOL(ferry_wq_ctx_stop);
/** Only on a started context. */
__DOCA_EXPERIMENTAL doca_error_t doca_ctx_workq_add(struct doca_ctx *ctx, struct doca_workq *workq);
/** Refused (DOCA_ERROR_NOT_PERMITTED) while jobs of the context are running in the work queue. */
__DOCA_EXPERIMENTAL doca_error_t doca_ctx_workq_rm(struct doca_ctx *ctx, struct doca_workq *workq);
__DOCA_EXPERIMENTAL doca_error_t doca_ctx_get_event_driven_supported(struct doca_ctx *ctx, uint8_t *event_supported);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H_ */
