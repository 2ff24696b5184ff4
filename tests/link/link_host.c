/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link_host.c - the host side of the cross-process tests: a plain DOCA program
 * (public headers only, plus ferry_mem.h) that exports a buffer.
 *
 * usage: link_host <bytes> <shared|malloc> <rw|ro> <seed>
 * Prints one line "<descriptor hex> <address> <length> <checksum>", then
 * obeys lines on stdin: "sum" (print the buffer's checksum), "stop" (stop
 * the mmap: revokes the export; prints "stopped"), "exit".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_mmap.h>
#include <ferry_mem.h>

#include "ferry_test_dev.h"
#include "xproc_common.h"

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: link_host <bytes> <shared|malloc> <rw|ro> <seed>\n");
		return 2;
	}
	size_t len = strtoull(argv[1], NULL, 0);
	int shared = strcmp(argv[2], "shared") == 0;
	uint32_t access = strcmp(argv[3], "rw") == 0 ? DOCA_ACCESS_FLAG_PCI_READ_WRITE : DOCA_ACCESS_FLAG_PCI_READ_ONLY;
	uint64_t seed = strtoull(argv[4], NULL, 0);
	uint8_t *mem = shared ? ferry_mem_alloc_shared(len) : malloc(len);
	struct doca_dev *dev = ferry_test_open_dev("b1:00.0", NULL);
	struct doca_mmap *mmap = NULL;
	const void *desc = NULL;
	size_t desc_len = 0;
	doca_error_t err;

	if (mem == NULL || dev == NULL)
		return 3;
	xp_fill(mem, len, seed);
	err = doca_mmap_create(&mmap);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_add_dev(mmap, dev);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_memrange(mmap, mem, len);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | access);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_start(mmap);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_export_pci(mmap, dev, &desc, &desc_len);
	if (err != DOCA_SUCCESS) {
		printf("ERR %s\n", doca_error_get_name(err));
		return 4;
	}
	for (size_t i = 0; i < desc_len; i++)
		printf("%02x", ((const uint8_t *)desc)[i]);
	printf(" %p %zu %" PRIx64 "\n", (void *)mem, len, xp_sum(mem, len));
	fflush(stdout);

	char line[64];
	int started = 1;
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (strncmp(line, "sum", 3) == 0) {
			printf("%" PRIx64 "\n", xp_sum(mem, len));
		} else if (strncmp(line, "stop", 4) == 0) {
			err = doca_mmap_stop(mmap);
			started = 0;
			printf("stopped %s\n", doca_error_get_name(err));
		} else if (strncmp(line, "exit", 4) == 0) {
			break;
		}
		fflush(stdout);
	}
	(void)started;
	doca_mmap_destroy(mmap);
	doca_dev_close(dev);
	if (shared)
		ferry_mem_free_shared(mem);
	else
		free(mem);
	return 0;
}
