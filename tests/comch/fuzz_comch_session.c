/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_comch_session.c - stateful libFuzzer target: a raw client socket sends
 * a sequence of datagrams to a real Comch server in this process, the server's
 * progress engine running between them (the server as a rogue host sees it).
 *
 * Input: one flag byte (bit 0: first send the right HELLO, so the rest is
 * judged on an established connection; bit 1: burst, send every datagram
 * before the server runs, so one read of the server takes several), then
 * records of [u16 little-endian length][datagram]; the last record is cut to
 * what is left, and at most SESSION_MAX_DATAGRAMS are sent.
 *
 * Properties, besides no crash and no leak (ASan, libFuzzer's per-input leak
 * check: each input ends with its connection freed):
 *   - a datagram the server must refuse (oversized, unparseable, anything but
 *     the right HELLO before the handshake, HELLO/WELCOME/REFUSE or an unknown
 *     type after it) or a BYE ends the connection;
 *   - a valid MSG on an established connection is delivered, once, and the
 *     connection stays;
 *   - in a burst without fast-path frames (whose fate depends on state this
 *     target does not model), the same: every MSG before the first frame that
 *     ends the connection is delivered once, and the connection ends exactly
 *     when such a frame was sent;
 *   - after the client hangs up the server holds no connection, every
 *     connect event has had its disconnect event, and the server is RUNNING.
 *
 * The server is set up once per process, a fresh connection per input. In the
 * libFuzzer build (FERRY_LIBFUZZER) a custom mutator repairs most frame
 * headers and the lengths and checksums of the export descriptors inside
 * fast-path frames, so mutants reach the handlers instead of the parser's
 * first check. Built with -DFERRY_FUZZ_STANDALONE it gets a main that replays
 * hand-made sessions (test 'comch_session_seeds') and, given a directory,
 * writes them there as a starting corpus; some seeds bring consumers up on a
 * real export of this process, so the fuzzer starts from frames that pass.
 * FUZZ_COMCH_LOG=1 keeps the SDK's log lines (why an input was refused).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <ferry_mem.h>

#include "comch/comch_priv.h"
#include "comch_util.h"
#include "ferry_test_wait.h"
#include "core/ferry_dev.h"
#include "link/export_desc_priv.h"
#include "link/ferry_export.h"
#include "comch/frame_priv.h"
#include "link/ferry_link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SESSION_NAME          "fuzzed"
#define SESSION_MAX_DATAGRAMS 32
#define SESSION_SETTLE_LOOPS  64   /* progress calls after one datagram, at most */
#define SESSION_CLOSE_LOOPS   4096 /* progress calls for an expected hang-up, at most */
#define SESSION_SEND_TRIES    64
#define SESSION_EXPORT_LEN    (1u << 20) /* a post ring of 32 Ki entries fits; larger ones are refused as too small */

struct session_server {
	struct doca_pe *pe;
	struct doca_dev *host, *dpu;
	struct doca_dev_rep *rep;
	struct doca_comch_server *server;
	struct ferry_link_addr addr;
	uint8_t hello[FERRY_FRAME_HELLO_MAX];
	size_t hello_len;
	/* what descriptors of this process's exports carry */
	uint8_t boot_id[FERRY_DESC_BOOT_ID_LEN];
	uint64_t start_time;
	uint32_t machine; /* the server device's emulated DPU */
	/* A real export of this process (writable, shared memory): the seeds' consumers name it. */
	void *mem;
	struct doca_mmap *mmap;
	uint8_t export_desc[FERRY_FRAME_DESC_MAX];
	size_t export_len;
	unsigned connects, disconnects, msgs;
};

static struct session_server S;

/* One connection's view from the rogue client. */
struct session {
	int fd;
	bool closed;      /* the server ended it */
	bool established; /* the server took a HELLO */
	unsigned connects0;
};

struct datagram {
	const uint8_t *p;
	size_t len;
};

/* What the server must do with one datagram. */
enum verdict {
	V_ANY,     /* no rule to check (fast-path frames) */
	V_ENDS,    /* refused or BYE: the connection must end */
	V_DELIVER, /* a valid MSG: one msg-recv event, the connection stays */
	V_WELCOME, /* the right HELLO before the handshake: the connection is established */
};

