/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dev.c - doca_dev.h on top of the emulated topology (topology.c).
 *
 * Infos live for the whole process and each embeds its one open handle, so
 * open/close only count: doca_dev_open on an open device returns the same
 * handle, and the last doca_dev_close refuses (DOCA_ERROR_IN_USE) while an mmap
 * or a context still holds the device through ferry_dev_get.
 *
 * Lists are arrays of pointers behind a small header that carries a magic
 * value, so destroying a list twice or destroying a stray pointer is caught
 * and logged instead of corrupting the heap.
 *
 * Thread safety: open/close counts and references change under one mutex;
 * everything else reads immutable data.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "core/ferry_dev.h"
#include "core/topology_priv.h"

FERRY_LOG_MODULE("dev");

#define DEV_LIST_MAGIC 0x464c5374u /* "FLSt" */
#define REP_LIST_MAGIC 0x46524c73u /* "FRLs" */

static pthread_mutex_t dev_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- lists --------------------------------------------------------------- */

struct list_header {
	uint32_t magic;
	uint32_t count;
	alignas(void *) unsigned char items[]; /* the pointers handed to the user */
};

static void **list_alloc(uint32_t magic, uint32_t count)
{
	/* One spare slot so an empty list still has a unique, non-NULL address. */
	struct list_header *h = ferry_calloc(1, sizeof(*h) + ((size_t)count + 1) * sizeof(void *));

	if (h == NULL)
		return NULL;
	h->magic = magic;
	h->count = count;
	return (void **)(void *)h->items;
}

static struct list_header *list_header_of(void *items)
{
	return (struct list_header *)(void *)((unsigned char *)items - offsetof(struct list_header, items));
}

static doca_error_t list_free(void *items, uint32_t magic, const char *call)
{
	struct list_header *h;

	if (items == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "list is NULL");
	h = list_header_of(items);
	if (h->magic != magic)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%p is not a live list (destroyed twice?)", items);
	h->magic = 0;
	free(h);
	return DOCA_SUCCESS;
}

/* ---- handle checks ------------------------------------------------------- */

static bool devinfo_ok(const struct doca_devinfo *info)
{
	return info != NULL && info->magic == FERRY_DEVINFO_MAGIC;
}

static bool repinfo_ok(const struct doca_devinfo_rep *info)
{
	return info != NULL && info->magic == FERRY_DEVINFO_REP_MAGIC;
}

static bool dev_ok(const struct doca_dev *dev)
{
	return dev != NULL && devinfo_ok(dev->info) && &dev->info->handle == dev;
}

static bool dev_rep_ok(const struct doca_dev_rep *dev)
{
	return dev != NULL && repinfo_ok(dev->info) && &dev->info->handle == dev;
}

/* Validate the common (devinfo, out-pointer) pair of the getters. */
static doca_error_t check_devinfo(const char *call, const struct doca_devinfo *info, const void *out)
{
	if (info == NULL || out == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL", info == NULL ? "devinfo" : "output");
	if (!devinfo_ok(info))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%p is not a device info", (const void *)info);
	return DOCA_SUCCESS;
}

static doca_error_t check_repinfo(const char *call, const struct doca_devinfo_rep *info, const void *out)
{
	if (info == NULL || out == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL",
				     info == NULL ? "devinfo_rep" : "output");
	if (!repinfo_ok(info))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%p is not a representor info",
				     (const void *)info);
	return DOCA_SUCCESS;
}

/* Copy a name into a caller buffer that DOCA requires to be at least @p min bytes. */
static doca_error_t copy_out_name(const char *call, const char *who, const char *name, char *out, uint32_t size,
				  uint32_t min)
{
	if (size < min)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s: buffer of %u bytes; at least %u needed", who,
				     size, min);
	strcpy(out, name); /* names are far shorter than any accepted size */
	return DOCA_SUCCESS;
}

