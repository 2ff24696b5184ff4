/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * clock.c - doca_clock: the emulated NIC's clocks and the host's, read alone
 * or as a cross-timestamp.
 *
 * Every clock id is one of four sources: three POSIX clocks and the CPU's
 * cycle counter. The NIC clocks are POSIX clocks too (doca_clock.h says which),
 * so a cross-timestamp of two ids with one source is a single read, exact.
 * Otherwise the primary is read on both sides of the NIC clock, a few times,
 * and the tightest bracket wins: its midpoint is the primary's value, half its
 * span the margin (rounded up).
 *
 * A clock holds a reference on its device (ferry_dev_get) and nothing else;
 * reads take no lock and may run on any thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <doca_clock.h>
#include <doca_dev.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "core/ferry_dev.h"

FERRY_LOG_MODULE("clock");

/* Brackets tried per cross-timestamp; the tightest one is kept. */
#define CLOCK_CROSS_TRIES 8

#define NSEC_PER_SEC UINT64_C(1000000000)

struct doca_clock {
	struct doca_dev *dev;
};

/* Where a clock id's readings come from. */
enum clock_src {
	SRC_MONOTONIC_RAW,
	SRC_REALTIME,
	SRC_MONOTONIC,
	SRC_CYCLES,
};

static const uint64_t nic_clocks = DOCA_CLOCK_NIC_FREE_RUNNING | DOCA_CLOCK_NIC_REAL_TIME | DOCA_CLOCK_NIC_DPA_TIMER;

/* The source of @p id, or the error (with its line) for an id that is none. */
static doca_error_t clock_src_of(const char *call, uint64_t id, enum clock_src *src)
{
	if (id == 0 || (id & (id - 1)) != 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "clock type 0x%" PRIx64 " is not one clock id (zero or several bits)", id);
	switch (id) {
	case DOCA_CLOCK_NIC_FREE_RUNNING:
	case DOCA_CLOCK_HOST_MONOTONIC_RAW:
		*src = SRC_MONOTONIC_RAW;
		return DOCA_SUCCESS;
	case DOCA_CLOCK_NIC_REAL_TIME:
	case DOCA_CLOCK_HOST_REAL_TIME:
		*src = SRC_REALTIME;
		return DOCA_SUCCESS;
	case DOCA_CLOCK_NIC_DPA_TIMER:
	case DOCA_CLOCK_HOST_MONOTONIC:
		*src = SRC_MONOTONIC;
		return DOCA_SUCCESS;
	case DOCA_CLOCK_HOST_COUNTER_CYCLES:
#if defined(__x86_64__) || defined(__aarch64__)
		*src = SRC_CYCLES;
		return DOCA_SUCCESS;
#else
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				     "DOCA_CLOCK_HOST_COUNTER_CYCLES: this CPU has no cycle counter Ferry can read");
#endif
	default:
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED, "clock type 0x%" PRIx64 " is no DOCA clock", id);
	}
}

/* The CPU's raw counter, ordered after the instructions before it. */
static inline uint64_t clock_cycles(void)
{
#if defined(__x86_64__)
	_mm_lfence();
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
#else
	return 0; /* never called: clock_src_of refuses SRC_CYCLES */
#endif
}

/* Read @p src into *@p ts and, as one number (ns or cycles), into *@p scalar. */
static doca_error_t clock_read(const char *call, enum clock_src src, union doca_clock_timespec_t *ts, uint64_t *scalar)
{
	static const clockid_t posix_ids[] = {
		[SRC_MONOTONIC_RAW] = CLOCK_MONOTONIC_RAW,
		[SRC_REALTIME] = CLOCK_REALTIME,
		[SRC_MONOTONIC] = CLOCK_MONOTONIC,
	};
	struct timespec t;

	if (src == SRC_CYCLES) {
		ts->counter = clock_cycles();
		*scalar = ts->counter;
		return DOCA_SUCCESS;
	}
	if (clock_gettime(posix_ids[src], &t) != 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "clock_gettime(%d) failed: %s",
				     (int)posix_ids[src], strerror(errno));
	ts->ts = t;
	*scalar = (uint64_t)t.tv_sec * NSEC_PER_SEC + (uint64_t)t.tv_nsec;
	return DOCA_SUCCESS;
}

/* Store the scalar @p v of @p src as a reading. */
static void clock_from_scalar(enum clock_src src, uint64_t v, union doca_clock_timespec_t *ts)
{
	if (src == SRC_CYCLES) {
		ts->counter = v;
		return;
	}
	memset(ts, 0, sizeof(*ts));
	ts->ts.tv_sec = (time_t)(v / NSEC_PER_SEC);
	ts->ts.tv_nsec = (long)(v % NSEC_PER_SEC);
}

/* ---- caps ---- */

