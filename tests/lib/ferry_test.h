/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_test.h - small helpers shared by Ferry's cmocka tests.
 *
 * Log capture: the rule-violation line is part of the contract ("every violated
 * rule returns DOCA's error code and logs one line naming the call, the object
 * and the rule"), so tests assert on it. ferry_test_log_reset() routes SDK lines
 * into a temporary file (once per process; DOCA has no backend destroy) and
 * empties it; ferry_test_log_has() searches what was logged since.
 *
 * Skips: meson counts a program that exits 77 as SKIP, while cmocka's skip()
 * alone counts as a pass, so do not call it. A test that cannot apply on this
 * machine calls ferry_test_skip("why"): the reason is printed, the test ends,
 * and main's `return ferry_test_run(argc, argv, tests, setup, teardown);`
 * exits 77 when no test failed. A precondition the suite provides itself (its
 * environment variables, root in CI) is no reason to skip: that test fails.
 */
#ifndef FERRY_TEST_H_
#define FERRY_TEST_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

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

/** How many lines logged since the last reset contain @p needle (a rule said once, not once per object). */
static inline unsigned ferry_test_log_count(const char *needle)
{
	char line[1024];
	unsigned n = 0;
	long end;

	if (ferry_test_log_file_ == NULL)
		return 0;
	fflush(ferry_test_log_file_);
	end = ftell(ferry_test_log_file_);
	rewind(ferry_test_log_file_);
	while (fgets(line, sizeof(line), ferry_test_log_file_) != NULL)
		n += strstr(line, needle) != NULL;
	fseek(ferry_test_log_file_, end, SEEK_SET);
	return n;
}

/** Assert that the last call logged a line containing @p needle. */
#define assert_logged(needle)                                                        \
	do {                                                                         \
		if (!ferry_test_log_has(needle))                                     \
			fail_msg("expected a log line containing \"%s\"", (needle)); \
	} while (0)

static bool ferry_test_skipped_;

/* End the running test as skipped, saying why (printf arguments); the program then exits 77. */
#define ferry_test_skip(...)                           \
	do {                                           \
		printf("[  SKIP    ] %s: ", __func__); \
		printf(__VA_ARGS__);                   \
		printf("\n");                          \
		ferry_test_skipped_ = true;            \
		skip();                                \
	} while (0)

/* The exit status meson reads, from cmocka's count of failed tests: 1, else 77 after a skip, else 0. */
static inline int ferry_test_status(int failed)
{
	if (failed != 0)
		return 1;
	return ferry_test_skipped_ ? 77 : 0;
}

/*
 * Run the group @p tests, or part of it, as cmocka_run_group_tests() does,
 * and return ferry_test_status(). The command line may narrow it:
 *   --only NAME    that test alone: a test that may skip gets a meson test of
 *                  its own this way, so its SKIP hides no other test's pass;
 *   --except NAME  all the others.
 * A NAME that is no test of the group is an error, not an empty pass.
 */
#define ferry_test_run(argc, argv, tests, setup, teardown) \
	ferry_test_run_((argc), (argv), #tests, (tests), sizeof(tests) / sizeof((tests)[0]), (setup), (teardown))

static inline int ferry_test_run_(int argc, char **argv, const char *group, const struct CMUnitTest *tests, size_t n,
				  CMFixtureFunction setup, CMFixtureFunction teardown)
{
	const char *only = NULL, *except = NULL, *name;
	struct CMUnitTest *kept;
	bool found = false;
	size_t k = 0;
	int failed;

	if (argc == 3 && strcmp(argv[1], "--only") == 0) {
		only = argv[2];
	} else if (argc == 3 && strcmp(argv[1], "--except") == 0) {
		except = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--only TEST | --except TEST]\n", argv[0]);
		return 1;
	}
	name = only != NULL ? only : except;
	kept = calloc(n > 0 ? n : 1, sizeof(*kept));
	if (kept == NULL)
		return 1;
	for (size_t i = 0; i < n; i++) {
		bool is_named = name != NULL && strcmp(tests[i].name, name) == 0;

		found = found || is_named;
		if ((only == NULL || is_named) && (except == NULL || !is_named))
			kept[k++] = tests[i];
	}
	if (name != NULL && !found) {
		fprintf(stderr, "%s: no test named '%s'\n", argv[0], name);
		free(kept);
		return 1;
	}
	failed = _cmocka_run_group_tests(group, kept, k, setup, teardown);
	free(kept);
	return ferry_test_status(failed);
}

#endif /* FERRY_TEST_H_ */
