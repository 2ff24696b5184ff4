/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_mem.h - internal view of mmaps and bufs (implemented in mmap.c, buf.c,
 * buf_inventory.c) for the context types that move data.
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

/** The mmap a buffer was taken from. */
struct doca_mmap *ferry_buf_mmap(const struct doca_buf *buf);

/** The mmap's access mask (enum doca_access_flag bits). */
uint32_t ferry_mmap_access(const struct doca_mmap *mmap);

/** True when @p dev was added to @p mmap (doca_mmap_add_dev), or the mmap was imported for it. */
bool ferry_mmap_has_dev(const struct doca_mmap *mmap, const struct doca_dev *dev);

/** True when the mmap is started and still valid (an import whose exporter vanished is not). */
bool ferry_mmap_is_usable(const struct doca_mmap *mmap);

#endif /* FERRY_MEM_H_ */
