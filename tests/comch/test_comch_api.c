/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_comch_api.c - the Comch control path in one process: server and client on
 * one progress engine, in a domain of their own. Rules first (NULLs, wrong side,
 * names, sizes, states), then the handshake and messages, the event-driven
 * notification handle, server_disconnect, and rogue peers on raw sockets that send
 * garbage, truncated, oversized or lying frames (the server must survive each,
 * free the connection and keep serving).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <ferry_mem.h>

#include "comch/comch_fast.h"
#include "comch/comch_priv.h"
#include "comch_util.h"
#include "core/ferry_dev.h"
#include "ferry_test.h"

struct fix {
	struct doca_pe *pe;
	struct doca_dev *host, *dpu;
	struct doca_dev_rep *rep;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	/* what callbacks saw */
	unsigned connects, disconnects, server_msgs, client_msgs, sent_ok, sent_err;
	struct doca_comch_connection *server_conn;
	uint8_t last_msg[4096];
	uint32_t last_len;
};

static struct fix *F;
static unsigned g_domain_seq;

static void send_ok(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	F->sent_ok++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void send_err(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	F->sent_err++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void server_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
			struct doca_comch_connection *conn)
{
	(void)ev;
	(void)conn;
	F->server_msgs++;
	F->last_len = len;
	memcpy(F->last_msg, buf, len);
}

static void client_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
			struct doca_comch_connection *conn)
{
	(void)ev;
	(void)conn;
	F->client_msgs++;
	F->last_len = len;
	memcpy(F->last_msg, buf, len);
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
		       uint8_t ok)
{
	(void)ev;
	assert_int_equal(ok, 1);
	F->connects++;
	F->server_conn = conn;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			  uint8_t ok)
{
	(void)ev;
	(void)ok;
	F->disconnects++;
	if (F->server_conn == conn)
		F->server_conn = NULL;
}

static int setup(void **state)
{
	char domain[64];

	F = calloc(1, sizeof(*F));
	snprintf(domain, sizeof(domain), "comch-api-%d-%u", (int)getpid(), ++g_domain_seq);
	setenv("FERRY_DOMAIN", domain, 1);
	setenv("FERRY_COMCH_CONNECT_TIMEOUT_MS", "500", 1);
	setenv("FERRY_COMCH_HANDSHAKE_MS", "150", 1);
	assert_int_equal(doca_pe_create(&F->pe), DOCA_SUCCESS);
	F->host = cu_open_host_dev();
	F->dpu = cu_open_dpu_dev();
	assert_non_null(F->host);
	assert_non_null(F->dpu);
	F->rep = ferry_test_open_rep(F->dpu, NULL);
	assert_non_null(F->rep);
	ferry_test_log_reset();
	*state = F;
	return 0;
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states st;

	assert_int_equal(doca_ctx_get_state(ctx, &st), DOCA_SUCCESS);
	return st;
}

static void stop_idle(struct doca_ctx *ctx)
{
	if (state_of(ctx) != DOCA_CTX_STATE_IDLE)
		(void)doca_ctx_stop(ctx);
	for (int i = 0; i < 100000 && state_of(ctx) != DOCA_CTX_STATE_IDLE; i++)
		doca_pe_progress(F->pe);
	assert_int_equal(state_of(ctx), DOCA_CTX_STATE_IDLE);
}

static int teardown(void **state)
{
	(void)state;
	if (F->client != NULL) {
		stop_idle(doca_comch_client_as_ctx(F->client));
		assert_int_equal(doca_comch_client_destroy(F->client), DOCA_SUCCESS);
	}
	if (F->server != NULL) {
		stop_idle(doca_comch_server_as_ctx(F->server));
		assert_int_equal(doca_comch_server_destroy(F->server), DOCA_SUCCESS);
	}
	doca_dev_rep_close(F->rep);
	doca_dev_close(F->dpu);
	doca_dev_close(F->host);
	doca_pe_destroy(F->pe);
	free(F);
	return 0;
}

