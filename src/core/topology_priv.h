/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topology_priv.h - the emulated machine as dev.c sees it (private to dev.c and
 * topology.c; other layers use ferry_dev.h).
 *
 * The topology is built once per process, on first use, and never freed:
 * device infos and representor infos live as long as the process, so a list
 * is just an array of pointers to them and an open handle is embedded in its
 * info. That is what makes "an open device keeps its devinfo" free.
 */
#ifndef FERRY_TOPOLOGY_H_
#define FERRY_TOPOLOGY_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_dev.h>
#include <doca_error.h>

#include "core/ferry_dev.h"

#define FERRY_DEVINFO_MAGIC     0x46444576u /* "FDEv" */
#define FERRY_DEVINFO_REP_MAGIC 0x46526570u /* "FRep" */

/** Longest interface or IB name the topology accepts (with its NUL). */
#define FERRY_DEV_NAME_MAX 32
/** Longest VUID the topology produces (with its NUL). */
#define FERRY_VUID_MAX     64

/** A parsed PCI address. */
struct ferry_pci_addr {
	uint16_t domain;
	uint8_t bus;
	uint8_t dev;
	uint8_t fn;
};

/** Open state of a device; embedded in its info, so one handle per device. */
struct doca_dev {
	struct doca_devinfo *info;
	uint32_t opens; /* doca_dev_open calls not yet closed */
	uint32_t users; /* ferry_dev_get references held by mmaps and contexts */
};

/** Open state of a representor. */
struct doca_dev_rep {
	struct doca_devinfo_rep *info;
	uint32_t opens;
	uint32_t users;
};

struct doca_devinfo {
	uint32_t magic;
	struct ferry_pci_addr pci;
	char pci_str[DOCA_DEVINFO_PCI_ADDR_SIZE]; /* "0000:b1:00.0" */
	char bdf_str[DOCA_DEVINFO_PCI_BDF_SIZE];  /* "b1:00.0", for log lines */
	char iface[FERRY_DEV_NAME_MAX];
	char ibdev[FERRY_DEV_NAME_MAX];
	enum doca_pci_func_type func_type;
	uint32_t sf_index;
	enum ferry_dev_side side;
	uint32_t machine;             /* which emulated DPU this function belongs to */
	char net[FERRY_DEV_NAME_MAX]; /* network identity: an interface or an IPv4 address; "" = this host only */
	struct ferry_dma_caps dma;
	struct doca_dev handle;
};

struct doca_devinfo_rep {
	uint32_t magic;
	struct ferry_pci_addr pci;
	char pci_str[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	char bdf_str[DOCA_DEVINFO_REP_PCI_BDF_SIZE];
	char iface[FERRY_DEV_NAME_MAX];
	char vuid[FERRY_VUID_MAX];
	enum doca_pci_func_type func_type;
	uint32_t sf_index;
	int kind;                     /* DOCA_DEVINFO_REP_FILTER_NET or _EMULATED */
	struct doca_devinfo *manager; /* the DPU-side device that lists it */
	struct doca_devinfo *peer;    /* the host-side function it stands for, or NULL */
	struct doca_dev_rep handle;
};

/** The whole emulated machine. */
struct ferry_topology {
	struct doca_devinfo **devs;
	uint32_t nb_devs;
	struct doca_devinfo_rep **reps;
	uint32_t nb_reps;
	bool strict;                 /* a process sees only the devices of its own side */
	enum ferry_dev_side my_side; /* meaningful in strict mode */
};

/**
 * The topology, built on first call from FERRY_TOPOLOGY (a file) or the default.
 * @param [out] topo  receives it.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INITIALIZATION (with a log line) when the
 *         file cannot be read or parsed; the answer is the same on every call.
 */
doca_error_t ferry_topology_get(const struct ferry_topology **topo);

/**
 * Build a topology from a file (NULL: the compiled-in default). Used once per
 * process by ferry_topology_get, and directly by tests.
 * @return DOCA_SUCCESS, DOCA_ERROR_INITIALIZATION (bad file, with a log line
 *         naming the line) or DOCA_ERROR_NO_MEMORY.
 */
doca_error_t ferry_topology_load(const char *path, struct ferry_topology *out);

/** Free what ferry_topology_load built (never the process topology). */
void ferry_topology_release(struct ferry_topology *topo);

/** Parse "dddd:bb:dd.f" or "bb:dd.f" (hex, either case). */
bool ferry_pci_addr_parse(const char *str, struct ferry_pci_addr *out);

/** True when a and b name the same function. */
bool ferry_pci_addr_equal(const struct ferry_pci_addr *a, const struct ferry_pci_addr *b);

/**
 * Check a network identity (the 'net' statement, FERRY_RDMA_NET): an IPv4
 * address in dotted form or an interface name (1-15 of [A-Za-z0-9_.-]).
 * @return NULL when @p s is one, else why not (for the log line).
 */
const char *ferry_net_identity_check(const char *s);

/**
 * Apply FERRY_RDMA_NET to @p topo: "<identity>" binds every device,
 * "<pci>=<identity>[,<pci>=<identity>...]" the devices at those PCI addresses
 * (every side and DPU). The variable wins over the file's 'net' lines.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INITIALIZATION with a log line.
 */
doca_error_t ferry_topology_apply_net_env(struct ferry_topology *topo, const char *value);

/** Whether a process would see this device (strict mode hides the other side). */
bool ferry_topology_visible(const struct ferry_topology *topo, const struct doca_devinfo *info);

#endif /* FERRY_TOPOLOGY_H_ */
