/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.c - DOCA logging: sources, backends, level filtering, line output.
 *
 * All configuration (backends, limits, sources) sits behind one mutex; lines are
 * formatted on the caller's stack first and written while holding it, so each line
 * reaches a backend whole and in one piece. Two atomics summarize the configuration
 * (the most verbose application and SDK level any backend shows) so that a filtered
 * line costs one relaxed load and no lock.
 *
 * Backends are slots in static arrays: DOCA has no call to destroy a backend, so they
 * live until exit and nothing leaks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include <doca_log.h>

#include "common/ferry_log.h"
#include "common/ferry_log_internal.h"

FERRY_LOG_MODULE("log");

#define MAX_APP_BACKENDS   32
#define MAX_SDK_BACKENDS   32
#define MAX_SOURCES        1024
#define LINE_MAX_BYTES     2048
#define SYSLOG_NAME_MAX    64
#define FALLBACK_SDK_LEVEL DOCA_LOG_LEVEL_ERROR
#define ENV_FALLBACK_LEVEL "FERRY_LOG_LEVEL"

enum backend_kind {
	BACKEND_FILE,
	BACKEND_FD,
	BACKEND_BUF,
	BACKEND_SYSLOG,
};

/* The two halves of doca_log_backend_create_standard follow the global limits. */
enum backend_role {
	ROLE_USER,
	ROLE_STANDARD_OUT,
	ROLE_STANDARD_ERR,
};

struct doca_log_backend {
	int is_sdk;
	enum backend_kind kind;
	enum backend_role role;
	uint32_t lower;     /* application: most verbose level shown */
	uint32_t upper;     /* application: least verbose level shown */
	uint32_t sdk_level; /* SDK: most verbose level shown */
	int lower_strict;
	int upper_strict;
	FILE *file;
	int fd;
	char *buf;
	size_t capacity;
	log_flush_callback handler;
	char syslog_name[SYSLOG_NAME_MAX];
};

struct log_state {
	struct doca_log_backend app[MAX_APP_BACKENDS];
	struct doca_log_backend sdk[MAX_SDK_BACKENDS];
	uint32_t nb_app;
	uint32_t nb_sdk;
	uint32_t global_lower;
	uint32_t global_upper;
	uint32_t global_sdk;
	/* Ferry's stderr line for SDK messages while the program has no SDK backend. */
	struct doca_log_backend fallback;
	char *sources[MAX_SOURCES];
	int nb_sources;
};

/* Recursive: a rule violation found while configuring logs is itself logged. */
static pthread_mutex_t log_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct log_state state;
/* Most verbose level some backend would show; 0 when none would show anything. */
static atomic_uint app_max_shown;
static atomic_uint sdk_max_shown;
/* A buffer handler that logs would re-enter: drop such nested lines instead of deadlocking. */
static _Thread_local int in_dispatch;

static const struct {
	uint32_t level;
	const char *tag;
	const char *names[3];
} level_table[] = {
	{DOCA_LOG_LEVEL_DISABLE, "OFF", {"disable", "disabled", "off"}},
	{DOCA_LOG_LEVEL_CRIT, "CRIT", {"crit", "critical", NULL}},
	{DOCA_LOG_LEVEL_ERROR, "ERR", {"error", "err", NULL}},
	{DOCA_LOG_LEVEL_WARNING, "WARN", {"warning", "warn", NULL}},
	{DOCA_LOG_LEVEL_INFO, "INFO", {"info", NULL, NULL}},
	{DOCA_LOG_LEVEL_DEBUG, "DBG", {"debug", "dbg", NULL}},
	{DOCA_LOG_LEVEL_TRACE, "TRC", {"trace", "trc", NULL}},
};

#define LEVEL_TABLE_SIZE (sizeof(level_table) / sizeof(level_table[0]))

int ferry_log_level_is_valid(uint32_t level)
{
	for (size_t i = 0; i < LEVEL_TABLE_SIZE; i++)
		if (level_table[i].level == level)
			return 1;
	return 0;
}

const char *ferry_log_level_tag(uint32_t level)
{
	for (size_t i = 0; i < LEVEL_TABLE_SIZE; i++)
		if (level_table[i].level == level)
			return level_table[i].tag;
	return "???";
}

