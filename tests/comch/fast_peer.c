/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fast_peer.c - a small DOCA Comch fast-path program (public API only) that
 * test_fast_procs forks and execs, one process per side:
 *
 *   fast_peer (server|client) NAME send N [--seed S] [--max B]
 *       create a producer once connected; on the new-consumer event send N
 *       messages of pseudo-random sizes 1..B (the last one exactly B) with
 *       immediate data, one at a time; print "new-consumer", "sent N",
 *       "send-failed" on the first failed send (then stop sending), and
 *       "expired" when the consumer goes away; exit once it went away.
 *   fast_peer (server|client) NAME recv N [--seed S] [--max B] [--shared]
 *            [--stop-after K] [--post-delay-ms D]
 *       create a consumer (memory from malloc, or ferry_mem_alloc_shared) once
 *       connected, post 4 buffers of B bytes (after D ms), check every message
 *       byte for byte against what the sender generates, repost; after N (or K)
 *       messages destroy the consumer and print "received N"; a server then
 *       waits for its client to leave, a client leaves.
 *
 * Exit codes: 0 done; 2 setup failed; 3 the connection or a context failed;
 * 4 data differed; 5 the time limit (FERRY_TEST_LIMIT_S, default 20 s) passed;
 * 6 (sender) a send failed, so fewer than N went.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <ferry_mem.h>

#include "comch_util.h"

#define POSTS 4
#define IMM_CAP 16

struct peer {
	bool is_server, sending, shared;
	uint32_t n, max, stop_after, post_delay_ms;
	uint64_t seed;
	struct doca_pe *pe;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_comch_connection *conn;
	bool conn_gone;
	/* memory */
	uint8_t *mem;
	size_t mem_len;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	/* send side */
	struct doca_comch_producer *producer;
	uint32_t remote_id, sent, send_failed;
	bool consumer_new, consumer_expired, in_flight;
	/* recv side */
	struct doca_comch_consumer *consumer;
	uint32_t received;
	bool bad;
	uint8_t *expect;
};

static struct peer g;

static void on_alarm(int sig)
{
	(void)sig;
	_exit(5);
}

static void say(const char *word, uint32_t v)
{
	printf("%s %u\n", word, v);
	fflush(stdout);
}

/* ---- the messages both sides agree on ---- */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint32_t msg_len(uint32_t i)
{
	if (i + 1 == g.n)
		return g.max;
	return 1 + (uint32_t)(mix(g.seed * 1000003u + i) % g.max);
}

static void msg_fill(uint32_t i, uint8_t *out, uint32_t len)
{
	uint64_t x = g.seed ^ ((uint64_t)i << 32);

	for (uint32_t k = 0; k < len; k += 8) {
		uint64_t v = mix(x + k);

		memcpy(out + k, &v, len - k < 8 ? len - k : 8);
	}
}

static uint32_t imm_len(uint32_t i)
{
	return i % (IMM_CAP + 1);
}

static void imm_fill(uint32_t i, uint8_t *out)
{
	for (uint32_t k = 0; k < imm_len(i); k++)
		out[k] = (uint8_t)(i * 31 + k);
}

/* ---- send side ---- */

static void send_next(void);

static void send_done(struct doca_comch_producer_task_send *task, union doca_data tud, union doca_data cud)
{
	struct doca_buf *buf = (struct doca_buf *)(uintptr_t)doca_comch_producer_task_send_get_buf(task);

	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_producer_task_send_as_task(task));
	(void)doca_buf_dec_refcount(buf, NULL);
	g.in_flight = false;
	g.sent++;
	if (g.sent == g.n)
		say("sent", g.sent);
	else
		send_next();
}

