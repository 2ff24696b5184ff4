/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_biased_lock - src/common/ferry_biased_lock.h: an owner thread and two
 * other threads take the lock in turns as fast as they can (the owner for as
 * long as the others run), each section
 * marking the lock busy with an atomic exchange (two sections at once are
 * seen at once) and adding to a plain counter (a lost update shows in the
 * total). Once biased (membarrier, where the kernel has it), once as the
 * plain mutex it falls back to.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>

#include "common/ferry_biased_lock.h"

#define OTHER_SECTIONS 100000u
#define OTHERS         2

struct arena {
	struct ferry_biased_lock lock;
	_Atomic int busy;
	_Atomic unsigned int overlaps;
	_Atomic int others_done;
	uint64_t counter; /* plain: only sections touch it */
};

static void section(struct arena *a)
{
	if (atomic_exchange(&a->busy, 1) != 0)
		atomic_fetch_add(&a->overlaps, 1);
	a->counter++;
	atomic_store(&a->busy, 0);
}

static void *other_main(void *arg)
{
	struct arena *a = arg;

	for (unsigned int i = 0; i < OTHER_SECTIONS; i++) {
		ferry_biased_other_lock(&a->lock);
		section(a);
		ferry_biased_other_unlock(&a->lock);
	}
	atomic_fetch_add(&a->others_done, 1);
	return NULL;
}

static void contend(bool biased)
{
	struct arena a = {.counter = 0};
	pthread_t others[OTHERS];
	uint64_t owner_sections = 0;

	ferry_biased_lock_init(&a.lock);
	if (!biased)
		a.lock.biased = false;
	for (int i = 0; i < OTHERS; i++)
		assert_int_equal(pthread_create(&others[i], NULL, other_main, &a), 0);
	/* The owner takes the lock for as long as the others do. */
	while (atomic_load_explicit(&a.others_done, memory_order_relaxed) < OTHERS) {
		ferry_biased_owner_lock(&a.lock);
		section(&a);
		ferry_biased_owner_unlock(&a.lock);
		owner_sections++;
	}
	for (int i = 0; i < OTHERS; i++)
		assert_int_equal(pthread_join(others[i], NULL), 0);
	assert_int_equal(atomic_load(&a.overlaps), 0);
	assert_int_equal(a.counter, owner_sections + (uint64_t)OTHERS * OTHER_SECTIONS);
	assert_int_equal(atomic_load(&a.lock.owner_inside), 0);
	assert_int_equal(atomic_load(&a.lock.other_wants), 0);
	ferry_biased_lock_fini(&a.lock);
}

static void test_biased(void **state)
{
	(void)state;
#ifndef FERRY_BIASED_LOCK_TSAN
	/* This machine's kernel has membarrier: a lock that fell back here would test nothing new. */
	assert_true(ferry_biased_lock_supported());
#endif
	contend(true);
}

static void test_plain_mutex(void **state)
{
	(void)state;
	contend(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_biased),
		cmocka_unit_test(test_plain_mutex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
