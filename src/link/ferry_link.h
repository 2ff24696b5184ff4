/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_link.h - the emulated PCIe link's rendezvous and control sockets.
 *
 * Rendezvous: processes of one emulated machine meet in a domain, named by the
 * environment variable FERRY_DOMAIN ("default" when unset; [A-Za-z0-9._-], at most
 * FERRY_LINK_DOMAIN_MAX bytes). A Comch server listens on a Unix socket in the
 * domain's private runtime directory (ferry_link_domain_dir: mode 0700, owned by
 * the user, so no other user can bind the name first or connect at all):
 *
 *   "<domain dir>/comch.<machine>.<host function>.<fnv1a64(name) hex>"
 *
 * where <host function> is the host-side PCI address that the server's representor
 * stands for, which is also the device a client opens: both sides compute the same
 * address from what they hold. The name enters as a hash because a socket path
 * has at most 107 bytes; the exact name is then checked in the handshake. Both
 * ends check SO_PEERCRED as well (same uid): accept() and connect() refuse
 * anyone else. A server holds an flock on "<path>.lock" while it listens, so a
 * socket file left by a killed server is recognised as stale and replaced.
 *
 * Control sockets are SOCK_SEQPACKET (message boundaries, ordered, reliable,
 * EOF when the peer dies) and non-blocking; one datagram is one frame
 * (frame_priv.h). Error convention: doca_error_t; the caller logs.
 */
#ifndef FERRY_LINK_H_
#define FERRY_LINK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <doca_error.h>

#include "common/ferry_abi.h"

#define FERRY_LINK_DOMAIN_MAX 48u
#define FERRY_LINK_DOMAIN_ENV "FERRY_DOMAIN"

/** A rendezvous address. */
struct ferry_link_addr {
	struct sockaddr_un sun;
	socklen_t len;
	char text[112]; /* printable form for log lines ('@' for the leading NUL) */
};

/**
 * Fill @p addr with the abstract-namespace address @p name (no leading NUL in
 * @p name; the address gets one). DOCA_ERROR_INVALID_VALUE when it does not fit.
 */
doca_error_t ferry_link_abstract_addr(struct ferry_link_addr *addr, const char *name);

/**
 * The credentials of the process at the other end of the Unix socket @p fd.
 * False (and *@p cred zeroed) when the kernel does not tell.
 */
FERRY_PRIVATE_API
bool ferry_link_peer_cred(int fd, struct ucred *cred);

/** Bound every blocking send and receive on @p fd to @p seconds. */
void ferry_link_set_timeouts(int fd, long seconds);

/**
 * The current domain (FERRY_DOMAIN or "default"). Returns NULL and sets @p why
 * when the variable holds an invalid name.
 */
FERRY_PRIVATE_API
const char *ferry_link_domain(const char **why);

/**
 * Create (if needed) and name the private runtime directory of @p domain:
 * $XDG_RUNTIME_DIR/ferry/<domain>, else /run/user/<uid>/ferry/<domain>, else
 * (root) /run/ferry/<domain>, else /tmp/ferry-<uid>/<domain>; every level that
 * another user could have made first must be owned by us with mode 0700
 * (DOCA_ERROR_NOT_PERMITTED otherwise). The `ferry` command calls it too.
 */
FERRY_PRIVATE_API
doca_error_t ferry_link_domain_dir(const char *domain, char *out, size_t room);

/**
 * Fill @p addr with the Comch rendezvous address (creating the domain's
 * directory); DOCA_ERROR_INVALID_VALUE when it does not fit, or the error of
 * ferry_link_domain_dir (logged).
 */
FERRY_PRIVATE_API
doca_error_t ferry_link_comch_addr(struct ferry_link_addr *addr, const char *domain, uint32_t machine,
				   const char *host_function, const char *name);

/**
 * Bind and listen at a socket path, holding its lock file (*@p lock_fd) while
 * listening. DOCA_ERROR_ALREADY_EXIST when a live server holds the name.
 */
FERRY_PRIVATE_API
doca_error_t ferry_link_listen(const struct ferry_link_addr *addr, int *fd, int *lock_fd);

/** Stop listening: remove the socket file, then close @p fd and release the lock. */
FERRY_PRIVATE_API
void ferry_link_unlisten(const struct ferry_link_addr *addr, int fd, int lock_fd);

/**
 * Connect without blocking. DOCA_ERROR_NOT_FOUND when nobody listens there,
 * DOCA_ERROR_AGAIN when the listener's backlog is full (retry later),
 * DOCA_ERROR_NOT_PERMITTED when the listener runs as another user.
 */
FERRY_PRIVATE_API
doca_error_t ferry_link_connect(const struct ferry_link_addr *addr, int *fd);

/**
 * Accept one pending connection whose peer runs as our uid (others are closed).
 * DOCA_ERROR_AGAIN when none is pending. @p pid gets the peer's pid.
 */
FERRY_PRIVATE_API
doca_error_t ferry_link_accept(int listen_fd, int *fd, pid_t *pid);

/**
 * Send one datagram without blocking. DOCA_ERROR_AGAIN when the socket is full,
 * DOCA_ERROR_CONNECTION_RESET when the peer is gone.
 */
FERRY_PRIVATE_API
doca_error_t ferry_link_send(int fd, const void *buf, size_t len);

/**
 * Receive one datagram without blocking. @p len gets its full size even when it
 * was larger than @p cap (then it was cut: the caller refuses it).
 * DOCA_ERROR_AGAIN when nothing is there, DOCA_ERROR_CONNECTION_RESET on EOF or error.
 */
FERRY_PRIVATE_API
doca_error_t ferry_link_recv(int fd, void *buf, size_t cap, size_t *len);

/**
 * Receive up to @p max datagrams in one system call (recvmmsg), without blocking,
 * into @p max slots of @p stride bytes at @p bufs (each takes @p cap bytes).
 * lens[i] gets each datagram's full size, cap + 1 when it was cut. *got gets the
 * count. DOCA_ERROR_AGAIN when nothing is there; DOCA_ERROR_CONNECTION_RESET on
 * EOF, an empty datagram or an error before any datagram. An EOF or empty
 * datagram after some datagrams comes last, as lens[i] == 0: the connection
 * ends there (whatever followed it in this call is dropped with it).
 */
FERRY_PRIVATE_API
doca_error_t ferry_link_recv_batch(int fd, uint8_t *bufs, size_t stride, size_t cap, uint32_t max, size_t *lens,
				   uint32_t *got);

/** Monotonic clock in nanoseconds. */
FERRY_PRIVATE_API
uint64_t ferry_link_now_ns(void);

#endif /* FERRY_LINK_H_ */
