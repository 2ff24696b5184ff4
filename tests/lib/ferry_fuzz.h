/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_fuzz.h - what Ferry's libFuzzer targets' custom mutators share.
 */
#ifndef FERRY_FUZZ_H_
#define FERRY_FUZZ_H_

#include <stdbool.h>
#include <stdint.h>

/* True one time in @p n; xorshift spreads libFuzzer's one seed over many choices. */
static inline bool ferry_fuzz_one_in(uint32_t *s, uint32_t n)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s % n == 0;
}

#endif /* FERRY_FUZZ_H_ */
