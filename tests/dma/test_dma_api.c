/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dma_api.c - every doca_dma_* call and every rule of the DMA context and
 * its memcpy task: invalid input first, then states and limits, then the
 * success paths and the data-segment semantics, read back.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "dma_fixture.h"

static const union doca_data no_data = {.u64 = 0};

/* ---- create / destroy / as_ctx ---- */

static void test_create_null(void **state)
{
	struct dma_fix *f = *state;
	struct doca_dma *dma = NULL;

	assert_int_equal(doca_dma_create(NULL, &dma), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_create: dev is NULL");
	assert_null(dma);
	assert_int_equal(doca_dma_create(f->dev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_create: dma is NULL");
}

static void test_create_destroy_second_context(void **state)
{
	struct dma_fix *f = *state;
	struct doca_dma *dma = NULL;

	assert_int_equal(doca_dma_create(f->dev, &dma), DOCA_SUCCESS);
	assert_non_null(dma);
	assert_ptr_not_equal(dma, f->dma);
	/* The device is in use while the context exists. */
	assert_int_equal(doca_dev_close(f->dev), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_dma_destroy(dma), DOCA_SUCCESS);
}

static void test_destroy_null_and_not_idle(void **state)
{
	struct dma_fix *f = *state;

	assert_int_equal(doca_dma_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_destroy: dma is NULL");
	fix_start(f, 4, FERRY_ENGINE_INLINE);
	ferry_test_log_reset();
	assert_int_equal(doca_dma_destroy(f->dma), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_dma_destroy: context 'dma' is RUNNING; destroy needs IDLE");
	assert_true(fix_stop(f));
}

static void test_as_ctx(void **state)
{
	struct dma_fix *f = *state;
	enum doca_ctx_states st = DOCA_CTX_STATE_RUNNING;

	assert_null(doca_dma_as_ctx(NULL));
	assert_logged("doca_dma_as_ctx: dma is NULL");
	assert_non_null(f->ctx);
	assert_ptr_equal(doca_dma_as_ctx(f->dma), f->ctx);
	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
}

/* ---- caps ---- */

static void test_caps_invalid(void **state)
{
	struct dma_fix *f = *state;
	const struct doca_devinfo *info = doca_dev_as_devinfo(f->dev);
	uint64_t size;
	uint32_t n;

	assert_int_equal(doca_dma_cap_task_memcpy_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_cap_task_memcpy_is_supported: devinfo is NULL");
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_size(NULL, &size), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_cap_task_memcpy_get_max_buf_size: devinfo is NULL");
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_size(info, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_list_len(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_cap_task_memcpy_get_max_buf_list_len: devinfo is NULL");
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_list_len(info, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_cap_get_max_num_tasks(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_cap_get_max_num_tasks: dma is NULL");
	assert_int_equal(doca_dma_cap_get_max_num_tasks(f->dma, NULL), DOCA_ERROR_INVALID_VALUE);
}

static void test_caps_values(void **state)
{
	struct dma_fix *f = *state;
	const struct doca_devinfo *info = doca_dev_as_devinfo(f->dev);
	const struct ferry_dma_caps *caps = ferry_devinfo_dma_caps(info);
	uint64_t size = 0;
	uint32_t list = 0, tasks = 0;

	assert_int_equal(doca_dma_cap_task_memcpy_is_supported(info), DOCA_SUCCESS);
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_size(info, &size), DOCA_SUCCESS);
	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_list_len(info, &list), DOCA_SUCCESS);
	assert_int_equal(doca_dma_cap_get_max_num_tasks(f->dma, &tasks), DOCA_SUCCESS);
	assert_true(size == caps->max_buf_size);
	assert_int_equal(list, caps->max_buf_list_len);
	assert_int_equal(tasks, caps->max_num_tasks);
	/* Sane limits: lists are supported, at least 1 MiB per task, many tasks. */
	assert_true(list > 1);
	assert_true(size >= (1u << 20));
	assert_true(tasks >= 1024);
}

/* ---- set_conf ---- */

static void test_set_conf_invalid(void **state)
{
	struct dma_fix *f = *state;
	uint32_t max = 0;

	assert_int_equal(doca_dma_task_memcpy_set_conf(NULL, fix_on_success, fix_on_error, 4),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_task_memcpy_set_conf: dma is NULL");
	assert_int_equal(doca_dma_task_memcpy_set_conf(f->dma, NULL, fix_on_error, 4), DOCA_ERROR_INVALID_VALUE);
	assert_logged("the completion callback is NULL");
	assert_int_equal(doca_dma_task_memcpy_set_conf(f->dma, fix_on_success, NULL, 4), DOCA_ERROR_INVALID_VALUE);
	assert_logged("the error callback is NULL");
	assert_int_equal(doca_dma_task_memcpy_set_conf(f->dma, fix_on_success, fix_on_error, 0),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("needs at least 1 task");
	assert_int_equal(doca_dma_cap_get_max_num_tasks(f->dma, &max), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_dma_task_memcpy_set_conf(f->dma, fix_on_success, fix_on_error, max + 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("above the device limit");
	/* The limit itself is accepted. */
	assert_int_equal(doca_dma_task_memcpy_set_conf(f->dma, fix_on_success, fix_on_error, max), DOCA_SUCCESS);
}

static void test_set_conf_needs_idle(void **state)
{
	struct dma_fix *f = *state;

	fix_start(f, 4, FERRY_ENGINE_INLINE);
	ferry_test_log_reset();
	assert_int_equal(doca_dma_task_memcpy_set_conf(f->dma, fix_on_success, fix_on_error, 8), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_dma_task_memcpy_set_conf: context 'dma' is RUNNING; configuration needs IDLE");
	assert_int_equal(ferry_dma_set_engine(f->dma, FERRY_ENGINE_WORKER), DOCA_ERROR_BAD_STATE);
	assert_true(fix_stop(f));
	/* Reconfigure after the stop and start again with a bigger pool. */
	assert_int_equal(doca_dma_task_memcpy_set_conf(f->dma, fix_on_success, fix_on_error, 8), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
}

static void test_start_without_conf(void **state)
{
	struct dma_fix *f = *state;
	enum doca_ctx_states st;

	assert_int_equal(doca_ctx_start(f->ctx), DOCA_ERROR_BAD_STATE);
	assert_logged("memcpy tasks are not configured");
	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
}

static void test_misc_calls(void **state)
{
	struct dma_fix *f = *state;
	struct doca_gpu_dma *gpu = NULL;

	assert_int_equal(doca_dma_set_ordered_completions(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_set_ordered_completions: dma is NULL");
	assert_int_equal(doca_dma_set_ordered_completions(f->dma, 1), DOCA_SUCCESS);
	assert_int_equal(doca_dma_set_ordered_completions(f->dma, 0), DOCA_SUCCESS);
	assert_int_equal(doca_dma_get_gpu_handle(NULL, &gpu), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_get_gpu_handle(f->dma, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dma_get_gpu_handle(f->dma, &gpu), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("no GPU data path");
	assert_null(gpu);
	assert_int_equal(ferry_dma_set_engine(NULL, FERRY_ENGINE_AUTO), DOCA_ERROR_INVALID_VALUE);
}

/* ---- alloc_init and the task accessors ---- */

static void test_alloc_invalid_and_states(void **state)
{
	struct dma_fix *f = *state;
	struct doca_dma_task_memcpy *task = NULL;

	assert_int_equal(doca_dma_task_memcpy_set_conf(f->dma, fix_on_success, fix_on_error, 2), DOCA_SUCCESS);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(NULL, NULL, NULL, no_data, &task), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_task_memcpy_alloc_init: dma is NULL");
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, NULL, NULL, no_data, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dma_task_memcpy_alloc_init: task is NULL");
	/* IDLE: no tasks yet. */
	ferry_test_log_reset();
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, NULL, NULL, no_data, &task), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_dma_task_memcpy_alloc_init: context 'dma' is IDLE; task allocation needs RUNNING");
	assert_null(task);
}

static void test_alloc_empty_pool(void **state)
{
	struct dma_fix *f = *state;
	struct doca_dma_task_memcpy *t1 = NULL, *t2 = NULL, *t3 = NULL;

	fix_start(f, 2, FERRY_ENGINE_INLINE);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, NULL, NULL, no_data, &t1), DOCA_SUCCESS);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, NULL, NULL, no_data, &t2), DOCA_SUCCESS);
	assert_ptr_not_equal(t1, t2);
	ferry_test_log_reset();
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, NULL, NULL, no_data, &t3), DOCA_ERROR_NO_MEMORY);
	assert_logged("doca_dma_task_memcpy_alloc_init: context 'dma': all 2 dma memcpy tasks are allocated");
	/* A freed task can be allocated again. */
	doca_task_free(doca_dma_task_memcpy_as_task(t1));
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, NULL, NULL, no_data, &t3), DOCA_SUCCESS);
	doca_task_free(doca_dma_task_memcpy_as_task(t2));
	doca_task_free(doca_dma_task_memcpy_as_task(t3));
}

static void test_task_accessors(void **state)
{
	struct dma_fix *f = *state;
	struct doca_dma_task_memcpy *task = NULL;
	struct doca_buf *s = fix_src_buf(f, f->src_mmap, f->src_mem, 0, 64);
	struct doca_buf *d = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 0, 64);
	struct doca_buf *d2 = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 128, 64);
	union doca_data ud = {.u64 = 0xfeedu};
	struct doca_task *base;

	/* NULL task */
	assert_null(doca_dma_task_memcpy_as_task(NULL));
	assert_logged("doca_dma_task_memcpy_as_task: task is NULL");
	assert_null(doca_dma_task_memcpy_get_src(NULL));
	assert_logged("doca_dma_task_memcpy_get_src: task is NULL");
	assert_null(doca_dma_task_memcpy_get_dst(NULL));
	assert_logged("doca_dma_task_memcpy_get_dst: task is NULL");
	doca_dma_task_memcpy_set_src(NULL, s);
	assert_logged("doca_dma_task_memcpy_set_src: task is NULL");
	doca_dma_task_memcpy_set_dst(NULL, d);
	assert_logged("doca_dma_task_memcpy_set_dst: task is NULL");

	fix_start(f, 4, FERRY_ENGINE_INLINE);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, s, d, ud, &task), DOCA_SUCCESS);
	base = doca_dma_task_memcpy_as_task(task);
	assert_non_null(base);
	assert_ptr_equal(doca_task_get_ctx(base), f->ctx);
	assert_true(doca_task_get_user_data(base).u64 == 0xfeedu);
	assert_ptr_equal(doca_dma_task_memcpy_get_src(task), s);
	assert_ptr_equal(doca_dma_task_memcpy_get_dst(task), d);
	doca_dma_task_memcpy_set_dst(task, d2);
	assert_ptr_equal(doca_dma_task_memcpy_get_dst(task), d2);
	doca_dma_task_memcpy_set_src(task, NULL);
	assert_null(doca_dma_task_memcpy_get_src(task));
	doca_dma_task_memcpy_set_src(task, s);

	/* In flight: setters are refused and change nothing. */
	assert_int_equal(doca_task_submit(base), DOCA_SUCCESS);
	ferry_test_log_reset();
	doca_dma_task_memcpy_set_src(task, NULL);
	assert_logged("doca_dma_task_memcpy_set_src: dma memcpy task");
	assert_logged("is in flight");
	doca_dma_task_memcpy_set_dst(task, d);
	assert_ptr_equal(doca_dma_task_memcpy_get_src(task), s);
	assert_ptr_equal(doca_dma_task_memcpy_get_dst(task), d2);
	/* Submitting again while in flight is refused too. */
	assert_int_equal(doca_task_submit(base), DOCA_ERROR_BAD_STATE);
	assert_logged("already in flight");
	fix_wait_completions(f, 1);
	assert_int_equal(f->successes, 1);
	assert_ptr_equal(f->last_task, task);
	doca_task_free(base);
	fix_put(s);
	fix_put(d);
	fix_put(d2);
}

/* ---- submit rules ---- */

/* Allocate a task over (src, dst), submit it, expect @p err and a line with @p needle. */
static void expect_submit_refused(struct dma_fix *f, const struct doca_buf *src, struct doca_buf *dst, doca_error_t err,
				  const char *needle)
{
	struct doca_dma_task_memcpy *task = NULL;
	size_t inflight = 99;

	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src, dst, no_data, &task), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), err);
	assert_logged(needle);
	assert_logged("doca_task_submit: dma memcpy task");
	/* Refused means not in flight: nothing completes, the task can be freed. */
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f->ctx, &inflight), DOCA_SUCCESS);
	assert_int_equal(inflight, 0);
	assert_int_equal(doca_pe_progress(f->pe), 0);
	assert_int_equal(f->successes + f->errors, 0);
	doca_task_free(doca_dma_task_memcpy_as_task(task));
}

