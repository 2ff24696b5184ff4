/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fastpath_stubs.c - the Comch fast path (producer, consumer) is declared with
 * DOCA's signatures but not implemented yet: every entry point answers
 * DOCA_ERROR_NOT_SUPPORTED (or a neutral value for the void/pointer getters) and
 * logs one line saying so, so a program fails clearly instead of misbehaving.
 * The design it will follow is in DESIGN.md ("Comch", fast path).
 */
#include <stddef.h>

#include "comch/comch_priv.h"
#include "common/ferry_log.h"

FERRY_LOG_MODULE("comch");

static doca_error_t not_yet(const char *call)
{
	return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "%s: the Comch fast path (producer/consumer) is not implemented in Ferry yet",
			  call);
}

static doca_error_t not_yet_args(const char *call, const void *a, const void *b)
{
	if (a == NULL || b == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: arguments must not be NULL", call);
	return not_yet(call);
}

/* ---- producer ---- */

doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
					struct doca_comch_producer **producer)
{
	return not_yet_args("doca_comch_producer_create", comch_connection, producer);
}

doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer)
{
	return not_yet_args("doca_comch_producer_destroy", producer, producer);
}

doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	return not_yet_args("doca_comch_producer_cap_is_supported", devinfo, devinfo);
}

doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id)
{
	return not_yet_args("doca_comch_producer_get_id", producer, id);
}

doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks)
{
	return not_yet_args("doca_comch_producer_cap_get_max_num_tasks", devinfo, max_num_tasks);
}

doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size)
{
	return not_yet_args("doca_comch_producer_cap_get_max_buf_size", devinfo, max_buf_size);
}

doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len)
{
	return not_yet_args("doca_comch_producer_cap_get_max_buf_list_len", devinfo, max_buf_list_len);
}

doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo, uint32_t *max_producers)
{
	return not_yet_args("doca_comch_producer_cap_get_max_producers", devinfo, max_producers);
}

struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer)
{
	(void)producer;
	(void)not_yet("doca_comch_producer_as_ctx");
	return NULL;
}

doca_error_t doca_comch_producer_task_send_set_conf(struct doca_comch_producer *producer,
						    doca_comch_producer_task_send_completion_cb_t task_completion_cb,
						    doca_comch_producer_task_send_completion_cb_t task_error_cb,
						    uint32_t num_send_tasks)
{
	(void)task_completion_cb;
	(void)task_error_cb;
	(void)num_send_tasks;
	return not_yet_args("doca_comch_producer_task_send_set_conf", producer, producer);
}

doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer, const struct doca_buf *buf,
						      uint8_t *imm_data, uint32_t imm_data_len, uint32_t consumer_id,
						      struct doca_comch_producer_task_send **task)
{
	(void)buf;
	(void)imm_data;
	(void)imm_data_len;
	(void)consumer_id;
	return not_yet_args("doca_comch_producer_task_send_alloc_init", producer, task);
}

const struct doca_buf *doca_comch_producer_task_send_get_buf(struct doca_comch_producer_task_send *task)
{
	(void)task;
	(void)not_yet("doca_comch_producer_task_send_get_buf");
	return NULL;
}

void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task, const struct doca_buf *buf)
{
	(void)task;
	(void)buf;
	(void)not_yet("doca_comch_producer_task_send_set_buf");
}

uint32_t doca_comch_producer_task_send_get_consumer_id(struct doca_comch_producer_task_send *task)
{
	(void)task;
	(void)not_yet("doca_comch_producer_task_send_get_consumer_id");
	return 0;
}

void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
						   const uint32_t consumer_id)
{
	(void)task;
	(void)consumer_id;
	(void)not_yet("doca_comch_producer_task_send_set_consumer_id");
}

uint8_t *doca_comch_producer_task_send_get_imm_data(struct doca_comch_producer_task_send *task)
{
	(void)task;
	(void)not_yet("doca_comch_producer_task_send_get_imm_data");
	return NULL;
}

uint32_t doca_comch_producer_task_send_get_imm_data_len(struct doca_comch_producer_task_send *task)
{
	(void)task;
	(void)not_yet("doca_comch_producer_task_send_get_imm_data_len");
	return 0;
}

