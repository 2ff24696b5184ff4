/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cc_rogue.c - a Comm Channel server against hostile peers: raw sockets at
 * its rendezvous address that send garbage, truncated or lying frames, a HELLO
 * for another name or another message size, a valid HELLO followed by garbage,
 * silence, and a flood of such peers. Each is cut off by Comch's checks; the
 * server never shows the program a message from one, and keeps serving a real
 * Comm Channel client between and after them. A message above the endpoint's
 * max message size is dropped, and what follows it still comes out. One
 * process: the server and the client are two endpoints (each drives its own
 * engine), the rogues raw sockets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <doca_dev.h>

#include "comch/frame_priv.h"
#include "comch_util.h"
#include "core/ferry_dev.h"
#include "ferry_test.h"
#include "legacy/legacy_api.h"
#include "link/ferry_link.h"

#define WAIT_MS 5000

static struct cu_machine M;
static struct doca_comm_channel_ep_t *server, *client;
static struct doca_comm_channel_addr_t *to_server;

static uint64_t ms_now(void)
{
	return ferry_link_now_ns() / 1000000u;
}

/* Progress the server with a recvfrom; what it answered, with the message in @p buf. */
static doca_error_t server_poll(uint8_t *buf, size_t *len, struct doca_comm_channel_addr_t **peer)
{
	*len = 64;
	return doca_comm_channel_ep_recvfrom(server, buf, len, 0, peer);
}

/* The real client says @p text; the server must get exactly that from it, and answer. */
static void real_client_round_trip(const char *text)
{
	struct doca_comm_channel_addr_t *peer = NULL, *from = NULL;
	uint8_t buf[64];
	size_t len = 0;
	doca_error_t r;
	uint64_t until = ms_now() + WAIT_MS;

	assert_int_equal(doca_comm_channel_ep_sendto(client, text, strlen(text), 0, to_server), DOCA_SUCCESS);
	while ((r = server_poll(buf, &len, &peer)) == DOCA_ERROR_AGAIN)
		assert_true(ms_now() < until);
	assert_int_equal(r, DOCA_SUCCESS);
	assert_int_equal(len, strlen(text));
	assert_memory_equal(buf, text, len);
	assert_int_equal(doca_comm_channel_ep_sendto(server, "ack", 3, 0, peer), DOCA_SUCCESS);
	len = sizeof(buf);
	while ((r = doca_comm_channel_ep_recvfrom(client, buf, &len, 0, &from)) == DOCA_ERROR_AGAIN)
		assert_true(ms_now() < until);
	assert_int_equal(r, DOCA_SUCCESS);
	assert_int_equal(len, 3);
	assert_ptr_equal(from, to_server);
}

static int rogue_connect(const char *name)
{
	const struct doca_devinfo *host = doca_dev_as_devinfo(M.host);
	struct ferry_link_addr addr;
	int fd = -1;

	assert_int_equal(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), ferry_devinfo_machine(host),
					       ferry_devinfo_name(host), name),
			 DOCA_SUCCESS);
	assert_int_equal(ferry_link_connect(&addr, &fd), DOCA_SUCCESS);
	return fd;
}

/*
 * Drive the server until it closed the rogue; no message and no end of a
 * client the program knows may come out meanwhile (a rogue that got past the
 * handshake may show as a fresh peer's end, never as a message).
 */
static void rogue_wait_closed(int fd)
{
	uint64_t until = ms_now() + WAIT_MS;
	uint8_t buf[64], got[2048];

	for (;;) {
		struct doca_comm_channel_addr_t *peer = NULL;
		size_t len = 0;
		doca_error_t r = server_poll(buf, &len, &peer);

		assert_true(r == DOCA_ERROR_AGAIN || (r == DOCA_ERROR_CONNECTION_RESET && peer != NULL));
		if (ferry_link_recv(fd, got, sizeof(got), &len) == DOCA_ERROR_CONNECTION_RESET)
			break;
		assert_true(ms_now() < until);
		usleep(50);
	}
	close(fd);
}

