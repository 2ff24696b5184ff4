/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy22_dma.c - a DOCA 2.2 program, laid out as that generation's DMA samples
 * are (common.c's open/init/teardown order, a job on the stack, a retrieve
 * loop), built only against Ferry's 2.2 headers.
 *
 *   legacy22_dma local [size]   copy inside one process, as dma_local_copy
 *   legacy22_dma gone [size]    the host process exits while the DPU's job from
 *                               its memory is queued: the job's event says it
 *                               failed (DOCA_ERROR_IO_FAILED from retrieve), and
 *                               the same context copies again afterwards
 *   legacy22_dma pair [size]    a host process exports a buffer (DPU_READ_ONLY)
 *                               and a DPU process copies it in, as
 *                               dma_copy_host/dma_copy_dpu; then the other
 *                               way round (DPU_READ_WRITE: the DPU writes)
 *
 * Exit 0 when every byte arrived; the failing call is printed otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_version.h>

#include "legacy22_util.h"

DOCA_LOG_REGISTER(LEGACY22_DMA);

#define HOST_PCI "b1:00.0"
#define DPU_PCI  "03:00.0"

#define CHECK(call)                                                                                          \
	do {                                                                                                 \
		doca_error_t r_ = (call);                                                                    \
		if (r_ != DOCA_SUCCESS) {                                                                    \
			DOCA_LOG_ERR("%s:%d: %s: %s", __FILE__, __LINE__, #call, doca_get_error_string(r_)); \
			exit(1);                                                                             \
		}                                                                                            \
	} while (0)

struct core_objects {
	struct doca_dev *dev;
	struct doca_mmap *src_mmap;
	struct doca_mmap *dst_mmap;
	struct doca_buf_inventory *buf_inv;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_workq *workq;
};

/* The device at @p pci, which must run memcpy jobs. */
static struct doca_dev *open_by_pci(const char *pci)
{
	struct doca_dev *dev = l22_open_dev(pci);

	CHECK(doca_dma_job_get_supported(doca_dev_as_devinfo(dev), DOCA_DMA_JOB_MEMCPY));
	return dev;
}

/* The 2.2 samples' order: DMA first, then device, maps, inventory, ctx, work queue. */
static void init_core(struct core_objects *s, const char *pci)
{
	memset(s, 0, sizeof(*s));
	CHECK(doca_dma_create(&s->dma));
	s->ctx = doca_dma_as_ctx(s->dma);
	s->dev = open_by_pci(pci);
	CHECK(doca_mmap_create(NULL, &s->src_mmap));
	CHECK(doca_mmap_dev_add(s->src_mmap, s->dev));
	CHECK(doca_mmap_create(NULL, &s->dst_mmap));
	CHECK(doca_mmap_dev_add(s->dst_mmap, s->dev));
	CHECK(doca_buf_inventory_create(NULL, 2, DOCA_BUF_EXTENSION_NONE, &s->buf_inv));
	CHECK(doca_buf_inventory_start(s->buf_inv));
	CHECK(doca_ctx_dev_add(s->ctx, s->dev));
	CHECK(doca_ctx_start(s->ctx));
	CHECK(doca_workq_create(32, &s->workq));
	CHECK(doca_ctx_workq_add(s->ctx, s->workq));
}

/* And theirs at the end: work queue, inventory, maps (still with their device), ctx, device, DMA. */
static void destroy_core(struct core_objects *s)
{
	CHECK(doca_ctx_workq_rm(s->ctx, s->workq));
	CHECK(doca_workq_destroy(s->workq));
	CHECK(doca_buf_inventory_destroy(s->buf_inv));
	if (s->dst_mmap != NULL)
		CHECK(doca_mmap_destroy(s->dst_mmap));
	if (s->src_mmap != NULL)
		CHECK(doca_mmap_destroy(s->src_mmap));
	CHECK(doca_ctx_stop(s->ctx));
	CHECK(doca_ctx_dev_rm(s->ctx, s->dev));
	CHECK(doca_dev_close(s->dev));
	CHECK(doca_dma_destroy(s->dma));
}

/* One job on the stack, not zeroed beyond what the samples set; retrieve with a 10 us nap. */
static void copy_one(struct core_objects *s, struct doca_buf *dst, struct doca_buf *src)
{
	struct doca_dma_job_memcpy job;
	struct doca_event ev = {0};
	struct timespec nap = {0, 10000};
	doca_error_t r;

	memset(&job, 0x5a, sizeof(job)); /* garbage, as on a real stack */
	job.base.type = DOCA_DMA_JOB_MEMCPY;
	job.base.flags = DOCA_JOB_FLAGS_NONE;
	job.base.ctx = s->ctx;
	job.base.user_data.u64 = 0xfeedULL;
	job.dst_buff = dst;
	job.src_buff = src;
	CHECK(doca_workq_submit(s->workq, &job.base));
	while ((r = doca_workq_progress_retrieve(s->workq, &ev, DOCA_WORKQ_RETRIEVE_FLAGS_NONE)) == DOCA_ERROR_AGAIN)
		nanosleep(&nap, NULL);
	CHECK(r);
	CHECK((doca_error_t)ev.result.u64);
	if (ev.type != DOCA_DMA_JOB_MEMCPY || ev.user_data.u64 != 0xfeedULL) {
		DOCA_LOG_ERR("event type %d user_data %#llx", ev.type, (unsigned long long)ev.user_data.u64);
		exit(1);
	}
}

static void fill(char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)(i * 131 + seed);
}

