/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc_api.c - the Comm Channel calls on a connection: sendto, recvfrom,
 * update_info, peer data and counters, device limits, event channels, the
 * service state; and DOCA 1.3/1.4's attribute-struct ep_create.
 */
#include <stdlib.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_pe.h>

#include "common/ferry_log.h"

#include "legacy/cc_priv.h"
#include "legacy/legacy_api.h"

FERRY_LOG_MODULE("comm_channel");

#define CC_NAME_LEN_FALLBACK 120u /* Comch's name cap, should no device answer */

/* ---- 1.3/1.4 ---- */

doca_error_t ferry_v14_comm_channel_ep_create(const struct ferry_cc_init_attr *attr, struct doca_comm_channel_ep_t **ep)
{
	static const char call[] = "doca_comm_channel_ep_create";
	doca_error_t err;

	if (attr == NULL || ep == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "attr and ep must not be NULL");
	if ((attr->flags & ~CC_V14_NONBLOCK) != 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "flags %#x: only DOCA_CC_INIT_FLAG_NONBLOCK exists", attr->flags);
	if (attr->msgsize == 0 || attr->msgsize > 4080)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "msgsize %u is out of range 1..4080",
				     attr->msgsize);
	if (attr->maxmsgs == 0 || attr->maxmsgs > CC_MAX_QUEUE)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "maxmsgs %u is out of range 1..%u", attr->maxmsgs,
				     CC_MAX_QUEUE);
	err = cc_ep_new(14, ep);
	if (err != DOCA_SUCCESS)
		return err;
	(*ep)->blocking = (attr->flags & CC_V14_NONBLOCK) == 0;
	(*ep)->cookie = attr->cookie;
	(*ep)->max_msg_size = (uint16_t)attr->msgsize;
	(*ep)->send_queue_size = (uint16_t)attr->maxmsgs;
	(*ep)->recv_queue_size = (uint16_t)attr->maxmsgs;
	return DOCA_SUCCESS;
}

/* ---- data ---- */

doca_error_t doca_comm_channel_ep_sendto(struct doca_comm_channel_ep_t *local_ep, const void *msg, size_t len,
					 int flags, struct doca_comm_channel_addr_t *peer_addr)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_lock(local_ep, __func__);
	doca_error_t err;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = cc_sendto(ep, msg, len, flags, peer_addr);
	cc_ep_unlock(ep);
	return err;
}

doca_error_t doca_comm_channel_ep_recvfrom(struct doca_comm_channel_ep_t *local_ep, void *msg, size_t *len, int flags,
					   struct doca_comm_channel_addr_t **peer_addr)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_lock(local_ep, __func__);
	doca_error_t err;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = cc_recvfrom(ep, msg, len, flags, peer_addr);
	cc_ep_unlock(ep);
	return err;
}

/* ---- peers ---- */

/* The endpoint of @p peer, locked, or NULL with a line. */
static struct doca_comm_channel_ep_t *cc_peer_lock(const struct doca_comm_channel_addr_t *peer, const char *call)
{
	if (peer == NULL || peer->magic != CC_PEER_MAGIC) {
		(void)FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%p is not a Comm Channel peer handle",
				    (const void *)peer);
		return NULL;
	}
	return cc_ep_lock(peer->ep, call);
}

doca_error_t doca_comm_channel_peer_addr_update_info(struct doca_comm_channel_addr_t *peer_addr)
{
	struct doca_comm_channel_ep_t *ep = cc_peer_lock(peer_addr, __func__);
	doca_error_t err;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	cc_drive(ep);
	switch (peer_addr->state) {
	case CC_PEER_UP:
		err = DOCA_SUCCESS;
		break;
	case CC_PEER_CONNECTING:
		err = DOCA_ERROR_CONNECTION_INPROGRESS;
		break;
	case CC_PEER_ABORTED:
		err = DOCA_ERROR_CONNECTION_ABORTED;
		break;
	case CC_PEER_GONE:
	default:
		err = DOCA_ERROR_CONNECTION_RESET;
		break;
	}
	cc_ep_unlock(ep);
	return err;
}

doca_error_t doca_comm_channel_peer_addr_set_user_data(struct doca_comm_channel_addr_t *peer_addr,
						       uint64_t user_context)
{
	struct doca_comm_channel_ep_t *ep = cc_peer_lock(peer_addr, __func__);

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	peer_addr->user_data = user_context;
	cc_ep_unlock(ep);
	return DOCA_SUCCESS;
}

enum cc_counter {
	CC_USER_DATA,
	CC_SEND_MSGS,
	CC_SEND_BYTES,
	CC_RECV_MSGS,
	CC_RECV_BYTES,
	CC_IN_FLIGHT,
};

