/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_ctx.h - the generic context, task and task-pool machinery that every DOCA
 * context type (DMA, Comch server/client, producer, consumer) plugs into.
 *
 * A context type embeds `struct doca_ctx` in its own struct and supplies a const
 * `struct ferry_ctx_ops`. The generic code owns the state machine
 * (IDLE -> STARTING -> RUNNING -> STOPPING -> IDLE), the in-flight count, the
 * connection to a progress engine and the state-changed callback; the type owns
 * what it does with a submitted task.
 *
 * Call order for a context type:
 *   create:   ferry_ctx_init(&me->ctx, &me_ops, "dma", dev)
 *   set_conf: ferry_task_pool_configure(&me->pool, ...)       (ctx must be IDLE)
 *   start:    generic doca_ctx_start -> ops->start -> pools allocated -> RUNNING
 *   alloc:    ferry_task_pool_get(&me->pool, &task)            (ctx must be RUNNING)
 *   submit:   generic doca_task_submit -> ops->submit (queue only, never complete)
 *   progress: doca_pe_progress -> ops->progress -> ferry_task_complete(task, status)
 *   free:     doca_task_free; a task freed in flight is only marked orphaned: the
 *             type completes or flushes it as usual, and ferry_task_complete
 *             returns it to the pool without a callback
 *   stop:     generic doca_ctx_stop -> ops->stop (cancel/flush); IDLE once inflight is 0
 *   destroy:  type's destroy checks ferry_ctx_check_destroyable, then ferry_ctx_fini
 *
 * Threading: a context and its progress engine are used from one thread at a time,
 * as in DOCA. Only ferry_pe_wake() may be called from another thread (an engine's
 * worker), to make the notification handle readable.
 */
#ifndef FERRY_CTX_H_
#define FERRY_CTX_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_pe.h>
#include <doca_types.h>

#include "common/ferry_abi.h"

struct doca_dev;
struct ferry_task_pool;
struct ferry_fault_site;

/**
 * Where a task is in its life. A task the user freed while SUBMITTED stays
 * SUBMITTED (the type still owns it and flushes it like any other) and is
 * marked orphaned: ferry_task_complete then puts it back in its pool without
 * a callback.
 */
enum ferry_task_state {
	FERRY_TASK_FREE = 0,      /* in its pool */
	FERRY_TASK_ALLOCATED = 1, /* owned by the user, not submitted */
	FERRY_TASK_SUBMITTED = 2, /* owned by the context until completion */
};

struct doca_task;

/**
 * Who else may own a submitted task's completion: a node of a running graph
 * instance (core/graph.c). While doca_task.owner is set, ferry_task_complete
 * hands the finished task to owner->complete instead of the type's callback.
 * The owner embeds this struct and finds itself with ferry_container_of.
 */
struct ferry_task_owner {
	void (*complete)(struct ferry_task_owner *owner, struct doca_task *task, doca_error_t status);
};

/**
 * Generic task header, embedded first in every task type
 * (struct doca_dma_task_memcpy { struct doca_task base; ... }).
 */
struct doca_task {
	struct doca_ctx *ctx;
	struct ferry_task_pool *pool;
	union doca_data user_data;
	doca_error_t status;
	uint16_t state;                 /* enum ferry_task_state */
	bool orphaned;                  /* SUBMITTED and freed by the user: no callback, back to the pool */
	struct ferry_task_owner *owner; /* set only while a graph runs the task; NULL otherwise */
	struct doca_task *next;         /* free list, or the type's pending list */
};

/** A FIFO of tasks linked through doca_task.next (a task is on one list at a time). */
struct ferry_task_list {
	struct doca_task *head;
	struct doca_task *tail;
};

/** Append @p task to @p list. */
static inline void ferry_task_list_push(struct ferry_task_list *list, struct doca_task *task)
{
	task->next = NULL;
	if (list->tail != NULL)
		list->tail->next = task;
	else
		list->head = task;
	list->tail = task;
}

/** Take the oldest task of @p list, or NULL. */
static inline struct doca_task *ferry_task_list_pop(struct ferry_task_list *list)
{
	struct doca_task *task = list->head;

	if (task != NULL) {
		list->head = task->next;
		if (list->head == NULL)
			list->tail = NULL;
		task->next = NULL;
	}
	return task;
}

/**
 * Per-type completion trampoline: calls the user's typed success or error
 * callback. Kept here so generic code never casts function pointer types.
 */
typedef void (*ferry_task_complete_fn)(struct doca_task *task, union doca_data task_user_data,
				       union doca_data ctx_user_data, bool success);

/**
 * A preallocated pool of one task type. The memory is one cache-aligned array of
 * `capacity` elements of `elem_size` bytes; alloc and free are O(1).
 */
