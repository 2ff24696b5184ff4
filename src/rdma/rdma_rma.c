/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_rma.c - DOCA RDMA's one-sided operations (read, write, the two
 * atomics, a network sync event's get, set and add) as Ferry's own requests,
 * which the target checks and serves.
 *
 * Why not UCX's put, get and atomics: over shared memory and TCP, UCX 1.13
 * emulates them with active messages that carry a raw address, and the
 * target's worker copies to or from that address unchecked. Any peer that
 * reaches the worker could read and write the whole process with a key of
 * its own memory (tests/rdma/test_rdma_rogue_rma.c). So the process's UCP
 * context has neither RMA nor AMO (rdma_mem.c), UCX installs no handler for
 * them, and each access is a request of RDMA_AM_RMA_ID that names an export
 * (its id and 64-bit random key, from the memory descriptor), an address and
 * a length. The target checks it against its export table (rdma_mem.c) and
 * its own context's permissions, does it, and answers.
 *
 * Requester: a task's bytes go in requests of at most rdma->rma_chunk bytes
 * (one eager fragment of UCX, so the target gets each whole, in UCX's
 * buffer). Each request is an op with its connection's next sequence number,
 * kept in the connection's ring of RDMA_RMA_WINDOW slots until its answer
 * comes: the answer names the op only by that number, and a number with no
 * op waiting is dropped. Tasks whose requests cannot all go yet wait in the
 * connection's backlog, in order; a message waits until the requests of the
 * tasks submitted before it are sent (rdma_task.c: send_message).
 *
 * Target: inside the AM handler (under rdma->lock, on the PE's thread or the
 * service thread). A write is copied while the context's slot marks the
 * export (rdma_mem_serve_begin: a destroyed export is waited for, never
 * touched); a read is answered in pieces of one eager fragment, each
 * carrying its bytes in a generic datatype that packs them from the export
 * when UCX sends it, looked up again then: an export that went meanwhile
 * sends zeros and says so in the data's last word.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "rdma/rdma_priv.h"

FERRY_LOG_MODULE("rdma");

#define RMA_MASK (RDMA_RMA_WINDOW - 1u)
_Static_assert((RDMA_RMA_WINDOW & RMA_MASK) == 0, "the window is a power of two");

/* The status word after a read's bytes. */
#define RMA_TRAILER sizeof(uint64_t)

/* Requests refused or answers dropped: a peer may repeat them at will, so the lines are sampled. */
static _Atomic uint64_t refused_requests, dropped_answers;

/* An answer: what UCX reads while it sends it (the header, and a read's range, packed when sent). */
struct rdma_answer {
	struct rdma_answer *prev, *next; /* rdma->answers */
	struct doca_rdma *rdma;
	struct rdma_rma_hdr hdr;
	uint64_t export_id, key, addr;
	uint32_t len;
	bool gone; /* the export was not there when some of the bytes were packed */
};

static const char *rma_op_name(uint16_t op)
{
	switch (op) {
	case RDMA_RMA_WRITE:
		return "write";
	case RDMA_RMA_READ:
		return "read";
	case RDMA_RMA_CSWAP:
		return "compare-and-swap";
	case RDMA_RMA_FADD:
		return "fetch-and-add";
	default:
		return "unknown operation";
	}
}

static doca_error_t status_of(uint16_t status)
{
	switch (status) {
	case RDMA_RMA_OK:
		return DOCA_SUCCESS;
	case RDMA_RMA_NOT_PERMITTED:
		return DOCA_ERROR_NOT_PERMITTED;
	case RDMA_RMA_NO_EXPORT:
	case RDMA_RMA_GONE:
		return DOCA_ERROR_NOT_FOUND;
	default:
		return DOCA_ERROR_IO_FAILED;
	}
}

/* ---- a read's answer: a generic datatype packing from the export (UCX calls these under rdma->lock) ---- */

static void *answer_start_pack(void *context, const void *buffer, size_t count)
{
	(void)context;
	(void)count;
	return (void *)(uintptr_t)buffer; /* the answer itself */
}

