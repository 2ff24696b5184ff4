/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine_copy.c - the engine contract, the same bodies over every engine kind:
 * depth and AGAIN, zero-length copies, random sizes and offsets checked byte for
 * byte with guards, completion order, cancel, notify, close in flight, many channels.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "engine_test.h"

#define MiB ((size_t)1 << 20)

static struct ferry_chan *open_chan(enum ferry_engine_kind kind, uint32_t depth)
{
	struct ferry_chan_cfg cfg = {.kind = kind, .depth = depth};
	struct ferry_chan *chan = NULL;

	assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_SUCCESS);
	assert_non_null(chan);
	assert_string_equal(chan->ops->name, ferry_engine_kind_name(kind));
	return chan;
}

static unsigned char *random_bytes(size_t len, uint64_t seed)
{
	unsigned char *p = malloc(len ? len : 1);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(rnd_next(&seed) >> 32);
	return p;
}

/* Boundaries: an empty channel has nothing, poll with max 0 takes nothing. */
static void test_empty_channel(void **state)
{
	struct ferry_chan *chan = open_chan(test_kind(state), 8);
	struct ferry_copy_cpl cpl[4];

	assert_false(ferry_chan_ready(chan));
	assert_int_equal(ferry_chan_poll(chan, cpl, 4), 0);
	ferry_chan_doorbell(chan); /* a doorbell with nothing enqueued is harmless */
	ferry_chan_cancel(chan);   /* so is a cancel */
	assert_int_equal(ferry_chan_poll(chan, cpl, 4), 0);
	assert_false(ferry_chan_ready(chan));
	ferry_chan_close(chan);
}

/* depth counts descriptors not yet polled: AGAIN until poll gives slots back. */
static void test_depth_again(void **state)
{
	enum { DEPTH = 5 }; /* not a power of two on purpose */
	struct ferry_chan *chan = open_chan(test_kind(state), DEPTH);
	unsigned char src[DEPTH + 1][32], dst[DEPTH + 1][32];
	struct ferry_copy_cpl cpl[DEPTH + 1];
	struct ferry_copy_desc d;
	int i;

	memset(src, 7, sizeof(src));
	for (i = 0; i < DEPTH; i++) {
		d = (struct ferry_copy_desc){.dst = dst[i], .src = src[i], .len = 32, .cookie = (uint64_t)i};
		assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	}
	d = (struct ferry_copy_desc){.dst = dst[DEPTH], .src = src[DEPTH], .len = 32, .cookie = 99};
	assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_ERROR_AGAIN);
	ferry_chan_doorbell(chan);
	/* Finished but not polled still counts. */
	assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_ERROR_AGAIN);
	assert_int_equal(poll_all(chan, cpl, 1), 1);
	assert_int_equal(cpl[0].cookie, 0);
	assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_ERROR_AGAIN);
	ferry_chan_doorbell(chan);
	assert_int_equal(poll_all(chan, cpl, DEPTH), DEPTH);
	for (i = 0; i < DEPTH - 1; i++)
		assert_int_equal(cpl[i].cookie, (uint64_t)i + 1);
	assert_int_equal(cpl[DEPTH - 1].cookie, 99);
	for (i = 0; i < DEPTH; i++)
		assert_int_equal(cpl[i].status, DOCA_SUCCESS);
	assert_int_equal(ferry_chan_poll(chan, cpl, DEPTH), 0);
	ferry_chan_close(chan);
}

/* len 0 is legal, touches nothing (pointers may be NULL) and completes with success. */
static void test_zero_length(void **state)
{
	struct ferry_chan *chan = open_chan(test_kind(state), 4);
	struct guarded g;
	unsigned char src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct ferry_copy_desc d0 = {.dst = NULL, .src = NULL, .len = 0, .cookie = 1};
	struct ferry_copy_desc d1 = {.len = 0, .cookie = 2};
	struct ferry_copy_cpl cpl[2];

	guarded_alloc(&g, 8);
	d1.dst = g.dst;
	d1.src = src;
	assert_int_equal(ferry_chan_enqueue(chan, &d0), DOCA_SUCCESS);
	assert_int_equal(ferry_chan_enqueue(chan, &d1), DOCA_SUCCESS);
	ferry_chan_doorbell(chan);
	assert_int_equal(poll_all(chan, cpl, 2), 2);
	assert_int_equal(cpl[0].cookie, 1);
	assert_int_equal(cpl[1].cookie, 2);
	assert_int_equal(cpl[0].status, DOCA_SUCCESS);
	assert_int_equal(cpl[1].status, DOCA_SUCCESS);
	assert_true(guarded_untouched(&g));
	guarded_free(&g);
	ferry_chan_close(chan);
}

