/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topology.c - the emulated machine: which devices and representors exist.
 *
 * The machine is described in a small line-based text (docs/topology.md). The
 * default machine is such a text compiled in; FERRY_TOPOLOGY names a file that
 * replaces it. Either way the same parser builds the same structures, once per
 * process (pthread_once), and they are never freed.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "core/topology_priv.h"

FERRY_LOG_MODULE("dev");

/*
 * One DPU: a DPU-side PF at 03:00.0 and a host-side PF at b1:00.0; the host PF
 * gets a NET representor "pf0hpf" on the DPU PF. These are the addresses real
 * DOCA programs default to.
 */
static const char default_topology[] = "dpu\n"
				       "dpu-pf  03:00.0 p0        mlx5_0\n"
				       "host-pf b1:00.0 ens1f0np0 mlx5_0\n";

/* Limits that keep a hostile or mistaken file from growing without bound. */
#define TOPO_MAX_DEVS 256
#define TOPO_MAX_REPS 1024
#define TOPO_MAX_LINE 512

/* DMA limits every emulated device reports (see docs/topology.md for why). */
static const struct ferry_dma_caps default_dma_caps = {
	.memcpy_supported = true,
	.max_buf_size = UINT64_C(1) << 31,
	.max_buf_list_len = 32,
	.max_num_tasks = 65536,
};

/* Parser state for one text. */
struct topo_builder {
	struct ferry_topology topo;
	const char *source; /* file name or "default", for log lines */
	unsigned int line;
	int machine;                 /* index of the current "dpu" block, -1 before any */
	struct doca_devinfo *dpu_pf; /* first DPU-side PF of the block: manages its reps */
	struct doca_devinfo *last;   /* the device of the latest device line: what 'net' binds */
	uint32_t host_pfs, host_vfs, emulated;
};

static struct ferry_topology the_topology;
static doca_error_t the_topology_status = DOCA_ERROR_INITIALIZATION;
static pthread_once_t the_topology_once = PTHREAD_ONCE_INIT;

/* ---- PCI addresses ---------------------------------------------------- */

static bool parse_hex(const char **p, unsigned int digits, unsigned int max, unsigned int *out)
{
	unsigned int v = 0;

	for (unsigned int i = 0; i < digits; i++) {
		char c = (*p)[i];

		if (!isxdigit((unsigned char)c))
			return false;
		v = v * 16 + (unsigned int)(isdigit((unsigned char)c) ? c - '0' : tolower((unsigned char)c) - 'a' + 10);
	}
	if (v > max)
		return false;
	*p += digits;
	*out = v;
	return true;
}

static bool expect_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

bool ferry_pci_addr_parse(const char *str, struct ferry_pci_addr *out)
{
	unsigned int domain = 0, bus, dev, fn;
	const char *p = str;
	size_t len;

	if (str == NULL || out == NULL)
		return false;
	len = strlen(str);
	if (len == DOCA_DEVINFO_PCI_ADDR_SIZE - 1) {
		if (!parse_hex(&p, 4, 0xffff, &domain) || !expect_char(&p, ':'))
			return false;
	} else if (len != DOCA_DEVINFO_PCI_BDF_SIZE - 1) {
		return false;
	}
	if (!parse_hex(&p, 2, 0xff, &bus) || !expect_char(&p, ':') || !parse_hex(&p, 2, 0x1f, &dev) ||
	    !expect_char(&p, '.') || !parse_hex(&p, 1, 7, &fn) || *p != '\0')
		return false;
	out->domain = (uint16_t)domain;
	out->bus = (uint8_t)bus;
	out->dev = (uint8_t)dev;
	out->fn = (uint8_t)fn;
	return true;
}

bool ferry_pci_addr_equal(const struct ferry_pci_addr *a, const struct ferry_pci_addr *b)
{
	return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev && a->fn == b->fn;
}

