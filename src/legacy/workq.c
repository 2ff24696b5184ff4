/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * workq.c - the work queue of DOCA 1.x/2.x: jobs in, one event out per
 * doca_workq_progress_retrieve.
 *
 * A work queue is a progress engine and a ring of finished jobs' events. Every
 * context attached to it runs a DOCA 3 context on that engine; retrieve first
 * hands back an event already in the ring, else progresses the engine once (the
 * completion callbacks fill the ring) and tries again. "depth" bounds the jobs
 * a program has submitted and not yet retrieved, so the ring never overflows.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "legacy/legacy_api.h"

FERRY_LOG_MODULE("workq");

#define WORKQ_MAGIC     0x57524b51u /* "WRKQ" */
#define WORKQ_MAX_DEPTH (1u << 20)
#define WORKQ_MAX_CTXS  64

/*
 * A job in flight: what its event will say, or who takes its completion.
 * A kind sees only the slot's address (its "tag").
 */
struct wq_slot {
	int type;
	union doca_data user_data;
	struct ferry_wq_owner *owner;
	struct wq_slot *next_free;
};

struct doca_workq {
	uint32_t magic;
	uint32_t depth;
	uint32_t outstanding; /* submitted and not yet retrieved: at most depth */
	bool unflushed;       /* jobs submitted since the doorbells last rang */
	uint32_t ring_head;   /* next event to hand out (free-running; masked on use) */
	uint32_t ring_count;
	uint32_t ring_mask; /* ring holds ring_mask + 1 >= depth events: no division per job */
	struct ferry_event *ring;
	struct wq_slot *slots; /* depth slots */
	struct wq_slot *free_slots;
	struct ferry_wq_deferred *deferred; /* run at the next retrieve */
	struct doca_pe *pe;
	bool event_driven;
	uint32_t num_attached;
	struct ferry_wq_attach *attached[WORKQ_MAX_CTXS];
};

/* Ring and slots for @p depth jobs; the old ones are freed. */
static doca_error_t size_for(struct doca_workq *wq, uint32_t depth, const char *call)
{
	uint32_t ring_size = ferry_pow2_at_least(depth);
	struct ferry_event *ring = calloc(ring_size, sizeof(*ring));
	struct wq_slot *slots = calloc(depth, sizeof(*slots));

	if (ring == NULL || slots == NULL) {
		free(ring);
		free(slots);
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory for a work queue of depth %u", depth);
	}
	free(wq->ring);
	free(wq->slots);
	wq->ring = ring;
	wq->slots = slots;
	wq->free_slots = NULL;
	for (uint32_t i = depth; i > 0; i--) {
		slots[i - 1].next_free = wq->free_slots;
		wq->free_slots = &slots[i - 1];
	}
	wq->depth = depth;
	wq->ring_mask = ring_size - 1;
	wq->ring_head = 0;
	wq->ring_count = 0;
	return DOCA_SUCCESS;
}

doca_error_t ferry_workq_check(const struct doca_workq *workq, const char *call)
{
	if (workq == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "workq is NULL");
	if (workq->magic != WORKQ_MAGIC)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "%p is not a work queue made by doca_workq_create (or it was destroyed)",
				     (const void *)workq);
	return DOCA_SUCCESS;
}

static doca_error_t check_depth(uint32_t depth, const char *call)
{
	if (depth == 0 || depth > WORKQ_MAX_DEPTH)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "depth %u is outside 1..%u", depth,
				     WORKQ_MAX_DEPTH);
	return DOCA_SUCCESS;
}

