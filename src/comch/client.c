/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * client.c - the host-side Comch client context.
 *
 * Call order: doca_comch_client_create (host-side device + server name) -> setters
 * while IDLE -> doca_ctx_start returns DOCA_ERROR_IN_PROGRESS: the context is
 * STARTING -> doca_pe_progress connects (retrying while no server listens, until
 * FERRY_COMCH_CONNECT_TIMEOUT_MS, default 5000 ms), sends HELLO and waits for the
 * server's answer: WELCOME makes the context RUNNING; REFUSE, a timeout or a lost
 * server makes it leave STARTING/RUNNING (ferry_ctx_fail) with one log line that
 * names the cause and DOCA's error -> messages and send tasks while RUNNING ->
 * doca_ctx_stop (BYE to the server, backlogged sends fail) -> destroy. Started
 * again within CLIENT_REFUSED_GAP_NS of a refusal, it connects once the gap passed.
 *
 * The PE watches the socket once it exists, so the notification handle wakes on a
 * message or on the server's death. What the client waits for by the clock (its
 * next try while no server listens, the deadline of the server's answer) is a
 * timerfd in the PE's set: an event-driven program sleeps until it is due, and a
 * server that takes the connection and never answers still ends in TIME_OUT.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <doca_dev.h>

#include "comch/comch_priv.h"
#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_dev.h"

FERRY_LOG_MODULE("comch");

#define CLIENT_CONNECT_MS_DEFAULT 5000u
#define CLIENT_RETRY_NS           10000000ull
/*
 * A client started again this soon after its server refused it waits out the
 * rest before it connects: a program (or the Comm Channel) that starts again
 * whenever its client fails would otherwise meet the next refusal at once,
 * tens of thousands of connections and error lines a second on both sides.
 */
#define CLIENT_REFUSED_GAP_NS     1000000000ull

static struct doca_comch_client *client_of_ctx(struct doca_ctx *ctx)
{
	return ferry_container_of(ferry_container_of(ctx, struct comch_ep, ctx), struct doca_comch_client, ep);
}

