/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fast_rogue.c - the Comch fast path against a rogue peer that is another
 * process: the trust rules that an in-process rogue cannot reach, because its
 * pid is the server's. The rogue is this program run again (fork, then exec of
 * /proc/self/exe with "--rogue <role> <server name>", so the child has no
 * inherited threads): it speaks the frames by hand on a raw socket, reports on
 * stdout and by its exit status. The parent runs the server and progresses it
 * while the rogue works.
 *
 * Roles: ro-up (memory exported read-only), ro-ring (post ring exported
 * read-only), export (a third process that only exports), replay (names one
 * of the server's own exports: the completion ring it got back, or the memory
 * or post ring of the server's own consumer),
 * reopen (tries to write the read-only completion ring through the memory
 * agent's fd), die-consumer and die-producer (killed while the server's
 * producer or consumer is progressed alone).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <ferry_mem.h>

#include "comch/fast_priv.h"
#include "comch/comch_priv.h"
#include "comch_util.h"
#include "core/ferry_dev.h"
#include "ferry_test.h"
#include "ferry_test_fds.h"
#include "ferry_test_ctx.h"
#include "ferry_test_wait.h"
#include "link/link_priv.h"

#define ROGUE_MEM 8192u
#define ROGUE_CAP 4u
#define ROGUE_ID  5u /* the rogue's good consumer */
#define REPLAY_ID 6u /* the consumer that names someone else's export */

/* ======== the rogue (child) ======== */

/* The rogue's own failures: a line on stderr and an exit status the parent asserts on. */
#define ROGUE_CHECK(cond, code)                                                   \
	do {                                                                      \
		if (!(cond)) {                                                    \
			fprintf(stderr, "rogue: line %d: %s\n", __LINE__, #cond); \
			exit(code);                                               \
		}                                                                 \
	} while (0)

enum rogue_exit {
	ROGUE_OK = 0,
	ROGUE_SETUP = 10,      /* devices, exports, socket */
	ROGUE_NO_FRAME = 11,   /* an expected frame did not come */
	ROGUE_ANSWERED = 12,   /* the server accepted what it must refuse */
	ROGUE_NOT_CLOSED = 13, /* the server kept the connection */
	ROGUE_WROTE = 14,      /* a read-only ring could be written */
};

struct rogue {
	struct doca_dev *host;
	int fd;
	uint8_t *mem;                /* shareable, ROGUE_MEM bytes */
	struct comch_ring_hdr *ring; /* post ring of ROGUE_CAP */
	const void *desc, *ring_desc;
	size_t desc_len, ring_desc_len;
	uint8_t done_ring[FERRY_FRAME_DESC_MAX]; /* the DONE_RING descriptor the server sent for ROGUE_ID */
	uint16_t done_ring_len;
	uint8_t cup[FERRY_FRAME_UP_MAX]; /* the server's own CONSUMER_UP, when one came */
	size_t cup_len;
	struct doca_mmap *mmaps[3]; /* its exports, destroyed at exit (leak checkers watch) */
	void *blocks[3];            /* shareable memory behind them */
	unsigned num_mmaps, num_blocks;
};

static void rogue_export(struct rogue *r, void *mem, size_t len, uint32_t access, const void **desc, size_t *desc_len)
{
	struct doca_mmap *m = NULL;

	ROGUE_CHECK(doca_mmap_create(&m) == DOCA_SUCCESS && doca_mmap_set_memrange(m, mem, len) == DOCA_SUCCESS &&
			    doca_mmap_add_dev(m, r->host) == DOCA_SUCCESS &&
			    doca_mmap_set_permissions(m, access) == DOCA_SUCCESS &&
			    doca_mmap_start(m) == DOCA_SUCCESS &&
			    doca_mmap_export_pci(m, r->host, desc, desc_len) == DOCA_SUCCESS,
		    ROGUE_SETUP);
	r->mmaps[r->num_mmaps++] = m;
}

static void *rogue_shared(struct rogue *r, size_t len)
{
	void *p = ferry_mem_alloc_shared(len);

	ROGUE_CHECK(p != NULL, ROGUE_SETUP);
	r->blocks[r->num_blocks++] = p;
	return p;
}

static void rogue_cleanup(struct rogue *r)
{
	for (unsigned i = 0; i < r->num_mmaps; i++)
		(void)doca_mmap_destroy(r->mmaps[i]);
	for (unsigned i = 0; i < r->num_blocks; i++)
		(void)ferry_mem_free_shared(r->blocks[i]);
	if (r->fd >= 0)
		close(r->fd);
	if (r->host != NULL)
		(void)doca_dev_close(r->host);
}

/* Memory and a post ring of the rogue's own, exported with these permissions; one post offered in the ring. */
static void rogue_exports_as(struct rogue *r, uint32_t mem_access, uint32_t ring_access)
{
	struct comch_post *e;

	r->mem = rogue_shared(r, ROGUE_MEM);
	r->ring = rogue_shared(r, comch_ring_bytes(ROGUE_CAP));
	memset(r->mem, 0x5a, ROGUE_MEM);
	rogue_export(r, r->mem, ROGUE_MEM, mem_access, &r->desc, &r->desc_len);
	rogue_export(r, r->ring, comch_ring_bytes(ROGUE_CAP), ring_access, &r->ring_desc, &r->ring_desc_len);
	e = (struct comch_post *)(r->ring + 1);
	e->addr = (uint64_t)(uintptr_t)r->mem;
	e->len = 64;
	e->generation = 1;
	atomic_store_explicit(&r->ring->head, 1, memory_order_release);
}

/* Memory (exported with @p mem_access) and a read-write post ring of the rogue's own. */
static void rogue_exports(struct rogue *r, uint32_t mem_access)
{
	rogue_exports_as(r, mem_access, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
}

static void rogue_send(struct rogue *r, const void *frame, size_t len)
{
	ROGUE_CHECK(ferry_link_send(r->fd, frame, len) == DOCA_SUCCESS, ROGUE_SETUP);
}

/*
 * The next frame from the server within @p ms: DOCA_SUCCESS (parsed into @p f,
 * in @p buf), DOCA_ERROR_CONNECTION_RESET (closed) or DOCA_ERROR_TIME_OUT.
 */
static doca_error_t rogue_next(struct rogue *r, uint8_t *buf, size_t cap, struct ferry_frame *f, uint32_t ms)
{
	for (uint64_t until = ferry_test_deadline(ms); !ferry_test_expired(until);) {
		struct pollfd p = {.fd = r->fd, .events = POLLIN};
		const char *why;
		size_t len = 0;
		doca_error_t err;

		if (poll(&p, 1, 10) <= 0)
			continue;
		err = ferry_link_recv(r->fd, buf, cap, &len);
		if (err == DOCA_ERROR_CONNECTION_RESET)
			return err;
		if (err == DOCA_SUCCESS && ferry_frame_parse(buf, len, COMCH_CAP_MAX_MSG_SIZE, f, &why) == DOCA_SUCCESS)
			return DOCA_SUCCESS;
	}
	return DOCA_ERROR_TIME_OUT;
}

static void rogue_hello(struct rogue *r, const char *name)
{
	const struct doca_devinfo *info;
	struct ferry_link_addr addr;
	uint8_t frame[FERRY_FRAME_HELLO_MAX], buf[4096];
	struct ferry_frame f;

	r->host = cu_open_host_dev();
	ROGUE_CHECK(r->host != NULL, ROGUE_SETUP);
	info = doca_dev_as_devinfo(r->host);
	ROGUE_CHECK(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), ferry_devinfo_machine(info),
					  ferry_devinfo_name(info), name) == DOCA_SUCCESS,
		    ROGUE_SETUP);
	ROGUE_CHECK(ferry_link_connect(&addr, &r->fd) == DOCA_SUCCESS, ROGUE_SETUP);
	rogue_send(r, frame,
		   ferry_frame_build_hello(frame, COMCH_CAP_MAX_MSG_SIZE, 64, ferry_devinfo_machine(info),
					   ferry_devinfo_name(info), name));
	ROGUE_CHECK(rogue_next(r, buf, sizeof(buf), &f, FERRY_TEST_WAIT_MS) == DOCA_SUCCESS &&
			    f.type == FERRY_FRAME_WELCOME,
		    ROGUE_NO_FRAME);
}

static void rogue_up(struct rogue *r, uint32_t id, const void *desc, size_t desc_len, const void *ring_desc,
		     size_t ring_desc_len)
{
	uint8_t frame[FERRY_FRAME_UP_MAX];
	struct ferry_frame_consumer_up up = {.consumer_id = id,
					     .ring_cap = ROGUE_CAP,
					     .desc = desc,
					     .desc_len = (uint16_t)desc_len,
					     .ring_desc = ring_desc,
					     .ring_desc_len = (uint16_t)ring_desc_len};

	rogue_send(r, frame, ferry_frame_build_consumer_up(frame, &up));
}

/* Keep what the server sends: its DONE_RING for ROGUE_ID and its own consumer's CONSUMER_UP. */
static void rogue_keep(struct rogue *r, const struct ferry_frame *f, const uint8_t *buf, size_t cap)
{
	if (f->type == FERRY_FRAME_DONE_RING && f->u.done_ring.consumer_id == ROGUE_ID) {
		memcpy(r->done_ring, f->u.done_ring.desc, f->u.done_ring.desc_len);
		r->done_ring_len = f->u.done_ring.desc_len;
	} else if (f->type == FERRY_FRAME_CONSUMER_UP && r->cup_len == 0) {
		r->cup_len = (size_t)(f->payload - buf) + f->payload_len;
		ROGUE_CHECK(r->cup_len <= sizeof(r->cup) && r->cup_len <= cap, ROGUE_SETUP);
		memcpy(r->cup, buf, r->cup_len);
	}
}

/* Read frames until the DONE_RING for ROGUE_ID (and, if @p want_cup, the server's CONSUMER_UP) came. */
static void rogue_collect(struct rogue *r, bool want_cup)
{
	uint8_t buf[4096];
	struct ferry_frame f;

	while (r->done_ring_len == 0 || (want_cup && r->cup_len == 0)) {
		ROGUE_CHECK(rogue_next(r, buf, sizeof(buf), &f, FERRY_TEST_WAIT_MS) == DOCA_SUCCESS, ROGUE_NO_FRAME);
		rogue_keep(r, &f, buf, sizeof(buf));
	}
}

/* The server must close the connection, sending no DONE_RING for @p id first. */
static void rogue_expect_refused(struct rogue *r, uint32_t id)
{
	uint8_t buf[4096];
	struct ferry_frame f;
	doca_error_t err;

	while ((err = rogue_next(r, buf, sizeof(buf), &f, FERRY_TEST_WAIT_MS)) == DOCA_SUCCESS)
		ROGUE_CHECK(f.type != FERRY_FRAME_DONE_RING || f.u.done_ring.consumer_id != id, ROGUE_ANSWERED);
	ROGUE_CHECK(err == DOCA_ERROR_CONNECTION_RESET, ROGUE_NOT_CLOSED);
}

static void rogue_say(const char *line)
{
	printf("%s\n", line);
	fflush(stdout);
}

/* Until the parent says go (one byte on our stdin). */
static void rogue_wait_go(void)
{
	char c;

	ROGUE_CHECK(read(STDIN_FILENO, &c, 1) == 1, ROGUE_SETUP);
}

/* Until the parent closes our stdin (or kills us). */
static void rogue_linger(void)
{
	char c;

	while (read(STDIN_FILENO, &c, 1) > 0)
		;
}

static void hex_line(const char *tag, const void *p, size_t len)
{
	printf("%s ", tag);
	for (size_t i = 0; i < len; i++)
		printf("%02x", ((const uint8_t *)p)[i]);
	printf("\n");
	fflush(stdout);
}

/* Case 1, from another process: shareable memory exported read-only, a post offered in it. */
static int role_ro_up(struct rogue *r, const char *name)
{
	rogue_hello(r, name);
	rogue_exports(r, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	rogue_up(r, ROGUE_ID, r->desc, r->desc_len, r->ring_desc, r->ring_desc_len);
	rogue_expect_refused(r, ROGUE_ID);
	for (size_t i = 0; i < ROGUE_MEM; i++)
		ROGUE_CHECK(r->mem[i] == 0x5a, ROGUE_WROTE);
	return ROGUE_OK;
}

/*
 * Case 1b: writable memory, but a post ring exported read-only (one post
 * offered in it). The producers' side claims posts with atomics on the ring:
 * mapped read-only, its first claim would fault.
 */
static int role_ro_ring(struct rogue *r, const char *name)
{
	rogue_hello(r, name);
	rogue_exports_as(r, DOCA_ACCESS_FLAG_PCI_READ_WRITE, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	rogue_up(r, ROGUE_ID, r->desc, r->desc_len, r->ring_desc, r->ring_desc_len);
	rogue_expect_refused(r, ROGUE_ID);
	ROGUE_CHECK(atomic_load(&r->ring->claimed) == 0, ROGUE_WROTE);
	return ROGUE_OK;
}

/* Case 2's third process: exports memory and a ring, prints their descriptors, waits. */
static int role_export(struct rogue *r)
{
	r->host = cu_open_host_dev();
	ROGUE_CHECK(r->host != NULL, ROGUE_SETUP);
	rogue_exports(r, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	hex_line("mem", r->desc, r->desc_len);
	hex_line("ring", r->ring_desc, r->ring_desc_len);
	rogue_linger();
	return ROGUE_OK;
}

/*
 * Case 3: a good consumer first (so the server sends a DONE_RING), then a
 * second one that names one of the server's own exports as its memory or
 * ring: "done-as-mem", "done-as-ring" (the completion ring the server sent),
 * "cmem-as-mem", "cring-as-ring" (from the server's own consumer's CONSUMER_UP).
 */
static int role_replay(struct rogue *r, const char *name, const char *what)
{
	bool cup = strncmp(what, "c", 1) == 0;
	struct ferry_frame f;
	const char *why;

	rogue_hello(r, name);
	rogue_exports(r, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	rogue_up(r, ROGUE_ID, r->desc, r->desc_len, r->ring_desc, r->ring_desc_len);
	rogue_collect(r, cup);
	if (cup)
		ROGUE_CHECK(ferry_frame_parse(r->cup, r->cup_len, COMCH_CAP_MAX_MSG_SIZE, &f, &why) == DOCA_SUCCESS,
			    ROGUE_SETUP);
	if (strcmp(what, "done-as-mem") == 0)
		rogue_up(r, REPLAY_ID, r->done_ring, r->done_ring_len, r->ring_desc, r->ring_desc_len);
	else if (strcmp(what, "done-as-ring") == 0)
		rogue_up(r, REPLAY_ID, r->desc, r->desc_len, r->done_ring, r->done_ring_len);
	else if (strcmp(what, "cmem-as-mem") == 0)
		rogue_up(r, REPLAY_ID, f.u.up.desc, f.u.up.desc_len, r->ring_desc, r->ring_desc_len);
	else
		rogue_up(r, REPLAY_ID, r->desc, r->desc_len, f.u.up.ring_desc, f.u.up.ring_desc_len);
	rogue_expect_refused(r, REPLAY_ID);
	return ROGUE_OK;
}

/* Ask the exporter's memory agent for an export, as an importer does: the reply and its fds. */
static void rogue_ask_agent(const struct ferry_export_desc *d, struct link_rep *rep, int fds[2])
{
	struct link_req req = {.magic = LINK_MSG_MAGIC, .version = LINK_MSG_VERSION, .export_id = d->export_id};
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = rep, .iov_len = sizeof(*rep)};
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
	struct ferry_link_addr addr;
	struct cmsghdr *c;
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	memcpy(req.token, d->token, sizeof(req.token));
	ROGUE_CHECK(s >= 0 && ferry_link_abstract_addr(&addr, d->agent) == DOCA_SUCCESS, ROGUE_SETUP);
	ROGUE_CHECK(connect(s, (const struct sockaddr *)&addr.sun, addr.len) == 0, ROGUE_SETUP);
	ROGUE_CHECK(send(s, &req, sizeof(req), MSG_NOSIGNAL) == (ssize_t)sizeof(req), ROGUE_SETUP);
	ROGUE_CHECK(recvmsg(s, &msg, MSG_CMSG_CLOEXEC) == (ssize_t)sizeof(*rep), ROGUE_NO_FRAME);
	c = CMSG_FIRSTHDR(&msg);
	ROGUE_CHECK(c != NULL && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(2 * sizeof(int)),
		    ROGUE_NO_FRAME);
	memcpy(fds, CMSG_DATA(c), 2 * sizeof(int)); /* the state page, then the memory */
	close(s);
}

/* No writable mapping of @p fd, neither directly nor through a read-write reopen; no write(2) either. */
static void rogue_try_writing(int fd, size_t len, off_t off)
{
	char path[64];
	int rw;

	ROGUE_CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY, ROGUE_WROTE);
	ROGUE_CHECK((fcntl(fd, F_GET_SEALS) & F_SEAL_FUTURE_WRITE) != 0, ROGUE_WROTE);
	ROGUE_CHECK(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off) == MAP_FAILED && errno == EACCES,
		    ROGUE_WROTE);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rw = open(path, O_RDWR | O_CLOEXEC);
	if (rw < 0)
		return; /* refused outright: fine too */
	ROGUE_CHECK(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, rw, off) == MAP_FAILED && errno == EPERM,
		    ROGUE_WROTE);
	ROGUE_CHECK(pwrite(rw, "x", 1, off) == -1 && errno == EPERM, ROGUE_WROTE);
	close(rw);
}

/* Ferry's own import of the completion ring is read-only too: mprotect cannot make it writable. */
static const struct comch_ring_hdr *rogue_import_read_only(struct rogue *r, size_t page, struct ferry_link_import **imp)
{
	struct ferry_link_view v;

	ROGUE_CHECK(ferry_link_import_open(r->done_ring, r->done_ring_len,
					   ferry_devinfo_machine(doca_dev_as_devinfo(r->host)),
					   FERRY_LINK_IMPORT_ANYWHERE, "rogue", imp, &v) == DOCA_SUCCESS,
		    ROGUE_SETUP);
	ROGUE_CHECK(v.access == DOCA_ACCESS_FLAG_PCI_READ_ONLY, ROGUE_WROTE);
	ROGUE_CHECK(mprotect((void *)((uintptr_t)v.local & ~(uintptr_t)(page - 1)), page, PROT_READ | PROT_WRITE) !=
				    0 &&
			    errno == EACCES,
		    ROGUE_WROTE);
	return v.local;
}

/*
 * Case 6: the completion ring the server hands the rogue is read-only. The
 * rogue asks the server's memory agent for it, as an importer does, and tries
 * every way to write it: the fd it got, a read-write reopen through
 * /proc/self/fd, and mprotect of a Ferry import. Then it reads the ring: the
 * server's completions still arrive.
 */
static int role_reopen(struct rogue *r, const char *name)
{
	struct ferry_export_desc d;
	struct ferry_link_import *imp = NULL;
	const struct comch_ring_hdr *imported;
	struct link_rep rep;
	const char *why;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fds[2];
	uint8_t *ro;

	rogue_hello(r, name);
	rogue_exports(r, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	rogue_up(r, ROGUE_ID, r->desc, r->desc_len, r->ring_desc, r->ring_desc_len);
	rogue_collect(r, false);
	ROGUE_CHECK(ferry_export_desc_decode(r->done_ring, r->done_ring_len, &d, &why) == DOCA_SUCCESS, ROGUE_SETUP);
	rogue_ask_agent(&d, &rep, fds);
	ROGUE_CHECK(rep.status == DOCA_SUCCESS && rep.access == DOCA_ACCESS_FLAG_PCI_READ_ONLY, ROGUE_WROTE);
	rogue_try_writing(fds[0], page, 0);
	rogue_try_writing(fds[1], (size_t)rep.map_len, (off_t)rep.mem_off);
	ro = mmap(NULL, (size_t)rep.map_len, PROT_READ, MAP_SHARED, fds[1], (off_t)rep.mem_off);
	ROGUE_CHECK(ro != MAP_FAILED, ROGUE_SETUP);
	ROGUE_CHECK(((const struct comch_ring_hdr *)(ro + (rep.addr - rep.map_base)))->magic == COMCH_DONE_MAGIC,
		    ROGUE_SETUP);
	imported = rogue_import_read_only(r, page, &imp);
	rogue_say("sealed");
	/* The parent sends once into the post we offered: its completion must show in our read-only views. */
	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	     atomic_load(&imported->head) == 0 && !ferry_test_expired(until);)
		usleep(1000);
	ROGUE_CHECK(atomic_load(&((const struct comch_ring_hdr *)(ro + (rep.addr - rep.map_base)))->head) == 1,
		    ROGUE_NO_FRAME);
	ROGUE_CHECK(r->mem[0] == 0xa5, ROGUE_NO_FRAME);
	rogue_say("completed");
	rogue_linger();
	ferry_link_import_close(imp);
	munmap(ro, (size_t)rep.map_len);
	close(fds[0]);
	close(fds[1]);
	return ROGUE_OK;
}

/* A consumer that posts nothing and waits to be killed. */
static int role_die_consumer(struct rogue *r, const char *name)
{
	rogue_hello(r, name);
	rogue_exports(r, DOCA_ACCESS_FLAG_PCI_READ_WRITE);
	atomic_store(&r->ring->head, 0); /* nothing offered: the producer waits */
	rogue_up(r, ROGUE_ID, r->desc, r->desc_len, r->ring_desc, r->ring_desc_len);
	rogue_collect(r, false);
	rogue_say("up");
	rogue_linger();
	return ROGUE_OK;
}

/* The producers' side for the server's consumer: a completion ring, never written; waits to be killed. */
static int role_die_producer(struct rogue *r, const char *name)
{
	uint8_t frame[FERRY_FRAME_DONE_RING_MAX];
	struct ferry_frame_done_ring answer;
	struct comch_ring_hdr *dring;
	struct ferry_frame f;
	const void *desc = NULL;
	size_t desc_len = 0;
	const char *why;

	rogue_hello(r, name);
	r->done_ring_len = 1; /* it has no consumer of its own: wait for the server's CONSUMER_UP only */
	rogue_collect(r, true);
	ROGUE_CHECK(ferry_frame_parse(r->cup, r->cup_len, COMCH_CAP_MAX_MSG_SIZE, &f, &why) == DOCA_SUCCESS,
		    ROGUE_SETUP);
	dring = rogue_shared(r, comch_done_ring_bytes(f.u.up.ring_cap));
	rogue_export(r, dring, comch_done_ring_bytes(f.u.up.ring_cap), DOCA_ACCESS_FLAG_PCI_READ_ONLY, &desc,
		     &desc_len);
	answer = (struct ferry_frame_done_ring){.consumer_id = f.u.up.consumer_id,
						.ring_cap = f.u.up.ring_cap,
						.desc = desc,
						.desc_len = (uint16_t)desc_len};
	rogue_send(r, frame, ferry_frame_build_done_ring(frame, &answer));
	rogue_say("ready");
	rogue_linger();
	return ROGUE_OK;
}

/*
 * The producers' side for the server's consumer answers its CONSUMER_UP with
 * a DONE_RING that names the server consumer's own memory as the completion
 * ring (large enough, aligned: only its exporter is wrong).
 */
static int role_replay_done(struct rogue *r, const char *name)
{
	uint8_t frame[FERRY_FRAME_DONE_RING_MAX];
	struct ferry_frame_done_ring answer;
	struct ferry_frame f;
	const char *why;

	rogue_hello(r, name);
	r->done_ring_len = 1; /* it has no consumer of its own: wait for the server's CONSUMER_UP only */
	rogue_collect(r, true);
	ROGUE_CHECK(ferry_frame_parse(r->cup, r->cup_len, COMCH_CAP_MAX_MSG_SIZE, &f, &why) == DOCA_SUCCESS,
		    ROGUE_SETUP);
	rogue_wait_go(); /* the server's consumer posts first */
	answer = (struct ferry_frame_done_ring){.consumer_id = f.u.up.consumer_id,
						.ring_cap = f.u.up.ring_cap,
						.desc = f.u.up.desc,
						.desc_len = f.u.up.desc_len};
	rogue_send(r, frame, ferry_frame_build_done_ring(frame, &answer));
	rogue_expect_refused(r, 0);
	return ROGUE_OK;
}

static int rogue_role(struct rogue *r, int argc, char **argv)
{
	if (argc >= 1 && strcmp(argv[0], "export") == 0)
		return role_export(r);
	if (argc < 2)
		return ROGUE_SETUP;
	if (strcmp(argv[0], "ro-up") == 0)
		return role_ro_up(r, argv[1]);
	if (strcmp(argv[0], "ro-ring") == 0)
		return role_ro_ring(r, argv[1]);
	if (strcmp(argv[0], "replay") == 0 && argc >= 3)
		return role_replay(r, argv[1], argv[2]);
	if (strcmp(argv[0], "reopen") == 0)
		return role_reopen(r, argv[1]);
	if (strcmp(argv[0], "die-consumer") == 0)
		return role_die_consumer(r, argv[1]);
	if (strcmp(argv[0], "die-producer") == 0)
		return role_die_producer(r, argv[1]);
	if (strcmp(argv[0], "replay-done") == 0)
		return role_replay_done(r, argv[1]);
	return ROGUE_SETUP;
}

static int rogue_main(int argc, char **argv)
{
	struct rogue r;
	int code;

	memset(&r, 0, sizeof(r));
	r.fd = -1;
	signal(SIGPIPE, SIG_IGN);
	code = rogue_role(&r, argc, argv);
	rogue_cleanup(&r);
	return code;
}

/* ======== the server (parent) ======== */

struct fix {
	struct cu_machine m;
	struct doca_comch_server *server;
	struct doca_comch_connection *conn;
	unsigned connects, disconnects, new_consumers;
	unsigned send_ok, send_err, recv_ok, recv_err;
	doca_error_t send_status, recv_status;
};

static struct fix *F;

/* A rogue child: its pid, its stdout (non-blocking) and stdin. */
struct child {
	pid_t pid;
	int out, in;
	char seen[4096];
	size_t seen_len;
	int status;
	bool exited;
};

static void on_connect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
		       uint8_t ok)
{
	(void)ev;
	(void)ok;
	F->connects++;
	F->conn = conn;
}

