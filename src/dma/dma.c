/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma.c - DOCA DMA: the DMA context type and its memcpy task, on Ferry's copy
 * engines.
 *
 * Call order (see ferry_ctx.h for the generic half):
 *   doca_dma_create -> doca_dma_task_memcpy_set_conf -> doca_ctx_start
 *     (dma_start opens the engine channel and the cross-process one, see
 *     dma_priv.h) -> alloc_init -> doca_task_submit (dma_submit validates and
 *     enqueues, never completes) -> doca_pe_progress (dma_progress polls the
 *     channels in use and completes tasks) -> doca_ctx_stop (dma_stop cancels
 *     them; flushed tasks come back through progress with
 *     DOCA_ERROR_IO_FAILED) -> IDLE (dma_stopped closes the channels)
 *     -> doca_dma_destroy.
 *
 * The data-segment rules live in include/doca_dma.h; dma_priv.h explains how a
 * task is cut into descriptors and why there is a backlog.
 *
 * Hot path (submit + progress): no allocation, no lock, no log line unless a
 * rule is broken. Bufs and mmaps are read through ferry_mem.h's inline readers,
 * not the public getters: those calls were about half the cost of a small task.
 * The calls out left are the liveness of an imported map, the channel and the
 * user's callback.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_dev.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_memview.h"
#include "dma/dma_priv.h"
#include "link/ferry_access.h"

FERRY_LOG_MODULE("dma");

/* Completions taken from the channel per poll call. */
#define DMA_POLL_BATCH          64u
/* Ring slots beyond this many tasks are not worth their memory: the backlog covers the rest. */
#define DMA_CHAN_TASK_SLOTS_MAX (1u << 16)

static inline struct doca_dma *dma_of_ctx(struct doca_ctx *ctx)
{
	return ferry_container_of(ctx, struct doca_dma, ctx);
}

static inline struct doca_dma *dma_of_task(const struct doca_dma_task_memcpy *task)
{
	return dma_of_ctx(task->base.ctx);
}

/*
 * The access path a buf's bytes are reached through, chosen when its mmap was
 * imported: NULL when they are mapped here (this process's memory, a shared
 * mapping), so only copies that need a path carry one.
 */
static inline const struct ferry_access *buf_access(const struct doca_buf *buf)
{
	const struct doca_mmap *mmap = ferry_buf_mmap(buf);
	const struct ferry_access *a;

	if (!ferry_mmap_is_import(mmap))
		return NULL;
	a = ferry_mmap_access_path(mmap);
	return ferry_access_mapped(a) ? NULL : a;
}

/* ---- task lists (core's, on doca_task.next) ---- */

static inline struct doca_dma_task_memcpy *task_of(struct doca_task *base)
{
	return base == NULL ? NULL : ferry_container_of(base, struct doca_dma_task_memcpy, base);
}

static inline void list_push(struct ferry_task_list *list, struct doca_dma_task_memcpy *task)
{
	ferry_task_list_push(list, &task->base);
}

static inline struct doca_dma_task_memcpy *list_pop(struct ferry_task_list *list)
{
	return task_of(ferry_task_list_pop(list));
}

/* ---- segments ---- */

/* The source side of a buf: its data segment. */
static inline void src_segment(const struct doca_buf *buf, const uint8_t **ptr, size_t *len)
{
	*ptr = ferry_buf_data(buf);
	*len = ferry_buf_data_len(buf);
}

/* The destination side of a buf: the free space after its data segment. */
static inline void dst_segment(const struct doca_buf *buf, uint8_t **ptr, size_t *room)
{
	*ptr = ferry_buf_data_end(buf);
	*room = ferry_buf_room_after_data(buf);
}

/* ---- validation (submit) ---- */

#define DMA_WRITE_FLAGS \
	(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE)

/*
 * The rules a buf of a task meets, as one predicate without a log line: the
 * common case stays a few loads and compares, with no registers saved for
 * the reporting below. Counts one use of a map a fault plan watches.
 */
static inline bool mmap_serves(const struct doca_dma *dma, const struct doca_buf *buf, bool need_write)
{
	const struct doca_mmap *mmap = ferry_buf_mmap(buf);

	return mmap != NULL && ferry_mmap_task_may_use(mmap) && ferry_mmap_rdma_import(mmap) == NULL &&
	       ferry_mmap_has_dev(mmap, dma->ctx.dev) &&
	       (!need_write || (ferry_mmap_access(mmap) & DMA_WRITE_FLAGS) != 0);
}

/*
 * Which rule a buf that mmap_serves refused breaks, and its line. It asks
 * again without counting a use: the refused use was counted already.
 */
