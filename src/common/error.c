/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * error.c - names and descriptions of doca_error_t values.
 *
 * One table indexed by the numeric value keeps name and text together, so a new
 * error code is one line here and cannot get a name without a description.
 */
#include <stddef.h>

#include <doca_error.h>

struct error_text {
	const char *name;
	const char *descr;
};

#define ERROR_TEXT(code, text) [code] = {#code, text}

static const struct error_text error_texts[] = {
	ERROR_TEXT(DOCA_SUCCESS, "Success"),
	ERROR_TEXT(DOCA_ERROR_UNKNOWN, "Unknown error"),
	ERROR_TEXT(DOCA_ERROR_NOT_PERMITTED, "Operation not permitted"),
	ERROR_TEXT(DOCA_ERROR_IN_USE, "Resource is in use"),
	ERROR_TEXT(DOCA_ERROR_NOT_SUPPORTED, "Operation not supported"),
	ERROR_TEXT(DOCA_ERROR_AGAIN, "Resource temporarily unavailable, try again"),
	ERROR_TEXT(DOCA_ERROR_INVALID_VALUE, "Invalid input value"),
	ERROR_TEXT(DOCA_ERROR_NO_MEMORY, "Out of memory"),
	ERROR_TEXT(DOCA_ERROR_INITIALIZATION, "Initialization failed"),
	ERROR_TEXT(DOCA_ERROR_TIME_OUT, "Timed out"),
	ERROR_TEXT(DOCA_ERROR_SHUTDOWN, "Shut down in progress or completed"),
	ERROR_TEXT(DOCA_ERROR_CONNECTION_RESET, "Connection reset by peer"),
	ERROR_TEXT(DOCA_ERROR_CONNECTION_ABORTED, "Connection aborted"),
	ERROR_TEXT(DOCA_ERROR_CONNECTION_INPROGRESS, "Connection in progress"),
	ERROR_TEXT(DOCA_ERROR_NOT_CONNECTED, "Not connected"),
	ERROR_TEXT(DOCA_ERROR_NO_LOCK, "Could not acquire a lock"),
	ERROR_TEXT(DOCA_ERROR_NOT_FOUND, "Not found"),
	ERROR_TEXT(DOCA_ERROR_IO_FAILED, "Input/output operation failed"),
	ERROR_TEXT(DOCA_ERROR_BAD_STATE, "Object is in the wrong state for this operation"),
	ERROR_TEXT(DOCA_ERROR_UNSUPPORTED_VERSION, "Unsupported version"),
	ERROR_TEXT(DOCA_ERROR_OPERATING_SYSTEM, "Operating system call failed"),
	ERROR_TEXT(DOCA_ERROR_DRIVER, "Driver call failed"),
	ERROR_TEXT(DOCA_ERROR_UNEXPECTED, "Unexpected result"),
	ERROR_TEXT(DOCA_ERROR_ALREADY_EXIST, "Already exists"),
	ERROR_TEXT(DOCA_ERROR_FULL, "No room left"),
	ERROR_TEXT(DOCA_ERROR_EMPTY, "Nothing to take, it is empty"),
	ERROR_TEXT(DOCA_ERROR_IN_PROGRESS, "Operation still in progress"),
	ERROR_TEXT(DOCA_ERROR_TOO_BIG, "Value or size too big"),
};

#define ERROR_TEXTS_COUNT (sizeof(error_texts) / sizeof(error_texts[0]))

/* NULL for values outside the table or holes in it. */
static const struct error_text *error_text_of(doca_error_t error)
{
	unsigned int idx = (unsigned int)error;

	if (idx >= ERROR_TEXTS_COUNT || error_texts[idx].name == NULL)
		return NULL;
	return &error_texts[idx];
}

const char *doca_error_get_name(doca_error_t error)
{
	const struct error_text *text = error_text_of(error);

	return text != NULL ? text->name : "DOCA_ERROR_UNKNOWN_VALUE";
}

const char *doca_error_get_descr(doca_error_t error)
{
	const struct error_text *text = error_text_of(error);

	return text != NULL ? text->descr : "Unrecognized DOCA error code";
}
