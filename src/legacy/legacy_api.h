/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy_api.h - every function libferry_legacy exports (src/libferry_legacy.map),
 * under the name its symbol has: DOCA's name where no later DOCA reuses it,
 * else the ferry_* name the legacy headers bind the DOCA name to. Legacy
 * structs appear under the tags of legacy_priv.h (struct ferry_job for struct
 * doca_job, ...), which have the same layout.
 */
#ifndef FERRY_LEGACY_API_H_
#define FERRY_LEGACY_API_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_types.h>

#include "legacy/legacy_priv.h"

#define FERRY_LEGACY_API __attribute__((visibility("default")))

struct ferry_wq_dma;
struct ferry_v14_mmap;

/* workq.c */
FERRY_LEGACY_API
doca_error_t doca_workq_create(uint32_t depth, struct doca_workq **workq);
FERRY_LEGACY_API
doca_error_t doca_workq_destroy(struct doca_workq *workq);
FERRY_LEGACY_API
doca_error_t doca_workq_submit(struct doca_workq *workq, const struct ferry_job *job);
FERRY_LEGACY_API
doca_error_t doca_workq_progress_retrieve(struct doca_workq *workq, struct ferry_event *ev, int flags);
FERRY_LEGACY_API
doca_error_t doca_workq_get_depth(const struct doca_workq *workq, uint32_t *depth);
FERRY_LEGACY_API
doca_error_t doca_workq_set_depth(struct doca_workq *workq, uint32_t depth);
FERRY_LEGACY_API
doca_error_t doca_workq_set_event_driven_enable(struct doca_workq *workq, uint8_t enable);
FERRY_LEGACY_API
doca_error_t doca_workq_get_event_driven_enable(struct doca_workq *workq, uint8_t *enabled);
FERRY_LEGACY_API
doca_error_t doca_workq_get_event_handle(struct doca_workq *workq, doca_event_handle_t *handle);
FERRY_LEGACY_API
doca_error_t doca_workq_event_handle_arm(struct doca_workq *workq);
FERRY_LEGACY_API
doca_error_t doca_workq_event_handle_clear(struct doca_workq *workq, doca_event_handle_t handle);
FERRY_LEGACY_API
doca_error_t doca_ctx_workq_add(struct doca_ctx *ctx, struct doca_workq *workq);
FERRY_LEGACY_API
doca_error_t doca_ctx_workq_rm(struct doca_ctx *ctx, struct doca_workq *workq);

/* wq_ctx.c */
FERRY_LEGACY_API
doca_error_t doca_ctx_dev_add(struct doca_ctx *ctx, struct doca_dev *dev);
FERRY_LEGACY_API
doca_error_t doca_ctx_dev_rm(struct doca_ctx *ctx, struct doca_dev *dev);
FERRY_LEGACY_API
doca_error_t ferry_wq_ctx_start(struct doca_ctx *ctx);
FERRY_LEGACY_API
doca_error_t ferry_wq_ctx_stop(struct doca_ctx *ctx);
FERRY_LEGACY_API
doca_error_t doca_ctx_get_max_num_ctx(uint32_t *max_num_ctx);
FERRY_LEGACY_API
doca_error_t doca_ctx_get_event_driven_supported(struct doca_ctx *ctx, uint8_t *event_supported);

/* wq_dma.c */
FERRY_LEGACY_API
doca_error_t ferry_v22_dma_create(struct ferry_wq_dma **dma);
FERRY_LEGACY_API
doca_error_t ferry_v14_dma_create(struct ferry_wq_dma **dma);
FERRY_LEGACY_API
doca_error_t ferry_wq_dma_destroy(struct ferry_wq_dma *dma);
FERRY_LEGACY_API
struct doca_ctx *ferry_wq_dma_as_ctx(struct ferry_wq_dma *dma);
FERRY_LEGACY_API
doca_error_t doca_dma_job_get_supported(struct doca_devinfo *devinfo, int job_type);
FERRY_LEGACY_API
doca_error_t doca_dma_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size);
FERRY_LEGACY_API
doca_error_t doca_dma_get_max_list_buf_num_elem(const struct doca_devinfo *devinfo, uint32_t *max_list_num_elem);
FERRY_LEGACY_API
doca_error_t doca_dma_devinfo_caps_get(struct doca_devinfo *devinfo, uint32_t *caps);

