/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * agent.c - the exporter side of the link: the table of live exports and the
 * memory agent, one thread per process started at the first export, that
 * answers importers on an abstract Unix socket.
 *
 * The socket lives in the abstract namespace so that nothing is left on disk
 * when the process dies, even by SIGKILL. Its name ends in 64 random bits, so
 * nobody can bind it first (the name travels in the descriptor). Anyone may
 * connect; the agent talks only to peers of its own uid (SO_PEERCRED) that
 * present the export's 128-bit token, and hands out only the pages of
 * exported, shareable ranges, with the export's real range and permission.
 *
 * The agent never blocks on one importer: sockets are non-blocking, at most
 * AGENT_MAX_CONNS requests are pending at once (when full, requests already
 * there are served, then the oldest connection of the process holding the most
 * is dropped), each has AGENT_REQ_DEADLINE_MS to send its request, and a failed
 * accept (out of fds, say) pauses the listener instead of ending the agent.
 *
 * Read-only exports seal their memory file against future writes
 * (F_SEAL_FUTURE_WRITE) before any fd of it leaves the process: an importer
 * that reopens its read-only fd through /proc/self/fd still cannot map it
 * writable. The export's state page is sealed the same way once the exporter
 * has mapped it, so only the exporter can revoke (or un-revoke) an export.
 *
 * A re-export (ferry_link_reexport_open) is an entry whose bytes are not in
 * this process: it reaches them through its own import's access path (the
 * host's memory by cross-memory attach, on the DPU side of NVIDIA's storage
 * application). Only the network server serves it, through that path; the
 * agent refuses it, since handing out our pages or our pid would be wrong.
 *
 * A copy through that path is not bounded in time: cross-memory attach waits
 * without end on a host page that the host never serves (userfaultfd, FUSE).
 * So the server thread never makes it: each re-export has its own copier
 * thread (started at its first copy), which makes its copies one at a time, in
 * order, outside every lock, and posts each back to the server
 * (net_server_copied). A copy that outlives the server's deadline makes the
 * re-export "stuck": the server answers it TIME_OUT, the copies queued behind
 * it are cancelled, and the re-export refuses at once until the copy returns.
 * The entry is counted (refs): the table holds it until ferry_link_export_close,
 * the copier thread while it runs; the last frees it and releases the path's
 * hold, so closing never waits for a copy, and nothing a copy uses (the entry,
 * the import's path) is freed under it. A stuck copier is never joined: it ends
 * when its copy returns, or with the process.
 *
 * Locks: the network server thread holds its srv.lock when it asks the table
 * (agent_lock, taken inside it); agent_lock is held only for moments, never
 * across a copy through a path; net_server_copied, called under agent_lock,
 * takes the server's srv.done_lock, which is innermost.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <doca_types.h>

#include "common/ferry_log.h"
#include "link/export_desc_priv.h"
#include "link/ferry_export.h"
#include "link/ferry_link.h"
#include "link/link_priv.h"
#include "link/net_priv.h"

FERRY_LOG_MODULE("link");

struct ferry_link_export {
	struct ferry_link_export *next;
	uint64_t id;
	uint8_t token[FERRY_DESC_TOKEN_LEN];
	uint64_t addr; /* the exported range: what the agent tells importers */
	uint64_t len;
	uint32_t access;
	const struct ferry_access *via; /* a re-export: the import's path to the bytes; NULL: our own memory */
	int mem_fd;                     /* -1 unless the range is shareable */
	uint64_t map_base;              /* page-aligned pages holding the range */
	uint64_t map_len;
	uint64_t mem_off;
	int state_fd;
	void *state_map;
	_Atomic uint32_t *state; /* in state_map */
	size_t page;
	pid_t owner;       /* a forked child that inherits the export must not revoke it */
	uint32_t host_pid; /* a re-export: whose memory via reaches (log lines) */
	/* A re-export's copies (net_priv.h: struct net_copy), under agent_lock. */
	unsigned int refs;                    /* the table's (until closed), the copier thread's (while it runs) */
	struct net_copy *queue, **queue_tail; /* waiting for the copier, in order */
	struct net_copy *running;             /* the copy the copier makes now, outside the lock */
	bool copier;                          /* its thread runs */
	bool closed;                          /* out of the table: the copier ends */
	bool stuck;                           /* running outlived the server's deadline: refuse until it returns */
	pthread_cond_t work;                  /* the copier waits on it for a copy, or for the close */
	uint8_t desc[FERRY_DESC_MAX_LEN];
	size_t desc_len;
};

static pthread_mutex_t agent_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ferry_link_export *exports;
static uint64_t next_export_id = 1;
static int agent_fd = -1;
static char agent_name[FERRY_DESC_MAX_AGENT + 1];
static pid_t agent_pid;

/* ---- serving ---- */

static int token_equal(const uint8_t *a, const uint8_t *b)
{
	uint8_t diff = 0;

	/* Constant time: the comparison must not tell how many bytes matched. */
	for (size_t i = 0; i < FERRY_DESC_TOKEN_LEN; i++)
		diff |= (uint8_t)(a[i] ^ b[i]);
	return diff == 0;
}

static int reopen_fd(int fd, int flags)
{
	char path[64];

	if (flags == O_RDWR)
		return fcntl(fd, F_DUPFD_CLOEXEC, 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, flags | O_CLOEXEC);
}

void ferry_link_serve(const struct link_req *req, struct link_rep *rep, int *mem_fd, int *state_fd)
{
	struct ferry_link_export *e;

	memset(rep, 0, sizeof(*rep));
	rep->magic = LINK_MSG_MAGIC;
	*mem_fd = -1;
	*state_fd = -1;
	if (req->magic != LINK_MSG_MAGIC || req->version != LINK_MSG_VERSION) {
		rep->status = DOCA_ERROR_UNSUPPORTED_VERSION;
		return;
	}
	pthread_mutex_lock(&agent_lock);
	for (e = exports; e != NULL && e->id != req->export_id; e = e->next)
		;
	if (e == NULL)
		rep->status = DOCA_ERROR_NOT_FOUND;
	else if (!token_equal(e->token, req->token))
		rep->status = DOCA_ERROR_NOT_PERMITTED;
	else if (e->via != NULL)
		rep->status = DOCA_ERROR_NOT_SUPPORTED; /* network path only: this process does not hold the bytes */
	else {
		int mode = e->access == DOCA_ACCESS_FLAG_PCI_READ_WRITE ? O_RDWR : O_RDONLY;
		/* A read-only export hands out a read-only fd: the kernel refuses a writable map. */
		if (e->mem_fd >= 0)
			*mem_fd = reopen_fd(e->mem_fd, mode);
		*state_fd = reopen_fd(e->state_fd, O_RDONLY);
		rep->status = (*state_fd >= 0 && (*mem_fd >= 0 || e->mem_fd < 0)) ? DOCA_SUCCESS
										  : DOCA_ERROR_OPERATING_SYSTEM;
		rep->addr = e->addr;
		rep->len = e->len;
		rep->access = e->access;
		rep->map_base = e->map_base;
		rep->map_len = e->map_len;
		rep->mem_off = e->mem_off;
	}
	pthread_mutex_unlock(&agent_lock);
	if (rep->status != DOCA_SUCCESS) {
		if (*mem_fd >= 0)
			close(*mem_fd);
		if (*state_fd >= 0)
			close(*state_fd);
		*mem_fd = *state_fd = -1;
	}
}

static void send_reply(int conn, const struct link_rep *rep, int mem_fd, int state_fd)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = (void *)(uintptr_t)rep, .iov_len = sizeof(*rep)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};

	if (state_fd >= 0) {
		int fds[2] = {state_fd, mem_fd};
		size_t nfds = mem_fd >= 0 ? 2 : 1;
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		msg.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	(void)sendmsg(conn, &msg, MSG_NOSIGNAL);
}

