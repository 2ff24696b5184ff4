/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file doca_comch_producer.h
 * @brief DOCA Comch fast path, sending side: a producer writes buffers into the buffers
 *        that consumers on the other side of one Comch connection posted.
 *
 * @note Ferry: a producer copies the buffer straight into the consumer's posted buffer
 *       (one copy: memcpy when the consumer's memory is shareable, see ferry_mem.h,
 *       otherwise cross-memory attach), then tells the consumer. A send submitted while
 *       the consumer has no buffer posted waits until one is posted (submit succeeds);
 *       the producer's progress polls the consumer's post ring in shared memory, so its
 *       PE may be progressed on its own. Each producer and consumer may have a PE and a
 *       thread of its own, beside the thread that progresses the connection.
 */
#ifndef DOCA_COMCH_PRODUCER_H_
#define DOCA_COMCH_PRODUCER_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_devinfo;
struct doca_task;
struct doca_comch_connection;

/** A fast-path sender bound to one connection. */
struct doca_comch_producer;
/** Task that sends one buffer (and optional immediate data) to one consumer. */
struct doca_comch_producer_task_send;

/**
 * @brief Create a producer on an established connection.
 * @param [in] comch_connection the connection.
 * @param [out] producer the new producer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a connection that is not established; DOCA_ERROR_FULL past the cap of producers; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
							  struct doca_comch_producer **producer);

/**
 * @brief Destroy an IDLE producer.
 * @param [in] producer the producer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer);

/**
 * @brief Whether a device can run producers.
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS for every Comch device; DOCA_ERROR_INVALID_VALUE for NULL or a foreign devinfo.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The producer's id, unique within its connection.
 * @param [in] producer the producer.
 * @param [out] id the id.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id);

/**
 * @brief Most send tasks one producer may configure.
 * @param [in] devinfo the device.
 * @param [out] max_num_tasks the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a devinfo that is not a device of this machine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
									 uint32_t *max_num_tasks);

/**
 * @brief Largest buffer a producer can send.
 * @param [in] devinfo the device.
 * @param [out] max_buf_size bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a devinfo that is not a device of this machine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
									uint32_t *max_buf_size);

/**
 * @brief Longest buffer list a producer can send.
 * @param [in] devinfo the device.
 * @param [out] max_buf_list_len elements.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a devinfo that is not a device of this machine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
									    uint32_t *max_buf_list_len);

/**
 * @brief Most producers one connection may hold.
 * @param [in] devinfo the device.
 * @param [out] max_producers the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a devinfo that is not a device of this machine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo,
									 uint32_t *max_producers);

/**
 * @brief The producer as a generic DOCA context.
 * @param [in] producer the producer.
 * @return the context, or NULL.
 */
DOCA_EXPERIMENTAL struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer);

/**
 * @brief Called from doca_pe_progress when a producer send task finished.
 * @param [in] task the task.
 * @param [in] task_user_data the task's user data.
 * @param [in] ctx_user_data the context's user data.
 */
typedef void (*doca_comch_producer_task_send_completion_cb_t)(struct doca_comch_producer_task_send *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/**
 * @brief Configure the producer's send tasks.
 * @param [in] producer the producer, IDLE.
 * @param [in] task_completion_cb success callback.
 * @param [in] task_error_cb error callback.
 * @param [in] num_send_tasks pool size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, 0 tasks or more than the cap; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_task_send_set_conf(
	struct doca_comch_producer *producer, doca_comch_producer_task_send_completion_cb_t task_completion_cb,
	doca_comch_producer_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks);

/**
 * @brief Take a send task and fill it.
 * @param [in] producer the producer, RUNNING.
 * @param [in] buf the data to send.
 * @param [in] imm_data immediate data delivered with the completion (may be NULL when @p imm_data_len is 0).
 * @param [in] imm_data_len its length.
 * @param [in] consumer_id the remote consumer to fill.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or immediate data above doca_comch_consumer_cap_get_max_imm_data_len; DOCA_ERROR_BAD_STATE unless RUNNING; DOCA_ERROR_NO_MEMORY when every task is taken. The completion's status: DOCA_SUCCESS once the data is in the consumer's buffer; DOCA_ERROR_NOT_FOUND (no such consumer, or it went away), DOCA_ERROR_INVALID_VALUE (more immediate data than the consumer takes), DOCA_ERROR_TOO_BIG (larger than the posted buffer; the buffer stays posted), DOCA_ERROR_NOT_CONNECTED (the connection or the peer's memory is gone), DOCA_ERROR_IO_FAILED (flushed by a stop).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer,
									const struct doca_buf *buf, uint8_t *imm_data,
									uint32_t imm_data_len, uint32_t consumer_id,
									struct doca_comch_producer_task_send **task);

/**
 * @brief The task's buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL.
 */
DOCA_EXPERIMENTAL const struct doca_buf *doca_comch_producer_task_send_get_buf(
	struct doca_comch_producer_task_send *task);

/**
 * @brief Replace the task's buffer.
 * @param [in] task the task.
 * @param [in] buf the new buffer.
 */
DOCA_EXPERIMENTAL void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task,
							     const struct doca_buf *buf);

/**
 * @brief The consumer the task targets.
 * @param [in] task the task.
 * @return the consumer id (0 for NULL).
 */
DOCA_EXPERIMENTAL uint32_t doca_comch_producer_task_send_get_consumer_id(struct doca_comch_producer_task_send *task);

/**
 * @brief Retarget the task.
 * @param [in] task the task.
 * @param [in] consumer_id the consumer id.
 */
DOCA_EXPERIMENTAL void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
								     const uint32_t consumer_id);

/**
 * @brief The task's immediate data.
 * @param [in] task the task.
 * @return the data, or NULL when there is none.
 */
DOCA_EXPERIMENTAL uint8_t *doca_comch_producer_task_send_get_imm_data(struct doca_comch_producer_task_send *task);

/**
 * @brief The length of the task's immediate data.
 * @param [in] task the task.
 * @return bytes.
 */
DOCA_EXPERIMENTAL uint32_t doca_comch_producer_task_send_get_imm_data_len(struct doca_comch_producer_task_send *task);

/**
 * @brief Replace the task's immediate data (copied).
 * @param [in] task the task.
 * @param [in] imm_data the data.
 * @param [in] imm_data_len its length.
 */
DOCA_EXPERIMENTAL void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task,
								  uint8_t *imm_data, uint32_t imm_data_len);

/**
 * @brief The task as a generic task.
 * @param [in] task the task.
 * @return the generic task, or NULL.
 */
DOCA_EXPERIMENTAL struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_PRODUCER_H_ */
