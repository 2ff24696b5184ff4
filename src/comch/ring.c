/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring.c - the shared-memory rings of the Comch fast path (layout and rules in
 * fast_priv.h). A ring has one writer, in one process, and one reader, in the
 * other. The writer's block comes from ferry_mem_alloc_shared and is exported
 * like any mmap; the reader imports it with FERRY_LINK_IMPORT_ANYWHERE (mapped
 * wherever it fits, never copied by cross-memory attach: post claims are
 * atomics on the shared words).
 *
 * What comes from shared memory is never trusted for geometry: each side keeps
 * the ring's size in private memory (the writer from its own choice, the
 * reader from a frame), and reads only the head and entries from the ring.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include <doca_mmap.h>
#include <ferry_mem.h>

#include "comch/fast_priv.h"
#include "core/ferry_dev.h"
#include "link/ferry_export.h"

doca_error_t comch_ring_out_open(struct comch_ring_out *ring, uint32_t magic, uint32_t cap, size_t entry_size,
				 uint32_t access, struct doca_dev *dev, const void **desc, size_t *desc_len)
{
	size_t bytes = sizeof(struct comch_ring_hdr) +
		       (size_t)cap * entry_size; /* comch_ring_bytes, comch_done_ring_bytes */

	memset(ring, 0, sizeof(*ring));
	ring->hdr = ferry_mem_alloc_shared(bytes); /* zeroed: head 0, every post OFFERED */
	if (ring->hdr == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ring->cap = cap;
	ring->entries = (uint8_t *)(ring->hdr + 1);
	ring->hdr->magic = magic;
	ring->hdr->cap = cap; /* for a debugger's eyes only: nobody reads it back */
	if (doca_mmap_create(&ring->mmap) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(ring->mmap, ring->hdr, bytes) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(ring->mmap, dev) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(ring->mmap, access) != DOCA_SUCCESS ||
	    doca_mmap_start(ring->mmap) != DOCA_SUCCESS ||
	    doca_mmap_export_pci(ring->mmap, dev, desc, desc_len) != DOCA_SUCCESS) {
		comch_ring_out_close(ring);
		return DOCA_ERROR_NO_MEMORY;
	}
	return DOCA_SUCCESS;
}

void comch_ring_out_close(struct comch_ring_out *ring)
{
	if (ring->mmap != NULL)
		(void)doca_mmap_destroy(ring->mmap); /* revokes the export */
	ring->mmap = NULL;
	if (ring->hdr != NULL)
		(void)ferry_mem_free_shared(ring->hdr);
	ring->hdr = NULL;
	ring->entries = NULL;
}

uint64_t comch_ring_out_publish(struct comch_ring_out *ring, const void *entry, size_t size)
{
	uint64_t pos = comch_ring_out_put(ring, entry, size);

	comch_ring_out_commit(ring);
	return pos;
}

doca_error_t comch_ring_view_open(struct comch_ring_view *view, struct doca_dev *dev, const uint8_t *desc,
				  uint16_t desc_len, uint32_t cap, size_t entry_size, uint32_t writer_pid,
				  bool writable, const char **why)
{
	struct ferry_link_view v;
	size_t bytes = sizeof(struct comch_ring_hdr) + (size_t)cap * entry_size;
	doca_error_t err;

	memset(view, 0, sizeof(*view));
	err = ferry_link_import_open(desc, desc_len, ferry_devinfo_machine(doca_dev_as_devinfo(dev)),
				     FERRY_LINK_IMPORT_ANYWHERE, "comch ring import", &view->imp, &v);
	if (err != DOCA_SUCCESS) {
		*why = "names a ring that cannot be imported";
		return err;
	}
	if (v.pid != writer_pid)
		*why = "names a ring exported by another process than the peer";
	else if (v.len < bytes)
		*why = "names a ring smaller than its size";
	else if (((uintptr_t)v.local & (COMCH_RING_LINE - 1)) != 0)
		*why = "names a ring that is not aligned to a cache line";
	else if (writable && v.access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
		*why = "names a read-only ring: this side claims posts in it (mapped read-only, a claim would fault)";
	else {
		view->hdr = v.local;
		view->entries = (const uint8_t *)v.local + sizeof(struct comch_ring_hdr);
		view->cap = cap;
		return DOCA_SUCCESS;
	}
	comch_ring_view_close(view);
	return DOCA_ERROR_INVALID_VALUE;
}

void comch_ring_view_local(struct comch_ring_view *view, const struct comch_ring_out *ring)
{
	memset(view, 0, sizeof(*view));
	view->local = true;
	view->hdr = ring->hdr;
	view->entries = ring->entries;
	view->cap = ring->cap;
}

void comch_ring_view_close(struct comch_ring_view *view)
{
	if (view->imp != NULL)
		ferry_link_import_close(view->imp);
	view->imp = NULL;
	view->local = false;
	view->hdr = NULL;
	view->entries = NULL;
}

enum ferry_link_liveness comch_ring_view_writer(const struct comch_ring_view *view)
{
	if (view->local)
		return FERRY_LINK_LIVE;
	return view->imp != NULL ? ferry_link_import_liveness(view->imp) : FERRY_LINK_REVOKED;
}

void comch_ring_bell(_Atomic uint64_t *slot)
{
	uint64_t token;

	/* Our publish before the look at the slot; pairs with the fence in comch_ring_wait_bell. */
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(slot, memory_order_relaxed) == 0)
		return;
	token = atomic_exchange_explicit(slot, 0, memory_order_acq_rel);
	ferry_pe_bell_ring(token);
}

bool comch_ring_wait_bell(_Atomic uint64_t *slot, uint64_t token, const struct comch_ring_view *view)
{
	atomic_store_explicit(slot, token, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	return atomic_load_explicit(&view->hdr->head, memory_order_acquire) == view->tail;
}
