/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench.c - `ferry bench KIND`: Ferry's benchmarks behind one interface. Each
 * kind is one bench program (bench/), which measures Ferry and its peer
 * (memcpy, ucx_perftest, process_vm_readv, a raw socket) back to back in one
 * run and prints one JSON row per side per point (bench/bench_util.h says
 * what a row holds). This command:
 *   1. checks the sweep (sizes and depths, in the bench programs' own grammar:
 *      bench_parse_list), the outputs (the JSON file, the plot prefix) and, for
 *      --plot, that gnuplot is on PATH, all before anything runs;
 *   2. finds the program: $FERRY_BENCH_DIR, else ../bench beside this
 *      executable (a build tree), else the installed libexec directory;
 *   3. runs it once per point (size x depth) with --json, a progress bar on
 *      stderr when that is a terminal, and keeps its rows;
 *   4. prints a table, writes the rows verbatim as JSON lines, and has gnuplot
 *      draw throughput and latency against size, Ferry beside its peer.
 * One point per run keeps the bar honest and a failure local: a program that
 * fails has its stderr shown and the command named.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h" /* the sweep grammar and row format the bench programs use */
#include "ferry.h"

#ifndef FERRY_LIBEXECDIR
#define FERRY_LIBEXECDIR "/usr/local/libexec"
#endif

#define MAX_EXTRA 32 /* words after "--", passed to the bench program */

/* One kind of bench: its program, its default sweep and the quick one, its limits. */
struct kind {
	const char *name, *prog, *summary;
	const char *sizes, *depths, *quick_sizes, *quick_depths;
	uint64_t max_size, max_depth;
};

static const struct kind kinds[] = {
	{"dma", "dma_bench", "DOCA DMA memcpy tasks (engine auto) against memcpy of the same copies",
	 "64,4K,64K,1M,16M", "1,8", "64,64K", "8", 256u << 20, 64},
	{"comch", "comch_bench", "Comch messages (control path) against a raw Unix SEQPACKET echo", "64,256,1K,4080",
	 "32", "64,4080", "8", 4080, 512},
	{"fast", "comch_fast_bench", "the Comch fast path (producer to consumer) against UCX's ucx_perftest",
	 "64,4K,64K,1M", "16", "64,64K", "8", 1u << 20, 64},
	{"export", "export_bench", "DMA across processes (an exported mmap) against memcpy, process_vm_readv",
	 "4K,64K,1M,16M", "8", "4K,1M", "8", 64u << 20, 64},
	{"rdma", "rdma_bench", "DOCA RDMA write, read and send against UCX's ucx_perftest", "64,4K,64K,1M", "16",
	 "4K,64K", "16", 1u << 20, 16},
};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

/* One row of a bench program's output (bench_util.h), the fields this command uses. */
struct row {
	char kase[32], side[32];
	uint64_t size, depth;
	double gb_per_s, mops, lat_us;
	char peer[32];
	double ratio, lat_ratio;
};

struct rows {
	struct row *v;
	size_t n, cap;
};

