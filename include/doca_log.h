/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_log.h - DOCA logging: levels, log sources, backends.
 *
 * Two audiences log through this module:
 *  - the application, with DOCA_LOG_ERR() and friends after DOCA_LOG_REGISTER(name)
 *    in each source file; its lines go to the *application* backends
 *    (doca_log_backend_create_standard, _with_file, _with_fd, _with_buf, _with_syslog)
 *    and are filtered by each backend's lower and upper limit;
 *  - the SDK (Ferry itself); its lines go to the *SDK* backends (the _sdk creators)
 *    and are filtered by each backend's SDK level.
 *
 * Levels are ordered by verbosity: a larger number is more verbose. A backend's
 * "lower limit" is the most verbose level it still shows (default INFO), its
 * "upper limit" the least verbose (default CRIT); an application line at level L
 * is shown when upper <= L <= lower. An SDK backend shows SDK lines with
 * CRIT <= L <= its SDK level.
 *
 * Ferry's default when a program created no SDK backend: SDK lines at ERROR and more
 * severe still go to stderr, so a violated API rule is never silent. The environment
 * variable FERRY_LOG_LEVEL changes that fallback level; it takes a level name
 * (disable, crit, error, warning, info, debug, trace, case-insensitive) or its number
 * (10..70). doca_log_level_set_global_sdk_limit() changes it too. As soon as a program
 * creates any SDK backend the fallback stops and only its backends get SDK lines.
 * With no application backend, application lines go nowhere, as in DOCA.
 *
 * Line format, one write per line:
 *   [HH:MM:SS.uuuuuu][pid][DOCA][LVL][source][file:line][function] message
 * (SDK lines carry "ferry/<module>" as source and no file, line or function).
 *
 * Backends live until the process exits; DOCA has no call to destroy one.
 *
 * @note Thread safety: every call here may be made from any thread. Lines from
 * concurrent threads never interleave within a backend.
 */
#ifndef DOCA_LOG_H_
#define DOCA_LOG_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <doca_compat.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Size of a buffer that holds any logger name, the terminating NUL included. */
#define DOCA_LOGGER_NAME_SIZE 256

/** Verbosity levels; the numbers are part of the API (command lines pass them). */
enum doca_log_level {
	DOCA_LOG_LEVEL_DISABLE = 10, /**< show nothing */
	DOCA_LOG_LEVEL_CRIT = 20,    /**< the program cannot go on */
	DOCA_LOG_LEVEL_ERROR = 30,   /**< an operation failed */
	DOCA_LOG_LEVEL_WARNING = 40, /**< something looks wrong but work goes on */
	DOCA_LOG_LEVEL_INFO = 50,    /**< normal progress */
	DOCA_LOG_LEVEL_DEBUG = 60,   /**< details for developers */
	DOCA_LOG_LEVEL_TRACE = 70,   /**< very fine detail; needs DOCA_LOGGING_ALLOW_TRACE */
};

/** A destination for log lines (a stream, a descriptor, a buffer or syslog). */
struct doca_log_backend;

/** A registered log source (see doca_log_register_source). */
struct doca_logger;

/** Called by a buffer backend after it wrote one line into the user's buffer. */
typedef void (*log_flush_callback)(char *buf);

/**
 * @brief How many application backends a process may create.
 * @return the limit.
 */
DOCA_EXPERIMENTAL uint32_t doca_log_get_max_num_backends(void);

/**
 * @brief How many SDK backends a process may create.
 * @return the limit.
 */
DOCA_EXPERIMENTAL uint32_t doca_log_get_max_num_backends_sdk(void);