/* legacy_common.c */
FERRY_LEGACY_API
const char *doca_get_error_string(doca_error_t error);
FERRY_LEGACY_API
const char *doca_get_error_name(doca_error_t error);
FERRY_LEGACY_API
doca_error_t doca_log_create_standard_backend(void);
FERRY_LEGACY_API
doca_error_t doca_devinfo_list_create(struct doca_devinfo ***dev_list, uint32_t *nb_devs);
FERRY_LEGACY_API
doca_error_t doca_devinfo_list_destroy(struct doca_devinfo **dev_list);
FERRY_LEGACY_API
doca_error_t doca_devinfo_get_is_pci_addr_equal(const struct doca_devinfo *devinfo, const char *pci_addr,
						uint8_t *is_equal);
FERRY_LEGACY_API
doca_error_t doca_devinfo_rep_list_create(struct doca_dev *dev, int filter, struct doca_devinfo_rep ***dev_list_rep,
					  uint32_t *nb_devs_rep);
FERRY_LEGACY_API
doca_error_t doca_devinfo_rep_list_destroy(struct doca_devinfo_rep **dev_list_rep);
FERRY_LEGACY_API
doca_error_t doca_devinfo_rep_get_is_pci_addr_equal(const struct doca_devinfo_rep *devinfo_rep, const char *pci_addr,
						    uint8_t *is_equal);
FERRY_LEGACY_API
doca_error_t doca_buf_refcount_add(struct doca_buf *buf, uint16_t *refcount);
FERRY_LEGACY_API
doca_error_t doca_buf_refcount_rm(struct doca_buf *buf, uint16_t *refcount);
FERRY_LEGACY_API
doca_error_t doca_buf_inventory_buf_by_addr(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *addr,
					    size_t len, struct doca_buf **buf);
FERRY_LEGACY_API
doca_error_t doca_buf_inventory_buf_by_data(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *data,
					    size_t data_len, struct doca_buf **buf);
FERRY_LEGACY_API
doca_error_t doca_buf_inventory_buf_by_args(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *addr,
					    size_t len, void *data, size_t data_len, struct doca_buf **buf);
FERRY_LEGACY_API
doca_error_t doca_mmap_dev_add(struct doca_mmap *mmap, struct doca_dev *dev);
FERRY_LEGACY_API
doca_error_t doca_mmap_dev_rm(struct doca_mmap *mmap, struct doca_dev *dev);
FERRY_LEGACY_API
doca_error_t doca_mmap_export_dpu(struct doca_mmap *mmap, const struct doca_dev *dev, const void **export_desc,
				  size_t *export_desc_len);

/* v22.c */
FERRY_LEGACY_API
doca_error_t ferry_v22_mmap_create(const union doca_data *user_data, struct doca_mmap **mmap);
FERRY_LEGACY_API
doca_error_t ferry_v22_buf_inventory_create(const union doca_data *user_data, size_t num_elements, uint32_t extensions,
					    struct doca_buf_inventory **inventory);
FERRY_LEGACY_API
void ferry_v22_argp_param_set_type(struct doca_argp_param *param, int type);
FERRY_LEGACY_API
const char *ferry_v22_version_runtime(void);

/* wq_sync_event.c */
struct doca_sync_event;
struct doca_dpa;
struct doca_gpu;
FERRY_LEGACY_API
struct doca_ctx *ferry_v22_sync_event_as_ctx(struct doca_sync_event *event);
FERRY_LEGACY_API
doca_error_t ferry_v22_sync_event_destroy(struct doca_sync_event *event);
FERRY_LEGACY_API
doca_error_t doca_sync_event_publisher_add_location_cpu(struct doca_sync_event *event, struct doca_dev *dev);
FERRY_LEGACY_API
doca_error_t doca_sync_event_publisher_add_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa);
FERRY_LEGACY_API
doca_error_t doca_sync_event_publisher_add_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu);
FERRY_LEGACY_API
doca_error_t doca_sync_event_publisher_add_location_dpu(struct doca_sync_event *event);
FERRY_LEGACY_API
doca_error_t doca_sync_event_subscriber_add_location_cpu(struct doca_sync_event *event, struct doca_dev *dev);
FERRY_LEGACY_API
doca_error_t doca_sync_event_subscriber_add_location_dpa(struct doca_sync_event *event, struct doca_dpa *dpa);
FERRY_LEGACY_API
doca_error_t doca_sync_event_subscriber_add_location_gpu(struct doca_sync_event *event, struct doca_gpu *gpu);
FERRY_LEGACY_API
doca_error_t doca_sync_event_subscriber_add_location_dpu(struct doca_sync_event *event);
FERRY_LEGACY_API
doca_error_t doca_sync_event_export_to_dpu(struct doca_sync_event *event, struct doca_dev *dev, const uint8_t **data,
					   size_t *sz);
FERRY_LEGACY_API
doca_error_t doca_sync_event_get_export_to_dpu_supported(const struct doca_devinfo *devinfo);
FERRY_LEGACY_API
doca_error_t doca_sync_event_get_create_from_export_supported(const struct doca_devinfo *devinfo);
FERRY_LEGACY_API
doca_error_t doca_sync_event_get_export_to_dpa_supported(const struct doca_devinfo *devinfo);
FERRY_LEGACY_API
doca_error_t doca_sync_event_get_export_to_gpu_supported(const struct doca_devinfo *devinfo);
FERRY_LEGACY_API
doca_error_t doca_sync_event_export_to_dpa(struct doca_sync_event *event, struct doca_dpa *dpa, uint64_t *handle);
FERRY_LEGACY_API
doca_error_t doca_sync_event_export_to_gpu(struct doca_sync_event *event, struct doca_gpu *gpu, uint64_t **handle);
FERRY_LEGACY_API
doca_error_t doca_sync_event_job_get_supported(struct doca_devinfo *devinfo, int job_type);

/* wq_graph.c */
struct ferry_wq_graph;
struct ferry_wq_graph_node;
struct ferry_wq_graph_instance;
/** doca_graph_user_node_cb_t of DOCA 2.2. */
typedef doca_error_t (*ferry_v22_graph_user_node_cb_t)(void *cookie, struct ferry_event *ev);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_create(struct ferry_wq_graph **graph);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_destroy(struct ferry_wq_graph *graph);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_ctx_node_create(struct ferry_wq_graph *graph, int job_type, const struct doca_ctx *ctx,
					     struct ferry_wq_graph_node **node);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_user_node_create(struct ferry_wq_graph *graph, ferry_v22_graph_user_node_cb_t cb,
					      struct ferry_wq_graph_node **node);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_sub_graph_node_create(struct ferry_wq_graph *graph, struct ferry_wq_graph *sub_graph,
						   struct ferry_wq_graph_node **node);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_add_dependency(struct ferry_wq_graph *graph, struct ferry_wq_graph_node *from,
					    struct ferry_wq_graph_node *to);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_start(struct ferry_wq_graph *graph);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_stop(struct ferry_wq_graph *graph);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_workq_add(struct ferry_wq_graph *graph, struct doca_workq *workq);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_instance_create(const struct ferry_wq_graph *graph,
					     struct ferry_wq_graph_instance **instance);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_instance_destroy(struct ferry_wq_graph_instance *instance);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_instance_set_ctx_node_data(struct ferry_wq_graph_instance *instance,
							struct ferry_wq_graph_node *node, struct ferry_job *job,
							struct ferry_event *ev);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_instance_set_user_node_data(struct ferry_wq_graph_instance *instance,
							 struct ferry_wq_graph_node *node, void *cookie,
							 struct ferry_event *ev);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_instance_set_sub_graph_node_data(struct ferry_wq_graph_instance *instance,
							      struct ferry_wq_graph_node *node,
							      struct ferry_wq_graph_instance *sub_instance,
							      struct ferry_event *ev);
FERRY_LEGACY_API
doca_error_t ferry_v22_workq_graph_submit(struct doca_workq *workq, struct ferry_wq_graph_instance *instance,
					  union doca_data user_data);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_workq_rm(struct ferry_wq_graph *graph, struct doca_workq *workq);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_instance_get_num_failed_nodes(const struct ferry_wq_graph_instance *instance,
							   uint32_t *num_failed_nodes);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_instance_get_failed_nodes(const struct ferry_wq_graph_instance *instance,
						       const struct ferry_wq_graph_node **failed_nodes,
						       uint32_t *num_failed_nodes);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_instance_node_get_state(const struct ferry_wq_graph_instance *instance,
						     const struct ferry_wq_graph_node *node, int *state);
