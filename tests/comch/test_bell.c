/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_bell.c - the doorbells of event mode against a peer that writes what it
 * likes into the post ring's bell slots or rings our bell without end: a token
 * is only a name, so a garbage token is rung into the void and cleared, a
 * flood of rings costs one wake-up, and a ring whose head lies keeps its
 * reader polling rather than asleep.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <poll.h>
#include <string.h>

#include <doca_pe.h>

#include "comch/fast_priv.h"
#include "core/ferry_ctx.h"
#include "ferry_test.h"
#include "ferry_test_wait.h"

/* Whether the PE's notification handle becomes readable within @p ms. */
static bool handle_readable(struct doca_pe *pe, int ms)
{
	doca_notification_handle_t fd;
	struct pollfd p;

	assert_int_equal(doca_pe_get_notification_handle(pe, &fd), DOCA_SUCCESS);
	p = (struct pollfd){.fd = fd, .events = POLLIN};
	return poll(&p, 1, ms) == 1;
}

/* The honest case: the token in the slot rings that PE's bell, once, and the slot is cleared. */
static void test_bell_wakes_its_pe(void **state)
{
	struct doca_pe *pe = NULL;
	struct comch_ring_hdr hdr;
	uint64_t token;

	(void)state;
	memset(&hdr, 0, sizeof(hdr));
	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	token = ferry_pe_bell(pe);
	assert_true(token != 0);
	assert_int_equal(ferry_pe_bell(pe), token); /* one bell per PE */
	assert_int_equal(doca_pe_request_notification(pe), DOCA_SUCCESS);
	assert_false(handle_readable(pe, 20));
	atomic_store(&hdr.done_waiter, token);
	comch_ring_bell(&hdr.done_waiter);
	assert_int_equal(atomic_load(&hdr.done_waiter), 0);
	assert_true(handle_readable(pe, (int)FERRY_TEST_WAIT_MS));
	assert_int_equal(doca_pe_clear_notification(pe, 0), DOCA_SUCCESS);
	assert_int_equal(doca_pe_request_notification(pe), DOCA_SUCCESS);
	assert_false(handle_readable(pe, 20)); /* drained: no spin after the wake-up */
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
}

/* A peer's garbage in the slots: rung into the void (no such bell), cleared, and no PE of ours wakes. */
static void test_garbage_tokens(void **state)
{
	static const uint64_t garbage[] = {1, 0xffffffffffffffffull, 0x8000000000000000ull, 0x0123456789abcdefull};
	struct doca_pe *pe = NULL;
	struct comch_ring_hdr hdr;

	(void)state;
	memset(&hdr, 0, sizeof(hdr));
	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	assert_true(ferry_pe_bell(pe) != 0);
	assert_int_equal(doca_pe_request_notification(pe), DOCA_SUCCESS);
	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		atomic_store(&hdr.post_waiter, garbage[i]);
		comch_ring_bell(&hdr.post_waiter);
		assert_int_equal(atomic_load(&hdr.post_waiter), 0);
	}
	comch_ring_bell(&hdr.post_waiter); /* an empty slot rings nothing */
	assert_false(handle_readable(pe, 20));
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
}

/* A peer that rings our bell without end: never blocks it, costs us one wake-up per arming, no spin. */
static void test_ring_flood(void **state)
{
	struct doca_pe *pe = NULL;
	uint64_t token;

	(void)state;
	assert_int_equal(doca_pe_create(&pe), DOCA_SUCCESS);
	token = ferry_pe_bell(pe);
	assert_true(token != 0);
	for (int i = 0; i < 100000; i++) /* far past the socket's queue: rings are dropped, not blocked on */
		ferry_pe_bell_ring(token);
	assert_true(handle_readable(pe, (int)FERRY_TEST_WAIT_MS));
	assert_int_equal(doca_pe_clear_notification(pe, 0), DOCA_SUCCESS);
	assert_int_equal(doca_pe_request_notification(pe), DOCA_SUCCESS);
	assert_false(handle_readable(pe, 20));
	assert_int_equal(doca_pe_destroy(pe), DOCA_SUCCESS);
}

/* A ring whose head the peer moved (a lie or real entries) never lets its reader sleep on it. */
static void test_moved_head_keeps_polling(void **state)
{
	struct comch_ring_hdr hdr;
	struct comch_ring_view view;
	_Atomic uint64_t slot = 0;

	(void)state;
	memset(&hdr, 0, sizeof(hdr));
	memset(&view, 0, sizeof(view));
	view.hdr = &hdr;
	view.cap = 4;
	view.local = true;
	assert_true(comch_ring_wait_bell(&slot, 42, &view)); /* empty: sleep, token left */
	assert_int_equal(atomic_load(&slot), 42);
	atomic_store(&hdr.head, 1000000); /* far beyond the ring: the reader's poll ends the connection */
	assert_false(comch_ring_wait_bell(&slot, 42, &view));
	view.tail = 1000000;
	assert_true(comch_ring_wait_bell(&slot, 42, &view));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bell_wakes_its_pe),
		cmocka_unit_test(test_garbage_tokens),
		cmocka_unit_test(test_ring_flood),
		cmocka_unit_test(test_moved_head_keeps_polling),
	};

	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