static void on_disconnect(struct doca_comch_event_connection_status_changed *ev, struct doca_comch_connection *conn,
			  uint8_t ok)
{
	(void)ev;
	(void)ok;
	F->disconnects++;
	if (F->conn == conn)
		F->conn = NULL;
}

static void on_new_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
	F->new_consumers++;
}

static void on_expired_consumer(struct doca_comch_event_consumer *ev, struct doca_comch_connection *conn, uint32_t id)
{
	(void)ev;
	(void)conn;
	(void)id;
}

static void send_cb(struct doca_comch_task_send *t, union doca_data tu, union doca_data cu)
{
	(void)tu;
	(void)cu;
	doca_task_free(doca_comch_task_send_as_task(t));
}

static void prod_cb(struct doca_comch_producer_task_send *t, union doca_data tu, union doca_data cu)
{
	doca_error_t st = doca_task_get_status(doca_comch_producer_task_send_as_task(t));

	(void)tu;
	(void)cu;
	F->send_status = st;
	if (st == DOCA_SUCCESS)
		F->send_ok++;
	else
		F->send_err++;
	doca_task_free(doca_comch_producer_task_send_as_task(t));
}

static void recv_cb(struct doca_comch_consumer_task_post_recv *t, union doca_data tu, union doca_data cu)
{
	doca_error_t st = doca_task_get_status(doca_comch_consumer_task_post_recv_as_task(t));

	(void)tu;
	(void)cu;
	F->recv_status = st;
	if (st == DOCA_SUCCESS)
		F->recv_ok++;
	else
		F->recv_err++;
	doca_task_free(doca_comch_consumer_task_post_recv_as_task(t));
}

