/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_mmap.h (DOCA 1.4 flavour) - memory a device may reach, in chunks.
 *
 * The order is DOCA 1.x's: create, set the limits (doca_mmap_property_set),
 * start, add devices, then populate one chunk per range of memory (several
 * per map, up to DOCA_MMAP_MAX_NUM_CHUNKS; chunks may not overlap). Bufs may
 * lie in any chunk. A host program exports a started map of one chunk as
 * NUL-terminated JSON text (doca_mmap_export; the caller frees it with free())
 * whose "addr" and "len" are the chunk's; the other side builds a map of that
 * memory from the text (doca_mmap_create_from_export).
 *
 * Rules (the call answers DOCA_ERROR_NOT_PERMITTED otherwise): limits only
 * before the first start; dev_add, dev_rm, populate and export only on a
 * started map that was not exported or made from an export; destroy only
 * when no buf points into the map.
 */
#ifndef DOCA_MMAP_H_
#define DOCA_MMAP_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_dev;
struct doca_mmap;

/** Called once per chunk when its map is destroyed, to give the memory back. */
typedef void(doca_mmap_memrange_free_cb_t)(void *addr, size_t len, void *opaque);

/** The limits of a map; each value is a uint32_t (@p size 4). */
enum doca_mmap_property {
	DOCA_MMAP_MAX_NUM_CHUNKS = 0,  /**< chunks doca_mmap_populate may add (default 16) */
	DOCA_MMAP_MAX_NUM_DEVICES = 1, /**< devices doca_mmap_dev_add may add (default 16) */
};

/** A new, stopped map; @p name is a label only (may be NULL, need not be unique). */
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_create(const char *name, struct doca_mmap **mmap)
	FERRY_LEGACY_SYMBOL(ferry_v14_mmap_create);
/** Refused while bufs point into the map; runs each chunk's free callback. */
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_destroy(struct doca_mmap *mmap) FERRY_LEGACY_SYMBOL(ferry_v14_mmap_destroy);
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_start(struct doca_mmap *mmap) FERRY_LEGACY_SYMBOL(ferry_v14_mmap_start);
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_stop(struct doca_mmap *mmap) FERRY_LEGACY_SYMBOL(ferry_v14_mmap_stop);
/** Set a limit (before the first start). */
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_property_set(struct doca_mmap *mmap, enum doca_mmap_property property,
							const uint8_t *value, size_t size);
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_property_get(struct doca_mmap *mmap, enum doca_mmap_property property,
							uint8_t *value, size_t size);
/** Add a device (after start); DOCA_ERROR_IN_USE when it is in already, NO_MEMORY beyond the limit. */
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_dev_add(struct doca_mmap *mmap, struct doca_dev *dev)
	FERRY_LEGACY_SYMBOL(ferry_v14_mmap_dev_add);
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_dev_rm(struct doca_mmap *mmap, struct doca_dev *dev)
	FERRY_LEGACY_SYMBOL(ferry_v14_mmap_dev_rm);
/**
 * Add the chunk @p addr..@p addr+@p len (after start). @p pg_sz is a power of
 * two, at least 4096; @p addr need not be aligned to it. @p free_cb (may be
 * NULL) runs with @p opaque when the map is destroyed.
 */
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_populate(struct doca_mmap *mmap, void *addr, size_t len, size_t pg_sz,
						    doca_mmap_memrange_free_cb_t *free_cb, void *opaque);
/**
 * Describe a started map of one chunk for @p dev's other side of PCI: JSON
 * text with its NUL, "addr" and "len" the chunk's. The caller frees
 * *@p export_desc with free(); @p export_desc_len counts the NUL.
 */
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_export(struct doca_mmap *mmap, const struct doca_dev *dev,
						  uint8_t **export_desc, size_t *export_desc_len);
/**
 * A started map of the memory doca_mmap_export described, reached through
 * @p dev: one chunk, which cannot be configured or exported again.
 */
__DOCA_EXPERIMENTAL doca_error_t doca_mmap_create_from_export(const char *name, const uint8_t *export_desc,
							      size_t export_desc_len, struct doca_dev *dev,
							      struct doca_mmap **mmap)
	FERRY_LEGACY_SYMBOL(ferry_v14_mmap_create_from_export);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
