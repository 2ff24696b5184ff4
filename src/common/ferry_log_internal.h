/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_log_internal.h - helpers of the log module shared with argp and with tests.
 */
#ifndef FERRY_LOG_INTERNAL_H_
#define FERRY_LOG_INTERNAL_H_

#include <stdint.h>

#include <doca_error.h>

#include "common/ferry_abi.h"

/**
 * Parse a level given by a user: a number 10..70 that is one of enum doca_log_level,
 * or a name, case-insensitive: disable, crit(ical), err(or), warn(ing), info,
 * debug/dbg, trace/trc.
 * @return DOCA_SUCCESS and *level set, or DOCA_ERROR_INVALID_VALUE.
 */
FERRY_PRIVATE_API
doca_error_t ferry_log_level_parse(const char *text, uint32_t *level);

/** True when @p level is one of enum doca_log_level. */
int ferry_log_level_is_valid(uint32_t level);

/** Short upper-case tag of a level as printed in lines ("ERR"), "???" if unknown. */
const char *ferry_log_level_tag(uint32_t level);

/**
 * Tests only: forget every backend and restore the default limits, then re-read
 * FERRY_LOG_LEVEL, as if the process had just started. Registered sources stay.
 * Streams given to backends are not closed (the caller owns them).
 */
void ferry_log_reset_for_tests(void);

#endif /* FERRY_LOG_INTERNAL_H_ */
