/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * graph.c - doca_graph: directed acyclic graphs of context tasks, user
 * callbacks and sub-graphs, run as instances on a progress engine.
 *
 * Shape: a graph owns its nodes (each knows its children and how many parents
 * it has); an instance holds one slot per node, in node order, with that run's
 * data (task, cookie or sub-instance) and the number of parents still to finish.
 *
 * Hooks into the PE, without a new seam in pe.c:
 *   - the graph embeds a context of its own ("graph"), connected to its PE at
 *     create. The graph moves it IDLE <-> RUNNING itself at start and stop (it
 *     is never started through doca_ctx_start and has no tasks); its progress
 *     runs the ready user nodes and retries tasks a busy context refused.
 *   - a context node's task carries doca_task.owner (ferry_ctx.h) while the
 *     graph runs it: ferry_task_complete hands its completion to the node's
 *     slot instead of the task type's callback.
 *
 * Run: submit resets the slots and starts the roots. A node that finishes
 * (task completion, user callback, sub-instance done) starts each child whose
 * last parent it was. The first failure is the instance's status: no node
 * starts after it, running ones finish, queued ones are dropped unrun. When
 * nothing runs any more the instance is done: a sub-instance finishes its
 * parent's node, a top instance calls the completion or error callback (from
 * doca_pe_progress only: submit never completes anything inline).
 *
 * Threading: one thread at a time per PE, like every context.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_graph.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_ctx.h"

FERRY_LOG_MODULE("graph");

enum graph_node_kind {
	GRAPH_NODE_CTX,
	GRAPH_NODE_USER,
	GRAPH_NODE_SUB,
};

struct doca_graph_node {
	struct doca_graph *graph;
	enum graph_node_kind kind;
	uint32_t index; /* in graph->nodes and in each instance's slots */
	const struct doca_ctx *ctx;
	doca_graph_user_node_cb_t cb;
	struct doca_graph *sub;
	uint32_t num_parents;
	uint32_t num_children;
	uint32_t cap_children;
	struct doca_graph_node **children;
};

/* One node's part of one instance. */
struct graph_slot {
	struct ferry_task_owner owner; /* context nodes: where the task completes while the graph runs it */
	struct doca_graph_instance *inst;
	const struct doca_graph_node *node;
	struct doca_task *task;          /* context node */
	void *cookie;                    /* user node */
	struct doca_graph_instance *sub; /* sub-graph node */
	uint32_t waiting;                /* parents not finished in this run */
	struct graph_slot *next;         /* the graph's ready list */
};

struct doca_graph_instance {
	struct doca_graph *graph;
	union doca_data user_data;
	bool submitted;
	bool as_node;              /* running for parent's node, not for the program */
	doca_error_t status;       /* first failure of this run */
	uint32_t running;          /* nodes started (or queued) and not finished */
	uint32_t remaining;        /* nodes not finished in this run */
	struct graph_slot *parent; /* the sub-graph node this instance is given to, or NULL */
	struct graph_slot slots[];
};

struct doca_graph {
	struct doca_ctx ctx; /* the PE's hook; see the top of the file */
	struct doca_pe *pe;
	bool started;
	doca_graph_completion_cb_t completion_cb;
	doca_graph_completion_cb_t error_cb;
	uint32_t max_instances; /* doca_graph_set_conf; 0: not set, no limit */
	uint32_t num_instances;
	uint32_t num_users; /* sub-graph nodes of other graphs that run this graph */
	union doca_data user_data;
	struct doca_graph_node **nodes;
	uint32_t num_nodes;
	uint32_t cap_nodes;
	struct graph_slot *ready_head; /* user nodes to call, tasks to submit again */
	struct graph_slot *ready_tail;
};

static const char *kind_name(enum graph_node_kind kind)
{
	switch (kind) {
	case GRAPH_NODE_CTX:
		return "context";
	case GRAPH_NODE_USER:
		return "user";
	case GRAPH_NODE_SUB:
		return "sub-graph";
	}
	return "?";
}

