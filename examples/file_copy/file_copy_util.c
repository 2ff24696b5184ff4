/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * file_copy_util.c - the helpers both sides of the file copy example use:
 * flags, devices, logging, the clock (see file_copy.h).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <doca_log.h>

#include "file_copy.h"

double fc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

doca_error_t fc_add_param(const char *short_name, const char *long_name, const char *descr, doca_argp_param_cb_t cb,
			  enum doca_argp_type type)
{
	struct doca_argp_param *param = NULL;
	doca_error_t err = doca_argp_param_create(&param);

	if (err != DOCA_SUCCESS)
		return err;
	if (short_name != NULL)
		doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	doca_argp_param_set_description(param, descr);
	doca_argp_param_set_callback(param, cb);
	doca_argp_param_set_type(param, type);
	return doca_argp_register_param(param);
}

doca_error_t fc_copy_flag(char *dst, size_t size, const char *flag, const char *what)
{
	if (strlen(flag) >= size) {
		fprintf(stderr, "%s '%s' is too long (at most %zu characters)\n", what, flag, size - 1);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(dst, flag);
	return DOCA_SUCCESS;
}

doca_error_t fc_open_dev(const char *pci, doca_error_t (*cap)(const struct doca_devinfo *), struct doca_dev **dev)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	doca_error_t err = doca_devinfo_create_list(&list, &n);

	if (err != DOCA_SUCCESS)
		return err;
	*dev = NULL;
	err = DOCA_ERROR_NOT_FOUND;
	for (uint32_t i = 0; i < n && *dev == NULL; i++) {
		uint8_t match = 0;

		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &match) != DOCA_SUCCESS || !match)
			continue;
		if (cap(list[i]) == DOCA_SUCCESS)
			err = doca_dev_open(list[i], dev);
	}
	(void)doca_devinfo_destroy_list(list);
	return err;
}

doca_error_t fc_log_init(void)
{
	struct doca_log_backend *sdk_log = NULL;
	doca_error_t err = doca_log_backend_create_standard();

	if (err == DOCA_SUCCESS)
		err = doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	if (err == DOCA_SUCCESS)
		err = doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	return err;
}