static void *answer_start_unpack(void *context, void *buffer, size_t count)
{
	(void)context;
	(void)buffer;
	(void)count;
	return NULL; /* never received with this datatype */
}

static size_t answer_packed_size(void *state)
{
	const struct rdma_answer *a = state;

	return (size_t)a->len + RMA_TRAILER;
}

static size_t answer_pack(void *state, size_t offset, void *dest, size_t max_length)
{
	struct rdma_answer *a = state;
	size_t total = (size_t)a->len + RMA_TRAILER, n = 0;
	uint8_t *out = dest;

	if (offset >= total)
		return 0;
	if (max_length > total - offset)
		max_length = total - offset;
	if (offset < a->len) {
		size_t take = a->len - offset < max_length ? a->len - offset : max_length;
		enum rdma_rma_status st;
		const uint8_t *src = rdma_mem_serve_begin(&a->rdma->serve_slot, a->export_id, a->key, a->addr + offset,
							  take, DOCA_ACCESS_FLAG_RDMA_READ, &st);

		if (src != NULL) {
			memcpy(out, src, take);
			rdma_mem_serve_end(&a->rdma->serve_slot);
		} else {
			memset(out, 0, take);
			a->gone = true;
		}
		n = take;
	}
	if (n < max_length) {
		/* The status word, whole or in part. */
		uint64_t word = a->gone ? RDMA_RMA_GONE : RDMA_RMA_OK;
		size_t at = offset + n - a->len;

		memcpy(out + n, (const uint8_t *)&word + at, max_length - n);
		n = max_length;
	}
	return n;
}

static ucs_status_t answer_unpack(void *state, size_t offset, const void *src, size_t length)
{
	(void)state;
	(void)offset;
	(void)src;
	(void)length;
	return UCS_ERR_UNSUPPORTED;
}

static void answer_finish(void *state)
{
	(void)state;
}

static const ucp_generic_dt_ops_t answer_dt_ops = {
	.start_pack = answer_start_pack,
	.start_unpack = answer_start_unpack,
	.packed_size = answer_packed_size,
	.pack = answer_pack,
	.unpack = answer_unpack,
	.finish = answer_finish,
};

doca_error_t rdma_rma_start(struct doca_rdma *rdma)
{
	ucp_worker_attr_t attr = {.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER};
	size_t room = 4096;
	ucs_status_t st;

	/*
	 * One eager fragment carries the header and the bytes: UCX's largest
	 * header is that fragment's room. Whole multiples of a cache line, a
	 * margin for UCX's own header.
	 */
	if (ucp_worker_query(rdma->worker, &attr) == UCS_OK && attr.max_am_header > 1024)
		room = attr.max_am_header;
	room = (room - sizeof(struct rdma_rma_hdr) - RMA_TRAILER - 64) & ~(size_t)63;
	rdma->rma_chunk = (uint32_t)(room < RDMA_RMA_MAX_CHUNK ? room : RDMA_RMA_MAX_CHUNK);
	rdma->rma_answers = 0;
	rdma->answers = NULL;
	rdma_mem_slot_add(&rdma->serve_slot);
	st = ucp_dt_create_generic(&answer_dt_ops, NULL, &rdma->rma_read_dt);
	rdma->rma_read_dt_made = st == UCS_OK;
	if (st != UCS_OK)
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_INITIALIZATION,
				     "rdma %p: no UCX datatype for read answers (%s)", (void *)rdma,
				     ucs_status_string(st));
	return DOCA_SUCCESS;
}

void rdma_rma_release(struct doca_rdma *rdma)
{
	while (rdma->answers != NULL) {
		struct rdma_answer *a = rdma->answers;

		rdma->answers = a->next;
		free(a);
	}
	rdma->rma_answers = 0;
	rdma_mem_slot_remove(&rdma->serve_slot);
	if (rdma->rma_read_dt_made)
		ucp_dt_destroy(rdma->rma_read_dt);
	rdma->rma_read_dt_made = false;
}

/* ---- requester ---- */

