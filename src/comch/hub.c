/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hub.c - what a Comch connection shares with its producers and consumers,
 * which may run on threads of their own: the lock, the references that keep it
 * past the connection's end, the socket for fast-path frames (with a queue for
 * frames that find it full: nobody sleeps for room; COMCH_FAST_OUT_MAX at most,
 * then the connection ends), and the signals between the connection's thread
 * and theirs. Design notes in fast_priv.h (Threading).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comch/fast_priv.h"
#include "common/ferry_alloc.h"
#include "common/ferry_log.h"

FERRY_LOG_MODULE("comch");

static atomic_uint next_fast_id;

uint32_t comch_fast_new_id(void)
{
	uint32_t id;

	do
		id = atomic_fetch_add_explicit(&next_fast_id, 1, memory_order_relaxed) + 1;
	while (id == 0); /* 0 means "none" on the wire */
	return id;
}

static struct comch_fast_hub *hub_alloc(struct doca_dev *dev)
{
	struct comch_fast_hub *hub = ferry_calloc(1, sizeof(*hub));

	if (hub == NULL)
		return NULL;
	if (pthread_mutex_init(&hub->lock, NULL) != 0) {
		free(hub);
		return NULL;
	}
	hub->refs = 1;
	hub->fd = -1;
	hub->dev = dev;
	hub->out_tail = &hub->out_head;
	return hub;
}

struct comch_fast_hub *comch_hub_new(struct doca_comch_connection *conn)
{
	struct comch_fast_hub *hub = hub_alloc(conn->ep->ctx.dev);

	if (hub == NULL)
		return NULL;
	hub->ep = conn->ep;
	hub->fd = conn->fd;
	hub->peer_pid = conn->peer_pid;
	hub->conn_id = conn->id;
	return hub;
}

struct comch_fast_hub *comch_hub_new_local(struct doca_comch_msgq *msgq, struct doca_dev *dev)
{
	struct comch_fast_hub *hub = hub_alloc(dev);

	if (hub != NULL) {
		hub->msgq = msgq;
		hub->peer_pid = getpid();
	}
	return hub;
}

static void drop_frames(struct comch_fast_hub *hub)
{
	struct comch_fast_frame *f;

	while ((f = hub->out_head) != NULL) {
		hub->out_head = f->next;
		free(f);
	}
	hub->out_tail = &hub->out_head;
	hub->num_out = 0;
}

void comch_hub_unref(struct comch_fast_hub *hub)
{
	uint32_t left;

	pthread_mutex_lock(&hub->lock);
	left = --hub->refs;
	pthread_mutex_unlock(&hub->lock);
	if (left != 0)
		return;
	drop_frames(hub);
	pthread_mutex_destroy(&hub->lock);
	free(hub);
}

bool comch_hub_usable(const struct comch_fast_hub *hub)
{
	return hub != NULL && !atomic_load_explicit(&hub->gone, memory_order_acquire) &&
	       !atomic_load_explicit(&hub->broken, memory_order_acquire);
}

bool comch_conn_is_live(const struct doca_comch_connection *conn)
{
	return conn != NULL && conn->magic == COMCH_CONN_MAGIC && comch_hub_usable(conn->hub);
}

/* Ask the connection's thread to look at its hubs (its progress takes the flag). */
static void call_connection_thread(struct comch_fast_hub *hub)
{
	atomic_store_explicit(&hub->ep->fast_attention, true, memory_order_release);
	ferry_pe_wake(hub->ep->ctx.pe);
}

void comch_hub_break(struct comch_fast_hub *hub)
{
	if (atomic_load_explicit(&hub->gone, memory_order_relaxed) ||
	    atomic_exchange_explicit(&hub->broken, true, memory_order_acq_rel) || hub->ep == NULL)
		return; /* a MsgQ has no connection to end: its users see the flag */
	call_connection_thread(hub);
}

/* Send what waits, in order; false when the socket is full again. */
static bool flush_frames(struct comch_fast_hub *hub)
{
	struct comch_fast_frame *f;

	while ((f = hub->out_head) != NULL) {
		doca_error_t err = ferry_link_send(hub->fd, f->bytes, f->len);

		if (err == DOCA_ERROR_AGAIN)
			return false;
		hub->out_head = f->next;
		if (hub->out_head == NULL)
			hub->out_tail = &hub->out_head;
		hub->num_out--;
		free(f);
		if (err != DOCA_SUCCESS) {
			comch_hub_break(hub);
			drop_frames(hub);
			return true;
		}
	}
	return true;
}

doca_error_t comch_hub_send(struct comch_fast_hub *hub, const uint8_t *frame, size_t len)
{
	struct comch_fast_frame *f;

	if (atomic_load_explicit(&hub->gone, memory_order_relaxed))
		return DOCA_ERROR_NOT_CONNECTED;
	if (hub->out_head == NULL) {
		doca_error_t err = ferry_link_send(hub->fd, frame, len);

		if (err != DOCA_ERROR_AGAIN) {
			if (err != DOCA_SUCCESS)
				comch_hub_break(hub);
			return err == DOCA_SUCCESS ? DOCA_SUCCESS : DOCA_ERROR_NOT_CONNECTED;
		}
	}
	if (hub->num_out >= COMCH_FAST_OUT_MAX) {
		/* The peer has not read for that long: end the connection rather than queue without end. */
		FERRY_ERR("comch connection %u: the peer leaves its socket unread (%u frames wait for it); connection "
			  "closed",
			  hub->conn_id, COMCH_FAST_OUT_MAX);
		comch_hub_break(hub);
		return DOCA_ERROR_FULL;
	}
	/* The socket is full (the peer is slow to read): the frame waits, the connection's progress retries. */
	f = ferry_malloc(sizeof(*f) + len);
	if (f == NULL)
		return DOCA_ERROR_NO_MEMORY;
	f->next = NULL;
	f->len = len;
	memcpy(f->bytes, frame, len);
	*hub->out_tail = f;
	hub->out_tail = &f->next;
	hub->num_out++;
	call_connection_thread(hub);
	return DOCA_SUCCESS;
}

void comch_hub_wake_users(struct comch_fast_hub *hub)
{
	for (struct doca_comch_producer *p = hub->producers; p != NULL; p = p->next)
		if (p->wakeable)
			ferry_pe_wake(p->ctx.pe);
	for (struct doca_comch_consumer *c = hub->consumers; c != NULL; c = c->next)
		if (c->wakeable)
			ferry_pe_wake(c->ctx.pe);
}

/* ---- the connection's side (comch_priv.h) ---- */

doca_error_t comch_fast_conn_up(struct doca_comch_connection *conn)
{
	conn->hub = comch_hub_new(conn);
	return conn->hub == NULL ? DOCA_ERROR_NO_MEMORY : DOCA_SUCCESS;
}

void comch_fast_conn_gone(struct doca_comch_connection *conn)
{
	struct comch_fast_hub *hub = conn->hub;

	if (hub == NULL)
		return;
	comch_conn_set_hub_waiting(conn, false);
	conn->hub = NULL;
	comch_hub_close(hub);
}

void comch_hub_close(struct comch_fast_hub *hub)
{
	pthread_mutex_lock(&hub->lock);
	atomic_store_explicit(&hub->gone, true, memory_order_release);
	comch_peers_clear(hub);
	drop_frames(hub);
	hub->fd = -1;
	hub->ep = NULL;
	/* Each producer and consumer fails what it has in flight on its own thread. */
	comch_hub_wake_users(hub);
	pthread_mutex_unlock(&hub->lock);
	comch_hub_unref(hub);
}

bool comch_fast_conn_attend(struct doca_comch_connection *conn)
{
	struct comch_fast_hub *hub = conn->hub;
	bool waiting;

	if (hub == NULL)
		return false;
	if (atomic_load_explicit(&hub->broken, memory_order_acquire))
		comch_conn_mark_broken(conn);
	pthread_mutex_lock(&hub->lock);
	waiting = !flush_frames(hub);
	pthread_mutex_unlock(&hub->lock);
	return waiting;
}

void comch_ep_attend(struct comch_ep *ep, struct doca_comch_connection *const *conns, uint32_t num_conns)
{
	bool called = atomic_load_explicit(&ep->fast_attention, memory_order_relaxed) &&
		      atomic_exchange_explicit(&ep->fast_attention, false, memory_order_acq_rel);

	/* Frames still waiting: their sockets are watched for room, which wakes the PE for this progress. */
	if (!called && ep->num_hub_waiting == 0)
		return;
	for (uint32_t i = 0; i < num_conns; i++)
		if (conns[i] != NULL)
			comch_conn_set_hub_waiting(conns[i], comch_fast_conn_attend(conns[i]));
}

void comch_fast_conn_users(const struct doca_comch_connection *conn, uint32_t *producers, uint32_t *consumers)
{
	struct comch_fast_hub *hub = conn->hub;

	*producers = 0;
	*consumers = 0;
	if (hub == NULL)
		return;
	pthread_mutex_lock(&hub->lock);
	*producers = hub->num_producers;
	*consumers = hub->num_consumers;
	pthread_mutex_unlock(&hub->lock);
}
