/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dma_copy.c - DMA memcpy correctness on every copy engine (inline,
 * worker, auto): random sizes and offsets, single bufs and chained lists on
 * both sides, checked byte for byte with guard bytes around every destination;
 * more descriptors than the channel holds (the backlog, which single-buf
 * tasks wait behind too); a stop with tasks in flight, which flushes them
 * through the error callback and reaches IDLE; and tasks the program frees in
 * flight, which complete into the pool without a callback.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "dma_fixture.h"

#define GUARD      64u
#define GUARD_BYTE 0xA5u
#define MAX_SEGS   6u
#define WAVE       16u

static const union doca_data no_data = {.u64 = 0};

static uint32_t rnd(uint32_t *seed, uint32_t bound)
{
	*seed = *seed * 1664525u + 1013904223u;
	return bound == 0 ? 0 : (*seed >> 8) % bound;
}

/* One random task: source and destination lists and where they sit. */
struct seg {
	size_t win_off, win_len;   /* window, from the mmap's memory */
	size_t data_off, data_len; /* data segment inside the window (dst: the data already there) */
};

struct copy_case {
	struct seg src[MAX_SEGS], dst[MAX_SEGS];
	uint32_t nsrc, ndst;
	size_t total;
	struct doca_buf *src_head, *dst_head;
	struct doca_dma_task_memcpy *task;
	uint8_t *pre;              /* saved copy of the destination area before the task */
	size_t dst_begin, dst_end; /* destination area including guards */
};

/* Random sizes: mostly small, sometimes large, on both sides of power-of-two edges. */
static size_t rnd_len(uint32_t *seed, size_t max)
{
	size_t len;

	switch (rnd(seed, 8)) {
	case 0:
		len = 1 + rnd(seed, 16);
		break;
	case 1:
		len = ((size_t)1 << rnd(seed, 17)) + rnd(seed, 3) - 1;
		break;
	case 2:
		len = 1 + rnd(seed, 1u << 20);
		break;
	default:
		len = 1 + rnd(seed, 8192);
		break;
	}
	if (len == 0)
		len = 1;
	return len > max ? max : len;
}

/* Build one case whose destination area starts at *dst_cursor; false when dst memory is used up. */
static bool make_case(struct dma_fix *f, struct copy_case *c, uint32_t *seed, bool lists, size_t *dst_cursor)
{
	size_t cur = *dst_cursor;
	size_t max_total = lists ? 256u * 1024 : 1u << 20;

	memset(c, 0, sizeof(*c));
	c->nsrc = lists ? 1 + rnd(seed, MAX_SEGS) : 1;
	c->ndst = lists ? 1 + rnd(seed, MAX_SEGS) : 1;
	for (uint32_t i = 0; i < c->nsrc; i++) {
		struct seg *s = &c->src[i];
		size_t room = max_total - c->total;

		/* In a list, empty data segments are legal and skipped. */
		s->data_len = (lists && rnd(seed, 5) == 0) ? 0 : rnd_len(seed, room / (c->nsrc - i) + 1);
		s->win_len = s->data_len + rnd(seed, 300);
		s->win_off = rnd(seed, (uint32_t)(FIX_MEM_LEN - s->win_len));
		s->data_off = rnd(seed, (uint32_t)(s->win_len - s->data_len + 1));
		c->total += s->data_len;
	}
	if (c->total == 0) {
		c->src[0].data_len = 1;
		c->src[0].win_len += 1;
		if (c->src[0].win_off + c->src[0].win_len > FIX_MEM_LEN)
			c->src[0].win_off--;
		c->total = 1;
	}
	/* Destination: pre-existing data, room split over the bufs, guards between them. */
	c->dst_begin = cur;
	cur += GUARD;
	for (uint32_t i = 0; i < c->ndst; i++) {
		struct seg *d = &c->dst[i];
		size_t share = c->total / c->ndst + (i == 0 ? c->total % c->ndst : 0);

		d->data_len = rnd(seed, 3) == 0 ? rnd(seed, 100) : 0; /* data already there */
		d->data_off = rnd(seed, 3) == 0 ? rnd(seed, 40) : 0;  /* headroom before it */
		d->win_off = cur;
		d->win_len = d->data_off + d->data_len + share + rnd(seed, 64); /* tail slack */
		cur += d->win_len + GUARD;
	}
	c->dst_end = cur;
	if (cur > FIX_MEM_LEN)
		return false;
	*dst_cursor = cur;
	(void)f;
	return true;
}

