/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_log.h (DOCA 1.4 flavour) - a program's log lines.
 *
 * Each source file registers once at file scope (DOCA_LOG_REGISTER(NAME);),
 * then DOCA_LOG_ERR and friends print: as in DOCA 1.x, a program sets up no
 * backend; the first registration sends lines to standard output (errors and
 * worse also to standard error). DOCA_DLOG_* are developer lines, compiled only with
 * DOCA_LOGGING_ALLOW_DLOG.
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Verbosity levels; the numbers are what -l/--log-level takes. */
enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10,
	DOCA_LOG_LEVEL_CRIT = 20,
	DOCA_LOG_LEVEL_ERROR = 30,
	DOCA_LOG_LEVEL_WARNING = 40,
	DOCA_LOG_LEVEL_INFO = 50,
	DOCA_LOG_LEVEL_DEBUG = 60,
	DOCA_LOG_LEVEL_TRACE = 70,
};

/** Register a source by name (and, the first time, the standard output); DOCA_LOG_REGISTER calls it. */
__DOCA_EXPERIMENTAL doca_error_t doca_log_register_source(const char *source_name, int *source)
	FERRY_LEGACY_SYMBOL(ferry_v14_log_register_source);

/** Write one line; use the macros below. */
__DOCA_EXPERIMENTAL doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
					  const char *format, ...) __attribute__((format(printf, 6, 7)));

#define DOCA_LOG(level, ...) doca_log((level), log_source, __FILE__, __LINE__, __func__, __VA_ARGS__)
#define DOCA_LOG_CRIT(...)   DOCA_LOG(DOCA_LOG_LEVEL_CRIT, __VA_ARGS__)
#define DOCA_LOG_ERR(...)    DOCA_LOG(DOCA_LOG_LEVEL_ERROR, __VA_ARGS__)
#define DOCA_LOG_WARN(...)   DOCA_LOG(DOCA_LOG_LEVEL_WARNING, __VA_ARGS__)
#define DOCA_LOG_INFO(...)   DOCA_LOG(DOCA_LOG_LEVEL_INFO, __VA_ARGS__)
#define DOCA_LOG_DBG(...)    DOCA_LOG(DOCA_LOG_LEVEL_DEBUG, __VA_ARGS__)

/* A line the compiler checks but drops (developer and trace lines when not enabled). */
#define FERRY_LOG_DROPPED_(level, ...)                  \
	do {                                            \
		if (0)                                  \
			DOCA_LOG((level), __VA_ARGS__); \
	} while (0)

#ifdef DOCA_LOGGING_ALLOW_DLOG
#define DOCA_DLOG_CRIT(...) DOCA_LOG(DOCA_LOG_LEVEL_CRIT, __VA_ARGS__)
#define DOCA_DLOG_ERR(...)  DOCA_LOG(DOCA_LOG_LEVEL_ERROR, __VA_ARGS__)
#define DOCA_DLOG_WARN(...) DOCA_LOG(DOCA_LOG_LEVEL_WARNING, __VA_ARGS__)
#define DOCA_DLOG_INFO(...) DOCA_LOG(DOCA_LOG_LEVEL_INFO, __VA_ARGS__)
#define DOCA_DLOG_DBG(...)  DOCA_LOG(DOCA_LOG_LEVEL_DEBUG, __VA_ARGS__)
#else
#define DOCA_DLOG_CRIT(...) FERRY_LOG_DROPPED_(DOCA_LOG_LEVEL_CRIT, __VA_ARGS__)
#define DOCA_DLOG_ERR(...)  FERRY_LOG_DROPPED_(DOCA_LOG_LEVEL_ERROR, __VA_ARGS__)
#define DOCA_DLOG_WARN(...) FERRY_LOG_DROPPED_(DOCA_LOG_LEVEL_WARNING, __VA_ARGS__)
#define DOCA_DLOG_INFO(...) FERRY_LOG_DROPPED_(DOCA_LOG_LEVEL_INFO, __VA_ARGS__)
#define DOCA_DLOG_DBG(...)  FERRY_LOG_DROPPED_(DOCA_LOG_LEVEL_DEBUG, __VA_ARGS__)
#endif

#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_TRC(...) DOCA_LOG(DOCA_LOG_LEVEL_TRACE, __VA_ARGS__)
#else
#define DOCA_LOG_TRC(...) FERRY_LOG_DROPPED_(DOCA_LOG_LEVEL_TRACE, __VA_ARGS__)
#endif

/** Register this file's log source before main() runs; once per file, at file scope, with a semicolon. */
#define DOCA_LOG_REGISTER(source)                                                              \
	static int log_source;                                                                 \
	static void __attribute__((constructor(101), used)) doca_log_register_this_file_(void) \
	{                                                                                      \
		doca_log_register_source(#source, &log_source);                                \
	}                                                                                      \
	struct doca_log_register_swallow_semicolon_

#ifdef __cplusplus
}
#endif

#endif /* DOCA_LOG_H_ */
