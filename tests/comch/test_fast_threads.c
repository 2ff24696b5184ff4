/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fast_threads.c - DOCA's threading model on the Comch fast path (issue 9,
 * items 1 and 3), through the public API only: the DPU-side server and the
 * host-side client in one process, their PE progressed by the main thread;
 * every producer and consumer on a PE of its own, progressed by a thread of its
 * own. Only DOCA's rule holds: one thread per PE at a time.
 *
 * test_threads_both_directions (item 1): a producer host->DPU and another
 * DPU->host, each with its consumer on the other side, four worker threads at
 * once. The host->DPU pair is created from its connection on its worker
 * threads, the DPU->host pair on the main thread and handed over; each worker
 * connects its context to its own PE and starts it there. The sender waits for
 * the new-consumer event (delivered on the main thread, the connection's) and
 * sends N messages of 1 B, 64 B, 4 KiB and 64 KiB in turn, several in flight;
 * each carries its sequence number in its immediate data and bytes derived
 * from it. The receiver checks order, length, content and the producer's id.
 * Teardown as DOCA programs do it: each producer and consumer is stopped (until
 * IDLE) and destroyed on its own thread, then the main thread sees each
 * consumer expire and stops the client and the server.
 *
 * test_threads_stop_at_random (item 3): rounds of one producer thread sending
 * at full rate to one consumer thread, which stops its consumer at a seeded
 * random moment while the producer goes on. Posted buffers hold a canary
 * (bytes >= 0x80; messages are bytes < 0x80). Per round: a post-receive that
 * fails (a flush) holds the canary when it fails and still after the producer
 * sent on for a while and was destroyed: no late write; the sends that
 * succeeded are exactly the messages the consumer received (no send into a
 * flushed buffer reports success); a send fails only once the consumer began
 * to stop, and only with NOT_FOUND or IO_FAILED. Drawn per round: direction,
 * consumer memory (shareable: memcpy; malloc: cross-memory attach), where the
 * producer and consumer are created (worker or main thread), posts, message
 * size, sends in flight, the stop moment (0..2 ms after the first send).
 *
 * Knobs: FERRY_THREADS_MSGS (messages per direction, default 100000; 4000 under
 * a sanitizer), FERRY_THREADS_ROUNDS (default 1000; 100 under a sanitizer),
 * FERRY_THREADS_SEED (default random, printed), FERRY_THREADS_ONLY (that round
 * of the seed alone), FERRY_THREADS_SERIALIZE=1 (a diagnostic: one thread at a
 * time in the library, which tells a race from any other failure),
 * FERRY_THREADS_VERBOSE (print each round before it runs). Worker threads
 * never call cmocka: they record their first failure, which the main thread
 * reports after joining them; every wait has a deadline.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <ferry_mem.h>

#include "comch_util.h"
#include "ferry_test.h"
#include "ferry_test_ctx.h"
#include "ferry_test_wait.h"

#ifdef SANITIZED
#define DEFAULT_MSGS   4000u
#define DEFAULT_ROUNDS 100u
#else
#define DEFAULT_MSGS   100000u
#define DEFAULT_ROUNDS 1000u
#endif

#define MAX_LEN     65536u     /* the largest message, and every buffer's room */
#define PAT_SPAN    4096u      /* message s is g_pat from an offset in [0, PAT_SPAN) drawn from s */
#define IMM_LEN     8u         /* the sequence number */
#define SLOTS       8u         /* send slots and posts per worker, at most */
#define RUN_MS      30000u     /* test 1: the whole exchange */
#define LINGER_SEND 64u        /* test 2: sends after the consumer's stop finished, at least */
#define LINGER_US   500        /* ... and for at least this long */
#define MAX_SEQ     (1u << 20) /* test 2: messages per round, at most */
#define SEQ_BYTES   (MAX_SEQ / 8u)

static const uint32_t g_sizes[] = {1, 64, 4096, MAX_LEN};

static uint8_t g_pat[MAX_LEN + PAT_SPAN]; /* bytes < 0x80 */
static uint8_t g_canary[MAX_LEN];         /* bytes >= 0x80 */
static atomic_bool g_quit;                /* a worker failed: everyone stops waiting */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static unsigned draw(uint64_t *s, unsigned n)
{
	*s = mix64(*s);
	return (unsigned)(*s % n);
}

/* The bytes of message @p seq (as many as its length). */
static const uint8_t *msg_bytes(uint64_t seq)
{
	return g_pat + mix64(seq ^ 0x5eed) % PAT_SPAN;
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000L;
}

static unsigned long env_num(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? strtoul(v, NULL, 0) : dflt;
}

/* ---- a worker thread ---- */

struct worker {
	const char *name;
	pthread_t th;
	bool running;     /* pthread_create succeeded (main only) */
	atomic_bool done; /* the thread returned */
	char err[512];    /* the first failure (the worker writes it; main reads it after join) */
	struct doca_pe *pe;
	struct doca_buf_inventory *inv;
	struct doca_buf *bufs[SLOTS];
	uint32_t busy; /* send slots in use (sender) */
	uint32_t in_flight;
	uint64_t next, ok, failed, flushed, dirty;
	bool stopping;
};

/* Record the worker's first failure (its thread only) and make everyone stop waiting. */
__attribute__((format(printf, 2, 3))) static void werr(struct worker *w, const char *fmt, ...)
{
	va_list ap;
	char line[384];

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "[%s] %s\n", w->name, line);
	if (w->err[0] == '\0')
		snprintf(w->err, sizeof(w->err), "%s: %s", w->name, line);
	atomic_store(&g_quit, true);
}

static bool failed(const struct worker *w)
{
	return w->err[0] != '\0' || atomic_load(&g_quit);
}

/*
 * FERRY_THREADS_SERIALIZE=1, a diagnostic: one thread at a time in the
 * library (each thread holds g_lib except while it pauses). Not the model
 * under test; a failure that stays with it is the test's own, or a bug of the
 * library without any race.
 */
static bool g_serialize;
static pthread_mutex_t g_lib = PTHREAD_MUTEX_INITIALIZER;

static void lib_enter(void)
{
	if (g_serialize)
		pthread_mutex_lock(&g_lib);
}

static void lib_leave(void)
{
	if (g_serialize)
		pthread_mutex_unlock(&g_lib);
}

/* Let the other threads run (and, serialized, into the library). */
static void pause_thread(void)
{
	lib_leave();
	sched_yield();
	lib_enter();
}

/*
 * A crash on a worker thread (inside the library, most likely) must not reach
 * cmocka's handler, which would jump into the main thread's stack: say which
 * worker crashed and die of the signal.
 */
static _Thread_local const char *t_worker;
static volatile long g_round_now = -1; /* test 2: the round running, for the crash line */

static void put_num(unsigned long v)
{
	char buf[24];
	size_t i = sizeof(buf);

	do
		buf[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0 && i > 0);
	(void)!write(STDERR_FILENO, buf + i, sizeof(buf) - i);
}

static void put_str(const char *str)
{
	(void)!write(STDERR_FILENO, str, strlen(str));
}

