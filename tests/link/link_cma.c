/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link_cma.c - the importer of the cross-memory-attach tests: it drives the
 * access path its import got (src/link/ferry_access.h: cma for ordinary
 * memory) through the ops a copy engine calls.
 *
 * usage: link_cma <descriptor hex> <host address> <length> <command>...
 *   import | read <sum> | write <seed> | outside | selfcopy | gather <seed> | gatherout | wait
 *   (as link_dpu;
 *   "outside" tries one byte before and after the range and a wrapping length;
 *   "selfcopy" copies the first half of the range onto the second, remote to
 *   remote, and checks it; "gather" writes the range as 64 pieces of uneven
 *   sizes, last piece first, with one write_gather; "gatherout"
 *   asks for three pieces, the last one byte past the range, and reports how
 *   many were written)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "core/ferry_memview.h"
#include "link/ferry_access.h"
#include "ferry_test_dev.h"
#include "xproc_common.h"

int main(int argc, char **argv)
{
	uint8_t desc[512];
	size_t desc_len = strlen(argv[1]) / 2;
	struct doca_mmap *remote_mmap = NULL;
	const struct ferry_access *r = NULL;

	if (argc < 4 || desc_len > sizeof(desc))
		return 2;
	for (size_t i = 0; i < desc_len; i++) {
		unsigned v;
		if (sscanf(argv[1] + 2 * i, "%2x", &v) != 1)
			return 2;
		desc[i] = (uint8_t)v;
	}
	uint64_t host = strtoull(argv[2], NULL, 0);
	size_t len = strtoull(argv[3], NULL, 0);
	uint8_t *local = malloc(len + 1);
	struct doca_dev *dev = ferry_test_open_dev("03:00.0", NULL);
	if (local == NULL || dev == NULL)
		return 3;
	for (int i = 4; i < argc; i++) {
		doca_error_t err;
		if (strcmp(argv[i], "import") == 0) {
			err = doca_mmap_create_from_export(NULL, desc, desc_len, dev, &remote_mmap);
			if (err == DOCA_SUCCESS)
				r = ferry_mmap_access_path(remote_mmap);
			printf("import %s%s\n", doca_error_get_name(err),
			       err == DOCA_SUCCESS && ferry_access_mapped(r) ? " (mapped)" : "");
			if (err != DOCA_SUCCESS || ferry_access_mapped(r))
				break;
		} else if (strcmp(argv[i], "read") == 0 && i + 1 < argc) {
			uint64_t want = strtoull(argv[++i], NULL, 16);
			err = r->ops->read(r, local, host, len);
			if (err != DOCA_SUCCESS)
				printf("read %s\n", doca_error_get_name(err));
			else
				printf("read %s\n", xp_sum(local, len) == want ? "OK" : "MISMATCH");
		} else if (strcmp(argv[i], "write") == 0 && i + 1 < argc) {
			xp_fill(local, len, strtoull(argv[++i], NULL, 0));
			err = r->ops->write(r, host, local, len);
			if (err != DOCA_SUCCESS)
				printf("write %s\n", doca_error_get_name(err));
			else
				printf("write OK %" PRIx64 "\n", xp_sum(local, len));
		} else if (strcmp(argv[i], "selfcopy") == 0) {
			/* Remote to remote through ferry_link_copy: first half onto the second. */
			size_t half = len / 2;
			err = ferry_access_copy((void *)(uintptr_t)(host + half), r, (const void *)(uintptr_t)host, r,
						half);
			if (err == DOCA_SUCCESS)
				err = ferry_access_copy(local, NULL, (const void *)(uintptr_t)host, r, 2 * half);
			if (err != DOCA_SUCCESS)
				printf("selfcopy %s\n", doca_error_get_name(err));
			else
				printf("selfcopy %s\n", memcmp(local, local + half, half) == 0 ? "OK" : "MISMATCH");
		} else if (strcmp(argv[i], "gather") == 0 && i + 1 < argc) {
			struct ferry_access_piece pieces[FERRY_ACCESS_GATHER_MAX];
			size_t n = FERRY_ACCESS_GATHER_MAX, at = len, written = 0;

			xp_fill(local, len, strtoull(argv[++i], NULL, 0));
			for (size_t k = 0; k < n; k++) { /* uneven sizes, from the end of the range backwards */
				size_t piece = k + 1 == n ? at : (at / (n - k)) + (k % 3 == 0 ? 1 : 0);
				at -= piece;
				pieces[k] = (struct ferry_access_piece){host + at, local + at, piece};
			}
			err = r->ops->write_gather(r, pieces, n, &written);
			if (err != DOCA_SUCCESS || written != n)
				printf("gather %s %zu\n", doca_error_get_name(err), written);
			else
				printf("gather OK %" PRIx64 "\n", xp_sum(local, len));
		} else if (strcmp(argv[i], "gatherout") == 0) {
			struct ferry_access_piece pieces[3] = {
				{host, local, 1}, {host + 1, local, 1}, {host + len, local, 1}};
			size_t written = 99;

			err = r->ops->write_gather(r, pieces, 3, &written);
			printf("gatherout %s %zu\n", doca_error_get_name(err), written);
		} else if (strcmp(argv[i], "outside") == 0) {
			doca_error_t before = r->ops->read(r, local, host - 1, 2);
			doca_error_t after = r->ops->read(r, local, host + len, 1);
			doca_error_t wrap = r->ops->read(r, local, host + 1, SIZE_MAX);
			printf("outside %s %s %s\n", doca_error_get_name(before), doca_error_get_name(after),
			       doca_error_get_name(wrap));
		} else if (strcmp(argv[i], "wait") == 0) {
			char line[16];
			printf("waiting\n");
			fflush(stdout);
			if (fgets(line, sizeof(line), stdin) == NULL)
				break;
		}
		fflush(stdout);
	}
	fflush(stdout);
	if (remote_mmap != NULL)
		doca_mmap_destroy(remote_mmap);
	doca_dev_close(dev);
	free(local);
	return 0;
}
