/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_export.h - memory across the emulated PCIe link: exports, imports,
 * the per-process memory agent, shareable memory and the identity facts an
 * export descriptor carries. (The rendezvous and control sockets of Comch are
 * in ferry_link.h, and so is the domain's name, ferry_link_domain.)
 *
 * Call order:
 *   exporter: ferry_link_export_open (at doca_mmap_export_pci) ... ferry_link_export_close
 *             (at doca_mmap_stop / destroy: importers see the export revoked);
 *   importer: ferry_link_import_open (at doca_mmap_create_from_export),
 *             ferry_link_import_alive (before each use), ferry_link_import_close.
 * All functions are thread-safe. Each process runs one memory agent thread,
 * started at its first export, that hands file descriptors of shareable
 * exports to importers of the same user who present the export's token.
 * Error convention: doca_error_t, and these functions log their own one line.
 */
#ifndef FERRY_EXPORT_H_
#define FERRY_EXPORT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netinet/in.h>

#include <doca_error.h>

#include "common/ferry_abi.h"

struct ferry_access;
struct ferry_link_export;
struct ferry_link_import;

/**
 * Where an import's memory is, as the importer sees it. Range and permission
 * are what the exporter's agent answered (the descriptor only claims them).
 */
struct ferry_link_view {
	void *addr; /* the exporter's address of the range; mapped at the same address here */
	size_t len;
	uint32_t access; /* DOCA_ACCESS_FLAG_PCI_READ_ONLY or DOCA_ACCESS_FLAG_PCI_READ_WRITE */
	uint32_t pid;    /* the exporter's process */
	void *local;     /* FERRY_LINK_IMPORT_ANYWHERE: where the range is mapped here; else addr */
};

/**
 * Import flags. ANYWHERE: the range is mapped wherever the kernel likes
 * (view.local), never by cross-memory attach, and never shared with another
 * import of the same export: for Ferry's own shared structures (Comch rings),
 * which are addressed by offset and need real memory for atomics.
 */
#define FERRY_LINK_IMPORT_ANYWHERE 1u

/**
 * Import flag RDMA: the descriptor came inside an RDMA export descriptor
 * (a re-export, doca_mmap_export_rdma of a PCI import): it must be a
 * re-export (network path only), and the importing device's emulated DPU is
 * not compared with the exporter's (an RDMA peer is on no PCIe link).
 */
#define FERRY_LINK_IMPORT_RDMA 2u

/**
 * Where an export offers its network access path (importers on another
 * machine or in another network namespace reach it through this process's
 * network server, net_server.c): the exporting device's network identity.
 */
struct ferry_link_net_offer {
	struct in_addr ipv4; /* the address the server listens on */
	char iface[16];      /* its interface (UCX_NET_DEVICES unless the user set it) */
};

/** What FERRY_LINK_NET asks of the network access path (docs/cross-machine.md). */
enum ferry_link_net_mode {
	FERRY_LINK_NET_AUTO =
		0,             /* offered by devices bound to a network identity; used across machines and namespaces */
	FERRY_LINK_NET_ALWAYS, /* offered by every export (on 127.0.0.1 by default), used whenever offered */
	FERRY_LINK_NET_NEVER,  /* neither offered nor used */
};

/** FERRY_LINK_NET: auto (unset), always or never; another value is logged once and taken as auto. */
enum ferry_link_net_mode ferry_link_net_mode(void);

/**
 * Export [addr, addr + len) with one PCI permission, from a device on emulated
 * machine @p machine; with @p net (NULL: none), the network access path too.
 * @p call names the public call for log lines.
 */
doca_error_t ferry_link_export_open(void *addr, size_t len, uint32_t access, uint32_t machine,
				    const struct ferry_link_net_offer *net, const char *call,
				    struct ferry_link_export **exp);

/**
 * Re-export, over the network path only, [addr, addr + len) of an import that
 * this process reaches through @p via (its access path, not mapped here: the
 * host's memory by cross-memory attach), with the import's PCI permission
 * @p access. The network server then reads and writes through @p via; the
 * descriptor carries FERRY_DESC_HINT_NET_ONLY and the agent refuses it.
 * @p via must have hold and release (ferry_access.h): the re-export holds it
 * from here until the last copy through it returns, which may be after the
 * export is closed and the import that owns @p via closed too (a copy the host
 * never lets finish). @p host_pid, the process whose memory @p via reaches,
 * names it in log lines.
 */
doca_error_t ferry_link_reexport_open(const struct ferry_access *via, uint32_t host_pid, uint64_t addr, size_t len,
				      uint32_t access, uint32_t machine, const struct ferry_link_net_offer *net,
				      const char *call, struct ferry_link_export **exp);

/** The descriptor bytes, owned by the export. */
void ferry_link_export_desc(const struct ferry_link_export *exp, const void **desc, size_t *len);

/**
 * Revoke and free: importers' alive checks fail from now on, new imports are
 * refused. Never waits for a copy through a re-export's path: one still
 * running keeps what it uses (the entry, the path's hold) until it returns.
 */
void ferry_link_export_close(struct ferry_link_export *exp);

/**
 * Validate a descriptor and attach to its memory for a device on @p machine.
 * Errors: DOCA_ERROR_INVALID_VALUE (garbage, truncated, corrupt, another
 * machine), DOCA_ERROR_UNSUPPORTED_VERSION, DOCA_ERROR_NOT_PERMITTED (another
 * user, wrong token, a descriptor whose range or permission differs from the
 * export's, an agent that is not the exporter or sends unfit fds),
 * DOCA_ERROR_NOT_FOUND (another boot, exporter gone or restarted, export
 * revoked), DOCA_ERROR_NOT_SUPPORTED (memory not shareable),
 * DOCA_ERROR_NO_MEMORY (the range's addresses are taken here),
 * DOCA_ERROR_TIME_OUT (the agent did not answer within
 * FERRY_LINK_AGENT_TIMEOUT_MS, default 1000 ms).
 */
FERRY_PRIVATE_API
doca_error_t ferry_link_import_open(const void *desc, size_t desc_len, uint32_t machine, unsigned int flags,
				    const char *call, struct ferry_link_import **imp, struct ferry_link_view *view);

/** False once the exporter revoked the export or exited. Cheap: one load and one poll. */
FERRY_PRIVATE_API
bool ferry_link_import_alive(const struct ferry_link_import *imp);

/** Why an import is usable or not. */
enum ferry_link_liveness {
	FERRY_LINK_LIVE = 0,
	FERRY_LINK_REVOKED, /* the exporter stopped the export; it still runs */
	FERRY_LINK_EXITED,  /* the exporter's process is gone */
};

/** As ferry_link_import_alive, and when not alive, why (one more system call then). */
FERRY_PRIVATE_API
enum ferry_link_liveness ferry_link_import_liveness(const struct ferry_link_import *imp);

/** The exporter's pid of an import. */
FERRY_PRIVATE_API
uint32_t ferry_link_import_pid(const struct ferry_link_import *imp);

/**
 * How this process reaches an import's bytes (ferry_access.h): local, shared,
 * cma or net, chosen when the import was opened; valid until it is closed.
 */
const struct ferry_access *ferry_link_import_access(const struct ferry_link_import *imp);

FERRY_PRIVATE_API
void ferry_link_import_close(struct ferry_link_import *imp);

/** The kernel's boot id (16 bytes). */
FERRY_PRIVATE_API
doca_error_t ferry_link_boot_id(uint8_t out[16]);

/** The inode of this process's network namespace (/proc/self/ns/net): equal inodes, one namespace. */
doca_error_t ferry_link_netns(uint64_t *ino);

/** Start time of @p pid in clock ticks since boot; DOCA_ERROR_NOT_FOUND if there is no such process. */
FERRY_PRIVATE_API
doca_error_t ferry_link_pid_start_time(int pid, uint64_t *start);

/**
 * Find the shareable block (ferry_mem_alloc_shared) holding [addr, addr + len):
 * a dup of its memfd and the block's base. DOCA_ERROR_NOT_FOUND for other memory.
 */
doca_error_t ferry_shm_lookup(const void *addr, size_t len, int *fd_dup, void **block_base);

/**
 * Keep the shareable block holding @p addr mapped until ferry_shm_release,
 * even if its owner frees it meanwhile (an import of our own export reads the
 * owner's pages at their own address). NULL for other memory.
 */
struct shm_block *ferry_shm_hold(const void *addr);
void ferry_shm_release(struct shm_block *blk);

#endif /* FERRY_EXPORT_H_ */
