/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_workq.c - the rules of DOCA 2.2's work queues and contexts, through the
 * 2.2 headers only: depth, the order of the life cycle, every refusal with its
 * code, event-driven mode, several contexts and queues, the public structs'
 * layout, and calls of the wrong generation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "g3_side.h"

/* The layout programs compiled against the 2.2 headers hand the library (src/legacy/legacy_priv.h). */
_Static_assert(sizeof(struct doca_job) == 24, "doca_job");
_Static_assert(offsetof(struct doca_job, ctx) == 8, "doca_job.ctx");
_Static_assert(offsetof(struct doca_job, user_data) == 16, "doca_job.user_data");
_Static_assert(sizeof(struct doca_event) == 24, "doca_event");
_Static_assert(offsetof(struct doca_event, result) == 16, "doca_event.result");
_Static_assert(sizeof(struct doca_dma_job_memcpy) == 40, "doca_dma_job_memcpy");
_Static_assert(offsetof(struct doca_dma_job_memcpy, src_buff) == 32, "doca_dma_job_memcpy.src_buff");
_Static_assert(DOCA_DMA_JOB_MEMCPY == 0x10001, "DOCA_DMA_JOB_MEMCPY");

#define NBUFS 16
#define BUFSZ 4096

struct fixture {
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	char *mem; /* NBUFS sources then NBUFS destinations */
};

