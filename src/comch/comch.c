/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch.c - what the Comch server and client share: caps, connections, the send
 * task (pool, slab, backlog, completion) and the endpoint's buffers. The design
 * notes are in comch_priv.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <doca_dev.h>

#include "comch/comch_priv.h"
#include "common/ferry_env.h"
#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/fault.h"
#include "core/ferry_dev.h"

FERRY_LOG_MODULE("comch");

#define COMCH_CACHE_LINE 64u

/* ---- caps ---- */

doca_error_t comch_cap_check(const char *call, const struct doca_devinfo *devinfo, const void *out)
{
	if (devinfo == NULL || out == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "devinfo and output must not be NULL");
	if (!ferry_devinfo_is_valid(devinfo))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "devinfo %p is not a device of this machine",
				     (const void *)devinfo);
	return DOCA_SUCCESS;
}

doca_error_t comch_cap_u32(const char *call, const struct doca_devinfo *devinfo, uint32_t *out, uint32_t value)
{
	doca_error_t err = comch_cap_check(call, devinfo, out);

	if (err == DOCA_SUCCESS)
		*out = value;
	return err;
}

doca_error_t doca_comch_cap_get_max_name_len(const struct doca_devinfo *devinfo, uint32_t *max_name_len)
{
	return comch_cap_u32(__func__, devinfo, max_name_len, COMCH_CAP_MAX_NAME_LEN);
}

doca_error_t doca_comch_cap_get_max_msg_size(const struct doca_devinfo *devinfo, uint32_t *size)
{
	return comch_cap_u32(__func__, devinfo, size, COMCH_CAP_MAX_MSG_SIZE);
}

doca_error_t doca_comch_cap_get_max_recv_queue_size(const struct doca_devinfo *devinfo, uint32_t *size)
{
	return comch_cap_u32(__func__, devinfo, size, COMCH_CAP_MAX_RECV_QUEUE);
}

doca_error_t doca_comch_cap_get_max_clients(const struct doca_devinfo *devinfo, uint32_t *num_clients)
{
	return comch_cap_u32(__func__, devinfo, num_clients, COMCH_CAP_MAX_CLIENTS);
}

doca_error_t doca_comch_cap_get_max_send_tasks(const struct doca_devinfo *devinfo, uint32_t *max_send_tasks)
{
	return comch_cap_u32(__func__, devinfo, max_send_tasks, COMCH_CAP_MAX_SEND_TASKS);
}

static doca_error_t cap_side(const char *call, const struct doca_devinfo *devinfo, enum ferry_dev_side side)
{
	int dummy = 0;
	doca_error_t err = comch_cap_check(call, devinfo, &dummy);

	if (err != DOCA_SUCCESS)
		return err;
	if (ferry_devinfo_side(devinfo) != side) {
		/* A probe, not a broken rule: programs ask every device. */
		FERRY_DBG("%s: device %s is on the %s side", call, ferry_devinfo_name(devinfo),
			  side == FERRY_SIDE_DPU ? "host" : "DPU");
		return DOCA_ERROR_NOT_SUPPORTED;
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_cap_server_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_side(__func__, devinfo, FERRY_SIDE_DPU);
}

doca_error_t doca_comch_cap_client_is_supported(const struct doca_devinfo *devinfo)
{
	return cap_side(__func__, devinfo, FERRY_SIDE_HOST);
}

/* ---- connections ---- */

static bool conn_valid(const struct doca_comch_connection *conn)
{
	return conn != NULL && conn->magic == COMCH_CONN_MAGIC;
}

doca_error_t doca_comch_connection_set_user_data(struct doca_comch_connection *connection, union doca_data user_data)
{
	if (!conn_valid(connection))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "connection %p is NULL or not a connection",
				  (void *)connection);
	connection->user_data = user_data;
	return DOCA_SUCCESS;
}

union doca_data doca_comch_connection_get_user_data(const struct doca_comch_connection *connection)
{
	union doca_data none = {.u64 = 0};

	if (!conn_valid(connection)) {
		FERRY_ERR("%s: connection %p is NULL or not a connection", __func__, (const void *)connection);
		return none;
	}
	return connection->user_data;
}

struct doca_comch_server *doca_comch_server_get_server_ctx(const struct doca_comch_connection *connection)
{
	if (!conn_valid(connection) || !connection->ep->is_server)
		return NULL;
	return ferry_container_of(connection->ep, struct doca_comch_server, ep);
}

