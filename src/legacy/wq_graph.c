/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wq_graph.c - DOCA 2.2's task graph over work queues.
 *
 * A graph is nodes (a context's job, a user callback, a sub-graph) and
 * dependencies, fixed at doca_graph_start. An instance gives each node its
 * data (the job, the cookie, the sub-instance, and an optional doca_event to
 * fill); doca_workq_graph_submit runs it on a work queue: a node starts once
 * all its predecessors completed, a context node's job goes to the work queue
 * on the node's behalf (ferry_workq_submit_owned: its event is the node's, not
 * the program's), a user node's callback runs inside
 * doca_workq_progress_retrieve. When the last node is done, retrieve hands out
 * one DOCA_GRAPH_JOB event with the submit's user_data. A failing node stops
 * the instance from starting more; the nodes already running finish; then the
 * event carries the first failure (retrieve answers DOCA_ERROR_IO_FAILED).
 *
 * Every name clashes with DOCA 3's graph, so the 2.2 header binds each to a
 * ferry_v22_graph_* symbol.
 */
#include <stdlib.h>
#include <string.h>

#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "legacy/legacy_api.h"

FERRY_LOG_MODULE("workq");

#define GRAPH_MAGIC      0x47525048u /* "GRPH" */
#define INSTANCE_MAGIC   0x47494e53u /* "GINS" */
#define GRAPH_JOB        (FERRY_ACTION_GRAPH_FIRST + 1)
#define GRAPH_MAX_WORKQS 16

enum node_kind { NODE_CTX, NODE_USER, NODE_SUB_GRAPH };

/* enum doca_graph_instance_node_state */
enum node_state { NODE_NOT_STARTED = 0, NODE_STARTED = 1, NODE_COMPLETED = 2, NODE_ERROR = 3 };

struct ferry_wq_graph_node {
	struct ferry_wq_graph *graph;
	uint32_t index;
	enum node_kind kind;
	int job_type;                           /* NODE_CTX */
	struct doca_ctx *ctx;                   /* NODE_CTX */
	ferry_v22_graph_user_node_cb_t user_cb; /* NODE_USER */
	struct ferry_wq_graph *sub_graph;       /* NODE_SUB_GRAPH */
	uint32_t num_preds;
	uint32_t num_succs;
	uint32_t *succs; /* indexes of the nodes that wait for this one */
};

struct ferry_wq_graph {
	uint32_t magic;
	bool started;
	uint32_t num_nodes;
	struct ferry_wq_graph_node **nodes;
	uint32_t num_instances; /* alive: stop and destroy wait for none */
	uint32_t num_running;   /* instances submitted and not yet finished: workq_rm waits for none */
	uint32_t num_workqs;
	struct doca_workq *workqs[GRAPH_MAX_WORKQS];
};

/* One node of one instance. */
struct inst_node {
	struct ferry_wq_graph_instance *inst;
	uint32_t index;
	enum node_state state;
	uint32_t waiting_for; /* predecessors not yet completed in this run */
	bool data_set;
	const struct ferry_job *job;                  /* NODE_CTX */
	void *cookie;                                 /* NODE_USER */
	struct ferry_wq_graph_instance *sub_instance; /* NODE_SUB_GRAPH */
	struct ferry_event *ev;                       /* the program's, filled at completion; may be NULL */
	doca_error_t result;
	struct ferry_wq_owner owner; /* a context node's job completes here */
};

struct ferry_wq_graph_instance {
	uint32_t magic;
	struct ferry_wq_graph *graph;
	bool running;
	bool used_as_sub;             /* some other instance's sub-graph data */
	struct inst_node *parent;     /* running as a sub-graph node of another instance */
	struct doca_workq *workq;     /* while running */
	union doca_data user_data;    /* for the DOCA_GRAPH_JOB event */
	uint32_t started_not_done;    /* nodes started and not yet completed */
	uint32_t completed;           /* nodes completed in this run */
	doca_error_t first_error;     /* DOCA_SUCCESS while nothing failed */
	uint32_t num_ready;           /* nodes whose predecessors are all done, not yet started */
	uint32_t *ready;              /* num_nodes of room */
	struct ferry_wq_deferred run; /* starts ready nodes at retrieve */
	struct inst_node nodes[];
};

/* ---- checks ---- */

static doca_error_t check_graph(const struct ferry_wq_graph *graph, const char *call)
{
	if (graph == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "graph is NULL");
	if (graph->magic != GRAPH_MAGIC)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "%p is not a graph of DOCA 2.2's doca_graph_create (or it was destroyed)",
				     (const void *)graph);
	return DOCA_SUCCESS;
}

