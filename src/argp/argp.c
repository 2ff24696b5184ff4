/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argp.c - DOCA's command-line parser: its state, messages and life cycle.
 *
 * The parser is one process-wide object. Flags hang off commands; the program itself
 * is the root command, so doca_argp_register_param is doca_argp_cmd_register_param on
 * the root. Parsing walks argv once: a word that names a subcommand of the current
 * command descends into it; a flag is looked up in the current command, then in the
 * inherited flags of its ancestors, then among the built-in flags.
 *
 * Callbacks may call doca_argp_destroy() (DOCA's own version callback does, before
 * exit). A generation counter tells the parse loop when that happened, so it never
 * touches a freed flag afterwards.
 *
 * The parser's files, each calling only the ones listed before it: json.c (the JSON
 * reader), argp.c (state, messages, life cycle), argp_param.c (flags and commands),
 * argp_usage.c (help text), argp_ctx.c (a flag's argument and callback), argp_device.c
 * (device flags), argp_builtin.c (built-in flags), argp_json.c (-j/--json),
 * argp_parse.c (doca_argp_start).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_log.h>

#include "argp/argp_priv.h"
#include "common/ferry_log.h"

FERRY_LOG_MODULE("argp");

struct argp_state argp;

/* The flags every program has; a program's flag may not reuse their names. */
const struct builtin argp_builtins[] = {
	{BUILTIN_HELP, "h", "help", NULL, "Print this help and exit"},
	{BUILTIN_VERSION, "v", "version", NULL, "Print the program and DOCA versions and exit"},
	{BUILTIN_LOG_LEVEL, "l", "log-level", "<level>",
	 "Application log level: 10=DISABLE 20=CRITICAL 30=ERROR 40=WARNING 50=INFO 60=DEBUG 70=TRACE (or the name)"},
	{BUILTIN_SDK_LOG_LEVEL, NULL, "sdk-log-level", "<level>",
	 "SDK (library) log level, same values as --log-level"},
	{BUILTIN_JSON, "j", "json", "<path>",
	 "Read flags from a JSON file: {\"doca_general_flags\": {...}, \"doca_program_flags\": {...}}, "
	 "keys are long flag names; flags on the command line win"},
};

const size_t argp_nb_builtins = sizeof(argp_builtins) / sizeof(argp_builtins[0]);

/* ---- messages ---- */

/* One user-facing line: to the program's logger callback when it set one, else the SDK log. */
void argp_say(enum doca_log_level level, const char *fmt, ...)
{
	va_list ap;
	char line[1024];

	va_start(ap, fmt);
	if (argp.logger_cb != NULL) {
		argp.logger_cb(level, fmt, ap);
	} else {
		vsnprintf(line, sizeof(line), fmt, ap);
		ferry_log_sdk(level, ferry_log_module_, "%s", line);
	}
	va_end(ap);
}

/* ---- helpers ---- */

doca_error_t argp_replace_string(char **slot, const char *value, const char *call)
{
	char *copy = NULL;

	if (value != NULL) {
		copy = strdup(value);
		if (copy == NULL)
			return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "no memory to copy '%s'", value);
	}
	free(*slot);
	*slot = copy;
	return DOCA_SUCCESS;
}

void argp_param_free(struct doca_argp_param *p)
{
	free(p->short_name);
	free(p->long_name);
	free(p->arguments);
	free(p->description);
	free(p);
}

void argp_cmd_free_children(struct doca_argp_cmd *cmd)
{
	struct doca_argp_param *p = cmd->params;
	struct doca_argp_cmd *c = cmd->cmds;

	while (p != NULL) {
		struct doca_argp_param *next = p->next;

		argp_param_free(p);
		p = next;
	}
	while (c != NULL) {
		struct doca_argp_cmd *next = c->next;

		argp_cmd_free_children(c);
		free(c->name);
		free(c->description);
		free(c);
		c = next;
	}
	cmd->params = NULL;
	cmd->cmds = NULL;
}

/* ---- life cycle ---- */

doca_error_t doca_argp_init(const char *program_name, void *program_config)
{
	if (argp.initialized)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "already initialized; call doca_argp_destroy first");
	unsigned int generation = argp.generation;

	memset(&argp, 0, sizeof(argp));
	argp.generation = generation;
	if (argp_replace_string(&argp.program_name, program_name, __func__) != DOCA_SUCCESS)
		return DOCA_ERROR_NO_MEMORY;
	argp.config = program_config;
	argp.pedantic_config = true;
	argp.initialized = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_destroy(void)
{
	if (!argp.initialized)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "not initialized (or destroyed twice)");
	argp_cmd_free_children(&argp.root);
	while (argp.kept != NULL) {
		struct kept_string *next = argp.kept->next;

		free(argp.kept);
		argp.kept = next;
	}
	free(argp.program_name);
	argp.program_name = NULL;
	argp.initialized = false;
	argp.generation++;
	return DOCA_SUCCESS;
}

doca_error_t argp_require_initialized(const char *call)
{
	if (!argp.initialized)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "doca_argp_init was not called (or doca_argp_destroy was)");
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback)
{
	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	FERRY_ARG_NOT_NULL(callback);
	argp.version_cb = callback;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	FERRY_ARG_NOT_NULL(callback);
	argp.validation_cb = callback;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_dev_open_callback(doca_argp_dev_open_cb_t callback, void *usr_ctx)
{
	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	FERRY_ARG_NOT_NULL(callback);
	argp.dev_open_cb = callback;
	argp.dev_open_ctx = usr_ctx;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_logger_callback(doca_argp_logger_cb_t callback)
{
	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	FERRY_ARG_NOT_NULL(callback);
	if (argp.logger_cb != NULL)
		return FERRY_RULE(DOCA_ERROR_ALREADY_EXIST, "a logger callback is already set; disable it first");
	argp.logger_cb = callback;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_disable_logger_callback(void)
{
	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	if (argp.logger_cb == NULL)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "no logger callback is set");
	argp.logger_cb = NULL;
	return DOCA_SUCCESS;
}

void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback)
{
	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return;
	argp.dpdk_cb = callback;
}

doca_error_t doca_argp_disable_pedantic_config_parsing(void)
{
	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	argp.pedantic_config = false;
	return DOCA_SUCCESS;
}
