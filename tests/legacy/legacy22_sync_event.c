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
 * samples do. The export's bytes travel over the Comm Channel, as in the
 * samples ("sync_event_cc"). Exit 0 when both sides saw what they waited for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_comm_channel.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_sync_event.h>

#include "legacy22_util.h"

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
static struct doca_dev_rep *dpu_rep;

struct side {
	struct doca_dev *dev;
	struct doca_sync_event *se;
	struct doca_ctx *ctx;
	struct doca_workq *wq;
};

static struct doca_dev *open_by_pci(const char *pci)
{
	struct doca_dev *dev = l22_open_dev(pci);

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

static const struct timespec cc_nap = {0, 10000};

/* The host's end: connect to the DPU's service and wait until it answers. */
static struct doca_comm_channel_addr_t *cc_connect(struct doca_comm_channel_ep_t **ep, struct doca_dev *dev)
{
	struct doca_comm_channel_addr_t *peer;
	doca_error_t r;
	int tries = 0;

	CHECK(doca_comm_channel_ep_create(ep));
	CHECK(doca_comm_channel_ep_set_device(*ep, dev));
	CHECK(doca_comm_channel_ep_set_max_msg_size(*ep, 1024));
	CHECK(doca_comm_channel_ep_set_send_queue_size(*ep, 8));
	CHECK(doca_comm_channel_ep_set_recv_queue_size(*ep, 8));
	CHECK(doca_comm_channel_ep_connect(*ep, "sync_event_cc", &peer));
	while ((r = doca_comm_channel_peer_addr_update_info(peer)) == DOCA_ERROR_CONNECTION_INPROGRESS &&
	       tries++ < 300000)
		nanosleep(&cc_nap, NULL);
	CHECK(r);
	return peer;
}

static int host_side(void)
{
	struct doca_comm_channel_ep_t *ep;
	struct doca_comm_channel_addr_t *peer;
	doca_error_t r;
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
	if (len > 1024)
		return 1;
	peer = cc_connect(&ep, s.dev);
	while ((r = doca_comm_channel_ep_sendto(ep, blob, len, DOCA_CC_MSG_FLAG_NONE, peer)) == DOCA_ERROR_AGAIN)
		nanosleep(&cc_nap, NULL);
	CHECK(r);
	update(&s, 1, 0);
	wait_gt(&s, 1);
	CHECK(doca_sync_event_get(s.se, &value));
	CHECK(doca_comm_channel_ep_disconnect(ep, peer));
	CHECK(doca_comm_channel_ep_destroy(ep));
	stop_event(&s);
	if (value != 2) {
		DOCA_LOG_ERR("host saw %llu, expected 2", (unsigned long long)value);
		return 1;
	}
	return 0;
}

/* The DPU's end: listen with the device and its representor of the host, take the blob. */
static size_t cc_receive(struct doca_dev *dev, struct doca_comm_channel_ep_t **ep, uint8_t *blob, size_t cap)
{
	struct doca_dev_rep *rep = l22_open_rep(dev, "b1:00.0");
	struct doca_comm_channel_addr_t *peer = NULL;
	size_t len = cap;
	doca_error_t r;
	int tries = 0;

	CHECK(doca_comm_channel_ep_create(ep));
	CHECK(doca_comm_channel_ep_set_device(*ep, dev));
	CHECK(doca_comm_channel_ep_set_device_rep(*ep, rep));
	CHECK(doca_comm_channel_ep_set_max_msg_size(*ep, 1024));
	CHECK(doca_comm_channel_ep_set_send_queue_size(*ep, 8));
	CHECK(doca_comm_channel_ep_set_recv_queue_size(*ep, 8));
	CHECK(doca_comm_channel_ep_listen(*ep, "sync_event_cc"));
	/* As the sample: len is not reset between tries (an AGAIN leaves it alone). */
	while ((r = doca_comm_channel_ep_recvfrom(*ep, blob, &len, DOCA_CC_MSG_FLAG_NONE, &peer)) == DOCA_ERROR_AGAIN &&
	       tries++ < 300000)
		nanosleep(&cc_nap, NULL);
	CHECK(r);
	dpu_rep = rep;
	return len;
}

static int dpu_side(void)
{
	struct side s = {0};
	struct doca_comm_channel_ep_t *ep;
	uint8_t blob[1024];
	size_t len;

	s.dev = open_by_pci("03:00.0");
	CHECK(doca_sync_event_get_create_from_export_supported(doca_dev_as_devinfo(s.dev)));
	len = cc_receive(s.dev, &ep, blob, sizeof(blob));
	CHECK(doca_sync_event_create_from_export(s.dev, blob, len, &s.se));
	start_event(&s);
	wait_gt(&s, 0);
	update(&s, 2, 1);
	CHECK(doca_comm_channel_ep_destroy(ep));
	CHECK(doca_dev_rep_close(dpu_rep));
	stop_event(&s);
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0, rc;
	pid_t pid;

	if (argc != 3)
		return 2;
	async_mode = strcmp(argv[1], "async") == 0;
	add_mode = strcmp(argv[2], "add") == 0;
	if (doca_log_create_standard_backend() != DOCA_SUCCESS)
		return 1;
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		_exit(dpu_side());
	rc = host_side();
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		DOCA_LOG_ERR("DPU side failed (status %#x)", status);
		return 1;
	}
	if (rc == 0)
		printf("sync event %s %s: ok\n", argv[1], argv[2]);
	return rc;
}
