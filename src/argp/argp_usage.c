/* SPDX-License-Identifier: BSD-3-Clause */
/* argp_usage.c - the help text: built-in flags, the program's flags, its command tree. */
#include <stdbool.h>
#include <stdio.h>

#include <doca_argp.h>

#include "argp/argp_priv.h"

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
	fprintf(out, "  %-36s %s%s\n", names, description != NULL ? description : "", mandatory ? " (required)" : "");
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

void argp_print_usage(FILE *out)
{
	const char *name = argp.program_name != NULL ? argp.program_name : "program";

	fprintf(out, "Usage: %s%s [DOCA Flags] [Program Flags]\n\nDOCA Flags:\n", name,
		argp.root.cmds != NULL ? " [command ...]" : "");
	for (size_t i = 0; i < argp_nb_builtins; i++)
		print_flag_line(out, argp_builtins[i].short_name, argp_builtins[i].long_name,
				argp_builtins[i].arguments, argp_builtins[i].description, false);
	fprintf(out, "\nProgram Flags:\n");
	print_cmd_flags(out, &argp.root);
	print_cmd_tree(out, &argp.root, 0);
	fflush(out);
}

void doca_argp_usage(void)
{
	if (argp_require_initialized(__func__) != DOCA_SUCCESS)
		return;
	argp_print_usage(stdout);
}
