/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comm_channel.c - Comm Channel endpoints (DOCA 1.x and 2.x): creation, the
 * device and size settings, listen, connect, disconnect, destroy.
 *
 * Call order (2.2): ep_create -> set_device (+ set_device_rep on a server) ->
 * sizes -> listen(name) or connect(name, &peer) -> [client]
 * peer_addr_update_info until DOCA_SUCCESS -> sendto/recvfrom -> disconnect ->
 * destroy. 1.3/1.4: ep_create(&attr, &ep) with the sizes and flags in attr,
 * then listen or connect straight away: the devices are Ferry's default
 * topology's (a server on the DPU's 03:00.0 for host function b1:00.0, a client
 * on b1:00.0), and connect returns once connected unless the endpoint is
 * non-blocking.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_dev.h>

#include "common/ferry_log.h"

#include "legacy/cc_priv.h"
#include "legacy/legacy_api.h"

FERRY_LOG_MODULE("comm_channel");

struct doca_comm_channel_ep_t *cc_ep_lock(struct doca_comm_channel_ep_t *ep, const char *call)
{
	if (ep == NULL || ep->magic != CC_EP_MAGIC) {
		(void)FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%p is not a Comm Channel endpoint", (void *)ep);
		return NULL;
	}
	pthread_mutex_lock(&ep->lock);
	return ep;
}

void cc_ep_unlock(struct doca_comm_channel_ep_t *ep)
{
	pthread_mutex_unlock(&ep->lock);
}

doca_error_t cc_ep_new(int generation, struct doca_comm_channel_ep_t **out)
{
	struct doca_comm_channel_ep_t *ep = calloc(1, sizeof(*ep));

	if (ep == NULL)
		return FERRY_RULE_IN("doca_comm_channel_ep_create", DOCA_ERROR_NO_MEMORY, "no memory for an endpoint");
	ep->magic = CC_EP_MAGIC;
	pthread_mutex_init(&ep->lock, NULL);
	ep->generation = generation;
	ep->max_msg_size = 4080; /* every Comch device's message cap */
	ep->send_queue_size = CC_DEFAULT_QUEUE;
	ep->recv_queue_size = CC_DEFAULT_QUEUE;
	for (int c = 0; c < 3; c++)
		ep->chan_fd[c] = ep->chan_ev[c] = -1;
	*out = ep;
	return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_create(struct doca_comm_channel_ep_t **ep)
{
	FERRY_ARG_NOT_NULL(ep);
	return cc_ep_new(22, ep);
}

/* ---- 1.x: the default topology's devices ---- */

static struct doca_dev *cc_open_dev(const char *pci, bool server)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	/* The default device when the topology has it, else the first that can play the part. */
	for (int pass = 0; pass < 2 && dev == NULL; pass++) {
		for (uint32_t i = 0; i < n && dev == NULL; i++) {
			uint8_t eq = 0;
			doca_error_t fits = server ? doca_comch_cap_server_is_supported(list[i])
						   : doca_comch_cap_client_is_supported(list[i]);

			if (fits != DOCA_SUCCESS)
				continue;
			if (pass == 0 && (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) != DOCA_SUCCESS || !eq))
				continue;
			if (doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
				dev = NULL;
		}
	}
	(void)doca_devinfo_destroy_list(list);
	return dev;
}

static struct doca_dev_rep *cc_open_rep(struct doca_dev *dev, const char *pci)
{
	struct doca_devinfo_rep **list = NULL;
	struct doca_dev_rep *rep = NULL;
	uint32_t n = 0;

	if (doca_devinfo_rep_create_list(dev, DOCA_DEVINFO_REP_FILTER_NET, &list, &n) != DOCA_SUCCESS)
		return NULL;
	for (int pass = 0; pass < 2 && rep == NULL; pass++) {
		for (uint32_t i = 0; i < n && rep == NULL; i++) {
			uint8_t eq = 0;

			if (pass == 0 && (doca_devinfo_rep_is_equal_pci_addr(list[i], pci, &eq) != DOCA_SUCCESS || !eq))
				continue;
			if (doca_dev_rep_open(list[i], &rep) != DOCA_SUCCESS)
				rep = NULL;
		}
	}
	(void)doca_devinfo_rep_destroy_list(list);
	return rep;
}

