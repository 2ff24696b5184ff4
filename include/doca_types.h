/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_types.h - small types shared by every DOCA library.
 */
#ifndef DOCA_TYPES_H_
#define DOCA_TYPES_H_

/*
 * DOCA programs lean on what DOCA's headers bring in: NVIDIA's own samples
 * print with PRIu64 and call malloc, free, memset, strnlen, strcpy and
 * strcmp without including inttypes.h, stdlib.h or string.h (a compiler that
 * refuses implicit declarations, GCC 14 on, fails them otherwise).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque user data carried by contexts, tasks, mmaps and connections. */
union doca_data {
	void *ptr;
	uint64_t u64;
};

/** Who may touch the memory of a doca_mmap, and how. Values are a bit mask. */
enum doca_access_flag {
	DOCA_ACCESS_FLAG_LOCAL_READ_ONLY = 0,
	DOCA_ACCESS_FLAG_LOCAL_READ_WRITE = (1 << 0),
	DOCA_ACCESS_FLAG_RDMA_READ = (1 << 1),
	DOCA_ACCESS_FLAG_RDMA_WRITE = (1 << 2),
	DOCA_ACCESS_FLAG_RDMA_ATOMIC = (1 << 3),
	DOCA_ACCESS_FLAG_PCI_READ_ONLY = (1 << 4),
	DOCA_ACCESS_FLAG_PCI_READ_WRITE = (1 << 5),
	DOCA_ACCESS_FLAG_PCI_RELAXED_ORDERING = (1 << 6),
};

/** Kind of PCI function a device or representor is. */
enum doca_pci_func_type {
	DOCA_PCI_FUNC_TYPE_PF = 0, /**< physical function */
	DOCA_PCI_FUNC_TYPE_VF = 1, /**< virtual function (SR-IOV) */
	DOCA_PCI_FUNC_TYPE_SF = 2, /**< scalable sub-function */
};

/** An OS handle a program can wait on; on Linux, a file descriptor. */
typedef int doca_event_handle_t;
/** The value of a handle that refers to nothing. */
#define doca_event_invalid_handle ((doca_event_handle_t)-1)

/** The progress engine's notification handle (an epoll-able descriptor). */
typedef doca_event_handle_t doca_notification_handle_t;
#define doca_notification_invalid_handle doca_event_invalid_handle

/** Where a buffer's memory lives, for libraries that care (GPU support is out of scope). */
enum doca_gpu_mem_type {
	DOCA_GPU_MEM_TYPE_GPU = 0,
	DOCA_GPU_MEM_TYPE_GPU_CPU = 1,
	DOCA_GPU_MEM_TYPE_CPU_GPU = 2,
};

/** Big-endian integers as they travel in RDMA headers and descriptors (a marker for the reader, no check). */
typedef uint16_t doca_be16_t;
typedef uint32_t doca_be32_t;
typedef uint64_t doca_be64_t;

/** Bytes of an RDMA global identifier (GID). */
#define DOCA_GID_BYTE_LENGTH 16

/** Path MTU of an RDMA connection. */
enum doca_mtu_size {
	DOCA_MTU_SIZE_256_BYTES = 0x0,
	DOCA_MTU_SIZE_512_BYTES = 0x1,
	DOCA_MTU_SIZE_1K_BYTES = 0x2,
	DOCA_MTU_SIZE_2K_BYTES = 0x3,
	DOCA_MTU_SIZE_4K_BYTES = 0x4,
	DOCA_MTU_SIZE_RAW_ETHERNET = 0x5, /* reserved */
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