static void format_pci(const struct ferry_pci_addr *a, char *full, size_t full_size, char *bdf, size_t bdf_size)
{
	snprintf(full, full_size, "%04x:%02x:%02x.%x", a->domain, a->bus, a->dev & 0x1fu, a->fn & 7u);
	snprintf(bdf, bdf_size, "%02x:%02x.%x", a->bus, a->dev & 0x1fu, a->fn & 7u);
}

/* ---- building ------------------------------------------------------------ */

/* Room for "topology <source> line <n>", the call part of a rule line about the topology source. */
#define TOPO_WHO_SIZE 4160

/* The call part of a rule line about the topology source: "topology <source>". */
static const char *topo_who(const struct topo_builder *b, char *who, size_t size)
{
	snprintf(who, size, "topology %s", b->source);
	return who;
}

static doca_error_t syntax(const struct topo_builder *b, const char *why)
{
	char who[TOPO_WHO_SIZE];

	snprintf(who, sizeof(who), "topology %s line %u", b->source, b->line);
	return FERRY_RULE_IN(who, DOCA_ERROR_INITIALIZATION, "%s", why);
}

static bool copy_name(char *dst, size_t size, const char *src)
{
	size_t len = strlen(src);

	if (len == 0 || len >= size)
		return false;
	memcpy(dst, src, len + 1);
	return true;
}

static bool pci_in_use(const struct topo_builder *b, const struct ferry_pci_addr *pci, enum ferry_dev_side side,
		       uint32_t machine)
{
	for (uint32_t i = 0; i < b->topo.nb_devs; i++) {
		const struct doca_devinfo *d = b->topo.devs[i];

		/* SFs share their parent PF's address, so only PFs and VFs must be unique. */
		if (d->func_type != DOCA_PCI_FUNC_TYPE_SF && d->side == side && d->machine == machine &&
		    ferry_pci_addr_equal(&d->pci, pci))
			return true;
	}
	return false;
}

static doca_error_t add_dev(struct topo_builder *b, enum ferry_dev_side side, enum doca_pci_func_type type,
			    const char *pci, const char *iface, const char *ibdev, uint32_t sf_index,
			    struct doca_devinfo **out)
{
	struct doca_devinfo *d;
	struct ferry_pci_addr addr;

	if (b->machine < 0)
		return syntax(b, "a device before any 'dpu' line");
	if (b->topo.nb_devs == TOPO_MAX_DEVS)
		return syntax(b, "too many devices");
	if (!ferry_pci_addr_parse(pci, &addr))
		return syntax(b, "bad PCI address (want bb:dd.f or dddd:bb:dd.f)");
	if (type != DOCA_PCI_FUNC_TYPE_SF && pci_in_use(b, &addr, side, (uint32_t)b->machine))
		return syntax(b, "PCI address already used on this side of this dpu");
	d = ferry_calloc(1, sizeof(*d));
	if (d == NULL)
		return FERRY_RULE_IN("topology", DOCA_ERROR_NO_MEMORY, "no memory for a device");
	d->magic = FERRY_DEVINFO_MAGIC;
	d->pci = addr;
	format_pci(&addr, d->pci_str, sizeof(d->pci_str), d->bdf_str, sizeof(d->bdf_str));
	if (!copy_name(d->iface, sizeof(d->iface), iface) || !copy_name(d->ibdev, sizeof(d->ibdev), ibdev)) {
		free(d);
		return syntax(b, "interface or IB device name empty or too long");
	}
	d->func_type = type;
	d->sf_index = sf_index;
	d->side = side;
	d->machine = (uint32_t)b->machine;
	d->dma = default_dma_caps;
	d->handle.info = d;
	b->topo.devs[b->topo.nb_devs++] = d;
	b->last = d;
	*out = d;
	return DOCA_SUCCESS;
}

static doca_error_t add_rep(struct topo_builder *b, int kind, enum doca_pci_func_type type,
			    const struct ferry_pci_addr *pci, const char *iface, const char *vuid, uint32_t sf_index,
			    struct doca_devinfo *peer)
{
	struct doca_devinfo_rep *r;