FERRY_LEGACY_API
doca_error_t ferry_v22_graph_instance_node_get_result(const struct ferry_wq_graph_instance *instance,
						      const struct ferry_wq_graph_node *node, union doca_data *result);
/* comm_channel.c, cc_api.c: the Comm Channel (1.x and 2.x) */
struct doca_comm_channel_ep_t;
struct doca_comm_channel_addr_t;
struct ferry_cc_init_attr;

FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_create(struct doca_comm_channel_ep_t **ep);
FERRY_LEGACY_API
doca_error_t ferry_v14_comm_channel_ep_create(const struct ferry_cc_init_attr *attr,
					      struct doca_comm_channel_ep_t **ep);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_destroy(struct doca_comm_channel_ep_t *local_ep);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_set_device(struct doca_comm_channel_ep_t *local_ep, struct doca_dev *device);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_set_device_rep(struct doca_comm_channel_ep_t *local_ep,
						 struct doca_dev_rep *device_rep);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_set_max_msg_size(struct doca_comm_channel_ep_t *ep, uint16_t max_msg_size);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_set_send_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t send_queue_size);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_set_recv_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t recv_queue_size);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_get_device(struct doca_comm_channel_ep_t *local_ep, struct doca_dev **device);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_get_device_rep(struct doca_comm_channel_ep_t *local_ep,
						 struct doca_dev_rep **device_rep);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_get_max_msg_size(struct doca_comm_channel_ep_t *ep, uint16_t *max_msg_size);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_get_send_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t *send_queue_size);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_get_recv_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t *recv_queue_size);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_get_max_service_name_len(uint32_t *max_service_name_len);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_get_max_message_size(struct doca_devinfo *devinfo, uint32_t *max_message_size);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_get_max_send_queue_size(struct doca_devinfo *devinfo, uint32_t *max_send_queue_size);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_get_max_recv_queue_size(struct doca_devinfo *devinfo, uint32_t *max_recv_queue_size);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_get_service_max_num_connections(struct doca_devinfo *devinfo,
							       uint32_t *max_num_connections);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_listen(struct doca_comm_channel_ep_t *local_ep, const char *name);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_connect(struct doca_comm_channel_ep_t *local_ep, const char *name,
					  struct doca_comm_channel_addr_t **peer_addr);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_peer_addr_update_info(struct doca_comm_channel_addr_t *peer_addr);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_sendto(struct doca_comm_channel_ep_t *local_ep, const void *msg, size_t len,
					 int flags, struct doca_comm_channel_addr_t *peer_addr);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_recvfrom(struct doca_comm_channel_ep_t *local_ep, void *msg, size_t *len, int flags,
					   struct doca_comm_channel_addr_t **peer_addr);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_disconnect(struct doca_comm_channel_ep_t *local_ep,
					     struct doca_comm_channel_addr_t *peer_addr);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_peer_addr_set_user_data(struct doca_comm_channel_addr_t *peer_addr,
						       uint64_t user_context);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_peer_addr_get_user_data(struct doca_comm_channel_addr_t *peer_addr, uint64_t *user_data);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_peer_addr_get_send_messages(const struct doca_comm_channel_addr_t *peer_addr,
							   uint64_t *send_messages);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_peer_addr_get_send_bytes(const struct doca_comm_channel_addr_t *peer_addr,
							uint64_t *send_bytes);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_peer_addr_get_recv_messages(const struct doca_comm_channel_addr_t *peer_addr,
							   uint64_t *recv_messages);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_peer_addr_get_recv_bytes(const struct doca_comm_channel_addr_t *peer_addr,
							uint64_t *recv_bytes);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_peer_addr_get_send_in_flight_messages(const struct doca_comm_channel_addr_t *peer_addr,
								     uint64_t *send_in_flight_messages);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_get_event_channel(struct doca_comm_channel_ep_t *local_ep,
						    doca_event_handle_t *send_event_channel,
						    doca_event_handle_t *recv_event_channel);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_event_handle_arm_send(struct doca_comm_channel_ep_t *local_ep);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_event_handle_arm_recv(struct doca_comm_channel_ep_t *local_ep);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_get_service_event_channel(struct doca_comm_channel_ep_t *local_ep,
							    doca_event_handle_t *service_event_channel);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_update_service_state_info(struct doca_comm_channel_ep_t *local_ep);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_get_peer_addr_list(const struct doca_comm_channel_ep_t *local_ep,
						     struct doca_comm_channel_addr_t ***peer_addr_array,
						     uint32_t *peer_addr_array_len);
