/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_inline.c - the inline CPU engine: memcpy in the caller's thread.
 *
 * enqueue stores the descriptor in a power-of-two ring, doorbell copies every
 * descriptor enqueued since the previous doorbell, poll hands the results out.
 *
 * Why copy at doorbell and not at enqueue: the engine contract says a descriptor
 * has not started before the doorbell, so a cancel after an enqueue without a
 * doorbell fails it here exactly as on the worker engine (tests rely on the same
 * behaviour from every engine), and a batch is copied in one tight loop after
 * the caller has finished building it. The cost is one 32-byte store per
 * descriptor, a few ns.
 *
 * A channel opened for cross-process copies (cfg.cross_process) also keeps,
 * beside the ring, each descriptor's access paths and status: those copies go
 * through the paths' ops (src/link/ferry_access.h) and can fail. A run of
 * consecutive descriptors that write local bytes through one path with
 * write_gather (cross-memory attach) is one call: up to
 * FERRY_ACCESS_GATHER_MAX pieces in one process_vm_writev. Plain channels keep
 * 32-byte slots and refuse cross-process descriptors; local descriptors carry
 * no access fields on either kind.
 *
 * Only the thread using the channel touches it: no atomics, no locks, no
 * allocation after open. Indices are free-running uint32_t masked on access:
 *   head <= done <= tail;  [head, done) copied or cancelled, not yet polled;
 *   [done, tail) enqueued, not yet rung.
 */
#include <stdlib.h>
#include <string.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "engine/engine_priv.h"
#include "link/ferry_access.h"

FERRY_LOG_MODULE("engine");

/* A real object is never SIZE_MAX bytes long, so len can mark a cancelled slot. */
#define INLINE_CANCELLED SIZE_MAX

struct inline_slot {
	void *dst;
	const void *src;
	size_t len;
	uint64_t cookie;
};

/* The cross-process part of a slot, same index: paths that are not mapped (NULL: local). */
struct inline_xslot {
	const struct ferry_access *src;
	const struct ferry_access *dst;
	doca_error_t status;
};

struct inline_chan {
	struct ferry_chan base;
	uint32_t mask;
	uint32_t depth;
	uint32_t head;
	uint32_t done;
	uint32_t tail;
	struct inline_slot *slots;
	struct inline_xslot *xslots; /* cross-process channels only, else NULL */
	struct ferry_stream stream;  /* streaming or cached stores (engine_priv.h) */
};

static inline struct inline_chan *to_inline(struct ferry_chan *chan)
{
	return (struct inline_chan *)chan;
}

/* Frees a channel inline_open made, whole or in part: every pointer in it is NULL or its own. */
static void inline_free(struct inline_chan *c)
{
	free(c->xslots);
	free(c->slots);
	free(c);
}

static doca_error_t inline_open(const struct ferry_chan_cfg *cfg, struct ferry_chan **chan)
{
	uint32_t size = ferry_pow2_at_least(cfg->depth);
	struct inline_chan *c;

	c = ferry_calloc(1, sizeof(*c));
	if (c == NULL)
		goto no_memory;
	c->slots = ferry_aligned_alloc(64, (size_t)size * sizeof(*c->slots));
	if (c->slots == NULL)
		goto fail;
	if (cfg->cross_process) {
		c->xslots = ferry_calloc(size, sizeof(*c->xslots));
		if (c->xslots == NULL)
			goto fail;
	}
	c->base.ops = &ferry_engine_inline_ops;
	c->mask = size - 1;
	c->depth = cfg->depth;
	ferry_stream_init(&c->stream);
	*chan = &c->base;
	return DOCA_SUCCESS;

fail:
	inline_free(c);
no_memory:
	return FERRY_RULE_IN("ferry_chan_open", DOCA_ERROR_NO_MEMORY, "no memory for an inline channel of depth %u",
			     cfg->depth);
}

