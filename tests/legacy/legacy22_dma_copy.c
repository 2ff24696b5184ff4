/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy22_dma_copy.c - a DOCA 2.2 program laid out as that generation's
 * dma_copy application: the host and DPU sides negotiate over the Comm
 * Channel (file size and side, the host's export descriptor, the buffer's
 * address and length, a status after each), then the DPU copies the file
 * with one DMA job from or into the host's buffer. Built against the 2.2
 * headers only.
 *
 *   legacy22_dma_copy <bytes>
 *
 * Runs both directions in turn (the file on the host, then on the DPU), the
 * DPU side as a child process that listens first, and compares every byte.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comm_channel.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>

#include "legacy22_util.h"

DOCA_LOG_REGISTER(LEGACY22_DMA_COPY);

#define SERVER_NAME "dma copy server"
#define HOST_PCI    "b1:00.0"
#define DPU_PCI     "03:00.0"
#define MAX_MSG     4080
#define QUEUE_SIZE  10
#define MAX_TRIES   200000 /* 10 us apart: 2 s for any one message */

#define CHECK(call)                                                                                          \
	do {                                                                                                 \
		doca_error_t r_ = (call);                                                                    \
		if (r_ != DOCA_SUCCESS) {                                                                    \
			DOCA_LOG_ERR("%s:%d: %s: %s", __FILE__, __LINE__, #call, doca_get_error_string(r_)); \
			exit(1);                                                                             \
		}                                                                                            \
	} while (0)

/* The first message each way: where the file is and how big. */
struct file_info {
	bool file_in_host;
	uint32_t file_size; /* network order */
};

struct channel {
	struct doca_comm_channel_ep_t *ep;
	struct doca_comm_channel_addr_t *peer;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
};

static const struct timespec nap = {0, 10000};

static void open_channel(struct channel *ch, bool dpu)
{
	CHECK(doca_comm_channel_ep_create(&ch->ep));
	ch->dev = l22_open_dev(dpu ? DPU_PCI : HOST_PCI);
	CHECK(doca_comm_channel_ep_set_device(ch->ep, ch->dev));
	CHECK(doca_comm_channel_ep_set_max_msg_size(ch->ep, MAX_MSG));
	CHECK(doca_comm_channel_ep_set_send_queue_size(ch->ep, QUEUE_SIZE));
	CHECK(doca_comm_channel_ep_set_recv_queue_size(ch->ep, QUEUE_SIZE));
	if (dpu) {
		ch->rep = l22_open_rep(ch->dev, HOST_PCI);
		CHECK(doca_comm_channel_ep_set_device_rep(ch->ep, ch->rep));
		CHECK(doca_comm_channel_ep_listen(ch->ep, SERVER_NAME));
		return;
	}
	CHECK(doca_comm_channel_ep_connect(ch->ep, SERVER_NAME, &ch->peer));
	for (int tries = 0;; tries++) {
		doca_error_t r = doca_comm_channel_peer_addr_update_info(ch->peer);

		if (r == DOCA_SUCCESS)
			break;
		if (r != DOCA_ERROR_CONNECTION_INPROGRESS || tries == MAX_TRIES) {
			DOCA_LOG_ERR("connecting: %s", doca_get_error_string(r));
			exit(1);
		}
		nanosleep(&nap, NULL);
	}
}

static void close_channel(struct channel *ch)
{
	if (ch->peer != NULL)
		CHECK(doca_comm_channel_ep_disconnect(ch->ep, ch->peer));
	CHECK(doca_comm_channel_ep_destroy(ch->ep));
	if (ch->rep != NULL)
		CHECK(doca_dev_rep_close(ch->rep));
	CHECK(doca_dev_close(ch->dev));
}

static void send_msg(struct channel *ch, const void *msg, size_t len)
{
	doca_error_t r;
	int tries = 0;

	while ((r = doca_comm_channel_ep_sendto(ch->ep, msg, len, DOCA_CC_MSG_FLAG_NONE, ch->peer)) ==
		       DOCA_ERROR_AGAIN &&
	       tries++ < MAX_TRIES)
		nanosleep(&nap, NULL);
	CHECK(r);
}

/* Exactly @p len bytes (the DPU side learns its peer from the first message). */
static void recv_msg(struct channel *ch, void *msg, size_t len)
{
	size_t got = len;
	doca_error_t r;
	int tries = 0;

	while ((r = doca_comm_channel_ep_recvfrom(ch->ep, msg, &got, DOCA_CC_MSG_FLAG_NONE, &ch->peer)) ==
		       DOCA_ERROR_AGAIN &&
	       tries++ < MAX_TRIES) {
		got = len;
		nanosleep(&nap, NULL);
	}
	CHECK(r);
	if (got != len) {
		DOCA_LOG_ERR("a message of %zu bytes where %zu were expected", got, len);
		exit(1);
	}
}

static void send_status(struct channel *ch, bool ok)
{
	send_msg(ch, &ok, sizeof(ok));
}

static void expect_status(struct channel *ch)
{
	bool ok = false;

	recv_msg(ch, &ok, sizeof(ok));
	if (!ok)
		exit(1);
}

static void fill(char *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (char)((i >> 8) * 7 + i * 131 + seed);
}

/* ---- host ---- */

static int host_side(size_t size, bool file_in_host, const char *expected)
{
	struct channel ch = {0};
	struct file_info info = {.file_in_host = file_in_host, .file_size = htonl((uint32_t)size)}, reply;
	struct doca_mmap *mmap;
	char *buf = file_in_host ? malloc(size) : calloc(1, size);
	const void *desc;
	size_t desc_len;
	uint64_t word;
	int bad;

	if (buf == NULL)
		return 1;
	if (file_in_host)
		memcpy(buf, expected, size);
	open_channel(&ch, false);
	send_msg(&ch, &info, sizeof(info));
	recv_msg(&ch, &reply, sizeof(reply));
	if (ntohl(reply.file_size) != size)
		return 1;
	CHECK(doca_mmap_create(NULL, &mmap));
	CHECK(doca_mmap_dev_add(mmap, ch.dev));
	CHECK(doca_mmap_set_permissions(mmap, file_in_host ? DOCA_ACCESS_DPU_READ_ONLY : DOCA_ACCESS_DPU_READ_WRITE));
	CHECK(doca_mmap_set_memrange(mmap, buf, size));
	CHECK(doca_mmap_start(mmap));
	CHECK(doca_mmap_export_dpu(mmap, ch.dev, &desc, &desc_len));
	send_msg(&ch, desc, desc_len);
	expect_status(&ch);
	word = htobe64((uint64_t)(uintptr_t)buf);
	send_msg(&ch, &word, sizeof(word));
	expect_status(&ch);
	word = htobe64((uint64_t)size);
	send_msg(&ch, &word, sizeof(word));
	expect_status(&ch);
	expect_status(&ch); /* the copy is done */
	bad = !file_in_host && memcmp(buf, expected, size) != 0;
	CHECK(doca_mmap_destroy(mmap));
	close_channel(&ch);
	free(buf);
	return bad;
}

/* ---- DPU ---- */

struct dpu_core {
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_buf_inventory *inv;
	struct doca_workq *wq;
	struct doca_mmap *local, *remote;
};

static void dma_one(struct dpu_core *c, struct doca_buf *dst, struct doca_buf *src)
{
	struct doca_dma_job_memcpy job;
	struct doca_event ev = {0};
	doca_error_t r;

	job.base.type = DOCA_DMA_JOB_MEMCPY;
	job.base.flags = DOCA_JOB_FLAGS_NONE;
	job.base.ctx = c->ctx;
	job.dst_buff = dst;
	job.src_buff = src;
	CHECK(doca_workq_submit(c->wq, &job.base));
	while ((r = doca_workq_progress_retrieve(c->wq, &ev, DOCA_WORKQ_RETRIEVE_FLAGS_NONE)) == DOCA_ERROR_AGAIN)
		nanosleep(&nap, NULL);
	CHECK(r);
	CHECK((doca_error_t)ev.result.u64);
}

static int dpu_side(size_t size, bool file_in_host, const char *expected)
{
	struct channel ch = {0};
	struct dpu_core c = {0};
	struct file_info info, reply;
	struct doca_buf *local_buf, *remote_buf;
	char desc[MAX_MSG];
	char *local = file_in_host ? calloc(1, size) : malloc(size);
	size_t desc_len = sizeof(desc);
	uint64_t addr, len;
	doca_error_t r;
	int bad;

	if (local == NULL)
		return 1;
	if (!file_in_host)
		memcpy(local, expected, size);
	open_channel(&ch, true);
	recv_msg(&ch, &info, sizeof(info));
	if (info.file_in_host != file_in_host || ntohl(info.file_size) != size)
		return 1;
	reply = info;
	send_msg(&ch, &reply, sizeof(reply));

	CHECK(doca_dma_create(&c.dma));
	c.ctx = doca_dma_as_ctx(c.dma);
	CHECK(doca_buf_inventory_create(NULL, 2, DOCA_BUF_EXTENSION_NONE, &c.inv));
	CHECK(doca_buf_inventory_start(c.inv));
	CHECK(doca_ctx_dev_add(c.ctx, ch.dev));
	CHECK(doca_ctx_start(c.ctx));
	CHECK(doca_workq_create(32, &c.wq));
	CHECK(doca_ctx_workq_add(c.ctx, c.wq));
	CHECK(doca_mmap_create(NULL, &c.local));
	CHECK(doca_mmap_dev_add(c.local, ch.dev));
	CHECK(doca_mmap_set_permissions(c.local,
					file_in_host ? DOCA_ACCESS_LOCAL_READ_WRITE : DOCA_ACCESS_LOCAL_READ_ONLY));
	CHECK(doca_mmap_set_memrange(c.local, local, size));
	CHECK(doca_mmap_start(c.local));

	while ((r = doca_comm_channel_ep_recvfrom(ch.ep, desc, &desc_len, DOCA_CC_MSG_FLAG_NONE, &ch.peer)) ==
	       DOCA_ERROR_AGAIN) {
		desc_len = sizeof(desc);
		nanosleep(&nap, NULL);
	}
	CHECK(r);
	CHECK(doca_mmap_create_from_export(NULL, desc, desc_len, ch.dev, &c.remote));
	send_status(&ch, true);
	recv_msg(&ch, &addr, sizeof(addr));
	send_status(&ch, true);
	recv_msg(&ch, &len, sizeof(len));
	send_status(&ch, true);
	addr = be64toh(addr);
	len = be64toh(len);
	if (len != size)
		return 1;
	CHECK(doca_buf_inventory_buf_by_addr(c.inv, c.remote, (void *)(uintptr_t)addr, len, &remote_buf));
	CHECK(doca_buf_inventory_buf_by_addr(c.inv, c.local, local, size, &local_buf));
	if (file_in_host) {
		CHECK(doca_buf_set_data(remote_buf, (void *)(uintptr_t)addr, len));
		dma_one(&c, local_buf, remote_buf);
	} else {
		CHECK(doca_buf_set_data(local_buf, local, size));
		dma_one(&c, remote_buf, local_buf);
	}
	bad = file_in_host && memcmp(local, expected, size) != 0;
	send_status(&ch, !bad);

	CHECK(doca_buf_refcount_rm(remote_buf, NULL));
	CHECK(doca_buf_refcount_rm(local_buf, NULL));
	CHECK(doca_mmap_destroy(c.remote));
	CHECK(doca_ctx_workq_rm(c.ctx, c.wq));
	CHECK(doca_ctx_stop(c.ctx));
	CHECK(doca_ctx_dev_rm(c.ctx, ch.dev));
	CHECK(doca_workq_destroy(c.wq));
	CHECK(doca_dma_destroy(c.dma));
	CHECK(doca_buf_inventory_destroy(c.inv));
	CHECK(doca_mmap_destroy(c.local));
	close_channel(&ch);
	free(local);
	return bad;
}

static int run(size_t size, bool file_in_host, const char *expected)
{
	int status = 0, rc;
	pid_t dpu;

	fflush(NULL);
	dpu = fork(); /* the DPU side starts first, as dma_copy's guide says */
	if (dpu == 0)
		_exit(dpu_side(size, file_in_host, expected));
	rc = host_side(size, file_in_host, expected);
	if (waitpid(dpu, &status, 0) != dpu || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		DOCA_LOG_ERR("DPU side failed (status %#x)", status);
		return 1;
	}
	if (rc == 0)
		printf("dma_copy of %zu bytes, file on the %s: ok\n", size, file_in_host ? "host" : "DPU");
	return rc;
}

int main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 4u << 20;
	char *expected = malloc(size);
	int rc;

	if (expected == NULL || doca_log_create_standard_backend() != DOCA_SUCCESS)
		return 1;
	fill(expected, size, 11);
	rc = run(size, true, expected);
	if (rc == 0)
		rc = run(size, false, expected);
	free(expected);
	return rc;
}
