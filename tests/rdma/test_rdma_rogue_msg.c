/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_rogue_msg.c - a peer that speaks UCX directly sends an RDMA
 * context's worker Ferry's own messages (AM id RDMA_AM_ID) that the context
 * must drop: a header of the wrong size, a message for another instance, a
 * malformed one, a pong of no ping, hellos without a reply endpoint or for no
 * connection of the connection manager, and more messages than wait for a
 * receive. Each is dropped with a log line; since the peer may repeat them
 * at will, the lines are sampled (1st, 2nd, 4th, ...): a few hundred of each
 * cost a handful of lines, not one per message. Afterwards the context still
 * takes a message from its honest peer.
 *
 * The rogue is a UCX worker of this process, connected by the worker address
 * inside the context's connection descriptor (doca_rdma_export), as in
 * test_rdma_stray_am.c; it knows the descriptor's token and connection id.
 *
 * Second, the victim's peer stops answering (a raw UCX worker behind a
 * descriptor of its own making that holds the victim's rendezvous send and
 * answers no ping) while a stranger who knows the connection's token and id
 * sends pongs from a worker of its own: the connection must still be
 * declared lost within FERRY_RDMA_TIMEOUT_MS (400 ms here), since a pong only
 * counts when it comes back on the endpoint the ping left by.
 *
 * Third, the rogue sends large messages eagerly (their bytes come along, not
 * by rendezvous) while no receive is posted: the context holds each until a
 * receive takes it. Their bytes held must stay bounded (RDMA_MAX_UNEXPECTED_BYTES),
 * not reach the ring's 256 messages of up to 1 GiB each (the test looks at
 * the context's ring: a dropped message's line is sampled, so it may not show).
 *
 * Fourth, a flood of pings from a rogue that never reads its pongs: the
 * victim's memory must stay flat (test_ping_flood_bounded).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ucp/api/ucp.h>

#include "ferry_test.h"
#include "ferry_test_rss.h"
#include "rdma/rdma_desc_priv.h"
#include "rdma/rdma_priv.h"
#include "rdma_fixture.h"
#include "ucx_rogue.h"

#define WAIT_MS   5000
#define REPEAT    300 /* of each kind: a sampled log says 9 lines (1, 2, 4, ..., 256) */
#define MAX_LINES 12

/* The silent peer's handler: holds a message's data (a rendezvous send never completes), answers nothing. */
static ucs_status_t silent_cb(void *arg, const void *header, size_t header_length, void *data, size_t length,
			      const ucp_am_recv_param_t *param)
{
	(void)arg;
	(void)header;
	(void)header_length;
	(void)data;
	(void)length;
	return (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0 ? UCS_INPROGRESS : UCS_OK;
}

/* A worker; an endpoint to @p addr unless NULL; with the silent handler when @p silent. */
static void rogue_open(struct ucx_rogue *r, const uint8_t *addr, bool silent)
{
	ucx_rogue_open(r, UCP_FEATURE_AM, addr);
	if (silent) {
		ucp_am_handler_param_t ap = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
							   UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
							   UCP_AM_HANDLER_PARAM_FIELD_CB,
					     .id = RDMA_AM_ID,
					     .flags = UCP_AM_FLAG_WHOLE_MSG,
					     .cb = silent_cb};

		assert_int_equal(ucp_worker_set_am_recv_handler(r->w, &ap), UCS_OK);
	}
}

/* Send one message of RDMA_AM_ID and wait until it left; the victim progresses meanwhile. */
static void rogue_send(struct ucx_rogue *r, struct side *victim, const void *hdr, size_t hdr_len, const void *data,
		       size_t len, uint32_t flags)
{
	ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = flags};
	ucs_status_ptr_t req = ucp_am_send_nbx(r->ep, RDMA_AM_ID, hdr, hdr_len, data, len, &prm);
	uint64_t end = side_now_ms() + WAIT_MS;

	while (UCS_PTR_IS_PTR(req) && ucp_request_check_status(req) == UCS_INPROGRESS && side_now_ms() < end) {
		ucp_worker_progress(r->w);
		(void)doca_pe_progress(victim->pe);
	}
	if (UCS_PTR_IS_PTR(req))
		ucp_request_free(req);
	ucp_worker_progress(r->w);
	(void)doca_pe_progress(victim->pe);
}

