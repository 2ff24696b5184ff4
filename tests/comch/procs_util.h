/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * procs_util.h - the harness of the Comch process tests: fork and exec a peer
 * program (named by the environment variable PROCS_PEER_ENV) with its own
 * FERRY_DOMAIN, read its stdout line by line, wait for it under a time limit
 * (a hung child is killed and fails the test, never the run) and look into its
 * stderr. Included by one test program each (static functions, one copy per
 * program); the includer defines PROCS_PEER_ENV and PROCS_TAG (the prefix of
 * domain and stderr file names) and includes cmocka first.
 */
#ifndef FERRY_TESTS_COMCH_PROCS_UTIL_H
#define FERRY_TESTS_COMCH_PROCS_UTIL_H

#if !defined(PROCS_PEER_ENV) || !defined(PROCS_TAG)
#error "define PROCS_PEER_ENV and PROCS_TAG before including procs_util.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHILD_LIMIT_MS 20000

struct child {
	pid_t pid;
	int out;           /* the child's stdout */
	char err_path[64]; /* the child's stderr, in a file */
	char seen[4096];   /* stdout read so far */
	size_t seen_len;
};

static char g_domain[64];
static unsigned g_run;

static void new_domain(void)
{
	snprintf(g_domain, sizeof(g_domain), PROCS_TAG "-%d-%u", (int)getpid(), ++g_run);
}

static void spawn(struct child *c, const char *const *args, const char *const *extra_env)
{
	int out[2];
	const char *peer = getenv(PROCS_PEER_ENV);

	assert_non_null(peer);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	snprintf(c->err_path, sizeof(c->err_path), "/tmp/" PROCS_TAG "-%d-%u-XXXXXX", (int)getpid(), g_run);
	{
		int fd = mkstemp(c->err_path);

		assert_true(fd >= 0);
		close(fd);
	}
	c->seen_len = 0;
	c->seen[0] = '\0';
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		char *argv[16];
		int n = 0;
		int err = open(c->err_path, O_WRONLY | O_TRUNC);

		dup2(out[1], 1);
		if (err >= 0)
			dup2(err, 2);
		setenv("FERRY_DOMAIN", g_domain, 1);
		for (const char *const *e = extra_env; e != NULL && *e != NULL; e += 2)
			setenv(e[0], e[1], 1);
		argv[n++] = (char *)(uintptr_t)peer;
		for (const char *const *a = args; *a != NULL && n < 15; a++)
			argv[n++] = (char *)(uintptr_t)*a;
		argv[n] = NULL;
		execv(peer, argv);
		_exit(127);
	}
	close(out[1]);
	c->out = out[0];
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until the child printed a line containing @p word; false on EOF or timeout. */
static bool wait_output(struct child *c, const char *word, int timeout_ms)
{
	long end = now_ms() + timeout_ms;

	while (strstr(c->seen, word) == NULL) {
		struct pollfd p = {.fd = c->out, .events = POLLIN};
		long left = end - now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)left) <= 0)
			return false;
		n = read(c->out, c->seen + c->seen_len, sizeof(c->seen) - 1 - c->seen_len);
		if (n <= 0)
			return false;
		c->seen_len += (size_t)n;
		c->seen[c->seen_len] = '\0';
	}
	return true;
}

/* Read what an exited child left in the pipe (read returns 0 at EOF). */
static void drain(struct child *c)
{
	ssize_t n;

	while (c->seen_len < sizeof(c->seen) - 1 &&
	       (n = read(c->out, c->seen + c->seen_len, sizeof(c->seen) - 1 - c->seen_len)) > 0)
		c->seen_len += (size_t)n;
	c->seen[c->seen_len] = '\0';
}

/* The child's exit code; kills it and returns -1 after @p timeout_ms. */
static int wait_exit(struct child *c, int timeout_ms)
{
	long end = now_ms() + timeout_ms;
	int status = 0;

	for (;;) {
		pid_t r = waitpid(c->pid, &status, WNOHANG);

		if (r == c->pid)
			break;
		if (now_ms() > end) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &status, 0);
			close(c->out);
			return -1;
		}
		usleep(2000);
	}
	drain(c);
	close(c->out);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static bool stderr_has(const struct child *c, const char *needle)
{
	char buf[16384];
	FILE *f = fopen(c->err_path, "r");
	size_t n;

	if (f == NULL)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strstr(buf, needle) != NULL;
}

/* Remove the child's stderr file once the test has read it. */
static void forget(struct child *c)
{
	unlink(c->err_path);
}

#endif /* FERRY_TESTS_COMCH_PROCS_UTIL_H */
