/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_desc_priv.h - the bytes doca_mmap_export_pci hands out and
 * doca_mmap_create_from_export takes back.
 *
 * Wire format, version 1, all integers little-endian (docs/remote-memory.md):
 *
 *   off len field
 *     0   4 magic "FRYX"
 *     4   2 version (1)
 *     6   2 hints: bit 0 shareable (memfd, served by the agent), bit 1 cross-memory attach,
 *             bit 2 network (the section after the agent name), bit 3 network path only
 *             (a re-export: the exporter reaches the bytes through its own import, so
 *             they are not in its address space; needs bit 2, excludes bits 0 and 1)
 *     8   4 total length of the descriptor in bytes
 *    12   4 CRC-32 of the whole descriptor with this field zeroed
 *    16  16 boot id of the exporter's kernel
 *    32   4 exporter pid
 *    36   4 exporter uid
 *    40   8 exporter start time (field 22 of /proc/<pid>/stat, clock ticks since boot)
 *    48   8 export id (unique within the exporter)
 *    56  16 token (random secret; whoever holds the descriptor holds it)
 *    72   8 start address of the range in the exporter
 *    80   8 length of the range
 *    88   4 access: DOCA_ACCESS_FLAG_PCI_READ_ONLY or DOCA_ACCESS_FLAG_PCI_READ_WRITE
 *    92   4 emulated machine (DPU index) of the exporting device
 *    96   2 length of the agent socket name that follows
 *    98   2 reserved, zero
 *   100   n agent socket name (abstract Unix namespace, no NUL)
 *
 * With the network hint, 16 more bytes: where the exporter's network server
 * listens (the access path for importers on another machine or in another
 * network namespace, net_server.c) and which namespace the exporter is in:
 *
 *   100+n  4 IPv4 address, network byte order
 *   104+n  2 TCP port (little-endian, like every integer here), never 0
 *   106+n  2 reserved, zero
 *   108+n  8 inode of the exporter's network namespace (/proc/self/ns/net)
 *
 * The codec is pure: no I/O, no logging, no allocation; decode reports why a
 * buffer is refused so the caller can log one line.
 */
#ifndef FERRY_EXPORT_DESC_H_
#define FERRY_EXPORT_DESC_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define FERRY_DESC_MAGIC       0x58595246u /* "FRYX" read little-endian */
#define FERRY_DESC_VERSION     1u
#define FERRY_DESC_FIXED_LEN   100u
#define FERRY_DESC_MAX_AGENT   107u /* sun_path minus the leading NUL of the abstract namespace */
#define FERRY_DESC_NET_LEN     16u
#define FERRY_DESC_MAX_LEN     (FERRY_DESC_FIXED_LEN + FERRY_DESC_MAX_AGENT + FERRY_DESC_NET_LEN)
#define FERRY_DESC_TOKEN_LEN   16u
#define FERRY_DESC_BOOT_ID_LEN 16u

enum ferry_desc_hint {
	FERRY_DESC_HINT_SHAREABLE = 1u << 0,
	FERRY_DESC_HINT_CMA = 1u << 1,
	FERRY_DESC_HINT_NET = 1u << 2,
	FERRY_DESC_HINT_NET_ONLY = 1u << 3,
};
#define FERRY_DESC_KNOWN_HINTS \
	(FERRY_DESC_HINT_SHAREABLE | FERRY_DESC_HINT_CMA | FERRY_DESC_HINT_NET | FERRY_DESC_HINT_NET_ONLY)

struct ferry_export_desc {
	uint16_t version;
	uint16_t hints;
	uint8_t boot_id[FERRY_DESC_BOOT_ID_LEN];
	uint32_t pid;
	uint32_t uid;
	uint64_t start_time;
	uint64_t export_id;
	uint8_t token[FERRY_DESC_TOKEN_LEN];
	uint64_t addr;
	uint64_t len;
	uint32_t access;
	uint32_t machine;
	uint16_t agent_len;
	char agent[FERRY_DESC_MAX_AGENT + 1]; /* NUL-terminated copy */
	/* FERRY_DESC_HINT_NET only: */
	uint8_t net_ipv4[4]; /* network byte order */
	uint16_t net_port;
	uint64_t net_ns; /* the exporter's network namespace */
};

/**
 * Write @p desc into @p out (room for FERRY_DESC_MAX_LEN bytes).
 * @return the number of bytes written, or 0 if @p desc itself is invalid.
 */
size_t ferry_export_desc_encode(const struct ferry_export_desc *desc, uint8_t *out, size_t room);

/**
 * Parse and check the syntax of @p len bytes at @p buf.
 * @param [out] desc  filled only on success.
 * @param [out] why   on failure, a static sentence saying what is wrong.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE (garbage, truncated, corrupt) or
 *         DOCA_ERROR_UNSUPPORTED_VERSION (another version of the format).
 */
doca_error_t ferry_export_desc_decode(const void *buf, size_t len, struct ferry_export_desc *desc, const char **why);

/** CRC-32 (IEEE) of @p len bytes; exposed for the tests that forge descriptors. */
uint32_t ferry_desc_crc32(const uint8_t *p, size_t len);

#endif /* FERRY_EXPORT_DESC_H_ */