void rdma_rma_issue(struct rdma_task *task, uint64_t bytes)
{
	struct doca_rdma_connection *conn = task->conn;

	if (bytes == 0)
		return;
	task->rma_left = bytes;
	task->rma_seg = 0;
	task->rma_off = 0;
	task->rma_at = task->remote_addr;
	task->rma_next = NULL;
	if (conn->rma_tail != NULL)
		conn->rma_tail->rma_next = task;
	else
		conn->rma_head = task;
	conn->rma_tail = task;
	conn->rma_queued++;
	rdma_rma_pump(conn);
}

/* The head of @p conn's backlog has sent its last request (or failed): it leaves, and the messages behind it may go. */
static void backlog_pop(struct doca_rdma_connection *conn)
{
	struct rdma_task *task = conn->rma_head;

	conn->rma_head = task->rma_next;
	if (conn->rma_head == NULL)
		conn->rma_tail = NULL;
	task->rma_next = NULL;
	task->rma_left = 0;
	conn->rma_sent++;
	if (conn->deferred.head != NULL)
		conn->rdma->deferred = true;
}

/* The head of the backlog cannot go on: it fails with @p status once what it sent is answered. */
static void backlog_fail(struct doca_rdma_connection *conn, doca_error_t status)
{
	struct rdma_task *task = conn->rma_head;

	if (task->status == DOCA_SUCCESS)
		task->status = status;
	backlog_pop(conn);
	rdma_task_settle(task);
}

/* The next request of @p task: what it asks, and the local bytes it sends or fills. */
static void next_request(struct doca_rdma *rdma, struct rdma_task *task, struct rdma_op *op, const void **data,
			 size_t *data_len)
{
	struct rdma_rma_hdr *h = &op->rma;
	uint64_t len = task->rma_left;

	*data = NULL;
	*data_len = 0;
	h->compare = 0;
	h->operand = 0;
	switch (task->kind) {
	case RDMA_TASK_READ:
	case RDMA_TASK_WRITE:
	case RDMA_TASK_WRITE_IMM: {
		uint8_t *local = (uint8_t *)task->segs[task->rma_seg].buffer + task->rma_off;
		uint64_t seg_left = task->segs[task->rma_seg].length - task->rma_off;

		/* A write's bytes ride in its requests; a read's come back in pieces of a fragment each. */
		uint64_t most = task->kind == RDMA_TASK_READ ? RDMA_RMA_MAX_CHUNK : rdma->rma_chunk;

		len = len < seg_left ? len : seg_left;
		len = len < most ? len : most;
		if (task->kind == RDMA_TASK_READ) {
			h->op = RDMA_RMA_READ;
			op->rma_dst = local;
		} else {
			h->op = RDMA_RMA_WRITE;
			*data = local;
			*data_len = len;
		}
		task->rma_off += len;
		if (task->rma_off == task->segs[task->rma_seg].length) {
			task->rma_seg++;
			task->rma_off = 0;
		}
		break;
	}
	case RDMA_TASK_NET_SE_GET:
		h->op = RDMA_RMA_READ;
		op->rma_dst = task->local_ptr;
		break;
	case RDMA_TASK_NET_SE_SET:
		/* The value travels from the op, which outlives a task handed back before UCX is done with it. */
		h->op = RDMA_RMA_WRITE;
		op->operand = task->set_value;
		*data = &op->operand;
		*data_len = sizeof(op->operand);
		break;
	case RDMA_TASK_ATOMIC_CMP_SWP:
		h->op = RDMA_RMA_CSWAP;
		h->compare = task->compare;
		h->operand = task->operand;
		op->is_atomic = true;
		break;
	default: /* fetch-and-add, and a network sync event's add */
		h->op = RDMA_RMA_FADD;
		h->operand = task->operand;
		op->is_atomic = true;
		break;
	}
	h->addr = task->rma_at;
	h->len = (uint32_t)len;
	task->rma_at += len;
	task->rma_left -= len;
}

