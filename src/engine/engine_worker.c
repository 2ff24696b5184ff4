/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_worker.c - the worker and auto engines: channels whose copies are
 * served by the process-wide pool of copy workers (worker_pool.c).
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
 *   cancel, close. The pool's worker threads (worker_pool.c: how they spin, doze
 *   and sleep) call worker_serve on every open channel, which they reach through
 *   the pool's registry (the channel's `member`). A doorbell wakes a sleeping
 *   worker, and a dozing one only for a large unit: a small one is either helped
 *   by the polling application or found at the end of the doze; ready (which a
 *   caller asks before it sleeps until notify) wakes the dozing workers holding
 *   small units, so such a caller never waits for a doze. Close unregisters the
 *   channel, which returns once no worker is inside it (the pool's hazard
 *   pointers), so no worker uses a freed channel and every copy in progress has
 *   ended when close returns.
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
 *   (B4, the wake-ups, and B5, the hazard pointers, are the pool's: worker_pool.c.)
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
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/ferry_alloc.h"
#include "common/ferry_env.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "engine/engine_priv.h"
#include "engine/pool_priv.h"

FERRY_LOG_MODULE("engine");

/*
 * A copy of at least 2 chunks is split; chunks are claimed one at a time. 128 KiB:
 * splitting pays from 256 KiB on (engine.c has the figures), and a poll that helps
 * (worker_poll) is never held longer than one chunk (~20 us).
 */
#define CHUNK_BYTES ((size_t)128 * 1024)
#define CHUNKS_MAX  0xffffu
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
#define HOME_BYTES  ((size_t)64 * 1024)
/*
 * A poll that finds nothing finished copies unclaimed pieces itself, oldest
 * first, until it copied HELP_BYTES (one chunk) or looked at HELP_UNITS units:
 * enough to take a whole window of small copies in one go, so a window that a
 * burst of completions cut into many small units grows back into big ones.
 */
#define HELP_UNITS  64u
#define HELP_BYTES  CHUNK_BYTES
/* Items a worker takes from one channel before visiting the next one. */
#define SERVE_BATCH 32u
/*
 * A worker leaves a small unit (under HOME_BYTES) to a polling application for
 * this long before it copies it itself (worker_serve).
 */
#define GRACE_NS    2000u
/* Marks a ring item whose unit is small. */
#define ITEM_SMALL  (UINT64_C(1) << 32)

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
	uint64_t lazy;                   /* workers given small units without waking them from a doze */
	unsigned int nworkers;           /* the pool's, fixed for the process: one ring each */
	struct ferry_pool_member member; /* how the pool's workers reach this channel */
	struct wslot *slots;
	struct wring *rings;
	struct ferry_stream stream; /* the doorbell's own copies: streaming or cached (engine_priv.h) */
};

static inline struct wchan *to_wchan(struct ferry_chan *chan)
{
	return (struct wchan *)chan;
}

static inline struct wchan *wchan_of_member(struct ferry_pool_member *m)
{
	return (struct wchan *)(void *)((char *)m - offsetof(struct wchan, member));
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

/* ---- the workers' side ----------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The pool's worker @p worker serves the items of its ring in the channel of
 * @p member (the pool holds a hazard on it meanwhile). A small unit is left to the application
 * for GRACE_NS first: a polling application takes it (help) sooner than a
 * hand-off to this thread costs, and copying it here would only bounce the
 * slots' cache lines between the two cores. Once the application has let one
 * unit pass its grace (it is busy or descheduled), the worker takes the small
 * units without waiting until it sees the application claim one again.
 */
static enum ferry_pool_pass worker_serve(struct ferry_pool_member *member, unsigned int worker)
{
	struct wchan *c = wchan_of_member(member);
	struct wring *r = &c->rings[worker];
	uint32_t cons = atomic_load_explicit(&r->cons, memory_order_relaxed); /* only we write it */
	/* acquire (B3): pairs with the app's release of prod: items below it are written. */
	uint32_t prod = atomic_load_explicit(&r->prod, memory_order_acquire);
	enum ferry_pool_pass res = FERRY_POOL_IDLE;
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
					return res > FERRY_POOL_WAITING ? res : FERRY_POOL_WAITING;
				r->grace_from_ns = UINT64_MAX; /* the application is not helping */
			} else {
				r->grace_from_ns = 0; /* it is: the next small unit gets a grace again */
			}
		}
		cons++;
		/* release (B3): our read of the item above happens before the app rewrites its cell. */
		atomic_store_explicit(&r->cons, cons, memory_order_release);
		if (work_on(c, seq, true, UINT32_MAX)) {
			res = FERRY_POOL_COPIED;
		} else {
			if (res == FERRY_POOL_IDLE)
				res = FERRY_POOL_STALE;
			if ((item & ITEM_SMALL) != 0)
				r->grace_from_ns = 0; /* the application took it: it is helping again */
		}
	}
	return res;
}

