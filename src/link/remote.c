/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * remote.c - copies to and from an exporter's memory by cross-memory attach
 * (process_vm_readv / process_vm_writev), bounded by the exported range and
 * its permission, and only while the export is live.
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
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>

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

static doca_error_t check_range(const struct ferry_remote *r, uint64_t addr, size_t len, const char *what)
{
	/* Offsets, not end addresses, so nothing can wrap. */
	if (addr < r->addr || addr - r->addr > r->len || len > r->len - (addr - r->addr))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "ferry remote %s: [0x%llx, +%zu) lies outside the export [0x%llx, +%llu) of pid %d", what,
				  (unsigned long long)addr, len, (unsigned long long)r->addr, (unsigned long long)r->len,
				  r->pid);
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
		ssize_t got = write ? process_vm_writev(r->pid, &lv, 1, &rv, 1, 0) :
				      process_vm_readv(r->pid, &lv, 1, &rv, 1, 0);
		if (got <= 0) {
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0 && errno == ESRCH)
				return DOCA_ERROR_NOT_CONNECTED;
			return FERRY_RULE(DOCA_ERROR_IO_FAILED, "ferry remote %s of %zu bytes at 0x%llx in pid %d failed: %s",
					  write ? "write" : "read", n, (unsigned long long)(remote + done), r->pid,
					  got < 0 ? strerror(errno) : "no progress");
		}
		done += (size_t)got;
	}
	/* Trust the bytes only if they came from the exporter, not from a process that reused its pid. */
	return ferry_link_peer_alive_cached(r->state, r->pidfd, r->checked_ns) ? DOCA_SUCCESS :
									     DOCA_ERROR_NOT_CONNECTED;
}

doca_error_t ferry_remote_read(const struct ferry_remote *r, void *dst, uint64_t src, size_t len)
{
	doca_error_t err = check_range(r, src, len, "read");

	return err != DOCA_SUCCESS ? err : transfer(r, dst, src, len, false);
}

doca_error_t ferry_remote_write(const struct ferry_remote *r, uint64_t dst, const void *src, size_t len)
{
	if (r->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "ferry remote write: the export of pid %d is read-only",
				  r->pid);
	doca_error_t err = check_range(r, dst, len, "write");

	return err != DOCA_SUCCESS ? err : transfer(r, (void *)(uintptr_t)src, dst, len, true);
}
