/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * frame.c - parse and build control-socket frames (format in frame_priv.h).
 * Pure functions: no I/O, no allocation, no logging; the caller logs `why`.
 */
#include <stdbool.h>
#include <string.h>

#include "comch/frame_priv.h"

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static doca_error_t refuse_(const char **why, const char *text, doca_error_t err)
{
	*why = text;
	return err;
}

static int has_nul(const uint8_t *p, size_t n)
{
	return memchr(p, '\0', n) != NULL;
}

static doca_error_t parse_hello(struct ferry_frame *f, const char **why)
{
	const uint8_t *p = f->payload;
	struct ferry_frame_hello *h = &f->u.hello;

	if (f->payload_len < FERRY_FRAME_HELLO_FIXED)
		return refuse_(why, "HELLO shorter than its fixed part", DOCA_ERROR_INVALID_VALUE);
	h->max_msg_size = get_u32(p);
	h->recv_queue_size = get_u32(p + 4);
	h->machine = get_u32(p + 8);
	h->dev_len = get_u16(p + 12);
	h->name_len = get_u16(p + 14);
	if (h->dev_len == 0 || h->dev_len > FERRY_FRAME_DEV_MAX)
		return refuse_(why, "HELLO device identity length out of range", DOCA_ERROR_INVALID_VALUE);
	if (h->name_len == 0 || h->name_len > FERRY_FRAME_NAME_MAX)
		return refuse_(why, "HELLO server name length out of range", DOCA_ERROR_INVALID_VALUE);
	if ((uint32_t)FERRY_FRAME_HELLO_FIXED + h->dev_len + h->name_len != f->payload_len)
		return refuse_(why, "HELLO string lengths do not add up to the payload", DOCA_ERROR_INVALID_VALUE);
	h->dev = (const char *)(p + FERRY_FRAME_HELLO_FIXED);
	h->name = h->dev + h->dev_len;
	if (has_nul((const uint8_t *)h->dev, h->dev_len) || has_nul((const uint8_t *)h->name, h->name_len))
		return refuse_(why, "HELLO strings contain a NUL byte", DOCA_ERROR_INVALID_VALUE);
	if (h->max_msg_size == 0 || h->recv_queue_size == 0)
		return refuse_(why, "HELLO max message size and receive queue size must be non-zero",
			       DOCA_ERROR_INVALID_VALUE);
	return DOCA_SUCCESS;
}

static doca_error_t parse_welcome(struct ferry_frame *f, const char **why)
{
	if (f->payload_len != 12)
		return refuse_(why, "WELCOME payload is not 12 bytes", DOCA_ERROR_INVALID_VALUE);
	f->u.welcome.max_msg_size = get_u32(f->payload);
	f->u.welcome.recv_queue_size = get_u32(f->payload + 4);
	f->u.welcome.conn_id = get_u32(f->payload + 8);
	if (f->u.welcome.max_msg_size == 0 || f->u.welcome.recv_queue_size == 0)
		return refuse_(why, "WELCOME sizes must be non-zero", DOCA_ERROR_INVALID_VALUE);
	return DOCA_SUCCESS;
}

static doca_error_t parse_refuse(struct ferry_frame *f, const char **why)
{
	struct ferry_frame_refuse *r = &f->u.refuse;
	uint32_t code;

	if (f->payload_len < 6)
		return refuse_(why, "REFUSE shorter than its fixed part", DOCA_ERROR_INVALID_VALUE);
	code = get_u32(f->payload);
	r->reason_len = get_u16(f->payload + 4);
	if (code == 0 || code > DOCA_ERROR_TOO_BIG)
		return refuse_(why, "REFUSE carries an unknown error code", DOCA_ERROR_INVALID_VALUE);
	if (r->reason_len > FERRY_FRAME_REASON_MAX || 6u + r->reason_len != f->payload_len)
		return refuse_(why, "REFUSE reason length does not match the payload", DOCA_ERROR_INVALID_VALUE);
	r->error = (doca_error_t)code;
	r->reason = (const char *)(f->payload + 6);
	if (has_nul((const uint8_t *)r->reason, r->reason_len))
		return refuse_(why, "REFUSE reason contains a NUL byte", DOCA_ERROR_INVALID_VALUE);
	return DOCA_SUCCESS;
}

