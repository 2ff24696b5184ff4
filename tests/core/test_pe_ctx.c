/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pe_ctx.c - the generic progress engine, context state machine and task
 * API, driven through a minimal fake context type that completes tasks in
 * software. Walks invalid input first, then rules, then the happy paths.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sys/epoll.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "core/ferry_ctx.h"
#include "ferry_test.h"
#include "ferry_test_ctx.h"
#include "ferry_test_wait.h"

/* ---- a fake context type: tasks wait in a FIFO until progress ---- */

struct fake_task {
	struct doca_task base;
	doca_error_t result; /* what progress completes it with */
};

struct fake_ctx {
	struct doca_ctx ctx;
	struct ferry_task_pool pool;
	struct doca_task *head, *tail; /* submitted, not yet completed */
	bool stopping;
	unsigned flushes;
	unsigned starts, stopped;
	doca_error_t start_result;
	/* what the test observes */
	unsigned successes, errors;
	doca_error_t last_status;
	void (*on_complete)(struct fake_ctx *fc, struct fake_task *task);
};

static struct fake_ctx *fake_of(struct doca_ctx *ctx)
{
	return (struct fake_ctx *)ctx;
}

static void fake_complete(struct doca_task *task, union doca_data task_ud, union doca_data ctx_ud, bool success)
{
	struct fake_ctx *fc = ctx_ud.ptr;

	(void)task_ud;
	if (success)
		fc->successes++;
	else
		fc->errors++;
	fc->last_status = doca_task_get_status(task);
	if (fc->on_complete != NULL)
		fc->on_complete(fc, (struct fake_task *)task);
}

static doca_error_t fake_start(struct doca_ctx *ctx)
{
	fake_of(ctx)->starts++;
	return fake_of(ctx)->start_result;
}

static void fake_stop(struct doca_ctx *ctx)
{
	fake_of(ctx)->stopping = true;
}

static void fake_stopped(struct doca_ctx *ctx)
{
	fake_of(ctx)->stopped++;
	fake_of(ctx)->stopping = false;
}

static doca_error_t fake_submit(struct doca_task *task)
{
	struct fake_ctx *fc = fake_of(task->ctx);

	task->next = NULL;
	if (fc->tail != NULL)
		fc->tail->next = task;
	else
		fc->head = task;
	fc->tail = task;
	return DOCA_SUCCESS;
}

static void fake_flush(struct doca_ctx *ctx)
{
	fake_of(ctx)->flushes++;
}

static uint32_t fake_progress(struct doca_ctx *ctx)
{
	struct fake_ctx *fc = fake_of(ctx);
	struct doca_task *list = fc->head;
	uint32_t n = 0;

	/* Detach first: callbacks may resubmit onto the list. */
	fc->head = fc->tail = NULL;
	while (list != NULL) {
		struct doca_task *task = list;

		list = task->next;
		ferry_task_complete(task, fc->stopping ? DOCA_ERROR_IO_FAILED : ((struct fake_task *)task)->result);
		n++;
	}
	return n;
}

static bool fake_has_pending(struct doca_ctx *ctx)
{
	return fake_of(ctx)->head != NULL;
}

static const struct ferry_ctx_ops fake_ops = {
	.start = fake_start,
	.stop = fake_stop,
	.stopped = fake_stopped,
	.submit = fake_submit,
	.flush = fake_flush,
	.progress = fake_progress,
	.has_pending = fake_has_pending,
};

static struct fake_ctx *fake_create(uint32_t num_tasks)
{
	struct fake_ctx *fc = calloc(1, sizeof(*fc));
	union doca_data ud = {.ptr = fc};

	ferry_ctx_init(&fc->ctx, &fake_ops, "fake", NULL);
	ferry_ctx_add_pool(&fc->ctx, &fc->pool, "fake", sizeof(struct fake_task), fake_complete);
	if (num_tasks > 0)
		assert_int_equal(ferry_task_pool_configure(&fc->pool, num_tasks, "fake_set_conf"), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_user_data(&fc->ctx, ud), DOCA_SUCCESS);
	return fc;
}

static void fake_destroy(struct fake_ctx *fc)
{
	assert_int_equal(ferry_ctx_check_destroyable(&fc->ctx, "fake_destroy"), DOCA_SUCCESS);
	ferry_ctx_fini(&fc->ctx);
	free(fc);
}

static struct fake_task *fake_alloc(struct fake_ctx *fc)
{
	struct doca_task *task = NULL;

	assert_int_equal(ferry_task_pool_get(&fc->pool, "fake_alloc", &task), DOCA_SUCCESS);
	return (struct fake_task *)task;
}

