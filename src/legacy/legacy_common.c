/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy_common.c - names of DOCA 1.x/2.x that later releases renamed without
 * changing what they do: each is the DOCA 3 call under its old name.
 */
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_types.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "legacy/legacy_api.h"

const char *doca_get_error_string(doca_error_t error)
{
	return doca_error_get_descr(error);
}

const char *doca_get_error_name(doca_error_t error)
{
	return doca_error_get_name(error);
}

doca_error_t doca_log_create_standard_backend(void)
{
	return doca_log_backend_create_standard();
}

doca_error_t doca_devinfo_list_create(struct doca_devinfo ***dev_list, uint32_t *nb_devs)
{
	return doca_devinfo_create_list(dev_list, nb_devs);
}

doca_error_t doca_devinfo_list_destroy(struct doca_devinfo **dev_list)
{
	return doca_devinfo_destroy_list(dev_list);
}

doca_error_t doca_devinfo_get_is_pci_addr_equal(const struct doca_devinfo *devinfo, const char *pci_addr,
						uint8_t *is_equal)
{
	return doca_devinfo_is_equal_pci_addr(devinfo, pci_addr, is_equal);
}

doca_error_t doca_devinfo_rep_list_create(struct doca_dev *dev, int filter, struct doca_devinfo_rep ***dev_list_rep,
					  uint32_t *nb_devs_rep)
{
	return doca_devinfo_rep_create_list(dev, filter, dev_list_rep, nb_devs_rep);
}

doca_error_t doca_devinfo_rep_list_destroy(struct doca_devinfo_rep **dev_list_rep)
{
	return doca_devinfo_rep_destroy_list(dev_list_rep);
}

doca_error_t doca_devinfo_rep_get_is_pci_addr_equal(const struct doca_devinfo_rep *devinfo_rep, const char *pci_addr,
						    uint8_t *is_equal)
{
	return doca_devinfo_rep_is_equal_pci_addr(devinfo_rep, pci_addr, is_equal);
}

doca_error_t doca_buf_refcount_add(struct doca_buf *buf, uint16_t *refcount)
{
	return doca_buf_inc_refcount(buf, refcount);
}

doca_error_t doca_buf_refcount_rm(struct doca_buf *buf, uint16_t *refcount)
{
	return doca_buf_dec_refcount(buf, refcount);
}

doca_error_t doca_buf_inventory_buf_by_args(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *addr,
					    size_t len, void *data, size_t data_len, struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, addr, len, data, data_len, buf);
}

/* Head and data at addr, no data yet: the copy's destination, or a source once doca_buf_set_data gives it bytes. */
doca_error_t doca_buf_inventory_buf_by_addr(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *addr,
					    size_t len, struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, addr, len, addr, 0, buf);
}

/* Head and data at data, all of it data: a source as it comes. */
doca_error_t doca_buf_inventory_buf_by_data(struct doca_buf_inventory *inventory, struct doca_mmap *mmap, void *data,
					    size_t data_len, struct doca_buf **buf)
{
	return doca_buf_inventory_buf_get_by_args(inventory, mmap, data, data_len, data, data_len, buf);
}

doca_error_t doca_mmap_dev_add(struct doca_mmap *mmap, struct doca_dev *dev)
{
	return doca_mmap_add_dev(mmap, dev);
}

doca_error_t doca_mmap_dev_rm(struct doca_mmap *mmap, struct doca_dev *dev)
{
	return doca_mmap_rm_dev(mmap, dev);
}

/* 2.x: "the DPU" is the other side of PCI, and the descriptor the one DOCA 3 calls a PCI export. */
doca_error_t doca_mmap_export_dpu(struct doca_mmap *mmap, const struct doca_dev *dev, const void **export_desc,
				  size_t *export_desc_len)
{
	return doca_mmap_export_pci(mmap, dev, export_desc, export_desc_len);
}
