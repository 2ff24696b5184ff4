/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_json.c - the strict JSON reader behind doca_argp's -j/--json (see
 * json_priv.h for what it accepts). A recursive-descent parser over a bounded
 * byte range: every read checks the end first, recursion stops at
 * FERRY_JSON_MAX_DEPTH, and the first error stops the parse and frees the tree.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argp/json_priv.h"
#include "common/ferry_util.h"

struct reader {
	const char *text;
	size_t len;
	size_t pos;
	unsigned int line;
	size_t line_start;
	char *err;
	size_t err_len;
	doca_error_t status;
};

static void __attribute__((format(printf, 2, 3))) fail(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->status != DOCA_SUCCESS)
		return; /* keep the first error: it is the cause */
	r->status = DOCA_ERROR_INVALID_VALUE;
	if (r->err == NULL || r->err_len == 0)
		return;
	n = snprintf(r->err, r->err_len, "line %u, column %zu: ", r->line, r->pos - r->line_start + 1);
	if (n < 0 || (size_t)n >= r->err_len)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->err_len - (size_t)n, fmt, ap);
	va_end(ap);
}

static void fail_no_memory(struct reader *r)
{
	bool first = r->status == DOCA_SUCCESS;

	fail(r, "out of memory");
	if (first)
		r->status = DOCA_ERROR_NO_MEMORY;
}

static bool at_end(const struct reader *r)
{
	return r->pos >= r->len;
}

static int peek(const struct reader *r)
{
	return at_end(r) ? -1 : (unsigned char)r->text[r->pos];
}

static void advance(struct reader *r)
{
	if (r->text[r->pos] == '\n') {
		r->line++;
		r->line_start = r->pos + 1;
	}
	r->pos++;
}

/* Skips a comment that starts at pos ('/' seen); false (and an error) if it is not one. */
static bool skip_comment(struct reader *r)
{
	int kind = r->pos + 1 < r->len ? (unsigned char)r->text[r->pos + 1] : -1;

	if (kind == '/') {
		while (!at_end(r) && peek(r) != '\n')
			advance(r);
		return true;
	}
	if (kind != '*') {
		fail(r, "'/' that does not start a comment");
		return false;
	}
	advance(r);
	advance(r);
	while (!at_end(r)) {
		if (peek(r) == '*' && r->pos + 1 < r->len && r->text[r->pos + 1] == '/') {
			advance(r);
			advance(r);
			return true;
		}
		advance(r);
	}
	fail(r, "comment not closed before the end of the file");
	return false;
}

/* Skips blanks and comments; false on a broken comment. */
static bool skip_space(struct reader *r)
{
	while (!at_end(r)) {
		int c = peek(r);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			advance(r);
		else if (c == '/') {
			if (!skip_comment(r))
				return false;
		} else
			break;
	}
	return true;
}

static struct ferry_json *new_value(struct reader *r, enum ferry_json_type type)
{
	struct ferry_json *v = calloc(1, sizeof(*v));

	if (v == NULL) {
		fail_no_memory(r);
		return NULL;
	}
	v->type = type;
	v->line = r->line;
	return v;
}

void ferry_json_free(struct ferry_json *value)
{
	while (value != NULL) {
		struct ferry_json *next = value->next;

		ferry_json_free(value->first);
		free(value->key);
		free(value->string);
		free(value);
		value = next;
	}
}

static bool expect_word(struct reader *r, const char *word)
{
	size_t n = strlen(word);

	if (r->len - r->pos < n || memcmp(r->text + r->pos, word, n) != 0) {
		fail(r, "unexpected character '%c' (expected a value)", r->text[r->pos]);
		return false;
	}
	r->pos += n;
	return true;
}

/* ---- strings ---- */

struct text_buf {
	char *data;
	size_t len;
	size_t cap;
};

static bool buf_put(struct reader *r, struct text_buf *b, const char *bytes, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap == 0 ? 32 : b->cap;
		char *grown;

		while (cap < b->len + n + 1)
			cap *= 2;
		grown = realloc(b->data, cap);
		if (grown == NULL) {
			fail_no_memory(r);
			return false;
		}
		b->data = grown;
		b->cap = cap;
	}
	memcpy(b->data + b->len, bytes, n);
	b->len += n;
	b->data[b->len] = '\0';
	return true;
}

