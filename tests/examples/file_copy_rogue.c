/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * file_copy_rogue.c - a host that lies to ferry-file-copy-dpu. It exports a
 * real buffer, like the honest host, then sends one request spoiled as MODE
 * says, straight through the Comch client API, and checks that the DPU side
 * answers with a refusal of the expected kind.
 *
 *   file_copy_rogue MODE [service]
 *     truncated  the first 20 bytes of a request (shorter than its fixed part)
 *     version    version 2
 *     magic      a wrong magic number
 *     desc-len   a descriptor length beyond the message's end
 *     reserved   a non-zero reserved field
 *     beyond     a buffer length and file size 1 MiB beyond what the export grants
 *     wrap       a buffer that wraps around the address space
 *     bad-desc   a descriptor of random bytes
 *     huge       a file larger than the DPU accepts (run the DPU with -m 1)
 *     silent     connect, send nothing and leave
 *
 * Prints "refused: <status>" and exits 0 when the reply is the expected
 * refusal (silent: once connected); 1 on any other reply or none; 2 when it
 * cannot set up.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <ferry_mem.h>

#include "file_copy.h"

#define BUF_LEN ((size_t)2 << 20)

struct rogue {
	struct doca_pe *pe;
	struct doca_comch_client *client;
	uint8_t msg[FC_MAX_MSG_LEN];
	size_t msg_len;
	struct fc_reply reply;
	bool silent, connected, got_reply, failed;
};

static struct rogue g;

struct mode {
	const char *name;
	enum fc_status expect;
};

static const struct mode modes[] = {
	{"truncated", FC_STATUS_BAD_REQUEST}, {"version", FC_STATUS_BAD_REQUEST},
	{"magic", FC_STATUS_BAD_REQUEST},     {"desc-len", FC_STATUS_BAD_REQUEST},
	{"reserved", FC_STATUS_BAD_REQUEST},  {"beyond", FC_STATUS_BAD_EXPORT},
	{"wrap", FC_STATUS_BAD_REQUEST},      {"bad-desc", FC_STATUS_BAD_EXPORT},
	{"huge", FC_STATUS_TOO_LARGE},        {"silent", FC_STATUS_OK}, /* no request, so no reply */
};

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A valid request for @p buf, then spoiled as @p mode says. */
static void build(const char *mode, uint8_t *buf, const void *desc, size_t desc_len)
{
	struct fc_request req = {.file_size = BUF_LEN,
				 .checksum = fc_checksum(buf, BUF_LEN),
				 .host_addr = (uintptr_t)buf,
				 .buf_len = BUF_LEN,
				 .desc_len = (uint32_t)desc_len,
				 .desc = desc};
	uint8_t junk[64];

	if (strcmp(mode, "beyond") == 0)
		req.buf_len = req.file_size = BUF_LEN + (1u << 20);
	if (strcmp(mode, "wrap") == 0)
		req.buf_len = req.file_size = UINT64_MAX - req.host_addr + 4096;
	if (strcmp(mode, "huge") == 0)
		req.buf_len = req.file_size = (uint64_t)1 << 40;
	if (strcmp(mode, "bad-desc") == 0) {
		fc_fill_random(junk, sizeof(junk), 7);
		req.desc = junk;
		req.desc_len = sizeof(junk);
	}
	g.msg_len = fc_request_encode(&req, g.msg);
	if (strcmp(mode, "truncated") == 0)
		g.msg_len = 20;
	else if (strcmp(mode, "version") == 0)
		g.msg[4] = 2;
	else if (strcmp(mode, "magic") == 0)
		g.msg[0] ^= 0xff;
	else if (strcmp(mode, "desc-len") == 0)
		put32(g.msg + 8, req.desc_len + 100);
	else if (strcmp(mode, "reserved") == 0)
		g.msg[12] = 1;
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	char why[160];

	(void)ev;
	(void)conn;
	if (fc_reply_decode(buf, len, &g.reply, why, sizeof(why)) != FC_STATUS_OK) {
		fprintf(stderr, "rogue: malformed reply: %s\n", why);
		g.failed = true;
		return;
	}
	g.got_reply = true;
}

static void on_send(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void on_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
		     enum doca_ctx_states next)
{
	struct doca_comch_connection *conn = NULL;
	struct doca_comch_task_send *task = NULL;

