/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wq_sync_event.c - DOCA 2.2's sync event: Ferry's event (core/sync_event.c)
 * under its 2.2 names, and its jobs through a work queue.
 *
 * Most 2.2 calls are DOCA 3's under an older name (publisher_add_location_cpu
 * is add_publisher_location_cpu, export_to_dpu is export_to_remote_pci: the
 * same descriptor). Two changed meaning: doca_sync_event_as_ctx gives a
 * work-queue context, and doca_sync_event_destroy must also free that context,
 * so the 2.2 header binds both to ferry_v22_*.
 *
 * The jobs (get, update set/add, wait for greater-than) run the event's
 * synchronous calls when the work queue is retrieved: a wait stays pending
 * until a retrieve sees the value above its threshold. Nothing wakes a
 * sleeping program when another process updates the value, so an armed work
 * queue with a wait pending is readable at once: the program polls through
 * its wait loop, as 2.2 programs did with their 10 us naps.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_sync_event.h>

#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "legacy/legacy_api.h"

FERRY_LOG_MODULE("workq");

#define SE_JOB_WAIT_GT    (FERRY_ACTION_SYNC_EVENT_FIRST + 1)
#define SE_JOB_GET        (FERRY_ACTION_SYNC_EVENT_FIRST + 2)
#define SE_JOB_UPDATE_SET (FERRY_ACTION_SYNC_EVENT_FIRST + 3)
#define SE_JOB_UPDATE_ADD (FERRY_ACTION_SYNC_EVENT_FIRST + 4)
/* The 2.2 header limits a wait's threshold (and the event it waits on) to 0..254. */
#define SE_WAIT_MAX       254u

/* The 2.2 job structs (struct doca_sync_event_job_*), one union for the queue of pending jobs. */
struct se_job {
	struct ferry_job base;
	union {
		struct {
			uint64_t value;
			uint64_t mask;
		} wait;
		uint64_t *get_value;
		uint64_t set_value;
		struct {
			uint64_t value;
			uint64_t *fetched;
		} add;
	} u;
};
_Static_assert(sizeof(struct se_job) == 40, "struct doca_sync_event_job_wait is 40 bytes");

/* A sync event made a work-queue context by doca_sync_event_as_ctx. */
struct wq_sync_event {
	struct ferry_wq_ctx ctx;
	struct doca_sync_event *event;
	struct wq_sync_event *next; /* the registry below */
};

/* Jobs of one attachment not yet completed, in submission order. */
struct se_pending {
	uint32_t head;
	uint32_t count;
	uint32_t cap;
	struct se_job jobs[];
};

/* Which events have a context: as_ctx finds it again, destroy frees it. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wq_sync_event *registry;

static struct wq_sync_event *se_of(struct ferry_wq_ctx *ctx)
{
	return ferry_container_of(ctx, struct wq_sync_event, ctx);
}

static doca_error_t se_start(struct ferry_wq_ctx *ctx)
{
	return doca_sync_event_start(se_of(ctx)->event);
}

static void se_stop(struct ferry_wq_ctx *ctx)
{
	(void)doca_sync_event_stop(se_of(ctx)->event);
}

static doca_error_t se_attach(struct ferry_wq_attach *att, uint32_t depth)
{
	struct se_pending *p = calloc(1, sizeof(*p) + depth * sizeof(p->jobs[0]));

	if (p == NULL)
		return FERRY_RULE_IN("doca_ctx_workq_add", DOCA_ERROR_NO_MEMORY, "out of memory");
	p->cap = depth;
	att->kind_data = p;
	return DOCA_SUCCESS;
}

static void se_detach(struct ferry_wq_attach *att)
{
	free(att->kind_data);
	att->kind_data = NULL;
}

static doca_error_t check_job(const struct se_job *job)
{
	switch (job->base.type) {
	case SE_JOB_WAIT_GT:
		if (job->u.wait.value > SE_WAIT_MAX)
			return FERRY_RULE_IN("doca_workq_submit", DOCA_ERROR_INVALID_VALUE,
					     "sync event wait job: threshold %llu is above %u",
					     (unsigned long long)job->u.wait.value, SE_WAIT_MAX);
		return DOCA_SUCCESS;
	case SE_JOB_GET:
		if (job->u.get_value == NULL)
			return FERRY_RULE_IN("doca_workq_submit", DOCA_ERROR_INVALID_VALUE,
					     "sync event get job: value is NULL");
		return DOCA_SUCCESS;
	case SE_JOB_UPDATE_ADD:
		if (job->u.add.fetched == NULL)
			return FERRY_RULE_IN("doca_workq_submit", DOCA_ERROR_INVALID_VALUE,
					     "sync event update-add job: fetched is NULL");
		return DOCA_SUCCESS;
	default:
		return DOCA_SUCCESS;
	}
}

/* Queue a copy of the job: the program may reuse its struct once submit returns. */
static doca_error_t se_submit(struct ferry_wq_attach *att, const struct ferry_job *job, union doca_data tag)
{
	struct se_pending *p = att->kind_data;
	struct se_job *copy = &p->jobs[(p->head + p->count) % p->cap];
	const struct se_job *se_job = ferry_container_of(job, struct se_job, base);
	size_t len = job->type == SE_JOB_GET || job->type == SE_JOB_UPDATE_SET ? 32 : 40;
	doca_error_t err = check_job(se_job);

	if (err != DOCA_SUCCESS)
		return err;
	/* Only the bytes of this job type exist in the program's struct. */
	memcpy(copy, job, len);
	copy->base.user_data = tag; /* the copy's own: the program's user_data is the work queue's */
	p->count++;
	return DOCA_SUCCESS;
}

