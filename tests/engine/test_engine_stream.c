/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine_stream.c - streaming or cached stores (src/engine/stream.c): the
 * decision alone, the last-level cache read from a fake sysfs directory, the
 * environment overrides, and a channel's memory of its destinations on the
 * patterns that matter (a buffer reused in the cache, a walk through far more
 * than the cache, forward and backward, aligned or not), every copy checked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine_priv.h"
#include "ferry_test.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static void test_choose(void **state)
{
	const size_t llc = 32 * MiB, min = 4 * KiB;

	(void)state;
	/* Small copies never stream, however cold. */
	assert_false(ferry_engine_stream_choose(0, min, llc, UINT64_MAX));
	assert_false(ferry_engine_stream_choose(min - 1, min, llc, UINT64_MAX));
	/* From min on: cold streams, recently written does not; the edge is a quarter of the cache. */
	assert_true(ferry_engine_stream_choose(min, min, llc, UINT64_MAX));
	assert_false(ferry_engine_stream_choose(min, min, llc, 0));
	assert_false(ferry_engine_stream_choose(64 * KiB, min, llc, llc / 4));
	assert_true(ferry_engine_stream_choose(64 * KiB, min, llc, llc / 4 + 1));
	/* Half the cache or more streams even onto a destination just written. */
	assert_false(ferry_engine_stream_choose(llc / 2 - 1, min, llc, 0));
	assert_true(ferry_engine_stream_choose(llc / 2, min, llc, 0));
	assert_true(ferry_engine_stream_choose(SIZE_MAX - 1, min, llc, 0));
	/* A min above everything turns streaming off. */
	assert_false(ferry_engine_stream_choose(llc, SIZE_MAX, llc, UINT64_MAX));
}

/* ---- a fake /sys/devices/system/cpu/cpuN/cache ---- */

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f;

	assert_true(n > 0 && (size_t)n < sizeof(path));
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* @p root/indexN with the given files (NULL: left out). */
static void add_cache(const char *root, const char *index, const char *level, const char *type, const char *size)
{
	char dir[256];
	int n = snprintf(dir, sizeof(dir), "%s/%s", root, index);

	assert_true(n > 0 && (size_t)n < sizeof(dir));
	assert_int_equal(mkdir(dir, 0700), 0);
	if (level != NULL)
		put(dir, "level", level);
	if (type != NULL)
		put(dir, "type", type);
	if (size != NULL)
		put(dir, "size", size);
}

static void rm_tree(const char *root)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_llc_parse(void **state)
{
	char root[] = "/tmp/ferry-test-cache-XXXXXX";

	(void)state;
	assert_int_equal(ferry_engine_llc_parse("/nonexistent/ferry/cache"), 0);
	assert_non_null(mkdtemp(root));
	assert_int_equal(ferry_engine_llc_parse(root), 0); /* no index at all */

	/* What this machine's kernel writes: the highest level's data-or-unified cache wins. */
	add_cache(root, "index0", "1\n", "Data\n", "48K\n");
	add_cache(root, "index1", "1\n", "Instruction\n", "32K\n");
	assert_int_equal(ferry_engine_llc_parse(root), 48 * KiB);
	add_cache(root, "index2", "2\n", "Unified\n", "1024K\n");
	assert_int_equal(ferry_engine_llc_parse(root), 1 * MiB);
	add_cache(root, "index3", "3\n", "Unified\n", "32768K\n");
	assert_int_equal(ferry_engine_llc_parse(root), 32 * MiB);

	/* Ignored: an instruction cache of a higher level, unreadable or malformed entries. */
	add_cache(root, "index4", "4\n", "Instruction\n", "512M\n");
	add_cache(root, "index5", "5\n", "Unified\n", "lots\n");
	add_cache(root, "index6", "6\n", "Unified\n", "12KB\n");
	add_cache(root, "index7", "x\n", "Unified\n", "64M\n");
	add_cache(root, "index8", NULL, "Unified\n", "64M\n");
	add_cache(root, "index9", "7\n", "Unified\n", NULL);
	add_cache(root, "index10", "0\n", "Unified\n", "64M\n");
	add_cache(root, "index11", "8\n", "Unified\n", "99999999999999999999999K\n");
	add_cache(root, "notindex", "9\n", "Unified\n", "64M\n");
	assert_int_equal(ferry_engine_llc_parse(root), 32 * MiB);

	/* Other units sysfs-like files may use: M, G, plain bytes. */
	add_cache(root, "index12", "4\n", "Unified\n", "2G");
	assert_int_equal(ferry_engine_llc_parse(root), (size_t)2 << 30);
	add_cache(root, "index13", "5\n", "Data\n", "3145728\n");
	assert_int_equal(ferry_engine_llc_parse(root), 3 * MiB);
	add_cache(root, "index14", "5\n", "Unified\n", "96M\n"); /* same level: the larger */
	assert_int_equal(ferry_engine_llc_parse(root), 96 * MiB);
	rm_tree(root);
}