/* A write's request that waits for no answer is sent (UCX took its bytes): it leaves the window. */
static void chunk_sent(void *request, ucs_status_t status, void *user_data)
{
	struct rdma_op *op = user_data;
	struct doca_rdma_connection *conn = op->conn;
	bool attached = op->task != NULL;

	ucp_request_free(request);
	if (attached)
		conn->rma_inflight--; /* a detached one was forgotten already (rdma_rma_detach) */
	rdma_op_finish(op, rdma_status_of(conn->rdma, status));
	if (attached)
		rdma_rma_pump(conn);
}

/* Send the next request of the backlog's head; false when the window has no slot for it now. */
static bool send_next(struct doca_rdma_connection *conn)
{
	struct doca_rdma *rdma = conn->rdma;
	struct rdma_task *task = conn->rma_head;
	uint32_t slot = (uint32_t)(conn->rma_seq & RMA_MASK);
	ucp_request_param_t p;
	ucs_status_ptr_t req;
	struct rdma_op *op;
	const void *data;
	size_t data_len;
	bool answered;

	if (conn->rma_ring == NULL) {
		conn->rma_ring = ferry_calloc(RDMA_RMA_WINDOW, sizeof(conn->rma_ring[0]));
		if (conn->rma_ring == NULL) {
			FERRY_ERR("%s task %p: no memory for the requests of connection %u",
				  rdma_task_names[task->kind], (void *)task, conn->id);
			backlog_fail(conn, DOCA_ERROR_NO_MEMORY);
			return true;
		}
	}
	if (conn->rma_ring[slot] != NULL)
		return false; /* a request a window ago is still out */
	op = rdma_op_timed(rdma_op_begin(task, conn, true));
	if (op == NULL) {
		FERRY_ERR("%s task %p: no memory to track a request", rdma_task_names[task->kind], (void *)task);
		backlog_fail(conn, DOCA_ERROR_NO_MEMORY);
		return true;
	}
	op->rma_dst = NULL;
	memset(&op->rma, 0, sizeof(op->rma));
	op->rma.dst_token = conn->peer_token;
	op->rma.dst_conn = conn->peer_conn;
	op->rma.src_token = rdma->token;
	op->rma.src_conn = conn->id;
	op->rma.seq = conn->rma_seq++;
	op->rma.export_id = task->rma_export_id;
	op->rma.key = task->rma_key;
	op->rma_got = 0;
	op->rma_status = DOCA_SUCCESS;
	next_request(rdma, task, op, &data, &data_len);
	/* A write's requests but its last are covered by the last one's answer. */
	answered = op->rma.op != RDMA_RMA_WRITE || task->rma_left == 0;
	op->rma.flags = answered ? RDMA_RMA_F_ANSWER : 0;
	if (task->rma_left == 0)
		backlog_pop(conn); /* the task is not touched below: its answer may complete it */
	if (answered)
		conn->rma_ring[slot] = op;
	conn->rma_inflight++;
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
	/*
	 * Eager: one fragment the target takes whole. A reply endpoint, which the
	 * target answers on, only when an answer is wanted: the target's lookup of
	 * it is a cost per fragment.
	 */
	p.flags = UCP_AM_SEND_FLAG_EAGER | (answered ? UCP_AM_SEND_FLAG_REPLY : 0);
	if (!answered) {
		p.op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
		p.cb.send = chunk_sent;
		p.user_data = op;
	}
	req = ucp_am_send_nbx(conn->ep, RDMA_AM_RMA_ID, &op->rma, sizeof(op->rma), data, data_len, &p);
	if (UCS_PTR_IS_ERR(req) || (req == NULL && !answered)) {
		/* Refused, or a request with no answer to wait for already sent. */
		if (answered)
			conn->rma_ring[slot] = NULL;
		conn->rma_inflight--;
		rdma_op_finish(op, req == NULL ? DOCA_SUCCESS : rdma_status_of(rdma, UCS_PTR_STATUS(req)));
	} else if (req != NULL && answered) {
		ucp_request_free(req); /* the answer ends the op; UCX frees the request once sent */
	}
	return true;
}

void rdma_rma_pump(struct doca_rdma_connection *conn)
{
	while (conn->rma_head != NULL && conn->rma_inflight < RDMA_RMA_WINDOW && conn->ep != NULL &&
	       conn->state == RDMA_CONN_CONNECTED) {
		if (!send_next(conn))
			break;
	}
}

