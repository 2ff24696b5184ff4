/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm.c - DOCA RDMA's connection manager over UCX's client-server API.
 *
 * Server: doca_rdma_start_listen_to_port -> ucp_listener_create; a client's
 * request takes a connection slot (REQUESTED) and is reported by the request
 * callback; doca_rdma_connection_accept makes the endpoint from the request
 * (CONNECTING), doca_rdma_connection_reject hands it back to UCX.
 * Client: doca_rdma_connect_to_addr makes an endpoint to the address
 * (CONNECTING). Either side, on its endpoint, sends a hello (struct
 * rdma_hello: the instance token, connection id, permissions and identity a
 * connection descriptor would carry) with a reply endpoint, so the receiver
 * knows the connection it belongs to; a connection that got the peer's hello
 * is CONNECTED and reported by the established callback. A UCX error before
 * that is the failure callback. doca_rdma_connection_disconnect sends a bye
 * and closes the endpoint gracefully; the peer reports the disconnection
 * callback on the bye, or on the endpoint's error when a peer vanished.
 *
 * Events are bits of conn->events, set under the context's lock (often
 * inside UCX callbacks) and delivered by rdma_cm_deliver from progress,
 * without the lock.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "link/ferry_link.h"
#include "rdma/rdma_priv.h"

FERRY_LOG_MODULE("rdma");

struct doca_rdma_addr {
	enum doca_rdma_addr_type type;
	uint16_t port;
	char text[INET6_ADDRSTRLEN + 1];
	struct sockaddr_storage sa;
	socklen_t sa_len;
};

/*
 * Hellos and byes dropped, clients refused, one count per rule: any host
 * that reaches the listener may repeat them at will, so the lines are sampled
 * (1st, 2nd, 4th, ...).
 */
static _Atomic uint64_t dropped_no_reply, dropped_no_conn, dropped_hellos, refused_clients;

/* ---- addresses ---- */

static doca_error_t addr_fill(struct doca_rdma_addr *a, enum doca_rdma_addr_type type, const char *text, uint16_t port)
{
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->port = port;
	if (strlen(text) >= sizeof(a->text))
		return DOCA_ERROR_INVALID_VALUE;
	strcpy(a->text, text);
	if (type == DOCA_RDMA_ADDR_TYPE_IPv4) {
		struct sockaddr_in *in = (struct sockaddr_in *)&a->sa;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		if (inet_pton(AF_INET, text, &in->sin_addr) != 1)
			return DOCA_ERROR_INVALID_VALUE;
		a->sa_len = sizeof(*in);
	} else {
		/* IPv6, and a GID, which is written as an IPv6 address. */
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a->sa;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, text, &in6->sin6_addr) != 1)
			return DOCA_ERROR_INVALID_VALUE;
		a->sa_len = sizeof(*in6);
	}
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_addr_create(enum doca_rdma_addr_type addr_type, const char *address, uint16_t port,
				   struct doca_rdma_addr **addr)
{
	struct doca_rdma_addr *a;

	FERRY_ARG_NOT_NULL(address);
	FERRY_ARG_NOT_NULL(addr);
	if (addr_type != DOCA_RDMA_ADDR_TYPE_IPv4 && addr_type != DOCA_RDMA_ADDR_TYPE_IPv6 &&
	    addr_type != DOCA_RDMA_ADDR_TYPE_GID)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "unknown address type %d", (int)addr_type);
	a = ferry_malloc(sizeof(*a));
	if (a == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for an address");
	if (addr_fill(a, addr_type, address, port) != DOCA_SUCCESS) {
		free(a);
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "'%s' is not an %s address", address,
				  addr_type == DOCA_RDMA_ADDR_TYPE_IPv4 ? "IPv4" : "IPv6 (or GID)");
	}
	*addr = a;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_addr_destroy(struct doca_rdma_addr *addr)
{
	FERRY_ARG_NOT_NULL(addr);
	free(addr);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_addr_get_params(struct doca_rdma_addr *addr, enum doca_rdma_addr_type *addr_type,
				       const char **address, uint16_t *port)
{
	FERRY_ARG_NOT_NULL(addr);
	FERRY_ARG_NOT_NULL(addr_type);
	FERRY_ARG_NOT_NULL(address);
	FERRY_ARG_NOT_NULL(port);
	*addr_type = addr->type;
	*address = addr->text;
	*port = addr->port;
	return DOCA_SUCCESS;
}

/* An address of the connection's peer from a socket address UCX reports. */
static struct doca_rdma_addr *addr_from_sockaddr(const struct sockaddr_storage *ss)
{
	struct doca_rdma_addr *a = ferry_calloc(1, sizeof(*a));

	if (a == NULL)
		return NULL;
	a->sa = *ss;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		a->type = DOCA_RDMA_ADDR_TYPE_IPv4;
		a->port = ntohs(in->sin_port);
		a->sa_len = sizeof(*in);
		inet_ntop(AF_INET, &in->sin_addr, a->text, sizeof(a->text));
	} else {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		a->type = DOCA_RDMA_ADDR_TYPE_IPv6;
		a->port = ntohs(in6->sin6_port);
		a->sa_len = sizeof(*in6);
		inet_ntop(AF_INET6, &in6->sin6_addr, a->text, sizeof(a->text));
	}
	return a;
}

