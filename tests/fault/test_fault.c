/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fault.c - FERRY_FAULT applied to DMA tasks (core/fault.c): every Nth
 * fails with the chosen status and stops the context as a real failure does,
 * a probability with a seed replays, after/count bound the hits, a rule for
 * another context leaves DMA alone, a refused plan injects nothing, and a
 * delay makes completions later but never loses one; an import is revoked at
 * the use an mmap.export rule names, and only that import.
 *
 * Tasks go one at a time, so that the Nth completion is the Nth task and a
 * context stopped by a failure is restarted before the next one.
 */
#include <time.h>

#include "core/fault.h"
#include "core/mem_priv.h"
#include "dma_fixture.h"

#define MAX_RUN 64

static const union doca_data no_data = {.u64 = 0};

/* Run @p n tasks one by one; failed[i] tells whether task i failed (with status[i]). */
static void run_serial(struct dma_fix *f, unsigned n, bool *failed, doca_error_t *status)
{
	for (unsigned i = 0; i < n; i++) {
		struct doca_dma_task_memcpy *task = NULL;
		struct doca_buf *src, *dst;
		enum doca_ctx_states st;
		unsigned errors_before = f->errors;

		assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
		if (st == DOCA_CTX_STATE_IDLE)
			fix_start(f, 4, FERRY_ENGINE_INLINE);
		f->src_mem[i] = (uint8_t)(i + 1);
		src = fix_src_buf(f, f->src_mmap, f->src_mem, i, 1);
		dst = fix_dst_buf(f, f->dst_mmap, f->dst_mem, i, 1);
		assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src, dst, no_data, &task), DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
		fix_wait_completions(f, 1);
		failed[i] = f->errors != errors_before;
		status[i] = f->last_status;
		if (!failed[i]) {
			assert_int_equal(fix_data_len(dst), 1);
			assert_int_equal(f->dst_mem[i], (uint8_t)(i + 1));
		}
		doca_task_free(doca_dma_task_memcpy_as_task(task));
		fix_put(src);
		fix_put(dst);
		if (failed[i]) {
			/* As for a real failed copy: the context stops by itself. */
			assert_true(fix_drain_to_idle(f));
		}
	}
}

static void test_every_nth(void **state)
{
	struct dma_fix *f = *state;
	bool failed[12];
	doca_error_t status[12];

	assert_int_equal(ferry_fault_install("dma.memcpy:every=4:status=DOCA_ERROR_IO_FAILED"), DOCA_SUCCESS);
	run_serial(f, 12, failed, status);
	for (unsigned i = 0; i < 12; i++) {
		assert_int_equal(failed[i], (i + 1) % 4 == 0);
		assert_int_equal(status[i], failed[i] ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS);
	}
	assert_int_equal(f->errors, 3);
	assert_int_equal(f->successes, 9);
}

static void test_after_count(void **state)
{
	struct dma_fix *f = *state;
	bool failed[8];
	doca_error_t status[8];

	assert_int_equal(ferry_fault_install("dma:after=2:count=2:status=DOCA_ERROR_AGAIN"), DOCA_SUCCESS);
	run_serial(f, 8, failed, status);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(failed[i], i == 2 || i == 3);
	assert_int_equal(status[2], DOCA_ERROR_AGAIN);
}

static void test_prob_seed_replays(void **state)
{
	const char *plan = "dma.memcpy:prob=0.3:seed=7:status=DOCA_ERROR_AGAIN";
	bool first[40], again[40], other[40];
	doca_error_t status[40];
	unsigned hits = 0;

	assert_int_equal(ferry_fault_install(plan), DOCA_SUCCESS);
	run_serial(*state, 40, first, status);
	/* A fresh context starts the same sequence again. */
	assert_int_equal(fix_teardown(state), 0);
	assert_int_equal(fix_setup(state), 0);
	assert_int_equal(ferry_fault_install(plan), DOCA_SUCCESS);
	run_serial(*state, 40, again, status);
	assert_memory_equal(first, again, sizeof(first));
	for (unsigned i = 0; i < 40; i++)
		hits += first[i];
	assert_true(hits > 2 && hits < 30);
	/* Another seed, another sequence. */
	assert_int_equal(fix_teardown(state), 0);
	assert_int_equal(fix_setup(state), 0);
	assert_int_equal(ferry_fault_install("dma.memcpy:prob=0.3:seed=8:status=DOCA_ERROR_AGAIN"), DOCA_SUCCESS);
	run_serial(*state, 40, other, status);
	assert_memory_not_equal(first, other, sizeof(first));
}

