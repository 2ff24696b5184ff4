/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fast_peer.c - a small DOCA Comch fast-path program (public API only) that
 * test_fast_procs and test_fast_chaos fork and exec, one process per side:
 *
 *   fast_peer (server|client) NAME send N [--seed S] [--max B]
 *            [--inflight K] [--producer-pe conn|own] [--chaos]
 *       create a producer once connected; on the new-consumer event send N
 *       messages of pseudo-random sizes 1..B (the last one exactly B) with
 *       immediate data, up to K (1..4, default 1) in flight; print
 *       "new-consumer", "sent N", "send-failed" on the first failed send (then
 *       stop sending), and "expired" when the consumer goes away; exit once it
 *       went away. With --producer-pe own the producer has a PE of its own and,
 *       while sends are in flight, only that PE is progressed (as DOCA's
 *       high-speed sample does); the connection's PE is progressed between
 *       batches and while idle.
 *   fast_peer (server|client) NAME recv N [--seed S] [--max B] [--shared]
 *            [--stop-after K] [--post-delay-ms D] [--stop-at-random] [--chaos]
 *       create a consumer (memory from malloc, or ferry_mem_alloc_shared) once
 *       connected, post 4 buffers of B bytes (after D ms), each filled with a
 *       canary first, check every message byte for byte against what the
 *       sender generates, repost; after N (or K) messages destroy the consumer
 *       and print "received N"; a server then waits for its client to leave, a
 *       client leaves. --stop-at-random stops the consumer, buffers still
 *       posted, after a seeded random count of messages (below N) or a seeded
 *       random 0..20 ms, whichever comes first, while the sender goes on.
 *       A post-receive that fails (flushed) keeps its buffer aside: a byte of
 *       it that changes after the failure was reported is a late write.
 *
 * --chaos (test_fast_chaos): print "baseline fds F maps M" once the device is
 * open and one export started the memory agent (its thread and socket stay for
 * the process's life), and "final fds F maps M" after every context, mmap and
 * buffer is gone (the device still open, as at the baseline); markers
 * "starting", "consumer-start", "stopping"; the sender says "done" over the
 * connection once its producer is destroyed, and the receiver reads its flushed
 * buffers only after that "done" (or the end of the connection) and 50 ms more;
 * waits for the peer are bounded (a server's first client, its client leaving);
 * the process dies with its parent. A summary line closes each side's run:
 * "send-summary ok O failed F" or "recv-summary received R flushed F dirty D late L"
 * (dirty: written before the failure was reported; late: after).
 *
 * Exit codes: 0 done; 2 setup failed (before any connection); 3 the connection,
 * the peer or a context failed (or, with --chaos, the peer did not finish in
 * time); 4 data differed; 5 the time limit (FERRY_TEST_LIMIT_S, default 20 s)
 * passed; 6 (sender) a send failed, so fewer than N went; 7 (receiver) a
 * flushed buffer was written after its post-receive failed.
 */
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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
#include "ferry_test_fds.h"

#define POSTS           4
#define IMM_CAP         16
#define CHAOS_ACCEPT_MS 1500  /* a server's first client; the test starts it at once */
#define CHAOS_LINGER_MS 3000  /* a receiver waits this long for the sender's "done" */
#define CHAOS_SETTLE_MS 50    /* then progresses this long before reading flushed buffers */
#define CHAOS_LEAVE_MS  3000  /* a server waits this long for its client to leave */
#define RANDOM_STOP_US  20000 /* --stop-at-random: the latest moment after the first post */
#define DONE_MSG        "done"

struct peer {
	bool is_server, sending, shared, chaos, stop_random, own_pe;
	uint32_t n, max, stop_after, post_delay_ms, inflight;
	uint64_t seed;
	int rc;              /* the first failure's exit code, 0 while none */
	struct doca_pe *pe;  /* the connection's (and the consumer's) */
	struct doca_pe *ppe; /* the producer's: pe, or its own (--producer-pe own) */
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_comch_connection *conn;
	bool conn_gone, peer_done;
	uint32_t msgs_in_flight;
	/* memory: POSTS regions of max bytes */
	uint8_t *mem;
	size_t mem_len;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	/* send side */
	struct doca_comch_producer *producer;
	uint32_t remote_id, next, sent, send_failed, in_flight, busy;
	bool consumer_new, consumer_expired;
	/* recv side */
	struct doca_comch_consumer *consumer;
	struct doca_buf *rbuf[POSTS];
	uint32_t received, stop_count, flushed, dirty, late;
	long stop_at_us;
	bool bad, stopping, aside[POSTS];
	uint8_t *expect, *canary, *snap;
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

/* A phase marker the chaos test waits for before it strikes. */
static void mark(const char *word)
{
	if (g.chaos) {
		printf("%s\n", word);
		fflush(stdout);
	}
}

static void fail(int code, const char *why)
{
	if (g.rc == 0)
		g.rc = code;
	fprintf(stderr, "%s\n", why);
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
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

/* ---- what the process holds: the chaos test compares start and end ---- */

/*
 * Every mapping, in a plain build. A sanitizer's allocator maps anonymous
 * regions as it grows, so there only shared or file-backed mappings count:
 * all that Ferry maps (memfd blocks, rings, imports, state pages) is shared.
 */
static unsigned count_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], perms[8];
	unsigned long inode;
	unsigned n = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
#ifdef SANITIZED
		if (sscanf(line, "%*s %7s %*s %*s %lu", perms, &inode) != 2 || (perms[3] != 's' && inode == 0))
			continue;
#else
		(void)perms;
		(void)inode;
#endif
		n += strchr(line, '\n') != NULL;
	}
	fclose(f);
	return n;
}

/* What each fd is, on stderr: the name of a leak. */
static void list_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	char path[300], target[256];

	if (d == NULL)
		return;
	for (struct dirent *e; (e = readdir(d)) != NULL;) {
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "fd %s: %s\n", e->d_name, target);
	}
	closedir(d);
}

