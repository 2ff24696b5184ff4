/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * caps.c - `ferry caps`: every device a DOCA program sees, its representors,
 * and what each Ferry library answers to its capability queries for it, as
 * text laid out like DOCA's doca_caps tool or as one JSON object.
 *
 * Nothing here is a known value: every line is the answer of a public cap
 * call (doca_dma_cap_*, doca_comch_cap_*, doca_mmap_cap_*, ...) made now, so
 * the listing is what a program would get, topology files included. A call
 * that fails shows as "error (<DOCA error name>)" and JSON null.
 *
 * One attribute is Ferry's own, not DOCA's: which emulated DPU a device
 * belongs to (ferry_devinfo_machine, from libdoca_common's private node, which
 * is built and installed with this command). With several DPUs in a topology
 * file, their devices may share PCI addresses; the index tells them apart.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <doca_clock.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_producer.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_rdma.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_sync_event.h>
#include <doca_version.h>

#include "core/ferry_dev.h" /* ferry_devinfo_machine: libdoca_common's FERRY_PRIVATE_0 node */
#include "ferry.h"

/* The shapes of DOCA's cap calls; each table row holds one, typed (no casts). */
enum cap_kind {
	CAP_IS,        /* doca_error_t f(devinfo): DOCA_SUCCESS or DOCA_ERROR_NOT_SUPPORTED */
	CAP_U8,        /* doca_error_t f(devinfo, uint8_t *): 1 or 0 */
	CAP_U32,       /* doca_error_t f(devinfo, uint32_t *) */
	CAP_U64,       /* doca_error_t f(devinfo, uint64_t *) */
	CAP_DMA_TASKS, /* doca_dma_cap_get_max_num_tasks: asks a DMA context on the open device */
};

struct cap {
	const char *lib;  /* group: dev, dma, comch, mmap, sync_event, ... */
	const char *name; /* key in the listing and the JSON */
	enum cap_kind kind;
	union {
		doca_error_t (*is)(const struct doca_devinfo *);
		doca_error_t (*u8)(const struct doca_devinfo *, uint8_t *);
		doca_error_t (*u32)(const struct doca_devinfo *, uint32_t *);
		doca_error_t (*u64)(const struct doca_devinfo *, uint64_t *);
	} fn;
};

#define IS(l, n, f)                      \
	{                                \
		l, n, CAP_IS, .fn.is = f \
	}
#define U8(l, n, f)                      \
	{                                \
		l, n, CAP_U8, .fn.u8 = f \
	}
#define U32(l, n, f)                       \
	{                                  \
		l, n, CAP_U32, .fn.u32 = f \
	}
#define U64(l, n, f)                       \
	{                                  \
		l, n, CAP_U64, .fn.u64 = f \
	}

/* The transport types a DOCA RDMA context may use on the device. */
static doca_error_t rdma_rc(const struct doca_devinfo *info)
{
	return doca_rdma_cap_transport_type_is_supported(info, DOCA_RDMA_TRANSPORT_TYPE_RC);
}

static doca_error_t rdma_dc(const struct doca_devinfo *info)
{
	return doca_rdma_cap_transport_type_is_supported(info, DOCA_RDMA_TRANSPORT_TYPE_DC);
}

