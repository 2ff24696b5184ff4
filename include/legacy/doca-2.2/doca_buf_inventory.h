/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_buf_inventory.h (DOCA 2.2 flavour) - a fixed pool of bufs.
 */
#ifndef DOCA_BUF_INVENTORY_H_
#define DOCA_BUF_INVENTORY_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_buf_inventory;
struct doca_mmap;

/** Extensions an inventory's bufs may use. */
enum doca_buf_extension {
	DOCA_BUF_EXTENSION_NONE = 0,
	DOCA_BUF_EXTENSION_LINKED_LIST = 1 << 0,
};

/** An inventory of exactly @p num_elements bufs; @p user_data may be NULL. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_create(const union doca_data *user_data, size_t num_elements,
							 uint32_t extensions, struct doca_buf_inventory **inventory)
	FERRY_LEGACY_SYMBOL(ferry_v22_buf_inventory_create);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory);
/** A buf over addr..addr+len with its data at addr and no data yet. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_buf_by_addr(struct doca_buf_inventory *inventory,
							      struct doca_mmap *mmap, void *addr, size_t len,
							      struct doca_buf **buf);
/** A buf over data..data+data_len, all of it data. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_buf_by_data(struct doca_buf_inventory *inventory,
							      struct doca_mmap *mmap, void *data, size_t data_len,
							      struct doca_buf **buf);
/** A buf over addr..addr+len with @p data_len bytes of data at @p data. */
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_buf_by_args(struct doca_buf_inventory *inventory,
							      struct doca_mmap *mmap, void *addr, size_t len,
							      void *data, size_t data_len, struct doca_buf **buf);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
							  const struct doca_buf *src, struct doca_buf **dst);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_get_num_elements(struct doca_buf_inventory *inventory,
								   uint32_t *num_of_elements);
DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_get_num_free_elements(struct doca_buf_inventory *inventory,
									uint32_t *num_of_free_elements);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_INVENTORY_H_ */