static size_t random_len(uint64_t *seed)
{
	switch (rnd_next(seed) % 4) {
	case 0:
		return 1 + rnd_next(seed) % 256;
	case 1:
		return 1 + rnd_next(seed) % (64 * 1024);
	case 2:
		return 1 + rnd_next(seed) % MiB;
	default:
		return 1 + rnd_next(seed) % (5 * MiB);
	}
}

/* Random lengths (1 B .. 5 MiB) and offsets, batches up to the depth, every byte checked. */
static void test_random_copies(void **state)
{
	enum { DEPTH = 8, ROUNDS = 12 };
	const size_t span = 6 * MiB;
	struct ferry_chan *chan = open_chan(test_kind(state), DEPTH);
	unsigned char *src = random_bytes(span, 42);
	struct guarded g[DEPTH];
	struct ferry_copy_cpl cpl[DEPTH];
	const unsigned char *from[DEPTH];
	uint64_t seed = 0x1234567 + (uint64_t)test_kind(state);
	int round, i, n;

	for (round = 0; round < ROUNDS; round++) {
		n = 1 + (int)(rnd_next(&seed) % DEPTH);
		for (i = 0; i < n; i++) {
			size_t len = random_len(&seed);
			size_t soff = rnd_next(&seed) % (span - len + 1);
			struct ferry_copy_desc d;

			guarded_alloc(&g[i], len);
			from[i] = src + soff;
			d = (struct ferry_copy_desc){.dst = g[i].dst,
						     .src = from[i],
						     .len = len,
						     .cookie = (uint64_t)round << 8 | (uint64_t)i};
			assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
		}
		ferry_chan_doorbell(chan);
		assert_int_equal(poll_all(chan, cpl, (uint32_t)n), n);
		for (i = 0; i < n; i++) {
			assert_int_equal(cpl[i].cookie, (uint64_t)round << 8 | (uint64_t)i);
			assert_int_equal(cpl[i].status, DOCA_SUCCESS);
			if (!guarded_check(&g[i], from[i]))
				fail_msg("round %d desc %d len %zu: bad bytes or guard", round, i, g[i].len);
			guarded_free(&g[i]);
		}
	}
	free(src);
	ferry_chan_close(chan);
}

/*
 * Completion order is enqueue order even when a later copy is much shorter and
 * finishes first; several doorbells, partial polls with small max.
 */
static void test_completion_order(void **state)
{
	enum { N = 24 };
	struct ferry_chan *chan = open_chan(test_kind(state), N);
	unsigned char *src = random_bytes(4 * MiB, 7);
	struct guarded g[N];
	struct ferry_copy_cpl cpl[N];
	uint32_t got = 0, n;
	double deadline = now_s() + 20.0;
	int i;

	for (i = 0; i < N; i++) {
		size_t len = (i % 3 == 0) ? 3 * MiB + (size_t)i : (size_t)(i * 17 + 1);
		struct ferry_copy_desc d;

		guarded_alloc(&g[i], len);
		d = (struct ferry_copy_desc){.dst = g[i].dst, .src = src + i, .len = len, .cookie = 1000 + (uint64_t)i};
		assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
		if (i % 5 == 4)
			ferry_chan_doorbell(chan);
	}
	ferry_chan_doorbell(chan);
	while (got < N && now_s() < deadline) {
		n = ferry_chan_poll(chan, cpl + got, 3); /* at most 3 at a time */
		assert_true(n <= 3);
		got += n;
		if (n == 0)
			sched_yield();
	}
	assert_int_equal(got, N);
	for (i = 0; i < N; i++) {
		assert_int_equal(cpl[i].cookie, 1000 + (uint64_t)i);
		assert_int_equal(cpl[i].status, DOCA_SUCCESS);
		assert_true(guarded_check(&g[i], src + i));
		guarded_free(&g[i]);
	}
	assert_false(ferry_chan_ready(chan));
	free(src);
	ferry_chan_close(chan);
}

