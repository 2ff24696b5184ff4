/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * import.c - the importer side of the link: check a descriptor against the
 * running system, fetch the memory from the exporter's agent, map it at the
 * exporter's own addresses (so bufs the importer builds from the exporter's
 * addresses point at the same bytes), and watch the exporter's liveness.
 *
 * Several imports of one export in one process share one mapping (refcounted).
 * An import of this process's own export needs no mapping at all.
 *
 * The exporter is another process and may lie. The descriptor is only a
 * claim: the agent's answer is the authority on range and permission, and an
 * import whose descriptor disagrees with it is refused. The agent itself must
 * be the exporter (SO_PEERCRED), its reply must describe pages that cover the
 * range, and every fd it sends must be a sealed memory file large enough for
 * what is mapped of it (no SIGBUS later). Talking to the agent never blocks
 * past a deadline (FERRY_LINK_AGENT_TIMEOUT_MS, default 1000 ms), as imports
 * also run inside doca_pe_progress (Comch consumers).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <doca_types.h>

#include "common/ferry_env.h"
#include "common/ferry_log.h"
#include "link/export_desc_priv.h"
#include "link/ferry_export.h"
#include "link/ferry_link.h"
#include "link/link_priv.h"
#include "link/net_priv.h"

FERRY_LOG_MODULE("link");

/* One mapping of one export, shared by its imports in this process. */
struct link_mapping {
	struct link_mapping *next;
	uint32_t pid;
	uint64_t start_time;
	uint64_t export_id;
	bool anywhere; /* FERRY_LINK_IMPORT_ANYWHERE: private to one import */
	unsigned int refs;
	uint64_t addr; /* the range and permission the agent answered */
	uint64_t len;
	uint32_t access;
	void *local;    /* where addr is reachable here */
	void *map_base; /* NULL for an import of our own export */
	size_t map_len;
	void *state_map;
	const _Atomic uint32_t *state; /* in state_map */
	size_t page;
	int pidfd;              /* -1 for our own export */
	struct shm_block *held; /* our own export's block, kept mapped while this import lasts */
	_Atomic uint64_t checked_ns;
	struct link_access path; /* how this process reaches it: chosen once, in mapping_create */
	struct link_net *net;    /* or through the exporter's network server (no pages, no state word) */
};

struct ferry_link_import {
	struct link_mapping *m;
};

static pthread_mutex_t import_lock = PTHREAD_MUTEX_INITIALIZER;
static struct link_mapping *mappings;

/* ---- checks against the running system ---- */

static doca_error_t check_machine(const struct ferry_export_desc *d, uint32_t machine, const char *call)
{
	if (d->machine != machine)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "descriptor was exported on emulated DPU %u; the importing device is on DPU %u",
				     (unsigned)d->machine, (unsigned)machine);
	return DOCA_SUCCESS;
}

static doca_error_t check_identity(const struct ferry_export_desc *d, uint32_t machine, const char *call)
{
	uint8_t boot[FERRY_DESC_BOOT_ID_LEN];
	uint64_t start;
	doca_error_t err = ferry_link_boot_id(boot);

	if (err != DOCA_SUCCESS)
		return err;
	if (memcmp(boot, d->boot_id, sizeof(boot)) != 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND,
				     "descriptor is stale: it comes from another boot of the machine");
	if (d->uid != (uint32_t)getuid())
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "descriptor was exported by uid %u; only the same user (uid %u) may import it",
				     (unsigned)d->uid, (unsigned)getuid());
	err = check_machine(d, machine, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (ferry_link_pid_start_time((int)d->pid, &start) != DOCA_SUCCESS || start != d->start_time)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND,
				     "descriptor is stale: exporter pid %u is gone or was restarted", (unsigned)d->pid);
	return DOCA_SUCCESS;
}

/* ---- talking to the exporter's agent ---- */

static void close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