static void send_fail(struct doca_comch_producer_task_send *task, union doca_data tud, union doca_data cud)
{
	struct doca_buf *buf = (struct doca_buf *)(uintptr_t)doca_comch_producer_task_send_get_buf(task);

	(void)tud;
	(void)cud;
	fprintf(stderr, "send %u failed: %s\n", g.sent,
		doca_error_get_name(doca_task_get_status(doca_comch_producer_task_send_as_task(task))));
	doca_task_free(doca_comch_producer_task_send_as_task(task));
	(void)doca_buf_dec_refcount(buf, NULL);
	g.in_flight = false;
	if (g.send_failed++ == 0)
		say("send-failed", g.sent);
}

static void send_next(void)
{
	uint32_t len = msg_len(g.sent);
	uint8_t imm[IMM_CAP];
	struct doca_buf *buf = NULL;
	struct doca_comch_producer_task_send *task = NULL;

	msg_fill(g.sent, g.mem, len);
	imm_fill(g.sent, imm);
	if (doca_buf_inventory_buf_get_by_data(g.inv, g.mmap, g.mem, len, &buf) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_alloc_init(g.producer, buf, imm, imm_len(g.sent), g.remote_id, &task) !=
		    DOCA_SUCCESS ||
	    doca_task_submit(doca_comch_producer_task_send_as_task(task)) != DOCA_SUCCESS) {
		fprintf(stderr, "send %u: cannot submit\n", g.sent);
		exit(3);
	}
	g.in_flight = true;
}

static void on_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	g.remote_id = id;
	g.consumer_new = true;
	say("new-consumer", id);
}

static void on_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	if (id == g.remote_id) {
		g.consumer_expired = true;
		say("expired", id);
	}
}

/* ---- recv side ---- */

static void post(struct doca_comch_consumer_task_post_recv *task);

static void recv_done(struct doca_comch_consumer_task_post_recv *task, union doca_data tud, union doca_data cud)
{
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
	uint8_t imm[IMM_CAP];
	void *data = NULL;
	size_t len = 0;
	uint32_t i = g.received;

	(void)tud;
	(void)cud;
	(void)doca_buf_get_data(buf, &data);
	(void)doca_buf_get_data_len(buf, &len);
	msg_fill(i, g.expect, msg_len(i));
	imm_fill(i, imm);
	if (len != msg_len(i) || memcmp(data, g.expect, len) != 0 ||
	    doca_comch_consumer_task_post_recv_get_imm_data_len(task) != imm_len(i) ||
	    memcmp(doca_comch_consumer_task_post_recv_get_imm_data(task), imm, imm_len(i)) != 0) {
		fprintf(stderr, "message %u: %zu bytes, want %u; data or immediate data differ\n", i, len, msg_len(i));
		g.bad = true;
	}
	g.received++;
	if (g.received + POSTS <= g.stop_after)
		post(task);
	else
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static void recv_fail(struct doca_comch_consumer_task_post_recv *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static void post(struct doca_comch_consumer_task_post_recv *task)
{
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);

	if (doca_buf_reset_data_len(buf) != DOCA_SUCCESS ||
	    doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS) {
		fprintf(stderr, "post: cannot submit\n");
		exit(3);
	}
}

static void start_consumer(void)
{
	struct doca_ctx *ctx;

	if (doca_comch_consumer_create(g.conn, g.mmap, &g.consumer) != DOCA_SUCCESS ||
	    doca_comch_consumer_set_imm_data_len(g.consumer, IMM_CAP) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(g.consumer, recv_done, recv_fail, POSTS) != DOCA_SUCCESS)
		exit(2);
	ctx = doca_comch_consumer_as_ctx(g.consumer);
	if (doca_pe_connect_ctx(g.pe, ctx) != DOCA_SUCCESS || doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS)
		exit(2); /* DOCA's consumer starts asynchronously */
	for (enum doca_ctx_states st = DOCA_CTX_STATE_STARTING; st != DOCA_CTX_STATE_RUNNING;) {
		(void)doca_pe_progress(g.pe);
		(void)doca_ctx_get_state(ctx, &st);
	}
	if (g.post_delay_ms != 0)
		usleep(g.post_delay_ms * 1000u);
	for (uint32_t k = 0; k < POSTS && k < g.stop_after; k++) {
		struct doca_buf *buf = NULL;
		struct doca_comch_consumer_task_post_recv *task = NULL;

		if (doca_buf_inventory_buf_get_by_addr(g.inv, g.mmap, g.mem + (size_t)k * g.max, g.max, &buf) !=
			    DOCA_SUCCESS ||
		    doca_comch_consumer_task_post_recv_alloc_init(g.consumer, buf, &task) != DOCA_SUCCESS)
			exit(2);
		post(task);
	}
}

/* ---- connection ---- */

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
		       uint8_t ok)
{
	(void)ev;
	if (ok && g.conn == NULL)
		g.conn = conn;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			  uint8_t ok)
{
	(void)ev;
	(void)ok;
	if (conn == g.conn)
		g.conn_gone = true;
}

