/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sync_event.c - doca_sync_event: a 64-bit value in shared memory that
 * threads and processes update, read and wait on; standalone (start/stop) or
 * a context whose tasks complete from doca_pe_progress.
 *
 * Memory: every event owns or imports one shared block (sync_event_priv.h):
 * the value, a 32-bit sequence word every update bumps, and a count of
 * sleepers. set_addr / set_doca_buf move the value into the caller's word;
 * the sequence word and the count stay in the block. Export sends the
 * block's link descriptor, and for caller storage (which must then be
 * shareable memory) a second one for its 8 bytes.
 *
 * Sleeping: a waiter counts itself in `waiters`, reads `seq`, checks the
 * value, and sleeps on `seq` with FUTEX_WAIT (not private: the block may be
 * mapped by another process). An updater changes the value, bumps `seq`, and
 * wakes only if `waiters` is not 0. All of these are sequentially consistent,
 * so either the waiter sees the new value or the updater sees the waiter
 * (and then the sleep returns at once, `seq` having moved). A sleep also
 * ends after a short re-check interval: a value written behind the API's back
 * (caller storage) or a peer that scribbles on the block delays a waiter by
 * that much at worst.
 *
 * Modes: doca_sync_event_start makes a standalone event (synchronous calls
 * only, never a context); doca_sync_event_as_ctx makes it a context. Tasks:
 * get / notify_set / notify_add run and complete on the next progress; wait
 * tasks stay on a list checked at every progress. Event-driven programs
 * (doca_pe_request_notification) are woken by updates from anywhere: an
 * update through this event object wakes its own PE directly
 * (ferry_pe_wake); a PE with wait tasks also puts its doorbell token
 * (ferry_pe_bell) in one of the block's bell slots, and every update, in any
 * process and through any handle, rings the tokens it finds there. With all
 * slots taken, a PE sees updates from elsewhere at its next progress (poll).
 *
 * Threading: configuration and context calls on one thread, as in DOCA; the
 * value operations from any thread.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_sync_event.h>
#include <ferry_mem.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_ctx.h"
#include "core/ferry_dev.h"
#include "core/ferry_rdma_mem.h"
#include "core/mem_priv.h"
#include "core/sync_event_priv.h"
#include "link/ferry_export.h"

FERRY_LOG_MODULE("sync_event");

#define NO_NET                                                                                      \
	"DOCA RDMA is not loaded in this process (link the program with doca-rdma): network peers " \
	"reach an event through it"

/* What a network export grants the value's 8 bytes. */
#define SE_NET_ACCESS (DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC)

/* Re-check intervals of a sleeping waiter: API updates wake it at once. */
#define SE_RECHECK_NS_SHARED 50000000L /* value in the shared block */
#define SE_RECHECK_NS_USER   1000000L  /* value in the caller's word: raw writes are expected */

enum se_mode {
	SE_MODE_NONE = 0,   /* neither started nor a context yet */
	SE_MODE_STANDALONE, /* doca_sync_event_start was called */
	SE_MODE_CTX,        /* doca_sync_event_as_ctx was called */
};

enum se_loc {
	SE_LOC_CPU = 1u << 0,
	SE_LOC_REMOTE_PCI = 1u << 1,
	SE_LOC_REMOTE_NET = 1u << 2,
};

enum se_kind { SE_GET = 0, SE_NOTIFY_SET, SE_NOTIFY_ADD, SE_WAIT_EQ, SE_WAIT_NEQ, SE_NUM_KINDS };

/* Every task kind has the same body; the public types wrap it so they stay distinct. */
struct se_task {
	struct doca_task base;
	uint64_t val;  /* set value, increment or wait value */
	uint64_t mask; /* wait tasks */
	uint64_t *ptr; /* get: where the value goes; notify_add: where the old value goes */
};

struct doca_sync_event_task_get {
	struct se_task t;
};
struct doca_sync_event_task_notify_set {
	struct se_task t;
};
struct doca_sync_event_task_notify_add {
	struct se_task t;
};
struct doca_sync_event_task_wait_eq {
	struct se_task t;
};
struct doca_sync_event_task_wait_neq {
	struct se_task t;
};

struct doca_sync_event {
	struct doca_ctx ctx; /* first: doca_sync_event_as_ctx */
	struct sync_event_shared *shm;
	uint64_t *value; /* &shm->value, or the caller's word */
	enum se_mode mode;
	bool started; /* standalone mode only */
	bool from_export;
	bool user_storage;
	bool flushing; /* context stopping: pending wait tasks end with an error */
	uint32_t pub_locs, sub_locs;
	struct ferry_link_export *exp; /* ours: while the event lives */
	struct ferry_link_import *imp; /* from_export */
	/* Caller storage exported apart (set_addr / set_doca_buf in shareable memory). */
	struct ferry_link_export *value_exp;
	struct ferry_link_import *value_imp;
	bool storage_from_buf;
	uint32_t storage_access; /* the buf's mmap permissions */
	uint8_t *blob;
	size_t blob_len;
	/* Network export (doca_sync_event_export_to_remote_net): the value's 8 bytes, registered with DOCA RDMA. */
	void *net_exp;
	uint8_t *net_blob;
	size_t net_blob_len;
	struct ferry_task_pool pools[SE_NUM_KINDS];
	union {
		doca_sync_event_task_get_completion_cb_t get;
		doca_sync_event_task_notify_set_completion_cb_t notify_set;
		doca_sync_event_task_notify_add_completion_cb_t notify_add;
		doca_sync_event_task_wait_eq_completion_cb_t wait_eq;
		doca_sync_event_task_wait_neq_completion_cb_t wait_neq;
	} ok_cb[SE_NUM_KINDS], err_cb[SE_NUM_KINDS];
	struct ferry_task_list ready; /* get / notify tasks: run at the next progress */
	struct ferry_task_list waits; /* wait tasks */
	atomic_uint num_waits;        /* length of waits, read by updaters of other threads */
	int bell_slot;                /* our PE's slot in shm->bells, or -1 */
	uint64_t bell_token;
	bool bells_full_logged;
};

static void unexport(struct doca_sync_event *ev);

static const char *const kind_name[SE_NUM_KINDS] = {"sync event get", "sync event notify_set", "sync event notify_add",
						    "sync event wait_eq", "sync event wait_neq"};

static struct doca_sync_event *se_of_ctx(struct doca_ctx *ctx)
{
	return ferry_container_of(ctx, struct doca_sync_event, ctx);
}

static struct se_task *se_task_of(struct doca_task *task)
{
	return ferry_container_of(task, struct se_task, base);
}

static enum se_kind kind_of(const struct doca_task *task)
{
	const struct doca_sync_event *ev = se_of_ctx(task->ctx);

