/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine_open.c - choosing an engine: invalid configurations, kind names,
 * the FERRY_DMA_ENGINE override and its fallback, the auto threshold.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "engine/engine_priv.h"
#include "ferry_test.h"

static void test_open_invalid(void **state)
{
	struct ferry_chan_cfg cfg = {.kind = FERRY_ENGINE_INLINE, .depth = 4};
	struct ferry_chan *chan = NULL;

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(ferry_chan_open(NULL, &chan), DOCA_ERROR_INVALID_VALUE);
	assert_logged("ferry_chan_open");
	assert_int_equal(ferry_chan_open(&cfg, NULL), DOCA_ERROR_INVALID_VALUE);
	cfg.depth = 0;
	ferry_test_log_reset();
	assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_ERROR_INVALID_VALUE);
	assert_logged("depth 0");
	cfg.depth = FERRY_ENGINE_DEPTH_MAX + 1;
	assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_ERROR_INVALID_VALUE);
	cfg.depth = 4;
	cfg.kind = (enum ferry_engine_kind)7;
	ferry_test_log_reset();
	assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_ERROR_INVALID_VALUE);
	assert_logged("engine kind 7");
	assert_null(chan);
}

static void test_open_boundaries(void **state)
{
	static const enum ferry_engine_kind kinds[] = {FERRY_ENGINE_INLINE, FERRY_ENGINE_WORKER, FERRY_ENGINE_AUTO};
	struct ferry_chan *chan = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct ferry_chan_cfg cfg = {.kind = kinds[i], .depth = 1};

		assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_SUCCESS);
		assert_string_equal(chan->ops->name, ferry_engine_kind_name(kinds[i]));
		ferry_chan_close(chan);
		cfg.depth = FERRY_ENGINE_DEPTH_MAX;
		assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_SUCCESS);
		ferry_chan_close(chan);
	}
}

static void test_kind_names(void **state)
{
	bool ok = true;

	(void)state;
	assert_int_equal(ferry_engine_kind_parse("inline", &ok), FERRY_ENGINE_INLINE);
	assert_true(ok);
	assert_int_equal(ferry_engine_kind_parse("worker", &ok), FERRY_ENGINE_WORKER);
	assert_true(ok);
	assert_int_equal(ferry_engine_kind_parse("auto", &ok), FERRY_ENGINE_AUTO);
	assert_true(ok);
	assert_int_equal(ferry_engine_kind_parse("Inline", &ok), FERRY_ENGINE_AUTO);
	assert_false(ok);
	ok = true;
	assert_int_equal(ferry_engine_kind_parse("", &ok), FERRY_ENGINE_AUTO);
	assert_false(ok);
	ok = true;
	assert_int_equal(ferry_engine_kind_parse(NULL, &ok), FERRY_ENGINE_AUTO);
	assert_false(ok);
	assert_int_equal(ferry_engine_kind_parse("worker", NULL), FERRY_ENGINE_WORKER);
	assert_string_equal(ferry_engine_kind_name(FERRY_ENGINE_AUTO), "auto");
	assert_string_equal(ferry_engine_kind_name(FERRY_ENGINE_INLINE), "inline");
	assert_string_equal(ferry_engine_kind_name(FERRY_ENGINE_WORKER), "worker");
	assert_string_equal(ferry_engine_kind_name((enum ferry_engine_kind)42), "unknown");
}

static const char *opened_name(enum ferry_engine_kind kind)
{
	struct ferry_chan_cfg cfg = {.kind = kind, .depth = 2};
	struct ferry_chan *chan = NULL;
	const char *name;

	assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_SUCCESS);
	name = chan->ops->name;
	ferry_chan_close(chan);
	return name;
}

/* FERRY_DMA_ENGINE overrides the kind asked for; a bad value logs and means auto. */
static void test_env_override(void **state)
{
	(void)state;
	unsetenv("FERRY_DMA_ENGINE");
	assert_string_equal(opened_name(FERRY_ENGINE_AUTO), "auto");
	assert_string_equal(opened_name(FERRY_ENGINE_WORKER), "worker");
	setenv("FERRY_DMA_ENGINE", "inline", 1);
	assert_string_equal(opened_name(FERRY_ENGINE_WORKER), "inline");
	assert_string_equal(opened_name(FERRY_ENGINE_AUTO), "inline");
	setenv("FERRY_DMA_ENGINE", "worker", 1);
	assert_string_equal(opened_name(FERRY_ENGINE_INLINE), "worker");
	setenv("FERRY_DMA_ENGINE", "auto", 1);
	assert_string_equal(opened_name(FERRY_ENGINE_INLINE), "auto");
	setenv("FERRY_DMA_ENGINE", "dpa", 1);
	ferry_test_log_reset();
	assert_string_equal(opened_name(FERRY_ENGINE_INLINE), "auto");
	assert_logged("FERRY_DMA_ENGINE='dpa'");
	setenv("FERRY_DMA_ENGINE", "", 1); /* empty: as if unset */
	assert_string_equal(opened_name(FERRY_ENGINE_INLINE), "inline");
	unsetenv("FERRY_DMA_ENGINE");
}

static void test_auto_threshold(void **state)
{
	(void)state;
	unsetenv("FERRY_ENGINE_AUTO_THRESHOLD");
	assert_int_equal(ferry_engine_auto_threshold(), FERRY_ENGINE_AUTO_THRESHOLD_DEFAULT);
	setenv("FERRY_ENGINE_AUTO_THRESHOLD", "4096", 1);
	assert_int_equal(ferry_engine_auto_threshold(), 4096);
	setenv("FERRY_ENGINE_AUTO_THRESHOLD", "0x100", 1);
	assert_int_equal(ferry_engine_auto_threshold(), 256);
	ferry_test_log_reset();
	setenv("FERRY_ENGINE_AUTO_THRESHOLD", "big", 1);
	assert_int_equal(ferry_engine_auto_threshold(), FERRY_ENGINE_AUTO_THRESHOLD_DEFAULT);
	assert_logged("FERRY_ENGINE_AUTO_THRESHOLD='big'");
	setenv("FERRY_ENGINE_AUTO_THRESHOLD", "-5", 1);
	assert_int_equal(ferry_engine_auto_threshold(), FERRY_ENGINE_AUTO_THRESHOLD_DEFAULT);
	unsetenv("FERRY_ENGINE_AUTO_THRESHOLD");
}

/* The pool size comes from the environment once per process: at least one worker. */
static void test_worker_count(void **state)
{
	(void)state;
	assert_true(ferry_worker_count() >= 1);
	assert_true(ferry_worker_count() <= 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_invalid),   cmocka_unit_test(test_open_boundaries),
		cmocka_unit_test(test_kind_names),     cmocka_unit_test(test_env_override),
		cmocka_unit_test(test_auto_threshold), cmocka_unit_test(test_worker_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
