/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_task.c - the task types of DOCA RDMA: receive, send, send with
 * immediate, read, write, write with immediate, atomic compare and swap,
 * atomic fetch and add.
 *
 * Life of a task: submit checks it (rdma_task_submit; a broken rule refuses
 * it with one log line); a receive joins the posted FIFO, any other task is
 * issued to UCX at once when its connection is connected, waits on the
 * connection when it is only exported, or is queued to fail when the peer is
 * gone. Every UCX operation counts in task->pending; its callback records the
 * status (op_done). The task is queued on rdma->done when nothing of it is
 * left in UCX, and progress delivers it (rdma_task_deliver): the data lengths
 * of a successful task grow, then the user's typed callback runs.
 *
 * Checks that need the peer (its permissions, the export's permissions) fail
 * the task through its error callback, as a remote access error does on
 * hardware; checks of what the program passed refuse the submit.
 *
 * A read or write whose remote mmap is a re-export (a PCI import the peer
 * reaches by cross-memory attach, which UCX cannot register; rdma_mem.c)
 * copies through the mmap's link import instead of UCX, over the peer's link
 * network server, at issue: a cold branch on a flag of the import, taken
 * after the permission checks every remote access makes.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_memview.h"
#include "core/ferry_rdma_mem.h"
#include "link/ferry_access.h"
#include "rdma/rdma_priv.h"

FERRY_LOG_MODULE("rdma");

const char *const rdma_task_names[RDMA_TASK_KINDS] = {
	[RDMA_TASK_RECEIVE] = "rdma receive",
	[RDMA_TASK_SEND] = "rdma send",
	[RDMA_TASK_SEND_IMM] = "rdma send_imm",
	[RDMA_TASK_READ] = "rdma read",
	[RDMA_TASK_WRITE] = "rdma write",
	[RDMA_TASK_WRITE_IMM] = "rdma write_imm",
	[RDMA_TASK_ATOMIC_CMP_SWP] = "rdma atomic_cmp_swp",
	[RDMA_TASK_ATOMIC_FETCH_ADD] = "rdma atomic_fetch_add",
	[RDMA_TASK_NET_SE_GET] = "rdma remote_net_sync_event_get",
	[RDMA_TASK_NET_SE_SET] = "rdma remote_net_sync_event_notify_set",
	[RDMA_TASK_NET_SE_ADD] = "rdma remote_net_sync_event_notify_add",
};

static inline struct doca_rdma *rdma_of(const struct rdma_task *task)
{
	return ferry_container_of(task->base.ctx, struct doca_rdma, ctx);
}

/* ---- operations and UCX completions (callbacks run inside ucp_worker_progress: record only) ---- */

#define OPS_PER_CHUNK 64u

/* Whether nothing of @p task is left to do: no operation in flight, no request to send, no message waiting. */
static bool task_idle(const struct rdma_task *task)
{
	return task->pending == 0 && task->rma_left == 0 && !task->awaiting_msg;
}

void rdma_task_settle(struct rdma_task *task)
{
	if (task_idle(task))
		ferry_task_list_push(&rdma_of(task)->done, &task->base);
	else if (task->pending == 0 && task->awaiting_msg)
		rdma_of(task)->deferred = true; /* a write with immediate's message may go */
}

/* One operation of @p task ended with @p status (the first error wins). */
static void task_op_done(struct rdma_task *task, doca_error_t status)
{
	task->pending--;
	if (status != DOCA_SUCCESS && task->status == DOCA_SUCCESS)
		task->status = status;
	rdma_task_settle(task);
}

static void op_done(struct rdma_task *task, ucs_status_t st, bool on_conn)
{
	struct doca_rdma *rdma = rdma_of(task);
	doca_error_t status = DOCA_SUCCESS;

	if (st != UCS_OK) {
		/* An operation that failed because the peer is gone says so, whatever UCX's own code. */
		if (on_conn && !rdma->stopping && rdma_conn_peer_gone(task->conn))
			status = DOCA_ERROR_CONNECTION_RESET;
		else
			status = rdma_status_of(rdma, st);
	}
	task_op_done(task, status);
}

static struct rdma_op *op_alloc(struct doca_rdma *rdma)
{
	struct rdma_op *op = rdma->free_ops;

	if (op == NULL) {
		void **chunk = ferry_malloc(sizeof(void *) + OPS_PER_CHUNK * sizeof(struct rdma_op));
		struct rdma_op *ops;

		if (chunk == NULL)
			return NULL;
		*chunk = rdma->op_chunks;
		rdma->op_chunks = chunk;
		ops = (struct rdma_op *)(void *)(chunk + 1);
		for (uint32_t i = 0; i < OPS_PER_CHUNK; i++) {
			ops[i].next = rdma->free_ops;
			rdma->free_ops = &ops[i];
		}
		op = rdma->free_ops;
	}
	rdma->free_ops = op->next;
	return op;
}

static void op_unlink(struct rdma_op *op)
{
	struct doca_rdma_connection *conn = op->conn;

	if (op->prev != NULL)
		op->prev->next = op->next;
	else
		conn->live = op->next;
	if (op->next != NULL)
		op->next->prev = op->prev;
	if (op->counts) {
		conn->ops--;
		conn->ops_done++;
	}
	if (op->timed)
		conn->timed_ops--;
}

/*
 * One-sided operations (put, get, atomic, flush) need nothing of the peer's
 * program, so when none completes for FERRY_RDMA_TIMEOUT_MS the link is gone
 * (rdma.c: check_stalls_locked). Messages are not timed: a large one waits,
 * legitimately, for the peer to post a receive.
 */
struct rdma_op *rdma_op_timed(struct rdma_op *op)
{
	if (op != NULL) {
		op->timed = true;
		op->conn->timed_ops++;
	}
	return op;
}

/* An operation of @p task on @p conn begins; NULL when no memory is left (the caller fails the task). */
struct rdma_op *rdma_op_begin(struct rdma_task *task, struct doca_rdma_connection *conn, bool counts)
{
	struct rdma_op *op = op_alloc(rdma_of(task));

	if (op == NULL)
		return NULL;
	op->task = task;
	op->conn = conn;
	op->counts = counts;
	op->is_atomic = false;
	op->timed = false;
	op->prev = NULL;
	op->next = conn->live;
	if (conn->live != NULL)
		conn->live->prev = op;
	conn->live = op;
	if (counts)
		conn->ops++;
	task->pending++;
	return op;
}

/* Take @p op off its task; false when it was detached (then it is freed here, and nothing else happens). */
static bool op_release(struct rdma_op *op)
{
	struct doca_rdma *rdma = op->conn->rdma;
	bool attached = op->task != NULL;

	if (!attached)
		rdma->orphan_ops--; /* the task went back to the program already */
	else
		op_unlink(op);
	if (attached && op->is_atomic)
		op->task->reply = op->reply;
	op->next = rdma->free_ops;
	rdma->free_ops = op;
	return attached;
}

static void op_end(struct rdma_op *op, ucs_status_t st)
{
	struct rdma_task *task = op->task;
	bool counts = op->counts;

	if (op_release(op))
		op_done(task, st, counts);
}

void rdma_op_finish(struct rdma_op *op, doca_error_t status)
{
	struct rdma_task *task = op->task;

	if (op_release(op))
		task_op_done(task, status);
}

void rdma_conn_detach_ops(struct doca_rdma_connection *conn, doca_error_t status)
{
	struct doca_rdma *rdma = conn->rdma;

	while (conn->live != NULL) {
		struct rdma_op *op = conn->live;
		struct rdma_task *task = op->task;

		op_unlink(op);
		op->task = NULL;
		rdma->orphan_ops++;
		if (task->status == DOCA_SUCCESS)
			task->status = status;
		task->pending--;
		if (task_idle(task))
			ferry_task_list_push(&rdma->done, &task->base);
	}
	rdma_rma_detach(conn, status);
}

void rdma_free_ops(struct doca_rdma *rdma)
{
	void **chunk = rdma->op_chunks;

	while (chunk != NULL) {
		void **next = *chunk;

		free(chunk);
		chunk = next;
	}
	rdma->op_chunks = NULL;
	rdma->free_ops = NULL;
}

static void send_cb(void *request, ucs_status_t status, void *user_data)
{
	ucp_request_free(request);
	op_end(user_data, status);
}

static void recv_cb(void *request, ucs_status_t status, size_t length, void *user_data)
{
	(void)length;
	ucp_request_free(request);
	op_end(user_data, status);
}

/* UCX accepted the operation (its callback ends it), finished it at once (NULL) or refused it. */
static void op_issued(struct rdma_op *op, ucs_status_ptr_t req)
{
	if (req == NULL)
		op_end(op, UCS_OK);
	else if (UCS_PTR_IS_ERR(req))
		op_end(op, UCS_PTR_STATUS(req));
}

static void op_params(ucp_request_param_t *p, struct rdma_op *op)
{
	memset(p, 0, sizeof(*p));
	p->op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
	p->cb.send = send_cb;
	p->user_data = op;
}

/* Begin an operation on the task's connection, or fail the task for lack of memory. */
static struct rdma_op *op_start(struct rdma_task *task, ucp_request_param_t *p)
{
	struct rdma_op *op = rdma_op_begin(task, task->conn, true);

	if (op == NULL) {
		FERRY_ERR("%s task %p: no memory to track a UCX operation", rdma_task_names[task->kind], (void *)task);
		if (task->status == DOCA_SUCCESS)
			task->status = DOCA_ERROR_NO_MEMORY;
		return NULL;
	}
	op_params(p, op);
	return op;
}

/* ---- issue ---- */

static void send_am(struct rdma_task *task)
{
	struct doca_rdma_connection *conn = task->conn;
	/* A write with immediate's message carries no bytes (task->bytes is 0 by then). */
	const void *data = task->bytes != 0 ? task->segs[0].buffer : NULL;
	size_t count = task->bytes;
	ucp_request_param_t p;
	struct rdma_op *op;

	task->hdr.dst_token = conn->peer_token;
	task->hdr.dst_conn = conn->peer_conn;
	task->hdr.key_hi = (uint16_t)(conn->msg_key_out >> 32);
	task->hdr.key_lo = (uint32_t)conn->msg_key_out;
	op = op_start(task, &p);
	if (op == NULL) {
		if (task->pending == 0)
			ferry_task_list_push(&rdma_of(task)->done, &task->base);
		return;
	}
	if (task->bytes != 0 && task->num_segs > 1) {
		/* A list: UCX gathers the segments from the op's copy of their table. */
		memcpy(op->iov, task->segs, task->num_segs * sizeof(op->iov[0]));
		p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
		p.datatype = UCP_DATATYPE_IOV;
		data = op->iov;
		count = task->num_segs;
	}
	op_issued(op, ucp_am_send_nbx(conn->ep, RDMA_AM_ID, &task->hdr, sizeof(task->hdr), data, count, &p));
}

/* Whether the deferred message of @p task may go now. */
static bool message_may_go(const struct rdma_task *task)
{
	/* A write with immediate's message goes once its own requests are answered (they may fail). */
	if (task->kind == RDMA_TASK_WRITE_IMM && (task->pending != 0 || task->rma_left != 0))
		return false;
	return task->conn->rma_sent >= task->msg_after;
}

/* The message of @p task goes, or, when the write before it failed, the task completes without it. */
static void message_go(struct rdma_task *task)
{
	if (task->status == DOCA_SUCCESS)
		send_am(task);
	else if (task_idle(task))
		ferry_task_list_push(&rdma_of(task)->done, &task->base);
}

/*
 * A message: at once, or behind what must reach the peer first: the
 * one-sided requests of tasks submitted before it (conn->rma_sent counts the
 * tasks whose requests are all sent; the peer handles them in order), and
 * the messages before it.
 */
static void send_message(struct rdma_task *task, uint32_t opcode)
{
	struct doca_rdma_connection *conn = task->conn;

	task->hdr.opcode = (uint16_t)opcode;
	task->hdr.imm = task->imm;
	task->msg_after = conn->rma_queued;
	if (conn->deferred.head == NULL && message_may_go(task)) {
		message_go(task);
		return;
	}
	task->awaiting_msg = true;
	ferry_task_list_push(&conn->deferred, &task->base);
	rdma_of(task)->deferred = true;
}

void rdma_conn_run_deferred(struct doca_rdma_connection *conn)
{
	struct doca_task *t;

	while ((t = conn->deferred.head) != NULL) {
		struct rdma_task *task = rdma_task_of(t);

		if (!message_may_go(task))
			return;
		(void)ferry_task_list_pop(&conn->deferred);
		task->awaiting_msg = false;
		message_go(task);
	}
}

/* The export of the remote buf's mmap, checked against what the task does. */
static doca_error_t remote_access(struct rdma_task *task, const struct doca_buf *remote, uint32_t need)
{
	const struct ferry_rdma_mem_import *imp = ferry_mmap_rdma_import(ferry_buf_mmap(remote));
	const char *what = need == DOCA_ACCESS_FLAG_RDMA_READ    ? "read"
			   : need == DOCA_ACCESS_FLAG_RDMA_WRITE ? "write"
								 : "atomic";

	if ((imp->access & need) == 0) {
		FERRY_ERR("%s task %p: the remote mmap was exported without RDMA %s permission",
			  rdma_task_names[task->kind], (void *)task, what);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if ((task->conn->peer_perm & need) == 0) {
		FERRY_ERR("%s task %p: the peer's RDMA context does not allow remote %s (doca_rdma_set_permissions)",
			  rdma_task_names[task->kind], (void *)task, what);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	task->rma_export_id = imp->export_id;
	task->rma_key = imp->key;
	return DOCA_SUCCESS;
}

static bool remote_by_link(const struct doca_buf *remote)
{
	const struct ferry_rdma_mem_import *imp = ferry_mmap_rdma_import(ferry_buf_mmap(remote));

	return __builtin_expect(imp->by_link, 0);
}

/*
 * A read or write of a re-export: the bytes go through the remote mmap's link
 * import (its network path to the peer's server, which reaches the host's
 * memory through its own import), as DOCA DMA copies a network import. Each
 * piece is a round trip to that server, which may be slow, stopped or on
 * another continent: the copy runs on the context's link thread
 * (rdma_link.c), not in doca_task_submit and not under the lock. Called
 * there, without the lock.
 */
doca_error_t rdma_task_link_copy(struct rdma_task *task)
{
	bool read = task->kind == RDMA_TASK_READ;
	const struct ferry_access *a = ferry_mmap_access_path(ferry_buf_mmap(read ? task->src : task->dst));
	doca_error_t err = DOCA_SUCCESS;
	uint64_t at = task->remote_addr;

	/* Segment by segment: a read's destination list, a write's source list (one segment when a single buf). */
	for (uint32_t i = 0; i < task->num_segs && err == DOCA_SUCCESS; i++) {
		if (read)
			err = a->ops->read(a, task->segs[i].buffer, at, task->segs[i].length);
		else
			err = a->ops->write(a, at, task->segs[i].buffer, task->segs[i].length);
		at += task->segs[i].length;
	}
	return err;
}

/* The copy of @p task is over with @p err (the lock held): it completes, or a write with immediate sends its message. */
void rdma_task_link_done(struct rdma_task *task, doca_error_t err)
{
	if (err == DOCA_SUCCESS && task->kind == RDMA_TASK_WRITE_IMM) {
		if (task->conn->state != RDMA_CONN_CONNECTED || rdma_of(task)->stopping) {
			/* The bytes landed; the connection that was to carry the immediate is gone meanwhile. */
			rdma_task_finish(task, DOCA_ERROR_CONNECTION_RESET);
			return;
		}
		task->written = task->bytes;
		task->bytes = 0;
		send_message(task, DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM);
		return;
	}
	rdma_task_finish(task, err);
}

/* ---- network sync events: 8 bytes of the peer's event, read, written or added to ---- */

static const uint32_t net_se_need[RDMA_TASK_KINDS] = {
	[RDMA_TASK_NET_SE_GET] = DOCA_ACCESS_FLAG_RDMA_READ,
	[RDMA_TASK_NET_SE_SET] = DOCA_ACCESS_FLAG_RDMA_WRITE,
	[RDMA_TASK_NET_SE_ADD] = DOCA_ACCESS_FLAG_RDMA_ATOMIC,
};

/* The exporter exported the value for all three (core checked the import); its context must allow it too. */
static doca_error_t net_se_access(struct rdma_task *task)
{
	uint32_t need = net_se_need[task->kind];

	if ((task->event_imp->access & need) == 0 || (task->conn->peer_perm & need) == 0) {
		FERRY_ERR("%s task %p: the peer's %s does not allow remote %s", rdma_task_names[task->kind],
			  (void *)task,
			  (task->event_imp->access & need) == 0 ? "sync event export"
								: "RDMA context (doca_rdma_set_permissions)",
			  need == DOCA_ACCESS_FLAG_RDMA_READ    ? "reads"
			  : need == DOCA_ACCESS_FLAG_RDMA_WRITE ? "writes"
								: "atomics");
		return DOCA_ERROR_NOT_PERMITTED;
	}
	task->rma_export_id = task->event_imp->export_id;
	task->rma_key = task->event_imp->key;
	return DOCA_SUCCESS;
}

void rdma_task_issue(struct rdma_task *task)
{
	doca_error_t err;

	if (rdma_link_holds(task))
		return; /* behind a re-export's copy on its connection: issued, in order, once that is done */

	switch (task->kind) {
	case RDMA_TASK_SEND:
		send_message(task, DOCA_RDMA_OPCODE_RECV_SEND);
		return;
	case RDMA_TASK_SEND_IMM:
		send_message(task, DOCA_RDMA_OPCODE_RECV_SEND_WITH_IMM);
		return;
	case RDMA_TASK_READ:
		err = remote_access(task, task->src, DOCA_ACCESS_FLAG_RDMA_READ);
		if (err != DOCA_SUCCESS)
			break;
		if (task->bytes == 0) {
			rdma_task_finish(task, DOCA_SUCCESS);
			return;
		}
		if (remote_by_link(task->src)) {
			rdma_link_issue(task);
			return;
		}
		rdma_rma_issue(task, task->bytes);
		return;
	case RDMA_TASK_WRITE:
	case RDMA_TASK_WRITE_IMM:
		err = remote_access(task, task->dst, DOCA_ACCESS_FLAG_RDMA_WRITE);
		if (err != DOCA_SUCCESS)
			break;
		if (remote_by_link(task->dst)) {
			rdma_link_issue(task);
			return;
		}
		if (task->kind == RDMA_TASK_WRITE_IMM) {
			/* The immediate travels alone once the bytes are in the peer's memory (their answers). */
			uint64_t bytes = task->bytes;

			task->written = bytes;
			task->bytes = 0;
			task->awaiting_msg = true; /* its message decides when it completes */
			rdma_rma_issue(task, bytes);
			task->awaiting_msg = false;
			send_message(task, DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM);
			return;
		}
		if (task->bytes == 0) {
			rdma_task_finish(task, DOCA_SUCCESS);
			return;
		}
		rdma_rma_issue(task, task->bytes);
		return;
	case RDMA_TASK_NET_SE_GET:
	case RDMA_TASK_NET_SE_SET:
	case RDMA_TASK_NET_SE_ADD:
		err = net_se_access(task);
		if (err != DOCA_SUCCESS)
			break;
		rdma_rma_issue(task, sizeof(uint64_t));
		return;
	case RDMA_TASK_ATOMIC_CMP_SWP:
	case RDMA_TASK_ATOMIC_FETCH_ADD:
		err = remote_access(task, task->dst, DOCA_ACCESS_FLAG_RDMA_ATOMIC);
		if (err != DOCA_SUCCESS)
			break;
		rdma_rma_issue(task, sizeof(uint64_t));
		return;
	default:
		err = DOCA_ERROR_UNEXPECTED;
		break;
	}
	rdma_task_finish(task, err);
}

/* ---- lists of destination bufs (a receive's, a read's) ---- */

/* The free space after the data of every buf of the list @p head. */
static size_t list_room(const struct doca_buf *head)
{
	size_t room = 0;

	for (const struct doca_buf *b = head; b != NULL; b = ferry_buf_next(b))
		room += ferry_buf_room_after_data(b);
	return room;
}

/* Segments of the list's free space, in order, covering exactly @p len bytes (at most RDMA_MAX_BUF_LIST). */
static uint32_t list_segments(struct doca_buf *head, size_t len, ucp_dt_iov_t *iov)
{
	uint32_t n = 0;

	for (struct doca_buf *b = head; b != NULL && len > 0 && n < RDMA_MAX_BUF_LIST; b = ferry_buf_next(b)) {
		size_t take = ferry_buf_room_after_data(b) < len ? ferry_buf_room_after_data(b) : len;

		if (take == 0)
			continue;
		iov[n].buffer = ferry_buf_data_end(b);
		iov[n].length = take;
		n++;
		len -= take;
	}
	return n;
}

/* A delivery of @p len bytes into the list's free space: each buf's data grows by what it took. */
static void list_grow(struct doca_buf *head, size_t len)
{
	for (struct doca_buf *b = head; b != NULL && len > 0; b = ferry_buf_next(b)) {
		size_t take = ferry_buf_room_after_data(b) < len ? ferry_buf_room_after_data(b) : len;

		ferry_buf_set_data_len_trusted(b, ferry_buf_data_len(b) + take);
		len -= take;
	}
}

/* ---- receive ---- */

void rdma_receive_fill(struct rdma_task *task, struct rdma_unexpected *u)
{
	struct doca_rdma *rdma = rdma_of(task);
	size_t room = task->dst != NULL ? list_room(task->dst) : 0;

	task->result_opcode = u->hdr.opcode;
	task->result_imm = u->hdr.imm;
	task->result_len = (uint32_t)u->len;
	task->result_conn = u->conn;
	if (u->len > room) {
		FERRY_ERR("rdma receive task %p: a message of %zu bytes does not fit the %zu free bytes of its "
			  "destination",
			  (void *)task, u->len, room);
		if (u->data != NULL && u->is_desc)
			ucp_am_data_release(rdma->worker, u->data);
		else if (!u->borrowed)
			free(u->data);
		rdma_task_finish(task, DOCA_ERROR_TOO_BIG);
		return;
	}
	if (u->len == 0) {
		rdma_task_finish(task, DOCA_SUCCESS);
		return;
	}
	if (u->is_rndv) {
		ucp_request_param_t p;
		struct rdma_op *op = rdma_op_begin(task, u->conn, false);

		if (op == NULL) {
			ucp_am_data_release(rdma->worker, u->data);
			rdma_task_finish(task, DOCA_ERROR_NO_MEMORY);
			return;
		}
		op_params(&p, op);
		p.cb.recv_am = recv_cb;
		if (task->dst != NULL && ferry_buf_next(task->dst) != NULL) {
			/* Into a list: UCX scatters over the segments, from the op's table. */
			p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
			p.datatype = UCP_DATATYPE_IOV;
			op_issued(op, ucp_am_recv_data_nbx(rdma->worker, u->data, op->iov,
							   list_segments(task->dst, u->len, op->iov), &p));
			return;
		}
		op_issued(op, ucp_am_recv_data_nbx(rdma->worker, u->data, ferry_buf_data_end(task->dst), u->len, &p));
		return;
	}
	{
		ucp_dt_iov_t seg[RDMA_MAX_BUF_LIST];
		uint32_t nseg = list_segments(task->dst, u->len, seg);
		size_t at = 0;

		for (uint32_t i = 0; i < nseg; i++) {
			memcpy(seg[i].buffer, (const uint8_t *)u->data + at, seg[i].length);
			at += seg[i].length;
		}
	}
	if (u->is_desc)
		ucp_am_data_release(rdma->worker, u->data);
	else if (!u->borrowed)
		free(u->data);
	rdma_task_finish(task, DOCA_SUCCESS);
}

/* ---- submit ---- */

static doca_error_t check_buf_in(const struct rdma_task *task, const struct doca_buf *buf, const char *side,
				 bool remote, bool need_write, bool in_list)
{
	const struct doca_rdma *rdma = rdma_of(task);
	const struct doca_mmap *mmap = ferry_buf_mmap(buf);
	const char *name = rdma_task_names[task->kind];

	if (ferry_buf_next(buf) != NULL && !(in_list && !remote))
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "%s task %p: the %s buf is a list; only a local source or a receive's "
				     "or read's destination may be one",
				     name, (const void *)task, side);
	if (mmap == NULL || !ferry_mmap_task_may_use(mmap))
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_BAD_STATE,
				     "%s task %p: the %s buf belongs to an mmap that is not started or no longer valid",
				     name, (const void *)task, side);
	if (remote) {
		if (ferry_mmap_rdma_import(mmap) == NULL)
			return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
					     "%s task %p: the %s buf must come from an mmap created from a "
					     "doca_mmap_export_rdma descriptor",
					     name, (const void *)task, side);
		return DOCA_SUCCESS;
	}
	if (ferry_mmap_rdma_import(mmap) != NULL || ferry_mmap_is_import(mmap))
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "%s task %p: the %s buf must be memory of this process, not of an imported mmap",
				     name, (const void *)task, side);
	if (!ferry_mmap_has_dev(mmap, rdma->ctx.dev))
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "%s task %p: the %s buf's mmap does not hold the RDMA context's device "
				     "(doca_mmap_add_dev)",
				     name, (const void *)task, side);
	if (need_write && (ferry_mmap_access(mmap) & DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) == 0)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_NOT_PERMITTED,
				     "%s task %p: the %s buf's mmap is read-only (DOCA_ACCESS_FLAG_LOCAL_READ_WRITE)",
				     name, (const void *)task, side);
	return DOCA_SUCCESS;
}

