/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_graph.c - doca_graph driven through a test context type whose tasks
 * wait in a FIFO until progress (or until the test releases them). Invalid
 * input first, then the building rules, then runs: chains, diamonds,
 * sub-graphs, failures, busy contexts, resubmission, many instances.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <doca_ctx.h>
#include <doca_graph.h>
#include <doca_pe.h>

#include "core/ferry_ctx.h"
#include "ferry_test.h"
#include "ferry_test_ctx.h"
#include "ferry_test_wait.h"

/* ---- the test context type ---- */

struct tc_task {
	struct doca_task base;
	doca_error_t result; /* what progress completes it with */
	bool hold;           /* stays in flight until the test clears it */
	int tag;             /* written to the run log when it completes */
};

struct tc_ctx {
	struct doca_ctx ctx;
	struct ferry_task_pool pool;
	struct ferry_task_list queue; /* submitted, not yet completed */
	bool stopping;
	unsigned busy;      /* submits to refuse with AGAIN */
	unsigned callbacks; /* the type's own completion callback ran */
	unsigned submits;
};

/* What ran, in order: a task's or a user node's tag. */
static int run_log[256];
static unsigned run_len;

static void log_run(int tag)
{
	if (run_len < sizeof(run_log) / sizeof(run_log[0]))
		run_log[run_len] = tag;
	run_len++;
}

/* Index of @p tag in the run log, or -1. */
static int run_pos(int tag)
{
	for (unsigned i = 0; i < run_len && i < sizeof(run_log) / sizeof(run_log[0]); i++)
		if (run_log[i] == tag)
			return (int)i;
	return -1;
}

static struct tc_ctx *tc_of(struct doca_ctx *ctx)
{
	return (struct tc_ctx *)ctx;
}

static void tc_complete(struct doca_task *task, union doca_data task_ud, union doca_data ctx_ud, bool success)
{
	(void)task;
	(void)task_ud;
	(void)success;
	tc_of(ctx_ud.ptr)->callbacks++;
}

static doca_error_t tc_start(struct doca_ctx *ctx)
{
	tc_of(ctx)->stopping = false;
	return DOCA_SUCCESS;
}

static void tc_stop(struct doca_ctx *ctx)
{
	tc_of(ctx)->stopping = true;
}

static doca_error_t tc_submit(struct doca_task *task)
{
	struct tc_ctx *tc = tc_of(task->ctx);

	if (tc->busy > 0) {
		tc->busy--;
		return DOCA_ERROR_AGAIN;
	}
	tc->submits++;
	ferry_task_list_push(&tc->queue, task);
	return DOCA_SUCCESS;
}

static uint32_t tc_progress(struct doca_ctx *ctx)
{
	struct tc_ctx *tc = tc_of(ctx);
	struct ferry_task_list list = tc->queue;
	struct doca_task *task;
	uint32_t n = 0;

	/* Detach first: completions may submit onto the queue. */
	tc->queue.head = tc->queue.tail = NULL;
	while ((task = ferry_task_list_pop(&list)) != NULL) {
		struct tc_task *t = (struct tc_task *)task;

		if (t->hold && !tc->stopping) {
			ferry_task_list_push(&tc->queue, task);
			continue;
		}
		log_run(t->tag);
		ferry_task_complete(task, tc->stopping ? DOCA_ERROR_IO_FAILED : t->result);
		n++;
	}
	return n;
}

static bool tc_has_pending(struct doca_ctx *ctx)
{
	return tc_of(ctx)->queue.head != NULL;
}

static const struct ferry_ctx_ops tc_ops = {
	.start = tc_start,
	.stop = tc_stop,
	.submit = tc_submit,
	.progress = tc_progress,
	.has_pending = tc_has_pending,
};

static struct tc_ctx *tc_create(struct doca_pe *pe, uint32_t num_tasks)
{
	struct tc_ctx *tc = calloc(1, sizeof(*tc));
	union doca_data ud = {.ptr = tc};