static bool desc_len_ok(uint16_t len)
{
	return len != 0 && len <= FERRY_FRAME_DESC_MAX;
}

static bool ring_cap_ok(uint32_t cap)
{
	return cap != 0 && cap <= FERRY_FRAME_RING_MAX && (cap & (cap - 1)) == 0;
}

static doca_error_t parse_consumer_up(struct ferry_frame *f, const char **why)
{
	struct ferry_frame_consumer_up *u = &f->u.up;

	if (f->payload_len < FERRY_FRAME_UP_FIXED)
		return refuse_(why, "CONSUMER_UP shorter than its fixed part", DOCA_ERROR_INVALID_VALUE);
	u->consumer_id = get_u32(f->payload);
	u->imm_data_len = get_u32(f->payload + 4);
	u->ring_cap = get_u32(f->payload + 8);
	u->desc_len = get_u16(f->payload + 12);
	u->ring_desc_len = get_u16(f->payload + 14);
	u->desc = f->payload + FERRY_FRAME_UP_FIXED;
	u->ring_desc = u->desc + u->desc_len;
	if (u->consumer_id == 0)
		return refuse_(why, "CONSUMER_UP with consumer id 0", DOCA_ERROR_INVALID_VALUE);
	if (u->imm_data_len > FERRY_FRAME_IMM_MAX)
		return refuse_(why, "CONSUMER_UP immediate data length above the cap", DOCA_ERROR_INVALID_VALUE);
	if (!ring_cap_ok(u->ring_cap))
		return refuse_(why, "CONSUMER_UP ring size is not a power of two in range", DOCA_ERROR_INVALID_VALUE);
	if (!desc_len_ok(u->desc_len) || !desc_len_ok(u->ring_desc_len) ||
	    FERRY_FRAME_UP_FIXED + (uint32_t)u->desc_len + u->ring_desc_len != f->payload_len)
		return refuse_(why, "CONSUMER_UP descriptor lengths do not match the payload",
			       DOCA_ERROR_INVALID_VALUE);
	return DOCA_SUCCESS;
}

static doca_error_t parse_consumer_down(struct ferry_frame *f, const char **why)
{
	if (f->payload_len != 4)
		return refuse_(why, "CONSUMER_DOWN payload is not 4 bytes", DOCA_ERROR_INVALID_VALUE);
	f->u.consumer_id = get_u32(f->payload);
	if (f->u.consumer_id == 0)
		return refuse_(why, "CONSUMER_DOWN with consumer id 0", DOCA_ERROR_INVALID_VALUE);
	return DOCA_SUCCESS;
}

static doca_error_t parse_done_ring(struct ferry_frame *f, const char **why)
{
	struct ferry_frame_done_ring *r = &f->u.done_ring;

	if (f->payload_len < FERRY_FRAME_DONE_RING_FIXED)
		return refuse_(why, "DONE_RING shorter than its fixed part", DOCA_ERROR_INVALID_VALUE);
	r->consumer_id = get_u32(f->payload);
	r->ring_cap = get_u32(f->payload + 4);
	r->desc_len = get_u16(f->payload + 8);
	r->desc = f->payload + FERRY_FRAME_DONE_RING_FIXED;
	if (r->consumer_id == 0)
		return refuse_(why, "DONE_RING with consumer id 0", DOCA_ERROR_INVALID_VALUE);
	if (!ring_cap_ok(r->ring_cap))
		return refuse_(why, "DONE_RING ring size is not a power of two in range", DOCA_ERROR_INVALID_VALUE);
	if (!desc_len_ok(r->desc_len) || FERRY_FRAME_DONE_RING_FIXED + (uint32_t)r->desc_len != f->payload_len)
		return refuse_(why, "DONE_RING descriptor length does not match the payload", DOCA_ERROR_INVALID_VALUE);
	return DOCA_SUCCESS;
}