static struct doca_graph *graph_of_ctx(struct doca_ctx *ctx)
{
	return ferry_container_of(ctx, struct doca_graph, ctx);
}

/* ---- the ready list ---- */

static void ready_push(struct doca_graph *graph, struct graph_slot *slot)
{
	slot->next = NULL;
	if (graph->ready_tail != NULL)
		graph->ready_tail->next = slot;
	else
		graph->ready_head = slot;
	graph->ready_tail = slot;
}

/* ---- running an instance ---- */

static void node_finish(struct graph_slot *slot, doca_error_t status);

/* Submit a context node's task with the slot as its owner. */
static doca_error_t slot_submit_task(struct graph_slot *slot)
{
	struct doca_task *task = slot->task;
	doca_error_t err;

	task->owner = &slot->owner;
	err = doca_task_submit(task);
	if (err != DOCA_SUCCESS)
		task->owner = NULL;
	return err;
}

static doca_error_t instance_run(struct doca_graph_instance *inst);

/*
 * Start one node whose parents have all finished. On success the node counts
 * as running until node_finish; on an error nothing of it runs.
 */
static doca_error_t node_start(struct graph_slot *slot)
{
	struct doca_graph_instance *inst = slot->inst;
	struct doca_graph_instance *sub;
	doca_error_t err;

	switch (slot->node->kind) {
	case GRAPH_NODE_CTX:
		if (slot->task == NULL || slot->task->state != FERRY_TASK_ALLOCATED)
			return FERRY_RULE_IN("doca_graph_instance_submit", DOCA_ERROR_BAD_STATE,
					     "graph %p, node %u: its task is missing or not idle", (void *)inst->graph,
					     slot->node->index);
		err = slot_submit_task(slot);
		if (err == DOCA_ERROR_AGAIN) {
			/* A busy context delays the node; the graph's progress submits it again. */
			ready_push(inst->graph, slot);
			err = DOCA_SUCCESS;
		}
		if (err != DOCA_SUCCESS)
			return err;
		break;
	case GRAPH_NODE_USER:
		ready_push(inst->graph, slot);
		break;
	case GRAPH_NODE_SUB:
		sub = slot->sub;
		if (sub == NULL || sub->submitted)
			return FERRY_RULE_IN("doca_graph_instance_submit", DOCA_ERROR_IN_USE,
					     "graph %p, node %u: its sub-graph instance is missing or already running",
					     (void *)inst->graph, slot->node->index);
		sub->as_node = true;
		err = instance_run(sub);
		if (err != DOCA_SUCCESS) {
			sub->as_node = false;
			return err;
		}
		break;
	}
	inst->running++;
	return DOCA_SUCCESS;
}

/* Nothing runs any more: report the instance to its parent node or to the program. */
static void instance_maybe_done(struct doca_graph_instance *inst)
{
	struct doca_graph *graph = inst->graph;
	doca_graph_completion_cb_t cb;

	if (inst->running != 0 || (inst->status == DOCA_SUCCESS && inst->remaining != 0))
		return;
	inst->submitted = false;
	if (inst->as_node) {
		inst->as_node = false;
		node_finish(inst->parent, inst->status);
		return;
	}
	cb = inst->status == DOCA_SUCCESS ? graph->completion_cb : graph->error_cb;
	/* Last: the callback may submit the instance again or destroy it. */
	if (cb != NULL)
		cb(inst, inst->user_data, graph->user_data);
}

static void node_finish(struct graph_slot *slot, doca_error_t status)
{
	struct doca_graph_instance *inst = slot->inst;
	const struct doca_graph_node *node = slot->node;

	inst->running--;
	if (status != DOCA_SUCCESS && inst->status == DOCA_SUCCESS) {
		FERRY_DBG("graph %p: instance %p fails at %s node %u: %s", (void *)inst->graph, (void *)inst,
			  kind_name(node->kind), node->index, doca_error_get_name(status));
		inst->status = status;
	}
	if (inst->status == DOCA_SUCCESS) {
		inst->remaining--;
		for (uint32_t i = 0; i < node->num_children; i++) {
			struct graph_slot *child = &inst->slots[node->children[i]->index];
			doca_error_t err;

			if (--child->waiting != 0)
				continue;
			err = node_start(child);
			if (err != DOCA_SUCCESS) {
				inst->status = err;
				break;
			}
		}
	}
	instance_maybe_done(inst);
}