static void test_submit_missing_bufs(void **state)
{
	struct dma_fix *f = *state;
	struct doca_buf *s = fix_src_buf(f, f->src_mmap, f->src_mem, 0, 64);
	struct doca_buf *d = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 0, 64);

	fix_start(f, 4, FERRY_ENGINE_INLINE);
	expect_submit_refused(f, NULL, d, DOCA_ERROR_INVALID_VALUE, "has no source buf");
	expect_submit_refused(f, s, NULL, DOCA_ERROR_INVALID_VALUE, "has no destination buf");
	fix_put(s);
	fix_put(d);
}

static void test_submit_empty_source(void **state)
{
	struct dma_fix *f = *state;
	/* The classic mistake: a source taken by address, data never set. */
	struct doca_buf *s = fix_dst_buf(f, f->src_mmap, f->src_mem, 0, 64);
	struct doca_buf *d = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 0, 64);

	struct doca_buf *s2 = fix_src_buf(f, f->src_mmap, f->src_mem, 64, 64);
	struct doca_buf *d2 = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 64, 64);
	struct doca_dma_task_memcpy *bad = NULL, *later = NULL;
	enum doca_ctx_states st;

	/*
	 * As on DOCA (its pe_task_error sample): submit accepts the task and logs
	 * the rule; the copy fails through progress and the context stops itself.
	 */
	fix_start(f, 4, FERRY_ENGINE_INLINE);
	f->num_states = 0;
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, s, d, no_data, &bad), DOCA_SUCCESS);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, s2, d2, no_data, &later), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(bad)), DOCA_SUCCESS);
	assert_logged("has no data (data_len 0");
	assert_int_equal(f->errors, 0); /* never inside submit */
	fix_wait_completions(f, 1);
	assert_int_equal(f->errors, 1);
	assert_int_equal(doca_task_get_status(doca_dma_task_memcpy_as_task(bad)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(fix_data_len(d), 0);
	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(later)), DOCA_ERROR_BAD_STATE);
	/* IDLE once the tasks are freed. */
	doca_task_free(doca_dma_task_memcpy_as_task(bad));
	doca_task_free(doca_dma_task_memcpy_as_task(later));
	assert_true(fix_drain_to_idle(f));
	assert_int_equal(f->states[f->num_states - 1], DOCA_CTX_STATE_IDLE);
	fix_put(s);
	fix_put(d);
	fix_put(s2);
	fix_put(d2);
}

