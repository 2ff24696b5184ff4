/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_frame.c - the control-socket frame parser (src/link/frame.c): every rule
 * of frame_priv.h broken once, every truncation of valid frames, random garbage
 * and bit flips (must never crash or read past the datagram: run under ASan),
 * then the valid frames and what they parse to.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "comch/frame_priv.h"

#define MAX_MSG 4080u

static doca_error_t parse(const uint8_t *buf, size_t len, struct ferry_frame *f)
{
	const char *why = NULL;
	doca_error_t err = ferry_frame_parse(buf, len, MAX_MSG, f, &why);

	if (err != DOCA_SUCCESS)
		assert_non_null(why); /* every refusal names its rule */
	return err;
}

/* A heap copy of exactly @p len bytes, so ASan catches any read beyond. */
static doca_error_t parse_exact(const uint8_t *buf, size_t len, struct ferry_frame *f)
{
	uint8_t *copy = malloc(len == 0 ? 1 : len);
	doca_error_t err;

	assert_non_null(copy);
	memcpy(copy, buf, len);
	err = parse(copy, len, f);
	free(copy);
	return err;
}

static void test_null_arguments(void **state)
{
	uint8_t buf[FERRY_FRAME_HDR_LEN];
	struct ferry_frame f;
	const char *why;

	(void)state;
	ferry_frame_put_header(buf, FERRY_FRAME_BYE, 0);
	assert_int_equal(ferry_frame_parse(NULL, sizeof(buf), MAX_MSG, &f, &why), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_frame_parse(buf, sizeof(buf), MAX_MSG, NULL, &why), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_frame_parse(buf, sizeof(buf), MAX_MSG, &f, NULL), DOCA_ERROR_INVALID_VALUE);
}

static void test_header_rules(void **state)
{
	uint8_t buf[FERRY_FRAME_HDR_LEN + 4];
	struct ferry_frame f;

	(void)state;
	ferry_frame_put_header(buf, FERRY_FRAME_MSG, 4);
	memset(buf + FERRY_FRAME_HDR_LEN, 7, 4);
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_SUCCESS);
	for (size_t len = 0; len < FERRY_FRAME_HDR_LEN; len++)
		assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	buf[0] ^= 1; /* magic */
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_ERROR_INVALID_VALUE);
	buf[0] ^= 1;
	buf[4] = FERRY_FRAME_VERSION + 1;
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_ERROR_UNSUPPORTED_VERSION);
	buf[4] = FERRY_FRAME_VERSION;
	buf[6] = 1; /* reserved flags */
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_ERROR_INVALID_VALUE);
	buf[6] = 0;
	buf[5] = 0; /* unknown types */
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_ERROR_INVALID_VALUE);
	buf[5] = 6;
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_ERROR_INVALID_VALUE);
	buf[5] = 0xff;
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_ERROR_INVALID_VALUE);
	buf[5] = FERRY_FRAME_MSG;
	/* length field disagreeing with the datagram, both ways, and absurd */
	assert_int_equal(parse(buf, sizeof(buf) - 1, &f), DOCA_ERROR_INVALID_VALUE);
	ferry_frame_put_header(buf, FERRY_FRAME_MSG, 3);
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_ERROR_INVALID_VALUE);
	ferry_frame_put_header(buf, FERRY_FRAME_MSG, UINT32_MAX);
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_ERROR_INVALID_VALUE);
}

static void test_msg_size_boundaries(void **state)
{
	static uint8_t buf[FERRY_FRAME_HDR_LEN + MAX_MSG + 1];
	struct ferry_frame f;

	(void)state;
	ferry_frame_put_header(buf, FERRY_FRAME_MSG, 0);
	assert_int_equal(parse(buf, FERRY_FRAME_HDR_LEN, &f), DOCA_SUCCESS);
	assert_int_equal(f.type, FERRY_FRAME_MSG);
	assert_int_equal(f.payload_len, 0);
	ferry_frame_put_header(buf, FERRY_FRAME_MSG, MAX_MSG);
	assert_int_equal(parse(buf, FERRY_FRAME_HDR_LEN + MAX_MSG, &f), DOCA_SUCCESS);
	assert_int_equal(f.payload_len, MAX_MSG);
	assert_ptr_equal(f.payload, buf + FERRY_FRAME_HDR_LEN);
	ferry_frame_put_header(buf, FERRY_FRAME_MSG, MAX_MSG + 1);
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_ERROR_TOO_BIG);
}