static doca_error_t check_buf(const struct rdma_task *task, const struct doca_buf *buf, const char *side, bool remote,
			      bool need_write)
{
	return check_buf_in(task, buf, side, remote, need_write, false);
}

/*
 * A local source that may be a list of up to max_send_buf_list_len bufs: each
 * checked as one, their data segments gathered in order (empty ones skipped).
 * task->bytes is their sum.
 */
static doca_error_t check_src_list(struct rdma_task *task)
{
	const struct doca_rdma *rdma = rdma_of(task);
	uint32_t n = 0;

	task->bytes = 0;
	task->num_segs = 0;
	for (const struct doca_buf *b = task->src; b != NULL; b = ferry_buf_next(b)) {
		doca_error_t err;

		if (++n > rdma->max_send_buf_list_len)
			return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
					     "%s task %p: the source is a list of more than %u bufs "
					     "(doca_rdma_set_max_send_buf_list_len)",
					     rdma_task_names[task->kind], (const void *)task,
					     rdma->max_send_buf_list_len);
		err = check_buf_in(task, b, "source", false, false, true);
		if (err != DOCA_SUCCESS)
			return err;
		if (ferry_buf_data_len(b) == 0)
			continue;
		task->segs[task->num_segs].buffer = ferry_buf_data(b);
		task->segs[task->num_segs].length = ferry_buf_data_len(b);
		task->num_segs++;
		task->bytes += ferry_buf_data_len(b);
	}
	return DOCA_SUCCESS;
}

