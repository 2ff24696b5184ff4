/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_bench - DOCA DMA memcpy tasks against plain memcpy, in one process and
 * one run, on the same buffers, for each of Ferry's copy engines.
 *
 *   dma_bench [seconds-per-measurement]   (default 0.5; a run takes ~10 s)
 *
 * Measurements, per engine (inline, worker, auto):
 *   - 64 B copies at queue depth 64, cache resident: tasks/s through the whole
 *     DOCA path (submit, progress, callback, resubmit) on one core. Target:
 *     >= 10 M tasks/s.
 *   - 1 MiB copies (queue depth 8) and 64 MiB copies (queue depth 4) walking a
 *     256 MiB span, so the data comes from memory, not cache. Target: >= 0.9x
 *     memcpy on the same span.
 * memcpy runs the same sizes over the same offsets of the same buffers.
 *
 * Output: a table with the ratio to memcpy, then one JSON line per measurement
 * (prefix "JSON "):
 *   JSON {"bench":"dma","engine":"worker","size":1048576,"qd":8,"tasks_per_s":...,
 *         "gb_per_s":...,"memcpy_gb_per_s":...,"vs_memcpy":...}
 * GB/s counts bytes copied (1e9 bytes per GB).
 *
 * The engine of each run is set with ferry_dma_set_engine (Ferry internal);
 * FERRY_DMA_ENGINE is cleared at start so it cannot override the sweep.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "dma/dma_priv.h"
#include "bench_util.h"
#include "ferry_test_dev.h"

#define MiB    ((size_t)1 << 20)
#define SPAN   (256 * MiB)
#define MAX_QD 64u

static double measure_s = 0.5;

/* Where copy number i of @p size bytes sits: small copies stay in a 64-slot
 * window (cache resident), large ones walk the span. */
static size_t place(uint64_t i, size_t size)
{
	if (size <= 4096)
		return (size_t)(i % MAX_QD) * 4096;
	return (size_t)(i % (SPAN / size)) * size;
}

/* ---- memcpy baseline ---- */

static double bench_memcpy(unsigned char *dst, const unsigned char *src, size_t size, double *ops_per_s)
{
	uint64_t done = 0, batch = size <= 4096 ? 4096 : 1;
	double t0 = now_s(), t;

	do {
		for (uint64_t k = 0; k < batch; k++, done++) {
			size_t off = place(done, size);

			memcpy(dst + off, src + off, size);
		}
		__asm__ volatile("" : : "r"(dst) : "memory"); /* keep the copies */
		t = now_s() - t0;
	} while (t < measure_s);
	*ops_per_s = (double)done / t;
	return (double)done * (double)size / t / 1e9;
}

/* ---- DMA ---- */

struct bench {
	struct doca_dev *dev;
	struct doca_mmap *src_mmap, *dst_mmap;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	unsigned char *src, *dst;
	struct doca_buf *src_buf[MAX_QD], *dst_buf[MAX_QD];
	struct doca_dma_task_memcpy *task[MAX_QD];
	size_t size;
	uint64_t next; /* copy number of the next submit */
	uint64_t completed;
	uint64_t failed;
	bool draining; /* stop resubmitting */
};

/* Aim a task's bufs at copy number b->next. */
static inline void aim(struct bench *b, unsigned slot)
{
	size_t off = place(b->next++, b->size);

	(void)doca_buf_set_data(b->src_buf[slot], b->src + off, b->size);
	(void)doca_buf_set_data(b->dst_buf[slot], b->dst + off, 0);
}

static void on_done(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct bench *b = ctx_ud.ptr;

	b->completed++;
	if (b->draining)
		return;
	aim(b, (unsigned)task_ud.u64);
	if (doca_task_submit(doca_dma_task_memcpy_as_task(task)) != DOCA_SUCCESS)
		b->failed++;
}

