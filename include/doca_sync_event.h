/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file doca_sync_event.h
 * @brief DOCA Sync Event: one 64-bit value that threads and processes update,
 * read and wait on.
 *
 * Life of an event:
 *
 *   doca_sync_event_create(&ev)                  (or _create_from_export in the peer)
 *   doca_sync_event_add_publisher_location_*(ev) / _add_subscriber_location_*(ev)
 *   doca_sync_event_set_addr(ev, p)              (optional: the value lives at p)
 *   then either
 *     standalone: doca_sync_event_start(ev) ... update / get / wait ... doca_sync_event_stop(ev)
 *     context:    doca_pe_connect_ctx(pe, doca_sync_event_as_ctx(ev)), task set_confs,
 *                 doca_ctx_start(...) ... tasks through doca_pe_progress ... doca_ctx_stop(...)
 *   doca_sync_event_destroy(ev)
 *
 * On Ferry the value is a word in shared memory: an event exported with
 * doca_sync_event_export_to_remote_pci can be opened by another process with
 * doca_sync_event_create_from_export, and both read, write and wait on the
 * same value. The blocking waits sleep in the kernel until an update through
 * this API (in any process) changes the value; they re-check it at least
 * every few milliseconds, so a value written behind the API's back (through
 * doca_sync_event_set_addr storage) is seen too. Ferry has no DPA or GPU: the
 * calls that name one answer DOCA_ERROR_NOT_SUPPORTED. Network (RDMA) export
 * is not available yet and answers DOCA_ERROR_NOT_SUPPORTED as well.
 *
 * Threading: configuration and the context calls belong to one thread, as in
 * DOCA. The value operations (get, update_set, update_add, the waits) may be
 * called from any thread of any process that holds the event.
 */
#ifndef DOCA_SYNC_EVENT_H_
#define DOCA_SYNC_EVENT_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_dpa;
struct doca_gpu;
struct doca_task;

/** A sync event, opened here (created or created from a PCI export). */
struct doca_sync_event;
/** A network peer's sync event, for RDMA tasks (not available on Ferry yet). */
struct doca_sync_event_remote_net;
/** DPA and GPU views of an event (never produced on Ferry). */
struct doca_dpa_sync_event;
struct doca_gpu_sync_event;

/** Handle of an event on a DPA. */
typedef uint64_t doca_dpa_dev_sync_event_t;
/** Handle of a network peer's event on a DPA. */
typedef uint64_t doca_dpa_dev_sync_event_remote_net_t;
/** Handle of an event on a GPU. */
typedef uint64_t doca_gpu_dev_sync_event_t;
/** Handle of a network peer's event on a GPU. */
typedef uint64_t doca_gpu_dev_sync_event_remote_net_t;

/** Reads the value into a caller's word. */
struct doca_sync_event_task_get;
/** Sets the value. */
struct doca_sync_event_task_notify_set;
/** Adds to the value atomically, handing back the value before. */
struct doca_sync_event_task_notify_add;
/** Completes once (value & mask) equals the task's value. */
struct doca_sync_event_task_wait_eq;
/** Completes once (value & mask) differs from the task's value. */
struct doca_sync_event_task_wait_neq;

/**
 * Completion callbacks, one type per task kind, used for success and error
 * alike. They run inside doca_pe_progress; the task is the program's again:
 * it may free or resubmit it.
 */
typedef void (*doca_sync_event_task_get_completion_cb_t)(struct doca_sync_event_task_get *task,
							 union doca_data task_user_data, union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_notify_set_completion_cb_t)(struct doca_sync_event_task_notify_set *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_notify_add_completion_cb_t)(struct doca_sync_event_task_notify_add *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_wait_eq_completion_cb_t)(struct doca_sync_event_task_wait_eq *task,
							     union doca_data task_user_data,
							     union doca_data ctx_user_data);
typedef void (*doca_sync_event_task_wait_neq_completion_cb_t)(struct doca_sync_event_task_wait_neq *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);

/* ---- create, destroy ---- */

