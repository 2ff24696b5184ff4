/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fault.c - fault injection at task completion (contract in fault.h, grammar
 * in fault_plan.h).
 *
 * Counting, per rule and per task pool: each successful completion the rule
 * matches is counted; the first `after` are left alone; of the rest, every
 * `every`-th (or each with probability `prob`, from a generator seeded with
 * `seed`, or each when neither is given) is hit, at most `count` times. A hit
 * of a status rule makes the task fail with that status, through the type's
 * error callback, as a real failure would; on a context whose real failures
 * stop it (DMA: ops->task_error_stops_ctx) the injected one stops it too. A
 * hit of a delay rule holds the completion back (still in flight) until a
 * progress at least delay_us later; held completions finish in their order.
 * Completions that already failed are not touched and not counted.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ctx_priv.h"
#include "core/fault.h"
#include "core/fault_plan.h"
#include "core/ferry_ctx.h"

FERRY_LOG_MODULE("fault");

struct site_rule {
	const struct ferry_fault_rule *rule;
	uint64_t seen; /* matching successful completions */
	uint64_t hits; /* injections so far */
	uint64_t rng;  /* splitmix64 state */
};

struct held {
	struct doca_task *task;
	doca_error_t status;
	uint64_t due_ns;
};

struct ferry_fault_site {
	unsigned num_rules;
	struct site_rule rules[FERRY_FAULT_MAX_RULES];
	/* Held completions: a ring of capacity entries (a task is held at most once). */
	struct held *ring;
	uint32_t ring_cap, head, num_held;
};

static struct ferry_fault_plan plan_storage;
static const struct ferry_fault_plan *plan; /* NULL: no faults */
static pthread_once_t plan_once = PTHREAD_ONCE_INIT;

doca_error_t ferry_fault_install(const char *text)
{
	char why[256];

	plan = NULL;
	if (text == NULL || text[0] == '\0')
		return DOCA_SUCCESS;
	if (ferry_fault_plan_parse(text, strlen(text), &plan_storage, why, sizeof(why)) != DOCA_SUCCESS) {
		FERRY_ERR("FERRY_FAULT refused, no faults are injected: %s", why);
		return DOCA_ERROR_INVALID_VALUE;
	}
	plan = &plan_storage;
	FERRY_INFO("FERRY_FAULT: %u rule%s active", plan->num_rules, plan->num_rules == 1 ? "" : "s");
	return DOCA_SUCCESS;
}

static void plan_read_env(void)
{
	(void)ferry_fault_install(getenv("FERRY_FAULT"));
}

void ferry_fault_init(void)
{
	pthread_once(&plan_once, plan_read_env);
}

void ferry_fault_pool_prepare(struct ferry_task_pool *pool)
{
	struct ferry_fault_site *site = pool->fault;

	if (plan == NULL) {
		ferry_fault_pool_release(pool);
		return;
	}
	if (site == NULL) {
		site = calloc(1, sizeof(*site));
		if (site == NULL) {
			FERRY_ERR("context '%s': no memory for the fault plan's counters; no faults on %s tasks",
				  pool->ctx->name, pool->task_name);
			return;
		}
		for (unsigned i = 0; i < plan->num_rules; i++) {
			const struct ferry_fault_rule *r = &plan->rules[i];

			if (r->action != FERRY_FAULT_ACT_NONE ||
			    !ferry_fault_rule_matches(r, pool->ctx->name, pool->task_name))
				continue;
			site->rules[site->num_rules].rule = r;
			site->rules[site->num_rules].rng = r->seed;
			site->num_rules++;
		}
		if (site->num_rules == 0) {
			free(site);
			return;
		}
	}
	/* The context is IDLE here, so nothing is held: the ring may be resized. */
	if (site->ring_cap != pool->capacity) {
		struct held *ring = calloc(pool->capacity ? pool->capacity : 1, sizeof(*ring));

		if (ring == NULL) {
			FERRY_ERR("context '%s': no memory for held completions; no faults on %s tasks",
				  pool->ctx->name, pool->task_name);
			ferry_fault_pool_release(pool);
			return;
		}
		free(site->ring);
		site->ring = ring;
		site->ring_cap = pool->capacity;
		site->head = 0;
		site->num_held = 0;
	}
	pool->fault = site;
}

