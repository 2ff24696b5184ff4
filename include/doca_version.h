/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_version.h - the DOCA API version these headers follow, and the one the
 * library a program runs against implements.
 *
 * Ferry implements the DOCA 3.3.0 API. The build checks that the numbers below match
 * doca_api_version in the top-level meson.build, so the two cannot drift apart.
 */
#ifndef DOCA_VERSION_H_
#define DOCA_VERSION_H_

#include <stddef.h>

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* src/common/meson.build checks these four lines as written: */
/* clang-format off */
/** Major number of the DOCA API (0..255). */
#define DOCA_VERSION_MAJOR 3
/** Minor number of the DOCA API (0..255). */
#define DOCA_VERSION_MINOR 3
/** Patch number of the DOCA API (0..9999). */
#define DOCA_VERSION_PATCH 0
/** The three numbers as text, "major.minor.patch". */
#define DOCA_VERSION_STRING "3.3.0"
/* clang-format on */

/** One comparable number for an exact version: major, minor and patch packed in bits. */
#define DOCA_VERSION_CALC_EXACT(major, minor, patch) ((size_t)((major) << 24 | (minor) << 16 | (patch)))

/** The exact version of these headers as one number. */
#define DOCA_VERSION_EXACT DOCA_VERSION_CALC_EXACT(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH)

/** One comparable number for a release, where DOCA scales the patch by 1000. */
#define DOCA_VERSION_CALC(major, minor, patch) ((size_t)((major) << 24 | (minor) << 16 | ((patch)*1000)))

/** The release of these headers as one number. */
#define DOCA_VERSION_OFFICIAL DOCA_VERSION_CALC(DOCA_VERSION_MAJOR, DOCA_VERSION_MINOR, DOCA_VERSION_PATCH)

/** True when the given release is the one of these headers. */
#define DOCA_VERSION_EQ_CURRENT(major, minor, patch) (DOCA_VERSION_CALC(major, minor, patch) == DOCA_VERSION_OFFICIAL)

/** True when the given release is the one of these headers or older. */
#define DOCA_VERSION_LTE_CURRENT(major, minor, patch) (DOCA_VERSION_CALC(major, minor, patch) <= DOCA_VERSION_OFFICIAL)

/**
 * @brief The version of the headers the program was compiled with.
 * @return "major.minor.patch", a static string.
 */
static inline const char *doca_version(void)
{
	return DOCA_VERSION_STRING;
}

/**
 * @brief The version of the library the program runs against.
 * @return "major.minor.patch", a static string.
 */
DOCA_EXPERIMENTAL const char *doca_version_runtime(void);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_VERSION_H_ */
