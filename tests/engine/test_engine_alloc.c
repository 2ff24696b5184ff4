/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine_alloc.c - every allocation of every channel open fails in turn.
 *
 * For each kind of channel (inline, inline cross-process, worker, auto) the
 * walk arms the allocation-failure hook (common/ferry_alloc.h) for the 1st,
 * 2nd, ... allocation of ferry_chan_open until the open succeeds. Each failed
 * open must return DOCA_ERROR_NO_MEMORY with its log line, leave the output
 * pointer alone, give back every byte (the heap in use is the same, and the
 * ASan build's leak check runs at exit) and leave no thread behind. The
 * successful open must then copy. The number of failure points is checked too,
 * so an allocation that bypasses the hook is noticed.
 *
 * Also: the registry of worker channels full (DOCA_ERROR_FULL, nothing kept).
 * The pool's own allocation failing is test_engine_pool_nomem.c (it happens
 * once per process).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <malloc.h>
#include <stdlib.h>

#include "common/ferry_alloc.h"
#include "engine/engine_priv.h"
#include "engine/pool_priv.h"
#include "engine_test.h"
#include "ferry_test.h"

/* A walk that has not succeeded after this many failure points is broken. */
#define POINTS_MAX 200u

/*
 * Bytes the allocator has handed out and not got back, or 0 where it cannot
 * tell. glibc counts the chunks its per-thread cache (tcache) holds as in use,
 * so the figure is only exact with the cache off: meson runs this test with
 * GLIBC_TUNABLES=glibc.malloc.tcache_count=0; without it (or under ASan, whose
 * leak check at exit does this job) the heap comparison is skipped.
 */
static size_t heap_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	const char *t = getenv("GLIBC_TUNABLES");

	if (t != NULL && strstr(t, "glibc.malloc.tcache_count=0") != NULL)
		return mallinfo2().uordblks;
#endif
	return 0;
}

/* Threads of this process (/proc/self/task). */
static unsigned int thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Copy a few bytes through @p chan and check them: the open that succeeded gave a working channel. */
static void check_copies(struct ferry_chan *chan)
{
	unsigned char src[512], dst[512];
	struct ferry_copy_desc d = {.dst = dst, .src = src, .len = sizeof(src), .cookie = 7};
	struct ferry_copy_cpl cpl;
	size_t i;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 13 + 1);
	memset(dst, 0, sizeof(dst));
	assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	ferry_chan_doorbell(chan);
	assert_int_equal(poll_all(chan, &cpl, 1), 1);
	assert_int_equal(cpl.cookie, 7);
	assert_int_equal(cpl.status, DOCA_SUCCESS);
	assert_memory_equal(dst, src, sizeof(src));
}

/*
 * Warm up what the first log line and the first open allocate for good (the
 * log file's buffer, the pool's worker array), so the heap figures of the walk
 * compare like with like.
 */
static void warm_up(void)
{
	struct ferry_chan *chan = NULL;

	unsetenv("FERRY_DMA_ENGINE"); /* the walks name their kind */
	ferry_test_log_reset();
	assert_int_equal(ferry_chan_open(NULL, &chan), DOCA_ERROR_INVALID_VALUE);
	assert_true(ferry_worker_count() >= 1);
}

/*
 * Fail allocation 1, 2, ... of ferry_chan_open(@p cfg) until it succeeds;
 * returns how many allocations were failed (the open's failure points).
 */
static unsigned int walk_open_failures(const struct ferry_chan_cfg *cfg)
{
	unsigned int n;

	warm_up();
	for (n = 1; n <= POINTS_MAX; n++) {
		size_t heap_before = heap_in_use();
		unsigned int threads_before = thread_count();
		struct ferry_chan *chan = NULL;
		doca_error_t err;

		ferry_test_log_reset();
		ferry_alloc_fail_nth(n);
		err = ferry_chan_open(cfg, &chan);
		if (err == DOCA_SUCCESS) {
			/* Fewer than n allocations: every failure point was walked. */
			assert_true(ferry_alloc_fail_pending());
			ferry_alloc_fail_nth(0);
			assert_non_null(chan);
			check_copies(chan);
			ferry_chan_close(chan);
			return n - 1;
		}
		/* The failure happened (at allocation n) and is what the open reports. */
		assert_false(ferry_alloc_fail_pending());
		assert_int_equal(err, DOCA_ERROR_NO_MEMORY);
		assert_logged("ferry_chan_open: no memory");
		assert_null(chan);
		assert_int_equal(heap_in_use(), heap_before);
		assert_int_equal(thread_count(), threads_before);
	}
	ferry_alloc_fail_nth(0);
	fail_msg("ferry_chan_open still fails after %u failure points", POINTS_MAX);
	return 0;
}

