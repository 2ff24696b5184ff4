/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_priv.h - the layout of a DOCA RDMA context, its connections and tasks
 * (rdma.c: context, connections, progress; rdma_task.c: the task types;
 * rdma_mem.c: the UCP context and remote memory).
 *
 * UCX objects: one UCP context per process (rdma_mem.c; reference counted by
 * every RDMA context and every memory export or import), because a remote key
 * must come from the context whose workers the peer talks to, and
 * doca_mmap_export_rdma names a device, not an RDMA context. One UCP worker per
 * RDMA context, made at start and destroyed when the context is IDLE again,
 * progressed only from the context's ops->progress (non-blocking), its event
 * fd watched by the PE's notification handle. One UCP endpoint per connected
 * connection.
 *
 * How operations map (docs/rdma.md):
 *   send / send_imm  -> ucp_am_send_nbx, AM id RDMA_AM_ID, header struct rdma_msg_hdr
 *   receive          -> taken from the AM handler in arrival order; rendezvous
 *                       data lands straight in the destination (ucp_am_recv_data_nbx)
 *   read / write / atomics / a network sync event's get, set, add
 *                    -> Ferry's own requests, AM id RDMA_AM_RMA_ID, header struct
 *                       rdma_rma_hdr, checked and served by the target (rdma_rma.c);
 *                       never UCX's put, get or atomics (their software emulation
 *                       writes any address a peer names)
 *   write_imm        -> its write's requests, their answers, then an AM with the immediate
 * A message after a write on the same connection goes once the write's requests
 * are sent: the peer handles a connection's requests and messages in order, so it
 * sees the written bytes before it sees the message (as RC orders them).
 *
 * Every UCX callback only records a status and queues the task on
 * rdma->done; user callbacks run from progress after ucp_worker_progress
 * returns, never inside UCX.
 */
#ifndef FERRY_RDMA_PRIV_H_
#define FERRY_RDMA_PRIV_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include <doca_rdma.h>

#include "common/ferry_biased_lock.h"
#include "common/ferry_util.h"
#include "core/ferry_ctx.h"
#include "core/ferry_dev.h"

#define RDMA_AM_ID                0x7e1u      /* Ferry RDMA messages */
#define RDMA_AM_RMA_ID            0x7e2u      /* Ferry's one-sided requests and their answers (rdma_rma.c) */
#define RDMA_RMA_WINDOW           256u        /* requests in flight per connection (a power of two) */
#define RDMA_RMA_MAX_CHUNK        (64u << 10) /* most bytes one request moves; a target refuses more */
#define RDMA_RMA_MAX_ANSWERS      65536u      /* answers a target keeps while UCX cannot take them yet */
#define RDMA_MAX_MESSAGE          (1u << 30)
#define RDMA_MAX_CONNECTIONS      1024u
#define RDMA_MAX_SEND_QUEUE       (1u << 16)
#define RDMA_MAX_BUF_LIST         16u
#define RDMA_MAX_UNEXPECTED       256u        /* messages held for a receive not yet posted */
#define RDMA_MAX_UNEXPECTED_BYTES (64u << 20) /* ... and their bytes (a rendezvous message's stay with the sender) */
#define RDMA_DEFAULT_SEND_QUEUE   64u
#define RDMA_DEFAULT_CONNECTIONS  1u
#define RDMA_DEFAULT_TIMEOUT_MS   10000u /* FERRY_RDMA_TIMEOUT_MS */
#define RDMA_MAX_TIMEOUT_MS       3600000u

/*
 * A connection's id: its slot in rdma->conns (the low bits) and how many
 * connections held that slot before it (the rest), so that a message or a
 * task meant for an earlier occupant never reaches the one there now.
 */
#define RDMA_CONN_SLOT_BITS 10u
#define RDMA_CONN_SLOT_MASK ((1u << RDMA_CONN_SLOT_BITS) - 1u)
_Static_assert(RDMA_MAX_CONNECTIONS == 1u << RDMA_CONN_SLOT_BITS, "a slot number fits its bits");

enum rdma_task_kind {
	RDMA_TASK_RECEIVE,
	RDMA_TASK_SEND,
	RDMA_TASK_SEND_IMM,
	RDMA_TASK_READ,
	RDMA_TASK_WRITE,
	RDMA_TASK_WRITE_IMM,
	RDMA_TASK_ATOMIC_CMP_SWP,
	RDMA_TASK_ATOMIC_FETCH_ADD,
	/* Sync events of a network peer (doca_sync_event_remote_net): an 8-byte read, write or atomic add. */
	RDMA_TASK_NET_SE_GET,
	RDMA_TASK_NET_SE_SET,
	RDMA_TASK_NET_SE_ADD,
	RDMA_TASK_KINDS,
};

