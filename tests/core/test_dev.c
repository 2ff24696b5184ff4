/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dev.c - devices and representors of the default emulated machine
 * (doca_dev.h), then the topology-file parser. Invalid input first, then
 * boundaries, then the happy paths, reading state back after each change.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <doca_dev.h>

#include "core/ferry_dev.h"
#include "core/topology_priv.h"
#include "ferry_test.h"

/* A buffer that is not a device info: its magic is zero. */
static uint64_t junk[64];

struct fixture {
	struct doca_devinfo **list;
	uint32_t n;
	struct doca_devinfo *host; /* b1:00.0 */
	struct doca_devinfo *dpu;  /* 03:00.0 */
};

static struct doca_devinfo *find_by_pci(struct doca_devinfo **list, uint32_t n, const char *pci)
{
	for (uint32_t i = 0; i < n; i++) {
		uint8_t eq = 0;

		assert_int_equal(doca_devinfo_is_equal_pci_addr(list[i], pci, &eq), DOCA_SUCCESS);
		if (eq)
			return list[i];
	}
	return NULL;
}

static int setup(void **state)
{
	static struct fixture f;

	ferry_test_log_reset();
	memset(&f, 0, sizeof(f));
	assert_int_equal(doca_devinfo_create_list(&f.list, &f.n), DOCA_SUCCESS);
	f.host = find_by_pci(f.list, f.n, "b1:00.0");
	f.dpu = find_by_pci(f.list, f.n, "03:00.0");
	assert_non_null(f.host);
	assert_non_null(f.dpu);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(doca_devinfo_destroy_list(f->list), DOCA_SUCCESS);
	return 0;
}

/* ---- lists --------------------------------------------------------------- */