static __attribute__((cold, noinline)) doca_error_t mmap_refusal(const struct doca_dma *dma,
								 const struct doca_dma_task_memcpy *task,
								 const struct doca_buf *buf, const char *side,
								 bool need_write)
{
	const struct doca_mmap *mmap = ferry_buf_mmap(buf);

	if (mmap == NULL || !ferry_mmap_is_usable(mmap) || (mmap->fault != NULL && ferry_mmap_fault_revoked(mmap)))
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_BAD_STATE,
				     "dma memcpy task %p: %s buf %p belongs to an mmap that is not "
				     "started or no longer valid",
				     (const void *)task, side, (const void *)buf);
	if (ferry_mmap_rdma_import(mmap) != NULL)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_NOT_SUPPORTED,
				     "dma memcpy task %p: %s buf %p belongs to mmap %p, imported from an RDMA "
				     "export: only DOCA RDMA tasks reach that memory",
				     (const void *)task, side, (const void *)buf, (const void *)mmap);
	if (!ferry_mmap_has_dev(mmap, dma->ctx.dev))
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "dma memcpy task %p: %s buf %p: device %s was not added to its "
				     "mmap %p (doca_mmap_add_dev)",
				     (const void *)task, side, (const void *)buf, ferry_dev_name(dma->ctx.dev),
				     (const void *)mmap);
	if (need_write && (ferry_mmap_access(mmap) & DMA_WRITE_FLAGS) == 0)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_NOT_PERMITTED,
				     "dma memcpy task %p: destination buf %p: mmap %p is read-only; a "
				     "destination needs DOCA_ACCESS_FLAG_LOCAL_READ_WRITE",
				     (const void *)task, (const void *)buf, (const void *)mmap);
	/* Usable again by now (a liveness answer that changed since): refused all the same. */
	return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_BAD_STATE,
			     "dma memcpy task %p: %s buf %p belongs to an mmap that was not usable at submit",
			     (const void *)task, side, (const void *)buf);
}

static inline doca_error_t check_mmap(const struct doca_dma *dma, const struct doca_dma_task_memcpy *task,
				      const struct doca_buf *buf, const char *side, bool need_write)
{
	doca_error_t err;

	if (__builtin_expect(mmap_serves(dma, buf, need_write), 1))
		return DOCA_SUCCESS;
	err = mmap_refusal(dma, task, buf, side, need_write);
	return err != DOCA_SUCCESS ? err : DOCA_ERROR_BAD_STATE; /* never SUCCESS: what the compiler cannot see */
}

/* The bytes the task copies: all of its source data. */
static doca_error_t check_total(const struct doca_dma *dma, struct doca_dma_task_memcpy *task, uint64_t total)
{
	if (total == 0) {
		/*
		 * DOCA accepts an empty source at submit and the hardware fails the
		 * copy: the task completes with an error through progress and the
		 * context stops (DOCA's pe_task_error sample depends on exactly
		 * this), so the rule is reported here and enforced at completion.
		 */
		FERRY_ERR("doca_task_submit: dma memcpy task %p: source buf %p has no data (data_len 0; set it with "
			  "doca_buf_set_data); the task will fail and stop the context",
			  (void *)task, (const void *)task->src);
		task->first_error = DOCA_ERROR_INVALID_VALUE;
	}
	if (total > dma->caps->max_buf_size)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "dma memcpy task %p: copies %llu bytes, above the device limit of %llu",
				     (void *)task, (unsigned long long)total,
				     (unsigned long long)dma->caps->max_buf_size);
	task->total = total;
	return DOCA_SUCCESS;
}

/* The destination's free space (after its data) must hold the whole source. */
static doca_error_t check_room(const struct doca_dma_task_memcpy *task, uint64_t room_total)
{
	if (room_total < task->total)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "dma memcpy task %p: destination has %llu free bytes after its "
				     "data; the source holds %llu",
				     (const void *)task, (unsigned long long)room_total,
				     (unsigned long long)task->total);
	return DOCA_SUCCESS;
}

/*
 * Walk one side's list: its length and every mmap. @p bytes gets what the side
 * offers the copy: the source's data, or the destination's free space.
 */
