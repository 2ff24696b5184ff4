/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_bench - Ferry's copy engines against plain memcpy, in one run, on the
 * same buffers.
 *
 *   engine_bench            64 B at queue depth 64 (cache resident, ops/s), then
 *                           1 MiB and 64 MiB copies (GB/s over a 256 MiB span)
 *   engine_bench --sweep    inline vs worker across sizes, to place the auto threshold
 *
 * Prints a table with ratios to memcpy and one JSON line per measurement
 * (prefix "JSON "), e.g.
 *   JSON {"bench":"engine","engine":"inline","size":64,"qd":64,"ops_per_s":...,"gb_per_s":...,"vs_memcpy":...}
 * GB/s counts bytes copied (1e9 bytes), not bytes moved. Memory bandwidth on a
 * shared VM drifts, so each figure is the best of ROUNDS rounds interleaved with
 * the others (memcpy, inline, worker, auto, memcpy, ...). A run takes ~15 s.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/ferry_engine.h"
#include "bench_util.h"

#define KiB       ((size_t)1 << 10)
#define MiB       ((size_t)1 << 20)
#define SPAN      (256 * MiB)
#define SMALL_QD  64u
#define MEASURE_S 0.25
/* Rounds per measurement, interleaved across memcpy and the engines; the best is kept. */
#define ROUNDS    3

static unsigned char *src_buf, *dst_buf;
/* Called through a pointer, as an engine does: otherwise a 64 B memcpy of known size is inlined. */
static void *(*volatile memcpy_fn)(void *, const void *, size_t) = memcpy;

struct result {
	double ops_per_s;
	double gb_per_s;
};

/* Where copy number @p i of @p size bytes goes: walk the span, wrap around. */
static size_t offset_of(uint64_t i, size_t size)
{
	size_t per_span = size >= SPAN ? 1 : SPAN / size;

	return (size_t)(i % per_span) * size;
}

/* Small copies stay in a 64-slot, 64-byte-strided window: cache resident, as asked. */
static size_t small_offset(uint64_t i, size_t size)
{
	return (size_t)(i % SMALL_QD) * (size < 64 ? 64 : size);
}

static size_t place(uint64_t i, size_t size)
{
	return size <= 4 * KiB ? small_offset(i, size) : offset_of(i, size);
}

static struct result bench_memcpy(size_t size)
{
	uint64_t done = 0, batch = size <= 4 * KiB ? 4096 : 1;
	double t0 = now_s(), t;
	struct result r;

	do {
		uint64_t k;

		for (k = 0; k < batch; k++, done++) {
			size_t off = place(done, size);

			memcpy_fn(dst_buf + off, src_buf + off, size);
		}
		/* Keep the compiler from dropping copies nobody reads. */
		__asm__ volatile("" : : "r"(dst_buf) : "memory");
		t = now_s() - t0;
	} while (t < MEASURE_S);
	r.ops_per_s = (double)done / t;
	r.gb_per_s = r.ops_per_s * (double)size / 1e9;
	return r;
}

/* Keep @p qd copies in flight: refill as completions arrive, one doorbell per refill. */
static struct result bench_engine(enum ferry_engine_kind kind, size_t size, uint32_t qd, bool *ok)
{
	struct ferry_chan_cfg cfg = {.kind = kind, .depth = qd};
	struct ferry_copy_cpl cpl[SMALL_QD];
	struct ferry_chan *chan = NULL;
	uint64_t issued = 0, done = 0;
	double t0, t;
	struct result r = {0, 0};