/*
 * A local destination that may be a list of up to @p max bufs (the setter
 * @p setter names), each checked as one: a receive's (its list length) or a
 * read's (max_send_buf_list_len: a read is posted on the send side, as in
 * verbs). The bytes fill the free space after each buf's data, in order.
 */
static doca_error_t check_dst_list(const struct rdma_task *task, uint32_t max, const char *setter)
{
	uint32_t n = 0;

	for (const struct doca_buf *b = task->dst; b != NULL; b = ferry_buf_next(b)) {
		doca_error_t err;

		if (++n > max)
			return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
					     "%s task %p: the destination is a list of more than %u bufs (%s)",
					     rdma_task_names[task->kind], (const void *)task, max, setter);
		err = check_buf_in(task, b, "destination", false, true, true);
		if (err != DOCA_SUCCESS)
			return err;
	}
	return DOCA_SUCCESS;
}

static doca_error_t check_size(const struct rdma_task *task, uint64_t bytes, uint64_t room, const char *room_side)
{
	const char *name = rdma_task_names[task->kind];

	if (bytes > RDMA_MAX_MESSAGE)
		return FERRY_RULE_IN(
			"doca_task_submit", DOCA_ERROR_INVALID_VALUE,
			"%s task %p: %llu bytes, above the limit of %u (doca_rdma_cap_get_max_message_size)", name,
			(const void *)task, (unsigned long long)bytes, RDMA_MAX_MESSAGE);
	if (room_side != NULL && bytes > room)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "%s task %p: %llu bytes do not fit the %llu free bytes after the %s buf's data",
				     name, (const void *)task, (unsigned long long)bytes, (unsigned long long)room,
				     room_side);
	return DOCA_SUCCESS;
}