	return (enum se_kind)(task->pool - ev->pools);
}

/* ---- the value, the sequence word, sleeping ---- */

static long futex(uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static uint64_t value_load(const struct doca_sync_event *ev)
{
	return __atomic_load_n(ev->value, __ATOMIC_SEQ_CST);
}

/*
 * After an update: move the sequence word, wake sleepers of any process, this
 * event's PE, and the PEs whose bells hang in the block. The value was stored
 * (seq_cst) before the bells are read: a PE that registered its bell after
 * this read checks the value itself when it arms (has_pending).
 */
static void se_notify(struct doca_sync_event *ev)
{
	__atomic_fetch_add(&ev->shm->seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ev->shm->waiters, __ATOMIC_SEQ_CST) != 0)
		(void)futex(&ev->shm->seq, FUTEX_WAKE, INT_MAX, NULL);
	if (atomic_load_explicit(&ev->num_waits, memory_order_relaxed) != 0)
		ferry_pe_wake(ev->ctx.pe);
	for (unsigned i = 0; i < SE_BELLS; i++) {
		uint64_t token = __atomic_load_n(&ev->shm->bells[i], __ATOMIC_SEQ_CST);

		if (token != 0)
			ferry_pe_bell_ring(token); /* best effort, never blocks */
	}
}

/* Hang this context's PE bell in the block (PE thread, at a wait task's submit). */
static void bell_hang(struct doca_sync_event *ev)
{
	uint64_t token;

	if (ev->bell_slot >= 0 || ev->ctx.pe == NULL)
		return;
	token = ferry_pe_bell(ev->ctx.pe);
	if (token == 0)
		return; /* no bell: the PE is woken by its own updates and polls for the rest */
	for (unsigned i = 0; i < SE_BELLS; i++) {
		uint64_t expected = 0;

		if (__atomic_compare_exchange_n(&ev->shm->bells[i], &expected, token, false, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST)) {
			ev->bell_slot = (int)i;
			ev->bell_token = token;
			return;
		}
	}
	if (!ev->bells_full_logged) {
		ev->bells_full_logged = true;
		FERRY_INFO("sync event %p: all %u bell slots are taken; its PE sees updates from other handles "
			   "at its next progress only",
			   (void *)ev, SE_BELLS);
	}
}

/* Take our bell down again (only if the slot still holds our token). */
static void bell_unhang(struct doca_sync_event *ev)
{
	uint64_t expected = ev->bell_token;

	if (ev->bell_slot < 0)
		return;
	(void)__atomic_compare_exchange_n(&ev->shm->bells[ev->bell_slot], &expected, 0, false, __ATOMIC_SEQ_CST,
					  __ATOMIC_SEQ_CST);
	ev->bell_slot = -1;
	ev->bell_token = 0;
}

static void value_set(struct doca_sync_event *ev, uint64_t v)
{
	__atomic_store_n(ev->value, v, __ATOMIC_SEQ_CST);
	se_notify(ev);
}

static uint64_t value_add(struct doca_sync_event *ev, uint64_t inc)
{
	uint64_t old = __atomic_fetch_add(ev->value, inc, __ATOMIC_SEQ_CST);

	se_notify(ev);
	return old;
}

enum se_cmp { SE_CMP_GT, SE_CMP_EQ, SE_CMP_NEQ };

static bool cmp_holds(uint64_t v, enum se_cmp cmp, uint64_t want, uint64_t mask)
{
	v &= mask;
	switch (cmp) {
	case SE_CMP_GT:
		return v > want;
	case SE_CMP_EQ:
		return v == want;
	case SE_CMP_NEQ:
		return v != want;
	}
	return false;
}

static void wait_sleeping(struct doca_sync_event *ev, enum se_cmp cmp, uint64_t want, uint64_t mask)
{
	/* A network peer's write wakes (se_remote_written); a value in the caller's word may change silently. */
	bool raw_writes = ev->user_storage;
	const struct timespec recheck = {0, raw_writes ? SE_RECHECK_NS_USER : SE_RECHECK_NS_SHARED};

	while (!cmp_holds(value_load(ev), cmp, want, mask)) {
		__atomic_fetch_add(&ev->shm->waiters, 1, __ATOMIC_SEQ_CST);
		uint32_t seq = __atomic_load_n(&ev->shm->seq, __ATOMIC_SEQ_CST);
		if (!cmp_holds(value_load(ev), cmp, want, mask))
			(void)futex(&ev->shm->seq, FUTEX_WAIT, seq, &recheck); /* EAGAIN: seq moved already */
		__atomic_fetch_sub(&ev->shm->waiters, 1, __ATOMIC_SEQ_CST);
	}
}

static void wait_yielding(const struct doca_sync_event *ev, enum se_cmp cmp, uint64_t want, uint64_t mask)
{
	while (!cmp_holds(value_load(ev), cmp, want, mask))
		sched_yield();
}

/* ---- checks ---- */

static doca_error_t check_configurable(const struct doca_sync_event *ev, const char *call)
{
	if (ev == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "event is NULL");
	if (ev->from_export)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "sync event %p was created from an export; it cannot be configured",
				     (const void *)ev);
	if (ev->started || ev->ctx.state != DOCA_CTX_STATE_IDLE)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "sync event %p is started; configuration comes before start", (const void *)ev);
	return DOCA_SUCCESS;
}

/* The synchronous value calls need a started event or a RUNNING context. */
static doca_error_t check_usable(const struct doca_sync_event *ev, const char *call)
{
	if (ev == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "event is NULL");
	if (ev->started)
		return DOCA_SUCCESS;
	if (ev->mode == SE_MODE_CTX && ev->ctx.state == DOCA_CTX_STATE_RUNNING)
		return DOCA_SUCCESS;
	return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
			     "sync event %p is not started (doca_sync_event_start, or doca_ctx_start of its context)",
			     (const void *)ev);
}

/* Wait masks of tasks: 0, or the low 1, 2, 4 or 8 bytes all ones. */
static bool mask_is_valid(uint64_t mask)
{
	return mask == 0 || mask == 0xFFull || mask == 0xFFFFull || mask == 0xFFFFFFFFull || mask == UINT64_MAX;
}

/* ---- context ops ---- */

static doca_error_t se_ctx_start(struct doca_ctx *ctx)
{
	struct doca_sync_event *ev = se_of_ctx(ctx);

	ev->flushing = false;
	return DOCA_SUCCESS;
}

static void se_ctx_stop(struct doca_ctx *ctx)
{
	se_of_ctx(ctx)->flushing = true;
}

static void se_ctx_stopped(struct doca_ctx *ctx)
{
	struct doca_sync_event *ev = se_of_ctx(ctx);

	ev->flushing = false;
	bell_unhang(ev);
}

