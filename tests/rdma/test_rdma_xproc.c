/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_xproc - DOCA RDMA between two processes (fork), as two DOCA
 * programs would use it: connection and memory descriptors go over a pipe
 * (the out-of-band channel), then the requester (parent) sends messages of
 * 1 B to 1 MiB that the responder (child) echoes back, writes into and reads
 * from the child's exported memory, and sends a write with immediate the child
 * checks. Then the child blocks in read(), progressing nothing, while the
 * parent writes into and reads from its memory. Last, the child is killed: every task the parent then submits ends
 * with DOCA_ERROR_CONNECTION_RESET within seconds, a posted receive is flushed
 * by the stop, and nothing hangs.
 *
 * Public API only. Exit 0 on success, 1 with a line on failure.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "rdma_fixture.h"
#include "xproc_check.h"

#define WAIT_MS    10000u
#define REMOTE_OFF (SIDE_MEM / 2) /* the child exports [REMOTE_OFF, SIDE_MEM) */
#define WIMM_FLAG  0x80000000u
#define BLOCK_IMM  0x0b10c4u /* after echoing it, the child blocks in read() until the parent writes a byte */

static const uint32_t RW = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE;

/* ---- the out-of-band channel: length-prefixed blobs over a pipe ---- */

static void put_blob(int fd, const void *p, size_t len)
{
	CHECK(oob_put(fd, p, len));
}

static size_t get_blob(int fd, void *p, size_t room)
{
	size_t len = 0;

	CHECK(oob_get(fd, p, room, &len));
	return len;
}

static struct doca_rdma_connection *connect_side(struct side *s, int out, int in)
{
	struct doca_rdma_connection *conn = oob_connect(s, out, in);

	CHECK(conn != NULL);
	return conn;
}

/* ---- child: the responder ---- */

static void post_receive(struct side *s, struct doca_buf **dst, struct doca_rdma_task_receive **rt)
{
	*dst = side_buf(s, 0, REMOTE_OFF, 0);
	CHECK(*dst != NULL);
	OK(doca_rdma_task_receive_allocate_init(s->rdma, *dst, (union doca_data){0}, rt));
	OK(doca_task_submit(doca_rdma_task_receive_as_task(*rt)));
}

static int child(int in, int out)
{
	struct side s;
	struct doca_rdma_connection *conn;
	struct doca_mmap *exp;
	const void *desc;
	size_t len;

	OK(side_init(&s, RW, RW));
	conn = connect_side(&s, out, in);
	OK(doca_mmap_create(&exp));
	OK(doca_mmap_set_memrange(exp, s.mem + REMOTE_OFF, SIDE_MEM - REMOTE_OFF));
	OK(doca_mmap_set_permissions(exp, RW));
	OK(doca_mmap_add_dev(exp, s.dev));
	OK(doca_mmap_start(exp));
	OK(doca_mmap_export_rdma(exp, s.dev, &desc, &len));
	put_blob(out, desc, len);
	for (;;) {
		struct doca_rdma_task_receive *rt;
		struct doca_rdma_task_send_imm *st;
		struct doca_buf *dst;
		unsigned int ok = s.ok;
		uint32_t imm;

		post_receive(&s, &dst, &rt);
		/* Keep progressing: over TCP the parent's reads and writes need this side's worker. */
		CHECK(side_wait(&s, NULL, &s.ok, ok + 1, 600000));
		CHECK(s.failed == 0);
		imm = doca_rdma_task_receive_get_result_immediate_data(rt);
		if (doca_rdma_task_receive_get_result_opcode(rt) == DOCA_RDMA_OPCODE_RECV_WRITE_WITH_IMM) {
			/* The written bytes are in place when the immediate arrives: say whether they are right. */
			if (pattern_check(s.mem + REMOTE_OFF, 4096, imm))
				imm |= WIMM_FLAG;
			doca_buf_dec_refcount(dst, NULL);
			dst = side_buf(&s, 0, 1, 0);
		}
		doca_task_free(doca_rdma_task_receive_as_task(rt));
		/* Echo: the received bytes, from the very buffer they landed in. */
		OK(doca_rdma_task_send_imm_allocate_init(s.rdma, conn, dst, imm, (union doca_data){0}, &st));
		ok = s.ok;
		OK(doca_task_submit(doca_rdma_task_send_imm_as_task(st)));
		CHECK(side_wait(&s, NULL, &s.ok, ok + 1, WAIT_MS));
		doca_task_free(doca_rdma_task_send_imm_as_task(st));
		doca_buf_dec_refcount(dst, NULL);
		if (imm == BLOCK_IMM) {
			/* As NVIDIA's responders sit in getchar(): no progress at all from this thread. */
			char c;

			CHECK(read(in, &c, 1) == 1);
		}
	}
	return 0;
}

