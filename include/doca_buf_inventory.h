/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_buf_inventory.h - a fixed pool of doca_buf descriptors.
 *
 * The inventory allocates all its descriptors when it is first started; taking
 * a buf and giving it back (doca_buf_dec_refcount) are O(1) and allocate
 * nothing. A buf may point into any started mmap; the inventory only owns the
 * descriptor, never the memory.
 *
 * Call order: doca_buf_inventory_create -> (set_user_data) -> start ->
 * buf_get_by_* / buf_dup ... doca_buf_dec_refcount -> stop -> destroy
 * (destroy implies stop and needs every buf back).
 *
 * Threading: an inventory is used by one thread at a time.
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
struct doca_mmap;

/** Opaque pool of buffer descriptors. */
struct doca_buf_inventory;

/**
 * @brief Create a stopped inventory of @p num_elements descriptors.
 * @param [in] num_elements  1 .. UINT32_MAX.
 * @param [out] inventory    the new inventory.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_create(size_t num_elements, struct doca_buf_inventory **inventory);

/**
 * @brief Destroy an inventory, stopping it first if needed.
 * @param [in] inventory  the inventory; every buf taken from it must be back.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL),
 *         DOCA_ERROR_IN_USE (bufs still out; nothing is freed).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_destroy(struct doca_buf_inventory *inventory);

/**
 * @brief Allow taking bufs. The first start allocates every descriptor.
 * @param [in] inventory  a stopped inventory.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL), DOCA_ERROR_BAD_STATE (already started),
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_buf_inventory_start(struct doca_buf_inventory *inventory);

/**
 * @brief Refuse further takes. Bufs already out stay valid and may still be released.
 * @param [in] inventory  a started inventory.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL), DOCA_ERROR_BAD_STATE (not started).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_stop(struct doca_buf_inventory *inventory);

/**
 * @brief Take a buf with window [addr, addr + len) and data [data, data + data_len).
 * @param [in] inventory  a started inventory.
 * @param [in] mmap       a started mmap whose range holds the window.
 * @param [in] addr       window start.
 * @param [in] len        window length.
 * @param [in] data       data start, inside the window.
 * @param [in] data_len   data length; the data must end inside the window.
 * @param [out] buf       the buf, reference count 1.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL, window outside the mmap,
 *         data outside the window), DOCA_ERROR_BAD_STATE (inventory or mmap not started),
 *         DOCA_ERROR_NO_MEMORY (no free descriptor).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_get_by_args(struct doca_buf_inventory *inventory,
							    struct doca_mmap *mmap, void *addr, size_t len, void *data,
							    size_t data_len, struct doca_buf **buf);

/**
 * @brief Take a buf for an empty window [addr, addr + len): data = addr, data_len = 0
 * (the usual destination buffer).
 * @param [in] inventory  a started inventory.
 * @param [in] mmap       a started mmap whose range holds the window.
 * @param [in] addr       window start.
 * @param [in] len        window length.
 * @param [out] buf       the buf.
 * @return as doca_buf_inventory_buf_get_by_args.
 */
static inline doca_error_t doca_buf_inventory_buf_get_by_addr(struct doca_buf_inventory *inventory,
							      struct doca_mmap *mmap, void *addr, size_t len,
							      struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, addr, len, addr, 0, buf);
}

/**
 * @brief Take a buf whose window is full of data: head = data, len = data_len
 * (the usual source buffer).
 * @param [in] inventory  a started inventory.
 * @param [in] mmap       a started mmap whose range holds the data.
 * @param [in] data       data start.
 * @param [in] data_len   data length.
 * @param [out] buf       the buf.
 * @return as doca_buf_inventory_buf_get_by_args.
 */
static inline doca_error_t doca_buf_inventory_buf_get_by_data(struct doca_buf_inventory *inventory,
							      struct doca_mmap *mmap, void *data, size_t data_len,
							      struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, data, data_len, data, data_len, buf);
}

/**
 * @brief Copy a buf descriptor (not the memory it points to) into new bufs from
 * @p inventory. A list is copied whole, into a new list of the same shape.
 * @param [in] inventory  a started inventory.
 * @param [in] src_buf    the head of a list (or a lone buf) in use; its mmaps must be started.
 * @param [out] dst_buf   head of the copy, reference count 1.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL),
 *         DOCA_ERROR_BAD_STATE (inventory or an mmap not started, src_buf free),
 *         DOCA_ERROR_NOT_PERMITTED (src_buf is not a head),
 *         DOCA_ERROR_NO_MEMORY (fewer free descriptors than bufs to copy; nothing is taken).
 */
/**
 * @brief Aim a buf the caller holds at another buffer of the same mmap, @p len
 * bytes from @p addr, with no data (data = addr, data_len 0), without giving it
 * back to its inventory: the hot path of programs that reuse their bufs.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL buf, or a range outside the
 *         buf's mmap); DOCA_ERROR_BAD_STATE (the buf is free, or its mmap stopped);
 *         DOCA_ERROR_NOT_PERMITTED (the buf is part of a list, or has other holders).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_reuse_by_addr(struct doca_buf *buf, void *addr, size_t len);

/**
 * @brief As doca_buf_inventory_buf_reuse_by_addr, the buffer being exactly the
 * data: @p data_len bytes from @p data (head = data, len = data_len).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_buf_reuse_by_data(struct doca_buf *buf, void *data, size_t data_len);

DOCA_STABLE doca_error_t doca_buf_inventory_buf_dup(struct doca_buf_inventory *inventory,
						    const struct doca_buf *src_buf, struct doca_buf **dst_buf);

/**
 * @brief Set the inventory's user data.
 * @param [in] inventory  an inventory never started.
 * @param [in] user_data  any value.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL), DOCA_ERROR_BAD_STATE (started before).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_set_user_data(struct doca_buf_inventory *inventory,
							  union doca_data user_data);

/**
 * @brief Read the inventory's user data (zero if never set).
 * @param [in] inventory   the inventory.
 * @param [out] user_data  the value.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_get_user_data(const struct doca_buf_inventory *inventory,
							  union doca_data *user_data);

/**
 * @brief Read the number of descriptors.
 * @param [in] inventory         the inventory.
 * @param [out] num_of_elements  the number given to doca_buf_inventory_create.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_elements(const struct doca_buf_inventory *inventory,
							     uint32_t *num_of_elements);

/**
 * @brief Read the number of descriptors not currently taken.
 * @param [in] inventory              the inventory.
 * @param [out] num_of_free_elements  the count.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_buf_inventory_get_num_free_elements(const struct doca_buf_inventory *inventory,
								  uint32_t *num_of_free_elements);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_BUF_INVENTORY_H_ */
