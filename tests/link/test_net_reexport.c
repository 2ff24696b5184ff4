/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_net_reexport.c - a re-export (ferry_link_reexport_open) in one
 * process: bytes this process reaches only through an access path (here a
 * fake one over a private buffer, standing for the host's memory reached by
 * cross-memory attach), served by the process's own network server on
 * 127.0.0.1 and imported back through it.
 *
 * Checked: the descriptor says network path only; the agent's local protocol
 * refuses it and so does an import when FERRY_LINK_NET=never, each with a
 * line; a path that cannot be held (hold/release) is not re-exported; reads and writes go through the path, under the server's range and
 * permission checks; the path's own refusal (the host revoked its export:
 * NOT_CONNECTED) reaches the importer as NOT_CONNECTED and the import is then
 * revoked; closing the re-export revokes it too. A copy the path holds up
 * (cross-memory attach waits, without end, on a page its owner never serves:
 * userfaultfd, FUSE) holds up only its own re-export, and only until the
 * server's deadline (half of FERRY_LINK_NET_TIMEOUT_MS, set short here): another
 * export and another re-export of the process are served meanwhile, the agent
 * answers and another export closes; the held request is answered
 * DOCA_ERROR_TIME_OUT with a line, and the re-export refuses at once until the
 * copy returns; its own close returns at once, and the path is let go (freed
 * here) only when the copy returns; a process whose copy is held still exits.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>

#include <doca_types.h>

#include "ferry_test.h"

#include "link/export_desc_priv.h"
#include "link/ferry_access.h"
#include "link/ferry_export.h"
#include "link/link_priv.h"

#define LEN      (1u << 20)
#define BASE     0x7e0000000000ull /* the "host's" address of the bytes: not ours */
#define MACHINE  0u
#define HOST_PID 4242u /* the "host" process whose memory the path reaches: named in log lines */
#define CALL     "test_net_reexport"

/* The link's network timeout for this test: the server gives up on a held copy after half of it. */
#define NET_TIMEOUT_MS "2000"
#define DEADLINE_MS    1000u

/*
 * The fake path: the "host's" bytes in a private buffer, and a switch that
 * plays the host revoking. The server thread copies them; the lock orders
 * that with the test's own looks (ThreadSanitizer cannot see the order the
 * network reply gives).
 */
struct fake_path {
	struct ferry_access base;
	pthread_mutex_t lock;
	uint8_t *bytes;
	_Atomic bool revoked;
	_Atomic unsigned int calls;
	/* A read waits while `held`, as cross-memory attach waits on a page the host never serves. */
	pthread_mutex_t hold_lock;
	pthread_cond_t hold_cond;
	bool held;
	_Atomic bool holding; /* a read is waiting now */
	/* Held by the fixture and by a re-export through it (hold/release); the last holder frees it. */
	_Atomic unsigned int refs;
	_Atomic bool *freed; /* set when the last holder frees it (NULL: not watched) */
};

static struct fake_path *fake_of(const struct ferry_access *a)
{
	return (struct fake_path *)(uintptr_t)a;
}

static doca_error_t fake_check(struct fake_path *p, uint64_t addr, size_t len)
{
	atomic_fetch_add(&p->calls, 1);
	if (atomic_load(&p->revoked))
		return DOCA_ERROR_NOT_CONNECTED;
	return link_range_inside(BASE, LEN, addr, len) ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

/* Wait while the test holds the path's reads (only the hold test sets `held`). */
static void fake_wait_hold(struct fake_path *p)
{
	pthread_mutex_lock(&p->hold_lock);
	while (p->held) {
		atomic_store(&p->holding, true);
		pthread_cond_wait(&p->hold_cond, &p->hold_lock);
	}
	atomic_store(&p->holding, false);
	pthread_mutex_unlock(&p->hold_lock);
}

static doca_error_t fake_read(const struct ferry_access *a, void *dst, uint64_t src, size_t len)
{
	struct fake_path *p = fake_of(a);
	doca_error_t err = fake_check(p, src, len);

	fake_wait_hold(p);
	pthread_mutex_lock(&p->lock);
	if (err == DOCA_SUCCESS)
		memcpy(dst, p->bytes + (src - BASE), len);
	pthread_mutex_unlock(&p->lock);
	return err;
}

static doca_error_t fake_write(const struct ferry_access *a, uint64_t dst, const void *src, size_t len)
{
	struct fake_path *p = fake_of(a);
	doca_error_t err = fake_check(p, dst, len);

	pthread_mutex_lock(&p->lock);
	if (err == DOCA_SUCCESS)
		memcpy(p->bytes + (dst - BASE), src, len);
	pthread_mutex_unlock(&p->lock);
	return err;
}

static bool fake_alive(const struct ferry_access *a)
{
	return !atomic_load(&fake_of(a)->revoked);
}

static void fake_hold(const struct ferry_access *a)
{
	atomic_fetch_add(&fake_of(a)->refs, 1);
}

static void fake_release(const struct ferry_access *a)
{
	struct fake_path *p = fake_of(a);

	if (atomic_fetch_sub(&p->refs, 1) != 1)
		return;
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->hold_lock);
	pthread_cond_destroy(&p->hold_cond);
	free(p->bytes);
	if (p->freed != NULL)
		atomic_store(p->freed, true);
	free(p);
}

