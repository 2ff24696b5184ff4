/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_mmap.h - the memory map: one range of the program's memory, who may
 * access it (permissions) and through which devices.
 *
 * Ferry never copies or pins the memory: the mmap only describes the user's
 * range. Life of an mmap:
 *
 *   doca_mmap_create -> set_memrange (once) -> set_permissions / add_dev /
 *   set_user_data / set_free_cb / set_max_num_devices -> doca_mmap_start
 *   -> take bufs from inventories, export -> doca_mmap_stop (no bufs left)
 *   -> doca_mmap_destroy (implies stop; runs the free callback).
 *
 * Configuration calls need a stopped mmap. An mmap is used by one thread at a
 * time, except that bufs of one mmap may be taken and released from several
 * threads through different inventories.
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
struct doca_devinfo;

/** Opaque memory map. */
struct doca_mmap;

/**
 * Called once by doca_mmap_destroy to hand the range back to its owner
 * (e.g. to free it), if the mmap was started at least once.
 * @param [in] addr    start of the range given to doca_mmap_set_memrange.
 * @param [in] len     its length in bytes.
 * @param [in] cookie  the opaque value given to doca_mmap_set_free_cb.
 */
typedef void(doca_mmap_memrange_free_cb_t)(void *addr, size_t len, void *cookie);

/**
 * @brief Create an empty, stopped memory map.
 *
 * Defaults: no range, permissions DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, no devices,
 * room for 16 devices (see doca_mmap_set_max_num_devices).
 * @param [out] mmap  the new map.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL), DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_mmap_create(struct doca_mmap **mmap);

/**
 * @brief Destroy a memory map, stopping it first if needed.
 *
 * Every buf taken from the map must have been released. Drops the map's
 * references on its devices and, if the map was ever started and a free
 * callback is set, calls it once with the range.
 * @param [in] mmap  the map.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL),
 *         DOCA_ERROR_NOT_PERMITTED (bufs still point into the map; nothing is freed).
 */
DOCA_STABLE doca_error_t doca_mmap_destroy(struct doca_mmap *mmap);

/**
 * @brief Finish configuration; bufs may be taken and the map exported afterwards.
 * @param [in] mmap  the map; its memory range must be set.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL, or no memory range),
 *         DOCA_ERROR_BAD_STATE (already started),
 *         DOCA_ERROR_NOT_PERMITTED (map created from an export).
 */
DOCA_STABLE doca_error_t doca_mmap_start(struct doca_mmap *mmap);

/**
 * @brief Return a started map to configuration mode.
 * @param [in] mmap  the map.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL), DOCA_ERROR_BAD_STATE (not started),
 *         DOCA_ERROR_NOT_PERMITTED (bufs still point into the map, or the map was
 *         created from an export: destroy such a map instead).
 */
DOCA_STABLE doca_error_t doca_mmap_stop(struct doca_mmap *mmap);

/**
 * @brief Let @p dev access the map's memory. The map holds a reference on the
 * device until doca_mmap_rm_dev or destroy (doca_dev_close answers IN_USE meanwhile).
 * @param [in] mmap  a stopped map.
 * @param [in] dev   an open device.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL),
 *         DOCA_ERROR_NOT_PERMITTED (map started or created from an export),
 *         DOCA_ERROR_ALREADY_EXIST (device already added),
 *         DOCA_ERROR_NO_MEMORY (the map already holds its maximum number of devices).
 */
DOCA_STABLE doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/**
 * @brief Undo doca_mmap_add_dev.
 * @param [in] mmap  a stopped map.
 * @param [in] dev   a device added before.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL),
 *         DOCA_ERROR_NOT_PERMITTED (map started or created from an export),
 *         DOCA_ERROR_NOT_FOUND (device not in the map).
 */
DOCA_STABLE doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev);

/**
 * @brief Describe a started map so that a process on the other side of the PCIe
 * link can create a map of the same memory (doca_mmap_create_from_export).
 * @param [in] mmap              a started map with a PCI permission.
 * @param [in] dev               a device added to the map.
 * @param [out] export_desc      the descriptor, owned by the map (valid until stop);
 *                               send it to the importer by any channel.
 * @param [out] export_desc_len  its length in bytes.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL), DOCA_ERROR_NOT_FOUND
 *         (@p dev not added to the map), DOCA_ERROR_NOT_PERMITTED (map not started,
 *         no PCI permission, or the map was itself created from an export).
 * @note Exporting again returns the same descriptor. Stopping or destroying the
 *       map revokes it: importers' tasks fail and new imports are refused. In
 *       Ferry, another process can import memory from ferry_mem_alloc_shared
 *       (ferry_mem.h); see docs/remote-memory.md.
 */
DOCA_STABLE doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev,
					      const void **export_desc, size_t *export_desc_len);

/**
 * @brief Like doca_mmap_export_pci, for RDMA peers.
 * @param [in] mmap              a started map with an RDMA permission.
 * @param [in] dev               a device added to the map.
 * @param [out] export_desc      the descriptor, owned by the map.
 * @param [out] export_desc_len  its length in bytes.
 * @return DOCA_ERROR_INVALID_VALUE (NULL) or DOCA_ERROR_NOT_SUPPORTED (not in this build).
 */
DOCA_STABLE doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev,
					       const void **export_desc, size_t *export_desc_len);