static void build_bufs(struct dma_fix *f, struct copy_case *c)
{
	for (uint32_t i = 0; i < c->nsrc; i++) {
		struct seg *s = &c->src[i];
		struct doca_buf *b = NULL;

		assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->src_mmap, f->src_mem + s->win_off,
								    s->win_len, f->src_mem + s->win_off + s->data_off,
								    s->data_len, &b),
				 DOCA_SUCCESS);
		if (i == 0)
			c->src_head = b;
		else
			assert_int_equal(doca_buf_chain_list(c->src_head, b), DOCA_SUCCESS);
	}
	/* Guards and free space hold GUARD_BYTE; existing data holds random bytes. */
	memset(f->dst_mem + c->dst_begin, GUARD_BYTE, c->dst_end - c->dst_begin);
	for (uint32_t i = 0; i < c->ndst; i++) {
		struct seg *d = &c->dst[i];
		struct doca_buf *b = NULL;
		uint32_t seed = (uint32_t)d->win_off;

		fix_fill_random(f->dst_mem + d->win_off + d->data_off, d->data_len, &seed);
		assert_int_equal(doca_buf_inventory_buf_get_by_args(f->inv, f->dst_mmap, f->dst_mem + d->win_off,
								    d->win_len, f->dst_mem + d->win_off + d->data_off,
								    d->data_len, &b),
				 DOCA_SUCCESS);
		if (i == 0)
			c->dst_head = b;
		else
			assert_int_equal(doca_buf_chain_list(c->dst_head, b), DOCA_SUCCESS);
	}
	c->pre = malloc(c->dst_end - c->dst_begin);
	assert_non_null(c->pre);
	memcpy(c->pre, f->dst_mem + c->dst_begin, c->dst_end - c->dst_begin);
}

/* The whole destination area, guards included, as the rules say it must look now. */
static void verify_case(struct dma_fix *f, struct copy_case *c, bool copied)
{
	uint8_t *expect = c->pre;
	size_t src_seg = 0, src_pos = 0, left = copied ? c->total : 0;
	struct doca_buf *b = c->dst_head;

	for (uint32_t i = 0; i < c->ndst; i++) {
		struct seg *d = &c->dst[i];
		size_t at = d->win_off - c->dst_begin + d->data_off + d->data_len;
		size_t room = d->win_len - d->data_off - d->data_len;
		size_t take = room < left ? room : left;

		for (size_t k = 0; k < take; k++) {
			while (src_pos == c->src[src_seg].data_len) {
				src_seg++;
				src_pos = 0;
			}
			expect[at + k] = f->src_mem[c->src[src_seg].win_off + c->src[src_seg].data_off + src_pos++];
		}
		left -= take;
		assert_non_null(b);
		if (fix_data_len(b) != d->data_len + take)
			fail_msg("dst buf %u: data_len %zu, expected %zu", i, fix_data_len(b), d->data_len + take);
		assert_int_equal(doca_buf_get_next_in_list(b, &b), DOCA_SUCCESS);
	}
	for (size_t k = 0; k < c->dst_end - c->dst_begin; k++)
		if (f->dst_mem[c->dst_begin + k] != expect[k])
			fail_msg(
				"byte %zu of the destination area: 0x%02x, expected 0x%02x (total %zu, %u src, %u dst)",
				k, f->dst_mem[c->dst_begin + k], expect[k], c->total, c->nsrc, c->ndst);
}

static void release_case(struct copy_case *c)
{
	doca_task_free(doca_dma_task_memcpy_as_task(c->task));
	fix_put(c->src_head);
	fix_put(c->dst_head);
	free(c->pre);
}

/* Waves of up to WAVE concurrent random tasks until @p num_tasks are checked. */
static void run_random(struct dma_fix *f, enum ferry_engine_kind engine, bool lists, unsigned num_tasks, uint32_t seed)
{
	struct copy_case cases[WAVE];
	unsigned done = 0;

	fix_start(f, WAVE, engine);
	fix_fill_random(f->src_mem, FIX_MEM_LEN, &seed);
	while (done < num_tasks) {
		size_t cursor = 0;
		unsigned n = 0;

		while (n < WAVE && done + n < num_tasks && make_case(f, &cases[n], &seed, lists, &cursor))
			n++;
		assert_true(n > 0);
		for (unsigned i = 0; i < n; i++) {
			build_bufs(f, &cases[i]);
			assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, cases[i].src_head, cases[i].dst_head,
									 no_data, &cases[i].task),
					 DOCA_SUCCESS);
			assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(cases[i].task)), DOCA_SUCCESS);
		}
		fix_wait_completions(f, n);
		assert_int_equal(f->errors, 0);
		for (unsigned i = 0; i < n; i++) {
			verify_case(f, &cases[i], true);
			release_case(&cases[i]);
		}
		done += n;
	}
	assert_int_equal(f->successes, num_tasks);
}

