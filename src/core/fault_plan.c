/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fault_plan.c - the FERRY_FAULT parser (grammar in fault_plan.h). Strict:
 * anything not in the grammar is refused with the rule's number and text and
 * the reason, never guessed at; the caller then injects nothing.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/fault_plan.h"

#define MAX_ERROR_CODE 64 /* doca_error_get_name is asked about 1..this */

struct cursor {
	const char *p;   /* the rule's text */
	size_t len;      /* its length */
	unsigned number; /* 1-based, for messages */
	char *why;
	size_t why_len;
};

static doca_error_t refuse(const struct cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static doca_error_t refuse(const struct cursor *c, const char *fmt, ...)
{
	int n = snprintf(c->why, c->why_len, "rule %u ('%.*s'): ", c->number, (int)(c->len > 60 ? 60 : c->len), c->p);
	va_list ap;

	if (n >= 0 && (size_t)n < c->why_len) {
		va_start(ap, fmt);
		vsnprintf(c->why + n, c->why_len - (size_t)n, fmt, ap);
		va_end(ap);
	}
	/* The message quotes the user's text: keep it one printable line. */
	for (char *w = c->why; c->why_len > 0 && *w != '\0'; w++)
		if ((unsigned char)*w < 0x20 || (unsigned char)*w >= 0x7f)
			*w = '?';
	return DOCA_ERROR_INVALID_VALUE;
}

static int is_word_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* A target word: 1..31 characters of [a-z0-9_]. */
static int take_word(const char *s, size_t n, char out[FERRY_FAULT_WORD])
{
	if (n == 0 || n >= FERRY_FAULT_WORD)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!is_word_char(s[i]))
			return 0;
	memcpy(out, s, n);
	out[n] = '\0';
	return 1;
}

/* A decimal whole number, digits only, no overflow. */
static int take_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0 || n > 20)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return 0;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return 0;
		v = v * 10 + d;
	}
	*out = v;
	return 1;
}

/*
 * A probability in (0, 1]: "1", "1.0", "0.25", at most 18 decimals, as a
 * threshold on a 64-bit random number. Fixed point, so that the same text
 * gives the same threshold on every machine.
 */
static int take_prob(const char *s, size_t n, uint64_t *threshold)
{
	const char *dot = memchr(s, '.', n);
	size_t int_len = dot != NULL ? (size_t)(dot - s) : n;
	size_t frac_len = dot != NULL ? n - int_len - 1 : 0;
	uint64_t frac = 0, scale = 1;

	if (int_len != 1 || (s[0] != '0' && s[0] != '1') || (dot != NULL && (frac_len == 0 || frac_len > 18)))
		return 0;
	for (size_t i = 0; i < frac_len; i++) {
		char ch = dot[1 + i];

		if (ch < '0' || ch > '9')
			return 0;
		frac = frac * 10 + (uint64_t)(ch - '0');
		scale *= 10;
	}
	if (s[0] == '1') {
		if (frac != 0)
			return 0;
		*threshold = UINT64_MAX;
		return 1;
	}
	if (frac == 0)
		return 0;
	/* frac / scale * 2^64, as (frac * 2^64) / scale in 128 bits. */
	*threshold = (uint64_t)(((unsigned __int128)frac << 64) / scale);
	return *threshold != 0;
}

static int take_status(const char *s, size_t n, doca_error_t *out)
{
	for (int code = 1; code <= MAX_ERROR_CODE; code++) {
		const char *name = doca_error_get_name((doca_error_t)code);

		/* A code with no name gets a placeholder name: never a status to inject. */
		if (strcmp(name, "DOCA_ERROR_UNKNOWN_VALUE") == 0)
			continue;
		if (strlen(name) == n && memcmp(name, s, n) == 0) {
			*out = (doca_error_t)code;
			return 1;
		}
	}
	return 0;
}

/* Bits of the keys seen in a rule. */
enum { K_EVERY = 1, K_PROB = 2, K_SEED = 4, K_AFTER = 8, K_COUNT = 16, K_STATUS = 32, K_DELAY = 64, K_ACTION = 128 };