/* The remote buf's segment must lie in the export's range (an mmap's bufs do; the check costs little). */
static doca_error_t check_remote_range(const struct rdma_task *task, const struct doca_buf *remote, uint64_t addr,
				       uint64_t len)
{
	const struct ferry_rdma_mem_import *imp = ferry_mmap_rdma_import(ferry_buf_mmap(remote));

	if (addr < imp->addr || addr - imp->addr > imp->len || len > imp->len - (addr - imp->addr))
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "%s task %p: remote range 0x%llx + %llu is outside the export (0x%llx + %llu)",
				     rdma_task_names[task->kind], (const void *)task, (unsigned long long)addr,
				     (unsigned long long)len, (unsigned long long)imp->addr,
				     (unsigned long long)imp->len);
	return DOCA_SUCCESS;
}

/* The event must be one doca_sync_event_remote_net_create_from_export made; the local buf holds 8 bytes. */
static doca_error_t check_net_sync_event(struct rdma_task *task)
{
	const char *name = rdma_task_names[task->kind];
	bool is_set = task->kind == RDMA_TASK_NET_SE_SET;
	struct doca_buf *out = task->kind == RDMA_TASK_NET_SE_GET ? task->dst : task->result;
	const struct doca_buf *local = is_set ? task->src : out;
	const char *side = is_set ? "source" : task->kind == RDMA_TASK_NET_SE_GET ? "destination" : "result";
	const void *imp;
	doca_error_t err;

	if (!ferry_sync_event_remote_net_view(task->event, "doca_task_submit", &imp, &task->remote_addr))
		return DOCA_ERROR_INVALID_VALUE;
	task->event_imp = imp;
	if (local == NULL)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE, "%s task %p has no %s buf", name,
				     (void *)task, side);
	err = check_buf(task, local, side, false, !is_set);
	if (err != DOCA_SUCCESS)
		return err;
	if (is_set) {
		if (ferry_buf_data_len(local) != sizeof(uint64_t))
			return FERRY_RULE_IN(
				"doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				"%s task %p: the source buf holds %zu bytes of data; an event's value is 8", name,
				(void *)task, ferry_buf_data_len(local));
		/* As the hardware reads it when the task starts; programs reuse the source (NVIDIA's get writes it). */
		memcpy(&task->set_value, ferry_buf_data(local), sizeof(task->set_value));
	} else {
		if (ferry_buf_room_after_data(out) < sizeof(uint64_t))
			return FERRY_RULE_IN(
				"doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				"%s task %p: the %s buf has %zu free bytes after its data; the value needs 8", name,
				(void *)task, side, ferry_buf_room_after_data(out));
		task->local_ptr = ferry_buf_data_end(out);
	}
	task->bytes = sizeof(uint64_t);
	return DOCA_SUCCESS;
}

