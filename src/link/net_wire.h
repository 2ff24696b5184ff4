/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_wire.h - the messages of the link's network path: an importer on
 * another machine (net_client.c) asks the exporter's network server
 * (net_server.c) to read or write bytes of an export, over UCX active
 * messages. Every integer is little-endian.
 *
 * Request, importer -> exporter (AM id NET_AM_REQUEST), 56 bytes of header:
 *
 *   off len field
 *     0   4 magic "FRYN"
 *     4   2 version (1)
 *     6   2 op: 1 stat (the export's range and permission), 2 read, 3 write
 *     8   8 request id (the importer's; echoed)
 *    16   8 export id
 *    24  16 token of the export (from its descriptor)
 *    40   8 address in the exporter (read, write; 0 for stat)
 *    48   4 length (read, write: 1 .. NET_CHUNK_MAX; 0 for stat)
 *    52   4 reserved, zero
 *
 * A write's bytes are the message's data, exactly `length` of them; stat and
 * read carry none.
 *
 * Reply, exporter -> importer (AM id NET_AM_REPLY), 48 bytes of header:
 *
 *     0   4 magic "FRYN"
 *     4   2 version (1)
 *     6   2 op (echoed)
 *     8   8 request id (echoed)
 *    16   4 status: a doca_error_t (success, or why not)
 *    20   4 length of the data that follows (a successful read: its length)
 *    24   8 stat: the export's address
 *    32   8 stat: the export's length
 *    40   4 stat: its access (DOCA_ACCESS_FLAG_PCI_READ_ONLY or _READ_WRITE)
 *    44   4 reserved, zero
 *
 * The codec is pure (no I/O, no allocation, no logging): both sides and the
 * fuzz target call it, and decode says why a header is refused.
 */
#ifndef FERRY_NET_WIRE_H_
#define FERRY_NET_WIRE_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#include "link/export_desc_priv.h"

#define NET_WIRE_MAGIC   0x4e595246u /* "FRYN" read little-endian */
#define NET_WIRE_VERSION 1u
#define NET_REQ_LEN      56u
#define NET_REP_LEN      48u
#define NET_CHUNK_MAX    (256u * 1024u) /* bytes one request moves at most */
#define NET_EAGER_MAX    (64u * 1024u)  /* up to this, data goes eagerly (no rendezvous round trips) */

enum net_am_id {
	NET_AM_REQUEST = 1,
	NET_AM_REPLY = 2,
};

enum net_op {
	NET_OP_STAT = 1,
	NET_OP_READ = 2,
	NET_OP_WRITE = 3,
};

struct net_req {
	uint16_t op;
	uint64_t id;
	uint64_t export_id;
	uint8_t token[FERRY_DESC_TOKEN_LEN];
	uint64_t addr;
	uint32_t len;
};

struct net_rep {
	uint16_t op;
	uint64_t id;
	int32_t status;
	uint32_t len;
	uint64_t addr; /* stat */
	uint64_t export_len;
	uint32_t access;
};

void net_req_encode(const struct net_req *req, uint8_t out[NET_REQ_LEN]);
void net_rep_encode(const struct net_rep *rep, uint8_t out[NET_REP_LEN]);

/**
 * Check a request header of @p len bytes and the length of the data beside it
 * (@p data_len). On failure *why names the rule; *req is filled as far as it
 * could be read, so a reply can still name the request (id 0 if not even that).
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE or DOCA_ERROR_UNSUPPORTED_VERSION.
 */
doca_error_t net_req_decode(const void *hdr, size_t len, size_t data_len, struct net_req *req, const char **why);

/**
 * Check a reply header of @p len bytes and the length of the data beside it;
 * the importer then matches it to the request it answers (id, op, length).
 */
doca_error_t net_rep_decode(const void *hdr, size_t len, size_t data_len, struct net_rep *rep, const char **why);

#endif /* FERRY_NET_WIRE_H_ */
