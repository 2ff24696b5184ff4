/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * file_copy_msg.c - the file copy example's wire format and checksum (see
 * file_copy.h): the one parser of bytes from the other side, kept apart from
 * everything else so that the fuzz target (tests/examples/fuzz_file_copy_msg.c)
 * links it alone.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "file_copy.h"

/* ---- little-endian fields at fixed offsets ---- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The header both messages start with: magic, version, type. */
static void put_header(uint8_t *out, uint16_t type)
{
	put32(out, FC_MAGIC);
	put16(out + 4, FC_VERSION);
	put16(out + 6, (uint16_t)type);
}

static bool check_header(const uint8_t *msg, size_t len, size_t min_len, uint16_t type, char *why, size_t why_len)
{
	if (len < min_len) {
		snprintf(why, why_len, "truncated message: %zu bytes, the fixed part alone is %zu", len, min_len);
		return false;
	}
	if (get32(msg) != FC_MAGIC) {
		snprintf(why, why_len, "bad magic 0x%08x (want 0x%08x)", get32(msg), FC_MAGIC);
		return false;
	}
	if (get16(msg + 4) != FC_VERSION) {
		snprintf(why, why_len, "unsupported version %u (this program speaks version %u)", get16(msg + 4),
			 FC_VERSION);
		return false;
	}
	if (get16(msg + 6) != type) {
		snprintf(why, why_len, "message type %u where %u was expected", get16(msg + 6), type);
		return false;
	}
	return true;
}

/* ---- request: header, desc_len, reserved, file_size, checksum, host_addr, buf_len, descriptor ---- */

size_t fc_request_encode(const struct fc_request *req, uint8_t *out)
{
	if (req->desc_len == 0 || req->desc_len > FC_MAX_DESC_LEN)
		return 0;
	put_header(out, FC_TYPE_REQUEST);
	put32(out + 8, req->desc_len);
	put32(out + 12, 0);
	put64(out + 16, req->file_size);
	put64(out + 24, req->checksum);
	put64(out + 32, req->host_addr);
	put64(out + 40, req->buf_len);
	memcpy(out + FC_REQUEST_HDR_LEN, req->desc, req->desc_len);
	return FC_REQUEST_HDR_LEN + req->desc_len;
}

/* The fields' own bounds; the import and the DPU's size limit are checked by the caller. */
static bool check_request_fields(const struct fc_request *req, char *why, size_t why_len)
{
	if (req->buf_len == 0 || req->host_addr == 0) {
		snprintf(why, why_len, "empty buffer (address 0x%llx, length %llu)", (unsigned long long)req->host_addr,
			 (unsigned long long)req->buf_len);
		return false;
	}
	if (req->host_addr > UINT64_MAX - req->buf_len) {
		snprintf(why, why_len, "buffer 0x%llx + %llu wraps around the address space",
			 (unsigned long long)req->host_addr, (unsigned long long)req->buf_len);
		return false;
	}
	if (req->file_size > req->buf_len) {
		snprintf(why, why_len, "file size %llu is beyond the buffer's length %llu",
			 (unsigned long long)req->file_size, (unsigned long long)req->buf_len);
		return false;
	}
	return true;
}

enum fc_status fc_request_decode(const uint8_t *msg, size_t len, struct fc_request *req, char *why, size_t why_len)
{
	if (!check_header(msg, len, FC_REQUEST_HDR_LEN, FC_TYPE_REQUEST, why, why_len))
		return FC_STATUS_BAD_REQUEST;
	req->desc_len = get32(msg + 8);
	if (get32(msg + 12) != 0) {
		snprintf(why, why_len, "reserved field is 0x%08x, not 0", get32(msg + 12));
		return FC_STATUS_BAD_REQUEST;
	}
	if (req->desc_len == 0 || req->desc_len > FC_MAX_DESC_LEN) {
		snprintf(why, why_len, "descriptor length %u is outside 1..%u", req->desc_len, FC_MAX_DESC_LEN);
		return FC_STATUS_BAD_REQUEST;
	}
	if (len != FC_REQUEST_HDR_LEN + (size_t)req->desc_len) {
		snprintf(why, why_len, "message is %zu bytes, but its descriptor length %u says %zu", len,
			 req->desc_len, FC_REQUEST_HDR_LEN + (size_t)req->desc_len);
		return FC_STATUS_BAD_REQUEST;
	}
	req->file_size = get64(msg + 16);
	req->checksum = get64(msg + 24);
	req->host_addr = get64(msg + 32);
	req->buf_len = get64(msg + 40);
	req->desc = msg + FC_REQUEST_HDR_LEN;
	return check_request_fields(req, why, why_len) ? FC_STATUS_OK : FC_STATUS_BAD_REQUEST;
}

