/* SPDX-License-Identifier: BSD-3-Clause */
/* argp_json.c - the -j/--json configuration file: read, parse (json.c) and apply. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_argp.h>

#include "argp/argp_priv.h"
#include "argp/json_priv.h"

/*
 * DOCA's layout: one object with "doca_general_flags" (log-level, sdk-log-level)
 * and "doca_program_flags" (the program's flags by long name), each an object.
 * Values have the flag's type: a string for STRING and the device types, an
 * integer for INT, any number for DOUBLE, true/false for BOOLEAN (false = flag not
 * given); a flag with multiplicity takes an array of them. Comments are allowed.
 * A flag given on the command line keeps its command-line value (its JSON key is
 * skipped with an info line).
 */
#define JSON_FILE_MAX (1u << 20) /* a flag file larger than 1 MiB is a mistake */

static doca_error_t read_json_file(const char *path, char **text, size_t *len)
{
	struct stat st;
	ssize_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return ARGP_RULE(DOCA_ERROR_IO_FAILED, "doca_argp_start: cannot open JSON file '%s': %s", path,
				 strerror(errno));
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)JSON_FILE_MAX) {
		close(fd);
		return ARGP_RULE(DOCA_ERROR_IO_FAILED,
				 "doca_argp_start: JSON file '%s' is not a regular file of at most %u bytes", path,
				 JSON_FILE_MAX);
	}
	*text = malloc((size_t)st.st_size + 1);
	if (*text == NULL) {
		close(fd);
		return ARGP_RULE(DOCA_ERROR_NO_MEMORY, "doca_argp_start: no memory to read JSON file '%s'", path);
	}
	*len = 0;
	while (*len < (size_t)st.st_size && (got = read(fd, *text + *len, (size_t)st.st_size - *len)) > 0)
		*len += (size_t)got;
	close(fd);
	if (got < 0) {
		free(*text);
		return ARGP_RULE(DOCA_ERROR_IO_FAILED, "doca_argp_start: cannot read JSON file '%s': %s", path,
				 strerror(errno));
	}
	return DOCA_SUCCESS;
}

/* A key the parser does not know: an error, unless pedantic parsing was disabled. */
static doca_error_t json_unknown_key(const char *path, const char *where, const char *key, const char *why)
{
	if (!argp.pedantic_config) {
		argp_say(DOCA_LOG_LEVEL_WARNING, "doca_argp_start: JSON file '%s': ignoring key '%s' in %s: %s", path,
			 key, where, why);
		return DOCA_SUCCESS;
	}
	return ARGP_RULE(
		DOCA_ERROR_NOT_SUPPORTED,
		"doca_argp_start: JSON file '%s': key '%s' in %s: %s (doca_argp_disable_pedantic_config_parsing "
		"ignores such keys)",
		path, key, where, why);
}

static doca_error_t json_wrong_type(const char *shown, const char *wanted, const struct ferry_json *v)
{
	return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' (line %u) takes %s, not a JSON %s",
			 shown, v->line, wanted, ferry_json_type_name(v->type));
}

/* One JSON value for flag @p p, converted to the flag's type. */
static doca_error_t json_apply_value(struct parse_ctx *ctx, struct doca_argp_param *p, const struct ferry_json *v,
				     const char *shown)
{
	int int_value;
	double double_value;
	bool bool_value = true;

	switch (p->type) {
	case DOCA_ARGP_TYPE_STRING:
	case DOCA_ARGP_TYPE_DEVICE:
	case DOCA_ARGP_TYPE_DEVICE_REP:
		if (v->type != FERRY_JSON_STRING)
			return json_wrong_type(shown, "a string", v);
		break;
	case DOCA_ARGP_TYPE_INT:
		if (v->type != FERRY_JSON_INT || v->integer < INT32_MIN || v->integer > INT32_MAX)
			return json_wrong_type(shown, "an integer that fits 32 bits", v);
		int_value = (int)v->integer;
		break;
	case DOCA_ARGP_TYPE_DOUBLE:
		if (v->type != FERRY_JSON_INT && v->type != FERRY_JSON_DOUBLE)
			return json_wrong_type(shown, "a number", v);
		double_value = v->number;
		break;
	case DOCA_ARGP_TYPE_BOOLEAN:
		if (v->type != FERRY_JSON_BOOL)
			return json_wrong_type(shown, "true or false", v);
		if (!v->boolean)
			return DOCA_SUCCESS; /* false: as if the flag were not given */
		break;
	default:
		return ARGP_RULE(DOCA_ERROR_UNEXPECTED, "doca_argp_start: flag '%s' has type %d", shown, (int)p->type);
	}
	p->seen++;
	ctx->program_flags++;
	switch (p->type) {
	case DOCA_ARGP_TYPE_INT:
		return argp_invoke_param(ctx, p, &int_value, shown);
	case DOCA_ARGP_TYPE_DOUBLE:
		return argp_invoke_param(ctx, p, &double_value, shown);
	case DOCA_ARGP_TYPE_BOOLEAN:
		return argp_invoke_param(ctx, p, &bool_value, shown);
	case DOCA_ARGP_TYPE_STRING:
		return argp_invoke_param(ctx, p, v->string, shown);
	default:
		return argp_call_device_param(ctx, p, v->string, shown);
	}
}

