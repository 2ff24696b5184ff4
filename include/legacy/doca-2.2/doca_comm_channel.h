/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_comm_channel.h (DOCA 2.2 flavour) - the Comm Channel: datagrams between
 * a service on the DPU side and clients on the host side.
 *
 * A server endpoint gets a DPU-side device and the representor of the host
 * function its clients use, then listens under a service name. A client
 * endpoint gets a host-side device and connects to the name; the handle it
 * gets back is usable once doca_comm_channel_peer_addr_update_info answers
 * DOCA_SUCCESS. Every call is non-blocking: sendto answers DOCA_ERROR_AGAIN
 * when the send queue is full, recvfrom when nothing arrived. A server meets a
 * new client as the peer handle of the first message recvfrom returns from it.
 *
 * Ferry runs the channel on its Comch transport (the DOCA 3 server and client,
 * with their peer checks), in the domain named by FERRY_DOMAIN. Differences from
 * the real SDK: a client whose server is not listening yet keeps answering
 * DOCA_ERROR_CONNECTION_INPROGRESS and retries until it is; when a server's
 * client goes away, recvfrom says so once (DOCA_ERROR_CONNECTION_RESET with
 * that peer handle) after the client's last message; the event channel fds may
 * also wake when nothing is ready (re-arm and wait again).
 *
 * Threading: an endpoint takes a lock in every call, so two threads may share
 * one (one sending, one receiving), as secure_channel does.
 */
#ifndef DOCA_COMM_CHANNEL_H_
#define DOCA_COMM_CHANNEL_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_dev_rep;
struct doca_devinfo;

/** An endpoint: a server (after listen) or a client (after connect). */
struct doca_comm_channel_ep_t;
/** The other end of one connection, as seen from an endpoint. */
struct doca_comm_channel_addr_t;

/** A file descriptor to wait on with epoll or poll. */
typedef doca_event_handle_t doca_event_channel_t;

/** Flags of sendto and recvfrom. */
enum doca_comm_channel_msg_flags {
	DOCA_CC_MSG_FLAG_NONE = 0,
};

/**
 * @brief Make an endpoint with the default sizes (messages of the device's
 *        largest size, queues of 64 messages).
 * @param [out] ep the endpoint.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_create(struct doca_comm_channel_ep_t **ep);

/**
 * @brief Close every connection and free the endpoint (and its peer handles).
 * @param [in] ep the endpoint.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_destroy(struct doca_comm_channel_ep_t *ep);

/** @brief The device: DPU side for a server, host side for a client. Before listen/connect. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_set_device(struct doca_comm_channel_ep_t *ep,
							       struct doca_dev *device);
/** @brief A server's representor of its clients' host function. Before listen. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_set_device_rep(struct doca_comm_channel_ep_t *ep,
								   struct doca_dev_rep *device_rep);
/**
 * @brief Size setters, before listen/connect (DOCA_ERROR_BAD_STATE after).
 *        Messages: 1..the device's maximum; queues: 1..the device's maximum.
 *        The getters report the value in effect.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_set_max_msg_size(struct doca_comm_channel_ep_t *ep,
								     uint16_t max_msg_size);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_set_send_queue_size(struct doca_comm_channel_ep_t *ep,
									uint16_t send_queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_set_recv_queue_size(struct doca_comm_channel_ep_t *ep,
									uint16_t recv_queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_device(struct doca_comm_channel_ep_t *ep,
							       struct doca_dev **device);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_device_rep(struct doca_comm_channel_ep_t *ep,
								   struct doca_dev_rep **device_rep);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_max_msg_size(struct doca_comm_channel_ep_t *ep,
								     uint16_t *max_msg_size);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_send_queue_size(struct doca_comm_channel_ep_t *ep,
									uint16_t *send_queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_recv_queue_size(struct doca_comm_channel_ep_t *ep,
									uint16_t *recv_queue_size);

/** @brief Longest service name, counting the terminating NUL. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_get_max_service_name_len(uint32_t *max_service_name_len);
/** @brief A device's limits: message size, queue sizes, clients per service. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_get_max_message_size(struct doca_devinfo *devinfo,
								      uint32_t *max_message_size);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_get_max_send_queue_size(struct doca_devinfo *devinfo,
									 uint32_t *max_send_queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_get_max_recv_queue_size(struct doca_devinfo *devinfo,
									 uint32_t *max_recv_queue_size);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_get_service_max_num_connections(struct doca_devinfo *devinfo,
										 uint32_t *max_num_connections);

/**
 * @brief Serve under @p name.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE without a device and a representor;
 *         DOCA_ERROR_NOT_PERMITTED when the endpoint already listens or connected;
 *         DOCA_ERROR_INVALID_VALUE for a bad name; the transport's error when the
 *         name is taken or the devices do not fit.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_listen(struct doca_comm_channel_ep_t *ep, const char *name);

/**
 * @brief Start connecting to the service @p name; returns at once.
 * @param [out] peer_addr the server's handle; poll doca_comm_channel_peer_addr_update_info.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE without a device;
 *         DOCA_ERROR_NOT_PERMITTED when the endpoint already listens or connected.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_connect(struct doca_comm_channel_ep_t *ep, const char *name,
							    struct doca_comm_channel_addr_t **peer_addr);

/**
 * @brief Where a client's connection stands.
 * @return DOCA_SUCCESS once connected; DOCA_ERROR_CONNECTION_INPROGRESS before;
 *         DOCA_ERROR_CONNECTION_ABORTED when the server refused it;
 *         DOCA_ERROR_CONNECTION_RESET when the connection was lost.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_update_info(struct doca_comm_channel_addr_t *peer_addr);

/**
 * @brief Send one message (copied: @p msg is free again on return).
 * @return DOCA_SUCCESS; DOCA_ERROR_AGAIN when the send queue is full;
 *         DOCA_ERROR_INVALID_VALUE when @p len exceeds the max message size;
 *         DOCA_ERROR_NOT_CONNECTED before the connection is up;
 *         DOCA_ERROR_CONNECTION_RESET when the peer is gone.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_sendto(struct doca_comm_channel_ep_t *ep, const void *msg,
							   size_t len, int flags,
							   struct doca_comm_channel_addr_t *peer_addr);

/**
 * @brief Take the oldest message from any peer.
 * @param [in,out] len in: the size of @p msg; out: the message's size.
 * @param [out] peer_addr who sent it.
 * @return DOCA_SUCCESS; DOCA_ERROR_AGAIN when nothing waits (@p len and
 *         @p peer_addr untouched); DOCA_ERROR_INVALID_VALUE when the message does
 *         not fit (it stays queued, *len says its size); DOCA_ERROR_NOT_CONNECTED
 *         before listen/connect; DOCA_ERROR_CONNECTION_RESET when a peer went
 *         away (a server: once, with *peer_addr that peer; a client: from then on).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_recvfrom(struct doca_comm_channel_ep_t *ep, void *msg, size_t *len,
							     int flags, struct doca_comm_channel_addr_t **peer_addr);

/** @brief End a connection and free its handle (messages of it not yet received are dropped). */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_disconnect(struct doca_comm_channel_ep_t *ep,
							       struct doca_comm_channel_addr_t *peer_addr);

