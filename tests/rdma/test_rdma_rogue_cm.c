/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_rogue_cm - clients of a DOCA RDMA connection manager server that
 * are not Ferry: another process speaks UCX's client-server protocol to the
 * server's port directly. The server accepts every request, as NVIDIA's
 * samples do. Each such connection must end (the accept refused, or the
 * failure callback when no Ferry hello comes), its slot come back (the
 * server holds DOCA's default of one connection) and an honest Ferry client
 * be served afterwards:
 *   - plain UCX programs: without peer-failure handling (before the fix a
 *     server's accept of one freed UCX's request twice and crashed), with it
 *     and then closing, going silent, or dying; with other UCP features;
 *   - a request UCX cannot read (the honest client's bytes with an sa_data
 *     header of an unknown version): it is rejected (before, it stayed with
 *     its socket until the listener went).
 * The server's descriptors must not grow (a request kept holds its socket). What UCX 1.13 itself
 * aborts on (docs/cross-machine.md, "Who may reach the port") is not sent.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <ucp/api/ucp.h>

#include "ferry_test.h"
#include "ferry_test_fds.h"
#include "rdma_fixture.h"

#define WAIT_MS 10000u

/* ---- the rogue: a process of its own speaking UCX only ---- */

enum rogue_kind {
	ROGUE_CLOSE,        /* connects with peer-failure handling, closes after a moment */
	ROGUE_SILENT,       /* connects, then never answers (the test kills it) */
	ROGUE_DIE,          /* connects, then exits without closing */
	ROGUE_NO_PEER_MODE, /* connects without peer-failure handling (UCX's default), closes */
	ROGUE_BAD_VERSION,  /* sends the honest request with an sa_data header of version 7 */
};

/*
 * Exit statuses from here up: the rogue could not even try (which would test
 * nothing). Below, its own end: 0, or its UCX dying of Ferry's hello, whose
 * active message ids it never registered (UCX 1.13 reads outside its handler
 * table for them; a signal, or 1 from ASan's handler).
 */
#define ROGUE_SETUP_FAILED 100

struct rogue_plan {
	uint64_t features;
	enum rogue_kind kind;
};

static struct sockaddr_in loopback(uint16_t port)
{
	return (struct sockaddr_in){
		.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
}

static void rogue_progress_ms(ucp_worker_h w, unsigned int ms)
{
	uint64_t end = side_now_ms() + ms;

	while (side_now_ms() < end)
		if (ucp_worker_progress(w) == 0)
			usleep(50);
}

static void rogue_ep_err(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	(void)arg;
	(void)ep;
	(void)status;
}

static void rogue_ep_close(ucp_worker_h w, ucp_ep_h e)
{
	ucp_request_param_t close = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
	ucs_status_ptr_t req = ucp_ep_close_nbx(e, &close);

	while (UCS_PTR_IS_PTR(req) && ucp_request_check_status(req) == UCS_INPROGRESS)
		ucp_worker_progress(w);
	if (UCS_PTR_IS_PTR(req))
		ucp_request_free(req);
}

/*
 * What UCX's client sends first to a server (its connection manager's header
 * and private data), read off a listener of the rogue's own; its length.
 */
static size_t capture_request(ucp_worker_h w, ucp_ep_params_t *ep, uint8_t *out, size_t room)
{
	struct sockaddr_in own = loopback(0);
	socklen_t olen = sizeof(own);
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), fd = -1;
	uint64_t end = side_now_ms() + 3000;
	size_t got = 0;
	ucp_ep_h e;

	if (lfd < 0 || bind(lfd, (struct sockaddr *)&own, sizeof(own)) != 0 || listen(lfd, 1) != 0 ||
	    getsockname(lfd, (struct sockaddr *)&own, &olen) != 0)
		return 0;
	ep->sockaddr.addr = (const struct sockaddr *)&own;
	if (ucp_ep_create(w, ep, &e) != UCS_OK)
		return 0;
	while (side_now_ms() < end) {
		ssize_t n;

		ucp_worker_progress(w);
		if (fd < 0) {
			fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
			continue;
		}
		n = read(fd, out + got, room - got);
		if (n > 0)
			got += (size_t)n;
		else if (n == 0 || got > 0)
			break;
		usleep(100);
	}
	if (fd >= 0)
		close(fd);
	close(lfd);
	rogue_ep_close(w, e);
	return got;
}

/* Send @p len bytes to 127.0.0.1:@p port, wait for the server to answer or close, close. */
static void send_request(uint16_t port, const uint8_t *p, size_t len)
{
	struct sockaddr_in sa = loopback(port);
	struct timeval tv = {.tv_sec = 1};
	uint8_t sink[256];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return;
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) == 0 && write(fd, p, len) == (ssize_t)len)
		(void)recv(fd, sink, sizeof(sink), 0);
	close(fd);
}

