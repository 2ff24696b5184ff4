/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cc_engine.c - the Comm Channel's engine: the DOCA 3 progress engine, the
 * Comch server or client on it, their callbacks, and the event channels.
 * See cc_priv.h for what each callback turns into.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_pe.h>

#include "common/ferry_log.h"
#include "core/ferry_ctx.h"

#include "legacy/cc_priv.h"

FERRY_LOG_MODULE("comm_channel");

static uint64_t cc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- event channels ---- */

void cc_chan_wake(struct doca_comm_channel_ep_t *ep, enum cc_chan chan)
{
	uint64_t one = 1;

	if (!ep->chan_armed[chan] || ep->chan_ev[chan] < 0)
		return;
	ep->chan_armed[chan] = false;
	/* EAGAIN: the counter is full, so the fd is readable anyway. */
	if (write(ep->chan_ev[chan], &one, sizeof(one)) < 0 && errno != EAGAIN)
		FERRY_WARN("event channel of endpoint %p: %s", (void *)ep, strerror(errno));
}

static doca_error_t cc_chan_open(struct doca_comm_channel_ep_t *ep, enum cc_chan chan, int pe_fd)
{
	struct epoll_event pe_ev = {.events = EPOLLIN, .data.fd = pe_fd};
	struct epoll_event own_ev = {.events = EPOLLIN};

	ep->chan_fd[chan] = epoll_create1(EPOLL_CLOEXEC);
	ep->chan_ev[chan] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ep->chan_fd[chan] < 0 || ep->chan_ev[chan] < 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	own_ev.data.fd = ep->chan_ev[chan];
	if (epoll_ctl(ep->chan_fd[chan], EPOLL_CTL_ADD, pe_fd, &pe_ev) != 0 ||
	    epoll_ctl(ep->chan_fd[chan], EPOLL_CTL_ADD, ep->chan_ev[chan], &own_ev) != 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	return DOCA_SUCCESS;
}

doca_error_t cc_engine_open(struct doca_comm_channel_ep_t *ep, const char *call)
{
	doca_notification_handle_t pe_fd;
	doca_error_t err;

	if (ep->pe != NULL)
		return DOCA_SUCCESS;
	err = doca_pe_create(&ep->pe);
	if (err != DOCA_SUCCESS)
		return err;
	err = doca_pe_get_notification_handle(ep->pe, &pe_fd);
	for (int c = 0; c < 3 && err == DOCA_SUCCESS; c++)
		err = cc_chan_open(ep, (enum cc_chan)c, pe_fd);
	if (err != DOCA_SUCCESS) {
		cc_engine_close(ep);
		return FERRY_RULE_IN(call, err, "endpoint %p: no event channel: %s", (void *)ep, strerror(errno));
	}
	return DOCA_SUCCESS;
}

void cc_engine_close(struct doca_comm_channel_ep_t *ep)
{
	for (int c = 0; c < 3; c++) {
		if (ep->chan_fd[c] >= 0)
			close(ep->chan_fd[c]);
		if (ep->chan_ev[c] >= 0)
			close(ep->chan_ev[c]);
		ep->chan_fd[c] = ep->chan_ev[c] = -1;
	}
	if (ep->pe != NULL)
		(void)doca_pe_destroy(ep->pe);
	ep->pe = NULL;
}

void cc_flush_sends(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer)
{
	uint64_t until = cc_now_ns() + CC_STOP_WAIT_NS;

	while (cc_now_ns() < until) {
		uint64_t left = peer != NULL ? peer->in_flight : ep->send_in_flight;

		if (left == 0 || (peer != NULL && peer->state != CC_PEER_UP))
			return;
		cc_drive(ep);
		usleep(50);
	}
	FERRY_WARN("comm channel endpoint %p: sends still in flight after %llu ms; they are dropped", (void *)ep,
		   (unsigned long long)(CC_STOP_WAIT_NS / 1000000));
}

/* ---- callbacks ---- */

static struct doca_comm_channel_ep_t *cc_ep_of_ctx(struct doca_ctx *ctx)
{
	union doca_data ud = {0};

	(void)doca_ctx_get_user_data(ctx, &ud);
	return ud.ptr;
}

static struct doca_comm_channel_ep_t *cc_ep_of_conn(struct doca_comch_connection *conn)
{
	struct doca_comch_server *server = doca_comch_server_get_server_ctx(conn);

	if (server != NULL)
		return cc_ep_of_ctx(doca_comch_server_as_ctx(server));
	return cc_ep_of_ctx(doca_comch_client_as_ctx(doca_comch_client_get_client_ctx(conn)));
}

static void cc_on_msg(struct doca_comch_event_msg_recv *event, uint8_t *buf, uint32_t len,
		      struct doca_comch_connection *conn)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_of_conn(conn);
	struct doca_comm_channel_addr_t *peer = doca_comch_connection_get_user_data(conn).ptr;
	uint64_t nth;

	(void)event;
	if (peer == NULL) /* a connection we could not give a handle (no memory): its words go nowhere */
		return;
	/*
	 * The wire takes the device's largest message, this endpoint promises the
	 * program no more than its own max: queued, a larger one could never be
	 * taken by a recvfrom sized to it and would hold up every message behind it.
	 */
	if (len > ep->max_msg_size) {
		if (ferry_log_sampled(&ep->oversized, &nth))
			(void)FERRY_RULE_IN("doca_comm_channel_ep_recvfrom", DOCA_ERROR_TOO_BIG,
					    "peer %p sent a message of %u bytes, above the endpoint's max message size "
					    "%u; it is dropped (%llu so far)",
					    (void *)peer, len, ep->max_msg_size, (unsigned long long)nth);
		return;
	}
	cc_rx_push(ep, peer, buf, len, false);
}

