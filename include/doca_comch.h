/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file doca_comch.h
 * @brief DOCA Comch control path: a server on the DPU side, clients on the host side.
 *
 * A doca_comch_server listens under a name on a DPU-side device and the representor of
 * one host-side PCIe function; a doca_comch_client on that host-side function connects
 * to the name. Each accepted pairing is a doca_comch_connection over which either side
 * sends short messages (send task) and receives them (message-received event). Both
 * objects are DOCA contexts: connect them to a progress engine, configure while IDLE,
 * start, and progress. A client's start is asynchronous: its context stays STARTING
 * until the server accepted it, then goes RUNNING.
 *
 * Ferry runs both sides as ordinary processes on one Linux machine: they meet in the
 * domain named by the environment variable FERRY_DOMAIN ("default" when unset). Unlike
 * DOCA, Ferry makes the progress engine's notification handle wake on Comch messages and
 * connection changes too, so event-driven programs need no busy polling.
 *
 * Ferry's environment variables: FERRY_DOMAIN (the rendezvous domain);
 * FERRY_COMCH_CONNECT_TIMEOUT_MS (default 5000: how long a STARTING client waits for
 * its server to appear and answer before it fails with DOCA_ERROR_NOT_FOUND or
 * DOCA_ERROR_TIME_OUT); FERRY_COMCH_HANDSHAKE_MS (default 2000: how long a server
 * waits for a new peer's handshake before it drops the peer).
 *
 * Threading: a context, its connections and its progress engine are used from one thread.
 */
#ifndef DOCA_COMCH_H_
#define DOCA_COMCH_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_ctx;
struct doca_dev;
struct doca_dev_rep;
struct doca_devinfo;
struct doca_task;

/** One established client-server pairing; owned by its server or client context. */
struct doca_comch_connection;
/** DPU-side end point that accepts clients. */
struct doca_comch_server;
/** Host-side end point that connects to one server. */
struct doca_comch_client;
/** Task that sends one message over a connection. */
struct doca_comch_task_send;
/** Event: a message arrived. */
struct doca_comch_event_msg_recv;
/** Event: a connection was established or ended. */
struct doca_comch_event_connection_status_changed;
/** Event: the peer created or destroyed a fast-path consumer. */
struct doca_comch_event_consumer;

/* ---- connections ---- */

/**
 * @brief Attach application data to a connection.
 * @param [in] connection the connection.
 * @param [in] user_data any value; returned by doca_comch_connection_get_user_data.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE when @p connection is NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection,
								   union doca_data user_data);

/**
 * @brief The application data attached to a connection (zero when never set).
 * @param [in] connection the connection.
 * @return the user data; zero for a NULL connection.
 */
DOCA_EXPERIMENTAL union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection);

/**
 * @brief The server a connection belongs to.
 * @param [in] connection the connection.
 * @return the server, or NULL when the connection belongs to a client (or is NULL).
 */
DOCA_EXPERIMENTAL struct doca_comch_server *doca_comch_server_get_server_ctx(
	const struct doca_comch_connection *connection);

/**
 * @brief The client a connection belongs to.
 * @param [in] connection the connection.
 * @return the client, or NULL when the connection belongs to a server (or is NULL).
 */
DOCA_EXPERIMENTAL struct doca_comch_client *doca_comch_client_get_client_ctx(
	const struct doca_comch_connection *connection);

/* ---- capabilities ---- */