static void rogue_send(int fd, const void *buf, size_t len)
{
	assert_int_equal(ferry_link_send(fd, buf, len), DOCA_SUCCESS);
}

static int setup(void **state)
{
	uint64_t until;
	doca_error_t r;

	(void)state;
	setenv("FERRY_COMCH_HANDSHAKE_MS", "150", 1);
	assert_true(cu_machine_open(&M, "cc-rogue"));
	assert_int_equal(doca_comm_channel_ep_create(&server), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_set_device(server, M.dpu), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_set_device_rep(server, M.rep), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_listen(server, "guarded"), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_create(&client), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_set_device(client, M.host), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_connect(client, "guarded", &to_server), DOCA_SUCCESS);
	for (until = ms_now() + WAIT_MS;
	     (r = doca_comm_channel_peer_addr_update_info(to_server)) == DOCA_ERROR_CONNECTION_INPROGRESS;) {
		uint8_t buf[64];
		size_t len;
		struct doca_comm_channel_addr_t *peer;

		assert_int_equal(server_poll(buf, &len, &peer), DOCA_ERROR_AGAIN); /* lets the server accept */
		assert_true(ms_now() < until);
	}
	assert_int_equal(r, DOCA_SUCCESS);
	ferry_test_log_reset();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(doca_comm_channel_ep_destroy(client), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_destroy(server), DOCA_SUCCESS);
	cu_machine_close(&M);
	return 0;
}

static void test_garbage_frames(void **state)
{
	static uint8_t big[65536];
	uint8_t frame[FERRY_FRAME_HELLO_MAX];
	int fd;

	(void)state;
	real_client_round_trip("before");
	fd = rogue_connect("guarded"); /* too short for a header */
	rogue_send(fd, "abc", 3);
	rogue_wait_closed(fd);
	assert_true(ferry_test_log_has("frame shorter than its header"));

	fd = rogue_connect("guarded"); /* bad magic */
	memset(frame, 0x41, 32);
	rogue_send(fd, frame, 32);
	rogue_wait_closed(fd);
	assert_true(ferry_test_log_has("bad frame magic"));

	fd = rogue_connect("guarded"); /* oversized datagram */
	ferry_frame_put_header(big, FERRY_FRAME_MSG, sizeof(big) - FERRY_FRAME_HDR_LEN);
	rogue_send(fd, big, sizeof(big));
	rogue_wait_closed(fd);

	fd = rogue_connect("guarded"); /* a message before any HELLO */
	ferry_frame_put_header(frame, FERRY_FRAME_MSG, 0);
	rogue_send(fd, frame, FERRY_FRAME_HDR_LEN);
	rogue_wait_closed(fd);
	real_client_round_trip("after garbage");
}

static void test_lying_hellos(void **state)
{
	const struct doca_devinfo *host = doca_dev_as_devinfo(M.host);
	uint32_t machine = ferry_devinfo_machine(host);
	const char *dev = ferry_devinfo_name(host);
	uint8_t frame[FERRY_FRAME_HELLO_MAX];
	size_t len;
	int fd;

	(void)state;
	fd = rogue_connect("guarded"); /* right address, wrong name */
	len = ferry_frame_build_hello(frame, 4080, 64, machine, dev, "guarded-not");
	rogue_send(fd, frame, len);
	rogue_wait_closed(fd);

	fd = rogue_connect("guarded"); /* a host function the representor does not stand for */
	len = ferry_frame_build_hello(frame, 4080, 64, machine, "ff:1f.7", "guarded");
	rogue_send(fd, frame, len);
	rogue_wait_closed(fd);

	fd = rogue_connect("guarded"); /* another message size */
	len = ferry_frame_build_hello(frame, 1000, 64, machine, dev, "guarded");
	rogue_send(fd, frame, len);
	rogue_wait_closed(fd);

	fd = rogue_connect("guarded"); /* truncated HELLO */
	len = ferry_frame_build_hello(frame, 4080, 64, machine, dev, "guarded");
	rogue_send(fd, frame, len - 3);
	rogue_wait_closed(fd);

	fd = rogue_connect("guarded"); /* says nothing: cut off at the handshake deadline */
	rogue_wait_closed(fd);
	assert_true(ferry_test_log_has("did not complete the handshake in time"));
	real_client_round_trip("after lies");
}