/* Records every state change. */
static enum doca_ctx_states transitions[16][2];
static unsigned num_transitions;

static void record_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
			 enum doca_ctx_states next)
{
	(void)ud;
	(void)ctx;
	if (num_transitions < 16) {
		transitions[num_transitions][0] = prev;
		transitions[num_transitions][1] = next;
	}
	num_transitions++;
}

struct fixture {
	struct doca_pe *pe;
	struct fake_ctx *fc;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	ferry_test_log_reset();
	assert_int_equal(doca_pe_create(&f->pe), DOCA_SUCCESS);
	f->fc = fake_create(4);
	num_transitions = 0;
	assert_int_equal(doca_ctx_set_state_changed_cb(&f->fc->ctx, record_state), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(f->pe, &f->fc->ctx), DOCA_SUCCESS);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	enum doca_ctx_states st;

	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
	if (st != DOCA_CTX_STATE_IDLE) {
		(void)doca_ctx_stop(&f->fc->ctx);
		/* Bounded: a test that still holds a task would keep the context STOPPING. */
		for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
		     st != DOCA_CTX_STATE_IDLE && !ferry_test_expired(until);) {
			(void)doca_pe_progress(f->pe);
			assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
		}
		assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	}
	fake_destroy(f->fc);
	assert_int_equal(doca_pe_destroy(f->pe), DOCA_SUCCESS);
	free(f);
	return 0;
}

static void start(struct fixture *f)
{
	assert_int_equal(doca_ctx_start(&f->fc->ctx), DOCA_SUCCESS);
}

/* ---- invalid input ---- */