static void on_crash(int sig)
{
	put_str("test_fast_threads: fatal signal ");
	put_num((unsigned long)sig);
	put_str(t_worker != NULL ? " on worker thread " : " on the main thread");
	put_str(t_worker != NULL ? t_worker : "");
	if (g_round_now >= 0) {
		put_str(" in round ");
		put_num((unsigned long)g_round_now);
	}
	put_str("\n");
	signal(sig, SIG_DFL);
	raise(sig);
}

static void crash_handlers(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on_crash);
}

/* One progress of the worker's PE; a pause when it had nothing to do. */
static void wstep(struct worker *w)
{
	if (doca_pe_progress(w->pe) == 0 || g_serialize)
		pause_thread();
}

static enum doca_ctx_states wstate(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(ctx, &st);
	return st;
}

/* Connect @p ctx to the worker's PE and start it there; false (recorded) unless it reaches RUNNING. */
static bool wstart(struct worker *w, struct doca_ctx *ctx, const char *what)
{
	doca_error_t err;
	uint64_t until;

	err = doca_pe_connect_ctx(w->pe, ctx);
	if (err != DOCA_SUCCESS) {
		werr(w, "doca_pe_connect_ctx(%s) on the worker's PE: %s", what, doca_error_get_name(err));
		return false;
	}
	err = doca_ctx_start(ctx);
	if (err != DOCA_SUCCESS && err != DOCA_ERROR_IN_PROGRESS) {
		werr(w, "doca_ctx_start(%s) on the worker thread: %s", what, doca_error_get_name(err));
		return false;
	}
	until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	while (wstate(ctx) == DOCA_CTX_STATE_STARTING && !failed(w) && !ferry_test_expired(until))
		wstep(w);
	if (wstate(ctx) != DOCA_CTX_STATE_RUNNING) {
		if (!failed(w))
			werr(w, "%s did not reach RUNNING within %u ms of its start (state %d)", what,
			     FERRY_TEST_WAIT_MS, (int)wstate(ctx));
		return false;
	}
	return true;
}

/* Stop @p ctx from the worker's thread and progress its PE until IDLE (bounded even after a failure). */
static void wstop(struct worker *w, struct doca_ctx *ctx, const char *what)
{
	uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	doca_error_t err;

	if (wstate(ctx) == DOCA_CTX_STATE_IDLE)
		return;
	err = doca_ctx_stop(ctx);
	if (err != DOCA_SUCCESS && err != DOCA_ERROR_IN_PROGRESS)
		werr(w, "doca_ctx_stop(%s) on its own thread: %s", what, doca_error_get_name(err));
	while (wstate(ctx) != DOCA_CTX_STATE_IDLE && !ferry_test_expired(until))
		wstep(w);
	if (wstate(ctx) != DOCA_CTX_STATE_IDLE)
		werr(w, "%s still not IDLE %u ms after doca_ctx_stop (state %d)", what, FERRY_TEST_WAIT_MS,
		     (int)wstate(ctx));
}

static bool wopen(struct worker *w, uint32_t nbufs)
{
	doca_error_t err = doca_pe_create(&w->pe);

	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_create(nbufs, &w->inv);
	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_start(w->inv);
	if (err != DOCA_SUCCESS)
		werr(w, "cannot create the worker's PE or buffer inventory: %s", doca_error_get_name(err));
	return err == DOCA_SUCCESS;
}

static void wclose(struct worker *w)
{
	for (uint32_t k = 0; k < SLOTS; k++)
		if (w->bufs[k] != NULL) {
			(void)doca_buf_dec_refcount(w->bufs[k], NULL);
			w->bufs[k] = NULL;
		}
	if (w->inv != NULL && doca_buf_inventory_destroy(w->inv) != DOCA_SUCCESS)
		werr(w, "cannot destroy the worker's buffer inventory");
	if (w->pe != NULL && doca_pe_destroy(w->pe) != DOCA_SUCCESS)
		werr(w, "cannot destroy the worker's PE (a context still connected?)");
	w->inv = NULL;
	w->pe = NULL;
}

/* ---- the connection (main thread) ---- */

/* What the consumer events of one side told the main thread. */
struct ev_slot {
	atomic_uint announced; /* the new-consumer event's id */
	atomic_uint expired;   /* the expired-consumer event's id */
	atomic_uint count;     /* new-consumer events */
};

struct fix {
	struct cu_machine m;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_comch_connection *sconn, *cconn; /* the server's end, the client's end */
	/* consumer events: the server's report the host side's consumers, the client's the DPU side's */
	struct ev_slot *ev_server, *ev_client;
	/* memory: consumers' (shareable, and malloc), senders' sources, per side */
	uint8_t *cshared[2], *cplain[2], *src[2];
	struct doca_mmap *mshared[2], *mplain[2], *msrc[2];
};

enum { HOST, DPU };

static struct fix *F;

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
		       uint8_t ok)
{
	(void)ev;
	if (ok && F->sconn == NULL)
		F->sconn = conn;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			  uint8_t ok)
{
	(void)ev;
	(void)ok;
	if (F->sconn == conn)
		F->sconn = NULL;
}

static void ev_new(struct ev_slot *s, uint32_t id)
{
	if (s != NULL) {
		atomic_store(&s->announced, id);
		atomic_fetch_add(&s->count, 1);
	}
}

static void ev_expired(struct ev_slot *s, uint32_t id)
{
	if (s != NULL)
		atomic_store(&s->expired, id);
}

static void server_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	ev_new(F->ev_server, id);
}

static void server_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn,
				    uint32_t id)
{
	(void)ev;
	(void)conn;
	ev_expired(F->ev_server, id);
}

static void client_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	ev_new(F->ev_client, id);
}

static void client_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn,
				    uint32_t id)
{
	(void)ev;
	(void)conn;
	ev_expired(F->ev_client, id);
}