	assert_non_null(tc);
	ferry_ctx_init(&tc->ctx, &tc_ops, "tc", NULL);
	ferry_ctx_add_pool(&tc->ctx, &tc->pool, "tc", sizeof(struct tc_task), tc_complete);
	assert_int_equal(ferry_task_pool_configure(&tc->pool, num_tasks, "tc_set_conf"), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_user_data(&tc->ctx, ud), DOCA_SUCCESS);
	if (pe != NULL) {
		assert_int_equal(doca_pe_connect_ctx(pe, &tc->ctx), DOCA_SUCCESS);
		assert_int_equal(doca_ctx_start(&tc->ctx), DOCA_SUCCESS);
	}
	return tc;
}

static void tc_destroy(struct doca_pe *pe, struct tc_ctx *tc)
{
	if (pe != NULL)
		ferry_test_stop_idle(pe, &tc->ctx);
	assert_int_equal(ferry_ctx_check_destroyable(&tc->ctx, "tc_destroy"), DOCA_SUCCESS);
	ferry_ctx_fini(&tc->ctx);
	free(tc);
}

static struct tc_task *tc_alloc(struct tc_ctx *tc, int tag)
{
	struct doca_task *task = NULL;

	assert_int_equal(ferry_task_pool_get(&tc->pool, "tc_alloc", &task), DOCA_SUCCESS);
	((struct tc_task *)task)->tag = tag;
	return (struct tc_task *)task;
}

/* ---- user nodes and graph callbacks ---- */

struct user_cookie {
	int tag;
	doca_error_t result;
	unsigned calls;
};

static doca_error_t user_cb(void *cookie)
{
	struct user_cookie *c = cookie;

	c->calls++;
	log_run(c->tag);
	return c->result;
}

struct graph_counts {
	unsigned done, failed;
	struct doca_graph_instance *last;
	union doca_data last_ud;
	/* resubmit from the callback while > 0 */
	unsigned resubmit;
};

static void on_graph_done(struct doca_graph_instance *inst, union doca_data inst_ud, union doca_data graph_ud)
{
	struct graph_counts *c = graph_ud.ptr;

	c->done++;
	c->last = inst;
	c->last_ud = inst_ud;
	if (c->resubmit > 0) {
		c->resubmit--;
		assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	}
}

static void on_graph_error(struct doca_graph_instance *inst, union doca_data inst_ud, union doca_data graph_ud)
{
	struct graph_counts *c = graph_ud.ptr;

	c->failed++;
	c->last = inst;
	c->last_ud = inst_ud;
}

/* Callbacks of a sub-graph: a sub-instance run by a node must not reach them. */
static unsigned sub_callbacks;

static void on_sub_cb(struct doca_graph_instance *inst, union doca_data inst_ud, union doca_data graph_ud)
{
	(void)inst;
	(void)inst_ud;
	(void)graph_ud;
	sub_callbacks++;
}

/* ---- fixture ---- */

struct fixture {
	struct doca_pe *pe;
	struct tc_ctx *tc;
	struct doca_graph *graph;
	struct graph_counts counts;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	union doca_data ud = {.ptr = &f->counts};

	ferry_test_log_reset();
	run_len = 0;
	sub_callbacks = 0;
	assert_int_equal(doca_pe_create(&f->pe), DOCA_SUCCESS);
	f->tc = tc_create(f->pe, 256);
	assert_int_equal(doca_graph_create(f->pe, &f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_set_user_data(f->graph, ud), DOCA_SUCCESS);
	assert_int_equal(doca_graph_set_conf(f->graph, on_graph_done, on_graph_error, 64), DOCA_SUCCESS);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->graph != NULL) {
		assert_int_equal(doca_graph_stop(f->graph), DOCA_SUCCESS);
		assert_int_equal(doca_graph_destroy(f->graph), DOCA_SUCCESS);
	}
	tc_destroy(f->pe, f->tc);
	assert_int_equal(doca_pe_destroy(f->pe), DOCA_SUCCESS);
	free(f);
	return 0;
}

/* Progress until @p n instances finished (done + failed), within the wait deadline. */
static void progress_until_finished(struct fixture *f, unsigned n)
{
	FERRY_PROGRESS_UNTIL(f->pe, f->counts.done + f->counts.failed >= n, FERRY_TEST_WAIT_MS);
	assert_int_equal(f->counts.done + f->counts.failed, n);
}