void ferry_fault_pool_release(struct ferry_task_pool *pool)
{
	if (pool->fault != NULL) {
		free(pool->fault->ring);
		free(pool->fault);
		pool->fault = NULL;
	}
}

static uint64_t splitmix64(uint64_t *state)
{
	return ferry_mix64(*state += 0x9e3779b97f4a7c15ull);
}

static bool rule_hits(struct site_rule *sr)
{
	const struct ferry_fault_rule *r = sr->rule;
	uint64_t n = ++sr->seen;
	bool hit;

	if (n <= r->after || (r->count != 0 && sr->hits >= r->count))
		return false;
	if (r->every != 0)
		hit = (n - r->after) % r->every == 0;
	else if (r->prob_threshold != 0)
		hit = r->prob_threshold == UINT64_MAX || splitmix64(&sr->rng) < r->prob_threshold;
	else
		hit = true;
	sr->hits += hit;
	return hit;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool ferry_fault_on_complete(struct doca_task *task, doca_error_t *status)
{
	struct ferry_fault_site *site = task->pool->fault;
	struct doca_ctx *ctx = task->ctx;
	doca_error_t injected = DOCA_SUCCESS;
	uint32_t delay_us = 0;
	struct held *h;

	if (*status != DOCA_SUCCESS)
		return false;
	/* Every matching rule counts this completion; the first status hit wins, delays add up to the longest. */
	for (unsigned i = 0; i < site->num_rules; i++) {
		struct site_rule *sr = &site->rules[i];

		if (!rule_hits(sr))
			continue;
		if (sr->rule->status != DOCA_SUCCESS && injected == DOCA_SUCCESS)
			injected = sr->rule->status;
		if (sr->rule->delay_us > delay_us)
			delay_us = sr->rule->delay_us;
	}
	if (injected != DOCA_SUCCESS) {
		FERRY_DBG("context '%s': %s task %p fails with %s (FERRY_FAULT)", ctx->name, task->pool->task_name,
			  (void *)task, doca_error_get_name(injected));
		*status = injected;
		if (ctx->ops->task_error_stops_ctx)
			ferry_ctx_fail(ctx, injected);
	}
	if (delay_us == 0 || site->num_held == site->ring_cap)
		return false;
	h = &site->ring[(site->head + site->num_held) % site->ring_cap];
	h->task = task;
	h->status = *status;
	h->due_ns = now_ns() + (uint64_t)delay_us * 1000u;
	site->num_held++;
	ctx->fault_held++;
	return true;
}

unsigned ferry_fault_release_due(struct doca_ctx *ctx)
{
	uint64_t now = now_ns();
	unsigned done = 0;

	for (uint32_t i = 0; i < ctx->num_pools; i++) {
		struct ferry_fault_site *site = ctx->pools[i]->fault;

		while (site != NULL && site->num_held > 0 && site->ring[site->head].due_ns <= now) {
			struct held h = site->ring[site->head];

			site->head = (site->head + 1) % site->ring_cap;
			site->num_held--;
			ctx->fault_held--;
			ferry_task_complete_now(h.task, h.status);
			done++;
		}
	}
	return done;
}

uint64_t ferry_fault_conn_drop_at(const char *ctx_name)
{
	if (plan == NULL)
		return 0;
	for (unsigned i = 0; i < plan->num_rules; i++) {
		const struct ferry_fault_rule *r = &plan->rules[i];

		if (r->action == FERRY_FAULT_ACT_DROP && ferry_fault_rule_matches(r, ctx_name, "connection"))
			return r->after + 1;
	}
	return 0;
}

uint64_t ferry_fault_export_revoke_at(void)
{
	ferry_fault_init(); /* an import may come before any context starts */
	if (plan == NULL)
		return 0;
	for (unsigned i = 0; i < plan->num_rules; i++)
		if (plan->rules[i].action == FERRY_FAULT_ACT_REVOKE)
			return plan->rules[i].after + 1;
	return 0;
}
