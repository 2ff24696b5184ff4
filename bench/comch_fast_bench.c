/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch_fast_bench.c - the DOCA Comch fast path (producers and consumers across
 * two processes) against its peers, in one run (a command, not a test):
 *
 *   build-<dir>/bench/comch_fast_bench [--seconds S] [--window W] [--rounds R]
 *                                      [--only rate,lat,cma] [--size N] [--no-ucx] [--one-pe]
 *
 * Parts, for 64 B, 4 KiB, 64 KiB and 1 MiB messages:
 *
 *   rate  a forked DPU-side process runs a consumer that keeps W buffers
 *         posted (reposting each as it completes); this process runs a
 *         producer that keeps W sends in flight for S seconds. The consumer's
 *         memory is shareable (ferry_mem_alloc_shared: the producer copies
 *         with memcpy into a shared mapping). Peers: memcpy over the same span
 *         (W slots of the size, source and destination apart), UCX
 *         ucx_perftest -t ucp_am_bw, and a raw Unix SEQPACKET stream to a
 *         forked reader (up to 64 KiB, the socket's datagram limit).
 *   lat   ping-pong, one message in flight: each side runs a producer and a
 *         consumer (shared memory); the DPU side sends back each message it
 *         receives. One-way latency = round trip / 2, median and mean over
 *         every iteration of S seconds. Peer: ucx_perftest -t ucp_am_lat.
 *   cma   the rate part with the consumer's memory from aligned_alloc (the
 *         producer writes it with process_vm_writev: cross-memory attach).
 *         Peer: raw process_vm_writev of the same sizes into a forked child's
 *         buffer of the same span, one call per message.
 *
 * Each side progresses its producer and consumer on a PE of their own and
 * the connection's PE (server or client) once in 1024 turns, as a program
 * whose data path has PEs of its own does (progressing a server or client
 * costs a system call); --one-pe puts everything on the connection's PE,
 * progressed every turn.
 *
 * Both processes are pinned (producer or ping side on CPU 0, the other on
 * CPU 1), and so are UCX's (client -c 0, server -c 1): see docs PERF.md.
 * UCX runs with UCX_TLS=sm,self unless the environment sets UCX_TLS; without
 * ucx_perftest on PATH the UCX columns read n/a and Ferry's part still runs.
 * With R rounds each figure is the best round (Ferry and its peer measured
 * back to back in each). Defaults: S 0.5, W 16, R 2, all parts: about 40 s
 * on a 2-core VM. Prints a table per part, one "comch_fast_bench:" line per
 * figure for scripts, and a summary of the ratios against the targets of
 * issue 9 (item 8).
 *
 * A sweep (bench_util.h's --sizes, --depths, --seconds, --json; `ferry bench
 * fast`) measures each size (1 B..1 MiB) at each depth (the rate part's
 * window) and prints rows (one round unless --rounds):
 *   case "shared": the rate part's figure and the lat part's latency (one
 *     message in flight whatever the depth), against ucx_perftest
 *     ("ucx_perftest": ucp_am_bw's rate, ucp_am_lat's latency);
 *   case "cma": the cma part's rate against raw process_vm_writev, latency
 *     the mean time a send is in flight (depth / rate) against one call's.
 * --only rate or lat keeps case "shared" (with only that figure), cma keeps "cma".
 */
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
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

#include "bench_ucx.h"
#include "bench_util.h"
#include "ferry_test_dev.h"

#define BENCH_NAME  "comch-fast-bench"
#define MAX_WINDOW  64u
#define N_SIZES     4
#define HIST_NS     (1u << 20) /* round trips are binned by the nanosecond up to ~1 ms, the rest in one bin */
#define MIN_COUNT   16         /* a rate or latency figure counts at least this many messages ... */
#define MAX_EXTRA_S 5.0        /* ... taking up to this much longer than asked on a loaded machine */

static const uint32_t sizes[N_SIZES] = {64, 4096, 65536, 1u << 20};

/* One process's side of a run: the connection, its memory, and its producer and/or consumer. */
struct side {
	struct doca_pe *pe;  /* the connection's (server or client) */
	struct doca_pe *dpe; /* the producer's and consumer's: pe itself with --one-pe */
	unsigned ticks;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_comch_connection *conn;
	bool conn_gone;
	bool shared;
	uint8_t *mem;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *bufs[MAX_WINDOW + 1];
	uint32_t n_bufs;
	struct doca_comch_producer *producer;
	struct doca_comch_consumer *consumer;
	uint32_t remote_id;
	uint64_t done;
	bool stopping;
	bool failed;
	uint32_t in_flight;
	/* ping-pong */
	bool ping; /* this side sends first and times round trips */
	struct doca_comch_producer_task_send *send;
	bool send_busy; /* the one send task is submitted */
	bool send_owed; /* a message came in while it was: send when it completes */
	uint64_t t_sent;
	uint32_t *hist;
};

static struct side s;
static unsigned run_seq;
static bool one_pe;         /* --one-pe: producer and consumer on the connection's PE */
static uint64_t last_count; /* messages the last rate figure counted (producer_run, pvw_rate) */
static uint32_t only_size;  /* --size N: only that one of sizes[] (0: all) */

/* Whether a part measures @p size in this run (--size). */
static bool size_wanted(uint32_t size)
{
	return only_size == 0 || only_size == size;
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

static double dmin(double a, double b)
{
	return a < b ? a : b;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ns per bench_ticks tick: round trips are timed with bench_util.h's fine clock. */
static double ns_per_tick = 1.0;

/*
 * Progress calls between two looks at the clock in a measuring loop: a look
 * costs ~20 ns, a call at 64 B moves a few messages, so one look per call
 * would be the bench's own cost inside Ferry's figure.
 */
#define TURNS_PER_CLOCK 64u

static void free_send(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static bool start_ctx(struct doca_pe *pe, struct doca_ctx *ctx)
{
	doca_error_t err;

	if (doca_pe_connect_ctx(pe, ctx) != DOCA_SUCCESS)
		return false;
	err = doca_ctx_start(ctx);
	return err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS;
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(ctx, &st);
	return st;
}

/* Both PEs once: setup and teardown. */
static int progress_all(void)
{
	int n = (int)doca_pe_progress(s.pe);

	if (s.dpe != s.pe)
		n += (int)doca_pe_progress(s.dpe);
	return n;
}

/*
 * The measured loops: the data PE every time, the connection's PE (events,
 * control frames: a system call each) once in 1024, as a program whose data
 * path runs on PEs of its own does it.
 */
static void progress_hot(void)
{
	(void)doca_pe_progress(s.dpe);
	if (s.dpe != s.pe && (++s.ticks & 1023u) == 0)
		(void)doca_pe_progress(s.pe);
}

/* TURNS_PER_CLOCK turns of progress_hot, or fewer once something failed. */
static void progress_turns(void)
{
	for (unsigned k = 0; k < TURNS_PER_CLOCK && !s.failed; k++)
		progress_hot();
}

/* Progress until @p ctx is RUNNING; false when it fails to get there in 5 s. */
static bool wait_running(struct doca_ctx *ctx)
{
	double t0 = now_s();

	while (state_of(ctx) != DOCA_CTX_STATE_RUNNING)
		if (progress_all() == 0 && (s.conn_gone || now_s() - t0 > 5))
			return false;
	return true;
}

static bool map_memory(size_t len, bool shared)
{
	s.shared = shared;
	/* aligned_alloc wants a multiple of the alignment (a 64 B window of 4 is 256 bytes). */
	s.mem = shared ? ferry_mem_alloc_shared(len) : aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	if (s.mem == NULL)
		return false;
	memset(s.mem, 0x5a, len);
	return doca_mmap_create(&s.mmap) == DOCA_SUCCESS &&
	       doca_mmap_set_memrange(s.mmap, s.mem, len) == DOCA_SUCCESS &&
	       doca_mmap_add_dev(s.mmap, s.dev) == DOCA_SUCCESS &&
	       doca_mmap_set_permissions(s.mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) ==
		       DOCA_SUCCESS &&
	       doca_mmap_start(s.mmap) == DOCA_SUCCESS &&
	       doca_buf_inventory_create(MAX_WINDOW + 1, &s.inv) == DOCA_SUCCESS &&
	       doca_buf_inventory_start(s.inv) == DOCA_SUCCESS;
}

/* A buf over slot @p k of @p size bytes: empty (to receive into) or full (to send). */
static struct doca_buf *slot_buf(uint32_t k, uint32_t size, bool full)
{
	struct doca_buf *buf = NULL;
	uint8_t *at = s.mem + (size_t)k * size;
	doca_error_t err = full ? doca_buf_inventory_buf_get_by_data(s.inv, s.mmap, at, size, &buf)
				: doca_buf_inventory_buf_get_by_addr(s.inv, s.mmap, at, size, &buf);

	if (err != DOCA_SUCCESS || s.n_bufs == MAX_WINDOW + 1)
		return NULL;
	s.bufs[s.n_bufs++] = buf;
	return buf;
}

/* ---- callbacks of both sides ---- */

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
		       uint8_t ok)
{
	(void)ev;
	if (ok)
		s.conn = conn;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			  uint8_t ok)
{
	(void)ev;
	(void)conn;
	(void)ok;
	s.conn_gone = true;
}

static void on_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	s.remote_id = id;
}

static void on_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
}

static void send_ping(void)
{
	if (s.send_busy) {
		s.send_owed = true;
		return;
	}
	if (doca_task_submit(doca_comch_producer_task_send_as_task(s.send)) != DOCA_SUCCESS) {
		s.failed = true;
		return;
	}
	s.send_busy = true;
}

static void repost(struct doca_comch_consumer_task_post_recv *task)
{
	(void)doca_buf_reset_data_len(doca_comch_consumer_task_post_recv_get_buf(task));
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS) {
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
		s.failed = true;
	}
}

/*
 * A message came in. Rate part: repost the buffer. Ping-pong: send the next
 * message (ping side) or the answer (pong side) first, then repost, so the
 * repost overlaps the message's trip (the next one waits for it anyway).
 */
static void received(struct doca_comch_consumer_task_post_recv *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	s.done++;
	if (s.send == NULL) {
		repost(task);
		return;
	}
	if (s.ping) {
		uint64_t t = bench_ticks(), rtt = (uint64_t)((double)(t - s.t_sent) * ns_per_tick);

		s.hist[rtt < HIST_NS ? rtt : HIST_NS]++;
		s.in_flight = 0;
		if (!s.stopping) {
			s.t_sent = t;
			s.in_flight = 1;
			send_ping();
		}
	} else {
		send_ping();
	}
	repost(task);
}

static void recv_failed(struct doca_comch_consumer_task_post_recv *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	if (!s.stopping && !s.failed && s.client != NULL) /* the DPU side's fail when the host leaves */
		fprintf(stderr, "comch_fast_bench: a receive failed: %s\n",
			doca_error_get_name(doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(task))));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
	if (!s.stopping)
		s.failed = true;
}

/* Rate part: resubmit each completed send. */
static void sent(struct doca_comch_producer_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	s.done++;
	if (s.stopping || doca_task_submit(doca_comch_producer_task_send_as_task(task)) != DOCA_SUCCESS) {
		doca_task_free(doca_comch_producer_task_send_as_task(task));
		s.in_flight--;
	}
}

/* Ping-pong: the one send task is free again; send what came in meanwhile. */
static void ping_sent(struct doca_comch_producer_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)task;
	(void)tud;
	(void)cud;
	s.send_busy = false;
	if (s.send_owed) {
		s.send_owed = false;
		send_ping();
	}
}

static void send_failed(struct doca_comch_producer_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	if (!s.failed) /* say why once: a figure of 0 alone does not */
		fprintf(stderr, "comch_fast_bench: a send failed: %s\n",
			doca_error_get_name(doca_task_get_status(doca_comch_producer_task_send_as_task(task))));
	if (task == s.send) {
		s.send_busy = false;
	} else {
		doca_task_free(doca_comch_producer_task_send_as_task(task));
		s.in_flight--;
	}
	s.failed = true;
}

/* ---- opening and closing a side ---- */

static bool create_pes(void)
{
	if (doca_pe_create(&s.pe) != DOCA_SUCCESS)
		return false;
	s.dpe = s.pe;
	return one_pe || doca_pe_create(&s.dpe) == DOCA_SUCCESS;
}

/* The DPU side: server, its first connection, and memory for @p len bytes. */
static bool dpu_open(size_t len, bool shared)
{
	s.dev = ferry_test_open_dev(NULL, doca_comch_cap_server_is_supported);
	s.rep = s.dev != NULL ? ferry_test_open_rep(s.dev, NULL) : NULL;
	if (!create_pes() || s.rep == NULL || !map_memory(len, shared) ||
	    doca_comch_server_create(s.dev, s.rep, BENCH_NAME, &s.server) != DOCA_SUCCESS ||
	    doca_comch_server_task_send_set_conf(s.server, free_send, free_send, 8) != DOCA_SUCCESS ||
	    doca_comch_server_event_connection_status_changed_register(s.server, on_connect, on_disconnect) !=
		    DOCA_SUCCESS ||
	    doca_comch_server_event_consumer_register(s.server, on_new_consumer, on_expired_consumer) != DOCA_SUCCESS ||
	    !start_ctx(s.pe, doca_comch_server_as_ctx(s.server)))
		return false;
	for (double t0 = now_s(); s.conn == NULL;)
		if (doca_pe_progress(s.pe) == 0) {
			if (now_s() - t0 > 10)
				return false;
			usleep(10);
		}
	return true;
}

/* The host side: client connected to the DPU side's server, and memory for @p len bytes. */
static bool host_open(size_t len, bool shared)
{
	s.dev = ferry_test_open_dev(NULL, doca_comch_cap_client_is_supported);
	if (!create_pes() || s.dev == NULL || !map_memory(len, shared) ||
	    doca_comch_client_create(s.dev, BENCH_NAME, &s.client) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_set_conf(s.client, free_send, free_send, 8) != DOCA_SUCCESS ||
	    doca_comch_client_event_consumer_register(s.client, on_new_consumer, on_expired_consumer) != DOCA_SUCCESS ||
	    !start_ctx(s.pe, doca_comch_client_as_ctx(s.client)) || !wait_running(doca_comch_client_as_ctx(s.client)))
		return false;
	return doca_comch_client_get_connection(s.client, &s.conn) == DOCA_SUCCESS;
}

/* Progress until @p ctx (if any) is IDLE, for at most 2 s. */
static bool wait_idle(struct doca_ctx *ctx)
{
	double t0 = now_s();

	while (ctx != NULL && state_of(ctx) != DOCA_CTX_STATE_IDLE)
		if (progress_all() == 0 && now_s() - t0 > 2)
			return false;
	return true;
}

/*
 * The host side's teardown as a DOCA program does it: producer and consumer
 * stopped, then the client, everything destroyed, memory freed. False (and
 * the rest left to the end of the process) at the first step that fails.
 */
static bool host_teardown(void)
{
	struct doca_ctx *pctx = s.producer != NULL ? doca_comch_producer_as_ctx(s.producer) : NULL;
	struct doca_ctx *cctx = s.consumer != NULL ? doca_comch_consumer_as_ctx(s.consumer) : NULL;

	s.stopping = true;
	for (double t0 = now_s(); (s.in_flight > 0 || s.send_busy) && now_s() - t0 < 2;)
		(void)progress_all();
	if (s.send != NULL && !s.send_busy)
		doca_task_free(doca_comch_producer_task_send_as_task(s.send));
	if (pctx != NULL)
		(void)doca_ctx_stop(pctx);
	if (cctx != NULL)
		(void)doca_ctx_stop(cctx);
	if (s.client == NULL || !wait_idle(pctx) || !wait_idle(cctx))
		return false;
	(void)doca_ctx_stop(doca_comch_client_as_ctx(s.client));
	if (!wait_idle(doca_comch_client_as_ctx(s.client)) ||
	    (s.producer != NULL && doca_comch_producer_destroy(s.producer) != DOCA_SUCCESS) ||
	    (s.consumer != NULL && doca_comch_consumer_destroy(s.consumer) != DOCA_SUCCESS) ||
	    doca_comch_client_destroy(s.client) != DOCA_SUCCESS)
		return false;
	for (uint32_t k = 0; k < s.n_bufs; k++)
		if (doca_buf_dec_refcount(s.bufs[k], NULL) != DOCA_SUCCESS)
			return false;
	if (doca_buf_inventory_stop(s.inv) != DOCA_SUCCESS || doca_buf_inventory_destroy(s.inv) != DOCA_SUCCESS ||
	    doca_mmap_stop(s.mmap) != DOCA_SUCCESS || doca_mmap_destroy(s.mmap) != DOCA_SUCCESS ||
	    (s.dpe != s.pe && doca_pe_destroy(s.dpe) != DOCA_SUCCESS) || doca_pe_destroy(s.pe) != DOCA_SUCCESS ||
	    doca_dev_close(s.dev) != DOCA_SUCCESS)
		return false;
	if (s.shared)
		return ferry_mem_free_shared(s.mem) == 0;
	free(s.mem);
	return true;
}

static void host_close(void)
{
	if (!host_teardown())
		fprintf(stderr,
			"comch_fast_bench: the host side's teardown did not finish; the rest is left to exit\n");
}

/* A fresh Ferry domain for each run, so no run meets the last one's server. */
static void new_domain(void)
{
	char domain[64];

	snprintf(domain, sizeof(domain), "comch-fast-bench-%d-%u", (int)getpid(), run_seq++);
	setenv("FERRY_DOMAIN", domain, 1);
}

/* Fork the DPU side (pinned to CPU 1; dies with us); this process goes to CPU 0. */
static pid_t fork_dpu(int (*dpu_main)(uint32_t, uint32_t, bool), uint32_t size, uint32_t window, bool shared)
{
	pid_t parent = getpid();
	pid_t child;

	new_domain();
	memset(&s, 0, sizeof(s));
	fflush(stdout);
	child = fork();
	if (child == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(2);
		pin_to(1);
		_exit(dpu_main(size, window, shared));
	}
	pin_to(0);
	return child;
}

static bool reap_dpu(pid_t child)
{
	int status = 0;

	if (child <= 0 || waitpid(child, &status, 0) != child)
		return false;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (WIFEXITED(status))
		fprintf(stderr, "comch_fast_bench: the DPU side exited with status %d\n", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "comch_fast_bench: the DPU side was killed by signal %d\n", WTERMSIG(status));
	return false;
}

/* ---- rate: the DPU side consumes, the host side produces ---- */

static int consumer_main(uint32_t size, uint32_t window, bool shared)
{
	if (!dpu_open((size_t)size * window, shared) ||
	    doca_comch_consumer_create(s.conn, s.mmap, &s.consumer) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(s.consumer, received, recv_failed, window) != DOCA_SUCCESS ||
	    !start_ctx(s.dpe, doca_comch_consumer_as_ctx(s.consumer)) ||
	    !wait_running(doca_comch_consumer_as_ctx(s.consumer)))
		return 2;
	for (uint32_t k = 0; k < window; k++) {
		struct doca_buf *buf = slot_buf(k, size, false);
		struct doca_comch_consumer_task_post_recv *task = NULL;

		if (buf == NULL ||
		    doca_comch_consumer_task_post_recv_alloc_init(s.consumer, buf, &task) != DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS)
			return 2;
	}
	while (!s.conn_gone)
		progress_hot();
	return 0; /* the process ends; the OS reclaims the rest */
}

/* A producer run's setup failed: say which step, after how long; the rate is 0. */
static double setup_failed(const char *what, double t0)
{
	fprintf(stderr, "comch_fast_bench: host side: %s (after %.2f s)\n", what, now_s() - t0);
	return 0;
}

/* Messages per second of one producer run; 0 on failure. */
static double producer_run(uint32_t size, uint32_t window, double seconds)
{
	double t0, t1;
	uint64_t before;

	t0 = now_s();
	if (!host_open((size_t)size * window, false))
		return setup_failed("the client did not connect", t0);
	if (doca_comch_producer_create(s.conn, &s.producer) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(s.producer, sent, send_failed, window) != DOCA_SUCCESS ||
	    !start_ctx(s.dpe, doca_comch_producer_as_ctx(s.producer)))
		return setup_failed("the producer did not start", t0);
	for (t0 = now_s(); s.remote_id == 0;)
		if (progress_all() == 0 && now_s() - t0 > 5)
			return setup_failed("no consumer was announced", t0);
	for (uint32_t k = 0; k < window; k++) {
		struct doca_buf *buf = slot_buf(k, size, true);
		struct doca_comch_producer_task_send *task = NULL;

		if (buf == NULL ||
		    doca_comch_producer_task_send_alloc_init(s.producer, buf, NULL, 0, s.remote_id, &task) !=
			    DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_producer_task_send_as_task(task)) != DOCA_SUCCESS)
			return setup_failed("a send was refused", t0);
		s.in_flight++;
	}
	/* warm up briefly, then count */
	for (t0 = now_s(); now_s() - t0 < 0.05;)
		progress_hot();
	before = s.done;
	t0 = now_s();
	/* At least MIN_COUNT messages, however long a loaded machine takes (up to MAX_EXTRA_S more): a figure of 0 says nothing. */
	do
		progress_turns();
	while (((t1 = now_s()) - t0 < seconds || (s.done - before < MIN_COUNT && t1 - t0 < seconds + MAX_EXTRA_S)) &&
	       !s.failed);
	last_count = s.done - before;
	if (s.failed || last_count == 0)
		fprintf(stderr, "comch_fast_bench: host side: %s\n",
			s.failed ? "a send failed" : "no send completed in the time given");
	return s.failed ? 0 : (double)(s.done - before) / (t1 - t0);
}

static double fast_rate(uint32_t size, uint32_t window, double seconds, bool shared)
{
	pid_t child = fork_dpu(consumer_main, size, window, shared);
	double rate = child > 0 ? producer_run(size, window, seconds) : 0;

	host_close();
	if (!reap_dpu(child)) {
		fprintf(stderr, "comch_fast_bench: %s rate run of %u B: the DPU side failed\n",
			shared ? "shared" : "CMA", size);
		return 0;
	}
	return rate;
}

/* ---- lat: ping-pong, each side a producer and a consumer; slot 0 receives, slot 1 sends ---- */

/* Both sides: producer and consumer up, the peer's consumer known, slot 0 posted, the send task ready. */
static bool pingpong_setup(uint32_t size)
{
	struct doca_buf *rbuf = slot_buf(0, size, false), *sbuf = slot_buf(1, size, true);
	struct doca_comch_consumer_task_post_recv *recv = NULL;

	if (rbuf == NULL || sbuf == NULL || doca_comch_consumer_create(s.conn, s.mmap, &s.consumer) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(s.consumer, received, recv_failed, 1) != DOCA_SUCCESS ||
	    doca_comch_producer_create(s.conn, &s.producer) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(s.producer, ping_sent, send_failed, 1) != DOCA_SUCCESS ||
	    !start_ctx(s.dpe, doca_comch_consumer_as_ctx(s.consumer)) ||
	    !start_ctx(s.dpe, doca_comch_producer_as_ctx(s.producer)) ||
	    !wait_running(doca_comch_consumer_as_ctx(s.consumer)) ||
	    !wait_running(doca_comch_producer_as_ctx(s.producer)))
		return false;
	for (double t0 = now_s(); s.remote_id == 0;)
		if (progress_all() == 0 && (s.conn_gone || now_s() - t0 > 5))
			return false;
	return doca_comch_consumer_task_post_recv_alloc_init(s.consumer, rbuf, &recv) == DOCA_SUCCESS &&
	       doca_task_submit(doca_comch_consumer_task_post_recv_as_task(recv)) == DOCA_SUCCESS &&
	       doca_comch_producer_task_send_alloc_init(s.producer, sbuf, NULL, 0, s.remote_id, &s.send) ==
		       DOCA_SUCCESS;
}

/* The DPU side sends back every message it receives, until the host leaves. */
static int pong_main(uint32_t size, uint32_t window, bool shared)
{
	(void)window;
	if (!dpu_open(2 * (size_t)size, shared) || !pingpong_setup(size))
		return 2;
	while (!s.conn_gone) /* a failure here shows on the host side as a message that never came back */
		progress_hot();
	return 0;
}

struct lat {
	uint64_t iters;
	double median_us, mean_us, p99_us; /* one-way: round trip / 2 */
};

/* The nanosecond bin holding the @p q quantile of @p n round trips. */
static double hist_quantile(const uint32_t *hist, uint64_t n, double q)
{
	uint64_t want = (uint64_t)(q * (double)n) + 1, seen = 0;

	for (uint32_t b = 0; b <= HIST_NS; b++) {
		seen += hist[b];
		if (seen >= want)
			return b;
	}
	return HIST_NS;
}

static bool ping_run(uint32_t size, double seconds, struct lat *out)
{
	uint64_t t0, t1;

	s.ping = true;
	s.hist = calloc(HIST_NS + 1, sizeof(*s.hist));
	t0 = now_ns();
	if (s.hist == NULL || !host_open(2 * (size_t)size, true)) {
		(void)setup_failed("the client did not connect", (double)t0 / 1e9);
		return false;
	}
	if (!pingpong_setup(size)) {
		(void)setup_failed("the ping-pong did not set up", (double)t0 / 1e9);
		return false;
	}
	/* warm up for 50 ms, then start the count afresh */
	ns_per_tick = bench_ticks_calibrate();
	s.t_sent = bench_ticks();
	s.in_flight = 1;
	send_ping();
	for (t0 = now_ns(); now_ns() - t0 < 50000000u && !s.failed;)
		progress_turns();
	s.stopping = true; /* let the message in flight come back */
	for (t0 = now_ns(); s.in_flight > 0 && !s.failed && now_ns() - t0 < 1000000000u;)
		progress_hot();
	memset(s.hist, 0, (HIST_NS + 1) * sizeof(*s.hist));
	s.stopping = false;
	s.done = 0;
	t0 = now_ns();
	s.t_sent = bench_ticks();
	s.in_flight = 1;
	send_ping();
	do
		progress_turns();
	while (((t1 = now_ns()) - t0 < (uint64_t)(seconds * 1e9) ||
		(s.done < MIN_COUNT && t1 - t0 < (uint64_t)((seconds + MAX_EXTRA_S) * 1e9))) &&
	       !s.failed);
	s.stopping = true;
	for (t1 = now_ns(); s.in_flight > 0 && !s.failed && now_ns() - t1 < 1000000000u;)
		progress_hot();
	t1 = now_ns();
	if (s.failed || s.in_flight > 0 || s.done == 0) {
		fprintf(stderr, "comch_fast_bench: ping-pong of %u B: %s\n", size,
			s.failed          ? "a task failed"
			: s.in_flight > 0 ? "a message did not come back within 1 s"
					  : "no round trip in the time given");
		return false;
	}
	out->iters = s.done;
	out->mean_us = (double)(t1 - t0) / (double)s.done / 2e3;
	out->median_us = hist_quantile(s.hist, s.done, 0.5) / 2e3;
	out->p99_us = hist_quantile(s.hist, s.done, 0.99) / 2e3;
	return true;
}

static bool fast_lat(uint32_t size, double seconds, struct lat *out)
{
	pid_t child = fork_dpu(pong_main, size, 1, true);
	bool ok = child > 0 && ping_run(size, seconds, out);

	host_close();
	free(s.hist);
	return reap_dpu(child) && ok;
}

/* ---- raw peers ---- */

/* memcpy over the span of a rate run: @p window slots of @p size, source and destination apart. */
static double memcpy_rate(uint32_t size, uint32_t window, double seconds)
{
	size_t span = (size_t)size * window;
	uint8_t *a = aligned_alloc(4096, (span + 4095) & ~(size_t)4095);
	uint8_t *b = aligned_alloc(4096, (span + 4095) & ~(size_t)4095);
	uint64_t n = 0;
	double t0 = now_s(), t1;

	if (a == NULL || b == NULL)
		return 0;
	memset(a, 1, span);
	memset(b, 2, span);
	do {
		for (uint32_t k = 0; k < window; k++, n++) {
			memcpy(b + (size_t)k * size, a + (size_t)k * size, size);
			__asm__ volatile("" : : "r"(b) : "memory"); /* keep the copy */
		}
	} while ((t1 = now_s()) - t0 < seconds);
	free(a);
	free(b);
	return (double)n / (t1 - t0);
}

static double socket_rate(uint32_t size, double seconds)
{
	int sv[2];
	uint8_t *buf;
	uint64_t n = 0;
	double t0, t1;
	pid_t child;

	if (size > 65536 || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
		return 0;
	buf = malloc(size);
	fflush(stdout);
	child = buf != NULL ? fork() : -1;
	if (child == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin_to(1);
		close(sv[0]);
		while (recv(sv[1], buf, size, 0) > 0)
			;
		_exit(0);
	}
	close(sv[1]);
	if (child > 0) {
		memset(buf, 3, size);
		t0 = now_s();
		do {
			for (int k = 0; k < 16; k++, n++)
				if (send(sv[0], buf, size, 0) != (ssize_t)size)
					n = 0;
		} while ((t1 = now_s()) - t0 < seconds && n > 0);
	}
	close(sv[0]);
	if (child > 0)
		waitpid(child, NULL, 0);
	free(buf);
	return n > 0 ? (double)n / (t1 - t0) : 0;
}

/*
 * Raw cross-memory attach: process_vm_writev from @p window slots of @p size
 * here into the same slots of a forked child's buffer (allocated as the CMA
 * consumer's memory is), one call per message, round robin.
 */
static double pvw_rate(uint32_t size, uint32_t window, double seconds)
{
	size_t span = (size_t)size * window;
	int up[2], hold[2];
	size_t alloc = (span + 4095) & ~(size_t)4095;
	uint8_t *src = aligned_alloc(4096, alloc), *dst = NULL;
	uint64_t n = 0;
	double t0 = 0, t1 = 0;
	pid_t child;

	if (src == NULL || pipe(up) != 0)
		return 0;
	if (pipe(hold) != 0) {
		close(up[0]);
		close(up[1]);
		return 0;
	}
	fflush(stdout);
	child = fork();
	if (child == 0) {
		char c;

		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		pin_to(1);
		close(hold[1]);
		dst = aligned_alloc(4096, alloc);
		if (dst != NULL)
			memset(dst, 0, span);
		(void)!write(up[1], &dst, sizeof(dst));
		(void)!read(hold[0], &c, 1); /* until the writer is done */
		_exit(0);
	}
	close(up[1]);
	close(hold[0]);
	memset(src, 4, span);
	if (child > 0 && read(up[0], &dst, sizeof(dst)) == (ssize_t)sizeof(dst) && dst != NULL) {
		t0 = now_s();
		do {
			for (uint32_t k = 0; k < window; k++, n++) {
				struct iovec l = {.iov_base = src + (size_t)k * size, .iov_len = size};
				struct iovec r = {.iov_base = dst + (size_t)k * size, .iov_len = size};

				if (process_vm_writev(child, &l, 1, &r, 1, 0) != (ssize_t)size) {
					n = 0;
					break;
				}
			}
		} while ((t1 = now_s()) - t0 < seconds && n > 0);
	}
	close(up[0]);
	close(hold[1]);
	if (child > 0)
		waitpid(child, NULL, 0);
	free(src);
	last_count = n;
	return n > 0 ? (double)n / (t1 - t0) : 0;
}

/* ---- UCX ---- */

static char ucx_exe[4096];
static bool have_ucx;

/* Iterations of ucx_perftest -t @p test for about @p seconds on this kind of machine (PERF.md's figures). */
static uint64_t ucx_iters(bool lat, uint32_t size, double seconds)
{
	/* one-way latency ~0.5 us at 64 B; rate ~4 M/s at 64 B; above 4 KiB both bound by ~5 GB/s */
	double per_s = lat ? 1e6 : 4e6;

	if (size > 4096)
		per_s = dmin(per_s, 5e9 / size / (lat ? 2 : 1));
	else if (size > 64)
		per_s /= 3;
	return (uint64_t)dmax(1000, per_s * seconds);
}

static bool ucx(const char *test, uint32_t size, double seconds, struct bench_ucx *out)
{
	char why[512];

	if (!have_ucx)
		return false;
	fflush(stdout);
	if (bench_ucx_run(ucx_exe, test, size, ucx_iters(strstr(test, "lat") != NULL, size, seconds),
			  sysconf(_SC_NPROCESSORS_ONLN) >= 2, out, why, sizeof(why)))
		return true;
	fprintf(stderr, "comch_fast_bench: %s\n", why);
	return false;
}

/* ---- output ---- */

static const char *size_name(uint32_t size)
{
	static char buf[4][16];
	static int k;
	char *b = buf[k++ % 4];

	if (size >= (1u << 20))
		snprintf(b, 16, "%u MiB", size >> 20);
	else if (size >= 1024)
		snprintf(b, 16, "%u KiB", size >> 10);
	else
		snprintf(b, 16, "%u B", size);
	return b;
}

/* "  5.02 M (0.32 GB/s)" or "n/a" */
static void print_rate(double rate, uint32_t size)
{
	char b[40];

	if (rate <= 0)
		snprintf(b, sizeof(b), "n/a");
	else if (rate >= 1e6)
		snprintf(b, sizeof(b), "%.2f M (%.2f GB/s)", rate / 1e6, rate * size / 1e9);
	else
		snprintf(b, sizeof(b), "%.1f k (%.2f GB/s)", rate / 1e3, rate * size / 1e9);
	printf(" %22s", b);
}

static void print_ratio(double a, double b)
{
	if (a > 0 && b > 0)
		printf(" %9.2fx", a / b);
	else
		printf(" %10s", "n/a");
}

static void machine_rate(const char *part, const char *path, uint32_t size, double rate)
{
	if (rate > 0)
		printf("comch_fast_bench: part=%s path=%s size=%u msgs_per_s=%.0f gb_per_s=%.3f\n", part, path, size,
		       rate, rate * size / 1e9);
}

struct target {
	const char *name, *key, *goal;
	double ratio; /* 0: not measured */
	bool at_most; /* goal is ratio <= bound, else ratio >= bound */
	double bound;
};

#define MAX_TARGETS 8
static struct target targets[MAX_TARGETS];
static unsigned n_targets;

static void target(const char *name, const char *key, double num, double den, bool at_most, double bound)
{
	struct target *t = &targets[n_targets++];

	t->name = name;
	t->key = key;
	t->ratio = num > 0 && den > 0 ? num / den : 0;
	t->at_most = at_most;
	t->bound = bound;
}

static void print_targets(void)
{
	printf("\ntargets (issue 9, item 8): ratios from this run\n");
	for (unsigned i = 0; i < n_targets; i++) {
		const struct target *t = &targets[i];
		bool met = t->at_most ? t->ratio <= t->bound : t->ratio >= t->bound;

		if (t->ratio > 0)
			printf("  %-44s %7.2fx   target %s %.1fx   %s\n", t->name, t->ratio,
			       t->at_most ? "<=" : ">=", t->bound, met ? "met" : "NOT met");
		else
			printf("  %-44s %8s   target %s %.1fx\n", t->name, "n/a", t->at_most ? "<=" : ">=", t->bound);
		if (t->ratio > 0)
			printf("comch_fast_bench: target=%s ratio=%.3f goal=%s%.1f met=%d\n", t->key, t->ratio,
			       t->at_most ? "<=" : ">=", t->bound, met);
	}
}

/* ---- parts ---- */

static void part_rate(uint32_t window, double seconds, unsigned rounds, double *shared_1m, double *memcpy_1m)
{
	printf("\nrate, shared memory: messages/s, %u sends in flight, %.2f s per figure, best of %u\n", window,
	       seconds, rounds);
	printf("%-8s %22s %22s %22s %22s %10s %10s\n", "size", "Ferry fast (shared)", "memcpy (same span)",
	       "UCX ucp_am_bw", "raw SEQPACKET", "/memcpy", "/UCX");
	for (int i = 0; i < N_SIZES; i++) {
		uint32_t sz = sizes[i];

		if (!size_wanted(sz))
			continue;
		double f = 0, m = 0, u = 0, k = 0;

		for (unsigned r = 0; r < rounds; r++) {
			struct bench_ucx ur = {0};

			f = dmax(f, fast_rate(sz, window, seconds, true));
			m = dmax(m, memcpy_rate(sz, window, seconds));
			if (ucx("ucp_am_bw", sz, seconds, &ur))
				u = dmax(u, ur.rate);
			k = dmax(k, socket_rate(sz, seconds));
		}
		printf("%-8s", size_name(sz));
		print_rate(f, sz);
		print_rate(m, sz);
		print_rate(u, sz);
		print_rate(k, sz);
		print_ratio(f, m);
		print_ratio(f, u);
		printf("\n");
		machine_rate("rate", "fast_shared", sz, f);
		machine_rate("rate", "memcpy", sz, m);
		machine_rate("rate", "ucx_am_bw", sz, u);
		machine_rate("rate", "seqpacket", sz, k);
		if (sz == 64)
			target("64 B message rate / UCX ucp_am_bw", "rate_64_vs_ucx_am_bw", f, u, false, 2.0);
		if (sz == (1u << 20)) {
			*shared_1m = f;
			*memcpy_1m = m;
		}
	}
}

static void part_lat(double seconds, unsigned rounds)
{
	struct lat f64 = {0};
	struct bench_ucx u64 = {0};

	printf("\nlatency, shared memory: one-way = round trip / 2, us, one message in flight, %.2f s per figure, "
	       "best of %u\n",
	       seconds, rounds);
	printf("%-8s %10s %10s %10s %12s %10s %10s %10s %10s\n", "size", "Ferry med", "mean", "p99", "iterations",
	       "UCX med", "mean", "med/UCX", "mean/UCX");
	for (int i = 0; i < N_SIZES; i++) {
		uint32_t sz = sizes[i];

		if (!size_wanted(sz))
			continue;
		struct lat f = {0};
		struct bench_ucx u = {0};

		for (unsigned r = 0; r < rounds; r++) {
			struct lat fr = {0};
			struct bench_ucx ur = {0};

			if (fast_lat(sz, seconds, &fr) && (f.iters == 0 || fr.median_us < f.median_us))
				f = fr;
			if (ucx("ucp_am_lat", sz, seconds, &ur) && (u.iters == 0 || ur.median_us < u.median_us))
				u = ur;
		}
		printf("%-8s", size_name(sz));
		if (f.iters > 0) {
			char p99[24];

			if (f.p99_us < HIST_NS / 2e3)
				snprintf(p99, sizeof(p99), "%.3f", f.p99_us);
			else /* in the last bin */
				snprintf(p99, sizeof(p99), ">%.0f", HIST_NS / 2e3);
			printf(" %10.3f %10.3f %10s %12llu", f.median_us, f.mean_us, p99, (unsigned long long)f.iters);
		} else
			printf(" %10s %10s %10s %12s", "n/a", "n/a", "n/a", "n/a");
		if (u.iters > 0)
			printf(" %10.3f %10.3f", u.median_us, u.mean_us);
		else
			printf(" %10s %10s", "n/a", "n/a");
		print_ratio(f.median_us, u.median_us);
		print_ratio(f.mean_us, u.mean_us);
		printf("\n");
		if (f.iters > 0)
			printf("comch_fast_bench: part=lat path=fast_shared size=%u oneway_median_us=%.3f "
			       "oneway_mean_us=%.3f oneway_p99_us=%.3f iters=%llu\n",
			       sz, f.median_us, f.mean_us, f.p99_us, (unsigned long long)f.iters);
		if (u.iters > 0)
			printf("comch_fast_bench: part=lat path=ucx_am_lat size=%u oneway_median_us=%.3f "
			       "oneway_mean_us=%.3f iters=%llu\n",
			       sz, u.median_us, u.mean_us, (unsigned long long)u.iters);
		if (sz == 64) {
			f64 = f;
			u64 = u;
		}
	}
	target("64 B one-way latency / UCX ucp_am_lat, median", "lat_64_median_vs_ucx_am_lat", f64.median_us,
	       u64.median_us, true, 1.0);
	target("64 B one-way latency / UCX ucp_am_lat, mean", "lat_64_mean_vs_ucx_am_lat", f64.mean_us, u64.mean_us,
	       true, 1.0);
}

static void part_cma(uint32_t window, double seconds, unsigned rounds)
{
	static const char *const names[N_SIZES] = {"CMA / process_vm_writev, 64 B", "CMA / process_vm_writev, 4 KiB",
						   "CMA / process_vm_writev, 64 KiB", "CMA / process_vm_writev, 1 MiB"};
	static const char *const keys[N_SIZES] = {"cma_64_vs_pvw", "cma_4k_vs_pvw", "cma_64k_vs_pvw", "cma_1m_vs_pvw"};

	printf("\nrate, cross-memory attach: messages/s, %u sends in flight, %.2f s per figure, best of %u\n", window,
	       seconds, rounds);
	printf("%-8s %22s %22s %10s\n", "size", "Ferry fast (CMA)", "process_vm_writev", "/raw");
	for (int i = 0; i < N_SIZES; i++) {
		uint32_t sz = sizes[i];

		if (!size_wanted(sz))
			continue;
		double f = 0, p = 0;

		for (unsigned r = 0; r < rounds; r++) {
			f = dmax(f, fast_rate(sz, window, seconds, false));
			p = dmax(p, pvw_rate(sz, window, seconds));
		}
		printf("%-8s", size_name(sz));
		print_rate(f, sz);
		print_rate(p, sz);
		print_ratio(f, p);
		printf("\n");
		machine_rate("cma", "fast_cma", sz, f);
		machine_rate("cma", "process_vm_writev", sz, p);
		target(names[i], keys[i], f, p, false, 1.0);
	}
}

static int usage(void)
{
	fprintf(stderr,
		"usage: comch_fast_bench [--seconds S] [--window 1..%u] [--rounds R] [--only rate,lat,cma] "
		"[--size 64|4096|65536|1048576] [--no-ucx] [--one-pe]\n"
		"       comch_fast_bench [--sizes LIST] [--depths LIST] [--seconds S] [--rounds R] [--only ...] "
		"[--no-ucx] [--one-pe] [--json]\n",
		MAX_WINDOW);
	return 2;
}

/*
 * A row of a rate (messages/s, 0: not measured) of @p size counted over
 * @p rate_iters messages and, when @p lat_iters is not 0, a latency over that
 * many round trips (the row's iterations then).
 */
static struct bench_row fast_row(const char *side, double rate, uint64_t rate_iters, uint32_t size, double mean_us,
				 double median_us, uint64_t lat_iters)
{
	struct bench_row r = bench_row_none(side);

	if (rate > 0) {
		r.mops = rate / 1e6;
		r.gb_per_s = rate * size / 1e9;
		r.iters = rate_iters;
	}
	if (lat_iters > 0) {
		r.lat_us = mean_us;
		r.lat_median_us = median_us;
		r.iters = lat_iters;
	}
	return r;
}

/* Keep the better of two rates, and the count behind it. */
static void keep_rate(double *best, uint64_t *best_n, double rate, uint64_t n)
{
	if (rate > *best) {
		*best = rate;
		*best_n = n;
	}
}

/* The sweep: each size at each depth, Ferry and its peers back to back, best of @p rounds. */
static int sweep(const struct bench_sweep *sw, unsigned rounds, bool do_rate, bool do_lat, bool do_cma)
{
	double seconds = sw->seconds;
	int rc = 0;

	bench_rows_header(sw->json);
	for (unsigned i = 0; i < sw->n_sizes; i++) {
		for (unsigned d = 0; d < sw->n_depths; d++) {
			uint32_t sz = (uint32_t)sw->sizes[i], window = (uint32_t)sw->depths[d];
			double f = 0, u = 0, fc = 0, p = 0;
			uint64_t fn = 0, un = 0, fcn = 0, pn = 0;
			struct lat fl = {0};
			struct bench_ucx ul = {0};
			struct bench_row fr, pr;

			for (unsigned r = 0; r < rounds; r++) {
				struct lat l = {0};
				struct bench_ucx ur = {0};

				if (do_rate) {
					double rate = fast_rate(sz, window, seconds, true);

					keep_rate(&f, &fn, rate, last_count);
					if (ucx("ucp_am_bw", sz, seconds, &ur))
						keep_rate(&u, &un, ur.rate, ur.iters);
				}
				if (do_lat) {
					if (fast_lat(sz, seconds, &l) && (fl.iters == 0 || l.median_us < fl.median_us))
						fl = l;
					if (ucx("ucp_am_lat", sz, seconds, &ur) &&
					    (ul.iters == 0 || ur.median_us < ul.median_us))
						ul = ur;
				}
				if (do_cma) {
					double rate = fast_rate(sz, window, seconds, false);

					keep_rate(&fc, &fcn, rate, last_count);
					rate = pvw_rate(sz, window, seconds);
					keep_rate(&p, &pn, rate, last_count);
				}
			}
			if (do_rate || do_lat) {
				if ((do_rate && f <= 0) || (do_lat && fl.iters == 0)) {
					fprintf(stderr, "comch_fast_bench: %u B at depth %u: Ferry's run failed\n", sz,
						window);
					rc = 1;
				}
				fr = fast_row("ferry", f, fn, sz, fl.mean_us, fl.median_us, fl.iters);
				pr = fast_row("ucx_perftest", u, un, sz, ul.mean_us, ul.median_us, ul.iters);
				if (!have_ucx || (u <= 0 && ul.iters == 0))
					pr.side = NULL;
				bench_rows_emit(sw->json, "fast", "shared", sz, window, &fr, &pr);
			}
			if (do_cma) {
				if (fc <= 0 || p <= 0) {
					fprintf(stderr, "comch_fast_bench: CMA %u B at depth %u failed\n", sz, window);
					rc = 1;
				}
				fr = fast_row("ferry", fc, fcn, sz, 0, 0, 0);
				pr = fast_row("process_vm_writev", p, pn, sz, 0, 0, 0);
				/* No ping-pong here: a send's mean time in flight (Little's law), one call's time. */
				fr.lat_us = fc > 0 ? window * 1e6 / fc : BENCH_NA;
				pr.lat_us = p > 0 ? 1e6 / p : BENCH_NA;
				bench_rows_emit(sw->json, "fast", "cma", sz, window, &fr, &pr);
			}
		}
	}
	return rc;
}

int main(int argc, char **argv)
{
	double seconds = 0.5, shared_1m = 0, memcpy_1m = 0;
	uint32_t window = 16;
	unsigned rounds = 2;
	bool do_rate = true, do_lat = true, do_cma = true, no_ucx = false, rounds_set = false;
	struct bench_sweep sw = {0};

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int r = bench_sweep_arg("comch_fast_bench", argc, argv, &i, &sw, 1u << 20, MAX_WINDOW);

		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (strcmp(a, "--no-ucx") == 0) {
			no_ucx = true;
		} else if (strcmp(a, "--one-pe") == 0) {
			one_pe = true;
		} else if (v == NULL) {
			return usage();
		} else if (strcmp(a, "--window") == 0) {
			window = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (strcmp(a, "--size") == 0) {
			only_size = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (strcmp(a, "--rounds") == 0) {
			rounds = (unsigned)strtoul(argv[++i], NULL, 0);
			rounds_set = true;
		} else if (strcmp(a, "--only") == 0) {
			do_rate = strstr(v, "rate") != NULL;
			do_lat = strstr(v, "lat") != NULL;
			do_cma = strstr(v, "cma") != NULL;
			if (!do_rate && !do_lat && !do_cma)
				return usage();
			i++;
		} else {
			return usage();
		}
	}
	if (sw.seconds > 0)
		seconds = sw.seconds;
	if (bench_sweeping(&sw)) {
		bench_sweep_defaults(&sw, 64, window, seconds);
		if (!rounds_set)
			rounds = 1;
	}
	if (seconds <= 0 || window == 0 || window > MAX_WINDOW || rounds == 0 || rounds > 100)
		return usage();

	have_ucx = !no_ucx && bench_ucx_find(ucx_exe, sizeof(ucx_exe));
	if (bench_sweeping(&sw)) {
		if (!have_ucx && !no_ucx && (do_rate || do_lat))
			fprintf(stderr, "comch_fast_bench: ucx_perftest not found (install ucx-utils): no UCX rows\n");
		return sweep(&sw, rounds, do_rate, do_lat, do_cma);
	}
	if (no_ucx)
		printf("UCX peer skipped (--no-ucx)\n");
	else if (!have_ucx)
		printf("ucx_perftest not found: install ucx-utils\n");
	else
		printf("UCX peer: %s, UCX_TLS=%s%s\n", ucx_exe,
		       getenv("UCX_TLS") != NULL ? getenv("UCX_TLS") : "sm,self",
		       sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? ", client on CPU 0, server on CPU 1" : "");
	printf("Ferry: host side on CPU 0, DPU side on CPU 1; %s\n",
	       one_pe ? "producer and consumer on the connection's PE (--one-pe)"
		      : "producer and consumer on a PE of their own, the connection's PE progressed once in 1024");

	if (do_rate)
		part_rate(window, seconds, rounds, &shared_1m, &memcpy_1m);
	if (do_lat)
		part_lat(seconds, rounds);
	if (do_rate)
		target("1 MiB shared / memcpy of the same span", "shared_1m_vs_memcpy", shared_1m, memcpy_1m, false,
		       0.9);
	if (do_cma)
		part_cma(window, seconds, rounds);
	print_targets();
	return 0;
}
