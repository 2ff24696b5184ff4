/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_env.h - the one reader of numbers from environment variables.
 *
 * Unset or empty: the default, quietly. Anything else must be a whole number,
 * decimal or 0x-hexadecimal, with nothing around it (no sign, no space, no
 * unit), within the given bounds; otherwise one warning names the variable,
 * the rule and the default used, and the default is what the caller gets.
 */
#ifndef FERRY_ENV_H_
#define FERRY_ENV_H_

#include <stdint.h>

#include "common/ferry_abi.h"

/** The number in environment variable @p var, in [@p min, @p max], else @p dflt (see above). */
FERRY_PRIVATE_API
uint64_t ferry_env_u64(const char *var, uint64_t min, uint64_t max, uint64_t dflt);

#endif /* FERRY_ENV_H_ */