void rdma_rma_detach(struct doca_rdma_connection *conn, doca_error_t status)
{
	while (conn->rma_head != NULL)
		backlog_fail(conn, status);
	/* Their ops were detached (rdma_conn_detach_ops): a late answer finds no request. */
	if (conn->rma_ring != NULL)
		memset(conn->rma_ring, 0, RDMA_RMA_WINDOW * sizeof(conn->rma_ring[0]));
	conn->rma_inflight = 0;
}

/* Whether an answer's shape fits the request of @p op. */
static bool answer_fits(const struct rdma_op *op, const struct rdma_rma_hdr *h, size_t length,
			const ucp_am_recv_param_t *param)
{
	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0 || h->status == RDMA_RMA_GONE ||
	    h->status > RDMA_RMA_MALFORMED)
		return false;
	if (h->status != RDMA_RMA_OK)
		return length == 0;
	if (op->rma.op == RDMA_RMA_READ)
		/* The next piece, in order, inside the request. */
		return h->len != 0 && h->addr == op->rma_got && h->len <= op->rma.len - op->rma_got &&
		       length == (size_t)h->len + RMA_TRAILER;
	return length == 0;
}

static void take_answer(struct doca_rdma *rdma, const struct rdma_rma_hdr *h, const void *data, size_t length,
			const ucp_am_recv_param_t *param)
{
	struct doca_rdma_connection *conn = rdma_conn_addressed(rdma, h->dst_token, h->dst_conn);
	struct rdma_op *op = NULL;
	doca_error_t status;
	uint64_t nth;

	/*
	 * The answer must come back on the endpoint the request left by: a peer
	 * that only knows this connection's token and numbers sends on a pair of
	 * its own, and its reply endpoint here is not conn->ep.
	 */
	if (conn != NULL && conn->rma_ring != NULL && (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) != 0 &&
	    param->reply_ep == conn->ep)
		op = conn->rma_ring[h->seq & RMA_MASK];
	if (op == NULL || op->rma.seq != h->seq) {
		if (ferry_log_sampled(&dropped_answers, &nth))
			FERRY_ERR("rdma %p: dropped an answer to no request of this context in flight (seq %llu; "
				  "%llu so far)",
				  (void *)rdma, (unsigned long long)h->seq, (unsigned long long)nth);
		return;
	}
	status = status_of(h->status);
	if (!answer_fits(op, h, length, param)) {
		FERRY_ERR("rdma %p: connection %u: a malformed answer to a %s of %u bytes (status %u, %zu bytes): "
			  "the request fails",
			  (void *)rdma, conn->id, rma_op_name(op->rma.op), op->rma.len, h->status, length);
		status = DOCA_ERROR_IO_FAILED;
	} else if (status == DOCA_SUCCESS && op->rma.op == RDMA_RMA_READ) {
		uint64_t word;

		memcpy(&word, (const uint8_t *)data + h->len, sizeof(word));
		if (word != RDMA_RMA_OK && op->rma_status == DOCA_SUCCESS)
			op->rma_status = DOCA_ERROR_NOT_FOUND; /* the export went while its bytes were sent */
		if (op->task != NULL)
			memcpy(op->rma_dst + h->addr, data, h->len);
		op->rma_got += h->len;
		if (op->rma_got < op->rma.len)
			return; /* more pieces to come */
		status = op->rma_status;
	} else if (status == DOCA_SUCCESS && op->is_atomic) {
		op->reply = h->operand;
	}
	conn->rma_ring[h->seq & RMA_MASK] = NULL;
	conn->rma_inflight--;
	if (status != DOCA_SUCCESS && status != DOCA_ERROR_IO_FAILED && op->task != NULL)
		FERRY_ERR("%s task %p: the peer refused a %s of %u bytes at 0x%llx: %s",
			  rdma_task_names[op->task->kind], (void *)op->task, rma_op_name(op->rma.op), op->rma.len,
			  (unsigned long long)op->rma.addr,
			  h->status == RDMA_RMA_NOT_PERMITTED ? "its export or context does not allow it"
							      : "no such export there (destroyed?)");
	rdma_op_finish(op, status);
	rdma_rma_pump(conn);
}