static doca_error_t compare_pci(const char *call, const char *who, const struct ferry_pci_addr *mine, const char *str,
				uint8_t *is_equal)
{
	struct ferry_pci_addr other;

	if (!ferry_pci_addr_parse(str, &other))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s: '%.16s' is not bb:dd.f or dddd:bb:dd.f", who,
				     str);
	*is_equal = ferry_pci_addr_equal(mine, &other) ? 1 : 0;
	return DOCA_SUCCESS;
}

/* ---- device lists -------------------------------------------------------- */

doca_error_t doca_devinfo_create_list(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
	const struct ferry_topology *topo;
	struct doca_devinfo **list;
	uint32_t n = 0;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(dev_list);
	FERRY_ARG_NOT_NULL(nb_devs);
	err = ferry_topology_get(&topo);
	if (err != DOCA_SUCCESS)
		return err;
	list = (struct doca_devinfo **)list_alloc(DEV_LIST_MAGIC, topo->nb_devs);
	if (list == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for %u entries", topo->nb_devs);
	for (uint32_t i = 0; i < topo->nb_devs; i++)
		if (ferry_topology_visible(topo, topo->devs[i]))
			list[n++] = topo->devs[i];
	list_header_of(list)->count = n;
	*dev_list = list;
	*nb_devs = n;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_destroy_list(struct doca_devinfo **dev_list)
{
	return list_free(dev_list, DEV_LIST_MAGIC, __func__);
}

static bool rep_matches(const struct doca_devinfo_rep *rep, const struct doca_devinfo *manager, int filter)
{
	return rep->manager == manager && (filter == DOCA_DEVINFO_REP_FILTER_ALL || (filter & rep->kind) != 0);
}

doca_error_t doca_devinfo_rep_create_list(struct doca_dev *dev, int filter, struct doca_devinfo_rep ***dev_list_rep,
					  uint32_t *nb_devs_rep)
{
	const char *call = __func__;
	const int known = DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED;
	const struct ferry_topology *topo;
	struct doca_devinfo_rep **list;
	struct doca_devinfo *manager;
	uint32_t n = 0;

	if (dev == NULL || dev_list_rep == NULL || nb_devs_rep == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL",
				     dev == NULL            ? "dev"
				     : dev_list_rep == NULL ? "dev_list_rep"
							    : "nb_devs_rep");
	if (!dev_ok(dev))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%p is not a device", (void *)dev);
	manager = dev->info;
	if ((filter & ~known) != 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "filter 0x%x has unknown bits (known: 0x%x)",
				     (unsigned int)filter, (unsigned int)known);
	if (manager->side != FERRY_SIDE_DPU)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				     "device %s is host-side; only DPU-side devices have representors",
				     manager->bdf_str);
	if (ferry_topology_get(&topo) != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "no topology");
	list = (struct doca_devinfo_rep **)list_alloc(REP_LIST_MAGIC, topo->nb_reps);
	if (list == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "no memory for %u entries", topo->nb_reps);
	for (uint32_t i = 0; i < topo->nb_reps; i++)
		if (rep_matches(topo->reps[i], manager, filter))
			list[n++] = topo->reps[i];
	list_header_of(list)->count = n;
	*dev_list_rep = list;
	*nb_devs_rep = n;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_destroy_list(struct doca_devinfo_rep **dev_list_rep)
{
	return list_free(dev_list_rep, REP_LIST_MAGIC, __func__);
}

/* ---- open and close ------------------------------------------------------ */

/*
 * Devices and representors keep the same two counters (opens, users), read and
 * written under dev_lock; these helpers serve both kinds of handle.
 */
static uint32_t count_read(const uint32_t *count)
{
	uint32_t value;

	pthread_mutex_lock(&dev_lock);
	value = *count;
	pthread_mutex_unlock(&dev_lock);
	return value;
}

static void count_up(uint32_t *count)
{
	pthread_mutex_lock(&dev_lock);
	(*count)++;
	pthread_mutex_unlock(&dev_lock);
}

/* ferry_dev_put / ferry_dev_rep_put: a drop without a matching get is a bug of ours. */
static void users_down(uint32_t *users, const char *call, const char *what, const char *name)
{
	pthread_mutex_lock(&dev_lock);
	if (*users == 0)
		FERRY_ERR("%s: %s %s has no reference to drop (internal bug)", call, what, name);
	else
		(*users)--;
	pthread_mutex_unlock(&dev_lock);
}

/* Closes one open; the last one waits until no mmap or context holds the handle. */
static doca_error_t close_one(uint32_t *opens, const uint32_t *users, const char *call, const char *what,
			      const char *name, const char *user_kinds)
{
	doca_error_t err = DOCA_SUCCESS;

	pthread_mutex_lock(&dev_lock);
	if (*opens == 0)
		err = FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s %s is not open (closed twice?)", what, name);
	else if (*opens == 1 && *users > 0)
		err = FERRY_RULE_IN(call, DOCA_ERROR_IN_USE, "%s %s still used by %u %s; destroy them first", what,
				    name, *users, user_kinds);
	else
		(*opens)--;
	pthread_mutex_unlock(&dev_lock);
	return err;
}

doca_error_t doca_dev_open(struct doca_devinfo *devinfo, struct doca_dev **dev)
{
	FERRY_ARG_NOT_NULL(devinfo);
	FERRY_ARG_NOT_NULL(dev);
	if (!devinfo_ok(devinfo))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%p is not a device info", (void *)devinfo);
	count_up(&devinfo->handle.opens);
	*dev = &devinfo->handle;
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_close(struct doca_dev *dev)
{
	if (dev == NULL) {
		/*
		 * Like free(NULL). DOCA documents no INVALID_VALUE here, and its
		 * samples close a device their cleanup helper already closed and
		 * set to NULL (dma_local_copy), counting any error as a failure.
		 */
		FERRY_DBG("%s: dev is NULL; nothing to close", __func__);
		return DOCA_SUCCESS;
	}
	if (!dev_ok(dev))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%p is not a device", (void *)dev);
	return close_one(&dev->opens, &dev->users, __func__, "device", dev->info->bdf_str, "mmap(s)/context(s)");
}

doca_error_t doca_dev_rep_open(struct doca_devinfo_rep *devinfo, struct doca_dev_rep **dev_rep)
{
	FERRY_ARG_NOT_NULL(devinfo);
	FERRY_ARG_NOT_NULL(dev_rep);
	if (!repinfo_ok(devinfo))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%p is not a representor info", (void *)devinfo);
	count_up(&devinfo->handle.opens);
	*dev_rep = &devinfo->handle;
	return DOCA_SUCCESS;
}

doca_error_t doca_dev_rep_close(struct doca_dev_rep *dev)
{
	FERRY_ARG_NOT_NULL(dev);
	if (!dev_rep_ok(dev))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%p is not a representor", (void *)dev);
	return close_one(&dev->opens, &dev->users, __func__, "representor", dev->info->iface, "context(s)");
}

struct doca_devinfo *doca_dev_as_devinfo(const struct doca_dev *dev)
{
	if (dev == NULL || !dev_ok(dev)) {
		FERRY_ERR("%s: %p is not a device", __func__, (const void *)dev);
		return NULL;
	}
	if (count_read(&dev->opens) == 0) {
		FERRY_ERR("%s: device %s is not open", __func__, dev->info->bdf_str);
		return NULL;
	}
	return dev->info;
}

struct doca_devinfo_rep *doca_dev_rep_as_devinfo(struct doca_dev_rep *dev_rep)
{
	if (dev_rep == NULL || !dev_rep_ok(dev_rep)) {
		FERRY_ERR("%s: %p is not a representor", __func__, (void *)dev_rep);
		return NULL;
	}
	if (count_read(&dev_rep->opens) == 0) {
		FERRY_ERR("%s: representor %s is not open", __func__, dev_rep->info->iface);
		return NULL;
	}
	return dev_rep->info;
}

/* ---- device properties --------------------------------------------------- */

doca_error_t doca_devinfo_get_pci_addr_str(const struct doca_devinfo *devinfo, char *pci_addr_str)
{
	doca_error_t err = check_devinfo(__func__, devinfo, pci_addr_str);

	if (err == DOCA_SUCCESS)
		memcpy(pci_addr_str, devinfo->pci_str, sizeof(devinfo->pci_str));
	return err;
}

doca_error_t doca_devinfo_is_equal_pci_addr(const struct doca_devinfo *devinfo, const char *pci_addr_str,
					    uint8_t *is_equal)
{
	const char *call = __func__;
	doca_error_t err = check_devinfo(call, devinfo, is_equal);

	if (err != DOCA_SUCCESS)
		return err;
	if (pci_addr_str == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "pci_addr_str is NULL");
	return compare_pci(call, devinfo->bdf_str, &devinfo->pci, pci_addr_str, is_equal);
}

/* The emulated ports carry no IP address: checks as DOCA would, then NOT_FOUND. */
static doca_error_t no_ip_addr(const char *call, const struct doca_devinfo *devinfo, const uint8_t *addr, uint32_t size,
			       uint32_t min)
{
	doca_error_t err = check_devinfo(call, devinfo, addr);

	if (err != DOCA_SUCCESS)
		return err;
	if (size < min)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "buffer of %u bytes; at least %u needed", size,
				     min);
	FERRY_DBG("%s: device %s: emulated ports carry no IP address", call, devinfo->bdf_str);
	return DOCA_ERROR_NOT_FOUND;
}

/* A device bound to a network identity ('net', FERRY_RDMA_NET) answers with that identity's address. */
doca_error_t doca_devinfo_get_ipv4_addr(const struct doca_devinfo *devinfo, uint8_t *ipv4_addr, uint32_t size)
{
	struct ferry_net_identity id;

	if (devinfo_ok(devinfo) && devinfo->net[0] != '\0' && ipv4_addr != NULL &&
	    size >= DOCA_DEVINFO_IPV4_ADDR_SIZE && ferry_devinfo_net_resolve(devinfo, &id) == DOCA_SUCCESS) {
		memcpy(ipv4_addr, &id.ipv4, 4);
		return DOCA_SUCCESS;
	}
	return no_ip_addr(__func__, devinfo, ipv4_addr, size, DOCA_DEVINFO_IPV4_ADDR_SIZE);
}

doca_error_t doca_devinfo_get_ipv6_addr(const struct doca_devinfo *devinfo, uint8_t *ipv6_addr, uint32_t size)
{
	return no_ip_addr(__func__, devinfo, ipv6_addr, size, DOCA_DEVINFO_IPV6_ADDR_SIZE);
}

doca_error_t doca_devinfo_get_mac_addr(const struct doca_devinfo *devinfo, uint8_t *mac_addr, uint32_t size)
{
	const char *call = __func__;
	doca_error_t err = check_devinfo(call, devinfo, mac_addr);

	if (err != DOCA_SUCCESS)
		return err;
	if (size < DOCA_DEVINFO_MAC_ADDR_SIZE)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "buffer of %u bytes; at least %u needed", size,
				     DOCA_DEVINFO_MAC_ADDR_SIZE);
	/* Locally administered unicast (0x02), 'F' for Ferry, then machine, side, bus and dev.fn. */
	mac_addr[0] = 0x02;
	mac_addr[1] = 0x46;
	mac_addr[2] = (uint8_t)devinfo->machine;
	mac_addr[3] = (uint8_t)((devinfo->side == FERRY_SIDE_DPU ? 0x80 : 0x00) | (devinfo->sf_index & 0x7f));
	mac_addr[4] = devinfo->pci.bus;
	mac_addr[5] = (uint8_t)(devinfo->pci.dev << 3 | devinfo->pci.fn);
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_get_iface_name(const struct doca_devinfo *devinfo, char *iface_name, uint32_t size)
{
	const char *call = __func__;
	doca_error_t err = check_devinfo(call, devinfo, iface_name);

	if (err != DOCA_SUCCESS)
		return err;
	return copy_out_name(call, devinfo->bdf_str, devinfo->iface, iface_name, size, DOCA_DEVINFO_IFACE_NAME_SIZE);
}

doca_error_t doca_devinfo_get_ibdev_name(const struct doca_devinfo *devinfo, char *ibdev_name, uint32_t size)
{
	const char *call = __func__;
	doca_error_t err = check_devinfo(call, devinfo, ibdev_name);

	if (err != DOCA_SUCCESS)
		return err;
	return copy_out_name(call, devinfo->bdf_str, devinfo->ibdev, ibdev_name, size, DOCA_DEVINFO_IBDEV_NAME_SIZE);
}

doca_error_t doca_devinfo_get_pci_func_type(const struct doca_devinfo *devinfo, enum doca_pci_func_type *pci_func_type)
{
	doca_error_t err = check_devinfo(__func__, devinfo, pci_func_type);

	if (err == DOCA_SUCCESS)
		*pci_func_type = devinfo->func_type;
	return err;
}

doca_error_t doca_devinfo_get_sf_index(const struct doca_devinfo *devinfo, uint32_t *sf_index)
{
	const char *call = __func__;
	doca_error_t err = check_devinfo(call, devinfo, sf_index);

	if (err != DOCA_SUCCESS)
		return err;
	if (devinfo->func_type != DOCA_PCI_FUNC_TYPE_SF) {
		/* Programs probe every device this way, so this is an answer, not a misuse: debug level. */
		FERRY_DBG("%s: device %s is not an SF", call, devinfo->bdf_str);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*sf_index = devinfo->sf_index;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_cap_is_hotplug_manager_supported(const struct doca_devinfo *devinfo,
							   uint8_t *is_hotplug_manager)
{
	doca_error_t err = check_devinfo(__func__, devinfo, is_hotplug_manager);

	if (err == DOCA_SUCCESS)
		*is_hotplug_manager = 0;
	return err;
}

/* Only DPU-side devices manage representors; the filter does not change that. */
static doca_error_t rep_filter_cap(const char *call, const struct doca_devinfo *devinfo, uint8_t *supported)
{
	doca_error_t err = check_devinfo(call, devinfo, supported);

	if (err == DOCA_SUCCESS)
		*supported = devinfo->side == FERRY_SIDE_DPU ? 1 : 0;
	return err;
}

doca_error_t doca_devinfo_rep_cap_is_filter_all_supported(const struct doca_devinfo *devinfo,
							  uint8_t *filter_all_supported)
{
	return rep_filter_cap(__func__, devinfo, filter_all_supported);
}

doca_error_t doca_devinfo_rep_cap_is_filter_net_supported(const struct doca_devinfo *devinfo,
							  uint8_t *filter_net_supported)
{
	return rep_filter_cap(__func__, devinfo, filter_net_supported);
}

doca_error_t doca_devinfo_rep_cap_is_filter_emulated_supported(const struct doca_devinfo *devinfo,
							       uint8_t *filter_emulated_supported)
{
	return rep_filter_cap(__func__, devinfo, filter_emulated_supported);
}

/* ---- representor properties ---------------------------------------------- */

doca_error_t doca_devinfo_rep_get_vuid(const struct doca_devinfo_rep *devinfo_rep, char *rep_vuid, uint32_t size)
{
	const char *call = __func__;
	doca_error_t err = check_repinfo(call, devinfo_rep, rep_vuid);

	if (err != DOCA_SUCCESS)
		return err;
	return copy_out_name(call, devinfo_rep->iface, devinfo_rep->vuid, rep_vuid, size, DOCA_DEVINFO_REP_VUID_SIZE);
}

doca_error_t doca_devinfo_rep_get_pci_addr_str(const struct doca_devinfo_rep *devinfo_rep, char *pci_addr_str)
{
	doca_error_t err = check_repinfo(__func__, devinfo_rep, pci_addr_str);

	if (err == DOCA_SUCCESS)
		memcpy(pci_addr_str, devinfo_rep->pci_str, sizeof(devinfo_rep->pci_str));
	return err;
}

doca_error_t doca_devinfo_rep_is_equal_pci_addr(const struct doca_devinfo_rep *devinfo_rep, const char *pci_addr_str,
						uint8_t *is_equal)
{
	const char *call = __func__;
	doca_error_t err = check_repinfo(call, devinfo_rep, is_equal);

	if (err != DOCA_SUCCESS)
		return err;
	if (pci_addr_str == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "pci_addr_str is NULL");
	return compare_pci(call, devinfo_rep->iface, &devinfo_rep->pci, pci_addr_str, is_equal);
}

doca_error_t doca_devinfo_rep_get_pci_func_type(const struct doca_devinfo_rep *devinfo_rep,
						enum doca_pci_func_type *pci_func_type)
{
	doca_error_t err = check_repinfo(__func__, devinfo_rep, pci_func_type);

	if (err == DOCA_SUCCESS)
		*pci_func_type = devinfo_rep->func_type;
	return err;
}

doca_error_t doca_devinfo_rep_get_iface_name(const struct doca_devinfo_rep *devinfo_rep, char *iface_name,
					     uint32_t size)
{
	const char *call = __func__;
	doca_error_t err = check_repinfo(call, devinfo_rep, iface_name);

	if (err != DOCA_SUCCESS)
		return err;
	return copy_out_name(call, devinfo_rep->iface, devinfo_rep->iface, iface_name, size,
			     DOCA_DEVINFO_IFACE_NAME_SIZE);
}

doca_error_t doca_devinfo_rep_get_sf_index(const struct doca_devinfo_rep *devinfo_rep, uint32_t *sf_index)
{
	const char *call = __func__;
	doca_error_t err = check_repinfo(call, devinfo_rep, sf_index);

	if (err != DOCA_SUCCESS)
		return err;
	if (devinfo_rep->func_type != DOCA_PCI_FUNC_TYPE_SF) {
		FERRY_DBG("%s: representor %s does not stand for an SF", call, devinfo_rep->iface);
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	*sf_index = devinfo_rep->sf_index;
	return DOCA_SUCCESS;
}

doca_error_t doca_devinfo_rep_get_is_hotplug(const struct doca_devinfo_rep *devinfo_rep, uint8_t *is_hotplug)
{
	doca_error_t err = check_repinfo(__func__, devinfo_rep, is_hotplug);

	if (err == DOCA_SUCCESS)
		*is_hotplug = 0;
	return err;
}

/* ---- ferry_dev.h ------------------------------------------------------------ */

enum ferry_dev_side ferry_devinfo_side(const struct doca_devinfo *devinfo)
{
	return devinfo->side;
}

const struct ferry_dma_caps *ferry_devinfo_dma_caps(const struct doca_devinfo *devinfo)
{
	return &devinfo->dma;
}

const char *ferry_devinfo_name(const struct doca_devinfo *devinfo)
{
	return devinfo != NULL ? devinfo->bdf_str : "(null)";
}

const char *ferry_dev_name(const struct doca_dev *dev)
{
	return dev != NULL ? dev->info->bdf_str : "(null)";
}

uint32_t ferry_devinfo_machine(const struct doca_devinfo *devinfo)
{
	return devinfo->machine;
}

bool ferry_devinfo_is_valid(const struct doca_devinfo *devinfo)
{
	return devinfo_ok(devinfo);
}

const char *ferry_devinfo_net(const struct doca_devinfo *devinfo)
{
	return devinfo->net;
}

doca_error_t ferry_devinfo_net_resolve(const struct doca_devinfo *devinfo, struct ferry_net_identity *out)
{
	struct ifaddrs *list = NULL;
	struct in_addr want = {0};
	bool by_addr;
	doca_error_t err = DOCA_ERROR_NOT_FOUND;

	memset(out, 0, sizeof(*out));
	out->bound = devinfo->net[0] != '\0';
	if (!out->bound) {
		/* Unbound: reachable on this machine only. */
		strcpy(out->iface, "lo");
		out->ipv4.s_addr = htonl(INADDR_LOOPBACK);
		return DOCA_SUCCESS;
	}
	by_addr = inet_pton(AF_INET, devinfo->net, &want) == 1;
	if (getifaddrs(&list) != 0)
		return FERRY_RULE_IN("network identity", DOCA_ERROR_DRIVER, "device %s: getifaddrs: %s",
				     devinfo->bdf_str, strerror(errno));
	for (struct ifaddrs *i = list; i != NULL; i = i->ifa_next) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)i->ifa_addr;

		if (in == NULL || in->sin_family != AF_INET)
			continue;
		if (by_addr ? in->sin_addr.s_addr == want.s_addr : strcmp(i->ifa_name, devinfo->net) == 0) {
			snprintf(out->iface, sizeof(out->iface), "%s", i->ifa_name);
			out->ipv4 = in->sin_addr;
			err = DOCA_SUCCESS;
			break;
		}
	}
	freeifaddrs(list);
	if (err != DOCA_SUCCESS)
		FERRY_DBG("device %s: network identity '%s': %s", devinfo->bdf_str, devinfo->net,
			  by_addr ? "no interface of this host has that address"
				  : "no such interface with an IPv4 address");
	return err;
}

doca_error_t ferry_devinfo_net_require(const struct doca_devinfo *devinfo, const char *call,
				       struct ferry_net_identity *out)
{
	if (ferry_devinfo_net_resolve(devinfo, out) != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND,
				     "device %s is bound to network identity '%s' (topology 'net' line or "
				     "FERRY_RDMA_NET), which no interface of this host has",
				     devinfo->bdf_str, devinfo->net);
	return DOCA_SUCCESS;
}

bool ferry_dev_is_open(const struct doca_dev *dev)
{
	return dev_ok(dev) && count_read(&dev->opens) > 0;
}

void ferry_dev_get(struct doca_dev *dev)
{
	count_up(&dev->users);
}

void ferry_dev_put(struct doca_dev *dev)
{
	users_down(&dev->users, __func__, "device", dev->info->bdf_str);
}

const struct doca_devinfo_rep *ferry_dev_rep_info(const struct doca_dev_rep *dev_rep)
{
	return dev_rep->info;
}

const char *ferry_dev_rep_name(const struct doca_dev_rep *dev_rep)
{
	return dev_rep != NULL ? dev_rep->info->iface : "(null)";
}

bool ferry_dev_rep_is_open(const struct doca_dev_rep *dev_rep)
{
	return dev_rep_ok(dev_rep) && count_read(&dev_rep->opens) > 0;
}

const struct doca_devinfo *ferry_devinfo_rep_manager(const struct doca_devinfo_rep *devinfo_rep)
{
	return devinfo_rep->manager;
}

const struct doca_devinfo *ferry_devinfo_rep_peer(const struct doca_devinfo_rep *devinfo_rep)
{
	return devinfo_rep->peer;
}

void ferry_dev_rep_get(struct doca_dev_rep *dev_rep)
{
	count_up(&dev_rep->users);
}

void ferry_dev_rep_put(struct doca_dev_rep *dev_rep)
{
	users_down(&dev_rep->users, __func__, "representor", dev_rep->info->iface);
}