/* In the order printed; a new cap call in include/ gets a row here. */
static const struct cap caps[] = {
	U8("dev", "hotplug_manager", doca_devinfo_cap_is_hotplug_manager_supported),
	U8("dev", "rep_filter_all", doca_devinfo_rep_cap_is_filter_all_supported),
	U8("dev", "rep_filter_net", doca_devinfo_rep_cap_is_filter_net_supported),
	U8("dev", "rep_filter_emulated", doca_devinfo_rep_cap_is_filter_emulated_supported),

	IS("dma", "task_memcpy", doca_dma_cap_task_memcpy_is_supported),
	U64("dma", "task_memcpy_max_buf_size", doca_dma_cap_task_memcpy_get_max_buf_size),
	U32("dma", "task_memcpy_max_buf_list_len", doca_dma_cap_task_memcpy_get_max_buf_list_len),
	{"dma", "max_num_tasks", CAP_DMA_TASKS, .fn.is = NULL},

	IS("comch", "server", doca_comch_cap_server_is_supported),
	IS("comch", "client", doca_comch_cap_client_is_supported),
	U32("comch", "max_name_len", doca_comch_cap_get_max_name_len),
	U32("comch", "max_msg_size", doca_comch_cap_get_max_msg_size),
	U32("comch", "max_recv_queue_size", doca_comch_cap_get_max_recv_queue_size),
	U32("comch", "max_clients", doca_comch_cap_get_max_clients),
	U32("comch", "max_send_tasks", doca_comch_cap_get_max_send_tasks),
	IS("comch", "consumer", doca_comch_consumer_cap_is_supported),
	U32("comch", "consumer_max_num_tasks", doca_comch_consumer_cap_get_max_num_tasks),
	U32("comch", "consumer_max_buf_size", doca_comch_consumer_cap_get_max_buf_size),
	U32("comch", "consumer_max_buf_list_len", doca_comch_consumer_cap_get_max_buf_list_len),
	U32("comch", "consumer_max_consumers", doca_comch_consumer_cap_get_max_consumers),
	U32("comch", "consumer_max_imm_data_len", doca_comch_consumer_cap_get_max_imm_data_len),
	IS("comch", "producer", doca_comch_producer_cap_is_supported),
	U32("comch", "producer_max_num_tasks", doca_comch_producer_cap_get_max_num_tasks),
	U32("comch", "producer_max_buf_size", doca_comch_producer_cap_get_max_buf_size),
	U32("comch", "producer_max_buf_list_len", doca_comch_producer_cap_get_max_buf_list_len),
	U32("comch", "producer_max_producers", doca_comch_producer_cap_get_max_producers),

	U8("mmap", "export_pci", doca_mmap_cap_is_export_pci_supported),
	U8("mmap", "create_from_export_pci", doca_mmap_cap_is_create_from_export_pci_supported),

	IS("mmap_advise", "task_cache_invalidate", doca_mmap_advise_cap_task_cache_invalidate_is_supported),
	U64("mmap_advise", "task_cache_invalidate_max_buf_size",
	    doca_mmap_advise_task_cache_invalidate_get_max_buf_size),

	IS("sync_event", "create_from_export", doca_sync_event_cap_is_create_from_export_supported),
	IS("sync_event", "remote_net_create_from_export",
	   doca_sync_event_cap_remote_net_is_create_from_export_supported),
	IS("sync_event", "export_to_remote_pci", doca_sync_event_cap_is_export_to_remote_pci_supported),
	IS("sync_event", "export_to_remote_net", doca_sync_event_cap_is_export_to_remote_net_supported),
	IS("sync_event", "export_to_dpa", doca_sync_event_cap_is_export_to_dpa_supported),
	IS("sync_event", "export_to_gpu", doca_sync_event_cap_is_export_to_gpu_supported),
	IS("sync_event", "remote_net_export_to_dpa", doca_sync_event_cap_remote_net_is_export_to_dpa_supported),
	IS("sync_event", "remote_net_export_to_gpu", doca_sync_event_cap_remote_net_is_export_to_gpu_supported),
	IS("sync_event", "task_get", doca_sync_event_cap_task_get_is_supported),
	IS("sync_event", "task_notify_set", doca_sync_event_cap_task_notify_set_is_supported),
	IS("sync_event", "task_notify_add", doca_sync_event_cap_task_notify_add_is_supported),
	IS("sync_event", "task_wait_eq", doca_sync_event_cap_task_wait_eq_is_supported),
	IS("sync_event", "task_wait_neq", doca_sync_event_cap_task_wait_neq_is_supported),

	IS("rdma", "transport_rc", rdma_rc),
	IS("rdma", "transport_dc", rdma_dc),
	U32("rdma", "max_send_queue_size", doca_rdma_cap_get_max_send_queue_size),
	U32("rdma", "max_recv_queue_size", doca_rdma_cap_get_max_recv_queue_size),
	U32("rdma", "max_send_buf_list_len", doca_rdma_cap_get_max_send_buf_list_len),
	U32("rdma", "max_message_size", doca_rdma_cap_get_max_message_size),
	U32("rdma", "gid_table_size", doca_rdma_cap_get_gid_table_size),
	IS("rdma", "task_receive", doca_rdma_cap_task_receive_is_supported),
	IS("rdma", "task_send", doca_rdma_cap_task_send_is_supported),
	IS("rdma", "task_send_imm", doca_rdma_cap_task_send_imm_is_supported),
	IS("rdma", "task_read", doca_rdma_cap_task_read_is_supported),
	IS("rdma", "task_write", doca_rdma_cap_task_write_is_supported),
	IS("rdma", "task_write_imm", doca_rdma_cap_task_write_imm_is_supported),
	IS("rdma", "task_atomic_cmp_swp", doca_rdma_cap_task_atomic_cmp_swp_is_supported),
	IS("rdma", "task_atomic_fetch_add", doca_rdma_cap_task_atomic_fetch_add_is_supported),
	IS("rdma", "task_remote_net_sync_event_get", doca_rdma_cap_task_remote_net_sync_event_get_is_supported),
	IS("rdma", "task_remote_net_sync_event_notify_set",
	   doca_rdma_cap_task_remote_net_sync_event_notify_set_is_supported),
	IS("rdma", "task_remote_net_sync_event_notify_add",
	   doca_rdma_cap_task_remote_net_sync_event_notify_add_is_supported),

	IS("clock", "nic_free_running", doca_clock_cap_nic_free_running_is_supported),
	IS("clock", "nic_real_time", doca_clock_cap_nic_real_time_is_supported),
	IS("clock", "nic_dpa_timer", doca_clock_cap_nic_dpa_timer_is_supported),
};

