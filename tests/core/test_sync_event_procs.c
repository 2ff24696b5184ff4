/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sync_event_procs.c - one sync event shared by two processes, the way
 * DOCA's sync_event_local_pci / sync_event_remote_pci pair uses it: the host
 * side (this process) creates and exports the event; the DPU side (this
 * program run again with --child, after fork and exec) creates it from the
 * export received over a pipe. They ping-pong values with sleeping waits,
 * with tasks through a PE, and check that a waiter sleeps, that a PE's
 * notification handle wakes on the other process's update, and that the
 * importer outlives the exporter.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>

#include "ferry_test.h"
#include "ferry_test_dev.h"

#include <doca_ctx.h>
#include <doca_pe.h>
#include <doca_sync_event.h>

#define ROUNDS 5000

static char *self_path;

/* execv takes char *const[]; it does not write the strings. */
#define ARG(s) ((char *)(uintptr_t)(s))

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

static bool write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		b += w;
		n -= (size_t)w;
	}
	return true;
}

static bool read_all(int fd, void *p, size_t n)
{
	uint8_t *b = p;

	while (n > 0) {
		ssize_t r = read(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		b += r;
		n -= (size_t)r;
	}
	return true;
}

/* ---- the DPU side (child) ---- */

#define CHECK(cond)                                                                             \
	do {                                                                                    \
		if (!(cond)) {                                                                  \
			fprintf(stderr, "child %s:%d: %s failed\n", __FILE__, __LINE__, #cond); \
			_exit(10);                                                              \
		}                                                                               \
	} while (0)

static int task_done;

static void any_ok(struct doca_task *t)
{
	(void)t;
	task_done = 1;
}

static void any_err(struct doca_task *t)
{
	(void)t;
	task_done = -1;
}

static void wait_eq_ok(struct doca_sync_event_task_wait_eq *t, union doca_data a, union doca_data b)
{
	(void)a, (void)b;
	any_ok(doca_sync_event_task_wait_eq_as_doca_task(t));
}
static void wait_eq_err(struct doca_sync_event_task_wait_eq *t, union doca_data a, union doca_data b)
{
	(void)a, (void)b;
	any_err(doca_sync_event_task_wait_eq_as_doca_task(t));
}
static void notify_add_ok(struct doca_sync_event_task_notify_add *t, union doca_data a, union doca_data b)
{
	(void)a, (void)b;
	any_ok(doca_sync_event_task_notify_add_as_doca_task(t));
}
static void notify_add_err(struct doca_sync_event_task_notify_add *t, union doca_data a, union doca_data b)
{
	(void)a, (void)b;
	any_err(doca_sync_event_task_notify_add_as_doca_task(t));
}

/* Submit, then progress until the callback ran (at most 10 s): the samples' helper, with no sleep. */
static void run_task(struct doca_pe *pe, struct doca_task *task)
{
	uint64_t deadline = now_ns(CLOCK_MONOTONIC) + 10000000000ull;

	task_done = 0;
	CHECK(doca_task_submit(task) == DOCA_SUCCESS);
	while (task_done == 0) {
		if (doca_pe_progress(pe) == 0) {
			CHECK(now_ns(CLOCK_MONOTONIC) < deadline);
			sched_yield();
		}
	}
	CHECK(task_done == 1);
}

static int child_main(const char *mode, int rfd, int wfd)
{
	struct doca_dev *dev = ferry_test_open_dev("03:00.0", doca_sync_event_cap_is_create_from_export_supported);
	struct doca_sync_event *ev = NULL;
	uint8_t blob[1024];
	uint32_t len = 0;
	uint64_t v = 0, fetched = 0;
	char ok = 'k';

	CHECK(dev != NULL);
	CHECK(read_all(rfd, &len, sizeof(len)) && len <= sizeof(blob) && read_all(rfd, blob, len));
	/* A damaged copy is refused before the real one is used. */
	blob[len / 2] ^= 0x5A;
	CHECK(doca_sync_event_create_from_export(dev, blob, len, &ev) != DOCA_SUCCESS && ev == NULL);
	blob[len / 2] ^= 0x5A;
	CHECK(doca_sync_event_create_from_export(dev, blob, len, &ev) == DOCA_SUCCESS);

	if (strcmp(mode, "sync") == 0) {
		CHECK(doca_sync_event_start(ev) == DOCA_SUCCESS);
		for (uint64_t i = 0; i < ROUNDS; i++) {
			CHECK(doca_sync_event_wait_eq(ev, 2 * i + 1, UINT64_MAX) == DOCA_SUCCESS);
			CHECK(doca_sync_event_update_set(ev, 2 * i + 2) == DOCA_SUCCESS);
		}
	} else if (strcmp(mode, "async") == 0) {
		struct doca_ctx *ctx = doca_sync_event_as_ctx(ev);
		struct doca_pe *pe = NULL;
		struct doca_sync_event_task_wait_eq *we = NULL;
		struct doca_sync_event_task_notify_add *na = NULL;
		union doca_data ud = {.u64 = 0};
		enum doca_ctx_states st;

		CHECK(ctx != NULL && doca_pe_create(&pe) == DOCA_SUCCESS);
		CHECK(doca_pe_connect_ctx(pe, ctx) == DOCA_SUCCESS);
		CHECK(doca_sync_event_task_wait_eq_set_conf(ev, wait_eq_ok, wait_eq_err, 1) == DOCA_SUCCESS);
		CHECK(doca_sync_event_task_notify_add_set_conf(ev, notify_add_ok, notify_add_err, 1) == DOCA_SUCCESS);
		CHECK(doca_ctx_start(ctx) == DOCA_SUCCESS);
		CHECK(doca_sync_event_task_wait_eq_alloc_init(ev, 0, UINT64_MAX, ud, &we) == DOCA_SUCCESS);
		CHECK(doca_sync_event_task_notify_add_alloc_init(ev, 1, &fetched, ud, &na) == DOCA_SUCCESS);
		for (uint64_t i = 0; i < ROUNDS / 5; i++) {
			doca_sync_event_task_wait_eq_set_wait_val(we, 2 * i + 1);
			run_task(pe, doca_sync_event_task_wait_eq_as_doca_task(we));
			run_task(pe, doca_sync_event_task_notify_add_as_doca_task(na));
			CHECK(fetched == 2 * i + 1);
		}
		doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(we));
		doca_task_free(doca_sync_event_task_notify_add_as_doca_task(na));
		(void)doca_ctx_stop(ctx);
		do {
			(void)doca_pe_progress(pe);
			CHECK(doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS);
		} while (st != DOCA_CTX_STATE_IDLE);
		CHECK(doca_sync_event_destroy(ev) == DOCA_SUCCESS);
		CHECK(doca_pe_destroy(pe) == DOCA_SUCCESS);
		ev = NULL;
	} else if (strcmp(mode, "epoll") == 0) {
		/* Event-driven: a wait task, the PE's handle armed, poll() until the parent's update. */
		struct doca_ctx *ctx = doca_sync_event_as_ctx(ev);
		struct doca_pe *pe = NULL;
		struct doca_sync_event_task_wait_eq *we = NULL;
		union doca_data ud = {.u64 = 0};
		doca_notification_handle_t h;
		enum doca_ctx_states st;

		CHECK(ctx != NULL && doca_pe_create(&pe) == DOCA_SUCCESS);
		CHECK(doca_pe_connect_ctx(pe, ctx) == DOCA_SUCCESS);
		CHECK(doca_sync_event_task_wait_eq_set_conf(ev, wait_eq_ok, wait_eq_err, 1) == DOCA_SUCCESS);
		CHECK(doca_ctx_start(ctx) == DOCA_SUCCESS);
		CHECK(doca_pe_get_notification_handle(pe, &h) == DOCA_SUCCESS);
		for (uint64_t i = 1; i <= 3; i++) {
			struct pollfd pfd = {.fd = (int)h, .events = POLLIN};

			task_done = 0;
			CHECK(doca_sync_event_task_wait_eq_alloc_init(ev, i, UINT64_MAX, ud, &we) == DOCA_SUCCESS);
			CHECK(doca_task_submit(doca_sync_event_task_wait_eq_as_doca_task(we)) == DOCA_SUCCESS);
			CHECK(doca_pe_progress(pe) == 0);
			CHECK(doca_pe_request_notification(pe) == DOCA_SUCCESS);
			CHECK(write_all(wfd, &ok, 1));
			CHECK(poll(&pfd, 1, 10000) == 1);
			CHECK(doca_pe_clear_notification(pe, h) == DOCA_SUCCESS);
			while (task_done == 0)
				(void)doca_pe_progress(pe);
			CHECK(task_done == 1);
			doca_task_free(doca_sync_event_task_wait_eq_as_doca_task(we));
		}
		(void)doca_ctx_stop(ctx);
		do {
			(void)doca_pe_progress(pe);
			CHECK(doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS);
		} while (st != DOCA_CTX_STATE_IDLE);
		CHECK(doca_sync_event_destroy(ev) == DOCA_SUCCESS);
		CHECK(doca_pe_destroy(pe) == DOCA_SUCCESS);
		ev = NULL;
	} else if (strcmp(mode, "sleep") == 0) {
		/* Wait for the parent's update, sleeping; report the CPU time spent. */
		CHECK(doca_sync_event_start(ev) == DOCA_SUCCESS);
		CHECK(write_all(wfd, &ok, 1));
		uint64_t t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		CHECK(doca_sync_event_wait_gt(ev, 0, UINT64_MAX) == DOCA_SUCCESS);
		uint64_t cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
		CHECK(write_all(wfd, &cpu, sizeof(cpu)));
	} else if (strcmp(mode, "outlive") == 0) {
		/* The exporter destroys its event and exits; this side's value lives on. */
		CHECK(doca_sync_event_start(ev) == DOCA_SUCCESS);
		CHECK(doca_sync_event_update_set(ev, 5) == DOCA_SUCCESS);
		CHECK(write_all(wfd, &ok, 1));
		CHECK(read_all(rfd, &ok, 1)); /* the exporter is gone */
		CHECK(doca_sync_event_get(ev, &v) == DOCA_SUCCESS && v == 6);
		CHECK(doca_sync_event_update_add(ev, 1, &fetched) == DOCA_SUCCESS && fetched == 6);
		CHECK(doca_sync_event_wait_eq(ev, 7, UINT64_MAX) == DOCA_SUCCESS); /* holds: no sleep */
	} else {
		return 2;
	}
	if (ev != NULL) {
		CHECK(doca_sync_event_stop(ev) == DOCA_SUCCESS);
		CHECK(doca_sync_event_destroy(ev) == DOCA_SUCCESS);
	}
	CHECK(doca_dev_close(dev) == DOCA_SUCCESS);
	return 0;
}

/* ---- the host side (parent) ---- */

struct peer {
	pid_t pid;
	int to_child;   /* parent writes */
	int from_child; /* parent reads */
};

static void peer_start(struct peer *p, const char *mode)
{
	int down[2], up[2];
	char rfd[16], wfd[16];

	assert_int_equal(pipe(down), 0);
	assert_int_equal(pipe(up), 0);
	snprintf(rfd, sizeof(rfd), "%d", down[0]);
	snprintf(wfd, sizeof(wfd), "%d", up[1]);
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		char *argv[] = {self_path, ARG("--child"), ARG(mode), rfd, wfd, NULL};

		close(down[1]);
		close(up[0]);
		alarm(60); /* a child never outlives a stuck test */
		execv(self_path, argv);
		_exit(127);
	}
	close(down[0]);
	close(up[1]);
	p->to_child = down[1];
	p->from_child = up[0];
}

