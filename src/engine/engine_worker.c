/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_worker.c - copies served by a process-wide pool of worker threads.
 *
 * Shape
 *   A channel owns a power-of-two ring of descriptor slots (slot order is enqueue
 *   order) and, for each worker, a single-producer/single-consumer ring of work
 *   items (descriptor sequence numbers). doorbell publishes the new slots and
 *   pushes each descriptor to one worker (a single chunk, round robin) or to every
 *   worker (a split copy). Workers claim chunks of a descriptor with a CAS on the
 *   slot's claim word, copy them and count them down; whoever finishes the last
 *   chunk completes the descriptor and calls cfg.notify. poll walks the slots from
 *   the head and hands out those that are done, so completions leave in enqueue
 *   order whichever worker finished first. A worker that arrives after the others
 *   took every chunk simply finds nothing to claim: that is the load balancing.
 *
 *   The auto engine is this engine with an inline threshold: at doorbell the
 *   caller's thread copies descriptors shorter than it and marks them done; the
 *   per-slot completion keeps the order across both paths.
 *
 * Threads
 *   One application thread at a time per channel: enqueue, doorbell, poll, cancel,
 *   close. Worker threads: started lazily at the first push, shared by all
 *   channels, FERRY_ENGINE_WORKERS of them (default min(2, ncpu)); they spin for a
 *   short while when idle, then sleep on a futex. A worker touches a channel only
 *   while its hazard pointer names it; close unregisters the channel and waits for
 *   every hazard to move on, so no worker uses a freed channel and every copy in
 *   progress has ended when close returns.
 *
 * Claim word of a slot: seq (32 bits) | nchunks (16) | next unclaimed chunk (16).
 *   Stored with release by the app at doorbell, advanced by CAS by workers and by
 *   cancel. A work item carries the descriptor's seq: an item that outlived its
 *   descriptor (another worker did all the work, the slot was polled and reused)
 *   finds another seq and is dropped, so stale items are harmless.
 *
 * Indices (app thread only, free-running uint32_t masked on access):
 *   head <= pushed <= rung <= tail
 *   [head, rung) published to the engine, not yet polled;
 *   [pushed, rung) published but not yet given to a worker (its ring was full);
 *   [rung, tail) enqueued, waiting for the doorbell.
 *   Invariant: a slot outside [head, rung) has left == 0.
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
/* Channels registered with the pool at once. */
#define REG_MAX 4096u
/* Items a worker takes from one channel before visiting the next one. */
#define SERVE_BATCH 32u
/* Empty passes a worker spins through before it sleeps (~tens of microseconds). */
#define SPIN_PASSES 4096u
#define WORKERS_MAX 64u

#define CACHE_LINE 64

struct wslot {
	_Atomic uint64_t claim;
	_Atomic uint32_t left; /* chunks neither finished nor cancelled; 0 = done */
	uint16_t failed;       /* app thread only: cancel dropped a chunk */
	uint16_t on_worker;    /* app thread only: 0 when the app copied it at doorbell */
	void *dst;
	const void *src;
	size_t len;
	size_t chunk;
	uint64_t cookie;
} __attribute__((aligned(CACHE_LINE)));

/* One SPSC ring from the channel's app thread to one worker. */
struct wring {
	_Alignas(CACHE_LINE) _Atomic uint32_t prod; /* written by the app thread */
	uint32_t prod_local;                        /* app: items written, not yet published */
	uint32_t cons_cache;                        /* app: last cons it read */
	_Alignas(CACHE_LINE) _Atomic uint32_t cons; /* written by the worker */
	_Alignas(CACHE_LINE) uint32_t *items;
};

