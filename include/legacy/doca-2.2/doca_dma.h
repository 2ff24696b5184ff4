/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dma.h (DOCA 2.2 flavour) - the DMA context and its memcpy job.
 *
 * The job copies the source buf's data and appends it to the destination
 * buf's data (the destination's data length grows by the bytes copied).
 */
#ifndef DOCA_DMA_H_
#define DOCA_DMA_H_

#include <stdint.h>

#include <doca_compat.h>
#include <doca_ctx.h>
#include <doca_error.h>

#ifdef __cplusplus
extern "C" {
#endif

struct doca_buf;
struct doca_devinfo;
struct doca_dma;

enum doca_dma_job_types {
	DOCA_DMA_JOB_MEMCPY = DOCA_ACTION_DMA_FIRST + 1,
};

/** A copy of src_buff's data to the end of dst_buff's data. */
struct doca_dma_job_memcpy {
	struct doca_job base;
	struct doca_buf *dst_buff;
	struct doca_buf const *src_buff;
};

/** What the memcpy job's event carries in result. */
struct doca_dma_memcpy_result {
	doca_error_t result;
};

DOCA_EXPERIMENTAL doca_error_t doca_dma_create(struct doca_dma **dma) FERRY_LEGACY_SYMBOL(ferry_v22_dma_create);
/** Refused while the context is started or on a work queue. */
DOCA_EXPERIMENTAL doca_error_t doca_dma_destroy(struct doca_dma *dma) FERRY_LEGACY_SYMBOL(ferry_wq_dma_destroy);
DOCA_EXPERIMENTAL struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma) FERRY_LEGACY_SYMBOL(ferry_wq_dma_as_ctx);
/** DOCA_SUCCESS when @p devinfo runs jobs of @p job_type. */
DOCA_EXPERIMENTAL doca_error_t doca_dma_job_get_supported(struct doca_devinfo *devinfo,
							  enum doca_dma_job_types job_type);
DOCA_EXPERIMENTAL doca_error_t doca_dma_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size);
DOCA_EXPERIMENTAL doca_error_t doca_dma_get_max_list_buf_num_elem(const struct doca_devinfo *devinfo,
								  uint32_t *max_list_num_elem);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DMA_H_ */