/* The hook itself: the Nth allocation from now fails once, then it is off; 0 disarms. */
static void test_hook_counts(void **state)
{
	void *a, *b, *c;

	(void)state;
	assert_false(ferry_alloc_fail_pending());
	ferry_alloc_fail_nth(2);
	assert_true(ferry_alloc_fail_pending());
	a = ferry_malloc(8);
	assert_non_null(a);
	errno = 0;
	b = ferry_calloc(1, 8);
	assert_null(b);
	assert_int_equal(errno, ENOMEM);
	assert_false(ferry_alloc_fail_pending());
	c = ferry_aligned_alloc(64, 8); /* rounded up to 64 bytes */
	assert_non_null(c);
	assert_int_equal((uintptr_t)c % 64, 0);
	free(c);
	ferry_alloc_fail_nth(1);
	ferry_alloc_fail_nth(0);
	c = ferry_aligned_alloc(64, 64);
	assert_non_null(c);
	free(c);
	free(a);
}

/*
 * Worker (and auto) channels first, while the pool has not started its
 * threads: a failed open must not start them.
 */
static void test_worker_open_failures(void **state)
{
	struct ferry_chan_cfg cfg = {.kind = FERRY_ENGINE_WORKER, .depth = 64};

	(void)state;
	/* The channel, its slots, its ring array and one ring of items per worker. */
	assert_int_equal(walk_open_failures(&cfg), 3 + ferry_worker_count());
}

static void test_auto_open_failures(void **state)
{
	struct ferry_chan_cfg cfg = {.kind = FERRY_ENGINE_AUTO, .depth = 64};

	(void)state;
	assert_int_equal(walk_open_failures(&cfg), 3 + ferry_worker_count());
}

static void test_inline_open_failures(void **state)
{
	struct ferry_chan_cfg cfg = {.kind = FERRY_ENGINE_INLINE, .depth = 64};

	(void)state;
	/* The channel and its slots. */
	assert_int_equal(walk_open_failures(&cfg), 2);
}

/* A cross-process channel keeps remote handles beside its slots: one allocation more. */
static void test_inline_cross_open_failures(void **state)
{
	struct ferry_chan_cfg cfg = {.kind = FERRY_ENGINE_INLINE, .depth = 64, .cross_process = true};

	(void)state;
	assert_int_equal(walk_open_failures(&cfg), 3);
}

/* The registry full: DOCA_ERROR_FULL with its line, the channel it had built freed. */
static void test_worker_registry_full(void **state)
{
	struct ferry_chan_cfg cfg = {.kind = FERRY_ENGINE_WORKER, .depth = 1};
	struct ferry_chan **chans = calloc(FERRY_POOL_MEMBERS_MAX, sizeof(*chans));
	struct ferry_chan *extra = NULL;
	size_t heap_before;
	unsigned int i, open = 0;

	(void)state;
	assert_non_null(chans);
	warm_up();
	for (i = 0; i < FERRY_POOL_MEMBERS_MAX; i++) {
		if (ferry_chan_open(&cfg, &chans[i]) != DOCA_SUCCESS)
			break;
		open++;
	}
	/* Other tests of this process closed theirs: every slot is ours. */
	assert_int_equal(open, FERRY_POOL_MEMBERS_MAX);
	heap_before = heap_in_use();
	ferry_test_log_reset();
	assert_int_equal(ferry_chan_open(&cfg, &extra), DOCA_ERROR_FULL);
	assert_logged("worker channels are open");
	assert_null(extra);
	assert_int_equal(heap_in_use(), heap_before);
	for (i = 0; i < open; i++)
		ferry_chan_close(chans[i]);
	free(chans);
	/* A slot is free again. */
	assert_int_equal(ferry_chan_open(&cfg, &extra), DOCA_SUCCESS);
	check_copies(extra);
	ferry_chan_close(extra);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hook_counts),
		cmocka_unit_test(test_worker_open_failures),
		cmocka_unit_test(test_auto_open_failures),
		cmocka_unit_test(test_inline_open_failures),
		cmocka_unit_test(test_inline_cross_open_failures),
		cmocka_unit_test(test_worker_registry_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
