/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_worker.c - copies served by a process-wide pool of worker threads.
 *
 * Shape
 *   A channel owns a power-of-two ring of descriptor slots (slot order is enqueue
 *   order) and, for each worker, a single-producer/single-consumer ring of work
 *   items. doorbell cuts the new slots into units and publishes each unit with one
 *   release store on its first slot (the leader):
 *     - a split unit is one descriptor of at least 2 chunks, claimed chunk by chunk;
 *     - a batch unit is a run of consecutive shorter descriptors, at most
 *       BATCH_DESCS of them and BATCH_BYTES in all (a lone longer descriptor is a
 *       batch of one), claimed and copied as one piece.
 *   So a window of small copies crosses threads as a handful of units, not one
 *   hand-off per descriptor: one item, one claim, one completion publish and one
 *   notify per unit. Each unit goes to one worker (the channel's home worker when
 *   it is small, so a spare worker can fall asleep instead of spinning against the
 *   application on a small machine; round robin otherwise), a split unit to every
 *   worker. Workers claim pieces with a CAS on the leader's claim word, copy them
 *   and count them down in the leader's left; whoever finishes the last piece
 *   completes the whole unit and calls cfg.notify. poll walks the units from the
 *   head and hands out the descriptors of finished ones, so completions leave in
 *   enqueue order whichever worker finished first. A worker that arrives after
 *   the others took every piece finds nothing to claim: that is the load balancing.
 *
 *   The auto engine is this engine with an inline threshold: at doorbell the
 *   caller's thread copies descriptors shorter than it; each is a unit of its own
 *   that is born finished (left 0), so the order holds across both paths.
 *
 * Small copies and the application thread
 *   For a unit of small copies (under HOME_BYTES) a hand-off costs more than the
 *   copy: the slots' cache lines would cross to the worker's core and back. So a
 *   poll that finds nothing finished copies unclaimed units itself at once (help:
 *   up to a chunk's worth, or a whole window of small units), and a worker leaves
 *   a small unit alone for GRACE_NS before it takes it. A polling application
 *   thus copies its own small units with no cache line shared but the claim
 *   word, while an application that is busy, descheduled or asleep still has
 *   them copied by the workers (and cfg.notify called) a few microseconds later.
 *   Large units are the workers' from the start, and poll helps with at most one
 *   chunk of them.
 *
 * Threads
 *   One application thread at a time per channel: enqueue, doorbell, poll, ready,
 *   cancel, close. Worker threads: started lazily at the first push, shared by all
 *   channels, FERRY_ENGINE_WORKERS of them (default min(2, ncpu)). An idle worker
 *   spins (yielding its CPU now and then), then dozes on a futex for DOZE_NS at a
 *   time, and after QUIET_DOZES dozes without any item sleeps until woken. A
 *   doorbell wakes a sleeping worker, and a dozing one only for a large unit: a
 *   small one is either helped by the polling application or found at the end of
 *   the doze; ready (which a caller asks before it sleeps until notify) wakes the
 *   dozing workers holding small units, so such a caller never waits for a doze.
 *   A worker touches a channel only while its hazard pointer names it; close
 *   unregisters the channel and waits for every hazard to move on, so no worker
 *   uses a freed channel and every copy in progress has ended when close returns.
 *
 * Claim word of a leader: seq (32 bits) | npieces (16) | next unclaimed piece (16).
 *   Stored with release by the app at doorbell, advanced by CAS by workers, by a
 *   helping poll and by cancel. A work item carries the leader's seq: an item that
 *   outlived its unit (someone else did all the work, the slots were polled and
 *   reused) finds another seq and is dropped, so stale items are harmless. A batch
 *   has one piece, so it is either wholly unclaimed (cancel fails every descriptor
 *   of it, none was touched) or wholly claimed (it finishes).
 *
 * Barriers, one pairing each:
 *   B1 doorbell's release store of claim / claimer's acquire load and CAS: the
 *      leader's and every member's fields are written before a piece is claimed.
 *   B2 claimer's acq_rel decrement of left / poll's acquire load of left: the
 *      copied bytes (of every piece, through the RMW chain) are in place before
 *      poll hands the unit out, and the claimer's reads of the member slots happen
 *      before the app reuses them.
 *   B3 chan_push's release store of a ring's prod / worker's acquire load; the
 *      worker's release store of cons / the app's acquire load (ring cells).
 *   B4 RMWs on a worker's `sleeping` word (worker_sleep's exchange / wake_worker's
 *      exchange or fetch_or 0): no lost wake-up.
 *   B5 seq_cst hazard pointer against seq_cst unregister (worker_pass / close).
 *
 * Indices (app thread only, free-running uint32_t masked on access):
 *   head <= ready_end <= rung <= tail, and pushed <= rung; all but head sit on
 *   unit boundaries;
 *   [head, ready_end) finished units not yet all polled (poll may stop mid-unit);
 *   [ready_end, rung) published to the engine, not yet seen finished;
 *   [pushed, rung) published but not yet given to a worker (its ring was full);
 *     pushed may lag behind ready_end when a helping poll finished units nobody
 *     was given; chan_push then skips them;
 *   [rung, tail) enqueued, waiting for the doorbell.
 *   Invariant: a slot that is not the leader of a unit in [head, rung) has left == 0.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/ferry_log.h"
#include "engine/engine_priv.h"

FERRY_LOG_MODULE("engine");

/*
 * A copy of at least 2 chunks is split; chunks are claimed one at a time. 128 KiB:
 * splitting pays from 256 KiB on (engine.c has the figures), and a poll that helps
 * (worker_poll) is never held longer than one chunk (~20 us).
 */
