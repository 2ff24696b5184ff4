/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rendezvous.c - socket addresses (abstract and in the domain directory) and the non-blocking
 * SEQPACKET socket calls of the emulated link (contract in ferry_link.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/ferry_log.h"
#include "link/ferry_link.h"

FERRY_LOG_MODULE("link");

#define LINK_LISTEN_BACKLOG 1024

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s != '\0'; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

doca_error_t ferry_link_abstract_addr(struct ferry_link_addr *addr, const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n + 1 > sizeof(addr->sun.sun_path))
		return DOCA_ERROR_INVALID_VALUE;
	memset(addr, 0, sizeof(*addr));
	addr->sun.sun_family = AF_UNIX;
	addr->sun.sun_path[0] = '\0'; /* abstract namespace: no file to clean up */
	memcpy(addr->sun.sun_path + 1, name, n);
	addr->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	snprintf(addr->text, sizeof(addr->text), "@%s", name);
	return DOCA_SUCCESS;
}

doca_error_t ferry_link_comch_addr(struct ferry_link_addr *addr, const char *domain, uint32_t machine,
				   const char *host_function, const char *name)
{
	char dir[sizeof(addr->sun.sun_path)];
	doca_error_t err = ferry_link_domain_dir(domain, dir, sizeof(dir));
	int n;

	if (err != DOCA_SUCCESS)
		return err;
	memset(addr, 0, sizeof(*addr));
	n = snprintf(addr->sun.sun_path, sizeof(addr->sun.sun_path), "%s/comch.%u.%s.%016llx", dir, machine,
		     host_function, (unsigned long long)fnv1a64(name));
	if (n < 0 || (size_t)n + 1 > sizeof(addr->sun.sun_path))
		return DOCA_ERROR_INVALID_VALUE;
	addr->sun.sun_family = AF_UNIX;
	addr->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
	snprintf(addr->text, sizeof(addr->text), "%s", addr->sun.sun_path);
	return DOCA_SUCCESS;
}

static int seqpacket_socket(void)
{
	return socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

static bool is_path(const struct ferry_link_addr *addr)
{
	return addr->sun.sun_path[0] != '\0';
}

static void lock_name(const struct ferry_link_addr *addr, char *lock, size_t room)
{
	snprintf(lock, room, "%s.lock", addr->sun.sun_path);
}

/*
 * The lock that says a live server owns a socket path; the kernel drops it
 * when its holder dies, however it dies. The holder removes the file when it
 * stops, so a locker checks that the file it locked is still the one at the
 * path (else it locked a removed file, and tries again).
 */
static doca_error_t lock_path(const struct ferry_link_addr *addr, int *lock_fd)
{
	char lock[sizeof(addr->sun.sun_path) + 8];

	*lock_fd = -1;
	if (!is_path(addr))
		return DOCA_SUCCESS;
	lock_name(addr, lock, sizeof(lock));
	for (int tries = 0; tries < 16; tries++) {
		struct stat held, named;
		int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);

		if (fd < 0)
			return DOCA_ERROR_OPERATING_SYSTEM;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			int err = errno;

			close(fd);
			errno = err;
			return err == EWOULDBLOCK ? DOCA_ERROR_ALREADY_EXIST : DOCA_ERROR_OPERATING_SYSTEM;
		}
		if (fstat(fd, &held) == 0 && stat(lock, &named) == 0 && held.st_ino == named.st_ino &&
		    held.st_dev == named.st_dev) {
			/* Ours now: a socket file still there was left by a server that died. */
			(void)unlink(addr->sun.sun_path);
			*lock_fd = fd;
			return DOCA_SUCCESS;
		}
		close(fd);
	}
	return DOCA_ERROR_AGAIN;
}

doca_error_t ferry_link_listen(const struct ferry_link_addr *addr, int *fd, int *lock_fd)
{
	doca_error_t err = lock_path(addr, lock_fd);
	int s;

	if (err != DOCA_SUCCESS)
		return err;
	s = seqpacket_socket();
	if (s < 0 || bind(s, (const struct sockaddr *)&addr->sun, addr->len) != 0 ||
	    listen(s, LINK_LISTEN_BACKLOG) != 0) {
		int saved = errno;

		if (s >= 0)
			close(s);
		if (*lock_fd >= 0)
			close(*lock_fd);
		*lock_fd = -1;
		errno = saved;
		return saved == EADDRINUSE ? DOCA_ERROR_ALREADY_EXIST : DOCA_ERROR_OPERATING_SYSTEM;
	}
	*fd = s;
	return DOCA_SUCCESS;
}

void ferry_link_unlisten(const struct ferry_link_addr *addr, int fd, int lock_fd)
{
	char lock[sizeof(addr->sun.sun_path) + 8];

	/* Remove both files while still holding the lock: no newcomer has bound or locked yet. */
	if (fd >= 0 && lock_fd >= 0 && is_path(addr)) {
		(void)unlink(addr->sun.sun_path);
		lock_name(addr, lock, sizeof(lock));
		(void)unlink(lock);
	}
	if (fd >= 0)
		close(fd);
	if (lock_fd >= 0)
		close(lock_fd);
}

static _Atomic uint64_t foreign_listeners;