/* One pass over every registered channel. */
/* ---- application side ---------------------------------------------------------------- */

/* Frees a channel chan_alloc made, whole or in part: every pointer in it is NULL or its own. */
static void chan_free(struct wchan *c)
{
	unsigned int i;

	if (c->rings != NULL)
		for (i = 0; i < c->nworkers; i++)
			free(c->rings[i].items);
	free(c->rings);
	free(c->slots);
	free(c);
}

/* A channel of cfg->depth slots and one ring per worker, all zeroed; DOCA_ERROR_NO_MEMORY. */
static doca_error_t chan_alloc(const struct ferry_chan_cfg *cfg, unsigned int nworkers, struct wchan **out)
{
	uint32_t size = ferry_pow2_at_least(cfg->depth);
	size_t nrings = nworkers != 0 ? nworkers : 1;
	struct wchan *c;
	unsigned int i;

	c = ferry_calloc(1, sizeof(*c));
	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	/* From here every pointer in c is NULL or allocated, so chan_free undoes any prefix. */
	c->nworkers = nworkers;
	c->mask = size - 1;
	c->depth = cfg->depth;
	c->slots = ferry_aligned_alloc(CACHE_LINE, (size_t)size * sizeof(*c->slots));
	if (c->slots == NULL)
		goto fail;
	memset(c->slots, 0, (size_t)size * sizeof(*c->slots));
	c->rings = ferry_aligned_alloc(CACHE_LINE, nrings * sizeof(*c->rings));
	if (c->rings == NULL)
		goto fail;
	/* Zeroed before the first items allocation: chan_free frees every ring's items. */
	memset(c->rings, 0, nrings * sizeof(*c->rings));
	for (i = 0; i < nworkers; i++) {
		c->rings[i].items = ferry_calloc(size, sizeof(uint64_t));
		if (c->rings[i].items == NULL)
			goto fail;
	}
	*out = c;
	return DOCA_SUCCESS;

fail:
	chan_free(c);
	return DOCA_ERROR_NO_MEMORY;
}

doca_error_t ferry_worker_chan_open(const struct ferry_chan_cfg *cfg, size_t inline_below,
				    const struct ferry_engine_ops *ops, struct ferry_chan **chan)
{
	unsigned int nworkers = ferry_worker_count();
	struct wchan *c;
	doca_error_t err;

	err = chan_alloc(cfg, nworkers, &c);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN("ferry_chan_open", err, "no memory for a %s channel of depth %u", ops->name,
				     cfg->depth);
	c->base.ops = ops;
	c->notify = cfg->notify;
	c->notify_arg = cfg->notify_arg;
	c->inline_below = nworkers == 0 ? SIZE_MAX : inline_below;
	ferry_stream_init(&c->stream);
	c->member.serve = worker_serve;
	err = ferry_pool_register(&c->member);
	if (err != DOCA_SUCCESS)
		goto fail;
	/* Spread channels over the workers; a channel's small units stay on one of them. */
	c->home_worker = nworkers == 0 ? 0 : c->member.index % nworkers;
	*chan = &c->base;
	return DOCA_SUCCESS;

fail:
	chan_free(c);
	return FERRY_RULE_IN("ferry_chan_open", err, "%u worker channels are open; no room for another",
			     FERRY_POOL_MEMBERS_MAX);
}

static doca_error_t worker_open(const struct ferry_chan_cfg *cfg, struct ferry_chan **chan)
{
	return ferry_worker_chan_open(cfg, 0, &ferry_engine_worker_ops, chan);
}

