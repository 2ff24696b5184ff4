/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_test.h - small helpers shared by Ferry's cmocka tests.
 *
 * Log capture: the rule-violation line is part of the contract ("every violated
 * rule returns DOCA's error code and logs one line naming the call, the object
 * and the rule"), so tests assert on it. ferry_test_log_reset() routes SDK lines
 * into a temporary file (once per process; DOCA has no backend destroy) and
 * empties it; ferry_test_log_has() searches what was logged since.
 */
#ifndef FERRY_TEST_H_
#define FERRY_TEST_H_

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_log.h>

static FILE *ferry_test_log_file_;

static inline void ferry_test_log_reset(void)
{
	if (ferry_test_log_file_ == NULL) {
		struct doca_log_backend *backend = NULL;

		ferry_test_log_file_ = tmpfile();
		if (ferry_test_log_file_ == NULL ||
		    doca_log_backend_create_with_file_sdk(ferry_test_log_file_, &backend) != DOCA_SUCCESS ||
		    doca_log_backend_set_sdk_level(backend, DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS) {
			fprintf(stderr, "ferry_test: cannot capture SDK log lines\n");
			abort();
		}
	}
	fflush(ferry_test_log_file_);
	if (ftruncate(fileno(ferry_test_log_file_), 0) != 0)
		abort();
	rewind(ferry_test_log_file_);
}

/** True when a line logged since the last reset contains @p needle. */
static inline bool ferry_test_log_has(const char *needle)
{
	char line[1024];
	bool found = false;
	long end;

	if (ferry_test_log_file_ == NULL)
		return false;
	fflush(ferry_test_log_file_);
	end = ftell(ferry_test_log_file_);
	rewind(ferry_test_log_file_);
	while (!found && fgets(line, sizeof(line), ferry_test_log_file_) != NULL)
		found = strstr(line, needle) != NULL;
	fseek(ferry_test_log_file_, end, SEEK_SET);
	return found;
}

/** Assert that the last call logged a line containing @p needle. */
#define assert_logged(needle)                                                                      \
	do {                                                                                       \
		if (!ferry_test_log_has(needle))                                                   \
			fail_msg("expected a log line containing \"%s\"", (needle));               \
	} while (0)

#endif /* FERRY_TEST_H_ */