/* ---- hello and bye ---- */

static void cm_sent(void *request, ucs_status_t status, void *user_data)
{
	(void)status;
	(void)user_data;
	ucp_request_free(request);
}

/* Send a hello or a bye on @p conn's endpoint, with a reply endpoint so the peer knows the connection. */
static ucs_status_t cm_send(struct doca_rdma_connection *conn, uint32_t opcode)
{
	struct doca_rdma *rdma = conn->rdma;
	ucp_request_param_t p;
	ucs_status_ptr_t req;

	memset(&conn->cm_hdr, 0, sizeof(conn->cm_hdr));
	conn->cm_hdr.opcode = (uint16_t)opcode;
	if (opcode == RDMA_MSG_HELLO) {
		memset(&conn->hello, 0, sizeof(conn->hello));
		conn->hello.token = rdma->token;
		conn->hello.conn_id = conn->id;
		conn->hello.permissions = rdma->permissions;
		conn->hello.pid = (uint32_t)getpid();
		conn->hello.start_time = rdma->start_time;
		memcpy(conn->hello.boot_id, rdma->boot_id, sizeof(conn->hello.boot_id));
	}
	memset(&p, 0, sizeof(p));
	p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_FLAGS;
	p.cb.send = cm_sent;
	p.flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER;
	req = ucp_am_send_nbx(conn->ep, RDMA_AM_ID, &conn->cm_hdr, sizeof(conn->cm_hdr),
			      opcode == RDMA_MSG_HELLO ? &conn->hello : NULL,
			      opcode == RDMA_MSG_HELLO ? sizeof(conn->hello) : 0, &p);
	return UCS_PTR_IS_ERR(req) ? UCS_PTR_STATUS(req) : UCS_OK;
}

static void raise_event(struct doca_rdma_connection *conn, unsigned int ev)
{
	conn->events |= ev;
	conn->rdma->events_pending = true;
}

