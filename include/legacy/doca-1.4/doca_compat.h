/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_compat.h (DOCA 1.4 flavour) - export markers, the build side, and the
 * renaming that sends a call to the 1.4 implementation.
 *
 * DOCA 1.4 is the API of NVIDIA's 2022 DMA guide (the same as 1.3). Later
 * releases kept some of its names with other arguments or meaning
 * (doca_mmap_create, doca_mmap_start, doca_dma_create, ...). This flavour's
 * headers bind such a name to a symbol of its own with FERRY_LEGACY_SYMBOL, so
 * a 1.4 program calls the 1.4 behaviour by its 1.4 name.
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
#define FERRY_DOCA_GENERATION 14

#endif /* DOCA_COMPAT_H_ */