/* Message opcodes on the wire (struct rdma_msg_hdr.opcode): DOCA's receive opcodes. */
struct rdma_msg_hdr {
	uint64_t dst_token; /* the receiving instance's token (from its descriptor) */
	uint32_t dst_conn;  /* the receiving connection's id */
	uint32_t imm;       /* immediate data, verbatim */
	uint16_t opcode;    /* enum doca_rdma_opcode, or RDMA_MSG_* */
	/*
	 * A data message's sender key (rdma_msg_key): 48 bits that only the two
	 * ends of the connection can compute, so that another peer of the instance
	 * (which knows its token) cannot pass its messages off as this
	 * connection's. Zero in the connection manager's and liveness messages,
	 * which are bound to their endpoints instead.
	 */
	uint16_t key_hi;
	uint32_t key_lo;
};
/*
 * 24 bytes: with 64 B of data a message stays one short message of UCX's
 * shared-memory FIFO (UCT's am_short <= 100 bytes here); 32 and 40 did not, at
 * +20-30 ns one way.
 */
_Static_assert(sizeof(struct rdma_msg_hdr) == 24, "the message header's size is part of the wire format");

#define RDMA_MSG_KEY_MASK ((UINT64_C(1) << 48) - 1u)

/* A header's key, as one number. */
static inline uint64_t rdma_msg_key_of(const struct rdma_msg_hdr *h)
{
	return (uint64_t)h->key_hi << 32 | h->key_lo;
}

/*
 * The key of the messages that connection @p from_conn of the instance of
 * token @p from sends to connection @p to_conn of the instance of token @p to:
 * both tokens are 64 random bits, and a third party knows at most one of them.
 */
static inline uint64_t rdma_msg_key(uint64_t to, uint32_t to_conn, uint64_t from, uint32_t from_conn)
{
	uint64_t k = ferry_mix64(to ^ ferry_mix64(from ^ ((uint64_t)to_conn << 32 | from_conn)));

	return (k & RDMA_MSG_KEY_MASK) != 0 ? k & RDMA_MSG_KEY_MASK : 1; /* never 0: 0 marks the control messages */
}

enum rdma_conn_state {
	RDMA_CONN_FREE = 0,
	RDMA_CONN_EXPORTED,  /* doca_rdma_export: messages may arrive, none can leave */
	RDMA_CONN_CONNECTED, /* doca_rdma_connect: has an endpoint */
	RDMA_CONN_FAILED,    /* the peer went away: tasks complete with CONNECTION_RESET */
	/* The connection manager (rdma_cm.c): */
	RDMA_CONN_REQUESTED,    /* a client asked; accept or reject from the request callback */
	RDMA_CONN_CONNECTING,   /* an endpoint, waiting for the peer's hello */
	RDMA_CONN_DISCONNECTED, /* closed by either side */
};

/* Events of the connection manager, per connection (bits of conn->events), delivered from progress. */
enum {
	RDMA_EV_REQUEST = 1u << 0,
	RDMA_EV_ESTABLISHED = 1u << 1,
	RDMA_EV_FAILURE = 1u << 2,
	RDMA_EV_DISCONNECT = 1u << 3,
};

/* Messages of the connection manager itself (struct rdma_msg_hdr.opcode beyond DOCA's). */
#define RDMA_MSG_HELLO 0x100u /* payload struct rdma_hello; sent with a reply endpoint */
#define RDMA_MSG_BYE   0x101u /* no payload; sent with a reply endpoint */
/*
 * Liveness (rdma.c): while only messages are in flight on a connection and none
 * completes, the service thread asks the peer whether it is there. A ping
 * addresses the peer's connection (dst_token, dst_conn), carries the sender's
 * connection id in imm and its token as an 8-byte payload, and goes with a
 * reply endpoint; the pong comes back on that endpoint addressed to the pinger.
 */
#define RDMA_MSG_PING  0x102u
#define RDMA_MSG_PONG  0x103u

/*
 * One-sided operations on the wire (rdma_rma.c). A request names the target's
 * connection (dst_token, dst_conn), the export (export_id and its key, from
 * the memory descriptor) and the range; the answer (RDMA_RMA_ANSWER) goes to
 * the requester's connection (src_token, src_conn of the request) with the
 * request's seq, a status, a read's bytes as its data, an atomic's old value
 * in operand.
 */