static void die(const char *what)
{
	fprintf(stderr, "fuzz_comch_session: %s\n", what);
	abort();
}

/* ---- the server, once per process ---- */

static void on_msg(struct doca_comch_event_msg_recv *ev, uint8_t *buf, uint32_t len, struct doca_comch_connection *conn)
{
	(void)ev;
	(void)buf;
	(void)len;
	(void)conn;
	S.msgs++;
}

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
		       uint8_t ok)
{
	(void)ev;
	(void)conn;
	(void)ok;
	S.connects++;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			  uint8_t ok)
{
	(void)ev;
	(void)conn;
	(void)ok;
	S.disconnects++;
}

/* Consumer events only count as work; the properties do not depend on them. */
static void on_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
}

static enum doca_ctx_states server_state(void)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(doca_comch_server_as_ctx(S.server), &st);
	return st;
}

static void server_down(void)
{
	struct doca_ctx *ctx = doca_comch_server_as_ctx(S.server);

	(void)doca_ctx_stop(ctx);
	FERRY_PROGRESS_UNTIL(S.pe, server_state() == DOCA_CTX_STATE_IDLE, FERRY_TEST_WAIT_MS);
	(void)doca_comch_server_destroy(S.server);
	(void)doca_mmap_destroy(S.mmap);
	(void)ferry_mem_free_shared(S.mem);
	doca_dev_rep_close(S.rep);
	doca_dev_close(S.dpu);
	doca_dev_close(S.host);
	doca_pe_destroy(S.pe);
}

static void server_create(void)
{
	if (doca_comch_server_create(S.dpu, S.rep, SESSION_NAME, &S.server) != DOCA_SUCCESS ||
	    doca_comch_server_event_msg_recv_register(S.server, on_msg) != DOCA_SUCCESS ||
	    doca_comch_server_event_connection_status_changed_register(S.server, on_connect, on_disconnect) !=
		    DOCA_SUCCESS ||
	    doca_comch_server_event_consumer_register(S.server, on_consumer, on_consumer) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(S.pe, doca_comch_server_as_ctx(S.server)) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_comch_server_as_ctx(S.server)) != DOCA_SUCCESS)
		die("cannot start the Comch server");
}

/* What a descriptor of this process carries, so forged ones get past the identity checks. */
static void ident_fill(void)
{
	if (ferry_link_boot_id(S.boot_id) != DOCA_SUCCESS ||
	    ferry_link_pid_start_time((int)getpid(), &S.start_time) != DOCA_SUCCESS)
		die("cannot read this process's boot id and start time");
	S.machine = ferry_devinfo_machine(doca_dev_as_devinfo(S.dpu));
}

static void export_fill(void)
{
	const void *desc = NULL;
	size_t len = 0;

	S.mem = ferry_mem_alloc_shared(SESSION_EXPORT_LEN);
	if (S.mem == NULL || doca_mmap_create(&S.mmap) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(S.mmap, S.mem, SESSION_EXPORT_LEN) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(S.mmap, S.host) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(S.mmap, DOCA_ACCESS_FLAG_PCI_READ_WRITE) != DOCA_SUCCESS ||
	    doca_mmap_start(S.mmap) != DOCA_SUCCESS ||
	    doca_mmap_export_pci(S.mmap, S.host, &desc, &len) != DOCA_SUCCESS || len > sizeof(S.export_desc))
		die("cannot export memory for the consumers");
	memcpy(S.export_desc, desc, len);
	S.export_len = len;
}

