/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_compat.h - API stability markers and the build-side (host or DPU) switch.
 *
 * Every public Ferry header includes this one. A program built for the DPU side
 * defines DOCA_ARCH_DPU (the "-dpu" pkg-config modules add it); otherwise the
 * headers define DOCA_ARCH_HOST.
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
#define DOCA_DEPRECATED     __attribute__((deprecated)) DOCA_EXPORTED
#define __DOCA_EXPERIMENTAL DOCA_EXPERIMENTAL

#endif /* DOCA_COMPAT_H_ */
