/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run.c - `ferry run`: the processes of one emulated host+DPU machine, started
 * together in a private domain, their output prefixed, their ends watched.
 *
 * Life of a run:
 *   1. FERRY_DOMAIN is set to a fresh name (ferry-run-<pid>-<random>), so the
 *      run meets no other; each process also gets FERRY_SIDE of its side (only
 *      strict topologies read it).
 *   2. Each DPU command starts as `/bin/sh -c CMD` in its own process group,
 *      stdin from /dev/null, stdout and stderr on pipes.
 *   3. The host commands start once the DPU side is ready: every DPU process
 *      printed a line matching --ready, or --delay passed, or by default a Comch
 *      server listens in the domain (a socket appears in its runtime directory,
 *      looked for every 20 ms) or AUTO_READY_MAX passed. A DPU side that ended
 *      well before that counts as ready.
 *   4. One loop polls the pipes, a signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP)
 *      and the deadlines. Lines are copied out whole with their prefix as soon
 *      as they end; a pipe's last partial line at EOF gets a newline.
 *   5. The first process to fail (non-zero status or a signal), the time limit,
 *      or a signal to ferry stops the run: SIGTERM to every process group, then
 *      SIGKILL after the grace period. A process whose shell ended has the rest
 *      of its group stopped the same way, so its pipes reach EOF.
 *   6. ferry is a child subreaper: a descendant that left its group (setsid)
 *      and lost its parent becomes our child. Once every shell is reaped, such
 *      orphans (which may hold a pipe open) get SIGTERM, then SIGKILL.
 *   7. The loop ends when every shell is reaped and every pipe is at EOF; any
 *      process group still alive then is killed, every child left is killed and
 *      reaped, the domain's runtime directory (ours alone) is emptied and
 *      removed, and the exit status tells the story.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/fault_plan.h"
#include "link/ferry_link.h"
#include "ferry.h"

extern char **environ;

#define LINE_MAX_BYTES  65536 /* a longer line is cut into pieces of this size */
#define AUTO_READY_MAX  2.0   /* default: start the host side after this many seconds at most */
#define SCAN_INTERVAL   0.02  /* how often the default readiness looks for a Comch socket */
#define DEFAULT_GRACE   2.0   /* seconds between SIGTERM and SIGKILL */
#define DOMAIN_NAME_MAX 48    /* FERRY_DOMAIN's limit */

enum side { SIDE_DPU, SIDE_HOST };
enum ready_mode { READY_AUTO, READY_REGEX, READY_DELAY };

/* One pipe from a child: its fd (-1 at EOF) and the line not yet complete. */
struct stream {
	int fd;
	int out_fd; /* where its lines go: 1 or 2 */
	size_t len;
	char buf[LINE_MAX_BYTES];
};

struct proc {
	enum side side;
	int index; /* within its side */
	char *cmd;
	char label[24];     /* "dpu.0" */
	const char *colour; /* ANSI SGR code, or NULL */
	pid_t pid;          /* 0 until started; also its process group id */
	bool running;       /* started and not reaped */
	bool group_alive;   /* its process group may still have members */
	bool ready;         /* printed a line matching --ready */
	bool stopped_by_us; /* got SIGTERM/SIGKILL from us before it ended */
	double kill_at;     /* when its group gets SIGKILL; 0: not planned */
	int status;         /* wait status once reaped */
	struct stream out, err;
};

struct run {
	struct proc *procs;
	int num_procs;
	int num_dpu;

	enum ready_mode ready_mode;
	regex_t ready_re;
	double delay;
	double timeout; /* 0: none */
	double grace;
	bool until_hosts;  /* --until-hosts */
	const char *fault; /* --fault PLAN for FERRY_FAULT, or NULL */
	bool colour_out, colour_err;

	char domain[DOMAIN_NAME_MAX + 1];
	bool own_domain;
	char domain_dir[4096];

	double t_start;
	bool hosts_started;
	bool stopping;
	/*
	 * Once every shell is reaped, what still holds a pipe is an orphan that left
	 * its group (setsid): after the grace period SIGTERM to our children (we are
	 * their subreaper), then SIGKILL, then the pipes are closed.
	 */
	double orphans_at;
	int orphans_stage;
	int result; /* exit status once decided, -1 before */
	const struct proc *failed;
	bool out_broken; /* our stdout is gone (EPIPE): keep draining, print nothing */
	bool err_broken;
};