#define AGENT_MAX_CONNS       32   /* requests pending at once */
#define AGENT_REQ_DEADLINE_MS 1000 /* for an importer to send its request */
#define AGENT_ACCEPT_PAUSE_MS 10   /* after accept failed for want of resources */

static _Atomic uint64_t foreign_peers, wrong_tokens, accept_failures;

/* One importer's request: answer it, once, and forget the connection. */
static void serve_conn(int conn, pid_t peer)
{
	struct link_req req;
	struct link_rep rep;
	int mem_fd = -1, state_fd = -1;
	uint64_t nth;

	if (recv(conn, &req, sizeof(req), MSG_DONTWAIT | MSG_TRUNC) != (ssize_t)sizeof(req))
		return; /* short, long or none: the importer gets no answer */
	ferry_link_serve(&req, &rep, &mem_fd, &state_fd);
	if (rep.status == DOCA_ERROR_NOT_PERMITTED && ferry_log_sampled(&wrong_tokens, &nth))
		FERRY_WARN("ferry agent: pid %d presented a wrong token for export %llu (%llu wrong tokens so far)",
			   (int)peer, (unsigned long long)req.export_id, (unsigned long long)nth);
	send_reply(conn, &rep, mem_fd, state_fd);
	if (mem_fd >= 0)
		close(mem_fd);
	if (state_fd >= 0)
		close(state_fd);
}

