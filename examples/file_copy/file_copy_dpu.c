/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * file_copy_dpu - the DPU side of the file copy example: a Comch server that
 * takes one request from the host, pulls the host's file with DMA and checks it.
 *
 *   ferry-file-copy-dpu [-p 03:00.0] [-r b1:00.0] [-s service] [-o output-file]
 *                       [-m max-MiB] [-c chunk-bytes] [-q tasks-in-flight]
 *
 * Call order: open the device and the representor of the host function, start
 * a Comch server and a DMA context on one progress engine, wait for the
 * request, check every field (file_copy.h), create an mmap from the host's
 * export, copy the file in chunks with several memcpy tasks in flight, verify
 * the checksum, write the file (-o), reply with the status, wait for the host
 * to leave. One request per run; single-threaded.
 *
 * Exit status: 0 the file arrived intact; 1 setup or Comch failed; 3 the
 * request was refused (malformed, too large, bad export); 4 the transfer failed
 * (memory, DMA, checksum, output file).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "file_copy.h"

DOCA_LOG_REGISTER(FILE_COPY_DPU);

#define RECV_BUF_LEN     4096u /* above FC_MAX_MSG_LEN, so an oversized message is seen as such */
#define LEAVE_TIMEOUT_S  5.0   /* for the reply to go out, then for the host to leave */
#define EXIT_REFUSED     3
#define EXIT_XFER_FAILED 4
#define DEFAULT_MAX_MIB  4096u
#define DEFAULT_CHUNK    (4u << 20)
#define DEFAULT_DEPTH    8u

struct dpu_config {
	char pci[32], rep[32];
	char service[128];
	char output[4096];
	uint64_t max_bytes;
	uint32_t chunk, depth;
};

struct dpu {
	struct dpu_config cfg;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_pe *pe;
	struct doca_comch_server *server;
	struct doca_comch_connection *conn; /* the first host that connected; others are ignored */
	struct doca_dma *dma;
	struct doca_buf_inventory *inv;
	struct doca_mmap *local_mmap, *remote_mmap;
	uint8_t *local;
	/* the request as received */
	uint8_t msg[RECV_BUF_LEN];
	size_t msg_len;
	bool have_request, host_left;
	/* the copy */
	uint64_t next_off, done_bytes;
	uint32_t inflight, failures;
	/* the reply */
	uint8_t reply[FC_REPLY_LEN];
	bool reply_done, reply_failed;
};

/* ---- command line ---- */

static doca_error_t pci_cb(void *param, void *config)
{
	return fc_copy_flag(((struct dpu_config *)config)->pci, sizeof(((struct dpu_config *)config)->pci), param,
			    "PCI address");
}

static doca_error_t rep_cb(void *param, void *config)
{
	return fc_copy_flag(((struct dpu_config *)config)->rep, sizeof(((struct dpu_config *)config)->rep), param,
			    "representor PCI address");
}

static doca_error_t service_cb(void *param, void *config)
{
	return fc_copy_flag(((struct dpu_config *)config)->service, sizeof(((struct dpu_config *)config)->service),
			    param, "service name");
}

static doca_error_t output_cb(void *param, void *config)
{
	return fc_copy_flag(((struct dpu_config *)config)->output, sizeof(((struct dpu_config *)config)->output), param,
			    "output file name");
}

