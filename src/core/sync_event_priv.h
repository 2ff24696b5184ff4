/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sync_event_priv.h - the shared word block of a sync event and the bytes
 * doca_sync_event_export_to_remote_pci hands out (sync_event.c,
 * sync_event_desc.c; tests may include it to forge descriptors).
 *
 * Shared block (one page from ferry_mem_alloc_shared, exported read-write
 * through src/link and mapped anywhere by an importer):
 *
 *   off len field
 *     0   8 value    the event's value (unless set_addr/set_doca_buf moved it)
 *     8   4 seq      bumped by every update through the API; waiters sleep on it (futex)
 *    12   4 waiters  number of threads (any process) sleeping or about to sleep
 *    16  48 bells    SE_BELLS doorbell tokens (ferry_pe_bell) of PEs with wait tasks on
 *                    the event, 0 = free slot; every update rings each one
 *
 * Every field is written by both sides: none is trusted for anything but its
 * value (a peer that writes nonsense makes waits return early or sleep until
 * their re-check, never crash or hang past the re-check; a forged bell token
 * costs a one-byte datagram to a Ferry doorbell name, a spurious wake-up at most).
 *
 * Descriptor, version 1, integers little-endian:
 *
 *   off    len field
 *     0      4 magic "FRYE"
 *     4      2 version (1)
 *     6      2 flags: bit 0 SE_DESC_F_VALUE, the value lives apart (set_addr or
 *              set_doca_buf in shareable memory) and its own descriptor follows;
 *              bit 1 SE_DESC_F_NET, an export to a network peer
 *              (doca_sync_event_export_to_remote_net): the one descriptor is the
 *              RDMA memory descriptor of the value's 8 bytes (src/rdma), never
 *              with bit 0; other bits zero
 *     8      4 length n of the block's link descriptor (1..SE_DESC_MAX_INNER;
 *              with SE_DESC_F_NET the RDMA descriptor's, 1..SE_DESC_MAX_NET_INNER)
 *    12      n link descriptor of the shared block (link/export_desc_priv.h)
 *  with SE_DESC_F_VALUE:
 *  12+n      4 length m of the value's link descriptor (1..SE_DESC_MAX_INNER)
 *  16+n      m link descriptor of the 8 bytes that hold the value
 *
 * The total length is exactly 12 + n (+ 4 + m). The codec is pure: no I/O, no
 * logging.
 */
#ifndef FERRY_SYNC_EVENT_PRIV_H_
#define FERRY_SYNC_EVENT_PRIV_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define SE_BELLS 6u

struct sync_event_shared {
	uint64_t value;
	uint32_t seq;
	uint32_t waiters;
	uint64_t bells[SE_BELLS];
};

#define SE_DESC_MAGIC         0x45595246u /* "FRYE" read little-endian */
#define SE_DESC_VERSION       1u
#define SE_DESC_F_VALUE       1u
#define SE_DESC_F_NET         2u
#define SE_DESC_HDR_LEN       12u
#define SE_DESC_MAX_INNER     512u
#define SE_DESC_MAX_LEN       (SE_DESC_HDR_LEN + 2 * SE_DESC_MAX_INNER + 4)
/* An RDMA memory descriptor carries UCX's packed remote key (src/rdma/rdma_desc_priv.h: at most 8236 bytes). */
#define SE_DESC_MAX_NET_INNER 8448u
#define SE_DESC_MAX_NET_LEN   (SE_DESC_HDR_LEN + SE_DESC_MAX_NET_INNER)

/** The link descriptors inside a sync event descriptor (pointers into its bytes). */
struct se_desc_parts {
	const uint8_t *block; /* the shared block's */
	size_t block_len;
	const uint8_t *value; /* the value's, or NULL when it lives in the block */
	size_t value_len;
	bool net; /* SE_DESC_F_NET: block is the value's RDMA memory descriptor, value is NULL */
};

/**
 * Write a descriptor of @p parts into @p out (room for @p room bytes).
 * @return the bytes written, or 0 when a part is empty or too long, or @p room too small.
 */
size_t sync_event_desc_encode(const struct se_desc_parts *parts, uint8_t *out, size_t room);

/**
 * Check @p len bytes at @p buf and find the link descriptors inside.
 * @param [out] parts  set only on success (pointing into @p buf).
 * @param [out] why    on failure, a static sentence.
 * @return DOCA_SUCCESS, DOCA_ERROR_INVALID_VALUE or DOCA_ERROR_UNSUPPORTED_VERSION.
 */
doca_error_t sync_event_desc_decode(const uint8_t *buf, size_t len, struct se_desc_parts *parts, const char **why);

#endif /* FERRY_SYNC_EVENT_PRIV_H_ */
