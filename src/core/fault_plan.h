/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fault_plan.h - the grammar of FERRY_FAULT, the fault plan (README, "Fault
 * injection"), parsed into rules. Pure: no environment, no log, no state, so
 * that a libFuzzer target and the seeds test build it alone.
 *
 *   plan   := rule (';' rule)*
 *   rule   := target (':' key '=' value)+
 *   target := '*' | ctx ['.' task]      words of [a-z0-9_]
 *   keys   := every=N | prob=P | seed=S | after=N | count=K     (selectors)
 *             status=DOCA_ERROR_<NAME> | delay_us=U              (task actions)
 *             action=drop | action=revoke                         (connection, export)
 *
 * Each key at most once per rule; every and prob exclude each other; seed
 * needs prob; a rule has at least one action. action=drop takes a target
 * <ctx>.connection and after=N only: the connection drops at its (N+1)th send.
 * action=revoke takes the target mmap.export and after=N only: each map this
 * process imports from a PCI export is revoked at its (N+1)th use.
 */
#ifndef FERRY_FAULT_PLAN_H_
#define FERRY_FAULT_PLAN_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define FERRY_FAULT_MAX_RULES 16
#define FERRY_FAULT_MAX_LEN   4096      /* characters of plan text */
#define FERRY_FAULT_WORD      32        /* a target word, with its NUL */
#define FERRY_FAULT_MAX_DELAY 10000000u /* delay_us: 10 s at most */

/** What a rule does besides (or instead of) a task's status or delay. */
enum ferry_fault_action {
	FERRY_FAULT_ACT_NONE = 0, /* a task rule */
	FERRY_FAULT_ACT_DROP,     /* <ctx>.connection: the connection drops */
	FERRY_FAULT_ACT_REVOKE,   /* mmap.export: the imported export is revoked */
};

struct ferry_fault_rule {
	char ctx[FERRY_FAULT_WORD];     /* "" for '*': every context */
	char task[FERRY_FAULT_WORD];    /* "" for every task of the context */
	uint64_t every;                 /* 0: not set */
	uint64_t prob_threshold;        /* 0: not set; else inject when rand64 < threshold (P * 2^64, P = 1: max) */
	uint64_t seed;                  /* default 1 */
	uint64_t after;                 /* the first `after` matching completions are left alone */
	uint64_t count;                 /* 0: no limit on injections */
	doca_error_t status;            /* DOCA_SUCCESS: no status action */
	uint32_t delay_us;              /* 0: no delay action */
	enum ferry_fault_action action; /* FERRY_FAULT_ACT_NONE for a task rule (status/delay) */
};

struct ferry_fault_plan {
	unsigned num_rules;
	struct ferry_fault_rule rules[FERRY_FAULT_MAX_RULES];
};

/**
 * Parse @p len characters of @p text (no NUL needed) into @p plan. On a
 * refusal, @p why (of @p why_len bytes) names the rule and what is wrong,
 * and the plan must not be used.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE with @p why filled.
 */
doca_error_t ferry_fault_plan_parse(const char *text, size_t len, struct ferry_fault_plan *plan, char *why,
				    size_t why_len);

/** True when @p rule applies to tasks named @p task_name ("dma memcpy") of a context named @p ctx_name. */
int ferry_fault_rule_matches(const struct ferry_fault_rule *rule, const char *ctx_name, const char *task_name);

#endif /* FERRY_FAULT_PLAN_H_ */