/*
 * This process's memory agent starts at its first export and keeps a socket:
 * start it before any test counts fds.
 */
static void start_agent(void)
{
	static uint8_t page[64];
	struct doca_mmap *m = NULL;
	const void *desc = NULL;
	size_t len = 0;

	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, page, sizeof(page)), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, F->m.host), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_ONLY), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_pci(m, F->m.host, &desc, &len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(m), DOCA_SUCCESS);
}

static int setup(void **state)
{
	F = calloc(1, sizeof(*F));
	assert_non_null(F);
	assert_true(cu_machine_open(&F->m, "comch-rogue"));
	start_agent();
	ferry_test_log_reset();
	*state = F;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (F->server != NULL) {
		ferry_test_stop_idle(F->m.pe, doca_comch_server_as_ctx(F->server));
		assert_int_equal(doca_comch_server_destroy(F->server), DOCA_SUCCESS);
	}
	cu_machine_close(&F->m);
	free(F);
	return 0;
}

static void start_server(const char *name)
{
	assert_int_equal(doca_comch_server_create(F->m.dpu, F->m.rep, name, &F->server), DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_task_send_set_conf(F->server, send_cb, send_cb, 8), DOCA_SUCCESS);
	assert_int_equal(
		doca_comch_server_event_connection_status_changed_register(F->server, on_connect, on_disconnect),
		DOCA_SUCCESS);
	assert_int_equal(doca_comch_server_event_consumer_register(F->server, on_new_consumer, on_expired_consumer),
			 DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(F->m.pe, doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_server_as_ctx(F->server)), DOCA_SUCCESS);
}

