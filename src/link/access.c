/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * access.c - the mapped access paths (ferry_access.h): an import of this
 * process's own export ("local") and a shared mapping of another process's
 * memfd ("shared"). Both reach the exporter's bytes by loads and stores at
 * a->local; they differ in what tells that the exporter is gone (our own
 * export has no pidfd to watch). Also ferry_access_copy, the one-descriptor
 * copy the engines make when either side goes through a path that is not
 * mapped. The cross-memory-attach path is remote.c.
 *
 * Engines never call read/write of a mapped path on their hot path: its
 * descriptors carry no access pointer and are copied as local memory (the
 * caller checked liveness at submit). These calls serve generic users (a
 * copy where a mapped side meets a cma side, tools, tests).
 */
#include <stdlib.h>
#include <string.h>

#include <doca_types.h>

#include "common/ferry_log.h"
#include "link/ferry_access.h"
#include "link/link_priv.h"

FERRY_LOG_MODULE("link");

/* Implementations embed struct ferry_access first (link_priv.h). */
static inline const struct link_access *mapped_of(const struct ferry_access *a)
{
	return (const struct link_access *)a;
}

static doca_error_t mapped_read(const struct ferry_access *a, void *dst, uint64_t src, size_t len)
{
	const struct link_access *m = mapped_of(a);
	doca_error_t err = link_access_check(m, src, len, "ferry mapped read");

	if (err == DOCA_SUCCESS && len != 0)
		memcpy(dst, m->local + (src - m->addr), len);
	return err;
}

static doca_error_t mapped_write(const struct ferry_access *a, uint64_t dst, const void *src, size_t len)
{
	const struct link_access *m = mapped_of(a);
	doca_error_t err;

	if (m->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE)
		return FERRY_RULE_IN("ferry mapped write", DOCA_ERROR_NOT_PERMITTED,
				     "the export of pid %d is read-only", m->pid);
	err = link_access_check(m, dst, len, "ferry mapped write");
	if (err == DOCA_SUCCESS && len != 0)
		memcpy(m->local + (dst - m->addr), src, len);
	return err;
}

/* Our own export: revoked when its state word says so (we are alive). */
static bool local_alive(const struct ferry_access *a)
{
	return ferry_link_peer_alive(mapped_of(a)->state, -1);
}

/* Another process's memory: its state word, and its pidfd at most once a coarse-clock tick. */
static bool shared_alive(const struct ferry_access *a)
{
	const struct link_access *m = mapped_of(a);

	return ferry_link_peer_alive_cached(m->state, m->pidfd, m->checked_ns);
}

const struct ferry_access_ops link_access_local_ops = {
	.name = "local",
	.mapped = true,
	.read = mapped_read,
	.write = mapped_write,
	.write_gather = NULL,
	.alive = local_alive,
	.hold = link_access_hold,
	.release = link_access_release,
};

const struct ferry_access_ops link_access_shared_ops = {
	.name = "shared",
	.mapped = true,
	.read = mapped_read,
	.write = mapped_write,
	.write_gather = NULL,
	.alive = shared_alive,
	.hold = link_access_hold,
	.release = link_access_release,
};

/* ---- one copy, either side through any path ---- */

#define BOUNCE_LEN (1u << 20)

/* Neither side reachable by loads and stores: read into a local bounce buffer, then write. */
static doca_error_t copy_bounced(uint64_t dst, const struct ferry_access *dst_a, uint64_t src,
				 const struct ferry_access *src_a, size_t len)
{
	uint8_t *bounce = malloc(len < BOUNCE_LEN ? len : BOUNCE_LEN);
	doca_error_t err = DOCA_SUCCESS;

	if (bounce == NULL)
		return FERRY_RULE_IN("ferry remote copy", DOCA_ERROR_NO_MEMORY, "no memory for a bounce buffer");
	for (size_t done = 0; done < len && err == DOCA_SUCCESS;) {
		size_t n = len - done < BOUNCE_LEN ? len - done : BOUNCE_LEN;

		err = src_a->ops->read(src_a, bounce, src + done, n);
		if (err == DOCA_SUCCESS)
			err = dst_a->ops->write(dst_a, dst + done, bounce, n);
		done += n;
	}
	free(bounce);
	return err;
}

doca_error_t ferry_access_copy(void *dst, const struct ferry_access *dst_a, const void *src,
			       const struct ferry_access *src_a, size_t len)
{
	bool dst_mapped = ferry_access_mapped(dst_a), src_mapped = ferry_access_mapped(src_a);

	if (len == 0)
		return DOCA_SUCCESS;
	if (dst_mapped && src_mapped) {
		memcpy(dst, src, len);
		return DOCA_SUCCESS;
	}
	if (dst_mapped)
		return src_a->ops->read(src_a, dst, (uintptr_t)src, len);
	if (src_mapped)
		return dst_a->ops->write(dst_a, (uintptr_t)dst, src, len);
	return copy_bounced((uintptr_t)dst, dst_a, (uintptr_t)src, src_a, len);
}