	(void)ud;
	(void)ctx;
	if (next != DOCA_CTX_STATE_RUNNING) {
		if (prev == DOCA_CTX_STATE_RUNNING || prev == DOCA_CTX_STATE_STARTING)
			g.failed = !g.got_reply;
		return;
	}
	g.connected = true;
	if (g.silent)
		return;
	if (doca_comch_client_get_connection(g.client, &conn) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_alloc_init(g.client, conn, g.msg, (uint32_t)g.msg_len, &task) != DOCA_SUCCESS ||
	    doca_task_submit(doca_comch_task_send_as_task(task)) != DOCA_SUCCESS)
		g.failed = true;
}

static bool start_client(struct doca_dev *dev, const char *service)
{
	struct doca_ctx *ctx;
	doca_error_t err;

	if (doca_pe_create(&g.pe) != DOCA_SUCCESS || doca_comch_client_create(dev, service, &g.client) != DOCA_SUCCESS)
		return false;
	ctx = doca_comch_client_as_ctx(g.client);
	if (doca_comch_client_task_send_set_conf(g.client, on_send, on_send, 4) != DOCA_SUCCESS ||
	    doca_comch_client_event_msg_recv_register(g.client, on_msg) != DOCA_SUCCESS ||
	    doca_ctx_set_state_changed_cb(ctx, on_state) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(g.pe, ctx) != DOCA_SUCCESS)
		return false;
	err = doca_ctx_start(ctx);
	return err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS;
}

static void stop_client(void)
{
	struct doca_ctx *ctx = doca_comch_client_as_ctx(g.client);
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	if (doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE)
		(void)doca_ctx_stop(ctx);
	while (doca_ctx_get_state(ctx, &st) == DOCA_SUCCESS && st != DOCA_CTX_STATE_IDLE)
		(void)doca_pe_progress(g.pe);
	(void)doca_comch_client_destroy(g.client);
	(void)doca_pe_destroy(g.pe);
}

static const struct mode *find_mode(const char *name)
{
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(modes[i].name, name) == 0)
			return &modes[i];
	return NULL;
}

/* Export @p buf read-only from @p dev; the descriptor stays valid while @p mmap lives. */
static bool export_buf(struct doca_dev *dev, uint8_t *buf, struct doca_mmap **mmap, const void **desc, size_t *len)
{
	return doca_mmap_create(mmap) == DOCA_SUCCESS && doca_mmap_add_dev(*mmap, dev) == DOCA_SUCCESS &&
	       doca_mmap_set_memrange(*mmap, buf, BUF_LEN) == DOCA_SUCCESS &&
	       doca_mmap_set_permissions(*mmap, DOCA_ACCESS_FLAG_PCI_READ_ONLY) == DOCA_SUCCESS &&
	       doca_mmap_start(*mmap) == DOCA_SUCCESS && doca_mmap_export_pci(*mmap, dev, desc, len) == DOCA_SUCCESS;
}

int main(int argc, char **argv)
{
	const struct mode *mode = argc >= 2 ? find_mode(argv[1]) : NULL;
	uint8_t *buf = ferry_mem_alloc_shared(BUF_LEN);
	struct doca_dev *dev = NULL;
	struct doca_mmap *mmap = NULL;
	const void *desc = NULL;
	size_t desc_len = 0;
	int rc;

	if (mode == NULL || buf == NULL) {
		fprintf(stderr, "usage: file_copy_rogue MODE [service] (see the file's header)\n");
		return 2;
	}
	if (fc_open_dev("b1:00.0", doca_comch_cap_client_is_supported, &dev) != DOCA_SUCCESS ||
	    !export_buf(dev, buf, &mmap, &desc, &desc_len)) {
		fprintf(stderr, "rogue: cannot export a buffer\n");
		return 2;
	}
	build(mode->name, buf, desc, desc_len);
	if (!start_client(dev, argc > 2 ? argv[2] : FC_DEFAULT_SERVICE)) {
		fprintf(stderr, "rogue: cannot start the Comch client\n");
		return 2;
	}
	g.silent = strcmp(mode->name, "silent") == 0;
	while (!g.got_reply && !g.failed && !(g.silent && g.connected))
		if (doca_pe_progress(g.pe) == 0)
			usleep(100);
	if (g.silent) {
		printf("left without a word\n");
		stop_client();
		return g.connected ? 0 : 1;
	}
	if (g.got_reply)
		printf("%s: %s (expected %s)\n", g.reply.status == FC_STATUS_OK ? "ACCEPTED" : "refused",
		       fc_status_name(g.reply.status), fc_status_name(mode->expect));
	else
		fprintf(stderr, "rogue: no reply\n");
	rc = g.got_reply && g.reply.status == (uint32_t)mode->expect ? 0 : 1;
	stop_client();
	(void)doca_mmap_destroy(mmap);
	(void)doca_dev_close(dev);
	(void)ferry_mem_free_shared(buf);
	return rc;
}