/*
 * An atomic works on the 8 bytes at the remote buf's data address (DOCA: the
 * first 8 bytes of its data); they must be aligned, inside the buf and inside
 * the export. The old value goes after the result buf's data.
 */
static doca_error_t check_atomic(struct rdma_task *task)
{
	const char *name = rdma_task_names[task->kind];
	uint64_t word = sizeof(uint64_t);
	doca_error_t err;

	if (task->dst == NULL || task->result == NULL)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE, "%s task %p has no %s buf", name,
				     (void *)task, task->dst == NULL ? "destination" : "result");
	err = check_buf(task, task->dst, "destination", true, false);
	if (err == DOCA_SUCCESS)
		err = check_buf(task, task->result, "result", false, true);
	if (err != DOCA_SUCCESS)
		return err;
	if (remote_by_link(task->dst))
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_NOT_SUPPORTED,
				     "%s task %p: the remote mmap is a re-export of a PCI import, whose bytes are "
				     "copied through the exporter's link path, not registered: no atomics on it",
				     name, (void *)task);
	task->remote_addr = (uint64_t)(uintptr_t)ferry_buf_data(task->dst);
	if ((task->remote_addr & (word - 1)) != 0)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "%s task %p: remote address 0x%llx is not 8-byte aligned (atomics work on an "
				     "aligned 64-bit word)",
				     name, (void *)task, (unsigned long long)task->remote_addr);
	if (ferry_buf_data_len(task->dst) + ferry_buf_room_after_data(task->dst) < word)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "%s task %p: the destination buf holds fewer than 8 bytes from its data address",
				     name, (void *)task);
	if (ferry_buf_room_after_data(task->result) < word)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "%s task %p: the result buf has %llu free bytes after its data; the old value "
				     "needs 8",
				     name, (void *)task, (unsigned long long)ferry_buf_room_after_data(task->result));
	task->local_ptr = ferry_buf_data_end(task->result);
	return check_remote_range(task, task->dst, task->remote_addr, word);
}

static doca_error_t check_task(struct rdma_task *task)
{
	const char *name = rdma_task_names[task->kind];
	struct doca_rdma *rdma = rdma_of(task);
	doca_error_t err;

	if (task->kind != RDMA_TASK_RECEIVE) {
		struct doca_rdma_connection *conn = task->conn;

		if (conn == NULL || conn < rdma->conns || conn >= rdma->conns + rdma->num_conns ||
		    conn->state == RDMA_CONN_FREE)
			return FERRY_RULE_IN(
				"doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				"%s task %p: connection %p is not a connection of this context in this run", name,
				(void *)task, (void *)conn);
		if (conn->id != task->conn_id)
			return FERRY_RULE_IN(
				"doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				"%s task %p: its connection was disconnected and its slot holds connection "
				"%u now; set the task's connection again",
				name, (void *)task, conn->id);
	}
	switch (task->kind) {
	case RDMA_TASK_RECEIVE:
		if (task->dst == NULL)
			return DOCA_SUCCESS; /* empty messages and writes with immediate only */
		return check_dst_list(task, rdma_of(task)->recv_buf_list_len,
				      "doca_rdma_task_receive_set_dst_buf_list_len");
	case RDMA_TASK_SEND:
	case RDMA_TASK_SEND_IMM:
		task->num_segs = 0;
		if (task->src == NULL)
			return DOCA_SUCCESS; /* an empty message */
		err = check_src_list(task);
		if (err != DOCA_SUCCESS)
			return err;
		return check_size(task, task->bytes, 0, NULL);
	case RDMA_TASK_READ:
		if (task->src == NULL || task->dst == NULL)
			break;
		err = check_buf(task, task->src, "source", true, false);
		if (err == DOCA_SUCCESS)
			err = check_dst_list(task, rdma_of(task)->max_send_buf_list_len,
					     "doca_rdma_set_max_send_buf_list_len");
		if (err != DOCA_SUCCESS)
			return err;
		task->bytes = ferry_buf_data_len(task->src);
		task->remote_addr = (uint64_t)(uintptr_t)ferry_buf_data(task->src);
		err = check_size(task, task->bytes, list_room(task->dst), "destination");
		if (err != DOCA_SUCCESS)
			return err;
		task->num_segs = list_segments(task->dst, task->bytes, task->segs);
		return check_remote_range(task, task->src, task->remote_addr, task->bytes);
	case RDMA_TASK_WRITE:
	case RDMA_TASK_WRITE_IMM:
		if (task->src == NULL || task->dst == NULL)
			break;
		err = check_src_list(task);
		if (err == DOCA_SUCCESS)
			err = check_buf(task, task->dst, "destination", true, false);
		if (err != DOCA_SUCCESS)
			return err;
		task->remote_addr = (uint64_t)(uintptr_t)ferry_buf_data_end(task->dst);
		err = check_size(task, task->bytes, ferry_buf_room_after_data(task->dst), "destination");
		if (err != DOCA_SUCCESS)
			return err;
		return check_remote_range(task, task->dst, task->remote_addr, task->bytes);
	case RDMA_TASK_ATOMIC_CMP_SWP:
	case RDMA_TASK_ATOMIC_FETCH_ADD:
		return check_atomic(task);
	case RDMA_TASK_NET_SE_GET:
	case RDMA_TASK_NET_SE_SET:
	case RDMA_TASK_NET_SE_ADD:
		return check_net_sync_event(task);
	default:
		return DOCA_ERROR_UNEXPECTED;
	}
	return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE, "%s task %p has no %s buf", name,
			     (void *)task, task->src == NULL ? "source" : "destination");
}

