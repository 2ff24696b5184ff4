/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * v14.c - the calls of DOCA 1.3/1.4 outside the mmap (v14_mmap.c): inventory,
 * bufs, devices by property, remote functions, version and logging. Names that
 * later DOCA kept with other arguments are the ferry_v14_* symbols the 1.4
 * headers bind them to; names only 1.x had are exported as they are.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_log.h>

#include "common/ferry_log.h"
#include "legacy/legacy_api.h"

FERRY_LOG_MODULE("legacy");

/* enum doca_devinfo_property of the 1.4 headers, and each one's size. */
enum {
	V14_DEVINFO_VUID = 0,
	V14_DEVINFO_PCI_ADDR = 1,
	V14_DEVINFO_IPV4_ADDR = 2,
	V14_DEVINFO_IPV6_ADDR = 3,
	V14_DEVINFO_IFACE_NAME = 4,
	V14_DEVINFO_IBDEV_NAME = 5,
};

/* enum doca_devinfo_remote_property of the 1.4 headers. */
enum {
	V14_REMOTE_VUID = 0,
	V14_REMOTE_PCI_ADDR = 1,
	V14_REMOTE_PCI_FUNC_TYPE = 2,
};

/* enum doca_dev_remote_filter of the 1.4 headers: NET, and the emulated kinds DOCA 3 groups as one. */
#define V14_FILTER_NET      (1 << 1)
#define V14_FILTER_EMULATED ((1 << 2) | (1 << 3) | (1 << 4) | (1 << 5))

doca_error_t ferry_v14_buf_inventory_create(const char *name, size_t num_elements, uint32_t extensions,
					    struct doca_buf_inventory **inventory)
{
	(void)name; /* a label only */
	if (extensions != 0)
		return FERRY_RULE_IN("doca_buf_inventory_create", DOCA_ERROR_INVALID_VALUE,
				     "extensions %#x: DOCA 1.4 has only DOCA_BUF_EXTENSION_NONE", extensions);
	return doca_buf_inventory_create(num_elements, inventory);
}

doca_error_t ferry_v14_buf_refcount_add(struct doca_buf *buf, uint16_t *refcount)
{
	(void)refcount;
	return FERRY_RULE_IN("doca_buf_refcount_add", DOCA_ERROR_NOT_SUPPORTED,
			     "buf %p: DOCA 1.x bufs have one holder; there is no second reference to take",
			     (void *)buf);
}

const char *ferry_v14_version_runtime(void)
{
	return "1.4.0079";
}

/* ---- logging: 1.x programs set up no backend, yet see their lines ---- */

static pthread_once_t standard_backend_once = PTHREAD_ONCE_INIT;

static void create_standard_backend(void)
{
	(void)doca_log_backend_create_standard();
}

doca_error_t ferry_v14_log_register_source(const char *source_name, int *source)
{
	(void)pthread_once(&standard_backend_once, create_standard_backend);
	return doca_log_register_source(source_name, source);
}

/* ---- devices by property ---- */

/* "dddd:bb:dd.f" (DOCA 3's form) into the 1.x struct, field by field. */
static doca_error_t bdf_from_str(const char *str, uint8_t *value, uint32_t size, const char *call)
{
	unsigned int domain, bus, device, function;
	struct ferry_pci_bdf bdf = {0};
	char tail;

	if (size < sizeof(bdf))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "a PCI address takes sizeof(struct doca_pci_bdf) = %zu bytes, not %u", sizeof(bdf),
				     size);
	if (sscanf(str, "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) != 4 || bus > 0xff ||
	    device > 0x1f || function > 0x7)
		return FERRY_RULE_IN(call, DOCA_ERROR_UNEXPECTED, "device address '%s' is not dddd:bb:dd.f", str);
	bdf.bus = (uint16_t)bus;
	bdf.device = (uint16_t)device;
	bdf.function = (uint16_t)function;
	memset(value, 0, size);
	memcpy(value, &bdf, sizeof(bdf));
	return DOCA_SUCCESS;
}

