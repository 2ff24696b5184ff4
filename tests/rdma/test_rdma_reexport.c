/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_reexport - the DPU side of NVIDIA's storage application, with
 * ordinary host memory: three processes (fork), public API only.
 *
 *   host (H)       exports malloc'd memory over PCI (so the DPU reaches it by
 *                  cross-memory attach, not by a shared mapping): one range
 *                  read-write, one read-only;
 *   DPU (D)        imports both and exports each import for RDMA (a re-export:
 *                  its link network server reaches the host's bytes through
 *                  the import), connects an RDMA context to the requester,
 *                  then blocks in read(), progressing nothing;
 *   requester (R)  imports both RDMA exports and reads and writes them with
 *                  DOCA RDMA tasks.
 *
 * Checked: D's export answers NOT_SUPPORTED under FERRY_LINK_NET=never (the
 * re-export needs the network path); bytes read land in R's buffer and bytes written land in H's memory
 * while D is blocked; with D stopped, R's submits return at once and its
 * progress goes on, and a message waits behind the read before it; a write to the read-only range fails with
 * DOCA_ERROR_NOT_PERMITTED; atomics are refused with NOT_SUPPORTED; a remote
 * buf outside the range is refused, and so is a descriptor that claims a
 * longer range, or that is truncated or damaged; after H stops its mmap a
 * task fails (and the next is refused), and after D destroys its import a
 * task fails too; nothing hangs.
 *
 * Exit 0 on success, 1 with a line on failure.
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include <doca_rdma.h>

#include "ferry_test_dev.h"
#include "rdma_fixture.h"
#include "xproc_check.h"

#define WAIT_MS    15000u
#define HOST_MEM   (1u << 20)
#define HALF       (HOST_MEM / 2) /* H exports [0, HALF) read-write, [HALF, HOST_MEM) read-only */
#define HOST_SEED  11u
#define WATCHDOG_S 60u

static const uint32_t RW = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE;

/* A command to H or D, and its one-byte answer. */
struct cmd {
	char op;
	uint32_t off, len, seed;
};

static void send_cmd(int fd, char op, uint32_t off, uint32_t len, uint32_t seed)
{
	struct cmd c = {op, off, len, seed};

	CHECK(write(fd, &c, sizeof(c)) == (ssize_t)sizeof(c));
}

static char ask(int out, int in, char op, uint32_t off, uint32_t len, uint32_t seed)
{
	char answer = 0;

	send_cmd(out, op, off, len, seed);
	CHECK(read(in, &answer, 1) == 1);
	return answer;
}

static bool get_cmd(int fd, struct cmd *c)
{
	return read(fd, c, sizeof(*c)) == (ssize_t)sizeof(*c);
}

static void answer(int fd, char a)
{
	CHECK(write(fd, &a, 1) == 1);
}

/* ---- H: the host ---- */

static struct doca_mmap *host_export(struct doca_dev *dev, uint8_t *mem, uint32_t pci, int out)
{
	struct doca_mmap *m;
	const void *desc;
	size_t len;

	OK(doca_mmap_create(&m));
	OK(doca_mmap_add_dev(m, dev));
	OK(doca_mmap_set_memrange(m, mem, HALF));
	OK(doca_mmap_set_permissions(m, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | pci));
	OK(doca_mmap_start(m));
	OK(doca_mmap_export_pci(m, dev, &desc, &len));
	CHECK(oob_put(out, desc, len));
	return m;
}

/* Commands: 'c' (are [off, +len) the pattern of seed?), 's' (stop the read-write mmap: revoke), 'q'. */
static int host(int in, int out, int to_dpu)
{
	uint8_t *mem = malloc(HOST_MEM); /* ordinary memory: the DPU reaches it by cross-memory attach */
	struct doca_dev *dev = ferry_test_open_dev("b1:00.0", NULL);
	struct doca_mmap *rw, *ro;
	struct cmd c;

	CHECK(mem != NULL && dev != NULL);
	pattern_fill(mem, HOST_MEM, HOST_SEED);
	rw = host_export(dev, mem, DOCA_ACCESS_FLAG_PCI_READ_WRITE, to_dpu);
	ro = host_export(dev, mem + HALF, DOCA_ACCESS_FLAG_PCI_READ_ONLY, to_dpu);
	while (get_cmd(in, &c) && c.op != 'q') {
		if (c.op == 'c') {
			answer(out, pattern_check(mem + c.off, c.len, c.seed) ? '1' : '0');
		} else if (c.op == 's') {
			OK(doca_mmap_stop(rw));
			answer(out, 's');
		}
	}
	OK(doca_mmap_destroy(rw));
	OK(doca_mmap_stop(ro));
	OK(doca_mmap_destroy(ro));
	free(mem);
	return 0;
}

