/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy22_cc.c - DOCA 2.2 Comm Channel programs, laid out as that generation's
 * cc_server/cc_client samples and its secure_channel application are, built only
 * against Ferry's 2.2 headers. Each mode forks its sides (a DPU-side server on
 * 03:00.0 for host function b1:00.0, host-side clients on b1:00.0):
 *
 *   poll     one client, messages both ways with AGAIN loops (the server echoes)
 *   event    secure_channel's shape: on each side a sender and a receiver thread
 *            sharing the endpoint under a mutex, waiting in epoll on the event
 *            channels after arm_send / arm_recv; 10k messages of random sizes up
 *            to 4080 bytes each way, content and order checked
 *   multi    three clients on one server, each checked in order (peer user data)
 *   early    the client starts first: update_info answers INPROGRESS until the
 *            server comes, then SUCCESS
 *   kill     a client SIGKILLed mid-stream reaches the server as
 *            CONNECTION_RESET; then a killed server reaches its client the same way
 *   misuse   the documented answers to calls out of order or out of range
 *
 * Exit 0 on success; the failing check is printed otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_comm_channel.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_log.h>

#include "legacy22_util.h"

DOCA_LOG_REGISTER(LEGACY22_CC);

#define HOST_PCI "b1:00.0"
#define DPU_PCI  "03:00.0"
#define MAX_MSG  4080
#define HDR      8 /* seq, tag */

#define FAIL(...)                                                                   \
	do {                                                                        \
		fprintf(stderr, "[%d] %s:%d: ", (int)getpid(), __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);                                       \
		fprintf(stderr, "\n");                                              \
		exit(1);                                                            \
	} while (0)