/** @brief Any number the program wants to keep with a peer handle. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_set_user_data(struct doca_comm_channel_addr_t *peer_addr,
									 uint64_t user_context);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_get_user_data(struct doca_comm_channel_addr_t *peer_addr,
									 uint64_t *user_data);
/** @brief Per-peer counters: messages and bytes sent and received, sends not yet completed. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_get_send_messages(
	const struct doca_comm_channel_addr_t *peer_addr, uint64_t *send_messages);
DOCA_EXPERIMENTAL doca_error_t
doca_comm_channel_peer_addr_get_send_bytes(const struct doca_comm_channel_addr_t *peer_addr, uint64_t *send_bytes);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_get_recv_messages(
	const struct doca_comm_channel_addr_t *peer_addr, uint64_t *recv_messages);
DOCA_EXPERIMENTAL doca_error_t
doca_comm_channel_peer_addr_get_recv_bytes(const struct doca_comm_channel_addr_t *peer_addr, uint64_t *recv_bytes);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_get_send_in_flight_messages(
	const struct doca_comm_channel_addr_t *peer_addr, uint64_t *send_in_flight_messages);

/**
 * @brief Two fds to wait on: @p send_event_channel wakes after
 *        doca_comm_channel_ep_event_handle_arm_send once the send queue has room,
 *        @p recv_event_channel after ..._arm_recv once a message (or a peer's end)
 *        waits. Arming when that is already so wakes at once. The program never
 *        reads the fds. Only after listen/connect (DOCA_ERROR_BAD_STATE before).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_event_channel(struct doca_comm_channel_ep_t *ep,
								      doca_event_channel_t *send_event_channel,
								      doca_event_channel_t *recv_event_channel);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_event_handle_arm_send(struct doca_comm_channel_ep_t *ep);
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_event_handle_arm_recv(struct doca_comm_channel_ep_t *ep);

/**
 * @brief A server's service fd: wakes when a client connects or leaves (after
 *        doca_comm_channel_ep_update_service_state_info, which also re-arms it).
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_service_event_channel(
	struct doca_comm_channel_ep_t *ep, doca_event_channel_t *service_event_channel);
/** @brief Refresh what the two calls below report (and re-arm the service fd). */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_update_service_state_info(struct doca_comm_channel_ep_t *ep);
/**
 * @brief The connected peers as of the last update: an array the endpoint owns,
 *        valid until the next update, disconnect or destroy.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_peer_addr_list(
	const struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t ***peer_addr_array,
	uint32_t *peer_addr_array_len);
/** @brief Connected clients recvfrom has not yet shown, as of the last update. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_get_pending_connections(const struct doca_comm_channel_ep_t *ep,
									    uint32_t *pending_connections);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMM_CHANNEL_H_ */
