/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_priv.h - what the engine files share among themselves (not for other layers).
 *
 * ferry_chan_open (engine.c) validates the configuration once, then calls one of
 * the open functions below; engines trust cfg from there on.
 */
#ifndef FERRY_ENGINE_PRIV_H_
#define FERRY_ENGINE_PRIV_H_

#include "engine/ferry_engine.h"

/** Largest channel depth accepted (descriptors enqueued and not yet polled). */
#define FERRY_ENGINE_DEPTH_MAX (1u << 20)

/**
 * Auto engine: descriptors shorter than this are copied by the caller's thread
 * at doorbell time, longer ones go to the workers. Measured with bench/engine_bench
 * on a 2-core VM (see the report in engine.c); FERRY_ENGINE_AUTO_THRESHOLD overrides.
 */
#define FERRY_ENGINE_AUTO_THRESHOLD_DEFAULT ((size_t)256 * 1024)

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