/* Run one job; false when it is a wait whose condition does not hold yet. */
static bool run_job(struct doca_sync_event *event, const struct se_job *job, doca_error_t *status)
{
	uint64_t value = 0;

	switch (job->base.type) {
	case SE_JOB_WAIT_GT:
		*status = doca_sync_event_get(event, &value);
		return *status != DOCA_SUCCESS || (value & job->u.wait.mask) > job->u.wait.value;
	case SE_JOB_GET:
		*status = doca_sync_event_get(event, job->u.get_value);
		return true;
	case SE_JOB_UPDATE_SET:
		*status = doca_sync_event_update_set(event, job->u.set_value);
		return true;
	default:
		*status = doca_sync_event_update_add(event, job->u.add.value, job->u.add.fetched);
		return true;
	}
}

/* In order: a wait that does not hold yet holds back the jobs behind it, as on one queue. */
static uint32_t se_poll(struct ferry_wq_attach *att)
{
	struct se_pending *p = att->kind_data;
	struct doca_sync_event *event = se_of(att->ctx)->event;
	uint32_t done = 0;

	while (p->count > 0) {
		const struct se_job *job = &p->jobs[p->head];
		union doca_data tag;
		doca_error_t status;

		if (!run_job(event, job, &status))
			break;
		/* Off the queue first: the completion may submit more (a graph's next node) into its place. */
		tag = job->base.user_data;
		p->head = (p->head + 1) % p->cap;
		p->count--;
		ferry_workq_complete(att, tag, status);
		done++;
	}
	return done;
}

static void se_destroy(struct ferry_wq_ctx *ctx)
{
	free(se_of(ctx));
}

static const struct ferry_wq_ctx_kind sync_event_kind = {
	.name = "sync_event",
	.needs_dev = false,
	.first_job_type = SE_JOB_WAIT_GT,
	.last_job_type = SE_JOB_UPDATE_ADD,
	.start = se_start,
	.stop = se_stop,
	.attach = se_attach,
	.detach = se_detach,
	.submit = se_submit,
	.destroy = se_destroy,
	.poll = se_poll,
};

/* The registry entry of @p event, or NULL; the caller holds registry_lock. */
static struct wq_sync_event **find_locked(const struct doca_sync_event *event)
{
	struct wq_sync_event **at = &registry;

	while (*at != NULL && (*at)->event != event)
		at = &(*at)->next;
	return *at != NULL ? at : NULL;
}

struct doca_ctx *ferry_v22_sync_event_as_ctx(struct doca_sync_event *event)
{
	struct wq_sync_event **at, *se = NULL;

