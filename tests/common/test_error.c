/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_error.c - every doca_error_t value has its own name and description, and
 * values outside the enum are answered, not crashed on.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <doca_error.h>

static const struct {
	doca_error_t value;
	const char *name;
} expected[] = {
	{DOCA_SUCCESS, "DOCA_SUCCESS"},
	{DOCA_ERROR_UNKNOWN, "DOCA_ERROR_UNKNOWN"},
	{DOCA_ERROR_NOT_PERMITTED, "DOCA_ERROR_NOT_PERMITTED"},
	{DOCA_ERROR_IN_USE, "DOCA_ERROR_IN_USE"},
	{DOCA_ERROR_NOT_SUPPORTED, "DOCA_ERROR_NOT_SUPPORTED"},
	{DOCA_ERROR_AGAIN, "DOCA_ERROR_AGAIN"},
	{DOCA_ERROR_INVALID_VALUE, "DOCA_ERROR_INVALID_VALUE"},
	{DOCA_ERROR_NO_MEMORY, "DOCA_ERROR_NO_MEMORY"},
	{DOCA_ERROR_INITIALIZATION, "DOCA_ERROR_INITIALIZATION"},
	{DOCA_ERROR_TIME_OUT, "DOCA_ERROR_TIME_OUT"},
	{DOCA_ERROR_SHUTDOWN, "DOCA_ERROR_SHUTDOWN"},
	{DOCA_ERROR_CONNECTION_RESET, "DOCA_ERROR_CONNECTION_RESET"},
	{DOCA_ERROR_CONNECTION_ABORTED, "DOCA_ERROR_CONNECTION_ABORTED"},
	{DOCA_ERROR_CONNECTION_INPROGRESS, "DOCA_ERROR_CONNECTION_INPROGRESS"},
	{DOCA_ERROR_NOT_CONNECTED, "DOCA_ERROR_NOT_CONNECTED"},
	{DOCA_ERROR_NO_LOCK, "DOCA_ERROR_NO_LOCK"},
	{DOCA_ERROR_NOT_FOUND, "DOCA_ERROR_NOT_FOUND"},
	{DOCA_ERROR_IO_FAILED, "DOCA_ERROR_IO_FAILED"},
	{DOCA_ERROR_BAD_STATE, "DOCA_ERROR_BAD_STATE"},
	{DOCA_ERROR_UNSUPPORTED_VERSION, "DOCA_ERROR_UNSUPPORTED_VERSION"},
	{DOCA_ERROR_OPERATING_SYSTEM, "DOCA_ERROR_OPERATING_SYSTEM"},
	{DOCA_ERROR_DRIVER, "DOCA_ERROR_DRIVER"},
	{DOCA_ERROR_UNEXPECTED, "DOCA_ERROR_UNEXPECTED"},
	{DOCA_ERROR_ALREADY_EXIST, "DOCA_ERROR_ALREADY_EXIST"},
	{DOCA_ERROR_FULL, "DOCA_ERROR_FULL"},
	{DOCA_ERROR_EMPTY, "DOCA_ERROR_EMPTY"},
	{DOCA_ERROR_IN_PROGRESS, "DOCA_ERROR_IN_PROGRESS"},
	{DOCA_ERROR_TOO_BIG, "DOCA_ERROR_TOO_BIG"},
};

#define NB_EXPECTED (sizeof(expected) / sizeof(expected[0]))

static const char *unknown_descr(void)
{
	return doca_error_get_descr((doca_error_t)12345);
}

static void test_unknown_values(void **state)
{
	const int odd[] = {-1, (int)NB_EXPECTED, 1000, INT32_MAX, INT32_MIN};

	(void)state;
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		assert_string_equal(doca_error_get_name((doca_error_t)odd[i]), "DOCA_ERROR_UNKNOWN_VALUE");
		assert_non_null(doca_error_get_descr((doca_error_t)odd[i]));
		assert_string_equal(doca_error_get_descr((doca_error_t)odd[i]), unknown_descr());
	}
}

static void test_every_value_has_its_name(void **state)
{
	(void)state;
	for (size_t i = 0; i < NB_EXPECTED; i++) {
		assert_int_equal((int)expected[i].value, (int)i); /* values are the ABI */
		assert_string_equal(doca_error_get_name(expected[i].value), expected[i].name);
	}
}

static void test_every_value_has_its_own_description(void **state)
{
	(void)state;
	for (size_t i = 0; i < NB_EXPECTED; i++) {
		const char *descr = doca_error_get_descr(expected[i].value);

		assert_non_null(descr);
		assert_true(strlen(descr) > 3);
		assert_string_not_equal(descr, unknown_descr());
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(descr, doca_error_get_descr(expected[j].value));
	}
}

static void test_macros(void **state)
{
	doca_error_t r = DOCA_SUCCESS;

	(void)state;
	assert_false(DOCA_IS_ERROR(DOCA_SUCCESS));
	assert_true(DOCA_IS_ERROR(DOCA_ERROR_AGAIN));
	DOCA_ERROR_PROPAGATE(r, DOCA_ERROR_NOT_FOUND);
	assert_int_equal(r, DOCA_ERROR_NOT_FOUND);
	DOCA_ERROR_PROPAGATE(r, DOCA_ERROR_IO_FAILED); /* the first failure is kept */
	assert_int_equal(r, DOCA_ERROR_NOT_FOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_values),
		cmocka_unit_test(test_every_value_has_its_name),
		cmocka_unit_test(test_every_value_has_its_own_description),
		cmocka_unit_test(test_macros),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