static const struct ferry_access_ops fake_ops = {
	.name = "fake",
	.mapped = false,
	.read = fake_read,
	.write = fake_write,
	.alive = fake_alive,
	.hold = fake_hold,
	.release = fake_release,
};

struct fixture {
	struct fake_path *path;
	uint8_t *local;
	struct ferry_link_export *exp;
	const void *desc;
	size_t desc_len;
};

static void fill(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 131 + seed);
}

/* Whether the "host's" bytes at @p off are @p want's. */
static bool host_bytes_are(struct fixture *f, size_t off, const uint8_t *want, size_t len)
{
	pthread_mutex_lock(&f->path->lock);
	bool same = memcmp(f->path->bytes + off, want, len) == 0;
	pthread_mutex_unlock(&f->path->lock);
	return same;
}

static struct fixture *open_reexport(uint32_t access)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ferry_link_net_offer offer = {.iface = "lo"};

	assert_non_null(f);
	f->path = calloc(1, sizeof(*f->path));
	assert_non_null(f->path);
	f->path->base.ops = &fake_ops;
	f->path->refs = 1;
	pthread_mutex_init(&f->path->lock, NULL);
	pthread_mutex_init(&f->path->hold_lock, NULL);
	pthread_cond_init(&f->path->hold_cond, NULL);
	f->path->bytes = malloc(LEN);
	f->local = malloc(LEN);
	assert_true(f->path->bytes != NULL && f->local != NULL);
	fill(f->path->bytes, LEN, 1);
	inet_pton(AF_INET, "127.0.0.1", &offer.ipv4);
	assert_int_equal(
		ferry_link_reexport_open(&f->path->base, HOST_PID, BASE, LEN, access, MACHINE, &offer, CALL, &f->exp),
		DOCA_SUCCESS);
	ferry_link_export_desc(f->exp, &f->desc, &f->desc_len);
	return f;
}

static void close_reexport(struct fixture *f)
{
	if (f->exp != NULL)
		ferry_link_export_close(f->exp);
	fake_release(&f->path->base); /* freed now, or when the last copy through it returns */
	free(f->local);
	free(f);
}

static void import(const struct fixture *f, struct ferry_link_import **imp, const struct ferry_access **a)
{
	struct ferry_link_view view;

	assert_int_equal(ferry_link_import_open(f->desc, f->desc_len, MACHINE, 0, CALL, imp, &view), DOCA_SUCCESS);
	assert_int_equal((uintptr_t)view.addr, BASE);
	*a = ferry_link_import_access(*imp);
	assert_string_equal(ferry_access_name(*a), "net");
}