/* ---- parent: the requester ---- */

struct parent {
	struct side s;
	struct doca_rdma_connection *conn;
	struct doca_mmap *remote;
	uint8_t *remote_base; /* the child's address of its export */
};

/* Send @p len bytes with @p imm and wait for the echo; the echo's immediate is returned. */
static uint32_t round_trip(struct parent *p, size_t len, uint32_t imm)
{
	struct doca_buf *src = side_buf(&p->s, 0, len > 0 ? len : 1, len);
	struct doca_buf *dst = side_buf(&p->s, REMOTE_OFF, REMOTE_OFF, 0);
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send_imm *st;
	unsigned int ok = p->s.ok;
	size_t got = 0;
	uint32_t echo;

	CHECK(src != NULL && dst != NULL);
	OK(doca_rdma_task_receive_allocate_init(p->s.rdma, dst, (union doca_data){0}, &rt));
	OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
	OK(doca_rdma_task_send_imm_allocate_init(p->s.rdma, p->conn, src, imm, (union doca_data){0}, &st));
	OK(doca_task_submit(doca_rdma_task_send_imm_as_task(st)));
	CHECK(side_wait(&p->s, NULL, &p->s.ok, ok + 2, WAIT_MS));
	CHECK(p->s.failed == 0);
	OK(doca_buf_get_data_len(dst, &got));
	CHECK(got == len);
	CHECK(doca_rdma_task_receive_get_result_len(rt) == len);
	echo = doca_rdma_task_receive_get_result_immediate_data(rt);
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_send_imm_as_task(st));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	return echo;
}

static void messages(struct parent *p)
{
	static const size_t sizes[] = {1, 2, 63, 1024, 4096, 65535, 262144, 1u << 20};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		pattern_fill(p->s.mem, sizes[i], (uint32_t)i + 1);
		memset(p->s.mem + REMOTE_OFF, 0, sizes[i]);
		CHECK(round_trip(p, sizes[i], (uint32_t)i + 1) == (uint32_t)i + 1);
		CHECK(pattern_check(p->s.mem + REMOTE_OFF, sizes[i], (uint32_t)i + 1));
	}
	printf("xproc: messages of 1 B to 1 MiB echoed and checked\n");
}

static void remote_memory(struct parent *p)
{
	const size_t len = 256 * 1024;
	struct doca_buf *src = side_buf(&p->s, 0, len, len);
	struct doca_buf *back = side_buf(&p->s, REMOTE_OFF, len, 0);
	struct doca_buf *rdst = NULL, *rsrc = NULL;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rt;
	struct doca_rdma_task_write_imm *wit;
	unsigned int ok = p->s.ok;

	OK(doca_buf_inventory_buf_get_by_args(p->s.inv, p->remote, p->remote_base + 8192, len, p->remote_base + 8192, 0,
					      &rdst));
	OK(doca_buf_inventory_buf_get_by_args(p->s.inv, p->remote, p->remote_base + 8192, len, p->remote_base + 8192,
					      len, &rsrc));
	pattern_fill(p->s.mem, len, 77);
	memset(p->s.mem + REMOTE_OFF, 0, len);
	OK(doca_rdma_task_write_allocate_init(p->s.rdma, p->conn, src, rdst, (union doca_data){0}, &wt));
	OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
	CHECK(side_wait(&p->s, NULL, &p->s.ok, ok + 1, WAIT_MS));
	OK(doca_rdma_task_read_allocate_init(p->s.rdma, p->conn, rsrc, back, (union doca_data){0}, &rt));
	OK(doca_task_submit(doca_rdma_task_read_as_task(rt)));
	CHECK(side_wait(&p->s, NULL, &p->s.ok, ok + 2, WAIT_MS));
	CHECK(p->s.failed == 0);
	CHECK(doca_rdma_task_read_get_result_len(rt) == len);
	CHECK(pattern_check(p->s.mem + REMOTE_OFF, len, 77));
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_buf_dec_refcount(rdst, NULL);
	doca_buf_dec_refcount(rsrc, NULL);
	printf("xproc: 256 KiB written into the child's export and read back\n");

	/* Write with immediate: the child checks the bytes when its receive completes. */
	{
		struct doca_buf *small = side_buf(&p->s, 0, 4096, 4096);
		struct doca_buf *echo = side_buf(&p->s, REMOTE_OFF, 4096, 0);
		struct doca_rdma_task_receive *er;

		OK(doca_buf_inventory_buf_get_by_args(p->s.inv, p->remote, p->remote_base, 4096, p->remote_base, 0,
						      &rdst));
		pattern_fill(p->s.mem, 4096, 1234);
		OK(doca_rdma_task_receive_allocate_init(p->s.rdma, echo, (union doca_data){0}, &er));
		OK(doca_task_submit(doca_rdma_task_receive_as_task(er)));
		ok = p->s.ok;
		OK(doca_rdma_task_write_imm_allocate_init(p->s.rdma, p->conn, small, rdst, 1234, (union doca_data){0},
							  &wit));
		OK(doca_task_submit(doca_rdma_task_write_imm_as_task(wit)));
		CHECK(side_wait(&p->s, NULL, &p->s.ok, ok + 2, WAIT_MS));
		CHECK(p->s.failed == 0);
		CHECK(doca_rdma_task_receive_get_result_immediate_data(er) == (1234u | WIMM_FLAG));
		doca_task_free(doca_rdma_task_receive_as_task(er));
		doca_task_free(doca_rdma_task_write_imm_as_task(wit));
		doca_buf_dec_refcount(rdst, NULL);
		doca_buf_dec_refcount(small, NULL);
		doca_buf_dec_refcount(echo, NULL);
	}
	printf("xproc: write with immediate seen by the child with its bytes in place\n");
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(back, NULL);
}

