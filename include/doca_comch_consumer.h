/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file doca_comch_consumer.h
 * @brief DOCA Comch fast path, receiving side: a consumer posts buffers of one mmap that
 *        producers on the other side of a Comch connection fill.
 *
 * @note Ferry: doca_ctx_start answers DOCA_ERROR_IN_PROGRESS, as DOCA's does; the
 *       consumer becomes RUNNING from the next doca_pe_progress.
 *       The consumer's mmap is exported to the peer when the consumer starts
 *       (as doca_mmap_export_pci does); each post publishes the buffer's free room
 *       (from its data address to its end) in a ring of shared memory that the peer's
 *       producers poll, and a producer copies into it.
 *       Shareable memory (ferry_mem.h) is copied into by memcpy through a shared
 *       mapping; other memory by cross-memory attach. A consumer may have a PE and
 *       thread of its own; its completions are read from a ring its own progress
 *       polls, and in event mode the peer rings its PE's doorbell. A consumer made
 *       by doca_comch_msgq_consumer_create posts no buffer (NULL buf): messages are
 *       immediate data.
 */
#ifndef DOCA_COMCH_CONSUMER_H_
#define DOCA_COMCH_CONSUMER_H_

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
struct doca_mmap;
struct doca_task;
struct doca_comch_connection;

/** A fast-path receiver bound to one connection and one mmap. */
struct doca_comch_consumer;
/** Task that posts one buffer for a producer to fill. */
struct doca_comch_consumer_task_post_recv;

/**
 * @brief Create a consumer on an established connection.
 * @param [in] comch_connection the connection.
 * @param [in] buf_mmap the mmap that posted buffers come from.
 * @param [out] consumer the new consumer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a connection that is not established; DOCA_ERROR_FULL past the cap of consumers; DOCA_ERROR_NO_MEMORY. The mmap must be started with DOCA_ACCESS_FLAG_PCI_READ_WRITE by doca_ctx_start (DOCA_ERROR_BAD_STATE otherwise).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection,
							  struct doca_mmap *buf_mmap,
							  struct doca_comch_consumer **consumer);

/**
 * @brief Destroy an IDLE consumer.
 * @param [in] consumer the consumer.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer);

/**
 * @brief Whether a device can run consumers.
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS for every Comch device; DOCA_ERROR_INVALID_VALUE for NULL or a foreign devinfo.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief The consumer's id, unique within its connection.
 * @param [in] consumer the consumer.
 * @param [out] id the id.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id);

/**
 * @brief Most post-receive tasks one consumer may configure.
 * @param [in] devinfo the device.
 * @param [out] max_num_tasks the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a devinfo that is not a device of this machine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo,
									 uint32_t *max_num_tasks);

/**
 * @brief Largest buffer a consumer can receive.
 * @param [in] devinfo the device.
 * @param [out] max_buf_size bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a devinfo that is not a device of this machine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo,
									uint32_t *max_buf_size);

/**
 * @brief Longest buffer list a consumer can receive into.
 * @param [in] devinfo the device.
 * @param [out] max_buf_list_len elements.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a devinfo that is not a device of this machine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
									    uint32_t *max_buf_list_len);

/**
 * @brief Most consumers one connection may hold.
 * @param [in] devinfo the device.
 * @param [out] max_consumers the limit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a devinfo that is not a device of this machine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo,
									 uint32_t *max_consumers);

/**
 * @brief Longest immediate data a consumer can take.
 * @param [in] devinfo the device.
 * @param [out] max_imm_data_len bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a devinfo that is not a device of this machine.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
									    uint32_t *max_imm_data_len);

/**
 * @brief The immediate-data length the consumer takes.
 * @param [in] consumer the consumer.
 * @param [out] imm_data_len bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer,
								    uint32_t *imm_data_len);

/**
 * @brief Set the immediate-data length the consumer takes.
 * @param [in] consumer the consumer, IDLE.
 * @param [in] imm_data_len bytes, at most the cap.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or above the cap; DOCA_ERROR_BAD_STATE unless IDLE. Default 0: sends with immediate data fail.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer,
								    uint32_t imm_data_len);

/**
 * @brief The consumer as a generic DOCA context.
 * @param [in] consumer the consumer.
 * @return the context, or NULL.
 */
DOCA_EXPERIMENTAL struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer);

/**
 * @brief Called from doca_pe_progress when a posted buffer was filled (or the post failed).
 * @param [in] task the task.
 * @param [in] task_user_data the task's user data.
 * @param [in] ctx_user_data the context's user data.
 */
typedef void (*doca_comch_consumer_task_post_recv_completion_cb_t)(struct doca_comch_consumer_task_post_recv *task,
								   union doca_data task_user_data,
								   union doca_data ctx_user_data);

/**
 * @brief Configure the consumer's post-receive tasks.
 * @param [in] consumer the consumer, IDLE.
 * @param [in] task_completion_cb success callback.
 * @param [in] task_error_cb error callback.
 * @param [in] num_post_recv_tasks pool size.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, 0 tasks or more than the cap; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_task_post_recv_set_conf(
	struct doca_comch_consumer *consumer, doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
	doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb, uint32_t num_post_recv_tasks);

/**
 * @brief Take a post-receive task and fill it.
 * @param [in] consumer the consumer, RUNNING.
 * @param [in] buf a buffer of the consumer's mmap.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless RUNNING; DOCA_ERROR_NO_MEMORY when every task is taken. Submit refuses a buf of another mmap or without room (DOCA_ERROR_INVALID_VALUE). On success the buf's data is what the producer sent; failures: DOCA_ERROR_NOT_CONNECTED (connection gone), DOCA_ERROR_IO_FAILED (flushed by a stop).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_consumer_task_post_recv_alloc_init(
	struct doca_comch_consumer *consumer, struct doca_buf *buf, struct doca_comch_consumer_task_post_recv **task);

/**
 * @brief The task's buffer.
 * @param [in] task the task.
 * @return the buffer, or NULL.
 */
DOCA_EXPERIMENTAL struct doca_buf *doca_comch_consumer_task_post_recv_get_buf(
	struct doca_comch_consumer_task_post_recv *task);

/**
 * @brief Replace the task's buffer.
 * @param [in] task the task.
 * @param [in] buf the new buffer.
 */
DOCA_EXPERIMENTAL void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task,
								  struct doca_buf *buf);

/**
 * @brief Which producer filled the buffer (valid after a successful completion).
 * @param [in] task the task.
 * @return the producer id, 0 otherwise.
 */
DOCA_EXPERIMENTAL uint32_t
doca_comch_consumer_task_post_recv_get_producer_id(struct doca_comch_consumer_task_post_recv *task);

/**
 * @brief The immediate data that came with the buffer (valid after a successful completion).
 * @param [in] task the task.
 * @return the data, or NULL.
 */
DOCA_EXPERIMENTAL uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(
	struct doca_comch_consumer_task_post_recv *task);

/**
 * @brief Length of the immediate data that came with the buffer.
 * @param [in] task the task.
 * @return bytes.
 */
DOCA_EXPERIMENTAL uint32_t
doca_comch_consumer_task_post_recv_get_imm_data_len(struct doca_comch_consumer_task_post_recv *task);

/**
 * @brief The task as a generic task.
 * @param [in] task the task.
 * @return the generic task, or NULL.
 */
DOCA_EXPERIMENTAL struct doca_task *doca_comch_consumer_task_post_recv_as_task(
	struct doca_comch_consumer_task_post_recv *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_CONSUMER_H_ */