	if (b->dpu_pf == NULL)
		return syntax(b, "a representor needs a 'dpu-pf' earlier in this dpu block");
	if (b->topo.nb_reps == TOPO_MAX_REPS)
		return syntax(b, "too many representors");
	r = ferry_calloc(1, sizeof(*r));
	if (r == NULL)
		return FERRY_RULE_IN("topology", DOCA_ERROR_NO_MEMORY, "no memory for a representor");
	r->magic = FERRY_DEVINFO_REP_MAGIC;
	r->pci = *pci;
	format_pci(pci, r->pci_str, sizeof(r->pci_str), r->bdf_str, sizeof(r->bdf_str));
	if (!copy_name(r->iface, sizeof(r->iface), iface) || !copy_name(r->vuid, sizeof(r->vuid), vuid)) {
		free(r);
		return syntax(b, "representor name empty or too long");
	}
	r->func_type = type;
	r->sf_index = sf_index;
	r->kind = kind;
	r->manager = b->dpu_pf;
	r->peer = peer;
	r->handle.info = r;
	b->topo.reps[b->topo.nb_reps++] = r;
	return DOCA_SUCCESS;
}

/* ---- one line per statement -------------------------------------------- */

#define MAX_WORDS 6

static doca_error_t stmt_dpu(struct topo_builder *b, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return syntax(b, "'dpu' takes no arguments");
	b->machine++;
	b->dpu_pf = NULL;
	b->last = NULL;
	b->host_pfs = b->host_vfs = b->emulated = 0;
	return DOCA_SUCCESS;
}

static doca_error_t stmt_dpu_pf(struct topo_builder *b, int argc, char **argv)
{
	struct doca_devinfo *d;
	doca_error_t err;

	if (argc != 4)
		return syntax(b, "usage: dpu-pf <pci> <iface> <ibdev>");
	err = add_dev(b, FERRY_SIDE_DPU, DOCA_PCI_FUNC_TYPE_PF, argv[1], argv[2], argv[3], 0, &d);
	if (err == DOCA_SUCCESS && b->dpu_pf == NULL)
		b->dpu_pf = d;
	return err;
}

static doca_error_t stmt_host_fn(struct topo_builder *b, int argc, char **argv, enum doca_pci_func_type type)
{
	char iface[FERRY_DEV_NAME_MAX], vuid[FERRY_VUID_MAX];
	struct doca_devinfo *d;
	doca_error_t err;

	if (argc != 4)
		return syntax(b, "usage: host-pf|host-vf <pci> <iface> <ibdev>");
	if (b->dpu_pf == NULL)
		return syntax(b, "host functions need a 'dpu-pf' earlier in this dpu block");
	err = add_dev(b, FERRY_SIDE_HOST, type, argv[1], argv[2], argv[3], 0, &d);
	if (err != DOCA_SUCCESS)
		return err;
	/* Name the representor the way BlueField names host functions' representors. */
	if (type == DOCA_PCI_FUNC_TYPE_PF) {
		snprintf(iface, sizeof(iface), "pf%uhpf", b->host_pfs);
		snprintf(vuid, sizeof(vuid), "FERRY%02uPF%uHPF", d->machine, b->host_pfs);
		b->host_pfs++;
	} else {
		snprintf(iface, sizeof(iface), "pf0vf%u", b->host_vfs);
		snprintf(vuid, sizeof(vuid), "FERRY%02uPF0VF%u", d->machine, b->host_vfs);
		b->host_vfs++;
	}
	return add_rep(b, DOCA_DEVINFO_REP_FILTER_NET, type, &d->pci, iface, vuid, 0, d);
}

static bool parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

