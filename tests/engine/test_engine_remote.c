/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_engine_remote.c - descriptors whose source or destination lies in
 * another process (an import of ordinary memory, reached by cross-memory
 * attach): a channel opened with cfg.cross_process (always inline) copies them
 * through their access paths' ops (src/link/ferry_access.h) and hands each
 * status out per descriptor, a run of writes through one path gathered into
 * one write_gather; any other channel (inline, worker, auto) refuses them with
 * NOT_SUPPORTED and a line; a cross-process channel is inline whatever
 * FERRY_DMA_ENGINE says. And the path each import gets: shared for memfd
 * memory, cma for ordinary memory, local for our own export; none (NULL) for
 * memory that was never imported, whose descriptors carry no access fields.
 *
 * The remote handles are real: the group setup forks exporter processes that
 * malloc a buffer, fill it with a known pattern and export it with
 * doca_mmap_export_pci; this process imports each export as the DPU would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_mmap.h>
#include <ferry_mem.h>

#include "core/ferry_memview.h"
#include "engine/engine_priv.h"
#include "engine_test.h"
#include "ferry_test.h"
#include "ferry_test_dev.h"
#include "link/ferry_access.h"

#define EXPORT_LEN ((size_t)256 * 1024)
#define PIECE      ((size_t)4096)

/* One exporter process and this process's import of its buffer. */
struct exporter {
	pid_t pid;
	int hold_fd;     /* write end of a pipe; closing it lets the child exit */
	uint64_t addr;   /* the buffer, in the exporter's address space */
	uint32_t access; /* DOCA_ACCESS_FLAG_PCI_READ_WRITE or _READ_ONLY */
	uint8_t seed;
	struct doca_mmap *import;
	const struct ferry_access *remote; /* its access path (cma, or shared for EXP_SHARED) */
};

/* EXP_SHARED exports memfd memory (ferry_mem_alloc_shared); the others malloc'd memory. */
enum { EXP_RW, EXP_RO, EXP_DOOMED, EXP_SHARED, EXP_COUNT };

static struct exporter exporters[EXP_COUNT];
static struct doca_dev *dpu_dev;

/* Byte i of an exporter's buffer before anyone writes to it. */
static inline uint8_t pattern(uint8_t seed, size_t i)
{
	return (uint8_t)(seed + i * 131u + (i >> 8));
}

static bool write_all(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len) == (ssize_t)len;
}

/* The child: export a malloc'd (or shared) buffer, send address and descriptor, wait for EOF. */
static void exporter_main(int out, int hold, uint32_t access, uint8_t seed, bool shared)
{
	uint8_t *mem = shared ? ferry_mem_alloc_shared(EXPORT_LEN) : malloc(EXPORT_LEN);
	struct doca_dev *dev = ferry_test_open_dev("b1:00.0", NULL);
	struct doca_mmap *mmap = NULL;
	const void *desc = NULL;
	size_t desc_len = 0;
	uint64_t addr = (uintptr_t)mem;
	char c;

	if (mem == NULL || dev == NULL)
		_exit(3);
	for (size_t i = 0; i < EXPORT_LEN; i++)
		mem[i] = pattern(seed, i);
	if (doca_mmap_create(&mmap) != DOCA_SUCCESS || doca_mmap_add_dev(mmap, dev) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(mmap, mem, EXPORT_LEN) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | access) != DOCA_SUCCESS ||
	    doca_mmap_start(mmap) != DOCA_SUCCESS || doca_mmap_export_pci(mmap, dev, &desc, &desc_len) != DOCA_SUCCESS)
		_exit(4);
	if (!write_all(out, &addr, sizeof(addr)) || !write_all(out, &desc_len, sizeof(desc_len)) ||
	    !write_all(out, desc, desc_len))
		_exit(5);
	close(out);
	while (read(hold, &c, 1) > 0)
		;
	_exit(0);
}