/* The descriptor: network path only; the agent and a FERRY_LINK_NET=never import refuse it. */
static void test_network_path_only(void **state)
{
	struct fixture *f = open_reexport(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	struct ferry_export_desc d;
	struct ferry_link_import *imp = NULL;
	struct ferry_link_view view;
	struct link_req req = {.magic = LINK_MSG_MAGIC, .version = LINK_MSG_VERSION};
	struct link_rep rep;
	int mem_fd = -2, state_fd = -2;

	(void)state;
	assert_int_equal(ferry_export_desc_decode(f->desc, f->desc_len, &d, NULL), DOCA_SUCCESS);
	assert_int_equal(d.hints, FERRY_DESC_HINT_NET | FERRY_DESC_HINT_NET_ONLY);
	assert_int_equal(d.addr, BASE);
	/* The agent hands out no pages and no pid for bytes it does not hold. */
	req.export_id = d.export_id;
	memcpy(req.token, d.token, sizeof(req.token));
	ferry_link_serve(&req, &rep, &mem_fd, &state_fd);
	assert_int_equal(rep.status, DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(mem_fd, -1);
	assert_int_equal(state_fd, -1);
	/* Without the network path there is no way in. */
	setenv("FERRY_LINK_NET", "never", 1);
	ferry_test_log_reset();
	assert_int_equal(ferry_link_import_open(f->desc, f->desc_len, MACHINE, 0, CALL, &imp, &view),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("network path only");
	unsetenv("FERRY_LINK_NET");
	/* An RDMA-carried descriptor must be a re-export; this one is. */
	assert_int_equal(
		ferry_link_import_open(f->desc, f->desc_len, MACHINE + 7, FERRY_LINK_IMPORT_RDMA, CALL, &imp, &view),
		DOCA_SUCCESS);
	ferry_link_import_close(imp);
	assert_int_equal(atomic_load(&f->path->calls), 0); /* nothing read yet */
	close_reexport(f);
}

/* ferry_link_reexport_open refuses a path of @p ops with @p want and a line holding @p line; nothing opens or copies. */
static void assert_reexport_refused(const struct ferry_access_ops *ops, doca_error_t want, const char *line)
{
	struct fake_path path = {.base.ops = ops};
	struct ferry_link_net_offer offer = {.iface = "lo"};
	struct ferry_link_export *exp = NULL;

	inet_pton(AF_INET, "127.0.0.1", &offer.ipv4);
	ferry_test_log_reset();
	assert_int_equal(ferry_link_reexport_open(&path.base, HOST_PID, BASE, LEN, DOCA_ACCESS_FLAG_PCI_READ_WRITE,
						  MACHINE, &offer, CALL, &exp),
			 want);
	assert_logged(line);
	assert_null(exp);
	assert_int_equal(atomic_load(&path.calls), 0);
}

/*
 * An import reached over the network is not exported again: a slow or
 * hostile exporter on another machine could hold each chunk's copy for
 * seconds, and the re-export would crawl at its pace.
 */
static void test_remote_machine_refused(void **state)
{
	static const struct ferry_access_ops far_ops = {
		.name = "far",
		.mapped = false,
		.remote_machine = true,
		.read = fake_read,
		.write = fake_write,
		.alive = fake_alive,
		.hold = fake_hold,
		.release = fake_release,
	};

	(void)state;
	assert_reexport_refused(&far_ops, DOCA_ERROR_NOT_SUPPORTED,
				"only memory of this machine can be exported again");
}

/*
 * A path that cannot be held is not exported again: a copy through it that
 * outlives the re-export's close (the host never serves a page) would use a
 * freed path.
 */
static void test_unheld_path_refused(void **state)
{
	static const struct ferry_access_ops unheld_ops = {
		.name = "unheld",
		.mapped = false,
		.read = fake_read,
		.write = fake_write,
		.alive = fake_alive,
	};

	(void)state;
	assert_reexport_refused(&unheld_ops, DOCA_ERROR_UNEXPECTED, "that can be held");
}

/* Reads and writes go through the path; the server's checks come first. */
static void test_copies_through_the_path(void **state)
{
	struct fixture *f = open_reexport(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	struct ferry_link_import *imp;
	const struct ferry_access *a;

	(void)state;
	import(f, &imp, &a);
	assert_int_equal(a->ops->read(a, f->local, BASE + 4096, 600000), DOCA_SUCCESS);
	assert_true(host_bytes_are(f, 4096, f->local, 600000));
	fill(f->local, 300000, 9);
	assert_int_equal(a->ops->write(a, BASE + 100, f->local, 300000), DOCA_SUCCESS);
	assert_true(host_bytes_are(f, 100, f->local, 300000));
	/* Outside the re-export: refused before the path is asked. */
	unsigned int calls = atomic_load(&f->path->calls);
	ferry_test_log_reset();
	assert_int_equal(a->ops->read(a, f->local, BASE + LEN - 8, 16), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(atomic_load(&f->path->calls), calls);
	ferry_link_import_close(imp);
	close_reexport(f);
}

/* A read-only grant re-exports read-only: the server refuses a write. */
static void test_read_only(void **state)
{
	struct fixture *f = open_reexport(DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	struct ferry_link_import *imp;
	const struct ferry_access *a;

	(void)state;
	import(f, &imp, &a);
	assert_int_equal(a->ops->read(a, f->local, BASE, 4096), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(a->ops->write(a, BASE, f->local, 4096), DOCA_ERROR_NOT_PERMITTED);
	ferry_link_import_close(imp);
	close_reexport(f);
}

/* The host withdraws (the path answers NOT_CONNECTED), or this process closes the re-export. */
static void test_withdrawn(void **state)
{
	struct fixture *f = open_reexport(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	struct ferry_link_import *imp;
	const struct ferry_access *a;

	(void)state;
	import(f, &imp, &a);
	atomic_store(&f->path->revoked, true);
	assert_int_equal(a->ops->read(a, f->local, BASE, 4096), DOCA_ERROR_NOT_CONNECTED);
	assert_false(ferry_link_import_alive(imp));
	assert_int_equal(ferry_link_import_liveness(imp), FERRY_LINK_REVOKED);
	ferry_link_import_close(imp);
	/* A live path, but the re-export closed: the server no longer knows it. */
	atomic_store(&f->path->revoked, false);
	import(f, &imp, &a);
	ferry_link_export_close(f->exp);
	f->exp = NULL;
	assert_int_equal(a->ops->write(a, BASE, f->local, 4096), DOCA_ERROR_NOT_CONNECTED);
	assert_false(ferry_link_import_alive(imp));
	ferry_link_import_close(imp);
	close_reexport(f);
}

/* ---- a copy the path holds up ---- */

static void set_held(struct fake_path *p, bool held)
{
	pthread_mutex_lock(&p->hold_lock);
	p->held = held;
	pthread_cond_broadcast(&p->hold_cond);
	pthread_mutex_unlock(&p->hold_lock);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Wait (at most 5 s) until @p flag is @p want. */
static bool wait_flag(_Atomic bool *flag, bool want)
{
	for (int i = 0; i < 5000 && atomic_load(flag) != want; i++)
		usleep(1000);
	return atomic_load(flag) == want;
}

struct held_read {
	const struct ferry_access *a;
	uint8_t *dst;
	doca_error_t err;
	uint64_t took_ms;
};

static void *read_thread(void *arg)
{
	struct held_read *r = arg;
	uint64_t t0 = mono_ms();

	r->err = r->a->ops->read(r->a, r->dst, BASE, 4096);
	r->took_ms = mono_ms() - t0;
	return NULL;
}

/* Hold @p f's path and start a read through @p r that the server's copy then waits in. */
static void start_held_read(struct fixture *f, struct held_read *r, pthread_t *reader)
{
	set_held(f->path, true);
	r->dst = f->local;
	assert_int_equal(pthread_create(reader, NULL, read_thread, r), 0);
	assert_true(wait_flag(&f->path->holding, true)); /* the copy waits in the path */
}

/* Read 4 KiB through @p a, which must take less than 300 ms. */
static doca_error_t prompt_read(const struct ferry_access *a, uint64_t addr, uint8_t *dst)
{
	uint64_t t0 = mono_ms();
	doca_error_t err = a->ops->read(a, dst, addr, 4096);

	assert_in_range(mono_ms() - t0, 0, 300);
	return err;
}

/*
 * While a copy through one re-export's path does not return (cross-memory
 * attach on a page the host never serves waits until the host gives in),
 * everything else of the process goes on: the network server reads another
 * export of this process's memory and another re-export for their importers,
 * the agent answers for an export, and that export closes.
 */
static void test_held_copy_holds_only_its_reexport(void **state)
{
	struct fixture *f = open_reexport(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	struct fixture *g = open_reexport(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	static uint8_t mine[4096];
	struct ferry_link_net_offer offer = {.iface = "lo"};
	struct ferry_link_export *other;
	struct ferry_export_desc d;
	const void *od;
	size_t od_len;
	struct ferry_link_import *imp, *gimp, *oimp;
	const struct ferry_access *ga, *oa;
	struct ferry_link_view view;
	struct held_read r = {0};
	pthread_t reader;
	struct link_req req = {.magic = LINK_MSG_MAGIC, .version = LINK_MSG_VERSION};
	struct link_rep rep;
	int mem_fd = -1, state_fd = -1;

	(void)state;
	memset(mine, 0x5a, sizeof(mine));
	inet_pton(AF_INET, "127.0.0.1", &offer.ipv4);
	assert_int_equal(ferry_link_export_open(mine, sizeof(mine), DOCA_ACCESS_FLAG_PCI_READ_WRITE, MACHINE, &offer,
						CALL, &other),
			 DOCA_SUCCESS);
	ferry_link_export_desc(other, &od, &od_len);
	assert_int_equal(ferry_export_desc_decode(od, od_len, &d, NULL), DOCA_SUCCESS);
	setenv("FERRY_LINK_NET", "always", 1); /* this process's own export, through the network server */
	assert_int_equal(ferry_link_import_open(od, od_len, MACHINE, 0, CALL, &oimp, &view), DOCA_SUCCESS);
	unsetenv("FERRY_LINK_NET");
	oa = ferry_link_import_access(oimp);
	assert_string_equal(ferry_access_name(oa), "net");
	import(f, &imp, &r.a);
	import(g, &gimp, &ga);
	start_held_read(f, &r, &reader);
	/* Another export of this process's memory, and another re-export, are served at once. */
	uint8_t *buf = malloc(4096);
	assert_non_null(buf);
	assert_int_equal(prompt_read(oa, (uintptr_t)mine, buf), DOCA_SUCCESS);
	assert_memory_equal(buf, mine, 4096);
	assert_int_equal(prompt_read(ga, BASE + 8192, buf), DOCA_SUCCESS);
	assert_true(host_bytes_are(g, 8192, buf, 4096));
	/* The agent answers for another export, and that export closes. */
	uint64_t t0 = mono_ms();
	req.export_id = d.export_id;
	memcpy(req.token, d.token, sizeof(req.token));
	ferry_link_serve(&req, &rep, &mem_fd, &state_fd);
	assert_int_equal(rep.status, DOCA_SUCCESS);
	if (mem_fd >= 0)
		close(mem_fd);
	if (state_fd >= 0)
		close(state_fd);
	ferry_link_import_close(oimp);
	ferry_link_export_close(other);
	assert_in_range(mono_ms() - t0, 0, 300);
	assert_true(atomic_load(&f->path->holding)); /* still inside the copy: the times above are not the copy's */
	set_held(f->path, false);
	assert_int_equal(pthread_join(reader, NULL), 0);
	free(buf);
	ferry_link_import_close(gimp);
	ferry_link_import_close(imp);
	close_reexport(g);
	close_reexport(f);
}

/*
 * The held request is answered DOCA_ERROR_TIME_OUT once the server's deadline
 * passes, with one line naming the re-export and the host's pid; meanwhile and
 * until the copy returns, the re-export refuses at once. When the copy returns
 * (the host served the page), the re-export serves again.
 */
static void test_held_copy_times_out(void **state)
{
	struct fixture *f = open_reexport(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	struct ferry_link_import *imp;
	struct held_read r = {0};
	pthread_t reader;
	doca_error_t err = DOCA_ERROR_TIME_OUT;

	(void)state;
	import(f, &imp, &r.a);
	ferry_test_log_reset();
	start_held_read(f, &r, &reader);
	assert_int_equal(pthread_join(reader, NULL), 0);
	assert_int_equal(r.err, DOCA_ERROR_TIME_OUT);
	assert_in_range(r.took_ms, DEADLINE_MS - 100, DEADLINE_MS + 700);
	assert_logged("pid 4242");
	assert_true(atomic_load(&f->path->holding)); /* the copy still waits */
	/* Refused at once, the path not asked again, and the import stays (the host may yet serve). */
	unsigned int calls = atomic_load(&f->path->calls);
	assert_int_equal(prompt_read(r.a, BASE, f->local), DOCA_ERROR_TIME_OUT);
	assert_int_equal(atomic_load(&f->path->calls), calls);
	assert_true(ferry_link_import_alive(imp));
	set_held(f->path, false);
	for (int i = 0; i < 200 && err == DOCA_ERROR_TIME_OUT; i++) {
		usleep(10000);
		err = r.a->ops->read(r.a, f->local, BASE + 4096, 4096);
	}
	assert_int_equal(err, DOCA_SUCCESS);
	assert_true(host_bytes_are(f, 4096, f->local, 4096));
	ferry_link_import_close(imp);
	close_reexport(f);
}

/*
 * Closing a re-export whose copy is held returns at once; its path is let go
 * only when that copy returns (the fake path is freed then, and AddressSanitizer
 * would see a copy through a freed path).
 */
static void test_held_copy_close(void **state)
{
	struct fixture *f = open_reexport(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	struct fake_path *p = f->path;
	struct ferry_link_import *imp;
	struct held_read r = {0};
	pthread_t reader;
	static _Atomic bool freed;

	(void)state;
	p->freed = &freed;
	import(f, &imp, &r.a);
	start_held_read(f, &r, &reader);
	fake_hold(&p->base); /* the test's own hold, to release the copy after the fixture is gone */
	uint64_t t0 = mono_ms();
	ferry_link_export_close(f->exp);
	f->exp = NULL;
	assert_in_range(mono_ms() - t0, 0, 300);
	assert_int_equal(pthread_join(reader, NULL), 0);
	assert_int_not_equal(r.err, DOCA_SUCCESS);
	assert_int_equal(r.a->ops->read(r.a, f->local, BASE, 4096), DOCA_ERROR_NOT_CONNECTED); /* the export is gone */
	ferry_link_import_close(imp);
	close_reexport(f);
	assert_true(atomic_load(&p->holding)); /* the copy still waits, and holds the path */
	assert_false(atomic_load(&freed));
	set_held(p, false);
	fake_release(&p->base);
	assert_true(wait_flag(&freed, true)); /* the copy returned, and let the path go */
}

/* The child of test_held_copy_exit: a copy held for ever, then exit. Returns its exit status. */
static int held_copy_child(void)
{
	static struct fixture *f;
	static struct ferry_link_import *imp;
	static struct held_read r;
	pthread_t reader;

	f = open_reexport(DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	import(f, &imp, &r.a);
	start_held_read(f, &r, &reader);
	if (pthread_join(reader, NULL) != 0 || r.err != DOCA_ERROR_TIME_OUT)
		return 2;
	ferry_link_import_close(imp); /* the importer's side: not what this checks */
	/* Exit, with the copy still held: atexit's server_stop must not wait for it. */
	return 0;
}

/* A process whose re-export's copy is held for ever still exits (in a child: the parent waits at most 10 s). */
static void test_held_copy_exit(void **state)
{
	char *argv[] = {(char *)(uintptr_t) "/proc/self/exe", (char *)(uintptr_t) "--held-copy-child", NULL};
	int status = 0;
	pid_t pid, got = 0;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	for (int i = 0; i < 1000 && (got = waitpid(pid, &status, WNOHANG)) == 0; i++)
		usleep(10000);
	if (got == 0) {
		kill(pid, SIGKILL);
		(void)waitpid(pid, &status, 0);
		fail_msg("the child did not exit within 10 s: its exit waits for the held copy");
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_network_path_only),
		cmocka_unit_test(test_remote_machine_refused),
		cmocka_unit_test(test_unheld_path_refused),
		cmocka_unit_test(test_copies_through_the_path),
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_withdrawn),
		cmocka_unit_test(test_held_copy_holds_only_its_reexport),
		cmocka_unit_test(test_held_copy_times_out),
		cmocka_unit_test(test_held_copy_close),
		cmocka_unit_test(test_held_copy_exit),
	};

	/* Short, so the held copies give up in a second (the child inherits it). */
	setenv("FERRY_LINK_NET_TIMEOUT_MS", NET_TIMEOUT_MS, 1);
	if (argc == 2 && strcmp(argv[1], "--held-copy-child") == 0)
		return held_copy_child();
	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
