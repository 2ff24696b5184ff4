/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dev.h (DOCA 2.2 flavour) - devices and representors.
 *
 * A program lists the devices (doca_devinfo_list_create), picks one by PCI
 * address (doca_devinfo_get_is_pci_addr_equal takes "bb:dd.f" or
 * "dddd:bb:dd.f"), opens it and frees the list. A DPU-side program lists the
 * representors of its device the same way.
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
struct doca_devinfo_rep;
struct doca_dev;
struct doca_dev_rep;

#define DOCA_DEVINFO_VUID_SIZE         128
#define DOCA_DEVINFO_IPV4_ADDR_SIZE    4
#define DOCA_DEVINFO_IPV6_ADDR_SIZE    16
#define DOCA_DEVINFO_IFACE_NAME_SIZE   256
#define DOCA_DEVINFO_IBDEV_NAME_SIZE   64
#define DOCA_DEVINFO_PCI_ADDR_SIZE     13
#define DOCA_DEVINFO_REP_VUID_SIZE     128
#define DOCA_DEVINFO_REP_PCI_ADDR_SIZE 13

/** Which representors doca_devinfo_rep_list_create returns (bits may be or-ed; 0 means all). */
enum doca_dev_rep_filter {
	DOCA_DEV_REP_FILTER_ALL = 0,
	DOCA_DEV_REP_FILTER_NET = 1 << 1,
	DOCA_DEV_REP_FILTER_VIRTIO_FS = 1 << 2,
	DOCA_DEV_REP_FILTER_VIRTIO_NET = 1 << 3,
	DOCA_DEV_REP_FILTER_VIRTIO_BLK = 1 << 4,
	DOCA_DEV_REP_FILTER_NVME = 1 << 5,
};

/** Every device of the machine; free with doca_devinfo_list_destroy. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_list_create(struct doca_devinfo ***dev_list, uint32_t *nb_devs);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_list_destroy(struct doca_devinfo **dev_list);

/** Open a device; opening it twice hands back the same one. */
DOCA_EXPERIMENTAL doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);
DOCA_EXPERIMENTAL doca_error_t doca_dev_close(struct doca_dev *dev);
DOCA_EXPERIMENTAL struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);

/** Whether the device sits at @p pci_addr ("03:00.0" or "0000:03:00.0"); 1 or 0 in @p is_equal. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_is_pci_addr_equal(const struct doca_devinfo *devinfo,
								  const char *pci_addr, uint8_t *is_equal);
/** The device's PCI address as "dddd:bb:dd.f" into DOCA_DEVINFO_PCI_ADDR_SIZE bytes. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr,
							  uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr,
							  uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
							   uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
							   uint32_t size);

/** The representors of @p dev that @p filter selects; free with doca_devinfo_rep_list_destroy. */
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_list_create(struct doca_dev *dev, int filter,
							    struct doca_devinfo_rep ***dev_list_rep,
							    uint32_t *nb_devs_rep);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_list_destroy(struct doca_devinfo_rep **dev_list_rep);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
							 uint32_t size);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
								 char *pci_addr_str);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_is_pci_addr_equal(const struct doca_devinfo_rep *devinfo_rep,
								      const char *pci_addr, uint8_t *is_equal);
DOCA_EXPERIMENTAL doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
								  enum doca_pci_func_type *pci_func_type);
DOCA_EXPERIMENTAL doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo_rep, struct doca_dev_rep **dev_rep);
DOCA_EXPERIMENTAL doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev_rep);
DOCA_EXPERIMENTAL struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */
