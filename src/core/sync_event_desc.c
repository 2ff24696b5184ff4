/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sync_event_desc.c - the sync event descriptor codec (format in
 * sync_event_priv.h). Pure: the bytes come from another process and are
 * only read within [buf, buf + len).
 */
#include <stdbool.h>
#include <string.h>

#include "common/ferry_bytes.h"
#include "core/sync_event_priv.h"

static size_t max_inner(bool net)
{
	return net ? SE_DESC_MAX_NET_INNER : SE_DESC_MAX_INNER;
}

static bool part_ok(const uint8_t *p, size_t len, bool net)
{
	return p != NULL && len != 0 && len <= max_inner(net);
}

size_t sync_event_desc_encode(const struct se_desc_parts *parts, uint8_t *out, size_t room)
{
	bool value = parts->value != NULL;
	size_t total = SE_DESC_HDR_LEN + parts->block_len + (value ? 4 + parts->value_len : 0);

	if (out == NULL || (value && parts->net) || !part_ok(parts->block, parts->block_len, parts->net) ||
	    (value && !part_ok(parts->value, parts->value_len, false)) || room < total)
		return 0;
	ferry_le_put32(out, SE_DESC_MAGIC);
	ferry_le_put16(out + 4, SE_DESC_VERSION);
	ferry_le_put16(out + 6, (uint16_t)((value ? SE_DESC_F_VALUE : 0) | (parts->net ? SE_DESC_F_NET : 0)));
	ferry_le_put32(out + 8, (uint32_t)parts->block_len);
	memcpy(out + SE_DESC_HDR_LEN, parts->block, parts->block_len);
	if (value) {
		uint8_t *p = out + SE_DESC_HDR_LEN + parts->block_len;

		ferry_le_put32(p, (uint32_t)parts->value_len);
		memcpy(p + 4, parts->value, parts->value_len);
	}
	return total;
}

/* Take a length-prefixed part at [*at, end): 4 bytes of length, then that many. */
static bool take_part(const uint8_t *buf, size_t end, size_t *at, bool prefixed, uint32_t n_if_not, size_t max,
		      const uint8_t **part, size_t *part_len)
{
	uint32_t n = n_if_not;

	if (prefixed) {
		if (end - *at < 4)
			return false;
		n = ferry_le_get32(buf + *at);
		*at += 4;
	}
	/* Compare against what is left, so nothing can wrap. */
	if (n == 0 || n > max || n > end - *at)
		return false;
	*part = buf + *at;
	*part_len = n;
	*at += n;
	return true;
}

doca_error_t sync_event_desc_decode(const uint8_t *buf, size_t len, struct se_desc_parts *parts, const char **why)
{
	struct se_desc_parts p = {NULL, 0, NULL, 0, false};
	size_t at = SE_DESC_HDR_LEN;
	uint16_t flags;

	if (buf == NULL || len < SE_DESC_HDR_LEN) {
		*why = "shorter than a sync event descriptor's header";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ferry_le_get32(buf) != SE_DESC_MAGIC) {
		*why = "not a sync event descriptor (bad magic)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ferry_le_get16(buf + 4) != SE_DESC_VERSION) {
		*why = "a sync event descriptor of an unknown version";
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	flags = ferry_le_get16(buf + 6);
	if ((flags & ~(SE_DESC_F_VALUE | SE_DESC_F_NET)) != 0) {
		*why = "unknown flags are set";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((flags & SE_DESC_F_VALUE) != 0 && (flags & SE_DESC_F_NET) != 0) {
		*why = "a network export has one memory descriptor, not a separate value";
		return DOCA_ERROR_INVALID_VALUE;
	}
	p.net = (flags & SE_DESC_F_NET) != 0;
	if (!take_part(buf, len, &at, false, ferry_le_get32(buf + 8), max_inner(p.net), &p.block, &p.block_len)) {
		*why = "the block's memory descriptor is empty, too large or truncated";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if ((flags & SE_DESC_F_VALUE) != 0 &&
	    !take_part(buf, len, &at, true, 0, SE_DESC_MAX_INNER, &p.value, &p.value_len)) {
		*why = "the value's memory descriptor is empty, too large or truncated";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (at != len) {
		*why = "bytes follow the last memory descriptor";
		return DOCA_ERROR_INVALID_VALUE;
	}
	*parts = p;
	return DOCA_SUCCESS;
}