static int spawn_exporter(struct exporter *e, uint32_t access, uint8_t seed, bool shared)
{
	int out[2], hold[2];
	uint8_t desc[512];
	size_t desc_len = 0;
	FILE *in;

	if (pipe(out) != 0 || pipe(hold) != 0)
		return -1;
	e->pid = fork();
	if (e->pid < 0)
		return -1;
	if (e->pid == 0) {
		/* Hold no other exporter's pipe, or that one would never see EOF. */
		for (int i = 0; i < EXP_COUNT; i++)
			if (exporters[i].hold_fd >= 0)
				close(exporters[i].hold_fd);
		close(out[0]);
		close(hold[1]);
		exporter_main(out[1], hold[0], access, seed, shared);
	}
	close(out[1]);
	close(hold[0]);
	e->hold_fd = hold[1];
	e->access = access;
	e->seed = seed;
	in = fdopen(out[0], "r");
	if (in == NULL || fread(&e->addr, sizeof(e->addr), 1, in) != 1 ||
	    fread(&desc_len, sizeof(desc_len), 1, in) != 1 || desc_len > sizeof(desc) ||
	    fread(desc, 1, desc_len, in) != desc_len) {
		fprintf(stderr, "test_engine_remote: exporter %d sent no descriptor\n", (int)e->pid);
		return -1;
	}
	fclose(in);
	if (doca_mmap_create_from_export(NULL, desc, desc_len, dpu_dev, &e->import) != DOCA_SUCCESS)
		return -1;
	e->remote = ferry_mmap_access_path(e->import);
	return e->remote == NULL ? -1 : 0;
}

static void reap_exporter(struct exporter *e)
{
	if (e->import != NULL)
		(void)doca_mmap_destroy(e->import);
	e->import = NULL;
	if (e->hold_fd >= 0)
		close(e->hold_fd);
	e->hold_fd = -1;
	if (e->pid > 0)
		(void)waitpid(e->pid, NULL, 0);
	e->pid = 0;
}

/* Fork before anything starts a thread: the children run only the export path. */
static int setup(void **state)
{
	char domain[64];

	(void)state;
	snprintf(domain, sizeof(domain), "engine-remote-%d", (int)getpid());
	setenv("FERRY_DOMAIN", domain, 1);
	unsetenv("FERRY_DMA_ENGINE");
	for (int i = 0; i < EXP_COUNT; i++)
		exporters[i].hold_fd = -1;
	dpu_dev = ferry_test_open_dev("03:00.0", NULL);
	if (dpu_dev == NULL)
		return -1;
	if (spawn_exporter(&exporters[EXP_RW], DOCA_ACCESS_FLAG_PCI_READ_WRITE, 0x11, false) != 0 ||
	    spawn_exporter(&exporters[EXP_RO], DOCA_ACCESS_FLAG_PCI_READ_ONLY, 0x22, false) != 0 ||
	    spawn_exporter(&exporters[EXP_DOOMED], DOCA_ACCESS_FLAG_PCI_READ_WRITE, 0x33, false) != 0 ||
	    spawn_exporter(&exporters[EXP_SHARED], DOCA_ACCESS_FLAG_PCI_READ_WRITE, 0x44, true) != 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < EXP_COUNT; i++)
		reap_exporter(&exporters[i]);
	if (dpu_dev != NULL)
		doca_dev_close(dpu_dev);
	return 0;
}

static struct ferry_chan *open_chan(enum ferry_engine_kind kind, bool cross_process)
{
	struct ferry_chan_cfg cfg = {.kind = kind, .depth = 16, .cross_process = cross_process};
	struct ferry_chan *chan = NULL;

	assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_SUCCESS);
	return chan;
}

/* A descriptor reading @p len bytes at offset @p off of exporter @p e into @p dst. */
static struct ferry_copy_xdesc remote_read(const struct exporter *e, size_t off, void *dst, size_t len, uint64_t cookie)
{
	struct ferry_copy_xdesc d = {
		.desc = {.dst = dst, .src = (const void *)(uintptr_t)(e->addr + off), .len = len, .cookie = cookie},
		.src_access = e->remote};
	return d;
}

/* A descriptor writing @p len bytes of @p src to offset @p off of exporter @p e. */
static struct ferry_copy_xdesc remote_write(const struct exporter *e, size_t off, const void *src, size_t len,
					    uint64_t cookie)
{
	struct ferry_copy_xdesc d = {
		.desc = {.dst = (void *)(uintptr_t)(e->addr + off), .src = src, .len = len, .cookie = cookie},
		.dst_access = e->remote};
	return d;
}

static int holds_pattern(const uint8_t *p, uint8_t seed, size_t off, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern(seed, off + i))
			return 0;
	return 1;
}