static doca_error_t check_list(const struct doca_dma *dma, struct doca_dma_task_memcpy *task,
			       const struct doca_buf *head, bool is_dst, uint64_t *bytes)
{
	const char *side = is_dst ? "destination" : "source";
	uint32_t count = 0;
	uint64_t sum = 0;

	for (const struct doca_buf *buf = head; buf != NULL; buf = ferry_buf_next(buf)) {
		doca_error_t err;

		if (++count > dma->caps->max_buf_list_len)
			return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
					     "dma memcpy task %p: %s list is longer than the device "
					     "limit of %u bufs",
					     (void *)task, side, dma->caps->max_buf_list_len);
		err = check_mmap(dma, task, buf, side, is_dst);
		if (err != DOCA_SUCCESS)
			return err;
		task->cross_process |= buf_access(buf) != NULL;
		sum += is_dst ? ferry_buf_room_after_data(buf) : ferry_buf_data_len(buf);
	}
	*bytes = sum;
	return DOCA_SUCCESS;
}

/* The segments of a task of one source buf and one destination buf. */
struct dma_pair {
	const uint8_t *src;
	size_t len; /* the source data: the whole copy */
	uint8_t *dst;
	size_t room;
};

static inline bool task_is_pair(const struct doca_dma_task_memcpy *task)
{
	return ferry_buf_next(task->src) == NULL && ferry_buf_next(task->dst) == NULL;
}

/*
 * The common task, a pair: the same checks in the same order (so the same
 * first error and line) as the list walks, without their loops, and the
 * segments left in @p pair rather than in the task (see submit_pair).
 */
static doca_error_t check_pair(const struct doca_dma *dma, struct doca_dma_task_memcpy *task, struct dma_pair *pair)
{
	const struct doca_buf *src = task->src;
	const struct doca_buf *dst = task->dst;
	doca_error_t err;

	err = check_mmap(dma, task, src, "source", false);
	if (err != DOCA_SUCCESS)
		return err;
	src_segment(src, &pair->src, &pair->len);
	err = check_total(dma, task, pair->len);
	if (err != DOCA_SUCCESS)
		return err;
	err = check_mmap(dma, task, dst, "destination", true);
	if (err != DOCA_SUCCESS)
		return err;
	dst_segment(dst, &pair->dst, &pair->room);
	task->dst_is_list = false;
	task->cross_process = buf_access(src) != NULL || buf_access(dst) != NULL;
	return check_room(task, pair->room);
}

/* A task of lists: the walk starts at the first source and destination segments. */
static doca_error_t check_lists(const struct doca_dma *dma, struct doca_dma_task_memcpy *task)
{
	uint64_t total;
	uint64_t room_total;
	doca_error_t err;

	err = check_list(dma, task, task->src, false, &total);
	if (err != DOCA_SUCCESS)
		return err;
	err = check_total(dma, task, total);
	if (err != DOCA_SUCCESS)
		return err;
	err = check_list(dma, task, task->dst, true, &room_total);
	if (err != DOCA_SUCCESS)
		return err;
	task->dst_is_list = ferry_buf_next(task->dst) != NULL;
	src_segment(task->src, &task->src_ptr, &task->src_avail);
	dst_segment(task->dst, &task->dst_ptr, &task->dst_avail);
	return check_room(task, room_total);
}

static doca_error_t check_bufs_set(const struct doca_dma_task_memcpy *task)
{
	if (task->src == NULL || task->dst == NULL)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "dma memcpy task %p has no %s buf (doca_dma_task_memcpy_set_%s)",
				     (const void *)task, task->src == NULL ? "source" : "destination",
				     task->src == NULL ? "src" : "dst");
	return DOCA_SUCCESS;
}

/* ---- descriptors ---- */

/* The task completes from progress with the engine's reason. */
static void engine_refused(struct doca_dma_task_memcpy *task, size_t len, doca_error_t err)
{
	FERRY_ERR("doca_task_submit: dma memcpy task %p: engine refused a copy of %zu bytes: %s", (void *)task, len,
		  doca_error_get_name(err));
	task->first_error = err;
}

/* The channel of a task's descriptors. */
static inline struct ferry_chan *chan_of(struct doca_dma *dma, const struct doca_dma_task_memcpy *task)
{
	if (task->cross_process) {
		dma->chans_used = FERRY_DMA_CHANS;
		return dma->chans[FERRY_DMA_CHAN_CROSS];
	}
	return dma->chans[FERRY_DMA_CHAN_LOCAL];
}

/* One descriptor between bufs @p src and @p dst: with their access paths when the task crosses processes. */
static inline doca_error_t enqueue_desc(struct ferry_chan *chan, const struct doca_dma_task_memcpy *task,
					const struct ferry_copy_desc *desc, const struct doca_buf *src,
					const struct doca_buf *dst)
{
	struct ferry_copy_xdesc x;

	if (!task->cross_process)
		return ferry_chan_enqueue(chan, desc);
	x.desc = *desc;
	x.src_access = buf_access(src);
	x.dst_access = buf_access(dst);
	return ferry_chan_enqueue_cross(chan, &x);
}

