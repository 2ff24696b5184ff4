/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file doca_mmap_advise.h
 * @brief DOCA Mmap Advise: hints about how mapped memory will be used; today
 * one hint, dropping the CPU cache lines that cover a buffer.
 *
 * A struct doca_mmap_advise is a context (see doca_ctx.h). Typical use:
 *
 *   doca_mmap_advise_create(dev, &adv)
 *   doca_mmap_advise_task_invalidate_cache_set_conf(adv, on_done, on_error, num_tasks)
 *   doca_pe_connect_ctx(pe, doca_mmap_advise_as_ctx(adv)); doca_ctx_start(...)
 *   doca_mmap_advise_task_invalidate_cache_alloc_init(adv, buf, user_data, &task)
 *   doca_task_submit(doca_mmap_advise_task_invalidate_cache_as_doca_task(task))
 *   ... doca_pe_progress(pe) calls on_done or on_error ...
 *   doca_task_free(...); doca_ctx_stop(...); doca_mmap_advise_destroy(adv)
 *
 * On Ferry every device supports the invalidate task: memory is coherent
 * between the emulated devices and the CPU, so the task has nothing to drop.
 * It still behaves like any task: submit checks the buf (set, in use, from a
 * started mmap to which the context's device was added, no larger than
 * doca_mmap_advise_task_cache_invalidate_get_max_buf_size), and the task
 * completes from a later doca_pe_progress, never from inside doca_task_submit
 * (a completion callback of another context may submit one). doca_ctx_stop
 * with tasks in flight completes them through the error callback with
 * DOCA_ERROR_IO_FAILED.
 *
 * Threading: a context is used from the thread that progresses its PE.
 */
#ifndef DOCA_MMAP_ADVISE_H_
#define DOCA_MMAP_ADVISE_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_task;

/** An mmap advise context. */
struct doca_mmap_advise;

/** A task that invalidates the cache lines covering one buffer. */
struct doca_mmap_advise_task_invalidate_cache;

/**
 * @brief Completion (or error) callback of an invalidate task.
 *
 * @param [in] task            the finished task; the callee frees or resubmits it.
 * @param [in] task_user_data  the user data given at alloc_init.
 * @param [in] ctx_user_data   the context's user data (doca_ctx_set_user_data).
 */
typedef void (*doca_mmap_advise_task_invalidate_cache_completion_cb_t)(
	struct doca_mmap_advise_task_invalidate_cache *task, union doca_data task_user_data,
	union doca_data ctx_user_data);

/**
 * @brief Create an mmap advise context on @p dev.
 *
 * @param [in] dev           an open device.
 * @param [out] mmap_advise  the new context, IDLE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_create(struct doca_dev *dev, struct doca_mmap_advise **mmap_advise);

/**
 * @brief Destroy an IDLE context.
 *
 * @param [in] mmap_advise  the context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE when NULL; DOCA_ERROR_BAD_STATE
 *         when the context is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_destroy(struct doca_mmap_advise *mmap_advise);

/**
 * @brief The context's generic view.
 *
 * @param [in] mmap_advise  the context.
 * @return the doca_ctx, or NULL (with a log line) when @p mmap_advise is NULL.
 */
DOCA_EXPERIMENTAL struct doca_ctx *doca_mmap_advise_as_ctx(struct doca_mmap_advise *mmap_advise);

/**
 * @brief Whether a device runs invalidate tasks (every Ferry device does).
 *
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE when NULL.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_cap_task_cache_invalidate_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest buffer an invalidate task accepts (at least the DMA
 * maximum of the same device).
 *
 * @param [in] devinfo    the device.
 * @param [out] buf_size  the limit in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_mmap_advise_task_cache_invalidate_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size);

/**
 * @brief Configure invalidate tasks: callbacks and pool size.
 *
 * @param [in] mmap_advise    the context, IDLE.
 * @param [in] completion_cb  called on success; not NULL.
 * @param [in] error_cb       called on failure; not NULL.
 * @param [in] num_tasks      1 .. 65536.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL context or
 *         callback or a bad @p num_tasks; DOCA_ERROR_NOT_PERMITTED when the
 *         context is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_task_invalidate_cache_set_conf(
	struct doca_mmap_advise *mmap_advise, doca_mmap_advise_task_invalidate_cache_completion_cb_t completion_cb,
	doca_mmap_advise_task_invalidate_cache_completion_cb_t error_cb, uint32_t num_tasks);

/**
 * @brief Take an invalidate task from the pool of a RUNNING context.
 *
 * @param [in] mmap_advise  the context.
 * @param [in] buf          the buffer (may be set later with set_buf; checked at submit).
 * @param [in] user_data    handed to the callbacks.
 * @param [out] task        the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL context or task;
 *         DOCA_ERROR_BAD_STATE when the context is not RUNNING or not
 *         configured; DOCA_ERROR_NO_MEMORY when every task is in use.
 */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_advise_task_invalidate_cache_alloc_init(
	struct doca_mmap_advise *mmap_advise, struct doca_buf *buf, union doca_data user_data,
	struct doca_mmap_advise_task_invalidate_cache **task);

/**
 * @brief The generic view of a task, for doca_task_submit and doca_task_free.
 *
 * @param [in] task  the task.
 * @return the doca_task, or NULL when @p task is NULL.
 */
DOCA_EXPERIMENTAL struct doca_task *doca_mmap_advise_task_invalidate_cache_as_doca_task(
	struct doca_mmap_advise_task_invalidate_cache *task);

/**
 * @brief Set the task's buffer (a NULL task is logged and ignored).
 *
 * @param [in] task  the task, not submitted.
 * @param [in] buf   the buffer.
 */
DOCA_EXPERIMENTAL void doca_mmap_advise_task_invalidate_cache_set_buf(
	struct doca_mmap_advise_task_invalidate_cache *task, struct doca_buf *buf);

/**
 * @brief The task's buffer.
 *
 * @param [in] task  the task.
 * @return the buffer, or NULL (logged when @p task is NULL).
 */
DOCA_EXPERIMENTAL struct doca_buf *doca_mmap_advise_task_invalidate_cache_get_buf(
	const struct doca_mmap_advise_task_invalidate_cache *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_ADVISE_H_ */