/*
 * The child's thread is blocked in read() and progresses nothing: a write and
 * a read of its memory still complete (its context's service thread serves them).
 */
static void passive_target(struct parent *p, int gate)
{
	const size_t len = 128 * 1024;
	struct doca_buf *src = side_buf(&p->s, 0, len, len);
	struct doca_buf *back = side_buf(&p->s, REMOTE_OFF, len, 0);
	struct doca_buf *rdst = NULL, *rsrc = NULL;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_read *rt;
	unsigned int ok;
	uint64_t t0;

	CHECK(round_trip(p, 0, BLOCK_IMM) == BLOCK_IMM);
	usleep(20000); /* the child is in read() by now */
	OK(doca_buf_inventory_buf_get_by_args(p->s.inv, p->remote, p->remote_base, len, p->remote_base, 0, &rdst));
	OK(doca_buf_inventory_buf_get_by_args(p->s.inv, p->remote, p->remote_base, len, p->remote_base, len, &rsrc));
	pattern_fill(p->s.mem, len, 4321);
	memset(p->s.mem + REMOTE_OFF, 0, len);
	t0 = side_now_ms();
	ok = p->s.ok;
	OK(doca_rdma_task_write_allocate_init(p->s.rdma, p->conn, src, rdst, (union doca_data){0}, &wt));
	OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
	CHECK(side_wait(&p->s, NULL, &p->s.ok, ok + 1, WAIT_MS));
	OK(doca_rdma_task_read_allocate_init(p->s.rdma, p->conn, rsrc, back, (union doca_data){0}, &rt));
	OK(doca_task_submit(doca_rdma_task_read_as_task(rt)));
	CHECK(side_wait(&p->s, NULL, &p->s.ok, ok + 2, WAIT_MS));
	CHECK(p->s.failed == 0);
	CHECK(pattern_check(p->s.mem + REMOTE_OFF, len, 4321));
	printf("xproc: child blocked in read(): 128 KiB written and read back in %llu ms\n",
	       (unsigned long long)(side_now_ms() - t0));
	CHECK(write(gate, "x", 1) == 1);
	doca_task_free(doca_rdma_task_write_as_task(wt));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(back, NULL);
	doca_buf_dec_refcount(rdst, NULL);
	doca_buf_dec_refcount(rsrc, NULL);
}

static uint64_t process_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * A program that does not progress while its peer dies (it waits on stdin,
 * say): the context's service thread sees the exit once and sleeps again. It
 * used to spin on the dead peer's pidfd, readable for ever, until the PE
 * progressed: a core gone for as long as the program waited.
 */
static void idle_after_peer_death(void)
{
	uint64_t cpu0 = process_cpu_ms();

	usleep(500 * 1000);
	printf("xproc: 500 ms without progress after the child died: %llu ms of CPU\n",
	       (unsigned long long)(process_cpu_ms() - cpu0));
	CHECK(process_cpu_ms() - cpu0 < 100);
}