/* ---- target ---- */

static void answer_sent(void *request, ucs_status_t status, void *user_data)
{
	struct rdma_answer *a = user_data;
	struct doca_rdma *rdma = a->rdma;

	(void)status;
	ucp_request_free(request);
	if (a->prev != NULL)
		a->prev->next = a->next;
	else
		rdma->answers = a->next;
	if (a->next != NULL)
		a->next->prev = a->prev;
	rdma->rma_answers--;
	free(a);
}

static uint32_t access_needed(uint16_t op)
{
	switch (op) {
	case RDMA_RMA_WRITE:
		return DOCA_ACCESS_FLAG_RDMA_WRITE;
	case RDMA_RMA_READ:
		return DOCA_ACCESS_FLAG_RDMA_READ;
	default:
		return DOCA_ACCESS_FLAG_RDMA_ATOMIC;
	}
}

/* The rules of a request's shape; NULL when it keeps them. */
static const char *malformed(const struct rdma_rma_hdr *h, size_t length, const ucp_am_recv_param_t *param)
{
	if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0)
		return "it came by rendezvous (requests are eager)";
	if (h->status != 0 || h->reserved != 0 || (h->flags & ~RDMA_RMA_F_ANSWER) != 0)
		return "a field that must be zero is not";
	if (h->len == 0 || h->len > RDMA_RMA_MAX_CHUNK)
		return "its length is 0 or above the largest request";
	if (h->op == RDMA_RMA_WRITE)
		return length == h->len ? NULL : "its data is not as long as it says";
	if (length != 0)
		return "it carries data";
	if (h->op == RDMA_RMA_READ)
		return NULL;
	if (h->op != RDMA_RMA_CSWAP && h->op != RDMA_RMA_FADD)
		return "its operation is unknown";
	if (h->len != sizeof(uint64_t) || (h->addr & (sizeof(uint64_t) - 1)) != 0)
		return "an atomic that is not one aligned 8-byte word";
	return NULL;
}

/* Do what @p h asks with the export's bytes at @p p (marked in the slot); an atomic's old value goes in @p answer. */
static void apply(const struct rdma_rma_hdr *h, const void *data, uint8_t *p, struct rdma_rma_hdr *answer)
{
	uint64_t *word = (uint64_t *)(void *)p;
	uint64_t expected = h->compare;

	switch (h->op) {
	case RDMA_RMA_WRITE:
		if (h->len == sizeof(uint64_t) && (h->addr & (sizeof(uint64_t) - 1)) == 0) {
			/* One aligned word (a sync event's value, say): whole, never torn, for its readers. */
			uint64_t v;

			memcpy(&v, data, sizeof(v));
			__atomic_store_n(word, v, __ATOMIC_SEQ_CST);
		} else {
			memcpy(p, data, h->len);
		}
		break;
	case RDMA_RMA_CSWAP:
		/* Atomic against the program's own CPUs too. */
		(void)__atomic_compare_exchange_n(word, &expected, h->operand, false, __ATOMIC_SEQ_CST,
						  __ATOMIC_SEQ_CST);
		answer->operand = expected;
		break;
	case RDMA_RMA_FADD:
		answer->operand = __atomic_fetch_add(word, h->operand, __ATOMIC_SEQ_CST);
		break;
	default:
		break; /* a read's bytes are packed when UCX sends the answer */
	}
}

/*
 * Send the answer @p hdr on @p ep; a read's (@p read_len bytes at
 * @p h's export and address) carries the bytes, packed as UCX sends them.
 * Most answers go at once from the stack; what UCX must keep is copied into
 * an answer UCX holds until it calls back.
 */