doca_error_t rdma_task_submit(struct rdma_task *task)
{
	struct doca_rdma *rdma = rdma_of(task);
	doca_error_t err;

	task->status = DOCA_SUCCESS;
	task->pending = 0;
	task->bytes = 0;
	task->written = 0;
	task->awaiting_msg = false;
	task->rma_left = 0;
	task->result_conn = NULL;
	err = check_task(task);
	if (err != DOCA_SUCCESS)
		return err;
	if (task->kind == RDMA_TASK_RECEIVE) {
		ferry_task_list_push(&rdma->receives, &task->base);
		return DOCA_SUCCESS;
	}
	switch (task->conn->state) {
	case RDMA_CONN_EXPORTED:
	case RDMA_CONN_REQUESTED:
	case RDMA_CONN_CONNECTING:
		/* As RC retries until the peer is there: wait for doca_rdma_connect, or the peer's hello. */
		ferry_task_list_push(&task->conn->waiting, &task->base);
		break;
	case RDMA_CONN_CONNECTED:
		rdma_task_issue(task);
		break;
	default:
		rdma_task_finish(task, DOCA_ERROR_CONNECTION_RESET);
		break;
	}
	return DOCA_SUCCESS;
}

/* ---- completion (progress) ---- */

void rdma_task_deliver(struct rdma_task *task)
{
	if (task->status == DOCA_SUCCESS && !task->base.orphaned) {
		/* An orphan's bufs are no longer the task's: the program may have freed them. */
		switch (task->kind) {
		case RDMA_TASK_RECEIVE:
			if (task->dst != NULL)
				list_grow(task->dst, task->result_len);
			break;
		case RDMA_TASK_READ:
			list_grow(task->dst, task->bytes); /* a single buf is a list of one */
			break;
		case RDMA_TASK_WRITE:
			ferry_buf_set_data_len_trusted(task->dst, ferry_buf_data_len(task->dst) + task->bytes);
			break;
		case RDMA_TASK_WRITE_IMM:
			ferry_buf_set_data_len_trusted(task->dst, ferry_buf_data_len(task->dst) + task->written);
			break;
		case RDMA_TASK_NET_SE_GET:
			ferry_buf_set_data_len_trusted(task->dst, ferry_buf_data_len(task->dst) + sizeof(uint64_t));
			break;
		case RDMA_TASK_ATOMIC_CMP_SWP:
		case RDMA_TASK_ATOMIC_FETCH_ADD:
		case RDMA_TASK_NET_SE_ADD:
			memcpy(task->local_ptr, &task->reply, sizeof(task->reply));
			ferry_buf_set_data_len_trusted(task->result,
						       ferry_buf_data_len(task->result) + sizeof(task->reply));
			break;
		default:
			break;
		}
	}
	ferry_task_complete(&task->base, task->status);
}

/* ---- public: per-type boilerplate ---- */

/* Setters may not change a task the context owns. */
static bool settable(const struct rdma_task *task, const char *call)
{
	if (task == NULL) {
		FERRY_ERR("%s: task is NULL", call);
		return false;
	}
	if (task->base.state != FERRY_TASK_ALLOCATED) {
		FERRY_ERR("%s: %s task %p is %s; only an allocated task that is not in flight can change", call,
			  rdma_task_names[task->kind], (const void *)task,
			  task->base.state == FERRY_TASK_SUBMITTED ? "in flight" : "free");
		return false;
	}
	return true;
}

static bool gettable(const void *task, const char *call)
{
	if (task == NULL) {
		FERRY_ERR("%s: task is NULL", call);
		return false;
	}
	return true;
}

static doca_error_t set_conf(struct doca_rdma *rdma, enum rdma_task_kind kind, bool have_ok, bool have_err,
			     uint32_t num_tasks, const char *call)
{
	doca_error_t err;

	if (rdma == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "rdma is NULL");
	if (!have_ok || !have_err)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "rdma %p: the %s callback is NULL; both are required", (void *)rdma,
				     !have_ok ? "success" : "error");
	err = ferry_ctx_check_idle(&rdma->ctx, call);
	if (err != DOCA_SUCCESS)
		return err;
	return ferry_task_pool_configure(&rdma->pools[kind], num_tasks, call);
}

static doca_error_t allocate(struct doca_rdma *rdma, enum rdma_task_kind kind, struct doca_rdma_connection *conn,
			     union doca_data user_data, bool out_null, const char *call, struct rdma_task **out)
{
	struct doca_task *base;
	struct rdma_task *task;
	doca_error_t err;

	if (rdma == NULL || out_null)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL", rdma == NULL ? "rdma" : "task");
	if (kind != RDMA_TASK_RECEIVE && conn == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "rdma %p: rdma_connection is NULL", (void *)rdma);
	err = ferry_task_pool_get(&rdma->pools[kind], call, &base);
	if (err != DOCA_SUCCESS)
		return err;
	task = rdma_task_of(base);
	base->user_data = user_data;
	task->kind = kind;
	task->conn = conn;
	task->conn_id = conn != NULL ? rdma_conn_stamp(rdma, conn) : UINT32_MAX;
	*out = task;
	return DOCA_SUCCESS;
}

/*
 * Per type X (struct doca_rdma_task_X, kind K): set_conf, as_task, the
 * trampoline to the typed callbacks and the connection accessors.
 */
#define RDMA_TASK_COMMON(X, K)                                                                                      \
	doca_error_t doca_rdma_task_##X##_set_conf(struct doca_rdma *rdma, doca_rdma_task_##X##_completion_cb_t ok, \
						   doca_rdma_task_##X##_completion_cb_t error, uint32_t num_tasks)  \
	{                                                                                                           \
		doca_error_t err = set_conf(rdma, K, ok != NULL, error != NULL, num_tasks, __func__);               \
		if (err == DOCA_SUCCESS) {                                                                          \
			rdma->X##_ok = ok;                                                                          \
			rdma->X##_err = error;                                                                      \
		}                                                                                                   \
		return err;                                                                                         \
	}                                                                                                           \
	struct doca_task *doca_rdma_task_##X##_as_task(struct doca_rdma_task_##X *task)                             \
	{                                                                                                           \
		return gettable(task, __func__) ? &task->t.base : NULL;                                             \
	}                                                                                                           \
	static void X##_trampoline(struct doca_task *base, union doca_data task_user_data,                          \
				   union doca_data ctx_user_data, bool success)                                     \
	{                                                                                                           \
		struct rdma_task *task = rdma_task_of(base);                                                        \
		struct doca_rdma *rdma = rdma_of(task);                                                             \
		struct doca_rdma_task_##X *typed = ferry_container_of(task, struct doca_rdma_task_##X, t);          \
		(success ? rdma->X##_ok : rdma->X##_err)(typed, task_user_data, ctx_user_data);                     \
	}

#define RDMA_TASK_CONN(X)                                                                           \
	void doca_rdma_task_##X##_set_rdma_connection(struct doca_rdma_task_##X *task,              \
						      struct doca_rdma_connection *rdma_connection) \
	{                                                                                           \
		if (task != NULL && settable(&task->t, __func__)) {                                 \
			task->t.conn = rdma_connection;                                             \
			task->t.conn_id = rdma_conn_stamp(rdma_of(&task->t), rdma_connection);      \
		}                                                                                   \
	}                                                                                           \
	const struct doca_rdma_connection *doca_rdma_task_##X##_get_rdma_connection(                \
		const struct doca_rdma_task_##X *task)                                              \
	{                                                                                           \
		return gettable(task, __func__) ? task->t.conn : NULL;                              \
	}