static void test_submit_dst_too_small(void **state)
{
	struct dma_fix *f = *state;
	struct doca_buf *s = fix_src_buf(f, f->src_mmap, f->src_mem, 0, 100);
	struct doca_buf *d = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 0, 99);
	struct doca_buf *d_full = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 256, 150);

	fix_start(f, 4, FERRY_ENGINE_INLINE);
	memset(f->dst_mem, 0xEE, 512);
	expect_submit_refused(f, s, d, DOCA_ERROR_INVALID_VALUE,
			      "destination has 99 free bytes after its data; the source holds 100");
	/* Free space counts from data + data_len: 150 - 60 of data = 90 < 100. */
	assert_int_equal(doca_buf_set_data(d_full, f->dst_mem + 256, 60), DOCA_SUCCESS);
	expect_submit_refused(f, s, d_full, DOCA_ERROR_INVALID_VALUE, "destination has 90 free bytes");
	for (int i = 0; i < 512; i++)
		assert_int_equal(f->dst_mem[i], 0xEE);
	assert_int_equal(fix_data_len(d_full), 60);
	fix_put(s);
	fix_put(d);
	fix_put(d_full);
}

static void test_submit_read_only_dst(void **state)
{
	struct dma_fix *f = *state;
	struct doca_buf *s = fix_src_buf(f, f->src_mmap, f->src_mem, 0, 64);
	struct doca_buf *d = fix_dst_buf(f, f->ro_mmap, f->ro_mem, 0, 64);
	/* A read-only mmap is fine as a source. */
	struct doca_buf *s_ro = fix_src_buf(f, f->ro_mmap, f->ro_mem, 0, 64);
	struct doca_buf *d_ok = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 0, 64);
	struct doca_dma_task_memcpy *task = NULL;

	fix_start(f, 4, FERRY_ENGINE_INLINE);
	expect_submit_refused(f, s, d, DOCA_ERROR_NOT_PERMITTED,
			      "is read-only; a destination needs DOCA_ACCESS_FLAG_LOCAL_READ_WRITE");
	memset(f->ro_mem, 0x5A, 64);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, s_ro, d_ok, no_data, &task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
	fix_wait_completions(f, 1);
	assert_int_equal(f->successes, 1);
	assert_memory_equal(f->dst_mem, f->ro_mem, 64);
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	fix_put(s);
	fix_put(d);
	fix_put(s_ro);
	fix_put(d_ok);
}

