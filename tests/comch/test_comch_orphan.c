/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_comch_orphan.c - Comch tasks the program frees while they are in flight,
 * then stops their context, as some programs do at teardown: consumer
 * post-receive tasks (posted, some filled by a producer meanwhile), producer
 * sends waiting for a post, and client sends. Each context reaches IDLE, no
 * callback runs for a freed task, one line is logged per context, and every
 * task is back in its pool (ASan sees no leak and no use after free).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "comch_util.h"
#include "core/ferry_ctx.h"
#include "ferry_test.h"
#include "ferry_test_ctx.h"
#include "ferry_test_wait.h"

#define ORPHAN_LINE "is in flight; it returns to its pool when it completes, without a callback"
#define NPOSTS      16u
#define BUF_LEN     4096u
#define MEM_LEN     (NPOSTS * BUF_LEN)

struct fix {
	struct cu_machine m;
	struct doca_comch_server *server;
	struct doca_comch_client *client;
	struct doca_comch_connection *server_conn, *client_conn;
	unsigned connects, new_consumers;
	/* callbacks of the tasks under test */
	unsigned recv_ok, recv_err, prod_ok, prod_err, send_ok, send_err;
	/* the fast path's memory */
	uint8_t *cmem, *pmem;
	struct doca_mmap *cm, *pm;
	struct doca_buf_inventory *inv;
};

static struct fix *F;

static void send_ok(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	F->send_ok++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void send_err(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	F->send_err++;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
		       uint8_t ok)
{
	(void)ev;
	(void)ok;
	F->connects++;
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

static void on_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
	F->new_consumers++;
}

static void on_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
}

static void recv_ok(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	(void)t;
	(void)tu;
	(void)cu;
	F->recv_ok++;
}

static void recv_err(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	(void)t;
	(void)tu;
	(void)cu;
	F->recv_err++;
}

static void prod_ok(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)t;
	(void)tu;
	(void)cu;
	F->prod_ok++;
}

static void prod_err(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)t;
	(void)tu;
	(void)cu;
	F->prod_err++;
}

static struct doca_mmap *fast_mmap(void *mem, size_t len, struct doca_dev *dev)
{
	struct doca_mmap *m = NULL;

	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, mem, len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	return m;
}

/* A server and a client connected to it, and the memory of the fast path. */
static int setup(void **state)
{
	static unsigned seq;
	char name[32];

	F = calloc(1, sizeof(*F));
	assert_non_null(F);
	setenv("FERRY_COMCH_CONNECT_TIMEOUT_MS", "500", 1);
	setenv("FERRY_COMCH_HANDSHAKE_MS", "150", 1);
	assert_true(cu_machine_open(&F->m, "comch-orphan"));
	ferry_test_log_reset();
	snprintf(name, sizeof(name), "orphan%u", ++seq);

	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, name, &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_ok, send_err, 64), DOCA_SUCCESS);
	assert_int_equal(
		doca_comch_server_event_connection_status_changed_register(F->server, on_connect, on_disconnect),
		DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_create(F->m.host, name, &F->client), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_task_send_set_conf(F->client, send_ok, send_err, 64), DOCA_SUCCESS);
	assert_int_equal(doca_comch_client_event_consumer_register(F->client, on_new_consumer, on_expired_consumer),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_client_as_ctx(F->client)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_client_as_ctx(F->client)), DOCA_ERROR_IN_PROGRESS);
	FERRY_PROGRESS_UNTIL(F->m.pe,
			     ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)) == DOCA_CTX_STATE_RUNNING &&
				     F->connects > 0,
			     FERRY_TEST_WAIT_MS);
	assert_int_equal(ferry_test_ctx_state(doca_comch_client_as_ctx(F->client)), DOCA_CTX_STATE_RUNNING);
	assert_non_null(F->server_conn);
	assert_int_equal(doca_comch_client_get_connection(F->client, &F->client_conn), DOCA_SUCCESS);

	F->cmem = calloc(1, MEM_LEN);
	F->pmem = malloc(MEM_LEN);
	assert_non_null(F->cmem);
	assert_non_null(F->pmem);
	memset(F->pmem, 0x5a, MEM_LEN);
	F->cm = fast_mmap(F->cmem, MEM_LEN, F->m.dpu);
	F->pm = fast_mmap(F->pmem, MEM_LEN, F->m.host);
	assert_int_equal(doca_buf_inventory_create(4 * NPOSTS, &F->inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(F->inv), DOCA_SUCCESS);
	*state = F;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ferry_test_stop_idle(F->m.pe, doca_comch_client_as_ctx(F->client));
	assert_int_equal(doca_comch_client_destroy(F->client), DOCA_SUCCESS);
	ferry_test_stop_idle(F->m.pe, doca_comch_server_as_ctx(F->server));
	assert_int_equal(doca_comch_server_destroy(F->server), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_destroy(F->inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(F->cm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(F->pm), DOCA_SUCCESS);
	cu_machine_close(&F->m);
	free(F->cmem);
	free(F->pmem);
	free(F);
	return 0;
}

static size_t inflight_of(struct doca_ctx *ctx)
{
	size_t n = 99;

	assert_int_equal(doca_ctx_get_num_inflight_tasks(ctx, &n), DOCA_SUCCESS);
	return n;
}

/* A started consumer on the server's connection, seen by the client (its peer). */
static struct doca_comch_consumer *consumer_up(uint32_t *id)
{
	struct doca_comch_consumer *c = NULL;

	F->new_consumers = 0;
	assert_int_equal(doca_comch_consumer_create(F->server_conn, F->cm, &c), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(c, recv_ok, recv_err, NPOSTS), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_consumer_as_ctx(c)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(c)), DOCA_ERROR_IN_PROGRESS);
	FERRY_PROGRESS_UNTIL(F->m.pe,
			     ferry_test_ctx_state(doca_comch_consumer_as_ctx(c)) == DOCA_CTX_STATE_RUNNING &&
				     F->new_consumers > 0,
			     FERRY_TEST_WAIT_MS);
	assert_int_equal(ferry_test_ctx_state(doca_comch_consumer_as_ctx(c)), DOCA_CTX_STATE_RUNNING);
	assert_int_equal(F->new_consumers, 1);
	assert_int_equal(doca_comch_consumer_get_id(c, id), DOCA_SUCCESS);
	return c;
}

/* Post every task of the consumer's pool, one buffer each. */
static void post_all(struct doca_comch_consumer *c, struct doca_buf **bufs,
		     struct doca_comch_consumer_task_post_recv **tasks)
{
	for (unsigned i = 0; i < NPOSTS; i++) {
		assert_int_equal(
			doca_buf_inventory_buf_get_by_addr(F->inv, F->cm, F->cmem + i * BUF_LEN, BUF_LEN, &bufs[i]),
			DOCA_SUCCESS);
		assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(c, bufs[i], &tasks[i]), DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(tasks[i])), DOCA_SUCCESS);
	}
}

