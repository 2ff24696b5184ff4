/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fast_chaos.c - the kill/stop matrix of the Comch fast path: many short
 * rounds, each a DPU-side server and a host-side client (fast_peer --chaos, one
 * a producer, the other a consumer), and in each round, at a seeded random
 * point (the handshake, the consumer's announcement and import, mid-stream, the
 * consumer's stop) one side is SIGKILLed, or SIGSTOPped for 1..200 ms and
 * continued, or (a few rounds, as a control) left alone. The other parameters
 * are drawn too: direction, consumer memory (malloc: cross-memory attach;
 * shared), the producer on the connection's PE or on a PE of its own that is
 * progressed alone while sends are in flight, sends in flight, message count
 * and size, and whether the consumer stops at a random moment while the
 * producer goes on sending.
 *
 * The intended behaviour, checked per round:
 *  - every process not SIGKILLed exits before the deadline, with a code
 *    fast_peer documents for what happened (0 clean; 3 the connection or the
 *    peer failed; 6 a send failed because its consumer left); never a hang
 *    (the deadline, or the peer's own time limit: 5), a crash signal, a data
 *    mismatch (4) or a late write (7: a byte of a buffer whose post-receive
 *    had failed changed afterwards);
 *  - when no process was killed, both exit 0, except the sender (6) when the
 *    consumer stopped at random; every successful send landed in a buffer the
 *    consumer received or had flushed; and every flushed buffer still holds its
 *    canary (a post a producer took completes through the ring, so a flushed
 *    one was never written; a producer killed mid-copy may leave bytes, hence
 *    only the late-write check when a process was killed);
 *  - each process that exits on its own holds as many fds and mappings at
 *    its end as at its start (fast_peer's baseline and final lines).
 *
 * Knobs: FERRY_CHAOS_ROUNDS (default 200), FERRY_CHAOS_SEED (default random;
 * printed), FERRY_CHAOS_ONLY (run only that round of the seed: a replay),
 * FERRY_CHAOS_DEADLINE_MS (per round, default 10000), FERRY_CHAOS_MAX_FAILURES
 * (stop after that many failed rounds, default 5; 0: never), FERRY_CHAOS_VERBOSE
 * (print every round). Each round has its own FERRY_DOMAIN in a private
 * XDG_RUNTIME_DIR, removed at the end. The harness is procs_util.h.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <sys/random.h>

#define PROCS_PEER_ENV "FAST_PEER"
#define PROCS_TAG      "comch-chaos"
#include "procs_util.h"

enum phase { PH_HANDSHAKE, PH_ANNOUNCE, PH_STREAM, PH_STOP, PH_COUNT };
enum action { ACT_KILL, ACT_STOP, ACT_NONE };

static const char *const phase_names[] = {"handshake", "announce", "stream", "consumer-stop"};
static const char *const action_names[] = {"SIGKILL", "SIGSTOP", "none"};

/* Failure kinds; a round may have several. */
enum {
	F_HANG,     /* past the deadline, or the peer's own time limit (5) */
	F_CRASH,    /* a signal we did not send */
	F_MISMATCH, /* exit 4 */
	F_LATE,     /* exit 7, or late writes reported */
	F_EXIT,     /* an exit code the round does not allow */
	F_LEAK,     /* fds or mappings at the end differ from the start, or no report */
	F_LOST,     /* more successful sends than buffers the consumer received or flushed */
	F_DIRTY,    /* a flushed buffer held data at its flush, yet no process died */
	F_SETUP,    /* the server did not come up: no round at all */
	F_KINDS
};

static const char *const kind_names[] = {"hang",        "crash",        "data-mismatch", "late-write", "exit-code",
					 "fd/map-leak", "lost-success", "flushed-dirty", "setup"};

struct round {
	unsigned index;
	uint64_t seed;
	bool producer_on_server, shared, own_pe, stop_random, victim_sender;
	unsigned inflight, n, max, delay_us, stop_ms;
	enum phase phase;
	enum action action;
};

struct knobs {
	uint64_t seed;
	unsigned rounds, max_failures;
	long only;
	int deadline_ms;
	bool verbose;
};

static char g_xdg[64];

/* What the rounds did, beyond pass or fail: whether the matrix reaches its corners. */
static struct {
	unsigned no_marker;    /* the phase's marker never came: struck at the end instead */
	unsigned flushed;      /* rounds with flushed post-receives */
	unsigned dirty_alive;  /* ... a flushed buffer held data at its flush, nobody killed */
	unsigned dirty_killed; /* ... the same, a process killed (mid-copy, say) */
} g_stats;

/* ---- drawing a round ---- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A uniform draw in [0, n) from the round's generator. */
static unsigned draw(uint64_t *state, unsigned n)
{
	*state = mix64(*state);
	return (unsigned)(*state % n);
}

static void round_sizes(struct round *r, uint64_t *s)
{
	static const unsigned sizes[] = {1, 64, 4096, 65536, 1u << 20};

	r->max = sizes[draw(s, 5)];
	/* Few messages, short rounds: small ones by hundreds, large ones by the dozen. */
	r->n = 1 + draw(s, r->max <= 4096 ? 400 : r->max <= 65536 ? 64 : 16);
}

/* The wait after the phase's marker: the marker comes a little before the interesting part. */
static unsigned round_delay(enum phase phase, uint64_t *s)
{
	static const unsigned max_us[] = {2000, 1000, 3000, 300};

	return draw(s, max_us[phase] + 1);
}

static void round_draw(struct round *r, uint64_t master, unsigned index)
{
	uint64_t s = mix64(master + index);

	r->index = index;
	r->seed = s;
	r->producer_on_server = draw(&s, 2);
	r->shared = draw(&s, 2);
	r->own_pe = draw(&s, 2);
	r->inflight = 1 + draw(&s, 4);
	round_sizes(r, &s);
	r->phase = (enum phase)draw(&s, PH_COUNT);
	r->stop_random = r->phase == PH_STOP || draw(&s, 2);
	r->action = draw(&s, 10) == 0 ? ACT_NONE : (enum action)draw(&s, 2);
	r->victim_sender = draw(&s, 2);
	r->delay_us = round_delay(r->phase, &s);
	r->stop_ms = 1 + draw(&s, 200);
}

static void round_print(const struct round *r, FILE *f)
{
	fprintf(f,
		"round %u: seed 0x%016" PRIx64
		", producer on the %s, consumer memory %s, producer PE %s, %u in flight, "
		"%u messages of up to %u bytes, consumer stop %s; at %s + %u us: %s the %s",
		r->index, r->seed, r->producer_on_server ? "server" : "client", r->shared ? "shared" : "malloc",
		r->own_pe ? "own" : "conn", r->inflight, r->n, r->max, r->stop_random ? "at random" : "after the last",
		phase_names[r->phase], r->delay_us, action_names[r->action], r->victim_sender ? "sender" : "receiver");
	if (r->action == ACT_STOP)
		fprintf(f, " for %u ms", r->stop_ms);
	fputc('\n', f);
}

/* ---- one round ---- */

struct argv_buf {
	char n[16], max[16], seed[24], inflight[4];
	const char *v[16];
};

/* fast_peer's arguments for the sending or the receiving side (procs_util passes at most 14). */
static void round_args(const struct round *r, bool sender, struct argv_buf *a)
{
	bool on_server = sender == r->producer_on_server;
	int k = 0;

	snprintf(a->n, sizeof(a->n), "%u", r->n);
	snprintf(a->max, sizeof(a->max), "%u", r->max);
	snprintf(a->seed, sizeof(a->seed), "%" PRIu64, r->seed);
	snprintf(a->inflight, sizeof(a->inflight), "%u", r->inflight);
	a->v[k++] = on_server ? "server" : "client";
	a->v[k++] = "chaos";
	a->v[k++] = sender ? "send" : "recv";
	a->v[k++] = a->n;
	a->v[k++] = "--max";
	a->v[k++] = a->max;
	a->v[k++] = "--seed";
	a->v[k++] = a->seed;
	a->v[k++] = "--chaos";
	if (sender) {
		a->v[k++] = "--inflight";
		a->v[k++] = a->inflight;
		a->v[k++] = "--producer-pe";
		a->v[k++] = r->own_pe ? "own" : "conn";
	} else {
		if (r->shared)
			a->v[k++] = "--shared";
		if (r->stop_random)
			a->v[k++] = "--stop-at-random";
	}
	a->v[k] = NULL;
}

struct side {
	struct child c;
	bool sender, killed;
	int code;
};

/* Which process prints the phase's marker, and the marker. */
static struct side *marker_of(const struct round *r, struct side *srv, struct side *cli, const char **word)
{
	struct side *sender = srv->sender ? srv : cli, *receiver = srv->sender ? cli : srv;

	switch (r->phase) {
	case PH_HANDSHAKE:
		*word = "starting";
		return cli;
	case PH_ANNOUNCE:
		*word = "consumer-start";
		return receiver;
	case PH_STREAM:
		*word = "new-consumer";
		return sender;
	default:
		*word = "stopping";
		return receiver;
	}
}

static void spin_us(unsigned us)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < (long)us);
}

static void strike(const struct round *r, struct side *victim)
{
	if (r->action == ACT_KILL) {
		kill(victim->c.pid, SIGKILL);
		victim->killed = true;
	} else if (r->action == ACT_STOP) {
		kill(victim->c.pid, SIGSTOP);
		usleep(r->stop_ms * 1000u);
		kill(victim->c.pid, SIGCONT);
	}
}

/* Start both sides, strike at the phase's marker, wait for both: false when the server never came up. */
static bool round_play(const struct round *r, const struct knobs *k, struct side *srv, struct side *cli)
{
	char limit[16];
	const char *env[] = {
		"XDG_RUNTIME_DIR", g_xdg, "FERRY_TEST_LIMIT_S", limit, "FERRY_COMCH_CONNECT_TIMEOUT_MS", "1500", NULL};
	struct argv_buf sa, ca;
	struct side *m;
	const char *word = NULL;
	long end;

	/* The peer's own limit ends a hang a little before the deadline, with a code that says so (5). */
	snprintf(limit, sizeof(limit), "%d", k->deadline_ms > 2000 ? k->deadline_ms / 1000 - 1 : 1);
	srv->sender = r->producer_on_server;
	cli->sender = !r->producer_on_server;
	round_args(r, srv->sender, &sa);
	round_args(r, cli->sender, &ca);
	new_domain();
	end = now_ms() + k->deadline_ms;
	spawn(&srv->c, sa.v, env);
	if (!wait_output(&srv->c, "listening", k->deadline_ms)) {
		srv->code = wait_exit(&srv->c, 0);
		return false;
	}
	spawn(&cli->c, ca.v, env);
	m = marker_of(r, srv, cli, &word);
	if (!wait_output(&m->c, word, (int)(end - now_ms())))
		g_stats.no_marker++; /* the round went another way: strike anyway */
	spin_us(r->delay_us);
	strike(r, r->victim_sender == srv->sender ? srv : cli);
	srv->code = wait_exit(&srv->c, (int)(end - now_ms() > 0 ? end - now_ms() : 0));
	cli->code = wait_exit(&cli->c, (int)(end - now_ms() > 0 ? end - now_ms() : 0));
	return true;
}

/* ---- the verdict ---- */

/* The line of @p c's stdout that starts with @p word, or NULL. */
static const char *seen_line(const struct child *c, const char *word)
{
	return strstr(c->seen, word);
}

/* "<when> fds F maps M" */
static bool seen_counts(const struct child *c, const char *when, unsigned *fds, unsigned *maps)
{
	const char *p = seen_line(c, when);

	return p != NULL && sscanf(p + strlen(when), " fds %u maps %u", fds, maps) == 2;
}

/* The codes a side may exit with in this round. */
static bool code_allowed(const struct round *r, const struct side *s, bool someone_killed)
{
	if (s->killed && s->code == 128 + SIGKILL)
		return true;
	if (someone_killed)
		return s->code == 0 || s->code == 3 || (s->sender && s->code == 6);
	return s->code == 0 || (s->sender && r->stop_random && s->code == 6);
}

static unsigned judge_side(const struct round *r, const struct side *s, bool someone_killed, char *why, size_t room)
{
	unsigned kinds = 0;
	const char *role = s->sender ? "sender" : "receiver";
	size_t used = strlen(why);

	if (s->code == -1 || s->code == 5)
		kinds |= 1u << F_HANG;
	else if (s->code > 128 && !(s->killed && s->code == 128 + SIGKILL))
		kinds |= 1u << F_CRASH;
	else if (s->code == 4)
		kinds |= 1u << F_MISMATCH;
	else if (s->code == 7)
		kinds |= 1u << F_LATE;
	else if (!code_allowed(r, s, someone_killed))
		kinds |= 1u << F_EXIT;
	if (kinds != 0)
		snprintf(why + used, room - used, "%s exited %d%s; ", role, s->code,
			 s->code == -1   ? " (killed at the deadline)"
			 : s->code > 128 ? " (signal)"
					 : "");
	return kinds;
}

/* A process that ended on its own must hold what it held at its start. */
static unsigned judge_leak(const struct side *s, char *why, size_t room)
{
	unsigned bf = 0, bm = 0, ff = 0, fm = 0;
	size_t used = strlen(why);

	if (s->code < 0 || s->code == 5 || s->code > 128)
		return 0;
	if (!seen_counts(&s->c, "baseline", &bf, &bm) || !seen_counts(&s->c, "final", &ff, &fm)) {
		if (s->code == 2)
			return 0; /* failed before its baseline (judged by its code) */
		snprintf(why + used, room - used, "%s printed no fd/map report; ", s->sender ? "sender" : "receiver");
		return 1u << F_LEAK;
	}
	if (bf == ff && bm == fm)
		return 0;
	snprintf(why + used, room - used, "%s: fds %u -> %u, maps %u -> %u; ", s->sender ? "sender" : "receiver", bf,
		 ff, bm, fm);
	return 1u << F_LEAK;
}

/* Late writes the receiver saw, and successful sends that went nowhere the consumer knows of. */
static unsigned judge_counts(const struct side *snd, const struct side *rcv, char *why, size_t room)
{
	unsigned ok = 0, failed = 0, received = 0, flushed = 0, dirty = 0, late = 0, kinds = 0;
	size_t used = strlen(why);
	const char *rl = seen_line(&rcv->c, "recv-summary"), *sl = seen_line(&snd->c, "send-summary");
	bool have_r = rl != NULL && sscanf(rl, "recv-summary received %u flushed %u dirty %u late %u", &received,
					   &flushed, &dirty, &late) == 4;

	g_stats.flushed += have_r && flushed != 0;
	if (have_r && dirty != 0)
		*(snd->killed || rcv->killed ? &g_stats.dirty_killed : &g_stats.dirty_alive) += 1;
	if (have_r && dirty != 0 && !snd->killed && !rcv->killed) {
		snprintf(why + used, room - used, "receiver: %u flushed buffers held data at their flush; ", dirty);
		kinds |= 1u << F_DIRTY;
		used = strlen(why);
	}
	if (have_r && late != 0) {
		snprintf(why + used, room - used, "receiver: %u flushed buffers written after their failure; ", late);
		kinds |= 1u << F_LATE;
		used = strlen(why);
	}
	if (have_r && !snd->killed && !rcv->killed && sl != NULL &&
	    sscanf(sl, "send-summary ok %u failed %u", &ok, &failed) == 2 && ok > received + flushed) {
		snprintf(why + used, room - used, "%u sends succeeded, the consumer received %u and flushed %u; ", ok,
			 received, flushed);
		kinds |= 1u << F_LOST;
	}
	return kinds;
}

static unsigned judge(const struct round *r, const struct side *srv, const struct side *cli, char *why, size_t room)
{
	const struct side *snd = srv->sender ? srv : cli, *rcv = srv->sender ? cli : srv;
	bool killed = srv->killed || cli->killed;
	unsigned kinds = 0;

	why[0] = '\0';
	kinds |= judge_side(r, snd, killed, why, room);
	kinds |= judge_side(r, rcv, killed, why, room);
	kinds |= judge_leak(snd, why, room);
	kinds |= judge_leak(rcv, why, room);
	kinds |= judge_counts(snd, rcv, why, room);
	return kinds;
}

/* ---- reporting and cleaning ---- */

static void print_stderr(const struct side *s)
{
	char buf[1536];
	FILE *f = fopen(s->c.err_path, "r");
	size_t n;

	if (f == NULL)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	fprintf(stderr, "  %s's stdout:\n%s  %s's stderr:\n%s\n", s->sender ? "sender" : "receiver", s->c.seen,
		s->sender ? "sender" : "receiver", buf);
}

static void print_replay(const struct round *r, const struct knobs *k)
{
	struct argv_buf a;

	fprintf(stderr, "  replay: FERRY_CHAOS_SEED=0x%016" PRIx64 " FERRY_CHAOS_ONLY=%u\n  sender:  ", k->seed,
		r->index);
	round_args(r, true, &a);
	for (int i = 0; a.v[i] != NULL; i++)
		fprintf(stderr, "%s ", a.v[i]);
	fprintf(stderr, "\n  receiver: ");
	round_args(r, false, &a);
	for (int i = 0; a.v[i] != NULL; i++)
		fprintf(stderr, "%s ", a.v[i]);
	fputc('\n', stderr);
}

/* Remove a directory's files, then the directory (a killed server leaves its socket and lock). */
static void remove_dir(const char *path)
{
	DIR *d = opendir(path);
	char file[512];

	if (d != NULL) {
		for (struct dirent *e; (e = readdir(d)) != NULL;)
			if (e->d_name[0] != '.' &&
			    snprintf(file, sizeof(file), "%s/%s", path, e->d_name) < (int)sizeof(file))
				unlink(file);
		closedir(d);
	}
	rmdir(path);
}

static void remove_domain(void)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/ferry/%s", g_xdg, g_domain);
	remove_dir(dir);
}