/*
 * UCX 1.13's request over TCP: a 16-byte header (the private data's length,
 * a status, padding), then the private data, whose first 8 bytes are the
 * client's endpoint id and the ninth the sa_data header (version in its top
 * three bits). Checked on the captured bytes, so a UCX that lays it out
 * otherwise fails the test instead of testing nothing.
 */
#define SOCKCM_HDR      16u
#define SA_HEADER_AT    (SOCKCM_HDR + 8u)
#define SA_VERSION_BITS 0xe0u

static int rogue_bad_version(ucp_worker_h w, ucp_ep_params_t *ep, uint16_t port)
{
	uint8_t req[4096];
	size_t len = capture_request(w, ep, req, sizeof(req));
	uint64_t priv_len;

	if (len <= SA_HEADER_AT)
		return ROGUE_SETUP_FAILED + 2;
	memcpy(&priv_len, req, sizeof(priv_len));
	if (priv_len != len - SOCKCM_HDR)
		return ROGUE_SETUP_FAILED + 3;
	req[SA_HEADER_AT] |= SA_VERSION_BITS;
	send_request(port, req, len);
	return 0;
}

/* The rogue's whole life, against 127.0.0.1:@p port; its exit status. */
static int rogue_run(const struct rogue_plan *plan, uint16_t port)
{
	ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = plan->features};
	ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				  .thread_mode = UCS_THREAD_MODE_SINGLE};
	struct sockaddr_in sa = loopback(port);
	ucp_ep_params_t ep = {
		.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
			      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER,
		.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
		.sockaddr = {.addr = (const struct sockaddr *)&sa, .addrlen = sizeof(sa)},
		.err_mode = UCP_ERR_HANDLING_MODE_PEER,
		.err_handler = {.cb = rogue_ep_err},
	};
	ucp_context_h ctx;
	ucp_worker_h w;
	ucp_ep_h e;

	if (ucp_init(&params, NULL, &ctx) != UCS_OK || ucp_worker_create(ctx, &wp, &w) != UCS_OK)
		return ROGUE_SETUP_FAILED;
	if (plan->kind == ROGUE_BAD_VERSION)
		return rogue_bad_version(w, &ep, port);
	if (plan->kind == ROGUE_NO_PEER_MODE)
		ep.field_mask &= ~(uint64_t)(UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER);
	if (ucp_ep_create(w, &ep, &e) != UCS_OK)
		return ROGUE_SETUP_FAILED + 1;
	rogue_progress_ms(w, 300);
	if (plan->kind == ROGUE_DIE)
		_exit(0);
	if (plan->kind == ROGUE_SILENT)
		for (;;)
			pause(); /* until the test kills it */
	rogue_ep_close(w, e);
	ucp_worker_destroy(w);
	ucp_cleanup(ctx);
	return 0;
}

/*
 * The rogue runs in a fresh image of this program (exec of /proc/self/exe):
 * a fork would inherit this process's UCX state (its async thread's
 * bookkeeping without the thread).
 */