#define CHECK(call)                                                     \
	do {                                                            \
		doca_error_t r_ = (call);                               \
		if (r_ != DOCA_SUCCESS)                                 \
			FAIL("%s: %s", #call, doca_get_error_name(r_)); \
	} while (0)

#define EXPECT(call, want)                                                                                      \
	do {                                                                                                    \
		doca_error_t r_ = (call);                                                                       \
		if (r_ != (want))                                                                               \
			FAIL("%s: %s, expected %s", #call, doca_get_error_name(r_), doca_get_error_name(want)); \
	} while (0)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- messages: length and bytes follow from (tag, seq), so the receiver can check them ---- */

static uint32_t mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	return x ^ (x >> 16);
}

static uint32_t msg_len(uint32_t tag, uint32_t seq)
{
	return HDR + mix(tag * 1000003u + seq) % (MAX_MSG - HDR + 1);
}

static uint32_t msg_fill(uint8_t *buf, uint32_t tag, uint32_t seq)
{
	uint32_t len = msg_len(tag, seq);

	memcpy(buf, &seq, 4);
	memcpy(buf + 4, &tag, 4);
	for (uint32_t i = HDR; i < len; i++)
		buf[i] = (uint8_t)(seq * 31u + i * 7u + tag);
	return len;
}

/* Check a message; returns its seq. */
static uint32_t msg_check(const uint8_t *buf, size_t len, uint32_t tag)
{
	uint32_t seq, got_tag;

	if (len < HDR)
		FAIL("message of %zu bytes", len);
	memcpy(&seq, buf, 4);
	memcpy(&got_tag, buf + 4, 4);
	if (got_tag != tag)
		FAIL("message tag %u, expected %u", got_tag, tag);
	if (len != msg_len(tag, seq))
		FAIL("message %u (tag %u): %zu bytes, expected %u", seq, tag, len, msg_len(tag, seq));
	for (uint32_t i = HDR; i < len; i++)
		if (buf[i] != (uint8_t)(seq * 31u + i * 7u + tag))
			FAIL("message %u (tag %u): byte %u differs", seq, tag, i);
	return seq;
}

/* ---- devices and endpoints, as the 2.2 samples open them ---- */

struct side {
	struct doca_comm_channel_ep_t *ep;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_comm_channel_addr_t *peer;
};

static void set_sizes(struct doca_comm_channel_ep_t *ep, uint16_t queue)
{
	CHECK(doca_comm_channel_ep_set_max_msg_size(ep, MAX_MSG));
	CHECK(doca_comm_channel_ep_set_send_queue_size(ep, queue));
	CHECK(doca_comm_channel_ep_set_recv_queue_size(ep, queue));
}

static void server_open(struct side *s, const char *name, uint16_t queue)
{
	memset(s, 0, sizeof(*s));
	CHECK(doca_comm_channel_ep_create(&s->ep));
	s->dev = l22_open_dev(DPU_PCI);
	s->rep = l22_open_rep(s->dev, HOST_PCI);
	CHECK(doca_comm_channel_ep_set_device(s->ep, s->dev));
	set_sizes(s->ep, queue);
	CHECK(doca_comm_channel_ep_set_device_rep(s->ep, s->rep));
	CHECK(doca_comm_channel_ep_listen(s->ep, name));
}

/* Connect and wait as cc_client does; returns how many times update_info said INPROGRESS. */
static unsigned client_open(struct side *s, const char *name, uint16_t queue)
{
	uint64_t until = now_ms() + 20000;
	unsigned inprogress = 0;
	doca_error_t r;

	memset(s, 0, sizeof(*s));
	CHECK(doca_comm_channel_ep_create(&s->ep));
	s->dev = l22_open_dev(HOST_PCI);
	CHECK(doca_comm_channel_ep_set_device(s->ep, s->dev));
	set_sizes(s->ep, queue);
	CHECK(doca_comm_channel_ep_connect(s->ep, name, &s->peer));
	while ((r = doca_comm_channel_peer_addr_update_info(s->peer)) == DOCA_ERROR_CONNECTION_INPROGRESS) {
		if (now_ms() > until)
			FAIL("no connection to '%s' within 20 s", name);
		inprogress++;
		usleep(1000);
	}
	if (r != DOCA_SUCCESS)
		FAIL("update_info: %s", doca_get_error_name(r));
	return inprogress;
}

static void side_close(struct side *s)
{
	CHECK(doca_comm_channel_ep_destroy(s->ep));
	if (s->rep != NULL)
		CHECK(doca_dev_rep_close(s->rep));
	CHECK(doca_dev_close(s->dev));
}

static void send_retry(struct doca_comm_channel_ep_t *ep, const void *msg, size_t len,
		       struct doca_comm_channel_addr_t *peer)
{
	doca_error_t r;
	uint64_t until = now_ms() + 20000;

	while ((r = doca_comm_channel_ep_sendto(ep, msg, len, DOCA_CC_MSG_FLAG_NONE, peer)) == DOCA_ERROR_AGAIN)
		if (now_ms() > until)
			FAIL("sendto stayed AGAIN for 20 s");
	if (r != DOCA_SUCCESS)
		FAIL("sendto: %s", doca_get_error_name(r));
}

/*
 * The server of poll, multi and early: echo every message to its sender, check
 * each client's order with the peer's user data (its next seq), stop once
 * @p clients clients have come and gone.
 */
static void serve_echo(const char *name, int clients)
{
	static uint8_t buf[MAX_MSG];
	struct side s;
	int ended = 0;
	uint64_t until = now_ms() + 60000;

	server_open(&s, name, 64);
	while (ended < clients) {
		struct doca_comm_channel_addr_t *peer = NULL;
		size_t len = sizeof(buf);
		uint64_t expect = 0;
		uint32_t tag;
		doca_error_t r = doca_comm_channel_ep_recvfrom(s.ep, buf, &len, DOCA_CC_MSG_FLAG_NONE, &peer);

		if (now_ms() > until)
			FAIL("server: %d of %d clients done after 60 s", ended, clients);
		if (r == DOCA_ERROR_AGAIN) {
			usleep(10);
			continue;
		}
		if (r == DOCA_ERROR_CONNECTION_RESET) {
			ended++;
			CHECK(doca_comm_channel_ep_disconnect(s.ep, peer));
			continue;
		}
		if (r != DOCA_SUCCESS)
			FAIL("server recvfrom: %s", doca_get_error_name(r));
		memcpy(&tag, buf + 4, 4);
		CHECK(doca_comm_channel_peer_addr_get_user_data(peer, &expect));
		if (msg_check(buf, len, tag) != expect)
			FAIL("client %u: message %llu out of order", tag, (unsigned long long)expect);
		CHECK(doca_comm_channel_peer_addr_set_user_data(peer, expect + 1));
		send_retry(s.ep, buf, len, peer);
	}
	side_close(&s);
}

/* A client of poll, multi and early: @p n messages out and back, sends and receives interleaved. */
static void client_echo(const char *name, uint32_t tag, uint32_t n, unsigned *inprogress)
{
	static uint8_t out[MAX_MSG], in[MAX_MSG];
	uint64_t sent_bytes = 0, v = 0;
	uint32_t sent = 0, got = 0;
	uint64_t until = now_ms() + 60000;
	struct side s;
	unsigned waits = client_open(&s, name, 16);

	if (inprogress != NULL)
		*inprogress = waits;
	while (got < n) {
		struct doca_comm_channel_addr_t *from = NULL;
		size_t len = sizeof(in);
		doca_error_t r;
		bool moved = false;

		if (now_ms() > until)
			FAIL("client %u: %u of %u echoes after 60 s", tag, got, n);
		if (sent < n) {
			uint32_t l = msg_fill(out, tag, sent);

			r = doca_comm_channel_ep_sendto(s.ep, out, l, DOCA_CC_MSG_FLAG_NONE, s.peer);
			if (r == DOCA_SUCCESS) {
				sent++;
				sent_bytes += l;
				moved = true;
			} else if (r != DOCA_ERROR_AGAIN)
				FAIL("client sendto: %s", doca_get_error_name(r));
		}
		r = doca_comm_channel_ep_recvfrom(s.ep, in, &len, DOCA_CC_MSG_FLAG_NONE, &from);
		if (r == DOCA_SUCCESS) {
			if (from != s.peer)
				FAIL("a message from an unknown peer");
			if (msg_check(in, len, tag) != got)
				FAIL("client %u: echo %u out of order", tag, got);
			got++;
			moved = true;
		} else if (r != DOCA_ERROR_AGAIN)
			FAIL("client recvfrom: %s", doca_get_error_name(r));
		if (!moved)
			usleep(10);
	}
	CHECK(doca_comm_channel_peer_addr_get_send_messages(s.peer, &v));
	if (v != n)
		FAIL("send_messages %llu, expected %u", (unsigned long long)v, n);
	CHECK(doca_comm_channel_peer_addr_get_send_bytes(s.peer, &v));
	if (v != sent_bytes)
		FAIL("send_bytes %llu, expected %llu", (unsigned long long)v, (unsigned long long)sent_bytes);
	CHECK(doca_comm_channel_peer_addr_get_recv_messages(s.peer, &v));
	if (v != n)
		FAIL("recv_messages %llu, expected %u", (unsigned long long)v, n);
	CHECK(doca_comm_channel_peer_addr_get_recv_bytes(s.peer, &v));
	if (v != sent_bytes)
		FAIL("recv_bytes %llu, expected %llu", (unsigned long long)v, (unsigned long long)sent_bytes);
	CHECK(doca_comm_channel_ep_disconnect(s.ep, s.peer));
	side_close(&s);
}

/* ---- processes ---- */

static pid_t run_child(void (*fn)(const char *, uint32_t), const char *name, uint32_t arg)
{
	pid_t pid = fork();

	if (pid < 0)
		FAIL("fork: %s", strerror(errno));
	if (pid == 0) {
		alarm(100); /* a child the parent no longer waits for ends anyway */
		fn(name, arg);
		exit(0);
	}
	return pid;
}

static void wait_ok(pid_t pid, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		FAIL("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		FAIL("%s failed (status %#x)", what, status);
}

static void server_proc(const char *name, uint32_t clients)
{
	serve_echo(name, (int)clients);
}

static void client_proc(const char *name, uint32_t tag)
{
	client_echo(name, tag, 500, NULL);
}

static void mode_poll(void)
{
	pid_t server = run_child(server_proc, "cc_sample_server", 1);

	client_echo("cc_sample_server", 7, 2000, NULL);
	wait_ok(server, "server");
}

static void mode_multi(void)
{
	pid_t server = run_child(server_proc, "multi server", 3);
	pid_t clients[3];

	for (uint32_t i = 0; i < 3; i++)
		clients[i] = run_child(client_proc, "multi server", 100 + i);
	for (int i = 0; i < 3; i++)
		wait_ok(clients[i], "client");
	wait_ok(server, "server");
}

static void early_server_proc(const char *name, uint32_t delay_ms)
{
	usleep(delay_ms * 1000);
	serve_echo(name, 1);
}

static void mode_early(void)
{
	uint64_t t0 = now_ms();
	unsigned inprogress = 0;
	pid_t server;

	/* Comch gives up on a missing server after 200 ms: the Comm Channel must retry past that. */
	setenv("FERRY_COMCH_CONNECT_TIMEOUT_MS", "200", 1);
	server = run_child(early_server_proc, "late", 1500);

	client_echo("late", 3, 10, &inprogress);
	if (inprogress == 0 || now_ms() - t0 < 1400)
		FAIL("update_info said INPROGRESS %u times in %llu ms", inprogress,
		     (unsigned long long)(now_ms() - t0));
	wait_ok(server, "server");
}

/* ---- event mode: secure_channel's two threads per side ---- */

#define EVENT_MSGS 10000

struct ev_side {
	struct side s;
	pthread_mutex_t lock;
	pthread_mutex_t peer_lock;
	pthread_cond_t peer_known;
	bool is_server;
	uint32_t tag_out, tag_in;
	int send_fd, recv_fd;
	uint64_t until;
};

static void ev_wait(int chan_fd, int timeout_ms, struct ev_side *e)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = chan_fd};
	int ep = epoll_create1(0);

	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, chan_fd, &ev) != 0)
		FAIL("epoll: %s", strerror(errno));
	if (epoll_wait(ep, &ev, 1, timeout_ms) < 0 && errno != EINTR)
		FAIL("epoll_wait: %s", strerror(errno));
	close(ep);
	if (now_ms() > e->until)
		FAIL("event mode did not finish in time");
}