static void inline_close(struct ferry_chan *chan)
{
	inline_free(to_inline(chan));
}

static doca_error_t inline_enqueue(struct ferry_chan *chan, const struct ferry_copy_desc *desc)
{
	struct inline_chan *c = to_inline(chan);
	struct inline_slot *s;

	if (c->tail - c->head >= c->depth)
		return DOCA_ERROR_AGAIN;
	s = &c->slots[c->tail & c->mask];
	s->dst = desc->dst;
	s->src = desc->src;
	s->len = desc->len;
	s->cookie = desc->cookie;
	if (c->xslots != NULL) {
		struct inline_xslot *x = &c->xslots[c->tail & c->mask];

		x->src = NULL;
		x->dst = NULL;
		x->status = DOCA_SUCCESS;
	}
	c->tail++;
	return DOCA_SUCCESS;
}

static doca_error_t inline_enqueue_cross(struct ferry_chan *chan, const struct ferry_copy_xdesc *xdesc)
{
	struct inline_chan *c = to_inline(chan);
	struct inline_xslot *x;
	doca_error_t err;

	if (c->xslots == NULL)
		return FERRY_RULE_IN("ferry_chan_enqueue", DOCA_ERROR_NOT_SUPPORTED,
				     "inline channel: a copy to or from another process needs a "
				     "channel opened with cross_process");
	err = inline_enqueue(chan, &xdesc->desc);
	if (err != DOCA_SUCCESS)
		return err;
	/* A mapped path is local memory to the copy: the doorbell never asks its ops. */
	x = &c->xslots[(c->tail - 1) & c->mask];
	x->src = ferry_access_mapped(xdesc->src_access) ? NULL : xdesc->src_access;
	x->dst = ferry_access_mapped(xdesc->dst_access) ? NULL : xdesc->dst_access;
	return DOCA_SUCCESS;
}

/*
 * The length of the run from @p i of descriptors moving bytes between local
 * memory and one path in one direction (@p out: local bytes written through
 * the path), at most FERRY_ACCESS_GATHER_MAX: one write_gather or
 * read_scatter call copies them all.
 */
static size_t run_length(const struct inline_chan *c, uint32_t i, bool out)
{
	const struct inline_xslot *first = &c->xslots[i & c->mask];
	size_t n = 1;

	for (uint32_t j = i + 1; j != c->tail && n < FERRY_ACCESS_GATHER_MAX; j++, n++) {
		const struct inline_xslot *x = &c->xslots[j & c->mask];

		if (out ? (x->dst != first->dst || x->src != NULL) : (x->src != first->src || x->dst != NULL))
			break;
	}
	return n;
}

/* Each of the run's @p n descriptors from @p i gets its status: the first @p whole landed, the rest failed @p err. */
static void run_statuses(struct inline_chan *c, uint32_t i, size_t n, size_t whole, doca_error_t err)
{
	for (size_t k = 0; k < n; k++)
		c->xslots[(i + (uint32_t)k) & c->mask].status = k < whole ? DOCA_SUCCESS : err;
}

/* A run of writes of local bytes through one path, in one call; returns the index after it. */
static uint32_t doorbell_gather(struct inline_chan *c, uint32_t i)
{
	const struct ferry_access *path = c->xslots[i & c->mask].dst;
	struct ferry_access_piece pieces[FERRY_ACCESS_GATHER_MAX];
	size_t n = run_length(c, i, true), whole = 0, k = 0;
	doca_error_t err;

	do { /* a run holds one descriptor at least */
		const struct inline_slot *s = &c->slots[(i + (uint32_t)k) & c->mask];

		pieces[k] = (struct ferry_access_piece){(uintptr_t)s->dst, s->src, s->len};
	} while (++k < n);
	err = path->ops->write_gather(path, pieces, n, &whole);
	run_statuses(c, i, n, whole, err);
	return i + (uint32_t)n;
}

