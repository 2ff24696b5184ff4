/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dev.h - devices: discovery, open/close, properties, representors.
 *
 * A program lists the devices (doca_devinfo_create_list), picks one by PCI
 * address, interface or IB name, opens it (doca_dev_open) and hands the open
 * device to mmaps and contexts. A DPU-side device also lists representors
 * (doca_devinfo_rep_create_list): stand-ins for host-side functions.
 *
 * Ferry emulates the devices. The default machine has one DPU: a host-side PF
 * at b1:00.0 and a DPU-side PF at 03:00.0 whose representor stands for the host
 * PF. Every process sees all of them; the device a program opens decides which
 * side of the emulated PCIe link it is on. See docs/topology.md.
 *
 * Thread safety: every call here may be made from any thread.
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

/** Description of a local device, taken from a device list. */
struct doca_devinfo;
/** Description of a representor, taken from a representor list. */
struct doca_devinfo_rep;
/** An open local device. */
struct doca_dev;
/** An open representor. */
struct doca_dev_rep;

/** Which representors doca_devinfo_rep_create_list returns (bits may be or-ed). */
enum doca_devinfo_rep_filter {
	DOCA_DEVINFO_REP_FILTER_ALL = 0,
	DOCA_DEVINFO_REP_FILTER_NET = 1 << 1,
	DOCA_DEVINFO_REP_FILTER_EMULATED = 1 << 2,
};

/** Bytes for a vendor unique id, with its terminating NUL. */
#define DOCA_DEVINFO_VUID_SIZE       128
/** Bytes of an IPv4 address. */
#define DOCA_DEVINFO_IPV4_ADDR_SIZE  4
/** Bytes of an IPv6 address. */
#define DOCA_DEVINFO_IPV6_ADDR_SIZE  16
/** Bytes of a MAC address. */
#define DOCA_DEVINFO_MAC_ADDR_SIZE   6
/** Bytes for a network interface name, with its terminating NUL. */
#define DOCA_DEVINFO_IFACE_NAME_SIZE 256
/** Bytes for an InfiniBand/RoCE device name, with its terminating NUL. */
#define DOCA_DEVINFO_IBDEV_NAME_SIZE 64
/** Bytes for "dddd:bb:dd.f", with its terminating NUL. */
#define DOCA_DEVINFO_PCI_ADDR_SIZE   13
/** Bytes for "bb:dd.f", with its terminating NUL. */
#define DOCA_DEVINFO_PCI_BDF_SIZE    8

/** Bytes for a representor's vendor unique id, with its terminating NUL. */
#define DOCA_DEVINFO_REP_VUID_SIZE     128
/** Bytes for a representor's "dddd:bb:dd.f", with its terminating NUL. */
#define DOCA_DEVINFO_REP_PCI_ADDR_SIZE 13
/** Bytes for a representor's "bb:dd.f", with its terminating NUL. */
#define DOCA_DEVINFO_REP_PCI_BDF_SIZE  8

/*
 * Lists and handles
 */

/**
 * @brief List every local device this process can see.
 * @param [out] dev_list  receives an array of *nb_devs device infos; free it with
 *                        doca_devinfo_destroy_list.
 * @param [out] nb_devs   receives the number of entries.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 *         DOCA_ERROR_NO_MEMORY; DOCA_ERROR_INITIALIZATION when the topology file is bad.
 * @note The entries stay valid while the list lives, and an entry opened with
 *       doca_dev_open stays valid while the device is open.
 */
DOCA_STABLE doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs);

/**
 * @brief Free a list made by doca_devinfo_create_list. Open devices stay open.
 * @param [in] dev_list  the list.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a pointer that is not a live list.
 */
DOCA_STABLE doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list);

/**
 * @brief List the representors an open DPU-side device manages.
 * @param [in] dev            an open device.
 * @param [in] filter         enum doca_devinfo_rep_filter bits; 0 means all.
 * @param [out] dev_list_rep  receives the array; free with doca_devinfo_rep_destroy_list.
 * @param [out] nb_devs_rep   receives the number of entries (may be 0).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or unknown filter bits;
 *         DOCA_ERROR_NOT_SUPPORTED when @p dev has no representors (a host-side device);
 *         DOCA_ERROR_NO_MEMORY.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter,
						      struct doca_devinfo_rep ***dev_list_rep, uint32_t *nb_devs_rep);

/**
 * @brief Free a list made by doca_devinfo_rep_create_list. Open representors stay open.
 * @param [in] dev_list_rep  the list.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a pointer that is not a live list.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep);

/**
 * @brief Open a device, or count one more open of an already open device.
 * @param [in] devinfo  an entry of a device list.
 * @param [out] dev     receives the open device (the same handle on every open).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or unknown argument.
 * @note Each successful open needs one doca_dev_close.
 */