/* DPU processes in cyan and blue shades, host processes in yellow and green ones. */
static const char *const dpu_colours[] = {"36", "34", "96", "94"};
static const char *const host_colours[] = {"33", "32", "93", "92"};

/* ---- output ---------------------------------------------------------------- */

static bool write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return true;
}

/* One line with its prefix, in a single writev so lines never mix. */
static void emit_line(struct run *r, const struct proc *p, int fd, char *line, size_t len)
{
	bool colour = fd == 1 ? r->colour_out : r->colour_err;
	bool *broken = fd == 1 ? &r->out_broken : &r->err_broken;
	char prefix[64];
	struct iovec iov[3];
	int n = 0;

	if (*broken)
		return;
	if (colour)
		snprintf(prefix, sizeof(prefix), "\033[%sm%s|\033[0m ", p->colour, p->label);
	else
		snprintf(prefix, sizeof(prefix), "%s| ", p->label);
	iov[n++] = (struct iovec){prefix, strlen(prefix)};
	iov[n++] = (struct iovec){line, len};
	if (len == 0 || line[len - 1] != '\n')
		iov[n++] = (struct iovec){"\n", 1};
	if (!write_all(fd, iov, n))
		*broken = true;
}

/* ferry's own lines go to stderr, prefixed "ferry run: ". */
static void say(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct run *r, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	if (r->err_broken)
		return;
	n = snprintf(line, sizeof(line), r->colour_err ? "\033[1mferry run:\033[0m " : "ferry run: ");
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	struct iovec iov = {line, (size_t)n};
	if (!write_all(2, &iov, 1))
		r->err_broken = true;
}

static void check_ready(struct run *r, struct proc *p, char *line, size_t len)
{
	char saved;

	if (p->side != SIDE_DPU || r->ready_mode != READY_REGEX || p->ready)
		return;
	/* Match without the newline, as grep would. */
	if (len > 0 && line[len - 1] == '\n')
		len--;
	saved = line[len];
	line[len] = '\0';
	if (regexec(&r->ready_re, line, 0, NULL, 0) == 0)
		p->ready = true;
	line[len] = saved;
}

/* Read what a pipe holds; emit every complete line; at EOF the rest. */
static void drain(struct run *r, struct proc *p, struct stream *s)
{
	/* A few reads per wake-up, so one chatty process cannot starve the others. */
	for (int reads = 0; reads < 16; reads++) {
		ssize_t got = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
		size_t start = 0;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EAGAIN)
			return;
		if (got <= 0) { /* EOF (or an error, which ends the stream the same way) */
			if (s->len > 0) {
				check_ready(r, p, s->buf, s->len);
				emit_line(r, p, s->out_fd, s->buf, s->len);
			}
			s->len = 0;
			close(s->fd);
			s->fd = -1;
			return;
		}
		s->len += (size_t)got;
		for (size_t i = s->len - (size_t)got; i < s->len; i++) {
			if (s->buf[i] == '\n') {
				check_ready(r, p, s->buf + start, i + 1 - start);
				emit_line(r, p, s->out_fd, s->buf + start, i + 1 - start);
				start = i + 1;
			}
		}
		if (start == 0 && s->len == sizeof(s->buf)) {
			/* A line longer than the buffer: pass on this piece as a line of its own. */
			check_ready(r, p, s->buf, s->len);
			emit_line(r, p, s->out_fd, s->buf, s->len);
			start = s->len;
		}
		memmove(s->buf, s->buf + start, s->len - start);
		s->len -= start;
	}
}

/* ---- processes ------------------------------------------------------------- */

