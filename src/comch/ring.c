/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring.c - the shared-memory rings of the Comch fast path (layout and rules in
 * comch_fast.h). A ring has one writer, in one process, and one reader, in the
 * other. The writer's block comes from ferry_mem_alloc_shared and reaches the
 * reader through the same export and import as any mmap: mapped at the same
 * address when possible, read by cross-memory attach otherwise.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include <doca_mmap.h>
#include <ferry_mem.h>

#include "comch/comch_fast.h"
#include "core/ferry_mem.h"
#include "link/ferry_remote.h"

doca_error_t comch_ring_out_open(struct comch_ring_out *ring, uint32_t magic, uint32_t cap, size_t bytes,
				 struct doca_dev *dev, const void **desc, size_t *desc_len)
{
	ring->hdr = ferry_mem_alloc_shared(bytes); /* zeroed: head 0 */
	ring->head = 0;
	if (ring->hdr == NULL)
		return DOCA_ERROR_NO_MEMORY;
	ring->hdr->magic = magic;
	ring->hdr->cap = cap;
	if (doca_mmap_create(&ring->mmap) != DOCA_SUCCESS || doca_mmap_set_memrange(ring->mmap, ring->hdr, bytes) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(ring->mmap, dev) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(ring->mmap, DOCA_ACCESS_FLAG_PCI_READ_ONLY) != DOCA_SUCCESS ||
	    doca_mmap_start(ring->mmap) != DOCA_SUCCESS || doca_mmap_export_pci(ring->mmap, dev, desc, desc_len) != DOCA_SUCCESS) {
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
}

void comch_ring_out_publish(struct comch_ring_out *ring, const void *entry, size_t size)
{
	uint8_t *entries = (uint8_t *)(ring->hdr + 1);

	memcpy(entries + (ring->head & (ring->hdr->cap - 1)) * size, entry, size);
	ring->head++;
	/* Release: the reader's acquire load of the head makes the entry visible with it. */
	atomic_store_explicit(&ring->hdr->head, ring->head, memory_order_release);
}

doca_error_t comch_ring_view_open(struct comch_ring_view *view, struct doca_dev *dev, const uint8_t *desc,
				  uint16_t desc_len, uint32_t cap, size_t bytes)
{
	void *addr = NULL;
	size_t len = 0;
	doca_error_t err;

	memset(view, 0, sizeof(*view));
	err = doca_mmap_create_from_export(NULL, desc, desc_len, dev, &view->mmap);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_get_memrange(view->mmap, &addr, &len);
	if (err == DOCA_SUCCESS && len < bytes)
		err = DOCA_ERROR_INVALID_VALUE;
	if (err != DOCA_SUCCESS) {
		comch_ring_view_close(view);
		return err;
	}
	view->addr = (uint64_t)(uintptr_t)addr;
	view->remote = ferry_mmap_remote(view->mmap);
	view->cap = cap;
	return DOCA_SUCCESS;
}

void comch_ring_view_close(struct comch_ring_view *view)
{
	if (view->mmap != NULL)
		(void)doca_mmap_destroy(view->mmap);
	view->mmap = NULL;
}

static doca_error_t view_read(const struct comch_ring_view *view, uint64_t offset, void *out, size_t len)
{
	if (view->remote != NULL)
		return ferry_remote_read(view->remote, out, view->addr + offset, len);
	memcpy(out, (const void *)(uintptr_t)(view->addr + offset), len); /* our mapping stays while imported */
	return DOCA_SUCCESS;
}

doca_error_t comch_ring_view_peek(const struct comch_ring_view *view, void *entry, size_t size)
{
	const struct comch_ring_hdr *hdr = (const struct comch_ring_hdr *)(uintptr_t)view->addr;
	uint64_t head = 0;

	if (view->mmap == NULL)
		return DOCA_ERROR_NOT_CONNECTED;
	if (view->remote == NULL)
		head = atomic_load_explicit(&hdr->head, memory_order_acquire); /* pairs with the writer's release */
	else if (ferry_remote_read(view->remote, &head, view->addr + offsetof(struct comch_ring_hdr, head),
				   sizeof(head)) != DOCA_SUCCESS)
		return DOCA_ERROR_NOT_CONNECTED;
	if (head == view->tail)
		return DOCA_ERROR_AGAIN;
	if (head - view->tail > view->cap)
		return DOCA_ERROR_INVALID_VALUE;
	return view_read(view, sizeof(struct comch_ring_hdr) + (view->tail & (view->cap - 1)) * size, entry, size);
}
