/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_test_dev.h - opening a device or a representor the way a DOCA program
 * does it, through the public API only: the user-style programs (link_host,
 * link_dpu, the Comch peers) include it as well as the fixtures and benches,
 * so it must not reach past include/.
 */
#ifndef FERRY_TEST_DEV_H_
#define FERRY_TEST_DEV_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_dev.h>

/*
 * The first device at @p pci (any, when NULL) on which @p cap answers
 * DOCA_SUCCESS (no check, when NULL), opened; NULL when none opens.
 */
static inline struct doca_dev *ferry_test_open_dev(const char *pci, doca_error_t (*cap)(const struct doca_devinfo *))
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		uint8_t eq = 1;

		if (pci != NULL && doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) != DOCA_SUCCESS)
			eq = 0;
		if (eq && (cap == NULL || cap(list[i]) == DOCA_SUCCESS) && doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;
	}
	(void)doca_devinfo_destroy_list(list);
	return dev;
}

/* The first network representor (at @p pci, unless NULL) of an open DPU-side device, opened. */
static inline struct doca_dev_rep *ferry_test_open_rep(struct doca_dev *dpu, const char *pci)
{
	struct doca_devinfo_rep **reps = NULL;
	struct doca_dev_rep *rep = NULL;
	uint32_t n = 0;

	if (doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && rep == NULL; i++) {
		uint8_t eq = 1;

		if (pci != NULL && doca_devinfo_rep_is_equal_pci_addr(reps[i], pci, &eq) != DOCA_SUCCESS)
			eq = 0;
		if (eq && doca_dev_rep_open(reps[i], &rep) != DOCA_SUCCESS)
			rep = NULL;
	}
	(void)doca_devinfo_rep_destroy_list(reps);
	return rep;
}

#endif /* FERRY_TEST_DEV_H_ */