enum rdma_rma_op {
	RDMA_RMA_WRITE = 1, /* data: the bytes */
	RDMA_RMA_READ,
	RDMA_RMA_CSWAP, /* 8 bytes: if equal to compare, becomes operand */
	RDMA_RMA_FADD,  /* 8 bytes: operand is added */
	RDMA_RMA_ANSWER,
};

/*
 * A request the requester waits for. A write's requests but the last go
 * without: the target handles a connection's requests in order, so the last
 * one's answer covers them, and carries the first refusal among them.
 */
#define RDMA_RMA_F_ANSWER 1u

enum rdma_rma_status {
	RDMA_RMA_OK = 0,
	RDMA_RMA_NOT_PERMITTED, /* the export or the target's context does not allow it */
	RDMA_RMA_NO_EXPORT,     /* no such export (or the key is wrong), or the range is outside it */
	RDMA_RMA_GONE,          /* a read's export went away before its bytes were sent (the data's last word) */
	RDMA_RMA_MALFORMED,     /* the request breaks the protocol */
};

struct rdma_rma_hdr {
	uint64_t dst_token;
	uint64_t src_token;
	uint64_t seq;
	uint64_t export_id;
	uint64_t key;
	uint64_t addr;
	uint64_t operand;
	uint64_t compare;
	uint32_t dst_conn;
	uint32_t src_conn;
	uint32_t len;
	uint16_t op;       /* enum rdma_rma_op */
	uint16_t status;   /* an answer's enum rdma_rma_status; zero in a request */
	uint32_t flags;    /* a request's RDMA_RMA_F_* */
	uint32_t reserved; /* zero */
};

/* A context's mark while it serves a request: the id of the export it touches, 0 when none (rdma_mem.c). */
struct rdma_serve_slot {
	_Atomic uint64_t busy;
	_Atomic uint64_t ends; /* walks ended so far: a destroy waits for the one it saw busy */
	const void *entry;     /* the export found by the walk in progress (its owner's thread only) */
	struct rdma_serve_slot *next;
};

/* Who a connection manager peer is: what a connection descriptor says, minus the worker address. */
struct rdma_hello {
	uint64_t token;
	uint32_t conn_id;
	uint32_t permissions;
	uint32_t pid;
	uint32_t reserved; /* zero */
	uint64_t start_time;
	uint8_t boot_id[16];
};

/*
 * One UCX operation in flight: the user_data of its request. A task can be
 * handed back to the program before UCX calls back (UCX 1.13 never completes
 * the requests of an endpoint without peer-failure handling once the peer is
 * dead): the op is then detached (task NULL) and its late callback, if any,
 * only frees it. Ops live in chunks freed after the worker is destroyed.
 */
struct rdma_op {
	struct rdma_task *task; /* NULL once detached */
	struct doca_rdma_connection *conn;
	struct rdma_op *prev, *next; /* the connection's live ops, or the free list (next) */
	bool counts;                 /* counted in conn->ops (operations on the endpoint) */
	bool is_atomic;              /* reply goes to the task when the answer comes */
	bool timed;                  /* one-sided: counted in conn->timed_ops (the stall check) */
	/* An atomic's old value, or a network sync event set's 8 bytes (UCX may read them after a detach). */
	uint64_t operand;
	uint64_t reply;
	/* A request: its header (UCX reads it while sending), and where a read's answer goes. */
	struct rdma_rma_hdr rma;
	uint8_t *rma_dst;
	uint32_t rma_got;        /* a read's bytes answered so far (they come in order) */
	doca_error_t rma_status; /* a read's: the first piece whose export had gone */
	/* A message from a list of bufs: the segments UCX gathers (it reads this array until it calls back). */
	ucp_dt_iov_t iov[RDMA_MAX_BUF_LIST];
};