static void cc_on_send_done(struct doca_comch_task_send *task, union doca_data task_user_data,
			    union doca_data ctx_user_data)
{
	struct doca_comm_channel_ep_t *ep = ctx_user_data.ptr;

	doca_task_free(doca_comch_task_send_as_task(task));
	cc_peer_send_done(ep, task_user_data.ptr);
}

static void cc_on_connect(struct doca_comch_event_connection_status_changed *event, struct doca_comch_connection *conn,
			  uint8_t ok)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_of_conn(conn);
	struct doca_comm_channel_addr_t *peer;

	(void)event;
	if (!ok)
		return;
	peer = cc_peer_new(ep);
	if (peer == NULL) {
		FERRY_ERR("comm channel server %p: no memory for a new client's handle; its messages are dropped",
			  (void *)ep);
		return;
	}
	peer->conn = conn;
	peer->state = CC_PEER_UP;
	(void)doca_comch_connection_set_user_data(conn, (union doca_data){.ptr = peer});
	cc_chan_wake(ep, CC_CHAN_SERVICE);
}

static void cc_on_disconnect(struct doca_comch_event_connection_status_changed *event,
			     struct doca_comch_connection *conn, uint8_t ok)
{
	struct doca_comm_channel_ep_t *ep = cc_ep_of_conn(conn);
	struct doca_comm_channel_addr_t *peer = doca_comch_connection_get_user_data(conn).ptr;

	(void)event;
	(void)ok;
	if (peer == NULL)
		return;
	peer->conn = NULL;
	peer->state = CC_PEER_GONE;
	cc_rx_push(ep, peer, NULL, 0, true);
	cc_chan_wake(ep, CC_CHAN_SEND);
	cc_chan_wake(ep, CC_CHAN_SERVICE);
}

/* Retry while nobody listens (Comch gave up waiting) or the handshake was not answered in time. */
static bool cc_client_should_retry(struct doca_comm_channel_ep_t *ep, doca_error_t why)
{
	return !ep->blocking && (why == DOCA_ERROR_NOT_FOUND || why == DOCA_ERROR_TIME_OUT);
}

static void cc_on_client_state(const union doca_data user_data, struct doca_ctx *ctx, enum doca_ctx_states prev,
			       enum doca_ctx_states next)
{
	struct doca_comm_channel_ep_t *ep = user_data.ptr;
	struct doca_comm_channel_addr_t *peer = ep->peers;