#define CHUNK_BYTES ((size_t)128 * 1024)
#define CHUNKS_MAX 0xffffu
/*
 * A batch holds at most this many descriptors and (unless it is a lone longer
 * one) BATCH_BYTES: one piece of work, so a helping poll is held no longer than
 * for one chunk. 16 descriptors: when a worker takes small units over (the
 * application is busy), a window of 64 crosses as 4 units, so the application
 * can finish one unit's callbacks while the worker copies the next. (With a
 * polling application, dma_bench measured no difference between 8, 16 and 64:
 * it copies its small units itself.)
 */
#define BATCH_DESCS 16u
#define BATCH_BYTES CHUNK_BYTES
/* Units shorter than this go to the channel's home worker; longer ones round robin. */
#define HOME_BYTES ((size_t)64 * 1024)
/*
 * A poll that finds nothing finished copies unclaimed pieces itself, oldest
 * first, until it copied HELP_BYTES (one chunk) or looked at HELP_UNITS units:
 * enough to take a whole window of small copies in one go, so a window that a
 * burst of completions cut into many small units grows back into big ones.
 */
#define HELP_UNITS 64u
#define HELP_BYTES CHUNK_BYTES
/* Channels registered with the pool at once. */
#define REG_MAX 4096u
/* Items a worker takes from one channel before visiting the next one. */
#define SERVE_BATCH 32u
/* Passes without copy work a worker spins through before it dozes (~hundreds of microseconds). */
#define SPIN_PASSES 4096u
/* A worker that found nothing to copy for SPIN_PASSES dozes this long (then looks again). */
#define DOZE_NS 500000L
/* Dozes in a row that saw no item at all before a worker sleeps until woken. */
#define QUIET_DOZES 8u
/*
 * A worker leaves a small unit (under HOME_BYTES) to a polling application for
 * this long before it copies it itself (worker_serve).
 */
#define GRACE_NS 2000u
/* Marks a ring item whose unit is small. */
#define ITEM_SMALL (UINT64_C(1) << 32)
/* Values of a worker's `sleeping` word. */
#define WORKER_AWAKE 0u
#define WORKER_DOZING 1u
#define WORKER_ASLEEP 2u
/* An idle worker yields its CPU every this many empty passes. */
#define YIELD_EVERY 16u
#define WORKERS_MAX 64u

#define CACHE_LINE 64

struct wslot {
	_Atomic uint64_t claim; /* leader: see the claim word above */
	_Atomic uint32_t left;  /* leader: pieces neither finished nor cancelled; 0 = done */
	uint32_t unit_descs;    /* leader: descriptors in the unit; set before the claim store */
	uint16_t failed;        /* app thread only: cancel dropped this descriptor (or a chunk of it) */
	uint16_t on_worker;     /* app thread only: leader of a unit the workers serve */
	void *dst;
	const void *src;
	size_t len;
	size_t chunk; /* split leader: bytes per chunk */
	uint64_t cookie;
} __attribute__((aligned(CACHE_LINE)));

/* One SPSC ring from the channel's app thread to one worker. */
struct wring {
	_Alignas(CACHE_LINE) _Atomic uint32_t prod; /* written by the app thread */
	uint32_t prod_local;                        /* app: items written, not yet published */
	uint32_t cons_cache;                        /* app: last cons it read */
	_Alignas(CACHE_LINE) _Atomic uint32_t cons; /* written by the worker */
	uint64_t grace_from_ns;                     /* worker: when it began to leave a small unit to the app */
	_Alignas(CACHE_LINE) uint64_t *items;       /* seq | ITEM_SMALL */
};

struct wchan {
	struct ferry_chan base;
	void (*notify)(void *arg);
	void *notify_arg;
	size_t inline_below;
	uint32_t mask;
	uint32_t depth;
	uint32_t head;
	uint32_t ready_end;
	uint32_t pushed;
	uint32_t rung;
	uint32_t tail;
	uint32_t next_worker;
	uint32_t home_worker;
	uint64_t lazy;        /* workers given small units without waking them from a doze */
	uint32_t reg_index;
	struct wslot *slots;
	struct wring *rings;
};

struct worker {
	_Alignas(CACHE_LINE) _Atomic(struct wchan *) hazard;
	_Alignas(CACHE_LINE) _Atomic uint32_t sleeping;
	pthread_t thread;
	uint32_t id;
};

static struct {
	pthread_once_t config_once;
	pthread_once_t start_once;
	pthread_mutex_t reg_mu;
	unsigned int nworkers;
	struct worker *workers;
	_Atomic bool running;
	_Atomic bool stop;
	_Atomic bool paused; /* tests: workers take no work (ferry_worker_pause) */
	_Atomic uint32_t reg_hwm;
	_Atomic(struct wchan *) reg[REG_MAX];
} pool = {
	.config_once = PTHREAD_ONCE_INIT,
	.start_once = PTHREAD_ONCE_INIT,
	.reg_mu = PTHREAD_MUTEX_INITIALIZER,
};

static inline struct wchan *to_wchan(struct ferry_chan *chan)
{
	return (struct wchan *)chan;
}

static inline uint64_t claim_make(uint32_t seq, uint32_t nchunks, uint32_t next)
{
	return ((uint64_t)seq << 32) | ((uint64_t)nchunks << 16) | next;
}

static inline uint32_t claim_seq(uint64_t w)
{
	return (uint32_t)(w >> 32);
}

static inline uint32_t claim_nchunks(uint64_t w)
{
	return (uint32_t)(w >> 16) & 0xffffu;
}

static inline uint32_t claim_next(uint64_t w)
{
	return (uint32_t)w & 0xffffu;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void futex_wait_u32(_Atomic uint32_t *addr, uint32_t expected, const struct timespec *timeout)
{
	syscall(SYS_futex, (void *)(uintptr_t)addr, FUTEX_WAIT_PRIVATE, expected, timeout, NULL, 0);
}

static void futex_wake_u32(_Atomic uint32_t *addr)
{
	syscall(SYS_futex, (void *)(uintptr_t)addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* ---- configuration ------------------------------------------------------------------ */

static unsigned int workers_from_env(void)
{
	const char *v = getenv("FERRY_ENGINE_WORKERS");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int n = ncpu >= 2 ? 2 : 1;
	char *end = NULL;
	long want;

	if (v == NULL || *v == '\0')
		return n;
	errno = 0;
	want = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || want < 1 || want > (long)WORKERS_MAX) {
		FERRY_WARN("FERRY_ENGINE_WORKERS='%s' is not a number in 1..%u; using %u", v, WORKERS_MAX, n);
		return n;
	}
	return (unsigned int)want;
}

static void pool_configure(void)
{
	unsigned int i;

	pool.nworkers = workers_from_env();
	pool.workers = aligned_alloc(CACHE_LINE, sizeof(*pool.workers) * pool.nworkers);
	if (pool.workers == NULL) {
		pool.nworkers = 0;
		return;
	}
	memset(pool.workers, 0, sizeof(*pool.workers) * pool.nworkers);
	for (i = 0; i < pool.nworkers; i++)
		pool.workers[i].id = i;
}

unsigned int ferry_worker_count(void)
{
	pthread_once(&pool.config_once, pool_configure);
	return pool.nworkers;
}

/* ---- the copy itself ---------------------------------------------------------------- */

static inline struct wslot *slot_at(struct wchan *c, uint32_t seq)
{
	return &c->slots[seq & c->mask];
}

/* Copy piece @p k of the unit led by @p seq: one chunk of a split copy, or a whole batch. */
static void copy_piece(struct wchan *c, uint32_t seq, uint32_t k)
{
	const struct wslot *s = slot_at(c, seq);
	uint32_t i;

	if (s->unit_descs == 1) {
		size_t off = (size_t)k * s->chunk;
		size_t len = s->len - off < s->chunk ? s->len - off : s->chunk;

		/* Not copy_plain: a NULL dst of a len 0 descriptor must not take an offset. */
		if (len != 0)
			memcpy((char *)s->dst + off, (const char *)s->src + off, len);
		return;
	}
	/* A batch: the members' fields were published with the leader's claim word (B1). */
	for (i = 0; i < s->unit_descs; i++) {
		const struct wslot *m = slot_at(c, seq + i);

		ferry_engine_copy_plain(m->dst, m->src, m->len);
	}
}

/* A piece of the unit led by @p seq is copied: count it down; the last one completes the unit. */
static void piece_done(struct wchan *c, uint32_t seq, bool notify)
{
	/*
	 * acq_rel (B2): release publishes this piece's bytes, and orders our reads of
	 * the slots, before poll's acquire load of left; acquire makes the other
	 * pieces' bytes visible to us before we call notify.
	 */
	if (atomic_fetch_sub_explicit(&slot_at(c, seq)->left, 1, memory_order_acq_rel) == 1 && notify &&
	    c->notify != NULL)
		c->notify(c->notify_arg);
}

/*
 * Claim and copy up to @p max_pieces pieces of the unit led by @p seq; true if
 * any was copied. @p notify: call cfg.notify on completion (workers only; the app
 * thread is the one that would be notified).
 */
static bool work_on(struct wchan *c, uint32_t seq, bool notify, uint32_t max_pieces)
{
	struct wslot *s = slot_at(c, seq);
	bool did = false;

	for (; max_pieces != 0; max_pieces--) {
		/* acquire (B1): pairs with the app's release store at doorbell. */
		uint64_t w = atomic_load_explicit(&s->claim, memory_order_acquire);

		do {
			if (claim_seq(w) != seq || claim_next(w) >= claim_nchunks(w))
				return did;
			/* acquire on success (B1); the unit stays ours until left drops. */
		} while (!atomic_compare_exchange_weak_explicit(&s->claim, &w, w + 1, memory_order_acquire,
								memory_order_acquire));
		copy_piece(c, seq, claim_next(w));
		piece_done(c, seq, notify);
		did = true;
	}
	return did;
}

/* True when the unit led by @p seq has a piece nobody claimed (a hint: racy by nature). */
static bool unit_unclaimed(struct wchan *c, uint32_t seq)
{
	uint64_t w = atomic_load_explicit(&slot_at(c, seq)->claim, memory_order_relaxed);

	return claim_seq(w) == seq && claim_next(w) < claim_nchunks(w);
}

/* ---- worker threads ------------------------------------------------------------------ */

/*
 * What a pass found: nothing, only items someone else already did, small units
 * it leaves to the application for a moment (see worker_serve), or copy work.
 */
enum pass_result { PASS_IDLE = 0, PASS_STALE = 1, PASS_WAITING = 2, PASS_COPIED = 3 };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Serve the items of our ring in @p c. A small unit is left to the application
 * for GRACE_NS first: a polling application takes it (help) sooner than a
 * hand-off to this thread costs, and copying it here would only bounce the
 * slots' cache lines between the two cores. Once the application has let one
 * unit pass its grace (it is busy or descheduled), the worker takes the small
 * units without waiting until it sees the application claim one again.
 */
static enum pass_result worker_serve(struct worker *wk, struct wchan *c)
{
	struct wring *r = &c->rings[wk->id];
	uint32_t cons = atomic_load_explicit(&r->cons, memory_order_relaxed); /* only we write it */
	/* acquire (B3): pairs with the app's release of prod: items below it are written. */
	uint32_t prod = atomic_load_explicit(&r->prod, memory_order_acquire);
	enum pass_result res = PASS_IDLE;
	uint32_t n;

	for (n = 0; cons != prod && n < SERVE_BATCH; n++) {
		uint64_t item = r->items[cons & c->mask];
		uint32_t seq = (uint32_t)item;

		if ((item & ITEM_SMALL) != 0 && r->grace_from_ns != UINT64_MAX) {
			if (unit_unclaimed(c, seq)) {
				uint64_t now = now_ns();

				if (r->grace_from_ns == 0)
					r->grace_from_ns = now;
				if (now - r->grace_from_ns < GRACE_NS)
					return res > PASS_WAITING ? res : PASS_WAITING;
				r->grace_from_ns = UINT64_MAX; /* the application is not helping */
			} else {
				r->grace_from_ns = 0; /* it is: the next small unit gets a grace again */
			}
		}
		cons++;
		/* release (B3): our read of the item above happens before the app rewrites its cell. */
		atomic_store_explicit(&r->cons, cons, memory_order_release);
		if (work_on(c, seq, true, UINT32_MAX)) {
			res = PASS_COPIED;
		} else {
			if (res == PASS_IDLE)
				res = PASS_STALE;
			if ((item & ITEM_SMALL) != 0)
				r->grace_from_ns = 0; /* the application took it: it is helping again */
		}
	}
	return res;
}

/* One pass over every registered channel. */
static enum pass_result worker_pass(struct worker *wk)
{
	/* acquire pairs with the release in register: slots below hwm are initialised. */
	uint32_t hwm = atomic_load_explicit(&pool.reg_hwm, memory_order_acquire);
	enum pass_result res = PASS_IDLE;
	uint32_t i;

	for (i = 0; i < hwm; i++) {
		struct wchan *c = atomic_load_explicit(&pool.reg[i], memory_order_acquire);

		if (c == NULL)
			continue;
		/*
		 * Hazard pointer (B5): announce c (seq_cst), then check it is still registered
		 * (seq_cst). Close clears reg[i] (seq_cst) then waits for our hazard: in the
		 * single total order either we see NULL here or close sees our hazard.
		 */
		atomic_store_explicit(&wk->hazard, c, memory_order_seq_cst);
		/* paused: the same total order lets ferry_worker_pause wait us out. */
		if (atomic_load_explicit(&pool.reg[i], memory_order_seq_cst) == c &&
		    !atomic_load_explicit(&pool.paused, memory_order_seq_cst)) {
			enum pass_result r = worker_serve(wk, c);

			if (r > res)
				res = r;
		}
		/* release: everything we did to c happens before close sees the hazard gone. */
		atomic_store_explicit(&wk->hazard, NULL, memory_order_release);
	}
	return res;
}

/*
 * Sleep in @p state (WORKER_DOZING: at most DOZE_NS; WORKER_ASLEEP: until woken).
 * Returns the result of the last look at the rings before sleeping.
 */
static enum pass_result worker_sleep(struct worker *wk, uint32_t state)
{
	static const struct timespec doze = {.tv_sec = 0, .tv_nsec = DOZE_NS};
	enum pass_result res;

	/*
	 * B4: an RMW, not a store, pairs with the RMW in wake_worker: the two RMWs on
	 * `sleeping` are ordered. If the producer's comes first, ours synchronises
	 * with it and the pass below sees the items it pushed; if ours comes first,
	 * the producer reads our state and wakes us when it must. (No fences: TSan
	 * can't see them.)
	 */
	atomic_exchange_explicit(&wk->sleeping, state, memory_order_acq_rel);
	res = worker_pass(wk);
	if (res <= PASS_STALE && !atomic_load_explicit(&pool.stop, memory_order_relaxed))
		/* Returns at once if a waker changed the word; a doze also ends by itself. */
		futex_wait_u32(&wk->sleeping, state, state == WORKER_DOZING ? &doze : NULL);
	atomic_store_explicit(&wk->sleeping, WORKER_AWAKE, memory_order_relaxed);
	return res;
}

/*
 * Spin while work keeps coming; when it stops (or every item was already taken
 * by a helping poll, so staying awake only competes for the CPU), doze; when
 * several dozes in a row saw no item at all, sleep until woken.
 */
static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	unsigned int idle = 0, quiet_dozes = 0;

	while (!atomic_load_explicit(&pool.stop, memory_order_acquire)) {
		enum pass_result res = worker_pass(wk);

		if (res >= PASS_WAITING) {
			idle = 0;
			quiet_dozes = 0;
			if (res == PASS_WAITING)
				cpu_relax();
			continue;
		}
		if (res == PASS_STALE)
			quiet_dozes = 0;
		if (++idle < SPIN_PASSES) {
			/*
			 * Spin, but give the CPU away now and then: on a machine with fewer
			 * cores than busy threads the application may be waiting for this
			 * very CPU, and a worker spinning against it copies nothing.
			 */
			if (idle % YIELD_EVERY == 0)
				sched_yield();
			else
				cpu_relax();
			continue;
		}
		idle = 0;
		res = worker_sleep(wk, quiet_dozes < QUIET_DOZES ? WORKER_DOZING : WORKER_ASLEEP);
		quiet_dozes = res == PASS_IDLE ? quiet_dozes + 1 : 0;
	}
	return NULL;
}

/*
 * Call after publishing work (or stop), see B4 in worker_sleep. @p urgent: wake
 * a dozing worker too; otherwise only a worker asleep for good is woken (a
 * dozing one looks again within DOZE_NS, and the application helps meanwhile),
 * which spares a system call per doorbell for small units.
 */
static void wake_worker(struct worker *wk, bool urgent)
{
	uint32_t old;

	if (urgent) {
		old = atomic_exchange_explicit(&wk->sleeping, WORKER_AWAKE, memory_order_acq_rel);
		if (old != WORKER_AWAKE)
			futex_wake_u32(&wk->sleeping);
		return;
	}
	/* An RMW that leaves the word alone: a dozing worker keeps dozing. */
	old = atomic_fetch_or_explicit(&wk->sleeping, 0, memory_order_acq_rel);
	if (old == WORKER_ASLEEP) {
		atomic_exchange_explicit(&wk->sleeping, WORKER_AWAKE, memory_order_acq_rel);
		futex_wake_u32(&wk->sleeping);
	}
}

static void pool_start(void)
{
	unsigned int i, started = 0;

	for (i = 0; i < pool.nworkers; i++) {
		if (pthread_create(&pool.workers[i].thread, NULL, worker_main, &pool.workers[i]) != 0)
			break;
		started++;
	}
	if (started < pool.nworkers) {
		FERRY_ERR("engine: started %u of %u copy workers; the application thread copies instead",
			  started, pool.nworkers);
		atomic_store_explicit(&pool.stop, true, memory_order_release);
		for (i = 0; i < started; i++) {
			wake_worker(&pool.workers[i], true);
			pthread_join(pool.workers[i].thread, NULL);
		}
		return;
	}
	atomic_store_explicit(&pool.running, true, memory_order_release);
}

void ferry_worker_pause(bool paused)
{
	unsigned int i;

	pthread_once(&pool.config_once, pool_configure);
	/*
	 * seq_cst, as the hazard protocol (B5): once every hazard was seen clear, a
	 * worker that enters a channel afterwards sees the flag and leaves it alone.
	 */
	atomic_store_explicit(&pool.paused, paused, memory_order_seq_cst);
	for (i = 0; paused && i < pool.nworkers; i++)
		while (atomic_load_explicit(&pool.workers[i].hazard, memory_order_seq_cst) != NULL)
			sched_yield();
	if (!paused && atomic_load_explicit(&pool.running, memory_order_acquire))
		for (i = 0; i < pool.nworkers; i++)
			wake_worker(&pool.workers[i], true);
}

/* Stop the workers when the library goes away so no thread runs in unmapped code. */
__attribute__((destructor)) static void pool_stop(void)
{
	unsigned int i;

	if (!atomic_load_explicit(&pool.running, memory_order_acquire))
		return;
	atomic_store_explicit(&pool.stop, true, memory_order_release);
	for (i = 0; i < pool.nworkers; i++) {
		wake_worker(&pool.workers[i], true);
		pthread_join(pool.workers[i].thread, NULL);
	}
	atomic_store_explicit(&pool.running, false, memory_order_release);
}

/* ---- registry ------------------------------------------------------------------------ */

static doca_error_t chan_register(struct wchan *c)
{
	uint32_t i, hwm;

	pthread_mutex_lock(&pool.reg_mu);
	hwm = atomic_load_explicit(&pool.reg_hwm, memory_order_relaxed);
	for (i = 0; i < REG_MAX; i++)
		if (atomic_load_explicit(&pool.reg[i], memory_order_relaxed) == NULL)
			break;
	if (i == REG_MAX) {
		pthread_mutex_unlock(&pool.reg_mu);
		return DOCA_ERROR_FULL;
	}
	c->reg_index = i;
	/* release: the channel's initialisation happens before a worker loads it. */
	atomic_store_explicit(&pool.reg[i], c, memory_order_release);
	if (i >= hwm)
		atomic_store_explicit(&pool.reg_hwm, i + 1, memory_order_release);
	pthread_mutex_unlock(&pool.reg_mu);
	return DOCA_SUCCESS;
}

static void chan_unregister(struct wchan *c)
{
	unsigned int i;

	pthread_mutex_lock(&pool.reg_mu);
	/* seq_cst: the hazard protocol in worker_pass relies on the total order. */
	atomic_store_explicit(&pool.reg[c->reg_index], NULL, memory_order_seq_cst);
	pthread_mutex_unlock(&pool.reg_mu);
	for (i = 0; i < pool.nworkers; i++)
		/* seq_cst/acquire: once c is gone from the hazard, the worker is done with it. */
		while (atomic_load_explicit(&pool.workers[i].hazard, memory_order_seq_cst) == c)
			sched_yield();
}

/* ---- application side ---------------------------------------------------------------- */

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static void chan_free(struct wchan *c)
{
	unsigned int i;

	if (c->rings != NULL)
		for (i = 0; i < pool.nworkers; i++)
			free(c->rings[i].items);
	free(c->rings);
	free(c->slots);
	free(c);
}

static doca_error_t chan_alloc(const struct ferry_chan_cfg *cfg, struct wchan **out)
{
	uint32_t size = pow2_at_least(cfg->depth);
	struct wchan *c = calloc(1, sizeof(*c));
	unsigned int i;

	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	c->mask = size - 1;
	c->depth = cfg->depth;
	c->slots = aligned_alloc(CACHE_LINE, (size_t)size * sizeof(*c->slots));
	c->rings = aligned_alloc(CACHE_LINE, sizeof(*c->rings) * (pool.nworkers ? pool.nworkers : 1));
	if (c->slots == NULL || c->rings == NULL) {
		chan_free(c);
		return DOCA_ERROR_NO_MEMORY;
	}
	memset(c->slots, 0, (size_t)size * sizeof(*c->slots));
	memset(c->rings, 0, sizeof(*c->rings) * (pool.nworkers ? pool.nworkers : 1));
	for (i = 0; i < pool.nworkers; i++) {
		c->rings[i].items = calloc(size, sizeof(uint64_t));
		if (c->rings[i].items == NULL) {
			chan_free(c);
			return DOCA_ERROR_NO_MEMORY;
		}
	}
	*out = c;
	return DOCA_SUCCESS;
}

doca_error_t ferry_worker_chan_open(const struct ferry_chan_cfg *cfg, size_t inline_below,
				    const struct ferry_engine_ops *ops, struct ferry_chan **chan)
{
	struct wchan *c;
	doca_error_t err;

	pthread_once(&pool.config_once, pool_configure);
	err = chan_alloc(cfg, &c);
	if (err != DOCA_SUCCESS)
		return err;
	c->base.ops = ops;
	c->notify = cfg->notify;
	c->notify_arg = cfg->notify_arg;
	c->inline_below = pool.nworkers == 0 ? SIZE_MAX : inline_below;
	err = chan_register(c);
	if (err != DOCA_SUCCESS) {
		chan_free(c);
		return FERRY_RULE(err, "ferry_chan_open: %u worker channels are open; no room for another",
				  REG_MAX);
	}
	/* Spread channels over the workers; a channel's small units stay on one of them. */
	c->home_worker = pool.nworkers == 0 ? 0 : c->reg_index % pool.nworkers;
	*chan = &c->base;
	return DOCA_SUCCESS;
}

static doca_error_t worker_open(const struct ferry_chan_cfg *cfg, struct ferry_chan **chan)
{
	return ferry_worker_chan_open(cfg, 0, &ferry_engine_worker_ops, chan);
}

static doca_error_t worker_enqueue(struct ferry_chan *chan, const struct ferry_copy_desc *desc)
{
	struct wchan *c = to_wchan(chan);
	struct wslot *s;

	if (desc->src_remote != NULL || desc->dst_remote != NULL)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
				  "ferry_chan_enqueue: %s channel: a copy to or from another process needs the inline engine",
				  c->base.ops->name);
	if (c->tail - c->head >= c->depth)
		return DOCA_ERROR_AGAIN;
	s = slot_at(c, c->tail);
	s->dst = desc->dst;
	s->src = desc->src;
	s->len = desc->len;
	s->cookie = desc->cookie;
	s->failed = 0;
	s->on_worker = 0;
	s->unit_descs = 1; /* a unit of its own unless doorbell batches it */
	c->tail++;
	return DOCA_SUCCESS;
}