doca_error_t doca_workq_create(uint32_t depth, struct doca_workq **workq)
{
	struct doca_workq *wq;
	doca_error_t err;

	LEGACY_ARG_NOT_NULL(workq);
	err = check_depth(depth, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	wq = calloc(1, sizeof(*wq));
	if (wq == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "out of memory for a work queue");
	err = size_for(wq, depth, __func__);
	if (err == DOCA_SUCCESS)
		err = doca_pe_create(&wq->pe);
	if (err != DOCA_SUCCESS) {
		free(wq->ring);
		free(wq->slots);
		free(wq);
		return err;
	}
	wq->magic = WORKQ_MAGIC;
	*workq = wq;
	return DOCA_SUCCESS;
}

doca_error_t doca_workq_destroy(struct doca_workq *workq)
{
	doca_error_t err = ferry_workq_check(workq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (workq->num_attached != 0)
		return FERRY_RULE(DOCA_ERROR_IN_USE,
				  "work queue %p is still added to %u context(s); doca_ctx_workq_rm it first",
				  (void *)workq, workq->num_attached);
	(void)doca_pe_destroy(workq->pe);
	workq->magic = 0;
	free(workq->ring);
	free(workq->slots);
	free(workq);
	return DOCA_SUCCESS;
}

doca_error_t doca_workq_get_depth(const struct doca_workq *workq, uint32_t *depth)
{
	doca_error_t err = ferry_workq_check(workq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(depth);
	*depth = workq->depth;
	return DOCA_SUCCESS;
}

doca_error_t doca_workq_set_depth(struct doca_workq *workq, uint32_t depth)
{
	doca_error_t err = ferry_workq_check(workq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	err = check_depth(depth, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	/* The attached contexts' task pools were sized for the old depth. */
	if (workq->num_attached != 0 || workq->outstanding != 0)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE,
				  "work queue %p is added to a context or has jobs outstanding; set its depth before "
				  "doca_ctx_workq_add",
				  (void *)workq);
	return size_for(workq, depth, __func__);
}

/* ---- jobs and events ---- */

struct doca_pe *ferry_workq_pe(const struct doca_workq *workq)
{
	return workq->pe;
}

void ferry_workq_post_event(struct doca_workq *workq, int type, union doca_data user_data, doca_error_t status)
{
	struct ferry_event *ev = &workq->ring[(workq->ring_head + workq->ring_count) & workq->ring_mask];

	/* Every event had a place of the depth (a job's, or a reservation), so the ring has room. */
	ev->type = type;
	ev->user_data = user_data;
	ev->result.u64 = (uint64_t)status;
	workq->ring_count++;
}

void ferry_workq_complete(struct ferry_wq_attach *att, union doca_data tag, doca_error_t status)
{
	struct doca_workq *wq = att->workq;
	struct wq_slot *slot = tag.ptr;
	struct ferry_wq_owner *owner = slot->owner;

	att->pending--;
	if (owner == NULL)
		ferry_workq_post_event(wq, slot->type, slot->user_data, status);
	else
		wq->outstanding--; /* no event: its place of the depth is free at once */
	slot->owner = NULL;
	slot->next_free = wq->free_slots;
	wq->free_slots = slot;
	if (owner != NULL)
		owner->complete(owner, status);
}

doca_error_t ferry_workq_reserve(struct doca_workq *workq, const char *call)
{
	if (workq->outstanding == workq->depth)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY,
				     "work queue %p is full: %u jobs submitted and not yet retrieved (its depth); "
				     "retrieve events first",
				     (void *)workq, workq->depth);
	workq->outstanding++;
	return DOCA_SUCCESS;
}

bool ferry_workq_has_room(const struct doca_workq *workq)
{
	return workq->outstanding < workq->depth;
}

void ferry_workq_defer(struct doca_workq *workq, struct ferry_wq_deferred *item)
{
	if (item->queued)
		return;
	item->queued = true;
	item->next = workq->deferred;
	workq->deferred = item;
}

void ferry_workq_cancel(struct doca_workq *workq, struct ferry_wq_deferred *item)
{
	for (struct ferry_wq_deferred **at = &workq->deferred; *at != NULL; at = &(*at)->next) {
		if (*at == item) {
			*at = item->next;
			item->queued = false;
			return;
		}
	}
}

/* Run what was deferred; what the runs defer again waits for the next retrieve. */
static void run_deferred(struct doca_workq *workq)
{
	struct ferry_wq_deferred *list = workq->deferred;

	workq->deferred = NULL;
	while (list != NULL) {
		struct ferry_wq_deferred *item = list;

		list = item->next;
		item->queued = false;
		item->run(item);
	}
}

struct ferry_wq_attach *ferry_workq_find_attach(const struct doca_workq *workq, const struct doca_ctx *ctx)
{
	for (uint32_t i = 0; i < workq->num_attached; i++)
		if (&workq->attached[i]->ctx->generic == ctx)
			return workq->attached[i];
	return NULL;
}

static doca_error_t submit(struct doca_workq *workq, const struct ferry_job *job, struct ferry_wq_owner *owner,
			   const char *call)
{
	struct ferry_wq_attach *att;
	struct wq_slot *slot;
	doca_error_t err;

	if (job == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "job is NULL");
	if (workq->outstanding == workq->depth)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY,
				     "work queue %p is full: %u jobs submitted and not yet retrieved (its depth); "
				     "retrieve events first",
				     (void *)workq, workq->depth);
	att = ferry_workq_find_attach(workq, job->ctx);
	if (att == NULL) {
		struct ferry_wq_ctx *ctx = ferry_wq_ctx_from(job->ctx, call);

		if (ctx == NULL)
			return DOCA_ERROR_INVALID_VALUE;
		if (!ctx->started)
			return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "job for %s context %p, which is not started",
					     ctx->kind->name, (void *)job->ctx);
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND,
				     "work queue %p was not added to %s context %p (doca_ctx_workq_add)", (void *)workq,
				     ctx->kind->name, (void *)job->ctx);
	}
	if (job->type < att->ctx->kind->first_job_type || job->type > att->ctx->kind->last_job_type)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "job type %#x is not a job of a %s context",
				     job->type, att->ctx->kind->name);
	slot = workq->free_slots; /* outstanding < depth: one is free */
	err = att->ctx->kind->submit(att, job, (union doca_data){.ptr = slot});
	if (err != DOCA_SUCCESS)
		return err;
	workq->free_slots = slot->next_free;
	slot->type = job->type;
	slot->user_data = job->user_data;
	slot->owner = owner;
	att->pending++;
	att->unflushed = true;
	workq->outstanding++;
	workq->unflushed = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_workq_submit(struct doca_workq *workq, const struct ferry_job *job)
{
	doca_error_t err = ferry_workq_check(workq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	return submit(workq, job, NULL, __func__);
}

doca_error_t ferry_workq_submit_owned(struct doca_workq *workq, const struct ferry_job *job,
				      struct ferry_wq_owner *owner)
{
	return submit(workq, job, owner, "doca_workq_submit");
}

/*
 * Ring the doorbell of every context with jobs submitted since the last time,
 * as a program's hardware queue would be rung once per batch: submit only
 * queues, retrieve (and arm, which a program calls before it sleeps) sends the
 * batch on its way.
 */
static void flush(struct doca_workq *workq)
{
	for (uint32_t i = 0; i < workq->num_attached; i++) {
		struct ferry_wq_attach *att = workq->attached[i];

		if (att->unflushed) {
			att->unflushed = false;
			if (att->engine_ctx != NULL)
				doca_ctx_flush_tasks(att->engine_ctx);
		}
	}
	workq->unflushed = false;
}

/* Jobs that run on no DOCA 3 context (sync events) complete when their kind says so. */
static void poll_kinds(struct doca_workq *workq)
{
	for (uint32_t i = 0; i < workq->num_attached; i++) {
		struct ferry_wq_attach *att = workq->attached[i];

		if (att->ctx->kind->poll != NULL && att->pending != 0)
			(void)att->ctx->kind->poll(att);
	}
}

static void take_event(struct doca_workq *workq, struct ferry_event *ev)
{
	*ev = workq->ring[workq->ring_head & workq->ring_mask];
	workq->ring_head++;
	workq->ring_count--;
	workq->outstanding--;
}

/*
 * Run what was deferred and, with no event ready, send the batch on its way
 * and progress once: true when an event is ready. Out of line, so that a
 * retrieve that finds one (most of them, a batch at a time) saves no
 * registers for this.
 */
static __attribute__((noinline)) bool refill(struct doca_workq *workq)
{
	if (workq->deferred != NULL)
		run_deferred(workq);
	if (workq->ring_count != 0)
		return true;
	if (workq->outstanding == 0)
		return false;
	if (workq->unflushed)
		flush(workq);
	(void)doca_pe_progress(workq->pe);
	poll_kinds(workq);
	if (workq->deferred != NULL)
		run_deferred(workq);
	return workq->ring_count != 0;
}

doca_error_t doca_workq_progress_retrieve(struct doca_workq *workq, struct ferry_event *ev, int flags)
{
	doca_error_t err = ferry_workq_check(workq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(ev);
	if (flags != 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "flags %#x: only DOCA_WORKQ_RETRIEVE_FLAGS_NONE exists",
				  (unsigned int)flags);
	if (workq->deferred != NULL || workq->ring_count == 0) {
		if (!refill(workq))
			return DOCA_ERROR_AGAIN;
	}
	take_event(workq, ev);
	/* A failed job's event is handed out too; its result holds the job's error. */
	return ev->result.u64 == DOCA_SUCCESS ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED;
}

/* ---- event-driven mode: the handle is the engine's notification handle ---- */

static bool has_polled_jobs(const struct doca_workq *workq)
{
	for (uint32_t i = 0; i < workq->num_attached; i++)
		if (workq->attached[i]->ctx->kind->poll != NULL && workq->attached[i]->pending != 0)
			return true;
	return false;
}

doca_error_t doca_workq_set_event_driven_enable(struct doca_workq *workq, uint8_t enable)
{
	doca_error_t err = ferry_workq_check(workq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (workq->num_attached != 0)
		return FERRY_RULE(
			DOCA_ERROR_BAD_STATE,
			"work queue %p is added to a context; choose event-driven mode before doca_ctx_workq_add",
			(void *)workq);
	workq->event_driven = enable != 0;
	return DOCA_SUCCESS;
}

doca_error_t doca_workq_get_event_driven_enable(struct doca_workq *workq, uint8_t *enabled)
{
	doca_error_t err = ferry_workq_check(workq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(enabled);
	*enabled = workq->event_driven;
	return DOCA_SUCCESS;
}

static doca_error_t check_event_driven(const struct doca_workq *workq, const char *call)
{
	doca_error_t err = ferry_workq_check(workq, call);

	if (err != DOCA_SUCCESS)
		return err;
	if (!workq->event_driven)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "work queue %p is not event-driven (doca_workq_set_event_driven_enable, before "
				     "doca_ctx_workq_add)",
				     (const void *)workq);
	return DOCA_SUCCESS;
}

doca_error_t doca_workq_get_event_handle(struct doca_workq *workq, doca_event_handle_t *handle)
{
	doca_error_t err = ferry_workq_check(workq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(handle);
	/* DOCA: asking for the handle turns the mode on, which is allowed only while unattached. */
	if (!workq->event_driven) {
		err = doca_workq_set_event_driven_enable(workq, 1);
		if (err != DOCA_SUCCESS)
			return err;
	}
	return doca_pe_get_notification_handle(workq->pe, handle);
}

doca_error_t doca_workq_event_handle_arm(struct doca_workq *workq)
{
	doca_error_t err = check_event_driven(workq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	if (workq->unflushed)
		flush(workq);
	err = doca_pe_request_notification(workq->pe);
	/*
	 * Events already in the ring wake the program at once: it must retrieve
	 * them. So do jobs of a polled kind (a sync event's wait): nothing else
	 * would wake the program when the value they wait for changes, so it
	 * polls them through its wait loop.
	 */
	if (err == DOCA_SUCCESS && (workq->ring_count != 0 || has_polled_jobs(workq)))
		ferry_pe_wake(workq->pe);
	return err;
}

doca_error_t doca_workq_event_handle_clear(struct doca_workq *workq, doca_event_handle_t handle)
{
	doca_error_t err = check_event_driven(workq, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	return doca_pe_clear_notification(workq->pe, handle);
}

/* ---- contexts on work queues ---- */

doca_error_t doca_ctx_workq_add(struct doca_ctx *ctx, struct doca_workq *workq)
{
	struct ferry_wq_ctx *wctx = ferry_wq_ctx_from(ctx, __func__);
	struct ferry_wq_attach *att;
	doca_error_t err;

	if (wctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = ferry_workq_check(workq, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (!wctx->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "%s context %p is not started; doca_ctx_start comes first",
				  wctx->kind->name, (void *)ctx);
	if (ferry_workq_find_attach(workq, ctx) != NULL)
		return FERRY_RULE(DOCA_ERROR_IN_USE, "work queue %p is already added to %s context %p", (void *)workq,
				  wctx->kind->name, (void *)ctx);
	if (wctx->num_attached == FERRY_WQ_CTX_MAX_WORKQS || workq->num_attached == WORKQ_MAX_CTXS)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY,
				  "%s context %p is on %u work queues and work queue %p serves %u contexts (limits "
				  "%u and %u)",
				  wctx->kind->name, (void *)ctx, wctx->num_attached, (void *)workq, workq->num_attached,
				  FERRY_WQ_CTX_MAX_WORKQS, WORKQ_MAX_CTXS);
	att = calloc(1, sizeof(*att));
	if (att == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "out of memory");
	att->ctx = wctx;
	att->workq = workq;
	err = wctx->kind->attach(att, workq->depth);
	if (err != DOCA_SUCCESS) {
		free(att);
		return err;
	}
	wctx->attached[wctx->num_attached++] = att;
	workq->attached[workq->num_attached++] = att;
	return DOCA_SUCCESS;
}

/* Remove @p att from an array of @p *num attachments (order does not matter). */
static void drop_attach(struct ferry_wq_attach **array, uint32_t *num, const struct ferry_wq_attach *att)
{
	for (uint32_t i = 0; i < *num; i++) {
		if (array[i] == att) {
			array[i] = array[--*num];
			return;
		}
	}
}

doca_error_t doca_ctx_workq_rm(struct doca_ctx *ctx, struct doca_workq *workq)
{
	struct ferry_wq_ctx *wctx = ferry_wq_ctx_from(ctx, __func__);
	struct ferry_wq_attach *att;
	doca_error_t err;

	if (wctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = ferry_workq_check(workq, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	att = ferry_workq_find_attach(workq, ctx);
	if (att == NULL)
		return FERRY_RULE(DOCA_ERROR_NOT_FOUND, "work queue %p is not added to %s context %p", (void *)workq,
				  wctx->kind->name, (void *)ctx);
	if (att->pending != 0)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "%u job(s) of %s context %p are still running in work queue %p; retrieve their "
				  "events first",
				  att->pending, wctx->kind->name, (void *)ctx, (void *)workq);
	wctx->kind->detach(att);
	drop_attach(wctx->attached, &wctx->num_attached, att);
	drop_attach(workq->attached, &workq->num_attached, att);
	free(att);
	return DOCA_SUCCESS;
}