/* ---- invalid input ---- */

static void test_null_arguments(void **state)
{
	struct fixture *f = *state;
	struct doca_graph *g = NULL;
	struct doca_graph_node *node = NULL;
	struct doca_graph_instance *inst = NULL;
	union doca_data ud = {.u64 = 0};
	struct tc_task *t = tc_alloc(f->tc, 1);

	assert_int_equal(doca_graph_create(NULL, &g), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_create(f->pe, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_set_conf(NULL, on_graph_done, on_graph_error, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_set_conf(f->graph, NULL, on_graph_error, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_set_conf(f->graph, on_graph_done, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_set_conf(f->graph, on_graph_done, on_graph_error, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_get_user_data(f->graph, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_ctx(NULL, &f->tc->ctx, &node), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, NULL, &node), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, NULL, &node), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_user(NULL, user_cb, &node), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_graph(f->graph, NULL, &node), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_node_create_from_graph(NULL, f->graph, &node), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_add_dependency(f->graph, NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_create(NULL, &inst), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_create(f->graph, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_get_user_data(NULL, &ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(NULL, node, &t->base), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_set_user_node_data(NULL, node, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_set_sub_graph_node_data(NULL, node, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_instance_submit(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_true(ferry_test_log_has("doca_graph_create: pe is NULL"));
	doca_task_free(&t->base);
}

/* ---- building rules ---- */

static void test_build_rules(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *a, *b, *c, *u, *x;
	struct doca_graph *other;
	struct doca_pe *pe2;
	struct tc_ctx *tc2;
	struct doca_graph_instance *inst;
	union doca_data ud = {.u64 = 7};

	/* Empty, then only user nodes: no context node. */
	assert_int_equal(doca_graph_start(f->graph), DOCA_ERROR_BAD_STATE);
	assert_true(ferry_test_log_has("no nodes"));
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_ERROR_BAD_STATE);
	assert_true(ferry_test_log_has("only user nodes"));

	/* A context of another PE is refused; a context not running fails the start. */
	assert_int_equal(doca_pe_create(&pe2), DOCA_SUCCESS);
	tc2 = tc_create(NULL, 4);
	assert_int_equal(doca_pe_connect_ctx(pe2, &tc2->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &tc2->ctx, &x), DOCA_ERROR_NOT_PERMITTED);

	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &b), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &c), DOCA_SUCCESS);

	/* Cycles: self, two, three nodes. */
	assert_int_equal(doca_graph_add_dependency(f->graph, a, a), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, b), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, b), DOCA_SUCCESS); /* again: nothing new */
	assert_int_equal(doca_graph_add_dependency(f->graph, b, a), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_add_dependency(f->graph, b, c), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, c, a), DOCA_ERROR_NOT_PERMITTED);
	assert_true(ferry_test_log_has("would close a cycle"));
	assert_int_equal(doca_graph_add_dependency(f->graph, c, u), DOCA_SUCCESS);

	/* A node of another graph. */
	assert_int_equal(doca_graph_create(f->pe, &other), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(other, user_cb, &x), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, x), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_add_dependency(other, x, a), DOCA_ERROR_NOT_PERMITTED);

	/* Not started yet: no instance. */
	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_ERROR_BAD_STATE);

	/* The context stopped: start refuses; running again: start succeeds, twice. */
	ferry_test_stop_idle(f->pe, &f->tc->ctx);
	assert_int_equal(doca_graph_start(f->graph), DOCA_ERROR_BAD_STATE);
	assert_true(ferry_test_log_has("start contexts before the graph"));
	assert_int_equal(doca_ctx_start(&f->tc->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);

	/* Started: the shape and the configuration are fixed. */
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &x), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &x), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, c), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_set_user_data(f->graph, ud), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_set_conf(f->graph, on_graph_done, on_graph_error, 1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_destroy(f->graph), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_get_user_data(f->graph, &ud), DOCA_SUCCESS);
	assert_ptr_equal(ud.ptr, &f->counts);

	/* Instances: while one exists the graph cannot stop. */
	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(f->graph), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(f->graph), DOCA_SUCCESS);

	/* The instance cap of set_conf. */
	assert_int_equal(doca_graph_set_conf(f->graph, on_graph_done, on_graph_error, 2), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	{
		struct doca_graph_instance *i1, *i2, *i3;

		assert_int_equal(doca_graph_instance_create(f->graph, &i1), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_create(f->graph, &i2), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_create(f->graph, &i3), DOCA_ERROR_NO_MEMORY);
		assert_int_equal(doca_graph_instance_destroy(i1), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_create(f->graph, &i3), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_destroy(i2), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_destroy(i3), DOCA_SUCCESS);
	}

	/* A graph is connected to its PE: the PE cannot go first. */
	assert_int_equal(doca_graph_destroy(other), DOCA_SUCCESS);
	tc_destroy(pe2, tc2);
	assert_int_equal(doca_pe_destroy(pe2), DOCA_SUCCESS);
}

