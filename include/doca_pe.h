/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_pe.h - the progress engine and the generic task API.
 *
 * A progress engine (PE) drives any number of contexts. Work is submitted as
 * tasks; a task's completion callback runs only from doca_pe_progress, never
 * from inside a submit call. A callback may free the task, resubmit it, submit
 * others or stop the context, but must not call doca_pe_progress itself.
 *
 * Event-driven use: take the notification handle once (an fd that epoll can
 * wait on), then loop: doca_pe_request_notification, wait for the handle to be
 * readable, doca_pe_clear_notification, doca_pe_progress until it returns 0.
 *
 * Threading: a PE and its contexts are used from one thread at a time.
 */
#ifndef DOCA_PE_H_
#define DOCA_PE_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_pe;
struct doca_ctx;
struct doca_task;

/** Generic completion callback of a task type. */
typedef void (*doca_task_completion_cb_t)(struct doca_task *task, union doca_data task_user_data,
					  union doca_data ctx_user_data);

/** Flags of doca_task_submit_ex. */
enum doca_task_submit_flag {
	DOCA_TASK_SUBMIT_FLAG_NONE = 0U,
	/** Ring the doorbell now (doca_task_submit always does). */
	DOCA_TASK_SUBMIT_FLAG_FLUSH = (1U << 0),
	/** A hint that completions may be reported in batches; Ferry accepts and ignores it. */
	DOCA_TASK_SUBMIT_FLAG_OPTIMIZE_REPORTS = (1U << 1),
};

/** How an event-driven PE selects what to progress. Ferry always progresses all. */
enum doca_pe_event_mode {
	DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE,
	DOCA_PE_EVENT_MODE_PROGRESS_ALL,
};

/** @brief Create a progress engine. */
DOCA_STABLE doca_error_t doca_pe_create(struct doca_pe **pe);

/**
 * @brief Destroy a progress engine.
 * @return DOCA_ERROR_IN_USE while contexts are still connected (destroy them first).
 */
DOCA_STABLE doca_error_t doca_pe_destroy(struct doca_pe *pe);

/**
 * @brief Connect an IDLE context to this PE. A context belongs to one PE for life.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_BAD_STATE
 * when the context is not IDLE; DOCA_ERROR_NOT_PERMITTED when it is already
 * connected to a PE (this one or another).
 */
DOCA_STABLE doca_error_t doca_pe_connect_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

/**
 * @brief Run completions and events of every connected context.
 * @return 1 when at least one completion or event was delivered, 0 otherwise
 * (also 0, with a log line, when called from inside a callback of this PE).
 */
DOCA_STABLE uint8_t doca_pe_progress(struct doca_pe *pe);

/**
 * @brief The PE's notification handle: an fd that becomes readable after
 * doca_pe_request_notification once a completion or event is pending.
 */
DOCA_STABLE doca_error_t doca_pe_get_notification_handle(const struct doca_pe *pe, doca_notification_handle_t *handle);

/**
 * @brief Arm the notification handle. If work is already pending the handle is
 * readable at once, so a wakeup is never lost.
 */
DOCA_STABLE doca_error_t doca_pe_request_notification(struct doca_pe *pe);

/**
 * @brief Consume the notification after waking; call before progressing.
 * @param [in] pe
 * @param [in] handle  the handle that was waited on; any value is accepted
 * (DOCA programs pass 0) and the PE's own handle is cleared.
 */
DOCA_STABLE doca_error_t doca_pe_clear_notification(struct doca_pe *pe, doca_notification_handle_t handle);

/** @brief Tasks in flight over all contexts of the PE. */
DOCA_STABLE doca_error_t doca_pe_get_num_inflight_tasks(const struct doca_pe *pe, size_t *num_inflight_tasks);

/** @brief Select the event mode (accepted for compatibility; Ferry progresses all contexts). */
DOCA_EXPERIMENTAL doca_error_t doca_pe_set_event_mode(struct doca_pe *pe, enum doca_pe_event_mode mode);

/**
 * @brief Submit a task and ring the doorbell.
 * @return DOCA_SUCCESS, or an error and the task stays with the caller:
 * DOCA_ERROR_BAD_STATE (context not RUNNING, or task already submitted),
 * DOCA_ERROR_INVALID_VALUE (the task's parameters break a rule), DOCA_ERROR_AGAIN
 * (queue full: progress, then retry).
 */
DOCA_STABLE doca_error_t doca_task_submit(struct doca_task *task);

/**
 * @brief Submit a task, skipping work a plain submit does to be forgiving: in
 * Ferry both validate fully and never complete inline; they differ only in
 * that try_submit does not log when the queue is full (DOCA_ERROR_AGAIN is an
 * expected outcome for its callers).
 */
DOCA_STABLE doca_error_t doca_task_try_submit(struct doca_task *task);

/** @brief Submit with flags (enum doca_task_submit_flag). Without FLUSH, ring later with doca_ctx_flush_tasks. */
DOCA_EXPERIMENTAL doca_error_t doca_task_submit_ex(struct doca_task *task, uint32_t flags);

/**
 * @brief Return a task to its context's pool.
 *
 * @note A task in flight must not be freed (DOCA's rule). Ferry tolerates it,
 * as programs do it at teardown (free every task, then stop): the task stays
 * the context's until it completes or is flushed, then goes back to the pool
 * with no callback, so doca_ctx_stop still reaches IDLE. The first such free
 * on a context is logged, later ones are not. Freeing it again is logged as
 * freeing a free task.
 */
DOCA_STABLE void doca_task_free(struct doca_task *task);

/** @brief Status of a completed task (DOCA_SUCCESS or why it failed). */
DOCA_STABLE doca_error_t doca_task_get_status(const struct doca_task *task);

/** @brief Attach user data, handed back to the completion callbacks. */
DOCA_STABLE void doca_task_set_user_data(struct doca_task *task, union doca_data user_data);

/** @brief Read the task's user data. */
DOCA_STABLE union doca_data doca_task_get_user_data(const struct doca_task *task);

/** @brief The context that allocated the task. */
DOCA_STABLE struct doca_ctx *doca_task_get_ctx(const struct doca_task *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_PE_H_ */
