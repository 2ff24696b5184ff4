/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_dev.h - internal view of the emulated devices (implemented in dev.c,
 * topology.c). Context types use it to check a device and read its caps.
 */
#ifndef FERRY_DEV_H_
#define FERRY_DEV_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_dev.h>

/** Which side of the emulated PCIe link a device sits on. */
enum ferry_dev_side {
	FERRY_SIDE_HOST = 0,
	FERRY_SIDE_DPU = 1,
};

/** DMA capabilities of one device (answered by the doca_dma_cap_* queries). */
struct ferry_dma_caps {
	bool memcpy_supported;
	uint64_t max_buf_size;      /* bytes per buffer (and per task) */
	uint32_t max_buf_list_len;  /* buffers in a chained src or dst list */
	uint32_t max_num_tasks;     /* tasks per DMA context */
};

/** The side a device info describes. */
enum ferry_dev_side ferry_devinfo_side(const struct doca_devinfo *devinfo);

/** DMA caps of a device info; never NULL for a valid devinfo. */
const struct ferry_dma_caps *ferry_devinfo_dma_caps(const struct doca_devinfo *devinfo);

/** Short printable identity for log lines ("b1:00.0"). */
const char *ferry_devinfo_name(const struct doca_devinfo *devinfo);

/** Shorthand for an open device. */
const char *ferry_dev_name(const struct doca_dev *dev);

/**
 * Take and drop a reference on an open device from an object that uses it
 * (mmap, context): doca_dev_close answers DOCA_ERROR_IN_USE while any remain.
 */
void ferry_dev_get(struct doca_dev *dev);
void ferry_dev_put(struct doca_dev *dev);

#endif /* FERRY_DEV_H_ */