static void *ev_sender(void *arg)
{
	static uint8_t buf[2][MAX_MSG];
	struct ev_side *e = arg;
	uint8_t *out = buf[e->is_server];

	pthread_mutex_lock(&e->peer_lock);
	while (e->s.peer == NULL)
		pthread_cond_wait(&e->peer_known, &e->peer_lock);
	pthread_mutex_unlock(&e->peer_lock);
	for (uint32_t i = 0; i < EVENT_MSGS; i++) {
		uint32_t len = msg_fill(out, e->tag_out, i);

		for (;;) {
			doca_error_t r;

			pthread_mutex_lock(&e->lock);
			r = doca_comm_channel_ep_sendto(e->s.ep, out, len, DOCA_CC_MSG_FLAG_NONE, e->s.peer);
			pthread_mutex_unlock(&e->lock);
			if (r == DOCA_SUCCESS)
				break;
			if (r != DOCA_ERROR_AGAIN)
				FAIL("sendto: %s", doca_get_error_name(r));
			CHECK(doca_comm_channel_ep_event_handle_arm_send(e->s.ep));
			ev_wait(e->send_fd, 10, e);
		}
	}
	return NULL;
}

static void *ev_receiver(void *arg)
{
	static uint8_t buf[2][MAX_MSG];
	struct ev_side *e = arg;
	uint8_t *in = buf[e->is_server];

	for (uint32_t got = 0; got < EVENT_MSGS;) {
		struct doca_comm_channel_addr_t *from = NULL;
		size_t len = MAX_MSG;
		doca_error_t r;

		pthread_mutex_lock(&e->lock);
		r = doca_comm_channel_ep_recvfrom(e->s.ep, in, &len, DOCA_CC_MSG_FLAG_NONE, &from);
		pthread_mutex_unlock(&e->lock);
		if (r == DOCA_ERROR_AGAIN) {
			CHECK(doca_comm_channel_ep_event_handle_arm_recv(e->s.ep));
			ev_wait(e->recv_fd, 1000, e);
			continue;
		}
		if (r != DOCA_SUCCESS)
			FAIL("recvfrom: %s", doca_get_error_name(r));
		if (msg_check(in, len, e->tag_in) != got)
			FAIL("message %u out of order", got);
		if (got++ == 0 && e->is_server) { /* the DPU side learns its peer from the first message */
			pthread_mutex_lock(&e->peer_lock);
			e->s.peer = from;
			pthread_cond_signal(&e->peer_known);
			pthread_mutex_unlock(&e->peer_lock);
		}
	}
	return NULL;
}

