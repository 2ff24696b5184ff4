/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_buf.h (DOCA 2.2 flavour) - a window on an mmap: head and length of
 * the region, data and data length inside it.
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

struct doca_buf;

/** Take one more reference. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_refcount_add(struct doca_buf *buf, uint16_t *refcount);
/** Drop a reference (@p refcount may be NULL); at zero the buf goes back to its inventory. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_refcount_rm(struct doca_buf *buf, uint16_t *refcount);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_refcount(struct doca_buf *buf, uint16_t *refcount);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len);
/** The data window: @p data_len bytes from @p data, inside head..head+len. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len);
DOCA_EXPERIMENTAL doca_error_t doca_buf_reset_data_len(struct doca_buf *buf);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_next_in_list(struct doca_buf *buf, struct doca_buf **next_buf);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_last_in_list(struct doca_buf *buf, struct doca_buf **last_buf);
DOCA_EXPERIMENTAL doca_error_t doca_buf_get_list_len(const struct doca_buf *buf, uint32_t *num_elements);
DOCA_EXPERIMENTAL doca_error_t doca_buf_chain_list(struct doca_buf *list1, struct doca_buf *list2);
DOCA_EXPERIMENTAL doca_error_t doca_buf_unchain_list(struct doca_buf *list1, struct doca_buf *list2);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_H_ */
