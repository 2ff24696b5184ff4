/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_net - what a device's network identity changes for DOCA RDMA.
 * meson runs it once per FERRY_TEST_EXPECT (tests/rdma/meson.build):
 *   default     no binding: GID ::ffff:127.0.0.1, no IPv4 address, the connection
 *               manager listens on 127.0.0.1 only, and a client reaches it there
 *   bound       FERRY_RDMA_NET names lo (by name or by address) and UCX_NET_DEVICES
 *               is unset: the device answers 127.0.0.1, UCX's TCP is kept to lo by
 *               Ferry, and a connection manager pair exchanges a message
 *   missing     FERRY_RDMA_NET names an interface this host lacks: doca_ctx_start
 *               and the GID query answer DOCA_ERROR_NOT_FOUND with a log line
 *   malformed   FERRY_RDMA_NET is no identity: every device list fails
 *   bad_timeout FERRY_RDMA_TIMEOUT_MS is no number of milliseconds: doca_rdma_create
 *               refuses with DOCA_ERROR_INVALID_VALUE and a log line
 * Binding to a real interface between two network namespaces is rdma_netns's.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ferry_test.h"
#include "rdma_fixture.h"

#define WAIT_MS 10000u

static const char *expect(void)
{
	const char *e = getenv("FERRY_TEST_EXPECT");

	assert_non_null(e);
	return e;
}

static struct doca_devinfo *first_devinfo(struct doca_devinfo ***list)
{
	uint32_t n = 0;

	assert_int_equal(doca_devinfo_create_list(list, &n), DOCA_SUCCESS);
	assert_true(n > 0);
	return (*list)[0];
}

static void test_identity(void **state)
{
	struct doca_devinfo **list;
	struct doca_devinfo *info;
	struct doca_rdma_gid gid;
	uint8_t ip[DOCA_DEVINFO_IPV4_ADDR_SIZE];
	const uint8_t lo[4] = {127, 0, 0, 1};

	(void)state;
	if (strcmp(expect(), "malformed") == 0) {
		uint32_t n;

		ferry_test_log_reset();
		assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_ERROR_INITIALIZATION);
		assert_logged("FERRY_RDMA_NET");
		return;
	}
	info = first_devinfo(&list);
	if (strcmp(expect(), "missing") == 0) {
		ferry_test_log_reset();
		assert_int_equal(doca_rdma_cap_get_gid(info, 0, 1, &gid), DOCA_ERROR_NOT_FOUND);
		assert_logged("no interface of this host has");
		assert_int_equal(doca_devinfo_get_ipv4_addr(info, ip, sizeof(ip)), DOCA_ERROR_NOT_FOUND);
	} else {
		assert_int_equal(doca_rdma_cap_get_gid(info, 0, 1, &gid), DOCA_SUCCESS);
		assert_int_equal(gid.raw[10], 0xff);
		assert_int_equal(gid.raw[11], 0xff);
		assert_memory_equal(&gid.raw[12], lo, 4);
		if (strcmp(expect(), "bound") == 0) {
			assert_int_equal(doca_devinfo_get_ipv4_addr(info, ip, sizeof(ip)), DOCA_SUCCESS);
			assert_memory_equal(ip, lo, 4);
		} else { /* default, bad_timeout */
			assert_int_equal(doca_devinfo_get_ipv4_addr(info, ip, sizeof(ip)), DOCA_ERROR_NOT_FOUND);
		}
	}
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
}

/* ---- the connection manager on the identity's address ---- */

struct cm_side {
	struct side s; /* first: the context's user data points here */
	unsigned int established;
	struct doca_rdma_connection *conn;
};

static void on_request(struct doca_rdma_connection *conn, union doca_data ctx_ud)
{
	(void)ctx_ud;
	assert_int_equal(doca_rdma_connection_accept(conn, NULL, 0), DOCA_SUCCESS);
}

static void on_established(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	struct cm_side *c = ctx_ud.ptr;

	(void)conn_ud;
	c->established++;
	c->conn = conn;
}

static void on_other(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	(void)conn;
	(void)conn_ud;
	(void)ctx_ud;
}

static void cm_prepare(struct cm_side *c)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(side_prepare(&c->s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE),
			 DOCA_SUCCESS);
	assert_int_equal(
		doca_rdma_set_connection_state_callbacks(c->s.rdma, on_request, on_established, on_other, on_other),
		DOCA_SUCCESS);
}