struct agent_conn {
	int fd;
	pid_t peer;
	uint64_t deadline_ns;
};

/* Another user's process gets nothing, not even an answer; the log says so sparingly. */
static bool admit(int fd, pid_t *peer)
{
	struct ucred cred;
	uint64_t nth;

	if (ferry_link_peer_cred(fd, &cred) && cred.uid == getuid()) {
		*peer = cred.pid;
		return true;
	}
	if (ferry_log_sampled(&foreign_peers, &nth))
		FERRY_WARN(
			"ferry agent: refused a connection from uid %u (only uid %u may import; %llu refused so far)",
			(unsigned)cred.uid, (unsigned)getuid(), (unsigned long long)nth);
	return false;
}

/* Serve every pending connection whose request is there; the others stay. */
static void serve_ready(struct agent_conn *conns, size_t *n)
{
	struct pollfd pfd[AGENT_MAX_CONNS];
	size_t kept = 0;

	for (size_t i = 0; i < *n; i++)
		pfd[i] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
	if (poll(pfd, *n, 0) <= 0)
		return;
	for (size_t i = 0; i < *n; i++) {
		if (pfd[i].revents == 0) {
			conns[kept++] = conns[i];
			continue;
		}
		serve_conn(conns[i].fd, conns[i].peer);
		close(conns[i].fd);
	}
	*n = kept;
}

/*
 * Full of idle connections: the oldest of the process that holds the most
 * goes, so one process that floods the agent with connections pushes out its
 * own, not another importer's.
 */
static void evict_one(struct agent_conn *conns, size_t *n)
{
	size_t victim = 0, most = 0;

	for (size_t i = 0; i < *n; i++) {
		size_t held = 0;

		for (size_t j = 0; j < *n; j++)
			held += conns[j].peer == conns[i].peer;
		if (held > most) { /* the first (oldest) of each pid is met first */
			most = held;
			victim = i;
		}
	}
	close(conns[victim].fd);
	memmove(&conns[victim], &conns[victim + 1], (*n - victim - 1) * sizeof(conns[0]));
	(*n)--;
}

/* Take pending connections; false when accept ran out of resources (pause the listener). */
static bool accept_some(int lfd, struct agent_conn *conns, size_t *n)
{
	for (;;) {
		pid_t peer = 0;
		uint64_t nth;
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return true;
			if (ferry_log_sampled(&accept_failures, &nth))
				FERRY_ERR("ferry agent: accept failed: %s; retrying in %d ms (%llu failures so far)",
					  strerror(errno), AGENT_ACCEPT_PAUSE_MS, (unsigned long long)nth);
			return false;
		}
		if (!admit(fd, &peer)) {
			close(fd);
			continue;
		}
		if (*n == AGENT_MAX_CONNS)
			serve_ready(conns, n); /* requests that arrived are answered, not evicted */
		if (*n == AGENT_MAX_CONNS)
			evict_one(conns, n);
		conns[(*n)++] = (struct agent_conn){fd, peer, ferry_link_now_ns() + AGENT_REQ_DEADLINE_MS * 1000000ull};
	}
}

static void *agent_main(void *arg)
{
	int lfd = (int)(intptr_t)arg;
	struct agent_conn conns[AGENT_MAX_CONNS];
	struct pollfd pfd[AGENT_MAX_CONNS + 1];
	size_t n = 0;
	bool listening = true;

	for (;;) {
		int timeout = listening ? (n > 0 ? AGENT_REQ_DEADLINE_MS : -1) : AGENT_ACCEPT_PAUSE_MS;

		pfd[0] = (struct pollfd){.fd = listening ? lfd : -1, .events = POLLIN};
		for (size_t i = 0; i < n; i++)
			pfd[i + 1] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
		if (poll(pfd, n + 1, timeout) < 0 && errno != EINTR) {
			(void)poll(NULL, 0, AGENT_ACCEPT_PAUSE_MS); /* ENOMEM: wait, then try again */
			continue;
		}
		uint64_t now = ferry_link_now_ns();
		size_t kept = 0;
		for (size_t i = 0; i < n; i++) {
			if (pfd[i + 1].revents != 0)
				serve_conn(conns[i].fd, conns[i].peer);
			else if (now < conns[i].deadline_ns) {
				conns[kept++] = conns[i];
				continue;
			}
			close(conns[i].fd);
		}
		n = kept;
		listening = (pfd[0].revents & POLLIN) == 0 || accept_some(lfd, conns, &n);
	}
	return NULL;
}

/* Start the agent once per process (again in a forked child, which has no thread). */
static doca_error_t agent_ensure(const char *call)
{
	uint64_t salt = 0;
	struct ferry_link_addr addr;
	pthread_t thr;
	pthread_attr_t attr;
	int n, fd;

	const char *why = NULL;
	const char *domain;

	if (agent_fd >= 0 && agent_pid == getpid())
		return DOCA_SUCCESS;
	domain = ferry_link_domain(&why);
	if (domain == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s", why);
	/* Random, so that no process (of any user) can bind the name before us. */
	if (getrandom(&salt, sizeof(salt), 0) != (ssize_t)sizeof(salt))
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "no randomness for the memory agent's name");
	n = snprintf(agent_name, sizeof(agent_name), "ferry-%u-%s-agent-%d-%016llx", (unsigned)getuid(), domain,
		     (int)getpid(), (unsigned long long)salt);
	if (n < 0 || (size_t)n >= sizeof(agent_name) || ferry_link_abstract_addr(&addr, agent_name) != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, DOCA_ERROR_UNEXPECTED, "agent socket name too long");
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (const struct sockaddr *)&addr.sun, addr.len) != 0 || listen(fd, 256) != 0) {
		int saved = errno;
		if (fd >= 0)
			close(fd);
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM,
				     "cannot start the memory agent (socket @%s): %s", agent_name, strerror(saved));
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	n = pthread_create(&thr, &attr, agent_main, (void *)(intptr_t)fd);
	pthread_attr_destroy(&attr);
	if (n != 0) {
		close(fd);
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "cannot start the memory agent thread: %s",
				     strerror(n));
	}
	agent_fd = fd;
	agent_pid = getpid();
	return DOCA_SUCCESS;
}

/* ---- exports ---- */

/* Seals that make a memory file unwritable to everyone but the mappings made before. */
#define SEALS_READ_ONLY (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE)

static bool sealed_read_only(int fd)
{
	int seals;

	(void)fcntl(fd, F_ADD_SEALS, SEALS_READ_ONLY);
	seals = fcntl(fd, F_GET_SEALS);
	return seals >= 0 && (seals & SEALS_READ_ONLY) == SEALS_READ_ONLY;
}

static doca_error_t make_state_page(struct ferry_link_export *e, const char *call)
{
	e->state_fd = memfd_create("ferry-export-state", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (e->state_fd < 0 || ftruncate(e->state_fd, (off_t)e->page) != 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "cannot create the export's state page: %s",
				     strerror(errno));
	void *p = mmap(NULL, e->page, PROT_READ | PROT_WRITE, MAP_SHARED, e->state_fd, 0);
	if (p == MAP_FAILED)
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "cannot map the export's state page: %s",
				     strerror(errno));
	e->state_map = p;
	e->state = p;
	atomic_store_explicit(e->state, LINK_STATE_LIVE, memory_order_release);
	/* Our mapping keeps writing; an importer that reopens its fd read-write cannot. */
	if (!sealed_read_only(e->state_fd))
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "cannot seal the export's state page: %s",
				     strerror(errno));
	return DOCA_SUCCESS;
}