	(void)prev;
	if (ep->stopping || peer == NULL)
		return;
	if (next == DOCA_CTX_STATE_RUNNING) {
		if (doca_comch_client_get_connection(ep->client, &peer->conn) != DOCA_SUCCESS)
			return;
		(void)doca_comch_connection_set_user_data(peer->conn, (union doca_data){.ptr = peer});
		peer->state = CC_PEER_UP;
		cc_chan_wake(ep, CC_CHAN_SEND);
		return;
	}
	if (next != DOCA_CTX_STATE_IDLE)
		return;
	peer->conn = NULL;
	if (peer->state == CC_PEER_CONNECTING && cc_client_should_retry(ep, ctx->fail_status)) {
		peer->retry = true;
		return;
	}
	peer->state = peer->state == CC_PEER_CONNECTING ? CC_PEER_ABORTED : CC_PEER_GONE;
	cc_chan_wake(ep, CC_CHAN_SEND);
	cc_chan_wake(ep, CC_CHAN_RECV);
}

/* ---- the Comch objects ---- */

/* Messages of the device's largest size on the wire (both ends agree by construction); ours are checked above. */
static doca_error_t cc_comch_sizes(struct doca_comm_channel_ep_t *ep, uint32_t *msg, uint32_t *rxq)
{
	doca_error_t err = doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(ep->dev), msg);

	*rxq = ep->recv_queue_size < CC_COMCH_RX_BATCH ? ep->recv_queue_size : CC_COMCH_RX_BATCH;
	return err;
}

static doca_error_t cc_ctx_setup(struct doca_comm_channel_ep_t *ep, struct doca_ctx *ctx)
{
	doca_error_t err = doca_ctx_set_user_data(ctx, (union doca_data){.ptr = ep});

	if (err == DOCA_SUCCESS)
		err = doca_pe_connect_ctx(ep->pe, ctx);
	return err;
}

doca_error_t cc_server_open(struct doca_comm_channel_ep_t *ep, const char *name)
{
	struct doca_comch_server *server = NULL;
	uint32_t msg = 0, rxq = 0;
	doca_error_t err = doca_comch_server_create(ep->dev, ep->rep, name, &server);

	if (err != DOCA_SUCCESS)
		return err;
	err = cc_comch_sizes(ep, &msg, &rxq);
	if (err == DOCA_SUCCESS)
		err = doca_comch_server_set_max_msg_size(server, msg);
	if (err == DOCA_SUCCESS)
		err = doca_comch_server_set_recv_queue_size(server, rxq);
	if (err == DOCA_SUCCESS)
		err = doca_comch_server_task_send_set_conf(server, cc_on_send_done, cc_on_send_done,
							   ep->send_queue_size);
	if (err == DOCA_SUCCESS)
		err = doca_comch_server_event_msg_recv_register(server, cc_on_msg);
	if (err == DOCA_SUCCESS)
		err = doca_comch_server_event_connection_status_changed_register(server, cc_on_connect,
										 cc_on_disconnect);
	if (err == DOCA_SUCCESS)
		err = cc_ctx_setup(ep, doca_comch_server_as_ctx(server));
	if (err == DOCA_SUCCESS)
		err = doca_ctx_start(doca_comch_server_as_ctx(server));
	if (err != DOCA_SUCCESS) {
		(void)doca_comch_server_destroy(server);
		return err;
	}
	ep->server = server;
	return DOCA_SUCCESS;
}