doca_error_t ferry_frame_parse(const void *buf, size_t len, uint32_t max_msg_size, struct ferry_frame *out,
			       const char **why)
{
	const uint8_t *p = buf;
	uint32_t payload_len;

	if (buf == NULL || out == NULL || why == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (len < FERRY_FRAME_HDR_LEN)
		return refuse_(why, "frame shorter than its header", DOCA_ERROR_INVALID_VALUE);
	if (get_u32(p) != FERRY_FRAME_MAGIC)
		return refuse_(why, "bad frame magic", DOCA_ERROR_INVALID_VALUE);
	if (p[4] != FERRY_FRAME_VERSION)
		return refuse_(why, "unsupported frame version", DOCA_ERROR_UNSUPPORTED_VERSION);
	if (get_u16(p + 6) != 0)
		return refuse_(why, "reserved frame flags are set", DOCA_ERROR_INVALID_VALUE);
	payload_len = get_u32(p + 8);
	if ((size_t)payload_len != len - FERRY_FRAME_HDR_LEN)
		return refuse_(why, "frame length field does not match the datagram size", DOCA_ERROR_INVALID_VALUE);
	out->type = (enum ferry_frame_type)p[5];
	out->payload = p + FERRY_FRAME_HDR_LEN;
	out->payload_len = payload_len;
	switch (p[5]) {
	case FERRY_FRAME_HELLO:
		return parse_hello(out, why);
	case FERRY_FRAME_WELCOME:
		return parse_welcome(out, why);
	case FERRY_FRAME_REFUSE:
		return parse_refuse(out, why);
	case FERRY_FRAME_MSG:
		if (payload_len > max_msg_size)
			return refuse_(why, "MSG larger than the negotiated max message size", DOCA_ERROR_TOO_BIG);
		return DOCA_SUCCESS;
	case FERRY_FRAME_BYE:
		if (payload_len != 0)
			return refuse_(why, "BYE with a payload", DOCA_ERROR_INVALID_VALUE);
		return DOCA_SUCCESS;
	case FERRY_FRAME_CONSUMER_UP:
		return parse_consumer_up(out, why);
	case FERRY_FRAME_CONSUMER_DOWN:
		return parse_consumer_down(out, why);
	case FERRY_FRAME_DONE_RING:
		return parse_done_ring(out, why);
	default:
		return refuse_(why, "unknown frame type", DOCA_ERROR_INVALID_VALUE);
	}
}

void ferry_frame_put_header(uint8_t *buf, enum ferry_frame_type type, uint32_t payload_len)
{
	put_u32(buf, FERRY_FRAME_MAGIC);
	buf[4] = FERRY_FRAME_VERSION;
	buf[5] = (uint8_t)type;
	put_u16(buf + 6, 0);
	put_u32(buf + 8, payload_len);
}

size_t ferry_frame_build_hello(uint8_t *buf, uint32_t max_msg_size, uint32_t recv_queue_size, uint32_t machine,
			       const char *dev, const char *name)
{
	size_t dev_len = strlen(dev), name_len = strlen(name);
	uint8_t *p = buf + FERRY_FRAME_HDR_LEN;

	if (dev_len == 0 || dev_len > FERRY_FRAME_DEV_MAX || name_len == 0 || name_len > FERRY_FRAME_NAME_MAX)
		return 0;
	put_u32(p, max_msg_size);
	put_u32(p + 4, recv_queue_size);
	put_u32(p + 8, machine);
	put_u16(p + 12, (uint16_t)dev_len);
	put_u16(p + 14, (uint16_t)name_len);
	memcpy(p + FERRY_FRAME_HELLO_FIXED, dev, dev_len);
	memcpy(p + FERRY_FRAME_HELLO_FIXED + dev_len, name, name_len);
	ferry_frame_put_header(buf, FERRY_FRAME_HELLO, (uint32_t)(FERRY_FRAME_HELLO_FIXED + dev_len + name_len));
	return FERRY_FRAME_HDR_LEN + FERRY_FRAME_HELLO_FIXED + dev_len + name_len;
}

size_t ferry_frame_build_welcome(uint8_t *buf, uint32_t max_msg_size, uint32_t recv_queue_size, uint32_t conn_id)
{
	uint8_t *p = buf + FERRY_FRAME_HDR_LEN;

	put_u32(p, max_msg_size);
	put_u32(p + 4, recv_queue_size);
	put_u32(p + 8, conn_id);
	ferry_frame_put_header(buf, FERRY_FRAME_WELCOME, 12);
	return FERRY_FRAME_HDR_LEN + 12;
}

size_t ferry_frame_build_refuse(uint8_t *buf, doca_error_t error, const char *reason)
{
	size_t reason_len = strnlen(reason, FERRY_FRAME_REASON_MAX);
	uint8_t *p = buf + FERRY_FRAME_HDR_LEN;

	put_u32(p, (uint32_t)error);
	put_u16(p + 4, (uint16_t)reason_len);
	memcpy(p + 6, reason, reason_len);
	ferry_frame_put_header(buf, FERRY_FRAME_REFUSE, (uint32_t)(6 + reason_len));
	return FERRY_FRAME_HDR_LEN + 6 + reason_len;
}

size_t ferry_frame_build_consumer_up(uint8_t *buf, const struct ferry_frame_consumer_up *up)
{
	uint8_t *p = buf + FERRY_FRAME_HDR_LEN;
	uint32_t payload = FERRY_FRAME_UP_FIXED + (uint32_t)up->desc_len + up->ring_desc_len;

	if (!desc_len_ok(up->desc_len) || !desc_len_ok(up->ring_desc_len))
		return 0;
	put_u32(p, up->consumer_id);
	put_u32(p + 4, up->imm_data_len);
	put_u32(p + 8, up->ring_cap);
	put_u16(p + 12, up->desc_len);
	put_u16(p + 14, up->ring_desc_len);
	memcpy(p + FERRY_FRAME_UP_FIXED, up->desc, up->desc_len);
	memcpy(p + FERRY_FRAME_UP_FIXED + up->desc_len, up->ring_desc, up->ring_desc_len);
	ferry_frame_put_header(buf, FERRY_FRAME_CONSUMER_UP, payload);
	return FERRY_FRAME_HDR_LEN + payload;
}

size_t ferry_frame_build_consumer_down(uint8_t *buf, uint32_t consumer_id)
{
	put_u32(buf + FERRY_FRAME_HDR_LEN, consumer_id);
	ferry_frame_put_header(buf, FERRY_FRAME_CONSUMER_DOWN, 4);
	return FERRY_FRAME_DOWN_LEN;
}

size_t ferry_frame_build_done_ring(uint8_t *buf, const struct ferry_frame_done_ring *ring)
{
	uint8_t *p = buf + FERRY_FRAME_HDR_LEN;

	if (!desc_len_ok(ring->desc_len))
		return 0;
	put_u32(p, ring->consumer_id);
	put_u32(p + 4, ring->ring_cap);
	put_u16(p + 8, ring->desc_len);
	memcpy(p + FERRY_FRAME_DONE_RING_FIXED, ring->desc, ring->desc_len);
	ferry_frame_put_header(buf, FERRY_FRAME_DONE_RING, FERRY_FRAME_DONE_RING_FIXED + (uint32_t)ring->desc_len);
	return FERRY_FRAME_HDR_LEN + FERRY_FRAME_DONE_RING_FIXED + ring->desc_len;
}
