/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_bench - DMA between two processes through an exported mmap, against
 * its peers, in one run on the same buffers:
 *
 *   shared path:  DOCA DMA memcpy tasks, host memory (ferry_mem_alloc_shared,
 *                 exported by a forked "host" process) -> local memory,
 *                 against memcpy between two local buffers;
 *   CMA path:     ferry_remote_read (what a copy engine calls for ordinary,
 *                 non-shareable host memory) against raw process_vm_readv.
 *
 *   export_bench [seconds-per-measurement]   (default 0.4)
 *
 * Sizes per copy: 4 KiB, 64 KiB, 1 MiB, 64 MiB, walking a 256 MiB span so large
 * copies come from memory. DMA runs 8 tasks in flight. Targets (issue 3):
 * shared >= 0.9x memcpy, CMA >= 0.9x process_vm_readv.
 * Output: a table, then one line per measurement prefixed "JSON ".
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <ferry_mem.h>

#include "link/ferry_remote.h"

#define SPAN (256ull << 20)
#define QD 8u

static double seconds = 0.4;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct doca_dev *open_dev(const char *pci)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		uint8_t eq = 0;
		if (doca_devinfo_is_equal_pci_addr(list[i], pci, &eq) == DOCA_SUCCESS && eq)
			(void)doca_dev_open(list[i], &dev);
	}
	doca_devinfo_destroy_list(list);
	return dev;
}

/* ---- the host process: export two buffers, then wait until told to go ---- */

static int export_one(struct doca_dev *dev, void *mem, FILE *out)
{
	struct doca_mmap *m = NULL;
	const void *desc;
	size_t len;

	if (doca_mmap_create(&m) != DOCA_SUCCESS || doca_mmap_add_dev(m, dev) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(m, mem, SPAN) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE) !=
		    DOCA_SUCCESS ||
	    doca_mmap_start(m) != DOCA_SUCCESS || doca_mmap_export_pci(m, dev, &desc, &len) != DOCA_SUCCESS)
		return -1;
	uint64_t addr = (uintptr_t)mem, n = len;
	fwrite(&addr, sizeof(addr), 1, out);
	fwrite(&n, sizeof(n), 1, out);
	fwrite(desc, 1, len, out);
	return 0;
}

static void host_main(int to_dpu, int from_dpu)
{
	struct doca_dev *dev = open_dev("b1:00.0");
	uint8_t *shared = ferry_mem_alloc_shared(SPAN);
	uint8_t *plain = malloc(SPAN);
	FILE *out = fdopen(to_dpu, "w");
	char c;

	if (dev == NULL || shared == NULL || plain == NULL || out == NULL)
		_exit(1);
	memset(shared, 0x5a, SPAN);
	memset(plain, 0xa5, SPAN);
	if (export_one(dev, shared, out) != 0 || export_one(dev, plain, out) != 0)
		_exit(1);
	fflush(out);
	(void)read(from_dpu, &c, 1); /* EOF when the DPU side is done */
	_exit(0);
}

struct exported {
	uint8_t *addr;
	uint8_t desc[512];
	size_t len;
};

static int read_export(FILE *in, struct exported *e)
{
	uint64_t addr, len;

	if (fread(&addr, sizeof(addr), 1, in) != 1 || fread(&len, sizeof(len), 1, in) != 1 || len > sizeof(e->desc) ||
	    fread(e->desc, 1, len, in) != len)
		return -1;
	e->addr = (uint8_t *)(uintptr_t)addr;
	e->len = len;
	return 0;
}

/* ---- the DPU side ---- */

struct dma_run {
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_buf *src[QD], *dst[QD];
	struct doca_dma_task_memcpy *task[QD];
	uint8_t *remote, *local;
	size_t size;
	uint64_t next_off, done;
	bool stopping;
	uint32_t inflight;
	bool failed;
};

static void resubmit(struct dma_run *r, uint32_t slot)
{
	uint64_t off = r->next_off;

	r->next_off = (r->next_off + r->size) % SPAN;
	if (r->next_off + r->size > SPAN)
		r->next_off = 0;
	if (doca_buf_set_data(r->src[slot], r->remote + off, r->size) != DOCA_SUCCESS ||
	    doca_buf_set_data(r->dst[slot], r->local + off, 0) != DOCA_SUCCESS ||
	    doca_task_submit(doca_dma_task_memcpy_as_task(r->task[slot])) != DOCA_SUCCESS)
		r->failed = true;
	else
		r->inflight++;
}

static void on_done(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct dma_run *r = cud.ptr;

	if (doca_task_get_status(doca_dma_task_memcpy_as_task(task)) != DOCA_SUCCESS)
		r->failed = true;
	r->inflight--;
	r->done++;
	if (!r->stopping && !r->failed)
		resubmit(r, (uint32_t)tud.u64);
}