static doca_error_t positive(void *param, const char *what, int *out)
{
	*out = *(int *)param;
	if (*out <= 0) {
		fprintf(stderr, "%s must be positive, got %d\n", what, *out);
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static doca_error_t max_cb(void *param, void *config)
{
	int v;
	doca_error_t err = positive(param, "the size limit", &v);

	if (err == DOCA_SUCCESS)
		((struct dpu_config *)config)->max_bytes = (uint64_t)v << 20;
	return err;
}

static doca_error_t chunk_cb(void *param, void *config)
{
	int v;
	doca_error_t err = positive(param, "the chunk size", &v);

	if (err == DOCA_SUCCESS)
		((struct dpu_config *)config)->chunk = (uint32_t)v;
	return err;
}

static doca_error_t depth_cb(void *param, void *config)
{
	int v;
	doca_error_t err = positive(param, "the number of tasks in flight", &v);

	if (err == DOCA_SUCCESS)
		((struct dpu_config *)config)->depth = (uint32_t)v;
	return err;
}

static doca_error_t register_params(void)
{
	doca_error_t err;

	err = fc_add_param("p", "pci-addr", "PCI address of the DPU-side device (default 03:00.0)", pci_cb,
			   DOCA_ARGP_TYPE_STRING);
	if (err == DOCA_SUCCESS)
		err = fc_add_param("r", "rep-pci", "PCI address of the host function's representor (default b1:00.0)",
				   rep_cb, DOCA_ARGP_TYPE_STRING);
	if (err == DOCA_SUCCESS)
		err = fc_add_param("s", "service", "Comch service name (default " FC_DEFAULT_SERVICE ")", service_cb,
				   DOCA_ARGP_TYPE_STRING);
	if (err == DOCA_SUCCESS)
		err = fc_add_param("o", "output", "write the received file here", output_cb, DOCA_ARGP_TYPE_STRING);
	if (err == DOCA_SUCCESS)
		err = fc_add_param("m", "max-mib", "largest file accepted, in MiB (default 4096)", max_cb,
				   DOCA_ARGP_TYPE_INT);
	if (err == DOCA_SUCCESS)
		err = fc_add_param("c", "chunk", "bytes per DMA task (default 4194304)", chunk_cb, DOCA_ARGP_TYPE_INT);
	if (err == DOCA_SUCCESS)
		err = fc_add_param("q", "depth", "DMA tasks kept in flight (default 8)", depth_cb, DOCA_ARGP_TYPE_INT);
	return err;
}

/* ---- Comch server ---- */

static struct dpu *server_dpu(struct doca_comch_connection *conn)
{
	struct doca_ctx *ctx = doca_comch_server_as_ctx(doca_comch_server_get_server_ctx(conn));
	union doca_data ud = {.ptr = NULL};

	(void)doca_ctx_get_user_data(ctx, &ud);
	return ud.ptr;
}

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	struct dpu *d = server_dpu(conn);

	(void)ev;
	if (conn != d->conn || d->have_request) {
		DOCA_LOG_WARN("ignoring a message of %u bytes: one request per run, from the first host", len);
		return;
	}
	/* Keep the length as sent; a message longer than the buffer is refused by its length alone. */
	d->msg_len = len;
	memcpy(d->msg, buf, len < sizeof(d->msg) ? len : sizeof(d->msg));
	d->have_request = true;
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
		       uint8_t ok)
{
	struct dpu *d = server_dpu(conn);

	(void)ev;
	if (ok && d->conn == NULL) {
		d->conn = conn;
		printf("host connected\n");
		fflush(stdout);
	}
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			  uint8_t ok)
{
	struct dpu *d = server_dpu(conn);

	(void)ev;
	(void)ok;
	if (conn == d->conn)
		d->host_left = true;
}

static void on_sent(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	struct dpu *d = cud.ptr;

	(void)tud;
	d->reply_done = true;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static void on_send_failed(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	struct dpu *d = cud.ptr;

	(void)tud;
	DOCA_LOG_ERR("the reply was not sent: %s",
		     doca_error_get_descr(doca_task_get_status(doca_comch_task_send_as_task(task))));
	d->reply_done = true;
	d->reply_failed = true;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static doca_error_t start_server(struct dpu *d)
{
	struct doca_ctx *ctx;
	union doca_data ud = {.ptr = d};
	uint32_t max_msg = 0;
	doca_error_t err;

	err = doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(d->dev), &max_msg);
	if (err == DOCA_SUCCESS)
		err = doca_comch_server_create(d->dev, d->rep, d->cfg.service, &d->server);
	if (err != DOCA_SUCCESS)
		return err;
	ctx = doca_comch_server_as_ctx(d->server);
	err = doca_comch_server_set_max_msg_size(d->server, max_msg < RECV_BUF_LEN ? max_msg : RECV_BUF_LEN);
	if (err == DOCA_SUCCESS)
		err = doca_comch_server_task_send_set_conf(d->server, on_sent, on_send_failed, 4);
	if (err == DOCA_SUCCESS)
		err = doca_comch_server_event_msg_recv_register(d->server, on_msg);
	if (err == DOCA_SUCCESS)
		err = doca_comch_server_event_connection_status_changed_register(d->server, on_connect, on_disconnect);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_set_user_data(ctx, ud);
	if (err == DOCA_SUCCESS)
		err = doca_pe_connect_ctx(d->pe, ctx);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_start(ctx);
	return err;
}

/* ---- DMA ---- */

static void chunk_done(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct dpu *d = cud.ptr;
	struct doca_task *base = doca_dma_task_memcpy_as_task(task);

	if (doca_task_get_status(base) == DOCA_SUCCESS) {
		d->done_bytes += tud.u64;
	} else {
		DOCA_LOG_ERR("DMA task failed: %s", doca_error_get_descr(doca_task_get_status(base)));
		d->failures++;
	}
	(void)doca_buf_dec_refcount((struct doca_buf *)(uintptr_t)doca_dma_task_memcpy_get_src(task), NULL);
	(void)doca_buf_dec_refcount(doca_dma_task_memcpy_get_dst(task), NULL);
	doca_task_free(base);
	d->inflight--;
}

static doca_error_t start_dma(struct dpu *d)
{
	union doca_data ud = {.ptr = d};
	uint64_t max_buf = 0;
	uint32_t max_tasks = 0;
	doca_error_t err;

	err = doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(d->dev), &max_buf);
	if (err == DOCA_SUCCESS)
		err = doca_dma_create(d->dev, &d->dma);
	if (err == DOCA_SUCCESS)
		err = doca_dma_cap_get_max_num_tasks(d->dma, &max_tasks);
	if (err != DOCA_SUCCESS)
		return err;
	if (d->cfg.chunk > max_buf)
		d->cfg.chunk = (uint32_t)max_buf;
	if (d->cfg.depth > max_tasks)
		d->cfg.depth = max_tasks;
	err = doca_dma_task_memcpy_set_conf(d->dma, chunk_done, chunk_done, d->cfg.depth);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_set_user_data(doca_dma_as_ctx(d->dma), ud);
	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_create(2 * (size_t)d->cfg.depth, &d->inv);
	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_start(d->inv);
	if (err == DOCA_SUCCESS)
		err = doca_pe_connect_ctx(d->pe, doca_dma_as_ctx(d->dma));
	if (err == DOCA_SUCCESS)
		err = doca_ctx_start(doca_dma_as_ctx(d->dma));
	return err;
}

/* Submit the next chunk of the file: host buffer -> local memory. */
static doca_error_t submit_chunk(struct dpu *d, const struct fc_request *req)
{
	uint64_t off = d->next_off;
	uint64_t n = req->file_size - off < d->cfg.chunk ? req->file_size - off : d->cfg.chunk;
	union doca_data tud = {.u64 = n};
	struct doca_dma_task_memcpy *task = NULL;
	struct doca_buf *src = NULL, *dst = NULL;
	doca_error_t err;

	err = doca_buf_inventory_buf_get_by_data(d->inv, d->remote_mmap, (void *)(uintptr_t)(req->host_addr + off), n,
						 &src);
	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_buf_get_by_addr(d->inv, d->local_mmap, d->local + off, n, &dst);
	if (err == DOCA_SUCCESS)
		err = doca_dma_task_memcpy_alloc_init(d->dma, src, dst, tud, &task);
	if (err == DOCA_SUCCESS)
		err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
	if (err == DOCA_SUCCESS) {
		d->next_off += n;
		d->inflight++;
		return DOCA_SUCCESS;
	}
	if (task != NULL)
		doca_task_free(doca_dma_task_memcpy_as_task(task));
	if (src != NULL)
		(void)doca_buf_dec_refcount(src, NULL);
	if (dst != NULL)
		(void)doca_buf_dec_refcount(dst, NULL);
	DOCA_LOG_ERR("cannot submit the DMA of bytes %llu..%llu: %s", (unsigned long long)off,
		     (unsigned long long)(off + n), doca_error_get_descr(err));
	return err;
}

/* Keep the window full until the whole file is copied or a task failed, then drain. */
static void copy_file(struct dpu *d, const struct fc_request *req)
{
	while (d->inflight > 0 || (d->failures == 0 && d->next_off < req->file_size)) {
		while (d->failures == 0 && d->next_off < req->file_size && d->inflight < d->cfg.depth)
			if (submit_chunk(d, req) != DOCA_SUCCESS)
				d->failures++;
		(void)doca_pe_progress(d->pe);
	}
}

/* ---- the request ---- */

static enum fc_status import_export(struct dpu *d, const struct fc_request *req)
{
	void *addr = NULL;
	size_t len = 0;
	doca_error_t err = doca_mmap_create_from_export(NULL, req->desc, req->desc_len, d->dev, &d->remote_mmap);

	if (err == DOCA_SUCCESS)
		err = doca_mmap_get_memrange(d->remote_mmap, &addr, &len);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("refused the request: the export descriptor does not import: %s",
			     doca_error_get_descr(err));
		return FC_STATUS_BAD_EXPORT;
	}
	/* The host's word for its buffer must agree with what the export itself grants. */
	if (req->host_addr < (uintptr_t)addr || req->host_addr + req->buf_len > (uintptr_t)addr + len) {
		DOCA_LOG_ERR("refused the request: buffer 0x%llx + %llu lies outside the export (%p + %zu)",
			     (unsigned long long)req->host_addr, (unsigned long long)req->buf_len, addr, len);
		return FC_STATUS_BAD_EXPORT;
	}
	return FC_STATUS_OK;
}