static void test_null_arguments(void **state)
{
	struct fixture *f = *state;
	size_t n;
	enum doca_ctx_states st;
	union doca_data ud;
	doca_notification_handle_t h;

	(void)f;
	assert_int_equal(doca_pe_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_pe_create");
	assert_int_equal(doca_pe_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_connect_ctx(NULL, &f->fc->ctx), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_connect_ctx(f->pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_progress(NULL), 0);
	assert_int_equal(doca_pe_get_notification_handle(NULL, &h), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_get_notification_handle(f->pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_request_notification(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_clear_notification(NULL, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_get_num_inflight_tasks(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_pe_get_num_inflight_tasks(f->pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_state(NULL, &st), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_set_state_changed_cb(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_try_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_task_get_status(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_task_get_ctx(NULL));
	doca_task_free(NULL); /* logged, no crash */
	assert_logged("doca_task_free: task is NULL");
	assert_int_equal(doca_pe_set_event_mode(f->pe, (enum doca_pe_event_mode)7), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_set_datapath_on_gpu(&f->fc->ctx, NULL), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_ctx_set_datapath_on_dpa(&f->fc->ctx, NULL), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_ctx_set_datapath_on_gpu(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_ctx_set_datapath_on_gpu: ctx is NULL");
	assert_int_equal(doca_ctx_set_datapath_on_dpa(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_ctx_set_datapath_on_dpa: ctx is NULL");
}

/* ---- rules ---- */

static void test_connect_rules(void **state)
{
	struct fixture *f = *state;
	struct doca_pe *other;

	assert_int_equal(doca_pe_create(&other), DOCA_SUCCESS);
	/* DOCA's answer for a context connected before is NOT_PERMITTED (was ALREADY_EXIST). */
	assert_int_equal(doca_pe_connect_ctx(f->pe, &f->fc->ctx), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("already connected");
	ferry_test_log_reset();
	assert_int_equal(doca_pe_connect_ctx(other, &f->fc->ctx), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("already connected");
	assert_int_equal(doca_pe_destroy(f->pe), DOCA_ERROR_IN_USE);
	assert_logged("still connected");
	assert_int_equal(doca_pe_destroy(other), DOCA_SUCCESS);
}

static void test_start_rules(void **state)
{
	struct fixture *f = *state;
	struct fake_ctx *lonely = fake_create(1);
	struct fake_ctx *unconfigured = fake_create(0);
	struct doca_task *task;

	assert_int_equal(doca_ctx_start(&lonely->ctx), DOCA_ERROR_NOT_CONNECTED);
	assert_logged("not connected to a progress engine");
	/* Stop answers as start does for a context with no PE (DOCA documents NOT_CONNECTED). */
	ferry_test_log_reset();
	assert_int_equal(doca_ctx_stop(&lonely->ctx), DOCA_ERROR_NOT_CONNECTED);
	assert_logged("doca_ctx_stop: context 'fake' is not connected to a progress engine");
	fake_destroy(lonely);

	start(f);
	assert_int_equal(doca_ctx_start(&f->fc->ctx), DOCA_ERROR_BAD_STATE);
	assert_logged("start needs IDLE");
	assert_int_equal(doca_ctx_set_state_changed_cb(&f->fc->ctx, NULL), DOCA_ERROR_BAD_STATE);
	assert_int_equal(ferry_task_pool_configure(&f->fc->pool, 8, "fake_set_conf"), DOCA_ERROR_BAD_STATE);
	assert_logged("configuration needs IDLE");
	assert_int_equal(ferry_ctx_check_destroyable(&f->fc->ctx, "fake_destroy"), DOCA_ERROR_BAD_STATE);
	assert_logged("destroy needs IDLE");

	assert_int_equal(doca_pe_connect_ctx(f->pe, &unconfigured->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(&unconfigured->ctx), DOCA_SUCCESS);
	assert_int_equal(ferry_task_pool_get(&unconfigured->pool, "fake_alloc", &task), DOCA_ERROR_BAD_STATE);
	assert_logged("were not configured");
	assert_int_equal(doca_ctx_stop(&unconfigured->ctx), DOCA_SUCCESS);
	fake_destroy(unconfigured);
	assert_int_equal(ferry_task_pool_configure(&f->fc->pool, 0, "x"), DOCA_ERROR_BAD_STATE);
}

static void test_failed_start_stays_idle(void **state)
{
	struct fixture *f = *state;
	enum doca_ctx_states st;

	f->fc->start_result = DOCA_ERROR_INITIALIZATION;
	assert_int_equal(doca_ctx_start(&f->fc->ctx), DOCA_ERROR_INITIALIZATION);
	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(num_transitions, 0);
	assert_int_equal(ferry_task_pool_configure(&f->fc->pool, 0, "fake_set_conf"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("at least 1 task");
}

static void test_alloc_before_start_and_exhaustion(void **state)
{
	struct fixture *f = *state;
	struct doca_task *task;
	struct fake_task *tasks[4];

	assert_int_equal(ferry_task_pool_get(&f->fc->pool, "fake_alloc", &task), DOCA_ERROR_BAD_STATE);
	assert_logged("task allocation needs RUNNING");
	start(f);
	for (int i = 0; i < 4; i++)
		tasks[i] = fake_alloc(f->fc);
	ferry_test_log_reset();
	assert_int_equal(ferry_task_pool_get(&f->fc->pool, "fake_alloc", &task), DOCA_ERROR_NO_MEMORY);
	assert_logged("all 4 fake tasks are allocated");
	doca_task_free(&tasks[2]->base);
	assert_int_equal(ferry_task_pool_get(&f->fc->pool, "fake_alloc", &task), DOCA_SUCCESS);
	assert_ptr_equal(task, &tasks[2]->base);
	doca_task_free(task);
	doca_task_free(task);
	assert_logged("already free");
	for (int i = 0; i < 4; i++)
		if (i != 2)
			doca_task_free(&tasks[i]->base);
}

static void test_submit_rules(void **state)
{
	struct fixture *f = *state;
	struct fake_task *t;
	size_t n = 99;

	start(f);
	t = fake_alloc(f->fc);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&t->base), DOCA_ERROR_BAD_STATE);
	assert_logged("already in flight");
	assert_int_equal(doca_ctx_get_num_inflight_tasks(&f->fc->ctx, &n), DOCA_SUCCESS);
	assert_int_equal(n, 1);
	assert_int_equal(doca_task_submit_ex(&t->base, 0x80), DOCA_ERROR_INVALID_VALUE);
	assert_logged("unknown flags");

	/* Stop with the task in flight, then submit while STOPPING. */
	assert_int_equal(doca_ctx_stop(&f->fc->ctx), DOCA_ERROR_IN_PROGRESS);
	{
		struct doca_task *extra;

		assert_int_equal(ferry_task_pool_get(&f->fc->pool, "fake_alloc", &extra), DOCA_ERROR_BAD_STATE);
	}
	assert_int_equal(doca_pe_progress(f->pe), 1);
	/* Flushed, but the test still holds the task: the context stays STOPPING. */
	assert_int_equal(doca_task_submit(&t->base), DOCA_ERROR_BAD_STATE);
	assert_logged("context 'fake' is STOPPING; tasks need RUNNING");
	doca_task_free(&t->base);
	assert_int_equal(doca_pe_progress(f->pe), 1); /* now IDLE */
	assert_int_equal(doca_task_submit(&t->base), DOCA_ERROR_BAD_STATE);
	assert_logged("is free");
}

/* ---- the happy path and its details ---- */

static void test_completion_only_from_progress(void **state)
{
	struct fixture *f = *state;
	struct fake_task *t;
	union doca_data ud = {.u64 = 0xfeed};
	size_t n;

	start(f);
	t = fake_alloc(f->fc);
	t->result = DOCA_SUCCESS;
	doca_task_set_user_data(&t->base, ud);
	assert_int_equal(doca_task_get_user_data(&t->base).u64, 0xfeed);
	assert_ptr_equal(doca_task_get_ctx(&t->base), &f->fc->ctx);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	assert_int_equal(f->fc->successes, 0); /* never inside submit */
	assert_int_equal(f->fc->flushes, 1);
	assert_int_equal(doca_pe_get_num_inflight_tasks(f->pe, &n), DOCA_SUCCESS);
	assert_int_equal(n, 1);
	assert_int_equal(doca_pe_progress(f->pe), 1);
	assert_int_equal(f->fc->successes, 1);
	assert_int_equal(doca_task_get_status(&t->base), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f->pe), 0);
	assert_int_equal(doca_pe_get_num_inflight_tasks(f->pe, &n), DOCA_SUCCESS);
	assert_int_equal(n, 0);

	/* Error completion goes to the error path with the status. */
	t->result = DOCA_ERROR_IO_FAILED;
	assert_int_equal(doca_task_try_submit(&t->base), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f->pe), 1);
	assert_int_equal(f->fc->errors, 1);
	assert_int_equal(f->fc->last_status, DOCA_ERROR_IO_FAILED);
	doca_task_free(&t->base);
}

static void test_submit_ex_defers_doorbell(void **state)
{
	struct fixture *f = *state;
	struct fake_task *t;

	start(f);
	t = fake_alloc(f->fc);
	assert_int_equal(doca_task_submit_ex(&t->base, DOCA_TASK_SUBMIT_FLAG_NONE), DOCA_SUCCESS);
	assert_int_equal(f->fc->flushes, 0);
	doca_ctx_flush_tasks(&f->fc->ctx);
	assert_int_equal(f->fc->flushes, 1);
	assert_int_equal(doca_pe_progress(f->pe), 1);
	doca_task_free(&t->base);
}

static void resubmit_until_3(struct fake_ctx *fc, struct fake_task *task)
{
	if (fc->successes < 3)
		assert_int_equal(doca_task_submit(&task->base), DOCA_SUCCESS);
	else
		doca_task_free(&task->base);
}

static void test_callback_resubmits(void **state)
{
	struct fixture *f = *state;
	struct fake_task *t;

	start(f);
	f->fc->on_complete = resubmit_until_3;
	t = fake_alloc(f->fc);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	while (f->fc->successes < 3)
		(void)doca_pe_progress(f->pe);
	assert_int_equal(f->fc->pool.num_free, 4);
}

static struct doca_pe *reentrant_pe;
static uint8_t reentrant_result = 0xff;

static void progress_from_callback(struct fake_ctx *fc, struct fake_task *task)
{
	(void)fc;
	reentrant_result = doca_pe_progress(reentrant_pe);
	doca_task_free(&task->base);
}

static void test_progress_not_reentrant(void **state)
{
	struct fixture *f = *state;
	struct fake_task *t;

	start(f);
	reentrant_pe = f->pe;
	f->fc->on_complete = progress_from_callback;
	t = fake_alloc(f->fc);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f->pe), 1);
	assert_int_equal(reentrant_result, 0);
	assert_logged("must not be called from a callback");
}

static void test_sync_stop_transitions(void **state)
{
	struct fixture *f = *state;

	start(f);
	assert_int_equal(doca_ctx_stop(&f->fc->ctx), DOCA_SUCCESS);
	assert_int_equal(num_transitions, 3);
	assert_int_equal(transitions[0][0], DOCA_CTX_STATE_IDLE);
	assert_int_equal(transitions[0][1], DOCA_CTX_STATE_RUNNING);
	assert_int_equal(transitions[1][1], DOCA_CTX_STATE_STOPPING);
	assert_int_equal(transitions[2][0], DOCA_CTX_STATE_STOPPING);
	assert_int_equal(transitions[2][1], DOCA_CTX_STATE_IDLE);
	assert_int_equal(f->fc->stopped, 1);
	/* Stopping an IDLE context is a no-op (DOCA's samples do it in cleanup). */
	assert_int_equal(doca_ctx_stop(&f->fc->ctx), DOCA_SUCCESS);
	assert_int_equal(num_transitions, 3);
	assert_int_equal(f->fc->stopped, 1);
	/* Restart after stop works and reconfiguration is allowed in between. */
	assert_int_equal(ferry_task_pool_configure(&f->fc->pool, 2, "fake_set_conf"), DOCA_SUCCESS);
	start(f);
	assert_int_equal(f->fc->pool.num_free, 2);
}

static void test_async_stop_flushes(void **state)
{
	struct fixture *f = *state;
	struct fake_task *t[3];
	enum doca_ctx_states st;

	start(f);
	for (int i = 0; i < 3; i++) {
		t[i] = fake_alloc(f->fc);
		assert_int_equal(doca_task_submit(&t[i]->base), DOCA_SUCCESS);
	}
	assert_int_equal(doca_ctx_stop(&f->fc->ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_stop(&f->fc->ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	assert_int_equal(f->fc->errors, 0); /* flushed only through progress */
	assert_int_equal(doca_pe_progress(f->pe), 1);
	assert_int_equal(f->fc->errors, 3);
	assert_int_equal(f->fc->last_status, DOCA_ERROR_IO_FAILED);
	/* As in DOCA, the context waits in STOPPING until every task is freed. */
	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	doca_task_free(&t[0]->base);
	doca_task_free(&t[1]->base);
	assert_int_equal(doca_pe_progress(f->pe), 0);
	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	doca_task_free(&t[2]->base);
	assert_int_equal(doca_pe_progress(f->pe), 1);
	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(transitions[num_transitions - 1][1], DOCA_CTX_STATE_IDLE);
}

static void stop_from_callback(struct fake_ctx *fc, struct fake_task *task)
{
	if (fc->successes == 1)
		assert_int_equal(doca_ctx_stop(&fc->ctx), DOCA_ERROR_IN_PROGRESS);
	doca_task_free(&task->base);
}

static void test_stop_from_callback(void **state)
{
	struct fixture *f = *state;
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

	start(f);
	f->fc->on_complete = stop_from_callback;
	for (int i = 0; i < 4; i++)
		assert_int_equal(doca_task_submit(&fake_alloc(f->fc)->base), DOCA_SUCCESS);
	/* The first task completes, stops the context; the rest are flushed in the same pass. */
	(void)doca_pe_progress(f->pe);
	FERRY_PROGRESS_UNTIL(f->pe, doca_ctx_get_state(&f->fc->ctx, &st) != DOCA_SUCCESS || st == DOCA_CTX_STATE_IDLE,
			     FERRY_TEST_WAIT_MS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(f->fc->successes, 1);
	assert_int_equal(f->fc->errors, 3);
	assert_int_equal(f->fc->pool.num_free, 4);
}

static void test_stop_never_started(void **state)
{
	struct fixture *f = *state;
	enum doca_ctx_states st;

	/* dma_local_copy stops a context twice; the second call must succeed. */
	assert_int_equal(doca_ctx_stop(&f->fc->ctx), DOCA_SUCCESS);
	assert_int_equal(num_transitions, 0);
	assert_int_equal(f->fc->stopped, 0);
	assert_false(f->fc->stopping);
	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_false(ferry_test_log_has("doca_ctx_stop"));
	start(f); /* still startable */
}

static doca_error_t stop_result_in_callback;
static enum doca_ctx_states state_in_callback;

static void stop_last_from_callback(struct fake_ctx *fc, struct fake_task *task)
{
	doca_task_free(&task->base);
	stop_result_in_callback = doca_ctx_stop(&fc->ctx);
	(void)doca_ctx_get_state(&fc->ctx, &state_in_callback);
}

static void test_stop_last_task_from_callback(void **state)
{
	struct fixture *f = *state;
	enum doca_ctx_states st;

	start(f);
	f->fc->on_complete = stop_last_from_callback;
	assert_int_equal(doca_task_submit(&fake_alloc(f->fc)->base), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f->pe), 1);
	/* Nothing was in flight, yet inside the callback the stop only begins... */
	assert_int_equal(stop_result_in_callback, DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(state_in_callback, DOCA_CTX_STATE_STOPPING);
	/* ...and the same progress call finishes it once the type's code is left. */
	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(f->fc->stopped, 1);
	assert_int_equal(transitions[num_transitions - 2][1], DOCA_CTX_STATE_STOPPING);
	assert_int_equal(transitions[num_transitions - 1][0], DOCA_CTX_STATE_STOPPING);
	assert_int_equal(transitions[num_transitions - 1][1], DOCA_CTX_STATE_IDLE);
	assert_int_equal(f->fc->pool.num_free, 4);
}

/* The pe_reactive pattern: the IDLE state callback destroys its context. */
static struct fake_ctx *reactive;
static doca_error_t reactive_destroy_result;

static void destroy_on_idle(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
			    enum doca_ctx_states next)
{
	(void)ud;
	(void)prev;
	if (next != DOCA_CTX_STATE_IDLE)
		return;
	reactive_destroy_result = ferry_ctx_check_destroyable(ctx, "fake_destroy");
	if (reactive_destroy_result == DOCA_SUCCESS) {
		ferry_ctx_fini(ctx);
		free(reactive);
		reactive = NULL;
	}
}

static void test_destroy_from_idle_callback(void **state)
{
	struct fixture *f = *state;
	size_t n;

	reactive = fake_create(2);
	reactive_destroy_result = DOCA_ERROR_UNKNOWN;
	assert_int_equal(doca_ctx_set_state_changed_cb(&reactive->ctx, destroy_on_idle), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(f->pe, &reactive->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(&reactive->ctx), DOCA_SUCCESS);
	reactive->on_complete = stop_last_from_callback;
	assert_int_equal(doca_task_submit(&fake_alloc(reactive)->base), DOCA_SUCCESS);
	/* The fixture's context is connected too, so the loop goes on after the free. */
	start(f);
	assert_int_equal(doca_pe_progress(f->pe), 1);
	assert_int_equal(reactive_destroy_result, DOCA_SUCCESS);
	assert_null(reactive);
	assert_false(ferry_test_log_has("being progressed"));
	assert_int_equal(doca_pe_get_num_inflight_tasks(f->pe, &n), DOCA_SUCCESS);
	assert_int_equal(n, 0);
	(void)doca_pe_progress(f->pe); /* the PE no longer knows the freed context */
}

/* A callback of one context stops another; the other finishes through progress. */
static struct fake_ctx *other;

static void stop_other_from_callback(struct fake_ctx *fc, struct fake_task *task)
{
	(void)fc;
	doca_task_free(&task->base);
	stop_result_in_callback = doca_ctx_stop(&other->ctx);
}

static void test_stop_other_context_from_callback(void **state)
{
	struct fixture *f = *state;
	enum doca_ctx_states st;

	other = fake_create(1);
	assert_int_equal(doca_pe_connect_ctx(f->pe, &other->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(&other->ctx), DOCA_SUCCESS);
	start(f);
	f->fc->on_complete = stop_other_from_callback;
	assert_int_equal(doca_task_submit(&fake_alloc(f->fc)->base), DOCA_SUCCESS);
	(void)doca_pe_progress(f->pe);
	assert_int_equal(stop_result_in_callback, DOCA_ERROR_IN_PROGRESS);
	for (int i = 0; i < 3; i++)
		(void)doca_pe_progress(f->pe);
	assert_int_equal(doca_ctx_get_state(&other->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(other->stopped, 1);
	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_RUNNING);
	fake_destroy(other);
}

/*
 * A type that sees a task fail in its engine puts the context in STOPPING from
 * progress (ferry_ctx_fail), as DOCA DMA does after a failed task (sample
 * pe_task_error): the rest is flushed, IDLE follows in the same progress call.
 */
static void fail_ctx_on_error(struct fake_ctx *fc, struct fake_task *task)
{
	if (doca_task_get_status(&task->base) == DOCA_ERROR_DRIVER)
		ferry_ctx_fail(&fc->ctx, DOCA_ERROR_IO_FAILED);
	doca_task_free(&task->base);
}

static void test_task_error_fails_context(void **state)
{
	struct fixture *f = *state;
	struct fake_task *t[4];
	enum doca_ctx_states st;

	start(f);
	f->fc->on_complete = fail_ctx_on_error;
	for (int i = 0; i < 4; i++) {
		t[i] = fake_alloc(f->fc);
		t[i]->result = i == 1 ? DOCA_ERROR_DRIVER : DOCA_SUCCESS;
		assert_int_equal(doca_task_submit(&t[i]->base), DOCA_SUCCESS);
	}
	assert_int_equal(doca_pe_progress(f->pe), 1);
	assert_int_equal(f->fc->successes, 1);
	assert_int_equal(f->fc->errors, 3); /* the failed one and the two flushed after it */
	assert_int_equal(f->fc->last_status, DOCA_ERROR_IO_FAILED);
	assert_int_equal(doca_ctx_get_state(&f->fc->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(transitions[num_transitions - 2][1], DOCA_CTX_STATE_STOPPING);
	assert_int_equal(transitions[num_transitions - 1][1], DOCA_CTX_STATE_IDLE);
	assert_int_equal(f->fc->stopped, 1);
	assert_int_equal(f->fc->pool.num_free, 4);
	assert_int_equal(doca_ctx_stop(&f->fc->ctx), DOCA_SUCCESS); /* the sample's cleanup */
}

/* ---- tasks freed in flight ---- */

#define ORPHAN_LINE "is in flight; it returns to its pool when it completes, without a callback"
#define ORPHAN_N    64u

static struct fake_ctx *orphan_ctx(struct fixture *f, uint32_t num_tasks)
{
	struct fake_ctx *fc = fake_create(num_tasks);

	assert_int_equal(doca_pe_connect_ctx(f->pe, &fc->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(&fc->ctx), DOCA_SUCCESS);
	return fc;
}

static void submit_n(struct fake_ctx *fc, struct fake_task **tasks, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		tasks[i] = fake_alloc(fc);
		tasks[i]->result = DOCA_SUCCESS;
		assert_int_equal(doca_task_submit(&tasks[i]->base), DOCA_SUCCESS);
	}
}

static size_t inflight_of(struct fake_ctx *fc)
{
	size_t n = 99;

	assert_int_equal(doca_ctx_get_num_inflight_tasks(&fc->ctx, &n), DOCA_SUCCESS);
	return n;
}

/*
 * The teardown some programs do: free every submitted task, then stop. The
 * stop reaches IDLE, no callback runs, one line says so, and the pool is whole
 * for the next start.
 */
static void test_free_in_flight_then_stop(void **state)
{
	struct fixture *f = *state;
	struct fake_ctx *fc = orphan_ctx(f, ORPHAN_N);
	struct fake_task *tasks[ORPHAN_N];

	submit_n(fc, tasks, ORPHAN_N);
	ferry_test_log_reset();
	for (uint32_t i = 0; i < ORPHAN_N; i++)
		doca_task_free(&tasks[i]->base);
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);
	assert_logged("doca_task_free: fake task");
	assert_logged("of context 'fake'");
	assert_logged("further such frees on this context are not logged");
	/* Still the context's until it completes, and counted in flight. */
	assert_int_equal(inflight_of(fc), ORPHAN_N);
	assert_int_equal(fc->pool.num_free, 0);
	/* A second free is a free of a free task; submitting it is refused the same way. */
	doca_task_free(&tasks[0]->base);
	assert_logged("doca_task_free: fake task");
	assert_logged("is already free");
	assert_int_equal(doca_task_submit(&tasks[1]->base), DOCA_ERROR_BAD_STATE);
	assert_logged("is free; only an allocated, idle task can be submitted");
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);

	assert_int_equal(doca_ctx_stop(&fc->ctx), DOCA_ERROR_IN_PROGRESS);
	ferry_test_stop_idle(f->pe, &fc->ctx);
	assert_int_equal(fc->successes + fc->errors, 0);
	assert_int_equal(fc->stopped, 1);
	assert_int_equal(inflight_of(fc), 0);
	assert_int_equal(fc->pool.num_free, ORPHAN_N);
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);

	/* Every task is back: a restart hands out all of them, and they complete normally. */
	assert_int_equal(doca_ctx_start(&fc->ctx), DOCA_SUCCESS);
	submit_n(fc, tasks, ORPHAN_N);
	FERRY_PROGRESS_UNTIL(f->pe, fc->successes == ORPHAN_N, FERRY_TEST_WAIT_MS);
	assert_int_equal(fc->successes, ORPHAN_N);
	assert_int_equal(fc->errors, 0);
	/* Once per context: the next orphan of this one is silent, another context says it once. */
	assert_int_equal(doca_task_submit(&tasks[0]->base), DOCA_SUCCESS);
	doca_task_free(&tasks[0]->base);
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);
	{
		struct fake_ctx *fc2 = orphan_ctx(f, 2);
		struct fake_task *o[2];

		submit_n(fc2, o, 2);
		doca_task_free(&o[0]->base);
		doca_task_free(&o[1]->base);
		assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 2);
		ferry_test_stop_idle(f->pe, &fc2->ctx);
		assert_int_equal(fc2->successes + fc2->errors, 0);
		fake_destroy(fc2);
	}
	for (uint32_t i = 1; i < ORPHAN_N; i++)
		doca_task_free(&tasks[i]->base);
	ferry_test_stop_idle(f->pe, &fc->ctx);
	assert_int_equal(fc->successes, ORPHAN_N);
	assert_int_equal(fc->pool.num_free, ORPHAN_N);
	fake_destroy(fc);
}

/* A task freed in flight from another task's callback, in the same progress pass. */
static void free_next_in_flight(struct fake_ctx *fc, struct fake_task *task)
{
	(void)fc;
	if (task->base.user_data.ptr != NULL) {
		doca_task_free(task->base.user_data.ptr);
		task->base.user_data.ptr = NULL;
	}
	doca_task_free(&task->base);
}

/* While RUNNING: an orphan completes into its pool, the others' callbacks run, the context runs on. */
static void test_free_in_flight_while_running(void **state)
{
	struct fixture *f = *state;
	struct fake_task *t[4];
	union doca_data next;

	start(f);
	submit_n(f->fc, t, 4);
	doca_task_free(&t[1]->base);
	/* t[0]'s callback frees t[3], which is later in the same pass. */
	next.ptr = &t[3]->base;
	doca_task_set_user_data(&t[0]->base, next);
	f->fc->on_complete = free_next_in_flight;
	assert_int_equal(doca_pe_progress(f->pe), 1);
	assert_int_equal(f->fc->successes, 2); /* t[0], t[2] */
	assert_int_equal(f->fc->errors, 0);
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);
	assert_int_equal(inflight_of(f->fc), 0);
	assert_int_equal(f->fc->pool.num_free, 4);
	assert_int_equal(ferry_test_ctx_state(&f->fc->ctx), DOCA_CTX_STATE_RUNNING);
	/* The orphans are ordinary free tasks again. */
	for (int i = 0; i < 4; i++)
		t[i] = fake_alloc(f->fc);
	for (int i = 0; i < 4; i++)
		doca_task_free(&t[i]->base);
}

/* ---- notification handle ---- */

static int wait_readable(int fd, int timeout_ms)
{
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN}, out;
	int n;

	assert_true(ep >= 0);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	n = epoll_wait(ep, &out, 1, timeout_ms);
	close(ep);
	return n;
}

static void test_notification_pending_work(void **state)
{
	struct fixture *f = *state;
	doca_notification_handle_t h;
	struct fake_task *t;

	start(f);
	assert_int_equal(doca_pe_get_notification_handle(f->pe, &h), DOCA_SUCCESS);
	assert_true(h >= 0);
	assert_int_equal(doca_pe_request_notification(f->pe), DOCA_SUCCESS);
	assert_int_equal(wait_readable(h, 0), 0); /* nothing pending */
	assert_int_equal(doca_pe_clear_notification(f->pe, h), DOCA_SUCCESS);

	t = fake_alloc(f->fc);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	assert_int_equal(doca_pe_request_notification(f->pe), DOCA_SUCCESS);
	assert_int_equal(wait_readable(h, 1000), 1); /* work pending: readable at once */
	assert_int_equal(doca_pe_clear_notification(f->pe, h), DOCA_SUCCESS);
	assert_int_equal(wait_readable(h, 0), 0);
	assert_int_equal(doca_pe_progress(f->pe), 1);
	/* DOCA programs pass any value as the handle (its pe_event sample passes 0). */
	assert_int_equal(doca_pe_request_notification(f->pe), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	assert_int_equal(doca_pe_request_notification(f->pe), DOCA_SUCCESS);
	assert_int_equal(wait_readable(h, 1000), 1);
	assert_int_equal(doca_pe_clear_notification(f->pe, 0), DOCA_SUCCESS);
	assert_int_equal(wait_readable(h, 0), 0);
	assert_int_equal(doca_pe_progress(f->pe), 1);
	doca_task_free(&t->base);
}

static void *wake_later(void *arg)
{
	usleep(20000);
	ferry_pe_wake(arg);
	return NULL;
}

static void test_notification_wake_from_thread(void **state)
{
	struct fixture *f = *state;
	doca_notification_handle_t h;
	pthread_t thread;

	start(f);
	assert_int_equal(doca_pe_get_notification_handle(f->pe, &h), DOCA_SUCCESS);
	ferry_pe_wake(f->pe); /* not armed: no effect */
	assert_int_equal(wait_readable(h, 0), 0);
	assert_int_equal(doca_pe_request_notification(f->pe), DOCA_SUCCESS);
	assert_int_equal(pthread_create(&thread, NULL, wake_later, f->pe), 0);
	assert_int_equal(wait_readable(h, 5000), 1);
	pthread_join(thread, NULL);
	assert_int_equal(doca_pe_clear_notification(f->pe, h), DOCA_SUCCESS);
	assert_int_equal(wait_readable(h, 0), 0);
}

static void test_event_mode_accepted(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(doca_pe_set_event_mode(f->pe, DOCA_PE_EVENT_MODE_PROGRESS_ALL), DOCA_SUCCESS);
	assert_int_equal(doca_pe_set_event_mode(f->pe, DOCA_PE_EVENT_MODE_PROGRESS_SELECTIVE), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_start_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_start_stays_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_before_start_and_exhaustion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_completion_only_from_progress, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_ex_defers_doorbell, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callback_resubmits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_progress_not_reentrant, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_stop_transitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_async_stop_flushes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_from_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_never_started, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_last_task_from_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_from_idle_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_other_context_from_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_error_fails_context, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_in_flight_then_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_in_flight_while_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notification_pending_work, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notification_wake_from_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_mode_accepted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