static double bench_dma(struct dma_run *r, struct doca_buf_inventory *inv, struct doca_mmap *rm,
			struct doca_mmap *lm, size_t size)
{
	r->size = size;
	r->next_off = 0;
	r->done = 0;
	r->stopping = false;
	for (uint32_t i = 0; i < QD; i++) {
		union doca_data tud = {.u64 = i};
		if (doca_buf_inventory_buf_get_by_addr(inv, rm, r->remote, SPAN, &r->src[i]) != DOCA_SUCCESS ||
		    doca_buf_inventory_buf_get_by_addr(inv, lm, r->local, SPAN, &r->dst[i]) != DOCA_SUCCESS ||
		    doca_dma_task_memcpy_alloc_init(r->dma, r->src[i], r->dst[i], tud, &r->task[i]) != DOCA_SUCCESS)
			return -1;
	}
	double t0 = now(), t;
	for (uint32_t i = 0; i < QD; i++)
		resubmit(r, i);
	uint64_t start_done = 0;
	do {
		(void)doca_pe_progress(r->pe);
		t = now();
	} while (t - t0 < seconds && !r->failed);
	r->stopping = true;
	while (r->inflight > 0)
		(void)doca_pe_progress(r->pe);
	t = now();
	for (uint32_t i = 0; i < QD; i++) {
		doca_task_free(doca_dma_task_memcpy_as_task(r->task[i]));
		doca_buf_dec_refcount(r->src[i], NULL);
		doca_buf_dec_refcount(r->dst[i], NULL);
	}
	return r->failed ? -1 : (double)(r->done - start_done) * (double)size / (t - t0) / 1e9;
}

/* memcpy, ferry_remote_read, process_vm_readv: same sizes over the same offsets. */
enum peer { PEER_MEMCPY, PEER_REMOTE, PEER_RAW_CMA };

static double bench_peer(enum peer kind, const struct ferry_remote *rem, uint8_t *src, uint8_t *dst, size_t size,
			 pid_t pid)
{
	uint64_t off = 0, n = 0;
	double t0 = now(), t;

	do {
		for (int k = 0; k < 16; k++) {
			if (kind == PEER_MEMCPY) {
				memcpy(dst + off, src + off, size);
			} else if (kind == PEER_REMOTE) {
				if (ferry_remote_read(rem, dst + off, (uintptr_t)(src + off), size) != DOCA_SUCCESS)
					return -1;
			} else {
				struct iovec lv = {.iov_base = dst + off, .iov_len = size};
				struct iovec rv = {.iov_base = src + off, .iov_len = size};
				if (process_vm_readv(pid, &lv, 1, &rv, 1, 0) != (ssize_t)size)
					return -1;
			}
			n++;
			off += size;
			if (off + size > SPAN)
				off = 0;
		}
		t = now();
	} while (t - t0 < seconds);
	return (double)n * (double)size / (t - t0) / 1e9;
}

static void report(const char *path, size_t size, double gbps, const char *peer, double peer_gbps)
{
	printf("%-8s %10zu %10.2f %-18s %10.2f %8.2fx\n", path, size, gbps, peer, peer_gbps, gbps / peer_gbps);
}

static void json(const char *path, size_t size, double gbps, const char *peer, double peer_gbps)
{
	printf("JSON {\"bench\":\"export\",\"path\":\"%s\",\"size\":%zu,\"gb_per_s\":%.3f,\"peer\":\"%s\","
	       "\"peer_gb_per_s\":%.3f,\"ratio\":%.3f}\n",
	       path, size, gbps, peer, peer_gbps, gbps / peer_gbps);
}

