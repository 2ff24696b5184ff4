/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dev_topology.c - the public device API on a machine read from
 * FERRY_TOPOLOGY. meson runs it three times (tests/core/meson.build), and
 * FERRY_TEST_EXPECT says which machine that file describes:
 *   FERRY_TEST_EXPECT=two_dpus  two DPUs with a VF, an SF, an emulated function
 *   FERRY_TEST_EXPECT=strict    strict mode, FERRY_SIDE=host: host devices only
 *   FERRY_TEST_EXPECT=broken    a bad file: every list call fails, nothing crashes
 * Either variable unset, FERRY_TEST_EXPECT none of these, or FERRY_TOPOLOGY
 * not a readable file: the run fails, so a typo in meson.build cannot pass.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <doca_dev.h>

#include "core/ferry_dev.h"
#include "ferry_test.h"

static struct doca_devinfo *find(struct doca_devinfo **list, uint32_t n, const char *pci, enum ferry_dev_side side,
				 uint32_t machine)
{
	for (uint32_t i = 0; i < n; i++) {
		uint8_t eq = 0;

		assert_int_equal(doca_devinfo_is_equal_pci_addr(list[i], pci, &eq), DOCA_SUCCESS);
		if (eq && ferry_devinfo_side(list[i]) == side && ferry_devinfo_machine(list[i]) == machine)
			return list[i];
	}
	return NULL;
}

static uint32_t count_reps(struct doca_devinfo *info, int filter)
{
	struct doca_devinfo_rep **reps;
	struct doca_dev *dev;
	uint32_t n;

	assert_int_equal(doca_dev_open(info, &dev), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_rep_create_list(dev, filter, &reps, &n), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	return n;
}

static void test_two_dpus(void **state)
{
	struct doca_devinfo **list, *dpu0, *dpu1, *sf;
	enum doca_pci_func_type type;
	uint32_t n, idx = 0;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(n, 6);
	dpu0 = find(list, n, "03:00.0", FERRY_SIDE_DPU, 0);
	dpu1 = find(list, n, "03:00.0", FERRY_SIDE_DPU, 1);
	assert_non_null(dpu0);
	assert_non_null(dpu1);
	assert_non_null(find(list, n, "c1:00.0", FERRY_SIDE_HOST, 1));
	assert_null(find(list, n, "c1:00.0", FERRY_SIDE_HOST, 0));
	/* pf0hpf, pf0vf0, pf0sf4 on DPU 0, virtio0 emulated; pf0hpf on DPU 1. */
	assert_int_equal(count_reps(dpu0, DOCA_DEVINFO_REP_FILTER_NET), 3);
	assert_int_equal(count_reps(dpu0, DOCA_DEVINFO_REP_FILTER_EMULATED), 1);
	assert_int_equal(count_reps(dpu0, DOCA_DEVINFO_REP_FILTER_ALL), 4);
	assert_int_equal(count_reps(dpu1, DOCA_DEVINFO_REP_FILTER_ALL), 1);
	sf = NULL;
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(doca_devinfo_get_pci_func_type(list[i], &type), DOCA_SUCCESS);
		if (type == DOCA_PCI_FUNC_TYPE_SF)
			sf = list[i];
	}
	assert_non_null(sf);
	assert_int_equal(doca_devinfo_get_sf_index(sf, &idx), DOCA_SUCCESS);
	assert_int_equal(idx, 4);
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
}

static void test_strict_host(void **state)
{
	struct doca_devinfo **list;
	uint32_t n;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(n, 1);
	assert_int_equal(ferry_devinfo_side(list[0]), FERRY_SIDE_HOST);
	assert_string_equal(ferry_devinfo_name(list[0]), "b1:00.0");
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
}

static void test_broken(void **state)
{
	struct doca_devinfo **list;
	uint32_t n;

	(void)state;
	ferry_test_log_reset();
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_ERROR_INITIALIZATION);
	assert_logged("broken.topo line 2: host functions need a 'dpu-pf'");
	/* The answer stays the same; the file is not read again. */
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_ERROR_INITIALIZATION);
}

int main(void)
{
	static const struct {
		const char *expect;
		struct CMUnitTest test;
	} machines[] = {
		{"two_dpus", cmocka_unit_test(test_two_dpus)},
		{"strict", cmocka_unit_test(test_strict_host)},
		{"broken", cmocka_unit_test(test_broken)},
	};
	const char *expect = getenv("FERRY_TEST_EXPECT");
	const char *topology = getenv("FERRY_TOPOLOGY");

	if (topology == NULL) {
		fprintf(stderr, "FERRY_TOPOLOGY is unset: it names the topology file under test\n");
		return 1;
	}
	if (access(topology, R_OK) != 0) {
		fprintf(stderr, "FERRY_TOPOLOGY=%s: %s\n", topology, strerror(errno));
		return 1;
	}
	for (size_t i = 0; expect != NULL && i < sizeof(machines) / sizeof(machines[0]); i++) {
		if (strcmp(expect, machines[i].expect) == 0) {
			const struct CMUnitTest tests[] = {machines[i].test};

			ferry_test_log_reset();
			return ferry_test_status(cmocka_run_group_tests(tests, NULL, NULL));
		}
	}
	fprintf(stderr, "FERRY_TEST_EXPECT=%s: it must be two_dpus, strict or broken\n", expect != NULL ? expect : "");
	return 1;
}