static void slot_task_done(struct ferry_task_owner *owner, struct doca_task *task, doca_error_t status)
{
	(void)task;
	node_finish(ferry_container_of(owner, struct graph_slot, owner), status);
}

/*
 * Reset the run and start the roots. Fails without side effects when no root
 * could start; once one runs, a later root's error fails the run instead
 * (reported through the callbacks when the running nodes finish).
 */
static doca_error_t instance_run(struct doca_graph_instance *inst)
{
	struct doca_graph *graph = inst->graph;
	doca_error_t err;

	inst->status = DOCA_SUCCESS;
	inst->running = 0;
	inst->remaining = graph->num_nodes;
	for (uint32_t i = 0; i < graph->num_nodes; i++)
		inst->slots[i].waiting = graph->nodes[i]->num_parents;
	inst->submitted = true;
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		if (graph->nodes[i]->num_parents != 0)
			continue;
		err = node_start(&inst->slots[i]);
		if (err == DOCA_SUCCESS)
			continue;
		if (inst->running == 0) {
			inst->submitted = false;
			return err;
		}
		inst->status = err;
		break;
	}
	return DOCA_SUCCESS;
}

/* What submit checks before anything starts, sub-instances included. */
static doca_error_t instance_check(const struct doca_graph_instance *inst)
{
	const struct doca_graph *graph = inst->graph;
	const char *call = "doca_graph_instance_submit";

	if (!graph->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "graph %p is stopped", (const void *)graph);
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		const struct graph_slot *slot = &inst->slots[i];
		const struct doca_graph_node *node = graph->nodes[i];
		doca_error_t err;

		switch (node->kind) {
		case GRAPH_NODE_CTX:
			if (slot->task == NULL)
				return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
						     "graph %p, context node %u has no task in instance %p "
						     "(doca_graph_instance_set_ctx_node_data)",
						     (const void *)graph, i, (const void *)inst);
			if (slot->task->state != FERRY_TASK_ALLOCATED)
				return FERRY_RULE_IN(
					call, DOCA_ERROR_BAD_STATE,
					"graph %p, context node %u: task %p is %s; it must be allocated and idle",
					(const void *)graph, i, (const void *)slot->task,
					slot->task->state == FERRY_TASK_SUBMITTED ? "in flight" : "free");
			if (node->ctx->state != DOCA_CTX_STATE_RUNNING)
				return FERRY_RULE_IN(
					call, DOCA_ERROR_BAD_STATE,
					"graph %p, context node %u: context '%s' is %s; tasks need RUNNING",
					(const void *)graph, i, node->ctx->name,
					ferry_ctx_state_name(node->ctx->state));
			break;
		case GRAPH_NODE_USER:
			break;
		case GRAPH_NODE_SUB:
			if (slot->sub == NULL)
				return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
						     "graph %p, sub-graph node %u has no instance in instance %p "
						     "(doca_graph_instance_set_sub_graph_node_data)",
						     (const void *)graph, i, (const void *)inst);
			if (slot->sub->submitted)
				return FERRY_RULE_IN(call, DOCA_ERROR_IN_USE,
						     "graph %p, sub-graph node %u: instance %p is already submitted",
						     (const void *)graph, i, (const void *)slot->sub);
			err = instance_check(slot->sub);
			if (err != DOCA_SUCCESS)
				return err;
			break;
		}
	}
	return DOCA_SUCCESS;
}

/* ---- the graph's context: progress and notification ---- */