/* Fork and exec this program as a rogue: "--rogue" @p args... */
static void spawn_rogue(struct child *c, const char *const *args)
{
	const char *argv[8] = {"test_fast_rogue", "--rogue"};
	int out[2], in[2];
	size_t n = 2;

	for (; args[n - 2] != NULL && n < 7; n++)
		argv[n] = args[n - 2];
	argv[n] = NULL;
	memset(c, 0, sizeof(*c));
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		/* Only async-signal-safe calls until exec: the parent has threads. */
		if (dup2(out[1], STDOUT_FILENO) < 0 || dup2(in[0], STDIN_FILENO) < 0)
			_exit(127);
		execv("/proc/self/exe", (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(out[1]);
	close(in[0]);
	c->out = out[0];
	c->in = in[1];
	assert_int_equal(fcntl(c->out, F_SETFL, O_NONBLOCK), 0);
}

/* Read what the child printed so far; reap it if it exited. */
static void child_poll(struct child *c)
{
	ssize_t n;

	while (c->seen_len + 1 < sizeof(c->seen) &&
	       (n = read(c->out, c->seen + c->seen_len, sizeof(c->seen) - 1 - c->seen_len)) > 0)
		c->seen_len += (size_t)n;
	c->seen[c->seen_len] = '\0';
	if (!c->exited && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->exited = true;
}

/* Progress the server until the child printed a line starting with @p word (or fail). */
static void child_wait_word(struct child *c, const char *word)
{
	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS); !ferry_test_expired(until);) {
		child_poll(c);
		if (strstr(c->seen, word) != NULL)
			return;
		if (c->exited)
			fail_msg("the rogue exited (status %d) before saying '%s'", c->status, word);
		if (doca_pe_progress(F->m.pe) == 0)
			ferry_test_idle();
	}
	fail_msg("the rogue did not say '%s'", word);
}

/* Close the child's stdin and progress the server until it exits; its exit code. */
static int child_finish(struct child *c)
{
	if (c->in >= 0)
		close(c->in);
	c->in = -1;
	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS); !c->exited && !ferry_test_expired(until);) {
		if (doca_pe_progress(F->m.pe) == 0)
			ferry_test_idle();
		child_poll(c);
	}
	if (!c->exited) {
		kill(c->pid, SIGKILL);
		(void)waitpid(c->pid, &c->status, 0);
		fail_msg("the rogue did not finish in time");
	}
	close(c->out);
	return WIFEXITED(c->status) ? WEXITSTATUS(c->status) : 128 + WTERMSIG(c->status);
}