struct wchan {
	struct ferry_chan base;
	void (*notify)(void *arg);
	void *notify_arg;
	size_t inline_below;
	uint32_t mask;
	uint32_t depth;
	uint32_t head;
	uint32_t pushed;
	uint32_t rung;
	uint32_t tail;
	uint32_t next_worker;
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

static void futex_wait_u32(_Atomic uint32_t *addr, uint32_t expected)
{
	syscall(SYS_futex, (void *)(uintptr_t)addr, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
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

static void copy_chunk(struct wchan *c, struct wslot *s, uint32_t k, bool notify)
{
	size_t off = (size_t)k * s->chunk;
	size_t len = s->len - off < s->chunk ? s->len - off : s->chunk;

	if (len != 0)
		memcpy((char *)s->dst + off, (const char *)s->src + off, len);
	/*
	 * acq_rel: release publishes this chunk's bytes to poll's acquire load of left;
	 * acquire makes the other chunks' bytes visible to us before we call notify.
	 */
	if (atomic_fetch_sub_explicit(&s->left, 1, memory_order_acq_rel) == 1 && notify && c->notify != NULL)
		c->notify(c->notify_arg);
}

/*
 * Claim and copy up to @p max_chunks chunks of descriptor @p seq; true if any was
 * copied. @p notify: call cfg.notify on completion (workers only; the app thread
 * is the one that would be notified).
 */
static bool work_on(struct wchan *c, uint32_t seq, bool notify, uint32_t max_chunks)
{
	struct wslot *s = &c->slots[seq & c->mask];
	bool did = false;

	for (; max_chunks != 0; max_chunks--) {
		/* acquire pairs with the app's release store at doorbell: the fields are set. */
		uint64_t w = atomic_load_explicit(&s->claim, memory_order_acquire);

		do {
			if (claim_seq(w) != seq || claim_next(w) >= claim_nchunks(w))
				return did;
			/* acquire on success: same pairing; the slot stays ours until left drops. */
		} while (!atomic_compare_exchange_weak_explicit(&s->claim, &w, w + 1, memory_order_acquire,
								memory_order_acquire));
		copy_chunk(c, s, claim_next(w), notify);
		did = true;
	}
	return did;
}

/* ---- worker threads ------------------------------------------------------------------ */

static bool worker_serve(struct worker *wk, struct wchan *c)
{
	struct wring *r = &c->rings[wk->id];
	uint32_t cons = atomic_load_explicit(&r->cons, memory_order_relaxed); /* only we write it */
	/* acquire pairs with the app's release of prod: items below it are written. */
	uint32_t prod = atomic_load_explicit(&r->prod, memory_order_acquire);
	uint32_t n;

	for (n = 0; cons != prod && n < SERVE_BATCH; n++) {
		uint32_t seq = r->items[cons & c->mask];

		cons++;
		/* release: our read of the item above happens before the app rewrites its cell. */
		atomic_store_explicit(&r->cons, cons, memory_order_release);
		work_on(c, seq, true, UINT32_MAX);
	}
	return n != 0;
}

/* One pass over every registered channel; true if there was any work. */
static bool worker_pass(struct worker *wk)
{
	/* acquire pairs with the release in register: slots below hwm are initialised. */
	uint32_t hwm = atomic_load_explicit(&pool.reg_hwm, memory_order_acquire);
	bool did = false;
	uint32_t i;

	for (i = 0; i < hwm; i++) {
		struct wchan *c = atomic_load_explicit(&pool.reg[i], memory_order_acquire);

		if (c == NULL)
			continue;
		/*
		 * Hazard pointer: announce c (seq_cst), then check it is still registered
		 * (seq_cst). Close clears reg[i] (seq_cst) then waits for our hazard: in the
		 * single total order either we see NULL here or close sees our hazard.
		 */
		atomic_store_explicit(&wk->hazard, c, memory_order_seq_cst);
		if (atomic_load_explicit(&pool.reg[i], memory_order_seq_cst) == c)
			did |= worker_serve(wk, c);
		/* release: everything we did to c happens before close sees the hazard gone. */
		atomic_store_explicit(&wk->hazard, NULL, memory_order_release);
	}
	return did;
}

static void worker_sleep(struct worker *wk)
{
	/*
	 * An exchange, not a store, pairs with the exchange in wake_worker: the two
	 * RMWs on `sleeping` are ordered. If the producer's comes first, ours
	 * synchronises with it and the pass below sees the items it pushed; if ours
	 * comes first, the producer reads 1 and wakes us. (No fences: TSan can't see them.)
	 */
	atomic_exchange_explicit(&wk->sleeping, 1, memory_order_acq_rel);
	if (!worker_pass(wk) && !atomic_load_explicit(&pool.stop, memory_order_relaxed))
		futex_wait_u32(&wk->sleeping, 1); /* returns at once if a waker cleared it */
	atomic_store_explicit(&wk->sleeping, 0, memory_order_relaxed);
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	unsigned int idle = 0;

	while (!atomic_load_explicit(&pool.stop, memory_order_acquire)) {
		if (worker_pass(wk)) {
			idle = 0;
		} else if (++idle < SPIN_PASSES) {
			cpu_relax();
		} else {
			worker_sleep(wk);
			idle = 0;
		}
	}
	return NULL;
}

/* Call after publishing work (or stop): see worker_sleep for the pairing. */
static void wake_worker(struct worker *wk)
{
	if (atomic_exchange_explicit(&wk->sleeping, 0, memory_order_acq_rel) != 0)
		futex_wake_u32(&wk->sleeping);
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
			wake_worker(&pool.workers[i]);
			pthread_join(pool.workers[i].thread, NULL);
		}
		return;
	}
	atomic_store_explicit(&pool.running, true, memory_order_release);
}

/* Stop the workers when the library goes away so no thread runs in unmapped code. */
__attribute__((destructor)) static void pool_stop(void)
{
	unsigned int i;

	if (!atomic_load_explicit(&pool.running, memory_order_acquire))
		return;
	atomic_store_explicit(&pool.stop, true, memory_order_release);
	for (i = 0; i < pool.nworkers; i++) {
		wake_worker(&pool.workers[i]);
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
		c->rings[i].items = calloc(size, sizeof(uint32_t));
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

	if (c->tail - c->head >= c->depth)
		return DOCA_ERROR_AGAIN;
	s = &c->slots[c->tail & c->mask];
	s->dst = desc->dst;
	s->src = desc->src;
	s->len = desc->len;
	s->cookie = desc->cookie;
	s->failed = 0;
	c->tail++;
	return DOCA_SUCCESS;
}

/* Space in ring @p r; refreshes the cached consumer index only when it looks full. */
static bool ring_has_room(struct wchan *c, struct wring *r)
{
	if (r->prod_local - r->cons_cache <= c->mask)
		return true;
	/* acquire pairs with the worker's release of cons: it has read the cells below. */
	r->cons_cache = atomic_load_explicit(&r->cons, memory_order_acquire);
	return r->prod_local - r->cons_cache <= c->mask;
}

static void ring_put(struct wchan *c, struct wring *r, uint32_t seq)
{
	r->items[r->prod_local & c->mask] = seq;
	r->prod_local++;
}

/* Give descriptor @p seq to the workers, noting them in @p touched; false when no ring had room. */
static bool push_one(struct wchan *c, uint32_t seq, uint64_t *touched)
{
	const struct wslot *s = &c->slots[seq & c->mask];
	unsigned int nw = pool.nworkers, i, given = 0;

	if (s->len > s->chunk) {
		/* Split copy: every worker may claim chunks; a full ring just means one helper less. */
		for (i = 0; i < nw; i++)
			if (ring_has_room(c, &c->rings[i])) {
				ring_put(c, &c->rings[i], seq);
				*touched |= UINT64_C(1) << i;
				given++;
			}
		return given != 0;
	}
	for (i = 0; i < nw; i++) {
		unsigned int k = (c->next_worker + i) % nw;
		struct wring *r = &c->rings[k];

		if (ring_has_room(c, r)) {
			ring_put(c, r, seq);
			*touched |= UINT64_C(1) << k;
			c->next_worker = (c->next_worker + i + 1) % nw;
			return true;
		}
	}
	return false;
}

static void wake_workers(uint64_t touched)
{
	unsigned int i;

	for (i = 0; i < pool.nworkers; i++)
		if (touched & (UINT64_C(1) << i))
			wake_worker(&pool.workers[i]);
}

/* Push [pushed, rung) to the workers as far as the rings allow, then publish and wake. */
static void chan_push(struct wchan *c)
{
	uint64_t touched = 0;
	unsigned int i;

	pthread_once(&pool.start_once, pool_start);
	if (!atomic_load_explicit(&pool.running, memory_order_acquire)) {
		/* No workers: the application thread does the copies itself. */
		for (; c->pushed != c->rung; c->pushed++)
			work_on(c, c->pushed, false, UINT32_MAX);
		return;
	}
	for (; c->pushed != c->rung; c->pushed++) {
		const struct wslot *s = &c->slots[c->pushed & c->mask];

		if (s->on_worker && !push_one(c, c->pushed, &touched))
			break; /* rings full of stale items: retried from poll */
	}
	for (i = 0; i < pool.nworkers; i++)
		if (touched & (UINT64_C(1) << i))
			/* release: the items written by ring_put are visible before the new prod. */
			atomic_store_explicit(&c->rings[i].prod, c->rings[i].prod_local, memory_order_release);
	if (touched != 0)
		wake_workers(touched);
}

static void slot_publish(struct wslot *s, uint32_t seq)
{
	uint32_t nchunks = 1;

	s->chunk = s->len;
	if (s->len >= 2 * CHUNK_BYTES) {
		nchunks = (uint32_t)((s->len + CHUNK_BYTES - 1) / CHUNK_BYTES < CHUNKS_MAX
					     ? (s->len + CHUNK_BYTES - 1) / CHUNK_BYTES
					     : CHUNKS_MAX);
		/* Whole cache lines per chunk so two workers never write the same line. */
		s->chunk = ((s->len + nchunks - 1) / nchunks + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
		nchunks = (uint32_t)((s->len + s->chunk - 1) / s->chunk);
	}
	atomic_store_explicit(&s->left, nchunks, memory_order_relaxed); /* published below */
	/* release: fields and left are set before any worker can claim a chunk. */
	atomic_store_explicit(&s->claim, claim_make(seq, nchunks, 0), memory_order_release);
}

static void worker_doorbell(struct ferry_chan *chan)
{
	struct wchan *c = to_wchan(chan);
	uint32_t seq;

	for (seq = c->rung; seq != c->tail; seq++) {
		struct wslot *s = &c->slots[seq & c->mask];

		s->on_worker = s->len >= c->inline_below;
		if (s->on_worker) {
			slot_publish(s, seq);
		} else if (s->len != 0) {
			/* Copied here; left is already 0 (invariant), so poll sees it done. */
			memcpy(s->dst, s->src, s->len);
		}
	}
	c->rung = c->tail;
	if (c->pushed != c->rung)
		chan_push(c);
}

/* Hand out finished descriptors from the head, in order. */
static uint32_t collect(struct wchan *c, struct ferry_copy_cpl *cpl, uint32_t max)
{
	uint32_t n = 0;

	while (n < max && c->head != c->rung) {
		const struct wslot *s = &c->slots[c->head & c->mask];

		/* acquire pairs with the release decrement of the last chunk: bytes are in place. */
		if (atomic_load_explicit(&s->left, memory_order_acquire) != 0)
			break;
		cpl[n].cookie = s->cookie;
		cpl[n].status = s->failed ? DOCA_ERROR_IO_FAILED : DOCA_SUCCESS;
		c->head++;
		n++;
	}
	return n;
}

/*
 * poll: hand out what is finished. When nothing is and the head descriptor still
 * has unclaimed chunks, the caller is only waiting, so it copies one chunk of it
 * itself (at most CHUNK_BYTES, tens of microseconds) instead of spinning. On a
 * machine with fewer cores than threads this is what keeps the queue moving while
 * a worker is descheduled; when the application is busy elsewhere the workers
 * still do all the copies and the overlap is kept.
 */
static uint32_t worker_poll(struct ferry_chan *chan, struct ferry_copy_cpl *cpl, uint32_t max)
{
	struct wchan *c = to_wchan(chan);
	uint32_t n;

	if (c->pushed != c->rung)
		chan_push(c);
	n = collect(c, cpl, max);
	if (n == 0 && max != 0 && c->head != c->rung && work_on(c, c->head, false, 1))
		n = collect(c, cpl, max);
	return n;
}

static bool worker_ready(struct ferry_chan *chan)
{
	struct wchan *c = to_wchan(chan);

	if (c->pushed != c->rung)
		chan_push(c);
	/* acquire: same pairing as in poll. */
	return c->head != c->rung &&
	       atomic_load_explicit(&c->slots[c->head & c->mask].left, memory_order_acquire) == 0;
}

/* Take every unclaimed chunk of @p seq away from the workers; they count as failed. */
static void slot_cancel(struct wslot *s, uint32_t seq)
{
	/* acquire: see the latest claims before deciding what is left. */
	uint64_t w = atomic_load_explicit(&s->claim, memory_order_acquire);
	uint32_t dropped;

	do {
		if (claim_seq(w) != seq || claim_next(w) >= claim_nchunks(w))
			return; /* copied inline, or every chunk already claimed: it finishes */
	} while (!atomic_compare_exchange_weak_explicit(&s->claim, &w,
							claim_make(seq, claim_nchunks(w), claim_nchunks(w)),
							memory_order_acq_rel, memory_order_acquire));
	dropped = claim_nchunks(w) - claim_next(w);
	s->failed = 1;
	/* release: keeps the order of our writes to the slot before poll's acquire. */
	atomic_fetch_sub_explicit(&s->left, dropped, memory_order_release);
}

static void worker_cancel(struct ferry_chan *chan)
{
	struct wchan *c = to_wchan(chan);
	uint32_t seq;

	for (seq = c->head; seq != c->rung; seq++)
		slot_cancel(&c->slots[seq & c->mask], seq);
	/* Not rung yet: nothing started; left is 0 already, so they complete as failed. */
	for (; seq != c->tail; seq++)
		c->slots[seq & c->mask].failed = 1;
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
