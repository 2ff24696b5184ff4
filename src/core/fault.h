/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fault.h - fault injection at task completion (README, "Fault injection").
 *
 * FERRY_FAULT is read and parsed once, at the first doca_ctx_start of the
 * process (pthread_once). Each task pool that a rule matches gets a site at
 * start: its own counters and random state, so contexts on different threads
 * share nothing and a plan with a seed replays the same faults per context.
 * A pool no rule matches keeps site NULL: ferry_task_complete then pays one
 * predictable branch on a field of the pool it already reads.
 *
 * Lives in core, beside ctx.c: the hook is in ferry_task_complete, which every
 * library's tasks go through, so no new call crosses a library boundary.
 */
#ifndef FERRY_FAULT_H_
#define FERRY_FAULT_H_

#include <stdbool.h>

#include <stdint.h>

#include <doca_error.h>

#include "common/ferry_abi.h"

struct doca_ctx;
struct doca_task;
struct ferry_task_pool;
struct ferry_fault_site;

/** Read FERRY_FAULT once per process; a refused plan is logged once and injects nothing. */
void ferry_fault_init(void);

/**
 * Replace the plan (tests only; no context may be running). NULL or "" removes it.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE (logged) with no plan left.
 */
doca_error_t ferry_fault_install(const char *text);

/** At ctx start: give @p pool a site when a rule matches it, sized for its capacity. */
void ferry_fault_pool_prepare(struct ferry_task_pool *pool);

/** At ctx fini: free the pool's site. */
void ferry_fault_pool_release(struct ferry_task_pool *pool);

/**
 * From ferry_task_complete when the pool has a site: may change *status; returns
 * true when the completion is held back (delay) and must not finish now.
 */
bool ferry_fault_on_complete(struct doca_task *task, doca_error_t *status);

/** From progress: finish the held completions of @p ctx whose time has come. Returns how many. */
unsigned ferry_fault_release_due(struct doca_ctx *ctx);

/**
 * For a connection of a context named @p ctx_name, as it comes up: the
 * number of the send at which an action=drop rule drops it (after=N: N + 1),
 * or 0 for none. Comch counts its sends and drops the connection there.
 */
FERRY_PRIVATE_API
uint64_t ferry_fault_conn_drop_at(const char *ctx_name);

/**
 * For a map this process imports from a PCI export, as it is created: the
 * number of the use (a task's check that the map is usable) at which an
 * action=revoke rule revokes it (after=N: N + 1), or 0 for none.
 */
uint64_t ferry_fault_export_revoke_at(void);

#endif /* FERRY_FAULT_H_ */