static doca_error_t check_task(const struct se_task *t, enum se_kind kind, const char *call)
{
	if (kind == SE_GET && t->ptr == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "get task %p has no return value pointer",
				     (const void *)t);
	if ((kind == SE_WAIT_EQ || kind == SE_WAIT_NEQ) && !mask_is_valid(t->mask))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "%s task %p: mask 0x%llx is not 0 or the low 1, 2, 4 or 8 bytes set",
				     kind_name[kind], (const void *)t, (unsigned long long)t->mask);
	return DOCA_SUCCESS;
}

static doca_error_t se_ctx_submit(struct doca_task *task)
{
	struct doca_sync_event *ev = se_of_ctx(task->ctx);
	enum se_kind kind = kind_of(task);
	doca_error_t err = check_task(se_task_of(task), kind, "doca_task_submit");

	if (err != DOCA_SUCCESS)
		return err;
	if (kind == SE_WAIT_EQ || kind == SE_WAIT_NEQ) {
		bell_hang(ev);
		ferry_task_list_push(&ev->waits, task);
		atomic_fetch_add_explicit(&ev->num_waits, 1, memory_order_relaxed);
	} else {
		ferry_task_list_push(&ev->ready, task);
	}
	return DOCA_SUCCESS;
}

static void run_ready(struct doca_sync_event *ev, struct doca_task *task)
{
	struct se_task *t = se_task_of(task);
	uint64_t old;

	switch (kind_of(task)) {
	case SE_GET:
		*t->ptr = value_load(ev);
		break;
	case SE_NOTIFY_SET:
		value_set(ev, t->val);
		break;
	case SE_NOTIFY_ADD:
		old = value_add(ev, t->val);
		if (t->ptr != NULL)
			*t->ptr = old;
		break;
	default:
		break;
	}
}

static bool wait_done(const struct doca_sync_event *ev, const struct doca_task *task)
{
	const struct se_task *t = ferry_container_of(task, struct se_task, base);
	enum se_cmp cmp = kind_of(task) == SE_WAIT_EQ ? SE_CMP_EQ : SE_CMP_NEQ;

	return cmp_holds(value_load(ev), cmp, t->val, t->mask);
}

static uint32_t se_ctx_progress(struct doca_ctx *ctx)
{
	struct doca_sync_event *ev = se_of_ctx(ctx);
	/* Work from snapshots: a callback may submit again; that waits for the next pass. */
	struct ferry_task_list ready = ev->ready, waits = ev->waits;
	struct doca_task *task;
	uint32_t n = 0;

	ev->ready = (struct ferry_task_list){NULL, NULL};
	ev->waits = (struct ferry_task_list){NULL, NULL};
	while ((task = ferry_task_list_pop(&ready)) != NULL) {
		run_ready(ev, task);
		ferry_task_complete(task, DOCA_SUCCESS);
		n++;
	}
	while ((task = ferry_task_list_pop(&waits)) != NULL) {
		if (wait_done(ev, task)) {
			atomic_fetch_sub_explicit(&ev->num_waits, 1, memory_order_relaxed);
			ferry_task_complete(task, DOCA_SUCCESS);
			n++;
		} else if (ev->flushing) {
			atomic_fetch_sub_explicit(&ev->num_waits, 1, memory_order_relaxed);
			ferry_task_complete(task, DOCA_ERROR_IO_FAILED);
			n++;
		} else {
			ferry_task_list_push(&ev->waits, task);
		}
	}
	/* Nothing left to wake us for: updates stop ringing until the next wait task. */
	if (ev->waits.head == NULL)
		bell_unhang(ev);
	return n;
}

static bool se_ctx_has_pending(struct doca_ctx *ctx)
{
	struct doca_sync_event *ev = se_of_ctx(ctx);

	if (ev->ready.head != NULL || (ev->flushing && ev->waits.head != NULL))
		return true;
	for (const struct doca_task *task = ev->waits.head; task != NULL; task = task->next)
		if (wait_done(ev, task))
			return true;
	return false;
}

static const struct ferry_ctx_ops se_ctx_ops = {
	.start = se_ctx_start,
	.stop = se_ctx_stop,
	.stopped = se_ctx_stopped,
	.submit = se_ctx_submit,
	.progress = se_ctx_progress,
	.has_pending = se_ctx_has_pending,
};

/* Completion trampolines: one per task kind, so no function pointer is cast. */
#define SE_TRAMPOLINE(X, KIND)                                                                                   \
	static void complete_##X(struct doca_task *task, union doca_data tud, union doca_data cud, bool success) \
	{                                                                                                        \
		struct doca_sync_event *ev = se_of_ctx(task->ctx);                                               \
		struct doca_sync_event_task_##X *t = ferry_container_of(se_task_of(task),                        \
									struct doca_sync_event_task_##X, t);     \
		if (success)                                                                                     \
			ev->ok_cb[KIND].X(t, tud, cud);                                                          \
		else                                                                                             \
			ev->err_cb[KIND].X(t, tud, cud);                                                         \
	}
SE_TRAMPOLINE(get, SE_GET)
SE_TRAMPOLINE(notify_set, SE_NOTIFY_SET)
SE_TRAMPOLINE(notify_add, SE_NOTIFY_ADD)
SE_TRAMPOLINE(wait_eq, SE_WAIT_EQ)
SE_TRAMPOLINE(wait_neq, SE_WAIT_NEQ)

/* ---- create / destroy ---- */

static struct doca_sync_event *se_alloc(void)
{
	struct doca_sync_event *ev = ferry_calloc(1, sizeof(*ev));

	if (ev == NULL)
		return NULL;
	ferry_ctx_init(&ev->ctx, &se_ctx_ops, "sync_event", NULL);
	ferry_ctx_add_pool(&ev->ctx, &ev->pools[SE_GET], kind_name[SE_GET], sizeof(struct doca_sync_event_task_get),
			   complete_get);
	ferry_ctx_add_pool(&ev->ctx, &ev->pools[SE_NOTIFY_SET], kind_name[SE_NOTIFY_SET],
			   sizeof(struct doca_sync_event_task_notify_set), complete_notify_set);
	ferry_ctx_add_pool(&ev->ctx, &ev->pools[SE_NOTIFY_ADD], kind_name[SE_NOTIFY_ADD],
			   sizeof(struct doca_sync_event_task_notify_add), complete_notify_add);
	ferry_ctx_add_pool(&ev->ctx, &ev->pools[SE_WAIT_EQ], kind_name[SE_WAIT_EQ],
			   sizeof(struct doca_sync_event_task_wait_eq), complete_wait_eq);
	ferry_ctx_add_pool(&ev->ctx, &ev->pools[SE_WAIT_NEQ], kind_name[SE_WAIT_NEQ],
			   sizeof(struct doca_sync_event_task_wait_neq), complete_wait_neq);
	atomic_init(&ev->num_waits, 0);
	ev->bell_slot = -1;
	return ev;
}

