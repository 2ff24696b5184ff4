/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_topology_net.c - libFuzzer target for the topology file parser
 * (src/core/topology.c) with its 'net' lines, and the FERRY_RDMA_NET value
 * applied on top. An input is a topology file, then optionally a NUL byte and
 * a FERRY_RDMA_NET value.
 *
 * Properties: neither parser crashes, leaks or reads outside its input (ASan);
 * what is accepted holds only well-formed identities (every device's net is
 * empty or passes ferry_net_identity_check).
 *
 * Built as a libFuzzer target with -Dfuzz=true and clang; with
 * FERRY_FUZZ_STANDALONE it is a plain program that runs the same entry point
 * over a deterministic corpus (seeds, every truncation, byte flips, random
 * words).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/topology_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_topology(const struct ferry_topology *t)
{
	for (uint32_t i = 0; i < t->nb_devs; i++)
		if (t->devs[i]->net[0] != '\0' && ferry_net_identity_check(t->devs[i]->net) != NULL)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	size_t file_len = nul != NULL ? (size_t)(nul - data) : size;
	struct ferry_topology t;
	char path[64];
	int fd;

	if (size > 65536)
		return 0;
	fd = memfd_create("topology", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (file_len > 0 && write(fd, data, file_len) != (ssize_t)file_len)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (ferry_topology_load(path, &t) == DOCA_SUCCESS) {
		check_topology(&t);
		if (nul != NULL) {
			size_t vlen = size - file_len - 1;
			char *value = malloc(vlen + 1);

			if (value == NULL)
				abort();
			memcpy(value, nul + 1, vlen);
			value[vlen] = '\0';
			(void)ferry_topology_apply_net_env(&t, value);
			check_topology(&t);
			free(value);
		}
		ferry_topology_release(&t);
	}
	close(fd);
	return 0;
}

#ifdef FERRY_FUZZ_STANDALONE
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Seeds may hold a NUL (file, then FERRY_RDMA_NET): their length is the literal's. */
#define SEED(lit)                    \
	{                            \
		lit, sizeof(lit) - 1 \
	}
static const struct {
	const char *p;
	size_t n;
} seeds[] = {
	SEED("dpu\ndpu-pf 03:00.0 p0 mlx5_0\nnet 198.18.0.1\nhost-pf b1:00.0 ens1f0np0 mlx5_0\nnet eth0\n"),
	SEED("dpu\ndpu-pf 03:00.0 p0 mlx5_0\nhost-pf b1:00.0 ens1f0np0 mlx5_0\n\0eth1"),
	SEED("dpu\ndpu-pf 03:00.0 p0 mlx5_0\nhost-pf b1:00.0 ens1f0np0 mlx5_0\n\0"
	     "03:00.0=10.0.0.1,b1:00.0=veth0"),
	SEED("dpu\ndpu-pf 03:00.0 p0 mlx5_0\nnet 1.2.3\nnet eth0 eth1\n"),
	SEED("net 10.0.0.1\ndpu\n"),
	SEED("dpu\ndpu-pf 03:00.0 p0 mlx5_0\ndpu-sf 03:00.0 4 sf4 mlx5_4\nnet en3f0pf0sf4\n\0zz=,=,,=eth0"),
};

static void run(const uint8_t *p, size_t n)
{
	(void)LLVMFuzzerTestOneInput(p, n);
}

int main(void)
{
	static uint8_t buf[512];
	const char *words[] = {"net", "dpu", "dpu-pf", "host-pf", "03:00.0", "198.18.0.2", "eth0", "=", ",",
			       "\n",  " ",   "#",      "\0",      "::1",     "256.0.0.1",  "a.b",  "x"};
	size_t runs = 0;

	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		size_t len = seeds[s].n < sizeof(buf) ? seeds[s].n : sizeof(buf);

		memcpy(buf, seeds[s].p, len);
		for (size_t n = 0; n <= len; n++, runs++)
			run(buf, n);
		for (size_t i = 0; i < len; i++) {
			uint8_t keep = buf[i];

			buf[i] = (uint8_t)next_rand();
			run(buf, len);
			buf[i] = keep;
			runs++;
		}
	}
	for (int r = 0; r < 2000; r++, runs++) {
		size_t n = 0;

		while (n < sizeof(buf) - 16 && next_rand() % 12 != 0) {
			const char *w = words[next_rand() % (sizeof(words) / sizeof(words[0]))];
			size_t wl = w[0] == '\0' ? 1 : strlen(w);

			memcpy(buf + n, w, wl);
			n += wl;
		}
		run(buf, n);
	}
	printf("fuzz_topology_net: %zu inputs, no crash\n", runs);
	return 0;
}
#endif
