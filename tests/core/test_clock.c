/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_clock.c - doca_clock: invalid input and its log lines first, then the
 * caps of every device, create/destroy against the device's life, every
 * clock id against the POSIX clock it stands for, monotonicity, and the
 * cross-timestamps of every primary with every NIC clock: brackets, margins,
 * and agreement between successive ones.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <doca_clock.h>
#include <doca_dev.h>

#include "common/ferry_alloc.h"
#include "ferry_test.h"
#include "ferry_test_dev.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

/* Loose ceilings for a loaded CI machine under sanitizers: a margin is the tightest of a few brackets. */
#define MARGIN_NS_MAX     UINT64_C(1000000)  /* 1 ms */
#define MARGIN_CYCLES_MAX UINT64_C(10000000) /* 2 ms at 5 GHz */

struct clock_id {
	uint64_t id;
	const char *name;
	clockid_t posix; /* what Ferry maps it to; unused for the cycle counter */
	bool monotonic;
};

static const struct clock_id clock_ids[] = {
	{DOCA_CLOCK_NIC_FREE_RUNNING, "nic_fr", CLOCK_MONOTONIC_RAW, true},
	{DOCA_CLOCK_NIC_REAL_TIME, "nic_rt", CLOCK_REALTIME, false},
	{DOCA_CLOCK_NIC_DPA_TIMER, "nic_dpa", CLOCK_MONOTONIC, true},
	{DOCA_CLOCK_HOST_COUNTER_CYCLES, "host_cycles", 0, true},
	{DOCA_CLOCK_HOST_REAL_TIME, "host_rt", CLOCK_REALTIME, false},
	{DOCA_CLOCK_HOST_MONOTONIC, "host_mon", CLOCK_MONOTONIC, true},
	{DOCA_CLOCK_HOST_MONOTONIC_RAW, "host_mon_raw", CLOCK_MONOTONIC_RAW, true},
};
#define N_IDS (sizeof(clock_ids) / sizeof(clock_ids[0]))

static const uint64_t nic_ids[] = {DOCA_CLOCK_NIC_FREE_RUNNING, DOCA_CLOCK_NIC_REAL_TIME, DOCA_CLOCK_NIC_DPA_TIMER};

struct fixture {
	struct doca_dev *dev;
	struct doca_clock *clock;
};

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

static uint64_t posix_ns(clockid_t id)
{
	struct timespec ts;

	assert_int_equal(clock_gettime(id, &ts), 0);
	return ns_of(&ts);
}

static const struct clock_id *id_info(uint64_t id)
{
	for (size_t i = 0; i < N_IDS; i++)
		if (clock_ids[i].id == id)
			return &clock_ids[i];
	fail_msg("no clock 0x%" PRIx64, id);
	return NULL;
}

static uint64_t reading(uint64_t id, const union doca_clock_timespec_t *ts)
{
	if (id == DOCA_CLOCK_HOST_COUNTER_CYCLES)
		return ts->counter;
	assert_true(ts->ts.tv_nsec >= 0 && ts->ts.tv_nsec < (long)NSEC_PER_SEC);
	return ns_of(&ts->ts);
}

static int setup(void **state)
{
	static struct fixture f;

	ferry_test_log_reset();
	memset(&f, 0, sizeof(f));
	f.dev = ferry_test_open_dev(NULL, NULL);
	if (f.dev == NULL)
		return -1;
	if (doca_clock_create(f.dev, &f.clock) != DOCA_SUCCESS)
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (doca_clock_destroy(f->clock) != DOCA_SUCCESS || doca_dev_close(f->dev) != DOCA_SUCCESS)
		return -1;
	return 0;
}

/* ---- invalid input ---- */

static void test_caps_invalid(void **state)
{
	doca_error_t (*const caps[])(const struct doca_devinfo *) = {
		doca_clock_cap_nic_free_running_is_supported,
		doca_clock_cap_nic_real_time_is_supported,
		doca_clock_cap_nic_dpa_timer_is_supported,
	};
	const char *names[] = {
		"doca_clock_cap_nic_free_running_is_supported",
		"doca_clock_cap_nic_real_time_is_supported",
		"doca_clock_cap_nic_dpa_timer_is_supported",
	};
	_Alignas(64) unsigned char bogus[512];
	char line[160];

	(void)state;
	memset(bogus, 0, sizeof(bogus));
	for (size_t i = 0; i < 3; i++) {
		ferry_test_log_reset();
		assert_int_equal(caps[i](NULL), DOCA_ERROR_INVALID_VALUE);
		snprintf(line, sizeof(line), "%s: devinfo is NULL", names[i]);
		assert_logged(line);
		ferry_test_log_reset();
		assert_int_equal(caps[i]((const struct doca_devinfo *)bogus), DOCA_ERROR_INVALID_VALUE);
		snprintf(line, sizeof(line), "%s: devinfo", names[i]);
		assert_logged(line);
		assert_logged("is not a device of this machine");
	}
}

