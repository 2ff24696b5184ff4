/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_comm_channel.h (DOCA 1.4 flavour) - the Comm Channel as DOCA 1.3/1.4
 * had it: an endpoint made from an attribute struct, blocking by default.
 *
 * A blocking endpoint's connect returns once the server accepted it (or
 * failed), recvfrom waits for a message, sendto for room in the send queue.
 * With DOCA_CC_INIT_FLAG_NONBLOCK they answer DOCA_ERROR_AGAIN instead, and
 * connect returns at once (doca_comm_channel_peer_addr_update_info says when
 * the connection is up; sendto answers DOCA_ERROR_NOT_CONNECTED before).
 *
 * That generation had no device setters. Ferry picks the devices of its
 * default topology: listen serves on the DPU-side device 03:00.0 for the host
 * function b1:00.0 (through its representor), connect uses the host-side
 * device b1:00.0; in another topology, the first device that can play the
 * part. The transport is Ferry's Comch in the domain named by FERRY_DOMAIN; a
 * blocking connect gives up (DOCA_ERROR_CONNECTION_ABORTED) when no server
 * answers within FERRY_COMCH_CONNECT_TIMEOUT_MS (default 5 s).
 *
 * A server learns a client from recvfrom's peer handle; when that client goes
 * away, recvfrom says so once with DOCA_ERROR_CONNECTION_RESET and its handle.
 * Messages are datagrams, kept in order per connection.
 */
#ifndef DOCA_COMM_CHANNEL_H_
#define DOCA_COMM_CHANNEL_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** An endpoint: a server (after listen) or a client (after connect). */
struct doca_comm_channel_ep_t;
/** The other end of one connection. */
struct doca_comm_channel_addr_t;

/** Flags of struct doca_comm_channel_init_attr. */
enum doca_comm_channel_init_flags {
	DOCA_CC_INIT_FLAG_NONBLOCK = 1, /**< calls answer DOCA_ERROR_AGAIN instead of waiting */
};

/** Flags of sendto and recvfrom (1.x programs pass 0). */
enum doca_comm_channel_msg_flags {
	DOCA_CC_MSG_FLAG_NONE = 0,
};

/** How to make an endpoint. */
struct doca_comm_channel_init_attr {
	uint32_t cookie;  /**< the program's own value; kept, not used by Ferry */
	uint32_t flags;   /**< 0 or DOCA_CC_INIT_FLAG_NONBLOCK */
	uint32_t maxmsgs; /**< send and receive queue depth, 1..8192 messages */
	uint32_t msgsize; /**< largest message, 1..4080 bytes */
};

/**
 * @brief Make an endpoint.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL, unknown flags or
 *         sizes out of range; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_create(struct doca_comm_channel_init_attr *attr,
							   struct doca_comm_channel_ep_t **ep)
	FERRY_LEGACY_SYMBOL(ferry_v14_comm_channel_ep_create);

/**
 * @brief Serve under @p name.
 * @return DOCA_SUCCESS; DOCA_ERROR_NOT_PERMITTED when the endpoint already
 *         listens or connected; the transport's error when the name is taken.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_listen(struct doca_comm_channel_ep_t *local_ep, const char *name);

/**
 * @brief Connect to the service @p name (blocking: until it accepted).
 * @return DOCA_SUCCESS; DOCA_ERROR_CONNECTION_ABORTED when refused or when no
 *         server answered in time; DOCA_ERROR_NOT_PERMITTED when already open.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_connect(struct doca_comm_channel_ep_t *local_ep, const char *name,
							    struct doca_comm_channel_addr_t **peer_addr);

/**
 * @brief Where a non-blocking endpoint's connection stands.
 * @return DOCA_SUCCESS once connected; DOCA_ERROR_CONNECTION_INPROGRESS before;
 *         DOCA_ERROR_CONNECTION_ABORTED when refused; DOCA_ERROR_CONNECTION_RESET once lost.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_peer_addr_update_info(struct doca_comm_channel_addr_t *peer_addr);

/**
 * @brief Send one message (copied).
 * @return DOCA_SUCCESS; DOCA_ERROR_AGAIN (non-blocking) when the queue is full;
 *         DOCA_ERROR_INVALID_VALUE when @p len exceeds msgsize;
 *         DOCA_ERROR_CONNECTION_RESET when the peer is gone.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_sendto(struct doca_comm_channel_ep_t *local_ep, const void *msg,
							   size_t len, int flags,
							   struct doca_comm_channel_addr_t *peer_addr);

/**
 * @brief Take the oldest message from any peer (blocking: wait for one).
 * @param [in,out] len in: the buffer's size; out: the message's size.
 * @return DOCA_SUCCESS; DOCA_ERROR_AGAIN (non-blocking) when nothing waits;
 *         DOCA_ERROR_INVALID_VALUE when the message does not fit (it stays
 *         queued); DOCA_ERROR_CONNECTION_RESET when a peer went away.
 */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_recvfrom(struct doca_comm_channel_ep_t *local_ep, void *msg,
							     size_t *len, int flags,
							     struct doca_comm_channel_addr_t **peer_addr);

/** @brief End a connection and free its handle. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_disconnect(struct doca_comm_channel_ep_t *local_ep,
							       struct doca_comm_channel_addr_t *peer_addr);

/** @brief Close every connection and free the endpoint. */
DOCA_EXPERIMENTAL doca_error_t doca_comm_channel_ep_destroy(struct doca_comm_channel_ep_t *local_ep);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_COMM_CHANNEL_H_ */
