/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_log.h - how Ferry's own code logs (the SDK side of doca_log).
 *
 * Library code logs through these macros, never through DOCA_LOG_*: its lines are
 * filtered by the SDK level (doca_log_backend_set_sdk_level) and go to the SDK
 * backends, exactly as DOCA's own library logs do.
 *
 * Convention for a violated rule: one line that names the public call, the object
 * and the rule, then return DOCA's error code. The call's name is never written by
 * hand in the message: FERRY_RULE takes it from __func__, FERRY_RULE_IN from
 * its first argument (a helper checking for a public call):
 *
 *     return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
 *                          "context '%s' is %s; tasks need RUNNING",
 *                          ctx->name, state_name);
 */
#ifndef FERRY_LOG_H_
#define FERRY_LOG_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>
#include <doca_log.h>

#include "common/ferry_abi.h"

/** Emit one SDK log line from @p module (a short static name like "dma"). */
FERRY_PRIVATE_API
void ferry_log_sdk(enum doca_log_level level, const char *module, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** True when an SDK line at @p level would be written somewhere (skip costly formatting). */
int ferry_log_sdk_enabled(enum doca_log_level level);

/** Each .c file that logs names its module once. */
#define FERRY_LOG_MODULE(name) static const char ferry_log_module_[] = name

#define FERRY_LOG_AT(level, ...) ferry_log_sdk((level), ferry_log_module_, __VA_ARGS__)
#define FERRY_CRIT(...)          FERRY_LOG_AT(DOCA_LOG_LEVEL_CRIT, __VA_ARGS__)
#define FERRY_ERR(...)           FERRY_LOG_AT(DOCA_LOG_LEVEL_ERROR, __VA_ARGS__)
#define FERRY_WARN(...)          FERRY_LOG_AT(DOCA_LOG_LEVEL_WARNING, __VA_ARGS__)
#define FERRY_INFO(...)          FERRY_LOG_AT(DOCA_LOG_LEVEL_INFO, __VA_ARGS__)
#define FERRY_DBG(...)           FERRY_LOG_AT(DOCA_LOG_LEVEL_DEBUG, __VA_ARGS__)

/**
 * Count one more occurrence in *@p count and say whether to log it: true for
 * the 1st, 2nd, 4th, 8th, ... occurrence (*@p nth gets its number). What a
 * peer can repeat at will (refused connections, say) then costs a logarithmic
 * number of lines, never a flood.
 */
static inline bool ferry_log_sampled(_Atomic uint64_t *count, uint64_t *nth)
{
	uint64_t n = atomic_fetch_add_explicit(count, 1, memory_order_relaxed) + 1;

	*nth = n;
	return (n & (n - 1)) == 0;
}

/**
 * Log a violated rule at error level as "<call>: <message>" and evaluate to
 * @p err. For a helper that checks on behalf of the public call @p call.
 * @p fmt must be a string literal.
 */
#define FERRY_RULE_IN(call, err, fmt, ...) \
	(ferry_log_sdk(DOCA_LOG_LEVEL_ERROR, ferry_log_module_, "%s: " fmt, (call), ##__VA_ARGS__), (err))

/** FERRY_RULE_IN for the function the check sits in: its name comes from __func__. */
#define FERRY_RULE(err, fmt, ...) FERRY_RULE_IN(__func__, err, fmt, ##__VA_ARGS__)

/**
 * The one NULL-argument check: return DOCA_ERROR_INVALID_VALUE from the
 * enclosing function, with the line "<function>: <arg> is NULL", when @p arg is NULL.
 */
#define FERRY_ARG_NOT_NULL(arg)                                                          \
	do {                                                                             \
		if ((arg) == NULL)                                                       \
			return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "%s is NULL", #arg); \
	} while (0)

#endif /* FERRY_LOG_H_ */