static uint32_t graph_progress(struct doca_ctx *ctx)
{
	struct doca_graph *graph = graph_of_ctx(ctx);
	struct graph_slot *slot = graph->ready_head;
	uint32_t delivered = 0;

	/* Take the list: what this pass queues (children, retries) waits for the next one. */
	graph->ready_head = graph->ready_tail = NULL;
	while (slot != NULL) {
		struct graph_slot *next = slot->next;
		struct doca_graph_instance *inst = slot->inst;
		doca_error_t err;

		slot->next = NULL;
		if (inst->status != DOCA_SUCCESS) {
			/* The instance failed meanwhile: the node never runs. */
			node_finish(slot, inst->status);
			delivered++;
		} else if (slot->node->kind == GRAPH_NODE_USER) {
			node_finish(slot, slot->node->cb(slot->cookie));
			delivered++;
		} else {
			err = slot_submit_task(slot);
			if (err == DOCA_ERROR_AGAIN) {
				ready_push(graph, slot);
			} else if (err != DOCA_SUCCESS) {
				node_finish(slot, err);
				delivered++;
			}
		}
		slot = next;
	}
	return delivered;
}

static bool graph_has_pending(struct doca_ctx *ctx)
{
	return graph_of_ctx(ctx)->ready_head != NULL;
}

static doca_error_t graph_ctx_start(struct doca_ctx *ctx)
{
	(void)ctx;
	return DOCA_SUCCESS;
}

static void graph_ctx_stop(struct doca_ctx *ctx)
{
	(void)ctx;
}

static doca_error_t graph_ctx_submit(struct doca_task *task)
{
	(void)task;
	return DOCA_ERROR_NOT_SUPPORTED;
}

static const struct ferry_ctx_ops graph_ctx_ops = {
	.start = graph_ctx_start,
	.stop = graph_ctx_stop,
	.submit = graph_ctx_submit,
	.progress = graph_progress,
	.has_pending = graph_has_pending,
};

/* ---- graph ---- */

doca_error_t doca_graph_create(struct doca_pe *pe, struct doca_graph **graph)
{
	struct doca_graph *g;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(pe);
	FERRY_ARG_NOT_NULL(graph);
	g = ferry_calloc(1, sizeof(*g));
	if (g == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for a graph");
	ferry_ctx_init(&g->ctx, &graph_ctx_ops, "graph", NULL);
	err = doca_pe_connect_ctx(pe, &g->ctx);
	if (err != DOCA_SUCCESS) {
		free(g);
		return err;
	}
	g->pe = pe;
	*graph = g;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_destroy(struct doca_graph *graph)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph);
	if (graph->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "graph %p is started; stop it first", (void *)graph);
	if (graph->num_users != 0)
		return FERRY_RULE(DOCA_ERROR_IN_USE,
				  "graph %p is the sub-graph of %u node(s); destroy those graphs first", (void *)graph,
				  graph->num_users);
	err = ferry_ctx_check_destroyable(&graph->ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		struct doca_graph_node *node = graph->nodes[i];

		if (node->kind == GRAPH_NODE_SUB)
			node->sub->num_users--;
		free(node->children);
		free(node);
	}
	free(graph->nodes);
	ferry_ctx_fini(&graph->ctx);
	free(graph);
	return DOCA_SUCCESS;
}

