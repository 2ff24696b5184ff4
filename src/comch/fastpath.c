/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fastpath.c - the frames the peer sends about its consumers (CONSUMER_UP,
 * CONSUMER_DOWN, DONE_RING), their events, and the end of a connection for
 * the fast path: it calls peers.c, producer.c and consumer.c, none of which
 * calls it. Design notes in fast_priv.h.
 */
#include <stdint.h>

#include "comch/fast_priv.h"

static uint32_t on_consumer_up(struct doca_comch_connection *conn, const struct ferry_frame_consumer_up *up,
			       const char **why)
{
	struct comch_ep *ep = conn->ep;

	if (comch_peers_add(conn, up, why) != DOCA_SUCCESS)
		return UINT32_MAX;
	if (ep->new_consumer_cb == NULL)
		return 0;
	ep->new_consumer_cb(&ep->consumer_event, conn, up->consumer_id);
	return 1;
}

static uint32_t on_consumer_down(struct doca_comch_connection *conn, uint32_t id, const char **why)
{
	struct comch_ep *ep = conn->ep;

	if (!comch_peers_remove(conn, id)) {
		*why = "CONSUMER_DOWN for a consumer that is not up";
		return UINT32_MAX;
	}
	comch_producers_kick(conn); /* sends waiting for it fail now */
	if (ep->expired_consumer_cb == NULL)
		return 0;
	ep->expired_consumer_cb(&ep->consumer_event, conn, id);
	return 1;
}

bool comch_fast_owns_frame(const struct ferry_frame *f)
{
	return f->type == FERRY_FRAME_CONSUMER_UP || f->type == FERRY_FRAME_CONSUMER_DOWN ||
	       f->type == FERRY_FRAME_DONE_RING;
}

uint32_t comch_fast_on_frame(struct doca_comch_connection *conn, const struct ferry_frame *f, const char **why)
{
	switch (f->type) {
	case FERRY_FRAME_CONSUMER_UP:
		return on_consumer_up(conn, &f->u.up, why);
	case FERRY_FRAME_CONSUMER_DOWN:
		return on_consumer_down(conn, f->u.consumer_id, why);
	case FERRY_FRAME_DONE_RING:
		return comch_consumer_on_done_ring(conn, &f->u.done_ring, why);
	default:
		*why = "not a fast-path frame";
		return UINT32_MAX;
	}
}

void comch_fast_conn_gone(struct doca_comch_connection *conn)
{
	comch_producers_conn_gone(conn);
	comch_consumers_conn_gone(conn);
	comch_peers_clear(conn);
}
