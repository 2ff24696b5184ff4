/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * g3_side.c - the DOCA 3 half of test_workq's wrong-generation checks, built
 * against include/ (a translation unit cannot see both generations' headers).
 */
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_pe.h>

#include "g3_side.h"

int g3_start_foreign_ctx(struct doca_ctx *ctx, struct doca_pe **pe)
{
	doca_error_t err;

	if (doca_pe_create(pe) != DOCA_SUCCESS)
		return -1;
	err = doca_pe_connect_ctx(*pe, ctx);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_start(ctx);
	return (int)err;
}

int g3_pe_destroy(struct doca_pe *pe)
{
	return (int)doca_pe_destroy(pe);
}

struct doca_ctx *g3_dma_ctx(struct doca_dev *dev, struct doca_dma **dma)
{
	if (doca_dma_create(dev, dma) != DOCA_SUCCESS)
		return 0;
	return doca_dma_as_ctx(*dma);
}

void g3_dma_destroy(struct doca_dma *dma)
{
	(void)doca_dma_destroy(dma);
}
