/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rdma_desc - the codec of DOCA RDMA's descriptors (src/rdma/rdma_desc.c):
 * round trips, and refusals of forged descriptors whose checksum is right but
 * whose fields are not, each with its reason; the memory descriptor of a
 * re-export (kind 1: a link descriptor instead of a remote key) likewise.
 */
#include <doca_types.h>

#include "ferry_test.h"

#include "link/export_desc_priv.h"
#include "rdma/rdma_desc_priv.h"

static uint8_t addr[200] = {1, 2, 3};
static uint8_t rkey[FERRY_RDMA_MEM_KEY_LEN] = {9, 8, 7};

static struct ferry_rdma_conn_desc conn_sample(void)
{
	struct ferry_rdma_conn_desc c = {.transport = 1,
					 .token = 77,
					 .conn_id = 5,
					 .permissions = 6,
					 .pid = 1234,
					 .start_time = 5555,
					 .addr_len = sizeof(addr),
					 .addr = addr};

	c.boot_id[0] = 0xab;
	return c;
}

static struct ferry_rdma_mem_desc mem_sample(void)
{
	struct ferry_rdma_mem_desc m = {
		.addr = 0x10000, .len = 4096, .access = 2, .pid = 1234, .body_len = sizeof(rkey), .body = rkey};

	return m;
}

static uint8_t link_body[FERRY_DESC_FIXED_LEN + 40] = {'F', 'R', 'Y', 'X'};

/* A re-export's: read and write, a link descriptor's bytes (opaque to this codec). */
static struct ferry_rdma_mem_desc link_sample(void)
{
	struct ferry_rdma_mem_desc m = mem_sample();

