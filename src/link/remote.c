/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * remote.c - the cross-memory-attach access path (link_access_cma_ops, see
 * ferry_access.h): copies to and from an exporter's memory by
 * process_vm_readv / process_vm_writev, bounded by the exported range and its
 * permission, and only while the export is live; and that liveness check
 * itself (state word and pidfd), which the mapped paths (access.c) use too.
 *
 * The kernel checks that we may attach to the exporter (same uid, and Yama's
 * ptrace scope where it is enabled); the range check here is what keeps an
 * importer inside the exported bytes.
 *
 * Liveness: the export's state word is read before every copy (revocation by
 * doca_mmap_stop). An exporter that exited makes process_vm_* fail with ESRCH.
 * The remaining danger is a reused pid: after the copy, the exporter's pidfd
 * is consulted (ferry_link_peer_alive_cached: an answer at most a tick of the
 * coarse clock old, 4 ms at most on a kernel of HZ 250); wrapping the
 * kernel's pid space takes far longer than that, so a copy that reached a
 * stranger is reported as failed.
 */
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <doca_types.h>

#include "common/ferry_log.h"
#include "link/link_priv.h"

FERRY_LOG_MODULE("link");

/* ---- liveness of an exporter (import.c watches its imports with these) ---- */

bool ferry_link_peer_alive(const _Atomic uint32_t *state, int pidfd)
{
	if (atomic_load_explicit(state, memory_order_acquire) != LINK_STATE_LIVE)
		return false;
	if (pidfd >= 0) {
		/* A pidfd turns readable when its process exits. */
		struct pollfd p = {.fd = pidfd, .events = POLLIN};
		if (poll(&p, 1, 0) != 0)
			return false;
	}
	return true;
}

#define PIDFD_CHECK_NS 1000000ull

/*
 * The coarse clock: the kernel's last tick, read from the vDSO without the
 * time-stamp counter (3 ns here against 21 ns for CLOCK_MONOTONIC). Every
 * Comch send and every cross-process DMA copy asks, and the precise clock was
 * 20-25 ns of a 130 ns one-way Comch trip of 64 B; a pidfd poll per tick is
 * as safe.
 */
static uint64_t coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool ferry_link_peer_alive_cached(const _Atomic uint32_t *state, int pidfd, _Atomic uint64_t *checked_ns)
{
	uint64_t t = coarse_ns();

	if (t - atomic_load_explicit(checked_ns, memory_order_relaxed) < PIDFD_CHECK_NS)
		return ferry_link_peer_alive(state, -1);
	if (!ferry_link_peer_alive(state, pidfd))
		return false;
	atomic_store_explicit(checked_ns, t, memory_order_relaxed);
	return true;
}

doca_error_t link_access_check(const struct link_access *r, uint64_t addr, size_t len, const char *what)
{
	if (!link_range_inside(r->addr, r->len, addr, len))
		return FERRY_RULE_IN(what, DOCA_ERROR_INVALID_VALUE,
				     "[0x%llx, +%zu) lies outside the export [0x%llx, +%llu) of pid %d",
				     (unsigned long long)addr, len, (unsigned long long)r->addr,
				     (unsigned long long)r->len, r->pid);
	if (!ferry_link_peer_alive(r->state, -1))
		return DOCA_ERROR_NOT_CONNECTED;
	return DOCA_SUCCESS;
}

/* Move all bytes, retrying short transfers; one syscall per 1 GiB at most. */
static doca_error_t transfer(const struct link_access *r, void *local, uint64_t remote, size_t len, bool write)
{
	size_t done = 0;

	while (done < len) {
		size_t n = len - done < (1u << 30) ? len - done : (1u << 30);
		struct iovec lv = {.iov_base = (uint8_t *)local + done, .iov_len = n};
		struct iovec rv = {.iov_base = (void *)(uintptr_t)(remote + done), .iov_len = n};
		ssize_t got = write ? process_vm_writev(r->pid, &lv, 1, &rv, 1, 0)
				    : process_vm_readv(r->pid, &lv, 1, &rv, 1, 0);
		if (got <= 0) {
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0 && errno == ESRCH)
				return DOCA_ERROR_NOT_CONNECTED;
			return FERRY_RULE_IN(write ? "ferry remote write" : "ferry remote read", DOCA_ERROR_IO_FAILED,
					     "%zu bytes at 0x%llx in pid %d failed: %s", n,
					     (unsigned long long)(remote + done), r->pid,
					     got < 0 ? strerror(errno) : "no progress");
		}
		done += (size_t)got;
	}
	/* Trust the bytes only if they came from the exporter, not from a process that reused its pid. */
	return ferry_link_peer_alive_cached(r->state, r->pidfd, r->checked_ns) ? DOCA_SUCCESS
									       : DOCA_ERROR_NOT_CONNECTED;
}

