/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * buf_inventory.c - doca_buf_inventory: a fixed pool of doca_buf descriptors.
 *
 * All descriptors live in one cache-aligned array allocated at the first start
 * and freed at destroy. Free descriptors form a LIFO list threaded through
 * doca_buf.next, so a take or a release is a pointer swap: the fast path never
 * allocates. LIFO also hands back the most recently used, cache-warm descriptor.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_buf_inventory.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "core/ferry_memview.h"
#include "core/mem_priv.h"

FERRY_LOG_MODULE("buf_inventory");

#define CACHE_LINE 64

/* ---- descriptors ---- */

struct doca_buf *ferry_buf_inventory_take(struct doca_buf_inventory *inv)
{
	struct doca_buf *buf = inv->free_list;

	inv->free_list = buf->next;
	inv->num_free--;
	return buf;
}

void ferry_buf_inventory_put(struct doca_buf_inventory *inv, struct doca_buf *buf)
{
	buf->refcount = 0;
	buf->mmap = NULL;
	buf->last = buf;
	buf->list_len = 0;
	buf->next = inv->free_list;
	inv->free_list = buf;
	inv->num_free++;
}

void ferry_buf_init_taken(struct doca_buf *buf, struct doca_mmap *mmap, void *addr, size_t len, void *data,
			  size_t data_len)
{
	buf->head = addr;
	buf->len = len;
	buf->data = data;
	buf->data_len = data_len;
	buf->mmap = mmap;
	buf->next = NULL;
	buf->last = buf;
	buf->list_len = 1;
	buf->refcount = 1;
	buf->is_head = true;
	ferry_mmap_buf_taken(mmap);
}

static doca_error_t alloc_elements(struct doca_buf_inventory *inv)
{
	size_t bytes = (size_t)inv->num_elements * sizeof(struct doca_buf);

	inv->elems = ferry_aligned_alloc(CACHE_LINE, bytes);
	if (inv->elems == NULL)
		return FERRY_RULE_IN("doca_buf_inventory_start", DOCA_ERROR_NO_MEMORY,
				     "inventory %p: out of memory for %u descriptors", (void *)inv, inv->num_elements);
	memset(inv->elems, 0, bytes);
	/* Build the free list backwards so the first take returns elems[0]. */
	inv->free_list = NULL;
	for (uint32_t i = inv->num_elements; i-- > 0;) {
		inv->elems[i].inv = inv;
		inv->elems[i].next = inv->free_list;
		inv->free_list = &inv->elems[i];
	}
	inv->num_free = inv->num_elements;
	return DOCA_SUCCESS;
}

/* ---- lifecycle ---- */

doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory)
{
	if (inventory == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "output pointer is NULL");
	if (num_elements == 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "num_elements is 0");
	if (num_elements > UINT32_MAX)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "num_elements %zu exceeds the limit of %u", num_elements,
				  UINT32_MAX);

	struct doca_buf_inventory *inv = ferry_calloc(1, sizeof(*inv));
	if (inv == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "out of memory");
	inv->num_elements = (uint32_t)num_elements;
	/* Nothing is taken before start: every element counts as free. */
	inv->num_free = inv->num_elements;
	*inventory = inv;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory)
{
	FERRY_ARG_NOT_NULL(inventory);
	if (inventory->num_free != inventory->num_elements)
		return FERRY_RULE(DOCA_ERROR_IN_USE,
				  "inventory %p still has %u of %u buf(s) out; "
				  "release them with doca_buf_dec_refcount first",
				  (void *)inventory, inventory->num_elements - inventory->num_free,
				  inventory->num_elements);
	free(inventory->elems);
	free(inventory);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory)
{
	FERRY_ARG_NOT_NULL(inventory);
	if (inventory->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "inventory %p is already started", (void *)inventory);
	if (inventory->elems == NULL) {
		doca_error_t err = alloc_elements(inventory);
		if (err != DOCA_SUCCESS)
			return err;
	}
	inventory->started = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory)
{
	FERRY_ARG_NOT_NULL(inventory);
	if (!inventory->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "inventory %p is not started", (void *)inventory);
	inventory->started = false;
	return DOCA_SUCCESS;
}

/* ---- taking bufs ---- */

static doca_error_t check_can_take(const struct doca_buf_inventory *inv, const char *call)
{
	if (!inv->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "inventory %p is not started", (const void *)inv);
	return DOCA_SUCCESS;
}

static doca_error_t check_mmap_usable(const struct doca_mmap *mmap, const char *call)
{
	if (!ferry_mmap_is_usable(mmap))
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "mmap %p is not started", (const void *)mmap);
	return DOCA_SUCCESS;
}

static doca_error_t check_window(const struct doca_mmap *mmap, void *addr, size_t len, void *data, size_t data_len,
				 const char *call)
{
	if (!ferry_mmap_contains(mmap, addr, len))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "range %p + %zu lies outside mmap %p (range %p + %zu)", addr, len,
				     (const void *)mmap, mmap->addr, mmap->len);
	uintptr_t head = (uintptr_t)addr;
	uintptr_t d = (uintptr_t)data;
	if (d < head || (size_t)(d - head) > len || data_len > len - (size_t)(d - head))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "data %p + %zu lies outside the buffer %p + %zu (mmap %p)", data, data_len, addr,
				     len, (const void *)mmap);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory, struct doca_mmap *mmap,
						void *addr, size_t len, void *data, size_t data_len,
						struct doca_buf **buf)
{
	const char *call = __func__;