static void print_help(void)
{
	printf("NAME\n"
	       "    ferry bench - run a Ferry benchmark and its peer over sizes and queue depths\n"
	       "\n"
	       "SYNOPSIS\n"
	       "    ferry bench KIND [--sizes LIST] [--depths LIST] [--time SECONDS] [--quick]\n"
	       "                     [--json FILE|-] [--plot PREFIX [--format png,svg]]\n"
	       "                     [--progress auto|always|never] [-- BENCH-ARG...]\n"
	       "\n"
	       "DESCRIPTION\n"
	       "    Runs the bench program of KIND once per point of the sweep (every size at\n"
	       "    every depth). Each run measures Ferry and its peer back to back on the same\n"
	       "    sizes, so their ratio holds on a noisy machine where absolute figures do\n"
	       "    not. Prints a table (one line per point: Ferry's throughput, rate and\n"
	       "    latency, the peer's, and the ratios), and optionally the rows as JSON\n"
	       "    lines and plots of throughput and latency against size, Ferry beside its\n"
	       "    peer. A progress bar goes to stderr when it is a terminal.\n"
	       "\n"
	       "KINDS\n");
	for (size_t k = 0; k < N_KINDS; k++)
		printf("    %-8s%s\n            (%s; sizes %s, depths %s)\n", kinds[k].name, kinds[k].summary,
		       kinds[k].prog, kinds[k].sizes, kinds[k].depths);
	printf("\n"
	       "OPTIONS\n"
	       "    -s, --sizes LIST     bytes per copy or message, comma-separated; K, M, G\n"
	       "                         mean KiB, MiB, GiB (\"64,4K,1M\")\n"
	       "    -d, --depths LIST    tasks or messages in flight (\"1,8,32\"); ignored where\n"
	       "                         one message is in flight by nature (latency rows)\n"
	       "    -t, --time SECONDS   time per measurement (default 0.2; --quick: 0.05)\n"
	       "    -q, --quick          two sizes, one depth, 0.05 s: a smoke run of seconds\n"
	       "    -j, --json FILE      write every row as one JSON object per line to FILE\n"
	       "                         ('-': to stdout, and the table to stderr)\n"
	       "    -p, --plot PREFIX    draw PREFIX-throughput.FMT (GB/s) and PREFIX-latency.FMT\n"
	       "                         (microseconds) against size, log scale, with gnuplot\n"
	       "                         (Debian package gnuplot-nox)\n"
	       "    -f, --format LIST    plot formats: png, svg or both (default png,svg)\n"
	       "        --progress WHEN  the progress bar: auto (stderr is a terminal and TERM\n"
	       "                         is not dumb), always or never\n"
	       "    -h, --help           show this text and exit\n"
	       "    -- BENCH-ARG...      passed to the bench program (dma: --engine worker)\n"
	       "\n"
	       "ROWS\n"
	       "    {\"bench\", \"case\", \"size\", \"depth\", \"side\": \"ferry\" or the peer, \"gb_per_s\",\n"
	       "    \"mops\", \"lat_us\", \"lat_median_us\", \"iters\"}; Ferry's rows add \"peer\",\n"
	       "    \"ratio\" (throughput, Ferry / peer) and \"lat_ratio\" (latency, Ferry / peer).\n"
	       "    A figure not measured is null.\n"
	       "\n"
	       "ENVIRONMENT\n"
	       "    FERRY_BENCH_DIR  where the bench programs are (default: ../bench beside\n"
	       "                     this ferry, else %s/ferry)\n"
	       "    UCX_TLS          the peer's transports for fast and rdma (default sm,self)\n"
	       "\n"
	       "EXIT STATUS\n"
	       "    0      every point was measured (and plotted)\n"
	       "    1      a bench program is missing or failed, gnuplot is missing (with\n"
	       "           --plot; checked before anything runs) or failed, or an output\n"
	       "           file could not be written\n"
	       "    2      usage error\n"
	       "    125    ferry itself failed (pipes, processes, memory)\n"
	       "    128+N  ferry got signal N (SIGINT, SIGTERM, SIGHUP) and passed it to the\n"
	       "           bench program; the table and the JSON hold the points measured\n"
	       "\n"
	       "EXAMPLES\n"
	       "    ferry bench dma\n"
	       "    ferry bench dma --sizes 4K,64K,1M --depths 1,4,16 --plot /tmp/dma\n"
	       "    ferry bench fast --quick --json fast.json\n"
	       "    ferry bench export --json - | jq -c 'select(.side == \"ferry\") | [.size, .ratio]'\n"
	       "    ferry bench dma -q -- --engine worker\n"
	       "\n"
	       "SEE ALSO\n"
	       "    docs/ferry-command.md, bench/bench_util.h, ucx_perftest(1)\n",
	       FERRY_LIBEXECDIR);
}

/* ---- finding programs ---- */

static bool executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* @p name on PATH, into @p path. */
static bool find_on_path(const char *name, char *path, size_t len)
{
	const char *dirs = getenv("PATH");

	while (dirs != NULL && *dirs != '\0') {
		const char *end = strchr(dirs, ':');
		size_t n = end != NULL ? (size_t)(end - dirs) : strlen(dirs);

		if (n > 0 && (size_t)snprintf(path, len, "%.*s/%s", (int)n, dirs, name) < len && executable(path))
			return true;
		dirs = end != NULL ? end + 1 : NULL;
	}
	return false;
}

/* The bench program @p prog: $FERRY_BENCH_DIR, else the build tree beside us, else libexec. */
static bool find_bench(const char *prog, char *path, size_t len)
{
	const char *dir = getenv("FERRY_BENCH_DIR");
	char self[4096];
	ssize_t n;

	if (dir != NULL && dir[0] != '\0')
		return (size_t)snprintf(path, len, "%s/%s", dir, prog) < len && executable(path);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash != NULL) {
			*slash = '\0';
			if ((size_t)snprintf(path, len, "%s/../bench/%s", self, prog) < len && executable(path))
				return true;
		}
	}
	return (size_t)snprintf(path, len, "%s/ferry/%s", FERRY_LIBEXECDIR, prog) < len && executable(path);
}

