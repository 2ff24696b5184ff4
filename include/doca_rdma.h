/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_rdma.h - DOCA RDMA: messages and remote memory access between two
 * contexts, in one process, two processes or two machines. Ferry carries it
 * over UCX (shared memory on one machine, TCP or verbs between machines; the
 * UCX_TLS environment variable chooses).
 *
 * A struct doca_rdma is a context (see doca_ctx.h). Typical use, one side:
 *
 *   doca_rdma_create(dev, &rdma); doca_rdma_set_permissions(rdma, ...)
 *   doca_pe_connect_ctx(pe, doca_rdma_as_ctx(rdma))
 *   doca_rdma_task_send_set_conf(rdma, on_done, on_error, n) (and the other types)
 *   doca_ctx_start(doca_rdma_as_ctx(rdma))          -> SUCCESS, RUNNING at once
 *   doca_rdma_export(rdma, &blob, &blob_len, &conn) -> hand the blob to the peer
 *   doca_rdma_connect(rdma, peer_blob, peer_len, conn)
 *   doca_rdma_task_send_allocate_init(rdma, conn, src, user_data, &task)
 *   doca_task_submit(doca_rdma_task_send_as_task(task)) ... doca_pe_progress(pe)
 *
 * Rules Ferry keeps (see docs/rdma.md for the rest):
 *  - Completions are delivered only from doca_pe_progress. A task submitted on
 *    a connection that is exported but not yet connected waits for
 *    doca_rdma_connect instead of failing.
 *  - Receive tasks are shared by every connection of the context: each message
 *    fills the oldest posted receive. Its bytes are appended after the
 *    destination's data segment, whose data_len grows by the message size. A
 *    message larger than the free space completes the receive with
 *    DOCA_ERROR_TOO_BIG. Messages that arrive before a receive is posted wait
 *    (a bounded number) for one.
 *  - Read copies the data segment of a remote buf into the free space after the
 *    local destination's data (whose data_len grows). Write copies the local
 *    source's data segment to the remote destination, starting after its data
 *    segment (at its data address when data_len is 0, as DOCA's samples use it);
 *    the remote buf's data_len grows on success.
 *  - Remote access is checked against the remote mmap's export (range and
 *    DOCA_ACCESS_FLAG_RDMA_READ / _RDMA_WRITE) and the remote context's
 *    permissions: a refused access completes the task with
 *    DOCA_ERROR_NOT_PERMITTED, a range outside the export with
 *    DOCA_ERROR_INVALID_VALUE.
 *  - When the peer goes away (process killed, connection lost, or reads,
 *    writes and atomics in flight with none completing for
 *    FERRY_RDMA_TIMEOUT_MS, default 10 s) the tasks of that connection
 *    complete with DOCA_ERROR_CONNECTION_RESET; tasks flushed by doca_ctx_stop
 *    complete with DOCA_ERROR_IO_FAILED.
 *
 * Threading: an RDMA context is used from the thread that progresses its PE.
 * Each started context also has a service thread of Ferry's, which serves the
 * peer's reads and writes of this process's memory while that thread does not
 * progress (waiting on stdin, say); callbacks still run only inside
 * doca_pe_progress.
 */
#ifndef DOCA_RDMA_H_
#define DOCA_RDMA_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_ctx;
struct doca_dev;
struct doca_devinfo;
struct doca_task;
struct doca_gpu_dev_rdma;
struct doca_dpa_completion;

/** An RDMA context. */
struct doca_rdma;
/** An address the connection manager connects to. */
struct doca_rdma_addr;
/** rdma-core's connection manager id (the bridge calls; Ferry offers none of them). */
struct rdma_cm_id;
/** One connection of an RDMA context to a peer context. */
struct doca_rdma_connection;

/** Task types of an RDMA context. */
struct doca_rdma_task_receive;
struct doca_rdma_task_send;
struct doca_rdma_task_send_imm;
struct doca_rdma_task_read;
struct doca_rdma_task_write;
struct doca_rdma_task_write_imm;
struct doca_rdma_task_atomic_cmp_swp;
struct doca_rdma_task_atomic_fetch_add;

/** Handle of an RDMA context on a DPA (not available in Ferry). */
typedef uint64_t doca_dpa_dev_rdma_t;

/** How connections are made. */
enum doca_rdma_transport_type {
	DOCA_RDMA_TRANSPORT_TYPE_RC = 0, /**< reliable connection: both sides connect */
	DOCA_RDMA_TRANSPORT_TYPE_DC = 1, /**< dynamically connected: only the requester connects */
};

/** Kinds of address for the connection manager. */
enum doca_rdma_addr_type {
	DOCA_RDMA_ADDR_TYPE_IPv4 = 0,
	DOCA_RDMA_ADDR_TYPE_IPv6 = 1,
	DOCA_RDMA_ADDR_TYPE_GID = 2,
};

