/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_fault_plan.c - libFuzzer target for the FERRY_FAULT parser
 * (src/core/fault_plan.c), whose text comes from the user's environment.
 *
 * Properties: parse never crashes or reads outside its input; a refusal
 * always says why, in one line; what it accepts has 1..16 rules, each with an
 * action, and every value inside its documented range.
 *
 * Built with -Dfuzz=true and clang. With -DFERRY_FUZZ_STANDALONE it gets a
 * main that checks a set of good and bad plans (each bad one with the reason
 * it must give) and replays deterministic mutations of the good ones (test
 * 'fault_plan_seeds', in the plain suite).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fault_plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ferry_fault_plan plan;
	char why[256];

	if (ferry_fault_plan_parse((const char *)data, size, &plan, why, sizeof(why)) != DOCA_SUCCESS) {
		if (why[0] == '\0' || strchr(why, '\n') != NULL)
			abort();
		return 0;
	}
	if (plan.num_rules == 0 || plan.num_rules > FERRY_FAULT_MAX_RULES)
		abort();
	for (unsigned i = 0; i < plan.num_rules; i++) {
		const struct ferry_fault_rule *r = &plan.rules[i];

		if (r->status == DOCA_SUCCESS && r->delay_us == 0 && r->action == FERRY_FAULT_ACT_NONE)
			abort();
		if (r->status != DOCA_SUCCESS &&
		    strcmp(doca_error_get_name(r->status), "DOCA_ERROR_UNKNOWN_VALUE") == 0)
			abort();
		if (r->action != FERRY_FAULT_ACT_NONE && (r->status != DOCA_SUCCESS || r->delay_us != 0))
			abort();
		if (r->action == FERRY_FAULT_ACT_DROP && strcmp(r->task, "connection") != 0)
			abort();
		if (r->action == FERRY_FAULT_ACT_REVOKE &&
		    (strcmp(r->ctx, "mmap") != 0 || strcmp(r->task, "export") != 0))
			abort();
		if (r->delay_us > FERRY_FAULT_MAX_DELAY || (r->every != 0 && r->prob_threshold != 0))
			abort();
		if (strlen(r->ctx) >= FERRY_FAULT_WORD || strlen(r->task) >= FERRY_FAULT_WORD)
			abort();
	}
	return 0;
}

#ifdef FERRY_FUZZ_STANDALONE
static const char *const good[] = {
	("dma.memcpy:every=100:status=DOCA_ERROR_IO_FAILED;comch.send:prob=0.01:seed=7:status=DOCA_ERROR_AGAIN;"
	 "*:delay_us=50:every=10"),
	"*:status=DOCA_ERROR_IO_FAILED",
	"dma:after=3:count=1:status=DOCA_ERROR_TIME_OUT",
	"comch_consumer.recv:prob=1:delay_us=10000000",
	"comch:prob=0.000000000000000001:status=DOCA_ERROR_CONNECTION_RESET",
	"comch_client.connection:after=3:action=drop;comch.connection:after=0:action=drop",
	"mmap.export:after=0:action=revoke;dma.memcpy:every=2:status=DOCA_ERROR_IO_FAILED",
};

