/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_topology_net.c - network identities of the emulated devices: the
 * topology file's 'net' line (binds the device of the line before), the
 * FERRY_RDMA_NET variable (every device, or by PCI address; it wins over the
 * file), the identity check, and each refusal with its log line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/topology_priv.h"
#include "ferry_test.h"

static char path[64];

/* Load a topology from @p text (through a temporary file, as FERRY_TOPOLOGY would). */
static doca_error_t load_text(const char *text, struct ferry_topology *topo)
{
	FILE *f;
	int fd;
	doca_error_t err;

	snprintf(path, sizeof(path), "/tmp/ferry-topo-net-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	err = ferry_topology_load(path, topo);
	unlink(path);
	return err;
}

static const char *net_of(const struct ferry_topology *t, const char *pci, enum ferry_dev_side side)
{
	struct ferry_pci_addr a;

	assert_true(ferry_pci_addr_parse(pci, &a));
	for (uint32_t i = 0; i < t->nb_devs; i++)
		if (ferry_pci_addr_equal(&t->devs[i]->pci, &a) && t->devs[i]->side == side)
			return t->devs[i]->net;
	fail_msg("no device %s", pci);
	return NULL;
}

static const char machine[] = "dpu\n"
			      "dpu-pf 03:00.0 p0 mlx5_0\n"
			      "net 198.18.0.2   # the DPU side\n"
			      "host-pf b1:00.0 ens1f0np0 mlx5_0\n"
			      "net veth-host\n"
			      "host-vf b1:00.2 ens1f0v0 mlx5_2\n";

static void test_file(void **state)
{
	struct ferry_topology t;

	(void)state;
	assert_int_equal(load_text(machine, &t), DOCA_SUCCESS);
	assert_string_equal(net_of(&t, "03:00.0", FERRY_SIDE_DPU), "198.18.0.2");
	assert_string_equal(net_of(&t, "b1:00.0", FERRY_SIDE_HOST), "veth-host");
	assert_string_equal(net_of(&t, "b1:00.2", FERRY_SIDE_HOST), ""); /* unbound: this machine only */
	ferry_topology_release(&t);
}

static void test_env(void **state)
{
	struct ferry_topology t;

	(void)state;
	/* One identity: every device. */
	assert_int_equal(load_text(machine, &t), DOCA_SUCCESS);
	assert_int_equal(ferry_topology_apply_net_env(&t, "eth1"), DOCA_SUCCESS);
	assert_string_equal(net_of(&t, "03:00.0", FERRY_SIDE_DPU), "eth1");
	assert_string_equal(net_of(&t, "b1:00.2", FERRY_SIDE_HOST), "eth1");
	ferry_topology_release(&t);
	/* By PCI address, over the file's lines. */
	assert_int_equal(load_text(machine, &t), DOCA_SUCCESS);
	assert_int_equal(ferry_topology_apply_net_env(&t, "0000:03:00.0=10.0.0.1,b1:00.2=ib0"), DOCA_SUCCESS);
	assert_string_equal(net_of(&t, "03:00.0", FERRY_SIDE_DPU), "10.0.0.1");
	assert_string_equal(net_of(&t, "b1:00.0", FERRY_SIDE_HOST), "veth-host");
	assert_string_equal(net_of(&t, "b1:00.2", FERRY_SIDE_HOST), "ib0");
	ferry_topology_release(&t);
}

static void refused_env(const char *value, const char *rule)
{
	struct ferry_topology t;

	assert_int_equal(load_text(machine, &t), DOCA_SUCCESS);
	ferry_test_log_reset();
	assert_int_equal(ferry_topology_apply_net_env(&t, value), DOCA_ERROR_INITIALIZATION);
	assert_logged(rule);
	ferry_topology_release(&t);
}

static void test_env_refused(void **state)
{
	char longer[600];

	(void)state;
	refused_env("1.2.3", "not an IPv4 address");
	refused_env("256.1.1.1", "not an IPv4 address");
	refused_env("eth0;rm", "neither an IPv4 address nor an interface name");
	refused_env("averyveryverylongname", "longer than 15");
	refused_env("03:00.0=eth0,eth1", "each is <pci>=<identity>");
	refused_env("zz:00.0=eth0", "not a PCI address");
	refused_env("c1:00.0=eth0", "no device at PCI address");
	refused_env("03:00.0=", "empty network identity");
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	refused_env(longer, "longer than 511");
}

static void refused_file(const char *text, const char *rule)
{
	struct ferry_topology t;

	ferry_test_log_reset();
	assert_int_equal(load_text(text, &t), DOCA_ERROR_INITIALIZATION);
	assert_logged(rule);
}

static void test_file_refused(void **state)
{
	(void)state;
	refused_file("net 10.0.0.1\n", "must follow a device line");
	refused_file("dpu\nnet 10.0.0.1\n", "must follow a device line");
	refused_file("dpu\ndpu-pf 03:00.0 p0 mlx5_0\nnet\n", "usage: net");
	refused_file("dpu\ndpu-pf 03:00.0 p0 mlx5_0\nnet a b\n", "usage: net");
	refused_file("dpu\ndpu-pf 03:00.0 p0 mlx5_0\nnet 10.0.0\n", "not an IPv4 address");
	refused_file("dpu\ndpu-pf 03:00.0 p0 mlx5_0\nnet e$h0\n", "neither an IPv4");
	refused_file("dpu\ndpu-pf 03:00.0 p0 mlx5_0\nnet eth0\nnet eth1\n", "already has a 'net' line");
}

static void test_identity_check(void **state)
{
	(void)state;
	assert_null(ferry_net_identity_check("198.18.0.1"));
	assert_null(ferry_net_identity_check("veth0"));
	assert_null(ferry_net_identity_check("en3f0pf0sf4"));
	assert_null(ferry_net_identity_check("eth0.100"));
	assert_non_null(ferry_net_identity_check(""));
	assert_non_null(ferry_net_identity_check("1.2.3.4.5"));
	assert_non_null(ferry_net_identity_check("eth 0"));
	assert_non_null(ferry_net_identity_check("::1"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file),           cmocka_unit_test(test_env),
		cmocka_unit_test(test_env_refused),    cmocka_unit_test(test_file_refused),
		cmocka_unit_test(test_identity_check),
	};

	ferry_test_log_reset();
	return ferry_test_run(argc, argv, tests, NULL, NULL);
}