static void msg_send_done(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static struct doca_mmap *mem_mmap(void *mem, size_t len, struct doca_dev *dev)
{
	struct doca_mmap *m = NULL;

	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, mem, len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	return m;
}

static bool connected(void)
{
	return wstate(doca_comch_client_as_ctx(F->client)) == DOCA_CTX_STATE_RUNNING && F->sconn != NULL;
}

static int setup(void **state)
{
	const size_t len = (size_t)SLOTS * MAX_LEN;
	struct doca_dev *dev[2];

	F = calloc(1, sizeof(*F));
	assert_non_null(F);
	for (size_t i = 0; i < sizeof(g_pat); i++)
		g_pat[i] = (uint8_t)(mix64(i) & 0x7f);
	for (size_t i = 0; i < sizeof(g_canary); i++)
		g_canary[i] = (uint8_t)(0x80 | (mix64(i ^ 0xca9a5) & 0x7f));
	atomic_store(&g_quit, false);
	g_serialize = env_num("FERRY_THREADS_SERIALIZE", 0) != 0;
	assert_true(cu_machine_open(&F->m, "comch-thr"));
	ferry_test_log_reset();
	dev[HOST] = F->m.host;
	dev[DPU] = F->m.dpu;

	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, "threads", &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, msg_send_done, msg_send_done, 8),
			 DOCA_SUCCESS);
	assert_int_equal(
		doca_comch_server_event_connection_status_changed_register(F->server, on_connect, on_disconnect),
		DOCA_SUCCESS);
	assert_int_equal(
		doca_comch_server_event_consumer_register(F->server, server_new_consumer, server_expired_consumer),
		DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_create(F->m.host, "threads", &F->client), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_task_send_set_conf(F->client, msg_send_done, msg_send_done, 8),
			 DOCA_SUCCESS);
	assert_int_equal(
		doca_comch_client_event_consumer_register(F->client, client_new_consumer, client_expired_consumer),
		DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
	(void)doca_ctx_start(doca_comch_client_as_ctx(F->client));
	FERRY_PROGRESS_UNTIL(F->m.pe, connected(), FERRY_TEST_WAIT_MS);
	assert_true(connected());
	assert_int_equal(doca_comch_client_get_connection(F->client, &F->cconn), DOCA_SUCCESS);

	for (int s = HOST; s <= DPU; s++) {
		F->cshared[s] = ferry_mem_alloc_shared(len);
		F->cplain[s] = malloc(len);
		F->src[s] = malloc(len);
		assert_non_null(F->cshared[s]);
		assert_non_null(F->cplain[s]);
		assert_non_null(F->src[s]);
		F->mshared[s] = mem_mmap(F->cshared[s], len, dev[s]);
		F->mplain[s] = mem_mmap(F->cplain[s], len, dev[s]);
		F->msrc[s] = mem_mmap(F->src[s], len, dev[s]);
	}
	*state = F;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	F->ev_server = F->ev_client = NULL;
	ferry_test_stop_idle(F->m.pe, doca_comch_client_as_ctx(F->client));
	assert_int_equal(doca_comch_client_destroy(F->client), DOCA_SUCCESS);
	ferry_test_stop_idle(F->m.pe, doca_comch_server_as_ctx(F->server));
	assert_int_equal(doca_comch_server_destroy(F->server), DOCA_SUCCESS);
	for (int s = HOST; s <= DPU; s++) {
		assert_int_equal(doca_mmap_destroy(F->mshared[s]), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_destroy(F->mplain[s]), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_destroy(F->msrc[s]), DOCA_SUCCESS);
		assert_int_equal(ferry_mem_free_shared(F->cshared[s]), 0);
		free(F->cplain[s]);
		free(F->src[s]);
	}
	cu_machine_close(&F->m);
	free(F);
	return 0;
}

/*
 * Progress the connection's PE while the workers run, until all are done or
 * @p ms passed; then ask them to give up and wait a little more. A worker
 * that still does not return is a hang the test cannot recover from: say who,
 * and abort rather than free what it may still use.
 */
static void main_progress_workers(struct worker *const *ws, size_t n, uint32_t ms)
{
	uint64_t until = ferry_test_deadline(ms);
	bool all = false;

	for (int pass = 0; pass < 2 && !all; pass++) {
		while (!ferry_test_expired(until)) {
			all = true;
			for (size_t i = 0; i < n; i++)
				all = all && (!ws[i]->running || atomic_load(&ws[i]->done));
			if (all)
				break;
			lib_enter();
			if (doca_pe_progress(F->m.pe) == 0 || g_serialize) {
				lib_leave();
				sched_yield();
			} else {
				lib_leave();
			}
		}
		if (!all && pass == 0) {
			fprintf(stderr, "workers still running after %u ms: asking them to give up\n", ms);
			atomic_store(&g_quit, true);
			until = ferry_test_deadline(FERRY_TEST_WAIT_MS + 5000u);
		}
	}
	if (!all) {
		for (size_t i = 0; i < n; i++)
			if (ws[i]->running && !atomic_load(&ws[i]->done))
				fprintf(stderr, "worker %s hangs (next %" PRIu64 ", ok %" PRIu64 ", in flight %u)\n",
					ws[i]->name, ws[i]->next, ws[i]->ok, ws[i]->in_flight);
		fprintf(stderr, "aborting: a worker thread hangs\n");
		abort();
	}
	for (size_t i = 0; i < n; i++)
		if (ws[i]->running)
			pthread_join(ws[i]->th, NULL);
}

/* Main: wait until the consumer @p id expired on the producer's side (its slot @p s). */
static void main_wait_expired(struct ev_slot *s, uint32_t id)
{
	FERRY_PROGRESS_UNTIL(F->m.pe, atomic_load(&s->expired) == id, FERRY_TEST_WAIT_MS);
	if (atomic_load(&s->expired) != id)
		fail_msg("the producer's side never saw consumer %u expire (last expired %u)", id,
			 atomic_load(&s->expired));
}

/* Send the data of message @p seq (length @p len) from slot memory @p room to consumer @p id. */
static doca_error_t send_one(struct worker *w, struct doca_comch_producer *p, struct doca_mmap *mmap, uint8_t *room,
			     uint32_t slot, uint64_t seq, uint32_t len, uint32_t id)
{
	struct doca_comch_producer_task_send *t = NULL;
	struct doca_buf *buf = NULL;
	uint8_t imm[IMM_LEN];
	doca_error_t err;

	memcpy(room, msg_bytes(seq), len);
	memcpy(imm, &seq, IMM_LEN);
	err = doca_buf_inventory_buf_get_by_data(w->inv, mmap, room, len, &buf);
	if (err == DOCA_SUCCESS)
		err = doca_comch_producer_task_send_alloc_init(p, buf, imm, IMM_LEN, id, &t);
	if (err == DOCA_SUCCESS) {
		doca_task_set_user_data(doca_comch_producer_task_send_as_task(t),
					(union doca_data){.u64 = ((uint64_t)slot << 32) | (seq & 0xffffffffu)});
		err = doca_task_submit(doca_comch_producer_task_send_as_task(t));
		if (err != DOCA_SUCCESS)
			doca_task_free(doca_comch_producer_task_send_as_task(t));
	}
	if (err != DOCA_SUCCESS) {
		if (buf != NULL)
			(void)doca_buf_dec_refcount(buf, NULL);
		return err;
	}
	w->busy |= 1u << slot;
	w->in_flight++;
	return DOCA_SUCCESS;
}

/* A send completed: free its slot, buffer and task; its sequence number (low 32 bits). */
static uint32_t send_release(struct worker *w, struct doca_comch_producer_task_send *t)
{
	struct doca_task *task = doca_comch_producer_task_send_as_task(t);
	uint64_t ud = doca_task_get_user_data(task).u64;
	struct doca_buf *buf = (struct doca_buf *)(uintptr_t)doca_comch_producer_task_send_get_buf(t);

	w->busy &= ~(1u << (ud >> 32));
	w->in_flight--;
	doca_task_free(task);
	(void)doca_buf_dec_refcount(buf, NULL);
	return (uint32_t)ud;
}

