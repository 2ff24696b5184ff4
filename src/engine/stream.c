/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream.c - the copy the engines make in the caller's thread: cached stores
 * (memcpy) or non-temporal ones, chosen by what serves the copy (the rules are
 * in engine_priv.h, above FERRY_ENGINE_STREAM_MIN_DEFAULT), and the last-level
 * cache size they depend on, read from sysfs once. engine_inline.c and
 * engine_worker.c call it; it calls nothing of theirs.
 */
#include <dirent.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/ferry_env.h"
#include "engine/engine_priv.h"

/* ---- the choice ---- */

bool ferry_engine_stream_choose(size_t len, size_t min, size_t llc, uint64_t reuse)
{
	if (len < min)
		return false;
	if (len >= llc / 2)
		return true;
	return reuse > llc / 4;
}

/* ---- the last-level cache ---- */

/* The first line of @p dir/@p name into @p buf, without its newline; false if unreadable or empty. */
static bool read_line(const char *dir, const char *name, char *buf, size_t cap)
{
	char path[512];
	FILE *f;
	bool ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return false;
	f = fopen(path, "re");
	if (f == NULL)
		return false;
	ok = fgets(buf, (int)cap, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok && buf[0] != '\0';
}

/* "32768K", "32M", "1G" or a plain byte count, as sysfs writes sizes; 0 if it is none of those. */
static uint64_t parse_size(const char *s)
{
	uint64_t v = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return 0;
	switch (*p) {
	case 'K':
		v = v > (UINT64_MAX >> 10) ? 0 : v << 10;
		p++;
		break;
	case 'M':
		v = v > (UINT64_MAX >> 20) ? 0 : v << 20;
		p++;
		break;
	case 'G':
		v = v > (UINT64_MAX >> 30) ? 0 : v << 30;
		p++;
		break;
	default:
		break;
	}
	return *p == '\0' ? v : 0;
}

size_t ferry_engine_llc_parse(const char *cache_dir)
{
	DIR *d = opendir(cache_dir);
	struct dirent *e;
	unsigned long best_level = 0;
	uint64_t best = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char dir[512], line[64];
		unsigned long level;
		uint64_t size;
		char *end;

		if (strncmp(e->d_name, "index", 5) != 0 ||
		    (size_t)snprintf(dir, sizeof(dir), "%s/%s", cache_dir, e->d_name) >= sizeof(dir))
			continue;
		/* An instruction cache never holds what a copy writes. */
		if (!read_line(dir, "type", line, sizeof(line)) ||
		    (strcmp(line, "Unified") != 0 && strcmp(line, "Data") != 0))
			continue;
		if (!read_line(dir, "level", line, sizeof(line)))
			continue;
		level = strtoul(line, &end, 10);
		if (end == line || *end != '\0' || level == 0)
			continue;
		if (!read_line(dir, "size", line, sizeof(line)) || (size = parse_size(line)) == 0)
			continue;
		if (level > best_level || (level == best_level && size > best)) {
			best_level = level;
			best = size;
		}
	}
	closedir(d);
	return best > SIZE_MAX ? SIZE_MAX : (size_t)best;
}

size_t ferry_engine_llc_bytes(void)
{
	/* sysfs once per process; 0 until then (racing first readers both read it: same answer). */
	static _Atomic size_t from_sysfs;
	size_t llc = atomic_load_explicit(&from_sysfs, memory_order_relaxed);

	if (llc == 0) {
		llc = ferry_engine_llc_parse("/sys/devices/system/cpu/cpu0/cache");
		if (llc == 0)
			llc = FERRY_ENGINE_LLC_DEFAULT;
		atomic_store_explicit(&from_sysfs, llc, memory_order_relaxed);
	}
	return (size_t)ferry_env_u64("FERRY_ENGINE_LLC", 64 * 1024, (uint64_t)1 << 40, llc);
}

void ferry_stream_init(struct ferry_stream *st)
{
	memset(st, 0, sizeof(*st));
	st->min = (size_t)ferry_env_u64("FERRY_ENGINE_STREAM_MIN", 4096, SIZE_MAX, FERRY_ENGINE_STREAM_MIN_DEFAULT);
	st->llc = ferry_engine_llc_bytes();
}

/* ---- the channel's memory of its destinations ---- */

static inline uint32_t clock_kib(const struct ferry_stream *st)
{
	return (uint32_t)(st->clock >> 10);
}

/* Bytes copied since the channel last wrote @p page, UINT64_MAX if it does not remember. */
static uint64_t reuse_of(const struct ferry_stream *st, uint64_t page)
{
	const struct ferry_stream_slot *s = &st->recent[page & (FERRY_STREAM_SLOTS - 1)];

	if (s->at == 0 || s->tag != (uint32_t)(page >> FERRY_STREAM_SLOT_BITS))
		return UINT64_MAX;
	/* Unsigned wrap-around keeps the difference right across a wrap of the 32-bit clock. */
	return (uint64_t)(uint32_t)(clock_kib(st) + 1 - s->at) << 10;
}

bool ferry_stream_copy_large(struct ferry_stream *st, void *dst, const void *src, size_t len)
{
	uint64_t first = (uintptr_t)dst >> FERRY_STREAM_PAGE_SHIFT;
	uint64_t last = ((uintptr_t)dst + len - 1) >> FERRY_STREAM_PAGE_SHIFT;
	uint64_t reuse = reuse_of(st, first), reuse_last = reuse_of(st, last), p;
	uint32_t at;
	bool stream;

	/*
	 * The colder end: a walk forward through a buffer finds its first page just
	 * written by the copy before (when copies are not page aligned) but its last
	 * one new; a walk backward the other way round. Reused buffers find both.
	 */
	if (reuse_last > reuse)
		reuse = reuse_last;
	stream = ferry_engine_stream_choose(len, st->min, st->llc, reuse);
	st->clock += len;
	at = clock_kib(st) + 1;
	/* Remember every page written, at most a table's worth (the last ones): consecutive pages never collide. */
	if (last - first >= FERRY_STREAM_SLOTS)
		first = last - FERRY_STREAM_SLOTS + 1;
	for (p = first; p <= last; p++) {
		struct ferry_stream_slot *s = &st->recent[p & (FERRY_STREAM_SLOTS - 1)];

		s->tag = (uint32_t)(p >> FERRY_STREAM_SLOT_BITS);
		s->at = at;
	}
	if (stream)
		ferry_engine_copy_stream(dst, src, len);
	else
		memcpy(dst, src, len);
	return stream;
}

/* ---- the streaming copy ---- */

#if defined(__SSE2__)
void ferry_engine_copy_stream(void *dst, const void *src, size_t len)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	/* Non-temporal stores need a 16-byte aligned destination: plain copy up to it. */
	size_t head = (16 - ((uintptr_t)d & 15)) & 15;

	memcpy(d, s, head);
	d += head;
	s += head;
	len -= head;
	for (; len >= 64; d += 64, s += 64, len -= 64) {
		__m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)s);
		__m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
		__m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
		__m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));

		_mm_stream_si128((__m128i *)(void *)d, x0);
		_mm_stream_si128((__m128i *)(void *)(d + 16), x1);
		_mm_stream_si128((__m128i *)(void *)(d + 32), x2);
		_mm_stream_si128((__m128i *)(void *)(d + 48), x3);
	}
	memcpy(d, s, len);
}

void ferry_engine_stream_fence(void)
{
	/* Non-temporal stores are weakly ordered: sfence orders them before later stores. */
	_mm_sfence();
}
#else
void ferry_engine_copy_stream(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
}

void ferry_engine_stream_fence(void)
{
}
#endif
