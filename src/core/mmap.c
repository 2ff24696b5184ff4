/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mmap.c - doca_mmap: a description of one range of the user's memory.
 *
 * States: created (stopped, never started) -> started <-> stopped -> destroyed.
 * Configuration needs a stopped map; bufs can only be taken from a started
 * one, and keep it from stopping. Nothing here touches the memory itself.
 *
 * Export and import (doca_mmap_export_pci, doca_mmap_create_from_export) go
 * through src/link: an export lives while its map is started; an import is a
 * started map of the exporter's addresses that stays usable while the
 * exporter's map is started and its process alive.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "core/fault.h"
#include "core/ferry_dev.h"
#include "core/ferry_memview.h"
#include "core/ferry_rdma_mem.h"
#include "core/mem_priv.h"
#include "link/ferry_export.h"
#include "link/ferry_access.h"

FERRY_LOG_MODULE("mmap");

/* Every access bit DOCA defines; anything else in a mask is a user error. */
#define KNOWN_ACCESS_BITS                                                                                             \
	((uint32_t)(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE |    \
		    DOCA_ACCESS_FLAG_RDMA_ATOMIC | DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE | \
		    DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING))

static void unexport(struct doca_mmap *mmap);

/* The RDMA transport, once libdoca_rdma is loaded (core/ferry_rdma_mem.h). */
static const struct ferry_mmap_rdma_ops *rdma_ops;

void ferry_mmap_rdma_register(const struct ferry_mmap_rdma_ops *ops)
{
	rdma_ops = ops;
}

const struct ferry_mmap_rdma_ops *ferry_mmap_rdma_ops_get(void)
{
	return rdma_ops;
}

/* ---- shared checks ---- */

doca_error_t ferry_mmap_check(const struct doca_mmap *mmap, const char *call)
{
	uint32_t magic;

	if (mmap == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "mmap is NULL");
	/* Read as bytes: the object may be a map of the other generation, of another type. */
	memcpy(&magic, mmap, sizeof(magic));
	if (magic == FERRY_MMAP_MAGIC)
		return DOCA_SUCCESS;
	if (magic == FERRY_MMAP_MAGIC_V14)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "mmap %p was made by doca_mmap_create(name) of DOCA 1.3/1.4's headers; this call "
				     "takes only maps of its own generation's doca_mmap_create",
				     (const void *)mmap);
	return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%p is not a live mmap", (const void *)mmap);
}

/* The one mmap argument check of every call here: NULL, another generation's map, garbage. */
#define CHECK_MMAP(mmap)                                                      \
	do {                                                                  \
		doca_error_t check_err_ = ferry_mmap_check((mmap), __func__); \
		if (check_err_ != DOCA_SUCCESS)                               \
			return check_err_;                                    \
	} while (0)

/*
 * Each call answers with the codes DOCA documents for it: @p started_err for a
 * started map, @p import_err for a map created from an export (started for
 * life): NOT_PERMITTED where the call documents that code (devices, memory
 * range, device limit), else BAD_STATE, its only state error (permissions,
 * free callback, user data).
 */
static doca_error_t check_configurable(const struct doca_mmap *mmap, const char *call, doca_error_t started_err,
				       doca_error_t import_err)
{
	doca_error_t err = ferry_mmap_check(mmap, call);

	if (err != DOCA_SUCCESS)
		return err;
	if (mmap->from_export)
		return FERRY_RULE_IN(call, import_err, "mmap %p was created from an export; it cannot be reconfigured",
				     (const void *)mmap);
	if (mmap->started)
		return FERRY_RULE_IN(call, started_err, "mmap %p is started; configuration needs a stopped mmap",
				     (const void *)mmap);
	return DOCA_SUCCESS;
}

static int find_dev(const struct doca_mmap *mmap, const struct doca_dev *dev)
{
	for (uint32_t i = 0; i < mmap->num_devs; i++)
		if (mmap->devs[i] == dev)
			return (int)i;
	return -1;
}