	m.kind = FERRY_RDMA_MEM_KIND_LINK;
	m.access = DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_WRITE;
	m.body_len = sizeof(link_body);
	m.body = link_body;
	return m;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void reseal(uint8_t *p, size_t size)
{
	memset(p + 12, 0, 4);
	put_le(p + 12, ferry_desc_crc32(p, size), 4);
}

static void test_round_trip(void **state)
{
	uint8_t buf[1024];
	struct ferry_rdma_conn_desc c = conn_sample(), c2;
	struct ferry_rdma_mem_desc m = mem_sample(), m2;
	size_t n;

	(void)state;
	n = ferry_rdma_conn_desc_encode(&c, buf, sizeof(buf));
	assert_int_equal(n, FERRY_RDMA_CONN_FIXED_LEN + sizeof(addr));
	assert_int_equal(ferry_rdma_conn_desc_decode(buf, n, &c2, NULL), DOCA_SUCCESS);
	assert_int_equal(c2.token, 77);
	assert_int_equal(c2.conn_id, 5);
	assert_int_equal(c2.transport, 1);
	assert_int_equal(c2.permissions, 6);
	assert_int_equal(c2.start_time, 5555);
	assert_int_equal(c2.boot_id[0], 0xab);
	assert_memory_equal(c2.addr, addr, sizeof(addr));
	/* A connection descriptor is no memory descriptor, and back. */
	assert_int_equal(ferry_rdma_mem_desc_decode(buf, n, &m2, NULL), DOCA_ERROR_INVALID_VALUE);
	n = ferry_rdma_mem_desc_encode(&m, buf, sizeof(buf));
	assert_int_equal(ferry_rdma_mem_desc_decode(buf, n, &m2, NULL), DOCA_SUCCESS);
	assert_int_equal(m2.addr, 0x10000);
	assert_int_equal(m2.len, 4096);
	assert_int_equal(m2.kind, FERRY_RDMA_MEM_KIND_KEY);
	assert_memory_equal(m2.body, rkey, sizeof(rkey));
	assert_int_equal(ferry_rdma_conn_desc_decode(buf, n, &c2, NULL), DOCA_ERROR_INVALID_VALUE);
	/* Too small a room, invalid fields: nothing encoded. */
	assert_int_equal(ferry_rdma_mem_desc_encode(&m, buf, 50), 0);
	m.access = DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;
	assert_int_equal(ferry_rdma_mem_desc_encode(&m, buf, sizeof(buf)), 0);
}

/* A forged field with a right checksum: refused, and the reason names the field. */
static void expect_mem_refused(size_t off, uint64_t value, int bytes, const char *why_part)
{
	uint8_t buf[1024];
	struct ferry_rdma_mem_desc m = mem_sample(), out;
	size_t n = ferry_rdma_mem_desc_encode(&m, buf, sizeof(buf));
	const char *why = NULL;

	put_le(buf + off, value, bytes);
	reseal(buf, n);
	assert_int_equal(ferry_rdma_mem_desc_decode(buf, n, &out, &why), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(why);
	assert_non_null(strstr(why, why_part));
}

static void expect_conn_refused(size_t off, uint64_t value, int bytes, const char *why_part)
{
	uint8_t buf[1024];
	struct ferry_rdma_conn_desc c = conn_sample(), out;
	size_t n = ferry_rdma_conn_desc_encode(&c, buf, sizeof(buf));
	const char *why = NULL;

	put_le(buf + off, value, bytes);
	reseal(buf, n);
	assert_int_equal(ferry_rdma_conn_desc_decode(buf, n, &out, &why), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(why);
	assert_non_null(strstr(why, why_part));
}

static void test_forged_fields(void **state)
{
	(void)state;
	expect_mem_refused(16, 0, 8, "address 0");
	expect_mem_refused(24, 0, 8, "empty range");
	expect_mem_refused(16, UINT64_MAX - 10, 8, "wraps");
	expect_mem_refused(32, DOCA_ACCESS_FLAG_PCI_READ_WRITE, 4, "access");
	expect_mem_refused(32, 0, 4, "no RDMA access");
	expect_mem_refused(40, sizeof(rkey) - 1, 2, "body length");
	expect_mem_refused(6, 2, 2, "unknown kind");
	expect_mem_refused(42, 1, 2, "reserved");
	expect_conn_refused(6, 2, 2, "transport");
	expect_conn_refused(16, 0, 8, "token");
	expect_conn_refused(28, 1u << 7, 4, "permission");
	expect_conn_refused(36, sizeof(addr) + 1, 2, "address length");
	expect_conn_refused(38, 1, 2, "reserved");
	expect_conn_refused(32, 0, 4, "pid 0");
}

static void test_framing(void **state)
{
	uint8_t buf[1024];
	struct ferry_rdma_conn_desc c = conn_sample(), out;
	size_t n = ferry_rdma_conn_desc_encode(&c, buf, sizeof(buf));
	const char *why = NULL;

	(void)state;
	for (size_t k = 0; k < n; k++)
		assert_int_not_equal(ferry_rdma_conn_desc_decode(buf, k, &out, &why), DOCA_SUCCESS);
	/* Every single-bit flip is caught. */
	for (size_t i = 0; i < n * 8; i++) {
		buf[i / 8] ^= (uint8_t)(1u << (i % 8));
		assert_int_not_equal(ferry_rdma_conn_desc_decode(buf, n, &out, &why), DOCA_SUCCESS);
		buf[i / 8] ^= (uint8_t)(1u << (i % 8));
	}
	/* Version 1 carried UCX remote keys, which Ferry no longer serves; version 3 is not yet. */
	buf[4] = 1;
	reseal(buf, n);
	assert_int_equal(ferry_rdma_conn_desc_decode(buf, n, &out, &why), DOCA_ERROR_UNSUPPORTED_VERSION);
	buf[4] = 3;
	reseal(buf, n);
	assert_int_equal(ferry_rdma_conn_desc_decode(buf, n, &out, &why), DOCA_ERROR_UNSUPPORTED_VERSION);
	assert_int_equal(ferry_rdma_conn_desc_decode(NULL, n, &out, &why), DOCA_ERROR_INVALID_VALUE);
}

/* A re-export's descriptor: round trip, and every way it can be cut, damaged or forged is refused. */
static void test_link_kind(void **state)
{
	uint8_t buf[1024], copy[1024];
	struct ferry_rdma_mem_desc m = link_sample(), out;
	size_t n = ferry_rdma_mem_desc_encode(&m, buf, sizeof(buf));
	const char *why = NULL;

	(void)state;
	assert_int_equal(n, FERRY_RDMA_MEM_FIXED_LEN + sizeof(link_body));
	assert_int_equal(buf[6], FERRY_RDMA_MEM_KIND_LINK);
	assert_int_equal(ferry_rdma_mem_desc_decode(buf, n, &out, &why), DOCA_SUCCESS);
	assert_int_equal(out.kind, FERRY_RDMA_MEM_KIND_LINK);
	assert_int_equal(out.body_len, sizeof(link_body));
	assert_memory_equal(out.body, link_body, sizeof(link_body));
	/* Truncated anywhere, one bit flipped anywhere: refused, with a reason. */
	for (size_t k = 0; k < n; k++) {
		why = NULL;
		assert_int_equal(ferry_rdma_mem_desc_decode(buf, k, &out, &why), DOCA_ERROR_INVALID_VALUE);
		assert_non_null(why);
	}
	for (size_t i = 0; i < n * 8; i++) {
		memcpy(copy, buf, n);
		copy[i / 8] ^= (uint8_t)(1u << (i % 8));
		assert_int_not_equal(ferry_rdma_mem_desc_decode(copy, n, &out, &why), DOCA_SUCCESS);
	}
	/* Forged with a right checksum: atomics, a body no link descriptor can be. */
	memcpy(copy, buf, n);
	put_le(copy + 32, DOCA_ACCESS_FLAG_RDMA_READ | DOCA_ACCESS_FLAG_RDMA_ATOMIC, 4);
	reseal(copy, n);
	assert_int_equal(ferry_rdma_mem_desc_decode(copy, n, &out, &why), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(why, "atomic"));
	m.body_len = FERRY_DESC_FIXED_LEN - 1;
	assert_int_equal(ferry_rdma_mem_desc_encode(&m, buf, sizeof(buf)), 0);
	m.body_len = FERRY_DESC_MAX_LEN + 1;
	assert_int_equal(ferry_rdma_mem_desc_encode(&m, buf, sizeof(buf)), 0);
	/* The kind decides: a link descriptor's body under kind 0 is no export key (those are 16 bytes). */
	m = link_sample();
	m.kind = FERRY_RDMA_MEM_KIND_KEY;
	assert_int_equal(ferry_rdma_mem_desc_encode(&m, buf, sizeof(buf)), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_forged_fields),
		cmocka_unit_test(test_framing),
		cmocka_unit_test(test_link_kind),
	};

	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