/* Past the handshake, then garbage: the program sees a fresh peer end, never a message. */
static void test_valid_hello_then_garbage(void **state)
{
	const struct doca_devinfo *host = doca_dev_as_devinfo(M.host);
	uint8_t frame[FERRY_FRAME_HELLO_MAX], buf[64];
	struct doca_comm_channel_addr_t *peer = NULL;
	uint64_t until = ms_now() + WAIT_MS;
	size_t len;
	doca_error_t r;
	int fd = rogue_connect("guarded");

	(void)state;
	len = ferry_frame_build_hello(frame, 4080, 64, ferry_devinfo_machine(host), ferry_devinfo_name(host),
				      "guarded");
	rogue_send(fd, frame, len);
	ferry_frame_put_header(frame, FERRY_FRAME_HELLO, 0);
	rogue_send(fd, frame, FERRY_FRAME_HDR_LEN);
	while ((r = server_poll(buf, &len, &peer)) == DOCA_ERROR_AGAIN)
		assert_true(ms_now() < until);
	assert_int_equal(r, DOCA_ERROR_CONNECTION_RESET);
	assert_ptr_not_equal(peer, NULL);
	assert_int_equal(doca_comm_channel_ep_sendto(server, "x", 1, 0, peer), DOCA_ERROR_CONNECTION_RESET);
	assert_int_equal(doca_comm_channel_ep_disconnect(server, peer), DOCA_SUCCESS);
	rogue_wait_closed(fd);
	real_client_round_trip("after an impostor");
}

/* Many rogues at once, each cut off; the real client is served throughout and nothing is left. */
static void test_flood(void **state)
{
	enum { FLOOD = 64 };
	int fds[FLOOD];
	uint32_t n = 99;
	struct doca_comm_channel_addr_t **list = NULL;

	(void)state;
	for (int i = 0; i < FLOOD; i++) {
		fds[i] = rogue_connect("guarded");
		rogue_send(fds[i], "garbage!", 8);
	}
	real_client_round_trip("during a flood");
	for (int i = 0; i < FLOOD; i++)
		rogue_wait_closed(fds[i]);
	assert_int_equal(doca_comm_channel_ep_update_service_state_info(server), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_get_peer_addr_list(server, &list, &n), DOCA_SUCCESS);
	assert_int_equal(n, 1); /* the real client only */
	assert_int_equal(doca_comm_channel_ep_get_pending_connections(server, &n), DOCA_SUCCESS);
	assert_int_equal(n, 0);
	real_client_round_trip("after a flood");
}

/*
 * A peer past the handshake sends a message larger than the server endpoint's
 * max message size (the wire takes the device's 4080): it is dropped with a
 * line, and the peer's next message, which fits, comes out. Were it queued, a
 * recvfrom with a buffer of max_msg_size could never take it, and every
 * message behind it, of any peer, would wait forever.
 */