/* ---- the matrix ---- */

static unsigned long env_num(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? strtoull(v, NULL, 0) : dflt;
}

static void knobs_read(struct knobs *k)
{
	uint64_t seed = 0;

	if (getenv("FERRY_CHAOS_SEED") != NULL)
		seed = env_num("FERRY_CHAOS_SEED", 0);
	else if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	k->seed = seed;
	k->rounds = (unsigned)env_num("FERRY_CHAOS_ROUNDS", 200);
	k->only = getenv("FERRY_CHAOS_ONLY") != NULL ? (long)env_num("FERRY_CHAOS_ONLY", 0) : -1;
	k->deadline_ms = (int)env_num("FERRY_CHAOS_DEADLINE_MS", 10000);
	k->max_failures = (unsigned)env_num("FERRY_CHAOS_MAX_FAILURES", 5);
	k->verbose = getenv("FERRY_CHAOS_VERBOSE") != NULL;
}

/* One round, judged; the failure kinds (0: passed). */
static unsigned round_run(const struct round *r, const struct knobs *k)
{
	struct side srv = {.code = 0}, cli = {.code = 0};
	char why[1024];
	unsigned kinds;

	if (!round_play(r, k, &srv, &cli)) {
		kinds = 1u << F_SETUP;
		snprintf(why, sizeof(why), "the server did not start listening (exit %d); ", srv.code);
	} else {
		kinds = judge(r, &srv, &cli, why, sizeof(why));
	}
	if (kinds != 0 || k->verbose) {
		round_print(r, stderr);
		fprintf(stderr, "  server exit %d, client exit %d%s%s\n", srv.code, cli.code, kinds ? ": FAILED: " : "",
			why);
	}
	if (kinds != 0) {
		print_stderr(&srv);
		if (!(kinds & (1u << F_SETUP)))
			print_stderr(&cli);
		print_replay(r, k);
	}
	forget(&srv.c);
	if (!(kinds & (1u << F_SETUP)))
		forget(&cli.c);
	remove_domain();
	return kinds;
}