/* A run of reads into local bytes through one path, in one call; returns the index after it. */
static uint32_t doorbell_scatter(struct inline_chan *c, uint32_t i)
{
	const struct ferry_access *path = c->xslots[i & c->mask].src;
	struct ferry_access_rpiece pieces[FERRY_ACCESS_GATHER_MAX];
	size_t n = run_length(c, i, false), whole = 0, k = 0;
	doca_error_t err;

	do {
		const struct inline_slot *s = &c->slots[(i + (uint32_t)k) & c->mask];

		pieces[k] = (struct ferry_access_rpiece){s->dst, (uintptr_t)s->src, s->len};
	} while (++k < n);
	err = path->ops->read_scatter(path, pieces, n, &whole);
	run_statuses(c, i, n, whole, err);
	return i + (uint32_t)n;
}

static void inline_doorbell_cross(struct inline_chan *c, bool *streamed)
{
	uint32_t i = c->done;

	while (i != c->tail) {
		struct inline_slot *s = &c->slots[i & c->mask];
		struct inline_xslot *x = &c->xslots[i & c->mask];

		if (x->src == NULL && x->dst == NULL) {
			*streamed |= ferry_engine_copy_local(&c->stream, s->dst, s->src, s->len);
			i++;
		} else if (x->src == NULL && x->dst->ops->write_gather != NULL) {
			i = doorbell_gather(c, i);
		} else if (x->dst == NULL && x->src->ops->read_scatter != NULL) {
			i = doorbell_scatter(c, i);
		} else {
			x->status = ferry_access_copy(s->dst, x->dst, s->src, x->src, s->len);
			i++;
		}
	}
}

static void inline_doorbell(struct ferry_chan *chan)
{
	struct inline_chan *c = to_inline(chan);
	bool streamed = false;
	uint32_t i;

	if (c->xslots != NULL)
		inline_doorbell_cross(c, &streamed);
	else
		for (i = c->done; i != c->tail; i++) {
			struct inline_slot *s = &c->slots[i & c->mask];

			streamed |= ferry_engine_copy_local(&c->stream, s->dst, s->src, s->len);
		}
	if (streamed)
		ferry_engine_stream_fence();
	c->done = c->tail;
}

static uint32_t inline_poll(struct ferry_chan *chan, struct ferry_copy_cpl *cpl, uint32_t max)
{
	struct inline_chan *c = to_inline(chan);
	uint32_t avail = c->done - c->head;
	uint32_t n = avail < max ? avail : max;
	uint32_t i;

	for (i = 0; i < n; i++) {
		const struct inline_slot *s = &c->slots[(c->head + i) & c->mask];

		cpl[i].cookie = s->cookie;
		if (s->len == INLINE_CANCELLED)
			cpl[i].status = DOCA_ERROR_IO_FAILED;
		else if (c->xslots != NULL)
			cpl[i].status = c->xslots[(c->head + i) & c->mask].status;
		else
			cpl[i].status = DOCA_SUCCESS;
	}
	c->head += n;
	return n;
}

/* Everything rung is already copied; only descriptors waiting for a doorbell can fail. */
static void inline_cancel(struct ferry_chan *chan)
{
	struct inline_chan *c = to_inline(chan);
	uint32_t i;

	for (i = c->done; i != c->tail; i++)
		c->slots[i & c->mask].len = INLINE_CANCELLED;
	c->done = c->tail;
}

static bool inline_ready(struct ferry_chan *chan)
{
	struct inline_chan *c = to_inline(chan);

	return c->done != c->head;
}

const struct ferry_engine_ops ferry_engine_inline_ops = {
	.name = "inline",
	.chan_open = inline_open,
	.chan_close = inline_close,
	.enqueue = inline_enqueue,
	.enqueue_cross = inline_enqueue_cross,
	.doorbell = inline_doorbell,
	.poll = inline_poll,
	.cancel = inline_cancel,
	.ready = inline_ready,
};
