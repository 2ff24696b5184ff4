/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argp_param.c - flags and commands: their creation, setters and registration, and
 * the lookups of a flag or a subcommand by name.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <doca_argp.h>

#include "argp/argp_priv.h"
#include "common/ferry_log.h"

FERRY_LOG_MODULE("argp");

static bool str_eq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

const char *argp_param_display_name(const struct doca_argp_param *p)
{
	return p->long_name != NULL ? p->long_name : (p->short_name != NULL ? p->short_name : "?");
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
			  argp_param_display_name(param));
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

/* ---- params ---- */

doca_error_t doca_argp_param_create(struct doca_argp_param **param)
{
	FERRY_ARG_NOT_NULL(param);
	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	*param = calloc(1, sizeof(**param));
	if (*param == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for a param");
	return DOCA_SUCCESS;
}

doca_error_t doca_argp_param_destroy(struct doca_argp_param *param)
{
	FERRY_ARG_NOT_NULL(param);
	if (param->registered)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "param '%s' is registered; doca_argp_destroy frees it",
				  argp_param_display_name(param));
	argp_param_free(param);
	return DOCA_SUCCESS;
}

#define PARAM_SET_STRING(fn, field)                                     \
	void fn(struct doca_argp_param *param, const char *value)       \
	{                                                               \
		if (param_editable(param, #fn))                         \
			argp_replace_string(&param->field, value, #fn); \
	}

PARAM_SET_STRING(doca_argp_param_set_short_name, short_name)
PARAM_SET_STRING(doca_argp_param_set_long_name, long_name)
PARAM_SET_STRING(doca_argp_param_set_arguments, arguments)
PARAM_SET_STRING(doca_argp_param_set_description, description)

#define PARAM_SET_FLAG(fn, field)               \
	void fn(struct doca_argp_param *param)  \
	{                                       \
		if (param_editable(param, #fn)) \
			param->field = true;    \
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

const struct builtin *argp_builtin_by_name(const char *name, bool is_long)
{
	for (size_t i = 0; i < argp_nb_builtins; i++)
		if (str_eq(name, is_long ? argp_builtins[i].long_name : argp_builtins[i].short_name))
			return &argp_builtins[i];
	return NULL;
}

static struct doca_argp_param *cmd_find_param(const struct doca_argp_cmd *cmd, const char *name, bool is_long)
{
	for (struct doca_argp_param *p = cmd->params; p != NULL; p = p->next)
		if (str_eq(name, is_long ? p->long_name : p->short_name))
			return p;
	return NULL;
}

/* A flag of @p cmd, or an inherited flag of one of its ancestors. */
struct doca_argp_param *argp_lookup_param(const struct doca_argp_cmd *cmd, const char *name, bool is_long)
{
	struct doca_argp_param *p = cmd_find_param(cmd, name, is_long);

	for (const struct doca_argp_cmd *up = cmd->parent; p == NULL && up != NULL; up = up->parent) {
		p = cmd_find_param(up, name, is_long);
		if (p != NULL && !p->inherited)
			p = NULL;
	}
	return p;
}

/* A usable name: not empty, no leading dash, no '=' or blank that would break parsing. */
static bool name_well_formed(const char *name)
{
	return name[0] != '\0' && name[0] != '-' && strpbrk(name, "= \t") == NULL;
}

static doca_error_t check_param_name(const struct doca_argp_cmd *cmd, const char *name, bool is_long, const char *call)
{
	if (name == NULL)
		return DOCA_SUCCESS;
	if (!name_well_formed(name))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "name '%s' is empty, starts with '-' or holds '=' or a blank", name);
	if (argp_builtin_by_name(name, is_long) != NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "'%s%s' is a built-in flag of doca_argp",
				     is_long ? "--" : "-", name);
	if (cmd_find_param(cmd, name, is_long) != NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "'%s%s' is already registered",
				     is_long ? "--" : "-", name);
	return DOCA_SUCCESS;
}

static doca_error_t check_param_complete(const struct doca_argp_param *p, const char *call)
{
	if (p->short_name == NULL && p->long_name == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "param has neither a short nor a long name");
	if (p->description == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "param '%s' has no description",
				     argp_param_display_name(p));
	if (p->callback == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "param '%s' has no callback",
				     argp_param_display_name(p));
	if (p->type <= DOCA_ARGP_TYPE_UNKNOWN || p->type > DOCA_ARGP_TYPE_DOUBLE)
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "param '%s' has no valid type (%d)",
				     argp_param_display_name(p), (int)p->type);
	return DOCA_SUCCESS;
}

static doca_error_t cmd_add_param(struct doca_argp_cmd *cmd, struct doca_argp_param *param, const char *call)
{
	doca_error_t err;
	struct doca_argp_param **tail;

	if (param == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "param is NULL");
	if (param->registered)
		/* Not ours to free: it already belongs to a command. */
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "param '%s' is already registered",
				     argp_param_display_name(param));
	err = check_param_complete(param, call);
	if (err == DOCA_SUCCESS)
		err = check_param_name(cmd, param->short_name, false, call);
	if (err == DOCA_SUCCESS)
		err = check_param_name(cmd, param->long_name, true, call);
	if (err != DOCA_SUCCESS) {
		argp_param_free(param); /* the parser owns the param in every outcome */
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
			argp_param_free(input_param);
		return argp_require_initialized(__func__);
	}
	return cmd_add_param(&argp.root, input_param, __func__);
}

/* ---- commands ---- */

doca_error_t doca_argp_cmd_create(struct doca_argp_cmd **cmd)
{
	FERRY_ARG_NOT_NULL(cmd);
	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return DOCA_ERROR_BAD_STATE;
	*cmd = calloc(1, sizeof(**cmd));
	if (*cmd == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for a cmd");
	return DOCA_SUCCESS;
}

static void cmd_free(struct doca_argp_cmd *cmd)
{
	argp_cmd_free_children(cmd);
	free(cmd->name);
	free(cmd->description);
	free(cmd);
}

doca_error_t doca_argp_cmd_destroy(struct doca_argp_cmd *cmd)
{
	FERRY_ARG_NOT_NULL(cmd);
	if (cmd->registered)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "cmd '%s' is registered", cmd->name != NULL ? cmd->name : "?");
	cmd_free(cmd);
	return DOCA_SUCCESS;
}

void doca_argp_cmd_set_name(struct doca_argp_cmd *cmd, const char *name)
{
	if (cmd_editable(cmd, __func__))
		argp_replace_string(&cmd->name, name, __func__);
}

void doca_argp_cmd_set_description(struct doca_argp_cmd *cmd, const char *description)
{
	if (cmd_editable(cmd, __func__))
		argp_replace_string(&cmd->description, description, __func__);
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
			argp_param_free(input_param);
		FERRY_ARG_NOT_NULL(cmd);
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "cmd '%s' is registered; add its params before",
				  cmd->name != NULL ? cmd->name : "?");
	}
	return cmd_add_param(cmd, input_param, __func__);
}

struct doca_argp_cmd *argp_cmd_find_child(const struct doca_argp_cmd *cmd, const char *name)
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
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "cmd is NULL");
	if (child->registered)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "cmd '%s' is already registered",
				     child->name != NULL ? child->name : "?");
	if (child->name == NULL || child->description == NULL)
		err = FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "cmd '%s' needs a name and a description",
				    child->name != NULL ? child->name : "?");
	else if (!name_well_formed(child->name))
		err = FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				    "cmd name '%s' is empty, starts with '-' or has '='", child->name);
	else if (argp_cmd_find_child(parent, child->name) != NULL)
		err = FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "cmd '%s' is already registered here", child->name);
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
		return argp_require_initialized(__func__);
	}
	return cmd_add_cmd(&argp.root, input_cmd, __func__);
}

doca_error_t doca_argp_cmd_register_cmd(struct doca_argp_cmd *cmd, struct doca_argp_cmd *input_cmd)
{
	if (cmd == NULL || cmd->registered) {
		if (input_cmd != NULL && !input_cmd->registered)
			cmd_free(input_cmd);
		FERRY_ARG_NOT_NULL(cmd);
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "cmd '%s' is registered; add its subcommands before",
				  cmd->name != NULL ? cmd->name : "?");
	}
	return cmd_add_cmd(cmd, input_cmd, __func__);
}