/* struct doca_rdma_connection is this. */
struct doca_rdma_connection {
	struct doca_rdma *rdma;
	uint32_t id; /* slot and generation (RDMA_CONN_SLOT_BITS) */
	enum rdma_conn_state state;
	bool released; /* the program is done with it: once idle, its slot may hold a new connection */
	ucp_ep_h ep;
	void *close_req;      /* ucp_ep_close_nbx still going */
	uint64_t peer_token;  /* from the peer's descriptor */
	uint64_t msg_key_out; /* rdma_msg_key of what it sends, once the peer is known (rdma_conn_keys) */
	uint64_t msg_key_in;  /* ... and of what it takes */
	uint32_t peer_conn;   /* the peer's connection id */
	uint32_t peer_perm;   /* the peer instance's permissions */
	uint32_t peer_pid;
	bool need_close; /* the peer went away: close the endpoint from progress */
	int pidfd;       /* the peer process, when it runs on this host; else -1 */
	union doca_data user_data;
	struct ferry_task_list waiting;     /* submitted before connect */
	uint32_t link_busy;                 /* its tasks on the link thread (rdma_link.c) */
	struct ferry_task_list behind_link; /* submitted after one of them: issued in order once it is done */
	struct ferry_task_list deferred;    /* messages behind one-sided requests, in order */
	uint8_t *desc;                      /* our descriptor, owned here */
	size_t desc_len;
	/* One-sided requests (rdma_rma.c). */
	struct rdma_op **rma_ring;  /* RDMA_RMA_WINDOW slots, by seq; allocated at the first request */
	uint64_t rma_seq;           /* the next request's number */
	uint32_t rma_inflight;      /* requests sent and not answered */
	struct rdma_task *rma_head; /* tasks with requests still to send, in order */
	struct rdma_task *rma_tail;
	uint64_t rma_queued;       /* tasks ever put in that backlog */
	uint64_t rma_sent;         /* of them, the ones whose requests are all sent (they leave in order) */
	uint16_t rma_refused;      /* target: the first refusal of a request not answered, for the next answer */
	uint32_t rma_refused_conn; /* ... of the requester that sent it (only its own answer carries it) */
	uint64_t rma_refused_token;
	uint32_t ops;         /* UCX operations in flight on ep */
	uint32_t ops_done;    /* UCX operations of ep completed so far (the stall check's clock) */
	uint32_t timed_ops;   /* of ops, the one-sided ones: they must complete within the timeout */
	uint32_t ops_seen;    /* ops_done when the service thread last looked */
	uint64_t stall_since; /* ns: since then operations were in flight and none completed; 0: not stalled */
	bool ping_pending;    /* a ping went out and no pong came back yet */
	uint64_t ping_token;  /* the ping's payload (UCX reads it while sending) */
	struct rdma_msg_hdr ping_hdr;
	struct rdma_op *live; /* every op of this connection, UCX's or a receive's */
	/* Connection manager (rdma_cm.c). */
	bool cm;                     /* made by connect_to_addr or a listener */
	unsigned int events;         /* RDMA_EV_* not yet delivered */
	void *conn_req;              /* ucp_conn_request_h while REQUESTED */
	struct doca_rdma_addr *addr; /* the peer's address (the connection owns it) */
	struct rdma_hello hello;     /* ours, read by UCX while it is sent */
	struct rdma_msg_hdr cm_hdr;  /* its header */
	uint64_t deadline_ns;        /* CONNECTING: fails when not established by then */
};

/* Whether @p conn is over: either side disconnected it, or its peer went away (it stays so until reclaimed). */
static inline bool rdma_conn_over(const struct doca_rdma_connection *conn)
{
	return conn->state == RDMA_CONN_FAILED || conn->state == RDMA_CONN_DISCONNECTED;
}