/* ---- running one point ---- */

/* The bench program running now, and the signal (SIGINT, SIGTERM, SIGHUP) that asked us to stop; 0: none. */
static volatile pid_t running_pid;
static volatile sig_atomic_t stop_signal;

/* Pass the signal on to the bench program (a terminal's ^C reaches it anyway) and stop after it. */
static void on_stop_signal(int sig)
{
	pid_t pid = running_pid;

	stop_signal = sig;
	if (pid > 0)
		kill(pid, sig);
}

/*
 * Run @p argv with stdout into @p *out (NUL-terminated, malloc'd) and stderr
 * into the file @p err_fd. Returns the wait status, or -1 when ferry failed.
 */
static int run_capture(char *const argv[], int err_fd, char **out)
{
	int fds[2];
	size_t used = 0, cap = 4096;
	char *buf = malloc(cap);
	pid_t pid;
	int status;

	*out = NULL;
	if (buf == NULL || pipe2(fds, O_CLOEXEC) != 0) {
		free(buf);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(fds[1], STDOUT_FILENO) < 0 ||
		    (err_fd >= 0 && dup2(err_fd, STDERR_FILENO) < 0))
			_exit(127);
		close_range(3, ~0u, 0); /* nothing of ours (the JSON file, the stderr file) beyond 0, 1, 2 */
		execv(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		free(buf);
		return -1;
	}
	running_pid = pid;
	if (stop_signal != 0) /* it came between the check before the fork and now */
		kill(pid, stop_signal);
	for (;;) {
		ssize_t r;

		if (used + 1 == cap) {
			char *bigger = realloc(buf, cap * 2);

			if (bigger == NULL)
				break;
			buf = bigger;
			cap *= 2;
		}
		r = read(fds[0], buf + used, cap - 1 - used);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		used += (size_t)r;
	}
	close(fds[0]);
	buf[used] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			running_pid = 0;
			free(buf);
			return -1;
		}
	running_pid = 0;
	*out = buf;
	return status;
}

/* ---- rows ---- */

/* The text after "key": in a row @p line; NULL when absent. Rows are flat objects of our own making. */
static const char *field(const char *line, const char *key)
{
	char pat[48];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p != NULL ? p + strlen(pat) : NULL;
}

static bool field_str(const char *line, const char *key, char *out, size_t len)
{
	const char *p = field(line, key), *end;

	out[0] = '\0';
	if (p == NULL || *p != '"' || (end = strchr(p + 1, '"')) == NULL || (size_t)(end - p - 1) >= len)
		return false;
	memcpy(out, p + 1, (size_t)(end - p - 1));
	out[end - p - 1] = '\0';
	return true;
}

/* A number, or BENCH_NA for null or absent. */
static double field_num(const char *line, const char *key)
{
	const char *p = field(line, key);
	char *end;
	double v;

	if (p == NULL || strncmp(p, "null", 4) == 0)
		return BENCH_NA;
	v = strtod(p, &end);
	return end == p ? BENCH_NA : v;
}

/* Parse a row of @p bench; false when @p line is not one. */
static bool parse_row(const char *line, const char *bench, struct row *r)
{
	char b[32];

	memset(r, 0, sizeof(*r));
	if (!field_str(line, "bench", b, sizeof(b)) || strcmp(b, bench) != 0 ||
	    !field_str(line, "case", r->kase, sizeof(r->kase)) || !field_str(line, "side", r->side, sizeof(r->side)) ||
	    field_num(line, "size") <= 0 || field_num(line, "depth") <= 0)
		return false;
	r->size = (uint64_t)field_num(line, "size");
	r->depth = (uint64_t)field_num(line, "depth");
	r->gb_per_s = field_num(line, "gb_per_s");
	r->mops = field_num(line, "mops");
	r->lat_us = field_num(line, "lat_us");
	r->ratio = field_num(line, "ratio");
	r->lat_ratio = field_num(line, "lat_ratio");
	(void)field_str(line, "peer", r->peer, sizeof(r->peer));
	return true;
}

static bool rows_add(struct rows *rows, const struct row *r)
{
	if (rows->n == rows->cap) {
		size_t cap = rows->cap != 0 ? rows->cap * 2 : 64;
		struct row *v = realloc(rows->v, cap * sizeof(*v));

		if (v == NULL)
			return false;
		rows->v = v;
		rows->cap = cap;
	}
	rows->v[rows->n++] = *r;
	return true;
}

