/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util.c - helpers every `ferry` subcommand uses: one-line usage errors,
 * durations, the colour decision, JSON strings, the clock.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ferry.h"

int ferry_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ferry %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'ferry %s --help')\n", cmd);
	return FERRY_EXIT_USAGE;
}

int ferry_getopt_error(const char *cmd, int ret, char **argv)
{
	/* getopt_long leaves the offending word just before optind. */
	const char *word = optind > 0 ? argv[optind - 1] : "?";

	if (ret == ':')
		return ferry_usage_error(cmd, "option '%s' needs a value", word);
	if (optopt != 0 && strncmp(word, "--", 2) != 0)
		return ferry_usage_error(cmd, "unknown option '-%c'", optopt);
	/* A known long option given a value it does not take: "--json=1". */
	if (optopt != 0 && strchr(word, '=') != NULL)
		return ferry_usage_error(cmd, "option '%.*s' takes no value", (int)(strchr(word, '=') - word), word);
	return ferry_usage_error(cmd, "unknown option '%s'", word);
}

bool ferry_parse_seconds(const char *text, double *seconds)
{
	char *end;
	double v;

	if (text == NULL || text[0] < '0' || text[0] > '9')
		return false;
	v = strtod(text, &end);
	if (*end != '\0' || !isfinite(v) || v < 0 || v > 86400)
		return false;
	*seconds = v;
	return true;
}

bool ferry_use_colour(const char *mode, int fd)
{
	const char *term = getenv("TERM");
	const char *no_colour = getenv("NO_COLOR");

	if (strcmp(mode, "always") == 0)
		return true;
	if (strcmp(mode, "never") == 0)
		return false;
	if (no_colour != NULL && no_colour[0] != '\0')
		return false;
	if (term != NULL && strcmp(term, "dumb") == 0)
		return false;
	return isatty(fd) == 1;
}

void ferry_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(out, "\\u%04x", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

double ferry_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
