/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry - the command-line front end of Ferry: run the two sides of an
 * emulated host+DPU machine together (ferry run), show what devices and
 * capabilities a DOCA program sees (ferry caps), measure Ferry against its
 * peers (ferry bench).
 *
 * This file only picks the subcommand; each lives in its own file.
 */
#include <stdio.h>
#include <string.h>

#include <doca_version.h>

#include "ferry.h"

static const struct ferry_cmd cmds[] = {
	{"run", "launch the DPU and host sides of one emulated machine together", ferry_run_main},
	{"caps", "list devices, representors and each library's capabilities", ferry_caps_main},
	{"bench", "measure Ferry against its peer over sizes and depths: table, JSON, plots", ferry_bench_main},
};

static void print_help(FILE *out)
{
	fprintf(out, "NAME\n"
		     "    ferry - drive Ferry, the DOCA SDK for machines without a BlueField DPU\n"
		     "\n"
		     "SYNOPSIS\n"
		     "    ferry COMMAND [OPTION]... [ARG]...\n"
		     "    ferry COMMAND --help\n"
		     "    ferry --help | --version\n"
		     "\n"
		     "DESCRIPTION\n"
		     "    Ferry runs DOCA programs on any Linux machine: the host side and the DPU\n"
		     "    side of a program are two processes of one emulated machine. This command\n"
		     "    gathers the tools for developing such programs.\n"
		     "\n"
		     "COMMANDS\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(out, "    %-8s%s\n", cmds[i].name, cmds[i].summary);
	fprintf(out, "\n"
		     "OPTIONS\n"
		     "    -h, --help     show this text and exit\n"
		     "    -V, --version  show Ferry's version and the DOCA API it follows, and exit\n"
		     "\n"
		     "EXIT STATUS\n"
		     "    0      success\n"
		     "    1      failure (ferry run: a DPU-side process failed; ferry bench: a bench\n"
		     "           program or gnuplot is missing or failed)\n"
		     "    2      usage error\n"
		     "    3      ferry run: a host-side process failed\n"
		     "    124    ferry run: the time limit expired\n"
		     "    125    ferry itself failed (pipes, processes, memory)\n"
		     "    128+N  ferry run, ferry bench: ferry got signal N and stopped everything\n"
		     "\n"
		     "EXAMPLES\n"
		     "    ferry run --dpu './server -p 03:00.0 -r b1:00.0' \\\n"
		     "              --host './client -p b1:00.0'\n"
		     "    ferry caps --json | python3 -m json.tool\n"
		     "    ferry bench dma --sizes 64,4K,1M --depths 1,8 --plot /tmp/dma\n"
		     "\n"
		     "SEE ALSO\n"
		     "    docs/ferry-command.md, docs/topology.md\n");
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;

	if (name == NULL) {
		fprintf(stderr, "ferry: missing command (see 'ferry --help')\n");
		return FERRY_EXIT_USAGE;
	}
	if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
		print_help(stdout);
		return FERRY_EXIT_OK;
	}
	if (strcmp(name, "-V") == 0 || strcmp(name, "--version") == 0) {
		printf("ferry %s (DOCA API %s)\n", FERRY_VERSION, doca_version_runtime());
		return FERRY_EXIT_OK;
	}
	/* "ferry help run" is "ferry run --help". */
	if (strcmp(name, "help") == 0) {
		if (argc == 2) {
			print_help(stdout);
			return FERRY_EXIT_OK;
		}
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
			if (strcmp(argv[2], cmds[i].name) == 0) {
				char *help_argv[] = {argv[2], "--help", NULL};
				return cmds[i].main(2, help_argv);
			}
		}
		fprintf(stderr, "ferry: no command '%s' (see 'ferry --help')\n", argv[2]);
		return FERRY_EXIT_USAGE;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(name, cmds[i].name) == 0)
			return cmds[i].main(argc - 1, argv + 1);
	if (name[0] == '-')
		fprintf(stderr, "ferry: unknown option '%s' (see 'ferry --help')\n", name);
	else
		fprintf(stderr, "ferry: no command '%s' (see 'ferry --help')\n", name);
	return FERRY_EXIT_USAGE;
}