doca_error_t ferry_link_connect(const struct ferry_link_addr *addr, int *fd)
{
	struct ucred cred;
	uint64_t nth;
	int s = seqpacket_socket();

	if (s < 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	if (connect(s, (const struct sockaddr *)&addr->sun, addr->len) != 0) {
		int err = errno;

		close(s);
		if (err == ECONNREFUSED || err == ENOENT)
			return DOCA_ERROR_NOT_FOUND;
		if (err == EAGAIN || err == EINPROGRESS)
			return DOCA_ERROR_AGAIN;
		return DOCA_ERROR_OPERATING_SYSTEM;
	}
	/* Whoever listens must be one of us: never talk to another user's socket. */
	if (!ferry_link_peer_cred(s, &cred) || cred.uid != getuid()) {
		close(s);
		if (ferry_log_sampled(&foreign_listeners, &nth))
			FERRY_ERR("ferry link: %s is held by uid %u, not by uid %u; refused (%llu so far)", addr->text,
				  (unsigned)cred.uid, (unsigned)getuid(), (unsigned long long)nth);
		return DOCA_ERROR_NOT_PERMITTED;
	}
	*fd = s;
	return DOCA_SUCCESS;
}

bool ferry_link_peer_cred(int fd, struct ucred *cred)
{
	socklen_t len = sizeof(*cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, &len) == 0 && len == sizeof(*cred))
		return true;
	memset(cred, 0, sizeof(*cred));
	return false;
}

void ferry_link_set_timeouts(int fd, long seconds)
{
	struct timeval tv = {.tv_sec = seconds};

	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static _Atomic uint64_t foreign_callers;

doca_error_t ferry_link_accept(int listen_fd, int *fd, pid_t *pid)
{
	for (;;) {
		struct ucred cred;
		int s = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (s < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return (errno == EAGAIN || errno == EWOULDBLOCK) ? DOCA_ERROR_AGAIN
									 : DOCA_ERROR_OPERATING_SYSTEM;
		}
		if (!ferry_link_peer_cred(s, &cred) || cred.uid != getuid()) {
			uint64_t nth;

			close(s); /* another user's process: never talk to it */
			if (ferry_log_sampled(&foreign_callers, &nth))
				FERRY_WARN("ferry link: refused a connection from uid %u (%llu so far)",
					   (unsigned)cred.uid, (unsigned long long)nth);
			continue;
		}
		*fd = s;
		*pid = cred.pid;
		return DOCA_SUCCESS;
	}
}

static doca_error_t send_errno(void)
{
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
		return DOCA_ERROR_AGAIN;
	return DOCA_ERROR_CONNECTION_RESET;
}

doca_error_t ferry_link_send(int fd, const void *buf, size_t len)
{
	ssize_t rc;

	do {
		rc = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	} while (rc < 0 && errno == EINTR);
	return rc < 0 ? send_errno() : DOCA_SUCCESS;
}

doca_error_t ferry_link_recv(int fd, void *buf, size_t cap, size_t *len)
{
	ssize_t rc;

	do {
		/* MSG_TRUNC: report the datagram's real size so oversized frames are caught. */
		rc = recv(fd, buf, cap, MSG_DONTWAIT | MSG_TRUNC);
	} while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return (errno == EAGAIN || errno == EWOULDBLOCK) ? DOCA_ERROR_AGAIN : DOCA_ERROR_CONNECTION_RESET;
	if (rc == 0)
		return DOCA_ERROR_CONNECTION_RESET; /* EOF: frames are never empty */
	*len = (size_t)rc;
	return DOCA_SUCCESS;
}

#define LINK_BATCH_MAX 32u

doca_error_t ferry_link_recv_batch(int fd, uint8_t *bufs, size_t stride, size_t cap, uint32_t max, size_t *lens,
				   uint32_t *got)
{
	struct mmsghdr msgs[LINK_BATCH_MAX];
	struct iovec iovs[LINK_BATCH_MAX];
	int n;

	if (max > LINK_BATCH_MAX)
		max = LINK_BATCH_MAX;
	for (uint32_t i = 0; i < max; i++) {
		iovs[i].iov_base = bufs + (size_t)i * stride;
		iovs[i].iov_len = cap;
		memset(&msgs[i], 0, sizeof(msgs[i]));
		msgs[i].msg_hdr.msg_iov = &iovs[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	do {
		n = recvmmsg(fd, msgs, max, MSG_DONTWAIT, NULL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return (errno == EAGAIN || errno == EWOULDBLOCK) ? DOCA_ERROR_AGAIN : DOCA_ERROR_CONNECTION_RESET;
	*got = 0;
	for (int i = 0; i < n; i++) {
		/*
		 * EOF, or an empty datagram (frames are never empty): either way the
		 * connection ends here. After some datagrams it is handed on as a
		 * 0-length one, so the caller ends the connection right there
		 * rather than carry on past datagrams this call already took.
		 */
		if (msgs[i].msg_len == 0 && i == 0)
			return DOCA_ERROR_CONNECTION_RESET;
		lens[i] = (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) ? cap + 1 : msgs[i].msg_len;
		(*got)++;
		if (msgs[i].msg_len == 0)
			break;
	}
	return DOCA_SUCCESS;
}

uint64_t ferry_link_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
