/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_pair - the two sides of a DOCA RDMA program as separate commands, so
 * they can run in two processes, two network namespaces or two machines.
 * Public API only.
 *
 *   rdma_pair serve   DIR CLIENTS [--cm PORT] [--bytes N] [--adds N] [--sink]
 *   rdma_pair request DIR ID      [--cm ADDR PORT] [--bytes N] [--adds N] [--stream | --stream-sends]
 *
 * The server exports its memory (RDMA read, write and atomic) and takes
 * CLIENTS connections: in descriptor-file mode through files in DIR (as
 * NVIDIA's samples exchange them; DIR stands for the out-of-band channel), or
 * with the connection manager on PORT, the memory descriptor then going to
 * each client in a message. Each client ID writes N bytes of its own pattern
 * into region ID of that memory, reads them back and checks them, then does N
 * fetch-and-adds of 1 and N/4 compare-and-swap increments of 2^32 on the word
 * all clients share, and sends "done". The server checks every region and
 * that the shared word is exactly CLIENTS * (N + (N/4 << 32)): concurrent
 * atomics from several processes lose nothing. In file mode the server does
 * not progress while the clients work (it waits for DIR/req-done-ID files),
 * as NVIDIA's responders sit in getchar().
 *
 * --stream (the fault test): the client keeps 8 writes of 256 KiB in flight,
 * prints "streaming" once, and goes on until a task fails; then it submits
 * nothing more, waits for every outstanding task, and prints how each ended
 * and how long the last took after the first failure. Exit 0 when every task
 * ended (the ones after the failure with an error status), 2 when some task
 * did not end within 120 s. --stream-sends does the same with sends of 4 KiB
 * to a server started with --sink, which keeps receives posted (and checks
 * nothing) until DIR/req-done-0 appears.
 *
 * Exit 0 on success, 1 with a line on failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "rdma_fixture.h"

#define WAIT_MS    30000u
#define REGION0    4096u        /* regions start here; the shared word is at 0 */
#define CHUNK      (256u << 10) /* bytes per write or read task */
#define INFLIGHT   8u
#define CAS_UNIT   (1ull << 32)
#define DESC_MAX   65536u
#define STREAM_MAX 120000u

static const uint32_t PERM = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ |
			     DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC;

static const char *role = "rdma_pair";

#define CHECK(cond)                                                                                             \
	do {                                                                                                    \
		if (!(cond)) {                                                                                  \
			fprintf(stderr, "%s[%d]:%d: check failed: %s\n", role, (int)getpid(), __LINE__, #cond); \
			exit(1);                                                                                \
		}                                                                                               \
	} while (0)

#define OK(call)                                                                                     \
	do {                                                                                         \
		doca_error_t err_ = (call);                                                          \
		if (err_ != DOCA_SUCCESS) {                                                          \
			fprintf(stderr, "%s[%d]:%d: %s: %s\n", role, (int)getpid(), __LINE__, #call, \
				doca_error_get_name(err_));                                          \
			exit(1);                                                                     \
		}                                                                                    \
	} while (0)

struct opts {
	const char *dir;
	unsigned int n; /* clients (serve) or this client's id (request) */
	const char *cm_addr;
	uint16_t cm_port;
	bool cm;
	size_t bytes;
	unsigned int adds;
	bool stream, stream_sends, sink;
};

/* ---- the out-of-band channel: files in DIR, written whole (rename) ---- */

static void put_file(const struct opts *o, const char *name, const void *p, size_t len)
{
	char tmp[512], path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", o->dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.%d", o->dir, name, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK(len == 0 || write(fd, p, len) == (ssize_t)len);
	CHECK(close(fd) == 0);
	CHECK(rename(tmp, path) == 0);
}

/* Wait (without progressing anything) until DIR/name exists, then read it whole. */
static size_t get_file(const struct opts *o, const char *name, void *p, size_t room)
{
	uint64_t end = side_now_ms() + WAIT_MS * 2;
	char path[512];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", o->dir, name);
	while ((fd = open(path, O_RDONLY)) < 0) {
		if (side_now_ms() > end) {
			fprintf(stderr, "%s: no %s after %u ms\n", role, path, WAIT_MS * 2);
			exit(1);
		}
		usleep(2000);
	}
	n = read(fd, p, room);
	CHECK(n >= 0 && (size_t)n < room);
	close(fd);
	return (size_t)n;
}

/* ---- completions of the atomics and streaming tasks, by task ---- */

struct side_ext {
	struct side s; /* first: the callbacks' ctx user data points here */
	unsigned int established, failures, disconnects;
	struct doca_rdma_connection *conn;
};

static void on_request(struct doca_rdma_connection *conn, union doca_data ctx_ud)
{
	(void)ctx_ud;
	OK(doca_rdma_connection_accept(conn, NULL, 0));
}

static struct doca_rdma_connection *cm_conns[64];

static void on_established(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	struct side_ext *x = ctx_ud.ptr;

	(void)conn_ud;
	if (x->established < 64)
		cm_conns[x->established] = conn;
	x->established++;
	x->conn = conn;
}

static void on_failure(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	struct side_ext *x = ctx_ud.ptr;

	(void)conn;
	(void)conn_ud;
	x->failures++;
}

static void on_disconnect(struct doca_rdma_connection *conn, union doca_data conn_ud, union doca_data ctx_ud)
{
	struct side_ext *x = ctx_ud.ptr;

	(void)conn_ud;
	x->disconnects++;
	(void)doca_rdma_connection_disconnect(conn);
}

static void side_up(struct side_ext *x, uint16_t max_conns)
{
	memset(x, 0, sizeof(*x));
	OK(side_prepare(&x->s, PERM, PERM));
	OK(doca_rdma_set_max_num_connections(x->s.rdma, max_conns));
	OK(doca_rdma_set_connection_state_callbacks(x->s.rdma, on_request, on_established, on_failure, on_disconnect));
	OK(doca_ctx_start(x->s.ctx));
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Post a receive into [off, off + len) of the side's memory; returns the task. */
static struct doca_rdma_task_receive *post_receive(struct side *s, size_t off, size_t len, struct doca_buf **dst)
{
	struct doca_rdma_task_receive *rt;

	*dst = side_buf(s, off, len, 0);
	CHECK(*dst != NULL);
	OK(doca_rdma_task_receive_allocate_init(s->rdma, *dst, (union doca_data){0}, &rt));
	OK(doca_task_submit(doca_rdma_task_receive_as_task(rt)));
	return rt;
}

static void send_bytes(struct side *s, struct doca_rdma_connection *conn, size_t off, size_t len)
{
	struct doca_buf *src = side_buf(s, off, len, len);
	struct doca_rdma_task_send *st;
	unsigned int ok = s->ok;

	CHECK(src != NULL);
	OK(doca_rdma_task_send_allocate_init(s->rdma, conn, src, (union doca_data){0}, &st));
	OK(doca_task_submit(doca_rdma_task_send_as_task(st)));
	CHECK(side_wait(s, NULL, &s->ok, ok + 1, WAIT_MS));
	CHECK(s->failed == 0);
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(src, NULL);
}

/* ---- server ---- */

/* --sink: keep SIDE_TASKS receives posted (each reposted from its callback) until DIR/req-done-0 appears. */
static struct doca_task *sink_tasks[SIDE_TASKS];
static struct doca_buf *sink_bufs[SIDE_TASKS];

static void sink_done(struct side *s, struct doca_task *task, bool ok)
{
	(void)s;
	for (unsigned int i = 0; i < SIDE_TASKS; i++) {
		if (sink_tasks[i] != task)
			continue;
		if (ok) {
			(void)doca_buf_reset_data_len(sink_bufs[i]);
			(void)doca_task_submit(task);
		} else {
			doca_task_free(task);
			doca_buf_dec_refcount(sink_bufs[i], NULL);
			sink_tasks[i] = NULL;
		}
	}
}

static int sink(struct side_ext *x, const struct opts *o)
{
	char path[512];
	uint64_t end = side_now_ms() + 120000;

	for (unsigned int i = 0; i < SIDE_TASKS; i++) {
		struct doca_rdma_task_receive *rt = post_receive(&x->s, (size_t)i * 4096, 4096, &sink_bufs[i]);

		sink_tasks[i] = doca_rdma_task_receive_as_task(rt);
	}
	x->s.hook = sink_done;
	printf("serve: %u connections by descriptor files; a sink for messages\n", o->n);
	snprintf(path, sizeof(path), "%s/req-done-0", o->dir);
	while (access(path, F_OK) != 0 && side_now_ms() < end) {
		for (int k = 0; k < 1000; k++)
			if (doca_pe_progress(x->s.pe) == 0)
				usleep(50);
	}
	printf("serve: sink: %u messages\n", x->s.ok);
	return 0;
}

static int serve(const struct opts *o)
{
	struct side_ext x;
	struct doca_rdma_connection *conns[64];
	struct doca_mmap *exp;
	const void *desc;
	size_t desc_len;
	uint8_t *mem;
	static uint8_t peer[DESC_MAX];
	char name[64];

	role = "serve";
	CHECK(o->n >= 1 && o->n <= 64);
	CHECK(REGION0 + (size_t)o->n * o->bytes <= SIDE_MEM / 2);
	side_up(&x, (uint16_t)o->n);
	mem = x.s.mem + SIDE_MEM / 2;
	OK(doca_mmap_create(&exp));
	OK(doca_mmap_set_memrange(exp, mem, SIDE_MEM / 2));
	OK(doca_mmap_set_permissions(exp, PERM));
	OK(doca_mmap_add_dev(exp, x.s.dev));
	OK(doca_mmap_start(exp));
	OK(doca_mmap_export_rdma(exp, x.s.dev, &desc, &desc_len));
	if (!o->cm) {
		put_file(o, "serve-mem", desc, desc_len);
		for (unsigned int i = 0; i < o->n; i++) {
			const void *cd;
			size_t cl;

			OK(doca_rdma_export(x.s.rdma, &cd, &cl, &conns[i]));
			snprintf(name, sizeof(name), "serve-conn-%u", i);
			put_file(o, name, cd, cl);
		}
		for (unsigned int i = 0; i < o->n; i++) {
			size_t len;

			snprintf(name, sizeof(name), "req-conn-%u", i);
			len = get_file(o, name, peer, sizeof(peer));
			OK(doca_rdma_connect(x.s.rdma, peer, len, conns[i]));
		}
		if (o->sink) {
			(void)sink(&x, o);
			/* The stop flushes the receives: their callbacks free them (a stop waits for every task). */
			CHECK(side_stop(&x.s, NULL));
			x.s.hook = NULL;
			OK(doca_mmap_stop(exp));
			OK(doca_mmap_destroy(exp));
			side_fini(&x.s);
			return 0;
		}
		printf("serve: %u connections by descriptor files; waiting without progress\n", o->n);
		/* As NVIDIA's responders in getchar(): the clients' reads, writes and atomics need no progress here. */
		for (unsigned int i = 0; i < o->n; i++) {
			snprintf(name, sizeof(name), "req-done-%u", i);
			(void)get_file(o, name, peer, sizeof(peer));
		}
	} else {
		OK(doca_rdma_start_listen_to_port(x.s.rdma, o->cm_port));
		put_file(o, "serve-listening", "", 0);
		printf("serve: listening on port %u\n", o->cm_port);
		CHECK(side_wait(&x.s, NULL, &x.established, o->n, WAIT_MS * 2));
		CHECK(x.failures == 0);
		/* The memory descriptor goes in a message, as the samples' CM mode sends it. */
		memcpy(x.s.mem, desc, desc_len);
		for (unsigned int i = 0; i < o->n; i++) {
			conns[i] = cm_conns[i];
			send_bytes(&x.s, conns[i], 0, desc_len);
		}
		printf("serve: %u connections by the connection manager; memory descriptor sent\n", o->n);
	}
	/* Each client's "done <id>" message. */
	{
		struct doca_rdma_task_receive *rt[64];
		struct doca_buf *dst[64];
		unsigned int ok = x.s.ok;

		for (unsigned int i = 0; i < o->n; i++)
			rt[i] = post_receive(&x.s, 4096 + i * 64, 64, &dst[i]);
		CHECK(side_wait(&x.s, NULL, &x.s.ok, ok + o->n, WAIT_MS * 2));
		CHECK(x.s.failed == 0);
		for (unsigned int i = 0; i < o->n; i++) {
			CHECK(memcmp(x.s.mem + 4096 + i * 64, "done", 4) == 0);
			doca_task_free(doca_rdma_task_receive_as_task(rt[i]));
			doca_buf_dec_refcount(dst[i], NULL);
		}
	}
	for (unsigned int i = 0; i < o->n; i++)
		CHECK(pattern_check(mem + REGION0 + i * o->bytes, o->bytes, i + 1));
	{
		uint64_t want = (uint64_t)o->n * o->adds + (((uint64_t)o->n * (o->adds / 4)) << 32);
		uint64_t got = load64(mem);

		if (got != want) {
			fprintf(stderr, "serve: shared word 0x%llx, want 0x%llx\n", (unsigned long long)got,
				(unsigned long long)want);
			exit(1);
		}
		printf("serve: %u regions of %zu bytes checked; shared word 0x%llx = %u x (%u adds + %u CAS << 32)\n",
		       o->n, o->bytes, (unsigned long long)got, o->n, o->adds, o->adds / 4);
	}
	CHECK(side_stop(&x.s, NULL));
	OK(doca_mmap_stop(exp));
	OK(doca_mmap_destroy(exp));
	side_fini(&x.s);
	printf("serve: ok\n");
	return 0;
}

/* ---- client ---- */

/* Write then read back this client's region, up to INFLIGHT chunks at a time. */
static void region_rw(struct side *s, struct doca_rdma_connection *conn, struct doca_mmap *remote, uint8_t *rbase,
		      const struct opts *o)
{
	uint8_t *region = rbase + REGION0 + (size_t)o->n * o->bytes;
	const size_t back_off = SIDE_MEM / 2;

	CHECK(o->bytes <= SIDE_MEM / 2);
	pattern_fill(s->mem, o->bytes, o->n + 1);
	memset(s->mem + back_off, 0, o->bytes);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t off = 0; off < o->bytes;) {
			struct doca_task *tasks[INFLIGHT];
			struct doca_buf *bufs[INFLIGHT][2];
			unsigned int k = 0, ok = s->ok;

			for (; k < INFLIGHT && off < o->bytes; k++) {
				size_t len = o->bytes - off < CHUNK ? o->bytes - off : CHUNK;
				struct doca_buf *local, *rem = NULL;

				if (pass == 0) {
					struct doca_rdma_task_write *wt;

					local = side_buf(s, off, len, len);
					OK(doca_buf_inventory_buf_get_by_args(s->inv, remote, region + off, len,
									      region + off, 0, &rem));
					OK(doca_rdma_task_write_allocate_init(s->rdma, conn, local, rem,
									      (union doca_data){0}, &wt));
					tasks[k] = doca_rdma_task_write_as_task(wt);
				} else {
					struct doca_rdma_task_read *rt;

					local = side_buf(s, back_off + off, len, 0);
					OK(doca_buf_inventory_buf_get_by_args(s->inv, remote, region + off, len,
									      region + off, len, &rem));
					OK(doca_rdma_task_read_allocate_init(s->rdma, conn, rem, local,
									     (union doca_data){0}, &rt));
					tasks[k] = doca_rdma_task_read_as_task(rt);
				}
				CHECK(local != NULL);
				bufs[k][0] = local;
				bufs[k][1] = rem;
				OK(doca_task_submit(tasks[k]));
				off += len;
			}
			CHECK(side_wait(s, NULL, &s->ok, ok + k, WAIT_MS));
			CHECK(s->failed == 0);
			for (unsigned int i = 0; i < k; i++) {
				doca_task_free(tasks[i]);
				doca_buf_dec_refcount(bufs[i][0], NULL);
				doca_buf_dec_refcount(bufs[i][1], NULL);
			}
		}
	}
	CHECK(pattern_check(s->mem + back_off, o->bytes, o->n + 1));
}

static void atomics(struct side *s, struct doca_rdma_connection *conn, struct doca_mmap *remote, uint8_t *rbase,
		    const struct opts *o)
{
	struct doca_buf *word = NULL;
	unsigned int done = 0, issued = 0, ok0 = s->ok, retries = 0;
	struct doca_rdma_task_atomic_fetch_add *fa[INFLIGHT];
	struct doca_buf *res[INFLIGHT];
	uint64_t guess = 0;

	OK(doca_buf_inventory_buf_get_by_args(s->inv, remote, rbase, 8, rbase, 8, &word));
	for (unsigned int i = 0; i < INFLIGHT; i++) {
		res[i] = side_buf(s, 64 + i * 8, 8, 0);
		CHECK(res[i] != NULL);
		OK(doca_rdma_task_atomic_fetch_add_allocate_init(s->rdma, conn, word, res[i], 1, (union doca_data){0},
								 &fa[i]));
	}
	/* Fetch-and-add: INFLIGHT at a time, each slot resubmitted when it is back. */
	while (done < o->adds) {
		unsigned int batch = o->adds - issued < INFLIGHT ? o->adds - issued : INFLIGHT;

		for (unsigned int i = 0; i < batch; i++) {
			doca_buf_reset_data_len(res[i]);
			OK(doca_task_submit(doca_rdma_task_atomic_fetch_add_as_task(fa[i])));
		}
		issued += batch;
		CHECK(side_wait(s, NULL, &s->ok, ok0 + issued, WAIT_MS));
		CHECK(s->failed == 0);
		done = issued;
	}
	/* Compare-and-swap increments of 2^32: retry with the value seen until the swap lands. */
	{
		struct doca_rdma_task_atomic_cmp_swp *cs;
		struct doca_buf *r = side_buf(s, 256, 8, 0);

		OK(doca_rdma_task_atomic_cmp_swp_allocate_init(s->rdma, conn, word, r, 0, 0, (union doca_data){0},
							       &cs));
		for (unsigned int n = 0; n < o->adds / 4;) {
			uint64_t old;
			unsigned int ok = s->ok;

			doca_buf_reset_data_len(r);
			doca_rdma_task_atomic_cmp_swp_set_cmp_data(cs, guess);
			doca_rdma_task_atomic_cmp_swp_set_swap_data(cs, guess + CAS_UNIT);
			OK(doca_task_submit(doca_rdma_task_atomic_cmp_swp_as_task(cs)));
			CHECK(side_wait(s, NULL, &s->ok, ok + 1, WAIT_MS));
			CHECK(s->failed == 0);
			old = load64(s->mem + 256);
			if (old == guess) {
				n++;
				guess += CAS_UNIT;
			} else {
				retries++;
				guess = old;
			}
		}
		doca_task_free(doca_rdma_task_atomic_cmp_swp_as_task(cs));
		doca_buf_dec_refcount(r, NULL);
	}
	for (unsigned int i = 0; i < INFLIGHT; i++) {
		doca_task_free(doca_rdma_task_atomic_fetch_add_as_task(fa[i]));
		doca_buf_dec_refcount(res[i], NULL);
	}
	doca_buf_dec_refcount(word, NULL);
	printf("request %u: %u fetch-and-adds and %u compare-and-swaps (%u retried) on the shared word\n", o->n,
	       o->adds, o->adds / 4, retries);
}

/* The fault test: writes until one fails, then every outstanding task must end. */
static struct {
	struct doca_task *task[INFLIGHT];
	bool busy[INFLIGHT];
	unsigned int outstanding, statuses[4]; /* ok, CONNECTION_RESET, IO_FAILED or TIME_OUT, other */
	uint64_t first_fail, last_end, bytes;
	size_t len;
	bool failing;
	doca_error_t first_status;
} st;

static void stream_done(struct side *s, struct doca_task *task, bool ok)
{
	(void)s;
	for (unsigned int i = 0; i < INFLIGHT; i++) {
		doca_error_t status;

		if (st.task[i] != task || !st.busy[i])
			continue;
		status = doca_task_get_status(task);
		st.busy[i] = false;
		st.outstanding--;
		st.last_end = side_now_ms();
		if (ok) {
			st.statuses[0]++;
			st.bytes += st.len;
		} else {
			st.statuses[status == DOCA_ERROR_CONNECTION_RESET                             ? 1
				    : status == DOCA_ERROR_IO_FAILED || status == DOCA_ERROR_TIME_OUT ? 2
												      : 3]++;
			if (!st.failing) {
				st.failing = true;
				st.first_fail = st.last_end;
				st.first_status = status;
			}
		}
	}
}

static int stream(struct side *s, struct doca_rdma_connection *conn, struct doca_mmap *remote, uint8_t *rbase,
		  const struct opts *o)
{
	uint8_t *region = rbase + REGION0 + (size_t)o->n * o->bytes;
	struct doca_buf *src[INFLIGHT], *dst[INFLIGHT] = {NULL};
	uint64_t start = side_now_ms();
	bool said = false;

	st.len = o->stream_sends ? 4096 : o->bytes < CHUNK ? o->bytes : CHUNK;
	s->hook = stream_done;
	for (unsigned int i = 0; i < INFLIGHT; i++) {
		src[i] = side_buf(s, 0, st.len, st.len);
		if (o->stream_sends) {
			struct doca_rdma_task_send *t;

			OK(doca_rdma_task_send_allocate_init(s->rdma, conn, src[i], (union doca_data){0}, &t));
			st.task[i] = doca_rdma_task_send_as_task(t);
		} else {
			struct doca_rdma_task_write *t;

			OK(doca_buf_inventory_buf_get_by_args(s->inv, remote, region, st.len, region, 0, &dst[i]));
			OK(doca_rdma_task_write_allocate_init(s->rdma, conn, src[i], dst[i], (union doca_data){0}, &t));
			st.task[i] = doca_rdma_task_write_as_task(t);
		}
	}
	for (;;) {
		for (unsigned int i = 0; i < INFLIGHT && !st.failing; i++) {
			if (st.busy[i])
				continue;
			if (dst[i] != NULL)
				OK(doca_buf_reset_data_len(dst[i]));
			OK(doca_task_submit(st.task[i]));
			st.busy[i] = true;
			st.outstanding++;
		}
		if (!said && st.bytes >= 16u * st.len) {
			printf("streaming\n");
			said = true;
		}
		if (st.failing && st.outstanding == 0)
			break;
		if (side_now_ms() - start > STREAM_MAX) {
			fprintf(stderr, "request %u: %u tasks still outstanding after %u ms\n", o->n, st.outstanding,
				STREAM_MAX);
			return 2;
		}
		if (doca_pe_progress(s->pe) == 0)
			usleep(50);
	}
	printf("request %u: %llu bytes %s; first failure %s; then %u ended CONNECTION_RESET, %u "
	       "IO_FAILED/TIME_OUT, %u other; the last %llu ms after the first\n",
	       o->n, (unsigned long long)st.bytes, o->stream_sends ? "sent" : "written",
	       doca_error_get_name(st.first_status), st.statuses[1], st.statuses[2], st.statuses[3],
	       (unsigned long long)(st.last_end - st.first_fail));
	s->hook = NULL;
	for (unsigned int i = 0; i < INFLIGHT; i++) {
		doca_task_free(st.task[i]);
		doca_buf_dec_refcount(src[i], NULL);
		if (dst[i] != NULL)
			doca_buf_dec_refcount(dst[i], NULL);
	}
	return st.statuses[3] == 0 ? 0 : 1;
}

static int request(const struct opts *o)
{
	static char who[32];
	static uint8_t peer[DESC_MAX];
	struct side_ext x;
	struct doca_rdma_connection *conn;
	struct doca_mmap *remote;
	size_t len;
	char name[64];
	void *base;
	size_t rlen;
	int rc = 0;

	snprintf(who, sizeof(who), "request %u", o->n);
	role = who;
	side_up(&x, 1);
	if (!o->cm) {
		const void *cd;
		size_t cl;

		OK(doca_rdma_export(x.s.rdma, &cd, &cl, &conn));
		snprintf(name, sizeof(name), "req-conn-%u", o->n);
		put_file(o, name, cd, cl);
		snprintf(name, sizeof(name), "serve-conn-%u", o->n);
		len = get_file(o, name, peer, sizeof(peer));
		OK(doca_rdma_connect(x.s.rdma, peer, len, conn));
		len = get_file(o, "serve-mem", peer, sizeof(peer));
	} else {
		struct doca_rdma_addr *addr;
		struct doca_rdma_task_receive *rt;
		struct doca_buf *dst;
		unsigned int ok = x.s.ok;

		(void)get_file(o, "serve-listening", peer, sizeof(peer));
		rt = post_receive(&x.s, 0, 4096, &dst);
		OK(doca_rdma_addr_create(DOCA_RDMA_ADDR_TYPE_IPv4, o->cm_addr, o->cm_port, &addr));
		OK(doca_rdma_connect_to_addr(x.s.rdma, addr, (union doca_data){0}));
		OK(doca_rdma_addr_destroy(addr));
		CHECK(side_wait(&x.s, NULL, &x.established, 1, WAIT_MS));
		CHECK(x.failures == 0);
		conn = x.conn;
		CHECK(side_wait(&x.s, NULL, &x.s.ok, ok + 1, WAIT_MS));
		len = doca_rdma_task_receive_get_result_len(rt);
		CHECK(len > 0 && len < sizeof(peer));
		memcpy(peer, x.s.mem, len);
		doca_task_free(doca_rdma_task_receive_as_task(rt));
		doca_buf_dec_refcount(dst, NULL);
	}
	OK(doca_mmap_create_from_export(NULL, peer, len, x.s.dev, &remote));
	OK(doca_mmap_get_memrange(remote, &base, &rlen));
	CHECK(rlen == SIDE_MEM / 2);
	if (o->stream || o->stream_sends) {
		rc = stream(&x.s, conn, remote, base, o);
	} else {
		uint64_t t0 = side_now_ms();

		region_rw(&x.s, conn, remote, base, o);
		printf("request %u: %zu bytes written to the server and read back in %llu ms\n", o->n, o->bytes,
		       (unsigned long long)(side_now_ms() - t0));
		atomics(&x.s, conn, remote, base, o);
		if (!o->cm) {
			snprintf(name, sizeof(name), "req-done-%u", o->n);
			put_file(o, name, "", 0);
		}
		snprintf((char *)x.s.mem, 64, "done %u", o->n);
		send_bytes(&x.s, conn, 0, strlen((char *)x.s.mem) + 1);
		if (o->cm)
			OK(doca_rdma_connection_disconnect(conn));
	}
	CHECK(side_stop(&x.s, NULL));
	OK(doca_mmap_destroy(remote));
	side_fini(&x.s);
	if (rc == 0)
		printf("%s: ok\n", who);
	return rc;
}

static void usage(void)
{
	fprintf(stderr, "usage: rdma_pair serve DIR CLIENTS [--cm PORT] [--bytes N] [--adds N] [--sink]\n"
			"       rdma_pair request DIR ID [--cm ADDR PORT] [--bytes N] [--adds N] [--stream | "
			"--stream-sends]\n");
	exit(1);
}

static unsigned long number(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || end == s || v > max)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	struct opts o = {.bytes = 512u << 10, .adds = 1000};
	bool is_serve;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 4)
		usage();
	is_serve = strcmp(argv[1], "serve") == 0;
	if (!is_serve && strcmp(argv[1], "request") != 0)
		usage();
	o.dir = argv[2];
	o.n = (unsigned int)number(argv[3], 63);
	for (int i = 4; i < argc; i++) {
		if (strcmp(argv[i], "--cm") == 0 && !is_serve && i + 2 < argc) {
			o.cm = true;
			o.cm_addr = argv[++i];
			o.cm_port = (uint16_t)number(argv[++i], 65535);
		} else if (strcmp(argv[i], "--cm") == 0 && is_serve && i + 1 < argc) {
			o.cm = true;
			o.cm_port = (uint16_t)number(argv[++i], 65535);
		} else if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) {
			o.bytes = number(argv[++i], SIDE_MEM / 2);
		} else if (strcmp(argv[i], "--adds") == 0 && i + 1 < argc) {
			o.adds = (unsigned int)number(argv[++i], 1000000);
		} else if (strcmp(argv[i], "--stream") == 0 && !is_serve) {
			o.stream = true;
		} else if (strcmp(argv[i], "--stream-sends") == 0 && !is_serve) {
			o.stream_sends = true;
		} else if (strcmp(argv[i], "--sink") == 0 && is_serve) {
			o.sink = true;
		} else {
			usage();
		}
	}
	/* Never outlive a test run. */
	alarm(300);
	return is_serve ? serve(&o) : request(&o);
}
