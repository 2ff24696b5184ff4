/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * file_copy_host - the host side of the file copy example: puts a file in
 * memory that the DPU side can map, exports it read-only and asks the DPU
 * side, over Comch, to pull it with DMA.
 *
 *   ferry-file-copy-host [-p b1:00.0] [-s service] [-f file | -n MiB]
 *
 * Call order: read the file (-f) or generate -n MiB of pseudo-random data
 * (default 256) into a block from ferry_mem_alloc_shared, checksum it, register
 * it in an mmap exported with DOCA_ACCESS_FLAG_PCI_READ_ONLY, start a Comch
 * client, send the request once the connection runs, wait for the reply and
 * print it. Single-threaded.
 *
 * Exit status: 0 the DPU side verified the file; 1 anything else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <ferry_mem.h>

#include "file_copy.h"

DOCA_LOG_REGISTER(FILE_COPY_HOST);

#define DEFAULT_MIB 256u
#define MAX_MIB     65536u

struct host_config {
	char pci[32];
	char service[128];
	char file[4096];
	uint32_t mib;
};

struct host {
	struct host_config cfg;
	uint8_t *buf; /* from ferry_mem_alloc_shared */
	size_t size, buf_len;
	uint64_t checksum;
	struct doca_dev *dev;
	struct doca_mmap *mmap;
	struct doca_pe *pe;
	struct doca_comch_client *client;
	uint8_t msg[FC_MAX_MSG_LEN];
	size_t msg_len;
	struct fc_reply reply;
	bool connected, got_reply, failed;
};

/* ---- command line ---- */

static doca_error_t pci_cb(void *param, void *config)
{
	return fc_copy_flag(((struct host_config *)config)->pci, sizeof(((struct host_config *)config)->pci), param,
			    "PCI address");
}

static doca_error_t service_cb(void *param, void *config)
{
	return fc_copy_flag(((struct host_config *)config)->service, sizeof(((struct host_config *)config)->service),
			    param, "service name");
}

static doca_error_t file_cb(void *param, void *config)
{
	return fc_copy_flag(((struct host_config *)config)->file, sizeof(((struct host_config *)config)->file), param,
			    "file name");
}

static doca_error_t mib_cb(void *param, void *config)
{
	int v = *(int *)param;

	if (v <= 0 || (uint32_t)v > MAX_MIB) {
		fprintf(stderr, "-n takes 1..%u MiB, got %d\n", MAX_MIB, v);
		return DOCA_ERROR_INVALID_VALUE;
	}
	((struct host_config *)config)->mib = (uint32_t)v;
	return DOCA_SUCCESS;
}

static doca_error_t register_params(void)
{
	doca_error_t err;

	err = fc_add_param("p", "pci-addr", "PCI address of the host-side device (default b1:00.0)", pci_cb,
			   DOCA_ARGP_TYPE_STRING);
	if (err == DOCA_SUCCESS)
		err = fc_add_param("s", "service", "Comch service name (default " FC_DEFAULT_SERVICE ")", service_cb,
				   DOCA_ARGP_TYPE_STRING);
	if (err == DOCA_SUCCESS)
		err = fc_add_param("f", "file", "the file to send", file_cb, DOCA_ARGP_TYPE_STRING);
	if (err == DOCA_SUCCESS)
		err = fc_add_param("n", "mib", "without -f: send this many MiB of generated data (default 256)", mib_cb,
				   DOCA_ARGP_TYPE_INT);
	return err;
}

/* ---- the data ---- */

static int alloc_buf(struct host *h, size_t size)
{
	h->size = size;
	h->buf_len = size > 0 ? size : 1; /* an empty file still exports one byte */
	h->buf = ferry_mem_alloc_shared(h->buf_len);
	if (h->buf == NULL) {
		fprintf(stderr, "cannot allocate %zu bytes of shared memory: %s\n", h->buf_len, strerror(errno));
		return -1;
	}
	return 0;
}

static int read_file(struct host *h)
{
	struct stat st;
	int fd = open(h->cfg.file, O_RDONLY | O_CLOEXEC);
	size_t got = 0;

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: %s\n", h->cfg.file, fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (alloc_buf(h, (size_t)st.st_size) != 0) {
		close(fd);
		return -1;
	}
	while (got < h->size) {
		ssize_t n = read(fd, h->buf + got, h->size - got);

		if (n <= 0) {
			fprintf(stderr, "%s: %s\n", h->cfg.file, n < 0 ? strerror(errno) : "shorter than it was");
			close(fd);
			return -1;
		}
		got += (size_t)n;
	}
	close(fd);
	return 0;
}