static doca_error_t check_instance(const struct ferry_wq_graph_instance *inst, const char *call)
{
	if (inst == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "graph instance is NULL");
	if (inst->magic != INSTANCE_MAGIC)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%p is not a graph instance (or it was destroyed)",
				     (const void *)inst);
	return DOCA_SUCCESS;
}

/* @p node must be a node of the instance's graph (NOT_PERMITTED otherwise, as DOCA has it). */
static doca_error_t check_node_of(const struct ferry_wq_graph_instance *inst, const struct ferry_wq_graph_node *node,
				  const char *call)
{
	if (node == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "node is NULL");
	if (node->graph != inst->graph)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED, "node %p belongs to another graph",
				     (const void *)node);
	return DOCA_SUCCESS;
}

/* ---- graphs ---- */

doca_error_t ferry_v22_graph_create(struct ferry_wq_graph **graph)
{
	LEGACY_ARG_NOT_NULL(graph);
	*graph = calloc(1, sizeof(**graph));
	if (*graph == NULL)
		return FERRY_RULE_IN("doca_graph_create", DOCA_ERROR_NO_MEMORY, "out of memory for a graph");
	(*graph)->magic = GRAPH_MAGIC;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_destroy(struct ferry_wq_graph *graph)
{
	doca_error_t err = check_graph(graph, "doca_graph_destroy");

	if (err != DOCA_SUCCESS)
		return err;
	if (graph->num_instances != 0 || graph->num_workqs != 0)
		return FERRY_RULE_IN("doca_graph_destroy", DOCA_ERROR_NOT_PERMITTED,
				     "graph %p still has %u instance(s) and is on %u work queue(s)", (void *)graph,
				     graph->num_instances, graph->num_workqs);
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		free(graph->nodes[i]->succs);
		free(graph->nodes[i]);
	}
	free(graph->nodes);
	graph->magic = 0;
	free(graph);
	return DOCA_SUCCESS;
}

static doca_error_t add_node(struct ferry_wq_graph *graph, enum node_kind kind, const char *call,
			     struct ferry_wq_graph_node **out)
{
	struct ferry_wq_graph_node **nodes;
	struct ferry_wq_graph_node *node;

	if (graph->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "graph %p is started; add nodes before doca_graph_start", (void *)graph);
	node = calloc(1, sizeof(*node));
	nodes = node != NULL ? realloc(graph->nodes, (graph->num_nodes + 1) * sizeof(*nodes)) : NULL;
	if (nodes == NULL) {
		free(node);
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory for a graph node");
	}
	graph->nodes = nodes;
	node->graph = graph;
	node->index = graph->num_nodes;
	node->kind = kind;
	nodes[graph->num_nodes++] = node;
	*out = node;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_ctx_node_create(struct ferry_wq_graph *graph, int job_type, const struct doca_ctx *ctx,
					     struct ferry_wq_graph_node **node)
{
	struct ferry_wq_ctx *wctx;
	doca_error_t err = check_graph(graph, "doca_graph_ctx_node_create");

	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(node);
	wctx = ferry_wq_ctx_from((struct doca_ctx *)(uintptr_t)ctx, "doca_graph_ctx_node_create");
	if (wctx == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (job_type < wctx->kind->first_job_type || job_type > wctx->kind->last_job_type)
		return FERRY_RULE_IN("doca_graph_ctx_node_create", DOCA_ERROR_INVALID_VALUE,
				     "job type %#x is not a job of a %s context", job_type, wctx->kind->name);
	err = add_node(graph, NODE_CTX, "doca_graph_ctx_node_create", node);
	if (err == DOCA_SUCCESS) {
		(*node)->job_type = job_type;
		(*node)->ctx = &wctx->generic;
	}
	return err;
}

doca_error_t ferry_v22_graph_user_node_create(struct ferry_wq_graph *graph, ferry_v22_graph_user_node_cb_t cb,
					      struct ferry_wq_graph_node **node)
{
	doca_error_t err = check_graph(graph, "doca_graph_user_node_create");

	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(cb);
	LEGACY_ARG_NOT_NULL(node);
	err = add_node(graph, NODE_USER, "doca_graph_user_node_create", node);
	if (err == DOCA_SUCCESS)
		(*node)->user_cb = cb;
	return err;
}

/* Does @p graph run @p target, itself or through its sub-graph nodes? */
static bool graph_contains(const struct ferry_wq_graph *graph, const struct ferry_wq_graph *target)
{
	if (graph == target)
		return true;
	for (uint32_t i = 0; i < graph->num_nodes; i++)
		if (graph->nodes[i]->kind == NODE_SUB_GRAPH && graph_contains(graph->nodes[i]->sub_graph, target))
			return true;
	return false;
}

doca_error_t ferry_v22_graph_sub_graph_node_create(struct ferry_wq_graph *graph, struct ferry_wq_graph *sub_graph,
						   struct ferry_wq_graph_node **node)
{
	const char *call = "doca_graph_sub_graph_node_create";
	doca_error_t err = check_graph(graph, call);

