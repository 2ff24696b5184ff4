/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dma.h - DOCA DMA: asynchronous memory copies between doca_bufs.
 *
 * A struct doca_dma is a context (see doca_ctx.h). Typical use:
 *
 *   doca_dma_create(dev, &dma)
 *   doca_dma_task_memcpy_set_conf(dma, on_done, on_error, num_tasks)
 *   doca_pe_connect_ctx(pe, doca_dma_as_ctx(dma)); doca_ctx_start(doca_dma_as_ctx(dma))
 *   doca_dma_task_memcpy_alloc_init(dma, src, dst, user_data, &task)
 *   doca_task_submit(doca_dma_task_memcpy_as_task(task))
 *   ... doca_pe_progress(pe) calls on_done or on_error ...
 *   doca_task_free(...); doca_ctx_stop(...); doca_dma_destroy(dma)
 *
 * What a memcpy task copies (the data-segment rules):
 *  - Source: the bytes of the source buf's data segment, [data, data + data_len).
 *    When the source is the head of a chained list, the data segments of every
 *    buf of the list are read one after the other, in list order, as one stream.
 *    The source bufs are not changed.
 *  - Destination: the bytes are written into the free space that follows the
 *    destination's data segment, starting at data + data_len and running at most
 *    to the end of the buf (head + len). The data already in the buf is kept.
 *    When the destination is the head of a chained list, the stream fills the
 *    free space after the data segment of the first buf, then that of the next
 *    buf, and so on in list order.
 *  - On success each destination buf's data_len grows by the bytes written into
 *    it, so the copied bytes become part of its data segment. On failure the
 *    destination's data_len is left as it was (its free space may hold any part
 *    of the copy).
 *  - A source that holds no data at all is accepted by submit (with a log
 *    line) and fails as the hardware fails it: the task completes through the
 *    error callback with DOCA_ERROR_INVALID_VALUE.
 *  - Submit refuses the task (DOCA_ERROR_INVALID_VALUE, nothing is copied) when
 *    the destination's free space is smaller than the source's data, when the
 *    total exceeds
 *    doca_dma_cap_task_memcpy_get_max_buf_size, or when a list is longer than
 *    doca_dma_cap_task_memcpy_get_max_buf_list_len.
 *  - Every buf must come from a started mmap to which the DMA's device was
 *    added (DOCA_ERROR_INVALID_VALUE / DOCA_ERROR_BAD_STATE otherwise), and the
 *    destination's mmap must grant write access (DOCA_ERROR_NOT_PERMITTED
 *    for a read-only mmap).
 *  - Bufs must not be read or changed by the program while the task is in
 *    flight; source and destination must not overlap.
 *
 * Completions: a task completes only from doca_pe_progress, never from inside
 * doca_task_submit. Tasks of one DMA context complete in the order they were
 * submitted. doca_ctx_stop with tasks in flight completes each of them through
 * the error callback with status DOCA_ERROR_IO_FAILED (unless the copy already
 * finished); the context reaches IDLE once every task has been freed. A task
 * that fails (any error status while RUNNING) stops the context by itself, as
 * on DOCA: the tasks behind it are flushed the same way.
 *
 * Threading: a DMA context is used from the thread that progresses its PE.
 */
#ifndef DOCA_DMA_H_
#define DOCA_DMA_H_

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
struct doca_gpu_dma;

/** A DMA context. */
struct doca_dma;

/** A memory copy task of a DMA context. */
struct doca_dma_task_memcpy;

/**
 * Completion callback of a memcpy task; the same type serves for success and
 * for failure. It runs inside doca_pe_progress and hands the task back to the
 * program, which may free it, resubmit it or keep it. It must not call
 * doca_pe_progress.
 * @param [in] task            the finished task.
 * @param [in] task_user_data  the task's user data.
 * @param [in] ctx_user_data   the DMA context's user data.
 */
typedef void (*doca_dma_task_memcpy_completion_cb_t)(struct doca_dma_task_memcpy *task, union doca_data task_user_data,
						     union doca_data ctx_user_data);

/* ---- context ---- */

/**
 * @brief Create a DMA context on an open device.
 * @param [in] dev   the device that performs the copies; it must stay open
 *                   until the context is destroyed.
 * @param [out] dma  the new context, IDLE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments;
 *         DOCA_ERROR_NOT_SUPPORTED when the device cannot run memcpy tasks;
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_dma_create(struct doca_dev *dev, struct doca_dma **dma);

/**
 * @brief Destroy a DMA context (disconnecting it from its progress engine).
 * @param [in] dma  an IDLE context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE
 *         when the context is not IDLE (stop it and progress until IDLE first).
 */
DOCA_STABLE doca_error_t doca_dma_destroy(struct doca_dma *dma);

/**
 * @brief The generic context of a DMA context, for the doca_ctx_* and doca_pe_* calls.
 * @param [in] dma  the DMA context.
 * @return the context, or NULL when @p dma is NULL.
 */