/*
 * Enqueue the rest of the task's walk. Returns false when the channel is full
 * (the walk stays where it stopped); true once every descriptor is enqueued or
 * the engine refused the task for good (first_error then says why).
 */
static bool enqueue_walk(struct doca_dma *dma, struct doca_dma_task_memcpy *task)
{
	struct ferry_chan *chan = chan_of(dma, task);

	while (task->left > 0) {
		struct ferry_copy_desc desc;
		doca_error_t err;

		/* Chained bufs may hold empty segments: skip them. */
		while (task->src_avail == 0) {
			task->cur_src = ferry_buf_next(task->cur_src);
			src_segment(task->cur_src, &task->src_ptr, &task->src_avail);
		}
		while (task->dst_avail == 0) {
			task->cur_dst = ferry_buf_next(task->cur_dst);
			dst_segment(task->cur_dst, &task->dst_ptr, &task->dst_avail);
		}
		desc.dst = task->dst_ptr;
		desc.src = task->src_ptr;
		desc.len = task->src_avail < task->dst_avail ? task->src_avail : task->dst_avail;
		if (desc.len > task->left)
			desc.len = (size_t)task->left;
		desc.cookie = (uint64_t)(uintptr_t)task;
		err = enqueue_desc(chan, task, &desc, task->cur_src, task->cur_dst);
		if (err == DOCA_ERROR_AGAIN)
			return false;
		if (err != DOCA_SUCCESS) {
			engine_refused(task, desc.len, err);
			break;
		}
		task->outstanding++;
		task->src_ptr += desc.len;
		task->src_avail -= desc.len;
		task->dst_ptr += desc.len;
		task->dst_avail -= desc.len;
		task->left -= desc.len;
	}
	task->all_enqueued = true;
	return true;
}

/* A fully enqueued task with nothing to poll (the engine refused it) completes from progress. */
static inline void park_if_unpolled(struct doca_dma *dma, struct doca_dma_task_memcpy *task)
{
	if (task->outstanding == 0)
		list_push(&dma->done, task);
}

/* Move backlog tasks into the channel, oldest first. True when anything was enqueued. */
static bool drain_backlog(struct doca_dma *dma)
{
	bool moved = false;

	while (dma->backlog.head != NULL) {
		struct doca_dma_task_memcpy *task = task_of(dma->backlog.head);
		uint32_t before = task->outstanding;
		bool done;

		if (task->base.orphaned) {
			/*
			 * Freed by the program in flight: copy no more of it (its bufs
			 * may be gone). No error either: it has no callback, and it must
			 * not stop the context.
			 */
			(void)list_pop(&dma->backlog);
			task->all_enqueued = true;
			park_if_unpolled(dma, task);
			continue;
		}
		done = enqueue_walk(dma, task);

		moved |= task->outstanding != before;
		if (!done)
			break;
		(void)list_pop(&dma->backlog);
		park_if_unpolled(dma, task);
	}
	return moved;
}

/* ---- completion (progress only) ---- */

/* On success the copied bytes join the destination data segments. */
static void commit_dst(struct doca_dma_task_memcpy *task)
{
	uint64_t left = task->total;

	if (!task->dst_is_list) {
		/* The destination is the task's until completion: its data_len is as submit saw it. */
		ferry_buf_set_data_len_trusted(task->dst, ferry_buf_data_len(task->dst) + task->total);
		return;
	}
	for (struct doca_buf *buf = task->dst; buf != NULL && left > 0; buf = ferry_buf_next(buf)) {
		size_t room = ferry_buf_room_after_data(buf);
		size_t take = room < left ? room : (size_t)left;

		if (take == 0)
			continue;
		ferry_buf_set_data_len_trusted(buf, ferry_buf_data_len(buf) + take);
		left -= take;
	}
}

static void finish_task(struct doca_dma_task_memcpy *task)
{
	doca_error_t status = task->first_error;

	if (status != DOCA_SUCCESS)
		ferry_ctx_fail(task->base.ctx, status); /* a failed copy stops the context, as DOCA's DMA does */
	else if (!task->base.orphaned)
		commit_dst(task); /* an orphan's bufs are no longer the task's: the program may have freed them */
	ferry_task_complete(&task->base, status);
}

static uint32_t complete_done_list(struct doca_dma *dma)
{
	uint32_t n = 0;
	struct doca_dma_task_memcpy *task;

	while ((task = list_pop(&dma->done)) != NULL) {
		finish_task(task);
		n++;
	}
	return n;
}