static void test_create_destroy_invalid(void **state)
{
	struct fixture *f = *state;
	_Alignas(64) unsigned char bogus[512];
	struct doca_clock *clock = NULL;

	memset(bogus, 0, sizeof(bogus));
	ferry_test_log_reset();
	assert_int_equal(doca_clock_create(NULL, &clock), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_create: dev is NULL");
	ferry_test_log_reset();
	assert_int_equal(doca_clock_create(f->dev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_create: clock is NULL");
	ferry_test_log_reset();
	assert_int_equal(doca_clock_create((const struct doca_dev *)bogus, &clock), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_create: dev");
	assert_logged("is not an open device");
	assert_null(clock);
	ferry_test_log_reset();
	assert_int_equal(doca_clock_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_destroy: clock is NULL");
}

static void test_timestamp_invalid(void **state)
{
	struct fixture *f = *state;
	union doca_clock_timespec_t ts;
	/* Zero and several bits are no clock id; a single unknown bit is an unsupported clock. */
	const uint64_t not_ids[] = {0, DOCA_CLOCK_NIC_FREE_RUNNING | DOCA_CLOCK_NIC_REAL_TIME,
				    DOCA_CLOCK_HOST_MONOTONIC | DOCA_CLOCK_HOST_REAL_TIME, UINT64_MAX};
	const uint64_t unknown[] = {0x4, 0x80, 0x200, 0x1000, 0x100000, UINT64_C(1) << 63};

	ferry_test_log_reset();
	assert_int_equal(doca_clock_get_timestamp(NULL, DOCA_CLOCK_HOST_MONOTONIC, &ts), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_get_timestamp: clock is NULL");
	ferry_test_log_reset();
	assert_int_equal(doca_clock_get_timestamp(f->clock, DOCA_CLOCK_HOST_MONOTONIC, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_get_timestamp: clock_ts is NULL");
	for (size_t i = 0; i < sizeof(not_ids) / sizeof(not_ids[0]); i++) {
		ferry_test_log_reset();
		assert_int_equal(doca_clock_get_timestamp(f->clock, not_ids[i], &ts), DOCA_ERROR_INVALID_VALUE);
		assert_logged("doca_clock_get_timestamp: clock type");
		assert_logged("is not one clock id (zero or several bits)");
	}
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		char line[128];

		ferry_test_log_reset();
		assert_int_equal(doca_clock_get_timestamp(f->clock, unknown[i], &ts), DOCA_ERROR_NOT_SUPPORTED);
		snprintf(line, sizeof(line), "doca_clock_get_timestamp: clock type 0x%" PRIx64 " is no DOCA clock",
			 unknown[i]);
		assert_logged(line);
	}
}

static void test_crosstimestamp_invalid(void **state)
{
	struct fixture *f = *state;
	union doca_clock_timespec_t p, n;
	uint64_t m;
	const uint64_t host_ids[] = {DOCA_CLOCK_HOST_COUNTER_CYCLES, DOCA_CLOCK_HOST_REAL_TIME,
				     DOCA_CLOCK_HOST_MONOTONIC, DOCA_CLOCK_HOST_MONOTONIC_RAW};
	const uint64_t prim = DOCA_CLOCK_HOST_MONOTONIC, nic = DOCA_CLOCK_NIC_REAL_TIME;

	ferry_test_log_reset();
	assert_int_equal(doca_clock_get_crosstimestamp(NULL, prim, nic, &p, &n, &m), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_get_crosstimestamp: clock is NULL");
	ferry_test_log_reset();
	assert_int_equal(doca_clock_get_crosstimestamp(f->clock, prim, nic, NULL, &n, &m), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_get_crosstimestamp: primary_clock_ts is NULL");
	ferry_test_log_reset();
	assert_int_equal(doca_clock_get_crosstimestamp(f->clock, prim, nic, &p, NULL, &m), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_get_crosstimestamp: nic_clock_ts is NULL");
	ferry_test_log_reset();
	assert_int_equal(doca_clock_get_crosstimestamp(f->clock, prim, nic, &p, &n, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_get_crosstimestamp: error_margin_nsecs is NULL");

	/* The NIC side must be a NIC clock. */
	for (size_t i = 0; i < sizeof(host_ids) / sizeof(host_ids[0]); i++) {
		ferry_test_log_reset();
		assert_int_equal(doca_clock_get_crosstimestamp(f->clock, prim, host_ids[i], &p, &n, &m),
				 DOCA_ERROR_INVALID_VALUE);
		assert_logged("doca_clock_get_crosstimestamp: nic clock type");
		assert_logged("is a host clock; it must be a DOCA_CLOCK_NIC_* clock");
	}
	/* Either side: several bits, then an unknown bit. */
	ferry_test_log_reset();
	assert_int_equal(doca_clock_get_crosstimestamp(f->clock, prim, nic | DOCA_CLOCK_NIC_FREE_RUNNING, &p, &n, &m),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_get_crosstimestamp: clock type 0x3 is not one clock id");
	ferry_test_log_reset();
	assert_int_equal(doca_clock_get_crosstimestamp(f->clock, 0, nic, &p, &n, &m), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_clock_get_crosstimestamp: clock type 0x0 is not one clock id");
	ferry_test_log_reset();
	assert_int_equal(doca_clock_get_crosstimestamp(f->clock, prim, 0x4, &p, &n, &m), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("doca_clock_get_crosstimestamp: clock type 0x4 is no DOCA clock");
	ferry_test_log_reset();
	assert_int_equal(doca_clock_get_crosstimestamp(f->clock, 0x800, nic, &p, &n, &m), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("doca_clock_get_crosstimestamp: clock type 0x800 is no DOCA clock");
}

/* ---- caps, create, destroy ---- */

static void test_caps_every_device(void **state)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_true(n > 0);
	ferry_test_log_reset();
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(doca_clock_cap_nic_free_running_is_supported(list[i]), DOCA_SUCCESS);
		assert_int_equal(doca_clock_cap_nic_real_time_is_supported(list[i]), DOCA_SUCCESS);
		assert_int_equal(doca_clock_cap_nic_dpa_timer_is_supported(list[i]), DOCA_SUCCESS);
	}
	assert_false(ferry_test_log_has("doca_clock"));
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
}

/* The last device of the list opened: not the fixture's (the first), so this test alone holds it open. */
static struct doca_dev *open_last_dev(void)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_true(n > 1);
	assert_int_equal(doca_dev_open(list[n - 1], &dev), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
	return dev;
}

/* A clock pins its device open; a closed device takes no clock; no memory, no clock. */
static void test_create_destroy(void **state)
{
	struct fixture *f = *state;
	struct doca_clock *a = NULL, *b = NULL;
	union doca_clock_timespec_t ts;
	struct doca_dev *dev;

	dev = open_last_dev();
	assert_ptr_not_equal(dev, f->dev);
	assert_int_equal(doca_clock_create(dev, &a), DOCA_SUCCESS);
	assert_int_equal(doca_clock_create(dev, &b), DOCA_SUCCESS);
	assert_ptr_not_equal(a, b);
	assert_int_equal(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_clock_destroy(a), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_clock_get_timestamp(b, DOCA_CLOCK_NIC_REAL_TIME, &ts), DOCA_SUCCESS);
	assert_int_equal(doca_clock_destroy(b), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);

	ferry_test_log_reset();
	a = NULL;
	assert_int_equal(doca_clock_create(dev, &a), DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not an open device");
	assert_null(a);

	dev = open_last_dev();
	ferry_test_log_reset();
	ferry_alloc_fail_nth(1);
	assert_int_equal(doca_clock_create(dev, &a), DOCA_ERROR_NO_MEMORY);
	ferry_alloc_fail_nth(0);
	assert_logged("doca_clock_create: no memory for a clock of");
	assert_null(a);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

/* ---- reads ---- */

/* Every id reads the clock it stands for: its value lies between two reads of that POSIX clock. */
static void test_every_id(void **state)
{
	struct fixture *f = *state;

	ferry_test_log_reset();
	for (size_t i = 0; i < N_IDS; i++) {
		const struct clock_id *c = &clock_ids[i];
		union doca_clock_timespec_t ts;

		memset(&ts, 0xa5, sizeof(ts));
		if (c->id == DOCA_CLOCK_HOST_COUNTER_CYCLES) {
			union doca_clock_timespec_t ts2;

			assert_int_equal(doca_clock_get_timestamp(f->clock, c->id, &ts), DOCA_SUCCESS);
			assert_int_equal(doca_clock_get_timestamp(f->clock, c->id, &ts2), DOCA_SUCCESS);
			assert_true(ts.counter != 0);
			assert_true(ts2.counter >= ts.counter);
			continue;
		}
		for (int tries = 0;; tries++) {
			uint64_t before = posix_ns(c->posix), v, after;

			assert_int_equal(doca_clock_get_timestamp(f->clock, c->id, &ts), DOCA_SUCCESS);
			after = posix_ns(c->posix);
			v = reading(c->id, &ts);
			/* Real time may be stepped under us: try again, a few times. */
			if (!c->monotonic && (after < before || v < before || v > after) && tries < 3)
				continue;
			if (v < before || v > after)
				fail_msg("%s: %" PRIu64 " not within [%" PRIu64 ", %" PRIu64 "]", c->name, v, before,
					 after);
			break;
		}
	}
	assert_false(ferry_test_log_has("doca_clock"));
}

static void test_monotonic(void **state)
{
	struct fixture *f = *state;

	for (size_t i = 0; i < N_IDS; i++) {
		const struct clock_id *c = &clock_ids[i];
		union doca_clock_timespec_t ts;
		uint64_t last = 0, first = 0;

		if (!c->monotonic)
			continue;
		for (int k = 0; k < 20000; k++) {
			uint64_t v;

			assert_int_equal(doca_clock_get_timestamp(f->clock, c->id, &ts), DOCA_SUCCESS);
			v = reading(c->id, &ts);
			if (v < last)
				fail_msg("%s went back: %" PRIu64 " after %" PRIu64, c->name, v, last);
			if (k == 0)
				first = v;
			last = v;
		}
		assert_true(last > first); /* and it moves */
	}
}

/*
 * Every primary with every NIC clock: success, a small margin, 0 and equal
 * readings when both are one clock underneath, and each reading between
 * two direct reads of what it stands for.
 */
static void test_cross_every_pair(void **state)
{
	struct fixture *f = *state;

	ferry_test_log_reset();
	for (size_t i = 0; i < N_IDS; i++) {
		const struct clock_id *p = &clock_ids[i];

		for (size_t j = 0; j < 3; j++) {
			const struct clock_id *n = id_info(nic_ids[j]);
			bool cycles = p->id == DOCA_CLOCK_HOST_COUNTER_CYCLES;
			bool same = !cycles && p->posix == n->posix;
			union doca_clock_timespec_t pts, nts;
			uint64_t margin = UINT64_MAX, p0 = 0, n0, p1 = 0, n1;

			if (!cycles)
				p0 = posix_ns(p->posix);
			n0 = posix_ns(n->posix);
			assert_int_equal(doca_clock_get_crosstimestamp(f->clock, p->id, n->id, &pts, &nts, &margin),
					 DOCA_SUCCESS);
			n1 = posix_ns(n->posix);
			if (!cycles)
				p1 = posix_ns(p->posix);
			if (same) {
				assert_int_equal(margin, 0);
				assert_memory_equal(&pts.ts, &nts.ts, sizeof(pts.ts));
			}
			if (margin > (cycles ? MARGIN_CYCLES_MAX : MARGIN_NS_MAX))
				fail_msg("%s x %s: margin %" PRIu64, p->name, n->name, margin);
			if (n->monotonic) {
				uint64_t v = reading(n->id, &nts);

				if (v < n0 || v > n1)
					fail_msg("%s x %s: nic %" PRIu64 " not within [%" PRIu64 ", %" PRIu64 "]",
						 p->name, n->name, v, n0, n1);
			}
			if (!cycles && p->monotonic) {
				uint64_t v = reading(p->id, &pts);

				if (v < p0 || v > p1)
					fail_msg("%s x %s: primary %" PRIu64 " not within [%" PRIu64 ", %" PRIu64 "]",
						 p->name, n->name, v, p0, p1);
			}
		}
	}
	assert_false(ferry_test_log_has("doca_clock"));
}

/*
 * The NIC free-running value of a cross-timestamp with the monotonic clock
 * lies within a bracket of two CLOCK_MONOTONIC_RAW reads, and the monotonic
 * value within its margin of what CLOCK_MONOTONIC said around it.
 */
static void test_cross_bracket(void **state)
{
	struct fixture *f = *state;

	for (int k = 0; k < 100; k++) {
		union doca_clock_timespec_t pts, nts;
		uint64_t margin, raw0, raw1, mon0, mon1, nic, mon;

		mon0 = posix_ns(CLOCK_MONOTONIC);
		raw0 = posix_ns(CLOCK_MONOTONIC_RAW);
		assert_int_equal(doca_clock_get_crosstimestamp(f->clock, DOCA_CLOCK_HOST_MONOTONIC,
							       DOCA_CLOCK_NIC_FREE_RUNNING, &pts, &nts, &margin),
				 DOCA_SUCCESS);
		raw1 = posix_ns(CLOCK_MONOTONIC_RAW);
		mon1 = posix_ns(CLOCK_MONOTONIC);
		nic = reading(DOCA_CLOCK_NIC_FREE_RUNNING, &nts);
		mon = reading(DOCA_CLOCK_HOST_MONOTONIC, &pts);
		assert_true(raw0 <= nic && nic <= raw1);
		/* The midpoint is rounded down, the margin up: one ns of slack below. */
		assert_true(mon0 + margin <= mon + 1 && mon + margin <= mon1);
		assert_true(margin <= (raw1 - raw0));
	}
}

/*
 * Successive cross-timestamps agree: the offset between two clocks that run
 * at one rate (up to NTP's slew, 500 ppm at most) moves by no more than the
 * margins allow; the cycle counter ticks at one rate against the NIC clock.
 */
static void test_cross_consistent(void **state)
{
	struct fixture *f = *state;
	const struct timespec gap = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};
	union doca_clock_timespec_t pts, nts;
	uint64_t m[3], cyc[3], nic[3];
	int64_t off[2];

	for (int k = 0; k < 2; k++) {
		assert_int_equal(doca_clock_get_crosstimestamp(f->clock, DOCA_CLOCK_HOST_MONOTONIC_RAW,
							       DOCA_CLOCK_NIC_DPA_TIMER, &pts, &nts, &m[k]),
				 DOCA_SUCCESS);
		off[k] = (int64_t)(reading(DOCA_CLOCK_HOST_MONOTONIC_RAW, &pts) -
				   reading(DOCA_CLOCK_NIC_DPA_TIMER, &nts));
		if (k == 0)
			nanosleep(&gap, NULL);
	}
	{
		int64_t drift = off[1] - off[0];
		/* 500 ppm of a gap that a loaded machine may stretch to 200 ms, plus the margins. */
		int64_t allowed = 100 * 1000 + (int64_t)(m[0] + m[1]);

		if (drift > allowed || drift < -allowed)
			fail_msg("offset moved by %" PRId64 " ns (margins %" PRIu64 ", %" PRIu64 ")", drift, m[0],
				 m[1]);
	}

	for (int k = 0; k < 3; k++) {
		assert_int_equal(doca_clock_get_crosstimestamp(f->clock, DOCA_CLOCK_HOST_COUNTER_CYCLES,
							       DOCA_CLOCK_NIC_FREE_RUNNING, &pts, &nts, &m[k]),
				 DOCA_SUCCESS);
		cyc[k] = pts.counter;
		nic[k] = reading(DOCA_CLOCK_NIC_FREE_RUNNING, &nts);
		if (k < 2)
			nanosleep(&gap, NULL);
	}
	{
		double r1 = (double)(cyc[1] - cyc[0]) / (double)(nic[1] - nic[0]);
		double r2 = (double)(cyc[2] - cyc[1]) / (double)(nic[2] - nic[1]);

		assert_true(r1 > 0 && r2 > 0);
		if (r1 / r2 > 1.01 || r2 / r1 > 1.01)
			fail_msg("cycle rate %.6f then %.6f per ns", r1, r2);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps_invalid),      cmocka_unit_test(test_create_destroy_invalid),
		cmocka_unit_test(test_timestamp_invalid), cmocka_unit_test(test_crosstimestamp_invalid),
		cmocka_unit_test(test_caps_every_device), cmocka_unit_test(test_create_destroy),
		cmocka_unit_test(test_every_id),          cmocka_unit_test(test_monotonic),
		cmocka_unit_test(test_cross_every_pair),  cmocka_unit_test(test_cross_bracket),
		cmocka_unit_test(test_cross_consistent),
	};

	return ferry_test_run(argc, argv, tests, setup, teardown);
}
