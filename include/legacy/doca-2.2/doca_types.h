/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_types.h (DOCA 2.2 flavour) - types shared by every library.
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

/** Who may touch an mmap's memory (doca_mmap_set_permissions); values as DOCA 3's flags. */
enum doca_access_flags {
	DOCA_ACCESS_LOCAL_READ_ONLY = 0,
	DOCA_ACCESS_LOCAL_READ_WRITE = 1 << 0,
	DOCA_ACCESS_RDMA_READ = 1 << 1,
	DOCA_ACCESS_RDMA_WRITE = 1 << 2,
	DOCA_ACCESS_RDMA_ATOMIC = 1 << 3,
	DOCA_ACCESS_DPU_READ_ONLY = 1 << 4,
	DOCA_ACCESS_DPU_READ_WRITE = 1 << 5,
};

/** Kind of a PCI function. */
enum doca_pci_func_type {
	DOCA_PCI_FUNC_TYPE_PF = 0,
	DOCA_PCI_FUNC_TYPE_VF = 1,
	DOCA_PCI_FUNC_TYPE_SF = 2,
};

#ifdef __cplusplus
}
#endif

#endif /* DOCA_TYPES_H_ */