doca_error_t doca_sync_event_create(struct doca_sync_event **event)
{
	struct doca_sync_event *ev;

	FERRY_ARG_NOT_NULL(event);
	ev = se_alloc();
	if (ev == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for a sync event");
	ev->shm = ferry_mem_alloc_shared(sizeof(*ev->shm)); /* zeroed: the value starts at 0 */
	if (ev->shm == NULL) {
		ferry_ctx_fini(&ev->ctx);
		free(ev);
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no shared memory for a sync event's value");
	}
	ev->value = &ev->shm->value;
	*event = ev;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
						struct doca_sync_event **event)
{
	const char *call = __func__;
	struct se_desc_parts parts;
	const char *why = NULL;
	struct ferry_link_import *imp, *value_imp = NULL;
	struct ferry_link_view view, value_view;
	struct doca_sync_event *ev = NULL;
	uint32_t machine;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(dev);
	FERRY_ARG_NOT_NULL(data);
	FERRY_ARG_NOT_NULL(event);
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device", (void *)dev);
	err = sync_event_desc_decode(data, sz, &parts, &why);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE(err, "descriptor refused (%zu bytes): %s", sz, why);
	if (parts.net)
		return FERRY_RULE(
			DOCA_ERROR_INVALID_VALUE,
			"the descriptor is an export to a network peer (doca_sync_event_export_to_remote_net); "
			"doca_sync_event_remote_net_create_from_export takes it");
	machine = ferry_devinfo_machine(doca_dev_as_devinfo(dev));
	err = ferry_link_import_open(parts.block, parts.block_len, machine, FERRY_LINK_IMPORT_ANYWHERE, call, &imp,
				     &view);
	if (err != DOCA_SUCCESS)
		return err;
	if (parts.value != NULL) {
		err = ferry_link_import_open(parts.value, parts.value_len, machine, FERRY_LINK_IMPORT_ANYWHERE, call,
					     &value_imp, &value_view);
		if (err != DOCA_SUCCESS) {
			ferry_link_import_close(imp);
			return err;
		}
	}
	/* The agent's answer, not the descriptor, says what we got: check it is a whole, writable block. */
	if (view.access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
		err = FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				 "the exported event is read-only; an event needs read-write");
	else if (view.len < sizeof(struct sync_event_shared))
		err = FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "the exported range (%zu bytes) is smaller than an event",
				 view.len);
	else if (((uintptr_t)view.local & (sizeof(uint64_t) - 1)) != 0)
		err = FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "the exported range is not 8-byte aligned");
	else if (value_imp != NULL && value_view.access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
		err = FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				 "the exported value is read-only; an event needs read-write");
	else if (value_imp != NULL && value_view.len < sizeof(uint64_t))
		err = FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "the exported value (%zu bytes) is shorter than 8 bytes",
				 value_view.len);
	else if (value_imp != NULL && ((uintptr_t)value_view.local & (sizeof(uint64_t) - 1)) != 0)
		err = FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "the exported value is not 8-byte aligned");
	else if ((ev = se_alloc()) == NULL)
		err = FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for a sync event");
	if (err != DOCA_SUCCESS) {
		if (value_imp != NULL)
			ferry_link_import_close(value_imp);
		ferry_link_import_close(imp);
		return err;
	}
	ev->shm = view.local;
	ev->value = &ev->shm->value;
	if (value_imp != NULL) {
		ev->value = value_view.local;
		ev->value_imp = value_imp;
		ev->user_storage = true; /* the exporter's program may write it directly: re-check often */
	}
	ev->imp = imp;
	ev->from_export = true;
	*event = ev;
	return DOCA_SUCCESS;
}

/* struct doca_sync_event_remote_net: a network peer's event, reached through DOCA RDMA tasks. */
#define SE_NET_MAGIC 0x4e455346u /* "FSEN" */

struct doca_sync_event_remote_net {
	uint32_t magic;
	void *imp;     /* the RDMA transport's import of the value's 8 bytes */
	uint64_t addr; /* their address in the exporter */
};

doca_error_t doca_sync_event_remote_net_create_from_export(struct doca_dev *dev, const uint8_t *data, size_t sz,
							   struct doca_sync_event_remote_net **event)
{
	const struct ferry_mmap_rdma_ops *ops = ferry_mmap_rdma_ops_get();
	struct ferry_rdma_import_view view;
	struct doca_sync_event_remote_net *ev;
	struct se_desc_parts parts;
	const char *why = NULL;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(dev);
	FERRY_ARG_NOT_NULL(data);
	FERRY_ARG_NOT_NULL(event);
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device", (void *)dev);
	err = sync_event_desc_decode(data, sz, &parts, &why);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE(err, "descriptor refused (%zu bytes): %s", sz, why);
	if (!parts.net)
		return FERRY_RULE(
			DOCA_ERROR_INVALID_VALUE,
			"the descriptor is an export to the PCIe peer (doca_sync_event_export_to_remote_pci); "
			"doca_sync_event_create_from_export takes it");
	if (ops == NULL)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, NO_NET);
	ev = ferry_calloc(1, sizeof(*ev));
	if (ev == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for a network sync event");
	err = ops->import(parts.block, parts.block_len, __func__, &ev->imp, &view);
	if (err != DOCA_SUCCESS) {
		free(ev);
		return err;
	}
	/* Its tasks are 8-byte RDMA accesses and atomics of registered memory; a re-export is copied instead. */
	if (view.link_desc != NULL) {
		ops->import_close(ev->imp);
		free(ev);
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
				  "the descriptor holds a re-export of a PCI import (reached through the link's "
				  "network path); a remote sync event must be memory registered for RDMA");
	}
	/* The exporter registered exactly the value's 8 aligned bytes, for reads, writes and atomics. */
	if (view.len != sizeof(uint64_t) || (view.addr & (sizeof(uint64_t) - 1)) != 0 ||
	    (view.access & SE_NET_ACCESS) != SE_NET_ACCESS) {
		ops->import_close(ev->imp);
		free(ev);
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "the exported range 0x%llx + %llu (access %#x) is not a sync event's aligned 8-byte "
				  "value open to RDMA reads, writes and atomics",
				  (unsigned long long)view.addr, (unsigned long long)view.len, view.access);
	}
	ev->magic = SE_NET_MAGIC;
	ev->addr = view.addr;
	*event = ev;
	return DOCA_SUCCESS;
}