static void ev_run(struct ev_side *e)
{
	pthread_t snd, rcv;

	e->until = now_ms() + 90000;
	pthread_mutex_init(&e->lock, NULL);
	pthread_mutex_init(&e->peer_lock, NULL);
	pthread_cond_init(&e->peer_known, NULL);
	CHECK(doca_comm_channel_ep_get_event_channel(e->s.ep, &e->send_fd, &e->recv_fd));
	if (pthread_create(&snd, NULL, ev_sender, e) != 0 || pthread_create(&rcv, NULL, ev_receiver, e) != 0)
		FAIL("pthread_create");
	pthread_join(rcv, NULL);
	pthread_join(snd, NULL);
}

static void ev_server_proc(const char *name, uint32_t unused)
{
	struct ev_side e = {.is_server = true, .tag_out = 2, .tag_in = 1};
	struct doca_comm_channel_addr_t *peer = NULL;
	uint8_t buf[16];
	size_t len = sizeof(buf);
	doca_error_t r;

	(void)unused;
	server_open(&e.s, name, 8190);
	ev_run(&e);
	/* Wait for the client to leave: it does once it has every message. */
	do {
		CHECK(doca_comm_channel_ep_event_handle_arm_recv(e.s.ep));
		ev_wait(e.recv_fd, 1000, &e);
		len = sizeof(buf);
		r = doca_comm_channel_ep_recvfrom(e.s.ep, buf, &len, DOCA_CC_MSG_FLAG_NONE, &peer);
	} while (r == DOCA_ERROR_AGAIN);
	if (r != DOCA_ERROR_CONNECTION_RESET || peer != e.s.peer)
		FAIL("the client's end: %s", doca_get_error_name(r));
	side_close(&e.s);
}

static void mode_event(void)
{
	pid_t server = run_child(ev_server_proc, "secure_channel_server", 0);
	struct ev_side e = {.is_server = false, .tag_out = 1, .tag_in = 2};

	client_open(&e.s, "secure_channel_server", 8190);
	ev_run(&e);
	CHECK(doca_comm_channel_ep_disconnect(e.s.ep, e.s.peer));
	side_close(&e.s);
	wait_ok(server, "server");
}

/* ---- kill: a peer's death is an error on the other side, never a hang ---- */

static void flood_client_proc(const char *name, uint32_t unused)
{
	static uint8_t buf[MAX_MSG], in[MAX_MSG];
	struct side s;

	(void)unused;
	client_open(&s, name, 16);
	for (uint32_t seq = 0;; seq++) {
		struct doca_comm_channel_addr_t *from;
		size_t len = sizeof(in);
		uint32_t l = msg_fill(buf, 9, seq);

		doca_error_t r;

		while ((r = doca_comm_channel_ep_sendto(s.ep, buf, l, 0, s.peer)) == DOCA_ERROR_AGAIN) {
			(void)doca_comm_channel_ep_recvfrom(s.ep, in, &len, 0, &from);
			len = sizeof(in);
		}
		if (r != DOCA_SUCCESS)
			FAIL("flood: %s", doca_get_error_name(r)); /* the server went first: not this test's plan */
	}
}

