/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xproc_common.h - what the host and DPU test programs share: a pattern that
 * both sides can generate and a checksum both sides compute the same way.
 */
#ifndef FERRY_TEST_XPROC_COMMON_H_
#define FERRY_TEST_XPROC_COMMON_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t xp_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Word i of pattern `seed` is mix(seed + i); a tail shorter than a word gets its low bytes. */
static inline void xp_fill(void *mem, size_t len, uint64_t seed)
{
	uint8_t *p = mem;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t v = xp_mix(seed + i / 8);
		memcpy(p + i, &v, 8);
	}
	if (i < len) {
		uint64_t v = xp_mix(seed + i / 8);
		memcpy(p + i, &v, len - i);
	}
}

/* Position-dependent, so swapped or shifted blocks change the sum. */
static inline uint64_t xp_sum(const void *mem, size_t len)
{
	const uint8_t *p = mem;
	uint64_t h = 0x84222325cbf29ce4ull;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t v;
		memcpy(&v, p + i, 8);
		h += xp_mix(v ^ (i * 0x9e3779b97f4a7c15ull));
	}
	for (; i < len; i++)
		h += xp_mix(p[i] ^ (i * 0x9e3779b97f4a7c15ull));
	return h;
}

#endif /* FERRY_TEST_XPROC_COMMON_H_ */
