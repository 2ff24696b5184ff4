/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_desc.c - encode and decode DOCA RDMA's descriptors (format in
 * rdma_desc_priv.h). Pure: reads and writes only the buffers given, so the
 * decoders can be fuzzed alone.
 */
#include <string.h>

#include <doca_types.h>

#include "common/ferry_bytes.h"
#include "core/ferry_rdma_mem.h"
#include "link/export_desc_priv.h"
#include "rdma/rdma_desc_priv.h"

/* Shared header: magic, version, a 2-byte field, total length, CRC. */
#define OFF_MAGIC   0
#define OFF_VERSION 4
#define OFF_WORD6   6
#define OFF_TOTAL   8
#define OFF_CRC     12

#define C_OFF_TOKEN    16
#define C_OFF_CONN     24
#define C_OFF_PERM     28
#define C_OFF_PID      32
#define C_OFF_ADDR_LEN 36
#define C_OFF_RESERVED 38
#define C_OFF_START    40
#define C_OFF_BOOT     48
#define C_OFF_ADDR     64

#define M_OFF_ADDR     16
#define M_OFF_LEN      24
#define M_OFF_ACCESS   32
#define M_OFF_PID      36
#define M_OFF_BODY_LEN 40
#define M_OFF_RESERVED 42
#define M_OFF_BODY     44

_Static_assert(C_OFF_ADDR == FERRY_RDMA_CONN_FIXED_LEN, "fixed part of the connection descriptor");
_Static_assert(M_OFF_BODY == FERRY_RDMA_MEM_FIXED_LEN, "fixed part of the memory descriptor");
_Static_assert(FERRY_DESC_MAX_LEN <= FERRY_RDMA_MEM_MAX_RKEY, "a link descriptor fits where a key does");

#define PERMISSION_BITS                                                                                            \
	((uint32_t)(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | \
		    DOCA_ACCESS_FLAG_RDMA_ATOMIC))
#define RDMA_BITS ((uint32_t)(DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE | DOCA_ACCESS_FLAG_RDMA_ATOMIC))

/*
 * CRC-32 (IEEE, as link/export_desc.c) of @p len bytes with the CRC field read
 * as zero, so neither side copies the descriptor to check or seal it.
 */
static uint32_t crc_without_field(const uint8_t *p, size_t len)
{
	static const uint8_t zero[4];
	uint32_t crc = 0xffffffffu;
	const uint8_t *parts[3] = {p, zero, p + OFF_CRC + 4};
	size_t lens[3] = {OFF_CRC, 4, len - OFF_CRC - 4};

	for (int i = 0; i < 3; i++) {
		for (size_t j = 0; j < lens[i]; j++) {
			crc ^= parts[i][j];
			for (int b = 0; b < 8; b++)
				crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
		}
	}
	return ~crc;
}

static void write_header(uint8_t *out, uint32_t magic, uint16_t word6, size_t total)
{
	ferry_le_put32(out + OFF_MAGIC, magic);
	ferry_le_put16(out + OFF_VERSION, FERRY_RDMA_DESC_VERSION);
	ferry_le_put16(out + OFF_WORD6, word6);
	ferry_le_put32(out + OFF_TOTAL, (uint32_t)total);
	ferry_le_put32(out + OFF_CRC, 0);
}

static void seal(uint8_t *out, size_t total)
{
	ferry_le_put32(out + OFF_CRC, crc_without_field(out, total));
}

/* Everything needed before the body may be read; the CRC last, so a wrong kind is named as such. */
static doca_error_t check_header(const uint8_t *p, size_t len, uint32_t magic, size_t fixed, size_t max,
				 const char **why)
{
	if (len < OFF_CRC + 4) {
		*why = "shorter than the descriptor header (truncated)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ferry_le_get32(p + OFF_MAGIC) != magic) {
		*why = magic == FERRY_RDMA_CONN_MAGIC ? "bad magic (not a Ferry RDMA connection descriptor)"
						      : "bad magic (not a Ferry RDMA memory descriptor)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (ferry_le_get16(p + OFF_VERSION) != FERRY_RDMA_DESC_VERSION) {
		*why = "descriptor format version is not 1";
		return DOCA_ERROR_UNSUPPORTED_VERSION;
	}
	if (ferry_le_get32(p + OFF_TOTAL) != len) {
		*why = "length field does not match the number of bytes given (truncated or padded)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (len < fixed || len > max) {
		*why = "length outside the possible range";
		return DOCA_ERROR_INVALID_VALUE;
	}
	if (crc_without_field(p, len) != ferry_le_get32(p + OFF_CRC)) {
		*why = "checksum mismatch (damaged in transit)";
		return DOCA_ERROR_INVALID_VALUE;
	}
	return DOCA_SUCCESS;
}

