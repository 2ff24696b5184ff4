/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc_priv.h - DOCA's Comm Channel (1.x and 2.x) as a thin layer on Comch.
 *
 * An endpoint owns a DOCA 3 progress engine and, once it listens, a
 * doca_comch_server on it (once it connects, a doca_comch_client): Comch does
 * the sockets, the handshake and its peer checks (credentials, the host function
 * the representor stands for, the name), the frames and the limits. This layer
 * only turns Comch's callbacks into what the old calls read:
 *
 *   message received   -> a node appended to the endpoint's receive queue,
 *                         taken by recvfrom (oldest first, any peer); one
 *                         above the endpoint's max_msg_size (the wire takes
 *                         the device's) is dropped with a line;
 *   client connected   -> a new peer handle (the server's recvfrom shows it
 *                         with the client's first message);
 *   client gone        -> an "end" node after the client's last message
 *                         (recvfrom answers CONNECTION_RESET once, with it);
 *   client ctx RUNNING -> the client's peer is connected (update_info SUCCESS);
 *   client ctx IDLE    -> retry while no server listens (ctx fail_status
 *                         NOT_FOUND or TIME_OUT), else aborted or lost;
 *   send task done     -> a slot of the send queue (the Comch task pool, sized
 *                         send_queue_size) is free again.
 *
 * Progress: every call that needs news runs the engine a few rounds
 * (cc_drive). While the receive queue holds recv_queue_size messages or more,
 * the Comch object's events are held (doca_ctx.events_held): progress still
 * completes sends, but messages stay in the socket, so a peer that floods us
 * meets back-pressure there, not in our heap (beyond the queue: at most
 * CC_COMCH_RX_BATCH messages per connection and round), and our sends never
 * wait for our reader. A disconnect or destroy first lets the sends already
 * accepted reach the socket (for CC_STOP_WAIT_NS at most).
 *
 * Event channels: each is an epoll fd holding the engine's notification handle
 * (readable on socket traffic and pending completions) and an eventfd of ours
 * that the arm calls and the callbacks write when the awaited condition holds.
 *
 * Locking: one mutex per endpoint, taken by every call (peer calls take their
 * endpoint's); blocking 1.x calls release it while they wait.
 */
#ifndef FERRY_LEGACY_CC_PRIV_H_
#define FERRY_LEGACY_CC_PRIV_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_pe.h>

#define CC_EP_MAGIC        0x43434550u /* "CCEP" */
#define CC_PEER_MAGIC      0x43435052u /* "CCPR" */
#define CC_MAX_QUEUE       8192u       /* send and receive queues, in messages */
#define CC_DEFAULT_QUEUE   64u
#define CC_COMCH_RX_BATCH  32u /* messages one progress call may take per connection */
#define CC_PROGRESS_ROUNDS 4   /* engine rounds per call that wants news */
#define CC_STOP_WAIT_NS    2000000000ull
#define CC_V14_NONBLOCK    1u /* DOCA_CC_INIT_FLAG_NONBLOCK */
#define CC_V14_SERVER_PCI  "03:00.0"
#define CC_V14_SERVER_REP  "b1:00.0"
#define CC_V14_CLIENT_PCI  "b1:00.0"

/** struct doca_comm_channel_init_attr of DOCA 1.3/1.4. */
struct ferry_cc_init_attr {
	uint32_t cookie;
	uint32_t flags;
	uint32_t maxmsgs;
	uint32_t msgsize;
};
_Static_assert(sizeof(struct ferry_cc_init_attr) == 16, "struct doca_comm_channel_init_attr is 16 bytes");

enum cc_role {
	CC_ROLE_NONE = 0,
	CC_ROLE_SERVER,
	CC_ROLE_CLIENT,
};

enum cc_peer_state {
	CC_PEER_CONNECTING = 0, /* client: the Comch client is STARTING */
	CC_PEER_UP,
	CC_PEER_ABORTED, /* client: refused, or no server within the 1.x connect */
	CC_PEER_GONE,    /* was up; the connection ended */
};

/** One received message, or (end) the mark that its peer's connection ended. */
struct cc_msg {
	struct cc_msg *next;
	struct doca_comm_channel_addr_t *peer;
	uint32_t len;
	bool end;
	uint8_t data[];
};

struct doca_comm_channel_addr_t {
	uint32_t magic;
	struct doca_comm_channel_ep_t *ep;
	struct doca_comch_connection *conn;    /* while UP */
	struct doca_comm_channel_addr_t *next; /* the endpoint's peers, oldest first */
	enum cc_peer_state state;
	bool announced; /* recvfrom returned something of it */
	bool detached;  /* disconnected: freed once no send of it is in flight */
	bool retry;     /* client: start the Comch client again after this progress */
	uint64_t user_data;
	uint64_t send_msgs, send_bytes, recv_msgs, recv_bytes, in_flight;
	uint32_t queued; /* its nodes in the receive queue */
};

struct doca_comm_channel_ep_t {
	uint32_t magic;
	pthread_mutex_t lock;
	int generation; /* 14 or 22: which API made it */
	bool blocking;  /* 1.x without DOCA_CC_INIT_FLAG_NONBLOCK */
	uint32_t cookie;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	bool own_dev; /* 1.x: opened here, closed by destroy */
	uint16_t max_msg_size;
	uint16_t send_queue_size;
	uint16_t recv_queue_size;
	enum cc_role role;
	struct doca_pe *pe; /* from the first listen/connect to destroy */
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	bool stopping; /* we stop the Comch context ourselves: its IDLE is no news */
	/* peers: a list, oldest first; the detached ones wait for their sends */
	struct doca_comm_channel_addr_t *peers;
	struct doca_comm_channel_addr_t *detached;
	/* the receive queue */
	struct cc_msg *rx_head;
	struct cc_msg *rx_tail;
	uint32_t rx_count;
	_Atomic uint64_t oversized; /* messages dropped for exceeding max_msg_size (sampled log lines) */
	uint32_t send_in_flight;
	/* event channels: [0] send, [1] recv, [2] service */
	int chan_fd[3];
	int chan_ev[3];
	bool chan_armed[3];
	/* update_service_state_info's snapshot */
	struct doca_comm_channel_addr_t **peer_array;
	uint32_t peer_array_len;
	uint32_t pending_connections;
};

enum cc_chan {
	CC_CHAN_SEND = 0,
	CC_CHAN_RECV = 1,
	CC_CHAN_SERVICE = 2,
};

/* ---- comm_channel.c: endpoints ---- */

/** The endpoint behind @p ep, locked; NULL with a line when it is not one. */
struct doca_comm_channel_ep_t *cc_ep_lock(struct doca_comm_channel_ep_t *ep, const char *call);
void cc_ep_unlock(struct doca_comm_channel_ep_t *ep);
/** Make an endpoint of generation @p generation (14, 22) with the default sizes. */
doca_error_t cc_ep_new(int generation, struct doca_comm_channel_ep_t **ep);
doca_error_t cc_ep_listen(struct doca_comm_channel_ep_t *ep, const char *name);
doca_error_t cc_ep_connect(struct doca_comm_channel_ep_t *ep, const char *name, struct doca_comm_channel_addr_t **peer);

/* ---- cc_engine.c: the Comch object, its callbacks and the progress ---- */

/** Make the engine and the event channels (first listen/connect). */
doca_error_t cc_engine_open(struct doca_comm_channel_ep_t *ep, const char *call);
/** Close what cc_engine_open made. */
void cc_engine_close(struct doca_comm_channel_ep_t *ep);
doca_error_t cc_server_open(struct doca_comm_channel_ep_t *ep, const char *name);
doca_error_t cc_client_open(struct doca_comm_channel_ep_t *ep, const char *name, struct doca_comm_channel_addr_t *peer);
/** Stop and destroy the Comch server or client (every connection ends; no news is made of it). */
void cc_comch_close(struct doca_comm_channel_ep_t *ep);
/**
 * Run the engine a few rounds (holding the Comch object's events while the
 * receive queue is full) and restart a waiting client.
 */
void cc_drive(struct doca_comm_channel_ep_t *ep);
/** Before a connection ends by our hand: let its sends (all, for NULL) reach the socket, for a while at most. */
void cc_flush_sends(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer);
/** Write the channel's eventfd if it is armed (from callbacks: the condition became true). */
void cc_chan_wake(struct doca_comm_channel_ep_t *ep, enum cc_chan chan);

/* ---- cc_peer.c: peer handles and the receive queue ---- */

struct doca_comm_channel_addr_t *cc_peer_new(struct doca_comm_channel_ep_t *ep);
/** Is @p peer one of @p ep's live handles? (Pointers are compared, never followed.) */
bool cc_peer_known(const struct doca_comm_channel_ep_t *ep, const struct doca_comm_channel_addr_t *peer);
/** Take @p peer off the list, drop its queued nodes, free it (or wait for its sends). */
void cc_peer_forget(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer);
/** A send of @p peer finished: count it and free a detached peer with nothing left. */
void cc_peer_send_done(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer);
/** Free every peer, queued node and snapshot (the Comch object is gone). */
void cc_peers_free_all(struct doca_comm_channel_ep_t *ep);
/** Append a message (or, @p end, the peer's end mark) to the receive queue. */
void cc_rx_push(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer, const uint8_t *data,
		uint32_t len, bool end);

/* ---- cc_io.c: the data calls shared by 1.x and 2.x ---- */

doca_error_t cc_sendto(struct doca_comm_channel_ep_t *ep, const void *msg, size_t len, int flags,
		       struct doca_comm_channel_addr_t *peer);
doca_error_t cc_recvfrom(struct doca_comm_channel_ep_t *ep, void *msg, size_t *len, int flags,
			 struct doca_comm_channel_addr_t **peer);
/** Is the condition a channel waits for true now? */
bool cc_chan_ready(const struct doca_comm_channel_ep_t *ep, enum cc_chan chan);
/** Arm a channel: readable at once when it is ready, else once it becomes so. */
void cc_chan_arm(struct doca_comm_channel_ep_t *ep, enum cc_chan chan);
/** 1.x blocking: arm @p chan, release the lock, wait up to @p ms, take the lock again. */
void cc_wait(struct doca_comm_channel_ep_t *ep, enum cc_chan chan, int ms);

#endif /* FERRY_LEGACY_CC_PRIV_H_ */
