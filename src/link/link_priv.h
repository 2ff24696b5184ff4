/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link_priv.h - what the exporter side (agent.c) and the importer side
 * (import.c) share: the agent's request/reply messages and the local serve call.
 */
#ifndef FERRY_LINK_PRIV_H_
#define FERRY_LINK_PRIV_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

#include "link/export_desc_priv.h"
#include "link/ferry_access.h"

#define LINK_MSG_MAGIC   0x4b4e4c46u /* "FLNK" */
#define LINK_MSG_VERSION 2u

/* Importer -> agent: which export, proved by its token. */
struct link_req {
	uint32_t magic;
	uint32_t version;
	uint64_t export_id;
	uint8_t token[FERRY_DESC_TOKEN_LEN];
};

/*
 * Agent -> importer; on success fds ride along (SCM_RIGHTS): the state page,
 * then the memory when the export is shareable. The range and permission here
 * are the authority: the descriptor only claims them, and an import whose
 * descriptor disagrees with its agent is refused.
 */
struct link_rep {
	uint32_t magic;
	int32_t status; /* doca_error_t */
	uint64_t addr;  /* the exported range in the exporter */
	uint64_t len;
	uint32_t access;   /* DOCA_ACCESS_FLAG_PCI_READ_ONLY or DOCA_ACCESS_FLAG_PCI_READ_WRITE */
	uint32_t reserved; /* 0 */
	uint64_t map_base; /* page-aligned start of the exported pages in the exporter */
	uint64_t map_len;
	uint64_t mem_off; /* offset of map_base in the memory fd */
};

/*
 * Check a successful reply against the descriptor it answers and the rules of
 * the format (pure: the fuzz target calls it). @p page is the page size and
 * @p has_mem whether a memory fd came with it. On failure *why names the rule.
 */
doca_error_t ferry_link_check_rep(const struct ferry_export_desc *d, const struct link_rep *rep, size_t page,
				  bool has_mem, const char **why);

/*
 * Check an fd received from another process before it is mapped: a memory
 * file (memfd) sealed against shrinking, at least @p need bytes long. A
 * descriptor that fails gets DOCA_ERROR_NOT_PERMITTED and *why.
 */
doca_error_t ferry_link_check_memfd(int fd, uint64_t need, const char **why);

/* Values of the export's state word, in a page the importers map read-only. */
#define LINK_STATE_LIVE    0x4c495645u
#define LINK_STATE_REVOKED 0u

/*
 * Answer @p req; on success *state_fd is a new read-only fd and *mem_fd a new
 * fd of the memory (read-only for a PCI_READ_ONLY export) or -1 when the range
 * is not shareable. The caller closes them.
 */
void ferry_link_serve(const struct link_req *req, struct link_rep *rep, int *mem_fd, int *state_fd);

/*
 * An import's access path (ferry_access.h): the exporter's pid and range, and
 * what tells whether it is still there. import.c fills it and picks the ops
 * (local, shared or cma); access.c and remote.c copy.
 */
struct link_access {
	struct ferry_access base;
	int pid;
	uint64_t addr; /* the range and permission the agent granted */
	uint64_t len;
	uint32_t access;
	uint8_t *local;                /* where addr is reachable here (mapped paths; NULL for cma) */
	const _Atomic uint32_t *state; /* the export's state word */
	int pidfd;                     /* readable once the exporter exited; -1 for our own export */
	_Atomic uint64_t *checked_ns;  /* when pidfd last said "alive" (in the import's mapping) */
};

/*
 * The hold and release of the three paths (import.c): a reference to the
 * import's mapping that holds the path, counted with the imports that share
 * it, so the mapping goes when the last of them goes.
 */
void link_access_hold(const struct ferry_access *a);
void link_access_release(const struct ferry_access *a);

/* The three paths: our own export (access.c), a shared mapping (access.c), cross-memory attach (remote.c). */
extern const struct ferry_access_ops link_access_local_ops;
extern const struct ferry_access_ops link_access_shared_ops;
extern const struct ferry_access_ops link_access_cma_ops;

/**
 * Whether [addr, addr + len) lies inside the range [base, base + size):
 * offsets, not end addresses, so nothing can wrap. Every path's check, the
 * network server's and the network client's.
 */
static inline bool link_range_inside(uint64_t base, uint64_t size, uint64_t addr, uint64_t len)
{
	return addr >= base && addr - base <= size && len <= size - (addr - base);
}

/* The range check every path makes, then liveness (state word): remote.c. */
doca_error_t link_access_check(const struct link_access *a, uint64_t addr, size_t len, const char *what);

/* False once the export was revoked or its process exited (remote.c). */
bool ferry_link_peer_alive(const _Atomic uint32_t *state, int pidfd);

/*
 * The same, for every task: the state word is read each time, the pidfd is
 * polled only when *checked_ns (its last "alive", on the coarse clock) is 1 ms
 * old or older, since a poll per small copy costs a quarter of the bandwidth.
 * An exporter's death is thus seen within a tick of the coarse clock (4 ms at
 * HZ 250) and a millisecond; its pages stay mapped meanwhile.
 */
bool ferry_link_peer_alive_cached(const _Atomic uint32_t *state, int pidfd, _Atomic uint64_t *checked_ns);

#endif /* FERRY_LINK_PRIV_H_ */