bool ferry_sync_event_remote_net_view(const struct doca_sync_event_remote_net *event, const char *call,
				      const void **import_state, uint64_t *addr)
{
	if (event == NULL || event->magic != SE_NET_MAGIC) {
		FERRY_ERR("%s: %p is not a sync event made by doca_sync_event_remote_net_create_from_export", call,
			  (const void *)event);
		return false;
	}
	*import_state = event->imp;
	*addr = event->addr;
	return true;
}

doca_error_t doca_sync_event_destroy(struct doca_sync_event *event)
{
	FERRY_ARG_NOT_NULL(event);
	if (event->mode == SE_MODE_CTX) {
		doca_error_t err = ferry_ctx_check_destroyable(&event->ctx, __func__);
		if (err != DOCA_SUCCESS)
			return err;
	}
	bell_unhang(event);
	ferry_ctx_fini(&event->ctx);
	unexport(event); /* importers keep their mappings; no new import */
	if (event->value_imp != NULL)
		ferry_link_import_close(event->value_imp);
	free(event->blob);
	if (event->imp != NULL)
		ferry_link_import_close(event->imp);
	else
		(void)ferry_mem_free_shared(event->shm);
	free(event);
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_remote_net_destroy(struct doca_sync_event_remote_net *event)
{
	const void *imp;
	uint64_t addr;

	if (!ferry_sync_event_remote_net_view(event, __func__, &imp, &addr))
		return DOCA_ERROR_INVALID_VALUE;
	/* Made by a registered transport: ops cannot be NULL here. */
	ferry_mmap_rdma_ops_get()->import_close(event->imp);
	event->magic = 0;
	free(event);
	return DOCA_SUCCESS;
}

/* ---- locations, storage ---- */

static doca_error_t add_location(struct doca_sync_event *ev, uint32_t *locs, uint32_t loc, const char *call)
{
	doca_error_t err = check_configurable(ev, call);

	if (err != DOCA_SUCCESS)
		return err;
	*locs |= loc;
	return DOCA_SUCCESS;
}

static doca_error_t cpu_location(struct doca_sync_event *ev, struct doca_dev *dev, bool publisher, const char *call)
{
	if (ev == NULL || dev == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL", ev == NULL ? "event" : "dev");
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device", (void *)dev);
	return add_location(ev, publisher ? &ev->pub_locs : &ev->sub_locs, SE_LOC_CPU, call);
}

static doca_error_t no_location(const struct doca_sync_event *ev, const void *unit, const char *call, const char *what)
{
	if (ev == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "event is NULL");
	(void)unit;
	return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED, "sync event %p: %s", (const void *)ev, what);
}

#define NO_DPA "Ferry emulates no DPA; events live in CPU memory"
#define NO_GPU "Ferry emulates no GPU; events live in CPU memory"

doca_error_t doca_sync_event_add_publisher_location_cpu(struct doca_sync_event *event, struct doca_dev *dev)
{
	return cpu_location(event, dev, true, __func__);
}

doca_error_t doca_sync_event_add_publisher_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa)
{
	return no_location(event, dpa, __func__, NO_DPA);
}

doca_error_t doca_sync_event_add_publisher_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu)
{
	return no_location(event, gpu, __func__, NO_GPU);
}

doca_error_t doca_sync_event_add_publisher_location_remote_pci(struct doca_sync_event *event)
{
	if (event == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "event is NULL");
	return add_location(event, &event->pub_locs, SE_LOC_REMOTE_PCI, __func__);
}

doca_error_t doca_sync_event_add_publisher_location_remote_net(struct doca_sync_event *event)
{
	if (event == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "event is NULL");
	return add_location(event, &event->pub_locs, SE_LOC_REMOTE_NET, __func__);
}

doca_error_t doca_sync_event_add_subscriber_location_cpu(struct doca_sync_event *event, struct doca_dev *dev)
{
	return cpu_location(event, dev, false, __func__);
}

doca_error_t doca_sync_event_add_subscriber_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa)
{
	return no_location(event, dpa, __func__, NO_DPA);
}

doca_error_t doca_sync_event_add_subscriber_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu)
{
	return no_location(event, gpu, __func__, NO_GPU);
}

doca_error_t doca_sync_event_add_subscriber_location_remote_pci(struct doca_sync_event *event)
{
	if (event == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "event is NULL");
	return add_location(event, &event->sub_locs, SE_LOC_REMOTE_PCI, __func__);
}

static doca_error_t use_storage(struct doca_sync_event *ev, uint64_t *addr, const char *call)
{
	if (((uintptr_t)addr & (sizeof(uint64_t) - 1)) != 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "sync event %p: %p is not 8-byte aligned (atomic updates need it)", (void *)ev,
				     (void *)addr);
	if (ev->exp != NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "sync event %p was exported already; its value stays where the peer sees it",
				     (void *)ev);
	ev->value = addr;
	ev->user_storage = true;
	ev->storage_from_buf = false;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_set_addr(struct doca_sync_event *event, uint64_t *addr)
{
	doca_error_t err = check_configurable(event, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	FERRY_ARG_NOT_NULL(addr);
	return use_storage(event, addr, __func__);
}

doca_error_t doca_sync_event_set_doca_buf(struct doca_sync_event *event, struct doca_buf *buf)
{
	doca_error_t err = check_configurable(event, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	FERRY_ARG_NOT_NULL(buf);
	if (buf->refcount == 0 || !buf->is_head || buf->list_len != 1)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "buf %p must be a single buf in use (no list)",
				  (void *)buf);
	if (buf->data == NULL || buf->data_len != sizeof(uint64_t))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "buf %p: the data segment must be exactly 8 bytes, not %zu",
				  (void *)buf, buf->data_len);
	if (buf->mmap == NULL || (buf->mmap->access & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) == 0)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "buf %p: its mmap does not grant local read-write",
				  (void *)buf);
	err = use_storage(event, (uint64_t *)buf->data, __func__);
	if (err == DOCA_SUCCESS) {
		event->storage_from_buf = true;
		event->storage_access = buf->mmap->access;
	}
	return err;
}

/* ---- modes ---- */