/** What completed a receive task. */
enum doca_rdma_opcode {
	DOCA_RDMA_OPCODE_RECV_SEND = 0,           /**< a send */
	DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM = 1,  /**< a send with immediate data */
	DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM = 2, /**< a write with immediate data (no bytes land in the receive) */
};

/** An RDMA global identifier. */
struct doca_rdma_gid {
	uint8_t raw[DOCA_GID_BYTE_LENGTH];
};

/*
 * Connection manager callbacks (doca_rdma_set_connection_state_callbacks).
 * They run inside doca_pe_progress. request: a client asks to connect (accept
 * or reject it from here); established: the connection carries tasks now,
 * on both sides; failure: it could not be set up; disconnection: the peer
 * disconnected or went away.
 */
typedef void (*doca_rdma_connection_request_cb_t)(struct doca_rdma_connection *rdma_connection,
						  union doca_data ctx_user_data);
typedef void (*doca_rdma_connection_established_cb_t)(struct doca_rdma_connection *rdma_connection,
						      union doca_data connection_user_data,
						      union doca_data ctx_user_data);
typedef void (*doca_rdma_connection_failure_cb_t)(struct doca_rdma_connection *rdma_connection,
						  union doca_data connection_user_data, union doca_data ctx_user_data);
typedef void (*doca_rdma_connection_disconnection_cb_t)(struct doca_rdma_connection *rdma_connection,
							union doca_data connection_user_data,
							union doca_data ctx_user_data);

/*
 * Task completion callbacks: one type per task, used for success and failure.
 * They run inside doca_pe_progress and give the task back to the program,
 * which may free it, resubmit it or keep it; they must not call
 * doca_pe_progress.
 */
typedef void (*doca_rdma_task_receive_completion_cb_t)(struct doca_rdma_task_receive *task,
						       union doca_data task_user_data, union doca_data ctx_user_data);
typedef void (*doca_rdma_task_send_completion_cb_t)(struct doca_rdma_task_send *task, union doca_data task_user_data,
						    union doca_data ctx_user_data);
typedef void (*doca_rdma_task_send_imm_completion_cb_t)(struct doca_rdma_task_send_imm *task,
							union doca_data task_user_data, union doca_data ctx_user_data);
typedef void (*doca_rdma_task_read_completion_cb_t)(struct doca_rdma_task_read *task, union doca_data task_user_data,
						    union doca_data ctx_user_data);
typedef void (*doca_rdma_task_write_completion_cb_t)(struct doca_rdma_task_write *task, union doca_data task_user_data,
						     union doca_data ctx_user_data);
typedef void (*doca_rdma_task_write_imm_completion_cb_t)(struct doca_rdma_task_write_imm *task,
							 union doca_data task_user_data, union doca_data ctx_user_data);
typedef void (*doca_rdma_task_atomic_cmp_swp_completion_cb_t)(struct doca_rdma_task_atomic_cmp_swp *task,
							      union doca_data task_user_data,
							      union doca_data ctx_user_data);
typedef void (*doca_rdma_task_atomic_fetch_add_completion_cb_t)(struct doca_rdma_task_atomic_fetch_add *task,
								union doca_data task_user_data,
								union doca_data ctx_user_data);

/* ---- context ---- */

/**
 * @brief Create an RDMA context on an open device.
 * @param [in] dev    the device; it must stay open until the context is destroyed.
 * @param [out] rdma  the new context, IDLE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NO_MEMORY;
 *         DOCA_ERROR_INITIALIZATION when the transport (UCX) cannot start.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_create(struct doca_dev *dev, struct doca_rdma **rdma);

/**
 * @brief Destroy an IDLE RDMA context.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_destroy(struct doca_rdma *rdma);

/**
 * @brief The generic context of an RDMA context.
 * @return the context, or NULL when @p rdma is NULL.
 */
DOCA_EXPERIMENTAL struct doca_ctx *doca_rdma_as_ctx(struct doca_rdma *rdma);

