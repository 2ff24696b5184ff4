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

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
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
#include <doca_rdma.h>
#include <ferry_mem.h>

#include "comch/fast_priv.h"
#include "comch/comch_priv.h"
#include "comch_util.h"
#include "core/fault.h"
#include "core/ferry_dev.h"
#include "link/link_priv.h"
#include "ferry_test.h"
#include "ferry_test_fds.h"
#include "ferry_test_ctx.h"
#include "ferry_test_wait.h"

struct fix {
	struct cu_machine m;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	/* what callbacks saw */
	unsigned connects, disconnects, server_msgs, client_msgs, sent_ok, sent_err;
	struct doca_comch_connection *server_conn;
	uint8_t last_msg[4096];
	uint32_t last_len;
};

static struct fix *F;

/* The open-file limit a test lowered, given back by teardown even when the test failed. */
static struct rlimit g_nofile;
static bool g_nofile_lowered;

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
	F = calloc(1, sizeof(*F));
	assert_non_null(F);
	setenv("FERRY_COMCH_CONNECT_TIMEOUT_MS", "500", 1);
	setenv("FERRY_COMCH_HANDSHAKE_MS", "150", 1);
	assert_true(cu_machine_open(&F->m, "comch-api"));
	ferry_test_log_reset();
	*state = F;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (g_nofile_lowered)
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &g_nofile), 0);
	g_nofile_lowered = false;
	if (F->client != NULL) {
		ferry_test_stop_idle(F->m.pe, doca_comch_client_as_ctx(F->client));
		assert_int_equal(doca_comch_client_destroy(F->client), DOCA_SUCCESS);
	}
	if (F->server != NULL) {
		ferry_test_stop_idle(F->m.pe, doca_comch_server_as_ctx(F->server));
		assert_int_equal(doca_comch_server_destroy(F->server), DOCA_SUCCESS);
	}
	cu_machine_close(&F->m);
	free(F);
	return 0;
}

static void make_server(const char *name)
{
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, name, &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_ok, send_err, 64), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_msg_recv_register(F->server, server_recv), DOCA_SUCCESS);
	assert_int_equal(
		doca_comch_server_event_connection_status_changed_register(F->server, on_connect, on_disconnect),
		DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
}

static void make_client(const char *name)
{
	assert_int_equal(doca_comch_client_create(F->m.host, name, &F->client), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_task_send_set_conf(F->client, send_ok, send_err, 64), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_event_msg_recv_register(F->client, client_recv), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(F->client)), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)), DOCA_CTX_STATE_STARTING);
}

/* Progress until @p cond holds (or FERRY_TEST_WAIT_MS passed: then it fails, showing what the library said). */
static void progress_until(bool (*cond)(void))
{
	FERRY_PROGRESS_UNTIL(F->m.pe, cond(), FERRY_TEST_WAIT_MS);
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
	return ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)) == DOCA_CTX_STATE_RUNNING && F->connects > 0;
}

static bool client_left_running(void)
{
	enum doca_ctx_states st = ferry_test_ctx_state(doca_comch_client_as_ctx(F->client));

	return st == DOCA_CTX_STATE_STOPPING || st == DOCA_CTX_STATE_IDLE;
}

static bool client_idle(void)
{
	return ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)) == DOCA_CTX_STATE_IDLE;
}

/* ---- rules ---- */

static void test_caps(void **state)
{
	uint32_t v = 0;

	(void)state;
	assert_int_equal(doca_comch_cap_server_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_client_is_supported(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_get_max_msg_size(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(F->m.host), NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_cap_server_is_supported(doca_dev_as_devinfo(F->m.host)), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_cap_client_is_supported(doca_dev_as_devinfo(F->m.dpu)), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_comch_cap_server_is_supported(doca_dev_as_devinfo(F->m.dpu)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_cap_client_is_supported(doca_dev_as_devinfo(F->m.host)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_cap_get_max_msg_size(doca_dev_as_devinfo(F->m.host), &v), DOCA_SUCCESS);
	assert_int_equal(v, COMCH_CAP_MAX_MSG_SIZE);
	assert_int_equal(doca_comch_cap_get_max_name_len(doca_dev_as_devinfo(F->m.dpu), &v), DOCA_SUCCESS);
	assert_int_equal(v, 120);
	assert_int_equal(doca_comch_cap_get_max_recv_queue_size(doca_dev_as_devinfo(F->m.dpu), &v), DOCA_SUCCESS);
	assert_true(v >= 64);
	assert_int_equal(doca_comch_cap_get_max_clients(doca_dev_as_devinfo(F->m.dpu), &v), DOCA_SUCCESS);
	assert_true(v >= 128);
	assert_int_equal(doca_comch_cap_get_max_send_tasks(doca_dev_as_devinfo(F->m.dpu), &v), DOCA_SUCCESS);
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
	assert_int_equal(doca_comch_server_create(NULL, F->m.rep, "s", &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(F->m.dpu, NULL, "s", &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, NULL, &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, "s", NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, "", &s), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, long_name, &s), DOCA_ERROR_INVALID_VALUE);
	assert_true(ferry_test_log_has("doca_comch_server_create: name must be 1..119 bytes"));
	assert_int_equal(doca_comch_server_create(F->m.host, F->m.rep, "s", &s), DOCA_ERROR_NOT_SUPPORTED);
	assert_true(ferry_test_log_has("a server needs a DPU-side device"));
	assert_null(s);
	assert_int_equal(doca_comch_client_create(NULL, "c", &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(F->m.host, NULL, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(F->m.host, "c", NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(F->m.host, long_name, &c), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_client_create(F->m.dpu, "c", &c), DOCA_ERROR_NOT_SUPPORTED);
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
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, "setters", &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_create(F->m.host, "setters", &F->client), DOCA_SUCCESS);
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
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_ok, send_err, 0),
			 DOCA_ERROR_INVALID_VALUE);
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
	assert_ptr_equal(dev, F->m.dpu);
	assert_int_equal(doca_comch_server_get_device_repr(F->server, &rep), DOCA_SUCCESS);
	assert_ptr_equal(rep, F->m.rep);
	assert_int_equal(doca_comch_client_get_device(F->client, &dev), DOCA_SUCCESS);
	assert_ptr_equal(dev, F->m.host);
	/* a server holds its device: closing it is refused while the server exists */
	assert_int_equal(doca_dev_close(F->m.dpu), DOCA_ERROR_IN_USE);
}

/* ---- connection ---- */

static void connect_pair(const char *name)
{
	make_server(name);
	make_client(name);
	progress_until(client_running);
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
	progress_until(server_got);
	assert_int_equal(F->last_len, 12);
	assert_memory_equal(F->last_msg, "hello server", 12);
	assert_int_equal(F->sent_ok, 1);
	/* server -> client, max size and empty */
	memset(msg, 'z', COMCH_CAP_MAX_MSG_SIZE);
	assert_int_equal(
		doca_comch_server_task_send_alloc_init(F->server, F->server_conn, msg, COMCH_CAP_MAX_MSG_SIZE, &task),
		DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(task)), DOCA_SUCCESS);
	want_client_msgs = 1;
	progress_until(client_got);
	assert_int_equal(F->last_len, COMCH_CAP_MAX_MSG_SIZE);
	assert_int_equal(F->last_msg[COMCH_CAP_MAX_MSG_SIZE - 1], 'z');
	client_send(NULL, 0);
	want_server_msgs = 2;
	progress_until(server_got);
	assert_int_equal(F->last_len, 0);
	/* the client's stop is a disconnect for the server */
	ferry_test_stop_idle(F->m.pe, doca_comch_client_as_ctx(F->client));
	FERRY_PROGRESS_UNTIL(F->m.pe, F->disconnects > 0, FERRY_TEST_WAIT_MS);
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
	while (doca_pe_progress(F->m.pe) != 0)
		;
	assert_int_equal(doca_pe_get_notification_handle(F->m.pe, &handle), DOCA_SUCCESS);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, handle, &ev), 0);
	assert_int_equal(doca_pe_request_notification(F->m.pe), DOCA_SUCCESS);
	assert_int_equal(epoll_wait(ep, &ev, 1, 0), 0); /* nothing pending: asleep */
	client_send("ping", 4);
	/* the send completion and the message make the handle readable without progress */
	assert_int_equal(epoll_wait(ep, &ev, 1, 1000), 1);
	assert_int_equal(doca_pe_clear_notification(F->m.pe, handle), DOCA_SUCCESS);
	want_server_msgs = 1;
	progress_until(server_got);
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
	assert_int_equal(doca_pe_get_notification_handle(F->m.pe, &handle), DOCA_SUCCESS);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, handle, &ev), 0);
	while (doca_pe_progress(F->m.pe) != 0)
		;
	assert_int_equal(doca_pe_request_notification(F->m.pe), DOCA_SUCCESS);
	assert_int_equal(epoll_wait(ep, &ev, 1, 0), 0);

	assert_int_equal(doca_comch_client_create(F->m.host, "wake", &F->client), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(client_pe, doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(F->client)), DOCA_ERROR_IN_PROGRESS);
	assert_true(handle_readable(ep, F->m.pe)); /* the new client, before any server progress */
	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	     !client_running() && !ferry_test_expired(until);) {
		doca_pe_progress(F->m.pe);
		doca_pe_progress(client_pe);
	}
	assert_true(client_running());

	while (doca_pe_progress(F->m.pe) != 0)
		;
	assert_int_equal(doca_pe_request_notification(F->m.pe), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_stop(doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
	assert_true(handle_readable(ep, F->m.pe)); /* the BYE of the leaving client */
	FERRY_PROGRESS_UNTIL(F->m.pe, F->disconnects > 0, FERRY_TEST_WAIT_MS);
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
	progress_until(client_left_running);
	assert_true(ferry_test_log_has("the server ended the connection"));
	assert_int_equal(F->disconnects, 0); /* the server's own disconnect raises no event */
	assert_int_equal(((struct doca_comch_server *)F->server)->num_conns, 0);
	/* the task outlived its connection: submit refuses it; once freed, the client reaches IDLE */
	assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(task)), DOCA_ERROR_BAD_STATE);
	doca_task_free(doca_comch_task_send_as_task(task));
	progress_until(client_idle);
}

static void test_stop_flushes_backlog(void **state)
{
	(void)state;
	connect_pair("flush");
	/* Fill the socket without progressing the server: later sends wait in the backlog. */
	for (int i = 0; i < 64; i++)
		client_send("0123456789abcdef0123456789abcdef", 32);
	ferry_test_stop_idle(F->m.pe, doca_comch_client_as_ctx(F->client));
	assert_int_equal(F->sent_ok + F->sent_err, 64);
}

/* FERRY_FAULT's action=drop: the client's third send drops its connection; both sides see a lost peer. */
static void test_fault_drop_connection(void **state)
{
	(void)state;
	ferry_fault_init(); /* the environment's plan (none) first, so it does not replace the test's */
	assert_int_equal(ferry_fault_install("comch_client.connection:after=2:action=drop"), DOCA_SUCCESS);
	connect_pair("fault-drop");
	client_send("one", 3);
	client_send("two", 3);
	want_server_msgs = 2;
	progress_until(server_got);
	client_send("three", 5);
	progress_until(client_left_running);
	FERRY_PROGRESS_UNTIL(F->m.pe, F->disconnects > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(F->disconnects, 1);
	assert_int_equal(F->server_msgs, 2);
	assert_int_equal(F->sent_ok, 2);
	assert_int_equal(F->sent_err, 1);
	assert_true(ferry_test_log_has("dropped at send 3 (FERRY_FAULT)"));
	progress_until(client_idle);
	assert_int_equal(ferry_fault_install(NULL), DOCA_SUCCESS);
}

/* ---- rogue peers ---- */

static int rogue_connect(const char *name)
{
	struct ferry_link_addr addr;
	const struct doca_devinfo *host = doca_dev_as_devinfo(F->m.host);
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

	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS); !ferry_test_expired(until);) {
		size_t len = 0;
		doca_error_t err;

		doca_pe_progress(F->m.pe);
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
	const struct doca_devinfo *host = doca_dev_as_devinfo(F->m.host);
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
	FERRY_PROGRESS_UNTIL(F->m.pe, F->connects > 0, FERRY_TEST_WAIT_MS);
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
	assert_int_equal(ferry_test_ctx_state(doca_comch_server_as_ctx(F->server)), DOCA_CTX_STATE_RUNNING);
	make_client("guarded");
	progress_until(client_running);
	client_send("still here", 10);
	want_server_msgs = 1;
	progress_until(server_got);
}

static void test_second_server_same_name_refused(void **state)
{
	struct doca_comch_server *twin = NULL;

	(void)state;
	make_server("twin");
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, "twin", &twin), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_server_as_ctx(twin)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(twin)), DOCA_ERROR_ALREADY_EXIST);
	assert_true(ferry_test_log_has("another server already listens under this name"));
	assert_int_equal(ferry_test_ctx_state(doca_comch_server_as_ctx(twin)), DOCA_CTX_STATE_IDLE);
	assert_int_equal(doca_comch_server_destroy(twin), DOCA_SUCCESS);
}

/* A server that stops tells its clients: each leaves RUNNING with a clear line. */
static void test_server_stop_ends_clients(void **state)
{
	(void)state;
	connect_pair("stopping");
	ferry_test_stop_idle(F->m.pe, doca_comch_server_as_ctx(F->server));
	progress_until(client_idle);
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
	progress_until(client_running);
}

/*
 * Every slot of a server held by silent connections that would outlive the
 * test (anyone who can reach the socket may open them, and renew each at its
 * deadline): a client started now still connects, the oldest silent one
 * giving its place (before, the client was closed for want of room until a
 * squatter's deadline passed).
 */
static void test_silent_squatters_give_way(void **state)
{
	struct doca_comch_server *server;
	struct rlimit room;
	uint32_t slots, closed = 0;
	uint8_t got[64];
	int *fds;

	(void)state;
	setenv("FERRY_COMCH_HANDSHAKE_MS", "60000", 1);
	make_server("squat");
	server = (struct doca_comch_server *)F->server;
	slots = server->num_slots;
	/* Both ends of every squatter live in this process. */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &g_nofile), 0);
	room = g_nofile;
	if (room.rlim_cur < 2 * slots + 256) {
		room.rlim_cur = 2 * slots + 256;
		assert_true(room.rlim_cur <= room.rlim_max);
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &room), 0);
		g_nofile_lowered = true; /* restored at teardown */
	}
	fds = calloc(slots, sizeof(*fds));
	assert_non_null(fds);
	for (uint32_t i = 0; i < slots; i++)
		fds[i] = rogue_connect("squat");
	FERRY_PROGRESS_UNTIL(F->m.pe, server->num_pending == slots, FERRY_TEST_WAIT_MS);
	assert_int_equal(server->num_pending, slots);

	make_client("squat");
	progress_until(client_running);
	assert_int_equal(server->num_conns, 1);
	assert_logged("gave its place to a newer connection");
	/* Only the oldest gave way: the first squatter's socket is closed, the last one's is not. */
	for (uint32_t i = 0; i < slots; i++) {
		size_t len = 0;

		if (ferry_link_recv(fds[i], got, sizeof(got), &len) == DOCA_ERROR_CONNECTION_RESET)
			closed++;
	}
	assert_int_equal(closed, 1);
	assert_int_equal(ferry_link_recv(fds[0], got, sizeof(got), &(size_t){0}), DOCA_ERROR_CONNECTION_RESET);
	for (uint32_t i = 0; i < slots; i++)
		close(fds[i]);
	free(fds);
}

