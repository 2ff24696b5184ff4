/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argp_ctx.c - what every flag handler shares: reading a flag's argument, running its
 * callback, and telling when a callback destroyed the parser.
 */
#include <stdbool.h>

#include <doca_argp.h>

#include "argp/argp_priv.h"

/* True when a callback destroyed the parser under our feet. */
bool argp_parser_gone(const struct parse_ctx *ctx)
{
	return !argp.initialized || argp.generation != ctx->generation;
}

/* The argument of a flag: after '=' in the same word, else the next word. */
doca_error_t argp_take_value(struct parse_ctx *ctx, const char *inline_value, const char *shown, const char **value)
{
	if (inline_value != NULL) {
		*value = inline_value;
		return DOCA_SUCCESS;
	}
	if (ctx->idx >= ctx->argc)
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' needs an argument", shown);
	*value = ctx->argv[ctx->idx++];
	return DOCA_SUCCESS;
}

/* Runs a flag's callback with its converted value; a failure names the flag. */
doca_error_t argp_invoke_param(struct parse_ctx *ctx, struct doca_argp_param *p, void *arg, const char *shown)
{
	doca_error_t err = p->callback(arg, argp.config);

	if (argp_parser_gone(ctx))
		return err != DOCA_SUCCESS ? err : DOCA_ERROR_BAD_STATE;
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err, "doca_argp_start: the callback of flag '%s' failed: %s", shown,
				 doca_error_get_descr(err));
	return DOCA_SUCCESS;
}