static struct doca_comch_producer *producer_up(uint32_t num_tasks)
{
	struct doca_comch_producer *p = NULL;

	assert_int_equal(doca_comch_producer_create(F->client_conn, &p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_set_conf(p, prod_ok, prod_err, num_tasks), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	return p;
}

/*
 * The consumer's teardown: every post freed while posted, then the consumer
 * stops. It reaches IDLE with no receive callback, one line, nothing in
 * flight, and destroys.
 */
static void test_consumer_posts_freed_then_stop(void **state)
{
	struct doca_comch_consumer *c;
	struct doca_buf *bufs[NPOSTS];
	struct doca_comch_consumer_task_post_recv *tasks[NPOSTS];
	struct doca_ctx *ctx;
	uint32_t cid = 0;

	(void)state;
	c = consumer_up(&cid);
	ctx = doca_comch_consumer_as_ctx(c);
	post_all(c, bufs, tasks);
	ferry_test_log_reset();
	for (unsigned i = 0; i < NPOSTS; i++)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(tasks[i]));
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);
	assert_logged("doca_task_free: comch consumer post recv task");
	assert_int_equal(inflight_of(ctx), NPOSTS);

	(void)doca_ctx_stop(ctx);
	ferry_test_stop_idle(F->m.pe, ctx);
	assert_int_equal(F->recv_ok + F->recv_err, 0);
	assert_int_equal(inflight_of(ctx), 0);
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);
	assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
	for (unsigned i = 0; i < NPOSTS; i++)
		assert_int_equal(doca_buf_dec_refcount(bufs[i], NULL), DOCA_SUCCESS);
}

/*
 * Posts freed while a producer fills some of them: those complete through the
 * peer's completion ring with no receive callback (the producer's sends still
 * succeed), the rest are flushed at the stop, also silently.
 */
