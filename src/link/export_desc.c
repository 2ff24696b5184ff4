/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_desc.c - encode and decode export descriptors (format in export_desc_priv.h).
 * Pure functions: they read and write only the buffers they are given, so the
 * decoder can be fuzzed on its own.
 */
#include <string.h>

#include <doca_types.h>

#include "common/ferry_bytes.h"
#include "link/export_desc_priv.h"

#define OFF_MAGIC     0
#define OFF_VERSION   4
#define OFF_HINTS     6
#define OFF_TOTAL     8
#define OFF_CRC       12
#define OFF_BOOT      16
#define OFF_PID       32
#define OFF_UID       36
#define OFF_START     40
#define OFF_EXPORT_ID 48
#define OFF_TOKEN     56
#define OFF_ADDR      72
#define OFF_LEN       80
#define OFF_ACCESS    88
#define OFF_MACHINE   92
#define OFF_AGENT_LEN 96
#define OFF_RESERVED  98
#define OFF_AGENT     100

/* The network section, at offsets from the end of the agent name. */
#define NET_OFF_IPV4     0
#define NET_OFF_PORT     4
#define NET_OFF_RESERVED 6
#define NET_OFF_NS       8

_Static_assert(OFF_AGENT == FERRY_DESC_FIXED_LEN, "fixed part of the descriptor");
_Static_assert(NET_OFF_NS + 8 == FERRY_DESC_NET_LEN, "network section of the descriptor");

