/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_bench - DOCA DMA memcpy tasks against plain memcpy, in one process and
 * one run, on the same buffers, for each of Ferry's copy engines.
 *
 *   dma_bench [seconds-per-measurement]   (default 0.5; a run takes ~10 s)
 *   dma_bench --ws [seconds]              working sets (default 0.25; ~30 s)
 *   dma_bench --legacy [seconds]          DOCA 2.2 work-queue jobs against tasks
 *                                         (default 0.5; ~10 s); with --sizes and
 *                                         --depths, those points instead
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
 * --ws: 4 KiB, 64 KiB, 1 MiB and 16 MiB copies, each over two working sets: a
 * hot one (source and destination windows of WS_HOT bytes each, or one copy's
 * worth when larger, reused round and round, so a small copy's buffers sit in
 * the cache) and a cold one (the whole 256 MiB span, far larger than any
 * last-level cache here). memcpy on the same offsets, then each engine, ROUNDS
 * times interleaved, best kept. Target: the auto and inline engines >= 0.9x
 * memcpy at 4 KiB in both working sets; the rows of 1 MiB and more are there to
 * check that large copies lose nothing.
 *
 * --legacy: the same copies as DOCA 2.2 memcpy jobs through a work queue
 * (bench/legacy22_rows.c, built against the 2.2 headers) beside DOCA 3 tasks
 * on the same engine choice (auto), 64 B at queue depth 64 and 1 MiB at 8,
 * ROUNDS interleaved rounds, best kept. Target: a job within 10% of a task
 * (>= 0.9x) at both sizes.
 *
 * Output: a table with the ratio to memcpy, then one JSON line per measurement
 * (prefix "JSON "):
 *   JSON {"bench":"dma","engine":"worker","size":1048576,"qd":8,"tasks_per_s":...,
 *         "gb_per_s":...,"memcpy_gb_per_s":...,"vs_memcpy":...}
 * GB/s counts bytes copied (1e9 bytes per GB). --ws lines add "ws" (bytes of
 * source and destination the copies walk through) and "mode":"ws".
 *
 * A sweep (the options of bench_util.h: --sizes, --depths, --seconds, --json;
 * `ferry bench dma` drives it) measures each size at each queue depth on one
 * engine (--engine, default auto) against memcpy of the same size over the
 * same offsets, and prints one pair of rows per point (bench_rows_emit):
 *   dma_bench --sizes 64,4K,1M --depths 1,8 [--engine auto] [--seconds 0.2] [--json]
 * Copies of 4 KiB or less walk a 64-page window (cache resident), larger ones
 * the 256 MiB span.
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
#include "legacy22_rows.h"

#define MiB    ((size_t)1 << 20)
#define SPAN   (256 * MiB)
#define MAX_QD 64u
/* --ws: bytes of each of source and destination the hot working set reuses. */
#define WS_HOT ((size_t)256 << 10)
/* --ws: rounds per measurement, interleaved across memcpy and the engines; the best is kept. */
#define ROUNDS 3

static double measure_s = 0.5;
static uint64_t last_iters; /* copies or tasks of the last measurement */

/* The default run's window for @p size. */
static size_t default_window(size_t size)
{
	return size <= 4096 ? MAX_QD * 4096 : SPAN;
}

/* ---- memcpy baseline ---- */

static double bench_memcpy(unsigned char *dst, const unsigned char *src, size_t size, size_t window, double *ops_per_s)
{
	uint64_t done = 0, batch = size <= 4096 ? 4096 : 1;
	double t0 = now_s(), t;

	do {
		for (uint64_t k = 0; k < batch; k++, done++) {
			size_t off = bench_place(done, size, window);

			memcpy(dst + off, src + off, size);
		}
		__asm__ volatile("" : : "r"(dst) : "memory"); /* keep the copies */
		t = now_s() - t0;
	} while (t < measure_s);
	last_iters = done;
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
	size_t window; /* see bench_place() */
	uint64_t next; /* copy number of the next submit */
	uint64_t completed;
	uint64_t failed;
	bool draining; /* stop resubmitting */
};