static int level_from_number(const char *text, uint32_t *level)
{
	char *end;
	long value;

	errno = 0;
	value = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || value < 0 || value > 1000)
		return 0;
	if (!ferry_log_level_is_valid((uint32_t)value))
		return 0;
	*level = (uint32_t)value;
	return 1;
}

static int level_from_name(const char *text, uint32_t *level)
{
	for (size_t i = 0; i < LEVEL_TABLE_SIZE; i++) {
		for (size_t j = 0; j < 3 && level_table[i].names[j] != NULL; j++) {
			if (strcasecmp(text, level_table[i].names[j]) == 0) {
				*level = level_table[i].level;
				return 1;
			}
		}
	}
	return 0;
}

doca_error_t ferry_log_level_parse(const char *text, uint32_t *level)
{
	if (text == NULL || level == NULL)
		return DOCA_ERROR_INVALID_VALUE;
	if (level_from_number(text, level) || level_from_name(text, level))
		return DOCA_SUCCESS;
	return DOCA_ERROR_INVALID_VALUE;
}

/* ---- configuration (all under log_lock) ---- */

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

/* Standard backends are not set directly: stdout keeps INFO and more verbose, stderr
 * WARNING and more severe, each clipped by the global limits. */
static void standard_backend_follow_globals(struct doca_log_backend *b)
{
	if (b->role == ROLE_STANDARD_OUT) {
		b->lower = state.global_lower;
		b->upper = max_u32(DOCA_LOG_LEVEL_INFO, state.global_upper);
	} else if (b->role == ROLE_STANDARD_ERR) {
		b->lower = min_u32(DOCA_LOG_LEVEL_WARNING, state.global_lower);
		b->upper = state.global_upper;
	}
}

static uint32_t sdk_backend_max(const struct doca_log_backend *b)
{
	return b->sdk_level >= DOCA_LOG_LEVEL_CRIT ? b->sdk_level : 0;
}

static uint32_t app_backend_max(const struct doca_log_backend *b)
{
	if (b->lower < DOCA_LOG_LEVEL_CRIT || b->lower < b->upper)
		return 0;
	return b->lower;
}

static void refresh_fast_filters(void)
{
	uint32_t app_max = 0;
	uint32_t sdk_max = 0;

	for (uint32_t i = 0; i < state.nb_app; i++)
		app_max = max_u32(app_max, app_backend_max(&state.app[i]));
	if (state.nb_sdk == 0)
		sdk_max = sdk_backend_max(&state.fallback);
	for (uint32_t i = 0; i < state.nb_sdk; i++)
		sdk_max = max_u32(sdk_max, sdk_backend_max(&state.sdk[i]));
	atomic_store_explicit(&app_max_shown, app_max, memory_order_relaxed);
	atomic_store_explicit(&sdk_max_shown, sdk_max, memory_order_relaxed);
}

static uint32_t fallback_level_from_env(void)
{
	const char *text = getenv(ENV_FALLBACK_LEVEL);
	uint32_t level;

	if (text == NULL || *text == '\0')
		return FALLBACK_SDK_LEVEL;
	if (ferry_log_level_parse(text, &level) != DOCA_SUCCESS) {
		/* No logger works yet; say it plainly on stderr so the typo gets noticed. */
		fprintf(stderr, "ferry: %s='%s' is not a log level; using error\n", ENV_FALLBACK_LEVEL, text);
		return FALLBACK_SDK_LEVEL;
	}
	return level;
}

static void load_defaults(void)
{
	state.nb_app = 0;
	state.nb_sdk = 0;
	state.global_lower = DOCA_LOG_LEVEL_INFO;
	state.global_upper = DOCA_LOG_LEVEL_CRIT;
	state.global_sdk = DOCA_LOG_LEVEL_INFO;
	memset(&state.fallback, 0, sizeof(state.fallback));
	state.fallback.is_sdk = 1;
	state.fallback.kind = BACKEND_FD;
	state.fallback.fd = STDERR_FILENO;
	state.fallback.sdk_level = fallback_level_from_env();
	refresh_fast_filters();
}