/* Reads the 4 hex digits after "\u"; -1 on error. */
static long read_hex4(struct reader *r)
{
	long v = 0;

	if (r->len - r->pos < 4) {
		fail(r, "\\u escape needs 4 hex digits");
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		int d = ferry_hex_value((unsigned char)r->text[r->pos + (size_t)i]);

		if (d < 0) {
			fail(r, "\\u escape needs 4 hex digits");
			return -1;
		}
		v = v * 16 + d;
	}
	r->pos += 4;
	return v;
}

static size_t utf8_encode(unsigned long cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* "\uXXXX", possibly a surrogate pair; pos is after the 'u'. */
static bool read_unicode_escape(struct reader *r, struct text_buf *b)
{
	long hi = read_hex4(r);
	unsigned long cp;
	char utf8[4];

	if (hi < 0)
		return false;
	cp = (unsigned long)hi;
	if (hi >= 0xdc00 && hi <= 0xdfff) {
		fail(r, "\\u%04lx is a lone low surrogate", (unsigned long)hi);
		return false;
	}
	if (hi >= 0xd800 && hi <= 0xdbff) {
		long lo;

		if (r->len - r->pos < 2 || r->text[r->pos] != '\\' || r->text[r->pos + 1] != 'u') {
			fail(r, "\\u%04lx is a high surrogate without its low half", (unsigned long)hi);
			return false;
		}
		r->pos += 2;
		lo = read_hex4(r);
		if (lo < 0)
			return false;
		if (lo < 0xdc00 || lo > 0xdfff) {
			fail(r, "\\u%04lx is a high surrogate without its low half", (unsigned long)hi);
			return false;
		}
		cp = 0x10000 + (((unsigned long)hi - 0xd800) << 10) + ((unsigned long)lo - 0xdc00);
	}
	if (cp == 0) {
		fail(r, "\\u0000 would cut the string short");
		return false;
	}
	return buf_put(r, b, utf8, utf8_encode(cp, utf8));
}

static bool read_escape(struct reader *r, struct text_buf *b)
{
	static const char from[] = "\"\\/bfnrt";
	static const char to[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	int c;

	advance(r); /* the backslash */
	if (at_end(r)) {
		fail(r, "string not closed before the end of the file");
		return false;
	}
	c = peek(r);
	r->pos++;
	if (c == 'u')
		return read_unicode_escape(r, b);
	hit = c != 0 ? strchr(from, c) : NULL;
	if (hit == NULL) {
		r->pos--;
		fail(r, "invalid escape '\\%c' in a string", c);
		return false;
	}
	return buf_put(r, b, &to[hit - from], 1);
}

/* A string whose opening quote is at pos; returns a malloc'ed copy or NULL. */
static char *read_string(struct reader *r)
{
	struct text_buf b = {0};

	advance(r); /* opening quote */
	if (!buf_put(r, &b, "", 0))
		return NULL;
	for (;;) {
		int c = peek(r);

		if (c < 0) {
			fail(r, "string not closed before the end of the file");
			break;
		}
		if (c == '"') {
			advance(r);
			return b.data;
		}
		if (c < 0x20) {
			fail(r, "control character 0x%02x inside a string (escape it)", (unsigned int)c);
			break;
		}
		if (c == '\\') {
			if (!read_escape(r, &b))
				break;
			continue;
		}
		if (!buf_put(r, &b, r->text + r->pos, 1))
			break;
		r->pos++;
	}
	free(b.data);
	return NULL;
}

/* ---- numbers ---- */

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static size_t skip_digits(const struct reader *r, size_t p)
{
	while (p < r->len && is_digit((unsigned char)r->text[p]))
		p++;
	return p;
}

/* Scans the JSON number grammar from pos; returns its end or 0 when malformed. */
static size_t scan_number(const struct reader *r, bool *integral)
{
	size_t p = r->pos, digits;

	*integral = true;
	if (p < r->len && r->text[p] == '-')
		p++;
	digits = p;
	p = skip_digits(r, p);
	if (p == digits || (r->text[digits] == '0' && p - digits > 1))
		return 0; /* no digits, or a leading zero */
	if (p < r->len && r->text[p] == '.') {
		size_t frac = ++p;

		p = skip_digits(r, p);
		if (p == frac)
			return 0;
		*integral = false;
	}
	if (p < r->len && (r->text[p] == 'e' || r->text[p] == 'E')) {
		size_t exp;

		p++;
		if (p < r->len && (r->text[p] == '+' || r->text[p] == '-'))
			p++;
		exp = p;
		p = skip_digits(r, p);
		if (p == exp)
			return 0;
		*integral = false;
	}
	return p;
}

static struct ferry_json *read_number(struct reader *r)
{
	bool integral;
	size_t end = scan_number(r, &integral);
	char copy[64];
	struct ferry_json *v;
	char *stop;

	if (end == 0 || end - r->pos >= sizeof(copy)) {
		fail(r, end == 0 ? "malformed number" : "number longer than %zu characters", sizeof(copy) - 1);
		return NULL;
	}
	memcpy(copy, r->text + r->pos, end - r->pos);
	copy[end - r->pos] = '\0';
	v = new_value(r, FERRY_JSON_DOUBLE);
	if (v == NULL)
		return NULL;
	errno = 0;
	v->number = strtod(copy, &stop);
	if (!isfinite(v->number)) {
		fail(r, "number %s is out of range", copy);
		free(v);
		return NULL;
	}
	if (integral) {
		long long i;

		errno = 0;
		i = strtoll(copy, &stop, 10);
		if (errno == 0 && *stop == '\0') {
			v->type = FERRY_JSON_INT;
			v->integer = i;
		}
	}
	r->pos = end;
	return v;
}

/* ---- containers ---- */

static struct ferry_json *read_value(struct reader *r, unsigned int depth);

/* Appends @p v to @p parent's member list, keeping file order. */
static void append(struct ferry_json *parent, struct ferry_json **tail, struct ferry_json *v)
{
	if (*tail == NULL)
		parent->first = v;
	else
		(*tail)->next = v;
	*tail = v;
	parent->count++;
}

/* After a member: ',' continues (true), the closer ends (*done), anything else fails. */
static bool after_member(struct reader *r, char closer, bool *done)
{
	if (!skip_space(r))
		return false;
	if (peek(r) == ',') {
		advance(r);
		return true;
	}
	if (peek(r) == closer) {
		advance(r);
		*done = true;
		return true;
	}
	if (at_end(r))
		fail(r, "'%c' missing before the end of the file", closer);
	else
		fail(r, "expected ',' or '%c', not '%c'", closer, r->text[r->pos]);
	return false;
}

/* Reads members until the closer; for objects, each one "key": value. */
static bool read_members(struct reader *r, struct ferry_json *c, char closer, unsigned int depth)
{
	struct ferry_json *tail = NULL;
	bool done = false;

	if (!skip_space(r))
		return false;
	if (peek(r) == closer) {
		advance(r);
		return true;
	}
	while (!done) {
		char *key = NULL;
		struct ferry_json *v;

		if (!skip_space(r))
			return false;
		if (closer == '}') {
			if (peek(r) != '"') {
				fail(r, at_end(r) ? "'}' missing before the end of the file"
						  : "expected a member name in quotes");
				return false;
			}
			key = read_string(r);
			if (key == NULL)
				return false;
			if (ferry_json_member(c, key) != NULL) {
				fail(r, "key \"%s\" appears twice in one object", key);
				free(key);
				return false;
			}
			if (!skip_space(r) || peek(r) != ':') {
				fail(r, "expected ':' after member name \"%s\"", key);
				free(key);
				return false;
			}
			advance(r);
		}
		v = read_value(r, depth + 1);
		if (v == NULL) {
			free(key);
			return false;
		}
		v->key = key;
		append(c, &tail, v);
		if (!after_member(r, closer, &done))
			return false;
	}
	return true;
}

static struct ferry_json *read_container(struct reader *r, enum ferry_json_type type, unsigned int depth)
{
	struct ferry_json *c;

	if (depth >= FERRY_JSON_MAX_DEPTH) {
		fail(r, "nesting deeper than %d levels", FERRY_JSON_MAX_DEPTH);
		return NULL;
	}
	c = new_value(r, type);
	if (c == NULL)
		return NULL;
	advance(r); /* '[' or '{' */
	if (!read_members(r, c, type == FERRY_JSON_ARRAY ? ']' : '}', depth)) {
		ferry_json_free(c);
		return NULL;
	}
	return c;
}

static struct ferry_json *read_literal(struct reader *r, const char *word, enum ferry_json_type type, bool value)
{
	struct ferry_json *v;

	if (!expect_word(r, word))
		return NULL;
	v = new_value(r, type);
	if (v != NULL)
		v->boolean = value;
	return v;
}

static struct ferry_json *read_value(struct reader *r, unsigned int depth)
{
	int c;
	struct ferry_json *v;

	if (!skip_space(r))
		return NULL;
	c = peek(r);
	switch (c) {
	case -1:
		fail(r, "a value is missing before the end of the file");
		return NULL;
	case '{':
		return read_container(r, FERRY_JSON_OBJECT, depth);
	case '[':
		return read_container(r, FERRY_JSON_ARRAY, depth);
	case '"': {
		char *s = read_string(r);

		if (s == NULL)
			return NULL;
		v = new_value(r, FERRY_JSON_STRING);
		if (v == NULL) {
			free(s);
			return NULL;
		}
		v->string = s;
		return v;
	}
	case 't':
		return read_literal(r, "true", FERRY_JSON_BOOL, true);
	case 'f':
		return read_literal(r, "false", FERRY_JSON_BOOL, false);
	case 'n':
		return read_literal(r, "null", FERRY_JSON_NULL, false);
	default:
		if (c == '-' || is_digit(c))
			return read_number(r);
		if (c == 0)
			fail(r, "NUL byte in the text");
		else if (c < 0x20 || c >= 0x7f)
			fail(r, "unexpected byte 0x%02x (expected a value)", (unsigned int)c);
		else
			fail(r, "unexpected character '%c' (expected a value)", c);
		return NULL;
	}
}

doca_error_t ferry_json_parse(const char *text, size_t len, struct ferry_json **root, char *err, size_t err_len)
{
	struct reader r = {.text = text, .len = len, .line = 1, .err = err, .err_len = err_len};
	struct ferry_json *v;

	if (err != NULL && err_len > 0)
		err[0] = '\0';
	if (root == NULL || (text == NULL && len > 0)) {
		if (err != NULL && err_len > 0)
			snprintf(err, err_len, "no text or no place for the result");
		return DOCA_ERROR_INVALID_VALUE;
	}
	*root = NULL;
	if (text == NULL)
		r.text = "";
	v = read_value(&r, 0);
	if (v != NULL && skip_space(&r) && !at_end(&r))
		fail(&r, "text after the end of the top-level value");
	if (r.status != DOCA_SUCCESS) {
		ferry_json_free(v);
		return r.status;
	}
	*root = v;
	return DOCA_SUCCESS;
}

const struct ferry_json *ferry_json_member(const struct ferry_json *obj, const char *key)
{
	if (obj == NULL || key == NULL || obj->type != FERRY_JSON_OBJECT)
		return NULL;
	for (const struct ferry_json *m = obj->first; m != NULL; m = m->next)
		if (m->key != NULL && strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

const char *ferry_json_type_name(enum ferry_json_type type)
{
	switch (type) {
	case FERRY_JSON_NULL:
		return "null";
	case FERRY_JSON_BOOL:
		return "boolean";
	case FERRY_JSON_INT:
		return "integer";
	case FERRY_JSON_DOUBLE:
		return "number";
	case FERRY_JSON_STRING:
		return "string";
	case FERRY_JSON_ARRAY:
		return "array";
	case FERRY_JSON_OBJECT:
		return "object";
	}
	return "?";
}