/**
 * @brief Set the most verbose level an application backend shows.
 * @param [in] backend  an application backend.
 * @param [in] level    an enum doca_log_level value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL backend or a bad level;
 *         DOCA_ERROR_NOT_PERMITTED when the backend's lower limit is strict and the
 *         change would hide levels it shows now, or the backend is an SDK backend.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level);

/**
 * @brief Set the least verbose level an application backend shows.
 * @param [in] backend      an application backend.
 * @param [in] upper_limit  an enum doca_log_level value.
 * @return as doca_log_backend_set_level_lower_limit().
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend,
								      uint32_t upper_limit);

/**
 * @brief Freeze the lower limit against changes that would show fewer levels.
 * @param [in] backend  an application backend.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend);

/**
 * @brief Freeze the upper limit against changes that would show fewer levels.
 * @param [in] backend  an application backend.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend);

/**
 * @brief Set the lower limit of every application backend, and the default of new ones.
 * @param [in] level  an enum doca_log_level value (default INFO).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a bad level.
 * @note Backends whose lower limit is strict keep it when the change would narrow them.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_lower_limit(uint32_t level);

/**
 * @brief Set the upper limit of every application backend, and the default of new ones.
 * @param [in] upper_limit  an enum doca_log_level value (default CRIT).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a bad level.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit);

/**
 * @brief The global lower limit for application lines.
 * @return an enum doca_log_level value.
 */
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_lower_limit(void);

/**
 * @brief The global upper limit for application lines.
 * @return an enum doca_log_level value.
 */
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_upper_limit(void);

/**
 * @brief Register a log source; normally done for you by DOCA_LOG_REGISTER.
 * @param [in] source_name  the name shown in each line; longer names are cut to
 *                          DOCA_LOGGER_NAME_SIZE - 1 characters.
 * @param [out] source      the identifier to pass to doca_log().
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments;
 *         DOCA_ERROR_NO_MEMORY when the table of sources is full.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_register_source(const char *source_name, int *source);

/**
 * @brief Forget a log source. Kept for DOCA compatibility; the slot stays reserved.
 * @param [in] source  an identifier from doca_log_register_source().
 * @return DOCA_SUCCESS always.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_unregister_source(int source);

/**
 * @brief Create an application backend writing to a stdio stream.
 * @param [in] fptr      the stream; Ferry flushes it after every line.
 * @param [out] backend  the new backend.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments;
 *         DOCA_ERROR_NO_MEMORY when the backend limit is reached.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend);

/**
 * @brief Create an application backend writing to a file descriptor (one write(2) per line).
 * @param [in] fd        an open descriptor.
 * @param [out] backend  the new backend.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a NULL output or a descriptor that
 *         is not open; DOCA_ERROR_NO_MEMORY when the backend limit is reached.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend);

/**
 * @brief Create an application backend that formats each line into a caller buffer and
 *        then calls @p handler with it. Lines longer than @p capacity - 1 are cut.
 * @param [in] buf       the buffer, owned by the caller, alive as long as the process logs.
 * @param [in] capacity  its size in bytes, more than zero.
 * @param [in] handler   called once per line, with @p buf.
 * @param [out] backend  the new backend.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments or zero capacity;
 *         DOCA_ERROR_NO_MEMORY when the backend limit is reached.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity, log_flush_callback handler,
								struct doca_log_backend **backend);

/**
 * @brief Create an application backend that sends lines to syslog(3).
 * @param [in] name      the identity given to openlog(3); copied.
 * @param [out] backend  the new backend.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL arguments;
 *         DOCA_ERROR_NO_MEMORY when the backend limit is reached.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend);

/**
 * @brief Set the most verbose SDK level an SDK backend shows.
 * @param [in] backend  an SDK backend.
 * @param [in] level    an enum doca_log_level value.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or a bad level;
 *         DOCA_ERROR_NOT_PERMITTED for an application backend.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level);

/**
 * @brief Create an SDK backend writing to a stdio stream.
 * @param [in] fptr      the stream.
 * @param [out] backend  the new backend; its SDK level starts at the global SDK limit.
 * @return as doca_log_backend_create_with_file().
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend);

/**
 * @brief Create an SDK backend writing to a file descriptor.
 * @param [in] fd        an open descriptor.
 * @param [out] backend  the new backend.
 * @return as doca_log_backend_create_with_fd().
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend);

/**
 * @brief Create an SDK backend writing into a caller buffer, then calling @p handler.
 * @param [in] buf       the buffer.
 * @param [in] capacity  its size in bytes, more than zero.
 * @param [in] handler   called once per line.
 * @param [out] backend  the new backend.
 * @return as doca_log_backend_create_with_buf().
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity,
								    log_flush_callback handler,
								    struct doca_log_backend **backend);

/**
 * @brief Create an SDK backend that sends lines to syslog(3).
 * @param [in] name      the identity given to openlog(3).
 * @param [out] backend  the new backend.
 * @return as doca_log_backend_create_with_syslog().
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name,
								       struct doca_log_backend **backend);

/**
 * @brief Set the SDK level of every SDK backend (and of Ferry's stderr fallback), and
 *        the starting level of SDK backends created later.
 * @param [in] level  an enum doca_log_level value (default INFO).
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for a bad level.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level);

/**
 * @brief The global SDK limit.
 * @return an enum doca_log_level value.
 */