static pid_t rogue_spawn(const struct rogue_plan *plan, uint16_t port)
{
	char features[24], kind[8], port_s[8];
	pid_t pid;

	snprintf(features, sizeof(features), "%llu", (unsigned long long)plan->features);
	snprintf(kind, sizeof(kind), "%d", (int)plan->kind);
	snprintf(port_s, sizeof(port_s), "%u", port);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/proc/self/exe", "test_rdma_rogue_cm", "--rogue", features, kind, port_s, (char *)NULL);
		_exit(ROGUE_SETUP_FAILED + 4);
	}
	return pid;
}

/* ---- the server (and the honest client after the rogue): Ferry contexts ---- */

struct cm_end {
	struct side s;
	unsigned int requests, refused, established, failures, disconnects;
	struct doca_rdma_connection *conn;
};

static void on_request(struct doca_rdma_connection *conn, union doca_data ctx_ud)
{
	struct cm_end *c = ctx_ud.ptr;

	c->requests++;
	/* A request UCX cannot read fails here already, and the slot is free again at once. */
	if (doca_rdma_connection_accept(conn, NULL, 0) != DOCA_SUCCESS)
		c->refused++;
}

static void on_established(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	struct cm_end *c = ctx_ud.ptr;

	(void)conn_ud;
	c->established++;
	c->conn = conn;
}

static void on_failure(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	(void)conn;
	(void)conn_ud;
	((struct cm_end *)ctx_ud.ptr)->failures++;
}

static void on_disconnect(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	(void)conn_ud;
	((struct cm_end *)ctx_ud.ptr)->disconnects++;
	assert_int_equal(doca_rdma_connection_disconnect(conn), DOCA_SUCCESS);
}

static void cm_end_init(struct cm_end *c)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(side_prepare(&c->s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE),
			 DOCA_SUCCESS);
	assert_int_equal(doca_ctx_set_user_data(c->s.ctx, (union doca_data){.ptr = c}), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_set_connection_state_callbacks(c->s.rdma, on_request, on_established, on_failure,
								  on_disconnect),
			 DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(c->s.ctx), DOCA_SUCCESS);
}

static void cm_end_fini(struct cm_end *c, struct cm_end *other)
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

/* Progress the server until the rogue exits (killed after @p kill_ms, unless 0); its wait status. */
static int serve_until_exit(struct cm_end *sv, pid_t pid, unsigned int kill_ms)
{
	uint64_t start = side_now_ms();
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		assert_true(r >= 0);
		if (r == pid)
			return status;
		if (kill_ms != 0 && side_now_ms() - start > kill_ms)
			(void)kill(pid, SIGKILL);
		if (side_now_ms() - start > 60000) {
			(void)kill(pid, SIGKILL);
			fail_msg("the rogue did not end");
		}
		if (doca_pe_progress(sv->s.pe) == 0)
			usleep(50);
	}
}

/* Every request the server saw has ended: refused at accept, failed, or disconnected. */
static bool requests_ended(struct cm_end *sv)
{
	uint64_t end = side_now_ms() + WAIT_MS;

	while (sv->refused + sv->failures + sv->disconnects < sv->requests) {
		if (side_now_ms() > end)
			return false;
		if (doca_pe_progress(sv->s.pe) == 0)
			usleep(50);
	}
	return true;
}

/* An honest Ferry client connects to @p sv, both sides see it established, and it leaves. */
static void honest_client_served(struct cm_end *sv, uint16_t port)
{
	struct doca_rdma_addr *addr;
	struct cm_end client;
	unsigned int established = sv->established, disconnects = sv->disconnects;

	cm_end_init(&client);
	assert_int_equal(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, "127.0.0.1", port, &addr), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect_to_addr(client.s.rdma, addr, (union doca_data){.u64 = 1}), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_addr_destroy(addr), DOCA_SUCCESS);
	assert_true(side_wait(&sv->s, &client.s, &client.established, 1, WAIT_MS));
	assert_true(side_wait(&sv->s, &client.s, &sv->established, established + 1, WAIT_MS));
	assert_int_equal(doca_rdma_connection_disconnect(client.conn), DOCA_SUCCESS);
	assert_true(side_wait(&sv->s, &client.s, &sv->disconnects, disconnects + 1, WAIT_MS));
	cm_end_fini(&client, sv);
}

