/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_desc_priv.h - the two descriptors of DOCA RDMA that travel between
 * processes: a connection's (doca_rdma_export -> doca_rdma_connect) and a
 * memory range's (doca_mmap_export_rdma -> doca_mmap_create_from_export).
 *
 * Both: version 2 (1 carried UCX remote keys), integers little-endian, a CRC-32 of the whole descriptor
 * (with its own field zeroed) so a copy damaged on the way is told from a
 * forged one, and a length field that must equal the bytes given.
 *
 * Connection, magic "FRYC":
 *   off len field
 *     0   4 magic
 *     4   2 version (2)
 *     6   2 transport type (0 RC, 1 DC)
 *     8   4 total length
 *    12   4 CRC-32
 *    16   8 instance token: random, non-zero, new at every start of the context
 *    24   4 connection id within that instance
 *    28   4 permissions of the instance (DOCA_ACCESS_FLAG_* bits)
 *    32   4 pid of the exporter
 *    36   2 length n of the UCX worker address
 *    38   2 reserved, zero
 *    40   8 start time of that pid (field 22 of /proc/<pid>/stat)
 *    48  16 boot id of the exporter's kernel: with pid and start time, a peer
 *           on the same host is watched with a pidfd (UCX 1.13's shared-memory
 *           transports cannot tell that a peer died)
 *    64   n UCX worker address (opaque to Ferry, checked by UCX)
 *
 * Memory, magic "FRYM" (core/ferry_rdma_mem.h):
 *     0   4 magic
 *     4   2 version (2)
 *     6   2 kind: 0 an export of this process's memory, 1 a re-export's link
 *           descriptor (below)
 *     8   4 total length
 *    12   4 CRC-32
 *    16   8 start address of the range in the exporter
 *    24   8 length of the range (non-zero, no wrap)
 *    32   4 access: DOCA_ACCESS_FLAG_RDMA_READ / _WRITE / _ATOMIC bits (no others)
 *    36   4 pid of the exporter
 *    40   2 length n of the body
 *    42   2 reserved, zero
 *    44   n body: kind 0, 16 bytes: the export's id and its random key (the
 *           capability its requests carry, rdma_rma.c); kind 1, the export
 *           descriptor (link/export_desc_priv.h, FERRY_DESC_FIXED_LEN to
 *           FERRY_DESC_MAX_LEN bytes) of a re-export served by the exporter's
 *           link network server: a PCI import of memory this process reaches
 *           by cross-memory attach, which UCX cannot register. Kind 1 grants
 *           RDMA_READ, or RDMA_READ and RDMA_WRITE, never atomics. Its body is
 *           opaque here; the link's own decoder checks it at import.
 *
 * The codec is pure: no I/O, no logging, no allocation (decoded views point
 * into the caller's buffer). Decode says why a buffer is refused.
 */
#ifndef FERRY_RDMA_DESC_PRIV_H_
#define FERRY_RDMA_DESC_PRIV_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define FERRY_RDMA_CONN_MAGIC     0x43595246u /* "FRYC" read little-endian */
#define FERRY_RDMA_DESC_VERSION   2u          /* 2: exports by id and key, served by the target (rdma_rma.c) */
#define FERRY_RDMA_CONN_FIXED_LEN 64u
#define FERRY_RDMA_CONN_MAX_ADDR  16384u /* UCX worker addresses are hundreds of bytes */
#define FERRY_RDMA_MEM_FIXED_LEN  44u
#define FERRY_RDMA_MEM_MAX_RKEY   8192u /* the longest body: a re-export's link descriptor */
#define FERRY_RDMA_MEM_KEY_LEN    16u
#define FERRY_RDMA_CONN_MAX_LEN   (FERRY_RDMA_CONN_FIXED_LEN + FERRY_RDMA_CONN_MAX_ADDR)
#define FERRY_RDMA_MEM_MAX_LEN    (FERRY_RDMA_MEM_FIXED_LEN + FERRY_RDMA_MEM_MAX_RKEY)

struct ferry_rdma_conn_desc {
	uint16_t transport;
	uint64_t token;
	uint32_t conn_id;
	uint32_t permissions;
	uint32_t pid;
	uint64_t start_time;
	uint8_t boot_id[16];
	uint16_t addr_len;
	const uint8_t *addr; /* decode: points into the buffer given */
};

enum ferry_rdma_mem_kind {
	FERRY_RDMA_MEM_KIND_KEY = 0,  /* body: the export id and its key, 8 bytes each (rdma_mem.c) */
	FERRY_RDMA_MEM_KIND_LINK = 1, /* body: a re-export's link descriptor */
};

struct ferry_rdma_mem_desc {
	uint16_t kind; /* enum ferry_rdma_mem_kind */
	uint64_t addr;
	uint64_t len;
	uint32_t access;
	uint32_t pid;
	uint16_t body_len;
	const uint8_t *body; /* decode: points into the buffer given */
};

/** Bytes the encoding of @p d takes. */
size_t ferry_rdma_conn_desc_size(const struct ferry_rdma_conn_desc *d);
size_t ferry_rdma_mem_desc_size(const struct ferry_rdma_mem_desc *d);

/**
 * Write @p d into @p out (@p room bytes).
 * @return the bytes written, or 0 when @p d is invalid or does not fit.
 */
size_t ferry_rdma_conn_desc_encode(const struct ferry_rdma_conn_desc *d, uint8_t *out, size_t room);
size_t ferry_rdma_mem_desc_encode(const struct ferry_rdma_mem_desc *d, uint8_t *out, size_t room);

/**
 * Parse and check @p len bytes at @p buf.
 * @param [out] d    filled only on success; its pointer field points into @p buf.
 * @param [out] why  on failure, a static sentence saying what is wrong.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE (garbage, truncated, damaged,
 *         a field out of range); DOCA_ERROR_UNSUPPORTED_VERSION.
 */
doca_error_t ferry_rdma_conn_desc_decode(const void *buf, size_t len, struct ferry_rdma_conn_desc *d, const char **why);
doca_error_t ferry_rdma_mem_desc_decode(const void *buf, size_t len, struct ferry_rdma_mem_desc *d, const char **why);

#endif /* FERRY_RDMA_DESC_PRIV_H_ */