static void test_consumer_posts_freed_while_filled(void **state)
{
	enum { NSENDS = NPOSTS / 2 };
	struct doca_comch_consumer *c;
	struct doca_comch_producer *p;
	struct doca_buf *bufs[NPOSTS], *sbuf = NULL;
	struct doca_comch_consumer_task_post_recv *tasks[NPOSTS];
	struct doca_comch_producer_task_send *sends[NSENDS];
	uint32_t cid = 0;

	(void)state;
	c = consumer_up(&cid);
	p = producer_up(NSENDS);
	post_all(c, bufs, tasks);
	for (unsigned i = 0; i < NPOSTS; i++)
		doca_task_free(doca_comch_consumer_task_post_recv_as_task(tasks[i]));
	assert_int_equal(doca_buf_inventory_buf_get_by_data(F->inv, F->pm, F->pmem, 1000, &sbuf), DOCA_SUCCESS);
	for (unsigned i = 0; i < NSENDS; i++) {
		assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, NULL, 0, cid, &sends[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(sends[i])), DOCA_SUCCESS);
	}
	FERRY_PROGRESS_UNTIL(F->m.pe, F->prod_ok + F->prod_err == NSENDS, FERRY_TEST_WAIT_MS);
	assert_int_equal(F->prod_ok, NSENDS);
	/* The filled posts come back through the completion ring: wait until they are in the pool. */
	FERRY_PROGRESS_UNTIL(F->m.pe, inflight_of(doca_comch_consumer_as_ctx(c)) == NPOSTS - NSENDS,
			     FERRY_TEST_WAIT_MS);
	assert_int_equal(inflight_of(doca_comch_consumer_as_ctx(c)), NPOSTS - NSENDS);
	assert_int_equal(F->recv_ok + F->recv_err, 0);
	assert_memory_equal(F->cmem, F->pmem, 1000); /* the bytes did land: the buffer is the program's */

	ferry_test_stop_idle(F->m.pe, doca_comch_consumer_as_ctx(c));
	assert_int_equal(F->recv_ok + F->recv_err, 0);
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);
	for (unsigned i = 0; i < NSENDS; i++)
		doca_task_free(doca_comch_producer_task_send_as_task(sends[i]));
	ferry_test_stop_idle(F->m.pe, doca_comch_producer_as_ctx(p));
	assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
	for (unsigned i = 0; i < NPOSTS; i++)
		assert_int_equal(doca_buf_dec_refcount(bufs[i], NULL), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(sbuf, NULL), DOCA_SUCCESS);
}

/* Producer sends waiting for a post, freed, then the producer stops: IDLE, no send callback. */
static void test_producer_sends_freed_then_stop(void **state)
{
	enum { NSENDS = 8 };
	struct doca_comch_consumer *c;
	struct doca_comch_producer *p;
	struct doca_buf *sbuf = NULL;
	struct doca_comch_producer_task_send *sends[NSENDS];
	uint32_t cid = 0;

	(void)state;
	c = consumer_up(&cid); /* nothing posted: the sends wait */
	p = producer_up(NSENDS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(F->inv, F->pm, F->pmem, 100, &sbuf), DOCA_SUCCESS);
	for (unsigned i = 0; i < NSENDS; i++) {
		assert_int_equal(doca_comch_producer_task_send_alloc_init(p, sbuf, NULL, 0, cid, &sends[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(sends[i])), DOCA_SUCCESS);
	}
	for (int i = 0; i < 100; i++)
		(void)doca_pe_progress(F->m.pe);
	assert_int_equal(F->prod_ok + F->prod_err, 0);
	for (unsigned i = 0; i < NSENDS; i++)
		doca_task_free(doca_comch_producer_task_send_as_task(sends[i]));
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);
	assert_logged("doca_task_free: comch producer send task");
	ferry_test_stop_idle(F->m.pe, doca_comch_producer_as_ctx(p));
	assert_int_equal(F->prod_ok + F->prod_err, 0);
	assert_int_equal(inflight_of(doca_comch_producer_as_ctx(p)), 0);
	assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
	ferry_test_stop_idle(F->m.pe, doca_comch_consumer_as_ctx(c));
	assert_int_equal(doca_comch_consumer_destroy(c), DOCA_SUCCESS);
	assert_int_equal(doca_buf_dec_refcount(sbuf, NULL), DOCA_SUCCESS);
}

/* Client sends freed right after submit, then the client stops: IDLE, no send callback. */
static void test_client_sends_freed_then_stop(void **state)
{
	enum { NSENDS = 32 };
	struct doca_comch_task_send *sends[NSENDS];
	struct doca_ctx *ctx = doca_comch_client_as_ctx(F->client);
	char msg[64];

	(void)state;
	memset(msg, 'x', sizeof(msg));
	for (unsigned i = 0; i < NSENDS; i++) {
		assert_int_equal(
			doca_comch_client_task_send_alloc_init(F->client, F->client_conn, msg, sizeof(msg), &sends[i]),
			DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_comch_task_send_as_task(sends[i])), DOCA_SUCCESS);
	}
	for (unsigned i = 0; i < NSENDS; i++)
		doca_task_free(doca_comch_task_send_as_task(sends[i]));
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);
	assert_logged("of context 'comch_client'");
	ferry_test_stop_idle(F->m.pe, ctx);
	assert_int_equal(F->send_ok + F->send_err, 0);
	assert_int_equal(inflight_of(ctx), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_consumer_posts_freed_then_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_consumer_posts_freed_while_filled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_producer_sends_freed_then_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_sends_freed_then_stop, setup, teardown),
	};

	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
