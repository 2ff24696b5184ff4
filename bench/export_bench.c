/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_bench - DMA between two processes through an exported mmap, against
 * its peers, in one run on the same buffers. A forked "host" process exports
 * two 256 MiB buffers; this process (the "DPU") imports both and runs DOCA DMA
 * memcpy tasks from each into one local buffer:
 *
 *   shared path:  host memory from ferry_mem_alloc_shared (mapped here at the
 *                 host's addresses), against memcpy from that very mapping
 *                 into the same local buffer;
 *   CMA path:     host memory from malloc (reached by cross-memory attach),
 *                 against raw process_vm_readv from the same host buffer into
 *                 the same local buffer.
 *
 *   network path: with --net, the malloc'd buffer is imported a second time
 *                 through the exporter's network server (FERRY_LINK_NET=always:
 *                 UCX over TCP on 127.0.0.1, or the devices' network
 *                 identities), against ucx_perftest's ucp_am_bw on the same
 *                 transport (UCX_TLS, default tcp) with messages of the same size.
 *
 *   export_bench [seconds-per-measurement [rounds [bytes]]] [--net]
 *   (default 0.3 s, 3 rounds, every size; bytes: only that size, e.g. to profile it)
 *   export_bench [--sizes LIST] [--depths LIST] [--seconds S] [--rounds R] [--json]
 *   (a sweep, bench_util.h's options: each size at each depth, 1 round unless
 *   --rounds; the default run is the sweep of the sizes below at depth 8)
 *
 * Sizes per copy: 4 KiB, 64 KiB, 1 MiB, 64 MiB, walking the 256 MiB span so large
 * copies come from memory. DMA runs 8 tasks in flight. Each round measures the
 * four rows of a size back to back (DMA, then its peer); the figure is the best
 * round of each. Targets (issue 3): shared >= 0.9x memcpy, CMA >= 0.9x
 * process_vm_readv. Output: bench_util.h's rows, case "shared" against memcpy
 * and "cma" against process_vm_readv: a table, or JSON lines with --json.
 * Every DMA result is checked against the host's fill byte.
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

#include "bench_ucx.h"
#include "bench_util.h"
#include "ferry_test_dev.h"

#include "core/ferry_memview.h"
#include "link/ferry_access.h" /* only to check which path an import took */

#define SPAN        (256ull << 20)
#define QD          8u  /* tasks in flight of the default run */
#define MAX_QD      64u /* of a sweep */
#define SHARED_FILL 0x5a
#define PLAIN_FILL  0xa5

