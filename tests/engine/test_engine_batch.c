/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine_batch.c - the worker engine's units: small descriptors rung
 * together are claimed and completed as batches, split copies chunk by chunk.
 * With the workers paused (ferry_worker_pause) every copy is left to the
 * helping poll, so what one poll call takes and what a cancel finds unclaimed
 * are exact; with the workers running, small units still complete without any
 * poll (the worker takes them after its grace) and notify fires.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "engine/engine_priv.h"
#include "engine_test.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static struct ferry_chan *open_worker(uint32_t depth)
{
	struct ferry_chan_cfg cfg = {.kind = FERRY_ENGINE_WORKER, .depth = depth};
	struct ferry_chan *chan = NULL;

	assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_SUCCESS);
	assert_string_equal(chan->ops->name, "worker");
	return chan;
}

static unsigned char *pattern(size_t len, unsigned int seed)
{
	unsigned char *p = malloc(len ? len : 1);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 131 + seed);
	return p;
}

/* Enqueue @p n copies of lens[i] from @p src into fresh guarded buffers, cookie base + i. */
static void enqueue_all(struct ferry_chan *chan, struct guarded *g, const size_t *lens, int n, const unsigned char *src,
			uint64_t base)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ferry_copy_desc d;

		guarded_alloc(&g[i], lens[i]);
		d = (struct ferry_copy_desc){.dst = g[i].dst, .src = src, .len = lens[i], .cookie = base + (uint64_t)i};
		assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	}
}

static void free_all(struct guarded *g, int n)
{
	int i;

	for (i = 0; i < n; i++)
		guarded_free(&g[i]);
}

/*
 * One doorbell over a mix that crosses every unit boundary: more than 16 small
 * copies in a row, runs whose bytes pass 128 KiB, zero-length copies, a lone
 * 130 KiB copy (a batch of one), split copies in between. Polled 5 at a time:
 * a poll may stop inside a finished batch and the next one goes on from there.
 */
static void test_batches_in_order(void **state)
{
	enum { N = 90 };
	struct ferry_chan *chan = open_worker(N);
	unsigned char *src = pattern(3 * MiB, 1);
	static const size_t shapes[] = {64, 1, 0, 4 * KiB, 60 * KiB, 127 * KiB, 130 * KiB, 300 * KiB, 7, 64};
	size_t lens[N];
	struct guarded g[N];
	struct ferry_copy_cpl cpl[N];
	uint32_t got = 0;
	double deadline = now_s() + 20.0;
	int i;

	(void)state;
	for (i = 0; i < N; i++)
		lens[i] = i < 20 ? 64 : (i == 60 ? 3 * MiB - 5 : shapes[i % 10]);
	enqueue_all(chan, g, lens, N, src, 500);
	ferry_chan_doorbell(chan);
	while (got < N && now_s() < deadline) {
		uint32_t n = ferry_chan_poll(chan, cpl + got, 5);

		assert_true(n <= 5);
		got += n;
		if (n == 0)
			sched_yield();
	}
	assert_int_equal(got, N);
	for (i = 0; i < N; i++) {
		assert_int_equal(cpl[i].cookie, 500 + (uint64_t)i);
		assert_int_equal(cpl[i].status, DOCA_SUCCESS);
		if (!guarded_check(&g[i], src))
			fail_msg("desc %d len %zu: bad bytes or guard", i, lens[i]);
	}
	assert_false(ferry_chan_ready(chan));
	free_all(g, N);
	free(src);
	ferry_chan_close(chan);
}

/*
 * Workers paused: one poll copies a whole window of small units itself (40 x
 * 64 B = 3 batches) and returns all of it; max still bounds what it returns.
 */
