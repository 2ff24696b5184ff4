/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_util.h - what every bench program needs: a monotonic clock in seconds,
 * pinning to one CPU, and the sweep options and machine-readable rows that
 * `ferry bench` (tools/ferry/bench.c) drives them with. Devices are opened
 * with tests/lib/ferry_test_dev.h (public API only, as a DOCA program does it).
 *
 * Sweeps. Every bench accepts the same options, in one grammar (bench_sweep_arg):
 *   --sizes LIST    bytes per copy or message: "64,4096,1M" (K, M, G: KiB, MiB, GiB)
 *   --depths LIST   tasks or messages in flight: "1,8,32"
 *   --seconds S     time per measurement
 *   --json          print only rows, one JSON object per line
 * and then measures every (size, depth) point, Ferry and its peer back to back.
 *
 * Rows. One measured point gives one row for Ferry and one for its peer, both
 * printed by bench_rows_emit (as JSON with --json, else as a table line):
 *   {"bench":"dma","case":"auto","size":4096,"depth":8,"side":"ferry",
 *    "gb_per_s":9.1,"mops":2.2,"lat_us":3.6,"lat_median_us":null,"iters":440000,
 *    "peer":"memcpy","ratio":0.97,"lat_ratio":1.03}
 * gb_per_s counts payload bytes (1e9 a GB); mops is millions of copies or
 * messages per second; lat_us is the mean time of one operation in
 * microseconds (one-way for messages: round trip / 2; for tasks kept in
 * flight, depth / rate, the mean time a task spends in flight); a figure not
 * measured is null. The peer's row has the same case, size and depth (a peer
 * with no queue depth, as memcpy, ran at the same point anyway) and no ratio.
 * On Ferry's row, ratio = Ferry's throughput / the peer's (above 1: Ferry is
 * faster) and lat_ratio = Ferry's latency / the peer's (below 1: Ferry is faster).
 */
#ifndef FERRY_BENCH_UTIL_H_
#define FERRY_BENCH_UTIL_H_

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Where copy number i of @p size bytes sits in a @p window of each buffer:
 * copies at least a page apart, round and round the window. The default run's
 * small copies use a 64-page window (cache resident), its large ones the span.
 */