/**
 * @brief Open a new connection and describe it for the peer.
 * @param [in] rdma                            a RUNNING context.
 * @param [out] local_rdma_conn_details        the description: opaque bytes,
 *                                             owned by the context, valid until it stops.
 * @param [out] local_rdma_conn_details_size   their length.
 * @param [out] rdma_connection                the new connection.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE
 *         unless RUNNING; DOCA_ERROR_FULL when every connection of
 *         doca_rdma_set_max_num_connections is in use; DOCA_ERROR_CONNECTION_ABORTED.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_export(struct doca_rdma *rdma, const void **local_rdma_conn_details,
						size_t *local_rdma_conn_details_size,
						struct doca_rdma_connection **rdma_connection);

/**
 * @brief Join a connection made by doca_rdma_export to the peer its bytes name.
 * The bytes are checked (format, version, length, checksum) and never trusted.
 * @param [in] rdma                           a RUNNING context.
 * @param [in] remote_rdma_conn_details       the peer's description.
 * @param [in] remote_rdma_conn_details_size  its length.
 * @param [in] rdma_connection                a connection of @p rdma, not yet connected.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a connection of
 *         another context; DOCA_ERROR_BAD_STATE unless RUNNING or when already
 *         connected; DOCA_ERROR_CONNECTION_ABORTED for a refused description or
 *         a peer that cannot be reached.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connect(struct doca_rdma *rdma, const void *remote_rdma_conn_details,
						 size_t remote_rdma_conn_details_size,
						 struct doca_rdma_connection *rdma_connection);

/** @brief Attach program data to a connection. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_set_user_data(struct doca_rdma_connection *rdma_connection,
								  union doca_data connection_user_data);
/** @brief The program data of a connection. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_get_user_data(const struct doca_rdma_connection *rdma_connection,
								  union doca_data *connection_user_data);
/** @brief The number of a connection within its context. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_get_id(const struct doca_rdma_connection *rdma_connection,
							   uint32_t *connection_id);

/*
 * ---- connection manager ----
 * A server listens on a TCP port (every address, or the one named by the
 * environment variable FERRY_RDMA_LISTEN_ADDR); a client connects to an
 * address. Both sides get the established callback once the connection carries
 * tasks; the peer of a doca_rdma_connection_disconnect gets the disconnection
 * callback. UCX's TCP connection manager carries the setup; the connection then
 * uses the transports UCX_TLS allows.
 */

/**
 * @brief Make an address: dotted IPv4, IPv6, or a GID written as IPv6.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an address that does not parse; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_addr_create(enum doca_rdma_addr_type addr_type, const char *address,
						     uint16_t port, struct doca_rdma_addr **addr);
/** @brief Free an address. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_addr_destroy(struct doca_rdma_addr *addr);
/** @brief What an address holds (the text stays valid while the address lives). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_addr_get_params(struct doca_rdma_addr *addr,
							 enum doca_rdma_addr_type *addr_type, const char **address,
							 uint16_t *port);
/**
 * @brief Register the connection manager callbacks (IDLE; @p doca_rdma_connect_request_cb may be NULL on a pure client).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_connection_state_callbacks(
	struct doca_rdma *rdma, doca_rdma_connection_request_cb_t doca_rdma_connect_request_cb,
	doca_rdma_connection_established_cb_t doca_rdma_connect_established_cb,
	doca_rdma_connection_failure_cb_t doca_rdma_connect_failure_cb,
	doca_rdma_connection_disconnection_cb_t doca_rdma_disconnect_cb);
/**
 * @brief Listen for clients on TCP port @p port.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE unless RUNNING or when already listening;
 *         DOCA_ERROR_CONNECTION_ABORTED when the port cannot be listened on.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_start_listen_to_port(struct doca_rdma *rdma, uint16_t port);
/** @brief Stop listening; connections stay. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_NOT_FOUND when not listening there. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_stop_listen_to_port(struct doca_rdma *rdma, uint16_t port);
/**
 * @brief Connect to a listening server. The connection first appears in the
 * established or the failure callback, with @p connection_user_data.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE unless RUNNING;
 *         DOCA_ERROR_FULL when all connections are in use; DOCA_ERROR_CONNECTION_ABORTED.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connect_to_addr(struct doca_rdma *rdma, struct doca_rdma_addr *addr,
							 union doca_data connection_user_data);
/** @brief Accept a requested connection (from the request callback). @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_CONNECTION_ABORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_accept(struct doca_rdma_connection *rdma_connection,
							   void *private_data, uint8_t private_data_len);
/** @brief Reject a requested connection: the client gets its failure callback. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_CONNECTION_ABORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_reject(struct doca_rdma_connection *rdma_connection);
/**
 * @brief Disconnect: the peer gets its disconnection callback; this side's
 * tasks of the connection complete first. SUCCESS also for a connection the
 * peer already closed.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_CONNECTION_ABORTED.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_disconnect(struct doca_rdma_connection *rdma_connection);
/** @brief The peer's address of a connection manager connection. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_NOT_FOUND. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_connection_get_addr(const struct doca_rdma_connection *rdma_connection,
							     struct doca_rdma_addr **addr);
/** @brief Bridge to a program's own rdma_cm: not offered. @return DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_bridge_prepare_connection(struct doca_rdma *rdma, struct rdma_cm_id *cm_id,
								   struct doca_rdma_connection **rdma_connection);
/** @brief Bridge to a program's own rdma_cm: not offered. @return DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_bridge_accept(struct doca_rdma *rdma, void *private_data,
						       uint8_t private_data_len,
						       struct doca_rdma_connection *rdma_connection);
/** @brief Bridge to a program's own rdma_cm: not offered. @return DOCA_ERROR_NOT_SUPPORTED. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_bridge_established(struct doca_rdma *rdma,
							    struct doca_rdma_connection *rdma_connection);

/* ---- properties: setters need an IDLE context (DOCA_ERROR_BAD_STATE otherwise) ---- */