/*
 * A client its server refused, started again at once (as a program that
 * restarts whatever fails does, and the Comm Channel on NOT_FOUND): it waits
 * a second after the refusal before it connects, instead of hammering the
 * server with connections and both logs with a line each.
 */
static void test_refused_client_started_again_waits(void **state)
{
	struct doca_comch_server *server;
	struct doca_ctx *ctx;
	uint64_t until;

	(void)state;
	make_server("refusing");
	server = F->server;
	assert_int_equal(doca_comch_client_create(F->m.host, "refusing", &F->client), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_set_max_msg_size(F->client, 1024), DOCA_SUCCESS); /* the server's is 4080 */
	ctx = doca_comch_client_as_ctx(F->client);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	progress_until(client_idle);
	assert_true(ferry_test_log_has("max message size mismatch"));
	assert_int_equal(server->next_id, 1);
	assert_int_equal(doca_ctx_start(ctx), DOCA_ERROR_IN_PROGRESS);
	for (until = ferry_test_deadline(500); !ferry_test_expired(until);)
		(void)doca_pe_progress(F->m.pe);
	assert_int_equal(server->next_id, 1); /* not yet connected again */
	assert_int_equal(ferry_test_ctx_state(ctx), DOCA_CTX_STATE_STARTING);
	progress_until(client_idle); /* then it does, and is refused again */
	assert_int_equal(server->next_id, 2);
}

/*
 * What a peer can repeat at will costs a logarithmic number of lines: 512
 * rogues that send garbage and 512 that name another server, one after the
 * other, leave at most 10 lines of each rule (the 1st, 2nd, 4th, ... 512th),
 * not one each; the server keeps serving.
 */
static void test_rogue_repeats_cost_few_lines(void **state)
{
	enum { ROUNDS = 512 };
	const struct doca_devinfo *host = doca_dev_as_devinfo(F->m.host);
	uint8_t frame[FERRY_FRAME_HELLO_MAX], got[1024];
	size_t len;
	int fd;

	(void)state;
	make_server("noisy");
	len = ferry_frame_build_hello(frame, COMCH_CAP_MAX_MSG_SIZE, 64, ferry_devinfo_machine(host),
				      ferry_devinfo_name(host), "noisy2");
	for (int i = 0; i < ROUNDS; i++) {
		fd = rogue_connect("noisy"); /* a HELLO for another name: refused */
		rogue_send(fd, frame, len);
		expect_refusal(got, rogue_wait_closed(fd, got, sizeof(got)), DOCA_ERROR_NOT_FOUND);
		close(fd);
		fd = rogue_connect("noisy"); /* garbage */
		rogue_send(fd, "garbage, not a frame", 20);
		(void)rogue_wait_closed(fd, got, sizeof(got));
		close(fd);
	}
	print_message("%u refusal lines, %u bad-frame lines for %d of each\n", ferry_test_log_count("refused client"),
		      ferry_test_log_count("bad frame magic"), ROUNDS);
	assert_in_range(ferry_test_log_count("refused client"), 1, 10);
	assert_in_range(ferry_test_log_count("bad frame magic"), 1, 10);
	make_client("noisy");
	progress_until(client_running);
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
	assert_int_equal(doca_comch_producer_cap_get_max_buf_size(doca_dev_as_devinfo(F->m.host), NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_cap_get_max_buf_size(doca_dev_as_devinfo(F->m.host), &v), DOCA_SUCCESS);
	assert_true(v >= (1u << 30));
	assert_int_equal(doca_comch_consumer_cap_get_max_buf_size(doca_dev_as_devinfo(F->m.dpu), &v), DOCA_SUCCESS);
	assert_true(v >= (1u << 30));
	assert_int_equal(doca_comch_consumer_cap_get_max_imm_data_len(doca_dev_as_devinfo(F->m.dpu), &v), DOCA_SUCCESS);
	assert_int_equal(v, 32);
	assert_int_equal(doca_comch_consumer_cap_get_max_num_tasks(doca_dev_as_devinfo(F->m.dpu), &v), DOCA_SUCCESS);
	assert_true(v >= 1024);
	assert_int_equal(doca_comch_producer_cap_get_max_num_tasks(doca_dev_as_devinfo(F->m.dpu), &v), DOCA_SUCCESS);
	assert_true(v >= 1024);
	assert_int_equal(doca_comch_producer_cap_is_supported(doca_dev_as_devinfo(F->m.host)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_cap_is_supported(doca_dev_as_devinfo(F->m.dpu)), DOCA_SUCCESS);
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
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, name, &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_ok, send_err, depth), DOCA_SUCCESS);
	assert_int_equal(
		doca_comch_server_event_connection_status_changed_register(F->server, on_connect, on_disconnect),
		DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_create(F->m.host, name, &F->client), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_task_send_set_conf(F->client, send_ok, send_err, depth), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_event_consumer_register(F->client, on_new_consumer, on_expired_consumer),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(F->client)), DOCA_ERROR_IN_PROGRESS);
	progress_until(client_running);
	assert_int_equal(doca_comch_client_get_connection(F->client, cconn), DOCA_SUCCESS);
}

/*
 * A consumer on the server's connection, a producer on the client's: the
 * new-consumer event, a send that waits for a post, immediate data, sizes,
 * a send too big for the post, then the consumer going away.
 */
/*
 * A send whose buf belongs to an mmap imported from an RDMA export (here this
 * process's own export of @p mem): such a map's addresses are the exporter's,
 * reached only by DOCA RDMA tasks, so doca_task_submit refuses the send with
 * NOT_SUPPORTED and a line; @p st gets @p sbuf back.
 */
static void send_from_rdma_import_refused(struct doca_buf_inventory *inv, uint8_t *mem, size_t len,
					  struct doca_comch_producer_task_send *st, struct doca_buf *sbuf)
{
	struct doca_mmap *exported = NULL, *imported = NULL;
	struct doca_buf *rb = NULL;
	const void *desc = NULL;
	size_t desc_len = 0;

	/* The device speaks RDMA; the call also links the RDMA transport in, as a program using RDMA links it. */
	assert_int_equal(
		doca_rdma_cap_transport_type_is_supported(doca_dev_as_devinfo(F->m.host), DOCA_RDMA_TRANSPORT_TYPE_RC),
		DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create(&exported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(exported, mem, len), DOCA_SUCCESS);
	assert_int_equal(
		doca_mmap_set_permissions(exported, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ),
		DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(exported, F->m.host), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(exported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(exported, F->m.host, &desc, &desc_len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, desc_len, F->m.host, &imported), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, imported, mem, 100, &rb), DOCA_SUCCESS);
	doca_comch_producer_task_send_set_buf(st, rb);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_ERROR_NOT_SUPPORTED);
	assert_true(ferry_test_log_has("imported from an RDMA export"));
	doca_comch_producer_task_send_set_buf(st, sbuf);
	(void)doca_buf_dec_refcount(rb, NULL);
	assert_int_equal(doca_mmap_destroy(imported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_stop(exported), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(exported), DOCA_SUCCESS);
}

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

	cm = fast_mmap(cmem, LEN, F->m.dpu);
	pm = fast_mmap(pmem, LEN, F->m.host);
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
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_consumer_as_ctx(c)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(ferry_test_ctx_state(doca_comch_consumer_as_ctx(c)), DOCA_CTX_STATE_STARTING);
	assert_int_equal(doca_comch_consumer_set_imm_data_len(c, 8), DOCA_ERROR_BAD_STATE);
	(void)doca_pe_progress(F->m.pe);
	assert_int_equal(ferry_test_ctx_state(doca_comch_consumer_as_ctx(c)), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(doca_comch_consumer_get_id(c, &cid), DOCA_SUCCESS);
	progress_until(consumer_seen);
	assert_int_equal(g_remote_id, cid);

	/* producer on the client side; its first send waits for a post */
	assert_int_equal(doca_comch_producer_create(cconn, &p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_get_id(p, &pid), DOCA_SUCCESS);
	assert_int_not_equal(pid, 0);
	assert_int_equal(doca_comch_producer_task_send_set_conf(p, prod_ok, prod_err, 4), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, pm, pmem, 1000, &sbuf), DOCA_SUCCESS);
	for (int i = 0; i < 32; i++)
		imm[i] = (uint8_t)(0xA0 + i);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, imm, 33, cid, &st),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, imm, 12, cid, &st), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_get_consumer_id(st), cid);
	assert_int_equal(doca_comch_producer_task_send_get_imm_data_len(st), 12);
	assert_ptr_equal(doca_comch_producer_task_send_get_buf(st), sbuf);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	for (int i = 0; i < 200; i++)
		(void)doca_pe_progress(F->m.pe);
	assert_int_equal(g_send_ok + g_send_err, 0); /* no posted buffer yet: the send waits */

	assert_int_equal(doca_buf_inventory_buf_get_by_addr(inv, cm, cmem, 4096, &rbuf), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(c, rbuf, &rt), DOCA_SUCCESS);
	assert_ptr_equal(doca_comch_consumer_task_post_recv_get_buf(rt), rbuf);
	assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)), DOCA_SUCCESS);
	g_want_recv = 1;
	progress_until(recv_count_reached);
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
	FERRY_PROGRESS_UNTIL(F->m.pe, g_send_err > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_send_err, 1);
	assert_int_equal(g_recv_ok, 0); /* the buffer stays posted */
	assert_int_equal(g_last_send_status, DOCA_ERROR_INVALID_VALUE);

	/* larger than the posted 4096: TOO_BIG, the post stays for the next send */
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, pm, pmem, 8192, &big), DOCA_SUCCESS);
	doca_comch_producer_task_send_set_buf(st, big);
	doca_comch_producer_task_send_set_imm_data(st, NULL, 0);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	g_send_err = 0;
	FERRY_PROGRESS_UNTIL(F->m.pe, g_send_err > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_send_err, 1);
	assert_int_equal(g_last_send_status, DOCA_ERROR_TOO_BIG);

	/* an unknown consumer id: NOT_FOUND */
	doca_comch_producer_task_send_set_consumer_id(st, cid + 1000);
	doca_comch_producer_task_send_set_buf(st, sbuf);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	g_send_err = 0;
	FERRY_PROGRESS_UNTIL(F->m.pe, g_send_err > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_last_send_status, DOCA_ERROR_NOT_FOUND);

	doca_comch_producer_task_send_set_consumer_id(st, cid);
	send_from_rdma_import_refused(inv, pmem, LEN, st, sbuf);

	/* the consumer stops: its post is flushed, the producer's side sees it expire */
	assert_int_equal(doca_ctx_stop(doca_comch_consumer_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
	FERRY_PROGRESS_UNTIL(F->m.pe, g_recv_err > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_recv_err, 1);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(rt));
	ferry_test_stop_idle(F->m.pe, doca_comch_consumer_as_ctx(c));
	progress_until(consumer_expired);
	doca_comch_producer_task_send_set_consumer_id(st, cid);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	g_send_err = 0;
	FERRY_PROGRESS_UNTIL(F->m.pe, g_send_err > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_last_send_status, DOCA_ERROR_NOT_FOUND);

	doca_task_free(doca_comch_producer_task_send_as_task(st));
	ferry_test_stop_idle(F->m.pe, doca_comch_producer_as_ctx(p));
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
	const struct doca_devinfo *host = doca_dev_as_devinfo(F->m.host);
	uint8_t frame[FERRY_FRAME_HELLO_MAX];
	unsigned before = F->connects;
	int fd = rogue_connect(name);
	size_t len = ferry_frame_build_hello(frame, COMCH_CAP_MAX_MSG_SIZE, 64, ferry_devinfo_machine(host),
					     ferry_devinfo_name(host), name);

	rogue_send(fd, frame, len);
	FERRY_PROGRESS_UNTIL(F->m.pe, F->connects != before, FERRY_TEST_WAIT_MS);
	assert_int_equal(F->connects, before + 1);
	return fd;
}

/* Read frames from the rogue socket (progressing the server) until one of @p type comes. */
static void rogue_read(int fd, enum ferry_frame_type type, uint8_t *buf, size_t cap, struct ferry_frame *f)
{
	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS); !ferry_test_expired(until);) {
		size_t len = 0;
		const char *why;

		doca_pe_progress(F->m.pe);
		if (ferry_link_recv(fd, buf, cap, &len) == DOCA_SUCCESS &&
		    ferry_frame_parse(buf, len, COMCH_CAP_MAX_MSG_SIZE, f, &why) == DOCA_SUCCESS && f->type == type)
			return;
		usleep(50);
	}
	fail_msg("no frame of type %d came", (int)type);
}

/* A server with consumer events, for rogue peers to talk to. */
static void rogue_server(const char *name)
{
	g_new_consumers = g_expired_consumers = g_recv_ok = g_recv_err = g_send_ok = g_send_err = 0;
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, name, &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_ok, send_err, 8), DOCA_SUCCESS);
	assert_int_equal(
		doca_comch_server_event_connection_status_changed_register(F->server, on_connect, on_disconnect),
		DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_consumer_register(F->server, on_new_consumer, on_expired_consumer),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
}

/*
 * The fixture of the rogue-frame tests below: a server with consumer events
 * ("rogue-fast") and what either side of a fast path needs, made afresh for
 * each test. Each test is one rogue behaviour on a connection of its own; the
 * server must end that connection with a line naming the lie.
 */
struct rogue_fast {
	uint8_t *mem;         /* 8 KiB: the rogue consumer's 4 KiB, then the server consumer's */
	uint8_t *pmem;        /* 64 bytes of 0x77, what the server's producer sends */
	struct doca_mmap *pm; /* pmem */
	struct doca_buf_inventory *pinv;
	struct doca_buf *sbuf;        /* pmem, for the server's producer */
	struct doca_mmap *mm, *rm;    /* the rogue consumer's memory and post ring, exported */
	struct comch_ring_hdr *ring;  /* that post ring, of 4 */
	const void *desc, *ring_desc; /* their export descriptors */
	size_t desc_len, ring_desc_len;
	struct doca_mmap *sm; /* the server consumer's memory */
	struct doca_buf_inventory *inv;
	struct doca_buf *buf;         /* 1 KiB of it, for its one post */
	struct doca_mmap *dm;         /* the rogue's completion ring, exported */
	struct comch_ring_hdr *dring; /* that completion ring, of 2 */
	const void *dring_desc;
	size_t dring_desc_len;
};

static struct rogue_fast *R;

