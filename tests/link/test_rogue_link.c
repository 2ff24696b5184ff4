/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rogue_link.c - the link's trust boundary, attacked from the other side.
 *
 * This process is the importer (ferry_link_import_open, the call behind
 * doca_mmap_create_from_export). Its peers are:
 *  - link_exporter, an honest Ferry exporter run as a separate program, whose
 *    agent this process floods, starves of fds, stops, or hands forged
 *    descriptors (a real export's twin with a valid token and CRC but another
 *    range or permission);
 *  - a rogue agent, forked from this process, that speaks the agent protocol
 *    (link_priv.h) for a descriptor it made itself, and answers with crafted
 *    replies and fds of every wrong kind, or never answers at all;
 *  - forked children running as uid 65534 that go after root's sockets,
 *    directories and agent names.
 * Every case asserts its outcome: error code, time taken, log lines, bytes
 * left unchanged, fds and mappings left behind. A case that cannot run (no
 * root for the cross-user ones) fails; nothing here skips.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <doca_types.h>
#include <ferry_mem.h>

#include "link/export_desc_priv.h"
#include "link/ferry_export.h"
#include "link/ferry_link.h"
#include "link/ferry_access.h"
#include "link/link_priv.h"
#include "ferry_test.h"
#include "ferry_test_fds.h"
#include "xproc_common.h"

#define CALL            "test_rogue_link"
#define MACHINE         0u
#define NOBODY          65534
#define LINE_ROOM       1024
#define LINE_TIMEOUT_MS 20000
#define ARRAY_SIZE(a)   (sizeof(a) / sizeof((a)[0]))
/* Log lines a peer may write for 1000 repeats of one offence: sampled, 1st, 2nd, 4th, ... */
#define LOG_LINES_MAX   12
/* An import that the old code let block: SIGALRM (no SA_RESTART) ends it after this. */
#define SAFETY_ALARM_S  4

static const char *exporter_exe;
static size_t page;

/* ---- children: every process a test starts, killed by the teardown if the test failed ---- */

#define MAX_KIDS 16
static pid_t kids[MAX_KIDS];

static void kid_add(pid_t pid)
{
	for (size_t i = 0; i < MAX_KIDS; i++) {
		if (kids[i] == 0) {
			kids[i] = pid;
			return;
		}
	}
	fail_msg("too many children");
}

static int kid_reap(pid_t pid)
{
	int status = 0;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	for (size_t i = 0; i < MAX_KIDS; i++)
		if (kids[i] == pid)
			kids[i] = 0;
	return status;
}

static void kids_kill_all(void)
{
	for (size_t i = 0; i < MAX_KIDS; i++) {
		if (kids[i] != 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
			kids[i] = 0;
		}
	}
}

/* A forked child keeps only stdio and @p keep, so it holds none of the test's sockets. */
static void keep_only(int keep)
{
	if (keep > 3)
		close_range(3, (unsigned int)keep - 1, 0);
	close_range((unsigned int)keep + 1, ~0u, 0);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait for one byte from @p fd; false on EOF or after @p ms. */
static bool wait_byte(int fd, int ms, char *c)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms) == 1 && read(fd, c, 1) == 1;
}

/* ---- what this process holds: fds, mappings, log lines ---- */

/* Mappings of files an agent could have sent: memory files, /dev/zero, deleted files. */
static int count_peer_maps(void)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, "memfd:") != NULL || strstr(line, "/dev/zero") != NULL ||
		     strstr(line, "(deleted)") != NULL;
	fclose(f);
	return n;
}

/* Lines this process logged since ferry_test_log_reset. */
static int logged_lines(void)
{
	FILE *f = ferry_test_log_file_;
	long end;
	int n = 0;

	assert_non_null(f);
	fflush(f);
	end = ftell(f);
	rewind(f);
	for (int c = fgetc(f); c != EOF; c = fgetc(f))
		n += c == '\n';
	fseek(f, end, SEEK_SET);
	return n;
}

/* ---- touching imported memory: a SIGBUS is a failed test, not a crash ---- */

static sigjmp_buf bus_jump;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jump, 1);
}

static uint64_t sum_bytes(const volatile uint8_t *p, size_t len)
{
	uint64_t s = 0;

	for (size_t i = 0; i < len; i++)
		s = s * 31 + p[i];
	return s;
}

/* Read every byte of @p len at @p p; false when that raised SIGBUS (cmocka's handler set aside meanwhile). */
static bool touch_all(const volatile uint8_t *p, size_t len, uint64_t *sum)
{
	const volatile uint8_t *volatile at = p; /* volatile: live across sigsetjmp */
	volatile size_t n = len;
	struct sigaction bus = {.sa_handler = on_bus}, saved;
	bool ok = false;

	sigaction(SIGBUS, &bus, &saved);
	if (sigsetjmp(bus_jump, 1) == 0) {
		*sum = sum_bytes(at, n);
		ok = true;
	}
	sigaction(SIGBUS, &saved, NULL);
	return ok;
}

static void on_alarm(int sig)
{
	(void)sig; /* only there to interrupt a blocking call */
}

/* ---- descriptors ---- */

/* One export as an importer knows it: the descriptor and its decoded claims. */
struct export
{
	const char *label;
	int n; /* the exporter's number for it */
	uint8_t desc[FERRY_DESC_MAX_LEN];
	size_t desc_len;
	struct ferry_export_desc d;
	char sum[32]; /* the exporter's checksum of its bytes */
};

static void export_from_bytes(struct export *e, const char *label, const void *desc, size_t len)
{
	assert_true(len <= sizeof(e->desc));
	e->label = label;
	memcpy(e->desc, desc, len);
	e->desc_len = len;
	assert_int_equal(ferry_export_desc_decode(e->desc, len, &e->d, NULL), DOCA_SUCCESS);
}

static doca_error_t import_desc(const void *desc, size_t len, struct ferry_link_import **imp,
				struct ferry_link_view *view)
{
	return ferry_link_import_open(desc, len, MACHINE, 0, CALL, imp, view);
}

/* An import that must not take longer than the agent deadline; *secs gets how long it took. */
static doca_error_t import_timed(const void *desc, size_t len, double *secs, struct ferry_link_import **imp,
				 struct ferry_link_view *view)
{
	double t0 = now_s();
	doca_error_t err;

	alarm(SAFETY_ALARM_S);
	err = import_desc(desc, len, imp, view);
	alarm(0);
	*secs = now_s() - t0;
	return err;
}

/* The genuine descriptor imports, with the exporter's range and permission, and reads its bytes. */
static void expect_honest_import(const struct export *e, double limit_s)
{
	struct ferry_link_import *imp = NULL;
	struct ferry_link_view view;
	double secs;
	doca_error_t err = import_timed(e->desc, e->desc_len, &secs, &imp, &view);
	char sum[32];

	if (err != DOCA_SUCCESS)
		fail_msg("honest import of the %s export: %s", e->label, doca_error_get_name(err));
	if (secs > limit_s)
		fail_msg("honest import of the %s export took %.2f s (limit %.1f s)", e->label, secs, limit_s);
	assert_int_equal((uintptr_t)view.addr, e->d.addr);
	assert_int_equal(view.len, e->d.len);
	assert_int_equal(view.access, e->d.access);
	if (e->sum[0] != '\0') {
		const struct ferry_access *a = ferry_link_import_access(imp);
		const struct ferry_access *r = ferry_access_mapped(a) ? NULL : a;
		uint8_t *copy = r != NULL ? malloc(view.len) : NULL;

		/* Shared memory is mapped here; malloc'd memory is read by cross-memory attach. */
		if (r != NULL) {
			assert_non_null(copy);
			assert_int_equal(r->ops->read(r, copy, e->d.addr, view.len), DOCA_SUCCESS);
		}
		snprintf(sum, sizeof(sum), "%016llx",
			 (unsigned long long)xp_sum(r != NULL ? copy : view.local, view.len));
		free(copy);
		assert_string_equal(sum, e->sum);
	}
	ferry_link_import_close(imp);
}

/* ---- the honest exporter (link_exporter) ---- */

struct exporter {
	pid_t pid;
	int in;  /* its stdin */
	int out; /* its stdout */
	int log; /* its stderr: a file this process reads */
};

