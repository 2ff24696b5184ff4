/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_alloc_fail.c - every allocation of DOCA Core's create and start calls
 * fails in turn (ferry_test_alloc.h): doca_pe_create, doca_mmap_create,
 * doca_buf_inventory_create and _start, and doca_ctx_start's task pools (on a
 * context type of this test's own, with two configured pools and one not),
 * and outside create and start doca_mmap_add_dev (a failed growth of the
 * device array leaves the devices added before), doca_devinfo_create_list and
 * the build of the emulated machine's topology (one failure point per device
 * and representor, and two for the tables), doca_graph's node creation (with
 * and without the node array's growth), doca_graph_start,
 * doca_graph_instance_create and the start of an mmap advise context.
 *
 * Each failure must return DOCA_ERROR_NO_MEMORY with its line (doca_ctx_start
 * DOCA_ERROR_INITIALIZATION, as DOCA documents), free what the
 * call had built, and leave the output (or the object's state) as it was.
 * doca_dev_open allocates nothing (a device handle lives in its device info),
 * so it has no failure point to walk; the test checks that it stays so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_graph.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>

#include "core/ferry_ctx.h"
#include "core/mem_priv.h"
#include "core/topology_priv.h"
#include "ferry_test.h"
#include "ferry_test_ctx.h"
#include "ferry_test_dev.h"
#include "ferry_test_alloc.h"

/* ---- create calls: one output pointer each ---- */

struct out_arg {
	void *out;
};

static void out_failed(void *arg)
{
	assert_null(((struct out_arg *)arg)->out);
}

static doca_error_t pe_attempt(void *arg)
{
	return doca_pe_create((struct doca_pe **)&((struct out_arg *)arg)->out);
}

static void pe_succeeded(void *arg)
{
	struct doca_pe *pe = ((struct out_arg *)arg)->out;

	assert_non_null(pe);
	assert_int_equal(doca_pe_progress(pe), 0);
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
}

static void test_pe_create(void **state)
{
	struct out_arg a = {NULL};
	struct ferry_test_alloc_walk w = {.call = "doca_pe_create",
					  .logged = "doca_pe_create: no memory",
					  .attempt = pe_attempt,
					  .failed = out_failed,
					  .succeeded = pe_succeeded,
					  .arg = &a};

	(void)state;
	/* The engine itself; its notification handle is file descriptors. */
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
}

static doca_error_t mmap_attempt(void *arg)
{
	return doca_mmap_create((struct doca_mmap **)&((struct out_arg *)arg)->out);
}

static void mmap_succeeded(void *arg)
{
	static char mem[256];
	struct doca_mmap *mmap = ((struct out_arg *)arg)->out;

	assert_non_null(mmap);
	assert_int_equal(doca_mmap_set_memrange(mmap, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(mmap), DOCA_SUCCESS);
}

static void test_mmap_create(void **state)
{
	struct out_arg a = {NULL};
	struct ferry_test_alloc_walk w = {.call = "doca_mmap_create",
					  .logged = "doca_mmap_create: out of memory",
					  .attempt = mmap_attempt,
					  .failed = out_failed,
					  .succeeded = mmap_succeeded,
					  .arg = &a};

	(void)state;
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
}

static doca_error_t inv_create_attempt(void *arg)
{
	return doca_buf_inventory_create(16, (struct doca_buf_inventory **)&((struct out_arg *)arg)->out);
}

static void inv_create_succeeded(void *arg)
{
	struct doca_buf_inventory *inv = ((struct out_arg *)arg)->out;
	uint32_t n = 0;

	assert_non_null(inv);
	assert_int_equal(doca_buf_inventory_get_num_elements(inv, &n), DOCA_SUCCESS);
	assert_int_equal(n, 16);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
}

static void test_inventory_create(void **state)
{
	struct out_arg a = {NULL};
	struct ferry_test_alloc_walk w = {.call = "doca_buf_inventory_create",
					  .logged = "doca_buf_inventory_create: out of memory",
					  .attempt = inv_create_attempt,
					  .failed = out_failed,
					  .succeeded = inv_create_succeeded,
					  .arg = &a};

	(void)state;
	/* The descriptors come at start. */
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
}

/* ---- doca_buf_inventory_start: on a fresh inventory each step ---- */

struct inv_start_arg {
	struct doca_buf_inventory *inv;
	struct doca_mmap *mmap;
	char mem[64];
};

static void inv_start_prepare(void *arg)
{
	struct inv_start_arg *a = arg;

	assert_int_equal(doca_buf_inventory_create(8, &a->inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create(&a->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(a->mmap, a->mem, sizeof(a->mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(a->mmap), DOCA_SUCCESS);
}

static doca_error_t inv_start_attempt(void *arg)
{
	return doca_buf_inventory_start(((struct inv_start_arg *)arg)->inv);
}

/* A failed start leaves the inventory stopped: no buf comes out, and a later start works. */
static void inv_start_failed(void *arg)
{
	struct inv_start_arg *a = arg;
	struct doca_buf *buf = NULL;

	assert_int_equal(doca_buf_inventory_buf_get_by_args(a->inv, a->mmap, a->mem, 8, a->mem, 8, &buf),
			 DOCA_ERROR_BAD_STATE);
	assert_null(buf);
}

static void inv_start_succeeded(void *arg)
{
	struct inv_start_arg *a = arg;
	struct doca_buf *buf = NULL;
	uint32_t n = 0;

	assert_int_equal(doca_buf_inventory_buf_get_by_args(a->inv, a->mmap, a->mem, 8, a->mem, 8, &buf), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_get_num_free_elements(a->inv, &n), DOCA_SUCCESS);
	assert_int_equal(n, 7);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_stop(a->inv), DOCA_SUCCESS);
}

static void inv_start_cleanup(void *arg)
{
	struct inv_start_arg *a = arg;

	assert_int_equal(doca_buf_inventory_destroy(a->inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(a->mmap), DOCA_SUCCESS);
	a->inv = NULL;
	a->mmap = NULL;
}

static void test_inventory_start(void **state)
{
	struct inv_start_arg a;
	struct ferry_test_alloc_walk w = {.call = "doca_buf_inventory_start",
					  .logged = "doca_buf_inventory_start: inventory",
					  .prepare = inv_start_prepare,
					  .attempt = inv_start_attempt,
					  .failed = inv_start_failed,
					  .succeeded = inv_start_succeeded,
					  .cleanup = inv_start_cleanup,
					  .arg = &a};

	(void)state;
	memset(&a, 0, sizeof(a));
	/* The descriptors, in one block. */
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
}

/* ---- doca_ctx_start: the task pools ---- */

struct pool_ctx {
	struct doca_ctx ctx;
	struct ferry_task_pool pools[3];
	doca_error_t start_result; /* what ops->start says */
	unsigned int starts;
};

static struct pool_ctx *pool_ctx_of(struct doca_ctx *ctx)
{
	return (struct pool_ctx *)(void *)((char *)ctx - offsetof(struct pool_ctx, ctx));
}

static doca_error_t pool_ctx_start(struct doca_ctx *ctx)
{
	struct pool_ctx *pc = pool_ctx_of(ctx);

	pc->starts++;
	return pc->start_result;
}

static void pool_ctx_stop(struct doca_ctx *ctx)
{
	(void)ctx;
}

static doca_error_t pool_ctx_submit(struct doca_task *task)
{
	(void)task;
	return DOCA_ERROR_NOT_SUPPORTED;
}

static void pool_ctx_flush(struct doca_ctx *ctx)
{
	(void)ctx;
}

static uint32_t pool_ctx_progress(struct doca_ctx *ctx)
{
	(void)ctx;
	return 0;
}

static bool pool_ctx_has_pending(struct doca_ctx *ctx)
{
	(void)ctx;
	return false;
}

static const struct ferry_ctx_ops pool_ctx_ops = {
	.start = pool_ctx_start,
	.stop = pool_ctx_stop,
	.submit = pool_ctx_submit,
	.flush = pool_ctx_flush,
	.progress = pool_ctx_progress,
	.has_pending = pool_ctx_has_pending,
};

static void pool_complete(struct doca_task *task, union doca_data task_ud, union doca_data ctx_ud, bool success)
{
	(void)task;
	(void)task_ud;
	(void)ctx_ud;
	(void)success;
}

struct ctx_start_arg {
	struct doca_pe *pe;
	struct pool_ctx *pc;
};

/* Pools 0 and 2 hold tasks; pool 1 was never configured and allocates nothing. */
static void ctx_start_prepare(void *arg)
{
	struct ctx_start_arg *a = arg;
	struct pool_ctx *pc = calloc(1, sizeof(*pc));

	assert_non_null(pc);
	assert_int_equal(doca_pe_create(&a->pe), DOCA_SUCCESS);
	ferry_ctx_init(&pc->ctx, &pool_ctx_ops, "pool_ctx", NULL);
	ferry_ctx_add_pool(&pc->ctx, &pc->pools[0], "first", sizeof(struct doca_task) + 40, pool_complete);
	ferry_ctx_add_pool(&pc->ctx, &pc->pools[1], "unused", sizeof(struct doca_task), pool_complete);
	ferry_ctx_add_pool(&pc->ctx, &pc->pools[2], "second", sizeof(struct doca_task) + 200, pool_complete);
	assert_int_equal(ferry_task_pool_configure(&pc->pools[0], 32, "test"), DOCA_SUCCESS);
	assert_int_equal(ferry_task_pool_configure(&pc->pools[2], 5, "test"), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(a->pe, &pc->ctx), DOCA_SUCCESS);
	a->pc = pc;
}

static doca_error_t ctx_start_attempt(void *arg)
{
	return doca_ctx_start(&((struct ctx_start_arg *)arg)->pc->ctx);
}

/* Still IDLE, the type's start not reached, no pool holding memory (the first one gave its back). */
static void ctx_start_failed(void *arg)
{
	struct pool_ctx *pc = ((struct ctx_start_arg *)arg)->pc;

	assert_int_equal(ferry_test_ctx_state(&pc->ctx), DOCA_CTX_STATE_IDLE);
	assert_int_equal(pc->starts, 0);
	for (unsigned int i = 0; i < 3; i++) {
		assert_null(pc->pools[i].mem);
		assert_null(pc->pools[i].free_list);
		assert_int_equal(pc->pools[i].num_free, 0);
	}
}

static void ctx_start_succeeded(void *arg)
{
	struct ctx_start_arg *a = arg;
	struct doca_task *task = NULL;

	assert_int_equal(ferry_test_ctx_state(&a->pc->ctx), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(ferry_task_pool_get(&a->pc->pools[2], "test", &task), DOCA_SUCCESS);
	doca_task_free(task);
	assert_int_equal(doca_ctx_stop(&a->pc->ctx), DOCA_SUCCESS);
	assert_int_equal(ferry_test_ctx_state(&a->pc->ctx), DOCA_CTX_STATE_IDLE);
}

static void ctx_start_cleanup(void *arg)
{
	struct ctx_start_arg *a = arg;

	assert_int_equal(ferry_ctx_check_destroyable(&a->pc->ctx, "test"), DOCA_SUCCESS);
	ferry_ctx_fini(&a->pc->ctx);
	free(a->pc);
	assert_int_equal(doca_pe_destroy(a->pe), DOCA_SUCCESS);
	a->pc = NULL;
	a->pe = NULL;
}

static void test_ctx_start_pools(void **state)
{
	struct ctx_start_arg a = {NULL, NULL};
	struct ferry_test_alloc_walk w = {.call = "doca_ctx_start",
					  .logged = "doca_ctx_start: context 'pool_ctx': no memory",
					  /* DOCA documents INITIALIZATION for it (was NO_MEMORY). */
					  .fails_with = DOCA_ERROR_INITIALIZATION,
					  .prepare = ctx_start_prepare,
					  .attempt = ctx_start_attempt,
					  .failed = ctx_start_failed,
					  .succeeded = ctx_start_succeeded,
					  .cleanup = ctx_start_cleanup,
					  .arg = &a};

	(void)state;
	/* One block per configured pool. */
	assert_int_equal(ferry_test_alloc_walk(&w), 2);
}

/* The type's own start refusing: the pools prepared for it are given back too. */
static void test_ctx_start_type_refuses(void **state)
{
	struct ctx_start_arg a = {NULL, NULL};
	size_t heap_before;

	(void)state;
	ctx_start_prepare(&a);
	a.pc->start_result = DOCA_ERROR_NOT_CONNECTED;
	heap_before = ferry_test_heap_in_use();
	assert_int_equal(doca_ctx_start(&a.pc->ctx), DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(a.pc->starts, 1);
	a.pc->starts = 0;
	ctx_start_failed(&a);
	assert_int_equal(ferry_test_heap_in_use(), heap_before);
	/* A type out of memory: doca_ctx_start answers DOCA's INITIALIZATION, pools given back. */
	a.pc->start_result = DOCA_ERROR_NO_MEMORY;
	assert_int_equal(doca_ctx_start(&a.pc->ctx), DOCA_ERROR_INITIALIZATION);
	assert_int_equal(a.pc->starts, 1);
	a.pc->starts = 0;
	ctx_start_failed(&a);
	assert_int_equal(ferry_test_heap_in_use(), heap_before);
	/* And it starts once the type agrees. */
	a.pc->start_result = DOCA_SUCCESS;
	assert_int_equal(doca_ctx_start(&a.pc->ctx), DOCA_SUCCESS);
	ctx_start_succeeded(&a);
	ctx_start_cleanup(&a);
}

/* A restart after a stop allocates the pools afresh: the walk holds there too. */
static void ctx_restart_prepare(void *arg)
{
	struct ctx_start_arg *a = arg;

	ctx_start_prepare(arg);
	assert_int_equal(doca_ctx_start(&a->pc->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(&a->pc->ctx), DOCA_SUCCESS);
	a->pc->starts = 0;
}

static void test_ctx_restart_pools(void **state)
{
	struct ctx_start_arg a = {NULL, NULL};
	struct ferry_test_alloc_walk w = {
		.call = "doca_ctx_start (restart)",
		.logged = "doca_ctx_start: context 'pool_ctx': no memory",
		.fails_with = DOCA_ERROR_INITIALIZATION,
		.prepare = ctx_restart_prepare,
		.attempt = ctx_start_attempt,
		.failed = ctx_start_failed,
		.succeeded = ctx_start_succeeded,
		.cleanup = ctx_start_cleanup,
		.arg = &a,
		/* A failed restart gives back the old pools as well (ctx_start_failed checks). */
		.heap_may_shrink = true};

	(void)state;
	assert_int_equal(ferry_test_alloc_walk(&w), 2);
}

/* ---- doca_dev_open: nothing to walk ---- */

static void test_dev_open_allocates_nothing(void **state)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_true(n >= 1);
	ferry_alloc_fail_nth(1);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	assert_true(ferry_alloc_fail_pending());
	ferry_alloc_fail_nth(0);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
}

/* ---- doca_mmap_add_dev: the device array grows ---- */

struct add_dev_arg {
	struct doca_devinfo **list;
	struct doca_dev *first, *second;
	struct doca_mmap *mmap;
};

static void add_dev_prepare(void *arg)
{
	struct add_dev_arg *a = arg;

	assert_int_equal(doca_mmap_create(&a->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(a->mmap, a->first), DOCA_SUCCESS);
}

static doca_error_t add_dev_attempt(void *arg)
{
	struct add_dev_arg *a = arg;

	return doca_mmap_add_dev(a->mmap, a->second);
}

static void add_dev_failed(void *arg)
{
	struct add_dev_arg *a = arg;

	/* The first device is still there, the second was never added. */
	assert_int_equal(a->mmap->num_devs, 1);
	assert_ptr_equal(a->mmap->devs[0], a->first);
	assert_int_equal(doca_mmap_add_dev(a->mmap, a->first), DOCA_ERROR_ALREADY_EXIST);
	assert_int_equal(doca_mmap_rm_dev(a->mmap, a->second), DOCA_ERROR_NOT_FOUND);
}

static void add_dev_succeeded(void *arg)
{
	struct add_dev_arg *a = arg;

	assert_int_equal(a->mmap->num_devs, 2);
	assert_int_equal(doca_mmap_add_dev(a->mmap, a->second), DOCA_ERROR_ALREADY_EXIST);
	assert_int_equal(doca_mmap_rm_dev(a->mmap, a->second), DOCA_SUCCESS);
}

static void add_dev_cleanup(void *arg)
{
	struct add_dev_arg *a = arg;

	assert_int_equal(doca_mmap_destroy(a->mmap), DOCA_SUCCESS);
	a->mmap = NULL;
}

static void test_mmap_add_dev(void **state)
{
	struct add_dev_arg a = {0};
	uint32_t n = 0;
	struct ferry_test_alloc_walk w = {.call = "doca_mmap_add_dev",
					  .logged = "doca_mmap_add_dev: out of memory",
					  .prepare = add_dev_prepare,
					  .attempt = add_dev_attempt,
					  .failed = add_dev_failed,
					  .succeeded = add_dev_succeeded,
					  .cleanup = add_dev_cleanup,
					  .arg = &a};

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&a.list, &n), DOCA_SUCCESS);
	assert_true(n >= 2);
	assert_int_equal(doca_dev_open(a.list[0], &a.first), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(a.list[1], &a.second), DOCA_SUCCESS);
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
	assert_int_equal(doca_dev_close(a.second), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(a.first), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_destroy_list(a.list), DOCA_SUCCESS);
}

/* ---- doca_devinfo_create_list ---- */

static doca_error_t dev_list_attempt(void *arg)
{
	uint32_t n = 0;

	return doca_devinfo_create_list((struct doca_devinfo ***)&((struct out_arg *)arg)->out, &n);
}

static void dev_list_succeeded(void *arg)
{
	struct doca_devinfo **list = ((struct out_arg *)arg)->out;

	assert_non_null(list);
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
}

static void test_dev_list_create(void **state)
{
	struct out_arg a = {NULL};
	struct ferry_test_alloc_walk w = {.call = "doca_devinfo_create_list",
					  .logged = "doca_devinfo_create_list: no memory",
					  .attempt = dev_list_attempt,
					  .failed = out_failed,
					  .succeeded = dev_list_succeeded,
					  .arg = &a};

	(void)state;
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
}

/* ---- doca_graph_create and doca_mmap_advise_create: one allocation each ---- */

static struct doca_pe *walk_pe;

static doca_error_t graph_attempt(void *arg)
{
	return doca_graph_create(walk_pe, (struct doca_graph **)&((struct out_arg *)arg)->out);
}

static void graph_succeeded(void *arg)
{
	assert_int_equal(doca_graph_destroy(((struct out_arg *)arg)->out), DOCA_SUCCESS);
}

static void test_graph_create(void **state)
{
	struct out_arg a = {NULL};
	struct ferry_test_alloc_walk w = {.call = "doca_graph_create",
					  .logged = "doca_graph_create: no memory",
					  .attempt = graph_attempt,
					  .failed = out_failed,
					  .succeeded = graph_succeeded,
					  .arg = &a};

	(void)state;
	assert_int_equal(doca_pe_create(&walk_pe), DOCA_SUCCESS);
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
	assert_int_equal(doca_pe_destroy(walk_pe), DOCA_SUCCESS); /* nothing left connected */
}

static struct doca_dev *walk_dev;

static doca_error_t advise_attempt(void *arg)
{
	return doca_mmap_advise_create(walk_dev, (struct doca_mmap_advise **)&((struct out_arg *)arg)->out);
}

static void advise_succeeded(void *arg)
{
	assert_int_equal(doca_mmap_advise_destroy(((struct out_arg *)arg)->out), DOCA_SUCCESS);
}

static void test_mmap_advise_create(void **state)
{
	struct out_arg a = {NULL};
	struct ferry_test_alloc_walk w = {.call = "doca_mmap_advise_create",
					  .logged = "doca_mmap_advise_create: no memory",
					  .attempt = advise_attempt,
					  .failed = out_failed,
					  .succeeded = advise_succeeded,
					  .arg = &a};

	(void)state;
	walk_dev = ferry_test_open_dev(NULL, NULL);
	assert_non_null(walk_dev);
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
	assert_int_equal(doca_dev_close(walk_dev), DOCA_SUCCESS);
}

/* ---- doca_graph: node creation (and the node array's growth), start, instances ---- */

static void on_advise_done(struct doca_mmap_advise_task_invalidate_cache *task, union doca_data task_ud,
			   union doca_data ctx_ud)
{
	(void)task;
	(void)task_ud;
	(void)ctx_ud;
}

static doca_error_t user_node_cb(void *cookie)
{
	(void)cookie;
	return DOCA_SUCCESS;
}

struct graph_arg {
	struct doca_mmap_advise *adv; /* the running context of the graph's context node */
	struct doca_graph *graph;
	uint32_t nodes_before; /* user nodes the graph holds before the walked call */
	struct doca_graph_node *node;
	struct doca_graph_instance *inst;
};

/* walk_pe and walk_dev, and a RUNNING mmap advise context on them, for the whole test. */
static void graph_test_setup(struct graph_arg *a)
{
	memset(a, 0, sizeof(*a));
	assert_int_equal(doca_pe_create(&walk_pe), DOCA_SUCCESS);
	walk_dev = ferry_test_open_dev(NULL, NULL);
	assert_non_null(walk_dev);
	assert_int_equal(doca_mmap_advise_create(walk_dev, &a->adv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(a->adv, on_advise_done, on_advise_done, 4),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(walk_pe, doca_mmap_advise_as_ctx(a->adv)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_mmap_advise_as_ctx(a->adv)), DOCA_SUCCESS);
}

static void graph_test_teardown(struct graph_arg *a)
{
	assert_int_equal(doca_ctx_stop(doca_mmap_advise_as_ctx(a->adv)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_advise_destroy(a->adv), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(walk_dev), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(walk_pe), DOCA_SUCCESS); /* nothing left connected */
}

/* A stopped graph with one context node and nodes_before - 1 user nodes (none when 0). */
static void graph_prepare(void *arg)
{
	struct graph_arg *a = arg;
	struct doca_graph_node *n;

	assert_int_equal(doca_graph_create(walk_pe, &a->graph), DOCA_SUCCESS);
	if (a->nodes_before > 0)
		assert_int_equal(doca_graph_node_create_from_ctx(a->graph, doca_mmap_advise_as_ctx(a->adv), &n),
				 DOCA_SUCCESS);
	for (uint32_t i = 1; i < a->nodes_before; i++)
		assert_int_equal(doca_graph_node_create_from_user(a->graph, user_node_cb, &n), DOCA_SUCCESS);
	a->node = NULL;
	a->inst = NULL;
}

static void graph_cleanup(void *arg)
{
	struct graph_arg *a = arg;

	assert_int_equal(doca_graph_destroy(a->graph), DOCA_SUCCESS);
	a->graph = NULL;
}

static doca_error_t node_attempt(void *arg)
{
	struct graph_arg *a = arg;

	return doca_graph_node_create_from_user(a->graph, user_node_cb, &a->node);
}

/* No node came out, and the graph can still take one: as it was. */
static void node_failed(void *arg)
{
	struct graph_arg *a = arg;

	assert_null(a->node);
}

static void node_succeeded(void *arg)
{
	assert_non_null(((struct graph_arg *)arg)->node);
}

static unsigned int walk_node_create(struct graph_arg *a, uint32_t nodes_before)
{
	struct ferry_test_alloc_walk w = {.call = "doca_graph_node_create_from_user",
					  .logged = "doca_graph_node_create_from_user: graph",
					  .prepare = graph_prepare,
					  .attempt = node_attempt,
					  .failed = node_failed,
					  .succeeded = node_succeeded,
					  .cleanup = graph_cleanup,
					  .arg = a};

	a->nodes_before = nodes_before;
	return ferry_test_alloc_walk(&w);
}

static void test_graph_node_create(void **state)
{
	struct graph_arg a;

	(void)state;
	graph_test_setup(&a);
	/* The first node allocates the node array too; the 9th grows it (8 slots at first), the 5th does not. */
	assert_int_equal(walk_node_create(&a, 0), 2);
	assert_int_equal(walk_node_create(&a, 8), 2);
	assert_int_equal(walk_node_create(&a, 5), 1);
	graph_test_teardown(&a);
}

static doca_error_t graph_start_attempt(void *arg)
{
	return doca_graph_start(((struct graph_arg *)arg)->graph);
}

/* Still stopped: no instance can be made of it. */
static void graph_start_failed(void *arg)
{
	struct graph_arg *a = arg;

	assert_int_equal(doca_graph_instance_create(a->graph, &a->inst), DOCA_ERROR_BAD_STATE);
	assert_null(a->inst);
}

static void graph_start_succeeded(void *arg)
{
	assert_int_equal(doca_graph_stop(((struct graph_arg *)arg)->graph), DOCA_SUCCESS);
}

static void test_graph_start(void **state)
{
	struct graph_arg a;
	struct ferry_test_alloc_walk w = {.call = "doca_graph_start",
					  .logged = "doca_graph_start: graph",
					  .prepare = graph_prepare,
					  .attempt = graph_start_attempt,
					  .failed = graph_start_failed,
					  .succeeded = graph_start_succeeded,
					  .cleanup = graph_cleanup,
					  .arg = &a};

	(void)state;
	graph_test_setup(&a);
	a.nodes_before = 3;
	/* The validation's two work arrays. */
	assert_int_equal(ferry_test_alloc_walk(&w), 2);
	graph_test_teardown(&a);
}

static void graph_started_prepare(void *arg)
{
	graph_prepare(arg);
	assert_int_equal(doca_graph_start(((struct graph_arg *)arg)->graph), DOCA_SUCCESS);
}

static doca_error_t instance_attempt(void *arg)
{
	struct graph_arg *a = arg;

	return doca_graph_instance_create(a->graph, &a->inst);
}

/* No instance came out, and none is counted: the graph stops. */
static void instance_failed(void *arg)
{
	struct graph_arg *a = arg;

	assert_null(a->inst);
	assert_int_equal(doca_graph_stop(a->graph), DOCA_SUCCESS);
}

static void instance_succeeded(void *arg)
{
	struct graph_arg *a = arg;

	assert_non_null(a->inst);
	assert_int_equal(doca_graph_instance_destroy(a->inst), DOCA_SUCCESS);
	assert_int_equal(doca_graph_stop(a->graph), DOCA_SUCCESS);
}

static void test_graph_instance_create(void **state)
{
	struct graph_arg a;
	struct ferry_test_alloc_walk w = {.call = "doca_graph_instance_create",
					  .logged = "doca_graph_instance_create: graph",
					  .prepare = graph_started_prepare,
					  .attempt = instance_attempt,
					  .failed = instance_failed,
					  .succeeded = instance_succeeded,
					  .cleanup = graph_cleanup,
					  .arg = &a};

	(void)state;
	graph_test_setup(&a);
	a.nodes_before = 3;
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
	graph_test_teardown(&a);
}

/* ---- doca_ctx_start of an mmap advise context: its task pool ---- */

struct advise_start_arg {
	struct doca_mmap_advise *adv;
};

static void advise_start_prepare(void *arg)
{
	struct advise_start_arg *a = arg;

	assert_int_equal(doca_mmap_advise_create(walk_dev, &a->adv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_advise_task_invalidate_cache_set_conf(a->adv, on_advise_done, on_advise_done, 64),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(walk_pe, doca_mmap_advise_as_ctx(a->adv)), DOCA_SUCCESS);
}

static doca_error_t advise_start_attempt(void *arg)
{
	return doca_ctx_start(doca_mmap_advise_as_ctx(((struct advise_start_arg *)arg)->adv));
}

static void advise_start_failed(void *arg)
{
	struct doca_ctx *ctx = doca_mmap_advise_as_ctx(((struct advise_start_arg *)arg)->adv);

	assert_int_equal(ferry_test_ctx_state(ctx), DOCA_CTX_STATE_IDLE);
}

static void advise_start_succeeded(void *arg)
{
	struct doca_ctx *ctx = doca_mmap_advise_as_ctx(((struct advise_start_arg *)arg)->adv);

	assert_int_equal(ferry_test_ctx_state(ctx), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(doca_ctx_stop(ctx), DOCA_SUCCESS);
}

static void advise_start_cleanup(void *arg)
{
	struct advise_start_arg *a = arg;

	assert_int_equal(doca_mmap_advise_destroy(a->adv), DOCA_SUCCESS);
	a->adv = NULL;
}

static void test_mmap_advise_start(void **state)
{
	struct advise_start_arg a = {NULL};
	struct ferry_test_alloc_walk w = {.call = "doca_ctx_start (mmap advise)",
					  .logged = "doca_ctx_start: context",
					  /* DOCA documents INITIALIZATION for a start out of memory. */
					  .fails_with = DOCA_ERROR_INITIALIZATION,
					  .prepare = advise_start_prepare,
					  .attempt = advise_start_attempt,
					  .failed = advise_start_failed,
					  .succeeded = advise_start_succeeded,
					  .cleanup = advise_start_cleanup,
					  .arg = &a};

	(void)state;
	assert_int_equal(doca_pe_create(&walk_pe), DOCA_SUCCESS);
	walk_dev = ferry_test_open_dev(NULL, NULL);
	assert_non_null(walk_dev);
	/* The task pool, nothing else. */
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
	assert_int_equal(doca_dev_close(walk_dev), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(walk_pe), DOCA_SUCCESS);
}

/* ---- the topology: built once per process, from the default or a file ---- */

struct topo_arg {
	struct ferry_topology topo;
};

static doca_error_t topo_attempt(void *arg)
{
	return ferry_topology_load(NULL, &((struct topo_arg *)arg)->topo);
}

static void topo_failed(void *arg)
{
	struct topo_arg *a = arg;

	assert_null(a->topo.devs);
	assert_int_equal(a->topo.nb_devs, 0);
}

static void topo_succeeded(void *arg)
{
	struct topo_arg *a = arg;

	assert_true(a->topo.nb_devs > 0);
	ferry_topology_release(&a->topo);
}

static void test_topology_load(void **state)
{
	struct topo_arg a;
	struct ferry_topology whole;
	struct ferry_test_alloc_walk w = {.call = "ferry_topology_load",
					  .logged = "topology: no memory",
					  .attempt = topo_attempt,
					  .failed = topo_failed,
					  .succeeded = topo_succeeded,
					  .arg = &a};

	(void)state;
	memset(&a, 0, sizeof(a));
	assert_int_equal(ferry_topology_load(NULL, &whole), DOCA_SUCCESS);
	uint32_t points = 2 + whole.nb_devs + whole.nb_reps;
	assert_true(whole.nb_reps > 0);
	ferry_topology_release(&whole);
	assert_int_equal(ferry_test_alloc_walk(&w), points);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pe_create),          cmocka_unit_test(test_mmap_create),
		cmocka_unit_test(test_inventory_create),   cmocka_unit_test(test_inventory_start),
		cmocka_unit_test(test_ctx_start_pools),    cmocka_unit_test(test_ctx_start_type_refuses),
		cmocka_unit_test(test_ctx_restart_pools),  cmocka_unit_test(test_dev_open_allocates_nothing),
		cmocka_unit_test(test_mmap_add_dev),       cmocka_unit_test(test_dev_list_create),
		cmocka_unit_test(test_topology_load),      cmocka_unit_test(test_graph_create),
		cmocka_unit_test(test_mmap_advise_create), cmocka_unit_test(test_graph_node_create),
		cmocka_unit_test(test_graph_start),        cmocka_unit_test(test_graph_instance_create),
		cmocka_unit_test(test_mmap_advise_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
