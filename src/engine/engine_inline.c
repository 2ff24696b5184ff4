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
 * Only the thread using the channel touches it: no atomics, no locks, no
 * allocation after open. Indices are free-running uint32_t masked on access:
 *   head <= done <= tail;  [head, done) copied or cancelled, not yet polled;
 *   [done, tail) enqueued, not yet rung.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_priv.h"
#include "link/ferry_remote.h"

/* A real object is never SIZE_MAX bytes long, so len can mark a cancelled slot. */
#define INLINE_CANCELLED SIZE_MAX

struct inline_slot {
	void *dst;
	const void *src;
	size_t len;
	uint64_t cookie;
	const struct ferry_remote *src_remote;
	const struct ferry_remote *dst_remote;
	doca_error_t status; /* of a copy through cross-memory attach */
};

struct inline_chan {
	struct ferry_chan base;
	uint32_t mask;
	uint32_t depth;
	uint32_t head;
	uint32_t done;
	uint32_t tail;
	struct inline_slot *slots;
};

static inline struct inline_chan *to_inline(struct ferry_chan *chan)
{
	return (struct inline_chan *)chan;
}

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

static doca_error_t inline_open(const struct ferry_chan_cfg *cfg, struct ferry_chan **chan)
{
	struct inline_chan *c = calloc(1, sizeof(*c));
	uint32_t size = pow2_at_least(cfg->depth);

	if (c == NULL)
		return DOCA_ERROR_NO_MEMORY;
	/* aligned_alloc wants a multiple of the alignment, which one slot is not. */
	c->slots = aligned_alloc(64, ((size_t)size * sizeof(*c->slots) + 63) & ~(size_t)63);
	if (c->slots == NULL) {
		free(c);
		return DOCA_ERROR_NO_MEMORY;
	}
	c->base.ops = &ferry_engine_inline_ops;
	c->mask = size - 1;
	c->depth = cfg->depth;
	*chan = &c->base;
	return DOCA_SUCCESS;
}

static void inline_close(struct ferry_chan *chan)
{
	struct inline_chan *c = to_inline(chan);

	free(c->slots);
	free(c);
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
	s->src_remote = desc->src_remote;
	s->dst_remote = desc->dst_remote;
	s->status = DOCA_SUCCESS;
	c->tail++;
	return DOCA_SUCCESS;
}

static void inline_doorbell(struct ferry_chan *chan)
{
	struct inline_chan *c = to_inline(chan);
	uint32_t i;

	for (i = c->done; i != c->tail; i++) {
		struct inline_slot *s = &c->slots[i & c->mask];

		if (s->src_remote != NULL || s->dst_remote != NULL)
			s->status = ferry_link_copy(s->dst, s->dst_remote, s->src, s->src_remote, s->len);
		/* len 0 is legal and may come with NULL pointers, which memcpy must not see. */
		else if (s->len != 0)
			memcpy(s->dst, s->src, s->len);
	}
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
		cpl[i].status = s->len == INLINE_CANCELLED ? DOCA_ERROR_IO_FAILED : s->status;
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