/* "64 B", "4 KiB", "1 MiB", or bytes when not a whole unit. */
static const char *size_text(uint64_t size, char *buf, size_t len)
{
	if (size >= (1u << 30) && size % (1u << 30) == 0)
		snprintf(buf, len, "%llu GiB", (unsigned long long)(size >> 30));
	else if (size >= (1u << 20) && size % (1u << 20) == 0)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(size >> 20));
	else if (size >= 1024 && size % 1024 == 0)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(size >> 10));
	else
		snprintf(buf, len, "%llu B", (unsigned long long)size);
	return buf;
}

/* One table cell: a figure, or a ratio with an "x"; "-" when not measured. */
static void cell(FILE *out, double v, bool ratio)
{
	if (v < 0)
		fprintf(out, " %9s", "-");
	else if (ratio)
		fprintf(out, " %8.2fx", v);
	else if (v >= 1 || v == 0)
		fprintf(out, " %9.3f", v);
	else /* 0.000357 Mops, not 0.000 */
		fprintf(out, " %9.3g", v);
}

/* The peer's row of Ferry's row @p f (same case, size, depth), or NULL. */
static const struct row *peer_of(const struct rows *rows, const struct row *f)
{
	for (size_t i = 0; i < rows->n; i++) {
		const struct row *p = &rows->v[i];

		if (strcmp(p->side, f->peer) == 0 && strcmp(p->kase, f->kase) == 0 && p->size == f->size &&
		    p->depth == f->depth)
			return p;
	}
	return NULL;
}

static void print_table(FILE *out, const struct kind *k, const struct rows *rows, double seconds)
{
	char sz[24];

	fprintf(out, "ferry bench %s: %s, %.3g s per measurement\n", k->name, k->summary, seconds);
	fprintf(out, "%-9s %8s %5s %9s %9s %9s  %-17s %9s %9s %9s %9s %9s\n", "case", "size", "depth", "GB/s", "Mops",
		"lat us", "peer", "GB/s", "Mops", "lat us", "ratio", "lat ratio");
	for (size_t i = 0; i < rows->n; i++) {
		const struct row *f = &rows->v[i], *p;

		if (strcmp(f->side, "ferry") != 0)
			continue;
		p = peer_of(rows, f);
		fprintf(out, "%-9s %8s %5llu", f->kase, size_text(f->size, sz, sizeof(sz)),
			(unsigned long long)f->depth);
		cell(out, f->gb_per_s, false);
		cell(out, f->mops, false);
		cell(out, f->lat_us, false);
		fprintf(out, "  %-17s", p != NULL ? p->side : "(not run)");
		cell(out, p != NULL ? p->gb_per_s : BENCH_NA, false);
		cell(out, p != NULL ? p->mops : BENCH_NA, false);
		cell(out, p != NULL ? p->lat_us : BENCH_NA, false);
		cell(out, f->ratio, true);
		cell(out, f->lat_ratio, true);
		fprintf(out, "\n");
	}
	fprintf(out, "ratio: Ferry's throughput / the peer's (above 1: Ferry faster); lat ratio: Ferry's latency / the "
		     "peer's (below 1: Ferry faster)\n");
}

/* ---- plots ---- */

/* A series: the rows of one (case, side, depth), in size order as measured. */
struct series {
	const char *kase, *side;
	uint64_t depth;
};

static double metric(const struct row *r, bool latency)
{
	return latency ? r->lat_us : r->gb_per_s;
}