/* Let the victim take whatever is still on its way. */
static void rogue_drain(struct ucx_rogue *r, struct side *victim)
{
	for (int i = 0; i < 2000; i++) {
		ucp_worker_progress(r->w);
		(void)doca_pe_progress(victim->pe);
	}
}

/*
 * The victim @p a and its honest peer @p b, started and connected to each
 * other; the victim's connection descriptor decoded in @p d (what a rogue
 * knows: token, connection id, worker address), b's in @p peer unless NULL
 * (what only b and the victim know). Returns b's connection.
 */
static struct doca_rdma_connection *victim_pair_open(struct side *a, struct side *b, struct ferry_rdma_conn_desc *d,
						     struct ferry_rdma_conn_desc *peer)
{
	const uint32_t perm = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE;
	struct doca_rdma_connection *ca, *cb;
	const void *da, *db;
	size_t la, lb;
	const char *why = NULL;

	assert_int_equal(side_init(a, DOCA_ACCESS_FLAG_RDMA_WRITE, perm), DOCA_SUCCESS);
	assert_int_equal(side_init(b, DOCA_ACCESS_FLAG_RDMA_WRITE, perm), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(a->rdma, &da, &la, &ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(b->rdma, &db, &lb, &cb), DOCA_SUCCESS);
	assert_int_equal(ferry_rdma_conn_desc_decode(da, la, d, &why), DOCA_SUCCESS);
	if (peer != NULL)
		assert_int_equal(ferry_rdma_conn_desc_decode(db, lb, peer, &why), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(a->rdma, db, lb, ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(b->rdma, da, la, cb), DOCA_SUCCESS);
	return cb;
}

/*
 * The victim @p a still takes a message from its honest peer @p b (connection
 * @p cb), whose send completes too (its message may find the receive ring
 * full of a rogue's: they go first); then both stop.
 */
static void victim_pair_close(struct side *a, struct side *b, struct doca_rdma_connection *cb)
{
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st;
	struct doca_buf *rbuf = side_buf(a, 0, 64, 0), *sbuf = side_buf(b, 0, 64, 64);
	union doca_data ud = {.u64 = 0};
	unsigned int ok = a->ok, sent = b->ok;

	assert_int_equal(doca_rdma_task_receive_allocate_init(a->rdma, rbuf, ud, &rt), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_receive_as_task(rt)), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_task_send_allocate_init(b->rdma, cb, sbuf, ud, &st), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);
	assert_true(side_wait(a, b, &a->ok, ok + 1, WAIT_MS));
	assert_true(side_wait(b, a, &b->ok, sent + 1, WAIT_MS));
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(rbuf, NULL);
	doca_buf_dec_refcount(sbuf, NULL);
	assert_true(side_stop(a, b));
	assert_true(side_stop(b, a));
	side_fini(a);
	side_fini(b);
}

/*
 * A message for the victim's connection (@p d) as its peer's connection
 * (@p pd) sends it, its key computed with the sender token @p from (the
 * peer's own, or a wrong one).
 */
static struct rdma_msg_hdr peer_msg(const struct ferry_rdma_conn_desc *d, const struct ferry_rdma_conn_desc *pd,
				    uint64_t from)
{
	uint64_t key = rdma_msg_key(d->token, d->conn_id, from, pd->conn_id);
	struct rdma_msg_hdr h = {.dst_token = d->token,
				 .dst_conn = d->conn_id,
				 .opcode = DOCA_RDMA_OPCODE_RECV_SEND,
				 .key_hi = (uint16_t)(key >> 32),
				 .key_lo = (uint32_t)key};

	return h;
}

static void test_repeated_drops_sampled(void **state)
{
	struct side a = {0}, b = {0};
	struct doca_rdma_connection *cb;
	struct ferry_rdma_conn_desc d, pd;
	struct ucx_rogue r;
	uint64_t payload = 0x5eedull;
	uint32_t small_hdr = 0;

	(void)state;
	/* The victim is connected to its honest peer while the rogue sends. */
	cb = victim_pair_open(&a, &b, &d, &pd);
	rogue_open(&r, d.addr, false);
	ferry_test_log_reset();

	/* Well-formed and as from the victim's peer (the key of its connection: the rogue is told its token here). */
	struct rdma_msg_hdr good = peer_msg(&d, &pd, pd.token);
	struct rdma_msg_hdr stranger = good, malformed = good, pong = good, hello = good;
	/* Another peer of the instance, or a stranger that knows its token: not the key of the peer's connection. */
	struct rdma_msg_hdr forged = peer_msg(&d, &pd, pd.token ^ 1u);

	stranger.dst_token = d.token ^ 1u;
	malformed.opcode = DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM + 1;
	pong.dst_token = d.token ^ 1u;
	pong.key_hi = 0;
	pong.key_lo = 0;
	hello.key_hi = 0;
	hello.key_lo = 0;
	pong.opcode = RDMA_MSG_PONG;
	hello.opcode = RDMA_MSG_HELLO;
	for (int i = 0; i < REPEAT; i++) {
		rogue_send(&r, &a, &small_hdr, sizeof(small_hdr), NULL, 0, 0);
		rogue_send(&r, &a, &stranger, sizeof(stranger), &payload, sizeof(payload), 0);
		rogue_send(&r, &a, &malformed, sizeof(malformed), &payload, sizeof(payload), 0);
		rogue_send(&r, &a, &pong, sizeof(pong), NULL, 0, 0);
		rogue_send(&r, &a, &hello, sizeof(hello), NULL, 0, 0);
		rogue_send(&r, &a, &hello, sizeof(hello), NULL, 0, UCP_AM_SEND_FLAG_REPLY);
		rogue_send(&r, &a, &forged, sizeof(forged), &payload, sizeof(payload), 0);
	}
	/* From the peer, and no receive posted: the ring fills, then the rest drop. */
	for (unsigned int i = 0; i < RDMA_MAX_UNEXPECTED + REPEAT; i++)
		rogue_send(&r, &a, &good, sizeof(good), &payload, sizeof(payload), 0);
	rogue_drain(&r, &a);

	const char *rules[] = {
		"-byte header",
		"of another instance or run",
		"dropped a malformed message",
		"dropped a malformed pong",
		"without its reply endpoint",
		"of no connection of this context",
		"dropped a message not from its peer",
		"already wait for a receive task",
	};
	for (size_t k = 0; k < sizeof(rules) / sizeof(rules[0]); k++) {
		unsigned int n = ferry_test_log_count(rules[k]);

		print_message("'%s': %u lines for %d messages\n", rules[k], n, REPEAT);
		assert_true(n >= 1);
		assert_true(n <= MAX_LINES);
	}
	ucx_rogue_close(&r);

	/* The victim goes on: a receive takes the oldest message waiting (one of the rogue's). */
	victim_pair_close(&a, &b, cb);
}

static void test_forged_pong_ignored(void **state)
{
	struct side a = {0};
	struct doca_rdma_connection *ca;
	struct ferry_rdma_conn_desc vd, pd;
	struct ucx_rogue peer, stranger;
	struct doca_rdma_task_send *st;
	struct doca_buf *sbuf;
	union doca_data ud = {.u64 = 0};
	static uint8_t pdesc[FERRY_RDMA_CONN_MAX_LEN];
	size_t plen, la;
	const void *da;
	const char *why = NULL;
	uint64_t start, end, next_pong = 0;

	(void)state;
	assert_int_equal(side_init(&a, DOCA_ACCESS_FLAG_RDMA_WRITE,
				   DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_WRITE),
			 DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(a.rdma, &da, &la, &ca), DOCA_SUCCESS);
	assert_int_equal(ferry_rdma_conn_desc_decode(da, la, &vd, &why), DOCA_SUCCESS);

	/* The peer: described as a Ferry context would describe itself (this process: watched, alive). */
	rogue_open(&peer, NULL, true);
	plen = ucx_rogue_describe(&peer, &vd, DOCA_ACCESS_FLAG_RDMA_WRITE, &pd, pdesc);
	assert_int_equal(doca_rdma_connect(a.rdma, pdesc, plen, ca), DOCA_SUCCESS);
	rogue_open(&stranger, vd.addr, false);

	/* The stranger's endpoint wired up first (a pong while nothing is in flight changes nothing). */
	struct rdma_msg_hdr pong = {.dst_token = vd.token, .dst_conn = vd.conn_id, .opcode = RDMA_MSG_PONG};

	rogue_send(&stranger, &a, &pong, sizeof(pong), NULL, 0, UCP_AM_SEND_FLAG_REPLY);
	rogue_drain(&stranger, &a);

	/* A send large enough to go by rendezvous: the peer holds it, so it stays in flight. */
	sbuf = side_buf(&a, 0, 1u << 20, 1u << 20);
	assert_non_null(sbuf);
	assert_int_equal(doca_rdma_task_send_allocate_init(a.rdma, ca, sbuf, ud, &st), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_rdma_task_send_as_task(st)), DOCA_SUCCESS);

