/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_json.c - the strict JSON reader behind doca_argp's -j/--json: malformed
 * input first (each refused with a position), then the limits, then what it
 * accepts read back value by value, then every truncation and thousands of
 * mutated documents, none of which may crash or leak (run under ASan in CI).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argp/json_priv.h"

static doca_error_t parse(const char *text, struct ferry_json **root, char *err, size_t err_len)
{
	return ferry_json_parse(text, strlen(text), root, err, err_len);
}

static void assert_refused(const char *text, const char *why)
{
	struct ferry_json *root = (struct ferry_json *)(uintptr_t)1;
	char err[160];

	if (parse(text, &root, err, sizeof(err)) != DOCA_ERROR_INVALID_VALUE)
		fail_msg("accepted: %s", text);
	assert_null(root);
	if (strstr(err, why) == NULL || strncmp(err, "line ", 5) != 0)
		fail_msg("for %s: message \"%s\" lacks \"%s\"", text, err, why);
}

static void test_null_arguments(void **state)
{
	struct ferry_json *root = NULL;
	char err[64];

	(void)state;
	assert_int_equal(ferry_json_parse(NULL, 3, &root, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_json_parse("{}", 2, NULL, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_json_parse("{}", 2, &root, NULL, 0), DOCA_SUCCESS); /* no message buffer is fine */
	ferry_json_free(root);
	ferry_json_free(NULL);
	assert_null(ferry_json_member(NULL, "a"));
}

static void test_malformed(void **state)
{
	(void)state;
	assert_refused("", "a value is missing");
	assert_refused("   // only a comment", "a value is missing");
	assert_refused("{", "'}' missing");
	assert_refused("{\"a\"", "expected ':'");
	assert_refused("{\"a\":", "a value is missing");
	assert_refused("{\"a\": 1,}", "expected a member name");
	assert_refused("[1, 2,]", "expected a value");
	assert_refused("[1 2]", "expected ',' or ']'");
	assert_refused("{a: 1}", "expected a member name in quotes");
	assert_refused("{'a': 1}", "expected a member name in quotes");
	assert_refused("{\"a\": 1, \"a\": 2}", "appears twice");
	assert_refused("{} {}", "text after the end");
	assert_refused("tru", "expected a value");
	assert_refused("nul", "expected a value");
	assert_refused("NaN", "unexpected character 'N'");
	assert_refused("01", "malformed number");
	assert_refused("-", "malformed number");
	assert_refused("1.", "malformed number");
	assert_refused(".5", "unexpected character '.'");
	assert_refused("1e", "malformed number");
	assert_refused("1e999", "out of range");
	assert_refused("+1", "unexpected character '+'");
	assert_refused("\"abc", "string not closed");
	assert_refused("\"a\tb\"", "control character 0x09");
	assert_refused("\"\\x\"", "invalid escape");
	assert_refused("\"\\u12\"", "4 hex digits");
	assert_refused("\"\\u0000\"", "cut the string short");
	assert_refused("\"\\ud800\"", "without its low half");
	assert_refused("\"\\ud800\\u0041\"", "without its low half");
	assert_refused("\"\\udc00\"", "lone low surrogate");
	assert_refused("/* open", "comment not closed");
	assert_refused("/ 1", "does not start a comment");
	assert_refused("\x01", "unexpected byte 0x01");
	assert_refused("\xff", "unexpected byte 0xff");
	assert_refused("[1,\n 2,\n x]", "line 3, column 2");
}

static void test_nul_byte_and_length(void **state)
{
	struct ferry_json *root = NULL;
	char err[128];

	(void)state;
	/* the length decides, not a NUL: bytes after it are still read */
	assert_int_equal(ferry_json_parse("{}\0{}", 5, &root, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_json_parse("\"a\0b\"", 5, &root, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(err, "control character 0x00"));
	assert_int_equal(ferry_json_parse("[1]xyz", 3, &root, err, sizeof(err)), DOCA_SUCCESS);
	assert_int_equal(root->count, 1);
	ferry_json_free(root);
	/* a tiny message buffer is cut, never overrun */
	assert_int_equal(ferry_json_parse("[", 1, &root, err, 4), DOCA_ERROR_INVALID_VALUE);
	assert_true(strlen(err) < 4);
}

static void test_depth_limit(void **state)
{
	char text[2 * FERRY_JSON_MAX_DEPTH + 3];
	struct ferry_json *root = NULL;
	size_t n;

	(void)state;
	for (n = FERRY_JSON_MAX_DEPTH; n <= FERRY_JSON_MAX_DEPTH + 1; n++) {
		memset(text, '[', n);
		memset(text + n, ']', n);
		text[2 * n] = '\0';
		if (n == FERRY_JSON_MAX_DEPTH) {
			assert_int_equal(parse(text, &root, NULL, 0), DOCA_SUCCESS);
			ferry_json_free(root);
		} else {
			assert_refused(text, "nesting deeper than");
		}
	}
}

static void test_values_read_back(void **state)
{
	const char *text = "// leading comment\n"
			   "{ \"s\": \"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\",\n"
			   "  \"i\": -9223372036854775808, \"big\": 9223372036854775808, \"d\": -1.5e-3,\n"
			   "  \"t\": true, \"f\": false, \"n\": null, /* inner */ \"a\": [1, [], {}],\n"
			   "  \"o\": {\"k\": \"v\"}, \"\": 0 }";
	struct ferry_json *root = NULL;
	const struct ferry_json *v;

	(void)state;
	assert_int_equal(parse(text, &root, NULL, 0), DOCA_SUCCESS);
	assert_int_equal(root->type, FERRY_JSON_OBJECT);
	assert_int_equal(root->count, 10);
	v = ferry_json_member(root, "s");
	assert_string_equal(v->string, "a\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
	assert_int_equal(v->line, 2);
	v = ferry_json_member(root, "i");
	assert_int_equal(v->type, FERRY_JSON_INT);
	assert_true(v->integer == INT64_MIN);
	v = ferry_json_member(root, "big");
	assert_int_equal(v->type, FERRY_JSON_DOUBLE); /* past int64: a number, not an integer */
	assert_true(ferry_json_member(root, "d")->number == -1.5e-3);
	assert_true(ferry_json_member(root, "t")->boolean);
	assert_false(ferry_json_member(root, "f")->boolean);
	assert_int_equal(ferry_json_member(root, "n")->type, FERRY_JSON_NULL);
	v = ferry_json_member(root, "a");
	assert_int_equal(v->count, 3);
	assert_int_equal(v->first->integer, 1);
	assert_int_equal(v->first->next->type, FERRY_JSON_ARRAY);
	assert_int_equal(v->first->next->next->type, FERRY_JSON_OBJECT);
	assert_string_equal(ferry_json_member(ferry_json_member(root, "o"), "k")->string, "v");
	assert_non_null(ferry_json_member(root, ""));
	assert_null(ferry_json_member(root, "missing"));
	assert_null(ferry_json_member(v, "a")); /* not an object */
	assert_string_equal(ferry_json_type_name(FERRY_JSON_DOUBLE), "number");
	ferry_json_free(root);
}

static const char sample[] = "{\"doca_general_flags\": {\"log-level\": 60},\n"
			     " // comment\n"
			     " \"doca_program_flags\": {\"s\": \"x\\u00e9\", \"n\": [1, -2.5e3, true, null]}}";

/* Every prefix of a valid document is refused (or, for none here, accepted) cleanly. */
static void test_every_truncation(void **state)
{
	size_t len = strlen(sample);
	struct ferry_json *root = NULL;
	char err[128];

	(void)state;
	for (size_t n = 0; n < len; n++) {
		assert_int_equal(ferry_json_parse(sample, n, &root, err, sizeof(err)), DOCA_ERROR_INVALID_VALUE);
		assert_null(root);
	}
	assert_int_equal(ferry_json_parse(sample, len, &root, err, sizeof(err)), DOCA_SUCCESS);
	ferry_json_free(root);
}

/* Mutated documents (flipped bits, random bytes) end in a tree or an error; never a crash. */
static void test_mutations(void **state)
{
	char text[sizeof(sample)];
	struct ferry_json *root;
	unsigned int seed = 12345, accepted = 0;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		memcpy(text, sample, sizeof(sample));
		for (int k = 0; k < 1 + round % 4; k++) {
			size_t at = (size_t)rand_r(&seed) % (sizeof(sample) - 1);

			if (round % 2 == 0)
				text[at] ^= (char)(1u << (rand_r(&seed) % 8));
			else
				text[at] = (char)rand_r(&seed);
		}
		root = NULL;
		if (ferry_json_parse(text, sizeof(sample) - 1, &root, NULL, 0) == DOCA_SUCCESS) {
			assert_non_null(root);
			accepted++;
		} else {
			assert_null(root);
		}
		ferry_json_free(root);
	}
	assert_true(accepted < 20000); /* the mutations do reach the error paths */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_arguments),      cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nul_byte_and_length), cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_values_read_back),    cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