/* Check a received message against its sequence number; a line in @p why when it differs. */
static bool msg_check(struct doca_comch_consumer_task_post_recv *t, uint64_t *seq, uint32_t want_producer, char *why,
		      size_t cap)
{
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(t);
	uint32_t imm_len = doca_comch_consumer_task_post_recv_get_imm_data_len(t);
	uint32_t pid = doca_comch_consumer_task_post_recv_get_producer_id(t);
	void *data = NULL;
	size_t len = 0;

	(void)doca_buf_get_data(buf, &data);
	(void)doca_buf_get_data_len(buf, &len);
	if (imm_len != IMM_LEN) {
		snprintf(why, cap, "immediate data of %u bytes, want %u", imm_len, IMM_LEN);
		return false;
	}
	memcpy(seq, doca_comch_consumer_task_post_recv_get_imm_data(t), IMM_LEN);
	if (want_producer != 0 && pid != want_producer) {
		snprintf(why, cap, "message %" PRIu64 " from producer %u, want %u", *seq, pid, want_producer);
		return false;
	}
	if (len == 0 || len > MAX_LEN || memcmp(data, msg_bytes(*seq), len) != 0) {
		snprintf(why, cap, "message %" PRIu64 ": %zu bytes that are not its data", *seq, len);
		return false;
	}
	return true;
}

/* ======== test 1: both directions, four worker threads ======== */

struct dir {
	const char *name;
	int pside, cside; /* HOST or DPU */
	struct doca_comch_connection *pconn, *cconn;
	struct doca_mmap *cmmap, *smmap;
	uint8_t *cmem, *smem;
	bool on_worker;                       /* create the producer and consumer on the worker threads */
	struct doca_comch_producer *producer; /* created here, or by the main thread */
	struct doca_comch_consumer *consumer; /* likewise */
	struct ev_slot *ev;                   /* the producer side's consumer events */
	atomic_uint consumer_id, producer_id; /* as the workers read them */
	uint64_t n;                           /* messages */
	long t_first, t_last;                 /* receiver: first and last message (us) */
	struct worker snd, rcv;
};

static uint32_t dir_len(uint64_t seq)
{
	return g_sizes[seq % 4];
}

static void t1_send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	struct dir *d = cu.ptr;

	(void)tu;
	send_release(&d->snd, t);
	d->snd.ok++;
}

static void t1_send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	struct dir *d = cu.ptr;
	doca_error_t st = doca_task_get_status(doca_comch_producer_task_send_as_task(t));
	uint32_t seq = send_release(&d->snd, t);

	(void)tu;
	d->snd.failed++;
	werr(&d->snd, "send of message %u failed: %s", seq, doca_error_get_name(st));
}

static void t1_repost(struct dir *d, struct doca_comch_consumer_task_post_recv *t)
{
	doca_error_t err = doca_buf_reset_data_len(doca_comch_consumer_task_post_recv_get_buf(t));

	if (err == DOCA_SUCCESS)
		err = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t));
	if (err != DOCA_SUCCESS) {
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
		werr(&d->rcv, "cannot post a receive buffer again: %s", doca_error_get_name(err));
	}
}

static void t1_recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct dir *d = cu.ptr;
	struct worker *w = &d->rcv;
	size_t len = 0;
	uint64_t seq = 0;
	char why[160];

	(void)tu;
	if (!msg_check(t, &seq, atomic_load(&d->producer_id), why, sizeof(why))) {
		werr(w, "%s", why);
	} else if (seq != w->ok) {
		werr(w, "message %" PRIu64 " came where message %" PRIu64 " was due", seq, w->ok);
	} else {
		(void)doca_buf_get_data_len(doca_comch_consumer_task_post_recv_get_buf(t), &len);
		if (len != dir_len(seq))
			werr(w, "message %" PRIu64 ": %zu bytes, want %u", seq, len, dir_len(seq));
	}
	if (w->ok++ == 0)
		d->t_first = now_us();
	d->t_last = now_us();
	if (w->ok < d->n && !failed(w))
		t1_repost(d, t);
	else
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void t1_recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct dir *d = cu.ptr;
	doca_error_t st = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(t));

	(void)tu;
	d->rcv.flushed++;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
	if (!d->rcv.stopping)
		werr(&d->rcv, "a post-receive failed before the consumer stopped: %s", doca_error_get_name(st));
}

static void *t1_sender(void *arg)
{
	struct dir *d = arg;
	struct worker *w = &d->snd;
	struct doca_comch_producer *p = d->producer;
	uint32_t id = 0, pid = 0;
	uint64_t until;
	doca_error_t err;

	t_worker = d->snd.name;
	lib_enter();
	if (!wopen(w, SLOTS))
		goto out;
	if (p == NULL) {
		err = doca_comch_producer_create(d->pconn, &p);
		if (err != DOCA_SUCCESS) {
			werr(w, "doca_comch_producer_create on the worker thread: %s", doca_error_get_name(err));
			goto out;
		}
		if (doca_comch_producer_task_send_set_conf(p, t1_send_ok, t1_send_err, SLOTS) != DOCA_SUCCESS)
			werr(w, "cannot configure the producer's send tasks");
	}
	(void)doca_comch_producer_get_id(p, &pid);
	atomic_store(&d->producer_id, pid);
	(void)doca_ctx_set_user_data(doca_comch_producer_as_ctx(p), (union doca_data){.ptr = d});
	if (failed(w) || !wstart(w, doca_comch_producer_as_ctx(p), "the producer"))
		goto stop;

	/* The consumer's id, from the new-consumer event the main thread received. */
	until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	while ((id = atomic_load(&d->ev->announced)) == 0 && !failed(w) && !ferry_test_expired(until))
		wstep(w);
	if (id == 0) {
		if (!failed(w))
			werr(w, "no new-consumer event within %u ms", FERRY_TEST_WAIT_MS);
		goto stop;
	}
	until = ferry_test_deadline(RUN_MS);
	while ((w->next < d->n || w->in_flight > 0) && !failed(w) && !ferry_test_expired(until)) {
		while (w->next < d->n && w->in_flight < SLOTS && !failed(w)) {
			uint32_t slot = (uint32_t)__builtin_ctz(~w->busy);

			err = send_one(w, p, d->smmap, d->smem + (size_t)slot * MAX_LEN, slot, w->next,
				       dir_len(w->next), id);
			if (err != DOCA_SUCCESS) {
				werr(w, "cannot submit message %" PRIu64 ": %s", w->next, doca_error_get_name(err));
				break;
			}
			w->next++;
		}
		wstep(w);
	}
	if (w->ok != d->n && !failed(w))
		werr(w, "%" PRIu64 " of %" PRIu64 " sends done in %u ms (%u in flight)", w->ok, d->n, RUN_MS,
		     w->in_flight);
stop:
	wstop(w, doca_comch_producer_as_ctx(p), "the producer");
	if (doca_comch_producer_destroy(p) != DOCA_SUCCESS)
		werr(w, "cannot destroy the producer on its thread");
out:
	wclose(w);
	lib_leave();
	atomic_store(&w->done, true);
	return NULL;
}

