/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dma_graph.c - doca_graph with DOCA DMA memcpy nodes, the shape of
 * NVIDIA's graph sample: two DMA contexts copy one source to two
 * destinations, a user node checks both; many instances at once, then
 * resubmitted with new contents; a DMA node that fails its submit fails its
 * instance. Runs on every copy engine.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <doca_graph.h>

#include "dma_fixture.h"

#define NUM_INST 16
#define COPY_LEN 4096u

struct inst_data {
	struct doca_graph_instance *inst;
	struct doca_buf *src;
	struct doca_buf *dst[2];
	uint8_t *src_mem, *dst_mem[2];
	struct doca_dma_task_memcpy *task[2];
	unsigned checks;
};

struct graph_fix {
	struct dma_fix *f;
	struct doca_dma *dma2;
	struct doca_graph *graph;
	struct doca_graph_node *dma_node[2], *check_node;
	struct inst_data data[NUM_INST];
	unsigned done, failed;
};

/* The user node: both destinations hold the whole source. */
static doca_error_t check_copies(void *cookie)
{
	struct inst_data *d = cookie;

	d->checks++;
	for (int i = 0; i < 2; i++) {
		size_t len = 0;

		if (doca_buf_get_data_len(d->dst[i], &len) != DOCA_SUCCESS || len != COPY_LEN)
			return DOCA_ERROR_BAD_STATE;
		if (memcmp(d->dst_mem[i], d->src_mem, COPY_LEN) != 0)
			return DOCA_ERROR_BAD_STATE;
	}
	return DOCA_SUCCESS;
}

static void on_done(struct doca_graph_instance *inst, union doca_data inst_ud, union doca_data graph_ud)
{
	struct graph_fix *g = graph_ud.ptr;

	assert_ptr_equal(((struct inst_data *)inst_ud.ptr)->inst, inst);
	g->done++;
}

static void on_failed(struct doca_graph_instance *inst, union doca_data inst_ud, union doca_data graph_ud)
{
	struct graph_fix *g = graph_ud.ptr;

	(void)inst;
	(void)inst_ud;
	g->failed++;
}

static void fill(struct graph_fix *g, int round)
{
	for (int i = 0; i < NUM_INST; i++) {
		struct inst_data *d = &g->data[i];

		memset(d->src_mem, (i + 1) * (round + 1), COPY_LEN);
		for (int k = 0; k < 2; k++) {
			memset(d->dst_mem[k], 0, COPY_LEN);
			assert_int_equal(doca_buf_reset_data_len(d->dst[k]), DOCA_SUCCESS);
		}
	}
}