/* ---- instance rules ---- */

static void test_instance_rules(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *a, *u;
	struct doca_graph_instance *inst;
	struct doca_graph *other;
	struct doca_graph_node *onode;
	struct tc_ctx *tc2 = tc_create(f->pe, 4);
	struct tc_task *t = tc_alloc(f->tc, 1), *t2 = tc_alloc(tc2, 2);
	struct user_cookie cookie = {.tag = 10};
	union doca_data ud = {.u64 = 99};

	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_create(f->pe, &other), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(other, user_cb, &onode), DOCA_SUCCESS);

	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	/* Nothing set: submit names the node. */
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_ERROR_BAD_STATE);
	assert_true(ferry_test_log_has("has no task"));
	/* Wrong kind, wrong graph, task of another context. */
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, u, &t->base), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, a, &cookie), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_set_sub_graph_node_data(inst, u, inst), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, onode, &cookie), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &t2->base), DOCA_ERROR_NOT_PERMITTED);

	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &t->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, u, &cookie), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_data(inst, ud), DOCA_SUCCESS);

	/* A task already in flight cannot run in the graph. */
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_ERROR_BAD_STATE);
	assert_true(ferry_test_log_has("in flight"));
	FERRY_PROGRESS_UNTIL(f->pe, f->tc->callbacks == 1, FERRY_TEST_WAIT_MS);
	assert_int_equal(f->tc->callbacks, 1);

	/* Submitted: no change, no second submit, no destroy. */
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	assert_int_equal(f->counts.done, 0); /* never from inside submit */
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_graph_instance_set_user_data(inst, ud), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &t->base), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, u, &cookie), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_stop(f->graph), DOCA_ERROR_IN_USE);
	/* The user cannot submit the graph's task behind its back. */
	assert_int_equal(doca_task_submit(&t->base), DOCA_ERROR_BAD_STATE);

	progress_until_finished(f, 1);
	assert_int_equal(f->counts.done, 1);
	assert_ptr_equal(f->counts.last, inst);
	assert_int_equal(f->counts.last_ud.u64, 99);
	assert_int_equal(cookie.calls, 1);
	/* The task's own callback did not run inside the graph (the 1 is from the direct submit). */
	assert_int_equal(f->tc->callbacks, 1);
	assert_int_equal(doca_task_get_status(&t->base), DOCA_SUCCESS);
	ud.u64 = 0;
	assert_int_equal(doca_graph_instance_get_user_data(inst, &ud), DOCA_SUCCESS);
	assert_int_equal(ud.u64, 99);

	/* After the graph ran it, the task is the program's again. */
	assert_int_equal(doca_task_submit(&t->base), DOCA_SUCCESS);
	FERRY_PROGRESS_UNTIL(f->pe, f->tc->callbacks == 2, FERRY_TEST_WAIT_MS);
	assert_int_equal(f->tc->callbacks, 2);

	doca_task_free(&t2->base);
	ferry_test_stop_idle(f->pe, &tc2->ctx);
	tc_destroy(NULL, tc2);
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	doca_task_free(&t->base);
	assert_int_equal(doca_graph_destroy(other), DOCA_SUCCESS);
}

/* ---- runs ---- */