/*
 * The memory agent's thread answers the peer's imports while we count: for a
 * moment it holds the importer's socket and the fds it passes (agent.c; an
 * importer that is stopped holds its socket there up to the agent's 1 s
 * request deadline). So the final count is taken again until it matches, for
 * at most REPORT_SETTLE_MS; what stays different is a leak.
 */
#define REPORT_SETTLE_MS 1500

static void report(const char *when)
{
	static unsigned fds0, maps0;
	bool final = strcmp(when, "final") == 0;
	long end = now_us() + REPORT_SETTLE_MS * 1000L;
	unsigned fds = (unsigned)ferry_test_count_fds(), maps = count_maps();

	if (!g.chaos)
		return;
	while (final && (fds != fds0 || maps != maps0) && now_us() < end) {
		usleep(5000);
		fds = (unsigned)ferry_test_count_fds();
		maps = count_maps();
	}
	printf("%s fds %u maps %u\n", when, fds, maps);
	fflush(stdout);
	if (!final) {
		fds0 = fds;
		maps0 = maps;
	} else if (fds != fds0 || maps != maps0) {
		list_fds();
	}
}

/*
 * The first export starts the memory agent (a thread and a listening socket)
 * that lives as long as the process: export one page once, before the
 * baseline, so that the baseline already holds them.
 */
static void start_agent(void)
{
	void *page = malloc(4096);
	struct doca_mmap *m = NULL;
	const void *desc = NULL;
	size_t len = 0;

	if (page == NULL || doca_mmap_create(&m) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(m, page, 4096) != DOCA_SUCCESS || doca_mmap_add_dev(m, g.dev) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS ||
	    doca_mmap_start(m) != DOCA_SUCCESS || doca_mmap_export_pci(m, g.dev, &desc, &len) != DOCA_SUCCESS)
		fail(2, "cannot export a page to start the memory agent");
	if (m != NULL)
		(void)doca_mmap_destroy(m);
	free(page);
}

/* ---- progress ---- */

static struct doca_ctx *main_ctx(void)
{
	return g.is_server ? doca_comch_server_as_ctx(g.server) : doca_comch_client_as_ctx(g.client);
}

/* The client context left STARTING/RUNNING on its own: the server is gone. */
static bool main_left(void)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(main_ctx(), &st);
	return st == DOCA_CTX_STATE_IDLE || st == DOCA_CTX_STATE_STOPPING;
}

/* One progress of the connection's PE; a client learns here that its connection ended. */
static void step(void)
{
	if (doca_pe_progress(g.pe) == 0)
		usleep(20);
	if (!g.is_server && !g.conn_gone && main_left())
		g.conn_gone = true;
}