struct doca_comch_client *doca_comch_client_get_client_ctx(const struct doca_comch_connection *connection)
{
	if (!conn_valid(connection) || connection->ep->is_server)
		return NULL;
	return (struct doca_comch_client *)connection->ep;
}

/* ---- endpoint ---- */

static void send_task_complete(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data,
			       bool success)
{
	struct doca_comch_task_send *send = ferry_container_of(task, struct doca_comch_task_send, base);
	doca_comch_task_send_completion_cb_t cb = success ? send->ep->send_ok_cb : send->ep->send_err_cb;

	cb(send, task_user_data, ctx_user_data);
}

void comch_ep_init(struct comch_ep *ep, const struct ferry_ctx_ops *ops, bool is_server, struct doca_dev *dev)
{
	ep->is_server = is_server;
	ep->kind = is_server ? "comch server" : "comch client";
	ferry_ctx_init(&ep->ctx, ops, is_server ? "comch_server" : "comch_client", dev);
	ferry_ctx_add_pool(&ep->ctx, &ep->send_pool, "comch send", sizeof(struct doca_comch_task_send),
			   send_task_complete);
	ep->max_msg_size = COMCH_CAP_MAX_MSG_SIZE;
	ep->recv_queue_size = COMCH_DEFAULT_RECV_QUEUE;
	ep->recv_event.ep = ep;
	ep->conn_event.ep = ep;
	ep->consumer_event.ep = ep;
}

doca_error_t comch_ep_check_name(const char *call, const char *name)
{
	size_t len;

	if (name == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "name is NULL");
	len = strnlen(name, COMCH_CAP_MAX_NAME_LEN);
	if (len == 0 || len >= COMCH_CAP_MAX_NAME_LEN)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "name must be 1..%u bytes before its NUL (doca_comch_cap_get_max_name_len)",
				     COMCH_CAP_MAX_NAME_LEN - 1);
	return DOCA_SUCCESS;
}

#define COMCH_ENV_MS_MAX (24ull * 3600ull * 1000ull) /* a day: far from overflowing ns */

uint64_t comch_env_ms_as_ns(const char *var, uint32_t default_ms)
{
	return ferry_env_u64(var, 1, COMCH_ENV_MS_MAX, default_ms) * 1000000ull;
}

doca_error_t comch_ep_rendezvous(struct comch_ep *ep, struct ferry_link_addr *addr, uint32_t machine,
				 const char *host_function, const char **domain_out)
{
	const char *why = NULL;
	const char *domain = ferry_link_domain(&why);

	if (domain == NULL)
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_INVALID_VALUE, "%s '%s': %s", ep->kind, ep->name,
				     why);
	doca_error_t err = ferry_link_comch_addr(addr, domain, machine, host_function, ep->name);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN(
			"doca_ctx_start", err, "%s '%s': no rendezvous address in domain '%s' (%s)", ep->kind, ep->name,
			domain, err == DOCA_ERROR_INVALID_VALUE ? "its path is too long" : "its directory is unusable");
	if (domain_out != NULL)
		*domain_out = domain;
	return DOCA_SUCCESS;
}

doca_error_t comch_ep_alloc_buffers(struct comch_ep *ep)
{
	size_t frame = FERRY_FRAME_HDR_LEN + (size_t)ep->max_msg_size;

	ep->slot_size = (frame + COMCH_CACHE_LINE - 1) & ~(size_t)(COMCH_CACHE_LINE - 1);
	/* The receive buffer also takes handshake frames, whatever the message size. */
	ep->rx_cap = frame > FERRY_FRAME_REFUSE_MAX ? frame : FERRY_FRAME_REFUSE_MAX;
	if (ep->rx_cap < FERRY_FRAME_HELLO_MAX)
		ep->rx_cap = FERRY_FRAME_HELLO_MAX;
	if (ep->rx_cap < FERRY_FRAME_FAST_MAX)
		ep->rx_cap = FERRY_FRAME_FAST_MAX; /* and the fast path's frames */
	ep->rx_stride = (ep->rx_cap + COMCH_CACHE_LINE - 1) & ~(size_t)(COMCH_CACHE_LINE - 1);
	ep->rx_batch = ep->recv_queue_size < COMCH_RX_BATCH_MAX ? ep->recv_queue_size : COMCH_RX_BATCH_MAX;
	ep->rx = ferry_aligned_alloc(COMCH_CACHE_LINE, ep->rx_stride * ep->rx_batch);
	if (ep->rx == NULL)
		goto no_memory;
	ep->slab = NULL;
	if (ep->send_pool.capacity != 0) {
		ep->slab = ferry_aligned_alloc(COMCH_CACHE_LINE, ep->slot_size * ep->send_pool.capacity);
		if (ep->slab == NULL)
			goto no_memory;
	}
	ep->done.head = ep->done.tail = NULL;
	ep->num_backlogged = 0;
	return DOCA_SUCCESS;

no_memory:
	comch_ep_free_buffers(ep);
	return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_NO_MEMORY, "%s '%s': no memory for message buffers", ep->kind,
			     ep->name);
}