static void test_submit_mmap_without_device(void **state)
{
	struct dma_fix *f = *state;
	struct doca_buf *s = fix_src_buf(f, f->src_mmap, f->src_mem, 0, 64);
	struct doca_buf *d = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 0, 64);
	struct doca_buf *s_nodev = fix_src_buf(f, f->nodev_mmap, f->nodev_mem, 0, 64);
	struct doca_buf *d_nodev = fix_dst_buf(f, f->nodev_mmap, f->nodev_mem, 0, 64);

	fix_start(f, 4, FERRY_ENGINE_INLINE);
	expect_submit_refused(f, s_nodev, d, DOCA_ERROR_INVALID_VALUE, "source buf");
	assert_logged("was not added to its mmap");
	expect_submit_refused(f, s, d_nodev, DOCA_ERROR_INVALID_VALUE, "destination buf");
	assert_logged("was not added to its mmap");
	fix_put(s);
	fix_put(d);
	fix_put(s_nodev);
	fix_put(d_nodev);
}

/* A list of @p n bufs over consecutive @p seg-byte pieces of mem. */
static struct doca_buf *make_list(struct dma_fix *f, struct doca_mmap *mmap, uint8_t *mem, uint32_t n, size_t seg,
				  bool as_src)
{
	struct doca_buf *head = NULL;

	for (uint32_t i = 0; i < n; i++) {
		struct doca_buf *b = as_src ? fix_src_buf(f, mmap, mem, i * seg, seg)
					    : fix_dst_buf(f, mmap, mem, i * seg, seg);

		if (head == NULL)
			head = b;
		else
			assert_int_equal(doca_buf_chain_list(head, b), DOCA_SUCCESS);
	}
	return head;
}

