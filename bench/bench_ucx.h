/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_ucx.h - UCX's ucx_perftest (Debian package ucx-utils) as a peer in a
 * bench's own run: a server child and a client child on one loopback port,
 * the client's "Final:" line parsed. Benches call bench_ucx_find once, then
 * bench_ucx_run per figure.
 *
 * UCX_TLS is set to sm,self (shared memory) unless the caller's environment
 * already names transports. With pin, the client runs on CPU 0 and the server
 * on CPU 1 (ucx_perftest -c), as the Ferry benches pin their two processes.
 * Both children get SIGKILL when the bench dies (PR_SET_PDEATHSIG) and are
 * killed by pid and reaped before bench_ucx_run returns, on every path.
 *
 * The port is one the kernel hands out for 127.0.0.1 (a bind test); the client
 * connects to 127.0.0.1. ucx_perftest 1.13 has no option to bind its server to
 * one address, so the server listens on every interface for the few seconds
 * of one test.
 *
 * ucx_perftest's figures (src/tools/perf/lib/libperf.c): latency tests report
 * one-way times (round trip / 2); the 50th percentile is taken over the last
 * 2048 iterations, the "overall" average over the whole run. Bandwidth tests
 * report messages/s over the whole run ("overall").
 */
#ifndef FERRY_BENCH_UCX_H_
#define FERRY_BENCH_UCX_H_

#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

/* One ucx_perftest figure. */
struct bench_ucx {
	uint64_t iters;
	double median_us; /* latency tests: one-way, 50th percentile of the last 2048 iterations */
	double mean_us;   /* latency tests: one-way over the whole run; bandwidth tests: time per message */
	double rate;      /* messages/s over the whole run */
};

/* ucx_perftest's path (searched on PATH) into @p path; false when it is not there. */
static inline bool bench_ucx_find(char *path, size_t len)
{
	const char *dirs = getenv("PATH");

	while (dirs != NULL && *dirs != '\0') {
		const char *end = strchr(dirs, ':');
		size_t n = end != NULL ? (size_t)(end - dirs) : strlen(dirs);

		if (n > 0 && (size_t)snprintf(path, len, "%.*s/ucx_perftest", (int)n, dirs) < len &&
		    access(path, X_OK) == 0)
			return true;
		dirs = end != NULL ? end + 1 : NULL;
	}
	return false;
}

/* A TCP port of 127.0.0.1 that nobody holds now (the kernel's choice for a bind to port 0); 0 when none. */
static inline int bench_free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int port = 0;

	if (fd < 0)
		return 0;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(fd, (struct sockaddr *)&a, &alen) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

/*
 * Fork and exec @p argv with stdout and stderr on @p out_fd (/dev/null when
 * negative) and no other descriptor of ours. The child dies with us. Only
 * async-signal-safe calls between fork and exec: the bench may have threads.
 */
static inline pid_t bench_spawn(char *const argv[], int out_fd)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(127);
	if (out_fd < 0)
		out_fd = open("/dev/null", O_WRONLY);
	if (out_fd < 0 || dup2(out_fd, STDOUT_FILENO) < 0 || dup2(out_fd, STDERR_FILENO) < 0)
		_exit(127);
	close_range(3, ~0u, 0);
	execv(argv[0], argv);
	_exit(127);
}

/* Kill @p pid (if it is still there) and reap it. */
static inline void bench_reap(pid_t pid, double grace_s)
{
	double t0 = now_s();

	if (pid <= 0)
		return;
	while (waitpid(pid, NULL, WNOHANG) == 0) {
		if (now_s() - t0 >= grace_s) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return;
		}
		usleep(1000);
	}
}

/* Whether a TCP socket listens on @p port (any address; IPv4 or IPv6 table of @p pid's network namespace). */
static inline bool bench_port_listening(int port, pid_t pid)
{
	static const char *const tables[] = {"tcp", "tcp6"};
	char line[512];

	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		char path[64];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/net/%s", (int)pid, tables[t]);
		f = fopen(path, "re");

		if (f == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL) {
			char local[80];
			unsigned lport, st;

			/* "  sl  local_address rem_address st ...": local is HEXADDR:HEXPORT, st 0A is LISTEN */
			if (sscanf(line, " %*[0-9]: %79s %*s %x", local, &st) == 2 && strchr(local, ':') != NULL &&
			    sscanf(strrchr(local, ':') + 1, "%x", &lport) == 1 && lport == (unsigned)port &&
			    st == 0x0a) {
				fclose(f);
				return true;
			}
		}
		fclose(f);
	}
	return false;
}

/*
 * Run one ucx_perftest test (@p test, e.g. "ucp_am_bw" or "ucp_am_lat") of
 * @p size bytes for @p iters iterations: a server child and a client child.
 * True with @p out filled; false with a reason in @p why.
 */