#define NUM_CAPS (sizeof(caps) / sizeof(caps[0]))

/* One answer: a yes/no (is_bool) or a number, or the error the call returned. */
struct cap_value {
	doca_error_t err;
	bool is_bool;
	uint64_t v;
};

static doca_error_t dma_max_num_tasks(struct doca_devinfo *info, uint32_t *n)
{
	struct doca_dev *dev;
	struct doca_dma *dma;
	doca_error_t err = doca_dev_open(info, &dev);

	if (err != DOCA_SUCCESS)
		return err;
	err = doca_dma_create(dev, &dma);
	if (err == DOCA_SUCCESS) {
		err = doca_dma_cap_get_max_num_tasks(dma, n);
		(void)doca_dma_destroy(dma);
	}
	(void)doca_dev_close(dev);
	return err;
}

static struct cap_value cap_query(const struct cap *c, struct doca_devinfo *info)
{
	struct cap_value r = {.err = DOCA_SUCCESS, .is_bool = false, .v = 0};
	uint8_t u8 = 0;
	uint32_t u32 = 0;
	uint64_t u64 = 0;

	switch (c->kind) {
	case CAP_IS:
		r.is_bool = true;
		r.err = c->fn.is(info);
		r.v = r.err == DOCA_SUCCESS;
		if (r.err == DOCA_ERROR_NOT_SUPPORTED)
			r.err = DOCA_SUCCESS;
		break;
	case CAP_U8:
		r.is_bool = true;
		r.err = c->fn.u8(info, &u8);
		r.v = u8 != 0;
		break;
	case CAP_U32:
		r.err = c->fn.u32(info, &u32);
		r.v = u32;
		break;
	case CAP_U64:
		r.err = c->fn.u64(info, &u64);
		r.v = u64;
		break;
	case CAP_DMA_TASKS:
		r.err = dma_max_num_tasks(info, &u32);
		r.v = u32;
		break;
	}
	return r;
}

static const char *func_type_name(enum doca_pci_func_type type)
{
	switch (type) {
	case DOCA_PCI_FUNC_TYPE_PF:
		return "PF";
	case DOCA_PCI_FUNC_TYPE_VF:
		return "VF";
	case DOCA_PCI_FUNC_TYPE_SF:
		return "SF";
	}
	return "?";
}

/* ---- collecting one device ---------------------------------------------- */

struct rep_info {
	char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	char iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
	char vuid[DOCA_DEVINFO_REP_VUID_SIZE];
	const char *type;
	const char *filter;
	bool has_sf;
	uint32_t sf_index;
	bool hotplug;
};

struct dev_info {
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	char iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
	char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	char mac[3 * DOCA_DEVINFO_MAC_ADDR_SIZE];
	const char *type;
	const char *side;
	uint32_t dpu;
	bool has_sf;
	uint32_t sf_index;
	struct rep_info *reps;
	uint32_t num_reps;
	struct cap_value values[NUM_CAPS];
};