static double seconds = 0.3;
static int rounds = 3;
static uint32_t qd = QD;
static uint64_t peer_iters; /* copies of the last bench_peer */
static bool net;            /* --net: the network path's rows too */
static char ucx_exe[4096];  /* ucx_perftest, when on PATH */

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
	struct doca_dev *dev = ferry_test_open_dev("b1:00.0", NULL);
	uint8_t *shared = ferry_mem_alloc_shared(SPAN);
	uint8_t *plain = malloc(SPAN);
	FILE *out = fdopen(to_dpu, "w");
	char c;

	if (dev == NULL || shared == NULL || plain == NULL || out == NULL)
		_exit(1);
	memset(shared, SHARED_FILL, SPAN);
	memset(plain, PLAIN_FILL, SPAN);
	if (net)
		setenv("FERRY_LINK_NET", "always", 1); /* the exports offer the network path too */
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
	struct doca_buf_inventory *inv;
	struct doca_buf *src[MAX_QD], *dst[MAX_QD];
	struct doca_dma_task_memcpy *task[MAX_QD];
	const uint8_t *remote; /* the host's buffer (its address) */
	uint8_t *local;
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
	if (doca_buf_set_data(r->src[slot], (void *)(uintptr_t)(r->remote + off), r->size) != DOCA_SUCCESS ||
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

/* DMA tasks of @p size bytes from the host's buffer @p remote (in map @p rm) into local memory; GB/s or -1. */
static double bench_dma(struct dma_run *r, struct doca_mmap *rm, const uint8_t *remote, struct doca_mmap *lm,
			size_t size)
{
	r->remote = remote;
	r->size = size;
	r->next_off = 0;
	r->done = 0;
	r->stopping = false;
	for (uint32_t i = 0; i < qd; i++) {
		union doca_data tud = {.u64 = i};
		if (doca_buf_inventory_buf_get_by_addr(r->inv, rm, (void *)(uintptr_t)remote, SPAN, &r->src[i]) !=
			    DOCA_SUCCESS ||
		    doca_buf_inventory_buf_get_by_addr(r->inv, lm, r->local, SPAN, &r->dst[i]) != DOCA_SUCCESS ||
		    doca_dma_task_memcpy_alloc_init(r->dma, r->src[i], r->dst[i], tud, &r->task[i]) != DOCA_SUCCESS)
			return -1;
	}
	double t0 = now_s(), t;
	for (uint32_t i = 0; i < qd; i++)
		resubmit(r, i);
	do {
		(void)doca_pe_progress(r->pe);
		t = now_s();
	} while (t - t0 < seconds && !r->failed);
	r->stopping = true;
	while (r->inflight > 0)
		(void)doca_pe_progress(r->pe);
	t = now_s();
	for (uint32_t i = 0; i < qd; i++) {
		doca_task_free(doca_dma_task_memcpy_as_task(r->task[i]));
		doca_buf_dec_refcount(r->src[i], NULL);
		doca_buf_dec_refcount(r->dst[i], NULL);
	}
	return r->failed ? -1 : (double)r->done * (double)size / (t - t0) / 1e9;
}

/* The copies really happened: every byte they wrote is the host's fill. */
static bool dma_result_ok(const struct dma_run *r, uint8_t fill)
{
	uint64_t copied = r->done * r->size < SPAN ? r->done * r->size : SPAN - SPAN % r->size;

	for (uint64_t off = 0; off < copied; off += 4093)
		if (r->local[off] != fill) {
			fprintf(stderr,
				"export_bench: DMA of %zu bytes: wrong byte at offset %llu (0x%02x, want 0x%02x)\n",
				r->size, (unsigned long long)off, r->local[off], fill);
			return false;
		}
	return true;
}

/* The peers, on the DMA's buffers and offsets: memcpy from the shared mapping, raw process_vm_readv. */
enum peer { PEER_MEMCPY, PEER_RAW_CMA };

static double bench_peer(enum peer kind, const uint8_t *src, uint8_t *dst, size_t size, pid_t pid)
{
	uint64_t off = 0, n = 0;
	double t0 = now_s(), t;

	do {
		for (int k = 0; k < 16; k++) {
			if (kind == PEER_MEMCPY) {
				memcpy(dst + off, src + off, size);
			} else {
				struct iovec lv = {.iov_base = dst + off, .iov_len = size};
				struct iovec rv = {.iov_base = (void *)(uintptr_t)(src + off), .iov_len = size};
				if (process_vm_readv(pid, &lv, 1, &rv, 1, 0) != (ssize_t)size)
					return -1;
			}
			n++;
			off += size;
			if (off + size > SPAN)
				off = 0;
		}
		t = now_s();
	} while (t - t0 < seconds);
	peer_iters = n;
	return (double)n * (double)size / (t - t0) / 1e9;
}

static struct doca_mmap *import_one(struct doca_dev *dev, const struct exported *e)
{
	struct doca_mmap *m = NULL;

	return doca_mmap_create_from_export(NULL, e->desc, e->len, dev, &m) == DOCA_SUCCESS ? m : NULL;
}

static int dma_setup(struct dma_run *run, struct doca_dev *dev)
{
	union doca_data ud = {.ptr = run};

	if (doca_buf_inventory_create(4 * MAX_QD, &run->inv) != DOCA_SUCCESS ||
	    doca_buf_inventory_start(run->inv) != DOCA_SUCCESS || doca_pe_create(&run->pe) != DOCA_SUCCESS ||
	    doca_dma_create(dev, &run->dma) != DOCA_SUCCESS ||
	    doca_dma_task_memcpy_set_conf(run->dma, on_done, on_done, MAX_QD) != DOCA_SUCCESS ||
	    doca_ctx_set_user_data(doca_dma_as_ctx(run->dma), ud) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(run->pe, doca_dma_as_ctx(run->dma)) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_dma_as_ctx(run->dma)) != DOCA_SUCCESS)
		return -1;
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: export_bench [seconds-per-measurement [rounds [bytes]]] [--net]\n"
		"       export_bench [--sizes LIST] [--depths LIST] [--seconds S] [--rounds R] [--json] [--net]\n");
	return 2;
}