/* ---- D: the DPU ---- */

/* Import one of H's exports with the DPU device and hand its RDMA export to R. */
static struct doca_mmap *dpu_reexport(struct doca_dev *dpu, int from_host, int to_req)
{
	static uint8_t desc[4096];
	struct doca_mmap *imp;
	const void *rdesc;
	size_t len = 0, rlen;

	CHECK(oob_get(from_host, desc, sizeof(desc), &len));
	OK(doca_mmap_create_from_export(NULL, desc, len, dpu, &imp));
	/* The re-export needs the link's network path: refused where it may not be offered. */
	setenv("FERRY_LINK_NET", "never", 1);
	CHECK(doca_mmap_export_rdma(imp, dpu, &rdesc, &rlen) == DOCA_ERROR_NOT_SUPPORTED);
	unsetenv("FERRY_LINK_NET");
	OK(doca_mmap_export_rdma(imp, dpu, &rdesc, &rlen));
	CHECK(oob_put(to_req, rdesc, rlen));
	return imp;
}

/* D runs each command from its main thread, outside any progress call; 'd' destroys the read-only import. */
static void dpu_obey(int in, int out, struct doca_mmap **ro)
{
	struct cmd c;

	/* Blocked: the requester's reads and writes are served by the link's network server thread. */
	while (get_cmd(in, &c) && c.op != 'q') {
		if (c.op == 'd') {
			OK(doca_mmap_destroy(*ro));
			*ro = NULL;
			answer(out, 'd');
		}
	}
}

/* Commands: 'b' (stop progressing and block in read()), then 'd', 'q'. */
static int dpu(int in, int out, int from_host, int req_in, int req_out)
{
	struct doca_dev *pci_dev = ferry_test_open_dev("03:00.0", NULL);
	struct doca_mmap *rw, *ro;
	struct side s;
	struct cmd c;

	CHECK(pci_dev != NULL);
	OK(side_init(&s, RW, RW));
	CHECK(oob_connect(&s, req_out, req_in) != NULL);
	rw = dpu_reexport(pci_dev, from_host, req_out);
	ro = dpu_reexport(pci_dev, from_host, req_out);
	/* Progress until told to block: the connection's handshake needs it. */
	for (;;) {
		struct pollfd p = {.fd = in, .events = POLLIN};

		(void)doca_pe_progress(s.pe);
		if (poll(&p, 1, 1) == 1)
			break;
	}
	CHECK(get_cmd(in, &c) && c.op == 'b');
	answer(out, 'b');
	dpu_obey(in, out, &ro);
	OK(doca_mmap_destroy(rw));
	if (ro != NULL)
		OK(doca_mmap_destroy(ro));
	return 0;
}

