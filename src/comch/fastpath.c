/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fastpath.c - what producers and consumers share: ids, task lists, the frames
 * the peer sends about its consumers (CONSUMER_UP, POST, CONSUMER_DOWN) and the
 * end of a connection. Design notes in comch_fast.h.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "comch/comch_fast.h"
#include "common/ferry_log.h"
#include "core/ferry_dev.h"
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

void comch_fast_list_push(struct comch_task_list *list, struct doca_task *task)
{
	task->next = NULL;
	if (list->tail != NULL)
		list->tail->next = task;
	else
		list->head = task;
	list->tail = task;
}

struct doca_task *comch_fast_list_pop(struct comch_task_list *list)
{
	struct doca_task *task = list->head;

	if (task != NULL) {
		list->head = task->next;
		if (list->head == NULL)
			list->tail = NULL;
		task->next = NULL;
	}
	return task;
}

uint32_t comch_fast_complete_list(struct comch_task_list *list)
{
	/* Take the list first: callbacks may resubmit, which may append to it. */
	struct comch_task_list batch = *list;
	struct doca_task *task;
	uint32_t n = 0;

	list->head = list->tail = NULL;
	while ((task = comch_fast_list_pop(&batch)) != NULL) {
		ferry_task_complete(task, task->status);
		n++;
	}
	return n;
}

bool comch_fast_conn_usable(const struct doca_comch_connection *conn)
{
	return conn != NULL && conn->magic == COMCH_CONN_MAGIC && conn->established && !conn->broken && conn->fd >= 0;
}

doca_error_t comch_fast_cap_check(const char *call, const struct doca_devinfo *devinfo, const void *out)
{
	if (devinfo == NULL || out == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: devinfo and output must not be NULL", call);
	if (!ferry_devinfo_is_valid(devinfo))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s: devinfo %p is not a device of this machine", call,
				  (const void *)devinfo);
	return DOCA_SUCCESS;
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
	free(r->posts);
	free(r);
}

static uint32_t on_consumer_up(struct doca_comch_connection *conn, const struct ferry_frame_consumer_up *up,
			       const char **why)
{
	struct comch_ep *ep = conn->ep;
	struct comch_remote_consumer *r;
	void *addr = NULL;
	size_t len = 0;
	doca_error_t err;

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
	err = doca_mmap_create_from_export(NULL, up->desc, up->desc_len, ep->ctx.dev, &r->mmap);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_get_memrange(r->mmap, &addr, &len);
	if (err != DOCA_SUCCESS) {
		remote_free(r);
		*why = "CONSUMER_UP names memory that cannot be imported";
		return UINT32_MAX;
	}
	r->base = (uint64_t)(uintptr_t)addr;
	r->len = len;
	r->remote = ferry_mmap_remote(r->mmap);
	r->next = conn->remotes;
	conn->remotes = r;
	FERRY_DBG("%s '%s': connection %u: peer consumer %u is up (%s)", ep->kind, ep->name, conn->id, r->id,
		  r->remote == NULL ? "shared mapping" : "cross-memory attach");
	if (ep->new_consumer_cb == NULL)
		return 0;
	ep->new_consumer_cb(&ep->consumer_event, conn, r->id);
	return 1;
}

static doca_error_t posts_grow(struct comch_remote_consumer *r)
{
	uint32_t cap = r->cap == 0 ? 64 : r->cap * 2;
	struct comch_post *posts = malloc(sizeof(*posts) * cap);

	if (posts == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (uint32_t i = 0; i < r->count; i++)
		posts[i] = r->posts[(r->head + i) % r->cap];
	free(r->posts);
	r->posts = posts;
	r->cap = cap;
	r->head = 0;
	return DOCA_SUCCESS;
}

static uint32_t on_post(struct doca_comch_connection *conn, const struct ferry_frame_post *p, const char **why)
{
	struct comch_remote_consumer *r = comch_fast_find_remote(conn, p->consumer_id);

	if (r == NULL) {
		*why = "POST for a consumer that is not up";
		return UINT32_MAX;
	}
	/* The one check that keeps producers inside what the consumer exported. */
	if (p->addr < r->base || p->len > r->len || p->addr - r->base > r->len - p->len) {
		*why = "POST buffer lies outside the consumer's exported memory";
		return UINT32_MAX;
	}
	if (r->count >= COMCH_FAST_MAX_POSTS) {
		*why = "more posted buffers than a consumer can have";
		return UINT32_MAX;
	}
	if (r->count == r->cap && posts_grow(r) != DOCA_SUCCESS) {
		*why = "no memory for posted buffers";
		return UINT32_MAX;
	}
	r->posts[(r->head + r->count) % r->cap] = (struct comch_post){
		.addr = p->addr, .len = p->len, .slot = p->slot, .generation = p->generation};
	r->count++;
	comch_producers_kick(conn);
	return 0;
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
	       f->type == FERRY_FRAME_POST || f->type == FERRY_FRAME_DONE;
}

uint32_t comch_fast_on_frame(struct doca_comch_connection *conn, const struct ferry_frame *f, const char **why)
{
	switch (f->type) {
	case FERRY_FRAME_CONSUMER_UP:
		return on_consumer_up(conn, &f->u.up, why);
	case FERRY_FRAME_CONSUMER_DOWN:
		return on_consumer_down(conn, f->u.consumer_id, why);
	case FERRY_FRAME_POST:
		return on_post(conn, &f->u.post, why);
	case FERRY_FRAME_DONE:
		return comch_consumer_on_done(conn, &f->u.post, why);
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