void comch_ep_free_buffers(struct comch_ep *ep)
{
	free(ep->rx);
	free(ep->slab);
	ep->rx = NULL;
	ep->slab = NULL;
}

doca_error_t comch_ep_set_max_msg_size(struct comch_ep *ep, const char *call, uint32_t size)
{
	doca_error_t err = ferry_ctx_check_idle(&ep->ctx, call);

	if (err != DOCA_SUCCESS)
		return err;
	if (size == 0 || size > COMCH_CAP_MAX_MSG_SIZE)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "%s '%s': max message size %u is outside 1..%u (doca_comch_cap_get_max_msg_size)",
				     ep->kind, ep->name, size, COMCH_CAP_MAX_MSG_SIZE);
	ep->max_msg_size = size;
	return DOCA_SUCCESS;
}

doca_error_t comch_ep_set_recv_queue_size(struct comch_ep *ep, const char *call, uint32_t size)
{
	doca_error_t err = ferry_ctx_check_idle(&ep->ctx, call);

	if (err != DOCA_SUCCESS)
		return err;
	if (size == 0 || size > COMCH_CAP_MAX_RECV_QUEUE)
		return FERRY_RULE_IN(
			call, DOCA_ERROR_INVALID_VALUE,
			"%s '%s': receive queue size %u is outside 1..%u (doca_comch_cap_get_max_recv_queue_size)",
			ep->kind, ep->name, size, COMCH_CAP_MAX_RECV_QUEUE);
	ep->recv_queue_size = size;
	return DOCA_SUCCESS;
}

doca_error_t comch_ep_register_msg_recv(struct comch_ep *ep, const char *call, doca_comch_event_msg_recv_cb_t cb)
{
	doca_error_t err;

	if (cb == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s '%s': callback must not be NULL", ep->kind,
				     ep->name);
	err = ferry_ctx_check_idle(&ep->ctx, call);
	if (err == DOCA_SUCCESS)
		ep->recv_cb = cb;
	return err;
}

doca_error_t comch_ep_register_consumer(struct comch_ep *ep, const char *call, doca_comch_event_consumer_cb_t new_cb,
					doca_comch_event_consumer_cb_t expired_cb)
{
	doca_error_t err;

	if (new_cb == NULL || expired_cb == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s '%s': both callbacks must not be NULL",
				     ep->kind, ep->name);
	err = ferry_ctx_check_idle(&ep->ctx, call);
	if (err == DOCA_SUCCESS) {
		ep->new_consumer_cb = new_cb;
		ep->expired_consumer_cb = expired_cb;
	}
	return err;
}

doca_error_t comch_ep_task_send_set_conf(struct comch_ep *ep, const char *call, doca_comch_task_send_completion_cb_t ok,
					 doca_comch_task_send_completion_cb_t err_cb, uint32_t num)
{
	doca_error_t err;

	if (ok == NULL || err_cb == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s '%s': both completion callbacks are required",
				     ep->kind, ep->name);
	if (num > COMCH_CAP_MAX_SEND_TASKS)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "%s '%s': %u send tasks exceed the cap %u (doca_comch_cap_get_max_send_tasks)",
				     ep->kind, ep->name, num, COMCH_CAP_MAX_SEND_TASKS);
	err = ferry_task_pool_configure(&ep->send_pool, num, call);
	if (err != DOCA_SUCCESS)
		return err;
	ep->send_ok_cb = ok;
	ep->send_err_cb = err_cb;
	return DOCA_SUCCESS;
}

