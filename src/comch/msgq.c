/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msgq.c - doca_comch_msgq: producers and consumers on one device with no
 * connection between them. A started MsgQ owns a hub (hub.c) with no socket:
 * a consumer comes up in place (its record and completion ring are made at
 * its start, not from a peer's frames) and messages are immediate data, so
 * everything else, threads and doorbells included, is the fast path's own.
 * Ferry emulates no DPA: both ends run on CPUs.
 */
#include <stdlib.h>

#include <doca_comch_msgq.h>

#include "comch/fast_priv.h"
#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "core/ferry_dev.h"

FERRY_LOG_MODULE("comch");

#define MSGQ_MAGIC 0x4d736751u /* "MsgQ" */

struct doca_comch_msgq {
	uint32_t magic;
	struct doca_dev *dev;
	uint32_t max_consumers;
	uint32_t max_producers;
	struct comch_fast_hub *hub; /* while started */
};

static doca_error_t check_msgq(const struct doca_comch_msgq *msgq, const char *call)
{
	if (msgq == NULL || msgq->magic != MSGQ_MAGIC)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%p is not a MsgQ", (const void *)msgq);
	return DOCA_SUCCESS;
}

static doca_error_t check_stopped(const struct doca_comch_msgq *msgq, const char *call)
{
	doca_error_t err = check_msgq(msgq, call);

	if (err == DOCA_SUCCESS && msgq->hub != NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "MsgQ %p is started; stop it first",
				     (const void *)msgq);
	return err;
}

static doca_error_t check_started(const struct doca_comch_msgq *msgq, const char *call)
{
	doca_error_t err = check_msgq(msgq, call);

	if (err == DOCA_SUCCESS && msgq->hub == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "MsgQ %p is not started", (const void *)msgq);
	return err;
}

doca_error_t doca_comch_msgq_create(struct doca_dev *dev, struct doca_comch_msgq **msgq)
{
	struct doca_comch_msgq *q;

	FERRY_ARG_NOT_NULL(dev);
	FERRY_ARG_NOT_NULL(msgq);
	q = ferry_calloc(1, sizeof(*q));
	if (q == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory");
	q->magic = MSGQ_MAGIC;
	q->dev = dev;
	q->max_consumers = COMCH_FAST_MAX_CONSUMERS;
	q->max_producers = COMCH_FAST_MAX_PRODUCERS;
	*msgq = q;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_msgq_destroy(struct doca_comch_msgq *msgq)
{
	doca_error_t err = check_stopped(msgq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	msgq->magic = 0;
	free(msgq);
	return DOCA_SUCCESS;
}

static doca_error_t no_dpa(const struct doca_comch_msgq *msgq, const char *call)
{
	doca_error_t err = check_msgq(msgq, call);

	if (err != DOCA_SUCCESS)
		return err;
	return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
			     "Ferry emulates no DPA: a MsgQ's producers and consumers run on CPUs");
}

doca_error_t doca_comch_msgq_set_dpa_consumer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa)
{
	(void)dpa;
	return no_dpa(msgq, __func__);
}

doca_error_t doca_comch_msgq_set_dpa_producer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa)
{
	(void)dpa;
	return no_dpa(msgq, __func__);
}

/* A count setter: stopped, and 1..cap (the cap the producer's or consumer's cap query reports). */
static doca_error_t set_max(struct doca_comch_msgq *msgq, uint32_t *field, uint32_t value, uint32_t cap,
			    const char *call)
{
	doca_error_t err = check_stopped(msgq, call);

	if (err != DOCA_SUCCESS)
		return err;
	if (value == 0 || value > cap)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%u is not in 1..%u", value, cap);
	*field = value;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_msgq_set_max_num_consumers(struct doca_comch_msgq *msgq, uint32_t max_num_consumers)
{
	return set_max(msgq, msgq != NULL ? &msgq->max_consumers : NULL, max_num_consumers, COMCH_FAST_MAX_CONSUMERS,
		       __func__);
}

doca_error_t doca_comch_msgq_set_max_num_producers(struct doca_comch_msgq *msgq, uint32_t max_num_producers)
{
	return set_max(msgq, msgq != NULL ? &msgq->max_producers : NULL, max_num_producers, COMCH_FAST_MAX_PRODUCERS,
		       __func__);
}

doca_error_t doca_comch_msgq_start(struct doca_comch_msgq *msgq)
{
	doca_error_t err = check_stopped(msgq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	msgq->hub = comch_hub_new_local(msgq, msgq->dev);
	if (msgq->hub == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory");
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_msgq_stop(struct doca_comch_msgq *msgq)
{
	doca_error_t err = check_started(msgq, __func__);
	uint32_t producers, consumers;

	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&msgq->hub->lock);
	producers = msgq->hub->num_producers;
	consumers = msgq->hub->num_consumers;
	pthread_mutex_unlock(&msgq->hub->lock);
	if (producers != 0 || consumers != 0)
		return FERRY_RULE(DOCA_ERROR_IN_USE,
				  "MsgQ %p still has %u producers and %u consumers; destroy them first", (void *)msgq,
				  producers, consumers);
	comch_hub_close(msgq->hub);
	msgq->hub = NULL;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_msgq_consumer_create(struct doca_comch_msgq *msgq, struct doca_comch_consumer **consumer)
{
	doca_error_t err = check_started(msgq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	FERRY_ARG_NOT_NULL(consumer);
	return comch_consumer_new(msgq->hub, NULL, msgq->max_consumers, consumer);
}

doca_error_t doca_comch_msgq_producer_create(struct doca_comch_msgq *msgq, struct doca_comch_producer **producer)
{
	doca_error_t err = check_started(msgq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	FERRY_ARG_NOT_NULL(producer);
	return comch_producer_new(msgq->hub, msgq->max_producers, producer);
}