/* Enqueue @p n descriptors, ring once, and poll all completions back in order. */
static void run_batch(struct ferry_chan *chan, const struct ferry_copy_xdesc *d, struct ferry_copy_cpl *cpl, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(ferry_chan_enqueue_cross(chan, &d[i]), DOCA_SUCCESS);
	ferry_chan_doorbell(chan);
	assert_int_equal(poll_all(chan, cpl, n), n);
	assert_int_equal(ferry_chan_poll(chan, cpl + n, 1), 0);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(cpl[i].cookie, d[i].desc.cookie);
}

/* ---- channels not opened cross_process refuse remote descriptors, whatever their engine ---- */

static void test_ordinary_channels_refuse(void **state)
{
	enum ferry_engine_kind kind = test_kind(state);
	const struct exporter *e = &exporters[EXP_RW];
	struct ferry_chan *chan;
	struct guarded g;
	struct ferry_copy_xdesc d;
	struct ferry_copy_desc local;
	struct ferry_copy_cpl cpl[2];
	uint8_t src[PIECE];

	chan = open_chan(kind, false);
	guarded_alloc(&g, PIECE);
	/* Remote source, remote destination, both: each refused with a line, nothing written. */
	d = remote_read(e, 0, g.dst, PIECE, 1);
	ferry_test_log_reset();
	assert_int_equal(ferry_chan_enqueue_cross(chan, &d), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("another process");
	assert_logged(ferry_engine_kind_name(kind));
	memset(src, 0x77, sizeof(src));
	d = remote_write(e, 0, src, PIECE, 2);
	ferry_test_log_reset();
	assert_int_equal(ferry_chan_enqueue_cross(chan, &d), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("another process");
	d.desc.src = (const void *)(uintptr_t)e->addr;
	d.src_access = e->remote;
	assert_int_equal(ferry_chan_enqueue_cross(chan, &d), DOCA_ERROR_NOT_SUPPORTED);
	/* Even an empty copy: the engine cannot tell that it would touch nothing remote. */
	d = remote_read(e, 0, NULL, 0, 3);
	assert_int_equal(ferry_chan_enqueue_cross(chan, &d), DOCA_ERROR_NOT_SUPPORTED);
	ferry_chan_doorbell(chan);
	/* The refusals took no slot and produce no completion; the channel still works. */
	local = (struct ferry_copy_desc){.dst = g.dst, .src = src, .len = PIECE, .cookie = 9};
	assert_int_equal(ferry_chan_enqueue(chan, &local), DOCA_SUCCESS);
	ferry_chan_doorbell(chan);
	assert_int_equal(poll_all(chan, cpl, 1), 1);
	assert_int_equal(cpl[0].cookie, 9);
	assert_int_equal(cpl[0].status, DOCA_SUCCESS);
	assert_true(guarded_check(&g, src));
	assert_int_equal(ferry_chan_poll(chan, cpl, 2), 0);
	ferry_chan_close(chan);
	guarded_free(&g);
	/* The exporter's buffer was not written. */
	assert_int_equal(e->remote->ops->read(e->remote, src, e->addr, PIECE), DOCA_SUCCESS);
	assert_true(holds_pattern(src, e->seed, 0, PIECE));
}

/* ---- a cross-process (inline) channel copies them ---- */

/* Remote to local, local to remote, remote to remote; each completes with SUCCESS. */
static void test_inline_copies_remote(void **state)
{
	struct exporter *e = &exporters[EXP_RW];
	struct ferry_chan *chan = open_chan(FERRY_ENGINE_INLINE, true);
	struct guarded got, back, moved;
	struct ferry_copy_xdesc d[4];
	struct ferry_copy_cpl cpl[5];
	uint8_t mine[PIECE], want[PIECE];

	(void)state;
	guarded_alloc(&got, PIECE);
	guarded_alloc(&back, PIECE);
	guarded_alloc(&moved, PIECE);
	for (size_t i = 0; i < PIECE; i++)
		mine[i] = (uint8_t)(i * 7 + 3);
	/* Last piece of the range: the boundary is inclusive. */
	d[0] = remote_read(e, EXPORT_LEN - PIECE, got.dst, PIECE, 10);
	d[1] = remote_write(e, 2 * PIECE, mine, PIECE, 11);
	/* Remote to remote (bounce buffer): piece 4 onto piece 5 of the same export. */
	d[2] = remote_write(e, 5 * PIECE, NULL, PIECE, 12);
	d[2].desc.src = (const void *)(uintptr_t)(e->addr + 4 * PIECE);
	d[2].src_access = e->remote;
	/* Empty remote copy: legal, touches nothing. */
	d[3] = remote_read(e, EXPORT_LEN, NULL, 0, 13);
	run_batch(chan, d, cpl, 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(cpl[i].status, DOCA_SUCCESS);
	for (size_t i = 0; i < PIECE; i++)
		want[i] = pattern(e->seed, EXPORT_LEN - PIECE + i);
	assert_true(guarded_check(&got, want));

	/* Read both written pieces back through the engine. */
	d[0] = remote_read(e, 2 * PIECE, back.dst, PIECE, 20);
	d[1] = remote_read(e, 5 * PIECE, moved.dst, PIECE, 21);
	run_batch(chan, d, cpl, 2);
	assert_int_equal(cpl[0].status, DOCA_SUCCESS);
	assert_int_equal(cpl[1].status, DOCA_SUCCESS);
	assert_true(guarded_check(&back, mine));
	for (size_t i = 0; i < PIECE; i++)
		want[i] = pattern(e->seed, 4 * PIECE + i);
	assert_true(guarded_check(&moved, want));

	/* Put the exporter's bytes back for the other tests. */
	for (size_t i = 0; i < PIECE; i++)
		want[i] = pattern(e->seed, 2 * PIECE + i);
	d[0] = remote_write(e, 2 * PIECE, want, PIECE, 30);
	run_batch(chan, d, cpl, 1);
	for (size_t i = 0; i < PIECE; i++)
		mine[i] = pattern(e->seed, 5 * PIECE + i);
	d[0] = remote_write(e, 5 * PIECE, mine, PIECE, 31);
	run_batch(chan, d, cpl, 1);
	assert_int_equal(cpl[0].status, DOCA_SUCCESS);
	ferry_chan_close(chan);
	guarded_free(&got);
	guarded_free(&back);
	guarded_free(&moved);
}

/*
 * One batch mixing good and failing descriptors: each failure carries
 * its access path's status, its destination is untouched, and the others copy.
 */
static void test_inline_status_per_descriptor(void **state)
{
	const struct exporter *rw = &exporters[EXP_RW], *ro = &exporters[EXP_RO];
	struct ferry_chan *chan = open_chan(FERRY_ENGINE_INLINE, true);
	struct guarded local_ok, outside, after_ok;
	struct ferry_copy_xdesc d[5];
	struct ferry_copy_cpl cpl[6];
	uint8_t src[PIECE], check[PIECE];

	(void)state;
	guarded_alloc(&local_ok, PIECE);
	guarded_alloc(&outside, PIECE);
	guarded_alloc(&after_ok, PIECE);
	memset(src, 0x3c, sizeof(src));
	d[0] = (struct ferry_copy_xdesc){.desc = {.dst = local_ok.dst, .src = src, .len = PIECE, .cookie = 1}};
	/* One byte past the end of the export. */
	d[1] = remote_read(rw, EXPORT_LEN - PIECE + 1, outside.dst, PIECE, 2);
	/* Writing to a PCI_READ_ONLY export. */
	d[2] = remote_write(ro, 0, src, PIECE, 3);
	d[3] = remote_read(ro, PIECE, after_ok.dst, PIECE, 4);
	d[4] = remote_read(rw, 0, NULL, 1, 5);
	d[4].desc.dst = check;
	ferry_test_log_reset();
	run_batch(chan, d, cpl, 5);
	assert_int_equal(cpl[0].status, DOCA_SUCCESS);
	assert_int_equal(cpl[1].status, DOCA_ERROR_INVALID_VALUE);
	assert_logged("outside the export");
	assert_int_equal(cpl[2].status, DOCA_ERROR_NOT_PERMITTED);
	assert_logged("read-only");
	assert_int_equal(cpl[3].status, DOCA_SUCCESS);
	assert_int_equal(cpl[4].status, DOCA_SUCCESS);
	assert_true(guarded_check(&local_ok, src));
	assert_true(guarded_untouched(&outside));
	assert_true(holds_pattern(after_ok.dst, ro->seed, PIECE, PIECE));
	assert_int_equal(check[0], pattern(rw->seed, 0));
	/* The read-only export kept its bytes. */
	assert_int_equal(ro->remote->ops->read(ro->remote, check, ro->addr, PIECE), DOCA_SUCCESS);
	assert_true(holds_pattern(check, ro->seed, 0, PIECE));
	ferry_chan_close(chan);
	guarded_free(&local_ok);
	guarded_free(&outside);
	guarded_free(&after_ok);
}

/* A cancel before the doorbell fails the remote descriptor without copying. */
static void test_inline_cancel_remote(void **state)
{
	const struct exporter *e = &exporters[EXP_RW];
	struct ferry_chan *chan = open_chan(FERRY_ENGINE_INLINE, true);
	struct guarded g;
	struct ferry_copy_xdesc d;
	struct ferry_copy_cpl cpl[2];

	(void)state;
	guarded_alloc(&g, PIECE);
	d = remote_read(e, 0, g.dst, PIECE, 7);
	assert_int_equal(ferry_chan_enqueue_cross(chan, &d), DOCA_SUCCESS);
	ferry_chan_cancel(chan);
	ferry_chan_doorbell(chan);
	assert_int_equal(poll_all(chan, cpl, 1), 1);
	assert_int_equal(cpl[0].cookie, 7);
	assert_int_equal(cpl[0].status, DOCA_ERROR_IO_FAILED);
	assert_true(guarded_untouched(&g));
	ferry_chan_close(chan);
	guarded_free(&g);
}

/*
 * The exporter is SIGKILLed: its descriptors complete with NOT_CONNECTED,
 * nothing is written locally, and the live exporter's descriptors around
 * them in the same batch still copy.
 */
static void test_inline_exporter_gone(void **state)
{
	struct exporter *dead = &exporters[EXP_DOOMED];
	const struct exporter *live = &exporters[EXP_RW];
	struct ferry_chan *chan = open_chan(FERRY_ENGINE_INLINE, true);
	struct guarded before, gone, after;
	struct ferry_copy_xdesc d[4];
	struct ferry_copy_cpl cpl[5];
	uint8_t src[PIECE];

	(void)state;
	guarded_alloc(&before, PIECE);
	guarded_alloc(&gone, PIECE);
	guarded_alloc(&after, PIECE);
	/* Alive first: the same handle copies. */
	d[0] = remote_read(dead, 0, gone.dst, PIECE, 1);
	run_batch(chan, d, cpl, 1);
	assert_int_equal(cpl[0].status, DOCA_SUCCESS);
	assert_true(holds_pattern(gone.dst, dead->seed, 0, PIECE));
	memset(gone.dst, GUARD_FILL, PIECE);

	assert_int_equal(kill(dead->pid, SIGKILL), 0);
	assert_int_equal(waitpid(dead->pid, NULL, 0), dead->pid);
	dead->pid = 0;
	memset(src, 0x42, sizeof(src));
	d[0] = remote_read(live, 0, before.dst, PIECE, 1);
	d[1] = remote_read(dead, 0, gone.dst, PIECE, 2);
	d[2] = remote_write(dead, 0, src, PIECE, 3);
	d[3] = remote_read(live, PIECE, after.dst, PIECE, 4);
	run_batch(chan, d, cpl, 4);
	assert_int_equal(cpl[0].status, DOCA_SUCCESS);
	assert_int_equal(cpl[1].status, DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(cpl[2].status, DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(cpl[3].status, DOCA_SUCCESS);
	assert_true(holds_pattern(before.dst, live->seed, 0, PIECE));
	assert_true(guarded_untouched(&gone));
	assert_true(holds_pattern(after.dst, live->seed, PIECE, PIECE));
	/*
	 * The import reports the loss too (DMA refuses new tasks on it): its
	 * answer is at most a millisecond and a tick of the coarse clock old (4 ms
	 * at HZ 250, 10 ms at HZ 100); 100 ms is plenty, and asks again meanwhile.
	 */
	for (int ms = 0; ms < 100 && ferry_mmap_is_usable(dead->import); ms++)
		usleep(1000);
	assert_false(ferry_mmap_is_usable(dead->import));
	ferry_chan_close(chan);
	guarded_free(&before);
	guarded_free(&gone);
	guarded_free(&after);
}

/* ---- choosing the engine of a cross-process channel ---- */

static void test_cross_process_is_inline(void **state)
{
	static const char *const env[] = {"worker", "auto", "inline", NULL};
	const struct exporter *e = &exporters[EXP_RW];
	struct ferry_chan *chan;
	struct guarded g;
	struct ferry_copy_xdesc d;
	struct ferry_copy_cpl cpl[1];

	(void)state;
	for (int i = 0; env[i] != NULL; i++) {
		setenv("FERRY_DMA_ENGINE", env[i], 1);
		/* The environment is in force for ordinary channels... */
		chan = open_chan(FERRY_ENGINE_INLINE, false);
		assert_string_equal(chan->ops->name, env[i]);
		ferry_chan_close(chan);
		/* ...but not for a cross-process one, whatever kind is asked. */
		for (int kind = FERRY_ENGINE_AUTO; kind <= FERRY_ENGINE_WORKER; kind++) {
			chan = open_chan((enum ferry_engine_kind)kind, true);
			assert_string_equal(chan->ops->name, "inline");
			guarded_alloc(&g, PIECE);
			d = remote_read(e, 3 * PIECE, g.dst, PIECE, (uint64_t)kind);
			assert_int_equal(ferry_chan_enqueue_cross(chan, &d), DOCA_SUCCESS);
			ferry_chan_doorbell(chan);
			assert_int_equal(poll_all(chan, cpl, 1), 1);
			assert_int_equal(cpl[0].status, DOCA_SUCCESS);
			assert_true(holds_pattern(g.dst, e->seed, 3 * PIECE, PIECE));
			guarded_free(&g);
			ferry_chan_close(chan);
		}
	}
	unsetenv("FERRY_DMA_ENGINE");
	/* Validation still applies to a cross-process channel. */
	{
		struct ferry_chan_cfg cfg = {.kind = FERRY_ENGINE_WORKER, .depth = 0, .cross_process = true};

		chan = NULL;
		ferry_test_log_reset();
		assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_ERROR_INVALID_VALUE);
		assert_logged("depth 0");
		assert_null(chan);
	}
}

/* ---- the access path each import gets, chosen once at import ---- */

static void test_path_chosen_at_import(void **state)
{
	const struct exporter *plain = &exporters[EXP_RW], *shared = &exporters[EXP_SHARED];
	struct doca_dev *host = ferry_test_open_dev("b1:00.0", NULL);
	struct doca_mmap *own = NULL, *own_import = NULL;
	const void *desc = NULL;
	size_t desc_len = 0;
	uint8_t got[PIECE];
	uint8_t *mine = malloc(EXPORT_LEN);

	(void)state;
	assert_non_null(host);
	assert_non_null(mine);
	/* Local descriptors carry no access fields: the 32-byte slot of every engine. */
	assert_int_equal(sizeof(struct ferry_copy_desc), 32);
	/* Ordinary memory of another process: cross-memory attach, which gathers writes. */
	assert_string_equal(ferry_access_name(plain->remote), "cma");
	assert_false(ferry_access_mapped(plain->remote));
	assert_non_null(plain->remote->ops->write_gather);
	assert_true(plain->remote->ops->alive(plain->remote));
	/* Memfd memory: a shared mapping at the exporter's own addresses, copied by loads and stores. */
	assert_string_equal(ferry_access_name(shared->remote), "shared");
	assert_true(ferry_access_mapped(shared->remote));
	assert_true(holds_pattern((const uint8_t *)(uintptr_t)shared->addr, shared->seed, 0, PIECE));
	assert_int_equal(shared->remote->ops->read(shared->remote, got, shared->addr + PIECE, PIECE), DOCA_SUCCESS);
	assert_true(holds_pattern(got, shared->seed, PIECE, PIECE));
	ferry_test_log_reset();
	assert_int_equal(shared->remote->ops->read(shared->remote, got, shared->addr + EXPORT_LEN - 1, 2),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("outside the export");
	assert_true(shared->remote->ops->alive(shared->remote));
	/* Memory of this process: none when never imported, local when our own export comes back. */
	assert_int_equal(doca_mmap_create(&own), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(own, host), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(own, mine, EXPORT_LEN), DOCA_SUCCESS);
	assert_int_equal(
		doca_mmap_set_permissions(own, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE),
		DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(own), DOCA_SUCCESS);
	assert_null(ferry_mmap_access_path(own));
	assert_true(ferry_access_mapped(ferry_mmap_access_path(own)));
	assert_int_equal(doca_mmap_export_pci(own, host, &desc, &desc_len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create_from_export(NULL, desc, desc_len, dpu_dev, &own_import), DOCA_SUCCESS);
	assert_string_equal(ferry_access_name(ferry_mmap_access_path(own_import)), "local");
	assert_true(ferry_access_mapped(ferry_mmap_access_path(own_import)));
	assert_int_equal(doca_mmap_destroy(own_import), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(own), DOCA_SUCCESS);
	free(mine);
	doca_dev_close(host);
}

/* ---- the engine drives any path through its ops: a fake one counts the calls ---- */

struct fake_path {
	struct ferry_access base; /* first */
	int reads, writes, gathers;
	size_t last_num;   /* pieces of the last write_gather */
	size_t fail_after; /* pieces a write_gather lands before it fails (SIZE_MAX: never) */
};

static doca_error_t fake_read(const struct ferry_access *a, void *dst, uint64_t src, size_t len)
{
	((struct fake_path *)(uintptr_t)a)->reads++;
	memcpy(dst, (const void *)(uintptr_t)src, len);
	return DOCA_SUCCESS;
}

static doca_error_t fake_write(const struct ferry_access *a, uint64_t dst, const void *src, size_t len)
{
	((struct fake_path *)(uintptr_t)a)->writes++;
	memcpy((void *)(uintptr_t)dst, src, len);
	return DOCA_SUCCESS;
}

static doca_error_t fake_write_gather(const struct ferry_access *a, const struct ferry_access_piece *pieces, size_t num,
				      size_t *written)
{
	struct fake_path *f = (struct fake_path *)(uintptr_t)a;
	size_t n = num < f->fail_after ? num : f->fail_after;

	assert_true(num >= 1 && num <= FERRY_ACCESS_GATHER_MAX);
	f->gathers++;
	f->last_num = num;
	for (size_t i = 0; i < n; i++)
		memcpy((void *)(uintptr_t)pieces[i].dst, pieces[i].src, pieces[i].len);
	*written = n;
	return n == num ? DOCA_SUCCESS : DOCA_ERROR_NOT_CONNECTED;
}

static bool fake_alive(const struct ferry_access *a)
{
	(void)a;
	return true;
}

static const struct ferry_access_ops fake_ops = {
	.name = "fake",
	.mapped = false,
	.read = fake_read,
	.write = fake_write,
	.write_gather = fake_write_gather,
	.alive = fake_alive,
};

#define FAKE_N 70 /* more than one gather's worth */

static struct ferry_copy_xdesc fake_desc(struct fake_path *dst, struct fake_path *src, void *to, const void *from,
					 size_t len, uint64_t cookie)
{
	struct ferry_copy_xdesc x = {.desc = {.dst = to, .src = from, .len = len, .cookie = cookie},
				     .src_access = src != NULL ? &src->base : NULL,
				     .dst_access = dst != NULL ? &dst->base : NULL};
	return x;
}

static void test_inline_gathers_runs(void **state)
{
	struct ferry_chan_cfg cfg = {.kind = FERRY_ENGINE_INLINE, .depth = 128, .cross_process = true};
	struct fake_path a = {.base.ops = &fake_ops, .fail_after = SIZE_MAX};
	struct fake_path b = {.base.ops = &fake_ops, .fail_after = SIZE_MAX};
	static uint8_t far[FAKE_N][64], near[FAKE_N][64];
	struct ferry_copy_xdesc d[FAKE_N];
	struct ferry_copy_cpl cpl[FAKE_N + 1];
	struct ferry_chan *chan = NULL;

	(void)state;
	assert_int_equal(ferry_chan_open(&cfg, &chan), DOCA_SUCCESS);
	for (int i = 0; i < FAKE_N; i++)
		memset(near[i], i + 1, sizeof(near[i]));
	memset(far, 0, sizeof(far));
	/* Three writes through a, a local copy, a write through a, one through b, a read through a. */
	d[0] = fake_desc(&a, NULL, far[0], near[0], 64, 0);
	d[1] = fake_desc(&a, NULL, far[1], near[1], 64, 1);
	d[2] = fake_desc(&a, NULL, far[2], near[2], 64, 2);
	d[3] = fake_desc(NULL, NULL, far[3], near[3], 64, 3);
	d[4] = fake_desc(&a, NULL, far[4], near[4], 64, 4);
	d[5] = fake_desc(&b, NULL, far[5], near[5], 64, 5);
	d[6] = fake_desc(NULL, &a, near[6], far[0], 64, 6);
	run_batch(chan, d, cpl, 7);
	for (int i = 0; i < 7; i++)
		assert_int_equal(cpl[i].status, DOCA_SUCCESS);
	assert_int_equal(a.gathers, 2); /* d0-d2, then d4 */
	assert_int_equal(a.last_num, 1);
	assert_int_equal(b.gathers, 1);
	assert_int_equal(a.reads, 1);
	assert_int_equal(a.writes + b.writes, 0);
	for (int i = 0; i < 6; i++)
		assert_memory_equal(far[i], near[i], 64);
	assert_memory_equal(near[6], near[0], 64);

	/* A run longer than a gather is cut at FERRY_ACCESS_GATHER_MAX. */
	a.gathers = 0;
	for (int i = 0; i < FAKE_N; i++)
		d[i] = fake_desc(&a, NULL, far[i], near[i], 32, (uint64_t)i);
	run_batch(chan, d, cpl, FAKE_N);
	assert_int_equal(a.gathers, 2);
	assert_int_equal(a.last_num, FAKE_N - FERRY_ACCESS_GATHER_MAX);

	/* A gather that fails part way: the pieces that landed succeed, the others carry its error, unwritten. */
	a.gathers = 0;
	a.fail_after = 2;
	memset(far, 0, sizeof(far));
	for (int i = 0; i < 4; i++)
		d[i] = fake_desc(&a, NULL, far[i], near[i], 64, (uint64_t)i);
	run_batch(chan, d, cpl, 4);
	assert_int_equal(a.gathers, 1);
	assert_int_equal(cpl[0].status, DOCA_SUCCESS);
	assert_int_equal(cpl[1].status, DOCA_SUCCESS);
	assert_int_equal(cpl[2].status, DOCA_ERROR_NOT_CONNECTED);
	assert_int_equal(cpl[3].status, DOCA_ERROR_NOT_CONNECTED);
	assert_memory_equal(far[1], near[1], 64);
	assert_int_equal(far[2][0], 0);
	assert_int_equal(far[3][63], 0);

	/* A mapped path is local memory to the engine: its ops are never called. */
	{
		static const struct ferry_access_ops mapped_ops = {.name = "mapped", .mapped = true};
		struct ferry_access m = {.ops = &mapped_ops};

		d[0] = fake_desc(NULL, NULL, far[0], near[0], 64, 0);
		d[0].dst_access = &m;
		d[0].src_access = &m;
		memset(far[0], 0, 64);
		run_batch(chan, d, cpl, 1);
		assert_int_equal(cpl[0].status, DOCA_SUCCESS);
		assert_memory_equal(far[0], near[0], 64);
	}
	ferry_chan_close(chan);
}

/* A real gathered write by cross-memory attach: one run of pieces into one export, read back. */
static void test_inline_gathers_cma(void **state)
{
	const struct exporter *e = &exporters[EXP_RW];
	struct ferry_chan *chan = open_chan(FERRY_ENGINE_INLINE, true);
	struct ferry_copy_xdesc d[8];
	struct ferry_copy_cpl cpl[9];
	uint8_t mine[8][512], back[8 * 512], want[8 * 512];

	(void)state;
	for (int i = 0; i < 8; i++)
		memset(mine[i], 0xa0 + i, sizeof(mine[i]));
	/* Last piece first: the gather keeps each piece where it belongs. */
	for (int i = 0; i < 8; i++)
		d[i] = remote_write(e, 40 * PIECE / 8 + (size_t)(7 - i) * 512, mine[7 - i], 512, (uint64_t)i);
	run_batch(chan, d, cpl, 8);
	for (int i = 0; i < 8; i++)
		assert_int_equal(cpl[i].status, DOCA_SUCCESS);
	assert_int_equal(e->remote->ops->read(e->remote, back, e->addr + 40 * PIECE / 8, sizeof(back)), DOCA_SUCCESS);
	for (int i = 0; i < 8; i++)
		assert_memory_equal(back + i * 512, mine[i], 512);
	/* Put the exporter's bytes back for the other tests. */
	for (size_t i = 0; i < sizeof(want); i++)
		want[i] = pattern(e->seed, 40 * PIECE / 8 + i);
	assert_int_equal(e->remote->ops->write(e->remote, e->addr + 40 * PIECE / 8, want, sizeof(want)), DOCA_SUCCESS);
	ferry_chan_close(chan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ENGINE_TESTS(test_ordinary_channels_refuse),
		cmocka_unit_test(test_inline_copies_remote),
		cmocka_unit_test(test_inline_status_per_descriptor),
		cmocka_unit_test(test_inline_cancel_remote),
		cmocka_unit_test(test_cross_process_is_inline),
		cmocka_unit_test(test_path_chosen_at_import),
		cmocka_unit_test(test_inline_gathers_runs),
		cmocka_unit_test(test_inline_gathers_cma),
		/* Last: it kills one exporter for good. */
		cmocka_unit_test(test_inline_exporter_gone),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
