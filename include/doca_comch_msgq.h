/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file doca_comch_msgq.h
 * @brief DOCA Comch MsgQ: a message queue on one device, whose producers and
 *        consumers (doca_comch_producer, doca_comch_consumer) exchange immediate
 *        data without a Comch connection.
 *
 * @note Ferry: both ends run on CPUs, between threads of one process: each
 *       producer and consumer may have a PE and thread of its own. A consumer's
 *       post-receive tasks carry no buffer (NULL buf) and a producer's send tasks
 *       carry immediate data (a NULL buf, or one with no data); the message is the
 *       immediate data, up to doca_comch_consumer_set_imm_data_len bytes. Ferry
 *       emulates no DPA: doca_comch_msgq_set_dpa_consumer and _set_dpa_producer
 *       answer DOCA_ERROR_NOT_SUPPORTED.
 */
#ifndef DOCA_COMCH_MSGQ_H_
#define DOCA_COMCH_MSGQ_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dpa;
struct doca_comch_producer;
struct doca_comch_consumer;

/** A message queue on one device. */
struct doca_comch_msgq;

/**
 * @brief Create a MsgQ on @p dev (any Comch-capable device), stopped.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL argument), DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_create(struct doca_dev *dev, struct doca_comch_msgq **msgq);

/**
 * @brief Destroy a stopped MsgQ.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (started).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_destroy(struct doca_comch_msgq *msgq);

/**
 * @brief Put the MsgQ's consumers on a DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED in Ferry (no DPA), DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_set_dpa_consumer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa);

/**
 * @brief How many consumers the MsgQ may have (1..doca_comch_consumer_cap_get_max_consumers; that cap by default).
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (started).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_set_max_num_consumers(struct doca_comch_msgq *msgq,
								     uint32_t max_num_consumers);

/**
 * @brief Put the MsgQ's producers on a DPA.
 * @return DOCA_ERROR_NOT_SUPPORTED in Ferry (no DPA), DOCA_ERROR_INVALID_VALUE (NULL argument).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_set_dpa_producer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa);

/**
 * @brief How many producers the MsgQ may have (1..doca_comch_producer_cap_get_max_producers; that cap by default).
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (started).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_set_max_num_producers(struct doca_comch_msgq *msgq,
								     uint32_t max_num_producers);

/**
 * @brief Start the MsgQ: its settings are fixed, producers and consumers may be created.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (started), DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_start(struct doca_comch_msgq *msgq);

/**
 * @brief Stop the MsgQ; its producers and consumers must be destroyed first.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (not started), DOCA_ERROR_IN_USE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_stop(struct doca_comch_msgq *msgq);

/**
 * @brief Create a consumer on a started MsgQ (destroy it with doca_comch_consumer_destroy).
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (not started), DOCA_ERROR_FULL,
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_consumer_create(struct doca_comch_msgq *msgq,
							       struct doca_comch_consumer **consumer);

/**
 * @brief Create a producer on a started MsgQ (destroy it with doca_comch_producer_destroy).
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (not started), DOCA_ERROR_FULL,
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_msgq_producer_create(struct doca_comch_msgq *msgq,
							       struct doca_comch_producer **producer);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_MSGQ_H_ */
