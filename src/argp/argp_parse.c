/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argp_parse.c - doca_argp_start: the walk over argv, the conversion of a flag's text
 * to its type, and the checks once the words (and the JSON file) are read.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>

#include "argp/argp_priv.h"
#include "common/ferry_log.h"

FERRY_LOG_MODULE("argp");

static const char *param_dashes(const struct doca_argp_param *p)
{
	return p->long_name != NULL ? "--" : "-";
}

static doca_error_t parse_int(const char *text, int *value)
{
	char *end;
	long v;
	int base = 10;
	const char *digits = text;

	if (digits[0] == '-' || digits[0] == '+')
		digits++;
	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
		base = 16;
	errno = 0;
	v = strtol(text, &end, base);
	if (errno != 0 || end == text || *end != '\0' || v < INT32_MIN || v > INT32_MAX)
		return DOCA_ERROR_INVALID_VALUE;
	*value = (int)v;
	return DOCA_SUCCESS;
}

static doca_error_t parse_double(const char *text, double *value)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0' || !isfinite(v))
		return DOCA_ERROR_INVALID_VALUE;
	*value = v;
	return DOCA_SUCCESS;
}

/* Converts the text of a flag to its type and runs the callback. */
static doca_error_t call_param(struct parse_ctx *ctx, struct doca_argp_param *p, const char *value, const char *shown)
{
	int int_value;
	double double_value;
	bool bool_value = true;

	switch (p->type) {
	case DOCA_ARGP_TYPE_STRING:
		return argp_invoke_param(ctx, p, (void *)(uintptr_t)value, shown);
	case DOCA_ARGP_TYPE_INT:
		if (parse_int(value, &int_value) != DOCA_SUCCESS)
			return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
					 "doca_argp_start: flag '%s' takes an integer, not '%s'", shown, value);
		return argp_invoke_param(ctx, p, &int_value, shown);
	case DOCA_ARGP_TYPE_DOUBLE:
		if (parse_double(value, &double_value) != DOCA_SUCCESS)
			return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
					 "doca_argp_start: flag '%s' takes a number, not '%s'", shown, value);
		return argp_invoke_param(ctx, p, &double_value, shown);
	case DOCA_ARGP_TYPE_BOOLEAN:
		return argp_invoke_param(ctx, p, &bool_value, shown);
	case DOCA_ARGP_TYPE_DEVICE:
	case DOCA_ARGP_TYPE_DEVICE_REP:
		return argp_call_device_param(ctx, p, value, shown);
	default:
		return ARGP_RULE(DOCA_ERROR_UNEXPECTED, "doca_argp_start: flag '%s' has type %d", shown, (int)p->type);
	}
}

static doca_error_t handle_param(struct parse_ctx *ctx, struct doca_argp_param *p, const char *inline_value,
				 const char *shown)
{
	const char *value = NULL;
	doca_error_t err;

	if (p->seen > 0 && !p->multiplicity)
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' is given more than once", shown);
	if (p->type == DOCA_ARGP_TYPE_BOOLEAN) {
		if (inline_value != NULL)
			return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
					 "doca_argp_start: flag '%s' is boolean and takes no argument ('%s')", shown,
					 inline_value);
	} else {
		err = argp_take_value(ctx, inline_value, shown, &value);
		if (err != DOCA_SUCCESS)
			return err;
	}
	p->seen++;
	ctx->program_flags++;
	return call_param(ctx, p, value, shown);
}

/* Handles one word starting with '-': "--name[=value]" or "-name[=value]". */
static doca_error_t handle_flag(struct parse_ctx *ctx, char *word)
{
	bool is_long = word[1] == '-';
	const char *body = word + (is_long ? 2 : 1);
	const char *eq = strchr(body, '=');
	char name[256];
	const char *inline_value = eq != NULL ? eq + 1 : NULL;
	size_t len = eq != NULL ? (size_t)(eq - body) : strlen(body);
	struct doca_argp_param *p;
	const struct builtin *b;

	if (len == 0 || len >= sizeof(name))
		return ARGP_RULE(DOCA_ERROR_NOT_SUPPORTED, "doca_argp_start: '%s' is not a valid flag", word);
	memcpy(name, body, len);
	name[len] = '\0';

	p = argp_lookup_param(ctx->cmd, name, is_long);
	if (p != NULL)
		return handle_param(ctx, p, inline_value, word);
	b = argp_builtin_by_name(name, is_long);
	if (b != NULL)
		return argp_handle_builtin(ctx, b, inline_value, word);
	return ARGP_RULE(DOCA_ERROR_NOT_SUPPORTED, "doca_argp_start: unknown flag '%s%s'", is_long ? "--" : "-", name);
}