static int load_data(struct host *h)
{
	if (h->cfg.file[0] != '\0') {
		if (read_file(h) != 0)
			return -1;
	} else {
		if (alloc_buf(h, (size_t)h->cfg.mib << 20) != 0)
			return -1;
		fc_fill_random(h->buf, h->size, 0x5eed0000u + h->cfg.mib);
	}
	h->checksum = fc_checksum(h->buf, h->size);
	return 0;
}

/* ---- DOCA objects ---- */

static doca_error_t export_buf(struct host *h, struct fc_request *req)
{
	const void *desc = NULL;
	size_t desc_len = 0;
	doca_error_t err = doca_mmap_create(&h->mmap);

	if (err == DOCA_SUCCESS)
		err = doca_mmap_add_dev(h->mmap, h->dev);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_memrange(h->mmap, h->buf, h->buf_len);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_permissions(h->mmap, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_start(h->mmap);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_export_pci(h->mmap, h->dev, &desc, &desc_len);
	if (err != DOCA_SUCCESS)
		return err;
	*req = (struct fc_request){.file_size = h->size,
				   .checksum = h->checksum,
				   .host_addr = (uintptr_t)h->buf,
				   .buf_len = h->buf_len,
				   .desc_len = (uint32_t)desc_len,
				   .desc = desc};
	h->msg_len = desc_len <= FC_MAX_DESC_LEN ? fc_request_encode(req, h->msg) : 0;
	return h->msg_len != 0 ? DOCA_SUCCESS : DOCA_ERROR_TOO_BIG;
}

static void send_request(struct host *h)
{
	struct doca_comch_connection *conn = NULL;
	struct doca_comch_task_send *task = NULL;
	doca_error_t err = doca_comch_client_get_connection(h->client, &conn);

	if (err == DOCA_SUCCESS)
		err = doca_comch_client_task_send_alloc_init(h->client, conn, h->msg, (uint32_t)h->msg_len, &task);
	if (err == DOCA_SUCCESS)
		err = doca_task_submit(doca_comch_task_send_as_task(task));
	if (err != DOCA_SUCCESS) {
		if (task != NULL)
			doca_task_free(doca_comch_task_send_as_task(task));
		fprintf(stderr, "cannot send the request: %s\n", doca_error_get_descr(err));
		h->failed = true;
	}
}

static struct host *client_host(struct doca_comch_connection *conn)
{
	struct doca_ctx *ctx = doca_comch_client_as_ctx(doca_comch_client_get_client_ctx(conn));
	union doca_data ud = {.ptr = NULL};

	(void)doca_ctx_get_user_data(ctx, &ud);
	return ud.ptr;
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	struct host *h = client_host(conn);
	char why[160];

	(void)ev;
	if (h->got_reply)
		return;
	if (fc_reply_decode(buf, len, &h->reply, why, sizeof(why)) != FC_STATUS_OK) {
		fprintf(stderr, "the DPU side's reply is malformed: %s\n", why);
		h->failed = true;
		return;
	}
	h->got_reply = true;
}

static void on_sent(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void on_send_failed(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	struct host *h = cud.ptr;

	(void)tud;
	fprintf(stderr, "the request was not sent: %s\n",
		doca_error_get_descr(doca_task_get_status(doca_comch_task_send_as_task(task))));
	h->failed = true;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void on_state(const union doca_data ud, struct doca_ctx *ctx, enum doca_ctx_states prev,
		     enum doca_ctx_states next)
{
	struct host *h = ud.ptr;

	(void)ctx;
	if (next == DOCA_CTX_STATE_RUNNING) {
		h->connected = true;
		send_request(h);
	} else if ((next == DOCA_CTX_STATE_STOPPING || next == DOCA_CTX_STATE_IDLE) && !h->got_reply && !h->failed &&
		   prev != DOCA_CTX_STATE_IDLE) {
		/* Leaving STARTING or RUNNING on its own: the server never answered, or went away. */
		if (h->connected)
			fprintf(stderr, "the DPU side closed the connection before it replied\n");
		else
			fprintf(stderr, "no Comch server '%s' answered on %s\n", h->cfg.service, h->cfg.pci);
		h->failed = true;
	}
}

static doca_error_t start_client(struct host *h)
{
	union doca_data ud = {.ptr = h};
	struct doca_ctx *ctx;
	doca_error_t err = doca_pe_create(&h->pe);

	if (err == DOCA_SUCCESS)
		err = doca_comch_client_create(h->dev, h->cfg.service, &h->client);
	if (err != DOCA_SUCCESS)
		return err;
	ctx = doca_comch_client_as_ctx(h->client);
	err = doca_comch_client_task_send_set_conf(h->client, on_sent, on_send_failed, 4);
	if (err == DOCA_SUCCESS)
		err = doca_comch_client_event_msg_recv_register(h->client, on_msg);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_set_user_data(ctx, ud);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_set_state_changed_cb(ctx, on_state);
	if (err == DOCA_SUCCESS)
		err = doca_pe_connect_ctx(h->pe, ctx);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_start(ctx);
	return err == DOCA_ERROR_IN_PROGRESS ? DOCA_SUCCESS : err;
}

/* ---- the run ---- */

static void describe(const struct host *h)
{
	if (h->cfg.file[0] != '\0')
		printf("sending %s (%zu bytes, checksum %016llx)", h->cfg.file, h->size,
		       (unsigned long long)h->checksum);
	else
		printf("sending %u MiB of generated data (checksum %016llx)", h->cfg.mib,
		       (unsigned long long)h->checksum);
	printf(" to the DPU over Comch service '%s'\n", h->cfg.service);
	fflush(stdout);
}

static int report(const struct host *h)
{
	double s = (double)h->reply.nsec * 1e-9;

	if (h->reply.status != FC_STATUS_OK) {
		fprintf(stderr, "the DPU side refused or failed the copy: %s\n", fc_status_name(h->reply.status));
		return EXIT_FAILURE;
	}
	if (h->reply.bytes != h->size) {
		fprintf(stderr, "the DPU side reports %llu bytes, %zu were sent\n", (unsigned long long)h->reply.bytes,
			h->size);
		return EXIT_FAILURE;
	}
	printf("host->DPU: %zu bytes by DMA in %.3f s: %.2f GB/s, verified by the DPU side\n", h->size, s,
	       s > 0 ? (double)h->size / s / 1e9 : 0.0);
	return EXIT_SUCCESS;
}

static int run(struct host *h)
{
	struct fc_request req;
	doca_error_t err;

	if (load_data(h) != 0)
		return EXIT_FAILURE;
	err = fc_open_dev(h->cfg.pci, doca_comch_cap_client_is_supported, &h->dev);
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "no Comch client device at %s: %s\n", h->cfg.pci, doca_error_get_descr(err));
		return EXIT_FAILURE;
	}
	err = export_buf(h, &req);
	if (err == DOCA_SUCCESS)
		err = start_client(h);
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "cannot export the buffer or start the Comch client: %s\n", doca_error_get_descr(err));
		return EXIT_FAILURE;
	}
	describe(h);
	while (!h->got_reply && !h->failed)
		if (doca_pe_progress(h->pe) == 0)
			usleep(100);
	return h->failed ? EXIT_FAILURE : report(h);
}