/* Runs when the library loads, before the program's constructors and main(). */
static void __attribute__((constructor(101))) log_init(void)
{
	pthread_mutex_lock(&log_lock);
	load_defaults();
	pthread_mutex_unlock(&log_lock);
}

void ferry_log_reset_for_tests(void)
{
	pthread_mutex_lock(&log_lock);
	load_defaults();
	pthread_mutex_unlock(&log_lock);
}

/* ---- line output ---- */

static const char *file_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash != NULL ? slash + 1 : path;
}

/* Formats one whole line, newline included, truncated with "..." when too long. */
static size_t format_line(char *out, size_t cap, uint32_t level, const char *source, const char *fname, int line,
			  const char *func, const char *fmt, va_list ap) __attribute__((format(printf, 8, 0)));
static size_t format_line(char *out, size_t cap, uint32_t level, const char *source, const char *fname, int line,
			  const char *func, const char *fmt, va_list ap)
{
	struct timespec now;
	struct tm tm;
	int used;
	int more;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	used = snprintf(out, cap, "[%02d:%02d:%02d.%06ld][%d][DOCA][%s][%s]", tm.tm_hour, tm.tm_min, tm.tm_sec,
			now.tv_nsec / 1000, (int)getpid(), ferry_log_level_tag(level), source);
	if (fname != NULL && (size_t)used < cap)
		used += snprintf(out + used, cap - (size_t)used, "[%s:%d][%s]", file_basename(fname), line,
				 func != NULL ? func : "?");
	if ((size_t)used < cap)
		used += snprintf(out + used, cap - (size_t)used, " ");
	if ((size_t)used < cap) {
		more = vsnprintf(out + used, cap - (size_t)used, fmt, ap);
		if (more > 0)
			used += more;
	}
	if ((size_t)used + 2 > cap) {
		/* Too long: end with a visible mark instead of silently cutting. */
		memcpy(out + cap - 5, "...\n", 5);
		return cap - 1;
	}
	if (used > 0 && out[used - 1] != '\n')
		out[used++] = '\n';
	out[used] = '\0';
	return (size_t)used;
}

static void write_fd_fully(int fd, const char *text, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, text, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* nowhere left to report a failing log sink */
		text += n;
		len -= (size_t)n;
	}
}

static int syslog_priority(uint32_t level)
{
	switch (level) {
	case DOCA_LOG_LEVEL_CRIT:
		return LOG_CRIT;
	case DOCA_LOG_LEVEL_ERROR:
		return LOG_ERR;
	case DOCA_LOG_LEVEL_WARNING:
		return LOG_WARNING;
	case DOCA_LOG_LEVEL_INFO:
		return LOG_INFO;
	default:
		return LOG_DEBUG;
	}
}

static void backend_write(struct doca_log_backend *b, uint32_t level, const char *text, size_t len)
{
	size_t n;

	switch (b->kind) {
	case BACKEND_FILE:
		fwrite(text, 1, len, b->file);
		fflush(b->file);
		break;
	case BACKEND_FD:
		write_fd_fully(b->fd, text, len);
		break;
	case BACKEND_BUF:
		n = len < b->capacity ? len : b->capacity - 1;
		memcpy(b->buf, text, n);
		b->buf[n] = '\0';
		b->handler(b->buf);
		break;
	case BACKEND_SYSLOG:
		syslog(syslog_priority(level), "%.*s", (int)(len > 0 ? len - 1 : 0), text);
		break;
	}
}

static int app_backend_shows(const struct doca_log_backend *b, uint32_t level)
{
	return level >= b->upper && level <= b->lower;
}

static int sdk_backend_shows(const struct doca_log_backend *b, uint32_t level)
{
	return level >= DOCA_LOG_LEVEL_CRIT && level <= b->sdk_level;
}

static void dispatch_app(uint32_t level, const char *text, size_t len)
{
	for (uint32_t i = 0; i < state.nb_app; i++)
		if (app_backend_shows(&state.app[i], level))
			backend_write(&state.app[i], level, text, len);
}