uint32_t ferry_desc_crc32(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffffu;

	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		for (int b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

/* Exactly one PCI permission: the exporter chose read-only or read-write. */
static int access_is_valid(uint32_t access)
{
	return access == DOCA_ACCESS_FLAG_PCI_READ_ONLY || access == DOCA_ACCESS_FLAG_PCI_READ_WRITE;
}

/* A socket name is printable ASCII without '/' tricks that matter: just printable. */
static int agent_is_valid(const char *name, size_t len)
{
	if (len == 0 || len > FERRY_DESC_MAX_AGENT)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (name[i] < 0x21 || name[i] > 0x7e)
			return 0;
	return 1;
}

static const char *check_fields(const struct ferry_export_desc *d)
{
	if ((d->hints & ~FERRY_DESC_KNOWN_HINTS) != 0)
		return "unknown transport hints";
	if (d->hints == 0)
		return "no transport hint";
	/* A re-export's bytes are not in the exporter's memory: only its network server reaches them. */
	if ((d->hints & FERRY_DESC_HINT_NET_ONLY) != 0 &&
	    (d->hints & (FERRY_DESC_HINT_NET | FERRY_DESC_HINT_SHAREABLE | FERRY_DESC_HINT_CMA)) != FERRY_DESC_HINT_NET)
		return "the network-only hint needs the network hint and no shareable or cross-memory attach hint";
	if (!access_is_valid(d->access))
		return "access is not exactly one of PCI_READ_ONLY and PCI_READ_WRITE";
	if (d->len == 0)
		return "empty range";
	if (d->addr == 0)
		return "range starts at address 0";
	if (d->addr + d->len < d->addr)
		return "range wraps around the address space";
	if (d->pid == 0)
		return "pid 0";
	if (!agent_is_valid(d->agent, d->agent_len))
		return "agent socket name is empty, too long or not printable";
	if ((d->hints & FERRY_DESC_HINT_NET) != 0) {
		if (d->net_port == 0)
			return "network section names port 0";
		if (d->net_ipv4[0] == 0 || d->net_ipv4[0] >= 224)
			return "network section's address is not a unicast IPv4 address";
	}
	return NULL;
}

static size_t total_len(const struct ferry_export_desc *d)
{
	return FERRY_DESC_FIXED_LEN + d->agent_len + ((d->hints & FERRY_DESC_HINT_NET) != 0 ? FERRY_DESC_NET_LEN : 0);
}

size_t ferry_export_desc_encode(const struct ferry_export_desc *desc, uint8_t *out, size_t room)
{
	size_t total = total_len(desc);

	if (check_fields(desc) != NULL || room < total || strlen(desc->agent) != desc->agent_len)
		return 0;
	memset(out, 0, total);
	ferry_le_put32(out + OFF_MAGIC, FERRY_DESC_MAGIC);
	ferry_le_put16(out + OFF_VERSION, FERRY_DESC_VERSION);
	ferry_le_put16(out + OFF_HINTS, desc->hints);
	ferry_le_put32(out + OFF_TOTAL, (uint32_t)total);
	memcpy(out + OFF_BOOT, desc->boot_id, FERRY_DESC_BOOT_ID_LEN);
	ferry_le_put32(out + OFF_PID, desc->pid);
	ferry_le_put32(out + OFF_UID, desc->uid);
	ferry_le_put64(out + OFF_START, desc->start_time);
	ferry_le_put64(out + OFF_EXPORT_ID, desc->export_id);
	memcpy(out + OFF_TOKEN, desc->token, FERRY_DESC_TOKEN_LEN);
	ferry_le_put64(out + OFF_ADDR, desc->addr);
	ferry_le_put64(out + OFF_LEN, desc->len);
	ferry_le_put32(out + OFF_ACCESS, desc->access);
	ferry_le_put32(out + OFF_MACHINE, desc->machine);
	ferry_le_put16(out + OFF_AGENT_LEN, desc->agent_len);
	memcpy(out + OFF_AGENT, desc->agent, desc->agent_len);
	if ((desc->hints & FERRY_DESC_HINT_NET) != 0) {
		uint8_t *net = out + OFF_AGENT + desc->agent_len;

		memcpy(net + NET_OFF_IPV4, desc->net_ipv4, 4);
		ferry_le_put16(net + NET_OFF_PORT, desc->net_port);
		ferry_le_put64(net + NET_OFF_NS, desc->net_ns);
	}
	ferry_le_put32(out + OFF_CRC, ferry_desc_crc32(out, total));
	return total;
}

/* Header checks: everything needed before the body may be read. */
static doca_error_t check_header(const uint8_t *p, size_t len, const char **why)
{
	if (len < OFF_CRC + 4) {
		*why = "shorter than the descriptor header";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ferry_le_get32(p + OFF_MAGIC) != FERRY_DESC_MAGIC) {
		*why = "bad magic (not a Ferry export descriptor)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ferry_le_get16(p + OFF_VERSION) != FERRY_DESC_VERSION) {
		*why = "descriptor format version is not 1";
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (ferry_le_get32(p + OFF_TOTAL) != len) {
		*why = "length field does not match the number of bytes given (truncated or padded)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (len < FERRY_DESC_FIXED_LEN || len > FERRY_DESC_MAX_LEN) {
		*why = "length outside the possible range";
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

static int crc_matches(const uint8_t *p, size_t len)
{
	uint8_t copy[FERRY_DESC_MAX_LEN];

	memcpy(copy, p, len);
	ferry_le_put32(copy + OFF_CRC, 0);
	return ferry_desc_crc32(copy, len) == ferry_le_get32(p + OFF_CRC);
}

doca_error_t ferry_export_desc_decode(const void *buf, size_t len, struct ferry_export_desc *desc, const char **why)
{
	const uint8_t *p = buf;
	struct ferry_export_desc d;
	const char *dummy;

	if (why == NULL)
		why = &dummy;
	if (buf == NULL || desc == NULL) {
		*why = "NULL buffer";
		return DOCA_ERROR_INVALID_VALUE;
	}
	doca_error_t err = check_header(p, len, why);
	if (err != DOCA_SUCCESS)
		return err;
	if (!crc_matches(p, len)) {
		*why = "checksum mismatch (corrupted in transit)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ferry_le_get16(p + OFF_RESERVED) != 0) {
		*why = "reserved field is not zero";
		return DOCA_ERROR_INVALID_VALUE;
	}
	memset(&d, 0, sizeof(d));
	d.version = ferry_le_get16(p + OFF_VERSION);
	d.hints = ferry_le_get16(p + OFF_HINTS);
	memcpy(d.boot_id, p + OFF_BOOT, FERRY_DESC_BOOT_ID_LEN);
	d.pid = ferry_le_get32(p + OFF_PID);
	d.uid = ferry_le_get32(p + OFF_UID);
	d.start_time = ferry_le_get64(p + OFF_START);
	d.export_id = ferry_le_get64(p + OFF_EXPORT_ID);
	memcpy(d.token, p + OFF_TOKEN, FERRY_DESC_TOKEN_LEN);
	d.addr = ferry_le_get64(p + OFF_ADDR);
	d.len = ferry_le_get64(p + OFF_LEN);
	d.access = ferry_le_get32(p + OFF_ACCESS);
	d.machine = ferry_le_get32(p + OFF_MACHINE);
	d.agent_len = ferry_le_get16(p + OFF_AGENT_LEN);
	if (d.agent_len > FERRY_DESC_MAX_AGENT || total_len(&d) != len) {
		*why = "agent name length does not match the descriptor length";
		return DOCA_ERROR_INVALID_VALUE;
	}
	memcpy(d.agent, p + OFF_AGENT, d.agent_len);
	d.agent[d.agent_len] = '\0';
	if ((d.hints & FERRY_DESC_HINT_NET) != 0) {
		const uint8_t *net = p + OFF_AGENT + d.agent_len;

		if (ferry_le_get16(net + NET_OFF_RESERVED) != 0) {
			*why = "reserved field of the network section is not zero";
			return DOCA_ERROR_INVALID_VALUE;
		}
		memcpy(d.net_ipv4, net + NET_OFF_IPV4, 4);
		d.net_port = ferry_le_get16(net + NET_OFF_PORT);
		d.net_ns = ferry_le_get64(net + NET_OFF_NS);
	}
	*why = check_fields(&d);
	if (*why != NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*desc = d;
	return DOCA_SUCCESS;
}
