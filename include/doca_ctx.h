/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_ctx.h - the context: the common base of every DOCA data-path library
 * object (a DMA engine, a Comch server, ...).
 *
 * A context is created by its library (doca_dma_create, then doca_dma_as_ctx),
 * configured while IDLE, connected to one progress engine, then started. Its
 * state moves IDLE -> (STARTING ->) RUNNING -> STOPPING -> IDLE; every change is
 * reported to the state-changed callback. Tasks can be allocated and submitted
 * only while RUNNING.
 *
 * Threading: a context is not thread safe; use it from the thread that
 * progresses its progress engine.
 */
#ifndef DOCA_CTX_H_
#define DOCA_CTX_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_devinfo;
struct doca_gpu;
struct doca_dpa;

/** Life-cycle states of a context. */
enum doca_ctx_states {
	/** Created or fully stopped: configuration allowed, no tasks. */
	DOCA_CTX_STATE_IDLE = 0,
	/** Start was requested and finishes asynchronously (progress the PE). */
	DOCA_CTX_STATE_STARTING = 1,
	/** Started: tasks can be allocated and submitted. */
	DOCA_CTX_STATE_RUNNING = 2,
	/** Stop was requested; in-flight tasks are being flushed through progress. */
	DOCA_CTX_STATE_STOPPING = 3,
};

/**
 * Called on every state change, from doca_ctx_start/doca_ctx_stop for
 * synchronous changes and from doca_pe_progress for asynchronous ones.
 */
typedef void (*doca_ctx_state_changed_callback_t)(const union doca_data user_data, struct doca_ctx *ctx,
						  enum doca_ctx_states prev_state, enum doca_ctx_states next_state);

/**
 * @brief Finish configuration and start the context.
 * @param [in] ctx  an IDLE context already connected to a progress engine.
 * @return DOCA_SUCCESS when RUNNING; DOCA_ERROR_IN_PROGRESS when the context is
 * STARTING and will finish through progress; DOCA_ERROR_BAD_STATE when not IDLE;
 * DOCA_ERROR_NOT_CONNECTED when not connected to a progress engine;
 * DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_INITIALIZATION when the
 * context's resources could not be set up (out of memory included); a
 * library-specific error when its configuration is incomplete.
 */
DOCA_STABLE doca_error_t doca_ctx_start(struct doca_ctx *ctx);

/**
 * @brief Stop the context so it can be reconfigured or destroyed.
 *
 * Tasks still in flight are flushed: each completes through doca_pe_progress
 * with its error callback and a failure status (DOCA_ERROR_IO_FAILED unless
 * it already finished). May be called from any callback; there the context
 * stays STOPPING and reaches IDLE when the progress pass leaves the context's
 * code, so the IDLE state callback may destroy the context. The context
 * reaches IDLE only once no task is in flight and every task has been freed
 * (doca_task_free): free tasks in their callbacks, or free them and progress
 * again. A task freed while in flight completes without a callback and counts
 * as freed (doca_task_free).
 *
 * @param [in] ctx  a context in any state; stopping an IDLE one does nothing.
 * @return DOCA_SUCCESS when the context is IDLE on return (it was already, or
 * no task was in flight or held); DOCA_ERROR_IN_PROGRESS when it is STOPPING and
 * reaches IDLE through progress; DOCA_ERROR_NOT_CONNECTED when the context was
 * never connected to a progress engine; DOCA_ERROR_INVALID_VALUE on NULL.
 */
DOCA_STABLE doca_error_t doca_ctx_stop(struct doca_ctx *ctx);

/**
 * @brief Number of tasks submitted and not yet completed.
 * @param [in] ctx
 * @param [out] num_inflight_tasks
 */
DOCA_STABLE doca_error_t doca_ctx_get_num_inflight_tasks(const struct doca_ctx *ctx, size_t *num_inflight_tasks);

/** @brief Attach user data, handed to every task callback and the state callback. */
DOCA_STABLE doca_error_t doca_ctx_set_user_data(struct doca_ctx *ctx, union doca_data user_data);

/** @brief Read the user data back. */
DOCA_STABLE doca_error_t doca_ctx_get_user_data(const struct doca_ctx *ctx, union doca_data *user_data);

/**
 * @brief Register the state-changed callback (IDLE only). NULL removes it.
 */
DOCA_STABLE doca_error_t doca_ctx_set_state_changed_cb(struct doca_ctx *ctx, doca_ctx_state_changed_callback_t cb);

/** @brief Current state. */
DOCA_STABLE doca_error_t doca_ctx_get_state(const struct doca_ctx *ctx, enum doca_ctx_states *state);

/**
 * @brief Ring the doorbell for tasks submitted without DOCA_TASK_SUBMIT_FLAG_FLUSH.
 */
DOCA_EXPERIMENTAL void doca_ctx_flush_tasks(struct doca_ctx *ctx);

/** @brief GPU data path: not available in Ferry (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_datapath_on_gpu(struct doca_ctx *ctx, struct doca_gpu *gpu_dev);

/** @brief DPA data path: not available in Ferry (DOCA_ERROR_NOT_SUPPORTED). */
DOCA_EXPERIMENTAL doca_error_t doca_ctx_set_datapath_on_dpa(struct doca_ctx *ctx, struct doca_dpa *dpa_dev);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_CTX_H_ */
