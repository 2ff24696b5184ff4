/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fastpath.c - the frames the peer sends about its consumers (CONSUMER_UP,
 * CONSUMER_DOWN, DONE_RING) and their events, from the connection's progress:
 * it takes the hub's lock around what producers and consumers share and calls
 * peers.c and consumer.c, neither of which calls it; the program's callbacks
 * run after the lock is released. Design notes in fast_priv.h.
 */
#include <stdint.h>

#include "comch/fast_priv.h"

static uint32_t on_consumer_up(struct doca_comch_connection *conn, const struct ferry_frame_consumer_up *up,
			       const char **why)
{
	struct comch_ep *ep = conn->ep;
	doca_error_t err;

	pthread_mutex_lock(&conn->hub->lock);
	err = comch_peers_add(conn->hub, up, why);
	pthread_mutex_unlock(&conn->hub->lock);
	if (err != DOCA_SUCCESS)
		return UINT32_MAX;
	if (ep->new_consumer_cb == NULL)
		return 0;
	ep->new_consumer_cb(&ep->consumer_event, conn, up->consumer_id);
	return 1;
}

static uint32_t on_consumer_down(struct doca_comch_connection *conn, uint32_t id, const char **why)
{
	struct comch_ep *ep = conn->ep;
	bool known;

	pthread_mutex_lock(&conn->hub->lock);
	known = comch_peers_remove(conn->hub, id);
	if (known)
		comch_hub_wake_users(conn->hub); /* sends waiting for it fail at their producer's next progress */
	pthread_mutex_unlock(&conn->hub->lock);
	if (!known) {
		*why = "CONSUMER_DOWN for a consumer that is not up";
		return UINT32_MAX;
	}
	if (ep->expired_consumer_cb == NULL)
		return 0;
	ep->expired_consumer_cb(&ep->consumer_event, conn, id);
	return 1;
}

static uint32_t on_done_ring(struct doca_comch_connection *conn, const struct ferry_frame_done_ring *ring,
			     const char **why)
{
	uint32_t n;

	pthread_mutex_lock(&conn->hub->lock);
	n = comch_consumer_on_done_ring(conn->hub, ring, why);
	pthread_mutex_unlock(&conn->hub->lock);
	return n;
}

bool comch_fast_owns_frame(const struct ferry_frame *f)
{
	return f->type == FERRY_FRAME_CONSUMER_UP || f->type == FERRY_FRAME_CONSUMER_DOWN ||
	       f->type == FERRY_FRAME_DONE_RING;
}

uint32_t comch_fast_on_frame(struct doca_comch_connection *conn, const struct ferry_frame *f, const char **why)
{
	if (conn->hub == NULL) {
		*why = "fast-path frame before the handshake";
		return UINT32_MAX;
	}
	switch (f->type) {
	case FERRY_FRAME_CONSUMER_UP:
		return on_consumer_up(conn, &f->u.up, why);
	case FERRY_FRAME_CONSUMER_DOWN:
		return on_consumer_down(conn, f->u.consumer_id, why);
	case FERRY_FRAME_DONE_RING:
		return on_done_ring(conn, &f->u.done_ring, why);
	default:
		*why = "not a fast-path frame";
		return UINT32_MAX;
	}
}