/**
 * @brief Create a map of memory another process exported.
 * @param [in] user_data        if not NULL, becomes the new map's user data.
 * @param [in] export_desc      descriptor from doca_mmap_export_pci/_rdma.
 * @param [in] export_desc_len  its length in bytes.
 * @param [in] dev              a local device linked to the exporter's device.
 * @param [out] mmap            the new, already usable map; its range is the
 *                              exporter's addresses of the memory.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL, garbage, truncated or
 *         corrupt descriptor, device on another DPU); DOCA_ERROR_UNSUPPORTED_VERSION;
 *         DOCA_ERROR_NOT_PERMITTED (another user's export, wrong secret);
 *         DOCA_ERROR_NOT_FOUND (exporter gone, another boot, export revoked);
 *         DOCA_ERROR_NOT_SUPPORTED (the exporter's memory is not shareable);
 *         DOCA_ERROR_NO_MEMORY.
 * @note The map stays valid while the exporter keeps its map started and its
 *       process alive; afterwards tasks on it fail. Destroy it as usual.
 */
DOCA_STABLE doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
						      size_t export_desc_len, struct doca_dev *dev,
						      struct doca_mmap **mmap);

/**
 * @brief Set the memory range the map describes. Allowed once per map.
 * @param [in] mmap  a stopped map.
 * @param [in] addr  start of the range; not NULL.
 * @param [in] len   length in bytes; not 0, and addr + len must not wrap.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (started),
 *         DOCA_ERROR_NOT_PERMITTED (range already set, or map created from an export).
 */
DOCA_STABLE doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len);

/**
 * @brief Set the range from a dmabuf file descriptor.
 * @param [in] mmap           a stopped map.
 * @param [in] dmabuf_fd      the dmabuf.
 * @param [in] addr           start of the range.
 * @param [in] dmabuf_offset  offset of the range in the dmabuf.
 * @param [in] len            length in bytes.
 * @return DOCA_ERROR_INVALID_VALUE (NULL map) or DOCA_ERROR_NOT_SUPPORTED: Ferry has no dmabuf support.
 */
DOCA_STABLE doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr,
						       size_t dmabuf_offset, size_t len);

/**
 * @brief Read the range back.
 * @param [in] mmap   the map.
 * @param [out] addr  start of the range.
 * @param [out] len   length in bytes.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL), DOCA_ERROR_BAD_STATE (no range set).
 */
DOCA_STABLE doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len);

/**
 * @brief Set the callback doca_mmap_destroy uses to release the range.
 * @param [in] mmap     a stopped map.
 * @param [in] free_cb  the callback; NULL removes it.
 * @param [in] opaque   passed to the callback as its cookie.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL map), DOCA_ERROR_BAD_STATE (started,
 *         or created from an export).
 */
DOCA_STABLE doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb,
					       void *opaque);

/**
 * @brief Set the map's user data.
 * @param [in] mmap       a stopped map.
 * @param [in] user_data  any value.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL), DOCA_ERROR_BAD_STATE (started,
 *         or created from an export).
 */
DOCA_STABLE doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data);

/**
 * @brief Let several threads take and release bufs of this mmap at once. Called
 * on a new mmap before doca_mmap_start, or on one fresh from
 * doca_mmap_create_from_export.
 * @note Ferry: an mmap's shared state (its buf count, its validity) is atomic
 *       already, so this records the request; inventories stay one per thread,
 *       as in DOCA.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (NULL); DOCA_ERROR_NOT_PERMITTED
 *         (a started mmap of this process's own memory, or bufs already taken from it).
 */
DOCA_STABLE doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap);

/**
 * @brief Read the map's user data (zero if never set).
 * @param [in] mmap        the map.
 * @param [out] user_data  the value.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data);

/**
 * @brief Set how many devices the map may hold.
 * @param [in] mmap             a map never started.
 * @param [in] max_num_devices  at least 1 and at least the number already added.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_NOT_PERMITTED (map was started before).
 */
DOCA_STABLE doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices);

/**
 * @brief Read how many devices the map may hold.
 * @param [in] mmap              the map.
 * @param [out] max_num_devices  the limit.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices);

/**
 * @brief Set the access mask (bits of enum doca_access_flag).
 * @param [in] mmap         a stopped map.
 * @param [in] access_mask  known bits only; RDMA write or atomic access needs LOCAL_READ_WRITE too.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE, DOCA_ERROR_BAD_STATE (started, or
 *         created from an export).
 */
DOCA_STABLE doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask);

/**
 * @brief Count the bufs that currently point into the map.
 * @param [in] mmap       the map.
 * @param [out] num_bufs  the count.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs);

/**
 * @brief Tell whether the map has been exported.
 * @param [in] mmap       the map.
 * @param [out] exported  1 or 0.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported);

/**
 * @brief Tell whether the map was created from an export.
 * @param [in] mmap          the map.
 * @param [out] from_export  1 or 0.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export);

/**
 * @brief Can @p devinfo export a map over PCI (doca_mmap_export_pci)?
 * @param [in] devinfo       the device.
 * @param [out] mmap_export  1 or 0; 0 means doca_mmap_export_pci answers DOCA_ERROR_NOT_SUPPORTED.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo,
							       uint8_t *mmap_export);

/**
 * @brief Can @p devinfo create a map from a PCI export (doca_mmap_create_from_export)?
 * @param [in] devinfo       the device.
 * @param [out] from_export  1 or 0.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (NULL).
 */
DOCA_STABLE doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo,
									   uint8_t *from_export);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_MMAP_H_ */