#define AGENT_TIMEOUT_MS_DEFAULT 1000u
#define AGENT_CONNECT_RETRY_US   1000u

#define AGENT_TIMEOUT_MS_MAX 3600000u

/* The deadline of one conversation with an agent, from FERRY_LINK_AGENT_TIMEOUT_MS. */
static uint64_t agent_deadline_ns(void)
{
	uint64_t ms = ferry_env_u64("FERRY_LINK_AGENT_TIMEOUT_MS", 1, AGENT_TIMEOUT_MS_MAX, AGENT_TIMEOUT_MS_DEFAULT);

	return ferry_link_now_ns() + ms * 1000000ull;
}

/* Wait for @p events on @p fd until @p deadline; false when it passed. */
static bool wait_fd(int fd, short events, uint64_t deadline)
{
	for (;;) {
		uint64_t now = ferry_link_now_ns();
		struct pollfd p = {.fd = fd, .events = events};

		if (now >= deadline)
			return false;
		int rc = poll(&p, 1, (int)((deadline - now + 999999u) / 1000000u));
		if (rc > 0)
			return true;
		if (rc < 0 && errno != EINTR)
			return false;
	}
}

/* Non-blocking connect; a full backlog is retried until the deadline, never waited for in the kernel. */
static int connect_by_deadline(const struct ferry_link_addr *addr, uint64_t deadline, int *saved)
{
	for (;;) {
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		if (fd < 0) {
			*saved = errno;
			return -1;
		}
		if (connect(fd, (const struct sockaddr *)&addr->sun, addr->len) == 0)
			return fd;
		*saved = errno;
		close(fd);
		if ((*saved != EAGAIN && *saved != EINTR) || ferry_link_now_ns() >= deadline)
			return -1;
		usleep(AGENT_CONNECT_RETRY_US);
	}
}

static doca_error_t agent_connect(const struct ferry_export_desc *d, uint64_t deadline, const char *call, int *out)
{
	struct ferry_link_addr addr;
	struct ucred cred;
	int fd, saved = 0;

	if (ferry_link_abstract_addr(&addr, d->agent) != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "exporter pid %u names no usable memory agent",
				     (unsigned)d->pid);
	fd = connect_by_deadline(&addr, deadline, &saved);
	if (fd < 0)
		return FERRY_RULE_IN(call, saved == EAGAIN ? DOCA_ERROR_TIME_OUT : DOCA_ERROR_NOT_FOUND,
				     "exporter pid %u has no memory agent at @%s that takes connections: %s",
				     (unsigned)d->pid, d->agent, strerror(saved));
	/* The socket name is not proof of anything: the peer must be the exporter itself. */
	if (!ferry_link_peer_cred(fd, &cred) || (uint32_t)cred.pid != d->pid || cred.uid != getuid()) {
		close(fd);
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "the agent at @%s is pid %d uid %u, not the exporter pid %u of uid %u", d->agent,
				     (int)cred.pid, (unsigned)cred.uid, (unsigned)d->pid, (unsigned)getuid());
	}
	*out = fd;
	return DOCA_SUCCESS;
}

/* Receive the reply and up to two fds; any fds beyond those are closed. */
static doca_error_t agent_receive(int fd, struct link_rep *rep, int fds[2])
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = rep, .iov_len = sizeof(*rep)};
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf)};
	ssize_t n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);

	size_t nfds = 0;

	fds[0] = fds[1] = -1;
	for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len < CMSG_LEN(0))
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int got[4];
		if (k > 4)
			k = 4; /* cannot happen with a buffer of 4: MSG_CTRUNC */
		memcpy(got, CMSG_DATA(c), k * sizeof(int));
		for (size_t i = 0; i < k; i++, nfds++) {
			if (nfds < 2)
				fds[nfds] = got[i];
			else
				close(got[i]);
		}
	}
	/* The state page, and the memory when shareable: never more (a reply with more is malformed). */
	if (n != (ssize_t)sizeof(*rep) || (msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) != 0 || nfds > 2 ||
	    rep->magic != LINK_MSG_MAGIC) {
		close_fds(fds, 2);
		return DOCA_ERROR_CONNECTION_RESET;
	}
	return DOCA_SUCCESS;
}

