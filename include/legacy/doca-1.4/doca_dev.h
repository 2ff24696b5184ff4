/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dev.h (DOCA 1.4 flavour) - devices and their remote functions.
 *
 * A program lists the devices (doca_devinfo_list_create), reads each one's
 * PCI address with doca_devinfo_property_get(DOCA_DEVINFO_PROPERTY_PCI_ADDR)
 * into a struct doca_pci_bdf, compares raw values with the address it wants,
 * opens the match and frees the list. A DPU-side program finds the host's
 * functions ("remote" devices, later called representors) the same way from
 * its local device.
 */
#ifndef DOCA_DEV_H_
#define DOCA_DEV_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_devinfo;
struct doca_dev;
struct doca_devinfo_remote;
struct doca_dev_remote;

/** What doca_devinfo_property_get reads, and the buffer size each takes. */
enum doca_devinfo_property {
	DOCA_DEVINFO_PROPERTY_VUID = 0,       /**< 128 bytes; Ferry's devices have none (NOT_SUPPORTED) */
	DOCA_DEVINFO_PROPERTY_PCI_ADDR = 1,   /**< sizeof(struct doca_pci_bdf) */
	DOCA_DEVINFO_PROPERTY_IPV4_ADDR = 2,  /**< 4 bytes */
	DOCA_DEVINFO_PROPERTY_IPV6_ADDR = 3,  /**< 16 bytes */
	DOCA_DEVINFO_PROPERTY_IFACE_NAME = 4, /**< 256 bytes, NUL-terminated */
	DOCA_DEVINFO_PROPERTY_IBDEV_NAME = 5, /**< 64 bytes, NUL-terminated */
};

/** Which remote functions doca_devinfo_remote_list_create returns (bits may be or-ed; 0 means all). */
enum doca_dev_remote_filter {
	DOCA_DEV_REMOTE_FILTER_ALL = 0,
	DOCA_DEV_REMOTE_FILTER_NET = 1 << 1,
	DOCA_DEV_REMOTE_FILTER_VIRTIO_FS = 1 << 2,
	DOCA_DEV_REMOTE_FILTER_VIRTIO_NET = 1 << 3,
	DOCA_DEV_REMOTE_FILTER_VIRTIO_BLK = 1 << 4,
	DOCA_DEV_REMOTE_FILTER_NVME = 1 << 5,
};

/** What doca_devinfo_remote_property_get reads. */
enum doca_devinfo_remote_property {
	DOCA_DEVINFO_REMOTE_PROPERTY_VUID = 0,          /**< 128 bytes, NUL-padded */
	DOCA_DEVINFO_REMOTE_PROPERTY_PCI_ADDR = 1,      /**< sizeof(struct doca_pci_bdf) */
	DOCA_DEVINFO_REMOTE_PROPERTY_PCI_FUNC_TYPE = 2, /**< sizeof(enum doca_pci_func_type) */
};

/** Every device of the machine; free with doca_devinfo_list_destroy. */
__DOCA_EXPERIMENTAL doca_error_t doca_devinfo_list_create(struct doca_devinfo ***dev_list, uint32_t *nb_devs);
__DOCA_EXPERIMENTAL doca_error_t doca_devinfo_list_destroy(struct doca_devinfo **dev_list);

/**
 * Copy one property of a device into @p value (@p size bytes, at least the
 * property's own size; the rest is zeroed). Strings are NUL-terminated.
 */
__DOCA_EXPERIMENTAL doca_error_t doca_devinfo_property_get(const struct doca_devinfo *devinfo,
							   enum doca_devinfo_property property, uint8_t *value,
							   uint32_t size);

/** Open a device; opening it twice hands back the same one. */
__DOCA_EXPERIMENTAL doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);
__DOCA_EXPERIMENTAL doca_error_t doca_dev_close(struct doca_dev *dev);
__DOCA_EXPERIMENTAL struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);

/** The remote functions @p local (a DPU-side device) manages; free with doca_devinfo_remote_list_destroy. */
__DOCA_EXPERIMENTAL doca_error_t doca_devinfo_remote_list_create(struct doca_dev *local,
								 enum doca_dev_remote_filter filter,
								 struct doca_devinfo_remote ***dev_list_remote,
								 uint32_t *nb_devs_remote);
__DOCA_EXPERIMENTAL doca_error_t doca_devinfo_remote_list_destroy(struct doca_devinfo_remote **dev_list_remote);
/** As doca_devinfo_property_get, for a remote function. */
__DOCA_EXPERIMENTAL doca_error_t doca_devinfo_remote_property_get(const struct doca_devinfo_remote *devinfo_remote,
								  enum doca_devinfo_remote_property property,
								  uint8_t *value, uint32_t size);
__DOCA_EXPERIMENTAL doca_error_t doca_dev_remote_open(struct doca_devinfo_remote *devinfo_remote,
						      struct doca_dev_remote **dev_remote);
__DOCA_EXPERIMENTAL doca_error_t doca_dev_remote_close(struct doca_dev_remote *dev_remote);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */
