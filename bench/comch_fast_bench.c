/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch_fast_bench.c - the DOCA Comch fast path (producer -> consumer across two
 * processes) against its raw peers, in one run (a command, not a test):
 *
 *   build-<dir>/bench/comch_fast_bench [--seconds S] [--window W]
 *
 * For 64 B, 4 KiB, 64 KiB and 1 MiB messages: a forked DPU-side process runs a
 * consumer that keeps W buffers posted (reposting each as it completes); this
 * process runs a producer that keeps W sends in flight for S seconds. The
 * consumer's memory is either shareable (ferry_mem_alloc_shared: the producer
 * copies with memcpy into a shared mapping) or ordinary malloc (the producer
 * copies with process_vm_writev). Baselines in the same run: memcpy of the same
 * size in one process, and a raw Unix SEQPACKET stream of the same size to a
 * forked reader (up to 64 KiB, the socket's datagram limit). Prints a table and
 * one "comch_fast_bench:" line per size for scripts.
 */
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <ferry_mem.h>

#include "bench_util.h"
#include "ferry_test_dev.h"

#define BENCH_NAME "comch-fast-bench"
#define MAX_WINDOW 64u

struct side {
	struct doca_pe *pe;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_comch_connection *conn;
	bool conn_gone;
	uint8_t *mem;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_comch_producer *producer;
	struct doca_comch_consumer *consumer;
	uint32_t remote_id;
	uint64_t done;
	bool stopping;
	uint32_t in_flight;
};

static struct side s;

static void free_send(struct doca_comch_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_task_send_as_task(task));
}

static bool start_ctx(struct doca_ctx *ctx)
{
	doca_error_t err;

	if (doca_pe_connect_ctx(s.pe, ctx) != DOCA_SUCCESS)
		return false;
	err = doca_ctx_start(ctx);
	return err == DOCA_SUCCESS || err == DOCA_ERROR_IN_PROGRESS;
}

static bool map_memory(size_t len, bool shared)
{
	s.mem = shared ? ferry_mem_alloc_shared(len) : aligned_alloc(4096, len);
	if (s.mem == NULL)
		return false;
	memset(s.mem, 0x5a, len);
	return doca_mmap_create(&s.mmap) == DOCA_SUCCESS &&
	       doca_mmap_set_memrange(s.mmap, s.mem, len) == DOCA_SUCCESS &&
	       doca_mmap_add_dev(s.mmap, s.dev) == DOCA_SUCCESS &&
	       doca_mmap_set_permissions(s.mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) ==
		       DOCA_SUCCESS &&
	       doca_mmap_start(s.mmap) == DOCA_SUCCESS &&
	       doca_buf_inventory_create(MAX_WINDOW, &s.inv) == DOCA_SUCCESS &&
	       doca_buf_inventory_start(s.inv) == DOCA_SUCCESS;
}

static enum doca_ctx_states state_of(struct doca_ctx *ctx)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(ctx, &st);
	return st;
}

/* ---- consumer (forked DPU-side process) ---- */

static void repost(struct doca_comch_consumer_task_post_recv *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	s.done++;
	(void)doca_buf_reset_data_len(doca_comch_consumer_task_post_recv_get_buf(task));
	if (doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static void recv_failed(struct doca_comch_consumer_task_post_recv *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(task));
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
		       uint8_t ok)
{
	(void)ev;
	if (ok)
		s.conn = conn;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			  uint8_t ok)
{
	(void)ev;
	(void)conn;
	(void)ok;
	s.conn_gone = true;
}

static int consumer_main(uint32_t size, uint32_t window, bool shared)
{
	pin_to(1);
	s.dev = ferry_test_open_dev(NULL, doca_comch_cap_server_is_supported);
	s.rep = s.dev != NULL ? ferry_test_open_rep(s.dev, NULL) : NULL;
	if (doca_pe_create(&s.pe) != DOCA_SUCCESS || s.rep == NULL || !map_memory((size_t)size * window, shared) ||
	    doca_comch_server_create(s.dev, s.rep, BENCH_NAME, &s.server) != DOCA_SUCCESS ||
	    doca_comch_server_task_send_set_conf(s.server, free_send, free_send, 8) != DOCA_SUCCESS ||
	    doca_comch_server_event_connection_status_changed_register(s.server, on_connect, on_disconnect) !=
		    DOCA_SUCCESS ||
	    !start_ctx(doca_comch_server_as_ctx(s.server)))
		return 2;
	while (s.conn == NULL)
		if (doca_pe_progress(s.pe) == 0)
			usleep(10);
	if (doca_comch_consumer_create(s.conn, s.mmap, &s.consumer) != DOCA_SUCCESS ||
	    doca_comch_consumer_task_post_recv_set_conf(s.consumer, repost, recv_failed, window) != DOCA_SUCCESS ||
	    !start_ctx(doca_comch_consumer_as_ctx(s.consumer)))
		return 2;
	while (state_of(doca_comch_consumer_as_ctx(s.consumer)) != DOCA_CTX_STATE_RUNNING)
		(void)doca_pe_progress(s.pe);
	for (uint32_t k = 0; k < window; k++) {
		struct doca_buf *buf = NULL;
		struct doca_comch_consumer_task_post_recv *task = NULL;

		if (doca_buf_inventory_buf_get_by_addr(s.inv, s.mmap, s.mem + (size_t)k * size, size, &buf) !=
			    DOCA_SUCCESS ||
		    doca_comch_consumer_task_post_recv_alloc_init(s.consumer, buf, &task) != DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_consumer_task_post_recv_as_task(task)) != DOCA_SUCCESS)
			return 2;
	}
	while (!s.conn_gone)
		(void)doca_pe_progress(s.pe);
	return 0; /* the process ends; the OS reclaims the rest */
}