/**
 * @brief Longest server name a device accepts, counting the terminating NUL.
 * @param [in] devinfo the device.
 * @param [out] max_name_len the limit.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_get_max_name_len(const struct doca_devinfo *devinfo,
							       uint32_t *max_name_len);

/**
 * @brief Largest control message a device can carry.
 * @param [in] devinfo the device.
 * @param [out] size the limit in bytes.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size);

/**
 * @brief Largest receive queue a server or client on this device may ask for.
 * @param [in] devinfo the device.
 * @param [out] size the limit in messages.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo,
								      uint32_t *size);

/**
 * @brief How many clients one server on this device can hold at once.
 * @param [in] devinfo the device.
 * @param [out] num_clients the limit.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_get_max_clients(const struct doca_devinfo *devinfo,
							      uint32_t *num_clients);

/**
 * @brief Most send tasks one server or client on this device may configure.
 * @param [in] devinfo the device.
 * @param [out] max_send_tasks the limit.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo,
								 uint32_t *max_send_tasks);

/**
 * @brief Whether a device can host a server (only DPU-side devices can).
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when it can, DOCA_ERROR_NOT_SUPPORTED when it cannot,
 *         DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo);

/**
 * @brief Whether a device can host a client (only host-side devices can).
 * @param [in] devinfo the device.
 * @return DOCA_SUCCESS when it can, DOCA_ERROR_NOT_SUPPORTED when it cannot,
 *         DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo);

/* ---- server ---- */

/**
 * @brief Create a server that will listen under @p name for the host function @p repr stands for.
 * @param [in] dev an open DPU-side device; held until destroy.
 * @param [in] repr an open representor of @p dev; held until destroy.
 * @param [in] name NUL-terminated, 1..(max_name_len - 1) bytes; copied.
 * @param [out] comch_server the new server, IDLE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a bad name;
 *         DOCA_ERROR_NOT_SUPPORTED when @p dev cannot host a server or @p repr is not its
 *         representor of a host function; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_create(struct doca_dev *dev, struct doca_dev_rep *repr,
							const char *name, struct doca_comch_server **comch_server);

/**
 * @brief Destroy an IDLE server and release its device and representor.
 * @param [in] comch_server the server.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_destroy(struct doca_comch_server *comch_server);

/**
 * @brief Set the largest message either side may send (default: the device's cap).
 *        A client must use the same value, or the server refuses it.
 * @param [in] comch_server the server, IDLE.
 * @param [in] size 1..cap bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE out of range; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_set_max_msg_size(struct doca_comch_server *comch_server,
								  uint32_t size);

/**
 * @brief The largest message size in effect.
 * @param [in] comch_server the server.
 * @param [out] size bytes.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_get_max_msg_size(const struct doca_comch_server *comch_server,
								  uint32_t *size);

/**
 * @brief Set how many received messages one progress call may deliver per connection.
 * @param [in] comch_server the server, IDLE.
 * @param [in] size 1..cap messages.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE out of range; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_set_recv_queue_size(struct doca_comch_server *comch_server,
								     uint32_t size);

/**
 * @brief The receive queue size in effect.
 * @param [in] comch_server the server.
 * @param [out] size messages.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_get_recv_queue_size(const struct doca_comch_server *comch_server,
								     uint32_t *size);

/**
 * @brief The device the server was created on.
 * @param [in] comch_server the server.
 * @param [out] dev the device.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_get_device(const struct doca_comch_server *comch_server,
							    struct doca_dev **dev);

/**
 * @brief The representor the server was created with.
 * @param [in] comch_server the server.
 * @param [out] repr the representor.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_get_device_repr(const struct doca_comch_server *comch_server,
								 struct doca_dev_rep **repr);

/**
 * @brief The server as a generic DOCA context.
 * @param [in] comch_server the server.
 * @return the context, or NULL for NULL.
 */
DOCA_EXPERIMENTAL struct doca_ctx *doca_comch_server_as_ctx(struct doca_comch_server *comch_server);

/**
 * @brief End one connection: the client is told and leaves RUNNING; the connection is
 *        freed now and no disconnect event is delivered for it.
 * @param [in] comch_server the server, RUNNING.
 * @param [in] connection one of its connections.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a foreign connection;
 *         DOCA_ERROR_IN_USE while producers or consumers exist on the connection;
 *         DOCA_ERROR_BAD_STATE unless RUNNING.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_disconnect(struct doca_comch_server *comch_server,
							    struct doca_comch_connection *connection);

/* ---- client ---- */