static void server_up(void)
{
	const struct doca_devinfo *host;
	char domain[64];

	snprintf(domain, sizeof(domain), "comch-fuzz-%d", (int)getpid());
	setenv("FERRY_DOMAIN", domain, 1);
	setenv("FERRY_COMCH_HANDSHAKE_MS", "600000", 1); /* no deadline fires mid-input: verdicts stay exact */
	setenv("FERRY_LINK_AGENT_TIMEOUT_MS", "50", 1);
	/* Every bad input is worth a log line: keep stderr readable and executions fast,
	 * unless FUZZ_COMCH_LOG is set (to see why a crashing input was refused). */
	if (getenv("FUZZ_COMCH_LOG") == NULL)
		(void)doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DISABLE);
	if (doca_pe_create(&S.pe) != DOCA_SUCCESS)
		die("cannot create a progress engine");
	S.host = cu_open_host_dev();
	S.dpu = cu_open_dpu_dev();
	S.rep = S.dpu == NULL ? NULL : ferry_test_open_rep(S.dpu, NULL);
	if (S.host == NULL || S.rep == NULL)
		die("cannot open the emulated devices");
	server_create();
	host = doca_dev_as_devinfo(S.host);
	if (ferry_link_comch_addr(&S.addr, domain, ferry_devinfo_machine(host), ferry_devinfo_name(host),
				  SESSION_NAME) != DOCA_SUCCESS)
		die("no rendezvous address");
	ident_fill();
	export_fill();
	S.hello_len = ferry_frame_build_hello(S.hello, S.server->ep.max_msg_size, 64, ferry_devinfo_machine(host),
					      ferry_devinfo_name(host), SESSION_NAME);
	atexit(server_down);
}

/* ---- the rogue client's side ---- */

/* Read whatever the server sent; true once it has hung up. */
static bool poll_closed(struct session *s)
{
	uint8_t buf[FERRY_FRAME_REFUSE_MAX];
	size_t len;
	doca_error_t err;

	while (!s->closed && (err = ferry_link_recv(s->fd, buf, sizeof(buf), &len)) != DOCA_ERROR_AGAIN) {
		if (err != DOCA_SUCCESS)
			s->closed = true;
	}
	return s->closed;
}

/* Progress until the server is idle (or has hung up). */
static void settle(struct session *s)
{
	for (int i = 0; i < SESSION_SETTLE_LOOPS; i++) {
		uint8_t busy = doca_pe_progress(S.pe);

		if (poll_closed(s) || (!busy && i > 0))
			return;
	}
}

static bool wait_closed(struct session *s)
{
	for (int i = 0; i < SESSION_CLOSE_LOOPS && !poll_closed(s); i++)
		(void)doca_pe_progress(S.pe);
	return s->closed;
}

/* Send one datagram, letting the server drain the socket when it is full. */
static bool send_datagram(struct session *s, const struct datagram *d)
{
	for (int i = 0; i < SESSION_SEND_TRIES; i++) {
		doca_error_t err = ferry_link_send(s->fd, d->p, d->len);

		if (err == DOCA_SUCCESS)
			return true;
		if (err != DOCA_ERROR_AGAIN) {
			s->closed = true;
			return false;
		}
		(void)doca_pe_progress(S.pe);
	}
	die("the server stopped reading a live connection");
	return false;
}

static bool hello_is_right(const struct ferry_frame_hello *h)
{
	const struct doca_devinfo *host = doca_dev_as_devinfo(S.host);
	const char *dev = ferry_devinfo_name(host);

	return h->name_len == strlen(SESSION_NAME) && memcmp(h->name, SESSION_NAME, h->name_len) == 0 &&
	       h->dev_len == strlen(dev) && memcmp(h->dev, dev, h->dev_len) == 0 &&
	       h->machine == ferry_devinfo_machine(host) && h->max_msg_size == S.server->ep.max_msg_size;
}

static enum verdict judge(bool established, const struct datagram *d)
{
	const struct comch_ep *ep = &S.server->ep;
	struct ferry_frame f;
	const char *why = NULL;

	if (d->len > ep->rx_cap || ferry_frame_parse(d->p, d->len, ep->max_msg_size, &f, &why) != DOCA_SUCCESS)
		return V_ENDS;
	if (!established)
		return f.type == FERRY_FRAME_HELLO && hello_is_right(&f.u.hello) ? V_WELCOME : V_ENDS;
	switch (f.type) {
	case FERRY_FRAME_MSG:
		return V_DELIVER;
	case FERRY_FRAME_CONSUMER_UP:
	case FERRY_FRAME_CONSUMER_DOWN:
	case FERRY_FRAME_DONE_RING:
		return V_ANY;
	default:
		return V_ENDS;
	}
}