/* ---- producer (this process, host side) ---- */

static void sent(struct doca_comch_producer_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	s.done++;
	if (s.stopping || doca_task_submit(doca_comch_producer_task_send_as_task(task)) != DOCA_SUCCESS) {
		doca_task_free(doca_comch_producer_task_send_as_task(task));
		s.in_flight--;
	}
}

static void send_failed(struct doca_comch_producer_task_send *task, union doca_data tud, union doca_data cud)
{
	(void)tud;
	(void)cud;
	doca_task_free(doca_comch_producer_task_send_as_task(task));
	s.in_flight--;
	s.stopping = true;
}

static void on_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	s.remote_id = id;
}

static void on_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
}

/* Messages per second of one producer run; 0 on failure. */
static double producer_run(uint32_t size, uint32_t window, double seconds)
{
	double t0, t1;
	uint64_t before;

	s.dev = ferry_test_open_dev(NULL, doca_comch_cap_client_is_supported);
	if (doca_pe_create(&s.pe) != DOCA_SUCCESS || s.dev == NULL || !map_memory((size_t)size * window, false) ||
	    doca_comch_client_create(s.dev, BENCH_NAME, &s.client) != DOCA_SUCCESS ||
	    doca_comch_client_task_send_set_conf(s.client, free_send, free_send, 8) != DOCA_SUCCESS ||
	    doca_comch_client_event_consumer_register(s.client, on_new_consumer, on_expired_consumer) != DOCA_SUCCESS ||
	    !start_ctx(doca_comch_client_as_ctx(s.client)))
		return 0;
	while (state_of(doca_comch_client_as_ctx(s.client)) == DOCA_CTX_STATE_STARTING)
		(void)doca_pe_progress(s.pe);
	if (doca_comch_client_get_connection(s.client, &s.conn) != DOCA_SUCCESS ||
	    doca_comch_producer_create(s.conn, &s.producer) != DOCA_SUCCESS ||
	    doca_comch_producer_task_send_set_conf(s.producer, sent, send_failed, window) != DOCA_SUCCESS ||
	    !start_ctx(doca_comch_producer_as_ctx(s.producer)))
		return 0;
	while (s.remote_id == 0)
		(void)doca_pe_progress(s.pe);
	for (uint32_t k = 0; k < window; k++) {
		struct doca_buf *buf = NULL;
		struct doca_comch_producer_task_send *task = NULL;

		if (doca_buf_inventory_buf_get_by_data(s.inv, s.mmap, s.mem + (size_t)k * size, size, &buf) !=
			    DOCA_SUCCESS ||
		    doca_comch_producer_task_send_alloc_init(s.producer, buf, NULL, 0, s.remote_id, &task) !=
			    DOCA_SUCCESS ||
		    doca_task_submit(doca_comch_producer_task_send_as_task(task)) != DOCA_SUCCESS)
			return 0;
		s.in_flight++;
	}
	/* warm up briefly, then count */
	for (t0 = now_s(); now_s() - t0 < 0.05;)
		(void)doca_pe_progress(s.pe);
	before = s.done;
	t0 = now_s();
	do
		(void)doca_pe_progress(s.pe);
	while ((t1 = now_s()) - t0 < seconds && !s.stopping);
	return s.stopping ? 0 : (double)(s.done - before) / (t1 - t0);
}