static int local_copy(size_t size)
{
	struct core_objects s;
	struct doca_buf *src, *dst;
	char *src_mem = malloc(size), *dst_mem = calloc(1, size);
	size_t len = 0;

	if (src_mem == NULL || dst_mem == NULL)
		return 1;
	fill(src_mem, size, 7);
	init_core(&s, DPU_PCI);
	CHECK(doca_mmap_set_memrange(s.src_mmap, src_mem, size));
	CHECK(doca_mmap_start(s.src_mmap));
	CHECK(doca_mmap_set_memrange(s.dst_mmap, dst_mem, size));
	CHECK(doca_mmap_start(s.dst_mmap));
	CHECK(doca_buf_inventory_buf_by_addr(s.buf_inv, s.src_mmap, src_mem, size, &src));
	CHECK(doca_buf_inventory_buf_by_addr(s.buf_inv, s.dst_mmap, dst_mem, size, &dst));
	CHECK(doca_buf_set_data(src, src_mem, size));
	copy_one(&s, dst, src);
	CHECK(doca_buf_get_data_len(dst, &len));
	if (len != size || memcmp(src_mem, dst_mem, size) != 0) {
		DOCA_LOG_ERR("local copy of %zu bytes: destination data_len %zu, bytes %s", size, len,
			     memcmp(src_mem, dst_mem, size) == 0 ? "equal" : "differ");
		return 1;
	}
	CHECK(doca_buf_refcount_rm(src, NULL));
	CHECK(doca_buf_refcount_rm(dst, NULL));
	destroy_core(&s);
	free(src_mem);
	free(dst_mem);
	printf("local copy of %zu bytes: ok (DOCA %s headers, runtime %s)\n", size, doca_version(),
	       doca_version_runtime());
	return 0;
}

/* ---- host and DPU processes; the descriptor and "addr\nlen" travel through files ---- */

static const char *desc_path, *info_path, *done_path;

