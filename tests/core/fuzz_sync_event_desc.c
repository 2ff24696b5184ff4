/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_sync_event_desc.c - libFuzzer target for the sync event descriptor
 * decoder (src/core/sync_event_desc.c), whose bytes come from another process.
 *
 * Properties: decode never crashes or reads outside its input; a refusal
 * always says why; what it accepts points inside the input and re-encodes to
 * the very same bytes (nothing ignored, one encoding per descriptor). The
 * link descriptor inside is the link's own fuzz target's business.
 *
 * Built with -Dfuzz=true and clang. With -DFERRY_FUZZ_STANDALONE it gets a
 * main that replays a valid descriptor and a deterministic set of mutations
 * (test 'sync_event_desc_seeds', in the plain suite).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sync_event_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *inner = NULL;
	size_t inner_len = 0;
	const char *why = NULL;
	uint8_t again[SE_DESC_MAX_LEN];

	if (sync_event_desc_decode(data, size, &inner, &inner_len, &why) != DOCA_SUCCESS) {
		if (why == NULL)
			abort();
		return 0;
	}
	if (inner < data || inner_len == 0 || inner_len > size || (size_t)(inner - data) > size - inner_len)
		abort();
	if (sync_event_desc_encode(inner, inner_len, again, sizeof(again)) != size || memcmp(again, data, size) != 0)
		abort();
	return 0;
}

#ifdef FERRY_FUZZ_STANDALONE
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(void)
{
	uint8_t inner[100], valid[SE_DESC_MAX_LEN], buf[SE_DESC_MAX_LEN + 16];
	const uint8_t *in = NULL;
	size_t in_len = 0, n;
	const char *why = NULL;
	unsigned accepted = 0;

	for (size_t i = 0; i < sizeof(inner); i++)
		inner[i] = (uint8_t)(i * 7 + 1);
	n = sync_event_desc_encode(inner, sizeof(inner), valid, sizeof(valid));
	if (n != SE_DESC_HDR_LEN + sizeof(inner) ||
	    sync_event_desc_decode(valid, n, &in, &in_len, &why) != DOCA_SUCCESS || in_len != sizeof(inner) ||
	    memcmp(in, inner, in_len) != 0) {
		fprintf(stderr, "the valid descriptor does not round-trip\n");
		return 1;
	}
	/* Every truncation and extension, every single-bit flip, then random edits and bytes. */
	for (size_t len = 0; len <= n + 16; len++) {
		memset(buf, 0xA5, sizeof(buf));
		memcpy(buf, valid, n);
		LLVMFuzzerTestOneInput(buf, len);
	}
	for (size_t bit = 0; bit < n * 8; bit++) {
		memcpy(buf, valid, n);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		LLVMFuzzerTestOneInput(buf, n);
		accepted += sync_event_desc_decode(buf, n, &in, &in_len, &why) == DOCA_SUCCESS;
	}
	for (int round = 0; round < 100000; round++) {
		size_t len = (size_t)(next_rand() % sizeof(buf));

		memcpy(buf, valid, n);
		for (int k = (int)(next_rand() % 4); k >= 0; k--)
			buf[next_rand() % sizeof(buf)] = (uint8_t)next_rand();
		if (round % 3 == 0)
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)next_rand();
		LLVMFuzzerTestOneInput(buf, len);
	}
	/* Flips inside the link descriptor pass this codec (the link checks them); header flips do not. */
	if (accepted != sizeof(inner) * 8) {
		fprintf(stderr, "%u single-bit flips accepted, expected %zu\n", accepted, sizeof(inner) * 8);
		return 1;
	}
	printf("sync event descriptor: all mutations handled\n");
	return 0;
}
#endif