/* ---- reply: header, status, reserved, bytes, nsec ---- */

void fc_reply_encode(const struct fc_reply *rep, uint8_t out[FC_REPLY_LEN])
{
	put_header(out, FC_TYPE_REPLY);
	put32(out + 8, rep->status);
	put32(out + 12, 0);
	put64(out + 16, rep->bytes);
	put64(out + 24, rep->nsec);
}

enum fc_status fc_reply_decode(const uint8_t *msg, size_t len, struct fc_reply *rep, char *why, size_t why_len)
{
	if (!check_header(msg, len, FC_REPLY_LEN, FC_TYPE_REPLY, why, why_len))
		return FC_STATUS_BAD_REQUEST;
	if (len != FC_REPLY_LEN) {
		snprintf(why, why_len, "reply is %zu bytes, not %u", len, FC_REPLY_LEN);
		return FC_STATUS_BAD_REQUEST;
	}
	if (get32(msg + 12) != 0) {
		snprintf(why, why_len, "reply's reserved field is %#x, not 0", get32(msg + 12));
		return FC_STATUS_BAD_REQUEST;
	}
	rep->status = get32(msg + 8);
	rep->bytes = get64(msg + 16);
	rep->nsec = get64(msg + 24);
	if (rep->status > FC_STATUS_MAX) {
		snprintf(why, why_len, "unknown status %u", rep->status);
		return FC_STATUS_BAD_REQUEST;
	}
	return FC_STATUS_OK;
}

const char *fc_status_name(uint32_t status)
{
	static const char *const names[] = {
		[FC_STATUS_OK] = "ok",
		[FC_STATUS_BAD_REQUEST] = "bad request",
		[FC_STATUS_TOO_LARGE] = "file too large",
		[FC_STATUS_BAD_EXPORT] = "bad export",
		[FC_STATUS_NO_MEMORY] = "out of memory",
		[FC_STATUS_DMA_FAILED] = "DMA failed",
		[FC_STATUS_CHECKSUM] = "checksum mismatch",
		[FC_STATUS_WRITE_FAILED] = "cannot write the output file",
	};

	return status <= FC_STATUS_MAX ? names[status] : "unknown status";
}

/* ---- checksum and test data ---- */

#define FC_P1 0x9e3779b185ebca87ull
#define FC_P2 0xc2b2ae3d27d4eb4full
#define FC_P3 0x165667b19e3779f9ull

static uint64_t rotl64(uint64_t v, int r)
{
	return (v << r) | (v >> (64 - r));
}

static uint64_t mix_lane(uint64_t lane, uint64_t word)
{
	return rotl64(lane + word * FC_P2, 31) * FC_P1;
}

uint64_t fc_checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t l0 = FC_P1, l1 = FC_P2, l2 = 0, l3 = ~FC_P1;
	size_t i = 0;
	uint64_t h;

	/* Four independent lanes keep several multiplies in flight: memory speed, not latency bound. */
	for (; i + 32 <= len; i += 32) {
		l0 = mix_lane(l0, get64(p + i));
		l1 = mix_lane(l1, get64(p + i + 8));
		l2 = mix_lane(l2, get64(p + i + 16));
		l3 = mix_lane(l3, get64(p + i + 24));
	}
	h = rotl64(l0, 1) + rotl64(l1, 7) + rotl64(l2, 12) + rotl64(l3, 18) + (uint64_t)len;
	for (; i + 8 <= len; i += 8)
		h = rotl64(h ^ mix_lane(0, get64(p + i)), 27) * FC_P1;
	for (; i < len; i++)
		h = rotl64(h ^ (p[i] * FC_P3), 11) * FC_P1;
	h ^= h >> 33;
	h *= FC_P2;
	h ^= h >> 29;
	h *= FC_P3;
	return h ^ (h >> 32);
}

void fc_fill_random(void *data, size_t len, uint64_t seed)
{
	uint8_t *p = data;
	uint64_t x = seed != 0 ? seed : FC_P1;
	size_t i = 0;

	for (; i < len; i += 8) {
		uint64_t v;

		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		v = x * 0x2545f4914f6cdd1dull;
		if (len - i >= 8)
			put64(p + i, v);
		else
			for (size_t k = 0; i + k < len; k++)
				p[i + k] = (uint8_t)(v >> (8 * k));
	}
}