/**
 * @brief Create a client that will connect to the server named @p name.
 * @param [in] dev an open host-side device; held until destroy.
 * @param [in] name NUL-terminated, 1..(max_name_len - 1) bytes; copied.
 * @param [out] comch_client the new client, IDLE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a bad name;
 *         DOCA_ERROR_NOT_SUPPORTED when @p dev cannot host a client; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name,
							struct doca_comch_client **comch_client);

/**
 * @brief Destroy an IDLE client and release its device.
 * @param [in] comch_client the client.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client);

/**
 * @brief Set the largest message size (default: the device's cap); must equal the server's.
 * @param [in] comch_client the client, IDLE.
 * @param [in] size 1..cap bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE out of range; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client,
								  uint32_t size);

/**
 * @brief The largest message size in effect.
 * @param [in] comch_client the client.
 * @param [out] size bytes.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client,
								  uint32_t *size);

/**
 * @brief Set how many received messages one progress call may deliver.
 * @param [in] comch_client the client, IDLE.
 * @param [in] size 1..cap messages.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE out of range; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client,
								     uint32_t size);

/**
 * @brief The receive queue size in effect.
 * @param [in] comch_client the client.
 * @param [out] size messages.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client,
								     uint32_t *size);

/**
 * @brief The device the client was created on.
 * @param [in] comch_client the client.
 * @param [out] dev the device.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE for NULL arguments.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client,
							    struct doca_dev **dev);

/**
 * @brief The client as a generic DOCA context.
 * @param [in] comch_client the client.
 * @return the context, or NULL for NULL.
 */
DOCA_EXPERIMENTAL struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client);

/**
 * @brief The client's connection to its server.
 * @param [in] comch_client the client, RUNNING.
 * @param [out] connection the connection; valid until the context leaves RUNNING.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless RUNNING.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
								struct doca_comch_connection **connection);

/* ---- send task ---- */

/**
 * @brief Called from doca_pe_progress when a send task finished (one type for success and error).
 * @param [in] task the task; the application frees or resubmits it.
 * @param [in] task_user_data the task's user data.
 * @param [in] ctx_user_data the context's user data.
 */
typedef void (*doca_comch_task_send_completion_cb_t)(struct doca_comch_task_send *task, union doca_data task_user_data,
						     union doca_data ctx_user_data);

/**
 * @brief Configure the server's send tasks.
 * @param [in] comch_server the server, IDLE.
 * @param [in] task_completion_cb called for a sent message.
 * @param [in] task_error_cb called for a message that could not be sent.
 * @param [in] num_send_tasks pool size, 1..cap.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or out of range; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_task_send_set_conf(
	struct doca_comch_server *comch_server, doca_comch_task_send_completion_cb_t task_completion_cb,
	doca_comch_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks);

/**
 * @brief Configure the client's send tasks.
 * @param [in] comch_client the client, IDLE.
 * @param [in] task_completion_cb called for a sent message.
 * @param [in] task_error_cb called for a message that could not be sent.
 * @param [in] num_send_tasks pool size, 1..cap.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or out of range; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_task_send_set_conf(
	struct doca_comch_client *comch_client, doca_comch_task_send_completion_cb_t task_completion_cb,
	doca_comch_task_send_completion_cb_t task_error_cb, uint32_t num_send_tasks);

/**
 * @brief Take a send task from the server's pool and fill it. The message is copied,
 *        so @p msg may be reused as soon as this returns.
 * @param [in] comch_server the server, RUNNING.
 * @param [in] peer one of the server's connections.
 * @param [in] msg the bytes to send (may be NULL only when @p len is 0).
 * @param [in] len at most the max message size.
 * @param [out] task the task.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, a foreign connection or
 *         @p len too big; DOCA_ERROR_NO_MEMORY when the pool is empty; DOCA_ERROR_BAD_STATE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_task_send_alloc_init(struct doca_comch_server *comch_server,
								      struct doca_comch_connection *peer,
								      const void *msg, uint32_t len,
								      struct doca_comch_task_send **task);

/**
 * @brief Take a send task from the client's pool and fill it (the message is copied).
 * @param [in] comch_client the client, RUNNING.
 * @param [in] peer the client's connection.
 * @param [in] msg the bytes to send (may be NULL only when @p len is 0).
 * @param [in] len at most the max message size.
 * @param [out] task the task.
 * @return as doca_comch_server_task_send_alloc_init.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
								      struct doca_comch_connection *peer,
								      const void *msg, uint32_t len,
								      struct doca_comch_task_send **task);

/**
 * @brief The send task as a generic task (for doca_task_submit, doca_task_free, user data).
 * @param [in] task the send task.
 * @return the generic task, or NULL for NULL.
 */