static void test_submit_list_too_long(void **state)
{
	struct dma_fix *f = *state;
	uint32_t max = 0, seed = 3;
	struct doca_buf *s_long, *d_long, *s_max, *d_max, *s, *d;
	struct doca_dma_task_memcpy *task = NULL;

	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(f->dev), &max),
			 DOCA_SUCCESS);
	s_long = make_list(f, f->src_mmap, f->src_mem, max + 1, 16, true);
	d_long = make_list(f, f->dst_mmap, f->dst_mem, max + 1, 16, false);
	s_max = make_list(f, f->src_mmap, f->src_mem + 65536, max, 16, true);
	d_max = make_list(f, f->dst_mmap, f->dst_mem + 65536, max, 16, false);
	s = fix_src_buf(f, f->src_mmap, f->src_mem, 0, 16);
	d = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 131072, 65536);

	fix_start(f, 4, FERRY_ENGINE_INLINE);
	expect_submit_refused(f, s_long, d, DOCA_ERROR_INVALID_VALUE, "source list is longer than the device limit");
	expect_submit_refused(f, s, d_long, DOCA_ERROR_INVALID_VALUE,
			      "destination list is longer than the device limit");
	/* Exactly the limit on both sides is accepted. */
	fix_fill_random(f->src_mem + 65536, 16 * max, &seed);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, s_max, d_max, no_data, &task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
	fix_wait_completions(f, 1);
	assert_int_equal(f->successes, 1);
	assert_memory_equal(f->dst_mem + 65536, f->src_mem + 65536, 16 * (size_t)max);
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	fix_put(s_long);
	fix_put(d_long);
	fix_put(s_max);
	fix_put(d_max);
	fix_put(s);
	fix_put(d);
}