static void echo_server_forever_proc(const char *name, uint32_t unused)
{
	static uint8_t buf[MAX_MSG];
	struct side s;

	(void)unused;
	server_open(&s, name, 16);
	for (;;) {
		struct doca_comm_channel_addr_t *peer;
		size_t len = sizeof(buf);

		if (doca_comm_channel_ep_recvfrom(s.ep, buf, &len, 0, &peer) == DOCA_SUCCESS)
			send_retry(s.ep, buf, len, peer);
		else
			usleep(10);
	}
}

static void kill_wait(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status))
		FAIL("the killed peer did not die of its signal (status %#x)", status);
}

static void mode_kill_client(void)
{
	static uint8_t buf[MAX_MSG];
	struct doca_comm_channel_addr_t *peer = NULL, *from = NULL;
	struct side s;
	uint32_t got = 0;
	uint64_t until;
	pid_t client;
	doca_error_t r;

	server_open(&s, "kill server", 16);
	client = run_child(flood_client_proc, "kill server", 0);
	for (until = now_ms() + 20000; got < 100;) {
		size_t len = sizeof(buf);

		r = doca_comm_channel_ep_recvfrom(s.ep, buf, &len, 0, &from);
		if (r == DOCA_SUCCESS) {
			if (msg_check(buf, len, 9) != got++)
				FAIL("flood out of order");
			peer = from;
			(void)doca_comm_channel_ep_sendto(s.ep, buf, len > 64 ? 64 : len, 0, peer);
		} else if (r != DOCA_ERROR_AGAIN || now_ms() > until)
			FAIL("server: %s after %u messages", doca_get_error_name(r), got);
	}
	kill_wait(client);
	for (until = now_ms() + 10000;;) {
		size_t len = sizeof(buf);

		r = doca_comm_channel_ep_recvfrom(s.ep, buf, &len, 0, &from);
		if (r == DOCA_ERROR_CONNECTION_RESET)
			break;
		if ((r != DOCA_SUCCESS && r != DOCA_ERROR_AGAIN) || now_ms() > until)
			FAIL("after the client's death recvfrom said %s", doca_get_error_name(r));
	}
	if (from != peer)
		FAIL("the end came with another peer handle");
	EXPECT(doca_comm_channel_ep_sendto(s.ep, buf, 8, 0, peer), DOCA_ERROR_CONNECTION_RESET);
	EXPECT(doca_comm_channel_peer_addr_update_info(peer), DOCA_ERROR_CONNECTION_RESET);
	{
		size_t len = sizeof(buf);

		EXPECT(doca_comm_channel_ep_recvfrom(s.ep, buf, &len, 0, &from), DOCA_ERROR_AGAIN);
	}
	side_close(&s);
}

static void mode_kill_server(void)
{
	static uint8_t buf[MAX_MSG];
	pid_t server = run_child(echo_server_forever_proc, "doomed server", 0);
	struct doca_comm_channel_addr_t *from;
	bool send_reset = false, recv_reset = false;
	uint64_t until;
	struct side s;

	client_open(&s, "doomed server", 16);
	for (uint32_t i = 0; i < 10; i++) {
		size_t len = sizeof(buf);
		uint32_t l = msg_fill(buf, 4, i);
		doca_error_t r;

		send_retry(s.ep, buf, l, s.peer);
		until = now_ms() + 10000;
		while ((r = doca_comm_channel_ep_recvfrom(s.ep, buf, &len, 0, &from)) == DOCA_ERROR_AGAIN)
			if (now_ms() > until)
				FAIL("no echo");
		CHECK(r);
		if (msg_check(buf, len, 4) != i)
			FAIL("echo out of order");
	}
	kill_wait(server);
	for (until = now_ms() + 10000; !(send_reset && recv_reset);) {
		size_t len = sizeof(buf);
		doca_error_t r = doca_comm_channel_ep_sendto(s.ep, buf, 8, 0, s.peer);

		if (r == DOCA_ERROR_CONNECTION_RESET)
			send_reset = true;
		else if (r != DOCA_SUCCESS && r != DOCA_ERROR_AGAIN)
			FAIL("sendto after the server's death: %s", doca_get_error_name(r));
		r = doca_comm_channel_ep_recvfrom(s.ep, buf, &len, 0, &from);
		if (r == DOCA_ERROR_CONNECTION_RESET)
			recv_reset = true;
		else if (r != DOCA_ERROR_AGAIN)
			FAIL("recvfrom after the server's death: %s", doca_get_error_name(r));
		if (now_ms() > until)
			FAIL("the server's death not seen in 10 s (send %d, recv %d)", send_reset, recv_reset);
	}
	EXPECT(doca_comm_channel_peer_addr_update_info(s.peer), DOCA_ERROR_CONNECTION_RESET);
	CHECK(doca_comm_channel_ep_disconnect(s.ep, s.peer));
	side_close(&s);
}