/* The child dies: what the parent submits next fails with CONNECTION_RESET; a posted receive waits for the stop. */
static void peer_killed(struct parent *p, pid_t pid)
{
	struct doca_buf *src = side_buf(&p->s, 0, 1u << 20, 1u << 20);
	struct doca_buf *rdst = NULL, *rsrc = NULL, *back = side_buf(&p->s, REMOTE_OFF, 65536, 0);
	struct doca_buf *rbuf = side_buf(&p->s, REMOTE_OFF + 65536, 4096, 0);
	struct doca_buf *small = side_buf(&p->s, 0, 65536, 65536);
	struct doca_rdma_task_send *st;
	struct doca_rdma_task_read *rt;
	struct doca_rdma_task_write *wt;
	struct doca_rdma_task_receive *recv;
	unsigned int failed = p->s.failed;
	uint64_t t0;

	OK(doca_buf_inventory_buf_get_by_args(p->s.inv, p->remote, p->remote_base, 65536, p->remote_base, 65536,
					      &rsrc));
	OK(doca_buf_inventory_buf_get_by_args(p->s.inv, p->remote, p->remote_base, 65536, p->remote_base, 0, &rdst));
	OK(doca_rdma_task_receive_allocate_init(p->s.rdma, rbuf, (union doca_data){0}, &recv));
	OK(doca_task_submit(doca_rdma_task_receive_as_task(recv)));
	CHECK(kill(pid, SIGKILL) == 0);
	CHECK(waitpid(pid, NULL, 0) == pid);
	idle_after_peer_death();
	t0 = side_now_ms();
	OK(doca_rdma_task_send_allocate_init(p->s.rdma, p->conn, src, (union doca_data){0}, &st));
	OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	OK(doca_rdma_task_read_allocate_init(p->s.rdma, p->conn, rsrc, back, (union doca_data){0}, &rt));
	OK(doca_task_submit(doca_rdma_task_read_as_task(rt)));
	OK(doca_rdma_task_write_allocate_init(p->s.rdma, p->conn, small, rdst, (union doca_data){0}, &wt));
	OK(doca_task_submit(doca_rdma_task_write_as_task(wt)));
	if (!side_wait(&p->s, NULL, &p->s.failed, failed + 3, WAIT_MS))
		fprintf(stderr, "failed %u ok %u: send %s read %s write %s\n", p->s.failed - failed, p->s.ok,
			doca_error_get_name(doca_task_get_status(doca_rdma_task_send_as_task(st))),
			doca_error_get_name(doca_task_get_status(doca_rdma_task_read_as_task(rt))),
			doca_error_get_name(doca_task_get_status(doca_rdma_task_write_as_task(wt))));
	CHECK(p->s.failed == failed + 3);
	CHECK(doca_task_get_status(doca_rdma_task_send_as_task(st)) == DOCA_ERROR_CONNECTION_RESET);
	CHECK(doca_task_get_status(doca_rdma_task_read_as_task(rt)) == DOCA_ERROR_CONNECTION_RESET);
	CHECK(doca_task_get_status(doca_rdma_task_write_as_task(wt)) == DOCA_ERROR_CONNECTION_RESET);
	printf("xproc: child killed: send, read and write failed with CONNECTION_RESET after %llu ms\n",
	       (unsigned long long)(side_now_ms() - t0));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_task_free(doca_rdma_task_read_as_task(rt));
	doca_task_free(doca_rdma_task_write_as_task(wt));
	/* The receive is not tied to the dead connection: the stop flushes it. */
	failed = p->s.failed;
	(void)doca_ctx_stop(p->s.ctx);
	CHECK(side_wait(&p->s, NULL, &p->s.failed, failed + 1, WAIT_MS));
	CHECK(p->s.last_status == DOCA_ERROR_IO_FAILED);
	doca_task_free(doca_rdma_task_receive_as_task(recv));
	CHECK(side_stop(&p->s, NULL));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(rdst, NULL);
	doca_buf_dec_refcount(rsrc, NULL);
	doca_buf_dec_refcount(back, NULL);
	doca_buf_dec_refcount(rbuf, NULL);
	doca_buf_dec_refcount(small, NULL);
}

int main(void)
{
	int to_child[2], to_parent[2];
	static uint8_t desc[16384];
	struct parent p;
	size_t len;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		/* Never outlive the test. */
		alarm(120);
		return child(to_child[0], to_parent[1]);
	}
	close(to_child[0]);
	close(to_parent[1]);
	memset(&p, 0, sizeof(p));
	OK(side_init(&p.s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, RW));
	p.conn = connect_side(&p.s, to_child[1], to_parent[0]);
	len = get_blob(to_parent[0], desc, sizeof(desc));
	OK(doca_mmap_create_from_export(NULL, desc, len, p.s.dev, &p.remote));
	{
		void *base;
		size_t rlen;

		OK(doca_mmap_get_memrange(p.remote, &base, &rlen));
		p.remote_base = base;
		CHECK(rlen == SIDE_MEM - REMOTE_OFF);
	}
	messages(&p);
	remote_memory(&p);
	passive_target(&p, to_child[1]);
	messages(&p); /* the child is back */
	peer_killed(&p, pid);
	OK(doca_mmap_destroy(p.remote));
	side_fini(&p.s);
	printf("xproc: ok\n");
	return 0;
}