static void send_answer(struct doca_rdma *rdma, ucp_ep_h ep, const struct rdma_rma_hdr *hdr,
			const struct rdma_rma_hdr *h, uint32_t read_len)
{
	ucp_request_param_t p;
	ucs_status_ptr_t req;
	struct rdma_answer *a;
	uint64_t nth;

	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
	/* On the request's own endpoint pair, which the requester checks (take_answer). */
	p.flags = UCP_AM_SEND_FLAG_EAGER | UCP_AM_SEND_FLAG_REPLY;
	if (read_len == 0) {
		/* A header alone: at once, or not at all (then it is kept below). */
		p.op_attr_mask |= UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
		req = ucp_am_send_nbx(ep, RDMA_AM_RMA_ID, hdr, sizeof(*hdr), NULL, 0, &p);
		if (req == NULL || !UCS_PTR_IS_ERR(req) || UCS_PTR_STATUS(req) != UCS_ERR_NO_RESOURCE)
			return; /* sent, or refused (the requester's timeout tells it) */
		p.op_attr_mask &= ~(uint32_t)UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
	}
	if (rdma->rma_answers >= RDMA_RMA_MAX_ANSWERS) {
		if (ferry_log_sampled(&refused_requests, &nth))
			FERRY_ERR("rdma %p: %u answers wait for UCX already; dropped one (%llu so far)", (void *)rdma,
				  RDMA_RMA_MAX_ANSWERS, (unsigned long long)nth);
		return;
	}
	a = ferry_malloc(sizeof(*a));
	if (a == NULL) {
		FERRY_ERR("rdma %p: no memory to keep an answer; dropped", (void *)rdma);
		return;
	}
	a->rdma = rdma;
	a->hdr = *hdr;
	a->export_id = h->export_id;
	a->key = h->key;
	a->addr = h->addr + hdr->addr; /* an answer's addr: its bytes' offset in the request */
	a->len = read_len;
	a->gone = false;
	p.op_attr_mask |= UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
	p.cb.send = answer_sent;
	p.user_data = a;
	if (read_len != 0) {
		p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
		p.datatype = rdma->rma_read_dt;
	}
	req = ucp_am_send_nbx(ep, RDMA_AM_RMA_ID, &a->hdr, sizeof(a->hdr), read_len != 0 ? a : NULL, read_len, &p);
	if (!UCS_PTR_IS_PTR(req)) {
		free(a); /* sent (or refused: the requester's timeout tells it) */
		return;
	}
	/* UCX keeps it: the header and the range stay until it calls back. */
	a->prev = NULL;
	a->next = rdma->answers;
	if (rdma->answers != NULL)
		rdma->answers->prev = a;
	rdma->answers = a;
	rdma->rma_answers++;
}

/* Check and do what @p h asks; its status (a refusal says why in *@p why). */
static enum rdma_rma_status perform(struct doca_rdma *rdma, const struct rdma_rma_hdr *h, const void *data,
				    size_t length, const ucp_am_recv_param_t *param, struct rdma_rma_hdr *answer,
				    const char **why)
{
	enum rdma_rma_status status;
	uint8_t *p;

	*why = malformed(h, length, param);
	if (*why != NULL)
		return RDMA_RMA_MALFORMED;
	if ((rdma->permissions & access_needed(h->op)) == 0) {
		*why = "this context does not allow it (doca_rdma_set_permissions)";
		return RDMA_RMA_NOT_PERMITTED;
	}
	p = rdma_mem_serve_begin(&rdma->serve_slot, h->export_id, h->key, h->addr, h->len, access_needed(h->op),
				 &status);
	if (p == NULL) {
		*why = status == RDMA_RMA_NOT_PERMITTED ? "its export does not allow it"
							: "no such export, a wrong key, or outside the export";
		return status;
	}
	apply(h, data, p, answer);
	if (h->op != RDMA_RMA_READ)
		rdma_mem_serve_written(&rdma->serve_slot);
	rdma_mem_serve_end(&rdma->serve_slot);
	return RDMA_RMA_OK;
}

/* A read's answers: one per rma_chunk bytes, in order, each saying where its bytes go (addr: the offset). */
static void send_read_answers(struct doca_rdma *rdma, ucp_ep_h ep, struct rdma_rma_hdr *answer,
			      const struct rdma_rma_hdr *h)
{
	for (uint32_t off = 0; off < h->len; off += rdma->rma_chunk) {
		uint32_t n = h->len - off < rdma->rma_chunk ? h->len - off : rdma->rma_chunk;

		answer->addr = off;
		answer->len = n;
		send_answer(rdma, ep, answer, h, n);
	}
}

