/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry.h - what the subcommands of the `ferry` command share (tools/ferry/).
 *
 * One source file per subcommand (run.c, caps.c, bench.c), each exporting one
 * entry point with main()'s signature; ferry.c picks it by name. Helpers for
 * option errors, numbers, colour and JSON text live in util.c. Every
 * subcommand answers with the exit codes below, which docs/ferry-command.md
 * and each --help list for scripts.
 */
#ifndef FERRY_TOOL_H_
#define FERRY_TOOL_H_

#include <stdbool.h>
#include <stdio.h>

/* Exit codes of every subcommand. */
enum ferry_exit {
	FERRY_EXIT_OK = 0,         /* success */
	FERRY_EXIT_FAIL = 1,       /* run: a DPU-side process failed first; caps: no devices could be listed;
				      bench: a bench program or gnuplot is missing or failed */
	FERRY_EXIT_USAGE = 2,      /* bad command line */
	FERRY_EXIT_HOST_FAIL = 3,  /* run: a host-side process failed first */
	FERRY_EXIT_TIMEOUT = 124,  /* run: --timeout expired */
	FERRY_EXIT_INTERNAL = 125, /* ferry itself failed (pipes, spawning, memory) */
	/* run: 128 + N when ferry got signal N (SIGINT, SIGTERM, SIGHUP) and stopped everything */
};

/** A subcommand: its name, one line for `ferry --help`, its entry point. */
struct ferry_cmd {
	const char *name;
	const char *summary;
	int (*main)(int argc, char **argv);
};

int ferry_run_main(int argc, char **argv);
int ferry_caps_main(int argc, char **argv);
int ferry_bench_main(int argc, char **argv);

/**
 * Report a usage error as one line on stderr ("ferry run: <message> (see
 * 'ferry run --help')") and return FERRY_EXIT_USAGE.
 */
int ferry_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * The usage error for what getopt_long returned ('?' or ':'), naming the
 * offending option; returns FERRY_EXIT_USAGE.
 */
int ferry_getopt_error(const char *cmd, int ret, char **argv);

/** Parse a duration in seconds ("2", "0.5"; no sign, at most a day); false if not one. */
bool ferry_parse_seconds(const char *text, double *seconds);

/** Whether colour goes to @p fd: @p mode "auto" (a terminal, NO_COLOR unset, TERM not dumb), "always" or "never". */
bool ferry_use_colour(const char *mode, int fd);

/** Write @p s as a JSON string (quotes and escapes included). */
void ferry_json_string(FILE *out, const char *s);

/** Monotonic time in seconds. */
double ferry_now(void);

#endif /* FERRY_TOOL_H_ */