/* Every task type has this layout (struct doca_rdma_task_send is a struct rdma_task, ...). */
struct rdma_task {
	struct doca_task base; /* first: the generic code sees this */
	enum rdma_task_kind kind;
	struct doca_rdma_connection *conn;
	uint32_t conn_id; /* conn->id when it was set: a slot that holds another connection since is refused */
	const struct doca_buf *src;
	struct doca_buf *dst;
	uint32_t imm;
	/* Atomics: dst is the remote word, result the local buf the old value goes to. */
	struct doca_buf *result;
	uint64_t operand; /* add_data, or swap_data */
	uint64_t compare; /* cmp_data */
	uint64_t reply;   /* the old remote value, from the op */
	/* Set by submit and progress. */
	doca_error_t status; /* first error of its operations */
	uint32_t pending;    /* UCX operations not yet completed */
	uint64_t bytes;      /* bytes the task moves (a write_imm's message: 0) */
	uint64_t written;    /* a write_imm's bytes */
	bool awaiting_msg;   /* its message waits on conn->deferred */
	uint64_t msg_after;  /* ... until conn->rma_sent reaches this */
	/* One-sided requests still to send (rdma_rma.c): bytes left, where the next one starts. */
	uint64_t rma_left;
	uint32_t rma_seg;
	uint64_t rma_off;
	uint64_t rma_at;
	uint64_t rma_export_id; /* the remote mmap's export and key */
	uint64_t rma_key;
	struct rdma_task *rma_next; /* in conn's backlog */
	/* Receive results. */
	uint32_t result_opcode;
	uint32_t result_len;
	uint32_t result_imm;
	const struct doca_rdma_connection *result_conn;
	/* Write destination / read source: remote address. */
	uint64_t remote_addr;
	uint8_t *local_ptr; /* where an atomic's or a network sync event's 8-byte result lands */
	/*
	 * The local side when it may be a list of bufs: a send's or write's source
	 * (its non-empty data segments) or a read's destination (the free space
	 * after each buf's data that the read fills, in order).
	 */
	ucp_dt_iov_t segs[RDMA_MAX_BUF_LIST];
	uint32_t num_segs;
	/* Network sync events: the event and its import (notify_add's add_data and result: operand, result). */
	const struct doca_sync_event_remote_net *event;
	const struct ferry_rdma_mem_import *event_imp;
	uint64_t set_value;      /* notify_set's 8 source bytes, copied at submit: the source may change meanwhile */
	struct rdma_msg_hdr hdr; /* the header of a message (UCX reads it while sending) */
};

/* The public task types: one struct rdma_task each (rdma_task.c converts with ferry_container_of). */
struct doca_rdma_task_receive {
	struct rdma_task t;
};
struct doca_rdma_task_send {
	struct rdma_task t;
};
struct doca_rdma_task_send_imm {
	struct rdma_task t;
};
struct doca_rdma_task_read {
	struct rdma_task t;
};
struct doca_rdma_task_write {
	struct rdma_task t;
};
struct doca_rdma_task_write_imm {
	struct rdma_task t;
};
struct doca_rdma_task_remote_net_sync_event_get {
	struct rdma_task t;
};
struct doca_rdma_task_remote_net_sync_event_notify_set {
	struct rdma_task t;
};
struct doca_rdma_task_remote_net_sync_event_notify_add {
	struct rdma_task t;
};
struct doca_rdma_task_atomic_cmp_swp {
	struct rdma_task t;
};
struct doca_rdma_task_atomic_fetch_add {
	struct rdma_task t;
};

/* A message that arrived with no receive posted. */
struct rdma_unexpected {
	struct doca_rdma_connection *conn;
	struct rdma_msg_hdr hdr;
	size_t len;
	void *data;    /* UCX's data descriptor (held) or our copy */
	bool is_desc;  /* data is UCX's: release with ucp_am_data_release (or fetch with recv_data when rndv) */
	bool borrowed; /* data is UCX's for the time of its callback only: neither release nor free */
	bool is_rndv;
};

struct doca_rdma {
	struct doca_ctx ctx; /* first */
	struct ferry_task_pool pools[RDMA_TASK_KINDS];
	/* Typed callbacks of each kind (rdma_task.c). */
	doca_rdma_task_receive_completion_cb_t receive_ok, receive_err;
	doca_rdma_task_send_completion_cb_t send_ok, send_err;
	doca_rdma_task_send_imm_completion_cb_t send_imm_ok, send_imm_err;
	doca_rdma_task_read_completion_cb_t read_ok, read_err;
	doca_rdma_task_write_completion_cb_t write_ok, write_err;
	doca_rdma_task_write_imm_completion_cb_t write_imm_ok, write_imm_err;
	doca_rdma_task_remote_net_sync_event_get_completion_cb_t remote_net_sync_event_get_ok,
		remote_net_sync_event_get_err;
	doca_rdma_task_remote_net_sync_event_notify_set_completion_cb_t remote_net_sync_event_notify_set_ok,
		remote_net_sync_event_notify_set_err;
	doca_rdma_task_remote_net_sync_event_notify_add_completion_cb_t remote_net_sync_event_notify_add_ok,
		remote_net_sync_event_notify_add_err;
	doca_rdma_task_atomic_cmp_swp_completion_cb_t atomic_cmp_swp_ok, atomic_cmp_swp_err;
	doca_rdma_task_atomic_fetch_add_completion_cb_t atomic_fetch_add_ok, atomic_fetch_add_err;

