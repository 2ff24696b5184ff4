/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_export_desc.c - libFuzzer target for the export descriptor decoder.
 *
 * Run: fuzz_export_desc -max_total_time=60 tests/link/corpus (seeded with a
 * valid descriptor). Properties: decode never crashes or reads outside its input (ASan checks
 * that under -fsanitize=fuzzer,address), and whatever it accepts re-encodes to
 * the very same bytes (no two encodings of one descriptor, nothing ignored).
 * Built with -Dfuzz=true and clang; fuzz_corpus_driver.c runs the same entry
 * point over a generated corpus in the plain test suite.
 *
 * In the libFuzzer build (FERRY_LIBFUZZER, defined by tests/meson.build) a
 * custom mutator re-frames most mutants: it sets the length field (and often
 * the agent name length) to the size and re-computes the checksum, so most
 * executions get past the CRC to the field checks. A few mutants are left as
 * mutated so the framing checks themselves stay covered.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "link/export_desc_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Little-endian store, as the descriptor's fields are written. */
static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Seal @p size bytes: the checksum covers the whole descriptor with its own field zeroed. */
static void seal(uint8_t *p, size_t size)
{
	memset(p + 12, 0, 4);
	put_le(p + 12, ferry_desc_crc32(p, size), 4);
}

static void check_one(const uint8_t *data, size_t size)
{
	struct ferry_export_desc d;
	const char *why = NULL;
	uint8_t again[FERRY_DESC_MAX_LEN];

	if (ferry_export_desc_decode(data, size, &d, &why) != DOCA_SUCCESS) {
		if (why == NULL)
			abort(); /* every refusal says why */
		return;
	}
	size_t n = ferry_export_desc_encode(&d, again, sizeof(again));
	if (n != size || memcmp(again, data, size) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t sealed[FERRY_DESC_MAX_LEN];

	check_one(data, size);
	/* Random bytes almost never carry a valid checksum: also try the input
	 * with its checksum fixed, so the field checks behind it get explored. */
	if (size >= 16 && size <= sizeof(sealed)) {
		memcpy(sealed, data, size);
		seal(sealed, size);
		check_one(sealed, size);
	}
	return 0;
}

#ifdef FERRY_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* libFuzzer's seed is one number per call; spread it so each choice below is independent. */
static uint32_t next_choice(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * Mutate as libFuzzer would, then make the framing agree with the new size.
 * Each repair is skipped now and then (1 in 16; the agent length 1 in 4), so
 * a mutant that is wrong in exactly one framing field is still produced.
 */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint32_t s = seed | 1; /* xorshift never leaves 0 */

	size = LLVMFuzzerMutate(data, size, max_size);
	if (size < 16)
		return size; /* no room for the length and checksum fields */
	if (next_choice(&s) % 16 != 0)
		put_le(data + 8, size, 4);
	if (size >= FERRY_DESC_FIXED_LEN && size <= FERRY_DESC_MAX_LEN && next_choice(&s) % 4 != 0)
		put_le(data + 96, size - FERRY_DESC_FIXED_LEN, 2);
	if (next_choice(&s) % 16 != 0)
		seal(data, size);
	return size;
}
#endif /* FERRY_LIBFUZZER */
