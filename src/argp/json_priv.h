/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * json_priv.h - a small, strict JSON reader for doca_argp's -j/--json files.
 *
 * ferry_json_parse() is a pure function of its bytes: no I/O, no logging, no
 * globals. It takes RFC 8259 JSON plus the two things DOCA's configuration files
 * use: comments (// to the end of the line and C-style block comments) - and
 * nothing else: no trailing commas, no single quotes, no NaN. It refuses, with a
 * message naming line and column, what a strict reader refuses, and in addition:
 * NUL bytes, nesting deeper than FERRY_JSON_MAX_DEPTH, a key given twice in one
 * object, and strings with invalid escapes or unpaired surrogates.
 * Every input ends in either a tree or an error; none crashes, hangs or leaks
 * (a libFuzzer-style target can call it directly).
 */
#ifndef FERRY_JSON_H_
#define FERRY_JSON_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

/** Deepest nesting of arrays and objects accepted (keeps recursion bounded). */
#define FERRY_JSON_MAX_DEPTH 64

enum ferry_json_type {
	FERRY_JSON_NULL,
	FERRY_JSON_BOOL,
	FERRY_JSON_INT,    /* a number without fraction or exponent that fits int64_t */
	FERRY_JSON_DOUBLE, /* any other finite number */
	FERRY_JSON_STRING,
	FERRY_JSON_ARRAY,
	FERRY_JSON_OBJECT,
};

/** One value. Members of an array or object are a list through next, in file order. */
struct ferry_json {
	enum ferry_json_type type;
	char *key;                /* member name inside an object, else NULL */
	bool boolean;             /* BOOL */
	int64_t integer;          /* INT */
	double number;            /* INT and DOUBLE */
	char *string;             /* STRING, NUL-terminated UTF-8 (no NUL inside) */
	size_t count;             /* ARRAY and OBJECT: number of members */
	struct ferry_json *first; /* ARRAY and OBJECT: first member */
	struct ferry_json *next;  /* next sibling */
	unsigned int line;        /* where the value starts, for messages */
};

/**
 * Parse @p len bytes of @p text.
 * @param [in] text     the bytes (need not be NUL-terminated).
 * @param [in] len      their number.
 * @param [out] root    the tree, to be freed with ferry_json_free(); NULL on error.
 * @param [out] err     receives "line L, column C: what is wrong" on error (may be NULL).
 * @param [in] err_len  size of @p err.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for bad JSON (or NULL text/root);
 *         DOCA_ERROR_NO_MEMORY.
 */
doca_error_t ferry_json_parse(const char *text, size_t len, struct ferry_json **root, char *err, size_t err_len);

/** Free a tree (NULL is fine). */
void ferry_json_free(struct ferry_json *value);

/** The member @p key of object @p obj, or NULL. */
const struct ferry_json *ferry_json_member(const struct ferry_json *obj, const char *key);

/** "string", "integer", ... for messages. */
const char *ferry_json_type_name(enum ferry_json_type type);

#endif /* FERRY_JSON_H_ */
