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
};

static struct config cfg;

#define ARGV(...) ((char *[]){"prog", __VA_ARGS__, NULL})
#define START(...)                                                                                 \
	({                                                                                         \
		char **argv_ = ARGV(__VA_ARGS__);                                                  \
		int argc_ = 0;                                                                     \
		while (argv_[argc_] != NULL)                                                       \
			argc_++;                                                                   \
		doca_argp_start(argc_, argv_);                                                     \
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

static void add_param(const char *short_name, const char *long_name, enum doca_argp_type type,
		      doca_argp_param_cb_t cb)
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

static void test_device_types_not_supported_yet(void **state)
{
	(void)state;
	add_param("d", "dev", DOCA_ARGP_TYPE_DEVICE, on_str);
	assert_int_equal(START("-d", "03:00.0"), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("device type");
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
	assert_non_null(strstr(out, "3.3.0"));
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

static void test_json_not_supported(void **state)
{
	(void)state;
	assert_int_equal(START("-j", "conf.json"), DOCA_ERROR_NOT_SUPPORTED);
	assert_logged("JSON");
	assert_int_equal(doca_argp_disable_pedantic_config_parsing(), DOCA_SUCCESS);
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
		PROGRAM_TEST(test_device_types_not_supported_yet),
		PROGRAM_TEST(test_version_callback),
		PROGRAM_TEST(test_help_prints_usage_and_exits),
		PROGRAM_TEST(test_version_default_prints_and_exits),
		PROGRAM_TEST(test_log_level_flags),
		PROGRAM_TEST(test_json_not_supported),
		PROGRAM_TEST(test_commands),
		PROGRAM_TEST(test_dpdk_words),
		PROGRAM_TEST(test_logger_callback),
		cmocka_unit_test_setup(test_program_name_from_argv, setup_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