	if (inventory == NULL || mmap == NULL || buf == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL",
				     inventory == NULL ? "inventory" : (mmap == NULL ? "mmap" : "buf"));
	doca_error_t err = ferry_mmap_check(mmap, call);
	if (err == DOCA_SUCCESS)
		err = check_can_take(inventory, call);
	if (err == DOCA_SUCCESS)
		err = check_mmap_usable(mmap, call);
	if (err == DOCA_SUCCESS)
		err = check_window(mmap, addr, len, data, data_len, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (inventory->num_free == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "inventory %p is empty (all %u bufs are out)",
				     (void *)inventory, inventory->num_elements);

	struct doca_buf *b = ferry_buf_inventory_take(inventory);
	ferry_buf_init_taken(b, mmap, addr, len, data, data_len);
	*buf = b;
	return DOCA_SUCCESS;
}

/* Re-aim a buf its one holder keeps, within its own mmap: no trip through the inventory. */
static doca_error_t buf_reuse(struct doca_buf *buf, void *addr, size_t len, void *data, size_t data_len,
			      const char *call)
{
	doca_error_t err;

	if (buf == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "buf is NULL");
	if (buf->refcount == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "buf %p is free (returned to its inventory)",
				     (void *)buf);
	if (!buf->is_head || buf->list_len != 1 || buf->refcount != 1)
		return FERRY_RULE_IN(
			call, DOCA_ERROR_NOT_PERMITTED,
			"buf %p is part of a list or has %u holders; only a lone buf of one holder is reused",
			(void *)buf, (unsigned)buf->refcount);
	err = check_mmap_usable(buf->mmap, call);
	if (err == DOCA_SUCCESS)
		err = check_window(buf->mmap, addr, len, data, data_len, call);
	if (err != DOCA_SUCCESS)
		return err;
	buf->head = addr;
	buf->len = len;
	buf->data = data;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_buf_reuse_by_addr(struct doca_buf *buf, void *addr, size_t len)
{
	return buf_reuse(buf, addr, len, addr, 0, __func__);
}

doca_error_t doca_buf_inventory_buf_reuse_by_data(struct doca_buf *buf, void *data, size_t data_len)
{
	return buf_reuse(buf, data, data_len, data, data_len, __func__);
}

doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory, const struct doca_buf *src_buf,
					struct doca_buf **dst_buf)
{
	const char *call = __func__;

	if (inventory == NULL || src_buf == NULL || dst_buf == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL",
				     inventory == NULL ? "inventory" : (src_buf == NULL ? "src_buf" : "dst_buf"));
	doca_error_t err = check_can_take(inventory, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (src_buf->refcount == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "src buf %p is free (returned to its inventory)",
				     (const void *)src_buf);
	if (!src_buf->is_head)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "src buf %p is inside a list; only the head of a list can be duplicated",
				     (const void *)src_buf);
	for (const struct doca_buf *s = src_buf; s != NULL; s = s->next) {
		err = check_mmap_usable(s->mmap, call);
		if (err != DOCA_SUCCESS)
			return err;
	}
	/* All or nothing: never leave a half-copied list behind. */
	if (inventory->num_free < src_buf->list_len)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY,
				     "inventory %p has %u free buf(s), the list of src buf %p needs %u",
				     (void *)inventory, inventory->num_free, (const void *)src_buf, src_buf->list_len);

	struct doca_buf *head = NULL;
	struct doca_buf *prev = NULL;
	for (const struct doca_buf *s = src_buf; s != NULL; s = s->next) {
		struct doca_buf *d = ferry_buf_inventory_take(inventory);
		ferry_buf_init_taken(d, s->mmap, s->head, s->len, s->data, s->data_len);
		if (prev == NULL) {
			head = d;
		} else {
			d->is_head = false;
			prev->next = d;
		}
		prev = d;
	}
	head->last = prev;
	head->list_len = src_buf->list_len;
	*dst_buf = head;
	return DOCA_SUCCESS;
}

/* ---- properties ---- */

doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory, union doca_data user_data)
{
	FERRY_ARG_NOT_NULL(inventory);
	if (inventory->elems != NULL) /* allocated at first start */
		return FERRY_RULE(DOCA_ERROR_BAD_STATE,
				  "inventory %p was started; properties are "
				  "fixed at first start",
				  (void *)inventory);
	inventory->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory, union doca_data *user_data)
{
	FERRY_ARG_NOT_NULL(inventory);
	FERRY_ARG_NOT_NULL(user_data);
	*user_data = inventory->user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory, uint32_t *num_of_elements)
{
	FERRY_ARG_NOT_NULL(inventory);
	FERRY_ARG_NOT_NULL(num_of_elements);
	*num_of_elements = inventory->num_elements;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
						      uint32_t *num_of_free_elements)
{
	FERRY_ARG_NOT_NULL(inventory);
	FERRY_ARG_NOT_NULL(num_of_free_elements);
	*num_of_free_elements = inventory->num_free;
	return DOCA_SUCCESS;
}
