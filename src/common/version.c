/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * version.c - the runtime half of doca_version.h: the version compiled into the
 * library, which may differ from the headers a program was built with.
 */
#include <doca_version.h>

const char *doca_version_runtime(void)
{
	return DOCA_VERSION_STRING;
}
