/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_priv.h - the layout of a DMA context and its memcpy task, for dma.c and
 * Ferry's own tests and benchmarks (never for applications).
 *
 * How a task becomes copies: submit validates the task, then walks the source
 * data segments and the destination free spaces side by side and cuts the copy
 * into descriptors wherever either side crosses a buf boundary (so a task of
 * an m-buf source and an n-buf destination needs at most m + n - 1
 * descriptors). Every descriptor carries the task as its cookie; the task
 * completes, from progress, when its last descriptor comes back. A task of one
 * source buf and one destination buf (the common case) skips the walk: one
 * descriptor straight from submit's checks (dma.c: submit_pair), so the walk
 * fields below are only written when it waits in the backlog.
 *
 * Why a backlog: the channel is sized for the task pool plus one task's worth
 * of descriptors, not for the worst case of every task being a long list (that
 * would cost num_tasks * (2 * max_list_len - 1) ring slots). When the channel
 * is full, the task (or the rest of it) waits in a FIFO backlog that progress
 * drains after polling, so submit of a legal task never fails for lack of room
 * and tasks still enter the channel in submission order.
 */
#ifndef FERRY_DMA_PRIV_H_
#define FERRY_DMA_PRIV_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_dma.h>

#include "core/ferry_ctx.h"
#include "core/ferry_dev.h"
#include "engine/ferry_engine.h"

struct doca_dma_task_memcpy {
	struct doca_task base; /* first: the generic code sees this */
	const struct doca_buf *src;
	struct doca_buf *dst;

	/* Set by submit. */
	uint64_t total;       /* bytes the task copies */
	uint32_t outstanding; /* descriptors enqueued and not yet polled */
	bool all_enqueued;    /* no more descriptors will be enqueued */
	bool dst_is_list;
	bool cross_process; /* a buf lies in another process: the task runs on FERRY_DMA_CHAN_CROSS */
	doca_error_t first_error;

	/* The walk: where the next descriptor starts. */
	uint64_t left;
	struct doca_buf *cur_src;
	const uint8_t *src_ptr;
	size_t src_avail;
	struct doca_buf *cur_dst;
	uint8_t *dst_ptr;
	size_t dst_avail;
};

enum { FERRY_DMA_CHAN_LOCAL, FERRY_DMA_CHAN_CROSS, FERRY_DMA_CHANS };

struct doca_dma {
	struct doca_ctx ctx; /* first: doca_dma_as_ctx and back */
	struct ferry_task_pool pool;
	doca_dma_task_memcpy_completion_cb_t success_cb;
	doca_dma_task_memcpy_completion_cb_t error_cb;
	const struct ferry_dma_caps *caps;
	enum ferry_engine_kind engine;
	/*
	 * Open while the context is not IDLE: [FERRY_DMA_CHAN_LOCAL] on the chosen
	 * engine, [FERRY_DMA_CHAN_CROSS] inline, for tasks on memory of another
	 * process (CMA).
	 */
	struct ferry_chan *chans[FERRY_DMA_CHANS];
	/*
	 * How many of chans progress polls and rings: 0 while closed, 1, or 2 once
	 * a task ran on the cross-process channel since start (until then it costs
	 * nothing).
	 */
	uint32_t chans_used;
	struct ferry_task_list backlog; /* waiting for channel room (doca_task.next) */
	struct ferry_task_list done;    /* finished without a descriptor to poll */
	bool flushing;                  /* stop was requested: no more enqueues */
	bool in_progress;               /* dma_progress is running (callbacks may submit) */
	bool doorbell_due;              /* a flush asked for inside progress, rung at its end */
	uint8_t ordered_completions;
};

/**
 * Choose the copy engine of a DMA context (Ferry's tests and benchmarks). The
 * environment variable FERRY_DMA_ENGINE, when set, still wins (ferry_chan_open).
 * @return DOCA_ERROR_BAD_STATE unless IDLE, DOCA_ERROR_INVALID_VALUE for NULL.
 */
doca_error_t ferry_dma_set_engine(struct doca_dma *dma, enum ferry_engine_kind kind);

#endif /* FERRY_DMA_PRIV_H_ */