static void test_random_single(void **state)
{
	for (unsigned e = 0; e < FIX_NUM_ENGINES; e++) {
		struct dma_fix *f = *state;

		run_random(f, fix_engines[e], false, 160, 1000 + e);
		assert_true(fix_stop(f));
		f->successes = f->errors = 0;
	}
}

static void test_random_lists(void **state)
{
	for (unsigned e = 0; e < FIX_NUM_ENGINES; e++) {
		struct dma_fix *f = *state;

		run_random(f, fix_engines[e], true, 160, 2000 + e);
		assert_true(fix_stop(f));
		f->successes = f->errors = 0;
	}
}

/*
 * Every task of a full pool uses the longest lists with misaligned pieces, so
 * it needs 2 * max_list_len - 1 descriptors: far more than the channel holds.
 * All are accepted by submit and all complete, in submission order.
 */
static unsigned order_seen[64];
static unsigned order_count;

static void record_order(struct dma_fix *f, struct doca_dma_task_memcpy *task, bool success)
{
	(void)f;
	(void)success;
	order_seen[order_count++] = (unsigned)doca_task_get_user_data(doca_dma_task_memcpy_as_task(task)).u64;
}

static void test_backlog(void **state)
{
	struct dma_fix *f = *state;
	uint32_t max_list = 0, seed = 77;
	const unsigned ntasks = 64;
	const size_t src_piece = 40, dst_piece = 27; /* misaligned on purpose */

	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(f->dev), &max_list),
			 DOCA_SUCCESS);
	fix_fill_random(f->src_mem, FIX_MEM_LEN, &seed);
	f->on_complete = record_order;
	for (unsigned e = 0; e < FIX_NUM_ENGINES; e++) {
		struct doca_buf *src[64], *dst[64];
		struct doca_dma_task_memcpy *task[64];
		const size_t per_task = src_piece * max_list;

		memset(f->dst_mem, 0, FIX_MEM_LEN);
		order_count = 0;
		f->successes = f->errors = 0;
		fix_start(f, ntasks, fix_engines[e]);
		for (unsigned t = 0; t < ntasks; t++) {
			uint8_t *sbase = f->src_mem + t * per_task;
			uint8_t *dbase = f->dst_mem + t * 2 * per_task;
			union doca_data ud = {.u64 = t};

			src[t] = dst[t] = NULL;
			if (t % 4 == 3) {
				/* A pair task among the lists: it too waits behind the backlog, in order. */
				src[t] = fix_src_buf(f, f->src_mmap, sbase, 0, per_task);
				dst[t] = fix_dst_buf(f, f->dst_mmap, dbase, 0, per_task);
			}
			for (uint32_t i = 0; i < max_list && t % 4 != 3; i++) {
				struct doca_buf *sb = fix_src_buf(f, f->src_mmap, sbase, i * src_piece, src_piece);
				struct doca_buf *db = fix_dst_buf(f, f->dst_mmap, dbase, i * dst_piece,
								  i + 1 == max_list ? per_task : dst_piece);

				if (src[t] == NULL) {
					src[t] = sb;
					dst[t] = db;
				} else {
					assert_int_equal(doca_buf_chain_list(src[t], sb), DOCA_SUCCESS);
					assert_int_equal(doca_buf_chain_list(dst[t], db), DOCA_SUCCESS);
				}
			}
			assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src[t], dst[t], ud, &task[t]),
					 DOCA_SUCCESS);
			assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task[t])), DOCA_SUCCESS);
		}
		fix_wait_completions(f, ntasks);
		assert_int_equal(f->successes, ntasks);
		for (unsigned t = 0; t < ntasks; t++) {
			assert_int_equal(order_seen[t], t);
			assert_memory_equal(f->dst_mem + t * 2 * per_task, f->src_mem + t * per_task, per_task);
			if (t % 4 == 3)
				assert_int_equal(fix_data_len(dst[t]), per_task);
			doca_task_free(doca_dma_task_memcpy_as_task(task[t]));
			fix_put(src[t]);
			fix_put(dst[t]);
		}
		assert_true(fix_stop(f));
	}
}

/*
 * Stop with tasks in flight: doca_ctx_stop answers IN_PROGRESS, nothing
 * completes inside it, progress flushes every task (error callback,
 * DOCA_ERROR_IO_FAILED, destination data_len unchanged) or completes it if its
 * copy already finished, and the state callback sees RUNNING, STOPPING, IDLE.
 */
static void run_stop_in_flight(struct dma_fix *f, enum ferry_engine_kind engine, bool ring_doorbell)
{
	enum { N = 16 };
	const size_t len = 256 * 1024;
	struct doca_buf *src[N], *dst[N];
	struct doca_dma_task_memcpy *task[N];
	uint32_t seed = 31;
	size_t inflight = 0;
	enum doca_ctx_states st;

	fix_fill_random(f->src_mem, N * len, &seed);
	memset(f->dst_mem, 0, N * len);
	f->successes = f->errors = 0;
	f->num_states = 0;
	fix_start(f, N, engine);
	for (unsigned i = 0; i < N; i++) {
		src[i] = fix_src_buf(f, f->src_mmap, f->src_mem, i * len, len);
		dst[i] = fix_dst_buf(f, f->dst_mmap, f->dst_mem, i * len, len);
		assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src[i], dst[i], no_data, &task[i]),
				 DOCA_SUCCESS);
		assert_int_equal(
			doca_task_submit_ex(doca_dma_task_memcpy_as_task(task[i]),
					    ring_doorbell ? DOCA_TASK_SUBMIT_FLAG_FLUSH : DOCA_TASK_SUBMIT_FLAG_NONE),
			DOCA_SUCCESS);
	}
	assert_int_equal(doca_ctx_stop(f->ctx), DOCA_ERROR_IN_PROGRESS);
	assert_int_equal(f->successes + f->errors, 0);
	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f->ctx, &inflight), DOCA_SUCCESS);
	assert_int_equal(inflight, N);
	/* No new work while stopping. */
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task[0])), DOCA_ERROR_BAD_STATE);
	assert_true(fix_drain_inflight(f));
	assert_int_equal(f->successes + f->errors, N);
	/* Every task flushed but still held by the test: the context waits for them. */
	assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
	assert_int_equal(st, DOCA_CTX_STATE_STOPPING);
	if (!ring_doorbell && engine == FERRY_ENGINE_INLINE)
		assert_int_equal(f->errors, N); /* never rung: nothing could have started */
	for (unsigned i = 0; i < N; i++) {
		doca_error_t status = doca_task_get_status(doca_dma_task_memcpy_as_task(task[i]));

		if (status == DOCA_SUCCESS) {
			assert_int_equal(fix_data_len(dst[i]), len);
			assert_memory_equal(f->dst_mem + i * len, f->src_mem + i * len, len);
		} else {
			assert_int_equal(status, DOCA_ERROR_IO_FAILED);
			assert_int_equal(fix_data_len(dst[i]), 0);
		}
		doca_task_free(doca_dma_task_memcpy_as_task(task[i]));
		fix_put(src[i]);
		fix_put(dst[i]);
	}
	assert_true(fix_drain_to_idle(f));
	assert_int_equal(f->num_states, 3);
	assert_int_equal(f->states[0], DOCA_CTX_STATE_RUNNING);
	assert_int_equal(f->states[1], DOCA_CTX_STATE_STOPPING);
	assert_int_equal(f->states[2], DOCA_CTX_STATE_IDLE);
	/* The context starts again and copies after a flush. */
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
	assert_true(fix_stop(f));
}

static void test_stop_in_flight(void **state)
{
	struct dma_fix *f = *state;

	for (unsigned e = 0; e < FIX_NUM_ENGINES; e++) {
		run_stop_in_flight(f, fix_engines[e], false);
		run_stop_in_flight(f, fix_engines[e], true);
	}
}

/*
 * The teardown some programs do: free every submitted task, then stop. The
 * stop reaches IDLE through progress, no callback runs, no destination gains
 * data, one line is logged for the context (not one per task, not one per
 * start), and the pool is whole again: the next start allocates all of it.
 */
#define ORPHAN_LINE "is in flight; it returns to its pool when it completes, without a callback"

