/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy_priv.h - DOCA's work-queue generation (1.x, 2.0-2.2) as a thin layer
 * on Ferry's core.
 *
 * The programs of that generation include include/legacy/doca-<VERSION>/ and
 * link libferry_legacy. Names that mean the same in every generation bind to
 * the DOCA 3 symbols of libdoca_common; names found only in the old API
 * (doca_workq_*, doca_ctx_dev_add, ...) are exported here as they are; names
 * that a later DOCA kept with other arguments or another meaning are renamed by
 * the legacy headers (an asm label) to ferry_wq_* when every legacy generation
 * agrees on them, or to ferry_v14_* / ferry_v22_* when they differ there too.
 *
 * This file cannot include the legacy headers (their prototypes clash with
 * DOCA 3's, which the implementation calls), so it mirrors the structs a
 * program hands us by value or by pointer under Ferry's own tags, with their
 * layout pinned by static assertions; tests/legacy checks the public headers
 * against the same numbers.
 *
 * DOCA 1.3/1.4's mmap (v14_mmap.c) is a list of chunks, each a core map of
 * its own range; its first word is a magic the core's maps also carry (with
 * another value), so a map of one generation in a call of the other is
 * refused with a line. Its JSON export (v14_export.h) wraps the core's PCI
 * export descriptor.
 *
 * A work queue owns a progress engine. Attaching a context to a work queue
 * (doca_ctx_workq_add) makes one DOCA 3 context of the context's kind on that
 * engine (a DMA context for a DMA, ...): the job a program submits becomes that
 * context's task, and its completion an event in the work queue's ring. So one
 * doca_pe_progress serves every context of a work queue, and the work queue's
 * event handle is its engine's notification handle.
 */
#ifndef FERRY_LEGACY_PRIV_H_
#define FERRY_LEGACY_PRIV_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>
#include <doca_types.h>

#include "core/ferry_ctx.h"

/* ---- what programs hand us: the layout of DOCA's structs of that time ---- */

/** struct doca_job: the head of every job. */
struct ferry_job {
	int type;
	int flags;
	struct doca_ctx *ctx;
	union doca_data user_data;
};
_Static_assert(sizeof(struct ferry_job) == 24, "struct doca_job is 24 bytes");
_Static_assert(offsetof(struct ferry_job, ctx) == 8, "doca_job.ctx at 8");
_Static_assert(offsetof(struct ferry_job, user_data) == 16, "doca_job.user_data at 16");

/** struct doca_event: what doca_workq_progress_retrieve fills. */
struct ferry_event {
	int type;
	union doca_data user_data;
	union doca_data result;
};
_Static_assert(sizeof(struct ferry_event) == 24, "struct doca_event is 24 bytes");
_Static_assert(offsetof(struct ferry_event, result) == 16, "doca_event.result at 16");

/** struct doca_dma_job_memcpy (1.5 and 2.x); 1.3/1.4 append num_bytes_to_copy. */
struct ferry_dma_job {
	struct ferry_job base;
	struct doca_buf *dst_buff;
	const struct doca_buf *src_buff;
};
struct ferry_dma_job_v14 {
	struct ferry_dma_job job;
	size_t num_bytes_to_copy;
};
_Static_assert(sizeof(struct ferry_dma_job) == 40, "struct doca_dma_job_memcpy is 40 bytes");
_Static_assert(offsetof(struct ferry_dma_job_v14, num_bytes_to_copy) == 40, "1.x num_bytes_to_copy at 40");

/**
 * struct doca_pci_bdf of DOCA 1.x: a PCI address in 16 bits, written field by
 * field (the 1.4 header declares the same fields in the same order).
 */
struct ferry_pci_bdf {
	union {
		uint16_t raw;
		struct {
			uint16_t function : 3;
			uint16_t device : 5;
			uint16_t bus : 8;
		};
	};
};
_Static_assert(sizeof(struct ferry_pci_bdf) == 2, "struct doca_pci_bdf is 2 bytes");