/* After a stop, tasks still waiting for room will never be enqueued. */
static void flush_backlog(struct doca_dma *dma)
{
	struct doca_dma_task_memcpy *task;

	while ((task = list_pop(&dma->backlog)) != NULL) {
		if (task->first_error == DOCA_SUCCESS)
			task->first_error = DOCA_ERROR_IO_FAILED;
		task->all_enqueued = true;
		if (task->outstanding == 0)
			list_push(&dma->done, task);
		/* else: its enqueued descriptors come back cancelled and complete it */
	}
}

/* Take one batch of completions from @p chan and finish the tasks they end. */
static uint32_t poll_chan(struct ferry_chan *chan)
{
	struct ferry_copy_cpl cpl[DMA_POLL_BATCH];
	uint32_t delivered = 0;
	uint32_t n = ferry_chan_poll(chan, cpl, DMA_POLL_BATCH);

	for (uint32_t i = 0; i < n; i++) {
		struct doca_dma_task_memcpy *task = (struct doca_dma_task_memcpy *)(uintptr_t)cpl[i].cookie;

		if (cpl[i].status != DOCA_SUCCESS && task->first_error == DOCA_SUCCESS)
			task->first_error = cpl[i].status;
		if (--task->outstanding == 0 && task->all_enqueued) {
			/* The callback may resubmit this very task; nothing below touches it. */
			finish_task(task);
			delivered++;
		}
	}
	return delivered;
}

static void ring_doorbells(struct doca_dma *dma)
{
	for (uint32_t i = 0; i < dma->chans_used; i++)
		ferry_chan_doorbell(dma->chans[i]);
}

static uint32_t dma_progress(struct doca_ctx *ctx)
{
	struct doca_dma *dma = dma_of_ctx(ctx);
	uint32_t delivered = 0;

	if (dma->chans_used == 0)
		return 0;
	dma->in_progress = true;
	/*
	 * chans_used is read again after each poll: a callback may have put a task
	 * on the cross-process channel, or stopped the context with nothing in
	 * flight, which closed the channels (chans_used 0).
	 */
	for (uint32_t i = 0; i < dma->chans_used; i++)
		delivered += poll_chan(dma->chans[i]);
	if (dma->flushing)
		flush_backlog(dma);
	else if (dma->backlog.head != NULL && drain_backlog(dma))
		dma->doorbell_due = true;
	delivered += complete_done_list(dma);
	dma->in_progress = false;
	/* One doorbell for everything the callbacks resubmitted: the engine sees a batch. */
	if (dma->doorbell_due)
		ring_doorbells(dma);
	dma->doorbell_due = false;
	return delivered;
}

static bool dma_has_pending(struct doca_ctx *ctx)
{
	struct doca_dma *dma = dma_of_ctx(ctx);

	if (dma->done.head != NULL || (dma->flushing && dma->backlog.head != NULL))
		return true;
	for (uint32_t i = 0; i < dma->chans_used; i++)
		if (ferry_chan_ready(dma->chans[i]))
			return true;
	return false;
}

/* ---- context ops ---- */

static void dma_notify(void *arg)
{
	ferry_pe_wake((struct doca_pe *)arg);
}

static void close_chans(struct doca_dma *dma)
{
	for (uint32_t i = 0; i < FERRY_DMA_CHANS; i++) {
		if (dma->chans[i] != NULL)
			ferry_chan_close(dma->chans[i]);
		dma->chans[i] = NULL;
	}
	dma->chans_used = 0;
}

static doca_error_t dma_start(struct doca_ctx *ctx)
{
	struct doca_dma *dma = dma_of_ctx(ctx);
	uint32_t task_slots = dma->pool.capacity;
	struct ferry_chan_cfg cfg;
	doca_error_t err;

	if (dma->pool.capacity == 0)
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_BAD_STATE,
				     "dma %p: memcpy tasks are not configured (doca_dma_task_memcpy_set_conf)",
				     (void *)dma);
	if (task_slots > DMA_CHAN_TASK_SLOTS_MAX)
		task_slots = DMA_CHAN_TASK_SLOTS_MAX;
	memset(&cfg, 0, sizeof(cfg));
	cfg.kind = dma->engine;
	/* Every task's first descriptor, plus one whole task of the longest lists. */
	cfg.depth = task_slots + 2 * dma->caps->max_buf_list_len;
	cfg.notify = dma_notify;
	cfg.notify_arg = ctx->pe;
	err = ferry_chan_open(&cfg, &dma->chans[FERRY_DMA_CHAN_LOCAL]);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN("doca_ctx_start", err, "dma %p: cannot open a %s copy channel of depth %u: %s",
				     (void *)dma, ferry_engine_kind_name(cfg.kind), cfg.depth,
				     doca_error_get_name(err));
	/* Tasks on memory of another process copy through cross-memory attach: inline only. */
	cfg.kind = FERRY_ENGINE_INLINE;
	cfg.cross_process = true;
	err = ferry_chan_open(&cfg, &dma->chans[FERRY_DMA_CHAN_CROSS]);
	if (err != DOCA_SUCCESS) {
		close_chans(dma);
		return FERRY_RULE_IN("doca_ctx_start", err, "dma %p: cannot open the cross-process copy channel: %s",
				     (void *)dma, doca_error_get_name(err));
	}
	dma->backlog.head = dma->backlog.tail = NULL;
	dma->done.head = dma->done.tail = NULL;
	dma->flushing = false;
	dma->chans_used = 1;
	return DOCA_SUCCESS;
}

