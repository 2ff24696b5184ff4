/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_net_wire.c - libFuzzer target for the network path's codec
 * (net_req_decode and net_rep_decode in src/link/net_wire.c). The exporter's
 * server decodes requests from importers on other machines, the importer
 * decodes the exporter's replies: both read bytes from a process that may be
 * hostile, and what they accept decides what gets copied where.
 *
 * Input: a selector byte (bit 0: 0 a request, 1 a reply), the length of the
 * data beside the header (u64, little-endian), then the header's bytes: all
 * the rest of the input, so short and long headers are fuzzed too. Shorter
 * inputs are padded with zeros (and have an empty header).
 *
 * Property, worked out here from the format in net_wire.h without the codec's
 * helpers or offsets: decode accepts exactly the headers the format allows
 * (size, magic "FRYN", version 1, reserved zero, a known operation; a request's
 * length 1 .. 256 KiB for read and write, none for stat, a write's data exactly
 * its length and nobody else's data; a reply's data exactly its length field,
 * only beside a successful read, at most 256 KiB, and a successful stat's range
 * non-empty and not wrapping with access read-only or read-write); the error
 * code says which class of rule broke; every field it fills is the one the
 * bytes say (all zero when the size, magic or version is wrong); every
 * refusal says why; the header is never written to; and encode(decode(x))
 * gives back x, byte for byte, for every accepted header.
 *
 * In the libFuzzer build (FERRY_LIBFUZZER) a custom mutator mostly keeps the
 * magic, version, size, reserved field and data length right, so mutants get
 * past the first checks to the per-operation rules. Built with
 * -DFERRY_FUZZ_STANDALONE it gets a main that replays hand-made headers that
 * must pass and must fail (test 'link_net_wire_seeds').
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_types.h>

#include "link/net_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The format as net_wire.h documents it, written out again here. */
#define W_REQ_BYTES 56u
#define W_REP_BYTES 48u
#define W_CHUNK_MAX 262144u
#define W_OP_STAT   1u
#define W_OP_READ   2u
#define W_OP_WRITE  3u

_Static_assert(W_REQ_BYTES == NET_REQ_LEN && W_REP_BYTES == NET_REP_LEN, "header sizes as documented");
_Static_assert(W_CHUNK_MAX == NET_CHUNK_MAX, "largest chunk as documented");
_Static_assert(W_OP_STAT == NET_OP_STAT && W_OP_READ == NET_OP_READ && W_OP_WRITE == NET_OP_WRITE, "operations");

#define IN_SEL      0
#define IN_DATA_LEN 1
#define IN_HDR      9
#define HDR_ROOM    64 /* the mutator's headers: a few bytes either side of the real sizes */