/**
 * @brief Create an event whose value is 0, in shared memory.
 * @param [out] event  the new event, not started.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_create(struct doca_sync_event **event);

/**
 * @brief Open the event another process exported with
 * doca_sync_event_export_to_remote_pci. The bytes are checked before use: a
 * descriptor that is not one, is truncated, forged, stale or of another user
 * is refused with a log line.
 * @param [in] dev     an open device on the same emulated machine as the exporter's.
 * @param [in] data    the descriptor bytes.
 * @param [in] sz      their number.
 * @param [out] event  the event, not started; it cannot be configured further.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, garbage, another machine);
 *         DOCA_ERROR_NOT_PERMITTED, DOCA_ERROR_NOT_FOUND, DOCA_ERROR_TIME_OUT,
 *         DOCA_ERROR_UNSUPPORTED_VERSION (see doca_mmap_create_from_export);
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
								  struct doca_sync_event **event);

/**
 * @brief Open a network peer's event. Ferry: DOCA_ERROR_NOT_SUPPORTED (no RDMA yet).
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data,
									     size_t sz,
									     struct doca_sync_event_remote_net **event);

/**
 * @brief Destroy an event. A standalone event that is still started is
 * stopped first; a context must be IDLE. Another process's import of this
 * event keeps its value readable and writable; no further import is accepted.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE
 *         when the event's context is not IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_destroy(struct doca_sync_event *event);

/** @brief Destroy a network peer's event. Ferry: never made, so DOCA_ERROR_INVALID_VALUE. */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event);

/* ---- configuration (before start; not on an event made from an export) ---- */

/**
 * @brief Declare who updates the event / who waits on it. CPU and remote-PCI
 * locations are accepted; Ferry has no DPA or GPU and no RDMA yet, so those
 * answer DOCA_ERROR_NOT_SUPPORTED with a log line.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE
 *         once started; DOCA_ERROR_NOT_PERMITTED on an event made from an export.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event,
									  struct doca_dev *dev);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event,
									  struct doca_dpa *dpa);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event,
									  struct doca_gpu *gpu);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event,
									   struct doca_dev *dev);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event,
									   struct doca_dpa *dpa);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event,
									   struct doca_gpu *gpu);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event);

/**
 * @brief Keep the value at the caller's 8-byte, 8-aligned word @p addr (its
 * current content becomes the value). To export such an event, the word
 * must lie in memory from ferry_mem_alloc_shared (see ferry_mem.h), which the
 * PCI peer can map.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, misaligned);
 *         DOCA_ERROR_BAD_STATE once started; DOCA_ERROR_NOT_PERMITTED on an
 *         event made from an export.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr);

/**
 * @brief Keep the value in the data segment of @p buf: exactly 8 bytes,
 * 8-aligned, one buf (no list), of a started mmap that grants local write.
 * The buf must stay valid while the event lives. To export such an event, its
 * mmap must grant DOCA_ACCESS_FLAG_PCI_READ_WRITE and the memory come from
 * ferry_mem_alloc_shared.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, not 8 bytes, list,
 *         misaligned); DOCA_ERROR_BAD_STATE once started; DOCA_ERROR_NOT_PERMITTED
 *         (read-only mmap, or an event made from an export).
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf);

/* ---- standalone mode, context mode ---- */

/**
 * @brief Start the event for the synchronous calls (standalone mode). An
 * event started this way cannot become a context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE
 *         when already started or used as a context.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_start(struct doca_sync_event *event);

/**
 * @brief Stop a standalone event. It may be started again.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE
 *         when not started or used as a context (use doca_ctx_stop).
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_stop(struct doca_sync_event *event);

/**
 * @brief The event as a context, for tasks through a progress engine. Once
 * called, doca_sync_event_start is refused. While the context is RUNNING, the
 * synchronous calls work too.
 * @return the context; NULL (with a log line) for NULL or a started standalone event.
 */
DOCA_EXPERIMENTAL struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event);

/* ---- export ---- */