static doca_error_t need_size(uint32_t size, uint32_t want, const char *what, const char *call)
{
	if (size < want)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s takes %u bytes, not %u", what, want, size);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_property_get(const struct doca_devinfo *devinfo, int property, uint8_t *value, uint32_t size)
{
	const char *call = __func__;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	doca_error_t err;

	LEGACY_ARG_NOT_NULL(devinfo);
	LEGACY_ARG_NOT_NULL(value);
	switch (property) {
	case V14_DEVINFO_VUID:
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
				  "Ferry's devices have no VUID (representors do: doca_devinfo_remote_property_get)");
	case V14_DEVINFO_PCI_ADDR:
		err = doca_devinfo_get_pci_addr_str(devinfo, pci);
		return err != DOCA_SUCCESS ? err : bdf_from_str(pci, value, size, call);
	case V14_DEVINFO_IPV4_ADDR:
		err = need_size(size, DOCA_DEVINFO_IPV4_ADDR_SIZE, "DOCA_DEVINFO_PROPERTY_IPV4_ADDR", call);
		if (err != DOCA_SUCCESS)
			return err;
		memset(value, 0, size);
		return doca_devinfo_get_ipv4_addr(devinfo, value, DOCA_DEVINFO_IPV4_ADDR_SIZE);
	case V14_DEVINFO_IPV6_ADDR:
		err = need_size(size, DOCA_DEVINFO_IPV6_ADDR_SIZE, "DOCA_DEVINFO_PROPERTY_IPV6_ADDR", call);
		if (err != DOCA_SUCCESS)
			return err;
		memset(value, 0, size);
		return doca_devinfo_get_ipv6_addr(devinfo, value, DOCA_DEVINFO_IPV6_ADDR_SIZE);
	case V14_DEVINFO_IFACE_NAME:
		memset(value, 0, size);
		return doca_devinfo_get_iface_name(devinfo, (char *)value, size);
	case V14_DEVINFO_IBDEV_NAME:
		memset(value, 0, size);
		return doca_devinfo_get_ibdev_name(devinfo, (char *)value, size);
	default:
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%d is not a doca_devinfo_property", property);
	}
}

/* ---- remote functions: DOCA 3's representors ---- */

doca_error_t doca_devinfo_remote_list_create(struct doca_dev *local, int filter,
					     struct doca_devinfo_rep ***dev_list_remote, uint32_t *nb_devs_remote)
{
	int rep_filter = 0;

	if ((filter & ~(V14_FILTER_NET | V14_FILTER_EMULATED)) != 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "filter %#x has bits no doca_dev_remote_filter names",
				  (unsigned int)filter);
	if (filter & V14_FILTER_NET)
		rep_filter |= DOCA_DEVINFO_REP_FILTER_NET;
	if (filter & V14_FILTER_EMULATED)
		rep_filter |= DOCA_DEVINFO_REP_FILTER_EMULATED;
	return doca_devinfo_rep_create_list(local, rep_filter, dev_list_remote, nb_devs_remote);
}

doca_error_t doca_devinfo_remote_list_destroy(struct doca_devinfo_rep **dev_list_remote)
{
	return doca_devinfo_rep_destroy_list(dev_list_remote);
}

doca_error_t doca_devinfo_remote_property_get(const struct doca_devinfo_rep *devinfo_remote, int property,
					      uint8_t *value, uint32_t size)
{
	const char *call = __func__;
	char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	enum doca_pci_func_type type;
	int type_value;
	doca_error_t err;

	LEGACY_ARG_NOT_NULL(devinfo_remote);
	LEGACY_ARG_NOT_NULL(value);
	switch (property) {
	case V14_REMOTE_VUID:
		/* NUL-padded: 1.x programs compare all 128 bytes. */
		memset(value, 0, size);
		return doca_devinfo_rep_get_vuid(devinfo_remote, (char *)value, size);
	case V14_REMOTE_PCI_ADDR:
		err = doca_devinfo_rep_get_pci_addr_str(devinfo_remote, pci);
		return err != DOCA_SUCCESS ? err : bdf_from_str(pci, value, size, call);
	case V14_REMOTE_PCI_FUNC_TYPE:
		err = need_size(size, sizeof(type_value), "DOCA_DEVINFO_REMOTE_PROPERTY_PCI_FUNC_TYPE", call);
		if (err == DOCA_SUCCESS)
			err = doca_devinfo_rep_get_pci_func_type(devinfo_remote, &type);
		if (err != DOCA_SUCCESS)
			return err;
		/* PF, VF, SF are 0, 1, 2 in both generations. */
		type_value = (int)type;
		memset(value, 0, size);
		memcpy(value, &type_value, sizeof(type_value));
		return DOCA_SUCCESS;
	default:
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%d is not a doca_devinfo_remote_property", property);
	}
}

doca_error_t doca_dev_remote_open(struct doca_devinfo_rep *devinfo_remote, struct doca_dev_rep **dev_remote)
{
	return doca_dev_rep_open(devinfo_remote, dev_remote);
}

doca_error_t doca_dev_remote_close(struct doca_dev_rep *dev_remote)
{
	return doca_dev_rep_close(dev_remote);
}