static const struct {
	const char *plan;
	const char *why;
} bad[] = {
	{"", "1..4096 characters"},
	{"dma", "rule 1 ('dma'): needs at least one action"},
	{"dma:every=2", "needs an action"},
	{"dma:status=DOCA_SUCCESS", "is not a DOCA error name"},
	{"dma:status=IO_FAILED", "is not a DOCA error name"},
	{"dma:status=DOCA_ERROR_UNKNOWN_VALUE", "is not a DOCA error name"},
	{"dma:every=0:status=DOCA_ERROR_AGAIN", "every must be at least 1"},
	{"dma:every=-1:status=DOCA_ERROR_AGAIN", "whole decimal number"},
	{"dma:every=99999999999999999999:status=DOCA_ERROR_AGAIN", "whole decimal number"},
	{"dma:prob=0:status=DOCA_ERROR_AGAIN", "prob must be"},
	{"dma:prob=1.5:status=DOCA_ERROR_AGAIN", "prob must be"},
	{"dma:prob=.5:status=DOCA_ERROR_AGAIN", "prob must be"},
	{"dma:prob=0.5:every=2:status=DOCA_ERROR_AGAIN", "exclude each other"},
	{"dma:seed=3:status=DOCA_ERROR_AGAIN", "seed needs prob"},
	{"dma:delay_us=0", "delay_us must be in"},
	{"dma:delay_us=10000001", "delay_us must be in"},
	{"dma:status=DOCA_ERROR_AGAIN:status=DOCA_ERROR_AGAIN", "given twice"},
	{"dma:colour=red:status=DOCA_ERROR_AGAIN", "unknown key 'colour'"},
	{"dma:status=DOCA_ERROR_AGAIN;", "rule 2 (''): is empty"},
	{"dma::status=DOCA_ERROR_AGAIN", "empty key=value"},
	{"DMA:status=DOCA_ERROR_AGAIN", "target must be"},
	{"dma.:status=DOCA_ERROR_AGAIN", "target must be"},
	{"dma.mem.cpy:status=DOCA_ERROR_AGAIN", "target must be"},
	{"dma:status", "is not key=value"},
	{"comch.connection:action=drop", "action=drop takes after=N and nothing else"},
	{"comch.connection:after=1:every=2:action=drop", "action=drop takes after=N and nothing else"},
	{"comch.send:after=1:action=drop", "action=drop needs a target <context>.connection"},
	{"comch.connection:status=DOCA_ERROR_AGAIN", "a connection takes action=drop"},
	{"comch.connection:after=1:action=revoke", "action=revoke needs the target mmap.export"},
	{"comch.connection:after=1:action=cut", "action 'cut' is not known (drop, revoke)"},
	{"mmap.export:action=revoke", "action=revoke takes after=N and nothing else"},
	{"mmap.export:after=2:count=1:action=revoke", "action=revoke takes after=N and nothing else"},
	{"mmap.export:after=2:action=drop", "action=drop needs a target <context>.connection"},
	{"mmap.export:status=DOCA_ERROR_AGAIN", "an export takes action=revoke"},
	{"mmap:after=2:action=revoke", "action=revoke needs the target mmap.export"},
	{"dma\n:status=DOCA_ERROR_AGAIN", "rule 1 ('dma?:status=DOCA_ERROR_AGAIN'): target must be"},
	{"dma:st\001tus=DOCA_ERROR_AGAIN", "unknown key 'st?tus'"},
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(void)
{
	static const char alphabet[] =
		"dma.*:;=_0123456789.DOCA_ERROR_AGAINeveryprobseedcountafterstatusdelay_us\n\0\xff";
	struct ferry_fault_plan plan;
	char why[256];
	int failures = 0;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (ferry_fault_plan_parse(good[i], strlen(good[i]), &plan, why, sizeof(why)) != DOCA_SUCCESS) {
			fprintf(stderr, "refused a good plan '%s': %s\n", good[i], why);
			failures++;
		}
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		doca_error_t err = ferry_fault_plan_parse(bad[i].plan, strlen(bad[i].plan), &plan, why, sizeof(why));

		if (err != DOCA_ERROR_INVALID_VALUE || strstr(why, bad[i].why) == NULL) {
			fprintf(stderr, "bad plan '%s': expected '%s', got '%s'\n", bad[i].plan, bad[i].why, why);
			failures++;
		}
	}
	/* Mutations of the good plans: truncations, single-byte edits, random splices. */
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		size_t n = strlen(good[i]);
		char buf[512];

		for (size_t len = 0; len <= n; len++)
			LLVMFuzzerTestOneInput((const uint8_t *)good[i], len);
		for (int round = 0; round < 20000; round++) {
			size_t len = n < sizeof(buf) ? n : sizeof(buf);

			memcpy(buf, good[i], len);
			for (int edits = 1 + (int)(next_rand() % 4); edits > 0; edits--)
				buf[next_rand() % len] = alphabet[next_rand() % (sizeof(alphabet) - 1)];
			LLVMFuzzerTestOneInput((const uint8_t *)buf, len - next_rand() % (len / 2 + 1));
		}
	}
	if (failures != 0)
		return 1;
	printf("fault plan seeds: %zu good, %zu bad, mutations done\n", sizeof(good) / sizeof(good[0]),
	       sizeof(bad) / sizeof(bad[0]));
	return 0;
}
#endif