/* One request, one reply, within the deadline. */
static doca_error_t ask_agent(const struct ferry_export_desc *d, const struct link_req *req, const char *call,
			      struct link_rep *rep, int fds[2])
{
	uint64_t deadline = agent_deadline_ns();
	int sock;
	doca_error_t err = agent_connect(d, deadline, call, &sock);

	if (err != DOCA_SUCCESS)
		return err;
	if (send(sock, req, sizeof(*req), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(*req))
		err = FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_RESET, "exporter pid %u's agent took no request: %s",
				    (unsigned)d->pid, strerror(errno));
	else if (!wait_fd(sock, POLLIN, deadline))
		err = FERRY_RULE_IN(call, DOCA_ERROR_TIME_OUT, "exporter pid %u's agent did not answer in time",
				    (unsigned)d->pid);
	else if (agent_receive(sock, rep, fds) != DOCA_SUCCESS)
		err = FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_RESET, "exporter pid %u's agent sent no valid answer",
				    (unsigned)d->pid);
	close(sock);
	return err;
}

static doca_error_t fetch_from_agent(const struct ferry_export_desc *d, const char *call, struct link_rep *rep,
				     int fds[2])
{
	struct link_req req = {.magic = LINK_MSG_MAGIC, .version = LINK_MSG_VERSION, .export_id = d->export_id};
	doca_error_t err;

	memcpy(req.token, d->token, sizeof(req.token));
	if (d->pid == (uint32_t)getpid()) {
		ferry_link_serve(&req, rep, &fds[1], &fds[0]);
	} else {
		err = ask_agent(d, &req, call, rep, fds);
		if (err != DOCA_SUCCESS)
			return err;
	}
	switch (rep->status) {
	case DOCA_SUCCESS:
		if (fds[0] >= 0)
			return DOCA_SUCCESS;
		return FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_RESET, "exporter pid %u's agent sent no state page",
				     (unsigned)d->pid);
	case DOCA_ERROR_NOT_PERMITTED:
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "export %llu of pid %u refused the token (forged descriptor?)",
				     (unsigned long long)d->export_id, (unsigned)d->pid);
	case DOCA_ERROR_NOT_FOUND:
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND,
				     "export %llu of pid %u no longer exists (its mmap was stopped)",
				     (unsigned long long)d->export_id, (unsigned)d->pid);
	case DOCA_ERROR_NOT_SUPPORTED:
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				     "export %llu of pid %u is a re-export, served over the network path only",
				     (unsigned long long)d->export_id, (unsigned)d->pid);
	default:
		/* The agent's code is not trusted to be one of ours: report it, answer with our own. */
		return FERRY_RULE_IN(call, DOCA_ERROR_CONNECTION_RESET, "exporter pid %u's agent answered error %d",
				     (unsigned)d->pid, (int)rep->status);
	}
}

/* ---- checks of what the agent sent ---- */

