/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_test_fds.h - what file descriptors a process holds, for tests that
 * check a call or a peer's misbehaviour leaves none behind.
 */
#ifndef FERRY_TEST_FDS_H_
#define FERRY_TEST_FDS_H_

#include <dirent.h>
#include <unistd.h>

#include <doca_pe.h>

#include "ferry_test_wait.h"

/* Open file descriptors of this process (the directory's own not counted); -1 if /proc cannot tell. */
static inline int ferry_test_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		return -1;
	for (struct dirent *e = readdir(d); e != NULL; e = readdir(d))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

/*
 * Progress @p pe until the process holds @p want fds again, or the test's wait
 * ran out (a peer or the memory agent closes its end a moment late); returns
 * the last count.
 */
static inline int ferry_test_fds_settle(struct doca_pe *pe, int want)
{
	uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	int n = ferry_test_count_fds();

	while (n != want && !ferry_test_expired(until)) {
		doca_pe_progress(pe);
		usleep(500);
		n = ferry_test_count_fds();
	}
	return n;
}

#endif /* FERRY_TEST_FDS_H_ */