static enum fc_status prepare_local(struct dpu *d, const struct fc_request *req)
{
	doca_error_t err;

	d->local = malloc(req->file_size);
	if (d->local == NULL) {
		DOCA_LOG_ERR("no memory for %llu bytes", (unsigned long long)req->file_size);
		return FC_STATUS_NO_MEMORY;
	}
	err = doca_mmap_create(&d->local_mmap);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_memrange(d->local_mmap, d->local, req->file_size);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_permissions(d->local_mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_add_dev(d->local_mmap, d->dev);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_start(d->local_mmap);
	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("cannot register the local buffer: %s", doca_error_get_descr(err));
		return FC_STATUS_NO_MEMORY;
	}
	/* Touch every page now, as a real DPU's registered memory is pinned: the copy is timed, not the faults. */
	memset(d->local, 0, req->file_size);
	return FC_STATUS_OK;
}

static enum fc_status write_output(const char *path, const uint8_t *data, uint64_t size)
{
	FILE *f = fopen(path, "wb");
	bool ok = f != NULL && (size == 0 || fwrite(data, 1, size, f) == size);

	if (f != NULL && fclose(f) != 0)
		ok = false;
	if (!ok) {
		DOCA_LOG_ERR("cannot write %s", path);
		return FC_STATUS_WRITE_FAILED;
	}
	return FC_STATUS_OK;
}

