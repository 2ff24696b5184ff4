/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem_priv.h - the layout of mmaps, bufs and inventories, written only by
 * mmap.c, buf.c and buf_inventory.c. Other layers use ferry_mem.h, whose inline
 * readers see this layout (an ABI internal to Ferry's libraries).
 */
#ifndef FERRY_MEM_PRIV_H_
#define FERRY_MEM_PRIV_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>
#include <doca_types.h>

struct ferry_link_export;
struct ferry_link_import;

/* Room for devices when the user never calls doca_mmap_set_max_num_devices. */
#define FERRY_MMAP_DEFAULT_MAX_DEVS 16u

/*
 * The first word of every map a program can hold. Maps of this API carry
 * FERRY_MMAP_MAGIC; the map of DOCA 1.3/1.4's headers (src/legacy/v14_mmap.c,
 * several chunks over maps of this API) carries FERRY_MMAP_MAGIC_V14 in the
 * same place, so each side refuses the other's with a line.
 */
#define FERRY_MMAP_MAGIC     0x504d4d46u /* "FMMP" */
#define FERRY_MMAP_MAGIC_V14 0x3431564du /* "MV14" */

/* FERRY_FAULT mmap.export:after=N:action=revoke on an import: its uses, counted from any thread (mmap.c). */
struct ferry_mmap_fault {
	uint64_t revoke_at; /* the use that revokes: N + 1 */
	atomic_uint_fast64_t uses;
};

struct doca_mmap {
	uint32_t magic; /* FERRY_MMAP_MAGIC while the map lives */
	void *addr;
	size_t len;
	bool memrange_set;
	bool started;
	bool ever_started; /* max_num_devices is frozen; the free callback is due */
	bool exported;
	bool from_export;
	bool thread_safe; /* doca_mmap_enable_thread_safety was called (its state is atomic anyway) */
	bool valid;       /* false once an import's exporter is gone */
	uint32_t access;  /* enum doca_access_flag bits */
	uint32_t max_devs;
	uint32_t num_devs;
	struct doca_dev **devs; /* num_devs entries, each holding a ferry_dev_get reference */
	union doca_data user_data;
	doca_mmap_memrange_free_cb_t *free_cb;
	void *free_cb_opaque;
	/* Cross-process link (src/link): the live export of a started map, or an import. */
	struct ferry_link_export *link_export;
	struct ferry_link_import *link_import;
	struct ferry_mmap_fault *fault; /* an import a FERRY_FAULT action=revoke rule counts, or NULL */
	/* RDMA (src/rdma through core/ferry_rdma_mem.h): the export of a started map, or an import. */
	void *rdma_export;
	void *rdma_import;
	const void *rdma_desc; /* the export's descriptor, owned by rdma_export */
	size_t rdma_desc_len;
	/* Bufs pointing into the map; inventories of several threads may share one map. */
	atomic_uint num_bufs;
};

struct doca_buf {
	void *head;
	size_t len;
	void *data;
	size_t data_len;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *next; /* next in the user's list, or in the free list */
	struct doca_buf *last; /* on a head: the last buf of its list (itself when alone) */
	uint32_t list_len;     /* on a head: bufs in its list */
	uint16_t refcount;     /* on a head; 1 on later elements; 0 exactly when free (in its inventory) */
	bool is_head;          /* false for the second and later bufs of a list */
};

struct doca_buf_inventory {
	struct doca_buf *elems; /* one array, allocated at first start: non-NULL means "was started" */
	struct doca_buf *free_list;
	uint32_t num_elements;
	uint32_t num_free;
	bool started;
	union doca_data user_data;
};

/* A buf starts its life as a lone head with one reference (buf_inventory.c). */
void ferry_buf_init_taken(struct doca_buf *buf, struct doca_mmap *mmap, void *addr, size_t len, void *data,
			  size_t data_len);

/* Give one descriptor back to its inventory (buf.c, on the last reference). */
void ferry_buf_inventory_put(struct doca_buf_inventory *inv, struct doca_buf *buf);

/* Take one descriptor from a started inventory with a free element (buf.c, dup). */
struct doca_buf *ferry_buf_inventory_take(struct doca_buf_inventory *inv);

/* Count bufs pointing into an mmap. */
static inline void ferry_mmap_buf_taken(struct doca_mmap *mmap)
{
	atomic_fetch_add_explicit(&mmap->num_bufs, 1, memory_order_relaxed);
}

static inline void ferry_mmap_buf_released(struct doca_mmap *mmap)
{
	atomic_fetch_sub_explicit(&mmap->num_bufs, 1, memory_order_relaxed);
}

/* DOCA_SUCCESS for a live map of this API; else the line naming @p call and what @p mmap is. */
doca_error_t ferry_mmap_check(const struct doca_mmap *mmap, const char *call);

/* True when [addr, addr + len) lies inside the mmap's range (no wrap-around). */
bool ferry_mmap_contains(const struct doca_mmap *mmap, const void *addr, size_t len);

struct ferry_mmap_rdma_ops;

/** The RDMA transport's memory ops (core/ferry_rdma_mem.h), or NULL while libdoca_rdma is not loaded (mmap.c). */
const struct ferry_mmap_rdma_ops *ferry_mmap_rdma_ops_get(void);

#endif /* FERRY_MEM_PRIV_H_ */