	if (err == DOCA_SUCCESS)
		err = check_graph(sub_graph, call);
	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(node);
	if (!sub_graph->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "sub-graph %p is not started", (void *)sub_graph);
	if (graph_contains(sub_graph, graph))
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED, "graph %p would run itself through sub-graph %p",
				     (void *)graph, (void *)sub_graph);
	err = add_node(graph, NODE_SUB_GRAPH, call, node);
	if (err == DOCA_SUCCESS)
		(*node)->sub_graph = sub_graph;
	return err;
}

/* Can @p to reach @p from through its successors? (Then from -> to closes a cycle.) */
static bool reaches(const struct ferry_wq_graph *graph, const struct ferry_wq_graph_node *to,
		    const struct ferry_wq_graph_node *from)
{
	if (to == from)
		return true;
	for (uint32_t i = 0; i < to->num_succs; i++)
		if (reaches(graph, graph->nodes[to->succs[i]], from))
			return true;
	return false;
}

doca_error_t ferry_v22_graph_add_dependency(struct ferry_wq_graph *graph, struct ferry_wq_graph_node *from,
					    struct ferry_wq_graph_node *to)
{
	const char *call = "doca_graph_add_dependency";
	uint32_t *succs;
	doca_error_t err = check_graph(graph, call);

	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(from);
	LEGACY_ARG_NOT_NULL(to);
	if (from->graph != graph || to->graph != graph)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "a node of another graph");
	if (graph->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "graph %p is started", (void *)graph);
	if (reaches(graph, to, from))
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED, "node %u -> node %u would close a cycle",
				     from->index, to->index);
	succs = realloc(from->succs, (from->num_succs + 1) * sizeof(*succs));
	if (succs == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory");
	from->succs = succs;
	succs[from->num_succs++] = to->index;
	to->num_preds++;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_start(struct ferry_wq_graph *graph)
{
	doca_error_t err = check_graph(graph, "doca_graph_start");

	if (err != DOCA_SUCCESS)
		return err;
	if (graph->started)
		return DOCA_SUCCESS;
	if (graph->num_nodes == 0)
		return FERRY_RULE_IN("doca_graph_start", DOCA_ERROR_BAD_STATE, "graph %p has no node", (void *)graph);
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		const struct ferry_wq_graph_node *node = graph->nodes[i];

		if (node->kind == NODE_CTX && !ferry_wq_ctx_from(node->ctx, "doca_graph_start")->started)
			return FERRY_RULE_IN("doca_graph_start", DOCA_ERROR_BAD_STATE,
					     "node %u's context %p is not started", i, (void *)node->ctx);
	}
	graph->started = true;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_stop(struct ferry_wq_graph *graph)
{
	doca_error_t err = check_graph(graph, "doca_graph_stop");

	if (err != DOCA_SUCCESS)
		return err;
	if (graph->num_instances != 0 || graph->num_workqs != 0)
		return FERRY_RULE_IN("doca_graph_stop", DOCA_ERROR_NOT_PERMITTED,
				     "graph %p still has %u instance(s) and is on %u work queue(s)", (void *)graph,
				     graph->num_instances, graph->num_workqs);
	graph->started = false;
	return DOCA_SUCCESS;
}

static int find_workq(const struct ferry_wq_graph *graph, const struct doca_workq *workq)
{
	for (uint32_t i = 0; i < graph->num_workqs; i++)
		if (graph->workqs[i] == workq)
			return (int)i;
	return -1;
}

/* Every context @p graph (and its sub-graphs) submits to must be on @p workq. */
static doca_error_t check_ctxs_on(const struct ferry_wq_graph *graph, const struct doca_workq *workq)
{
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		const struct ferry_wq_graph_node *node = graph->nodes[i];
		doca_error_t err = DOCA_SUCCESS;

		if (node->kind == NODE_CTX && ferry_workq_find_attach(workq, node->ctx) == NULL)
			err = FERRY_RULE_IN("doca_graph_workq_add", DOCA_ERROR_BAD_STATE,
					    "node %u's context %p is not on work queue %p (doca_ctx_workq_add first)",
					    i, (void *)node->ctx, (const void *)workq);
		else if (node->kind == NODE_SUB_GRAPH)
			err = check_ctxs_on(node->sub_graph, workq);
		if (err != DOCA_SUCCESS)
			return err;
	}
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_workq_add(struct ferry_wq_graph *graph, struct doca_workq *workq)
{
	doca_error_t err = check_graph(graph, "doca_graph_workq_add");

	if (err == DOCA_SUCCESS)
		err = ferry_workq_check(workq, "doca_graph_workq_add");
	if (err != DOCA_SUCCESS)
		return err;
	if (!graph->started)
		return FERRY_RULE_IN("doca_graph_workq_add", DOCA_ERROR_BAD_STATE, "graph %p is not started",
				     (void *)graph);
	if (find_workq(graph, workq) >= 0)
		return FERRY_RULE_IN("doca_graph_workq_add", DOCA_ERROR_IN_USE, "graph %p is already on work queue %p",
				     (void *)graph, (void *)workq);
	if (graph->num_workqs == GRAPH_MAX_WORKQS)
		return FERRY_RULE_IN("doca_graph_workq_add", DOCA_ERROR_NO_MEMORY, "graph %p is on %u work queues",
				     (void *)graph, GRAPH_MAX_WORKQS);
	err = check_ctxs_on(graph, workq);
	if (err != DOCA_SUCCESS)
		return err;
	graph->workqs[graph->num_workqs++] = workq;
	return DOCA_SUCCESS;
}

/* ---- instances ---- */

doca_error_t ferry_v22_graph_instance_create(const struct ferry_wq_graph *graph,
					     struct ferry_wq_graph_instance **instance)
{
	struct ferry_wq_graph_instance *inst;
	struct ferry_wq_graph *g = (struct ferry_wq_graph *)(uintptr_t)graph;
	doca_error_t err = check_graph(graph, "doca_graph_instance_create");

	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(instance);
	if (!graph->started)
		return FERRY_RULE_IN("doca_graph_instance_create", DOCA_ERROR_BAD_STATE, "graph %p is not started",
				     (const void *)graph);
	inst = calloc(1, sizeof(*inst) + graph->num_nodes * sizeof(inst->nodes[0]));
	if (inst != NULL)
		inst->ready = calloc(graph->num_nodes, sizeof(*inst->ready));
	if (inst == NULL || inst->ready == NULL) {
		free(inst);
		return FERRY_RULE_IN("doca_graph_instance_create", DOCA_ERROR_NO_MEMORY, "out of memory");
	}
	inst->magic = INSTANCE_MAGIC;
	inst->graph = g;
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		inst->nodes[i].inst = inst;
		inst->nodes[i].index = i;
	}
	g->num_instances++;
	*instance = inst;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_instance_destroy(struct ferry_wq_graph_instance *instance)
{
	doca_error_t err = check_instance(instance, "doca_graph_instance_destroy");

	if (err != DOCA_SUCCESS)
		return err;
	if (instance->running || instance->used_as_sub)
		return FERRY_RULE_IN("doca_graph_instance_destroy", DOCA_ERROR_NOT_PERMITTED, "graph instance %p is %s",
				     (void *)instance,
				     instance->running ? "running" : "another instance's sub-graph data");
	for (uint32_t i = 0; i < instance->graph->num_nodes; i++)
		if (instance->nodes[i].sub_instance != NULL)
			instance->nodes[i].sub_instance->used_as_sub = false;
	instance->graph->num_instances--;
	instance->magic = 0;
	free(instance->ready);
	free(instance);
	return DOCA_SUCCESS;
}

/* The common checks of set_*_node_data; the node's instance data or NULL (the error in @p err). */
static struct inst_node *node_data(struct ferry_wq_graph_instance *inst, const struct ferry_wq_graph_node *node,
				   enum node_kind kind, const char *call, doca_error_t *err)
{
	*err = check_instance(inst, call);
	if (*err == DOCA_SUCCESS)
		*err = check_node_of(inst, node, call);
	if (*err != DOCA_SUCCESS)
		return NULL;
	if (inst->running) {
		*err = FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "graph instance %p is running", (void *)inst);
		return NULL;
	}
	if (node->kind != kind) {
		*err = FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED, "node %u is not a %s node", node->index,
				     kind == NODE_CTX    ? "context"
				     : kind == NODE_USER ? "user"
							 : "sub-graph");
		return NULL;
	}
	return &inst->nodes[node->index];
}

