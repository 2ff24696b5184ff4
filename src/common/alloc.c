/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alloc.c - the allocation-failure hook of ferry_alloc.h (tests arm it; inert otherwise).
 */
#include "common/ferry_alloc.h"

_Atomic unsigned int ferry_alloc_fail_countdown;

void ferry_alloc_fail_nth(unsigned int n)
{
	atomic_store_explicit(&ferry_alloc_fail_countdown, n, memory_order_relaxed);
}

bool ferry_alloc_fail_pending(void)
{
	return atomic_load_explicit(&ferry_alloc_fail_countdown, memory_order_relaxed) != 0;
}

bool ferry_alloc_fail_tick(void)
{
	unsigned int left = atomic_load_explicit(&ferry_alloc_fail_countdown, memory_order_relaxed);

	/* A CAS loop, not a plain decrement: the count never goes below 0 (off). */
	do {
		if (left == 0)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&ferry_alloc_fail_countdown, &left, left - 1,
							memory_order_relaxed, memory_order_relaxed));
	return left == 1;
}
