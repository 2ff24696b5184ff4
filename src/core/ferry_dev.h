/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_dev.h - internal view of the emulated devices (implemented in dev.c,
 * topology.c). Context types use it to check a device and read its caps.
 */
#ifndef FERRY_DEV_H_
#define FERRY_DEV_H_

#include <stdbool.h>
#include <stdint.h>

#include <netinet/in.h>

#include <doca_dev.h>
#include <doca_error.h>

#include "common/ferry_abi.h"

/** Which side of the emulated PCIe link a device sits on. */
enum ferry_dev_side {
	FERRY_SIDE_HOST = 0,
	FERRY_SIDE_DPU = 1,
};

/** DMA capabilities of one device (answered by the doca_dma_cap_* queries). */
struct ferry_dma_caps {
	bool memcpy_supported;
	uint64_t max_buf_size;     /* bytes per buffer (and per task) */
	uint32_t max_buf_list_len; /* buffers in a chained src or dst list */
	uint32_t max_num_tasks;    /* tasks per DMA context */
};

/** The side a device info describes. */
FERRY_PRIVATE_API
enum ferry_dev_side ferry_devinfo_side(const struct doca_devinfo *devinfo);

/** DMA caps of a device info; never NULL for a valid devinfo. */
FERRY_PRIVATE_API
const struct ferry_dma_caps *ferry_devinfo_dma_caps(const struct doca_devinfo *devinfo);

/** Short printable identity for log lines ("b1:00.0"). */
FERRY_PRIVATE_API
const char *ferry_devinfo_name(const struct doca_devinfo *devinfo);

/** Shorthand for an open device. */
FERRY_PRIVATE_API
const char *ferry_dev_name(const struct doca_dev *dev);

/**
 * Take and drop a reference on an open device from an object that uses it
 * (mmap, context): doca_dev_close answers DOCA_ERROR_IN_USE while any remain.
 */
FERRY_PRIVATE_API
void ferry_dev_get(struct doca_dev *dev);
FERRY_PRIVATE_API
void ferry_dev_put(struct doca_dev *dev);

/* ---- additions by the device layer (additive; see dev.c) ---------------- */

/** Which emulated DPU (0, 1, ...) a device belongs to; host and DPU sides of one DPU share it. */
FERRY_PRIVATE_API
uint32_t ferry_devinfo_machine(const struct doca_devinfo *devinfo);

/** True when @p devinfo points at a device info of the topology (NULL-safe). */
FERRY_PRIVATE_API
bool ferry_devinfo_is_valid(const struct doca_devinfo *devinfo);

/** A device's network identity as configured ('net' line, FERRY_RDMA_NET): "" when unbound. */
FERRY_PRIVATE_API
const char *ferry_devinfo_net(const struct doca_devinfo *devinfo);

/** Where a device's network identity is on this host (docs/topology.md, "Network identity"). */
struct ferry_net_identity {
	bool bound;          /* false: the default, this machine only (lo, 127.0.0.1) */
	char iface[16];      /* the interface (IFNAMSIZ) */
	struct in_addr ipv4; /* its IPv4 address, network order */
};

/**
 * Resolve a device's network identity against this host's interfaces: an
 * IPv4 identity finds the interface holding it, an interface name its first
 * IPv4 address.
 * @return DOCA_SUCCESS; DOCA_ERROR_NOT_FOUND when no interface matches here
 *         (a debug log line says why); DOCA_ERROR_DRIVER when the interfaces
 *         cannot be listed.
 */
FERRY_PRIVATE_API
doca_error_t ferry_devinfo_net_resolve(const struct doca_devinfo *devinfo, struct ferry_net_identity *out);

/**
 * ferry_devinfo_net_resolve for a call that needs the identity (an RDMA
 * context's start, an export that offers the network path): when it is not on
 * this host, DOCA_ERROR_NOT_FOUND and one line naming the rule for @p call.
 */
FERRY_PRIVATE_API
doca_error_t ferry_devinfo_net_require(const struct doca_devinfo *devinfo, const char *call,
				       struct ferry_net_identity *out);

/** True when @p dev is a device handle that is currently open (NULL-safe). */
FERRY_PRIVATE_API
bool ferry_dev_is_open(const struct doca_dev *dev);

/** True when @p dev_rep is a representor handle that is currently open (NULL-safe). */
FERRY_PRIVATE_API
bool ferry_dev_rep_is_open(const struct doca_dev_rep *dev_rep);

/** The info of an open representor. */
FERRY_PRIVATE_API
const struct doca_devinfo_rep *ferry_dev_rep_info(const struct doca_dev_rep *dev_rep);

/** Shorthand for an open representor in log lines (its interface name, "pf0hpf"). */
FERRY_PRIVATE_API
const char *ferry_dev_rep_name(const struct doca_dev_rep *dev_rep);

/** The DPU-side device whose representor list holds @p devinfo_rep. */
FERRY_PRIVATE_API
const struct doca_devinfo *ferry_devinfo_rep_manager(const struct doca_devinfo_rep *devinfo_rep);

/** The host-side device a representor stands for, or NULL (emulated functions have none). */
FERRY_PRIVATE_API
const struct doca_devinfo *ferry_devinfo_rep_peer(const struct doca_devinfo_rep *devinfo_rep);

/** Like ferry_dev_get/put for an open representor (a Comch server holds one). */
FERRY_PRIVATE_API
void ferry_dev_rep_get(struct doca_dev_rep *dev_rep);
FERRY_PRIVATE_API
void ferry_dev_rep_put(struct doca_dev_rep *dev_rep);

#endif /* FERRY_DEV_H_ */
