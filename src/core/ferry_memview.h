/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_memview.h - internal view of mmaps and bufs for the context types that
 * move data (implemented in mmap.c, buf.c, buf_inventory.c).
 *
 * The readers are static inline over the layout in mem_priv.h: Ferry's
 * libraries are built together from one tree, so that layout is an ABI they
 * share (never the applications'). A data path that reads a buf's fields
 * through the public getters pays a call across the library boundary, and an
 * argument check, per field: a dozen calls per task in DOCA DMA's submit.
 * These readers check nothing: the caller already holds a buf that is not NULL.
 */
#ifndef FERRY_MEM_H_
#define FERRY_MEM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>

#include "common/ferry_abi.h"
#include "core/mem_priv.h"
#include "link/ferry_export.h"

struct ferry_access;

/* ---- bufs ---- */

/** The mmap a buffer was taken from. */
static inline struct doca_mmap *ferry_buf_mmap(const struct doca_buf *buf)
{
	return buf->mmap;
}

/** The next buf of a list, or NULL at its end. */
static inline struct doca_buf *ferry_buf_next(const struct doca_buf *buf)
{
	return buf->next;
}

/** The start of the data segment. */
static inline uint8_t *ferry_buf_data(const struct doca_buf *buf)
{
	return buf->data;
}

/** The length of the data segment. */
static inline size_t ferry_buf_data_len(const struct doca_buf *buf)
{
	return buf->data_len;
}

/** The first byte after the data segment (where a copy into the buf appends). */
static inline uint8_t *ferry_buf_data_end(const struct doca_buf *buf)
{
	return (uint8_t *)buf->data + buf->data_len;
}

/** The free space after the data segment, up to the end of the buffer. */
static inline size_t ferry_buf_room_after_data(const struct doca_buf *buf)
{
	return (size_t)(((uint8_t *)buf->head + buf->len) - ferry_buf_data_end(buf));
}

/**
 * Set the data length of a buf the caller knows is in use, with a length that
 * stays inside the buffer (a copy that never wrote past ferry_buf_room_after_data).
 */
static inline void ferry_buf_set_data_len_trusted(struct doca_buf *buf, size_t data_len)
{
	buf->data_len = data_len;
}

/* ---- mmaps ---- */

/** The mmap's access mask (enum doca_access_flag bits). */
static inline uint32_t ferry_mmap_access(const struct doca_mmap *mmap)
{
	return mmap->access;
}

/** True when @p dev was added to @p mmap (doca_mmap_add_dev), or the mmap was imported for it. */
static inline bool ferry_mmap_has_dev(const struct doca_mmap *mmap, const struct doca_dev *dev)
{
	for (uint32_t i = 0; i < mmap->num_devs; i++)
		if (mmap->devs[i] == dev)
			return true;
	return false;
}

/** True when the map is an import (another process exported it). */
static inline bool ferry_mmap_is_import(const struct doca_mmap *mmap)
{
	return mmap->link_import != NULL;
}

/** True once a FERRY_FAULT action=revoke rule revoked the import @p mmap (mmap->fault set). */
static inline bool ferry_mmap_fault_revoked(const struct doca_mmap *mmap)
{
	return atomic_load_explicit(&mmap->fault->uses, memory_order_relaxed) >= mmap->fault->revoke_at;
}

/**
 * Count one use of an import that a FERRY_FAULT action=revoke rule watches
 * (core/fault.h, mmap.c); true from the use at which the rule revokes it on.
 */
FERRY_PRIVATE_API
bool ferry_mmap_fault_count_use(const struct doca_mmap *mmap);

/**
 * True when the mmap is started and still valid. An import whose exporter
 * revoked it or died is not: that is asked of the link (a cheap, rate-limited
 * liveness check) every time, since it can happen at any moment; so is an
 * import a fault plan revoked.
 */
static inline bool ferry_mmap_is_usable(const struct doca_mmap *mmap)
{
	if (mmap->link_import != NULL &&
	    (!ferry_link_import_alive(mmap->link_import) || (mmap->fault != NULL && ferry_mmap_fault_revoked(mmap))))
		return false;
	return mmap->started && mmap->valid;
}

/**
 * As ferry_mmap_is_usable, for a task about to reach the map's bytes: one use
 * of the map, which a fault plan may count (mmap.export:after=N:action=revoke).
 */
static inline bool ferry_mmap_task_may_use(const struct doca_mmap *mmap)
{
	return ferry_mmap_is_usable(mmap) && (mmap->fault == NULL || !ferry_mmap_fault_count_use(mmap));
}

/**
 * How this process reaches an imported map's bytes (link/ferry_access.h: the
 * path chosen at import); NULL for a map of this process's own memory (mmap.c).
 */
FERRY_PRIVATE_API
const struct ferry_access *ferry_mmap_access_path(const struct doca_mmap *mmap);

/** The transport state of an mmap imported from doca_mmap_export_rdma, or NULL (src/rdma). */
static inline void *ferry_mmap_rdma_import(const struct doca_mmap *mmap)
{
	return mmap->rdma_import;
}

/** The process that exported an imported mmap (0 for a map of this process's memory). */
static inline uint32_t ferry_mmap_exporter_pid(const struct doca_mmap *mmap)
{
	return mmap->link_import != NULL ? ferry_link_import_pid(mmap->link_import) : 0;
}

#endif /* FERRY_MEM_H_ */