/* a(ctx) -> u(user) -> b(ctx): order, one callback, nothing inline. */
static void test_chain(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *a, *u, *b;
	struct doca_graph_instance *inst;
	struct tc_task *ta = tc_alloc(f->tc, 1), *tb = tc_alloc(f->tc, 3);
	struct user_cookie cookie = {.tag = 2};

	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &b), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, u, b), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &ta->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, b, &tb->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, u, &cookie), DOCA_SUCCESS);

	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	assert_int_equal(f->tc->submits, 1); /* only the root */
	assert_int_equal(run_len, 0);
	progress_until_finished(f, 1);
	assert_int_equal(f->counts.done, 1);
	assert_int_equal(run_len, 3);
	assert_int_equal(run_log[0], 1);
	assert_int_equal(run_log[1], 2);
	assert_int_equal(run_log[2], 3);
	assert_int_equal(f->tc->callbacks, 0);

	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	doca_task_free(&ta->base);
	doca_task_free(&tb->base);
}

/*
 * A diamond of diamonds: r -> (p, q) -> m -> (s, t) -> z, mixed kinds; each
 * node runs once and after all its parents.
 */
static void test_diamond(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *r, *p, *q, *m, *s, *t, *z;
	struct doca_graph_instance *inst;
	struct tc_task *tr = tc_alloc(f->tc, 1), *tq = tc_alloc(f->tc, 3), *ts = tc_alloc(f->tc, 5),
		       *tt = tc_alloc(f->tc, 6);
	struct user_cookie cp = {.tag = 2}, cm = {.tag = 4}, cz = {.tag = 7};

	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &r), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &p), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &q), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &m), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &s), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &t), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &z), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, r, p), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, r, q), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, p, m), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, q, m), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, m, s), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, m, t), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, s, z), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, t, z), DOCA_SUCCESS);
	/* Closing the big loop is refused. */
	assert_int_equal(doca_graph_add_dependency(f->graph, z, r), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, r, &tr->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, q, &tq->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, s, &ts->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, t, &tt->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, p, &cp), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, m, &cm), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, z, &cz), DOCA_SUCCESS);

	/* Slow down q so that m waits for it after p. */
	tq->hold = true;
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	for (int i = 0; i < 20; i++)
		(void)doca_pe_progress(f->pe);
	assert_int_equal(cp.calls, 1);
	assert_int_equal(cm.calls, 0);
	tq->hold = false;
	progress_until_finished(f, 1);
	assert_int_equal(f->counts.done, 1);
	assert_int_equal(run_len, 7);
	for (int tag = 1; tag <= 7; tag++)
		assert_true(run_pos(tag) >= 0);
	assert_true(run_pos(1) < run_pos(2) && run_pos(1) < run_pos(3));
	assert_true(run_pos(2) < run_pos(4) && run_pos(3) < run_pos(4));
	assert_true(run_pos(4) < run_pos(5) && run_pos(4) < run_pos(6));
	assert_true(run_pos(5) < run_pos(7) && run_pos(6) < run_pos(7));
	assert_int_equal(cz.calls, 1);

	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	doca_task_free(&tr->base);
	doca_task_free(&tq->base);
	doca_task_free(&ts->base);
	doca_task_free(&tt->base);
}

/* A user node that fails: its children never run; the error callback; a fixed resubmit succeeds. */
static void test_user_node_fails(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *a, *u, *b;
	struct doca_graph_instance *inst;
	struct tc_task *ta = tc_alloc(f->tc, 1), *tb = tc_alloc(f->tc, 3);
	struct user_cookie cookie = {.tag = 2, .result = DOCA_ERROR_BAD_STATE};

	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &b), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, u, b), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &ta->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, b, &tb->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, u, &cookie), DOCA_SUCCESS);

	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	progress_until_finished(f, 1);
	assert_int_equal(f->counts.failed, 1);
	assert_int_equal(f->counts.done, 0);
	assert_int_equal(run_pos(3), -1);
	assert_int_equal(f->tc->submits, 1);

	/* Resubmit after the fix. */
	cookie.result = DOCA_SUCCESS;
	run_len = 0;
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	progress_until_finished(f, 2);
	assert_int_equal(f->counts.done, 1);
	assert_int_equal(run_len, 3);

	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	doca_task_free(&ta->base);
	doca_task_free(&tb->base);
}