static void run_free_in_flight(struct dma_fix *f, enum ferry_engine_kind engine, bool ring_doorbell)
{
	enum { N = 16 };
	const size_t len = 256 * 1024;
	struct doca_buf *src[N], *dst[N];
	struct doca_dma_task_memcpy *task[N];
	uint32_t seed = 57;
	size_t inflight = 0;

	fix_fill_random(f->src_mem, N * len, &seed);
	memset(f->dst_mem, 0, N * len);
	f->successes = f->errors = 0;
	f->num_states = 0;
	fix_start(f, N, engine);
	for (unsigned i = 0; i < N; i++) {
		src[i] = fix_src_buf(f, f->src_mmap, f->src_mem, i * len, len);
		dst[i] = fix_dst_buf(f, f->dst_mmap, f->dst_mem, i * len, len);
		assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src[i], dst[i], no_data, &task[i]),
				 DOCA_SUCCESS);
		assert_int_equal(
			doca_task_submit_ex(doca_dma_task_memcpy_as_task(task[i]),
					    ring_doorbell ? DOCA_TASK_SUBMIT_FLAG_FLUSH : DOCA_TASK_SUBMIT_FLAG_NONE),
			DOCA_SUCCESS);
	}
	for (unsigned i = 0; i < N; i++)
		doca_task_free(doca_dma_task_memcpy_as_task(task[i]));
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f->ctx, &inflight), DOCA_SUCCESS);
	assert_int_equal(inflight, N);
	(void)doca_ctx_stop(f->ctx);
	assert_true(fix_drain_to_idle(f));
	assert_int_equal(f->successes + f->errors, 0);
	assert_int_equal(doca_ctx_get_num_inflight_tasks(f->ctx, &inflight), DOCA_SUCCESS);
	assert_int_equal(inflight, 0);
	assert_int_equal(f->dma->pool.num_free, N);
	assert_int_equal(f->num_states, 3);
	assert_int_equal(f->states[1], DOCA_CTX_STATE_STOPPING);
	assert_int_equal(f->states[2], DOCA_CTX_STATE_IDLE);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(fix_data_len(dst[i]), 0); /* an orphan's result is nobody's */
		assert_int_equal(fix_data_len(src[i]), len);
	}
	/* The whole pool again, and it copies. */
	assert_int_equal(doca_ctx_start(f->ctx), DOCA_SUCCESS);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src[i], dst[i], no_data, &task[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task[i])), DOCA_SUCCESS);
	}
	fix_wait_completions(f, N);
	assert_int_equal(f->successes, N);
	for (unsigned i = 0; i < N; i++) {
		assert_int_equal(fix_data_len(dst[i]), len);
		assert_memory_equal(f->dst_mem + i * len, f->src_mem + i * len, len);
		doca_task_free(doca_dma_task_memcpy_as_task(task[i]));
		fix_put(src[i]);
		fix_put(dst[i]);
	}
	assert_true(fix_stop(f));
	assert_int_equal(ferry_test_log_count(ORPHAN_LINE), 1);
}

static void test_free_in_flight_then_stop(void **state)
{
	struct dma_fix *f = *state;

	ferry_test_log_reset();
	for (unsigned e = 0; e < FIX_NUM_ENGINES; e++) {
		run_free_in_flight(f, fix_engines[e], false);
		run_free_in_flight(f, fix_engines[e], true);
	}
}

/*
 * Orphans that wait in the backlog (tasks of the longest lists, more
 * descriptors than the channel holds), freed while the context runs: their
 * walk stops, they go back to the pool without a callback and without an
 * error, so the context keeps RUNNING and the pool is whole once they are in.
 */