doca_error_t comch_ep_task_send_alloc_init(struct comch_ep *ep, const char *call, struct doca_comch_connection *conn,
					   const void *msg, uint32_t len, struct doca_comch_task_send **task)
{
	struct doca_task *base = NULL;
	struct doca_comch_task_send *send;
	size_t index;
	doca_error_t err;

	if (task == NULL || (msg == NULL && len != 0))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "%s '%s': msg (when len > 0) and task must not be NULL", ep->kind, ep->name);
	if (!conn_valid(conn) || conn->ep != ep)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "%s '%s': connection %p does not belong to this context", ep->kind, ep->name,
				     (void *)conn);
	if (len > ep->max_msg_size)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "%s '%s': message of %u bytes exceeds max message size %u", ep->kind, ep->name,
				     len, ep->max_msg_size);
	err = ferry_task_pool_get(&ep->send_pool, call, &base);
	if (err != DOCA_SUCCESS)
		return err;
	send = ferry_container_of(base, struct doca_comch_task_send, base);
	index = (size_t)((char *)base - (char *)ep->send_pool.mem) / ep->send_pool.elem_size;
	send->ep = ep;
	send->conn_slot = conn->slot;
	send->conn_generation = conn->generation;
	send->frame = ep->slab + index * ep->slot_size;
	send->frame_len = FERRY_FRAME_HDR_LEN + len;
	ferry_frame_put_header(send->frame, FERRY_FRAME_MSG, len);
	if (len != 0)
		memcpy(send->frame + FERRY_FRAME_HDR_LEN, msg, len);
	*task = send;
	return DOCA_SUCCESS;
}

struct doca_task *doca_comch_task_send_as_task(struct doca_comch_task_send *task)
{
	return task == NULL ? NULL : &task->base;
}

/* ---- send path ---- */

void comch_ep_finish_task(struct comch_ep *ep, struct doca_comch_task_send *task, doca_error_t status)
{
	task->base.status = status;
	ferry_task_list_push(&ep->done, &task->base);
}

void comch_conn_watch_room(struct doca_comch_connection *conn)
{
	bool want = conn->backlog.head != NULL || conn->hub_waiting;

	if (want == conn->watching_out || conn->fd < 0)
		return;
	conn->watching_out = want;
	conn->ep->watch_out(conn->ep, conn, want);
}

void comch_conn_set_hub_waiting(struct doca_comch_connection *conn, bool waiting)
{
	if (waiting == conn->hub_waiting)
		return;
	conn->hub_waiting = waiting;
	if (waiting)
		conn->ep->num_hub_waiting++;
	else
		conn->ep->num_hub_waiting--;
	comch_conn_watch_room(conn);
}

void comch_conn_mark_broken(struct doca_comch_connection *conn)
{
	if (!conn->broken) {
		conn->broken = true;
		conn->ep->num_broken++;
	}
}

/*
 * FERRY_FAULT's action=drop: the connection ends here as if the peer's
 * socket broke (the peer sees its end of the stream), so both sides take
 * their usual path for a lost peer.
 */
static bool conn_fault_drop(struct doca_comch_connection *conn)
{
	if (++conn->fault_sends != conn->fault_drop_at)
		return false;
	FERRY_WARN("context '%s': connection %u dropped at send %llu (FERRY_FAULT)", conn->ep->ctx.name, conn->id,
		   (unsigned long long)conn->fault_sends);
	if (conn->fd >= 0)
		(void)shutdown(conn->fd, SHUT_RDWR);
	comch_conn_mark_broken(conn);
	return true;
}

void comch_conn_fault_arm(struct doca_comch_connection *conn)
{
	conn->fault_sends = 0;
	conn->fault_drop_at = ferry_fault_conn_drop_at(conn->ep->ctx.name);
}

void comch_conn_send_task(struct comch_ep *ep, struct doca_comch_connection *conn, struct doca_comch_task_send *task)
{
	doca_error_t err;

	if (__builtin_expect(conn->fault_drop_at != 0, 0) && conn_fault_drop(conn)) {
		comch_ep_finish_task(ep, task, DOCA_ERROR_CONNECTION_RESET);
		return;
	}
	if (conn->backlog.head != NULL) {
		ferry_task_list_push(&conn->backlog, &task->base); /* keep the order */
		return;
	}
	err = ferry_link_send(conn->fd, task->frame, task->frame_len);
	if (err == DOCA_SUCCESS) {
		comch_ep_finish_task(ep, task, DOCA_SUCCESS);
	} else if (err == DOCA_ERROR_AGAIN) {
		ferry_task_list_push(&conn->backlog, &task->base);
		ep->num_backlogged++;
		comch_conn_watch_room(conn);
	} else {
		comch_conn_mark_broken(conn);
		comch_ep_finish_task(ep, task, DOCA_ERROR_CONNECTION_RESET);
	}
}

