/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_buf.h - a buffer descriptor: a window into the memory of a doca_mmap.
 *
 * A buf has a head and a length (the whole window: [head, head + len)) and,
 * inside it, the data: [data, data + data_len). Tasks read a source buf's data
 * and write after the data of a destination buf.
 *
 * Bufs come from a doca_buf_inventory with a reference count of 1 and go back
 * to it when doca_buf_dec_refcount brings the count to 0.
 *
 * Lists: bufs can be chained into a singly linked list (doca_buf_chain_list).
 * The first buf, the head, stands for the whole list: only the head's
 * reference count moves (the others stay at 1), and when the head's count
 * reaches 0 every buf of the list goes back to its inventory.
 *
 * Checks: every call checks its pointers for NULL and answers
 * DOCA_ERROR_INVALID_VALUE with a log line. Calls that change a buf also refuse
 * a buf already returned to its inventory (DOCA_ERROR_BAD_STATE). The getters
 * (get_len, get_head, get_data, get_data_len, get_next_in_list, is_*_in_list)
 * skip that second check: they are on every task's path and only read.
 *
 * Threading: a buf (and its list) is used by one thread at a time.
 */
#ifndef DOCA_BUF_H_
#define DOCA_BUF_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque buffer descriptor. */
struct doca_buf;

/**
 * @brief Take one more reference on a buf (on a list: the head's).
 * @param [in] buf        a buf that is not a later element of a list.
 * @param [out] refcount  the count before the call; may be NULL.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL), DOCA_ERROR_BAD_STATE (buf is free),
 *         DOCA_ERROR_NOT_PERMITTED (buf is not the head of its list),
 *         DOCA_ERROR_TOO_BIG (count already UINT16_MAX).
 */
DOCA_STABLE doca_error_t doca_buf_inc_refcount(struct doca_buf *buf, uint16_t *refcount);

/**
 * @brief Drop one reference; at 0 the buf, and every buf chained after it,
 * goes back to its inventory.
 * @param [in] buf        a buf that is not a later element of a list.
 * @param [out] refcount  the count before the call; may be NULL.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL),
 *         DOCA_ERROR_NOT_PERMITTED (buf is not the head of its list),
 *         DOCA_ERROR_BAD_STATE (count already 0: the buf is free).
 */
DOCA_STABLE doca_error_t doca_buf_dec_refcount(struct doca_buf *buf, uint16_t *refcount);

/**
 * @brief Read the reference count (1 for a later element of a list, 0 for a free buf).
 * @param [in] buf        the buf.
 * @param [out] refcount  the count.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_get_refcount(const struct doca_buf *buf, uint16_t *refcount);

/**
 * @brief Read the length of the whole window.
 * @param [in] buf   the buf.
 * @param [out] len  bytes from head to the end of the window.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len);

/**
 * @brief Read the start of the window.
 * @param [in] buf    the buf.
 * @param [out] head  the start address.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head);

/**
 * @brief Read the length of the data.
 * @param [in] buf        the buf.
 * @param [out] data_len  bytes of data.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len);

/**
 * @brief Read the start of the data.
 * @param [in] buf    the buf.
 * @param [out] data  the data address.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data);

/**
 * @brief Move the data inside the window.
 * @param [in] buf       a buf in use.
 * @param [in] data      new data start; not NULL.
 * @param [in] data_len  new data length; [data, data + data_len) must lie in [head, head + len).
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL or outside the window),
 *         DOCA_ERROR_BAD_STATE (buf is free).
 */
DOCA_STABLE doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len);

/**
 * @brief Change the data length, keeping the data start.
 * @param [in] buf       a buf in use.
 * @param [in] data_len  new length; data + data_len must not pass the end of the window.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (buf is free).
 */
DOCA_STABLE doca_error_t doca_buf_set_data_len(struct doca_buf *buf, size_t data_len);

/**
 * @brief Empty the data (length 0), keeping the data start.
 * @param [in] buf  a buf in use.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL), DOCA_ERROR_BAD_STATE (buf is free).
 */
DOCA_STABLE doca_error_t doca_buf_reset_data_len(struct doca_buf *buf);

/**
 * @brief Step to the next buf of the list.
 * @param [in] buf        the buf.
 * @param [out] next_buf  the next buf, or NULL at the end of the list.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf);

/**
 * @brief Find the last buf of the list that starts at @p buf.
 * @param [in] buf        the buf.
 * @param [out] last_buf  the last buf (@p buf itself if nothing follows).
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf);

/**
 * @brief Tell whether nothing follows @p buf.
 * @param [in] buf       the buf.
 * @param [out] is_last  1 or 0.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_is_last_in_list(const struct doca_buf *buf, uint8_t *is_last);

/**
 * @brief Tell whether @p buf is a head (a lone buf is a head too).
 * @param [in] buf        the buf.
 * @param [out] is_first  1 or 0.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_is_first_in_list(const struct doca_buf *buf, uint8_t *is_first);

/**
 * @brief Tell whether @p buf belongs to a list of two or more bufs.
 * @param [in] buf          the buf.
 * @param [out] is_in_list  1 or 0.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_is_in_list(const struct doca_buf *buf, uint8_t *is_in_list);

/**
 * @brief Count the bufs of a list.
 * @param [in] buf            the head of the list.
 * @param [out] num_elements  the count (1 for a lone buf).
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL),
 *         DOCA_ERROR_NOT_PERMITTED (buf is not a head).
 */
DOCA_STABLE doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements);

/**
 * @brief Append list2 to the end of list1; list1's head then stands for both.
 * @param [in] list1  head of the first list, in use.
 * @param [in] list2  head of the second list, in use, reference count exactly 1.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL, or the same list twice),
 *         DOCA_ERROR_BAD_STATE (a buf is free),
 *         DOCA_ERROR_NOT_PERMITTED (not heads, or list2's count is not 1).
 */
DOCA_STABLE doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2);

/**
 * @brief doca_buf_chain_list for callers that already know list1's last buf.
 * @param [in] list1       head of the first list.
 * @param [in] list1_tail  the last buf of list1.
 * @param [in] list2       head of the second list, reference count exactly 1.
 * @return as doca_buf_chain_list; also DOCA_ERROR_INVALID_VALUE when list1_tail is
 *         not the last buf of list1.
 */
DOCA_STABLE doca_error_t doca_buf_chain_list_tail(struct doca_buf *list1, struct doca_buf *list1_tail,
						  struct doca_buf *list2);

/**
 * @brief Cut list1 before list2: list2 becomes the head of the bufs from it to
 * the end, with reference count 1.
 * @param [in] list1  head of the list.
 * @param [in] list2  a later buf of that same list.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL, equal, or list2 not in list1),
 *         DOCA_ERROR_NOT_PERMITTED (list1 is not a head).
 */
DOCA_STABLE doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_H_ */