static void client_fail(struct doca_comch_client *client, doca_error_t err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The context leaves STARTING or RUNNING: one line with the cause, then the generic stop. */
static void client_fail(struct doca_comch_client *client, doca_error_t err, const char *fmt, ...)
{
	char why[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	FERRY_ERR("comch client '%s' (%s): %s (%s); context leaves %s", client->ep.name, client->host_function, why,
		  doca_error_get_name(err), ferry_ctx_state_name(client->ep.ctx.state));
	client->phase = CLIENT_DOWN;
	ferry_ctx_fail(&client->ep.ctx, err);
}

/* ---- connecting ---- */

static doca_error_t client_send_hello(struct doca_comch_client *client)
{
	uint8_t frame[FERRY_FRAME_HELLO_MAX];
	size_t len = ferry_frame_build_hello(frame, client->ep.max_msg_size, client->ep.recv_queue_size,
					     client->machine, client->host_function, client->ep.name);

	return len == 0 ? DOCA_ERROR_INVALID_VALUE : ferry_link_send(client->conn.fd, frame, len);
}

/* One connect attempt; DOCA_ERROR_NOT_FOUND / AGAIN mean "try again later". */
static doca_error_t client_try_connect(struct doca_comch_client *client)
{
	int fd = -1;
	struct ucred cred;
	doca_error_t err = ferry_link_connect(&client->addr, &fd);

	if (err != DOCA_SUCCESS)
		return err;
	client->conn.fd = fd;
	/* The server's process: its exports are the only ones its consumers may name. */
	client->conn.peer_pid = ferry_link_peer_cred(fd, &cred) ? cred.pid : 0;
	err = ferry_pe_watch_fd(client->ep.ctx.pe, fd);
	if (err == DOCA_SUCCESS)
		err = client_send_hello(client);
	if (err != DOCA_SUCCESS)
		return err;
	client->phase = CLIENT_HELLO_SENT;
	return DOCA_SUCCESS;
}

static void client_progress_connecting(struct doca_comch_client *client)
{
	uint64_t now = ferry_link_now_ns();
	doca_error_t err;

	if (now < client->next_try_ns)
		return;
	err = client_try_connect(client);
	if (err == DOCA_SUCCESS)
		return;
	if ((err == DOCA_ERROR_NOT_FOUND || err == DOCA_ERROR_AGAIN) && now < client->deadline_ns) {
		client->next_try_ns = now + CLIENT_RETRY_NS;
		return;
	}
	if (err == DOCA_ERROR_NOT_FOUND || err == DOCA_ERROR_AGAIN)
		client_fail(client, DOCA_ERROR_NOT_FOUND,
			    "no server named '%s' listens for host function %s (%s) within the connect timeout",
			    client->ep.name, client->host_function, client->addr.text);
	else if (err == DOCA_ERROR_NOT_PERMITTED)
		client_fail(client, err, "%s is held by another user's process", client->addr.text);
	else
		client_fail(client, err, "cannot connect to %s: %s", client->addr.text, strerror(errno));
}

/* ---- receiving ---- */

/* Validate one received datagram: true with *f filled; false when the client failed. */
static bool client_parse(struct doca_comch_client *client, const uint8_t *buf, size_t len, struct ferry_frame *f)
{
	struct comch_ep *ep = &client->ep;
	const char *why = NULL;
	doca_error_t err;

	if (len > ep->rx_cap) {
		client_fail(client, DOCA_ERROR_TOO_BIG, "the server sent an oversized frame (more than %zu bytes)",
			    ep->rx_cap);
		return false;
	}
	err = ferry_frame_parse(buf, len, ep->max_msg_size, f, &why);
	if (err != DOCA_SUCCESS) {
		client_fail(client, err, "the server sent a bad frame: %s", why);
		return false;
	}
	return true;
}

static void client_lost(struct doca_comch_client *client)
{
	client_fail(client, DOCA_ERROR_CONNECTION_RESET,
		    "the server closed the connection (server exited or was killed)");
}

/* Receive and validate one frame: true with *f filled, false when nothing came or the client failed. */
static bool client_recv_frame(struct doca_comch_client *client, struct ferry_frame *f)
{
	struct comch_ep *ep = &client->ep;
	size_t len = 0;
	doca_error_t err = ferry_link_recv(client->conn.fd, ep->rx, ep->rx_cap, &len);

	if (err == DOCA_ERROR_AGAIN)
		return false;
	if (err != DOCA_SUCCESS) {
		client_lost(client);
		return false;
	}
	return client_parse(client, ep->rx, len, f);
}

static uint32_t client_progress_handshake(struct doca_comch_client *client)
{
	struct ferry_frame f;

	if (!client_recv_frame(client, &f)) {
		if (client->phase == CLIENT_HELLO_SENT && ferry_link_now_ns() >= client->deadline_ns)
			client_fail(client, DOCA_ERROR_TIME_OUT, "the server did not answer the handshake in time");
		return 0;
	}
	if (f.type == FERRY_FRAME_REFUSE) {
		client->refused_ns = ferry_link_now_ns();
		client_fail(client, f.u.refuse.error, "the server refused the connection: %.*s",
			    (int)f.u.refuse.reason_len, f.u.refuse.reason);
		return 1;
	}
	if (f.type != FERRY_FRAME_WELCOME) {
		client_fail(client, DOCA_ERROR_INVALID_VALUE, "the server sent frame type %d instead of WELCOME",
			    (int)f.type);
		return 1;
	}
	if (f.u.welcome.max_msg_size != client->ep.max_msg_size) {
		client_fail(client, DOCA_ERROR_INVALID_VALUE, "max message size mismatch: client %u, server %u",
			    client->ep.max_msg_size, f.u.welcome.max_msg_size);
		return 1;
	}
	client->conn.id = f.u.welcome.conn_id;
	if (comch_fast_conn_up(&client->conn) != DOCA_SUCCESS) {
		client_fail(client, DOCA_ERROR_NO_MEMORY, "no memory for the connection's fast path");
		return 1;
	}
	client->conn.established = true;
	comch_conn_fault_arm(&client->conn);
	client->phase = CLIENT_UP;
	ferry_ctx_set_running(&client->ep.ctx);
	return 1;
}

/* One frame while UP; returns false when the client is done (failed or stopped by a callback). */
static bool client_on_frame(struct doca_comch_client *client, const struct ferry_frame *f)
{
	struct comch_ep *ep = &client->ep;

	if (f->type == FERRY_FRAME_MSG) {
		if (ep->recv_cb != NULL)
			ep->recv_cb(&ep->recv_event, (uint8_t *)(uintptr_t)f->payload, f->payload_len, &client->conn);
		return client->phase == CLIENT_UP;
	}
	if (comch_fast_owns_frame(f)) {
		const char *why = NULL;

		if (comch_fast_on_frame(&client->conn, f, &why) != UINT32_MAX)
			return client->phase == CLIENT_UP;
		client_fail(client, DOCA_ERROR_INVALID_VALUE, "the server broke the fast-path protocol: %s", why);
		return false;
	}
	if (f->type == FERRY_FRAME_BYE)
		client_fail(client, DOCA_ERROR_CONNECTION_ABORTED, "the server ended the connection");
	else
		client_fail(client, DOCA_ERROR_INVALID_VALUE, "the server sent unexpected frame type %d", (int)f->type);
	return false;
}

/* One received datagram while UP (comch_datagram_fn); every datagram counts as an event. */
static uint32_t client_on_datagram(struct comch_ep *ep, struct doca_comch_connection *conn, const uint8_t *buf,
				   size_t len, bool *stop)
{
	struct doca_comch_client *client = (struct doca_comch_client *)ep;
	struct ferry_frame f;

	(void)conn;
	*stop = !client_parse(client, buf, len, &f) || !client_on_frame(client, &f);
	return 1;
}

static uint32_t client_progress_up(struct doca_comch_client *client)
{
	struct comch_ep *ep = &client->ep;
	uint32_t n = 0;

	struct doca_comch_connection *conn = &client->conn;

	if (client->conn.backlog.head != NULL)
		(void)comch_conn_flush_backlog(ep, &client->conn);
	comch_ep_attend(ep, &conn, 1);
	if (client->conn.broken) {
		client_fail(client, DOCA_ERROR_CONNECTION_RESET, "the server cannot be written to (server gone)");
		return n;
	}
	if (ep->ctx.events_held) /* messages wait in the socket (ferry_ctx.h) */
		return n;
	if (comch_conn_read(ep, &client->conn, client_on_datagram, &n) != DOCA_SUCCESS)
		client_lost(client);
	return n;
}

/* What the client waits for next, timed: its next try while nobody listens, the server's answer's deadline. */
static void client_sync_timer(struct doca_comch_client *client)
{
	uint64_t at = 0;

	if (client->phase == CLIENT_CONNECTING)
		at = client->next_try_ns;
	else if (client->phase == CLIENT_HELLO_SENT)
		at = client->deadline_ns;
	comch_timer_set(client->timer_fd, &client->timer_at, at);
}

static uint32_t client_progress(struct doca_ctx *ctx)
{
	struct doca_comch_client *client = client_of_ctx(ctx);
	uint32_t n = comch_list_complete(&client->ep.done);

	switch (client->phase) {
	case CLIENT_CONNECTING:
		client_progress_connecting(client);
		break;
	case CLIENT_HELLO_SENT:
		n += client_progress_handshake(client);
		break;
	case CLIENT_UP:
		n += client_progress_up(client);
		break;
	default:
		break;
	}
	client_sync_timer(client);
	return n;
}

static bool client_has_pending(struct doca_ctx *ctx)
{
	struct doca_comch_client *client = client_of_ctx(ctx);

	/*
	 * Sends waiting for room need no polling (the PE watches the socket for room,
	 * comch_conn_watch_room), nor the next try or the handshake deadline (a timer).
	 */
	return client->ep.done.head != NULL || client->conn.broken ||
	       atomic_load_explicit(&client->ep.fast_attention, memory_order_relaxed);
}

/* ---- start / stop ---- */

static void client_close(struct doca_comch_client *client)
{
	comch_timer_set(client->timer_fd, &client->timer_at, 0);
	ferry_pe_unwatch_fd(client->ep.ctx.pe, client->timer_fd);
	comch_fast_conn_gone(&client->conn);
	if (client->conn.fd >= 0) {
		ferry_pe_unwatch_fd(client->ep.ctx.pe, client->conn.fd);
		close(client->conn.fd);
	}
	client->conn.fd = -1;
}

/* Refused a moment ago: connect from progress once the gap has passed (the deadline moves with it). */
static bool client_wait_after_refusal(struct doca_comch_client *client)
{
	uint64_t now = ferry_link_now_ns();
	uint64_t until = client->refused_ns + CLIENT_REFUSED_GAP_NS;

	if (client->refused_ns == 0 || now >= until)
		return false;
	client->deadline_ns += until - now;
	client->next_try_ns = until;
	return true;
}

static doca_error_t client_start(struct doca_ctx *ctx)
{
	struct doca_comch_client *client = client_of_ctx(ctx);
	doca_error_t err = comch_ep_rendezvous(&client->ep, &client->addr, client->machine, client->host_function,
					       NULL);

	if (err == DOCA_SUCCESS)
		err = comch_ep_alloc_buffers(&client->ep);
	if (err != DOCA_SUCCESS)
		return err;
	err = ferry_pe_watch_fd(client->ep.ctx.pe, client->timer_fd);
	if (err != DOCA_SUCCESS) {
		comch_ep_free_buffers(&client->ep);
		return err;
	}
	client->conn.magic = COMCH_CONN_MAGIC;
	client->conn.ep = &client->ep;
	client->conn.fd = -1;
	client->conn.established = false;
	client->conn.broken = false;
	client->conn.hub_waiting = false;
	client->conn.watching_out = false;
	client->ep.num_hub_waiting = 0;
	client->conn.user_data.u64 = 0;
	client->conn.generation++;
	client->ep.num_broken = 0;
	client->phase = CLIENT_CONNECTING;
	client->deadline_ns = ferry_link_now_ns() +
			      comch_env_ms_as_ns("FERRY_COMCH_CONNECT_TIMEOUT_MS", CLIENT_CONNECT_MS_DEFAULT);
	client->next_try_ns = ferry_link_now_ns() + CLIENT_RETRY_NS;
	if (client_wait_after_refusal(client)) {
		client_sync_timer(client);
		return DOCA_ERROR_IN_PROGRESS;
	}
	/* First attempt now; "nobody listens yet" is retried from progress. */
	err = client_try_connect(client);
	if (err == DOCA_SUCCESS || err == DOCA_ERROR_NOT_FOUND || err == DOCA_ERROR_AGAIN) {
		client_sync_timer(client);
		return DOCA_ERROR_IN_PROGRESS;
	}
	client_close(client);
	comch_ep_free_buffers(&client->ep);
	client->phase = CLIENT_IDLE;
	return FERRY_RULE_IN("doca_ctx_start", err, "comch client '%s': cannot connect to %s", client->ep.name,
			     client->addr.text);
}

static void client_stop(struct doca_ctx *ctx)
{
	struct doca_comch_client *client = client_of_ctx(ctx);

	if (client->phase == CLIENT_UP)
		comch_conn_say_bye(&client->conn);
	comch_conn_fail_backlog(&client->ep, &client->conn, DOCA_ERROR_CONNECTION_ABORTED);
	client_close(client);
	client->phase = CLIENT_DOWN;
	client->conn.established = false;
	client->conn.generation++;
}

static void client_stopped(struct doca_ctx *ctx)
{
	struct doca_comch_client *client = client_of_ctx(ctx);

	comch_ep_free_buffers(&client->ep);
	client->phase = CLIENT_IDLE;
}

static doca_error_t client_submit(struct doca_task *task)
{
	struct doca_comch_task_send *send = ferry_container_of(task, struct doca_comch_task_send, base);
	struct doca_comch_client *client = (struct doca_comch_client *)send->ep;

	if (client->phase != CLIENT_UP || client->conn.broken || send->conn_generation != client->conn.generation)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_NOT_CONNECTED,
				     "comch client '%s': the connection has ended; free the task", client->ep.name);
	comch_conn_send_task(&client->ep, &client->conn, send);
	return DOCA_SUCCESS;
}

static const struct ferry_ctx_ops client_ops = {
	.start = client_start,
	.stop = client_stop,
	.stopped = client_stopped,
	.submit = client_submit,
	.progress = client_progress,
	.has_pending = client_has_pending,
};

/* comch_ep.watch_out: the socket in the PE's own set. */
static void client_watch_out(struct comch_ep *ep, struct doca_comch_connection *conn, bool on)
{
	ferry_pe_watch_fd_out(ep->ctx.pe, conn->fd, on);
}

/* ---- create / destroy ---- */

doca_error_t doca_comch_client_create(struct doca_dev *dev, const char *name, struct doca_comch_client **comch_client)
{
	const struct doca_devinfo *devinfo;
	struct doca_comch_client *client;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(dev);
	FERRY_ARG_NOT_NULL(comch_client);
	err = comch_ep_check_name(__func__, name);
	if (err != DOCA_SUCCESS)
		return err;
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device", (void *)dev);
	devinfo = doca_dev_as_devinfo(dev);
	if (ferry_devinfo_side(devinfo) != FERRY_SIDE_HOST)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
				  "device %s is on the DPU side; a client needs a host-side device",
				  ferry_dev_name(dev));
	client = ferry_calloc(1, sizeof(*client));
	if (client == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for client '%s'", name);
	client->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (client->timer_fd < 0) {
		free(client);
		return FERRY_RULE(DOCA_ERROR_OPERATING_SYSTEM, "client '%s': no timer: %s", name, strerror(errno));
	}
	comch_ep_init(&client->ep, &client_ops, false, dev);
	client->ep.watch_out = client_watch_out;
	strcpy(client->ep.name, name); /* length checked above */
	client->machine = ferry_devinfo_machine(devinfo);
	snprintf(client->host_function, sizeof(client->host_function), "%s", ferry_devinfo_name(devinfo));
	client->conn.fd = -1;
	*comch_client = client;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_destroy(struct doca_comch_client *comch_client)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(comch_client);
	err = ferry_ctx_check_destroyable(&comch_client->ep.ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	ferry_ctx_fini(&comch_client->ep.ctx);
	comch_client->conn.magic = 0;
	close(comch_client->timer_fd);
	free(comch_client);
	return DOCA_SUCCESS;
}

/* ---- setters and getters ---- */

doca_error_t doca_comch_client_set_max_msg_size(struct doca_comch_client *comch_client, uint32_t size)
{
	FERRY_ARG_NOT_NULL(comch_client);
	return comch_ep_set_max_msg_size(&comch_client->ep, __func__, size);
}

doca_error_t doca_comch_client_get_max_msg_size(const struct doca_comch_client *comch_client, uint32_t *size)
{
	FERRY_ARG_NOT_NULL(comch_client);
	FERRY_ARG_NOT_NULL(size);
	*size = comch_client->ep.max_msg_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_set_recv_queue_size(struct doca_comch_client *comch_client, uint32_t size)
{
	FERRY_ARG_NOT_NULL(comch_client);
	return comch_ep_set_recv_queue_size(&comch_client->ep, __func__, size);
}

doca_error_t doca_comch_client_get_recv_queue_size(const struct doca_comch_client *comch_client, uint32_t *size)
{
	FERRY_ARG_NOT_NULL(comch_client);
	FERRY_ARG_NOT_NULL(size);
	*size = comch_client->ep.recv_queue_size;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_get_device(const struct doca_comch_client *comch_client, struct doca_dev **dev)
{
	FERRY_ARG_NOT_NULL(comch_client);
	FERRY_ARG_NOT_NULL(dev);
	*dev = comch_client->ep.ctx.dev;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_comch_client_as_ctx(struct doca_comch_client *comch_client)
{
	return comch_client == NULL ? NULL : &comch_client->ep.ctx;
}

doca_error_t doca_comch_client_get_connection(const struct doca_comch_client *comch_client,
					      struct doca_comch_connection **connection)
{
	FERRY_ARG_NOT_NULL(comch_client);
	FERRY_ARG_NOT_NULL(connection);
	if (comch_client->phase != CLIENT_UP)
		return FERRY_RULE(DOCA_ERROR_BAD_STATE, "client '%s' is %s; the connection exists while RUNNING",
				  comch_client->ep.name, ferry_ctx_state_name(comch_client->ep.ctx.state));
	*connection = (struct doca_comch_connection *)(uintptr_t)&comch_client->conn;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_client_task_send_set_conf(struct doca_comch_client *comch_client,
						  doca_comch_task_send_completion_cb_t task_completion_cb,
						  doca_comch_task_send_completion_cb_t task_error_cb,
						  uint32_t num_send_tasks)
{
	FERRY_ARG_NOT_NULL(comch_client);
	return comch_ep_task_send_set_conf(&comch_client->ep, __func__, task_completion_cb, task_error_cb,
					   num_send_tasks);
}

doca_error_t doca_comch_client_task_send_alloc_init(struct doca_comch_client *comch_client,
						    struct doca_comch_connection *peer, const void *msg, uint32_t len,
						    struct doca_comch_task_send **task)
{
	FERRY_ARG_NOT_NULL(comch_client);
	return comch_ep_task_send_alloc_init(&comch_client->ep, __func__, peer, msg, len, task);
}

doca_error_t doca_comch_client_event_msg_recv_register(struct doca_comch_client *comch_client,
						       doca_comch_event_msg_recv_cb_t recv_event_cb)
{
	FERRY_ARG_NOT_NULL(comch_client);
	return comch_ep_register_msg_recv(&comch_client->ep, __func__, recv_event_cb);
}

doca_error_t doca_comch_client_event_consumer_register(struct doca_comch_client *comch_client,
						       doca_comch_event_consumer_cb_t new_consumer_event_cb,
						       doca_comch_event_consumer_cb_t expired_consumer_event_cb)
{
	FERRY_ARG_NOT_NULL(comch_client);
	return comch_ep_register_consumer(&comch_client->ep, __func__, new_consumer_event_cb,
					  expired_consumer_event_cb);
}
