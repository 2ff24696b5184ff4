/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch_priv.h - what the Comch server and client share: the endpoint (a DOCA
 * context with a send-task pool, a receive buffer and the registered callbacks),
 * connections and send tasks.
 *
 * Send path: alloc_init copies the message into the task's slot of a slab (one
 * frame-sized slot per task, header included), so the application's buffer is
 * free at once and a send is one send() of one contiguous frame. Submit sends at
 * once when the connection has no backlog; otherwise, or when the socket is full,
 * the task waits in the connection's backlog, which progress retries in order.
 * Either way the task completes from progress only (the endpoint's done list).
 * While a backlog (or fast-path frames) waits, the socket is watched for room
 * (EPOLLOUT) rather than reported as pending work: a peer that stops reading
 * leaves an event-driven program asleep, not polling, until it reads again.
 *
 * Receive path: progress reads at most recv_queue_size frames per connection per
 * call, up to COMCH_RX_BATCH_MAX per recvmmsg (one system call for a burst), validates each with ferry_frame_parse and delivers MSG frames to the
 * msg-recv callback; a frame that breaks the protocol ends that connection.
 *
 * Lifetime of a connection: a server's connections live in a slot table; a task
 * remembers (slot, generation) so a task for a connection that has gone since
 * alloc_init fails cleanly at submit instead of touching freed memory.
 */
#ifndef FERRY_COMCH_PRIV_H_
#define FERRY_COMCH_PRIV_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>

#include "core/ferry_ctx.h"
#include "comch/frame_priv.h"
#include "link/ferry_link.h"

/* Caps of every Comch-capable device (a BlueField-3 answers similar values). */
#define COMCH_CAP_MAX_NAME_LEN   (FERRY_FRAME_NAME_MAX + 1u)
#define COMCH_CAP_MAX_MSG_SIZE   4080u
#define COMCH_CAP_MAX_RECV_QUEUE 8192u
#define COMCH_CAP_MAX_CLIENTS    512u
#define COMCH_CAP_MAX_SEND_TASKS 65536u
#define COMCH_DEFAULT_RECV_QUEUE 64u
#define COMCH_RX_BATCH_MAX       16u /* frames per receive system call */

#define COMCH_CONN_MAGIC 0x436f6e6eu /* "Conn": catches foreign pointers passed as connections */

struct comch_ep;
struct comch_fast_hub;

struct doca_comch_event_msg_recv {
	struct comch_ep *ep;
};

struct doca_comch_event_connection_status_changed {
	struct comch_ep *ep;
};

struct doca_comch_event_consumer {
	struct comch_ep *ep;
};

struct doca_comch_connection {
	uint32_t magic;
	struct comch_ep *ep;
	int fd;
	pid_t peer_pid;
	uint32_t slot;          /* server: index in the slot table; client: 0 */
	uint32_t generation;    /* bumped when the slot is reused */
	uint32_t id;            /* server-assigned, for log lines */
	bool established;       /* handshake done */
	bool broken;            /* peer gone or protocol broken: reap in progress */
	bool quiet;             /* ended by doca_comch_server_disconnect: no event */
	bool hub_waiting;       /* fast-path frames in its hub wait for room on the socket */
	bool watching_out;      /* its socket is watched for room (comch_conn_watch_room) */
	uint64_t fault_drop_at; /* FERRY_FAULT action=drop: the send that drops it; 0 = never */
	uint64_t fault_sends;   /* sends counted towards fault_drop_at */
	uint64_t deadline_ns;   /* handshake must finish by then (server side, pending) */
	union doca_data user_data;
	struct ferry_task_list backlog;
	struct comch_fast_hub *hub; /* what its producers and consumers share with it (fast_priv.h); once established */
	/* fast path (fast_priv.h): this side's producers and consumers, the peer's consumers */
};

struct doca_comch_task_send {
	struct doca_task base; /* first: generic header */
	struct comch_ep *ep;
	uint32_t conn_slot;
	uint32_t conn_generation;
	uint8_t *frame; /* header + message, in the endpoint's slab */
	uint32_t frame_len;
};

/** Server or client: the part they share. */
struct comch_ep {
	struct doca_ctx ctx; /* first: as_ctx and back */
	struct ferry_task_pool send_pool;
	bool is_server;
	const char *kind; /* "comch server" / "comch client" in log lines */
	char name[COMCH_CAP_MAX_NAME_LEN];
	uint32_t max_msg_size;
	uint32_t recv_queue_size;
	doca_comch_task_send_completion_cb_t send_ok_cb;
	doca_comch_task_send_completion_cb_t send_err_cb;
	doca_comch_event_msg_recv_cb_t recv_cb;
	doca_comch_event_consumer_cb_t new_consumer_cb;
	doca_comch_event_consumer_cb_t expired_consumer_cb;
	struct doca_comch_event_msg_recv recv_event;
	struct doca_comch_event_connection_status_changed conn_event;
	struct doca_comch_event_consumer consumer_event;
	uint8_t *slab; /* send_pool.capacity frame slots, from start to stopped */
	size_t slot_size;
	uint8_t *rx;       /* rx_batch frame slots, from start to stopped */
	size_t rx_cap;     /* bytes of one slot that a frame may fill */
	size_t rx_stride;  /* rx_cap rounded up to a cache line */
	uint32_t rx_batch; /* frames taken per recvmmsg */
	size_t rx_lens[COMCH_RX_BATCH_MAX];
	struct ferry_task_list done; /* finished tasks, completed by the next progress */
	uint32_t num_backlogged;     /* connections with a non-empty backlog */
	uint32_t num_hub_waiting;    /* connections with hub_waiting */
	/* Watch @p conn's socket for room to write too (@p on), or only for input (server.c, client.c). */
	void (*watch_out)(struct comch_ep *ep, struct doca_comch_connection *conn, bool on);
	uint32_t num_broken; /* connections waiting to be reaped by progress */
	/*
	 * Set (then the endpoint's PE woken) by a producer or consumer on another
	 * thread when a connection's hub needs this thread: the peer broke the fast
	 * path, or a frame waits for room on the socket. Progress takes it and looks.
	 */
	atomic_bool fast_attention;
};

/* Rules a server's peers break, each sampled apart (ferry_log_sampled): the rule is a literal, its address the key. */
#define COMCH_LOG_RULES 24u

struct comch_log_rule {
	const char *rule;
	_Atomic uint64_t count;
};

struct doca_comch_server {
	struct comch_ep ep; /* first */
	struct doca_dev_rep *repr;
	uint32_t machine;
	char host_function[FERRY_FRAME_DEV_MAX + 1];
	doca_comch_event_connection_status_changed_cb_t connect_cb;
	doca_comch_event_connection_status_changed_cb_t disconnect_cb;
	struct ferry_link_addr addr;
	int listen_fd;
	int lock_fd;                          /* flock of the socket path while listening */
	int epoll_fd;                         /* the listen socket and every connection; the PE watches it */
	int timer_fd;                         /* in epoll_fd: fires at the earliest handshake deadline */
	uint64_t timer_at;                    /* when it fires (CLOCK_MONOTONIC ns), 0: disarmed */
	uint64_t listen_rest_until;           /* accept failed: the listener rests until then (0: it does not) */
	struct doca_comch_connection **slots; /* COMCH_CAP_MAX_CLIENTS + pending headroom */
	uint32_t num_slots;
	uint32_t num_conns;   /* established */
	uint32_t num_pending; /* accepted, handshake not done */
	uint32_t next_id;
	uint32_t *generations;                            /* per slot, survives the connection */
	struct doca_comch_connection *solo;               /* the one client, while it is the only one */
	uint32_t poll_tick;                               /* counts progress calls that skipped epoll_wait */
	struct comch_log_rule log_rules[COMCH_LOG_RULES]; /* lines about peers, sampled per rule */
};

enum comch_client_phase {
	CLIENT_IDLE = 0,
	CLIENT_CONNECTING, /* nobody listens yet: retry until the deadline */
	CLIENT_HELLO_SENT, /* waiting for WELCOME or REFUSE */
	CLIENT_UP,
	CLIENT_DOWN, /* failed or stopping */
};

struct doca_comch_client {
	struct comch_ep ep; /* first */
	uint32_t machine;
	char host_function[FERRY_FRAME_DEV_MAX + 1];
	struct ferry_link_addr addr;
	enum comch_client_phase phase;
	uint64_t deadline_ns;
	uint64_t next_try_ns;
	uint64_t refused_ns; /* when the server last refused this client (0: never) */
	int timer_fd;        /* in the PE's set while started: the next try, or the handshake deadline */
	uint64_t timer_at;   /* when it fires (CLOCK_MONOTONIC ns), 0: disarmed */
	struct doca_comch_connection conn;
};

/* ---- shared helpers (comch.c) ---- */

void comch_ep_init(struct comch_ep *ep, const struct ferry_ctx_ops *ops, bool is_server, struct doca_dev *dev);
doca_error_t comch_ep_check_name(const char *call, const char *name);
/** A timeout from environment variable @p var in ms, in ns (unset: @p default_ms; 0, garbage or over a day: a line and @p default_ms). */
uint64_t comch_env_ms_as_ns(const char *var, uint32_t default_ms);
/** The rendezvous address of @p ep in the current domain, named in *@p domain_out unless NULL (logs a broken rule). */
doca_error_t comch_ep_rendezvous(struct comch_ep *ep, struct ferry_link_addr *addr, uint32_t machine,
				 const char *host_function, const char **domain_out);
doca_error_t comch_ep_alloc_buffers(struct comch_ep *ep);
void comch_ep_free_buffers(struct comch_ep *ep);
doca_error_t comch_ep_set_max_msg_size(struct comch_ep *ep, const char *call, uint32_t size);
doca_error_t comch_ep_set_recv_queue_size(struct comch_ep *ep, const char *call, uint32_t size);
doca_error_t comch_ep_register_msg_recv(struct comch_ep *ep, const char *call, doca_comch_event_msg_recv_cb_t cb);
doca_error_t comch_ep_register_consumer(struct comch_ep *ep, const char *call, doca_comch_event_consumer_cb_t new_cb,
					doca_comch_event_consumer_cb_t expired_cb);
doca_error_t comch_ep_task_send_set_conf(struct comch_ep *ep, const char *call, doca_comch_task_send_completion_cb_t ok,
					 doca_comch_task_send_completion_cb_t err, uint32_t num);
doca_error_t comch_ep_task_send_alloc_init(struct comch_ep *ep, const char *call, struct doca_comch_connection *conn,
					   const void *msg, uint32_t len, struct doca_comch_task_send **task);

/** Queue or send a task on a live connection (never completes it). */
void comch_conn_send_task(struct comch_ep *ep, struct doca_comch_connection *conn, struct doca_comch_task_send *task);
/** Move a task to the done list with @p status. */
void comch_ep_finish_task(struct comch_ep *ep, struct doca_comch_task_send *task, doca_error_t status);
/** Retry a connection's backlog; returns false if the connection broke. */
bool comch_conn_flush_backlog(struct comch_ep *ep, struct doca_comch_connection *conn);
/** Fail every backlogged task of a connection with @p status. */
void comch_conn_fail_backlog(struct comch_ep *ep, struct doca_comch_connection *conn, doca_error_t status);
/** Complete every task of @p list with its status (from progress); returns how many. */
uint32_t comch_list_complete(struct ferry_task_list *list);
/** NULL and foreign-devinfo checks of every Comch cap getter. */
doca_error_t comch_cap_check(const char *call, const struct doca_devinfo *devinfo, const void *out);
/** A cap getter: the checks, then *@p out = @p value. */
doca_error_t comch_cap_u32(const char *call, const struct doca_devinfo *devinfo, uint32_t *out, uint32_t value);
/**
 * Watch @p conn's socket for room while its backlog or hub frames wait, and
 * only for input otherwise: a peer that stops reading leaves us asleep, not
 * polling, until it reads again.
 */
void comch_conn_watch_room(struct doca_comch_connection *conn);
/** Whether fast-path frames of @p conn's hub wait for room (keeps the counts and the watch). */
void comch_conn_set_hub_waiting(struct doca_comch_connection *conn, bool waiting);
/** Mark a connection for reaping by progress (idempotent). */
void comch_conn_mark_broken(struct doca_comch_connection *conn);

/** As a connection comes up: read FERRY_FAULT's action=drop for it (core/fault.h). */
void comch_conn_fault_arm(struct doca_comch_connection *conn);

/**
 * Handle one received datagram of @p conn; returns the events delivered. Sets
 * *stop when reading must end now (the connection may be freed by then).
 */
typedef uint32_t (*comch_datagram_fn)(struct comch_ep *ep, struct doca_comch_connection *conn, const uint8_t *buf,
				      size_t len, bool *stop);
/**
 * Read up to recv_queue_size datagrams of @p conn, COMCH_RX_BATCH_MAX per system
 * call, adding the events @p on_datagram delivers to *@p events. Returns the
 * receive error that means the peer is gone, else DOCA_SUCCESS (drained, budget
 * spent or stopped).
 */
doca_error_t comch_conn_read(struct comch_ep *ep, struct doca_comch_connection *conn, comch_datagram_fn on_datagram,
			     uint32_t *events);
/**
 * Arm timerfd @p fd (in an epoll set the PE watches) for @p at, CLOCK_MONOTONIC
 * ns (0: disarm), unless *@p armed_at is that already; a past expiry is drained
 * first. Timed waits (handshake deadlines, connect retries) then leave the PE
 * asleep until they are due instead of counting as pending work.
 */
void comch_timer_set(int fd, uint64_t *armed_at, uint64_t at);
/** Send a BYE, best effort. */
void comch_conn_say_bye(struct doca_comch_connection *conn);

/* ---- fast path hooks (fastpath.c) ---- */

/** True for the frame types the fast path handles. */
bool comch_fast_owns_frame(const struct ferry_frame *f);
/**
 * Handle one fast-path frame from the peer of @p conn (from the endpoint's
 * progress). Returns the events delivered; sets *why and returns UINT32_MAX
 * when the frame breaks the protocol (the caller ends the connection).
 */
uint32_t comch_fast_on_frame(struct doca_comch_connection *conn, const struct ferry_frame *f, const char **why);
/** The connection is established: give it the hub its producers and consumers will share (NO_MEMORY: end it). */
doca_error_t comch_fast_conn_up(struct doca_comch_connection *conn);
/** The connection ends: its producers and consumers learn it on their threads, the peer's consumers are forgotten. */
void comch_fast_conn_gone(struct doca_comch_connection *conn);
/**
 * From the endpoint's progress once fast_attention was set: mark broken the
 * connections whose fast path the peer broke, retry frames that waited for
 * room. Returns whether work is left (frames still waiting).
 */
bool comch_fast_conn_attend(struct doca_comch_connection *conn);
/** If a producer or consumer called for it (fast_attention), attend each of the endpoint's connections. */
void comch_ep_attend(struct comch_ep *ep, struct doca_comch_connection *const *conns, uint32_t num_conns);
/** Producers and consumers created on @p conn and not yet destroyed. */
void comch_fast_conn_users(const struct doca_comch_connection *conn, uint32_t *producers, uint32_t *consumers);

#endif /* FERRY_COMCH_PRIV_H_ */
