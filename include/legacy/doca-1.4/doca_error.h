/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_error.h (DOCA 1.4 flavour) - the error codes of DOCA 1.x (0 to 22,
 * numbered as every later DOCA numbers them) and the calls that describe them.
 */
#ifndef DOCA_ERROR_H_
#define DOCA_ERROR_H_

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Result of every DOCA call. */
typedef enum doca_error {
	DOCA_SUCCESS = 0,
	DOCA_ERROR_UNKNOWN = 1,
	DOCA_ERROR_NOT_PERMITTED = 2,
	DOCA_ERROR_IN_USE = 3,
	DOCA_ERROR_NOT_SUPPORTED = 4,
	DOCA_ERROR_AGAIN = 5,
	DOCA_ERROR_INVALID_VALUE = 6,
	DOCA_ERROR_NO_MEMORY = 7,
	DOCA_ERROR_INITIALIZATION = 8,
	DOCA_ERROR_TIME_OUT = 9,
	DOCA_ERROR_SHUTDOWN = 10,
	DOCA_ERROR_CONNECTION_RESET = 11,
	DOCA_ERROR_CONNECTION_ABORTED = 12,
	DOCA_ERROR_CONNECTION_INPROGRESS = 13,
	DOCA_ERROR_NOT_CONNECTED = 14,
	DOCA_ERROR_NO_LOCK = 15,
	DOCA_ERROR_NOT_FOUND = 16,
	DOCA_ERROR_IO_FAILED = 17,
	DOCA_ERROR_BAD_STATE = 18,
	DOCA_ERROR_UNSUPPORTED_VERSION = 19,
	DOCA_ERROR_OPERATING_SYSTEM = 20,
	DOCA_ERROR_DRIVER = 21,
	DOCA_ERROR_UNEXPECTED = 22,
} doca_error_t;

/** Keep the first error: when @p r is DOCA_SUCCESS, take @p t. */
#define DOCA_ERROR_PROPAGATE(r, t)       \
	do {                             \
		if ((r) == DOCA_SUCCESS) \
			(r) = (t);       \
	} while (0)

/** A sentence describing @p error. */
__DOCA_EXPERIMENTAL const char *doca_get_error_string(doca_error_t error);

/** The name of @p error ("DOCA_ERROR_AGAIN", ...). */
__DOCA_EXPERIMENTAL const char *doca_get_error_name(doca_error_t error);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ERROR_H_ */
