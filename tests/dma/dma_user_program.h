/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_user_program.h - a DMA copy program written the way a DOCA user writes
 * one, against the public DOCA headers only (no Ferry internals): find the
 * host device, build mmaps, an inventory, a progress engine and a DMA context,
 * keep a window of memcpy tasks in flight (each callback retargets its task at
 * the next chunk with set_src/set_dst and resubmits it), stop the context from
 * the last callback, and check every byte.
 *
 * The two test programs run it in polling mode and in epoll mode; meson runs
 * each on every engine through FERRY_DMA_ENGINE. Exit code 0 means success.
 */
#ifndef DMA_USER_PROGRAM_H_
#define DMA_USER_PROGRAM_H_

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#define USER_MEM_LEN    (8u << 20)
#define USER_NUM_TASKS  32u
#define USER_NUM_CHUNKS 2000u

enum user_mode { USER_POLL, USER_EPOLL };

struct user_app {
	struct doca_dev *dev;
	struct doca_mmap *src_mmap, *dst_mmap;
	struct doca_buf_inventory *inv;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	uint8_t *src, *dst;
	size_t chunk_off[USER_NUM_CHUNKS + 1]; /* chunk i is [off[i], off[i+1]) */
	unsigned next_chunk, chunks_done, failures;
	bool resubmit_in_callback; /* polling mode keeps the window full from the callbacks */
	bool idle;
};

#define CHECK(call)                                                                                               \
	do {                                                                                                      \
		doca_error_t err_ = (call);                                                                       \
		if (err_ != DOCA_SUCCESS) {                                                                       \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, doca_error_get_name(err_)); \
			return err_;                                                                              \
		}                                                                                                 \
	} while (0)

static doca_error_t user_open_device(struct user_app *app)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;

	CHECK(doca_devinfo_create_list(&list, &n));
	for (uint32_t i = 0; i < n && app->dev == NULL; i++) {
		uint8_t match = 0;

		if (doca_devinfo_is_equal_pci_addr(list[i], "b1:00.0", &match) != DOCA_SUCCESS || !match)
			continue;
		if (doca_dma_cap_task_memcpy_is_supported(list[i]) != DOCA_SUCCESS)
			continue;
		(void)doca_dev_open(list[i], &app->dev);
	}
	CHECK(doca_devinfo_destroy_list(list));
	return app->dev != NULL ? DOCA_SUCCESS : DOCA_ERROR_NOT_FOUND;
}

static doca_error_t user_make_mmap(struct user_app *app, uint8_t *mem, struct doca_mmap **mmap)
{
	CHECK(doca_mmap_create(mmap));
	CHECK(doca_mmap_set_memrange(*mmap, mem, USER_MEM_LEN));
	CHECK(doca_mmap_set_permissions(*mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE));
	CHECK(doca_mmap_add_dev(*mmap, app->dev));
	return doca_mmap_start(*mmap);
}

/* Point a task at the next chunk: fresh bufs for its source and destination. */
static doca_error_t user_load_chunk(struct user_app *app, struct doca_buf **src, struct doca_buf **dst)
{
	unsigned c = app->next_chunk++;
	size_t off = app->chunk_off[c], len = app->chunk_off[c + 1] - off;

	CHECK(doca_buf_inventory_buf_get_by_data(app->inv, app->src_mmap, app->src + off, len, src));
	CHECK(doca_buf_inventory_buf_get_by_addr(app->inv, app->dst_mmap, app->dst + off, len, dst));
	return DOCA_SUCCESS;
}

static void user_task_done(struct doca_dma_task_memcpy *task, struct user_app *app)
{
	struct doca_task *base = doca_dma_task_memcpy_as_task(task);
	struct doca_buf *src = (struct doca_buf *)(uintptr_t)doca_dma_task_memcpy_get_src(task);
	struct doca_buf *dst = doca_dma_task_memcpy_get_dst(task);

	app->chunks_done++;
	(void)doca_buf_dec_refcount(src, NULL);
	(void)doca_buf_dec_refcount(dst, NULL);
	if (app->resubmit_in_callback && app->next_chunk < USER_NUM_CHUNKS && app->failures == 0) {
		if (user_load_chunk(app, &src, &dst) == DOCA_SUCCESS) {
			doca_dma_task_memcpy_set_src(task, src);
			doca_dma_task_memcpy_set_dst(task, dst);
			if (doca_task_submit(base) == DOCA_SUCCESS)
				return;
		}
		app->failures++;
	}
	doca_task_free(base);
	if (app->resubmit_in_callback && app->chunks_done == app->next_chunk)
		(void)doca_ctx_stop(app->ctx); /* the last one out stops the context */
}