static void producer_teardown(void)
{
	s.stopping = true;
	for (int i = 0; i < 100000 && s.in_flight > 0; i++)
		(void)doca_pe_progress(s.pe);
	(void)doca_ctx_stop(doca_comch_producer_as_ctx(s.producer));
	(void)doca_ctx_stop(doca_comch_client_as_ctx(s.client));
	for (int i = 0; i < 1000; i++)
		(void)doca_pe_progress(s.pe);
}

static double fast_path(uint32_t size, uint32_t window, double seconds, bool shared)
{
	pid_t child;
	double rate;
	int status = 0;

	memset(&s, 0, sizeof(s));
	child = fork();
	if (child == 0)
		_exit(consumer_main(size, window, shared));
	pin_to(0);
	rate = producer_run(size, window, seconds);
	producer_teardown();
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		rate = 0;
	return rate; /* this process's objects are left to the end of the run: one run per size */
}

/* ---- baselines ---- */

static double memcpy_rate(uint32_t size, double seconds)
{
	uint8_t *a = aligned_alloc(4096, ((size_t)size + 4095) & ~(size_t)4095);
	uint8_t *b = aligned_alloc(4096, ((size_t)size + 4095) & ~(size_t)4095);
	uint64_t n = 0;
	double t0 = now_s(), t1;

	memset(a, 1, size);
	memset(b, 2, size);
	do {
		for (int k = 0; k < 64; k++, n++) {
			memcpy(b, a, size);
			__asm__ volatile("" : : "r"(b) : "memory"); /* keep the copy */
		}
	} while ((t1 = now_s()) - t0 < seconds);
	free(a);
	free(b);
	return (double)n / (t1 - t0);
}

static double socket_rate(uint32_t size, double seconds)
{
	int sv[2];
	uint8_t *buf = malloc(size);
	uint64_t n = 0;
	double t0, t1;
	pid_t child;

	if (size > 65536 || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0)
		return 0;
	child = fork();
	if (child == 0) {
		pin_to(1);
		close(sv[0]);
		while (recv(sv[1], buf, size, 0) > 0)
			;
		_exit(0);
	}
	close(sv[1]);
	memset(buf, 3, size);
	t0 = now_s();
	do {
		for (int k = 0; k < 16; k++, n++)
			if (send(sv[0], buf, size, 0) != (ssize_t)size)
				return 0;
	} while ((t1 = now_s()) - t0 < seconds);
	close(sv[0]);
	waitpid(child, NULL, 0);
	free(buf);
	return (double)n / (t1 - t0);
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = {64, 4096, 65536, 1u << 20};
	double seconds = 1.0;
	uint32_t window = 16;
	char domain[64];

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--seconds") == 0)
			seconds = atof(argv[i + 1]);
		else if (strcmp(argv[i], "--window") == 0)
			window = (uint32_t)strtoul(argv[i + 1], NULL, 0);
	}
	if (seconds <= 0 || window == 0 || window > MAX_WINDOW) {
		fprintf(stderr, "usage: comch_fast_bench [--seconds S] [--window 1..%u]\n", MAX_WINDOW);
		return 2;
	}
	printf("%u sends in flight, %.1f s per figure; rates in messages/s, GB/s in brackets\n", window, seconds);
	printf("%-8s %22s %22s %22s %22s\n", "size", "fast (shared)", "fast (CMA)", "memcpy", "raw SEQPACKET");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		double r[4];

		fflush(stdout);
		snprintf(domain, sizeof(domain), "comch-fast-bench-%d-%zu-s", (int)getpid(), i);
		setenv("FERRY_DOMAIN", domain, 1);
		r[0] = fast_path(sizes[i], window, seconds, true);
		domain[strlen(domain) - 1] = 'c';
		setenv("FERRY_DOMAIN", domain, 1);
		r[1] = fast_path(sizes[i], window, seconds, false);
		r[2] = memcpy_rate(sizes[i], seconds);
		r[3] = socket_rate(sizes[i], seconds);
		printf("%-8u", sizes[i]);
		for (int k = 0; k < 4; k++)
			printf(" %12.0f [%6.2f]", r[k], r[k] * sizes[i] / 1e9);
		printf("\n");
		printf("comch_fast_bench: size=%u fast_shared_msgs=%.0f fast_cma_msgs=%.0f memcpy_msgs=%.0f "
		       "socket_msgs=%.0f window=%u\n",
		       sizes[i], r[0], r[1], r[2], r[3], window);
	}
	return 0;
}
