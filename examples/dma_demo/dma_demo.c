/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_demo - copy memory with DOCA DMA, written against the DOCA API only, the
 * way a DOCA application would be: it opens the host device (b1:00.0 by
 * default), registers a source and a destination buffer in two mmaps, keeps a
 * window of DMA memcpy tasks in flight on a progress engine, checks every byte
 * and prints the throughput.
 *
 *   ferry-dma-demo [-p b1:00.0] [-s bytes-per-copy] [-n copies] [-q tasks-in-flight]
 *                  [-e inline|worker|auto] [--epoll]
 *
 * Built against Ferry it runs on any Linux machine; -e picks Ferry's copy engine
 * (it sets FERRY_DMA_ENGINE), which a DOCA build simply ignores.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

DOCA_LOG_REGISTER(DMA_DEMO);

#define MAX_TOTAL_BYTES ((size_t)1 << 30) /* keep the demo's footprint reasonable */

struct demo_config {
	char pci_addr[32];
	uint64_t copy_size;
	uint32_t num_copies;
	uint32_t depth;
	char engine[16];
	bool use_epoll;
};

struct demo {
	struct demo_config cfg;
	struct doca_dev *dev;
	struct doca_mmap *src_mmap, *dst_mmap;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	uint8_t *src, *dst;
	size_t total;
	uint32_t next_copy, copies_done, failures;
	bool stopped;
};

/* ---- command line ---- */

static doca_error_t pci_cb(void *param, void *config)
{
	struct demo_config *cfg = config;
	const char *addr = param;

	if (strlen(addr) >= sizeof(cfg->pci_addr)) {
		DOCA_LOG_ERR("PCI address '%s' is too long", addr);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(cfg->pci_addr, addr);
	return DOCA_SUCCESS;
}

static doca_error_t size_cb(void *param, void *config)
{
	int v = *(int *)param;

	if (v <= 0) {
		DOCA_LOG_ERR("copy size must be positive, got %d", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct demo_config *)config)->copy_size = (uint64_t)v;
	return DOCA_SUCCESS;
}

static doca_error_t count_cb(void *param, void *config)
{
	int v = *(int *)param;

	if (v <= 0) {
		DOCA_LOG_ERR("number of copies must be positive, got %d", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct demo_config *)config)->num_copies = (uint32_t)v;
	return DOCA_SUCCESS;
}

static doca_error_t depth_cb(void *param, void *config)
{
	int v = *(int *)param;

	if (v <= 0) {
		DOCA_LOG_ERR("tasks in flight must be positive, got %d", v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct demo_config *)config)->depth = (uint32_t)v;
	return DOCA_SUCCESS;
}

static doca_error_t engine_cb(void *param, void *config)
{
	struct demo_config *cfg = config;
	const char *name = param;

	if (strcmp(name, "inline") != 0 && strcmp(name, "worker") != 0 && strcmp(name, "auto") != 0) {
		DOCA_LOG_ERR("engine must be inline, worker or auto, got '%s'", name);
		return DOCA_ERROR_INVALID_VALUE;
	}
	strcpy(cfg->engine, name);
	return DOCA_SUCCESS;
}

static doca_error_t epoll_cb(void *param, void *config)
{
	((struct demo_config *)config)->use_epoll = *(bool *)param;
	return DOCA_SUCCESS;
}

static doca_error_t add_param(const char *short_name, const char *long_name, const char *descr, doca_argp_param_cb_t cb,
			      enum doca_argp_type type)
{
	struct doca_argp_param *param = NULL;
	doca_error_t err = doca_argp_param_create(&param);

	if (err != DOCA_SUCCESS)
		return err;
	if (short_name != NULL)
		doca_argp_param_set_short_name(param, short_name);
	doca_argp_param_set_long_name(param, long_name);
	doca_argp_param_set_description(param, descr);
	doca_argp_param_set_callback(param, cb);
	doca_argp_param_set_type(param, type);
	return doca_argp_register_param(param);
}

static doca_error_t register_params(void)
{
	doca_error_t err;

	err = add_param("p", "pci-addr", "PCI address of the DMA device (default b1:00.0)", pci_cb,
			DOCA_ARGP_TYPE_STRING);
	if (err == DOCA_SUCCESS)
		err = add_param("s", "size", "bytes per copy (default 1048576)", size_cb, DOCA_ARGP_TYPE_INT);
	if (err == DOCA_SUCCESS)
		err = add_param("n", "count", "number of copies (default 256)", count_cb, DOCA_ARGP_TYPE_INT);
	if (err == DOCA_SUCCESS)
		err = add_param("q", "depth", "memcpy tasks kept in flight (default 16)", depth_cb, DOCA_ARGP_TYPE_INT);
	if (err == DOCA_SUCCESS)
		err = add_param("e", "engine", "Ferry copy engine: inline, worker or auto (default auto)", engine_cb,
				DOCA_ARGP_TYPE_STRING);
	if (err == DOCA_SUCCESS)
		err = add_param(NULL, "epoll", "wait on the progress engine's notification handle instead of polling",
				epoll_cb, DOCA_ARGP_TYPE_BOOLEAN);
	return err;
}

/* ---- DOCA objects ---- */

static doca_error_t open_device(struct demo *d)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	doca_error_t err = doca_devinfo_create_list(&list, &n);

	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < n && d->dev == NULL; i++) {
		uint8_t match = 0;

		if (doca_devinfo_is_equal_pci_addr(list[i], d->cfg.pci_addr, &match) != DOCA_SUCCESS || !match)
			continue;
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) != DOCA_SUCCESS) {
			DOCA_LOG_ERR("device %s cannot run DMA memcpy tasks", d->cfg.pci_addr);
			break;
		}
		err = doca_dev_open(list[i], &d->dev);
	}
	(void)doca_devinfo_destroy_list(list);
	if (d->dev == NULL) {
		DOCA_LOG_ERR("no usable DMA device at %s", d->cfg.pci_addr);
		return err != DOCA_SUCCESS ? err : DOCA_ERROR_NOT_FOUND;
	}
	return DOCA_SUCCESS;
}

