/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctx_priv.h - the private seam between ctx.c and pe.c. Context types
 * use ferry_ctx.h only.
 */
#ifndef FERRY_CTX_INTERNAL_H_
#define FERRY_CTX_INTERNAL_H_

#include <stdbool.h>

#include "core/ferry_ctx.h"

/** STOPPING, nothing in flight and every task freed: the next progress moves it to IDLE. */
bool ferry_ctx_can_finish_stop(const struct doca_ctx *ctx);

/** When ferry_ctx_can_finish_stop: run ops->stopped and go IDLE. True when it did. */
bool ferry_ctx_try_finish_stop(struct doca_ctx *ctx);

/** Unlink a context from its PE (called by ferry_ctx_fini). */
void ferry_pe_disconnect_ctx(struct doca_pe *pe, struct doca_ctx *ctx);

/** The context whose ops->progress is running right now, or NULL. */
struct doca_ctx *ferry_pe_current_ctx(const struct doca_pe *pe);

/** ferry_task_complete without fault injection (core/fault.c finishes held completions with it). */
void ferry_task_complete_now(struct doca_task *task, doca_error_t status);

#endif /* FERRY_CTX_INTERNAL_H_ */