/* Space in ring @p r; refreshes the cached consumer index only when it looks full. */
static bool ring_has_room(struct wchan *c, struct wring *r)
{
	if (r->prod_local - r->cons_cache <= c->mask)
		return true;
	/* acquire (B3): pairs with the worker's release of cons: it has read the cells below. */
	r->cons_cache = atomic_load_explicit(&r->cons, memory_order_acquire);
	return r->prod_local - r->cons_cache <= c->mask;
}

static void ring_put(struct wchan *c, struct wring *r, uint64_t item)
{
	r->items[r->prod_local & c->mask] = item;
	r->prod_local++;
}

/* Bytes the unit led by @p seq copies (app thread). */
static size_t unit_bytes(struct wchan *c, uint32_t seq)
{
	const struct wslot *s = slot_at(c, seq);
	size_t bytes = 0;
	uint32_t i;

	if (s->unit_descs == 1)
		return s->len;
	for (i = 0; i < s->unit_descs; i++)
		bytes += slot_at(c, seq + i)->len;
	return bytes;
}

/* Bytes in one piece of the unit led by @p seq (app thread). */
static size_t piece_bytes(struct wchan *c, uint32_t seq)
{
	const struct wslot *s = slot_at(c, seq);

	return s->unit_descs == 1 && s->chunk < s->len ? s->chunk : unit_bytes(c, seq);
}

