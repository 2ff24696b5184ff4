/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_log.c - DOCA logging: argument checks, level filtering per backend kind,
 * application and SDK lines kept apart, Ferry's stderr fallback, line format,
 * one whole line per call under concurrency.
 *
 * Every test starts from a fresh log state (ferry_log_reset_for_tests) and captures
 * lines in its own temporary files.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_log.h>

#include "common/ferry_log.h"
#include "common/ferry_log_internal.h"

DOCA_LOG_REGISTER(TESTSRC);

FERRY_LOG_MODULE("testmod");

/* ---- capture helpers ---- */

struct capture {
	FILE *file;
	struct doca_log_backend *backend;
};

static void capture_open(struct capture *c, int sdk)
{
	c->file = tmpfile();
	assert_non_null(c->file);
	if (sdk)
		assert_int_equal(doca_log_backend_create_with_file_sdk(c->file, &c->backend), DOCA_SUCCESS);
	else
		assert_int_equal(doca_log_backend_create_with_file(c->file, &c->backend), DOCA_SUCCESS);
	assert_non_null(c->backend);
}

/* Everything written so far; the caller frees it. */
static char *read_stream(FILE *f)
{
	long size;
	char *text;

	fflush(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	text = calloc(1, (size_t)size + 1);
	assert_non_null(text);
	rewind(f);
	assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
	fseek(f, 0, SEEK_END);
	return text;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; *text != '\0'; text++)
		n += *text == '\n';
	return n;
}

static int captured_has(struct capture *c, const char *needle)
{
	char *text = read_stream(c->file);
	int found = strstr(text, needle) != NULL;

	free(text);
	return found;
}

static int captured_lines(struct capture *c)
{
	char *text = read_stream(c->file);
	int n = count_lines(text);

	free(text);
	return n;
}

static void capture_close(struct capture *c)
{
	fclose(c->file);
}

/* Runs @p fn with file descriptor @p fd redirected into a temporary file; returns what it wrote. */
static char *capture_fd(int fd, void (*fn)(void))
{
	FILE *tmp = tmpfile();
	int saved;
	char *text;

	assert_non_null(tmp);
	fflush(NULL);
	saved = dup(fd);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), fd) >= 0);
	fn();
	fflush(NULL);
	assert_true(dup2(saved, fd) >= 0);
	close(saved);
	text = read_stream(tmp);
	fclose(tmp);
	return text;
}

static int reset(void **state)
{
	(void)state;
	unsetenv("FERRY_LOG_LEVEL");
	ferry_log_reset_for_tests();
	return 0;
}

/* ---- invalid input ---- */

static void flush_nothing(char *buf)
{
	(void)buf;
}

