/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_link_xproc.c - host and DPU as two processes: link_host exports, link_dpu
 * imports and DMAs both ways. Each test runs in its own FERRY_DOMAIN, under a
 * time limit, and kills what it started. Failure cases: garbage, truncated,
 * forged token, another boot, user, machine or process incarnation, exporter
 * exited, SIGKILLed or stopped its mmap, read-only export, non-shareable memory,
 * another user's process; the cross-memory-attach path for plain malloc memory
 * (both ways, bounds, read-only, revoked, SIGKILL). Nothing may be left in /dev/shm.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/un.h>

#include "link/export_desc_priv.h"
#include "link/link_priv.h"

#define LINE_MAX_LEN    1024
#define LINE_TIMEOUT_MS 60000

struct proc {
	pid_t pid;
	int in;  /* its stdin */
	int out; /* its stdout */
};

struct host {
	struct proc p;
	char hex[2 * FERRY_DESC_MAX_LEN + 1];
	char addr[32];
	char len[32];
	char sum[32];
};

static const char *host_exe, *dpu_exe, *cma_exe;

/* execv takes char *const[]; it does not write the strings. */
#define ARG(s) ((char *)(uintptr_t)(s))

static void spawn(struct proc *p, char *const argv[], uid_t as_uid)
{
	int in[2], out[2];

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		if (as_uid != 0 && setuid(as_uid) != 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->in = in[1];
	p->out = out[0];
}

/* One line of the child's output (without the newline); fails the test on timeout or EOF. */
static void read_line(struct proc *p, char *buf, size_t room)
{
	size_t n = 0;

	for (;;) {
		struct pollfd pfd = {.fd = p->out, .events = POLLIN};
		assert_int_equal(poll(&pfd, 1, LINE_TIMEOUT_MS), 1);
		char c;
		ssize_t r = read(p->out, &c, 1);
		assert_int_equal(r, 1);
		if (c == '\n')
			break;
		if (n + 1 < room)
			buf[n++] = c;
	}
	buf[n] = '\0';
}

static void say(struct proc *p, const char *line)
{
	assert_int_equal(write(p->in, line, strlen(line)), (ssize_t)strlen(line));
}

static int finish(struct proc *p)
{
	int status = 0;

	close(p->in);
	close(p->out);
	assert_int_equal(waitpid(p->pid, &status, 0), p->pid);
	return status;
}

static void start_host(struct host *h, const char *bytes, const char *kind, const char *perm)
{
	char line[LINE_MAX_LEN];
	char *argv[] = {ARG(host_exe), ARG(bytes), ARG(kind), ARG(perm), ARG("77"), NULL};

	spawn(&h->p, argv, 0);
	read_line(&h->p, line, sizeof(line));
	_Static_assert(2 * FERRY_DESC_MAX_LEN == 446, "the width below");
	assert_int_equal(sscanf(line, "%446s %31s %31s %31s", h->hex, h->addr, h->len, h->sum), 4);
}

static void stop_host(struct host *h)
{
	say(&h->p, "exit\n");
	int status = finish(&h->p);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Pass as as_uid to run link_cma (the cross-memory-attach importer) instead of link_dpu. */
#define CMA_IMPORTER ((uid_t)-2)

/* Start link_dpu on @p hex with commands; the caller reads its lines. */
static void start_dpu(struct proc *d, const struct host *h, const char *hex, uid_t as_uid, ...)
{
	char *argv[16] = {ARG(as_uid == CMA_IMPORTER ? cma_exe : dpu_exe), ARG(hex), ARG(h->addr), ARG(h->len)};
	int argc = 4;

	if (as_uid == CMA_IMPORTER)
		as_uid = 0;
	va_list ap;

	va_start(ap, as_uid);
	for (const char *a = va_arg(ap, const char *); a != NULL && argc < 15; a = va_arg(ap, const char *))
		argv[argc++] = ARG(a);
	va_end(ap);
	argv[argc] = NULL;
	spawn(d, argv, as_uid);
}

static void expect_line(struct proc *p, const char *want)
{
	char line[LINE_MAX_LEN];

	read_line(p, line, sizeof(line));
	if (strncmp(line, want, strlen(want)) != 0)
		fail_msg("expected '%s', got '%s'", want, line);
}

static void dpu_done(struct proc *d)
{
	int status = finish(d);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Kill the exporter outright (no exit handlers, no cleanup) and reap it. */
static void kill_host(struct host *h)
{
	assert_int_equal(kill(h->p.pid, SIGKILL), 0);
	int status = finish(&h->p);
	assert_true(WIFSIGNALED(status));
}

/* The host's checksum of its own buffer must now be @p want. */
static void expect_host_sum(struct host *h, const char *want)
{
	char line[LINE_MAX_LEN];

	say(&h->p, "sum\n");
	read_line(&h->p, line, sizeof(line));
	assert_string_equal(line, want);
}

/* ---- descriptor surgery ---- */

static void hex_to_bytes(const char *hex, uint8_t *out, size_t *len)
{
	size_t n = strlen(hex) / 2;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
	*len = n;
}

static void bytes_to_hex(const uint8_t *in, size_t len, char *hex)
{
	for (size_t i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", in[i]);
	hex[2 * len] = '\0';
}

/* Decode the host's descriptor, let @p edit change it, encode it again (valid checksum). */
static void forge(const struct host *h, void (*edit)(struct ferry_export_desc *), char *out_hex)
{
	uint8_t buf[FERRY_DESC_MAX_LEN];
	size_t len;
	struct ferry_export_desc d;

	hex_to_bytes(h->hex, buf, &len);
	assert_int_equal(ferry_export_desc_decode(buf, len, &d, NULL), DOCA_SUCCESS);
	edit(&d);
	len = ferry_export_desc_encode(&d, buf, sizeof(buf));
	assert_true(len > 0);
	bytes_to_hex(buf, len, out_hex);
}

static void edit_token(struct ferry_export_desc *d)
{
	d->token[5] ^= 0x40;
}

static void edit_boot(struct ferry_export_desc *d)
{
	d->boot_id[0] ^= 1;
}

static void edit_uid(struct ferry_export_desc *d)
{
	d->uid += 1;
}

static void edit_start(struct ferry_export_desc *d)
{
	d->start_time += 1;
}

static void edit_machine(struct ferry_export_desc *d)
{
	d->machine = 1;
}

static void edit_export_id(struct ferry_export_desc *d)
{
	d->export_id += 1000;
}

static void edit_agent(struct ferry_export_desc *d)
{
	strcpy(d->agent, "ferry-squatter");
	d->agent_len = (uint16_t)strlen(d->agent);
}

static void edit_to_nobody(struct ferry_export_desc *d)
{
	d->uid = 65534;
}

/* ---- /dev/shm must stay as it was ---- */

static int count_dir(const char *path)
{
	DIR *dir = opendir(path);
	int n = 0;

	if (dir == NULL)
		return -1;
	for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir))
		n++;
	closedir(dir);
	return n;
}

static int shm_before;

static int setup(void **state)
{
	char domain[64];

	(void)state;
	snprintf(domain, sizeof(domain), "xproc-%d", (int)getpid());
	setenv("FERRY_DOMAIN", domain, 1);
	shm_before = count_dir("/dev/shm");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return count_dir("/dev/shm") == shm_before ? 0 : -1;
}

/* ---- tests ---- */

/*
 * The DPU side DMAs host -> DPU (checked against the host's checksum) and
 * DPU -> host (the host then checksums what landed in its memory), over host
 * memory of @p kind: "shared" (ferry_mem_alloc_shared: a shared mapping) or
 * "malloc" (ordinary memory: cross-memory attach).
 */
static void dma_both_ways(const char *kind, const char *bytes, const char *seed)
{
	struct host h;
	struct proc d;
	char line[LINE_MAX_LEN], sum[64];

	start_host(&h, bytes, kind, "rw");
	start_dpu(&d, &h, h.hex, 0, "import", "read", h.sum, "write", seed, NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "read OK");
	read_line(&d, line, sizeof(line));
	assert_int_equal(sscanf(line, "write OK %63s", sum), 1);
	dpu_done(&d);
	expect_host_sum(&h, sum); /* the host sees what the DPU wrote */
	stop_host(&h);
}

static void test_shared_both_ways(void **state)
{
	(void)state;
	/* Not a multiple of the page size: the last page is partly outside the range. */
	dma_both_ways("shared", "1000003", "1234");
}

static void test_256mib_by_checksum(void **state)
{
	(void)state;
	dma_both_ways("shared", "268435456", "99");
}

static void test_many_imports(void **state)
{
	struct host h;
	struct proc d[4];

	(void)state;
	start_host(&h, "65536", "shared", "rw");
	/* Four importing processes at once, each importing the export 33 times in all. */
	for (int i = 0; i < 4; i++)
		start_dpu(&d[i], &h, h.hex, 0, "import", "imports", "32", "read", h.sum, NULL);
	for (int i = 0; i < 4; i++) {
		expect_line(&d[i], "import DOCA_SUCCESS");
		expect_line(&d[i], "imports OK");
		expect_line(&d[i], "read OK");
		dpu_done(&d[i]);
	}
	stop_host(&h);
}

/* A read-only export of host memory of @p kind: the DPU reads it, its write is refused, the host's bytes stay. */
static void read_only_export(const char *kind)
{
	struct host h;
	struct proc d;

	start_host(&h, "65536", kind, "ro");
	start_dpu(&d, &h, h.hex, 0, "import", "read", h.sum, "write", "5", NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "read OK");
	expect_line(&d, "write DOCA_ERROR_NOT_PERMITTED");
	dpu_done(&d);
	expect_host_sum(&h, h.sum); /* untouched */
	stop_host(&h);
}

static void test_read_only_export(void **state)
{
	(void)state;
	read_only_export("shared");
}

static void expect_import(const struct host *h, const char *hex, const char *want)
{
	struct proc d;

	start_dpu(&d, h, hex, 0, "import", NULL);
	expect_line(&d, want);
	dpu_done(&d);
}

static void test_bad_descriptors(void **state)
{
	struct host h;
	char hex[2 * FERRY_DESC_MAX_LEN + 64];

	(void)state;
	start_host(&h, "65536", "shared", "rw");
	/* Garbage and truncation. */
	expect_import(&h, "00112233445566778899", "import DOCA_ERROR_INVALID_VALUE");
	snprintf(hex, sizeof(hex), "%.*s", (int)strlen(h.hex) - 2, h.hex);
	expect_import(&h, hex, "import DOCA_ERROR_INVALID_VALUE");
	snprintf(hex, sizeof(hex), "%s00", h.hex);
	expect_import(&h, hex, "import DOCA_ERROR_INVALID_VALUE");
	/* Corrupted in transit: checksum. */
	strcpy(hex, h.hex);
	hex[130] = hex[130] == '0' ? '1' : '0';
	expect_import(&h, hex, "import DOCA_ERROR_INVALID_VALUE");
	/* Well-formed lies. */
	forge(&h, edit_token, hex);
	expect_import(&h, hex, "import DOCA_ERROR_NOT_PERMITTED");
	forge(&h, edit_boot, hex);
	expect_import(&h, hex, "import DOCA_ERROR_NOT_FOUND");
	forge(&h, edit_uid, hex);
	expect_import(&h, hex, "import DOCA_ERROR_NOT_PERMITTED");
	forge(&h, edit_start, hex);
	expect_import(&h, hex, "import DOCA_ERROR_NOT_FOUND");
	forge(&h, edit_machine, hex);
	expect_import(&h, hex, "import DOCA_ERROR_INVALID_VALUE");
	forge(&h, edit_export_id, hex);
	expect_import(&h, hex, "import DOCA_ERROR_NOT_FOUND");
	forge(&h, edit_agent, hex);
	expect_import(&h, hex, "import DOCA_ERROR_NOT_FOUND");
	/* The genuine one still works after all that. */
	expect_import(&h, h.hex, "import DOCA_SUCCESS");
	stop_host(&h);
}

static void test_exporter_exited(void **state)
{
	struct host h;

	(void)state;
	start_host(&h, "65536", "shared", "rw");
	stop_host(&h);
	expect_import(&h, h.hex, "import DOCA_ERROR_NOT_FOUND");
}

/* The exporter of host memory of @p kind is SIGKILLed while the DPU holds the import: DMA fails, the export is gone. */
static void exporter_sigkilled(const char *kind)
{
	struct host h;
	struct proc d;

	start_host(&h, "65536", kind, "rw");
	start_dpu(&d, &h, h.hex, 0, "import", "read", h.sum, "wait", "read", h.sum, "write", "3", NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "read OK");
	expect_line(&d, "waiting");
	kill_host(&h);
	usleep(5000); /* importers learn of a death within 1 ms (ferry_link_peer_alive_cached) */
	say(&d, "go\n");
	expect_line(&d, "read DOCA_ERROR_BAD_STATE");
	expect_line(&d, "write DOCA_ERROR_BAD_STATE");
	dpu_done(&d);
	expect_import(&h, h.hex, "import DOCA_ERROR_NOT_FOUND");
}

static void test_exporter_sigkilled(void **state)
{
	(void)state;
	exporter_sigkilled("shared");
}

static void test_exporter_stopped_mmap(void **state)
{
	struct host h;
	struct proc d;

	(void)state;
	start_host(&h, "65536", "shared", "rw");
	start_dpu(&d, &h, h.hex, 0, "import", "wait", "read", h.sum, NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "waiting");
	say(&h.p, "stop\n");
	expect_line(&h.p, "stopped DOCA_SUCCESS");
	say(&d, "go\n");
	expect_line(&d, "read DOCA_ERROR_BAD_STATE");
	dpu_done(&d);
	expect_import(&h, h.hex, "import DOCA_ERROR_NOT_FOUND");
	stop_host(&h);
}

static void test_cma_both_ways(void **state)
{
	struct host h;
	struct proc d;
	char line[LINE_MAX_LEN], sum[64];

	(void)state;
	start_host(&h, "4194401", "malloc", "rw");
	start_dpu(&d, &h, h.hex, CMA_IMPORTER, "import", "read", h.sum, "outside", "selfcopy", "gatherout", "write",
		  "42", NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "read OK");
	expect_line(&d, "outside DOCA_ERROR_INVALID_VALUE DOCA_ERROR_INVALID_VALUE DOCA_ERROR_INVALID_VALUE");
	expect_line(&d, "selfcopy OK");
	/* Every piece is checked before any is written. */
	expect_line(&d, "gatherout DOCA_ERROR_INVALID_VALUE 0");
	read_line(&d, line, sizeof(line));
	assert_int_equal(sscanf(line, "write OK %63s", sum), 1);
	dpu_done(&d);
	expect_host_sum(&h, sum);
	stop_host(&h);
}

/* One gathered write of 64 uneven pieces, last first, lands exactly the bytes a single write would. */
static void test_cma_gather(void **state)
{
	struct host h;
	struct proc d;
	char line[LINE_MAX_LEN], sum[64];

	(void)state;
	start_host(&h, "1048583", "malloc", "rw");
	start_dpu(&d, &h, h.hex, CMA_IMPORTER, "import", "gather", "7", NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	read_line(&d, line, sizeof(line));
	assert_int_equal(sscanf(line, "gather OK %63s", sum), 1);
	dpu_done(&d);
	expect_host_sum(&h, sum);
	stop_host(&h);
}

static void test_cma_read_only_and_revoked(void **state)
{
	struct host h;
	struct proc d;

	(void)state;
	start_host(&h, "65536", "malloc", "ro");
	start_dpu(&d, &h, h.hex, CMA_IMPORTER, "import", "read", h.sum, "write", "1", "wait", "read", h.sum, NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "read OK");
	expect_line(&d, "write DOCA_ERROR_NOT_PERMITTED");
	expect_line(&d, "waiting");
	say(&h.p, "stop\n");
	expect_line(&h.p, "stopped DOCA_SUCCESS");
	say(&d, "go\n");
	expect_line(&d, "read DOCA_ERROR_NOT_CONNECTED");
	dpu_done(&d);
	stop_host(&h);
}

static void test_cma_exporter_sigkilled(void **state)
{
	struct host h;
	struct proc d;

	(void)state;
	start_host(&h, "65536", "malloc", "rw");
	start_dpu(&d, &h, h.hex, CMA_IMPORTER, "import", "wait", "read", h.sum, "write", "2", NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "waiting");
	kill_host(&h);
	say(&d, "go\n");
	expect_line(&d, "read DOCA_ERROR_NOT_CONNECTED");
	expect_line(&d, "write DOCA_ERROR_NOT_CONNECTED");
	dpu_done(&d);
}

/* Ordinary (malloc) host memory: DOCA DMA through cross-memory attach, both ways. */
static void test_malloc_dma_both_ways(void **state)
{
	(void)state;
	dma_both_ways("malloc", "1000003", "4321");
}

/*
 * The DPU imports ordinary host memory before it creates its DMA context:
 * DOCA allows either order (the import used to be refused, NOT_SUPPORTED,
 * until the process had created a DMA context).
 */
static void test_malloc_import_before_dma(void **state)
{
	struct host h;
	struct proc d;

	(void)state;
	start_host(&h, "65537", "malloc", "rw");
	start_dpu(&d, &h, h.hex, 0, "early", "read", h.sum, NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "read OK");
	dpu_done(&d);
	stop_host(&h);
}

static void test_malloc_dma_256mib(void **state)
{
	(void)state;
	dma_both_ways("malloc", "268435456", "7");
}

static void test_malloc_dma_read_only(void **state)
{
	(void)state;
	read_only_export("malloc");
}

static void test_malloc_dma_exporter_sigkilled(void **state)
{
	(void)state;
	exporter_sigkilled("malloc");
}

/*
 * Connect to the exporter's agent as @p uid with the genuine export id and token,
 * in a child process; its exit code is the number of fds received.
 */
static int raw_request_as(const struct host *h, uid_t uid)
{
	uint8_t buf[FERRY_DESC_MAX_LEN];
	size_t len;
	struct ferry_export_desc d;
	int status = 0;

	hex_to_bytes(h->hex, buf, &len);
	assert_int_equal(ferry_export_desc_decode(buf, len, &d, NULL), DOCA_SUCCESS);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		struct link_req req = {.magic = LINK_MSG_MAGIC, .version = LINK_MSG_VERSION, .export_id = d.export_id};
		struct link_rep rep;
		union {
			char b[CMSG_SPACE(4 * sizeof(int))];
			struct cmsghdr align;
		} ctl;
		struct iovec iov = {.iov_base = &rep, .iov_len = sizeof(rep)};
		struct msghdr msg = {
			.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b)};
		int fd;

		if (uid != 0 && setuid(uid) != 0)
			_exit(100);
		memcpy(req.token, d.token, sizeof(req.token));
		memcpy(sa.sun_path + 1, d.agent, d.agent_len);
		fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
		if (connect(fd, (struct sockaddr *)&sa,
			    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + d.agent_len)) != 0)
			_exit(101);
		(void)send(fd, &req, sizeof(req), MSG_NOSIGNAL);
		if (recvmsg(fd, &msg, 0) <= 0)
			_exit(0);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		_exit(c == NULL ? 0 : (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int)));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Can @p uid execute link_dpu and load its libraries? (It answers 2 to no arguments.) */
static bool can_run_as(uid_t uid)
{
	int status = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char *argv[] = {ARG(dpu_exe), NULL};
		int devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 2);
		if (setuid(uid) != 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 2;
}

/* Copy @p from to @p to, readable and executable by everyone. */
static void copy_for_all(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	assert_int_equal(n, 0);
	close(in);
	assert_int_equal(fchmod(out, 0755), 0);
	close(out);
}

/*
 * A build directory another user cannot read (a clone under /root) would make
 * the cross-user test meaningless. Stage link_dpu and Ferry's libraries in a
 * world-readable directory with the same layout (the binary's runpath is
 * $ORIGIN/../../src) and run that copy instead. Returns the staging root.
 */
static char *stage_dpu_for_all(const char **staged_exe)
{
	static char exe[4096];
	char tmpl[] = "/tmp/ferry-xuser-XXXXXX";
	char path[4096], libdir[4096];
	char *root = mkdtemp(tmpl);
	DIR *dir;
	struct dirent *e;

	assert_non_null(root);
	root = strdup(root);
	assert_int_equal(chmod(root, 0755), 0);
	snprintf(path, sizeof(path), "%s/tests", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/tests/link", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/src", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(exe, sizeof(exe), "%s/tests/link/link_dpu", root);
	copy_for_all(dpu_exe, exe);
	snprintf(libdir, sizeof(libdir), "%.*s/../../src", (int)(strrchr(dpu_exe, '/') - dpu_exe), dpu_exe);
	dir = opendir(libdir);
	assert_non_null(dir);
	while ((e = readdir(dir)) != NULL) {
		char from[4096 + 256];
		struct stat st;

		if (strncmp(e->d_name, "libdoca_", 8) != 0 || strstr(e->d_name, ".so") == NULL)
			continue;
		snprintf(from, sizeof(from), "%s/%s", libdir, e->d_name);
		/* The libraries (and their version links), not meson's object directories. */
		if (stat(from, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		snprintf(path, sizeof(path), "%s/src/%s", root, e->d_name);
		copy_for_all(from, path);
	}
	closedir(dir);
	*staged_exe = exe;
	return root;
}

static void test_another_user(void **state)
{
	struct host h;
	struct proc d;
	char hex[2 * FERRY_DESC_MAX_LEN + 1];
	const char *build_exe = dpu_exe;
	char *staged = NULL;

	(void)state;
	/* The suite runs as root (scripts/ferry.sh, CI), so not being root is a failure here, not a skip. */
	if (geteuid() != 0)
		fail_msg("needs root, to run a process as uid 65534: run the suite as root");
	if (!can_run_as(65534))
		staged = stage_dpu_for_all(&dpu_exe);
	/* Root can always arrange it: not running here would hide the security test. */
	assert_true(can_run_as(65534));
	start_host(&h, "65536", "shared", "rw");
	/* The genuine descriptor in another user's hands: refused by uid. */
	start_dpu(&d, &h, h.hex, 65534, "import", NULL);
	expect_line(&d, "import DOCA_ERROR_NOT_PERMITTED");
	dpu_done(&d);
	/* Forged to claim that user: the importer sees the agent runs as someone else (SO_PEERCRED). */
	forge(&h, edit_to_nobody, hex);
	start_dpu(&d, &h, hex, 65534, "import", NULL);
	expect_line(&d, "import DOCA_ERROR_NOT_PERMITTED");
	dpu_done(&d);
	/* A hand-made client bypassing the library: the agent itself gives it nothing. */
	assert_int_equal(raw_request_as(&h, 65534), 0);
	/* The same hand-made request from the right user gets the fds: the check above is real. */
	assert_int_equal(raw_request_as(&h, 0), 2);
	stop_host(&h);
	dpu_exe = build_exe;
	if (staged != NULL) {
		char cmd[4200];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", staged);
		assert_int_equal(system(cmd), 0);
		free(staged);
	}
}

/* ---- the network access path (FERRY_LINK_NET=always: both sides, over 127.0.0.1) ---- */

static int net_setup(void **state)
{
	setenv("FERRY_LINK_NET", "always", 1);
	setenv("FERRY_LINK_NET_TIMEOUT_MS", "1500", 1);
	return setup(state);
}

static int net_teardown(void **state)
{
	unsetenv("FERRY_LINK_NET");
	unsetenv("FERRY_LINK_NET_TIMEOUT_MS");
	return teardown(state);
}

static void edit_net_port(struct ferry_export_desc *d)
{
	d->net_port = 1; /* tcpmux: nobody listens on it here */
}

static void edit_len(struct ferry_export_desc *d)
{
	d->len += 4096;
}

static void test_net_both_ways(void **state)
{
	(void)state;
	dma_both_ways("malloc", "1000003", "99");
	dma_both_ways("shared", "4194304", "5");
	dma_both_ways("malloc", "67108864", "7"); /* 256 chunks of 256 KiB, 8 in flight */
}

/*
 * Only the network path can reach an export whose agent name is a lie: with
 * FERRY_LINK_NET=always the import never asks the agent, and works; with
 * =never it must, and fails. So the copies above did cross the network path.
 */
static void test_net_only_path(void **state)
{
	struct host h;
	char hex[2 * FERRY_DESC_MAX_LEN + 64];

	(void)state;
	start_host(&h, "65536", "malloc", "rw");
	forge(&h, edit_agent, hex);
	struct proc d;
	start_dpu(&d, &h, hex, 0, "import", "read", h.sum, NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "read OK");
	dpu_done(&d);
	setenv("FERRY_LINK_NET", "never", 1);
	expect_import(&h, hex, "import DOCA_ERROR_NOT_FOUND");
	setenv("FERRY_LINK_NET", "always", 1);
	stop_host(&h);
}

static void test_net_read_only(void **state)
{
	(void)state;
	read_only_export("malloc");
}

static void test_net_bad_descriptors(void **state)
{
	struct host h;
	char hex[2 * FERRY_DESC_MAX_LEN + 64];

	(void)state;
	start_host(&h, "65536", "malloc", "rw");
	forge(&h, edit_token, hex);
	expect_import(&h, hex, "import DOCA_ERROR_NOT_PERMITTED");
	forge(&h, edit_export_id, hex);
	expect_import(&h, hex, "import DOCA_ERROR_NOT_FOUND");
	forge(&h, edit_machine, hex);
	expect_import(&h, hex, "import DOCA_ERROR_INVALID_VALUE");
	forge(&h, edit_len, hex);
	expect_import(&h, hex, "import DOCA_ERROR_NOT_PERMITTED"); /* the server's range is the authority */
	forge(&h, edit_net_port, hex);
	expect_import(&h, hex, "import DOCA_ERROR_CONNECTION_ABORTED");
	/* Another boot, user or incarnation does not matter across machines: the token does. */
	forge(&h, edit_uid, hex);
	expect_import(&h, hex, "import DOCA_SUCCESS");
	expect_import(&h, h.hex, "import DOCA_SUCCESS");
	stop_host(&h);
}

/* The exporter stops its mmap, or dies, while the DPU holds the import: later copies fail, nothing hangs. */
static void test_net_exporter_gone(void **state)
{
	struct host h;
	struct proc d;
	char line[LINE_MAX_LEN];

	(void)state;
	start_host(&h, "65536", "malloc", "rw");
	start_dpu(&d, &h, h.hex, 0, "import", "wait", "read", h.sum, "write", "3", NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "waiting");
	say(&h.p, "stop\n");
	expect_line(&h.p, "stopped DOCA_SUCCESS");
	say(&d, "go\n");
	read_line(&d, line, sizeof(line));
	assert_true(strncmp(line, "read DOCA_ERROR_", 16) == 0);
	expect_line(&d, "write DOCA_ERROR_BAD_STATE"); /* the first refusal told the import it is revoked */
	dpu_done(&d);
	expect_import(&h, h.hex, "import DOCA_ERROR_NOT_FOUND");
	stop_host(&h);

	start_host(&h, "65536", "malloc", "rw");
	start_dpu(&d, &h, h.hex, 0, "import", "read", h.sum, "wait", "read", h.sum, "write", "3", NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "read OK");
	expect_line(&d, "waiting");
	kill_host(&h);
	usleep(20000);
	say(&d, "go\n");
	read_line(&d, line, sizeof(line));
	assert_true(strncmp(line, "read DOCA_ERROR_", 16) == 0);
	read_line(&d, line, sizeof(line));
	assert_true(strncmp(line, "write DOCA_ERROR_", 17) == 0);
	dpu_done(&d);
}

/* A stopped (SIGSTOP) exporter: the copy fails after FERRY_LINK_NET_TIMEOUT_MS, not never. */
static void test_net_exporter_frozen(void **state)
{
	struct host h;
	struct proc d;
	char line[LINE_MAX_LEN];
	struct timespec t0, t1;

	(void)state;
	start_host(&h, "4194304", "malloc", "rw");
	start_dpu(&d, &h, h.hex, 0, "import", "wait", "read", h.sum, NULL);
	expect_line(&d, "import DOCA_SUCCESS");
	expect_line(&d, "waiting");
	assert_int_equal(kill(h.p.pid, SIGSTOP), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	say(&d, "go\n");
	read_line(&d, line, sizeof(line));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(strncmp(line, "read DOCA_ERROR_", 16) == 0);
	double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_true(s >= 1.4 && s < 10.0); /* FERRY_LINK_NET_TIMEOUT_MS=1500 */
	dpu_done(&d);
	assert_int_equal(kill(h.p.pid, SIGCONT), 0);
	stop_host(&h);
}

int main(void)
{
	host_exe = getenv("LINK_HOST");
	dpu_exe = getenv("LINK_DPU");
	cma_exe = getenv("LINK_CMA");
	if (host_exe == NULL || dpu_exe == NULL || cma_exe == NULL) {
		fprintf(stderr, "LINK_HOST, LINK_DPU and LINK_CMA must name the test programs\n");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	alarm(170); /* the whole run; each line also has its own timeout */

	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_shared_both_ways, setup, teardown),
		cmocka_unit_test_setup_teardown(test_256mib_by_checksum, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_imports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_only_export, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_descriptors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exporter_exited, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exporter_sigkilled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exporter_stopped_mmap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malloc_dma_both_ways, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malloc_import_before_dma, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malloc_dma_256mib, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malloc_dma_read_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malloc_dma_exporter_sigkilled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cma_both_ways, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cma_gather, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cma_read_only_and_revoked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cma_exporter_sigkilled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_another_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_both_ways, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_net_only_path, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_net_read_only, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_net_bad_descriptors, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_net_exporter_gone, net_setup, net_teardown),
		cmocka_unit_test_setup_teardown(test_net_exporter_frozen, net_setup, net_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
