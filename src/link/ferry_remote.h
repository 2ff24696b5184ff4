/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_remote.h - cross-memory attach: copies to and from an imported range
 * that is not mapped in this process (the exporter's memory was ordinary,
 * e.g. malloc). For the copy engines and the DMA context.
 *
 * How the copy engines and DOCA DMA use it (src/dma/dma.c, src/engine/engine_inline.c):
 *  1. at submit, for each buf: `r = ferry_mmap_remote(ferry_buf_mmap(buf))`
 *     (core/ferry_memview.h);
 *     NULL means the addresses are usable here (local memory or a shared
 *     mapping at the same address) and memcpy is right;
 *  2. the copy descriptor carries r for its source and/or destination
 *     (struct ferry_copy_desc: src_remote, dst_remote, NULL for local), and
 *     goes to a channel opened cross_process;
 *  3. that channel copies with ferry_link_copy: ferry_remote_read (remote source, local
 *     destination), ferry_remote_write (local source, remote destination), or
 *     both through a bounce buffer when both are remote; a non-success status
 *     becomes the task's status (the exporter vanished: NOT_CONNECTED);
 *  4. libdoca_dma calls ferry_link_enable_cma() when it loads (Comch's fast
 *     path too, when it needs it): until then imports of
 *     ordinary memory are refused (NOT_SUPPORTED), so no engine ever
 *     dereferences a remote address as if it were local.
 *
 * The functions are thread-safe and do not block beyond the copy itself.
 */
#ifndef FERRY_REMOTE_H_
#define FERRY_REMOTE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "common/ferry_abi.h"

struct ferry_remote;
struct ferry_link_import;

/** Allow imports reached by cross-memory attach (process-wide, cannot be undone). */
FERRY_PRIVATE_API
void ferry_link_enable_cma(void);

/** True once ferry_link_enable_cma was called. */
bool ferry_link_cma_enabled(void);

/** The remote handle of an import, or NULL (import.c). */
const struct ferry_remote *ferry_link_import_remote(const struct ferry_link_import *imp);

/**
 * Copy @p len bytes from the exporter's address @p src into local @p dst.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (outside the exported range);
 *         DOCA_ERROR_NOT_CONNECTED (exporter revoked or gone, before or during
 *         the copy: @p dst holds no valid data); DOCA_ERROR_IO_FAILED.
 */
doca_error_t ferry_remote_read(const struct ferry_remote *r, void *dst, uint64_t src, size_t len);

/**
 * Copy @p len bytes from local @p src to the exporter's address @p dst.
 * @return as ferry_remote_read, plus DOCA_ERROR_NOT_PERMITTED for a
 *         PCI_READ_ONLY export.
 */
doca_error_t ferry_remote_write(const struct ferry_remote *r, uint64_t dst, const void *src, size_t len);

/** One piece of a gathered write: @p len bytes of local @p src to the exporter's @p dst. */
struct ferry_remote_piece {
	uint64_t dst;
	const void *src;
	size_t len;
};

/** Pieces one ferry_remote_write_gather call moves at most. */
#define FERRY_REMOTE_GATHER_MAX 64u

/**
 * Write up to FERRY_REMOTE_GATHER_MAX pieces into one export with as few
 * system calls as the kernel allows (one, unless a transfer comes up short):
 * each piece is checked as ferry_remote_write checks one. *@p written counts
 * the pieces that landed whole, in order; on an error the first *@p written
 * pieces are good and the rest are not.
 * @return as ferry_remote_write.
 */
FERRY_PRIVATE_API
doca_error_t ferry_remote_write_gather(const struct ferry_remote *r, const struct ferry_remote_piece *pieces,
				       size_t num, size_t *written);

/**
 * One copy where either side may be remote (NULL handle: a local address).
 * Both remote: through a bounce buffer, 1 MiB at a time. This is the call a
 * copy engine puts where it would call memcpy.
 */
FERRY_PRIVATE_API
doca_error_t ferry_link_copy(void *dst, const struct ferry_remote *dst_r, const void *src,
			     const struct ferry_remote *src_r, size_t len);

#endif /* FERRY_REMOTE_H_ */