#define RDMA_TASK_SRC(X)                                                                                       \
	void doca_rdma_task_##X##_set_src_buf(struct doca_rdma_task_##X *task, const struct doca_buf *src_buf) \
	{                                                                                                      \
		if (task != NULL && settable(&task->t, __func__))                                              \
			task->t.src = src_buf;                                                                 \
	}                                                                                                      \
	const struct doca_buf *doca_rdma_task_##X##_get_src_buf(const struct doca_rdma_task_##X *task)         \
	{                                                                                                      \
		return gettable(task, __func__) ? task->t.src : NULL;                                          \
	}

#define RDMA_TASK_DST(X)                                                                                 \
	void doca_rdma_task_##X##_set_dst_buf(struct doca_rdma_task_##X *task, struct doca_buf *dst_buf) \
	{                                                                                                \
		if (task != NULL && settable(&task->t, __func__))                                        \
			task->t.dst = dst_buf;                                                           \
	}                                                                                                \
	struct doca_buf *doca_rdma_task_##X##_get_dst_buf(const struct doca_rdma_task_##X *task)         \
	{                                                                                                \
		return gettable(task, __func__) ? task->t.dst : NULL;                                    \
	}

#define RDMA_TASK_IMM(X)                                                                                          \
	void doca_rdma_task_##X##_set_immediate_data(struct doca_rdma_task_##X *task, doca_be32_t immediate_data) \
	{                                                                                                         \
		if (task != NULL && settable(&task->t, __func__))                                                 \
			task->t.imm = immediate_data;                                                             \
	}                                                                                                         \
	doca_be32_t doca_rdma_task_##X##_get_immediate_data(const struct doca_rdma_task_##X *task)                \
	{                                                                                                         \
		return gettable(task, __func__) ? task->t.imm : 0;                                                \
	}

RDMA_TASK_COMMON(receive, RDMA_TASK_RECEIVE)
RDMA_TASK_COMMON(send, RDMA_TASK_SEND)
RDMA_TASK_COMMON(send_imm, RDMA_TASK_SEND_IMM)
RDMA_TASK_COMMON(read, RDMA_TASK_READ)
RDMA_TASK_COMMON(write, RDMA_TASK_WRITE)
RDMA_TASK_COMMON(write_imm, RDMA_TASK_WRITE_IMM)
RDMA_TASK_COMMON(atomic_cmp_swp, RDMA_TASK_ATOMIC_CMP_SWP)
RDMA_TASK_COMMON(atomic_fetch_add, RDMA_TASK_ATOMIC_FETCH_ADD)
RDMA_TASK_COMMON(remote_net_sync_event_get, RDMA_TASK_NET_SE_GET)
RDMA_TASK_COMMON(remote_net_sync_event_notify_set, RDMA_TASK_NET_SE_SET)
RDMA_TASK_COMMON(remote_net_sync_event_notify_add, RDMA_TASK_NET_SE_ADD)

const ferry_task_complete_fn rdma_task_trampolines[RDMA_TASK_KINDS] = {
	[RDMA_TASK_RECEIVE] = receive_trampoline,
	[RDMA_TASK_SEND] = send_trampoline,
	[RDMA_TASK_SEND_IMM] = send_imm_trampoline,
	[RDMA_TASK_READ] = read_trampoline,
	[RDMA_TASK_WRITE] = write_trampoline,
	[RDMA_TASK_WRITE_IMM] = write_imm_trampoline,
	[RDMA_TASK_ATOMIC_CMP_SWP] = atomic_cmp_swp_trampoline,
	[RDMA_TASK_ATOMIC_FETCH_ADD] = atomic_fetch_add_trampoline,
	[RDMA_TASK_NET_SE_GET] = remote_net_sync_event_get_trampoline,
	[RDMA_TASK_NET_SE_SET] = remote_net_sync_event_notify_set_trampoline,
	[RDMA_TASK_NET_SE_ADD] = remote_net_sync_event_notify_add_trampoline,
};

RDMA_TASK_CONN(send)
RDMA_TASK_CONN(send_imm)
RDMA_TASK_CONN(read)
RDMA_TASK_CONN(write)
RDMA_TASK_CONN(write_imm)
RDMA_TASK_SRC(send)
RDMA_TASK_SRC(send_imm)
RDMA_TASK_SRC(read)
RDMA_TASK_SRC(write)
RDMA_TASK_SRC(write_imm)
RDMA_TASK_DST(receive)
RDMA_TASK_DST(read)
RDMA_TASK_DST(write)
RDMA_TASK_DST(write_imm)
RDMA_TASK_IMM(send_imm)
RDMA_TASK_IMM(write_imm)
RDMA_TASK_CONN(atomic_cmp_swp)
RDMA_TASK_CONN(atomic_fetch_add)
RDMA_TASK_DST(atomic_cmp_swp)
RDMA_TASK_DST(atomic_fetch_add)

/* A field of an atomic task: FIELD in struct rdma_task, NAME in DOCA's accessor. */
#define RDMA_TASK_FIELD(X, NAME, FIELD, TYPE)                                            \
	void doca_rdma_task_##X##_set_##NAME(struct doca_rdma_task_##X *task, TYPE NAME) \
	{                                                                                \
		if (task != NULL && settable(&task->t, __func__))                        \
			task->t.FIELD = NAME;                                            \
	}                                                                                \
	TYPE doca_rdma_task_##X##_get_##NAME(const struct doca_rdma_task_##X *task)      \
	{                                                                                \
		return gettable(task, __func__) ? task->t.FIELD : (TYPE)0;               \
	}

RDMA_TASK_FIELD(atomic_cmp_swp, result_buf, result, struct doca_buf *)
RDMA_TASK_FIELD(atomic_cmp_swp, cmp_data, compare, uint64_t)
RDMA_TASK_FIELD(atomic_cmp_swp, swap_data, operand, uint64_t)
RDMA_TASK_FIELD(atomic_fetch_add, result_buf, result, struct doca_buf *)
RDMA_TASK_FIELD(atomic_fetch_add, add_data, operand, uint64_t)

RDMA_TASK_CONN(remote_net_sync_event_get)
RDMA_TASK_CONN(remote_net_sync_event_notify_set)
RDMA_TASK_CONN(remote_net_sync_event_notify_add)
RDMA_TASK_DST(remote_net_sync_event_get)
RDMA_TASK_SRC(remote_net_sync_event_notify_set)

/* The event of a network sync event task; QUAL is const where DOCA's getter returns a const event. */
#define RDMA_TASK_EVENT(X, QUAL)                                                                                     \
	void doca_rdma_task_##X##_set_sync_event(struct doca_rdma_task_##X *task,                                    \
						 QUAL struct doca_sync_event_remote_net *event)                      \
	{                                                                                                            \
		if (task != NULL && settable(&task->t, __func__))                                                    \
			task->t.event = event;                                                                       \
	}                                                                                                            \
	QUAL struct doca_sync_event_remote_net *doca_rdma_task_##X##_get_sync_event(                                 \
		const struct doca_rdma_task_##X *task)                                                               \
	{                                                                                                            \
		/* Only a non-const event is stored where DOCA's getter returns one (notify_set, notify_add). */     \
		return gettable(task, __func__) ? (QUAL struct doca_sync_event_remote_net *)(uintptr_t)task->t.event \
						: NULL;                                                              \
	}

RDMA_TASK_EVENT(remote_net_sync_event_get, const)
RDMA_TASK_EVENT(remote_net_sync_event_notify_set, )
RDMA_TASK_EVENT(remote_net_sync_event_notify_add, )