/* A row of DMA tasks kept @p depth in flight: GB/s, the rate, the mean time in flight. */
static struct bench_row dma_row(double gbps, uint64_t done, size_t size, uint32_t depth)
{
	struct bench_row r = bench_row_none("ferry");
	double rate = gbps * 1e9 / (double)size;

	r.gb_per_s = gbps;
	r.mops = rate / 1e6;
	r.lat_us = rate > 0 ? depth * 1e6 / rate : BENCH_NA;
	r.iters = done;
	return r;
}

/* A row of a peer that copies one at a time. */
static struct bench_row peer_row(const char *name, double gbps, size_t size)
{
	struct bench_row r = bench_row_none(name);
	double rate = gbps * 1e9 / (double)size;

	r.gb_per_s = gbps;
	r.mops = rate / 1e6;
	r.lat_us = rate > 0 ? 1e6 / rate : BENCH_NA;
	r.iters = peer_iters;
	return r;
}

/* ucx_perftest's one-way active messages of @p size on the network path's transport: a row, or none. */
static struct bench_row ucx_am_row(size_t size)
{
	struct bench_row r = bench_row_none("ucp_am_bw");
	struct bench_ucx u;
	char why[256];
	uint64_t iters = (uint64_t)(seconds * 2e9 / (double)size) + 16;

	if (ucx_exe[0] == '\0' ||
	    !bench_ucx_run(ucx_exe, "ucp_am_bw", (uint32_t)size, iters, false, &u, why, sizeof(why))) {
		if (ucx_exe[0] != '\0')
			fprintf(stderr, "export_bench: ucx_perftest: %s\n", why);
		return r;
	}
	r.gb_per_s = u.rate * (double)size / 1e9;
	r.mops = u.rate / 1e6;
	r.lat_us = u.rate > 0 ? 1e6 / u.rate : BENCH_NA;
	r.iters = u.iters;
	return r;
}

/* Keep the better of two rows (the higher throughput). */
static void keep_best(struct bench_row *best, struct bench_row r)
{
	if (r.gb_per_s > best->gb_per_s)
		*best = r;
}

/* The network path: DMA through the exporter's server, then ucx_perftest; best of the rounds. */
static int net_rows(struct bench_sweep *sw, struct dma_run *run, struct doca_mmap *net_mmap,
		    const struct exported *plain_exp, struct doca_mmap *local_mmap, size_t size)
{
	struct bench_row f = bench_row_none("ferry"), p = bench_row_none("ucp_am_bw");

	for (int k = 0; k < rounds; k++) {
		memset(run->local, 0, SPAN);
		double g = bench_dma(run, net_mmap, plain_exp->addr, local_mmap, size);

		if (g < 0 || !dma_result_ok(run, PLAIN_FILL))
			return -1;
		keep_best(&f, dma_row(g, run->done, size, qd));
		keep_best(&p, ucx_am_row(size));
	}
	bench_rows_emit(sw->json, "export", "net", size, qd, &f, &p);
	return 0;
}