static void exporter_line(struct exporter *x, char *buf, size_t room)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = {.fd = x->out, .events = POLLIN};
		char c = 0;

		if (poll(&p, 1, LINE_TIMEOUT_MS) != 1 || read(x->out, &c, 1) != 1)
			fail_msg("link_exporter said nothing (or exited)");
		if (c == '\n')
			break;
		if (n + 1 < room)
			buf[n++] = c;
	}
	buf[n] = '\0';
}

static void exporter_say(struct exporter *x, const char *line)
{
	assert_int_equal(write(x->in, line, strlen(line)), (ssize_t)strlen(line));
}

static void exporter_expect(struct exporter *x, const char *want)
{
	char line[LINE_ROOM];

	exporter_line(x, line, sizeof(line));
	if (strncmp(line, want, strlen(want)) != 0)
		fail_msg("link_exporter: expected '%s', got '%s'", want, line);
}

static void exporter_start(struct exporter *x)
{
	char line[LINE_ROOM];
	int in[2], out[2];
	int pid = 0;

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	x->log = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	assert_true(x->log >= 0);
	x->pid = fork();
	assert_true(x->pid >= 0);
	if (x->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(x->log, 2);
		execl(exporter_exe, exporter_exe, (char *)NULL);
		_exit(127);
	}
	kid_add(x->pid);
	close(in[0]);
	close(out[1]);
	x->in = in[1];
	x->out = out[0];
	exporter_line(x, line, sizeof(line));
	assert_int_equal(sscanf(line, "ready %d", &pid), 1);
	assert_int_equal(pid, x->pid);
}

static void exporter_export(struct exporter *x, const char *kind, size_t bytes, const char *perm, struct export *e,
			    const char *label)
{
	char cmd[128], line[LINE_ROOM], hex[2 * FERRY_DESC_MAX_LEN + 1];
	uint8_t desc[FERRY_DESC_MAX_LEN];
	size_t len;

	snprintf(cmd, sizeof(cmd), "export %s %zu %s\n", kind, bytes, perm);
	exporter_say(x, cmd);
	exporter_line(x, line, sizeof(line));
	if (sscanf(line, "export %d %414s %*s %*s %31s", &e->n, hex, e->sum) != 3)
		fail_msg("link_exporter could not export %s %s memory: %s", perm, kind, line);
	len = strlen(hex) / 2;
	for (size_t i = 0; i < len; i++) {
		unsigned int v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		desc[i] = (uint8_t)v;
	}
	export_from_bytes(e, label, desc, len);
}

static void exporter_sum(struct exporter *x, const struct export *e, char *out, size_t room)
{
	char cmd[32], line[LINE_ROOM];

	snprintf(cmd, sizeof(cmd), "sum %d\n", e->n);
	exporter_say(x, cmd);
	exporter_line(x, line, sizeof(line));
	assert_int_equal(sscanf(line, "sum %31s", out), 1);
	assert_true(strlen(out) < room);
}

/* Lines in the exporter's stderr, or those holding @p needle. */
static int exporter_log_lines(struct exporter *x, const char *needle)
{
	FILE *f = fdopen(dup(x->log), "r");
	char *line = NULL;
	size_t room = 0;
	int lines = 0;

	assert_non_null(f);
	rewind(f);
	while (getline(&line, &room, f) >= 0)
		lines += needle == NULL || strstr(line, needle) != NULL;
	free(line);
	fclose(f);
	return lines;
}

static void exporter_stop(struct exporter *x)
{
	exporter_say(x, "exit\n");
	close(x->in);
	close(x->out);
	int status = kid_reap(x->pid);
	close(x->log);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- a hand-made client of an agent ---- */

static int connect_agent(const struct ferry_export_desc *d, bool nonblock)
{
	struct ferry_link_addr a;
	int fd;

	assert_int_equal(ferry_link_abstract_addr(&a, d->agent), DOCA_SUCCESS);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)&a.sun, a.len) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

#define RAW_NO_CONNECT (-1)
#define RAW_NO_REPLY   (-2)

/*
 * Ask @p d's agent for its export with @p token, bypassing the library.
 * Returns the reply's size (0: the agent hung up), RAW_NO_CONNECT or
 * RAW_NO_REPLY (nothing within 2 s); the fds that came along go to @p fds.
 * Runs in children too: no cmocka assertion past the address.
 */
static ssize_t raw_ask(const struct ferry_export_desc *d, const uint8_t *token, struct link_rep *rep, int fds[4],
		       int *nfds)
{
	struct link_req req = {.magic = LINK_MSG_MAGIC, .version = LINK_MSG_VERSION, .export_id = d->export_id};
	struct timeval tv = {.tv_sec = 2};
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = rep, .iov_len = sizeof(*rep)};
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
	int fd = connect_agent(d, false);
	ssize_t n;

	*nfds = 0;
	if (fd < 0)
		return RAW_NO_CONNECT;
	memcpy(req.token, token, sizeof(req.token));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = send(fd, &req, sizeof(req), MSG_NOSIGNAL);
	if (n == (ssize_t)sizeof(req))
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
	close(fd);
	/* An agent that closes without reading leaves EPIPE or ECONNRESET: it hung up. */
	if (n < 0)
		return errno == EPIPE || errno == ECONNRESET ? 0 : RAW_NO_REPLY;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k && *nfds < 4; i++)
			memcpy(&fds[(*nfds)++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
	}
	return n;
}

/* ---- children running as uid 65534 ---- */

#define NOBODY_CANNOT 125 /* exit code: setuid to 65534 failed */

typedef int (*nobody_fn)(const void *arg, int ctl);

/* Fork a child that drops to uid 65534 and runs @p fn; *ctl talks to it. */
static pid_t nobody_start(nobody_fn fn, const void *arg, int *ctl)
{
	int sv[2];
	pid_t pid;

	if (geteuid() != 0)
		fail_msg("the cross-user cases need root, to run a process as uid %d", NOBODY);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		keep_only(sv[1]);
		if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0 || getuid() != NOBODY ||
		    geteuid() != NOBODY)
			_exit(NOBODY_CANNOT);
		_exit(fn(arg, sv[1]));
	}
	kid_add(pid);
	close(sv[1]);
	*ctl = sv[0];
	return pid;
}

/* Its exit code (the child's verdict). */
static int nobody_finish(pid_t pid, int ctl)
{
	close(ctl);
	int status = kid_reap(pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == NOBODY_CANNOT)
		fail_msg("cannot run a process as uid %d here: the cross-user case did not run", NOBODY);
	return WEXITSTATUS(status);
}

static int as_nobody(nobody_fn fn, const void *arg)
{
	int ctl;
	pid_t pid = nobody_start(fn, arg, &ctl);

	return nobody_finish(pid, ctl);
}

/* ---- fixtures ---- */

static int domain_counter;

static int setup(void **state)
{
	char domain[64];

	(void)state;
	snprintf(domain, sizeof(domain), "rogue-%d-%d", (int)getpid(), ++domain_counter);
	setenv("FERRY_DOMAIN", domain, 1);
	unsetenv("FERRY_LINK_AGENT_TIMEOUT_MS");
	ferry_test_log_reset();
	return 0;
}

static bool tmp_squatted;   /* /tmp/ferry-0 was made by uid 65534 in this run */
static char made_dir[4096]; /* root's runtime directory of the test's domain, once used */

/* Note the domain's runtime directory for the teardown (creating it, as a Comch server would). */
static void runtime_dir(char *out, size_t room)
{
	assert_int_equal(ferry_link_domain_dir(getenv("FERRY_DOMAIN"), out, room), DOCA_SUCCESS);
	snprintf(made_dir, sizeof(made_dir), "%s", out);
}

/* Remove @p path and what is in it (socket and lock files; no subfolders). */
static void remove_dir(const char *path)
{
	DIR *dir = opendir(path);

	if (dir == NULL)
		return;
	for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir))
		if (e->d_name[0] != '.')
			(void)unlinkat(dirfd(dir), e->d_name, 0);
	closedir(dir);
	(void)rmdir(path);
}