static struct doca_ctx *main_ctx(void)
{
	return g.is_server ? doca_comch_server_as_ctx(g.server) : doca_comch_client_as_ctx(g.client);
}

static void task_cb(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void open_endpoint(const char *name)
{
	if (g.is_server) {
		g.dev = cu_open_dpu_dev();
		g.rep = g.dev != NULL ? ferry_test_open_rep(g.dev, NULL) : NULL;
		if (g.rep == NULL || doca_comch_server_create(g.dev, g.rep, name, &g.server) != DOCA_SUCCESS ||
		    doca_comch_server_task_send_set_conf(g.server, task_cb, task_cb, 8) != DOCA_SUCCESS ||
		    doca_comch_server_event_connection_status_changed_register(g.server, on_connect, on_disconnect) !=
			    DOCA_SUCCESS ||
		    doca_comch_server_event_consumer_register(g.server, on_new_consumer, on_expired_consumer) !=
			    DOCA_SUCCESS)
			exit(2);
	} else {
		g.dev = cu_open_host_dev();
		if (g.dev == NULL || doca_comch_client_create(g.dev, name, &g.client) != DOCA_SUCCESS ||
		    doca_comch_client_task_send_set_conf(g.client, task_cb, task_cb, 8) != DOCA_SUCCESS ||
		    doca_comch_client_event_consumer_register(g.client, on_new_consumer, on_expired_consumer) !=
			    DOCA_SUCCESS)
			exit(2);
	}
	if (doca_pe_connect_ctx(g.pe, main_ctx()) != DOCA_SUCCESS)
		exit(2);
	(void)doca_ctx_start(main_ctx());
}

static bool main_running(void)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(main_ctx(), &st);
	return st == DOCA_CTX_STATE_RUNNING;
}

/* The client context left STARTING/RUNNING on its own: the server is gone. */
static bool main_left(void)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(main_ctx(), &st);
	return st == DOCA_CTX_STATE_IDLE || st == DOCA_CTX_STATE_STOPPING;
}

static void progress_until(bool (*cond)(void))
{
	while (!cond()) {
		if (doca_pe_progress(g.pe) == 0)
			usleep(20);
		if (!g.is_server && main_left() && !cond()) {
			fprintf(stderr, "the connection ended\n");
			exit(3);
		}
	}
}

static bool have_conn(void)
{
	if (!g.is_server && g.conn == NULL && main_running())
		(void)doca_comch_client_get_connection(g.client, &g.conn);
	return g.conn != NULL;
}

static bool send_finished(void)
{
	return (g.consumer_expired && !g.in_flight) || g.conn_gone;
}

static bool consumer_ready(void)
{
	return g.consumer_new;
}

static bool recv_finished(void)
{
	return g.received >= g.stop_after || g.conn_gone;
}

static void stop_ctx(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_stop(ctx);
	do {
		(void)doca_pe_progress(g.pe);
		(void)doca_ctx_get_state(ctx, &st);
	} while (st != DOCA_CTX_STATE_IDLE);
}

