/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc_peer.c - the Comm Channel's peer handles and receive queue.
 *
 * A peer handle lives from its connection (a server's new client, a client's
 * connect) until the program disconnects it or destroys the endpoint, as DOCA
 * documents: ended peers stay (calls on them answer CONNECTION_RESET) until the
 * program lets go, so a handle it holds is never freed behind its back (a
 * server that never disconnects its ended clients keeps one small handle per
 * client it ever had). sendto and disconnect compare a handle with the
 * endpoint's list before they follow it.
 */
#include <stdlib.h>
#include <string.h>

#include "common/ferry_log.h"

#include "legacy/cc_priv.h"

FERRY_LOG_MODULE("comm_channel");

struct doca_comm_channel_addr_t *cc_peer_new(struct doca_comm_channel_ep_t *ep)
{
	struct doca_comm_channel_addr_t *peer = calloc(1, sizeof(*peer));
	struct doca_comm_channel_addr_t **tail = &ep->peers;

	if (peer == NULL)
		return NULL;
	peer->magic = CC_PEER_MAGIC;
	peer->ep = ep;
	while (*tail != NULL)
		tail = &(*tail)->next;
	*tail = peer;
	return peer;
}

bool cc_peer_known(const struct doca_comm_channel_ep_t *ep, const struct doca_comm_channel_addr_t *peer)
{
	for (const struct doca_comm_channel_addr_t *p = ep->peers; p != NULL; p = p->next)
		if (p == peer)
			return true;
	return false;
}

static void cc_unlink(struct doca_comm_channel_addr_t **list, struct doca_comm_channel_addr_t *peer)
{
	for (struct doca_comm_channel_addr_t **p = list; *p != NULL; p = &(*p)->next) {
		if (*p == peer) {
			*p = peer->next;
			peer->next = NULL;
			return;
		}
	}
}

static void cc_peer_free(struct doca_comm_channel_addr_t *peer)
{
	peer->magic = 0;
	free(peer);
}

/* Drop every queued node of @p peer. */
static void cc_rx_drop_peer(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer)
{
	struct cc_msg **p = &ep->rx_head;

	ep->rx_tail = NULL;
	while (*p != NULL) {
		struct cc_msg *m = *p;

		if (m->peer != peer) {
			ep->rx_tail = m;
			p = &m->next;
			continue;
		}
		*p = m->next;
		ep->rx_count--;
		free(m);
	}
	peer->queued = 0;
}

/* The snapshot of update_service_state_info must not name a freed handle. */
static void cc_snapshot_drop(struct doca_comm_channel_ep_t *ep, const struct doca_comm_channel_addr_t *peer)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < ep->peer_array_len; i++)
		if (ep->peer_array[i] != peer)
			ep->peer_array[kept++] = ep->peer_array[i];
	ep->peer_array_len = kept;
}

void cc_peer_forget(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer)
{
	cc_unlink(&ep->peers, peer);
	cc_snapshot_drop(ep, peer);
	cc_rx_drop_peer(ep, peer);
	peer->conn = NULL;
	if (peer->in_flight == 0) {
		cc_peer_free(peer);
		return;
	}
	peer->detached = true;
	peer->next = ep->detached;
	ep->detached = peer;
}

void cc_peer_send_done(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer)
{
	ep->send_in_flight--;
	cc_chan_wake(ep, CC_CHAN_SEND);
	if (peer == NULL)
		return;
	peer->in_flight--;
	if (peer->detached && peer->in_flight == 0) {
		cc_unlink(&ep->detached, peer);
		cc_peer_free(peer);
	}
}

void cc_peers_free_all(struct doca_comm_channel_ep_t *ep)
{
	struct doca_comm_channel_addr_t *lists[2] = {ep->peers, ep->detached};

	for (int i = 0; i < 2; i++) {
		while (lists[i] != NULL) {
			struct doca_comm_channel_addr_t *next = lists[i]->next;

			cc_peer_free(lists[i]);
			lists[i] = next;
		}
	}
	ep->peers = ep->detached = NULL;
	while (ep->rx_head != NULL) {
		struct cc_msg *next = ep->rx_head->next;

		free(ep->rx_head);
		ep->rx_head = next;
	}
	ep->rx_tail = NULL;
	ep->rx_count = 0;
	free(ep->peer_array);
	ep->peer_array = NULL;
	ep->peer_array_len = 0;
	ep->pending_connections = 0;
}

void cc_rx_push(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer, const uint8_t *data,
		uint32_t len, bool end)
{
	struct cc_msg *m = malloc(sizeof(*m) + len);

	if (m == NULL) {
		FERRY_ERR("comm channel endpoint %p: no memory for a message of %u bytes; it is lost", (void *)ep, len);
		return;
	}
	m->next = NULL;
	m->peer = peer;
	m->len = len;
	m->end = end;
	if (len > 0)
		memcpy(m->data, data, len);
	if (ep->rx_tail != NULL)
		ep->rx_tail->next = m;
	else
		ep->rx_head = m;
	ep->rx_tail = m;
	ep->rx_count++;
	peer->queued++;
	cc_chan_wake(ep, CC_CHAN_RECV);
}