	*ok = ferry_chan_open(&cfg, &chan) == DOCA_SUCCESS;
	if (!*ok)
		return r;
	t0 = now_s();
	do {
		uint32_t n, k;
		bool rung = false;

		while (issued - done < qd) {
			size_t off = place(issued, size);
			struct ferry_copy_desc d = {
				.dst = dst_buf + off, .src = src_buf + off, .len = size, .cookie = issued};

			if (ferry_chan_enqueue(chan, &d) != DOCA_SUCCESS)
				break;
			issued++;
			rung = true;
		}
		if (rung)
			ferry_chan_doorbell(chan);
		n = ferry_chan_poll(chan, cpl, SMALL_QD);
		for (k = 0; k < n; k++)
			*ok &= cpl[k].status == DOCA_SUCCESS && cpl[k].cookie == done + k;
		done += n;
		t = now_s() - t0;
	} while (t < MEASURE_S || done == 0);
	r.ops_per_s = (double)done / t;
	/* Drain so the next measurement starts clean; drained copies are not counted. */
	while (done < issued)
		done += ferry_chan_poll(chan, cpl, SMALL_QD);
	ferry_chan_close(chan);
	r.gb_per_s = r.ops_per_s * (double)size / 1e9;
	return r;
}

static void print_result(const char *engine, size_t size, uint32_t qd, struct result r, double base, bool ok)
{
	double ratio = base > 0 ? r.ops_per_s / base : 0;

	printf("%-8s %10zu B  qd %3u  %12.0f ops/s  %7.2f GB/s  %5.2fx memcpy%s\n", engine, size, qd, r.ops_per_s,
	       r.gb_per_s, ratio, ok ? "" : "  (ERRORS)");
	printf("JSON {\"bench\":\"engine\",\"engine\":\"%s\",\"size\":%zu,\"qd\":%u,\"ops_per_s\":%.0f,"
	       "\"gb_per_s\":%.3f,\"vs_memcpy\":%.3f,\"ok\":%s}\n",
	       engine, size, qd, r.ops_per_s, r.gb_per_s, ratio, ok ? "true" : "false");
	fflush(stdout);
}

static void keep_best(struct result *best, struct result r)
{
	if (r.ops_per_s > best->ops_per_s)
		*best = r;
}

static int run_size(size_t size, uint32_t qd, const enum ferry_engine_kind *kinds, size_t nkinds)
{
	struct result base = {0, 0}, best[4] = {{0, 0}};
	bool ok[4] = {true, true, true, true};
	int round, bad = 0;
	size_t i;

	for (round = 0; round < ROUNDS; round++) {
		keep_best(&base, bench_memcpy(size));
		for (i = 0; i < nkinds && i < 4; i++) {
			bool good;

			keep_best(&best[i], bench_engine(kinds[i], size, qd, &good));
			ok[i] &= good;
		}
	}
	print_result("memcpy", size, 1, base, base.ops_per_s, true);
	for (i = 0; i < nkinds && i < 4; i++) {
		print_result(ferry_engine_kind_name(kinds[i]), size, qd, best[i], base.ops_per_s, ok[i]);
		bad |= !ok[i];
	}
	return bad;
}

int main(int argc, char **argv)
{
	static const enum ferry_engine_kind all[] = {FERRY_ENGINE_INLINE, FERRY_ENGINE_WORKER, FERRY_ENGINE_AUTO};
	static const enum ferry_engine_kind pair[] = {FERRY_ENGINE_INLINE, FERRY_ENGINE_WORKER};
	bool sweep = argc > 1 && strcmp(argv[1], "--sweep") == 0;
	int bad = 0;

	if (argc > 1 && !sweep) {
		fprintf(stderr, "usage: %s [--sweep]\n", argv[0]);
		return 2;
	}
	unsetenv("FERRY_DMA_ENGINE"); /* each measurement names its engine */
	src_buf = aligned_alloc(4096, SPAN);
	dst_buf = aligned_alloc(4096, SPAN);
	if (src_buf == NULL || dst_buf == NULL) {
		fprintf(stderr, "engine_bench: cannot allocate 2 x %zu MiB\n", SPAN / MiB);
		return 1;
	}
	/* Fault every page in first so no measurement pays for it. */
	memset(src_buf, 1, SPAN);
	memset(dst_buf, 2, SPAN);
	if (sweep) {
		size_t size;

		for (size = 4 * KiB; size <= 4 * MiB; size *= 2)
			bad |= run_size(size, 8, pair, 2);
	} else {
		bad |= run_size(64, SMALL_QD, all, 3);
		bad |= run_size(MiB, 16, all, 3);
		bad |= run_size(64 * MiB, 4, all, 3);
	}
	free(src_buf);
	free(dst_buf);
	return bad;
}
