/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_rdma_desc.c - libFuzzer target for DOCA RDMA's two descriptor decoders
 * (src/rdma/rdma_desc.c): the connection descriptor a peer hands to
 * doca_rdma_connect and the memory descriptor doca_mmap_create_from_export
 * takes.
 *
 * Properties: decoding never crashes or reads outside its input (ASan), every
 * refusal says why, and whatever is accepted re-encodes to the very same bytes.
 * Each input is tried as it is and resealed (length field set to the size,
 * checksum recomputed), so most mutants get past the framing to the field
 * checks.
 *
 * Built as a libFuzzer target with -Dfuzz=true and clang; with
 * FERRY_FUZZ_STANDALONE it is a plain program that runs the same entry point
 * over a deterministic corpus (valid descriptors of both kinds and a
 * re-export's memory descriptor, every
 * truncation, bit flips with and without resealing, random bytes).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_types.h>

#include "link/export_desc_priv.h"
#include "rdma/rdma_desc_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LEN (FERRY_RDMA_CONN_MAX_LEN > FERRY_RDMA_MEM_MAX_LEN ? FERRY_RDMA_CONN_MAX_LEN : FERRY_RDMA_MEM_MAX_LEN)

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Length field and checksum made right for @p size bytes. */
static void reseal(uint8_t *p, size_t size)
{
	put_le(p + 8, size, 4);
	memset(p + 12, 0, 4);
	put_le(p + 12, ferry_desc_crc32(p, size), 4);
}

static void check_one(const uint8_t *data, size_t size)
{
	static uint8_t again[MAX_LEN];
	struct ferry_rdma_conn_desc c;
	struct ferry_rdma_mem_desc m;
	const char *why = NULL;

	if (ferry_rdma_conn_desc_decode(data, size, &c, &why) == DOCA_SUCCESS) {
		if (ferry_rdma_conn_desc_encode(&c, again, sizeof(again)) != size || memcmp(again, data, size) != 0)
			abort();
	} else if (why == NULL) {
		abort();
	}
	why = NULL;
	if (ferry_rdma_mem_desc_decode(data, size, &m, &why) == DOCA_SUCCESS) {
		if (ferry_rdma_mem_desc_encode(&m, again, sizeof(again)) != size || memcmp(again, data, size) != 0)
			abort();
	} else if (why == NULL) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t sealed[MAX_LEN];

	check_one(data, size);
	if (size >= 16 && size <= sizeof(sealed)) {
		memcpy(sealed, data, size);
		reseal(sealed, size);
		check_one(sealed, size);
	}
	return 0;
}

#ifdef FERRY_FUZZ_STANDALONE
static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t next_rand(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void mutate_all(const uint8_t *seed, size_t len)
{
	static uint8_t buf[MAX_LEN + 64];

	for (size_t n = 0; n <= len + 8 && n < sizeof(buf); n++) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf, seed, n < len ? n : len);
		LLVMFuzzerTestOneInput(buf, n);
	}
	for (size_t i = 0; i < len * 8; i++) {
		memcpy(buf, seed, len);
		buf[i / 8] ^= (uint8_t)(1u << (i % 8));
		LLVMFuzzerTestOneInput(buf, len);
	}
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)(next_rand() % (len + 16));

		memcpy(buf, seed, len);
		for (int k = 0; k < 1 + (int)(next_rand() % 4); k++)
			buf[next_rand() % (n + 1)] = (uint8_t)next_rand();
		LLVMFuzzerTestOneInput(buf, n);
	}
}

int main(void)
{
	static uint8_t conn[FERRY_RDMA_CONN_MAX_LEN], mem[FERRY_RDMA_MEM_MAX_LEN];
	uint8_t addr[300], rkey[FERRY_RDMA_MEM_KEY_LEN];
	struct ferry_rdma_conn_desc c = {.transport = 0,
					 .token = 0x1122334455667788ull,
					 .conn_id = 3,
					 .permissions = 6,
					 .pid = 4242,
					 .start_time = 99,
					 .addr_len = sizeof(addr),
					 .addr = addr};
	struct ferry_rdma_mem_desc m = {.addr = 0x7f0000001000ull,
					.len = 1 << 20,
					.access = 2,
					.pid = 4242,
					.body_len = sizeof(rkey),
					.body = rkey};
	size_t cl, ml;

	for (size_t i = 0; i < sizeof(addr); i++)
		addr[i] = (uint8_t)(i * 7);
	for (size_t i = 0; i < sizeof(rkey); i++)
		rkey[i] = (uint8_t)(i * 13);
	cl = ferry_rdma_conn_desc_encode(&c, conn, sizeof(conn));
	ml = ferry_rdma_mem_desc_encode(&m, mem, sizeof(mem));
	if (cl == 0 || ml == 0) {
		fprintf(stderr, "cannot encode the seeds\n");
		return 1;
	}
	mutate_all(conn, cl);
	mutate_all(mem, ml);
	/* A re-export's memory descriptor: a link descriptor's bytes where the key was. */
	m.kind = FERRY_RDMA_MEM_KIND_LINK;
	m.access = DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE;
	m.body_len = FERRY_DESC_FIXED_LEN + 40;
	m.body = addr; /* any bytes of that length: the link's decoder judges them at import */
	ml = ferry_rdma_mem_desc_encode(&m, mem, sizeof(mem));
	if (ml == 0) {
		fprintf(stderr, "cannot encode the re-export seed\n");
		return 1;
	}
	mutate_all(mem, ml);
	printf("fuzz_rdma_desc: corpus of both descriptor kinds (and a re-export's) decoded without fault\n");
	return 0;
}
#endif
