/* SPDX-License-Identifier: BSD-3-Clause */
/* legacy22_util.c - see legacy22_util.h. */
#include <stdio.h>
#include <stdlib.h>

#include <doca_error.h>

#include "legacy22_util.h"

static void must(doca_error_t r, const char *what)
{
	if (r != DOCA_SUCCESS) {
		fprintf(stderr, "%s: %s\n", what, doca_get_error_name(r));
		exit(1);
	}
}

struct doca_dev *l22_open_dev(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	must(doca_devinfo_list_create(&list, &n), "doca_devinfo_list_create");
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		uint8_t eq = 0;

		if (doca_devinfo_get_is_pci_addr_equal(list[i], pci, &eq) == DOCA_SUCCESS && eq)
			must(doca_dev_open(list[i], &dev), "doca_dev_open");
	}
	must(doca_devinfo_list_destroy(list), "doca_devinfo_list_destroy");
	if (dev == NULL) {
		fprintf(stderr, "no device at %s\n", pci);
		exit(1);
	}
	return dev;
}

struct doca_dev_rep *l22_open_rep(struct doca_dev *dev, const char *pci)
{
	struct doca_devinfo_rep **list;
	struct doca_dev_rep *rep = NULL;
	uint32_t n;

	must(doca_devinfo_rep_list_create(dev, DOCA_DEV_REP_FILTER_NET, &list, &n), "doca_devinfo_rep_list_create");
	for (uint32_t i = 0; i < n && rep == NULL; i++) {
		uint8_t eq = 0;

		if (doca_devinfo_rep_get_is_pci_addr_equal(list[i], pci, &eq) == DOCA_SUCCESS && eq)
			must(doca_dev_rep_open(list[i], &rep), "doca_dev_rep_open");
	}
	must(doca_devinfo_rep_list_destroy(list), "doca_devinfo_rep_list_destroy");
	if (rep == NULL) {
		fprintf(stderr, "no representor at %s\n", pci);
		exit(1);
	}
	return rep;
}
