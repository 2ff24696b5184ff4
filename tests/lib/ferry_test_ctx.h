/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_test_ctx.h - a context's state, and stopping it the way DOCA programs
 * do (stop, then progress its PE until IDLE), for the cmocka tests.
 */
#ifndef FERRY_TEST_CTX_H_
#define FERRY_TEST_CTX_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <doca_ctx.h>
#include <doca_pe.h>

#include "ferry_test_wait.h"

/** The state of @p ctx (the call itself must succeed). */
static inline enum doca_ctx_states ferry_test_ctx_state(struct doca_ctx *ctx)
{
	enum doca_ctx_states st;

	assert_int_equal(doca_ctx_get_state(ctx, &st), DOCA_SUCCESS);
	return st;
}

/** Stop @p ctx unless IDLE and progress @p pe until it is, within the wait deadline. */
static inline void ferry_test_stop_idle(struct doca_pe *pe, struct doca_ctx *ctx)
{
	if (ferry_test_ctx_state(ctx) != DOCA_CTX_STATE_IDLE)
		(void)doca_ctx_stop(ctx);
	FERRY_PROGRESS_UNTIL(pe, ferry_test_ctx_state(ctx) == DOCA_CTX_STATE_IDLE, FERRY_TEST_WAIT_MS);
	assert_int_equal(ferry_test_ctx_state(ctx), DOCA_CTX_STATE_IDLE);
}

#endif /* FERRY_TEST_CTX_H_ */
