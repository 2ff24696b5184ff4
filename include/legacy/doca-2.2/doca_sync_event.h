/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_sync_event.h (DOCA 2.2 flavour) - a 64-bit value two sides update and
 * wait on.
 *
 * The host side creates the event, names its publisher and subscriber
 * locations (CPU, or the DPU across PCI), starts it (or makes it a context:
 * doca_sync_event_as_ctx, doca_ctx_start, a work queue), and exports it to the
 * DPU (doca_sync_event_export_to_dpu); the DPU side builds the same event from
 * those bytes (doca_sync_event_create_from_export). Either side then updates
 * and waits, with the synchronous calls or with jobs on a work queue.
 */
#ifndef DOCA_SYNC_EVENT_H_
#define DOCA_SYNC_EVENT_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_devinfo;
struct doca_dpa;
struct doca_gpu;
struct doca_sync_event;

typedef uint64_t doca_dpa_dev_sync_event_t;
typedef uint64_t doca_gpu_dev_sync_event_t;

/** An event's handle for a remote peer (not offered by Ferry: see doca_sync_event_export_remote). */
typedef struct doca_sync_event_remote {
	uint64_t data[2];
} doca_sync_event_remote_t;

enum doca_sync_event_job_types {
	DOCA_SYNC_EVENT_JOB_WAIT_GT = DOCA_ACTION_SYNC_EVENT_FIRST + 1,
	DOCA_SYNC_EVENT_JOB_GET,
	DOCA_SYNC_EVENT_JOB_UPDATE_SET,
	DOCA_SYNC_EVENT_JOB_UPDATE_ADD,
};

/** What a sync event job's event carries in result. */
struct doca_sync_event_result {
	doca_error_t result;
};

/** Done once (value & mask) > value; value at most 254. */
struct doca_sync_event_job_wait {
	struct doca_job base;
	uint64_t value;
	uint64_t mask;
};

/** Reads the event into *value. */
struct doca_sync_event_job_get {
	struct doca_job base;
	uint64_t *value;
};

/** Sets the event to value. */
struct doca_sync_event_job_update_set {
	struct doca_job base;
	uint64_t value;
};

/** Adds value to the event; the value before goes to *fetched. */
struct doca_sync_event_job_update_add {
	struct doca_job base;
	uint64_t value;
	uint64_t *fetched;
};

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_create(struct doca_sync_event **event);
/** The event another process exported to this side (doca_sync_event_export_to_dpu). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
								  struct doca_sync_event **event);
/** Refused while its context is started or on a work queue. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_destroy(struct doca_sync_event *event)
	FERRY_LEGACY_SYMBOL(ferry_v22_sync_event_destroy);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_publisher_add_location_cpu(struct doca_sync_event *event,
									  struct doca_dev *dev);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_publisher_add_location_dpa(struct doca_sync_event *event,
									  struct doca_dpa *dpa);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_publisher_add_location_gpu(struct doca_sync_event *event,
									  struct doca_gpu *gpu);
/** The other side of PCI updates the event. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_publisher_add_location_dpu(struct doca_sync_event *event);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_subscriber_add_location_cpu(struct doca_sync_event *event,
									   struct doca_dev *dev);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_subscriber_add_location_dpa(struct doca_sync_event *event,
									   struct doca_dpa *dpa);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_subscriber_add_location_gpu(struct doca_sync_event *event,
									   struct doca_gpu *gpu);
/** The other side of PCI waits on the event. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_subscriber_add_location_dpu(struct doca_sync_event *event);
/** Keep the value at @p addr (8 bytes, shared memory to export it) instead of Ferry's own. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr);

/** For the synchronous calls only; the event then cannot become a context. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_start(struct doca_sync_event *event);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_stop(struct doca_sync_event *event);
/** The event as a work-queue context (start it with doca_ctx_start; it takes no device). */
DOCA_EXPERIMENTAL struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event)
	FERRY_LEGACY_SYMBOL(ferry_v22_sync_event_as_ctx);
/** DOCA_SUCCESS when @p devinfo runs jobs of @p type. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_job_get_supported(struct doca_devinfo *devinfo,
								 enum doca_sync_event_job_types type);

/** Bytes that let the DPU side build the same event; they belong to the event. Host side only. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_export_to_dpu(struct doca_sync_event *event, struct doca_dev *dev,
							     const uint8_t **data, size_t *sz);
/** Ferry has no DPA or GPU: DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_export_to_dpa(struct doca_sync_event *event, struct doca_dpa *dpa,
							     doca_dpa_dev_sync_event_t *dpa_dev_se_handle);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_export_to_gpu(struct doca_sync_event *event, struct doca_gpu *gpu,
							     doca_gpu_dev_sync_event_t **gpu_dev_se);
/** DOCA_SUCCESS or DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get_export_to_dpu_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get_create_from_export_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get_export_to_dpa_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get_export_to_gpu_supported(const struct doca_devinfo *devinfo);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value);
/** Atomic add; the value before goes to *fetched. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value,
							  uint64_t *fetched);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value);
/** Block until (value & mask) > @p value; the _yield form gives the CPU away between looks. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value,
							     uint64_t mask);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