static void send_one(struct session *s, const struct datagram *d)
{
	enum verdict v = judge(s->established, d);
	unsigned msgs0 = S.msgs;

	if (!send_datagram(s, d))
		return;
	settle(s);
	if (v == V_ENDS && !wait_closed(s))
		die("the server kept a connection that sent a frame it must refuse");
	if (v == V_DELIVER && (s->closed || S.msgs != msgs0 + 1))
		die("a valid message was not delivered exactly once on a live connection");
	s->established = !s->closed && S.connects > s->connects0;
}

/* What a burst must come to: the MSGs before its first ending frame, and whether there is one. */
struct burst_plan {
	bool sure; /* no fast-path frame before the end: the outcome is known */
	bool must_end;
	unsigned msgs;
};

static struct burst_plan plan_burst(bool established, const struct datagram *dg, size_t n)
{
	struct burst_plan p = {.sure = true};

	for (size_t i = 0; i < n && !p.must_end; i++) {
		enum verdict v = judge(established, &dg[i]);

		p.must_end = v == V_ENDS;
		p.msgs += v == V_DELIVER;
		p.sure = p.sure && v != V_ANY;
		established = established || v == V_WELCOME;
	}
	return p;
}

/* Progress until the burst's outcome shows (or the bound runs out). */
static void settle_burst(struct session *s, const struct burst_plan *p, unsigned msgs0)
{
	for (int i = 0; i < SESSION_CLOSE_LOOPS; i++) {
		uint8_t busy = doca_pe_progress(S.pe);

		if (poll_closed(s) || (!p->must_end && !busy && S.msgs >= msgs0 + p->msgs))
			return;
	}
}

static void send_burst(struct session *s, const struct datagram *dg, size_t n)
{
	struct burst_plan p = plan_burst(s->established, dg, n);
	unsigned msgs0 = S.msgs;

	for (size_t i = 0; i < n; i++)
		if (!send_datagram(s, &dg[i]))
			break;
	settle_burst(s, &p, msgs0);
	if (!p.sure)
		return;
	if (p.must_end && !s->closed)
		die("the server kept a connection that sent, in a burst, a frame it must refuse");
	if (!p.must_end && s->closed)
		die("the server ended a connection that sent only valid frames in a burst");
	if (S.msgs != msgs0 + p.msgs)
		die("the messages of a burst before its first bad frame were not delivered exactly once");
}

/* Let the server take the connection, so every input ends with it freed (the leak check is per input). */
static void wait_accepted(void)
{
	const struct doca_comch_server *srv = S.server;

	for (int i = 0; i < SESSION_CLOSE_LOOPS && srv->num_conns + srv->num_pending == 0; i++)
		(void)doca_pe_progress(S.pe);
	if (srv->num_conns + srv->num_pending == 0)
		die("the server did not accept the connection");
}

static void greet(struct session *s)
{
	const struct datagram hello = {S.hello, S.hello_len};

	if (!send_datagram(s, &hello))
		die("the server hung up before the HELLO");
	settle(s);
	if (s->closed || S.connects != s->connects0 + 1)
		die("the server did not take the right HELLO");
	s->established = true;
}

/* Hang up; the server must notice, free the connection and say so once. */
static void hang_up(struct session *s)
{
	const struct doca_comch_server *srv = S.server;

	close(s->fd);
	for (int i = 0; i < SESSION_CLOSE_LOOPS && (srv->num_conns > 0 || srv->num_pending > 0); i++)
		(void)doca_pe_progress(S.pe);
	if (srv->num_conns > 0 || srv->num_pending > 0)
		die("the server kept a connection whose peer hung up");
	if (S.connects != S.disconnects)
		die("a connect event without its disconnect event");
	if (server_state() != DOCA_CTX_STATE_RUNNING)
		die("the server left RUNNING");
}

