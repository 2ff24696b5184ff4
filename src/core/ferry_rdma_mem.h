/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_rdma_mem.h - how doca_mmap_export_rdma and doca_mmap_create_from_export
 * (Core, libdoca_common) reach the RDMA transport (libdoca_rdma, over UCX).
 *
 * Core does not link UCX: a program that never uses DOCA RDMA should not load
 * it (UCX's libraries install signal handlers and read their configuration
 * when loaded). libdoca_rdma registers its ops when it is loaded (a
 * constructor), and Core calls through them; without it, the RDMA export
 * answers DOCA_ERROR_NOT_SUPPORTED and an RDMA descriptor is refused.
 *
 * Core recognises an RDMA memory descriptor by its first four bytes
 * (FERRY_RDMA_MEM_MAGIC, little-endian), the PCI descriptor by its own.
 */
#ifndef FERRY_RDMA_MEM_H_
#define FERRY_RDMA_MEM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "common/ferry_abi.h"

#define FERRY_RDMA_MEM_MAGIC 0x4d595246u /* "FRYM" read little-endian */

/** What an RDMA import is, as Core keeps it in its mmap (the transport's state is opaque). */
struct ferry_rdma_import_view {
	uint64_t addr;   /* the exporter's start address */
	uint64_t len;    /* the length of the exported range */
	uint32_t access; /* DOCA_ACCESS_FLAG_RDMA_* bits the exporter granted */
	/*
	 * A re-export's (descriptor kind 1): the link descriptor Core imports over
	 * the network path, pointing into the descriptor given; NULL otherwise.
	 */
	const void *link_desc;
	size_t link_desc_len;
};

struct ferry_mmap_rdma_ops {
	/**
	 * Register [addr, addr + len) with the transport and describe it. The
	 * descriptor stays valid until @p unexport. Logs one line on failure.
	 */
	doca_error_t (*export_range)(void *addr, size_t len, uint32_t access, const char *call, void **state,
				     const void **desc, size_t *desc_len);
	void (*unexport)(void *state);
	/**
	 * Call @p hook(@p arg) after each write or atomic a peer makes in the
	 * export @p state (from the thread that serves it, before the export
	 * may go): a sync event wakes its waiters. Set before the descriptor is
	 * handed out.
	 */
	void (*set_write_hook)(void *state, void (*hook)(void *arg), void *arg);
	/**
	 * Describe a re-export of [addr, addr + len) (an import that UCX cannot
	 * register): @p link_desc, the descriptor of the link export that serves
	 * it over the network path, travels in place of a remote key. Nothing is
	 * registered; @p unexport frees it. Logs one line on failure.
	 */
	doca_error_t (*export_link)(const void *link_desc, size_t link_len, uint64_t addr, uint64_t len,
				    uint32_t access, const char *call, void **state, const void **desc,
				    size_t *desc_len);
	/** Check a descriptor from a peer; on success *state is the transport's import. */
	doca_error_t (*import)(const void *desc, size_t desc_len, const char *call, void **state,
			       struct ferry_rdma_import_view *view);
	void (*import_close)(void *state);
};

struct doca_sync_event_remote_net;

/**
 * What an event made by doca_sync_event_remote_net_create_from_export reaches:
 * the transport's import of the 8 bytes of the exporter's value (as @p import
 * gave it) and their address. False, with one log line naming @p call, when
 * @p event is not such an event.
 */
FERRY_PRIVATE_API
bool ferry_sync_event_remote_net_view(const struct doca_sync_event_remote_net *event, const char *call,
				      const void **import_state, uint64_t *addr);

/** Called by libdoca_rdma once, when it is loaded. */
FERRY_PRIVATE_API
void ferry_mmap_rdma_register(const struct ferry_mmap_rdma_ops *ops);

#endif /* FERRY_RDMA_MEM_H_ */
