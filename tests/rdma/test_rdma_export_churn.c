/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_export_churn.c - a target destroys its RDMA exports, and frees
 * their memory, while a peer reads them as fast as it can.
 *
 * The target's context is never progressed by the test: its service thread
 * serves the reads (rdma_rma.c), walking the export table without a lock
 * while another thread of the target links and unlinks exports
 * (rdma_mem.c). A destroyed export must never be touched again: every read
 * either lands whole and checked, or fails DOCA_ERROR_NOT_FOUND; ASan sees any
 * read of a freed entry or of freed memory, TSan any race.
 *
 * Such an overlap is rare in a run, so the rule under it is also tested
 * alone: a destroy waits while a context is inside the export
 * (rdma_mem_serve_begin .. _end), and returns once it leaves.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "common/ferry_bytes.h"
#include "rdma/rdma_desc_priv.h"
#include "rdma/rdma_priv.h"
#include "rdma_fixture.h"

#define CHURN_ROUNDS 150
#define CHURN_LEN    (64u << 10)

struct churn {
	struct side *target;
	pthread_mutex_t lock;
	uint8_t desc[4096]; /* the newest export's descriptor */
	size_t desc_len;
	uint32_t seed; /* the pattern in its memory */
	void *addr;    /* its address in the target */
	bool done;
};

/* One export of fresh memory holding pattern @p seed: published, kept a moment, destroyed and freed. */
static void churn_round(struct churn *c, uint32_t seed)
{
	uint8_t *mem = aligned_alloc(64, CHURN_LEN);
	struct doca_mmap *m = NULL;
	const void *d;
	size_t len;

	assert_non_null(mem);
	pattern_fill(mem, CHURN_LEN, seed);
	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, mem, CHURN_LEN), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ),
			 DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, c->target->dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(m, c->target->dev, &d, &len), DOCA_SUCCESS);
	assert_true(len <= sizeof(c->desc));
	pthread_mutex_lock(&c->lock);
	memcpy(c->desc, d, len);
	c->desc_len = len;
	c->seed = seed;
	c->addr = mem;
	pthread_mutex_unlock(&c->lock);
	usleep(1000 + (seed % 4) * 500);
	assert_int_equal(doca_mmap_stop(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
	/* Poison, then free: a read served after the destroy would show it (and ASan would stop it). */
	memset(mem, 0xdd, CHURN_LEN);
	free(mem);
}

static void *churn_main(void *arg)
{
	struct churn *c = arg;

	for (uint32_t r = 1; r <= CHURN_ROUNDS; r++)
		churn_round(c, r);
	pthread_mutex_lock(&c->lock);
	c->done = true;
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Progress @p s until @p n of its tasks completed, either way; false after 5 s. */
static bool wait_done(struct side *s, unsigned int n)
{
	uint64_t end = side_now_ms() + 5000;

	while (s->ok + s->failed < n)
		if (doca_pe_progress(s->pe) == 0 && side_now_ms() > end)
			return false;
	return true;
}

/* Read the whole of the newest export once; true when it landed (checked), false when it failed NOT_FOUND. */
static bool read_newest(struct churn *c, struct side *peer, struct doca_rdma_connection *conn, bool *have)
{
	uint8_t desc[4096];
	size_t len;
	uint32_t seed;
	void *addr;
	struct doca_mmap *remote = NULL;
	struct doca_buf *src, *dst;
	struct doca_rdma_task_read *rt;
	unsigned int seen;
	bool ok;

	pthread_mutex_lock(&c->lock);
	len = c->desc_len;
	memcpy(desc, c->desc, len);
	seed = c->seed;
	addr = c->addr;
	pthread_mutex_unlock(&c->lock);
	*have = len != 0;
	if (len == 0)
		return false;
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, len, peer->dev, &remote), DOCA_SUCCESS);
	src = side_remote_buf(peer, remote, addr, CHURN_LEN, CHURN_LEN);
	dst = side_buf(peer, 0, CHURN_LEN, 0);
	assert_non_null(src);
	assert_non_null(dst);
	memset(peer->mem, 0, CHURN_LEN);
	assert_int_equal(doca_rdma_task_read_allocate_init(peer->rdma, conn, src, dst, (union doca_data){0}, &rt),
			 DOCA_SUCCESS);
	seen = peer->ok + peer->failed;
	assert_int_equal(doca_task_submit(doca_rdma_task_read_as_task(rt)), DOCA_SUCCESS);
	assert_true(wait_done(peer, seen + 1));
	ok = peer->last_status == DOCA_SUCCESS;
	if (ok)
		assert_true(pattern_check(peer->mem, CHURN_LEN, seed));
	else
		assert_int_equal(peer->last_status, DOCA_ERROR_NOT_FOUND);
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	assert_int_equal(doca_mmap_destroy(remote), DOCA_SUCCESS);
	return ok;
}