static doca_error_t parse_param(const struct cursor *c, const char *s, size_t n, unsigned *seen,
				struct ferry_fault_rule *r)
{
	static const struct {
		const char *key;
		unsigned bit;
	} keys[] = {{"every", K_EVERY}, {"prob", K_PROB},     {"seed", K_SEED},      {"after", K_AFTER},
		    {"count", K_COUNT}, {"status", K_STATUS}, {"delay_us", K_DELAY}, {"action", K_ACTION}};
	const char *eq = memchr(s, '=', n);
	size_t klen, vlen;
	const char *v;
	unsigned bit = 0;
	uint64_t num = 0;

	if (eq == NULL)
		return refuse(c, "'%.*s' is not key=value", (int)n, s);
	klen = (size_t)(eq - s);
	v = eq + 1;
	vlen = n - klen - 1;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].key) == klen && memcmp(keys[i].key, s, klen) == 0)
			bit = keys[i].bit;
	if (bit == 0)
		return refuse(c, "unknown key '%.*s' (every, prob, seed, after, count, status, delay_us, action)",
			      (int)klen, s);
	if (*seen & bit)
		return refuse(c, "'%.*s' is given twice", (int)klen, s);
	*seen |= bit;
	switch (bit) {
	case K_PROB:
		if (!take_prob(v, vlen, &r->prob_threshold))
			return refuse(c, "prob must be a decimal in (0, 1], like 0.01");
		return DOCA_SUCCESS;
	case K_ACTION:
		if (vlen == 4 && memcmp(v, "drop", 4) == 0)
			r->action = FERRY_FAULT_ACT_DROP;
		else if (vlen == 6 && memcmp(v, "revoke", 6) == 0)
			r->action = FERRY_FAULT_ACT_REVOKE;
		else
			return refuse(c, "action '%.*s' is not known (drop, revoke)", (int)vlen, v);
		return DOCA_SUCCESS;
	case K_STATUS:
		if (!take_status(v, vlen, &r->status))
			return refuse(c, "status '%.*s' is not a DOCA error name (like DOCA_ERROR_IO_FAILED)",
				      (int)vlen, v);
		return DOCA_SUCCESS;
	default:
		break;
	}
	if (!take_u64(v, vlen, &num))
		return refuse(c, "%.*s must be a whole decimal number", (int)klen, s);
	switch (bit) {
	case K_EVERY:
	case K_COUNT:
		if (num == 0)
			return refuse(c, "%.*s must be at least 1", (int)klen, s);
		if (bit == K_EVERY)
			r->every = num;
		else
			r->count = num;
		break;
	case K_SEED:
		r->seed = num;
		break;
	case K_AFTER:
		r->after = num;
		break;
	default: /* K_DELAY */
		if (num == 0 || num > FERRY_FAULT_MAX_DELAY)
			return refuse(c, "delay_us must be in 1..%u", FERRY_FAULT_MAX_DELAY);
		r->delay_us = (uint32_t)num;
		break;
	}
	return DOCA_SUCCESS;
}

static doca_error_t parse_target(const struct cursor *c, const char *s, size_t n, struct ferry_fault_rule *r)
{
	const char *dot = memchr(s, '.', n);

	if (n == 1 && s[0] == '*')
		return DOCA_SUCCESS;
	if (dot == NULL) {
		if (!take_word(s, n, r->ctx))
			return refuse(c, "target must be '*' or <context>[.<task>], words of a-z 0-9 _");
		return DOCA_SUCCESS;
	}
	if (!take_word(s, (size_t)(dot - s), r->ctx) || !take_word(dot + 1, n - (size_t)(dot - s) - 1, r->task))
		return refuse(c, "target must be '*' or <context>[.<task>], words of a-z 0-9 _");
	return DOCA_SUCCESS;
}

/* mmap.export: the maps this process imports from PCI exports. */
static bool is_export_target(const struct ferry_fault_rule *r)
{
	return strcmp(r->ctx, "mmap") == 0 && strcmp(r->task, "export") == 0;
}

/* An action rule counts one kind of event (after=N) and acts on the next: no selector or task action beside. */
static doca_error_t check_action_rule(const struct cursor *c, const struct ferry_fault_rule *r, unsigned seen)
{
	if (r->action == FERRY_FAULT_ACT_DROP) {
		if (strcmp(r->task, "connection") != 0)
			return refuse(c, "action=drop needs a target <context>.connection, like comch.connection");
		if (seen != (K_ACTION | K_AFTER))
			return refuse(c, "action=drop takes after=N and nothing else");
		return DOCA_SUCCESS;
	}
	if (!is_export_target(r))
		return refuse(c, "action=revoke needs the target mmap.export");
	if (seen != (K_ACTION | K_AFTER))
		return refuse(c, "action=revoke takes after=N and nothing else");
	return DOCA_SUCCESS;
}

