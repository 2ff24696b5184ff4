/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_util.h - what every bench program needs: a monotonic clock in seconds
 * and pinning to one CPU. Devices are opened with tests/lib/ferry_test_dev.h
 * (public API only, as a DOCA program does it).
 */
#ifndef FERRY_BENCH_UTIL_H_
#define FERRY_BENCH_UTIL_H_

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
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

#endif /* FERRY_BENCH_UTIL_H_ */