static doca_error_t stmt_dpu_sf(struct topo_builder *b, int argc, char **argv)
{
	char iface[FERRY_DEV_NAME_MAX], vuid[FERRY_VUID_MAX];
	struct doca_devinfo *d;
	uint32_t sf_index;
	doca_error_t err;

	if (argc != 5)
		return syntax(b, "usage: dpu-sf <parent pci> <sf index> <iface> <ibdev>");
	if (!parse_u32(argv[2], &sf_index))
		return syntax(b, "bad SF index");
	if (b->dpu_pf == NULL)
		return syntax(b, "an SF needs a 'dpu-pf' earlier in this dpu block");
	err = add_dev(b, FERRY_SIDE_DPU, DOCA_PCI_FUNC_TYPE_SF, argv[1], argv[3], argv[4], sf_index, &d);
	if (err != DOCA_SUCCESS)
		return err;
	snprintf(iface, sizeof(iface), "pf0sf%u", sf_index);
	snprintf(vuid, sizeof(vuid), "FERRY%02uPF0SF%u", d->machine, sf_index);
	return add_rep(b, DOCA_DEVINFO_REP_FILTER_NET, DOCA_PCI_FUNC_TYPE_SF, &d->pci, iface, vuid, sf_index, d);
}

static doca_error_t stmt_emulated(struct topo_builder *b, int argc, char **argv)
{
	char vuid[FERRY_VUID_MAX];
	struct ferry_pci_addr addr;

	if (argc != 3)
		return syntax(b, "usage: emulated <pci> <iface>");
	if (!ferry_pci_addr_parse(argv[1], &addr))
		return syntax(b, "bad PCI address (want bb:dd.f or dddd:bb:dd.f)");
	snprintf(vuid, sizeof(vuid), "FERRY%02uEMU%u", (unsigned int)b->machine, b->emulated++);
	return add_rep(b, DOCA_DEVINFO_REP_FILTER_EMULATED, DOCA_PCI_FUNC_TYPE_PF, &addr, argv[2], vuid, 0, NULL);
}