/*
 * Roots a (fails) and b (held in flight); c depends on both. The failure
 * waits for b to finish, c never runs, the error callback runs once, and
 * the failed task reports its status.
 */
static void test_task_fails_inflight_finish(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *a, *b, *c;
	struct doca_graph_instance *inst;
	struct tc_task *ta = tc_alloc(f->tc, 1), *tb = tc_alloc(f->tc, 2), *tc = tc_alloc(f->tc, 3);

	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &b), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &c), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, c), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, b, c), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &ta->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, b, &tb->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, c, &tc->base), DOCA_SUCCESS);

	ta->result = DOCA_ERROR_IO_FAILED;
	tb->hold = true;
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	for (int i = 0; i < 20; i++)
		(void)doca_pe_progress(f->pe);
	assert_int_equal(f->counts.failed, 0); /* b still runs */
	assert_int_equal(doca_task_get_status(&ta->base), DOCA_ERROR_IO_FAILED);
	tb->hold = false;
	progress_until_finished(f, 1);
	assert_int_equal(f->counts.failed, 1);
	assert_int_equal(run_pos(3), -1);
	assert_int_equal(f->tc->submits, 2);
	assert_int_equal(f->tc->callbacks, 0);

	/* Resubmitted with the cause gone: all three run. */
	ta->result = DOCA_SUCCESS;
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	progress_until_finished(f, 2);
	assert_int_equal(f->counts.done, 1);
	assert_true(run_pos(3) >= 0);

	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	doca_task_free(&ta->base);
	doca_task_free(&tb->base);
	doca_task_free(&tc->base);
}

/* A context stopped under a running instance flushes its task: the instance fails. */
static void test_ctx_stop_fails_instance(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *a, *u;
	struct doca_graph_instance *inst;
	struct tc_task *ta = tc_alloc(f->tc, 1);
	struct user_cookie cookie = {.tag = 2};

	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &ta->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, u, &cookie), DOCA_SUCCESS);
	ta->hold = true;
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(&f->tc->ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until_finished(f, 1);
	assert_int_equal(f->counts.failed, 1);
	assert_int_equal(cookie.calls, 0);
	assert_int_equal(doca_task_get_status(&ta->base), DOCA_ERROR_IO_FAILED);

	/* The context is STOPPING while the program holds the task: submit refuses. */
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_ERROR_BAD_STATE);
	assert_true(ferry_test_log_has("tasks need RUNNING"));
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	doca_task_free(&ta->base);
	ferry_test_stop_idle(f->pe, &f->tc->ctx);
	assert_int_equal(doca_ctx_start(&f->tc->ctx), DOCA_SUCCESS);
}

/* A busy context (AGAIN) delays a node; the instance still succeeds. */
static void test_busy_context_delays(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *u, *a;
	struct doca_graph_instance *inst;
	struct tc_task *ta = tc_alloc(f->tc, 1);
	struct user_cookie cookie = {.tag = 2};

	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, u, a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &ta->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, u, &cookie), DOCA_SUCCESS);

	f->tc->busy = 5;
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	progress_until_finished(f, 1);
	assert_int_equal(f->counts.done, 1);
	assert_int_equal(f->tc->busy, 0);
	assert_int_equal(f->tc->submits, 1);
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(f->graph), DOCA_SUCCESS);
	doca_task_free(&ta->base);
}

