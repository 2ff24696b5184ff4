/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * buf.c - doca_buf: reference counting, the data window, and lists.
 *
 * A list is a singly linked chain of taken bufs. Its head carries the list's
 * reference count, its length and a pointer to its last buf, so chaining is
 * O(1); the other bufs keep refcount 1 and is_head false. Only unchain walks
 * the list (to find the buf before the cut).
 */
#include <doca_buf.h>

#include "common/ferry_log.h"
#include "core/ferry_memview.h"
#include "core/mem_priv.h"

FERRY_LOG_MODULE("buf");

/* ---- shared checks ---- */

static doca_error_t check_in_use(const struct doca_buf *buf, const char *call, const char *what)
{
	if (buf == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL", what);
	if (buf->refcount == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "%s %p is free (already returned to its inventory)",
				     what, (const void *)buf);
	return DOCA_SUCCESS;
}

static doca_error_t check_head(const struct doca_buf *buf, const char *call, const char *what)
{
	doca_error_t err = check_in_use(buf, call, what);
	if (err != DOCA_SUCCESS)
		return err;
	if (!buf->is_head)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "%s %p is inside a list; only the head of a list may be used here", what,
				     (const void *)buf);
	return DOCA_SUCCESS;
}

#define CHECK_OUT(call, buf, out)                                                            \
	do {                                                                                 \
		if ((buf) == NULL || (out) == NULL)                                          \
			return FERRY_RULE_IN((call), DOCA_ERROR_INVALID_VALUE, "%s is NULL", \
					     (buf) == NULL ? "buf" : #out);                  \
	} while (0)

/* ---- reference count ---- */

doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	doca_error_t err = check_head(buf, __func__, "buf");
	if (err != DOCA_SUCCESS)
		return err;
	if (buf->refcount == UINT16_MAX)
		return FERRY_RULE(DOCA_ERROR_TOO_BIG, "buf %p already holds %u references", (void *)buf,
				  (unsigned int)UINT16_MAX);
	if (refcount != NULL)
		*refcount = buf->refcount;
	buf->refcount++;
	return DOCA_SUCCESS;
}

/* The last reference is gone: every buf of the list goes home. */
static void release_list(struct doca_buf *head)
{
	struct doca_buf *b = head;

	while (b != NULL) {
		struct doca_buf *next = b->next;
		ferry_mmap_buf_released(b->mmap);
		ferry_buf_inventory_put(b->inv, b);
		b = next;
	}
}

doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount)
{
	const char *call = __func__;

	if (buf == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "buf is NULL");
	if (buf->refcount == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "buf %p has reference count 0 (already returned to its inventory)", (void *)buf);
	if (!buf->is_head)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "buf %p is inside a list; release the list through its head", (void *)buf);
	if (refcount != NULL)
		*refcount = buf->refcount;
	if (--buf->refcount == 0)
		release_list(buf);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount)
{
	CHECK_OUT(__func__, buf, refcount);
	*refcount = buf->refcount;
	return DOCA_SUCCESS;
}

/* ---- window and data (getters: NULL checks only, see doca_buf.h) ---- */

doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len)
{
	CHECK_OUT(__func__, buf, len);
	*len = buf->len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head)
{
	CHECK_OUT(__func__, buf, head);
	*head = buf->head;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len)
{
	CHECK_OUT(__func__, buf, data_len);
	*data_len = buf->data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data)
{
	CHECK_OUT(__func__, buf, data);
	*data = buf->data;
	return DOCA_SUCCESS;
}

/* Bytes from the data start to the end of the window. */
static size_t room_after_data(const struct doca_buf *buf)
{
	return buf->len - (size_t)((uintptr_t)buf->data - (uintptr_t)buf->head);
}

doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len)
{
	const char *call = __func__;

	doca_error_t err = check_in_use(buf, call, "buf");
	if (err != DOCA_SUCCESS)
		return err;
	if (data == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "buf %p: data is NULL", (void *)buf);
	uintptr_t head = (uintptr_t)buf->head;
	uintptr_t d = (uintptr_t)data;
	if (d < head || (size_t)(d - head) > buf->len || data_len > buf->len - (size_t)(d - head))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "buf %p: data %p + %zu lies outside the buffer %p + %zu", (void *)buf, data,
				     data_len, buf->head, buf->len);
	buf->data = data;
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len)
{
	const char *call = __func__;

	doca_error_t err = check_in_use(buf, call, "buf");
	if (err != DOCA_SUCCESS)
		return err;
	if (data_len > room_after_data(buf))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "buf %p: data %p + %zu would pass the end of the buffer %p + %zu", (void *)buf,
				     buf->data, data_len, buf->head, buf->len);
	buf->data_len = data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_reset_data_len(struct doca_buf *buf)
{
	doca_error_t err = check_in_use(buf, __func__, "buf");
	if (err != DOCA_SUCCESS)
		return err;
	buf->data_len = 0;
	return DOCA_SUCCESS;
}

/* ---- lists ---- */

doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf)
{
	CHECK_OUT(__func__, buf, next_buf);
	*next_buf = buf->next;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf)
{
	CHECK_OUT(__func__, buf, last_buf);
	if (buf->is_head) {
		*last_buf = buf->last;
		return DOCA_SUCCESS;
	}
	/* Only a head knows its last buf; from the middle, walk. */
	struct doca_buf *b = buf;
	while (b->next != NULL)
		b = b->next;
	*last_buf = b;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last)
{
	CHECK_OUT(__func__, buf, is_last);
	*is_last = buf->next == NULL ? 1 : 0;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first)
{
	CHECK_OUT(__func__, buf, is_first);
	*is_first = buf->is_head ? 1 : 0;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list)
{
	CHECK_OUT(__func__, buf, is_in_list);
	*is_in_list = (!buf->is_head || buf->next != NULL) ? 1 : 0;
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements)
{
	CHECK_OUT(__func__, buf, num_elements);
	if (!buf->is_head)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "buf %p is inside a list; ask its head", (const void *)buf);
	*num_elements = buf->list_len;
	return DOCA_SUCCESS;
}

static doca_error_t check_chainable(struct doca_buf *list1, struct doca_buf *list2, const char *call)
{
	doca_error_t err = check_head(list1, call, "list1");
	if (err == DOCA_SUCCESS)
		err = check_head(list2, call, "list2");
	if (err != DOCA_SUCCESS)
		return err;
	if (list1 == list2)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "list1 and list2 are the same buf %p",
				     (void *)list1);
	if (list2->refcount != 1)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "list2 %p has reference count %u; chaining needs exactly 1", (void *)list2,
				     (unsigned int)list2->refcount);
	if (list1->list_len > UINT32_MAX - list2->list_len)
		return FERRY_RULE_IN(call, DOCA_ERROR_TOO_BIG, "joined list would exceed %u bufs", UINT32_MAX);
	return DOCA_SUCCESS;
}

static void append_list(struct doca_buf *list1, struct doca_buf *list2)
{
	list1->last->next = list2;
	list1->last = list2->last;
	list1->list_len += list2->list_len;
	list2->is_head = false;
	list2->last = NULL;
	list2->list_len = 0;
}

doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2)
{
	doca_error_t err = check_chainable(list1, list2, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	append_list(list1, list2);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_chain_list_tail(struct doca_buf *list1, struct doca_buf *list1_tail, struct doca_buf *list2)
{
	const char *call = __func__;

	doca_error_t err = check_chainable(list1, list2, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (list1_tail != list1->last)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "list1_tail %p is not the last buf of list1 %p (%p is)", (void *)list1_tail,
				     (void *)list1, (void *)list1->last);
	append_list(list1, list2);
	return DOCA_SUCCESS;
}

doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2)
{
	const char *call = __func__;

	doca_error_t err = check_head(list1, call, "list1");
	if (err != DOCA_SUCCESS)
		return err;
	if (list2 == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "list2 is NULL");
	if (list2 == list1)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "list2 is list1 (%p); nothing to cut",
				     (void *)list1);

	struct doca_buf *prev = list1;
	uint32_t kept = 1;
	while (prev->next != NULL && prev->next != list2) {
		prev = prev->next;
		kept++;
	}
	if (prev->next != list2)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "buf %p is not part of list %p", (void *)list2,
				     (void *)list1);

	prev->next = NULL;
	list2->is_head = true;
	list2->refcount = 1;
	list2->last = list1->last;
	list2->list_len = list1->list_len - kept;
	list1->last = prev;
	list1->list_len = kept;
	return DOCA_SUCCESS;
}
