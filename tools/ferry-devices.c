/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry-devices - list the emulated devices and their representors, the way
 * DOCA's "doca_caps --list-devs" lists real ones. Uses only the public API,
 * so it also shows what a DOCA program would see.
 *
 *   ferry-devices          one line per device, representors indented under it
 *   FERRY_TOPOLOGY=f ferry-devices   the same for the machine described in f
 */
#include <stdio.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_error.h>

#include "core/ferry_dev.h"

static const char *func_type_name(enum doca_pci_func_type type)
{
	switch (type) {
	case DOCA_PCI_FUNC_TYPE_PF:
		return "PF";
	case DOCA_PCI_FUNC_TYPE_VF:
		return "VF";
	case DOCA_PCI_FUNC_TYPE_SF:
		return "SF";
	}
	return "?";
}

static void print_rep(struct doca_devinfo_rep *rep, const char *kind)
{
	char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE] = "";
	char iface[DOCA_DEVINFO_IFACE_NAME_SIZE] = "";
	char vuid[DOCA_DEVINFO_REP_VUID_SIZE] = "";
	enum doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_PF;

	(void)doca_devinfo_rep_get_pci_addr_str(rep, pci);
	(void)doca_devinfo_rep_get_iface_name(rep, iface, sizeof(iface));
	(void)doca_devinfo_rep_get_vuid(rep, vuid, sizeof(vuid));
	(void)doca_devinfo_rep_get_pci_func_type(rep, &type);
	printf("    rep %s  %-12s %-3s %-8s vuid %s\n", pci, iface, func_type_name(type), kind, vuid);
}

static void print_reps_of(struct doca_devinfo *info, int filter, const char *kind)
{
	struct doca_devinfo_rep **reps;
	struct doca_dev *dev;
	uint32_t n;

	if (doca_dev_open(info, &dev) != DOCA_SUCCESS)
		return;
	if (doca_devinfo_rep_create_list(dev, filter, &reps, &n) == DOCA_SUCCESS) {
		for (uint32_t i = 0; i < n; i++)
			print_rep(reps[i], kind);
		doca_devinfo_rep_destroy_list(reps);
	}
	doca_dev_close(dev);
}

static void print_dev(struct doca_devinfo *info)
{
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE] = "";
	char iface[DOCA_DEVINFO_IFACE_NAME_SIZE] = "";
	char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE] = "";
	enum doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_PF;
	const struct ferry_dma_caps *dma = ferry_devinfo_dma_caps(info);
	uint8_t has_reps = 0;
	uint32_t sf;

	(void)doca_devinfo_get_pci_addr_str(info, pci);
	(void)doca_devinfo_get_iface_name(info, iface, sizeof(iface));
	(void)doca_devinfo_get_ibdev_name(info, ibdev, sizeof(ibdev));
	(void)doca_devinfo_get_pci_func_type(info, &type);
	printf("%s  %-12s %-8s %-3s", pci, iface, ibdev, func_type_name(type));
	if (type == DOCA_PCI_FUNC_TYPE_SF && doca_devinfo_get_sf_index(info, &sf) == DOCA_SUCCESS)
		printf(" sf %u", sf);
	printf("  dpu %u %s side  dma memcpy max %llu B x %u bufs, %u tasks\n", ferry_devinfo_machine(info),
	       ferry_devinfo_side(info) == FERRY_SIDE_DPU ? "DPU" : "host", (unsigned long long)dma->max_buf_size,
	       dma->max_buf_list_len, dma->max_num_tasks);
	(void)doca_devinfo_rep_cap_is_filter_all_supported(info, &has_reps);
	if (has_reps) {
		print_reps_of(info, DOCA_DEVINFO_REP_FILTER_NET, "net");
		print_reps_of(info, DOCA_DEVINFO_REP_FILTER_EMULATED, "emulated");
	}
}

int main(int argc, char **argv)
{
	struct doca_devinfo **list;
	uint32_t n;
	doca_error_t err;

	if (argc > 1) {
		fprintf(stderr, "usage: %s\n(lists emulated devices; FERRY_TOPOLOGY names another machine)\n", argv[0]);
		return strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ? 0 : 2;
	}
	err = doca_devinfo_create_list(&list, &n);
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "ferry-devices: cannot list devices: %s\n", doca_error_get_descr(err));
		return 1;
	}
	for (uint32_t i = 0; i < n; i++)
		print_dev(list[i]);
	doca_devinfo_destroy_list(list);
	return 0;
}
