/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc_io.c - the Comm Channel's data calls: sendto, recvfrom and the event
 * channels' readiness, shared by the 1.x and 2.x entry points (the caller holds
 * the endpoint's lock).
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_pe.h>

#include "common/ferry_log.h"

#include "legacy/cc_priv.h"

FERRY_LOG_MODULE("comm_channel");

/* ---- sending ---- */

/* Why @p peer cannot take a message now, or DOCA_SUCCESS. */
static doca_error_t cc_peer_sendable(const struct doca_comm_channel_ep_t *ep,
				     const struct doca_comm_channel_addr_t *peer)
{
	if (peer == NULL || !cc_peer_known(ep, peer))
		return FERRY_RULE_IN("doca_comm_channel_ep_sendto", DOCA_ERROR_NOT_CONNECTED,
				     "peer %p is not a connection of endpoint %p (disconnected, or never was)",
				     (const void *)peer, (const void *)ep);
	switch (peer->state) {
	case CC_PEER_UP:
		return DOCA_SUCCESS;
	case CC_PEER_CONNECTING:
		return FERRY_RULE_IN("doca_comm_channel_ep_sendto", DOCA_ERROR_NOT_CONNECTED,
				     "peer %p: the connection is not up yet (wait for "
				     "doca_comm_channel_peer_addr_update_info to answer DOCA_SUCCESS)",
				     (const void *)peer);
	case CC_PEER_ABORTED:
		return FERRY_RULE_IN("doca_comm_channel_ep_sendto", DOCA_ERROR_NOT_CONNECTED,
				     "peer %p: the connection was refused", (const void *)peer);
	case CC_PEER_GONE:
	default:
		return FERRY_RULE_IN("doca_comm_channel_ep_sendto", DOCA_ERROR_CONNECTION_RESET,
				     "peer %p: the connection ended (peer gone)", (const void *)peer);
	}
}

static doca_error_t cc_task_alloc(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer,
				  const void *msg, uint32_t len, struct doca_comch_task_send **task)
{
	if (ep->server != NULL)
		return doca_comch_server_task_send_alloc_init(ep->server, peer->conn, msg, len, task);
	return doca_comch_client_task_send_alloc_init(ep->client, peer->conn, msg, len, task);
}

static doca_error_t cc_send_once(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer,
				 const void *msg, uint32_t len)
{
	struct doca_comch_task_send *task = NULL;
	struct doca_task *t;
	doca_error_t err;

	cc_drive(ep); /* completions free slots; a peer's end shows */
	if (ep->send_in_flight >= ep->send_queue_size)
		return DOCA_ERROR_AGAIN;
	if (peer->state != CC_PEER_UP) /* the drive may have seen it end */
		return cc_peer_sendable(ep, peer);
	err = cc_task_alloc(ep, peer, msg, len, &task);
	if (err == DOCA_ERROR_NO_MEMORY)
		return DOCA_ERROR_AGAIN;
	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN("doca_comm_channel_ep_sendto", DOCA_ERROR_CONNECTION_RESET,
				     "peer %p: the transport refused the message (%s)", (void *)peer,
				     doca_error_get_name(err));
	t = doca_comch_task_send_as_task(task);
	doca_task_set_user_data(t, (union doca_data){.ptr = peer});
	err = doca_task_submit(t);
	if (err != DOCA_SUCCESS) {
		doca_task_free(t);
		return err == DOCA_ERROR_AGAIN ? err : DOCA_ERROR_CONNECTION_RESET;
	}
	ep->send_in_flight++;
	peer->in_flight++;
	peer->send_msgs++;
	peer->send_bytes += len;
	return DOCA_SUCCESS;
}

doca_error_t cc_sendto(struct doca_comm_channel_ep_t *ep, const void *msg, size_t len, int flags,
		       struct doca_comm_channel_addr_t *peer)
{
	doca_error_t err;

	if (flags != 0)
		return FERRY_RULE_IN("doca_comm_channel_ep_sendto", DOCA_ERROR_INVALID_VALUE,
				     "flags %#x: only DOCA_CC_MSG_FLAG_NONE exists", (unsigned)flags);
	if (msg == NULL && len > 0)
		return FERRY_RULE_IN("doca_comm_channel_ep_sendto", DOCA_ERROR_INVALID_VALUE, "msg is NULL");
	if (len > ep->max_msg_size)
		return FERRY_RULE_IN("doca_comm_channel_ep_sendto", DOCA_ERROR_INVALID_VALUE,
				     "len %zu exceeds the endpoint's max message size %u", len, ep->max_msg_size);
	if (ep->role == CC_ROLE_NONE)
		return FERRY_RULE_IN("doca_comm_channel_ep_sendto", DOCA_ERROR_NOT_CONNECTED,
				     "endpoint %p neither listens nor connected", (void *)ep);
	err = cc_peer_sendable(ep, peer);
	while (err == DOCA_SUCCESS) {
		err = cc_send_once(ep, peer, msg, (uint32_t)len);
		if (err != DOCA_ERROR_AGAIN || !ep->blocking)
			break;
		cc_wait(ep, CC_CHAN_SEND, 100);
		err = cc_peer_sendable(ep, peer); /* the wait let go of the lock */
	}
	return err;
}

/* ---- receiving ---- */

