/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_test.h - helpers for the copy-engine tests: run one body over every
 * engine kind (like liburing's FOR_ALL_TEST_CONFIGS), guarded buffers, polling
 * with a deadline.
 */
#ifndef ENGINE_TEST_H_
#define ENGINE_TEST_H_

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/ferry_engine.h"

__attribute__((unused)) static enum ferry_engine_kind all_engine_kinds_[] = {
	FERRY_ENGINE_INLINE,
	FERRY_ENGINE_WORKER,
	FERRY_ENGINE_AUTO,
};

/* One cmocka test per (body, engine kind); the kind travels in the initial state. */
#define ENGINE_TEST_(body, i, suffix)                                                                       \
	{                                                                                                   \
		.name = #body "/" suffix, .test_func = body, .initial_state = (void *)&all_engine_kinds_[i] \
	}
#define ENGINE_TESTS(body) \
	ENGINE_TEST_(body, 0, "inline"), ENGINE_TEST_(body, 1, "worker"), ENGINE_TEST_(body, 2, "auto")

static inline enum ferry_engine_kind test_kind(void **state)
{
	return *(const enum ferry_engine_kind *)*state;
}

#define GUARD_BYTES 64
#define GUARD_FILL  0xa5

/* A destination of @p len bytes with GUARD_BYTES of GUARD_FILL on both sides. */
struct guarded {
	unsigned char *base;
	unsigned char *dst;
	size_t len;
};

static inline void guarded_alloc(struct guarded *g, size_t len)
{
	g->base = malloc(len + 2 * GUARD_BYTES);
	if (g->base == NULL)
		abort();
	memset(g->base, GUARD_FILL, len + 2 * GUARD_BYTES);
	g->dst = g->base + GUARD_BYTES;
	g->len = len;
}

/* True when dst holds @p src and every guard byte is intact. */
static inline int guarded_check(const struct guarded *g, const unsigned char *src)
{
	size_t i;

	for (i = 0; i < GUARD_BYTES; i++)
		if (g->base[i] != GUARD_FILL || g->dst[g->len + i] != GUARD_FILL)
			return 0;
	return g->len == 0 || memcmp(g->dst, src, g->len) == 0;
}

/* True when nothing was written: dst still all GUARD_FILL. */
static inline int guarded_untouched(const struct guarded *g)
{
	size_t i;

	for (i = 0; i < g->len + 2 * GUARD_BYTES; i++)
		if (g->base[i] != GUARD_FILL)
			return 0;
	return 1;
}

static inline void guarded_free(struct guarded *g)
{
	free(g->base);
	g->base = g->dst = NULL;
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Poll until @p want completions arrived (or 20 s passed); returns how many did.
 * Yields between empty polls: on a 2-core machine the workers need the CPU.
 */
static inline uint32_t poll_all(struct ferry_chan *chan, struct ferry_copy_cpl *cpl, uint32_t want)
{
	double deadline = now_s() + 20.0;
	uint32_t got = 0;

	while (got < want && now_s() < deadline) {
		uint32_t n = ferry_chan_poll(chan, cpl + got, want - got);

		got += n;
		if (n == 0)
			sched_yield();
	}
	return got;
}

/* Deterministic xorshift so a failure can be replayed. */
static inline uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif /* ENGINE_TEST_H_ */