static void test_create_rejects_bad_arguments(void **state)
{
	struct doca_log_backend *b = NULL;
	char buf[64];
	int fds[2];

	(void)state;
	assert_int_equal(doca_log_backend_create_with_file(NULL, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_file(stderr, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_file_sdk(NULL, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_fd(-1, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	close(fds[1]);
	assert_int_equal(doca_log_backend_create_with_fd(fds[0], &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_fd_sdk(fds[1], &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_fd(STDERR_FILENO, NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_buf(NULL, 10, flush_nothing, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_buf(buf, 0, flush_nothing, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_buf(buf, sizeof(buf), NULL, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_buf_sdk(buf, sizeof(buf), flush_nothing, NULL),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_syslog(NULL, &b), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_create_with_syslog_sdk("x", NULL), DOCA_ERROR_INVALID_VALUE);
	assert_null(b); /* nothing was handed out */
}

static void test_levels_reject_bad_values(void **state)
{
	struct capture app, sdk;
	const uint32_t bad[] = {0, 5, 15, 71, 80, 1000};

	(void)state;
	capture_open(&app, 0);
	capture_open(&sdk, 1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(doca_log_backend_set_level_lower_limit(app.backend, bad[i]), DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(doca_log_backend_set_level_upper_limit(app.backend, bad[i]), DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(doca_log_backend_set_sdk_level(sdk.backend, bad[i]), DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(doca_log_level_set_global_lower_limit(bad[i]), DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(doca_log_level_set_global_upper_limit(bad[i]), DOCA_ERROR_INVALID_VALUE);
		assert_int_equal(doca_log_level_set_global_sdk_limit(bad[i]), DOCA_ERROR_INVALID_VALUE);
	}
	assert_int_equal(doca_log_backend_set_level_lower_limit(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_upper_limit(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_sdk_level(NULL, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_lower_limit_strict(NULL), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_backend_set_level_upper_limit_strict(NULL), DOCA_ERROR_INVALID_VALUE);
	/* Each kind of backend only takes its own kind of limit. */
	assert_int_equal(doca_log_backend_set_sdk_level(app.backend, DOCA_LOG_LEVEL_INFO), DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_log_backend_set_level_lower_limit(sdk.backend, DOCA_LOG_LEVEL_INFO),
			 DOCA_ERROR_NOT_PERMITTED);
	/* The failed calls left the globals at their defaults. */
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_INFO);
	assert_int_equal(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_CRIT);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_INFO);
	/* And each rejection said why, on the SDK backend. */
	assert_true(captured_has(&sdk, "doca_log_backend_set_sdk_level"));
	assert_true(captured_has(&sdk, "is not a log level"));
	capture_close(&app);
	capture_close(&sdk);
}

static void test_doca_log_rejects_bad_calls(void **state)
{
	struct capture app;

	(void)state;
	capture_open(&app, 0);
	assert_int_equal(doca_log(DOCA_LOG_LEVEL_ERROR, 0, __FILE__, __LINE__, __func__, "x"),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log(DOCA_LOG_LEVEL_ERROR, 1 << 20, __FILE__, __LINE__, __func__, "x"),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log(DOCA_LOG_LEVEL_DISABLE, log_source, __FILE__, __LINE__, __func__, "x"),
			 DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log(55, log_source, __FILE__, __LINE__, __func__, "x"), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(captured_lines(&app), 0);
	assert_int_equal(doca_log_register_source(NULL, &(int){0}), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(doca_log_register_source("X", NULL), DOCA_ERROR_INVALID_VALUE);
	capture_close(&app);
}

static void test_level_parse(void **state)
{
	uint32_t level = 0;

	(void)state;
	assert_int_equal(ferry_log_level_parse(NULL, &level), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_log_level_parse("", &level), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_log_level_parse("55", &level), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_log_level_parse("verbose", &level), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(ferry_log_level_parse("60x", &level), DOCA_ERROR_INVALID_VALUE);
	assert_int_equal(level, 0);
	assert_int_equal(ferry_log_level_parse("10", &level), DOCA_SUCCESS);
	assert_int_equal(level, DOCA_LOG_LEVEL_DISABLE);
	assert_int_equal(ferry_log_level_parse("70", &level), DOCA_SUCCESS);
	assert_int_equal(level, DOCA_LOG_LEVEL_TRACE);
	assert_int_equal(ferry_log_level_parse("WARNING", &level), DOCA_SUCCESS);
	assert_int_equal(level, DOCA_LOG_LEVEL_WARNING);
	assert_int_equal(ferry_log_level_parse("err", &level), DOCA_SUCCESS);
	assert_int_equal(level, DOCA_LOG_LEVEL_ERROR);
	assert_int_equal(ferry_log_level_parse("Debug", &level), DOCA_SUCCESS);
	assert_int_equal(level, DOCA_LOG_LEVEL_DEBUG);
	assert_int_equal(ferry_log_level_parse("critical", &level), DOCA_SUCCESS);
	assert_int_equal(level, DOCA_LOG_LEVEL_CRIT);
}

/* ---- application filtering ---- */

static void log_one_of_each(void)
{
	DOCA_LOG_CRIT("crit-line");
	DOCA_LOG_ERR("err-line");
	DOCA_LOG_WARN("warn-line");
	DOCA_LOG_INFO("info-line");
	DOCA_LOG_DBG("dbg-line");
	DOCA_LOG(DOCA_LOG_LEVEL_TRACE, "trace-line");
}

static void test_app_default_limits(void **state)
{
	struct capture app;

	(void)state;
	capture_open(&app, 0);
	log_one_of_each();
	assert_true(captured_has(&app, "crit-line"));
	assert_true(captured_has(&app, "err-line"));
	assert_true(captured_has(&app, "warn-line"));
	assert_true(captured_has(&app, "info-line"));
	assert_false(captured_has(&app, "dbg-line"));
	assert_false(captured_has(&app, "trace-line"));
	assert_int_equal(captured_lines(&app), 4);
	capture_close(&app);
}

static void test_app_backend_limits(void **state)
{
	struct capture app;

	(void)state;
	capture_open(&app, 0);
	assert_int_equal(doca_log_backend_set_level_lower_limit(app.backend, DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_upper_limit(app.backend, DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	log_one_of_each();
	assert_false(captured_has(&app, "crit-line")); /* above the upper limit */
	assert_true(captured_has(&app, "err-line"));
	assert_true(captured_has(&app, "dbg-line"));
	assert_true(captured_has(&app, "trace-line"));
	assert_int_equal(captured_lines(&app), 5);

	assert_int_equal(doca_log_backend_set_level_lower_limit(app.backend, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
	log_one_of_each();
	assert_int_equal(captured_lines(&app), 5); /* DISABLE shows nothing */
	capture_close(&app);
}

static void test_trace_macro_compiled_out(void **state)
{
	struct capture app;
	int evaluated = 0;

	(void)state;
	capture_open(&app, 0);
	assert_int_equal(doca_log_backend_set_level_lower_limit(app.backend, DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	DOCA_LOG_TRC("trc-macro %d", ++evaluated);
	assert_int_equal(evaluated, 0); /* dead code: its arguments are not even evaluated */
	assert_false(captured_has(&app, "trc-macro"));
	capture_close(&app);
}

static void test_global_limits(void **state)
{
	struct capture before, after;

	(void)state;
	capture_open(&before, 0);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_lower_limit(), DOCA_LOG_LEVEL_DEBUG);
	capture_open(&after, 0); /* a new backend starts at the global limits */
	DOCA_LOG_DBG("dbg-global");
	assert_true(captured_has(&before, "dbg-global"));
	assert_true(captured_has(&after, "dbg-global"));

	assert_int_equal(doca_log_level_set_global_upper_limit(DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_upper_limit(), DOCA_LOG_LEVEL_ERROR);
	DOCA_LOG_CRIT("crit-global");
	assert_false(captured_has(&before, "crit-global"));
	assert_false(captured_has(&after, "crit-global"));
	capture_close(&before);
	capture_close(&after);
}

static void test_strict_limits(void **state)
{
	struct capture app;

	(void)state;
	capture_open(&app, 0);
	assert_int_equal(doca_log_backend_set_level_lower_limit(app.backend, DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_lower_limit_strict(app.backend), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_upper_limit_strict(app.backend), DOCA_SUCCESS);
	/* Narrowing is refused, directly and globally; widening is fine. */
	assert_int_equal(doca_log_backend_set_level_lower_limit(app.backend, DOCA_LOG_LEVEL_ERROR),
			 DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_log_backend_set_level_upper_limit(app.backend, DOCA_LOG_LEVEL_ERROR),
			 DOCA_ERROR_NOT_PERMITTED);
	assert_int_equal(doca_log_level_set_global_lower_limit(DOCA_LOG_LEVEL_ERROR), DOCA_SUCCESS);
	DOCA_LOG_DBG("dbg-strict");
	assert_true(captured_has(&app, "dbg-strict"));
	assert_int_equal(doca_log_backend_set_level_lower_limit(app.backend, DOCA_LOG_LEVEL_TRACE), DOCA_SUCCESS);
	DOCA_LOG(DOCA_LOG_LEVEL_TRACE, "trace-strict");
	assert_true(captured_has(&app, "trace-strict"));
	capture_close(&app);
}

/* ---- app vs SDK ---- */

static void test_app_and_sdk_lines_kept_apart(void **state)
{
	struct capture app, sdk;

	(void)state;
	capture_open(&app, 0);
	capture_open(&sdk, 1);
	DOCA_LOG_ERR("app-only");
	FERRY_ERR("sdk-only %d", 7);
	assert_true(captured_has(&app, "app-only"));
	assert_false(captured_has(&app, "sdk-only"));
	assert_true(captured_has(&sdk, "sdk-only 7"));
	assert_true(captured_has(&sdk, "[ferry/testmod]"));
	assert_false(captured_has(&sdk, "app-only"));
	capture_close(&app);
	capture_close(&sdk);
}

static void test_sdk_levels(void **state)
{
	struct capture sdk;

	(void)state;
	capture_open(&sdk, 1);
	/* A new SDK backend starts at the global SDK limit, INFO by default. */
	FERRY_INFO("sdk-info");
	FERRY_DBG("sdk-dbg");
	assert_true(captured_has(&sdk, "sdk-info"));
	assert_false(captured_has(&sdk, "sdk-dbg"));
	assert_true(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_INFO));
	assert_false(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_DEBUG));

	assert_int_equal(doca_log_backend_set_sdk_level(sdk.backend, DOCA_LOG_LEVEL_WARNING), DOCA_SUCCESS);
	FERRY_INFO("sdk-info-2");
	FERRY_WARN("sdk-warn-2");
	assert_false(captured_has(&sdk, "sdk-info-2"));
	assert_true(captured_has(&sdk, "sdk-warn-2"));
	assert_false(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_INFO));

	assert_int_equal(doca_log_level_set_global_sdk_limit(DOCA_LOG_LEVEL_DEBUG), DOCA_SUCCESS);
	assert_int_equal(doca_log_level_get_global_sdk_limit(), DOCA_LOG_LEVEL_DEBUG);
	FERRY_DBG("sdk-dbg-3");
	assert_true(captured_has(&sdk, "sdk-dbg-3"));

	assert_int_equal(doca_log_backend_set_sdk_level(sdk.backend, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
	FERRY_CRIT("sdk-crit-4");
	assert_false(captured_has(&sdk, "sdk-crit-4"));
	assert_false(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_CRIT));
	capture_close(&sdk);
}

/* ---- the stderr fallback ---- */

static void emit_sdk_error_and_warning(void)
{
	FERRY_ERR("fallback-err");
	FERRY_WARN("fallback-warn");
	FERRY_DBG("fallback-dbg");
}

static void test_fallback_prints_errors_on_stderr(void **state)
{
	char *text;

	(void)state;
	assert_true(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_ERROR));
	assert_false(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_WARNING));
	text = capture_fd(STDERR_FILENO, emit_sdk_error_and_warning);
	assert_non_null(strstr(text, "fallback-err"));
	assert_null(strstr(text, "fallback-warn"));
	assert_int_equal(count_lines(text), 1);
	free(text);
}

static void test_fallback_level_from_env(void **state)
{
	char *text;

	(void)state;
	setenv("FERRY_LOG_LEVEL", "debug", 1);
	ferry_log_reset_for_tests();
	assert_true(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_DEBUG));
	text = capture_fd(STDERR_FILENO, emit_sdk_error_and_warning);
	assert_int_equal(count_lines(text), 3);
	free(text);

	setenv("FERRY_LOG_LEVEL", "30", 1);
	ferry_log_reset_for_tests();
	assert_false(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_WARNING));

	setenv("FERRY_LOG_LEVEL", "disable", 1);
	ferry_log_reset_for_tests();
	assert_false(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_CRIT));

	/* A typo falls back to ERROR rather than silencing the SDK. */
	setenv("FERRY_LOG_LEVEL", "loud", 1);
	text = capture_fd(STDERR_FILENO, ferry_log_reset_for_tests);
	assert_non_null(strstr(text, "FERRY_LOG_LEVEL"));
	free(text);
	assert_true(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_ERROR));
	assert_false(ferry_log_sdk_enabled(DOCA_LOG_LEVEL_WARNING));
	unsetenv("FERRY_LOG_LEVEL");
}

static void test_fallback_stops_with_an_sdk_backend(void **state)
{
	struct capture sdk;
	char *text;

	(void)state;
	capture_open(&sdk, 1);
	text = capture_fd(STDERR_FILENO, emit_sdk_error_and_warning);
	assert_string_equal(text, "");
	free(text);
	assert_true(captured_has(&sdk, "fallback-err"));
	capture_close(&sdk);
}

/* ---- backend kinds ---- */

static void test_fd_backend(void **state)
{
	struct doca_log_backend *b;
	FILE *tmp = tmpfile();
	char *text;

	(void)state;
	assert_non_null(tmp);
	assert_int_equal(doca_log_backend_create_with_fd(fileno(tmp), &b), DOCA_SUCCESS);
	DOCA_LOG_WARN("via-fd %s", "ok");
	DOCA_LOG_DBG("via-fd hidden");
	text = read_stream(tmp);
	assert_non_null(strstr(text, "via-fd ok"));
	assert_null(strstr(text, "hidden"));
	assert_int_equal(count_lines(text), 1);
	free(text);
	fclose(tmp);
}

static char buf_lines[4][256];
static int buf_calls;

static void buf_flush(char *buf)
{
	if (buf_calls < 4)
		snprintf(buf_lines[buf_calls], sizeof(buf_lines[0]), "%s", buf);
	buf_calls++;
}

static void test_buf_backend(void **state)
{
	struct doca_log_backend *b;
	static char small[32];
	static char big[512];

	(void)state;
	buf_calls = 0;
	assert_int_equal(doca_log_backend_create_with_buf(big, sizeof(big), buf_flush, &b), DOCA_SUCCESS);
	DOCA_LOG_INFO("into-buffer %d", 42);
	assert_int_equal(buf_calls, 1);
	assert_non_null(strstr(buf_lines[0], "into-buffer 42"));

	assert_int_equal(doca_log_backend_create_with_buf_sdk(small, sizeof(small), buf_flush, &b), DOCA_SUCCESS);
	FERRY_ERR("a long sdk line that cannot fit in thirty-two bytes");
	assert_int_equal(buf_calls, 2);
	assert_int_equal(strlen(buf_lines[1]), sizeof(small) - 1); /* cut, still terminated */
}

static void test_syslog_backend_accepts_lines(void **state)
{
	struct doca_log_backend *b;

	(void)state;
	assert_int_equal(doca_log_backend_create_with_syslog("ferry-test", &b), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_level_lower_limit(b, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_create_with_syslog_sdk("ferry-test", &b), DOCA_SUCCESS);
	assert_int_equal(doca_log_backend_set_sdk_level(b, DOCA_LOG_LEVEL_DISABLE), DOCA_SUCCESS);
	DOCA_LOG_ERR("not sent: the backend is disabled");
}

static void standard_pair_emit(void)
{
	assert_int_equal(doca_log_backend_create_standard(), DOCA_SUCCESS);
	DOCA_LOG_ERR("std-err-line");
	DOCA_LOG_INFO("std-info-line");
	DOCA_LOG_DBG("std-dbg-line");
}

static char *stdout_text;

static void standard_pair_stdout(void)
{
	stdout_text = capture_fd(STDOUT_FILENO, standard_pair_emit);
}

static void test_standard_backends(void **state)
{
	char *err_text;

	(void)state;
	err_text = capture_fd(STDERR_FILENO, standard_pair_stdout);
	assert_non_null(strstr(stdout_text, "std-info-line"));
	assert_null(strstr(stdout_text, "std-err-line"));
	assert_null(strstr(stdout_text, "std-dbg-line"));
	assert_non_null(strstr(err_text, "std-err-line"));
	assert_null(strstr(err_text, "std-info-line"));
	free(err_text);
	free(stdout_text);
}

static void test_backend_limit(void **state)
{
	struct doca_log_backend *b;
	uint32_t made = 0;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)state;
	assert_true(devnull >= 0);
	while (doca_log_backend_create_with_fd(STDERR_FILENO, &b) == DOCA_SUCCESS && made < 10000)
		made++;
	assert_int_equal(made, doca_log_get_max_num_backends());
	assert_int_equal(doca_log_backend_create_standard(), DOCA_ERROR_NO_MEMORY);
	made = 0;
	while (doca_log_backend_create_with_fd_sdk(devnull, &b) == DOCA_SUCCESS && made < 10000)
		made++;
	assert_int_equal(made, doca_log_get_max_num_backends_sdk());
	/* Backends outlive this test; reset (the next setup) forgets them before devnull goes. */
	ferry_log_reset_for_tests();
	close(devnull);
}

/* ---- line format ---- */

static void test_line_format(void **state)
{
	struct capture app;
	char *text;
	char big[4096];

	(void)state;
	capture_open(&app, 0);
	DOCA_LOG_ERR("formatted %s %d", "value", 12);
	text = read_stream(app.file);
	assert_int_equal(text[0], '[');
	assert_non_null(strstr(text, "[ERR]"));
	assert_non_null(strstr(text, "[TESTSRC]"));
	assert_non_null(strstr(text, "test_log.c:"));
	assert_non_null(strstr(text, "[test_line_format]"));
	assert_non_null(strstr(text, "formatted value 12\n"));
	assert_int_equal(count_lines(text), 1);
	free(text);

	/* A trailing newline in the message is not doubled. */
	DOCA_LOG_ERR("with newline\n");
	assert_int_equal(captured_lines(&app), 2);

	/* An overlong message is cut, marked, and still one line. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	DOCA_LOG_ERR("%s", big);
	text = read_stream(app.file);
	assert_int_equal(count_lines(text), 3);
	assert_non_null(strstr(text, "xxx...\n"));
	free(text);
	capture_close(&app);
}

static void test_long_source_name_is_cut(void **state)
{
	char name[400];
	int source = 0;
	struct capture app;
	char *text;

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(doca_log_register_source(name, &source), DOCA_SUCCESS);
	assert_true(source > 0);
	assert_int_equal(doca_log_unregister_source(source), DOCA_SUCCESS);
	capture_open(&app, 0);
	assert_int_equal(doca_log(DOCA_LOG_LEVEL_ERROR, source, "f.c", 1, "fn", "cut-source"), DOCA_SUCCESS);
	text = read_stream(app.file);
	name[DOCA_LOGGER_NAME_SIZE - 1] = '\0';
	assert_non_null(strstr(text, name));
	name[DOCA_LOGGER_NAME_SIZE - 1] = 'n';
	name[DOCA_LOGGER_NAME_SIZE] = '\0';
	assert_null(strstr(text, name));
	free(text);
	capture_close(&app);
}

/* ---- concurrency ---- */

#define THREADS          4
#define LINES_PER_THREAD 300

static void *log_many(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < LINES_PER_THREAD; i++) {
		if (i % 2)
			DOCA_LOG_ERR("thread %d line %d end", id, i);
		else
			FERRY_ERR("thread %d line %d end", id, i);
	}
	return NULL;
}

static void test_concurrent_lines_stay_whole(void **state)
{
	struct capture app, sdk;
	pthread_t threads[THREADS];
	char *text;
	char *line;
	char *save = NULL;
	int lines = 0;

	(void)state;
	capture_open(&app, 0);
	capture_open(&sdk, 1);
	/* Both kinds into the same file through two backends: the lock must cover both. */
	assert_int_equal(doca_log_backend_create_with_file_sdk(app.file, &sdk.backend), DOCA_SUCCESS);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&threads[t], NULL, log_many, (void *)(intptr_t)t), 0);
	for (int t = 0; t < THREADS; t++)
		pthread_join(threads[t], NULL);
	text = read_stream(app.file);
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(line[0], '[');
		assert_non_null(strstr(line, "thread "));
		assert_string_equal(line + strlen(line) - 4, " end");
		lines++;
	}
	assert_int_equal(lines, THREADS * LINES_PER_THREAD);
	free(text);
	capture_close(&app);
	capture_close(&sdk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_create_rejects_bad_arguments, reset),
		cmocka_unit_test_setup(test_levels_reject_bad_values, reset),
		cmocka_unit_test_setup(test_doca_log_rejects_bad_calls, reset),
		cmocka_unit_test_setup(test_level_parse, reset),
		cmocka_unit_test_setup(test_app_default_limits, reset),
		cmocka_unit_test_setup(test_app_backend_limits, reset),
		cmocka_unit_test_setup(test_trace_macro_compiled_out, reset),
		cmocka_unit_test_setup(test_global_limits, reset),
		cmocka_unit_test_setup(test_strict_limits, reset),
		cmocka_unit_test_setup(test_app_and_sdk_lines_kept_apart, reset),
		cmocka_unit_test_setup(test_sdk_levels, reset),
		cmocka_unit_test_setup(test_fallback_prints_errors_on_stderr, reset),
		cmocka_unit_test_setup(test_fallback_level_from_env, reset),
		cmocka_unit_test_setup(test_fallback_stops_with_an_sdk_backend, reset),
		cmocka_unit_test_setup(test_fd_backend, reset),
		cmocka_unit_test_setup(test_buf_backend, reset),
		cmocka_unit_test_setup(test_syslog_backend_accepts_lines, reset),
		cmocka_unit_test_setup(test_standard_backends, reset),
		cmocka_unit_test_setup(test_backend_limit, reset),
		cmocka_unit_test_setup(test_line_format, reset),
		cmocka_unit_test_setup(test_long_source_name_is_cut, reset),
		cmocka_unit_test_setup(test_concurrent_lines_stay_whole, reset),
	};

	return cmocka_run_group_tests(tests, NULL, reset);
}