void rdma_cm_message(struct doca_rdma *rdma, const struct rdma_msg_hdr *h, const void *data, size_t length,
		     const ucp_am_recv_param_t *param)
{
	struct doca_rdma_connection *conn = NULL;
	struct rdma_hello hello;
	struct doca_task *t;
	uint64_t nth;

	if ((param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP) == 0 ||
	    (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
		if (ferry_log_sampled(&dropped_no_reply, &nth))
			FERRY_ERR("rdma %p: dropped a connection manager message without its reply endpoint (%llu "
				  "dropped so far)",
				  (void *)rdma, (unsigned long long)nth);
		return;
	}
	for (uint32_t i = 0; i < rdma->num_conns && conn == NULL; i++)
		if (rdma->conns[i].cm && rdma->conns[i].ep == param->reply_ep)
			conn = &rdma->conns[i];
	if (conn == NULL) {
		if (ferry_log_sampled(&dropped_no_conn, &nth))
			FERRY_ERR("rdma %p: dropped a connection manager message of no connection of this context "
				  "(%llu dropped so far)",
				  (void *)rdma, (unsigned long long)nth);
		return;
	}
	if (h->opcode == RDMA_MSG_BYE) {
		if (conn->state == RDMA_CONN_CONNECTING)
			rdma->connecting--;
		if (conn->state == RDMA_CONN_CONNECTED || conn->state == RDMA_CONN_CONNECTING) {
			raise_event(conn, conn->state == RDMA_CONN_CONNECTED ? RDMA_EV_DISCONNECT : RDMA_EV_FAILURE);
			conn->state = RDMA_CONN_DISCONNECTED;
			conn->need_close = true; /* progress fails what waits and closes the endpoint */
		}
		return;
	}
	if (length != sizeof(hello) || h->imm != 0 || rdma_msg_key_of(h) != 0) {
		if (ferry_log_sampled(&dropped_hellos, &nth))
			FERRY_ERR("rdma %p: connection %u: dropped a malformed hello (%zu bytes; %llu dropped so far)",
				  (void *)rdma, conn->id, length, (unsigned long long)nth);
		return;
	}
	memcpy(&hello, data, sizeof(hello));
	if (hello.token == 0 || hello.reserved != 0 || conn->state != RDMA_CONN_CONNECTING) {
		if (ferry_log_sampled(&dropped_hellos, &nth))
			FERRY_ERR("rdma %p: connection %u: dropped a hello (token %s, connection %s; %llu dropped so "
				  "far)",
				  (void *)rdma, conn->id, hello.token == 0 ? "0" : "set",
				  conn->state == RDMA_CONN_CONNECTING ? "connecting" : "not connecting",
				  (unsigned long long)nth);
		return;
	}
	conn->peer_token = hello.token;
	conn->peer_conn = hello.conn_id;
	rdma_conn_keys(conn);
	conn->peer_perm = hello.permissions;
	conn->peer_pid = hello.pid;
	rdma_conn_watch_peer(rdma, conn, hello.pid, hello.start_time, hello.boot_id);
	conn->state = RDMA_CONN_CONNECTED;
	rdma->connecting--;
	raise_event(conn, RDMA_EV_ESTABLISHED);
	while ((t = ferry_task_list_pop(&conn->waiting)) != NULL)
		ferry_task_list_push(&rdma->ready, t);
}

/* ---- server ---- */

static void conn_request_cb(ucp_conn_request_h req, void *arg)
{
	struct doca_rdma *rdma = arg;
	struct doca_rdma_connection *conn;
	ucp_conn_request_attr_t attr;
	uint64_t nth;

	conn = rdma->stopping ? NULL : rdma_conn_new(rdma);
	if (conn == NULL) {
		if (!rdma->stopping && ferry_log_sampled(&refused_clients, &nth))
			FERRY_ERR("rdma %p: refused a client: all %u connection(s) are in use "
				  "(doca_rdma_set_max_num_connections; %llu refused so far)",
				  (void *)rdma, rdma->max_conns, (unsigned long long)nth);
		(void)ucp_listener_reject(rdma->listener, req);
		return;
	}
	conn->cm = true;
	conn->state = RDMA_CONN_REQUESTED;
	conn->conn_req = req;
	memset(&attr, 0, sizeof(attr));
	attr.field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ADDR;
	if (ucp_conn_request_query(req, &attr) == UCS_OK)
		conn->addr = addr_from_sockaddr(&attr.client_address);
	raise_event(conn, RDMA_EV_REQUEST);
}

static doca_error_t check_running(struct doca_rdma *rdma, const char *call)
{
	if (rdma->ctx.state != DOCA_CTX_STATE_RUNNING || rdma->worker == NULL || rdma->stopping)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "rdma %p is %s; the connection manager needs RUNNING",
				     (void *)rdma, ferry_ctx_state_name(rdma->ctx.state));
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_start_listen_to_port(struct doca_rdma *rdma, uint16_t port)
{
	const char *call = __func__;
	const char *host = getenv("FERRY_RDMA_LISTEN_ADDR");
	char ident[INET_ADDRSTRLEN];
	struct doca_rdma_addr where;
	ucp_listener_params_t p;
	ucs_status_t st;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(rdma);
	if (host == NULL || *host == '\0') {
		/* The device's network identity: its bound address, or 127.0.0.1 (this machine only). */
		struct ferry_net_identity id;

		err = rdma_net_identity(rdma, call, &id);
		if (err != DOCA_SUCCESS)
			return err;
		host = inet_ntop(AF_INET, &id.ipv4, ident, sizeof(ident));
	}
	if (addr_fill(&where, strchr(host, ':') != NULL ? DOCA_RDMA_ADDR_TYPE_IPv6 : DOCA_RDMA_ADDR_TYPE_IPv4, host,
		      port) != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "FERRY_RDMA_LISTEN_ADDR '%s' is no IP address",
				     host);
	ferry_biased_owner_lock(&rdma->lock);
	err = check_running(rdma, call);
	if (err == DOCA_SUCCESS && rdma->listener != NULL)
		err = FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "rdma %p already listens on port %u", (void *)rdma,
				    rdma->listen_port);
	if (err == DOCA_SUCCESS) {
		memset(&p, 0, sizeof(p));
		p.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
		p.sockaddr.addr = (const struct sockaddr *)&where.sa;
		p.sockaddr.addrlen = where.sa_len;
		p.conn_handler.cb = conn_request_cb;
		p.conn_handler.arg = rdma;
		st = ucp_listener_create(rdma->worker, &p, &rdma->listener);
		if (st != UCS_OK) {
			rdma->listener = NULL;
			err = FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_ABORTED,
					    "rdma %p cannot listen on %s port %u: %s", (void *)rdma, host, port,
					    ucs_status_string(st));
		} else {
			rdma->listen_port = port;
		}
	}
	ferry_biased_owner_unlock(&rdma->lock);
	return err;
}