doca_error_t ferry_v22_graph_instance_set_ctx_node_data(struct ferry_wq_graph_instance *instance,
							struct ferry_wq_graph_node *node, struct ferry_job *job,
							struct ferry_event *ev)
{
	const char *call = "doca_graph_instance_set_ctx_node_data";
	doca_error_t err;
	struct inst_node *n = node_data(instance, node, NODE_CTX, call, &err);

	if (n == NULL)
		return err;
	LEGACY_ARG_NOT_NULL(job);
	if (job->type != node->job_type || job->ctx != node->ctx)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "job of type %#x for context %p; node %u runs type %#x on context %p", job->type,
				     (void *)job->ctx, node->index, node->job_type, (void *)node->ctx);
	n->job = job;
	n->ev = ev;
	n->data_set = true;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_instance_set_user_node_data(struct ferry_wq_graph_instance *instance,
							 struct ferry_wq_graph_node *node, void *cookie,
							 struct ferry_event *ev)
{
	doca_error_t err;
	struct inst_node *n = node_data(instance, node, NODE_USER, "doca_graph_instance_set_user_node_data", &err);

	if (n == NULL)
		return err;
	n->cookie = cookie;
	n->ev = ev;
	n->data_set = true;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_instance_set_sub_graph_node_data(struct ferry_wq_graph_instance *instance,
							      struct ferry_wq_graph_node *node,
							      struct ferry_wq_graph_instance *sub_instance,
							      struct ferry_event *ev)
{
	const char *call = "doca_graph_instance_set_sub_graph_node_data";
	doca_error_t err;
	struct inst_node *n = node_data(instance, node, NODE_SUB_GRAPH, call, &err);