static void test_reads_while_exports_go(void **state)
{
	struct side a = {0}, b = {0};
	struct doca_rdma_connection *ca, *cb;
	struct churn c = {.target = &a, .lock = PTHREAD_MUTEX_INITIALIZER};
	const void *da, *db;
	size_t la, lb;
	unsigned int landed = 0, gone = 0;
	pthread_t t;
	bool have, done = false;

	(void)state;
	assert_int_equal(side_init(&a, DOCA_ACCESS_FLAG_RDMA_READ, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(side_init(&b, DOCA_ACCESS_FLAG_RDMA_READ, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(a.rdma, &da, &la, &ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_export(b.rdma, &db, &lb, &cb), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(a.rdma, db, lb, ca), DOCA_SUCCESS);
	assert_int_equal(doca_rdma_connect(b.rdma, da, la, cb), DOCA_SUCCESS);
	assert_int_equal(pthread_create(&t, NULL, churn_main, &c), 0);
	while (!done) {
		if (read_newest(&c, &b, cb, &have))
			landed++;
		else if (have)
			gone++;
		pthread_mutex_lock(&c.lock);
		done = c.done;
		pthread_mutex_unlock(&c.lock);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	print_message("reads landed %u, refused as gone %u\n", landed, gone);
	assert_true(landed > 0);
	/* The last export is gone too: a read of it fails, and the target still serves nothing freed. */
	assert_false(read_newest(&c, &b, cb, &have));
	assert_true(side_stop(&b, &a));
	assert_true(side_stop(&a, &b));
	side_fini(&a);
	side_fini(&b);
}

struct destroyer {
	struct doca_mmap *m;
	_Atomic bool returned;
};

static void *destroy_main(void *arg)
{
	struct destroyer *d = arg;

	assert_int_equal(doca_mmap_stop(d->m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(d->m), DOCA_SUCCESS);
	atomic_store(&d->returned, true);
	return NULL;
}

static void test_destroy_waits_for_a_serving_context(void **state)
{
	static uint8_t mem[4096];
	struct rdma_serve_slot slot, other;
	struct ferry_rdma_mem_desc md;
	struct destroyer d = {0};
	enum rdma_rma_status st;
	struct doca_dev *dev = side_open_dev();
	const char *why = NULL;
	const void *desc;
	uint64_t id, key;
	size_t len;
	pthread_t t;

	(void)state;
	assert_non_null(dev);
	memset(&slot, 0, sizeof(slot));
	memset(&other, 0, sizeof(other));
	rdma_mem_slot_add(&slot);
	rdma_mem_slot_add(&other);
	assert_int_equal(doca_mmap_create(&d.m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(d.m, mem, sizeof(mem)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(d.m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ),
			 DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(d.m, dev), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(d.m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_rdma(d.m, dev, &desc, &len), DOCA_SUCCESS);
	assert_int_equal(ferry_rdma_mem_desc_decode(desc, len, &md, &why), DOCA_SUCCESS);
	id = ferry_le_get64(md.body);
	key = ferry_le_get64(md.body + 8);
	/* Refused: a wrong key, a range past the end, a write of a read-only export. */
	assert_null(rdma_mem_serve_begin(&slot, id, key + 1, (uintptr_t)mem, 8, DOCA_ACCESS_FLAG_RDMA_READ, &st));
	assert_int_equal(st, RDMA_RMA_NO_EXPORT);
	assert_null(rdma_mem_serve_begin(&slot, id, key, (uintptr_t)mem + 4090, 8, DOCA_ACCESS_FLAG_RDMA_READ, &st));
	assert_int_equal(st, RDMA_RMA_NO_EXPORT);
	assert_null(rdma_mem_serve_begin(&slot, id, key, (uintptr_t)mem, 8, DOCA_ACCESS_FLAG_RDMA_WRITE, &st));
	assert_int_equal(st, RDMA_RMA_NOT_PERMITTED);
	/* Inside the export: the destroy waits. */
	assert_ptr_equal(rdma_mem_serve_begin(&slot, id, key, (uintptr_t)mem + 8, 8, DOCA_ACCESS_FLAG_RDMA_READ, &st),
			 mem + 8);
	assert_int_equal(pthread_create(&t, NULL, destroy_main, &d), 0);
	usleep(200000);
	assert_false(atomic_load(&d.returned));
	/* Once it leaves, the destroy returns, and the export is gone. */
	rdma_mem_serve_end(&slot);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(atomic_load(&d.returned));
	assert_null(rdma_mem_serve_begin(&other, id, key, (uintptr_t)mem, 8, DOCA_ACCESS_FLAG_RDMA_READ, &st));
	assert_int_equal(st, RDMA_RMA_NO_EXPORT);
	rdma_mem_slot_remove(&slot);
	rdma_mem_slot_remove(&other);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_destroy_waits_for_a_serving_context),
		cmocka_unit_test(test_reads_while_exports_go),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
