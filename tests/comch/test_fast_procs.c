/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fast_procs.c - the Comch fast path across processes: fast_peer runs as
 * the DPU-side server and as the host-side client, one of them a producer and
 * the other a consumer, in both directions, with ordinary (cross-memory attach)
 * and shareable (shared mapping) consumer memory; every message of pseudo-random
 * size is checked byte for byte with its immediate data. Then the unhappy paths:
 * no posted buffer yet, the consumer going away while the producer sends, and a
 * peer killed mid-stream. Each run has its own FERRY_DOMAIN and a time limit.
 * The harness (procs_util.h) is shared with test_comch_procs.c; FAST_PEER names the peer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#define PROCS_PEER_ENV "FAST_PEER"
#define PROCS_TAG      "comch-fast"
#include "procs_util.h"

/* ---- tests ---- */

/* One transfer of @p n messages from @p sender's side to the other; both must finish cleanly. */
static void transfer(const char *sender, const char *n, const char *max, bool shared)
{
	const char *receiver = strcmp(sender, "server") == 0 ? "client" : "server";
	const char *rargs[] = {receiver, "fast", "recv", n, "--max", max, "--seed", "7", shared ? "--shared" : NULL,
			       NULL};
	const char *sargs[] = {sender, "fast", "send", n, "--max", max, "--seed", "7", NULL};
	struct child s, r;
	char want[64];

	new_domain();
	spawn(&r, rargs, NULL);
	spawn(&s, sargs, NULL);
	assert_int_equal(wait_exit(&s, CHILD_LIMIT_MS), 0);
	assert_int_equal(wait_exit(&r, CHILD_LIMIT_MS), 0);
	snprintf(want, sizeof(want), "sent %s", n);
	assert_non_null(strstr(s.seen, "new-consumer"));
	assert_non_null(strstr(s.seen, want));
	assert_non_null(strstr(s.seen, "expired")); /* the consumer went away after the last message */
	snprintf(want, sizeof(want), "received %s", n);
	assert_non_null(strstr(r.seen, want));
	forget(&s);
	forget(&r);
}

static void test_host_to_dpu(void **state)
{
	(void)state;
	transfer("client", "300", "65536", false);
}

static void test_dpu_to_host(void **state)
{
	(void)state;
	transfer("server", "300", "65536", false);
}

static void test_host_to_dpu_shared(void **state)
{
	(void)state;
	transfer("client", "300", "65536", true);
}

static void test_dpu_to_host_shared(void **state)
{
	(void)state;
	transfer("server", "300", "65536", true);
}

static void test_large_and_tiny(void **state)
{
	(void)state;
	transfer("client", "20", "4194304", false); /* up to 4 MiB through process_vm_writev */
	transfer("server", "50", "1", true);        /* one byte each */
}

/* The consumer posts late: sends submitted before that wait, none is lost. */
static void test_no_posted_buffer_yet(void **state)
{
	const char *rargs[] = {"server", "fast", "recv", "40", "--max", "4096", "--post-delay-ms", "300", NULL};
	const char *sargs[] = {"client", "fast", "send", "40", "--max", "4096", NULL};
	struct child s, r;

	(void)state;
	new_domain();
	spawn(&r, rargs, NULL);
	spawn(&s, sargs, NULL);
	assert_int_equal(wait_exit(&s, CHILD_LIMIT_MS), 0);
	assert_int_equal(wait_exit(&r, CHILD_LIMIT_MS), 0);
	assert_non_null(strstr(r.seen, "received 40"));
	forget(&s);
	forget(&r);
}

/* The consumer leaves after 10 of 100: the waiting send fails, the producer sees it expire. */
static void test_consumer_gone_while_sending(void **state)
{
	const char *rargs[] = {"server", "fast", "recv", "100", "--max", "4096", "--stop-after", "10", NULL};
	const char *sargs[] = {"client", "fast", "send", "100", "--max", "4096", NULL};
	struct child s, r;

	(void)state;
	new_domain();
	spawn(&r, rargs, NULL);
	spawn(&s, sargs, NULL);
	assert_int_equal(wait_exit(&s, CHILD_LIMIT_MS), 6);
	assert_int_equal(wait_exit(&r, CHILD_LIMIT_MS), 0);
	assert_non_null(strstr(r.seen, "received 10"));
	assert_non_null(strstr(s.seen, "send-failed"));
	assert_non_null(strstr(s.seen, "expired"));
	assert_true(stderr_has(&s, "NOT_FOUND"));
	forget(&s);
	forget(&r);
}

/* A peer SIGKILLed mid-stream: the other side's tasks fail and it exits on its own. */
static void killed(const char *victim_side, bool victim_sends)
{
	const char *other_side = strcmp(victim_side, "server") == 0 ? "client" : "server";
	const char *vargs[] = {victim_side, "fast", victim_sends ? "send" : "recv", "100000000", "--max",
			       "65536",     NULL};
	const char *oargs[] = {other_side, "fast", victim_sends ? "recv" : "send", "100000000", "--max", "65536", NULL};
	struct child v, o;

	new_domain();
	spawn(&v, vargs, NULL);
	spawn(&o, oargs, NULL);
	assert_true(wait_output(victim_sends ? &v : &o, "new-consumer", CHILD_LIMIT_MS));
	usleep(200 * 1000); /* let data flow */
	kill(v.pid, SIGKILL);
	assert_int_equal(wait_exit(&v, CHILD_LIMIT_MS), 128 + SIGKILL);
	assert_int_equal(wait_exit(&o, CHILD_LIMIT_MS), 3);
	forget(&v);
	forget(&o);
}

static void test_killed_consumer_side(void **state)
{
	(void)state;
	killed("server", false);
	killed("client", false);
}

static void test_killed_producer_side(void **state)
{
	(void)state;
	killed("client", true);
	killed("server", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_to_dpu),
		cmocka_unit_test(test_dpu_to_host),
		cmocka_unit_test(test_host_to_dpu_shared),
		cmocka_unit_test(test_dpu_to_host_shared),
		cmocka_unit_test(test_large_and_tiny),
		cmocka_unit_test(test_no_posted_buffer_yet),
		cmocka_unit_test(test_consumer_gone_while_sending),
		cmocka_unit_test(test_killed_consumer_side),
		cmocka_unit_test(test_killed_producer_side),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
