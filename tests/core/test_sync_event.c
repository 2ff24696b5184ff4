/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sync_event.c - doca_sync_event in one process: invalid input, the
 * configuration and state rules, the value calls and waits (with a second
 * thread updating, and a sleeping waiter's CPU time), tasks through a PE, and
 * export / create_from_export with untrusted descriptors.
 */
#include <pthread.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "ferry_test.h"
#include "ferry_test_alloc.h"
#include "ferry_test_dev.h"

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_sync_event.h>
#include <ferry_mem.h>

#include "core/sync_event_priv.h"

static struct doca_dev *host_dev(void)
{
	struct doca_dev *dev = ferry_test_open_dev("b1:00.0", NULL);

	assert_non_null(dev);
	return dev;
}

static struct doca_sync_event *new_event(void)
{
	struct doca_sync_event *ev = NULL;

	assert_int_equal(doca_sync_event_create(&ev), DOCA_SUCCESS);
	assert_non_null(ev);
	return ev;
}

static struct doca_sync_event *new_started(void)
{
	struct doca_sync_event *ev = new_event();

	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	return ev;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* ---- invalid input, capabilities, what Ferry does not have ---- */

static void test_null_arguments(void **state)
{
	struct doca_sync_event *ev = new_event();
	uint64_t v = 0;
	const uint8_t *data = NULL;
	size_t sz = 0;

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_sync_event_create");
	assert_int_equal(doca_sync_event_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_start(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_stop(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_sync_event_as_ctx(NULL));
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_add_publisher_location_remote_pci(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_add_subscriber_location_remote_pci(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_set_addr(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_set_doca_buf(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_get(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_update_set(NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_update_add(NULL, 1, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_wait_gt(NULL, 0, UINT64_MAX), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_wait_eq_yield(NULL, 0, UINT64_MAX), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_export_to_remote_pci(NULL, NULL, &data, &sz), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_create_from_export(NULL, NULL, 0, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_task_get_set_conf(NULL, NULL, NULL, 1), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_sync_event_task_get_as_doca_task(NULL));
	assert_null(doca_sync_event_task_wait_eq_as_doca_task(NULL));
	/* The value calls check the pointer after the state: started first. */
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_update_add(ev, 1, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

static void test_caps(void **state)
{
	struct doca_dev *dev = host_dev();
	const struct doca_devinfo *di = doca_dev_as_devinfo(dev);

	(void)state;
	assert_int_equal(doca_sync_event_cap_is_create_from_export_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_is_export_to_remote_pci_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_task_get_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_task_notify_set_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_task_notify_add_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_task_wait_eq_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_task_wait_neq_is_supported(di), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_cap_remote_net_is_create_from_export_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_is_export_to_remote_net_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_is_export_to_dpa_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_is_export_to_gpu_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_remote_net_is_export_to_dpa_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_remote_net_is_export_to_gpu_supported(di), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_cap_is_create_from_export_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_cap_task_wait_neq_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

static void test_no_dpa_gpu_net(void **state)
{
	struct doca_sync_event *ev = new_event();
	struct doca_dev *dev = host_dev();
	struct doca_sync_event_remote_net *rn = NULL;
	doca_dpa_dev_sync_event_t h = 0;
	doca_gpu_dev_sync_event_t *gh = NULL;
	const uint8_t *data = NULL;
	size_t sz = 0;
	const uint8_t blob[16] = {0};
	uint8_t net_inner[16] = {1}, net_blob[SE_DESC_HDR_LEN + 16];
	struct se_desc_parts net_parts = {net_inner, sizeof(net_inner), NULL, 0, true};
	struct doca_sync_event *bad = NULL;

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_add_publisher_location_dpa(ev, NULL), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("no DPA");
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_add_subscriber_location_gpu(ev, NULL), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("no GPU");
	assert_int_equal(doca_sync_event_add_publisher_location_gpu(ev, NULL), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_add_subscriber_location_dpa(ev, NULL), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_get_dpa_handle(ev, NULL, &h), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_get_gpu_handle(ev, NULL, &gh), DOCA_ERROR_NOT_SUPPORTED);
	/* Network peers: configuring is fine; exporting needs DOCA RDMA, which this program does not load. */
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_export_to_remote_net(ev, &data, &sz), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("has no network publisher");
	assert_int_equal(doca_sync_event_add_publisher_location_remote_net(ev), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_export_to_remote_net(ev, &data, &sz), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("DOCA RDMA is not loaded in this process");
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_remote_net_create_from_export(dev, blob, sizeof(blob), &rn),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("descriptor refused");
	assert_int_equal(sync_event_desc_encode(&net_parts, net_blob, sizeof(net_blob)), SE_DESC_HDR_LEN + 16);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_remote_net_create_from_export(dev, net_blob, SE_DESC_HDR_LEN + 16, &rn),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("DOCA RDMA is not loaded in this process");
	assert_null(rn);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_create_from_export(dev, net_blob, SE_DESC_HDR_LEN + 16, &bad),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_sync_event_remote_net_create_from_export takes it");
	assert_null(bad);
	assert_int_equal(doca_sync_event_remote_net_destroy((struct doca_sync_event_remote_net *)(void *)net_blob),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_remote_net_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_get_dpa_handle(NULL, NULL, &h), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

/* ---- configuration and state ---- */

static void test_state_rules(void **state)
{
	struct doca_sync_event *ev = new_event();
	struct doca_dev *dev = host_dev();
	uint64_t v = 7, word = 0;

	(void)state;
	/* Not started: the value calls are refused. */
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_ERROR_BAD_STATE);
	assert_logged("is not started");
	assert_int_equal(doca_sync_event_update_set(ev, 1), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_wait_gt(ev, 0, UINT64_MAX), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_stop(ev), DOCA_ERROR_BAD_STATE);
	/* Configuration before start. */
	assert_int_equal(doca_sync_event_add_publisher_location_remote_pci(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(ev, dev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_cpu(ev, dev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_remote_pci(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	/* Started: a new event reads 0; configuration and a second start are refused. */
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_start(ev), DOCA_ERROR_BAD_STATE);
	assert_logged("already started");
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(ev, dev), DOCA_ERROR_BAD_STATE);
	assert_logged("configuration comes before start");
	assert_int_equal(doca_sync_event_set_addr(ev, &word), DOCA_ERROR_BAD_STATE);
	ferry_test_log_reset();
	assert_null(doca_sync_event_as_ctx(ev));
	assert_logged("cannot become a context");
	/* Stop, start again: the value survives. */
	assert_int_equal(doca_sync_event_update_set(ev, 42), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_stop(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 42);
	/* Destroy implies stop. */
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);

	/* A context cannot be started or stopped standalone. */
	ev = new_event();
	assert_non_null(doca_sync_event_as_ctx(ev));
	assert_ptr_equal(doca_sync_event_as_ctx(ev), doca_sync_event_as_ctx(ev));
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_start(ev), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_ctx_start");
	assert_int_equal(doca_sync_event_stop(ev), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

static void test_values(void **state)
{
	struct doca_sync_event *ev = new_started();
	uint64_t v = 0, fetched = 99;

	(void)state;
	assert_int_equal(doca_sync_event_update_set(ev, 10), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_add(ev, 5, &fetched), DOCA_SUCCESS);
	assert_int_equal(fetched, 10);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 15);
	/* Wrap-around is plain 64-bit arithmetic. */
	assert_int_equal(doca_sync_event_update_set(ev, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_add(ev, 2, &fetched), DOCA_SUCCESS);
	assert_true(fetched == UINT64_MAX);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1);
	/* Conditions that already hold return at once; the mask applies to the event's value. */
	assert_int_equal(doca_sync_event_update_set(ev, 0x1234), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt(ev, 0x1233, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_gt_yield(ev, 0x33, 0xFF), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_eq(ev, 0x34, 0xFF), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_eq_yield(ev, 0x1234, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_neq(ev, 0, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_wait_neq_yield(ev, 0x1235, UINT64_MAX), DOCA_SUCCESS);
	/* Mask 0: (v & 0) == 0 always, != 0 never, > 0 never. */
	assert_int_equal(doca_sync_event_wait_eq(ev, 0, 0), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

static void test_caller_storage(void **state)
{
	struct doca_sync_event *ev = new_event();
	struct doca_dev *dev = host_dev();
	_Alignas(8) uint64_t words[2] = {5, 0};
	uint64_t v = 0;
	const uint8_t *data = NULL;
	size_t sz = 0;

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_set_addr(ev, (uint64_t *)(void *)((char *)words + 4)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("not 8-byte aligned");
	assert_int_equal(doca_sync_event_set_addr(ev, &words[0]), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 5); /* the word's content is the value */
	assert_int_equal(doca_sync_event_update_set(ev, 6), DOCA_SUCCESS);
	assert_int_equal(words[0], 6);
	/* A raw write to the word is seen by a wait. */
	__atomic_store_n(&words[0], 9, __ATOMIC_SEQ_CST);
	assert_int_equal(doca_sync_event_wait_eq(ev, 9, UINT64_MAX), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, dev, &data, &sz), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("another process cannot map");
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

static void test_doca_buf_storage(void **state)
{
	_Alignas(64) static uint64_t mem[8];
	struct doca_mmap *rw = NULL, *ro = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_buf *good = NULL, *wide = NULL, *rbuf = NULL;
	struct doca_sync_event *ev = new_event();
	uint64_t v = 0;

	(void)state;
	mem[0] = 3;
	assert_int_equal(doca_mmap_create(&rw), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(rw, mem, sizeof(mem) / 2), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(rw), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create(&ro), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(ro, &mem[4], sizeof(mem) / 2), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(ro, DOCA_ACCESS_FLAG_PCI_READ_ONLY), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(ro), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(inv, rw, mem, 32, mem, 8, &good), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(inv, rw, mem, 32, mem, 16, &wide), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(inv, ro, &mem[4], 32, &mem[4], 8, &rbuf), DOCA_SUCCESS);

	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_set_doca_buf(ev, wide), DOCA_ERROR_INVALID_VALUE);
	assert_logged("exactly 8 bytes");
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_set_doca_buf(ev, rbuf), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("local read-write");
	assert_int_equal(doca_sync_event_set_doca_buf(ev, good), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 3);
	assert_int_equal(doca_sync_event_update_add(ev, 4, &v), DOCA_SUCCESS);
	assert_int_equal(mem[0], 7);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);

	assert_int_equal(doca_buf_dec_refcount(good, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(wide, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(rbuf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(rw), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(ro), DOCA_SUCCESS);
}

/* ---- waits with a second thread ---- */

enum wait_kind { W_GT, W_GT_Y, W_EQ, W_EQ_Y, W_NEQ, W_NEQ_Y };

struct waiter {
	struct doca_sync_event *ev;
	enum wait_kind kind;
	uint64_t value;
	doca_error_t result;
	uint64_t cpu_ns; /* the waiter thread's CPU time inside the wait */
	atomic_bool done;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	uint64_t t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);

	switch (w->kind) {
	case W_GT:
		w->result = doca_sync_event_wait_gt(w->ev, w->value, UINT64_MAX);
		break;
	case W_GT_Y:
		w->result = doca_sync_event_wait_gt_yield(w->ev, w->value, UINT64_MAX);
		break;
	case W_EQ:
		w->result = doca_sync_event_wait_eq(w->ev, w->value, UINT64_MAX);
		break;
	case W_EQ_Y:
		w->result = doca_sync_event_wait_eq_yield(w->ev, w->value, UINT64_MAX);
		break;
	case W_NEQ:
		w->result = doca_sync_event_wait_neq(w->ev, w->value, UINT64_MAX);
		break;
	case W_NEQ_Y:
		w->result = doca_sync_event_wait_neq_yield(w->ev, w->value, UINT64_MAX);
		break;
	}
	w->cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
	atomic_store(&w->done, true);
	return NULL;
}

/* Each wait blocks while its condition is false and returns once another thread makes it true. */
static void test_waits_with_updater(void **state)
{
	static const struct {
		enum wait_kind kind;
		uint64_t arg, before, after;
	} cases[] = {
		{W_GT, 5, 5, 6},   {W_GT_Y, 5, 3, 9}, {W_EQ, 7, 6, 7},
		{W_EQ_Y, 7, 8, 7}, {W_NEQ, 4, 4, 5},  {W_NEQ_Y, 4, 4, 0},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct doca_sync_event *ev = new_started();
		struct waiter w = {.ev = ev, .kind = cases[i].kind, .value = cases[i].arg};
		pthread_t th;

		atomic_init(&w.done, false);
		assert_int_equal(doca_sync_event_update_set(ev, cases[i].before), DOCA_SUCCESS);
		assert_int_equal(pthread_create(&th, NULL, waiter_main, &w), 0);
		sleep_ms(30);
		assert_false(atomic_load(&w.done));
		assert_int_equal(doca_sync_event_update_set(ev, cases[i].after), DOCA_SUCCESS);
		assert_int_equal(pthread_join(th, NULL), 0);
		assert_int_equal(w.result, DOCA_SUCCESS);
		assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	}
}

/* A plain wait sleeps: over 400 ms of waiting it uses a small fraction of a CPU. */
static void test_waiter_sleeps(void **state)
{
	struct doca_sync_event *ev = new_started();
	struct waiter w = {.ev = ev, .kind = W_GT, .value = 0};
	uint64_t fetched, t0;
	pthread_t th;

	(void)state;
	atomic_init(&w.done, false);
	assert_int_equal(pthread_create(&th, NULL, waiter_main, &w), 0);
	sleep_ms(400);
	assert_false(atomic_load(&w.done));
	t0 = now_ns(CLOCK_MONOTONIC);
	assert_int_equal(doca_sync_event_update_add(ev, 1, &fetched), DOCA_SUCCESS);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(w.result, DOCA_SUCCESS);
	/* Woken by the update, not by the re-check interval. */
	print_message("waiter: %.2f ms CPU over ~400 ms; woken %.3f ms after the update\n", w.cpu_ns / 1e6,
		      (now_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	assert_true(w.cpu_ns < 40u * 1000000u); /* under 10% of one CPU, sanitizers included */
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

/* Many waiters on one event all wake on one update. */
static void test_many_waiters(void **state)
{
	enum { N = 6 };
	struct doca_sync_event *ev = new_started();
	struct waiter w[N];
	pthread_t th[N];

	(void)state;
	for (int i = 0; i < N; i++) {
		w[i] = (struct waiter){.ev = ev, .kind = (i & 1) ? W_EQ : W_NEQ, .value = (i & 1) ? 1 : 0};
		atomic_init(&w[i].done, false);
		assert_int_equal(pthread_create(&th[i], NULL, waiter_main, &w[i]), 0);
	}
	sleep_ms(30);
	assert_int_equal(doca_sync_event_update_set(ev, 1), DOCA_SUCCESS);
	for (int i = 0; i < N; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(w[i].result, DOCA_SUCCESS);
	}
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

/* Two threads ping-pong through one event: nothing is lost between a check and a sleep. */
struct pong {
	struct doca_sync_event *ev;
	int rounds;
	bool yield;
};

static void *pong_main(void *arg)
{
	struct pong *p = arg;

	for (int i = 0; i < p->rounds; i++) {
		uint64_t want = 2 * (uint64_t)i + 1;

		if (p->yield)
			(void)doca_sync_event_wait_eq_yield(p->ev, want, UINT64_MAX);
		else
			(void)doca_sync_event_wait_eq(p->ev, want, UINT64_MAX);
		(void)doca_sync_event_update_set(p->ev, want + 1);
	}
	return NULL;
}

static void ping_pong(struct doca_sync_event *mine, struct doca_sync_event *theirs, int rounds, bool yield)
{
	struct pong p = {.ev = theirs, .rounds = rounds, .yield = yield};
	pthread_t th;
	uint64_t fetched;

	assert_int_equal(pthread_create(&th, NULL, pong_main, &p), 0);
	for (int i = 0; i < rounds; i++) {
		assert_int_equal(doca_sync_event_update_add(mine, 1, &fetched), DOCA_SUCCESS);
		assert_int_equal(fetched, 2 * (uint64_t)i);
		assert_int_equal(doca_sync_event_wait_gt(mine, 2 * (uint64_t)i + 1, UINT64_MAX), DOCA_SUCCESS);
	}
	assert_int_equal(pthread_join(th, NULL), 0);
}

static void test_ping_pong_threads(void **state)
{
	struct doca_sync_event *ev = new_started();

	(void)state;
	ping_pong(ev, ev, 3000, false);
	assert_int_equal(doca_sync_event_update_set(ev, 0), DOCA_SUCCESS);
	ping_pong(ev, ev, 1000, true);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
}

/* ---- tasks through a PE ---- */

struct seen {
	int ok[5], err[5];
	doca_error_t last_status;
};

static struct seen *seen_of(union doca_data ctx_user_data)
{
	return ctx_user_data.ptr;
}

#define CB(X, IDX)                                                                                            \
	static void X##_ok(struct doca_sync_event_task_##X *t, union doca_data tud, union doca_data cud)      \
	{                                                                                                     \
		(void)tud;                                                                                    \
		seen_of(cud)->ok[IDX]++;                                                                      \
		seen_of(cud)->last_status = doca_task_get_status(doca_sync_event_task_##X##_as_doca_task(t)); \
	}                                                                                                     \
	static void X##_err(struct doca_sync_event_task_##X *t, union doca_data tud, union doca_data cud)     \
	{                                                                                                     \
		(void)tud;                                                                                    \
		seen_of(cud)->err[IDX]++;                                                                     \
		seen_of(cud)->last_status = doca_task_get_status(doca_sync_event_task_##X##_as_doca_task(t)); \
	}
CB(get, 0)
CB(notify_set, 1)
CB(notify_add, 2)
CB(wait_eq, 3)
CB(wait_neq, 4)

struct ctx_fixture {
	struct doca_sync_event *ev;
	struct doca_ctx *ctx;
	struct doca_pe *pe;
	struct seen seen;
};

static void ctx_open(struct ctx_fixture *f, uint32_t num)
{
	union doca_data ud;

	memset(f, 0, sizeof(*f));
	f->ev = new_event();
	f->ctx = doca_sync_event_as_ctx(f->ev);
	assert_non_null(f->ctx);
	assert_int_equal(doca_pe_create(&f->pe), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(f->pe, f->ctx), DOCA_SUCCESS);
	ud.ptr = &f->seen;
	assert_int_equal(doca_ctx_set_user_data(f->ctx, ud), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_get_set_conf(f->ev, get_ok, get_err, num), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_notify_set_set_conf(f->ev, notify_set_ok, notify_set_err, num),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_notify_add_set_conf(f->ev, notify_add_ok, notify_add_err, num),
			 DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_eq_set_conf(f->ev, wait_eq_ok, wait_eq_err, num), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_neq_set_conf(f->ev, wait_neq_ok, wait_neq_err, num), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
}

static void ctx_close(struct ctx_fixture *f)
{
	enum doca_ctx_states st;

	(void)doca_ctx_stop(f->ctx);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
		if (st == DOCA_CTX_STATE_IDLE)
			break;
		(void)doca_pe_progress(f->pe);
	}
	assert_int_equal(st, DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_sync_event_destroy(f->ev), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(f->pe), DOCA_SUCCESS);
}

static void test_task_conf_rules(void **state)
{
	struct doca_sync_event *ev = new_event();
	struct doca_pe *pe = NULL;
	struct doca_sync_event_task_get *gt = NULL;
	uint64_t v;
	union doca_data ud = {.u64 = 0};

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_task_get_set_conf(ev, NULL, get_err, 1), DOCA_ERROR_INVALID_VALUE);
	assert_logged("callbacks must not be NULL");
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_task_get_set_conf(ev, get_ok, get_err, 0), DOCA_ERROR_INVALID_VALUE);
	assert_logged("at least 1 task");
	/* Tasks need the context. */
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_task_get_alloc_init(ev, &v, ud, &gt), DOCA_ERROR_BAD_STATE);
	assert_logged("is not a context");
	assert_int_equal(doca_sync_event_task_get_set_conf(ev, get_ok, get_err, 1), DOCA_SUCCESS);
	struct doca_ctx *ctx = doca_sync_event_as_ctx(ev);
	assert_non_null(ctx);
	/* Started without a PE: refused (the generic rule). */
	assert_true(doca_ctx_start(ctx) != DOCA_SUCCESS);
	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, ctx), DOCA_SUCCESS);
	/* Allocation before start. */
	assert_int_equal(doca_sync_event_task_get_alloc_init(ev, &v, ud, &gt), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_ctx_start(ctx), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_task_get_set_conf(ev, get_ok, get_err, 4), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("task configuration needs IDLE");
	/* A kind never configured has no tasks. */
	struct doca_sync_event_task_wait_eq *we = NULL;
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(ev, 1, UINT64_MAX, ud, &we), DOCA_ERROR_BAD_STATE);
	/* Configuration of the event itself is over, too. */
	assert_int_equal(doca_sync_event_add_publisher_location_remote_pci(ev), DOCA_ERROR_BAD_STATE);
	/* While RUNNING the synchronous calls work as well. */
	assert_int_equal(doca_sync_event_update_set(ev, 3), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(ev, &v), DOCA_SUCCESS);
	assert_int_equal(v, 3);
	/* Destroy needs IDLE. */
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_ERROR_BAD_STATE);
	assert_logged("destroy needs IDLE");
	assert_int_equal(doca_ctx_stop(ctx), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
}

static void test_tasks(void **state)
{
	struct ctx_fixture f;
	struct doca_sync_event_task_get *gt = NULL, *gt2 = NULL, *gt3 = NULL;
	struct doca_sync_event_task_notify_set *st = NULL;
	struct doca_sync_event_task_notify_add *at = NULL;
	struct doca_sync_event_task_wait_eq *we = NULL;
	struct doca_sync_event_task_wait_neq *wn = NULL;
	union doca_data ud = {.u64 = 0};
	uint64_t got = 0, fetched = 0, other = 0;
	size_t inflight = 0;

	(void)state;
	ctx_open(&f, 2);
	/* Getters and setters. */
	assert_int_equal(doca_sync_event_task_get_alloc_init(f.ev, &got, ud, &gt), DOCA_SUCCESS);
	assert_ptr_equal(doca_sync_event_task_get_get_ret_val_ptr(gt), &got);
	doca_sync_event_task_get_set_ret_val_ptr(gt, &other);
	assert_ptr_equal(doca_sync_event_task_get_get_ret_val_ptr(gt), &other);
	doca_sync_event_task_get_set_ret_val_ptr(gt, &got);
	assert_int_equal(doca_sync_event_task_notify_set_alloc_init(f.ev, 10, ud, &st), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_notify_set_get_set_val(st), 10);
	doca_sync_event_task_notify_set_set_set_val(st, 20);
	assert_int_equal(doca_sync_event_task_notify_set_get_set_val(st), 20);
	assert_int_equal(doca_sync_event_task_notify_add_alloc_init(f.ev, 1, &fetched, ud, &at), DOCA_SUCCESS);
	doca_sync_event_task_notify_add_set_inc_val(at, 5);
	assert_int_equal(doca_sync_event_task_notify_add_get_inc_val(at), 5);
	assert_ptr_equal(doca_sync_event_task_notify_add_get_fetched_val_ptr(at), &fetched);
	doca_sync_event_task_notify_add_set_fetched_val_ptr(at, &fetched);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(f.ev, 25, 0x00F0, ud, &we), DOCA_ERROR_INVALID_VALUE);
	assert_logged("mask");
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(f.ev, 25, 0xFF, ud, &we), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_eq_get_wait_val(we), 25);
	assert_int_equal(doca_sync_event_task_wait_eq_get_mask(we), 0xFF);
	doca_sync_event_task_wait_eq_set_mask(we, UINT64_MAX);
	assert_true(doca_sync_event_task_wait_eq_get_mask(we) == UINT64_MAX);
	assert_int_equal(doca_sync_event_task_wait_neq_alloc_init(f.ev, 0, UINT64_MAX, ud, &wn), DOCA_SUCCESS);
	doca_sync_event_task_wait_neq_set_wait_val(wn, 20);
	assert_int_equal(doca_sync_event_task_wait_neq_get_wait_val(wn), 20);
	assert_true(doca_sync_event_task_wait_neq_get_mask(wn) == UINT64_MAX);
	/* The pool holds 2 of each. */
	assert_int_equal(doca_sync_event_task_get_alloc_init(f.ev, &got, ud, &gt2), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_task_get_alloc_init(f.ev, &got, ud, &gt3), DOCA_ERROR_NO_MEMORY);
	assert_logged("all 2");
	doca_task_free(doca_sync_event_task_get_as_doca_task(gt2));

	/* The waits are submitted first; nothing completes inside submit. */
	assert_int_equal(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(we)), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_sync_event_task_wait_neq_as_doca_task(wn)), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_sync_event_task_notify_set_as_doca_task(st)), DOCA_SUCCESS);
	assert_int_equal(f.seen.ok[1], 0);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f.ctx, &inflight), DOCA_SUCCESS);
	assert_int_equal(inflight, 3);
	/* Progress: set 20 completes; neq 20 does not hold, eq 25 neither. */
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_int_equal(f.seen.ok[1], 1);
	assert_int_equal(f.seen.ok[3] + f.seen.ok[4], 0);
	assert_int_equal(doca_pe_progress(f.pe), 0); /* nothing delivered: 0, as the samples expect */
	/* Add 5 -> 25: both waits hold on the following progress (or the same one). */
	assert_int_equal(doca_task_submit(doca_sync_event_task_notify_add_as_doca_task(at)), DOCA_SUCCESS);
	for (int i = 0; i < 3; i++)
		(void)doca_pe_progress(f.pe);
	assert_int_equal(f.seen.ok[2], 1);
	assert_int_equal(fetched, 20);
	assert_int_equal(f.seen.ok[3], 1);
	assert_int_equal(f.seen.ok[4], 1);
	assert_int_equal(doca_task_submit(doca_sync_event_task_get_as_doca_task(gt)), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_int_equal(got, 25);
	assert_int_equal(f.seen.last_status, DOCA_SUCCESS);

	/* A wait that never holds is flushed by the stop through its error callback. */
	doca_sync_event_task_wait_eq_set_wait_val(we, 1000);
	assert_int_equal(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(we)), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f.pe), 0);
	assert_int_equal(doca_ctx_stop(f.ctx), DOCA_ERROR_IN_PROGRESS);
	(void)doca_pe_progress(f.pe);
	assert_int_equal(f.seen.err[3], 1);
	assert_int_equal(f.seen.last_status, DOCA_ERROR_IO_FAILED);
	doca_task_free(doca_sync_event_task_get_as_doca_task(gt));
	doca_task_free(doca_sync_event_task_notify_set_as_doca_task(st));
	doca_task_free(doca_sync_event_task_notify_add_as_doca_task(at));
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(we));
	doca_task_free(doca_sync_event_task_wait_neq_as_doca_task(wn));
	ctx_close(&f);
}

/* A wait task in flight: an update from another thread makes the PE's handle readable. */
struct setter {
	struct doca_sync_event *ev;
	uint64_t value;
};

static void *setter_main(void *arg)
{
	struct setter *s = arg;

	sleep_ms(50);
	(void)doca_sync_event_update_set(s->ev, s->value);
	return NULL;
}

static void test_task_wakes_pe(void **state)
{
	struct ctx_fixture f;
	struct doca_sync_event_task_wait_eq *we = NULL;
	union doca_data ud = {.u64 = 0};
	doca_notification_handle_t h;
	struct setter s;
	pthread_t th;

	(void)state;
	ctx_open(&f, 1);
	assert_int_equal(doca_sync_event_task_wait_eq_alloc_init(f.ev, 7, UINT64_MAX, ud, &we), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(we)), DOCA_SUCCESS);
	assert_int_equal(doca_pe_get_notification_handle(f.pe, &h), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f.pe), 0);
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	struct pollfd pfd = {.fd = (int)h, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 0), 0); /* nothing pending yet */
	s = (struct setter){.ev = f.ev, .value = 7};
	assert_int_equal(pthread_create(&th, NULL, setter_main, &s), 0);
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(doca_pe_clear_notification(f.pe, h), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_int_equal(f.seen.ok[3], 1);
	/* The condition holding at arming time is reported at once. */
	assert_int_equal(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(we)), DOCA_SUCCESS);
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	assert_int_equal(poll(&pfd, 1, 1000), 1);
	assert_int_equal(doca_pe_clear_notification(f.pe, h), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(we));
	ctx_close(&f);
}

/*
 * The same through another handle of the event (an import in this process):
 * the update rings the bell the PE hung in the shared block.
 */
static void test_task_wakes_pe_other_handle(void **state)
{
	struct doca_dev *host = host_dev();
	struct ctx_fixture f;
	struct doca_sync_event *other = NULL;
	struct doca_sync_event_task_wait_neq *wn = NULL;
	union doca_data ud = {.u64 = 0};
	doca_notification_handle_t h;
	const uint8_t *data = NULL;
	size_t sz = 0;
	struct setter s;
	pthread_t th;

	(void)state;
	ctx_open(&f, 1);
	assert_int_equal(doca_sync_event_export_to_remote_pci(f.ev, host, &data, &sz), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_create_from_export(host, data, sz, &other), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(other), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_task_wait_neq_alloc_init(f.ev, 0, UINT64_MAX, ud, &wn), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_sync_event_task_wait_neq_as_doca_task(wn)), DOCA_SUCCESS);
	assert_int_equal(doca_pe_get_notification_handle(f.pe, &h), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f.pe), 0);
	assert_int_equal(doca_pe_request_notification(f.pe), DOCA_SUCCESS);
	struct pollfd pfd = {.fd = (int)h, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 0), 0);
	s = (struct setter){.ev = other, .value = 3};
	assert_int_equal(pthread_create(&th, NULL, setter_main, &s), 0);
	assert_int_equal(poll(&pfd, 1, 5000), 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(doca_pe_clear_notification(f.pe, h), DOCA_SUCCESS);
	assert_int_equal(doca_pe_progress(f.pe), 1);
	assert_int_equal(f.seen.ok[4], 1);
	doca_task_free(doca_sync_event_task_wait_neq_as_doca_task(wn));
	ctx_close(&f);
	assert_int_equal(doca_sync_event_destroy(other), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(host), DOCA_SUCCESS);
}

/* ---- export and create_from_export (one process; test_sync_event_procs does two) ---- */

static void test_export_import(void **state)
{
	struct doca_dev *host = host_dev();
	struct doca_dev *dpu = ferry_test_open_dev("03:00.0", NULL);
	struct doca_sync_event *ev = new_event(), *imp = NULL, *again = NULL;
	const uint8_t *data = NULL, *data2 = NULL;
	size_t sz = 0, sz2 = 0;
	uint64_t v = 0, fetched = 0;
	uint8_t saved[SE_DESC_MAX_LEN];

	(void)state;
	assert_non_null(dpu);
	assert_int_equal(doca_sync_event_add_publisher_location_remote_pci(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(ev, host), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, NULL, &data, &sz), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, host, &data, &sz), DOCA_SUCCESS);
	assert_non_null(data);
	assert_true(sz > SE_DESC_HDR_LEN && sz <= 1024); /* fits one Comch message of the samples */
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, host, &data2, &sz2), DOCA_SUCCESS);
	assert_ptr_equal(data, data2);
	assert_int_equal(sz, sz2);
	memcpy(saved, data, sz);

	assert_int_equal(doca_sync_event_create_from_export(dpu, data, sz, &imp), DOCA_SUCCESS);
	/* An imported event cannot be configured or re-exported. */
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(imp, dpu), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("created from an export");
	assert_int_equal(doca_sync_event_set_addr(imp, &v), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_sync_event_export_to_remote_pci(imp, dpu, &data2, &sz2), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_sync_event_start(imp), DOCA_SUCCESS);
	/* One value, two handles. */
	assert_int_equal(doca_sync_event_update_set(ev, 11), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(imp, &v), DOCA_SUCCESS);
	assert_int_equal(v, 11);
	assert_int_equal(doca_sync_event_update_add(imp, 1, &fetched), DOCA_SUCCESS);
	assert_int_equal(fetched, 11);
	assert_int_equal(doca_sync_event_wait_eq(ev, 12, UINT64_MAX), DOCA_SUCCESS);
	/* Threads on the two handles ping-pong: wake-ups cross the two mappings. */
	assert_int_equal(doca_sync_event_update_set(ev, 0), DOCA_SUCCESS);
	ping_pong(ev, imp, 2000, false);
	/* set_addr after export would move the value away from the peer. */
	struct doca_sync_event *ev2 = new_event();
	uint64_t word = 0;
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev2, host, &data2, &sz2), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_set_addr(ev2, &word), DOCA_ERROR_BAD_STATE);
	assert_logged("exported already");
	assert_int_equal(doca_sync_event_destroy(ev2), DOCA_SUCCESS);

	/* The exporter goes: the importer keeps its value; new imports are refused. */
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_set(imp, 77), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(imp, &v), DOCA_SUCCESS);
	assert_int_equal(v, 77);
	ferry_test_log_reset();
	assert_true(doca_sync_event_create_from_export(dpu, saved, sz, &again) != DOCA_SUCCESS);
	assert_null(again);
	assert_int_equal(doca_sync_event_destroy(imp), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dpu), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(host), DOCA_SUCCESS);
}

/* Caller storage exports too when it is shareable memory (and a buf's mmap grants PCI read-write). */
static void test_export_caller_storage(void **state)
{
	struct doca_dev *host = host_dev();
	struct doca_dev *dpu = ferry_test_open_dev("03:00.0", NULL);
	uint64_t *shared = ferry_mem_alloc_shared(4096);
	_Alignas(8) uint64_t private_word = 0;
	struct doca_sync_event *ev = new_event(), *imp = NULL;
	struct doca_mmap *mmap = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_buf *buf = NULL;
	const uint8_t *data = NULL;
	size_t sz = 0;
	uint64_t v = 0;

	(void)state;
	assert_non_null(dpu);
	assert_non_null(shared);
	/* Private memory cannot be mapped by the peer. */
	assert_int_equal(doca_sync_event_set_addr(ev, &private_word), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, host, &data, &sz), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("ferry_mem_alloc_shared");
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);

	/* set_addr in shareable memory: one value, two processes' views of it. */
	ev = new_event();
	shared[3] = 40;
	assert_int_equal(doca_sync_event_set_addr(ev, &shared[3]), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, host, &data, &sz), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_create_from_export(dpu, data, sz, &imp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(imp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_get(imp, &v), DOCA_SUCCESS);
	assert_int_equal(v, 40);
	assert_int_equal(doca_sync_event_update_set(imp, 41), DOCA_SUCCESS);
	assert_int_equal(shared[3], 41);
	__atomic_store_n(&shared[3], 42, __ATOMIC_SEQ_CST); /* behind the API's back: seen by the re-check */
	assert_int_equal(doca_sync_event_wait_eq(imp, 42, UINT64_MAX), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_set(ev, 0), DOCA_SUCCESS);
	ping_pong(ev, imp, 1000, false);
	assert_int_equal(doca_sync_event_destroy(imp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);

	/* set_doca_buf: the mmap must grant PCI read-write for an export. */
	assert_int_equal(doca_mmap_create(&mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(mmap, shared, 4096), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(1, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(inv, mmap, shared, 64, &shared[1], 8, &buf), DOCA_SUCCESS);
	ev = new_event();
	assert_int_equal(doca_sync_event_set_doca_buf(ev, buf), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, host, &data, &sz), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("PCI_READ_WRITE");
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_stop(mmap), DOCA_SUCCESS);
	assert_int_equal(
		doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE),
		DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_args(inv, mmap, shared, 64, &shared[1], 8, &buf), DOCA_SUCCESS);
	ev = new_event();
	assert_int_equal(doca_sync_event_set_doca_buf(ev, buf), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, host, &data, &sz), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_create_from_export(dpu, data, sz, &imp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(imp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_update_add(imp, 9, &v), DOCA_SUCCESS);
	assert_int_equal(shared[1], 9);
	assert_int_equal(doca_sync_event_destroy(imp), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(buf, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(mmap), DOCA_SUCCESS);

	/* A forged descriptor whose value part names a read-only export is refused. */
	struct doca_sync_event *real = new_event();
	const uint8_t *rdata = NULL;
	size_t rsz = 0;
	const void *mdesc = NULL;
	size_t mlen = 0;
	struct se_desc_parts parts;
	const char *why = NULL;
	uint8_t forged[SE_DESC_MAX_LEN];

	assert_int_equal(doca_sync_event_export_to_remote_pci(real, host, &rdata, &rsz), DOCA_SUCCESS);
	assert_int_equal(sync_event_desc_decode(rdata, rsz, &parts, &why), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create(&mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(mmap, host), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(mmap, &shared[8], 8), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_ONLY), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_pci(mmap, host, &mdesc, &mlen), DOCA_SUCCESS);
	parts.value = mdesc;
	parts.value_len = mlen;
	size_t flen = sync_event_desc_encode(&parts, forged, sizeof(forged));
	assert_true(flen > 0);
	imp = NULL;
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_create_from_export(dpu, forged, flen, &imp), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("read-only");
	assert_null(imp);
	assert_int_equal(doca_mmap_destroy(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(real), DOCA_SUCCESS);

	assert_int_equal(ferry_mem_free_shared(shared), 0);
	assert_int_equal(doca_dev_close(dpu), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(host), DOCA_SUCCESS);
}

/* Untrusted descriptors: every malformed one is refused with a line, none crashes. */
static void test_rogue_descriptors(void **state)
{
	struct doca_dev *host = host_dev();
	struct doca_sync_event *ev = new_event(), *imp = NULL;
	struct doca_mmap *mmap = NULL;
	const uint8_t *data = NULL;
	const void *mdesc = NULL;
	size_t sz = 0, mlen = 0;
	uint8_t buf[SE_DESC_MAX_LEN + 8];
	struct se_desc_parts parts, bad;
	const char *why = NULL;
	static uint8_t page[8192] __attribute__((aligned(4096)));

	(void)state;
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, host, &data, &sz), DOCA_SUCCESS);

	/* The codec's own checks. */
	assert_int_equal(sync_event_desc_decode(data, sz, &parts, &why), DOCA_SUCCESS);
	assert_int_equal(parts.block_len, sz - SE_DESC_HDR_LEN);
	assert_null(parts.value);
	bad = parts;
	bad.block_len = 0;
	assert_int_equal(sync_event_desc_encode(&bad, buf, sizeof(buf)), 0);
	bad.block_len = SE_DESC_MAX_INNER + 1;
	assert_int_equal(sync_event_desc_encode(&bad, buf, sizeof(buf)), 0);
	bad = parts;
	bad.value = parts.block;
	bad.value_len = 0;
	assert_int_equal(sync_event_desc_encode(&bad, buf, sizeof(buf)), 0);
	assert_int_equal(sync_event_desc_encode(&parts, buf, 4), 0);
	assert_int_equal(sync_event_desc_decode(data, 3, &bad, &why), DOCA_ERROR_INVALID_VALUE);
	/* Both parts: they come back where they were put. */
	bad = parts;
	bad.value = parts.block;
	bad.value_len = 7;
	size_t both = sync_event_desc_encode(&bad, buf, sizeof(buf));
	assert_int_equal(both, sz + 4 + 7);
	assert_int_equal(sync_event_desc_decode(buf, both, &bad, &why), DOCA_SUCCESS);
	assert_int_equal(bad.block_len, parts.block_len);
	assert_ptr_equal(bad.value, buf + sz + 4);
	assert_int_equal(bad.value_len, 7);
	assert_int_equal(sync_event_desc_decode(buf, both - 1, &bad, &why), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(sync_event_desc_decode(buf, sz + 2, &bad, &why), DOCA_ERROR_INVALID_VALUE);

	/* Truncated, padded, bad magic, version, reserved bits, inner length. */
	for (size_t cut = 0; cut < sz; cut += 7) {
		ferry_test_log_reset();
		assert_int_equal(doca_sync_event_create_from_export(host, data, cut, &imp), DOCA_ERROR_INVALID_VALUE);
		assert_logged("descriptor refused");
	}
	memcpy(buf, data, sz);
	buf[sz] = 0;
	assert_int_equal(doca_sync_event_create_from_export(host, buf, sz + 1, &imp), DOCA_ERROR_INVALID_VALUE);
	memcpy(buf, data, sz);
	buf[0] ^= 1;
	assert_int_equal(doca_sync_event_create_from_export(host, buf, sz, &imp), DOCA_ERROR_INVALID_VALUE);
	memcpy(buf, data, sz);
	buf[4] = 9;
	assert_int_equal(doca_sync_event_create_from_export(host, buf, sz, &imp), DOCA_ERROR_UNSUPPORTED_VERSION);
	memcpy(buf, data, sz);
	buf[6] = 1;
	assert_int_equal(doca_sync_event_create_from_export(host, buf, sz, &imp), DOCA_ERROR_INVALID_VALUE);
	memcpy(buf, data, sz);
	buf[8] = 0xFF;
	buf[9] = 0xFF;
	assert_int_equal(doca_sync_event_create_from_export(host, buf, sz, &imp), DOCA_ERROR_INVALID_VALUE);
	/* A flipped byte in the memory descriptor: its checksum or identity fails. */
	for (size_t i = SE_DESC_HDR_LEN; i < sz; i += 5) {
		memcpy(buf, data, sz);
		buf[i] ^= 0x40;
		ferry_test_log_reset();
		assert_true(doca_sync_event_create_from_export(host, buf, sz, &imp) != DOCA_SUCCESS);
		assert_null(imp);
	}
	/* A raw mmap descriptor is not an event's. */
	assert_int_equal(doca_mmap_create(&mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(mmap, host), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(mmap, page, sizeof(page)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_PCI_READ_ONLY), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_pci(mmap, host, &mdesc, &mlen), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_sync_event_create_from_export(host, mdesc, mlen, &imp), DOCA_ERROR_INVALID_VALUE);
	assert_logged("not a sync event descriptor");
	/* Wrapped as one: a read-only range, not shareable memory: refused by the link or by the event. */
	struct se_desc_parts wrapped = {mdesc, mlen, NULL, 0, false};
	size_t wlen = sync_event_desc_encode(&wrapped, buf, sizeof(buf));
	assert_true(wlen > 0);
	ferry_test_log_reset();
	assert_true(doca_sync_event_create_from_export(host, buf, wlen, &imp) != DOCA_SUCCESS);
	assert_null(imp);
	assert_int_equal(doca_mmap_destroy(mmap), DOCA_SUCCESS);
	/* Random bytes. */
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (int round = 0; round < 200; round++) {
		size_t len = (size_t)(x % sizeof(buf));
		for (size_t i = 0; i < len; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = (uint8_t)x;
		}
		if (len >= 4 && (round & 1)) /* half of them get past the magic */
			memcpy(buf, data, 4);
		assert_true(doca_sync_event_create_from_export(host, buf, len, &imp) != DOCA_SUCCESS);
	}
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(host), DOCA_SUCCESS);
}

/* ---- allocation failures (ferry_test_alloc.h): NO_MEMORY with a line, nothing kept ---- */

struct alloc_arg {
	struct doca_dev *dev;
	struct doca_sync_event *exporter;
	struct doca_sync_event *out;
	const uint8_t *data;
	size_t sz;
	struct ctx_fixture f;
};

static doca_error_t create_attempt(void *arg)
{
	return doca_sync_event_create(&((struct alloc_arg *)arg)->out);
}

static doca_error_t import_attempt(void *arg)
{
	struct alloc_arg *a = arg;

	return doca_sync_event_create_from_export(a->dev, a->data, a->sz, &a->out);
}

static void out_is_null(void *arg)
{
	assert_null(((struct alloc_arg *)arg)->out);
}

static void out_destroy(void *arg)
{
	struct alloc_arg *a = arg;

	assert_non_null(a->out);
	assert_int_equal(doca_sync_event_destroy(a->out), DOCA_SUCCESS);
	a->out = NULL;
}

static void export_prepare(void *arg)
{
	struct alloc_arg *a = arg;

	assert_int_equal(doca_sync_event_create(&a->exporter), DOCA_SUCCESS);
}

static doca_error_t export_attempt(void *arg)
{
	struct alloc_arg *a = arg;

	return doca_sync_event_export_to_remote_pci(a->exporter, a->dev, &a->data, &a->sz);
}

static void export_cleanup(void *arg)
{
	struct alloc_arg *a = arg;

	assert_int_equal(doca_sync_event_destroy(a->exporter), DOCA_SUCCESS);
	a->exporter = NULL;
}

static void test_alloc_failures(void **state)
{
	struct alloc_arg a = {.dev = host_dev()};
	struct ferry_test_alloc_walk create = {.call = "doca_sync_event_create",
					       .logged = "doca_sync_event_create: no memory",
					       .attempt = create_attempt,
					       .failed = out_is_null,
					       .succeeded = out_destroy,
					       .arg = &a};
	struct ferry_test_alloc_walk import = {.call = "doca_sync_event_create_from_export",
					       .logged = "doca_sync_event_create_from_export: no memory",
					       .attempt = import_attempt,
					       .failed = out_is_null,
					       .succeeded = out_destroy,
					       .arg = &a};
	struct ferry_test_alloc_walk export = {.call = "doca_sync_event_export_to_remote_pci",
					       .logged = "doca_sync_event_export_to_remote_pci: no memory",
					       .prepare = export_prepare,
					       .attempt = export_attempt,
					       .cleanup = export_cleanup,
					       .arg = &a};

	(void)state;
	/* The event (its shared block comes from ferry_mem_alloc_shared, outside the hook). */
	assert_int_equal(ferry_test_alloc_walk(&create), 1);
	/* The descriptor's bytes (the link's export is its own business). */
	assert_int_equal(ferry_test_alloc_walk(&export), 1);
	/* The importer's event, after the import (which must be closed again). */
	assert_int_equal(doca_sync_event_create(&a.exporter), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_export_to_remote_pci(a.exporter, a.dev, &a.data, &a.sz), DOCA_SUCCESS);
	assert_int_equal(ferry_test_alloc_walk(&import), 1);
	assert_int_equal(doca_sync_event_destroy(a.exporter), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(a.dev), DOCA_SUCCESS);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_no_dpa_gpu_net),
		cmocka_unit_test(test_state_rules),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_caller_storage),
		cmocka_unit_test(test_doca_buf_storage),
		cmocka_unit_test(test_waits_with_updater),
		cmocka_unit_test(test_waiter_sleeps),
		cmocka_unit_test(test_many_waiters),
		cmocka_unit_test(test_ping_pong_threads),
		cmocka_unit_test(test_task_conf_rules),
		cmocka_unit_test(test_tasks),
		cmocka_unit_test(test_task_wakes_pe),
		cmocka_unit_test(test_task_wakes_pe_other_handle),
		cmocka_unit_test(test_export_import),
		cmocka_unit_test(test_export_caller_storage),
		cmocka_unit_test(test_rogue_descriptors),
		cmocka_unit_test(test_alloc_failures),
	};
	char domain[64];

	snprintf(domain, sizeof(domain), "sync-event-%d", (int)getpid());
	setenv("FERRY_DOMAIN", domain, 1);
	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