static void on_error(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct bench *b = ctx_ud.ptr;

	(void)task;
	(void)task_ud;
	b->failed++;
	b->completed++;
}

static bool make_mmap(struct bench *b, unsigned char *mem, struct doca_mmap **mmap)
{
	return doca_mmap_create(mmap) == DOCA_SUCCESS && doca_mmap_set_memrange(*mmap, mem, SPAN) == DOCA_SUCCESS &&
	       doca_mmap_add_dev(*mmap, b->dev) == DOCA_SUCCESS && doca_mmap_start(*mmap) == DOCA_SUCCESS;
}

static bool bench_setup(struct bench *b)
{
	union doca_data ud = {.ptr = b};

	b->src = aligned_alloc(4096, SPAN);
	b->dst = aligned_alloc(4096, SPAN);
	if (b->src == NULL || b->dst == NULL)
		return false;
	memset(b->src, 0x5a, SPAN); /* fault every page in before timing */
	memset(b->dst, 0, SPAN);
	b->dev = ferry_test_open_dev("b1:00.0", NULL);
	if (b->dev == NULL || !make_mmap(b, b->src, &b->src_mmap) || !make_mmap(b, b->dst, &b->dst_mmap))
		return false;
	if (doca_buf_inventory_create(2 * MAX_QD, &b->inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(b->inv) != DOCA_SUCCESS)
		return false;
	/* Each buf's window is the whole span; aim() moves its data inside it. */
	for (unsigned i = 0; i < MAX_QD; i++)
		if (doca_buf_inventory_buf_get_by_addr(b->inv, b->src_mmap, b->src, SPAN, &b->src_buf[i]) !=
			    DOCA_SUCCESS ||
		    doca_buf_inventory_buf_get_by_addr(b->inv, b->dst_mmap, b->dst, SPAN, &b->dst_buf[i]) !=
			    DOCA_SUCCESS)
			return false;
	return doca_pe_create(&b->pe) == DOCA_SUCCESS && doca_dma_create(b->dev, &b->dma) == DOCA_SUCCESS &&
	       (b->ctx = doca_dma_as_ctx(b->dma)) != NULL &&
	       doca_dma_task_memcpy_set_conf(b->dma, on_done, on_error, MAX_QD) == DOCA_SUCCESS &&
	       doca_ctx_set_user_data(b->ctx, ud) == DOCA_SUCCESS && doca_pe_connect_ctx(b->pe, b->ctx) == DOCA_SUCCESS;
}

/* One measurement: @p qd tasks of @p size bytes kept in flight for measure_s. */
static bool bench_dma(struct bench *b, enum ferry_engine_kind engine, size_t size, unsigned qd, double *tasks_per_s,
		      double *gb_per_s)
{
	double t0, t;
	uint64_t start_completed;
	size_t inflight = 0;

	if (ferry_dma_set_engine(b->dma, engine) != DOCA_SUCCESS || doca_ctx_start(b->ctx) != DOCA_SUCCESS)
		return false;
	b->size = size;
	b->next = b->completed = b->failed = 0;
	b->draining = false;
	for (unsigned i = 0; i < qd; i++) {
		union doca_data slot = {.u64 = i};

		aim(b, i);
		if (doca_dma_task_memcpy_alloc_init(b->dma, b->src_buf[i], b->dst_buf[i], slot, &b->task[i]) !=
			    DOCA_SUCCESS ||
		    doca_task_submit(doca_dma_task_memcpy_as_task(b->task[i])) != DOCA_SUCCESS)
			return false;
	}
	/* Warm up briefly, then time. */
	t0 = now_s();
	while (now_s() - t0 < measure_s / 10)
		(void)doca_pe_progress(b->pe);
	start_completed = b->completed;
	t0 = now_s();
	do {
		/* Read the clock rarely for small copies, every time for large ones. */
		for (int k = size <= 4096 ? 256 : 1; k > 0; k--)
			(void)doca_pe_progress(b->pe);
		t = now_s() - t0;
	} while (t < measure_s);
	*tasks_per_s = (double)(b->completed - start_completed) / t;
	*gb_per_s = *tasks_per_s * (double)size / 1e9;
	/* Let the window drain, then stop. */
	b->draining = true;
	do {
		(void)doca_pe_progress(b->pe);
		(void)doca_ctx_get_num_inflight_tasks(b->ctx, &inflight);
	} while (inflight > 0);
	for (unsigned i = 0; i < qd; i++)
		doca_task_free(doca_dma_task_memcpy_as_task(b->task[i]));
	(void)doca_ctx_stop(b->ctx);
	return b->failed == 0;
}

/* The copies landed: spot-check the last window of the span. */
static bool spot_check(const struct bench *b, size_t size)
{
	size_t off = place(b->next - 1, size);

	return memcmp(b->dst + off, b->src + off, size) == 0;
}

int main(int argc, char **argv)
{
	static const enum ferry_engine_kind engines[] = {FERRY_ENGINE_INLINE, FERRY_ENGINE_WORKER, FERRY_ENGINE_AUTO};
	static const struct {
		size_t size;
		unsigned qd;
	} cases[] = {{64, 64}, {1 * MiB, 8}, {64 * MiB, 4}};
	static struct bench b;
	double memcpy_gbps[3], memcpy_ops[3];
	int rc = 0;

	if (argc > 1)
		measure_s = atof(argv[1]);
	if (measure_s <= 0)
		measure_s = 0.5;
	unsetenv("FERRY_DMA_ENGINE");
	if (!bench_setup(&b)) {
		fprintf(stderr, "dma_bench: setup failed\n");
		return 1;
	}
	for (unsigned c = 0; c < 3; c++)
		memcpy_gbps[c] = bench_memcpy(b.dst, b.src, cases[c].size, &memcpy_ops[c]);

	printf("%-7s %10s %3s %14s %10s %12s %9s  %s\n", "engine", "size", "qd", "tasks/s", "GB/s", "memcpy GB/s",
	       "vs memcpy", "target");
	for (unsigned e = 0; e < 3; e++) {
		for (unsigned c = 0; c < 3; c++) {
			double tps = 0, gbps = 0, ratio;
			bool small = cases[c].size <= 4096, met;

			memset(b.dst, 0, cases[c].size <= 4096 ? 64 * 4096 : 0);
			if (!bench_dma(&b, engines[e], cases[c].size, cases[c].qd, &tps, &gbps) ||
			    !spot_check(&b, cases[c].size)) {
				fprintf(stderr, "dma_bench: %s %zu B failed\n", ferry_engine_kind_name(engines[e]),
					cases[c].size);
				rc = 1;
				continue;
			}
			ratio = gbps / memcpy_gbps[c];
			met = small ? tps >= 10e6 : ratio >= 0.9;
			printf("%-7s %10zu %3u %14.0f %10.3f %12.3f %8.2fx  %s %s\n",
			       ferry_engine_kind_name(engines[e]), cases[c].size, cases[c].qd, tps, gbps,
			       memcpy_gbps[c], ratio, small ? ">=10M tasks/s" : ">=0.9x memcpy",
			       met ? "met" : "MISSED");
			printf("JSON {\"bench\":\"dma\",\"engine\":\"%s\",\"size\":%zu,\"qd\":%u,\"tasks_per_s\":%.0f,"
			       "\"gb_per_s\":%.3f,\"memcpy_ops_per_s\":%.0f,\"memcpy_gb_per_s\":%.3f,\"vs_memcpy\":%."
			       "3f,"
			       "\"target_met\":%s}\n",
			       ferry_engine_kind_name(engines[e]), cases[c].size, cases[c].qd, tps, gbps, memcpy_ops[c],
			       memcpy_gbps[c], ratio, met ? "true" : "false");
			fflush(stdout);
		}
	}
	return rc;
}