static doca_error_t check_stopped(const struct doca_graph *graph, const char *call)
{
	if (graph->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "graph %p is started; stop it to change it",
				     (const void *)graph);
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_set_conf(struct doca_graph *graph, doca_graph_completion_cb_t graph_completion_cb,
				 doca_graph_completion_cb_t graph_error_cb, uint32_t num_instances)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph);
	FERRY_ARG_NOT_NULL(graph_completion_cb);
	FERRY_ARG_NOT_NULL(graph_error_cb);
	if (num_instances == 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "graph %p: num_instances must be at least 1",
				  (void *)graph);
	err = check_stopped(graph, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	graph->completion_cb = graph_completion_cb;
	graph->error_cb = graph_error_cb;
	graph->max_instances = num_instances;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph);
	err = check_stopped(graph, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	graph->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_get_user_data(const struct doca_graph *graph, union doca_data *user_data)
{
	FERRY_ARG_NOT_NULL(graph);
	FERRY_ARG_NOT_NULL(user_data);
	*user_data = graph->user_data;
	return DOCA_SUCCESS;
}

/* A new root node of @p kind, appended to the graph. */
static doca_error_t node_add(struct doca_graph *graph, enum graph_node_kind kind, const char *call,
			     struct doca_graph_node **out)
{
	struct doca_graph_node *node = ferry_calloc(1, sizeof(*node));

	if (node == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "graph %p: no memory for node %u", (void *)graph,
				     graph->num_nodes);
	/* Grow the array last: a failure then leaves the graph exactly as it was. */
	if (graph->num_nodes == graph->cap_nodes) {
		uint32_t cap = graph->cap_nodes != 0 ? graph->cap_nodes * 2 : 8;
		struct doca_graph_node **nodes = ferry_realloc(graph->nodes, cap * sizeof(*nodes));

		if (nodes == NULL) {
			free(node);
			return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "graph %p: no memory for node %u",
					     (void *)graph, graph->num_nodes);
		}
		graph->nodes = nodes;
		graph->cap_nodes = cap;
	}
	node->graph = graph;
	node->kind = kind;
	node->index = graph->num_nodes;
	graph->nodes[graph->num_nodes++] = node;
	*out = node;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_node_create_from_ctx(struct doca_graph *graph, const struct doca_ctx *ctx,
					     struct doca_graph_node **node)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph);
	FERRY_ARG_NOT_NULL(ctx);
	FERRY_ARG_NOT_NULL(node);
	err = check_stopped(graph, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (ctx == &graph->ctx || ctx->ops == &graph_ctx_ops)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "a graph is not a context of another graph's nodes");
	if (ctx->pe != NULL && ctx->pe != graph->pe)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "context '%s' is connected to pe %p, graph %p runs on pe %p; a graph runs tasks "
				  "of its own pe only",
				  ctx->name, (void *)ctx->pe, (void *)graph, (void *)graph->pe);
	err = node_add(graph, GRAPH_NODE_CTX, __func__, node);
	if (err == DOCA_SUCCESS)
		(*node)->ctx = ctx;
	return err;
}

doca_error_t doca_graph_node_create_from_user(struct doca_graph *graph, doca_graph_user_node_cb_t cb,
					      struct doca_graph_node **node)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph);
	FERRY_ARG_NOT_NULL(cb);
	FERRY_ARG_NOT_NULL(node);
	err = check_stopped(graph, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	err = node_add(graph, GRAPH_NODE_USER, __func__, node);
	if (err == DOCA_SUCCESS)
		(*node)->cb = cb;
	return err;
}

/* True when @p graph runs @p target, itself or through its sub-graphs. */
static bool graph_contains(const struct doca_graph *graph, const struct doca_graph *target)
{
	if (graph == target)
		return true;
	for (uint32_t i = 0; i < graph->num_nodes; i++)
		if (graph->nodes[i]->kind == GRAPH_NODE_SUB && graph_contains(graph->nodes[i]->sub, target))
			return true;
	return false;
}

doca_error_t doca_graph_node_create_from_graph(struct doca_graph *graph, struct doca_graph *sub_graph,
					       struct doca_graph_node **node)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph);
	FERRY_ARG_NOT_NULL(sub_graph);
	FERRY_ARG_NOT_NULL(node);
	err = check_stopped(graph, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (graph_contains(sub_graph, graph))
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "graph %p runs graph %p already: the sub-graph would be a cycle", (void *)sub_graph,
				  (void *)graph);
	if (!sub_graph->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "sub-graph %p is not started; start it first",
				  (void *)sub_graph);
	if (sub_graph->pe != graph->pe)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "sub-graph %p runs on pe %p, graph %p on pe %p",
				  (void *)sub_graph, (void *)sub_graph->pe, (void *)graph, (void *)graph->pe);
	err = node_add(graph, GRAPH_NODE_SUB, __func__, node);
	if (err == DOCA_SUCCESS) {
		(*node)->sub = sub_graph;
		sub_graph->num_users++;
	}
	return err;
}