DOCA_STABLE struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma);

/**
 * @brief Ask that completions come back in submission order. Ferry always
 * completes the tasks of a DMA context in submission order, so any value is
 * accepted, in any state.
 * @param [in] dma                  the DMA context.
 * @param [in] ordered_completions  1 to require ordering, 0 to allow any order.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_dma_set_ordered_completions(struct doca_dma *dma, uint8_t ordered_completions);

/**
 * @brief GPU data path handle: not available in Ferry.
 * @param [in] dma       the DMA context.
 * @param [out] dma_gpu  unchanged.
 * @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL).
 */
DOCA_EXPERIMENTAL doca_error_t doca_dma_get_gpu_handle(struct doca_dma *dma, struct doca_gpu_dma **dma_gpu);

/* ---- capabilities ---- */

/**
 * @brief Tell whether a device can run DMA memcpy tasks.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS when it can; DOCA_ERROR_NOT_SUPPORTED when it cannot;
 *         DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The largest number of bytes one memcpy task may copy.
 * @param [in] devinfo    the device.
 * @param [out] buf_size  the limit in bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_get_max_buf_size(const struct doca_devinfo *devinfo,
								   uint64_t *buf_size);

/**
 * @brief The longest chained list a memcpy task accepts as source or destination
 * (1 would mean that lists are not supported).
 * @param [in] devinfo           the device.
 * @param [out] max_buf_list_len  the limit in bufs.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_dma_cap_task_memcpy_get_max_buf_list_len(const struct doca_devinfo *devinfo,
								       uint32_t *max_buf_list_len);

/**
 * @brief The largest num_tasks that doca_dma_task_memcpy_set_conf accepts for
 * this context's device.
 * @param [in] dma             the DMA context.
 * @param [out] max_num_tasks  the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_STABLE doca_error_t doca_dma_cap_get_max_num_tasks(struct doca_dma *dma, uint32_t *max_num_tasks);

/* ---- memcpy task ---- */

/**
 * @brief Enable memcpy tasks: register the callbacks and size the task pool.
 * @param [in] dma                 an IDLE DMA context.
 * @param [in] task_completion_cb  called for each task that succeeded; not NULL.
 * @param [in] task_error_cb       called for each task that failed or was
 *                                 flushed by a stop; not NULL.
 * @param [in] num_memcpy_tasks    how many tasks can be allocated at once;
 *                                 1 .. doca_dma_cap_get_max_num_tasks.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a count out of
 *         range; DOCA_ERROR_BAD_STATE when the context is not IDLE.
 */
DOCA_STABLE doca_error_t doca_dma_task_memcpy_set_conf(struct doca_dma *dma,
						       doca_dma_task_memcpy_completion_cb_t task_completion_cb,
						       doca_dma_task_memcpy_completion_cb_t task_error_cb,
						       uint32_t num_memcpy_tasks);

/**
 * @brief Take a memcpy task from the context's pool and fill it in.
 * @param [in] dma        a RUNNING DMA context.
 * @param [in] src        the source buf (or head of a list); may be NULL here
 *                        and set later with doca_dma_task_memcpy_set_src.
 * @param [in] dst        the destination buf (or head of a list); likewise.
 * @param [in] user_data  handed back to the callbacks.
 * @param [out] task      the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL dma or task;
 *         DOCA_ERROR_BAD_STATE when the context is not RUNNING or memcpy tasks
 *         were not configured; DOCA_ERROR_NO_MEMORY when every task of the pool
 *         is allocated.
 */
DOCA_STABLE doca_error_t doca_dma_task_memcpy_alloc_init(struct doca_dma *dma, const struct doca_buf *src,
							 struct doca_buf *dst, union doca_data user_data,
							 struct doca_dma_task_memcpy **task);

/**
 * @brief The generic task of a memcpy task, for doca_task_submit, doca_task_free, ...
 * @param [in] task  the memcpy task.
 * @return the generic task, or NULL when @p task is NULL.
 */
DOCA_STABLE struct doca_task *doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task);

/**
 * @brief Replace the task's source. Ignored (with a log line) while the task
 * is in flight.
 * @param [in] task  the task.
 * @param [in] src   the new source buf or list head.
 */
DOCA_STABLE void doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src);

/**
 * @brief The task's source.
 * @param [in] task  the task.
 * @return the source buf, or NULL when @p task is NULL or has no source.
 */
DOCA_STABLE const struct doca_buf *doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task);

/**
 * @brief Replace the task's destination. Ignored (with a log line) while the
 * task is in flight.
 * @param [in] task  the task.
 * @param [in] dst   the new destination buf or list head.
 */
DOCA_STABLE void doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst);

/**
 * @brief The task's destination.
 * @param [in] task  the task.
 * @return the destination buf, or NULL when @p task is NULL or has no destination.
 */
DOCA_STABLE struct doca_buf *doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DMA_H_ */