static doca_error_t cc_v14_devices(struct doca_comm_channel_ep_t *ep, bool server, const char *call)
{
	if (ep->dev != NULL)
		return DOCA_SUCCESS;
	ep->dev = cc_open_dev(server ? CC_V14_SERVER_PCI : CC_V14_CLIENT_PCI, server);
	if (ep->dev != NULL && server) {
		ep->rep = cc_open_rep(ep->dev, CC_V14_SERVER_REP);
		if (ep->rep == NULL) {
			(void)doca_dev_close(ep->dev);
			ep->dev = NULL;
		}
	}
	if (ep->dev == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND, "no %s device in this domain's topology",
				     server ? "DPU-side device with a representor for a server" : "host-side client");
	ep->own_dev = true;
	return DOCA_SUCCESS;
}

/* ---- listen / connect ---- */

static doca_error_t cc_check_open(const struct doca_comm_channel_ep_t *ep, const char *call, const char *name)
{
	if (ep->role != CC_ROLE_NONE)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED, "endpoint %p already %s", (const void *)ep,
				     ep->role == CC_ROLE_SERVER ? "listens" : "connected");
	if (name == NULL || name[0] == '\0')
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "the service name is NULL or empty");
	return DOCA_SUCCESS;
}

doca_error_t cc_ep_listen(struct doca_comm_channel_ep_t *ep, const char *name)
{
	static const char call[] = "doca_comm_channel_ep_listen";
	doca_error_t err = cc_check_open(ep, call, name);

	if (err == DOCA_SUCCESS && ep->generation == 14)
		err = cc_v14_devices(ep, true, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (ep->dev == NULL || ep->rep == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "a server needs a device and a representor (doca_comm_channel_ep_set_device, "
				     "doca_comm_channel_ep_set_device_rep)");
	err = cc_engine_open(ep, call);
	if (err == DOCA_SUCCESS)
		err = cc_server_open(ep, name);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, err, "cannot serve '%s'", name);
	ep->role = CC_ROLE_SERVER;
	return DOCA_SUCCESS;
}

/*
 * 1.x blocking connect: wait for the outcome (Comch gives up after its connect
 * timeout). A connecting client always has work pending (it retries every few
 * ms), so this sleeps a little between rounds instead of waiting on the engine.
 */
static doca_error_t cc_connect_wait(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer)
{
	for (cc_drive(ep); peer->state == CC_PEER_CONNECTING; cc_drive(ep)) {
		cc_ep_unlock(ep);
		usleep(1000);
		pthread_mutex_lock(&ep->lock);
	}
	return peer->state == CC_PEER_UP ? DOCA_SUCCESS : DOCA_ERROR_CONNECTION_ABORTED;
}

static void cc_v14_devices_close(struct doca_comm_channel_ep_t *ep)
{
	if (!ep->own_dev)
		return;
	if (ep->rep != NULL)
		(void)doca_dev_rep_close(ep->rep);
	if (ep->dev != NULL)
		(void)doca_dev_close(ep->dev);
	ep->rep = NULL;
	ep->dev = NULL;
	ep->own_dev = false;
}

static void cc_client_close(struct doca_comm_channel_ep_t *ep)
{
	if (ep->peers != NULL)
		cc_flush_sends(ep, ep->peers);
	cc_comch_close(ep);
	cc_peers_free_all(ep);
	cc_v14_devices_close(ep); /* a 1.x endpoint may listen next: it picks again */
	ep->role = CC_ROLE_NONE;
}