bool ferry_mmap_contains(const struct doca_mmap *mmap, const void *addr, size_t len)
{
	uintptr_t start = (uintptr_t)addr;
	uintptr_t map_start = (uintptr_t)mmap->addr;

	if (start < map_start)
		return false;
	/* Compare offsets rather than end addresses so nothing can wrap. */
	size_t offset = (size_t)(start - map_start);
	return offset <= mmap->len && len <= mmap->len - offset;
}

/* ---- create / destroy / start / stop ---- */

doca_error_t doca_mmap_create(struct doca_mmap **mmap)
{
	if (mmap == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "output pointer is NULL");

	struct doca_mmap *m = ferry_calloc(1, sizeof(*m));
	if (m == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "out of memory for a new mmap");

	m->magic = FERRY_MMAP_MAGIC;
	/* DOCA's DMA samples write into maps whose permissions they never set. */
	m->access = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	m->max_devs = FERRY_MMAP_DEFAULT_MAX_DEVS;
	m->valid = true;
	atomic_init(&m->num_bufs, 0);
	*mmap = m;
	return DOCA_SUCCESS;
}

static doca_error_t check_no_bufs(const struct doca_mmap *mmap, const char *call)
{
	unsigned int n = atomic_load_explicit(&mmap->num_bufs, memory_order_relaxed);

	if (n != 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap %p still has %u buf(s) pointing into it; release them first",
				     (const void *)mmap, n);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_destroy(struct doca_mmap *mmap)
{
	CHECK_MMAP(mmap);
	doca_error_t err = check_no_bufs(mmap, __func__);
	if (err != DOCA_SUCCESS)
		return err;

	/* Destroy implies stop. The range goes back to its owner only if it was ever handed over. */
	mmap->started = false;
	unexport(mmap);
	if (mmap->link_import != NULL)
		ferry_link_import_close(mmap->link_import);
	free(mmap->fault);
	mmap->fault = NULL;
	if (mmap->rdma_import != NULL)
		rdma_ops->import_close(mmap->rdma_import);
	if (mmap->ever_started && mmap->memrange_set && mmap->free_cb != NULL)
		mmap->free_cb(mmap->addr, mmap->len, mmap->free_cb_opaque);

	for (uint32_t i = 0; i < mmap->num_devs; i++)
		ferry_dev_put(mmap->devs[i]);
	free(mmap->devs);
	mmap->magic = 0; /* a second destroy of the same pointer is then likely caught */
	free(mmap);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_start(struct doca_mmap *mmap)
{
	CHECK_MMAP(mmap);
	if (mmap->from_export)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "mmap %p was created from an export; it is usable as is",
				  (void *)mmap);
	if (mmap->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "mmap %p is already started", (void *)mmap);
	if (!mmap->memrange_set)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "mmap %p has no memory range; call doca_mmap_set_memrange first", (void *)mmap);
	mmap->started = true;
	mmap->ever_started = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_stop(struct doca_mmap *mmap)
{
	CHECK_MMAP(mmap);
	/*
	 * NVIDIA's RDMA samples stop the map they imported from an RDMA export
	 * before destroying it, and count a failure: that stop succeeds (no bufs
	 * may be taken from it afterwards). A map imported from a PCI export goes
	 * with doca_mmap_destroy only.
	 */
	if (mmap->rdma_import != NULL) {
		if (!mmap->started)
			return FERRY_RULE(DOCA_ERROR_BAD_STATE, "mmap %p is not started", (void *)mmap);
		doca_error_t busy = check_no_bufs(mmap, __func__);
		if (busy != DOCA_SUCCESS)
			return busy;
		mmap->started = false;
		return DOCA_SUCCESS;
	}
	if (mmap->from_export) /* DOCA: NOT_PERMITTED; such a map goes with doca_mmap_destroy */
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "mmap %p was created from an export; destroy it instead of stopping it",
				  (void *)mmap);
	if (!mmap->started)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "mmap %p is not started", (void *)mmap);
	doca_error_t err = check_no_bufs(mmap, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	mmap->started = false;
	unexport(mmap);
	return DOCA_SUCCESS;
}

/* ---- devices ---- */