/*
 * Give the unit led by @p seq to the workers, noting them in @p touched (and in
 * @p urgent when the unit is not small: see wake_worker); false when no ring had room.
 */
static bool push_unit(struct wchan *c, uint32_t seq, uint64_t *touched, uint64_t *urgent)
{
	const struct wslot *s = slot_at(c, seq);
	unsigned int nw = pool.nworkers, i, given = 0, first;
	bool small;

	if (s->unit_descs == 1 && s->len > s->chunk) {
		/* Split copy: every worker may claim chunks; a full ring just means one helper less. */
		for (i = 0; i < nw; i++)
			if (ring_has_room(c, &c->rings[i])) {
				ring_put(c, &c->rings[i], seq);
				*touched |= UINT64_C(1) << i;
				*urgent |= UINT64_C(1) << i;
				given++;
			}
		return given != 0;
	}
	small = unit_bytes(c, seq) < HOME_BYTES;
	first = small ? c->home_worker : c->next_worker;
	for (i = 0; i < nw; i++) {
		unsigned int k = (first + i) % nw;
		struct wring *r = &c->rings[k];

		if (ring_has_room(c, r)) {
			ring_put(c, r, seq | (small ? ITEM_SMALL : 0));
			*touched |= UINT64_C(1) << k;
			if (!small) {
				*urgent |= UINT64_C(1) << k;
				c->next_worker = (k + 1) % nw;
			}
			return true;
		}
	}
	return false;
}

