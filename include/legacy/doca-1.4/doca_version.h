/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_version.h (DOCA 1.4 flavour) - the version a 1.4 program was built for.
 * The build number is that of the 1.4 release's packages (1.4.0079).
 */
#ifndef DOCA_VERSION_H_
#define DOCA_VERSION_H_

#include <stddef.h>

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DOCA_VER_MAJOR  1
#define DOCA_VER_MINOR  4
#define DOCA_VER_PATCH  79
#define DOCA_VER_STRING "1.4.0079"

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
__DOCA_EXPERIMENTAL const char *doca_version_runtime(void) FERRY_LEGACY_SYMBOL(ferry_v14_version_runtime);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERSION_H_ */
