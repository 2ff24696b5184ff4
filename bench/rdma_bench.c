/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_bench - DOCA RDMA between two processes against UCX's ucx_perftest on
 * the same transport, in one run (issue 11 item 8, first figures):
 *
 *   lat   64 B send/receive ping-pong, one-way time (round trip / 2),
 *         against ucp_am_lat 64 B;
 *   put   write tasks of 64 KiB and 1 MiB, 16 in flight, against ucp_put_bw;
 *   get   read tasks, the same, against ucp_get (ucx_perftest 1.13 has no ucp_get_bw).
 *
 * The requester runs on CPU 0, the responder on CPU 1, as ucx_perftest's
 * client and server (-c). UCX_TLS defaults to sm,self (set it to compare
 * another transport; TCP: also UCX_NET_DEVICES=lo). Prints a table and one
 * JSON line per figure. A command, not a test: build-*\/bench/rdma_bench [seconds]
 *
 * A sweep (bench_util.h's --sizes, --depths, --seconds, --json; `ferry bench
 * rdma`): each size (1 B..1 MiB) at each depth (tasks in flight, 1..16), rows
 * of case "write" (against ucp_put_bw), "read" (against ucp_get) and
 * "sendrecv" (one message in flight whatever the depth: one-way latency,
 * mean and median, against ucp_am_lat). Ferry's figures of every point come
 * first, then the responder goes and UCX's run.
 *
 * Between two network namespaces (root): FERRY_BENCH_NETNS="<requester ns>
 * <responder ns>", FERRY_BENCH_NET="<requester identity> <responder identity>"
 * (each side's FERRY_RDMA_NET) and FERRY_BENCH_PEER_ADDR (the responder's
 * address, which ucx_perftest's client dials; its server runs in the
 * responder's namespace). scripts/rdma-netns-bench.sh sets them up.
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "bench_ucx.h"
#include "bench_util.h"
#include "../tests/rdma/rdma_fixture.h"

#define IN_FLIGHT 16u /* SIDE_TASKS: the most tasks of a kind in flight */
#define LAT_SIZE  64u
#define MAX_MSG   (1u << 20)     /* the largest message the responder echoes */
#define PONG_AT   (SIDE_MEM / 2) /* where the requester receives echoes */

static const uint32_t RW = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE;

#define DIE(...)                                             \
	do {                                                 \
		fprintf(stderr, "rdma_bench: " __VA_ARGS__); \
		fprintf(stderr, "\n");                       \
		exit(1);                                     \
	} while (0)

/* The out-of-band channel (rdma_fixture.h), failing the run on a broken pipe. */
static void put_blob(int fd, const void *p, size_t len)
{
	if (!oob_put(fd, p, len))
		DIE("pipe write");
}

static size_t get_blob(int fd, void *p, size_t room)
{
	size_t len = 0;

	if (!oob_get(fd, p, room, &len))
		DIE("pipe read");
	return len;
}

static struct doca_rdma_connection *connect_side(struct side *s, int out, int in)
{
	struct doca_rdma_connection *conn = oob_connect(s, out, in);

	if (conn == NULL)
		DIE("export, descriptor exchange or connect");
	return conn;
}

/* ---- responder: echoes 64 B messages, serves reads and writes by progressing ---- */

struct echo {
	struct side *s;
	struct doca_rdma_connection *conn;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st;
	struct doca_buf *buf;
};

static int responder(int in, int out)
{
	struct side s;
	struct doca_rdma_connection *conn;
	struct doca_mmap *exp;
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st;
	struct doca_buf *buf;
	const void *desc;
	size_t len;

	pin_to(1);
	if (side_init(&s, RW, RW) != DOCA_SUCCESS)
		DIE("responder init");
	conn = connect_side(&s, out, in);
	if (doca_mmap_create(&exp) != DOCA_SUCCESS || doca_mmap_set_memrange(exp, s.mem, SIDE_MEM) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(exp, RW) != DOCA_SUCCESS || doca_mmap_add_dev(exp, s.dev) != DOCA_SUCCESS ||
	    doca_mmap_start(exp) != DOCA_SUCCESS || doca_mmap_export_rdma(exp, s.dev, &desc, &len) != DOCA_SUCCESS)
		DIE("responder export");
	put_blob(out, desc, len);
	buf = side_buf(&s, 0, MAX_MSG, 0);
	if (doca_rdma_task_receive_allocate_init(s.rdma, buf, (union doca_data){0}, &rt) != DOCA_SUCCESS ||
	    doca_rdma_task_send_allocate_init(s.rdma, conn, buf, (union doca_data){0}, &st) != DOCA_SUCCESS)
		DIE("responder tasks");
	for (;;) {
		unsigned int ok = s.ok;

		(void)doca_buf_reset_data_len(buf);
		if (doca_task_submit(doca_rdma_task_receive_as_task(rt)) != DOCA_SUCCESS)
			DIE("responder receive");
		while (s.ok == ok)
			(void)doca_pe_progress(s.pe);
		if (doca_task_submit(doca_rdma_task_send_as_task(st)) != DOCA_SUCCESS)
			DIE("responder send");
		while (s.ok == ok + 1)
			(void)doca_pe_progress(s.pe);
	}
	return 0;
}

/* ---- requester ---- */

struct requester {
	struct side s;
	struct doca_rdma_connection *conn;
	struct doca_mmap *remote;
	uint8_t *remote_base;
};

/* One-way microseconds of @p size byte messages: median and mean over at most @p iters round trips in @p seconds. */
static uint64_t ping_pong(struct requester *r, uint32_t size, uint64_t iters, double seconds, double *median,
			  double *mean)
{
	struct doca_buf *src = side_buf(&r->s, 0, size, size);
	struct doca_buf *dst = side_buf(&r->s, PONG_AT, size, 0);
	struct doca_rdma_task_receive *rt;
	struct doca_rdma_task_send *st;
	double *samples = calloc(iters, sizeof(double));
	double ns_per_tick = bench_ticks_calibrate(), t_all = now_s();
	uint64_t k_all, k_prev;

	if (samples == NULL ||
	    doca_rdma_task_receive_allocate_init(r->s.rdma, dst, (union doca_data){0}, &rt) != DOCA_SUCCESS ||
	    doca_rdma_task_send_allocate_init(r->s.rdma, r->conn, src, (union doca_data){0}, &st) != DOCA_SUCCESS)
		DIE("requester tasks");
	/*
	 * One clock read per round trip, as ucx_perftest's loop: a sample ends
	 * where the next begins, submits included; and the read is the TSC's
	 * (bench_ticks, a few ns) as ucx_perftest's is, not clock_gettime's
	 * 20-25 ns here, a seventh of a 0.17 us trip. The time limit is checked
	 * on the coarse clock every 1024 trips.
	 */
	k_all = k_prev = bench_ticks();
	for (uint64_t i = 0; i < iters; i++) {
		unsigned int ok = r->s.ok;
		uint64_t k;

		(void)doca_buf_reset_data_len(dst);
		if (doca_task_submit(doca_rdma_task_receive_as_task(rt)) != DOCA_SUCCESS ||
		    doca_task_submit(doca_rdma_task_send_as_task(st)) != DOCA_SUCCESS)
			DIE("requester submit");
		while (r->s.ok < ok + 2)
			(void)doca_pe_progress(r->s.pe);
		k = bench_ticks();
		samples[i] = (double)(k - k_prev) * ns_per_tick / 1e3 / 2;
		k_prev = k;
		if (seconds > 0 && (i & 1023) == 1023 && now_s() - t_all > seconds) {
			iters = i + 1;
			break;
		}
	}
	*mean = (double)(k_prev - k_all) * ns_per_tick / 1e3 / 2 / (double)iters;
	/* Median of the last 2048, as ucx_perftest. */
	{
		uint64_t n = iters < 2048 ? iters : 2048;
		double *tail = samples + (iters - n);

		for (uint64_t i = 1; i < n; i++)
			for (uint64_t j = i; j > 0 && tail[j - 1] > tail[j]; j--) {
				double t = tail[j];

				tail[j] = tail[j - 1];
				tail[j - 1] = t;
			}
		*median = tail[n / 2];
	}
	doca_task_free(doca_rdma_task_receive_as_task(rt));
	doca_task_free(doca_rdma_task_send_as_task(st));
	doca_buf_dec_refcount(src, NULL);
	doca_buf_dec_refcount(dst, NULL);
	free(samples);
	return iters;
}

/* Bytes/s of @p is_read tasks of @p size bytes, @p depth at a time, for @p seconds; @p iters: tasks done. */
/*
 * The window of one rma_rate run: every completed task is resubmitted from its
 * callback until the time is up, so @p depth tasks stay in flight all along,
 * as ucx_perftest's window does.
 */
static struct {
	bool stop;
	bool is_read;
	struct doca_buf *local[IN_FLIGHT], *remote[IN_FLIGHT];
} win;

static void rma_resubmit(struct side *s, struct doca_task *task, bool ok)
{
	uint64_t i = doca_task_get_user_data(task).u64;

	(void)s;
	if (!ok || win.stop)
		return;
	(void)doca_buf_reset_data_len(win.is_read ? win.local[i] : win.remote[i]);
	if (doca_task_submit(task) != DOCA_SUCCESS)
		DIE("rma resubmit");
}

/*
 * @p depth reads or writes of @p size bytes kept in flight for @p seconds.
 * Like ucx_perftest's put_bw and get, every task moves the same @p size bytes
 * (one local and one remote buffer): the pair compares the transports, not
 * the caches. Bytes per second.
 */
static double rma_rate(struct requester *r, size_t size, uint32_t depth, bool is_read, double seconds, uint64_t *iters)
{
	struct doca_task *tasks[IN_FLIGHT];
	uint64_t done = 0;
	unsigned int ok0;
	double t0, t;

	win.stop = false;
	win.is_read = is_read;
	for (uint32_t i = 0; i < depth; i++) {
		uint8_t *raddr = r->remote_base;
		union doca_data slot = {.u64 = i};

		win.local[i] = side_buf(&r->s, 0, size, is_read ? 0 : size);
		if (doca_buf_inventory_buf_get_by_args(r->s.inv, r->remote, raddr, size, raddr, is_read ? size : 0,
						       &win.remote[i]) != DOCA_SUCCESS)
			DIE("remote buf");
		if (is_read) {
			struct doca_rdma_task_read *rt;

			if (doca_rdma_task_read_allocate_init(r->s.rdma, r->conn, win.remote[i], win.local[i], slot,
							      &rt) != DOCA_SUCCESS)
				DIE("read task");
			tasks[i] = doca_rdma_task_read_as_task(rt);
		} else {
			struct doca_rdma_task_write *wt;

			if (doca_rdma_task_write_allocate_init(r->s.rdma, r->conn, win.local[i], win.remote[i], slot,
							       &wt) != DOCA_SUCCESS)
				DIE("write task");
			tasks[i] = doca_rdma_task_write_as_task(wt);
		}
	}
	r->s.hook = rma_resubmit;
	ok0 = r->s.ok;
	t0 = now_s();
	for (uint32_t i = 0; i < depth; i++)
		if (doca_task_submit(tasks[i]) != DOCA_SUCCESS)
			DIE("rma submit");
	do {
		for (int k = 0; k < 64; k++)
			(void)doca_pe_progress(r->s.pe);
		if (r->s.failed != 0)
			DIE("rma task failed: %s", doca_error_get_name(r->s.last_status));
		t = now_s();
	} while (t - t0 < seconds);
	done = r->s.ok - ok0;
	/* The window drains: what is in flight completes, nothing is resubmitted. */
	win.stop = true;
	while (r->s.ok - ok0 < done + depth && r->s.failed == 0)
		(void)doca_pe_progress(r->s.pe);
	r->s.hook = NULL;
	for (uint32_t i = 0; i < depth; i++) {
		doca_task_free(tasks[i]);
		doca_buf_dec_refcount(win.local[i], NULL);
		doca_buf_dec_refcount(win.remote[i], NULL);
	}
	if (iters != NULL)
		*iters = done;
	return (double)done * (double)size / (t - t0);
}

/* The requester's teardown (the responder is gone by then), so nothing is left for a leak checker. */
static void requester_fini(struct requester *r)
{
	(void)doca_mmap_destroy(r->remote);
	(void)side_stop(&r->s, NULL);
	side_fini(&r->s);
}

/* A row of tasks kept @p depth in flight at @p bps bytes/s of @p size. */
static struct bench_row rate_row(const char *side, double bps, size_t size, uint32_t depth, uint64_t iters)
{
	struct bench_row row = bench_row_none(side);

	if (bps > 0) {
		row.gb_per_s = bps / 1e9;
		row.mops = bps / (double)size / 1e6;
		row.lat_us = depth * (double)size / bps * 1e6; /* the mean time a task is in flight */
		row.iters = iters;
	}
	return row;
}

static struct bench_row lat_row(const char *side, double median, double mean, uint64_t iters)
{
	struct bench_row row = bench_row_none(side);

	row.lat_us = mean;
	row.lat_median_us = median;
	row.iters = iters;
	return row;
}

/* A sweep: Ferry's figures of every point, then the responder goes, then UCX's; one pair of rows per figure. */
static int sweep(struct bench_sweep *sw, struct requester *r, pid_t responder, bool have_ucx, const char *ucx_exe)
{
	enum { WRITE, READ, LAT, N_CASES };
	static const char *const cases[N_CASES] = {"write", "read", "sendrecv"};
	static const char *const tests[N_CASES] = {"ucp_put_bw", "ucp_get", "ucp_am_lat"};
	struct bench_row f[BENCH_MAX_POINTS][BENCH_MAX_POINTS][N_CASES];
	double seconds = sw->seconds;
	char why[512];

	for (unsigned i = 0; i < sw->n_sizes; i++) {
		for (unsigned d = 0; d < sw->n_depths; d++) {
			size_t size = sw->sizes[i];
			uint32_t depth = (uint32_t)sw->depths[d];
			double med, mean, bps;
			uint64_t n;

			for (int k = WRITE; k <= READ; k++) {
				bps = rma_rate(r, size, depth, k == READ, seconds, &n);
				f[i][d][k] = rate_row("ferry", bps, size, depth, n);
			}
			n = ping_pong(r, (uint32_t)size, (uint64_t)(seconds * 200000) + 16, seconds, &med, &mean);
			f[i][d][LAT] = lat_row("ferry", med, mean, n);
		}
	}
	kill(responder, SIGKILL);
	waitpid(responder, NULL, 0);
	bench_rows_header(sw->json);
	for (unsigned i = 0; i < sw->n_sizes; i++) {
		for (unsigned d = 0; d < sw->n_depths; d++) {
			size_t size = sw->sizes[i];
			uint32_t depth = (uint32_t)sw->depths[d];

			for (int k = 0; k < N_CASES; k++) {
				struct bench_row p = bench_row_none(NULL);
				struct bench_ucx u;
				uint64_t iters = f[i][d][k].iters + 16;

				if (have_ucx && bench_ucx_run(ucx_exe, tests[k], (uint32_t)size, iters, true, &u, why,
							      sizeof(why))) {
					p = k == LAT ? lat_row(tests[k], u.median_us, u.mean_us, u.iters)
						     : rate_row(tests[k], u.rate * (double)size, size, depth, u.iters);
					if (k !=
					    LAT) /* ucx_perftest keeps its own window, not depth: no comparable latency */
						p.lat_us = BENCH_NA;
				} else if (have_ucx) {
					fprintf(stderr, "rdma_bench: ucx: %s\n", why);
				}
				bench_rows_emit(sw->json, "rdma", cases[k], size, depth, &f[i][d][k], &p);
			}
		}
	}
	return 0;
}

/*
 * ucp_put_bw again with its buffers from the heap (UCX_ALLOC_PRIO=heap), the
 * kind of memory a DOCA program registers. By default ucx_perftest allocates
 * them with ucp_mem_map, which over shared memory gives segments the peer
 * maps and copies into directly; a heap buffer UCX only registers, and UCX
 * 1.13 puts into it by active messages, as it does for Ferry (docs/rdma.md).
 * There is no such row for ucp_get: its server does not progress the worker,
 * which a get by active messages needs, and the test never ends.
 */
static void heap_put_row(const char *ucx_exe, size_t size, double bps, double seconds, const char *tls)
{
	uint64_t iters = (uint64_t)(bps / (double)size * seconds) + 16;
	struct bench_ucx u;
	char why[512];
	bool ok;

	if (getenv("UCX_ALLOC_PRIO") != NULL)
		return; /* the user chose UCX's memory: the row above is that one */
	setenv("UCX_ALLOC_PRIO", "heap", 1);
	ok = bench_ucx_run(ucx_exe, "ucp_put_bw", (uint32_t)size, iters, true, &u, why, sizeof(why));
	unsetenv("UCX_ALLOC_PRIO");
	if (!ok) {
		printf("write %7zu B: ucp_put_bw on heap memory: %s\n", size, why);
		return;
	}
	printf("write %7zu B, %u in flight: %.2f GB/s | ucp_put_bw on heap memory %.2f GB/s | ratio %.2fx\n", size,
	       IN_FLIGHT, bps / 1e9, u.rate * (double)size / 1e9, bps / (u.rate * (double)size));
	printf("{\"bench\":\"rdma\",\"test\":\"write_heap\",\"size\":%zu,\"tls\":\"%s\",\"gbps\":%.3f,"
	       "\"ucx_gbps\":%.3f,\"ratio\":%.3f}\n",
	       size, tls, bps / 1e9, u.rate * (double)size / 1e9, bps / (u.rate * (double)size));
}

static int usage(void)
{
	fprintf(stderr, "usage: rdma_bench [seconds]\n"
			"       rdma_bench [--sizes LIST] [--depths LIST] [--seconds S] [--json]\n");
	return 2;
}

/*
 * Enter network namespace @p name (/var/run/netns) as `ip netns exec` does,
 * with a /sys of its own (UCX finds interfaces there), and take @p identity as
 * FERRY_RDMA_NET; before any thread.
 */
static void enter_netns(const char *name, const char *identity)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/var/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) != 0)
		DIE("cannot enter network namespace %s", name);
	close(fd);
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) != 0 ||
	    umount2("/sys", MNT_DETACH) != 0 || mount(name, "/sys", "sysfs", 0, NULL) != 0)
		DIE("cannot mount the /sys of network namespace %s", name);
	if (identity != NULL && *identity != '\0')
		setenv("FERRY_RDMA_NET", identity, 1);
}

int main(int argc, char **argv)
{
	double seconds = 1.0;
	struct bench_sweep sw = {0};
	int to_resp[2], to_req[2];
	static uint8_t desc[16384];
	struct requester r;
	char ucx_exe[4096], why[512];
	bool have_ucx;
	const char *tls;
	size_t len;
	pid_t pid;
	int rc;

	const char *netns = getenv("FERRY_BENCH_NETNS");
	char ns[2][128] = {"", ""}, ident[2][128] = {"", ""};

	for (int i = 1; i < argc; i++) {
		int got = bench_sweep_arg("rdma_bench", argc, argv, &i, &sw, MAX_MSG, IN_FLIGHT);

		if (got < 0)
			return 2;
		if (got == 0 && (argv[i][0] == '-' || i > 1 || (seconds = atof(argv[i])) <= 0))
			return usage();
	}
	if (sw.seconds > 0)
		seconds = sw.seconds;
	setenv("UCX_TLS", "sm,self", 0);
	tls = getenv("UCX_TLS");
	if (netns != NULL && *netns != '\0') {
		const char *net = getenv("FERRY_BENCH_NET");

		if (sscanf(netns, "%127s %127s", ns[0], ns[1]) != 2)
			DIE("FERRY_BENCH_NETNS must name two network namespaces");
		if (net != NULL && sscanf(net, "%127s %127s", ident[0], ident[1]) != 2)
			DIE("FERRY_BENCH_NET must name two identities");
		setenv("FERRY_BENCH_UCX_SERVER_NETNS", ns[1], 1);
	}
	if (pipe(to_resp) != 0 || pipe(to_req) != 0)
		DIE("pipe");
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(to_resp[1]);
		close(to_req[0]);
		if (ns[1][0] != '\0')
			enter_netns(ns[1], ident[1]);
		return responder(to_resp[0], to_req[1]);
	}
	if (ns[0][0] != '\0')
		enter_netns(ns[0], ident[0]);
	pin_to(0);
	memset(&r, 0, sizeof(r));
	if (side_init(&r.s, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, RW) != DOCA_SUCCESS)
		DIE("requester init");
	r.conn = connect_side(&r.s, to_resp[1], to_req[0]);
	len = get_blob(to_req[0], desc, sizeof(desc));
	if (doca_mmap_create_from_export(NULL, desc, len, r.s.dev, &r.remote) != DOCA_SUCCESS)
		DIE("import");
	{
		void *base;
		size_t rlen;

		(void)doca_mmap_get_memrange(r.remote, &base, &rlen);
		r.remote_base = base;
	}
	have_ucx = bench_ucx_find(ucx_exe, sizeof(ucx_exe));
	if (bench_sweeping(&sw)) {
		bench_sweep_defaults(&sw, 65536, IN_FLIGHT, seconds);
		if (!have_ucx)
			fprintf(stderr, "rdma_bench: ucx_perftest not found (install ucx-utils): no UCX rows\n");
		rc = sweep(&sw, &r, pid, have_ucx, ucx_exe);
		requester_fini(&r);
		return rc;
	}
	printf("DOCA RDMA between two processes (CPU 0 -> CPU 1)%s%s%s%s, UCX_TLS=%s; peer: ucx_perftest%s\n",
	       ns[0][0] != '\0' ? ", network namespaces " : "", ns[0], ns[0][0] != '\0' ? " -> " : "", ns[1], tls,
	       have_ucx ? "" : " (not found: install ucx-utils)");
	/* Ferry's figures first, then the responder goes, so UCX's two processes have the CPUs to themselves. */
	{
		static const size_t sizes[] = {65536, 1u << 20};
		static const char *const tests[] = {"ucp_put_bw", "ucp_get"}; /* 1.13 names get "ucp_get" */
		uint64_t lat_iters = (uint64_t)(seconds * 200000);
		double med, mean, bps[2][2];
		struct bench_ucx u;

		(void)ping_pong(&r, LAT_SIZE, lat_iters, 0, &med, &mean);
		for (int k = 0; k < 2; k++)
			for (int z = 0; z < 2; z++)
				bps[k][z] = rma_rate(&r, sizes[z], IN_FLIGHT, k == 1, seconds, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (have_ucx && bench_ucx_run(ucx_exe, "ucp_am_lat", LAT_SIZE, lat_iters, true, &u, why, sizeof(why))) {
			printf("lat  64 B send/receive one-way: median %.2f us, mean %.2f us | ucp_am_lat median %.2f "
			       "us, "
			       "mean %.2f us | ratio (median) %.2fx\n",
			       med, mean, u.median_us, u.mean_us, med / u.median_us);
			printf("{\"bench\":\"rdma\",\"test\":\"lat\",\"size\":64,\"tls\":\"%s\",\"median_us\":%.3f,"
			       "\"mean_us\":%.3f,\"ucx_median_us\":%.3f,\"ucx_mean_us\":%.3f,\"ratio\":%.3f}\n",
			       tls, med, mean, u.median_us, u.mean_us, med / u.median_us);
		} else {
			printf("lat  64 B send/receive one-way: median %.2f us, mean %.2f us%s%s\n", med, mean,
			       have_ucx ? " | ucx: " : "", have_ucx ? why : "");
		}
		for (int k = 0; k < 2; k++) {
			for (int z = 0; z < 2; z++) {
				uint64_t iters = (uint64_t)(bps[k][z] / (double)sizes[z] * seconds) + 16;
				const char *name = k == 1 ? "read " : "write";

				if (have_ucx && bench_ucx_run(ucx_exe, tests[k], (uint32_t)sizes[z], iters, true, &u,
							      why, sizeof(why))) {
					double ubps = u.rate * (double)sizes[z];

					printf("%s %7zu B, %u in flight: %.2f GB/s | %s %.2f GB/s | ratio %.2fx\n",
					       name, sizes[z], IN_FLIGHT, bps[k][z] / 1e9, tests[k], ubps / 1e9,
					       bps[k][z] / ubps);
					printf("{\"bench\":\"rdma\",\"test\":\"%s\",\"size\":%zu,\"tls\":\"%s\","
					       "\"gbps\":%.3f,"
					       "\"ucx_gbps\":%.3f,\"ratio\":%.3f}\n",
					       k == 1 ? "read" : "write", sizes[z], tls, bps[k][z] / 1e9, ubps / 1e9,
					       bps[k][z] / ubps);
				} else {
					printf("%s %7zu B: %.2f GB/s%s%s\n", name, sizes[z], bps[k][z] / 1e9,
					       have_ucx ? " | ucx: " : "", have_ucx ? why : "");
				}
			}
		}
		/* Over shared memory, where UCX's buffers live decides its protocol. */
		for (int z = 0; z < 2 && have_ucx && strstr(tls, "sm") != NULL; z++)
			heap_put_row(ucx_exe, sizes[z], bps[0][z], seconds, tls);
	}
	requester_fini(&r);
	return 0;
}
