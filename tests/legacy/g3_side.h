/* SPDX-License-Identifier: BSD-3-Clause */
/* g3_side.h - DOCA 3 calls for test_workq, declared without either generation's headers. */
#ifndef G3_SIDE_H_
#define G3_SIDE_H_

struct doca_ctx;
struct doca_dev;
struct doca_dma;
struct doca_pe;

/** DOCA 3's doca_pe_create, doca_pe_connect_ctx(*pe, ctx), doca_ctx_start; the doca_error_t as an int. */
int g3_start_foreign_ctx(struct doca_ctx *ctx, struct doca_pe **pe);
/** doca_pe_destroy, once the contexts connected to @p pe are gone. */
int g3_pe_destroy(struct doca_pe *pe);
/** A DOCA 3 DMA context on @p dev (NULL on failure). */
struct doca_ctx *g3_dma_ctx(struct doca_dev *dev, struct doca_dma **dma);
void g3_dma_destroy(struct doca_dma *dma);

#endif /* G3_SIDE_H_ */