/*
 * The listener goes (under the lock): the requests it still holds are
 * rejected first, since a request is the listener's and cannot outlive it;
 * an accept of one afterwards is refused as no pending request.
 */
static void listener_close(struct doca_rdma *rdma)
{
	if (rdma->listener == NULL)
		return;
	for (uint32_t i = 0; i < rdma->num_conns; i++) {
		struct doca_rdma_connection *conn = &rdma->conns[i];

		if (conn->state == RDMA_CONN_REQUESTED) {
			(void)ucp_listener_reject(rdma->listener, conn->conn_req);
			conn->conn_req = NULL;
			conn->state = RDMA_CONN_FAILED;
			/* Its request callback ran already: nothing more is said of it. (Else: once it ran.) */
			conn->released = (conn->events & RDMA_EV_REQUEST) == 0;
		}
	}
	ucp_listener_destroy(rdma->listener);
	rdma->listener = NULL;
}

doca_error_t doca_rdma_stop_listen_to_port(struct doca_rdma *rdma, uint16_t port)
{
	doca_error_t err = DOCA_SUCCESS;

	FERRY_ARG_NOT_NULL(rdma);
	ferry_biased_owner_lock(&rdma->lock);
	if (rdma->listener == NULL || rdma->listen_port != port) {
		err = FERRY_RULE(DOCA_ERROR_NOT_FOUND, "rdma %p does not listen on port %u", (void *)rdma, port);
	} else {
		listener_close(rdma);
	}
	ferry_biased_owner_unlock(&rdma->lock);
	return err;
}

doca_error_t doca_rdma_connection_accept(struct doca_rdma_connection *rdma_connection, void *private_data,
					 uint8_t private_data_len)
{
	struct doca_rdma_connection *conn = rdma_connection;
	struct doca_rdma *rdma;
	ucp_ep_params_t ep;
	doca_error_t err = DOCA_SUCCESS;
	ucs_status_t st;

	FERRY_ARG_NOT_NULL(conn);
	/*
	 * DOCA gives the client no call that reads an accept's private data, so
	 * nothing can observe it: Ferry checks it and does not carry it.
	 */
	if (private_data == NULL && private_data_len != 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "rdma connection %u: %u bytes of private data at NULL; pass NULL with length 0",
				  conn->id, private_data_len);
	rdma = conn->rdma;
	ferry_biased_owner_lock(&rdma->lock);
	if (conn->state != RDMA_CONN_REQUESTED || rdma->stopping) {
		err = FERRY_RULE(DOCA_ERROR_CONNECTION_ABORTED, "rdma %p: connection %u is no pending request",
				 (void *)rdma, conn->id);
		goto out;
	}
	memset(&ep, 0, sizeof(ep));
	ep.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST;
	ep.conn_request = conn->conn_req;
	conn->conn_req = NULL;
	st = rdma_ep_create(rdma, conn, &ep);
	if (st == UCS_OK)
		st = cm_send(conn, RDMA_MSG_HELLO);
	if (st != UCS_OK) {
		conn->state = RDMA_CONN_FAILED;
		conn->need_close = conn->ep != NULL;
		err = FERRY_RULE(DOCA_ERROR_CONNECTION_ABORTED, "rdma %p: connection %u: accept failed: %s",
				 (void *)rdma, conn->id, ucs_status_string(st));
		goto out;
	}
	conn->state = RDMA_CONN_CONNECTING;
	conn->deadline_ns = ferry_link_now_ns() + (uint64_t)rdma->cm_timeout * 1000000u;
	rdma->connecting++;
out:
	ferry_biased_owner_unlock(&rdma->lock);
	return err;
}