/* Parent p(user) -> S(sub: x(ctx) -> y(user)) -> q(user). */
static void test_sub_graph(void **state)
{
	struct fixture *f = *state;
	struct doca_graph *sub, *lone;
	struct doca_graph_node *x, *y, *p, *s, *q, *n;
	struct doca_graph_instance *inst, *sinst, *sinst2, *linst;
	struct tc_task *tx = tc_alloc(f->tc, 2);
	struct user_cookie cp = {.tag = 1}, cy = {.tag = 3}, cq = {.tag = 4};
	struct doca_pe *pe2;

	assert_int_equal(doca_graph_create(f->pe, &sub), DOCA_SUCCESS);
	assert_int_equal(doca_graph_set_conf(sub, on_sub_cb, on_sub_cb, 4), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(sub, &f->tc->ctx, &x), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(sub, user_cb, &y), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(sub, x, y), DOCA_SUCCESS);

	/* Rules: not started, itself, another PE, a cycle through sub-graphs. */
	assert_int_equal(doca_graph_node_create_from_graph(f->graph, sub, &s), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_start(sub), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_graph(sub, sub, &s), DOCA_ERROR_BAD_STATE); /* started */
	assert_int_equal(doca_graph_node_create_from_graph(f->graph, f->graph, &s), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_pe_create(&pe2), DOCA_SUCCESS);
	assert_int_equal(doca_graph_create(pe2, &lone), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_graph(lone, sub, &n), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_destroy(lone), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(pe2), DOCA_SUCCESS);

	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &p), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_graph(f->graph, sub, &s), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &q), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, p, s), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, s, q), DOCA_SUCCESS);
	/* Only user nodes and a sub-graph: the sub-graph's context node counts. */
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	/* A sub-graph in use cannot go. */
	assert_int_equal(doca_graph_stop(sub), DOCA_SUCCESS);
	assert_int_equal(doca_graph_destroy(sub), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_graph_start(sub), DOCA_SUCCESS);

	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(sub, &sinst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(sub, &sinst2), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(sinst, x, &tx->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(sinst, y, &cy), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, p, &cp), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, q, &cq), DOCA_SUCCESS);
	/* Missing sub-instance; an instance of the wrong graph. */
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_ERROR_BAD_STATE);
	assert_true(ferry_test_log_has("has no instance"));
	assert_int_equal(doca_graph_instance_create(f->graph, &linst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_sub_graph_node_data(inst, s, linst), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_destroy(linst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_sub_graph_node_data(inst, s, sinst), DOCA_SUCCESS);
	/* Given to a node already: no second node may take it. */
	assert_int_equal(doca_graph_instance_create(f->graph, &linst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_sub_graph_node_data(linst, s, sinst), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_destroy(linst), DOCA_SUCCESS);
	/* A sub-instance whose task is not set fails submit with a line. */
	assert_int_equal(doca_graph_instance_set_sub_graph_node_data(inst, s, sinst2), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_instance_set_sub_graph_node_data(inst, s, sinst), DOCA_SUCCESS);

	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(sub), DOCA_ERROR_IN_USE);
	progress_until_finished(f, 1);
	assert_int_equal(f->counts.done, 1);
	assert_int_equal(sub_callbacks, 0);
	assert_int_equal(run_len, 4);
	for (int tag = 1; tag <= 4; tag++)
		assert_int_equal(run_log[tag - 1], tag);

	/* The sub-graph fails: the parent fails, q never runs. */
	cy.result = DOCA_ERROR_INVALID_VALUE;
	run_len = 0;
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	progress_until_finished(f, 2);
	assert_int_equal(f->counts.failed, 1);
	assert_int_equal(run_pos(4), -1);
	assert_int_equal(sub_callbacks, 0);

	/* The sub-instance on its own reports to the sub-graph's callbacks. */
	cy.result = DOCA_SUCCESS;
	assert_int_equal(doca_graph_instance_submit(sinst), DOCA_SUCCESS);
	FERRY_PROGRESS_UNTIL(f->pe, sub_callbacks == 1, FERRY_TEST_WAIT_MS);
	assert_int_equal(sub_callbacks, 1);
	assert_int_equal(f->counts.done + f->counts.failed, 2);

	/* Destroying a sub-instance unties it: the parent then lacks it. */
	assert_int_equal(doca_graph_instance_destroy(sinst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_destroy(sinst2), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_destroy(f->graph), DOCA_SUCCESS);
	f->graph = NULL;
	assert_int_equal(doca_graph_stop(sub), DOCA_SUCCESS);
	assert_int_equal(doca_graph_destroy(sub), DOCA_SUCCESS);
	doca_task_free(&tx->base);
}

/* The completion callback resubmits its instance: 10 runs back to back. */
static void test_resubmit_from_callback(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *a, *u;
	struct doca_graph_instance *inst;
	struct tc_task *ta = tc_alloc(f->tc, 1);
	struct user_cookie cookie = {.tag = 2};

	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &ta->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, u, &cookie), DOCA_SUCCESS);
	f->counts.resubmit = 9;
	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	progress_until_finished(f, 10);
	assert_int_equal(f->counts.done, 10);
	assert_int_equal(cookie.calls, 10);
	assert_int_equal(f->tc->submits, 10);
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	doca_task_free(&ta->base);
}

