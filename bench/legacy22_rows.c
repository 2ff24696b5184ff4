/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy22_rows.c - DOCA 2.2 memcpy jobs at full rate, for dma_bench --legacy.
 * Written as a 2.2 program would: a job per slot on the stack of the loop,
 * resubmitted as soon as its event is retrieved.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_mmap.h>

#include "bench_util.h"
#include "legacy22_rows.h"

#define MAX_QD 64u

struct rows {
	struct doca_dev *dev;
	struct doca_mmap *src_mmap, *dst_mmap;
	struct doca_buf_inventory *inv;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_workq *wq;
	struct doca_buf *src_buf[MAX_QD], *dst_buf[MAX_QD];
};

static bool ok(doca_error_t r, const char *what)
{
	if (r != DOCA_SUCCESS)
		fprintf(stderr, "dma_bench --legacy: %s: %s\n", what, doca_get_error_string(r));
	return r == DOCA_SUCCESS;
}

static struct doca_dev *open_host_dev(void)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	if (!ok(doca_devinfo_list_create(&list, &n), "doca_devinfo_list_create"))
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		uint8_t eq = 0;

		if (doca_devinfo_get_is_pci_addr_equal(list[i], "b1:00.0", &eq) == DOCA_SUCCESS && eq)
			(void)ok(doca_dev_open(list[i], &dev), "doca_dev_open");
	}
	(void)doca_devinfo_list_destroy(list);
	return dev;
}

static bool map(struct rows *r, unsigned char *mem, size_t span, struct doca_mmap **mmap)
{
	return ok(doca_mmap_create(NULL, mmap), "doca_mmap_create") &&
	       ok(doca_mmap_dev_add(*mmap, r->dev), "doca_mmap_dev_add") &&
	       ok(doca_mmap_set_memrange(*mmap, mem, span), "doca_mmap_set_memrange") &&
	       ok(doca_mmap_start(*mmap), "doca_mmap_start");
}

static bool setup(struct rows *r, unsigned char *src, unsigned char *dst, size_t span, unsigned qd)
{
	r->dev = open_host_dev();
	if (r->dev == NULL || !map(r, src, span, &r->src_mmap) || !map(r, dst, span, &r->dst_mmap))
		return false;
	if (!ok(doca_buf_inventory_create(NULL, 2 * qd, DOCA_BUF_EXTENSION_NONE, &r->inv), "inventory create") ||
	    !ok(doca_buf_inventory_start(r->inv), "inventory start"))
		return false;
	for (unsigned i = 0; i < qd; i++)
		if (!ok(doca_buf_inventory_buf_by_addr(r->inv, r->src_mmap, src, span, &r->src_buf[i]), "buf") ||
		    !ok(doca_buf_inventory_buf_by_addr(r->inv, r->dst_mmap, dst, span, &r->dst_buf[i]), "buf"))
			return false;
	if (!ok(doca_dma_create(&r->dma), "doca_dma_create"))
		return false;
	r->ctx = doca_dma_as_ctx(r->dma);
	return ok(doca_ctx_dev_add(r->ctx, r->dev), "doca_ctx_dev_add") && ok(doca_ctx_start(r->ctx), "start") &&
	       ok(doca_workq_create(qd, &r->wq), "doca_workq_create") &&
	       ok(doca_ctx_workq_add(r->ctx, r->wq), "doca_ctx_workq_add");
}

static void teardown(struct rows *r, unsigned qd)
{
	(void)doca_ctx_workq_rm(r->ctx, r->wq);
	(void)doca_workq_destroy(r->wq);
	(void)doca_ctx_stop(r->ctx);
	(void)doca_ctx_dev_rm(r->ctx, r->dev);
	(void)doca_dma_destroy(r->dma);
	for (unsigned i = 0; i < qd; i++) {
		(void)doca_buf_refcount_rm(r->src_buf[i], NULL);
		(void)doca_buf_refcount_rm(r->dst_buf[i], NULL);
	}
	(void)doca_buf_inventory_destroy(r->inv);
	(void)doca_mmap_destroy(r->src_mmap);
	(void)doca_mmap_destroy(r->dst_mmap);
	(void)doca_dev_close(r->dev);
}

int legacy22_dma_rate(unsigned char *src, unsigned char *dst, size_t span, size_t size, size_t window, unsigned qd,
		      double seconds, double *jobs_per_s)
{
	struct rows r;
	struct doca_dma_job_memcpy job;
	struct doca_event ev;
	uint64_t next = 0, done = 0, start_done = 0;
	double t0, t = 0, started;
	bool timing = false, good;

	memset(&r, 0, sizeof(r));
	if (qd == 0 || qd > MAX_QD)
		return -1;
	good = setup(&r, src, dst, span, qd);
	memset(&job, 0, sizeof(job));
	job.base.type = DOCA_DMA_JOB_MEMCPY;
	job.base.ctx = r.ctx;
	for (unsigned i = 0; good && i < qd; i++) {
		size_t off = bench_place(next++, size, window);

		(void)doca_buf_set_data(r.src_buf[i], src + off, size);
		(void)doca_buf_set_data(r.dst_buf[i], dst + off, 0);
		job.base.user_data.u64 = i;
		job.src_buff = r.src_buf[i];
		job.dst_buff = r.dst_buf[i];
		good = ok(doca_workq_submit(r.wq, &job.base), "doca_workq_submit");
	}
	started = t0 = now_s();
	while (good) {
		doca_error_t e = doca_workq_progress_retrieve(r.wq, &ev, DOCA_WORKQ_RETRIEVE_FLAGS_NONE);
		unsigned slot;
		size_t off;

		if (e == DOCA_ERROR_AGAIN)
			continue;
		if (!ok(e, "doca_workq_progress_retrieve")) {
			good = false;
			break;
		}
		done++;
		if ((done & 255) == 0 || size > 4096) {
			t = now_s();
			if (!timing && t - started >= seconds / 10) {
				timing = true;
				start_done = done;
				t0 = t;
			} else if (timing && t - t0 >= seconds) {
				break;
			}
		}
		slot = (unsigned)ev.user_data.u64;
		off = bench_place(next++, size, window);
		(void)doca_buf_set_data(r.src_buf[slot], src + off, size);
		(void)doca_buf_set_data(r.dst_buf[slot], dst + off, 0);
		job.base.user_data.u64 = slot;
		job.src_buff = r.src_buf[slot];
		job.dst_buff = r.dst_buf[slot];
		good = ok(doca_workq_submit(r.wq, &job.base), "doca_workq_submit");
	}
	/* Drain what is still out before taking the work queue off the context. */
	for (uint64_t out = qd; good && out > 1; out--) {
		doca_error_t e;

		while ((e = doca_workq_progress_retrieve(r.wq, &ev, DOCA_WORKQ_RETRIEVE_FLAGS_NONE)) ==
		       DOCA_ERROR_AGAIN)
			;
		good = ok(e, "doca_workq_progress_retrieve (drain)");
	}
	*jobs_per_s = timing ? (double)(done - start_done) / (t - t0) : 0;
	teardown(&r, qd);
	return good && timing ? 0 : -1;
}