static void setup_memory(void)
{
	g.mem_len = (size_t)g.max * POSTS;
	g.mem = g.shared ? ferry_mem_alloc_shared(g.mem_len) : malloc(g.mem_len);
	g.expect = malloc(g.max);
	if (g.mem == NULL || g.expect == NULL || doca_mmap_create(&g.mmap) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(g.mmap, g.mem, g.mem_len) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(g.mmap, g.dev) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(g.mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) !=
		    DOCA_SUCCESS ||
	    doca_mmap_start(g.mmap) != DOCA_SUCCESS || doca_buf_inventory_create(POSTS + 2, &g.inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(g.inv) != DOCA_SUCCESS)
		exit(2);
}

static int run_send(void)
{
	struct doca_ctx *ctx;

	if (doca_comch_producer_create(g.conn, &g.producer) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(g.producer, send_done, send_fail, 4) != DOCA_SUCCESS)
		return 2;
	ctx = doca_comch_producer_as_ctx(g.producer);
	if (doca_pe_connect_ctx(g.pe, ctx) != DOCA_SUCCESS || doca_ctx_start(ctx) != DOCA_SUCCESS)
		return 2;
	progress_until(consumer_ready);
	if (g.n > 0)
		send_next();
	progress_until(send_finished);
	while (g.in_flight)
		(void)doca_pe_progress(g.pe);
	stop_ctx(ctx);
	if (doca_comch_producer_destroy(g.producer) != DOCA_SUCCESS || (g.conn_gone && !g.consumer_expired))
		return 3;
	return g.sent == g.n ? 0 : 6;
}

static int run_recv(void)
{
	bool lost;

	start_consumer();
	progress_until(recv_finished);
	lost = g.received < g.stop_after; /* the connection ended first (once done, the peer may leave any time) */
	stop_ctx(doca_comch_consumer_as_ctx(g.consumer));
	if (doca_comch_consumer_destroy(g.consumer) != DOCA_SUCCESS)
		return 3;
	say("received", g.received);
	if (lost)
		return 3;
	/* CONSUMER_DOWN left before any BYE: the sender sees the consumer expire, then the end. */
	return g.bad ? 4 : 0;
}

static void parse_args(int argc, char **argv)
{
	g.seed = 1;
	g.max = 65536;
	for (int i = 5; i < argc; i++) {
		if (strcmp(argv[i], "--shared") == 0)
			g.shared = true;
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			g.seed = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
			g.max = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--stop-after") == 0 && i + 1 < argc)
			g.stop_after = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--post-delay-ms") == 0 && i + 1 < argc)
			g.post_delay_ms = (uint32_t)strtoul(argv[++i], NULL, 0);
		else
			exit(2);
	}
	if (g.stop_after == 0 || g.stop_after > g.n)
		g.stop_after = g.n;
}

int main(int argc, char **argv)
{
	const char *limit = getenv("FERRY_TEST_LIMIT_S");
	int rc;

	if (argc < 5 || (strcmp(argv[1], "server") != 0 && strcmp(argv[1], "client") != 0))
		return 2;
	g.is_server = strcmp(argv[1], "server") == 0;
	g.sending = strcmp(argv[3], "send") == 0;
	g.n = (uint32_t)strtoul(argv[4], NULL, 0);
	parse_args(argc, argv);
	signal(SIGALRM, on_alarm);
	alarm(limit != NULL ? (unsigned)atoi(limit) : 20u);
	if (doca_pe_create(&g.pe) != DOCA_SUCCESS)
		return 2;
	open_endpoint(argv[2]);
	setup_memory();
	printf("listening\n");
	fflush(stdout);
	progress_until(have_conn);
	say("connected", 1);
	rc = g.sending ? run_send() : run_recv();
	/* The server leaves when its client left; the client just stops. */
	if (rc == 0 && g.is_server && !g.conn_gone)
		while (!g.conn_gone)
			if (doca_pe_progress(g.pe) == 0)
				usleep(50);
	stop_ctx(main_ctx());
	return rc;
}
