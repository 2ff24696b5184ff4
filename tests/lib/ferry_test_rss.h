/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_test_rss.h - how much memory this process holds, for tests that check
 * a peer's flood or stall leaves none of it behind.
 */
#ifndef FERRY_TEST_RSS_H_
#define FERRY_TEST_RSS_H_

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * Resident bytes of this process, once malloc has given back what it holds
 * free (so what was freed shows). A /proc that cannot tell fails the test: a
 * check of nothing must not pass.
 */
static inline uint64_t ferry_test_resident_bytes(void)
{
	unsigned long pages = 0, resident = 0;
	FILE *f;
	int n;

	(void)malloc_trim(0);
	f = fopen("/proc/self/statm", "r");
	n = f != NULL ? fscanf(f, "%lu %lu", &pages, &resident) : 0;
	if (f != NULL)
		fclose(f);
	if (n != 2) {
		fprintf(stderr, "ferry_test_resident_bytes: /proc/self/statm cannot be read\n");
		abort();
	}
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

#endif /* FERRY_TEST_RSS_H_ */
