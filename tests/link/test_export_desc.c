/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_export_desc.c - the export descriptor codec (every field's check, every
 * truncation, every bit flip) and the identity helpers of the link.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "desc_samples.h"
#include "link/ferry_export.h"
#include "link/ferry_link.h"

static size_t encode_sample(uint8_t *buf)
{
	struct ferry_export_desc d = sample_desc();
	size_t n = ferry_export_desc_encode(&d, buf, FERRY_DESC_MAX_LEN);

	assert_int_equal(n, FERRY_DESC_FIXED_LEN + d.agent_len);
	return n;
}

static void put_le(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Edit one field, reseal, and expect a refusal naming the reason. */
static void expect_field_refused(size_t off, uint64_t value, int bytes, doca_error_t want, const char *why_part)
{
	uint8_t buf[FERRY_DESC_MAX_LEN];
	size_t n = encode_sample(buf);
	struct ferry_export_desc d;
	const char *why = NULL;

	put_le(buf + off, value, bytes);
	reseal(buf, n);
	assert_int_equal(ferry_export_desc_decode(buf, n, &d, &why), want);
	assert_non_null(why);
	assert_non_null(strstr(why, why_part));
}

static void test_invalid_input(void **state)
{
	uint8_t buf[FERRY_DESC_MAX_LEN];
	struct ferry_export_desc d = sample_desc();
	const char *why = NULL;

	(void)state;
	assert_int_equal(ferry_export_desc_decode(NULL, 10, &d, &why), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_export_desc_decode(buf, 10, NULL, &why), DOCA_ERROR_INVALID_VALUE);
	/* The encoder refuses what the decoder would refuse. */
	d.access = 0;
	assert_int_equal(ferry_export_desc_encode(&d, buf, sizeof(buf)), 0);
	d = sample_desc();
	assert_int_equal(ferry_export_desc_encode(&d, buf, FERRY_DESC_FIXED_LEN), 0); /* no room */
	d.agent_len = 3;                                                              /* does not match the string */
	assert_int_equal(ferry_export_desc_encode(&d, buf, sizeof(buf)), 0);
}

static void test_every_truncation_refused(void **state)
{
	uint8_t buf[FERRY_DESC_MAX_LEN + 1];
	struct ferry_export_desc d;
	size_t n = encode_sample(buf);

	(void)state;
	for (size_t cut = 0; cut < n; cut++)
		assert_int_equal(ferry_export_desc_decode(buf, cut, &d, NULL), DOCA_ERROR_INVALID_VALUE);
	buf[n] = 0; /* padded by one byte */
	assert_int_equal(ferry_export_desc_decode(buf, n + 1, &d, NULL), DOCA_ERROR_INVALID_VALUE);
}

static void test_every_bit_flip_refused(void **state)
{
	uint8_t buf[FERRY_DESC_MAX_LEN];
	struct ferry_export_desc d;
	size_t n = encode_sample(buf);

	(void)state;
	for (size_t bit = 0; bit < n * 8; bit++) {
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		doca_error_t err = ferry_export_desc_decode(buf, n, &d, NULL);
		assert_true(err == DOCA_ERROR_INVALID_VALUE || err == DOCA_ERROR_UNSUPPORTED_VERSION);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
}

static void test_header_fields(void **state)
{
	(void)state;
	expect_field_refused(0, 0x12345678, 4, DOCA_ERROR_INVALID_VALUE, "magic");
	expect_field_refused(4, 2, 2, DOCA_ERROR_UNSUPPORTED_VERSION, "version");
	expect_field_refused(4, 0, 2, DOCA_ERROR_UNSUPPORTED_VERSION, "version");
	expect_field_refused(8, 99, 4, DOCA_ERROR_INVALID_VALUE, "length");
	expect_field_refused(98, 1, 2, DOCA_ERROR_INVALID_VALUE, "reserved");
	expect_field_refused(96, 5, 2, DOCA_ERROR_INVALID_VALUE, "agent name length");

	/* A flipped byte without a resealed checksum. */
	uint8_t buf[FERRY_DESC_MAX_LEN];
	struct ferry_export_desc d;
	const char *why = NULL;
	size_t n = encode_sample(buf);
	buf[60] ^= 1;
	assert_int_equal(ferry_export_desc_decode(buf, n, &d, &why), DOCA_ERROR_INVALID_VALUE);
	assert_non_null(strstr(why, "checksum"));
}

static void test_body_fields(void **state)
{
	(void)state;
	expect_field_refused(6, 0, 2, DOCA_ERROR_INVALID_VALUE, "no transport hint");
	expect_field_refused(6, 0x8001, 2, DOCA_ERROR_INVALID_VALUE, "unknown transport hints");
	expect_field_refused(88, 0, 4, DOCA_ERROR_INVALID_VALUE, "access");
	expect_field_refused(88, DOCA_ACCESS_FLAG_PCI_READ_ONLY | DOCA_ACCESS_FLAG_PCI_READ_WRITE, 4,
			     DOCA_ERROR_INVALID_VALUE, "access");
	expect_field_refused(88, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE, 4, DOCA_ERROR_INVALID_VALUE, "access");
	expect_field_refused(80, 0, 8, DOCA_ERROR_INVALID_VALUE, "empty range");
	expect_field_refused(72, 0, 8, DOCA_ERROR_INVALID_VALUE, "address 0");
	expect_field_refused(80, UINT64_MAX - 10, 8, DOCA_ERROR_INVALID_VALUE, "wraps");
	expect_field_refused(32, 0, 4, DOCA_ERROR_INVALID_VALUE, "pid 0");
	expect_field_refused(100, ' ', 1, DOCA_ERROR_INVALID_VALUE, "agent socket name");
	expect_field_refused(100, 0, 1, DOCA_ERROR_INVALID_VALUE, "agent socket name");
}

static void test_round_trip(void **state)
{
	uint8_t buf[FERRY_DESC_MAX_LEN];
	struct ferry_export_desc in = sample_desc(), out;
	const char *why = "unset";
	size_t n = ferry_export_desc_encode(&in, buf, sizeof(buf));

	(void)state;
	assert_int_equal(ferry_export_desc_decode(buf, n, &out, &why), DOCA_SUCCESS);
	assert_int_equal(out.version, 1);
	assert_int_equal(out.hints, in.hints);
	assert_memory_equal(out.boot_id, in.boot_id, 16);
	assert_memory_equal(out.token, in.token, 16);
	assert_int_equal(out.pid, in.pid);
	assert_int_equal(out.uid, in.uid);
	assert_int_equal(out.start_time, in.start_time);
	assert_int_equal(out.export_id, in.export_id);
	assert_int_equal(out.addr, in.addr);
	assert_int_equal(out.len, in.len);
	assert_int_equal(out.access, in.access);
	assert_int_equal(out.machine, in.machine);
	assert_string_equal(out.agent, in.agent);
	/* The magic spells FRYX, the version follows: a human can recognize a dump. */
	assert_memory_equal(buf, "FRYX\x01\x00", 6);
	/* Longest agent name that fits, and the read-only permission. */
	memset(in.agent, 'a', FERRY_DESC_MAX_AGENT);
	in.agent[FERRY_DESC_MAX_AGENT] = '\0';
	in.agent_len = FERRY_DESC_MAX_AGENT;
	in.access = DOCA_ACCESS_FLAG_PCI_READ_ONLY;
	n = ferry_export_desc_encode(&in, buf, sizeof(buf));
	assert_int_equal(n, FERRY_DESC_FIXED_LEN + FERRY_DESC_MAX_AGENT);
	assert_int_equal(ferry_export_desc_decode(buf, n, &out, NULL), DOCA_SUCCESS);
	assert_int_equal(out.access, DOCA_ACCESS_FLAG_PCI_READ_ONLY);
	assert_int_equal(out.agent_len, FERRY_DESC_MAX_AGENT);
	/* ...and the network section after it: the longest descriptor there is. */
	in = net_sample_desc();
	memset(in.agent, 'a', FERRY_DESC_MAX_AGENT);
	in.agent[FERRY_DESC_MAX_AGENT] = '\0';
	in.agent_len = FERRY_DESC_MAX_AGENT;
	n = ferry_export_desc_encode(&in, buf, sizeof(buf));
	assert_int_equal(n, FERRY_DESC_MAX_LEN);
	assert_int_equal(ferry_export_desc_decode(buf, n, &out, NULL), DOCA_SUCCESS);
	assert_int_equal(out.hints, in.hints);
	assert_memory_equal(out.net_ipv4, in.net_ipv4, 4);
	assert_int_equal(out.net_port, in.net_port);
	assert_int_equal(out.net_ns, in.net_ns);
	assert_int_equal(ferry_export_desc_encode(&in, buf, FERRY_DESC_MAX_LEN - 1), 0); /* no room */
}

/* The network section: its own rules, and its length bound to the hint. */
static void test_net_section(void **state)
{
	struct ferry_export_desc in = net_sample_desc(), out;
	uint8_t buf[FERRY_DESC_MAX_LEN];
	size_t n = ferry_export_desc_encode(&in, buf, sizeof(buf)), net = FERRY_DESC_FIXED_LEN + in.agent_len;
	const char *why = NULL;

	(void)state;
	assert_int_equal(n, net + FERRY_DESC_NET_LEN);
	/* Port 0, a multicast or zero address, a reserved field set: each refused with its reason. */
	static const struct {
		size_t off;
		uint8_t value;
		const char *why;
	} edits[] = {{4, 0, "port 0"}, {0, 224, "unicast"}, {0, 0, "unicast"}, {6, 1, "reserved field of the network"}};
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		uint8_t copy[FERRY_DESC_MAX_LEN];

		memcpy(copy, buf, n);
		copy[net + edits[i].off] = edits[i].value;
		if (edits[i].off == 4)
			copy[net + 5] = 0;
		reseal(copy, n);
		assert_int_equal(ferry_export_desc_decode(copy, n, &out, &why), DOCA_ERROR_INVALID_VALUE);
		assert_non_null(strstr(why, edits[i].why));
	}
	/* The hint without the section, and the section without the hint. */
	uint8_t copy[FERRY_DESC_MAX_LEN];
	memcpy(copy, buf, n);
	copy[6] &= (uint8_t)~FERRY_DESC_HINT_NET;
	reseal(copy, n);
	assert_int_equal(ferry_export_desc_decode(copy, n, &out, &why), DOCA_ERROR_INVALID_VALUE);
	memcpy(copy, buf, net);
	copy[8] = (uint8_t)net;
	copy[9] = 0;
	reseal(copy, net);
	assert_int_equal(ferry_export_desc_decode(copy, net, &out, &why), DOCA_ERROR_INVALID_VALUE);
	/* Encode refuses what decode would. */
	in.net_port = 0;
	assert_int_equal(ferry_export_desc_encode(&in, buf, sizeof(buf)), 0);
}

/* The network-only hint (a re-export): with the network hint alone, never with another way in. */
static void test_net_only_hint(void **state)
{
	struct ferry_export_desc in = reexport_sample_desc(), out;
	uint8_t buf[FERRY_DESC_MAX_LEN], copy[FERRY_DESC_MAX_LEN];
	const char *why = NULL;
	size_t n = ferry_export_desc_encode(&in, buf, sizeof(buf));
	static const uint16_t bad[] = {
		FERRY_DESC_HINT_NET_ONLY | FERRY_DESC_HINT_NET | FERRY_DESC_HINT_CMA,
		FERRY_DESC_HINT_NET_ONLY | FERRY_DESC_HINT_NET | FERRY_DESC_HINT_SHAREABLE,
	};

	(void)state;
	assert_int_equal(n, FERRY_DESC_FIXED_LEN + in.agent_len + FERRY_DESC_NET_LEN);
	assert_int_equal(ferry_export_desc_decode(buf, n, &out, &why), DOCA_SUCCESS);
	assert_int_equal(out.hints, FERRY_DESC_HINT_NET | FERRY_DESC_HINT_NET_ONLY);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(copy, buf, n);
		copy[6] = (uint8_t)bad[i];
		reseal(copy, n);
		assert_int_equal(ferry_export_desc_decode(copy, n, &out, &why), DOCA_ERROR_INVALID_VALUE);
		assert_non_null(strstr(why, "network-only"));
	}
	/* Without the network section (and its hint), the hint alone names no way in. */
	in = sample_desc();
	in.hints = FERRY_DESC_HINT_NET_ONLY;
	assert_int_equal(ferry_export_desc_encode(&in, buf, sizeof(buf)), 0);
	/* The next bit is still unknown, and refused. */
	expect_field_refused(6, 1u << 4 | FERRY_DESC_HINT_CMA, 2, DOCA_ERROR_INVALID_VALUE, "unknown transport hints");
}

