/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env.c - numbers from environment variables, strictly (contract in ferry_env.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/ferry_env.h"
#include "common/ferry_log.h"

FERRY_LOG_MODULE("env");

static bool is_digit(char c, int base)
{
	return (c >= '0' && c <= '9') || (base == 16 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
}

/* The whole text as a number, or false: strtoull alone takes signs, spaces and stops early. */
static bool parse_u64(const char *text, uint64_t *out)
{
	int base = (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) ? 16 : 10;
	const char *digits = base == 16 ? text + 2 : text;
	char *end = NULL;
	unsigned long long n;

	if (!is_digit(digits[0], base))
		return false;
	errno = 0;
	n = strtoull(digits, &end, base);
	if (errno != 0 || *end != '\0')
		return false;
	*out = n;
	return true;
}

uint64_t ferry_env_u64(const char *var, uint64_t min, uint64_t max, uint64_t dflt)
{
	const char *text = getenv(var);
	uint64_t n = 0;

	if (text == NULL || text[0] == '\0')
		return dflt;
	if (parse_u64(text, &n) && n >= min && n <= max)
		return n;
	FERRY_WARN("%s='%s' is not a whole number in %llu..%llu; using %llu", var, text, (unsigned long long)min,
		   (unsigned long long)max, (unsigned long long)dflt);
	return dflt;
}
