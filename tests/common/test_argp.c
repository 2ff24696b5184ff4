/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_argp.c - DOCA's argument parser: life cycle and registration errors first,
 * then each flag type in short and long form, the failures doca_argp_start reports
 * (each with a line naming the flag), callbacks, commands, and the built-in flags.
 * --help and --version end the process, so those run in a forked child.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_dev.h>
#include <doca_log.h>

#include "ferry_test.h"

struct config {
	char str[64];
	int str_calls;
	int num;
	int num_calls;
	bool flag;
	double real;
	int multi_calls;
	int validate_calls;
	void *validated;
	int version_calls;
	int cmd_calls;
	int size;
	struct doca_dev *dev;
	struct doca_dev_rep *rep;
	const char *devargs;
	int dev_calls;
	int open_cb_calls;
	void *open_cb_ctx;
};

static struct config cfg;

#define ARGV(...) ((char *[]){"prog", __VA_ARGS__, NULL})
#define START(...)                                \
	({                                        \
		char **argv_ = ARGV(__VA_ARGS__); \
		int argc_ = 0;                    \
		while (argv_[argc_] != NULL)      \
			argc_++;                  \
		doca_argp_start(argc_, argv_);    \
	})

static doca_error_t on_str(void *value, void *config)
{
	struct config *c = config;

	snprintf(c->str, sizeof(c->str), "%s", (const char *)value);
	c->str_calls++;
	return DOCA_SUCCESS;
}

static doca_error_t on_num(void *value, void *config)
{
	struct config *c = config;

	c->num = *(int *)value;
	c->num_calls++;
	return DOCA_SUCCESS;
}

static doca_error_t on_flag(void *value, void *config)
{
	((struct config *)config)->flag = *(bool *)value;
	return DOCA_SUCCESS;
}

static doca_error_t on_real(void *value, void *config)
{
	((struct config *)config)->real = *(double *)value;
	return DOCA_SUCCESS;
}

static doca_error_t on_multi(void *value, void *config)
{
	(void)value;
	((struct config *)config)->multi_calls++;
	return DOCA_SUCCESS;
}

static doca_error_t on_fail(void *value, void *config)
{
	(void)value;
	(void)config;
	return DOCA_ERROR_NOT_FOUND;
}

static struct doca_argp_param *make_param(const char *short_name, const char *long_name, enum doca_argp_type type,
					  doca_argp_param_cb_t cb)
{
	struct doca_argp_param *p = NULL;

	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	assert_non_null(p);
	if (short_name != NULL)
		doca_argp_param_set_short_name(p, short_name);
	if (long_name != NULL)
		doca_argp_param_set_long_name(p, long_name);
	doca_argp_param_set_description(p, "a test flag");
	doca_argp_param_set_callback(p, cb);
	doca_argp_param_set_type(p, type);
	return p;
}

static void add_param(const char *short_name, const char *long_name, enum doca_argp_type type, doca_argp_param_cb_t cb)
{
	assert_int_equal(doca_argp_register_param(make_param(short_name, long_name, type, cb)), DOCA_SUCCESS);
}

/* The program most tests parse with: one flag of each type. */
static int setup_program(void **state)
{
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	ferry_test_log_reset();
	doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING);
	assert_int_equal(doca_argp_init("test_argp", &cfg), DOCA_SUCCESS);
	add_param("s", "str", DOCA_ARGP_TYPE_STRING, on_str);
	add_param("n", "num", DOCA_ARGP_TYPE_INT, on_num);
	add_param("f", "flag", DOCA_ARGP_TYPE_BOOLEAN, on_flag);
	add_param("r", "real", DOCA_ARGP_TYPE_DOUBLE, on_real);
	return 0;
}

static int teardown_program(void **state)
{
	(void)state;
	doca_argp_destroy(); /* may already be gone; that is a logged BAD_STATE, not a crash */
	return 0;
}

static int setup_empty(void **state)
{
	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	ferry_test_log_reset();
	doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING);
	return 0;
}

/* ---- life cycle and registration ---- */

static void test_calls_before_init(void **state)
{
	struct doca_argp_param *p = NULL;

	(void)state;
	assert_int_equal(doca_argp_param_create(&p), DOCA_ERROR_BAD_STATE);
	assert_null(p);
	assert_int_equal(START("-s", "x"), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_destroy(), DOCA_ERROR_BAD_STATE);
	assert_logged("doca_argp_destroy");
	assert_int_equal(doca_argp_register_validation_callback(NULL), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_register_param(NULL), DOCA_ERROR_BAD_STATE);
	doca_argp_usage(); /* logs, prints nothing, does not crash */
}

static void test_init_twice(void **state)
{
	(void)state;
	assert_int_equal(doca_argp_init(NULL, NULL), DOCA_SUCCESS);
	assert_int_equal(doca_argp_init("again", NULL), DOCA_ERROR_BAD_STATE);
	assert_logged("already initialized");
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
	assert_int_equal(doca_argp_destroy(), DOCA_ERROR_BAD_STATE);
}