/* Decode, check and carry out the request; fills the reply's counters. */
static enum fc_status serve_request(struct dpu *d, struct fc_reply *rep)
{
	struct fc_request req;
	char why[160];
	enum fc_status st;
	double t0;

	if (d->msg_len > sizeof(d->msg)) {
		DOCA_LOG_ERR("refused the request: %zu bytes is longer than any request (at most %u)", d->msg_len,
			     FC_MAX_MSG_LEN);
		return FC_STATUS_BAD_REQUEST;
	}
	st = fc_request_decode(d->msg, d->msg_len, &req, why, sizeof(why));
	if (st != FC_STATUS_OK) {
		DOCA_LOG_ERR("refused the request: %s", why);
		return st;
	}
	if (req.file_size > d->cfg.max_bytes) {
		DOCA_LOG_ERR("refused the request: the file has %llu bytes, this side accepts at most %llu (-m)",
			     (unsigned long long)req.file_size, (unsigned long long)d->cfg.max_bytes);
		return FC_STATUS_TOO_LARGE;
	}
	st = import_export(d, &req);
	if (st == FC_STATUS_OK && req.file_size > 0)
		st = prepare_local(d, &req);
	if (st != FC_STATUS_OK)
		return st;
	t0 = fc_now();
	copy_file(d, &req);
	rep->nsec = (uint64_t)((fc_now() - t0) * 1e9);
	if (d->failures != 0 || d->done_bytes != req.file_size)
		return FC_STATUS_DMA_FAILED;
	if (fc_checksum(d->local, req.file_size) != req.checksum) {
		DOCA_LOG_ERR("the copy's checksum differs from the host's");
		return FC_STATUS_CHECKSUM;
	}
	rep->bytes = req.file_size;
	return d->cfg.output[0] != '\0' ? write_output(d->cfg.output, d->local, req.file_size) : FC_STATUS_OK;
}

