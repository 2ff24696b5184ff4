/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_export_desc.c - libFuzzer target for the export descriptor decoder.
 *
 * Properties: decode never crashes or reads outside its input (ASan checks
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ferry_export_desc d;
	const char *why = NULL;
	uint8_t again[FERRY_DESC_MAX_LEN];

	if (ferry_export_desc_decode(data, size, &d, &why) != DOCA_SUCCESS) {
		if (why == NULL)
			abort(); /* every refusal says why */
		return 0;
	}
	size_t n = ferry_export_desc_encode(&d, again, sizeof(again));
	if (n != size || memcmp(again, data, size) != 0)
		abort();
	return 0;
}