/**
 * @brief Describe the event for a PCI peer (another process). The bytes stay
 * owned by the event until it is destroyed; a second call returns the same.
 * @param [in] event  an event created here (not from an export).
 * @param [in] dev    the device the export goes through (its emulated machine).
 * @param [out] data  the descriptor.
 * @param [out] sz    its length.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NOT_SUPPORTED
 *         for an event made from an export, or whose caller storage (set_addr,
 *         set_doca_buf) is not shareable memory; DOCA_ERROR_NOT_PERMITTED for a
 *         set_doca_buf mmap without PCI read-write; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event, struct doca_dev *dev,
								    const uint8_t **data, size_t *sz);

/** @brief Describe the event for a network peer. Ferry: DOCA_ERROR_NOT_SUPPORTED (no RDMA yet). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event, const uint8_t **data,
								    size_t *sz);

/** @brief DPA and GPU handles. Ferry: DOCA_ERROR_NOT_SUPPORTED (no DPA or GPU). */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event, struct doca_dpa *dpa,
							      doca_dpa_dev_sync_event_t *dpa_dev_se_handle);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get_gpu_handle(struct doca_sync_event *event, struct doca_gpu *gpu,
							      doca_gpu_dev_sync_event_t **gpu_dev_se);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event, struct doca_dpa *dpa,
					  doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_remote_net_get_gpu_handle(struct doca_sync_event_remote_net *event, struct doca_gpu *gpu,
					  doca_gpu_dev_sync_event_remote_net_t *gpu_remote_event);

/* ---- capabilities: DOCA_SUCCESS when supported, DOCA_ERROR_NOT_SUPPORTED when not ---- */

/**
 * @brief What a device can do with sync events. Every emulated device can
 * export to and import from its PCI peer and run every task kind; nothing
 * involving DPA, GPU or the network is supported.
 * @param [in] devinfo  the device.
 * @return DOCA_SUCCESS; DOCA_ERROR_NOT_SUPPORTED; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_create_from_export_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_remote_net_is_create_from_export_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_export_to_remote_pci_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_export_to_remote_net_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_is_export_to_gpu_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_remote_net_is_export_to_dpa_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_cap_remote_net_is_export_to_gpu_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_get_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_notify_set_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_notify_add_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_wait_eq_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_cap_task_wait_neq_is_supported(const struct doca_devinfo *devinfo);

/* ---- synchronous value operations (standalone started, or context RUNNING) ---- */

