/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_buf.h (DOCA 1.4 flavour) - a window on a chunk of an mmap: head and
 * length of the region, data and data length inside it.
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

/** DOCA 1.x bufs have one holder: always DOCA_ERROR_NOT_SUPPORTED. */
__DOCA_EXPERIMENTAL doca_error_t doca_buf_refcount_add(struct doca_buf *buf, uint16_t *refcount)
	FERRY_LEGACY_SYMBOL(ferry_v14_buf_refcount_add);
/** Drop a reference (@p refcount may be NULL); at zero the buf goes back to its inventory. */
__DOCA_EXPERIMENTAL doca_error_t doca_buf_refcount_rm(struct doca_buf *buf, uint16_t *refcount);
__DOCA_EXPERIMENTAL doca_error_t doca_buf_get_refcount(struct doca_buf *buf, uint16_t *refcount);
__DOCA_EXPERIMENTAL doca_error_t doca_buf_get_len(const struct doca_buf *buf, size_t *len);
__DOCA_EXPERIMENTAL doca_error_t doca_buf_get_head(const struct doca_buf *buf, void **head);
__DOCA_EXPERIMENTAL doca_error_t doca_buf_get_data(const struct doca_buf *buf, void **data);
__DOCA_EXPERIMENTAL doca_error_t doca_buf_get_data_len(const struct doca_buf *buf, size_t *data_len);
/** The data window: @p data_len bytes from @p data, inside head..head+len. */
__DOCA_EXPERIMENTAL doca_error_t doca_buf_set_data(struct doca_buf *buf, void *data, size_t data_len);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_H_ */