static inline const struct link_access *cma_of(const struct ferry_access *a)
{
	return (const struct link_access *)a;
}

static doca_error_t cma_read(const struct ferry_access *a, void *dst, uint64_t src, size_t len)
{
	const struct link_access *r = cma_of(a);
	doca_error_t err = link_access_check(r, src, len, "ferry remote read");

	return err != DOCA_SUCCESS ? err : transfer(r, dst, src, len, false);
}

static doca_error_t cma_write(const struct ferry_access *a, uint64_t dst, const void *src, size_t len)
{
	const struct link_access *r = cma_of(a);

	if (r->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
		return FERRY_RULE_IN("ferry remote write", DOCA_ERROR_NOT_PERMITTED,
				     "the export of pid %d is read-only", r->pid);
	doca_error_t err = link_access_check(r, dst, len, "ferry remote write");

	return err != DOCA_SUCCESS ? err : transfer(r, (void *)(uintptr_t)src, dst, len, true);
}

/* How many of @p num pieces the first @p bytes of a gathered transfer cover whole. */
static size_t pieces_covered(const struct ferry_access_piece *pieces, size_t num, size_t bytes)
{
	size_t i = 0;

	while (i < num && pieces[i].len <= bytes)
		bytes -= pieces[i++].len;
	return i;
}

static doca_error_t cma_write_gather(const struct ferry_access *a, const struct ferry_access_piece *pieces, size_t num,
				     size_t *written)
{
	const struct link_access *r = cma_of(a);
	struct iovec lv[FERRY_ACCESS_GATHER_MAX], rv[FERRY_ACCESS_GATHER_MAX];
	size_t done = 0;

	*written = 0;
	if (num > FERRY_ACCESS_GATHER_MAX)
		return FERRY_RULE_IN("ferry remote write", DOCA_ERROR_INVALID_VALUE, "%zu pieces; at most %u", num,
				     FERRY_ACCESS_GATHER_MAX);
	if (r->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
		return FERRY_RULE_IN("ferry remote write", DOCA_ERROR_NOT_PERMITTED,
				     "the export of pid %d is read-only", r->pid);
	for (size_t i = 0; i < num; i++) {
		doca_error_t err = link_access_check(r, pieces[i].dst, pieces[i].len, "ferry remote write");

		if (err != DOCA_SUCCESS)
			return err;
		lv[i] = (struct iovec){(void *)(uintptr_t)pieces[i].src, pieces[i].len};
		rv[i] = (struct iovec){(void *)(uintptr_t)pieces[i].dst, pieces[i].len};
	}
	/* One system call for all; a short one (a huge piece, a signal) goes on piece by piece. */
	ssize_t got = num == 0 ? 0 : process_vm_writev(r->pid, lv, (unsigned long)num, rv, (unsigned long)num, 0);
	if (got < 0 && errno == ESRCH)
		return DOCA_ERROR_NOT_CONNECTED;
	if (got > 0)
		done = pieces_covered(pieces, num, (size_t)got);
	for (; done < num; done++) {
		doca_error_t err = transfer(r, (void *)(uintptr_t)pieces[done].src, pieces[done].dst, pieces[done].len,
					    true);
		if (err != DOCA_SUCCESS) {
			*written = done;
			return err;
		}
	}
	if (!ferry_link_peer_alive_cached(r->state, r->pidfd, r->checked_ns))
		return DOCA_ERROR_NOT_CONNECTED;
	*written = num;
	return DOCA_SUCCESS;
}

static bool cma_alive(const struct ferry_access *a)
{
	const struct link_access *r = cma_of(a);

	return ferry_link_peer_alive_cached(r->state, r->pidfd, r->checked_ns);
}

const struct ferry_access_ops link_access_cma_ops = {
	.name = "cma",
	.mapped = false,
	.read = cma_read,
	.write = cma_write,
	.write_gather = cma_write_gather,
	.alive = cma_alive,
	.hold = link_access_hold,
	.release = link_access_release,
};