static void *t1_receiver(void *arg)
{
	struct dir *d = arg;
	struct worker *w = &d->rcv;
	struct doca_comch_consumer *c = d->consumer;
	uint32_t id = 0;
	uint64_t until;
	doca_error_t err;

	t_worker = d->rcv.name;
	lib_enter();
	if (!wopen(w, SLOTS))
		goto out;
	if (c == NULL) {
		err = doca_comch_consumer_create(d->cconn, d->cmmap, &c);
		if (err != DOCA_SUCCESS) {
			werr(w, "doca_comch_consumer_create on the worker thread: %s", doca_error_get_name(err));
			goto out;
		}
		if (doca_comch_consumer_set_imm_data_len(c, IMM_LEN) != DOCA_SUCCESS ||
		    doca_comch_consumer_task_post_recv_set_conf(c, t1_recv_ok, t1_recv_err, SLOTS) != DOCA_SUCCESS)
			werr(w, "cannot configure the consumer");
	}
	(void)doca_ctx_set_user_data(doca_comch_consumer_as_ctx(c), (union doca_data){.ptr = d});
	if (failed(w) || !wstart(w, doca_comch_consumer_as_ctx(c), "the consumer"))
		goto stop;
	(void)doca_comch_consumer_get_id(c, &id);
	atomic_store(&d->consumer_id, id);
	for (uint32_t k = 0; k < SLOTS && !failed(w); k++) {
		struct doca_comch_consumer_task_post_recv *t = NULL;

		err = doca_buf_inventory_buf_get_by_addr(w->inv, d->cmmap, d->cmem + (size_t)k * MAX_LEN, MAX_LEN,
							 &w->bufs[k]);
		if (err == DOCA_SUCCESS)
			err = doca_comch_consumer_task_post_recv_alloc_init(c, w->bufs[k], &t);
		if (err == DOCA_SUCCESS)
			err = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t));
		if (err != DOCA_SUCCESS)
			werr(w, "cannot post receive buffer %u: %s", k, doca_error_get_name(err));
	}
	until = ferry_test_deadline(RUN_MS);
	while (w->ok < d->n && !failed(w) && !ferry_test_expired(until))
		wstep(w);
	if (w->ok != d->n && !failed(w))
		werr(w, "%" PRIu64 " of %" PRIu64 " messages received in %u ms", w->ok, d->n, RUN_MS);
stop:
	w->stopping = true;
	wstop(w, doca_comch_consumer_as_ctx(c), "the consumer");
	if (doca_comch_consumer_destroy(c) != DOCA_SUCCESS)
		werr(w, "cannot destroy the consumer on its thread");
out:
	wclose(w);
	lib_leave();
	atomic_store(&w->done, true);
	return NULL;
}

static void dir_init(struct dir *d, int pside, bool on_worker, bool shared, uint64_t n)
{
	int cside = pside == HOST ? DPU : HOST;

	memset(d, 0, sizeof(*d));
	d->name = pside == HOST ? "host->dpu" : "dpu->host";
	d->pside = pside;
	d->cside = cside;
	d->pconn = pside == HOST ? F->cconn : F->sconn;
	d->cconn = cside == HOST ? F->cconn : F->sconn;
	d->cmem = shared ? F->cshared[cside] : F->cplain[cside];
	d->cmmap = shared ? F->mshared[cside] : F->mplain[cside];
	d->smem = F->src[pside];
	d->smmap = F->msrc[pside];
	d->on_worker = on_worker;
	d->n = n;
	d->snd.name = pside == HOST ? "host->dpu sender" : "dpu->host sender";
	d->rcv.name = pside == HOST ? "host->dpu receiver" : "dpu->host receiver";
	/* The producer's side hears of the consumer: the client of the DPU's, the server of the host's. */
	d->ev = calloc(1, sizeof(*d->ev));
	assert_non_null(d->ev);
	if (pside == HOST)
		F->ev_client = d->ev;
	else
		F->ev_server = d->ev;
	if (!on_worker) {
		assert_int_equal(doca_comch_producer_create(d->pconn, &d->producer), DOCA_SUCCESS);
		assert_int_equal(doca_comch_producer_task_send_set_conf(d->producer, t1_send_ok, t1_send_err, SLOTS),
				 DOCA_SUCCESS);
		assert_int_equal(doca_comch_consumer_create(d->cconn, d->cmmap, &d->consumer), DOCA_SUCCESS);
		assert_int_equal(doca_comch_consumer_set_imm_data_len(d->consumer, IMM_LEN), DOCA_SUCCESS);
		assert_int_equal(
			doca_comch_consumer_task_post_recv_set_conf(d->consumer, t1_recv_ok, t1_recv_err, SLOTS),
			DOCA_SUCCESS);
	}
}

static void test_threads_both_directions(void **state)
{
	uint64_t n = env_num("FERRY_THREADS_MSGS", DEFAULT_MSGS);
	struct dir *dirs = calloc(2, sizeof(*dirs));
	struct worker *ws[4];
	char errs[4 * 512 + 4] = "";
	long t0;

	(void)state;
	crash_handlers();
	assert_non_null(dirs);
	/* host->DPU: created on the worker threads, shareable memory; DPU->host: on main, malloc'd memory. */
	dir_init(&dirs[0], HOST, true, true, n);
	dir_init(&dirs[1], DPU, false, false, n);
	ws[0] = &dirs[0].snd;
	ws[1] = &dirs[0].rcv;
	ws[2] = &dirs[1].snd;
	ws[3] = &dirs[1].rcv;
	t0 = now_us();
	for (int i = 0; i < 2; i++) {
		dirs[i].rcv.running = pthread_create(&dirs[i].rcv.th, NULL, t1_receiver, &dirs[i]) == 0;
		dirs[i].snd.running = pthread_create(&dirs[i].snd.th, NULL, t1_sender, &dirs[i]) == 0;
		assert_true(dirs[i].rcv.running && dirs[i].snd.running);
	}
	main_progress_workers(ws, 4, RUN_MS + FERRY_TEST_WAIT_MS);
	for (int i = 0; i < 4; i++)
		if (ws[i]->err[0] != '\0')
			snprintf(errs + strlen(errs), sizeof(errs) - strlen(errs), "\n  %s", ws[i]->err);
	if (errs[0] != '\0')
		fail_msg("a worker failed (the first failure of each):%s", errs);

	for (int i = 0; i < 2; i++) {
		struct dir *d = &dirs[i];
		double s = (double)(d->t_last - d->t_first) / 1e6;
		uint64_t bytes = 0;

		for (uint64_t q = 0; q < n; q++)
			bytes += dir_len(q);
		printf("%s: %" PRIu64 " messages (1 B .. 64 KiB), %.2f s from the first to the last, %.0f msg/s, "
		       "%.2f GB/s; %" PRIu64 " posts flushed at the stop\n",
		       d->name, d->rcv.ok, s, s > 0 ? (double)n / s : 0.0, s > 0 ? (double)bytes / s / 1e9 : 0.0,
		       d->rcv.flushed);
		assert_int_equal(d->snd.ok, n);
		assert_int_equal(d->rcv.ok, n);
		assert_int_equal(atomic_load(&d->ev->count), 1);
		assert_int_equal(atomic_load(&d->ev->announced), atomic_load(&d->consumer_id));
		main_wait_expired(d->ev, atomic_load(&d->consumer_id));
	}
	printf("both directions: %.2f s in all\n", (double)(now_us() - t0) / 1e6);
	F->ev_server = F->ev_client = NULL;
	free(dirs[0].ev);
	free(dirs[1].ev);
	free(dirs);
}