	if (event == NULL) {
		FERRY_ERR("doca_sync_event_as_ctx: event is NULL");
		return NULL;
	}
	pthread_mutex_lock(&registry_lock);
	at = find_locked(event);
	if (at != NULL) {
		se = *at;
	} else {
		se = calloc(1, sizeof(*se));
		if (se == NULL) {
			FERRY_ERR("doca_sync_event_as_ctx: out of memory");
		} else if (ferry_wq_ctx_init(&se->ctx, &sync_event_kind, "doca_sync_event_as_ctx") != DOCA_SUCCESS) {
			free(se);
			se = NULL;
		} else {
			se->event = event;
			se->next = registry;
			registry = se;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return se != NULL ? &se->ctx.generic : NULL;
}

doca_error_t ferry_v22_sync_event_destroy(struct doca_sync_event *event)
{
	struct wq_sync_event **at, *se = NULL;
	doca_error_t err = DOCA_SUCCESS;

	LEGACY_ARG_NOT_NULL(event);
	pthread_mutex_lock(&registry_lock);
	at = find_locked(event);
	if (at != NULL) {
		err = ferry_wq_ctx_check_destroyable(&(*at)->ctx, "doca_sync_event_destroy");
		if (err == DOCA_SUCCESS) {
			se = *at;
			*at = se->next;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	if (err != DOCA_SUCCESS)
		return err;
	err = doca_sync_event_destroy(event);
	if (se != NULL) {
		ferry_wq_ctx_fini(&se->ctx);
		se_destroy(&se->ctx);
	}
	return err;
}

/* ---- 2.2 names of DOCA 3 calls ---- */

doca_error_t doca_sync_event_publisher_add_location_cpu(struct doca_sync_event *event, struct doca_dev *dev)
{
	return doca_sync_event_add_publisher_location_cpu(event, dev);
}

doca_error_t doca_sync_event_publisher_add_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa)
{
	return doca_sync_event_add_publisher_location_dpa(event, dpa);
}

doca_error_t doca_sync_event_publisher_add_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu)
{
	return doca_sync_event_add_publisher_location_gpu(event, gpu);
}

doca_error_t doca_sync_event_publisher_add_location_dpu(struct doca_sync_event *event)
{
	return doca_sync_event_add_publisher_location_remote_pci(event);
}

doca_error_t doca_sync_event_subscriber_add_location_cpu(struct doca_sync_event *event, struct doca_dev *dev)
{
	return doca_sync_event_add_subscriber_location_cpu(event, dev);
}

doca_error_t doca_sync_event_subscriber_add_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa)
{
	return doca_sync_event_add_subscriber_location_dpa(event, dpa);
}

doca_error_t doca_sync_event_subscriber_add_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu)
{
	return doca_sync_event_add_subscriber_location_gpu(event, gpu);
}

doca_error_t doca_sync_event_subscriber_add_location_dpu(struct doca_sync_event *event)
{
	return doca_sync_event_add_subscriber_location_remote_pci(event);
}

doca_error_t doca_sync_event_export_to_dpu(struct doca_sync_event *event, struct doca_dev *dev, const uint8_t **data,
					   size_t *sz)
{
	return doca_sync_event_export_to_remote_pci(event, dev, data, sz);
}

doca_error_t doca_sync_event_get_export_to_dpu_supported(const struct doca_devinfo *devinfo)
{
	return doca_sync_event_cap_is_export_to_remote_pci_supported(devinfo);
}

doca_error_t doca_sync_event_get_create_from_export_supported(const struct doca_devinfo *devinfo)
{
	return doca_sync_event_cap_is_create_from_export_supported(devinfo);
}

doca_error_t doca_sync_event_get_export_to_dpa_supported(const struct doca_devinfo *devinfo)
{
	return doca_sync_event_cap_is_export_to_dpa_supported(devinfo);
}

doca_error_t doca_sync_event_get_export_to_gpu_supported(const struct doca_devinfo *devinfo)
{
	return doca_sync_event_cap_is_export_to_gpu_supported(devinfo);
}

doca_error_t doca_sync_event_export_to_dpa(struct doca_sync_event *event, struct doca_dpa *dpa, uint64_t *handle)
{
	return doca_sync_event_get_dpa_handle(event, dpa, handle);
}

doca_error_t doca_sync_event_export_to_gpu(struct doca_sync_event *event, struct doca_gpu *gpu, uint64_t **handle)
{
	return doca_sync_event_get_gpu_handle(event, gpu, handle);
}

doca_error_t doca_sync_event_job_get_supported(struct doca_devinfo *devinfo, int job_type)
{
	LEGACY_ARG_NOT_NULL(devinfo);
	if (job_type < SE_JOB_WAIT_GT || job_type > SE_JOB_UPDATE_ADD)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "job type %#x is not a sync event job", job_type);
	return DOCA_SUCCESS;
}