int main(int argc, char **argv)
{
	int to_dpu[2], from_dpu[2];
	static const size_t sizes[] = {4096, 65536, 1u << 20, 64u << 20};
	double res[4][4];

	if (argc > 1)
		seconds = atof(argv[1]);
	if (pipe(to_dpu) != 0 || pipe(from_dpu) != 0)
		return 1;
	pid_t host = fork();
	if (host == 0) {
		close(to_dpu[0]);
		close(from_dpu[1]);
		host_main(to_dpu[1], from_dpu[0]);
	}
	close(to_dpu[1]);
	close(from_dpu[0]);

	FILE *in = fdopen(to_dpu[0], "r");
	struct exported shared_exp, plain_exp;
	if (in == NULL || read_export(in, &shared_exp) != 0 || read_export(in, &plain_exp) != 0) {
		fprintf(stderr, "export_bench: the host process did not export\n");
		return 1;
	}
	ferry_link_enable_cma(); /* for the plain-memory export; DMA is not used on it */
	struct doca_dev *dev = open_dev("03:00.0");
	struct doca_mmap *shared_mmap = NULL, *plain_mmap = NULL, *local_mmap = NULL;
	uint8_t *local = NULL, *local2 = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct dma_run run = {0};
	union doca_data ud = {.ptr = &run};

	/*
	 * Import before allocating anything big: the forked host placed its buffers
	 * where this process's next allocations would go, and the shared import must
	 * map them at those very addresses.
	 */
	if (dev == NULL ||
	    doca_mmap_create_from_export(NULL, shared_exp.desc, shared_exp.len, dev, &shared_mmap) != DOCA_SUCCESS ||
	    doca_mmap_create_from_export(NULL, plain_exp.desc, plain_exp.len, dev, &plain_mmap) != DOCA_SUCCESS) {
		fprintf(stderr, "export_bench: import failed\n");
		return 1;
	}
	if (ferry_mmap_remote(shared_mmap) != NULL) {
		fprintf(stderr, "export_bench: the shared export could not be mapped at its own addresses\n");
		return 1;
	}
	local = aligned_alloc(4096, SPAN);
	local2 = aligned_alloc(4096, SPAN);
	if (local == NULL || local2 == NULL)
		return 1;
	memset(local, 1, SPAN);
	memset(local2, 2, SPAN);
	if (doca_mmap_create(&local_mmap) != DOCA_SUCCESS || doca_mmap_set_memrange(local_mmap, local, SPAN) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(local_mmap, dev) != DOCA_SUCCESS || doca_mmap_start(local_mmap) != DOCA_SUCCESS ||
	    doca_buf_inventory_create(4 * QD, &inv) != DOCA_SUCCESS || doca_buf_inventory_start(inv) != DOCA_SUCCESS ||
	    doca_pe_create(&run.pe) != DOCA_SUCCESS || doca_dma_create(dev, &run.dma) != DOCA_SUCCESS ||
	    doca_dma_task_memcpy_set_conf(run.dma, on_done, on_done, QD) != DOCA_SUCCESS ||
	    doca_ctx_set_user_data(doca_dma_as_ctx(run.dma), ud) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(run.pe, doca_dma_as_ctx(run.dma)) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_dma_as_ctx(run.dma)) != DOCA_SUCCESS) {
		fprintf(stderr, "export_bench: DMA setup failed\n");
		return 1;
	}
	run.remote = shared_exp.addr;
	run.local = local;
	const struct ferry_remote *rem = ferry_mmap_remote(plain_mmap);

	for (int i = 0; i < 4; i++) {
		memset(local, 0, SPAN);
		res[i][0] = bench_dma(&run, inv, shared_mmap, local_mmap, sizes[i]);
		/* The copies really happened: the host filled its buffer with 0x5a. */
		uint64_t copied = run.done * sizes[i] < SPAN ? run.done * sizes[i] : SPAN - SPAN % sizes[i];
		for (uint64_t off = 0; off < copied; off += 4093)
			if (local[off] != 0x5a) {
				fprintf(stderr, "export_bench: DMA result wrong at offset %llu (0x%02x)\n",
					(unsigned long long)off, local[off]);
				return 1;
			}
		res[i][1] = bench_peer(PEER_MEMCPY, NULL, local2, local, sizes[i], host);
		res[i][2] = bench_peer(PEER_REMOTE, rem, plain_exp.addr, local, sizes[i], host);
		res[i][3] = bench_peer(PEER_RAW_CMA, NULL, plain_exp.addr, local, sizes[i], host);
	}
	printf("%-8s %10s %10s %-18s %10s %9s\n", "path", "bytes", "GB/s", "peer", "peer GB/s", "ratio");
	for (int i = 0; i < 4; i++) {
		report("shared", sizes[i], res[i][0], "memcpy", res[i][1]);
		report("cma", sizes[i], res[i][2], "process_vm_readv", res[i][3]);
	}
	for (int i = 0; i < 4; i++) {
		json("shared", sizes[i], res[i][0], "memcpy", res[i][1]);
		json("cma", sizes[i], res[i][2], "process_vm_readv", res[i][3]);
	}

	doca_ctx_stop(doca_dma_as_ctx(run.dma));
	doca_dma_destroy(run.dma);
	doca_pe_destroy(run.pe);
	doca_buf_inventory_destroy(inv);
	doca_mmap_destroy(local_mmap);
	doca_mmap_destroy(shared_mmap);
	doca_mmap_destroy(plain_mmap);
	doca_dev_close(dev);
	close(from_dpu[1]);
	waitpid(host, NULL, 0);
	free(local);
	free(local2);
	return 0;
}
