/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_timeout - FERRY_RDMA_TIMEOUT_MS (meson sets 400 ms) between two
 * processes (fork), descriptors over a pipe:
 *   1. a 1 MiB send waits three timeouts for the peer's receive, the peer
 *      progressing: the peer answers the liveness pings, so nothing fails, and
 *      the send completes once the receive is posted;
 *   2. the peer is stopped (SIGSTOP: it neither answers nor serves): writes
 *      and a send in flight end, within the timeout and a margin, with
 *      DOCA_ERROR_CONNECTION_RESET where the transport needs the peer (TCP),
 *      or complete (shared memory writes need no peer); nothing hangs.
 * Public API only. Exit 0 on success, 1 with a line on failure.
 */
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "rdma_fixture.h"

#define WAIT_MS    10000u
#define REMOTE_OFF (SIDE_MEM / 2)
#define BIG        (1u << 20)

static const uint32_t RW = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE;

/* The child, once forked: a failing parent kills it, since a stopped child would hold the test's pipes open. */
static pid_t child_pid;

#define CHECK(cond)                                                                                                 \
	do {                                                                                                        \
		if (!(cond)) {                                                                                      \
			fprintf(stderr, "%s[%d]:%d: check failed: %s\n", __FILE__, (int)getpid(), __LINE__, #cond); \
			if (child_pid > 0)                                                                          \
				(void)kill(child_pid, SIGKILL);                                                     \
			exit(1);                                                                                    \
		}                                                                                                   \
	} while (0)

#define OK(call) CHECK((call) == DOCA_SUCCESS)

/* The out-of-band channel (rdma_fixture.h), failing the run on a broken pipe. */
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

/* The peer: exports its memory, then on a byte from the pipe posts one receive, progressing all along. */
static int child(int in, int out)
{
	struct side s;
	struct doca_mmap *exp;
	struct doca_buf *dst;
	struct doca_rdma_task_receive *rt;
	const void *desc;
	size_t len;
	char c;

	OK(side_init(&s, RW, RW));
	(void)connect_side(&s, out, in);
	OK(doca_mmap_create(&exp));
	OK(doca_mmap_set_memrange(exp, s.mem + REMOTE_OFF, SIDE_MEM - REMOTE_OFF));
	OK(doca_mmap_set_permissions(exp, RW));
	OK(doca_mmap_add_dev(exp, s.dev));
	OK(doca_mmap_start(exp));
	OK(doca_mmap_export_rdma(exp, s.dev, &desc, &len));
	put_blob(out, desc, len);
	/* Progress (answering pings) until told to post the receive. */
	for (;;) {
		struct pollfd p = {.fd = in, .events = POLLIN};

		(void)doca_pe_progress(s.pe);
		if (poll(&p, 1, 0) > 0)
			break;
		usleep(100);
	}
	CHECK(read(in, &c, 1) == 1);
	dst = side_buf(&s, 0, BIG, 0);
	OK(doca_rdma_task_receive_allocate_init(s.rdma, dst, (union doca_data){0}, &rt));
	OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
	CHECK(side_wait(&s, NULL, &s.ok, 1, WAIT_MS));
	/* Keep serving until the parent stops this process. */
	for (;;) {
		(void)doca_pe_progress(s.pe);
		usleep(100);
	}
	return 0;
}

int main(void)
{
	int to_child[2], to_parent[2];
	static uint8_t desc[16384];
	struct side s;
	struct doca_rdma_connection *conn;
	struct doca_mmap *remote;
	const char *tls = getenv("UCX_TLS");
	bool tcp = tls != NULL && strstr(tls, "tcp") != NULL && strstr(tls, "sm") == NULL;
	uint64_t timeout_ms = strtoull(getenv("FERRY_RDMA_TIMEOUT_MS") ? getenv("FERRY_RDMA_TIMEOUT_MS") : "0", NULL,
				       10);
	uint8_t *rbase;
	size_t len;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	CHECK(timeout_ms >= 100 && timeout_ms <= 5000);
	CHECK(pipe(to_child) == 0 && pipe(to_parent) == 0);
	pid = fork();
	if (pid > 0)
		child_pid = pid;
	CHECK(pid >= 0);
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		alarm(60);
		return child(to_child[0], to_parent[1]);
	}
	close(to_child[0]);
	close(to_parent[1]);
	OK(side_init(&s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, RW));
	conn = connect_side(&s, to_child[1], to_parent[0]);
	len = get_blob(to_parent[0], desc, sizeof(desc));
	OK(doca_mmap_create_from_export(NULL, desc, len, s.dev, &remote));
	{
		void *base;
		size_t rlen;

		OK(doca_mmap_get_memrange(remote, &base, &rlen));
		rbase = base;
	}

	/* 1. A large send waits 3 timeouts for the receive: the peer answers pings, so it does not fail. */
	{
		struct doca_buf *src = side_buf(&s, 0, BIG, BIG);
		struct doca_rdma_task_send *st;
		uint64_t t0 = side_now_ms();
		bool waiting;

		pattern_fill(s.mem, BIG, 5);
		OK(doca_rdma_task_send_allocate_init(s.rdma, conn, src, (union doca_data){0}, &st));
		OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
		while (side_now_ms() - t0 < 3 * timeout_ms) {
			(void)doca_pe_progress(s.pe);
			usleep(200);
		}
		CHECK(s.failed == 0);
		waiting = s.ok == 0; /* a rendezvous send waits for the receive; an eager one may be done */
		CHECK(write(to_child[1], "r", 1) == 1);
		CHECK(side_wait(&s, NULL, &s.ok, 1, WAIT_MS));
		CHECK(s.failed == 0);
		printf("timeout: a 1 MiB send %s %llu ms (%llu ms timeout) for the peer's receive, then completed\n",
		       waiting ? "in flight, not failed, waited" : "(done eagerly) waited",
		       (unsigned long long)(side_now_ms() - t0), (unsigned long long)timeout_ms);
		doca_task_free(doca_rdma_task_send_as_task(st));
		doca_buf_dec_refcount(src, NULL);
	}

	/* 2. The peer stops: every task in flight ends within the timeout (and a margin); none hangs. */
	{
		struct doca_rdma_task_write *wt[4];
		struct doca_buf *src[4], *dst[4];
		unsigned int ok0 = s.ok, failed0 = s.failed;
		uint64_t t0;

		CHECK(kill(pid, SIGSTOP) == 0);
		usleep(50000);
		t0 = side_now_ms();
		for (int i = 0; i < 4; i++) {
			src[i] = side_buf(&s, (size_t)i * 65536, 65536, 65536);
			OK(doca_buf_inventory_buf_get_by_args(s.inv, remote, rbase + i * 65536, 65536,
							      rbase + i * 65536, 0, &dst[i]));
			OK(doca_rdma_task_write_allocate_init(s.rdma, conn, src[i], dst[i], (union doca_data){0},
							      &wt[i]));
			OK(doca_task_submit(doca_rdma_task_write_as_task(wt[i])));
		}
		while (s.ok + s.failed < ok0 + failed0 + 4 && side_now_ms() - t0 < timeout_ms + 3000) {
			(void)doca_pe_progress(s.pe);
			usleep(200);
		}
		CHECK(s.ok + s.failed == ok0 + failed0 + 4);
		for (int i = 0; i < 4; i++) {
			doca_error_t st = doca_task_get_status(doca_rdma_task_write_as_task(wt[i]));

			CHECK(st == DOCA_SUCCESS || st == DOCA_ERROR_CONNECTION_RESET);
			if (tcp)
				CHECK(st == DOCA_ERROR_CONNECTION_RESET);
			doca_task_free(doca_rdma_task_write_as_task(wt[i]));
			doca_buf_dec_refcount(src[i], NULL);
			doca_buf_dec_refcount(dst[i], NULL);
		}
		printf("timeout: peer stopped: 4 writes ended (%u ok, %u CONNECTION_RESET) %llu ms after submit\n",
		       s.ok - ok0, s.failed - failed0, (unsigned long long)(side_now_ms() - t0));
	}
	CHECK(kill(pid, SIGKILL) == 0);
	CHECK(waitpid(pid, NULL, 0) == pid);
	CHECK(side_stop(&s, NULL));
	OK(doca_mmap_destroy(remote));
	side_fini(&s);
	printf("timeout: ok\n");
	return 0;
}