static void test_submit_above_max_size(void **state)
{
	struct dma_fix *f = *state;
	uint64_t max = 0;
	size_t span;
	void *huge;
	struct doca_mmap *big = NULL;
	struct doca_buf *s, *d;

	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(f->dev), &max), DOCA_SUCCESS);
	/* Address space only: the copy is refused before any byte is touched. */
	span = (size_t)max + 4096;
	huge = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (huge == MAP_FAILED) {
		struct rlimit as;
		int err = errno;

		/* A process whose address space is capped (ulimit -v) may have no room for it: not for here. */
		if (err == ENOMEM && getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
			ferry_test_skip("ulimit -v (%llu bytes) leaves no room for %zu bytes of address space",
					(unsigned long long)as.rlim_cur, span);
		fail_msg("cannot reserve %zu bytes of address space: %s", span, strerror(err));
	}
	assert_int_equal(doca_mmap_create(&big), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(big, huge, span), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(big, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(big), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, big, huge, (size_t)max + 1, &s), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, big, huge, span, &d), DOCA_SUCCESS);

	fix_start(f, 4, FERRY_ENGINE_INLINE);
	expect_submit_refused(f, s, d, DOCA_ERROR_INVALID_VALUE, "above the device limit");
	fix_put(s);
	fix_put(d);
	assert_int_equal(doca_mmap_destroy(big), DOCA_SUCCESS);
	munmap(huge, span);
}

static void test_submit_not_running(void **state)
{
	struct dma_fix *f = *state;
	struct doca_buf *s = fix_src_buf(f, f->src_mmap, f->src_mem, 0, 64);
	struct doca_buf *d = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 0, 64);
	struct doca_dma_task_memcpy *task = NULL;

	fix_start(f, 4, FERRY_ENGINE_INLINE);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, s, d, no_data, &task), DOCA_SUCCESS);
	/* Nothing in flight, but the test still holds a task: STOPPING until it is freed. */
	assert_int_equal(doca_ctx_stop(f->ctx), DOCA_ERROR_IN_PROGRESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_task_submit: context 'dma' is STOPPING; tasks need RUNNING");
	assert_int_equal(fix_data_len(d), 0);
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	assert_true(fix_drain_to_idle(f));
	fix_put(s);
	fix_put(d);
}

/* ---- callbacks: progress from a callback, destroy from a callback ---- */

static void progress_inside(struct dma_fix *f, struct doca_dma_task_memcpy *task, bool success)
{
	(void)task;
	(void)success;
	assert_int_equal(doca_pe_progress(f->pe), 0);
	assert_int_equal(doca_dma_destroy(f->dma), DOCA_ERROR_BAD_STATE);
}