static void make_server(const char *name)
{
	assert_int_equal(doca_comch_server_create(F->dpu, F->rep, name, &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_ok, send_err, 64), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_msg_recv_register(F->server, server_recv), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_connection_status_changed_register(F->server, on_connect, on_disconnect),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
}

static void make_client(const char *name)
{
	assert_int_equal(doca_comch_client_create(F->host, name, &F->client), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_task_send_set_conf(F->client, send_ok, send_err, 64), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_event_msg_recv_register(F->client, client_recv), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(F->client)), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(state_of(doca_comch_client_as_ctx(F->client)), DOCA_CTX_STATE_STARTING);
}

static void progress_until(bool (*cond)(void), int max_loops)
{
	for (int i = 0; i < max_loops && !cond(); i++) {
		if (doca_pe_progress(F->pe) == 0)
			usleep(100);
	}
	if (!cond() && ferry_test_log_file_ != NULL) { /* show what the library said */
		char line[1024];

		fflush(ferry_test_log_file_);
		rewind(ferry_test_log_file_);
		while (fgets(line, sizeof(line), ferry_test_log_file_) != NULL)
			fputs(line, stderr);
	}
	assert_true(cond());
}

static bool client_running(void)
{
	return state_of(doca_comch_client_as_ctx(F->client)) == DOCA_CTX_STATE_RUNNING && F->connects > 0;
}

static bool client_left_running(void)
{
	enum doca_ctx_states st = state_of(doca_comch_client_as_ctx(F->client));

	return st == DOCA_CTX_STATE_STOPPING || st == DOCA_CTX_STATE_IDLE;
}

static bool client_idle(void)
{
	return state_of(doca_comch_client_as_ctx(F->client)) == DOCA_CTX_STATE_IDLE;
}

/* ---- rules ---- */

static void test_caps(void **state)
{
	uint32_t v = 0;

	(void)state;
	assert_int_equal(doca_comch_cap_server_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_client_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_get_max_msg_size(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(F->host), NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_server_is_supported(doca_dev_as_devinfo(F->host)), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_cap_client_is_supported(doca_dev_as_devinfo(F->dpu)), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_cap_server_is_supported(doca_dev_as_devinfo(F->dpu)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_cap_client_is_supported(doca_dev_as_devinfo(F->host)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(F->host), &v), DOCA_SUCCESS);
	assert_int_equal(v, COMCH_CAP_MAX_MSG_SIZE);
	assert_int_equal(doca_comch_cap_get_max_name_len(doca_dev_as_devinfo(F->dpu), &v), DOCA_SUCCESS);
	assert_int_equal(v, 120);
	assert_int_equal(doca_comch_cap_get_max_recv_queue_size(doca_dev_as_devinfo(F->dpu), &v), DOCA_SUCCESS);
	assert_true(v >= 64);
	assert_int_equal(doca_comch_cap_get_max_clients(doca_dev_as_devinfo(F->dpu), &v), DOCA_SUCCESS);
	assert_true(v >= 128);
	assert_int_equal(doca_comch_cap_get_max_send_tasks(doca_dev_as_devinfo(F->dpu), &v), DOCA_SUCCESS);
	assert_true(v >= 1024);
}

static void test_create_rules(void **state)
{
	struct doca_comch_server *s = NULL;
	struct doca_comch_client *c = NULL;
	char long_name[200];

	(void)state;
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(doca_comch_server_create(NULL, F->rep, "s", &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(F->dpu, NULL, "s", &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(F->dpu, F->rep, NULL, &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(F->dpu, F->rep, "s", NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(F->dpu, F->rep, "", &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(F->dpu, F->rep, long_name, &s), DOCA_ERROR_INVALID_VALUE);
	assert_true(ferry_test_log_has("doca_comch_server_create: name must be 1..119 bytes"));
	assert_int_equal(doca_comch_server_create(F->host, F->rep, "s", &s), DOCA_ERROR_NOT_SUPPORTED);
	assert_true(ferry_test_log_has("a server needs a DPU-side device"));
	assert_null(s);
	assert_int_equal(doca_comch_client_create(NULL, "c", &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(F->host, NULL, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(F->host, "c", NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(F->host, long_name, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(F->dpu, "c", &c), DOCA_ERROR_NOT_SUPPORTED);
	assert_true(ferry_test_log_has("a client needs a host-side device"));
	assert_null(c);
	assert_int_equal(doca_comch_server_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_comch_server_as_ctx(NULL));
	assert_null(doca_comch_client_as_ctx(NULL));
	assert_null(doca_comch_task_send_as_task(NULL));
	assert_null(doca_comch_server_get_server_ctx(NULL));
	assert_null(doca_comch_client_get_client_ctx(NULL));
}

static void test_setters_and_getters(void **state)
{
	struct doca_dev *dev = NULL;
	struct doca_dev_rep *rep = NULL;
	struct doca_comch_connection *conn = NULL;
	uint32_t v = 0;

	(void)state;
	assert_int_equal(doca_comch_server_create(F->dpu, F->rep, "setters", &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_create(F->host, "setters", &F->client), DOCA_SUCCESS);
	/* defaults */
	assert_int_equal(doca_comch_server_get_max_msg_size(F->server, &v), DOCA_SUCCESS);
	assert_int_equal(v, COMCH_CAP_MAX_MSG_SIZE);
	assert_int_equal(doca_comch_client_get_recv_queue_size(F->client, &v), DOCA_SUCCESS);
	assert_int_equal(v, COMCH_DEFAULT_RECV_QUEUE);
	/* out of range */
	assert_int_equal(doca_comch_server_set_max_msg_size(F->server, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_set_max_msg_size(F->server, COMCH_CAP_MAX_MSG_SIZE + 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_true(ferry_test_log_has("max message size 4081 is outside 1..4080"));
	assert_int_equal(doca_comch_client_set_recv_queue_size(F->client, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_set_recv_queue_size(F->client, COMCH_CAP_MAX_RECV_QUEUE + 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, NULL, send_err, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_ok, send_err, 0), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_event_msg_recv_register(F->server, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_event_connection_status_changed_register(F->server, on_connect, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_get_connection(F->client, &conn), DOCA_ERROR_BAD_STATE);
	assert_true(ferry_test_log_has("the connection exists while RUNNING"));
	/* boundaries accepted, read back */
	assert_int_equal(doca_comch_server_set_max_msg_size(F->server, 1), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_get_max_msg_size(F->server, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(doca_comch_client_set_max_msg_size(F->client, COMCH_CAP_MAX_MSG_SIZE), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_get_max_msg_size(F->client, &v), DOCA_SUCCESS);
	assert_int_equal(v, COMCH_CAP_MAX_MSG_SIZE);
	assert_int_equal(doca_comch_server_set_recv_queue_size(F->server, COMCH_CAP_MAX_RECV_QUEUE), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_get_recv_queue_size(F->server, &v), DOCA_SUCCESS);
	assert_int_equal(v, COMCH_CAP_MAX_RECV_QUEUE);
	assert_int_equal(doca_comch_server_get_device(F->server, &dev), DOCA_SUCCESS);
	assert_ptr_equal(dev, F->dpu);
	assert_int_equal(doca_comch_server_get_device_repr(F->server, &rep), DOCA_SUCCESS);
	assert_ptr_equal(rep, F->rep);
	assert_int_equal(doca_comch_client_get_device(F->client, &dev), DOCA_SUCCESS);
	assert_ptr_equal(dev, F->host);
	/* a server holds its device: closing it is refused while the server exists */
	assert_int_equal(doca_dev_close(F->dpu), DOCA_ERROR_IN_USE);
}

/* ---- connection ---- */

static void connect_pair(const char *name)
{
	make_server(name);
	make_client(name);
	progress_until(client_running, 100000);
	assert_non_null(F->server_conn);
}

static void client_send(const void *msg, uint32_t len)
{
	struct doca_comch_connection *conn = NULL;
	struct doca_comch_task_send *task = NULL;

	assert_int_equal(doca_comch_client_get_connection(F->client, &conn), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_task_send_alloc_init(F->client, conn, msg, len, &task), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(task)), DOCA_SUCCESS);
}

static unsigned want_server_msgs;
static bool server_got(void)
{
	return F->server_msgs >= want_server_msgs;
}

static unsigned want_client_msgs;
static bool client_got(void)
{
	return F->client_msgs >= want_client_msgs;
}

static void test_connect_and_exchange(void **state)
{
	struct doca_comch_connection *conn = NULL;
	struct doca_comch_task_send *task = NULL;
	union doca_data ud = {.u64 = 77};
	char msg[COMCH_CAP_MAX_MSG_SIZE + 1];

	(void)state;
	connect_pair("exchange");
	assert_int_equal(F->connects, 1);
	assert_ptr_equal(doca_comch_server_get_server_ctx(F->server_conn), F->server);
	assert_null(doca_comch_client_get_client_ctx(F->server_conn));
	assert_int_equal(doca_comch_client_get_connection(F->client, &conn), DOCA_SUCCESS);
	assert_ptr_equal(doca_comch_client_get_client_ctx(conn), F->client);
	assert_null(doca_comch_server_get_server_ctx(conn));
	/* user data */
	assert_int_equal(doca_comch_connection_get_user_data(F->server_conn).u64, 0);
	assert_int_equal(doca_comch_connection_set_user_data(NULL, ud), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_connection_set_user_data(F->server_conn, ud), DOCA_SUCCESS);
	assert_int_equal(doca_comch_connection_get_user_data(F->server_conn).u64, 77);
	/* alloc_init rules */
	memset(msg, 'm', sizeof(msg));
	assert_int_equal(doca_comch_client_task_send_alloc_init(F->client, conn, msg, sizeof(msg), &task),
			 DOCA_ERROR_INVALID_VALUE);
	assert_true(ferry_test_log_has("exceeds max message size 4080"));
	assert_int_equal(doca_comch_client_task_send_alloc_init(F->client, F->server_conn, msg, 1, &task),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_task_send_alloc_init(F->client, conn, NULL, 1, &task),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_task_send_alloc_init(F->server, conn, msg, 1, &task),
			 DOCA_ERROR_INVALID_VALUE);
	/* client -> server: the message is copied at alloc_init */
	memcpy(msg, "hello server", 12);
	assert_int_equal(doca_comch_client_task_send_alloc_init(F->client, conn, msg, 12, &task), DOCA_SUCCESS);
	memset(msg, 0, 12);
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(task)), DOCA_SUCCESS);
	assert_int_equal(F->sent_ok, 0); /* completions only from progress */
	want_server_msgs = 1;
	progress_until(server_got, 100000);
	assert_int_equal(F->last_len, 12);
	assert_memory_equal(F->last_msg, "hello server", 12);
	assert_int_equal(F->sent_ok, 1);
	/* server -> client, max size and empty */
	memset(msg, 'z', COMCH_CAP_MAX_MSG_SIZE);
	assert_int_equal(doca_comch_server_task_send_alloc_init(F->server, F->server_conn, msg, COMCH_CAP_MAX_MSG_SIZE,
								&task),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(task)), DOCA_SUCCESS);
	want_client_msgs = 1;
	progress_until(client_got, 100000);
	assert_int_equal(F->last_len, COMCH_CAP_MAX_MSG_SIZE);
	assert_int_equal(F->last_msg[COMCH_CAP_MAX_MSG_SIZE - 1], 'z');
	client_send(NULL, 0);
	want_server_msgs = 2;
	progress_until(server_got, 100000);
	assert_int_equal(F->last_len, 0);
	/* the client's stop is a disconnect for the server */
	stop_idle(doca_comch_client_as_ctx(F->client));
	for (int i = 0; i < 100000 && F->disconnects == 0; i++)
		doca_pe_progress(F->pe);
	assert_int_equal(F->disconnects, 1);
	assert_null(F->server_conn);
	assert_int_equal(((struct doca_comch_server *)F->server)->num_conns, 0);
}

static void test_notification_handle_wakes_on_messages(void **state)
{
	doca_notification_handle_t handle;
	struct epoll_event ev = {.events = EPOLLIN};
	int ep = epoll_create1(0);

	(void)state;
	connect_pair("events");
	while (doca_pe_progress(F->pe) != 0)
		;
	assert_int_equal(doca_pe_get_notification_handle(F->pe, &handle), DOCA_SUCCESS);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, handle, &ev), 0);
	assert_int_equal(doca_pe_request_notification(F->pe), DOCA_SUCCESS);
	assert_int_equal(epoll_wait(ep, &ev, 1, 0), 0); /* nothing pending: asleep */
	client_send("ping", 4);
	/* the send completion and the message make the handle readable without progress */
	assert_int_equal(epoll_wait(ep, &ev, 1, 1000), 1);
	assert_int_equal(doca_pe_clear_notification(F->pe, handle), DOCA_SUCCESS);
	want_server_msgs = 1;
	progress_until(server_got, 1000);
	close(ep);
}

/* A server alone on its PE: the handle wakes for a new client and for a client that leaves. */
static bool handle_readable(int ep, struct doca_pe *pe)
{
	struct epoll_event ev;
	doca_notification_handle_t handle;
	bool readable;

	assert_int_equal(doca_pe_get_notification_handle(pe, &handle), DOCA_SUCCESS);
	readable = epoll_wait(ep, &ev, 1, 2000) == 1;
	assert_int_equal(doca_pe_clear_notification(pe, handle), DOCA_SUCCESS);
	return readable;
}

static void test_notification_handle_wakes_on_connection_events(void **state)
{
	struct doca_pe *client_pe = NULL;
	doca_notification_handle_t handle;
	struct epoll_event ev = {.events = EPOLLIN};
	int ep = epoll_create1(0);

	(void)state;
	make_server("wake");
	assert_int_equal(doca_pe_create(&client_pe), DOCA_SUCCESS);
	assert_int_equal(doca_pe_get_notification_handle(F->pe, &handle), DOCA_SUCCESS);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, handle, &ev), 0);
	while (doca_pe_progress(F->pe) != 0)
		;
	assert_int_equal(doca_pe_request_notification(F->pe), DOCA_SUCCESS);
	assert_int_equal(epoll_wait(ep, &ev, 1, 0), 0);

	assert_int_equal(doca_comch_client_create(F->host, "wake", &F->client), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(client_pe, doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(F->client)), DOCA_ERROR_IN_PROGRESS);
	assert_true(handle_readable(ep, F->pe)); /* the new client, before any server progress */
	for (int i = 0; i < 100000 && !client_running(); i++) {
		doca_pe_progress(F->pe);
		doca_pe_progress(client_pe);
	}
	assert_true(client_running());

	while (doca_pe_progress(F->pe) != 0)
		;
	assert_int_equal(doca_pe_request_notification(F->pe), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
	assert_true(handle_readable(ep, F->pe)); /* the BYE of the leaving client */
	for (int i = 0; i < 100000 && F->disconnects == 0; i++)
		doca_pe_progress(F->pe);
	assert_int_equal(F->disconnects, 1);
	assert_int_equal(doca_comch_client_destroy(F->client), DOCA_SUCCESS);
	F->client = NULL;
	assert_int_equal(doca_pe_destroy(client_pe), DOCA_SUCCESS);
	close(ep);
}

static void test_server_disconnect(void **state)
{
	struct doca_comch_connection *conn = NULL;
	struct doca_comch_task_send *task = NULL;

	(void)state;
	connect_pair("kick");
	assert_int_equal(doca_comch_client_get_connection(F->client, &conn), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_task_send_alloc_init(F->client, conn, "late", 4, &task), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_disconnect(NULL, F->server_conn), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_disconnect(F->server, conn), DOCA_ERROR_INVALID_VALUE);
	assert_true(ferry_test_log_has("is not one of its clients"));
	assert_int_equal(doca_comch_server_disconnect(F->server, F->server_conn), DOCA_SUCCESS);
	progress_until(client_left_running, 100000);
	assert_true(ferry_test_log_has("the server ended the connection"));
	assert_int_equal(F->disconnects, 0); /* the server's own disconnect raises no event */
	assert_int_equal(((struct doca_comch_server *)F->server)->num_conns, 0);
	/* the task outlived its connection: submit refuses it; once freed, the client reaches IDLE */
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(task)), DOCA_ERROR_BAD_STATE);
	doca_task_free(doca_comch_task_send_as_task(task));
	progress_until(client_idle, 100000);
}

static void test_stop_flushes_backlog(void **state)
{
	(void)state;
	connect_pair("flush");
	/* Fill the socket without progressing the server: later sends wait in the backlog. */
	for (int i = 0; i < 64; i++)
		client_send("0123456789abcdef0123456789abcdef", 32);
	stop_idle(doca_comch_client_as_ctx(F->client));
	assert_int_equal(F->sent_ok + F->sent_err, 64);
}

/* ---- rogue peers ---- */

static int rogue_connect(const char *name)
{
	struct ferry_link_addr addr;
	const struct doca_devinfo *host = doca_dev_as_devinfo(F->host);
	int fd = -1;

	assert_int_equal(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), ferry_devinfo_machine(host),
					       ferry_devinfo_name(host), name),
			 DOCA_SUCCESS);
	assert_int_equal(ferry_link_connect(&addr, &fd), DOCA_SUCCESS);
	return fd;
}

/* Progress the server until the rogue socket is closed by it; returns what it got first. */
static size_t rogue_wait_closed(int fd, uint8_t *got, size_t cap)
{
	size_t first = 0;

	for (int i = 0; i < 20000; i++) {
		size_t len = 0;
		doca_error_t err;

		doca_pe_progress(F->pe);
		err = ferry_link_recv(fd, got, cap, &len);
		if (err == DOCA_ERROR_CONNECTION_RESET)
			return first;
		if (err == DOCA_SUCCESS && first == 0)
			first = len;
		usleep(50);
	}
	fail_msg("the server did not close the rogue connection");
	return 0;
}

static void rogue_send(int fd, const void *buf, size_t len)
{
	assert_int_equal(ferry_link_send(fd, buf, len), DOCA_SUCCESS);
}

static void expect_refusal(const uint8_t *got, size_t len, doca_error_t want)
{
	struct ferry_frame f;
	const char *why;

	assert_true(len > 0);
	assert_int_equal(ferry_frame_parse(got, len, 0, &f, &why), DOCA_SUCCESS);
	assert_int_equal(f.type, FERRY_FRAME_REFUSE);
	assert_int_equal(f.u.refuse.error, want);
}

static void test_rogue_peers(void **state)
{
	static uint8_t big[65536];
	uint8_t frame[FERRY_FRAME_HELLO_MAX];
	uint8_t got[1024];
	const struct doca_devinfo *host = doca_dev_as_devinfo(F->host);
	uint32_t machine = ferry_devinfo_machine(host);
	const char *dev = ferry_devinfo_name(host);
	size_t len;
	int fd;

	(void)state;
	make_server("guarded");

	fd = rogue_connect("guarded"); /* too short for a header */
	rogue_send(fd, "abc", 3);
	assert_int_equal(rogue_wait_closed(fd, got, sizeof(got)), 0);
	close(fd);
	assert_true(ferry_test_log_has("frame shorter than its header"));

	fd = rogue_connect("guarded"); /* bad magic */
	memset(frame, 0x41, 32);
	rogue_send(fd, frame, 32);
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_true(ferry_test_log_has("bad frame magic"));

	fd = rogue_connect("guarded"); /* oversized datagram */
	ferry_frame_put_header(big, FERRY_FRAME_MSG, sizeof(big) - FERRY_FRAME_HDR_LEN);
	rogue_send(fd, big, sizeof(big));
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_true(ferry_test_log_has("oversized frame"));

	fd = rogue_connect("guarded"); /* truncated HELLO */
	len = ferry_frame_build_hello(frame, COMCH_CAP_MAX_MSG_SIZE, 64, machine, dev, "guarded");
	rogue_send(fd, frame, len - 3);
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);

	fd = rogue_connect("guarded"); /* MSG before HELLO */
	ferry_frame_put_header(frame, FERRY_FRAME_MSG, 0);
	rogue_send(fd, frame, FERRY_FRAME_HDR_LEN);
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_true(ferry_test_log_has("before HELLO"));

	fd = rogue_connect("guarded"); /* right address, wrong name (as if the hash collided) */
	len = ferry_frame_build_hello(frame, COMCH_CAP_MAX_MSG_SIZE, 64, machine, dev, "guarded2");
	rogue_send(fd, frame, len);
	expect_refusal(got, rogue_wait_closed(fd, got, sizeof(got)), DOCA_ERROR_NOT_FOUND);
	close(fd);

	fd = rogue_connect("guarded"); /* a device the representor does not stand for */
	len = ferry_frame_build_hello(frame, COMCH_CAP_MAX_MSG_SIZE, 64, machine, "aa:00.0", "guarded");
	rogue_send(fd, frame, len);
	expect_refusal(got, rogue_wait_closed(fd, got, sizeof(got)), DOCA_ERROR_NOT_PERMITTED);
	close(fd);

	fd = rogue_connect("guarded"); /* says nothing: cut off after FERRY_COMCH_HANDSHAKE_MS */
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_true(ferry_test_log_has("did not complete the handshake in time"));

	fd = rogue_connect("guarded"); /* a valid HELLO, then garbage: disconnect event */
	len = ferry_frame_build_hello(frame, COMCH_CAP_MAX_MSG_SIZE, 64, machine, dev, "guarded");
	rogue_send(fd, frame, len);
	for (int i = 0; i < 10000 && F->connects == 0; i++)
		doca_pe_progress(F->pe);
	assert_int_equal(F->connects, 1);
	ferry_frame_put_header(frame, FERRY_FRAME_HELLO, 0);
	rogue_send(fd, frame, FERRY_FRAME_HDR_LEN);
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_int_equal(F->disconnects, 1);
	assert_int_equal(F->server_msgs, 0);

	/* The server is unharmed: nothing pending, still RUNNING, a real client is served. */
	assert_int_equal(((struct doca_comch_server *)F->server)->num_pending, 0);
	assert_int_equal(((struct doca_comch_server *)F->server)->num_conns, 0);
	assert_int_equal(state_of(doca_comch_server_as_ctx(F->server)), DOCA_CTX_STATE_RUNNING);
	make_client("guarded");
	progress_until(client_running, 100000);
	client_send("still here", 10);
	want_server_msgs = 1;
	progress_until(server_got, 100000);
}

static void test_second_server_same_name_refused(void **state)
{
	struct doca_comch_server *twin = NULL;

	(void)state;
	make_server("twin");
	assert_int_equal(doca_comch_server_create(F->dpu, F->rep, "twin", &twin), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_server_as_ctx(twin)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(twin)), DOCA_ERROR_ALREADY_EXIST);
	assert_true(ferry_test_log_has("another server already listens under this name"));
	assert_int_equal(state_of(doca_comch_server_as_ctx(twin)), DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_comch_server_destroy(twin), DOCA_SUCCESS);
}

/* A server that stops tells its clients: each leaves RUNNING with a clear line. */
static void test_server_stop_ends_clients(void **state)
{
	(void)state;
	connect_pair("stopping");
	stop_idle(doca_comch_server_as_ctx(F->server));
	progress_until(client_idle, 100000);
	assert_true(ferry_test_log_has("the server ended the connection"));
	assert_true(ferry_test_log_has("context leaves RUNNING"));
	assert_int_equal(F->disconnects, 0); /* no events from a stopping server */
}

/* Many silent peers: each is cut off at the handshake deadline; nothing is left behind. */
static void test_silent_flood_is_cleaned_up(void **state)
{
	enum { FLOOD = 100 };
	int fds[FLOOD];
	uint8_t got[64];

	(void)state;
	make_server("flood");
	for (int i = 0; i < FLOOD; i++)
		fds[i] = rogue_connect("flood");
	for (int i = 0; i < FLOOD; i++) {
		(void)rogue_wait_closed(fds[i], got, sizeof(got));
		close(fds[i]);
	}
	assert_int_equal(((struct doca_comch_server *)F->server)->num_pending, 0);
	assert_int_equal(F->connects, 0);
	make_client("flood");
	progress_until(client_running, 100000);
}


/* ---- fast path (producer, consumer) in one process ---- */

static unsigned g_new_consumers, g_expired_consumers, g_recv_ok, g_recv_err, g_send_ok, g_send_err;
static uint32_t g_remote_id, g_last_producer, g_last_imm_len;
static uint8_t g_last_imm[32];
static size_t g_last_recv_len;
static doca_error_t g_last_send_status;

static void on_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	g_new_consumers++;
	g_remote_id = id;
}

static void on_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
	g_expired_consumers++;
}

static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	g_recv_ok++;
	g_last_producer = doca_comch_consumer_task_post_recv_get_producer_id(t);
	g_last_imm_len = doca_comch_consumer_task_post_recv_get_imm_data_len(t);
	memcpy(g_last_imm, doca_comch_consumer_task_post_recv_get_imm_data(t), g_last_imm_len);
	(void)doca_buf_get_data_len(doca_comch_consumer_task_post_recv_get_buf(t), &g_last_recv_len);
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	(void)t;
	g_recv_err++;
}

static void prod_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	g_send_ok++;
	g_last_send_status = doca_task_get_status(doca_comch_producer_task_send_as_task(t));
}

static void prod_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	g_send_err++;
	g_last_send_status = doca_task_get_status(doca_comch_producer_task_send_as_task(t));
}

static void test_fast_path_rules(void **state)
{
	struct doca_comch_producer *p = NULL;
	struct doca_comch_consumer *c = NULL;
	struct doca_comch_connection fake;
	uint32_t v = 0;

	(void)state;
	memset(&fake, 0, sizeof(fake));
	assert_int_equal(doca_comch_producer_create(NULL, &p), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_create(&fake, &p), DOCA_ERROR_INVALID_VALUE);
	assert_true(ferry_test_log_has("not a live, established connection"));
	assert_int_equal(doca_comch_consumer_create(NULL, (struct doca_mmap *)F, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_create(&fake, NULL, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_comch_producer_as_ctx(NULL));
	assert_null(doca_comch_consumer_as_ctx(NULL));
	assert_int_equal(doca_comch_producer_cap_get_max_buf_size(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_cap_get_max_buf_size(doca_dev_as_devinfo(F->host), NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_cap_get_max_buf_size(doca_dev_as_devinfo(F->host), &v), DOCA_SUCCESS);
	assert_true(v >= (1u << 30));
	assert_int_equal(doca_comch_consumer_cap_get_max_buf_size(doca_dev_as_devinfo(F->dpu), &v), DOCA_SUCCESS);
	assert_true(v >= (1u << 30));
	assert_int_equal(doca_comch_consumer_cap_get_max_imm_data_len(doca_dev_as_devinfo(F->dpu), &v), DOCA_SUCCESS);
	assert_int_equal(v, 32);
	assert_int_equal(doca_comch_consumer_cap_get_max_num_tasks(doca_dev_as_devinfo(F->dpu), &v), DOCA_SUCCESS);
	assert_true(v >= 1024);
	assert_int_equal(doca_comch_producer_cap_get_max_num_tasks(doca_dev_as_devinfo(F->dpu), &v), DOCA_SUCCESS);
	assert_true(v >= 1024);
	assert_int_equal(doca_comch_producer_cap_is_supported(doca_dev_as_devinfo(F->host)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_cap_is_supported(doca_dev_as_devinfo(F->dpu)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_cap_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_comch_producer_task_send_get_buf(NULL));
	assert_int_equal(doca_comch_consumer_task_post_recv_get_producer_id(NULL), 0);
}

static struct doca_mmap *fast_mmap(void *mem, size_t len, struct doca_dev *dev)
{
	struct doca_mmap *m = NULL;

	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, mem, len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	return m;
}

static bool consumer_seen(void)
{
	return g_new_consumers > 0;
}

static unsigned g_want_recv;
static bool recv_count_reached(void)
{
	return g_recv_ok + g_recv_err >= g_want_recv && g_send_ok + g_send_err >= g_want_recv;
}

static bool consumer_expired(void)
{
	return g_expired_consumers > 0;
}

/*
 * A started server and a client connected to it under @p name, for the fast-path
 * tests: send queues of @p depth, consumer events on the client; @p cconn
 * receives the client's connection.
 */
static void fast_pair(const char *name, uint32_t depth, struct doca_comch_connection **cconn)
{
	assert_int_equal(doca_comch_server_create(F->dpu, F->rep, name, &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_ok, send_err, depth), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_connection_status_changed_register(F->server, on_connect, on_disconnect),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_create(F->host, name, &F->client), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_task_send_set_conf(F->client, send_ok, send_err, depth), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_event_consumer_register(F->client, on_new_consumer, on_expired_consumer),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(F->client)), DOCA_ERROR_IN_PROGRESS);
	progress_until(client_running, 100000);
	assert_int_equal(doca_comch_client_get_connection(F->client, cconn), DOCA_SUCCESS);
}

/*
 * A consumer on the server's connection, a producer on the client's: the
 * new-consumer event, a send that waits for a post, immediate data, sizes,
 * a send too big for the post, then the consumer going away.
 */
static void test_fast_path_in_one_process(void **state)
{
	enum { LEN = 1 << 16 };
	uint8_t *cmem = calloc(1, LEN), *pmem = malloc(LEN);
	struct doca_mmap *cm, *pm;
	struct doca_buf_inventory *inv = NULL;
	struct doca_comch_consumer *c = NULL;
	struct doca_comch_producer *p = NULL;
	struct doca_comch_connection *cconn = NULL;
	struct doca_comch_consumer_task_post_recv *rt = NULL;
	struct doca_comch_producer_task_send *st = NULL;
	struct doca_buf *rbuf = NULL, *sbuf = NULL, *big = NULL;
	uint8_t imm[32];
	uint32_t cid = 0, pid = 0, v = 0;

	(void)state;
	g_new_consumers = g_expired_consumers = g_recv_ok = g_recv_err = g_send_ok = g_send_err = 0;
	for (size_t i = 0; i < LEN; i++)
		pmem[i] = (uint8_t)(i * 7 + 3);
	fast_pair("fast1", 64, &cconn);

	cm = fast_mmap(cmem, LEN, F->dpu);
	pm = fast_mmap(pmem, LEN, F->host);
	assert_int_equal(doca_buf_inventory_create(8, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);

	/* consumer on the server side */
	assert_int_equal(doca_comch_consumer_create(F->server_conn, cm, &c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_set_imm_data_len(c, 33), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_set_imm_data_len(c, 16), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_get_imm_data_len(c, &v), DOCA_SUCCESS);
	assert_int_equal(v, 16);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(c, NULL, recv_err, 4), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(c, recv_ok, recv_err, 4), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_consumer_as_ctx(c)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(state_of(doca_comch_consumer_as_ctx(c)), DOCA_CTX_STATE_STARTING);
	assert_int_equal(doca_comch_consumer_set_imm_data_len(c, 8), DOCA_ERROR_BAD_STATE);
	(void)doca_pe_progress(F->pe);
	assert_int_equal(state_of(doca_comch_consumer_as_ctx(c)), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(doca_comch_consumer_get_id(c, &cid), DOCA_SUCCESS);
	progress_until(consumer_seen, 100000);
	assert_int_equal(g_remote_id, cid);

	/* producer on the client side; its first send waits for a post */
	assert_int_equal(doca_comch_producer_create(cconn, &p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_get_id(p, &pid), DOCA_SUCCESS);
	assert_int_not_equal(pid, 0);
	assert_int_equal(doca_comch_producer_task_send_set_conf(p, prod_ok, prod_err, 4), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, pm, pmem, 1000, &sbuf), DOCA_SUCCESS);
	for (int i = 0; i < 32; i++)
		imm[i] = (uint8_t)(0xA0 + i);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, imm, 33, cid, &st), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, imm, 12, cid, &st), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_get_consumer_id(st), cid);
	assert_int_equal(doca_comch_producer_task_send_get_imm_data_len(st), 12);
	assert_ptr_equal(doca_comch_producer_task_send_get_buf(st), sbuf);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	for (int i = 0; i < 200; i++)
		(void)doca_pe_progress(F->pe);
	assert_int_equal(g_send_ok + g_send_err, 0); /* no posted buffer yet: the send waits */

	assert_int_equal(doca_buf_inventory_buf_get_by_addr(inv, cm, cmem, 4096, &rbuf), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(c, rbuf, &rt), DOCA_SUCCESS);
	assert_ptr_equal(doca_comch_consumer_task_post_recv_get_buf(rt), rbuf);
	assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)), DOCA_SUCCESS);
	g_want_recv = 1;
	progress_until(recv_count_reached, 100000);
	assert_int_equal(g_send_ok, 1);
	assert_int_equal(g_recv_ok, 1);
	assert_int_equal(g_last_recv_len, 1000);
	assert_memory_equal(cmem, pmem, 1000);
	assert_int_equal(g_last_producer, pid);
	assert_int_equal(g_last_imm_len, 12);
	assert_memory_equal(g_last_imm, imm, 12);

	/* immediate data above what the consumer accepts (16): the send fails */
	assert_int_equal(doca_buf_reset_data_len(rbuf), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)), DOCA_SUCCESS);
	doca_comch_producer_task_send_set_imm_data(st, imm, 20);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	g_send_ok = g_send_err = 0;
	g_recv_ok = 0;
	for (int i = 0; i < 200 && g_send_err == 0; i++)
		(void)doca_pe_progress(F->pe);
	assert_int_equal(g_send_err, 1);
	assert_int_equal(g_recv_ok, 0); /* the buffer stays posted */
	assert_int_equal(g_last_send_status, DOCA_ERROR_INVALID_VALUE);

	/* larger than the posted 4096: TOO_BIG, the post stays for the next send */
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, pm, pmem, 8192, &big), DOCA_SUCCESS);
	doca_comch_producer_task_send_set_buf(st, big);
	doca_comch_producer_task_send_set_imm_data(st, NULL, 0);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	g_send_err = 0;
	for (int i = 0; i < 200 && g_send_err == 0; i++)
		(void)doca_pe_progress(F->pe);
	assert_int_equal(g_send_err, 1);
	assert_int_equal(g_last_send_status, DOCA_ERROR_TOO_BIG);

	/* an unknown consumer id: NOT_FOUND */
	doca_comch_producer_task_send_set_consumer_id(st, cid + 1000);
	doca_comch_producer_task_send_set_buf(st, sbuf);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	g_send_err = 0;
	for (int i = 0; i < 200 && g_send_err == 0; i++)
		(void)doca_pe_progress(F->pe);
	assert_int_equal(g_last_send_status, DOCA_ERROR_NOT_FOUND);

	/* the consumer stops: its post is flushed, the producer's side sees it expire */
	assert_int_equal(doca_ctx_stop(doca_comch_consumer_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
	for (int i = 0; i < 200 && g_recv_err == 0; i++)
		(void)doca_pe_progress(F->pe);
	assert_int_equal(g_recv_err, 1);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(rt));
	stop_idle(doca_comch_consumer_as_ctx(c));
	progress_until(consumer_expired, 100000);
	doca_comch_producer_task_send_set_consumer_id(st, cid);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	g_send_err = 0;
	for (int i = 0; i < 200 && g_send_err == 0; i++)
		(void)doca_pe_progress(F->pe);
	assert_int_equal(g_last_send_status, DOCA_ERROR_NOT_FOUND);

	doca_task_free(doca_comch_producer_task_send_as_task(st));
	stop_idle(doca_comch_producer_as_ctx(p));
	assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
	(void)doca_buf_dec_refcount(rbuf, NULL);
	(void)doca_buf_dec_refcount(sbuf, NULL);
	(void)doca_buf_dec_refcount(big, NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(cm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(pm), DOCA_SUCCESS);
	free(cmem);
	free(pmem);
}


/* ---- fast path: a rogue peer's frames ---- */

static int rogue_hello(const char *name)
{
	const struct doca_devinfo *host = doca_dev_as_devinfo(F->host);
	uint8_t frame[FERRY_FRAME_HELLO_MAX];
	unsigned before = F->connects;
	int fd = rogue_connect(name);
	size_t len = ferry_frame_build_hello(frame, COMCH_CAP_MAX_MSG_SIZE, 64, ferry_devinfo_machine(host),
					     ferry_devinfo_name(host), name);

	rogue_send(fd, frame, len);
	for (int i = 0; i < 10000 && F->connects == before; i++)
		doca_pe_progress(F->pe);
	assert_int_equal(F->connects, before + 1);
	return fd;
}

/* Read frames from the rogue socket (progressing the server) until one of @p type comes. */
static void rogue_read(int fd, enum ferry_frame_type type, uint8_t *buf, size_t cap, struct ferry_frame *f)
{
	for (int i = 0; i < 20000; i++) {
		size_t len = 0;
		const char *why;

		doca_pe_progress(F->pe);
		if (ferry_link_recv(fd, buf, cap, &len) == DOCA_SUCCESS &&
		    ferry_frame_parse(buf, len, COMCH_CAP_MAX_MSG_SIZE, f, &why) == DOCA_SUCCESS && f->type == type)
			return;
		usleep(50);
	}
	fail_msg("no frame of type %d came", (int)type);
}

static void test_rogue_fast_path_frames(void **state)
{
	uint8_t frame[FERRY_FRAME_UP_MAX], got[4096], junk[20], pmem[64];
	uint8_t *mem = calloc(1, 8192);
	struct comch_ring_hdr *ring;
	struct doca_mmap *mm, *sm, *rm, *pm;
	struct doca_buf_inventory *inv = NULL, *pinv = NULL;
	struct doca_buf *buf = NULL, *sbuf = NULL;
	struct doca_comch_consumer *c = NULL;
	struct doca_comch_consumer_task_post_recv *rt = NULL;
	struct doca_comch_producer *p = NULL;
	struct doca_comch_producer_task_send *st = NULL;
	struct ferry_frame f;
	struct ferry_frame_consumer_up up;
	struct comch_ring_hdr *dring;
	struct doca_mmap *dm;
	const void *desc = NULL, *ring_desc = NULL, *dring_desc = NULL;
	size_t desc_len = 0, ring_desc_len = 0, dring_desc_len = 0;
	int fd;

	(void)state;
	pm = fast_mmap(pmem, sizeof(pmem), F->dpu);
	assert_int_equal(doca_buf_inventory_create(2, &pinv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(pinv), DOCA_SUCCESS);
	g_new_consumers = g_recv_ok = g_recv_err = 0;
	assert_int_equal(doca_comch_server_create(F->dpu, F->rep, "rogue-fast", &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_ok, send_err, 8), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_connection_status_changed_register(F->server, on_connect, on_disconnect),
			 DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_consumer_register(F->server, on_new_consumer, on_expired_consumer),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);

	fd = rogue_hello("rogue-fast"); /* a CONSUMER_DOWN for a consumer it never announced */
	rogue_send(fd, frame, ferry_frame_build_consumer_down(frame, 5));
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_true(ferry_test_log_has("CONSUMER_DOWN for a consumer that is not up"));

	fd = rogue_hello("rogue-fast"); /* a CONSUMER_UP whose descriptors are garbage */
	memset(junk, 0x33, sizeof(junk));
	up = (struct ferry_frame_consumer_up){.consumer_id = 5, .ring_cap = 4, .desc = junk, .desc_len = sizeof(junk),
					      .ring_desc = junk, .ring_desc_len = sizeof(junk)};
	rogue_send(fd, frame, ferry_frame_build_consumer_up(frame, &up));
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_true(ferry_test_log_has("cannot be imported"));
	assert_int_equal(g_new_consumers, 0);

	/* a real export and a ring of our own making: one good post, then a ring that lies */
	mm = fast_mmap(mem, 4096, F->host);
	assert_int_equal(doca_mmap_export_pci(mm, F->host, &desc, &desc_len), DOCA_SUCCESS);
	ring = ferry_mem_alloc_shared(comch_ring_bytes(4));
	assert_non_null(ring);
	rm = fast_mmap(ring, comch_ring_bytes(4), F->host);
	assert_int_equal(doca_mmap_export_pci(rm, F->host, &ring_desc, &ring_desc_len), DOCA_SUCCESS);
	memset(pmem, 0x77, sizeof(pmem));
	for (int k = 0; k < 3; k++) {
		struct comch_post *entries = (struct comch_post *)(ring + 1);
		uint64_t head = 0; /* each connection reads the ring from its start */

		fd = rogue_hello("rogue-fast");
		up = (struct ferry_frame_consumer_up){.consumer_id = 5, .ring_cap = 4, .desc = desc,
						      .desc_len = (uint16_t)desc_len, .ring_desc = ring_desc,
						      .ring_desc_len = (uint16_t)ring_desc_len};
		atomic_store(&ring->head, head);
		rogue_send(fd, frame, ferry_frame_build_consumer_up(frame, &up));
		for (int i = 0; i < 10000 && g_new_consumers == (unsigned)k; i++)
			doca_pe_progress(F->pe);
		assert_int_equal(g_new_consumers, k + 1);
		assert_int_equal(doca_comch_producer_create(F->server_conn, &p), DOCA_SUCCESS);
		assert_int_equal(doca_comch_producer_task_send_set_conf(p, prod_ok, prod_err, 1), DOCA_SUCCESS);
		assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
		assert_int_equal(doca_ctx_start(doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
		if (sbuf == NULL)
			assert_int_equal(doca_buf_inventory_buf_get_by_data(pinv, pm, pmem, 64, &sbuf), DOCA_SUCCESS);
		assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, NULL, 0, 5, &st), DOCA_SUCCESS);
		g_send_ok = g_send_err = 0;
		if (k == 0) { /* a good post first: the data lands, then a post past the end */
			entries[0] = (struct comch_post){.addr = (uint64_t)(uintptr_t)mem, .len = 64, .slot = 0, .generation = 1};
			atomic_store(&ring->head, head + 1);
			assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
			for (int i = 0; i < 1000 && g_send_ok == 0; i++)
				doca_pe_progress(F->pe);
			assert_int_equal(g_send_ok, 1);
			assert_memory_equal(mem, pmem, 64);
			entries[1] = (struct comch_post){.addr = (uint64_t)(uintptr_t)mem + 4096 - 63, .len = 64};
			atomic_store(&ring->head, head + 2);
		} else if (k == 1) { /* below the start */
			entries[head & 3] = (struct comch_post){.addr = (uint64_t)(uintptr_t)mem - 64, .len = 64};
			atomic_store(&ring->head, head + 1);
		} else { /* a head that claims more than the ring holds */
			atomic_store(&ring->head, head + 5);
		}
		assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
		for (int i = 0; i < 1000 && g_send_err == 0; i++)
			doca_pe_progress(F->pe);
		assert_int_equal(g_send_err, 1);
		assert_int_equal(g_last_send_status, DOCA_ERROR_NOT_CONNECTED);
		(void)rogue_wait_closed(fd, got, sizeof(got));
		close(fd);
		assert_true(ferry_test_log_has(k < 2 ? "outside the consumer's exported memory" : "claims more posts"));
		ferry_test_log_reset();
		doca_task_free(doca_comch_producer_task_send_as_task(st));
		stop_idle(doca_comch_producer_as_ctx(p));
		assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
	}
	assert_memory_not_equal(mem + 4096 - 63, pmem, 63); /* nothing was written past the end */

	/* a consumer of the server's: DONE frames that lie */
	sm = fast_mmap(mem + 4096, 4096, F->dpu);
	assert_int_equal(doca_buf_inventory_create(2, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(inv, sm, mem + 4096, 1024, &buf), DOCA_SUCCESS);
	dring = ferry_mem_alloc_shared(comch_done_ring_bytes(2));
	assert_non_null(dring);
	dm = fast_mmap(dring, comch_done_ring_bytes(2), F->host);
	assert_int_equal(doca_mmap_export_pci(dm, F->host, &dring_desc, &dring_desc_len), DOCA_SUCCESS);
	for (int k = 0; k < 5; k++) {
		struct comch_done *dones = (struct comch_done *)(dring + 1);
		struct ferry_frame_done_ring answer;
		const char *want[] = {"overfills it", "not posted", "not posted", "claims more completions",
				      "of another size"};

		g_recv_ok = g_recv_err = 0;
		atomic_store(&dring->head, 0);
		fd = rogue_hello("rogue-fast");
		assert_int_equal(doca_comch_consumer_create(F->server_conn, sm, &c), DOCA_SUCCESS);
		assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(c, recv_ok, recv_err, 1), DOCA_SUCCESS);
		assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_consumer_as_ctx(c)), DOCA_SUCCESS);
		assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
		(void)doca_pe_progress(F->pe);
		assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(c, buf, &rt), DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)), DOCA_SUCCESS);
		rogue_read(fd, FERRY_FRAME_CONSUMER_UP, got, sizeof(got), &f);
		assert_int_equal(f.u.up.ring_cap, 1);
		answer = (struct ferry_frame_done_ring){.consumer_id = f.u.up.consumer_id, .ring_cap = k == 4 ? 2 : 1,
							.desc = dring_desc, .desc_len = (uint16_t)dring_desc_len};
		rogue_send(fd, frame, ferry_frame_build_done_ring(frame, &answer));
		if (k == 0) { /* a good completion first */
			dones[0] = (struct comch_done){.slot = 0, .generation = 1, .len = 10, .producer_id = 9};
			atomic_store(&dring->head, 1);
			for (int i = 0; i < 1000 && g_recv_ok == 0; i++)
				doca_pe_progress(F->pe);
			assert_int_equal(g_recv_ok, 1);
			assert_int_equal(g_last_recv_len, 10);
			assert_int_equal(g_last_producer, 9);
			assert_int_equal(doca_buf_reset_data_len(buf), DOCA_SUCCESS);
			assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)), DOCA_SUCCESS);
			dones[0] = (struct comch_done){.slot = 0, .generation = 2, .len = 1025, .producer_id = 9};
			atomic_store(&dring->head, 2);
		} else if (k == 1) {
			dones[0] = (struct comch_done){.slot = 0, .generation = 7, .len = 10, .producer_id = 9};
			atomic_store(&dring->head, 1);
		} else if (k == 2) {
			dones[0] = (struct comch_done){.slot = 5, .generation = 1, .len = 10, .producer_id = 9};
			atomic_store(&dring->head, 1);
		} else if (k == 3) {
			atomic_store(&dring->head, 2);
		}
		(void)rogue_wait_closed(fd, got, sizeof(got));
		close(fd);
		for (int i = 0; i < 200 && g_recv_err == 0; i++)
			doca_pe_progress(F->pe);
		assert_int_equal(g_recv_err, 1); /* the post fails: its connection ended */
		assert_int_equal(g_recv_ok, k == 0 ? 1 : 0);
		assert_true(ferry_test_log_has(want[k]));
		ferry_test_log_reset();
		assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)), DOCA_ERROR_NOT_CONNECTED);
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(rt));
		stop_idle(doca_comch_consumer_as_ctx(c));
		assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
	}
	assert_int_equal(doca_mmap_destroy(dm), DOCA_SUCCESS);
	assert_int_equal(ferry_mem_free_shared(dring), 0);
	(void)doca_buf_dec_refcount(buf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(sm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(mm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(rm), DOCA_SUCCESS);
	(void)doca_buf_dec_refcount(sbuf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(pinv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(pm), DOCA_SUCCESS);
	assert_int_equal(ferry_mem_free_shared(ring), 0);
	free(mem);
}


/* DOCA's high-speed sample: the producer has a PE of its own and only that PE is progressed while it sends. */
static void test_fast_path_producer_on_own_pe(void **state)
{
	uint8_t *cmem = calloc(1, 4096), *pmem = malloc(4096);
	struct doca_pe *ppe = NULL;
	struct doca_mmap *cm, *pm;
	struct doca_buf_inventory *inv = NULL;
	struct doca_comch_consumer *c = NULL;
	struct doca_comch_producer *p = NULL;
	struct doca_comch_connection *cconn = NULL;
	struct doca_comch_consumer_task_post_recv *rt = NULL;
	struct doca_comch_producer_task_send *st = NULL;
	struct doca_buf *rbuf = NULL, *sbuf = NULL;
	uint32_t cid = 0;

	(void)state;
	g_new_consumers = g_recv_ok = g_recv_err = g_send_ok = g_send_err = 0;
	memset(pmem, 0x6b, 4096);
	fast_pair("fast-pe", 8, &cconn);
	cm = fast_mmap(cmem, 4096, F->dpu);
	pm = fast_mmap(pmem, 4096, F->host);
	assert_int_equal(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_create(F->server_conn, cm, &c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(c, recv_ok, recv_err, 1), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->pe, doca_comch_consumer_as_ctx(c)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
	progress_until(consumer_seen, 100000);
	assert_int_equal(doca_comch_consumer_get_id(c, &cid), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(inv, cm, cmem, 4096, &rbuf), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(c, rbuf, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)), DOCA_SUCCESS);

	assert_int_equal(doca_pe_create(&ppe), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_create(cconn, &p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_set_conf(p, prod_ok, prod_err, 1), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(ppe, doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, pm, pmem, 4096, &sbuf), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, NULL, 0, cid, &st), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	for (int i = 0; i < 100000 && g_send_ok + g_send_err == 0; i++)
		(void)doca_pe_progress(ppe); /* only the producer's PE */
	assert_int_equal(g_send_ok, 1);
	assert_memory_equal(cmem, pmem, 4096);
	for (int i = 0; i < 100000 && g_recv_ok == 0; i++)
		(void)doca_pe_progress(F->pe);
	assert_int_equal(g_recv_ok, 1);

	doca_task_free(doca_comch_producer_task_send_as_task(st));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(rt));
	assert_int_equal(doca_ctx_stop(doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(ppe), DOCA_SUCCESS);
	stop_idle(doca_comch_consumer_as_ctx(c));
	assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
	(void)doca_buf_dec_refcount(rbuf, NULL);
	(void)doca_buf_dec_refcount(sbuf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(cm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(pm), DOCA_SUCCESS);
	free(cmem);
	free(pmem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setters_and_getters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_in_one_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_fast_path_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_producer_on_own_pe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_and_exchange, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notification_handle_wakes_on_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notification_handle_wakes_on_connection_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_disconnect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_flushes_backlog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_peers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_server_same_name_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_stop_ends_clients, setup, teardown),
		cmocka_unit_test_setup_teardown(test_silent_flood_is_cleaned_up, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
