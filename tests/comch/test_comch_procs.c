/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_comch_procs.c - Comch across processes: fork and exec comch_peer as the
 * DPU-side server and as host-side clients, each run in its own FERRY_DOMAIN,
 * every child under a time limit (a hung child fails the test, never the run).
 * The peer program is named by the environment variable COMCH_PEER (meson sets it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#define PROCS_PEER_ENV "COMCH_PEER"
#define PROCS_TAG      "comch-test"
#include "procs_util.h"

/* Spawn a server and wait until its context runs (it prints "listening"). */
static void start_server(struct child *server, const char *const *args, const char *const *extra_env)
{
	spawn(server, args, extra_env);
	assert_true(wait_output(server, "listening", CHILD_LIMIT_MS));
}

/* End a server that would otherwise wait for clients that never come. */
static void stop_server(struct child *server)
{
	kill(server->pid, SIGTERM);
	(void)wait_exit(server, CHILD_LIMIT_MS);
}

/* ---- tests ---- */

static void echo_test(const char *size, const char *count)
{
	struct child server, client;
	const char *sargs[] = {"server", "svc", "--expect", "1", NULL};
	const char *cargs[] = {"client", "svc", "--count", count, "--size", size, NULL};

	new_domain();
	start_server(&server, sargs, NULL);
	spawn(&client, cargs, NULL);
	assert_int_equal(wait_exit(&client, CHILD_LIMIT_MS), 0);
	assert_int_equal(wait_exit(&server, CHILD_LIMIT_MS), 0);
	assert_non_null(strstr(server.seen, "connect\n"));
	assert_non_null(strstr(server.seen, "disconnect\n"));
	forget(&server);
	forget(&client);
}

static void test_echo_64(void **state)
{
	(void)state;
	echo_test("64", "1000");
}

static void test_echo_max_size(void **state)
{
	(void)state;
	echo_test("4080", "200");
}

static void test_client_waits_for_late_server(void **state)
{
	struct child server, client;
	const char *sargs[] = {"server", "late", "--expect", "1", NULL};
	const char *cargs[] = {"client", "late", "--count", "3", NULL};

	(void)state;
	new_domain();
	spawn(&client, cargs, NULL); /* STARTING until the server shows up */
	usleep(200000);
	spawn(&server, sargs, NULL);
	assert_int_equal(wait_exit(&client, CHILD_LIMIT_MS), 0);
	assert_int_equal(wait_exit(&server, CHILD_LIMIT_MS), 0);
	forget(&server);
	forget(&client);
}

static void test_wrong_name_is_refused(void **state)
{
	struct child server, client;
	const char *sargs[] = {"server", "svc", NULL};
	const char *cargs[] = {"client", "svc2", NULL};
	const char *cenv[] = {"FERRY_COMCH_CONNECT_TIMEOUT_MS", "300", NULL};

	(void)state;
	new_domain();
	start_server(&server, sargs, NULL);
	spawn(&client, cargs, cenv);
	assert_int_equal(wait_exit(&client, CHILD_LIMIT_MS), 3);
	assert_true(stderr_has(&client, "no server named 'svc2'"));
	assert_true(stderr_has(&client, "DOCA_ERROR_NOT_FOUND"));
	assert_null(strstr(server.seen, "connect\n"));
	stop_server(&server);
	forget(&server);
	forget(&client);
}

static void test_other_domain_is_invisible(void **state)
{
	struct child server, client;
	const char *sargs[] = {"server", "svc", NULL};
	const char *cargs[] = {"client", "svc", NULL};
	const char *cenv[] = {"FERRY_COMCH_CONNECT_TIMEOUT_MS", "300", "FERRY_DOMAIN", "elsewhere", NULL};

	(void)state;
	new_domain();
	start_server(&server, sargs, NULL);
	spawn(&client, cargs, cenv);
	assert_int_equal(wait_exit(&client, CHILD_LIMIT_MS), 3);
	assert_true(stderr_has(&client, "DOCA_ERROR_NOT_FOUND"));
	stop_server(&server);
	forget(&server);
	forget(&client);
}

static void test_max_msg_size_mismatch_is_refused(void **state)
{
	struct child server, client;
	const char *sargs[] = {"server", "svc", NULL};
	const char *cargs[] = {"client", "svc", "--max-msg", "1024", NULL};

	(void)state;
	new_domain();
	start_server(&server, sargs, NULL);
	spawn(&client, cargs, NULL);
	assert_int_equal(wait_exit(&client, CHILD_LIMIT_MS), 3);
	assert_true(stderr_has(&client, "max message size mismatch: client 1024, server 4080"));
	assert_true(stderr_has(&client, "DOCA_ERROR_INVALID_VALUE"));
	stop_server(&server);
	forget(&server);
	forget(&client);
}

static void test_killed_client_is_disconnected(void **state)
{
	struct child server, client;
	const char *sargs[] = {"server", "svc", "--expect", "1", NULL};
	const char *cargs[] = {"client", "svc", "--count", "1", "--hold", NULL};

	(void)state;
	new_domain();
	start_server(&server, sargs, NULL);
	spawn(&client, cargs, NULL);
	assert_true(wait_output(&client, "running", CHILD_LIMIT_MS));
	assert_true(wait_output(&server, "connect", CHILD_LIMIT_MS));
	kill(client.pid, SIGKILL);
	assert_int_equal(wait_exit(&client, CHILD_LIMIT_MS), 128 + SIGKILL);
	/* The server exits 0 only after its disconnect event. */
	assert_int_equal(wait_exit(&server, CHILD_LIMIT_MS), 0);
	assert_non_null(strstr(server.seen, "disconnect\n"));
	forget(&server);
	forget(&client);
}

static void test_killed_server_fails_clients(void **state)
{
	struct child server, client;
	const char *sargs[] = {"server", "svc", NULL};
	const char *cargs[] = {"client", "svc", "--clients", "3", "--count", "1", "--hold", NULL};

	(void)state;
	new_domain();
	start_server(&server, sargs, NULL);
	spawn(&client, cargs, NULL);
	assert_true(wait_output(&client, "running", CHILD_LIMIT_MS));
	kill(server.pid, SIGKILL);
	(void)wait_exit(&server, CHILD_LIMIT_MS);
	assert_int_equal(wait_exit(&client, CHILD_LIMIT_MS), 3);
	assert_true(stderr_has(&client, "the server closed the connection"));
	assert_true(stderr_has(&client, "context leaves RUNNING"));
	forget(&server);
	forget(&client);
}

/*
 * The name of a server killed by SIGKILL (its socket file left behind in the
 * domain's private directory) is taken by the next server, which clients
 * reach; while that one lives, a second server of the name is refused.
 */
static void test_killed_server_name_is_reused(void **state)
{
	struct child dead, server, twin, client;
	const char *sargs[] = {"server", "svc", "--expect", "1", NULL};
	const char *cargs[] = {"client", "svc", "--count", "3", NULL};

	(void)state;
	new_domain();
	start_server(&dead, sargs, NULL);
	kill(dead.pid, SIGKILL);
	assert_int_equal(wait_exit(&dead, CHILD_LIMIT_MS), 128 + SIGKILL);
	start_server(&server, sargs, NULL);
	spawn(&twin, sargs, NULL);
	assert_int_not_equal(wait_exit(&twin, CHILD_LIMIT_MS), 0);
	assert_true(stderr_has(&twin, "another server already listens under this name"));
	spawn(&client, cargs, NULL);
	assert_int_equal(wait_exit(&client, CHILD_LIMIT_MS), 0);
	assert_int_equal(wait_exit(&server, CHILD_LIMIT_MS), 0);
	forget(&dead);
	forget(&server);
	forget(&twin);
	forget(&client);
}

static void test_128_clients(void **state)
{
	struct child server, c1, c2;
	const char *sargs[] = {"server", "busy", "--expect", "128", NULL};
	const char *cargs[] = {"client", "busy", "--clients", "64", "--count", "20", NULL};

	(void)state;
	new_domain();
	start_server(&server, sargs, NULL);
	spawn(&c1, cargs, NULL);
	spawn(&c2, cargs, NULL);
	assert_int_equal(wait_exit(&c1, CHILD_LIMIT_MS), 0);
	assert_int_equal(wait_exit(&c2, CHILD_LIMIT_MS), 0);
	assert_int_equal(wait_exit(&server, CHILD_LIMIT_MS), 0);
	forget(&server);
	forget(&c1);
	forget(&c2);
}

/*
 * Two DPUs (tests/core/topologies/two_dpus.topo): the server listens for b1:00.0 on
 * DPU 0. Only a client on b1:00.0 reaches it; the VF b1:00.2 of the same DPU and
 * c1:00.0 of the other DPU have other representors, so no server is there for them.
 */
static void test_only_the_represented_function_connects(void **state)
{
	struct child server, good, vf, other;
	const char *topo[] = {"FERRY_TOPOLOGY", TOPO_DIR "/two_dpus.topo", NULL};
	const char *topo_quick[] = {"FERRY_TOPOLOGY", TOPO_DIR "/two_dpus.topo", "FERRY_COMCH_CONNECT_TIMEOUT_MS",
				    "300", NULL};
	const char *sargs[] = {"server", "svc", "--rep", "b1:00.0", "--expect", "1", NULL};
	const char *gargs[] = {"client", "svc", "--dev", "b1:00.0", NULL};
	const char *vargs[] = {"client", "svc", "--dev", "b1:00.2", NULL};
	const char *oargs[] = {"client", "svc", "--dev", "c1:00.0", NULL};

	(void)state;
	new_domain();
	start_server(&server, sargs, topo);
	spawn(&vf, vargs, topo_quick);
	spawn(&other, oargs, topo_quick);
	assert_int_equal(wait_exit(&vf, CHILD_LIMIT_MS), 3);
	assert_int_equal(wait_exit(&other, CHILD_LIMIT_MS), 3);
	assert_true(stderr_has(&vf, "for host function b1:00.2"));
	assert_true(stderr_has(&other, "for host function c1:00.0"));
	assert_null(strstr(server.seen, "connect\n"));
	spawn(&good, gargs, topo);
	assert_int_equal(wait_exit(&good, CHILD_LIMIT_MS), 0);
	assert_int_equal(wait_exit(&server, CHILD_LIMIT_MS), 0);
	forget(&server);
	forget(&good);
	forget(&vf);
	forget(&other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_echo_64),
		cmocka_unit_test(test_echo_max_size),
		cmocka_unit_test(test_client_waits_for_late_server),
		cmocka_unit_test(test_wrong_name_is_refused),
		cmocka_unit_test(test_other_domain_is_invisible),
		cmocka_unit_test(test_max_msg_size_mismatch_is_refused),
		cmocka_unit_test(test_killed_client_is_disconnected),
		cmocka_unit_test(test_killed_server_fails_clients),
		cmocka_unit_test(test_killed_server_name_is_reused),
		cmocka_unit_test(test_128_clients),
		cmocka_unit_test(test_only_the_represented_function_connects),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
