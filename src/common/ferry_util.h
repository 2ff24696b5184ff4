/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_util.h - small idioms every layer uses, written once.
 */
#ifndef FERRY_UTIL_H_
#define FERRY_UTIL_H_

#include <stddef.h>
#include <stdint.h>

/**
 * The object of type @p type whose member @p member is at @p ptr. The
 * conditional makes the compiler check that @p ptr points to that member's
 * type (a mismatch is a warning, an error here); the cast through uintptr_t
 * keeps a const pointer's object reachable for the callers that own it.
 */
#define ferry_container_of(ptr, type, member) \
	((type *)(uintptr_t)((const char *)(1 ? (ptr) : &((type *)0)->member) - offsetof(type, member)))

/** The value of hexadecimal digit @p c (either case), or -1. */
static inline int ferry_hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* splitmix64's finaliser: every bit of @p x reaches every bit of the result (a bijection). */
static inline uint64_t ferry_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/** The least power of two >= @p n (1 for 0); 0 when it would not fit 32 bits. */
static inline uint32_t ferry_pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	if (n > (UINT32_C(1) << 31))
		return 0;
	while (p < n)
		p <<= 1;
	return p;
}

#endif /* FERRY_UTIL_H_ */
