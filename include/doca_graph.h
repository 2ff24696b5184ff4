/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_graph.h - task graphs: a fixed shape of work, run many times.
 *
 * A graph is a directed acyclic graph of nodes, built once on one progress
 * engine (PE) and then started. Three kinds of node:
 *   - context node: runs one task of a context connected to the graph's PE;
 *   - user node: calls a function of the program, from doca_pe_progress;
 *   - sub-graph node: runs a whole instance of another (started) graph.
 * A node with no dependency is a root. A node runs once all the nodes it
 * depends on have finished.
 *
 * The data of one run lives in an instance: each context node gets its task,
 * each user node its cookie, each sub-graph node an instance of the sub-graph.
 * doca_graph_instance_submit starts the roots; when every node has finished,
 * the graph's completion callback runs from doca_pe_progress. When a node fails
 * (its task completes with an error, its user callback returns an error, its
 * sub-graph instance fails), no further node of that instance starts, the
 * nodes already running finish, and then the error callback runs. A finished
 * instance may be submitted again (refresh its tasks' buffers first).
 *
 * Call order: doca_graph_create, node creation and doca_graph_add_dependency,
 * doca_graph_set_conf, doca_graph_start (validates the graph; the contexts of
 * its context nodes must be running), instances: create, set node data,
 * submit, progress the PE; teardown: destroy instances, doca_graph_stop,
 * doca_graph_destroy, then the contexts and the PE.
 *
 * A task given to an instance belongs to the program (it allocates and frees
 * it) and must outlive the instance; while the graph runs it, the task's own
 * completion callbacks are not called.
 *
 * Threading: a graph, its instances and its PE are used from one thread at a time.
 */
#ifndef DOCA_GRAPH_H_
#define DOCA_GRAPH_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_pe;
struct doca_ctx;
struct doca_task;
struct doca_graph;
struct doca_graph_node;
struct doca_graph_instance;

/**
 * @brief Called from doca_pe_progress when an instance has finished.
 * @param [in] instance            the instance; it may be submitted again or destroyed from here.
 * @param [in] instance_user_data  doca_graph_instance_set_user_data's value.
 * @param [in] graph_user_data     doca_graph_set_user_data's value.
 */
typedef void (*doca_graph_completion_cb_t)(struct doca_graph_instance *instance, union doca_data instance_user_data,
					   union doca_data graph_user_data);

/**
 * @brief A user node's work, called from doca_pe_progress.
 * @param [in] cookie  the instance's value for this node (doca_graph_instance_set_user_node_data).
 * @return DOCA_SUCCESS, or an error that fails the instance.
 */
typedef doca_error_t (*doca_graph_user_node_cb_t)(void *cookie);

/**
 * @brief Create a graph bound to @p pe for life.
 * @param [in] pe      progress engine that runs the graph's instances.
 * @param [out] graph  the new graph, stopped and empty.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE on NULL; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_create(struct doca_pe *pe, struct doca_graph **graph);

/**
 * @brief Destroy a stopped graph and its nodes.
 * @return DOCA_ERROR_BAD_STATE when started; DOCA_ERROR_IN_USE while a node of
 * another graph runs it as a sub-graph.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_destroy(struct doca_graph *graph);

/**
 * @brief Set the callbacks and the maximum number of instances.
 * @param [in] graph                graph, stopped.
 * @param [in] graph_completion_cb  called when an instance succeeded.
 * @param [in] graph_error_cb       called when an instance failed.
 * @param [in] num_instances        how many instances may exist at once (at least 1).
 * @return DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE when started.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_set_conf(struct doca_graph *graph,
						   doca_graph_completion_cb_t graph_completion_cb,
						   doca_graph_completion_cb_t graph_error_cb, uint32_t num_instances);

/** @brief Set the value handed to the completion callbacks. DOCA_ERROR_BAD_STATE when started. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_set_user_data(struct doca_graph *graph, union doca_data user_data);

/** @brief Read the graph's user data. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_get_user_data(const struct doca_graph *graph, union doca_data *user_data);

/**
 * @brief Add a context node: each instance runs one task of @p ctx.
 * @param [in] graph  graph, stopped.
 * @param [in] ctx    a context connected to the graph's PE.
 * @param [out] node  the new node, a root until a dependency leads to it.
 * @return DOCA_ERROR_BAD_STATE when started; DOCA_ERROR_NOT_PERMITTED when @p ctx
 * is connected to another PE; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_node_create_from_ctx(struct doca_graph *graph, const struct doca_ctx *ctx,
							       struct doca_graph_node **node);

/**
 * @brief Add a user node: each instance calls @p cb with its cookie.
 * @return DOCA_ERROR_BAD_STATE when started; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_node_create_from_user(struct doca_graph *graph, doca_graph_user_node_cb_t cb,
								struct doca_graph_node **node);

/**
 * @brief Add a sub-graph node: each instance runs an instance of @p sub_graph.
 * @return DOCA_ERROR_BAD_STATE when @p graph is started or @p sub_graph is not;
 * DOCA_ERROR_NOT_PERMITTED when @p sub_graph is @p graph, contains it, or lives
 * on another PE; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_node_create_from_graph(struct doca_graph *graph, struct doca_graph *sub_graph,
								 struct doca_graph_node **node);

/**
 * @brief Make @p to run after @p from has finished.
 * @return DOCA_ERROR_BAD_STATE when started; DOCA_ERROR_NOT_PERMITTED when a node
 * is not of @p graph or the dependency would close a cycle; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_add_dependency(struct doca_graph *graph, struct doca_graph_node *from,
							 struct doca_graph_node *to);

/**
 * @brief Validate the graph and start it; instances may then be created. A second start succeeds.
 * @return DOCA_ERROR_BAD_STATE when the graph has no context node (its sub-graphs
 * count), a node's context is not running or not on the graph's PE, or a
 * sub-graph is not started; DOCA_ERROR_NOT_PERMITTED on a cycle; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_start(struct doca_graph *graph);

/**
 * @brief Stop the graph (SUCCESS if already stopped).
 * @return DOCA_ERROR_IN_USE while instances exist.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_stop(struct doca_graph *graph);

/**
 * @brief Create an instance of a started graph.
 * @return DOCA_ERROR_BAD_STATE when the graph is stopped; DOCA_ERROR_NO_MEMORY,
 * also when doca_graph_set_conf's number of instances exist.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_create(const struct doca_graph *graph,
							  struct doca_graph_instance **graph_instance);

/**
 * @brief Destroy an instance that is not running. Its tasks stay the program's.
 * @return DOCA_ERROR_IN_USE while submitted.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_destroy(struct doca_graph_instance *graph_instance);

/** @brief Set the value handed to the completion callbacks. DOCA_ERROR_IN_USE while submitted. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_user_data(struct doca_graph_instance *graph_instance,
								 union doca_data user_data);

/** @brief Read the instance's user data. */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_get_user_data(const struct doca_graph_instance *graph_instance,
								 union doca_data *user_data);

/**
 * @brief Give a context node its task for this instance.
 * @param [in] task  an allocated task of the node's context; it must outlive the instance.
 * @return DOCA_ERROR_BAD_STATE while submitted; DOCA_ERROR_NOT_PERMITTED when the
 * node is of another graph or not a context node, or the task of another context.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_ctx_node_data(struct doca_graph_instance *graph_instance,
								     struct doca_graph_node *node,
								     struct doca_task *task);

/**
 * @brief Give a user node its cookie for this instance.
 * @return DOCA_ERROR_BAD_STATE while submitted; DOCA_ERROR_NOT_PERMITTED when the
 * node is of another graph or not a user node.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_set_user_node_data(struct doca_graph_instance *graph_instance,
								      struct doca_graph_node *node, void *cookie);

/**
 * @brief Give a sub-graph node the sub-graph's instance it runs for this instance.
 * @return DOCA_ERROR_BAD_STATE while submitted; DOCA_ERROR_NOT_PERMITTED when the
 * node is of another graph or not a sub-graph node, or @p sub_graph_instance is
 * submitted, of another graph, or already given to another node.
 */
DOCA_EXPERIMENTAL doca_error_t
doca_graph_instance_set_sub_graph_node_data(struct doca_graph_instance *graph_instance, struct doca_graph_node *node,
					    struct doca_graph_instance *sub_graph_instance);

/**
 * @brief Run the instance: its roots start now; the callbacks report from doca_pe_progress.
 * @return DOCA_ERROR_IN_USE when already submitted; DOCA_ERROR_BAD_STATE when a node
 * has no data, a task is not idle or its context is not running, or the graph is
 * stopped; a root task's submit error. The instance cannot be cancelled once submitted.
 */
DOCA_EXPERIMENTAL doca_error_t doca_graph_instance_submit(struct doca_graph_instance *graph_instance);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_GRAPH_H_ */
