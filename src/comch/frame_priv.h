/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * frame_priv.h - the frames of the emulated PCIe link's control sockets.
 *
 * One SOCK_SEQPACKET datagram carries exactly one frame. All integers are
 * little-endian. A frame is a 12-byte header and a payload:
 *
 *   offset 0  u32 magic   FERRY_FRAME_MAGIC ("FRCH" in memory order)
 *          4  u8  version FERRY_FRAME_VERSION
 *          5  u8  type    enum ferry_frame_type
 *          6  u16 flags   0 (reserved; a non-zero value is refused)
 *          8  u32 length  payload bytes; must equal datagram size - 12
 *
 * Payloads:
 *   HELLO   (client -> server, first frame)
 *           u32 max_msg_size, u32 recv_queue_size, u32 machine,
 *           u16 dev_len, u16 name_len, dev[dev_len], name[name_len]
 *           (dev: the client's host-side PCI address; name: the server name;
 *            neither NUL-terminated, neither may contain a NUL byte)
 *   WELCOME (server -> client) u32 max_msg_size, u32 recv_queue_size, u32 conn_id
 *   REFUSE  (server -> client) u32 doca_error, u16 reason_len, reason[reason_len]
 *   MSG     (either way) the application's message, 0..max_msg_size bytes
 *   BYE     (either way) empty: the sender ends the connection
 *
 * Fast-path frames (Comch producer/consumer; ids are never 0):
 *   CONSUMER_UP   (consumer's side -> peer) a consumer started:
 *           u32 consumer_id, u32 imm_data_len (<= FERRY_FRAME_IMM_MAX),
 *           u32 ring_cap (a power of two, 1..FERRY_FRAME_RING_MAX),
 *           u16 desc_len, u16 ring_desc_len, desc[desc_len], ring_desc[ring_desc_len]
 *           (each 1..FERRY_FRAME_DESC_MAX bytes: export descriptors of the consumer's
 *           mmap and of its post ring, parsed later by the import code)
 *   CONSUMER_DOWN (consumer's side -> peer) u32 consumer_id: it stopped
 *   DONE_RING (producer's side -> consumer's side) answers CONSUMER_UP:
 *           u32 consumer_id, u32 ring_cap (the consumer's ring size), u16 desc_len,
 *           desc[desc_len] (1..FERRY_FRAME_DESC_MAX: export descriptor of the
 *           completion ring the producers of this side write for that consumer)
 * Posted buffers and their completions travel through those two rings in shared
 * memory (src/comch/fast_priv.h), not through the socket.
 *
 * Everything here is pure (bytes in, result out): the peer is untrusted and the
 * parser is the fuzz target (tests/comch/fuzz_frame.c).
 */
#ifndef FERRY_FRAME_H_
#define FERRY_FRAME_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define FERRY_FRAME_MAGIC       0x48435246u /* bytes 'F' 'R' 'C' 'H' */
#define FERRY_FRAME_VERSION     2u          /* 2: one claim word per post ring, 32-byte completions (fast_priv.h) */
#define FERRY_FRAME_HDR_LEN     12u
#define FERRY_FRAME_DEV_MAX     32u  /* longest device identity in a HELLO */
#define FERRY_FRAME_NAME_MAX    119u /* longest server name (cap 120 with the NUL) */
#define FERRY_FRAME_REASON_MAX  256u /* longest refusal text */
#define FERRY_FRAME_HELLO_FIXED 16u
#define FERRY_FRAME_HELLO_MAX \
	(FERRY_FRAME_HDR_LEN + FERRY_FRAME_HELLO_FIXED + FERRY_FRAME_DEV_MAX + FERRY_FRAME_NAME_MAX)
#define FERRY_FRAME_REFUSE_MAX      (FERRY_FRAME_HDR_LEN + 6u + FERRY_FRAME_REASON_MAX)
#define FERRY_FRAME_IMM_MAX         32u    /* immediate data of a fast-path send */
#define FERRY_FRAME_DESC_MAX        256u   /* export descriptor in a CONSUMER_UP */
#define FERRY_FRAME_RING_MAX        65536u /* entries of a consumer's post ring */
#define FERRY_FRAME_UP_FIXED        16u
#define FERRY_FRAME_UP_MAX          (FERRY_FRAME_HDR_LEN + FERRY_FRAME_UP_FIXED + 2u * FERRY_FRAME_DESC_MAX)
#define FERRY_FRAME_DOWN_LEN        (FERRY_FRAME_HDR_LEN + 4u)
#define FERRY_FRAME_DONE_RING_FIXED 10u
#define FERRY_FRAME_DONE_RING_MAX   (FERRY_FRAME_HDR_LEN + FERRY_FRAME_DONE_RING_FIXED + FERRY_FRAME_DESC_MAX)
/* The largest frame a fast-path peer sends: a receive buffer must hold it. */
#define FERRY_FRAME_FAST_MAX        FERRY_FRAME_UP_MAX

enum ferry_frame_type {
	FERRY_FRAME_HELLO = 1,
	FERRY_FRAME_WELCOME = 2,
	FERRY_FRAME_REFUSE = 3,
	FERRY_FRAME_MSG = 4,
	FERRY_FRAME_BYE = 5,
	FERRY_FRAME_CONSUMER_UP = 6,
	FERRY_FRAME_CONSUMER_DOWN = 7,
	FERRY_FRAME_DONE_RING = 8,
};

struct ferry_frame_hello {
	uint32_t max_msg_size;
	uint32_t recv_queue_size;
	uint32_t machine;
	const char *dev; /* points into the datagram; not NUL-terminated */
	uint16_t dev_len;
	const char *name; /* idem */
	uint16_t name_len;
};

struct ferry_frame_welcome {
	uint32_t max_msg_size;
	uint32_t recv_queue_size;
	uint32_t conn_id;
};

struct ferry_frame_refuse {
	doca_error_t error;
	const char *reason; /* not NUL-terminated */
	uint16_t reason_len;
};

struct ferry_frame_consumer_up {
	uint32_t consumer_id;
	uint32_t imm_data_len;
	uint32_t ring_cap;
	const uint8_t *desc; /* points into the datagram */
	uint16_t desc_len;
	const uint8_t *ring_desc; /* idem */
	uint16_t ring_desc_len;
};

struct ferry_frame_done_ring {
	uint32_t consumer_id;
	uint32_t ring_cap;
	const uint8_t *desc; /* points into the datagram */
	uint16_t desc_len;
};

/** A parsed frame; pointers refer into the buffer given to ferry_frame_parse. */
struct ferry_frame {
	enum ferry_frame_type type;
	const uint8_t *payload;
	uint32_t payload_len;
	union {
		struct ferry_frame_hello hello;
		struct ferry_frame_welcome welcome;
		struct ferry_frame_refuse refuse;
		struct ferry_frame_consumer_up up;
		uint32_t consumer_id; /* CONSUMER_DOWN */
		struct ferry_frame_done_ring done_ring;
	} u;
};

/**
 * Parse and validate one received datagram.
 * @param buf the datagram, @p len its full size as the kernel reported it.
 * @param max_msg_size the largest MSG payload accepted.
 * @param out the parsed frame (only valid on success).
 * @param why on error, a static text naming the broken rule.
 * @return DOCA_SUCCESS, DOCA_ERROR_UNSUPPORTED_VERSION for a foreign version,
 *         DOCA_ERROR_TOO_BIG for an oversized frame, DOCA_ERROR_INVALID_VALUE otherwise.
 */
doca_error_t ferry_frame_parse(const void *buf, size_t len, uint32_t max_msg_size, struct ferry_frame *out,
			       const char **why);

/** Write a header for @p type with @p payload_len into @p buf (FERRY_FRAME_HDR_LEN bytes). */
void ferry_frame_put_header(uint8_t *buf, enum ferry_frame_type type, uint32_t payload_len);

/** Build a HELLO into @p buf (FERRY_FRAME_HELLO_MAX bytes); returns its size, 0 if too long. */
size_t ferry_frame_build_hello(uint8_t *buf, uint32_t max_msg_size, uint32_t recv_queue_size, uint32_t machine,
			       const char *dev, const char *name);

/** Build a WELCOME into @p buf (FERRY_FRAME_HDR_LEN + 12 bytes); returns its size. */
size_t ferry_frame_build_welcome(uint8_t *buf, uint32_t max_msg_size, uint32_t recv_queue_size, uint32_t conn_id);

/** Build a REFUSE into @p buf (FERRY_FRAME_REFUSE_MAX bytes); the reason is cut to fit. */
size_t ferry_frame_build_refuse(uint8_t *buf, doca_error_t error, const char *reason);

/**
 * Build a CONSUMER_UP into @p buf (FERRY_FRAME_UP_MAX bytes) from @p up (its
 * pointers and lengths name the descriptors); returns its size, 0 if a
 * descriptor length is out of range.
 */
size_t ferry_frame_build_consumer_up(uint8_t *buf, const struct ferry_frame_consumer_up *up);

/** Build a CONSUMER_DOWN into @p buf (FERRY_FRAME_DOWN_LEN bytes); returns its size. */
size_t ferry_frame_build_consumer_down(uint8_t *buf, uint32_t consumer_id);

/** Build a DONE_RING into @p buf (FERRY_FRAME_DONE_RING_MAX bytes); returns its size, 0 if the descriptor length is out of range. */
size_t ferry_frame_build_done_ring(uint8_t *buf, const struct ferry_frame_done_ring *ring);

#endif /* FERRY_FRAME_H_ */