struct ferry_task_pool {
	const char *task_name; /* "dma memcpy", used in log lines */
	struct doca_ctx *ctx;
	size_t elem_size;  /* rounded up to a cache line */
	uint32_t capacity; /* from *_set_conf; 0 = not configured */
	uint32_t num_free;
	void *mem; /* allocated at ctx start, freed at ctx fini */
	struct doca_task *free_list;
	ferry_task_complete_fn complete;
	struct ferry_fault_site *fault; /* FERRY_FAULT's state for this pool; NULL (always, when unset) = no faults */
};

/** What a context type plugs into the generic machinery. */
struct ferry_ctx_ops {
	/**
	 * Bring the context up. Return DOCA_SUCCESS to go RUNNING,
	 * DOCA_ERROR_IN_PROGRESS to go STARTING (then call ferry_ctx_set_running
	 * later from progress), or an error to stay IDLE.
	 */
	doca_error_t (*start)(struct doca_ctx *ctx);
	/**
	 * Begin stopping: complete or flush every in-flight task from progress (the
	 * generic code moves the context to IDLE when inflight reaches 0 and
	 * ops->stopped has run). Called with the context already STOPPING.
	 */
	void (*stop)(struct doca_ctx *ctx);
	/** The context reached IDLE after a stop: release what start acquired. Optional. */
	void (*stopped)(struct doca_ctx *ctx);
	/**
	 * Queue a task (state already SUBMITTED and counted in flight). Must not
	 * complete it. Return DOCA_ERROR_AGAIN when the queue is full (the generic
	 * code undoes the accounting), or a validation error.
	 */
	doca_error_t (*submit)(struct doca_task *task);
	/** Ring the doorbell for everything queued since the last flush. Optional. */
	void (*flush)(struct doca_ctx *ctx);
	/**
	 * Poll: complete finished tasks with ferry_task_complete and deliver events.
	 * Return the number of completions and events delivered.
	 */
	uint32_t (*progress)(struct doca_ctx *ctx);
	/**
	 * True when progress would deliver something right now (used to arm the
	 * notification handle without losing a wakeup). Optional: absent means
	 * "whenever tasks are in flight".
	 */
	bool (*has_pending)(struct doca_ctx *ctx);
	/*
	 * A failed task stops the context (DMA, as in DOCA). Fault injection
	 * (core/fault.c) reads it so that an injected failure does the same.
	 */
	bool task_error_stops_ctx;
};

/** Generic context; embedded in every context type. */
/* Task types one context may have (DOCA RDMA has the most: 11). */
#define FERRY_CTX_MAX_TASK_TYPES 16

struct doca_ctx {
	const struct ferry_ctx_ops *ops;
	const char *name; /* "dma", "comch_server", ... for log lines */
	struct doca_dev *dev;
	struct doca_pe *pe;
	enum doca_ctx_states state;
	uint32_t num_inflight;
	union doca_data user_data;
	doca_ctx_state_changed_callback_t state_changed_cb;
	struct ferry_task_pool *pools[FERRY_CTX_MAX_TASK_TYPES];
	uint32_t num_pools;
	bool orphan_logged;       /* a task was freed in flight: said once per context */
	doca_error_t fail_status; /* why ferry_ctx_fail last stopped it; DOCA_SUCCESS since doca_ctx_start */
	/*
	 * Set by a layer above that cannot take more events now (its own queue is
	 * full): progress still completes tasks but delivers no new events, so
	 * what would make them waits where it is (Comch: in the socket, which
	 * pushes back on the peer). The type's ops->progress honours it.
	 */
	bool events_held;
	uint32_t fault_held;      /* completions held back by a FERRY_FAULT delay (still in flight) */
	struct doca_ctx *pe_next; /* the progress engine's list of contexts */
};

/* ---- context lifecycle, for context types ---- */

/** Initialise the generic part. @p name must outlive the context. */
FERRY_PRIVATE_API
void ferry_ctx_init(struct doca_ctx *ctx, const struct ferry_ctx_ops *ops, const char *name, struct doca_dev *dev);

/** Register one of the type's task pools so start/stop/fini manage it (max 8). */
FERRY_PRIVATE_API
void ferry_ctx_add_pool(struct doca_ctx *ctx, struct ferry_task_pool *pool, const char *task_name, size_t task_size,
			ferry_task_complete_fn complete);

/**
 * The check a type's destroy runs first: the context must be IDLE.
 * Logs "<call>: context '<name>' is <STATE>; destroy needs IDLE" otherwise.
 */
FERRY_PRIVATE_API
doca_error_t ferry_ctx_check_destroyable(struct doca_ctx *ctx, const char *call);

/** Disconnect from the PE and free the pools. The type then frees its struct. */
FERRY_PRIVATE_API
void ferry_ctx_fini(struct doca_ctx *ctx);

