/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy22_sync_event.c - DOCA 2.2's sync event across a host and a DPU
 * process, as that generation's sync_event_host/sync_event_dpu samples use it:
 * the host exports the event to the DPU, the DPU waits for the host's update
 * and answers with its own, the host waits for that. Built against the 2.2
 * headers only.
 *
 *   legacy22_sync_event sync|async set|add
 *
 * sync: doca_sync_event_start and the blocking calls. async: the event as a
 * context on a work queue, one job at a time, polled every 10 us as the
 * samples do. The export's bytes travel through a pipe (the samples use the
 * Comm Channel). Exit 0 when both sides saw what they waited for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_sync_event.h>

DOCA_LOG_REGISTER(LEGACY22_SYNC_EVENT);

#define CHECK(call)                                                                                          \
	do {                                                                                                 \
		doca_error_t r_ = (call);                                                                    \
		if (r_ != DOCA_SUCCESS) {                                                                    \
			DOCA_LOG_ERR("%s:%d: %s: %s", __FILE__, __LINE__, #call, doca_get_error_string(r_)); \
			exit(1);                                                                             \
		}                                                                                            \
	} while (0)

static int async_mode, add_mode;

struct side {
	struct doca_dev *dev;
	struct doca_sync_event *se;
	struct doca_ctx *ctx;
	struct doca_workq *wq;
};

static struct doca_dev *open_by_pci(const char *pci)
{
	struct doca_devinfo **list;
	struct doca_dev *dev = NULL;
	uint32_t n;

	CHECK(doca_devinfo_list_create(&list, &n));
	for (uint32_t i = 0; i < n && dev == NULL; i++) {
		uint8_t eq = 0;

		if (doca_devinfo_get_is_pci_addr_equal(list[i], pci, &eq) == DOCA_SUCCESS && eq)
			CHECK(doca_dev_open(list[i], &dev));
	}
	CHECK(doca_devinfo_list_destroy(list));
	if (dev == NULL)
		exit(1);
	if (async_mode)
		CHECK(doca_sync_event_job_get_supported(doca_dev_as_devinfo(dev), DOCA_SYNC_EVENT_JOB_WAIT_GT));
	return dev;
}

/* Start the event one way or the other, as the samples' start_se does. */
static void start_event(struct side *s)
{
	if (!async_mode) {
		CHECK(doca_sync_event_start(s->se));
		return;
	}
	s->ctx = doca_sync_event_as_ctx(s->se);
	if (s->ctx == NULL)
		exit(1);
	CHECK(doca_ctx_start(s->ctx));
	CHECK(doca_workq_create(4, &s->wq));
	CHECK(doca_ctx_workq_add(s->ctx, s->wq));
}

static void stop_event(struct side *s)
{
	if (async_mode) {
		/* The context still runs: the event cannot go yet. */
		if (doca_sync_event_destroy(s->se) == DOCA_SUCCESS)
			exit(3);
		CHECK(doca_ctx_workq_rm(s->ctx, s->wq));
		CHECK(doca_workq_destroy(s->wq));
		CHECK(doca_ctx_stop(s->ctx));
	} else {
		CHECK(doca_sync_event_stop(s->se));
	}
	CHECK(doca_sync_event_destroy(s->se));
	CHECK(doca_dev_close(s->dev));
}

/* Submit one job and poll for its event every 10 us, at most ~100,000 times. */
static void run_job(struct side *s, struct doca_job *job)
{
	struct doca_event ev = {0};
	struct timespec nap = {0, 10000};
	doca_error_t r = DOCA_ERROR_AGAIN;

	job->ctx = s->ctx;
	job->flags = DOCA_JOB_FLAGS_NONE;
	CHECK(doca_workq_submit(s->wq, job));
	for (int polls = 0; polls < 100000 && r == DOCA_ERROR_AGAIN; polls++) {
		r = doca_workq_progress_retrieve(s->wq, &ev, DOCA_WORKQ_RETRIEVE_FLAGS_NONE);
		if (r == DOCA_ERROR_AGAIN)
			nanosleep(&nap, NULL);
	}
	CHECK(r);
	CHECK((doca_error_t)ev.result.u64);
	if (ev.type != job->type)
		exit(4);
}

static void wait_gt(struct side *s, uint64_t value)
{
	if (async_mode) {
		struct doca_sync_event_job_wait job = {
			.base.type = DOCA_SYNC_EVENT_JOB_WAIT_GT, .value = value, .mask = UINT64_MAX};

		run_job(s, &job.base);
	} else {
		CHECK(doca_sync_event_wait_gt_yield(s->se, value, UINT64_MAX));
	}
}

/* Set to @p set, or add 1 and check the value before was @p before. */
static void update(struct side *s, uint64_t set, uint64_t before)
{
	uint64_t fetched = 99;

	if (!async_mode) {
		if (add_mode)
			CHECK(doca_sync_event_update_add(s->se, 1, &fetched));
		else
			CHECK(doca_sync_event_update_set(s->se, set));
	} else if (add_mode) {
		struct doca_sync_event_job_update_add job = {
			.base.type = DOCA_SYNC_EVENT_JOB_UPDATE_ADD, .value = 1, .fetched = &fetched};

		run_job(s, &job.base);
	} else {
		struct doca_sync_event_job_update_set job = {.base.type = DOCA_SYNC_EVENT_JOB_UPDATE_SET, .value = set};

		run_job(s, &job.base);
	}
	if (add_mode && fetched != before) {
		DOCA_LOG_ERR("update_add fetched %llu, expected %llu", (unsigned long long)fetched,
			     (unsigned long long)before);
		exit(5);
	}
}

static int host_side(int out_fd)
{
	struct side s = {0};
	const uint8_t *blob;
	size_t len;
	uint64_t value = 0;

	s.dev = open_by_pci("b1:00.0");
	CHECK(doca_sync_event_get_export_to_dpu_supported(doca_dev_as_devinfo(s.dev)));
	CHECK(doca_sync_event_create(&s.se));
	CHECK(doca_sync_event_publisher_add_location_dpu(s.se));
	CHECK(doca_sync_event_subscriber_add_location_cpu(s.se, s.dev));
	start_event(&s);
	CHECK(doca_sync_event_export_to_dpu(s.se, s.dev, &blob, &len));
	if (len > 1024 || write(out_fd, &len, sizeof(len)) != (ssize_t)sizeof(len) ||
	    write(out_fd, blob, len) != (ssize_t)len)
		return 1;
	update(&s, 1, 0);
	wait_gt(&s, 1);
	CHECK(doca_sync_event_get(s.se, &value));
	stop_event(&s);
	if (value != 2) {
		DOCA_LOG_ERR("host saw %llu, expected 2", (unsigned long long)value);
		return 1;
	}
	return 0;
}

static int dpu_side(int in_fd)
{
	struct side s = {0};
	uint8_t blob[1024];
	size_t len = 0;

	s.dev = open_by_pci("03:00.0");
	CHECK(doca_sync_event_get_create_from_export_supported(doca_dev_as_devinfo(s.dev)));
	if (read(in_fd, &len, sizeof(len)) != (ssize_t)sizeof(len) || len > sizeof(blob) ||
	    read(in_fd, blob, len) != (ssize_t)len)
		return 1;
	CHECK(doca_sync_event_create_from_export(s.dev, blob, len, &s.se));
	start_event(&s);
	wait_gt(&s, 0);
	update(&s, 2, 1);
	stop_event(&s);
	return 0;
}

int main(int argc, char **argv)
{
	int fds[2], status = 0, rc;
	pid_t pid;

	if (argc != 3)
		return 2;
	async_mode = strcmp(argv[1], "async") == 0;
	add_mode = strcmp(argv[2], "add") == 0;
	if (doca_log_create_standard_backend() != DOCA_SUCCESS || pipe(fds) != 0)
		return 1;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		_exit(dpu_side(fds[0]));
	}
	close(fds[0]);
	rc = host_side(fds[1]);
	close(fds[1]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		DOCA_LOG_ERR("DPU side failed (status %#x)", status);
		return 1;
	}
	if (rc == 0)
		printf("sync event %s %s: ok\n", argv[1], argv[2]);
	return rc;
}
