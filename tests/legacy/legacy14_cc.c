/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy14_cc.c - DOCA 1.3/1.4 Comm Channel programs, laid out as the 1.3
 * cc_server and cc_client samples are (an attribute struct, blocking calls, no
 * devices named), built only against Ferry's 1.4 headers.
 *
 *   blocking   a server loops on blocking recvfrom and answers every message;
 *              three clients in turn connect, send, wait for the answer with one
 *              blocking recvfrom, disconnect and destroy (the server stops once
 *              three clients have come and gone)
 *   nonblock   the same pair with DOCA_CC_INIT_FLAG_NONBLOCK: AGAIN loops,
 *              connect returning at once and update_info
 *   misuse     bad attributes, oversized messages, a blocking connect to nobody
 *
 * Exit 0 on success; the failing check is printed otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_comm_channel.h>
#include <doca_error.h>

#define SERVICE "cc_sample_server"
#define CLIENTS 3

#define FAIL(...)                                                                   \
	do {                                                                        \
		fprintf(stderr, "[%d] %s:%d: ", (int)getpid(), __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                                       \
		fprintf(stderr, "\n");                                              \
		exit(1);                                                            \
	} while (0)

#define EXPECT(call, want)                                                                                      \
	do {                                                                                                    \
		doca_error_t r_ = (call);                                                                       \
		if (r_ != (want))                                                                               \
			FAIL("%s: %s, expected %s", #call, doca_get_error_name(r_), doca_get_error_name(want)); \
	} while (0)

#define CHECK(call) EXPECT(call, DOCA_SUCCESS)

static const char server_text[] = "Hello From Server";
static const char client_text[] = "Hello From Client";

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* recvfrom, in a loop on AGAIN when the endpoint does not block. */
static doca_error_t recv_one(struct doca_comm_channel_ep_t *ep, char *buf, size_t *len,
			     struct doca_comm_channel_addr_t **peer)
{
	uint64_t until = now_ms() + 20000;
	size_t cap = *len;
	doca_error_t r;

	while ((r = doca_comm_channel_ep_recvfrom(ep, buf, len, 0, peer)) == DOCA_ERROR_AGAIN) {
		if (now_ms() > until)
			FAIL("nothing received in 20 s");
		*len = cap;
		usleep(100);
	}
	return r;
}

static doca_error_t send_one(struct doca_comm_channel_ep_t *ep, const char *text, struct doca_comm_channel_addr_t *peer)
{
	doca_error_t r;

	while ((r = doca_comm_channel_ep_sendto(ep, text, strlen(text) + 1, 0, peer)) == DOCA_ERROR_AGAIN)
		usleep(100);
	return r;
}

/* cc_server: answer every message; stop once @p clients clients have left. */
static void server(uint32_t flags, int clients)
{
	struct doca_comm_channel_init_attr attr = {.cookie = 0x1234, .flags = flags, .maxmsgs = 10, .msgsize = 1024};
	struct doca_comm_channel_ep_t *ep;
	int gone = 0, served = 0;

	CHECK(doca_comm_channel_ep_create(&attr, &ep));
	CHECK(doca_comm_channel_ep_listen(ep, SERVICE));
	while (gone < clients) {
		struct doca_comm_channel_addr_t *peer = NULL;
		char msg[1024];
		size_t len = sizeof(msg);
		doca_error_t r = recv_one(ep, msg, &len, &peer);

		if (r == DOCA_ERROR_CONNECTION_RESET) { /* a client left */
			gone++;
			CHECK(doca_comm_channel_ep_disconnect(ep, peer));
			continue;
		}
		if (r != DOCA_SUCCESS)
			FAIL("server recvfrom: %s", doca_get_error_name(r));
		if (len != sizeof(client_text) || strcmp(msg, client_text) != 0)
			FAIL("server got '%.*s'", (int)len, msg);
		served++;
		CHECK(send_one(ep, server_text, peer));
	}
	if (served != clients)
		FAIL("served %d messages for %d clients", served, clients);
	CHECK(doca_comm_channel_ep_destroy(ep));
}

/* cc_client: connect, say hello, wait for the answer, leave. */
static void client(uint32_t flags)
{
	struct doca_comm_channel_init_attr attr = {.cookie = 0x1234, .flags = flags, .maxmsgs = 10, .msgsize = 1024};
	struct doca_comm_channel_addr_t *peer = NULL, *from = NULL;
	struct doca_comm_channel_ep_t *ep;
	char msg[1024];
	size_t len = sizeof(msg);

	CHECK(doca_comm_channel_ep_create(&attr, &ep));
	CHECK(doca_comm_channel_ep_connect(ep, SERVICE, &peer));
	if (flags & DOCA_CC_INIT_FLAG_NONBLOCK) {
		uint64_t until = now_ms() + 20000;
		doca_error_t r;

		while ((r = doca_comm_channel_peer_addr_update_info(peer)) == DOCA_ERROR_CONNECTION_INPROGRESS)
			if (now_ms() > until)
				FAIL("not connected in 20 s");
		CHECK(r);
	}
	CHECK(send_one(ep, client_text, peer));
	CHECK(recv_one(ep, msg, &len, &from));
	if (from != peer || len != sizeof(server_text) || strcmp(msg, server_text) != 0)
		FAIL("client got '%.*s'", (int)len, msg);
	CHECK(doca_comm_channel_ep_disconnect(ep, peer));
	CHECK(doca_comm_channel_ep_destroy(ep));
}

static void wait_ok(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		FAIL("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("%s failed (status %#x)", what, status);
}

static void pair(uint32_t flags)
{
	pid_t srv = fork();

	if (srv < 0)
		FAIL("fork: %s", strerror(errno));
	if (srv == 0) {
		alarm(100);
		server(flags, CLIENTS);
		exit(0);
	}
	/* Clients one after the other, the first possibly before the server listens. */
	for (int i = 0; i < CLIENTS; i++) {
		pid_t c = fork();

		if (c < 0)
			FAIL("fork: %s", strerror(errno));
		if (c == 0) {
			alarm(100);
			client(flags);
			exit(0);
		}
		wait_ok(c, "client");
	}
	wait_ok(srv, "server");
}

static void misuse(void)
{
	struct doca_comm_channel_init_attr attr = {.flags = 0, .maxmsgs = 10, .msgsize = 64};
	struct doca_comm_channel_ep_t *ep = NULL;
	struct doca_comm_channel_addr_t *peer = NULL;
	char big[128] = {0};
	uint64_t t0;

	EXPECT(doca_comm_channel_ep_create(NULL, &ep), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_ep_create(&attr, NULL), DOCA_ERROR_INVALID_VALUE);
	attr.flags = 2;
	EXPECT(doca_comm_channel_ep_create(&attr, &ep), DOCA_ERROR_INVALID_VALUE);
	attr.flags = 0;
	attr.msgsize = 0;
	EXPECT(doca_comm_channel_ep_create(&attr, &ep), DOCA_ERROR_INVALID_VALUE);
	attr.msgsize = 5000;
	EXPECT(doca_comm_channel_ep_create(&attr, &ep), DOCA_ERROR_INVALID_VALUE);
	attr.msgsize = 64;
	attr.maxmsgs = 0;
	EXPECT(doca_comm_channel_ep_create(&attr, &ep), DOCA_ERROR_INVALID_VALUE);
	attr.maxmsgs = 9000;
	EXPECT(doca_comm_channel_ep_create(&attr, &ep), DOCA_ERROR_INVALID_VALUE);
	attr.maxmsgs = 10;

	/* A blocking connect to nobody gives up after the Comch connect timeout (200 ms here). */
	setenv("FERRY_COMCH_CONNECT_TIMEOUT_MS", "200", 1);
	CHECK(doca_comm_channel_ep_create(&attr, &ep));
	t0 = now_ms();
	EXPECT(doca_comm_channel_ep_connect(ep, "nobody", &peer), DOCA_ERROR_CONNECTION_ABORTED);
	if (now_ms() - t0 < 150 || now_ms() - t0 > 10000)
		FAIL("blocking connect gave up after %llu ms", (unsigned long long)(now_ms() - t0));
	CHECK(doca_comm_channel_ep_listen(ep, "misuse 1.4")); /* the failed connect left it open to either */
	EXPECT(doca_comm_channel_ep_listen(ep, "misuse 1.4"), DOCA_ERROR_NOT_PERMITTED);
	EXPECT(doca_comm_channel_ep_sendto(ep, big, sizeof(big), 0, NULL), DOCA_ERROR_INVALID_VALUE); /* > 64 */
	CHECK(doca_comm_channel_ep_destroy(ep));
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "blocking") == 0)
		pair(0);
	else if (argc == 2 && strcmp(argv[1], "nonblock") == 0)
		pair(DOCA_CC_INIT_FLAG_NONBLOCK);
	else if (argc == 2 && strcmp(argv[1], "misuse") == 0)
		misuse();
	else {
		fprintf(stderr, "usage: %s blocking|nonblock|misuse\n", argv[0]);
		return 2;
	}
	printf("%s: ok\n", argv[1]);
	return 0;
}