/* ---- connection ---- */

static const char *conn_fields_error(const struct ferry_rdma_conn_desc *d)
{
	if (d->transport > 1)
		return "unknown transport type";
	if (d->token == 0)
		return "instance token is 0";
	if (d->pid == 0)
		return "pid 0";
	if ((d->permissions & ~PERMISSION_BITS) != 0)
		return "unknown permission bits";
	if (d->addr_len == 0 || d->addr_len > FERRY_RDMA_CONN_MAX_ADDR)
		return "worker address is empty or too long";
	return NULL;
}

size_t ferry_rdma_conn_desc_size(const struct ferry_rdma_conn_desc *d)
{
	return FERRY_RDMA_CONN_FIXED_LEN + (size_t)d->addr_len;
}

size_t ferry_rdma_conn_desc_encode(const struct ferry_rdma_conn_desc *d, uint8_t *out, size_t room)
{
	size_t total = ferry_rdma_conn_desc_size(d);

	if (conn_fields_error(d) != NULL || d->addr == NULL || room < total)
		return 0;
	memset(out, 0, FERRY_RDMA_CONN_FIXED_LEN);
	write_header(out, FERRY_RDMA_CONN_MAGIC, d->transport, total);
	ferry_le_put64(out + C_OFF_TOKEN, d->token);
	ferry_le_put32(out + C_OFF_CONN, d->conn_id);
	ferry_le_put32(out + C_OFF_PERM, d->permissions);
	ferry_le_put32(out + C_OFF_PID, d->pid);
	ferry_le_put16(out + C_OFF_ADDR_LEN, d->addr_len);
	ferry_le_put64(out + C_OFF_START, d->start_time);
	memcpy(out + C_OFF_BOOT, d->boot_id, sizeof(d->boot_id));
	memcpy(out + C_OFF_ADDR, d->addr, d->addr_len);
	seal(out, total);
	return total;
}