static void test_env(void **state)
{
	struct ferry_stream *st = malloc(sizeof(*st));
	size_t sysfs;

	(void)state;
	assert_non_null(st);
	unsetenv("FERRY_ENGINE_LLC");
	unsetenv("FERRY_ENGINE_STREAM_MIN");
	sysfs = ferry_engine_llc_bytes();
	assert_true(sysfs >= 64 * KiB);
	ferry_stream_init(st);
	assert_int_equal(st->min, FERRY_ENGINE_STREAM_MIN_DEFAULT);
	assert_int_equal(st->llc, sysfs);
	assert_int_equal(st->clock, 0);

	setenv("FERRY_ENGINE_LLC", "0x800000", 1);
	setenv("FERRY_ENGINE_STREAM_MIN", "65536", 1);
	ferry_stream_init(st);
	assert_int_equal(st->llc, 8 * MiB);
	assert_int_equal(st->min, 64 * KiB);

	/* Out of bounds or not a number: one warning, the default. */
	ferry_test_log_reset();
	setenv("FERRY_ENGINE_LLC", "4096", 1);
	setenv("FERRY_ENGINE_STREAM_MIN", "16", 1);
	ferry_stream_init(st);
	assert_int_equal(st->llc, sysfs);
	assert_int_equal(st->min, FERRY_ENGINE_STREAM_MIN_DEFAULT);
	assert_logged("FERRY_ENGINE_LLC='4096'");
	assert_logged("FERRY_ENGINE_STREAM_MIN='16'");
	unsetenv("FERRY_ENGINE_LLC");
	unsetenv("FERRY_ENGINE_STREAM_MIN");
	free(st);
}

/* ---- a channel's memory ---- */

#define LLC  (1 * MiB) /* forced through FERRY_ENGINE_LLC: hot below 256 KiB of reuse */
#define SPAN (4 * MiB) /* far larger than that cache */

struct fixture {
	struct ferry_stream st;
	unsigned char *src, *dst;
	unsigned char fill;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	setenv("FERRY_ENGINE_LLC", "1048576", 1);
	unsetenv("FERRY_ENGINE_STREAM_MIN");
	ferry_stream_init(&f->st);
	unsetenv("FERRY_ENGINE_LLC");
	f->src = aligned_alloc(4096, SPAN + 4096);
	f->dst = aligned_alloc(4096, SPAN + 4096);
	if (f->src == NULL || f->dst == NULL)
		return -1;
	memset(f->dst, 0, SPAN + 4096);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	free(f->src);
	free(f->dst);
	free(f);
	return 0;
}

/* Copy @p len bytes at @p off through the channel's memory; check them; true if it streamed. */
static bool copy(struct fixture *f, size_t off, size_t len)
{
	bool streamed;

	f->fill++;
	memset(f->src + off, f->fill, len);
	streamed = ferry_engine_copy_local(&f->st, f->dst + off, f->src + off, len);
	if (streamed)
		ferry_engine_stream_fence();
	assert_memory_equal(f->dst + off, f->src + off, len);
	return streamed;
}