static void test_register_rejects_incomplete_params(void **state)
{
	struct doca_argp_param *p;

	(void)state;
	assert_int_equal(doca_argp_param_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_param(NULL), DOCA_ERROR_INVALID_VALUE);

	p = make_param(NULL, NULL, DOCA_ARGP_TYPE_INT, on_num);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION);
	assert_logged("neither a short nor a long name");

	p = make_param("q", NULL, DOCA_ARGP_TYPE_INT, NULL);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION);
	assert_logged("has no callback");

	p = make_param("q", NULL, DOCA_ARGP_TYPE_UNKNOWN, on_num);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION);
	assert_logged("has no valid type");

	p = make_param("q", NULL, (enum doca_argp_type)99, on_num);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION);

	p = make_param("q", NULL, DOCA_ARGP_TYPE_INT, on_num);
	doca_argp_param_set_description(p, NULL);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_INITIALIZATION);
	assert_logged("has no description");
	/* Every failed registration freed its param: the leak checker would say otherwise. */
}

static void test_register_rejects_taken_names(void **state)
{
	struct doca_argp_param *p;

	(void)state;
	assert_int_equal(doca_argp_register_param(make_param("s", NULL, DOCA_ARGP_TYPE_INT, on_num)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("'-s' is already registered");
	assert_int_equal(doca_argp_register_param(make_param(NULL, "num", DOCA_ARGP_TYPE_INT, on_num)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_param(make_param("h", NULL, DOCA_ARGP_TYPE_INT, on_num)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_logged("built-in");
	assert_int_equal(doca_argp_register_param(make_param(NULL, "log-level", DOCA_ARGP_TYPE_INT, on_num)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_param(make_param(NULL, "a=b", DOCA_ARGP_TYPE_INT, on_num)),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_param(make_param("-x", NULL, DOCA_ARGP_TYPE_INT, on_num)),
			 DOCA_ERROR_INVALID_VALUE);

	/* A registered param belongs to the parser. */
	p = make_param("u", "unique", DOCA_ARGP_TYPE_INT, on_num);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_param_destroy(p), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_register_param(p), DOCA_ERROR_BAD_STATE);
	doca_argp_param_set_long_name(p, "renamed"); /* refused with a line */
	assert_logged("is registered");
	assert_int_equal(START("--unique", "5"), DOCA_SUCCESS);
	assert_int_equal(cfg.num, 5);

	/* An unregistered one is the caller's to destroy. */
	assert_int_equal(doca_argp_param_create(&p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_param_destroy(p), DOCA_SUCCESS);
	assert_int_equal(doca_argp_param_destroy(NULL), DOCA_ERROR_INVALID_VALUE);
	doca_argp_param_set_short_name(NULL, "x"); /* no crash, a line */
	assert_logged("param is NULL");
}

/* ---- values ---- */

static void test_no_flags(void **state)
{
	(void)state;
	assert_int_equal(doca_argp_start(1, ARGV(NULL)), DOCA_SUCCESS);
	assert_int_equal(cfg.str_calls + cfg.num_calls, 0);
}

static void test_short_names(void **state)
{
	(void)state;
	assert_int_equal(START("-s", "hello", "-n", "42", "-f", "-r", "2.5"), DOCA_SUCCESS);
	assert_string_equal(cfg.str, "hello");
	assert_int_equal(cfg.num, 42);
	assert_true(cfg.flag);
	assert_true(cfg.real == 2.5);
}

static void test_long_names(void **state)
{
	(void)state;
	assert_int_equal(START("--str", "world", "--num=-7", "--flag", "--real=1e3"), DOCA_SUCCESS);
	assert_string_equal(cfg.str, "world");
	assert_int_equal(cfg.num, -7);
	assert_true(cfg.flag);
	assert_true(cfg.real == 1000.0);
}

static void test_int_forms(void **state)
{
	(void)state;
	assert_int_equal(START("-n", "0x10"), DOCA_SUCCESS);
	assert_int_equal(cfg.num, 16);
	assert_int_equal(START("-n", "2147483647"), DOCA_SUCCESS);
	assert_int_equal(cfg.num, 2147483647);
	assert_int_equal(START("-n", "-2147483648"), DOCA_SUCCESS);
	assert_int_equal(cfg.num, INT32_MIN);
	assert_int_equal(START("-n", "010"), DOCA_SUCCESS); /* decimal, not octal */
	assert_int_equal(cfg.num, 10);
}

static void test_bad_int(void **state)
{
	char *bad[] = {"12x", "", "abc", "2147483648", "99999999999999999999", "1.5", "0x"};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ferry_test_log_reset();
		assert_int_equal(START("--num", bad[i]), DOCA_ERROR_INVALID_VALUE);
		assert_logged("flag '--num' takes an integer");
	}
	assert_int_equal(cfg.num_calls, 0);
}

static void test_bad_double(void **state)
{
	(void)state;
	assert_int_equal(START("-r", "abc"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("flag '-r' takes a number");
	assert_int_equal(START("-r", "inf"), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(START("-r", "1e999"), DOCA_ERROR_INVALID_VALUE);
}

static void test_missing_argument(void **state)
{
	(void)state;
	assert_int_equal(START("-s"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("flag '-s' needs an argument");
	assert_int_equal(cfg.str_calls, 0);
}

static void test_boolean_takes_no_argument(void **state)
{
	(void)state;
	assert_int_equal(START("--flag=yes"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("is boolean and takes no argument");
	assert_false(cfg.flag);
	/* The next word after a boolean is not swallowed as its value. */
	assert_int_equal(START("-f", "-n", "3"), DOCA_SUCCESS);
	assert_true(cfg.flag);
	assert_int_equal(cfg.num, 3);
}

static void test_string_may_start_with_dash(void **state)
{
	(void)state;
	assert_int_equal(START("-s", "-x"), DOCA_SUCCESS);
	assert_string_equal(cfg.str, "-x");
}

/* ---- start failures ---- */

static void test_unknown_flag(void **state)
{
	(void)state;
	assert_int_equal(START("-s", "a", "--nope"), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("unknown flag '--nope'");
	assert_int_equal(START("-z"), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("unknown flag '-z'");
	/* Short and long namespaces are separate. */
	assert_int_equal(START("--s", "a"), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(START("-str", "a"), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(START("--", "x"), DOCA_ERROR_NOT_SUPPORTED);
}

static void test_unexpected_word(void **state)
{
	(void)state;
	assert_int_equal(START("stray"), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("unexpected argument 'stray'");
}

static void test_mandatory_missing(void **state)
{
	struct doca_argp_param *p = make_param("m", "must", DOCA_ARGP_TYPE_STRING, on_str);

	(void)state;
	doca_argp_param_set_mandatory(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(START("-n", "1"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("mandatory flag '--must' is missing");
	assert_int_equal(START("--must", "here"), DOCA_SUCCESS);
	assert_string_equal(cfg.str, "here");
	/* "seen" is per start: a second start without it fails again. */
	assert_int_equal(START("-n", "1"), DOCA_ERROR_INVALID_VALUE);
}

static void test_repeats(void **state)
{
	struct doca_argp_param *p = make_param(NULL, "multi", DOCA_ARGP_TYPE_STRING, on_multi);

	(void)state;
	doca_argp_param_set_multiplicity(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(START("-n", "1", "-n", "2"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("is given more than once");
	assert_int_equal(START("--multi", "a", "--multi", "b", "--multi=c"), DOCA_SUCCESS);
	assert_int_equal(cfg.multi_calls, 3);
}

static void test_callback_failure(void **state)
{
	(void)state;
	add_param("x", "explode", DOCA_ARGP_TYPE_INT, on_fail);
	assert_int_equal(START("--explode", "1"), DOCA_ERROR_NOT_FOUND);
	assert_logged("callback of flag '--explode' failed");
}

static doca_error_t validate_ok(void *config)
{
	struct config *c = config;

	c->validate_calls++;
	c->validated = config;
	return DOCA_SUCCESS;
}

static doca_error_t validate_needs_num(void *config)
{
	struct config *c = config;

	c->validate_calls++;
	return c->num_calls > 0 ? DOCA_SUCCESS : DOCA_ERROR_INVALID_VALUE;
}

static void test_validation_callback(void **state)
{
	(void)state;
	assert_int_equal(doca_argp_register_validation_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_validation_callback(validate_ok), DOCA_SUCCESS);
	assert_int_equal(START("-s", "v"), DOCA_SUCCESS);
	assert_int_equal(cfg.validate_calls, 1);
	assert_ptr_equal(cfg.validated, &cfg);

	assert_int_equal(doca_argp_register_validation_callback(validate_needs_num), DOCA_SUCCESS);
	assert_int_equal(START("-s", "v"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("validation callback failed");
	assert_int_equal(START("-n", "4"), DOCA_SUCCESS);
	/* Not called when parsing already failed. */
	cfg.validate_calls = 0;
	assert_int_equal(START("--nope"), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(cfg.validate_calls, 0);
}

static void test_singular(void **state)
{
	struct doca_argp_param *p = make_param(NULL, "alone", DOCA_ARGP_TYPE_BOOLEAN, on_flag);

	(void)state;
	doca_argp_param_set_singular(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(START("--alone", "-n", "1"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("must be the only program flag");
	assert_int_equal(START("--alone", "-l", "50"), DOCA_SUCCESS); /* built-ins do not count */
}

/* ---- device flags (default topology: DPU PF 03:00.0 "p0", host PF b1:00.0
 * "ens1f0np0", both IB device mlx5_0; the DPU PF has representor "pf0hpf") ---- */

static doca_error_t on_dev(void *value, void *config)
{
	struct config *c = config;
	struct doca_argp_device_ctx *d = value;

	c->dev = d->dev;
	c->devargs = d->devargs;
	c->dev_calls++;
	return DOCA_SUCCESS;
}

static doca_error_t on_rep(void *value, void *config)
{
	struct config *c = config;
	struct doca_argp_device_rep_ctx *r = value;

	c->dev = r->dev_ctx.dev;
	c->devargs = r->dev_ctx.devargs;
	c->rep = r->dev_rep;
	c->dev_calls++;
	return DOCA_SUCCESS;
}

/* The program owns what a device flag opened. */
static void close_opened(void)
{
	if (cfg.rep != NULL)
		assert_int_equal(doca_dev_rep_close(cfg.rep), DOCA_SUCCESS);
	if (cfg.dev != NULL)
		assert_int_equal(doca_dev_close(cfg.dev), DOCA_SUCCESS);
	cfg.rep = NULL;
	cfg.dev = NULL;
	cfg.devargs = NULL;
}

static void assert_dev_is(const char *pci)
{
	uint8_t equal = 0;

	assert_non_null(cfg.dev);
	assert_int_equal(doca_devinfo_is_equal_pci_addr(doca_dev_as_devinfo(cfg.dev), pci, &equal), DOCA_SUCCESS);
	assert_true(equal);
}

static void test_device_flag_errors(void **state)
{
	char long_name[400];

	(void)state;
	add_param("d", "dev", DOCA_ARGP_TYPE_DEVICE, on_dev);
	assert_int_equal(START("-d", "pci/99:00.0"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("no device is 'pci/99:00.0'");
	assert_int_equal(START("-d", "no_such_ib0"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("no device is 'no_such_ib0'");
	assert_int_equal(START("-d", "pci/"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("names no device");
	/* both PFs are mlx5_0, each on its own side: a name that matches two devices is refused */
	assert_int_equal(START("-d", "mlx5_0"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("2 devices match 'mlx5_0'");
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(START("-d", long_name), DOCA_ERROR_INVALID_VALUE);
	assert_logged("too long");
	assert_int_equal(cfg.dev_calls, 0);
}

static void test_device_flag_opens(void **state)
{
	(void)state;
	add_param("d", "dev", DOCA_ARGP_TYPE_DEVICE, on_dev);
	assert_int_equal(START("-d", "pci/03:00.0"), DOCA_SUCCESS);
	assert_dev_is("03:00.0");
	assert_null(cfg.devargs);
	close_opened();

	assert_int_equal(START("--dev=0000:b1:00.0,dv_flow_en=2,x=1"), DOCA_SUCCESS);
	assert_dev_is("b1:00.0");
	assert_string_equal(cfg.devargs, "dv_flow_en=2,x=1");
	close_opened();

	assert_int_equal(START("-d", "ens1f0np0"), DOCA_SUCCESS); /* interface name */
	assert_dev_is("b1:00.0");
	close_opened();
	assert_int_equal(START("-d", "p0,"), DOCA_SUCCESS); /* empty devargs: none */
	assert_dev_is("03:00.0");
	assert_null(cfg.devargs);
	close_opened();
	assert_int_equal(cfg.dev_calls, 4);
}

static doca_error_t open_cb(struct doca_devinfo *devinfo, void *usr_ctx, struct doca_dev **dev)
{
	cfg.open_cb_calls++;
	cfg.open_cb_ctx = usr_ctx;
	return doca_dev_open(devinfo, dev);
}

static doca_error_t open_cb_refusing(struct doca_devinfo *devinfo, void *usr_ctx, struct doca_dev **dev)
{
	(void)devinfo;
	(void)usr_ctx;
	(void)dev;
	cfg.open_cb_calls++;
	return DOCA_ERROR_NOT_PERMITTED;
}

static void test_device_open_callback(void **state)
{
	int token;

	(void)state;
	assert_int_equal(doca_argp_register_dev_open_callback(NULL, NULL), DOCA_ERROR_INVALID_VALUE);
	add_param("d", "dev", DOCA_ARGP_TYPE_DEVICE, on_dev);
	assert_int_equal(doca_argp_register_dev_open_callback(open_cb_refusing, NULL), DOCA_SUCCESS);
	assert_int_equal(START("-d", "pci/03:00.0"), DOCA_ERROR_NOT_PERMITTED);
	assert_logged("dev-open callback");
	assert_int_equal(cfg.dev_calls, 0);

	assert_int_equal(doca_argp_register_dev_open_callback(open_cb, &token), DOCA_SUCCESS);
	assert_int_equal(START("-d", "pci/03:00.0"), DOCA_SUCCESS);
	assert_int_equal(cfg.open_cb_calls, 2);
	assert_ptr_equal(cfg.open_cb_ctx, &token);
	assert_dev_is("03:00.0");
	close_opened();
}

static void test_device_rep_flag(void **state)
{
	char name[DOCA_DEVINFO_IFACE_NAME_SIZE];

	(void)state;
	add_param("R", "rep", DOCA_ARGP_TYPE_DEVICE_REP, on_rep);
	assert_int_equal(START("-R", "pci/03:00.0"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("takes <device>,<representor>");
	assert_int_equal(START("-R", "pci/03:00.0,"), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(START("-R", "pci/03:00.0,pf9vf9"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("no representor 'pf9vf9'");
	/* a host-side device has no representors */
	assert_int_equal(START("-R", "pci/b1:00.0,pf0hpf"), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("no representor list");
	assert_int_equal(cfg.dev_calls, 0);

	assert_int_equal(START("-R", "pci/03:00.0,pf0hpf"), DOCA_SUCCESS);
	assert_dev_is("03:00.0");
	assert_non_null(cfg.rep);
	assert_null(cfg.devargs);
	assert_int_equal(doca_devinfo_rep_get_iface_name(doca_dev_rep_as_devinfo(cfg.rep), name, sizeof(name)),
			 DOCA_SUCCESS);
	assert_string_equal(name, "pf0hpf");
	close_opened();

	/* by the represented function's PCI address, with devargs */
	assert_int_equal(START("--rep", "p0,b1:00.0,repargs"), DOCA_SUCCESS);
	assert_non_null(cfg.rep);
	assert_string_equal(cfg.devargs, "repargs");
	close_opened();
}

/* ---- built-in flags ---- */

static doca_error_t version_cb(void *param, void *config)
{
	assert_null(param);
	((struct config *)config)->version_calls++;
	return DOCA_SUCCESS;
}

static doca_error_t version_cb_destroying(void *param, void *config)
{
	(void)param;
	((struct config *)config)->version_calls++;
	return doca_argp_destroy();
}

static void test_version_callback(void **state)
{
	(void)state;
	assert_int_equal(doca_argp_register_version_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_version_callback(version_cb), DOCA_SUCCESS);
	assert_int_equal(START("-v"), DOCA_SUCCESS);
	assert_int_equal(START("--version", "-n", "8"), DOCA_SUCCESS);
	assert_int_equal(cfg.version_calls, 2);
	assert_int_equal(cfg.num, 8);
	/* DOCA's own version callbacks destroy the parser; parsing must stop safely. */
	assert_int_equal(doca_argp_register_version_callback(version_cb_destroying), DOCA_SUCCESS);
	assert_int_equal(START("-v", "-n", "9"), DOCA_ERROR_BAD_STATE);
	assert_int_equal(cfg.version_calls, 3);
	assert_int_not_equal(cfg.num, 9);
	assert_int_equal(doca_argp_destroy(), DOCA_ERROR_BAD_STATE);
}

/* Runs doca_argp_start(words) in a child; returns its exit status and its stdout. */
static int run_child(char **argv, int argc, char *out, size_t out_size)
{
	int fds[2];
	pid_t pid;
	int status = -1;
	ssize_t n;
	size_t used = 0;

	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], STDOUT_FILENO);
		doca_argp_start(argc, argv);
		_exit(99); /* --help and --version must not come back */
	}
	close(fds[1]);
	while (used + 1 < out_size && (n = read(fds[0], out + used, out_size - used - 1)) > 0)
		used += (size_t)n;
	out[used] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_help_prints_usage_and_exits(void **state)
{
	char out[8192];
	struct doca_argp_param *p = make_param(NULL, "secret", DOCA_ARGP_TYPE_INT, on_num);

	(void)state;
	doca_argp_param_set_hidden(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	assert_int_equal(run_child(ARGV("--help"), 2, out, sizeof(out)), EXIT_SUCCESS);
	assert_non_null(strstr(out, "Usage: test_argp"));
	assert_non_null(strstr(out, "-h, --help"));
	assert_non_null(strstr(out, "--sdk-log-level"));
	assert_non_null(strstr(out, "-s, --str"));
	assert_non_null(strstr(out, "-r, --real"));
	assert_null(strstr(out, "--secret"));
	assert_int_equal(run_child(ARGV("-n", "1", "-h"), 4, out, sizeof(out)), EXIT_SUCCESS);
	assert_non_null(strstr(out, "Usage:"));
}

static void test_version_default_prints_and_exits(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(run_child(ARGV("-v"), 2, out, sizeof(out)), EXIT_SUCCESS);
	assert_non_null(strstr(out, "headers: DOCA API 3.3.0"));
	assert_non_null(strstr(out, "library: DOCA API 3.3.0"));
}

static void test_log_level_flags(void **state)
{
	int level = 0;

	(void)state;
	assert_int_equal(START("-l", "60"), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_DEBUG);
	assert_int_equal(doca_argp_get_log_level(&level), DOCA_SUCCESS);
	assert_int_equal(level, DOCA_LOG_LEVEL_DEBUG);
	assert_int_equal(START("--log-level=error"), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_ERROR);

	assert_int_equal(START("--sdk-log-level", "30"), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_ERROR);
	assert_int_equal(doca_argp_get_sdk_log_level(&level), DOCA_SUCCESS);
	assert_int_equal(level, DOCA_LOG_LEVEL_ERROR);
	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);

	assert_int_equal(START("-l", "65"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("flag '-l' takes a log level");
	assert_int_equal(START("-l"), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_ERROR);
	assert_int_equal(doca_argp_get_log_level(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_get_sdk_log_level(NULL), DOCA_ERROR_INVALID_VALUE);
	doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO);
}

/* ---- -j/--json files ---- */

static void add_multi_param(void)
{
	struct doca_argp_param *p = make_param("m", "multi", DOCA_ARGP_TYPE_INT, on_multi);

	doca_argp_param_set_multiplicity(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
}

static char json_path[64];

/* Writes @p text to a fresh temporary file named in json_path. */
static const char *json_file(const char *text)
{
	int fd;
	size_t len = strlen(text);

	if (json_path[0] != '\0')
		unlink(json_path);
	snprintf(json_path, sizeof(json_path), "/tmp/ferry_argp_XXXXXX");
	fd = mkstemp(json_path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return json_path;
}

static int teardown_json(void **state)
{
	if (json_path[0] != '\0')
		unlink(json_path);
	json_path[0] = '\0';
	return teardown_program(state);
}

static void test_json_every_type(void **state)
{
	int level = 0;

	(void)state;
	add_multi_param();
	add_param("d", "dev", DOCA_ARGP_TYPE_DEVICE, on_dev);
	json_file("// DOCA's files carry comments\n"
		  "{\n"
		  "  \"doca_general_flags\": { \"log-level\": 60, \"sdk-log-level\": \"error\" },\n"
		  "  /* the program's flags, by long name */\n"
		  "  \"doca_program_flags\": {\n"
		  "    \"str\": \"h\\u00e9llo\\n\", \"num\": -0x0 , \"flag\": true, \"real\": 2.5e1,\n"
		  "    \"dev\": \"pci/03:00.0,a=b\"\n"
		  "  }\n"
		  "}\n");
	/* -0x0 is not JSON: the whole file is refused before any callback runs */
	assert_int_equal(START("-j", json_path), DOCA_ERROR_IO_FAILED);
	assert_logged("is not valid JSON: line 6");
	assert_int_equal(cfg.str_calls, 0);

	json_file("// DOCA's files carry comments\n"
		  "{\n"
		  "  \"doca_general_flags\": { \"log-level\": 60, \"sdk-log-level\": \"error\" },\n"
		  "  /* the program's flags, by long name */\n"
		  "  \"doca_program_flags\": {\n"
		  "    \"str\": \"h\\u00e9llo\\n\", \"num\": -7, \"flag\": true, \"real\": 2.5e1,\n"
		  "    \"multi\": [1, 2, 3], \"dev\": \"pci/03:00.0,a=b\"\n"
		  "  }\n"
		  "}\n");
	assert_int_equal(START("--json", json_path), DOCA_SUCCESS);
	assert_string_equal(cfg.str, "h\xc3\xa9llo\n");
	assert_int_equal(cfg.num, -7);
	assert_true(cfg.flag);
	assert_true(cfg.real == 25.0);
	assert_int_equal(cfg.multi_calls, 3);
	assert_dev_is("03:00.0");
	assert_string_equal(cfg.devargs, "a=b"); /* still valid: the parser keeps devargs until destroy */
	close_opened();
	assert_int_equal(doca_argp_get_log_level(&level), DOCA_SUCCESS);
	assert_int_equal(level, 60);
	assert_int_equal(doca_argp_get_sdk_log_level(&level), DOCA_SUCCESS);
	assert_int_equal(level, DOCA_LOG_LEVEL_ERROR);
	doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_WARNING);
	doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO);

	/* an integer is a number too; false means "not given"; a single value for a multi flag */
	memset(&cfg, 0, sizeof(cfg));
	json_file("{\"doca_program_flags\": {\"real\": 3, \"flag\": false, \"multi\": 4}}");
	assert_int_equal(START("-j", json_path), DOCA_SUCCESS);
	assert_true(cfg.real == 3.0);
	assert_false(cfg.flag);
	assert_int_equal(cfg.multi_calls, 1);
}

static void test_json_command_line_wins(void **state)
{
	int level = 0;

	(void)state;
	json_file("{\"doca_general_flags\": {\"log-level\": 70},"
		  " \"doca_program_flags\": {\"num\": 7, \"str\": \"json\"}}");
	/* -j may come first: the file is read after the whole command line */
	assert_int_equal(START("-j", json_path, "-n", "5", "-l", "30"), DOCA_SUCCESS);
	assert_int_equal(cfg.num, 5);
	assert_int_equal(cfg.num_calls, 1);
	assert_string_equal(cfg.str, "json");
	assert_int_equal(doca_argp_get_log_level(&level), DOCA_SUCCESS);
	assert_int_equal(level, 30);
	doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_INFO);

	/* the JSON value of a flag given on the command line does not count as a repeat */
	assert_int_equal(START("--str", "cli", "--json", json_path), DOCA_SUCCESS);
	assert_string_equal(cfg.str, "cli");
	assert_int_equal(START("-j", json_path, "-j", json_path), DOCA_ERROR_INVALID_VALUE);
	assert_logged("'-j' is given more than once");
}

static void test_json_mandatory_and_singular(void **state)
{
	struct doca_argp_param *p = make_param("M", "must", DOCA_ARGP_TYPE_STRING, on_str);

	(void)state;
	doca_argp_param_set_mandatory(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	p = make_param("o", "only", DOCA_ARGP_TYPE_BOOLEAN, on_flag);
	doca_argp_param_set_singular(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	json_file("{\"doca_program_flags\": {\"num\": 1}}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_INVALID_VALUE);
	assert_logged("mandatory flag '--must' is missing");
	json_file("{\"doca_program_flags\": {\"must\": \"x\"}}");
	assert_int_equal(START("-j", json_path), DOCA_SUCCESS);
	json_file("{\"doca_program_flags\": {\"must\": \"x\", \"only\": true}}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_INVALID_VALUE);
	assert_logged("must be the only program flag");
}

static void test_json_file_errors(void **state)
{
	(void)state;
	assert_int_equal(START("-j", "/nonexistent/ferry.json"), DOCA_ERROR_IO_FAILED);
	assert_logged("cannot open JSON file '/nonexistent/ferry.json'");
	assert_int_equal(START("-j", "/tmp"), DOCA_ERROR_IO_FAILED);
	assert_logged("is not a regular file");
	assert_int_equal(START("-j"), DOCA_ERROR_INVALID_VALUE);
	assert_logged("needs an argument");

	json_file("");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_IO_FAILED);
	assert_logged("a value is missing");
	json_file("{\"doca_program_flags\": {\"num\": 1,}}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_IO_FAILED);
	assert_logged("line 1");
	json_file("{\"doca_program_flags\": {\"num\": 1}, \"doca_program_flags\": {}}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_IO_FAILED);
	assert_logged("appears twice");
	json_file("[1, 2]");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_INVALID_VALUE);
	assert_logged("must hold one object, not a array");
	json_file("{\"doca_program_flags\": [\"num\", 1]}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_INVALID_VALUE);
	assert_logged("doca_program_flags (line 1) must be an object");
	json_file("{\"doca_general_flags\": 5}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(cfg.num_calls, 0);
}

static void test_json_wrong_types(void **state)
{
	static const struct {
		const char *text;
		const char *logged;
	} cases[] = {
		{"{\"doca_program_flags\": {\"str\": 5}}", "'--str' (line 1) takes a string, not a JSON integer"},
		{"{\"doca_program_flags\": {\"str\": null}}", "takes a string, not a JSON null"},
		{"{\"doca_program_flags\": {\"num\": \"5\"}}", "'--num' (line 1) takes an integer"},
		{"{\"doca_program_flags\": {\"num\": 1.5}}", "not a JSON number"},
		{"{\"doca_program_flags\": {\"num\": 4294967296}}", "fits 32 bits"},
		{"{\"doca_program_flags\": {\"num\": -2147483649}}", "fits 32 bits"},
		{"{\"doca_program_flags\": {\"flag\": \"yes\"}}", "takes true or false"},
		{"{\"doca_program_flags\": {\"flag\": 1}}", "takes true or false"},
		{"{\"doca_program_flags\": {\"real\": \"1.0\"}}", "takes a number"},
		{"{\"doca_program_flags\": {\"real\": {}}}", "not a JSON object"},
		{"{\"doca_program_flags\": {\"num\": [1, 2]}}", "only flags with multiplicity take an array"},
		{"{\"doca_general_flags\": {\"log-level\": true}}", "takes a log level"},
		{"{\"doca_general_flags\": {\"log-level\": 99}}", "takes a log level"},
		{"{\"doca_general_flags\": {\"sdk-log-level\": \"loud\"}}", "takes a log level"},
	};

	(void)state;
	add_multi_param();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ferry_test_log_reset();
		json_file(cases[i].text);
		if (START("-j", json_path) != DOCA_ERROR_INVALID_VALUE)
			fail_msg("case %zu (%s) was not refused with INVALID_VALUE", i, cases[i].text);
		assert_logged(cases[i].logged);
	}
	/* an array element of the wrong type stops the flag there */
	json_file("{\"doca_program_flags\": {\"multi\": [1, \"two\", 3]}}");
	cfg.multi_calls = 0;
	assert_int_equal(START("-j", json_path), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(cfg.multi_calls, 1);
	assert_int_equal(cfg.num_calls, 0);
	assert_int_equal(cfg.str_calls, 0);
}

static void test_json_unknown_keys(void **state)
{
	struct doca_argp_param *p = make_param("c", "cli", DOCA_ARGP_TYPE_STRING, on_str);

	(void)state;
	doca_argp_param_set_cli_only(p);
	assert_int_equal(doca_argp_register_param(p), DOCA_SUCCESS);
	add_param("S", NULL, DOCA_ARGP_TYPE_INT, on_num); /* no long name: command line only */

	json_file("{\"doca_program_flags\": {\"nosuch\": 1}}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("key 'nosuch' in doca_program_flags: no such long flag");
	json_file("{\"doca_program_flags\": {\"cli\": \"x\"}}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("command-line only");
	json_file("{\"doca_program_flags\": {\"S\": 1}}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_NOT_SUPPORTED);
	json_file("{\"doca_general_flags\": {\"help\": true}}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("only log-level and sdk-log-level");
	json_file("{\"other\": {}}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("key 'other' in the top-level object");
	json_file("{\"doca_dpdk_flags\": {\"core-list\": \"0-3\"}}");
	assert_int_equal(START("-j", json_path), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("doca_dpdk_flags are not supported");
	assert_int_equal(cfg.str_calls + cfg.num_calls, 0);

	/* without pedantic parsing, unknown keys are skipped with a warning and the rest applies */
	assert_int_equal(doca_argp_disable_pedantic_config_parsing(), DOCA_SUCCESS);
	ferry_test_log_reset();
	json_file("{\"x\": 1, \"doca_program_flags\": {\"nosuch\": 1, \"cli\": \"c\", \"num\": 9}}");
	assert_int_equal(START("-j", json_path), DOCA_SUCCESS);
	assert_logged("ignoring key 'nosuch'");
	assert_int_equal(cfg.num, 9);
	assert_int_equal(cfg.str_calls, 0);
}

/* ---- commands, DPDK words, logger callback ---- */

static doca_error_t on_cmd(void *config)
{
	((struct config *)config)->cmd_calls++;
	return DOCA_SUCCESS;
}

static doca_error_t on_size(void *value, void *config)
{
	((struct config *)config)->size = *(int *)value;
	return DOCA_SUCCESS;
}

static void test_commands(void **state)
{
	struct doca_argp_cmd *copy = NULL;
	struct doca_argp_cmd *bad = NULL;
	struct doca_argp_param *inherited = make_param(NULL, "verbose-all", DOCA_ARGP_TYPE_BOOLEAN, on_flag);

	(void)state;
	doca_argp_param_set_inherited(inherited);
	assert_int_equal(doca_argp_register_param(inherited), DOCA_SUCCESS);
	assert_int_equal(doca_argp_cmd_create(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_cmd_create(&bad), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_cmd(bad), DOCA_ERROR_INITIALIZATION); /* no name */
	assert_int_equal(doca_argp_cmd_create(&copy), DOCA_SUCCESS);
	doca_argp_cmd_set_name(copy, "copy");
	doca_argp_cmd_set_description(copy, "copy things");
	doca_argp_cmd_set_callback(copy, on_cmd);
	assert_int_equal(doca_argp_cmd_register_param(copy, make_param(NULL, "size", DOCA_ARGP_TYPE_INT, on_size)),
			 DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_cmd(copy), DOCA_SUCCESS);
	assert_int_equal(doca_argp_cmd_destroy(copy), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_cmd_register_param(copy, make_param(NULL, "late", DOCA_ARGP_TYPE_INT, on_size)),
			 DOCA_ERROR_BAD_STATE);

	assert_int_equal(START("--size", "5"), DOCA_ERROR_NOT_SUPPORTED); /* only inside "copy" */
	assert_int_equal(START("-n", "1", "copy", "--size", "5", "--verbose-all"), DOCA_SUCCESS);
	assert_int_equal(cfg.cmd_calls, 1);
	assert_int_equal(cfg.size, 5);
	assert_int_equal(cfg.num, 1);
	assert_true(cfg.flag);
	/* Root flags that are not inherited stay at the root. */
	assert_int_equal(START("copy", "-n", "2"), DOCA_ERROR_NOT_SUPPORTED);
}

static int dpdk_argc;
static char *dpdk_last;

static doca_error_t on_dpdk(int argc, char **argv)
{
	dpdk_argc = argc;
	dpdk_last = argv[argc - 1];
	return DOCA_SUCCESS;
}

static void test_dpdk_words(void **state)
{
	(void)state;
	doca_argp_set_dpdk_program(on_dpdk);
	assert_int_equal(START("-a", "00:00.0", "--", "-n", "6"), DOCA_SUCCESS);
	assert_int_equal(dpdk_argc, 3);
	assert_string_equal(dpdk_last, "00:00.0");
	assert_int_equal(cfg.num, 6);
}

static int logger_calls;

static doca_error_t on_log(enum doca_log_level level, const char *format, va_list args)
	__attribute__((format(printf, 2, 0)));
static doca_error_t on_log(enum doca_log_level level, const char *format, va_list args)
{
	char line[256];

	vsnprintf(line, sizeof(line), format, args);
	if (level == DOCA_LOG_LEVEL_ERROR && strstr(line, "unknown flag '--zz'") != NULL)
		logger_calls++;
	return DOCA_SUCCESS;
}

static void test_logger_callback(void **state)
{
	(void)state;
	assert_int_equal(doca_argp_disable_logger_callback(), DOCA_ERROR_BAD_STATE);
	assert_int_equal(doca_argp_register_logger_callback(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_register_logger_callback(on_log), DOCA_SUCCESS);
	assert_int_equal(doca_argp_register_logger_callback(on_log), DOCA_ERROR_ALREADY_EXIST);
	ferry_test_log_reset();
	assert_int_equal(START("--zz"), DOCA_ERROR_NOT_SUPPORTED);
	assert_int_equal(logger_calls, 1);
	assert_false(ferry_test_log_has("--zz"));
	assert_int_equal(doca_argp_disable_logger_callback(), DOCA_SUCCESS);
	assert_int_equal(START("--zz"), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("unknown flag '--zz'");
	assert_int_equal(logger_calls, 1);
}

static void test_program_name_from_argv(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(doca_argp_init(NULL, &cfg), DOCA_SUCCESS);
	assert_int_equal(run_child((char *[]){"/usr/bin/my_tool", "-h", NULL}, 2, out, sizeof(out)), EXIT_SUCCESS);
	assert_non_null(strstr(out, "Usage: my_tool"));
	assert_int_equal(doca_argp_start(0, (char *[]){NULL}), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_argp_destroy(), DOCA_SUCCESS);
}

#define PROGRAM_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup_program, teardown_program)
#define JSON_TEST(fn)    cmocka_unit_test_setup_teardown(fn, setup_program, teardown_json)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_calls_before_init, setup_empty),
		cmocka_unit_test_setup(test_init_twice, setup_empty),
		PROGRAM_TEST(test_register_rejects_incomplete_params),
		PROGRAM_TEST(test_register_rejects_taken_names),
		PROGRAM_TEST(test_no_flags),
		PROGRAM_TEST(test_short_names),
		PROGRAM_TEST(test_long_names),
		PROGRAM_TEST(test_int_forms),
		PROGRAM_TEST(test_bad_int),
		PROGRAM_TEST(test_bad_double),
		PROGRAM_TEST(test_missing_argument),
		PROGRAM_TEST(test_boolean_takes_no_argument),
		PROGRAM_TEST(test_string_may_start_with_dash),
		PROGRAM_TEST(test_unknown_flag),
		PROGRAM_TEST(test_unexpected_word),
		PROGRAM_TEST(test_mandatory_missing),
		PROGRAM_TEST(test_repeats),
		PROGRAM_TEST(test_callback_failure),
		PROGRAM_TEST(test_validation_callback),
		PROGRAM_TEST(test_singular),
		PROGRAM_TEST(test_device_flag_errors),
		PROGRAM_TEST(test_device_flag_opens),
		PROGRAM_TEST(test_device_open_callback),
		PROGRAM_TEST(test_device_rep_flag),
		PROGRAM_TEST(test_version_callback),
		PROGRAM_TEST(test_help_prints_usage_and_exits),
		PROGRAM_TEST(test_version_default_prints_and_exits),
		PROGRAM_TEST(test_log_level_flags),
		JSON_TEST(test_json_every_type),
		JSON_TEST(test_json_command_line_wins),
		JSON_TEST(test_json_mandatory_and_singular),
		JSON_TEST(test_json_file_errors),
		JSON_TEST(test_json_wrong_types),
		JSON_TEST(test_json_unknown_keys),
		PROGRAM_TEST(test_commands),
		PROGRAM_TEST(test_dpdk_words),
		PROGRAM_TEST(test_logger_callback),
		cmocka_unit_test_setup(test_program_name_from_argv, setup_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
