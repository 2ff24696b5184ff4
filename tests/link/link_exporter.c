/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link_exporter.c - the honest exporter that test_rogue_link attacks. It
 * exports through the internal API (src/link/ferry_export.h) on command, so
 * the test decides when the memory agent starts, what it serves, and when the
 * process runs short of file descriptors.
 *
 * Prints "ready <pid>", then one line per command read on stdin:
 *   export shared|malloc <bytes> rw|ro -> "export <n> <descriptor hex> <addr> <len> <sum>"
 *                                         or "export <error name>"
 *   sum <n>    -> "sum <sum>": checksum of export n's bytes now
 *   close <n>  -> "closed": export n revoked (its state page says so)
 *   hog        -> "hogged <fds> <errno name>": RLIMIT_NOFILE lowered, every fd below it taken
 *   free       -> "freed": those fds closed, the limit restored
 *   exit
 * The agent's log lines go to stderr; the test counts them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <doca_types.h>
#include <ferry_mem.h>

#include "link/ferry_export.h"
#include "xproc_common.h"

#define MAX_EXPORTS 16
#define HOG_LIMIT   64
#define HOG_MAX     256

struct export_slot {
	struct ferry_link_export *exp;
	uint8_t *mem;
	size_t len;
	bool shared;
};

static struct export_slot slots[MAX_EXPORTS];
static int nslots;
static int hog_fds[HOG_MAX];
static int nhog;
static struct rlimit saved_limit;

static void print_hex(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		printf("%02x", p[i]);
}

static void cmd_export(const char *kind, size_t len, const char *perm)
{
	bool shared = strcmp(kind, "shared") == 0;
	uint32_t access = strcmp(perm, "ro") == 0 ? DOCA_ACCESS_FLAG_PCI_READ_ONLY : DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	struct export_slot *s = &slots[nslots];
	const void *desc;
	size_t desc_len;
	doca_error_t err;

	if (nslots == MAX_EXPORTS || len == 0) {
		printf("export DOCA_ERROR_NO_MEMORY\n");
		return;
	}
	s->mem = shared ? ferry_mem_alloc_shared(len) : malloc(len);
	if (s->mem == NULL) {
		printf("export DOCA_ERROR_NO_MEMORY\n");
		return;
	}
	s->len = len;
	s->shared = shared;
	xp_fill(s->mem, len, 1000u + (uint64_t)nslots);
	err = ferry_link_export_open(s->mem, len, access, 0, NULL, "link_exporter", &s->exp);
	if (err != DOCA_SUCCESS) {
		printf("export %s\n", doca_error_get_name(err));
		if (shared)
			ferry_mem_free_shared(s->mem);
		else
			free(s->mem);
		return;
	}
	ferry_link_export_desc(s->exp, &desc, &desc_len);
	printf("export %d ", nslots);
	print_hex(desc, desc_len);
	printf(" %p %zu %016llx\n", (void *)s->mem, len, (unsigned long long)xp_sum(s->mem, len));
	nslots++;
}

/* Take every fd the lowered limit leaves, so that the agent's accept fails with EMFILE. */
static void cmd_hog(void)
{
	struct rlimit low;
	int saved = 0;

	getrlimit(RLIMIT_NOFILE, &saved_limit);
	low = saved_limit;
	low.rlim_cur = HOG_LIMIT;
	if (setrlimit(RLIMIT_NOFILE, &low) != 0)
		saved = errno;
	while (saved == 0 && nhog < HOG_MAX) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			saved = errno;
			break;
		}
		hog_fds[nhog++] = fd;
	}
	printf("hogged %d %s\n", nhog, saved == EMFILE ? "EMFILE" : strerror(saved));
}

static void cmd_free(void)
{
	while (nhog > 0)
		close(hog_fds[--nhog]);
	setrlimit(RLIMIT_NOFILE, &saved_limit);
	printf("freed\n");
}

int main(void)
{
	char line[256], a[32], b[32];
	size_t len;
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (sscanf(line, "export %31s %zu %31s", a, &len, b) == 3)
			cmd_export(a, len, b);
		else if (sscanf(line, "sum %d", &n) == 1 && n >= 0 && n < nslots)
			printf("sum %016llx\n", (unsigned long long)xp_sum(slots[n].mem, slots[n].len));
		else if (sscanf(line, "close %d", &n) == 1 && n >= 0 && n < nslots && slots[n].exp != NULL) {
			ferry_link_export_close(slots[n].exp);
			slots[n].exp = NULL;
			printf("closed\n");
		} else if (strcmp(line, "hog\n") == 0)
			cmd_hog();
		else if (strcmp(line, "free\n") == 0)
			cmd_free();
		else if (strcmp(line, "exit\n") == 0)
			break;
		else
			printf("unknown command\n");
	}
	for (int i = 0; i < nslots; i++) {
		if (slots[i].exp != NULL)
			ferry_link_export_close(slots[i].exp);
		if (slots[i].shared)
			ferry_mem_free_shared(slots[i].mem);
		else
			free(slots[i].mem);
	}
	return 0;
}