	/* Properties. */
	uint32_t permissions;
	uint32_t gid_index;
	uint16_t max_conns;
	enum doca_rdma_transport_type transport;
	uint32_t send_queue_size;
	uint32_t max_send_buf_list_len;
	uint32_t recv_buf_list_len;
	enum doca_mtu_size mtu;
	uint8_t grh_enabled;
	uint32_t sl;
	uint16_t cm_timeout;
	uint8_t rnr_retry_count;
	uint64_t stall_timeout_ns; /* FERRY_RDMA_TIMEOUT_MS: in-flight operations with no completion this long fail */

	/*
	 * The lock: the PE's thread and the context's service thread (rdma.c:
	 * service_main) both progress the worker, so everything UCX calls back
	 * into, and the worker and endpoints themselves, are used under it. User
	 * callbacks run without it. Biased (common/ferry_biased_lock.h): the
	 * program's calls take it as its owner, with no locked instruction; the
	 * service and link threads as others.
	 */
	struct ferry_biased_lock lock;
	pthread_t service;
	bool service_running;
	/* The link thread (rdma_link.c): copies of re-exports, one at a time, in order. */
	pthread_t link_thread;
	bool link_running;
	struct ferry_task_list link_queue; /* under lock */
	/* The link thread sleeps on link_cond, under link_mutex, until link_kicked (work, or leave). */
	pthread_mutex_t link_mutex;
	pthread_cond_t link_cond;
	bool link_kicked;
	bool link_quit;
	int service_quit_fd;       /* eventfd: the service thread leaves */
	int service_epfd;          /* what the service thread sleeps on: the worker, quit, the peers' pidfds */
	_Atomic uint64_t pe_calls; /* progress calls of the PE's thread (written there only) */

	/* UCX: between start and IDLE. */
	ucp_context_h ucp; /* the process's, referenced from create to destroy */
	ucp_worker_h worker;
	int efd;
	uint8_t *worker_addr; /* our copy */
	size_t worker_addr_len;
	uint64_t token;
	uint64_t start_time; /* ours, for the descriptor */
	uint8_t boot_id[16]; /* ours, for the descriptor */

	/* Connection manager (rdma_cm.c). */
	ucp_listener_h listener;
	uint16_t listen_port;
	bool events_pending;                           /* some connection has events */
	const struct doca_rdma_connection *delivering; /* its callbacks run now (without the lock): not reclaimed */
	uint32_t connecting;                           /* connections CONNECTING: progress checks their deadlines */
	doca_rdma_connection_request_cb_t cm_request_cb;
	doca_rdma_connection_established_cb_t cm_established_cb;
	doca_rdma_connection_failure_cb_t cm_failure_cb;
	doca_rdma_connection_disconnection_cb_t cm_disconnect_cb;

	struct rdma_op *free_ops;
	uint32_t orphan_ops; /* detached ops UCX has not called back yet */
	void *op_chunks;     /* chunks of ops: a next pointer, then the ops */

	struct doca_rdma_connection *conns; /* max_conns entries, allocated at start */
	uint32_t num_conns;                 /* slots used so far (each may have held several connections) */

	struct ferry_task_list receives; /* posted, in order */
	struct ferry_task_list done;     /* finished, to complete from progress */
	struct ferry_task_list ready;    /* their connection just connected: issue from progress */
	bool deferred;                   /* some connection has deferred messages */
	struct rdma_unexpected unexpected[RDMA_MAX_UNEXPECTED];
	uint32_t unexp_head, unexp_count;
	uint64_t unexp_bytes; /* bytes the ring holds (not a rendezvous message's: they stay with the sender) */
	bool stopping;
	bool in_progress;
	/* One-sided operations (rdma_rma.c). */
	struct rdma_serve_slot serve_slot; /* in rdma_mem.c's list from start to IDLE */
	uint32_t rma_chunk;                /* bytes per request: one eager fragment of UCX */
	ucp_datatype_t rma_read_dt;        /* a read's answer: packed from the export when UCX sends it */
	bool rma_read_dt_made;
	uint32_t rma_answers;        /* answers UCX has not sent yet */
	struct rdma_answer *answers; /* those, until UCX calls back (or the worker goes) */
};

static inline struct rdma_task *rdma_task_of(struct doca_task *base)
{
	return (struct rdma_task *)(void *)base;
}