doca_error_t doca_rdma_connection_reject(struct doca_rdma_connection *rdma_connection)
{
	struct doca_rdma_connection *conn = rdma_connection;
	doca_error_t err = DOCA_SUCCESS;
	struct doca_rdma *rdma;

	FERRY_ARG_NOT_NULL(conn);
	rdma = conn->rdma;
	ferry_biased_owner_lock(&rdma->lock);
	if (conn->state != RDMA_CONN_REQUESTED || rdma->listener == NULL) {
		err = FERRY_RULE(DOCA_ERROR_CONNECTION_ABORTED, "rdma %p: connection %u is no pending request",
				 (void *)rdma, conn->id);
	} else {
		(void)ucp_listener_reject(rdma->listener, conn->conn_req);
		conn->conn_req = NULL;
		conn->state = RDMA_CONN_FAILED;
	}
	ferry_biased_owner_unlock(&rdma->lock);
	return err;
}

/* ---- client ---- */

doca_error_t doca_rdma_connect_to_addr(struct doca_rdma *rdma, struct doca_rdma_addr *addr,
				       union doca_data connection_user_data)
{
	const char *call = __func__;
	struct doca_rdma_connection *conn;
	ucp_ep_params_t ep;
	doca_error_t err;
	ucs_status_t st;

	FERRY_ARG_NOT_NULL(rdma);
	FERRY_ARG_NOT_NULL(addr);
	ferry_biased_owner_lock(&rdma->lock);
	err = check_running(rdma, call);
	if (err != DOCA_SUCCESS)
		goto out;
	conn = rdma_conn_new(rdma);
	if (conn == NULL) {
		err = FERRY_RULE_IN(call, DOCA_ERROR_FULL,
				    "rdma %p: all %u connection(s) are in use (doca_rdma_set_max_num_connections)",
				    (void *)rdma, rdma->max_conns);
		goto out;
	}
	conn->cm = true;
	conn->user_data = connection_user_data;
	conn->addr = ferry_malloc(sizeof(*conn->addr));
	if (conn->addr != NULL)
		*conn->addr = *addr;
	memset(&ep, 0, sizeof(ep));
	ep.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR;
	ep.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER;
	ep.sockaddr.addr = (const struct sockaddr *)&addr->sa;
	ep.sockaddr.addrlen = addr->sa_len;
	st = rdma_ep_create(rdma, conn, &ep);
	if (st == UCS_OK)
		st = cm_send(conn, RDMA_MSG_HELLO);
	if (st != UCS_OK) {
		conn->state = RDMA_CONN_FAILED;
		conn->need_close = conn->ep != NULL;
		conn->released = true; /* the program never sees it */
		err = FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_ABORTED, "rdma %p: cannot connect to %s port %u: %s",
				    (void *)rdma, addr->text, addr->port, ucs_status_string(st));
		goto out;
	}
	/* Established or failed: the peer's hello or UCX's error says which, from progress. */
	conn->state = RDMA_CONN_CONNECTING;
	conn->deadline_ns = ferry_link_now_ns() + (uint64_t)rdma->cm_timeout * 1000000u;
	rdma->connecting++;
out:
	ferry_biased_owner_unlock(&rdma->lock);
	return err;
}

/* ---- either side ---- */