static doca_error_t enter_cmd(struct parse_ctx *ctx, struct doca_argp_cmd *cmd)
{
	doca_error_t err;

	ctx->cmd = cmd;
	if (cmd->callback == NULL)
		return DOCA_SUCCESS;
	err = cmd->callback(argp.config);
	if (argp_parser_gone(ctx))
		return err != DOCA_SUCCESS ? err : DOCA_ERROR_BAD_STATE;
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err, "doca_argp_start: the callback of command '%s' failed: %s", cmd->name,
				 doca_error_get_descr(err));
	return DOCA_SUCCESS;
}

static doca_error_t check_mandatory(const struct parse_ctx *ctx)
{
	for (const struct doca_argp_cmd *c = ctx->cmd; c != NULL; c = c->parent)
		for (const struct doca_argp_param *p = c->params; p != NULL; p = p->next)
			if (p->mandatory && p->seen == 0)
				return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
						 "doca_argp_start: mandatory flag '%s%s' is missing", param_dashes(p),
						 argp_param_display_name(p));
	return DOCA_SUCCESS;
}

static doca_error_t check_singular(const struct parse_ctx *ctx)
{
	for (const struct doca_argp_cmd *c = ctx->cmd; c != NULL; c = c->parent)
		for (const struct doca_argp_param *p = c->params; p != NULL; p = p->next)
			if (p->singular && p->seen > 0 && ctx->program_flags > 1)
				return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
						 "doca_argp_start: flag '%s%s' must be the only program flag given",
						 param_dashes(p), argp_param_display_name(p));
	return DOCA_SUCCESS;
}

static void reset_seen(struct doca_argp_cmd *cmd)
{
	for (struct doca_argp_param *p = cmd->params; p != NULL; p = p->next)
		p->seen = 0;
	for (struct doca_argp_cmd *c = cmd->cmds; c != NULL; c = c->next)
		reset_seen(c);
}

/* The DPDK words are the ones before "--"; returns the index of the first DOCA word. */
static doca_error_t forward_dpdk_words(int argc, char **argv, int *first)
{
	int split = 1;
	doca_error_t err;

	*first = 1;
	if (argp.dpdk_cb == NULL)
		return DOCA_SUCCESS;
	while (split < argc && strcmp(argv[split], "--") != 0)
		split++;
	if (split == argc)
		split = 1; /* no "--": every word is a DOCA one */
	err = argp.dpdk_cb(split, argv);
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err, "doca_argp_start: the DPDK callback failed: %s", doca_error_get_descr(err));
	*first = split < argc && strcmp(argv[split], "--") == 0 ? split + 1 : split;
	return DOCA_SUCCESS;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

static doca_error_t parse_words(struct parse_ctx *ctx)
{
	doca_error_t err = DOCA_SUCCESS;

	while (err == DOCA_SUCCESS && ctx->idx < ctx->argc) {
		char *word = ctx->argv[ctx->idx++];
		struct doca_argp_cmd *sub;

		if (word[0] == '-' && word[1] != '\0') {
			err = handle_flag(ctx, word);
			continue;
		}
		sub = argp_cmd_find_child(ctx->cmd, word);
		if (sub != NULL)
			err = enter_cmd(ctx, sub);
		else
			err = ARGP_RULE(DOCA_ERROR_NOT_SUPPORTED, "doca_argp_start: unexpected argument '%s'", word);
	}
	return err;
}

doca_error_t doca_argp_start(int argc, char **argv)
{
	struct parse_ctx ctx = {0};
	doca_error_t err;

	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	if (argc < 1 || argv == NULL || argv[0] == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "argc %d / argv %p hold no program name", argc,
				  (void *)argv);
	if (argp.program_name == NULL &&
	    argp_replace_string(&argp.program_name, base_name(argv[0]), __func__) != DOCA_SUCCESS)
		return DOCA_ERROR_NO_MEMORY;
	reset_seen(&argp.root);
	ctx.argc = argc;
	ctx.argv = argv;
	ctx.cmd = &argp.root;
	ctx.generation = argp.generation;

	err = forward_dpdk_words(argc, argv, &ctx.idx);
	if (err == DOCA_SUCCESS)
		err = parse_words(&ctx);
	if (err == DOCA_SUCCESS && ctx.json_path != NULL)
		err = argp_apply_json_file(&ctx);
	if (err == DOCA_SUCCESS)
		err = check_mandatory(&ctx);
	if (err == DOCA_SUCCESS)
		err = check_singular(&ctx);
	if (err == DOCA_SUCCESS && argp.validation_cb != NULL) {
		err = argp.validation_cb(argp.config);
		if (argp_parser_gone(&ctx))
			return err != DOCA_SUCCESS ? err : DOCA_ERROR_BAD_STATE;
		if (err != DOCA_SUCCESS)
			return ARGP_RULE(err, "%s: the program's validation callback failed: %s", __func__,
					 doca_error_get_descr(err));
	}
	if (err != DOCA_SUCCESS && !argp_parser_gone(&ctx))
		argp_print_usage(stderr);
	return err;
}