doca_error_t doca_sync_event_start(struct doca_sync_event *event)
{
	FERRY_ARG_NOT_NULL(event);
	if (event->mode == SE_MODE_CTX)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE,
				  "sync event %p is used as a context; start it with doca_ctx_start", (void *)event);
	if (event->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "sync event %p is already started", (void *)event);
	event->mode = SE_MODE_STANDALONE;
	event->started = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_stop(struct doca_sync_event *event)
{
	FERRY_ARG_NOT_NULL(event);
	if (event->mode == SE_MODE_CTX)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE,
				  "sync event %p is used as a context; stop it with doca_ctx_stop", (void *)event);
	if (!event->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "sync event %p is not started", (void *)event);
	event->started = false;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_sync_event_as_ctx(struct doca_sync_event *event)
{
	if (event == NULL) {
		FERRY_ERR("%s: event is NULL", __func__);
		return NULL;
	}
	if (event->mode == SE_MODE_STANDALONE) {
		FERRY_ERR("%s: sync event %p was started with doca_sync_event_start; it cannot become a context",
			  __func__, (void *)event);
		return NULL;
	}
	event->mode = SE_MODE_CTX;
	return &event->ctx;
}

/* ---- export ---- */

/*
 * Caller storage is exported on its own: its 8 bytes must lie in shareable
 * memory (ferry_mem_alloc_shared), and a buf's mmap must grant PCI read-write.
 */
static doca_error_t export_storage(struct doca_sync_event *ev, uint32_t machine, const char *call)
{
	void *base;
	int fd;

	if (ev->storage_from_buf && (ev->storage_access & DOCA_ACCESS_FLAG_PCI_READ_WRITE) == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "sync event %p: the value's buf is in an mmap without "
				     "DOCA_ACCESS_FLAG_PCI_READ_WRITE",
				     (void *)ev);
	if (ferry_shm_lookup(ev->value, sizeof(uint64_t), &fd, &base) != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				     "sync event %p keeps its value at %p, which another process cannot map; allocate "
				     "it with ferry_mem_alloc_shared",
				     (void *)ev, (void *)ev->value);
	close(fd);
	return ferry_link_export_open(ev->value, sizeof(uint64_t), DOCA_ACCESS_FLAG_PCI_READ_WRITE, machine, NULL, call,
				      &ev->value_exp);
}

static void unexport_net(struct doca_sync_event *ev)
{
	if (ev->net_exp != NULL)
		ferry_mmap_rdma_ops_get()->unexport(ev->net_exp);
	ev->net_exp = NULL;
	free(ev->net_blob);
	ev->net_blob = NULL;
}

static void unexport(struct doca_sync_event *ev)
{
	unexport_net(ev);
	if (ev->value_exp != NULL)
		ferry_link_export_close(ev->value_exp);
	if (ev->exp != NULL)
		ferry_link_export_close(ev->exp);
	ev->value_exp = NULL;
	ev->exp = NULL;
}

static doca_error_t export_once(struct doca_sync_event *ev, struct doca_dev *dev, const char *call)
{
	uint32_t machine = ferry_devinfo_machine(doca_dev_as_devinfo(dev));
	struct se_desc_parts parts = {NULL, 0, NULL, 0, false};
	const void *p;
	doca_error_t err;
	uint8_t *blob = ferry_malloc(SE_DESC_MAX_LEN);

	if (blob == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "no memory for sync event %p's descriptor",
				     (void *)ev);
	err = ev->user_storage ? export_storage(ev, machine, call) : DOCA_SUCCESS;
	if (err == DOCA_SUCCESS)
		err = ferry_link_export_open(ev->shm, (size_t)sysconf(_SC_PAGESIZE), DOCA_ACCESS_FLAG_PCI_READ_WRITE,
					     machine, NULL, call, &ev->exp);
	if (err == DOCA_SUCCESS) {
		ferry_link_export_desc(ev->exp, &p, &parts.block_len);
		parts.block = p;
		if (ev->value_exp != NULL) {
			ferry_link_export_desc(ev->value_exp, &p, &parts.value_len);
			parts.value = p;
		}
		ev->blob_len = sync_event_desc_encode(&parts, blob, SE_DESC_MAX_LEN);
		if (ev->blob_len == 0)
			err = FERRY_RULE_IN(call, DOCA_ERROR_UNEXPECTED,
					    "sync event %p: memory descriptors of %zu and %zu bytes do not fit",
					    (void *)ev, parts.block_len, parts.value_len);
	}
	if (err != DOCA_SUCCESS) {
		unexport(ev);
		free(blob);
		return err;
	}
	ev->blob = blob;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_export_to_remote_pci(struct doca_sync_event *event, struct doca_dev *dev,
						  const uint8_t **data, size_t *sz)
{
	FERRY_ARG_NOT_NULL(event);
	FERRY_ARG_NOT_NULL(dev);
	FERRY_ARG_NOT_NULL(data);
	FERRY_ARG_NOT_NULL(sz);
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device", (void *)dev);
	if (event->from_export)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
				  "sync event %p was created from an export; only its creator exports it",
				  (void *)event);
	if (event->blob == NULL) {
		doca_error_t err = export_once(event, dev, __func__);

		if (err != DOCA_SUCCESS)
			return err;
	}
	*data = event->blob;
	*sz = event->blob_len;
	return DOCA_SUCCESS;
}

/* A network peer wrote or added to the value (DOCA RDMA's target, rdma_rma.c): wake as an update does. */
static void se_remote_written(void *arg)
{
	se_notify(arg);
}

/* Register the value's 8 bytes with DOCA RDMA and wrap the transport's descriptor in ours. */
static doca_error_t export_net_once(struct doca_sync_event *ev, const struct ferry_mmap_rdma_ops *ops, const char *call)
{
	struct se_desc_parts parts = {NULL, 0, NULL, 0, true};
	const void *desc;
	size_t desc_len;
	doca_error_t err;

	err = ops->export_range(ev->value, sizeof(uint64_t), SE_NET_ACCESS, call, &ev->net_exp, &desc, &desc_len);
	if (err != DOCA_SUCCESS)
		return err;
	ops->set_write_hook(ev->net_exp, se_remote_written, ev);
	parts.block = desc;
	parts.block_len = desc_len;
	ev->net_blob = ferry_malloc(SE_DESC_HDR_LEN + desc_len);
	if (ev->net_blob != NULL)
		ev->net_blob_len = sync_event_desc_encode(&parts, ev->net_blob, SE_DESC_HDR_LEN + desc_len);
	if (ev->net_blob == NULL || ev->net_blob_len == 0) {
		bool no_memory = ev->net_blob == NULL;

		unexport_net(ev);
		return FERRY_RULE_IN(call, no_memory ? DOCA_ERROR_NO_MEMORY : DOCA_ERROR_UNEXPECTED,
				     "sync event %p: no room for its network descriptor (%zu bytes from the transport)",
				     (void *)ev, desc_len);
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_export_to_remote_net(struct doca_sync_event *event, const uint8_t **data, size_t *sz)
{
	const struct ferry_mmap_rdma_ops *ops = ferry_mmap_rdma_ops_get();

	FERRY_ARG_NOT_NULL(event);
	FERRY_ARG_NOT_NULL(data);
	FERRY_ARG_NOT_NULL(sz);
	if (event->from_export)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
				  "sync event %p was created from an export; only its creator exports it",
				  (void *)event);
	if ((event->pub_locs & SE_LOC_REMOTE_NET) == 0)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "sync event %p has no network publisher; call "
				  "doca_sync_event_add_publisher_location_remote_net before it starts",
				  (void *)event);
	if (ops == NULL)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "sync event %p: " NO_NET, (void *)event);
	if (event->net_blob == NULL) {
		doca_error_t err = export_net_once(event, ops, __func__);

		if (err != DOCA_SUCCESS)
			return err;
	}
	*data = event->net_blob;
	*sz = event->net_blob_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_get_dpa_handle(struct doca_sync_event *event, struct doca_dpa *dpa,
					    doca_dpa_dev_sync_event_t *dpa_dev_se_handle)
{
	(void)dpa_dev_se_handle;
	return no_location(event, dpa, __func__, NO_DPA);
}