static void test_progress_and_destroy_from_callback(void **state)
{
	struct dma_fix *f = *state;
	struct doca_buf *s = fix_src_buf(f, f->src_mmap, f->src_mem, 0, 64);
	struct doca_buf *d = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 0, 64);
	struct doca_dma_task_memcpy *task = NULL;

	fix_start(f, 4, FERRY_ENGINE_INLINE);
	f->on_complete = progress_inside;
	f->free_in_cb = true;
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, s, d, no_data, &task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
	ferry_test_log_reset();
	fix_wait_completions(f, 1);
	assert_logged("progress must not be called from a callback");
	assert_logged("doca_dma_destroy: context 'dma' is RUNNING; destroy needs IDLE");
	fix_put(s);
	fix_put(d);
}

/* ---- the data-segment semantics, read back ---- */

static void test_copy_appends_after_dst_data(void **state)
{
	struct dma_fix *f = *state;
	struct doca_buf *s, *d;
	struct doca_dma_task_memcpy *task = NULL;
	void *data = NULL;
	uint32_t seed = 7;

	fix_fill_random(f->src_mem, 4096, &seed);
	memset(f->dst_mem, 0xAB, 4096);
	/* Source data is [src + 100, +300) inside a window [src, +1000). */
	assert_int_equal(
		doca_buf_inventory_buf_get_by_args(f->inv, f->src_mmap, f->src_mem, 1000, f->src_mem + 100, 300, &s),
		DOCA_SUCCESS);
	/* Destination already holds 50 bytes at [dst + 10, +50); window [dst, +400). */
	assert_int_equal(
		doca_buf_inventory_buf_get_by_args(f->inv, f->dst_mmap, f->dst_mem, 400, f->dst_mem + 10, 50, &d),
		DOCA_SUCCESS);
	fix_start(f, 4, FERRY_ENGINE_INLINE);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, s, d, no_data, &task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
	/* Nothing completes inside submit, and data_len moves only at completion. */
	assert_int_equal(f->successes + f->errors, 0);
	assert_int_equal(fix_data_len(d), 50);
	fix_wait_completions(f, 1);
	assert_int_equal(f->successes, 1);
	assert_int_equal(f->last_status, DOCA_SUCCESS);
	/* Written at data + data_len = dst + 60; data start unchanged, length grown. */
	assert_memory_equal(f->dst_mem + 60, f->src_mem + 100, 300);
	for (int i = 0; i < 60; i++)
		assert_int_equal(f->dst_mem[i], 0xAB);
	for (int i = 360; i < 4096; i++)
		assert_int_equal(f->dst_mem[i], 0xAB);
	assert_int_equal(doca_buf_get_data(d, &data), DOCA_SUCCESS);
	assert_ptr_equal(data, f->dst_mem + 10);
	assert_int_equal(fix_data_len(d), 350);
	/* Source unchanged. */
	assert_int_equal(fix_data_len(s), 300);
	/* Exactly-fitting copy: 40 bytes of room left after 350 bytes at +10 in 400. */
	assert_int_equal(doca_buf_set_data(s, f->src_mem, 40), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
	fix_wait_completions(f, 1);
	assert_int_equal(f->successes, 2);
	assert_int_equal(fix_data_len(d), 390);
	assert_memory_equal(f->dst_mem + 360, f->src_mem, 40);
	/* Now full: one more byte is refused. */
	assert_int_equal(doca_buf_set_data(s, f->src_mem, 1), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_ERROR_INVALID_VALUE);
	assert_logged("destination has 0 free bytes");
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	fix_put(s);
	fix_put(d);
}

static void test_chained_dst_fills_in_order(void **state)
{
	struct dma_fix *f = *state;
	struct doca_buf *s, *d1, *d2, *d3;
	struct doca_dma_task_memcpy *task = NULL;
	uint32_t seed = 99;

	fix_fill_random(f->src_mem, 1000, &seed);
	memset(f->dst_mem, 0, 4096);
	s = fix_src_buf(f, f->src_mmap, f->src_mem, 0, 250);
	/* d1: window 100 with 30 bytes of data already -> 70 free.
	 * d2: window 50, full of data -> 0 free (skipped).
	 * d3: window 500, empty -> takes the remaining 180. */
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->dst_mmap, f->dst_mem, 100, f->dst_mem, 30, &d1),
			 DOCA_SUCCESS);
	d2 = fix_src_buf(f, f->dst_mmap, f->dst_mem, 1000, 50);
	d3 = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 2000, 500);
	assert_int_equal(doca_buf_chain_list(d1, d2), DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(d1, d3), DOCA_SUCCESS);
	fix_start(f, 4, FERRY_ENGINE_INLINE);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, s, d1, no_data, &task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
	fix_wait_completions(f, 1);
	assert_int_equal(f->successes, 1);
	assert_memory_equal(f->dst_mem + 30, f->src_mem, 70);
	assert_memory_equal(f->dst_mem + 2000, f->src_mem + 70, 180);
	assert_int_equal(fix_data_len(d1), 100);
	assert_int_equal(fix_data_len(d2), 50);
	assert_int_equal(fix_data_len(d3), 180);
	assert_int_equal(f->dst_mem[2180], 0);
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	fix_put(s);
	fix_put(d1);
}

