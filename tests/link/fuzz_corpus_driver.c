/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_corpus_driver.c - runs the fuzz target's entry point without libFuzzer:
 * over every file named on the command line, then over a deterministic corpus
 * of mutations of a valid descriptor (bit flips, byte edits with and without a
 * resealed checksum, truncations, extensions, random bytes). CI checks the
 * parser this way even without clang. `--write-seed FILE [net|reexport]` writes a
 * valid descriptor the fuzzer's corpus starts from.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desc_samples.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void run(const uint8_t *p, size_t n)
{
	/* A heap copy of exactly n bytes, so ASan catches any read past the end. */
	uint8_t *copy = malloc(n ? n : 1);
	if (copy == NULL)
		abort();
	memcpy(copy, p, n);
	LLVMFuzzerTestOneInput(copy, n);
	free(copy);
}

static void run_files(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		static uint8_t buf[1 << 16];
		FILE *f = fopen(argv[i], "rb");
		if (f == NULL)
			continue;
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		run(buf, n);
	}
}

/* Every bit flipped (sealed or not), every truncation, random edits around @p good; the number of inputs. */
static unsigned long mutate(const uint8_t *good, size_t len)
{
	uint8_t m[FERRY_DESC_MAX_LEN + 64];
	unsigned long runs = 0;

	run(good, len);
	for (size_t bit = 0; bit < len * 8; bit++, runs++) {
		memcpy(m, good, len);
		m[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		run(m, len);
		reseal(m, len); /* past the checksum: the field checks themselves */
		run(m, len);
	}
	for (size_t cut = 0; cut <= len; cut++, runs++)
		run(good, cut);
	for (int i = 0; i < 200000; i++, runs++) {
		size_t n = (size_t)(next_rand() % (len + 64));
		memcpy(m, good, len);
		memset(m + len, 0, sizeof(m) - len);
		for (int k = (int)(next_rand() % 4); k >= 0; k--)
			m[next_rand() % (len + 64)] = (uint8_t)next_rand();
		if (next_rand() & 1)
			reseal(m, n);
		run(m, n);
	}
	return runs;
}

int main(int argc, char **argv)
{
	struct ferry_export_desc d = sample_desc();
	uint8_t good[FERRY_DESC_MAX_LEN + 64], m[FERRY_DESC_MAX_LEN + 64];
	size_t len = ferry_export_desc_encode(&d, good, sizeof(good));
	unsigned long runs = 0;

	if (len == 0 || len > FERRY_DESC_MAX_LEN) /* the bound also tells the compiler */
		return 1;
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "--write-seed") == 0) {
		/* A third word picks another sample: net, reexport. */
		if (argc == 4 && strcmp(argv[3], "net") == 0)
			d = net_sample_desc();
		else if (argc == 4)
			d = reexport_sample_desc();
		len = ferry_export_desc_encode(&d, good, sizeof(good));
		FILE *f = fopen(argv[2], "wb");
		if (f == NULL || fwrite(good, 1, len, f) != len || fclose(f) != 0)
			return 1;
		return 0;
	}
	run_files(argc, argv);
	runs += mutate(good, len);
	/* The same around a descriptor with the network section. */
	d = net_sample_desc();
	len = ferry_export_desc_encode(&d, good, sizeof(good));
	if (len == 0 || len > FERRY_DESC_MAX_LEN)
		return 1;
	runs += mutate(good, len);
	/* ...and around a re-export's (network path only). */
	d = reexport_sample_desc();
	len = ferry_export_desc_encode(&d, good, sizeof(good));
	if (len == 0 || len > FERRY_DESC_MAX_LEN)
		return 1;
	runs += mutate(good, len);
	for (int i = 0; i < 20000; i++, runs++) {
		size_t n = (size_t)(next_rand() % (FERRY_DESC_MAX_LEN + 32));
		for (size_t k = 0; k < n; k++)
			m[k] = (uint8_t)next_rand();
		run(m, n);
	}
	printf("fuzz corpus: %lu inputs, no crash\n", runs);
	return 0;
}