static void user_on_success(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	(void)task_ud;
	user_task_done(task, ctx_ud.ptr);
}

static void user_on_error(struct doca_dma_task_memcpy *task, union doca_data task_ud, union doca_data ctx_ud)
{
	struct user_app *app = ctx_ud.ptr;

	(void)task_ud;
	fprintf(stderr, "memcpy task failed: %s\n",
		doca_error_get_name(doca_task_get_status(doca_dma_task_memcpy_as_task(task))));
	app->failures++;
	user_task_done(task, app);
}

static void user_on_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
			  enum doca_ctx_states next)
{
	struct user_app *app = ud.ptr;

	(void)ctx;
	(void)prev;
	if (next == DOCA_CTX_STATE_IDLE)
		app->idle = true;
}

static doca_error_t user_setup(struct user_app *app)
{
	union doca_data ud = {.ptr = app};
	uint32_t max_tasks = 0;
	uint32_t seed = 12345;

	app->src = malloc(USER_MEM_LEN);
	app->dst = malloc(USER_MEM_LEN);
	if (app->src == NULL || app->dst == NULL)
		return DOCA_ERROR_NO_MEMORY;
	for (size_t i = 0; i < USER_MEM_LEN; i++) {
		seed = seed * 1103515245u + 12345u;
		app->src[i] = (uint8_t)(seed >> 16);
	}
	memset(app->dst, 0, USER_MEM_LEN);
	/* Chunks of uneven sizes that tile the buffer. */
	for (unsigned i = 0; i <= USER_NUM_CHUNKS; i++)
		app->chunk_off[i] = (size_t)USER_MEM_LEN / USER_NUM_CHUNKS * i - (i % 7) * (i < USER_NUM_CHUNKS);
	app->chunk_off[USER_NUM_CHUNKS] = USER_MEM_LEN;

	CHECK(user_open_device(app));
	CHECK(user_make_mmap(app, app->src, &app->src_mmap));
	CHECK(user_make_mmap(app, app->dst, &app->dst_mmap));
	CHECK(doca_buf_inventory_create(2 * USER_NUM_TASKS, &app->inv));
	CHECK(doca_buf_inventory_start(app->inv));
	CHECK(doca_pe_create(&app->pe));
	CHECK(doca_dma_create(app->dev, &app->dma));
	app->ctx = doca_dma_as_ctx(app->dma);
	CHECK(doca_dma_cap_get_max_num_tasks(app->dma, &max_tasks));
	if (max_tasks < USER_NUM_TASKS)
		return DOCA_ERROR_NOT_SUPPORTED;
	CHECK(doca_dma_task_memcpy_set_conf(app->dma, user_on_success, user_on_error, USER_NUM_TASKS));
	CHECK(doca_ctx_set_state_changed_cb(app->ctx, user_on_state));
	CHECK(doca_ctx_set_user_data(app->ctx, ud));
	CHECK(doca_pe_connect_ctx(app->pe, app->ctx));
	CHECK(doca_ctx_start(app->ctx));
	return DOCA_SUCCESS;
}

static doca_error_t user_submit_window(struct user_app *app)
{
	for (unsigned i = 0; i < USER_NUM_TASKS && app->next_chunk < USER_NUM_CHUNKS; i++) {
		struct doca_dma_task_memcpy *task = NULL;
		struct doca_buf *src = NULL, *dst = NULL;
		union doca_data ud = {.u64 = i};

		CHECK(user_load_chunk(app, &src, &dst));
		CHECK(doca_dma_task_memcpy_alloc_init(app->dma, src, dst, ud, &task));
		CHECK(doca_task_submit(doca_dma_task_memcpy_as_task(task)));
	}
	return DOCA_SUCCESS;
}

static doca_error_t user_run_polling(struct user_app *app)
{
	while (!app->idle)
		(void)doca_pe_progress(app->pe);
	return DOCA_SUCCESS;
}