static void find_shareable(struct ferry_link_export *e, void *addr, size_t len)
{
	void *block;
	uintptr_t a = (uintptr_t)addr;

	if (ferry_shm_lookup(addr, len, &e->mem_fd, &block) != DOCA_SUCCESS) {
		e->mem_fd = -1;
		return;
	}
	/*
	 * A read-only export hands out its block only once the block is sealed
	 * against writable mappings (ours stays). A block someone sealed so that it
	 * cannot be sealed further is reached by cross-memory attach instead.
	 */
	if (e->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE && !sealed_read_only(e->mem_fd)) {
		FERRY_DBG("ferry export: block %p cannot be sealed read-only; importers copy by cross-memory attach",
			  block);
		close(e->mem_fd);
		e->mem_fd = -1;
		return;
	}
	/* Blocks are whole pages, so the pages around the range are inside the block. */
	e->map_base = a & ~(uint64_t)(e->page - 1);
	e->map_len = ((a + len + e->page - 1) & ~(uint64_t)(e->page - 1)) - e->map_base;
	e->mem_off = e->map_base - (uintptr_t)block;
}

/* The network section: where the server listens, and which namespace we are in. */
static doca_error_t fill_net(struct ferry_export_desc *d, const struct ferry_link_net_offer *net, uint16_t port,
			     const char *call)
{
	if (ferry_link_netns(&d->net_ns) != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "cannot tell this process's network namespace");
	d->hints |= FERRY_DESC_HINT_NET;
	memcpy(d->net_ipv4, &net->ipv4, sizeof(d->net_ipv4));
	d->net_port = port;
	return DOCA_SUCCESS;
}

static doca_error_t fill_desc(struct ferry_link_export *e, uint64_t addr, size_t len, uint32_t machine,
			      const struct ferry_link_net_offer *net, uint16_t port, const char *call)
{
	struct ferry_export_desc d;
	doca_error_t err;

	memset(&d, 0, sizeof(d));
	err = ferry_link_boot_id(d.boot_id);
	if (err != DOCA_SUCCESS)
		return err;
	if (ferry_link_pid_start_time(getpid(), &d.start_time) != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "cannot read this process's start time");
	d.version = FERRY_DESC_VERSION;
	d.hints = e->via != NULL ? FERRY_DESC_HINT_NET_ONLY
				 : (uint16_t)(FERRY_DESC_HINT_CMA | (e->mem_fd >= 0 ? FERRY_DESC_HINT_SHAREABLE : 0));
	d.pid = (uint32_t)getpid();
	d.uid = (uint32_t)getuid();
	d.export_id = e->id;
	memcpy(d.token, e->token, sizeof(d.token));
	d.addr = addr;
	d.len = len;
	d.access = e->access;
	d.machine = machine;
	d.agent_len = (uint16_t)strlen(agent_name);
	memcpy(d.agent, agent_name, d.agent_len + 1);
	if (net != NULL) {
		err = fill_net(&d, net, port, call);
		if (err != DOCA_SUCCESS)
			return err;
	}
	e->desc_len = ferry_export_desc_encode(&d, e->desc, sizeof(e->desc));
	if (e->desc_len == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "range 0x%llx + %zu cannot be described",
				     (unsigned long long)addr, len);
	return DOCA_SUCCESS;
}

/* Importers' view of @p e ends: its state word says revoked, its fds close. */
static void export_revoke(struct ferry_link_export *e)
{
	if (e->state != NULL) {
		/* Importers poll this word: from now on their tasks fail. */
		if (e->owner == getpid())
			atomic_store_explicit(e->state, LINK_STATE_REVOKED, memory_order_release);
		munmap(e->state_map, e->page);
		e->state = NULL;
	}
	if (e->state_fd >= 0)
		close(e->state_fd);
	if (e->mem_fd >= 0)
		close(e->mem_fd);
	e->state_fd = e->mem_fd = -1;
}

/* The last reference to @p e went: revoke (if not yet), let go of the re-export's path, free. */
static void export_free(struct ferry_link_export *e)
{
	export_revoke(e);
	if (e->via != NULL)
		e->via->ops->release(e->via);
	pthread_cond_destroy(&e->work);
	free(e);
}

/* An export of this process's memory (@p via NULL) or a re-export through @p via. */
static doca_error_t export_open(uint64_t addr, size_t len, uint32_t access, const struct ferry_access *via,
				uint32_t machine, const struct ferry_link_net_offer *net, const char *call,
				struct ferry_link_export **exp)
{
	struct ferry_link_export *e = calloc(1, sizeof(*e));
	uint16_t port = 0;
	doca_error_t err;