/* Aim a task's bufs at copy number b->next. */
static inline void aim(struct bench *b, unsigned slot)
{
	size_t off = bench_place(b->next++, b->size, b->window);

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
static bool bench_dma(struct bench *b, enum ferry_engine_kind engine, size_t size, size_t window, unsigned qd,
		      double *tasks_per_s, double *gb_per_s)
{
	double t0, t;
	uint64_t start_completed;
	size_t inflight = 0;

	if (ferry_dma_set_engine(b->dma, engine) != DOCA_SUCCESS || doca_ctx_start(b->ctx) != DOCA_SUCCESS)
		return false;
	b->size = size;
	b->window = window;
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
		/* At least one completion, however long a loaded machine takes (5 s more at most): 0 says nothing. */
	} while (t < measure_s || (b->completed == start_completed && t < measure_s + 5));
	last_iters = b->completed - start_completed;
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
	size_t off = bench_place(b->next - 1, size, b->window);

	return memcmp(b->dst + off, b->src + off, size) == 0;
}

static const enum ferry_engine_kind engines[] = {FERRY_ENGINE_INLINE, FERRY_ENGINE_WORKER, FERRY_ENGINE_AUTO};
#define NENGINES (sizeof(engines) / sizeof(engines[0]))

/* The default run: small copies at a high rate, large ones from memory. */
static int run_default(struct bench *b)
{
	static const struct {
		size_t size;
		unsigned qd;
	} cases[] = {{64, 64}, {1 * MiB, 8}, {64 * MiB, 4}};
	double memcpy_gbps[3], memcpy_ops[3];
	int rc = 0;

	for (unsigned c = 0; c < 3; c++)
		memcpy_gbps[c] = bench_memcpy(b->dst, b->src, cases[c].size, default_window(cases[c].size),
					      &memcpy_ops[c]);

	printf("%-7s %10s %3s %14s %10s %12s %9s  %s\n", "engine", "size", "qd", "tasks/s", "GB/s", "memcpy GB/s",
	       "vs memcpy", "target");
	for (unsigned e = 0; e < NENGINES; e++) {
		for (unsigned c = 0; c < 3; c++) {
			double tps = 0, gbps = 0, ratio;
			bool small = cases[c].size <= 4096, met;

			memset(b->dst, 0, cases[c].size <= 4096 ? 64 * 4096 : 0);
			if (!bench_dma(b, engines[e], cases[c].size, default_window(cases[c].size), cases[c].qd, &tps,
				       &gbps) ||
			    !spot_check(b, cases[c].size)) {
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

/* --ws: each size over a hot and a cold working set (see the top of the file). */
static int run_ws(struct bench *b)
{
	static const struct {
		size_t size;
		unsigned qd;
	} cases[] = {{4096, 8}, {64 * 1024, 8}, {1 * MiB, 8}, {16 * MiB, 4}};
	int rc = 0;

	printf("%-7s %10s %3s %5s %10s %12s %10s %12s %9s  %s\n", "engine", "size", "qd", "ws", "ws bytes", "tasks/s",
	       "GB/s", "memcpy GB/s", "vs memcpy", "target");
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		for (unsigned w = 0; w < 2; w++) {
			bool hot = w == 0;
			size_t size = cases[c].size, window = hot ? (size > WS_HOT ? size : WS_HOT) : SPAN;
			double best_memcpy = 0, best_tps[NENGINES] = {0}, best_gbps[NENGINES] = {0};
			bool ok[NENGINES];

			for (unsigned e = 0; e < NENGINES; e++)
				ok[e] = true;
			for (unsigned r = 0; r < ROUNDS; r++) {
				double ops, gbps = bench_memcpy(b->dst, b->src, size, window, &ops);

				if (gbps > best_memcpy)
					best_memcpy = gbps;
				for (unsigned e = 0; e < NENGINES; e++) {
					double tps = 0;

					gbps = 0;
					if (!bench_dma(b, engines[e], size, window, cases[c].qd, &tps, &gbps) ||
					    !spot_check(b, size))
						ok[e] = false;
					if (gbps > best_gbps[e]) {
						best_gbps[e] = gbps;
						best_tps[e] = tps;
					}
				}
			}
			for (unsigned e = 0; e < NENGINES; e++) {
				const char *name = ferry_engine_kind_name(engines[e]);
				double ratio = best_gbps[e] / best_memcpy;
				bool aimed = size == 4096 && engines[e] != FERRY_ENGINE_WORKER;

				if (!ok[e]) {
					fprintf(stderr, "dma_bench: %s %zu B over %zu B failed\n", name, size, window);
					rc = 1;
				}
				printf("%-7s %10zu %3u %5s %10zu %12.0f %10.3f %12.3f %8.2fx  %s\n", name, size,
				       cases[c].qd, hot ? "hot" : "cold", 2 * window, best_tps[e], best_gbps[e],
				       best_memcpy, ratio,
				       !aimed         ? "-"
				       : ratio >= 0.9 ? ">=0.9x memcpy met"
						      : ">=0.9x memcpy MISSED");
				printf("JSON "
				       "{\"bench\":\"dma\",\"mode\":\"ws\",\"engine\":\"%s\",\"size\":%zu,\"qd\":%u,"
				       "\"ws\":%zu,\"tasks_per_s\":%.0f,\"gb_per_s\":%.3f,\"memcpy_gb_per_s\":%.3f,"
				       "\"vs_memcpy\":%.3f,\"ok\":%s}\n",
				       name, size, cases[c].qd, 2 * window, best_tps[e], best_gbps[e], best_memcpy,
				       ratio, ok[e] ? "true" : "false");
			}
			fflush(stdout);
		}
	}
	return rc;
}

/* One --legacy row: @p size bytes at depth @p qd as DOCA 3 tasks and as DOCA 2.2 jobs, best of ROUNDS each. */
static int legacy_row(struct bench *b, size_t size, unsigned qd)
{
	size_t window = default_window(size);
	double best_task = 0, best_job = 0, ratio;
	int rc = 0;

	for (int round = 0; round < ROUNDS; round++) {
		double tps = 0, gbps = 0, jps = 0;

		if (!bench_dma(b, FERRY_ENGINE_AUTO, size, window, qd, &tps, &gbps) ||
		    legacy22_dma_rate(b->src, b->dst, SPAN, size, window, qd, measure_s, &jps) != 0) {
			fprintf(stderr, "dma_bench: --legacy %zu B failed\n", size);
			return 1;
		}
		best_task = tps > best_task ? tps : best_task;
		best_job = jps > best_job ? jps : best_job;
	}
	ratio = best_job / best_task;
	rc |= !spot_check(b, size);
	printf("%10zu %3u %14.0f %14.0f %8.2fx  >=0.9x %s\n", size, qd, best_task, best_job, ratio,
	       ratio >= 0.9 ? "met" : "MISSED");
	printf("JSON {\"bench\":\"dma\",\"mode\":\"legacy\",\"size\":%zu,\"qd\":%u,\"tasks_per_s\":%.0f,"
	       "\"jobs_per_s\":%.0f,\"job_vs_task\":%.3f,\"target_met\":%s}\n",
	       size, qd, best_task, best_job, ratio, ratio >= 0.9 ? "true" : "false");
	fflush(stdout);
	return rc;
}

/*
 * --legacy: a DOCA 2.2 job against a DOCA 3 task, same copies, same engine
 * choice; issue 15's rows (64 B at depth 64, 1 MiB at depth 8), or every size
 * at every depth of --sizes and --depths (a profiler can then run one row).
 */
static int run_legacy(struct bench *b, const struct bench_sweep *sw)
{
	static const struct {
		size_t size;
		unsigned qd;
	} cases[] = {{64, 64}, {1 * MiB, 8}};
	int rc = 0;

	printf("%10s %3s %14s %14s %9s  %s\n", "size", "qd", "tasks/s", "jobs/s", "job/task", "target");
	if (!bench_sweeping(sw)) {
		for (unsigned c = 0; c < 2 && rc == 0; c++)
			rc |= legacy_row(b, cases[c].size, cases[c].qd);
		return rc;
	}
	for (unsigned i = 0; i < sw->n_sizes && rc == 0; i++)
		for (unsigned d = 0; d < sw->n_depths && rc == 0; d++)
			rc |= legacy_row(b, sw->sizes[i], (unsigned)sw->depths[d]);
	return rc;
}

/* A sweep: every size at every depth on @p engine, against memcpy of the same size, one pair of rows per point. */
static int run_sweep(struct bench *b, const struct bench_sweep *sw, enum ferry_engine_kind engine)
{
	const char *name = ferry_engine_kind_name(engine);
	int rc = 0;

	bench_rows_header(sw->json);
	for (unsigned i = 0; i < sw->n_sizes; i++) {
		for (unsigned d = 0; d < sw->n_depths; d++) {
			size_t size = sw->sizes[i], window = default_window(size);
			unsigned qd = (unsigned)sw->depths[d];
			struct bench_row f = bench_row_none("ferry"), m = bench_row_none("memcpy");
			double ops = 0, tps = 0, gbps = 0;

			m.gb_per_s = bench_memcpy(b->dst, b->src, size, window, &ops);
			m.mops = ops / 1e6;
			m.lat_us = ops > 0 ? 1e6 / ops : BENCH_NA;
			m.iters = last_iters;
			if (!bench_dma(b, engine, size, window, qd, &tps, &gbps) || !spot_check(b, size)) {
				fprintf(stderr, "dma_bench: %s %zu B at depth %u failed\n", name, size, qd);
				rc = 1;
				continue;
			}
			f.gb_per_s = gbps;
			f.mops = tps / 1e6;
			f.lat_us = tps > 0 ? qd * 1e6 / tps : BENCH_NA; /* Little's law: the mean time in flight */
			f.iters = last_iters;
			bench_rows_emit(sw->json, "dma", name, size, qd, &f, &m);
		}
	}
	return rc;
}

static int usage(void)
{
	fprintf(stderr, "usage: dma_bench [--ws | --legacy] [seconds-per-measurement]\n"
			"       dma_bench --legacy [--sizes LIST] [--depths LIST] [--seconds S]\n"
			"       dma_bench [--sizes LIST] [--depths LIST] [--engine inline|worker|auto] [--seconds S] "
			"[--json]\n");
	return 2;
}

int main(int argc, char **argv)
{
	static struct bench b;
	struct bench_sweep sw = {0};
	enum ferry_engine_kind engine = FERRY_ENGINE_AUTO;
	bool ws = false, legacy = false, engine_set = false;
	const char *seconds = NULL;

	for (int i = 1; i < argc; i++) {
		int r = bench_sweep_arg("dma_bench", argc, argv, &i, &sw, SPAN, MAX_QD);

		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (strcmp(argv[i], "--ws") == 0) {
			ws = true;
		} else if (strcmp(argv[i], "--legacy") == 0) {
			legacy = true;
		} else if (strcmp(argv[i], "--engine") == 0 && i + 1 < argc) {
			unsigned e;

			for (e = 0; e < NENGINES && strcmp(argv[i + 1], ferry_engine_kind_name(engines[e])) != 0; e++)
				;
			if (e == NENGINES) {
				fprintf(stderr, "dma_bench: --engine: '%s' is not inline, worker or auto\n",
					argv[i + 1]);
				return 2;
			}
			engine = engines[e];
			engine_set = true;
			i++;
		} else if (seconds == NULL && argv[i][0] != '-') {
			seconds = argv[i];
		} else {
			return usage();
		}
	}
	/* --legacy takes --sizes and --depths (its engine is auto, its output a table). */
	if (ws + legacy > 1 || (ws && bench_sweeping(&sw)) || (engine_set && (legacy || !bench_sweeping(&sw))) ||
	    (legacy && sw.json) || (seconds != NULL && sw.seconds > 0))
		return usage();
	measure_s = ws ? 0.25 : 0.5;
	if (sw.seconds > 0)
		measure_s = sw.seconds;
	else if (seconds != NULL)
		measure_s = atof(seconds);
	if (measure_s <= 0)
		return usage();
	unsetenv("FERRY_DMA_ENGINE");
	if (!bench_setup(&b)) {
		fprintf(stderr, "dma_bench: setup failed\n");
		return 1;
	}
	if (legacy) {
		if (bench_sweeping(&sw))
			bench_sweep_defaults(&sw, 64, 64, measure_s);
		return run_legacy(&b, &sw);
	}
	if (bench_sweeping(&sw)) {
		bench_sweep_defaults(&sw, 4096, 8, measure_s);
		return run_sweep(&b, &sw, engine);
	}
	return ws ? run_ws(&b) : run_default(&b);
}