DOCA_STABLE doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev);

/**
 * @brief Undo one doca_dev_open. The last close releases the device.
 * @param [in] dev  an open device, or NULL (nothing to do, DOCA_SUCCESS).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a device that is not open;
 *         DOCA_ERROR_IN_USE when this is the last open and an mmap or context still uses it.
 */
DOCA_STABLE doca_error_t doca_dev_close(struct doca_dev *dev);

/**
 * @brief Open a representor, or count one more open of an open one.
 * @param [in] devinfo  an entry of a representor list.
 * @param [out] dev_rep receives the open representor.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL or unknown argument.
 */
DOCA_STABLE doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep);

/**
 * @brief Undo one doca_dev_rep_open.
 * @param [in] dev  an open representor.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a representor that is not open;
 *         DOCA_ERROR_IN_USE when this is the last open and a context still uses it.
 */
DOCA_STABLE doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev);

/**
 * @brief The device info of an open device; valid while the device is open.
 * @param [in] dev  an open device.
 * @return the device info, or NULL when @p dev is NULL or not open.
 */
DOCA_STABLE struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev);

/**
 * @brief The representor info of an open representor.
 * @param [in] dev_rep  an open representor.
 * @return the representor info, or NULL when @p dev_rep is NULL or not open.
 */
DOCA_STABLE struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep);

/*
 * Local device properties
 */

/**
 * @brief The device's PCI address as "dddd:bb:dd.f" (lower-case hex).
 * @param [in] devinfo        the device.
 * @param [out] pci_addr_str  at least DOCA_DEVINFO_PCI_ADDR_SIZE bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str);

/**
 * @brief Whether a PCI address names this device.
 * @param [in] devinfo       the device.
 * @param [in] pci_addr_str  "dddd:bb:dd.f" or "bb:dd.f" (hex, either case); the
 *                           short form means domain 0000.
 * @param [out] is_equal     1 when it names the device, else 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a malformed address.
 */
DOCA_STABLE doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo, const char *pci_addr_str,
							uint8_t *is_equal);

/**
 * @brief The IPv4 address of the device's port.
 * @param [in] devinfo     the device.
 * @param [out] ipv4_addr  receives DOCA_DEVINFO_IPV4_ADDR_SIZE bytes.
 * @param [in] size        bytes at @p ipv4_addr; at least DOCA_DEVINFO_IPV4_ADDR_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a short buffer;
 *         DOCA_ERROR_NOT_FOUND: emulated ports carry no IP address.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr,
						    uint32_t size);

/**
 * @brief The IPv6 address of the device's port.
 * @param [in] devinfo     the device.
 * @param [out] ipv6_addr  receives DOCA_DEVINFO_IPV6_ADDR_SIZE bytes.
 * @param [in] size        bytes at @p ipv6_addr; at least DOCA_DEVINFO_IPV6_ADDR_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a short buffer;
 *         DOCA_ERROR_NOT_FOUND: emulated ports carry no IP address.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr,
						    uint32_t size);

/**
 * @brief The MAC address of the device's port (locally administered, derived from the PCI address).
 * @param [in] devinfo    the device.
 * @param [out] mac_addr  receives DOCA_DEVINFO_MAC_ADDR_SIZE bytes.
 * @param [in] size       bytes at @p mac_addr; at least DOCA_DEVINFO_MAC_ADDR_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a short buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr,
						   uint32_t size);

/**
 * @brief The network interface name of the device ("p0", "ens1f0np0", ...).
 * @param [in] devinfo      the device.
 * @param [out] iface_name  receives a NUL-terminated name.
 * @param [in] size         bytes at @p iface_name; at least DOCA_DEVINFO_IFACE_NAME_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a short buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name,
						     uint32_t size);

/**
 * @brief The InfiniBand/RoCE device name of the device ("mlx5_0", ...).
 * @param [in] devinfo      the device.
 * @param [out] ibdev_name  receives a NUL-terminated name.
 * @param [in] size         bytes at @p ibdev_name; at least DOCA_DEVINFO_IBDEV_NAME_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a short buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name,
						     uint32_t size);

/**
 * @brief Whether the device is a PF, a VF or an SF.
 * @param [in] devinfo         the device.
 * @param [out] pci_func_type  receives the type.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo,
							enum doca_pci_func_type *pci_func_type);

/**
 * @brief The index of a scalable function.
 * @param [in] devinfo    the device.
 * @param [out] sf_index  receives the index.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 *         DOCA_ERROR_NOT_SUPPORTED when the device is not an SF.
 */
