/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fastpath.c - what producers and consumers share: ids, the frames the peer
 * sends about its consumers (CONSUMER_UP, CONSUMER_DOWN, DONE_RING) and the end
 * of a connection. Task lists and the cap check are comch.c's. Design notes in comch_fast.h.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "comch/comch_fast.h"
#include "common/ferry_log.h"
#include "core/ferry_dev.h"
#include "core/ferry_mem.h"
#include "link/ferry_remote.h"

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

bool comch_fast_conn_usable(const struct doca_comch_connection *conn)
{
	return conn != NULL && conn->magic == COMCH_CONN_MAGIC && conn->established && !conn->broken && conn->fd >= 0;
}

/* ---- the peer's consumers ---- */

struct comch_remote_consumer *comch_fast_find_remote(const struct doca_comch_connection *conn, uint32_t id)
{
	struct comch_remote_consumer *r;

	for (r = conn->remotes; r != NULL; r = r->next)
		if (r->id == id)
			return r;
	return NULL;
}

static void remote_free(struct comch_remote_consumer *r)
{
	if (r->mmap != NULL)
		(void)doca_mmap_destroy(r->mmap);
	comch_ring_view_close(&r->posts);
	comch_ring_out_close(&r->dones);
	free(r);
}

/* Create the completion ring for a consumer of the peer and tell the peer where it is. */
static doca_error_t open_dones(struct doca_comch_connection *conn, struct comch_remote_consumer *r)
{
	uint8_t frame[FERRY_FRAME_DONE_RING_MAX];
	struct ferry_frame_done_ring fr = {.consumer_id = r->id, .ring_cap = r->posts.cap};
	const void *desc = NULL;
	size_t desc_len = 0, n;
	doca_error_t err = comch_ring_out_open(&r->dones, COMCH_DONE_MAGIC, r->posts.cap,
					       comch_done_ring_bytes(r->posts.cap), conn->ep->ctx.dev, &desc, &desc_len);

	if (err != DOCA_SUCCESS)
		return err;
	fr.desc = desc;
	fr.desc_len = desc_len > FERRY_FRAME_DESC_MAX ? 0 : (uint16_t)desc_len;
	n = ferry_frame_build_done_ring(frame, &fr);
	if (n == 0)
		return DOCA_ERROR_NOT_SUPPORTED;
	/* A tiny frame on a socket we also read: wait for room a moment rather than lose it. */
	for (int i = 0; i < 1000; i++) {
		err = ferry_link_send(conn->fd, frame, n);
		if (err != DOCA_ERROR_AGAIN)
			break;
		usleep(100);
	}
	return err;
}

static uint32_t on_consumer_up(struct doca_comch_connection *conn, const struct ferry_frame_consumer_up *up,
			       const char **why)
{
	struct comch_ep *ep = conn->ep;
	struct comch_remote_consumer *r;
	void *addr = NULL;
	size_t len = 0;

	if (comch_fast_find_remote(conn, up->consumer_id) != NULL) {
		*why = "CONSUMER_UP for a consumer id already up";
		return UINT32_MAX;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		*why = "no memory for the consumer's record";
		return UINT32_MAX;
	}
	r->id = up->consumer_id;
	r->imm_data_len = up->imm_data_len;
	/* Consumers' memory is often ordinary (malloc): reach it by cross-memory attach. */
	ferry_link_enable_cma();
	if (doca_mmap_create_from_export(NULL, up->desc, up->desc_len, ep->ctx.dev, &r->mmap) != DOCA_SUCCESS ||
	    doca_mmap_get_memrange(r->mmap, &addr, &len) != DOCA_SUCCESS ||
	    comch_ring_view_open(&r->posts, ep->ctx.dev, up->ring_desc, up->ring_desc_len, up->ring_cap,
				 comch_ring_bytes(up->ring_cap)) != DOCA_SUCCESS) {
		remote_free(r);
		*why = "CONSUMER_UP names memory that cannot be imported (or a ring smaller than its size)";
		return UINT32_MAX;
	}
	r->base = (uint64_t)(uintptr_t)addr;
	r->len = len;
	r->remote = ferry_mmap_remote(r->mmap);
	if (open_dones(conn, r) != DOCA_SUCCESS) {
		remote_free(r);
		*why = "cannot set up the completion ring for its consumer";
		return UINT32_MAX;
	}
	r->next = conn->remotes;
	conn->remotes = r;
	FERRY_DBG("%s '%s': connection %u: peer consumer %u is up (%s, post ring %s)", ep->kind, ep->name, conn->id,
		  r->id, r->remote == NULL ? "shared mapping" : "cross-memory attach",
		  r->posts.remote == NULL ? "shared" : "by cross-memory attach");
	if (ep->new_consumer_cb == NULL)
		return 0;
	ep->new_consumer_cb(&ep->consumer_event, conn, r->id);
	return 1;
}

/* ---- the peer's post rings ---- */

static doca_error_t ring_broken(struct doca_comch_connection *conn, struct comch_remote_consumer *r, const char *rule)
{
	if (!r->broken) {
		r->broken = true;
		FERRY_ERR("%s '%s': connection %u: consumer %u's post ring %s; connection closed", conn->ep->kind,
			  conn->ep->name, conn->id, r->id, rule);
		comch_conn_mark_broken(conn);
	}
	return DOCA_ERROR_NOT_CONNECTED;
}

doca_error_t comch_fast_peek_post(struct doca_comch_connection *conn, struct comch_remote_consumer *r,
				  struct comch_post *post)
{
	doca_error_t err;

	if (r->broken)
		return DOCA_ERROR_NOT_CONNECTED;
	err = comch_ring_view_peek(&r->posts, post, sizeof(*post));
	if (err == DOCA_ERROR_INVALID_VALUE)
		return ring_broken(conn, r, "claims more posts than it holds");
	if (err != DOCA_SUCCESS)
		return err;
	/* The one check that keeps producers inside what the consumer exported. */
	if (post->len == 0 || post->addr < r->base || post->len > r->len || post->addr - r->base > r->len - post->len)
		return ring_broken(conn, r, "holds a buffer outside the consumer's exported memory");
	return DOCA_SUCCESS;
}

static void remote_unlink(struct doca_comch_connection *conn, struct comch_remote_consumer *gone)
{
	struct comch_remote_consumer **pp;

	for (pp = &conn->remotes; *pp != NULL; pp = &(*pp)->next)
		if (*pp == gone) {
			*pp = gone->next;
			return;
		}
}

static uint32_t on_consumer_down(struct doca_comch_connection *conn, uint32_t id, const char **why)
{
	struct comch_ep *ep = conn->ep;
	struct comch_remote_consumer *r = comch_fast_find_remote(conn, id);

	if (r == NULL) {
		*why = "CONSUMER_DOWN for a consumer that is not up";
		return UINT32_MAX;
	}
	remote_unlink(conn, r);
	remote_free(r);
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
	struct comch_remote_consumer *r;

	comch_producers_conn_gone(conn);
	comch_consumers_conn_gone(conn);
	while ((r = conn->remotes) != NULL) {
		conn->remotes = r->next;
		remote_free(r);
	}
}
