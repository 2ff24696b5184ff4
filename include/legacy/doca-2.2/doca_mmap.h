/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_mmap.h (DOCA 2.2 flavour) - memory a device may reach.
 *
 * Create, add devices, set one range and its permissions (any order), start.
 * A host program grants the DPU side access (DOCA_ACCESS_DPU_READ_ONLY or
 * _READ_WRITE) and exports the map (doca_mmap_export_dpu); the DPU program
 * builds a map of that memory from the descriptor
 * (doca_mmap_create_from_export). The descriptor belongs to the map.
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

/** Called once per range when its map is destroyed, to give the memory back. */
typedef void(doca_mmap_memrange_free_cb_t)(void *addr, size_t len, void *opaque);

/** A new, stopped map; @p user_data (may be NULL) is kept for doca_mmap_get_user_data. */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_create(const union doca_data *user_data, struct doca_mmap **mmap)
	FERRY_LEGACY_SYMBOL(ferry_v22_mmap_create);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_start(struct doca_mmap *mmap);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_stop(struct doca_mmap *mmap);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_dev_add(struct doca_mmap *mmap, struct doca_dev *dev);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_dev_rm(struct doca_mmap *mmap, struct doca_dev *dev);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb,
						     void *opaque);
/** @p access_mask: enum doca_access_flags bits. */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_get_max_num_devices(struct doca_mmap *mmap, uint32_t *max_num_devices);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_get_user_data(struct doca_mmap *mmap, union doca_data *user_data);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_get_num_bufs(struct doca_mmap *mmap, uint32_t *num_bufs);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_get_exported(struct doca_mmap *mmap, uint8_t *exported);
DOCA_EXPERIMENTAL doca_error_t doca_mmap_get_from_export(struct doca_mmap *mmap, uint8_t *from_export);

/** Descriptor of a started map for the other side of PCI; owned by the map. */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_export_dpu(struct doca_mmap *mmap, const struct doca_dev *dev,
						    const void **export_desc, size_t *export_desc_len);
/** Descriptor of a started map for an RDMA peer; owned by the map. */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev,
						     const void **export_desc, size_t *export_desc_len);
/** A started map of the memory an export describes, reached through @p dev. */
DOCA_EXPERIMENTAL doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
							    size_t export_desc_len, struct doca_dev *dev,
							    struct doca_mmap **mmap);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