static doca_error_t clock_cap(const char *call, const struct doca_devinfo *devinfo)
{
	if (devinfo == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "devinfo is NULL");
	if (!ferry_devinfo_is_valid(devinfo))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "devinfo %p is not a device of this machine",
				     (const void *)devinfo);
	/* Every emulated device has all three NIC clocks (doca_clock.h). */
	return DOCA_SUCCESS;
}

doca_error_t doca_clock_cap_nic_free_running_is_supported(const struct doca_devinfo *devinfo)
{
	return clock_cap(__func__, devinfo);
}

doca_error_t doca_clock_cap_nic_real_time_is_supported(const struct doca_devinfo *devinfo)
{
	return clock_cap(__func__, devinfo);
}

doca_error_t doca_clock_cap_nic_dpa_timer_is_supported(const struct doca_devinfo *devinfo)
{
	return clock_cap(__func__, devinfo);
}

/* ---- create, destroy ---- */

doca_error_t doca_clock_create(const struct doca_dev *dev, struct doca_clock **clock)
{
	struct doca_clock *c;

	FERRY_ARG_NOT_NULL(dev);
	FERRY_ARG_NOT_NULL(clock);
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device", (const void *)dev);
	c = ferry_calloc(1, sizeof(*c));
	if (c == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for a clock of %s", ferry_dev_name(dev));
	/* DOCA takes the device as const; the clock only pins it open. */
	c->dev = (struct doca_dev *)(uintptr_t)dev;
	ferry_dev_get(c->dev);
	*clock = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_clock_destroy(struct doca_clock *clock)
{
	FERRY_ARG_NOT_NULL(clock);
	ferry_dev_put(clock->dev);
	free(clock);
	return DOCA_SUCCESS;
}

/* ---- reads ---- */

doca_error_t doca_clock_get_timestamp(const struct doca_clock *clock, uint64_t clock_type,
				      union doca_clock_timespec_t *clock_ts)
{
	enum clock_src src;
	uint64_t scalar;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(clock);
	FERRY_ARG_NOT_NULL(clock_ts);
	err = clock_src_of(__func__, clock_type, &src);
	if (err != DOCA_SUCCESS)
		return err;
	return clock_read(__func__, src, clock_ts, &scalar);
}

doca_error_t doca_clock_get_crosstimestamp(const struct doca_clock *clock, uint64_t primary_clock_type,
					   uint64_t nic_clock_type, union doca_clock_timespec_t *primary_clock_ts,
					   union doca_clock_timespec_t *nic_clock_ts, uint64_t *error_margin_nsecs)
{
	const char *call = __func__;
	union doca_clock_timespec_t p1, p2, nic, best_nic;
	enum clock_src psrc, nsrc;
	uint64_t a, b, n, best_span = UINT64_MAX, best_mid = 0;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(clock);
	FERRY_ARG_NOT_NULL(primary_clock_ts);
	FERRY_ARG_NOT_NULL(nic_clock_ts);
	FERRY_ARG_NOT_NULL(error_margin_nsecs);
	err = clock_src_of(call, primary_clock_type, &psrc);
	if (err != DOCA_SUCCESS)
		return err;
	err = clock_src_of(call, nic_clock_type, &nsrc);
	if (err != DOCA_SUCCESS)
		return err;
	if ((nic_clock_type & nic_clocks) == 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "nic clock type 0x%" PRIx64 " is a host clock; it must be a DOCA_CLOCK_NIC_* clock",
				  nic_clock_type);

	if (psrc == nsrc) {
		/* One clock underneath: one reading is both, exactly. */
		err = clock_read(call, psrc, &nic, &n);
		if (err != DOCA_SUCCESS)
			return err;
		*primary_clock_ts = nic;
		*nic_clock_ts = nic;
		*error_margin_nsecs = 0;
		return DOCA_SUCCESS;
	}

	memset(&best_nic, 0, sizeof(best_nic));
	for (int i = 0; i < CLOCK_CROSS_TRIES; i++) {
		err = clock_read(call, psrc, &p1, &a);
		if (err == DOCA_SUCCESS)
			err = clock_read(call, nsrc, &nic, &n);
		if (err == DOCA_SUCCESS)
			err = clock_read(call, psrc, &p2, &b);
		if (err != DOCA_SUCCESS)
			return err;
		/* A real-time primary stepped back in between: this bracket says nothing. */
		if (b < a || b - a >= best_span)
			continue;
		best_span = b - a;
		best_mid = a + best_span / 2;
		best_nic = nic;
	}
	if (best_span == UINT64_MAX)
		return FERRY_RULE(DOCA_ERROR_DRIVER, "clock type 0x%" PRIx64 " went backwards in all %d tries",
				  primary_clock_type, CLOCK_CROSS_TRIES);
	clock_from_scalar(psrc, best_mid, primary_clock_ts);
	*nic_clock_ts = best_nic;
	*error_margin_nsecs = best_span - best_span / 2;
	return DOCA_SUCCESS;
}