doca_error_t ferry_link_check_memfd(int fd, uint64_t need, const char **why)
{
	struct stat st;
	int seals;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*why = "is not a memory file";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || (seals & F_SEAL_SHRINK) == 0) {
		*why = "is not a memory file sealed against shrinking (it could vanish under the mapping)";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (st.st_size < 0 || (uint64_t)st.st_size < need) {
		*why = "is smaller than the pages it should hold";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}

/* Everything the agent sent, checked before anything is mapped. */
static doca_error_t check_grant(const struct ferry_export_desc *d, const struct link_rep *rep, const int fds[2],
				size_t page, const char *call)
{
	const char *why = NULL;
	doca_error_t err = ferry_link_check_rep(d, rep, page, fds[1] >= 0, &why);

	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, err, "export %llu of pid %u refused: %s", (unsigned long long)d->export_id,
				     (unsigned)d->pid, why);
	if (d->pid == (uint32_t)getpid())
		return DOCA_SUCCESS; /* our own table answered: nothing is mapped */
	err = ferry_link_check_memfd(fds[0], page, &why);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, err, "the state page fd from exporter pid %u %s", (unsigned)d->pid, why);
	if (fds[1] >= 0) {
		err = ferry_link_check_memfd(fds[1], rep->mem_off + rep->map_len, &why);
		if (err != DOCA_SUCCESS)
			return FERRY_RULE_IN(call, err, "the memory fd from exporter pid %u %s", (unsigned)d->pid, why);
	}
	return DOCA_SUCCESS;
}

/* ---- mappings ---- */

static void mapping_free(struct link_mapping *m)
{
	if (m->net != NULL)
		net_client_close(m->net);
	ferry_shm_release(m->held);
	if (m->map_base != NULL)
		munmap(m->map_base, m->map_len);
	if (m->state_map != NULL)
		munmap(m->state_map, m->page);
	if (m->pidfd >= 0)
		close(m->pidfd);
	free(m);
}

/*
 * The access path, picked once for the mapping's life: our own export is
 * local, mapped pages are shared, anything else (ordinary memory, or a shared
 * range whose addresses are taken here) is reached by pid: cross-memory attach.
 */
static doca_error_t choose_path(struct link_mapping *m, const struct ferry_export_desc *d, const char *call)
{
	struct link_access *a = &m->path;

	if (d->pid == (uint32_t)getpid()) {
		a->base.ops = &link_access_local_ops;
	} else if (m->map_base != NULL) {
		a->base.ops = &link_access_shared_ops;
	} else {
		/* A mapping anywhere (a sync event's word) is read by loads: it must be shareable. */
		if (m->anywhere)
			return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
					     "exporter pid %u's range is not shareable memory", (unsigned)d->pid);
		a->base.ops = &link_access_cma_ops;
	}
	a->pid = (int)d->pid;
	a->addr = m->addr;
	a->len = m->len;
	a->access = m->access;
	a->local = a->base.ops->mapped ? m->local : NULL;
	a->state = m->state;
	a->pidfd = m->pidfd;
	a->checked_ns = &m->checked_ns;
	return DOCA_SUCCESS;
}

/*
 * Map the exporter's pages, with the permission the agent gave, at the
 * exporter's addresses (or anywhere). When the addresses are taken here and
 * @p may_fall_back, leave map_base NULL and succeed (CMA takes over).
 */
static doca_error_t map_memory(struct link_mapping *m, const struct link_rep *rep, int mem_fd, const char *call,
			       bool may_fall_back)
{
	int prot = m->access == DOCA_ACCESS_FLAG_PCI_READ_WRITE ? PROT_READ | PROT_WRITE : PROT_READ;
	void *want = m->anywhere ? NULL : (void *)(uintptr_t)rep->map_base;
	void *p = mmap(want, rep->map_len, prot, MAP_SHARED | (m->anywhere ? 0 : MAP_FIXED_NOREPLACE), mem_fd,
		       (off_t)rep->mem_off);

	if (p == MAP_FAILED || (want != NULL && p != want)) {
		if (p != MAP_FAILED)
			munmap(p, rep->map_len); /* old kernels ignore NOREPLACE and pick another place */
		if (may_fall_back)
			return DOCA_SUCCESS;
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "cannot map the exporter's range %p + %llu here: %s",
				     (void *)(uintptr_t)m->addr, (unsigned long long)m->len,
				     p == MAP_FAILED ? strerror(errno) : "address in use");
	}
	m->map_base = p;
	m->map_len = rep->map_len;
	m->local = (uint8_t *)p + (m->addr - rep->map_base);
	return DOCA_SUCCESS;
}