	if (e == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory for an export");
	e->state_fd = -1;
	e->mem_fd = -1;
	e->addr = addr;
	e->len = len;
	e->access = access;
	e->via = via;
	if (via != NULL)
		via->ops->hold(via); /* released when the entry is freed (export_free), failed or closed */
	e->owner = getpid();
	e->page = (size_t)sysconf(_SC_PAGESIZE);
	e->refs = 1;
	e->queue_tail = &e->queue;
	pthread_cond_init(&e->work, NULL);
	if (getrandom(e->token, sizeof(e->token), 0) != (ssize_t)sizeof(e->token)) {
		export_free(e);
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "no randomness for the export token");
	}
	/* A re-export's addresses are another process's: a block of ours there would be a coincidence. */
	if (via == NULL)
		find_shareable(e, (void *)(uintptr_t)addr, len);
	err = make_state_page(e, call);
	/* Outside the table's lock: starting UCX takes milliseconds, and the server copies under that lock. */
	if (err == DOCA_SUCCESS && net != NULL)
		err = net_server_listen(net, call, &port);
	if (err == DOCA_SUCCESS) {
		pthread_mutex_lock(&agent_lock);
		err = agent_ensure(call);
		e->id = next_export_id++;
		if (err == DOCA_SUCCESS)
			err = fill_desc(e, addr, len, machine, net, port, call);
		if (err == DOCA_SUCCESS) {
			e->next = exports;
			exports = e;
		}
		pthread_mutex_unlock(&agent_lock);
	}
	if (err != DOCA_SUCCESS) {
		export_free(e);
		return err;
	}
	*exp = e;
	return DOCA_SUCCESS;
}

doca_error_t ferry_link_export_open(void *addr, size_t len, uint32_t access, uint32_t machine,
				    const struct ferry_link_net_offer *net, const char *call,
				    struct ferry_link_export **exp)
{
	return export_open((uintptr_t)addr, len, access, NULL, machine, net, call, exp);
}

doca_error_t ferry_link_reexport_open(const struct ferry_access *via, uint32_t host_pid, uint64_t addr, size_t len,
				      uint32_t access, uint32_t machine, const struct ferry_link_net_offer *net,
				      const char *call, struct ferry_link_export **exp)
{
	doca_error_t err;

	if (ferry_access_mapped(via) || net == NULL || via->ops->hold == NULL || via->ops->release == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_UNEXPECTED,
				     "a re-export needs an import's unmapped access path (that can be held) and the "
				     "network path");
	/*
	 * Over the network a slow or hostile exporter could hold each chunk's copy
	 * for seconds, well within the server's deadline: the re-export would
	 * crawl at its pace. The owner can export its memory for RDMA itself.
	 */
	if (via->ops->remote_machine)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				     "the imported memory is on another machine (reached over the network), and only "
				     "memory of this machine can be exported again; its owner can export it for RDMA "
				     "itself");
	err = export_open(addr, len, access, via, machine, net, call, exp);
	if (err == DOCA_SUCCESS)
		(*exp)->host_pid = host_pid;
	return err;
}

/* ---- what the network server asks (net_server.c) ---- */

/* The export @p req names, if its token opens it; under agent_lock. */
static struct ferry_link_export *net_find(const struct net_req *req, struct net_rep *rep)
{
	struct ferry_link_export *e;

	for (e = exports; e != NULL && e->id != req->export_id; e = e->next)
		;
	if (e == NULL || e->owner != getpid()) {
		rep->status = DOCA_ERROR_NOT_FOUND; /* never made, or revoked */
		return NULL;
	}
	if (!token_equal(e->token, req->token)) {
		rep->status = DOCA_ERROR_NOT_PERMITTED;
		return NULL;
	}
	return e;
}

/*
 * The copy the network server makes on an importer's behalf, as a DMA engine
 * would: the program learns that it happened from its peer (a Comch message,
 * a file), through another process, so nothing in this process orders it
 * with the program's own accesses, and ThreadSanitizer would report every
 * word of it (and take seconds over each chunk doing so). Like the copies of
 * the other paths, which other processes make, it is kept out of TSan's view.
 */
#if defined(__SANITIZE_THREAD__)
#define FERRY_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FERRY_TSAN 1
#endif
#endif

#ifdef FERRY_TSAN
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#endif