static void dispatch_sdk(uint32_t level, const char *text, size_t len)
{
	if (state.nb_sdk == 0) {
		if (sdk_backend_shows(&state.fallback, level))
			backend_write(&state.fallback, level, text, len);
		return;
	}
	for (uint32_t i = 0; i < state.nb_sdk; i++)
		if (sdk_backend_shows(&state.sdk[i], level))
			backend_write(&state.sdk[i], level, text, len);
}

/*
 * Hand a formatted line to one side's backends, under the lock; a backend that
 * logs from its write callback is not called again (in_dispatch), it would
 * deadlock or recurse.
 */
static void dispatch(void (*side)(uint32_t, const char *, size_t), uint32_t level, const char *text, size_t len)
{
	pthread_mutex_lock(&log_lock);
	in_dispatch = 1;
	side(level, text, len);
	in_dispatch = 0;
	pthread_mutex_unlock(&log_lock);
}

/* ---- SDK side (Ferry's own lines) ---- */

int ferry_log_sdk_enabled(enum doca_log_level level)
{
	uint32_t max = atomic_load_explicit(&sdk_max_shown, memory_order_relaxed);

	return (uint32_t)level >= DOCA_LOG_LEVEL_CRIT && (uint32_t)level <= max;
}

void ferry_log_sdk(enum doca_log_level level, const char *module, const char *fmt, ...)
{
	char line[LINE_MAX_BYTES];
	char source[96];
	va_list ap;
	size_t len;

	if (!ferry_log_sdk_enabled(level) || fmt == NULL || in_dispatch)
		return;
	snprintf(source, sizeof(source), "ferry/%s", module != NULL ? module : "?");
	va_start(ap, fmt);
	len = format_line(line, sizeof(line), level, source, NULL, 0, NULL, fmt, ap);
	va_end(ap);

	dispatch(dispatch_sdk, level, line, len);
}

/* ---- application side ---- */

doca_error_t doca_log(uint32_t level, int source, const char *fname, int line, const char *func, const char *format,
		      ...)
{
	char text[LINE_MAX_BYTES];
	char name[DOCA_LOGGER_NAME_SIZE];
	va_list ap;
	size_t len;

	if (!ferry_log_level_is_valid(level) || level == DOCA_LOG_LEVEL_DISABLE)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "level %u is not a log level", level);
	FERRY_ARG_NOT_NULL(format);
	if (level > atomic_load_explicit(&app_max_shown, memory_order_relaxed) || in_dispatch)
		return DOCA_SUCCESS;

	pthread_mutex_lock(&log_lock);
	if (source <= 0 || source > state.nb_sources) {
		pthread_mutex_unlock(&log_lock);
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "source %d was never registered; use DOCA_LOG_REGISTER in the file", source);
	}
	snprintf(name, sizeof(name), "%s", state.sources[source - 1]);
	pthread_mutex_unlock(&log_lock);

	va_start(ap, format);
	len = format_line(text, sizeof(text), level, name, fname, line, func, format, ap);
	va_end(ap);

	dispatch(dispatch_app, level, text, len);
	return DOCA_SUCCESS;
}

doca_error_t doca_log_register_source(const char *source_name, int *source)
{
	char *copy;

	if (source_name == NULL || source == NULL)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "source_name %p or source %p is NULL",
				  (const void *)source_name, (void *)source);
	copy = strndup(source_name, DOCA_LOGGER_NAME_SIZE - 1);
	if (copy == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "no memory for name '%s'", source_name);

	pthread_mutex_lock(&log_lock);
	if (state.nb_sources == MAX_SOURCES) {
		pthread_mutex_unlock(&log_lock);
		free(copy);
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "all %d source slots are used", MAX_SOURCES);
	}
	state.sources[state.nb_sources++] = copy;
	/* Identifiers start at 1 so that an unregistered (zero) log_source is caught. */
	*source = state.nb_sources;
	pthread_mutex_unlock(&log_lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_log_unregister_source(int source)
{
	(void)source;
	return DOCA_SUCCESS;
}

/* ---- backend creation ---- */

static doca_error_t backend_alloc(int is_sdk, const char *call, struct doca_log_backend **out)
{
	struct doca_log_backend *b;

	if (is_sdk) {
		if (state.nb_sdk == MAX_SDK_BACKENDS)
			return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "all %d SDK backends are in use",
					     MAX_SDK_BACKENDS);
		b = &state.sdk[state.nb_sdk++];
	} else {
		if (state.nb_app == MAX_APP_BACKENDS)
			return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "all %d application backends are in use",
					     MAX_APP_BACKENDS);
		b = &state.app[state.nb_app++];
	}
	memset(b, 0, sizeof(*b));
	b->is_sdk = is_sdk;
	b->fd = -1;
	b->lower = state.global_lower;
	b->upper = state.global_upper;
	b->sdk_level = state.global_sdk;
	*out = b;
	return DOCA_SUCCESS;
}

