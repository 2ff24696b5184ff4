/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_net_fork.c - the link's network path and fork(): UCX does not support
 * fork, so a forked child of a process whose network server runs can neither
 * offer the path nor copy through an import it inherited, and says so; the
 * parent goes on serving and copying, even when it forks while its server and
 * a reader thread are busy (the server's lock is taken around the fork, so the
 * child never inherits it held).
 *
 * One process exports a buffer with the network path on 127.0.0.1 and imports
 * it back through that path (FERRY_LINK_NET=always), so every copy crosses
 * its own network server.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_types.h>

#include "link/ferry_access.h"
#include "link/ferry_export.h"

#define LEN     (1u << 20)
#define MACHINE 0u
#define CALL    "test_net_fork"
#define FORKS   40

struct fixture {
	uint8_t *mem;
	struct ferry_link_export *exp;
	struct ferry_link_import *imp;
	const struct ferry_access *path;
	struct ferry_link_net_offer offer;
};

static int setup(void **state)
{
	static struct fixture f;
	struct ferry_link_view view;
	const void *desc;
	size_t desc_len;

	setenv("FERRY_LINK_NET", "always", 1);
	memset(&f, 0, sizeof(f));
	f.mem = malloc(LEN);
	assert_non_null(f.mem);
	for (size_t i = 0; i < LEN; i++)
		f.mem[i] = (uint8_t)(i * 7);
	inet_pton(AF_INET, "127.0.0.1", &f.offer.ipv4);
	strcpy(f.offer.iface, "lo");
	assert_int_equal(
		ferry_link_export_open(f.mem, LEN, DOCA_ACCESS_FLAG_PCI_READ_WRITE, MACHINE, &f.offer, CALL, &f.exp),
		DOCA_SUCCESS);
	ferry_link_export_desc(f.exp, &desc, &desc_len);
	assert_int_equal(ferry_link_import_open(desc, desc_len, MACHINE, 0, CALL, &f.imp, &view), DOCA_SUCCESS);
	f.path = ferry_link_import_access(f.imp);
	assert_string_equal(ferry_access_name(f.path), "net");
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	ferry_link_import_close(f->imp);
	ferry_link_export_close(f->exp);
	free(f->mem);
	unsetenv("FERRY_LINK_NET");
	return 0;
}

/* Read 64 KiB at @p off through the network path and compare with the buffer. */
static int read_back(const struct fixture *f, size_t off, uint8_t *tmp)
{
	doca_error_t err = f->path->ops->read(f->path, tmp, (uintptr_t)f->mem + off, 65536);

	if (err != DOCA_SUCCESS)
		return (int)err;
	return memcmp(tmp, f->mem + off, 65536) == 0 ? 0 : -1;
}

/* The child's view: no new offer, no copy through the inherited import; exit code says which check failed. */
static void child_checks(const struct fixture *f)
{
	struct ferry_link_export *again = NULL;
	uint8_t tmp[16];

	if (ferry_link_export_open(f->mem, LEN, DOCA_ACCESS_FLAG_PCI_READ_WRITE, MACHINE, &f->offer, CALL, &again) !=
	    DOCA_ERROR_NOT_SUPPORTED)
		_exit(1);
	if (f->path->ops->read(f->path, tmp, (uintptr_t)f->mem, sizeof(tmp)) != DOCA_ERROR_NOT_CONNECTED)
		_exit(2);
	if (f->path->ops->alive(f->path))
		_exit(3);
	_exit(0);
}

/* The child's exit: 0 when all its checks held. */
static int child_result(pid_t pid)
{
	int status = 0;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void test_child_refused_parent_goes_on(void **state)
{
	struct fixture *f = *state;
	static uint8_t tmp[65536];

	assert_int_equal(read_back(f, 0, tmp), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child_checks(f);
	assert_int_equal(child_result(pid), 0);
	assert_int_equal(read_back(f, 65536, tmp), 0);
	assert_true(f->path->ops->alive(f->path));
}

struct reader {
	const struct fixture *f;
	atomic_bool stop;
	atomic_uint reads, failures;
};

static void *read_loop(void *arg)
{
	struct reader *r = arg;
	static uint8_t tmp[65536];

	while (!atomic_load(&r->stop)) {
		if (read_back(r->f, (atomic_load(&r->reads) % 16) * 65536, tmp) != 0)
			atomic_fetch_add(&r->failures, 1);
		atomic_fetch_add(&r->reads, 1);
	}
	return NULL;
}

/* Forks while a thread copies through the server: no child deadlocks, no copy fails. */
static void test_forks_while_busy(void **state)
{
	struct reader r = {.f = *state};
	int bad_children = 0;
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, read_loop, &r), 0);
	/* No assertion until the reader is joined: a failed one would tear the import down under it. */
	for (int i = 0; i < FORKS; i++) {
		pid_t pid = fork();

		if (pid == 0)
			child_checks(r.f);
		bad_children += child_result(pid) != 0;
	}
	atomic_store(&r.stop, true);
	pthread_join(t, NULL);
	assert_int_equal(bad_children, 0);
	assert_int_equal(atomic_load(&r.failures), 0);
	assert_true(atomic_load(&r.reads) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_child_refused_parent_goes_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forks_while_busy, setup, teardown),
	};

	alarm(120);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