/* The address the kernel lists for a TCP socket listening on @p port (/proc/net/tcp), or 0 when none. */
static uint32_t listening_on(uint16_t port)
{
	FILE *f = fopen("/proc/net/tcp", "r");
	char line[256];
	uint32_t found = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned int addr, p, st;

		if (sscanf(line, " %*u: %8x:%4x %*8x:%*4x %2x", &addr, &p, &st) == 3 && p == port && st == 0x0a)
			found = addr; /* as the kernel prints it: network order read as a host number */
	}
	fclose(f);
	return found;
}

/* A port of 127.0.0.1 nobody holds right now. */
static uint16_t free_port(void)
{
	uint16_t port = side_free_port();

	assert_int_not_equal(port, 0);
	return port;
}

static void test_listen(void **state)
{
	struct cm_side server, client;
	struct doca_rdma_addr *addr;
	uint16_t port = free_port();

	(void)state;
	if (strcmp(expect(), "malformed") == 0)
		return;
	if (strcmp(expect(), "bad_timeout") == 0) {
		struct doca_dev *dev = side_open_dev();
		struct doca_rdma *rdma = NULL;

		assert_non_null(dev);
		ferry_test_log_reset();
		assert_int_equal(doca_rdma_create(dev, &rdma), DOCA_ERROR_INVALID_VALUE);
		assert_logged("FERRY_RDMA_TIMEOUT_MS");
		assert_null(rdma);
		assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
		return;
	}
	assert_null(getenv("FERRY_RDMA_LISTEN_ADDR"));
	cm_prepare(&server);
	if (strcmp(expect(), "missing") == 0) {
		ferry_test_log_reset();
		assert_int_equal(doca_ctx_start(server.s.ctx), DOCA_ERROR_NOT_FOUND);
		assert_logged("FERRY_RDMA_NET");
		side_fini(&server.s);
		return;
	}
	cm_prepare(&client);
	assert_int_equal(doca_ctx_start(server.s.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(client.s.ctx), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_start_listen_to_port(server.s.rdma, port), DOCA_SUCCESS);
	/* The listener is on the identity's address, 127.0.0.1, not on every address. */
	{
		struct in_addr lo = {.s_addr = htonl(INADDR_LOOPBACK)};

		assert_int_equal(listening_on(port), (uint32_t)lo.s_addr);
	}
	assert_int_equal(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", port, &addr), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect_to_addr(client.s.rdma, addr, (union doca_data){0}), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_addr_destroy(addr), DOCA_SUCCESS);
	assert_true(side_wait(&client.s, &server.s, &client.established, 1, WAIT_MS));
	assert_true(side_wait(&client.s, &server.s, &server.established, 1, WAIT_MS));
	/* A message crosses (over TCP on lo when UCX_TLS says tcp). */
	{
		struct doca_buf *src = side_buf(&client.s, 0, 5, 5);
		struct doca_buf *dst = side_buf(&server.s, 0, 64, 0);
		struct doca_rdma_task_receive *rt;
		struct doca_rdma_task_send *st;

		memcpy(client.s.mem, "hello", 5);
		assert_int_equal(doca_rdma_task_receive_allocate_init(server.s.rdma, dst, (union doca_data){0}, &rt),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
		assert_int_equal(
			doca_rdma_task_send_allocate_init(client.s.rdma, client.conn, src, (union doca_data){0}, &st),
			DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
		assert_true(side_wait(&client.s, &server.s, &server.s.ok, 1, WAIT_MS));
		assert_true(side_wait(&client.s, &server.s, &client.s.ok, 1, WAIT_MS));
		assert_memory_equal(server.s.mem, "hello", 5);
		doca_task_free(doca_rdma_task_receive_as_task(rt));
		doca_task_free(doca_rdma_task_send_as_task(st));
		doca_buf_dec_refcount(src, NULL);
		doca_buf_dec_refcount(dst, NULL);
	}
	assert_true(side_stop(&client.s, &server.s));
	assert_true(side_stop(&server.s, &client.s));
	side_fini(&client.s);
	side_fini(&server.s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_listen),
	};

	ferry_test_log_reset();
	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
