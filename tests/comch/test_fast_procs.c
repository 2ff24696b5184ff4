/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fast_procs.c - the Comch fast path across processes: fast_peer runs as
 * the DPU-side server and as the host-side client, one of them a producer and
 * the other a consumer, in both directions, with ordinary (cross-memory attach)
 * and shareable (shared mapping) consumer memory; every message of pseudo-random
 * size is checked byte for byte with its immediate data. Then the unhappy paths:
 * no posted buffer yet, the consumer going away while the producer sends, and a
 * peer killed mid-stream. Each run has its own FERRY_DOMAIN and a time limit.
 * The harness below is the one of test_comch_procs.c (FAST_PEER names the peer).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

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
	snprintf(g_domain, sizeof(g_domain), "comch-fast-%d-%u", (int)getpid(), ++g_run);
}

static void spawn(struct child *c, const char *const *args, const char *const *extra_env)
{
	int out[2];
	const char *peer = getenv("FAST_PEER");

	assert_non_null(peer);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	snprintf(c->err_path, sizeof(c->err_path), "/tmp/comch-fast-%d-%u-XXXXXX", (int)getpid(), g_run);
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

static void forget(struct child *c)
{
	unlink(c->err_path);
}

/* ---- tests ---- */

/* One transfer of @p n messages from @p sender's side to the other; both must finish cleanly. */
static void transfer(const char *sender, const char *n, const char *max, bool shared)
{
	const char *receiver = strcmp(sender, "server") == 0 ? "client" : "server";
	const char *rargs[] = {receiver, "fast", "recv", n, "--max", max, "--seed", "7", shared ? "--shared" : NULL, NULL};
	const char *sargs[] = {sender, "fast", "send", n, "--max", max, "--seed", "7", NULL};
	struct child s, r;
	char want[64];

	new_domain();
	spawn(&r, rargs, NULL);
	spawn(&s, sargs, NULL);
	assert_int_equal(wait_exit(&s, CHILD_LIMIT_MS), 0);
	assert_int_equal(wait_exit(&r, CHILD_LIMIT_MS), 0);
	snprintf(want, sizeof(want), "sent %s", n);
	assert_non_null(strstr(s.seen, "new-consumer"));
	assert_non_null(strstr(s.seen, want));
	assert_non_null(strstr(s.seen, "expired")); /* the consumer went away after the last message */
	snprintf(want, sizeof(want), "received %s", n);
	assert_non_null(strstr(r.seen, want));
	forget(&s);
	forget(&r);
}

static void test_host_to_dpu(void **state)
{
	(void)state;
	transfer("client", "300", "65536", false);
}

static void test_dpu_to_host(void **state)
{
	(void)state;
	transfer("server", "300", "65536", false);
}

static void test_host_to_dpu_shared(void **state)
{
	(void)state;
	transfer("client", "300", "65536", true);
}

static void test_dpu_to_host_shared(void **state)
{
	(void)state;
	transfer("server", "300", "65536", true);
}

static void test_large_and_tiny(void **state)
{
	(void)state;
	transfer("client", "20", "4194304", false); /* up to 4 MiB through process_vm_writev */
	transfer("server", "50", "1", true);        /* one byte each */
}

/* The consumer posts late: sends submitted before that wait, none is lost. */
static void test_no_posted_buffer_yet(void **state)
{
	const char *rargs[] = {"server", "fast", "recv", "40", "--max", "4096", "--post-delay-ms", "300", NULL};
	const char *sargs[] = {"client", "fast", "send", "40", "--max", "4096", NULL};
	struct child s, r;

	(void)state;
	new_domain();
	spawn(&r, rargs, NULL);
	spawn(&s, sargs, NULL);
	assert_int_equal(wait_exit(&s, CHILD_LIMIT_MS), 0);
	assert_int_equal(wait_exit(&r, CHILD_LIMIT_MS), 0);
	assert_non_null(strstr(r.seen, "received 40"));
	forget(&s);
	forget(&r);
}

/* The consumer leaves after 10 of 100: the waiting send fails, the producer sees it expire. */
static void test_consumer_gone_while_sending(void **state)
{
	const char *rargs[] = {"server", "fast", "recv", "100", "--max", "4096", "--stop-after", "10", NULL};
	const char *sargs[] = {"client", "fast", "send", "100", "--max", "4096", NULL};
	struct child s, r;

	(void)state;
	new_domain();
	spawn(&r, rargs, NULL);
	spawn(&s, sargs, NULL);
	assert_int_equal(wait_exit(&s, CHILD_LIMIT_MS), 6);
	assert_int_equal(wait_exit(&r, CHILD_LIMIT_MS), 0);
	assert_non_null(strstr(r.seen, "received 10"));
	assert_non_null(strstr(s.seen, "send-failed"));
	assert_non_null(strstr(s.seen, "expired"));
	assert_true(stderr_has(&s, "NOT_FOUND"));
	forget(&s);
	forget(&r);
}

/* A peer SIGKILLed mid-stream: the other side's tasks fail and it exits on its own. */
static void killed(const char *victim_side, bool victim_sends)
{
	const char *other_side = strcmp(victim_side, "server") == 0 ? "client" : "server";
	const char *vargs[] = {victim_side, "fast", victim_sends ? "send" : "recv", "100000000", "--max", "65536", NULL};
	const char *oargs[] = {other_side, "fast", victim_sends ? "recv" : "send", "100000000", "--max", "65536", NULL};
	struct child v, o;

	new_domain();
	spawn(&v, vargs, NULL);
	spawn(&o, oargs, NULL);
	assert_true(wait_output(victim_sends ? &v : &o, "new-consumer", CHILD_LIMIT_MS));
	usleep(200 * 1000); /* let data flow */
	kill(v.pid, SIGKILL);
	assert_int_equal(wait_exit(&v, CHILD_LIMIT_MS), 128 + SIGKILL);
	assert_int_equal(wait_exit(&o, CHILD_LIMIT_MS), 3);
	forget(&v);
	forget(&o);
}

static void test_killed_consumer_side(void **state)
{
	(void)state;
	killed("server", false);
	killed("client", false);
}

static void test_killed_producer_side(void **state)
{
	(void)state;
	killed("client", true);
	killed("server", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_to_dpu),
		cmocka_unit_test(test_dpu_to_host),
		cmocka_unit_test(test_host_to_dpu_shared),
		cmocka_unit_test(test_dpu_to_host_shared),
		cmocka_unit_test(test_large_and_tiny),
		cmocka_unit_test(test_no_posted_buffer_yet),
		cmocka_unit_test(test_consumer_gone_while_sending),
		cmocka_unit_test(test_killed_consumer_side),
		cmocka_unit_test(test_killed_producer_side),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