/* The channel forgets where it wrote (as a new channel would), its thresholds stay. */
static void forget(struct fixture *f)
{
	memset(f->st.recent, 0, sizeof(f->st.recent));
}

static void test_small_never(void **state)
{
	struct fixture *f = *state;
	uint64_t clock = f->st.clock;
	size_t off;

	for (off = 0; off < SPAN; off += 4 * KiB)
		assert_false(copy(f, off, 4 * KiB - 1));
	assert_int_equal(f->st.clock - clock, (SPAN / (4 * KiB)) * (4 * KiB - 1));
	/* Length 0 with NULL pointers is legal and copies nothing. */
	assert_false(ferry_engine_copy_local(&f->st, NULL, NULL, 0));
}

static void test_reused_buffer_stays_cached(void **state)
{
	struct fixture *f = *state;
	const size_t window = 128 * KiB; /* reused after 128 KiB: within a quarter of the cache */
	size_t off;
	int pass;

	/* The first pass knows nothing of the window: it streams. */
	for (off = 0; off < window; off += 4 * KiB)
		assert_true(copy(f, off, 4 * KiB));
	for (pass = 0; pass < 3; pass++)
		for (off = 0; off < window; off += 4 * KiB)
			assert_false(copy(f, off, 4 * KiB));
	/* So does one larger buffer copied again and again. */
	assert_true(copy(f, SPAN / 2, 64 * KiB));
	assert_false(copy(f, SPAN / 2, 64 * KiB));
	assert_false(copy(f, SPAN / 2, 64 * KiB));
}

static void test_walk_streams(void **state)
{
	struct fixture *f = *state;
	size_t off;
	int pass;

	/* Forward through 4 MiB, twice: the second pass comes back after 4 MiB, long evicted. */
	for (pass = 0; pass < 2; pass++)
		for (off = 0; off < SPAN; off += 4 * KiB)
			assert_true(copy(f, off, 4 * KiB));
	/* Not page aligned: each copy's first page was just written, its last one is new. */
	forget(f);
	for (off = 100; off + 4 * KiB <= SPAN; off += 4 * KiB)
		assert_true(copy(f, off, 4 * KiB));
	/* Backward, not aligned: the other way round. */
	forget(f);
	for (off = SPAN - 4 * KiB - 100; off > 4 * KiB; off -= 4 * KiB)
		assert_true(copy(f, off, 4 * KiB));
	/* 64 KiB copies walking the span. */
	forget(f);
	for (off = 0; off < SPAN; off += 64 * KiB)
		assert_true(copy(f, off, 64 * KiB));
}

static void test_large_always_streams(void **state)
{
	struct fixture *f = *state;

	/* Half the cache (512 KiB) or more: even onto a destination just written. */
	assert_true(copy(f, 0, LLC / 2));
	assert_true(copy(f, 0, LLC / 2));
	assert_true(copy(f, 0, SPAN));
	/* Just below it, written a moment ago: cached. */
	assert_false(copy(f, 0, LLC / 2 - 4 * KiB));
	/* An odd length and misaligned ends copy right either way. */
	assert_true(copy(f, 4 * KiB + 3, LLC / 2 + 77));
	assert_false(copy(f, 4 * KiB + 3, 64 * KiB + 5));
}

static void test_min_override(void **state)
{
	struct fixture *f = *state;
	size_t off;

	/* Streaming off for everything below 1 MiB: a cold walk of 4 KiB copies stays cached. */
	f->st.min = 1 * MiB;
	for (off = 0; off < SPAN; off += 4 * KiB)
		assert_false(copy(f, off, 4 * KiB));
	f->st.min = FERRY_ENGINE_STREAM_MIN_DEFAULT;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_llc_parse),
		cmocka_unit_test(test_env),
		cmocka_unit_test_setup_teardown(test_small_never, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reused_buffer_stays_cached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_streams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_always_streams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_min_override, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