	/* The stranger's pongs for the victim's connection, every 50 ms, for up to 3 s (timeout: 400 ms). */

	start = side_now_ms();
	end = start + 3000;
	while (a.ok + a.failed == 0 && side_now_ms() < end) {
		if (side_now_ms() >= next_pong) {
			next_pong = side_now_ms() + 50;
			rogue_send(&stranger, &a, &pong, sizeof(pong), NULL, 0, UCP_AM_SEND_FLAG_REPLY);
		}
		ucp_worker_progress(peer.w);
		ucp_worker_progress(stranger.w);
		if (doca_pe_progress(a.pe) == 0)
			usleep(100);
	}
	print_message("the send ended after %llu ms\n", (unsigned long long)(side_now_ms() - start));
	assert_int_equal(a.ok + a.failed, 1);
	assert_string_equal(doca_error_get_name(a.last_status), doca_error_get_name(DOCA_ERROR_CONNECTION_RESET));

	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(sbuf, NULL);
	ucx_rogue_close(&stranger);
	assert_true(side_stop(&a, NULL));
	ucx_rogue_close(&peer);
	side_fini(&a);
}

#define BIG_MSG (4u << 20)

static void test_unexpected_bytes_bounded(void **state)
{
	struct side a = {0}, b = {0};
	struct ferry_rdma_conn_desc d, pd;
	struct ucx_rogue r;
	uint8_t *big = calloc(1, BIG_MSG);
	unsigned int n = 2 * RDMA_MAX_UNEXPECTED_BYTES / BIG_MSG;

	(void)state;
	assert_non_null(big);
	(void)victim_pair_open(&a, &b, &d, &pd);
	rogue_open(&r, d.addr, false);
	ferry_test_log_reset();

	/* As from the victim's peer: only its messages are held for a receive. */
	struct rdma_msg_hdr good = peer_msg(&d, &pd, pd.token);

	/* Twice the bound, eagerly, then an empty message: it marks the end (it costs no bytes). */
	for (unsigned int i = 0; i < n; i++)
		rogue_send(&r, &a, &good, sizeof(good), big, BIG_MSG, UCP_AM_SEND_FLAG_EAGER);
	rogue_send(&r, &a, &good, sizeof(good), NULL, 0, UCP_AM_SEND_FLAG_EAGER);
	/* The bytes take a while to cross: wait for the mark to be held (a look at the context's ring). */
	for (uint64_t end = side_now_ms() + WAIT_MS; side_now_ms() < end;) {
		const struct doca_rdma *v = a.rdma;

		rogue_drain(&r, &a);
		if (v->unexp_count != 0 &&
		    v->unexpected[(v->unexp_head + v->unexp_count - 1) % RDMA_MAX_UNEXPECTED].len == 0)
			break;
	}
	print_message("%u messages of %u bytes held for a receive, of %u sent\n", a.rdma->unexp_count - 1, BIG_MSG, n);
	assert_true(a.rdma->unexp_count >= 1);
	assert_int_equal(a.rdma->unexpected[(a.rdma->unexp_head + a.rdma->unexp_count - 1) % RDMA_MAX_UNEXPECTED].len,
			 0);
	assert_true(a.rdma->unexp_count - 1 <= RDMA_MAX_UNEXPECTED_BYTES / BIG_MSG);
	ucx_rogue_close(&r);
	assert_true(side_stop(&a, &b));
	assert_true(side_stop(&b, &a));
	side_fini(&a);
	side_fini(&b);
	free(big);
}