doca_error_t cc_ep_connect(struct doca_comm_channel_ep_t *ep, const char *name, struct doca_comm_channel_addr_t **out)
{
	static const char call[] = "doca_comm_channel_ep_connect";
	struct doca_comm_channel_addr_t *peer;
	doca_error_t err = cc_check_open(ep, call, name);

	if (err == DOCA_SUCCESS && out == NULL)
		err = FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "peer_addr is NULL");
	if (err == DOCA_SUCCESS && ep->generation == 14)
		err = cc_v14_devices(ep, false, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (ep->dev == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "a client needs a device (doca_comm_channel_ep_set_device)");
	err = cc_engine_open(ep, call);
	if (err != DOCA_SUCCESS)
		return err;
	peer = cc_peer_new(ep);
	if (peer == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "no memory for the peer handle");
	err = cc_client_open(ep, name, peer);
	if (err != DOCA_SUCCESS) {
		cc_peers_free_all(ep);
		return FERRY_RULE_IN(call, err, "cannot connect to '%s'", name);
	}
	ep->role = CC_ROLE_CLIENT;
	if (ep->blocking) {
		err = cc_connect_wait(ep, peer);
		if (err != DOCA_SUCCESS) {
			cc_client_close(ep);
			return FERRY_RULE_IN(call, err, "no server '%s' accepted the connection", name);
		}
	}
	*out = peer;
	return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_listen(struct doca_comm_channel_ep_t *local_ep, const char *name)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_lock(local_ep, __func__);
	doca_error_t err;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = cc_ep_listen(ep, name);
	cc_ep_unlock(ep);
	return err;
}

doca_error_t doca_comm_channel_ep_connect(struct doca_comm_channel_ep_t *local_ep, const char *name,
					  struct doca_comm_channel_addr_t **peer_addr)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_lock(local_ep, __func__);
	doca_error_t err;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = cc_ep_connect(ep, name, peer_addr);
	cc_ep_unlock(ep);
	return err;
}

/* ---- disconnect / destroy ---- */

doca_error_t doca_comm_channel_ep_disconnect(struct doca_comm_channel_ep_t *local_ep,
					     struct doca_comm_channel_addr_t *peer_addr)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_lock(local_ep, __func__);
	doca_error_t err = DOCA_SUCCESS;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (peer_addr == NULL || !cc_peer_known(ep, peer_addr))
		err = FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "peer %p is not a connection of endpoint %p",
				 (void *)peer_addr, (void *)ep);
	else if (ep->role == CC_ROLE_CLIENT)
		cc_client_close(ep);
	else {
		if (peer_addr->state == CC_PEER_UP)
			cc_flush_sends(ep, peer_addr);
		if (peer_addr->conn != NULL) {
			/* The handle goes below: a callback that still comes for this connection finds none. */
			(void)doca_comch_connection_set_user_data(peer_addr->conn, (union doca_data){.ptr = NULL});
			(void)doca_comch_server_disconnect(ep->server, peer_addr->conn);
		}
		peer_addr->state = CC_PEER_GONE;
		cc_peer_forget(ep, peer_addr);
	}
	cc_ep_unlock(ep);
	return err;
}

doca_error_t doca_comm_channel_ep_destroy(struct doca_comm_channel_ep_t *local_ep)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_lock(local_ep, __func__);

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (ep->pe != NULL)
		cc_flush_sends(ep, NULL);
	cc_comch_close(ep);
	cc_peers_free_all(ep);
	cc_engine_close(ep);
	cc_v14_devices_close(ep);
	ep->magic = 0;
	cc_ep_unlock(ep);
	pthread_mutex_destroy(&ep->lock);
	free(ep);
	return DOCA_SUCCESS;
}

/* ---- devices and sizes ---- */

static doca_error_t cc_check_idle(const struct doca_comm_channel_ep_t *ep, const char *call)
{
	if (ep->role != CC_ROLE_NONE || ep->pe != NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "endpoint %p: settings are fixed once it listened or connected", (const void *)ep);
	return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_set_device(struct doca_comm_channel_ep_t *local_ep, struct doca_dev *device)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_lock(local_ep, __func__);
	doca_error_t err;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = cc_check_idle(ep, __func__);
	if (err == DOCA_SUCCESS && device == NULL)
		err = FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "device is NULL");
	if (err == DOCA_SUCCESS && ep->own_dev)
		err = FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "a 1.x endpoint picks its own device");
	if (err == DOCA_SUCCESS)
		ep->dev = device;
	cc_ep_unlock(ep);
	return err;
}