/* Wake the workers in @p touched, urgently those in @p urgent; remember the others in c->lazy. */
static void wake_workers(struct wchan *c, uint64_t touched, uint64_t urgent)
{
	unsigned int i;

	for (i = 0; i < pool.nworkers; i++) {
		uint64_t bit = UINT64_C(1) << i;

		if (touched & bit)
			wake_worker(&pool.workers[i], (urgent & bit) != 0);
	}
	c->lazy = (c->lazy | touched) & ~urgent;
}

/* Push the units of [pushed, rung) to the workers as far as the rings allow, then publish and wake. */
static void chan_push(struct wchan *c)
{
	uint64_t touched = 0, urgent = 0;
	unsigned int i;
	uint32_t seq;

	pthread_once(&pool.start_once, pool_start);
	/* Units a helping poll already finished (and poll handed out) need no worker. */
	if ((int32_t)(c->ready_end - c->pushed) > 0)
		c->pushed = c->ready_end;
	if (!atomic_load_explicit(&pool.running, memory_order_acquire)) {
		/* No workers: the application thread does the copies itself. */
		for (; c->pushed != c->rung; c->pushed += slot_at(c, c->pushed)->unit_descs)
			work_on(c, c->pushed, false, UINT32_MAX);
		return;
	}
	for (seq = c->pushed; seq != c->rung; seq += slot_at(c, seq)->unit_descs) {
		if (slot_at(c, seq)->on_worker && !push_unit(c, seq, &touched, &urgent))
			break; /* rings full of stale items: retried from poll */
	}
	c->pushed = seq;
	for (i = 0; i < pool.nworkers; i++)
		if (touched & (UINT64_C(1) << i))
			/* release (B3): the items written by ring_put are visible before the new prod. */
			atomic_store_explicit(&c->rings[i].prod, c->rings[i].prod_local, memory_order_release);
	if (touched != 0)
		wake_workers(c, touched, urgent);
}

