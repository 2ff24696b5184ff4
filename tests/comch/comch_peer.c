/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch_peer.c - a small DOCA Comch program (public API only) that the process
 * tests fork and exec: an echo server on the DPU side, or clients on the host side.
 *
 *   comch_peer server NAME [--max-msg N] [--expect N] [--rep PCI]
 *       echo every message back; print "connect" / "disconnect" lines; with
 *       --expect, exit 0 once N clients connected and all of them left.
 *   comch_peer client NAME [--max-msg N] [--clients K] [--count N] [--size S] [--hold] [--dev PCI]
 *       K client contexts, each sends N messages of S bytes and checks each echo;
 *       prints "running" when all are connected; with --hold, then waits until the
 *       context leaves RUNNING (the server died) and exits 3.
 *
 * Exit codes: 0 done; 2 setup failed; 3 a context left STARTING/RUNNING on its own;
 * 4 an echo differed; 5 the time limit (FERRY_TEST_LIMIT_S, default 20 s) passed.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_pe.h>

#include "comch_util.h"

#define PEER_MAX_CLIENTS 256

struct peer {
	struct doca_pe *pe;
	uint32_t max_msg;
	uint32_t count, size, nclients;
	bool hold;
	const char *pci; /* --dev (client) or --rep (server) */
	/* server */
	struct doca_comch_server *server;
	uint32_t expect, connects, disconnects;
	/* clients */
	struct doca_comch_client *clients[PEER_MAX_CLIENTS];
	uint32_t sent[PEER_MAX_CLIENTS], echoed[PEER_MAX_CLIENTS];
	uint32_t running, failed;
	bool bad_echo;
	uint8_t msg[8192];
};

static struct peer g;

static void on_alarm(int sig)
{
	(void)sig;
	_exit(5);
}

static void send_cb(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void send_err_cb(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

/* ---- server ---- */

static void server_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
			struct doca_comch_connection *conn)
{
	struct doca_comch_task_send *task;

	(void)ev;
	if (doca_comch_server_task_send_alloc_init(doca_comch_server_get_server_ctx(conn), conn, buf, len, &task) !=
		    DOCA_SUCCESS ||
	    doca_task_submit(doca_comch_task_send_as_task(task)) != DOCA_SUCCESS)
		fprintf(stderr, "server: echo failed\n");
}

static void server_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			   uint8_t ok)
{
	(void)ev;
	(void)conn;
	if (ok) {
		g.connects++;
		printf("connect\n");
		fflush(stdout);
	}
}

static void server_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			      uint8_t ok)
{
	(void)ev;
	(void)conn;
	(void)ok;
	g.disconnects++;
	printf("disconnect\n");
	fflush(stdout);
}

static int run_server(const char *name)
{
	struct doca_dev *dev = cu_open_dpu_dev();
	struct doca_dev_rep *rep = dev != NULL ? ferry_test_open_rep(dev, g.pci) : NULL;
	struct doca_ctx *ctx;
	enum doca_ctx_states st;

	if (rep == NULL || doca_comch_server_create(dev, rep, name, &g.server) != DOCA_SUCCESS)
		return 2;
	ctx = doca_comch_server_as_ctx(g.server);
	if ((g.max_msg != 0 && doca_comch_server_set_max_msg_size(g.server, g.max_msg) != DOCA_SUCCESS) ||
	    doca_comch_server_task_send_set_conf(g.server, send_cb, send_err_cb, 4096) != DOCA_SUCCESS ||
	    doca_comch_server_event_msg_recv_register(g.server, server_recv) != DOCA_SUCCESS ||
	    doca_comch_server_event_connection_status_changed_register(g.server, server_connect, server_disconnect) !=
		    DOCA_SUCCESS ||
	    doca_pe_connect_ctx(g.pe, ctx) != DOCA_SUCCESS || doca_ctx_start(ctx) != DOCA_SUCCESS)
		return 2;
	printf("listening\n");
	fflush(stdout);
	while (g.expect == 0 || g.disconnects < g.expect) {
		if (doca_pe_progress(g.pe) == 0)
			usleep(50);
	}
	doca_ctx_stop(ctx);
	do {
		doca_pe_progress(g.pe);
		doca_ctx_get_state(ctx, &st);
	} while (st != DOCA_CTX_STATE_IDLE);
	doca_comch_server_destroy(g.server);
	doca_dev_rep_close(rep);
	doca_dev_close(dev);
	return 0;
}

/* ---- clients ---- */

static uint32_t client_index(struct doca_comch_client *client)
{
	for (uint32_t i = 0; i < g.nclients; i++)
		if (g.clients[i] == client)
			return i;
	abort();
}

static void client_send_next(uint32_t i)
{
	struct doca_comch_connection *conn;
	struct doca_comch_task_send *task;

	g.msg[0] = (uint8_t)g.sent[i];
	if (doca_comch_client_get_connection(g.clients[i], &conn) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_alloc_init(g.clients[i], conn, g.msg, g.size, &task) != DOCA_SUCCESS ||
	    doca_task_submit(doca_comch_task_send_as_task(task)) != DOCA_SUCCESS) {
		fprintf(stderr, "client %u: send failed\n", i);
		g.failed++;
		return;
	}
	g.sent[i]++;
}

static void client_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
			struct doca_comch_connection *conn)
{
	uint32_t i = client_index(doca_comch_client_get_client_ctx(conn));

