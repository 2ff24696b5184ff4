/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file ferry_mem.h
 * @brief Ferry extension (not part of DOCA): memory that another process can map.
 *
 * A doca_mmap whose range lies inside a block from ferry_mem_alloc_shared is
 * exported as shareable: the importing process maps the same pages, and DMA
 * tasks between the two processes run at memcpy speed. Programs built for a
 * real BlueField can keep using their own allocator; guard the call with
 * `#ifdef FERRY_HAVE_SHARED_MEM`.
 *
 * See docs/remote-memory.md for the security model.
 */
#ifndef FERRY_MEM_PUBLIC_H_
#define FERRY_MEM_PUBLIC_H_

#include <stddef.h>

#include <doca_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Defined when this header is available, for programs that want to use it only on Ferry. */
#define FERRY_HAVE_SHARED_MEM 1

/**
 * @brief Allocate @p size bytes (rounded up to pages) of zeroed, page-aligned,
 * shareable memory.
 * @param [in] size  bytes wanted; greater than 0.
 * @return the block, or NULL (errno set: EINVAL for size 0, ENOMEM, or the
 *         error of memfd_create/ftruncate/mmap).
 * @note Thread-safe. The block has no file name: nothing is left in /dev/shm.
 */
DOCA_EXPORTED void *ferry_mem_alloc_shared(size_t size);

/**
 * @brief Free a block from ferry_mem_alloc_shared. Importers that mapped it
 * keep their mapping until they destroy their mmap.
 * @param [in] addr  the address ferry_mem_alloc_shared returned (NULL is a no-op).
 * @return 0, or -1 with errno EINVAL when @p addr is not such a block.
 */
DOCA_EXPORTED int ferry_mem_free_shared(void *addr);

#ifdef __cplusplus
}
#endif

#endif /* FERRY_MEM_PUBLIC_H_ */