/* Flag byte, then [u16 LE length][bytes] records; the last one is cut to what is left. */
static size_t split(const uint8_t *data, size_t size, struct datagram *out)
{
	size_t n = 0, off = 1;

	while (n < SESSION_MAX_DATAGRAMS && off + 2 <= size) {
		size_t len = (size_t)data[off] | (size_t)data[off + 1] << 8;

		off += 2;
		if (len > size - off)
			len = size - off;
		out[n].p = data + off;
		out[n++].len = len;
		off += len;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct datagram dg[SESSION_MAX_DATAGRAMS];
	struct session s = {.fd = -1};
	size_t n = split(data, size, dg);
	bool burst = size > 0 && (data[0] & 2);

	if (S.server == NULL)
		server_up();
	s.connects0 = S.connects;
	if (ferry_link_connect(&S.addr, &s.fd) != DOCA_SUCCESS)
		die("cannot connect to the server");
	wait_accepted();
	if (size > 0 && (data[0] & 1))
		greet(&s);
	if (burst)
		send_burst(&s, dg, n);
	for (size_t i = 0; i < n && !s.closed && !burst; i++)
		send_one(&s, &dg[i]);
	hang_up(&s);
	return 0;
}

/* ---- input construction: the mutator and the seeds ---- */

#if defined(FERRY_LIBFUZZER) || defined(FERRY_FUZZ_STANDALONE)
static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
#endif

#ifdef FERRY_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint32_t get_le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

/* An export descriptor inside a frame: right length field and checksum, often this process's identity. */
static void desc_seal(uint8_t *p, size_t len, bool ours)
{
	if (len < FERRY_DESC_FIXED_LEN)
		return;
	put_le(p + 8, len, 4);
	if (ours) {
		memcpy(p + 16, S.boot_id, sizeof(S.boot_id));
		put_le(p + 32, (uint64_t)getpid(), 4);
		put_le(p + 36, (uint64_t)getuid(), 4);
		put_le(p + 40, S.start_time, 8);
		put_le(p + 92, S.machine, 4);
	}
	memset(p + 12, 0, 4);
	put_le(p + 12, ferry_desc_crc32(p, len), 4);
}

#include "ferry_fuzz.h" /* tests/lib: the mutators' shared helpers */

/* CONSUMER_UP payload: the two descriptors share what follows the fixed part. */
static void fix_up(uint8_t *p, size_t len, uint32_t *s)
{
	size_t rest = len - FERRY_FRAME_UP_FIXED;
	size_t first = get_le16(p + 12) <= rest ? get_le16(p + 12) : rest / 2;

	if (!ferry_fuzz_one_in(s, 2))
		put_le(p + 8, 1u << (get_le16(p + 8) % 17), 4); /* ring_cap: a power of two */
	put_le(p + 12, first, 2);
	put_le(p + 14, rest - first, 2);
	desc_seal(p + FERRY_FRAME_UP_FIXED, first, !ferry_fuzz_one_in(s, 4));
	desc_seal(p + FERRY_FRAME_UP_FIXED + first, rest - first, !ferry_fuzz_one_in(s, 4));
}

/* DONE_RING payload: one descriptor fills what follows the fixed part. */
static void fix_done(uint8_t *p, size_t len, uint32_t *s)
{
	size_t rest = len - FERRY_FRAME_DONE_RING_FIXED;

	put_le(p + 8, rest, 2);
	desc_seal(p + FERRY_FRAME_DONE_RING_FIXED, rest, !ferry_fuzz_one_in(s, 4));
}

static void fix_frame(uint8_t *p, size_t len, uint32_t *s)
{
	uint8_t *payload = p + FERRY_FRAME_HDR_LEN;
	size_t plen = len - FERRY_FRAME_HDR_LEN;

	put_le(p, FERRY_FRAME_MAGIC, 4);
	p[4] = FERRY_FRAME_VERSION;
	put_le(p + 6, 0, 2);
	put_le(p + 8, plen, 4);
	if (p[5] == FERRY_FRAME_CONSUMER_UP && plen >= FERRY_FRAME_UP_FIXED && !ferry_fuzz_one_in(s, 8))
		fix_up(payload, plen, s);
	else if (p[5] == FERRY_FRAME_DONE_RING && plen >= FERRY_FRAME_DONE_RING_FIXED && !ferry_fuzz_one_in(s, 8))
		fix_done(payload, plen, s);
}

/* Mutate, then repair most frames (1 in 8 left as mutated, so the parser's refusals stay covered). */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint32_t s = seed | 1; /* xorshift never leaves 0 */
	size_t off = 1;

	size = LLVMFuzzerMutate(data, size, max_size);
	while (off + 2 <= size) {
		size_t len = get_le16(data + off);

		off += 2;
		if (len > size - off)
			len = size - off;
		if (len >= FERRY_FRAME_HDR_LEN && !ferry_fuzz_one_in(&s, 8))
			fix_frame(data + off, len, &s);
		off += len;
	}
	return size;
}
#endif /* FERRY_LIBFUZZER */

