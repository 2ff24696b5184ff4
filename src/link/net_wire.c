/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_wire.c - encode and decode the network path's requests and replies
 * (format in net_wire.h). Pure functions, fuzzed on their own.
 */
#include <string.h>

#include <doca_types.h>

#include "common/ferry_bytes.h"
#include "link/net_wire.h"

#define OFF_MAGIC   0
#define OFF_VERSION 4
#define OFF_OP      6
#define OFF_ID      8

#define REQ_OFF_EXPORT   16
#define REQ_OFF_TOKEN    24
#define REQ_OFF_ADDR     40
#define REQ_OFF_LEN      48
#define REQ_OFF_RESERVED 52

#define REP_OFF_STATUS   16
#define REP_OFF_LEN      20
#define REP_OFF_ADDR     24
#define REP_OFF_XLEN     32
#define REP_OFF_ACCESS   40
#define REP_OFF_RESERVED 44

_Static_assert(REQ_OFF_RESERVED + 4 == NET_REQ_LEN, "request header");
_Static_assert(REP_OFF_RESERVED + 4 == NET_REP_LEN, "reply header");

static void put_common(uint8_t *out, uint16_t op, uint64_t id)
{
	ferry_le_put32(out + OFF_MAGIC, NET_WIRE_MAGIC);
	ferry_le_put16(out + OFF_VERSION, NET_WIRE_VERSION);
	ferry_le_put16(out + OFF_OP, op);
	ferry_le_put64(out + OFF_ID, id);
}

void net_req_encode(const struct net_req *req, uint8_t out[NET_REQ_LEN])
{
	memset(out, 0, NET_REQ_LEN);
	put_common(out, req->op, req->id);
	ferry_le_put64(out + REQ_OFF_EXPORT, req->export_id);
	memcpy(out + REQ_OFF_TOKEN, req->token, FERRY_DESC_TOKEN_LEN);
	ferry_le_put64(out + REQ_OFF_ADDR, req->addr);
	ferry_le_put32(out + REQ_OFF_LEN, req->len);
}

void net_rep_encode(const struct net_rep *rep, uint8_t out[NET_REP_LEN])
{
	memset(out, 0, NET_REP_LEN);
	put_common(out, rep->op, rep->id);
	ferry_le_put32(out + REP_OFF_STATUS, (uint32_t)rep->status);
	ferry_le_put32(out + REP_OFF_LEN, rep->len);
	ferry_le_put64(out + REP_OFF_ADDR, rep->addr);
	ferry_le_put64(out + REP_OFF_XLEN, rep->export_len);
	ferry_le_put32(out + REP_OFF_ACCESS, rep->access);
}

/* Magic, version and size: what both headers need before anything is read. */
static doca_error_t check_common(const uint8_t *p, size_t len, size_t want, const char **why)
{
	if (p == NULL || len != want) {
		*why = "header of the wrong size";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ferry_le_get32(p + OFF_MAGIC) != NET_WIRE_MAGIC) {
		*why = "bad magic (not a Ferry network-path message)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ferry_le_get16(p + OFF_VERSION) != NET_WIRE_VERSION) {
		*why = "message format version is not 1";
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	return DOCA_SUCCESS;
}

static const char *check_req(const struct net_req *r, uint32_t reserved, size_t data_len)
{
	if (reserved != 0)
		return "reserved field is not zero";
	switch (r->op) {
	case NET_OP_STAT:
		if (r->addr != 0 || r->len != 0 || data_len != 0)
			return "a stat request carries an address, a length or data";
		return NULL;
	case NET_OP_READ:
	case NET_OP_WRITE:
		if (r->len == 0 || r->len > NET_CHUNK_MAX)
			return "length is 0 or above the largest chunk (256 KiB)";
		if (data_len != (r->op == NET_OP_WRITE ? r->len : 0))
			return r->op == NET_OP_WRITE ? "a write's data is not as long as its length field says"
						     : "a read request carries data";
		return NULL;
	default:
		return "unknown operation";
	}
}

doca_error_t net_req_decode(const void *hdr, size_t len, size_t data_len, struct net_req *req, const char **why)
{
	const uint8_t *p = hdr;
	doca_error_t err = check_common(p, len, NET_REQ_LEN, why);

	memset(req, 0, sizeof(*req));
	if (err != DOCA_SUCCESS)
		return err;
	req->op = ferry_le_get16(p + OFF_OP);
	req->id = ferry_le_get64(p + OFF_ID);
	req->export_id = ferry_le_get64(p + REQ_OFF_EXPORT);
	memcpy(req->token, p + REQ_OFF_TOKEN, FERRY_DESC_TOKEN_LEN);
	req->addr = ferry_le_get64(p + REQ_OFF_ADDR);
	req->len = ferry_le_get32(p + REQ_OFF_LEN);
	*why = check_req(req, ferry_le_get32(p + REQ_OFF_RESERVED), data_len);
	return *why == NULL ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

static const char *check_rep(const struct net_rep *r, uint32_t reserved, size_t data_len)
{
	if (reserved != 0)
		return "reserved field is not zero";
	if (r->op != NET_OP_STAT && r->op != NET_OP_READ && r->op != NET_OP_WRITE)
		return "unknown operation";
	if (r->len != data_len)
		return "data is not as long as the length field says";
	if (r->status != DOCA_SUCCESS && r->len != 0)
		return "a failed request carries data";
	if (r->len > NET_CHUNK_MAX || (r->len != 0 && r->op != NET_OP_READ))
		return "data beside a reply that is not a read's, or above the largest chunk";
	if (r->op == NET_OP_STAT && r->status == DOCA_SUCCESS &&
	    ((r->access != DOCA_ACCESS_FLAG_PCI_READ_ONLY && r->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE) ||
	     r->export_len == 0 || r->addr + r->export_len < r->addr))
		return "a stat reply with no valid range or permission";
	return NULL;
}

doca_error_t net_rep_decode(const void *hdr, size_t len, size_t data_len, struct net_rep *rep, const char **why)
{
	const uint8_t *p = hdr;
	doca_error_t err = check_common(p, len, NET_REP_LEN, why);

	memset(rep, 0, sizeof(*rep));
	if (err != DOCA_SUCCESS)
		return err;
	rep->op = ferry_le_get16(p + OFF_OP);
	rep->id = ferry_le_get64(p + OFF_ID);
	rep->status = (int32_t)ferry_le_get32(p + REP_OFF_STATUS);
	rep->len = ferry_le_get32(p + REP_OFF_LEN);
	rep->addr = ferry_le_get64(p + REP_OFF_ADDR);
	rep->export_len = ferry_le_get64(p + REP_OFF_XLEN);
	rep->access = ferry_le_get32(p + REP_OFF_ACCESS);
	*why = check_rep(rep, ferry_le_get32(p + REP_OFF_RESERVED), data_len);
	return *why == NULL ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}
