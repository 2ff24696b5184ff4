/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_priv.h - what the engine files share among themselves (not for other layers).
 *
 * ferry_chan_open (engine.c) validates the configuration once, then calls one of
 * the open functions below; engines trust cfg from there on.
 */
#ifndef FERRY_ENGINE_PRIV_H_
#define FERRY_ENGINE_PRIV_H_

#include <stdbool.h>
#include <string.h>

#include "engine/ferry_engine.h"

/** Largest channel depth accepted (descriptors enqueued and not yet polled). */
#define FERRY_ENGINE_DEPTH_MAX (1u << 20)

/**
 * Auto engine: descriptors shorter than this are copied by the caller's thread
 * at doorbell time, longer ones go to the workers. Measured with bench/engine_bench
 * on a 2-core VM (see the report in engine.c); FERRY_ENGINE_AUTO_THRESHOLD overrides.
 */
#define FERRY_ENGINE_AUTO_THRESHOLD_DEFAULT ((size_t)256 * 1024)

/**
 * Copies the caller's thread makes at doorbell time of this many bytes or more
 * use non-temporal stores: like a device's DMA, the bytes go to memory without
 * first reading every destination line into the cache (no read-for-ownership),
 * which is what bounds a plain memcpy once the data does not fit in the cache.
 * Below it, and for the copies worker threads make, plain memcpy: small copies
 * are usually cache-resident, where streaming stores would only be slower.
 */
#define FERRY_ENGINE_STREAM_MIN ((size_t)4096)

/** Streaming copy of @p len >= 16 bytes (x86 SSE2 non-temporal stores; memcpy elsewhere). */
void ferry_engine_copy_stream(void *dst, const void *src, size_t len);

/**
 * Make streaming stores visible before anything stored after this call (a
 * completion, a message to another process): end of every doorbell that
 * streamed.
 */
void ferry_engine_stream_fence(void);

/** The plain copy of a descriptor (or a piece of one). */
static inline void ferry_engine_copy_plain(void *dst, const void *src, size_t len)
{
	/* len 0 is legal and may come with NULL pointers, which memcpy must not see. */
	if (len != 0)
		memcpy(dst, src, len);
}

/** The caller-thread copy of both engines; true when it streamed (a fence is then due). */
static inline bool ferry_engine_copy_local(void *dst, const void *src, size_t len)
{
	if (len >= FERRY_ENGINE_STREAM_MIN) {
		ferry_engine_copy_stream(dst, src, len);
		return true;
	}
	ferry_engine_copy_plain(dst, src, len);
	return false;
}

extern const struct ferry_engine_ops ferry_engine_inline_ops;
extern const struct ferry_engine_ops ferry_engine_worker_ops;
extern const struct ferry_engine_ops ferry_engine_auto_ops;

/**
 * Open a worker-engine channel whose descriptors shorter than @p inline_below
 * bytes are copied by the caller's thread at doorbell (0: none; the auto engine
 * passes its threshold). @p ops is the table the channel reports (worker or auto).
 */
doca_error_t ferry_worker_chan_open(const struct ferry_chan_cfg *cfg, size_t inline_below,
				    const struct ferry_engine_ops *ops, struct ferry_chan **chan);

/** Auto engine threshold in bytes: FERRY_ENGINE_AUTO_THRESHOLD or the default above. */
size_t ferry_engine_auto_threshold(void);

/** Number of worker threads the process uses (FERRY_ENGINE_WORKERS, default min(2, ncpu)). */
unsigned int ferry_worker_count(void);

/**
 * Tests only: while @p paused, the worker threads take no work, so every copy is
 * left to a helping poll (or to cancel). Pausing returns once no worker is inside
 * a channel; unpausing wakes them.
 */
void ferry_worker_pause(bool paused);

#endif /* FERRY_ENGINE_PRIV_H_ */
