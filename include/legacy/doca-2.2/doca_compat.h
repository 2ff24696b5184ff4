/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_compat.h (DOCA 2.2 flavour) - export markers, the build side, and the
 * renaming that sends a call to the 2.2 implementation.
 *
 * DOCA 3 kept some names of this generation with other arguments or meaning
 * (doca_mmap_create, doca_ctx_start, ...). Ferry serves both from one
 * installation: this flavour's headers bind such a name to a symbol of its
 * own with FERRY_LEGACY_SYMBOL, so a 2.2 program calls the 2.2 behaviour by
 * its 2.2 name and never meets the DOCA 3 one.
 */
#ifndef DOCA_COMPAT_H_
#define DOCA_COMPAT_H_

#if !defined(DOCA_ARCH_DPU) && !defined(DOCA_ARCH_HOST)
#define DOCA_ARCH_HOST
#endif

#if defined(DOCA_ARCH_DPU) && defined(DOCA_ARCH_HOST)
#error "define at most one of DOCA_ARCH_DPU and DOCA_ARCH_HOST"
#endif

#define DOCA_EXPORTED       __attribute__((visibility("default")))
#define DOCA_STABLE         DOCA_EXPORTED
#define DOCA_EXPERIMENTAL   DOCA_EXPORTED
#define __DOCA_EXPERIMENTAL DOCA_EXPERIMENTAL
#define DOCA_DEPRECATED     __attribute__((deprecated)) DOCA_EXPORTED

/** Bind the declaration it follows to the library symbol @p sym (GCC and Clang, C and C++). */
#define FERRY_LEGACY_SYMBOL(sym) __asm__(#sym)

/** The DOCA generation of this header set, for Ferry's own checks. */
#define FERRY_DOCA_GENERATION 22

#endif /* DOCA_COMPAT_H_ */