/* ready() turns true once something can be polled and false after it was. */
static void test_ready(void **state)
{
	struct ferry_chan *chan = open_chan(test_kind(state), 2);
	unsigned char *src = random_bytes(MiB, 3);
	struct guarded g;
	struct ferry_copy_desc d;
	struct ferry_copy_cpl cpl;
	double deadline = now_s() + 20.0;

	guarded_alloc(&g, MiB);
	d = (struct ferry_copy_desc){.dst = g.dst, .src = src, .len = MiB, .cookie = 5};
	assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	assert_false(ferry_chan_ready(chan)); /* no doorbell yet: cannot be done */
	ferry_chan_doorbell(chan);
	while (!ferry_chan_ready(chan) && now_s() < deadline)
		sched_yield();
	assert_true(ferry_chan_ready(chan));
	assert_int_equal(ferry_chan_poll(chan, &cpl, 1), 1);
	assert_int_equal(cpl.cookie, 5);
	assert_int_equal(cpl.status, DOCA_SUCCESS);
	assert_true(guarded_check(&g, src));
	assert_false(ferry_chan_ready(chan));
	guarded_free(&g);
	free(src);
	ferry_chan_close(chan);
}

/* Cancel before the doorbell: nothing starts, everything fails, dst untouched. */
static void test_cancel_before_doorbell(void **state)
{
	enum { N = 6 };
	struct ferry_chan *chan = open_chan(test_kind(state), N);
	unsigned char *src = random_bytes(2 * MiB, 9);
	struct guarded g[N];
	struct ferry_copy_cpl cpl[N];
	struct ferry_copy_desc d;
	int i;

	for (i = 0; i < N; i++) {
		guarded_alloc(&g[i], i % 2 ? 100 : 2 * MiB);
		d = (struct ferry_copy_desc){.dst = g[i].dst, .src = src, .len = g[i].len, .cookie = (uint64_t)i};
		assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	}
	ferry_chan_cancel(chan);
	assert_true(ferry_chan_ready(chan));
	assert_int_equal(poll_all(chan, cpl, N), N);
	for (i = 0; i < N; i++) {
		assert_int_equal(cpl[i].cookie, (uint64_t)i);
		assert_int_equal(cpl[i].status, DOCA_ERROR_IO_FAILED);
		assert_true(guarded_untouched(&g[i]));
	}
	/* A doorbell after the cancel has nothing left to start. */
	ferry_chan_doorbell(chan);
	assert_int_equal(ferry_chan_poll(chan, cpl, N), 0);
	/* The channel still works. */
	d = (struct ferry_copy_desc){.dst = g[0].dst, .src = src, .len = g[0].len, .cookie = 77};
	assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	ferry_chan_doorbell(chan);
	assert_int_equal(poll_all(chan, cpl, 1), 1);
	assert_int_equal(cpl[0].cookie, 77);
	assert_int_equal(cpl[0].status, DOCA_SUCCESS);
	assert_true(guarded_check(&g[0], src));
	for (i = 0; i < N; i++)
		guarded_free(&g[i]);
	free(src);
	ferry_chan_close(chan);
}

/*
 * Cancel after the doorbell: each descriptor completes exactly once, in order,
 * either copied in full (SUCCESS) or failed; the guards always hold.
 */
static void test_cancel_in_flight(void **state)
{
	enum { N = 16 };
	struct ferry_chan *chan = open_chan(test_kind(state), N);
	unsigned char *src = random_bytes(8 * MiB, 11);
	struct guarded g[N];
	struct ferry_copy_cpl cpl[N];
	struct ferry_copy_desc d;
	int i, ok = 0;

	for (i = 0; i < N; i++) {
		guarded_alloc(&g[i], 8 * MiB - (size_t)i);
		d = (struct ferry_copy_desc){.dst = g[i].dst, .src = src + i, .len = g[i].len, .cookie = (uint64_t)i};
		assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	}
	ferry_chan_doorbell(chan);
	ferry_chan_cancel(chan);
	assert_int_equal(poll_all(chan, cpl, N), N);
	for (i = 0; i < N; i++) {
		assert_int_equal(cpl[i].cookie, (uint64_t)i);
		if (cpl[i].status == DOCA_SUCCESS) {
			assert_true(guarded_check(&g[i], src + i));
			ok++;
		} else {
			assert_int_equal(cpl[i].status, DOCA_ERROR_IO_FAILED);
			assert_true(guarded_check(&g[i], g[i].dst)); /* guards only */
		}
		guarded_free(&g[i]);
	}
	/* The inline engine copies at doorbell: nothing is left to cancel. */
	if (test_kind(state) == FERRY_ENGINE_INLINE)
		assert_int_equal(ok, N);
	assert_int_equal(ferry_chan_poll(chan, cpl, N), 0);
	free(src);
	ferry_chan_close(chan);
}