doca_error_t cc_client_open(struct doca_comm_channel_ep_t *ep, const char *name, struct doca_comm_channel_addr_t *peer)
{
	struct doca_comch_client *client = NULL;
	struct doca_ctx *ctx;
	uint32_t msg = 0, rxq = 0;
	doca_error_t err = doca_comch_client_create(ep->dev, name, &client);

	if (err != DOCA_SUCCESS)
		return err;
	ctx = doca_comch_client_as_ctx(client);
	err = cc_comch_sizes(ep, &msg, &rxq);
	if (err == DOCA_SUCCESS)
		err = doca_comch_client_set_max_msg_size(client, msg);
	if (err == DOCA_SUCCESS)
		err = doca_comch_client_set_recv_queue_size(client, rxq);
	if (err == DOCA_SUCCESS)
		err = doca_comch_client_task_send_set_conf(client, cc_on_send_done, cc_on_send_done,
							   ep->send_queue_size);
	if (err == DOCA_SUCCESS)
		err = doca_comch_client_event_msg_recv_register(client, cc_on_msg);
	if (err == DOCA_SUCCESS)
		err = doca_ctx_set_state_changed_cb(ctx, cc_on_client_state);
	if (err == DOCA_SUCCESS)
		err = cc_ctx_setup(ep, ctx);
	if (err != DOCA_SUCCESS) {
		(void)doca_comch_client_destroy(client);
		return err;
	}
	ep->client = client;
	peer->state = CC_PEER_CONNECTING;
	err = doca_ctx_start(ctx);
	if (err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS)
		return DOCA_SUCCESS;
	ep->client = NULL;
	(void)doca_comch_client_destroy(client);
	return err;
}

/* Stop a Comch context and progress it to IDLE (its sends are flushed through our callbacks). */
static void cc_ctx_stop_idle(struct doca_comm_channel_ep_t *ep, struct doca_ctx *ctx)
{
	enum doca_ctx_states state = DOCA_CTX_STATE_IDLE;
	uint64_t until = cc_now_ns() + CC_STOP_WAIT_NS;

	(void)doca_ctx_stop(ctx);
	while (doca_ctx_get_state(ctx, &state) == DOCA_SUCCESS && state != DOCA_CTX_STATE_IDLE && cc_now_ns() < until)
		(void)doca_pe_progress(ep->pe);
	if (state != DOCA_CTX_STATE_IDLE)
		FERRY_ERR("comm channel endpoint %p: its Comch context did not stop in time; it is leaked", (void *)ep);
}

void cc_comch_close(struct doca_comm_channel_ep_t *ep)
{
	ep->stopping = true;
	if (ep->server != NULL) {
		cc_ctx_stop_idle(ep, doca_comch_server_as_ctx(ep->server));
		if (doca_comch_server_destroy(ep->server) == DOCA_SUCCESS)
			ep->server = NULL;
	}
	if (ep->client != NULL) {
		cc_ctx_stop_idle(ep, doca_comch_client_as_ctx(ep->client));
		if (doca_comch_client_destroy(ep->client) == DOCA_SUCCESS)
			ep->client = NULL;
	}
	ep->server = NULL;
	ep->client = NULL;
	ep->stopping = false;
}

static void cc_client_restart(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer)
{
	doca_error_t err;

	peer->retry = false;
	err = doca_ctx_start(doca_comch_client_as_ctx(ep->client));
	if (err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS)
		return;
	FERRY_ERR("comm channel client %p: connecting again failed (%s)", (void *)ep, doca_error_get_name(err));
	peer->state = CC_PEER_ABORTED;
	cc_chan_wake(ep, CC_CHAN_SEND);
	cc_chan_wake(ep, CC_CHAN_RECV);
}

/* The Comch context of the endpoint, if any. */
static struct doca_ctx *cc_comch_ctx(struct doca_comm_channel_ep_t *ep)
{
	if (ep->server != NULL)
		return doca_comch_server_as_ctx(ep->server);
	return ep->client != NULL ? doca_comch_client_as_ctx(ep->client) : NULL;
}

void cc_drive(struct doca_comm_channel_ep_t *ep)
{
	struct doca_ctx *ctx = cc_comch_ctx(ep);

	if (ep->pe == NULL)
		return;
	for (int i = 0; i < CC_PROGRESS_ROUNDS; i++) {
		if (ctx != NULL)
			ctx->events_held = ep->rx_count >= ep->recv_queue_size;
		if (doca_pe_progress(ep->pe) == 0)
			break;
	}
	if (ep->client != NULL && ep->peers != NULL && ep->peers->retry)
		cc_client_restart(ep, ep->peers);
}