static int rogue_fast_setup(void **state)
{
	(void)setup(state);
	R = calloc(1, sizeof(*R));
	assert_non_null(R);
	R->mem = calloc(1, 8192);
	R->pmem = malloc(64);
	assert_non_null(R->mem);
	assert_non_null(R->pmem);
	memset(R->pmem, 0x77, 64);
	R->pm = fast_mmap(R->pmem, 64, F->m.dpu);
	assert_int_equal(doca_buf_inventory_create(2, &R->pinv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(R->pinv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(R->pinv, R->pm, R->pmem, 64, &R->sbuf), DOCA_SUCCESS);

	/* The rogue's consumer: a real export and a ring of the rogue's own making. */
	R->mm = fast_mmap(R->mem, 4096, F->m.host);
	assert_int_equal(doca_mmap_export_pci(R->mm, F->m.host, &R->desc, &R->desc_len), DOCA_SUCCESS);
	R->ring = ferry_mem_alloc_shared(comch_ring_bytes(4));
	assert_non_null(R->ring);
	R->rm = fast_mmap(R->ring, comch_ring_bytes(4), F->m.host);
	assert_int_equal(doca_mmap_export_pci(R->rm, F->m.host, &R->ring_desc, &R->ring_desc_len), DOCA_SUCCESS);

	/* The server's consumer: one buffer; the completion ring the rogue answers it with. */
	R->sm = fast_mmap(R->mem + 4096, 4096, F->m.dpu);
	assert_int_equal(doca_buf_inventory_create(2, &R->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(R->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(R->inv, R->sm, R->mem + 4096, 1024, &R->buf), DOCA_SUCCESS);
	R->dring = ferry_mem_alloc_shared(comch_done_ring_bytes(2));
	assert_non_null(R->dring);
	R->dm = fast_mmap(R->dring, comch_done_ring_bytes(2), F->m.host);
	assert_int_equal(doca_mmap_export_pci(R->dm, F->m.host, &R->dring_desc, &R->dring_desc_len), DOCA_SUCCESS);

	rogue_server("rogue-fast");
	return 0;
}

static int rogue_fast_teardown(void **state)
{
	assert_int_equal(doca_mmap_destroy(R->dm), DOCA_SUCCESS);
	assert_int_equal(ferry_mem_free_shared(R->dring), 0);
	(void)doca_buf_dec_refcount(R->buf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(R->inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(R->sm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(R->mm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(R->rm), DOCA_SUCCESS);
	(void)doca_buf_dec_refcount(R->sbuf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(R->pinv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(R->pm), DOCA_SUCCESS);
	assert_int_equal(ferry_mem_free_shared(R->ring), 0);
	free(R->pmem);
	free(R->mem);
	free(R);
	R = NULL;
	return teardown(state);
}

/* ---- frames about consumers ---- */

static void test_rogue_consumer_down_never_up(void **state)
{
	uint8_t frame[FERRY_FRAME_UP_MAX], got[4096];
	int fd;

	(void)state;
	fd = rogue_hello("rogue-fast");
	rogue_send(fd, frame, ferry_frame_build_consumer_down(frame, 5));
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_true(ferry_test_log_has("CONSUMER_DOWN for a consumer that is not up"));
}

static void test_rogue_consumer_up_garbage_descriptors(void **state)
{
	uint8_t frame[FERRY_FRAME_UP_MAX], got[4096], junk[20];
	struct ferry_frame_consumer_up up;
	int fd;

	(void)state;
	fd = rogue_hello("rogue-fast");
	memset(junk, 0x33, sizeof(junk));
	up = (struct ferry_frame_consumer_up){.consumer_id = 5,
					      .ring_cap = 4,
					      .desc = junk,
					      .desc_len = sizeof(junk),
					      .ring_desc = junk,
					      .ring_desc_len = sizeof(junk)};
	rogue_send(fd, frame, ferry_frame_build_consumer_up(frame, &up));
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_true(ferry_test_log_has("cannot be imported"));
	assert_int_equal(g_new_consumers, 0);
}

/* ---- the rogue's consumer: a post ring that lies to the server's producer ---- */

/*
 * A rogue connection that announces consumer 5 (the fixture's export and post
 * ring, read from its start), and a started producer of the server's there
 * whose one task sends pmem to it.
 */
static int rogue_consumer_up(struct doca_comch_producer **p, struct doca_comch_producer_task_send **st)
{
	uint8_t frame[FERRY_FRAME_UP_MAX];
	struct ferry_frame_consumer_up up = {.consumer_id = 5,
					     .ring_cap = 4,
					     .desc = R->desc,
					     .desc_len = (uint16_t)R->desc_len,
					     .ring_desc = R->ring_desc,
					     .ring_desc_len = (uint16_t)R->ring_desc_len};
	int fd = rogue_hello("rogue-fast");

	atomic_store(&R->ring->head, 0);
	rogue_send(fd, frame, ferry_frame_build_consumer_up(frame, &up));
	FERRY_PROGRESS_UNTIL(F->m.pe, g_new_consumers != 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_new_consumers, 1);
	assert_int_equal(doca_comch_producer_create(F->server_conn, p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_set_conf(*p, prod_ok, prod_err, 1), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_producer_as_ctx(*p)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_producer_as_ctx(*p)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(*p, R->sbuf, NULL, 0, 5, st), DOCA_SUCCESS);
	g_send_ok = g_send_err = 0;
	return fd;
}

/* The ring as it stands is a lie: the send fails NOT_CONNECTED and the connection ends with @p line. */
static void expect_send_refused(int fd, struct doca_comch_producer *p, struct doca_comch_producer_task_send *st,
				const char *line)
{
	uint8_t got[4096];

	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	FERRY_PROGRESS_UNTIL(F->m.pe, g_send_err > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_send_err, 1);
	assert_int_equal(g_last_send_status, DOCA_ERROR_NOT_CONNECTED);
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_true(ferry_test_log_has(line));
	doca_task_free(doca_comch_producer_task_send_as_task(st));
	ferry_test_stop_idle(F->m.pe, doca_comch_producer_as_ctx(p));
	assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
}

/* A good post first (the data lands), then one that runs past the end of the export. */
static void test_rogue_post_past_the_end(void **state)
{
	struct comch_post *entries = (struct comch_post *)(R->ring + 1);
	struct doca_comch_producer *p = NULL;
	struct doca_comch_producer_task_send *st = NULL;
	int fd;

	(void)state;
	fd = rogue_consumer_up(&p, &st);
	entries[0] = (struct comch_post){.addr = (uint64_t)(uintptr_t)R->mem, .len = 64, .slot = 0, .generation = 1};
	atomic_store(&R->ring->head, 1);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	FERRY_PROGRESS_UNTIL(F->m.pe, g_send_ok > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_send_ok, 1);
	assert_memory_equal(R->mem, R->pmem, 64);
	entries[1] = (struct comch_post){.addr = (uint64_t)(uintptr_t)R->mem + 4096 - 63, .len = 64};
	atomic_store(&R->ring->head, 2);
	expect_send_refused(fd, p, st, "outside the consumer's exported memory");
	assert_memory_not_equal(R->mem + 4096 - 63, R->pmem, 63); /* nothing was written past the end */
}

static void test_rogue_post_below_the_start(void **state)
{
	struct comch_post *entries = (struct comch_post *)(R->ring + 1);
	struct doca_comch_producer *p = NULL;
	struct doca_comch_producer_task_send *st = NULL;
	int fd;

	(void)state;
	fd = rogue_consumer_up(&p, &st);
	entries[0] = (struct comch_post){.addr = (uint64_t)(uintptr_t)R->mem - 64, .len = 64};
	atomic_store(&R->ring->head, 1);
	expect_send_refused(fd, p, st, "outside the consumer's exported memory");
}

/* A head that claims more posts than the ring holds. */
static void test_rogue_post_head_beyond_ring(void **state)
{
	struct doca_comch_producer *p = NULL;
	struct doca_comch_producer_task_send *st = NULL;
	int fd;

	(void)state;
	fd = rogue_consumer_up(&p, &st);
	atomic_store(&R->ring->head, 5);
	expect_send_refused(fd, p, st, "claims more posts");
}

/* ---- the server's consumer: DONE frames that lie ---- */

/*
 * A rogue connection on which a consumer of the server's (one task, the
 * fixture's 1 KiB buffer posted) announces itself; the rogue answers its
 * CONSUMER_UP with the fixture's completion ring, declared of @p ring_cap
 * entries and empty.
 */
static int rogue_producer_up(uint32_t ring_cap, struct doca_comch_consumer **c,
			     struct doca_comch_consumer_task_post_recv **rt)
{
	uint8_t frame[FERRY_FRAME_DONE_RING_MAX], got[4096];
	struct ferry_frame_done_ring answer;
	struct ferry_frame f;
	int fd;

	g_recv_ok = g_recv_err = 0;
	atomic_store(&R->dring->head, 0);
	fd = rogue_hello("rogue-fast");
	assert_int_equal(doca_comch_consumer_create(F->server_conn, R->sm, c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(*c, recv_ok, recv_err, 1), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_consumer_as_ctx(*c)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(*c)), DOCA_ERROR_IN_PROGRESS);
	(void)doca_pe_progress(F->m.pe);
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(*c, R->buf, rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(*rt)), DOCA_SUCCESS);
	rogue_read(fd, FERRY_FRAME_CONSUMER_UP, got, sizeof(got), &f);
	assert_int_equal(f.u.up.ring_cap, 1);
	answer = (struct ferry_frame_done_ring){.consumer_id = f.u.up.consumer_id,
						.ring_cap = ring_cap,
						.desc = R->dring_desc,
						.desc_len = (uint16_t)R->dring_desc_len};
	rogue_send(fd, frame, ferry_frame_build_done_ring(frame, &answer));
	return fd;
}

/* The completion ring lied: the connection ends with @p line, the post fails; @p ok completed before. */
static void expect_post_failed(int fd, struct doca_comch_consumer *c, struct doca_comch_consumer_task_post_recv *rt,
			       unsigned ok, const char *line)
{
	uint8_t got[4096];

	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	FERRY_PROGRESS_UNTIL(F->m.pe, g_recv_err > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_recv_err, 1); /* the post fails: its connection ended */
	assert_int_equal(g_recv_ok, ok);
	assert_true(ferry_test_log_has(line));
	assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)), DOCA_ERROR_NOT_CONNECTED);
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(rt));
	ferry_test_stop_idle(F->m.pe, doca_comch_consumer_as_ctx(c));
	assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
}

/* A good completion first, then one of 1025 bytes into the 1 KiB post. */
static void test_rogue_done_overfills_post(void **state)
{
	struct comch_done *dones = (struct comch_done *)(R->dring + 1);
	struct doca_comch_consumer *c = NULL;
	struct doca_comch_consumer_task_post_recv *rt = NULL;
	int fd;

	(void)state;
	fd = rogue_producer_up(1, &c, &rt);
	dones[0] = (struct comch_done){.slot = 0, .generation = 1, .len = 10, .producer_id = 9};
	atomic_store(&R->dring->head, 1);
	FERRY_PROGRESS_UNTIL(F->m.pe, g_recv_ok > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_recv_ok, 1);
	assert_int_equal(g_last_recv_len, 10);
	assert_int_equal(g_last_producer, 9);
	assert_int_equal(doca_buf_reset_data_len(R->buf), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(rt)), DOCA_SUCCESS);
	dones[0] = (struct comch_done){.slot = 0, .generation = 2, .len = 1025, .producer_id = 9};
	atomic_store(&R->dring->head, 2);
	expect_post_failed(fd, c, rt, 1, "overfills it");
}

/* One completion entry that lies about the only post: the post fails, the connection ends with @p rule. */
static void expect_done_refused(struct comch_done lie, const char *rule)
{
	struct comch_done *dones = (struct comch_done *)(R->dring + 1);
	struct doca_comch_consumer *c = NULL;
	struct doca_comch_consumer_task_post_recv *rt = NULL;
	int fd = rogue_producer_up(1, &c, &rt);

	dones[0] = lie;
	atomic_store(&R->dring->head, 1);
	expect_post_failed(fd, c, rt, 0, rule);
}

/* A completion for the posted slot under a generation it never had. */
static void test_rogue_done_wrong_generation(void **state)
{
	(void)state;
	expect_done_refused((struct comch_done){.slot = 0, .generation = 7, .len = 10, .producer_id = 9}, "not posted");
}

/* A completion for a slot the consumer does not have. */
static void test_rogue_done_unknown_slot(void **state)
{
	(void)state;
	expect_done_refused((struct comch_done){.slot = 5, .generation = 1, .len = 10, .producer_id = 9}, "not posted");
}

/* A completion head two ahead on a ring of one. */
static void test_rogue_done_head_beyond_ring(void **state)
{
	struct doca_comch_consumer *c = NULL;
	struct doca_comch_consumer_task_post_recv *rt = NULL;
	int fd;

	(void)state;
	fd = rogue_producer_up(1, &c, &rt);
	atomic_store(&R->dring->head, 2);
	expect_post_failed(fd, c, rt, 0, "claims more completions");
}

/* A DONE_RING of 2 entries for a consumer whose ring has 1. */
static void test_rogue_done_ring_of_another_size(void **state)
{
	struct doca_comch_consumer *c = NULL;
	struct doca_comch_consumer_task_post_recv *rt = NULL;
	int fd;

	(void)state;
	fd = rogue_producer_up(2, &c, &rt);
	expect_post_failed(fd, c, rt, 0, "of another size");
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
	cm = fast_mmap(cmem, 4096, F->m.dpu);
	pm = fast_mmap(pmem, 4096, F->m.host);
	assert_int_equal(doca_buf_inventory_create(4, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_create(F->server_conn, cm, &c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(c, recv_ok, recv_err, 1), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_consumer_as_ctx(c)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
	progress_until(consumer_seen);
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
	FERRY_PROGRESS_UNTIL(ppe, g_send_ok + g_send_err > 0, FERRY_TEST_WAIT_MS); /* only the producer's PE */
	assert_int_equal(g_send_ok, 1);
	assert_memory_equal(cmem, pmem, 4096);
	FERRY_PROGRESS_UNTIL(F->m.pe, g_recv_ok > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_recv_ok, 1);

	doca_task_free(doca_comch_producer_task_send_as_task(st));
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(rt));
	assert_int_equal(doca_ctx_stop(doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(ppe), DOCA_SUCCESS);
	ferry_test_stop_idle(F->m.pe, doca_comch_consumer_as_ctx(c));
	assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
	(void)doca_buf_dec_refcount(rbuf, NULL);
	(void)doca_buf_dec_refcount(sbuf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(cm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(pm), DOCA_SUCCESS);
	free(cmem);
	free(pmem);
}

/* ---- fast path: the trust boundary against a rogue peer (issue 7) ---- */

/*
 * Progress the server once and read what it sent the rogue on @p fd (into
 * @p buf of @p cap bytes): DOCA_SUCCESS with a well-formed frame in @p f,
 * DOCA_ERROR_CONNECTION_RESET once the server closed it, else DOCA_ERROR_AGAIN.
 */
static doca_error_t rogue_poll_frame(int fd, uint8_t *buf, size_t cap, struct ferry_frame *f)
{
	const char *why;
	size_t len = 0;
	doca_error_t err;

	doca_pe_progress(F->m.pe);
	err = ferry_link_recv(fd, buf, cap, &len);
	if (err == DOCA_ERROR_CONNECTION_RESET)
		return err;
	if (err == DOCA_SUCCESS && ferry_frame_parse(buf, len, COMCH_CAP_MAX_MSG_SIZE, f, &why) == DOCA_SUCCESS)
		return DOCA_SUCCESS;
	return DOCA_ERROR_AGAIN;
}

/* Progress until the server closed the rogue's socket; whether a frame of @p type came first. */
static bool rogue_got_before_close(int fd, enum ferry_frame_type type)
{
	uint8_t buf[4096];
	bool seen = false;

	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS); !ferry_test_expired(until);) {
		struct ferry_frame f;
		doca_error_t err = rogue_poll_frame(fd, buf, sizeof(buf), &f);

		if (err == DOCA_ERROR_CONNECTION_RESET)
			return seen;
		if (err == DOCA_SUCCESS)
			seen = seen || f.type == type;
		usleep(50);
	}
	fail_msg("the server did not close the rogue connection");
	return seen;
}

static struct doca_mmap *access_mmap(void *mem, size_t len, struct doca_dev *dev, uint32_t access)
{
	struct doca_mmap *m = NULL;

	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, mem, len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, access), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	return m;
}

#define ROGUE_MEM 8192u

/* A consumer the rogue claims to have: memory and a post ring it exports itself. */
struct rogue_consumer {
	uint8_t *mem;                /* shareable, ROGUE_MEM bytes */
	struct comch_ring_hdr *ring; /* its post ring */
	struct doca_mmap *mm, *rm;
	const void *desc, *ring_desc;
	size_t desc_len, ring_desc_len;
	uint32_t cap;
};

static void rogue_consumer_open(struct rogue_consumer *rc, uint32_t cap, uint32_t mem_access)
{
	memset(rc, 0, sizeof(*rc));
	rc->cap = cap;
	rc->mem = ferry_mem_alloc_shared(ROGUE_MEM);
	rc->ring = ferry_mem_alloc_shared(comch_ring_bytes(cap));
	assert_non_null(rc->mem);
	assert_non_null(rc->ring);
	rc->mm = access_mmap(rc->mem, ROGUE_MEM, F->m.host, mem_access);
	rc->rm = access_mmap(rc->ring, comch_ring_bytes(cap), F->m.host, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	assert_int_equal(doca_mmap_export_pci(rc->mm, F->m.host, &rc->desc, &rc->desc_len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_pci(rc->rm, F->m.host, &rc->ring_desc, &rc->ring_desc_len), DOCA_SUCCESS);
}

static void rogue_consumer_close(struct rogue_consumer *rc)
{
	assert_int_equal(doca_mmap_destroy(rc->mm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(rc->rm), DOCA_SUCCESS);
	assert_int_equal(ferry_mem_free_shared(rc->mem), 0);
	assert_int_equal(ferry_mem_free_shared(rc->ring), 0);
}

/* CONSUMER_UP for @p rc under @p id, naming @p desc as its memory and @p ring_desc as its ring. */
static void rogue_up_with(int fd, uint32_t id, uint32_t cap, const void *desc, size_t desc_len, const void *ring_desc,
			  size_t ring_desc_len)
{
	uint8_t frame[FERRY_FRAME_UP_MAX];
	struct ferry_frame_consumer_up up = {.consumer_id = id,
					     .ring_cap = cap,
					     .desc = desc,
					     .desc_len = (uint16_t)desc_len,
					     .ring_desc = ring_desc,
					     .ring_desc_len = (uint16_t)ring_desc_len};

	rogue_send(fd, frame, ferry_frame_build_consumer_up(frame, &up));
}

static void rogue_up(int fd, const struct rogue_consumer *rc, uint32_t id)
{
	rogue_up_with(fd, id, rc->cap, rc->desc, rc->desc_len, rc->ring_desc, rc->ring_desc_len);
}

/* The rogue posts [off, off + len) of its memory at position @p pos of its ring, then publishes the head. */
static void rogue_post(struct rogue_consumer *rc, uint64_t pos, uint32_t off, uint32_t len)
{
	struct comch_post *e = (struct comch_post *)(rc->ring + 1) + (pos & (rc->cap - 1));

	e->addr = (uint64_t)(uintptr_t)(rc->mem + off);
	e->len = len;
	e->slot = (uint32_t)pos;
	e->generation = (uint32_t)pos + 1;
	atomic_store_explicit(&rc->ring->head, pos + 1, memory_order_release);
}

/* Progress until the server announced @p want consumers of the peer. */
static void wait_new_consumers(unsigned want)
{
	FERRY_PROGRESS_UNTIL(F->m.pe, g_new_consumers >= want, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_new_consumers, want);
}

/* A started producer on the server's connection. */
static struct doca_comch_producer *server_producer(uint32_t tasks)
{
	struct doca_comch_producer *p = NULL;

	assert_int_equal(doca_comch_producer_create(F->server_conn, &p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_set_conf(p, prod_ok, prod_err, tasks), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	return p;
}

static void producer_done(struct doca_comch_producer *p)
{
	ferry_test_stop_idle(F->m.pe, doca_comch_producer_as_ctx(p));
	assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
}

/* Submit @p t and progress until it completed either way; returns its status. */
static doca_error_t send_and_wait(struct doca_comch_producer_task_send *t)
{
	unsigned before = g_send_ok + g_send_err;

	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(t)), DOCA_SUCCESS);
	FERRY_PROGRESS_UNTIL(F->m.pe, g_send_ok + g_send_err != before, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_send_ok + g_send_err, before + 1);
	return g_last_send_status;
}

/*
 * Case 1: the memory of a CONSUMER_UP is a read-only export. Producers would
 * write into it (a SIGSEGV when it is mapped read-only), so the server refuses
 * it: the connection ends with a line, no new-consumer event, no DONE_RING, no
 * fd left behind, not a byte written. The same consumer exported read-write
 * is then accepted and served, so the permission was the only reason.
 */
static void test_rogue_read_only_consumer_memory(void **state)
{
	struct rogue_consumer ro, rw;
	struct doca_comch_producer *p;
	struct doca_comch_producer_task_send *st = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_buf *sbuf = NULL;
	struct doca_mmap *pm;
	uint8_t pmem[64];
	int fd, fds;

	(void)state;
	rogue_server("rogue-ro");
	rogue_consumer_open(&ro, 4, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	memset(ro.mem, 0x5a, ROGUE_MEM);
	rogue_post(&ro, 0, 0, 64); /* a post waiting, as if a producer could fill it */
	fds = ferry_test_count_fds();
	fd = rogue_hello("rogue-ro");
	rogue_up(fd, &ro, 5);
	assert_false(rogue_got_before_close(fd, FERRY_FRAME_DONE_RING));
	close(fd);
	assert_true(ferry_test_log_has("CONSUMER_UP names a read-only export"));
	assert_int_equal(g_new_consumers, 0);
	assert_int_equal(F->disconnects, 1);
	assert_int_equal(((struct doca_comch_server *)F->server)->num_conns, 0);
	for (size_t i = 0; i < ROGUE_MEM; i++)
		assert_int_equal(ro.mem[i], 0x5a);
	assert_int_equal(atomic_load(&ro.ring->claimed), 0); /* no post was taken */
	assert_int_equal(ferry_test_fds_settle(F->m.pe, fds), fds);

	rogue_consumer_open(&rw, 4, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	fd = rogue_hello("rogue-ro");
	rogue_up(fd, &rw, 5);
	wait_new_consumers(1);
	p = server_producer(1);
	memset(pmem, 0x3c, sizeof(pmem));
	pm = fast_mmap(pmem, sizeof(pmem), F->m.dpu);
	assert_int_equal(doca_buf_inventory_create(1, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, pm, pmem, sizeof(pmem), &sbuf), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, NULL, 0, 5, &st), DOCA_SUCCESS);
	rogue_post(&rw, 0, 128, 64);
	assert_int_equal(send_and_wait(st), DOCA_SUCCESS);
	assert_memory_equal(rw.mem + 128, pmem, sizeof(pmem));
	doca_task_free(doca_comch_producer_task_send_as_task(st));
	producer_done(p);
	close(fd);
	(void)doca_buf_dec_refcount(sbuf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(pm), DOCA_SUCCESS);
	rogue_consumer_close(&rw);
	rogue_consumer_close(&ro);
}

/*
 * Case 4: 64 consumers per connection, then one more. Each of the 64 costs the
 * server imports and a completion ring; the 65th ends the connection, and once
 * it ended every fd those consumers took is closed again.
 */
static void test_rogue_consumer_flood(void **state)
{
	struct rogue_consumer rc;
	struct ferry_frame f;
	uint8_t got[4096];
	int fd, fds;

	(void)state;
	rogue_server("rogue-flood");
	rogue_consumer_open(&rc, 4, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	fds = ferry_test_count_fds();
	fd = rogue_hello("rogue-flood");
	for (uint32_t id = 1; id <= COMCH_FAST_MAX_CONSUMERS; id++) {
		rogue_up(fd, &rc, id);
		rogue_read(fd, FERRY_FRAME_DONE_RING, got, sizeof(got), &f);
		assert_int_equal(f.u.done_ring.consumer_id, id);
		assert_int_equal(g_new_consumers, id);
	}
	assert_int_equal(F->server_conn->hub->num_remotes, COMCH_FAST_MAX_CONSUMERS);
	assert_true(ferry_test_count_fds() > fds + (int)COMCH_FAST_MAX_CONSUMERS); /* they do cost fds */
	rogue_up(fd, &rc, COMCH_FAST_MAX_CONSUMERS + 1);
	assert_false(rogue_got_before_close(fd, FERRY_FRAME_DONE_RING));
	close(fd);
	assert_true(ferry_test_log_has("CONSUMER_UP beyond the consumers a connection may have"));
	assert_int_equal(g_new_consumers, COMCH_FAST_MAX_CONSUMERS);
	assert_int_equal(F->disconnects, 1);
	assert_int_equal(ferry_test_fds_settle(F->m.pe, fds), fds);
	rogue_consumer_close(&rc);
}

/*
 * Ring entries per connection: 16 consumers of the largest ring use up the
 * budget; a 17th, even of one entry, ends the connection.
 */
static void test_rogue_ring_budget(void **state)
{
	struct rogue_consumer rc;
	struct ferry_frame f;
	uint8_t got[4096];
	uint32_t n = COMCH_FAST_RING_BUDGET / FERRY_FRAME_RING_MAX;
	int fd, fds;

	(void)state;
	rogue_server("rogue-budget");
	rogue_consumer_open(&rc, FERRY_FRAME_RING_MAX, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	fds = ferry_test_count_fds();
	fd = rogue_hello("rogue-budget");
	for (uint32_t id = 1; id <= n; id++) {
		rogue_up(fd, &rc, id);
		rogue_read(fd, FERRY_FRAME_DONE_RING, got, sizeof(got), &f);
		assert_int_equal(f.u.done_ring.ring_cap, FERRY_FRAME_RING_MAX);
	}
	rogue_up_with(fd, n + 1, 1, rc.desc, rc.desc_len, rc.ring_desc, rc.ring_desc_len);
	assert_false(rogue_got_before_close(fd, FERRY_FRAME_DONE_RING));
	close(fd);
	assert_true(ferry_test_log_has("CONSUMER_UP beyond the ring entries a connection may have"));
	assert_int_equal(g_new_consumers, n);
	assert_int_equal(ferry_test_fds_settle(F->m.pe, fds), fds);
	rogue_consumer_close(&rc);
}

/*
 * A peer that announces a consumer and withdraws it, over and over, and never
 * reads its socket: each CONSUMER_UP is answered with a DONE_RING, which waits
 * in this side's memory once the socket is full. That wait is bounded: the
 * connection ends with a line naming the rule, long before the rounds run
 * out, instead of growing for as long as the peer goes on.
 */
static unsigned wakeups_in(struct doca_pe *pe, unsigned ms);

static void test_rogue_never_reads(void **state)
{
	enum { ROUNDS = 4096 };
	struct rogue_consumer rc;
	uint8_t frame[FERRY_FRAME_DOWN_LEN];
	unsigned rounds, wakes = UINT_MAX;
	int fd, fds;

	(void)state;
	rogue_server("rogue-deaf");
	rogue_consumer_open(&rc, 4, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	fds = ferry_test_count_fds();
	fd = rogue_hello("rogue-deaf");
	for (rounds = 0; rounds < ROUNDS && F->disconnects == 0; rounds++) {
		rogue_up(fd, &rc, 1);
		FERRY_PROGRESS_UNTIL(F->m.pe, g_new_consumers > rounds || F->disconnects != 0, FERRY_TEST_WAIT_MS);
		if (F->disconnects != 0)
			break;
		assert_int_equal(g_new_consumers, rounds + 1);
		rogue_send(fd, frame, ferry_frame_build_consumer_down(frame, 1));
		FERRY_PROGRESS_UNTIL(F->m.pe, g_expired_consumers > rounds || F->disconnects != 0, FERRY_TEST_WAIT_MS);
		if (wakes == UINT_MAX && F->server_conn != NULL && F->server_conn->hub->num_out > 0) {
			/* The first frame waits for room: the PE sleeps meanwhile, it is not woken at every request. */
			wakes = wakeups_in(F->m.pe, 100);
			print_message("%u wake-ups in 100 ms while a frame waits for the rogue to read\n", wakes);
		}
	}
	assert_true(wakes <= 2);
	assert_int_equal(F->disconnects, 1);
	assert_true(rounds < ROUNDS);
	assert_true(ferry_test_log_has("the peer leaves its socket unread"));
	close(fd);
	assert_int_equal(ferry_test_fds_settle(F->m.pe, fds), fds);
	rogue_consumer_close(&rc);
}

/* A HELLO on a fresh socket: the socket once the server welcomed it, -1 when either side had no fd for it. */
static int rogue_try_hello(const char *name)
{
	const struct doca_devinfo *host = doca_dev_as_devinfo(F->m.host);
	uint8_t frame[FERRY_FRAME_HELLO_MAX];
	struct ferry_link_addr addr;
	unsigned before = F->connects;
	int fd = -1;
	size_t len;

	assert_int_equal(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), ferry_devinfo_machine(host),
					       ferry_devinfo_name(host), name),
			 DOCA_SUCCESS);
	if (ferry_link_connect(&addr, &fd) != DOCA_SUCCESS)
		return -1;
	len = ferry_frame_build_hello(frame, COMCH_CAP_MAX_MSG_SIZE, 64, ferry_devinfo_machine(host),
				      ferry_devinfo_name(host), name);
	rogue_send(fd, frame, len);
	FERRY_PROGRESS_UNTIL(F->m.pe, F->connects != before, 1000);
	if (F->connects == before) {
		close(fd);
		return -1;
	}
	return fd;
}

/* CONSUMER_UP of @p rc under @p id: true once its DONE_RING came, false when the server ended the connection. */
static bool rogue_up_taken(int fd, const struct rogue_consumer *rc, uint32_t id)
{
	uint8_t buf[4096];

	rogue_up(fd, rc, id);
	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS); !ferry_test_expired(until);) {
		struct ferry_frame f;
		doca_error_t err = rogue_poll_frame(fd, buf, sizeof(buf), &f);

		if (err == DOCA_ERROR_CONNECTION_RESET)
			return false;
		if (err == DOCA_SUCCESS && f.type == FERRY_FRAME_DONE_RING && f.u.done_ring.consumer_id == id)
			return true;
		usleep(50);
	}
	fail_msg("the server neither answered CONSUMER_UP %u nor ended the connection", id);
	return false;
}

/*
 * Each consumer a peer announces costs this process about three fds (two
 * imports and a completion ring); a connection may have 64, a server 512
 * connections: far more than a process may open. A rogue that adds
 * connections of 16 consumers each, for as long as the server takes them,
 * must leave the process room (at least a quarter of its open-file limit
 * here) for anything else: new clients, its own exports. The connection that
 * asks beyond the process's budget ends with a line naming the rule, and a
 * real client is still served.
 */
static void test_rogue_consumers_across_connections(void **state)
{
	enum { GROUP = 16, GROUPS_MAX = 64 };
	struct rogue_consumer rc;
	struct rlimit low;
	int fds[GROUPS_MAX], groups = 0, base, left;
	bool refused = false;

	(void)state;
	rogue_server("rogue-fds");
	rogue_consumer_open(&rc, 4, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	base = ferry_test_count_fds();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &g_nofile), 0);
	low = g_nofile;
	low.rlim_cur = (rlim_t)base + 512;
	assert_true(low.rlim_cur <= g_nofile.rlim_max);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	g_nofile_lowered = true;
	while (!refused && groups < GROUPS_MAX) {
		int fd = rogue_try_hello("rogue-fds");

		if (fd < 0)
			break; /* no fd left for a connection */
		fds[groups++] = fd;
		for (uint32_t id = 1; id <= GROUP && !refused; id++)
			refused = !rogue_up_taken(fd, &rc, id);
	}
	left = (int)low.rlim_cur - ferry_test_count_fds();
	print_message("%d connections of the rogue's consumers; %d of %d fds left\n", groups, left, (int)low.rlim_cur);
	assert_true(left >= (int)low.rlim_cur / 4);
	assert_true(ferry_test_log_has("beyond the consumers this process holds for its peers"));
	make_client("rogue-fds");
	progress_until(client_running);
	for (int i = 0; i < groups; i++)
		close(fds[i]);
	rogue_consumer_close(&rc);
}

/*
 * Submit max-size messages on @p conn until one waits for room in the socket
 * (the peer does not read); the sends that went are completed.
 */
static void fill_until_backlogged(struct comch_ep *ep, struct doca_comch_connection *conn)
{
	static uint8_t msg[COMCH_CAP_MAX_MSG_SIZE];

	while (conn->backlog.head == NULL) {
		struct doca_comch_task_send *task = NULL;

		assert_int_equal(comch_ep_task_send_alloc_init(ep, "test", conn, msg, sizeof(msg), &task),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(task)), DOCA_SUCCESS);
		while (doca_pe_progress(F->m.pe) != 0)
			;
	}
}

/* How often the armed notification handle of @p pe fires in @p ms (each time: clear and progress). */
static unsigned wakeups_in(struct doca_pe *pe, unsigned ms)
{
	struct epoll_event ev = {.events = EPOLLIN};
	doca_notification_handle_t handle;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	unsigned wakes = 0;

	assert_int_equal(doca_pe_get_notification_handle(pe, &handle), DOCA_SUCCESS);
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, handle, &ev), 0);
	for (uint64_t until = ferry_test_deadline(ms); !ferry_test_expired(until);) {
		assert_int_equal(doca_pe_request_notification(pe), DOCA_SUCCESS);
		if (epoll_wait(ep, &ev, 1, 20) == 1) {
			wakes++;
			assert_int_equal(doca_pe_clear_notification(pe, handle), DOCA_SUCCESS);
			(void)doca_pe_progress(pe);
		}
	}
	close(ep);
	return wakes;
}

/* Read and drop what waits in @p fd, progressing @p pe, until the send backlog of @p conn is gone. */
static void drain_until_flushed(int fd, const struct doca_comch_connection *conn, struct doca_pe *pe)
{
	uint8_t buf[FERRY_FRAME_HDR_LEN + COMCH_CAP_MAX_MSG_SIZE];
	uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS);

	while (conn->backlog.head != NULL && !ferry_test_expired(until)) {
		size_t len = 0;

		while (ferry_link_recv(fd, buf, sizeof(buf), &len) == DOCA_SUCCESS)
			;
		assert_true(wakeups_in(pe, 20) <= 20); /* the room it found woke it, a few times at most */
	}
	assert_null(conn->backlog.head);
}

/*
 * An event-driven program whose sends wait because the peer stopped reading
 * (a SIGSTOPped process, a rogue) sleeps until the peer reads: its PE's
 * notification handle waits for room in the socket, it does not report
 * pending work at every request (before: some 85,000 wake-ups in 200 ms, a
 * core burnt for as long as the peer stayed stopped). Then the peer reads and
 * the sends go. The server's side (a rogue client), then the client's side
 * (a rogue server that welcomes it and never reads).
 */
static void test_stopped_peer_does_not_spin(void **state)
{
	const struct doca_devinfo *host = doca_dev_as_devinfo(F->m.host);
	uint8_t frame[FERRY_FRAME_HELLO_MAX];
	struct ferry_link_addr addr;
	struct doca_comch_connection *conn = NULL;
	int fd, lfd = -1, lock = -1;
	unsigned wakes;

	(void)state;
	make_server("stopped");
	fd = rogue_hello("stopped");
	fill_until_backlogged(&((struct doca_comch_server *)F->server)->ep, F->server_conn);
	wakes = wakeups_in(F->m.pe, 200);
	print_message("server: %u wake-ups in 200 ms while its client reads nothing\n", wakes);
	assert_true(wakes <= 2);
	drain_until_flushed(fd, F->server_conn, F->m.pe);
	close(fd);

	assert_int_equal(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), ferry_devinfo_machine(host),
					       ferry_devinfo_name(host), "stopped-rogue"),
			 DOCA_SUCCESS);
	assert_int_equal(ferry_link_listen(&addr, &lfd, &lock), DOCA_SUCCESS);
	make_client("stopped-rogue");
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	assert_true(fd >= 0);
	assert_true(recv(fd, frame, sizeof(frame), 0) > 0); /* its HELLO */
	rogue_send(fd, frame, ferry_frame_build_welcome(frame, COMCH_CAP_MAX_MSG_SIZE, 64, 1));
	FERRY_PROGRESS_UNTIL(F->m.pe,
			     ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)) == DOCA_CTX_STATE_RUNNING,
			     FERRY_TEST_WAIT_MS);
	assert_int_equal(doca_comch_client_get_connection(F->client, &conn), DOCA_SUCCESS);
	fill_until_backlogged(&((struct doca_comch_client *)F->client)->ep, conn);
	wakes = wakeups_in(F->m.pe, 200);
	print_message("client: %u wake-ups in 200 ms while its server reads nothing\n", wakes);
	assert_true(wakes <= 2);
	assert_true(fcntl(fd, F_SETFL, O_NONBLOCK) == 0);
	drain_until_flushed(fd, conn, F->m.pe);
	close(fd);
	ferry_link_unlisten(&addr, lfd, lock);
}