/*
 * Each size at each depth: per round shared DMA then memcpy, CMA DMA then
 * process_vm_readv, back to back; each figure the best of rounds; one pair of
 * rows per case and point. -1 when a DMA failed or copied wrong bytes.
 */
static int sweep(struct bench_sweep *sw, struct dma_run *run, struct doca_mmap *shared_mmap,
		 const struct exported *shared_exp, struct doca_mmap *plain_mmap, const struct exported *plain_exp,
		 struct doca_mmap *net_mmap, struct doca_mmap *local_mmap, pid_t host)
{
	bench_rows_header(sw->json);
	for (unsigned i = 0; i < sw->n_sizes; i++) {
		for (unsigned d = 0; d < sw->n_depths; d++) {
			size_t size = sw->sizes[i];
			struct bench_row f[2] = {bench_row_none("ferry"), bench_row_none("ferry")};
			struct bench_row p[2] = {bench_row_none("memcpy"), bench_row_none("process_vm_readv")};
			double g;

			qd = (uint32_t)sw->depths[d];
			for (int k = 0; k < rounds; k++) {
				memset(run->local, 0, SPAN);
				g = bench_dma(run, shared_mmap, shared_exp->addr, local_mmap, size);
				if (g < 0 || !dma_result_ok(run, SHARED_FILL))
					return -1;
				keep_best(&f[0], dma_row(g, run->done, size, qd));
				g = bench_peer(PEER_MEMCPY, shared_exp->addr, run->local, size, host);
				keep_best(&p[0], peer_row("memcpy", g, size));
				memset(run->local, 0, SPAN);
				g = bench_dma(run, plain_mmap, plain_exp->addr, local_mmap, size);
				if (g < 0 || !dma_result_ok(run, PLAIN_FILL))
					return -1;
				keep_best(&f[1], dma_row(g, run->done, size, qd));
				g = bench_peer(PEER_RAW_CMA, plain_exp->addr, run->local, size, host);
				if (g < 0)
					return -1;
				keep_best(&p[1], peer_row("process_vm_readv", g, size));
			}
			bench_rows_emit(sw->json, "export", "shared", size, qd, &f[0], &p[0]);
			bench_rows_emit(sw->json, "export", "cma", size, qd, &f[1], &p[1]);
			if (net_mmap != NULL && net_rows(sw, run, net_mmap, plain_exp, local_mmap, size) != 0)
				return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int to_dpu[2], from_dpu[2];
	struct bench_sweep sw = {0};
	const char *pos[3] = {NULL, NULL, NULL};
	int n_pos = 0;
	bool rounds_set = false;

	for (int i = 1; i < argc; i++) {
		int r = bench_sweep_arg("export_bench", argc, argv, &i, &sw, SPAN / 4, MAX_QD);

		if (r < 0)
			return 2;
		if (r > 0)
			continue;
		if (strcmp(argv[i], "--net") == 0) {
			net = true;
		} else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) {
			rounds = atoi(argv[++i]);
			rounds_set = true;
		} else if (argv[i][0] == '-' || n_pos == 3) {
			return usage();
		} else {
			pos[n_pos++] = argv[i];
		}
	}
	if (bench_sweeping(&sw) && n_pos > 0)
		return usage();
	if (pos[0] != NULL)
		seconds = atof(pos[0]);
	if (pos[1] != NULL) {
		rounds = atoi(pos[1]);
		rounds_set = true;
	}
	if (pos[2] != NULL) { /* the old third argument: one size, in --sizes's grammar */
		char why[160];

		if (!bench_parse_list(pos[2], true, 1, SPAN / 4, sw.sizes, &sw.n_sizes, why, sizeof(why))) {
			fprintf(stderr, "export_bench: bytes: %s\n", why);
			return 2;
		}
	}
	if (sw.seconds > 0)
		seconds = sw.seconds;
	/* The default run is the sweep of its four sizes at QD, best of 3 rounds; a sweep asked for, 1 round. */
	if (!bench_sweeping(&sw) && sw.n_sizes == 0) {
		static const uint64_t sizes[] = {4096, 65536, 1u << 20, 64u << 20};

		memcpy(sw.sizes, sizes, sizeof(sizes));
		sw.n_sizes = 4;
	}
	if (bench_sweeping(&sw) && !rounds_set)
		rounds = 1;
	bench_sweep_defaults(&sw, 1u << 20, QD, seconds);
	if (seconds <= 0 || rounds < 1)
		return usage();
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
	struct doca_dev *dev = ferry_test_open_dev("03:00.0", NULL);
	struct doca_mmap *shared_mmap = NULL, *plain_mmap = NULL, *net_mmap = NULL, *local_mmap = NULL;
	struct dma_run run = {0};

	/*
	 * Import before allocating anything big: the forked host placed its buffers
	 * where this process's next allocations would go, and the shared import must
	 * map them at those very addresses.
	 */
	if (dev == NULL || (shared_mmap = import_one(dev, &shared_exp)) == NULL ||
	    (plain_mmap = import_one(dev, &plain_exp)) == NULL) {
		fprintf(stderr, "export_bench: import failed\n");
		return 1;
	}
	if (!ferry_access_mapped(ferry_mmap_access_path(shared_mmap)) ||
	    ferry_access_mapped(ferry_mmap_access_path(plain_mmap))) {
		fprintf(stderr, "export_bench: the shared export is not mapped here, or the plain one is\n");
		return 1;
	}
	if (net) {
		setenv("FERRY_LINK_NET", "always", 1);
		net_mmap = import_one(dev, &plain_exp);
		unsetenv("FERRY_LINK_NET");
		if (net_mmap == NULL || strcmp(ferry_access_name(ferry_mmap_access_path(net_mmap)), "net") != 0) {
			fprintf(stderr, "export_bench: the network path's import failed\n");
			return 1;
		}
		if (getenv("UCX_TLS") == NULL)
			setenv("UCX_TLS", "tcp", 1); /* ucx_perftest on the network path's transport */
		if (!bench_ucx_find(ucx_exe, sizeof(ucx_exe)))
			fprintf(stderr,
				"export_bench: no ucx_perftest on PATH (Debian ucx-utils): no peer for the net rows\n");
	}
	run.local = aligned_alloc(4096, SPAN);
	if (run.local == NULL)
		return 1;
	memset(run.local, 1, SPAN);
	if (doca_mmap_create(&local_mmap) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(local_mmap, run.local, SPAN) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(local_mmap, dev) != DOCA_SUCCESS || doca_mmap_start(local_mmap) != DOCA_SUCCESS ||
	    dma_setup(&run, dev) != 0) {
		fprintf(stderr, "export_bench: DMA setup failed\n");
		return 1;
	}

	if (!sw.json)
		printf("DMA from another process's exported memory, %s; best of %d round%s of %.2f s\n",
		       "shared (mapped) against memcpy, CMA (malloc'd) against process_vm_readv", rounds,
		       rounds > 1 ? "s" : "", seconds);
	if (sweep(&sw, &run, shared_mmap, &shared_exp, plain_mmap, &plain_exp, net_mmap, local_mmap, host) != 0)
		return 1;

	doca_ctx_stop(doca_dma_as_ctx(run.dma));
	doca_dma_destroy(run.dma);
	doca_pe_destroy(run.pe);
	doca_buf_inventory_destroy(run.inv);
	doca_mmap_destroy(local_mmap);
	doca_mmap_destroy(shared_mmap);
	doca_mmap_destroy(plain_mmap);
	if (net_mmap != NULL)
		doca_mmap_destroy(net_mmap);
	doca_dev_close(dev);
	close(from_dpu[1]);
	waitpid(host, NULL, 0);
	free(run.local);
	return 0;
}