#define PINGS       400000u
#define PING_GROWTH (32ull << 20) /* what the victim's memory may grow by while it answers them */

/*
 * Fourth, a flood of pings from a rogue that never reads: each asks the
 * victim for a pong, which the victim cannot hand to a transport the rogue
 * leaves full. Queued, every pong would be a UCX request held for as long as
 * the rogue likes (hundreds of megabytes for this flood); a pong that cannot
 * go at once is dropped instead (the pinger asks again). The victim's memory
 * stays flat, and its honest peer is still served.
 */
static void test_ping_flood_bounded(void **state)
{
	struct side a = {0}, b = {0};
	struct doca_rdma_connection *cb;
	struct ferry_rdma_conn_desc d;
	struct ucx_rogue r;
	uint64_t token = 0x70617373ull, before, after;
	unsigned int sent = 0;

	(void)state;
	cb = victim_pair_open(&a, &b, &d, NULL);
	rogue_open(&r, d.addr, true); /* a handler for the pongs it takes while wiring up */

	struct rdma_msg_hdr ping = {.dst_token = d.token, .dst_conn = d.conn_id, .opcode = RDMA_MSG_PING};

	/* Wired up, the victim's reply endpoint made: then the rogue stops reading. */
	rogue_send(&r, &a, &ping, sizeof(ping), &token, sizeof(token), UCP_AM_SEND_FLAG_REPLY);
	rogue_drain(&r, &a);
	before = ferry_test_resident_bytes();
	for (uint64_t end = side_now_ms() + 4 * WAIT_MS; sent < PINGS && side_now_ms() < end;) {
		ucp_request_param_t prm = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL,
					   .flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER};
		ucs_status_ptr_t req = ucp_am_send_nbx(r.ep, RDMA_AM_ID, &ping, sizeof(ping), &token, sizeof(token),
						       &prm);

		if (req == NULL)
			sent++;
		if (req == NULL && (sent & 63) != 0)
			continue;
		/* The victim reads; the rogue never progresses, so it never reads the pongs. */
		for (int i = 0; i < 8; i++)
			(void)doca_pe_progress(a.pe);
	}
	for (int i = 0; i < 2000; i++)
		(void)doca_pe_progress(a.pe);
	after = ferry_test_resident_bytes();
	print_message("%u pings sent; the victim's resident memory grew by %llu KiB\n", sent,
		      (unsigned long long)((after > before ? after - before : 0) >> 10));
	assert_true(sent >= PINGS / 4);
	assert_true(after < before + PING_GROWTH);

	ucx_rogue_close(&r);
	victim_pair_close(&a, &b, cb); /* the honest peer is still served */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repeated_drops_sampled),
		cmocka_unit_test(test_forged_pong_ignored),
		cmocka_unit_test(test_unexpected_bytes_bounded),
		cmocka_unit_test(test_ping_flood_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