static void peer_end(struct peer *p)
{
	int status = 0;

	close(p->to_child);
	close(p->from_child);
	assert_int_equal(waitpid(p->pid, &status, 0), p->pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("child ended with status 0x%x", status);
}

static struct doca_sync_event *export_event(struct doca_dev *dev, struct peer *p)
{
	struct doca_sync_event *ev = NULL;
	const uint8_t *data = NULL;
	size_t sz = 0;
	uint32_t len;

	assert_int_equal(doca_sync_event_create(&ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_publisher_location_remote_pci(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_add_subscriber_location_cpu(ev, dev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_start(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_export_to_remote_pci(ev, dev, &data, &sz), DOCA_SUCCESS);
	len = (uint32_t)sz;
	assert_true(write_all(p->to_child, &len, sizeof(len)));
	assert_true(write_all(p->to_child, data, sz));
	return ev;
}

static struct doca_dev *open_host(void)
{
	struct doca_dev *dev = ferry_test_open_dev("b1:00.0", doca_sync_event_cap_is_export_to_remote_pci_supported);

	assert_non_null(dev);
	return dev;
}

static void ping_pong(const char *mode, uint64_t rounds)
{
	struct doca_dev *dev = open_host();
	struct peer p;
	uint64_t fetched = 0, t0;

	peer_start(&p, mode);
	struct doca_sync_event *ev = export_event(dev, &p);
	t0 = now_ns(CLOCK_MONOTONIC);
	for (uint64_t i = 0; i < rounds; i++) {
		assert_int_equal(doca_sync_event_update_add(ev, 1, &fetched), DOCA_SUCCESS);
		assert_int_equal(fetched, 2 * i);
		assert_int_equal(doca_sync_event_wait_eq(ev, 2 * i + 2, UINT64_MAX), DOCA_SUCCESS);
	}
	print_message("%s: %llu round trips, %.1f us each\n", mode, (unsigned long long)rounds,
		      (now_ns(CLOCK_MONOTONIC) - t0) / 1e3 / (double)rounds);
	peer_end(&p);
	assert_int_equal(doca_sync_event_stop(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

static void test_ping_pong_sync(void **state)
{
	(void)state;
	ping_pong("sync", ROUNDS);
}

/* The DPU side waits and adds through tasks on a PE (cross-process: seen by polling). */
static void test_ping_pong_tasks(void **state)
{
	(void)state;
	ping_pong("async", ROUNDS / 5);
}

/* A waiter in the other process sleeps until this one's update, and wakes at once. */
static void test_remote_waiter_sleeps(void **state)
{
	struct doca_dev *dev = open_host();
	struct peer p;
	uint64_t cpu = 0;
	char ok;

	(void)state;
	peer_start(&p, "sleep");
	struct doca_sync_event *ev = export_event(dev, &p);
	assert_true(read_all(p.from_child, &ok, 1));
	sleep_ms(400);
	assert_int_equal(doca_sync_event_update_set(ev, 1), DOCA_SUCCESS);
	assert_true(read_all(p.from_child, &cpu, sizeof(cpu)));
	print_message("remote waiter: %.2f ms CPU over ~400 ms\n", cpu / 1e6);
	assert_true(cpu < 40u * 1000000u);
	peer_end(&p);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

/* The DPU side waits on its PE's notification handle; updates from this process wake it. */
static void test_remote_pe_woken(void **state)
{
	struct doca_dev *dev = open_host();
	struct peer p;
	char ok;

	(void)state;
	peer_start(&p, "epoll");
	struct doca_sync_event *ev = export_event(dev, &p);
	for (uint64_t i = 1; i <= 3; i++) {
		assert_true(read_all(p.from_child, &ok, 1)); /* armed */
		sleep_ms(50);
		assert_int_equal(doca_sync_event_update_set(ev, i), DOCA_SUCCESS);
	}
	peer_end(&p);
	assert_int_equal(doca_sync_event_stop(ev), DOCA_SUCCESS);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

/* The exporter destroys its event; the importer keeps reading and writing the value. */
static void test_importer_outlives_exporter(void **state)
{
	struct doca_dev *dev = open_host();
	struct peer p;
	uint64_t fetched;
	char ok = 'k';

	(void)state;
	peer_start(&p, "outlive");
	struct doca_sync_event *ev = export_event(dev, &p);
	assert_true(read_all(p.from_child, &ok, 1));
	assert_int_equal(doca_sync_event_update_add(ev, 1, &fetched), DOCA_SUCCESS);
	assert_int_equal(fetched, 5);
	assert_int_equal(doca_sync_event_destroy(ev), DOCA_SUCCESS);
	assert_true(write_all(p.to_child, &ok, 1));
	peer_end(&p);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ping_pong_sync),
		cmocka_unit_test(test_ping_pong_tasks),
		cmocka_unit_test(test_remote_waiter_sleeps),
		cmocka_unit_test(test_remote_pe_woken),
		cmocka_unit_test(test_importer_outlives_exporter),
	};
	char domain[64];

	if (argc == 5 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2], atoi(argv[3]), atoi(argv[4]));
	self_path = realpath("/proc/self/exe", NULL);
	if (self_path == NULL)
		return 1;
	snprintf(domain, sizeof(domain), "sync-event-procs-%d", (int)getpid());
	setenv("FERRY_DOMAIN", domain, 1);
	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
