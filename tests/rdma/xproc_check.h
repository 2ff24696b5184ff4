/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xproc_check.h - the checks of the RDMA tests that run as several processes
 * without cmocka: a failed check prints one line naming the process and the
 * line, and ends that process with status 1 (its parent reports it).
 */
#ifndef FERRY_RDMA_XPROC_CHECK_H_
#define FERRY_RDMA_XPROC_CHECK_H_

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK(cond)                                                                                                 \
	do {                                                                                                        \
		if (!(cond)) {                                                                                      \
			fprintf(stderr, "%s[%d]:%d: check failed: %s\n", __FILE__, (int)getpid(), __LINE__, #cond); \
			exit(1);                                                                                    \
		}                                                                                                   \
	} while (0)

#define OK(call) CHECK((call) == DOCA_SUCCESS)

#endif /* FERRY_RDMA_XPROC_CHECK_H_ */
