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
#include <stdint.h>
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

/*
 * Streaming or cached stores (stream.c). The caller's thread copies a
 * descriptor with non-temporal stores only when its destination is not in the
 * cache anyway: like a device's DMA, those bytes then go to memory without each
 * destination line being read first (no read-for-ownership), which is what
 * bounds a plain memcpy once the data does not fit in the cache. On a
 * destination that is in the cache, streaming stores are 2-4x slower than
 * memcpy (they push it out to memory), so:
 *   - a copy shorter than FERRY_ENGINE_STREAM_MIN_DEFAULT (FERRY_ENGINE_STREAM_MIN
 *     overrides, bytes) never streams;
 *   - a copy of half the last-level cache or more always does (its source and
 *     destination alone fill the cache, as glibc reasons for its memcpy);
 *   - in between, it streams unless the channel wrote its destination within
 *     the last quarter of a last-level cache's worth of bytes it was rung for
 *     (the source and destination of those bytes fill at most half the cache:
 *     the destination is likely still there).
 * The last-level cache size comes from sysfs, read once (FERRY_ENGINE_LLC
 * overrides, bytes). Each channel remembers the pages it wrote in a tagged,
 * direct-mapped table of FERRY_STREAM_SLOTS pages (8 MiB of recent
 * destinations, 16 KiB of table). Worker threads copy with memcpy.
 */
#define FERRY_ENGINE_STREAM_MIN_DEFAULT ((size_t)4096)
/** Last-level cache assumed when sysfs says nothing: erring large only means streaming less. */
#define FERRY_ENGINE_LLC_DEFAULT        ((size_t)32 * 1024 * 1024)
#define FERRY_STREAM_PAGE_SHIFT         12
#define FERRY_STREAM_SLOT_BITS          11
#define FERRY_STREAM_SLOTS              (1u << FERRY_STREAM_SLOT_BITS)

/** A page of destination the channel wrote (slot: its page number's low bits). */
struct ferry_stream_slot {
	uint32_t tag; /* the page number's high bits */
	uint32_t at;  /* 1 + the channel's clock in KiB after that write (wraps); 0: slot unused */
};

/** A channel's memory of its copies (its application thread only). */
struct ferry_stream {
	uint64_t clock; /* bytes the channel was rung for so far */
	size_t min;     /* shorter copies never stream */
	size_t llc;     /* last-level cache, bytes */
	struct ferry_stream_slot recent[FERRY_STREAM_SLOTS];
};

/**
 * The decision, pure: should a copy of @p len bytes stream, with copies
 * shorter than @p min never streaming, a last-level cache of @p llc bytes, and
 * @p reuse bytes copied by the channel since it last wrote the destination
 * (UINT64_MAX: not that it remembers).
 */
bool ferry_engine_stream_choose(size_t len, size_t min, size_t llc, uint64_t reuse);

/**
 * The last-level cache size described under @p cache_dir (a
 * /sys/devices/system/cpu/cpuN/cache directory: indexN/level, type, size):
 * the data or unified cache of the highest level, in bytes; 0 if none is
 * readable.
 */
size_t ferry_engine_llc_parse(const char *cache_dir);

/** The last-level cache of this machine: FERRY_ENGINE_LLC, else cpu0's in sysfs (read once), else the default. */
size_t ferry_engine_llc_bytes(void);

/** Forget everything and read the thresholds (environment and sysfs): at channel open. */
void ferry_stream_init(struct ferry_stream *st);

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

/** ferry_engine_copy_local for copies of st->min bytes or more (stream.c). */
bool ferry_stream_copy_large(struct ferry_stream *st, void *dst, const void *src, size_t len);

/**
 * The caller-thread copy of both engines, streaming or cached as above; true
 * when it streamed (a fence is then due before the completion is published).
 */
static inline bool ferry_engine_copy_local(struct ferry_stream *st, void *dst, const void *src, size_t len)
{
	if (len < st->min) {
		st->clock += len;
		ferry_engine_copy_plain(dst, src, len);
		return false;
	}
	return ferry_stream_copy_large(st, dst, src, len);
}

/** A copy someone else makes (a worker): its bytes still pass through the cache. */
static inline void ferry_stream_count(struct ferry_stream *st, size_t len)
{
	st->clock += len;
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