/* rdma.c: record @p status (the first error wins) and queue the task for completion from progress. */
void rdma_task_finish(struct rdma_task *task, doca_error_t status);
/* rdma.c: the connection of this instance that a peer's message names (token, id), or NULL. */
struct doca_rdma_connection *rdma_conn_addressed(struct doca_rdma *rdma, uint64_t token, uint32_t id);
/* rdma.c: a new connection slot (IDLE fields), or NULL when all max_num_connections are used. */
struct doca_rdma_connection *rdma_conn_new(struct doca_rdma *rdma);
uint32_t rdma_conn_stamp(struct doca_rdma *rdma, const struct doca_rdma_connection *conn);
/* rdma.c: the peer of @p conn (peer_token, peer_conn) is known: its message keys. */
void rdma_conn_keys(struct doca_rdma_connection *conn);
/* rdma.c: an endpoint for @p conn: with UCX's peer-failure handling, else without (shared memory). */
ucs_status_t rdma_ep_create(struct doca_rdma *rdma, struct doca_rdma_connection *conn, ucp_ep_params_t *ep);
/*
 * rdma.c: the program ended @p conn: what waits on it (not yet handed to UCX)
 * and what is in flight end with @p status (an answer can no longer be matched).
 */
void rdma_conn_flush(struct doca_rdma_connection *conn, doca_error_t status);
/* rdma.c: watch the peer process of @p conn when it runs on this host (pidfd). */
void rdma_conn_watch_peer(struct doca_rdma *rdma, struct doca_rdma_connection *conn, uint32_t pid, uint64_t start_time,
			  const uint8_t boot_id[16]);
/* rdma.c: the error handler of every endpoint. */
void rdma_ep_err_cb(void *arg, ucp_ep_h ep, ucs_status_t status);
/* rdma.c: force-close the endpoint of @p conn (the close finishes from progress). */
void rdma_conn_close_ep(struct doca_rdma_connection *conn);
/* rdma_cm.c: a hello or bye message (inside the AM handler, under the lock). */
void rdma_cm_message(struct doca_rdma *rdma, const struct rdma_msg_hdr *h, const void *data, size_t length,
		     const ucp_am_recv_param_t *param);
/* rdma_cm.c: deliver connection events (progress, without the lock). */
void rdma_cm_deliver(struct doca_rdma *rdma);
/* rdma_cm.c: fail connections not set up within the connection request timeout (under the lock). */
void rdma_cm_check_timeouts(struct doca_rdma *rdma);
/* rdma_cm.c: the stop of a context: the listener goes, requests are rejected (under the lock). */
void rdma_cm_stop(struct doca_rdma *rdma);
/* rdma_cm.c: free what connection @p conn holds for the connection manager. */
void rdma_cm_conn_release(struct doca_rdma_connection *conn);
/* rdma.c: true when the peer of @p conn is known to be gone (polls its pidfd: error paths only). */
bool rdma_conn_peer_gone(struct doca_rdma_connection *conn);
/* rdma.c: a UCX status as the task status DOCA programs see. */
doca_error_t rdma_status_of(const struct doca_rdma *rdma, ucs_status_t st);

/* rdma_task.c: an operation of @p task on @p conn begins (counted in conn->ops when @p counts); NULL: no memory. */
struct rdma_op *rdma_op_begin(struct rdma_task *task, struct doca_rdma_connection *conn, bool counts);
/* rdma_task.c: ... and must complete within the connection's timeout (returns @p op). */
struct rdma_op *rdma_op_timed(struct rdma_op *op);
/* rdma_task.c: @p op is over with @p status; a detached one is only freed. */
void rdma_op_finish(struct rdma_op *op, doca_error_t status);
/* rdma_task.c: @p task has nothing left in flight or to send: complete it, or let its message go. */
void rdma_task_settle(struct rdma_task *task);
/* rdma_task.c: issue a checked task now that its connection has an endpoint. */
void rdma_task_issue(struct rdma_task *task);
/* rdma_task.c: the bytes of a re-export's read or write (the link thread, without the lock). */
doca_error_t rdma_task_link_copy(struct rdma_task *task);
/* rdma_task.c: that copy is over (the lock held). */
void rdma_task_link_done(struct rdma_task *task, doca_error_t err);
/* rdma_link.c: hand a re-export's read or write to the link thread (the lock held). */
void rdma_link_issue(struct rdma_task *task);
/* rdma_link.c: true when @p task must wait behind a copy of its connection (then it is kept; the lock held). */
bool rdma_link_holds(struct rdma_task *task);
/* rdma_link.c: fail what waits for the link thread with @p status (stop; the lock held). */
void rdma_link_flush(struct doca_rdma *rdma, doca_error_t status);
/* rdma_link.c: the link thread leaves (the context stopped: nothing is queued; without the lock). */
void rdma_link_stop(struct doca_rdma *rdma);
/* rdma_task.c: send the messages of @p conn that waited for a flush, in order (progress). */
void rdma_conn_run_deferred(struct doca_rdma_connection *conn);
/* rdma_task.c: the data-length updates of a successful task, then its callback (progress). */
void rdma_task_deliver(struct rdma_task *task);
/* rdma_task.c: the typed callback trampolines per kind. */
extern const ferry_task_complete_fn rdma_task_trampolines[RDMA_TASK_KINDS];
extern const char *const rdma_task_names[RDMA_TASK_KINDS];
/* rdma_task.c: hand back every task with an operation on @p conn, with @p status; UCX may call back later. */
void rdma_conn_detach_ops(struct doca_rdma_connection *conn, doca_error_t status);
/* rdma_task.c: free every op chunk (the worker is gone: no callback can come). */
void rdma_free_ops(struct doca_rdma *rdma);
/* rdma_task.c: checks and queues a task (ops->submit). */
doca_error_t rdma_task_submit(struct rdma_task *task);
/* rdma_task.c: give a posted receive the message @p u (progress). */
void rdma_receive_fill(struct rdma_task *task, struct rdma_unexpected *u);