/**
 * @brief Read the value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE
 *         when the event is neither started nor a RUNNING context.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value);

/**
 * @brief Add @p value atomically; @p fetched receives the value before.
 * Waiters in every process are woken.
 * @return as doca_sync_event_get.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value,
							  uint64_t *fetched);

/**
 * @brief Set the value. Waiters in every process are woken.
 * @return as doca_sync_event_get.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value);

/**
 * @brief Block until (event value & @p mask) is greater than / equal to / not
 * equal to @p value. There is no time limit. The plain forms sleep in the
 * kernel between updates; the _yield forms call sched_yield() between checks
 * (lower latency, a busy CPU).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE
 *         when the event is neither started nor a RUNNING context.
 */
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_gt(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_gt_yield(struct doca_sync_event *event, uint64_t value,
							     uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_eq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_eq_yield(struct doca_sync_event *event, uint64_t value,
							     uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_neq(struct doca_sync_event *event, uint64_t value, uint64_t mask);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_wait_neq_yield(struct doca_sync_event *event, uint64_t value,
							      uint64_t mask);

/* ---- tasks (context mode) ----
 *
 * set_conf: before doca_ctx_start, with the context IDLE (DOCA_ERROR_NOT_PERMITTED
 * otherwise); num_tasks at least 1 (DOCA_ERROR_INVALID_VALUE).
 * alloc_init: context RUNNING (DOCA_ERROR_BAD_STATE), a free task
 * (DOCA_ERROR_NO_MEMORY). get, notify_set and notify_add complete on the next
 * doca_pe_progress; a wait task completes on the first progress that finds its
 * condition true. An update through this API, from any process, makes the
 * notification handle of a PE with pending wait tasks readable (up to 6 PEs
 * per event; beyond that, a PE sees other handles' updates when it next
 * progresses). Wait
 * masks are 0 or 1, 2, 4 or 8 low 0xFF bytes (DOCA_ERROR_INVALID_VALUE
 * otherwise). doca_ctx_stop completes pending wait tasks with
 * DOCA_ERROR_IO_FAILED through their error callback.
 */

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_get_set_conf(struct doca_sync_event *event,
								 doca_sync_event_task_get_completion_cb_t completion_cb,
								 doca_sync_event_task_get_completion_cb_t error_cb,
								 uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event, uint64_t *ret_val_ptr,
								   union doca_data user_data,
								   struct doca_sync_event_task_get **task);
DOCA_EXPERIMENTAL struct doca_task *doca_sync_event_task_get_as_doca_task(struct doca_sync_event_task_get *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_get_set_ret_val_ptr(struct doca_sync_event_task_get *task,
								uint64_t *ret_val_ptr);
DOCA_EXPERIMENTAL uint64_t *doca_sync_event_task_get_get_ret_val_ptr(const struct doca_sync_event_task_get *task);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_notify_set_set_conf(
	struct doca_sync_event *event, doca_sync_event_task_notify_set_completion_cb_t completion_cb,
	doca_sync_event_task_notify_set_completion_cb_t error_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event,
									  uint64_t set_val, union doca_data user_data,
									  struct doca_sync_event_task_notify_set **task);
DOCA_EXPERIMENTAL struct doca_task *doca_sync_event_task_notify_set_as_doca_task(
	struct doca_sync_event_task_notify_set *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_notify_set_set_set_val(struct doca_sync_event_task_notify_set *task,
								   uint64_t set_val);
DOCA_EXPERIMENTAL uint64_t
doca_sync_event_task_notify_set_get_set_val(const struct doca_sync_event_task_notify_set *task);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_notify_add_set_conf(
	struct doca_sync_event *event, doca_sync_event_task_notify_add_completion_cb_t completion_cb,
	doca_sync_event_task_notify_add_completion_cb_t error_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t
doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val, uint64_t *fetched_val_ptr,
					   union doca_data user_data, struct doca_sync_event_task_notify_add **task);
DOCA_EXPERIMENTAL struct doca_task *doca_sync_event_task_notify_add_as_doca_task(
	struct doca_sync_event_task_notify_add *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_notify_add_set_inc_val(struct doca_sync_event_task_notify_add *task,
								   uint64_t inc_val);
DOCA_EXPERIMENTAL uint64_t
doca_sync_event_task_notify_add_get_inc_val(const struct doca_sync_event_task_notify_add *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_notify_add_set_fetched_val_ptr(struct doca_sync_event_task_notify_add *task,
									   uint64_t *fetched_val_ptr);
DOCA_EXPERIMENTAL uint64_t *doca_sync_event_task_notify_add_get_fetched_val_ptr(
	const struct doca_sync_event_task_notify_add *task);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_wait_eq_set_conf(
	struct doca_sync_event *event, doca_sync_event_task_wait_eq_completion_cb_t completion_cb,
	doca_sync_event_task_wait_eq_completion_cb_t error_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event, uint64_t wait_val,
								       uint64_t mask, union doca_data user_data,
								       struct doca_sync_event_task_wait_eq **task);
DOCA_EXPERIMENTAL struct doca_task *doca_sync_event_task_wait_eq_as_doca_task(struct doca_sync_event_task_wait_eq *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_eq_set_wait_val(struct doca_sync_event_task_wait_eq *task,
								 uint64_t wait_val);
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_eq_set_mask(struct doca_sync_event_task_wait_eq *task, uint64_t mask);
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_eq_get_wait_val(const struct doca_sync_event_task_wait_eq *task);
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_eq_get_mask(const struct doca_sync_event_task_wait_eq *task);

DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_wait_neq_set_conf(
	struct doca_sync_event *event, doca_sync_event_task_wait_neq_completion_cb_t completion_cb,
	doca_sync_event_task_wait_neq_completion_cb_t error_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event,
									uint64_t wait_val, uint64_t mask,
									union doca_data user_data,
									struct doca_sync_event_task_wait_neq **task);
DOCA_EXPERIMENTAL struct doca_task *doca_sync_event_task_wait_neq_as_doca_task(
	struct doca_sync_event_task_wait_neq *task);
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_neq_set_wait_val(struct doca_sync_event_task_wait_neq *task,
								  uint64_t wait_val);
DOCA_EXPERIMENTAL void doca_sync_event_task_wait_neq_set_mask(struct doca_sync_event_task_wait_neq *task,
							      uint64_t mask);
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_neq_get_wait_val(const struct doca_sync_event_task_wait_neq *task);
DOCA_EXPERIMENTAL uint64_t doca_sync_event_task_wait_neq_get_mask(const struct doca_sync_event_task_wait_neq *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_SYNC_EVENT_H_ */