/* True when @p to leads to @p from: the edge from -> to would close a cycle. */
static doca_error_t reaches(const struct doca_graph *graph, const struct doca_graph_node *to,
			    const struct doca_graph_node *from, bool *found)
{
	const struct doca_graph_node **stack = ferry_malloc(graph->num_nodes * sizeof(*stack));
	bool *seen = ferry_calloc(graph->num_nodes, sizeof(*seen));
	uint32_t depth = 0;

	*found = false;
	if (stack == NULL || seen == NULL) {
		free(stack);
		free(seen);
		return DOCA_ERROR_NO_MEMORY;
	}
	stack[depth++] = to;
	seen[to->index] = true;
	while (depth > 0 && !*found) {
		const struct doca_graph_node *node = stack[--depth];

		if (node == from) {
			*found = true;
			break;
		}
		for (uint32_t i = 0; i < node->num_children; i++) {
			const struct doca_graph_node *child = node->children[i];

			if (!seen[child->index]) {
				seen[child->index] = true;
				stack[depth++] = child;
			}
		}
	}
	free(stack);
	free(seen);
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_add_dependency(struct doca_graph *graph, struct doca_graph_node *from,
				       struct doca_graph_node *to)
{
	doca_error_t err;
	bool cycle;

	FERRY_ARG_NOT_NULL(graph);
	FERRY_ARG_NOT_NULL(from);
	FERRY_ARG_NOT_NULL(to);
	err = check_stopped(graph, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (from->graph != graph || to->graph != graph)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "graph %p: node %p or %p belongs to another graph",
				  (void *)graph, (void *)from, (void *)to);
	for (uint32_t i = 0; i < from->num_children; i++)
		if (from->children[i] == to)
			return DOCA_SUCCESS; /* already there */
	err = reaches(graph, to, from, &cycle);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE(err, "graph %p: no memory to look for a cycle", (void *)graph);
	if (cycle)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "graph %p: %s node %u -> %s node %u would close a cycle; a graph is acyclic",
				  (void *)graph, kind_name(from->kind), from->index, kind_name(to->kind), to->index);
	if (from->num_children == from->cap_children) {
		uint32_t cap = from->cap_children != 0 ? from->cap_children * 2 : 4;
		struct doca_graph_node **children = ferry_realloc(from->children, cap * sizeof(*children));

		if (children == NULL)
			return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "graph %p: no memory for a dependency", (void *)graph);
		from->children = children;
		from->cap_children = cap;
	}
	from->children[from->num_children++] = to;
	to->num_parents++;
	return DOCA_SUCCESS;
}