	if (n == NULL)
		return err;
	err = check_instance(sub_instance, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (sub_instance->graph != node->sub_graph || sub_instance->used_as_sub || sub_instance->running)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "instance %p is not a free instance of node %u's sub-graph", (void *)sub_instance,
				     node->index);
	if (n->sub_instance != NULL)
		n->sub_instance->used_as_sub = false;
	sub_instance->used_as_sub = true;
	n->sub_instance = sub_instance;
	n->ev = ev;
	n->data_set = true;
	return DOCA_SUCCESS;
}

/* ---- running ---- */

static void start_run(struct ferry_wq_graph_instance *inst, struct doca_workq *workq, struct inst_node *parent);

/* The instance is done: its event, or its parent node's completion. */
static void finish_run(struct ferry_wq_graph_instance *inst)
{
	struct inst_node *parent = inst->parent;

	inst->running = false;
	inst->parent = NULL;
	if (parent == NULL) {
		inst->graph->num_running--;
		ferry_workq_post_event(inst->workq, GRAPH_JOB, inst->user_data, inst->first_error);
	} else
		parent->owner.complete(&parent->owner, inst->first_error);
}

static void mark_ready(struct ferry_wq_graph_instance *inst, uint32_t index)
{
	inst->ready[inst->num_ready++] = index;
	ferry_workq_defer(inst->workq, &inst->run);
}

/* A node of a running instance finished with @p status. */
static void node_done(struct inst_node *n, doca_error_t status)
{
	struct ferry_wq_graph_instance *inst = n->inst;
	const struct ferry_wq_graph_node *node = inst->graph->nodes[n->index];

	n->state = status == DOCA_SUCCESS ? NODE_COMPLETED : NODE_ERROR;
	n->result = status;
	if (n->ev != NULL) {
		n->ev->type = node->kind == NODE_CTX ? node->job_type : node->kind == NODE_SUB_GRAPH ? GRAPH_JOB : 0;
		n->ev->user_data = node->kind == NODE_CTX ? n->job->user_data : (union doca_data){.ptr = n->cookie};
		n->ev->result.u64 = (uint64_t)status;
	}
	inst->started_not_done--;
	if (status != DOCA_SUCCESS && inst->first_error == DOCA_SUCCESS)
		inst->first_error = status;
	if (status == DOCA_SUCCESS) {
		inst->completed++;
		for (uint32_t i = 0; i < node->num_succs; i++)
			if (--inst->nodes[node->succs[i]].waiting_for == 0)
				mark_ready(inst, node->succs[i]);
	}
	/* Done when nothing runs and nothing more may start (all completed, or a failure stops the rest). */
	if (inst->started_not_done == 0 &&
	    (inst->first_error != DOCA_SUCCESS || inst->completed == inst->graph->num_nodes))
		finish_run(inst);
}

static void ctx_node_done(struct ferry_wq_owner *owner, doca_error_t status)
{
	node_done(ferry_container_of(owner, struct inst_node, owner), status);
}

/* Start one ready node; false when the work queue is full and it must wait. */
static bool start_node(struct ferry_wq_graph_instance *inst, uint32_t index)
{
	struct inst_node *n = &inst->nodes[index];
	const struct ferry_wq_graph_node *node = inst->graph->nodes[index];
	doca_error_t err;

	/* A busy queue delays a context node; it does not fail it. */
	if (node->kind == NODE_CTX && !ferry_workq_has_room(inst->workq))
		return false;
	n->state = NODE_STARTED;
	inst->started_not_done++;
	switch (node->kind) {
	case NODE_CTX:
		n->owner.complete = ctx_node_done;
		err = ferry_workq_submit_owned(inst->workq, n->job, &n->owner);
		if (err != DOCA_SUCCESS)
			node_done(n, err);
		return true;
	case NODE_USER:
		node_done(n, node->user_cb(n->cookie, n->ev));
		return true;
	default:
		n->owner.complete = ctx_node_done;
		start_run(n->sub_instance, inst->workq, n);
		return true;
	}
}

/* At retrieve: start the ready nodes, oldest first, until one has to wait for room. */
static void run_ready(struct ferry_wq_deferred *item)
{
	struct ferry_wq_graph_instance *inst = ferry_container_of(item, struct ferry_wq_graph_instance, run);
	uint32_t taken = 0;

	while (taken < inst->num_ready && inst->running && inst->first_error == DOCA_SUCCESS) {
		if (!start_node(inst, inst->ready[taken]))
			break;
		taken++;
	}
	if (!inst->running || inst->first_error != DOCA_SUCCESS) {
		inst->num_ready = 0; /* a failure starts nothing more */
		return;
	}
	memmove(inst->ready, inst->ready + taken, (inst->num_ready - taken) * sizeof(*inst->ready));
	inst->num_ready -= taken;
	if (inst->num_ready != 0)
		ferry_workq_defer(inst->workq, &inst->run);
}

static void start_run(struct ferry_wq_graph_instance *inst, struct doca_workq *workq, struct inst_node *parent)
{
	const struct ferry_wq_graph *graph = inst->graph;

	inst->running = true;
	inst->parent = parent;
	inst->workq = workq;
	inst->started_not_done = 0;
	inst->completed = 0;
	inst->first_error = DOCA_SUCCESS;
	inst->num_ready = 0;
	inst->run.run = run_ready;
	for (uint32_t i = 0; i < graph->num_nodes; i++) {
		inst->nodes[i].state = NODE_NOT_STARTED;
		inst->nodes[i].result = DOCA_SUCCESS;
		inst->nodes[i].waiting_for = graph->nodes[i]->num_preds;
		if (graph->nodes[i]->num_preds == 0)
			mark_ready(inst, i);
	}
}

/* Every node of @p inst (and of its sub-instances) has its data. */
static doca_error_t check_all_data(const struct ferry_wq_graph_instance *inst)
{
	for (uint32_t i = 0; i < inst->graph->num_nodes; i++) {
		doca_error_t err;

		if (!inst->nodes[i].data_set)
			return FERRY_RULE_IN(
				"doca_workq_graph_submit", DOCA_ERROR_INVALID_VALUE,
				"node %u of graph instance %p has no data (doca_graph_instance_set_*_node_data)", i,
				(const void *)inst);
		if (inst->nodes[i].sub_instance != NULL) {
			err = check_all_data(inst->nodes[i].sub_instance);
			if (err != DOCA_SUCCESS)
				return err;
		}
	}
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_workq_graph_submit(struct doca_workq *workq, struct ferry_wq_graph_instance *instance,
					  union doca_data user_data)
{
	const char *call = "doca_workq_graph_submit";
	doca_error_t err = ferry_workq_check(workq, call);

	if (err == DOCA_SUCCESS)
		err = check_instance(instance, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (instance->running || instance->used_as_sub)
		return FERRY_RULE_IN(call, DOCA_ERROR_IN_USE, "graph instance %p is %s", (void *)instance,
				     instance->running ? "already running" : "another instance's sub-graph data");
	if (find_workq(instance->graph, workq) < 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND,
				     "graph %p is not on work queue %p (doca_graph_workq_add)", (void *)instance->graph,
				     (void *)workq);
	err = check_all_data(instance);
	if (err == DOCA_SUCCESS)
		err = ferry_workq_reserve(workq, call); /* the instance's own event */
	if (err != DOCA_SUCCESS)
		return err;
	instance->user_data = user_data;
	instance->graph->num_running++;
	start_run(instance, workq, NULL);
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_workq_rm(struct ferry_wq_graph *graph, struct doca_workq *workq)
{
	int at;
	doca_error_t err = check_graph(graph, "doca_graph_workq_rm");

	if (err != DOCA_SUCCESS)
		return err;
	at = find_workq(graph, workq);
	if (at < 0)
		return FERRY_RULE_IN("doca_graph_workq_rm", DOCA_ERROR_BAD_STATE, "graph %p is not on work queue %p",
				     (void *)graph, (void *)workq);
	if (graph->num_running != 0)
		return FERRY_RULE_IN("doca_graph_workq_rm", DOCA_ERROR_IN_USE,
				     "%u instance(s) of graph %p are running; retrieve their events first",
				     graph->num_running, (void *)graph);
	graph->workqs[at] = graph->workqs[--graph->num_workqs];
	return DOCA_SUCCESS;
}

/* ---- what an instance's last run did ---- */

doca_error_t ferry_v22_graph_instance_get_num_failed_nodes(const struct ferry_wq_graph_instance *instance,
							   uint32_t *num_failed_nodes)
{
	doca_error_t err = check_instance(instance, "doca_graph_instance_get_num_failed_nodes");

	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(num_failed_nodes);
	*num_failed_nodes = 0;
	for (uint32_t i = 0; i < instance->graph->num_nodes; i++)
		*num_failed_nodes += instance->nodes[i].state == NODE_ERROR;
	return DOCA_SUCCESS;
}

/* @p num_failed_nodes: room in @p failed_nodes in, nodes written out. */
doca_error_t ferry_v22_graph_instance_get_failed_nodes(const struct ferry_wq_graph_instance *instance,
						       const struct ferry_wq_graph_node **failed_nodes,
						       uint32_t *num_failed_nodes)
{
	uint32_t room, n = 0;
	doca_error_t err = check_instance(instance, "doca_graph_instance_get_failed_nodes");

	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(failed_nodes);
	LEGACY_ARG_NOT_NULL(num_failed_nodes);
	room = *num_failed_nodes;
	for (uint32_t i = 0; i < instance->graph->num_nodes && n < room; i++)
		if (instance->nodes[i].state == NODE_ERROR)
			failed_nodes[n++] = instance->graph->nodes[i];
	*num_failed_nodes = n;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_instance_node_get_state(const struct ferry_wq_graph_instance *instance,
						     const struct ferry_wq_graph_node *node, int *state)
{
	doca_error_t err = check_instance(instance, "doca_graph_instance_node_get_state");

	if (err == DOCA_SUCCESS)
		err = check_node_of(instance, node, "doca_graph_instance_node_get_state");
	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(state);
	*state = (int)instance->nodes[node->index].state;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v22_graph_instance_node_get_result(const struct ferry_wq_graph_instance *instance,
						      const struct ferry_wq_graph_node *node, union doca_data *result)
{
	doca_error_t err = check_instance(instance, "doca_graph_instance_node_get_result");

	if (err == DOCA_SUCCESS)
		err = check_node_of(instance, node, "doca_graph_instance_node_get_result");
	if (err != DOCA_SUCCESS)
		return err;
	LEGACY_ARG_NOT_NULL(result);
	result->u64 = (uint64_t)instance->nodes[node->index].result;
	return DOCA_SUCCESS;
}
