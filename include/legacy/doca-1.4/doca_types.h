/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_types.h (DOCA 1.4 flavour) - types shared by every library, and the
 * PCI address a 1.x program compares devices by.
 */
#ifndef DOCA_TYPES_H_
#define DOCA_TYPES_H_

#include <stdint.h>

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A user's word: a pointer or a 64-bit number. */
union doca_data {
	void *ptr;
	uint64_t u64;
};

/** A file descriptor a program can wait on with epoll. */
typedef int doca_event_handle_t;
#define doca_event_invalid_handle -1

/** Access to memory, as DOCA 1.x named it (no 1.x program passes these; kept for completeness). */
enum doca_access_flags {
	DOCA_ACCESS_LOCAL_READ = 0,
	DOCA_ACCESS_LOCAL_WRITE = 1,
	DOCA_ACCESS_REMOTE_WRITE = 1 << 1,
	DOCA_ACCESS_REMOTE_READ = 1 << 2,
	DOCA_ACCESS_REMOTE_ATOMIC = 1 << 3,
};

/** Kind of a PCI function. */
enum doca_pci_func_type {
	DOCA_PCI_FUNC_PF = 0,
	DOCA_PCI_FUNC_VF = 1,
	DOCA_PCI_FUNC_SF = 2,
};

#define PCI_FUNCTION_MAX_VALUE 8
#define PCI_DEVICE_MAX_VALUE   32
#define PCI_BUS_MAX_VALUE      256

/* C11 has anonymous structs; C++ compilers take them as an extension, said so here. */
#if defined(__cplusplus) && defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-anonymous-struct"
#pragma clang diagnostic ignored "-Wnested-anon-types"
#endif

/**
 * A PCI address (bus:device.function). Fill and read it field by field;
 * compare two addresses by their raw values.
 */
struct doca_pci_bdf {
	union {
		uint16_t raw;
#ifdef __cplusplus
		__extension__
#endif
			struct {
			uint16_t function : 3;
			uint16_t device : 5;
			uint16_t bus : 8;
		};
	};
};

#if defined(__cplusplus) && defined(__clang__)
#pragma clang diagnostic pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