/* Progress until cond() holds, the connection ends, a failure, or limit_ms (0: none); cond()'s value. */
static bool progress_until(bool (*cond)(void), long limit_ms)
{
	long end = now_us() + limit_ms * 1000L;

	while (!cond() && !g.conn_gone && g.rc == 0 && (limit_ms == 0 || now_us() < end))
		step();
	return cond();
}

static void progress_for(long ms)
{
	long end = now_us() + ms * 1000L;

	while (now_us() < end)
		step();
}

static void stop_ctx(struct doca_ctx *ctx, struct doca_pe *pe)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(ctx, &st);
	if (st == DOCA_CTX_STATE_IDLE)
		return;
	(void)doca_ctx_stop(ctx);
	do {
		(void)doca_pe_progress(pe);
		(void)doca_ctx_get_state(ctx, &st);
	} while (st != DOCA_CTX_STATE_IDLE);
}

/* ---- send side ---- */

static void send_release(struct doca_comch_producer_task_send *task)
{
	struct doca_task *t = doca_comch_producer_task_send_as_task(task);
	struct doca_buf *buf = (struct doca_buf *)(uintptr_t)doca_comch_producer_task_send_get_buf(task);

	g.busy &= ~(1u << doca_task_get_user_data(t).u64);
	g.in_flight--;
	doca_task_free(t);
	(void)doca_buf_dec_refcount(buf, NULL);
}

static void send_done(struct doca_comch_producer_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	send_release(task);
	if (++g.sent == g.n)
		say("sent", g.sent);
}

static void send_fail(struct doca_comch_producer_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	fprintf(stderr, "send failed (%u sent): %s\n", g.sent,
		doca_error_get_name(doca_task_get_status(doca_comch_producer_task_send_as_task(task))));
	send_release(task);
	if (g.send_failed++ == 0)
		say("send-failed", g.sent);
}

/* Submit message g.next from a free region of the send memory. */
static void send_one(void)
{
	uint32_t region = (uint32_t)__builtin_ctz(~g.busy);
	uint8_t *src = g.mem + (size_t)region * g.max;
	uint32_t len = msg_len(g.next);
	uint8_t imm[IMM_CAP];
	struct doca_buf *buf = NULL;
	struct doca_comch_producer_task_send *task = NULL;

	msg_fill(g.next, src, len);
	imm_fill(g.next, imm);
	if (doca_buf_inventory_buf_get_by_data(g.inv, g.mmap, src, len, &buf) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_alloc_init(g.producer, buf, imm, imm_len(g.next), g.remote_id, &task) !=
		    DOCA_SUCCESS) {
		if (buf != NULL)
			(void)doca_buf_dec_refcount(buf, NULL);
		fail(3, "send: cannot take a buf or a task");
		return;
	}
	doca_task_set_user_data(doca_comch_producer_task_send_as_task(task), (union doca_data){.u64 = region});
	if (doca_task_submit(doca_comch_producer_task_send_as_task(task)) != DOCA_SUCCESS) {
		doca_task_free(doca_comch_producer_task_send_as_task(task));
		(void)doca_buf_dec_refcount(buf, NULL);
		fail(3, "send: cannot submit");
		return;
	}
	g.busy |= 1u << region;
	g.in_flight++;
	g.next++;
}