/* Kahn's walk: every node is reached from the roots once its parents are, or there is a cycle. */
static doca_error_t check_acyclic(const struct doca_graph *graph, const char *call)
{
	uint32_t *waiting = ferry_malloc(graph->num_nodes * sizeof(*waiting));
	uint32_t *queue = ferry_malloc(graph->num_nodes * sizeof(*queue));
	uint32_t head = 0, tail = 0;

	if (waiting == NULL || queue == NULL) {
		free(waiting);
		free(queue);
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "graph %p: no memory to validate %u nodes",
				     (const void *)graph, graph->num_nodes);
	}
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		waiting[i] = graph->nodes[i]->num_parents;
		if (waiting[i] == 0)
			queue[tail++] = i;
	}
	while (head < tail) {
		const struct doca_graph_node *node = graph->nodes[queue[head++]];

		for (uint32_t i = 0; i < node->num_children; i++)
			if (--waiting[node->children[i]->index] == 0)
				queue[tail++] = node->children[i]->index;
	}
	free(waiting);
	free(queue);
	if (tail != graph->num_nodes)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED, "graph %p: %u of %u nodes are on a cycle",
				     (const void *)graph, graph->num_nodes - tail, graph->num_nodes);
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_start(struct doca_graph *graph)
{
	bool has_ctx = false;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph);
	if (graph->started)
		return DOCA_SUCCESS;
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		const struct doca_graph_node *node = graph->nodes[i];

		/* A started sub-graph has a context node of its own. */
		if (node->kind != GRAPH_NODE_USER)
			has_ctx = true;
		if (node->kind == GRAPH_NODE_CTX && node->ctx->pe != graph->pe)
			return FERRY_RULE(DOCA_ERROR_BAD_STATE,
					  "graph %p, node %u: context '%s' is not connected to the graph's pe %p",
					  (void *)graph, i, node->ctx->name, (void *)graph->pe);
		if (node->kind == GRAPH_NODE_CTX && node->ctx->state != DOCA_CTX_STATE_RUNNING)
			return FERRY_RULE(DOCA_ERROR_BAD_STATE,
					  "graph %p, node %u: context '%s' is %s; start contexts before the graph",
					  (void *)graph, i, node->ctx->name, ferry_ctx_state_name(node->ctx->state));
		if (node->kind == GRAPH_NODE_SUB && !node->sub->started)
			return FERRY_RULE(DOCA_ERROR_BAD_STATE, "graph %p, node %u: sub-graph %p is stopped",
					  (void *)graph, i, (void *)node->sub);
	}
	if (!has_ctx)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "graph %p has %s; a graph needs at least one context node",
				  (void *)graph, graph->num_nodes == 0 ? "no nodes" : "only user nodes");
	err = check_acyclic(graph, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	graph->started = true;
	/* The graph's own context: progress visits it from now on (see the top of the file). */
	graph->ctx.state = DOCA_CTX_STATE_RUNNING;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_stop(struct doca_graph *graph)
{
	FERRY_ARG_NOT_NULL(graph);
	if (!graph->started)
		return DOCA_SUCCESS;
	if (graph->num_instances != 0)
		return FERRY_RULE(DOCA_ERROR_IN_USE, "graph %p has %u instance(s); destroy them first", (void *)graph,
				  graph->num_instances);
	graph->started = false;
	graph->ctx.state = DOCA_CTX_STATE_IDLE;
	return DOCA_SUCCESS;
}

/* ---- instances ---- */

doca_error_t doca_graph_instance_create(const struct doca_graph *graph, struct doca_graph_instance **graph_instance)
{
	struct doca_graph *g;
	struct doca_graph_instance *inst;

	FERRY_ARG_NOT_NULL(graph);
	FERRY_ARG_NOT_NULL(graph_instance);
	/* The instance counts against its graph, which the program gave as const. */
	g = (struct doca_graph *)(uintptr_t)graph;
	if (!g->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "graph %p is not started", (void *)g);
	if (g->max_instances != 0 && g->num_instances >= g->max_instances)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "graph %p: all %u instances exist (doca_graph_set_conf)",
				  (void *)g, g->max_instances);
	inst = ferry_calloc(1, sizeof(*inst) + (size_t)g->num_nodes * sizeof(inst->slots[0]));
	if (inst == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "graph %p: no memory for an instance", (void *)g);
	inst->graph = g;
	for (uint32_t i = 0; i < g->num_nodes; i++) {
		inst->slots[i].owner.complete = slot_task_done;
		inst->slots[i].inst = inst;
		inst->slots[i].node = g->nodes[i];
	}
	g->num_instances++;
	*graph_instance = inst;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance)
{
	struct doca_graph_instance *inst = graph_instance;

	FERRY_ARG_NOT_NULL(graph_instance);
	if (inst->submitted)
		return FERRY_RULE(DOCA_ERROR_IN_USE, "graph instance %p is submitted; destroy it once it completed",
				  (void *)inst);
	/* Untie it from the sub-graph node it was given to, and from its own sub-instances. */
	if (inst->parent != NULL)
		inst->parent->sub = NULL;
	for (uint32_t i = 0; i < inst->graph->num_nodes; i++)
		if (inst->slots[i].sub != NULL)
			inst->slots[i].sub->parent = NULL;
	inst->graph->num_instances--;
	free(inst);
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance, union doca_data user_data)
{
	FERRY_ARG_NOT_NULL(graph_instance);
	if (graph_instance->submitted)
		return FERRY_RULE(DOCA_ERROR_IN_USE, "graph instance %p is submitted", (void *)graph_instance);
	graph_instance->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_get_user_data(const struct doca_graph_instance *graph_instance,
					       union doca_data *user_data)
{
	FERRY_ARG_NOT_NULL(graph_instance);
	FERRY_ARG_NOT_NULL(user_data);
	*user_data = graph_instance->user_data;
	return DOCA_SUCCESS;
}

/* The slot of @p node in @p inst, after the checks every setter shares. */
static doca_error_t slot_for(struct doca_graph_instance *inst, const struct doca_graph_node *node,
			     enum graph_node_kind kind, const char *call, struct graph_slot **slot)
{
	if (inst->submitted)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "graph instance %p is submitted", (void *)inst);
	if (node->graph != inst->graph)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED, "node %p is not of graph %p, the instance's",
				     (const void *)node, (void *)inst->graph);
	if (node->kind != kind)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED, "graph %p: node %u is a %s node, not a %s node",
				     (void *)inst->graph, node->index, kind_name(node->kind), kind_name(kind));
	*slot = &inst->slots[node->index];
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
						   struct doca_graph_node *node, struct doca_task *task)
{
	struct graph_slot *slot;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph_instance);
	FERRY_ARG_NOT_NULL(node);
	FERRY_ARG_NOT_NULL(task);
	err = slot_for(graph_instance, node, GRAPH_NODE_CTX, __func__, &slot);
	if (err != DOCA_SUCCESS)
		return err;
	if (task->ctx != node->ctx)
		return FERRY_RULE(
			DOCA_ERROR_NOT_PERMITTED, "graph %p, node %u runs tasks of context '%s'; task %p is of '%s'",
			(void *)graph_instance->graph, node->index, node->ctx->name, (void *)task, task->ctx->name);
	slot->task = task;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
						    struct doca_graph_node *node, void *cookie)
{
	struct graph_slot *slot;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph_instance);
	FERRY_ARG_NOT_NULL(node);
	err = slot_for(graph_instance, node, GRAPH_NODE_USER, __func__, &slot);
	if (err != DOCA_SUCCESS)
		return err;
	slot->cookie = cookie;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance,
							 struct doca_graph_node *node,
							 struct doca_graph_instance *sub_graph_instance)
{
	struct doca_graph_instance *sub = sub_graph_instance;
	struct graph_slot *slot;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph_instance);
	FERRY_ARG_NOT_NULL(node);
	FERRY_ARG_NOT_NULL(sub_graph_instance);
	err = slot_for(graph_instance, node, GRAPH_NODE_SUB, __func__, &slot);
	if (err != DOCA_SUCCESS)
		return err;
	if (sub->graph != node->sub)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "instance %p is of graph %p; node %u runs graph %p",
				  (void *)sub, (void *)sub->graph, node->index, (void *)node->sub);
	if (sub->submitted)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "instance %p is submitted", (void *)sub);
	if (sub->parent != NULL && sub->parent != slot)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "instance %p is given to another sub-graph node already",
				  (void *)sub);
	if (slot->sub != NULL)
		slot->sub->parent = NULL;
	slot->sub = sub;
	sub->parent = slot;
	return DOCA_SUCCESS;
}

doca_error_t doca_graph_instance_submit(struct doca_graph_instance *graph_instance)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(graph_instance);
	if (graph_instance->submitted)
		return FERRY_RULE(DOCA_ERROR_IN_USE, "graph instance %p is submitted already; wait for its callback",
				  (void *)graph_instance);
	err = instance_check(graph_instance);
	if (err != DOCA_SUCCESS)
		return err;
	return instance_run(graph_instance);
}
