/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sync_event_desc.c - the sync event descriptor codec (format in
 * sync_event_priv.h). Pure: the bytes come from another process and are
 * only read within [buf, buf + len).
 */
#include <string.h>

#include "core/sync_event_priv.h"

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

size_t sync_event_desc_encode(const uint8_t *inner, size_t inner_len, uint8_t *out, size_t room)
{
	if (inner == NULL || out == NULL || inner_len == 0 || inner_len > SE_DESC_MAX_INNER ||
	    room < SE_DESC_HDR_LEN + inner_len)
		return 0;
	put_le32(out, SE_DESC_MAGIC);
	put_le16(out + 4, SE_DESC_VERSION);
	put_le16(out + 6, 0);
	put_le32(out + 8, (uint32_t)inner_len);
	memcpy(out + SE_DESC_HDR_LEN, inner, inner_len);
	return SE_DESC_HDR_LEN + inner_len;
}

doca_error_t sync_event_desc_decode(const uint8_t *buf, size_t len, const uint8_t **inner, size_t *inner_len,
				    const char **why)
{
	uint32_t n;

	if (buf == NULL || len < SE_DESC_HDR_LEN) {
		*why = "shorter than a sync event descriptor's header";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (get_le32(buf) != SE_DESC_MAGIC) {
		*why = "not a sync event descriptor (bad magic)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (get_le16(buf + 4) != SE_DESC_VERSION) {
		*why = "a sync event descriptor of an unknown version";
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (get_le16(buf + 6) != 0) {
		*why = "reserved bits are set";
		return DOCA_ERROR_INVALID_VALUE;
	}
	n = get_le32(buf + 8);
	if (n == 0 || n > SE_DESC_MAX_INNER) {
		*why = "the memory descriptor's length is 0 or too large";
		return DOCA_ERROR_INVALID_VALUE;
	}
	/* Compare against what is left, so nothing can wrap. */
	if ((size_t)n != len - SE_DESC_HDR_LEN) {
		*why = "length disagrees with the memory descriptor's length (truncated or padded)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	*inner = buf + SE_DESC_HDR_LEN;
	*inner_len = n;
	return DOCA_SUCCESS;
}