static void test_kill_stop_matrix(void **state)
{
	struct knobs k;
	unsigned by_kind[F_KINDS] = {0}, failed = 0, played = 0;
	long t0 = now_ms();
	char base[96];

	(void)state;
	knobs_read(&k);
	snprintf(g_xdg, sizeof(g_xdg), "/tmp/comch-chaos-%d-XXXXXX", (int)getpid());
	assert_non_null(mkdtemp(g_xdg));
	printf("kill/stop matrix: FERRY_CHAOS_SEED=0x%016" PRIx64 ", %u rounds, deadline %d ms\n", k.seed, k.rounds,
	       k.deadline_ms);
	fflush(stdout);
	for (unsigned i = 0; i < k.rounds && (k.max_failures == 0 || failed < k.max_failures); i++) {
		struct round r;
		unsigned kinds;

		if (k.only >= 0 && (long)i != k.only)
			continue;
		round_draw(&r, k.seed, i);
		kinds = round_run(&r, &k);
		played++;
		failed += kinds != 0;
		for (int f = 0; f < F_KINDS; f++)
			by_kind[f] += (kinds >> f) & 1u;
	}
	printf("%u rounds in %.1f s, %u failed", played, (double)(now_ms() - t0) / 1000.0, failed);
	for (int f = 0; f < F_KINDS; f++)
		if (by_kind[f] != 0)
			printf(", %s %u", kind_names[f], by_kind[f]);
	printf("\nrounds with flushed post-receives %u, of which with a buffer written before its flush: %u "
	       "(nobody killed), %u (a process killed); phase marker missed %u\n",
	       g_stats.flushed, g_stats.dirty_alive, g_stats.dirty_killed, g_stats.no_marker);
	snprintf(base, sizeof(base), "%s/ferry", g_xdg);
	rmdir(base);
	rmdir(g_xdg);
	assert_int_equal(failed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_stop_matrix),
	};

	(void)stderr_has; /* procs_util's, not needed here */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
