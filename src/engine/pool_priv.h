/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pool_priv.h - the copy workers' thread pool (worker_pool.c) as the worker
 * engine (engine_worker.c) uses it. Not for other folders.
 *
 * The pool knows nothing of channels. It keeps a registry of members, each
 * with a serve function, and its threads call serve(member, worker id) on every
 * registered member, in passes, while a hazard pointer names that member. The
 * engine registers a channel at open, wakes workers after it published work
 * for them, and unregisters the channel at close; unregister returns once no
 * worker is inside the channel. Calls go one way: engine -> pool, and the pool
 * back to a channel only through its member's serve pointer.
 */
#ifndef FERRY_ENGINE_POOL_PRIV_H_
#define FERRY_ENGINE_POOL_PRIV_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

/** Members registered at once (worker channels open in the process). */
#define FERRY_POOL_MEMBERS_MAX 4096u
/** Most worker threads (FERRY_ENGINE_WORKERS); a set of workers fits in a uint64_t. */
#define FERRY_POOL_WORKERS_MAX 64u

/*
 * What a member's serve found: nothing, only work someone else already did,
 * work it leaves to the application for a moment (the worker spins on), or
 * work it did. Ordered: a pass reports the largest of its members' results.
 */
enum ferry_pool_pass {
	FERRY_POOL_IDLE = 0,
	FERRY_POOL_STALE = 1,
	FERRY_POOL_WAITING = 2,
	FERRY_POOL_COPIED = 3,
};

/** What the pool holds of a registered channel; the channel embeds it. */
struct ferry_pool_member {
	/** Called by worker @p worker (0 .. ferry_worker_count() - 1) from its thread. */
	enum ferry_pool_pass (*serve)(struct ferry_pool_member *member, unsigned int worker);
	uint32_t index; /* registry slot, set by ferry_pool_register */
};

/**
 * Register @p member (serve set, everything serve reads initialised: the
 * registration publishes it). DOCA_ERROR_FULL when FERRY_POOL_MEMBERS_MAX are.
 * The member's index spreads channels over the workers.
 */
doca_error_t ferry_pool_register(struct ferry_pool_member *member);

/** Unregister @p member and wait until no worker is inside it: then it may be freed. */
void ferry_pool_unregister(struct ferry_pool_member *member);

/**
 * Start the worker threads the first time (later calls only look). True when
 * they run; false when they could not start (or the pool has no worker): the
 * application thread then makes the copies itself.
 */
bool ferry_pool_start(void);

/**
 * Call after publishing work for the workers in the set @p workers (bit i is
 * worker i). A worker asleep for good is woken; a dozing one only when its bit
 * is in @p urgent too (it looks again within a doze anyway).
 */
void ferry_pool_wake(uint64_t workers, uint64_t urgent);

#endif /* FERRY_ENGINE_POOL_PRIV_H_ */