doca_error_t ferry_rdma_conn_desc_decode(const void *buf, size_t len, struct ferry_rdma_conn_desc *out,
					 const char **why)
{
	const uint8_t *p = buf;
	struct ferry_rdma_conn_desc d;
	const char *dummy;
	doca_error_t err;

	if (why == NULL)
		why = &dummy;
	if (buf == NULL || out == NULL) {
		*why = "NULL buffer";
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_header(p, len, FERRY_RDMA_CONN_MAGIC, FERRY_RDMA_CONN_FIXED_LEN, FERRY_RDMA_CONN_MAX_LEN, why);
	if (err != DOCA_SUCCESS)
		return err;
	if (ferry_le_get16(p + C_OFF_RESERVED) != 0) {
		*why = "reserved field is not zero";
		return DOCA_ERROR_INVALID_VALUE;
	}
	d.transport = ferry_le_get16(p + OFF_WORD6);
	d.token = ferry_le_get64(p + C_OFF_TOKEN);
	d.conn_id = ferry_le_get32(p + C_OFF_CONN);
	d.permissions = ferry_le_get32(p + C_OFF_PERM);
	d.pid = ferry_le_get32(p + C_OFF_PID);
	d.addr_len = ferry_le_get16(p + C_OFF_ADDR_LEN);
	d.start_time = ferry_le_get64(p + C_OFF_START);
	memcpy(d.boot_id, p + C_OFF_BOOT, sizeof(d.boot_id));
	d.addr = p + C_OFF_ADDR;
	if ((size_t)FERRY_RDMA_CONN_FIXED_LEN + d.addr_len != len) {
		*why = "worker address length does not match the descriptor length";
		return DOCA_ERROR_INVALID_VALUE;
	}
	*why = conn_fields_error(&d);
	if (*why != NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*out = d;
	return DOCA_SUCCESS;
}

/* ---- memory ---- */

/* A re-export's: a link descriptor's length, and never atomics (its bytes are copied, not registered). */
static const char *link_fields_error(const struct ferry_rdma_mem_desc *d)
{
	if (d->body_len < FERRY_DESC_FIXED_LEN || d->body_len > FERRY_DESC_MAX_LEN)
		return "re-export's link descriptor is shorter or longer than one can be";
	if ((d->access & DOCA_ACCESS_FLAG_RDMA_ATOMIC) != 0)
		return "a re-export grants RDMA atomic access";
	return NULL;
}

static const char *mem_fields_error(const struct ferry_rdma_mem_desc *d)
{
	if (d->len == 0)
		return "empty range";
	if (d->addr == 0)
		return "range starts at address 0";
	if (d->addr + d->len < d->addr)
		return "range wraps around the address space";
	if ((d->access & ~RDMA_BITS) != 0)
		return "access holds bits other than RDMA_READ, RDMA_WRITE and RDMA_ATOMIC";
	if (d->access == 0)
		return "no RDMA access granted";
	if (d->pid == 0)
		return "pid 0";
	if (d->kind == FERRY_RDMA_MEM_KIND_LINK)
		return link_fields_error(d);
	if (d->kind != FERRY_RDMA_MEM_KIND_KEY)
		return "unknown kind of memory descriptor";
	if (d->body_len != FERRY_RDMA_MEM_KEY_LEN)
		return "the export key is not 16 bytes (an export id and its key)";
	return NULL;
}

size_t ferry_rdma_mem_desc_size(const struct ferry_rdma_mem_desc *d)
{
	return FERRY_RDMA_MEM_FIXED_LEN + (size_t)d->body_len;
}

size_t ferry_rdma_mem_desc_encode(const struct ferry_rdma_mem_desc *d, uint8_t *out, size_t room)
{
	size_t total = ferry_rdma_mem_desc_size(d);

	if (mem_fields_error(d) != NULL || d->body == NULL || room < total)
		return 0;
	memset(out, 0, FERRY_RDMA_MEM_FIXED_LEN);
	write_header(out, FERRY_RDMA_MEM_MAGIC, d->kind, total);
	ferry_le_put64(out + M_OFF_ADDR, d->addr);
	ferry_le_put64(out + M_OFF_LEN, d->len);
	ferry_le_put32(out + M_OFF_ACCESS, d->access);
	ferry_le_put32(out + M_OFF_PID, d->pid);
	ferry_le_put16(out + M_OFF_BODY_LEN, d->body_len);
	memcpy(out + M_OFF_BODY, d->body, d->body_len);
	seal(out, total);
	return total;
}

doca_error_t ferry_rdma_mem_desc_decode(const void *buf, size_t len, struct ferry_rdma_mem_desc *out, const char **why)
{
	const uint8_t *p = buf;
	struct ferry_rdma_mem_desc d;
	const char *dummy;
	doca_error_t err;

	if (why == NULL)
		why = &dummy;
	if (buf == NULL || out == NULL) {
		*why = "NULL buffer";
		return DOCA_ERROR_INVALID_VALUE;
	}
	err = check_header(p, len, FERRY_RDMA_MEM_MAGIC, FERRY_RDMA_MEM_FIXED_LEN, FERRY_RDMA_MEM_MAX_LEN, why);
	if (err != DOCA_SUCCESS)
		return err;
	if (ferry_le_get16(p + M_OFF_RESERVED) != 0) {
		*why = "reserved field is not zero";
		return DOCA_ERROR_INVALID_VALUE;
	}
	d.kind = ferry_le_get16(p + OFF_WORD6);
	d.addr = ferry_le_get64(p + M_OFF_ADDR);
	d.len = ferry_le_get64(p + M_OFF_LEN);
	d.access = ferry_le_get32(p + M_OFF_ACCESS);
	d.pid = ferry_le_get32(p + M_OFF_PID);
	d.body_len = ferry_le_get16(p + M_OFF_BODY_LEN);
	d.body = p + M_OFF_BODY;
	if ((size_t)FERRY_RDMA_MEM_FIXED_LEN + d.body_len != len) {
		*why = "body length does not match the descriptor length";
		return DOCA_ERROR_INVALID_VALUE;
	}
	*why = mem_fields_error(&d);
	if (*why != NULL)
		return DOCA_ERROR_INVALID_VALUE;
	*out = d;
	return DOCA_SUCCESS;
}