static int spawn(struct proc *p)
{
	int out[2] = {-1, -1}, err[2] = {-1, -1};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, defaults;
	char *argv[] = {"sh", "-c", p->cmd, NULL};
	int rc;

	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
		rc = errno;
		goto fail_pipes;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_adddup2(&fa, err[1], 2);
	posix_spawnattr_init(&attr);
	/* Own process group (so a stop reaches its children too), signals as a shell expects them. */
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	sigaddset(&defaults, SIGINT);
	sigaddset(&defaults, SIGTERM);
	sigaddset(&defaults, SIGHUP);
	sigaddset(&defaults, SIGCHLD);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	setenv("FERRY_SIDE", p->side == SIDE_DPU ? "dpu" : "host", 1);
	rc = posix_spawn(&p->pid, "/bin/sh", &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	close(err[1]);
	if (rc != 0) {
		close(out[0]);
		close(err[0]);
		errno = rc;
		return -1;
	}
	(void)fcntl(out[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(err[0], F_SETFL, O_NONBLOCK);
	p->out.fd = out[0];
	p->err.fd = err[0];
	p->running = true;
	p->group_alive = true;
	return 0;

fail_pipes:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	errno = rc;
	return -1;
}

/* SIGTERM to a process group, and SIGKILL planned after the grace period. */
static void stop_group(struct run *r, struct proc *p)
{
	if (!p->group_alive)
		return;
	if (p->running)
		p->stopped_by_us = true;
	if (kill(-p->pid, SIGTERM) != 0 && errno == ESRCH) {
		p->group_alive = false;
		return;
	}
	if (p->kill_at == 0)
		p->kill_at = ferry_now() + r->grace;
}

/* Stop everything (once); the first reason given is the exit status. */
static void stop_all(struct run *r, int result)
{
	if (r->result < 0)
		r->result = result;
	if (r->stopping)
		return;
	r->stopping = true;
	for (int i = 0; i < r->num_procs; i++)
		stop_group(r, &r->procs[i]);
}

/* The grace periods that ran out. */
static void kill_late_groups(struct run *r, double now)
{
	for (int i = 0; i < r->num_procs; i++) {
		struct proc *p = &r->procs[i];

		if (p->kill_at == 0 || now < p->kill_at)
			continue;
		p->kill_at = 0;
		if (p->group_alive && kill(-p->pid, SIGKILL) != 0 && errno == ESRCH)
			p->group_alive = false;
	}
}

static void describe_status(int status, char *out, size_t room)
{
	if (WIFEXITED(status))
		snprintf(out, room, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(out, room, "was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(out, room, "ended with wait status 0x%x", (unsigned)status);
}

/* Every host-side process ended with status 0. */
static bool hosts_done(const struct run *r)
{
	for (int i = 0; i < r->num_procs; i++) {
		const struct proc *p = &r->procs[i];

		if (p->side == SIDE_HOST && (p->running || !WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0))
			return false;
	}
	return true;
}

static void reaped(struct run *r, struct proc *p, int status)
{
	bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
	char what[128];

	p->running = false;
	p->status = status;
	/* Whatever the shell left behind in its group goes too (so its pipes end). */
	stop_group(r, p);
	if (ok && p->side == SIDE_HOST && r->until_hosts && !r->stopping && hosts_done(r)) {
		say(r, "every host-side process exited 0; stopping the DPU side (--until-hosts)");
		stop_all(r, FERRY_EXIT_OK);
	}
	if (ok || (r->stopping && p->stopped_by_us))
		return;
	describe_status(status, what, sizeof(what));
	if (r->failed == NULL && !r->stopping) {
		r->failed = p;
		say(r, "%s (%s) %s; stopping the others", p->label, p->cmd, what);
		stop_all(r, p->side == SIDE_DPU ? FERRY_EXIT_FAIL : FERRY_EXIT_HOST_FAIL);
	} else {
		say(r, "%s (%s) %s", p->label, p->cmd, what);
	}
}

static void reaped_pid(struct run *r, pid_t pid, int status)
{
	for (int i = 0; i < r->num_procs; i++)
		if (r->procs[i].running && r->procs[i].pid == pid)
			reaped(r, &r->procs[i], status);
	/* Else an orphaned descendant handed to us (we are a subreaper): just gone. */
}

static void reap_all(struct run *r)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		reaped_pid(r, pid, status);
}

static int start_side(struct run *r, enum side side)
{
	for (int i = 0; i < r->num_procs; i++) {
		struct proc *p = &r->procs[i];

		if (p->side != side)
			continue;
		if (spawn(p) != 0) {
			say(r, "cannot start %s (%s): %s", p->label, p->cmd, strerror(errno));
			stop_all(r, FERRY_EXIT_INTERNAL);
			return -1;
		}
	}
	return 0;
}

/* ---- readiness ------------------------------------------------------------- */

/* A Comch server listens in the domain: a socket named comch.* in its directory. */
static bool comch_listening(const struct run *r)
{
	DIR *d = opendir(r->domain_dir);
	struct dirent *e;
	bool found = false;

	if (d == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		struct stat st;
		char path[4096 + 256];

		if (strncmp(e->d_name, "comch.", 6) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", r->domain_dir, e->d_name);
		found = lstat(path, &st) == 0 && S_ISSOCK(st.st_mode);
	}
	closedir(d);
	return found;
}

static bool dpu_side_ready(const struct run *r, double now)
{
	bool all_ready = true, all_ended_well = true;

	for (int i = 0; i < r->num_procs; i++) {
		const struct proc *p = &r->procs[i];

		if (p->side != SIDE_DPU)
			continue;
		if (p->running || !WIFEXITED(p->status) || WEXITSTATUS(p->status) != 0)
			all_ended_well = false;
		if (!p->ready)
			all_ready = false;
	}
	if (all_ended_well)
		return true;
	switch (r->ready_mode) {
	case READY_REGEX:
		return all_ready;
	case READY_DELAY:
		return now >= r->t_start + r->delay;
	case READY_AUTO:
		return now >= r->t_start + AUTO_READY_MAX || comch_listening(r);
	}
	return true;
}

/* ---- the loop -------------------------------------------------------------- */

/*
 * Our children now: the shells not yet reaped and, since we are a subreaper,
 * any descendant that left its process group and lost its parent.
 */
static void kill_children(int sig)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (char *word = strtok(buf, " \n"); word != NULL; word = strtok(NULL, " \n"))
		(void)kill((pid_t)atol(word), sig);
}

static double min_deadline(double a, double b)
{
	return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

static int poll_timeout_ms(const struct run *r, double now)
{
	double next = 0;

	if (r->timeout > 0 && !r->stopping)
		next = r->t_start + r->timeout;
	for (int i = 0; i < r->num_procs; i++)
		if (r->procs[i].kill_at > 0)
			next = min_deadline(next, r->procs[i].kill_at);
	if (r->orphans_at > 0)
		next = min_deadline(next, r->orphans_at);
	if (!r->hosts_started && !r->stopping) {
		if (r->ready_mode == READY_DELAY)
			next = min_deadline(next, r->t_start + r->delay);
		else if (r->ready_mode == READY_AUTO)
			next = min_deadline(next, now + SCAN_INTERVAL);
	}
	if (next == 0)
		return -1;
	if (next <= now)
		return 0;
	return (int)((next - now) * 1000) + 1;
}

static bool all_reaped(const struct run *r)
{
	for (int i = 0; i < r->num_procs; i++)
		if (r->procs[i].running)
			return false;
	return true;
}

static void end_orphans(struct run *r, double now)
{
	if (!all_reaped(r) || (!r->hosts_started && !r->stopping))
		return;
	if (r->orphans_at == 0) {
		r->orphans_at = now + r->grace;
		return;
	}
	if (now < r->orphans_at)
		return;
	switch (r->orphans_stage++) {
	case 0:
		kill_children(SIGTERM);
		r->orphans_at = now + r->grace;
		break;
	case 1:
		kill_children(SIGKILL);
		r->orphans_at = now + 1.0;
		break;
	default:
		for (int i = 0; i < r->num_procs; i++) {
			struct proc *p = &r->procs[i];

			if (p->out.fd >= 0)
				drain(r, p, &p->out);
			if (p->err.fd >= 0)
				drain(r, p, &p->err);
			if (p->out.fd >= 0)
				close(p->out.fd);
			if (p->err.fd >= 0)
				close(p->err.fd);
			p->out.fd = p->err.fd = -1;
		}
		break;
	}
}

static bool finished(const struct run *r)
{
	for (int i = 0; i < r->num_procs; i++) {
		const struct proc *p = &r->procs[i];

		if (p->running || p->out.fd >= 0 || p->err.fd >= 0)
			return false;
	}
	/* Hosts never started (the DPU side failed first) count as finished. */
	return true;
}

static int loop(struct run *r, int sfd)
{
	struct pollfd *fds = calloc((size_t)r->num_procs * 2 + 1, sizeof(*fds));
	struct proc **owner = calloc((size_t)r->num_procs * 2 + 1, sizeof(*owner));
	int n;

	if (fds == NULL || owner == NULL) {
		free(fds);
		free(owner);
		say(r, "out of memory");
		stop_all(r, FERRY_EXIT_INTERNAL);
		return -1;
	}
	while (!finished(r) || (!r->hosts_started && !r->stopping)) {
		double now = ferry_now();

		if (!r->hosts_started && !r->stopping && dpu_side_ready(r, now)) {
			r->hosts_started = true;
			if (start_side(r, SIDE_HOST) != 0)
				continue;
		}
		if (r->timeout > 0 && !r->stopping && now >= r->t_start + r->timeout) {
			say(r, "time limit of %g s reached; stopping everything", r->timeout);
			stop_all(r, FERRY_EXIT_TIMEOUT);
		}
		kill_late_groups(r, now);
		end_orphans(r, now);
		if (finished(r) && (r->hosts_started || r->stopping))
			break;

		n = 0;
		fds[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
		for (int i = 0; i < r->num_procs; i++) {
			struct proc *p = &r->procs[i];

			if (p->out.fd >= 0) {
				owner[n] = p;
				fds[n++] = (struct pollfd){.fd = p->out.fd, .events = POLLIN};
			}
			if (p->err.fd >= 0) {
				owner[n] = p;
				fds[n++] = (struct pollfd){.fd = p->err.fd, .events = POLLIN};
			}
		}
		if (poll(fds, (nfds_t)n, poll_timeout_ms(r, now)) < 0) {
			if (errno == EINTR)
				continue;
			say(r, "poll: %s", strerror(errno));
			stop_all(r, FERRY_EXIT_INTERNAL);
			break;
		}
		/* Output first, so a process's last lines come before the news of its end. */
		for (int i = 1; i < n; i++) {
			if (fds[i].revents == 0)
				continue;
			struct proc *p = owner[i];
			drain(r, p, fds[i].fd == p->out.fd ? &p->out : &p->err);
		}
		if (fds[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (si.ssi_signo == SIGCHLD)
					continue;
				if (!r->stopping)
					say(r, "got %s; stopping everything", strsignal((int)si.ssi_signo));
				stop_all(r, 128 + (int)si.ssi_signo);
			}
			reap_all(r);
		}
	}
	free(fds);
	free(owner);
	return 0;
}

/* Nothing may outlive the run: kill any group still alive and any child left, reap them all. */
static void cleanup(struct run *r)
{
	int status;
	pid_t pid;

	for (int i = 0; i < r->num_procs; i++) {
		struct proc *p = &r->procs[i];

		if (p->group_alive && kill(-p->pid, SIGKILL) != 0)
			p->group_alive = false;
		if (p->out.fd >= 0)
			close(p->out.fd);
		if (p->err.fd >= 0)
			close(p->err.fd);
	}
	kill_children(SIGKILL);
	while ((pid = waitpid(-1, &status, 0)) > 0 || (pid < 0 && errno == EINTR)) {
		if (pid > 0)
			reaped_pid(r, pid, status);
		kill_children(SIGKILL);
	}
	/* The domain was ours alone: remove what its servers left (a killed one leaves files). */
	if (r->own_domain) {
		DIR *d = opendir(r->domain_dir);
		struct dirent *e;

		if (d != NULL) {
			while ((e = readdir(d)) != NULL) {
				if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
					(void)unlinkat(dirfd(d), e->d_name, 0);
			}
			closedir(d);
		}
		(void)rmdir(r->domain_dir);
	}
}

/* ---- the command ----------------------------------------------------------- */

static void print_help(void)
{
	fputs("NAME\n"
	      "    ferry run - run the DPU and host sides of one emulated machine together\n"
	      "\n"
	      "SYNOPSIS\n"
	      "    ferry run [OPTION]... --dpu CMD... [--host CMD]...\n"
	      "    ferry run [OPTION]... --host CMD...\n"
	      "\n"
	      "DESCRIPTION\n"
	      "    Starts each CMD with /bin/sh -c in its own process group, all in a fresh\n"
	      "    private Ferry domain (FERRY_DOMAIN=ferry-run-<pid>-<random>), so that they\n"
	      "    meet each other and no other run. The DPU commands start first; the host\n"
	      "    commands start once the DPU side is ready. Which device a program opens is\n"
	      "    up to its own options (DPU side: 03:00.0 and its representor of b1:00.0;\n"
	      "    host side: b1:00.0). Each process also gets FERRY_SIDE=dpu or host, which\n"
	      "    only strict topologies read. Standard input is /dev/null.\n"
	      "\n"
	      "    Every line a process writes is copied to ferry's stdout (or stderr, for its\n"
	      "    stderr) with a prefix naming its side and its number in command-line order,\n"
	      "    \"dpu.0| \", \"host.1| \"; coloured when the output is a terminal.\n"
	      "\n"
	      "    The DPU side is ready when every DPU process printed a line matching\n"
	      "    --ready, or --delay seconds after it started; by default, when a Comch\n"
	      "    server listens in the run's domain, or after 2 s at most. A DPU side whose\n"
	      "    processes all exited 0 is ready too.\n"
	      "\n"
	      "    The run ends when every process has ended. When one fails (non-zero exit or\n"
	      "    killed by a signal), when the time limit expires or when ferry gets SIGINT,\n"
	      "    SIGTERM or SIGHUP, every process group gets SIGTERM and, after the grace\n"
	      "    period, SIGKILL. Nothing is left running: what a process leaves behind is\n"
	      "    stopped when it ends. The domain's runtime directory is removed at the end.\n"
	      "\n"
	      "OPTIONS\n"
	      "    -d, --dpu CMD        a DPU-side process (repeatable: dpu.0, dpu.1, ...)\n"
	      "    -H, --host CMD       a host-side process (repeatable: host.0, host.1, ...)\n"
	      "    -r, --ready REGEX    start the host side once every DPU process printed a\n"
	      "                         line matching REGEX (POSIX extended; stdout or stderr)\n"
	      "    -D, --delay SECONDS  start the host side SECONDS after the DPU side\n"
	      "                         (0: at once)\n"
	      "    -t, --timeout SECONDS\n"
	      "                         stop everything after SECONDS and exit 124\n"
	      "    -g, --grace SECONDS  time between SIGTERM and SIGKILL (default 2)\n"
	      "        --until-hosts    once every host process exited 0, stop the DPU side\n"
	      "                         and exit 0 (for DPU servers that never end)\n"
	      "        --domain NAME    this FERRY_DOMAIN instead of a fresh one (its runtime\n"
	      "                         directory is then left in place)\n"
	      "        --color WHEN     auto (default: on a terminal, unless NO_COLOR is set),\n"
	      "                         always or never\n"
	      "        --fault PLAN     set FERRY_FAULT=PLAN in every process: chosen tasks\n"
	      "                         fail or complete late (README, \"Fault injection\");\n"
	      "                         a plan that does not parse is a usage error\n"
	      "    -h, --help           show this text and exit\n"
	      "\n"
	      "ENVIRONMENT\n"
	      "    NO_COLOR     when set and not empty, --color=auto means no colour\n"
	      "    FERRY_DOMAIN, FERRY_SIDE\n"
	      "                 replaced in each process's environment, as above\n"
	      "    FERRY_FAULT  passed on as it is, unless --fault replaces it\n"
	      "    FERRY_COMCH_CONNECT_TIMEOUT_MS\n"
	      "                 how long a host-side client looks for its server (Ferry)\n"
	      "\n"
	      "EXIT STATUS\n"
	      "    0      every process exited 0 (or --until-hosts ended the run)\n"
	      "    1      a DPU-side process failed first (stderr names it)\n"
	      "    2      usage error\n"
	      "    3      a host-side process failed first (stderr names it)\n"
	      "    124    the time limit expired\n"
	      "    125    ferry could not start a process (pipes, fork)\n"
	      "    128+N  ferry got signal N and stopped everything (130 for SIGINT)\n"
	      "\n"
	      "EXAMPLES\n"
	      "    ferry run --dpu './server -p 03:00.0 -r b1:00.0' \\\n"
	      "              --host './client -p b1:00.0'\n"
	      "    ferry run -t 30 -r '^listening' -d ./dpu_app -H './host_app -n 1' \\\n"
	      "              -H './host_app -n 2'\n"
	      "    ferry run --color=never --until-hosts -d ./server -H ./client > run.log 2>&1\n"
	      "    ferry run --fault 'dma.memcpy:every=100:status=DOCA_ERROR_IO_FAILED' \\\n"
	      "              -d ./dpu_app -H ./host_app\n"
	      "\n"
	      "SEE ALSO\n"
	      "    ferry --help, docs/ferry-command.md, docs/topology.md\n",
	      stdout);
}

static int parse(struct run *r, int argc, char **argv)
{
	enum { OPT_DOMAIN = 256, OPT_COLOR, OPT_UNTIL_HOSTS, OPT_FAULT };
	static const struct option longopts[] = {
		{"dpu", required_argument, NULL, 'd'},
		{"host", required_argument, NULL, 'H'},
		{"ready", required_argument, NULL, 'r'},
		{"delay", required_argument, NULL, 'D'},
		{"timeout", required_argument, NULL, 't'},
		{"grace", required_argument, NULL, 'g'},
		{"until-hosts", no_argument, NULL, OPT_UNTIL_HOSTS},
		{"domain", required_argument, NULL, OPT_DOMAIN},
		{"color", required_argument, NULL, OPT_COLOR},
		{"colour", required_argument, NULL, OPT_COLOR},
		{"fault", required_argument, NULL, OPT_FAULT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *ready = NULL, *delay = NULL, *colour = "auto";
	int c, ndpu = 0, nhost = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:d:H:r:D:t:g:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
		case 'H': {
			struct proc *p = &r->procs[r->num_procs++];
			bool dpu = c == 'd';

			if (optarg[0] == '\0')
				return ferry_usage_error("run", "--%s needs a command, not an empty string",
							 dpu ? "dpu" : "host");
			p->side = dpu ? SIDE_DPU : SIDE_HOST;
			p->index = dpu ? ndpu++ : nhost++;
			p->cmd = optarg;
			break;
		}
		case 'r':
			ready = optarg;
			break;
		case 'D':
			delay = optarg;
			if (!ferry_parse_seconds(optarg, &r->delay))
				return ferry_usage_error("run", "--delay takes seconds (0 to 86400), not '%s'", optarg);
			break;
		case 't':
			if (!ferry_parse_seconds(optarg, &r->timeout) || r->timeout == 0)
				return ferry_usage_error("run", "--timeout takes seconds (more than 0), not '%s'",
							 optarg);
			break;
		case 'g':
			if (!ferry_parse_seconds(optarg, &r->grace))
				return ferry_usage_error("run", "--grace takes seconds (0 to 86400), not '%s'", optarg);
			break;
		case OPT_DOMAIN: {
			size_t len = strlen(optarg);

			if (len == 0 || len > DOMAIN_NAME_MAX ||
			    strspn(optarg, "abcdefghijklmnopqrstuvwxyz"
					   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					   "0123456789._-") != len)
				return ferry_usage_error("run",
							 "--domain takes 1 to 48 letters, digits, '.', '_', '-'");
			memcpy(r->domain, optarg, len + 1);
			r->own_domain = false;
			break;
		}
		case OPT_UNTIL_HOSTS:
			r->until_hosts = true;
			break;
		case OPT_FAULT: {
			/* The libraries parse it again in each process; refusing it here saves a run that injects nothing. */
			struct ferry_fault_plan plan;
			char why[256];

			if (ferry_fault_plan_parse(optarg, strlen(optarg), &plan, why, sizeof(why)) != DOCA_SUCCESS)
				return ferry_usage_error("run", "--fault: %s", why);
			r->fault = optarg;
			break;
		}
		case OPT_COLOR:
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "always") != 0 &&
			    strcmp(optarg, "never") != 0)
				return ferry_usage_error("run", "--color takes auto, always or never, not '%s'",
							 optarg);
			colour = optarg;
			break;
		case 'h':
			print_help();
			return -1;
		default:
			return ferry_getopt_error("run", c, argv);
		}
	}
	if (optind < argc)
		return ferry_usage_error("run", "unexpected argument '%s' (quote each command: --dpu 'prog -x')",
					 argv[optind]);
	if (r->num_procs == 0)
		return ferry_usage_error("run", "nothing to run: give --dpu CMD and/or --host CMD");
	if (r->until_hosts && nhost == 0)
		return ferry_usage_error("run", "--until-hosts needs at least one --host");
	if (ready != NULL && delay != NULL)
		return ferry_usage_error("run", "--ready and --delay exclude each other");
	if (ready != NULL) {
		int rc = regcomp(&r->ready_re, ready, REG_EXTENDED | REG_NOSUB);

		if (rc != 0) {
			char why[128];

			regerror(rc, &r->ready_re, why, sizeof(why));
			return ferry_usage_error("run", "--ready '%s': %s", ready, why);
		}
		r->ready_mode = READY_REGEX;
	} else if (delay != NULL) {
		r->ready_mode = READY_DELAY;
	}
	r->num_dpu = ndpu;
	for (int i = 0; i < r->num_procs; i++) {
		struct proc *p = &r->procs[i];
		bool dpu = p->side == SIDE_DPU;

		snprintf(p->label, sizeof(p->label), "%s.%d", dpu ? "dpu" : "host", p->index);
		p->colour = dpu ? dpu_colours[p->index % 4] : host_colours[p->index % 4];
		p->out = (struct stream){.fd = -1, .out_fd = 1};
		p->err = (struct stream){.fd = -1, .out_fd = 2};
	}
	r->colour_out = ferry_use_colour(colour, 1);
	r->colour_err = ferry_use_colour(colour, 2);
	return 0;
}

static void fresh_domain(struct run *r)
{
	uint32_t rnd = 0;

	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		rnd = (uint32_t)(ferry_now() * 1e9);
	snprintf(r->domain, sizeof(r->domain), "ferry-run-%ld-%08x", (long)getpid(), (unsigned)rnd);
	r->own_domain = true;
}

int ferry_run_main(int argc, char **argv)
{
	struct run *r = calloc(1, sizeof(*r));
	sigset_t mask, old;
	int rc, sfd;

	if (r == NULL) {
		fprintf(stderr, "ferry run: out of memory\n");
		return FERRY_EXIT_INTERNAL;
	}
	/* Every word could be a command: room for argc processes. */
	r->procs = calloc((size_t)argc + 1, sizeof(*r->procs));
	if (r->procs == NULL) {
		free(r);
		fprintf(stderr, "ferry run: out of memory\n");
		return FERRY_EXIT_INTERNAL;
	}
	r->grace = DEFAULT_GRACE;
	r->result = -1;
	fresh_domain(r);
	rc = parse(r, argc, argv);
	if (rc != 0) {
		if (r->ready_mode == READY_REGEX)
			regfree(&r->ready_re);
		free(r->procs);
		free(r);
		return rc < 0 ? FERRY_EXIT_OK : rc;
	}
	/* The link layer names (and makes, 0700) the domain's directory, so ferry and its programs agree on
	 * it; when it cannot, readiness falls back to the delay. */
	if (ferry_link_domain_dir(r->domain, r->domain_dir, sizeof(r->domain_dir)) != DOCA_SUCCESS)
		r->domain_dir[0] = '\0';
	setenv("FERRY_DOMAIN", r->domain, 1);
	if (r->fault != NULL)
		setenv("FERRY_FAULT", r->fault, 1);

	/* Children's ends and our own stop signals arrive on one fd; a closed stdout is an error, not a death. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, &old);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	/* Orphans of our processes become our children, so none escapes the end of the run. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	if (sfd < 0) {
		fprintf(stderr, "ferry run: signalfd: %s\n", strerror(errno));
		rc = FERRY_EXIT_INTERNAL;
		goto out;
	}

	r->t_start = ferry_now();
	if (r->num_dpu == 0) {
		r->hosts_started = true;
		(void)start_side(r, SIDE_HOST);
	} else {
		(void)start_side(r, SIDE_DPU);
	}
	(void)loop(r, sfd);
	cleanup(r);
	close(sfd);
	rc = r->result >= 0 ? r->result : FERRY_EXIT_OK;
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r->ready_mode == READY_REGEX)
		regfree(&r->ready_re);
	free(r->procs);
	free(r);
	return rc;
}