/* Fills a fresh slot via @p setup, publishes it only when everything succeeded. */
static doca_error_t backend_create(int is_sdk, const char *call, void (*setup)(struct doca_log_backend *, const void *),
				   const void *arg, struct doca_log_backend **backend)
{
	struct doca_log_backend *b;
	doca_error_t err;

	pthread_mutex_lock(&log_lock);
	err = backend_alloc(is_sdk, call, &b);
	if (err == DOCA_SUCCESS) {
		setup(b, arg);
		refresh_fast_filters();
		if (backend != NULL)
			*backend = b;
	}
	pthread_mutex_unlock(&log_lock);
	return err;
}

static void setup_file(struct doca_log_backend *b, const void *arg)
{
	b->kind = BACKEND_FILE;
	b->file = (FILE *)(uintptr_t)arg;
}

static void setup_fd(struct doca_log_backend *b, const void *arg)
{
	b->kind = BACKEND_FD;
	b->fd = *(const int *)arg;
}

struct buf_args {
	char *buf;
	size_t capacity;
	log_flush_callback handler;
};

static void setup_buf(struct doca_log_backend *b, const void *arg)
{
	const struct buf_args *args = arg;

	b->kind = BACKEND_BUF;
	b->buf = args->buf;
	b->capacity = args->capacity;
	b->handler = args->handler;
}

static void setup_syslog(struct doca_log_backend *b, const void *arg)
{
	b->kind = BACKEND_SYSLOG;
	snprintf(b->syslog_name, sizeof(b->syslog_name), "%s", (const char *)arg);
	/* openlog keeps the pointer: the name lives in the static slot. */
	openlog(b->syslog_name, LOG_PID, LOG_USER);
}

static doca_error_t create_with_file(int is_sdk, const char *call, FILE *fptr, struct doca_log_backend **backend)
{
	if (fptr == NULL || backend == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "fptr %p or backend %p is NULL", (void *)fptr,
				     (void *)backend);
	return backend_create(is_sdk, call, setup_file, fptr, backend);
}

static doca_error_t create_with_fd(int is_sdk, const char *call, int fd, struct doca_log_backend **backend)
{
	if (backend == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "backend is NULL");
	if (fd < 0 || fcntl(fd, F_GETFD) < 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "fd %d is not an open descriptor", fd);
	return backend_create(is_sdk, call, setup_fd, &fd, backend);
}

static doca_error_t create_with_buf(int is_sdk, const char *call, char *buf, size_t capacity,
				    log_flush_callback handler, struct doca_log_backend **backend)
{
	struct buf_args args = {buf, capacity, handler};

	if (buf == NULL || handler == NULL || backend == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "buf %p, handler or backend %p is NULL",
				     (void *)buf, (void *)backend);
	if (capacity == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "capacity is 0; a line needs room");
	return backend_create(is_sdk, call, setup_buf, &args, backend);
}

static doca_error_t create_with_syslog(int is_sdk, const char *call, const char *name,
				       struct doca_log_backend **backend)
{
	if (name == NULL || backend == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "name %p or backend %p is NULL",
				     (const void *)name, (void *)backend);
	return backend_create(is_sdk, call, setup_syslog, name, backend);
}

doca_error_t doca_log_backend_create_with_file(FILE *fptr, struct doca_log_backend **backend)
{
	return create_with_file(0, __func__, fptr, backend);
}

