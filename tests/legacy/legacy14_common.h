/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy14_common.h - what the DOCA 1.3/1.4 DMA samples share (their
 * dma_common), rewritten for Ferry's tests: find a device by its PCI address
 * through doca_devinfo_property_get, and set up and tear down the objects in
 * the order of NVIDIA's 2022 DMA guide. Built only against include/legacy/doca-1.4.
 */
#ifndef LEGACY14_COMMON_H_
#define LEGACY14_COMMON_H_

#include <stdint.h>

#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_types.h>

#define LEGACY14_HOST_PCI    "b1:00.0"
#define LEGACY14_DPU_PCI     "03:00.0"
#define LEGACY14_WORKQ_DEPTH 32

struct program_core_objects {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *buf_inv;
	struct doca_ctx *ctx;
	struct doca_workq *workq;
};

/** "bb:dd.f" (hex) into @p out, field by field. */
doca_error_t parse_pci_addr(const char *text, struct doca_pci_bdf *out);

/** Open the device at @p pci (its raw address compared with each listed device's). */
doca_error_t open_local_device(const struct doca_pci_bdf *pci, struct doca_dev **dev);

/** mmap, inventory of @p max_bufs, work queue; @p dma's context. */
doca_error_t create_core_objects(struct program_core_objects *state, struct doca_dma *dma, uint32_t max_bufs);

/** The guide's order: limits, mmap start, dev_add, inventory start, ctx dev_add, start, workq_add. */
doca_error_t init_core_objects(struct program_core_objects *state, uint32_t max_chunks);

/** workq_rm, ctx stop, ctx dev_rm, mmap dev_rm. */
void cleanup_core_objects(struct program_core_objects *state);

/** workq, DMA, inventory, mmap, device. */
void destroy_core_objects(struct program_core_objects *state, struct doca_dma *dma);

/** Submit @p job and spin on doca_workq_progress_retrieve until it comes back; the job's result. */
doca_error_t run_dma_job(struct program_core_objects *state, struct doca_dma_job_memcpy *job);

#endif /* LEGACY14_COMMON_H_ */