static doca_error_t cc_peer_read(const struct doca_comm_channel_addr_t *peer, enum cc_counter which, uint64_t *out,
				 const char *call)
{
	const uint64_t *fields[] = {&peer->user_data, &peer->send_msgs,  &peer->send_bytes,
				    &peer->recv_msgs, &peer->recv_bytes, &peer->in_flight};
	struct doca_comm_channel_ep_t *ep;

	if (out == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "output is NULL");
	ep = cc_peer_lock(peer, call);
	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*out = *fields[which];
	cc_ep_unlock(ep);
	return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_peer_addr_get_user_data(struct doca_comm_channel_addr_t *peer_addr, uint64_t *user_data)
{
	return cc_peer_read(peer_addr, CC_USER_DATA, user_data, __func__);
}

doca_error_t doca_comm_channel_peer_addr_get_send_messages(const struct doca_comm_channel_addr_t *peer_addr,
							   uint64_t *send_messages)
{
	return cc_peer_read(peer_addr, CC_SEND_MSGS, send_messages, __func__);
}

doca_error_t doca_comm_channel_peer_addr_get_send_bytes(const struct doca_comm_channel_addr_t *peer_addr,
							uint64_t *send_bytes)
{
	return cc_peer_read(peer_addr, CC_SEND_BYTES, send_bytes, __func__);
}

doca_error_t doca_comm_channel_peer_addr_get_recv_messages(const struct doca_comm_channel_addr_t *peer_addr,
							   uint64_t *recv_messages)
{
	return cc_peer_read(peer_addr, CC_RECV_MSGS, recv_messages, __func__);
}

doca_error_t doca_comm_channel_peer_addr_get_recv_bytes(const struct doca_comm_channel_addr_t *peer_addr,
							uint64_t *recv_bytes)
{
	return cc_peer_read(peer_addr, CC_RECV_BYTES, recv_bytes, __func__);
}

doca_error_t doca_comm_channel_peer_addr_get_send_in_flight_messages(const struct doca_comm_channel_addr_t *peer_addr,
								     uint64_t *send_in_flight_messages)
{
	return cc_peer_read(peer_addr, CC_IN_FLIGHT, send_in_flight_messages, __func__);
}

/* ---- device limits (Comch's, within what the uint16_t setters can say) ---- */

doca_error_t doca_comm_channel_get_max_service_name_len(uint32_t *max_service_name_len)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;

	FERRY_ARG_NOT_NULL(max_service_name_len);
	*max_service_name_len = CC_NAME_LEN_FALLBACK;
	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return DOCA_SUCCESS;
	if (n > 0)
		(void)doca_comch_cap_get_max_name_len(list[0], max_service_name_len);
	(void)doca_devinfo_destroy_list(list);
	return DOCA_SUCCESS;
}

static doca_error_t cc_cap_queue(doca_error_t err, uint32_t *value)
{
	if (err == DOCA_SUCCESS && *value > CC_MAX_QUEUE)
		*value = CC_MAX_QUEUE;
	return err;
}

doca_error_t doca_comm_channel_get_max_message_size(struct doca_devinfo *devinfo, uint32_t *max_message_size)
{
	return doca_comch_cap_get_max_msg_size(devinfo, max_message_size);
}

doca_error_t doca_comm_channel_get_max_send_queue_size(struct doca_devinfo *devinfo, uint32_t *max_send_queue_size)
{
	return cc_cap_queue(doca_comch_cap_get_max_send_tasks(devinfo, max_send_queue_size), max_send_queue_size);
}

doca_error_t doca_comm_channel_get_max_recv_queue_size(struct doca_devinfo *devinfo, uint32_t *max_recv_queue_size)
{
	return cc_cap_queue(doca_comch_cap_get_max_recv_queue_size(devinfo, max_recv_queue_size), max_recv_queue_size);
}

doca_error_t doca_comm_channel_get_service_max_num_connections(struct doca_devinfo *devinfo,
							       uint32_t *max_num_connections)
{
	return doca_comch_cap_get_max_clients(devinfo, max_num_connections);
}

/* ---- event channels ---- */

static struct doca_comm_channel_ep_t *cc_ep_lock_open(struct doca_comm_channel_ep_t *local_ep, bool server_only,
						      const char *call, doca_error_t *err)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_lock(local_ep, call);

	*err = DOCA_ERROR_INVALID_VALUE;
	if (ep == NULL)
		return NULL;
	if (ep->pe == NULL || (server_only && ep->role != CC_ROLE_SERVER)) {
		*err = FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "endpoint %p has not %s yet", (void *)ep,
				     server_only ? "listened" : "listened or connected");
		cc_ep_unlock(ep);
		return NULL;
	}
	*err = DOCA_SUCCESS;
	return ep;
}