static void mode_kill(void)
{
	mode_kill_client();
	mode_kill_server();
}

/* ---- misuse ---- */

static void misuse_caps(struct doca_dev *dev)
{
	uint32_t v = 0;

	CHECK(doca_comm_channel_get_max_service_name_len(&v));
	if (v < 64)
		FAIL("max service name length %u", v);
	CHECK(doca_comm_channel_get_max_message_size(doca_dev_as_devinfo(dev), &v));
	if (v < MAX_MSG)
		FAIL("max message size %u", v);
	CHECK(doca_comm_channel_get_max_send_queue_size(doca_dev_as_devinfo(dev), &v));
	if (v < 8192)
		FAIL("max send queue %u", v);
	CHECK(doca_comm_channel_get_max_recv_queue_size(doca_dev_as_devinfo(dev), &v));
	if (v < 8192)
		FAIL("max recv queue %u", v);
	CHECK(doca_comm_channel_get_service_max_num_connections(doca_dev_as_devinfo(dev), &v));
	if (v < 2)
		FAIL("max connections %u", v);
	EXPECT(doca_comm_channel_get_max_message_size(NULL, &v), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_get_max_service_name_len(NULL), DOCA_ERROR_INVALID_VALUE);
}

static void misuse_before_open(struct doca_comm_channel_ep_t *ep)
{
	struct doca_comm_channel_addr_t *peer = (struct doca_comm_channel_addr_t *)&peer;
	doca_event_channel_t sfd = -1, rfd = -1;
	uint16_t v = 0;
	uint8_t buf[8];
	size_t len = sizeof(buf);

	EXPECT(doca_comm_channel_ep_create(NULL), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_ep_set_max_msg_size(ep, 0), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_ep_set_max_msg_size(ep, MAX_MSG + 1), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_ep_set_send_queue_size(ep, 0), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_ep_set_recv_queue_size(ep, 8193), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_ep_set_device(ep, NULL), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_ep_set_device(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	CHECK(doca_comm_channel_ep_set_max_msg_size(ep, 1024));
	CHECK(doca_comm_channel_ep_set_send_queue_size(ep, 10));
	CHECK(doca_comm_channel_ep_set_recv_queue_size(ep, 8190));
	CHECK(doca_comm_channel_ep_get_max_msg_size(ep, &v));
	if (v != 1024)
		FAIL("max_msg_size reads %u", v);
	CHECK(doca_comm_channel_ep_get_send_queue_size(ep, &v));
	if (v != 10)
		FAIL("send_queue_size reads %u", v);
	CHECK(doca_comm_channel_ep_get_recv_queue_size(ep, &v));
	if (v != 8190)
		FAIL("recv_queue_size reads %u", v);
	EXPECT(doca_comm_channel_ep_listen(ep, "m"), DOCA_ERROR_BAD_STATE); /* no device */
	EXPECT(doca_comm_channel_ep_connect(ep, "m", &peer), DOCA_ERROR_BAD_STATE);
	EXPECT(doca_comm_channel_ep_get_event_channel(ep, &sfd, &rfd), DOCA_ERROR_BAD_STATE);
	EXPECT(doca_comm_channel_ep_event_handle_arm_send(ep), DOCA_ERROR_BAD_STATE);
	EXPECT(doca_comm_channel_ep_event_handle_arm_recv(ep), DOCA_ERROR_BAD_STATE);
	EXPECT(doca_comm_channel_ep_get_service_event_channel(ep, &sfd), DOCA_ERROR_BAD_STATE);
	EXPECT(doca_comm_channel_ep_recvfrom(ep, buf, &len, 0, &peer), DOCA_ERROR_NOT_CONNECTED);
	EXPECT(doca_comm_channel_ep_sendto(ep, buf, 1, 0, peer), DOCA_ERROR_NOT_CONNECTED);
}

static void misuse_server(struct doca_dev *dpu, struct doca_dev_rep *rep)
{
	struct doca_comm_channel_ep_t *ep;
	struct doca_comm_channel_addr_t *peer = NULL, **list = NULL;
	struct doca_dev *got_dev = NULL;
	struct doca_dev_rep *got_rep = NULL;
	doca_event_channel_t sfd = -1, rfd = -1, svc = -1;
	uint32_t n = 99;
	uint8_t buf[8];
	size_t len = sizeof(buf);

	CHECK(doca_comm_channel_ep_create(&ep));
	misuse_before_open(ep);
	CHECK(doca_comm_channel_ep_set_device(ep, dpu));
	EXPECT(doca_comm_channel_ep_listen(ep, "m"), DOCA_ERROR_BAD_STATE); /* no representor */
	CHECK(doca_comm_channel_ep_set_device_rep(ep, rep));
	CHECK(doca_comm_channel_ep_get_device(ep, &got_dev));
	CHECK(doca_comm_channel_ep_get_device_rep(ep, &got_rep));
	if (got_dev != dpu || got_rep != rep)
		FAIL("device getters");
	EXPECT(doca_comm_channel_ep_listen(ep, ""), DOCA_ERROR_INVALID_VALUE);
	CHECK(doca_comm_channel_ep_listen(ep, "misuse server"));
	EXPECT(doca_comm_channel_ep_listen(ep, "misuse server"), DOCA_ERROR_NOT_PERMITTED);
	EXPECT(doca_comm_channel_ep_connect(ep, "misuse server", &peer), DOCA_ERROR_NOT_PERMITTED);
	EXPECT(doca_comm_channel_ep_set_max_msg_size(ep, 100), DOCA_ERROR_BAD_STATE);
	EXPECT(doca_comm_channel_ep_set_send_queue_size(ep, 100), DOCA_ERROR_BAD_STATE);
	EXPECT(doca_comm_channel_ep_set_recv_queue_size(ep, 100), DOCA_ERROR_BAD_STATE);
	EXPECT(doca_comm_channel_ep_set_device(ep, dpu), DOCA_ERROR_BAD_STATE);
	CHECK(doca_comm_channel_ep_get_event_channel(ep, &sfd, &rfd));
	if (sfd < 0 || rfd < 0 || sfd == rfd)
		FAIL("event channels %d, %d", sfd, rfd);
	CHECK(doca_comm_channel_ep_get_service_event_channel(ep, &svc));
	/* Nothing came: AGAIN, and len and peer untouched (sync_event_dpu does not reset len). */
	peer = (struct doca_comm_channel_addr_t *)&len;
	EXPECT(doca_comm_channel_ep_recvfrom(ep, buf, &len, 0, &peer), DOCA_ERROR_AGAIN);
	if (len != sizeof(buf) || peer != (struct doca_comm_channel_addr_t *)&len)
		FAIL("recvfrom's AGAIN changed len or peer");
	EXPECT(doca_comm_channel_ep_recvfrom(ep, buf, &len, 1, &peer), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_ep_recvfrom(ep, buf, NULL, 0, &peer), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_ep_sendto(ep, buf, 2000, 0, NULL), DOCA_ERROR_INVALID_VALUE); /* > 1024 */
	EXPECT(doca_comm_channel_ep_sendto(ep, buf, 8, 0, NULL), DOCA_ERROR_NOT_CONNECTED);
	EXPECT(doca_comm_channel_ep_disconnect(ep, (struct doca_comm_channel_addr_t *)&len), DOCA_ERROR_INVALID_VALUE);
	CHECK(doca_comm_channel_ep_update_service_state_info(ep));
	CHECK(doca_comm_channel_ep_get_peer_addr_list(ep, &list, &n));
	if (n != 0)
		FAIL("%u peers on a fresh server", n);
	CHECK(doca_comm_channel_ep_get_pending_connections(ep, &n));
	if (n != 0)
		FAIL("%u pending connections on a fresh server", n);
	/* Armed with nothing to receive: not readable; with room to send: readable at once. */
	CHECK(doca_comm_channel_ep_event_handle_arm_recv(ep));
	CHECK(doca_comm_channel_ep_event_handle_arm_send(ep));
	{
		struct ev_side e = {.until = now_ms() + 5000};
		uint64_t t0 = now_ms();

		ev_wait(sfd, 2000, &e);
		if (now_ms() - t0 > 1000)
			FAIL("arm_send with room did not wake at once");
		t0 = now_ms();
		ev_wait(rfd, 200, &e);
		if (now_ms() - t0 < 150)
			FAIL("arm_recv with nothing queued woke");
	}
	CHECK(doca_comm_channel_ep_destroy(ep));
	EXPECT(doca_comm_channel_ep_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
}

/* A client whose server does not exist yet: INPROGRESS, and sendto says NOT_CONNECTED. */
static void misuse_client(struct doca_dev *host)
{
	struct doca_comm_channel_ep_t *ep;
	struct doca_comm_channel_addr_t *peer = NULL, *other = NULL;
	uint64_t v = 1;
	uint8_t buf[8] = {0};

	CHECK(doca_comm_channel_ep_create(&ep));
	CHECK(doca_comm_channel_ep_set_device(ep, host));
	EXPECT(doca_comm_channel_ep_connect(ep, "nobody here", NULL), DOCA_ERROR_INVALID_VALUE);
	CHECK(doca_comm_channel_ep_connect(ep, "nobody here", &peer));
	EXPECT(doca_comm_channel_ep_connect(ep, "nobody here", &other), DOCA_ERROR_NOT_PERMITTED);
	EXPECT(doca_comm_channel_peer_addr_update_info(peer), DOCA_ERROR_CONNECTION_INPROGRESS);
	EXPECT(doca_comm_channel_ep_sendto(ep, buf, 8, 0, peer), DOCA_ERROR_NOT_CONNECTED);
	EXPECT(doca_comm_channel_ep_listen(ep, "x"), DOCA_ERROR_NOT_PERMITTED);
	CHECK(doca_comm_channel_peer_addr_set_user_data(peer, 42));
	CHECK(doca_comm_channel_peer_addr_get_user_data(peer, &v));
	if (v != 42)
		FAIL("user data reads %llu", (unsigned long long)v);
	CHECK(doca_comm_channel_peer_addr_get_send_in_flight_messages(peer, &v));
	if (v != 0)
		FAIL("in flight %llu", (unsigned long long)v);
	EXPECT(doca_comm_channel_peer_addr_update_info(NULL), DOCA_ERROR_INVALID_VALUE);
	EXPECT(doca_comm_channel_ep_update_service_state_info(ep), DOCA_ERROR_BAD_STATE); /* a client */
	CHECK(doca_comm_channel_ep_disconnect(ep, peer));
	CHECK(doca_comm_channel_ep_destroy(ep));
}

/* The service channel wakes on a new client; the peer list and pending count follow recvfrom. */
static void service_state(struct doca_dev *dpu, struct doca_dev_rep *rep, struct doca_dev *host)
{
	struct doca_comm_channel_ep_t *srv, *cli;
	struct doca_comm_channel_addr_t *to_srv = NULL, *from = NULL, **list = NULL;
	struct ev_side e = {.until = now_ms() + 10000};
	doca_event_channel_t svc = -1;
	uint32_t n = 0, pending = 0;
	uint8_t buf[16];
	size_t len = sizeof(buf);
	doca_error_t r;

	CHECK(doca_comm_channel_ep_create(&srv));
	CHECK(doca_comm_channel_ep_set_device(srv, dpu));
	CHECK(doca_comm_channel_ep_set_device_rep(srv, rep));
	CHECK(doca_comm_channel_ep_listen(srv, "service state"));
	CHECK(doca_comm_channel_ep_get_service_event_channel(srv, &svc));
	CHECK(doca_comm_channel_ep_update_service_state_info(srv)); /* arms the service channel */
	CHECK(doca_comm_channel_ep_create(&cli));
	CHECK(doca_comm_channel_ep_set_device(cli, host));
	CHECK(doca_comm_channel_ep_connect(cli, "service state", &to_srv));
	while ((r = doca_comm_channel_peer_addr_update_info(to_srv)) == DOCA_ERROR_CONNECTION_INPROGRESS) {
		EXPECT(doca_comm_channel_ep_recvfrom(srv, buf, &len, 0, &from), DOCA_ERROR_AGAIN); /* lets it accept */
		if (now_ms() > e.until)
			FAIL("no connection");
	}
	CHECK(r);
	while (doca_comm_channel_ep_recvfrom(srv, buf, &len, 0, &from) == DOCA_ERROR_AGAIN) {
		CHECK(doca_comm_channel_ep_update_service_state_info(srv));
		CHECK(doca_comm_channel_ep_get_peer_addr_list(srv, &list, &n));
		if (n == 1)
			break;
		ev_wait(svc, 100, &e);
	}
	CHECK(doca_comm_channel_ep_get_pending_connections(srv, &pending));
	if (n != 1 || pending != 1)
		FAIL("%u peers, %u pending after a client connected", n, pending);
	CHECK(doca_comm_channel_ep_sendto(cli, "hi", 2, 0, to_srv));
	for (len = sizeof(buf); (r = doca_comm_channel_ep_recvfrom(srv, buf, &len, 0, &from)) == DOCA_ERROR_AGAIN;)
		if (now_ms() > e.until)
			FAIL("no message");
	CHECK(r);
	if (from != list[0] || len != 2)
		FAIL("the message came from %p, not the listed peer %p", (void *)from, (void *)list[0]);
	CHECK(doca_comm_channel_ep_update_service_state_info(srv));
	CHECK(doca_comm_channel_ep_get_pending_connections(srv, &pending));
	if (pending != 0)
		FAIL("%u pending once the client's first message was received", pending);
	CHECK(doca_comm_channel_ep_destroy(cli));
	CHECK(doca_comm_channel_ep_destroy(srv));
}

static void mode_misuse(void)
{
	struct doca_dev *dpu = l22_open_dev(DPU_PCI), *host = l22_open_dev(HOST_PCI);
	struct doca_dev_rep *rep = l22_open_rep(dpu, HOST_PCI);

	misuse_caps(dpu);
	misuse_server(dpu, rep);
	misuse_client(host);
	service_state(dpu, rep, host);
	CHECK(doca_dev_rep_close(rep));
	CHECK(doca_dev_close(dpu));
	CHECK(doca_dev_close(host));
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} modes[] = {
		{"poll", mode_poll},   {"event", mode_event}, {"multi", mode_multi},
		{"early", mode_early}, {"kill", mode_kill},   {"misuse", mode_misuse},
	};

	doca_log_create_standard_backend();
	signal(SIGPIPE, SIG_IGN);
	for (size_t i = 0; argc == 2 && i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(argv[1], modes[i].name) == 0) {
			modes[i].fn();
			printf("%s: ok\n", argv[1]);
			return 0;
		}
	}
	fprintf(stderr, "usage: %s poll|event|multi|early|kill|misuse\n", argv[0]);
	return 2;
}
