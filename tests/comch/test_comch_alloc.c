/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_comch_alloc.c - every allocation of the Comch create and start calls
 * fails in turn (ferry_test_alloc.h): doca_comch_server_create and
 * doca_comch_client_create, the start of each (its task pool, then its
 * receive buffer and its send slab), and doca_comch_producer_create and
 * doca_comch_consumer_create on a live connection in this process.
 *
 * Each failure must return DOCA_ERROR_NO_MEMORY with its line (a start
 * DOCA_ERROR_INITIALIZATION, DOCA's code for it), leave the
 * output NULL (or the context IDLE, or the connection's producers and
 * consumers as they were), and free what it had built.
 *
 * Outside create and start: the server's record of a client that connects
 * fails once; that client's connection is closed, the server keeps running and
 * the next client connects.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "comch/fast_priv.h"
#include "comch_util.h"
#include "ferry_test.h"
#include "ferry_test_ctx.h"
#include "ferry_test_alloc.h"
#include "ferry_test_wait.h"

struct fix {
	struct cu_machine m;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_comch_connection *server_conn;
	void *out; /* what the walked create writes */
};

static struct fix *F;

static void send_done(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void on_recv(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len,
		    struct doca_comch_connection *conn)
{
	(void)ev;
	(void)buf;
	(void)len;
	(void)conn;
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
		       uint8_t ok)
{
	(void)ev;
	if (ok)
		F->server_conn = conn;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			  uint8_t ok)
{
	(void)ev;
	(void)ok;
	if (F->server_conn == conn)
		F->server_conn = NULL;
}

static int group_setup(void **state)
{
	(void)state;
	F = calloc(1, sizeof(*F));
	assert_non_null(F);
	setenv("FERRY_COMCH_CONNECT_TIMEOUT_MS", "2000", 1);
	assert_true(cu_machine_open(&F->m, "comch-alloc"));
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	assert_int_equal(doca_dev_rep_close(F->m.rep), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(F->m.dpu), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(F->m.host), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(F->m.pe), DOCA_SUCCESS);
	free(F);
	return 0;
}

static void out_failed(void *arg)
{
	(void)arg;
	assert_null(F->out);
}

/* ---- create ---- */

static doca_error_t server_create_attempt(void *arg)
{
	(void)arg;
	return doca_comch_server_create(F->m.dpu, F->m.rep, "alloc", (struct doca_comch_server **)&F->out);
}

static void server_create_succeeded(void *arg)
{
	(void)arg;
	assert_non_null(F->out);
	assert_int_equal(doca_comch_server_destroy(F->out), DOCA_SUCCESS);
	F->out = NULL;
}

static void test_server_create(void **state)
{
	struct ferry_test_alloc_walk w = {.call = "doca_comch_server_create",
					  .logged = "doca_comch_server_create: no memory for server 'alloc'",
					  .attempt = server_create_attempt,
					  .failed = out_failed,
					  .succeeded = server_create_succeeded};

	(void)state;
	/* The server, its connection slots, their generations. */
	assert_int_equal(ferry_test_alloc_walk(&w), 3);
}

static doca_error_t client_create_attempt(void *arg)
{
	(void)arg;
	return doca_comch_client_create(F->m.host, "alloc", (struct doca_comch_client **)&F->out);
}

static void client_create_succeeded(void *arg)
{
	(void)arg;
	assert_non_null(F->out);
	assert_int_equal(doca_comch_client_destroy(F->out), DOCA_SUCCESS);
	F->out = NULL;
}

static void test_client_create(void **state)
{
	struct ferry_test_alloc_walk w = {.call = "doca_comch_client_create",
					  .logged = "doca_comch_client_create: no memory for client 'alloc'",
					  .attempt = client_create_attempt,
					  .failed = out_failed,
					  .succeeded = client_create_succeeded};

	(void)state;
	assert_int_equal(ferry_test_alloc_walk(&w), 1);
}

/* ---- start ---- */

static void server_make(const char *name)
{
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, name, &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_done, send_done, 16), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_msg_recv_register(F->server, on_recv), DOCA_SUCCESS);
	assert_int_equal(
		doca_comch_server_event_connection_status_changed_register(F->server, on_connect, on_disconnect),
		DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
}

static void server_unmake(void)
{
	ferry_test_stop_idle(F->m.pe, doca_comch_server_as_ctx(F->server));
	assert_int_equal(doca_comch_server_destroy(F->server), DOCA_SUCCESS);
	F->server = NULL;
}

static void client_make(const char *name)
{
	assert_int_equal(doca_comch_client_create(F->m.host, name, &F->client), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_task_send_set_conf(F->client, send_done, send_done, 16), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_event_msg_recv_register(F->client, on_recv), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
}

static void client_unmake(void)
{
	ferry_test_stop_idle(F->m.pe, doca_comch_client_as_ctx(F->client));
	assert_int_equal(doca_comch_client_destroy(F->client), DOCA_SUCCESS);
	F->client = NULL;
}

/* A start that failed left the endpoint IDLE with no buffers and no tasks. */
static void ep_start_failed(struct comch_ep *ep)
{
	assert_int_equal(ferry_test_ctx_state(&ep->ctx), DOCA_CTX_STATE_IDLE);
	assert_null(ep->rx);
	assert_null(ep->slab);
	assert_null(ep->send_pool.mem);
}

static void server_start_prepare(void *arg)
{
	(void)arg;
	server_make("alloc-server-start");
}

static doca_error_t server_start_attempt(void *arg)
{
	(void)arg;
	return doca_ctx_start(doca_comch_server_as_ctx(F->server));
}

static void server_start_failed(void *arg)
{
	(void)arg;
	ep_start_failed(&F->server->ep);
}

static void server_start_succeeded(void *arg)
{
	(void)arg;
	assert_int_equal(ferry_test_ctx_state(doca_comch_server_as_ctx(F->server)), DOCA_CTX_STATE_RUNNING);
}

static void server_start_cleanup(void *arg)
{
	(void)arg;
	server_unmake();
}

static void test_server_start(void **state)
{
	struct ferry_test_alloc_walk w = {.call = "doca_ctx_start (comch server)",
					  .logged = "doca_ctx_start: ",
					  .fails_with = DOCA_ERROR_INITIALIZATION,
					  .prepare = server_start_prepare,
					  .attempt = server_start_attempt,
					  .failed = server_start_failed,
					  .succeeded = server_start_succeeded,
					  .cleanup = server_start_cleanup};

	(void)state;
	/* The send task pool, the receive buffer, the send slab. */
	assert_int_equal(ferry_test_alloc_walk(&w), 3);
}

static void client_start_prepare(void *arg)
{
	(void)arg;
	client_make("alloc-client-start");
}

static doca_error_t client_start_attempt(void *arg)
{
	(void)arg;
	return doca_ctx_start(doca_comch_client_as_ctx(F->client));
}

static void client_start_failed(void *arg)
{
	(void)arg;
	ep_start_failed(&F->client->ep);
}

static void client_start_succeeded(void *arg)
{
	(void)arg;
	/* Nobody listens under this name: it keeps trying until stopped. */
	assert_int_equal(ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)), DOCA_CTX_STATE_STARTING);
}

static void client_start_cleanup(void *arg)
{
	(void)arg;
	client_unmake();
}

static void test_client_start(void **state)
{
	struct ferry_test_alloc_walk w = {.call = "doca_ctx_start (comch client)",
					  .logged = "doca_ctx_start: ",
					  .fails_with = DOCA_ERROR_INITIALIZATION,
					  .ok = DOCA_ERROR_IN_PROGRESS,
					  .prepare = client_start_prepare,
					  .attempt = client_start_attempt,
					  .failed = client_start_failed,
					  .succeeded = client_start_succeeded,
					  .cleanup = client_start_cleanup};

	(void)state;
	assert_int_equal(ferry_test_alloc_walk(&w), 3);
}

/* ---- producer and consumer, on a live connection ---- */

static bool connected(void)
{
	return F->server_conn != NULL &&
	       ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)) == DOCA_CTX_STATE_RUNNING;
}

static struct doca_comch_connection *connect_pair(void)
{
	server_make("alloc-fast");
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	client_make("alloc-fast");
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(F->client)), DOCA_ERROR_IN_PROGRESS);
	FERRY_PROGRESS_UNTIL(F->m.pe, connected(), FERRY_TEST_WAIT_MS);
	assert_true(connected());
	return F->server_conn;
}

static void disconnect_pair(void)
{
	client_unmake();
	server_unmake();
}

static doca_error_t producer_attempt(void *arg)
{
	return doca_comch_producer_create(arg, (struct doca_comch_producer **)&F->out);
}

static void producer_failed(void *arg)
{
	struct doca_comch_connection *conn = arg;

	assert_null(F->out);
	assert_int_equal(conn->hub->num_producers, 0);
	assert_null(conn->hub->producers);
}

static void producer_succeeded(void *arg)
{
	struct doca_comch_connection *conn = arg;

	assert_non_null(F->out);
	assert_int_equal(conn->hub->num_producers, 1);
	assert_int_equal(doca_comch_producer_destroy(F->out), DOCA_SUCCESS);
	F->out = NULL;
	assert_int_equal(conn->hub->num_producers, 0);
}

struct consumer_arg {
	struct doca_comch_connection *conn;
	struct doca_mmap *mmap;
};

static doca_error_t consumer_attempt(void *arg)
{
	struct consumer_arg *a = arg;

	return doca_comch_consumer_create(a->conn, a->mmap, (struct doca_comch_consumer **)&F->out);
}

static void consumer_failed(void *arg)
{
	struct consumer_arg *a = arg;

	assert_null(F->out);
	assert_int_equal(a->conn->hub->num_consumers, 0);
	assert_null(a->conn->hub->consumers);
}

static void consumer_succeeded(void *arg)
{
	struct consumer_arg *a = arg;

	assert_non_null(F->out);
	assert_int_equal(a->conn->hub->num_consumers, 1);
	assert_int_equal(doca_comch_consumer_destroy(F->out), DOCA_SUCCESS);
	F->out = NULL;
	assert_int_equal(a->conn->hub->num_consumers, 0);
}

static void test_producer_consumer_create(void **state)
{
	static char mem[4096];
	struct consumer_arg ca = {NULL, NULL};
	struct ferry_test_alloc_walk pw = {.call = "doca_comch_producer_create",
					   .logged = "doca_comch_producer_create: no memory",
					   .attempt = producer_attempt,
					   .failed = producer_failed,
					   .succeeded = producer_succeeded};
	struct ferry_test_alloc_walk cw = {.call = "doca_comch_consumer_create",
					   .logged = "doca_comch_consumer_create: no memory",
					   .attempt = consumer_attempt,
					   .failed = consumer_failed,
					   .succeeded = consumer_succeeded,
					   .arg = &ca};

	(void)state;
	ca.conn = connect_pair();
	pw.arg = ca.conn;
	assert_int_equal(doca_mmap_create(&ca.mmap), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(ca.mmap, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(ca.mmap, F->m.dpu), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(ca.mmap), DOCA_SUCCESS);
	/* The producer, then its copy engine: an inline cross-process channel (itself, its slots, their access fields). */
	assert_int_equal(ferry_test_alloc_walk(&pw), 4);
	assert_int_equal(ferry_test_alloc_walk(&cw), 1);
	assert_int_equal(doca_mmap_destroy(ca.mmap), DOCA_SUCCESS);
	disconnect_pair();
}

/* ---- the server's record of a connecting client ---- */

static bool client_idle(void)
{
	return ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)) == DOCA_CTX_STATE_IDLE;
}

static void test_server_accept_no_memory(void **state)
{
	struct doca_ctx *sctx;

	(void)state;
	F->server_conn = NULL; /* an earlier test's, gone with its server */
	server_make("alloc-accept");
	sctx = doca_comch_server_as_ctx(F->server);
	assert_int_equal(doca_ctx_start(sctx), DOCA_SUCCESS);
	client_make("alloc-accept");
	ferry_test_log_reset();
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(F->client)), DOCA_ERROR_IN_PROGRESS);
	/* Nothing else allocates through the hook while the PE connects: the server's record does. */
	ferry_alloc_fail_nth(1);
	FERRY_PROGRESS_UNTIL(F->m.pe, client_idle(), FERRY_TEST_WAIT_MS);
	assert_false(ferry_alloc_fail_pending());
	ferry_alloc_fail_nth(0);
	assert_true(client_idle());
	assert_true(ferry_test_log_has("no memory for the connection of pid"));
	assert_true(ferry_test_log_has("the server closed the connection"));
	/* The server lives on, holding nothing of that client. */
	assert_int_equal(ferry_test_ctx_state(sctx), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(F->server->num_pending, 0);
	assert_int_equal(F->server->num_conns, 0);
	assert_null(F->server_conn);
	client_unmake();

	/* The next client is served. */
	client_make("alloc-accept");
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(F->client)), DOCA_ERROR_IN_PROGRESS);
	FERRY_PROGRESS_UNTIL(F->m.pe, connected(), FERRY_TEST_WAIT_MS);
	assert_true(connected());
	assert_int_equal(F->server->num_conns, 1);
	disconnect_pair();
	F->server_conn = NULL;
}

/* ---- the server's record of a consumer the client announces ---- */

static void post_recv_done(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	(void)t;
	(void)tu;
	(void)cu;
}

static bool consumer_conn_gone(void)
{
	return F->server_conn == NULL;
}

/* No memory for the record of a CONSUMER_UP: that connection ends with its line, nothing is kept. */
static void test_peer_consumer_record_no_memory(void **state)
{
	static char mem[4096];
	struct doca_comch_consumer *c = NULL;
	struct doca_mmap *mm = NULL;
	struct doca_comch_connection *client_conn = NULL;

	(void)state;
	F->server_conn = NULL;
	(void)connect_pair();
	assert_int_equal(doca_comch_client_get_connection(F->client, &client_conn), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create(&mm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(mm, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(mm, F->m.host), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(mm, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(mm), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_create(client_conn, mm, &c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(c, post_recv_done, post_recv_done, 1),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_consumer_as_ctx(c)), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
	/* CONSUMER_UP is on its way; the server's record is the next allocation through the hook. */
	ferry_alloc_fail_nth(1);
	FERRY_PROGRESS_UNTIL(F->m.pe, consumer_conn_gone(), FERRY_TEST_WAIT_MS);
	assert_false(ferry_alloc_fail_pending());
	ferry_alloc_fail_nth(0);
	assert_true(consumer_conn_gone());
	assert_true(ferry_test_log_has("no memory for the consumer's record"));
	assert_int_equal(F->server->num_conns, 0);
	ferry_test_stop_idle(F->m.pe, doca_comch_consumer_as_ctx(c));
	assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(mm), DOCA_SUCCESS);
	disconnect_pair();
	F->server_conn = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_server_create),
		cmocka_unit_test(test_client_create),
		cmocka_unit_test(test_server_start),
		cmocka_unit_test(test_client_start),
		cmocka_unit_test(test_producer_consumer_create),
		cmocka_unit_test(test_server_accept_no_memory),
		cmocka_unit_test(test_peer_consumer_record_no_memory),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