FERRY_LEGACY_API
doca_error_t doca_comm_channel_ep_get_pending_connections(const struct doca_comm_channel_ep_t *local_ep,
							  uint32_t *pending_connections);
/* v14.c */
FERRY_LEGACY_API
doca_error_t ferry_v14_buf_inventory_create(const char *name, size_t num_elements, uint32_t extensions,
					    struct doca_buf_inventory **inventory);
FERRY_LEGACY_API
doca_error_t ferry_v14_buf_refcount_add(struct doca_buf *buf, uint16_t *refcount);
FERRY_LEGACY_API
const char *ferry_v14_version_runtime(void);
FERRY_LEGACY_API
doca_error_t ferry_v14_log_register_source(const char *source_name, int *source);
FERRY_LEGACY_API
doca_error_t doca_devinfo_property_get(const struct doca_devinfo *devinfo, int property, uint8_t *value, uint32_t size);
FERRY_LEGACY_API
doca_error_t doca_devinfo_remote_list_create(struct doca_dev *local, int filter,
					     struct doca_devinfo_rep ***dev_list_remote, uint32_t *nb_devs_remote);
FERRY_LEGACY_API
doca_error_t doca_devinfo_remote_list_destroy(struct doca_devinfo_rep **dev_list_remote);
FERRY_LEGACY_API
doca_error_t doca_devinfo_remote_property_get(const struct doca_devinfo_rep *devinfo_remote, int property,
					      uint8_t *value, uint32_t size);
FERRY_LEGACY_API
doca_error_t doca_dev_remote_open(struct doca_devinfo_rep *devinfo_remote, struct doca_dev_rep **dev_remote);
FERRY_LEGACY_API
doca_error_t doca_dev_remote_close(struct doca_dev_rep *dev_remote);

/* v14_mmap.c: struct doca_mmap of the 1.4 headers is a struct ferry_v14_mmap. */
FERRY_LEGACY_API
doca_error_t ferry_v14_mmap_create(const char *name, struct ferry_v14_mmap **mmap);
FERRY_LEGACY_API
doca_error_t ferry_v14_mmap_destroy(struct ferry_v14_mmap *mmap);
FERRY_LEGACY_API
doca_error_t ferry_v14_mmap_start(struct ferry_v14_mmap *mmap);
FERRY_LEGACY_API
doca_error_t ferry_v14_mmap_stop(struct ferry_v14_mmap *mmap);
FERRY_LEGACY_API
doca_error_t doca_mmap_property_set(struct ferry_v14_mmap *mmap, int property, const uint8_t *value, size_t size);
FERRY_LEGACY_API
doca_error_t doca_mmap_property_get(struct ferry_v14_mmap *mmap, int property, uint8_t *value, size_t size);
FERRY_LEGACY_API
doca_error_t ferry_v14_mmap_dev_add(struct ferry_v14_mmap *mmap, struct doca_dev *dev);
FERRY_LEGACY_API
doca_error_t ferry_v14_mmap_dev_rm(struct ferry_v14_mmap *mmap, struct doca_dev *dev);
FERRY_LEGACY_API
doca_error_t doca_mmap_populate(struct ferry_v14_mmap *mmap, void *addr, size_t len, size_t pg_sz,
				doca_mmap_memrange_free_cb_t *free_cb, void *opaque);
FERRY_LEGACY_API
doca_error_t doca_mmap_export(struct ferry_v14_mmap *mmap, const struct doca_dev *dev, uint8_t **export_desc,
			      size_t *export_desc_len);
FERRY_LEGACY_API
doca_error_t ferry_v14_mmap_create_from_export(const char *name, const uint8_t *export_desc, size_t export_desc_len,
					       struct doca_dev *dev, struct ferry_v14_mmap **mmap);
FERRY_LEGACY_API
doca_error_t ferry_v14_buf_inventory_buf_by_addr(struct doca_buf_inventory *inventory, struct ferry_v14_mmap *mmap,
						 void *addr, size_t len, struct doca_buf **buf);

#endif /* FERRY_LEGACY_API_H_ */
