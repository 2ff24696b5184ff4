/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_test_alloc.h - walk every allocation failure of one call.
 *
 * ferry_test_alloc_walk() arms the hook of common/ferry_alloc.h for the 1st,
 * 2nd, ... allocation of a call until the call succeeds. Each failed call must
 * return DOCA_ERROR_NO_MEMORY (or the walk's fails_with: doca_ctx_start
 * answers DOCA_ERROR_INITIALIZATION, as DOCA documents), log its line, give
 * back every byte (the heap in use is what it was before the call, and the
 * ASan build's leak check runs at exit) and leave its output alone (the walk's
 * failed() hook checks that).
 * The walk returns the number of failure points, which the test compares with
 * the allocations it expects, so an allocation that bypasses the hook shows.
 *
 * Per step: prepare() (hook off; what the call needs), attempt() (hook armed:
 * the call alone), then failed() or succeeded() (hook off; checks, and undoing
 * what the call built), then cleanup() (undoing what prepare() built).
 * Only attempt() is required.
 *
 * Heap figures are exact only with glibc's per-thread cache off: meson runs
 * these tests with GLIBC_TUNABLES=glibc.malloc.tcache_count=0; without it the
 * heap comparison is skipped.
 */
#ifndef FERRY_TEST_ALLOC_H_
#define FERRY_TEST_ALLOC_H_

#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <doca_error.h>
#include <doca_pe.h>

#include "common/ferry_alloc.h"
#include "ferry_test.h"

/* A walk that has not succeeded after this many failure points is broken. */
#define FERRY_TEST_ALLOC_POINTS_MAX 200u

struct ferry_test_alloc_walk {
	const char *call;        /* for the failure message */
	const char *logged;      /* what every failure logs */
	doca_error_t ok;         /* what the call returns when it works (DOCA_SUCCESS if 0) */
	doca_error_t fails_with; /* what it returns when an allocation fails (DOCA_ERROR_NO_MEMORY if 0) */
	bool heap_may_shrink;    /* a failure also frees what the object held before */
	void (*prepare)(void *arg);
	doca_error_t (*attempt)(void *arg);
	void (*failed)(void *arg);
	void (*succeeded)(void *arg);
	void (*cleanup)(void *arg);
	void *arg;
};

/* Bytes the allocator has handed out and not got back; 0 where it cannot tell. */
static inline size_t ferry_test_heap_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
	const char *t = getenv("GLIBC_TUNABLES");

	if (t != NULL && strstr(t, "glibc.malloc.tcache_count=0") != NULL)
		return mallinfo2().uordblks;
#endif
	return 0;
}

/* Returns how many allocations were failed before the call succeeded. */
static inline unsigned int ferry_test_alloc_walk(const struct ferry_test_alloc_walk *w)
{
	unsigned int n;

	/* The first log line allocates the log file's buffer for good: not inside a step. */
	ferry_test_log_reset();
	assert_int_equal(doca_pe_create(NULL), DOCA_ERROR_INVALID_VALUE);
	for (n = 1; n <= FERRY_TEST_ALLOC_POINTS_MAX; n++) {
		size_t heap_before;
		doca_error_t err;

		if (w->prepare != NULL)
			w->prepare(w->arg);
		ferry_test_log_reset();
		heap_before = ferry_test_heap_in_use();
		ferry_alloc_fail_nth(n);
		err = w->attempt(w->arg);
		if (err == w->ok) {
			/* Fewer than n allocations: every failure point was walked. */
			assert_true(ferry_alloc_fail_pending());
			ferry_alloc_fail_nth(0);
			if (w->succeeded != NULL)
				w->succeeded(w->arg);
			if (w->cleanup != NULL)
				w->cleanup(w->arg);
			return n - 1;
		}
		if (ferry_alloc_fail_pending()) {
			ferry_alloc_fail_nth(0);
			fail_msg("%s: failed with %s before its allocation %u", w->call, doca_error_get_name(err), n);
		}
		if (err != (w->fails_with != DOCA_SUCCESS ? w->fails_with : DOCA_ERROR_NO_MEMORY))
			fail_msg("%s: allocation %u failed, the call returned %s", w->call, n,
				 doca_error_get_name(err));
		if (!ferry_test_log_has(w->logged))
			fail_msg("%s: allocation %u failed without the line \"%s\"", w->call, n, w->logged);
		if (w->failed != NULL)
			w->failed(w->arg);
		if (!w->heap_may_shrink && ferry_test_heap_in_use() != heap_before)
			fail_msg("%s: allocation %u failed and %zd byte(s) stayed allocated", w->call, n,
				 (ssize_t)(ferry_test_heap_in_use() - heap_before));
		if (w->cleanup != NULL)
			w->cleanup(w->arg);
	}
	ferry_alloc_fail_nth(0);
	fail_msg("%s still fails after %u failure points", w->call, FERRY_TEST_ALLOC_POINTS_MAX);
	return 0;
}

#endif /* FERRY_TEST_ALLOC_H_ */
