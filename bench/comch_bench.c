/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch_bench.c - DOCA Comch control path against a raw Unix SEQPACKET ping-pong,
 * in one run (a command, not a test):
 *
 *   build-<dir>/bench/comch_bench [--iters N] [--seconds S] [--window W] [--rounds R]
 *
 * For 64 B and maximum-size (4080 B) messages: the round-trip time (one message
 * out, its echo back, N times) and the message rate (W messages kept in flight,
 * echoed, for S seconds). The peer is a forked process on the same machine that
 * echoes every message; both sides busy-poll (doca_pe_progress, or recv with
 * MSG_DONTWAIT for the raw baseline), so the ratios compare the software paths.
 * Prints bench_util.h's rows (a table, or JSON lines with --json), case "msg":
 * lat_us is the one-way time (RTT / 2), the ratios Comch / raw. Targets
 * (issue 4): RTT <= 1.3x raw (lat ratio), rate >= 0.8x raw (ratio).
 *
 * A sweep (bench_util.h's --sizes, --depths, --seconds, --json; `ferry bench
 * comch`): each size (1..4080) at each depth (the rate run's window), rows of
 * case "msg": one-way latency (round trip / 2, mean of the round trips) and
 * the rate, against the raw SEQPACKET echo ("seqpacket"). Round trips:
 * --iters, else 20000 per second of --seconds; rounds: --rounds, else 1.
 */
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>

#include "bench_util.h"
#include "ferry_test_dev.h"

#define BENCH_NAME "comch-bench"
#define MAX_SIZE   4080u

struct result {
	double rtt_us;
	double rate;
};

static void free_task(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

/* ---- Comch echo server (child) ---- */

static bool server_done;

static void server_echo(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
			struct doca_comch_connection *conn)
{
	struct doca_comch_task_send *task;

	(void)ev;
	if (doca_comch_server_task_send_alloc_init(doca_comch_server_get_server_ctx(conn), conn, buf, len, &task) ==
	    DOCA_SUCCESS)
		(void)doca_task_submit(doca_comch_task_send_as_task(task));
}

static void server_conn_cb(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			   uint8_t ok)
{
	(void)ev;
	(void)conn;
	(void)ok;
}

static void server_disc_cb(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			   uint8_t ok)
{
	(void)ev;
	(void)conn;
	(void)ok;
	server_done = true;
}

static int comch_server_main(int ready_fd)
{
	struct doca_pe *pe = NULL;
	struct doca_dev *dev = ferry_test_open_dev(NULL, doca_comch_cap_server_is_supported);
	struct doca_dev_rep *rep = dev != NULL ? ferry_test_open_rep(dev, NULL) : NULL;
	struct doca_comch_server *server = NULL;
	struct doca_ctx *ctx;

	if (rep == NULL || doca_pe_create(&pe) != DOCA_SUCCESS ||
	    doca_comch_server_create(dev, rep, BENCH_NAME, &server) != DOCA_SUCCESS)
		return 2;
	ctx = doca_comch_server_as_ctx(server);
	if (doca_comch_server_task_send_set_conf(server, free_task, free_task, 1024) != DOCA_SUCCESS ||
	    doca_comch_server_event_msg_recv_register(server, server_echo) != DOCA_SUCCESS ||
	    doca_comch_server_event_connection_status_changed_register(server, server_conn_cb, server_disc_cb) !=
		    DOCA_SUCCESS ||
	    doca_pe_connect_ctx(pe, ctx) != DOCA_SUCCESS || doca_ctx_start(ctx) != DOCA_SUCCESS)
		return 2;
	if (write(ready_fd, "r", 1) != 1)
		return 2;
	while (!server_done)
		doca_pe_progress(pe);
	return 0; /* the process ends; the bench measures, not teardown */
}

/* ---- Comch client (parent) ---- */

static struct {
	struct doca_pe *pe;
	struct doca_comch_client *client;
	struct doca_comch_connection *conn;
	uint8_t msg[MAX_SIZE];
	uint32_t size;
	uint64_t echoed, sent, target;
	uint32_t window;
} cc;

static void comch_send_one(void)
{
	struct doca_comch_task_send *task;

	if (doca_comch_client_task_send_alloc_init(cc.client, cc.conn, cc.msg, cc.size, &task) != DOCA_SUCCESS ||
	    doca_task_submit(doca_comch_task_send_as_task(task)) != DOCA_SUCCESS) {
		fprintf(stderr, "comch_bench: send failed\n");
		exit(1);
	}
	cc.sent++;
}

static void client_echo(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
			struct doca_comch_connection *conn)
{
	(void)ev;
	(void)buf;
	(void)len;
	(void)conn;
	cc.echoed++;
	if (cc.sent < cc.target)
		comch_send_one(); /* keeps the window full during the rate run */
}

static int comch_client_setup(void)
{
	struct doca_dev *dev = ferry_test_open_dev(NULL, doca_comch_cap_client_is_supported);
	struct doca_ctx *ctx;
	enum doca_ctx_states st = DOCA_CTX_STATE_STARTING;
	double deadline = now_s() + 5;

	if (dev == NULL || doca_pe_create(&cc.pe) != DOCA_SUCCESS ||
	    doca_comch_client_create(dev, BENCH_NAME, &cc.client) != DOCA_SUCCESS)
		return -1;
	ctx = doca_comch_client_as_ctx(cc.client);
	if (doca_comch_client_task_send_set_conf(cc.client, free_task, free_task, 1024) != DOCA_SUCCESS ||
	    doca_comch_client_event_msg_recv_register(cc.client, client_echo) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(cc.pe, ctx) != DOCA_SUCCESS || doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS)
		return -1;
	while (st != DOCA_CTX_STATE_RUNNING && now_s() < deadline) {
		doca_pe_progress(cc.pe);
		doca_ctx_get_state(ctx, &st);
	}
	if (st != DOCA_CTX_STATE_RUNNING)
		return -1;
	return doca_comch_client_get_connection(cc.client, &cc.conn) == DOCA_SUCCESS ? 0 : -1;
}

static struct result comch_measure(uint32_t size, uint64_t iters, double seconds, uint32_t window)
{
	struct result r;
	double t0;
	uint64_t start;

	cc.size = size;
	/* round trips, one at a time */
	cc.target = 0;
	t0 = now_s();
	for (uint64_t i = 0; i < iters; i++) {
		uint64_t want = cc.echoed + 1;

		comch_send_one();
		while (cc.echoed < want)
			doca_pe_progress(cc.pe);
	}
	r.rtt_us = (now_s() - t0) / (double)iters * 1e6;
	/* rate with a window in flight */
	cc.target = UINT64_MAX;
	start = cc.echoed;
	t0 = now_s();
	for (uint32_t i = 0; i < window; i++)
		comch_send_one();
	while (now_s() - t0 < seconds)
		for (int k = 0; k < 64; k++)
			doca_pe_progress(cc.pe);
	r.rate = (double)(cc.echoed - start) / (now_s() - t0);
	cc.target = 0; /* drain the window */
	while (cc.echoed < cc.sent)
		doca_pe_progress(cc.pe);
	return r;
}

/* ---- raw SEQPACKET ping-pong ---- */

static void raw_echo_main(int fd)
{
	static uint8_t buf[MAX_SIZE];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n == 0)
			_exit(0);
		if (n > 0 && send(fd, buf, (size_t)n, MSG_NOSIGNAL) < 0)
			_exit(0);
	}
}

static void raw_recv_one(int fd, uint8_t *buf)
{
	while (recv(fd, buf, MAX_SIZE, MSG_DONTWAIT) <= 0)
		;
}

static struct result raw_measure(int fd, uint32_t size, uint64_t iters, double seconds, uint32_t window)
{
	static uint8_t buf[MAX_SIZE];
	struct result r;
	uint64_t done = 0;
	double t0 = now_s();

	for (uint64_t i = 0; i < iters; i++) {
		(void)send(fd, buf, size, MSG_NOSIGNAL);
		raw_recv_one(fd, buf);
	}
	r.rtt_us = (now_s() - t0) / (double)iters * 1e6;
	for (uint32_t i = 0; i < window; i++)
		(void)send(fd, buf, size, MSG_NOSIGNAL);
	t0 = now_s();
	while (now_s() - t0 < seconds) {
		for (int k = 0; k < 64; k++) {
			raw_recv_one(fd, buf);
			done++;
			(void)send(fd, buf, size, MSG_NOSIGNAL);
		}
	}
	r.rate = (double)done / (now_s() - t0);
	for (uint32_t i = 0; i < window; i++)
		raw_recv_one(fd, buf);
	return r;
}

static void keep_best(struct result *best, struct result r)
{
	if (best->rtt_us == 0 || r.rtt_us < best->rtt_us)
		best->rtt_us = r.rtt_us;
	if (r.rate > best->rate)
		best->rate = r.rate;
}

static int usage(void)
{
	fprintf(stderr, "usage: comch_bench [--iters N] [--seconds S] [--window 1..512] [--rounds R]\n"
			"       comch_bench [--sizes LIST] [--depths LIST] [--seconds S] [--iters N] [--rounds R] "
			"[--json]\n");
	return 2;
}

static struct bench_row msg_row(const char *side, struct result r, uint32_t size, uint64_t iters)
{
	struct bench_row row = bench_row_none(side);

	row.lat_us = r.rtt_us / 2;
	row.mops = r.rate / 1e6;
	row.gb_per_s = r.rate * size / 1e9;
	row.iters = iters;
	return row;
}

/* The sweep: each size at each window, Comch then the raw echo, each with the other stopped; best of @p rounds. */
static void sweep(const struct bench_sweep *sw, pid_t server, pid_t echo, int fd, uint64_t iters, double seconds,
		  uint32_t rounds)
{
	bench_rows_header(sw->json);
	for (unsigned i = 0; i < sw->n_sizes; i++) {
		for (unsigned d = 0; d < sw->n_depths; d++) {
			uint32_t size = (uint32_t)sw->sizes[i], window = (uint32_t)sw->depths[d];
			struct result comch = {0, 0}, raw = {0, 0};
			struct bench_row f, p;

			for (uint32_t r = 0; r < rounds; r++) {
				kill(echo, SIGSTOP);
				kill(server, SIGCONT);
				keep_best(&comch, comch_measure(size, iters, seconds, window));
				kill(server, SIGSTOP);
				kill(echo, SIGCONT);
				keep_best(&raw, raw_measure(fd, size, iters, seconds, window));
			}
			f = msg_row("ferry", comch, size, iters);
			p = msg_row("seqpacket", raw, size, iters);
			bench_rows_emit(sw->json, "comch", "msg", size, window, &f, &p);
		}
	}
}

int main(int argc, char **argv)
{
	uint64_t iters = 20000;
	double seconds = 1.0;
	uint32_t window = 32, rounds = 5;
	bool iters_set = false, rounds_set = false;
	struct bench_sweep sw = {0};
	char domain[64];
	int ready[2], sv[2];
	pid_t server, echo;
	char c;

	for (int i = 1; i < argc; i++) {
		int r = bench_sweep_arg("comch_bench", argc, argv, &i, &sw, MAX_SIZE, 512);

		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (i + 1 >= argc)
			return usage();
		if (strcmp(argv[i], "--iters") == 0) {
			iters = strtoull(argv[++i], NULL, 0);
			iters_set = true;
		} else if (strcmp(argv[i], "--window") == 0) {
			window = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (strcmp(argv[i], "--rounds") == 0) {
			rounds = (uint32_t)strtoul(argv[++i], NULL, 0);
			rounds_set = true;
		} else {
			return usage();
		}
	}
	if (sw.seconds > 0)
		seconds = sw.seconds;
	/* The default run is the sweep of 64 B and the largest message at the window, best of 5 rounds. */
	if (!bench_sweeping(&sw)) {
		sw.sizes[0] = 64;
		sw.sizes[1] = MAX_SIZE;
		sw.n_sizes = 2;
	} else {
		if (!iters_set)
			iters = (uint64_t)(seconds * 20000) + 100;
		if (!rounds_set)
			rounds = 1;
	}
	bench_sweep_defaults(&sw, 64, window, seconds);
	if (iters == 0 || window == 0 || window > 512 || seconds <= 0 || rounds == 0)
		return usage();
	pin_to(0);
	snprintf(domain, sizeof(domain), "comch-bench-%d", (int)getpid());
	setenv("FERRY_DOMAIN", domain, 1);

	/* Both peers stay up; the one not being measured is stopped (SIGSTOP) so it
	 * does not take the CPU from the other. Rounds alternate and keep the best
	 * figure of each, so a burst of load elsewhere on the machine hurts neither side. */
	if (pipe(ready) != 0 || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
		return 1;
	server = fork();
	if (server == 0) {
		pin_to(1);
		close(ready[0]);
		close(sv[0]);
		close(sv[1]);
		_exit(comch_server_main(ready[1]));
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1 || comch_client_setup() != 0) {
		fprintf(stderr, "comch_bench: cannot set up the Comch pair\n");
		kill(server, SIGKILL);
		return 1;
	}
	echo = fork();
	if (echo == 0) {
		pin_to(1);
		close(sv[0]);
		raw_echo_main(sv[1]);
	}
	close(sv[1]);
	memset(cc.msg, 0x5a, sizeof(cc.msg));
	if (!sw.json)
		printf("Comch messages against a raw SEQPACKET echo: best of %u round%s; RTT: %lu round trips; rate: "
		       "the depth in flight for %.2f s\n",
		       rounds, rounds > 1 ? "s" : "", (unsigned long)iters, seconds);
	sweep(&sw, server, echo, sv[0], iters, seconds, rounds);
	kill(server, SIGCONT);
	doca_ctx_stop(doca_comch_client_as_ctx(cc.client));
	for (int i = 0; i < 1000; i++)
		doca_pe_progress(cc.pe);
	close(sv[0]);
	waitpid(server, NULL, 0);
	waitpid(echo, NULL, 0);

	return 0;
}
