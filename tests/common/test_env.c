/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_env.c - ferry_env_u64, the one reader of numbers from the environment:
 * what it takes, what it refuses (with a line naming the variable), the bounds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common/ferry_env.h"
#include "ferry_test.h"

#define VAR "FERRY_TEST_ENV_NUMBER"

static uint64_t read_as(const char *text, uint64_t min, uint64_t max, uint64_t dflt)
{
	if (text == NULL)
		unsetenv(VAR);
	else
		setenv(VAR, text, 1);
	ferry_test_log_reset();
	return ferry_env_u64(VAR, min, max, dflt);
}

static void test_taken(void **state)
{
	(void)state;
	assert_int_equal(read_as(NULL, 1, 100, 7), 7);
	assert_false(ferry_test_log_has(VAR)); /* unset: quietly the default */
	assert_int_equal(read_as("", 1, 100, 7), 7);
	assert_false(ferry_test_log_has(VAR));
	assert_int_equal(read_as("42", 1, 100, 7), 42);
	assert_int_equal(read_as("1", 1, 100, 7), 1);
	assert_int_equal(read_as("100", 1, 100, 7), 100);
	assert_int_equal(read_as("0x40", 1, 100, 7), 64);
	assert_int_equal(read_as("0X1f", 1, 100, 7), 31);
	assert_int_equal(read_as("007", 1, 100, 9), 7);
	assert_int_equal(read_as("18446744073709551615", 0, UINT64_MAX, 7), UINT64_MAX);
	assert_false(ferry_test_log_has(VAR));
}

static void test_refused(void **state)
{
	static const char *const bad[] = {"0",
					  "101",
					  "-1",
					  "+5",
					  " 5",
					  "5 ",
					  "5ms",
					  "1e3",
					  "0x",
					  "0xg",
					  "x10",
					  "18446744073709551616",
					  "99999999999999999999999",
					  "abc",
					  "4.5"};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(read_as(bad[i], 1, 100, 7), 7);
		if (!ferry_test_log_has(VAR "='") || !ferry_test_log_has("is not a whole number in 1..100; using 7"))
			fail_msg("'%s' was refused without its line", bad[i]);
	}
	unsetenv(VAR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