static void submit_more(void)
{
	while (g.consumer_new && !g.consumer_expired && g.send_failed == 0 && g.rc == 0 && g.next < g.n &&
	       g.in_flight < g.inflight)
		send_one();
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

static bool consumer_ready(void)
{
	return g.consumer_new;
}

static bool send_finished(void)
{
	return (g.consumer_expired && g.in_flight == 0) || g.conn_gone;
}

/*
 * With a PE of its own, the producer is the only thing progressed while its
 * sends are in flight: the library must finish them (either way) without the
 * connection's progress.
 */
static void send_loop(void)
{
	while (!send_finished() && g.rc == 0) {
		submit_more();
		while (g.own_pe && g.in_flight > 0)
			if (doca_pe_progress(g.ppe) == 0)
				usleep(20);
		step();
	}
	while (g.in_flight > 0)
		if (doca_pe_progress(g.ppe) == 0)
			usleep(20);
}

static bool producer_open(void)
{
	struct doca_ctx *ctx;

	if (g.own_pe) {
		struct doca_pe *own = NULL;

		if (doca_pe_create(&own) != DOCA_SUCCESS)
			return false;
		g.ppe = own;
	}
	if (doca_comch_producer_create(g.conn, &g.producer) != DOCA_SUCCESS)
		return false;
	ctx = doca_comch_producer_as_ctx(g.producer);
	return doca_comch_producer_task_send_set_conf(g.producer, send_done, send_fail, POSTS) == DOCA_SUCCESS &&
	       doca_pe_connect_ctx(g.ppe, ctx) == DOCA_SUCCESS && doca_ctx_start(ctx) == DOCA_SUCCESS;
}

static void producer_close(void)
{
	if (g.producer != NULL) {
		stop_ctx(doca_comch_producer_as_ctx(g.producer), g.ppe);
		if (doca_comch_producer_destroy(g.producer) != DOCA_SUCCESS)
			fail(3, "cannot destroy the producer");
		g.producer = NULL;
	}
	if (g.ppe != g.pe) {
		if (doca_pe_destroy(g.ppe) != DOCA_SUCCESS)
			fail(3, "cannot destroy the producer's PE");
		g.ppe = g.pe;
	}
}

/* ---- the "done" message (--chaos): the sender will not send any more ---- */

static void msg_task_cb(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	g.msgs_in_flight--;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	(void)ev;
	(void)conn;
	if (len == sizeof(DONE_MSG) && memcmp(buf, DONE_MSG, len) == 0)
		g.peer_done = true;
}

static bool msgs_sent(void)
{
	return g.msgs_in_flight == 0;
}

static void say_done(void)
{
	struct doca_comch_task_send *task = NULL;
	doca_error_t err;

	if (g.conn_gone)
		return;
	err = g.is_server ? doca_comch_server_task_send_alloc_init(g.server, g.conn, DONE_MSG, sizeof(DONE_MSG), &task)
			  : doca_comch_client_task_send_alloc_init(g.client, g.conn, DONE_MSG, sizeof(DONE_MSG), &task);
	if (err != DOCA_SUCCESS)
		return;
	if (doca_task_submit(doca_comch_task_send_as_task(task)) != DOCA_SUCCESS) {
		doca_task_free(doca_comch_task_send_as_task(task));
		return;
	}
	g.msgs_in_flight++;
	(void)progress_until(msgs_sent, CHAOS_LINGER_MS);
}

static int run_send(void)
{
	if (!producer_open()) {
		fail(3, "cannot set up the producer (the connection ended?)");
		producer_close();
		return g.rc;
	}
	(void)progress_until(consumer_ready, 0);
	send_loop();
	producer_close();
	if (g.chaos) {
		say_done();
		printf("send-summary ok %u failed %u\n", g.sent, g.send_failed);
		fflush(stdout);
	}
	if (g.rc != 0)
		return g.rc;
	if (g.conn_gone && !g.consumer_expired)
		return 3;
	return g.sent == g.n ? 0 : 6;
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
	if (g.received + POSTS <= g.stop_after && !g.stopping) /* completions may still come while it stops */
		post(task);
	else
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static uint32_t region_of(struct doca_buf *buf)
{
	void *head = NULL;

	(void)doca_buf_get_head(buf, &head);
	return (uint32_t)((size_t)((uint8_t *)head - g.mem) / g.max);
}

/*
 * A flushed buffer is kept aside, never reposted: from now on nobody may
 * write it. What it holds now (the canary, or bytes a producer wrote before
 * the flush) is what it must still hold at the end.
 */
static void recv_fail(struct doca_comch_consumer_task_post_recv *task, union doca_data tud, union doca_data cud)
{
	uint32_t k = region_of(doca_comch_consumer_task_post_recv_get_buf(task));
	uint8_t *room = g.mem + (size_t)k * g.max;

	(void)tud;
	(void)cud;
	g.flushed++;
	g.dirty += memcmp(room, g.canary, g.max) != 0;
	memcpy(g.snap + (size_t)k * g.max, room, g.max);
	g.aside[k] = true;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static uint32_t count_late_writes(void)
{
	uint32_t late = 0;

	for (uint32_t k = 0; k < POSTS; k++) {
		const uint8_t *room = g.mem + (size_t)k * g.max, *was = g.snap + (size_t)k * g.max;

		if (!g.aside[k] || memcmp(room, was, g.max) == 0)
			continue;
		for (uint32_t b = 0; b < g.max; b++)
			if (room[b] != was[b]) {
				fprintf(stderr, "flushed buffer %u: byte %u changed after its post-receive failed\n", k,
					b);
				break;
			}
		late++;
	}
	return late;
}

static void post(struct doca_comch_consumer_task_post_recv *task)
{
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(task);
	void *head = NULL;

	(void)doca_buf_get_head(buf, &head);
	memcpy(head, g.canary, g.max);
	if (doca_buf_reset_data_len(buf) != DOCA_SUCCESS ||
	    doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS) {
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
		fail(3, "post: cannot submit");
	}
}

static bool consumer_open(void)
{
	struct doca_ctx *ctx;
	enum doca_ctx_states st = DOCA_CTX_STATE_STARTING;

	if (doca_comch_consumer_create(g.conn, g.mmap, &g.consumer) != DOCA_SUCCESS)
		return false;
	ctx = doca_comch_consumer_as_ctx(g.consumer);
	if (doca_comch_consumer_set_imm_data_len(g.consumer, IMM_CAP) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(g.consumer, recv_done, recv_fail, POSTS) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(g.pe, ctx) != DOCA_SUCCESS)
		return false;
	mark("consumer-start");
	if (doca_ctx_start(ctx) != DOCA_ERROR_IN_PROGRESS)
		return false; /* DOCA's consumer starts asynchronously */
	while (st == DOCA_CTX_STATE_STARTING && !g.conn_gone) {
		step();
		(void)doca_ctx_get_state(ctx, &st);
	}
	return st == DOCA_CTX_STATE_RUNNING;
}

static void consumer_post_all(void)
{
	if (g.post_delay_ms != 0)
		usleep(g.post_delay_ms * 1000u);
	for (uint32_t k = 0; k < POSTS && k < g.stop_after && g.rc == 0; k++) {
		struct doca_comch_consumer_task_post_recv *task = NULL;

		if (doca_buf_inventory_buf_get_by_addr(g.inv, g.mmap, g.mem + (size_t)k * g.max, g.max, &g.rbuf[k]) !=
			    DOCA_SUCCESS ||
		    doca_comch_consumer_task_post_recv_alloc_init(g.consumer, g.rbuf[k], &task) != DOCA_SUCCESS) {
			fail(3, "cannot take a buf or a post-receive task");
			return;
		}
		post(task);
	}
	g.stop_at_us = now_us() + g.stop_at_us;
}

static void consumer_close(void)
{
	if (g.consumer == NULL)
		return;
	g.stopping = true;
	stop_ctx(doca_comch_consumer_as_ctx(g.consumer), g.pe);
	if (doca_comch_consumer_destroy(g.consumer) != DOCA_SUCCESS)
		fail(3, "cannot destroy the consumer");
	g.consumer = NULL;
}

static bool random_stop_due(void)
{
	return g.stop_random && (g.received >= g.stop_count || now_us() >= g.stop_at_us);
}

static bool recv_finished(void)
{
	return g.received >= g.stop_after || random_stop_due();
}

/* Stop with buffers posted, while the sender goes on: a random few microseconds more first. */
static void stop_at_random(void)
{
	long until = now_us() + (long)(mix(g.seed ^ 0x5702) % 50);

	while (now_us() < until)
		;
	mark("stopping");
}

static bool peer_done(void)
{
	return g.peer_done;
}

/* A producer that raced the stop writes now, if ever: wait for "done" (or the end), then a little more. */
static void linger(void)
{
	if (g.rc == 0 && !progress_until(peer_done, CHAOS_LINGER_MS) && !g.conn_gone)
		fail(3, "the sender did not say it was done in time");
	progress_for(CHAOS_SETTLE_MS);
}

static int run_recv(void)
{
	bool lost, early;

	if (!consumer_open())
		fail(3, "cannot set up the consumer (the connection ended?)");
	else
		consumer_post_all();
	if (g.rc == 0)
		(void)progress_until(recv_finished, 0);
	early = g.rc == 0 && !g.conn_gone && g.received < g.stop_after && random_stop_due();
	lost = g.received < g.stop_after &&
	       !early; /* the connection ended first (once done, the peer may leave any time) */
	if (early)
		stop_at_random();
	consumer_close();
	say("received", g.received);
	if (g.chaos)
		linger();
	g.late = count_late_writes();
	if (g.chaos) {
		printf("recv-summary received %u flushed %u dirty %u late %u\n", g.received, g.flushed, g.dirty,
		       g.late);
		fflush(stdout);
	}
	/* CONSUMER_DOWN left before any BYE: the sender sees the consumer expire, then the end. */
	if (g.bad)
		return 4;
	if (g.late != 0)
		return 7;
	return lost ? 3 : g.rc;
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

static bool open_device(void)
{
	if (g.is_server) {
		g.dev = cu_open_dpu_dev();
		g.rep = g.dev != NULL ? ferry_test_open_rep(g.dev, NULL) : NULL;
		return g.rep != NULL;
	}
	g.dev = cu_open_host_dev();
	return g.dev != NULL;
}

static doca_error_t server_create(const char *name)
{
	if (doca_comch_server_create(g.dev, g.rep, name, &g.server) != DOCA_SUCCESS ||
	    doca_comch_server_task_send_set_conf(g.server, msg_task_cb, msg_task_cb, 8) != DOCA_SUCCESS ||
	    doca_comch_server_event_msg_recv_register(g.server, on_msg) != DOCA_SUCCESS ||
	    doca_comch_server_event_connection_status_changed_register(g.server, on_connect, on_disconnect) !=
		    DOCA_SUCCESS)
		return DOCA_ERROR_INITIALIZATION;
	return doca_comch_server_event_consumer_register(g.server, on_new_consumer, on_expired_consumer);
}

static doca_error_t client_create(const char *name)
{
	if (doca_comch_client_create(g.dev, name, &g.client) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_set_conf(g.client, msg_task_cb, msg_task_cb, 8) != DOCA_SUCCESS ||
	    doca_comch_client_event_msg_recv_register(g.client, on_msg) != DOCA_SUCCESS)
		return DOCA_ERROR_INITIALIZATION;
	return doca_comch_client_event_consumer_register(g.client, on_new_consumer, on_expired_consumer);
}

static void open_endpoint(const char *name)
{
	if ((g.is_server ? server_create(name) : client_create(name)) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(g.pe, main_ctx()) != DOCA_SUCCESS) {
		fail(2, "cannot set up the Comch endpoint");
		return;
	}
	mark("starting");
	(void)doca_ctx_start(main_ctx());
}

static void close_endpoint(void)
{
	if (g.server == NULL && g.client == NULL)
		return;
	stop_ctx(main_ctx(), g.pe);
	if ((g.is_server ? doca_comch_server_destroy(g.server) : doca_comch_client_destroy(g.client)) != DOCA_SUCCESS)
		fail(3, "cannot destroy the Comch endpoint");
	g.server = NULL;
	g.client = NULL;
}

static bool have_conn(void)
{
	if (!g.is_server && g.conn == NULL && !main_left()) {
		enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

		(void)doca_ctx_get_state(main_ctx(), &st);
		if (st == DOCA_CTX_STATE_RUNNING)
			(void)doca_comch_client_get_connection(g.client, &g.conn);
	}
	return g.conn != NULL;
}

static bool client_left(void)
{
	return g.conn_gone;
}

static void setup_memory(void)
{
	g.mem_len = (size_t)g.max * POSTS;
	g.mem = g.shared ? ferry_mem_alloc_shared(g.mem_len) : malloc(g.mem_len);
	g.expect = malloc(g.max);
	g.canary = malloc(g.max);
	g.snap = malloc(g.mem_len);
	if (g.mem == NULL || g.expect == NULL || g.canary == NULL || g.snap == NULL) {
		fail(2, "no memory");
		return;
	}
	for (uint32_t b = 0; b < g.max; b++)
		g.canary[b] = (uint8_t)(0xa5 ^ (b * 0x3b) ^ (b >> 8));
	if (doca_mmap_create(&g.mmap) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(g.mmap, g.mem, g.mem_len) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(g.mmap, g.dev) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(g.mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) !=
		    DOCA_SUCCESS ||
	    doca_mmap_start(g.mmap) != DOCA_SUCCESS || doca_buf_inventory_create(POSTS + 2, &g.inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(g.inv) != DOCA_SUCCESS)
		fail(2, "cannot set up the mmap and the buf inventory");
}

/* Flushed buffers were read already (count_late_writes): now everything can go. */
static void free_memory(void)
{
	for (uint32_t k = 0; k < POSTS; k++)
		if (g.rbuf[k] != NULL)
			(void)doca_buf_dec_refcount(g.rbuf[k], NULL);
	if (g.inv != NULL &&
	    (doca_buf_inventory_stop(g.inv) != DOCA_SUCCESS || doca_buf_inventory_destroy(g.inv) != DOCA_SUCCESS))
		fail(3, "cannot destroy the buf inventory");
	if (g.mmap != NULL && doca_mmap_destroy(g.mmap) != DOCA_SUCCESS)
		fail(3, "cannot destroy the mmap");
	if (g.shared)
		(void)ferry_mem_free_shared(g.mem);
	else
		free(g.mem);
	free(g.expect);
	free(g.canary);
	free(g.snap);
}

static void parse_args(int argc, char **argv)
{
	g.seed = 1;
	g.max = 65536;
	g.inflight = 1;
	for (int i = 5; i < argc; i++) {
		if (strcmp(argv[i], "--shared") == 0)
			g.shared = true;
		else if (strcmp(argv[i], "--chaos") == 0)
			g.chaos = true;
		else if (strcmp(argv[i], "--stop-at-random") == 0)
			g.stop_random = true;
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			g.seed = strtoull(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
			g.max = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--stop-after") == 0 && i + 1 < argc)
			g.stop_after = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--post-delay-ms") == 0 && i + 1 < argc)
			g.post_delay_ms = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--inflight") == 0 && i + 1 < argc)
			g.inflight = (uint32_t)strtoul(argv[++i], NULL, 0);
		else if (strcmp(argv[i], "--producer-pe") == 0 && i + 1 < argc && strcmp(argv[i + 1], "conn") == 0)
			g.own_pe = false, i++;
		else if (strcmp(argv[i], "--producer-pe") == 0 && i + 1 < argc && strcmp(argv[i + 1], "own") == 0)
			g.own_pe = true, i++;
		else
			exit(2);
	}
	if (g.max == 0 || g.inflight == 0 || g.inflight > POSTS)
		exit(2);
	if (g.stop_after == 0 || g.stop_after > g.n)
		g.stop_after = g.n;
	g.stop_count = g.n != 0 ? (uint32_t)(mix(g.seed ^ 0x5700) % g.n) : 0;
	g.stop_at_us = (long)(mix(g.seed ^ 0x5701) % RANDOM_STOP_US); /* from the first post on */
}

/* Connected: one side's part, then the server waits for its client to leave. */
static void run(void)
{
	printf("listening\n");
	fflush(stdout);
	if (!progress_until(have_conn, g.chaos && g.is_server ? CHAOS_ACCEPT_MS : 0)) {
		fail(3, "no connection");
		return;
	}
	say("connected", 1);
	g.rc = g.sending ? run_send() : run_recv();
	/* The server leaves when its client left; the client just stops. */
	if (g.rc == 0 && g.is_server && !progress_until(client_left, g.chaos ? CHAOS_LEAVE_MS : 0))
		fail(3, "the client did not leave in time");
}

int main(int argc, char **argv)
{
	const char *limit = getenv("FERRY_TEST_LIMIT_S");

	if (argc < 5 || (strcmp(argv[1], "server") != 0 && strcmp(argv[1], "client") != 0))
		return 2;
	g.is_server = strcmp(argv[1], "server") == 0;
	g.sending = strcmp(argv[3], "send") == 0;
	g.n = (uint32_t)strtoul(argv[4], NULL, 0);
	parse_args(argc, argv);
	signal(SIGALRM, on_alarm);
	alarm(limit != NULL ? (unsigned)atoi(limit) : 20u);
	if (g.chaos)
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the test, even stopped */
	if (doca_pe_create(&g.pe) != DOCA_SUCCESS || !open_device())
		return 2;
	g.ppe = g.pe;
	if (g.chaos)
		start_agent();
	report("baseline");
	if (g.rc == 0)
		setup_memory();
	if (g.rc == 0)
		open_endpoint(argv[2]);
	if (g.rc == 0)
		run();
	producer_close();
	consumer_close();
	close_endpoint();
	free_memory();
	report("final");
	if (g.rep != NULL)
		(void)doca_dev_rep_close(g.rep);
	(void)doca_dev_close(g.dev);
	(void)doca_pe_destroy(g.pe);
	return g.rc;
}