static void net_export_memcpy(void *dst, const void *src, size_t len)
{
#ifdef FERRY_TSAN
	AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
	AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
#endif
	memcpy(dst, src, len);
#ifdef FERRY_TSAN
	AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
	AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
#endif
}

/*
 * The bytes of @p e a request moves (range and permission checked): memory of
 * ours, or a re-export's, through its import's path, whose refusal (the host
 * revoked its export or exited: NOT_CONNECTED) goes back to the importer.
 */
static doca_error_t net_export_copy(const struct ferry_link_export *e, const struct net_req *req, void *buf)
{
	if (e->via != NULL && req->op == NET_OP_WRITE)
		return e->via->ops->write(e->via, req->addr, buf, req->len);
	if (e->via != NULL)
		return e->via->ops->read(e->via, buf, req->addr, req->len);
	if (req->op == NET_OP_WRITE)
		net_export_memcpy((void *)(uintptr_t)req->addr, buf, req->len);
	else
		net_export_memcpy(buf, (const void *)(uintptr_t)req->addr, req->len);
	return DOCA_SUCCESS;
}

doca_error_t link_export_serve_net(const struct net_req *req, void *buf, struct net_rep *rep, bool *reexport)
{
	struct ferry_link_export *e;

	rep->op = req->op;
	rep->id = req->id;
	rep->status = DOCA_SUCCESS;
	rep->len = 0;
	*reexport = false;
	pthread_mutex_lock(&agent_lock);
	e = net_find(req, rep);
	if (e == NULL) {
		/* rep->status says why */
	} else if (req->op == NET_OP_STAT) {
		rep->addr = e->addr;
		rep->export_len = e->len;
		rep->access = e->access;
	} else if (!link_range_inside(e->addr, e->len, req->addr, req->len)) {
		rep->status = DOCA_ERROR_INVALID_VALUE;
	} else if (req->op == NET_OP_WRITE && e->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE) {
		rep->status = DOCA_ERROR_NOT_PERMITTED;
	} else if (e->via != NULL) {
		/* Through another process's memory: its copier thread copies (link_export_copy_start). */
		*reexport = true;
		if (e->stuck)
			rep->status = DOCA_ERROR_TIME_OUT;
	} else if (buf == NULL) {
		/* Only asked whether the request may go: nothing moves. */
	} else {
		rep->status = net_export_copy(e, req, buf);
		if (rep->status == DOCA_SUCCESS && req->op == NET_OP_READ)
			rep->len = req->len;
	}
	pthread_mutex_unlock(&agent_lock);
	return (doca_error_t)rep->status;
}

/* ---- a re-export's copier thread ---- */

static _Atomic uint64_t stuck_copies, copier_failures;

/* @p c ends with @p status: posted back to the server. Under agent_lock. */
static void copy_end(struct net_copy *c, doca_error_t status)
{
	c->status = status;
	c->state = NET_COPY_ENDED;
	c->exp = NULL;
	net_server_copied(c);
}

/* Every copy still queued on @p e ends with @p status, unmade. Under agent_lock. */
static void copies_cancel(struct ferry_link_export *e, doca_error_t status)
{
	while (e->queue != NULL) {
		struct net_copy *c = e->queue;

		e->queue = c->next;
		copy_end(c, status);
	}
	e->queue_tail = &e->queue;
}

/*
 * Make @p e's copies, one at a time, with agent_lock released during each:
 * the entry and its path stay valid, since this thread holds a reference to
 * the entry, and the entry holds the path. Ends once the entry is closed and
 * nothing is queued; the last reference frees the entry.
 */
static void *copier_main(void *arg)
{
	struct ferry_link_export *e = arg;
	bool last;

	pthread_mutex_lock(&agent_lock);
	for (;;) {
		struct net_copy *c;

		while (e->queue == NULL && !e->closed)
			pthread_cond_wait(&e->work, &agent_lock);
		c = e->queue;
		if (c == NULL)
			break;
		e->queue = c->next;
		if (e->queue == NULL)
			e->queue_tail = &e->queue;
		c->state = NET_COPY_RUNNING;
		e->running = c;
		pthread_mutex_unlock(&agent_lock);
		doca_error_t status = net_export_copy(e, &c->req, c->buf);
		pthread_mutex_lock(&agent_lock);
		e->running = NULL;
		if (e->stuck)
			FERRY_DBG("ferry net server: re-export %llu: the stuck copy through pid %u's memory returned",
				  (unsigned long long)e->id, (unsigned)e->host_pid);
		e->stuck = false;
		copy_end(c, status);
	}
	e->copier = false;
	last = --e->refs == 0;
	pthread_mutex_unlock(&agent_lock);
	if (last)
		export_free(e);
	return NULL;
}