static void test_bye_rules(void **state)
{
	uint8_t buf[FERRY_FRAME_HDR_LEN + 1] = {0};
	struct ferry_frame f;

	(void)state;
	ferry_frame_put_header(buf, FERRY_FRAME_BYE, 1);
	assert_int_equal(parse(buf, sizeof(buf), &f), DOCA_ERROR_INVALID_VALUE);
	ferry_frame_put_header(buf, FERRY_FRAME_BYE, 0);
	assert_int_equal(parse(buf, FERRY_FRAME_HDR_LEN, &f), DOCA_SUCCESS);
	assert_int_equal(f.type, FERRY_FRAME_BYE);
}

static void test_hello_rules(void **state)
{
	uint8_t buf[FERRY_FRAME_HELLO_MAX + 8];
	char long_name[FERRY_FRAME_NAME_MAX + 2];
	struct ferry_frame f;
	size_t len;

	(void)state;
	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(ferry_frame_build_hello(buf, 4080, 64, 0, "b1:00.0", long_name), 0);
	assert_int_equal(ferry_frame_build_hello(buf, 4080, 64, 0, "", "svc"), 0);
	assert_int_equal(ferry_frame_build_hello(buf, 4080, 64, 0, "b1:00.0", ""), 0);

	len = ferry_frame_build_hello(buf, 4080, 64, 3, "b1:00.0", "svc");
	assert_int_equal(len, FERRY_FRAME_HDR_LEN + FERRY_FRAME_HELLO_FIXED + 7 + 3);
	for (size_t cut = 0; cut < len; cut++)
		assert_int_not_equal(parse_exact(buf, cut, &f), DOCA_SUCCESS);
	/* string lengths that do not add up, are zero, or too long */
	buf[FERRY_FRAME_HDR_LEN + 14] = 4;
	assert_int_equal(parse(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	buf[FERRY_FRAME_HDR_LEN + 14] = 0;
	assert_int_equal(parse(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	buf[FERRY_FRAME_HDR_LEN + 14] = 3;
	buf[FERRY_FRAME_HDR_LEN + 12] = FERRY_FRAME_DEV_MAX + 1;
	assert_int_equal(parse(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	buf[FERRY_FRAME_HDR_LEN + 12] = 7;
	/* a NUL inside a string */
	buf[len - 2] = '\0';
	assert_int_equal(parse(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	buf[len - 2] = 'v';
	/* zero sizes */
	memset(buf + FERRY_FRAME_HDR_LEN, 0, 4);
	assert_int_equal(parse(buf, len, &f), DOCA_ERROR_INVALID_VALUE);

	len = ferry_frame_build_hello(buf, 4080, 64, 3, "b1:00.0", "svc");
	assert_int_equal(parse(buf, len, &f), DOCA_SUCCESS);
	assert_int_equal(f.type, FERRY_FRAME_HELLO);
	assert_int_equal(f.u.hello.max_msg_size, 4080);
	assert_int_equal(f.u.hello.recv_queue_size, 64);
	assert_int_equal(f.u.hello.machine, 3);
	assert_int_equal(f.u.hello.dev_len, 7);
	assert_memory_equal(f.u.hello.dev, "b1:00.0", 7);
	assert_int_equal(f.u.hello.name_len, 3);
	assert_memory_equal(f.u.hello.name, "svc", 3);
}

static void test_welcome_and_refuse(void **state)
{
	uint8_t buf[FERRY_FRAME_REFUSE_MAX + 16];
	char long_reason[FERRY_FRAME_REASON_MAX + 50];
	struct ferry_frame f;
	size_t len;

	(void)state;
	len = ferry_frame_build_welcome(buf, 4080, 16, 9);
	assert_int_equal(parse(buf, len, &f), DOCA_SUCCESS);
	assert_int_equal(f.u.welcome.max_msg_size, 4080);
	assert_int_equal(f.u.welcome.recv_queue_size, 16);
	assert_int_equal(f.u.welcome.conn_id, 9);
	for (size_t cut = 0; cut < len; cut++)
		assert_int_not_equal(parse_exact(buf, cut, &f), DOCA_SUCCESS);
	ferry_frame_put_header(buf, FERRY_FRAME_WELCOME, 12);
	memset(buf + FERRY_FRAME_HDR_LEN, 0, 4); /* zero max_msg_size */
	assert_int_equal(parse(buf, len, &f), DOCA_ERROR_INVALID_VALUE);

	len = ferry_frame_build_refuse(buf, DOCA_ERROR_NOT_FOUND, "no such server");
	assert_int_equal(parse(buf, len, &f), DOCA_SUCCESS);
	assert_int_equal(f.u.refuse.error, DOCA_ERROR_NOT_FOUND);
	assert_int_equal(f.u.refuse.reason_len, strlen("no such server"));
	assert_memory_equal(f.u.refuse.reason, "no such server", f.u.refuse.reason_len);
	for (size_t cut = 0; cut < len; cut++)
		assert_int_not_equal(parse_exact(buf, cut, &f), DOCA_SUCCESS);
	buf[FERRY_FRAME_HDR_LEN] = 0; /* DOCA_SUCCESS is no refusal */
	assert_int_equal(parse(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	buf[FERRY_FRAME_HDR_LEN] = 200; /* unknown error code */
	assert_int_equal(parse(buf, len, &f), DOCA_ERROR_INVALID_VALUE);

	memset(long_reason, 'r', sizeof(long_reason) - 1);
	long_reason[sizeof(long_reason) - 1] = '\0';
	len = ferry_frame_build_refuse(buf, DOCA_ERROR_FULL, long_reason); /* cut to fit */
	assert_int_equal(len, FERRY_FRAME_REFUSE_MAX);
	assert_int_equal(parse(buf, len, &f), DOCA_SUCCESS);
	assert_int_equal(f.u.refuse.reason_len, FERRY_FRAME_REASON_MAX);
}

/* Deterministic garbage: random datagrams, and random bit flips of valid frames. */

/* ---- fast-path frames ---- */

static size_t build_up(uint8_t *buf, uint32_t id, uint32_t imm, uint32_t cap, const uint8_t *desc, size_t len,
		       size_t ring_len)
{
	struct ferry_frame_consumer_up up = {.consumer_id = id,
					     .imm_data_len = imm,
					     .ring_cap = cap,
					     .desc = desc,
					     .desc_len = (uint16_t)len,
					     .ring_desc = desc + 1,
					     .ring_desc_len = (uint16_t)ring_len};

	return ferry_frame_build_consumer_up(buf, &up);
}

static void test_consumer_up_rules(void **state)
{
	static uint8_t buf[FERRY_FRAME_UP_MAX + 8], desc[FERRY_FRAME_DESC_MAX + 2];
	struct ferry_frame f;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(desc); i++)
		desc[i] = (uint8_t)i;
	assert_int_equal(build_up(buf, 7, 16, 64, desc, 0, 10), 0);
	assert_int_equal(build_up(buf, 7, 16, 64, desc, 10, 0), 0);
	assert_int_equal(build_up(buf, 7, 16, 64, desc, FERRY_FRAME_DESC_MAX + 1, 10), 0);
	assert_int_equal(build_up(buf, 7, 16, 64, desc, 10, FERRY_FRAME_DESC_MAX + 1), 0);
	len = build_up(buf, 7, 16, FERRY_FRAME_RING_MAX, desc, FERRY_FRAME_DESC_MAX,
		       FERRY_FRAME_DESC_MAX); /* boundaries */
	assert_int_equal(len, FERRY_FRAME_UP_MAX);
	assert_int_equal(parse_exact(buf, len, &f), DOCA_SUCCESS);
	assert_int_equal(f.type, FERRY_FRAME_CONSUMER_UP);
	assert_int_equal(f.u.up.consumer_id, 7);
	assert_int_equal(f.u.up.imm_data_len, 16);
	assert_int_equal(f.u.up.ring_cap, FERRY_FRAME_RING_MAX);
	assert_int_equal(f.u.up.desc_len, FERRY_FRAME_DESC_MAX);
	assert_memory_equal(f.u.up.desc, desc, FERRY_FRAME_DESC_MAX);
	assert_int_equal(f.u.up.ring_desc_len, FERRY_FRAME_DESC_MAX);
	assert_memory_equal(f.u.up.ring_desc, desc + 1, FERRY_FRAME_DESC_MAX);
	len = build_up(buf, 7, 16, 1, desc, 20, 30); /* a ring of one */
	assert_int_equal(parse_exact(buf, len, &f), DOCA_SUCCESS);
	assert_int_equal(parse_exact(buf, len - 1, &f), DOCA_ERROR_INVALID_VALUE); /* header length lies */
	buf[FERRY_FRAME_HDR_LEN + 14] = 31;                                        /* ring descriptor length lies */
	assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	len = build_up(buf, 0, 16, 64, desc, 20, 30); /* id 0 */
	assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	len = build_up(buf, 7, FERRY_FRAME_IMM_MAX + 1, 64, desc, 20, 30);
	assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	len = build_up(buf, 7, 16, 0, desc, 20, 30); /* ring sizes: 0, not a power of two, too large */
	assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	len = build_up(buf, 7, 16, 48, desc, 20, 30);
	assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	len = build_up(buf, 7, 16, FERRY_FRAME_RING_MAX * 2, desc, 20, 30);
	assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	ferry_frame_put_header(buf, FERRY_FRAME_CONSUMER_UP,
			       FERRY_FRAME_UP_FIXED - 1); /* shorter than the fixed part */
	assert_int_equal(parse_exact(buf, FERRY_FRAME_HDR_LEN + FERRY_FRAME_UP_FIXED - 1, &f),
			 DOCA_ERROR_INVALID_VALUE);
}

static void test_consumer_down_rules(void **state)
{
	uint8_t buf[FERRY_FRAME_DOWN_LEN + 4];
	struct ferry_frame f;

	(void)state;
	assert_int_equal(ferry_frame_build_consumer_down(buf, 0), FERRY_FRAME_DOWN_LEN);
	assert_int_equal(parse_exact(buf, FERRY_FRAME_DOWN_LEN, &f), DOCA_ERROR_INVALID_VALUE);
	ferry_frame_put_header(buf, FERRY_FRAME_CONSUMER_DOWN, 5);
	assert_int_equal(parse_exact(buf, FERRY_FRAME_DOWN_LEN + 1, &f), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_frame_build_consumer_down(buf, 42), FERRY_FRAME_DOWN_LEN);
	assert_int_equal(parse_exact(buf, FERRY_FRAME_DOWN_LEN, &f), DOCA_SUCCESS);
	assert_int_equal(f.type, FERRY_FRAME_CONSUMER_DOWN);
	assert_int_equal(f.u.consumer_id, 42);
}

static void test_done_ring_rules(void **state)
{
	uint8_t buf[FERRY_FRAME_DONE_RING_MAX + 4], desc[FERRY_FRAME_DESC_MAX + 1];
	struct ferry_frame_done_ring r = {.consumer_id = 5, .ring_cap = 8, .desc = desc};
	struct ferry_frame f;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(desc); i++)
		desc[i] = (uint8_t)(i * 3);
	r.desc_len = 0;
	assert_int_equal(ferry_frame_build_done_ring(buf, &r), 0);
	r.desc_len = FERRY_FRAME_DESC_MAX + 1;
	assert_int_equal(ferry_frame_build_done_ring(buf, &r), 0);
	r.desc_len = FERRY_FRAME_DESC_MAX; /* boundary */
	len = ferry_frame_build_done_ring(buf, &r);
	assert_int_equal(len, FERRY_FRAME_DONE_RING_MAX);
	assert_int_equal(parse_exact(buf, len, &f), DOCA_SUCCESS);
	assert_int_equal(f.type, FERRY_FRAME_DONE_RING);
	assert_int_equal(f.u.done_ring.consumer_id, 5);
	assert_int_equal(f.u.done_ring.ring_cap, 8);
	assert_int_equal(f.u.done_ring.desc_len, FERRY_FRAME_DESC_MAX);
	assert_memory_equal(f.u.done_ring.desc, desc, FERRY_FRAME_DESC_MAX);
	assert_int_equal(parse_exact(buf, len - 1, &f), DOCA_ERROR_INVALID_VALUE); /* header length lies */
	r.desc_len = 16;
	len = ferry_frame_build_done_ring(buf, &r);
	buf[FERRY_FRAME_HDR_LEN + 8] = 17; /* descriptor length lies */
	assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	r.consumer_id = 0; /* no consumer */
	len = ferry_frame_build_done_ring(buf, &r);
	assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	r.consumer_id = 5;
	r.ring_cap = 12; /* not a power of two */
	len = ferry_frame_build_done_ring(buf, &r);
	assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	r.ring_cap = 0;
	len = ferry_frame_build_done_ring(buf, &r);
	assert_int_equal(parse_exact(buf, len, &f), DOCA_ERROR_INVALID_VALUE);
	ferry_frame_put_header(buf, FERRY_FRAME_DONE_RING, 9); /* shorter than the fixed part */
	assert_int_equal(parse_exact(buf, FERRY_FRAME_HDR_LEN + 9, &f), DOCA_ERROR_INVALID_VALUE);
}

static void test_garbage_never_crashes(void **state)
{
	static uint8_t buf[FERRY_FRAME_HDR_LEN + MAX_MSG + 64];
	uint8_t valid[FERRY_FRAME_HELLO_MAX];
	size_t valid_len = ferry_frame_build_hello(valid, 4080, 64, 0, "b1:00.0", "server-name");
	unsigned seed = 12345;
	uint32_t accepted = 0;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		struct ferry_frame f;
		size_t len = (size_t)rand_r(&seed) % sizeof(buf);

		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rand_r(&seed);
		if (round % 2 == 0 && len >= 8) /* a plausible header half the time */
			ferry_frame_put_header(buf, (enum ferry_frame_type)(rand_r(&seed) % 10),
					       (uint32_t)(len - FERRY_FRAME_HDR_LEN));
		if (parse_exact(buf, len, &f) == DOCA_SUCCESS) {
			accepted++;
			assert_true(f.payload_len <= MAX_MSG);
			assert_int_equal(f.payload_len + FERRY_FRAME_HDR_LEN, len);
		}
	}
	for (int round = 0; round < 20000; round++) {
		struct ferry_frame f;

		memcpy(buf, valid, valid_len);
		for (int k = 0; k <= round % 4; k++)
			buf[(size_t)rand_r(&seed) % valid_len] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
		uint8_t *copy = malloc(valid_len); /* exact size: ASan sees any overread */

		assert_non_null(copy);
		memcpy(copy, buf, valid_len);
		if (parse(copy, valid_len, &f) == DOCA_SUCCESS && f.type == FERRY_FRAME_HELLO) {
			assert_true(f.u.hello.dev_len + f.u.hello.name_len + FERRY_FRAME_HELLO_FIXED == f.payload_len);
			assert_null(memchr(f.u.hello.name, '\0', f.u.hello.name_len));
		}
		free(copy);
	}
	assert_true(accepted > 0); /* the header-shaped half reaches the type parsers */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_arguments),      cmocka_unit_test(test_header_rules),
		cmocka_unit_test(test_msg_size_boundaries), cmocka_unit_test(test_bye_rules),
		cmocka_unit_test(test_hello_rules),         cmocka_unit_test(test_welcome_and_refuse),
		cmocka_unit_test(test_consumer_up_rules),   cmocka_unit_test(test_consumer_down_rules),
		cmocka_unit_test(test_done_ring_rules),     cmocka_unit_test(test_garbage_never_crashes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
