/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_version.h (DOCA 2.2 flavour) - the version a 2.2 program was built for.
 */
#ifndef DOCA_VERSION_H_
#define DOCA_VERSION_H_

#include <stddef.h>

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DOCA_VER_MAJOR  2
#define DOCA_VER_MINOR  2
#define DOCA_VER_PATCH  80
#define DOCA_VER_STRING "2.2.0080"

/** One number per version: major, minor and patch in bytes 3, 2 and 1-0. */
#define DOCA_VERSION_NUM(major, minor, patch)        ((size_t)((major) << 24 | (minor) << 16 | (patch)))
#define DOCA_CURRENT_VERSION_NUM                     DOCA_VERSION_NUM(DOCA_VER_MAJOR, DOCA_VER_MINOR, DOCA_VER_PATCH)
#define DOCA_VERSION_EQ_CURRENT(major, minor, patch) (DOCA_VERSION_NUM(major, minor, patch) == DOCA_CURRENT_VERSION_NUM)
#define DOCA_VERSION_LTE_CURRENT(major, minor, patch) \
	(DOCA_VERSION_NUM(major, minor, patch) <= DOCA_CURRENT_VERSION_NUM)

/** The version of the headers the program was compiled with. */
static inline const char *doca_version(void)
{
	return DOCA_VER_STRING;
}

/** The version the library offers at run time: this flavour's. */
DOCA_EXPERIMENTAL const char *doca_version_runtime(void) FERRY_LEGACY_SYMBOL(ferry_v22_version_runtime);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERSION_H_ */