static inline size_t bench_place(uint64_t i, size_t size, size_t window)
{
	size_t stride = size < 4096 ? 4096 : size;
	size_t slots = window / stride;

	if (slots <= 1)
		return 0;
	/* A mask, not a division, when it can: a divide costs a 4 KiB copy's harness ~10%. */
	if ((slots & (slots - 1)) == 0)
		return (size_t)(i & (slots - 1)) * stride;
	return (size_t)(i % slots) * stride;
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * A fine clock for timing one round trip on its path: the time-stamp counter
 * where there is one (ucx_perftest times with it too, ucs_get_time), a few ns
 * against clock_gettime's 20-25 on this VM, which would otherwise be a tenth
 * of a sub-microsecond trip. bench_ticks_calibrate gives ns per tick.
 */
#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t bench_ticks(void)
{
	return __rdtsc();
}
#else
static inline uint64_t bench_ticks(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

/* Nanoseconds per bench_ticks tick, measured against CLOCK_MONOTONIC over 20 ms. */
static inline double bench_ticks_calibrate(void)
{
	double t0 = now_s(), t1;
	uint64_t k0 = bench_ticks(), k1;

	do {
		t1 = now_s();
		k1 = bench_ticks();
	} while (t1 - t0 < 0.02);
	return k1 > k0 ? (t1 - t0) * 1e9 / (double)(k1 - k0) : 1.0;
}

/* One side of a two-process bench on one CPU, its peer on another (when there are two): steadier figures. */
static inline void pin_to(int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
}

/* ---- sweeps ---- */

#define BENCH_MAX_POINTS 32 /* entries of one --sizes or --depths list */

/*
 * Parse a comma-separated list of at most BENCH_MAX_POINTS whole numbers in
 * [@p min, @p max], with K, M or G (KiB, MiB, GiB) after a number when
 * @p suffixes. True with the numbers in @p out and their count in @p n; false
 * with the rule broken in @p why.
 */
static inline bool bench_parse_list(const char *text, bool suffixes, uint64_t min, uint64_t max, uint64_t *out,
				    unsigned *n, char *why, size_t why_len)
{
	const char *p = text;

	*n = 0;
	if (text == NULL || *text == '\0') {
		snprintf(why, why_len, "an empty list");
		return false;
	}
	for (;;) {
		char *end;
		uint64_t v, mult = 1;

		if (*p < '0' || *p > '9') {
			snprintf(why, why_len, "'%.*s' is not a number", (int)strcspn(p, ","), p);
			return false;
		}
		errno = 0;
		v = strtoull(p, &end, 10);
		if (suffixes && (*end == 'K' || *end == 'k'))
			mult = (uint64_t)1 << 10;
		else if (suffixes && *end == 'M')
			mult = (uint64_t)1 << 20;
		else if (suffixes && *end == 'G')
			mult = (uint64_t)1 << 30;
		if (mult != 1)
			end++;
		if (*end != ',' && *end != '\0') {
			snprintf(why, why_len, "'%.*s' is not a number%s", (int)strcspn(p, ","), p,
				 suffixes ? " (suffixes: K, M, G)" : "");
			return false;
		}
		if (errno != 0 || v > UINT64_MAX / mult || v * mult < min || v * mult > max) {
			snprintf(why, why_len, "'%.*s' is not in %llu..%llu", (int)(end - p), p,
				 (unsigned long long)min, (unsigned long long)max);
			return false;
		}
		if (*n == BENCH_MAX_POINTS) {
			snprintf(why, why_len, "more than %d entries", BENCH_MAX_POINTS);
			return false;
		}
		out[(*n)++] = v * mult;
		if (*end == '\0')
			return true;
		p = end + 1;
	}
}

/* The sweep a bench was asked for; n_sizes or n_depths 0: the bench's own default run. */
struct bench_sweep {
	uint64_t sizes[BENCH_MAX_POINTS];
	uint64_t depths[BENCH_MAX_POINTS];
	unsigned n_sizes, n_depths;
	double seconds; /* 0: the bench's default */
	bool json;
};

/*
 * Whether argv[*i] is a sweep option (--sizes, --depths, --seconds, --json):
 * 1 when it was (its value consumed, *i moved past it), 0 when it is not one,
 * -1 after a one-line error on stderr naming @p prog and the rule. Sizes are
 * checked against 1..@p max_size, depths against 1..@p max_depth.
 */
static inline int bench_sweep_arg(const char *prog, int argc, char **argv, int *i, struct bench_sweep *sw,
				  uint64_t max_size, uint64_t max_depth)
{
	const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
	char why[160];

	if (strcmp(a, "--json") == 0) {
		sw->json = true;
		return 1;
	}
	if (strcmp(a, "--sizes") != 0 && strcmp(a, "--depths") != 0 && strcmp(a, "--seconds") != 0)
		return 0;
	if (v == NULL) {
		fprintf(stderr, "%s: option '%s' needs a value\n", prog, a);
		return -1;
	}
	(*i)++;
	if (strcmp(a, "--seconds") == 0) {
		char *end;

		sw->seconds = strtod(v, &end);
		if (*end != '\0' || v[0] < '0' || v[0] > '9' || !(sw->seconds > 0 && sw->seconds <= 3600)) {
			fprintf(stderr, "%s: --seconds: '%s' is not a time in (0, 3600] seconds\n", prog, v);
			return -1;
		}
		return 1;
	}
	if (strcmp(a, "--sizes") == 0
		    ? bench_parse_list(v, true, 1, max_size, sw->sizes, &sw->n_sizes, why, sizeof(why))
		    : bench_parse_list(v, false, 1, max_depth, sw->depths, &sw->n_depths, why, sizeof(why)))
		return 1;
	fprintf(stderr, "%s: %s: %s\n", prog, a, why);
	return -1;
}

/* Whether a sweep was asked for (then the bench measures its points, not its default run). */
static inline bool bench_sweeping(const struct bench_sweep *sw)
{
	return sw->n_sizes > 0 || sw->n_depths > 0 || sw->json;
}

/* Fill what the command line left out: @p size and @p depth, one point each. */
static inline void bench_sweep_defaults(struct bench_sweep *sw, uint64_t size, uint64_t depth, double seconds)
{
	if (sw->n_sizes == 0)
		sw->sizes[sw->n_sizes++] = size;
	if (sw->n_depths == 0)
		sw->depths[sw->n_depths++] = depth;
	if (sw->seconds == 0)
		sw->seconds = seconds;
}

/* ---- rows ---- */

#define BENCH_NA (-1.0) /* a figure not measured: JSON null, "-" in a table */

struct bench_row {
	const char *side; /* "ferry" or the peer's name; NULL: no such row (a peer that did not run) */
	double gb_per_s, mops, lat_us, lat_median_us;
	uint64_t iters;
};

/* A row with nothing measured yet. */
static inline struct bench_row bench_row_none(const char *side)
{
	struct bench_row r = {side, BENCH_NA, BENCH_NA, BENCH_NA, BENCH_NA, 0};

	return r;
}

static inline void bench_json_num(const char *key, double v)
{
	if (v < 0)
		printf(",\"%s\":null", key);
	else
		printf(",\"%s\":%.6g", key, v);
}

static inline double bench_ratio(double a, double b)
{
	return a > 0 && b > 0 ? a / b : BENCH_NA;
}

static inline void bench_row_json(const char *bench, const char *kase, uint64_t size, uint64_t depth,
				  const struct bench_row *r, const struct bench_row *peer)
{
	printf("{\"bench\":\"%s\",\"case\":\"%s\",\"size\":%llu,\"depth\":%llu,\"side\":\"%s\"", bench, kase,
	       (unsigned long long)size, (unsigned long long)depth, r->side);
	bench_json_num("gb_per_s", r->gb_per_s);
	bench_json_num("mops", r->mops);
	bench_json_num("lat_us", r->lat_us);
	bench_json_num("lat_median_us", r->lat_median_us);
	printf(",\"iters\":%llu", (unsigned long long)r->iters);
	if (peer != NULL) {
		if (peer->side != NULL)
			printf(",\"peer\":\"%s\"", peer->side);
		else
			printf(",\"peer\":null");
		bench_json_num("ratio", peer->side != NULL ? bench_ratio(r->gb_per_s, peer->gb_per_s) : BENCH_NA);
		bench_json_num("lat_ratio", peer->side != NULL ? bench_ratio(r->lat_us, peer->lat_us) : BENCH_NA);
	}
	printf("}\n");
}

/* One table cell: a figure, or a ratio with an "x". */
static inline void bench_cell(double v, bool ratio)
{
	if (v < 0)
		printf(" %9s", "-");
	else if (ratio)
		printf(" %8.2fx", v);
	else if (v >= 1 || v == 0)
		printf(" %9.3f", v);
	else /* 0.000357 Mops, not 0.000 */
		printf(" %9.3g", v);
}

/*
 * One measured point: Ferry's row and its peer's (peer->side NULL: the peer
 * did not run), as two JSON lines with @p json, else as one table line
 * (bench_rows_header first). Flushed, so a driver reading a pipe sees it now.
 */
static inline void bench_rows_emit(bool json, const char *bench, const char *kase, uint64_t size, uint64_t depth,
				   const struct bench_row *ferry, const struct bench_row *peer)
{
	if (json) {
		bench_row_json(bench, kase, size, depth, ferry, peer);
		if (peer->side != NULL)
			bench_row_json(bench, kase, size, depth, peer, NULL);
	} else {
		printf("%-8s %10llu %5llu", kase, (unsigned long long)size, (unsigned long long)depth);
		bench_cell(ferry->gb_per_s, false);
		bench_cell(ferry->mops, false);
		bench_cell(ferry->lat_us, false);
		printf("  %-18s", peer->side != NULL ? peer->side : "(none)");
		bench_cell(peer->gb_per_s, false);
		bench_cell(peer->mops, false);
		bench_cell(peer->lat_us, false);
		bench_cell(bench_ratio(ferry->gb_per_s, peer->gb_per_s), true);
		bench_cell(bench_ratio(ferry->lat_us, peer->lat_us), true);
		printf("\n");
	}
	fflush(stdout);
}

/* The table's header line (nothing with @p json). */
static inline void bench_rows_header(bool json)
{
	if (!json)
		printf("%-8s %10s %5s %9s %9s %9s  %-18s %9s %9s %9s %9s %9s\n", "case", "size", "depth", "GB/s",
		       "Mops", "lat us", "peer", "GB/s", "Mops", "lat us", "ratio", "lat ratio");
}

#endif /* FERRY_BENCH_UTIL_H_ */
