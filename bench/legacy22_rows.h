/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy22_rows.h - dma_bench's work-queue rows: DOCA 2.2 memcpy jobs, driven
 * from a translation unit that sees only the 2.2 headers (legacy22_rows.c).
 */
#ifndef LEGACY22_ROWS_H_
#define LEGACY22_ROWS_H_

#include <stddef.h>
#include <stdint.h>

/**
 * Keep @p qd memcpy jobs of @p size bytes in flight through one work queue for
 * @p seconds (after a tenth of that to warm up), copying @p src to @p dst (each
 * @p span bytes) at the offsets bench_place gives (bench_util.h), as dma_bench's tasks do. @p jobs_per_s gets the rate.
 * Returns 0, or -1 when a call or a job failed (the line says which).
 */
int legacy22_dma_rate(unsigned char *src, unsigned char *dst, size_t span, size_t size, size_t window, unsigned qd,
		      double seconds, double *jobs_per_s);

#endif /* LEGACY22_ROWS_H_ */