static void test_help_takes_window(void **state)
{
	enum { N = 40 };
	struct ferry_chan *chan = open_worker(64);
	unsigned char *src = pattern(64, 2);
	size_t lens[N];
	struct guarded g[N];
	struct ferry_copy_cpl cpl[N];
	int i;

	(void)state;
	for (i = 0; i < N; i++)
		lens[i] = 64;
	ferry_worker_pause(true);
	enqueue_all(chan, g, lens, N, src, 0);
	ferry_chan_doorbell(chan);
	assert_false(ferry_chan_ready(chan)); /* nobody copies until a poll does */
	assert_int_equal(ferry_chan_poll(chan, cpl, 7), 7);
	assert_true(ferry_chan_ready(chan));
	assert_int_equal(ferry_chan_poll(chan, cpl + 7, N), N - 7);
	for (i = 0; i < N; i++) {
		assert_int_equal(cpl[i].cookie, (uint64_t)i);
		assert_int_equal(cpl[i].status, DOCA_SUCCESS);
		assert_true(guarded_check(&g[i], src));
	}
	assert_int_equal(ferry_chan_poll(chan, cpl, N), 0);
	ferry_worker_pause(false);
	free_all(g, N);
	free(src);
	ferry_chan_close(chan);
}

/*
 * Workers paused: a poll helps with about one chunk's worth: 16 x 8 KiB batches
 * of 128 KiB come back one batch per poll, each whole.
 */
static void test_help_is_bounded(void **state)
{
	enum { N = 48 };
	struct ferry_chan *chan = open_worker(N);
	unsigned char *src = pattern(8 * KiB, 3);
	size_t lens[N];
	struct guarded g[N];
	struct ferry_copy_cpl cpl[N];
	int i, round;

	(void)state;
	for (i = 0; i < N; i++)
		lens[i] = 8 * KiB;
	ferry_worker_pause(true);
	enqueue_all(chan, g, lens, N, src, 100);
	ferry_chan_doorbell(chan);
	for (round = 0; round < 3; round++) {
		assert_int_equal(ferry_chan_poll(chan, cpl + round * 16, N), 16);
		/* The next batch is untouched until the next poll. */
		if (round < 2)
			assert_true(guarded_untouched(&g[(round + 1) * 16]));
	}
	assert_int_equal(ferry_chan_poll(chan, cpl, N), 0);
	for (i = 0; i < N; i++)
		assert_true(guarded_check(&g[i], src));
	ferry_worker_pause(false);
	free_all(g, N);
	free(src);
	ferry_chan_close(chan);
}

/*
 * Workers paused, cancel with units in every state: two batches copied by a
 * helping poll and handed out, a split copy with one chunk claimed, a batch
 * nobody claimed, descriptors not rung. The split copy and everything after it
 * fail; the unclaimed batch and the unrung ones are untouched; the split copy's
 * first chunk landed but its guards hold; the channel still works afterwards.
 */