static void test_other_context_untouched(void **state)
{
	struct dma_fix *f = *state;
	bool failed[10];
	doca_error_t status[10];

	assert_int_equal(ferry_fault_install("comch.send:status=DOCA_ERROR_IO_FAILED;comch_client:delay_us=100;"
					     "dma.recv:status=DOCA_ERROR_IO_FAILED"),
			 DOCA_SUCCESS);
	run_serial(f, 10, failed, status);
	assert_int_equal(f->errors, 0);
	assert_int_equal(f->successes, 10);
	/* No rule named DMA's pool, so it carries no state: the off path. */
	assert_null(f->dma->pool.fault);
}

static void test_bad_plan_injects_nothing(void **state)
{
	struct dma_fix *f = *state;
	bool failed[6];
	doca_error_t status[6];

	assert_int_equal(ferry_fault_install("dma.memcpy:every=1:status=DOCA_ERROR_IO_FAILED;dma:every=0:status="
					     "DOCA_ERROR_IO_FAILED"),
			 DOCA_ERROR_INVALID_VALUE);
	assert_true(ferry_test_log_has("FERRY_FAULT refused, no faults are injected: rule 2"));
	assert_true(ferry_test_log_has("every must be at least 1"));
	run_serial(f, 6, failed, status);
	assert_int_equal(f->errors, 0);
	assert_null(f->dma->pool.fault);
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void test_delay_later_not_lost(void **state)
{
	struct dma_fix *f = *state;
	enum { N = 8, DELAY_US = 20000 };
	struct doca_dma_task_memcpy *task[N];
	struct doca_buf *src[N], *dst[N];
	uint64_t t0;

	assert_int_equal(ferry_fault_install("dma.memcpy:every=2:delay_us=20000"), DOCA_SUCCESS);
	fix_start(f, N, FERRY_ENGINE_INLINE);
	memset(f->src_mem, 0x5a, N * 64);
	t0 = mono_us();
	for (unsigned i = 0; i < N; i++) {
		src[i] = fix_src_buf(f, f->src_mmap, f->src_mem, i * 64, 64);
		dst[i] = fix_dst_buf(f, f->dst_mmap, f->dst_mem, i * 64, 64);
		assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src[i], dst[i], no_data, &task[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task[i])), DOCA_SUCCESS);
	}
	/* The undelayed half arrives at once; the other half only after the delay. */
	fix_wait_completions(f, N / 2);
	assert_true(mono_us() - t0 < DELAY_US);
	fix_wait_completions(f, N / 2);
	assert_true(mono_us() - t0 >= DELAY_US);
	assert_int_equal(f->errors, 0);
	for (unsigned i = 0; i < N; i++) {
		assert_memory_equal(f->dst_mem + i * 64, f->src_mem + i * 64, 64);
		doca_task_free(doca_dma_task_memcpy_as_task(task[i]));
		fix_put(src[i]);
		fix_put(dst[i]);
	}
}

/* A stop while completions are held waits for them: nothing is lost, the context still reaches IDLE. */
static void test_delay_then_stop(void **state)
{
	struct dma_fix *f = *state;
	enum { N = 4 };
	struct doca_dma_task_memcpy *task[N];
	struct doca_buf *src[N], *dst[N];

	assert_int_equal(ferry_fault_install("*:delay_us=5000"), DOCA_SUCCESS);
	f->free_in_cb = true;
	fix_start(f, N, FERRY_ENGINE_WORKER);
	for (unsigned i = 0; i < N; i++) {
		src[i] = fix_src_buf(f, f->src_mmap, f->src_mem, i * 64, 64);
		dst[i] = fix_dst_buf(f, f->dst_mmap, f->dst_mem, i * 64, 64);
		assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src[i], dst[i], no_data, &task[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task[i])), DOCA_SUCCESS);
	}
	(void)doca_ctx_stop(f->ctx);
	assert_true(fix_drain_to_idle(f));
	assert_int_equal(f->successes + f->errors, N);
	for (unsigned i = 0; i < N; i++) {
		fix_put(src[i]);
		fix_put(dst[i]);
	}
}