/**
 * @brief What peers may do to this context's memory: DOCA_ACCESS_FLAG_RDMA_READ,
 * _RDMA_WRITE, _RDMA_ATOMIC, and DOCA_ACCESS_FLAG_LOCAL_READ_WRITE (accepted,
 * as DOCA's requester samples pass it alone). Default: LOCAL_READ_WRITE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or other bits; DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_permissions(struct doca_rdma *rdma, uint32_t permissions);
/** @brief Read back the permissions. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_permissions(struct doca_rdma *rdma, uint32_t *permissions);
/**
 * @brief Choose the GID table entry (below doca_rdma_cap_get_gid_table_size).
 * Ferry's devices have one GID per address; the index is remembered.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an index out of the table; DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_gid_index(struct doca_rdma *rdma, uint32_t gid_index);
/** @brief Read back the GID index (default 0). @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_gid_index(const struct doca_rdma *rdma, uint32_t *gid_index);
/**
 * @brief How many connections doca_rdma_export may open (default 1).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_NOT_SUPPORTED for 0; DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_max_num_connections(struct doca_rdma *rdma, uint16_t max_num_connections);
/** @brief Read back the connection limit. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_max_num_connections(struct doca_rdma *rdma, uint16_t *max_num_connections);
/**
 * @brief RC (default) or DC. Both behave alike in Ferry: a DC responder
 * simply never calls doca_rdma_connect.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an unknown type; DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_transport_type(struct doca_rdma *rdma,
							    enum doca_rdma_transport_type transport_type);
/** @brief Read back the transport type. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_transport_type(const struct doca_rdma *rdma,
							    enum doca_rdma_transport_type *transport_type);
/**
 * @brief Send queue depth, rounded up to a power of two (default 64).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, 0 or above the cap; DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_send_queue_size(struct doca_rdma *rdma, uint32_t send_queue_size);
/** @brief The send queue depth in use. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_send_queue_size(const struct doca_rdma *rdma, uint32_t *send_queue_size);
/** @brief Receive queue depth: a GPU/DPA setting. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_recv_queue_size(struct doca_rdma *rdma, uint32_t recv_queue_size);
/** @brief Receive queue depth: a GPU/DPA setting. @return DOCA_ERROR_NOT_SUPPORTED (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_recv_queue_size(const struct doca_rdma *rdma, uint32_t *recv_queue_size);
/**
 * @brief Longest source list of a send or write (default 1; up to
 * doca_rdma_cap_get_max_send_buf_list_len, 16). The data segments of the
 * list's bufs travel back to back; a longer list is refused at submit.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, 0 or above the cap; DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_max_send_buf_list_len(struct doca_rdma *rdma,
								   uint32_t max_send_buf_list_len);
/** @brief Read back the longest source list. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_max_send_buf_list_len(const struct doca_rdma *rdma,
								   uint32_t *max_send_buf_list_len);
/**
 * @brief Path MTU (remembered; UCX picks its own fragment sizes). Default 1K.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an unknown size; DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_mtu(struct doca_rdma *rdma, enum doca_mtu_size mtu);
/** @brief Read back the MTU. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_mtu(const struct doca_rdma *rdma, enum doca_mtu_size *mtu);
/** @brief GRH on or off (remembered). @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_grh_enabled(struct doca_rdma *rdma, uint8_t grh_enabled);
/** @brief Read back GRH. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_grh_enabled(const struct doca_rdma *rdma, uint8_t *grh_enabled);
/** @brief Service level (remembered). @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_sl(struct doca_rdma *rdma, uint32_t sl);
/** @brief Read back the service level. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_sl(const struct doca_rdma *rdma, uint32_t *sl);
/** @brief Connection manager timeout in milliseconds (remembered). @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_connection_request_timeout(struct doca_rdma *rdma, uint16_t timeout);
/** @brief Read back the connection manager timeout. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_connection_request_timeout(const struct doca_rdma *rdma,
									uint16_t *timeout);
/** @brief Receiver-not-ready retries (remembered). @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE; DOCA_ERROR_BAD_STATE. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_set_rnr_retry_count(struct doca_rdma *rdma, uint8_t rnr_retry_count);
/** @brief Read back the retry count. @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_rnr_retry_count(const struct doca_rdma *rdma, uint8_t *rnr_retry_count);

/** @brief DPA handle: Ferry has no DPA. @return DOCA_ERROR_BAD_STATE (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_dpa_handle(struct doca_rdma *rdma, doca_dpa_dev_rdma_t *dpa_rdma);
/** @brief GPU handle: Ferry has no GPU data path. @return DOCA_ERROR_BAD_STATE (DOCA_ERROR_INVALID_VALUE for NULL). */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_get_gpu_handle(struct doca_rdma *rdma, struct doca_gpu_dev_rdma **gpu_rdma);

/* ---- capabilities: INVALID_VALUE for NULL; _is_supported answers SUCCESS or NOT_SUPPORTED ---- */

DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo,
								     uint32_t *max_recv_queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_max_send_queue_size(const struct doca_devinfo *devinfo,
								     uint32_t *max_send_queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_max_send_buf_list_len(const struct doca_devinfo *devinfo,
								       uint32_t *max_send_buf_list_len);
/** @brief The largest message or remote access of one task, in bytes. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_max_message_size(const struct doca_devinfo *devinfo,
								  uint32_t *max_message_size);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_gid_table_size(const struct doca_devinfo *devinfo,
								uint32_t *gid_table_size);
/**
 * @brief Copy GID table entries [start_index, start_index + num_entries).
 * Ferry's GID 0 is the IPv4-mapped address of the loopback interface.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or entries outside the table.
 */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_get_gid(const struct doca_devinfo *devinfo, uint32_t start_index,
						     uint32_t num_entries, struct doca_rdma_gid *gid_array);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_transport_type_is_supported(const struct doca_devinfo *devinfo,
									 enum doca_rdma_transport_type transport_type);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_receive_get_max_dst_buf_list_len(
	const struct doca_devinfo *devinfo, enum doca_rdma_transport_type transport_type, uint32_t *max_buf_list_len);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_receive_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_send_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_send_imm_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_read_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_write_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_write_imm_is_supported(const struct doca_devinfo *devinfo);
/** @brief 64-bit compare and swap on remote memory: DOCA_SUCCESS on every emulated device. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_atomic_cmp_swp_is_supported(const struct doca_devinfo *devinfo);
/** @brief 64-bit fetch and add on remote memory: DOCA_SUCCESS on every emulated device. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_cap_task_atomic_fetch_add_is_supported(const struct doca_devinfo *devinfo);

/*
 * ---- tasks ----
 * For each type X: doca_rdma_task_X_set_conf (IDLE; both callbacks required;
 * num_tasks is the pool size), doca_rdma_task_X_allocate_init (RUNNING;
 * DOCA_ERROR_NO_MEMORY when the pool is empty), doca_rdma_task_X_as_task, and
 * field setters (only on a task that is not in flight) and getters.
 */

/* receive: the next message from any connection of the context */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_receive_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_receive_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_receive_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
/** @brief Longest destination list of a receive (IDLE only; default 1, up to 16): a message fills the bufs in order. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_receive_set_dst_buf_list_len(struct doca_rdma *rdma,
									   uint32_t buf_list_len);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_receive_get_dst_buf_list_len(const struct doca_rdma *rdma,
									   uint32_t *buf_list_len);
/** @brief @p dst_buf may be NULL for empty messages and writes with immediate data. */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_receive_allocate_init(struct doca_rdma *rdma, struct doca_buf *dst_buf,
								    union doca_data user_data,
								    struct doca_rdma_task_receive **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_receive_as_task(struct doca_rdma_task_receive *task);
DOCA_EXPERIMENTAL void doca_rdma_task_receive_set_dst_buf(struct doca_rdma_task_receive *task,
							  struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_receive_get_dst_buf(const struct doca_rdma_task_receive *task);
/** @brief What the received message was (valid after a successful completion). */
DOCA_EXPERIMENTAL enum doca_rdma_opcode doca_rdma_task_receive_get_result_opcode(
	const struct doca_rdma_task_receive *task);
/** @brief The size of the received message in bytes, as the sender sent it. */
DOCA_EXPERIMENTAL uint32_t doca_rdma_task_receive_get_result_len(const struct doca_rdma_task_receive *task);
/** @brief The immediate data, exactly as the sender passed it (no byte swap). */
DOCA_EXPERIMENTAL doca_be32_t
doca_rdma_task_receive_get_result_immediate_data(const struct doca_rdma_task_receive *task);
/** @brief The connection the message came on (successful completions only). */
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_receive_get_result_rdma_connection(
	const struct doca_rdma_task_receive *task);

/* send: the data segment of src_buf (NULL: an empty message) to the peer's next receive */
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_send_set_conf(struct doca_rdma *rdma, doca_rdma_task_send_completion_cb_t successful_task_completion_cb,
			     doca_rdma_task_send_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_send_allocate_init(struct doca_rdma *rdma,
								 struct doca_rdma_connection *rdma_connection,
								 const struct doca_buf *src_buf,
								 union doca_data user_data,
								 struct doca_rdma_task_send **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_send_as_task(struct doca_rdma_task_send *task);
DOCA_EXPERIMENTAL void doca_rdma_task_send_set_src_buf(struct doca_rdma_task_send *task,
						       const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *doca_rdma_task_send_get_src_buf(const struct doca_rdma_task_send *task);
DOCA_EXPERIMENTAL void doca_rdma_task_send_set_rdma_connection(struct doca_rdma_task_send *task,
							       struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_send_get_rdma_connection(
	const struct doca_rdma_task_send *task);

/* send with immediate data */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_send_imm_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_send_imm_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_send_imm_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_send_imm_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, const struct doca_buf *src_buf,
	doca_be32_t immediate_data, union doca_data user_data, struct doca_rdma_task_send_imm **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_send_imm_as_task(struct doca_rdma_task_send_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_send_imm_set_src_buf(struct doca_rdma_task_send_imm *task,
							   const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *doca_rdma_task_send_imm_get_src_buf(const struct doca_rdma_task_send_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_send_imm_set_immediate_data(struct doca_rdma_task_send_imm *task,
								  doca_be32_t immediate_data);
DOCA_EXPERIMENTAL doca_be32_t doca_rdma_task_send_imm_get_immediate_data(const struct doca_rdma_task_send_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_send_imm_set_rdma_connection(struct doca_rdma_task_send_imm *task,
								   struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_send_imm_get_rdma_connection(
	const struct doca_rdma_task_send_imm *task);

/* read: remote src_buf (an mmap imported from doca_mmap_export_rdma) into local dst_buf */
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_read_set_conf(struct doca_rdma *rdma, doca_rdma_task_read_completion_cb_t successful_task_completion_cb,
			     doca_rdma_task_read_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_read_allocate_init(struct doca_rdma *rdma,
								 struct doca_rdma_connection *rdma_connection,
								 const struct doca_buf *src_buf,
								 struct doca_buf *dst_buf, union doca_data user_data,
								 struct doca_rdma_task_read **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_read_as_task(struct doca_rdma_task_read *task);
DOCA_EXPERIMENTAL void doca_rdma_task_read_set_src_buf(struct doca_rdma_task_read *task,
						       const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *doca_rdma_task_read_get_src_buf(const struct doca_rdma_task_read *task);
DOCA_EXPERIMENTAL void doca_rdma_task_read_set_dst_buf(struct doca_rdma_task_read *task, struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_read_get_dst_buf(const struct doca_rdma_task_read *task);
DOCA_EXPERIMENTAL void doca_rdma_task_read_set_rdma_connection(struct doca_rdma_task_read *task,
							       struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_read_get_rdma_connection(
	const struct doca_rdma_task_read *task);
/** @brief Bytes read (valid after a successful completion). */
DOCA_EXPERIMENTAL uint32_t doca_rdma_task_read_get_result_len(const struct doca_rdma_task_read *task);

/* write: local src_buf into remote dst_buf */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_write_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_write_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_write_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_write_allocate_init(struct doca_rdma *rdma,
								  struct doca_rdma_connection *rdma_connection,
								  const struct doca_buf *src_buf,
								  struct doca_buf *dst_buf, union doca_data user_data,
								  struct doca_rdma_task_write **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_write_as_task(struct doca_rdma_task_write *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_set_src_buf(struct doca_rdma_task_write *task,
							const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *doca_rdma_task_write_get_src_buf(const struct doca_rdma_task_write *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_set_dst_buf(struct doca_rdma_task_write *task, struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_write_get_dst_buf(const struct doca_rdma_task_write *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_set_rdma_connection(struct doca_rdma_task_write *task,
								struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_write_get_rdma_connection(
	const struct doca_rdma_task_write *task);

/* write with immediate data: the write, then the peer's next receive completes with opcode RECV_WRITE_WITH_IMM */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_write_imm_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_write_imm_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_write_imm_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_write_imm_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, const struct doca_buf *src_buf,
	struct doca_buf *dst_buf, doca_be32_t immediate_data, union doca_data user_data,
	struct doca_rdma_task_write_imm **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_write_imm_as_task(struct doca_rdma_task_write_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_imm_set_src_buf(struct doca_rdma_task_write_imm *task,
							    const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *doca_rdma_task_write_imm_get_src_buf(
	const struct doca_rdma_task_write_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_imm_set_dst_buf(struct doca_rdma_task_write_imm *task,
							    struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_write_imm_get_dst_buf(const struct doca_rdma_task_write_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_imm_set_immediate_data(struct doca_rdma_task_write_imm *task,
								   doca_be32_t immediate_data);
DOCA_EXPERIMENTAL doca_be32_t doca_rdma_task_write_imm_get_immediate_data(const struct doca_rdma_task_write_imm *task);
DOCA_EXPERIMENTAL void doca_rdma_task_write_imm_set_rdma_connection(struct doca_rdma_task_write_imm *task,
								    struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_write_imm_get_rdma_connection(
	const struct doca_rdma_task_write_imm *task);

/*
 * Atomics: one 64-bit operation on the 8 bytes at the data address of the
 * remote dst_buf (an imported doca_mmap_export_rdma mmap granting
 * DOCA_ACCESS_FLAG_RDMA_ATOMIC, on a peer context whose permissions hold it
 * too). The address must be 8-byte aligned and the 8 bytes inside the buf and
 * the export (else the submit is refused with DOCA_ERROR_INVALID_VALUE). The
 * value the remote word held before the operation is written, in host byte
 * order, after the data of the local result_buf (which needs 8 free bytes);
 * its data_len grows by 8 on success. A refused permission completes the task
 * with DOCA_ERROR_NOT_PERMITTED. Atomics are atomic against each other, from
 * any number of peers; not against plain writes or the target's own stores.
 */

/* compare and swap: if the remote word equals cmp_data it becomes swap_data */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_atomic_cmp_swp_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_atomic_cmp_swp_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_atomic_cmp_swp_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_atomic_cmp_swp_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, struct doca_buf *dst_buf,
	struct doca_buf *result_buf, uint64_t cmp_data, uint64_t swap_data, union doca_data user_data,
	struct doca_rdma_task_atomic_cmp_swp **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_atomic_cmp_swp_as_task(struct doca_rdma_task_atomic_cmp_swp *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_cmp_swp_set_dst_buf(struct doca_rdma_task_atomic_cmp_swp *task,
								 struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_atomic_cmp_swp_get_dst_buf(
	const struct doca_rdma_task_atomic_cmp_swp *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_cmp_swp_set_result_buf(struct doca_rdma_task_atomic_cmp_swp *task,
								    struct doca_buf *result_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_atomic_cmp_swp_get_result_buf(
	const struct doca_rdma_task_atomic_cmp_swp *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_cmp_swp_set_cmp_data(struct doca_rdma_task_atomic_cmp_swp *task,
								  uint64_t cmp_data);
DOCA_EXPERIMENTAL uint64_t doca_rdma_task_atomic_cmp_swp_get_cmp_data(const struct doca_rdma_task_atomic_cmp_swp *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_cmp_swp_set_swap_data(struct doca_rdma_task_atomic_cmp_swp *task,
								   uint64_t swap_data);
DOCA_EXPERIMENTAL uint64_t doca_rdma_task_atomic_cmp_swp_get_swap_data(const struct doca_rdma_task_atomic_cmp_swp *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_cmp_swp_set_rdma_connection(struct doca_rdma_task_atomic_cmp_swp *task,
									 struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_atomic_cmp_swp_get_rdma_connection(
	const struct doca_rdma_task_atomic_cmp_swp *task);

/* fetch and add: the remote word grows by add_data (modulo 2^64) */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_atomic_fetch_add_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_atomic_fetch_add_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_atomic_fetch_add_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_task_atomic_fetch_add_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
					      struct doca_buf *dst_buf, struct doca_buf *result_buf, uint64_t add_data,
					      union doca_data user_data, struct doca_rdma_task_atomic_fetch_add **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_atomic_fetch_add_as_task(
	struct doca_rdma_task_atomic_fetch_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_fetch_add_set_dst_buf(struct doca_rdma_task_atomic_fetch_add *task,
								   struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_atomic_fetch_add_get_dst_buf(
	const struct doca_rdma_task_atomic_fetch_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_fetch_add_set_result_buf(struct doca_rdma_task_atomic_fetch_add *task,
								      struct doca_buf *result_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_atomic_fetch_add_get_result_buf(
	const struct doca_rdma_task_atomic_fetch_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_fetch_add_set_add_data(struct doca_rdma_task_atomic_fetch_add *task,
								    uint64_t add_data);
DOCA_EXPERIMENTAL uint64_t
doca_rdma_task_atomic_fetch_add_get_add_data(const struct doca_rdma_task_atomic_fetch_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_atomic_fetch_add_set_rdma_connection(
	struct doca_rdma_task_atomic_fetch_add *task, struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_atomic_fetch_add_get_rdma_connection(
	const struct doca_rdma_task_atomic_fetch_add *task);

/*
 * ---- sync events of a network peer ----
 * A struct doca_sync_event_remote_net comes from
 * doca_sync_event_remote_net_create_from_export (doca_sync_event.h) on the
 * peer's doca_sync_event_export_to_remote_net descriptor. Each task reaches
 * the event's 64-bit value over a connection to the exporting program: get
 * reads it into the free space after dst_buf's data (data_len grows by 8),
 * notify_set writes the 8 bytes of src_buf's data (its data_len must be 8),
 * notify_add adds add_data atomically and puts the value before the add after
 * result_buf's data (data_len grows by 8). The exporter's waiters see the new
 * value (within a millisecond: RDMA writes wake no sleeper).
 */
struct doca_sync_event_remote_net;
struct doca_rdma_task_remote_net_sync_event_get;
struct doca_rdma_task_remote_net_sync_event_notify_set;
struct doca_rdma_task_remote_net_sync_event_notify_add;

typedef void (*doca_rdma_task_remote_net_sync_event_get_completion_cb_t)(
	struct doca_rdma_task_remote_net_sync_event_get *task, union doca_data task_user_data,
	union doca_data ctx_user_data);
typedef void (*doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t)(
	struct doca_rdma_task_remote_net_sync_event_notify_set *task, union doca_data task_user_data,
	union doca_data ctx_user_data);
typedef void (*doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t)(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task, union doca_data task_user_data,
	union doca_data ctx_user_data);

DOCA_EXPERIMENTAL doca_error_t
doca_rdma_cap_task_remote_net_sync_event_get_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported(const struct doca_devinfo *devinfo);
DOCA_EXPERIMENTAL doca_error_t
doca_rdma_cap_task_remote_net_sync_event_notify_add_is_supported(const struct doca_devinfo *devinfo);

/* get: the event's value, read into dst_buf */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_get_set_conf(
	struct doca_rdma *rdma, doca_rdma_task_remote_net_sync_event_get_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_remote_net_sync_event_get_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_get_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
	const struct doca_sync_event_remote_net *event, struct doca_buf *dst_buf, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_get **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_remote_net_sync_event_get_as_task(
	struct doca_rdma_task_remote_net_sync_event_get *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_get_set_sync_event(
	struct doca_rdma_task_remote_net_sync_event_get *task, const struct doca_sync_event_remote_net *event);
DOCA_EXPERIMENTAL const struct doca_sync_event_remote_net *doca_rdma_task_remote_net_sync_event_get_get_sync_event(
	const struct doca_rdma_task_remote_net_sync_event_get *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_get_set_dst_buf(
	struct doca_rdma_task_remote_net_sync_event_get *task, struct doca_buf *dst_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_remote_net_sync_event_get_get_dst_buf(
	const struct doca_rdma_task_remote_net_sync_event_get *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_get_set_rdma_connection(
	struct doca_rdma_task_remote_net_sync_event_get *task, struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_remote_net_sync_event_get_get_rdma_connection(
	const struct doca_rdma_task_remote_net_sync_event_get *task);
/** @brief Bytes the last successful get read: 8. */
DOCA_EXPERIMENTAL uint32_t
doca_rdma_task_remote_net_sync_event_get_get_result_len(const struct doca_rdma_task_remote_net_sync_event_get *task);

/* notify_set: the event's value becomes the 8 bytes of src_buf */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_set_conf(
	struct doca_rdma *rdma,
	doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, struct doca_sync_event_remote_net *event,
	const struct doca_buf *src_buf, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_notify_set **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_remote_net_sync_event_notify_set_as_task(
	struct doca_rdma_task_remote_net_sync_event_notify_set *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_set_set_sync_event(
	struct doca_rdma_task_remote_net_sync_event_notify_set *task, struct doca_sync_event_remote_net *event);
DOCA_EXPERIMENTAL struct doca_sync_event_remote_net *doca_rdma_task_remote_net_sync_event_notify_set_get_sync_event(
	const struct doca_rdma_task_remote_net_sync_event_notify_set *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_set_set_src_buf(
	struct doca_rdma_task_remote_net_sync_event_notify_set *task, const struct doca_buf *src_buf);
DOCA_EXPERIMENTAL const struct doca_buf *doca_rdma_task_remote_net_sync_event_notify_set_get_src_buf(
	const struct doca_rdma_task_remote_net_sync_event_notify_set *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_set_set_rdma_connection(
	struct doca_rdma_task_remote_net_sync_event_notify_set *task, struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_remote_net_sync_event_notify_set_get_rdma_connection(
	const struct doca_rdma_task_remote_net_sync_event_notify_set *task);

/* notify_add: add_data is added atomically; the value before it goes to result_buf */
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_set_conf(
	struct doca_rdma *rdma,
	doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t successful_task_completion_cb,
	doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t error_task_completion_cb, uint32_t num_tasks);
DOCA_EXPERIMENTAL doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, struct doca_sync_event_remote_net *event,
	struct doca_buf *result_buf, uint64_t add_data, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_notify_add **task);
DOCA_EXPERIMENTAL struct doca_task *doca_rdma_task_remote_net_sync_event_notify_add_as_task(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_add_set_sync_event(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task, struct doca_sync_event_remote_net *event);
DOCA_EXPERIMENTAL struct doca_sync_event_remote_net *doca_rdma_task_remote_net_sync_event_notify_add_get_sync_event(
	const struct doca_rdma_task_remote_net_sync_event_notify_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_add_set_result_buf(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task, struct doca_buf *result_buf);
DOCA_EXPERIMENTAL struct doca_buf *doca_rdma_task_remote_net_sync_event_notify_add_get_result_buf(
	const struct doca_rdma_task_remote_net_sync_event_notify_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_add_set_add_data(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task, uint64_t add_data);
DOCA_EXPERIMENTAL uint64_t doca_rdma_task_remote_net_sync_event_notify_add_get_add_data(
	const struct doca_rdma_task_remote_net_sync_event_notify_add *task);
DOCA_EXPERIMENTAL void doca_rdma_task_remote_net_sync_event_notify_add_set_rdma_connection(
	struct doca_rdma_task_remote_net_sync_event_notify_add *task, struct doca_rdma_connection *rdma_connection);
DOCA_EXPERIMENTAL const struct doca_rdma_connection *doca_rdma_task_remote_net_sync_event_notify_add_get_rdma_connection(
	const struct doca_rdma_task_remote_net_sync_event_notify_add *task);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_RDMA_H_ */
