/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_engine.h - the copy-engine interface.
 *
 * Modelled on the userspace DMA engines of SPDK (ioat) and DPDK (dmadev): a user
 * opens a channel, enqueues copy descriptors without ringing the doorbell, rings
 * the doorbell once for the batch, and later polls completions.
 *
 * Contract, for every engine:
 *  - enqueue never blocks; DOCA_ERROR_AGAIN when the channel already holds
 *    `depth` descriptors that have not been polled back;
 *  - a descriptor is not guaranteed to start before the doorbell;
 *  - every descriptor produces exactly one completion, and poll returns them in
 *    enqueue order (per channel), each with its cookie and status;
 *  - poll never calls back into the user; completions are only handed out by poll;
 *  - cancel makes every descriptor not yet polled complete (at the next polls)
 *    with DOCA_ERROR_IO_FAILED unless it already finished; it does not wait
 *    for copies in progress to end, but a channel never touches the memory
 *    of a descriptor after poll has returned it;
 *  - a channel is used by one thread at a time; engines may run their own
 *    threads behind it and call cfg.notify from them when a completion lands.
 *
 * Added by the engine implementation (engine_*.c):
 *  - len 0 is legal: the descriptor touches no memory (dst/src may be NULL)
 *    and completes with DOCA_SUCCESS;
 *  - ferry_chan_open validates cfg (NULL, depth 1..FERRY_ENGINE_DEPTH_MAX in
 *    engine_priv.h, kind); enqueue/doorbell/poll/cancel/ready check nothing
 *    beyond the depth: they are the per-task fast path and their callers
 *    (the DMA context) already validated the task;
 *  - poll may copy part of the oldest unfinished descriptor itself when it has
 *    nothing to return (worker/auto engines), or, for small descriptors, a
 *    whole window of them no worker has claimed (at most ~128 KiB in all), so
 *    it can take tens of microseconds; it still never calls back into the user;
 *  - worker/auto engines: when nobody polls, a small descriptor may wait for a
 *    dozing worker (well under a millisecond); ready() wakes it, so a caller
 *    that sleeps until notify asks ready() after arming (the PE does);
 *  - ops->name is "inline", "worker" or "auto", as ferry_engine_kind_name.
 */
#ifndef FERRY_ENGINE_H_
#define FERRY_ENGINE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "common/ferry_abi.h"

struct ferry_chan;
struct ferry_access;

/** One memory copy between addresses of this process (or memory mapped here). */
struct ferry_copy_desc {
	void *dst;
	const void *src;
	size_t len;
	uint64_t cookie; /* returned unchanged in the completion */
};

/**
 * One copy where a side may lie in another process: its access path
 * (src/link/ferry_access.h, chosen when the memory was imported) and its
 * pointer, an address in that process. NULL, or a path whose ops are
 * `mapped`: the address is usable here and the side is copied as local
 * memory. Only a channel opened with cfg.cross_process takes these (it is an
 * inline channel; others answer DOCA_ERROR_NOT_SUPPORTED): it copies them at
 * doorbell through the paths' ops, gathering consecutive writes through one
 * path into one write_gather, and each completion carries its copy's status
 * (the exporter may have vanished).
 */
struct ferry_copy_xdesc {
	struct ferry_copy_desc desc;
	const struct ferry_access *src_access;
	const struct ferry_access *dst_access;
};

/** One finished descriptor. */
struct ferry_copy_cpl {
	uint64_t cookie;
	doca_error_t status;
};

/** Engine kinds. */
enum ferry_engine_kind {
	FERRY_ENGINE_AUTO = 0,   /* pick per descriptor by size (the default) */
	FERRY_ENGINE_INLINE = 1, /* CPU copy in the caller's thread */
	FERRY_ENGINE_WORKER = 2, /* background worker threads, large copies split */
};

/** Channel configuration. */
struct ferry_chan_cfg {
	enum ferry_engine_kind kind;
	uint32_t depth;            /* max descriptors enqueued and not yet polled */
	bool cross_process;        /* takes enqueue_cross: inline, whatever the environment says */
	void (*notify)(void *arg); /* optional; may be called from any thread */
	void *notify_arg;
};

/** An engine's operations. Each engine is one file that exports one of these. */
struct ferry_engine_ops {
	const char *name;
	doca_error_t (*chan_open)(const struct ferry_chan_cfg *cfg, struct ferry_chan **chan);
	void (*chan_close)(struct ferry_chan *chan);
	doca_error_t (*enqueue)(struct ferry_chan *chan, const struct ferry_copy_desc *desc);
	/** A cross-process copy: channels not opened cross_process answer DOCA_ERROR_NOT_SUPPORTED and log. */
	doca_error_t (*enqueue_cross)(struct ferry_chan *chan, const struct ferry_copy_xdesc *xdesc);
	void (*doorbell)(struct ferry_chan *chan);
	uint32_t (*poll)(struct ferry_chan *chan, struct ferry_copy_cpl *cpl, uint32_t max);
	void (*cancel)(struct ferry_chan *chan);
	/** True when poll would return at least one completion now. */
	bool (*ready)(struct ferry_chan *chan);
};

/**
 * The channel handle callers use. Generic wrappers below dispatch through ops;
 * engines embed this first in their private channel struct.
 */
struct ferry_chan {
	const struct ferry_engine_ops *ops;
};

/**
 * Open a channel of @p cfg->kind. FERRY_ENGINE_AUTO (and the environment
 * variable FERRY_DMA_ENGINE=inline|worker|auto, which overrides it) selects.
 */
FERRY_PRIVATE_API
doca_error_t ferry_chan_open(const struct ferry_chan_cfg *cfg, struct ferry_chan **chan);

static inline void ferry_chan_close(struct ferry_chan *chan)
{
	chan->ops->chan_close(chan);
}

static inline doca_error_t ferry_chan_enqueue(struct ferry_chan *chan, const struct ferry_copy_desc *desc)
{
	return chan->ops->enqueue(chan, desc);
}

static inline doca_error_t ferry_chan_enqueue_cross(struct ferry_chan *chan, const struct ferry_copy_xdesc *xdesc)
{
	return chan->ops->enqueue_cross(chan, xdesc);
}

static inline void ferry_chan_doorbell(struct ferry_chan *chan)
{
	chan->ops->doorbell(chan);
}

static inline uint32_t ferry_chan_poll(struct ferry_chan *chan, struct ferry_copy_cpl *cpl, uint32_t max)
{
	return chan->ops->poll(chan, cpl, max);
}

static inline void ferry_chan_cancel(struct ferry_chan *chan)
{
	chan->ops->cancel(chan);
}

static inline bool ferry_chan_ready(struct ferry_chan *chan)
{
	return chan->ops->ready(chan);
}

/** Parse "inline", "worker" or "auto"; FERRY_ENGINE_AUTO for anything else and *ok=false. */
enum ferry_engine_kind ferry_engine_kind_parse(const char *name, bool *ok);
FERRY_PRIVATE_API
const char *ferry_engine_kind_name(enum ferry_engine_kind kind);

#endif /* FERRY_ENGINE_H_ */
