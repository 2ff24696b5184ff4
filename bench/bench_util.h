/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_util.h - what every bench program needs: a monotonic clock in seconds
 * and pinning to one CPU. Devices are opened with tests/lib/ferry_test_dev.h
 * (public API only, as a DOCA program does it).
 */
#ifndef FERRY_BENCH_UTIL_H_
#define FERRY_BENCH_UTIL_H_

#include <sched.h>
#include <time.h>
#include <unistd.h>

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
