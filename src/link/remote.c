/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * remote.c - copies to and from an exporter's memory by cross-memory attach
 * (process_vm_readv / process_vm_writev), bounded by the exported range and
 * its permission, and only while the export is live; and that liveness check
 * itself (state word and pidfd), which import.c also uses for shared mappings.
 *
 * The kernel checks that we may attach to the exporter (same uid, and Yama's
 * ptrace scope where it is enabled); the range check here is what keeps an
 * importer inside the exported bytes.
 *
 * Liveness: the export's state word is read before every copy (revocation by
 * doca_mmap_stop). An exporter that exited makes process_vm_* fail with ESRCH.
 * The remaining danger is a reused pid: after the copy, the exporter's pidfd
 * is consulted (ferry_link_peer_alive_cached: an answer at most 1 ms old);
 * wrapping the kernel's pid space takes far longer than that, so a copy that
 * reached a stranger is reported as failed.
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
#include "link/ferry_remote.h"
#include "link/link_priv.h"

FERRY_LOG_MODULE("link");

static atomic_bool cma_enabled;

void ferry_link_enable_cma(void)
{
	atomic_store_explicit(&cma_enabled, true, memory_order_release);
}

bool ferry_link_cma_enabled(void)
{
	return atomic_load_explicit(&cma_enabled, memory_order_acquire);
}

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

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool ferry_link_peer_alive_cached(const _Atomic uint32_t *state, int pidfd, _Atomic uint64_t *checked_ns)
{
	uint64_t t = mono_ns();

	if (t - atomic_load_explicit(checked_ns, memory_order_relaxed) < PIDFD_CHECK_NS)
		return ferry_link_peer_alive(state, -1);
	if (!ferry_link_peer_alive(state, pidfd))
		return false;
	atomic_store_explicit(checked_ns, t, memory_order_relaxed);
	return true;
}

static doca_error_t check_range(const struct ferry_remote *r, uint64_t addr, size_t len, const char *what)
{
	/* Offsets, not end addresses, so nothing can wrap. */
	if (addr < r->addr || addr - r->addr > r->len || len > r->len - (addr - r->addr))
		return FERRY_RULE_IN(what, DOCA_ERROR_INVALID_VALUE,
				     "[0x%llx, +%zu) lies outside the export [0x%llx, +%llu) of pid %d",
				     (unsigned long long)addr, len, (unsigned long long)r->addr,
				     (unsigned long long)r->len, r->pid);
	if (!ferry_link_peer_alive(r->state, -1))
		return DOCA_ERROR_NOT_CONNECTED;
	return DOCA_SUCCESS;
}

/* Move all bytes, retrying short transfers; one syscall per 1 GiB at most. */
static doca_error_t transfer(const struct ferry_remote *r, void *local, uint64_t remote, size_t len, bool write)
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

doca_error_t ferry_remote_read(const struct ferry_remote *r, void *dst, uint64_t src, size_t len)
{
	doca_error_t err = check_range(r, src, len, "ferry remote read");

	return err != DOCA_SUCCESS ? err : transfer(r, dst, src, len, false);
}

doca_error_t ferry_remote_write(const struct ferry_remote *r, uint64_t dst, const void *src, size_t len)
{
	if (r->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
		return FERRY_RULE_IN("ferry remote write", DOCA_ERROR_NOT_PERMITTED,
				     "the export of pid %d is read-only", r->pid);
	doca_error_t err = check_range(r, dst, len, "ferry remote write");

	return err != DOCA_SUCCESS ? err : transfer(r, (void *)(uintptr_t)src, dst, len, true);
}

#define BOUNCE_LEN (1u << 20)

/* Remote to remote: read into a local bounce buffer, then write. */
/* How many of @p num pieces the first @p bytes of a gathered transfer cover whole. */
static size_t pieces_covered(const struct ferry_remote_piece *pieces, size_t num, size_t bytes)
{
	size_t i = 0;

	while (i < num && pieces[i].len <= bytes)
		bytes -= pieces[i++].len;
	return i;
}

doca_error_t ferry_remote_write_gather(const struct ferry_remote *r, const struct ferry_remote_piece *pieces,
				       size_t num, size_t *written)
{
	struct iovec lv[FERRY_REMOTE_GATHER_MAX], rv[FERRY_REMOTE_GATHER_MAX];
	size_t done = 0;

	*written = 0;
	if (num > FERRY_REMOTE_GATHER_MAX)
		return FERRY_RULE_IN("ferry remote write", DOCA_ERROR_INVALID_VALUE, "%zu pieces; at most %u", num,
				     FERRY_REMOTE_GATHER_MAX);
	if (r->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
		return FERRY_RULE_IN("ferry remote write", DOCA_ERROR_NOT_PERMITTED,
				     "the export of pid %d is read-only", r->pid);
	for (size_t i = 0; i < num; i++) {
		doca_error_t err = check_range(r, pieces[i].dst, pieces[i].len, "ferry remote write");

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

static doca_error_t copy_both_remote(uint64_t dst, const struct ferry_remote *dst_r, uint64_t src,
				     const struct ferry_remote *src_r, size_t len)
{
	uint8_t *bounce = malloc(len < BOUNCE_LEN ? len : BOUNCE_LEN);
	doca_error_t err = DOCA_SUCCESS;

	if (bounce == NULL)
		return FERRY_RULE_IN("ferry remote copy", DOCA_ERROR_NO_MEMORY, "no memory for a bounce buffer");
	for (size_t done = 0; done < len && err == DOCA_SUCCESS;) {
		size_t n = len - done < BOUNCE_LEN ? len - done : BOUNCE_LEN;
		err = ferry_remote_read(src_r, bounce, src + done, n);
		if (err == DOCA_SUCCESS)
			err = ferry_remote_write(dst_r, dst + done, bounce, n);
		done += n;
	}
	free(bounce);
	return err;
}

doca_error_t ferry_link_copy(void *dst, const struct ferry_remote *dst_r, const void *src,
			     const struct ferry_remote *src_r, size_t len)
{
	if (len == 0)
		return DOCA_SUCCESS;
	if (dst_r == NULL && src_r == NULL) {
		memcpy(dst, src, len);
		return DOCA_SUCCESS;
	}
	if (dst_r == NULL)
		return ferry_remote_read(src_r, dst, (uintptr_t)src, len);
	if (src_r == NULL)
		return ferry_remote_write(dst_r, (uintptr_t)dst, src, len);
	return copy_both_remote((uintptr_t)dst, dst_r, (uintptr_t)src, src_r, len);
}
