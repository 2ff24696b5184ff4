/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_access.h - access paths: how this process reaches the bytes of an
 * imported mmap. One ops object per path, chosen once, when the import is
 * opened (import.c), and driven by the copy engines (src/engine), which DOCA
 * DMA tasks and Comch producers copy through:
 *
 *   path     when                                      copies
 *   local    an import of this process's own export    load/store
 *   shared   the exporter's memory is shareable        load/store (the
 *            (memfd): mapped at its own addresses      pages are mapped here)
 *   cma      any other memory of a process on this     process_vm_readv /
 *            host (or shared memory whose addresses     process_vm_writev
 *            are taken here)                            (remote.c)
 *   net      the exporter on another machine, or in    requests to its
 *            another network namespace                  network server over
 *                                                       UCX (net_client.c)
 * A path whose ops say
 * `mapped` is reachable by plain loads and stores at the exporter's
 * addresses: engines copy it as local memory, so its descriptors carry no
 * access pointer at all (ferry_engine.h). Memory of this process that was
 * not imported has no access object (NULL), and NULL means the same.
 *
 * Every call checks the range and permission the exporter's agent granted and
 * the export's liveness (revoked, exporter gone: DOCA_ERROR_NOT_CONNECTED);
 * all are thread-safe and block no longer than the copy itself.
 */
#ifndef FERRY_ACCESS_H_
#define FERRY_ACCESS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "common/ferry_abi.h"

struct ferry_access;

/** One piece of a gathered write: @p len bytes of local @p src to the exporter's address @p dst. */
struct ferry_access_piece {
	uint64_t dst;
	const void *src;
	size_t len;
};

/** One piece of a scattered read: @p len bytes at the exporter's address @p src to local @p dst. */
struct ferry_access_rpiece {
	void *dst;
	uint64_t src;
	size_t len;
};

/** Pieces one write_gather or read_scatter call moves at most. */
#define FERRY_ACCESS_GATHER_MAX 64u

/** An access path's operations. */
struct ferry_access_ops {
	const char *name;    /* "local", "shared", "cma", "net" */
	bool mapped;         /* the exporter's addresses are load/store-reachable here */
	bool remote_machine; /* the bytes are on another machine: a copy may wait on the network for seconds */
	/**
	 * Copy @p len bytes at the exporter's address @p src into local @p dst.
	 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (outside the export);
	 *         DOCA_ERROR_NOT_CONNECTED (revoked or gone, before or during the
	 *         copy: @p dst holds no valid data); DOCA_ERROR_IO_FAILED;
	 *         DOCA_ERROR_TIME_OUT (net: the exporter's server gave up on a copy
	 *         through a re-export's path that did not return in time).
	 */
	doca_error_t (*read)(const struct ferry_access *a, void *dst, uint64_t src, size_t len);
	/** Copy local @p src to the exporter's @p dst: as read, plus NOT_PERMITTED for a read-only export. */
	doca_error_t (*write)(const struct ferry_access *a, uint64_t dst, const void *src, size_t len);
	/**
	 * Write up to FERRY_ACCESS_GATHER_MAX pieces at once (one system call for
	 * cma), each checked as write checks one. *@p written counts the pieces
	 * that landed whole, in order; on an error the rest did not. NULL when the
	 * path has nothing better than one write per piece.
	 */
	doca_error_t (*write_gather)(const struct ferry_access *a, const struct ferry_access_piece *pieces, size_t num,
				     size_t *written);
	/**
	 * Read up to FERRY_ACCESS_GATHER_MAX pieces at once (the network path:
	 * their chunks share one window), each checked as read checks one;
	 * *@p read counts the pieces that landed whole, in order. NULL when the
	 * path has nothing better than one read per piece.
	 */
	doca_error_t (*read_scatter)(const struct ferry_access *a, const struct ferry_access_rpiece *pieces, size_t num,
				     size_t *read);
	/** False once the export was revoked or its process exited. */
	bool (*alive)(const struct ferry_access *a);
	/**
	 * Keep @p a, and all that its copies touch, valid after its owner closes
	 * it, until the matching release; the last of the owner's close and the
	 * releases frees it. A re-export holds its path so (a copy the host never
	 * lets finish outlives the re-export's close). NULL when the path has no
	 * such count.
	 */
	void (*hold)(const struct ferry_access *a);
	void (*release)(const struct ferry_access *a);
};

/** An access path: implementations embed this first and recover their state with container_of. */
struct ferry_access {
	const struct ferry_access_ops *ops;
};

/** True when @p a (NULL: memory of this process) is reached by loads and stores at its addresses. */
static inline bool ferry_access_mapped(const struct ferry_access *a)
{
	return a == NULL || a->ops->mapped;
}

/** The name of @p a's path, "local" for NULL (logs, tests, benches). */
static inline const char *ferry_access_name(const struct ferry_access *a)
{
	return a == NULL ? "local" : a->ops->name;
}

/**
 * One copy where either side may lie in another process (NULL access: a local
 * address): read, write, or both through a bounce buffer, 1 MiB at a time. A
 * mapped side is copied with memcpy.
 */
doca_error_t ferry_access_copy(void *dst, const struct ferry_access *dst_a, const void *src,
			       const struct ferry_access *src_a, size_t len);

#endif /* FERRY_ACCESS_H_ */