static int teardown(void **state)
{
	struct stat st;

	(void)state;
	kids_kill_all();
	alarm(0);
	if (made_dir[0] != '\0')
		remove_dir(made_dir);
	made_dir[0] = '\0';
	if (tmp_squatted) {
		char sub[4200];

		snprintf(sub, sizeof(sub), "/tmp/ferry-0/%s", getenv("FERRY_DOMAIN"));
		remove_dir(sub);
		if (stat("/tmp/ferry-0", &st) == 0 && st.st_uid == NOBODY)
			remove_dir("/tmp/ferry-0");
		tmp_squatted = false;
	}
	return 0;
}

/* ==== 1. forged twins: a real export's descriptor, valid token and CRC, other claims ==== */

typedef void (*edit_fn)(struct ferry_export_desc *d);

static void edit_longer(struct ferry_export_desc *d)
{
	d->len += page;
}

static void edit_moved_up(struct ferry_export_desc *d)
{
	d->addr += page;
}

static void edit_moved_down(struct ferry_export_desc *d)
{
	d->addr -= 64;
	d->len += 64;
}

static void edit_writable(struct ferry_export_desc *d)
{
	d->access = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
}

static const struct forgery {
	const char *name;
	edit_fn edit;
	bool read_only_only; /* meaningful for a read-only export only */
} forgeries[] = {
	{"one page longer", edit_longer, false},
	{"one page further up", edit_moved_up, false},
	{"starting 64 bytes earlier", edit_moved_down, false},
	{"read-only flipped to read-write", edit_writable, true},
};

/* Every forged twin of @p e is refused NOT_PERMITTED and maps nothing, leaks nothing. */
static void expect_twins_refused(const struct export *e)
{
	for (size_t i = 0; i < ARRAY_SIZE(forgeries); i++) {
		const struct forgery *f = &forgeries[i];
		struct ferry_export_desc d = e->d;
		uint8_t desc[FERRY_DESC_MAX_LEN];
		struct ferry_link_import *imp = NULL;
		struct ferry_link_view view;

		if (f->read_only_only && e->d.access != DOCA_ACCESS_FLAG_PCI_READ_ONLY)
			continue;
		f->edit(&d);
		size_t len = ferry_export_desc_encode(&d, desc, sizeof(desc));
		assert_true(len > 0);
		int fds = ferry_test_count_fds(), maps = count_peer_maps();
		doca_error_t err = import_desc(desc, len, &imp, &view);
		if (err == DOCA_SUCCESS) {
			size_t got = view.len;
			ferry_link_import_close(imp);
			fail_msg("forged twin of the %s export (%s) was accepted: %zu bytes at %p", e->label, f->name,
				 got, view.addr);
		}
		if (err != DOCA_ERROR_NOT_PERMITTED)
			fail_msg("forged twin of the %s export (%s): %s, want DOCA_ERROR_NOT_PERMITTED", e->label,
				 f->name, doca_error_get_name(err));
		assert_int_equal(ferry_test_count_fds(), fds);
		assert_int_equal(count_peer_maps(), maps);
	}
}

#define TWIN_BYTES (3 * 4096 - 100) /* not whole pages: the last page is partly outside */

static void export_four(struct exporter *x, struct export e[4])
{
	exporter_export(x, "shared", TWIN_BYTES, "rw", &e[0], "shared read-write");
	exporter_export(x, "shared", TWIN_BYTES, "ro", &e[1], "shared read-only");
	exporter_export(x, "malloc", TWIN_BYTES, "rw", &e[2], "malloc read-write");
	exporter_export(x, "malloc", TWIN_BYTES, "ro", &e[3], "malloc read-only");
}

static void test_forged_twins(void **state)
{
	struct exporter x;
	struct export e[4];

	(void)state;
	exporter_start(&x);
	export_four(&x, e);
	for (int i = 0; i < 4; i++)
		expect_twins_refused(&e[i]);
	/* The genuine descriptors still import: the refusals above were for the lies. */
	for (int i = 0; i < 4; i++)
		expect_honest_import(&e[i], 2.0);
	exporter_stop(&x);
}

/* A twin arriving while the genuine export is imported must not ride on its mapping. */
static void test_forged_twins_after_honest_import(void **state)
{
	struct exporter x;
	struct export e[4];

	(void)state;
	exporter_start(&x);
	export_four(&x, e);
	for (int i = 0; i < 4; i++) {
		struct ferry_link_import *imp = NULL;
		struct ferry_link_view view;

		assert_int_equal(import_desc(e[i].desc, e[i].desc_len, &imp, &view), DOCA_SUCCESS);
		expect_twins_refused(&e[i]);
		assert_int_equal(view.len, e[i].d.len);
		assert_true(ferry_link_import_alive(imp));
		ferry_link_import_close(imp);
	}
	exporter_stop(&x);
}

/* An import of this process's own export is answered by its own table: the same rules. */
static void test_forged_twins_self_import(void **state)
{
	static const char *labels[4] = {"own shared read-write", "own shared read-only", "own malloc read-write",
					"own malloc read-only"};
	uint8_t *shared = ferry_mem_alloc_shared(TWIN_BYTES);
	uint8_t *plain = malloc(TWIN_BYTES);
	struct ferry_link_export *exp[4];
	struct export e[4];

	(void)state;
	assert_non_null(shared);
	assert_non_null(plain);
	xp_fill(shared, TWIN_BYTES, 11);
	xp_fill(plain, TWIN_BYTES, 12);
	for (int i = 0; i < 4; i++) {
		const void *desc;
		size_t len;

		assert_int_equal(
			ferry_link_export_open(i < 2 ? shared : plain, TWIN_BYTES,
					       i % 2 ? DOCA_ACCESS_FLAG_PCI_READ_ONLY : DOCA_ACCESS_FLAG_PCI_READ_WRITE,
					       MACHINE, NULL, CALL, &exp[i]),
			DOCA_SUCCESS);
		ferry_link_export_desc(exp[i], &desc, &len);
		export_from_bytes(&e[i], labels[i], desc, len);
		snprintf(e[i].sum, sizeof(e[i].sum), "%016llx",
			 (unsigned long long)xp_sum(i < 2 ? shared : plain, TWIN_BYTES));
	}
	for (int i = 0; i < 4; i++)
		expect_twins_refused(&e[i]);
	for (int i = 0; i < 4; i++) {
		expect_honest_import(&e[i], 2.0);
		ferry_link_export_close(exp[i]);
	}
	assert_int_equal(ferry_mem_free_shared(shared), 0);
	free(plain);
}

/* ==== 2. a read-only export's fds stay read-only, even reopened read-write ==== */

/*
 * Reopen @p fd read-write through /proc/self/fd and try every way to change
 * the file at [@p off, @p off + @p len): a writable shared mapping, a read-only
 * one made writable, write, pwrite, punching a hole, truncating. Each must fail.
 */
static void attack_fd(int fd, off_t off, size_t len, const void *payload, size_t payload_len, const char *what)
{
	char path[64];
	int rw;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rw = open(path, O_RDWR | O_CLOEXEC);
	if (rw < 0)
		fail_msg("cannot reopen the %s fd read-write (%s): the attack needs that much", what, strerror(errno));
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, rw, off);
	bool mapped = p != MAP_FAILED;
	if (mapped) {
		memcpy(p, payload, payload_len);
		munmap(p, len);
	}
	bool upgraded = false;
	void *q = mmap(NULL, len, PROT_READ, MAP_SHARED, rw, off);
	if (q != MAP_FAILED) {
		upgraded = mprotect(q, len, PROT_READ | PROT_WRITE) == 0;
		if (upgraded)
			memcpy(q, payload, payload_len);
		munmap(q, len);
	}
	ssize_t w = write(rw, payload, payload_len);
	ssize_t pw = pwrite(rw, payload, payload_len, off);
	int punched = fallocate(rw, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, (off_t)page);
	int cut = ftruncate(rw, 0);
	close(rw);
	if (mapped || upgraded || w >= 0 || pw >= 0 || punched == 0 || cut == 0)
		fail_msg("the %s fd of a read-only export, reopened read-write, changed the file: writable map %d, "
			 "mprotect %d, write %zd, pwrite %zd, hole punched %d, truncated %d",
			 what, mapped, upgraded, w, pw, punched == 0, cut == 0);
}