static inline bool bench_ucx_run(const char *exe, const char *test, uint32_t size, uint64_t iters, bool pin,
				 struct bench_ucx *out, char *why, size_t why_len)
{
	static char exe_s[4096], text[65536];
	char port_s[16], size_s[16], iters_s[24], test_s[32];
	char *srv_argv[] = {exe_s, "-p", port_s, "-c", "1", NULL};
	static char peer_s[64];
	char *cli_argv[] = {exe_s, peer_s, "-p", port_s, "-t", test_s, "-s", size_s, "-n", iters_s, "-c", "0", NULL};
	/*
	 * Between network namespaces (rdma_bench with FERRY_BENCH_NETNS): the server
	 * runs in FERRY_BENCH_UCX_SERVER_NETNS, the client dials FERRY_BENCH_PEER_ADDR.
	 */
	const char *srv_ns = getenv("FERRY_BENCH_UCX_SERVER_NETNS");
	const char *peer = getenv("FERRY_BENCH_PEER_ADDR");
	static char ns_s[128];
	char *ns_argv[] = {"/usr/sbin/ip", "netns", "exec", ns_s, exe_s, "-p", port_s, "-c", "1", NULL};
	size_t used = 0;
	pid_t srv = -1, cli = -1;
	int port = bench_free_port();
	int pipefd[2] = {-1, -1};
	double t0;
	bool ok = false;
	const char *final;

	memset(out, 0, sizeof(*out));
	snprintf(why, why_len, "no free port");
	if (port == 0)
		return false;
	if ((size_t)snprintf(exe_s, sizeof(exe_s), "%s", exe) >= sizeof(exe_s) ||
	    (size_t)snprintf(test_s, sizeof(test_s), "%s", test) >= sizeof(test_s))
		return false;
	snprintf(port_s, sizeof(port_s), "%d", port);
	snprintf(size_s, sizeof(size_s), "%" PRIu32, size);
	snprintf(iters_s, sizeof(iters_s), "%" PRIu64, iters);
	if (!pin) {
		srv_argv[3] = NULL;
		cli_argv[10] = NULL;
	}
	setenv("UCX_TLS", "sm,self", 0); /* the caller's choice wins */
	snprintf(peer_s, sizeof(peer_s), "%s", peer != NULL && *peer != '\0' ? peer : "127.0.0.1");
	if (srv_ns != NULL && *srv_ns != '\0') {
		/* ip netns exec: the namespace and its own /sys, where UCX looks for interfaces. */
		snprintf(ns_s, sizeof(ns_s), "%s", srv_ns);
		if (!pin)
			ns_argv[7] = NULL;
		srv = bench_spawn(ns_argv, -1);
	} else {
		srv = bench_spawn(srv_argv, -1);
	}
	for (t0 = now_s(); srv > 0 && !bench_port_listening(port, srv); usleep(2000)) {
		if (now_s() - t0 > 10 || waitpid(srv, NULL, WNOHANG) != 0) {
			snprintf(why, why_len, "ucx_perftest server did not listen on port %d", port);
			goto out;
		}
	}
	if (srv < 0 || pipe2(pipefd, O_CLOEXEC) != 0)
		goto out;
	cli = bench_spawn(cli_argv, pipefd[1]);
	close(pipefd[1]);
	pipefd[1] = -1;
	if (cli < 0)
		goto out;
	/* read everything the client prints, for at most 120 s */
	for (t0 = now_s();;) {
		struct pollfd p = {.fd = pipefd[0], .events = POLLIN};
		ssize_t n;

		if (now_s() - t0 > 120) {
			snprintf(why, why_len, "ucx_perftest client ran over 120 s");
			goto out;
		}
		if (poll(&p, 1, 1000) <= 0)
			continue;
		n = read(pipefd[0], text + used, sizeof(text) - 1 - used);
		if (n <= 0)
			break;
		used += (size_t)n;
		if (used == sizeof(text) - 1)
			break;
	}
	text[used] = '\0';
	final = strstr(text, "Final:");
	/* Final: iterations, 50%ile, average, overall (us); MB/s average, overall; msg/s average, overall */
	if (final != NULL && sscanf(final + 6, "%" SCNu64 " %lf %*f %lf %*f %*f %*f %lf", &out->iters, &out->median_us,
				    &out->mean_us, &out->rate) == 4) {
		ok = true;
	} else {
		const char *end = text + used, *last;

		while (end > text && (end[-1] == '\n' || end[-1] == ' '))
			end--;
		for (last = end; last > text && last[-1] != '\n';)
			last--;
		snprintf(why, why_len, "no result from ucx_perftest -t %s: %.*s", test,
			 (int)(end - last < 200 ? end - last : 200), last);
	}
out:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	bench_reap(cli, ok ? 10 : 0);
	bench_reap(srv, ok ? 2 : 0); /* the server exits after one test */
	return ok;
}

#endif /* FERRY_BENCH_UCX_H_ */
