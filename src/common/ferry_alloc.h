/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_alloc.h - how Ferry's open/create paths allocate, with a test hook that
 * makes an allocation fail.
 *
 * ferry_malloc, ferry_calloc, ferry_realloc and ferry_aligned_alloc are malloc,
 * calloc, realloc and aligned_alloc, except that a test can ask for "the Nth allocation from now
 * fails" (ferry_alloc_fail_nth) and so walk every error path of an *_open or
 * *_create in turn, one failure point after the other, under ASan.
 *
 * The hook is always built in and inert until a test arms it: each call reads
 * one global with a relaxed load and takes a branch predicted not taken before
 * calling the allocator. Only slow paths (open, create, start) allocate; no
 * fast path does, so this costs nothing on a copy or a task.
 *
 * The hook counts the allocations of every thread in the process; a test arms
 * it while no other thread allocates through these wrappers (the copy workers
 * never allocate). A simulated failure returns NULL with errno ENOMEM, as the
 * allocator does. Release with free().
 */
#ifndef FERRY_ALLOC_H_
#define FERRY_ALLOC_H_

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "common/ferry_abi.h"

/*
 * The inlines below are compiled into libdoca_dma and libdoca_comch too, so the
 * counter and the tick leave libdoca_common (FERRY_PRIVATE_0, ferry_abi.h).
 */

/** Allocations left before the one that fails; 0: the hook is off. Read only through the inlines below. */
FERRY_PRIVATE_API extern _Atomic unsigned int ferry_alloc_fail_countdown;

/**
 * Tests only: make the @p n-th allocation through ferry_malloc, ferry_calloc,
 * ferry_realloc or ferry_aligned_alloc from now on fail (1: the next one). It fails once, then
 * the hook is off again. @p n = 0 turns the hook off.
 */
void ferry_alloc_fail_nth(unsigned int n);

/** Tests only: true while an armed failure has not happened yet. */
bool ferry_alloc_fail_pending(void);

/** Slow path of the hook (armed only): count this allocation down; true when it must fail. */
FERRY_PRIVATE_API
bool ferry_alloc_fail_tick(void);

/** True when the allocation being made must fail (a test armed the hook and its turn came). */
static inline bool ferry_alloc_failing(void)
{
	if (__builtin_expect(atomic_load_explicit(&ferry_alloc_fail_countdown, memory_order_relaxed) != 0, 0) &&
	    ferry_alloc_fail_tick()) {
		errno = ENOMEM;
		return true;
	}
	return false;
}

static inline void *ferry_malloc(size_t size)
{
	return ferry_alloc_failing() ? NULL : malloc(size);
}

static inline void *ferry_calloc(size_t nmemb, size_t size)
{
	return ferry_alloc_failing() ? NULL : calloc(nmemb, size);
}

/**
 * realloc: on a failure (simulated or real) NULL, and @p ptr is left as it was,
 * still owned by the caller.
 */
static inline void *ferry_realloc(void *ptr, size_t size)
{
	return ferry_alloc_failing() ? NULL : realloc(ptr, size);
}

/**
 * aligned_alloc of at least @p size bytes: the size is rounded up to a multiple
 * of @p align (a power of two), which C11's aligned_alloc requires. NULL when the
 * rounded size overflows.
 */
static inline void *ferry_aligned_alloc(size_t align, size_t size)
{
	size_t rounded = (size + align - 1) & ~(align - 1);

	if (rounded < size) {
		errno = ENOMEM;
		return NULL;
	}
	return ferry_alloc_failing() ? NULL : aligned_alloc(align, rounded);
}

#endif /* FERRY_ALLOC_H_ */