static void serve(struct doca_rdma *rdma, const struct rdma_rma_hdr *h, const void *data, size_t length,
		  const ucp_am_recv_param_t *param)
{
	struct doca_rdma_connection *conn = rdma_conn_addressed(rdma, h->dst_token, h->dst_conn);
	struct rdma_rma_hdr answer;
	enum rdma_rma_status status;
	const char *why = NULL;
	uint64_t nth;

	/* A connection that is over gives its peer no more access, as a destroyed queue pair. */
	if (conn == NULL || rdma_conn_over(conn) ||
	    ((h->flags & RDMA_RMA_F_ANSWER) != 0 && (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) == 0) ||
	    (conn->state == RDMA_CONN_CONNECTED &&
	     (h->src_token != conn->peer_token || h->src_conn != conn->peer_conn))) {
		if (ferry_log_sampled(&refused_requests, &nth))
			FERRY_ERR(
				"rdma %p: dropped a %s request for no open connection of this context in this run, or "
				"not from its peer (%llu so far)",
				(void *)rdma, rma_op_name(h->op), (unsigned long long)nth);
		return;
	}
	memset(&answer, 0, sizeof(answer));
	status = perform(rdma, h, data, length, param, &answer, &why);
	if (why != NULL && ferry_log_sampled(&refused_requests, &nth))
		FERRY_ERR("rdma %p: connection %u: refused a %s request of %u bytes at 0x%llx: %s (%llu so far)",
			  (void *)rdma, conn->id, rma_op_name(h->op), h->len, (unsigned long long)h->addr, why,
			  (unsigned long long)nth);
	if ((h->flags & RDMA_RMA_F_ANSWER) == 0) {
		/* Covered by a later answer from the same requester: keep the first refusal for it. */
		if (status != RDMA_RMA_OK && conn->rma_refused == RDMA_RMA_OK) {
			conn->rma_refused = (uint16_t)status;
			conn->rma_refused_token = h->src_token;
			conn->rma_refused_conn = h->src_conn;
		}
		return;
	}
	if (conn->rma_refused != RDMA_RMA_OK && conn->rma_refused_token == h->src_token &&
	    conn->rma_refused_conn == h->src_conn) {
		/* A write's earlier request was refused (another requester's refusal is not this one's). */
		if (status == RDMA_RMA_OK)
			status = (enum rdma_rma_status)conn->rma_refused;
		conn->rma_refused = RDMA_RMA_OK;
	}
	answer.dst_token = h->src_token;
	answer.dst_conn = h->src_conn;
	answer.seq = h->seq;
	answer.op = RDMA_RMA_ANSWER;
	answer.status = (uint16_t)status;
	if (status == RDMA_RMA_OK && h->op == RDMA_RMA_READ)
		send_read_answers(rdma, param->reply_ep, &answer, h);
	else
		send_answer(rdma, param->reply_ep, &answer, h, 0);
}

ucs_status_t rdma_rma_am_cb(void *arg, const void *header, size_t header_length, void *data, size_t length,
			    const ucp_am_recv_param_t *param)
{
	struct doca_rdma *rdma = arg;
	struct rdma_rma_hdr h;
	uint64_t nth;

	if (header_length != sizeof(h)) {
		if (ferry_log_sampled(&refused_requests, &nth))
			FERRY_ERR(
				"rdma %p: dropped a one-sided message with a %zu-byte header (expected %zu): not from "
				"a Ferry peer (%llu so far)",
				(void *)rdma, header_length, sizeof(h), (unsigned long long)nth);
		return UCS_OK;
	}
	if (rdma->stopping)
		return UCS_OK;
	memcpy(&h, header, sizeof(h));
	if (h.op == RDMA_RMA_ANSWER)
		take_answer(rdma, &h, data, length, param);
	else
		serve(rdma, &h, data, length, param);
	return UCS_OK;
}