struct notify_state {
	_Atomic unsigned int calls;
	_Atomic int foreign; /* called from a thread other than the test's */
	pthread_t main;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static void on_notify(void *arg)
{
	struct notify_state *ns = arg;

	if (!pthread_equal(pthread_self(), ns->main))
		atomic_store(&ns->foreign, 1);
	pthread_mutex_lock(&ns->mu);
	atomic_fetch_add(&ns->calls, 1);
	pthread_cond_signal(&ns->cv);
	pthread_mutex_unlock(&ns->mu);
}

/*
 * notify: engines with threads call it from them when a completion lands, so a
 * waiter can sleep instead of polling; the inline engine never needs to.
 */
static void test_notify(void **state)
{
	enum ferry_engine_kind kind = test_kind(state);
	struct notify_state ns = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
	struct ferry_chan_cfg cfg = {.kind = kind, .depth = 4, .notify = on_notify, .notify_arg = &ns};
	struct ferry_chan *chan = NULL;
	unsigned char *src = random_bytes(2 * MiB, 13);
	struct guarded g;
	struct ferry_copy_desc d;
	struct ferry_copy_cpl cpl;
	struct timespec until;

	ns.main = pthread_self();
	assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_SUCCESS);
	guarded_alloc(&g, 2 * MiB);
	d = (struct ferry_copy_desc){.dst = g.dst, .src = src, .len = 2 * MiB, .cookie = 1};
	assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
	ferry_chan_doorbell(chan);
	if (kind == FERRY_ENGINE_INLINE) {
		assert_int_equal(ferry_chan_poll(chan, &cpl, 1), 1);
		assert_int_equal(atomic_load(&ns.calls), 0);
	} else {
		/* Sleep until notified, without polling: the notify is the only wake-up. */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 20;
		pthread_mutex_lock(&ns.mu);
		while (atomic_load(&ns.calls) == 0)
			if (pthread_cond_timedwait(&ns.cv, &ns.mu, &until) != 0)
				break;
		pthread_mutex_unlock(&ns.mu);
		assert_int_equal(atomic_load(&ns.calls), 1);
		assert_true(atomic_load(&ns.foreign));
		assert_true(ferry_chan_ready(chan));
		assert_int_equal(ferry_chan_poll(chan, &cpl, 1), 1);
	}
	assert_int_equal(cpl.status, DOCA_SUCCESS);
	assert_true(guarded_check(&g, src));
	guarded_free(&g);
	free(src);
	ferry_chan_close(chan);
}

/* Close with copies in flight, then free the buffers at once: nothing may touch them. */
static void test_close_in_flight(void **state)
{
	enum { N = 8, ROUNDS = 6 };
	unsigned char *src = random_bytes(4 * MiB, 17);
	int round, i;

	for (round = 0; round < ROUNDS; round++) {
		struct ferry_chan *chan = open_chan(test_kind(state), N);
		unsigned char *dst[N];

		for (i = 0; i < N; i++) {
			struct ferry_copy_desc d;

			dst[i] = malloc(4 * MiB);
			assert_non_null(dst[i]);
			d = (struct ferry_copy_desc){.dst = dst[i],
						     .src = src,
						     .len = 4 * MiB - (size_t)round * 4096,
						     .cookie = (uint64_t)i};
			assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
			if (i == N / 2)
				ferry_chan_doorbell(chan);
		}
		if (round % 2)
			ferry_chan_doorbell(chan); /* half the rounds leave some unrung */
		ferry_chan_close(chan);
		for (i = 0; i < N; i++) {
			memset(dst[i], 0, 4096); /* a late engine write would race with this */
			free(dst[i]);
		}
	}
	free(src);
}