static void write_file(const char *path, const void *data, size_t len)
{
	char tmp[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (f == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0 || rename(tmp, path) != 0) {
		perror(path);
		exit(1);
	}
}

static size_t read_file(const char *path, void *data, size_t cap)
{
	FILE *f;
	size_t n;

	for (int tries = 0; (f = fopen(path, "rb")) == NULL; tries++) {
		if (tries == 20000) {
			DOCA_LOG_ERR("%s never appeared", path);
			exit(1);
		}
		usleep(1000);
	}
	n = fread(data, 1, cap, f);
	fclose(f);
	return n;
}

/* Host: export @p mem with @p access, publish, wait for the DPU's word. */
static void host_side(char *mem, size_t size, uint32_t access)
{
	struct doca_dev *dev = open_by_pci(HOST_PCI);
	struct doca_mmap *mmap;
	const void *desc;
	size_t desc_len;
	char info[64], done[8];

	CHECK(doca_mmap_create(NULL, &mmap));
	CHECK(doca_mmap_dev_add(mmap, dev));
	CHECK(doca_mmap_set_permissions(mmap, access));
	CHECK(doca_mmap_set_memrange(mmap, mem, size));
	CHECK(doca_mmap_start(mmap));
	CHECK(doca_mmap_export_dpu(mmap, dev, &desc, &desc_len));
	if (desc_len > 256) { /* dma_copy_dpu reads at most 256 bytes of it */
		DOCA_LOG_ERR("export descriptor of %zu bytes is above the sample's 256", desc_len);
		exit(1);
	}
	write_file(desc_path, desc, desc_len);
	snprintf(info, sizeof(info), "%llu\n%zu", (unsigned long long)(uintptr_t)mem, size);
	write_file(info_path, info, strlen(info));
	(void)read_file(done_path, done, sizeof(done));
	unlink(done_path);
	CHECK(doca_mmap_destroy(mmap));
	CHECK(doca_dev_close(dev));
}

/* DPU: import, copy between the host's buffer and a local one in direction @p to_host. */
static int dpu_side(size_t size, int to_host)
{
	struct core_objects s;
	struct doca_mmap *remote;
	struct doca_buf *local_buf, *remote_buf;
	char desc[256], info[64] = {0};
	size_t desc_len;
	unsigned long long addr;
	size_t len;
	char *local = calloc(1, size);
	int bad = 0;

	if (local == NULL)
		return 1;
	desc_len = read_file(desc_path, desc, sizeof(desc));
	(void)read_file(info_path, info, sizeof(info) - 1);
	if (sscanf(info, "%llu\n%zu", &addr, &len) != 2 || len != size)
		return 1;
	init_core(&s, DPU_PCI);
	if (to_host)
		fill(local, size, 3);
	CHECK(doca_mmap_set_permissions(s.dst_mmap,
					to_host ? DOCA_ACCESS_LOCAL_READ_ONLY : DOCA_ACCESS_LOCAL_READ_WRITE));
	CHECK(doca_mmap_set_memrange(s.dst_mmap, local, size));
	CHECK(doca_mmap_start(s.dst_mmap));
	CHECK(doca_mmap_create_from_export(NULL, desc, desc_len, s.dev, &remote));
	CHECK(doca_buf_inventory_buf_by_addr(s.buf_inv, remote, (void *)(uintptr_t)addr, len, &remote_buf));
	CHECK(doca_buf_inventory_buf_by_addr(s.buf_inv, s.dst_mmap, local, size, &local_buf));
	if (to_host) {
		CHECK(doca_buf_set_data(local_buf, local, size));
		copy_one(&s, remote_buf, local_buf);
	} else {
		CHECK(doca_buf_set_data(remote_buf, (void *)(uintptr_t)addr, len));
		copy_one(&s, local_buf, remote_buf);
		for (size_t i = 0; i < size && !bad; i++)
			bad = local[i] != (char)(i * 131 + 9);
	}
	CHECK(doca_buf_refcount_rm(remote_buf, NULL));
	CHECK(doca_buf_refcount_rm(local_buf, NULL));
	CHECK(doca_mmap_destroy(remote));
	destroy_core(&s);
	write_file(done_path, "done", 4);
	free(local);
	return bad;
}

/* The host exports, then exits once told to; the DPU (this process) watches its job fail and goes on. */
static int exporter_gone(size_t size)
{
	struct core_objects s;
	struct doca_mmap *remote;
	struct doca_buf *remote_buf, *local_buf, *src, *dst;
	struct doca_dma_job_memcpy job;
	struct doca_event ev = {0};
	char desc[256], info[64] = {0}, *local = calloc(1, size), *mem = malloc(size);
	unsigned long long addr;
	size_t desc_len, len;
	doca_error_t r;
	int status;
	pid_t host;

	if (local == NULL || mem == NULL)
		return 1;
	fill(mem, size, 5);
	fflush(NULL);
	host = fork();
	if (host == 0) {
		/* export as host_side does, then wait for the word and leave without cleaning up */
		struct doca_dev *dev = open_by_pci(HOST_PCI);
		struct doca_mmap *mmap;
		const void *d;
		char buf[8];

		CHECK(doca_mmap_create(NULL, &mmap));
		CHECK(doca_mmap_dev_add(mmap, dev));
		CHECK(doca_mmap_set_permissions(mmap, DOCA_ACCESS_DPU_READ_ONLY));
		CHECK(doca_mmap_set_memrange(mmap, mem, size));
		CHECK(doca_mmap_start(mmap));
		CHECK(doca_mmap_export_dpu(mmap, dev, &d, &desc_len));
		write_file(desc_path, d, desc_len);
		snprintf(info, sizeof(info), "%llu\n%zu", (unsigned long long)(uintptr_t)mem, size);
		write_file(info_path, info, strlen(info));
		(void)read_file(done_path, buf, sizeof(buf));
		_exit(0);
	}
	desc_len = read_file(desc_path, desc, sizeof(desc));
	(void)read_file(info_path, info, sizeof(info) - 1);
	if (sscanf(info, "%llu\n%zu", &addr, &len) != 2 || len != size)
		return 1;
	init_core(&s, DPU_PCI);
	CHECK(doca_mmap_set_memrange(s.dst_mmap, local, size));
	CHECK(doca_mmap_start(s.dst_mmap));
	CHECK(doca_mmap_create_from_export(NULL, desc, desc_len, s.dev, &remote));
	CHECK(doca_buf_inventory_buf_by_addr(s.buf_inv, remote, (void *)(uintptr_t)addr, len, &remote_buf));
	CHECK(doca_buf_inventory_buf_by_addr(s.buf_inv, s.dst_mmap, local, size, &local_buf));
	CHECK(doca_buf_set_data(remote_buf, (void *)(uintptr_t)addr, len));

	/* Queued, not yet run (the doorbell rings at retrieve); then the host goes. */
	memset(&job, 0, sizeof(job));
	job.base.type = DOCA_DMA_JOB_MEMCPY;
	job.base.ctx = s.ctx;
	job.base.user_data.u64 = 0xdeadULL;
	job.dst_buff = local_buf;
	job.src_buff = remote_buf;
	CHECK(doca_workq_submit(s.workq, &job.base));
	write_file(done_path, "go", 2);
	if (waitpid(host, &status, 0) != host)
		return 1;
	while ((r = doca_workq_progress_retrieve(s.workq, &ev, DOCA_WORKQ_RETRIEVE_FLAGS_NONE)) == DOCA_ERROR_AGAIN)
		;
	if (r != DOCA_ERROR_IO_FAILED || ev.result.u64 == DOCA_SUCCESS || ev.user_data.u64 != 0xdeadULL) {
		DOCA_LOG_ERR("a copy from a dead exporter: retrieve %s, result %llu", doca_get_error_name(r),
			     (unsigned long long)ev.result.u64);
		return 1;
	}
	CHECK(doca_buf_refcount_rm(remote_buf, NULL));
	CHECK(doca_buf_refcount_rm(local_buf, NULL));
	CHECK(doca_mmap_destroy(remote));

	/* The context is still good: a local copy through it. */
	CHECK(doca_buf_inventory_buf_by_data(s.buf_inv, s.dst_mmap, local, size / 2, &src));
	CHECK(doca_buf_inventory_buf_by_addr(s.buf_inv, s.dst_mmap, local + size / 2, size / 2, &dst));
	fill(local, size / 2, 6);
	copy_one(&s, dst, src);
	if (memcmp(local, local + size / 2, size / 2) != 0)
		return 1;
	CHECK(doca_buf_refcount_rm(src, NULL));
	CHECK(doca_buf_refcount_rm(dst, NULL));
	destroy_core(&s);
	free(local);
	free(mem);
	unlink(done_path);
	printf("exporter gone during a job: the job failed, the context copies again: ok\n");
	return 0;
}

static int pair_copy(size_t size, int to_host)
{
	char *mem = calloc(1, size);
	int status = 0;
	pid_t pid;

	if (mem == NULL)
		return 1;
	if (!to_host)
		fill(mem, size, 9);
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(dpu_side(size, to_host));
	host_side(mem, size, to_host ? DOCA_ACCESS_DPU_READ_WRITE : DOCA_ACCESS_DPU_READ_ONLY);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		DOCA_LOG_ERR("DPU process failed (status %#x)", status);
		return 1;
	}
	if (to_host)
		for (size_t i = 0; i < size; i++)
			if (mem[i] != (char)(i * 131 + 3)) {
				DOCA_LOG_ERR("byte %zu of the host buffer was not written by the DPU", i);
				return 1;
			}
	free(mem);
	printf("host<->DPU copy of %zu bytes %s: ok\n", size, to_host ? "DPU->host" : "host->DPU");
	return 0;
}