static void test_message_above_max_size(void **state)
{
	const struct doca_devinfo *host = doca_dev_as_devinfo(M.host);
	struct doca_comm_channel_ep_t *small = NULL;
	struct doca_comm_channel_addr_t *peer = NULL;
	uint8_t frame[FERRY_FRAME_HDR_LEN + 100], buf[16];
	uint64_t until = ms_now() + WAIT_MS;
	size_t len;
	doca_error_t r;
	int fd;

	(void)state;
	assert_int_equal(doca_comm_channel_ep_create(&small), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_set_device(small, M.dpu), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_set_device_rep(small, M.rep), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_set_max_msg_size(small, sizeof(buf)), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_listen(small, "small"), DOCA_SUCCESS);
	fd = rogue_connect("small");
	len = ferry_frame_build_hello(frame, 4080, 64, ferry_devinfo_machine(host), ferry_devinfo_name(host), "small");
	rogue_send(fd, frame, len);
	ferry_frame_put_header(frame, FERRY_FRAME_MSG, 100);
	memset(frame + FERRY_FRAME_HDR_LEN, 'x', 100);
	rogue_send(fd, frame, sizeof(frame));
	ferry_frame_put_header(frame, FERRY_FRAME_MSG, 5);
	memcpy(frame + FERRY_FRAME_HDR_LEN, "fits!", 5);
	rogue_send(fd, frame, FERRY_FRAME_HDR_LEN + 5);
	do {
		len = sizeof(buf);
		r = doca_comm_channel_ep_recvfrom(small, buf, &len, 0, &peer);
		assert_true(ms_now() < until);
	} while (r == DOCA_ERROR_AGAIN);
	assert_int_equal(r, DOCA_SUCCESS);
	assert_int_equal(len, 5);
	assert_memory_equal(buf, "fits!", 5);
	assert_true(ferry_test_log_has("above the endpoint's max message size"));
	assert_int_equal(doca_comm_channel_ep_disconnect(small, peer), DOCA_SUCCESS);
	close(fd);
	assert_int_equal(doca_comm_channel_ep_destroy(small), DOCA_SUCCESS);
	real_client_round_trip("after an oversized message");
}

/*
 * A rogue listens at a service's address and refuses every HELLO at once with
 * NOT_FOUND, the code Comch also gives when nobody listens in time. A
 * non-blocking 2.2 client keeps trying (CONNECTION_INPROGRESS), but no faster
 * than once a second: before, it came back for the next refusal at once, some
 * 40,000 connections and error lines a second for as long as the rogue went on.
 */
static void test_refusing_server_is_not_hammered(void **state)
{
	const struct doca_devinfo *host = doca_dev_as_devinfo(M.host);
	struct doca_comm_channel_ep_t *c = NULL;
	struct doca_comm_channel_addr_t *peer = NULL;
	uint8_t frame[FERRY_FRAME_REFUSE_MAX], hello[FERRY_FRAME_HELLO_MAX];
	struct ferry_link_addr addr;
	unsigned refused = 0;
	int lfd = -1, lock = -1;
	uint64_t until;

	(void)state;
	assert_int_equal(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), ferry_devinfo_machine(host),
					       ferry_devinfo_name(host), "squatted"),
			 DOCA_SUCCESS);
	assert_int_equal(ferry_link_listen(&addr, &lfd, &lock), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_create(&c), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_set_device(c, M.host), DOCA_SUCCESS);
	assert_int_equal(doca_comm_channel_ep_connect(c, "squatted", &peer), DOCA_SUCCESS);
	for (until = ms_now() + 1500; ms_now() < until;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd >= 0) {
			/* Its HELLO is there already (sent as it connects); read, so the close is no reset. */
			assert_true(recv(fd, hello, sizeof(hello), 0) > 0);
			rogue_send(fd, frame, ferry_frame_build_refuse(frame, DOCA_ERROR_NOT_FOUND, "not here"));
			close(fd);
			refused++;
		}
		assert_int_equal(doca_comm_channel_peer_addr_update_info(peer), DOCA_ERROR_CONNECTION_INPROGRESS);
	}
	print_message("%u refusals in 1.5 s\n", refused);
	assert_true(refused >= 1);
	assert_true(refused <= 3);
	assert_int_equal(doca_comm_channel_ep_destroy(c), DOCA_SUCCESS);
	ferry_link_unlisten(&addr, lfd, lock);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_garbage_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lying_hellos, setup, teardown),
		cmocka_unit_test_setup_teardown(test_valid_hello_then_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_above_max_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusing_server_is_not_hammered, setup, teardown),
	};

	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