static doca_error_t check_limits(struct demo *d)
{
	uint64_t max_size = 0;
	uint32_t max_tasks = 0;
	doca_error_t err = doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(d->dev), &max_size);

	if (err != DOCA_SUCCESS)
		return err;
	err = doca_dma_cap_get_max_num_tasks(d->dma, &max_tasks);
	if (err != DOCA_SUCCESS)
		return err;
	if (d->cfg.copy_size > max_size) {
		DOCA_LOG_ERR("copy size %llu is above the device limit of %llu bytes",
			     (unsigned long long)d->cfg.copy_size, (unsigned long long)max_size);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->cfg.depth > max_tasks) {
		DOCA_LOG_ERR("depth %u is above the device limit of %u tasks", d->cfg.depth, max_tasks);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (d->cfg.copy_size * d->cfg.num_copies > MAX_TOTAL_BYTES) {
		DOCA_LOG_ERR("size x count is above the demo's limit of %zu bytes", MAX_TOTAL_BYTES);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t make_mmap(struct demo *d, uint8_t *mem, struct doca_mmap **mmap)
{
	doca_error_t err = doca_mmap_create(mmap);

	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_memrange(*mmap, mem, d->total);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_permissions(*mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_add_dev(*mmap, d->dev);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_start(*mmap);
	return err;
}

/* ---- the copy loop ---- */

/* Take bufs for copy number d->next_copy and aim @p task at them. */
static doca_error_t prepare_copy(struct demo *d, struct doca_buf **src, struct doca_buf **dst)
{
	size_t off = (size_t)d->next_copy++ * d->cfg.copy_size;
	doca_error_t err;

	err = doca_buf_inventory_buf_get_by_data(d->inv, d->src_mmap, d->src + off, d->cfg.copy_size, src);
	if (err != DOCA_SUCCESS)
		return err;
	err = doca_buf_inventory_buf_get_by_addr(d->inv, d->dst_mmap, d->dst + off, d->cfg.copy_size, dst);
	if (err != DOCA_SUCCESS)
		(void)doca_buf_dec_refcount(*src, NULL);
	return err;
}

static void copy_finished(struct demo *d, struct doca_dma_task_memcpy *task)
{
	struct doca_task *base = doca_dma_task_memcpy_as_task(task);
	struct doca_buf *src = (struct doca_buf *)(uintptr_t)doca_dma_task_memcpy_get_src(task);
	struct doca_buf *dst = doca_dma_task_memcpy_get_dst(task);

	d->copies_done++;
	(void)doca_buf_dec_refcount(src, NULL);
	(void)doca_buf_dec_refcount(dst, NULL);
	/* Reuse the task for the next copy while there is one. */
	if (d->failures == 0 && d->next_copy < d->cfg.num_copies && prepare_copy(d, &src, &dst) == DOCA_SUCCESS) {
		doca_dma_task_memcpy_set_src(task, src);
		doca_dma_task_memcpy_set_dst(task, dst);
		if (doca_task_submit(base) == DOCA_SUCCESS)
			return;
		d->failures++;
	}
	doca_task_free(base);
	if (d->copies_done == d->next_copy)
		(void)doca_ctx_stop(d->ctx);
}

static void memcpy_done(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	copy_finished(ctx_ud.ptr, task);
}

static void memcpy_failed(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct demo *d = ctx_ud.ptr;

	(void)task_ud;
	DOCA_LOG_ERR("memcpy task failed: %s",
		     doca_error_get_descr(doca_task_get_status(doca_dma_task_memcpy_as_task(task))));
	d->failures++;
	copy_finished(d, task);
}

static void state_changed(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
			  enum doca_ctx_states next)
{
	struct demo *d = ud.ptr;

	(void)ctx;
	(void)prev;
	if (next == DOCA_CTX_STATE_IDLE)
		d->stopped = true;
}

static doca_error_t create_objects(struct demo *d)
{
	union doca_data ud = {.ptr = d};
	doca_error_t err;

	d->total = (size_t)d->cfg.copy_size * d->cfg.num_copies;
	d->src = malloc(d->total);
	d->dst = malloc(d->total);
	if (d->src == NULL || d->dst == NULL)
		return DOCA_ERROR_NO_MEMORY;
	err = make_mmap(d, d->src, &d->src_mmap);
	if (err == DOCA_SUCCESS)
		err = make_mmap(d, d->dst, &d->dst_mmap);
	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_create(2 * (size_t)d->cfg.depth, &d->inv);
	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_start(d->inv);
	if (err == DOCA_SUCCESS)
		err = doca_pe_create(&d->pe);
	if (err == DOCA_SUCCESS)
		err = doca_dma_create(d->dev, &d->dma);
	if (err != DOCA_SUCCESS)
		return err;
	d->ctx = doca_dma_as_ctx(d->dma);
	err = check_limits(d);
	if (err == DOCA_SUCCESS)
		err = doca_dma_task_memcpy_set_conf(d->dma, memcpy_done, memcpy_failed, d->cfg.depth);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_set_state_changed_cb(d->ctx, state_changed);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_set_user_data(d->ctx, ud);
	if (err == DOCA_SUCCESS)
		err = doca_pe_connect_ctx(d->pe, d->ctx);
	return err;
}

static doca_error_t submit_first_window(struct demo *d)
{
	for (uint32_t i = 0; i < d->cfg.depth && d->next_copy < d->cfg.num_copies; i++) {
		struct doca_dma_task_memcpy *task = NULL;
		struct doca_buf *src = NULL, *dst = NULL;
		union doca_data none = {.u64 = 0};
		doca_error_t err = prepare_copy(d, &src, &dst);

		if (err == DOCA_SUCCESS)
			err = doca_dma_task_memcpy_alloc_init(d->dma, src, dst, none, &task);
		if (err == DOCA_SUCCESS)
			err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
		if (err != DOCA_SUCCESS) {
			DOCA_LOG_ERR("cannot submit copy %u: %s", d->next_copy - 1, doca_error_get_descr(err));
			return err;
		}
	}
	return DOCA_SUCCESS;
}

static doca_error_t run_polling(struct demo *d)
{
	while (!d->stopped)
		(void)doca_pe_progress(d->pe);
	return DOCA_SUCCESS;
}

static doca_error_t run_epoll(struct demo *d)
{
	doca_notification_handle_t handle;
	struct epoll_event ev = {.events = EPOLLIN};
	int ep = epoll_create1(0);
	doca_error_t err;

	if (ep < 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	err = doca_pe_get_notification_handle(d->pe, &handle);
	if (err != DOCA_SUCCESS)
		return err;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, handle, &ev) != 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	while (!d->stopped) {
		struct epoll_event out;

		while (doca_pe_progress(d->pe) != 0)
			;
		if (d->stopped)
			break;
		err = doca_pe_request_notification(d->pe);
		if (err != DOCA_SUCCESS)
			return err;
		if (epoll_wait(ep, &out, 1, 5000) == 0) {
			DOCA_LOG_ERR("no completion within 5 s");
			return DOCA_ERROR_TIME_OUT;
		}
		err = doca_pe_clear_notification(d->pe, handle);
		if (err != DOCA_SUCCESS)
			return err;
	}
	return DOCA_SUCCESS;
}

static void destroy_objects(struct demo *d)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;

	/* After a failure mid-run, flush what is still in flight before destroying. */
	if (d->ctx != NULL && doca_ctx_get_state(d->ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE) {
		(void)doca_ctx_stop(d->ctx);
		while (!d->stopped)
			(void)doca_pe_progress(d->pe);
	}
	if (d->dma != NULL)
		(void)doca_dma_destroy(d->dma);
	if (d->pe != NULL)
		(void)doca_pe_destroy(d->pe);
	if (d->inv != NULL)
		(void)doca_buf_inventory_destroy(d->inv);
	if (d->src_mmap != NULL)
		(void)doca_mmap_destroy(d->src_mmap);
	if (d->dst_mmap != NULL)
		(void)doca_mmap_destroy(d->dst_mmap);
	if (d->dev != NULL)
		(void)doca_dev_close(d->dev);
	free(d->src);
	free(d->dst);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static doca_error_t run_demo(struct demo *d)
{
	uint32_t seed = 2024;
	double t0, elapsed;
	doca_error_t err;

	if (d->cfg.engine[0] != '\0')
		setenv("FERRY_DMA_ENGINE", d->cfg.engine, 1);
	err = open_device(d);
	if (err == DOCA_SUCCESS)
		err = create_objects(d);
	if (err != DOCA_SUCCESS)
		return err;
	for (size_t i = 0; i < d->total; i++) {
		seed = seed * 1664525u + 1013904223u;
		d->src[i] = (uint8_t)(seed >> 24);
	}
	memset(d->dst, 0, d->total);
	err = doca_ctx_start(d->ctx);
	if (err != DOCA_SUCCESS)
		return err;
	t0 = now_s();
	err = submit_first_window(d);
	if (err == DOCA_SUCCESS)
		err = d->cfg.use_epoll ? run_epoll(d) : run_polling(d);
	elapsed = now_s() - t0;
	if (err != DOCA_SUCCESS)
		return err;
	if (d->failures != 0 || d->copies_done != d->cfg.num_copies) {
		DOCA_LOG_ERR("%u copies failed, %u of %u done", d->failures, d->copies_done, d->cfg.num_copies);
		return DOCA_ERROR_IO_FAILED;
	}
	if (memcmp(d->src, d->dst, d->total) != 0) {
		DOCA_LOG_ERR("destination differs from source");
		return DOCA_ERROR_UNEXPECTED;
	}
	printf("copied %u x %llu bytes (%zu bytes) with DOCA DMA on %s in %.3f ms: %.2f GB/s, every byte verified\n",
	       d->cfg.num_copies, (unsigned long long)d->cfg.copy_size, d->total, d->cfg.pci_addr, elapsed * 1e3,
	       (double)d->total / elapsed / 1e9);
	return DOCA_SUCCESS;
}

int main(int argc, char **argv)
{
	static struct demo d = {
		.cfg = {.pci_addr = "b1:00.0", .copy_size = 1 << 20, .num_copies = 256, .depth = 16},
	};
	struct doca_log_backend *sdk_log = NULL;
	doca_error_t err;

	if (doca_log_backend_create_standard() != DOCA_SUCCESS ||
	    doca_log_backend_create_with_file_sdk(stderr, &sdk_log) != DOCA_SUCCESS ||
	    doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	err = doca_argp_init("ferry-dma-demo", &d.cfg);
	if (err == DOCA_SUCCESS)
		err = register_params();
	if (err == DOCA_SUCCESS)
		err = doca_argp_start(argc, argv);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("bad arguments: %s", doca_error_get_descr(err));
		(void)doca_argp_destroy();
		return EXIT_FAILURE;
	}
	err = run_demo(&d);
	destroy_objects(&d);
	(void)doca_argp_destroy();
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("DMA demo failed: %s", doca_error_get_descr(err));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