bool comch_conn_flush_backlog(struct comch_ep *ep, struct doca_comch_connection *conn)
{
	while (conn->backlog.head != NULL) {
		struct doca_comch_task_send *task = ferry_container_of(conn->backlog.head, struct doca_comch_task_send,
								       base);
		doca_error_t err = ferry_link_send(conn->fd, task->frame, task->frame_len);

		if (err == DOCA_ERROR_AGAIN)
			return true;
		if (err != DOCA_SUCCESS) {
			comch_conn_mark_broken(conn);
			comch_conn_fail_backlog(ep, conn, DOCA_ERROR_CONNECTION_RESET);
			return false;
		}
		(void)ferry_task_list_pop(&conn->backlog);
		comch_ep_finish_task(ep, task, DOCA_SUCCESS);
	}
	ep->num_backlogged--;
	comch_conn_watch_room(conn);
	return true;
}

void comch_conn_fail_backlog(struct comch_ep *ep, struct doca_comch_connection *conn, doca_error_t status)
{
	struct doca_task *task;

	if (conn->backlog.head == NULL)
		return;
	while ((task = ferry_task_list_pop(&conn->backlog)) != NULL)
		comch_ep_finish_task(ep, ferry_container_of(task, struct doca_comch_task_send, base), status);
	ep->num_backlogged--;
	comch_conn_watch_room(conn);
}

uint32_t comch_list_complete(struct ferry_task_list *list)
{
	/* Take the list first: callbacks may submit, which appends to a fresh list. */
	struct ferry_task_list batch = *list;
	struct doca_task *task;
	uint32_t n = 0;

	list->head = list->tail = NULL;
	while ((task = ferry_task_list_pop(&batch)) != NULL) {
		ferry_task_complete(task, task->status);
		n++;
	}
	return n;
}

doca_error_t comch_conn_read(struct comch_ep *ep, struct doca_comch_connection *conn, comch_datagram_fn on_datagram,
			     uint32_t *events)
{
	uint32_t budget = ep->recv_queue_size;

	while (budget > 0) {
		uint32_t max = budget < ep->rx_batch ? budget : ep->rx_batch;
		uint32_t got = 0;
		doca_error_t err = ferry_link_recv_batch(conn->fd, ep->rx, ep->rx_stride, ep->rx_cap, max, ep->rx_lens,
							 &got);

		if (err == DOCA_ERROR_AGAIN)
			break;
		if (err != DOCA_SUCCESS)
			return err;
		for (uint32_t i = 0; i < got; i++) {
			bool stop = false;

			if (ep->rx_lens[i] == 0)
				return DOCA_ERROR_CONNECTION_RESET; /* EOF or an empty datagram: the end */
			*events += on_datagram(ep, conn, ep->rx + (size_t)i * ep->rx_stride, ep->rx_lens[i], &stop);
			if (stop)
				return DOCA_SUCCESS; /* conn may be gone: touch nothing */
		}
		if (got < max)
			break; /* drained */
		budget -= got;
	}
	return DOCA_SUCCESS;
}

void comch_timer_set(int fd, uint64_t *armed_at, uint64_t at)
{
	struct itimerspec when = {
		.it_value = {.tv_sec = (time_t)(at / 1000000000ull), .tv_nsec = (long)(at % 1000000000ull)}};
	uint64_t fired;

	if (at == *armed_at || fd < 0)
		return;
	(void)read(fd, &fired, sizeof(fired)); /* a past expiry no longer wakes anyone */
	if (timerfd_settime(fd, TFD_TIMER_ABSTIME, &when, NULL) != 0)
		FERRY_WARN("comch: cannot arm a timer: %s", strerror(errno));
	*armed_at = at;
}

void comch_conn_say_bye(struct doca_comch_connection *conn)
{
	uint8_t bye[FERRY_FRAME_HDR_LEN];

	if (conn->fd < 0)
		return;
	ferry_frame_put_header(bye, FERRY_FRAME_BYE, 0);
	(void)ferry_link_send(conn->fd, bye, sizeof(bye));
}