/* rdma_mem.c: whether the comma-separated @p list holds @p name. */
bool rdma_net_list_has(const char *list, const char *name);
/* rdma.c: where the context's device is on the network (its identity, resolved on this host); logs why not. */
doca_error_t rdma_net_identity(const struct doca_rdma *rdma, const char *call, struct ferry_net_identity *id);
/* rdma_mem.c: the process's UCP context. */
doca_error_t rdma_ucp_get(ucp_context_h *ucp, const char *call);
void rdma_ucp_put(void);
/*
 * rdma_mem.c: the export [addr, addr + len) of export @p id with key @p key,
 * checked for @p need (DOCA_ACCESS_FLAG_RDMA_*): its bytes in this process,
 * marked in @p slot as being touched until rdma_mem_serve_end (an export
 * that is destroyed waits for that); NULL (unmarked) with *status set when
 * refused.
 */
uint8_t *rdma_mem_serve_begin(struct rdma_serve_slot *slot, uint64_t id, uint64_t key, uint64_t addr, uint64_t len,
			      uint32_t need, enum rdma_rma_status *status);
void rdma_mem_serve_end(struct rdma_serve_slot *slot);
/* rdma_mem.c: a peer wrote the export found by the walk of @p slot in progress: its hook runs (a sync event wakes). */
void rdma_mem_serve_written(struct rdma_serve_slot *slot);
/* rdma_mem.c: a started context's slot, which serving marks (rdma_mem_serve_begin), joins and leaves the list. */
void rdma_mem_slot_add(struct rdma_serve_slot *slot);
void rdma_mem_slot_remove(struct rdma_serve_slot *slot);

struct ferry_rdma_mem_import {
	uint64_t export_id; /* the exporter's export and its key, which its requests carry */
	uint64_t key;
	uint64_t addr;
	uint64_t len;
	uint32_t access;
	uint32_t pid;
	bool by_link; /* a re-export: reached through the mmap's link import (rdma_task.c), no key */
};

/* rdma_rma.c */
struct rdma_answer;
/* The bytes per request of @p rdma's worker, the datatype of read answers (at start); logs why not. */
doca_error_t rdma_rma_start(struct doca_rdma *rdma);
/* Queue the requests that move @p bytes of a read, write, atomic or network sync event task; send what the window allows. */
void rdma_rma_issue(struct rdma_task *task, uint64_t bytes);
/* Send the requests of @p conn's backlog that the window allows (progress, under the lock). */
void rdma_rma_pump(struct doca_rdma_connection *conn);
/* The AM handler of RDMA_AM_RMA_ID: a request to serve or an answer (under the lock). */
ucs_status_t rdma_rma_am_cb(void *arg, const void *header, size_t header_length, void *data, size_t length,
			    const ucp_am_recv_param_t *param);
/* Hand back every task of @p conn's backlog with @p status, forget its requests (under the lock). */
void rdma_rma_detach(struct doca_rdma_connection *conn, doca_error_t status);
/* Free what the requests and answers of @p rdma hold (the worker is gone). */
void rdma_rma_release(struct doca_rdma *rdma);

#endif /* FERRY_RDMA_PRIV_H_ */