static void test_cancel_partly_claimed(void **state)
{
	enum { SMALL1 = 20, SPLIT = SMALL1, SMALL2 = SPLIT + 1, N = SMALL2 + 10, UNRUNG = 3 };
	struct ferry_chan *chan = open_worker(N + UNRUNG);
	unsigned char *src = pattern(MiB, 4);
	size_t lens[N + UNRUNG];
	struct guarded g[N + UNRUNG];
	struct ferry_copy_cpl cpl[N + UNRUNG];
	struct ferry_copy_desc d;
	int i;

	(void)state;
	for (i = 0; i < N + UNRUNG; i++)
		lens[i] = i == SPLIT ? MiB : 64;
	ferry_worker_pause(true);
	enqueue_all(chan, g, lens, N, src, 0);
	ferry_chan_doorbell(chan);
	/* Helps with both small batches (1.25 KiB) and then one chunk of the split copy. */
	assert_int_equal(ferry_chan_poll(chan, cpl, N), SMALL1);
	assert_false(guarded_untouched(&g[SPLIT]));
	assert_true(guarded_untouched(&g[SMALL2]));
	for (i = 0; i < UNRUNG; i++) {
		guarded_alloc(&g[N + i], 64);
		d = (struct ferry_copy_desc){.dst = g[N + i].dst, .src = src, .len = 64, .cookie = (uint64_t)(N + i)};
		assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	}
	ferry_chan_cancel(chan);
	assert_true(ferry_chan_ready(chan));
	assert_int_equal(ferry_chan_poll(chan, cpl + SMALL1, N + UNRUNG), N + UNRUNG - SMALL1);
	for (i = 0; i < N + UNRUNG; i++) {
		assert_int_equal(cpl[i].cookie, (uint64_t)i);
		if (i < SMALL1) {
			assert_int_equal(cpl[i].status, DOCA_SUCCESS);
			assert_true(guarded_check(&g[i], src));
		} else {
			assert_int_equal(cpl[i].status, DOCA_ERROR_IO_FAILED);
		}
		if (i > SPLIT)
			assert_true(guarded_untouched(&g[i]));
	}
	/* The claimed chunk landed; the rest of the split copy and its guards did not change. */
	assert_memory_equal(g[SPLIT].dst, src, 64);
	assert_true(guarded_check(&g[SPLIT], g[SPLIT].dst));
	assert_int_equal(g[SPLIT].dst[MiB - 1], 0xa5);
	/* A doorbell after the cancel starts nothing; the channel still copies. */
	ferry_chan_doorbell(chan);
	assert_int_equal(ferry_chan_poll(chan, cpl, N), 0);
	ferry_worker_pause(false);
	d = (struct ferry_copy_desc){.dst = g[SMALL2].dst, .src = src, .len = 64, .cookie = 77};
	assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	ferry_chan_doorbell(chan);
	assert_int_equal(poll_all(chan, cpl, 1), 1);
	assert_int_equal(cpl[0].cookie, 77);
	assert_int_equal(cpl[0].status, DOCA_SUCCESS);
	assert_true(guarded_check(&g[SMALL2], src));
	free_all(g, N + UNRUNG);
	free(src);
	ferry_chan_close(chan);
}

/*
 * Rings full of stale items: depth 4 (rings of 4 items), workers paused, many
 * doorbells, each window copied by the helping poll. Pushes fail and are
 * retried; units the poll already finished are never given out afterwards.
 * Then the workers come back and the same channel keeps working.
 */
static void test_full_rings(void **state)
{
	enum { DEPTH = 4, ROUNDS = 50 };
	struct ferry_chan *chan = open_worker(DEPTH);
	unsigned char *src = pattern(256, 5);
	unsigned char dst[DEPTH][256];
	struct ferry_copy_cpl cpl[DEPTH];
	struct ferry_copy_desc d;
	int round, i;

	(void)state;
	for (round = 0; round < 2 * ROUNDS; round++) {
		ferry_worker_pause(round < ROUNDS);
		memset(dst, 0, sizeof(dst));
		for (i = 0; i < DEPTH; i++) {
			d = (struct ferry_copy_desc){.dst = dst[i],
						     .src = src,
						     .len = 100 + (size_t)i,
						     .cookie = (uint64_t)(round * DEPTH + i)};
			assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
			if (i % 2)
				ferry_chan_doorbell(chan); /* two units per round */
		}
		assert_int_equal(poll_all(chan, cpl, DEPTH), DEPTH);
		for (i = 0; i < DEPTH; i++) {
			assert_int_equal(cpl[i].cookie, (uint64_t)(round * DEPTH + i));
			assert_int_equal(cpl[i].status, DOCA_SUCCESS);
			assert_memory_equal(dst[i], src, 100 + (size_t)i);
			assert_int_equal(dst[i][100 + i], 0);
		}
	}
	ferry_worker_pause(false);
	free(src);
	ferry_chan_close(chan);
}

