/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_graph.c - DOCA 2.2's graph over work queues, through the 2.2 headers:
 * the graph sample's shape (two copies, then a user node that checks them,
 * ten instances at once), a failing node, sub-graphs, a work queue too small
 * for every node at once, and the refusals with their codes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_graph.h>
#include <doca_mmap.h>

#define NINST 10
#define LEN   1024

struct fixture {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_workq *wq;
	char *mem;
};

/* One run's data: a source, two destinations, the jobs and the events the nodes fill. */
struct run {
	struct fixture *f;
	char *src, *dst1, *dst2;
	struct doca_buf *src_buf, *dst1_buf, *dst2_buf;
	struct doca_dma_job_memcpy job1, job2;
	struct doca_event ev1, ev2, user_ev;
	int checked;
	doca_error_t user_result; /* what the user node answers */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct doca_devinfo **list;
	uint32_t n;

	assert_non_null(f);
	assert_int_equal(doca_devinfo_list_create(&list, &n), DOCA_SUCCESS);
	for (uint32_t i = 0; i < n && f->dev == NULL; i++)
		if (doca_dma_job_get_supported(list[i], DOCA_DMA_JOB_MEMCPY) == DOCA_SUCCESS)
			assert_int_equal(doca_dev_open(list[i], &f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_list_destroy(list), DOCA_SUCCESS);
	assert_non_null(f->dev);
	f->mem = calloc(NINST * 3, LEN);
	assert_non_null(f->mem);
	assert_int_equal(doca_mmap_create(NULL, &f->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(f->mmap, f->mem, NINST * 3 * LEN), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_dev_add(f->mmap, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(f->mmap, DOCA_ACCESS_LOCAL_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(f->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(NULL, NINST * 3, DOCA_BUF_EXTENSION_NONE, &f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_workq_create(3 * NINST, &f->wq), DOCA_SUCCESS);
	assert_int_equal(doca_workq_set_event_driven_enable(f->wq, 0), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(&f->dma), DOCA_SUCCESS);
	f->ctx = doca_dma_as_ctx(f->dma);
	assert_int_equal(doca_ctx_dev_add(f->ctx, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_add(f->ctx, f->wq), DOCA_SUCCESS);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(doca_ctx_workq_rm(f->ctx, f->wq), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_dev_rm(f->ctx, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_workq_destroy(f->wq), DOCA_SUCCESS);
	assert_int_equal(doca_dma_destroy(f->dma), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_stop(f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_stop(f->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(f->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(f->dev), DOCA_SUCCESS);
	free(f->mem);
	free(f);
	return 0;
}

/* The user node: both copies are in, whole. */
static doca_error_t check_copies(void *cookie, struct doca_event *ev)
{
	struct run *r = cookie;
	size_t len1 = 0, len2 = 0;

	(void)ev;
	assert_int_equal(doca_buf_get_data_len(r->dst1_buf, &len1), DOCA_SUCCESS);
	assert_int_equal(doca_buf_get_data_len(r->dst2_buf, &len2), DOCA_SUCCESS);
	if (len1 != LEN || len2 != LEN || memcmp(r->src, r->dst1, LEN) != 0 || memcmp(r->src, r->dst2, LEN) != 0)
		return DOCA_ERROR_UNEXPECTED;
	r->checked++;
	return r->user_result;
}

static doca_error_t never_runs(void *cookie, struct doca_event *ev)
{
	(void)cookie;
	(void)ev;
	fail_msg("a node after a failed one ran");
	return DOCA_SUCCESS;
}

static void prepare_run(struct fixture *f, struct run *r, int i)
{
	memset(r, 0, sizeof(*r));
	r->f = f;
	r->src = f->mem + (size_t)(3 * i) * LEN;
	r->dst1 = r->src + LEN;
	r->dst2 = r->src + 2 * LEN;
	memset(r->src, 'a' + i, LEN);
	memset(r->dst1, 0, 2 * LEN);
	assert_int_equal(doca_buf_inventory_buf_by_data(f->inv, f->mmap, r->src, LEN, &r->src_buf), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_by_addr(f->inv, f->mmap, r->dst1, LEN, &r->dst1_buf), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_by_addr(f->inv, f->mmap, r->dst2, LEN, &r->dst2_buf), DOCA_SUCCESS);
	r->job1.base.type = r->job2.base.type = DOCA_DMA_JOB_MEMCPY;
	r->job1.base.ctx = r->job2.base.ctx = f->ctx;
	r->job1.base.user_data.u64 = 100 + (uint64_t)i;
	r->job2.base.user_data.u64 = 200 + (uint64_t)i;
	r->job1.src_buff = r->job2.src_buff = r->src_buf;
	r->job1.dst_buff = r->dst1_buf;
	r->job2.dst_buff = r->dst2_buf;
}

static void release_run(struct run *r)
{
	assert_int_equal(doca_buf_refcount_rm(r->src_buf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_refcount_rm(r->dst1_buf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_refcount_rm(r->dst2_buf, NULL), DOCA_SUCCESS);
}

/* Retrieve one event (bounded wait); the retrieve's answer in *rc. */
static struct doca_event next_event(struct doca_workq *wq, doca_error_t *rc)
{
	struct doca_event ev = {0};

	*rc = DOCA_ERROR_AGAIN;
	for (int spins = 0; spins < 10000000 && *rc == DOCA_ERROR_AGAIN; spins++)
		*rc = doca_workq_progress_retrieve(wq, &ev, DOCA_WORKQ_RETRIEVE_FLAGS_NONE);
	return ev;
}

struct sample_graph {
	struct doca_graph *graph;
	struct doca_graph_node *copy1, *copy2, *user;
};

/* copy1 and copy2 (no order between them), then user. */
static void build_sample_graph(struct fixture *f, struct sample_graph *g, doca_graph_user_node_cb_t cb)
{
	assert_int_equal(doca_graph_create(&g->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_ctx_node_create(g->graph, DOCA_DMA_JOB_MEMCPY, f->ctx, &g->copy1), DOCA_SUCCESS);
	assert_int_equal(doca_graph_ctx_node_create(g->graph, DOCA_DMA_JOB_MEMCPY, f->ctx, &g->copy2), DOCA_SUCCESS);
	assert_int_equal(doca_graph_user_node_create(g->graph, cb, &g->user), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(g->graph, g->copy1, g->user), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(g->graph, g->copy2, g->user), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(g->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_workq_add(g->graph, f->wq), DOCA_SUCCESS);
}

static void destroy_graph(struct fixture *f, struct sample_graph *g)
{
	assert_int_equal(doca_graph_workq_rm(g->graph, f->wq), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(g->graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_destroy(g->graph), DOCA_SUCCESS);
}

static void set_data(struct sample_graph *g, struct doca_graph_instance *inst, struct run *r)
{
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, g->copy1, &r->job1.base, &r->ev1), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, g->copy2, &r->job2.base, &r->ev2), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, g->user, r, &r->user_ev), DOCA_SUCCESS);
}

/* The sample's shape: ten instances in flight, one event each, node events filled. */
static void test_sample_shape(void **state)
{
	struct fixture *f = *state;
	struct sample_graph g;
	struct doca_graph_instance *inst[NINST];
	struct run *runs = calloc(NINST, sizeof(*runs));
	int seen[NINST] = {0};

	assert_non_null(runs);
	build_sample_graph(f, &g, check_copies);
	for (int i = 0; i < NINST; i++) {
		prepare_run(f, &runs[i], i);
		assert_int_equal(doca_graph_instance_create(g.graph, &inst[i]), DOCA_SUCCESS);
		set_data(&g, inst[i], &runs[i]);
	}
	for (int i = 0; i < NINST; i++)
		assert_int_equal(doca_workq_graph_submit(f->wq, inst[i], (union doca_data){.ptr = inst[i]}),
				 DOCA_SUCCESS);
	for (int n = 0; n < NINST; n++) {
		doca_error_t rc;
		struct doca_event ev = next_event(f->wq, &rc);
		int i;

		assert_int_equal(rc, DOCA_SUCCESS);
		assert_int_equal(ev.type, DOCA_GRAPH_JOB);
		assert_int_equal(ev.result.u64, DOCA_SUCCESS);
		for (i = 0; i < NINST && inst[i] != ev.user_data.ptr; i++)
			;
		assert_true(i < NINST);
		seen[i]++;
		assert_int_equal(runs[i].checked, 1);
		assert_int_equal(runs[i].ev1.type, DOCA_DMA_JOB_MEMCPY);
		assert_int_equal(runs[i].ev1.user_data.u64, 100 + (uint64_t)i);
		assert_int_equal(runs[i].ev2.user_data.u64, 200 + (uint64_t)i);
		assert_int_equal(runs[i].ev1.result.u64, DOCA_SUCCESS);
	}
	for (int i = 0; i < NINST; i++)
		assert_int_equal(seen[i], 1);
	/* A finished instance runs again once its jobs' destinations are fresh. */
	{
		doca_error_t rc;
		struct doca_event ev;

		assert_int_equal(doca_buf_set_data(runs[0].dst1_buf, runs[0].dst1, 0), DOCA_SUCCESS);
		assert_int_equal(doca_buf_set_data(runs[0].dst2_buf, runs[0].dst2, 0), DOCA_SUCCESS);
		assert_int_equal(doca_workq_graph_submit(f->wq, inst[0], (union doca_data){.u64 = 77}), DOCA_SUCCESS);
		ev = next_event(f->wq, &rc);
		assert_int_equal(rc, DOCA_SUCCESS);
		assert_int_equal(ev.user_data.u64, 77);
		assert_int_equal(runs[0].checked, 2);
	}
	for (int i = 0; i < NINST; i++) {
		enum doca_graph_instance_node_state st;

		assert_int_equal(doca_graph_instance_node_get_state(inst[i], g.user, &st), DOCA_SUCCESS);
		assert_int_equal(st, DOCA_GRAPH_INSTANCE_NODE_STATE_COMPLETED);
		assert_int_equal(doca_graph_instance_destroy(inst[i]), DOCA_SUCCESS);
		release_run(&runs[i]);
	}
	destroy_graph(f, &g);
	free(runs);
}

/* A user node fails: nothing after it starts, the instance's event carries the error. */
static void test_failing_node(void **state)
{
	struct fixture *f = *state;
	struct sample_graph g;
	struct doca_graph_node *after;
	struct doca_graph_instance *inst;
	const struct doca_graph_node *failed[4];
	uint32_t nfailed = 4;
	enum doca_graph_instance_node_state st;
	union doca_data result;
	struct run r;
	doca_error_t rc;
	struct doca_event ev;

	assert_int_equal(doca_graph_create(&g.graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_ctx_node_create(g.graph, DOCA_DMA_JOB_MEMCPY, f->ctx, &g.copy1), DOCA_SUCCESS);
	assert_int_equal(doca_graph_ctx_node_create(g.graph, DOCA_DMA_JOB_MEMCPY, f->ctx, &g.copy2), DOCA_SUCCESS);
	assert_int_equal(doca_graph_user_node_create(g.graph, check_copies, &g.user), DOCA_SUCCESS);
	assert_int_equal(doca_graph_user_node_create(g.graph, never_runs, &after), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(g.graph, g.copy1, g.user), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(g.graph, g.copy2, g.user), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(g.graph, g.user, after), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(g.graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_workq_add(g.graph, f->wq), DOCA_SUCCESS);
	prepare_run(f, &r, 0);
	r.user_result = DOCA_ERROR_NOT_PERMITTED;
	assert_int_equal(doca_graph_instance_create(g.graph, &inst), DOCA_SUCCESS);
	set_data(&g, inst, &r);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, after, NULL, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_workq_graph_submit(f->wq, inst, (union doca_data){.u64 = 7}), DOCA_SUCCESS);
	ev = next_event(f->wq, &rc);
	assert_int_equal(rc, DOCA_ERROR_IO_FAILED);
	assert_int_equal(ev.type, DOCA_GRAPH_JOB);
	assert_int_equal(ev.user_data.u64, 7);
	assert_int_equal(ev.result.u64, DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(r.user_ev.result.u64, DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_get_failed_nodes(inst, failed, &nfailed), DOCA_SUCCESS);
	assert_int_equal(nfailed, 1);
	assert_ptr_equal(failed[0], g.user);
	assert_int_equal(doca_graph_instance_get_num_failed_nodes(inst, &nfailed), DOCA_SUCCESS);
	assert_int_equal(nfailed, 1);
	assert_int_equal(doca_graph_instance_node_get_state(inst, after, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_GRAPH_INSTANCE_NODE_STATE_NOT_STARTED);
	assert_int_equal(doca_graph_instance_node_get_result(inst, g.user, &result), DOCA_SUCCESS);
	assert_int_equal(result.u64, DOCA_ERROR_NOT_PERMITTED);

	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	release_run(&r);
	destroy_graph(f, &g);
}

static doca_error_t count_call(void *cookie, struct doca_event *ev)
{
	(void)ev;
	(*(int *)cookie)++;
	return DOCA_SUCCESS;
}

/* A sub-graph node runs its instance before the node after it; a queue of depth 2 still gets there. */
static void test_sub_graph_on_small_queue(void **state)
{
	struct fixture *f = *state;
	struct doca_workq *small;
	struct doca_graph *sub, *top;
	struct doca_graph_node *c1, *c2, *sub_user, *sub_node, *last;
	struct doca_graph_instance *sub_inst, *top_inst;
	struct run r;
	int calls = 0;
	doca_error_t rc;
	struct doca_event ev, sub_ev;

	assert_int_equal(doca_workq_create(2, &small), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_add(f->ctx, small), DOCA_SUCCESS);
	/* sub: two copies side by side, then a check */
	assert_int_equal(doca_graph_create(&sub), DOCA_SUCCESS);
	assert_int_equal(doca_graph_ctx_node_create(sub, DOCA_DMA_JOB_MEMCPY, f->ctx, &c1), DOCA_SUCCESS);
	assert_int_equal(doca_graph_ctx_node_create(sub, DOCA_DMA_JOB_MEMCPY, f->ctx, &c2), DOCA_SUCCESS);
	assert_int_equal(doca_graph_user_node_create(sub, check_copies, &sub_user), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(sub, c1, sub_user), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(sub, c2, sub_user), DOCA_SUCCESS);
	assert_int_equal(doca_graph_create(&top), DOCA_SUCCESS);
	assert_int_equal(doca_graph_sub_graph_node_create(top, sub, &sub_node), DOCA_ERROR_BAD_STATE); /* not started */
	assert_int_equal(doca_graph_start(sub), DOCA_SUCCESS);
	assert_int_equal(doca_graph_sub_graph_node_create(top, sub, &sub_node), DOCA_SUCCESS);
	assert_int_equal(doca_graph_user_node_create(top, count_call, &last), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(top, sub_node, last), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(top), DOCA_SUCCESS);
	assert_int_equal(doca_graph_workq_add(top, small), DOCA_SUCCESS);

	prepare_run(f, &r, 0);
	assert_int_equal(doca_graph_instance_create(sub, &sub_inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(sub_inst, c1, &r.job1.base, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(sub_inst, c2, &r.job2.base, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(sub_inst, sub_user, &r, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(top, &top_inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_sub_graph_node_data(top_inst, sub_node, sub_inst, &sub_ev),
			 DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(top_inst, last, &calls, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_destroy(sub_inst), DOCA_ERROR_NOT_PERMITTED); /* top's data */
	assert_int_equal(doca_workq_graph_submit(small, top_inst, (union doca_data){.u64 = 9}), DOCA_SUCCESS);
	assert_int_equal(doca_workq_graph_submit(small, top_inst, (union doca_data){.u64 = 9}), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_graph_instance_destroy(top_inst), DOCA_ERROR_NOT_PERMITTED); /* running */
	assert_int_equal(doca_graph_workq_rm(top, small), DOCA_ERROR_IN_USE);
	ev = next_event(small, &rc);
	assert_int_equal(rc, DOCA_SUCCESS);
	assert_int_equal(ev.type, DOCA_GRAPH_JOB);
	assert_int_equal(ev.user_data.u64, 9);
	assert_int_equal(r.checked, 1);
	assert_int_equal(calls, 1);
	assert_int_equal(sub_ev.result.u64, DOCA_SUCCESS);
	assert_int_equal(doca_workq_progress_retrieve(small, &ev, 0), DOCA_ERROR_AGAIN);

	assert_int_equal(doca_graph_instance_destroy(top_inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_destroy(sub_inst), DOCA_SUCCESS);
	release_run(&r);
	assert_int_equal(doca_graph_workq_rm(top, small), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(top), DOCA_SUCCESS);
	assert_int_equal(doca_graph_destroy(top), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(sub), DOCA_SUCCESS);
	assert_int_equal(doca_graph_destroy(sub), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_rm(f->ctx, small), DOCA_SUCCESS);
	assert_int_equal(doca_workq_destroy(small), DOCA_SUCCESS);
}

static void test_rules(void **state)
{
	struct fixture *f = *state;
	struct doca_graph *graph;
	struct doca_graph_node *a, *b, *c;
	struct doca_graph_instance *inst;
	struct doca_workq *other;
	struct run r;
	int calls = 0;

	assert_int_equal(doca_graph_create(&graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(graph), DOCA_ERROR_BAD_STATE); /* no node */
	assert_int_equal(doca_graph_ctx_node_create(graph, DOCA_DMA_JOB_MEMCPY + 5, f->ctx, &a),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_graph_ctx_node_create(graph, DOCA_DMA_JOB_MEMCPY, f->ctx, &a), DOCA_SUCCESS);
	assert_int_equal(doca_graph_user_node_create(graph, count_call, &b), DOCA_SUCCESS);
	assert_int_equal(doca_graph_user_node_create(graph, count_call, &c), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(graph, a, b), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(graph, b, c), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(graph, c, a), DOCA_ERROR_NOT_PERMITTED); /* cycle */
	assert_int_equal(doca_graph_add_dependency(graph, a, a), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_sub_graph_node_create(graph, graph, &c), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_instance_create(graph, &inst), DOCA_ERROR_BAD_STATE); /* not started */
	assert_int_equal(doca_graph_workq_add(graph, f->wq), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_start(graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(graph), DOCA_SUCCESS); /* a second start is fine */
	assert_int_equal(doca_graph_user_node_create(graph, count_call, &c), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_add_dependency(graph, a, c), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_workq_create(4, &other), DOCA_SUCCESS);
	assert_int_equal(doca_graph_workq_add(graph, other), DOCA_ERROR_BAD_STATE); /* f->ctx is not on it */
	assert_int_equal(doca_graph_instance_create(graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(graph), DOCA_ERROR_NOT_PERMITTED); /* an instance exists */

	prepare_run(f, &r, 0);
	r.job1.base.type = DOCA_DMA_JOB_MEMCPY + 1;
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &r.job1.base, NULL), DOCA_ERROR_NOT_PERMITTED);
	r.job1.base.type = DOCA_DMA_JOB_MEMCPY;
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, a, &calls, NULL), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, a, &r.job1.base, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, b, &calls, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_workq_graph_submit(f->wq, inst, (union doca_data){.u64 = 1}), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(doca_graph_workq_add(graph, f->wq), DOCA_SUCCESS);
	assert_int_equal(doca_graph_workq_add(graph, f->wq), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_workq_graph_submit(f->wq, inst, (union doca_data){.u64 = 1}),
			 DOCA_ERROR_INVALID_VALUE); /* c has no data */
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, c, &calls, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_workq_graph_submit(f->wq, inst, (union doca_data){.u64 = 1}), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, c, &calls, NULL), DOCA_ERROR_BAD_STATE);
	{
		doca_error_t rc;
		struct doca_event ev = next_event(f->wq, &rc);

		assert_int_equal(rc, DOCA_SUCCESS);
		assert_int_equal(ev.user_data.u64, 1);
		assert_int_equal(calls, 2);
	}
	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	release_run(&r);
	assert_int_equal(doca_graph_workq_rm(graph, f->wq), DOCA_SUCCESS);
	assert_int_equal(doca_graph_workq_rm(graph, f->wq), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_graph_stop(graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_destroy(graph), DOCA_SUCCESS);
	assert_int_equal(doca_workq_destroy(other), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sample_shape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failing_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sub_graph_on_small_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rules, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