doca_error_t doca_log_backend_create_with_file_sdk(FILE *fptr, struct doca_log_backend **backend)
{
	return create_with_file(1, __func__, fptr, backend);
}

doca_error_t doca_log_backend_create_with_fd(int fd, struct doca_log_backend **backend)
{
	return create_with_fd(0, __func__, fd, backend);
}

doca_error_t doca_log_backend_create_with_fd_sdk(int fd, struct doca_log_backend **backend)
{
	return create_with_fd(1, __func__, fd, backend);
}

doca_error_t doca_log_backend_create_with_buf(char *buf, size_t capacity, log_flush_callback handler,
					      struct doca_log_backend **backend)
{
	return create_with_buf(0, __func__, buf, capacity, handler, backend);
}

doca_error_t doca_log_backend_create_with_buf_sdk(char *buf, size_t capacity, log_flush_callback handler,
						  struct doca_log_backend **backend)
{
	return create_with_buf(1, __func__, buf, capacity, handler, backend);
}

doca_error_t doca_log_backend_create_with_syslog(const char *name, struct doca_log_backend **backend)
{
	return create_with_syslog(0, __func__, name, backend);
}

doca_error_t doca_log_backend_create_with_syslog_sdk(const char *name, struct doca_log_backend **backend)
{
	return create_with_syslog(1, __func__, name, backend);
}

doca_error_t doca_log_backend_create_standard(void)
{
	doca_error_t err = DOCA_SUCCESS;
	struct doca_log_backend *out;
	struct doca_log_backend *err_b;

	pthread_mutex_lock(&log_lock);
	if (state.nb_app + 2 > MAX_APP_BACKENDS) {
		err = FERRY_RULE(DOCA_ERROR_NO_MEMORY, "needs 2 application backends, %u of %d are free",
				 MAX_APP_BACKENDS - state.nb_app, MAX_APP_BACKENDS);
	} else if (backend_alloc(0, __func__, &out) == DOCA_SUCCESS &&
		   backend_alloc(0, __func__, &err_b) == DOCA_SUCCESS) {
		/* Both slots were checked free above; the checked calls also tell the optimiser so. */
		setup_file(out, stdout);
		out->role = ROLE_STANDARD_OUT;
		standard_backend_follow_globals(out);
		setup_file(err_b, stderr);
		err_b->role = ROLE_STANDARD_ERR;
		standard_backend_follow_globals(err_b);
		refresh_fast_filters();
	}
	pthread_mutex_unlock(&log_lock);
	return err;
}

uint32_t doca_log_get_max_num_backends(void)
{
	return MAX_APP_BACKENDS;
}

uint32_t doca_log_get_max_num_backends_sdk(void)
{
	return MAX_SDK_BACKENDS;
}

/* ---- limits ---- */

enum limit_side {
	LIMIT_LOWER,
	LIMIT_UPPER,
};

/* A strict limit refuses changes that would hide a level it shows now. */
static int limit_change_allowed(const struct doca_log_backend *b, enum limit_side side, uint32_t level)
{
	if (side == LIMIT_LOWER)
		return !b->lower_strict || level >= b->lower;
	return !b->upper_strict || level <= b->upper;
}

/* The rule line every level setter gives for a value outside the table. */
static doca_error_t check_level(uint32_t level, const char *call)
{
	if (!ferry_log_level_is_valid(level))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%u is not a log level (10..70 in steps of 10)",
				     level);
	return DOCA_SUCCESS;
}

static void set_limit(struct doca_log_backend *b, enum limit_side side, uint32_t level)
{
	if (side == LIMIT_LOWER)
		b->lower = level;
	else
		b->upper = level;
}

static doca_error_t set_backend_limit(struct doca_log_backend *backend, enum limit_side side, uint32_t level,
				      const char *call)
{
	doca_error_t err = DOCA_SUCCESS;

	if (backend == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "backend is NULL");
	if (check_level(level, call) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	if (backend->is_sdk)
		err = FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				    "backend %p is an SDK backend; use doca_log_backend_set_sdk_level",
				    (void *)backend);
	else if (!limit_change_allowed(backend, side, level))
		err = FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				    "backend %p has a strict %s limit; %u would hide levels it shows", (void *)backend,
				    side == LIMIT_LOWER ? "lower" : "upper", level);
	else
		set_limit(backend, side, level);
	refresh_fast_filters();
	pthread_mutex_unlock(&log_lock);
	return err;
}

