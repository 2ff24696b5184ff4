/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream.c - the copy the engines make in the caller's thread for large
 * descriptors: non-temporal stores, as a device's DMA lands in memory rather
 * than in the CPU cache (FERRY_ENGINE_STREAM_MIN in engine_priv.h says from
 * which size). engine_inline.c and engine_worker.c call it; it calls nothing.
 */
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/engine_priv.h"

/* ---- streaming copy (see FERRY_ENGINE_STREAM_MIN) ---- */

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