/*
 * A client that connects and says nothing holds a pending slot until the
 * handshake deadline; meanwhile the server's PE sleeps until that deadline
 * (a timer in its epoll set), it does not report pending work at every
 * request (before: tens of thousands of wake-ups a second for as long as a
 * rogue kept a silent connection open, renewing it at each deadline). At the
 * deadline the rogue is cut off.
 */
static void test_silent_client_does_not_spin(void **state)
{
	uint8_t got[64];
	unsigned wakes;
	int fd;

	(void)state;
	setenv("FERRY_COMCH_HANDSHAKE_MS", "1000", 1);
	make_server("hushed");
	fd = rogue_connect("hushed");
	FERRY_PROGRESS_UNTIL(F->m.pe, ((struct doca_comch_server *)F->server)->num_pending == 1, FERRY_TEST_WAIT_MS);
	wakes = wakeups_in(F->m.pe, 200);
	print_message("%u wake-ups in 200 ms while a client says nothing\n", wakes);
	assert_true(wakes <= 2);
	wakes = wakeups_in(F->m.pe, 1500); /* the deadline wakes it: progress cuts the rogue off */
	assert_in_range(wakes, 1, 3);
	assert_true(ferry_test_log_has("did not complete the handshake in time"));
	assert_int_equal(((struct doca_comch_server *)F->server)->num_pending, 0);
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
}