/* Make the unit of @p ndescs descriptors led by @p seq claimable in @p npieces pieces. */
static void unit_publish(struct wslot *s, uint32_t seq, uint32_t ndescs, uint32_t npieces)
{
	s->unit_descs = ndescs;
	s->on_worker = 1;
	atomic_store_explicit(&s->left, npieces, memory_order_relaxed); /* published below */
	/* release (B1): every field of the unit, and left, are set before a piece can be claimed. */
	atomic_store_explicit(&s->claim, claim_make(seq, npieces, 0), memory_order_release);
}

/* A descriptor of @p len bytes is split when it makes at least 2 chunks. */
static inline bool is_split(size_t len)
{
	return len >= 2 * CHUNK_BYTES;
}

static void publish_split(struct wslot *s, uint32_t seq)
{
	size_t nchunks = (s->len + CHUNK_BYTES - 1) / CHUNK_BYTES;

	if (nchunks > CHUNKS_MAX)
		nchunks = CHUNKS_MAX;
	/* Whole cache lines per chunk so two workers never write the same line. */
	s->chunk = ((s->len + nchunks - 1) / nchunks + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
	unit_publish(s, seq, 1, (uint32_t)((s->len + s->chunk - 1) / s->chunk));
}

/*
 * Publish a batch starting at @p seq: consecutive descriptors for the workers
 * that are not split, up to BATCH_DESCS and BATCH_BYTES (at least one). Returns
 * how many it took.
 */
static uint32_t publish_batch(struct wchan *c, uint32_t seq)
{
	struct wslot *lead = slot_at(c, seq);
	size_t bytes = lead->len;
	uint32_t n = 1;

	while (n < BATCH_DESCS && seq + n != c->tail) {
		const struct wslot *m = slot_at(c, seq + n);

		if (m->len < c->inline_below || is_split(m->len) || bytes + m->len > BATCH_BYTES)
			break;
		bytes += m->len;
		n++;
	}
	lead->chunk = lead->len; /* a batch of one is a split unit of one chunk */
	unit_publish(lead, seq, n, 1);
	return n;
}

static void worker_doorbell(struct ferry_chan *chan)
{
	struct wchan *c = to_wchan(chan);
	uint32_t seq = c->rung, tail = c->tail;
	bool for_workers = false, streamed = false;

	while (seq != tail) {
		struct wslot *s = slot_at(c, seq);

		if (s->len < c->inline_below) {
			/* Copied here; a unit of one, born finished (left is 0 by the invariant). */
			streamed |= ferry_engine_copy_local(s->dst, s->src, s->len);
			seq++;
			continue;
		}
		for_workers = true;
		if (is_split(s->len)) {
			publish_split(s, seq);
			seq++;
		} else {
			seq += publish_batch(c, seq);
		}
	}
	if (streamed)
		ferry_engine_stream_fence();
	/* Nothing waiting for a worker before, nothing for them now: no push to walk. */
	if (!for_workers && c->pushed == c->rung)
		c->pushed = tail;
	c->rung = tail;
	if (c->pushed != c->rung)
		chan_push(c);
}

/* Hand out finished descriptors from the head, in order, a unit at a time. */
static uint32_t collect(struct wchan *c, struct ferry_copy_cpl *cpl, uint32_t max)
{
	/* Locals: the stores to cpl could alias the channel (no strict aliasing here). */
	uint32_t head = c->head, ready_end = c->ready_end, rung = c->rung, n = 0;

	while (n < max) {
		const struct wslot *s;

		if (head == ready_end) {
			if (head == rung)
				break;
			s = slot_at(c, head);
			/* acquire (B2): pairs with the last piece's decrement: the unit's bytes are in place. */
			if (atomic_load_explicit(&s->left, memory_order_acquire) != 0)
				break;
			ready_end = head + s->unit_descs;
		}
		s = slot_at(c, head);
		cpl[n].cookie = s->cookie;
		cpl[n].status = s->failed ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS;
		head++;
		n++;
	}
	c->head = head;
	c->ready_end = ready_end;
	return n;
}

/*
 * Nothing is finished: claim and copy pieces of the units nobody claimed yet,
 * from the oldest on, until HELP_BYTES are copied or HELP_UNITS units were looked
 * at (a chunk, or a window of small batches: tens of microseconds at most). True
 * if it copied anything.
 */
static bool help(struct wchan *c)
{
	uint32_t seq = c->ready_end, units;
	size_t bytes = 0;
	bool did = false;

	for (units = 0; units < HELP_UNITS && seq != c->rung && bytes < HELP_BYTES; units++) {
		if (unit_unclaimed(c, seq) && work_on(c, seq, false, 1)) {
			did = true;
			bytes += piece_bytes(c, seq);
		}
		seq += slot_at(c, seq)->unit_descs;
	}
	return did;
}

/*
 * poll: hand out what is finished. When nothing is, the caller is only waiting,
 * so it copies one piece of an unclaimed unit itself (at most CHUNK_BYTES, or a
 * batch of that size: tens of microseconds) instead of spinning. On a machine
 * with fewer cores than threads this is what keeps the queue moving while a
 * worker is descheduled; when the application is busy elsewhere the workers
 * still do all the copies and the overlap is kept.
 */
static uint32_t worker_poll(struct ferry_chan *chan, struct ferry_copy_cpl *cpl, uint32_t max)
{
	struct wchan *c = to_wchan(chan);
	uint32_t n;

	if (c->pushed != c->rung)
		chan_push(c);
	n = collect(c, cpl, max);
	if (n == 0 && max != 0 && help(c))
		n = collect(c, cpl, max);
	return n;
}

/*
 * ready is what a caller asks before it sleeps until notify (the PE does when
 * arming a notification): when nothing is finished, wake the workers that were
 * left dozing with small units, so the notify comes without waiting for a doze.
 */
static bool worker_ready(struct ferry_chan *chan)
{
	struct wchan *c = to_wchan(chan);
	unsigned int i;

	if (c->pushed != c->rung)
		chan_push(c);
	if (c->head != c->ready_end)
		return true;
	/* acquire (B2): same pairing as in collect. */
	if (c->head != c->rung && atomic_load_explicit(&slot_at(c, c->head)->left, memory_order_acquire) == 0)
		return true;
	if (c->lazy != 0 && c->head != c->rung) {
		for (i = 0; i < pool.nworkers; i++)
			if (c->lazy & (UINT64_C(1) << i))
				wake_worker(&pool.workers[i], true);
		c->lazy = 0;
	}
	return false;
}

/* Take every unclaimed piece of the unit led by @p seq away from the workers; they count as failed. */
static void unit_cancel(struct wchan *c, uint32_t seq)
{
	struct wslot *s = slot_at(c, seq);
	/* acquire: see the latest claims before deciding what is left. */
	uint64_t w = atomic_load_explicit(&s->claim, memory_order_acquire);
	uint32_t dropped, i;

	if (!s->on_worker)
		return; /* copied at doorbell */
	do {
		if (claim_seq(w) != seq || claim_next(w) >= claim_nchunks(w))
			return; /* every piece already claimed: it finishes */
	} while (!atomic_compare_exchange_weak_explicit(&s->claim, &w,
							claim_make(seq, claim_nchunks(w), claim_nchunks(w)),
							memory_order_acq_rel, memory_order_acquire));
	dropped = claim_nchunks(w) - claim_next(w);
	/* A batch is one piece: dropping it fails every member, none of which was touched. */
	for (i = 0; i < s->unit_descs; i++)
		slot_at(c, seq + i)->failed = 1;
	/* release: keeps the order of our writes to the slots before poll's acquire. */
	atomic_fetch_sub_explicit(&s->left, dropped, memory_order_release);
}

static void worker_cancel(struct ferry_chan *chan)
{
	struct wchan *c = to_wchan(chan);
	uint32_t seq;

	/* [head, ready_end) is finished already. */
	for (seq = c->ready_end; seq != c->rung; seq += slot_at(c, seq)->unit_descs)
		unit_cancel(c, seq);
	/* Not rung yet: nothing started; each is a unit of one with left 0, so they complete as failed. */
	for (; seq != c->tail; seq++)
		slot_at(c, seq)->failed = 1;
	c->rung = c->tail;
	c->pushed = c->tail;
}

static void worker_close(struct ferry_chan *chan)
{
	struct wchan *c = to_wchan(chan);

	worker_cancel(chan);
	chan_unregister(c);
	chan_free(c);
}

const struct ferry_engine_ops ferry_engine_worker_ops = {
	.name = "worker",
	.chan_open = worker_open,
	.chan_close = worker_close,
	.enqueue = worker_enqueue,
	.doorbell = worker_doorbell,
	.poll = worker_poll,
	.cancel = worker_cancel,
	.ready = worker_ready,
};

static doca_error_t auto_open(const struct ferry_chan_cfg *cfg, struct ferry_chan **chan)
{
	return ferry_worker_chan_open(cfg, ferry_engine_auto_threshold(), &ferry_engine_auto_ops, chan);
}

const struct ferry_engine_ops ferry_engine_auto_ops = {
	.name = "auto",
	.chan_open = auto_open,
	.chan_close = worker_close,
	.enqueue = worker_enqueue,
	.doorbell = worker_doorbell,
	.poll = worker_poll,
	.cancel = worker_cancel,
	.ready = worker_ready,
};