const char *ferry_net_identity_check(const char *s)
{
	struct in_addr a;
	size_t n = strlen(s);

	if (n == 0)
		return "empty network identity";
	if (inet_pton(AF_INET, s, &a) == 1)
		return NULL;
	if (strspn(s, "0123456789.") == n)
		return "not an IPv4 address (want a.b.c.d)";
	if (strchr(s, ':') != NULL)
		return "IPv6 identities are not supported (want an IPv4 address or an interface name)";
	if (n > 15)
		return "interface name longer than 15 characters";
	if (strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
		return "neither an IPv4 address nor an interface name";
	return NULL;
}

/* net <iface|ipv4>: the network identity of the device on the line before. */
static doca_error_t stmt_net(struct topo_builder *b, int argc, char **argv)
{
	const char *why;

	if (argc != 2)
		return syntax(b, "usage: net <interface|IPv4 address> (binds the device of the line before)");
	if (b->last == NULL)
		return syntax(b, "'net' must follow a device line (dpu-pf, host-pf, host-vf, dpu-sf)");
	if (b->last->net[0] != '\0')
		return syntax(b, "this device already has a 'net' line");
	why = ferry_net_identity_check(argv[1]);
	if (why != NULL)
		return syntax(b, why);
	(void)copy_name(b->last->net, sizeof(b->last->net), argv[1]);
	return DOCA_SUCCESS;
}

doca_error_t ferry_topology_apply_net_env(struct ferry_topology *topo, const char *value)
{
	char copy[512];
	char *save = NULL, *item;

	if (strlen(value) >= sizeof(copy))
		return FERRY_RULE_IN("FERRY_RDMA_NET", DOCA_ERROR_INITIALIZATION, "longer than %zu characters",
				     sizeof(copy) - 1);
	strcpy(copy, value);
	if (strchr(copy, '=') == NULL) {
		const char *why = ferry_net_identity_check(copy);

		if (why != NULL)
			return FERRY_RULE_IN("FERRY_RDMA_NET", DOCA_ERROR_INITIALIZATION, "'%s': %s", value, why);
		for (uint32_t i = 0; i < topo->nb_devs; i++)
			(void)copy_name(topo->devs[i]->net, sizeof(topo->devs[i]->net), copy);
		return DOCA_SUCCESS;
	}
	for (item = strtok_r(copy, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		struct ferry_pci_addr pci;
		const char *why;
		bool found = false;

		if (eq == NULL)
			return FERRY_RULE_IN("FERRY_RDMA_NET", DOCA_ERROR_INITIALIZATION,
					     "'%s': with several bindings each is <pci>=<identity>", item);
		*eq = '\0';
		if (!ferry_pci_addr_parse(item, &pci))
			return FERRY_RULE_IN("FERRY_RDMA_NET", DOCA_ERROR_INITIALIZATION,
					     "'%s' is not a PCI address (want bb:dd.f or dddd:bb:dd.f)", item);
		why = ferry_net_identity_check(eq + 1);
		if (why != NULL)
			return FERRY_RULE_IN("FERRY_RDMA_NET", DOCA_ERROR_INITIALIZATION, "'%s': %s", eq + 1, why);
		for (uint32_t i = 0; i < topo->nb_devs; i++) {
			if (ferry_pci_addr_equal(&topo->devs[i]->pci, &pci)) {
				(void)copy_name(topo->devs[i]->net, sizeof(topo->devs[i]->net), eq + 1);
				found = true;
			}
		}
		if (!found)
			return FERRY_RULE_IN("FERRY_RDMA_NET", DOCA_ERROR_INITIALIZATION,
					     "no device at PCI address %s in the topology", item);
	}
	return DOCA_SUCCESS;
}

static doca_error_t stmt_strict(struct topo_builder *b, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return syntax(b, "'strict' takes no arguments");
	b->topo.strict = true;
	return DOCA_SUCCESS;
}

static doca_error_t parse_line(struct topo_builder *b, char *line)
{
	char *argv[MAX_WORDS + 1];
	char *save = NULL, *word;
	int argc = 0;

	line[strcspn(line, "#\r\n")] = '\0';
	for (word = strtok_r(line, " \t", &save); word != NULL; word = strtok_r(NULL, " \t", &save)) {
		if (argc == MAX_WORDS)
			return syntax(b, "too many words");
		argv[argc++] = word;
	}
	if (argc == 0)
		return DOCA_SUCCESS;
	if (strcmp(argv[0], "dpu") == 0)
		return stmt_dpu(b, argc, argv);
	if (strcmp(argv[0], "dpu-pf") == 0)
		return stmt_dpu_pf(b, argc, argv);
	if (strcmp(argv[0], "host-pf") == 0)
		return stmt_host_fn(b, argc, argv, DOCA_PCI_FUNC_TYPE_PF);
	if (strcmp(argv[0], "host-vf") == 0)
		return stmt_host_fn(b, argc, argv, DOCA_PCI_FUNC_TYPE_VF);
	if (strcmp(argv[0], "dpu-sf") == 0)
		return stmt_dpu_sf(b, argc, argv);
	if (strcmp(argv[0], "emulated") == 0)
		return stmt_emulated(b, argc, argv);
	if (strcmp(argv[0], "strict") == 0)
		return stmt_strict(b, argc, argv);
	if (strcmp(argv[0], "net") == 0)
		return stmt_net(b, argc, argv);
	return syntax(b, "unknown statement");
}

static doca_error_t builder_init(struct topo_builder *b, const char *source)
{
	memset(b, 0, sizeof(*b));
	b->source = source;
	b->machine = -1;
	b->topo.devs = ferry_calloc(TOPO_MAX_DEVS, sizeof(*b->topo.devs));
	b->topo.reps = ferry_calloc(TOPO_MAX_REPS, sizeof(*b->topo.reps));
	if (b->topo.devs == NULL || b->topo.reps == NULL)
		return FERRY_RULE_IN("topology", DOCA_ERROR_NO_MEMORY, "no memory");
	return DOCA_SUCCESS;
}

static void builder_discard(struct topo_builder *b)
{
	for (uint32_t i = 0; i < b->topo.nb_devs; i++)
		free(b->topo.devs[i]);
	for (uint32_t i = 0; i < b->topo.nb_reps; i++)
		free(b->topo.reps[i]);
	free(b->topo.devs);
	free(b->topo.reps);
	memset(&b->topo, 0, sizeof(b->topo));
}

static doca_error_t parse_stream(struct topo_builder *b, FILE *in)
{
	char line[TOPO_MAX_LINE];
	char who[TOPO_WHO_SIZE];
	doca_error_t err;

	while (fgets(line, sizeof(line), in) != NULL) {
		b->line++;
		if (strchr(line, '\n') == NULL && !feof(in))
			return syntax(b, "line too long");
		err = parse_line(b, line);
		if (err != DOCA_SUCCESS)
			return err;
	}
	if (ferror(in))
		return FERRY_RULE_IN(topo_who(b, who, sizeof(who)), DOCA_ERROR_INITIALIZATION, "read error");
	if (b->topo.nb_devs == 0)
		return FERRY_RULE_IN(topo_who(b, who, sizeof(who)), DOCA_ERROR_INITIALIZATION, "describes no device");
	return DOCA_SUCCESS;
}

static doca_error_t resolve_side(struct topo_builder *b)
{
	const char *side = getenv("FERRY_SIDE");
	char who[TOPO_WHO_SIZE];

	if (!b->topo.strict)
		return DOCA_SUCCESS;
	if (side != NULL && strcmp(side, "host") == 0)
		b->topo.my_side = FERRY_SIDE_HOST;
	else if (side != NULL && strcmp(side, "dpu") == 0)
		b->topo.my_side = FERRY_SIDE_DPU;
	else
		return FERRY_RULE_IN(topo_who(b, who, sizeof(who)), DOCA_ERROR_INITIALIZATION,
				     "strict mode needs FERRY_SIDE=host or FERRY_SIDE=dpu");
	return DOCA_SUCCESS;
}

static doca_error_t build(struct topo_builder *b, const char *path)
{
	FILE *in;
	char who[TOPO_WHO_SIZE];
	doca_error_t err;

	err = builder_init(b, path != NULL ? path : "default");
	if (err != DOCA_SUCCESS)
		return err;
	if (path != NULL)
		in = fopen(path, "r");
	else
		in = fmemopen((void *)(uintptr_t)default_topology, sizeof(default_topology) - 1, "r");
	if (in == NULL)
		return FERRY_RULE_IN(topo_who(b, who, sizeof(who)), DOCA_ERROR_INITIALIZATION, "cannot open: %s",
				     strerror(errno));
	err = parse_stream(b, in);
	fclose(in);
	if (err == DOCA_SUCCESS)
		err = resolve_side(b);
	return err;
}

doca_error_t ferry_topology_load(const char *path, struct ferry_topology *out)
{
	struct topo_builder b;
	doca_error_t err;

	err = build(&b, path);
	if (err != DOCA_SUCCESS) {
		builder_discard(&b);
		return err;
	}
	*out = b.topo;
	return DOCA_SUCCESS;
}

void ferry_topology_release(struct ferry_topology *topo)
{
	struct topo_builder b = {.topo = *topo};

	builder_discard(&b);
	memset(topo, 0, sizeof(*topo));
}

static void build_once(void)
{
	const char *path = getenv("FERRY_TOPOLOGY");
	const char *net = getenv("FERRY_RDMA_NET");

	if (path != NULL && path[0] == '\0')
		path = NULL;
	the_topology_status = ferry_topology_load(path, &the_topology);
	if (the_topology_status == DOCA_SUCCESS && net != NULL && net[0] != '\0')
		the_topology_status = ferry_topology_apply_net_env(&the_topology, net);
}

doca_error_t ferry_topology_get(const struct ferry_topology **topo)
{
	pthread_once(&the_topology_once, build_once);
	*topo = &the_topology;
	return the_topology_status;
}

bool ferry_topology_visible(const struct ferry_topology *topo, const struct doca_devinfo *info)
{
	return !topo->strict || info->side == topo->my_side;
}
