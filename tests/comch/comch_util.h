/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch_util.h - what the Comch tests and the peer program share: opening the
 * DPU-side device with the representor of a host function, or the host-side
 * device, through the public API only (the way a DOCA program does it).
 */
#ifndef FERRY_TEST_COMCH_UTIL_H_
#define FERRY_TEST_COMCH_UTIL_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>

/* The first device on which @p cap answers DOCA_SUCCESS (and at @p pci, unless NULL), opened. */
static inline struct doca_dev *cu_open_dev_at(doca_error_t (*cap)(const struct doca_devinfo *), const char *pci)
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
		if (eq && cap(list[i]) == DOCA_SUCCESS && doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;
	}
	doca_devinfo_destroy_list(list);
	return dev;
}

static inline struct doca_dev *cu_open_dev(doca_error_t (*cap)(const struct doca_devinfo *))
{
	return cu_open_dev_at(cap, NULL);
}

static inline struct doca_dev *cu_open_host_dev(void)
{
	return cu_open_dev(doca_comch_cap_client_is_supported);
}

static inline struct doca_dev *cu_open_dpu_dev(void)
{
	return cu_open_dev(doca_comch_cap_server_is_supported);
}

/* The first network representor (at @p pci, unless NULL) of an open DPU-side device, opened. */
static inline struct doca_dev_rep *cu_open_rep_at(struct doca_dev *dpu, const char *pci)
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
	doca_devinfo_rep_destroy_list(reps);
	return rep;
}

static inline struct doca_dev_rep *cu_open_rep(struct doca_dev *dpu)
{
	return cu_open_rep_at(dpu, NULL);
}

#endif /* FERRY_TEST_COMCH_UTIL_H_ */
