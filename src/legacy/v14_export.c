/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * v14_export.c - the DOCA 1.3/1.4 export descriptor codec (format in
 * v14_export.h). Pure: the text comes from another process.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "legacy/v14_export.h"

#define KEY_ADDR   (1u << 0)
#define KEY_LEN    (1u << 1)
#define KEY_EXPORT (1u << 2)
#define KEYS_ALL   (KEY_ADDR | KEY_LEN | KEY_EXPORT)

static const char hex_digits[] = "0123456789abcdef";

size_t v14_export_encode(uint64_t addr, uint64_t len, const uint8_t *blob, size_t blob_len, char *out, size_t room)
{
	int head;
	size_t at;

	if (out == NULL || blob == NULL || blob_len == 0 || blob_len > V14_EXPORT_MAX_BLOB || addr > INT64_MAX ||
	    len == 0 || len > INT64_MAX || room > V14_EXPORT_MAX_LEN)
		return 0;
	head = snprintf(out, room, "{\"addr\": %" PRIu64 ", \"len\": %" PRIu64 ", \"ferry_export\": \"", addr, len);
	if (head < 0 || (size_t)head >= room)
		return 0;
	at = (size_t)head;
	/* Hex, the closing quote and brace, the NUL. */
	if (room - at < blob_len * 2 + 3)
		return 0;
	for (size_t i = 0; i < blob_len; i++) {
		out[at++] = hex_digits[blob[i] >> 4];
		out[at++] = hex_digits[blob[i] & 0xf];
	}
	out[at++] = '"';
	out[at++] = '}';
	out[at++] = '\0';
	return at;
}

/* A cursor over [p, end): every read checks end first. */
struct cursor {
	const uint8_t *p;
	const uint8_t *end;
};

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static bool take(struct cursor *c, uint8_t ch)
{
	if (c->p == c->end || *c->p != ch)
		return false;
	c->p++;
	return true;
}

/* A string without escapes: [*s, *s + *n) between the quotes. */
static bool take_string(struct cursor *c, const uint8_t **s, size_t *n)
{
	const uint8_t *q;

	if (!take(c, '"'))
		return false;
	for (q = c->p; q < c->end && *q != '"'; q++)
		if (*q == '\\' || *q < 0x20)
			return false;
	if (q == c->end)
		return false;
	*s = c->p;
	*n = (size_t)(q - c->p);
	c->p = q + 1;
	return true;
}

/* A non-negative decimal integer up to INT64_MAX, no leading zeros, no sign, fraction or exponent. */
static bool take_int64(struct cursor *c, uint64_t *out)
{
	uint64_t v = 0;
	const uint8_t *start = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		uint64_t d = (uint64_t)(*c->p - '0');

		if (v > (INT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		c->p++;
	}
	if (c->p == start || (*start == '0' && c->p - start > 1))
		return false;
	*out = v;
	return true;
}

static int hex_value(uint8_t ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

static bool key_is(const uint8_t *s, size_t n, const char *key)
{
	return n == strlen(key) && memcmp(s, key, n) == 0;
}

static doca_error_t refuse(const char **why, const char *text)
{
	*why = text;
	return DOCA_ERROR_INVALID_VALUE;
}

doca_error_t v14_export_decode(const uint8_t *text, size_t text_len, uint64_t *addr, uint64_t *len, uint8_t *blob,
			       size_t *blob_len, const char **why)
{
	struct cursor c;
	const uint8_t *nul;
	unsigned int seen = 0;

	if (text == NULL || text_len == 0)
		return refuse(why, "the descriptor is empty");
	if (text_len > V14_EXPORT_MAX_LEN)
		return refuse(why, "the descriptor is longer than 1024 bytes");
	nul = memchr(text, '\0', text_len);
	if (nul == NULL)
		return refuse(why, "the descriptor is not NUL-terminated within its length");
	c.p = text;
	c.end = nul;
	skip_ws(&c);
	if (!take(&c, '{'))
		return refuse(why, "the descriptor is not a JSON object");
	for (int member = 0; member < 3; member++) {
		const uint8_t *key, *val;
		size_t key_len, val_len;
		unsigned int bit;

		skip_ws(&c);
		if (member > 0) {
			if (!take(&c, ','))
				return refuse(why, "the descriptor's members are not separated by commas");
			skip_ws(&c);
		}
		if (!take_string(&c, &key, &key_len))
			return refuse(why, "a key of the descriptor is not a plain string");
		if (key_is(key, key_len, "addr"))
			bit = KEY_ADDR;
		else if (key_is(key, key_len, "len"))
			bit = KEY_LEN;
		else if (key_is(key, key_len, "ferry_export"))
			bit = KEY_EXPORT;
		else
			return refuse(why, "the descriptor has a key other than addr, len and ferry_export");
		if (seen & bit)
			return refuse(why, "the descriptor repeats a key");
		seen |= bit;
		skip_ws(&c);
		if (!take(&c, ':'))
			return refuse(why, "a key of the descriptor has no ':'");
		skip_ws(&c);
		if (bit == KEY_ADDR || bit == KEY_LEN) {
			if (!take_int64(&c, bit == KEY_ADDR ? addr : len))
				return refuse(why, "addr or len is not an integer from 0 to 2^63-1");
			continue;
		}
		if (!take_string(&c, &val, &val_len))
			return refuse(why, "ferry_export is not a plain string");
		if (val_len == 0 || val_len % 2 != 0 || val_len / 2 > V14_EXPORT_MAX_BLOB)
			return refuse(why, "ferry_export has an odd or out-of-range number of hex digits");
		for (size_t i = 0; i < val_len / 2; i++) {
			int hi = hex_value(val[2 * i]), lo = hex_value(val[2 * i + 1]);

			if (hi < 0 || lo < 0)
				return refuse(why, "ferry_export holds a character that is not a lowercase hex digit");
			blob[i] = (uint8_t)(hi << 4 | lo);
		}
		*blob_len = val_len / 2;
	}
	skip_ws(&c);
	if (!take(&c, '}'))
		return refuse(why, "the descriptor has more than addr, len and ferry_export, or no closing '}'");
	skip_ws(&c);
	if (c.p != c.end)
		return refuse(why, "the descriptor has text after its closing '}'");
	if (seen != KEYS_ALL) /* cannot happen after three distinct keys; kept as the rule's statement */
		return refuse(why, "the descriptor lacks addr, len or ferry_export");
	if (*len == 0)
		return refuse(why, "the descriptor's len is 0");
	return DOCA_SUCCESS;
}