void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task, uint8_t *imm_data,
						uint32_t imm_data_len)
{
	(void)task;
	(void)imm_data;
	(void)imm_data_len;
	(void)not_yet("doca_comch_producer_task_send_set_imm_data");
}

struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task)
{
	(void)task;
	(void)not_yet("doca_comch_producer_task_send_as_task");
	return NULL;
}

/* ---- consumer ---- */

doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection, struct doca_mmap *buf_mmap,
					struct doca_comch_consumer **consumer)
{
	if (buf_mmap == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_comch_consumer_create: buf_mmap is NULL");
	return not_yet_args("doca_comch_consumer_create", comch_connection, consumer);
}

doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer)
{
	return not_yet_args("doca_comch_consumer_destroy", consumer, consumer);
}

doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	return not_yet_args("doca_comch_consumer_cap_is_supported", devinfo, devinfo);
}

doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id)
{
	return not_yet_args("doca_comch_consumer_get_id", consumer, id);
}

doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks)
{
	return not_yet_args("doca_comch_consumer_cap_get_max_num_tasks", devinfo, max_num_tasks);
}

doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size)
{
	return not_yet_args("doca_comch_consumer_cap_get_max_buf_size", devinfo, max_buf_size);
}

doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len)
{
	return not_yet_args("doca_comch_consumer_cap_get_max_buf_list_len", devinfo, max_buf_list_len);
}

doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo, uint32_t *max_consumers)
{
	return not_yet_args("doca_comch_consumer_cap_get_max_consumers", devinfo, max_consumers);
}

doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_imm_data_len)
{
	return not_yet_args("doca_comch_consumer_cap_get_max_imm_data_len", devinfo, max_imm_data_len);
}

doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer, uint32_t *imm_data_len)
{
	return not_yet_args("doca_comch_consumer_get_imm_data_len", consumer, imm_data_len);
}

doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer, uint32_t imm_data_len)
{
	(void)imm_data_len;
	return not_yet_args("doca_comch_consumer_set_imm_data_len", consumer, consumer);
}

struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer)
{
	(void)consumer;
	(void)not_yet("doca_comch_consumer_as_ctx");
	return NULL;
}

doca_error_t doca_comch_consumer_task_post_recv_set_conf(struct doca_comch_consumer *consumer,
							 doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
							 doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb,
							 uint32_t num_post_recv_tasks)
{
	(void)task_completion_cb;
	(void)task_error_cb;
	(void)num_post_recv_tasks;
	return not_yet_args("doca_comch_consumer_task_post_recv_set_conf", consumer, consumer);
}

doca_error_t doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer, struct doca_buf *buf,
							   struct doca_comch_consumer_task_post_recv **task)
{
	(void)buf;
	return not_yet_args("doca_comch_consumer_task_post_recv_alloc_init", consumer, task);
}

struct doca_buf *doca_comch_consumer_task_post_recv_get_buf(struct doca_comch_consumer_task_post_recv *task)
{
	(void)task;
	(void)not_yet("doca_comch_consumer_task_post_recv_get_buf");
	return NULL;
}

void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task, struct doca_buf *buf)
{
	(void)task;
	(void)buf;
	(void)not_yet("doca_comch_consumer_task_post_recv_set_buf");
}

uint32_t doca_comch_consumer_task_post_recv_get_producer_id(struct doca_comch_consumer_task_post_recv *task)
{
	(void)task;
	(void)not_yet("doca_comch_consumer_task_post_recv_get_producer_id");
	return 0;
}

uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(struct doca_comch_consumer_task_post_recv *task)
{
	(void)task;
	(void)not_yet("doca_comch_consumer_task_post_recv_get_imm_data");
	return NULL;
}

uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(struct doca_comch_consumer_task_post_recv *task)
{
	(void)task;
	(void)not_yet("doca_comch_consumer_task_post_recv_get_imm_data_len");
	return 0;
}

struct doca_task *doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task)
{
	(void)task;
	(void)not_yet("doca_comch_consumer_task_post_recv_as_task");
	return NULL;
}