/* ---- the run ---- */

static void progress_until(struct dpu *d, const bool *flag, double limit_s)
{
	double end = limit_s > 0 ? fc_now() + limit_s : 0;

	while (!*flag && (end == 0 || fc_now() < end))
		if (doca_pe_progress(d->pe) == 0)
			usleep(100);
}

static doca_error_t send_reply(struct dpu *d, const struct fc_reply *rep)
{
	struct doca_comch_task_send *task = NULL;
	doca_error_t err;

	fc_reply_encode(rep, d->reply);
	err = doca_comch_server_task_send_alloc_init(d->server, d->conn, d->reply, FC_REPLY_LEN, &task);
	if (err == DOCA_SUCCESS)
		err = doca_task_submit(doca_comch_task_send_as_task(task));
	if (err != DOCA_SUCCESS) {
		if (task != NULL)
			doca_task_free(doca_comch_task_send_as_task(task));
		DOCA_LOG_ERR("cannot send the reply: %s", doca_error_get_descr(err));
		return err;
	}
	progress_until(d, &d->reply_done, LEAVE_TIMEOUT_S);
	if (!d->reply_done)
		DOCA_LOG_ERR("the reply was not sent within %.0f s", LEAVE_TIMEOUT_S);
	return d->reply_done && !d->reply_failed ? DOCA_SUCCESS : DOCA_ERROR_IO_FAILED;
}

static int exit_status(enum fc_status st)
{
	switch (st) {
	case FC_STATUS_OK:
		return EXIT_SUCCESS;
	case FC_STATUS_BAD_REQUEST:
	case FC_STATUS_TOO_LARGE:
	case FC_STATUS_BAD_EXPORT:
		return EXIT_REFUSED;
	default:
		return EXIT_XFER_FAILED;
	}
}

static void print_result(const struct dpu *d, const struct fc_reply *rep)
{
	double s = (double)rep->nsec * 1e-9;

	printf("received %llu bytes from the host by DMA in %.3f s: %.2f GB/s (%u tasks of up to %u bytes in "
	       "flight), checksum verified%s%s\n",
	       (unsigned long long)rep->bytes, s, s > 0 ? (double)rep->bytes / s / 1e9 : 0.0, d->cfg.depth,
	       d->cfg.chunk, d->cfg.output[0] != '\0' ? ", written to " : "", d->cfg.output);
}

static int serve(struct dpu *d)
{
	struct fc_reply rep = {0};
	enum fc_status st;

	printf("listening: Comch service '%s' on %s for %s\n", d->cfg.service, d->cfg.pci, d->cfg.rep);
	fflush(stdout);
	while (!d->have_request && !d->host_left)
		if (doca_pe_progress(d->pe) == 0)
			usleep(100);
	if (!d->have_request) {
		DOCA_LOG_ERR("the host left without sending a request");
		return EXIT_FAILURE;
	}
	st = serve_request(d, &rep);
	rep.status = st;
	if (st == FC_STATUS_OK)
		print_result(d, &rep);
	else
		printf("request failed: %s\n", fc_status_name(st));
	fflush(stdout);
	if (send_reply(d, &rep) != DOCA_SUCCESS)
		return EXIT_FAILURE;
	/* Let the host read the reply and leave first, so its side ends on its own. */
	progress_until(d, &d->host_left, LEAVE_TIMEOUT_S);
	return exit_status(st);
}

