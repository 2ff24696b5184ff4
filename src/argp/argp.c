/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argp.c - DOCA's command-line parser.
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
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_version.h>

#include "argp/json_priv.h"
#include "common/ferry_log.h"
#include "common/ferry_log_internal.h"

FERRY_LOG_MODULE("argp");

struct doca_argp_param {
	char *short_name;
	char *long_name;
	char *arguments;
	char *description;
	doca_argp_param_cb_t callback;
	enum doca_argp_type type;
	bool mandatory;
	bool multiplicity;
	bool cli_only;
	bool singular;
	bool inherited;
	bool hidden;
	bool registered;
	unsigned int seen;
	struct doca_argp_param *next;
};

struct doca_argp_cmd {
	char *name;
	char *description;
	doca_argp_cmd_cb_t callback;
	bool hidden;
	bool registered;
	struct doca_argp_cmd *parent;
	struct doca_argp_param *params;
	struct doca_argp_cmd *cmds;
	struct doca_argp_cmd *next;
};

struct argp_state {
	bool initialized;
	unsigned int generation;
	char *program_name;
	void *config;
	struct doca_argp_cmd root;
	doca_argp_param_cb_t version_cb;
	doca_argp_validation_cb_t validation_cb;
	doca_argp_dpdk_cb_t dpdk_cb;
	doca_argp_dev_open_cb_t dev_open_cb;
	void *dev_open_ctx;
	doca_argp_logger_cb_t logger_cb;
	bool pedantic_config;
	bool log_level_given;
	bool sdk_log_level_given;
	int log_level;
	int sdk_log_level;
	struct kept_string *kept; /* devargs handed to callbacks, alive until destroy */
};

/* A copy of text a callback may keep a pointer to (DOCA's flow samples store devargs). */
struct kept_string {
	struct kept_string *next;
	char text[];
};

static struct argp_state argp;

enum builtin_flag {
	BUILTIN_NONE,
	BUILTIN_HELP,
	BUILTIN_VERSION,
	BUILTIN_LOG_LEVEL,
	BUILTIN_SDK_LOG_LEVEL,
	BUILTIN_JSON,
};

static const struct builtin {
	enum builtin_flag id;
	const char *short_name;
	const char *long_name;
	const char *arguments;
	const char *description;
} builtins[] = {
	{BUILTIN_HELP, "h", "help", NULL, "Print this help and exit"},
	{BUILTIN_VERSION, "v", "version", NULL, "Print the program and DOCA versions and exit"},
	{BUILTIN_LOG_LEVEL, "l", "log-level", "<level>",
	 "Application log level: 10=DISABLE 20=CRITICAL 30=ERROR 40=WARNING 50=INFO 60=DEBUG 70=TRACE (or the name)"},
	{BUILTIN_SDK_LOG_LEVEL, NULL, "sdk-log-level", "<level>", "SDK (library) log level, same values as --log-level"},
	{BUILTIN_JSON, "j", "json", "<path>",
	 "Read flags from a JSON file: {\"doca_general_flags\": {...}, \"doca_program_flags\": {...}}, "
	 "keys are long flag names; flags on the command line win"},
};

#define NB_BUILTINS (sizeof(builtins) / sizeof(builtins[0]))

/* ---- messages ---- */

/* One user-facing line: to the program's logger callback when it set one, else the SDK log. */
static void __attribute__((format(printf, 2, 3))) argp_say(enum doca_log_level level, const char *fmt, ...)
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

#define ARGP_RULE(err, ...) (argp_say(DOCA_LOG_LEVEL_ERROR, __VA_ARGS__), (err))

/* ---- helpers ---- */

static bool str_eq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static doca_error_t replace_string(char **slot, const char *value, const char *call)
{
	char *copy = NULL;

	if (value != NULL) {
		copy = strdup(value);
		if (copy == NULL)
			return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "%s: no memory to copy '%s'", call, value);
	}
	free(*slot);
	*slot = copy;
	return DOCA_SUCCESS;
}

static const char *param_display_name(const struct doca_argp_param *p)
{
	return p->long_name != NULL ? p->long_name : (p->short_name != NULL ? p->short_name : "?");
}

static const char *param_dashes(const struct doca_argp_param *p)
{
	return p->long_name != NULL ? "--" : "-";
}

static void param_free(struct doca_argp_param *p)
{
	free(p->short_name);
	free(p->long_name);
	free(p->arguments);
	free(p->description);
	free(p);
}

static void cmd_free_children(struct doca_argp_cmd *cmd)
{
	struct doca_argp_param *p = cmd->params;
	struct doca_argp_cmd *c = cmd->cmds;

	while (p != NULL) {
		struct doca_argp_param *next = p->next;

		param_free(p);
		p = next;
	}
	while (c != NULL) {
		struct doca_argp_cmd *next = c->next;

		cmd_free_children(c);
		free(c->name);
		free(c->description);
		free(c);
		c = next;
	}
	cmd->params = NULL;
	cmd->cmds = NULL;
}

/* Setters on a flag: refuse NULL and flags the parser already owns (their names were checked). */
static bool param_editable(const struct doca_argp_param *param, const char *call)
{
	if (param == NULL) {
		FERRY_ERR("%s: param is NULL", call);
		return false;
	}
	if (param->registered) {
		FERRY_ERR("%s: param '%s' is registered; set it up before doca_argp_register_param", call,
			  param_display_name(param));
		return false;
	}
	return true;
}