/* ======== test 2: consumers stopped at random moments under full-rate sends ======== */

struct round {
	unsigned index;
	int pside, cside;
	bool shared, on_main;
	unsigned posts, size, depth, stop_us;
};

struct rstate {
	struct round r;
	struct doca_comch_connection *pconn, *cconn;
	struct doca_mmap *cmmap, *smmap;
	uint8_t *cmem, *smem;
	struct doca_comch_producer *producer; /* created by the main thread (on_main), else NULL */
	struct doca_comch_consumer *consumer;
	struct ev_slot ev;
	atomic_uint consumer_id;
	atomic_bool sending;  /* the sender submitted its first send */
	atomic_bool stopping; /* the consumer is about to stop (set before doca_ctx_stop) */
	atomic_bool stopped;  /* the consumer is IDLE */
	atomic_bool snd_done; /* the producer is stopped and destroyed */
	uint8_t sent_ok[SEQ_BYTES], recv_ok[SEQ_BYTES];
	long stop_took_us; /* the consumer's doca_ctx_stop until IDLE */
	uint64_t last_seq; /* receiver: the last message received, +1 */
	bool flushed[SLOTS];
	doca_error_t flush_status[SLOTS];
	uint64_t fail_not_found, fail_io;
	struct worker snd, rcv;
};

static void round_draw(struct round *r, uint64_t seed, unsigned index)
{
	uint64_t s = mix64(seed + index);

	r->index = index;
	r->pside = draw(&s, 2) ? HOST : DPU;
	r->cside = r->pside == HOST ? DPU : HOST;
	r->shared = draw(&s, 2);
	r->on_main = draw(&s, 4) == 0;
	r->posts = 1 + draw(&s, SLOTS);
	r->size = g_sizes[draw(&s, 4)];
	r->depth = 1 + draw(&s, SLOTS);
	r->stop_us = draw(&s, 2001);
}

static void round_print(const struct round *r, FILE *f)
{
	fprintf(f,
		"round %u: %s, consumer memory %s, created on the %s thread, %u posts of %u B, %u sends in flight, "
		"stop %u us after the first send\n",
		r->index, r->pside == HOST ? "host->dpu" : "dpu->host", r->shared ? "shareable" : "malloc",
		r->on_main ? "main" : "worker", r->posts, r->size, r->depth, r->stop_us);
}

static bool bit_get(const uint8_t *map, uint64_t i)
{
	return (map[i / 8] >> (i % 8)) & 1u;
}

static void bit_set(uint8_t *map, uint64_t i)
{
	map[i / 8] |= (uint8_t)(1u << (i % 8));
}

static void t2_send_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	struct rstate *rs = cu.ptr;
	uint32_t seq = send_release(&rs->snd, t);

	(void)tu;
	rs->snd.ok++;
	bit_set(rs->sent_ok, seq);
}

static void t2_send_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	struct rstate *rs = cu.ptr;
	doca_error_t st = doca_task_get_status(doca_comch_producer_task_send_as_task(t));
	uint32_t seq = send_release(&rs->snd, t);

	(void)tu;
	rs->snd.failed++;
	if (st == DOCA_ERROR_NOT_FOUND)
		rs->fail_not_found++;
	else if (st == DOCA_ERROR_IO_FAILED)
		rs->fail_io++;
	else
		werr(&rs->snd, "send of message %u failed with %s (want NOT_FOUND or IO_FAILED)", seq,
		     doca_error_get_name(st));
	if (!atomic_load(&rs->stopping))
		werr(&rs->snd, "send of message %u failed (%s) before the consumer began to stop", seq,
		     doca_error_get_name(st));
}

static uint8_t *t2_room(struct rstate *rs, uint32_t slot)
{
	return rs->cmem + (size_t)slot * MAX_LEN;
}

static void t2_post(struct rstate *rs, struct doca_comch_consumer_task_post_recv *t)
{
	uint32_t slot = (uint32_t)doca_task_get_user_data(doca_comch_consumer_task_post_recv_as_task(t)).u64;
	doca_error_t err;

	memcpy(t2_room(rs, slot), g_canary, rs->r.size);
	err = doca_buf_reset_data_len(doca_comch_consumer_task_post_recv_get_buf(t));
	if (err == DOCA_SUCCESS)
		err = doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t));
	if (err != DOCA_SUCCESS) {
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
		werr(&rs->rcv, "cannot post receive buffer %u: %s", slot, doca_error_get_name(err));
	}
}

static void t2_recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct rstate *rs = cu.ptr;
	struct worker *w = &rs->rcv;
	uint64_t seq = 0;
	size_t len = 0;
	char why[160];

	(void)tu;
	w->ok++;
	(void)doca_buf_get_data_len(doca_comch_consumer_task_post_recv_get_buf(t), &len);
	if (!msg_check(t, &seq, 0, why, sizeof(why)))
		werr(w, "%s", why);
	else if (seq >= MAX_SEQ || seq < rs->last_seq || bit_get(rs->recv_ok, seq))
		werr(w, "message %" PRIu64 " came after message %" PRIu64, seq, rs->last_seq - 1);
	else if (len != rs->r.size)
		werr(w, "message %" PRIu64 ": %zu bytes, want %u", seq, len, rs->r.size);
	else {
		bit_set(rs->recv_ok, seq);
		rs->last_seq = seq + 1;
	}
	if (!w->stopping && !failed(w))
		t2_post(rs, t);
	else
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void t2_recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	struct rstate *rs = cu.ptr;
	struct worker *w = &rs->rcv;
	uint32_t slot = (uint32_t)doca_task_get_user_data(doca_comch_consumer_task_post_recv_as_task(t)).u64;
	doca_error_t st = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(t));

	(void)tu;
	w->flushed++;
	rs->flushed[slot] = true;
	rs->flush_status[slot] = st;
	if (memcmp(t2_room(rs, slot), g_canary, rs->r.size) != 0) {
		w->dirty++;
		werr(w, "buffer %u failed (%s) but was written before its failure was reported", slot,
		     doca_error_get_name(st));
	}
	if (!w->stopping)
		werr(w, "a post-receive failed (%s) before the consumer stopped", doca_error_get_name(st));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