static void test_read_only_fds(void **state)
{
	struct exporter x;
	struct export e;
	struct link_rep rep;
	struct ferry_link_import *imp = NULL;
	struct ferry_link_view view;
	int fds[4], nfds;
	uint8_t junk[64];
	uint32_t live = LINK_STATE_LIVE;
	char sum[32];

	(void)state;
	memset(junk, 0xa5, sizeof(junk));
	exporter_start(&x);
	exporter_export(&x, "shared", 3 * page, "ro", &e, "shared read-only");
	assert_int_equal(import_desc(e.desc, e.desc_len, &imp, &view), DOCA_SUCCESS);
	/* What any importer of the same user receives from the agent. */
	assert_int_equal(raw_ask(&e.d, e.d.token, &rep, fds, &nfds), (ssize_t)sizeof(rep));
	assert_int_equal(rep.status, DOCA_SUCCESS);
	assert_int_equal(nfds, 2);
	attack_fd(fds[1], (off_t)rep.mem_off, (size_t)rep.map_len, junk, sizeof(junk), "memory");
	exporter_sum(&x, &e, sum, sizeof(sum));
	assert_string_equal(sum, e.sum);
	/* The state page: once revoked, no importer can write "live" back. */
	const volatile uint32_t *word = mmap(NULL, page, PROT_READ, MAP_SHARED, fds[0], 0);
	assert_true(word != MAP_FAILED);
	assert_int_equal(*word, LINK_STATE_LIVE);
	char cmd[32];
	snprintf(cmd, sizeof(cmd), "close %d\n", e.n);
	exporter_say(&x, cmd);
	exporter_expect(&x, "closed");
	assert_int_equal(*word, LINK_STATE_REVOKED);
	attack_fd(fds[0], 0, page, &live, sizeof(live), "state page");
	assert_int_equal(*word, LINK_STATE_REVOKED);
	assert_false(ferry_link_import_alive(imp));
	munmap((void *)(uintptr_t)word, page);
	ferry_link_import_close(imp);
	for (int i = 0; i < nfds; i++)
		close(fds[i]);
	exporter_stop(&x);
}

/* ==== 3. a rogue agent: crafted replies and fds ==== */

enum rogue_kind {
	R_GOOD,        /* a correct reply: the control case */
	R_UNSEALED,    /* memory file without seals */
	R_SHRINKABLE,  /* sealed, but not against shrinking: truncated after the import */
	R_SMALL,       /* memory file shorter than mem_off + map_len */
	R_PIPE,        /* a pipe instead of a memory file */
	R_DEVZERO,     /* /dev/zero */
	R_DISK_FILE,   /* a regular file on disk */
	R_STATE_PIPE,  /* the state page is a pipe */
	R_STATE_EMPTY, /* the state page is an empty (sealed) memory file */
	R_NO_FDS,      /* success without fds */
	R_THREE_FDS,   /* one fd more than the protocol has */
	R_FIVE_FDS,    /* more than the importer makes room for */
	R_SHORT,       /* reply 8 bytes short */
	R_LONG,        /* reply 8 bytes long */
	R_BAD_MAGIC,
	R_PAGES_MISS,   /* map_base/map_len elsewhere than the range */
	R_PAGES_MORE,   /* one page more than the range needs */
	R_ODD_STATUS,   /* a status that is no DOCA error, fds attached */
	R_NEVER_ACCEPT, /* listens, never accepts */
	R_SILENT,       /* accepts, reads the request, never answers */
	R_BACKLOG_FULL, /* its listen backlog is full */
};

#define ROGUE_MAP_PAGES 3u
#define ROGUE_OFF_PAGES 1u
#define ROGUE_HEAD      0x100u /* the range starts this far into its first page */
#define ROGUE_SEED      77u

/* Where the rogue claims its range is; the same in both processes. */
struct rogue_geom {
	uint64_t base; /* page-aligned; free in this process */
	uint64_t addr;
	uint64_t len;
};

struct rogue {
	pid_t pid;
	int ctl; /* 'g': truncate now (answered 't'); EOF: exit */
	struct rogue_geom g;
	struct export e;
};

static void rogue_pattern(uint8_t *buf, size_t len)
{
	xp_fill(buf, len, ROGUE_SEED);
}

/* A memory file of @p size bytes holding the rogue's pattern, with @p seals. */
static int rogue_memfd(size_t size, unsigned int seals, bool sealable)
{
	int fd = memfd_create("rogue", MFD_CLOEXEC | (sealable ? MFD_ALLOW_SEALING : 0));
	uint8_t *buf = malloc(size + 1);

	if (fd < 0 || buf == NULL || ftruncate(fd, (off_t)size) != 0)
		_exit(3);
	rogue_pattern(buf, size);
	if (size > 0 && pwrite(fd, buf, size, 0) != (ssize_t)size)
		_exit(3);
	free(buf);
	if (seals != 0 && fcntl(fd, F_ADD_SEALS, seals) != 0)
		_exit(3);
	return fd;
}