static void teardown(struct host *h)
{
	if (h->client != NULL) {
		struct doca_ctx *ctx = doca_comch_client_as_ctx(h->client);
		enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;

		if (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE)
			(void)doca_ctx_stop(ctx);
		while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE)
			(void)doca_pe_progress(h->pe);
		(void)doca_comch_client_destroy(h->client);
	}
	if (h->pe != NULL)
		(void)doca_pe_destroy(h->pe);
	if (h->mmap != NULL)
		(void)doca_mmap_destroy(h->mmap);
	if (h->dev != NULL)
		(void)doca_dev_close(h->dev);
	if (h->buf != NULL)
		(void)ferry_mem_free_shared(h->buf);
}

int main(int argc, char **argv)
{
	static struct host h = {
		.cfg = {.pci = "b1:00.0", .service = FC_DEFAULT_SERVICE, .mib = DEFAULT_MIB},
	};
	doca_error_t err = fc_log_init();
	int rc;

	if (err == DOCA_SUCCESS)
		err = doca_argp_init("ferry-file-copy-host", &h.cfg);
	if (err == DOCA_SUCCESS)
		err = register_params();
	if (err == DOCA_SUCCESS)
		err = doca_argp_start(argc, argv);
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "ferry-file-copy-host: bad arguments: %s\n", doca_error_get_descr(err));
		(void)doca_argp_destroy();
		return EXIT_FAILURE;
	}
	rc = run(&h);
	teardown(&h);
	(void)doca_argp_destroy();
	return rc;
}