static void dma_stop(struct doca_ctx *ctx)
{
	struct doca_dma *dma = dma_of_ctx(ctx);

	dma->flushing = true;
	for (uint32_t i = 0; i < dma->chans_used; i++)
		ferry_chan_cancel(dma->chans[i]);
	/* Completions are delivered by progress, never from here. */
}

static void dma_stopped(struct doca_ctx *ctx)
{
	struct doca_dma *dma = dma_of_ctx(ctx);

	close_chans(dma);
	dma->flushing = false;
}

/* A checked task whose walk starts at src_ptr/dst_ptr: enqueue what fits, the rest waits in the backlog. */
static void submit_walk(struct doca_dma *dma, struct doca_dma_task_memcpy *task)
{
	task->left = task->total;
	task->cur_src = (struct doca_buf *)(uintptr_t)task->src;
	task->cur_dst = task->dst;
	task->outstanding = 0;
	task->all_enqueued = false;
	/* Keep submission order: behind a backlog, wait in it. */
	if (dma->backlog.head != NULL || !enqueue_walk(dma, task))
		list_push(&dma->backlog, task);
	else
		park_if_unpolled(dma, task);
}

/*
 * A pair with data and an empty backlog is one descriptor, enqueued from the
 * checked segments without the walk's state in the task. Why: at 4 KiB and
 * more, the copy rung just before this left the store buffer full of lines on
 * their way to memory, and each store of submit waits for one of them to
 * drain; every store saved here is measurable. False when the general path
 * must take the task (nothing to copy, channel full, a backlog to stay behind).
 */
static bool submit_pair(struct doca_dma *dma, struct doca_dma_task_memcpy *task, const struct dma_pair *pair)
{
	struct ferry_copy_desc desc;
	doca_error_t err;

	if (pair->len == 0 || dma->backlog.head != NULL)
		return false;
	desc.dst = pair->dst;
	desc.src = pair->src;
	desc.len = pair->len;
	desc.cookie = (uint64_t)(uintptr_t)task;
	err = enqueue_desc(chan_of(dma, task), task, &desc, task->src, task->dst);
	if (err == DOCA_ERROR_AGAIN)
		return false;
	task->all_enqueued = true;
	if (err != DOCA_SUCCESS) {
		engine_refused(task, desc.len, err);
		task->outstanding = 0;
		list_push(&dma->done, task);
		return true;
	}
	task->outstanding = 1;
	return true;
}

static doca_error_t dma_submit(struct doca_task *base)
{
	struct doca_dma_task_memcpy *task = task_of(base);
	struct doca_dma *dma = dma_of_task(task);
	struct dma_pair pair;
	doca_error_t err;

	task->first_error = DOCA_SUCCESS;
	task->cross_process = false;
	err = check_bufs_set(task);
	if (err != DOCA_SUCCESS)
		return err;
	if (!task_is_pair(task)) {
		err = check_lists(dma, task);
		if (err != DOCA_SUCCESS)
			return err;
		submit_walk(dma, task);
		return DOCA_SUCCESS;
	}
	err = check_pair(dma, task, &pair);
	if (err != DOCA_SUCCESS)
		return err;
	if (!submit_pair(dma, task, &pair)) {
		/* The general path from here: the walk starts at the pair's segments. */
		task->src_ptr = pair.src;
		task->src_avail = pair.len;
		task->dst_ptr = pair.dst;
		task->dst_avail = pair.room;
		submit_walk(dma, task);
	}
	return DOCA_SUCCESS;
}

/*
 * Inside progress (a callback resubmitting its task) the doorbell waits for the
 * end of the progress call, so a window of resubmits is rung once; the tasks
 * still reach the engine before doca_pe_progress returns.
 */