/* Write one plot with gnuplot; false (with a line on stderr) when it did not come out. */
static bool plot_one(const struct kind *k, const struct rows *rows, const char *prefix, const char *fmt, bool latency,
		     int n_kase, int n_depth, char *gnuplot)
{
	char script[] = "/tmp/ferry-bench-plot-XXXXXX";
	char outpath[4200], sz[24], *gp_out = NULL;
	struct series ser[256]; /* cases (at most 3) x 2 sides x depths (at most 32) */
	int n_ser = 0, fd, status;
	uint64_t seen_sizes[BENCH_MAX_POINTS] = {0};
	unsigned n_sizes = 0;
	FILE *f;
	struct stat st;

	/* The series that have this metric, in order of appearance: Ferry's first. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < rows->n; i++) {
			const struct row *r = &rows->v[i];
			bool dup = false;

			if ((strcmp(r->side, "ferry") == 0) != (pass == 0) || metric(r, latency) < 0)
				continue;
			for (int s = 0; s < n_ser && !dup; s++)
				dup = strcmp(ser[s].kase, r->kase) == 0 && strcmp(ser[s].side, r->side) == 0 &&
				      ser[s].depth == r->depth;
			if (!dup && n_ser < 256)
				ser[n_ser++] = (struct series){r->kase, r->side, r->depth};
		}
	if (n_ser == 0)
		return true; /* nothing of this metric measured: no file */
	snprintf(outpath, sizeof(outpath), "%s-%s.%s", prefix, latency ? "latency" : "throughput", fmt);
	fd = mkstemp(script);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		fprintf(stderr, "ferry bench: cannot write a gnuplot script in /tmp: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	if (strcmp(fmt, "png") == 0)
		fprintf(f, "set terminal pngcairo size 960,600 noenhanced font 'sans,10'\n");
	else
		fprintf(f, "set terminal svg size 960,600 dynamic noenhanced font 'sans,10'\n");
	fprintf(f, "set output '%s'\n", outpath);
	fprintf(f, "set title \"ferry bench %s: %s against size (Ferry beside its peer, measured in one run)\"\n",
		k->name, latency ? "latency" : "throughput");
	fprintf(f, "set xlabel 'bytes per operation'\nset ylabel '%s'\n",
		latency ? "mean time per operation (us, log scale)" : "throughput (GB/s)");
	fprintf(f, "set logscale x 2\nset grid\nset key outside right top\n");
	if (latency)
		fprintf(f, "set logscale y 10\n");
	else
		fprintf(f, "set yrange [0:*]\n");
	/* Tics at the sizes measured, named as people say them. */
	for (size_t i = 0; i < rows->n; i++) {
		bool dup = false;

		for (unsigned s = 0; s < n_sizes && !dup; s++)
			dup = seen_sizes[s] == rows->v[i].size;
		if (!dup && n_sizes < BENCH_MAX_POINTS)
			seen_sizes[n_sizes++] = rows->v[i].size;
	}
	{
		uint64_t lo = seen_sizes[0], hi = seen_sizes[0];

		for (unsigned s = 1; s < n_sizes; s++) {
			lo = seen_sizes[s] < lo ? seen_sizes[s] : lo;
			hi = seen_sizes[s] > hi ? seen_sizes[s] : hi;
		}
		/* A margin on the log axis, so the end points and their tics sit inside the frame. */
		fprintf(f, "set xrange [%.6g:%.6g]\n", (double)lo / 1.5, (double)hi * 1.5);
	}
	fprintf(f, "set xtics (");
	for (unsigned s = 0; s < n_sizes; s++)
		fprintf(f, "%s'%s' %llu", s > 0 ? ", " : "", size_text(seen_sizes[s], sz, sizeof(sz)),
			(unsigned long long)seen_sizes[s]);
	fprintf(f, ")\n");
	for (int s = 0; s < n_ser; s++) {
		fprintf(f, "$s%d << EOD\n", s);
		for (size_t i = 0; i < rows->n; i++) {
			const struct row *r = &rows->v[i];

			if (strcmp(r->kase, ser[s].kase) == 0 && strcmp(r->side, ser[s].side) == 0 &&
			    r->depth == ser[s].depth && metric(r, latency) >= 0)
				fprintf(f, "%llu %.6g\n", (unsigned long long)r->size, metric(r, latency));
		}
		fprintf(f, "EOD\n");
	}
	fprintf(f, "plot ");
	for (int s = 0; s < n_ser; s++) {
		bool ferry = strcmp(ser[s].side, "ferry") == 0;
		int colour = 0;

		/* One colour per (case, depth), so Ferry's line (solid) and its peer's (dashed) pair up. */
		for (int t = 0; t < s; t++)
			if (strcmp(ser[t].side, "ferry") == 0 && strcmp(ser[t].kase, ser[s].kase) == 0 &&
			    ser[t].depth == ser[s].depth)
				colour = t + 1;
		if (colour == 0)
			colour = s + 1;
		fprintf(f, "%s$s%d using 1:2 with linespoints lw 2 pt 7 lc %d dt %d title '%s",
			s > 0 ? ", \\\n     " : "", s, colour, ferry ? 1 : 2, ferry ? "Ferry" : ser[s].side);
		if (n_kase > 1)
			fprintf(f, " %s", ser[s].kase);
		if (n_depth > 1)
			fprintf(f, " depth %llu", (unsigned long long)ser[s].depth);
		fprintf(f, "'");
	}
	fprintf(f, "\n");
	if (fclose(f) != 0) {
		fprintf(stderr, "ferry bench: cannot write the gnuplot script %s\n", script);
		unlink(script);
		return false;
	}
	{
		char *argv[] = {gnuplot, script, NULL};
		FILE *err = tmpfile();

		status = run_capture(argv, err != NULL ? fileno(err) : -1, &gp_out);
		free(gp_out);
		unlink(script);
		if (status != 0 || stat(outpath, &st) != 0 || st.st_size == 0) {
			char line[512];

			fprintf(stderr, "ferry bench: gnuplot did not write %s\n", outpath);
			if (err != NULL) {
				rewind(err);
				while (fgets(line, sizeof(line), err) != NULL)
					fprintf(stderr, "  gnuplot: %s", line);
			}
			if (err != NULL)
				fclose(err);
			return false;
		}
		if (err != NULL)
			fclose(err);
	}
	fprintf(stderr, "ferry bench: wrote %s\n", outpath);
	return true;
}

/* ---- the command ---- */

static void progress(bool on, unsigned done, unsigned total, const char *kind, uint64_t size, uint64_t depth)
{
	char bar[31], sz[24];
	unsigned fill = total > 0 ? done * 30 / total : 30;

	if (!on)
		return;
	for (unsigned i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[30] = '\0';
	if (done < total)
		fprintf(stderr, "\r[%s] %u/%u %s %s depth %llu \033[K", bar, done, total, kind,
			size_text(size, sz, sizeof(sz)), (unsigned long long)depth);
	else
		fprintf(stderr, "\r\033[K");
	fflush(stderr);
}

/* Show what a failed bench program wrote on stderr (the last 20 lines). */
static void show_stderr(FILE *err)
{
	char lines[20][512];
	unsigned n = 0;

	rewind(err);
	while (fgets(lines[n % 20], sizeof(lines[0]), err) != NULL)
		n++;
	for (unsigned i = n > 20 ? n - 20 : 0; i < n; i++)
		fprintf(stderr, "  | %s%s", lines[i % 20], strchr(lines[i % 20], '\n') != NULL ? "" : "\n");
}

int ferry_bench_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"sizes", required_argument, NULL, 's'},  {"depths", required_argument, NULL, 'd'},
		{"time", required_argument, NULL, 't'},   {"quick", no_argument, NULL, 'q'},
		{"json", required_argument, NULL, 'j'},   {"plot", required_argument, NULL, 'p'},
		{"format", required_argument, NULL, 'f'}, {"progress", required_argument, NULL, 'P'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
	};
	const char *sizes_arg = NULL, *depths_arg = NULL, *json_arg = NULL, *plot = NULL, *progress_arg = "auto";
	bool quick = false, want_png = true, want_svg = true, bar;
	double seconds = 0;
	uint64_t sizes[BENCH_MAX_POINTS], depths[BENCH_MAX_POINTS];
	unsigned n_sizes, n_depths, total, done = 0;
	char why[160], prog[4200], gnuplot[4200], sec_text[32];
	const struct kind *k = NULL;
	char *extra[MAX_EXTRA];
	int n_extra = 0, c, rc = FERRY_EXIT_OK;
	FILE *json_out = NULL, *table_out = stdout;
	struct rows rows = {0};

	/* Words after "--" are the bench program's; options and KIND come before, in any order. */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") != 0)
			continue;
		for (int e = i + 1; e < argc; e++) {
			if (n_extra == MAX_EXTRA)
				return ferry_usage_error("bench", "more than %d words after '--'", MAX_EXTRA);
			extra[n_extra++] = argv[e];
		}
		argc = i;
		break;
	}
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":s:d:t:qj:p:f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			sizes_arg = optarg;
			break;
		case 'd':
			depths_arg = optarg;
			break;
		case 't':
			if (!ferry_parse_seconds(optarg, &seconds) || seconds <= 0 || seconds > 3600)
				return ferry_usage_error("bench", "--time takes seconds in (0, 3600], not '%s'",
							 optarg);
			break;
		case 'q':
			quick = true;
			break;
		case 'j':
			json_arg = optarg;
			break;
		case 'p':
			plot = optarg;
			break;
		case 'f':
			want_png = want_svg = false;
			for (const char *p = optarg;;) {
				size_t n = strcspn(p, ",");

				if (n == 3 && strncmp(p, "png", 3) == 0)
					want_png = true;
				else if (n == 3 && strncmp(p, "svg", 3) == 0)
					want_svg = true;
				else
					return ferry_usage_error("bench", "--format: '%.*s' is not png or svg", (int)n,
								 p);
				if (p[n] == '\0')
					break;
				p += n + 1;
			}
			break;
		case 'P':
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "always") != 0 &&
			    strcmp(optarg, "never") != 0)
				return ferry_usage_error("bench", "--progress takes auto, always or never, not '%s'",
							 optarg);
			progress_arg = optarg;
			break;
		case 'h':
			print_help();
			return FERRY_EXIT_OK;
		default:
			return ferry_getopt_error("bench", c, argv);
		}
	}
	if (optind >= argc)
		return ferry_usage_error("bench", "missing KIND (dma, comch, fast, export or rdma)");
	for (size_t i = 0; i < N_KINDS; i++)
		if (strcmp(argv[optind], kinds[i].name) == 0)
			k = &kinds[i];
	if (k == NULL)
		return ferry_usage_error("bench", "no bench kind '%s' (dma, comch, fast, export or rdma)",
					 argv[optind]);
	if (optind + 1 < argc)
		return ferry_usage_error("bench",
					 "unexpected argument '%s' (one KIND; the bench program's own "
					 "options go after '--')",
					 argv[optind + 1]);
	if (!bench_parse_list(sizes_arg != NULL ? sizes_arg
			      : quick           ? k->quick_sizes
						: k->sizes,
			      true, 1, k->max_size, sizes, &n_sizes, why, sizeof(why)))
		return ferry_usage_error("bench", "--sizes: %s (%s: 1..%llu bytes)", why, k->name,
					 (unsigned long long)k->max_size);
	if (!bench_parse_list(depths_arg != NULL ? depths_arg
			      : quick            ? k->quick_depths
						 : k->depths,
			      false, 1, k->max_depth, depths, &n_depths, why, sizeof(why)))
		return ferry_usage_error("bench", "--depths: %s (%s: 1..%llu in flight)", why, k->name,
					 (unsigned long long)k->max_depth);
	if (seconds == 0)
		seconds = quick ? 0.05 : 0.2;
	if (plot != NULL) {
		char dir[4200];
		char *slash;

		if (plot[0] == '\0' || strpbrk(plot, "'\"\n\r\t\\") != NULL)
			return ferry_usage_error("bench", "--plot: the prefix must be a path without quotes, "
							  "backslashes or control characters");
		snprintf(dir, sizeof(dir), "%s", plot);
		slash = strrchr(dir, '/');
		if (slash == NULL)
			snprintf(dir, sizeof(dir), ".");
		else if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		if (access(dir, W_OK) != 0) {
			fprintf(stderr, "ferry bench: --plot: cannot write in %s: %s\n", dir, strerror(errno));
			return FERRY_EXIT_FAIL;
		}
		if (!find_on_path("gnuplot", gnuplot, sizeof(gnuplot))) {
			fprintf(stderr,
				"ferry bench: --plot needs gnuplot, which is not on PATH (Debian: apt-get install "
				"gnuplot-nox)\n");
			return FERRY_EXIT_FAIL;
		}
	}
	if (!find_bench(k->prog, prog, sizeof(prog))) {
		fprintf(stderr, "ferry bench: cannot find %s (looked in %s)\n", k->prog,
			getenv("FERRY_BENCH_DIR") != NULL && getenv("FERRY_BENCH_DIR")[0] != '\0'
				? "$FERRY_BENCH_DIR"
				: "../bench beside ferry and " FERRY_LIBEXECDIR "/ferry");
		return FERRY_EXIT_FAIL;
	}
	if (json_arg != NULL && strcmp(json_arg, "-") == 0) {
		json_out = stdout;
		table_out = stderr;
	} else if (json_arg != NULL && (json_out = fopen(json_arg, "w")) == NULL) {
		fprintf(stderr, "ferry bench: --json: cannot write %s: %s\n", json_arg, strerror(errno));
		return FERRY_EXIT_FAIL;
	}
	bar = strcmp(progress_arg, "always") == 0 || (strcmp(progress_arg, "auto") == 0 && isatty(STDERR_FILENO) == 1 &&
						      (getenv("TERM") == NULL || strcmp(getenv("TERM"), "dumb") != 0));
	snprintf(sec_text, sizeof(sec_text), "%g", seconds);

	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop_signal; /* no SA_RESTART: the reads and the wait see EINTR and go on */
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
	}
	total = n_sizes * n_depths;
	for (unsigned i = 0; i < n_sizes && rc == FERRY_EXIT_OK && stop_signal == 0; i++) {
		for (unsigned d = 0; d < n_depths && rc == FERRY_EXIT_OK && stop_signal == 0; d++) {
			char size_s[24], depth_s[24], *out = NULL, *line;
			char *pargv[10 + MAX_EXTRA];
			int pargc = 0, status;
			unsigned got = 0;
			FILE *err = tmpfile();

			snprintf(size_s, sizeof(size_s), "%llu", (unsigned long long)sizes[i]);
			snprintf(depth_s, sizeof(depth_s), "%llu", (unsigned long long)depths[d]);
			pargv[pargc++] = prog;
			pargv[pargc++] = "--json";
			pargv[pargc++] = "--sizes";
			pargv[pargc++] = size_s;
			pargv[pargc++] = "--depths";
			pargv[pargc++] = depth_s;
			pargv[pargc++] = "--seconds";
			pargv[pargc++] = sec_text;
			for (int e = 0; e < n_extra; e++)
				pargv[pargc++] = extra[e];
			pargv[pargc] = NULL;
			progress(bar, done, total, k->name, sizes[i], depths[d]);
			status = run_capture(pargv, err != NULL ? fileno(err) : -1, &out);
			if (status < 0) {
				progress(bar, total, total, k->name, 0, 0);
				fprintf(stderr, "ferry bench: cannot run %s: %s\n", prog, strerror(errno));
				rc = FERRY_EXIT_INTERNAL;
			}
			for (line = out; rc == FERRY_EXIT_OK && line != NULL && *line != '\0';) {
				char *nl = strchr(line, '\n');
				struct row r;

				if (nl != NULL)
					*nl = '\0';
				if (parse_row(line, k->name, &r)) {
					if (!rows_add(&rows, &r)) {
						rc = FERRY_EXIT_INTERNAL;
						break;
					}
					got += strcmp(r.side, "ferry") == 0;
					if (json_out != NULL)
						fprintf(json_out, "%s\n", line);
				}
				line = nl != NULL ? nl + 1 : NULL;
			}
			free(out);
			if (json_out != NULL)
				fflush(json_out); /* a point's rows are there as soon as it is measured */
			if (stop_signal != 0) {
				if (err != NULL)
					fclose(err);
				break;
			}
			if (rc == FERRY_EXIT_OK && (status != 0 || got == 0)) {
				progress(bar, total, total, k->name, 0, 0);
				if (WIFSIGNALED(status))
					fprintf(stderr, "ferry bench: %s was killed by signal %d at size %s depth %s\n",
						k->prog, WTERMSIG(status), size_s, depth_s);
				else if (status != 0)
					fprintf(stderr, "ferry bench: %s exited with status %d at size %s depth %s\n",
						k->prog, WEXITSTATUS(status), size_s, depth_s);
				else
					fprintf(stderr, "ferry bench: %s printed no row of Ferry at size %s depth %s\n",
						k->prog, size_s, depth_s);
				fprintf(stderr, "  command:");
				for (int a = 0; a < pargc; a++)
					fprintf(stderr, " %s", pargv[a]);
				fprintf(stderr, "\n");
				if (err != NULL)
					show_stderr(err);
				rc = FERRY_EXIT_FAIL;
			}
			if (err != NULL)
				fclose(err);
			done++;
		}
	}
	progress(bar, total, total, k->name, 0, 0);
	if (stop_signal != 0) {
		fprintf(stderr, "ferry bench: stopped by signal %d after %u of %u points\n", (int)stop_signal, done,
			total);
		rc = 128 + stop_signal;
	}
	if (rows.n > 0) {
		print_table(table_out, k, &rows, seconds);
		fflush(table_out); /* before the plots' lines on stderr */
	}
	if (json_out != NULL && json_out != stdout && fclose(json_out) != 0 && rc == FERRY_EXIT_OK) {
		fprintf(stderr, "ferry bench: --json: cannot write %s\n", json_arg);
		rc = FERRY_EXIT_FAIL;
	}
	if (rc == FERRY_EXIT_OK &&
	    plot != NULL) { /* not after a failure or a signal: a plot of part of a sweep misleads */
		int n_kase = 0, n_depth = (int)n_depths;
		char seen[8][32];

		for (size_t i = 0; i < rows.n; i++) {
			bool dup = false;

			for (int s = 0; s < n_kase && !dup; s++)
				dup = strcmp(seen[s], rows.v[i].kase) == 0;
			if (!dup && n_kase < 8)
				snprintf(seen[n_kase++], sizeof(seen[0]), "%s", rows.v[i].kase);
		}
		for (int latency = 0; latency < 2 && rc == FERRY_EXIT_OK; latency++) {
			if (want_png && !plot_one(k, &rows, plot, "png", latency, n_kase, n_depth, gnuplot))
				rc = FERRY_EXIT_FAIL;
			if (want_svg && rc == FERRY_EXIT_OK &&
			    !plot_one(k, &rows, plot, "svg", latency, n_kase, n_depth, gnuplot))
				rc = FERRY_EXIT_FAIL;
		}
	}
	if (fflush(stdout) != 0 && rc == FERRY_EXIT_OK)
		rc = FERRY_EXIT_FAIL;
	free(rows.v);
	return rc;
}