DOCA_EXPERIMENTAL struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task);

/* ---- message-received event ---- */

/**
 * @brief Called from doca_pe_progress for each message that arrived.
 * @param [in] event the event.
 * @param [in] recv_buffer the message; valid only during the call.
 * @param [in] msg_len its length in bytes.
 * @param [in] comch_connection the connection it came on.
 */
typedef void (*doca_comch_event_msg_recv_cb_t)(struct doca_comch_event_msg_recv *event, uint8_t *recv_buffer,
					       uint32_t msg_len, struct doca_comch_connection *comch_connection);

/**
 * @brief Register the server's message-received callback.
 * @param [in] comch_server the server, IDLE.
 * @param [in] recv_event_cb the callback.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_event_msg_recv_register(struct doca_comch_server *comch_server,
									 doca_comch_event_msg_recv_cb_t recv_event_cb);

/**
 * @brief Register the client's message-received callback.
 * @param [in] comch_client the client, IDLE.
 * @param [in] recv_event_cb the callback.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
									 doca_comch_event_msg_recv_cb_t recv_event_cb);

/* ---- connection-status event ---- */

/**
 * @brief Called from doca_pe_progress when a client connected or a connection ended.
 * @param [in] event the event.
 * @param [in] comch_connection the connection; after a disconnect it is freed when the call returns.
 * @param [in] change_successful 1 when the change succeeded, 0 otherwise.
 */
typedef void (*doca_comch_event_connection_status_changed_cb_t)(struct doca_comch_event_connection_status_changed *event,
								struct doca_comch_connection *comch_connection,
								uint8_t change_successful);

/**
 * @brief Register the server's connect and disconnect callbacks.
 * @param [in] comch_server the server, IDLE.
 * @param [in] connect_event_cb called when a client was accepted.
 * @param [in] disconnect_event_cb called when a client left, died or broke the protocol.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_event_connection_status_changed_register(
	struct doca_comch_server *comch_server, doca_comch_event_connection_status_changed_cb_t connect_event_cb,
	doca_comch_event_connection_status_changed_cb_t disconnect_event_cb);

/* ---- consumer events (fast path) ---- */

/**
 * @brief Called from doca_pe_progress when the peer created or destroyed a consumer.
 * @param [in] event the event.
 * @param [in] comch_connection the connection the consumer belongs to.
 * @param [in] id the consumer's id.
 */
typedef void (*doca_comch_event_consumer_cb_t)(struct doca_comch_event_consumer *event,
					       struct doca_comch_connection *comch_connection, uint32_t id);

/**
 * @brief Register the server's consumer callbacks.
 * @param [in] comch_server the server, IDLE.
 * @param [in] new_consumer_event_cb a remote consumer appeared.
 * @param [in] expired_consumer_event_cb a remote consumer went away.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_server_event_consumer_register(
	struct doca_comch_server *comch_server, doca_comch_event_consumer_cb_t new_consumer_event_cb,
	doca_comch_event_consumer_cb_t expired_consumer_event_cb);

/**
 * @brief Register the client's consumer callbacks.
 * @param [in] comch_client the client, IDLE.
 * @param [in] new_consumer_event_cb a remote consumer appeared.
 * @param [in] expired_consumer_event_cb a remote consumer went away.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE unless IDLE.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comch_client_event_consumer_register(
	struct doca_comch_client *comch_client, doca_comch_event_consumer_cb_t new_consumer_event_cb,
	doca_comch_event_consumer_cb_t expired_consumer_event_cb);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMCH_H_ */