/* 64 instances in flight at once, two task nodes and a user join each; every 8th fails. */
#define MANY 64
static void test_many_instances(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *a, *b, *u;
	struct doca_graph_instance *inst[MANY];
	struct tc_task *ta[MANY], *tb[MANY];
	struct user_cookie cookie[MANY];
	union doca_data ud;

	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &b), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, a, u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, b, u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	for (int i = 0; i < MANY; i++) {
		ta[i] = tc_alloc(f->tc, 1000 + i);
		tb[i] = tc_alloc(f->tc, 2000 + i);
		cookie[i] = (struct user_cookie){.tag = 3000 + i};
		if (i % 8 == 0)
			tb[i]->result = DOCA_ERROR_IO_FAILED;
		assert_int_equal(doca_graph_instance_create(f->graph, &inst[i]), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_set_ctx_node_data(inst[i], a, &ta[i]->base), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_set_ctx_node_data(inst[i], b, &tb[i]->base), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_set_user_node_data(inst[i], u, &cookie[i]), DOCA_SUCCESS);
		ud.u64 = (uint64_t)i;
		assert_int_equal(doca_graph_instance_set_user_data(inst[i], ud), DOCA_SUCCESS);
	}
	for (int i = 0; i < MANY; i++)
		assert_int_equal(doca_graph_instance_submit(inst[i]), DOCA_SUCCESS);
	progress_until_finished(f, MANY);
	assert_int_equal(f->counts.failed, MANY / 8);
	assert_int_equal(f->counts.done, MANY - MANY / 8);
	for (int i = 0; i < MANY; i++)
		assert_int_equal(cookie[i].calls, i % 8 == 0 ? 0 : 1);
	assert_int_equal(f->tc->callbacks, 0);
	for (int i = 0; i < MANY; i++) {
		assert_int_equal(doca_graph_instance_destroy(inst[i]), DOCA_SUCCESS);
		doca_task_free(&ta[i]->base);
		doca_task_free(&tb[i]->base);
	}
}

/* A ready user node makes the notification handle readable (event-driven programs). */
static void test_notification(void **state)
{
	struct fixture *f = *state;
	struct doca_graph_node *u, *a;
	struct doca_graph_instance *inst;
	struct tc_task *ta = tc_alloc(f->tc, 1);
	struct user_cookie cookie = {.tag = 1};
	doca_notification_handle_t h;
	struct epoll_event ev;
	int ep = epoll_create1(0);
	struct epoll_event add = {.events = EPOLLIN};

	assert_int_equal(doca_graph_node_create_from_user(f->graph, user_cb, &u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(f->graph, &f->tc->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(f->graph, u, a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(f->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(f->graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &ta->base), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, u, &cookie), DOCA_SUCCESS);
	assert_int_equal(doca_pe_get_notification_handle(f->pe, &h), DOCA_SUCCESS);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, h, &add), 0);

	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	assert_int_equal(doca_pe_request_notification(f->pe), DOCA_SUCCESS);
	assert_int_equal(epoll_wait(ep, &ev, 1, 1000), 1);
	assert_int_equal(doca_pe_clear_notification(f->pe, h), DOCA_SUCCESS);
	progress_until_finished(f, 1);
	assert_int_equal(f->counts.done, 1);
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	doca_task_free(&ta->base);
	close(ep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_null_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_instance_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diamond, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_node_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_fails_inflight_finish, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctx_stop_fails_instance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_busy_context_delays, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sub_graph, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resubmit_from_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_instances, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notification, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