static void test_free_in_flight_backlog(void **state)
{
	struct dma_fix *f = *state;
	enum { N = 64 };
	uint32_t max_list = 0;
	const size_t piece = 40;
	enum doca_ctx_states st;

	assert_int_equal(doca_dma_cap_task_memcpy_get_max_buf_list_len(doca_dev_as_devinfo(f->dev), &max_list),
			 DOCA_SUCCESS);
	for (unsigned e = 0; e < FIX_NUM_ENGINES; e++) {
		struct doca_buf *src[N], *dst[N];
		struct doca_dma_task_memcpy *task[N];

		const size_t per_task = max_list * piece;
		uint8_t *last_dst = f->dst_mem + (N - 1) * per_task;

		memset(f->src_mem, 0x5a, N * per_task);
		memset(f->dst_mem, 0, N * per_task);
		f->successes = f->errors = 0;
		fix_start(f, N, fix_engines[e]);
		for (unsigned t = 0; t < N; t++) {
			src[t] = dst[t] = NULL;
			for (uint32_t i = 0; i < max_list; i++) {
				size_t off = ((size_t)t * max_list + i) * piece;
				struct doca_buf *sb = fix_src_buf(f, f->src_mmap, f->src_mem, off, piece);
				struct doca_buf *db = fix_dst_buf(f, f->dst_mmap, f->dst_mem, off, piece);

				if (src[t] == NULL) {
					src[t] = sb;
					dst[t] = db;
				} else {
					assert_int_equal(doca_buf_chain_list(src[t], sb), DOCA_SUCCESS);
					assert_int_equal(doca_buf_chain_list(dst[t], db), DOCA_SUCCESS);
				}
			}
			assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src[t], dst[t], no_data, &task[t]),
					 DOCA_SUCCESS);
			assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task[t])), DOCA_SUCCESS);
		}
		assert_non_null(f->dma->backlog.head);
		for (unsigned t = 0; t < N; t++)
			doca_task_free(doca_dma_task_memcpy_as_task(task[t]));
		assert_true(fix_drain_inflight(f));
		assert_int_equal(f->successes + f->errors, 0);
		assert_null(f->dma->backlog.head);
		assert_int_equal(f->dma->pool.num_free, N);
		assert_int_equal(doca_ctx_get_state(f->ctx, &st), DOCA_SUCCESS);
		assert_int_equal(st, DOCA_CTX_STATE_RUNNING);
		/* The last task never left the backlog: not one of its bytes was copied. */
		for (size_t i = 0; i < per_task; i++)
			assert_int_equal(last_dst[i], 0);
		for (unsigned t = 0; t < N; t++) {
			fix_put(src[t]);
			fix_put(dst[t]);
		}
		assert_true(fix_stop(f));
	}
}

/* A callback that resubmits its own task keeps a full pipeline; bytes stay right. */
static unsigned resubmits_left;

static void resubmit(struct dma_fix *f, struct doca_dma_task_memcpy *task, bool success)
{
	struct doca_buf *dst = doca_dma_task_memcpy_get_dst(task);

	assert_true(success);
	(void)f;
	if (resubmits_left == 0)
		return;
	resubmits_left--;
	assert_int_equal(doca_buf_reset_data_len(dst), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task)), DOCA_SUCCESS);
}

static void test_resubmit_from_callback(void **state)
{
	struct dma_fix *f = *state;
	enum { N = 8 };
	struct doca_buf *src[N], *dst[N];
	struct doca_dma_task_memcpy *task[N];
	uint32_t seed = 4;

	fix_fill_random(f->src_mem, N * 4096, &seed);
	f->on_complete = resubmit;
	for (unsigned e = 0; e < FIX_NUM_ENGINES; e++) {
		f->successes = f->errors = 0;
		resubmits_left = 1000;
		memset(f->dst_mem, 0, N * 4096);
		fix_start(f, N, fix_engines[e]);
		for (unsigned i = 0; i < N; i++) {
			src[i] = fix_src_buf(f, f->src_mmap, f->src_mem, i * 4096, 64 + i * 100);
			dst[i] = fix_dst_buf(f, f->dst_mmap, f->dst_mem, i * 4096, 4096);
			assert_int_equal(doca_dma_task_memcpy_alloc_init(f->dma, src[i], dst[i], no_data, &task[i]),
					 DOCA_SUCCESS);
			assert_int_equal(doca_task_submit(doca_dma_task_memcpy_as_task(task[i])), DOCA_SUCCESS);
		}
		fix_wait_completions(f, 1000 + N);
		assert_int_equal(f->errors, 0);
		for (unsigned i = 0; i < N; i++) {
			assert_int_equal(fix_data_len(dst[i]), 64 + i * 100);
			assert_memory_equal(f->dst_mem + i * 4096, f->src_mem + i * 4096, 64 + i * 100);
			doca_task_free(doca_dma_task_memcpy_as_task(task[i]));
			fix_put(src[i]);
			fix_put(dst[i]);
		}
		assert_true(fix_stop(f));
	}
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fix_setup, fix_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_random_single),          T(test_random_lists),           T(test_backlog),
		T(test_stop_in_flight),         T(test_resubmit_from_callback), T(test_free_in_flight_then_stop),
		T(test_free_in_flight_backlog),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