/* Let the child go on (rogue_wait_go). */
static void child_go(struct child *c)
{
	assert_int_equal(write(c->in, "g", 1), 1);
}

static void child_kill(struct child *c)
{
	kill(c->pid, SIGKILL);
	assert_int_equal(waitpid(c->pid, &c->status, 0), c->pid);
	c->exited = true;
	close(c->in);
	c->in = -1;
	close(c->out);
}

/* Progress the server until the rogue connected. */
static void wait_connected(struct child *c)
{
	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS);
	     F->connects == 0 && !ferry_test_expired(until);) {
		child_poll(c);
		assert_false(c->exited);
		if (doca_pe_progress(F->m.pe) == 0)
			ferry_test_idle();
	}
	assert_int_equal(F->connects, 1);
}

/* The rogue is refused and ends up closed: the line, one disconnect, nothing left open. */
static void assert_refused(const char *line, unsigned consumers_before)
{
	assert_true(ferry_test_log_has(line));
	assert_int_equal(F->new_consumers, consumers_before);
	FERRY_PROGRESS_UNTIL(F->m.pe, F->disconnects > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(F->disconnects, 1);
	assert_int_equal(F->server->num_conns, 0);
}

/*
 * Case 1, across processes: the rogue's memory is shareable and exported
 * read-only, so the server would map it read-only and a producer's write
 * would fault. Refused: the line, no new consumer, no DONE_RING (the rogue
 * checks), its memory untouched (the rogue checks), no fd left here.
 */
static void test_read_only_memory_of_another_process(void **state)
{
	const char *args[] = {"ro-up", "rogue-ro", NULL};
	struct child c;
	int fds;

	(void)state;
	start_server("rogue-ro");
	fds = ferry_test_count_fds();
	spawn_rogue(&c, args);
	assert_int_equal(child_finish(&c), ROGUE_OK);
	assert_refused("CONSUMER_UP names a read-only export", 0);
	assert_int_equal(ferry_test_fds_settle(F->m.pe, fds), fds);
}

/*
 * Case 1b, across processes: the rogue's post ring is exported read-only, so
 * the server would map it read-only and a producer's claim (an atomic on the
 * ring) would fault. Refused: the line, no new consumer, no DONE_RING (the
 * rogue checks), no claim in its ring (the rogue checks), no fd left here.
 */
static void test_read_only_ring_of_another_process(void **state)
{
	const char *args[] = {"ro-ring", "rogue-ro-ring", NULL};
	struct child c;
	int fds;

	(void)state;
	start_server("rogue-ro-ring");
	fds = ferry_test_count_fds();
	spawn_rogue(&c, args);
	assert_int_equal(child_finish(&c), ROGUE_OK);
	assert_refused("names a read-only ring", 0);
	assert_int_equal(ferry_test_fds_settle(F->m.pe, fds), fds);
}

/* The descriptor the child printed as "@p tag <hex>", once its line is complete. */
static size_t child_hex(struct child *c, const char *tag, uint8_t *out, size_t cap)
{
	const char *p = NULL;
	size_t n = 0;

	for (uint64_t until = ferry_test_deadline(FERRY_TEST_WAIT_MS); !ferry_test_expired(until);) {
		p = strstr(c->seen, tag);
		if (p != NULL && strchr(p, '\n') != NULL)
			break;
		child_wait_word(c, tag);
		p = NULL;
	}
	assert_non_null(p);
	for (p += strlen(tag); p[0] != '\n' && n < cap; p += 2)
		assert_int_equal(sscanf(p, "%2hhx", &out[n++]), 1);
	return n;
}

/* An export of our own over shareable memory of @p len bytes (PCI read-write). */
static struct doca_mmap *own_export(size_t len, void **mem, const void **desc, size_t *desc_len)
{
	struct doca_mmap *m = NULL;

	*mem = ferry_mem_alloc_shared(len);
	assert_non_null(*mem);
	assert_int_equal(doca_mmap_create(&m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(m, *mem, len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(m, F->m.host), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(m), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_export_pci(m, F->m.host, desc, desc_len), DOCA_SUCCESS);
	return m;
}

/* A raw socket of ours, connected to the server @p name and past its handshake. */
static int raw_hello(const char *name)
{
	const struct doca_devinfo *info = doca_dev_as_devinfo(F->m.host);
	uint8_t frame[FERRY_FRAME_HELLO_MAX];
	struct ferry_link_addr addr;
	int fd = -1;

	assert_int_equal(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), ferry_devinfo_machine(info),
					       ferry_devinfo_name(info), name),
			 DOCA_SUCCESS);
	assert_int_equal(ferry_link_connect(&addr, &fd), DOCA_SUCCESS);
	assert_int_equal(
		ferry_link_send(fd, frame,
				ferry_frame_build_hello(frame, COMCH_CAP_MAX_MSG_SIZE, 64, ferry_devinfo_machine(info),
							ferry_devinfo_name(info), name)),
		DOCA_SUCCESS);
	FERRY_PROGRESS_UNTIL(F->m.pe, F->connects > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(F->connects, 1);
	return fd;
}

/* Progress until the server ended the raw connection; it must have sent no DONE_RING. */
static void raw_refused(int fd)
{
	uint8_t got[4096];

	FERRY_PROGRESS_UNTIL(F->m.pe, F->disconnects > 0, FERRY_TEST_WAIT_MS);
	for (int i = 0; i < 100; i++) {
		size_t len = 0;
		struct ferry_frame f;
		const char *why;

		if (ferry_link_recv(fd, got, sizeof(got), &len) != DOCA_SUCCESS)
			break;
		assert_int_equal(ferry_frame_parse(got, len, COMCH_CAP_MAX_MSG_SIZE, &f, &why), DOCA_SUCCESS);
		assert_int_not_equal(f.type, FERRY_FRAME_DONE_RING);
	}
	close(fd);
}

/*
 * Case 2: a raw socket of ours (its pid is ours) names memory, or a ring,
 * that a third process exported; the other half is our own export, which
 * alone would pass.
 */
static void third_process(bool ring)
{
	const char *args[] = {"export", NULL};
	uint8_t frame[FERRY_FRAME_UP_MAX], mdesc[FERRY_FRAME_DESC_MAX], rdesc[FERRY_FRAME_DESC_MAX];
	struct ferry_frame_consumer_up up = {.consumer_id = ROGUE_ID, .ring_cap = ROGUE_CAP};
	const void *own_desc = NULL, *own_ring_desc = NULL;
	size_t own_desc_len = 0, own_ring_desc_len = 0, mlen, rlen;
	struct doca_mmap *mm, *rm;
	void *mem, *own_ring;
	struct child c;
	int fd, fds;

	start_server("rogue-third");
	spawn_rogue(&c, args);
	mlen = child_hex(&c, "mem ", mdesc, sizeof(mdesc));
	rlen = child_hex(&c, "ring ", rdesc, sizeof(rdesc));
	mm = own_export(ROGUE_MEM, &mem, &own_desc, &own_desc_len);
	rm = own_export(comch_ring_bytes(ROGUE_CAP), &own_ring, &own_ring_desc, &own_ring_desc_len);
	up.desc = ring ? own_desc : mdesc;
	up.desc_len = (uint16_t)(ring ? own_desc_len : mlen);
	up.ring_desc = ring ? rdesc : own_ring_desc;
	up.ring_desc_len = (uint16_t)(ring ? rlen : own_ring_desc_len);
	fds = ferry_test_count_fds();
	fd = raw_hello("rogue-third");
	assert_int_equal(ferry_link_send(fd, frame, ferry_frame_build_consumer_up(frame, &up)), DOCA_SUCCESS);
	raw_refused(fd);
	assert_refused(ring ? "names a ring exported by another process than the peer"
			    : "CONSUMER_UP names memory exported by another process than the peer",
		       0);
	assert_int_equal(ferry_test_fds_settle(F->m.pe, fds), fds);
	assert_int_equal(child_finish(&c), ROGUE_OK);
	assert_int_equal(doca_mmap_destroy(mm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(rm), DOCA_SUCCESS);
	assert_int_equal(ferry_mem_free_shared(mem), 0);
	assert_int_equal(ferry_mem_free_shared(own_ring), 0);
}

static void test_memory_of_a_third_process(void **state)
{
	(void)state;
	third_process(false);
}

static void test_ring_of_a_third_process(void **state)
{
	(void)state;
	third_process(true);
}

/* A started consumer of the server's, on @p pe, over @p len bytes at @p mem (one task). */
static struct doca_comch_consumer *server_consumer(struct doca_pe *pe, void *mem, size_t len, struct doca_mmap **cm)
{
	struct doca_comch_consumer *cons = NULL;

	assert_int_equal(doca_mmap_create(cm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(*cm, mem, len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(*cm, F->m.dpu), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(*cm, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(*cm), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_create(F->conn, *cm, &cons), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(cons, recv_cb, recv_cb, 1), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, doca_comch_consumer_as_ctx(cons)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(cons)), DOCA_ERROR_IN_PROGRESS);
	(void)doca_pe_progress(pe);
	assert_int_equal(ferry_test_ctx_state(doca_comch_consumer_as_ctx(cons)), DOCA_CTX_STATE_RUNNING);
	return cons;
}

/*
 * Case 3: the rogue (another process) replays one of the server's own
 * exports in a CONSUMER_UP of its second consumer. For "c..." variants the
 * server runs a consumer of its own on the connection, whose CONSUMER_UP
 * hands the rogue that consumer's memory and post ring.
 */
static void replay(const char *what, const char *line)
{
	const char *args[] = {"replay", "rogue-replay", what, NULL};
	struct doca_comch_consumer *cons = NULL;
	struct doca_mmap *cm = NULL;
	uint8_t *cmem = calloc(1, 4096);
	struct child c;
	int fds;

	start_server("rogue-replay");
	fds = ferry_test_count_fds();
	spawn_rogue(&c, args);
	wait_connected(&c);
	if (what[0] == 'c')
		cons = server_consumer(F->m.pe, cmem, 4096, &cm);
	assert_int_equal(child_finish(&c), ROGUE_OK);
	assert_refused(line, 1); /* its good consumer came up; the replay did not */
	if (cons != NULL) {
		ferry_test_stop_idle(F->m.pe, doca_comch_consumer_as_ctx(cons));
		assert_int_equal(doca_comch_consumer_destroy(cons), DOCA_SUCCESS);
		assert_int_equal(doca_mmap_destroy(cm), DOCA_SUCCESS);
	}
	assert_int_equal(ferry_test_fds_settle(F->m.pe, fds), fds);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(cmem[i], 0);
	free(cmem);
}

static void test_replay_done_ring_as_memory(void **state)
{
	(void)state;
	replay("done-as-mem", "CONSUMER_UP names memory exported by another process than the peer");
}

static void test_replay_done_ring_as_ring(void **state)
{
	(void)state;
	replay("done-as-ring", "names a ring exported by another process than the peer");
}

static void test_replay_server_consumer_memory(void **state)
{
	(void)state;
	replay("cmem-as-mem", "CONSUMER_UP names memory exported by another process than the peer");
}

static void test_replay_server_consumer_ring(void **state)
{
	(void)state;
	replay("cring-as-ring", "names a ring exported by another process than the peer");
}

/*
 * Case 3 on the consumer's side: the rogue names the memory of the server's
 * own consumer as the completion ring for that consumer. Refused with the
 * line; the posted buffer fails NOT_CONNECTED and stays untouched.
 */
static void test_replay_server_memory_as_done_ring(void **state)
{
	const char *args[] = {"replay-done", "rogue-replay-done", NULL};
	struct doca_comch_consumer_task_post_recv *t = NULL;
	struct doca_comch_consumer *cons;
	struct doca_buf_inventory *inv = NULL;
	struct doca_buf *buf = NULL;
	struct doca_mmap *cm = NULL;
	uint8_t *cmem = aligned_alloc(COMCH_RING_LINE, 4096);
	struct child c;

	(void)state;
	memset(cmem, 0, 4096);
	start_server("rogue-replay-done");
	spawn_rogue(&c, args);
	wait_connected(&c);
	cons = server_consumer(F->m.pe, cmem, 4096, &cm);
	assert_int_equal(doca_buf_inventory_create(1, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_addr(inv, cm, cmem, 4096, &buf), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(cons, buf, &t), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)), DOCA_SUCCESS);
	child_go(&c);
	assert_int_equal(child_finish(&c), ROGUE_OK);
	assert_refused("names a ring exported by another process than the peer", 0);
	FERRY_PROGRESS_UNTIL(F->m.pe, F->recv_err > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(F->recv_err, 1);
	assert_int_equal(F->recv_status, DOCA_ERROR_NOT_CONNECTED);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(cmem[i], 0);
	ferry_test_stop_idle(F->m.pe, doca_comch_consumer_as_ctx(cons));
	assert_int_equal(doca_comch_consumer_destroy(cons), DOCA_SUCCESS);
	(void)doca_buf_dec_refcount(buf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(cm), DOCA_SUCCESS);
	free(cmem);
}

/* A started producer on the server's connection, on @p pe, with one send of @p len bytes of 0xa5 to ROGUE_ID. */
static struct doca_comch_producer *producer_with_send(struct doca_pe *pe, uint8_t *pmem, size_t len,
						      struct doca_mmap **pm, struct doca_buf_inventory **inv,
						      struct doca_buf **buf)
{
	struct doca_comch_producer *p = NULL;
	struct doca_comch_producer_task_send *st = NULL;

	memset(pmem, 0xa5, len);
	assert_int_equal(doca_mmap_create(pm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(*pm, pmem, len), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(*pm, F->m.dpu), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(*pm, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(*pm), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(1, inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(*inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_buf_get_by_data(*inv, *pm, pmem, len, buf), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_create(F->conn, &p), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_set_conf(p, prod_cb, prod_cb, 1), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(pe, doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_producer_as_ctx(p)), DOCA_SUCCESS);
	assert_int_equal(doca_comch_producer_task_send_alloc_init(p, *buf, NULL, 0, ROGUE_ID, &st), DOCA_SUCCESS);
	assert_int_equal(doca_task_submit(doca_comch_producer_task_send_as_task(st)), DOCA_SUCCESS);
	return p;
}

static void producer_free(struct doca_comch_producer *p, struct doca_pe *pe, struct doca_mmap *pm,
			  struct doca_buf_inventory *inv, struct doca_buf *buf)
{
	ferry_test_stop_idle(pe, doca_comch_producer_as_ctx(p));
	assert_int_equal(doca_comch_producer_destroy(p), DOCA_SUCCESS);
	(void)doca_buf_dec_refcount(buf, NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(pm), DOCA_SUCCESS);
}

/*
 * Case 6, across processes: the rogue asks the server's memory agent for the
 * completion ring (read-only), and neither the fd, nor a read-write reopen of
 * it, nor mprotect of an import gives it a writable view (the rogue checks,
 * exit status 0). The server's own writes still arrive: one send into the
 * rogue's post shows in the rogue's read-only views.
 */
static void test_done_ring_reopened_read_write(void **state)
{
	const char *args[] = {"reopen", "rogue-reopen", NULL};
	struct doca_comch_producer *p;
	struct doca_buf_inventory *inv = NULL;
	struct doca_mmap *pm = NULL;
	struct doca_buf *buf = NULL;
	uint8_t pmem[64];
	struct child c;

	(void)state;
	start_server("rogue-reopen");
	spawn_rogue(&c, args);
	child_wait_word(&c, "sealed");
	assert_int_equal(F->new_consumers, 1);
	p = producer_with_send(F->m.pe, pmem, sizeof(pmem), &pm, &inv, &buf);
	child_wait_word(&c, "completed");
	assert_int_equal(F->send_ok, 1);
	assert_int_equal(child_finish(&c), ROGUE_OK);
	producer_free(p, F->m.pe, pm, inv, buf);
}

/*
 * A consumer's process dies while a send waits for its post, and only the
 * producer's PE is progressed: the send fails NOT_CONNECTED with a line, and
 * the server, progressed later, ends the connection.
 */
static void test_consumer_process_dies_producer_alone(void **state)
{
	const char *args[] = {"die-consumer", "rogue-die-c", NULL};
	struct doca_comch_producer *p;
	struct doca_buf_inventory *inv = NULL;
	struct doca_mmap *pm = NULL;
	struct doca_buf *buf = NULL;
	struct doca_pe *ppe = NULL;
	uint8_t pmem[64];
	struct child c;

	(void)state;
	start_server("rogue-die-c");
	spawn_rogue(&c, args);
	child_wait_word(&c, "up");
	assert_int_equal(F->new_consumers, 1);
	assert_int_equal(doca_pe_create(&ppe), DOCA_SUCCESS);
	p = producer_with_send(ppe, pmem, sizeof(pmem), &pm, &inv, &buf);
	for (int i = 0; i < 200; i++)
		(void)doca_pe_progress(ppe);
	assert_int_equal(F->send_ok + F->send_err, 0); /* nothing posted: it waits */
	child_kill(&c);
	FERRY_PROGRESS_UNTIL(ppe, F->send_err > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(F->send_err, 1);
	assert_int_equal(F->send_status, DOCA_ERROR_NOT_CONNECTED);
	assert_true(ferry_test_log_has("belongs to a consumer whose process is gone"));
	assert_int_equal(F->disconnects, 0); /* the server's PE has not run */
	FERRY_PROGRESS_UNTIL(F->m.pe, F->disconnects > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(F->disconnects, 1);
	producer_free(p, ppe, pm, inv, buf);
	assert_int_equal(doca_pe_destroy(ppe), DOCA_SUCCESS);
}

/*
 * The producers' process dies while two buffers are posted, and only the
 * consumer's PE is progressed: both posts fail NOT_CONNECTED with a line, not
 * a byte lands, and the server, progressed later, ends the connection.
 */
static void test_producer_process_dies_consumer_alone(void **state)
{
	const char *args[] = {"die-producer", "rogue-die-p", NULL};
	struct doca_comch_consumer *cons = NULL;
	struct doca_buf_inventory *inv = NULL;
	struct doca_buf *bufs[2] = {NULL, NULL};
	struct doca_mmap *cm = NULL;
	struct doca_pe *cpe = NULL;
	uint8_t *cmem = calloc(1, 2048);
	struct child c;

	(void)state;
	start_server("rogue-die-p");
	spawn_rogue(&c, args);
	wait_connected(&c);
	assert_int_equal(doca_pe_create(&cpe), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_create(&cm), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_memrange(cm, cmem, 2048), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_add_dev(cm, F->m.dpu), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_set_permissions(cm, DOCA_ACCESS_FLAG_PCI_READ_WRITE), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_start(cm), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_create(2, &inv), DOCA_SUCCESS);
	assert_int_equal(doca_buf_inventory_start(inv), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_create(F->conn, cm, &cons), DOCA_SUCCESS);
	assert_int_equal(doca_comch_consumer_task_post_recv_set_conf(cons, recv_cb, recv_cb, 2), DOCA_SUCCESS);
	assert_int_equal(doca_pe_connect_ctx(cpe, doca_comch_consumer_as_ctx(cons)), DOCA_SUCCESS);
	assert_int_equal(doca_ctx_start(doca_comch_consumer_as_ctx(cons)), DOCA_ERROR_IN_PROGRESS);
	(void)doca_pe_progress(cpe);
	assert_int_equal(ferry_test_ctx_state(doca_comch_consumer_as_ctx(cons)), DOCA_CTX_STATE_RUNNING);
	child_wait_word(&c, "ready");
	/* the DONE_RING comes through the connection */
	FERRY_PROGRESS_UNTIL(F->m.pe, cons->dones.imp != NULL, FERRY_TEST_WAIT_MS);
	assert_non_null(cons->dones.imp);
	for (int i = 0; i < 2; i++) {
		struct doca_comch_consumer_task_post_recv *t = NULL;

		assert_int_equal(doca_buf_inventory_buf_get_by_addr(inv, cm, cmem + i * 1024, 1024, &bufs[i]),
				 DOCA_SUCCESS);
		assert_int_equal(doca_comch_consumer_task_post_recv_alloc_init(cons, bufs[i], &t), DOCA_SUCCESS);
		assert_int_equal(doca_task_submit(doca_comch_consumer_task_post_recv_as_task(t)), DOCA_SUCCESS);
	}
	for (int i = 0; i < 200; i++)
		(void)doca_pe_progress(cpe);
	assert_int_equal(F->recv_ok + F->recv_err, 0);
	child_kill(&c);
	FERRY_PROGRESS_UNTIL(cpe, F->recv_err >= 2, FERRY_TEST_WAIT_MS);
	assert_int_equal(F->recv_err, 2);
	assert_int_equal(F->recv_ok, 0);
	assert_int_equal(F->recv_status, DOCA_ERROR_NOT_CONNECTED);
	assert_true(ferry_test_log_has("the peer's process is gone; posted buffers fail"));
	assert_int_equal(F->disconnects, 0);
	FERRY_PROGRESS_UNTIL(F->m.pe, F->disconnects > 0, FERRY_TEST_WAIT_MS);
	assert_int_equal(F->disconnects, 1);
	for (size_t i = 0; i < 2048; i++)
		assert_int_equal(cmem[i], 0);
	ferry_test_stop_idle(cpe, doca_comch_consumer_as_ctx(cons));
	assert_int_equal(doca_comch_consumer_destroy(cons), DOCA_SUCCESS);
	for (int i = 0; i < 2; i++)
		(void)doca_buf_dec_refcount(bufs[i], NULL);
	assert_int_equal(doca_buf_inventory_destroy(inv), DOCA_SUCCESS);
	assert_int_equal(doca_mmap_destroy(cm), DOCA_SUCCESS);
	assert_int_equal(doca_pe_destroy(cpe), DOCA_SUCCESS);
	free(cmem);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_only_memory_of_another_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_only_ring_of_another_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_of_a_third_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_of_a_third_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_done_ring_as_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_done_ring_as_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_server_consumer_memory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_server_consumer_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_server_memory_as_done_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_done_ring_reopened_read_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_consumer_process_dies_producer_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_producer_process_dies_consumer_alone, setup, teardown),
	};

	if (argc >= 2 && strcmp(argv[1], "--rogue") == 0)
		return rogue_main(argc - 2, argv + 2);
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