/** The check a type's setter runs: context must be IDLE to reconfigure. */
FERRY_PRIVATE_API
doca_error_t ferry_ctx_check_idle(const struct doca_ctx *ctx, const char *call);

/** STARTING -> RUNNING, for types whose start completes asynchronously. */
FERRY_PRIVATE_API
void ferry_ctx_set_running(struct doca_ctx *ctx);

/**
 * Any state -> STOPPING -> IDLE path for fatal errors detected in progress (e.g.
 * peer lost). @p why stays in ctx->fail_status until the next doca_ctx_start, so
 * a layer above (the legacy Comm Channel) can tell "no server yet" from "refused".
 */
FERRY_PRIVATE_API
void ferry_ctx_fail(struct doca_ctx *ctx, doca_error_t why);

/** Human name of a state ("RUNNING"). */
FERRY_PRIVATE_API
const char *ferry_ctx_state_name(enum doca_ctx_states state);

/* ---- task pools, for context types ---- */

/**
 * Set the pool's capacity (from the type's *_set_conf). Context must be IDLE.
 * @p num_tasks 0 is refused with DOCA_ERROR_INVALID_VALUE.
 */
FERRY_PRIVATE_API
doca_error_t ferry_task_pool_configure(struct ferry_task_pool *pool, uint32_t num_tasks, const char *call);

/**
 * Take a task from the pool: ctx must be RUNNING (DOCA_ERROR_BAD_STATE), pool
 * configured (DOCA_ERROR_BAD_STATE) and not empty (DOCA_ERROR_NO_MEMORY). The
 * returned task is zeroed beyond the header, state ALLOCATED.
 */
FERRY_PRIVATE_API
doca_error_t ferry_task_pool_get(struct ferry_task_pool *pool, const char *call, struct doca_task **task);

/* ---- task completion, for context types (from ops->progress only) ---- */

/**
 * Finish a submitted task: set its status, drop it from the in-flight count,
 * and call the user's success or error callback. The task goes back to
 * ALLOCATED: the user frees or resubmits it. An orphaned task (freed by the
 * user while in flight) goes back to its pool instead, with no callback. A
 * task with an owner (a graph node) goes to owner->complete, not the callback.
 * Every path that ends a submitted task, success or flush, goes through here.
 */
FERRY_PRIVATE_API
void ferry_task_complete(struct doca_task *task, doca_error_t status);

/* ---- progress engine hooks ---- */

/**
 * Make the PE's notification handle readable if a notification was requested.
 * Safe from any thread (e.g. a copy engine's worker) and cheap when not armed.
 */
FERRY_PRIVATE_API
void ferry_pe_wake(struct doca_pe *pe);

/**
 * ferry_pe_wake() for the thread that runs @p pe (the one that arms it,
 * DOCA's rule): no fence, since the arming store came before in this
 * thread's own order. For a context's completions made on its PE's thread
 * outside its progress (a submit after the program armed the PE).
 */
FERRY_PRIVATE_API
void ferry_pe_wake_own(struct doca_pe *pe);

/**
 * Add a file descriptor to the PE's notification set, so that the handle wakes
 * when @p fd becomes readable (Comch sockets). Removed with ferry_pe_unwatch_fd.
 */
FERRY_PRIVATE_API
doca_error_t ferry_pe_watch_fd(struct doca_pe *pe, int fd);
/**
 * Also wake the handle when @p fd (watched) has room to write (@p out), or no
 * longer (!@p out): a context whose sends wait for a peer to read sleeps until
 * it does, instead of reporting pending work at every request.
 */
FERRY_PRIVATE_API
void ferry_pe_watch_fd_out(struct doca_pe *pe, int fd, bool out);
FERRY_PRIVATE_API
void ferry_pe_unwatch_fd(struct doca_pe *pe, int fd);

/**
 * The PE's doorbell, for a peer in another process that must wake it: a
 * datagram socket in the abstract namespace named by a random 64-bit token,
 * made on first call and watched by the notification handle. Another process
 * that learns the token wakes this PE with ferry_pe_bell_ring(token); the PE
 * empties its bell when a notification is requested or cleared. Called on the
 * PE's own thread; 0 when no bell can be made (the caller keeps polling).
 */
FERRY_PRIVATE_API
uint64_t ferry_pe_bell(struct doca_pe *pe);

/** Ring the bell named @p token (any process, any thread; best effort, never blocks). */
FERRY_PRIVATE_API
void ferry_pe_bell_ring(uint64_t token);

/** True while the calling thread is inside doca_pe_progress of @p pe (callback context). */
bool ferry_pe_in_callback(const struct doca_pe *pe);

#endif /* FERRY_CTX_H_ */
