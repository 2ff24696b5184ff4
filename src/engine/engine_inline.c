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
 * beside the ring, each descriptor's remote handles and status: those copies
 * go through ferry_link_copy (cross-memory attach) and can fail. Plain channels
 * keep 32-byte slots and refuse remote descriptors.
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
#include "link/ferry_remote.h"

FERRY_LOG_MODULE("engine");

/* A real object is never SIZE_MAX bytes long, so len can mark a cancelled slot. */
#define INLINE_CANCELLED SIZE_MAX

struct inline_slot {
	void *dst;
	const void *src;
	size_t len;
	uint64_t cookie;
};

/* The cross-process part of a slot, same index. */
struct inline_xslot {
	const struct ferry_remote *src_remote;
	const struct ferry_remote *dst_remote;
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

		x->src_remote = desc->src_remote;
		x->dst_remote = desc->dst_remote;
		x->status = DOCA_SUCCESS;
	} else if (desc->src_remote != NULL || desc->dst_remote != NULL) {
		return FERRY_RULE_IN("ferry_chan_enqueue", DOCA_ERROR_NOT_SUPPORTED,
				     "inline channel: a copy to or from another process needs a "
				     "channel opened with cross_process");
	}
	c->tail++;
	return DOCA_SUCCESS;
}

static void inline_doorbell(struct ferry_chan *chan)
{
	struct inline_chan *c = to_inline(chan);
	bool streamed = false;
	uint32_t i;

	for (i = c->done; i != c->tail; i++) {
		struct inline_slot *s = &c->slots[i & c->mask];
		struct inline_xslot *x = c->xslots != NULL ? &c->xslots[i & c->mask] : NULL;

		if (x != NULL && (x->src_remote != NULL || x->dst_remote != NULL))
			x->status = ferry_link_copy(s->dst, x->dst_remote, s->src, x->src_remote, s->len);
		else
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
	.doorbell = inline_doorbell,
	.poll = inline_poll,
	.cancel = inline_cancel,
	.ready = inline_ready,
};
