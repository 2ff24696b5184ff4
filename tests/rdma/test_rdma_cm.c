/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_cm - DOCA RDMA's connection manager between two contexts of one
 * process, on 127.0.0.1 only (FERRY_RDMA_LISTEN_ADDR): listen, connect,
 * request/established callbacks on both sides, messages both ways, the peer's
 * address, disconnect and the peer's disconnection callback; a rejected
 * client, a client with no server and one whose server never answers (the
 * connection request timeout) get the failure callback; a server outlives
 * more clients than it holds connections; the rules.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ferry_test.h"
#include "rdma_fixture.h"

#define WAIT_MS 10000u

struct cm_side {
	struct side s; /* first: the context's user data points here */
	unsigned int requests, established, failures, disconnects;
	bool reject;
	bool hold; /* leave requests pending (in pending) */
	struct doca_rdma_connection *pending;
	struct doca_rdma_connection *conn;
	union doca_data conn_ud;
};

static void on_request(struct doca_rdma_connection *conn, union doca_data ctx_ud)
{
	struct cm_side *c = ctx_ud.ptr;

	c->requests++;
	if (c->hold)
		c->pending = conn;
	else if (c->reject)
		assert_int_equal(doca_rdma_connection_reject(conn), DOCA_SUCCESS);
	else if (c->requests % 2 == 1) {
		/* Private data: a length with no bytes is refused; real bytes are taken (nothing reads them). */
		assert_int_equal(doca_rdma_connection_accept(conn, NULL, 5), DOCA_ERROR_INVALID_VALUE);
		assert_logged("private data at NULL");
		assert_int_equal(doca_rdma_connection_accept(conn, "ferry", 5), DOCA_SUCCESS);
	} else
		assert_int_equal(doca_rdma_connection_accept(conn, NULL, 0), DOCA_SUCCESS);
}

static void on_established(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	struct cm_side *c = ctx_ud.ptr;

	c->established++;
	c->conn = conn;
	c->conn_ud = conn_ud;
}

static void on_failure(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	struct cm_side *c = ctx_ud.ptr;

	c->failures++;
	c->conn = conn;
	c->conn_ud = conn_ud;
}

static void on_disconnect(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	struct cm_side *c = ctx_ud.ptr;

	(void)conn_ud;
	c->disconnects++;
	/* DOCA's samples disconnect the connection the peer closed, and stop if that fails. */
	assert_int_equal(doca_rdma_connection_disconnect(conn), DOCA_SUCCESS);
}

static void cm_init(struct cm_side *c)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(side_prepare(&c->s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_set_connection_state_callbacks(c->s.rdma, on_request, on_established, on_failure,
								  on_disconnect),
			 DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(c->s.ctx), DOCA_SUCCESS);
}

static void cm_fini(struct cm_side *c, struct cm_side *other)
{
	assert_true(side_stop(&c->s, other != NULL ? &other->s : NULL));
	side_fini(&c->s);
}

/* A port of 127.0.0.1 nobody holds right now. */
static uint16_t free_port(void)
{
	uint16_t port = side_free_port();

	assert_int_not_equal(port, 0);
	return port;
}