doca_error_t doca_mmap_add_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	doca_error_t err = check_configurable(mmap, __func__, DOCA_ERROR_NOT_PERMITTED, DOCA_ERROR_NOT_PERMITTED);
	if (err != DOCA_SUCCESS)
		return err;
	if (dev == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "dev is NULL (mmap %p)", (void *)mmap);
	if (find_dev(mmap, dev) >= 0)
		return FERRY_RULE(DOCA_ERROR_ALREADY_EXIST, "device %s is already in mmap %p", ferry_dev_name(dev),
				  (void *)mmap);
	if (mmap->num_devs >= mmap->max_devs)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY,
				  "mmap %p already holds its maximum of %u device(s); "
				  "raise it with doca_mmap_set_max_num_devices",
				  (void *)mmap, mmap->max_devs);

	/* On failure realloc leaves the old array, and so the mmap, as it was. */
	struct doca_dev **devs = ferry_realloc(mmap->devs, (mmap->num_devs + 1) * sizeof(*devs));
	if (devs == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "out of memory (mmap %p)", (void *)mmap);
	mmap->devs = devs;
	ferry_dev_get(dev);
	mmap->devs[mmap->num_devs++] = dev;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_rm_dev(struct doca_mmap *mmap, struct doca_dev *dev)
{
	doca_error_t err = check_configurable(mmap, __func__, DOCA_ERROR_NOT_PERMITTED, DOCA_ERROR_NOT_PERMITTED);
	if (err != DOCA_SUCCESS)
		return err;
	if (dev == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "dev is NULL (mmap %p)", (void *)mmap);
	int idx = find_dev(mmap, dev);
	if (idx < 0)
		return FERRY_RULE(DOCA_ERROR_NOT_FOUND, "device %s was never added to mmap %p", ferry_dev_name(dev),
				  (void *)mmap);
	/* Order of devices carries no meaning: move the last one into the hole. */
	mmap->devs[idx] = mmap->devs[--mmap->num_devs];
	ferry_dev_put(dev);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_max_num_devices(struct doca_mmap *mmap, uint32_t max_num_devices)
{
	doca_error_t err = check_configurable(mmap, __func__, DOCA_ERROR_NOT_PERMITTED, DOCA_ERROR_NOT_PERMITTED);
	if (err != DOCA_SUCCESS)
		return err;
	if (mmap->ever_started)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "mmap %p was started before; the limit is fixed "
				  "at first start",
				  (void *)mmap);
	if (max_num_devices == 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap %p: the limit must be at least 1", (void *)mmap);
	if (max_num_devices < mmap->num_devs)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap %p already holds %u device(s), more than %u",
				  (void *)mmap, mmap->num_devs, max_num_devices);
	mmap->max_devs = max_num_devices;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_max_num_devices(const struct doca_mmap *mmap, uint32_t *max_num_devices)
{
	CHECK_MMAP(mmap);
	FERRY_ARG_NOT_NULL(max_num_devices);
	*max_num_devices = mmap->max_devs;
	return DOCA_SUCCESS;
}

/* ---- memory range, permissions, user data ---- */

doca_error_t doca_mmap_set_memrange(struct doca_mmap *mmap, void *addr, size_t len)
{
	doca_error_t err = check_configurable(mmap, __func__, DOCA_ERROR_BAD_STATE, DOCA_ERROR_NOT_PERMITTED);
	if (err != DOCA_SUCCESS)
		return err;
	if (addr == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap %p: addr is NULL", (void *)mmap);
	if (len == 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap %p: len is 0", (void *)mmap);
	if ((uintptr_t)addr + len < (uintptr_t)addr)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap %p: range %p + %zu wraps around the address space",
				  (void *)mmap, addr, len);
	if (mmap->memrange_set)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "mmap %p already has range %p + %zu; it can be set once",
				  (void *)mmap, mmap->addr, mmap->len);
	mmap->addr = addr;
	mmap->len = len;
	mmap->memrange_set = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_dmabuf_memrange(struct doca_mmap *mmap, int dmabuf_fd, void *addr, size_t dmabuf_offset,
					   size_t len)
{
	(void)dmabuf_fd;
	(void)addr;
	(void)dmabuf_offset;
	(void)len;
	CHECK_MMAP(mmap);
	return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
			  "mmap %p: Ferry has no dmabuf support; "
			  "use doca_mmap_set_memrange",
			  (void *)mmap);
}

doca_error_t doca_mmap_get_memrange(const struct doca_mmap *mmap, void **addr, size_t *len)
{
	CHECK_MMAP(mmap);
	FERRY_ARG_NOT_NULL(addr);
	FERRY_ARG_NOT_NULL(len);
	if (!mmap->memrange_set)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "mmap %p has no memory range yet", (const void *)mmap);
	*addr = mmap->addr;
	*len = mmap->len;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_permissions(struct doca_mmap *mmap, uint32_t access_mask)
{
	doca_error_t err = check_configurable(mmap, __func__, DOCA_ERROR_BAD_STATE, DOCA_ERROR_BAD_STATE);
	if (err != DOCA_SUCCESS)
		return err;
	if ((access_mask & ~KNOWN_ACCESS_BITS) != 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap %p: unknown access bits 0x%x", (void *)mmap,
				  access_mask & ~KNOWN_ACCESS_BITS);
	/* As in RDMA verbs: a peer may only write what the owner may write. */
	if ((access_mask & (DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC)) != 0 &&
	    (access_mask & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) == 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "mmap %p: RDMA write/atomic access needs "
				  "LOCAL_READ_WRITE too (mask 0x%x)",
				  (void *)mmap, access_mask);
	mmap->access = access_mask;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_free_cb(struct doca_mmap *mmap, doca_mmap_memrange_free_cb_t *free_cb, void *opaque)
{
	doca_error_t err = check_configurable(mmap, __func__, DOCA_ERROR_BAD_STATE, DOCA_ERROR_BAD_STATE);
	if (err != DOCA_SUCCESS)
		return err;
	mmap->free_cb = free_cb;
	mmap->free_cb_opaque = opaque;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_set_user_data(struct doca_mmap *mmap, union doca_data user_data)
{
	doca_error_t err = check_configurable(mmap, __func__, DOCA_ERROR_BAD_STATE, DOCA_ERROR_BAD_STATE);
	if (err != DOCA_SUCCESS)
		return err;
	mmap->user_data = user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_enable_thread_safety(struct doca_mmap *mmap)
{
	CHECK_MMAP(mmap);
	/* DOCA answers NOT_PERMITTED for both: a started map, bufs taken from it. */
	if (mmap->started && !mmap->from_export)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "mmap %p is started; call it before doca_mmap_start",
				  (void *)mmap);
	unsigned int n = atomic_load_explicit(&mmap->num_bufs, memory_order_relaxed);
	if (n != 0)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "mmap %p has %u buf(s) taken already; call it before taking any", (void *)mmap, n);
	mmap->thread_safe = true;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_user_data(const struct doca_mmap *mmap, union doca_data *user_data)
{
	CHECK_MMAP(mmap);
	FERRY_ARG_NOT_NULL(user_data);
	*user_data = mmap->user_data;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_num_bufs(const struct doca_mmap *mmap, uint32_t *num_bufs)
{
	CHECK_MMAP(mmap);
	FERRY_ARG_NOT_NULL(num_bufs);
	*num_bufs = atomic_load_explicit(&mmap->num_bufs, memory_order_relaxed);
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_exported(const struct doca_mmap *mmap, uint8_t *exported)
{
	CHECK_MMAP(mmap);
	FERRY_ARG_NOT_NULL(exported);
	*exported = mmap->exported ? 1 : 0;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_get_from_export(const struct doca_mmap *mmap, uint8_t *from_export)
{
	CHECK_MMAP(mmap);
	FERRY_ARG_NOT_NULL(from_export);
	*from_export = mmap->from_export ? 1 : 0;
	return DOCA_SUCCESS;
}

/* ---- export / import (src/link: the emulated PCIe link) ---- */

#define PCI_ACCESS_BITS ((uint32_t)(DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE))

/* Revoke the export of a map that stops or goes away: importers fail from now on. */
static void unexport(struct doca_mmap *mmap)
{
	if (mmap->link_export != NULL) {
		ferry_link_export_close(mmap->link_export);
		mmap->link_export = NULL;
	}
	if (mmap->rdma_export != NULL) {
		rdma_ops->unexport(mmap->rdma_export);
		mmap->rdma_export = NULL;
		mmap->rdma_desc = NULL;
		mmap->rdma_desc_len = 0;
	}
}

/* Both exports: no NULL argument, and a map of ours (its magic). */
static doca_error_t check_export_args(const struct doca_mmap *mmap, const struct doca_dev *dev,
				      const void *const *export_desc, const size_t *export_desc_len, const char *call)
{
	if (mmap == NULL || dev == NULL || export_desc == NULL || export_desc_len == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL",
				     mmap == NULL          ? "mmap"
				     : dev == NULL         ? "dev"
				     : export_desc == NULL ? "export_desc"
							   : "export_desc_len");
	return ferry_mmap_check(mmap, call);
}

/* Both exports, DOCA's codes: NOT_PERMITTED for a stopped map, NOT_FOUND for a device not in it. */
static doca_error_t check_export_target(const struct doca_mmap *mmap, const struct doca_dev *dev, const char *call)
{
	if (!mmap->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap %p is not started; export needs a started mmap", (const void *)mmap);
	if (find_dev(mmap, dev) < 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND,
				     "device %s was not added to mmap %p (doca_mmap_add_dev)", ferry_dev_name(dev),
				     (const void *)mmap);
	return DOCA_SUCCESS;
}

/* Where @p info's network identity listens (127.0.0.1 on lo when it has none: this machine only). */
static doca_error_t net_offer_of(const struct doca_devinfo *info, struct ferry_link_net_offer *offer, const char *call)
{
	struct ferry_net_identity id;
	doca_error_t err = ferry_devinfo_net_require(info, call, &id);

	if (err != DOCA_SUCCESS)
		return err;
	offer->ipv4 = id.ipv4;
	snprintf(offer->iface, sizeof(offer->iface), "%s", id.iface);
	return DOCA_SUCCESS;
}

/*
 * Whether a PCI export offers the network access path too, and where
 * (offer->iface empty: it does not): when its device is bound to a network
 * identity (a topology 'net' line, FERRY_RDMA_NET), the DPU side may run on
 * another machine; FERRY_LINK_NET=always offers it from every device, on
 * 127.0.0.1 when unbound; =never from none.
 */
static doca_error_t export_net_offer(const struct doca_dev *dev, struct ferry_link_net_offer *offer, const char *call)
{
	const struct doca_devinfo *info = doca_dev_as_devinfo(dev);
	enum ferry_link_net_mode mode = ferry_link_net_mode();

	memset(offer, 0, sizeof(*offer));
	if (mode == FERRY_LINK_NET_NEVER || (mode == FERRY_LINK_NET_AUTO && ferry_devinfo_net(info)[0] == '\0'))
		return DOCA_SUCCESS;
	return net_offer_of(info, offer, call);
}

doca_error_t doca_mmap_export_pci(struct doca_mmap *mmap, const struct doca_dev *dev, const void **export_desc,
				  size_t *export_desc_len)
{
	const char *call = __func__;

	doca_error_t check = check_export_args(mmap, dev, export_desc, export_desc_len, call);
	if (check != DOCA_SUCCESS)
		return check;
	if (mmap->from_export)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap %p was created from an export; it cannot be re-exported", (void *)mmap);
	check = check_export_target(mmap, dev, call);
	if (check != DOCA_SUCCESS)
		return check;
	uint32_t pci = mmap->access & PCI_ACCESS_BITS;
	if (pci == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap %p has no PCI permission; set DOCA_ACCESS_FLAG_PCI_READ_ONLY or "
				     "DOCA_ACCESS_FLAG_PCI_READ_WRITE before start",
				     (void *)mmap);
	if (mmap->link_export == NULL) {
		/* Both bits: write wins, the wider grant the owner asked for. */
		uint32_t access = (pci & DOCA_ACCESS_FLAG_PCI_READ_WRITE) ? DOCA_ACCESS_FLAG_PCI_READ_WRITE
									  : DOCA_ACCESS_FLAG_PCI_READ_ONLY;
		struct ferry_link_net_offer offer;
		doca_error_t err = export_net_offer(dev, &offer, call);

		if (err == DOCA_SUCCESS)
			err = ferry_link_export_open(mmap->addr, mmap->len, access,
						     ferry_devinfo_machine(doca_dev_as_devinfo(dev)),
						     offer.iface[0] != '\0' ? &offer : NULL, call, &mmap->link_export);
		if (err != DOCA_SUCCESS)
			return err;
	}
	mmap->exported = true;
	ferry_link_export_desc(mmap->link_export, export_desc, export_desc_len);
	return DOCA_SUCCESS;
}

#define RDMA_ACCESS_BITS \
	((uint32_t)(DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC))

/* The RDMA access a re-export grants: what the host granted over PCI (never atomics). */
static uint32_t rdma_access_of_pci(uint32_t pci)
{
	return (pci & DOCA_ACCESS_FLAG_PCI_READ_WRITE) ? DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE
						       : DOCA_ACCESS_FLAG_RDMA_READ;
}

/*
 * A map imported from a PCI export, exported again for RDMA (the DPU side of
 * NVIDIA's storage application hands host memory to a storage target this
 * way). The RDMA peer reaches the host's memory through this process, with
 * the access the host granted over PCI.
 */
static doca_error_t reexport_access(const struct doca_mmap *mmap, const char *call, uint32_t *rdma_access)
{
	if (!ferry_mmap_is_usable(mmap))
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "mmap %p was created from an export that its exporter revoked or left",
				     (const void *)mmap);
	*rdma_access = rdma_access_of_pci(mmap->access);
	return DOCA_SUCCESS;
}

/*
 * A PCI import that UCX cannot register, since it is not mapped here (the
 * host's memory, reached by cross-memory attach): the link's network server
 * serves it, reading and writing through this import's path (a re-export,
 * network path only), and the RDMA descriptor carries that export's link
 * descriptor instead of a remote key. unexport revokes it, before the import
 * whose path it uses closes.
 */
static doca_error_t reexport_by_link(struct doca_mmap *mmap, const struct doca_dev *dev, uint32_t rdma_access,
				     const char *call)
{
	const struct doca_devinfo *info = doca_dev_as_devinfo(dev);
	struct ferry_link_net_offer offer = {0};
	const void *link_desc;
	size_t link_len;
	doca_error_t err = DOCA_SUCCESS;

	if (ferry_link_net_mode() == FERRY_LINK_NET_NEVER)
		err = FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				    "mmap %p: the exporter's memory is reached by cross-memory attach here, so its "
				    "RDMA peers reach it through the link's network path, which FERRY_LINK_NET=never "
				    "forbids",
				    (void *)mmap);
	if (err == DOCA_SUCCESS)
		err = net_offer_of(info, &offer, call);
	if (err == DOCA_SUCCESS)
		err = ferry_link_reexport_open(ferry_mmap_access_path(mmap), ferry_link_import_pid(mmap->link_import),
					       (uintptr_t)mmap->addr, mmap->len, mmap->access & PCI_ACCESS_BITS,
					       ferry_devinfo_machine(info), &offer, call, &mmap->link_export);
	if (err != DOCA_SUCCESS)
		return err;
	ferry_link_export_desc(mmap->link_export, &link_desc, &link_len);
	err = rdma_ops->export_link(link_desc, link_len, (uintptr_t)mmap->addr, mmap->len, rdma_access, call,
				    &mmap->rdma_export, &mmap->rdma_desc, &mmap->rdma_desc_len);
	if (err != DOCA_SUCCESS) {
		ferry_link_export_close(mmap->link_export);
		mmap->link_export = NULL;
	}
	return err;
}

doca_error_t doca_mmap_export_rdma(struct doca_mmap *mmap, const struct doca_dev *dev, const void **export_desc,
				   size_t *export_desc_len)
{
	const char *call = __func__;

	doca_error_t check = check_export_args(mmap, dev, export_desc, export_desc_len, call);
	if (check != DOCA_SUCCESS)
		return check;
	if (rdma_ops == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				     "mmap %p: the RDMA transport is not loaded; link the program with libdoca_rdma "
				     "(pkg-config doca-rdma)",
				     (void *)mmap);
	if (mmap->rdma_import != NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				     "mmap %p was created from an RDMA export; only its owner exports that memory",
				     (void *)mmap);
	check = check_export_target(mmap, dev, call);
	if (check != DOCA_SUCCESS)
		return check;
	uint32_t rdma_access = mmap->access & RDMA_ACCESS_BITS;
	if (mmap->link_import != NULL) {
		doca_error_t err = reexport_access(mmap, call, &rdma_access);
		if (err != DOCA_SUCCESS)
			return err;
	}
	if (rdma_access == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap %p has no RDMA permission; set DOCA_ACCESS_FLAG_RDMA_READ and/or "
				     "DOCA_ACCESS_FLAG_RDMA_WRITE before start",
				     (void *)mmap);
	if (mmap->rdma_export == NULL) {
		doca_error_t err = mmap->link_import != NULL && !ferry_access_mapped(ferry_mmap_access_path(mmap))
					   ? reexport_by_link(mmap, dev, rdma_access, call)
					   : rdma_ops->export_range(mmap->addr, mmap->len, rdma_access, call,
								    &mmap->rdma_export, &mmap->rdma_desc,
								    &mmap->rdma_desc_len);
		if (err != DOCA_SUCCESS)
			return err;
	}
	mmap->exported = true;
	*export_desc = mmap->rdma_desc;
	*export_desc_len = mmap->rdma_desc_len;
	return DOCA_SUCCESS;
}

/* The first four bytes of a descriptor say which transport made it. */
static bool desc_is_rdma(const void *desc, size_t len)
{
	const uint8_t *p = desc;

	return len >= 4 && ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24) ==
				   FERRY_RDMA_MEM_MAGIC;
}

/*
 * A re-export's RDMA descriptor names a link export (network path only) of
 * the exporter: open it, and hold the descriptor's claims to what that
 * export's server answered (range, and the RDMA access its PCI access gives).
 */
static doca_error_t open_reexport(const struct ferry_rdma_import_view *view, const struct doca_dev *dev,
				  const char *call, struct ferry_link_import **imp)
{
	struct ferry_link_view lv;
	doca_error_t err = ferry_link_import_open(view->link_desc, view->link_desc_len,
						  ferry_devinfo_machine(doca_dev_as_devinfo(dev)),
						  FERRY_LINK_IMPORT_RDMA, call, imp, &lv);

	if (err != DOCA_SUCCESS)
		return err;
	if ((uintptr_t)lv.addr == view->addr && lv.len == view->len && rdma_access_of_pci(lv.access) == view->access)
		return DOCA_SUCCESS;
	ferry_link_import_close(*imp);
	*imp = NULL;
	return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
			     "RDMA export descriptor claims 0x%llx + %llu with access %#x; its re-export's server "
			     "grants %p + %zu with PCI access %#x",
			     (unsigned long long)view->addr, (unsigned long long)view->len, view->access, lv.addr,
			     lv.len, lv.access);
}

static doca_error_t create_from_rdma_export(const union doca_data *user_data, const void *export_desc,
					    size_t export_desc_len, struct doca_dev *dev, struct doca_mmap **mmap,
					    const char *call)
{
	struct ferry_rdma_import_view view;
	struct ferry_link_import *link = NULL;
	struct doca_mmap *m = NULL;
	void *state;
	doca_error_t err;

	if (rdma_ops == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				     "an RDMA export descriptor needs the RDMA transport; link the program with "
				     "libdoca_rdma (pkg-config doca-rdma)");
	err = rdma_ops->import(export_desc, export_desc_len, call, &state, &view);
	if (err != DOCA_SUCCESS)
		return err;
	if (view.link_desc != NULL)
		err = open_reexport(&view, dev, call, &link);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_create(&m);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_add_dev(m, dev);
	if (err != DOCA_SUCCESS) {
		if (m != NULL)
			doca_mmap_destroy(m);
		if (link != NULL)
			ferry_link_import_close(link);
		rdma_ops->import_close(state);
		return err;
	}
	/* The exporter's addresses: bufs name them, only RDMA tasks reach them. */
	m->addr = (void *)(uintptr_t)view.addr;
	m->len = (size_t)view.len;
	m->memrange_set = true;
	m->access = view.access;
	m->from_export = true;
	m->started = true;
	m->ever_started = true;
	m->rdma_import = state;
	m->link_import = link; /* a re-export's: RDMA tasks copy through its path, and it tells when it is gone */
	if (user_data != NULL)
		m->user_data = *user_data;
	*mmap = m;
	return DOCA_SUCCESS;
}

static void fault_watch_import(struct doca_mmap *m)
{
	uint64_t at = ferry_fault_export_revoke_at();

	if (at == 0)
		return;
	m->fault = calloc(1, sizeof(*m->fault));
	if (m->fault == NULL) {
		FERRY_ERR("mmap %p: no memory to count its uses for FERRY_FAULT; it is never revoked", (void *)m);
		return;
	}
	m->fault->revoke_at = at;
	atomic_init(&m->fault->uses, 0);
}

bool ferry_mmap_fault_count_use(const struct doca_mmap *mmap)
{
	struct ferry_mmap_fault *f = mmap->fault;
	uint64_t n;

	if (ferry_mmap_fault_revoked(mmap))
		return true; /* for good; the counter stops */
	n = atomic_fetch_add_explicit(&f->uses, 1, memory_order_relaxed) + 1;
	if (n < f->revoke_at)
		return false;
	if (n == f->revoke_at)
		FERRY_WARN("mmap %p (imported from pid %u): revoked at its use %llu by FERRY_FAULT "
			   "(mmap.export:after=%llu:action=revoke); its tasks fail from now on",
			   (const void *)mmap, ferry_link_import_pid(mmap->link_import), (unsigned long long)n,
			   (unsigned long long)(f->revoke_at - 1));
	return true;
}

doca_error_t doca_mmap_create_from_export(const union doca_data *user_data, const void *export_desc,
					  size_t export_desc_len, struct doca_dev *dev, struct doca_mmap **mmap)
{
	const char *call = __func__;
	struct ferry_link_view view;
	struct ferry_link_import *imp;
	struct doca_mmap *m = NULL;

	if (export_desc == NULL || dev == NULL || mmap == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL",
				     export_desc == NULL ? "export_desc" : (dev == NULL ? "dev" : "mmap"));
	if (export_desc_len == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "export_desc_len is 0");
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device", (void *)dev);
	if (desc_is_rdma(export_desc, export_desc_len))
		return create_from_rdma_export(user_data, export_desc, export_desc_len, dev, mmap, call);
	doca_error_t err = ferry_link_import_open(
		export_desc, export_desc_len, ferry_devinfo_machine(doca_dev_as_devinfo(dev)), 0, call, &imp, &view);
	if (err != DOCA_SUCCESS)
		return err;
	err = doca_mmap_create(&m);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_add_dev(m, dev);
	if (err != DOCA_SUCCESS) {
		if (m != NULL)
			doca_mmap_destroy(m);
		ferry_link_import_close(imp);
		return err;
	}
	/* The map describes the exporter's addresses, mapped at the same place here. */
	m->addr = view.addr;
	m->len = view.len;
	m->memrange_set = true;
	m->access = view.access;
	m->from_export = true;
	m->started = true;
	m->ever_started = true;
	m->link_import = imp;
	if (user_data != NULL)
		m->user_data = *user_data;
	fault_watch_import(m);
	*mmap = m;
	return DOCA_SUCCESS;
}

/* Every device can reach the emulated link. */
doca_error_t doca_mmap_cap_is_export_pci_supported(const struct doca_devinfo *devinfo, uint8_t *mmap_export)
{
	FERRY_ARG_NOT_NULL(devinfo);
	FERRY_ARG_NOT_NULL(mmap_export);
	*mmap_export = 1;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_cap_is_create_from_export_pci_supported(const struct doca_devinfo *devinfo, uint8_t *from_export)
{
	FERRY_ARG_NOT_NULL(devinfo);
	FERRY_ARG_NOT_NULL(from_export);
	*from_export = 1;
	return DOCA_SUCCESS;
}

/* ---- internal view (ferry_memview.h; its readers are inline) ---- */

const struct ferry_access *ferry_mmap_access_path(const struct doca_mmap *mmap)
{
	return mmap->link_import != NULL ? ferry_link_import_access(mmap->link_import) : NULL;
}