static doca_error_t watch_exporter(struct link_mapping *m, const struct ferry_export_desc *d, const char *call)
{
	uint64_t start;

	/* Liveness of the exporter, immune to pid reuse. */
	m->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)d->pid, 0);
	if (m->pidfd < 0 || ferry_link_pid_start_time((int)d->pid, &start) != DOCA_SUCCESS || start != d->start_time)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND, "exporter pid %u exited during the import",
				     (unsigned)d->pid);
	return DOCA_SUCCESS;
}

static doca_error_t mapping_create(const struct ferry_export_desc *d, const struct link_rep *rep, int fds[2],
				   bool anywhere, const char *call, struct link_mapping **out)
{
	struct link_mapping *m = calloc(1, sizeof(*m));
	doca_error_t err = DOCA_SUCCESS;

	if (m == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory for an import");
	m->pidfd = -1;
	m->page = (size_t)sysconf(_SC_PAGESIZE);
	m->pid = d->pid;
	m->start_time = d->start_time;
	m->export_id = d->export_id;
	m->anywhere = anywhere;
	m->refs = 1;
	m->addr = rep->addr;
	m->len = rep->len;
	m->access = rep->access;
	m->local = (void *)(uintptr_t)rep->addr;
	void *st = mmap(NULL, m->page, PROT_READ, MAP_SHARED, fds[0], 0);
	if (st == MAP_FAILED) {
		free(m);
		return FERRY_RULE_IN(call, DOCA_ERROR_OPERATING_SYSTEM, "cannot map the export's state page: %s",
				     strerror(errno));
	}
	m->state_map = st;
	m->state = st;
	/*
	 * Our own export is read at the exporter's address; its block stays mapped
	 * until this import closes, even if the exporter frees it first (a ring
	 * whose consumer stopped while a producer on another thread still looks).
	 */
	if (d->pid == (uint32_t)getpid()) {
		m->held = ferry_shm_hold(m->local);
	} else {
		if (fds[1] >= 0)
			err = map_memory(m, rep, fds[1], call, !anywhere);
		if (err == DOCA_SUCCESS)
			err = watch_exporter(m, d, call);
	}
	if (err == DOCA_SUCCESS)
		err = choose_path(m, d, call);
	if (err != DOCA_SUCCESS) {
		mapping_free(m);
		return err;
	}
	*out = m;
	return DOCA_SUCCESS;
}

static struct link_mapping *mapping_find(const struct ferry_export_desc *d)
{
	for (struct link_mapping *m = mappings; m != NULL; m = m->next)
		if (!m->anywhere && m->net == NULL && m->pid == d->pid && m->start_time == d->start_time &&
		    m->export_id == d->export_id)
			return m;
	return NULL;
}

/* How this process reaches the mapping's bytes: the path chosen when it was made. */
static const struct ferry_access *mapping_access(const struct link_mapping *m)
{
	return m->net != NULL ? net_client_access(m->net) : &m->path.base;
}

/* The path knows best whether its exporter is still there (a state word and pidfd, or a connection). */
static bool mapping_alive(const struct link_mapping *m)
{
	const struct ferry_access *a = mapping_access(m);

	return a->ops->alive(a);
}

/* ---- the network path ---- */

/*
 * Whether to reach an export through its exporter's network server: when it
 * offers that path and the exporter is out of reach of the others (another
 * machine, or another network namespace, where its agent's abstract socket
 * cannot be found), or FERRY_LINK_NET=always says so.
 */
static bool use_net_path(const struct ferry_export_desc *d)
{
	uint8_t boot[FERRY_DESC_BOOT_ID_LEN];
	uint64_t ns;
	enum ferry_link_net_mode mode = ferry_link_net_mode();

	if ((d->hints & FERRY_DESC_HINT_NET) == 0 || mode == FERRY_LINK_NET_NEVER)
		return false;
	if (mode == FERRY_LINK_NET_ALWAYS || (d->hints & FERRY_DESC_HINT_NET_ONLY) != 0)
		return true;
	if (ferry_link_boot_id(boot) != DOCA_SUCCESS || memcmp(boot, d->boot_id, sizeof(boot)) != 0)
		return true;
	return ferry_link_netns(&ns) != DOCA_SUCCESS || ns != d->net_ns;
}

/*
 * An import through the network server: its stat answer is the authority on
 * range and permission (as the agent's reply is on this host). The boot,
 * user and process checks do not apply across machines; the token does.
 * Never shared between imports, never mapped.
 */
static doca_error_t import_by_net(const struct ferry_export_desc *d, uint32_t machine, bool anywhere, const char *call,
				  struct ferry_link_import **imp, struct ferry_link_view *view)
{
	struct ferry_link_import *handle;
	struct link_mapping *m;
	doca_error_t err = check_machine(d, machine, call);

	if (err != DOCA_SUCCESS)
		return err;
	if (anywhere)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				     "exporter pid %u is reached over the network; this import needs memory shared "
				     "on one host",
				     (unsigned)d->pid);
	handle = calloc(1, sizeof(*handle));
	m = calloc(1, sizeof(*m));
	if (handle == NULL || m == NULL) {
		free(handle);
		free(m);
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory for an import");
	}
	m->pidfd = -1;
	m->refs = 1;
	m->pid = d->pid;
	m->export_id = d->export_id;
	m->page = (size_t)sysconf(_SC_PAGESIZE);
	err = net_client_open(d, call, &m->net);
	if (err != DOCA_SUCCESS) {
		free(m);
		free(handle);
		return err;
	}
	m->addr = d->addr; /* equal to the server's answer (net_client_open checked) */
	m->len = d->len;
	m->access = d->access;
	m->local = (void *)(uintptr_t)d->addr;
	pthread_mutex_lock(&import_lock);
	m->next = mappings;
	mappings = m;
	pthread_mutex_unlock(&import_lock);
	handle->m = m;
	*view = (struct ferry_link_view){
		.addr = m->local, .len = (size_t)m->len, .access = m->access, .pid = m->pid, .local = m->local};
	*imp = handle;
	return DOCA_SUCCESS;
}