static doca_error_t setup(struct dpu *d)
{
	struct doca_devinfo_rep **reps = NULL;
	uint32_t n = 0;
	doca_error_t err = fc_open_dev(d->cfg.pci, doca_comch_cap_server_is_supported, &d->dev);

	if (err != DOCA_SUCCESS) {
		DOCA_LOG_ERR("no Comch server device at %s: %s", d->cfg.pci, doca_error_get_descr(err));
		return err;
	}
	err = doca_devinfo_rep_create_list(d->dev, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n);
	for (uint32_t i = 0; err == DOCA_SUCCESS && i < n && d->rep == NULL; i++) {
		uint8_t match = 0;

		if (doca_devinfo_rep_is_equal_pci_addr(reps[i], d->cfg.rep, &match) == DOCA_SUCCESS && match)
			err = doca_dev_rep_open(reps[i], &d->rep);
	}
	if (reps != NULL)
		(void)doca_devinfo_rep_destroy_list(reps);
	if (d->rep == NULL) {
		DOCA_LOG_ERR("no representor %s on %s", d->cfg.rep, d->cfg.pci);
		return err != DOCA_SUCCESS ? err : DOCA_ERROR_NOT_FOUND;
	}
	err = doca_pe_create(&d->pe);
	if (err == DOCA_SUCCESS)
		err = start_dma(d);
	if (err == DOCA_SUCCESS)
		err = start_server(d);
	if (err != DOCA_SUCCESS)
		DOCA_LOG_ERR("cannot start the DMA context and the Comch server: %s", doca_error_get_descr(err));
	return err;
}

static void stop_ctx(struct dpu *d, struct doca_ctx *ctx)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;

	if (doca_ctx_get_state(ctx, &state) != DOCA_SUCCESS || state == DOCA_CTX_STATE_IDLE)
		return;
	(void)doca_ctx_stop(ctx);
	while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE)
		(void)doca_pe_progress(d->pe);
}

static void teardown(struct dpu *d)
{
	if (d->dma != NULL) {
		stop_ctx(d, doca_dma_as_ctx(d->dma));
		(void)doca_dma_destroy(d->dma);
	}
	if (d->server != NULL) {
		stop_ctx(d, doca_comch_server_as_ctx(d->server));
		(void)doca_comch_server_destroy(d->server);
	}
	if (d->inv != NULL)
		(void)doca_buf_inventory_destroy(d->inv);
	if (d->remote_mmap != NULL)
		(void)doca_mmap_destroy(d->remote_mmap);
	if (d->local_mmap != NULL)
		(void)doca_mmap_destroy(d->local_mmap);
	if (d->pe != NULL)
		(void)doca_pe_destroy(d->pe);
	if (d->rep != NULL)
		(void)doca_dev_rep_close(d->rep);
	if (d->dev != NULL)
		(void)doca_dev_close(d->dev);
	free(d->local);
}

int main(int argc, char **argv)
{
	static struct dpu d = {
		.cfg = {.pci = "03:00.0",
			.rep = "b1:00.0",
			.service = FC_DEFAULT_SERVICE,
			.max_bytes = (uint64_t)DEFAULT_MAX_MIB << 20,
			.chunk = DEFAULT_CHUNK,
			.depth = DEFAULT_DEPTH},
	};
	doca_error_t err = fc_log_init();
	int rc = EXIT_FAILURE;

	if (err == DOCA_SUCCESS)
		err = doca_argp_init("ferry-file-copy-dpu", &d.cfg);
	if (err == DOCA_SUCCESS)
		err = register_params();
	if (err == DOCA_SUCCESS)
		err = doca_argp_start(argc, argv);
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "ferry-file-copy-dpu: bad arguments: %s\n", doca_error_get_descr(err));
		(void)doca_argp_destroy();
		return EXIT_FAILURE;
	}
	if (setup(&d) == DOCA_SUCCESS)
		rc = serve(&d);
	teardown(&d);
	(void)doca_argp_destroy();
	return rc;
}