/* Export @p mem over PCI and import it again in this process (the local path). */
static struct doca_mmap *export_and_import(struct dma_fix *f, uint8_t *mem, struct doca_mmap **exported)
{
	struct doca_mmap *imported = NULL;
	const void *desc = NULL;
	size_t desc_len = 0;

	assert_int_equal(doca_mmap_create(exported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(*exported, mem, FIX_MEM_LEN), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(*exported, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(*exported, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(*exported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_pci(*exported, f->dev, &desc, &desc_len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, desc_len, f->dev, &imported), DOCA_SUCCESS);
	return imported;
}

/* One task from @p src (its byte at mem + off) to the destination map's byte at off; its submit's answer. */
static doca_error_t copy_one(struct dma_fix *f, struct doca_buf *src, uint8_t *mem, size_t off)
{
	struct doca_dma_task_memcpy *task = NULL;
	struct doca_buf *dst = fix_dst_buf(f, f->dst_mmap, f->dst_mem, off, 1);
	unsigned done = f->successes + f->errors;
	doca_error_t err;

	mem[off] = (uint8_t)(off + 7);
	assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src, dst, no_data, &task), DOCA_SUCCESS);
	err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
	if (err == DOCA_SUCCESS) {
		fix_wait_completions(f, 1);
		assert_int_equal(f->successes + f->errors, done + 1);
		assert_int_equal(f->dst_mem[off], (uint8_t)(off + 7));
	}
	doca_task_free(doca_dma_task_memcpy_as_task(task));
	fix_put(dst);
	return err;
}

static void test_export_revoked_after_n(void **state)
{
	enum { N = 6 };
	struct dma_fix *f = *state;
	struct doca_mmap *exported, *imported, *unwatched_exp, *unwatched;
	struct doca_buf *src[N], *late = NULL;

	/* Imported before the plan: not watched. */
	unwatched = export_and_import(f, f->ro_mem, &unwatched_exp);
	assert_null(unwatched->fault);
	assert_int_equal(ferry_fault_install("mmap.export:after=3:action=revoke"), DOCA_SUCCESS);
	imported = export_and_import(f, f->src_mem, &exported);
	assert_non_null(imported->fault);
	/* Taking bufs is no use of the bytes: only tasks count. */
	for (size_t i = 0; i < N; i++)
		src[i] = fix_src_buf(f, imported, f->src_mem, i, 1);
	fix_start(f, 4, FERRY_ENGINE_INLINE);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(copy_one(f, src[i], f->src_mem, i), DOCA_SUCCESS);
	ferry_test_log_reset();
	/* The 4th use finds the export revoked, as if its exporter had stopped it; so does every later one. */
	assert_int_equal(copy_one(f, src[3], f->src_mem, 3), DOCA_ERROR_BAD_STATE);
	assert_true(ferry_test_log_has("revoked at its use 4 by FERRY_FAULT (mmap.export:after=3:action=revoke)"));
	assert_int_equal(copy_one(f, src[4], f->src_mem, 4), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(f->inv, imported, f->src_mem, 1, &late),
			 DOCA_ERROR_BAD_STATE);
	/* The exporter's own map and an unwatched import still work. */
	for (size_t i = 0; i < N; i++)
		fix_put(src[i]);
	src[0] = fix_src_buf(f, f->src_mmap, f->src_mem, 5, 1);
	assert_int_equal(copy_one(f, src[0], f->src_mem, 5), DOCA_SUCCESS);
	fix_put(src[0]);
	src[0] = fix_src_buf(f, unwatched, f->ro_mem, 6, 1);
	assert_int_equal(copy_one(f, src[0], f->ro_mem, 6), DOCA_SUCCESS);
	fix_put(src[0]);
	assert_int_equal(f->errors, 0);
	assert_true(fix_stop(f));
	assert_int_equal(doca_mmap_destroy(imported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(exported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(unwatched), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(unwatched_exp), DOCA_SUCCESS);
}

static int fault_teardown(void **state)
{
	int rc = fix_teardown(state);

	(void)ferry_fault_install(NULL);
	return rc;
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fix_setup, fault_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_every_nth),
		T(test_after_count),
		T(test_prob_seed_replays),
		T(test_other_context_untouched),
		T(test_bad_plan_injects_nothing),
		T(test_delay_later_not_lost),
		T(test_delay_then_stop),
		T(test_export_revoked_after_n),
	};

	unsetenv("FERRY_FAULT");
	ferry_fault_init(); /* read the (empty) environment now, so the tests' plans are not replaced */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