/* Nothing queued: what a client says about its one peer, AGAIN otherwise. */
static doca_error_t cc_rx_empty(const struct doca_comm_channel_ep_t *ep)
{
	const struct doca_comm_channel_addr_t *peer = ep->peers;

	if (ep->role != CC_ROLE_CLIENT || peer == NULL)
		return DOCA_ERROR_AGAIN;
	if (peer->state == CC_PEER_GONE)
		return FERRY_RULE_IN("doca_comm_channel_ep_recvfrom", DOCA_ERROR_CONNECTION_RESET,
				     "the server's connection ended (server gone)");
	if (peer->state == CC_PEER_ABORTED)
		return FERRY_RULE_IN("doca_comm_channel_ep_recvfrom", DOCA_ERROR_NOT_CONNECTED,
				     "the connection was refused");
	return DOCA_ERROR_AGAIN;
}

static void cc_rx_pop(struct doca_comm_channel_ep_t *ep)
{
	struct cc_msg *m = ep->rx_head;

	ep->rx_head = m->next;
	if (ep->rx_head == NULL)
		ep->rx_tail = NULL;
	ep->rx_count--;
	m->peer->queued--;
	free(m);
}

static doca_error_t cc_recv_once(struct doca_comm_channel_ep_t *ep, void *msg, size_t *len,
				 struct doca_comm_channel_addr_t **peer)
{
	struct cc_msg *m;

	if (ep->rx_head == NULL)
		cc_drive(ep);
	m = ep->rx_head;
	if (m == NULL)
		return cc_rx_empty(ep);
	if (m->end) {
		*peer = m->peer;
		cc_rx_pop(ep);
		return DOCA_ERROR_CONNECTION_RESET;
	}
	if (m->len > *len) {
		size_t room = *len;

		*len = m->len;
		return FERRY_RULE_IN("doca_comm_channel_ep_recvfrom", DOCA_ERROR_INVALID_VALUE,
				     "the next message has %u bytes, the buffer %zu; it stays queued", m->len, room);
	}
	if (m->len > 0)
		memcpy(msg, m->data, m->len);
	*len = m->len;
	*peer = m->peer;
	m->peer->announced = true;
	m->peer->recv_msgs++;
	m->peer->recv_bytes += m->len;
	cc_rx_pop(ep);
	return DOCA_SUCCESS;
}

doca_error_t cc_recvfrom(struct doca_comm_channel_ep_t *ep, void *msg, size_t *len, int flags,
			 struct doca_comm_channel_addr_t **peer)
{
	doca_error_t err;

	if (len == NULL || peer == NULL || (msg == NULL && *len > 0))
		return FERRY_RULE_IN("doca_comm_channel_ep_recvfrom", DOCA_ERROR_INVALID_VALUE,
				     "msg, len and peer_addr must not be NULL");
	if (flags != 0)
		return FERRY_RULE_IN("doca_comm_channel_ep_recvfrom", DOCA_ERROR_INVALID_VALUE,
				     "flags %#x: only DOCA_CC_MSG_FLAG_NONE exists", (unsigned)flags);
	if (ep->role == CC_ROLE_NONE)
		return FERRY_RULE_IN("doca_comm_channel_ep_recvfrom", DOCA_ERROR_NOT_CONNECTED,
				     "endpoint %p neither listens nor connected", (void *)ep);
	for (;;) {
		err = cc_recv_once(ep, msg, len, peer);
		if (err != DOCA_ERROR_AGAIN || !ep->blocking || ep->role == CC_ROLE_NONE)
			return err;
		cc_wait(ep, CC_CHAN_RECV, 100);
	}
}

/* ---- event channels ---- */

bool cc_chan_ready(const struct doca_comm_channel_ep_t *ep, enum cc_chan chan)
{
	const struct doca_comm_channel_addr_t *client_peer = ep->role == CC_ROLE_CLIENT ? ep->peers : NULL;
	bool client_down = client_peer != NULL && client_peer->state != CC_PEER_UP &&
			   client_peer->state != CC_PEER_CONNECTING;

	switch (chan) {
	case CC_CHAN_SEND:
		return ep->send_in_flight < ep->send_queue_size || client_down;
	case CC_CHAN_RECV:
		return ep->rx_head != NULL || client_down;
	case CC_CHAN_SERVICE:
	default:
		return false; /* woken by connection events only */
	}
}

void cc_chan_arm(struct doca_comm_channel_ep_t *ep, enum cc_chan chan)
{
	uint64_t count;

	cc_drive(ep);
	while (read(ep->chan_ev[chan], &count, sizeof(count)) > 0)
		;
	ep->chan_armed[chan] = true;
	if (cc_chan_ready(ep, chan)) {
		cc_chan_wake(ep, chan);
		return;
	}
	/* Completions pending in the engine make its handle, and so the channel, readable. */
	(void)doca_pe_clear_notification(ep->pe, 0);
	(void)doca_pe_request_notification(ep->pe);
}

void cc_wait(struct doca_comm_channel_ep_t *ep, enum cc_chan chan, int ms)
{
	struct pollfd pfd = {.fd = ep->chan_fd[chan], .events = POLLIN};

	cc_chan_arm(ep, chan);
	cc_ep_unlock(ep);
	if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
		FERRY_WARN("comm channel endpoint %p: waiting: %s", (void *)ep, strerror(errno));
	pthread_mutex_lock(&ep->lock);
}