/*
 * A re-export (FERRY_DESC_HINT_NET_ONLY) is reached through its exporter's
 * network server or not at all: the exporter does not hold those bytes, so a
 * mapping of its memory or a copy from its pid would reach the wrong ones.
 * An RDMA export carries nothing else (FERRY_LINK_IMPORT_RDMA).
 */
static doca_error_t check_reexport_rule(const struct ferry_export_desc *d, unsigned int flags, const char *call)
{
	bool net_only = (d->hints & FERRY_DESC_HINT_NET_ONLY) != 0;

	if ((flags & FERRY_LINK_IMPORT_RDMA) != 0 && !net_only)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "the RDMA export descriptor carries a PCI export that is not a re-export "
				     "(network path only)");
	if (net_only && ferry_link_net_mode() == FERRY_LINK_NET_NEVER)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED,
				     "export %llu of pid %u is a re-export, served over the network path only, "
				     "and FERRY_LINK_NET=never forbids that path",
				     (unsigned long long)d->export_id, (unsigned)d->pid);
	return DOCA_SUCCESS;
}

doca_error_t ferry_link_import_open(const void *desc, size_t desc_len, uint32_t machine, unsigned int flags,
				    const char *call, struct ferry_link_import **imp, struct ferry_link_view *view)
{
	struct ferry_export_desc d;
	struct link_rep rep;
	const char *why = NULL;
	int fds[2] = {-1, -1};
	bool anywhere = (flags & FERRY_LINK_IMPORT_ANYWHERE) != 0;
	struct link_mapping *m = NULL;
	doca_error_t err = ferry_export_desc_decode(desc, desc_len, &d, &why);

	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, err, "descriptor refused (%zu bytes): %s", desc_len, why);
	err = check_reexport_rule(&d, flags, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (use_net_path(&d))
		return import_by_net(&d, (flags & FERRY_LINK_IMPORT_RDMA) ? d.machine : machine, anywhere, call, imp,
				     view);
	err = check_identity(&d, machine, call);
	if (err != DOCA_SUCCESS)
		return err;
	struct ferry_link_import *handle = calloc(1, sizeof(*handle));
	if (handle == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory for an import");
	/* Every import proves the token to the exporter, even when a mapping exists. */
	err = fetch_from_agent(&d, call, &rep, fds);
	if (err == DOCA_SUCCESS)
		err = check_grant(&d, &rep, fds, (size_t)sysconf(_SC_PAGESIZE), call);
	if (err == DOCA_SUCCESS) {
		pthread_mutex_lock(&import_lock);
		m = anywhere ? NULL : mapping_find(&d);
		if (m != NULL && mapping_alive(m)) {
			m->refs++; /* same export, same authoritative range (checked above) */
		} else {
			err = mapping_create(&d, &rep, fds, anywhere, call, &m);
			if (err == DOCA_SUCCESS) {
				m->next = mappings;
				mappings = m;
			}
		}
		pthread_mutex_unlock(&import_lock);
	}
	close_fds(fds, 2);
	if (err != DOCA_SUCCESS) {
		free(handle);
		return err;
	}
	handle->m = m;
	view->addr = (void *)(uintptr_t)m->addr;
	view->len = (size_t)m->len;
	view->access = m->access;
	view->pid = m->pid;
	view->local = m->local;
	*imp = handle;
	return DOCA_SUCCESS;
}

bool ferry_link_import_alive(const struct ferry_link_import *imp)
{
	return mapping_alive(imp->m);
}

enum ferry_link_liveness ferry_link_import_liveness(const struct ferry_link_import *imp)
{
	const struct link_mapping *m = imp->m;

	if (m->net != NULL)
		return net_client_liveness(m->net);
	if (mapping_alive(imp->m))
		return FERRY_LINK_LIVE;
	/* A process that died revoked nothing: its state word still says live. */
	return ferry_link_peer_alive(m->state, -1) ? FERRY_LINK_EXITED : FERRY_LINK_REVOKED;
}

uint32_t ferry_link_import_pid(const struct ferry_link_import *imp)
{
	return imp->m->pid;
}

const struct ferry_access *ferry_link_import_access(const struct ferry_link_import *imp)
{
	return mapping_access(imp->m);
}

/* One reference fewer on @p m: the last one takes it off the list and frees it. */
static void mapping_put(struct link_mapping *m)
{
	bool last;

	pthread_mutex_lock(&import_lock);
	last = --m->refs == 0;
	if (last) {
		for (struct link_mapping **l = &mappings; *l != NULL; l = &(*l)->next) {
			if (*l == m) {
				*l = m->next;
				break;
			}
		}
	}
	pthread_mutex_unlock(&import_lock);
	if (last)
		mapping_free(m);
}

/* The mapping whose path @p a is (local, shared or cma: never the network's, which is not in m->path). */
static struct link_mapping *mapping_of_path(const struct ferry_access *a)
{
	return (struct link_mapping *)(uintptr_t)((const char *)a - offsetof(struct link_mapping, path.base));
}

void link_access_hold(const struct ferry_access *a)
{
	struct link_mapping *m = mapping_of_path(a);

	pthread_mutex_lock(&import_lock);
	m->refs++;
	pthread_mutex_unlock(&import_lock);
}

void link_access_release(const struct ferry_access *a)
{
	mapping_put(mapping_of_path(a));
}

void ferry_link_import_close(struct ferry_link_import *imp)
{
	mapping_put(imp->m);
	free(imp);
}