static void collect_reps(struct doca_dev *dev, int filter, const char *filter_name, struct dev_info *d)
{
	struct doca_devinfo_rep **list;
	struct rep_info *grown;
	uint32_t n;

	if (doca_devinfo_rep_create_list(dev, filter, &list, &n) != DOCA_SUCCESS)
		return;
	grown = n == 0 ? d->reps : realloc(d->reps, (d->num_reps + n) * sizeof(*grown));
	if (grown == NULL) {
		doca_devinfo_rep_destroy_list(list);
		return;
	}
	d->reps = grown;
	for (uint32_t i = 0; i < n; i++) {
		struct rep_info *r = &d->reps[d->num_reps++];
		enum doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_PF;
		uint8_t hotplug = 0;

		memset(r, 0, sizeof(*r));
		(void)doca_devinfo_rep_get_pci_addr_str(list[i], r->pci);
		(void)doca_devinfo_rep_get_iface_name(list[i], r->iface, sizeof(r->iface));
		(void)doca_devinfo_rep_get_vuid(list[i], r->vuid, sizeof(r->vuid));
		(void)doca_devinfo_rep_get_pci_func_type(list[i], &type);
		(void)doca_devinfo_rep_get_is_hotplug(list[i], &hotplug);
		r->type = func_type_name(type);
		r->filter = filter_name;
		r->hotplug = hotplug != 0;
		r->has_sf = type == DOCA_PCI_FUNC_TYPE_SF &&
			    doca_devinfo_rep_get_sf_index(list[i], &r->sf_index) == DOCA_SUCCESS;
	}
	doca_devinfo_rep_destroy_list(list);
}

static void collect(struct doca_devinfo *info, struct dev_info *d)
{
	enum doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_PF;
	uint8_t mac[DOCA_DEVINFO_MAC_ADDR_SIZE];
	uint8_t net = 0, emulated = 0;
	struct doca_dev *dev;

	memset(d, 0, sizeof(*d));
	(void)doca_devinfo_get_pci_addr_str(info, d->pci);
	(void)doca_devinfo_get_iface_name(info, d->iface, sizeof(d->iface));
	(void)doca_devinfo_get_ibdev_name(info, d->ibdev, sizeof(d->ibdev));
	(void)doca_devinfo_get_pci_func_type(info, &type);
	d->type = func_type_name(type);
	d->has_sf = type == DOCA_PCI_FUNC_TYPE_SF && doca_devinfo_get_sf_index(info, &d->sf_index) == DOCA_SUCCESS;
	if (doca_devinfo_get_mac_addr(info, mac, sizeof(mac)) == DOCA_SUCCESS)
		snprintf(d->mac, sizeof(d->mac), "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
			 mac[4], mac[5]);
	d->dpu = ferry_devinfo_machine(info);
	/* The side is what Comch says: servers live on the DPU, clients on the host. */
	if (doca_comch_cap_server_is_supported(info) == DOCA_SUCCESS)
		d->side = "dpu";
	else if (doca_comch_cap_client_is_supported(info) == DOCA_SUCCESS)
		d->side = "host";
	else
		d->side = "unknown";
	for (size_t i = 0; i < NUM_CAPS; i++)
		d->values[i] = cap_query(&caps[i], info);

	/* Representors exist only where the filters are supported (asking elsewhere logs an error). */
	(void)doca_devinfo_rep_cap_is_filter_net_supported(info, &net);
	(void)doca_devinfo_rep_cap_is_filter_emulated_supported(info, &emulated);
	if ((net || emulated) && doca_dev_open(info, &dev) == DOCA_SUCCESS) {
		if (net)
			collect_reps(dev, DOCA_DEVINFO_REP_FILTER_NET, "net", d);
		if (emulated)
			collect_reps(dev, DOCA_DEVINFO_REP_FILTER_EMULATED, "emulated", d);
		(void)doca_dev_close(dev);
	}
}

/* ---- text ------------------------------------------------------------------ */

static void text_value(const struct cap_value *v)
{
	if (v->err != DOCA_SUCCESS)
		printf("error (%s)\n", doca_error_get_name(v->err));
	else if (v->is_bool)
		printf("%s\n", v->v ? "supported" : "unsupported");
	else
		printf("%" PRIu64 "\n", v->v);
}

