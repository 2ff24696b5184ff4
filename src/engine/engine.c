/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine.c - choosing a copy engine: ferry_chan_open and kind names. The auto
 * threshold lives with the auto engine (engine_worker.c); why 256 KiB is here.
 *
 * The auto engine (the default) is the worker engine with an inline threshold:
 * descriptors shorter than FERRY_ENGINE_AUTO_THRESHOLD_DEFAULT are copied by the
 * caller's thread at doorbell, longer ones by the workers, and completions keep
 * enqueue order across both paths (engine_worker.c).
 *
 * Why 256 KiB: bench/engine_bench --sweep on the 2-core VM (queue depth 8, copies
 * spread over 256 MiB), measured when the inline engine still copied with plain
 * memcpy, at memcpy speed at every size: the worker engine pays a hand-off per
 * descriptor and is slower up to 128 KiB (0.2x memcpy at 4 KiB, 0.84x at
 * 64 KiB, 0.97x at 128 KiB), then wins from the size where it splits a copy
 * across workers, 2 chunks of 128 KiB: 1.31x at 256 KiB, 1.41x at 1 MiB, 1.8x
 * at 4 MiB. So copies of 256 KiB and more go to the workers. Since then the
 * caller's thread streams copies whose destination is not in the cache
 * (stream.c; inline 1.25x memcpy at 1 MiB from memory), which narrows the
 * workers' lead; the crossover has not been measured again.
 * FERRY_ENGINE_AUTO_THRESHOLD (bytes) overrides.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/ferry_log.h"
#include "engine/engine_priv.h"

FERRY_LOG_MODULE("engine");

static const struct {
	enum ferry_engine_kind kind;
	const char *name;
	const struct ferry_engine_ops *ops;
} engine_table[] = {
	{FERRY_ENGINE_AUTO, "auto", &ferry_engine_auto_ops},
	{FERRY_ENGINE_INLINE, "inline", &ferry_engine_inline_ops},
	{FERRY_ENGINE_WORKER, "worker", &ferry_engine_worker_ops},
};

#define ENGINE_COUNT (sizeof(engine_table) / sizeof(engine_table[0]))

enum ferry_engine_kind ferry_engine_kind_parse(const char *name, bool *ok)
{
	size_t i;

	for (i = 0; name != NULL && i < ENGINE_COUNT; i++)
		if (strcmp(name, engine_table[i].name) == 0) {
			if (ok != NULL)
				*ok = true;
			return engine_table[i].kind;
		}
	if (ok != NULL)
		*ok = false;
	return FERRY_ENGINE_AUTO;
}

const char *ferry_engine_kind_name(enum ferry_engine_kind kind)
{
	size_t i;

	for (i = 0; i < ENGINE_COUNT; i++)
		if (engine_table[i].kind == kind)
			return engine_table[i].name;
	return "unknown";
}

/* The kind the environment imposes, or @p asked when FERRY_DMA_ENGINE is unset or bad. */
static enum ferry_engine_kind kind_from_env(enum ferry_engine_kind asked)
{
	const char *v = getenv("FERRY_DMA_ENGINE");
	enum ferry_engine_kind kind;
	bool ok;

	if (v == NULL || *v == '\0')
		return asked;
	kind = ferry_engine_kind_parse(v, &ok);
	if (!ok)
		FERRY_WARN("FERRY_DMA_ENGINE='%s' is not inline, worker or auto; using auto", v);
	return kind;
}

doca_error_t ferry_chan_open(const struct ferry_chan_cfg *cfg, struct ferry_chan **chan)
{
	enum ferry_engine_kind kind;
	size_t i;

	if (cfg == NULL || chan == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "cfg %p, chan %p; both are needed", (const void *)cfg,
				  (void *)chan);
	if (cfg->depth == 0 || cfg->depth > FERRY_ENGINE_DEPTH_MAX)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "depth %u; a channel needs 1..%u", cfg->depth,
				  FERRY_ENGINE_DEPTH_MAX);
	kind = cfg->cross_process ? FERRY_ENGINE_INLINE : kind_from_env(cfg->kind);
	for (i = 0; i < ENGINE_COUNT; i++)
		if (engine_table[i].kind == kind)
			return engine_table[i].ops->chan_open(cfg, chan);
	return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "engine kind %d is not inline, worker or auto", (int)kind);
}