static doca_error_t json_apply_param(struct parse_ctx *ctx, struct doca_argp_param *p, const struct ferry_json *v)
{
	char shown[300];
	doca_error_t err = DOCA_SUCCESS;

	snprintf(shown, sizeof(shown), "--%s", p->long_name);
	if (p->seen > 0) {
		argp_say(DOCA_LOG_LEVEL_INFO,
			 "doca_argp_start: flag '%s' is on the command line; its JSON value is ignored", shown);
		return DOCA_SUCCESS;
	}
	if (v->type != FERRY_JSON_ARRAY)
		return json_apply_value(ctx, p, v, shown);
	if (!p->multiplicity)
		return ARGP_RULE(
			DOCA_ERROR_INVALID_VALUE,
			"doca_argp_start: flag '%s' (line %u) takes one value; only flags with multiplicity take "
			"an array",
			shown, v->line);
	for (const struct ferry_json *item = v->first; item != NULL && err == DOCA_SUCCESS; item = item->next)
		err = json_apply_value(ctx, p, item, shown);
	return err;
}

static doca_error_t json_apply_program_flags(struct parse_ctx *ctx, const struct ferry_json *flags)
{
	const char *where = "doca_program_flags";
	doca_error_t err = DOCA_SUCCESS;

	for (const struct ferry_json *m = flags->first; m != NULL && err == DOCA_SUCCESS; m = m->next) {
		struct doca_argp_param *p = argp_lookup_param(ctx->cmd, m->key, true);

		if (p == NULL)
			err = json_unknown_key(ctx->json_path, where, m->key, "no such long flag");
		else if (p->cli_only)
			err = json_unknown_key(ctx->json_path, where, m->key, "the flag is command-line only");
		else
			err = json_apply_param(ctx, p, m);
	}
	return err;
}

static doca_error_t json_apply_level(struct parse_ctx *ctx, const struct ferry_json *v, bool sdk)
{
	const char *shown = sdk ? "--sdk-log-level" : "--log-level";
	char number[24];

	if (sdk ? ctx->sdk_log_level_on_cli : ctx->log_level_on_cli) {
		argp_say(DOCA_LOG_LEVEL_INFO,
			 "doca_argp_start: flag '%s' is on the command line; its JSON value is ignored", shown);
		return DOCA_SUCCESS;
	}
	if (v->type == FERRY_JSON_STRING)
		return argp_set_level_flag(v->string, shown, sdk);
	if (v->type != FERRY_JSON_INT)
		return json_wrong_type(shown, "a log level (a number or a name)", v);
	snprintf(number, sizeof(number), "%lld", (long long)v->integer);
	return argp_set_level_flag(number, shown, sdk);
}

static doca_error_t json_apply_general_flags(struct parse_ctx *ctx, const struct ferry_json *flags)
{
	doca_error_t err = DOCA_SUCCESS;

	for (const struct ferry_json *m = flags->first; m != NULL && err == DOCA_SUCCESS; m = m->next) {
		if (strcmp(m->key, "log-level") == 0)
			err = json_apply_level(ctx, m, false);
		else if (strcmp(m->key, "sdk-log-level") == 0)
			err = json_apply_level(ctx, m, true);
		else
			err = json_unknown_key(ctx->json_path, "doca_general_flags", m->key,
					       "only log-level and sdk-log-level are read from JSON");
	}
	return err;
}

static doca_error_t json_apply_section(struct parse_ctx *ctx, const struct ferry_json *section)
{
	bool general = strcmp(section->key, "doca_general_flags") == 0;

	if (!general && strcmp(section->key, "doca_program_flags") != 0) {
		if (strcmp(section->key, "doca_dpdk_flags") == 0)
			return ARGP_RULE(
				DOCA_ERROR_NOT_SUPPORTED,
				"doca_argp_start: JSON file '%s': doca_dpdk_flags are not supported by Ferry (no "
				"DPDK); pass DPDK flags on the command line before '--'",
				ctx->json_path);
		return json_unknown_key(ctx->json_path, "the top-level object", section->key,
					"expected doca_general_flags or doca_program_flags");
	}
	if (section->type != FERRY_JSON_OBJECT)
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
				 "doca_argp_start: JSON file '%s': %s (line %u) must be an object, "
				 "not a %s",
				 ctx->json_path, section->key, section->line, ferry_json_type_name(section->type));
	return general ? json_apply_general_flags(ctx, section) : json_apply_program_flags(ctx, section);
}

doca_error_t argp_apply_json_file(struct parse_ctx *ctx)
{
	char *text = NULL, why[160];
	size_t len = 0;
	struct ferry_json *root = NULL;
	doca_error_t err;

	err = read_json_file(ctx->json_path, &text, &len);
	if (err != DOCA_SUCCESS)
		return err;
	err = ferry_json_parse(text, len, &root, why, sizeof(why));
	free(text);
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err == DOCA_ERROR_NO_MEMORY ? err : DOCA_ERROR_IO_FAILED,
				 "doca_argp_start: JSON file '%s' is not valid JSON: %s", ctx->json_path, why);
	if (root->type != FERRY_JSON_OBJECT)
		err = ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
				"doca_argp_start: JSON file '%s' must hold one object, not a %s", ctx->json_path,
				ferry_json_type_name(root->type));
	for (const struct ferry_json *m = root->first; m != NULL && err == DOCA_SUCCESS && !argp_parser_gone(ctx);
	     m = m->next)
		err = json_apply_section(ctx, m);
	ferry_json_free(root);
	return err;
}