static void print_text(const struct dev_info *d)
{
	const char *lib = NULL;

	printf("PCI: %s\n", d->pci);
	printf("    %-48s%s\n", "ibdev_name", d->ibdev);
	printf("    %-48s%s\n", "iface_name", d->iface);
	printf("    %-48s%s\n", "pci_func_type", d->type);
	if (d->has_sf)
		printf("    %-48s%u\n", "sf_index", d->sf_index);
	printf("    %-48s%s\n", "mac_addr", d->mac[0] != '\0' ? d->mac : "-");
	printf("    %-48s%s\n", "side", d->side);
	printf("    %-48s%u\n", "dpu", d->dpu);
	if (d->num_reps > 0)
		printf("    Representors:\n");
	for (uint32_t i = 0; i < d->num_reps; i++) {
		const struct rep_info *r = &d->reps[i];

		printf("        PCI: %s\n", r->pci);
		printf("            %-40s%s\n", "iface_name", r->iface);
		printf("            %-40s%s\n", "pci_func_type", r->type);
		if (r->has_sf)
			printf("            %-40s%u\n", "sf_index", r->sf_index);
		printf("            %-40s%s\n", "vuid", r->vuid);
		printf("            %-40s%s\n", "filter", r->filter);
		printf("            %-40s%s\n", "is_hotplug", r->hotplug ? "yes" : "no");
	}
	printf("    Capabilities:\n");
	for (size_t i = 0; i < NUM_CAPS; i++) {
		if (lib == NULL || strcmp(lib, caps[i].lib) != 0) {
			lib = caps[i].lib;
			printf("        %s\n", lib);
		}
		printf("            %-40s", caps[i].name);
		text_value(&d->values[i]);
	}
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_member(const char *indent, const char *key, const char *value, bool last)
{
	printf("%s", indent);
	ferry_json_string(stdout, key);
	printf(": ");
	ferry_json_string(stdout, value);
	printf("%s\n", last ? "" : ",");
}

static void print_json(const struct dev_info *d, bool last)
{
	const char *lib = NULL;

	printf("    {\n");
	json_member("      ", "pci_addr", d->pci, false);
	json_member("      ", "ibdev_name", d->ibdev, false);
	json_member("      ", "iface_name", d->iface, false);
	json_member("      ", "pci_func_type", d->type, false);
	if (d->has_sf)
		printf("      \"sf_index\": %u,\n", d->sf_index);
	if (d->mac[0] != '\0')
		json_member("      ", "mac_addr", d->mac, false);
	else
		printf("      \"mac_addr\": null,\n");
	json_member("      ", "side", d->side, false);
	printf("      \"dpu\": %u,\n", d->dpu);
	printf("      \"representors\": [");
	for (uint32_t i = 0; i < d->num_reps; i++) {
		const struct rep_info *r = &d->reps[i];

		printf("%s\n        {\n", i == 0 ? "" : ",");
		json_member("          ", "pci_addr", r->pci, false);
		json_member("          ", "iface_name", r->iface, false);
		json_member("          ", "pci_func_type", r->type, false);
		if (r->has_sf)
			printf("          \"sf_index\": %u,\n", r->sf_index);
		json_member("          ", "vuid", r->vuid, false);
		json_member("          ", "filter", r->filter, false);
		printf("          \"is_hotplug\": %s\n        }", r->hotplug ? "true" : "false");
	}
	printf("%s],\n", d->num_reps > 0 ? "\n      " : "");
	printf("      \"caps\": {");
	for (size_t i = 0; i < NUM_CAPS; i++) {
		const struct cap_value *v = &d->values[i];

		if (lib == NULL || strcmp(lib, caps[i].lib) != 0) {
			printf("%s\n        \"%s\": {", lib == NULL ? "" : "\n        },", caps[i].lib);
			lib = caps[i].lib;
		} else {
			printf(",");
		}
		printf("\n          \"%s\": ", caps[i].name);
		if (v->err != DOCA_SUCCESS)
			printf("null");
		else if (v->is_bool)
			printf("%s", v->v ? "true" : "false");
		else
			printf("%" PRIu64, v->v);
	}
	printf("\n        }\n      }\n    }%s\n", last ? "" : ",");
}

/* ---- the command ----------------------------------------------------------- */

static void print_help(void)
{
	printf("NAME\n"
	       "    ferry caps - list devices, representors and every library's capabilities\n"
	       "\n"
	       "SYNOPSIS\n"
	       "    ferry caps [--json] [--pci-addr ADDR]\n"
	       "\n"
	       "DESCRIPTION\n"
	       "    Lists every device of the emulated machine that a DOCA program sees, with\n"
	       "    its side and the index of the emulated DPU it belongs to; the\n"
	       "    representors of each DPU-side device; and, grouped by library (dev, dma,\n"
	       "    comch, mmap, mmap_advise, sync_event, rdma, clock), the answer of each of\n"
	       "    Ferry's capability calls for that device. Every value comes from the\n"
	       "    library's cap call made now, so a topology file (FERRY_TOPOLOGY) shows as\n"
	       "    a program would see it. A call that fails reads \"error (NAME)\" (null in\n"
	       "    JSON).\n"
	       "\n"
	       "OPTIONS\n"
	       "    -j, --json           print one JSON object: {\"ferry_version\", \"doca_api\",\n"
	       "                         \"devices\": [{\"pci_addr\", ..., \"representors\": [...],\n"
	       "                         \"caps\": {\"dma\": {...}, ...}}]}\n"
	       "    -p, --pci-addr ADDR  only the device at ADDR (bb:dd.f or dddd:bb:dd.f)\n"
	       "    -h, --help           show this text and exit\n"
	       "\n"
	       "ENVIRONMENT\n"
	       "    FERRY_TOPOLOGY, FERRY_SIDE  the machine to describe (docs/topology.md)\n"
	       "\n"
	       "EXIT STATUS\n"
	       "    0    the devices were listed\n"
	       "    1    the device list could not be made (bad topology file), or no device\n"
	       "         has the address given with --pci-addr\n"
	       "    2    usage error\n"
	       "\n"
	       "EXAMPLES\n"
	       "    ferry caps\n"
	       "    ferry caps --pci-addr 03:00.0\n"
	       "    ferry caps --json | python3 -m json.tool\n"
	       "\n"
	       "SEE ALSO\n"
	       "    ferry-devices, docs/ferry-command.md, docs/topology.md\n");
}

int ferry_caps_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'j'},
		{"pci-addr", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *pci = NULL;
	bool json = false;
	struct doca_devinfo **list;
	struct dev_info *devs;
	uint32_t n, shown = 0;
	doca_error_t err;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:jp:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'p':
			pci = optarg;
			break;
		case 'h':
			print_help();
			return FERRY_EXIT_OK;
		default:
			return ferry_getopt_error("caps", c, argv);
		}
	}
	if (optind < argc)
		return ferry_usage_error("caps", "unexpected argument '%s'", argv[optind]);

	err = doca_devinfo_create_list(&list, &n);
	if (err != DOCA_SUCCESS) {
		fprintf(stderr, "ferry caps: cannot list devices: %s\n", doca_error_get_descr(err));
		return FERRY_EXIT_FAIL;
	}
	devs = calloc(n > 0 ? n : 1, sizeof(*devs));
	if (devs == NULL) {
		doca_devinfo_destroy_list(list);
		fprintf(stderr, "ferry caps: out of memory\n");
		return FERRY_EXIT_INTERNAL;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (pci != NULL) {
			uint8_t equal = 0;

			err = doca_devinfo_is_equal_pci_addr(list[i], pci, &equal);
			if (err != DOCA_SUCCESS) {
				doca_devinfo_destroy_list(list);
				free(devs);
				return ferry_usage_error("caps", "'%s' is not a PCI address (bb:dd.f)", pci);
			}
			if (!equal)
				continue;
		}
		collect(list[i], &devs[shown++]);
	}
	doca_devinfo_destroy_list(list);

	if (json) {
		printf("{\n  \"ferry_version\": \"%s\",\n  \"doca_api\": \"%s\",\n  \"devices\": [\n", FERRY_VERSION,
		       doca_version_runtime());
		for (uint32_t i = 0; i < shown; i++)
			print_json(&devs[i], i + 1 == shown);
		printf("  ]\n}\n");
	} else {
		for (uint32_t i = 0; i < shown; i++) {
			if (i > 0)
				printf("\n");
			print_text(&devs[i]);
		}
	}
	for (uint32_t i = 0; i < shown; i++)
		free(devs[i].reps);
	free(devs);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "ferry caps: cannot write the listing\n");
		return FERRY_EXIT_FAIL;
	}
	if (pci != NULL && shown == 0) {
		fprintf(stderr, "ferry caps: no device at %s\n", pci);
		return FERRY_EXIT_FAIL;
	}
	return FERRY_EXIT_OK;
}
