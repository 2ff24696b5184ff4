/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_buf_inventory.h (DOCA 1.4 flavour) - a fixed pool of bufs.
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

/** Extensions an inventory's bufs may use; DOCA 1.4 has none. */
enum doca_buf_extension {
	DOCA_BUF_EXTENSION_NONE = 0,
};

/** An inventory of exactly @p num_elements bufs; @p name is a label only (may be NULL). */
__DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_create(const char *name, size_t num_elements, uint32_t extensions,
							   struct doca_buf_inventory **inventory)
	FERRY_LEGACY_SYMBOL(ferry_v14_buf_inventory_create);
/** Refused while bufs of the inventory are out; need not be stopped first. */
__DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory);
__DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory);
__DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory);
/**
 * A buf over addr..addr+len, which must lie inside one chunk of @p mmap, with
 * its data at addr and no data yet.
 */
__DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_buf_by_addr(struct doca_buf_inventory *inventory,
								struct doca_mmap *mmap, void *addr, size_t len,
								struct doca_buf **buf)
	FERRY_LEGACY_SYMBOL(ferry_v14_buf_inventory_buf_by_addr);
__DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_get_num_elements(struct doca_buf_inventory *inventory,
								     uint32_t *num_of_elements);
__DOCA_EXPERIMENTAL doca_error_t doca_buf_inventory_get_num_free_elements(struct doca_buf_inventory *inventory,
									  uint32_t *num_of_free_elements);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_INVENTORY_H_ */
