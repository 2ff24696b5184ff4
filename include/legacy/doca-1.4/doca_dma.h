/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * doca_dma.h (DOCA 1.4 flavour) - the DMA context and its memcpy job.
 *
 * The job copies num_bytes_to_copy bytes from the source buf's data to the
 * destination buf's data; the destination's data length becomes that count.
 */
#ifndef DOCA_DMA_H_
#define DOCA_DMA_H_

#include <stddef.h>
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

/** A copy of num_bytes_to_copy bytes of src_buff's data into dst_buff. */
struct doca_dma_job_memcpy {
	struct doca_job base;
	struct doca_buf *dst_buff;
	struct doca_buf const *src_buff;
	size_t num_bytes_to_copy;
};

/** What the memcpy job's event carries in result. */
struct doca_dma_memcpy_result {
	doca_error_t result;
};

/** What doca_dma_devinfo_caps_get reports. */
enum doca_dma_devinfo_caps {
	DOCA_DMA_CAP_NONE = 0,
	DOCA_DMA_CAP_HW_OFFLOAD = 1U << 0, /**< the device runs memcpy jobs */
};

__DOCA_EXPERIMENTAL doca_error_t doca_dma_create(struct doca_dma **dma) FERRY_LEGACY_SYMBOL(ferry_v14_dma_create);
/** Refused while the context is started or on a work queue. */
__DOCA_EXPERIMENTAL doca_error_t doca_dma_destroy(struct doca_dma *dma) FERRY_LEGACY_SYMBOL(ferry_wq_dma_destroy);
__DOCA_EXPERIMENTAL struct doca_ctx *doca_dma_as_ctx(struct doca_dma *dma) FERRY_LEGACY_SYMBOL(ferry_wq_dma_as_ctx);
/** enum doca_dma_devinfo_caps bits of @p devinfo into @p caps. */
__DOCA_EXPERIMENTAL doca_error_t doca_dma_devinfo_caps_get(struct doca_devinfo *devinfo, uint32_t *caps);
/** The largest buf a job may copy. */
__DOCA_EXPERIMENTAL doca_error_t doca_dma_get_max_buf_size(const struct doca_devinfo *devinfo, uint64_t *buf_size);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_DMA_H_ */
