/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch_util.h - what the Comch tests and the peer program share: opening the
 * DPU-side device with the representor of a host function, or the host-side
 * device, through the public API only (ferry_test_dev.h, the way a DOCA program does it).
 */
#ifndef FERRY_TEST_COMCH_UTIL_H_
#define FERRY_TEST_COMCH_UTIL_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>

#include "ferry_test_dev.h"

static inline struct doca_dev *cu_open_host_dev(void)
{
	return ferry_test_open_dev(NULL, doca_comch_cap_client_is_supported);
}

static inline struct doca_dev *cu_open_dpu_dev(void)
{
	return ferry_test_open_dev(NULL, doca_comch_cap_server_is_supported);
}

#endif /* FERRY_TEST_COMCH_UTIL_H_ */