static struct doca_dev *open_dev(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	assert_int_equal(doca_devinfo_list_create(&list, &n), DOCA_SUCCESS);
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		uint8_t eq = 0;

		if (doca_devinfo_get_is_pci_addr_equal(list[i], pci, &eq) == DOCA_SUCCESS && eq)
			assert_int_equal(doca_dev_open(list[i], &dev), DOCA_SUCCESS);
	}
	assert_int_equal(doca_devinfo_list_destroy(list), DOCA_SUCCESS);
	assert_non_null(dev);
	return dev;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->dev = open_dev("03:00.0");
	f->mem = calloc(2 * NBUFS, BUFSZ);
	assert_non_null(f->mem);
	assert_int_equal(doca_mmap_create(NULL, &f->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_dev_add(f->mmap, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(f->mmap, f->mem, 2 * NBUFS * BUFSZ), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(f->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(NULL, 2 * NBUFS, DOCA_BUF_EXTENSION_NONE, &f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(&f->dma), DOCA_SUCCESS);
	f->ctx = doca_dma_as_ctx(f->dma);
	assert_non_null(f->ctx);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(doca_dma_destroy(f->dma), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(f->inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(f->mmap), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(f->dev), DOCA_SUCCESS);
	free(f->mem);
	free(f);
	return 0;
}

static void start_ctx(struct fixture *f)
{
	assert_int_equal(doca_ctx_dev_add(f->ctx, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
}

static void stop_ctx(struct fixture *f)
{
	assert_int_equal(doca_ctx_stop(f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_dev_rm(f->ctx, f->dev), DOCA_SUCCESS);
}

/* Job @p i copies source i (filled with i) to destination i. */
static struct doca_dma_job_memcpy make_job(struct fixture *f, struct doca_ctx *ctx, int i, struct doca_buf **src,
					   struct doca_buf **dst)
{
	struct doca_dma_job_memcpy job;
	char *s = f->mem + (size_t)i * BUFSZ;
	char *d = f->mem + (size_t)(NBUFS + i) * BUFSZ;

	memset(s, i + 1, BUFSZ);
	memset(d, 0, BUFSZ);
	assert_int_equal(doca_buf_inventory_buf_by_data(f->inv, f->mmap, s, BUFSZ, src), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_by_addr(f->inv, f->mmap, d, BUFSZ, dst), DOCA_SUCCESS);
	memset(&job, 0, sizeof(job));
	job.base.type = DOCA_DMA_JOB_MEMCPY;
	job.base.ctx = ctx;
	job.base.user_data.u64 = 1000 + (uint64_t)i;
	job.src_buff = *src;
	job.dst_buff = *dst;
	return job;
}

/* Retrieve until one event comes (bounded); check it is a good copy's and return its job number. */
static int next_event(struct fixture *f, struct doca_workq *wq)
{
	struct doca_event ev;
	doca_error_t r = DOCA_ERROR_AGAIN;
	int i;

	for (int spins = 0; spins < 1000000 && r == DOCA_ERROR_AGAIN; spins++)
		r = doca_workq_progress_retrieve(wq, &ev, DOCA_WORKQ_RETRIEVE_FLAGS_NONE);
	assert_int_equal(r, DOCA_SUCCESS);
	assert_int_equal(ev.type, DOCA_DMA_JOB_MEMCPY);
	assert_int_equal(ev.result.u64, DOCA_SUCCESS);
	assert_in_range(ev.user_data.u64, 1000, 1000 + NBUFS - 1);
	i = (int)(ev.user_data.u64 - 1000);
	assert_int_equal(f->mem[(size_t)(NBUFS + i) * BUFSZ + BUFSZ - 1], (char)(i + 1));
	return i;
}

/* The next event is job @p i's. */
static void expect_event(struct fixture *f, struct doca_workq *wq, int i)
{
	assert_int_equal(next_event(f, wq), i);
}

static void release(struct doca_buf *src, struct doca_buf *dst)
{
	assert_int_equal(doca_buf_refcount_rm(src, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_refcount_rm(dst, NULL), DOCA_SUCCESS);
}

static void test_workq_create_rules(void **state)
{
	struct doca_workq *wq;
	uint32_t depth = 0;

	(void)state;
	assert_int_equal(doca_workq_create(0, &wq), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_workq_create(8, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_workq_create(8, &wq), DOCA_SUCCESS);
	assert_int_equal(doca_workq_get_depth(wq, &depth), DOCA_SUCCESS);
	assert_int_equal(depth, 8);
	assert_int_equal(doca_workq_set_depth(wq, 4), DOCA_SUCCESS);
	assert_int_equal(doca_workq_get_depth(wq, &depth), DOCA_SUCCESS);
	assert_int_equal(depth, 4);
	assert_int_equal(doca_workq_destroy(wq), DOCA_SUCCESS);
	assert_int_equal(doca_workq_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

static void test_ctx_life_cycle_rules(void **state)
{
	struct fixture *f = *state;
	struct doca_workq *wq;

	assert_int_equal(doca_workq_create(4, &wq), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_ERROR_INVALID_VALUE);     /* no device */
	assert_int_equal(doca_ctx_workq_add(f->ctx, wq), DOCA_ERROR_BAD_STATE); /* not started */
	assert_int_equal(doca_ctx_stop(f->ctx), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_ctx_dev_rm(f->ctx, f->dev), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(doca_ctx_dev_add(f->ctx, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_dev_add(f->ctx, f->dev), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_ctx_dev_rm(f->ctx, f->dev), DOCA_ERROR_BAD_STATE); /* started */
	assert_int_equal(doca_ctx_workq_add(f->ctx, wq), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_add(f->ctx, wq), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_ctx_stop(f->ctx), DOCA_ERROR_NOT_PERMITTED); /* a work queue is on it */
	assert_int_equal(doca_workq_destroy(wq), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_dma_destroy(f->dma), DOCA_ERROR_IN_USE);
	assert_int_equal(doca_workq_set_depth(wq, 8), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_ctx_workq_rm(f->ctx, wq), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_rm(f->ctx, wq), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(doca_dma_destroy(f->dma), DOCA_ERROR_BAD_STATE); /* still started */
	stop_ctx(f);
	assert_int_equal(doca_workq_destroy(wq), DOCA_SUCCESS);
}

static void test_submit_rules(void **state)
{
	struct fixture *f = *state;
	struct doca_workq *wq, *other;
	struct doca_buf *src, *dst;
	struct doca_dma_job_memcpy job;
	struct doca_event ev;

	assert_int_equal(doca_workq_create(4, &wq), DOCA_SUCCESS);
	assert_int_equal(doca_workq_create(4, &other), DOCA_SUCCESS);
	job = make_job(f, f->ctx, 0, &src, &dst);
	assert_int_equal(doca_workq_submit(wq, &job.base), DOCA_ERROR_BAD_STATE); /* ctx not started */
	start_ctx(f);
	assert_int_equal(doca_ctx_workq_add(f->ctx, wq), DOCA_SUCCESS);
	assert_int_equal(doca_workq_submit(other, &job.base), DOCA_ERROR_NOT_FOUND); /* not on that ctx */
	job.base.type = DOCA_DMA_JOB_MEMCPY + 1;
	assert_int_equal(doca_workq_submit(wq, &job.base), DOCA_ERROR_INVALID_VALUE);
	job.base.type = DOCA_DMA_JOB_MEMCPY;
	job.src_buff = NULL;
	assert_int_equal(doca_workq_submit(wq, &job.base), DOCA_ERROR_INVALID_VALUE);
	job.src_buff = dst; /* no data in it: nothing to copy */
	assert_int_equal(doca_workq_submit(wq, &job.base), DOCA_ERROR_INVALID_VALUE);
	job.src_buff = src;
	assert_int_equal(doca_workq_progress_retrieve(wq, &ev, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_workq_progress_retrieve(wq, &ev, 0), DOCA_ERROR_AGAIN);
	assert_int_equal(doca_workq_submit(wq, &job.base), DOCA_SUCCESS);
	/* The job is out: the work queue cannot leave the context until its event is in. */
	assert_int_equal(doca_ctx_workq_rm(f->ctx, wq), DOCA_ERROR_NOT_PERMITTED);
	expect_event(f, wq, 0);
	assert_int_equal(doca_workq_progress_retrieve(wq, &ev, 0), DOCA_ERROR_AGAIN);
	release(src, dst);
	assert_int_equal(doca_ctx_workq_rm(f->ctx, wq), DOCA_SUCCESS);
	stop_ctx(f);
	assert_int_equal(doca_workq_destroy(wq), DOCA_SUCCESS);
	assert_int_equal(doca_workq_destroy(other), DOCA_SUCCESS);
}

/* depth jobs out is full until one event is retrieved, whether or not the copies are done. */
static void test_depth_is_jobs_not_retrieved(void **state)
{
	struct fixture *f = *state;
	struct doca_workq *wq;
	struct doca_buf *src[3], *dst[3];
	struct doca_dma_job_memcpy job[3];

	assert_int_equal(doca_workq_create(2, &wq), DOCA_SUCCESS);
	start_ctx(f);
	assert_int_equal(doca_ctx_workq_add(f->ctx, wq), DOCA_SUCCESS);
	for (int i = 0; i < 3; i++)
		job[i] = make_job(f, f->ctx, i, &src[i], &dst[i]);
	assert_int_equal(doca_workq_submit(wq, &job[0].base), DOCA_SUCCESS);
	assert_int_equal(doca_workq_submit(wq, &job[1].base), DOCA_SUCCESS);
	assert_int_equal(doca_workq_submit(wq, &job[2].base), DOCA_ERROR_NO_MEMORY);
	expect_event(f, wq, 0);
	assert_int_equal(doca_workq_submit(wq, &job[2].base), DOCA_SUCCESS);
	expect_event(f, wq, 1);
	expect_event(f, wq, 2);
	for (int i = 0; i < 3; i++)
		release(src[i], dst[i]);
	assert_int_equal(doca_ctx_workq_rm(f->ctx, wq), DOCA_SUCCESS);
	stop_ctx(f);
	assert_int_equal(doca_workq_destroy(wq), DOCA_SUCCESS);
}

/* One context on two work queues, and a second context on the first: each event lands where its job went. */
static void test_many_ctxs_many_workqs(void **state)
{
	struct fixture *f = *state;
	struct doca_workq *a, *b;
	struct doca_dma *dma2;
	struct doca_ctx *ctx2;
	struct doca_buf *src[3], *dst[3];
	struct doca_dma_job_memcpy job[3];

	assert_int_equal(doca_workq_create(4, &a), DOCA_SUCCESS);
	assert_int_equal(doca_workq_create(4, &b), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(&dma2), DOCA_SUCCESS);
	ctx2 = doca_dma_as_ctx(dma2);
	start_ctx(f);
	assert_int_equal(doca_ctx_dev_add(ctx2, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx2), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_add(f->ctx, a), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_add(f->ctx, b), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_add(ctx2, a), DOCA_SUCCESS);
	job[0] = make_job(f, f->ctx, 0, &src[0], &dst[0]);
	job[1] = make_job(f, f->ctx, 1, &src[1], &dst[1]);
	job[2] = make_job(f, ctx2, 2, &src[2], &dst[2]);
	assert_int_equal(doca_workq_submit(a, &job[0].base), DOCA_SUCCESS);
	assert_int_equal(doca_workq_submit(b, &job[1].base), DOCA_SUCCESS);
	assert_int_equal(doca_workq_submit(a, &job[2].base), DOCA_SUCCESS);
	expect_event(f, b, 1);
	/* Completion order is not promised (DOCA says so): both of a's, in either order. */
	assert_int_equal(next_event(f, a) + next_event(f, a), 0 + 2);
	for (int i = 0; i < 3; i++)
		release(src[i], dst[i]);
	assert_int_equal(doca_ctx_workq_rm(ctx2, a), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_rm(f->ctx, b), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_rm(f->ctx, a), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(ctx2), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_dev_rm(ctx2, f->dev), DOCA_SUCCESS);
	assert_int_equal(doca_dma_destroy(dma2), DOCA_SUCCESS);
	stop_ctx(f);
	assert_int_equal(doca_workq_destroy(a), DOCA_SUCCESS);
	assert_int_equal(doca_workq_destroy(b), DOCA_SUCCESS);
}

static int wait_readable(int fd, int timeout_ms)
{
	struct epoll_event ev = {.events = EPOLLIN};
	int ep = epoll_create1(0);
	int n;

	assert_true(ep >= 0);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), 0);
	n = epoll_wait(ep, &ev, 1, timeout_ms);
	close(ep);
	return n;
}

static void test_event_driven(void **state)
{
	struct fixture *f = *state;
	struct doca_workq *wq;
	struct doca_buf *src[2], *dst[2];
	struct doca_dma_job_memcpy job[2];
	struct doca_event ev;
	doca_event_handle_t handle;
	uint8_t enabled = 9, supported = 0;

	assert_int_equal(doca_workq_create(4, &wq), DOCA_SUCCESS);
	assert_int_equal(doca_workq_event_handle_arm(wq), DOCA_ERROR_BAD_STATE); /* mode off */
	assert_int_equal(doca_workq_set_event_driven_enable(wq, 1), DOCA_SUCCESS);
	assert_int_equal(doca_workq_get_event_driven_enable(wq, &enabled), DOCA_SUCCESS);
	assert_int_equal(enabled, 1);
	assert_int_equal(doca_workq_get_event_handle(wq, &handle), DOCA_SUCCESS);
	assert_true(handle >= 0);
	start_ctx(f);
	assert_int_equal(doca_ctx_get_event_driven_supported(f->ctx, &supported), DOCA_SUCCESS);
	assert_int_equal(supported, 1);
	assert_int_equal(doca_ctx_workq_add(f->ctx, wq), DOCA_SUCCESS);
	assert_int_equal(doca_workq_set_event_driven_enable(wq, 0), DOCA_ERROR_BAD_STATE); /* attached */

	/* Nothing out: an armed handle stays quiet. */
	assert_int_equal(doca_workq_event_handle_arm(wq), DOCA_SUCCESS);
	assert_int_equal(wait_readable(handle, 50), 0);
	assert_int_equal(doca_workq_event_handle_clear(wq, handle), DOCA_SUCCESS);

	/* A job out: arm, wait, clear, retrieve until AGAIN. */
	job[0] = make_job(f, f->ctx, 0, &src[0], &dst[0]);
	assert_int_equal(doca_workq_submit(wq, &job[0].base), DOCA_SUCCESS);
	assert_int_equal(doca_workq_event_handle_arm(wq), DOCA_SUCCESS);
	assert_int_equal(wait_readable(handle, 5000), 1);
	assert_int_equal(doca_workq_event_handle_clear(wq, handle), DOCA_SUCCESS);
	expect_event(f, wq, 0);
	assert_int_equal(doca_workq_progress_retrieve(wq, &ev, 0), DOCA_ERROR_AGAIN);

	/* An event already waiting in the queue: arming makes the handle readable at once. */
	job[1] = make_job(f, f->ctx, 1, &src[1], &dst[1]);
	assert_int_equal(doca_workq_submit(wq, &job[1].base), DOCA_SUCCESS);
	assert_int_equal(doca_workq_event_handle_arm(wq), DOCA_SUCCESS);
	assert_int_equal(wait_readable(handle, 5000), 1);
	assert_int_equal(doca_workq_event_handle_clear(wq, handle), DOCA_SUCCESS);
	expect_event(f, wq, 1);
	for (int i = 0; i < 2; i++)
		release(src[i], dst[i]);
	assert_int_equal(doca_ctx_workq_rm(f->ctx, wq), DOCA_SUCCESS);
	stop_ctx(f);
	assert_int_equal(doca_workq_destroy(wq), DOCA_SUCCESS);
}

/* A DOCA 3 context on a work queue, and a work-queue context in DOCA 3's hands: refused, no harm done. */
static void test_wrong_generation(void **state)
{
	struct fixture *f = *state;
	struct doca_workq *wq;
	struct doca_dma *g3_dma = NULL;
	struct doca_pe *pe = NULL;
	struct doca_ctx *g3_ctx = g3_dma_ctx(f->dev, &g3_dma);

	assert_non_null(g3_ctx);
	assert_int_equal(doca_workq_create(4, &wq), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_dev_add(g3_ctx, f->dev), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_start(g3_ctx), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_ctx_workq_add(g3_ctx, wq), DOCA_ERROR_INVALID_VALUE);
	g3_dma_destroy(g3_dma);

	assert_int_equal(doca_ctx_dev_add(f->ctx, f->dev), DOCA_SUCCESS);
	assert_int_equal(g3_start_foreign_ctx(f->ctx, &pe), DOCA_ERROR_NOT_SUPPORTED);
	/* Still a sound work-queue context. */
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_add(f->ctx, wq), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_workq_rm(f->ctx, wq), DOCA_SUCCESS);
	stop_ctx(f);
	assert_int_equal(doca_workq_destroy(wq), DOCA_SUCCESS);
	/* Destroying the context takes it off the DOCA 3 engine; the engine can then go. */
	assert_int_equal(doca_dma_destroy(f->dma), DOCA_SUCCESS);
	assert_int_equal(g3_pe_destroy(pe), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(&f->dma), DOCA_SUCCESS); /* for teardown */
}

/* doca_ctx_get_max_num_ctx is a limit, not a number: one more context is refused. */
static void test_max_num_ctx(void **state)
{
	struct doca_dma **dmas;
	uint32_t max = 0, made = 0;
	struct doca_dma *extra = NULL;

	(void)state;
	assert_int_equal(doca_ctx_get_max_num_ctx(&max), DOCA_SUCCESS);
	assert_true(max > 0 && max <= 65536);
	dmas = calloc(max, sizeof(*dmas));
	assert_non_null(dmas);
	while (made < max && doca_dma_create(&dmas[made]) == DOCA_SUCCESS)
		made++;
	assert_int_equal(made, max);
	assert_int_equal(doca_dma_create(&extra), DOCA_ERROR_NO_MEMORY);
	assert_int_equal(doca_dma_destroy(dmas[0]), DOCA_SUCCESS);
	assert_int_equal(doca_dma_create(&dmas[0]), DOCA_SUCCESS); /* a place came free */
	for (uint32_t i = 0; i < made; i++)
		assert_int_equal(doca_dma_destroy(dmas[i]), DOCA_SUCCESS);
	free(dmas);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workq_create_rules),
		cmocka_unit_test(test_max_num_ctx),
		cmocka_unit_test_setup_teardown(test_ctx_life_cycle_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_depth_is_jobs_not_retrieved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_ctxs_many_workqs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_driven, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_generation, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