static void *t2_sender(void *arg)
{
	struct rstate *rs = arg;
	struct worker *w = &rs->snd;
	struct doca_comch_producer *p = rs->producer;
	uint64_t until, after = 0;
	long stop_seen = 0;
	uint32_t id = 0;
	doca_error_t err;

	t_worker = "sender";
	lib_enter();
	if (!wopen(w, SLOTS))
		goto out;
	if (p == NULL) {
		err = doca_comch_producer_create(rs->pconn, &p);
		if (err == DOCA_SUCCESS)
			err = doca_comch_producer_task_send_set_conf(p, t2_send_ok, t2_send_err, rs->r.depth);
		if (err != DOCA_SUCCESS) {
			werr(w, "cannot create the producer on the worker thread: %s", doca_error_get_name(err));
			goto out;
		}
	}
	(void)doca_ctx_set_user_data(doca_comch_producer_as_ctx(p), (union doca_data){.ptr = rs});
	if (!wstart(w, doca_comch_producer_as_ctx(p), "the producer"))
		goto stop;
	until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	while ((id = atomic_load(&rs->ev.announced)) == 0 && !failed(w) && !ferry_test_expired(until))
		wstep(w);
	if (id == 0) {
		if (!failed(w))
			werr(w, "no new-consumer event within %u ms", FERRY_TEST_WAIT_MS);
		goto stop;
	}
	/* Full rate until the consumer's stop finished, then LINGER_SEND more sends and LINGER_US more. */
	until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	while (!failed(w) && !ferry_test_expired(until)) {
		bool lingered;

		if (stop_seen == 0 && atomic_load(&rs->stopped))
			stop_seen = now_us();
		lingered = stop_seen != 0 && (after >= LINGER_SEND || w->next == MAX_SEQ) &&
			   now_us() - stop_seen >= LINGER_US;
		if (lingered && w->in_flight == 0)
			break;
		while (!lingered && w->in_flight < rs->r.depth && w->next < MAX_SEQ && !failed(w)) {
			uint32_t slot = (uint32_t)__builtin_ctz(~w->busy);

			err = send_one(w, p, rs->smmap, rs->smem + (size_t)slot * MAX_LEN, slot, w->next, rs->r.size,
				       id);
			if (err != DOCA_SUCCESS) {
				werr(w, "cannot submit message %" PRIu64 ": %s", w->next, doca_error_get_name(err));
				break;
			}
			atomic_store(&rs->sending, true);
			w->next++;
			after += stop_seen != 0;
		}
		wstep(w);
	}
	if (!failed(w) && ferry_test_expired(until))
		werr(w,
		     "still sending %u ms after the new-consumer event (%" PRIu64 " sent, %u in flight, "
		     "consumer %s)",
		     FERRY_TEST_WAIT_MS, w->next, w->in_flight, atomic_load(&rs->stopped) ? "stopped" : "not stopped");
stop:
	wstop(w, doca_comch_producer_as_ctx(p), "the producer");
	if (doca_comch_producer_destroy(p) != DOCA_SUCCESS)
		werr(w, "cannot destroy the producer on its thread");
out:
	wclose(w);
	atomic_store(&rs->snd_done, true);
	lib_leave();
	atomic_store(&w->done, true);
	return NULL;
}

static void *t2_receiver(void *arg)
{
	struct rstate *rs = arg;
	struct worker *w = &rs->rcv;
	struct doca_comch_consumer *c = rs->consumer;
	uint64_t until;
	uint32_t id = 0;
	long stop_at;
	doca_error_t err;

	t_worker = "receiver";
	lib_enter();
	if (!wopen(w, SLOTS))
		goto out;
	if (c == NULL) {
		err = doca_comch_consumer_create(rs->cconn, rs->cmmap, &c);
		if (err == DOCA_SUCCESS)
			err = doca_comch_consumer_set_imm_data_len(c, IMM_LEN);
		if (err == DOCA_SUCCESS)
			err = doca_comch_consumer_task_post_recv_set_conf(c, t2_recv_ok, t2_recv_err, rs->r.posts);
		if (err != DOCA_SUCCESS) {
			werr(w, "cannot create the consumer on the worker thread: %s", doca_error_get_name(err));
			goto out;
		}
	}
	(void)doca_ctx_set_user_data(doca_comch_consumer_as_ctx(c), (union doca_data){.ptr = rs});
	if (!wstart(w, doca_comch_consumer_as_ctx(c), "the consumer"))
		goto stop;
	(void)doca_comch_consumer_get_id(c, &id);
	atomic_store(&rs->consumer_id, id);
	for (uint32_t k = 0; k < rs->r.posts && !failed(w); k++) {
		struct doca_comch_consumer_task_post_recv *t = NULL;

		err = doca_buf_inventory_buf_get_by_addr(w->inv, rs->cmmap, t2_room(rs, k), rs->r.size, &w->bufs[k]);
		if (err == DOCA_SUCCESS)
			err = doca_comch_consumer_task_post_recv_alloc_init(c, w->bufs[k], &t);
		if (err != DOCA_SUCCESS) {
			werr(w, "cannot take buffer %u or a post-receive task: %s", k, doca_error_get_name(err));
			break;
		}
		doca_task_set_user_data(doca_comch_consumer_task_post_recv_as_task(t), (union doca_data){.u64 = k});
		t2_post(rs, t);
	}
	/* The stop comes stop_us after the producer's first send, while it sends at full rate. */
	until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	while (!atomic_load(&rs->sending) && !failed(w) && !ferry_test_expired(until))
		wstep(w);
	if (!atomic_load(&rs->sending) && !failed(w))
		werr(w, "the producer did not start sending within %u ms", FERRY_TEST_WAIT_MS);
	stop_at = now_us() + (long)rs->r.stop_us;
	while (now_us() < stop_at && !failed(w))
		wstep(w);
stop:
	w->stopping = true;
	atomic_store(&rs->stopping, true);
	stop_at = now_us();
	wstop(w, doca_comch_consumer_as_ctx(c), "the consumer");
	rs->stop_took_us = now_us() - stop_at;
	atomic_store(&rs->stopped, true);
	/* Whatever a producer that raced the stop would write, it has written once it is gone. */
	until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	while (!atomic_load(&rs->snd_done) && !ferry_test_expired(until))
		pause_thread();
	if (!atomic_load(&rs->snd_done) && !failed(w))
		werr(w, "the producer did not finish within %u ms of the consumer's stop", FERRY_TEST_WAIT_MS);
	if (doca_comch_consumer_destroy(c) != DOCA_SUCCESS)
		werr(w, "cannot destroy the consumer on its thread");
out:
	wclose(w);
	lib_leave();
	atomic_store(&w->done, true);
	return NULL;
}

struct t2_totals {
	uint64_t sent_ok, sent_failed, not_found, io_failed, flushed, rounds_flushed, recv_ok;
	long stop_us_sum, stop_us_max;
};