static int rogue_state_page(void)
{
	int fd = memfd_create("rogue-state", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	uint32_t live = LINK_STATE_LIVE;

	if (fd < 0 || ftruncate(fd, (off_t)page) != 0 || pwrite(fd, &live, sizeof(live), 0) != sizeof(live) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
		_exit(3);
	return fd;
}

/* The fd the rogue passes off as memory, and how the reply lies about it. */
static int rogue_mem(enum rogue_kind kind, struct link_rep *rep)
{
	size_t size = (ROGUE_OFF_PAGES + ROGUE_MAP_PAGES) * page;
	int p[2], fd;

	switch (kind) {
	case R_UNSEALED:
		return rogue_memfd(size, 0, false);
	case R_SHRINKABLE:
		return rogue_memfd(size, F_SEAL_GROW, true);
	case R_SMALL:
		return rogue_memfd(size - page, F_SEAL_SHRINK | F_SEAL_GROW, true);
	case R_PIPE:
		if (pipe2(p, O_CLOEXEC) != 0)
			_exit(3);
		return p[0];
	case R_DEVZERO:
		return open("/dev/zero", O_RDWR | O_CLOEXEC);
	case R_DISK_FILE:
		fd = open("/var/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
			_exit(3);
		return fd;
	case R_PAGES_MISS:
		rep->map_base += 16 * page;
		break;
	case R_PAGES_MORE:
		rep->map_len += page;
		size += page;
		break;
	default:
		break;
	}
	return rogue_memfd(size, F_SEAL_SHRINK | F_SEAL_GROW, true);
}

/* One datagram of @p len bytes with @p nfds fds (at most 5) riding along. */
static void rogue_send(int conn, const void *bytes, size_t len, const int *fds, int nfds)
{
	union {
		char buf[CMSG_SPACE(5 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = (void *)(uintptr_t)bytes, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	if (nfds > 0) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	}
	if (sendmsg(conn, &msg, MSG_NOSIGNAL) != (ssize_t)len)
		_exit(4);
}

/* Answer one request the way @p kind says; returns the memory fd (kept for R_SHRINKABLE). */
static int rogue_answer(int conn, enum rogue_kind kind, const struct rogue_geom *g)
{
	struct link_rep rep = {
		.magic = LINK_MSG_MAGIC,
		.status = DOCA_SUCCESS,
		.map_base = g->base,
		.map_len = ROGUE_MAP_PAGES * page,
		.mem_off = ROGUE_OFF_PAGES * page,
	};
	uint8_t bytes[sizeof(rep) + 8] = {0};
	size_t len = sizeof(rep);
	int fds[5], nfds = 2;

#if LINK_MSG_VERSION >= 2
	rep.addr = g->addr;
	rep.len = g->len;
	rep.access = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
#endif
	fds[0] = kind == R_STATE_EMPTY ? rogue_memfd(0, F_SEAL_SHRINK | F_SEAL_GROW, true) : rogue_state_page();
	fds[1] = rogue_mem(kind, &rep);
	if (kind == R_STATE_PIPE) {
		int p[2];

		if (pipe2(p, O_CLOEXEC) != 0)
			_exit(3);
		fds[0] = p[0];
	}
	if (kind == R_THREE_FDS || kind == R_FIVE_FDS) {
		nfds = kind == R_THREE_FDS ? 3 : 5;
		for (int i = 2; i < nfds; i++)
			fds[i] = rogue_memfd(page, F_SEAL_SHRINK | F_SEAL_GROW, true);
	}
	if (kind == R_NO_FDS)
		nfds = 0;
	if (kind == R_SHORT)
		len -= 8;
	if (kind == R_LONG)
		len += 8;
	if (kind == R_BAD_MAGIC)
		rep.magic ^= 0x01000000u;
	if (kind == R_ODD_STATUS)
		rep.status = 4242;
	memcpy(bytes, &rep, sizeof(rep));
	rogue_send(conn, bytes, len, fds, nfds);
	return fds[1];
}

/* Wait for the test's 'g' (truncate @p mem, say 't') or EOF; then exit. */
static void rogue_linger(int ctl, int mem)
{
	char c;

	while (read(ctl, &c, 1) == 1) {
		if (c == 'g' && mem >= 0 && ftruncate(mem, 0) != 0)
			_exit(5);
		if (write(ctl, "t", 1) != 1)
			_exit(5);
	}
	_exit(0);
}

/* The rogue agent's process: no cmocka here, its exit code says what went wrong. */
static void rogue_main(enum rogue_kind kind, const struct ferry_link_addr *addr, const struct rogue_geom *g, int ctl)
{
	int lfd, mem = -1;

	keep_only(ctl);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (const struct sockaddr *)&addr->sun, addr->len) != 0 ||
	    listen(lfd, kind == R_BACKLOG_FULL ? 0 : 16) != 0)
		_exit(2);
	if (kind == R_BACKLOG_FULL) {
		/* Fill the backlog with our own connections until the kernel says EAGAIN. */
		for (int i = 0; i < 64; i++) {
			int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
			if (connect(s, (const struct sockaddr *)&addr->sun, addr->len) != 0) {
				if (errno != EAGAIN)
					_exit(6);
				close(s);
				break;
			}
		}
	}
	if (write(ctl, "r", 1) != 1)
		_exit(2);
	if (kind != R_NEVER_ACCEPT && kind != R_BACKLOG_FULL) {
		struct pollfd p[2] = {{.fd = lfd, .events = POLLIN}, {.fd = ctl, .events = POLLIN}};
		struct link_req req;

		/* The test may end before any import reaches us (then ctl reads EOF). */
		if (poll(p, 2, -1) < 0 || (p[0].revents & POLLIN) == 0)
			_exit(0);
		int conn = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (conn < 0 || recv(conn, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
			_exit(7);
		if (kind != R_SILENT)
			mem = rogue_answer(conn, kind, g);
	}
	rogue_linger(ctl, kind == R_SHRINKABLE ? mem : -1);
}

static int rogue_counter;

static void rogue_start(struct rogue *r, enum rogue_kind kind)
{
	struct ferry_export_desc d;
	struct ferry_link_addr addr;
	char name[64];
	uint8_t desc[FERRY_DESC_MAX_LEN];
	int sv[2];
	char c;

	/* A page-aligned place that is free here, for the rogue's "exporter addresses". */
	void *hole = mmap(NULL, 8 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(hole != MAP_FAILED);
	munmap(hole, 8 * page);
	r->g.base = (uintptr_t)hole + page;
	r->g.addr = r->g.base + ROGUE_HEAD;
	r->g.len = (ROGUE_MAP_PAGES - 1) * page; /* with the head, it spans ROGUE_MAP_PAGES pages */
	snprintf(name, sizeof(name), "ferry-rogue-%d-%d", (int)getpid(), ++rogue_counter);
	assert_int_equal(ferry_link_abstract_addr(&addr, name), DOCA_SUCCESS);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	r->pid = fork();
	assert_true(r->pid >= 0);
	if (r->pid == 0) {
		close(sv[0]);
		rogue_main(kind, &addr, &r->g, sv[1]);
	}
	kid_add(r->pid);
	close(sv[1]);
	r->ctl = sv[0];
	assert_true(wait_byte(r->ctl, LINE_TIMEOUT_MS, &c));
	/* Its descriptor names itself, truthfully: only its answers lie. */
	memset(&d, 0, sizeof(d));
	d.version = FERRY_DESC_VERSION;
	d.hints = FERRY_DESC_HINT_SHAREABLE | FERRY_DESC_HINT_CMA;
	assert_int_equal(ferry_link_boot_id(d.boot_id), DOCA_SUCCESS);
	d.pid = (uint32_t)r->pid;
	d.uid = (uint32_t)getuid();
	assert_int_equal(ferry_link_pid_start_time(r->pid, &d.start_time), DOCA_SUCCESS);
	d.export_id = 7;
	assert_int_equal(getrandom(d.token, sizeof(d.token), 0), (ssize_t)sizeof(d.token));
	d.addr = r->g.addr;
	d.len = r->g.len;
	d.access = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	d.machine = MACHINE;
	d.agent_len = (uint16_t)strlen(name);
	memcpy(d.agent, name, d.agent_len + 1);
	size_t len = ferry_export_desc_encode(&d, desc, sizeof(desc));
	assert_true(len > 0);
	export_from_bytes(&r->e, "rogue", desc, len);
	r->e.sum[0] = '\0';
}

static void rogue_stop(struct rogue *r)
{
	close(r->ctl);
	int status = kid_reap(r->pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* What the importer must see of the rogue's pages: the pattern from mem_off on. */
static void expect_rogue_bytes(const struct ferry_link_view *view)
{
	size_t file = (ROGUE_OFF_PAGES + ROGUE_MAP_PAGES) * page;
	uint8_t *want = malloc(file);
	uint64_t got_sum, want_sum;

	assert_non_null(want);
	rogue_pattern(want, file);
	if (!touch_all(view->local, view->len, &got_sum))
		fail_msg("SIGBUS reading an import the rogue agent granted");
	assert_true(touch_all(want + ROGUE_OFF_PAGES * page + ROGUE_HEAD, view->len, &want_sum));
	assert_true(got_sum == want_sum);
	free(want);
}

/*
 * One import from a rogue agent of @p kind: the error @p want with exactly one
 * log line, no fd and no mapping left behind; an import that succeeds anyway
 * has its every byte touched (a SIGBUS fails the test).
 */
static void rogue_case(enum rogue_kind kind, doca_error_t want)
{
	struct rogue r;
	struct ferry_link_import *imp = NULL;
	struct ferry_link_view view;
	char c;

	rogue_start(&r, kind);
	int fds = ferry_test_count_fds(), maps = count_peer_maps();
	ferry_test_log_reset();
	doca_error_t err = import_desc(r.e.desc, r.e.desc_len, &imp, &view);
	int lines = logged_lines();
	/* The rogue now shrinks what it sent, if its seals let it. */
	assert_int_equal(write(r.ctl, "g", 1), 1);
	assert_true(wait_byte(r.ctl, LINE_TIMEOUT_MS, &c));
	if (err == DOCA_SUCCESS) {
		/* Mapped here, or (fallback) copied by cross-memory attach: then nothing is here to touch. */
		bool mapped = ferry_access_mapped(ferry_link_import_access(imp));
		uint64_t sum;
		bool touched = !mapped || touch_all(view.local, view.len, &sum);

		if (want == DOCA_SUCCESS && mapped && touched)
			expect_rogue_bytes(&view);
		ferry_link_import_close(imp);
		if (!touched)
			fail_msg("an import from the rogue agent succeeded, then reading it raised SIGBUS");
		if (want == DOCA_SUCCESS && !mapped)
			fail_msg("the rogue's good reply was not mapped");
	}
	if (err != want)
		fail_msg("import from a rogue agent: %s, want %s", doca_error_get_name(err), doca_error_get_name(want));
	if (want != DOCA_SUCCESS && lines != 1)
		fail_msg("a refused import logged %d lines, want 1", lines);
	assert_int_equal(ferry_test_count_fds(), fds);
	assert_int_equal(count_peer_maps(), maps);
	rogue_stop(&r);
}

#define ROGUE_TEST(fn, kind, want)      \
	static void fn(void **state)    \
	{                               \
		(void)state;            \
		rogue_case(kind, want); \
	}

ROGUE_TEST(test_rogue_control, R_GOOD, DOCA_SUCCESS)
ROGUE_TEST(test_rogue_unsealed_memfd, R_UNSEALED, DOCA_ERROR_NOT_PERMITTED)
ROGUE_TEST(test_rogue_shrinkable_memfd, R_SHRINKABLE, DOCA_ERROR_NOT_PERMITTED)
ROGUE_TEST(test_rogue_small_memfd, R_SMALL, DOCA_ERROR_NOT_PERMITTED)
ROGUE_TEST(test_rogue_pipe, R_PIPE, DOCA_ERROR_NOT_PERMITTED)
ROGUE_TEST(test_rogue_dev_zero, R_DEVZERO, DOCA_ERROR_NOT_PERMITTED)
ROGUE_TEST(test_rogue_disk_file, R_DISK_FILE, DOCA_ERROR_NOT_PERMITTED)
ROGUE_TEST(test_rogue_state_pipe, R_STATE_PIPE, DOCA_ERROR_NOT_PERMITTED)
ROGUE_TEST(test_rogue_state_empty, R_STATE_EMPTY, DOCA_ERROR_NOT_PERMITTED)
ROGUE_TEST(test_rogue_no_fds, R_NO_FDS, DOCA_ERROR_CONNECTION_RESET)
/* One fd more than the protocol has: a malformed reply, refused, every fd closed. */
ROGUE_TEST(test_rogue_three_fds, R_THREE_FDS, DOCA_ERROR_CONNECTION_RESET)
ROGUE_TEST(test_rogue_five_fds, R_FIVE_FDS, DOCA_ERROR_CONNECTION_RESET)
ROGUE_TEST(test_rogue_short_reply, R_SHORT, DOCA_ERROR_CONNECTION_RESET)
ROGUE_TEST(test_rogue_long_reply, R_LONG, DOCA_ERROR_CONNECTION_RESET)
ROGUE_TEST(test_rogue_bad_magic, R_BAD_MAGIC, DOCA_ERROR_CONNECTION_RESET)
ROGUE_TEST(test_rogue_pages_miss_range, R_PAGES_MISS, DOCA_ERROR_NOT_PERMITTED)
ROGUE_TEST(test_rogue_pages_beyond_range, R_PAGES_MORE, DOCA_ERROR_NOT_PERMITTED)
ROGUE_TEST(test_rogue_odd_status, R_ODD_STATUS, DOCA_ERROR_CONNECTION_RESET)

/* ==== 4. agents that do not answer: the import returns within its deadline ==== */

/*
 * An import of @p e that must fail within @p limit_s, leaking no fd: with
 * TIME_OUT or NOT_FOUND, or (@p any_error) with whatever error it meets.
 */
static void expect_failure_within(const struct export *e, double limit_s, bool any_error, const char *what)
{
	struct ferry_link_import *imp = NULL;
	struct ferry_link_view view;
	int fds = ferry_test_count_fds();
	double secs;
	doca_error_t err = import_timed(e->desc, e->desc_len, &secs, &imp, &view);

	if (err == DOCA_SUCCESS) {
		ferry_link_import_close(imp);
		fail_msg("%s: the import succeeded", what);
	}
	if (secs > limit_s)
		fail_msg("%s: the import took %.2f s (%s), limit %.1f s", what, secs, doca_error_get_name(err),
			 limit_s);
	if (!any_error && err != DOCA_ERROR_TIME_OUT && err != DOCA_ERROR_NOT_FOUND)
		fail_msg("%s: %s, want DOCA_ERROR_TIME_OUT or DOCA_ERROR_NOT_FOUND", what, doca_error_get_name(err));
	assert_int_equal(ferry_test_count_fds(), fds);
}

static void expect_prompt_failure(const struct export *e, double limit_s, const char *what)
{
	expect_failure_within(e, limit_s, false, what);
}

static void silent_rogue(enum rogue_kind kind, const char *what)
{
	struct rogue r;

	setenv("FERRY_LINK_AGENT_TIMEOUT_MS", "300", 1);
	rogue_start(&r, kind);
	expect_prompt_failure(&r.e, 1.5, what);
	rogue_stop(&r);
}

static void test_agent_never_accepts(void **state)
{
	(void)state;
	silent_rogue(R_NEVER_ACCEPT, "an agent that never accepts");
}

static void test_agent_never_answers(void **state)
{
	(void)state;
	silent_rogue(R_SILENT, "an agent that never answers");
}

static void test_agent_backlog_full(void **state)
{
	(void)state;
	silent_rogue(R_BACKLOG_FULL, "an agent whose backlog is full");
}

/* A stopped exporter: 300 ms deadline, then the default one; once continued it serves again. */
static void test_exporter_stopped(void **state)
{
	struct exporter x;
	struct export e;

	(void)state;
	exporter_start(&x);
	exporter_export(&x, "shared", 65536, "rw", &e, "shared read-write");
	assert_int_equal(kill(x.pid, SIGSTOP), 0);
	/* kill only queues the signal: wait until the kernel says it is stopped. */
	int status = 0;
	assert_int_equal(waitpid(x.pid, &status, WUNTRACED), x.pid);
	assert_true(WIFSTOPPED(status));
	setenv("FERRY_LINK_AGENT_TIMEOUT_MS", "300", 1);
	expect_prompt_failure(&e, 1.5, "a SIGSTOPped exporter, 300 ms deadline");
	unsetenv("FERRY_LINK_AGENT_TIMEOUT_MS");
	expect_prompt_failure(&e, 2.5, "a SIGSTOPped exporter, default deadline");
	assert_int_equal(kill(x.pid, SIGCONT), 0);
	expect_honest_import(&e, 2.0);
	exporter_stop(&x);
}

/* ==== 5. floods against an honest agent ==== */

#define FLOOD_IDLE     200
#define FLOOD_ONE_BYTE 50

/* Connections that never send a request, or send one byte: an honest import still gets through. */
static void test_flood_idle_connections(void **state)
{
	struct exporter x;
	struct export e;
	int flood[FLOOD_IDLE + FLOOD_ONE_BYTE];
	int n = 0;

	(void)state;
	exporter_start(&x);
	exporter_export(&x, "shared", 65536, "rw", &e, "shared read-write");
	for (int i = 0; i < FLOOD_IDLE + FLOOD_ONE_BYTE; i++) {
		int fd = connect_agent(&e.d, true);

		if (fd < 0)
			continue;
		if (i >= FLOOD_IDLE)
			(void)send(fd, "x", 1, MSG_NOSIGNAL);
		flood[n++] = fd;
	}
	/* All of them got in: the agent keeps accepting (the flood is real). */
	if (n != FLOOD_IDLE + FLOOD_ONE_BYTE)
		fail_msg("only %d of %d connections reached the agent", n, FLOOD_IDLE + FLOOD_ONE_BYTE);
	expect_honest_import(&e, 2.0);
	for (int i = 0; i < n; i++)
		close(flood[i]);
	expect_honest_import(&e, 2.0);
	exporter_stop(&x);
}

#define FLOODERS             2
#define FLOOD_HONEST_IMPORTS 10

/* A process that connects to the agent as fast as it can and never speaks, until killed. */
static pid_t start_flooder(const struct export *e)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		enum { HELD = 512 };
		int held[HELD];

		for (int i = 0; i < HELD; i++)
			held[i] = -1;
		for (unsigned long k = 0;; k++) {
			if (held[k % HELD] >= 0)
				close(held[k % HELD]); /* only to stay within the fd limit */
			held[k % HELD] = connect_agent(&e->d, true);
		}
	}
	return pid;
}

/* Other processes of the same user flood the agent while we import: every honest import still gets through. */
static void test_flood_concurrent(void **state)
{
	struct exporter x;
	struct export e;
	pid_t flooders[FLOODERS];

	(void)state;
	exporter_start(&x);
	exporter_export(&x, "shared", 65536, "rw", &e, "shared read-write");
	for (int i = 0; i < FLOODERS; i++)
		flooders[i] = start_flooder(&e);
	usleep(100000); /* the flood is on */
	for (int i = 0; i < FLOOD_HONEST_IMPORTS; i++)
		expect_honest_import(&e, 1.5);
	for (int i = 0; i < FLOODERS; i++) {
		kill(flooders[i], SIGKILL);
		(void)waitpid(flooders[i], NULL, 0);
	}
	expect_honest_import(&e, 2.0);
	exporter_stop(&x);
}

#define WRONG_TOKENS 1000

/* A thousand wrong tokens: each refused, the exporter's log grows by a handful of lines. */
static void test_flood_wrong_tokens(void **state)
{
	struct exporter x;
	struct export e;
	struct link_rep rep;
	uint8_t token[FERRY_DESC_TOKEN_LEN];
	int fds[4], nfds;

	(void)state;
	exporter_start(&x);
	exporter_export(&x, "shared", 65536, "rw", &e, "shared read-write");
	int before = exporter_log_lines(&x, NULL);
	memcpy(token, e.d.token, sizeof(token));
	for (int i = 0; i < WRONG_TOKENS; i++) {
		token[i % sizeof(token)] ^= (uint8_t)(1u << (i % 8));
		if (memcmp(token, e.d.token, sizeof(token)) == 0)
			token[0] ^= 0x80;
		assert_int_equal(raw_ask(&e.d, token, &rep, fds, &nfds), (ssize_t)sizeof(rep));
		assert_int_equal(rep.status, DOCA_ERROR_NOT_PERMITTED);
		assert_int_equal(nfds, 0);
	}
	int wrong = exporter_log_lines(&x, "wrong token");
	int grown = exporter_log_lines(&x, NULL) - before;
	if (wrong < 1 || wrong > LOG_LINES_MAX || grown > LOG_LINES_MAX)
		fail_msg("%d wrong tokens: the exporter logged %d lines (%d about wrong tokens), want 1..%d",
			 WRONG_TOKENS, grown, wrong, LOG_LINES_MAX);
	expect_honest_import(&e, 2.0);
	exporter_stop(&x);
}

/* ==== 6. the agent survives running out of fds ==== */

static void test_agent_survives_emfile(void **state)
{
	struct exporter x;
	struct export e;

	(void)state;
	exporter_start(&x);
	exporter_export(&x, "shared", 65536, "rw", &e, "shared read-write");
	exporter_say(&x, "hog\n");
	exporter_expect(&x, "hogged");
	setenv("FERRY_LINK_AGENT_TIMEOUT_MS", "300", 1);
	/* Which error depends on where the agent ran short; that it comes in time does not. */
	expect_failure_within(&e, 1.5, true, "an exporter out of fds");
	exporter_say(&x, "free\n");
	exporter_expect(&x, "freed");
	unsetenv("FERRY_LINK_AGENT_TIMEOUT_MS");
	/* The agent is still there. */
	expect_honest_import(&e, 2.0);
	/* Its accept did fail meanwhile (the case is real), and said so sparingly. */
	int failures = exporter_log_lines(&x, "accept failed");
	if (failures < 1 || failures > LOG_LINES_MAX)
		fail_msg("the agent logged %d lines of failed accepts, want 1..%d", failures, LOG_LINES_MAX);
	exporter_stop(&x);
}

/* ==== 7. another user (uid 65534) against root's sockets, directories and agent ==== */

static int nobody_connect(const void *arg, int ctl)
{
	const struct ferry_link_addr *a = arg;
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	(void)ctl;
	if (s < 0)
		return 120;
	return connect(s, (const struct sockaddr *)&a->sun, a->len) == 0 ? 0 : errno;
}

static int nobody_bind(const void *arg, int ctl)
{
	const struct ferry_link_addr *a = arg;
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	(void)ctl;
	if (s < 0)
		return 120;
	return bind(s, (const struct sockaddr *)&a->sun, a->len) == 0 ? 0 : errno;
}

/* Refused by the file system: the directory is not theirs to enter. */
static void expect_refused_errno(int code, const char *what)
{
	if (code != EACCES && code != ENOENT)
		fail_msg("uid %d %s: %s, want EACCES or ENOENT", NOBODY, what,
			 code == 0 ? "it succeeded" : strerror(code));
}

static void path_addr(struct ferry_link_addr *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun.sun_family = AF_UNIX;
	assert_true(strlen(path) < sizeof(a->sun.sun_path));
	strcpy(a->sun.sun_path, path);
	a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

/* A live Comch rendezvous socket of root's: another user cannot even connect. */
static void test_xuser_connect_comch(void **state)
{
	struct ferry_link_addr addr;
	char dir[4096];
	int lfd, lock, cfd;

	(void)state;
	runtime_dir(dir, sizeof(dir));
	assert_int_equal(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), MACHINE, "b1:00.0", "rogue-live"),
			 DOCA_SUCCESS);
	assert_int_equal(ferry_link_listen(&addr, &lfd, &lock), DOCA_SUCCESS);
	/* It is live: root connects. */
	assert_int_equal(ferry_link_connect(&addr, &cfd), DOCA_SUCCESS);
	close(cfd);
	expect_refused_errno(as_nobody(nobody_connect, &addr), "connecting to root's live Comch server");
	ferry_link_unlisten(&addr, lfd, lock);
}

/* Nor bind that name, another server's name, or any name in root's domain directory. */
static void test_xuser_bind_comch(void **state)
{
	struct ferry_link_addr live, other, any;
	char dir[4096], path[4200];
	int lfd, lock;

	(void)state;
	runtime_dir(dir, sizeof(dir));
	assert_int_equal(ferry_link_comch_addr(&live, getenv("FERRY_DOMAIN"), MACHINE, "b1:00.0", "rogue-live"),
			 DOCA_SUCCESS);
	assert_int_equal(ferry_link_comch_addr(&other, getenv("FERRY_DOMAIN"), MACHINE, "b1:00.0", "rogue-later"),
			 DOCA_SUCCESS);
	snprintf(path, sizeof(path), "%s/squat", dir);
	path_addr(&any, path);
	assert_int_equal(ferry_link_listen(&live, &lfd, &lock), DOCA_SUCCESS);
	expect_refused_errno(as_nobody(nobody_bind, &live), "binding root's live Comch name");
	expect_refused_errno(as_nobody(nobody_bind, &other), "binding a Comch name root will use");
	expect_refused_errno(as_nobody(nobody_bind, &any), "binding a name in root's domain directory");
	ferry_link_unlisten(&live, lfd, lock);
	/* The name nobody could take is root's to use. */
	assert_int_equal(ferry_link_listen(&other, &lfd, &lock), DOCA_SUCCESS);
	ferry_link_unlisten(&other, lfd, lock);
}

#define XUSER_ASKS 100

/* Ask root's agent XUSER_ASKS times with the right id and token; pause halfway for the test. */
static int nobody_asks(const void *arg, int ctl)
{
	const struct ferry_export_desc *d = arg;
	struct link_rep rep;
	int fds[4], nfds;
	char c;

	for (int i = 0; i < XUSER_ASKS; i++) {
		ssize_t n = raw_ask(d, d->token, &rep, fds, &nfds);

		if (n == RAW_NO_CONNECT)
			return 101;
		if (nfds > 0)
			return 103;
		if (n != 0)
			return 102; /* an answer, even without fds, or a hang */
		if (i == XUSER_ASKS / 2 && (write(ctl, "h", 1) != 1 || read(ctl, &c, 1) != 1))
			return 104;
	}
	return 0;
}

static void test_xuser_agent_token(void **state)
{
	static const char *verdicts[] = {
		[101] = "could not connect", [102] = "got an answer", [103] = "got fds", [104] = "lost the test"};
	struct exporter x;
	struct export e;
	int ctl;
	char c;

	(void)state;
	exporter_start(&x);
	exporter_export(&x, "shared", 65536, "rw", &e, "shared read-write");
	int before = exporter_log_lines(&x, NULL);
	pid_t pid = nobody_start(nobody_asks, &e.d, &ctl);
	/* Halfway through the other user's attempts, root's importer is served as ever. */
	if (wait_byte(ctl, LINE_TIMEOUT_MS, &c))
		expect_honest_import(&e, 2.0);
	assert_int_equal(write(ctl, "g", 1), 1);
	int code = nobody_finish(pid, ctl);
	if (code != 0)
		fail_msg("uid %d with the right token %s (code %d)", NOBODY,
			 code < (int)ARRAY_SIZE(verdicts) && verdicts[code] != NULL ? verdicts[code] : "failed", code);
	expect_honest_import(&e, 2.0);
	int refused = exporter_log_lines(&x, "refused a connection");
	int grown = exporter_log_lines(&x, NULL) - before;
	if (refused < 1 || grown > LOG_LINES_MAX)
		fail_msg("%d refused connections: the exporter logged %d lines (%d about refusals), want 1..%d",
			 XUSER_ASKS, grown, refused, LOG_LINES_MAX);
	exporter_stop(&x);
}

/* Hold the abstract name @p arg (listening) until the test ends. */
static int nobody_squat_name(const void *arg, int ctl)
{
	const struct ferry_link_addr *a = arg;
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	char c;

	if (s < 0 || bind(s, (const struct sockaddr *)&a->sun, a->len) != 0 || listen(s, 8) != 0)
		return 110;
	if (write(ctl, "r", 1) != 1)
		return 111;
	while (read(ctl, &c, 1) == 1)
		;
	return 0;
}

/* The agent's old, predictable name squatted by another user: the export works all the same. */
static void test_xuser_squat_agent_name(void **state)
{
	struct exporter x;
	struct export e;
	struct ferry_link_addr addr;
	uint64_t start;
	char name[128];
	int ctl;
	char c;

	(void)state;
	exporter_start(&x);
	assert_int_equal(ferry_link_pid_start_time(x.pid, &start), DOCA_SUCCESS);
	snprintf(name, sizeof(name), "ferry-%u-%s-agent-%d-%llu", (unsigned)getuid(), getenv("FERRY_DOMAIN"),
		 (int)x.pid, (unsigned long long)start);
	assert_int_equal(ferry_link_abstract_addr(&addr, name), DOCA_SUCCESS);
	pid_t pid = nobody_start(nobody_squat_name, &addr, &ctl);
	if (!wait_byte(ctl, LINE_TIMEOUT_MS, &c))
		fail_msg("uid %d could not bind @%s (code %d)", NOBODY, name, nobody_finish(pid, ctl));
	/* The exporter's first export starts its agent only now, with the name taken. */
	exporter_export(&x, "shared", 65536, "rw", &e, "shared read-write");
	assert_string_not_equal(e.d.agent, name);
	expect_honest_import(&e, 2.0);
	assert_int_equal(nobody_finish(pid, ctl), 0);
	exporter_stop(&x);
}

struct tmp_squat {
	char domain[64];
	char socket_name[128]; /* the base name of root's Comch socket */
};

/* Make /tmp/ferry-0 (and the domain's folder in it) world-writable, and squat root's socket name there. */
static int nobody_squat_tmp(const void *arg, int ctl)
{
	const struct tmp_squat *sq = arg;
	struct ferry_link_addr a;
	struct stat st;
	char path[256];
	int s;
	char c;

	snprintf(path, sizeof(path), "/tmp/ferry-0/%s", sq->domain);
	/* Another run of this test may remove its own squat meanwhile: try again then. */
	for (int tries = 0;; tries++) {
		if (mkdir("/tmp/ferry-0", 0777) != 0 &&
		    (errno != EEXIST || stat("/tmp/ferry-0", &st) != 0 || st.st_uid != NOBODY))
			return 112; /* someone else's folder is there: nothing to squat */
		if (chmod("/tmp/ferry-0", 0777) == 0 && (mkdir(path, 0777) == 0 || errno == EEXIST) &&
		    chmod(path, 0777) == 0)
			break;
		if (errno != ENOENT || tries == 3)
			return 114;
	}
	snprintf(path, sizeof(path), "/tmp/ferry-0/%s/%s", sq->domain, sq->socket_name);
	memset(&a, 0, sizeof(a));
	a.sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.sun.sun_path))
		return 116;
	memcpy(a.sun.sun_path, path, strlen(path));
	a.len = (socklen_t)sizeof(a.sun);
	s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (const struct sockaddr *)&a.sun, a.len) != 0 || listen(s, 8) != 0)
		return 115;
	if (write(ctl, "r", 1) != 1)
		return 111;
	while (read(ctl, &c, 1) == 1)
		;
	return 0;
}

/* Another user's /tmp/ferry-0: root's runtime directory and Comch server are elsewhere and unaffected. */
static void test_xuser_tmp_dir(void **state)
{
	struct ferry_link_addr addr, again;
	struct tmp_squat sq;
	struct ucred cred;
	char dir[4096];
	int lfd, lock, cfd, sfd, ctl;
	pid_t peer;
	char c;

	(void)state;
	assert_int_equal(ferry_link_comch_addr(&addr, getenv("FERRY_DOMAIN"), MACHINE, "b1:00.0", "rogue-tmp"),
			 DOCA_SUCCESS);
	snprintf(sq.domain, sizeof(sq.domain), "%s", getenv("FERRY_DOMAIN"));
	const char *slash = strrchr(addr.text, '/');
	snprintf(sq.socket_name, sizeof(sq.socket_name), "%s", slash != NULL ? slash + 1 : addr.text);
	tmp_squatted = true;
	pid_t pid = nobody_start(nobody_squat_tmp, &sq, &ctl);
	if (!wait_byte(ctl, LINE_TIMEOUT_MS, &c))
		fail_msg("uid %d could not squat /tmp/ferry-0 (code %d)", NOBODY, nobody_finish(pid, ctl));
	/* Root's runtime directory is not in /tmp, and is still good. */
	assert_int_equal(ferry_link_domain_dir(getenv("FERRY_DOMAIN"), dir, sizeof(dir)), DOCA_SUCCESS);
	snprintf(made_dir, sizeof(made_dir), "%s", dir);
	if (strncmp(dir, "/tmp/", 5) == 0)
		fail_msg("root's runtime directory is %s", dir);
	assert_int_equal(ferry_link_comch_addr(&again, getenv("FERRY_DOMAIN"), MACHINE, "b1:00.0", "rogue-tmp"),
			 DOCA_SUCCESS);
	assert_string_equal(again.text, addr.text);
	/* A root server and client meet there, and the client talks to the server, not the squatter. */
	assert_int_equal(ferry_link_listen(&addr, &lfd, &lock), DOCA_SUCCESS);
	assert_int_equal(ferry_link_connect(&addr, &cfd), DOCA_SUCCESS);
	assert_true(ferry_link_peer_cred(cfd, &cred));
	assert_int_equal(cred.uid, 0);
	assert_int_equal(cred.pid, getpid());
	assert_int_equal(ferry_link_accept(lfd, &sfd, &peer), DOCA_SUCCESS);
	assert_int_equal(peer, getpid());
	close(sfd);
	close(cfd);
	ferry_link_unlisten(&addr, lfd, lock);
	assert_int_equal(nobody_finish(pid, ctl), 0);
}

int main(void)
{
	struct sigaction alrm = {.sa_handler = on_alarm}; /* no SA_RESTART: it must interrupt */

	exporter_exe = getenv("LINK_EXPORTER");
	if (exporter_exe == NULL) {
		fprintf(stderr, "LINK_EXPORTER must name the link_exporter program\n");
		return 1;
	}
	page = (size_t)sysconf(_SC_PAGESIZE);
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGALRM, &alrm, NULL);
	/* Root's own fallback directories are under test: no XDG directory in the way. */
	unsetenv("XDG_RUNTIME_DIR");
	/* The exporters' agents log their warnings to stderr, where the tests count them. */
	setenv("FERRY_LOG_LEVEL", "warning", 1);
	ferry_test_log_reset();

	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_forged_twins, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged_twins_after_honest_import, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged_twins_self_import, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_only_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_control, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_unsealed_memfd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_shrinkable_memfd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_small_memfd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_dev_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_disk_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_state_pipe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_state_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_no_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_three_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_five_fds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_short_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_long_reply, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_bad_magic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_pages_miss_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_pages_beyond_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rogue_odd_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agent_never_accepts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agent_never_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agent_backlog_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exporter_stopped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood_idle_connections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood_concurrent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flood_wrong_tokens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agent_survives_emfile, setup, teardown),
		/* First of the cross-user cases: before any root process could have made /tmp/ferry-0. */
		cmocka_unit_test_setup_teardown(test_xuser_tmp_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xuser_connect_comch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xuser_bind_comch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xuser_agent_token, setup, teardown),
		cmocka_unit_test_setup_teardown(test_xuser_squat_agent_name, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