/* Little-endian integers, byte by byte. */
static uint64_t le(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static void put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* Size, "FRYN", version 1: the code for the first of them that is wrong, DOCA_SUCCESS when all hold. */
static doca_error_t common_verdict(const uint8_t *h, size_t len, size_t want)
{
	if (len != want)
		return DOCA_ERROR_INVALID_VALUE;
	if (h[0] != 'F' || h[1] != 'R' || h[2] != 'Y' || h[3] != 'N')
		return DOCA_ERROR_INVALID_VALUE;
	if (h[4] != 1 || h[5] != 0)
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	return DOCA_SUCCESS;
}

static bool req_allowed(const uint8_t *h, uint64_t data_len)
{
	uint64_t op = le(h + 6, 2), addr = le(h + 40, 8), len = le(h + 48, 4);

	if (le(h + 52, 4) != 0)
		return false;
	if (op == W_OP_STAT)
		return addr == 0 && len == 0 && data_len == 0;
	if (op != W_OP_READ && op != W_OP_WRITE)
		return false;
	if (len < 1 || len > W_CHUNK_MAX)
		return false;
	return data_len == (op == W_OP_WRITE ? len : 0);
}

static bool rep_allowed(const uint8_t *h, uint64_t data_len)
{
	uint64_t op = le(h + 6, 2), status = le(h + 16, 4), len = le(h + 20, 4);
	uint64_t addr = le(h + 24, 8), xlen = le(h + 32, 8), access = le(h + 40, 4);

	if (le(h + 44, 4) != 0)
		return false;
	if (op != W_OP_STAT && op != W_OP_READ && op != W_OP_WRITE)
		return false;
	if (len != data_len)
		return false;
	if (len != 0 && (status != 0 || op != W_OP_READ || len > W_CHUNK_MAX))
		return false; /* data only beside a successful read, at most a chunk */
	if (op == W_OP_STAT && status == 0) {
		if (access != DOCA_ACCESS_FLAG_PCI_READ_ONLY && access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
			return false;
		if (xlen == 0 || addr > UINT64_MAX - xlen)
			return false; /* empty, or [addr, addr + xlen) passes 2^64 */
	}
	return true;
}

/* The request the bytes say, field by field, as decode must fill it. */
static bool req_fields_match(const uint8_t *h, const struct net_req *r)
{
	return r->op == le(h + 6, 2) && r->id == le(h + 8, 8) && r->export_id == le(h + 16, 8) &&
	       memcmp(r->token, h + 24, 16) == 0 && r->addr == le(h + 40, 8) && r->len == le(h + 48, 4);
}

static bool rep_fields_match(const uint8_t *h, const struct net_rep *r)
{
	return r->op == le(h + 6, 2) && r->id == le(h + 8, 8) && (uint32_t)r->status == le(h + 16, 4) &&
	       r->len == le(h + 20, 4) && r->addr == le(h + 24, 8) && r->export_len == le(h + 32, 8) &&
	       r->access == le(h + 40, 4);
}

static bool req_zero(const struct net_req *r)
{
	static const uint8_t zero[FERRY_DESC_TOKEN_LEN];

	return r->op == 0 && r->id == 0 && r->export_id == 0 && memcmp(r->token, zero, sizeof(zero)) == 0 &&
	       r->addr == 0 && r->len == 0;
}

static bool rep_zero(const struct net_rep *r)
{
	return r->op == 0 && r->id == 0 && r->status == 0 && r->len == 0 && r->addr == 0 && r->export_len == 0 &&
	       r->access == 0;
}

static bool fail(const char *what)
{
	fprintf(stderr, "net wire: %s\n", what);
	return false;
}

/* Check one request header against the oracle; *accepted is decode's verdict. */
static bool run_req(const uint8_t *h, size_t len, uint64_t data_len, bool *accepted)
{
	doca_error_t want = common_verdict(h, len, W_REQ_BYTES);
	const char *why = NULL;
	struct net_req r;
	doca_error_t err;

	memset(&r, 0xa5, sizeof(r)); /* decode must fill every field, refused or not */
	err = net_req_decode(h, len, data_len, &r, &why);
	*accepted = err == DOCA_SUCCESS;
	if (want == DOCA_SUCCESS && !req_allowed(h, data_len))
		want = DOCA_ERROR_INVALID_VALUE;
	if (err != want)
		return fail(*accepted ? "request accepted against the rules" : "request refused with the wrong code");
	if (!*accepted && (why == NULL || why[0] == '\0'))
		return fail("request refused without saying why");
	if (common_verdict(h, len, W_REQ_BYTES) != DOCA_SUCCESS)
		return req_zero(&r) ? true : fail("an unreadable request left fields filled");
	if (!req_fields_match(h, &r))
		return fail("request fields are not what the bytes say");
	if (*accepted) {
		uint8_t again[W_REQ_BYTES];

		net_req_encode(&r, again);
		if (memcmp(again, h, W_REQ_BYTES) != 0)
			return fail("encode(decode(request)) differs from the request");
	}
	return true;
}

static bool run_rep(const uint8_t *h, size_t len, uint64_t data_len, bool *accepted)
{
	doca_error_t want = common_verdict(h, len, W_REP_BYTES);
	const char *why = NULL;
	struct net_rep r;
	doca_error_t err;

	memset(&r, 0xa5, sizeof(r));
	err = net_rep_decode(h, len, data_len, &r, &why);
	*accepted = err == DOCA_SUCCESS;
	if (want == DOCA_SUCCESS && !rep_allowed(h, data_len))
		want = DOCA_ERROR_INVALID_VALUE;
	if (err != want)
		return fail(*accepted ? "reply accepted against the rules" : "reply refused with the wrong code");
	if (!*accepted && (why == NULL || why[0] == '\0'))
		return fail("reply refused without saying why");
	if (common_verdict(h, len, W_REP_BYTES) != DOCA_SUCCESS)
		return rep_zero(&r) ? true : fail("an unreadable reply left fields filled");
	if (!rep_fields_match(h, &r))
		return fail("reply fields are not what the bytes say");
	if (*accepted) {
		uint8_t again[W_REP_BYTES];

		net_rep_encode(&r, again);
		if (memcmp(again, h, W_REP_BYTES) != 0)
			return fail("encode(decode(reply)) differs from the reply");
	}
	return true;
}

/* One case: @p h (len bytes, not written to) as a request or a reply with data_len bytes beside it. */
static bool run_case(bool reply, const uint8_t *h, size_t len, uint64_t data_len, bool *accepted)
{
	uint8_t before[HDR_ROOM];
	size_t kept = len < sizeof(before) ? len : sizeof(before);
	bool ok;

	memcpy(before, h, kept);
	ok = reply ? run_rep(h, len, data_len, accepted) : run_req(h, len, data_len, accepted);
	if (memcmp(before, h, kept) != 0)
		return fail("decode wrote to the header");
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t pre[IN_HDR] = {0};
	bool accepted;

	memcpy(pre, data, size < IN_HDR ? size : IN_HDR);
	/* The header is the input's own tail: ASan sees a read past its end. */
	const uint8_t *h = size > IN_HDR ? data + IN_HDR : pre + IN_HDR - 1;
	size_t hlen = size > IN_HDR ? size - IN_HDR : 0;

	if (!run_case(pre[IN_SEL] & 1, h, hlen, le(pre + IN_DATA_LEN, 8), &accepted))
		abort();
	return 0;
}

#ifdef FERRY_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#include "ferry_fuzz.h" /* tests/lib: the mutators' shared helpers */

static const uint32_t interesting_lens[] = {0,         1, 4095, 4096, W_CHUNK_MAX - 1, W_CHUNK_MAX, W_CHUNK_MAX + 1,
					    UINT32_MAX};

/* Mostly a header of the right size with magic, version and reserved right, and matching data. */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint32_t s = seed | 1; /* xorshift never leaves 0 */
	size_t want;
	uint8_t *h;

	size = LLVMFuzzerMutate(data, size, max_size);
	if (max_size < IN_HDR + HDR_ROOM || size < IN_HDR)
		return size;
	h = data + IN_HDR;
	want = (data[IN_SEL] & 1) ? W_REP_BYTES : W_REQ_BYTES;
	if (!ferry_fuzz_one_in(&s, 8)) {
		if (size < IN_HDR + want)
			memset(data + size, 0, IN_HDR + want - size);
		size = IN_HDR + want;
	}
	if (size < IN_HDR + 8)
		return size;
	if (!ferry_fuzz_one_in(&s, 8))
		memcpy(h, "FRYN\x01\x00", 6);
	if (!ferry_fuzz_one_in(&s, 4))
		put_le(h + 6, 1 + (s >> 8) % 3, 2); /* a known operation */
	if (size != IN_HDR + want)
		return size;
	if (!ferry_fuzz_one_in(&s, 8))
		memset(h + want - 4, 0, 4); /* reserved */
	unsigned int len_off = want == W_REQ_BYTES ? 48 : 20;
	if (ferry_fuzz_one_in(&s, 4))
		put_le(h + len_off, interesting_lens[(s >> 4) % 8], 4);
	else if (!ferry_fuzz_one_in(&s, 4) && le(h + len_off, 4) > W_CHUNK_MAX)
		put_le(h + len_off, le(h + len_off, 4) % (W_CHUNK_MAX + 1), 4);
	if (!ferry_fuzz_one_in(&s, 4)) {
		uint64_t op = le(h + 6, 2), len = le(h + len_off, 4);
		bool carries = want == W_REQ_BYTES ? op == W_OP_WRITE : true;

		put_le(data + IN_DATA_LEN, carries ? len : 0, 8);
	}
	if (want == W_REP_BYTES && !ferry_fuzz_one_in(&s, 2)) {
		if (!ferry_fuzz_one_in(&s, 4))
			put_le(h + 16, 0, 4); /* success: the stat's range and access get checked */
		if (!ferry_fuzz_one_in(&s, 4))
			put_le(h + 40,
			       ferry_fuzz_one_in(&s, 2) ? DOCA_ACCESS_FLAG_PCI_READ_ONLY
							: DOCA_ACCESS_FLAG_PCI_READ_WRITE,
			       4);
	}
	return size;
}
#endif /* FERRY_LIBFUZZER */

#ifdef FERRY_FUZZ_STANDALONE
/* A case as the fuzzer sees it: header and data length. */
struct wire_case {
	bool reply;
	size_t len; /* header bytes */
	uint64_t data_len;
	uint8_t h[HDR_ROOM];
};

static struct wire_case good_req(uint16_t op, uint32_t len)
{
	struct wire_case c = {.reply = false, .len = W_REQ_BYTES, .data_len = op == W_OP_WRITE ? len : 0};

	memcpy(c.h, "FRYN\x01\x00", 6);
	put_le(c.h + 6, op, 2);
	put_le(c.h + 8, 0x1122334455667788ull, 8);
	put_le(c.h + 16, 42, 8);
	for (int i = 0; i < 16; i++)
		c.h[24 + i] = (uint8_t)(0x70 + 3 * i);
	put_le(c.h + 40, op == W_OP_STAT ? 0 : 0x7f0012340000ull, 8);
	put_le(c.h + 48, op == W_OP_STAT ? 0 : len, 4);
	return c;
}

static struct wire_case good_rep(uint16_t op, int32_t status, uint32_t len)
{
	struct wire_case c = {.reply = true, .len = W_REP_BYTES, .data_len = len};

	memcpy(c.h, "FRYN\x01\x00", 6);
	put_le(c.h + 6, op, 2);
	put_le(c.h + 8, 9, 8);
	put_le(c.h + 16, (uint32_t)status, 4);
	put_le(c.h + 20, len, 4);
	if (op == W_OP_STAT && status == 0) {
		put_le(c.h + 24, 0x7f0012340000ull, 8);
		put_le(c.h + 32, 1u << 20, 8);
		put_le(c.h + 40, DOCA_ACCESS_FLAG_PCI_READ_WRITE, 4);
	}
	return c;
}

/* One hand-made case: the properties must hold and the verdict must be @p want_ok. */
static int replay(const char *name, const struct wire_case *c, bool want_ok)
{
	uint8_t bytes[IN_HDR + HDR_ROOM];
	bool accepted;

	if (!run_case(c->reply, c->h, c->len, c->data_len, &accepted) || accepted != want_ok) {
		fprintf(stderr, "seed '%s': expected %s\n", name, want_ok ? "accepted" : "refused");
		return 1;
	}
	/* The same case as the fuzzer's bytes, and every truncation of it, through the fuzz entry. */
	bytes[IN_SEL] = c->reply ? 1 : 0;
	put_le(bytes + IN_DATA_LEN, c->data_len, 8);
	memcpy(bytes + IN_HDR, c->h, c->len);
	for (size_t cut = 0; cut <= IN_HDR + c->len; cut++)
		LLVMFuzzerTestOneInput(bytes, cut);
	return 0;
}

static int replay_passing(void)
{
	struct wire_case c = good_req(W_OP_STAT, 0);
	int bad = replay("stat request", &c, true);

	c = good_req(W_OP_READ, 1);
	bad += replay("read of one byte", &c, true);
	c = good_req(W_OP_READ, W_CHUNK_MAX);
	bad += replay("read of a whole chunk", &c, true);
	c = good_req(W_OP_WRITE, W_CHUNK_MAX);
	bad += replay("write of a whole chunk with its data", &c, true);
	c = good_req(W_OP_READ, 4096);
	put_le(c.h + 40, UINT64_MAX, 8);
	bad += replay("read at any address (the export table judges the range)", &c, true);
	c = good_rep(W_OP_STAT, 0, 0);
	bad += replay("stat reply", &c, true);
	c = good_rep(W_OP_STAT, 0, 0);
	put_le(c.h + 24, UINT64_MAX - (1u << 20), 8);
	bad += replay("stat of a range whose end is the largest address", &c, true);
	c = good_rep(W_OP_STAT, DOCA_ERROR_NOT_PERMITTED, 0);
	bad += replay("failed stat (no range needed)", &c, true);
	c = good_rep(W_OP_READ, 0, W_CHUNK_MAX);
	bad += replay("read reply with a whole chunk", &c, true);
	c = good_rep(W_OP_READ, DOCA_ERROR_INVALID_VALUE, 0);
	bad += replay("failed read", &c, true);
	c = good_rep(W_OP_WRITE, 0, 0);
	bad += replay("write done", &c, true);
	c = good_rep(W_OP_WRITE, -12345, 0);
	bad += replay("a status we do not know (the client maps it)", &c, true);
	return bad;
}

/* What a hostile importer or exporter might send, each one rule broken. */
static int replay_failing(void)
{
	struct wire_case c = good_req(W_OP_STAT, 0);
	int bad = 0;

	c.h[0] = 'X';
	bad += replay("request with bad magic", &c, false);
	c = good_req(W_OP_READ, 8);
	c.h[4] = 2;
	bad += replay("request of version 2", &c, false);
	c = good_req(W_OP_READ, 8);
	c.h[5] = 1;
	bad += replay("request of version 257", &c, false);
	c = good_req(W_OP_READ, 8);
	c.len = W_REQ_BYTES - 1;
	bad += replay("short request", &c, false);
	c = good_req(W_OP_READ, 8);
	c.len = W_REQ_BYTES + 1;
	bad += replay("long request", &c, false);
	c = good_req(W_OP_READ, 8);
	c.len = W_REP_BYTES;
	bad += replay("a reply's size as a request", &c, false);
	c = good_req(W_OP_READ, 8);
	put_le(c.h + 6, 4, 2);
	bad += replay("unknown operation 4", &c, false);
	c = good_req(W_OP_READ, 8);
	put_le(c.h + 6, 0, 2);
	bad += replay("operation 0", &c, false);
	c = good_req(W_OP_READ, 0);
	bad += replay("read of 0 bytes", &c, false);
	c = good_req(W_OP_WRITE, W_CHUNK_MAX + 1);
	bad += replay("write above a chunk", &c, false);
	c = good_req(W_OP_READ, UINT32_MAX);
	bad += replay("read of 4 GiB - 1", &c, false);
	c = good_req(W_OP_WRITE, 100);
	c.data_len = 99;
	bad += replay("write with less data than its length", &c, false);
	c = good_req(W_OP_WRITE, 100);
	c.data_len = 100 + (1ull << 32);
	bad += replay("write with 4 GiB more data than its length", &c, false);
	c = good_req(W_OP_READ, 100);
	c.data_len = 100;
	bad += replay("read carrying data", &c, false);
	c = good_req(W_OP_STAT, 0);
	c.data_len = 1;
	bad += replay("stat carrying data", &c, false);
	c = good_req(W_OP_STAT, 0);
	put_le(c.h + 40, 1, 8);
	bad += replay("stat with an address", &c, false);
	c = good_req(W_OP_STAT, 0);
	put_le(c.h + 48, 1, 4);
	bad += replay("stat with a length", &c, false);
	c = good_req(W_OP_READ, 8);
	c.h[55] = 1;
	bad += replay("request reserved not zero", &c, false);

	c = good_rep(W_OP_READ, 0, 8);
	c.h[3] = 0;
	bad += replay("reply with bad magic", &c, false);
	c = good_rep(W_OP_READ, 0, 8);
	c.h[4] = 0;
	bad += replay("reply of version 0", &c, false);
	c = good_rep(W_OP_READ, 0, 8);
	c.len = W_REQ_BYTES;
	bad += replay("a request's size as a reply", &c, false);
	c = good_rep(W_OP_READ, 0, 8);
	c.data_len = 7;
	bad += replay("read reply with less data than it says", &c, false);
	c = good_rep(W_OP_READ, DOCA_ERROR_INVALID_VALUE, 8);
	bad += replay("data beside a failed status", &c, false);
	c = good_rep(W_OP_WRITE, 0, 8);
	bad += replay("data beside a write's reply", &c, false);
	c = good_rep(W_OP_STAT, 0, 8);
	bad += replay("data beside a stat's reply", &c, false);
	c = good_rep(W_OP_READ, 0, W_CHUNK_MAX + 1);
	bad += replay("read reply above a chunk", &c, false);
	c = good_rep(9, 0, 0);
	bad += replay("reply of an unknown operation", &c, false);
	c = good_rep(W_OP_STAT, 0, 0);
	put_le(c.h + 40, DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE, 4);
	bad += replay("stat with both permissions", &c, false);
	c = good_rep(W_OP_STAT, 0, 0);
	put_le(c.h + 40, 0, 4);
	bad += replay("stat with no permission", &c, false);
	c = good_rep(W_OP_STAT, 0, 0);
	put_le(c.h + 32, 0, 8);
	bad += replay("stat of an empty range", &c, false);
	c = good_rep(W_OP_STAT, 0, 0);
	put_le(c.h + 24, UINT64_MAX - (1u << 20) + 1, 8);
	bad += replay("stat of a range whose end is 2^64 (not an address)", &c, false);
	c = good_rep(W_OP_STAT, 0, 0);
	put_le(c.h + 24, UINT64_MAX - 5, 8);
	bad += replay("stat of a range that wraps", &c, false);
	c = good_rep(W_OP_READ, 0, 8);
	c.h[44] = 1;
	bad += replay("reply reserved not zero", &c, false);
	return bad;
}

int main(void)
{
	int bad = replay_passing() + replay_failing();
	const char *why = NULL;
	struct net_req req;
	struct net_rep rep;

	/* No header at all: refused and named, not read. */
	if (net_req_decode(NULL, W_REQ_BYTES, 0, &req, &why) != DOCA_ERROR_INVALID_VALUE || why == NULL)
		bad++;
	why = NULL;
	if (net_rep_decode(NULL, W_REP_BYTES, 0, &rep, &why) != DOCA_ERROR_INVALID_VALUE || why == NULL)
		bad++;
	if (bad != 0)
		return 1;
	printf("net wire seeds: all verdicts as expected\n");
	return 0;
}
#endif /* FERRY_FUZZ_STANDALONE */
