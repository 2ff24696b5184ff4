/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_test_wait.h - waits bounded by the clock, not by a number of loops.
 *
 * "Progress 10000 times or until it happened" is quick on a laptop and may be
 * too short on a loaded CI machine under sanitizers, where each progress call
 * costs ten times more. A deadline in wall-clock time is the same everywhere
 * and still ends a hang with a failed assertion instead of the test's timeout:
 *
 *	FERRY_PROGRESS_UNTIL(F->pe, F->disconnects > 0, FERRY_TEST_WAIT_MS);
 *	assert_int_equal(F->disconnects, 1);
 *
 * A wait never fails by itself: the assertion after it says what was
 * expected. Loops that do more than progress one engine take the deadline
 * directly:
 *
 *	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS); !ferry_test_expired(until);)
 *
 * Loops that progress a fixed number of times to show that something does
 * NOT happen are not waits; they keep their count.
 *
 * No cmocka here: the rogue children of test_fast_rogue use it too.
 */
#ifndef FERRY_TEST_WAIT_H_
#define FERRY_TEST_WAIT_H_

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <doca_pe.h>

/*
 * How long a test waits for something that should happen at once. Generous:
 * it only matters when the thing never happens, and then the test fails.
 */
#define FERRY_TEST_WAIT_MS 10000u

/* SANITIZED: built with ASan or TSan (gcc or clang), where tests run fewer rounds. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

/* Monotonic time in milliseconds. */
static inline uint64_t ferry_test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The time @p ms milliseconds from now, for ferry_test_expired(). */
static inline uint64_t ferry_test_deadline(uint32_t ms)
{
	return ferry_test_now_ms() + ms;
}

static inline bool ferry_test_expired(uint64_t deadline)
{
	return ferry_test_now_ms() >= deadline;
}

/*
 * A short sleep when a progress call found nothing to do: what is awaited
 * comes from another thread, process or timer, which may need this CPU.
 */
static inline void ferry_test_idle(void)
{
	usleep(50);
}

/*
 * Progress @p pe until @p cond holds or @p ms milliseconds passed. @p cond is
 * evaluated before each progress call, so it may be true without any.
 */
#define FERRY_PROGRESS_UNTIL(pe, cond, ms)                             \
	do {                                                           \
		const uint64_t ferry_until_ = ferry_test_deadline(ms); \
                                                                       \
		while (!(cond) && !ferry_test_expired(ferry_until_))   \
			if (doca_pe_progress(pe) == 0)                 \
				ferry_test_idle();                     \
	} while (0)

#endif /* FERRY_TEST_WAIT_H_ */
