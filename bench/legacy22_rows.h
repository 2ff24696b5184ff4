/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy22_rows.h - dma_bench's work-queue rows: DOCA 2.2 memcpy jobs, driven
 * from a translation unit that sees only the 2.2 headers (legacy22_rows.c).
 */
#ifndef LEGACY22_ROWS_H_
#define LEGACY22_ROWS_H_

#include <stddef.h>
#include <stdint.h>

/** Where copy number @p i of @p size bytes sits in a @p window of each buffer (dma_bench's place()). */
typedef size_t (*legacy22_place_fn)(uint64_t i, size_t size, size_t window);

/**
 * Keep @p qd memcpy jobs of @p size bytes in flight through one work queue for
 * @p seconds (after a tenth of that to warm up), copying @p src to @p dst (each
 * @p span bytes) at the offsets @p place gives. @p jobs_per_s gets the rate.
 * Returns 0, or -1 when a call or a job failed (the line says which).
 */
int legacy22_dma_rate(unsigned char *src, unsigned char *dst, size_t span, size_t size, size_t window,
		      legacy22_place_fn place, unsigned qd, double seconds, double *jobs_per_s);

#endif /* LEGACY22_ROWS_H_ */
