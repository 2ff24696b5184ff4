/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argp_builtin.c - the built-in flags: -h/--help, -v/--version, -l/--log-level,
 * --sdk-log-level and -j/--json (its file is read by argp_json.c), and the getters of
 * the log levels they set.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <doca_argp.h>
#include <doca_log.h>
#include <doca_version.h>

#include "argp/argp_priv.h"
#include "common/ferry_log.h"
#include "common/ferry_log_internal.h"

FERRY_LOG_MODULE("argp");

doca_error_t doca_argp_get_log_level(int *log_level)
{
	FERRY_ARG_NOT_NULL(log_level);
	*log_level = argp.log_level_given ? argp.log_level : (int)doca_log_level_get_global_lower_limit();
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_get_sdk_log_level(int *log_level)
{
	FERRY_ARG_NOT_NULL(log_level);
	*log_level = argp.sdk_log_level_given ? argp.sdk_log_level : (int)doca_log_level_get_global_sdk_limit();
	return DOCA_SUCCESS;
}

doca_error_t argp_set_level_flag(const char *value, const char *shown, bool sdk)
{
	uint32_t level;
	doca_error_t err;

	if (ferry_log_level_parse(value, &level) != DOCA_SUCCESS)
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
				 "doca_argp_start: flag '%s' takes a log level (10..70 or a name), not '%s'", shown,
				 value);
	err = sdk ? doca_log_level_set_global_sdk_limit(level) : doca_log_level_set_global_lower_limit(level);
	if (err != DOCA_SUCCESS)
		return err;
	if (sdk) {
		argp.sdk_log_level = (int)level;
		argp.sdk_log_level_given = true;
	} else {
		argp.log_level = (int)level;
		argp.log_level_given = true;
	}
	return DOCA_SUCCESS;
}

static void print_versions(void)
{
	/* Built against (the headers' version) and running with (the library's). */
	printf("headers: DOCA API %s\n", doca_version());
	printf("library: DOCA API %s (Ferry)\n", doca_version_runtime());
	fflush(stdout);
}

doca_error_t argp_handle_builtin(struct parse_ctx *ctx, const struct builtin *b, const char *inline_value,
				 const char *shown)
{
	const char *value = NULL;
	doca_error_t err;

	if (b->arguments != NULL) {
		err = argp_take_value(ctx, inline_value, shown, &value);
		if (err != DOCA_SUCCESS)
			return err;
	} else if (inline_value != NULL) {
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' takes no argument", shown);
	}
	switch (b->id) {
	case BUILTIN_HELP:
		argp_print_usage(stdout);
		doca_argp_destroy();
		exit(EXIT_SUCCESS);
	case BUILTIN_VERSION:
		if (argp.version_cb == NULL) {
			print_versions();
			doca_argp_destroy();
			exit(EXIT_SUCCESS);
		}
		/* DOCA's own version callbacks print, destroy and exit; one that returns decides. */
		err = argp.version_cb(NULL, argp.config);
		if (argp_parser_gone(ctx))
			return err != DOCA_SUCCESS ? err : DOCA_ERROR_BAD_STATE;
		return err;
	case BUILTIN_LOG_LEVEL:
		ctx->log_level_on_cli = true;
		return argp_set_level_flag(value, shown, false);
	case BUILTIN_SDK_LOG_LEVEL:
		ctx->sdk_log_level_on_cli = true;
		return argp_set_level_flag(value, shown, true);
	case BUILTIN_JSON:
		/* Read after the whole command line, so flags given there win. */
		if (ctx->json_path != NULL)
			return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' is given more than once",
					 shown);
		ctx->json_path = value;
		return DOCA_SUCCESS;
	default:
		return DOCA_ERROR_UNEXPECTED;
	}
}