static bool exited_zero(pid_t pid)
{
	int st = 0;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* ---- R: the requester ---- */

struct req {
	struct side s;
	struct doca_rdma_connection *conn;
	struct doca_mmap *rw, *ro;  /* imports of D's RDMA exports */
	uint8_t *rw_base, *ro_base; /* H's addresses */
	int host_out, host_in, dpu_out, dpu_in;
	pid_t dpu_pid;
};

static struct doca_mmap *req_import(struct req *r, const uint8_t *desc, size_t len, uint8_t **base)
{
	struct doca_mmap *m = NULL;
	void *addr = NULL;
	size_t mlen = 0;

	OK(doca_mmap_create_from_export(NULL, desc, len, r->s.dev, &m));
	OK(doca_mmap_get_memrange(m, &addr, &mlen));
	CHECK(mlen == HALF);
	*base = addr;
	return m;
}

/* Run one task to its end; its status. */
static doca_error_t run(struct req *r, struct doca_task *t)
{
	unsigned int done = r->s.ok + r->s.failed;
	doca_error_t err = doca_task_submit(t);

	if (err != DOCA_SUCCESS)
		return err;
	for (uint64_t end = side_now_ms() + WAIT_MS; r->s.ok + r->s.failed == done;) {
		CHECK(side_now_ms() < end);
		(void)doca_pe_progress(r->s.pe);
	}
	return doca_task_get_status(t);
}

/* Read [off, +len) of @p remote (H's address @p base) into R's memory at @p local_off. */
static doca_error_t rdma_read(struct req *r, struct doca_mmap *remote, uint8_t *base, size_t off, size_t len,
			      size_t local_off)
{
	struct doca_buf *src = side_remote_buf(&r->s, remote, base + off, len, len);
	struct doca_buf *dst = side_buf(&r->s, local_off, len, 0);
	struct doca_rdma_task_read *t;
	doca_error_t err;

	CHECK(src != NULL && dst != NULL);
	OK(doca_rdma_task_read_allocate_init(r->s.rdma, r->conn, src, dst, (union doca_data){0}, &t));
	err = run(r, doca_rdma_task_read_as_task(t));
	if (err == DOCA_SUCCESS) {
		size_t got = 0;

		OK(doca_buf_get_data_len(dst, &got));
		CHECK(got == len); /* the destination's data grew by what was read */
	}
	doca_task_free(doca_rdma_task_read_as_task(t));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	return err;
}

/* Write R's memory at @p local_off, filled with @p seed, to [off, +len) of @p remote. */
static doca_error_t rdma_write(struct req *r, struct doca_mmap *remote, uint8_t *base, size_t off, size_t len,
			       size_t local_off, uint32_t seed)
{
	struct doca_buf *src = side_buf(&r->s, local_off, len, len);
	struct doca_buf *dst = side_remote_buf(&r->s, remote, base + off, len, 0);
	struct doca_rdma_task_write *t;
	doca_error_t err;

	CHECK(src != NULL && dst != NULL);
	pattern_fill(r->s.mem + local_off, len, seed);
	OK(doca_rdma_task_write_allocate_init(r->s.rdma, r->conn, src, dst, (union doca_data){0}, &t));
	err = run(r, doca_rdma_task_write_as_task(t));
	doca_task_free(doca_rdma_task_write_as_task(t));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	return err;
}

static bool host_holds(struct req *r, size_t off, size_t len, uint32_t seed)
{
	return ask(r->host_out, r->host_in, 'c', (uint32_t)off, (uint32_t)len, seed) == '1';
}

/*
 * CRC-32 (IEEE), as the descriptors carry it: to forge a claim whose checksum
 * is right. The codec's own (ferry_desc_crc32) is internal, and this test
 * links only the public libraries, as a DOCA program does.
 */
static uint32_t crc32_ieee(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

/* Damaged, cut and forged copies of a re-export's RDMA descriptor: each refused, nothing imported. */
static void req_bad_descriptors(struct req *r, const uint8_t *desc, size_t len)
{
	uint8_t forged[4096];
	struct doca_mmap *m = NULL;

	CHECK(len <= sizeof(forged) && desc[6] == 1); /* kind 1: a re-export */
	CHECK(doca_mmap_create_from_export(NULL, desc, len - 1, r->s.dev, &m) == DOCA_ERROR_INVALID_VALUE);
	memcpy(forged, desc, len);
	forged[len - 5] ^= 0x20; /* inside the link descriptor it carries */
	CHECK(doca_mmap_create_from_export(NULL, forged, len, r->s.dev, &m) == DOCA_ERROR_INVALID_VALUE);
	/* A longer range than the re-export's, checksum made right: its server's answer wins. */
	memcpy(forged, desc, len);
	forged[24 + 2] ^= 0x01; /* length field, +128 KiB */
	memset(forged + 12, 0, 4);
	uint32_t crc = crc32_ieee(forged, len);
	for (int i = 0; i < 4; i++)
		forged[12 + i] = (uint8_t)(crc >> (8 * i));
	CHECK(doca_mmap_create_from_export(NULL, forged, len, r->s.dev, &m) == DOCA_ERROR_NOT_PERMITTED);
	CHECK(m == NULL);
}

/* What R can do while D is blocked. */
static void req_data(struct req *r)
{
	/* Reads: H's pattern lands in R's buffer (a multi-chunk one too). */
	memset(r->s.mem, 0, HOST_MEM);
	OK(rdma_read(r, r->rw, r->rw_base, 4096, 300000, 0));
	for (size_t i = 0; i < 300000; i++)
		CHECK(r->s.mem[i] == pattern_byte(HOST_SEED, 4096 + i));
	OK(rdma_read(r, r->ro, r->ro_base, 0, 8192, 0));
	for (size_t i = 0; i < 8192; i++)
		CHECK(r->s.mem[i] == pattern_byte(HOST_SEED, HALF + i));
	/* Writes land in H's memory; to the read-only range, DOCA's permission code, and nothing lands. */
	OK(rdma_write(r, r->rw, r->rw_base, 65536, 270000, 0, 22));
	CHECK(host_holds(r, 65536, 270000, 22));
	CHECK(rdma_write(r, r->ro, r->ro_base, 0, 4096, 0, 33) == DOCA_ERROR_NOT_PERMITTED);
	CHECK(!host_holds(r, HALF, 4096, 33));
	/* Read back what was written, through the re-export. */
	memset(r->s.mem, 0, 270000);
	OK(rdma_read(r, r->rw, r->rw_base, 65536, 270000, 0));
	CHECK(pattern_check(r->s.mem, 270000, 22));
}

/*
 * D's server stopped (SIGSTOP) for a second, a child wakes it: a read of the
 * re-export is handed over at once and R's thread goes on progressing (the
 * copy waits on the context's link thread, not in doca_task_submit); a message
 * behind it on the connection waits for it; once D runs again both complete,
 * the read first, and the bytes are H's.
 */
static void req_server_stopped(struct req *r)
{
	struct doca_buf *src = side_remote_buf(&r->s, r->rw, r->rw_base + 8192, 8192, 8192);
	struct doca_buf *dst = side_buf(&r->s, 0, 8192, 0), *msg = side_buf(&r->s, 65536, 64, 64);
	struct doca_rdma_task_read *rt;
	struct doca_rdma_task_send *st;
	unsigned int done = r->s.ok + r->s.failed, failed = r->s.failed, polls = 0;
	uint64_t t0, submit_ms;
	pid_t waker;

	CHECK(src != NULL && dst != NULL && msg != NULL);
	memset(r->s.mem, 0, 8192);
	OK(doca_rdma_task_read_allocate_init(r->s.rdma, r->conn, src, dst, (union doca_data){0}, &rt));
	OK(doca_rdma_task_send_allocate_init(r->s.rdma, r->conn, msg, (union doca_data){0}, &st));
	CHECK(kill(r->dpu_pid, SIGSTOP) == 0);
	{
		/* Stopped for sure before the read goes (D is this process's child): else D may serve it first. */
		int wst = 0;

		CHECK(waitpid(r->dpu_pid, &wst, WUNTRACED) == r->dpu_pid && WIFSTOPPED(wst));
	}
	waker = fork();
	CHECK(waker >= 0);
	if (waker == 0) {
		usleep(1000 * 1000);
		_exit(kill(r->dpu_pid, SIGCONT) == 0 ? 0 : 1);
	}
	t0 = side_now_ms();
	OK(doca_task_submit(doca_rdma_task_read_as_task(rt)));
	OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	submit_ms = side_now_ms() - t0;
	/* While D is stopped: R's progress returns, nothing completes. */
	while (side_now_ms() - t0 < 300) {
		(void)doca_pe_progress(r->s.pe);
		polls++;
	}
	fprintf(stderr, "server stopped: two submits took %llu ms; %u progress calls in 300 ms, %u tasks done\n",
		(unsigned long long)submit_ms, polls, r->s.ok + r->s.failed - done);
	CHECK(submit_ms < 200);
	CHECK(polls > 100);
	CHECK(r->s.ok + r->s.failed == done);
	for (uint64_t end = side_now_ms() + WAIT_MS; r->s.ok + r->s.failed < done + 2;) {
		CHECK(side_now_ms() < end);
		(void)doca_pe_progress(r->s.pe);
	}
	fprintf(stderr, "after the server woke: the read ended %s, the message %s\n",
		doca_error_get_name(doca_task_get_status(doca_rdma_task_read_as_task(rt))),
		doca_error_get_name(doca_task_get_status(doca_rdma_task_send_as_task(st))));
	CHECK(r->s.failed == failed);
	CHECK(r->s.last_task == doca_rdma_task_send_as_task(st)); /* the message after the read */
	for (size_t i = 0; i < 8192; i++)
		CHECK(r->s.mem[i] == pattern_byte(HOST_SEED, 8192 + i));
	CHECK(exited_zero(waker));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	doca_buf_dec_refcount(msg, NULL);
}

/* Refused at submit: a buf outside the range, an atomic on a re-export. */
static void req_refusals(struct req *r)
{
	struct doca_rdma_task_atomic_fetch_add *at;
	struct doca_buf *dst = side_remote_buf(&r->s, r->rw, r->rw_base, 8, 8);
	struct doca_buf *res = side_buf(&r->s, 0, 8, 0);
	struct doca_buf *outside = NULL;

	CHECK(dst != NULL && res != NULL);
	CHECK(doca_buf_inventory_buf_get_by_addr(r->s.inv, r->rw, r->rw_base + HALF - 8, 16, &outside) != DOCA_SUCCESS);
	CHECK(outside == NULL);
	OK(doca_rdma_task_atomic_fetch_add_allocate_init(r->s.rdma, r->conn, dst, res, 1, (union doca_data){0}, &at));
	CHECK(doca_task_submit(doca_rdma_task_atomic_fetch_add_as_task(at)) == DOCA_ERROR_NOT_SUPPORTED);
	doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(at));
	doca_buf_dec_refcount(dst, NULL);
	doca_buf_dec_refcount(res, NULL);
}

/*
 * After a withdrawal (H's or D's): the next task fails (the DPU's server
 * answers that the bytes are gone), and from then on the map is unusable:
 * a buf cannot even be taken from it. Neither hangs.
 */
static void req_withdrawn(struct req *r, struct doca_mmap *m, uint8_t *base)
{
	struct doca_buf *late = NULL;
	doca_error_t first = rdma_read(r, m, base, 0, 4096, 0);

	fprintf(stderr, "after the withdrawal: the read ended %s\n", doca_error_get_name(first));
	CHECK(first == DOCA_ERROR_NOT_CONNECTED);
	CHECK(doca_buf_inventory_buf_get_by_addr(r->s.inv, m, base, 4096, &late) == DOCA_ERROR_BAD_STATE);
}

static int requester(struct req *r, int from_dpu)
{
	static uint8_t rw_desc[4096], ro_desc[4096];
	size_t rw_len = 0, ro_len = 0;

	OK(side_init(&r->s, RW, RW));
	r->conn = oob_connect(&r->s, r->dpu_out, from_dpu);
	CHECK(r->conn != NULL);
	CHECK(oob_get(from_dpu, rw_desc, sizeof(rw_desc), &rw_len));
	CHECK(oob_get(from_dpu, ro_desc, sizeof(ro_desc), &ro_len));
	req_bad_descriptors(r, rw_desc, rw_len);
	r->rw = req_import(r, rw_desc, rw_len, &r->rw_base);
	r->ro = req_import(r, ro_desc, ro_len, &r->ro_base);
	/* One read while D still progresses (the connection comes up), then D blocks. */
	OK(rdma_read(r, r->rw, r->rw_base, 0, 64, 0));
	CHECK(ask(r->dpu_out, r->dpu_in, 'b', 0, 0, 0) == 'b');
	req_data(r);
	req_server_stopped(r);
	req_refusals(r);
	/* H revokes its read-write export; D destroys its import of the read-only one. */
	CHECK(ask(r->host_out, r->host_in, 's', 0, 0, 0) == 's');
	req_withdrawn(r, r->rw, r->rw_base);
	CHECK(ask(r->dpu_out, r->dpu_in, 'd', 0, 0, 0) == 'd');
	req_withdrawn(r, r->ro, r->ro_base);
	OK(doca_mmap_destroy(r->rw));
	OK(doca_mmap_destroy(r->ro));
	return 0;
}

/* ---- the three processes ---- */

static pid_t spawn(int (*body)(void *), void *arg)
{
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (pid == 0) {
		alarm(WATCHDOG_S); /* a peer that died must not leave this one waiting */
		_exit(body(arg));
	}
	return pid;
}

/*
 * Pipes: R->H and H->R (commands, answers), R->D (the RDMA out-of-band channel, then commands), D->R
 * (answers), H->D (PCI descriptors), D->R (the RDMA out-of-band channel: connection and memory descriptors).
 */
static int fds[6][2];

static int host_body(void *arg)
{
	(void)arg;
	return host(fds[0][0], fds[1][1], fds[4][1]);
}

static int dpu_body(void *arg)
{
	(void)arg;
	return dpu(fds[2][0], fds[3][1], fds[4][0], fds[2][0], fds[5][1]);
}

int main(void)
{
	struct req r;
	pid_t h, d;

	signal(SIGPIPE, SIG_IGN);
	alarm(WATCHDOG_S);
	for (int i = 0; i < 6; i++)
		CHECK(pipe(fds[i]) == 0);
	h = spawn(host_body, NULL);
	d = spawn(dpu_body, NULL);
	memset(&r, 0, sizeof(r));
	r.host_out = fds[0][1];
	r.host_in = fds[1][0];
	r.dpu_out = fds[2][1];
	r.dpu_in = fds[3][0];
	r.dpu_pid = d;
	requester(&r, fds[5][0]);
	send_cmd(r.dpu_out, 'q', 0, 0, 0);
	send_cmd(r.host_out, 'q', 0, 0, 0);
	CHECK(exited_zero(d));
	CHECK(exited_zero(h));
	CHECK(side_stop(&r.s, NULL));
	side_fini(&r.s);
	printf("re-export: host memory read and written through the DPU's import while it was blocked\n");
	return 0;
}