/* One round; false (with the reason printed) when it failed. */
static bool round_run(struct rstate *rs, const struct round *r, struct t2_totals *tot, uint64_t seed)
{
	struct worker *ws[2] = {&rs->snd, &rs->rcv};
	char why[1200] = "";
	uint32_t id;

	memset(rs, 0, sizeof(*rs));
	rs->r = *r;
	rs->snd.name = "sender";
	rs->rcv.name = "receiver";
	rs->pconn = r->pside == HOST ? F->cconn : F->sconn;
	rs->cconn = r->cside == HOST ? F->cconn : F->sconn;
	rs->cmem = r->shared ? F->cshared[r->cside] : F->cplain[r->cside];
	rs->cmmap = r->shared ? F->mshared[r->cside] : F->mplain[r->cside];
	rs->smem = F->src[r->pside];
	rs->smmap = F->msrc[r->pside];
	if (r->pside == HOST)
		F->ev_client = &rs->ev;
	else
		F->ev_server = &rs->ev;
	if (r->on_main) {
		assert_int_equal(doca_comch_producer_create(rs->pconn, &rs->producer), DOCA_SUCCESS);
		assert_int_equal(
			doca_comch_producer_task_send_set_conf(rs->producer, t2_send_ok, t2_send_err, r->depth),
			DOCA_SUCCESS);
		assert_int_equal(doca_comch_consumer_create(rs->cconn, rs->cmmap, &rs->consumer), DOCA_SUCCESS);
		assert_int_equal(doca_comch_consumer_set_imm_data_len(rs->consumer, IMM_LEN), DOCA_SUCCESS);
		assert_int_equal(
			doca_comch_consumer_task_post_recv_set_conf(rs->consumer, t2_recv_ok, t2_recv_err, r->posts),
			DOCA_SUCCESS);
	}
	rs->rcv.running = pthread_create(&rs->rcv.th, NULL, t2_receiver, rs) == 0;
	rs->snd.running = pthread_create(&rs->snd.th, NULL, t2_sender, rs) == 0;
	assert_true(rs->rcv.running && rs->snd.running);
	main_progress_workers(ws, 2, 2 * FERRY_TEST_WAIT_MS + 5000u);

	for (int i = 0; i < 2; i++)
		if (ws[i]->err[0] != '\0')
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "\n  %s", ws[i]->err);
	/* Every send that succeeded filled a buffer the consumer received: the same messages. */
	if (rs->snd.ok != rs->rcv.ok || memcmp(rs->sent_ok, rs->recv_ok, SEQ_BYTES) != 0) {
		uint64_t first = 0;

		while (first < MAX_SEQ && bit_get(rs->sent_ok, first) == bit_get(rs->recv_ok, first))
			first++;
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "\n  %" PRIu64 " sends succeeded, %" PRIu64 " messages received; message %" PRIu64
			 " %s (a send into a flushed buffer reported success, or a message was lost)",
			 rs->snd.ok, rs->rcv.ok, first,
			 first < MAX_SEQ && bit_get(rs->sent_ok, first) ? "was sent, never received"
									: "was received, its send failed");
	}
	/* No late write: a flushed buffer holds its canary after the producer sent on and left. */
	for (uint32_t k = 0; k < r->posts; k++) {
		const uint8_t *room = t2_room(rs, k);

		if (!rs->flushed[k] || memcmp(room, g_canary, r->size) == 0)
			continue;
		for (uint32_t b = 0; b < r->size; b++)
			if (room[b] != g_canary[b]) {
				snprintf(why + strlen(why), sizeof(why) - strlen(why),
					 "\n  late write: buffer %u flushed (%s), byte %u is 0x%02x after the producer "
					 "sent on, canary 0x%02x",
					 k, doca_error_get_name(rs->flush_status[k]), b, room[b], g_canary[b]);
				break;
			}
	}
	id = atomic_load(&rs->consumer_id);
	if (why[0] == '\0' && atomic_load(&rs->ev.announced) != id)
		snprintf(why, sizeof(why), "\n  the new-consumer event named %u, the consumer is %u",
			 atomic_load(&rs->ev.announced), id);
	if (why[0] == '\0') {
		/* The peer forgets this consumer before the next round announces its own. */
		FERRY_PROGRESS_UNTIL(F->m.pe, atomic_load(&rs->ev.expired) == id, FERRY_TEST_WAIT_MS);
		if (atomic_load(&rs->ev.expired) != id)
			snprintf(why, sizeof(why), "\n  the producer's side never saw consumer %u expire", id);
	}
	F->ev_server = F->ev_client = NULL;
	tot->sent_ok += rs->snd.ok;
	tot->sent_failed += rs->snd.failed;
	tot->not_found += rs->fail_not_found;
	tot->io_failed += rs->fail_io;
	tot->flushed += rs->rcv.flushed;
	tot->rounds_flushed += rs->rcv.flushed != 0;
	tot->recv_ok += rs->rcv.ok;
	tot->stop_us_sum += rs->stop_took_us;
	if (rs->stop_took_us > tot->stop_us_max)
		tot->stop_us_max = rs->stop_took_us;
	if (why[0] == '\0')
		return true;
	round_print(r, stderr);
	fprintf(stderr, "  FAILED:%s\n  replay: FERRY_THREADS_SEED=0x%016" PRIx64 " FERRY_THREADS_ONLY=%u\n", why, seed,
		r->index);
	return false;
}

static void test_threads_stop_at_random(void **state)
{
	unsigned rounds = (unsigned)env_num("FERRY_THREADS_ROUNDS", DEFAULT_ROUNDS);
	long only = getenv("FERRY_THREADS_ONLY") != NULL ? (long)env_num("FERRY_THREADS_ONLY", 0) : -1;
	bool verbose = getenv("FERRY_THREADS_VERBOSE") != NULL;
	struct rstate *rs = calloc(1, sizeof(*rs));
	struct t2_totals tot = {0};
	unsigned played = 0, bad = 0;
	uint64_t seed = 0;
	long t0 = now_us();

	(void)state;
	crash_handlers();
	assert_non_null(rs);
	if (getenv("FERRY_THREADS_SEED") != NULL)
		seed = env_num("FERRY_THREADS_SEED", 0);
	else if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	printf("stop at random: FERRY_THREADS_SEED=0x%016" PRIx64 ", %u rounds\n", seed, rounds);
	fflush(stdout);
	for (unsigned i = 0; i < rounds && bad == 0; i++) {
		struct round r;

		if (only >= 0 && (long)i != only)
			continue;
		round_draw(&r, seed, i);
		g_round_now = (long)i;
		if (verbose) {
			round_print(&r, stdout);
			fflush(stdout);
		}
		played++;
		bad += !round_run(rs, &r, &tot, seed);
	}
	printf("%u rounds in %.1f s: sends ok %" PRIu64 ", failed %" PRIu64 " (NOT_FOUND %" PRIu64
	       ", IO_FAILED %" PRIu64 "); received %" PRIu64 "; flushed posts %" PRIu64 " in %" PRIu64
	       " rounds; consumer stop %.0f us on average, %ld us at most\n",
	       played, (double)(now_us() - t0) / 1e6, tot.sent_ok, tot.sent_failed, tot.not_found, tot.io_failed,
	       tot.recv_ok, tot.flushed, tot.rounds_flushed, played ? (double)tot.stop_us_sum / played : 0.0,
	       tot.stop_us_max);
	g_round_now = -1;
	free(rs);
	if (bad != 0)
		fail_msg("round failed (seed 0x%016" PRIx64 "), see above", seed);
	/* The draw must reach its corners: a stop that flushes posts under full-rate sends. */
	if (played >= 100)
		assert_true(tot.rounds_flushed > 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_threads_both_directions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_stop_at_random, setup, teardown),
	};

	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