RDMA_TASK_FIELD(remote_net_sync_event_notify_add, result_buf, result, struct doca_buf *)
RDMA_TASK_FIELD(remote_net_sync_event_notify_add, add_data, operand, uint64_t)

/* ---- public: allocation, per type ---- */

doca_error_t doca_rdma_task_receive_allocate_init(struct doca_rdma *rdma, struct doca_buf *dst_buf,
						  union doca_data user_data, struct doca_rdma_task_receive **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_RECEIVE, NULL, user_data, task == NULL, __func__, &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->dst = dst_buf;
	*task = ferry_container_of(t, struct doca_rdma_task_receive, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_send_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
					       const struct doca_buf *src_buf, union doca_data user_data,
					       struct doca_rdma_task_send **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_SEND, rdma_connection, user_data, task == NULL, __func__, &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->src = src_buf;
	*task = ferry_container_of(t, struct doca_rdma_task_send, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_send_imm_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
						   const struct doca_buf *src_buf, doca_be32_t immediate_data,
						   union doca_data user_data, struct doca_rdma_task_send_imm **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_SEND_IMM, rdma_connection, user_data, task == NULL, __func__, &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->src = src_buf;
	t->imm = immediate_data;
	*task = ferry_container_of(t, struct doca_rdma_task_send_imm, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_read_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
					       const struct doca_buf *src_buf, struct doca_buf *dst_buf,
					       union doca_data user_data, struct doca_rdma_task_read **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_READ, rdma_connection, user_data, task == NULL, __func__, &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->src = src_buf;
	t->dst = dst_buf;
	*task = ferry_container_of(t, struct doca_rdma_task_read, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_write_allocate_init(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
						const struct doca_buf *src_buf, struct doca_buf *dst_buf,
						union doca_data user_data, struct doca_rdma_task_write **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_WRITE, rdma_connection, user_data, task == NULL, __func__, &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->src = src_buf;
	t->dst = dst_buf;
	*task = ferry_container_of(t, struct doca_rdma_task_write, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_write_imm_allocate_init(struct doca_rdma *rdma,
						    struct doca_rdma_connection *rdma_connection,
						    const struct doca_buf *src_buf, struct doca_buf *dst_buf,
						    doca_be32_t immediate_data, union doca_data user_data,
						    struct doca_rdma_task_write_imm **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_WRITE_IMM, rdma_connection, user_data, task == NULL, __func__, &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->src = src_buf;
	t->dst = dst_buf;
	t->imm = immediate_data;
	*task = ferry_container_of(t, struct doca_rdma_task_write_imm, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_remote_net_sync_event_get_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection,
	const struct doca_sync_event_remote_net *event, struct doca_buf *dst_buf, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_get **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_NET_SE_GET, rdma_connection, user_data, task == NULL, __func__, &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->event = event;
	t->dst = dst_buf;
	*task = ferry_container_of(t, struct doca_rdma_task_remote_net_sync_event_get, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_remote_net_sync_event_notify_set_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, struct doca_sync_event_remote_net *event,
	const struct doca_buf *src_buf, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_notify_set **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_NET_SE_SET, rdma_connection, user_data, task == NULL, __func__, &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->event = event;
	t->src = src_buf;
	*task = ferry_container_of(t, struct doca_rdma_task_remote_net_sync_event_notify_set, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_remote_net_sync_event_notify_add_allocate_init(
	struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection, struct doca_sync_event_remote_net *event,
	struct doca_buf *result_buf, uint64_t add_data, union doca_data user_data,
	struct doca_rdma_task_remote_net_sync_event_notify_add **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_NET_SE_ADD, rdma_connection, user_data, task == NULL, __func__, &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->event = event;
	t->result = result_buf;
	t->operand = add_data;
	*task = ferry_container_of(t, struct doca_rdma_task_remote_net_sync_event_notify_add, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_atomic_cmp_swp_allocate_init(struct doca_rdma *rdma,
							 struct doca_rdma_connection *rdma_connection,
							 struct doca_buf *dst_buf, struct doca_buf *result_buf,
							 uint64_t cmp_data, uint64_t swap_data,
							 union doca_data user_data,
							 struct doca_rdma_task_atomic_cmp_swp **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_ATOMIC_CMP_SWP, rdma_connection, user_data, task == NULL, __func__,
				    &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->src = NULL;
	t->dst = dst_buf;
	t->result = result_buf;
	t->compare = cmp_data;
	t->operand = swap_data;
	*task = ferry_container_of(t, struct doca_rdma_task_atomic_cmp_swp, t);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_atomic_fetch_add_allocate_init(struct doca_rdma *rdma,
							   struct doca_rdma_connection *rdma_connection,
							   struct doca_buf *dst_buf, struct doca_buf *result_buf,
							   uint64_t add_data, union doca_data user_data,
							   struct doca_rdma_task_atomic_fetch_add **task)
{
	struct rdma_task *t;
	doca_error_t err = allocate(rdma, RDMA_TASK_ATOMIC_FETCH_ADD, rdma_connection, user_data, task == NULL,
				    __func__, &t);

	if (err != DOCA_SUCCESS)
		return err;
	t->src = NULL;
	t->dst = dst_buf;
	t->result = result_buf;
	t->operand = add_data;
	*task = ferry_container_of(t, struct doca_rdma_task_atomic_fetch_add, t);
	return DOCA_SUCCESS;
}

/* ---- public: results ---- */

enum doca_rdma_opcode doca_rdma_task_receive_get_result_opcode(const struct doca_rdma_task_receive *task)
{
	return gettable(task, __func__) ? (enum doca_rdma_opcode)task->t.result_opcode : DOCA_RDMA_OPCODE_RECV_SEND;
}

uint32_t doca_rdma_task_receive_get_result_len(const struct doca_rdma_task_receive *task)
{
	return gettable(task, __func__) ? task->t.result_len : 0;
}

doca_be32_t doca_rdma_task_receive_get_result_immediate_data(const struct doca_rdma_task_receive *task)
{
	return gettable(task, __func__) ? task->t.result_imm : 0;
}

const struct doca_rdma_connection *doca_rdma_task_receive_get_result_rdma_connection(
	const struct doca_rdma_task_receive *task)
{
	if (!gettable(task, __func__))
		return NULL;
	return task->t.base.status == DOCA_SUCCESS ? task->t.result_conn : NULL;
}

uint32_t doca_rdma_task_read_get_result_len(const struct doca_rdma_task_read *task)
{
	return gettable(task, __func__) ? (uint32_t)task->t.bytes : 0;
}

uint32_t doca_rdma_task_remote_net_sync_event_get_get_result_len(
	const struct doca_rdma_task_remote_net_sync_event_get *task)
{
	return gettable(task, __func__) ? (uint32_t)task->t.bytes : 0;
}

doca_error_t doca_rdma_task_receive_set_dst_buf_list_len(struct doca_rdma *rdma, uint32_t buf_list_len)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(rdma);
	err = ferry_ctx_check_idle(&rdma->ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (buf_list_len == 0 || buf_list_len > RDMA_MAX_BUF_LIST)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "rdma %p: receive lists of %u bufs; 1..%u "
				  "(doca_rdma_cap_task_receive_get_max_dst_buf_list_len)",
				  (void *)rdma, buf_list_len, RDMA_MAX_BUF_LIST);
	rdma->recv_buf_list_len = buf_list_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_task_receive_get_dst_buf_list_len(const struct doca_rdma *rdma, uint32_t *buf_list_len)
{
	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(buf_list_len);
	*buf_list_len = rdma->recv_buf_list_len;
	return DOCA_SUCCESS;
}