/*
 * The process is out of fds (a rogue's connections, its consumers, anything):
 * the listen socket stays readable and accept fails. The server pauses its
 * listener a moment with a line instead of trying again at every request
 * (before: tens of thousands of wake-ups in 200 ms, and not a word), and
 * serves clients again once fds are free.
 */
static void test_accept_without_fds_does_not_spin(void **state)
{
	enum { ROGUES = 16 };
	struct rlimit low;
	int fds[ROGUES], n = 0;
	unsigned wakes;

	(void)state;
	make_server("no-fds");
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &g_nofile), 0);
	low = g_nofile;
	low.rlim_cur = (rlim_t)ferry_test_count_fds() + ROGUES;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	g_nofile_lowered = true;
	/* The rogues' own sockets use up the fds: the server cannot accept them. */
	for (const char *name = "no-fds"; n < ROGUES; n++) {
		struct ferry_link_addr addr;
		const struct doca_devinfo *host = doca_dev_as_devinfo(F->m.host);

		assert_int_equal(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), ferry_devinfo_machine(host),
						       ferry_devinfo_name(host), name),
				 DOCA_SUCCESS);
		if (ferry_link_connect(&addr, &fds[n]) != DOCA_SUCCESS)
			break;
	}
	assert_true(n > 1);
	close(fds[--n]); /* one fd for the measure's epoll set, taken before the server progresses */
	wakes = wakeups_in(F->m.pe, 200);
	print_message("%u wake-ups in 200 ms while accept finds no fd (%d rogues)\n", wakes, n);
	assert_true(wakes <= 10);
	assert_true(ferry_test_log_has("cannot accept a client"));
	for (int i = 0; i < n; i++)
		close(fds[i]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &g_nofile), 0);
	g_nofile_lowered = false;
	make_client("no-fds");
	progress_until(client_running);
}

/*
 * A server that takes the connection and never answers the HELLO (stopped, or
 * a rogue), and a client whose program progresses only when its PE's handle
 * wakes: the client still fails with TIME_OUT at its connect deadline (a timer
 * wakes it), instead of waiting for ever; and while nobody listens yet, it
 * sleeps between its tries instead of spinning.
 */
static void test_unanswered_hello_times_out_asleep(void **state)
{
	const struct doca_devinfo *host = doca_dev_as_devinfo(F->m.host);
	struct ferry_link_addr addr;
	int lfd = -1, lock = -1;
	unsigned wakes;

	(void)state;
	make_client("mute"); /* nobody listens yet: the client tries every 10 ms */
	wakes = wakeups_in(F->m.pe, 100);
	print_message("%u wake-ups in 100 ms while nobody listens\n", wakes);
	assert_true(wakes <= 15);
	assert_int_equal(ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)), DOCA_CTX_STATE_STARTING);
	assert_int_equal(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), ferry_devinfo_machine(host),
					       ferry_devinfo_name(host), "mute"),
			 DOCA_SUCCESS);
	assert_int_equal(ferry_link_listen(&addr, &lfd, &lock), DOCA_SUCCESS); /* never accepts, never answers */
	wakes = wakeups_in(F->m.pe, 1000);                                     /* the deadline is 500 ms in */
	print_message("%u wake-ups in 1 s with the HELLO unanswered\n", wakes);
	assert_int_equal(ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)), DOCA_CTX_STATE_IDLE);
	assert_true(ferry_test_log_has("did not answer the handshake in time"));
	assert_true(wakes <= 20);
	ferry_link_unlisten(&addr, lfd, lock);
}

/* The rogue maps an export of ours (or its own) the way the fast path maps rings: anywhere. */
static void *rogue_import(const void *desc, size_t desc_len, struct ferry_link_import **imp)
{
	struct ferry_link_view v;

	assert_int_equal(ferry_link_import_open(desc, desc_len, ferry_devinfo_machine(doca_dev_as_devinfo(F->m.host)),
						FERRY_LINK_IMPORT_ANYWHERE, "rogue", imp, &v),
			 DOCA_SUCCESS);
	return v.local;
}

/*
 * Case 5, the producers' side: after a good CONSUMER_UP of a ring of 4 the
 * rogue rewrites its ring header (magic, and cap = 2^30) in shared memory. The
 * server keeps the 4 it was told: six sends wrap the ring and each lands in the
 * post at (position mod 4), its completion at the same place of the completion
 * ring; a head 5 ahead is still "more posts than it holds".
 */
static void test_rogue_post_ring_geometry_lie(void **state)
{
	struct rogue_consumer rc;
	struct doca_comch_producer *p;
	struct doca_comch_producer_task_send *st = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_buf *sbuf = NULL;
	struct ferry_link_import *dimp = NULL;
	const struct comch_ring_hdr *dones;
	struct doca_mmap *pm;
	struct ferry_frame f;
	uint8_t got[4096], pmem[64];
	uint32_t pid = 0;
	int fd;

	(void)state;
	rogue_server("rogue-geometry");
	rogue_consumer_open(&rc, 4, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	fd = rogue_hello("rogue-geometry");
	rogue_up(fd, &rc, 5);
	rogue_read(fd, FERRY_FRAME_DONE_RING, got, sizeof(got), &f);
	assert_int_equal(f.u.done_ring.ring_cap, 4);
	dones = rogue_import(f.u.done_ring.desc, f.u.done_ring.desc_len, &dimp);
	assert_int_equal(dones->magic, COMCH_DONE_MAGIC);
	rc.ring->magic = 0xdeadbeefu;
	rc.ring->cap = 1u << 30;
	p = server_producer(1);
	assert_int_equal(doca_comch_producer_get_id(p, &pid), DOCA_SUCCESS);
	pm = fast_mmap(pmem, sizeof(pmem), F->m.dpu);
	assert_int_equal(doca_buf_inventory_create(1, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, pm, pmem, sizeof(pmem), &sbuf), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, NULL, 0, 5, &st), DOCA_SUCCESS);
	for (uint32_t k = 0; k < 6; k++) {
		const struct comch_done *d = (const struct comch_done *)(dones + 1) + (k & 3);

		memset(pmem, (int)(0x10 + k), sizeof(pmem));
		rogue_post(&rc, k, k * 64, 64);
		assert_int_equal(send_and_wait(st), DOCA_SUCCESS);
		assert_memory_equal(rc.mem + k * 64, pmem, sizeof(pmem));
		assert_int_equal(atomic_load(&rc.ring->claimed), k + 1); /* the post was taken before it was filled */
		assert_int_equal(atomic_load(&dones->head), k + 1);
		assert_int_equal(d->slot, k);
		assert_int_equal(d->generation, k + 1);
		assert_int_equal(d->len, 64);
		assert_int_equal(d->producer_id, pid);
		assert_int_equal(d->failed, 0);
	}
	for (size_t i = 6 * 64; i < ROGUE_MEM; i++)
		assert_int_equal(rc.mem[i], 0); /* nothing beyond the posts */
	/* Five ahead of a ring of four: a lie, whatever the header says now. */
	atomic_store(&rc.ring->head, 6 + 5);
	assert_int_equal(send_and_wait(st), DOCA_ERROR_NOT_CONNECTED);
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_true(ferry_test_log_has("claims more posts than it holds"));
	doca_task_free(doca_comch_producer_task_send_as_task(st));
	producer_done(p);
	ferry_link_import_close(dimp);
	(void)doca_buf_dec_refcount(sbuf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(pm), DOCA_SUCCESS);
	rogue_consumer_close(&rc);
}

/*
 * Case 6, on the exporting side: the completion ring the server hands the
 * peer is a read-only export. Ask for it exactly as the memory agent answers
 * (ferry_link_serve): the memory fd is read-only, its file is sealed
 * F_SEAL_FUTURE_WRITE, so neither that fd nor a read-write reopen of it
 * through /proc/self/fd maps writable; the state page likewise. The server's
 * own mapping, made before the seal, still writes: a send's completion shows
 * up in a read-only mapping of the fd.
 */
static void test_done_ring_sealed_read_only(void **state)
{
	struct rogue_consumer rc;
	struct doca_comch_producer *p;
	struct doca_comch_producer_task_send *st = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_buf *sbuf = NULL;
	struct doca_mmap *pm;
	struct ferry_export_desc d;
	struct link_req req = {.magic = LINK_MSG_MAGIC, .version = LINK_MSG_VERSION};
	struct link_rep rep;
	struct ferry_frame f;
	const char *why = NULL;
	const int seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE;
	uint8_t got[4096], pmem[16];
	uint8_t *ro;
	int fd, mem_fd = -1, state_fd = -1;
	int fds[2];

	(void)state;
	rogue_server("rogue-sealed");
	rogue_consumer_open(&rc, 2, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	fd = rogue_hello("rogue-sealed");
	rogue_up(fd, &rc, 5);
	rogue_read(fd, FERRY_FRAME_DONE_RING, got, sizeof(got), &f);
	assert_int_equal(ferry_export_desc_decode(f.u.done_ring.desc, f.u.done_ring.desc_len, &d, &why), DOCA_SUCCESS);
	assert_int_equal(d.access, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	req.export_id = d.export_id;
	memcpy(req.token, d.token, sizeof(req.token));
	ferry_link_serve(&req, &rep, &mem_fd, &state_fd);
	assert_int_equal(rep.status, DOCA_SUCCESS);
	assert_int_equal(rep.access, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	assert_true(mem_fd >= 0);
	assert_true(state_fd >= 0);
	fds[0] = mem_fd;
	fds[1] = state_fd;
	for (int k = 0; k < 2; k++) {
		char path[64];
		size_t len = k == 0 ? (size_t)rep.map_len : (size_t)sysconf(_SC_PAGESIZE);
		off_t off = k == 0 ? (off_t)rep.mem_off : 0;
		int rw;

		assert_int_equal(fcntl(fds[k], F_GETFL) & O_ACCMODE, O_RDONLY);
		assert_int_equal(fcntl(fds[k], F_GET_SEALS) & seals, seals);
		errno = 0;
		assert_ptr_equal(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[k], off), MAP_FAILED);
		assert_int_equal(errno, EACCES);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[k]);
		rw = open(path, O_RDWR | O_CLOEXEC);
		if (rw >= 0) { /* the reopen works; the seal is what stops it */
			errno = 0;
			assert_ptr_equal(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, rw, off), MAP_FAILED);
			assert_int_equal(errno, EPERM);
			errno = 0;
			assert_int_equal(pwrite(rw, "x", 1, off), -1);
			assert_int_equal(errno, EPERM);
			close(rw);
		}
	}
	ro = mmap(NULL, (size_t)rep.map_len, PROT_READ, MAP_SHARED, mem_fd, (off_t)rep.mem_off);
	assert_ptr_not_equal(ro, MAP_FAILED);
	{
		const struct comch_ring_hdr *h = (const void *)(ro + (rep.addr - rep.map_base));
		const struct comch_done *dn = (const struct comch_done *)(h + 1);

		assert_int_equal(h->magic, COMCH_DONE_MAGIC);
		assert_int_equal(atomic_load(&h->head), 0);
		wait_new_consumers(1);
		p = server_producer(1);
		memset(pmem, 0x42, sizeof(pmem));
		pm = fast_mmap(pmem, sizeof(pmem), F->m.dpu);
		assert_int_equal(doca_buf_inventory_create(1, &inv), DOCA_SUCCESS);
		assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
		assert_int_equal(doca_buf_inventory_buf_get_by_data(inv, pm, pmem, sizeof(pmem), &sbuf), DOCA_SUCCESS);
		assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, NULL, 0, 5, &st), DOCA_SUCCESS);
		rogue_post(&rc, 0, 0, 64);
		assert_int_equal(send_and_wait(st), DOCA_SUCCESS);
		assert_int_equal(atomic_load(&h->head), 1);
		assert_int_equal(dn->len, sizeof(pmem));
	}
	munmap(ro, (size_t)rep.map_len);
	close(mem_fd);
	close(state_fd);
	doca_task_free(doca_comch_producer_task_send_as_task(st));
	producer_done(p);
	close(fd);
	(void)doca_buf_dec_refcount(sbuf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(pm), DOCA_SUCCESS);
	rogue_consumer_close(&rc);
}

/* ---- a consumer of the server's facing a rogue that plays the producers' side by hand ---- */

static unsigned g_rc_ok, g_rc_err;
static doca_error_t g_rc_status[8]; /* in completion order */
static size_t g_rc_len;
static uint32_t g_rc_producer, g_rc_imm_len;
static uint8_t g_rc_imm[32], g_rc_data[16];

static void rc_record(struct doca_comch_consumer_task_post_recv *t)
{
	struct doca_task *task = doca_comch_consumer_task_post_recv_as_task(t);
	struct doca_buf *buf = doca_comch_consumer_task_post_recv_get_buf(t);
	void *data = NULL;

	g_rc_status[(g_rc_ok + g_rc_err) % 8] = doca_task_get_status(task);
	(void)doca_buf_get_data_len(buf, &g_rc_len);
	(void)doca_buf_get_data(buf, &data);
	memcpy(g_rc_data, data, sizeof(g_rc_data));
	g_rc_producer = doca_comch_consumer_task_post_recv_get_producer_id(t);
	g_rc_imm_len = doca_comch_consumer_task_post_recv_get_imm_data_len(t);
	memcpy(g_rc_imm, doca_comch_consumer_task_post_recv_get_imm_data(t), sizeof(g_rc_imm));
	doca_task_free(task); /* as DOCA's samples do: a stopping context then reaches IDLE */
}

static void rc_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	rc_record(t);
	g_rc_ok++;
}

static void rc_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	rc_record(t);
	g_rc_err++;
}

#define RP_TASKS 4u

struct rogue_producers {
	int fd;                        /* the rogue's socket; -1 once it left */
	struct doca_comch_consumer *c; /* the server's consumer */
	uint32_t cid, cap;
	uint8_t *cmem; /* its memory: RP_TASKS buffers of 1 KiB */
	struct doca_mmap *cm;
	struct doca_buf_inventory *inv;
	struct doca_buf *bufs[RP_TASKS];
	struct ferry_link_import *pimp;
	struct comch_ring_hdr *posts; /* the consumer's post ring, as the rogue maps it */
	struct comch_ring_hdr *dring; /* the rogue's completion ring for it */
	struct doca_mmap *dm;
	uint64_t dhead;
};

static struct doca_ctx *rp_ctx(const struct rogue_producers *rp)
{
	return doca_comch_consumer_as_ctx(rp->c);
}

/*
 * Connect a rogue to the running server @p name, start a consumer of @p ntasks
 * on the server's end, map its post ring as the rogue and answer its
 * CONSUMER_UP with a completion ring of the rogue's making.
 */
/*
 * Connect a rogue to the running server @p name, start a consumer of @p ntasks
 * on the server's end and map its post ring as the rogue.
 */
static void rp_start(struct rogue_producers *rp, const char *name, uint32_t ntasks, uint32_t imm_len)
{
	uint8_t got[4096];
	struct ferry_frame f;

	memset(rp, 0, sizeof(*rp));
	g_rc_ok = g_rc_err = 0;
	rp->fd = rogue_hello(name);
	rp->cmem = calloc(RP_TASKS, 1024);
	rp->cm = fast_mmap(rp->cmem, RP_TASKS * 1024, F->m.dpu);
	assert_int_equal(doca_buf_inventory_create(RP_TASKS, &rp->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(rp->inv), DOCA_SUCCESS);
	for (uint32_t i = 0; i < RP_TASKS; i++)
		assert_int_equal(
			doca_buf_inventory_buf_get_by_addr(rp->inv, rp->cm, rp->cmem + i * 1024, 1024, &rp->bufs[i]),
			DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_create(F->server_conn, rp->cm, &rp->c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_set_imm_data_len(rp->c, imm_len), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(rp->c, rc_ok, rc_err, ntasks), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, rp_ctx(rp)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(rp_ctx(rp)), DOCA_ERROR_IN_PROGRESS);
	(void)doca_pe_progress(F->m.pe);
	assert_int_equal(ferry_test_ctx_state(rp_ctx(rp)), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(doca_comch_consumer_get_id(rp->c, &rp->cid), DOCA_SUCCESS);
	rogue_read(rp->fd, FERRY_FRAME_CONSUMER_UP, got, sizeof(got), &f);
	assert_int_equal(f.u.up.consumer_id, rp->cid);
	assert_int_equal(f.u.up.imm_data_len, imm_len);
	rp->cap = f.u.up.ring_cap;
	rp->posts = rogue_import(f.u.up.ring_desc, f.u.up.ring_desc_len, &rp->pimp);
}

/*
 * Answer the consumer's CONSUMER_UP with a completion ring of the rogue's
 * making, exported from @p off bytes into its block and @p shrink bytes
 * short of its size (both 0 for an honest ring).
 */
static void rp_answer(struct rogue_producers *rp, size_t off, size_t shrink)
{
	uint8_t frame[FERRY_FRAME_DONE_RING_MAX];
	struct ferry_frame_done_ring answer;
	const void *desc = NULL;
	size_t desc_len = 0, bytes = comch_done_ring_bytes(rp->cap);

	rp->dring = ferry_mem_alloc_shared(bytes + COMCH_RING_LINE);
	assert_non_null(rp->dring);
	rp->dm = fast_mmap((uint8_t *)rp->dring + off, bytes - shrink, F->m.host);
	assert_int_equal(doca_mmap_export_pci(rp->dm, F->m.host, &desc, &desc_len), DOCA_SUCCESS);
	answer = (struct ferry_frame_done_ring){
		.consumer_id = rp->cid, .ring_cap = rp->cap, .desc = desc, .desc_len = (uint16_t)desc_len};
	rogue_send(rp->fd, frame, ferry_frame_build_done_ring(frame, &answer));
}

static void rp_open(struct rogue_producers *rp, const char *name, uint32_t ntasks, uint32_t imm_len)
{
	rp_start(rp, name, ntasks, imm_len);
	rp_answer(rp, 0, 0);
	FERRY_PROGRESS_UNTIL(F->m.pe, rp->c->dones.imp != NULL, FERRY_TEST_WAIT_MS);
	assert_non_null(rp->c->dones.imp);
}

/* Post buffer @p i (its whole KiB) with a fresh task. */
static void rp_post(struct rogue_producers *rp, uint32_t i)
{
	struct doca_comch_consumer_task_post_recv *t = NULL;

	assert_int_equal(doca_buf_reset_data_len(rp->bufs[i]), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(rp->c, rp->bufs[i], &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)), DOCA_SUCCESS);
}

static struct comch_post *rp_entry(const struct rogue_producers *rp, uint64_t pos)
{
	return (struct comch_post *)(rp->posts + 1) + (pos & (rp->cap - 1));
}

/*
 * Take the post at @p pos as a producer does (compare-and-swap of the claim
 * word from @p pos to @p pos + 1); false when the word was not @p pos (taken
 * back by a stopping consumer).
 */
static bool rp_take(struct rogue_producers *rp, uint64_t pos, struct comch_post *copy)
{
	struct comch_post *e = rp_entry(rp, pos);
	uint64_t expected = pos;

	copy->addr = e->addr;
	copy->len = e->len;
	copy->slot = e->slot;
	copy->generation = e->generation;
	return atomic_compare_exchange_strong(&rp->posts->claimed, &expected, pos + 1);
}

/* Publish @p d, with @p imm (d.imm_len bytes, or none when NULL) in its immediate area, at the head of the rogue's completion ring. */
static void rp_done_imm(struct rogue_producers *rp, struct comch_done d, const char *imm)
{
	const uint8_t *entries = (const uint8_t *)(rp->dring + 1);

	memcpy((struct comch_done *)(rp->dring + 1) + (rp->dhead & (rp->cap - 1)), &d, sizeof(d));
	if (imm != NULL)
		memcpy((uint8_t *)(uintptr_t)comch_done_imm(entries, rp->cap, rp->dhead), imm, d.imm_len);
	atomic_store_explicit(&rp->dring->head, ++rp->dhead, memory_order_release);
}

/* Publish @p d at the head of the rogue's completion ring. */
static void rp_done(struct rogue_producers *rp, struct comch_done d)
{
	rp_done_imm(rp, d, NULL);
}

static void rp_progress_until_completed(unsigned want)
{
	FERRY_PROGRESS_UNTIL(F->m.pe, g_rc_ok + g_rc_err >= want, FERRY_TEST_WAIT_MS);
	assert_int_equal(g_rc_ok + g_rc_err, want);
}

static void rp_close(struct rogue_producers *rp)
{
	if (ferry_test_ctx_state(rp_ctx(rp)) != DOCA_CTX_STATE_IDLE)
		ferry_test_stop_idle(F->m.pe, rp_ctx(rp));
	assert_int_equal(doca_comch_consumer_destroy(rp->c), DOCA_SUCCESS);
	ferry_link_import_close(rp->pimp);
	assert_int_equal(doca_mmap_destroy(rp->dm), DOCA_SUCCESS);
	assert_int_equal(ferry_mem_free_shared(rp->dring), 0);
	for (uint32_t i = 0; i < RP_TASKS; i++)
		(void)doca_buf_dec_refcount(rp->bufs[i], NULL);
	assert_int_equal(doca_buf_inventory_destroy(rp->inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(rp->cm), DOCA_SUCCESS);
	free(rp->cmem);
	if (rp->fd >= 0)
		close(rp->fd);
}

/*
 * Case 5, the consumer's side: the rogue rewrites the header of the
 * completion ring it made (magic, cap = 2^30) and of the consumer's post ring
 * it maps read-write. The consumer keeps the sizes it chose and was told:
 * posts keep going to (position mod 2), completions are read at (position
 * mod 2), five rounds complete with their data; a completion head 3 ahead is
 * still "more completions than it holds".
 */
static void test_rogue_done_ring_geometry_lie(void **state)
{
	struct rogue_producers rp;
	uint8_t got[1024];

	(void)state;
	rogue_server("rogue-dgeometry");
	rp_open(&rp, "rogue-dgeometry", 2, 0);
	assert_int_equal(rp.cap, 2);
	rp.dring->magic = 0;
	rp.dring->cap = 1u << 30;
	rp.posts->magic = 0;
	rp.posts->cap = 1u << 30;
	for (uint32_t k = 0; k < 5; k++) {
		struct comch_post post;

		rp_post(&rp, k & 1);
		assert_int_equal(atomic_load(&rp.posts->head), k + 1);
		assert_true(rp_take(&rp, k, &post));
		assert_int_equal(post.addr, (uint64_t)(uintptr_t)(rp.cmem + (k & 1) * 1024));
		assert_int_equal(post.len, 1024);
		memset((void *)(uintptr_t)post.addr, (int)(0x20 + k), 100 + k);
		rp_done(&rp,
			(struct comch_done){
				.slot = post.slot, .generation = post.generation, .len = 100 + k, .producer_id = 9});
		rp_progress_until_completed(k + 1);
		assert_int_equal(g_rc_ok, k + 1);
		assert_int_equal(g_rc_len, 100 + k);
		assert_int_equal(g_rc_data[0], 0x20 + k);
		assert_int_equal(g_rc_producer, 9);
	}
	rp_post(&rp, 0);
	atomic_store(&rp.dring->head, rp.dhead + 3);
	(void)rogue_wait_closed(rp.fd, got, sizeof(got));
	rp_progress_until_completed(6);
	assert_int_equal(g_rc_err, 1);
	assert_int_equal(g_rc_status[5], DOCA_ERROR_NOT_CONNECTED);
	assert_true(ferry_test_log_has("claims more completions than it holds"));
	rp_close(&rp);
}

/*
 * Ring geometry the rogue cannot fake with an export: a post ring (in a
 * CONSUMER_UP) or a completion ring (in a DONE_RING) smaller than its
 * declared size by one byte, or not aligned to a cache line. Each ends the
 * connection with its line; no new consumer comes up, and the server's
 * consumer sees its post fail NOT_CONNECTED.
 */
static void test_rogue_ring_size_and_alignment(void **state)
{
	const char *want[] = {"names a ring smaller than its size", "names a ring that is not aligned to a cache line"};
	uint8_t got[1024];

	(void)state;
	rogue_server("rogue-rings");
	for (int k = 0; k < 2; k++) { /* the post ring of a CONSUMER_UP */
		struct rogue_consumer rc;
		struct doca_mmap *bad;
		const void *bad_desc = NULL;
		size_t bad_len = 0;
		int fd;

		rogue_consumer_open(&rc, 4, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
		bad = fast_mmap((uint8_t *)rc.ring + (k == 0 ? 0 : 8), comch_ring_bytes(4) - (k == 0 ? 1 : 0),
				F->m.host);
		assert_int_equal(doca_mmap_export_pci(bad, F->m.host, &bad_desc, &bad_len), DOCA_SUCCESS);
		fd = rogue_hello("rogue-rings");
		rogue_up_with(fd, 5, 4, rc.desc, rc.desc_len, bad_desc, bad_len);
		assert_false(rogue_got_before_close(fd, FERRY_FRAME_DONE_RING));
		close(fd);
		assert_true(ferry_test_log_has(want[k]));
		ferry_test_log_reset();
		assert_int_equal(doca_mmap_destroy(bad), DOCA_SUCCESS);
		rogue_consumer_close(&rc);
	}
	assert_int_equal(g_new_consumers, 0);
	for (int k = 0; k < 2; k++) { /* the completion ring of a DONE_RING */
		struct rogue_producers rp;

		rp_start(&rp, "rogue-rings", 1, 0);
		rp_post(&rp, 0);
		rp_answer(&rp, k == 0 ? 0 : 8, k == 0 ? 1 : 0);
		(void)rogue_wait_closed(rp.fd, got, sizeof(got));
		rp_progress_until_completed(1);
		assert_int_equal(g_rc_status[0], DOCA_ERROR_NOT_CONNECTED);
		assert_null(rp.c->dones.imp);
		assert_true(ferry_test_log_has(want[k]));
		ferry_test_log_reset();
		rp_close(&rp);
	}
	assert_int_equal(F->disconnects, 4);
}

enum race_end {
	RACE_COMPLETES,   /* the rogue publishes the taken post's completion */
	RACE_FAILS,       /* ... with `failed` set */
	RACE_PEER_LEAVES, /* the rogue disconnects instead */
};

/*
 * Case 7: three posts; the rogue takes the first (compare-and-swap of the
 * claim word from 0 to 1) and writes into it, then the consumer stops. The two
 * posts not claimed are taken back (the word REVOKED, no producer can take
 * them now) and flush with IO_FAILED at
 * once; the taken one keeps the context STOPPING until the rogue ends it (@p how).
 * CONSUMER_DOWN comes only once every post is complete: the peer must not
 * forget the consumer (and its completion ring) while a taken post is out.
 */
static void stop_race(const char *name, enum race_end how)
{
	struct rogue_producers rp;
	struct comch_post taken, late;
	struct ferry_frame f;
	uint8_t got[1024];

	rogue_server(name);
	rp_open(&rp, name, 3, 4);
	for (uint32_t i = 0; i < 3; i++)
		rp_post(&rp, i);
	assert_true(rp_take(&rp, 0, &taken));
	memcpy((void *)(uintptr_t)taken.addr, "taken", 5);
	assert_int_equal(doca_ctx_stop(rp_ctx(&rp)), DOCA_ERROR_IN_PROGRESS);
	/* The first post is the producer's, the two after it are taken back: no producer can claim them now. */
	assert_int_equal(atomic_load(&rp.posts->claimed), 1 | COMCH_CLAIM_REVOKED);
	assert_false(rp_take(&rp, 1, &late)); /* a producer that comes late finds it taken back */
	rp_progress_until_completed(2);
	assert_int_equal(g_rc_err, 2);
	assert_int_equal(g_rc_status[0], DOCA_ERROR_IO_FAILED);
	assert_int_equal(g_rc_status[1], DOCA_ERROR_IO_FAILED);
	for (int i = 0; i < 500; i++)
		(void)doca_pe_progress(F->m.pe);
	assert_int_equal(ferry_test_ctx_state(rp_ctx(&rp)), DOCA_CTX_STATE_STOPPING); /* the taken post is still out */
	assert_int_equal(g_rc_ok + g_rc_err, 2);
	assert_int_equal(recv(rp.fd, got, sizeof(got), MSG_DONTWAIT | MSG_PEEK), -1); /* no CONSUMER_DOWN yet */
	assert_int_equal(errno, EAGAIN);

	if (how == RACE_COMPLETES)
		rp_done_imm(&rp,
			    (struct comch_done){.slot = taken.slot,
						.generation = taken.generation,
						.len = 5,
						.producer_id = 77,
						.imm_len = 4},
			    "abcd");
	else if (how == RACE_FAILS)
		rp_done(&rp,
			(struct comch_done){
				.slot = taken.slot, .generation = taken.generation, .producer_id = 77, .failed = 1});
	else {
		close(rp.fd);
		rp.fd = -1;
	}
	rp_progress_until_completed(3);
	FERRY_PROGRESS_UNTIL(F->m.pe, ferry_test_ctx_state(rp_ctx(&rp)) == DOCA_CTX_STATE_IDLE, FERRY_TEST_WAIT_MS);
	assert_int_equal(ferry_test_ctx_state(rp_ctx(&rp)), DOCA_CTX_STATE_IDLE);
	if (how != RACE_PEER_LEAVES) {
		rogue_read(rp.fd, FERRY_FRAME_CONSUMER_DOWN, got, sizeof(got), &f);
		assert_int_equal(f.u.consumer_id, rp.cid);
	}
	if (how == RACE_COMPLETES) {
		assert_int_equal(g_rc_ok, 1);
		assert_int_equal(g_rc_status[2], DOCA_SUCCESS);
		assert_int_equal(g_rc_len, 5);
		assert_memory_equal(g_rc_data, "taken", 5);
		assert_int_equal(g_rc_producer, 77);
		assert_int_equal(g_rc_imm_len, 4);
		assert_memory_equal(g_rc_imm, "abcd", 4);
	} else {
		assert_int_equal(g_rc_err, 3);
		assert_int_equal(g_rc_status[2], how == RACE_FAILS ? DOCA_ERROR_IO_FAILED : DOCA_ERROR_NOT_CONNECTED);
		assert_int_equal(F->disconnects, how == RACE_PEER_LEAVES ? 1 : 0);
	}
	rp_close(&rp);
}

static void test_stop_race_taken_post_completes(void **state)
{
	(void)state;
	stop_race("race-completes", RACE_COMPLETES);
}

static void test_stop_race_taken_post_fails(void **state)
{
	(void)state;
	stop_race("race-fails", RACE_FAILS);
}

static void test_stop_race_peer_leaves(void **state)
{
	(void)state;
	stop_race("race-leaves", RACE_PEER_LEAVES);
}

/*
 * Case 9, what the test_rogue_done_* tests above do not cover: completions with
 * more immediate data than the consumer takes (one byte more, and 2^32 - 1),
 * with producer id 0, naming a post twice, and naming a post the stop took
 * back and flushed. Each ends the connection with a line; what is still
 * posted then fails NOT_CONNECTED and no completion succeeds past the lie.
 */
static void test_rogue_completion_lies(void **state)
{
	enum { IMM_PLUS_ONE, IMM_HUGE, NO_PRODUCER, TWICE, FLUSHED, NUM_LIES };

	(void)state;
	rogue_server("rogue-lies");
	for (int k = 0; k < NUM_LIES; k++) {
		struct rogue_producers rp;
		struct comch_post a, b;
		uint8_t got[1024];
		unsigned ok = 0;

		rp_open(&rp, "rogue-lies", 2, 4);
		rp_post(&rp, 0);
		rp_post(&rp, 1);
		assert_true(rp_take(&rp, 0, &a));
		if (k == IMM_PLUS_ONE || k == IMM_HUGE)
			rp_done(&rp, (struct comch_done){.slot = a.slot,
							 .generation = a.generation,
							 .len = 8,
							 .producer_id = 9,
							 .imm_len = k == IMM_HUGE ? UINT32_MAX : 5});
		else if (k == NO_PRODUCER)
			rp_done(&rp, (struct comch_done){.slot = a.slot, .generation = a.generation, .len = 8});
		else if (k == TWICE) {
			rp_done(&rp, (struct comch_done){
					     .slot = a.slot, .generation = a.generation, .len = 8, .producer_id = 9});
			rp_progress_until_completed(1);
			ok = 1;
			rp_done(&rp, (struct comch_done){
					     .slot = a.slot, .generation = a.generation, .len = 8, .producer_id = 9});
		} else {
			b.slot = rp_entry(&rp, 1)->slot;
			b.generation = rp_entry(&rp, 1)->generation;
			assert_int_equal(doca_ctx_stop(rp_ctx(&rp)), DOCA_ERROR_IN_PROGRESS);
			rp_progress_until_completed(1);
			assert_int_equal(g_rc_status[0], DOCA_ERROR_IO_FAILED);
			rp_done(&rp, (struct comch_done){
					     .slot = b.slot, .generation = b.generation, .len = 8, .producer_id = 9});
		}
		(void)rogue_wait_closed(rp.fd, got, sizeof(got));
		rp_progress_until_completed(2);
		assert_int_equal(g_rc_ok, ok);
		assert_int_equal(g_rc_status[1], DOCA_ERROR_NOT_CONNECTED);
		assert_true(ferry_test_log_has("names a buffer that is not posted, or overfills it"));
		ferry_test_log_reset();
		rp_close(&rp);
	}
	assert_int_equal(F->disconnects, NUM_LIES);
}

/*
 * Case 10: claim counts the stopping consumer can tell are lies, as the rogue
 * writes them into the claim word before the stop: a count beyond the posts
 * the consumer published (one past its head, and the largest count there is:
 * no producer can take a post never published), a word with REVOKED set
 * (only the consumer writes that bit, once, at its stop), and a count below
 * the completions the rogue already wrote (each one was for a post it took).
 * The consumer refuses it at its stop, with one line: the connection ends,
 * every post still out fails NOT_CONNECTED at once and the consumer reaches
 * IDLE while the rogue still holds its socket open.
 */
static void test_rogue_claim_lies(void **state)
{
	enum { BEYOND_HEAD, FAR_BEYOND, REVOKED_SET, BELOW_DONE, NUM_LIES };
	const char *want[NUM_LIES] = {
		"counts posts beyond the ring's head",
		"counts posts beyond the ring's head",
		"has REVOKED set, which only the consumer writes",
		"counts fewer posts than the completions it wrote",
	};

	(void)state;
	rogue_server("rogue-claims");
	for (int k = 0; k < NUM_LIES; k++) {
		struct rogue_producers rp;
		uint8_t got[1024];
		unsigned ok = 0;
		uint64_t lie = 0;

		rp_open(&rp, "rogue-claims", 3, 0);
		rp_post(&rp, 0);
		rp_post(&rp, 1);
		if (k == BELOW_DONE) { /* post 0 taken and filled honestly: the true count is at least 1 */
			struct comch_post a;

			assert_true(rp_take(&rp, 0, &a));
			rp_done(&rp, (struct comch_done){
					     .slot = a.slot, .generation = a.generation, .len = 8, .producer_id = 9});
			rp_progress_until_completed(1);
			ok = 1;
			rp_post(&rp, 2);
			lie = 0;
		} else if (k == BEYOND_HEAD) {
			lie = 3; /* two posts published */
		} else if (k == FAR_BEYOND) {
			lie = COMCH_CLAIM_REVOKED - 1;
		} else {
			lie = 1 | COMCH_CLAIM_REVOKED; /* a count within the head, but the bit is not the peer's */
		}
		atomic_store(&rp.posts->claimed, lie);
		assert_int_equal(doca_ctx_stop(rp_ctx(&rp)), DOCA_ERROR_IN_PROGRESS);
		/* No producer can take a post now, the lie or not. */
		assert_int_not_equal(atomic_load(&rp.posts->claimed) & COMCH_CLAIM_REVOKED, 0);
		rp_progress_until_completed(ok + 2);
		assert_int_equal(g_rc_ok, ok);
		assert_int_equal(g_rc_status[ok], DOCA_ERROR_NOT_CONNECTED);
		assert_int_equal(g_rc_status[ok + 1], DOCA_ERROR_NOT_CONNECTED);
		FERRY_PROGRESS_UNTIL(F->m.pe, ferry_test_ctx_state(rp_ctx(&rp)) == DOCA_CTX_STATE_IDLE,
				     FERRY_TEST_WAIT_MS);
		assert_int_equal(ferry_test_ctx_state(rp_ctx(&rp)), DOCA_CTX_STATE_IDLE);
		(void)rogue_wait_closed(rp.fd, got, sizeof(got)); /* the server ended the connection */
		assert_int_equal(ferry_test_log_count("claim word"), 1);
		assert_true(ferry_test_log_has(want[k]));
		ferry_test_log_reset();
		rp_close(&rp);
	}
	assert_int_equal(F->disconnects, NUM_LIES);
}

/*
 * Case 11: claim counts the consumer cannot tell from the truth. The rogue
 * writes a count within the head without taking anything (2 of 3 posts, then
 * 3 of 3, the head itself), after one honest round (a post taken and filled,
 * so the count is at least the completions it wrote). The stopping consumer
 * flushes the posts at or above the count with IO_FAILED and waits for the
 * others; no line, the connection stays. When the rogue leaves, the posts it
 * said it took fail NOT_CONNECTED and the consumer reaches IDLE: no hang.
 */
static void test_rogue_claim_within_head(void **state)
{
	(void)state;
	rogue_server("rogue-claim-quiet");
	for (uint32_t lie = 2; lie <= 3; lie++) {
		struct rogue_producers rp;
		struct comch_post a;
		unsigned flushed = 3 - lie; /* of the posts at positions 1..3 */

		rp_open(&rp, "rogue-claim-quiet", 3, 0);
		rp_post(&rp, 0);
		assert_true(rp_take(&rp, 0, &a));
		rp_done(&rp,
			(struct comch_done){.slot = a.slot, .generation = a.generation, .len = 8, .producer_id = 9});
		rp_progress_until_completed(1);
		for (uint32_t i = 0; i < 3; i++)
			rp_post(&rp, i);
		assert_int_equal(atomic_load(&rp.posts->head), 4);
		atomic_store(&rp.posts->claimed, lie + 1); /* the honest 1, and `lie` more never taken */
		assert_int_equal(doca_ctx_stop(rp_ctx(&rp)), DOCA_ERROR_IN_PROGRESS);
		assert_int_equal(atomic_load(&rp.posts->claimed), (lie + 1) | COMCH_CLAIM_REVOKED);
		if (flushed != 0)
			rp_progress_until_completed(1 + flushed);
		for (int i = 0; i < 500; i++)
			(void)doca_pe_progress(F->m.pe);
		assert_int_equal(g_rc_ok, 1);
		assert_int_equal(g_rc_err, flushed);
		if (flushed != 0)
			assert_int_equal(g_rc_status[1], DOCA_ERROR_IO_FAILED);
		assert_int_equal(ferry_test_ctx_state(rp_ctx(&rp)), DOCA_CTX_STATE_STOPPING);
		assert_false(ferry_test_log_has("claim word"));
		assert_int_equal(F->disconnects, lie - 2);

		close(rp.fd);
		rp.fd = -1;
		rp_progress_until_completed(4);
		assert_int_equal(g_rc_ok, 1);
		for (unsigned i = 1 + flushed; i < 4; i++)
			assert_int_equal(g_rc_status[i], DOCA_ERROR_NOT_CONNECTED);
		FERRY_PROGRESS_UNTIL(F->m.pe, ferry_test_ctx_state(rp_ctx(&rp)) == DOCA_CTX_STATE_IDLE,
				     FERRY_TEST_WAIT_MS);
		assert_int_equal(ferry_test_ctx_state(rp_ctx(&rp)), DOCA_CTX_STATE_IDLE);
		assert_int_equal(F->disconnects, lie - 1);
		rp_close(&rp);
	}
}

/*
 * The checks of case 10 against an honest peer across a restart: a round
 * (one post taken and filled), a stop, a start with a new post ring, one
 * post, and a stop before the rogue answers with a completion ring. The new
 * ring's count (0) is below the completions of the first run, and is the
 * truth: the post is flushed IO_FAILED, no line, the connection stays.
 */
static void test_claim_count_after_restart(void **state)
{
	struct rogue_producers rp;
	struct comch_post a;
	struct ferry_frame f;
	uint8_t got[4096];

	(void)state;
	rogue_server("claim-restart");
	rp_open(&rp, "claim-restart", 2, 0);
	rp_post(&rp, 0);
	assert_true(rp_take(&rp, 0, &a));
	rp_done(&rp, (struct comch_done){.slot = a.slot, .generation = a.generation, .len = 8, .producer_id = 9});
	rp_progress_until_completed(1);
	(void)doca_ctx_stop(rp_ctx(&rp));
	FERRY_PROGRESS_UNTIL(F->m.pe, ferry_test_ctx_state(rp_ctx(&rp)) == DOCA_CTX_STATE_IDLE, FERRY_TEST_WAIT_MS);
	assert_int_equal(ferry_test_ctx_state(rp_ctx(&rp)), DOCA_CTX_STATE_IDLE);
	rogue_read(rp.fd, FERRY_FRAME_CONSUMER_DOWN, got, sizeof(got), &f);
	ferry_link_import_close(rp.pimp);

	assert_int_equal(doca_ctx_start(rp_ctx(&rp)), DOCA_ERROR_IN_PROGRESS);
	(void)doca_pe_progress(F->m.pe);
	assert_int_equal(ferry_test_ctx_state(rp_ctx(&rp)), DOCA_CTX_STATE_RUNNING);
	rogue_read(rp.fd, FERRY_FRAME_CONSUMER_UP, got, sizeof(got), &f);
	assert_int_equal(f.u.up.consumer_id, rp.cid);
	rp.posts = rogue_import(f.u.up.ring_desc, f.u.up.ring_desc_len, &rp.pimp);
	rp_post(&rp, 1);
	assert_int_equal(doca_ctx_stop(rp_ctx(&rp)), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(atomic_load(&rp.posts->claimed), COMCH_CLAIM_REVOKED);
	rp_progress_until_completed(2);
	assert_int_equal(g_rc_status[1], DOCA_ERROR_IO_FAILED);
	FERRY_PROGRESS_UNTIL(F->m.pe, ferry_test_ctx_state(rp_ctx(&rp)) == DOCA_CTX_STATE_IDLE, FERRY_TEST_WAIT_MS);
	assert_int_equal(ferry_test_ctx_state(rp_ctx(&rp)), DOCA_CTX_STATE_IDLE);
	assert_false(ferry_test_log_has("claim word"));
	assert_int_equal(F->disconnects, 0);
	rp_close(&rp);
}

/* SDK lines at INFO and above, for the few outcomes the library reports at INFO (a peer that left). */
static FILE *g_info_log;

static bool info_log_has(const char *needle)
{
	char line[1024];

	if (g_info_log == NULL) {
		struct doca_log_backend *backend = NULL;

		g_info_log = tmpfile();
		assert_non_null(g_info_log);
		assert_int_equal(doca_log_backend_create_with_file_sdk(g_info_log, &backend), DOCA_SUCCESS);
		assert_int_equal(doca_log_backend_set_sdk_level(backend, DOCA_LOG_LEVEL_INFO), DOCA_SUCCESS);
		return false;
	}
	fflush(g_info_log);
	rewind(g_info_log);
	while (fgets(line, sizeof(line), g_info_log) != NULL)
		if (strstr(line, needle) != NULL)
			return true;
	return false;
}

/*
 * Case 8: on an established connection, a datagram of 0 bytes (the end of the
 * stream, for a SOCK_SEQPACKET reader), of 1 byte, and a CONSUMER_UP one byte
 * short. Each ends that connection with a line and a disconnect event; the
 * server then serves a real client.
 */
static void test_rogue_short_datagrams(void **state)
{
	struct rogue_consumer rc;
	uint8_t frame[FERRY_FRAME_UP_MAX], got[1024];
	struct ferry_frame_consumer_up up;
	size_t len;
	int fd;

	(void)state;
	(void)info_log_has(""); /* start capturing INFO */
	rogue_server("rogue-short");
	rogue_consumer_open(&rc, 4, DOCA_ACCESS_FLAG_PCI_READ_WRITE);

	fd = rogue_hello("rogue-short");
	assert_int_equal(send(fd, frame, 0, MSG_NOSIGNAL), 0);
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_int_equal(F->disconnects, 1);
	assert_true(info_log_has("closed the connection (peer exited or was killed)"));

	fd = rogue_hello("rogue-short");
	rogue_send(fd, "\x46", 1);
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_int_equal(F->disconnects, 2);
	assert_true(ferry_test_log_has("frame shorter than its header"));

	fd = rogue_hello("rogue-short");
	up = (struct ferry_frame_consumer_up){.consumer_id = 5,
					      .ring_cap = 4,
					      .desc = rc.desc,
					      .desc_len = (uint16_t)rc.desc_len,
					      .ring_desc = rc.ring_desc,
					      .ring_desc_len = (uint16_t)rc.ring_desc_len};
	len = ferry_frame_build_consumer_up(frame, &up);
	rogue_send(fd, frame, len - 1);
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_int_equal(F->disconnects, 3);
	assert_true(ferry_test_log_has("frame length field does not match the datagram size"));
	assert_int_equal(g_new_consumers, 0);

	assert_int_equal(((struct doca_comch_server *)F->server)->num_conns, 0);
	assert_int_equal(ferry_test_ctx_state(doca_comch_server_as_ctx(F->server)), DOCA_CTX_STATE_RUNNING);
	make_client("rogue-short");
	progress_until(client_running);
	rogue_consumer_close(&rc);
}

/*
 * A 0-byte datagram between two frames that arrive together (one recvmmsg
 * batch): the frame before it is delivered, and the 0 bytes end the
 * connection there, as they do when they come alone; the frame after them is
 * not taken for one (before the fix, it was dropped silently and the
 * connection went on).
 */
static void test_rogue_empty_datagram_mid_batch(void **state)
{
	uint8_t frame[FERRY_FRAME_HDR_LEN + 1], got[1024];
	int fd;

	(void)state;
	(void)info_log_has(""); /* start capturing INFO */
	make_server("rogue-mid");
	fd = rogue_hello("rogue-mid");
	ferry_frame_put_header(frame, FERRY_FRAME_MSG, 1);
	frame[FERRY_FRAME_HDR_LEN] = 'a';
	rogue_send(fd, frame, sizeof(frame));
	assert_int_equal(send(fd, frame, 0, MSG_NOSIGNAL), 0);
	frame[FERRY_FRAME_HDR_LEN] = 'b';
	rogue_send(fd, frame, sizeof(frame));
	(void)rogue_wait_closed(fd, got, sizeof(got));
	close(fd);
	assert_int_equal(F->disconnects, 1);
	assert_int_equal(F->server_msgs, 1);
	assert_int_equal(F->last_msg[0], 'a');
	assert_true(info_log_has("closed the connection (peer exited or was killed)"));
}

/* Timeouts from the environment: numbers of ms up to a day; anything else is a line and the default. */
static void test_env_timeouts(void **state)
{
	static const char *const bad[] = {"99999999999999999999999",
					  "18446744073709551615",
					  "86400001",
					  "-5",
					  "12ms",
					  "0",
					  " 7",
					  "+7",
					  "0x",
					  "0x10g"};

	(void)state;
	setenv("FERRY_TEST_TIMEOUT_MS", "250", 1);
	assert_int_equal(comch_env_ms_as_ns("FERRY_TEST_TIMEOUT_MS", 7), 250ull * 1000000ull);
	setenv("FERRY_TEST_TIMEOUT_MS", "86400000", 1);
	assert_int_equal(comch_env_ms_as_ns("FERRY_TEST_TIMEOUT_MS", 7), 86400000ull * 1000000ull);
	setenv("FERRY_TEST_TIMEOUT_MS", "0x10", 1);
	assert_int_equal(comch_env_ms_as_ns("FERRY_TEST_TIMEOUT_MS", 7), 16ull * 1000000ull);
	unsetenv("FERRY_TEST_TIMEOUT_MS");
	assert_int_equal(comch_env_ms_as_ns("FERRY_TEST_TIMEOUT_MS", 7), 7ull * 1000000ull);
	setenv("FERRY_TEST_TIMEOUT_MS", "", 1); /* set but empty: as unset, quietly */
	assert_int_equal(comch_env_ms_as_ns("FERRY_TEST_TIMEOUT_MS", 7), 7ull * 1000000ull);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ferry_test_log_reset();
		setenv("FERRY_TEST_TIMEOUT_MS", bad[i], 1);
		assert_int_equal(comch_env_ms_as_ns("FERRY_TEST_TIMEOUT_MS", 7), 7ull * 1000000ull);
		assert_true(ferry_test_log_has("FERRY_TEST_TIMEOUT_MS"));
		assert_true(ferry_test_log_has("is not a whole number in 1..86400000; using 7"));
	}
	unsetenv("FERRY_TEST_TIMEOUT_MS");
}

/* A test of the rogue-frame fixture. */
#define ROGUE_FAST(fn) cmocka_unit_test_setup_teardown(fn, rogue_fast_setup, rogue_fast_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_env_timeouts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setters_and_getters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_in_one_process, setup, teardown),
		ROGUE_FAST(test_rogue_consumer_down_never_up),
		ROGUE_FAST(test_rogue_consumer_up_garbage_descriptors),
		ROGUE_FAST(test_rogue_post_past_the_end),
		ROGUE_FAST(test_rogue_post_below_the_start),
		ROGUE_FAST(test_rogue_post_head_beyond_ring),
		ROGUE_FAST(test_rogue_done_overfills_post),
		ROGUE_FAST(test_rogue_done_wrong_generation),
		ROGUE_FAST(test_rogue_done_unknown_slot),
		ROGUE_FAST(test_rogue_done_head_beyond_ring),
		ROGUE_FAST(test_rogue_done_ring_of_another_size),
		cmocka_unit_test_setup_teardown(test_fast_path_producer_on_own_pe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_and_exchange, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notification_handle_wakes_on_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notification_handle_wakes_on_connection_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_disconnect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_flushes_backlog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fault_drop_connection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_peers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_server_same_name_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_server_stop_ends_clients, setup, teardown),
		cmocka_unit_test_setup_teardown(test_silent_flood_is_cleaned_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_silent_squatters_give_way, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_client_started_again_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_repeats_cost_few_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_read_only_consumer_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_consumer_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_ring_budget, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_never_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stopped_peer_does_not_spin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_silent_client_does_not_spin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_accept_without_fds_does_not_spin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unanswered_hello_times_out_asleep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_consumers_across_connections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_post_ring_geometry_lie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_done_ring_sealed_read_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_done_ring_geometry_lie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_ring_size_and_alignment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_race_taken_post_completes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_race_taken_post_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_race_peer_leaves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_completion_lies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_claim_lies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_claim_within_head, setup, teardown),
		cmocka_unit_test_setup_teardown(test_claim_count_after_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_short_datagrams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_empty_datagram_mid_batch, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