static void run_sample_shape(enum ferry_engine_kind engine)
{
	struct dma_fix *f;
	struct graph_fix g = {0};
	union doca_data ud = {.ptr = &g};
	void *state = NULL;

	assert_int_equal(fix_setup(&state), 0);
	f = state;
	g.f = f;
	fix_start(f, NUM_INST, engine);
	assert_int_equal(doca_dma_create(f->dev, &g.dma2), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(f->pe, doca_dma_as_ctx(g.dma2)), DOCA_SUCCESS);
	assert_int_equal(doca_dma_task_memcpy_set_conf(g.dma2, fix_on_success, fix_on_error, NUM_INST), DOCA_SUCCESS);
	assert_int_equal(ferry_dma_set_engine(g.dma2, engine), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_dma_as_ctx(g.dma2)), DOCA_SUCCESS);

	assert_int_equal(doca_graph_create(f->pe, &g.graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(g.graph, check_copies, &g.check_node), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(g.graph, f->ctx, &g.dma_node[0]), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(g.graph, doca_dma_as_ctx(g.dma2), &g.dma_node[1]),
			 DOCA_SUCCESS);
	for (int k = 0; k < 2; k++)
		assert_int_equal(doca_graph_add_dependency(g.graph, g.dma_node[k], g.check_node), DOCA_SUCCESS);
	assert_int_equal(doca_graph_set_conf(g.graph, on_done, on_failed, NUM_INST), DOCA_SUCCESS);
	assert_int_equal(doca_graph_set_user_data(g.graph, ud), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(g.graph), DOCA_SUCCESS);

	for (int i = 0; i < NUM_INST; i++) {
		struct inst_data *d = &g.data[i];
		union doca_data none = {0}, iud = {.ptr = d};
		struct doca_dma *dmas[2] = {f->dma, g.dma2};

		d->src_mem = f->src_mem + (size_t)i * COPY_LEN;
		d->src = fix_src_buf(f, f->src_mmap, f->src_mem, (size_t)i * COPY_LEN, COPY_LEN);
		assert_int_equal(doca_graph_instance_create(g.graph, &d->inst), DOCA_SUCCESS);
		for (int k = 0; k < 2; k++) {
			size_t off = ((size_t)i * 2 + (size_t)k) * COPY_LEN;

			d->dst_mem[k] = f->dst_mem + off;
			d->dst[k] = fix_dst_buf(f, f->dst_mmap, f->dst_mem, off, COPY_LEN);
			assert_int_equal(doca_dma_task_memcpy_alloc_init(dmas[k], d->src, d->dst[k], none, &d->task[k]),
					 DOCA_SUCCESS);
			assert_int_equal(doca_graph_instance_set_ctx_node_data(
						 d->inst, g.dma_node[k], doca_dma_task_memcpy_as_task(d->task[k])),
					 DOCA_SUCCESS);
		}
		assert_int_equal(doca_graph_instance_set_user_node_data(d->inst, g.check_node, d), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_set_user_data(d->inst, iud), DOCA_SUCCESS);
	}

	/* Two rounds: every instance at once, then all again with new contents. */
	for (int round = 0; round < 2; round++) {
		fill(&g, round);
		for (int i = 0; i < NUM_INST; i++)
			assert_int_equal(doca_graph_instance_submit(g.data[i].inst), DOCA_SUCCESS);
		FERRY_PROGRESS_UNTIL(f->pe, g.done + g.failed == (unsigned)(NUM_INST * (round + 1)),
				     FERRY_TEST_WAIT_MS);
		assert_int_equal(g.failed, 0);
		assert_int_equal(g.done, NUM_INST * (round + 1));
		for (int i = 0; i < NUM_INST; i++)
			assert_int_equal(g.data[i].checks, round + 1);
	}
	/* Inside a graph the DMA callbacks never ran. */
	assert_int_equal(f->successes + f->errors, 0);

	/*
	 * A destination too small for the source. On the first root to start,
	 * the instance's submit refuses (nothing started, no callback); on the
	 * second, the first is in flight already: submit succeeds and the
	 * error callback reports the instance once that copy finished, the
	 * user node unrun. Resized, the instance runs again.
	 */
	{
		struct inst_data *d = &g.data[0];

		assert_int_equal(doca_buf_set_data(d->dst[0], d->dst_mem[0], COPY_LEN / 2), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_submit(d->inst), DOCA_ERROR_INVALID_VALUE);
		fill(&g, 2);
		assert_int_equal(doca_buf_set_data(d->dst[1], d->dst_mem[1], COPY_LEN / 2), DOCA_SUCCESS);
		assert_int_equal(doca_graph_instance_submit(d->inst), DOCA_SUCCESS);
		FERRY_PROGRESS_UNTIL(f->pe, g.failed == 1, FERRY_TEST_WAIT_MS);
		assert_int_equal(g.failed, 1);
		assert_int_equal(d->checks, 2);
		fill(&g, 3);
		assert_int_equal(doca_graph_instance_submit(d->inst), DOCA_SUCCESS);
		FERRY_PROGRESS_UNTIL(f->pe, g.done == NUM_INST * 2 + 1, FERRY_TEST_WAIT_MS);
		assert_int_equal(g.done, NUM_INST * 2 + 1);
		assert_int_equal(d->checks, 3);
	}

	/* Teardown in the sample's order: instances, tasks and bufs, graph, contexts. */
	for (int i = 0; i < NUM_INST; i++) {
		struct inst_data *d = &g.data[i];

		assert_int_equal(doca_graph_instance_destroy(d->inst), DOCA_SUCCESS);
		for (int k = 0; k < 2; k++) {
			doca_task_free(doca_dma_task_memcpy_as_task(d->task[k]));
			assert_int_equal(doca_buf_dec_refcount(d->dst[k], NULL), DOCA_SUCCESS);
		}
		assert_int_equal(doca_buf_dec_refcount(d->src, NULL), DOCA_SUCCESS);
	}
	assert_int_equal(doca_graph_stop(g.graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_destroy(g.graph), DOCA_SUCCESS);
	(void)doca_ctx_stop(doca_dma_as_ctx(g.dma2));
	assert_int_equal(doca_dma_destroy(g.dma2), DOCA_SUCCESS);
	assert_int_equal(fix_teardown(&state), 0);
}

/* A user root whose DMA child fails at its submit: the instance fails through the error callback. */
static void run_child_fails(enum ferry_engine_kind engine)
{
	struct dma_fix *f;
	struct graph_fix g = {0};
	union doca_data ud = {.ptr = &g}, none = {0};
	void *state = NULL;
	struct doca_graph_node *u, *dma_node;
	struct doca_graph_instance *inst;
	struct doca_dma_task_memcpy *task;
	struct doca_buf *src, *dst;
	struct inst_data d = {0};

	assert_int_equal(fix_setup(&state), 0);
	f = state;
	fix_start(f, 4, engine);
	src = fix_src_buf(f, f->src_mmap, f->src_mem, 0, COPY_LEN);
	dst = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 0, COPY_LEN / 2);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src, dst, none, &task), DOCA_SUCCESS);
	assert_int_equal(doca_graph_create(f->pe, &g.graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_user(g.graph, check_copies, &u), DOCA_SUCCESS);
	assert_int_equal(doca_graph_node_create_from_ctx(g.graph, f->ctx, &dma_node), DOCA_SUCCESS);
	assert_int_equal(doca_graph_add_dependency(g.graph, u, dma_node), DOCA_SUCCESS);
	assert_int_equal(doca_graph_set_conf(g.graph, on_done, on_failed, 1), DOCA_SUCCESS);
	assert_int_equal(doca_graph_set_user_data(g.graph, ud), DOCA_SUCCESS);
	assert_int_equal(doca_graph_start(g.graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_create(g.graph, &inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_instance_set_ctx_node_data(inst, dma_node, doca_dma_task_memcpy_as_task(task)),
			 DOCA_SUCCESS);
	/* The user node checks a destination that trivially matches: itself. */
	d.dst[0] = d.dst[1] = src;
	d.dst_mem[0] = d.dst_mem[1] = d.src_mem = f->src_mem;
	assert_int_equal(doca_graph_instance_set_user_node_data(inst, u, &d), DOCA_SUCCESS);

	assert_int_equal(doca_graph_instance_submit(inst), DOCA_SUCCESS);
	FERRY_PROGRESS_UNTIL(f->pe, g.done + g.failed == 1, FERRY_TEST_WAIT_MS);
	assert_int_equal(g.failed, 1);
	assert_int_equal(d.checks, 1);
	assert_int_equal(f->successes + f->errors, 0);

	assert_int_equal(doca_graph_instance_destroy(inst), DOCA_SUCCESS);
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	assert_int_equal(doca_buf_dec_refcount(dst, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(src, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(g.graph), DOCA_SUCCESS);
	assert_int_equal(doca_graph_destroy(g.graph), DOCA_SUCCESS);
	assert_int_equal(fix_teardown(&state), 0);
}

static void test_sample_shape_inline(void **state)
{
	(void)state;
	run_sample_shape(FERRY_ENGINE_INLINE);
}

static void test_sample_shape_worker(void **state)
{
	(void)state;
	run_sample_shape(FERRY_ENGINE_WORKER);
}

static void test_sample_shape_auto(void **state)
{
	(void)state;
	run_sample_shape(FERRY_ENGINE_AUTO);
}

static void test_child_fails_inline(void **state)
{
	(void)state;
	run_child_fails(FERRY_ENGINE_INLINE);
}

static void test_child_fails_worker(void **state)
{
	(void)state;
	run_child_fails(FERRY_ENGINE_WORKER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_shape_inline), cmocka_unit_test(test_sample_shape_worker),
		cmocka_unit_test(test_sample_shape_auto),   cmocka_unit_test(test_child_fails_inline),
		cmocka_unit_test(test_child_fails_worker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
