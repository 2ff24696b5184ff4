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

/* [p, p + n) is a non-empty part of [data, data + size). */
static int inside(const uint8_t *data, size_t size, const uint8_t *p, size_t n)
{
	return p >= data && n != 0 && n <= size && (size_t)(p - data) <= size - n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct se_desc_parts parts;
	const char *why = NULL;
	uint8_t again[SE_DESC_MAX_NET_LEN];

	if (sync_event_desc_decode(data, size, &parts, &why) != DOCA_SUCCESS) {
		if (why == NULL)
			abort();
		return 0;
	}
	if (!inside(data, size, parts.block, parts.block_len) ||
	    (parts.value != NULL && !inside(data, size, parts.value, parts.value_len)))
		abort();
	if (sync_event_desc_encode(&parts, again, sizeof(again)) != size || memcmp(again, data, size) != 0)
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

/* Every truncation and extension, every single-bit flip, then random edits and bytes. */
static int mutate(const uint8_t *valid, size_t n, unsigned expect_accepted)
{
	uint8_t buf[SE_DESC_MAX_NET_LEN + 16];
	struct se_desc_parts back;
	const char *why = NULL;
	unsigned accepted = 0;

	for (size_t len = 0; len <= n + 16; len++) {
		memset(buf, 0xA5, sizeof(buf));
		memcpy(buf, valid, n);
		LLVMFuzzerTestOneInput(buf, len);
	}
	for (size_t bit = 0; bit < n * 8; bit++) {
		memcpy(buf, valid, n);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		LLVMFuzzerTestOneInput(buf, n);
		accepted += sync_event_desc_decode(buf, n, &back, &why) == DOCA_SUCCESS;
	}
	for (int round = 0; round < 50000; round++) {
		size_t len = (size_t)(next_rand() % sizeof(buf));

		memcpy(buf, valid, n);
		for (int k = (int)(next_rand() % 4); k >= 0; k--)
			buf[next_rand() % sizeof(buf)] = (uint8_t)next_rand();
		if (round % 3 == 0)
			for (size_t i = 0; i < len; i++)
				buf[i] = (uint8_t)next_rand();
		LLVMFuzzerTestOneInput(buf, len);
	}
	/* Flips inside the link descriptors pass this codec (the link checks them); framing flips do not. */
	if (accepted != expect_accepted) {
		fprintf(stderr, "%u single-bit flips accepted, expected %u\n", accepted, expect_accepted);
		return 1;
	}
	return 0;
}

int main(void)
{
	static uint8_t big[SE_DESC_MAX_NET_INNER + 1], big_out[SE_DESC_MAX_NET_LEN + 4];
	uint8_t inner[100], one[SE_DESC_MAX_LEN], two[SE_DESC_MAX_LEN], net[SE_DESC_MAX_LEN];
	struct se_desc_parts block_only = {inner, sizeof(inner), NULL, 0, false};
	struct se_desc_parts both = {inner, 60, inner + 60, 40, false};
	struct se_desc_parts net_only = {inner, sizeof(inner), NULL, 0, true};
	struct se_desc_parts net_value = {inner, 60, inner + 60, 40, true};
	struct se_desc_parts net_big = {big, SE_DESC_MAX_NET_INNER, NULL, 0, true};
	struct se_desc_parts pci_big = {big, SE_DESC_MAX_INNER + 1, NULL, 0, false};
	struct se_desc_parts back;
	const char *why = NULL;
	size_t n1, n2, n3;

	for (size_t i = 0; i < sizeof(inner); i++)
		inner[i] = (uint8_t)(i * 7 + 1);
	n1 = sync_event_desc_encode(&block_only, one, sizeof(one));
	n2 = sync_event_desc_encode(&both, two, sizeof(two));
	if (n1 != SE_DESC_HDR_LEN + sizeof(inner) || sync_event_desc_decode(one, n1, &back, &why) != DOCA_SUCCESS ||
	    back.value != NULL || back.block_len != sizeof(inner) || memcmp(back.block, inner, sizeof(inner)) != 0 ||
	    n2 != SE_DESC_HDR_LEN + 4 + sizeof(inner) || sync_event_desc_decode(two, n2, &back, &why) != DOCA_SUCCESS ||
	    back.block_len != 60 || memcmp(back.block, inner, 60) != 0 || back.value_len != 40 ||
	    memcmp(back.value, inner + 60, 40) != 0) {
		fprintf(stderr, "the valid descriptors do not round-trip\n");
		return 1;
	}
	/* A network export: one RDMA descriptor, up to its own larger bound; never with a separate value. */
	n3 = sync_event_desc_encode(&net_only, net, sizeof(net));
	if (n3 != n1 || sync_event_desc_decode(net, n3, &back, &why) != DOCA_SUCCESS || !back.net ||
	    back.value != NULL || memcmp(back.block, inner, sizeof(inner)) != 0 ||
	    sync_event_desc_encode(&net_value, two, sizeof(two)) != 0 ||
	    sync_event_desc_encode(&net_big, big_out, sizeof(big_out)) != SE_DESC_MAX_NET_LEN ||
	    sync_event_desc_decode(big_out, SE_DESC_MAX_NET_LEN, &back, &why) != DOCA_SUCCESS ||
	    sync_event_desc_encode(&pci_big, big_out, sizeof(big_out)) != 0) {
		fprintf(stderr, "network descriptors are not framed as documented\n");
		return 1;
	}
	big_out[6] = SE_DESC_F_VALUE | SE_DESC_F_NET;
	if (sync_event_desc_decode(big_out, SE_DESC_MAX_NET_LEN, &back, &why) == DOCA_SUCCESS) {
		fprintf(stderr, "a network descriptor with a separate value was accepted\n");
		return 1;
	}
	n2 = sync_event_desc_encode(&both, two, sizeof(two));
	/* Flipping the NET flag of a lone block is accepted (the other kind's import refuses it); of two parts, not. */
	if (mutate(one, n1, sizeof(inner) * 8 + 1) != 0 || mutate(two, n2, sizeof(inner) * 8) != 0 ||
	    mutate(net, n3, sizeof(inner) * 8 + 1) != 0)
		return 1;
	printf("sync event descriptor: all mutations handled\n");
	return 0;
}
#endif