/* Start @p e's copier thread (detached: a stuck one is never waited for). Under agent_lock. */
static doca_error_t copier_start(struct ferry_link_export *e)
{
	pthread_attr_t attr;
	pthread_t thr;
	uint64_t nth;
	int rc;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&thr, &attr, copier_main, e);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		if (ferry_log_sampled(&copier_failures, &nth))
			FERRY_WARN("ferry net server: re-export %llu: cannot start its copier thread: %s; its "
				   "requests fail (%llu failures so far)",
				   (unsigned long long)e->id, strerror(rc), (unsigned long long)nth);
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	e->copier = true;
	e->refs++;
	return DOCA_SUCCESS;
}

doca_error_t link_export_copy_start(struct net_copy *c)
{
	struct ferry_link_export *e;
	struct net_rep rep = {0};
	doca_error_t err = DOCA_SUCCESS;

	pthread_mutex_lock(&agent_lock);
	e = net_find(&c->req, &rep); /* again: it may have closed since the server's check */
	if (e == NULL)
		err = (doca_error_t)rep.status;
	else if (e->via == NULL)
		err = DOCA_ERROR_UNEXPECTED; /* not a re-export: never handed */
	else if (e->stuck)
		err = DOCA_ERROR_TIME_OUT;
	else if (!e->copier)
		err = copier_start(e);
	if (err == DOCA_SUCCESS) {
		c->state = NET_COPY_QUEUED;
		c->exp = e;
		c->next = NULL;
		*e->queue_tail = c;
		e->queue_tail = &c->next;
		pthread_cond_signal(&e->work);
	}
	pthread_mutex_unlock(&agent_lock);
	return err;
}

enum net_copy_state link_export_copy_overdue(struct net_copy *c)
{
	struct ferry_link_export *e;
	enum net_copy_state was;
	uint64_t nth;

	pthread_mutex_lock(&agent_lock);
	was = c->state;
	e = c->exp; /* queued or running: the copier's reference keeps it */
	if (was == NET_COPY_QUEUED) {
		struct net_copy **l = &e->queue;

		while (*l != c)
			l = &(*l)->next;
		*l = c->next;
		if (e->queue_tail == &c->next)
			e->queue_tail = l;
		c->state = NET_COPY_ENDED;
		c->exp = NULL;
	} else if (was == NET_COPY_RUNNING && !e->stuck) {
		e->stuck = true;
		if (ferry_log_sampled(&stuck_copies, &nth))
			FERRY_WARN("ferry net server: re-export %llu: a copy through the memory of host pid %u has "
				   "not returned in time (a page the host does not serve?); its requests fail "
				   "DOCA_ERROR_TIME_OUT until it returns (%llu stuck so far)",
				   (unsigned long long)e->id, (unsigned)e->host_pid, (unsigned long long)nth);
		copies_cancel(e, DOCA_ERROR_TIME_OUT);
	}
	pthread_mutex_unlock(&agent_lock);
	return was;
}

void ferry_link_export_desc(const struct ferry_link_export *exp, const void **desc, size_t *len)
{
	*desc = exp->desc;
	*len = exp->desc_len;
}

void ferry_link_export_close(struct ferry_link_export *exp)
{
	bool last;

	pthread_mutex_lock(&agent_lock);
	for (struct ferry_link_export **l = &exports; *l != NULL; l = &(*l)->next) {
		if (*l == exp) {
			*l = exp->next;
			break;
		}
	}
	export_revoke(exp);
	/*
	 * Out of the table, so no copy starts; those queued end unmade. One still
	 * running holds the entry (and so the path) until it returns: not waited for.
	 */
	copies_cancel(exp, DOCA_ERROR_NOT_FOUND);
	exp->closed = true;
	pthread_cond_broadcast(&exp->work);
	if (exp->copier && exp->owner != getpid()) {
		exp->copier = false; /* a forked child: the thread is the parent's */
		exp->refs--;
	}
	last = --exp->refs == 0;
	pthread_mutex_unlock(&agent_lock);
	if (last)
		export_free(exp);
}