doca_error_t doca_rdma_connection_disconnect(struct doca_rdma_connection *rdma_connection)
{
	struct doca_rdma_connection *conn = rdma_connection;
	struct doca_rdma *rdma;
	bool over;
	ucp_request_param_t p;
	void *req;

	FERRY_ARG_NOT_NULL(conn);
	rdma = conn->rdma;
	ferry_biased_owner_lock(&rdma->lock);
	over = rdma_conn_over(conn);
	switch (conn->state) {
	case RDMA_CONN_REQUESTED:
		if (rdma->listener != NULL)
			(void)ucp_listener_reject(rdma->listener, conn->conn_req);
		conn->conn_req = NULL;
		conn->state = RDMA_CONN_FAILED;
		break;
	case RDMA_CONN_CONNECTED:
		if (conn->cm)
			(void)cm_send(conn, RDMA_MSG_BYE);
		/* Gracefully: the bye and what UCX took already go out first. */
		memset(&p, 0, sizeof(p));
		req = ucp_ep_close_nbx(conn->ep, &p);
		conn->ep = NULL;
		if (UCS_PTR_IS_PTR(req))
			conn->close_req = req;
		conn->state = RDMA_CONN_DISCONNECTED;
		break;
	case RDMA_CONN_CONNECTING:
		rdma_conn_close_ep(conn);
		conn->state = RDMA_CONN_FAILED;
		rdma->connecting--;
		break;
	case RDMA_CONN_EXPORTED:
		/* Never connected: its descriptor connects nothing from now on. */
		conn->state = RDMA_CONN_DISCONNECTED;
		break;
	default:
		/* Already over (the peer left, or this side disconnected): nothing to do. */
		break;
	}
	/*
	 * What is still out is flushed, as a queue pair's work requests are: tasks
	 * not handed to UCX yet, and those in flight (a request's answer can no
	 * longer be matched: it would come back on the endpoint just closed).
	 */
	if (!over)
		rdma_conn_flush(conn, DOCA_ERROR_IO_FAILED);
	/* The program is done with it: once nothing names it, its slot takes a new connection. */
	conn->released = true;
	ferry_biased_owner_unlock(&rdma->lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_connection_get_addr(const struct doca_rdma_connection *rdma_connection,
					   struct doca_rdma_addr **addr)
{
	FERRY_ARG_NOT_NULL(rdma_connection);
	FERRY_ARG_NOT_NULL(addr);
	if (rdma_connection->addr == NULL)
		return FERRY_RULE(DOCA_ERROR_NOT_FOUND, "connection %u has no address (not a connection manager one)",
				  rdma_connection->id);
	*addr = rdma_connection->addr;
	return DOCA_SUCCESS;
}

doca_error_t doca_rdma_set_connection_state_callbacks(
	struct doca_rdma *rdma, doca_rdma_connection_request_cb_t doca_rdma_connect_request_cb,
	doca_rdma_connection_established_cb_t doca_rdma_connect_established_cb,
	doca_rdma_connection_failure_cb_t doca_rdma_connect_failure_cb,
	doca_rdma_connection_disconnection_cb_t doca_rdma_disconnect_cb)
{
	doca_error_t err;

	FERRY_ARG_NOT_NULL(rdma);
	if (doca_rdma_connect_established_cb == NULL || doca_rdma_connect_failure_cb == NULL ||
	    doca_rdma_disconnect_cb == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "rdma %p: the established, failure and disconnection callbacks are required",
				  (void *)rdma);
	err = ferry_ctx_check_idle(&rdma->ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	rdma->cm_request_cb = doca_rdma_connect_request_cb;
	rdma->cm_established_cb = doca_rdma_connect_established_cb;
	rdma->cm_failure_cb = doca_rdma_connect_failure_cb;
	rdma->cm_disconnect_cb = doca_rdma_disconnect_cb;
	return DOCA_SUCCESS;
}

/* ---- events (progress, without the lock: callbacks may call anything but progress) ---- */

void rdma_cm_deliver(struct doca_rdma *rdma)
{
	union doca_data ctx_ud = rdma->ctx.user_data;

	ferry_biased_owner_lock(&rdma->lock);
	rdma->events_pending = false;
	ferry_biased_owner_unlock(&rdma->lock);
	for (uint32_t i = 0;; i++) {
		struct doca_rdma_connection *conn;
		unsigned int ev;

		/* The service thread adds connections (a listener's requests): num_conns is read under the lock. */
		ferry_biased_owner_lock(&rdma->lock);
		if (i >= rdma->num_conns) {
			ferry_biased_owner_unlock(&rdma->lock);
			break;
		}
		conn = &rdma->conns[i];
		ev = rdma->stopping ? 0 : conn->events;
		conn->events = 0;
		if (ev != 0)
			rdma->delivering = conn;
		ferry_biased_owner_unlock(&rdma->lock);
		if (ev == 0)
			continue;
		if ((ev & RDMA_EV_REQUEST) != 0) {
			if (rdma->cm_request_cb != NULL)
				rdma->cm_request_cb(conn, ctx_ud);
			else
				(void)doca_rdma_connection_reject(conn);
		}
		if ((ev & RDMA_EV_ESTABLISHED) != 0 && rdma->cm_established_cb != NULL)
			rdma->cm_established_cb(conn, conn->user_data, ctx_ud);
		if ((ev & RDMA_EV_FAILURE) != 0 && rdma->cm_failure_cb != NULL)
			rdma->cm_failure_cb(conn, conn->user_data, ctx_ud);
		if ((ev & RDMA_EV_DISCONNECT) != 0 && rdma->cm_disconnect_cb != NULL)
			rdma->cm_disconnect_cb(conn, conn->user_data, ctx_ud);
		/* Told of its end (or refused from its request callback): the program is done with it. */
		ferry_biased_owner_lock(&rdma->lock);
		if ((ev & (RDMA_EV_FAILURE | RDMA_EV_DISCONNECT)) != 0 ||
		    ((ev & RDMA_EV_REQUEST) != 0 && conn->state == RDMA_CONN_FAILED))
			conn->released = true;
		rdma->delivering = NULL;
		ferry_biased_owner_unlock(&rdma->lock);
	}
}

void rdma_cm_check_timeouts(struct doca_rdma *rdma)
{
	uint64_t now = ferry_link_now_ns();

	for (uint32_t i = 0; i < rdma->num_conns; i++) {
		struct doca_rdma_connection *conn = &rdma->conns[i];

		if (conn->state != RDMA_CONN_CONNECTING || now < conn->deadline_ns)
			continue;
		FERRY_ERR(
			"rdma %p: connection %u was not set up within %u ms (doca_rdma_set_connection_request_timeout)",
			(void *)rdma, conn->id, rdma->cm_timeout);
		rdma->connecting--;
		raise_event(conn, RDMA_EV_FAILURE);
		conn->state = RDMA_CONN_FAILED;
		conn->need_close = true;
	}
}

void rdma_cm_stop(struct doca_rdma *rdma)
{
	for (uint32_t i = 0; i < rdma->num_conns; i++)
		rdma->conns[i].events = 0;
	rdma->events_pending = false;
	rdma->connecting = 0;
	listener_close(rdma);
}

void rdma_cm_conn_release(struct doca_rdma_connection *conn)
{
	free(conn->addr);
	conn->addr = NULL;
}

/* ---- the bridge to a program's own rdma_cm: not offered ---- */

doca_error_t doca_rdma_bridge_prepare_connection(struct doca_rdma *rdma, struct rdma_cm_id *cm_id,
						 struct doca_rdma_connection **rdma_connection)
{
	(void)cm_id;
	(void)rdma_connection;
	FERRY_ARG_NOT_NULL(rdma);
	return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "rdma %p: Ferry has no rdma_cm bridge", (void *)rdma);
}

doca_error_t doca_rdma_bridge_accept(struct doca_rdma *rdma, void *private_data, uint8_t private_data_len,
				     struct doca_rdma_connection *rdma_connection)
{
	(void)private_data;
	(void)private_data_len;
	(void)rdma_connection;
	FERRY_ARG_NOT_NULL(rdma);
	return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "rdma %p: Ferry has no rdma_cm bridge", (void *)rdma);
}

doca_error_t doca_rdma_bridge_established(struct doca_rdma *rdma, struct doca_rdma_connection *rdma_connection)
{
	(void)rdma_connection;
	FERRY_ARG_NOT_NULL(rdma);
	return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED, "rdma %p: Ferry has no rdma_cm bridge", (void *)rdma);
}