static void test_list_invalid(void **state)
{
	struct doca_devinfo **list;
	uint32_t n;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(NULL, &n), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_devinfo_create_list: dev_list is NULL");
	assert_int_equal(doca_devinfo_create_list(&list, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("nb_devs is NULL");
	assert_int_equal(doca_devinfo_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_devinfo_destroy_list: list is NULL");
}

static void test_list_destroy_twice(void **state)
{
	struct doca_devinfo **list;
	uint32_t n;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
	/* The header is freed memory now; only run the double-destroy check on a stray list. */
	assert_int_equal(doca_devinfo_destroy_list((struct doca_devinfo **)(void *)&junk[8]), DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not a live list");
}

static void test_list_contents(void **state)
{
	struct fixture *f = *state;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	char iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
	char ibdev[DOCA_DEVINFO_IBDEV_NAME_SIZE];
	enum doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_SF;

	assert_int_equal(f->n, 2);
	assert_ptr_not_equal(f->host, f->dpu);

	assert_int_equal(doca_devinfo_get_pci_addr_str(f->host, pci), DOCA_SUCCESS);
	assert_string_equal(pci, "0000:b1:00.0");
	assert_int_equal(doca_devinfo_get_pci_addr_str(f->dpu, pci), DOCA_SUCCESS);
	assert_string_equal(pci, "0000:03:00.0");

	assert_int_equal(doca_devinfo_get_iface_name(f->dpu, iface, sizeof(iface)), DOCA_SUCCESS);
	assert_string_equal(iface, "p0");
	assert_int_equal(doca_devinfo_get_iface_name(f->host, iface, sizeof(iface)), DOCA_SUCCESS);
	assert_string_equal(iface, "ens1f0np0");
	assert_int_equal(doca_devinfo_get_ibdev_name(f->dpu, ibdev, sizeof(ibdev)), DOCA_SUCCESS);
	assert_string_equal(ibdev, "mlx5_0");
	assert_int_equal(doca_devinfo_get_ibdev_name(f->host, ibdev, sizeof(ibdev)), DOCA_SUCCESS);
	assert_string_equal(ibdev, "mlx5_0");

	assert_int_equal(doca_devinfo_get_pci_func_type(f->host, &type), DOCA_SUCCESS);
	assert_int_equal(type, DOCA_PCI_FUNC_TYPE_PF);
	type = DOCA_PCI_FUNC_TYPE_SF;
	assert_int_equal(doca_devinfo_get_pci_func_type(f->dpu, &type), DOCA_SUCCESS);
	assert_int_equal(type, DOCA_PCI_FUNC_TYPE_PF);

	assert_int_equal(ferry_devinfo_side(f->host), FERRY_SIDE_HOST);
	assert_int_equal(ferry_devinfo_side(f->dpu), FERRY_SIDE_DPU);
	assert_int_equal(ferry_devinfo_machine(f->host), ferry_devinfo_machine(f->dpu));
	assert_string_equal(ferry_devinfo_name(f->host), "b1:00.0");
	assert_string_equal(ferry_devinfo_name(f->dpu), "03:00.0");
}

static void test_enum_values(void **state)
{
	(void)state;
	/* DOCA's numeric values are ABI. */
	assert_int_equal(DOCA_PCI_FUNC_TYPE_PF, 0);
	assert_int_equal(DOCA_PCI_FUNC_TYPE_VF, 1);
	assert_int_equal(DOCA_PCI_FUNC_TYPE_SF, 2);
	assert_int_equal(DOCA_DEVINFO_REP_FILTER_ALL, 0);
	assert_int_equal(DOCA_DEVINFO_REP_FILTER_NET, 2);
	assert_int_equal(DOCA_DEVINFO_REP_FILTER_EMULATED, 4);
	assert_int_equal(DOCA_DEVINFO_PCI_ADDR_SIZE, 13);
	assert_int_equal(DOCA_DEVINFO_PCI_BDF_SIZE, 8);
	assert_int_equal(DOCA_DEVINFO_IFACE_NAME_SIZE, 256);
	assert_int_equal(DOCA_DEVINFO_IBDEV_NAME_SIZE, 64);
	assert_int_equal(DOCA_DEVINFO_REP_VUID_SIZE, 128);
	assert_int_equal(DOCA_DEVINFO_REP_PCI_ADDR_SIZE, 13);
	assert_int_equal(DOCA_DEVINFO_MAC_ADDR_SIZE, 6);
}

/* ---- properties: invalid input and boundaries ---------------------------- */

static void test_getters_invalid(void **state)
{
	struct fixture *f = *state;
	struct doca_devinfo *bad = (struct doca_devinfo *)(void *)junk;
	char buf[DOCA_DEVINFO_IFACE_NAME_SIZE];
	enum doca_pci_func_type type;
	uint8_t u8;
	uint32_t u32;

	assert_int_equal(doca_devinfo_get_pci_addr_str(NULL, buf), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_devinfo_get_pci_addr_str: devinfo is NULL");
	assert_int_equal(doca_devinfo_get_pci_addr_str(f->host, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("output is NULL");
	assert_int_equal(doca_devinfo_get_pci_addr_str(bad, buf), DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not a device info");
	assert_int_equal(doca_devinfo_get_iface_name(NULL, buf, sizeof(buf)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_iface_name(f->host, NULL, sizeof(buf)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_ibdev_name(NULL, buf, sizeof(buf)), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_pci_func_type(NULL, &type), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_pci_func_type(f->host, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_sf_index(NULL, &u32), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(NULL, "b1:00.0", &u8), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(f->host, NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	assert_logged("pci_addr_str is NULL");
	assert_int_equal(doca_devinfo_is_equal_pci_addr(f->host, "b1:00.0", NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_cap_is_filter_net_supported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_cap_is_filter_all_supported(f->dpu, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_cap_is_hotplug_manager_supported(NULL, &u8), DOCA_ERROR_INVALID_VALUE);
}

static void test_getters_size_boundaries(void **state)
{
	struct fixture *f = *state;
	char name[DOCA_DEVINFO_IFACE_NAME_SIZE];
	uint8_t addr[DOCA_DEVINFO_IPV6_ADDR_SIZE];

	assert_int_equal(doca_devinfo_get_iface_name(f->dpu, name, DOCA_DEVINFO_IFACE_NAME_SIZE - 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_devinfo_get_iface_name: 03:00.0: buffer of 255 bytes; at least 256 needed");
	assert_int_equal(doca_devinfo_get_iface_name(f->dpu, name, DOCA_DEVINFO_IFACE_NAME_SIZE), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_get_ibdev_name(f->dpu, name, DOCA_DEVINFO_IBDEV_NAME_SIZE - 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("at least 64 needed");
	assert_int_equal(doca_devinfo_get_ibdev_name(f->dpu, name, DOCA_DEVINFO_IBDEV_NAME_SIZE), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_get_mac_addr(f->dpu, addr, DOCA_DEVINFO_MAC_ADDR_SIZE - 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_ipv4_addr(f->dpu, addr, DOCA_DEVINFO_IPV4_ADDR_SIZE - 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_get_ipv6_addr(f->dpu, addr, DOCA_DEVINFO_IPV6_ADDR_SIZE - 1),
			 DOCA_ERROR_INVALID_VALUE);
	/* Right sizes: emulated ports have no IP address. */
	assert_int_equal(doca_devinfo_get_ipv4_addr(f->dpu, addr, DOCA_DEVINFO_IPV4_ADDR_SIZE), DOCA_ERROR_NOT_FOUND);
	assert_int_equal(doca_devinfo_get_ipv6_addr(f->dpu, addr, DOCA_DEVINFO_IPV6_ADDR_SIZE), DOCA_ERROR_NOT_FOUND);
}

static void test_mac_addresses(void **state)
{
	struct fixture *f = *state;
	uint8_t host_mac[DOCA_DEVINFO_MAC_ADDR_SIZE], dpu_mac[DOCA_DEVINFO_MAC_ADDR_SIZE];

	assert_int_equal(doca_devinfo_get_mac_addr(f->host, host_mac, sizeof(host_mac)), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_get_mac_addr(f->dpu, dpu_mac, sizeof(dpu_mac)), DOCA_SUCCESS);
	assert_memory_not_equal(host_mac, dpu_mac, sizeof(host_mac));
	/* Locally administered unicast. */
	assert_int_equal(host_mac[0] & 0x03, 0x02);
	assert_int_equal(dpu_mac[0] & 0x03, 0x02);
}

static void test_sf_index_on_pf(void **state)
{
	struct fixture *f = *state;
	uint32_t idx = 7;

	assert_int_equal(doca_devinfo_get_sf_index(f->dpu, &idx), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(idx, 7);
}

/* ---- PCI address comparison ---------------------------------------------- */

static void expect_equal(const struct doca_devinfo *info, const char *addr, uint8_t want)
{
	uint8_t eq = 0xff;

	assert_int_equal(doca_devinfo_is_equal_pci_addr(info, addr, &eq), DOCA_SUCCESS);
	if (eq != want)
		fail_msg("'%s': is_equal %u, want %u", addr, eq, want);
}

static void test_pci_compare(void **state)
{
	struct fixture *f = *state;
	static const char *const malformed[] = {
		"",         "b1:00",         "b1:00.",      "b1:00.8",       "b1:20.0",      "zz:00.0", "b1-00.0",
		"b1:00.0 ", "0000:b1:00.0x", "0000b1:00.0", "00000:b1:00.0", "0000:b1:0.00", "+1:00.0",
	};

	expect_equal(f->host, "b1:00.0", 1);
	expect_equal(f->host, "0000:b1:00.0", 1);
	expect_equal(f->host, "B1:00.0", 1);
	expect_equal(f->host, "0000:B1:00.0", 1);
	expect_equal(f->host, "b1:00.1", 0);
	expect_equal(f->host, "b1:01.0", 0);
	expect_equal(f->host, "0001:b1:00.0", 0);
	expect_equal(f->host, "03:00.0", 0);
	expect_equal(f->dpu, "03:00.0", 1);
	expect_equal(f->dpu, "0000:03:00.0", 1);
	expect_equal(f->dpu, "b1:00.0", 0);
	for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		uint8_t eq;

		if (doca_devinfo_is_equal_pci_addr(f->host, malformed[i], &eq) != DOCA_ERROR_INVALID_VALUE)
			fail_msg("'%s' was accepted", malformed[i]);
	}
	assert_logged("is not bb:dd.f or dddd:bb:dd.f");
}

/* ---- open and close ------------------------------------------------------ */

static void test_open_invalid(void **state)
{
	struct fixture *f = *state;
	struct doca_dev *dev;

	assert_int_equal(doca_dev_open(NULL, &dev), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dev_open: devinfo is NULL");
	assert_int_equal(doca_dev_open(f->host, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dev_open: dev is NULL");
	assert_int_equal(doca_dev_open((struct doca_devinfo *)(void *)junk, &dev), DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not a device info");
	assert_int_equal(doca_dev_close((struct doca_dev *)(void *)junk), DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not a device");
	assert_null(doca_dev_as_devinfo(NULL));
}

static void test_open_close(void **state)
{
	struct fixture *f = *state;
	struct doca_dev *a, *b;

	assert_int_equal(doca_dev_open(f->host, &a), DOCA_SUCCESS);
	assert_true(ferry_dev_is_open(a));
	assert_ptr_equal(doca_dev_as_devinfo(a), f->host);
	assert_string_equal(ferry_dev_name(a), "b1:00.0");
	/* A second open counts; the handle is the same device. */
	assert_int_equal(doca_dev_open(f->host, &b), DOCA_SUCCESS);
	assert_ptr_equal(a, b);
	assert_int_equal(doca_dev_close(b), DOCA_SUCCESS);
	assert_true(ferry_dev_is_open(a));
	assert_int_equal(doca_dev_close(a), DOCA_SUCCESS);
	assert_false(ferry_dev_is_open(a));
	assert_null(doca_dev_as_devinfo(a));
	assert_logged("doca_dev_as_devinfo: device b1:00.0 is not open");
	assert_int_equal(doca_dev_close(a), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dev_close: device b1:00.0 is not open (closed twice?)");
}

/*
 * DOCA's samples close a device their cleanup helper already closed and set
 * to NULL (dma_local_copy): closing NULL succeeds and touches no device.
 */
static void test_close_null_is_noop(void **state)
{
	struct fixture *f = *state;
	struct doca_dev *dev;

	assert_int_equal(doca_dev_close(NULL), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(f->host, &dev), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(NULL), DOCA_SUCCESS);
	assert_true(ferry_dev_is_open(dev));
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	assert_false(ferry_dev_is_open(dev));
	assert_int_equal(doca_dev_close(NULL), DOCA_SUCCESS);
}

static void test_close_in_use(void **state)
{
	struct fixture *f = *state;
	struct doca_dev *dev, *again;

	assert_int_equal(doca_dev_open(f->dpu, &dev), DOCA_SUCCESS);
	ferry_dev_get(dev);
	assert_int_equal(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	assert_logged("doca_dev_close: device 03:00.0 still used by 1");
	assert_true(ferry_dev_is_open(dev));
	/* With two opens, the first close succeeds; the last one is refused. */
	assert_int_equal(doca_dev_open(f->dpu, &again), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(again), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dev), DOCA_ERROR_IN_USE);
	ferry_dev_put(dev);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
	assert_false(ferry_dev_is_open(dev));
	/* An unbalanced put is logged, never underflows. */
	ferry_test_log_reset();
	ferry_dev_put(dev);
	assert_logged("no reference to drop");
}

static void test_devinfo_outlives_list(void **state)
{
	struct doca_devinfo **list;
	struct doca_dev *dev;
	char pci[DOCA_DEVINFO_PCI_ADDR_SIZE];
	uint32_t n;

	(void)state;
	assert_int_equal(doca_devinfo_create_list(&list, &n), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(list[0], &dev), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_destroy_list(list), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_get_pci_addr_str(doca_dev_as_devinfo(dev), pci), DOCA_SUCCESS);
	assert_int_equal(strlen(pci), DOCA_DEVINFO_PCI_ADDR_SIZE - 1);
	assert_int_equal(doca_dev_close(dev), DOCA_SUCCESS);
}

/* ---- representors -------------------------------------------------------- */

static void test_rep_list_invalid(void **state)
{
	struct fixture *f = *state;
	struct doca_devinfo_rep **reps;
	struct doca_dev *host, *dpu;
	uint32_t n;

	assert_int_equal(doca_dev_open(f->host, &host), DOCA_SUCCESS);
	assert_int_equal(doca_dev_open(f->dpu, &dpu), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_rep_create_list(NULL, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_devinfo_rep_create_list: dev is NULL");
	assert_int_equal(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, NULL, &n),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &reps, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_create_list((struct doca_dev *)(void *)junk, 0, &reps, &n),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_create_list(dpu, 1, &reps, &n), DOCA_ERROR_INVALID_VALUE);
	assert_logged("filter 0x1 has unknown bits");
	assert_int_equal(doca_devinfo_rep_create_list(dpu, 1 << 5, &reps, &n), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_create_list(host, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n),
			 DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("device b1:00.0 is host-side; only DPU-side devices have representors");
	assert_int_equal(doca_devinfo_rep_destroy_list(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_close(host), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dpu), DOCA_SUCCESS);
}

static uint32_t rep_count(struct doca_dev *dev, int filter)
{
	struct doca_devinfo_rep **reps;
	uint32_t n = 99;

	assert_int_equal(doca_devinfo_rep_create_list(dev, filter, &reps, &n), DOCA_SUCCESS);
	assert_non_null(reps);
	assert_int_equal(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
	return n;
}

static void test_rep_filters(void **state)
{
	struct fixture *f = *state;
	struct doca_dev *dpu;

	assert_int_equal(doca_dev_open(f->dpu, &dpu), DOCA_SUCCESS);
	assert_int_equal(rep_count(dpu, DOCA_DEVINFO_REP_FILTER_ALL), 1);
	assert_int_equal(rep_count(dpu, DOCA_DEVINFO_REP_FILTER_NET), 1);
	assert_int_equal(rep_count(dpu, DOCA_DEVINFO_REP_FILTER_EMULATED), 0);
	assert_int_equal(rep_count(dpu, DOCA_DEVINFO_REP_FILTER_NET | DOCA_DEVINFO_REP_FILTER_EMULATED), 1);
	assert_int_equal(doca_dev_close(dpu), DOCA_SUCCESS);
}

static void test_rep_properties(void **state)
{
	struct fixture *f = *state;
	struct doca_devinfo_rep **reps;
	struct doca_dev *dpu;
	char vuid[DOCA_DEVINFO_REP_VUID_SIZE], vuid2[DOCA_DEVINFO_REP_VUID_SIZE];
	char pci[DOCA_DEVINFO_REP_PCI_ADDR_SIZE];
	char iface[DOCA_DEVINFO_IFACE_NAME_SIZE];
	enum doca_pci_func_type type = DOCA_PCI_FUNC_TYPE_SF;
	uint8_t eq = 0, hotplug = 1;
	uint32_t n, idx;

	assert_int_equal(doca_dev_open(f->dpu, &dpu), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n), DOCA_SUCCESS);
	assert_int_equal(n, 1);

	/* Invalid input and short buffers first. */
	assert_int_equal(doca_devinfo_rep_get_vuid(NULL, vuid, sizeof(vuid)), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_devinfo_rep_get_vuid: devinfo_rep is NULL");
	assert_int_equal(doca_devinfo_rep_get_vuid(reps[0], vuid, DOCA_DEVINFO_REP_VUID_SIZE - 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("at least 128 needed");
	assert_int_equal(doca_devinfo_rep_get_iface_name(reps[0], iface, DOCA_DEVINFO_IFACE_NAME_SIZE - 1),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_get_pci_addr_str(reps[0], NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_is_equal_pci_addr(reps[0], "nonsense", &eq), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_devinfo_rep_get_pci_func_type((struct doca_devinfo_rep *)(void *)junk, &type),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not a representor info");

	assert_int_equal(doca_devinfo_rep_get_vuid(reps[0], vuid, sizeof(vuid)), DOCA_SUCCESS);
	assert_true(strlen(vuid) > 0);
	assert_int_equal(doca_devinfo_rep_get_vuid(reps[0], vuid2, sizeof(vuid2)), DOCA_SUCCESS);
	assert_string_equal(vuid, vuid2); /* stable */
	assert_int_equal(doca_devinfo_rep_get_pci_addr_str(reps[0], pci), DOCA_SUCCESS);
	assert_string_equal(pci, "0000:b1:00.0");
	assert_int_equal(doca_devinfo_rep_is_equal_pci_addr(reps[0], "b1:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 1);
	assert_int_equal(doca_devinfo_rep_is_equal_pci_addr(reps[0], "0000:b1:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 1);
	assert_int_equal(doca_devinfo_rep_is_equal_pci_addr(reps[0], "03:00.0", &eq), DOCA_SUCCESS);
	assert_int_equal(eq, 0);
	assert_int_equal(doca_devinfo_rep_get_iface_name(reps[0], iface, sizeof(iface)), DOCA_SUCCESS);
	assert_string_equal(iface, "pf0hpf");
	assert_int_equal(doca_devinfo_rep_get_pci_func_type(reps[0], &type), DOCA_SUCCESS);
	assert_int_equal(type, DOCA_PCI_FUNC_TYPE_PF);
	assert_int_equal(doca_devinfo_rep_get_sf_index(reps[0], &idx), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(doca_devinfo_rep_get_is_hotplug(reps[0], &hotplug), DOCA_SUCCESS);
	assert_int_equal(hotplug, 0);
	/* The representor links the two sides of the emulated machine. */
	assert_ptr_equal(ferry_devinfo_rep_peer(reps[0]), f->host);
	assert_ptr_equal(ferry_devinfo_rep_manager(reps[0]), f->dpu);

	assert_int_equal(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
	assert_int_equal(doca_dev_close(dpu), DOCA_SUCCESS);
}

static void test_rep_open_close(void **state)
{
	struct fixture *f = *state;
	struct doca_devinfo_rep **reps, *info;
	struct doca_dev_rep *rep, *again;
	struct doca_dev *dpu;
	uint32_t n;

	assert_int_equal(doca_dev_open(f->dpu, &dpu), DOCA_SUCCESS);
	assert_int_equal(doca_devinfo_rep_create_list(dpu, DOCA_DEVINFO_REP_FILTER_NET, &reps, &n), DOCA_SUCCESS);
	info = reps[0];

	assert_int_equal(doca_dev_rep_open(NULL, &rep), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_dev_rep_open: devinfo is NULL");
	assert_int_equal(doca_dev_rep_open(info, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_dev_rep_close(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(doca_dev_rep_as_devinfo(NULL));

	assert_int_equal(doca_dev_rep_open(info, &rep), DOCA_SUCCESS);
	/* The rep stays usable after its list is gone. */
	assert_int_equal(doca_devinfo_rep_destroy_list(reps), DOCA_SUCCESS);
	assert_ptr_equal(doca_dev_rep_as_devinfo(rep), info);
	assert_string_equal(ferry_dev_rep_name(rep), "pf0hpf");
	assert_true(ferry_dev_rep_is_open(rep));

	ferry_dev_rep_get(rep);
	assert_int_equal(doca_dev_rep_close(rep), DOCA_ERROR_IN_USE);
	assert_logged("doca_dev_rep_close: representor pf0hpf still used by 1");
	assert_int_equal(doca_dev_rep_open(info, &again), DOCA_SUCCESS);
	assert_ptr_equal(again, rep);
	assert_int_equal(doca_dev_rep_close(again), DOCA_SUCCESS);
	ferry_dev_rep_put(rep);
	assert_int_equal(doca_dev_rep_close(rep), DOCA_SUCCESS);
	assert_false(ferry_dev_rep_is_open(rep));
	assert_null(doca_dev_rep_as_devinfo(rep));
	assert_int_equal(doca_dev_rep_close(rep), DOCA_ERROR_INVALID_VALUE);
	assert_logged("is not open (closed twice?)");
	assert_int_equal(doca_dev_close(dpu), DOCA_SUCCESS);
}

/* ---- capabilities -------------------------------------------------------- */

static void test_caps(void **state)
{
	struct fixture *f = *state;
	const struct ferry_dma_caps *caps;
	uint8_t v;

	assert_int_equal(doca_devinfo_rep_cap_is_filter_all_supported(f->dpu, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(doca_devinfo_rep_cap_is_filter_net_supported(f->dpu, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(doca_devinfo_rep_cap_is_filter_emulated_supported(f->dpu, &v), DOCA_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(doca_devinfo_rep_cap_is_filter_all_supported(f->host, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0);
	assert_int_equal(doca_devinfo_rep_cap_is_filter_net_supported(f->host, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0);
	assert_int_equal(doca_devinfo_rep_cap_is_filter_emulated_supported(f->host, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0);
	v = 1;
	assert_int_equal(doca_devinfo_cap_is_hotplug_manager_supported(f->dpu, &v), DOCA_SUCCESS);
	assert_int_equal(v, 0);

	for (uint32_t i = 0; i < f->n; i++) {
		caps = ferry_devinfo_dma_caps(f->list[i]);
		assert_non_null(caps);
		assert_true(caps->memcpy_supported);
		assert_int_equal(caps->max_buf_size, UINT64_C(1) << 31);
		assert_int_equal(caps->max_buf_list_len, 32);
		assert_int_equal(caps->max_num_tasks, 65536);
	}
}

/* ---- topology files ------------------------------------------------------ */

static char *write_topology(const char *text)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/ferry-topo-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static doca_error_t load_text(const char *text, struct ferry_topology *topo)
{
	char *path = write_topology(text);
	doca_error_t err = ferry_topology_load(path, topo);

	unlink(path);
	return err;
}

static void expect_rejected(const char *text, const char *why)
{
	struct ferry_topology topo;

	ferry_test_log_reset();
	if (load_text(text, &topo) != DOCA_ERROR_INITIALIZATION)
		fail_msg("accepted: %s", text);
	assert_logged(why);
}

static void test_topology_file_invalid(void **state)
{
	struct ferry_topology topo;

	(void)state;
	assert_int_equal(ferry_topology_load("/nonexistent/ferry.topo", &topo), DOCA_ERROR_INITIALIZATION);
	assert_logged("cannot open");
	expect_rejected("", "describes no device");
	expect_rejected("# only a comment\n", "describes no device");
	expect_rejected("dpu-pf 03:00.0 p0 mlx5_0\n", "line 1: a device before any 'dpu' line");
	expect_rejected("dpu\nhost-pf b1:00.0 h mlx5_0\n", "line 2: host functions need a 'dpu-pf'");
	expect_rejected("dpu\nfrobnicate\n", "line 2: unknown statement");
	expect_rejected("dpu extra\n", "'dpu' takes no arguments");
	expect_rejected("dpu\ndpu-pf 03:00.0 p0\n", "usage: dpu-pf");
	expect_rejected("dpu\ndpu-pf 3:0.0 p0 mlx5_0\n", "bad PCI address");
	expect_rejected("dpu\ndpu-pf 03:00.0 p0 mlx5_0\ndpu-pf 0000:03:00.0 p1 mlx5_1\n", "already used");
	expect_rejected("dpu\ndpu-pf 03:00.0 an-interface-name-far-too-long-to-fit mlx5_0\n", "too long");
	expect_rejected("dpu\ndpu-pf 03:00.0 p0 mlx5_0\ndpu-sf 03:00.0 x sf mlx5_2\n", "bad SF index");
	expect_rejected("dpu\ndpu-pf 03:00.0 p0 mlx5_0\ndpu-sf 03:00.0 -1 sf mlx5_2\n", "bad SF index");
	expect_rejected("dpu\ndpu-pf 03:00.0 p0 mlx5_0\nemulated b1:00.0\n", "usage: emulated");
	unsetenv("FERRY_SIDE");
	expect_rejected("strict\ndpu\ndpu-pf 03:00.0 p0 mlx5_0\n", "strict mode needs FERRY_SIDE");
}

static void test_topology_file_rich(void **state)
{
	static const char text[] = "# two DPUs\n"
				   "dpu\n"
				   "dpu-pf  03:00.0 p0 mlx5_0\n"
				   "dpu-pf  03:00.1 p1 mlx5_1   # second port\n"
				   "host-pf b1:00.0 ens1f0np0 mlx5_0\n"
				   "host-pf b1:00.1 ens1f1np1 mlx5_1\n"
				   "host-vf b1:00.2 ens1f0v0 mlx5_2\n"
				   "dpu-sf  03:00.0 4 en3f0pf0sf4 mlx5_4\n"
				   "emulated 0000:b1:00.5 virtio0\n"
				   "\n"
				   "dpu\n"
				   "dpu-pf  03:00.0 p0 mlx5_0\n"
				   "host-pf c1:00.0 ens2f0np0 mlx5_0\n";
	struct ferry_topology topo;
	unsigned int net = 0, emu = 0;

	(void)state;
	assert_int_equal(load_text(text, &topo), DOCA_SUCCESS);
	assert_false(topo.strict);
	assert_int_equal(topo.nb_devs, 8);
	assert_int_equal(topo.nb_reps, 6);
	for (uint32_t i = 0; i < topo.nb_reps; i++) {
		net += topo.reps[i]->kind == DOCA_DEVINFO_REP_FILTER_NET;
		emu += topo.reps[i]->kind == DOCA_DEVINFO_REP_FILTER_EMULATED;
		/* Every rep of DPU 0 hangs on its first PF, of DPU 1 on its own. */
		assert_int_equal(topo.reps[i]->manager->side, FERRY_SIDE_DPU);
		assert_int_equal(topo.reps[i]->manager->pci.fn, 0);
	}
	assert_int_equal(net, 5);
	assert_int_equal(emu, 1);
	assert_string_equal(topo.reps[0]->iface, "pf0hpf");
	assert_string_equal(topo.reps[1]->iface, "pf1hpf");
	assert_string_equal(topo.reps[2]->iface, "pf0vf0");
	assert_int_equal(topo.reps[2]->func_type, DOCA_PCI_FUNC_TYPE_VF);
	assert_string_equal(topo.reps[3]->iface, "pf0sf4");
	assert_int_equal(topo.reps[3]->sf_index, 4);
	assert_null(topo.reps[4]->peer);
	assert_string_equal(topo.reps[5]->peer->pci_str, "0000:c1:00.0");
	assert_int_equal(topo.reps[5]->manager->machine, 1);
	assert_string_not_equal(topo.reps[0]->vuid, topo.reps[5]->vuid);
	assert_int_equal(topo.devs[5]->func_type, DOCA_PCI_FUNC_TYPE_SF);
	assert_int_equal(topo.devs[5]->sf_index, 4);
	ferry_topology_release(&topo);
	assert_null(topo.devs);
}

static void test_topology_strict(void **state)
{
	static const char text[] = "strict\ndpu\ndpu-pf 03:00.0 p0 mlx5_0\nhost-pf b1:00.0 h0 mlx5_0\n";
	struct ferry_topology topo;

	(void)state;
	setenv("FERRY_SIDE", "dpu", 1);
	assert_int_equal(load_text(text, &topo), DOCA_SUCCESS);
	assert_true(topo.strict);
	assert_true(ferry_topology_visible(&topo, topo.devs[0]));
	assert_false(ferry_topology_visible(&topo, topo.devs[1]));
	ferry_topology_release(&topo);
	setenv("FERRY_SIDE", "host", 1);
	assert_int_equal(load_text(text, &topo), DOCA_SUCCESS);
	assert_false(ferry_topology_visible(&topo, topo.devs[0]));
	assert_true(ferry_topology_visible(&topo, topo.devs[1]));
	ferry_topology_release(&topo);
	unsetenv("FERRY_SIDE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_destroy_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_contents, setup, teardown),
		cmocka_unit_test(test_enum_values),
		cmocka_unit_test_setup_teardown(test_getters_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_getters_size_boundaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mac_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sf_index_on_pf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pci_compare, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_null_is_noop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_in_use, setup, teardown),
		cmocka_unit_test(test_devinfo_outlives_list),
		cmocka_unit_test_setup_teardown(test_rep_list_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rep_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rep_properties, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rep_open_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_topology_file_invalid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_topology_file_rich, setup, teardown),
		cmocka_unit_test(test_topology_strict),
	};

	/* This binary tests the compiled-in default machine. */
	unsetenv("FERRY_TOPOLOGY");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