static doca_error_t parse_rule(const struct cursor *c, struct ferry_fault_rule *r)
{
	const char *s = c->p, *end = c->p + c->len;
	const char *colon = memchr(s, ':', c->len);
	unsigned seen = 0;
	doca_error_t err;

	memset(r, 0, sizeof(*r));
	r->seed = 1;
	if (c->len == 0)
		return refuse(c, "is empty");
	if (colon == NULL)
		return refuse(c, "needs at least one action (status=, delay_us= or action=) after ':'");
	err = parse_target(c, s, (size_t)(colon - s), r);
	if (err != DOCA_SUCCESS)
		return err;
	for (s = colon + 1; s <= end;) {
		const char *next = memchr(s, ':', (size_t)(end - s));
		size_t n = (next != NULL ? next : end) - s;

		if (n == 0)
			return refuse(c, "has an empty key=value");
		err = parse_param(c, s, n, &seen, r);
		if (err != DOCA_SUCCESS)
			return err;
		if (next == NULL)
			break;
		s = next + 1;
	}
	if (seen & K_ACTION)
		return check_action_rule(c, r, seen);
	if (strcmp(r->task, "connection") == 0)
		return refuse(c, "a connection takes action=drop, not a task's status or delay");
	if (is_export_target(r))
		return refuse(c, "an export takes action=revoke, not a task's status or delay");
	if ((seen & (K_STATUS | K_DELAY)) == 0)
		return refuse(c, "needs an action: status=DOCA_ERROR_<NAME>, delay_us=U or action=drop|revoke");
	if ((seen & K_EVERY) && (seen & K_PROB))
		return refuse(c, "every and prob exclude each other");
	if ((seen & K_SEED) && !(seen & K_PROB))
		return refuse(c, "seed needs prob");
	return DOCA_SUCCESS;
}

doca_error_t ferry_fault_plan_parse(const char *text, size_t len, struct ferry_fault_plan *plan, char *why,
				    size_t why_len)
{
	struct cursor c = {.p = text, .len = len, .number = 0, .why = why, .why_len = why_len};
	const char *s = text, *end = text + len;

	memset(plan, 0, sizeof(*plan));
	if (why_len > 0)
		why[0] = '\0';
	if (len == 0 || len > FERRY_FAULT_MAX_LEN) {
		snprintf(why, why_len, "the plan must have 1..%u characters", FERRY_FAULT_MAX_LEN);
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (memchr(text, '\0', len) != NULL) {
		snprintf(why, why_len, "the plan contains a NUL byte");
		return DOCA_ERROR_INVALID_VALUE;
	}
	for (;;) {
		const char *semi = memchr(s, ';', (size_t)(end - s));
		doca_error_t err;

		c.p = s;
		c.len = (size_t)((semi != NULL ? semi : end) - s);
		c.number++;
		if (plan->num_rules == FERRY_FAULT_MAX_RULES)
			return refuse(&c, "a plan has at most %u rules", FERRY_FAULT_MAX_RULES);
		err = parse_rule(&c, &plan->rules[plan->num_rules]);
		if (err != DOCA_SUCCESS)
			return err;
		plan->num_rules++;
		if (semi == NULL)
			return DOCA_SUCCESS;
		s = semi + 1;
	}
}

/* The context word names a context ("comch_client") or the family before its '_' ("comch"). */
static int ctx_matches(const char *word, const char *ctx_name)
{
	size_t n = strlen(word);

	return strncmp(word, ctx_name, n) == 0 && (ctx_name[n] == '\0' || ctx_name[n] == '_');
}

/* The task word is the last word of the pool's name ("dma memcpy" -> memcpy, "comch consumer post recv" -> recv). */
static int task_matches(const char *word, const char *task_name)
{
	const char *last = strrchr(task_name, ' ');

	return strcmp(word, last != NULL ? last + 1 : task_name) == 0;
}

int ferry_fault_rule_matches(const struct ferry_fault_rule *rule, const char *ctx_name, const char *task_name)
{
	if (rule->ctx[0] != '\0' && !ctx_matches(rule->ctx, ctx_name))
		return 0;
	return rule->task[0] == '\0' || task_matches(rule->task, task_name);
}