doca_error_t doca_comm_channel_ep_set_device_rep(struct doca_comm_channel_ep_t *local_ep,
						 struct doca_dev_rep *device_rep)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_lock(local_ep, __func__);
	doca_error_t err;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = cc_check_idle(ep, __func__);
	if (err == DOCA_SUCCESS && device_rep == NULL)
		err = FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "device_rep is NULL");
	if (err == DOCA_SUCCESS && ep->own_dev)
		err = FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "a 1.x endpoint picks its own representor");
	if (err == DOCA_SUCCESS)
		ep->rep = device_rep;
	cc_ep_unlock(ep);
	return err;
}

enum cc_size {
	CC_SIZE_MSG,
	CC_SIZE_SEND_QUEUE,
	CC_SIZE_RECV_QUEUE,
};

static uint16_t *cc_size_field(struct doca_comm_channel_ep_t *ep, enum cc_size which)
{
	if (which == CC_SIZE_MSG)
		return &ep->max_msg_size;
	return which == CC_SIZE_SEND_QUEUE ? &ep->send_queue_size : &ep->recv_queue_size;
}

static doca_error_t cc_set_size(struct doca_comm_channel_ep_t *local_ep, enum cc_size which, uint16_t value,
				const char *call)
{
	uint32_t max = which == CC_SIZE_MSG ? 4080u : CC_MAX_QUEUE;
	struct doca_comm_channel_ep_t *ep = cc_ep_lock(local_ep, call);
	doca_error_t err;

	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	err = cc_check_idle(ep, call);
	if (err == DOCA_SUCCESS && (value == 0 || value > max))
		err = FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%u is out of range 1..%u", value, max);
	if (err == DOCA_SUCCESS)
		*cc_size_field(ep, which) = value;
	cc_ep_unlock(ep);
	return err;
}

static doca_error_t cc_get_size(struct doca_comm_channel_ep_t *local_ep, enum cc_size which, uint16_t *value,
				const char *call)
{
	struct doca_comm_channel_ep_t *ep;

	if (value == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "output is NULL");
	ep = cc_ep_lock(local_ep, call);
	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*value = *cc_size_field(ep, which);
	cc_ep_unlock(ep);
	return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_set_max_msg_size(struct doca_comm_channel_ep_t *ep, uint16_t max_msg_size)
{
	return cc_set_size(ep, CC_SIZE_MSG, max_msg_size, __func__);
}

doca_error_t doca_comm_channel_ep_set_send_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t send_queue_size)
{
	return cc_set_size(ep, CC_SIZE_SEND_QUEUE, send_queue_size, __func__);
}

doca_error_t doca_comm_channel_ep_set_recv_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t recv_queue_size)
{
	return cc_set_size(ep, CC_SIZE_RECV_QUEUE, recv_queue_size, __func__);
}

doca_error_t doca_comm_channel_ep_get_max_msg_size(struct doca_comm_channel_ep_t *ep, uint16_t *max_msg_size)
{
	return cc_get_size(ep, CC_SIZE_MSG, max_msg_size, __func__);
}

doca_error_t doca_comm_channel_ep_get_send_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t *send_queue_size)
{
	return cc_get_size(ep, CC_SIZE_SEND_QUEUE, send_queue_size, __func__);
}

doca_error_t doca_comm_channel_ep_get_recv_queue_size(struct doca_comm_channel_ep_t *ep, uint16_t *recv_queue_size)
{
	return cc_get_size(ep, CC_SIZE_RECV_QUEUE, recv_queue_size, __func__);
}

doca_error_t doca_comm_channel_ep_get_device(struct doca_comm_channel_ep_t *local_ep, struct doca_dev **device)
{
	struct doca_comm_channel_ep_t *ep;

	FERRY_ARG_NOT_NULL(device);
	ep = cc_ep_lock(local_ep, __func__);
	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*device = ep->dev;
	cc_ep_unlock(ep);
	return DOCA_SUCCESS;
}

doca_error_t doca_comm_channel_ep_get_device_rep(struct doca_comm_channel_ep_t *local_ep,
						 struct doca_dev_rep **device_rep)
{
	struct doca_comm_channel_ep_t *ep;

	FERRY_ARG_NOT_NULL(device_rep);
	ep = cc_ep_lock(local_ep, __func__);
	if (ep == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*device_rep = ep->rep;
	cc_ep_unlock(ep);
	return DOCA_SUCCESS;
}