/* Job types: DOCA_ACTION_<LIB>_FIRST is <n> << 16; the first job type of a library is FIRST + 1. */
#define FERRY_ACTION_DMA_FIRST        (1 << 16)
#define FERRY_ACTION_SHA_FIRST        (9 << 16)
#define FERRY_ACTION_SYNC_EVENT_FIRST (13 << 16) /* NVIDIA's value is not published; any distinct one serves */
#define FERRY_ACTION_GRAPH_FIRST      (14 << 16) /* likewise */
#define FERRY_DMA_JOB_MEMCPY          (FERRY_ACTION_DMA_FIRST + 1)

/* ---- names in log lines ---- */

/**
 * The DOCA name a program called for @p func, a function of this library:
 * "ferry_v22_graph_create" -> "doca_graph_create" (the legacy headers bind the
 * DOCA name to that symbol); any other name as it is.
 */
const char *ferry_legacy_call_name(const char *func);

/** FERRY_ARG_NOT_NULL for the legacy library: the line names the DOCA call. */
#define LEGACY_ARG_NOT_NULL(arg)                                                                                       \
	do {                                                                                                           \
		if ((arg) == NULL)                                                                                     \
			return FERRY_RULE_IN(ferry_legacy_call_name(__func__), DOCA_ERROR_INVALID_VALUE, "%s is NULL", \
					     #arg);                                                                    \
	} while (0)

/* ---- contexts ---- */

struct doca_workq;
struct ferry_wq_ctx;

/**
 * Who takes a job's completion instead of the program: a node of a running
 * graph instance (graph.c). The job's event is not queued for retrieve; the
 * owner gets its status.
 */
struct ferry_wq_owner {
	void (*complete)(struct ferry_wq_owner *owner, doca_error_t status);
};

/**
 * Work a work queue runs at the start of each doca_workq_progress_retrieve
 * (graph nodes that became ready, so user callbacks run inside retrieve as
 * DOCA documents). Queued with ferry_workq_defer; run once, then unlinked.
 */
struct ferry_wq_deferred {
	void (*run)(struct ferry_wq_deferred *item);
	struct ferry_wq_deferred *next;
	bool queued;
};

/**
 * One context attached to one work queue: the DOCA 3 context that runs the
 * jobs the program submits there. Made by the kind's attach, undone by detach.
 */
struct ferry_wq_attach {
	struct ferry_wq_ctx *ctx;
	struct doca_workq *workq;
	struct doca_ctx *engine_ctx; /* the DOCA 3 context on workq's PE */
	void *kind_data;             /* the kind's object behind engine_ctx (a struct doca_dma, ...) */
	uint32_t pending;            /* jobs submitted here and not yet completed */
	bool unflushed;              /* jobs submitted since engine_ctx's doorbell last rang */
};

/** What a kind of context (DMA, SHA, sync event) plugs into the work-queue machinery. */
struct ferry_wq_ctx_kind {
	const char *name;   /* "dma" */
	bool needs_dev;     /* doca_ctx_start needs a doca_ctx_dev_add first */
	int first_job_type; /* the kind accepts job types first..last */
	int last_job_type;
	/** Validate the started context's configuration (devices and caps). */
	doca_error_t (*start)(struct ferry_wq_ctx *ctx);
	/** Make att->engine_ctx on att->workq's PE, sized for the work queue's depth, and start it. */
	doca_error_t (*attach)(struct ferry_wq_attach *att, uint32_t depth);
	/** Stop and destroy what attach made (nothing is pending). */
	void (*detach)(struct ferry_wq_attach *att);
	/**
	 * Turn the job into a task of att->engine_ctx and submit it without ringing
	 * the doorbell (the work queue flushes att->engine_ctx before it progresses);
	 * when it finishes, call ferry_workq_complete with @p tag (the job's
	 * user_data is the work queue's business, not the kind's).
	 */
	doca_error_t (*submit)(struct ferry_wq_attach *att, const struct ferry_job *job, union doca_data tag);
	/** Free the kind's part of the context (it is stopped and detached). */
	void (*destroy)(struct ferry_wq_ctx *ctx);
	/** Undo start at doca_ctx_stop. Optional. */
	void (*stop)(struct ferry_wq_ctx *ctx);
	/**
	 * For kinds whose jobs run on no DOCA 3 context (att->engine_ctx NULL):
	 * complete what can complete now, from doca_workq_progress_retrieve; return
	 * how many completed. Optional.
	 */
	uint32_t (*poll)(struct ferry_wq_attach *att);
};

#define FERRY_WQ_CTX_MAX_DEVS   1
#define FERRY_WQ_CTX_MAX_WORKQS 16

/**
 * A context of the work-queue API. The generic DOCA 3 context comes first so a
 * DOCA 3 call given this pointer (doca_ctx_start of the current API, say) meets
 * ops that refuse it with a line, never undefined behaviour.
 */
struct ferry_wq_ctx {
	struct doca_ctx generic;
	uint32_t magic;
	const struct ferry_wq_ctx_kind *kind;
	struct doca_dev *dev;
	bool started;
	uint32_t num_attached;
	struct ferry_wq_attach *attached[FERRY_WQ_CTX_MAX_WORKQS];
};

#define FERRY_WQ_CTX_MAGIC 0x57514358u /* "WQCX" */

/**
 * Set up the generic part; @p kind must outlive the context. DOCA_ERROR_NO_MEMORY
 * (the line names @p call) when the process has doca_ctx_get_max_num_ctx already.
 */
doca_error_t ferry_wq_ctx_init(struct ferry_wq_ctx *ctx, const struct ferry_wq_ctx_kind *kind, const char *call);

/** The legacy context behind @p ctx, or NULL with a line when it is not one (a DOCA 3 context, garbage). */
struct ferry_wq_ctx *ferry_wq_ctx_from(struct doca_ctx *ctx, const char *call);

/** The check a kind's destroy runs first: stopped, on no work queue. */
doca_error_t ferry_wq_ctx_check_destroyable(const struct ferry_wq_ctx *ctx, const char *call);

/** Release the generic part (after the kind's own teardown). */
void ferry_wq_ctx_fini(struct ferry_wq_ctx *ctx);

/* ---- work queues ---- */

/** The work queue's progress engine, on which attached contexts run. */
struct doca_pe *ferry_workq_pe(const struct doca_workq *workq);

/**
 * A job of @p att finished with @p status; @p tag is what the kind's submit
 * got. Its event (type, the job's user_data, status) is queued for
 * doca_workq_progress_retrieve, or handed to the job's owner. Called from the
 * kinds' completion paths.
 */
void ferry_workq_complete(struct ferry_wq_attach *att, union doca_data tag, doca_error_t status);

/**
 * Submit @p job to @p workq on behalf of @p owner (a graph node): the same
 * checks and codes as doca_workq_submit; the completion goes to the owner.
 * The job counts against the depth until it completes.
 */
doca_error_t ferry_workq_submit_owned(struct doca_workq *workq, const struct ferry_job *job,
				      struct ferry_wq_owner *owner);

/**
 * Take one place of the depth for an event the caller will post later
 * (a graph instance's): DOCA_ERROR_NO_MEMORY when the work queue is full.
 */
doca_error_t ferry_workq_reserve(struct doca_workq *workq, const char *call);

/** Queue the event a reservation was taken for; retrieve hands it out like a job's. */
void ferry_workq_post_event(struct doca_workq *workq, int type, union doca_data user_data, doca_error_t status);

/** True while @p workq can take one more job (a graph node waits quietly otherwise). */
bool ferry_workq_has_room(const struct doca_workq *workq);

/** Run @p item at the next retrieve (no-op if it is already queued). */
void ferry_workq_defer(struct doca_workq *workq, struct ferry_wq_deferred *item);

/** Forget @p item if it is queued (its owner is going away). */
void ferry_workq_cancel(struct doca_workq *workq, struct ferry_wq_deferred *item);

/** The legacy context behind @p ctx attached to @p workq, or NULL. */
struct ferry_wq_attach *ferry_workq_find_attach(const struct doca_workq *workq, const struct doca_ctx *ctx);

/** Check @p workq is a live work queue (the line names @p call). */
doca_error_t ferry_workq_check(const struct doca_workq *workq, const char *call);

#endif /* FERRY_LEGACY_PRIV_H_ */