	(void)ev;
	if (len != g.size || buf[0] != (uint8_t)g.echoed[i] || memcmp(buf + 1, g.msg + 1, len - 1) != 0)
		g.bad_echo = true;
	g.echoed[i]++;
	if (g.sent[i] < g.count)
		client_send_next(i);
}

static void client_state(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
			 enum doca_ctx_states next)
{
	uint32_t i = (uint32_t)user_data.u64;

	(void)ctx;
	if (next == DOCA_CTX_STATE_RUNNING) {
		g.running++;
		if (g.count > 0)
			client_send_next(i);
	} else if (next == DOCA_CTX_STATE_STOPPING &&
		   (prev == DOCA_CTX_STATE_RUNNING || prev == DOCA_CTX_STATE_STARTING)) {
		g.failed++; /* the tests stop clients only after counting */
	}
}

static int client_setup(struct doca_dev *dev, const char *name, uint32_t i)
{
	struct doca_ctx *ctx;
	union doca_data ud = {.u64 = i};
	doca_error_t err;

	if (doca_comch_client_create(dev, name, &g.clients[i]) != DOCA_SUCCESS)
		return 2;
	ctx = doca_comch_client_as_ctx(g.clients[i]);
	if ((g.max_msg != 0 && doca_comch_client_set_max_msg_size(g.clients[i], g.max_msg) != DOCA_SUCCESS) ||
	    doca_comch_client_task_send_set_conf(g.clients[i], send_cb, send_err_cb, 64) != DOCA_SUCCESS ||
	    doca_comch_client_event_msg_recv_register(g.clients[i], client_recv) != DOCA_SUCCESS ||
	    doca_ctx_set_user_data(ctx, ud) != DOCA_SUCCESS ||
	    doca_ctx_set_state_changed_cb(ctx, client_state) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(g.pe, ctx) != DOCA_SUCCESS)
		return 2;
	err = doca_ctx_start(ctx);
	return err == DOCA_ERROR_IN_PROGRESS || err == DOCA_SUCCESS ? 0 : 2;
}

static bool clients_done(void)
{
	if (g.failed > 0 || g.bad_echo)
		return true;
	if (g.running < g.nclients)
		return false;
	for (uint32_t i = 0; i < g.nclients; i++)
		if (g.echoed[i] < g.count)
			return false;
	return !g.hold;
}

static int run_clients(const char *name)
{
	struct doca_dev *dev = ferry_test_open_dev(g.pci, doca_comch_cap_client_is_supported);
	bool announced = false;
	int rc;

	if (dev == NULL)
		return 2;
	memset(g.msg, 0xa5, sizeof(g.msg));
	for (uint32_t i = 0; i < g.nclients; i++)
		if (client_setup(dev, name, i) != 0)
			return 2;
	while (!clients_done()) {
		if (!announced && g.running == g.nclients) {
			printf("running\n");
			fflush(stdout);
			announced = true;
		}
		if (doca_pe_progress(g.pe) == 0)
			usleep(50);
	}
	rc = g.bad_echo ? 4 : g.failed > 0 ? 3 : 0;
	for (uint32_t i = 0; i < g.nclients; i++) {
		struct doca_ctx *ctx = doca_comch_client_as_ctx(g.clients[i]);
		enum doca_ctx_states st;

		doca_ctx_get_state(ctx, &st);
		if (st != DOCA_CTX_STATE_IDLE)
			doca_ctx_stop(ctx);
		do {
			doca_pe_progress(g.pe);
			doca_ctx_get_state(ctx, &st);
		} while (st != DOCA_CTX_STATE_IDLE);
		doca_comch_client_destroy(g.clients[i]);
	}
	doca_dev_close(dev);
	return rc;
}

int main(int argc, char **argv)
{
	const char *limit = getenv("FERRY_TEST_LIMIT_S");

	if (argc < 3)
		return 2;
	signal(SIGALRM, on_alarm);
	alarm(limit != NULL ? (unsigned)atoi(limit) : 20);
	g.nclients = 1;
	g.count = 10;
	g.size = 64;
	for (int i = 3; i < argc; i++) {
		const char *opt = argv[i];
		uint32_t val = i + 1 < argc ? (uint32_t)strtoul(argv[i + 1], NULL, 0) : 0;

		if (strcmp(opt, "--hold") == 0) {
			g.hold = true;
			continue;
		}
		i++;
		if (strcmp(opt, "--dev") == 0 || strcmp(opt, "--rep") == 0)
			g.pci = i < argc ? argv[i] : NULL;
		else if (strcmp(opt, "--max-msg") == 0)
			g.max_msg = val;
		else if (strcmp(opt, "--expect") == 0)
			g.expect = val;
		else if (strcmp(opt, "--clients") == 0)
			g.nclients = val;
		else if (strcmp(opt, "--count") == 0)
			g.count = val;
		else if (strcmp(opt, "--size") == 0)
			g.size = val;
		else
			return 2;
	}
	if (g.nclients == 0 || g.nclients > PEER_MAX_CLIENTS || g.size == 0 || g.size > sizeof(g.msg))
		return 2;
	if (doca_pe_create(&g.pe) != DOCA_SUCCESS)
		return 2;
	return strcmp(argv[1], "server") == 0 ? run_server(argv[2]) : run_clients(argv[2]);
}
