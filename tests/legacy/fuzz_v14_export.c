/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_v14_export.c - libFuzzer target for the DOCA 1.3/1.4 export text
 * decoder (src/legacy/v14_export.c), whose bytes come from another process
 * over whatever the program chose (a TCP socket in NVIDIA's samples).
 *
 * Properties: decode never crashes or reads outside its input; a refusal
 * always says why; what it accepts has a non-empty blob and a positive len,
 * and its canonical encoding decodes to the same values.
 *
 * Built with -Dfuzz=true and clang. With -DFERRY_FUZZ_STANDALONE it gets a
 * main that replays valid texts and a deterministic set of mutations (test
 * 'legacy14_export_seeds', in the plain suite).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "legacy/v14_export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t blob[V14_EXPORT_MAX_BLOB], blob2[V14_EXPORT_MAX_BLOB];
	char again[V14_EXPORT_MAX_LEN];
	uint64_t addr = 0, len = 0, addr2 = 0, len2 = 0;
	size_t blob_len = 0, blob_len2 = 0, n;
	const char *why = NULL;

	if (v14_export_decode(data, size, &addr, &len, blob, &blob_len, &why) != DOCA_SUCCESS) {
		if (why == NULL)
			abort();
		return 0;
	}
	if (blob_len == 0 || blob_len > V14_EXPORT_MAX_BLOB || len == 0 || addr > INT64_MAX || len > INT64_MAX)
		abort();
	n = v14_export_encode(addr, len, blob, blob_len, again, sizeof(again));
	/* The canonical text of anything accepted fits 1024 bytes (at most 847 with the largest blob). */
	if (n == 0)
		abort();
	if (v14_export_decode((const uint8_t *)again, n, &addr2, &len2, blob2, &blob_len2, &why) != DOCA_SUCCESS ||
	    addr2 != addr || len2 != len || blob_len2 != blob_len || memcmp(blob, blob2, blob_len) != 0)
		abort();
	return 0;
}

#ifdef FERRY_FUZZ_STANDALONE
static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int expect(const char *text, size_t len, int ok)
{
	uint8_t blob[V14_EXPORT_MAX_BLOB];
	uint64_t addr, n;
	size_t blob_len;
	const char *why = NULL;
	int got = v14_export_decode((const uint8_t *)text, len, &addr, &n, blob, &blob_len, &why) == DOCA_SUCCESS;

	LLVMFuzzerTestOneInput((const uint8_t *)text, len);
	if (got != ok) {
		fprintf(stderr, "'%.*s' (%zu bytes): %s, expected %s (%s)\n", (int)len, text, len,
			got ? "accepted" : "refused", ok ? "accepted" : "refused", why != NULL ? why : "");
		return 1;
	}
	return 0;
}

#define EXPECT(text, ok) expect((text), sizeof(text), (ok))

int main(void)
{
	uint8_t blob[207];
	char valid[V14_EXPORT_MAX_LEN], buf[V14_EXPORT_MAX_LEN + 64];
	size_t n;
	int bad = 0;

	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = (uint8_t)(i * 37 + 5);
	n = v14_export_encode(0x7f0012345678ull, 8u << 20, blob, sizeof(blob), valid, sizeof(valid));
	if (n == 0 || n != strlen(valid) + 1 || n >= V14_EXPORT_MAX_LEN) {
		fprintf(stderr, "the largest descriptor does not encode under 1024 bytes (%zu)\n", n);
		return 1;
	}
	bad |= expect(valid, n, 1);
	bad |= expect(valid, n - 1, 0); /* the NUL cut off */
	bad |= EXPECT("{\"len\":1,\"ferry_export\":\"00\",\"addr\":0}", 1);
	bad |= EXPECT(" {\n\"addr\" : 9223372036854775807 , \"len\":1,\"ferry_export\":\"ab\"}\r\n", 1);
	bad |= EXPECT("{\"addr\": 9223372036854775808, \"len\": 1, \"ferry_export\": \"ab\"}", 0);
	bad |= EXPECT("{\"addr\": -1, \"len\": 1, \"ferry_export\": \"ab\"}", 0);
	bad |= EXPECT("{\"addr\": 01, \"len\": 1, \"ferry_export\": \"ab\"}", 0);
	bad |= EXPECT("{\"addr\": 1.0, \"len\": 1, \"ferry_export\": \"ab\"}", 0);
	bad |= EXPECT("{\"addr\": 1, \"len\": 0, \"ferry_export\": \"ab\"}", 0);
	bad |= EXPECT("{\"addr\": 1, \"len\": 1, \"ferry_export\": \"AB\"}", 0);
	bad |= EXPECT("{\"addr\": 1, \"len\": 1, \"ferry_export\": \"abc\"}", 0);
	bad |= EXPECT("{\"addr\": 1, \"len\": 1, \"ferry_export\": \"\"}", 0);
	bad |= EXPECT("{\"addr\": 1, \"len\": 1, \"ferry_export\": \"a\\u0062\"}", 0);
	bad |= EXPECT("{\"addr\": 1, \"len\": 1, \"addr\": 2}", 0);
	bad |= EXPECT("{\"addr\": 1, \"len\": 1}", 0);
	bad |= EXPECT("{\"addr\": 1, \"len\": 1, \"ferry_export\": \"ab\", \"x\": 1}", 0);
	bad |= EXPECT("{\"addr\": 1, \"len\": 1, \"ferry_export\": \"ab\"} x", 0);
	bad |= EXPECT("{\"addr\": 1, \"len\": 1, \"ferry_export\": \"ab\"", 0);
	bad |= EXPECT("[\"addr\", 1]", 0);
	bad |= EXPECT("", 0);
	/* Longer than 1024 bytes, even with a NUL inside. */
	memset(buf, ' ', sizeof(buf));
	memcpy(buf, valid, n);
	bad |= expect(buf, V14_EXPORT_MAX_LEN + 1, 0);
	bad |= expect(buf, V14_EXPORT_MAX_LEN, 1);
	/* Every truncation, every single-bit flip, then random edits and bytes. */
	for (size_t len = 0; len <= n + 16; len++) {
		memset(buf, 0xA5, sizeof(buf));
		memcpy(buf, valid, n);
		LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	}
	for (size_t bit = 0; bit < n * 8; bit++) {
		memcpy(buf, valid, n);
		buf[bit / 8] ^= (char)(1u << (bit % 8));
		LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
	}
	for (int round = 0; round < 50000; round++) {
		size_t len = (size_t)(next_rand() % sizeof(buf));

		memcpy(buf, valid, n);
		for (int k = (int)(next_rand() % 4); k >= 0; k--)
			buf[next_rand() % sizeof(buf)] = (char)next_rand();
		if (round % 3 == 0)
			for (size_t i = 0; i < len; i++)
				buf[i] = (char)next_rand();
		LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	}
	if (bad)
		return 1;
	printf("DOCA 1.4 export text: all cases and mutations handled\n");
	return 0;
}
#endif