/* Sleep on the notification handle until the PE has something, then progress it dry. */
static doca_error_t user_wait_and_progress(struct user_app *app, int ep, doca_notification_handle_t handle)
{
	struct epoll_event out;
	int n;

	CHECK(doca_pe_request_notification(app->pe));
	do {
		n = epoll_wait(ep, &out, 1, 10000);
	} while (n < 0 && errno == EINTR);
	if (n == 0) {
		fprintf(stderr, "epoll mode: no notification within 10 s (%u of %u chunks done)\n", app->chunks_done,
			USER_NUM_CHUNKS);
		return DOCA_ERROR_TIME_OUT;
	}
	if (n < 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	CHECK(doca_pe_clear_notification(app->pe, handle));
	while (doca_pe_progress(app->pe) != 0)
		;
	return DOCA_SUCCESS;
}

/*
 * Event-driven: submit a window, sleep in epoll_wait until the PE signals,
 * progress, repeat until every chunk is copied; then stop and wait for IDLE.
 */
static doca_error_t user_run_epoll(struct user_app *app)
{
	doca_notification_handle_t handle = doca_notification_invalid_handle;
	struct epoll_event ev = {.events = EPOLLIN};
	unsigned waits = 0, rounds = 0;
	int ep = epoll_create1(0);
	doca_error_t err = DOCA_SUCCESS;

	if (ep < 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	CHECK(doca_pe_get_notification_handle(app->pe, &handle));
	if (epoll_ctl(ep, EPOLL_CTL_ADD, handle, &ev) != 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	while (err == DOCA_SUCCESS && app->chunks_done < USER_NUM_CHUNKS && app->failures == 0) {
		if (app->chunks_done == app->next_chunk) {
			err = user_submit_window(app);
			rounds++;
			continue;
		}
		err = user_wait_and_progress(app, ep, handle);
		waits++;
	}
	if (err == DOCA_SUCCESS && doca_ctx_stop(app->ctx) == DOCA_ERROR_IN_PROGRESS) {
		while (err == DOCA_SUCCESS && !app->idle)
			err = user_wait_and_progress(app, ep, handle);
	}
	printf("epoll mode: %u rounds, %u wakeups for %u chunks\n", rounds, waits, app->chunks_done);
	if (err == DOCA_SUCCESS && waits < rounds) {
		fprintf(stderr, "epoll mode: fewer wakeups than rounds\n");
		err = DOCA_ERROR_UNEXPECTED;
	}
	return err;
}

static doca_error_t user_teardown(struct user_app *app)
{
	CHECK(doca_dma_destroy(app->dma));
	CHECK(doca_pe_destroy(app->pe));
	CHECK(doca_buf_inventory_destroy(app->inv));
	CHECK(doca_mmap_destroy(app->src_mmap));
	CHECK(doca_mmap_destroy(app->dst_mmap));
	CHECK(doca_dev_close(app->dev));
	free(app->src);
	free(app->dst);
	return DOCA_SUCCESS;
}

static int user_main(enum user_mode mode)
{
	static struct user_app app;
	struct doca_log_backend *log = NULL;
	doca_error_t err;

	(void)doca_log_backend_create_standard();
	(void)doca_log_backend_create_with_file_sdk(stderr, &log);
	(void)doca_log_backend_set_sdk_level(log, DOCA_LOG_LEVEL_WARNING);
	app.resubmit_in_callback = mode == USER_POLL;
	err = user_setup(&app);
	if (err == DOCA_SUCCESS && mode == USER_POLL) {
		err = user_submit_window(&app);
		if (err == DOCA_SUCCESS)
			err = user_run_polling(&app);
	} else if (err == DOCA_SUCCESS) {
		err = user_run_epoll(&app);
	}
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "DMA user program failed: %s\n", doca_error_get_descr(err));
		return 1;
	}
	if (app.failures != 0 || app.chunks_done != USER_NUM_CHUNKS) {
		fprintf(stderr, "%u failures, %u of %u chunks copied\n", app.failures, app.chunks_done,
			USER_NUM_CHUNKS);
		return 1;
	}
	if (memcmp(app.src, app.dst, USER_MEM_LEN) != 0) {
		fprintf(stderr, "destination differs from source\n");
		return 1;
	}
	if (user_teardown(&app) != DOCA_SUCCESS)
		return 1;
	printf("copied %u chunks, %u bytes, every byte checked\n", USER_NUM_CHUNKS, USER_MEM_LEN);
	return 0;
}

#endif /* DMA_USER_PROGRAM_H_ */
