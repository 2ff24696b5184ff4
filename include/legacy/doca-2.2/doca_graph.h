/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_graph.h (DOCA 2.2 flavour) - jobs and callbacks run in dependency
 * order on a work queue.
 *
 * Build a graph of nodes (a context's job type, a user callback, a sub-graph)
 * and dependencies, start it, add it to a work queue that already serves its
 * contexts. Per run, create an instance, give every node its data (the job,
 * the cookie, the sub-graph's instance, and optionally a doca_event the node's
 * outcome is written to), and submit it with doca_workq_graph_submit. A node
 * runs once all its predecessors completed; user callbacks run inside
 * doca_workq_progress_retrieve. The nodes' own completions are not retrieved:
 * the instance gives one event (type DOCA_GRAPH_JOB, the submit's user_data)
 * when it is done, with the first failure in result if a node failed (a
 * failure starts no further node). Then the instance may be submitted again.
 */
#ifndef DOCA_GRAPH_H_
#define DOCA_GRAPH_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_graph;
struct doca_graph_node;
struct doca_graph_instance;

enum doca_graph_job_types {
	DOCA_GRAPH_JOB = DOCA_ACTION_GRAPH_FIRST + 1,
};

/** A user node's work: return DOCA_SUCCESS, or an error to fail the instance. */
typedef doca_error_t (*doca_graph_user_node_cb_t)(void *cookie, struct doca_event *ev);

enum doca_graph_instance_node_state {
	DOCA_GRAPH_INSTANCE_NODE_STATE_NOT_STARTED = 0,
	DOCA_GRAPH_INSTANCE_NODE_STATE_STARTED,
	DOCA_GRAPH_INSTANCE_NODE_STATE_COMPLETED,
	DOCA_GRAPH_INSTANCE_NODE_STATE_ERROR,
};

DOCA_EXPERIMENTAL doca_error_t doca_graph_create(struct doca_graph **graph) FERRY_LEGACY_SYMBOL(ferry_v22_graph_create);
/** Refused (DOCA_ERROR_NOT_PERMITTED) while instances exist or the graph is on a work queue. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_destroy(struct doca_graph *graph)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_destroy);
/** A node that runs one job of @p job_type on @p ctx. Before doca_graph_start. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_ctx_node_create(struct doca_graph *graph, int job_type,
							  const struct doca_ctx *ctx, struct doca_graph_node **node)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_ctx_node_create);
DOCA_EXPERIMENTAL doca_error_t doca_graph_user_node_create(struct doca_graph *graph, doca_graph_user_node_cb_t cb,
							   struct doca_graph_node **node)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_user_node_create);
/** A node that runs an instance of @p sub_graph (started; not containing @p graph). */
DOCA_EXPERIMENTAL doca_error_t doca_graph_sub_graph_node_create(struct doca_graph *graph, struct doca_graph *sub_graph,
								struct doca_graph_node **node)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_sub_graph_node_create);
/** @p to runs after @p from; a cycle is refused (DOCA_ERROR_NOT_PERMITTED). */
DOCA_EXPERIMENTAL doca_error_t doca_graph_add_dependency(struct doca_graph *graph, struct doca_graph_node *from,
							 struct doca_graph_node *to)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_add_dependency);
/** Needs at least one node and every node's context started. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_start(struct doca_graph *graph) FERRY_LEGACY_SYMBOL(ferry_v22_graph_start);
DOCA_EXPERIMENTAL doca_error_t doca_graph_stop(struct doca_graph *graph) FERRY_LEGACY_SYMBOL(ferry_v22_graph_stop);
/** The work queue must already serve every context of the graph. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_workq_add(struct doca_graph *graph, struct doca_workq *workq)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_workq_add);
DOCA_EXPERIMENTAL doca_error_t doca_graph_workq_rm(struct doca_graph *graph, struct doca_workq *workq)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_workq_rm);

DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_create(const struct doca_graph *graph,
							  struct doca_graph_instance **graph_instance)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_instance_create);
/** Refused while running or while another instance uses it as sub-graph data. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_instance_destroy);
/** The job (type and ctx as the node's) and the event to fill; both must outlive the run. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
								     struct doca_graph_node *node, struct doca_job *job,
								     struct doca_event *ev)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_instance_set_ctx_node_data);
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
								      struct doca_graph_node *node, void *cookie,
								      struct doca_event *ev)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_instance_set_user_node_data);
DOCA_EXPERIMENTAL doca_error_t
doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance, struct doca_graph_node *node,
					    struct doca_graph_instance *sub_graph_instance, struct doca_event *ev)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_instance_set_sub_graph_node_data);
/**
 * Run the instance on @p workq: DOCA_ERROR_IN_USE when it runs already,
 * DOCA_ERROR_NO_MEMORY when the work queue is full, DOCA_ERROR_NOT_FOUND when
 * the graph is not on that work queue.
 */
DOCA_EXPERIMENTAL doca_error_t doca_workq_graph_submit(struct doca_workq *workq,
						       struct doca_graph_instance *graph_instance,
						       union doca_data user_data)
	FERRY_LEGACY_SYMBOL(ferry_v22_workq_graph_submit);

/** Of the instance's last run. */
DOCA_EXPERIMENTAL doca_error_t
doca_graph_instance_get_num_failed_nodes(const struct doca_graph_instance *graph_instance, uint32_t *num_failed_nodes)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_instance_get_num_failed_nodes);
/** @p num_failed_nodes: the room in @p failed_nodes in, the nodes written out. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_get_failed_nodes(const struct doca_graph_instance *graph_instance,
								    const struct doca_graph_node **failed_nodes,
								    uint32_t *num_failed_nodes)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_instance_get_failed_nodes);
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_node_get_state(const struct doca_graph_instance *graph_instance,
								  const struct doca_graph_node *node,
								  enum doca_graph_instance_node_state *state)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_instance_node_get_state);
/** result.u64: the node's doca_error_t. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_node_get_result(const struct doca_graph_instance *graph_instance,
								   const struct doca_graph_node *node,
								   union doca_data *result)
	FERRY_LEGACY_SYMBOL(ferry_v22_graph_instance_node_get_result);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GRAPH_H_ */