int main(int argc, char **argv)
{
	size_t size = argc > 2 ? strtoull(argv[2], NULL, 0) : 4 << 20;
	char dir[] = "/tmp/legacy22-XXXXXX";
	char paths[3][600];
	int rc;

	if (doca_log_create_standard_backend() != DOCA_SUCCESS)
		return 1;
	if (argc < 2 || strcmp(argv[1], "local") == 0)
		return local_copy(size);
	if ((strcmp(argv[1], "pair") != 0 && strcmp(argv[1], "gone") != 0) || mkdtemp(dir) == NULL)
		return 2;
	snprintf(paths[0], sizeof(paths[0]), "%s/export_desc.txt", dir);
	snprintf(paths[1], sizeof(paths[1]), "%s/buffer_info.txt", dir);
	snprintf(paths[2], sizeof(paths[2]), "%s/done", dir);
	desc_path = paths[0];
	info_path = paths[1];
	done_path = paths[2];
	if (strcmp(argv[1], "gone") == 0) {
		rc = exporter_gone(size);
		unlink(desc_path);
		unlink(info_path);
		rmdir(dir);
		return rc;
	}
	rc = pair_copy(size, 0);
	unlink(desc_path);
	unlink(info_path);
	if (rc == 0)
		rc = pair_copy(size, 1);
	unlink(desc_path);
	unlink(info_path);
	rmdir(dir);
	return rc;
}