static void dma_flush(struct doca_ctx *ctx)
{
	struct doca_dma *dma = dma_of_ctx(ctx);

	if (dma->chans_used == 0)
		return;
	if (dma->in_progress)
		dma->doorbell_due = true;
	else
		ring_doorbells(dma);
}

static const struct ferry_ctx_ops dma_ops = {
	.start = dma_start,
	.stop = dma_stop,
	.stopped = dma_stopped,
	.submit = dma_submit,
	.flush = dma_flush,
	.progress = dma_progress,
	.has_pending = dma_has_pending,
	.task_error_stops_ctx = true,
};

/* The pool's trampoline to the user's typed callbacks. */
static void memcpy_complete(struct doca_task *base, union doca_data task_user_data, union doca_data ctx_user_data,
			    bool success)
{
	struct doca_dma_task_memcpy *task = task_of(base);
	struct doca_dma *dma = dma_of_task(task);

	if (success)
		dma->success_cb(task, task_user_data, ctx_user_data);
	else
		dma->error_cb(task, task_user_data, ctx_user_data);
}

/* ---- public: context ---- */

doca_error_t doca_dma_create(struct doca_dev *dev, struct doca_dma **dma_out)
{
	const struct ferry_dma_caps *caps;
	struct doca_dma *dma;

	if (dev == NULL || dma_out == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s is NULL", dev == NULL ? "dev" : "dma");
	caps = ferry_devinfo_dma_caps(doca_dev_as_devinfo(dev));
	if (caps == NULL || !caps->memcpy_supported)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "device %s cannot run DMA memcpy tasks",
				  ferry_dev_name(dev));
	dma = ferry_calloc(1, sizeof(*dma));
	if (dma == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for a DMA context");
	ferry_ctx_init(&dma->ctx, &dma_ops, "dma", dev);
	ferry_ctx_add_pool(&dma->ctx, &dma->pool, "dma memcpy", sizeof(struct doca_dma_task_memcpy), memcpy_complete);
	dma->caps = caps;
	dma->engine = FERRY_ENGINE_AUTO;
	dma->ordered_completions = 1;
	*dma_out = dma;
	return DOCA_SUCCESS;
}

doca_error_t doca_dma_destroy(struct doca_dma *dma)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(dma);
	err = ferry_ctx_check_destroyable(&dma->ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	ferry_ctx_fini(&dma->ctx);
	free(dma);
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma)
{
	if (dma == NULL) {
		FERRY_ERR("%s: dma is NULL", __func__);
		return NULL;
	}
	return &dma->ctx;
}

doca_error_t doca_dma_set_ordered_completions(struct doca_dma *dma, uint8_t ordered_completions)
{
	FERRY_ARG_NOT_NULL(dma);
	/* Completions are always in submission order; the flag is only remembered. */
	dma->ordered_completions = ordered_completions;
	return DOCA_SUCCESS;
}

doca_error_t doca_dma_get_gpu_handle(struct doca_dma *dma, struct doca_gpu_dma **dma_gpu)
{
	FERRY_ARG_NOT_NULL(dma);
	FERRY_ARG_NOT_NULL(dma_gpu);
	return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "dma %p: Ferry has no GPU data path", (void *)dma);
}

doca_error_t ferry_dma_set_engine(struct doca_dma *dma, enum ferry_engine_kind kind)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(dma);
	err = ferry_ctx_check_idle(&dma->ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	dma->engine = kind;
	return DOCA_SUCCESS;
}

/* ---- public: capabilities ---- */

static const struct ferry_dma_caps *caps_of(const struct doca_devinfo *devinfo, const char *call)
{
	const struct ferry_dma_caps *caps;

	if (devinfo == NULL) {
		FERRY_ERR("%s: devinfo is NULL", call);
		return NULL;
	}
	caps = ferry_devinfo_dma_caps(devinfo);
	if (caps == NULL)
		FERRY_ERR("%s: devinfo %p has no DMA capabilities", call, (const void *)devinfo);
	return caps;
}

