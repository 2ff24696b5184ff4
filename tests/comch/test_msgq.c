/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_msgq.c - doca_comch_msgq: its rules (states, counts, no DPA), and
 * messages of immediate data from a producer thread to a consumer thread, each
 * with a PE of its own, order and content checked; a consumer that stops makes
 * the sends waiting for it fail.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <doca_comch_consumer.h>
#include <doca_comch_msgq.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_pe.h>

#include "comch_util.h"
#include "ferry_test.h"
#include "ferry_test_ctx.h"
#include "ferry_test_wait.h"

#define IMM      16u
#define POSTS    32u
#define MESSAGES 20000u

static struct doca_dev *dev;

/* ---- the rules ---- */

static void test_rules(void **state)
{
	struct doca_comch_msgq *q = NULL;
	struct doca_comch_consumer *c = NULL;
	struct doca_comch_producer *p = NULL;

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_comch_msgq_create(NULL, &q), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_msgq_create(dev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_msgq_create(dev, &q), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_set_dpa_consumer(q, NULL), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_msgq_set_dpa_producer(q, NULL), DOCA_ERROR_NOT_SUPPORTED);
	assert_true(ferry_test_log_has("emulates no DPA"));
	assert_int_equal(doca_comch_msgq_set_max_num_consumers(q, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_msgq_set_max_num_producers(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_msgq_set_max_num_consumers(q, 1), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_set_max_num_producers(q, 1), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_consumer_create(q, &c), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_msgq_stop(q), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_msgq_start(q), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_start(q), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_msgq_set_max_num_consumers(q, 2), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_msgq_destroy(q), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_comch_msgq_consumer_create(q, &c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_producer_create(q, &p), DOCA_SUCCESS);
	struct doca_comch_consumer *c2 = NULL;
	struct doca_comch_producer *p2 = NULL;
	assert_int_equal(doca_comch_msgq_consumer_create(q, &c2), DOCA_ERROR_FULL);
	assert_int_equal(doca_comch_msgq_producer_create(q, &p2), DOCA_ERROR_FULL);
	assert_int_equal(doca_comch_msgq_stop(q), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_stop(q), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_destroy(q), DOCA_SUCCESS);
}

/* ---- messages between threads ---- */

struct side {
	struct doca_pe *pe;
	struct doca_comch_consumer *consumer;
	struct doca_comch_producer *producer;
	_Atomic uint32_t consumer_id;
	_Atomic bool consumer_stop;
	uint32_t received, sent_ok, sent_failed, in_flight;
	uint32_t next_expected;
	doca_error_t last_send_error;
	_Atomic bool bad; /* set by either thread */
};

static struct side S;

static void message(uint32_t seq, uint8_t out[IMM])
{
	memcpy(out, &seq, sizeof(seq));
	for (uint32_t k = sizeof(seq); k < IMM; k++)
		out[k] = (uint8_t)(seq * 7 + k);
}

static void recv_ok(struct doca_comch_consumer_task_post_recv *task, union doca_data tu, union doca_data cu)
{
	uint8_t want[IMM];

	(void)tu;
	(void)cu;
	message(S.next_expected, want);
	if (doca_comch_consumer_task_post_recv_get_imm_data_len(task) != IMM ||
	    memcmp(doca_comch_consumer_task_post_recv_get_imm_data(task), want, IMM) != 0)
		S.bad = true;
	S.next_expected++;
	S.received++;
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static void recv_err(struct doca_comch_consumer_task_post_recv *task, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static void send_ok(struct doca_comch_producer_task_send *task, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	S.sent_ok++;
	S.in_flight--;
	doca_task_free(doca_comch_producer_task_send_as_task(task));
}

static void send_err(struct doca_comch_producer_task_send *task, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	S.sent_failed++;
	S.in_flight--;
	S.last_send_error = doca_task_get_status(doca_comch_producer_task_send_as_task(task));
	doca_task_free(doca_comch_producer_task_send_as_task(task));
}

static void *consumer_thread(void *arg)
{
	struct doca_pe *pe = NULL;
	struct doca_ctx *ctx = doca_comch_consumer_as_ctx(S.consumer);
	uint32_t id = 0;

	(void)arg;
	if (doca_pe_create(&pe) != DOCA_SUCCESS || doca_pe_connect_ctx(pe, ctx) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(S.consumer, recv_ok, recv_err, POSTS) != DOCA_SUCCESS ||
	    doca_comch_consumer_set_imm_data_len(S.consumer, IMM) != DOCA_SUCCESS ||
	    doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS) {
		S.bad = true;
		return NULL;
	}
	FERRY_PROGRESS_UNTIL(pe, ferry_test_ctx_state(ctx) == DOCA_CTX_STATE_RUNNING, FERRY_TEST_WAIT_MS);
	for (uint32_t i = 0; i < POSTS; i++) {
		struct doca_comch_consumer_task_post_recv *t = NULL;

		if (doca_comch_consumer_task_post_recv_alloc_init(S.consumer, NULL, &t) != DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)) != DOCA_SUCCESS)
			S.bad = true;
	}
	(void)doca_comch_consumer_get_id(S.consumer, &id);
	atomic_store(&S.consumer_id, id);
	FERRY_PROGRESS_UNTIL(pe, atomic_load(&S.consumer_stop) || S.bad, FERRY_TEST_WAIT_MS * 3);
	ferry_test_stop_idle(pe, ctx);
	S.pe = pe; /* destroyed by the test once the consumer is */
	return NULL;
}

static void *producer_thread(void *arg)
{
	struct doca_pe *pe = NULL;
	struct doca_ctx *ctx = doca_comch_producer_as_ctx(S.producer);
	uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS * 3);
	uint32_t id, seq = 0;

	(void)arg;
	if (doca_pe_create(&pe) != DOCA_SUCCESS || doca_pe_connect_ctx(pe, ctx) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(S.producer, send_ok, send_err, 16) != DOCA_SUCCESS ||
	    doca_ctx_start(ctx) != DOCA_SUCCESS) {
		S.bad = true;
		return NULL;
	}
	while ((id = atomic_load(&S.consumer_id)) == 0 && !ferry_test_expired(until))
		ferry_test_idle();
	while (seq < MESSAGES && !S.bad && !ferry_test_expired(until)) {
		struct doca_comch_producer_task_send *t = NULL;
		uint8_t imm[IMM];

		message(seq, imm);
		if (doca_comch_producer_task_send_alloc_init(S.producer, NULL, imm, IMM, id, &t) == DOCA_SUCCESS) {
			if (doca_task_submit(doca_comch_producer_task_send_as_task(t)) == DOCA_SUCCESS) {
				S.in_flight++;
				seq++;
			} else {
				doca_task_free(doca_comch_producer_task_send_as_task(t));
			}
		}
		(void)doca_pe_progress(pe);
	}
	FERRY_PROGRESS_UNTIL(pe, S.in_flight == 0, FERRY_TEST_WAIT_MS);
	ferry_test_stop_idle(pe, ctx);
	return pe;
}

static void test_threads(void **state)
{
	struct doca_comch_msgq *q = NULL;
	pthread_t ct, pt;
	void *producer_pe = NULL;

	(void)state;
	memset(&S, 0, sizeof(S));
	assert_int_equal(doca_comch_msgq_create(dev, &q), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_start(q), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_consumer_create(q, &S.consumer), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_producer_create(q, &S.producer), DOCA_SUCCESS);
	assert_int_equal(pthread_create(&ct, NULL, consumer_thread, NULL), 0);
	assert_int_equal(pthread_create(&pt, NULL, producer_thread, NULL), 0);
	assert_int_equal(pthread_join(pt, &producer_pe), 0);
	atomic_store(&S.consumer_stop, true);
	assert_int_equal(pthread_join(ct, NULL), 0);
	assert_false(S.bad);
	assert_int_equal(S.sent_ok, MESSAGES);
	assert_int_equal(S.sent_failed, 0);
	assert_int_equal(S.received, MESSAGES);
	assert_int_equal(doca_comch_producer_destroy(S.producer), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_destroy(S.consumer), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(producer_pe), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(S.pe), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_stop(q), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_destroy(q), DOCA_SUCCESS);
}

/* A consumer that stops (nothing posted) fails the sends that wait for it with NOT_FOUND. */
static void test_consumer_gone(void **state)
{
	struct doca_comch_msgq *q = NULL;
	struct doca_pe *pe = NULL;
	struct doca_comch_producer_task_send *t = NULL;
	uint8_t imm[IMM] = {1};
	uint32_t id = 0;

	(void)state;
	memset(&S, 0, sizeof(S));
	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_create(dev, &q), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_start(q), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_consumer_create(q, &S.consumer), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_producer_create(q, &S.producer), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, doca_comch_consumer_as_ctx(S.consumer)), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(S.producer)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(S.consumer, recv_ok, recv_err, 4), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_set_imm_data_len(S.consumer, IMM), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_set_conf(S.producer, send_ok, send_err, 4), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(S.consumer)), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_start(doca_comch_producer_as_ctx(S.producer)), DOCA_SUCCESS);
	FERRY_PROGRESS_UNTIL(pe, ferry_test_ctx_state(doca_comch_consumer_as_ctx(S.consumer)) == DOCA_CTX_STATE_RUNNING,
			     FERRY_TEST_WAIT_MS);
	assert_int_equal(doca_comch_consumer_get_id(S.consumer, &id), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(S.producer, NULL, imm, IMM, id, &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(t)), DOCA_SUCCESS);
	S.in_flight = 1;
	for (int i = 0; i < 100; i++)
		(void)doca_pe_progress(pe);
	assert_int_equal(S.in_flight, 1); /* nothing posted: it waits */
	ferry_test_stop_idle(pe, doca_comch_consumer_as_ctx(S.consumer));
	FERRY_PROGRESS_UNTIL(pe, S.in_flight == 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(S.sent_failed, 1);
	assert_int_equal(S.last_send_error, DOCA_ERROR_NOT_FOUND);
	ferry_test_stop_idle(pe, doca_comch_producer_as_ctx(S.producer));
	assert_int_equal(doca_comch_producer_destroy(S.producer), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_destroy(S.consumer), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_stop(q), DOCA_SUCCESS);
	assert_int_equal(doca_comch_msgq_destroy(q), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_consumer_gone),
	};
	int rc;

	dev = cu_open_dpu_dev();
	if (dev == NULL)
		return 1;
	rc = ferry_test_run(argc, argv, tests, NULL, NULL);
	doca_dev_close(dev);
	return rc;
}