#ifdef FERRY_FUZZ_STANDALONE
#define SESSION_SEEDS 16

struct seed {
	uint8_t buf[8192];
	size_t len;
};

static void seed_add(struct seed *sd, const void *p, size_t len)
{
	put_le(sd->buf + sd->len, len, 2);
	memcpy(sd->buf + sd->len + 2, p, len);
	sd->len += 2 + len;
}

static void seed_frame(struct seed *sd, enum ferry_frame_type type, const void *payload, size_t plen)
{
	static uint8_t f[FERRY_FRAME_HDR_LEN + COMCH_CAP_MAX_MSG_SIZE + 1];

	ferry_frame_put_header(f, type, (uint32_t)plen);
	memcpy(f + FERRY_FRAME_HDR_LEN, payload, plen);
	seed_add(sd, f, FERRY_FRAME_HDR_LEN + plen);
}

/* A well-formed descriptor of an export this process does not have. */
static size_t seed_desc(uint8_t *out)
{
	struct ferry_export_desc d;

	memset(&d, 0, sizeof(d));
	d.version = FERRY_DESC_VERSION;
	d.hints = FERRY_DESC_HINT_SHAREABLE;
	memcpy(d.boot_id, S.boot_id, sizeof(d.boot_id));
	d.pid = (uint32_t)getpid();
	d.uid = (uint32_t)getuid();
	d.start_time = S.start_time;
	d.machine = S.machine;
	d.export_id = 99;
	d.addr = 0x7f0000000000ull;
	d.len = 1u << 16;
	d.access = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	strcpy(d.agent, "ferry-seed-agent");
	d.agent_len = (uint16_t)strlen(d.agent);
	return ferry_export_desc_encode(&d, out, FERRY_DESC_MAX_LEN);
}

static void seed_up(struct seed *sd, uint32_t id, const uint8_t *desc, size_t dlen)
{
	uint8_t f[FERRY_FRAME_UP_MAX];
	const struct ferry_frame_consumer_up up = {.consumer_id = id,
						   .imm_data_len = 8,
						   .ring_cap = 64,
						   .desc = desc,
						   .desc_len = (uint16_t)dlen,
						   .ring_desc = desc,
						   .ring_desc_len = (uint16_t)dlen};

	seed_add(sd, f, ferry_frame_build_consumer_up(f, &up));
}

/* Consumers on a real export: up, down, up twice more, left up at the hang-up. */
static void seed_consumers(struct seed *sd)
{
	uint8_t f[FERRY_FRAME_DOWN_LEN];

	seed_up(sd, 1, S.export_desc, S.export_len);
	seed_add(sd, f, ferry_frame_build_consumer_down(f, 1));
	seed_up(sd, 2, S.export_desc, S.export_len);
	seed_up(sd, 3, S.export_desc, S.export_len);
}

/* A completion ring for a consumer this side does not have. */
static void seed_done_ring(struct seed *sd)
{
	uint8_t f[FERRY_FRAME_DONE_RING_MAX];
	const struct ferry_frame_done_ring done = {
		.consumer_id = 1, .ring_cap = 64, .desc = S.export_desc, .desc_len = (uint16_t)S.export_len};

	seed_add(sd, f, ferry_frame_build_done_ring(f, &done));
}