doca_error_t doca_sync_event_get_gpu_handle(struct doca_sync_event *event, struct doca_gpu *gpu,
					    doca_gpu_dev_sync_event_t **gpu_dev_se)
{
	(void)gpu_dev_se;
	return no_location(event, gpu, __func__, NO_GPU);
}

doca_error_t doca_sync_event_remote_net_get_dpa_handle(struct doca_sync_event_remote_net *event, struct doca_dpa *dpa,
						       doca_dpa_dev_sync_event_remote_net_t *dpa_remote_event)
{
	(void)dpa;
	(void)dpa_remote_event;
	FERRY_ARG_NOT_NULL(event);
	return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, NO_DPA);
}

doca_error_t doca_sync_event_remote_net_get_gpu_handle(struct doca_sync_event_remote_net *event, struct doca_gpu *gpu,
						       doca_gpu_dev_sync_event_remote_net_t *gpu_remote_event)
{
	(void)gpu;
	(void)gpu_remote_event;
	FERRY_ARG_NOT_NULL(event);
	return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, NO_GPU);
}

/* ---- capabilities ---- */

/* Network peers reach events through DOCA RDMA, when the program loaded it. */
static doca_error_t net_supported(void)
{
	return ferry_mmap_rdma_ops_get() != NULL ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

#define SE_CAP(name, answer)                                                        \
	doca_error_t doca_sync_event_cap_##name(const struct doca_devinfo *devinfo) \
	{                                                                           \
		FERRY_ARG_NOT_NULL(devinfo);                                        \
		return answer;                                                      \
	}
SE_CAP(is_create_from_export_supported, DOCA_SUCCESS)
SE_CAP(remote_net_is_create_from_export_supported, net_supported())
SE_CAP(is_export_to_remote_pci_supported, DOCA_SUCCESS)
SE_CAP(is_export_to_remote_net_supported, net_supported())
SE_CAP(is_export_to_dpa_supported, DOCA_ERROR_NOT_SUPPORTED)
SE_CAP(is_export_to_gpu_supported, DOCA_ERROR_NOT_SUPPORTED)
SE_CAP(remote_net_is_export_to_dpa_supported, DOCA_ERROR_NOT_SUPPORTED)
SE_CAP(remote_net_is_export_to_gpu_supported, DOCA_ERROR_NOT_SUPPORTED)
SE_CAP(task_get_is_supported, DOCA_SUCCESS)
SE_CAP(task_notify_set_is_supported, DOCA_SUCCESS)
SE_CAP(task_notify_add_is_supported, DOCA_SUCCESS)
SE_CAP(task_wait_eq_is_supported, DOCA_SUCCESS)
SE_CAP(task_wait_neq_is_supported, DOCA_SUCCESS)

/* ---- synchronous value operations ---- */

doca_error_t doca_sync_event_get(struct doca_sync_event *event, uint64_t *value)
{
	doca_error_t err = check_usable(event, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	FERRY_ARG_NOT_NULL(value);
	*value = value_load(event);
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_update_add(struct doca_sync_event *event, uint64_t value, uint64_t *fetched)
{
	doca_error_t err = check_usable(event, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	FERRY_ARG_NOT_NULL(fetched);
	*fetched = value_add(event, value);
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_update_set(struct doca_sync_event *event, uint64_t value)
{
	doca_error_t err = check_usable(event, __func__);

	if (err != DOCA_SUCCESS)
		return err;
	value_set(event, value);
	return DOCA_SUCCESS;
}

#define SE_WAIT(name, cmp, how)                                                                           \
	doca_error_t doca_sync_event_##name(struct doca_sync_event *event, uint64_t value, uint64_t mask) \
	{                                                                                                 \
		doca_error_t err = check_usable(event, __func__);                                         \
		if (err != DOCA_SUCCESS)                                                                  \
			return err;                                                                       \
		how(event, cmp, value, mask);                                                             \
		return DOCA_SUCCESS;                                                                      \
	}
SE_WAIT(wait_gt, SE_CMP_GT, wait_sleeping)
SE_WAIT(wait_gt_yield, SE_CMP_GT, wait_yielding)
SE_WAIT(wait_eq, SE_CMP_EQ, wait_sleeping)
SE_WAIT(wait_eq_yield, SE_CMP_EQ, wait_yielding)
SE_WAIT(wait_neq, SE_CMP_NEQ, wait_sleeping)
SE_WAIT(wait_neq_yield, SE_CMP_NEQ, wait_yielding)

/* ---- tasks ---- */

static doca_error_t task_set_conf(struct doca_sync_event *ev, enum se_kind kind, bool cbs_set, uint32_t num_tasks,
				  const char *call)
{
	if (ev == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "event is NULL");
	if (!cbs_set)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "sync event %p: the %s completion and error callbacks must not be NULL",
				     (void *)ev, kind_name[kind]);
	if (ev->ctx.state != DOCA_CTX_STATE_IDLE)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "sync event %p's context is %s; task configuration needs IDLE", (void *)ev,
				     ferry_ctx_state_name(ev->ctx.state));
	return ferry_task_pool_configure(&ev->pools[kind], num_tasks, call);
}

static doca_error_t task_alloc(struct doca_sync_event *ev, enum se_kind kind, union doca_data user_data,
			       const char *call, struct se_task **out)
{
	struct doca_task *task;
	doca_error_t err;

	if (ev == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "event is NULL");
	if (ev->mode != SE_MODE_CTX)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "sync event %p is not a context (doca_sync_event_as_ctx, doca_ctx_start)",
				     (void *)ev);
	err = ferry_task_pool_get(&ev->pools[kind], call, &task);
	if (err != DOCA_SUCCESS)
		return err;
	task->user_data = user_data;
	*out = se_task_of(task);
	return DOCA_SUCCESS;
}

#define SE_CONF(X, KIND)                                                                                            \
	doca_error_t doca_sync_event_task_##X##_set_conf(                                                           \
		struct doca_sync_event *event, doca_sync_event_task_##X##_completion_cb_t completion_cb,            \
		doca_sync_event_task_##X##_completion_cb_t error_cb, uint32_t num_tasks)                            \
	{                                                                                                           \
		doca_error_t err = task_set_conf(event, KIND, completion_cb != NULL && error_cb != NULL, num_tasks, \
						 __func__);                                                         \
		if (err == DOCA_SUCCESS) {                                                                          \
			event->ok_cb[KIND].X = completion_cb;                                                       \
			event->err_cb[KIND].X = error_cb;                                                           \
		}                                                                                                   \
		return err;                                                                                         \
	}                                                                                                           \
	struct doca_task *doca_sync_event_task_##X##_as_doca_task(struct doca_sync_event_task_##X *task)            \
	{                                                                                                           \
		return task != NULL ? &task->t.base : NULL;                                                         \
	}
SE_CONF(get, SE_GET)
SE_CONF(notify_set, SE_NOTIFY_SET)
SE_CONF(notify_add, SE_NOTIFY_ADD)
SE_CONF(wait_eq, SE_WAIT_EQ)
SE_CONF(wait_neq, SE_WAIT_NEQ)

doca_error_t doca_sync_event_task_get_alloc_init(struct doca_sync_event *event, uint64_t *ret_val_ptr,
						 union doca_data user_data, struct doca_sync_event_task_get **task)
{
	struct se_task *t;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(ret_val_ptr);
	FERRY_ARG_NOT_NULL(task);
	err = task_alloc(event, SE_GET, user_data, __func__, &t);
	if (err != DOCA_SUCCESS)
		return err;
	t->ptr = ret_val_ptr;
	*task = ferry_container_of(t, struct doca_sync_event_task_get, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_task_notify_set_alloc_init(struct doca_sync_event *event, uint64_t set_val,
							union doca_data user_data,
							struct doca_sync_event_task_notify_set **task)
{
	struct se_task *t;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(task);
	err = task_alloc(event, SE_NOTIFY_SET, user_data, __func__, &t);
	if (err != DOCA_SUCCESS)
		return err;
	t->val = set_val;
	*task = ferry_container_of(t, struct doca_sync_event_task_notify_set, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_task_notify_add_alloc_init(struct doca_sync_event *event, uint64_t inc_val,
							uint64_t *fetched_val_ptr, union doca_data user_data,
							struct doca_sync_event_task_notify_add **task)
{
	struct se_task *t;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(task);
	err = task_alloc(event, SE_NOTIFY_ADD, user_data, __func__, &t);
	if (err != DOCA_SUCCESS)
		return err;
	t->val = inc_val;
	t->ptr = fetched_val_ptr;
	*task = ferry_container_of(t, struct doca_sync_event_task_notify_add, t);
	return DOCA_SUCCESS;
}

static doca_error_t wait_alloc(struct doca_sync_event *ev, enum se_kind kind, uint64_t wait_val, uint64_t mask,
			       union doca_data user_data, const char *call, struct se_task **out)
{
	doca_error_t err;

	if (!mask_is_valid(mask))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "mask 0x%llx is not 0 or the low 1, 2, 4 or 8 bytes set",
				     (unsigned long long)mask);
	err = task_alloc(ev, kind, user_data, call, out);
	if (err != DOCA_SUCCESS)
		return err;
	(*out)->val = wait_val;
	(*out)->mask = mask;
	return DOCA_SUCCESS;
}

doca_error_t doca_sync_event_task_wait_eq_alloc_init(struct doca_sync_event *event, uint64_t wait_val, uint64_t mask,
						     union doca_data user_data,
						     struct doca_sync_event_task_wait_eq **task)
{
	struct se_task *t;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(task);
	err = wait_alloc(event, SE_WAIT_EQ, wait_val, mask, user_data, __func__, &t);
	if (err == DOCA_SUCCESS)
		*task = ferry_container_of(t, struct doca_sync_event_task_wait_eq, t);
	return err;
}

doca_error_t doca_sync_event_task_wait_neq_alloc_init(struct doca_sync_event *event, uint64_t wait_val, uint64_t mask,
						      union doca_data user_data,
						      struct doca_sync_event_task_wait_neq **task)
{
	struct se_task *t;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(task);
	err = wait_alloc(event, SE_WAIT_NEQ, wait_val, mask, user_data, __func__, &t);
	if (err == DOCA_SUCCESS)
		*task = ferry_container_of(t, struct doca_sync_event_task_wait_neq, t);
	return err;
}

/* Accessors: a NULL task is logged and ignored (setters) or reads as 0 / NULL (getters). */
#define SE_SETTER(X, field, type, member)                                                          \
	void doca_sync_event_task_##X##_set_##field(struct doca_sync_event_task_##X *task, type v) \
	{                                                                                          \
		if (task == NULL) {                                                                \
			FERRY_ERR("%s: task is NULL", __func__);                                   \
			return;                                                                    \
		}                                                                                  \
		task->t.member = v;                                                                \
	}
#define SE_GETTER(X, field, type, member)                                                        \
	type doca_sync_event_task_##X##_get_##field(const struct doca_sync_event_task_##X *task) \
	{                                                                                        \
		if (task == NULL) {                                                              \
			FERRY_ERR("%s: task is NULL", __func__);                                 \
			return 0;                                                                \
		}                                                                                \
		return task->t.member;                                                           \
	}
SE_SETTER(get, ret_val_ptr, uint64_t *, ptr)
SE_GETTER(get, ret_val_ptr, uint64_t *, ptr)
SE_SETTER(notify_set, set_val, uint64_t, val)
SE_GETTER(notify_set, set_val, uint64_t, val)
SE_SETTER(notify_add, inc_val, uint64_t, val)
SE_GETTER(notify_add, inc_val, uint64_t, val)
SE_SETTER(notify_add, fetched_val_ptr, uint64_t *, ptr)
SE_GETTER(notify_add, fetched_val_ptr, uint64_t *, ptr)
SE_SETTER(wait_eq, wait_val, uint64_t, val)
SE_GETTER(wait_eq, wait_val, uint64_t, val)
SE_SETTER(wait_eq, mask, uint64_t, mask)
SE_GETTER(wait_eq, mask, uint64_t, mask)
SE_SETTER(wait_neq, wait_val, uint64_t, val)
SE_GETTER(wait_neq, wait_val, uint64_t, val)
SE_SETTER(wait_neq, mask, uint64_t, mask)
SE_GETTER(wait_neq, mask, uint64_t, mask)