struct notify_count {
	_Atomic unsigned int calls;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static void count_notify(void *arg)
{
	struct notify_count *nc = arg;

	pthread_mutex_lock(&nc->mu);
	atomic_fetch_add(&nc->calls, 1);
	pthread_cond_signal(&nc->cv);
	pthread_mutex_unlock(&nc->mu);
}

/*
 * Workers running, nobody polls: small units are left to the application only
 * for a moment; a worker then copies them and calls notify, once per unit
 * (40 x 64 B = 3 batches), from its own thread.
 */
static void test_small_units_notify(void **state)
{
	enum { N = 40, UNITS = 3, ROUNDS = 10 };
	struct notify_count nc = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
	struct ferry_chan_cfg cfg = {
		.kind = FERRY_ENGINE_WORKER, .depth = N, .notify = count_notify, .notify_arg = &nc};
	struct ferry_chan *chan = NULL;
	unsigned char *src = pattern(64, 6);
	size_t lens[N];
	struct guarded g[N];
	struct ferry_copy_cpl cpl[N];
	int i, round;

	(void)state;
	for (i = 0; i < N; i++)
		lens[i] = 64;
	assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_SUCCESS);
	for (round = 0; round < ROUNDS; round++) {
		struct timespec until;

		enqueue_all(chan, g, lens, N, src, (uint64_t)round * N);
		ferry_chan_doorbell(chan);
		/* Sleep until the units' notifies, as an event-driven caller does. */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 20;
		pthread_mutex_lock(&nc.mu);
		while (atomic_load(&nc.calls) < (unsigned int)(round + 1) * UNITS)
			if (pthread_cond_timedwait(&nc.cv, &nc.mu, &until) != 0)
				break;
		pthread_mutex_unlock(&nc.mu);
		assert_int_equal(atomic_load(&nc.calls), (unsigned int)(round + 1) * UNITS);
		assert_true(ferry_chan_ready(chan));
		assert_int_equal(ferry_chan_poll(chan, cpl, N), N);
		for (i = 0; i < N; i++) {
			assert_int_equal(cpl[i].cookie, (uint64_t)(round * N + i));
			assert_int_equal(cpl[i].status, DOCA_SUCCESS);
			assert_true(guarded_check(&g[i], src));
		}
		free_all(g, N);
	}
	assert_int_equal(atomic_load(&nc.calls), ROUNDS * UNITS);
	free(src);
	ferry_chan_close(chan);
}

/* Workers running: ready() alone, with no poll, turns true for small units. */
static void test_small_units_ready(void **state)
{
	enum { N = 20, ROUNDS = 20 };
	struct ferry_chan *chan = open_worker(N);
	unsigned char *src = pattern(64, 7);
	size_t lens[N];
	struct guarded g[N];
	struct ferry_copy_cpl cpl[N];
	int i, round;

	(void)state;
	for (i = 0; i < N; i++)
		lens[i] = 1 + (size_t)i;
	for (round = 0; round < ROUNDS; round++) {
		double deadline = now_s() + 20.0;

		enqueue_all(chan, g, lens, N, src, (uint64_t)round * N);
		ferry_chan_doorbell(chan);
		while (!ferry_chan_ready(chan) && now_s() < deadline)
			sched_yield();
		assert_true(ferry_chan_ready(chan));
		assert_int_equal(poll_all(chan, cpl, N), N);
		for (i = 0; i < N; i++) {
			assert_int_equal(cpl[i].cookie, (uint64_t)(round * N + i));
			assert_int_equal(cpl[i].status, DOCA_SUCCESS);
			assert_true(guarded_check(&g[i], src));
		}
		free_all(g, N);
	}
	free(src);
	ferry_chan_close(chan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batches_in_order),  cmocka_unit_test(test_help_takes_window),
		cmocka_unit_test(test_help_is_bounded),   cmocka_unit_test(test_cancel_partly_claimed),
		cmocka_unit_test(test_full_rings),        cmocka_unit_test(test_small_units_notify),
		cmocka_unit_test(test_small_units_ready),
	};

	unsetenv("FERRY_DMA_ENGINE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