static bool cmd_editable(const struct doca_argp_cmd *cmd, const char *call)
{
	if (cmd == NULL) {
		FERRY_ERR("%s: cmd is NULL", call);
		return false;
	}
	if (cmd->registered) {
		FERRY_ERR("%s: cmd '%s' is registered; set it up before registering it", call,
			  cmd->name != NULL ? cmd->name : "?");
		return false;
	}
	return true;
}

/* ---- life cycle ---- */

doca_error_t doca_argp_init(const char *program_name, void *program_config)
{
	if (argp.initialized)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "doca_argp_init: already initialized; call doca_argp_destroy first");
	unsigned int generation = argp.generation;

	memset(&argp, 0, sizeof(argp));
	argp.generation = generation;
	if (replace_string(&argp.program_name, program_name, __func__) != DOCA_SUCCESS)
		return DOCA_ERROR_NO_MEMORY;
	argp.config = program_config;
	argp.pedantic_config = true;
	argp.initialized = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_destroy(void)
{
	if (!argp.initialized)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "doca_argp_destroy: not initialized (or destroyed twice)");
	cmd_free_children(&argp.root);
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

static doca_error_t require_initialized(const char *call)
{
	if (!argp.initialized)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "%s: doca_argp_init was not called (or doca_argp_destroy was)",
				  call);
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback)
{
	if (require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	if (callback == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_register_version_callback: callback is NULL");
	argp.version_cb = callback;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback)
{
	if (require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	if (callback == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_register_validation_callback: callback is NULL");
	argp.validation_cb = callback;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_dev_open_callback(doca_argp_dev_open_cb_t callback, void *usr_ctx)
{
	if (require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	if (callback == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_register_dev_open_callback: callback is NULL");
	argp.dev_open_cb = callback;
	argp.dev_open_ctx = usr_ctx;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_logger_callback(doca_argp_logger_cb_t callback)
{
	if (require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	if (callback == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_register_logger_callback: callback is NULL");
	if (argp.logger_cb != NULL)
		return FERRY_RULE(DOCA_ERROR_ALREADY_EXIST,
				  "doca_argp_register_logger_callback: a logger callback is already set; disable it first");
	argp.logger_cb = callback;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_disable_logger_callback(void)
{
	if (require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	if (argp.logger_cb == NULL)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "doca_argp_disable_logger_callback: no logger callback is set");
	argp.logger_cb = NULL;
	return DOCA_SUCCESS;
}

void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback)
{
	if (require_initialized(__func__) != DOCA_SUCCESS)
		return;
	argp.dpdk_cb = callback;
}

doca_error_t doca_argp_disable_pedantic_config_parsing(void)
{
	if (require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	argp.pedantic_config = false;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_get_log_level(int *log_level)
{
	if (log_level == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_get_log_level: log_level is NULL");
	*log_level = argp.log_level_given ? argp.log_level : (int)doca_log_level_get_global_lower_limit();
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_get_sdk_log_level(int *log_level)
{
	if (log_level == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_get_sdk_log_level: log_level is NULL");
	*log_level = argp.sdk_log_level_given ? argp.sdk_log_level : (int)doca_log_level_get_global_sdk_limit();
	return DOCA_SUCCESS;
}

/* ---- params ---- */

doca_error_t doca_argp_param_create(struct doca_argp_param **param)
{
	if (param == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_param_create: param is NULL");
	if (require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	*param = calloc(1, sizeof(**param));
	if (*param == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "doca_argp_param_create: no memory for a param");
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_param_destroy(struct doca_argp_param *param)
{
	if (param == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_param_destroy: param is NULL");
	if (param->registered)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE,
				  "doca_argp_param_destroy: param '%s' is registered; doca_argp_destroy frees it",
				  param_display_name(param));
	param_free(param);
	return DOCA_SUCCESS;
}

#define PARAM_SET_STRING(fn, field)                                                                \
	void fn(struct doca_argp_param *param, const char *value)                                  \
	{                                                                                          \
		if (param_editable(param, #fn))                                                    \
			replace_string(&param->field, value, #fn);                                 \
	}

PARAM_SET_STRING(doca_argp_param_set_short_name, short_name)
PARAM_SET_STRING(doca_argp_param_set_long_name, long_name)
PARAM_SET_STRING(doca_argp_param_set_arguments, arguments)
PARAM_SET_STRING(doca_argp_param_set_description, description)

#define PARAM_SET_FLAG(fn, field)                                                                  \
	void fn(struct doca_argp_param *param)                                                     \
	{                                                                                          \
		if (param_editable(param, #fn))                                                    \
			param->field = true;                                                       \
	}

PARAM_SET_FLAG(doca_argp_param_set_mandatory, mandatory)
PARAM_SET_FLAG(doca_argp_param_set_cli_only, cli_only)
PARAM_SET_FLAG(doca_argp_param_set_multiplicity, multiplicity)
PARAM_SET_FLAG(doca_argp_param_set_singular, singular)
PARAM_SET_FLAG(doca_argp_param_set_inherited, inherited)
PARAM_SET_FLAG(doca_argp_param_set_hidden, hidden)

void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback)
{
	if (param_editable(param, __func__))
		param->callback = callback;
}

void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type)
{
	if (param_editable(param, __func__))
		param->type = type;
}

static const struct builtin *builtin_by_name(const char *name, bool is_long)
{
	for (size_t i = 0; i < NB_BUILTINS; i++)
		if (str_eq(name, is_long ? builtins[i].long_name : builtins[i].short_name))
			return &builtins[i];
	return NULL;
}

static struct doca_argp_param *cmd_find_param(const struct doca_argp_cmd *cmd, const char *name, bool is_long)
{
	for (struct doca_argp_param *p = cmd->params; p != NULL; p = p->next)
		if (str_eq(name, is_long ? p->long_name : p->short_name))
			return p;
	return NULL;
}

/* A usable name: not empty, no leading dash, no '=' or blank that would break parsing. */
static bool name_well_formed(const char *name)
{
	return name[0] != '\0' && name[0] != '-' && strpbrk(name, "= \t") == NULL;
}

static doca_error_t check_param_name(const struct doca_argp_cmd *cmd, const char *name, bool is_long,
				     const char *call)
{
	if (name == NULL)
		return DOCA_SUCCESS;
	if (!name_well_formed(name))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: name '%s' is empty, starts with '-' or holds '=' or a blank",
				  call, name);
	if (builtin_by_name(name, is_long) != NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: '%s%s' is a built-in flag of doca_argp", call,
				  is_long ? "--" : "-", name);
	if (cmd_find_param(cmd, name, is_long) != NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: '%s%s' is already registered", call,
				  is_long ? "--" : "-", name);
	return DOCA_SUCCESS;
}

static doca_error_t check_param_complete(const struct doca_argp_param *p, const char *call)
{
	if (p->short_name == NULL && p->long_name == NULL)
		return FERRY_RULE(DOCA_ERROR_INITIALIZATION, "%s: param has neither a short nor a long name", call);
	if (p->description == NULL)
		return FERRY_RULE(DOCA_ERROR_INITIALIZATION, "%s: param '%s' has no description", call,
				  param_display_name(p));
	if (p->callback == NULL)
		return FERRY_RULE(DOCA_ERROR_INITIALIZATION, "%s: param '%s' has no callback", call,
				  param_display_name(p));
	if (p->type <= DOCA_ARGP_TYPE_UNKNOWN || p->type > DOCA_ARGP_TYPE_DOUBLE)
		return FERRY_RULE(DOCA_ERROR_INITIALIZATION, "%s: param '%s' has no valid type (%d)", call,
				  param_display_name(p), (int)p->type);
	return DOCA_SUCCESS;
}

static doca_error_t cmd_add_param(struct doca_argp_cmd *cmd, struct doca_argp_param *param, const char *call)
{
	doca_error_t err;
	struct doca_argp_param **tail;

	if (param == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: param is NULL", call);
	if (param->registered)
		/* Not ours to free: it already belongs to a command. */
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "%s: param '%s' is already registered", call,
				  param_display_name(param));
	err = check_param_complete(param, call);
	if (err == DOCA_SUCCESS)
		err = check_param_name(cmd, param->short_name, false, call);
	if (err == DOCA_SUCCESS)
		err = check_param_name(cmd, param->long_name, true, call);
	if (err != DOCA_SUCCESS) {
		param_free(param); /* the parser owns the param in every outcome */
		return err;
	}
	for (tail = &cmd->params; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = param;
	param->registered = true;
	if (param->long_name == NULL)
		param->cli_only = true; /* JSON keys are long names (DOCA changes is_cli_only here too) */
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_param(struct doca_argp_param *input_param)
{
	if (!argp.initialized) {
		if (input_param != NULL && !input_param->registered)
			param_free(input_param);
		return require_initialized(__func__);
	}
	return cmd_add_param(&argp.root, input_param, __func__);
}

/* ---- commands ---- */

doca_error_t doca_argp_cmd_create(struct doca_argp_cmd **cmd)
{
	if (cmd == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_cmd_create: cmd is NULL");
	if (require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	*cmd = calloc(1, sizeof(**cmd));
	if (*cmd == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "doca_argp_cmd_create: no memory for a cmd");
	return DOCA_SUCCESS;
}

static void cmd_free(struct doca_argp_cmd *cmd)
{
	cmd_free_children(cmd);
	free(cmd->name);
	free(cmd->description);
	free(cmd);
}

doca_error_t doca_argp_cmd_destroy(struct doca_argp_cmd *cmd)
{
	if (cmd == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_cmd_destroy: cmd is NULL");
	if (cmd->registered)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "doca_argp_cmd_destroy: cmd '%s' is registered",
				  cmd->name != NULL ? cmd->name : "?");
	cmd_free(cmd);
	return DOCA_SUCCESS;
}

void doca_argp_cmd_set_name(struct doca_argp_cmd *cmd, const char *name)
{
	if (cmd_editable(cmd, __func__))
		replace_string(&cmd->name, name, __func__);
}

void doca_argp_cmd_set_description(struct doca_argp_cmd *cmd, const char *description)
{
	if (cmd_editable(cmd, __func__))
		replace_string(&cmd->description, description, __func__);
}

void doca_argp_cmd_set_callback(struct doca_argp_cmd *cmd, doca_argp_cmd_cb_t callback)
{
	if (cmd_editable(cmd, __func__))
		cmd->callback = callback;
}

void doca_argp_cmd_set_hidden(struct doca_argp_cmd *cmd)
{
	if (cmd_editable(cmd, __func__))
		cmd->hidden = true;
}

doca_error_t doca_argp_cmd_register_param(struct doca_argp_cmd *cmd, struct doca_argp_param *input_param)
{
	if (cmd == NULL || cmd->registered) {
		if (input_param != NULL && !input_param->registered)
			param_free(input_param);
		if (cmd == NULL)
			return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_cmd_register_param: cmd is NULL");
		return FERRY_RULE(DOCA_ERROR_BAD_STATE,
				  "doca_argp_cmd_register_param: cmd '%s' is registered; add its params before",
				  cmd->name != NULL ? cmd->name : "?");
	}
	return cmd_add_param(cmd, input_param, __func__);
}

static struct doca_argp_cmd *cmd_find_child(const struct doca_argp_cmd *cmd, const char *name)
{
	for (struct doca_argp_cmd *c = cmd->cmds; c != NULL; c = c->next)
		if (str_eq(c->name, name))
			return c;
	return NULL;
}

static doca_error_t cmd_add_cmd(struct doca_argp_cmd *parent, struct doca_argp_cmd *child, const char *call)
{
	doca_error_t err = DOCA_SUCCESS;
	struct doca_argp_cmd **tail;

	if (child == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: cmd is NULL", call);
	if (child->registered)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "%s: cmd '%s' is already registered", call,
				  child->name != NULL ? child->name : "?");
	if (child->name == NULL || child->description == NULL)
		err = FERRY_RULE(DOCA_ERROR_INITIALIZATION, "%s: cmd '%s' needs a name and a description", call,
				 child->name != NULL ? child->name : "?");
	else if (!name_well_formed(child->name))
		err = FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: cmd name '%s' is empty, starts with '-' or has '='",
				 call, child->name);
	else if (cmd_find_child(parent, child->name) != NULL)
		err = FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: cmd '%s' is already registered here", call,
				 child->name);
	if (err != DOCA_SUCCESS) {
		cmd_free(child);
		return err;
	}
	for (tail = &parent->cmds; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = child;
	child->parent = parent;
	child->registered = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_register_cmd(struct doca_argp_cmd *input_cmd)
{
	if (!argp.initialized) {
		if (input_cmd != NULL && !input_cmd->registered)
			cmd_free(input_cmd);
		return require_initialized(__func__);
	}
	return cmd_add_cmd(&argp.root, input_cmd, __func__);
}

doca_error_t doca_argp_cmd_register_cmd(struct doca_argp_cmd *cmd, struct doca_argp_cmd *input_cmd)
{
	if (cmd == NULL || cmd->registered) {
		if (input_cmd != NULL && !input_cmd->registered)
			cmd_free(input_cmd);
		if (cmd == NULL)
			return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_cmd_register_cmd: cmd is NULL");
		return FERRY_RULE(DOCA_ERROR_BAD_STATE,
				  "doca_argp_cmd_register_cmd: cmd '%s' is registered; add its subcommands before",
				  cmd->name != NULL ? cmd->name : "?");
	}
	return cmd_add_cmd(cmd, input_cmd, __func__);
}

/* ---- usage ---- */

static void print_flag_line(FILE *out, const char *short_name, const char *long_name, const char *arguments,
			    const char *description, bool mandatory)
{
	char names[128];
	int n = 0;

	if (short_name != NULL)
		n = snprintf(names, sizeof(names), "-%s%s", short_name, long_name != NULL ? ", " : "");
	if (long_name != NULL && n >= 0 && (size_t)n < sizeof(names))
		n += snprintf(names + n, sizeof(names) - (size_t)n, "--%s", long_name);
	if (arguments != NULL && n >= 0 && (size_t)n < sizeof(names))
		snprintf(names + n, sizeof(names) - (size_t)n, " %s", arguments);
	fprintf(out, "  %-36s %s%s\n", names, description != NULL ? description : "",
		mandatory ? " (required)" : "");
}

static void print_cmd_flags(FILE *out, const struct doca_argp_cmd *cmd)
{
	for (const struct doca_argp_param *p = cmd->params; p != NULL; p = p->next)
		if (!p->hidden)
			print_flag_line(out, p->short_name, p->long_name, p->arguments, p->description, p->mandatory);
}

static void print_cmd_tree(FILE *out, const struct doca_argp_cmd *cmd, int depth)
{
	for (const struct doca_argp_cmd *c = cmd->cmds; c != NULL; c = c->next) {
		if (c->hidden)
			continue;
		fprintf(out, "\n%*sCommand '%s': %s\n", depth * 2, "", c->name, c->description);
		print_cmd_flags(out, c);
		print_cmd_tree(out, c, depth + 1);
	}
}

static void print_usage(FILE *out)
{
	const char *name = argp.program_name != NULL ? argp.program_name : "program";

	fprintf(out, "Usage: %s%s [DOCA Flags] [Program Flags]\n\nDOCA Flags:\n", name,
		argp.root.cmds != NULL ? " [command ...]" : "");
	for (size_t i = 0; i < NB_BUILTINS; i++)
		print_flag_line(out, builtins[i].short_name, builtins[i].long_name, builtins[i].arguments,
				builtins[i].description, false);
	fprintf(out, "\nProgram Flags:\n");
	print_cmd_flags(out, &argp.root);
	print_cmd_tree(out, &argp.root, 0);
	fflush(out);
}

void doca_argp_usage(void)
{
	if (require_initialized(__func__) != DOCA_SUCCESS)
		return;
	print_usage(stdout);
}

/* ---- parsing ---- */

struct parse_ctx {
	int argc;
	char **argv;
	int idx;                     /* next word to read */
	struct doca_argp_cmd *cmd;   /* the deepest command selected so far */
	unsigned int generation;     /* argp.generation when the parse began */
	unsigned int program_flags;  /* program flags seen, for singular flags */
	const char *json_path;       /* the -j/--json file, read once the command line is parsed */
	bool log_level_on_cli;       /* the command line wins over the JSON file */
	bool sdk_log_level_on_cli;
};

/* True when a callback destroyed the parser under our feet. */
static bool parser_gone(const struct parse_ctx *ctx)
{
	return !argp.initialized || argp.generation != ctx->generation;
}

static struct doca_argp_param *lookup_param(const struct doca_argp_cmd *cmd, const char *name, bool is_long)
{
	struct doca_argp_param *p = cmd_find_param(cmd, name, is_long);

	for (const struct doca_argp_cmd *up = cmd->parent; p == NULL && up != NULL; up = up->parent) {
		p = cmd_find_param(up, name, is_long);
		if (p != NULL && !p->inherited)
			p = NULL;
	}
	return p;
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

/* The argument of a flag: after '=' in the same word, else the next word. */
static doca_error_t take_value(struct parse_ctx *ctx, const char *inline_value, const char *shown, const char **value)
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
static doca_error_t invoke_param(struct parse_ctx *ctx, struct doca_argp_param *p, void *arg, const char *shown)
{
	doca_error_t err = p->callback(arg, argp.config);

	if (parser_gone(ctx))
		return err != DOCA_SUCCESS ? err : DOCA_ERROR_BAD_STATE;
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err, "doca_argp_start: the callback of flag '%s' failed: %s", shown,
				 doca_error_get_descr(err));
	return DOCA_SUCCESS;
}

/* ---- device flags ---- */

/* Copies text a callback may keep; freed by doca_argp_destroy. */
static const char *keep_string(const char *text)
{
	size_t len = strlen(text);
	struct kept_string *k = malloc(sizeof(*k) + len + 1);

	if (k == NULL)
		return NULL;
	memcpy(k->text, text, len + 1);
	k->next = argp.kept;
	argp.kept = k;
	return k->text;
}

/* "03:00.0", "0000:03:00.0": a bus:device.function address rather than a name. */
static bool looks_like_pci_addr(const char *ident)
{
	return strchr(ident, ':') != NULL && strchr(ident, '.') != NULL;
}

static bool devinfo_matches(struct doca_devinfo *devinfo, const char *ident, bool by_pci)
{
	char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t equal = 0;

	if (by_pci)
		return doca_devinfo_is_equal_pci_addr(devinfo, ident, &equal) == DOCA_SUCCESS && equal != 0;
	if (doca_devinfo_get_ibdev_name(devinfo, name, DOCA_DEVINFO_IBDEV_NAME_SIZE) == DOCA_SUCCESS &&
	    strcmp(name, ident) == 0)
		return true;
	return doca_devinfo_get_iface_name(devinfo, name, sizeof(name)) == DOCA_SUCCESS && strcmp(name, ident) == 0;
}

/* Opens through the program's dev-open callback when it registered one. */
static doca_error_t open_devinfo(struct doca_devinfo *devinfo, const char *shown, struct doca_dev **dev)
{
	doca_error_t err;

	*dev = NULL;
	if (argp.dev_open_cb == NULL)
		err = doca_dev_open(devinfo, dev);
	else
		err = argp.dev_open_cb(devinfo, argp.dev_open_ctx, dev);
	if (err == DOCA_SUCCESS && *dev == NULL)
		err = DOCA_ERROR_UNEXPECTED;
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err, "doca_argp_start: flag '%s': %s failed to open the device: %s", shown,
				 argp.dev_open_cb != NULL ? "the dev-open callback" : "doca_dev_open",
				 doca_error_get_descr(err));
	return DOCA_SUCCESS;
}

/*
 * Opens the one device named by @p ident: "pci/<address>", a bare PCI address, an
 * IB device name or a network interface name. No match or several are errors.
 */
static doca_error_t open_device(const char *ident, const char *shown, struct doca_dev **dev)
{
	struct doca_devinfo **list = NULL, *found = NULL;
	uint32_t nb = 0, matches = 0;
	bool by_pci = strncmp(ident, "pci/", 4) == 0;
	const char *key = by_pci ? ident + 4 : ident;
	doca_error_t err;

	by_pci = by_pci || looks_like_pci_addr(ident);
	if (key[0] == '\0')
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' names no device", shown);
	err = doca_devinfo_create_list(&list, &nb);
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err, "doca_argp_start: flag '%s': no device list: %s", shown, doca_error_get_descr(err));
	for (uint32_t i = 0; i < nb; i++)
		if (devinfo_matches(list[i], key, by_pci)) {
			found = found != NULL ? found : list[i];
			matches++;
		}
	if (matches == 0)
		err = ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
				"doca_argp_start: flag '%s': no device is '%s' (give pci/<address>, an IB device or an "
				"interface name)", shown, ident);
	else if (matches > 1)
		err = ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
				"doca_argp_start: flag '%s': %u devices match '%s'; name one by pci/<address>", shown,
				matches, ident);
	else
		err = open_devinfo(found, shown, dev);
	doca_devinfo_destroy_list(list);
	return err;
}

static bool rep_matches(struct doca_devinfo_rep *rep, const char *name)
{
	char text[DOCA_DEVINFO_REP_VUID_SIZE > DOCA_DEVINFO_IFACE_NAME_SIZE ? DOCA_DEVINFO_REP_VUID_SIZE
									    : DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t equal = 0;

	if (looks_like_pci_addr(name))
		return doca_devinfo_rep_is_equal_pci_addr(rep, name, &equal) == DOCA_SUCCESS && equal != 0;
	if (doca_devinfo_rep_get_iface_name(rep, text, DOCA_DEVINFO_IFACE_NAME_SIZE) == DOCA_SUCCESS &&
	    strcmp(text, name) == 0)
		return true;
	return doca_devinfo_rep_get_vuid(rep, text, DOCA_DEVINFO_REP_VUID_SIZE) == DOCA_SUCCESS && strcmp(text, name) == 0;
}

/* Opens the representor @p name ("pf0hpf", "pf0vf1", its vuid or PCI address) of @p dev. */
static doca_error_t open_rep(struct doca_dev *dev, const char *name, const char *shown, struct doca_dev_rep **rep)
{
	struct doca_devinfo_rep **list = NULL, *found = NULL;
	uint32_t nb = 0;
	doca_error_t err;

	err = doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_ALL, &list, &nb);
	if (err != DOCA_SUCCESS)
		return ARGP_RULE(err, "doca_argp_start: flag '%s': the device has no representor list: %s", shown,
				 doca_error_get_descr(err));
	for (uint32_t i = 0; i < nb && found == NULL; i++)
		if (rep_matches(list[i], name))
			found = list[i];
	if (found == NULL)
		err = ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s': the device has no representor '%s'",
				shown, name);
	else {
		err = doca_dev_rep_open(found, rep);
		if (err != DOCA_SUCCESS)
			err = ARGP_RULE(err, "doca_argp_start: flag '%s': doca_dev_rep_open failed: %s", shown,
				  doca_error_get_descr(err));
	}
	doca_devinfo_rep_destroy_list(list);
	return err;
}

/* Cuts "<part>,<rest>" at the first comma into @p part; *rest is after it or NULL. */
static doca_error_t split_value(const char *value, char *part, size_t size, const char **rest, const char *shown)
{
	const char *comma = strchr(value, ',');
	size_t len = comma != NULL ? (size_t)(comma - value) : strlen(value);

	if (len >= size)
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s': '%.*s...' is too long", shown, 32,
				 value);
	memcpy(part, value, len);
	part[len] = '\0';
	*rest = comma != NULL ? comma + 1 : NULL;
	return DOCA_SUCCESS;
}

/*
 * DEVICE: "<device>[,<devargs>]"; DEVICE_REP: "<device>,<representor>[,<devargs>]".
 * The callback owns the opened device (and representor) from the call on; when
 * anything fails before it runs, what was opened here is closed again.
 */
static doca_error_t call_device_param(struct parse_ctx *ctx, struct doca_argp_param *p, const char *value,
				      const char *shown)
{
	char ident[256], rep_name[DOCA_DEVINFO_REP_VUID_SIZE];
	const char *rest = NULL, *devargs = NULL;
	struct doca_argp_device_rep_ctx rep_ctx = {0};
	doca_error_t err;

	err = split_value(value, ident, sizeof(ident), &rest, shown);
	if (err == DOCA_SUCCESS && p->type == DOCA_ARGP_TYPE_DEVICE_REP) {
		if (rest == NULL || rest[0] == '\0' || rest[0] == ',')
			return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
					 "doca_argp_start: flag '%s' takes <device>,<representor> (e.g. pci/03:00.0,pf0hpf), "
					 "not '%s'", shown, value);
		err = split_value(rest, rep_name, sizeof(rep_name), &rest, shown);
	}
	if (err != DOCA_SUCCESS)
		return err;
	if (rest != NULL && rest[0] != '\0') {
		devargs = keep_string(rest);
		if (devargs == NULL)
			return ARGP_RULE(DOCA_ERROR_NO_MEMORY, "doca_argp_start: flag '%s': no memory for devargs", shown);
	}
	err = open_device(ident, shown, &rep_ctx.dev_ctx.dev);
	if (err != DOCA_SUCCESS)
		return err;
	rep_ctx.dev_ctx.devargs = devargs;
	if (p->type == DOCA_ARGP_TYPE_DEVICE)
		return invoke_param(ctx, p, &rep_ctx.dev_ctx, shown);
	err = open_rep(rep_ctx.dev_ctx.dev, rep_name, shown, &rep_ctx.dev_rep);
	if (err != DOCA_SUCCESS) {
		doca_dev_close(rep_ctx.dev_ctx.dev);
		return err;
	}
	return invoke_param(ctx, p, &rep_ctx, shown);
}

/* Converts the text of a flag to its type and runs the callback. */
static doca_error_t call_param(struct parse_ctx *ctx, struct doca_argp_param *p, const char *value, const char *shown)
{
	int int_value;
	double double_value;
	bool bool_value = true;

	switch (p->type) {
	case DOCA_ARGP_TYPE_STRING:
		return invoke_param(ctx, p, (void *)(uintptr_t)value, shown);
	case DOCA_ARGP_TYPE_INT:
		if (parse_int(value, &int_value) != DOCA_SUCCESS)
			return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' takes an integer, not '%s'",
					 shown, value);
		return invoke_param(ctx, p, &int_value, shown);
	case DOCA_ARGP_TYPE_DOUBLE:
		if (parse_double(value, &double_value) != DOCA_SUCCESS)
			return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' takes a number, not '%s'",
					 shown, value);
		return invoke_param(ctx, p, &double_value, shown);
	case DOCA_ARGP_TYPE_BOOLEAN:
		return invoke_param(ctx, p, &bool_value, shown);
	case DOCA_ARGP_TYPE_DEVICE:
	case DOCA_ARGP_TYPE_DEVICE_REP:
		return call_device_param(ctx, p, value, shown);
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
		err = take_value(ctx, inline_value, shown, &value);
		if (err != DOCA_SUCCESS)
			return err;
	}
	p->seen++;
	ctx->program_flags++;
	return call_param(ctx, p, value, shown);
}

static doca_error_t set_level_flag(const char *value, const char *shown, bool sdk)
{
	uint32_t level;
	doca_error_t err;

	if (ferry_log_level_parse(value, &level) != DOCA_SUCCESS)
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
				 "doca_argp_start: flag '%s' takes a log level (10..70 or a name), not '%s'", shown, value);
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

static doca_error_t handle_builtin(struct parse_ctx *ctx, const struct builtin *b, const char *inline_value,
				   const char *shown)
{
	const char *value = NULL;
	doca_error_t err;

	if (b->arguments != NULL) {
		err = take_value(ctx, inline_value, shown, &value);
		if (err != DOCA_SUCCESS)
			return err;
	} else if (inline_value != NULL) {
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' takes no argument", shown);
	}
	switch (b->id) {
	case BUILTIN_HELP:
		print_usage(stdout);
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
		if (parser_gone(ctx))
			return err != DOCA_SUCCESS ? err : DOCA_ERROR_BAD_STATE;
		return err;
	case BUILTIN_LOG_LEVEL:
		ctx->log_level_on_cli = true;
		return set_level_flag(value, shown, false);
	case BUILTIN_SDK_LOG_LEVEL:
		ctx->sdk_log_level_on_cli = true;
		return set_level_flag(value, shown, true);
	case BUILTIN_JSON:
		/* Read after the whole command line, so flags given there win. */
		if (ctx->json_path != NULL)
			return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' is given more than once", shown);
		ctx->json_path = value;
		return DOCA_SUCCESS;
	default:
		return DOCA_ERROR_UNEXPECTED;
	}
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

	p = lookup_param(ctx->cmd, name, is_long);
	if (p != NULL)
		return handle_param(ctx, p, inline_value, word);
	b = builtin_by_name(name, is_long);
	if (b != NULL)
		return handle_builtin(ctx, b, inline_value, word);
	return ARGP_RULE(DOCA_ERROR_NOT_SUPPORTED, "doca_argp_start: unknown flag '%s%s'", is_long ? "--" : "-", name);
}

static doca_error_t enter_cmd(struct parse_ctx *ctx, struct doca_argp_cmd *cmd)
{
	doca_error_t err;

	ctx->cmd = cmd;
	if (cmd->callback == NULL)
		return DOCA_SUCCESS;
	err = cmd->callback(argp.config);
	if (parser_gone(ctx))
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
				return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: mandatory flag '%s%s' is missing",
						 param_dashes(p), param_display_name(p));
	return DOCA_SUCCESS;
}

static doca_error_t check_singular(const struct parse_ctx *ctx)
{
	for (const struct doca_argp_cmd *c = ctx->cmd; c != NULL; c = c->parent)
		for (const struct doca_argp_param *p = c->params; p != NULL; p = p->next)
			if (p->singular && p->seen > 0 && ctx->program_flags > 1)
				return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
						 "doca_argp_start: flag '%s%s' must be the only program flag given",
						 param_dashes(p), param_display_name(p));
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

/* ---- JSON configuration files (-j/--json) ---- */

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
		return ARGP_RULE(DOCA_ERROR_IO_FAILED, "doca_argp_start: JSON file '%s' is not a regular file of at most %u bytes",
				 path, JSON_FILE_MAX);
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
		argp_say(DOCA_LOG_LEVEL_WARNING, "doca_argp_start: JSON file '%s': ignoring key '%s' in %s: %s", path, key,
			 where, why);
		return DOCA_SUCCESS;
	}
	return ARGP_RULE(DOCA_ERROR_NOT_SUPPORTED,
			 "doca_argp_start: JSON file '%s': key '%s' in %s: %s (doca_argp_disable_pedantic_config_parsing "
			 "ignores such keys)", path, key, where, why);
}

static doca_error_t json_wrong_type(const char *shown, const char *wanted, const struct ferry_json *v)
{
	return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: flag '%s' (line %u) takes %s, not a JSON %s", shown,
			 v->line, wanted, ferry_json_type_name(v->type));
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
		return invoke_param(ctx, p, &int_value, shown);
	case DOCA_ARGP_TYPE_DOUBLE:
		return invoke_param(ctx, p, &double_value, shown);
	case DOCA_ARGP_TYPE_BOOLEAN:
		return invoke_param(ctx, p, &bool_value, shown);
	case DOCA_ARGP_TYPE_STRING:
		return invoke_param(ctx, p, v->string, shown);
	default:
		return call_device_param(ctx, p, v->string, shown);
	}
}

static doca_error_t json_apply_param(struct parse_ctx *ctx, struct doca_argp_param *p, const struct ferry_json *v)
{
	char shown[300];
	doca_error_t err = DOCA_SUCCESS;

	snprintf(shown, sizeof(shown), "--%s", p->long_name);
	if (p->seen > 0) {
		argp_say(DOCA_LOG_LEVEL_INFO, "doca_argp_start: flag '%s' is on the command line; its JSON value is ignored",
			 shown);
		return DOCA_SUCCESS;
	}
	if (v->type != FERRY_JSON_ARRAY)
		return json_apply_value(ctx, p, v, shown);
	if (!p->multiplicity)
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE,
				 "doca_argp_start: flag '%s' (line %u) takes one value; only flags with multiplicity take "
				 "an array", shown, v->line);
	for (const struct ferry_json *item = v->first; item != NULL && err == DOCA_SUCCESS; item = item->next)
		err = json_apply_value(ctx, p, item, shown);
	return err;
}

static doca_error_t json_apply_program_flags(struct parse_ctx *ctx, const struct ferry_json *flags)
{
	const char *where = "doca_program_flags";
	doca_error_t err = DOCA_SUCCESS;

	for (const struct ferry_json *m = flags->first; m != NULL && err == DOCA_SUCCESS; m = m->next) {
		struct doca_argp_param *p = lookup_param(ctx->cmd, m->key, true);

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
		argp_say(DOCA_LOG_LEVEL_INFO, "doca_argp_start: flag '%s' is on the command line; its JSON value is ignored",
			 shown);
		return DOCA_SUCCESS;
	}
	if (v->type == FERRY_JSON_STRING)
		return set_level_flag(v->string, shown, sdk);
	if (v->type != FERRY_JSON_INT)
		return json_wrong_type(shown, "a log level (a number or a name)", v);
	snprintf(number, sizeof(number), "%lld", (long long)v->integer);
	return set_level_flag(number, shown, sdk);
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
			return ARGP_RULE(DOCA_ERROR_NOT_SUPPORTED,
					 "doca_argp_start: JSON file '%s': doca_dpdk_flags are not supported by Ferry (no "
					 "DPDK); pass DPDK flags on the command line before '--'", ctx->json_path);
		return json_unknown_key(ctx->json_path, "the top-level object", section->key,
					"expected doca_general_flags or doca_program_flags");
	}
	if (section->type != FERRY_JSON_OBJECT)
		return ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: JSON file '%s': %s (line %u) must be an object, "
				 "not a %s", ctx->json_path, section->key, section->line, ferry_json_type_name(section->type));
	return general ? json_apply_general_flags(ctx, section) : json_apply_program_flags(ctx, section);
}

static doca_error_t apply_json_file(struct parse_ctx *ctx)
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
		err = ARGP_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: JSON file '%s' must hold one object, not a %s",
				ctx->json_path, ferry_json_type_name(root->type));
	for (const struct ferry_json *m = root->first; m != NULL && err == DOCA_SUCCESS && !parser_gone(ctx); m = m->next)
		err = json_apply_section(ctx, m);
	ferry_json_free(root);
	return err;
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
		sub = cmd_find_child(ctx->cmd, word);
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

	if (require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	if (argc < 1 || argv == NULL || argv[0] == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "doca_argp_start: argc %d / argv %p hold no program name", argc,
				  (void *)argv);
	if (argp.program_name == NULL && replace_string(&argp.program_name, base_name(argv[0]), __func__) != DOCA_SUCCESS)
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
		err = apply_json_file(&ctx);
	if (err == DOCA_SUCCESS)
		err = check_mandatory(&ctx);
	if (err == DOCA_SUCCESS)
		err = check_singular(&ctx);
	if (err == DOCA_SUCCESS && argp.validation_cb != NULL) {
		err = argp.validation_cb(argp.config);
		if (parser_gone(&ctx))
			return err != DOCA_SUCCESS ? err : DOCA_ERROR_BAD_STATE;
		if (err != DOCA_SUCCESS)
			return ARGP_RULE(err, "doca_argp_start: the program's validation callback failed: %s",
					 doca_error_get_descr(err));
	}
	if (err != DOCA_SUCCESS && !parser_gone(&ctx))
		print_usage(stderr);
	return err;
}