static void test_identity(void **state)
{
	uint8_t boot[16] = {0}, zero[16] = {0};
	uint64_t start = 0, again = 0;

	(void)state;
	assert_int_equal(ferry_link_boot_id(boot), DOCA_SUCCESS);
	assert_memory_not_equal(boot, zero, 16);
	assert_int_equal(ferry_link_pid_start_time(getpid(), &start), DOCA_SUCCESS);
	assert_true(start > 0);
	assert_int_equal(ferry_link_pid_start_time(getpid(), &again), DOCA_SUCCESS);
	assert_int_equal(start, again);
	assert_int_equal(ferry_link_pid_start_time(0x3fffffff, &start), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(ferry_link_pid_start_time(-1, &start), DOCA_ERROR_NOT_FOUND);
}

static void test_runtime_dir(void **state)
{
	char tmpl[] = "/tmp/ferry-rt-XXXXXX";
	char dir[4096];
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	setenv("XDG_RUNTIME_DIR", tmpl, 1);
	setenv("FERRY_DOMAIN", "unit.test-1", 1);
	const char *why = NULL;
	assert_string_equal(ferry_link_domain(&why), "unit.test-1");
	assert_int_equal(ferry_link_domain_dir("unit.test-1", dir, sizeof(dir)), DOCA_SUCCESS);
	assert_non_null(strstr(dir, "/ferry/unit.test-1"));
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(st.st_uid, getuid());
	/* A domain folder someone opened up is refused, not used. */
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(ferry_link_domain_dir("unit.test-1", dir, sizeof(dir)), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(chmod(dir, 0700), 0);
	/* Invalid domain names are refused. */
	setenv("FERRY_DOMAIN", "../escape", 1);
	assert_null(ferry_link_domain(&why));
	assert_non_null(why);
	/* A name that does not fit is refused, not cut. */
	assert_int_equal(ferry_link_domain_dir("unit.test-1", dir, 8), DOCA_ERROR_INVALID_VALUE);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpl);
	assert_int_equal(system(cmd), 0);
	unsetenv("FERRY_DOMAIN");
	unsetenv("XDG_RUNTIME_DIR");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_input),
		cmocka_unit_test(test_every_truncation_refused),
		cmocka_unit_test(test_every_bit_flip_refused),
		cmocka_unit_test(test_header_fields),
		cmocka_unit_test(test_body_fields),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_net_section),
		cmocka_unit_test(test_net_only_hint),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_runtime_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