/* Progress @p sv until this process holds at most @p most fds, or the wait ran out; the last count. */
static int fds_settle_to(struct cm_end *sv, int most)
{
	uint64_t end = side_now_ms() + WAIT_MS;
	int n;

	while ((n = ferry_test_count_fds()) > most && side_now_ms() < end)
		if (doca_pe_progress(sv->s.pe) == 0)
			usleep(500);
	return n;
}

static void attack(const struct rogue_plan *plan)
{
	struct cm_end sv;
	uint16_t port = free_port();
	int status, fds_before;
	pid_t pid;

	cm_end_init(&sv);
	assert_int_equal(doca_rdma_start_listen_to_port(sv.s.rdma, port), DOCA_SUCCESS);
	/* An honest client first: what UCX opens for its first connection is not the rogue's. */
	honest_client_served(&sv, port);
	fds_before = ferry_test_count_fds();

	pid = rogue_spawn(plan, port);
	status = serve_until_exit(&sv, pid, plan->kind == ROGUE_SILENT ? 1500 : 0);
	if (plan->kind != ROGUE_SILENT)
		assert_true(WIFEXITED(status) || WIFSIGNALED(status));
	assert_false(WIFEXITED(status) && WEXITSTATUS(status) >= ROGUE_SETUP_FAILED);
	assert_true(sv.requests >= 1);
	assert_true(requests_ended(&sv));
	assert_int_equal(sv.established, 1); /* the honest client's only */

	honest_client_served(&sv, port);
	assert_true(fds_settle_to(&sv, fds_before) <= fds_before);
	assert_int_equal(doca_rdma_stop_listen_to_port(sv.s.rdma, port), DOCA_SUCCESS);
	cm_end_fini(&sv, NULL);
}

static void test_client_without_peer_mode(void **state)
{
	(void)state;
	attack(&(struct rogue_plan){.features = UCP_FEATURE_AM, .kind = ROGUE_NO_PEER_MODE});
}

static void test_client_closes(void **state)
{
	(void)state;
	attack(&(struct rogue_plan){.features = UCP_FEATURE_AM, .kind = ROGUE_CLOSE});
}

static void test_client_of_other_features_closes(void **state)
{
	(void)state;
	attack(&(struct rogue_plan){.features = UCP_FEATURE_TAG, .kind = ROGUE_CLOSE});
}

static void test_client_goes_silent(void **state)
{
	(void)state;
	attack(&(struct rogue_plan){.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64, .kind = ROGUE_SILENT});
}

static void test_client_dies(void **state)
{
	(void)state;
	attack(&(struct rogue_plan){.features = UCP_FEATURE_AM, .kind = ROGUE_DIE});
}

static void test_requests_of_unknown_version(void **state)
{
	(void)state;
	attack(&(struct rogue_plan){.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP, .kind = ROGUE_BAD_VERSION});
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_client_without_peer_mode),
		cmocka_unit_test(test_client_closes),
		cmocka_unit_test(test_client_of_other_features_closes),
		cmocka_unit_test(test_client_goes_silent),
		cmocka_unit_test(test_client_dies),
		cmocka_unit_test(test_requests_of_unknown_version),
	};

	if (argc == 5 && strcmp(argv[1], "--rogue") == 0) {
		struct rogue_plan plan = {.features = strtoull(argv[2], NULL, 10), .kind = atoi(argv[3])};

		return rogue_run(&plan, (uint16_t)atoi(argv[4]));
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