doca_error_t doca_comm_channel_ep_get_event_channel(struct doca_comm_channel_ep_t *local_ep,
						    doca_event_handle_t *send_event_channel,
						    doca_event_handle_t *recv_event_channel)
{
	doca_error_t err;
	struct doca_comm_channel_ep_t *ep;

	if (send_event_channel == NULL && recv_event_channel == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "both outputs are NULL");
	ep = cc_ep_lock_open(local_ep, false, __func__, &err);
	if (ep == NULL)
		return err;
	if (send_event_channel != NULL)
		*send_event_channel = ep->chan_fd[CC_CHAN_SEND];
	if (recv_event_channel != NULL)
		*recv_event_channel = ep->chan_fd[CC_CHAN_RECV];
	cc_ep_unlock(ep);
	return DOCA_SUCCESS;
}

static doca_error_t cc_arm(struct doca_comm_channel_ep_t *local_ep, enum cc_chan chan, const char *call)
{
	doca_error_t err;
	struct doca_comm_channel_ep_t *ep = cc_ep_lock_open(local_ep, chan == CC_CHAN_SERVICE, call, &err);

	if (ep == NULL)
		return err;
	cc_chan_arm(ep, chan);
	cc_ep_unlock(ep);
	return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_event_handle_arm_send(struct doca_comm_channel_ep_t *local_ep)
{
	return cc_arm(local_ep, CC_CHAN_SEND, __func__);
}

doca_error_t doca_comm_channel_ep_event_handle_arm_recv(struct doca_comm_channel_ep_t *local_ep)
{
	return cc_arm(local_ep, CC_CHAN_RECV, __func__);
}

/* ---- the service (a server's clients) ---- */

doca_error_t doca_comm_channel_ep_get_service_event_channel(struct doca_comm_channel_ep_t *local_ep,
							    doca_event_handle_t *service_event_channel)
{
	doca_error_t err;
	struct doca_comm_channel_ep_t *ep;

	FERRY_ARG_NOT_NULL(service_event_channel);
	ep = cc_ep_lock_open(local_ep, true, __func__, &err);
	if (ep == NULL)
		return err;
	*service_event_channel = ep->chan_fd[CC_CHAN_SERVICE];
	cc_ep_unlock(ep);
	return DOCA_SUCCESS;
}

static doca_error_t cc_snapshot(struct doca_comm_channel_ep_t *ep)
{
	struct doca_comm_channel_addr_t **array;
	uint32_t n = 0;

	for (struct doca_comm_channel_addr_t *p = ep->peers; p != NULL; p = p->next)
		n += p->state == CC_PEER_UP;
	array = realloc(ep->peer_array, (n > 0 ? n : 1) * sizeof(*array));
	if (array == NULL)
		return FERRY_RULE_IN("doca_comm_channel_ep_update_service_state_info", DOCA_ERROR_NO_MEMORY,
				     "no memory for a list of %u peers", n);
	ep->peer_array = array;
	ep->peer_array_len = 0;
	ep->pending_connections = 0;
	for (struct doca_comm_channel_addr_t *p = ep->peers; p != NULL; p = p->next) {
		if (p->state != CC_PEER_UP)
			continue;
		array[ep->peer_array_len++] = p;
		ep->pending_connections += !p->announced;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_update_service_state_info(struct doca_comm_channel_ep_t *local_ep)
{
	doca_error_t err;
	struct doca_comm_channel_ep_t *ep = cc_ep_lock_open(local_ep, true, __func__, &err);

	if (ep == NULL)
		return err;
	cc_chan_arm(ep, CC_CHAN_SERVICE);
	err = cc_snapshot(ep);
	cc_ep_unlock(ep);
	return err;
}

doca_error_t doca_comm_channel_ep_get_peer_addr_list(const struct doca_comm_channel_ep_t *local_ep,
						     struct doca_comm_channel_addr_t ***peer_addr_array,
						     uint32_t *peer_addr_array_len)
{
	struct doca_comm_channel_ep_t *ep;

	if (peer_addr_array == NULL || peer_addr_array_len == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "outputs must not be NULL");
	/* The lock is the endpoint's own state, not what const promises the caller. */
	ep = cc_ep_lock((struct doca_comm_channel_ep_t *)(uintptr_t)local_ep, __func__);
	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*peer_addr_array = ep->peer_array;
	*peer_addr_array_len = ep->peer_array_len;
	cc_ep_unlock(ep);
	return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_get_pending_connections(const struct doca_comm_channel_ep_t *local_ep,
							  uint32_t *pending_connections)
{
	struct doca_comm_channel_ep_t *ep;

	FERRY_ARG_NOT_NULL(pending_connections);
	ep = cc_ep_lock((struct doca_comm_channel_ep_t *)(uintptr_t)local_ep, __func__);
	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*pending_connections = ep->pending_connections;
	cc_ep_unlock(ep);
	return DOCA_SUCCESS;
}