static void test_chained_src_reads_data_segments(void **state)
{
	struct dma_fix *f = *state;
	struct doca_buf *s1, *s2, *s3, *d;
	struct doca_dma_task_memcpy *task = NULL;
	uint8_t expect[70];
	uint32_t seed = 5;

	fix_fill_random(f->src_mem, 4096, &seed);
	/* Data segments at +10 (20 bytes), an empty one, +500 (50 bytes): windows are bigger. */
	assert_int_equal(
		doca_buf_inventory_buf_get_by_args(f->inv, f->src_mmap, f->src_mem, 100, f->src_mem + 10, 20, &s1),
		DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(f->inv, f->src_mmap, f->src_mem + 200, 100, &s2),
			 DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->src_mmap, f->src_mem + 400, 300,
							    f->src_mem + 500, 50, &s3),
			 DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(s1, s2), DOCA_SUCCESS);
	assert_int_equal(doca_buf_chain_list(s1, s3), DOCA_SUCCESS);
	d = fix_dst_buf(f, f->dst_mmap, f->dst_mem, 0, 70);
	memcpy(expect, f->src_mem + 10, 20);
	memcpy(expect + 20, f->src_mem + 500, 50);
	fix_start(f, 4, FERRY_ENGINE_INLINE);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, s1, d, no_data, &task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
	fix_wait_completions(f, 1);
	assert_int_equal(f->successes, 1);
	assert_memory_equal(f->dst_mem, expect, 70);
	assert_int_equal(fix_data_len(d), 70);
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	fix_put(s1);
	fix_put(d);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fix_setup, fix_teardown)

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		T(test_create_null),
		T(test_create_destroy_second_context),
		T(test_destroy_null_and_not_idle),
		T(test_as_ctx),
		T(test_caps_invalid),
		T(test_caps_values),
		T(test_set_conf_invalid),
		T(test_set_conf_needs_idle),
		T(test_start_without_conf),
		T(test_misc_calls),
		T(test_alloc_invalid_and_states),
		T(test_alloc_empty_pool),
		T(test_task_accessors),
		T(test_submit_missing_bufs),
		T(test_submit_empty_source),
		T(test_submit_dst_too_small),
		T(test_submit_read_only_dst),
		T(test_submit_mmap_without_device),
		T(test_submit_list_too_long),
		T(test_submit_above_max_size),
		T(test_submit_not_running),
		T(test_progress_and_destroy_from_callback),
		T(test_copy_appends_after_dst_data),
		T(test_chained_dst_fills_in_order),
		T(test_chained_src_reads_data_segments),
	};

	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
