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
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "link/export_desc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
		memset(sealed + 12, 0, 4);
		uint32_t crc = ferry_desc_crc32(sealed, size);
		for (int i = 0; i < 4; i++)
			sealed[12 + i] = (uint8_t)(crc >> (8 * i));
		check_one(sealed, size);
	}
	return 0;
}