doca_error_t doca_log_backend_set_level_lower_limit(struct doca_log_backend *backend, uint32_t level)
{
	return set_backend_limit(backend, LIMIT_LOWER, level, __func__);
}

doca_error_t doca_log_backend_set_level_upper_limit(struct doca_log_backend *backend, uint32_t upper_limit)
{
	return set_backend_limit(backend, LIMIT_UPPER, upper_limit, __func__);
}

static doca_error_t set_strict(struct doca_log_backend *backend, enum limit_side side, const char *call)
{
	if (backend == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "backend is NULL");
	pthread_mutex_lock(&log_lock);
	if (side == LIMIT_LOWER)
		backend->lower_strict = 1;
	else
		backend->upper_strict = 1;
	pthread_mutex_unlock(&log_lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_log_backend_set_level_lower_limit_strict(struct doca_log_backend *backend)
{
	return set_strict(backend, LIMIT_LOWER, __func__);
}

doca_error_t doca_log_backend_set_level_upper_limit_strict(struct doca_log_backend *backend)
{
	return set_strict(backend, LIMIT_UPPER, __func__);
}

static doca_error_t set_global_limit(enum limit_side side, uint32_t level, const char *call)
{
	if (check_level(level, call) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	if (side == LIMIT_LOWER)
		state.global_lower = level;
	else
		state.global_upper = level;
	for (uint32_t i = 0; i < state.nb_app; i++) {
		struct doca_log_backend *b = &state.app[i];

		if (b->role != ROLE_USER)
			standard_backend_follow_globals(b);
		else if (limit_change_allowed(b, side, level))
			set_limit(b, side, level);
	}
	refresh_fast_filters();
	pthread_mutex_unlock(&log_lock);
	return DOCA_SUCCESS;
}

doca_error_t doca_log_level_set_global_lower_limit(uint32_t level)
{
	return set_global_limit(LIMIT_LOWER, level, __func__);
}

doca_error_t doca_log_level_set_global_upper_limit(uint32_t upper_limit)
{
	return set_global_limit(LIMIT_UPPER, upper_limit, __func__);
}

/* A level read under the lock: setters change several fields together. */
static uint32_t read_level(const uint32_t *field)
{
	uint32_t level;

	pthread_mutex_lock(&log_lock);
	level = *field;
	pthread_mutex_unlock(&log_lock);
	return level;
}

uint32_t doca_log_level_get_global_lower_limit(void)
{
	return read_level(&state.global_lower);
}

uint32_t doca_log_level_get_global_upper_limit(void)
{
	return read_level(&state.global_upper);
}

doca_error_t doca_log_backend_set_sdk_level(struct doca_log_backend *backend, uint32_t level)
{
	doca_error_t err = DOCA_SUCCESS;

	FERRY_ARG_NOT_NULL(backend);
	if (check_level(level, __func__) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	if (!backend->is_sdk)
		err = FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				 "backend %p is an application backend; "
				 "use doca_log_backend_set_level_lower_limit",
				 (void *)backend);
	else
		backend->sdk_level = level;
	refresh_fast_filters();
	pthread_mutex_unlock(&log_lock);
	return err;
}

doca_error_t doca_log_level_set_global_sdk_limit(uint32_t level)
{
	if (check_level(level, __func__) != DOCA_SUCCESS)
		return DOCA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&log_lock);
	state.global_sdk = level;
	state.fallback.sdk_level = level;
	for (uint32_t i = 0; i < state.nb_sdk; i++)
		state.sdk[i].sdk_level = level;
	refresh_fast_filters();
	pthread_mutex_unlock(&log_lock);
	return DOCA_SUCCESS;
}

uint32_t doca_log_level_get_global_sdk_limit(void)
{
	return read_level(&state.global_sdk);
}