doca_error_t doca_dma_cap_task_memcpy_is_supported(const struct doca_devinfo *devinfo)
{
	const struct ferry_dma_caps *caps = caps_of(devinfo, __func__);

	if (caps == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	/* A plain "no" is an answer, not a broken rule: no log line. */
	return caps->memcpy_supported ? DOCA_SUCCESS : DOCA_ERROR_NOT_SUPPORTED;
}

doca_error_t doca_dma_cap_task_memcpy_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size)
{
	const struct ferry_dma_caps *caps;

	FERRY_ARG_NOT_NULL(buf_size);
	caps = caps_of(devinfo, __func__);
	if (caps == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*buf_size = caps->max_buf_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_dma_cap_task_memcpy_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							   uint32_t *max_buf_list_len)
{
	const struct ferry_dma_caps *caps;

	FERRY_ARG_NOT_NULL(max_buf_list_len);
	caps = caps_of(devinfo, __func__);
	if (caps == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*max_buf_list_len = caps->max_buf_list_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_dma_cap_get_max_num_tasks(struct doca_dma *dma, uint32_t *max_num_tasks)
{
	FERRY_ARG_NOT_NULL(dma);
	FERRY_ARG_NOT_NULL(max_num_tasks);
	*max_num_tasks = dma->caps->max_num_tasks;
	return DOCA_SUCCESS;
}

/* ---- public: memcpy task ---- */

doca_error_t doca_dma_task_memcpy_set_conf(struct doca_dma *dma,
					   doca_dma_task_memcpy_completion_cb_t task_completion_cb,
					   doca_dma_task_memcpy_completion_cb_t task_error_cb,
					   uint32_t num_memcpy_tasks)
{
	const char *call = __func__;
	doca_error_t err;

	if (dma == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "dma is NULL");
	if (task_completion_cb == NULL || task_error_cb == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "dma %p: the %s callback is NULL; both are required", (void *)dma,
				     task_completion_cb == NULL ? "completion" : "error");
	err = ferry_ctx_check_idle(&dma->ctx, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (num_memcpy_tasks > dma->caps->max_num_tasks)
		return FERRY_RULE_IN(
			call, DOCA_ERROR_INVALID_VALUE,
			"dma %p: %u tasks is above the device limit of %u (doca_dma_cap_get_max_num_tasks)",
			(void *)dma, num_memcpy_tasks, dma->caps->max_num_tasks);
	err = ferry_task_pool_configure(&dma->pool, num_memcpy_tasks, call);
	if (err != DOCA_SUCCESS)
		return err;
	dma->success_cb = task_completion_cb;
	dma->error_cb = task_error_cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_dma_task_memcpy_alloc_init(struct doca_dma *dma, const struct doca_buf *src, struct doca_buf *dst,
					     union doca_data user_data, struct doca_dma_task_memcpy **task)
{
	const char *call = __func__;
	struct doca_task *base;
	struct doca_dma_task_memcpy *memcpy_task;
	doca_error_t err;

	if (dma == NULL || task == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL", dma == NULL ? "dma" : "task");
	err = ferry_task_pool_get(&dma->pool, call, &base);
	if (err != DOCA_SUCCESS)
		return err;
	memcpy_task = task_of(base);
	base->user_data = user_data;
	memcpy_task->src = src;
	memcpy_task->dst = dst;
	*task = memcpy_task;
	return DOCA_SUCCESS;
}

struct doca_task *doca_dma_task_memcpy_as_task(struct doca_dma_task_memcpy *task)
{
	if (task == NULL) {
		FERRY_ERR("%s: task is NULL", __func__);
		return NULL;
	}
	return &task->base;
}

/* Setters may not change a task the context owns. */
static bool task_is_settable(const struct doca_dma_task_memcpy *task, const char *call)
{
	if (task == NULL) {
		FERRY_ERR("%s: task is NULL", call);
		return false;
	}
	if (task->base.state != FERRY_TASK_ALLOCATED) {
		FERRY_ERR("%s: dma memcpy task %p is %s; only an allocated task that is not in flight can change", call,
			  (const void *)task, task->base.state == FERRY_TASK_SUBMITTED ? "in flight" : "free");
		return false;
	}
	return true;
}

void doca_dma_task_memcpy_set_src(struct doca_dma_task_memcpy *task, const struct doca_buf *src)
{
	if (task_is_settable(task, __func__))
		task->src = src;
}

const struct doca_buf *doca_dma_task_memcpy_get_src(const struct doca_dma_task_memcpy *task)
{
	if (task == NULL) {
		FERRY_ERR("%s: task is NULL", __func__);
		return NULL;
	}
	return task->src;
}

void doca_dma_task_memcpy_set_dst(struct doca_dma_task_memcpy *task, struct doca_buf *dst)
{
	if (task_is_settable(task, __func__))
		task->dst = dst;
}

struct doca_buf *doca_dma_task_memcpy_get_dst(const struct doca_dma_task_memcpy *task)
{
	if (task == NULL) {
		FERRY_ERR("%s: task is NULL", __func__);
		return NULL;
	}
	return task->dst;
}