/* Worker threads reach only this process's memory: a copy through an access path is the inline engine's. */
static doca_error_t worker_enqueue_cross(struct ferry_chan *chan, const struct ferry_copy_xdesc *xdesc)
{
	(void)xdesc;
	return FERRY_RULE_IN("ferry_chan_enqueue", DOCA_ERROR_NOT_SUPPORTED,
			     "%s channel: a copy to or from another process needs the inline engine", chan->ops->name);
}

static doca_error_t worker_enqueue(struct ferry_chan *chan, const struct ferry_copy_desc *desc)
{
	struct wchan *c = to_wchan(chan);
	struct wslot *s;

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
 * @p urgent when the unit is not small: see ferry_pool_wake); false when no ring had room.
 */
static bool push_unit(struct wchan *c, uint32_t seq, uint64_t *touched, uint64_t *urgent)
{
	const struct wslot *s = slot_at(c, seq);
	unsigned int nw = c->nworkers, i, given = 0, first;
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
	ferry_pool_wake(touched, urgent);
	c->lazy = (c->lazy | touched) & ~urgent;
}

/* Push the units of [pushed, rung) to the workers as far as the rings allow, then publish and wake. */
static void chan_push(struct wchan *c)
{
	uint64_t touched = 0, urgent = 0;
	unsigned int i;
	uint32_t seq;

	/* Units a helping poll already finished (and poll handed out) need no worker. */
	if ((int32_t)(c->ready_end - c->pushed) > 0)
		c->pushed = c->ready_end;
	if (!ferry_pool_start()) {
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
	for (i = 0; i < c->nworkers; i++)
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
 * how many it took, their bytes in @p bytes_out.
 */
static uint32_t publish_batch(struct wchan *c, uint32_t seq, size_t *bytes_out)
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
	*bytes_out = bytes;
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
			streamed |= ferry_engine_copy_local(&c->stream, s->dst, s->src, s->len);
			seq++;
			continue;
		}
		for_workers = true;
		if (is_split(s->len)) {
			ferry_stream_count(&c->stream, s->len);
			publish_split(s, seq);
			seq++;
		} else {
			size_t bytes;

			seq += publish_batch(c, seq, &bytes);
			/* The workers' bytes pass through the cache too (counted here: the slots are the workers' now). */
			ferry_stream_count(&c->stream, bytes);
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

	if (c->pushed != c->rung)
		chan_push(c);
	if (c->head != c->ready_end)
		return true;
	/* acquire (B2): same pairing as in collect. */
	if (c->head != c->rung && atomic_load_explicit(&slot_at(c, c->head)->left, memory_order_acquire) == 0)
		return true;
	if (c->lazy != 0 && c->head != c->rung) {
		ferry_pool_wake(c->lazy, c->lazy);
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
	ferry_pool_unregister(&c->member);
	chan_free(c);
}

const struct ferry_engine_ops ferry_engine_worker_ops = {
	.name = "worker",
	.chan_open = worker_open,
	.chan_close = worker_close,
	.enqueue = worker_enqueue,
	.enqueue_cross = worker_enqueue_cross,
	.doorbell = worker_doorbell,
	.poll = worker_poll,
	.cancel = worker_cancel,
	.ready = worker_ready,
};

/* The size from which auto hands a copy to the workers (why 256 KiB: engine.c). */
size_t ferry_engine_auto_threshold(void)
{
	return (size_t)ferry_env_u64("FERRY_ENGINE_AUTO_THRESHOLD", 0, SIZE_MAX, FERRY_ENGINE_AUTO_THRESHOLD_DEFAULT);
}

static doca_error_t auto_open(const struct ferry_chan_cfg *cfg, struct ferry_chan **chan)
{
	return ferry_worker_chan_open(cfg, ferry_engine_auto_threshold(), &ferry_engine_auto_ops, chan);
}

const struct ferry_engine_ops ferry_engine_auto_ops = {
	.name = "auto",
	.chan_open = auto_open,
	.chan_close = worker_close,
	.enqueue = worker_enqueue,
	.enqueue_cross = worker_enqueue_cross,
	.doorbell = worker_doorbell,
	.poll = worker_poll,
	.cancel = worker_cancel,
	.ready = worker_ready,
};