/* Hand-made sessions: what a client does, and what a rogue one tries. */
static size_t make_seeds(struct seed *sd)
{
	static uint8_t big[COMCH_CAP_MAX_MSG_SIZE + 1];
	uint8_t wrong[FERRY_FRAME_HELLO_MAX], desc[FERRY_DESC_MAX_LEN];
	size_t n = 0;

	memset(sd, 0, SESSION_SEEDS * sizeof(*sd));
	sd[n].buf[0] = 1; /* greeted: two messages, then BYE */
	sd[n].len = 1;
	seed_frame(&sd[n], FERRY_FRAME_MSG, "hello", 5);
	seed_frame(&sd[n], FERRY_FRAME_MSG, "", 0);
	seed_frame(&sd[n++], FERRY_FRAME_BYE, "", 0);
	sd[n].len = 1; /* its own HELLO, then a message */
	seed_add(&sd[n], S.hello, S.hello_len);
	seed_frame(&sd[n++], FERRY_FRAME_MSG, "hi", 2);
	sd[n].len = 1; /* a message before HELLO */
	seed_frame(&sd[n++], FERRY_FRAME_MSG, "early", 5);
	sd[n].len = 1; /* a HELLO for another server */
	seed_add(&sd[n++], wrong, ferry_frame_build_hello(wrong, COMCH_CAP_MAX_MSG_SIZE, 64, 0, "b1:00.0", "other"));
	sd[n].buf[0] = 1; /* garbage after the handshake */
	sd[n].len = 1;
	seed_add(&sd[n++], "abc", 3);
	sd[n].buf[0] = 1; /* a second HELLO */
	sd[n].len = 1;
	seed_add(&sd[n++], S.hello, S.hello_len);
	sd[n].buf[0] = 1; /* a message one byte too long */
	sd[n].len = 1;
	seed_frame(&sd[n++], FERRY_FRAME_MSG, big, sizeof(big));
	sd[n].buf[0] = 1; /* a consumer on memory that was never exported */
	sd[n].len = 1;
	seed_up(&sd[n++], 1, desc, seed_desc(desc));
	sd[n].buf[0] = 1; /* consumers on a real export */
	sd[n].len = 1;
	seed_consumers(&sd[n++]);
	sd[n].buf[0] = 1;
	sd[n].len = 1;
	seed_done_ring(&sd[n++]);
	sd[n].buf[0] = 3; /* greeted, a burst: two messages and BYE in one read */
	sd[n].len = 1;
	seed_frame(&sd[n], FERRY_FRAME_MSG, "one", 3);
	seed_frame(&sd[n], FERRY_FRAME_MSG, "two", 3);
	seed_frame(&sd[n++], FERRY_FRAME_BYE, "", 0);
	sd[n].buf[0] = 3; /* greeted, a burst: a message, garbage, a message never read */
	sd[n].len = 1;
	seed_frame(&sd[n], FERRY_FRAME_MSG, "in", 2);
	seed_add(&sd[n], "xyz", 3);
	seed_frame(&sd[n++], FERRY_FRAME_MSG, "lost", 4);
	sd[n].buf[0] = 2; /* a burst: HELLO and a message behind it, before the WELCOME */
	sd[n].len = 1;
	seed_add(&sd[n], S.hello, S.hello_len);
	seed_frame(&sd[n++], FERRY_FRAME_MSG, "pipelined", 9);
	sd[n].buf[0] = 3; /* greeted, a burst: a message, an empty datagram, a message never read */
	sd[n].len = 1;
	seed_frame(&sd[n], FERRY_FRAME_MSG, "before", 6);
	seed_add(&sd[n], "", 0);
	seed_frame(&sd[n++], FERRY_FRAME_MSG, "after", 5);
	sd[n++].len = 0; /* connects and says nothing */
	return n;
}

static void write_seed(const char *dir, size_t i, const struct seed *sd)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%02zu", dir, i);
	f = fopen(path, "wb");
	if (f == NULL || fwrite(sd->buf, 1, sd->len, f) != sd->len || fclose(f) != 0)
		die("cannot write a seed file");
}

int main(int argc, char **argv)
{
	static struct seed seeds[SESSION_SEEDS];
	size_t n;

	server_up();
	n = make_seeds(seeds);
	for (size_t i = 0; i < n; i++) {
		LLVMFuzzerTestOneInput(seeds[i].buf, seeds[i].len);
		if (argc > 1)
			write_seed(argv[1], i, &seeds[i]);
	}
	printf("comch session seeds: %zu sessions, the server survived each (%u messages, %u connections)\n", n, S.msgs,
	       S.connects);
	return 0;
}
#endif /* FERRY_FUZZ_STANDALONE */