DOCA_STABLE doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index);

/**
 * @brief Whether the device may manage hot-plugged emulated functions.
 * @param [in] devinfo              the device.
 * @param [out] is_hotplug_manager  1 or 0; Ferry emulates no hot-plug, so always 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
								       uint8_t *is_hotplug_manager);

/**
 * @brief Whether doca_devinfo_rep_create_list accepts DOCA_DEVINFO_REP_FILTER_ALL for this device.
 * @param [in] devinfo                the device.
 * @param [out] filter_all_supported  1 on a DPU-side device, 0 on a host-side one.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
								      uint8_t *filter_all_supported);

/**
 * @brief Whether doca_devinfo_rep_create_list accepts DOCA_DEVINFO_REP_FILTER_NET for this device.
 * @param [in] devinfo                the device.
 * @param [out] filter_net_supported  1 on a DPU-side device, 0 on a host-side one.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
								      uint8_t *filter_net_supported);

/**
 * @brief Whether doca_devinfo_rep_create_list accepts DOCA_DEVINFO_REP_FILTER_EMULATED for this device.
 * @param [in] devinfo                     the device.
 * @param [out] filter_emulated_supported  1 on a DPU-side device, 0 on a host-side one.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
									   uint8_t *filter_emulated_supported);

/*
 * Representor properties
 */

/**
 * @brief The vendor unique id of a representor: a stable name for the function it stands for.
 * @param [in] devinfo_rep  the representor.
 * @param [out] rep_vuid    receives a NUL-terminated id.
 * @param [in] size         bytes at @p rep_vuid; at least DOCA_DEVINFO_REP_VUID_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a short buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid,
						   uint32_t size);

/**
 * @brief The PCI address of the function a representor stands for, as "dddd:bb:dd.f".
 * @param [in] devinfo_rep    the representor.
 * @param [out] pci_addr_str  at least DOCA_DEVINFO_REP_PCI_ADDR_SIZE bytes.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep,
							   char *pci_addr_str);

/**
 * @brief Whether a PCI address names the function a representor stands for.
 * @param [in] devinfo_rep   the representor.
 * @param [in] pci_addr_str  "dddd:bb:dd.f" or "bb:dd.f".
 * @param [out] is_equal     1 or 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a malformed address.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep,
							    const char *pci_addr_str, uint8_t *is_equal);

/**
 * @brief Whether a representor stands for a PF, a VF or an SF.
 * @param [in] devinfo_rep     the representor.
 * @param [out] pci_func_type  receives the type.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
							    enum doca_pci_func_type *pci_func_type);

/**
 * @brief The network interface name of a representor ("pf0hpf", ...).
 * @param [in] devinfo_rep  the representor.
 * @param [out] iface_name  receives a NUL-terminated name.
 * @param [in] size         bytes at @p iface_name; at least DOCA_DEVINFO_IFACE_NAME_SIZE.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a short buffer.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep, char *iface_name,
							 uint32_t size);

/**
 * @brief The scalable-function index of an SF representor.
 * @param [in] devinfo_rep  the representor.
 * @param [out] sf_index    receives the index.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument;
 *         DOCA_ERROR_NOT_SUPPORTED when it does not stand for an SF.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_sf_index(const struct doca_devinfo_rep *devinfo_rep, uint32_t *sf_index);

/**
 * @brief Whether a representor stands for a hot-plugged function.
 * @param [in] devinfo_rep  the representor.
 * @param [out] is_hotplug  1 or 0; Ferry's functions are statically plugged, so 0.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL argument.
 */
DOCA_STABLE doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep,
							 uint8_t *is_hotplug);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DEV_H_ */