static void cm_connect(struct cm_side *server, struct cm_side *client, uint16_t port)
{
	struct doca_rdma_addr *addr;

	assert_int_equal(doca_rdma_start_listen_to_port(server->s.rdma, port), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", port, &addr), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect_to_addr(client->s.rdma, addr, (union doca_data){.u64 = 77}), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_addr_destroy(addr), DOCA_SUCCESS);
}

static void send_text(struct cm_side *from, struct cm_side *to, const char *text)
{
	size_t len = strlen(text);
	struct doca_buf *src = side_buf(&from->s, 0, len, len);
	struct doca_buf *dst = side_buf(&to->s, 4096, 4096, 0);
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st;
	unsigned int from_ok = from->s.ok, to_ok = to->s.ok;

	memcpy(from->s.mem, text, len);
	assert_int_equal(doca_rdma_task_receive_allocate_init(to->s.rdma, dst, (union doca_data){0}, &rt),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_send_allocate_init(from->s.rdma, from->conn, src, (union doca_data){0}, &st),
			 DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
	assert_true(side_wait(&from->s, &to->s, &to->s.ok, to_ok + 1, WAIT_MS));
	assert_true(side_wait(&from->s, &to->s, &from->s.ok, from_ok + 1, WAIT_MS));
	assert_memory_equal(to->s.mem + 4096, text, len);
	assert_ptr_equal(doca_rdma_task_receive_get_result_rdma_connection(rt), to->conn);
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
}

static void test_cm_connect_send_disconnect(void **state)
{
	struct cm_side server, client;
	struct doca_rdma_addr *peer;
	enum doca_rdma_addr_type type;
	const char *text;
	uint16_t port = free_port(), pport;

	(void)state;
	cm_init(&server);
	cm_init(&client);
	cm_connect(&server, &client, port);
	assert_true(side_wait(&server.s, &client.s, &client.established, 1, WAIT_MS));
	assert_true(side_wait(&server.s, &client.s, &server.established, 1, WAIT_MS));
	assert_int_equal(server.requests, 1);
	assert_int_equal(client.conn_ud.u64, 77);
	assert_int_equal(client.failures + server.failures, 0);
	assert_int_equal(doca_rdma_connection_get_addr(server.conn, &peer), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_addr_get_params(peer, &type, &text, &pport), DOCA_SUCCESS);
	assert_int_equal(type, DOCA_RDMA_ADDR_TYPE_IPv4);
	assert_string_equal(text, "127.0.0.1");
	send_text(&client, &server, "hello from the client");
	send_text(&server, &client, "and back from the server");
	/* The client leaves: the server hears it; a second disconnect is harmless. */
	assert_int_equal(doca_rdma_connection_disconnect(client.conn), DOCA_SUCCESS);
	assert_true(side_wait(&server.s, &client.s, &server.disconnects, 1, WAIT_MS));
	assert_int_equal(doca_rdma_connection_disconnect(client.conn), DOCA_SUCCESS);
	assert_int_equal(client.disconnects, 0);
	assert_int_equal(doca_rdma_stop_listen_to_port(server.s.rdma, port), DOCA_SUCCESS);
	cm_fini(&client, &server);
	cm_fini(&server, NULL);
}

/* A server of @p max_conns connections (cm_init, with the maximum set before start). */
static void cm_init_server(struct cm_side *c, uint16_t max_conns)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(side_prepare(&c->s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_set_max_num_connections(c->s.rdma, max_conns), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_set_connection_state_callbacks(c->s.rdma, on_request, on_established, on_failure,
								  on_disconnect),
			 DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(c->s.ctx), DOCA_SUCCESS);
}

/* One client of @p server at @p port: refused, or served (a message each way) and gone; its id on the server. */
static uint32_t serve_one_client(struct cm_side *server, uint16_t port, bool refused)
{
	struct doca_rdma_addr *addr;
	struct cm_side client;
	unsigned int established = server->established, disconnects = server->disconnects;
	uint32_t id = UINT32_MAX;

	cm_init(&client);
	assert_int_equal(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", port, &addr), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect_to_addr(client.s.rdma, addr, (union doca_data){.u64 = 3}), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_addr_destroy(addr), DOCA_SUCCESS);
	if (refused) {
		assert_true(side_wait(&server->s, &client.s, &client.failures, 1, WAIT_MS));
	} else {
		assert_true(side_wait(&server->s, &client.s, &client.established, 1, WAIT_MS));
		assert_true(side_wait(&server->s, &client.s, &server->established, established + 1, WAIT_MS));
		assert_int_equal(doca_rdma_connection_get_id(server->conn, &id), DOCA_SUCCESS);
		send_text(&client, server, "a client");
		send_text(server, &client, "served");
		assert_int_equal(doca_rdma_connection_disconnect(client.conn), DOCA_SUCCESS);
		assert_true(side_wait(&server->s, &client.s, &server->disconnects, disconnects + 1, WAIT_MS));
	}
	cm_fini(&client, server);
	return id;
}

/*
 * A server takes client after client for as long as it runs: a connection
 * that is over (disconnected, refused) gives its slot to the next one, with an
 * id of its own, so neither departed clients nor refused ones use the server's
 * connections up.
 */
static void test_cm_server_outlives_its_clients(void **state)
{
	struct cm_side server;
	uint16_t port = free_port();
	uint32_t ids[3];

	(void)state;
	/*
	 * One connection at a time (DOCA's default): the refused client's slot,
	 * then each departed client's, must serve the next. Few connections: UCX
	 * 1.13's TCP connection manager asserted once in a CI run of many more
	 * (tcp_sockcm_ep.c:416, an endpoint's state during a send), not reproduced
	 * in 90 runs since.
	 */
	cm_init_server(&server, 1);
	assert_int_equal(doca_rdma_start_listen_to_port(server.s.rdma, port), DOCA_SUCCESS);
	server.reject = true;
	(void)serve_one_client(&server, port, true);
	server.reject = false;
	for (int i = 0; i < 3; i++) {
		ids[i] = serve_one_client(&server, port, false);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(ids[i], ids[j]);
	}
	assert_int_equal(server.requests, 4);
	assert_int_equal(server.established, 3);
	assert_int_equal(doca_rdma_stop_listen_to_port(server.s.rdma, port), DOCA_SUCCESS);
	cm_fini(&server, NULL);
}

/*
 * The listener goes while a request is pending: the request is rejected with
 * it (the client fails), and a late accept is refused, not handed to UCX with
 * a request of a listener that is gone.
 */
static void test_cm_stop_listen_with_request_pending(void **state)
{
	struct cm_side server, client;
	uint16_t port = free_port();

	(void)state;
	cm_init(&server);
	cm_init(&client);
	server.hold = true;
	cm_connect(&server, &client, port);
	assert_true(side_wait(&server.s, &client.s, &server.requests, 1, WAIT_MS));
	assert_non_null(server.pending);
	assert_int_equal(doca_rdma_stop_listen_to_port(server.s.rdma, port), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connection_accept(server.pending, NULL, 0), DOCA_ERROR_CONNECTION_ABORTED);
	assert_int_equal(doca_rdma_connection_reject(server.pending), DOCA_ERROR_CONNECTION_ABORTED);
	assert_true(side_wait(&server.s, &client.s, &client.failures, 1, WAIT_MS));
	assert_int_equal(server.established + client.established, 0);
	cm_fini(&client, &server);
	cm_fini(&server, NULL);
}

static void test_cm_reject(void **state)
{
	struct cm_side server, client;

	(void)state;
	cm_init(&server);
	cm_init(&client);
	server.reject = true;
	cm_connect(&server, &client, free_port());
	assert_true(side_wait(&server.s, &client.s, &client.failures, 1, WAIT_MS));
	assert_int_equal(client.established + server.established, 0);
	assert_int_equal(client.conn_ud.u64, 77);
	cm_fini(&client, &server);
	cm_fini(&server, NULL);
}

static void test_cm_no_server(void **state)
{
	struct cm_side client;
	struct doca_rdma_addr *addr;

	(void)state;
	cm_init(&client);
	assert_int_equal(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", free_port(), &addr),
			 DOCA_SUCCESS);
	ferry_test_log_reset();
	if (doca_rdma_connect_to_addr(client.s.rdma, addr, (union doca_data){.u64 = 5}) == DOCA_SUCCESS)
		assert_true(side_wait(&client.s, NULL, &client.failures, 1, WAIT_MS));
	assert_int_equal(client.established, 0);
	assert_int_equal(doca_rdma_addr_destroy(addr), DOCA_SUCCESS);
	cm_fini(&client, NULL);
}

/* A port that accepts TCP but never answers as a UCX server: the request times out into the failure callback. */
static void test_cm_timeout(void **state)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	struct cm_side client;
	struct doca_rdma_addr *addr;
	uint64_t t0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	memset(&client, 0, sizeof(client));
	assert_int_equal(side_prepare(&client.s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_set_connection_state_callbacks(client.s.rdma, NULL, on_established, on_failure,
								  on_disconnect),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_set_connection_request_timeout(client.s.rdma, 300), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(client.s.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", ntohs(a.sin_port), &addr),
			 DOCA_SUCCESS);
	t0 = side_now_ms();
	assert_int_equal(doca_rdma_connect_to_addr(client.s.rdma, addr, (union doca_data){.u64 = 9}), DOCA_SUCCESS);
	assert_true(side_wait(&client.s, NULL, &client.failures, 1, WAIT_MS));
	assert_true(side_now_ms() - t0 < 5000);
	assert_int_equal(client.conn_ud.u64, 9);
	assert_int_equal(client.established, 0);
	assert_int_equal(doca_rdma_addr_destroy(addr), DOCA_SUCCESS);
	cm_fini(&client, NULL);
	close(fd);
}

static void test_cm_rules(void **state)
{
	struct cm_side c;
	struct doca_rdma_addr *addr = NULL;
	uint16_t port = free_port();

	(void)state;
	assert_int_equal(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "not an address", 1, &addr),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv6, "::1", 1, &addr), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_addr_destroy(addr), DOCA_SUCCESS);
	memset(&c, 0, sizeof(c));
	assert_int_equal(side_prepare(&c.s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_set_connection_state_callbacks(c.s.rdma, NULL, NULL, on_failure, on_disconnect),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_rdma_start_listen_to_port(c.s.rdma, port), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_ctx_start(c.s.ctx), DOCA_SUCCESS);
	assert_int_equal(
		doca_rdma_set_connection_state_callbacks(c.s.rdma, NULL, on_established, on_failure, on_disconnect),
		DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_rdma_start_listen_to_port(c.s.rdma, port), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_start_listen_to_port(c.s.rdma, port), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_rdma_stop_listen_to_port(c.s.rdma, port + 1), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(doca_rdma_bridge_established(c.s.rdma, NULL), DOCA_ERROR_NOT_SUPPORTED);
	cm_fini(&c, NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cm_rules),
		cmocka_unit_test(test_cm_connect_send_disconnect),
		cmocka_unit_test(test_cm_reject),
		cmocka_unit_test(test_cm_stop_listen_with_request_pending),
		cmocka_unit_test(test_cm_no_server),
		cmocka_unit_test(test_cm_timeout),
		cmocka_unit_test(test_cm_server_outlives_its_clients),
	};

	/* Listen on the loopback interface only. */
	setenv("FERRY_RDMA_LISTEN_ADDR", "127.0.0.1", 1);
	ferry_test_log_reset();
	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