/* Many channels at once, each with its own mix, polled round robin. */
static void test_many_channels(void **state)
{
	enum { CHANS = 48, PER = 4 };
	struct ferry_chan *chan[CHANS];
	unsigned char *src = random_bytes(2 * MiB, 19);
	static struct guarded g[CHANS][PER];
	struct ferry_copy_cpl cpl[PER];
	uint32_t got[CHANS] = {0};
	uint64_t seed = 99;
	double deadline;
	int c, i, left = CHANS;

	for (c = 0; c < CHANS; c++) {
		chan[c] = open_chan(test_kind(state), PER);
		for (i = 0; i < PER; i++) {
			size_t len = (rnd_next(&seed) % 4 == 0) ? MiB + (size_t)c : 1 + rnd_next(&seed) % 8192;
			struct ferry_copy_desc d;

			guarded_alloc(&g[c][i], len);
			d = (struct ferry_copy_desc){
				.dst = g[c][i].dst, .src = src + c, .len = len, .cookie = (uint64_t)(c * PER + i)};
			assert_int_equal(ferry_chan_enqueue(chan[c], &d), DOCA_SUCCESS);
		}
		ferry_chan_doorbell(chan[c]);
	}
	deadline = now_s() + 20.0;
	while (left > 0 && now_s() < deadline) {
		for (c = 0; c < CHANS; c++) {
			uint32_t n = got[c] < PER ? ferry_chan_poll(chan[c], cpl, PER) : 0;

			for (i = 0; i < (int)n; i++) {
				assert_int_equal(cpl[i].cookie, (uint64_t)(c * PER) + got[c] + (uint64_t)i);
				assert_int_equal(cpl[i].status, DOCA_SUCCESS);
			}
			got[c] += n;
			if (n != 0 && got[c] == PER)
				left--;
		}
		sched_yield();
	}
	assert_int_equal(left, 0);
	for (c = 0; c < CHANS; c++) {
		for (i = 0; i < PER; i++) {
			assert_true(guarded_check(&g[c][i], src + c));
			guarded_free(&g[c][i]);
		}
		ferry_chan_close(chan[c]);
	}
	free(src);
}

/* Several application threads, each with its own channel, at the same time. */
static void *thread_body(void *arg)
{
	enum ferry_engine_kind kind = *(const enum ferry_engine_kind *)arg;
	struct ferry_chan_cfg cfg = {.kind = kind, .depth = 16};
	struct ferry_chan *chan = NULL;
	unsigned char src[4096], dst[4096];
	struct ferry_copy_cpl cpl[16];
	struct ferry_copy_desc d;
	uintptr_t bad = 0;
	int round, i;

	memset(src, 0x3c, sizeof(src));
	if (ferry_chan_open(&cfg, &chan) != DOCA_SUCCESS)
		return (void *)1;
	for (round = 0; round < 200; round++) {
		memset(dst, 0, sizeof(dst));
		for (i = 0; i < 16; i++) {
			d = (struct ferry_copy_desc){
				.dst = dst + i * 256, .src = src + i * 256, .len = 256, .cookie = (uint64_t)i};
			bad |= ferry_chan_enqueue(chan, &d) != DOCA_SUCCESS;
		}
		ferry_chan_doorbell(chan);
		bad |= poll_all(chan, cpl, 16) != 16;
		for (i = 0; i < 16; i++)
			bad |= cpl[i].cookie != (uint64_t)i || cpl[i].status != DOCA_SUCCESS;
		bad |= memcmp(src, dst, sizeof(dst)) != 0;
	}
	ferry_chan_close(chan);
	return (void *)bad;
}

static void test_threads(void **state)
{
	enum { T = 3 };
	pthread_t th[T];
	void *res;
	int i;

	for (i = 0; i < T; i++)
		assert_int_equal(pthread_create(&th[i], NULL, thread_body, *state), 0);
	for (i = 0; i < T; i++) {
		assert_int_equal(pthread_join(th[i], &res), 0);
		assert_null(res);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ENGINE_TESTS(test_empty_channel),
		ENGINE_TESTS(test_depth_again),
		ENGINE_TESTS(test_zero_length),
		ENGINE_TESTS(test_random_copies),
		ENGINE_TESTS(test_completion_order),
		ENGINE_TESTS(test_ready),
		ENGINE_TESTS(test_cancel_before_doorbell),
		ENGINE_TESTS(test_cancel_in_flight),
		ENGINE_TESTS(test_notify),
		ENGINE_TESTS(test_close_in_flight),
		ENGINE_TESTS(test_many_channels),
		ENGINE_TESTS(test_threads),
	};

	/* The environment must not override the kind each test asks for. */
	unsetenv("FERRY_DMA_ENGINE");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