DOCA_EXPERIMENTAL uint32_t doca_log_level_get_global_sdk_limit(void);

/**
 * @brief Create the usual pair of application backends: stdout for INFO and more verbose
 *        (down to the global lower limit), stderr for WARNING and more severe (up to the
 *        global upper limit). Their limits follow the global ones and cannot be set directly.
 * @return DOCA_SUCCESS; DOCA_ERROR_NO_MEMORY when the backend limit is reached.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log_backend_create_standard(void);

/**
 * @brief Write one application line; use the DOCA_LOG_* macros instead.
 * @param [in] level   an enum doca_log_level value other than DISABLE.
 * @param [in] source  an identifier from doca_log_register_source().
 * @param [in] fname   source file of the call.
 * @param [in] line    line of the call.
 * @param [in] func    function of the call.
 * @param [in] format  printf(3) format, followed by its arguments.
 * @return DOCA_SUCCESS (also when no backend shows the line);
 *         DOCA_ERROR_INVALID_VALUE for an unknown source, a bad level or a NULL format.
 */
DOCA_EXPERIMENTAL doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func,
					const char *format, ...) __attribute__((format(printf, 6, 7)));

/**
 * Log at @p level from the source registered in this file. The format string is the
 * first of the variable arguments; written with plain __VA_ARGS__ so it builds under
 * -pedantic.
 */
#define DOCA_LOG(level, ...) doca_log((level), log_source, __FILE__, __LINE__, __func__, __VA_ARGS__)

/** Critical application line (printf-style arguments). */
#define DOCA_LOG_CRIT(...) DOCA_LOG(DOCA_LOG_LEVEL_CRIT, __VA_ARGS__)
/** Error application line. */
#define DOCA_LOG_ERR(...)  DOCA_LOG(DOCA_LOG_LEVEL_ERROR, __VA_ARGS__)
/** Warning application line. */
#define DOCA_LOG_WARN(...) DOCA_LOG(DOCA_LOG_LEVEL_WARNING, __VA_ARGS__)
/** Informational application line. */
#define DOCA_LOG_INFO(...) DOCA_LOG(DOCA_LOG_LEVEL_INFO, __VA_ARGS__)
/** Debug application line (always compiled; filtered at run time). */
#define DOCA_LOG_DBG(...)  DOCA_LOG(DOCA_LOG_LEVEL_DEBUG, __VA_ARGS__)

/**
 * Trace application line. Compiled only when DOCA_LOGGING_ALLOW_TRACE is defined;
 * otherwise the call is dead code: it costs nothing, yet the compiler still checks
 * the format and sees the arguments used.
 */
#ifdef DOCA_LOGGING_ALLOW_TRACE
#define DOCA_LOG_TRC(...) DOCA_LOG(DOCA_LOG_LEVEL_TRACE, __VA_ARGS__)
#else
#define DOCA_LOG_TRC(...)                                            \
	do {                                                         \
		if (0)                                               \
			DOCA_LOG(DOCA_LOG_LEVEL_TRACE, __VA_ARGS__); \
	} while (0)
#endif

/**
 * Register this source file's log source once, before main() runs (a constructor with
 * a high priority, so other constructors may already log). Use once per file, at file
 * scope, followed by a semicolon (the macro ends in a declaration that needs it, so the
 * file also builds under -pedantic):
 *
 *     DOCA_LOG_REGISTER(DMA_COPY);
 */
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
