/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine_pool_nomem.c - the worker pool cannot get memory for its workers.
 *
 * The pool is configured once per process, at the first worker channel open,
 * so this is a program of its own whose first open fails the pool's one
 * allocation. The pool then has no worker, says so in one line, and worker and
 * auto channels still open and copy: in the caller's thread, at doorbell. No
 * thread is started.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdlib.h>

#include "common/ferry_alloc.h"
#include "engine/engine_priv.h"
#include "engine_test.h"
#include "ferry_test.h"

static unsigned int thread_count(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

static void test_pool_without_memory(void **state)
{
	static const enum ferry_engine_kind kinds[] = {FERRY_ENGINE_WORKER, FERRY_ENGINE_AUTO};
	unsigned int threads = thread_count(), k;

	(void)state;
	unsetenv("FERRY_DMA_ENGINE");
	ferry_test_log_reset();
	ferry_alloc_fail_nth(1);
	assert_int_equal(ferry_worker_count(), 0);
	assert_false(ferry_alloc_fail_pending());
	assert_logged("no memory for");
	for (k = 0; k < 2; k++) {
		struct ferry_chan_cfg cfg = {.kind = kinds[k], .depth = 8};
		struct ferry_chan *chan = NULL;
		unsigned char src[3][8192], dst[3][8192];
		struct ferry_copy_cpl cpl[3];
		uint32_t i;

		memset(src, 0x5c + (int)k, sizeof(src));
		memset(dst, 0, sizeof(dst));
		assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_SUCCESS);
		for (i = 0; i < 3; i++) {
			struct ferry_copy_desc d = {.dst = dst[i], .src = src[i], .len = sizeof(src[i]), .cookie = i};

			assert_int_equal(ferry_chan_enqueue(chan, &d), DOCA_SUCCESS);
		}
		ferry_chan_doorbell(chan);
		/* Copied by this thread at doorbell: all done before any poll. */
		assert_true(ferry_chan_ready(chan));
		assert_int_equal(ferry_chan_poll(chan, cpl, 3), 3);
		for (i = 0; i < 3; i++) {
			assert_int_equal(cpl[i].cookie, i);
			assert_int_equal(cpl[i].status, DOCA_SUCCESS);
		}
		assert_memory_equal(dst, src, sizeof(src));
		ferry_chan_close(chan);
	}
	assert_int_equal(thread_count(), threads);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_without_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
