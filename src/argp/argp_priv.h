/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argp_priv.h - what the files of doca_argp share: the parser's objects and its one
 * process-wide state, the built-in flags, the parse context, and the calls one file
 * makes into another. The calls point one way (argp.c at the bottom, argp_parse.c at
 * the top): see docs/architecture.md.
 */
#ifndef FERRY_ARGP_PRIV_H
#define FERRY_ARGP_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <doca_argp.h>
#include <doca_error.h>
#include <doca_log.h>

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

/* The one parser of the process (argp.c); hidden from the library's users. */
extern struct argp_state argp;

enum builtin_flag {
	BUILTIN_NONE,
	BUILTIN_HELP,
	BUILTIN_VERSION,
	BUILTIN_LOG_LEVEL,
	BUILTIN_SDK_LOG_LEVEL,
	BUILTIN_JSON,
};

struct builtin {
	enum builtin_flag id;
	const char *short_name;
	const char *long_name;
	const char *arguments;
	const char *description;
};

extern const struct builtin argp_builtins[];
extern const size_t argp_nb_builtins;

struct parse_ctx {
	int argc;
	char **argv;
	int idx;                    /* next word to read */
	struct doca_argp_cmd *cmd;  /* the deepest command selected so far */
	unsigned int generation;    /* argp.generation when the parse began */
	unsigned int program_flags; /* program flags seen, for singular flags */
	const char *json_path;      /* the -j/--json file, read once the command line is parsed */
	bool log_level_on_cli;      /* the command line wins over the JSON file */
	bool sdk_log_level_on_cli;
};

/* argp.c: messages, helpers, life cycle */

/* One user-facing line: to the program's logger callback when it set one, else the SDK log. */
void __attribute__((format(printf, 2, 3))) argp_say(enum doca_log_level level, const char *fmt, ...);

#define ARGP_RULE(err, ...) (argp_say(DOCA_LOG_LEVEL_ERROR, __VA_ARGS__), (err))

doca_error_t argp_replace_string(char **slot, const char *value, const char *call);
void argp_param_free(struct doca_argp_param *p);
void argp_cmd_free_children(struct doca_argp_cmd *cmd);
doca_error_t argp_require_initialized(const char *call);

/* argp_param.c: flags and commands, lookups by name */
const char *argp_param_display_name(const struct doca_argp_param *p);
const struct builtin *argp_builtin_by_name(const char *name, bool is_long);
/* A flag of @p cmd, or an inherited flag of one of its ancestors. */
struct doca_argp_param *argp_lookup_param(const struct doca_argp_cmd *cmd, const char *name, bool is_long);
struct doca_argp_cmd *argp_cmd_find_child(const struct doca_argp_cmd *cmd, const char *name);

/* argp_usage.c */
void argp_print_usage(FILE *out);

/* argp_ctx.c: what every flag handler shares */
bool argp_parser_gone(const struct parse_ctx *ctx);
doca_error_t argp_take_value(struct parse_ctx *ctx, const char *inline_value, const char *shown, const char **value);
doca_error_t argp_invoke_param(struct parse_ctx *ctx, struct doca_argp_param *p, void *arg, const char *shown);

/* argp_device.c: DEVICE and DEVICE_REP flags */
doca_error_t argp_call_device_param(struct parse_ctx *ctx, struct doca_argp_param *p, const char *value,
				    const char *shown);

/* argp_builtin.c: the built-in flags */
doca_error_t argp_set_level_flag(const char *value, const char *shown, bool sdk);
doca_error_t argp_handle_builtin(struct parse_ctx *ctx, const struct builtin *b, const char *inline_value,
				 const char *shown);

/* argp_json.c: the -j/--json file */
doca_error_t argp_apply_json_file(struct parse_ctx *ctx);

#endif /* FERRY_ARGP_PRIV_H */
