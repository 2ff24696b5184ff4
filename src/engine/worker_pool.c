/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * worker_pool.c - the process-wide pool of copy workers behind the worker and
 * auto engines: threads, their sleeps and wake-ups, the registry of channels
 * and the hazard pointers that let a channel be closed under the workers.
 *
 * What the workers do inside a channel is engine_worker.c's business: the pool
 * calls a registered member's serve function (pool_priv.h) and acts on what it
 * reports.
 *
 * Threads
 *   FERRY_ENGINE_WORKERS of them (default min(2, ncpu)), configured at the first
 *   worker channel open and started at the first push of work (ferry_pool_start),
 *   shared by all channels, stopped when the library is unloaded. A worker passes
 *   over every registered member. While work keeps coming it spins (yielding its
 *   CPU now and then); after SPIN_PASSES passes without copy work it dozes on a
 *   futex for DOZE_NS at a time, and after QUIET_DOZES dozes that saw no item at
 *   all it sleeps until woken. ferry_pool_wake wakes a sleeping worker always and
 *   a dozing one only when asked to (urgent): the engine spares a system call per
 *   doorbell of small copies, which the polling application copies itself or the
 *   worker finds at the end of its doze.
 *
 * Registry
 *   An array of member pointers under a mutex for writers; workers read it with
 *   no lock up to a high-water mark. A worker touches a member only while its
 *   hazard pointer names it; ferry_pool_unregister clears the slot and waits for
 *   every hazard to move on, so no worker uses a freed channel and every copy in
 *   progress in it has ended when close returns.
 *
 * Barriers (engine_worker.c has B1-B3, those of the channels):
 *   B4 RMWs on a worker's `sleeping` word (worker_sleep's exchange / wake_worker's
 *      exchange or fetch_or 0): no lost wake-up.
 *   B5 seq_cst hazard pointer against seq_cst unregister (worker_pass /
 *      ferry_pool_unregister), and against the pause flag (ferry_worker_pause).
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/ferry_alloc.h"
#include "common/ferry_env.h"
#include "common/ferry_log.h"
#include "engine/engine_priv.h"
#include "engine/pool_priv.h"

FERRY_LOG_MODULE("engine");

/* Passes without copy work a worker spins through before it dozes (~hundreds of microseconds). */
#define SPIN_PASSES   4096u
/* A worker that found nothing to copy for SPIN_PASSES dozes this long (then looks again). */
#define DOZE_NS       500000L
/* Dozes in a row that saw no item at all before a worker sleeps until woken. */
#define QUIET_DOZES   8u
/* Values of a worker's `sleeping` word. */
#define WORKER_AWAKE  0u
#define WORKER_DOZING 1u
#define WORKER_ASLEEP 2u
/* An idle worker yields its CPU every this many empty passes. */
#define YIELD_EVERY   16u

#define CACHE_LINE 64

struct worker {
	_Alignas(CACHE_LINE) _Atomic(struct ferry_pool_member *) hazard;
	_Alignas(CACHE_LINE) _Atomic uint32_t sleeping;
	pthread_t thread;
	uint32_t id;
};

static struct {
	pthread_once_t config_once;
	pthread_once_t start_once;
	pthread_mutex_t reg_mu;
	unsigned int nworkers;
	struct worker *workers;
	_Atomic bool running;
	_Atomic bool stop;
	_Atomic bool paused; /* tests: workers take no work (ferry_worker_pause) */
	_Atomic uint32_t reg_hwm;
	_Atomic(struct ferry_pool_member *) reg[FERRY_POOL_MEMBERS_MAX];
} pool = {
	.config_once = PTHREAD_ONCE_INIT,
	.start_once = PTHREAD_ONCE_INIT,
	.reg_mu = PTHREAD_MUTEX_INITIALIZER,
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void futex_wait_u32(_Atomic uint32_t *addr, uint32_t expected, const struct timespec *timeout)
{
	syscall(SYS_futex, (void *)(uintptr_t)addr, FUTEX_WAIT_PRIVATE, expected, timeout, NULL, 0);
}

static void futex_wake_u32(_Atomic uint32_t *addr)
{
	syscall(SYS_futex, (void *)(uintptr_t)addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* ---- configuration ------------------------------------------------------------------ */

static unsigned int workers_from_env(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	return (unsigned int)ferry_env_u64("FERRY_ENGINE_WORKERS", 1, FERRY_POOL_WORKERS_MAX, ncpu >= 2 ? 2 : 1);
}

/* Once per process. Without memory for the workers the pool has none: the application thread copies. */
static void pool_configure(void)
{
	unsigned int i, n = workers_from_env();

	pool.workers = ferry_aligned_alloc(CACHE_LINE, sizeof(*pool.workers) * n);
	if (pool.workers == NULL) {
		FERRY_ERR("engine: no memory for %u copy workers; the application thread copies instead", n);
		return;
	}
	memset(pool.workers, 0, sizeof(*pool.workers) * n);
	for (i = 0; i < n; i++)
		pool.workers[i].id = i;
	pool.nworkers = n;
}

unsigned int ferry_worker_count(void)
{
	pthread_once(&pool.config_once, pool_configure);
	return pool.nworkers;
}

/* ---- worker threads ------------------------------------------------------------------ */

/* One pass over every registered member. */
static enum ferry_pool_pass worker_pass(struct worker *wk)
{
	/* acquire pairs with the release in register: slots below hwm are initialised. */
	uint32_t hwm = atomic_load_explicit(&pool.reg_hwm, memory_order_acquire);
	enum ferry_pool_pass res = FERRY_POOL_IDLE;
	uint32_t i;

	for (i = 0; i < hwm; i++) {
		struct ferry_pool_member *m = atomic_load_explicit(&pool.reg[i], memory_order_acquire);

		if (m == NULL)
			continue;
		/*
		 * Hazard pointer (B5): announce m (seq_cst), then check it is still registered
		 * (seq_cst). Unregister clears reg[i] (seq_cst) then waits for our hazard: in
		 * the single total order either we see NULL here or unregister sees our hazard.
		 */
		atomic_store_explicit(&wk->hazard, m, memory_order_seq_cst);
		/* paused: the same total order lets ferry_worker_pause wait us out. */
		if (atomic_load_explicit(&pool.reg[i], memory_order_seq_cst) == m &&
		    !atomic_load_explicit(&pool.paused, memory_order_seq_cst)) {
			enum ferry_pool_pass r = m->serve(m, wk->id);

			if (r > res)
				res = r;
		}
		/* release: everything we did to m happens before unregister sees the hazard gone. */
		atomic_store_explicit(&wk->hazard, NULL, memory_order_release);
	}
	return res;
}

/*
 * Sleep in @p state (WORKER_DOZING: at most DOZE_NS; WORKER_ASLEEP: until woken).
 * Returns the result of the last look at the members before sleeping.
 */
static enum ferry_pool_pass worker_sleep(struct worker *wk, uint32_t state)
{
	static const struct timespec doze = {.tv_sec = 0, .tv_nsec = DOZE_NS};
	enum ferry_pool_pass res;

	/*
	 * B4: an RMW, not a store, pairs with the RMW in wake_worker: the two RMWs on
	 * `sleeping` are ordered. If the producer's comes first, ours synchronises
	 * with it and the pass below sees the items it pushed; if ours comes first,
	 * the producer reads our state and wakes us when it must. (No fences: TSan
	 * can't see them.)
	 */
	atomic_exchange_explicit(&wk->sleeping, state, memory_order_acq_rel);
	res = worker_pass(wk);
	if (res <= FERRY_POOL_STALE && !atomic_load_explicit(&pool.stop, memory_order_relaxed))
		/* Returns at once if a waker changed the word; a doze also ends by itself. */
		futex_wait_u32(&wk->sleeping, state, state == WORKER_DOZING ? &doze : NULL);
	atomic_store_explicit(&wk->sleeping, WORKER_AWAKE, memory_order_relaxed);
	return res;
}

/*
 * Spin while work keeps coming; when it stops (or every item was already taken
 * by a helping poll, so staying awake only competes for the CPU), doze; when
 * several dozes in a row saw no item at all, sleep until woken.
 */
static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	unsigned int idle = 0, quiet_dozes = 0;

	while (!atomic_load_explicit(&pool.stop, memory_order_acquire)) {
		enum ferry_pool_pass res = worker_pass(wk);

		if (res >= FERRY_POOL_WAITING) {
			idle = 0;
			quiet_dozes = 0;
			if (res == FERRY_POOL_WAITING)
				cpu_relax();
			continue;
		}
		if (res == FERRY_POOL_STALE)
			quiet_dozes = 0;
		if (++idle < SPIN_PASSES) {
			/*
			 * Spin, but give the CPU away now and then: on a machine with fewer
			 * cores than busy threads the application may be waiting for this
			 * very CPU, and a worker spinning against it copies nothing.
			 */
			if (idle % YIELD_EVERY == 0)
				sched_yield();
			else
				cpu_relax();
			continue;
		}
		idle = 0;
		res = worker_sleep(wk, quiet_dozes < QUIET_DOZES ? WORKER_DOZING : WORKER_ASLEEP);
		quiet_dozes = res == FERRY_POOL_IDLE ? quiet_dozes + 1 : 0;
	}
	return NULL;
}

/*
 * Call after publishing work (or stop), see B4 in worker_sleep. @p urgent: wake
 * a dozing worker too; otherwise only a worker asleep for good is woken (a
 * dozing one looks again within DOZE_NS, and the application helps meanwhile),
 * which spares a system call per doorbell for small units.
 */
static void wake_worker(struct worker *wk, bool urgent)
{
	uint32_t old;

	if (urgent) {
		old = atomic_exchange_explicit(&wk->sleeping, WORKER_AWAKE, memory_order_acq_rel);
		if (old != WORKER_AWAKE)
			futex_wake_u32(&wk->sleeping);
		return;
	}
	/* An RMW that leaves the word alone: a dozing worker keeps dozing. */
	old = atomic_fetch_or_explicit(&wk->sleeping, 0, memory_order_acq_rel);
	if (old == WORKER_ASLEEP) {
		atomic_exchange_explicit(&wk->sleeping, WORKER_AWAKE, memory_order_acq_rel);
		futex_wake_u32(&wk->sleeping);
	}
}

void ferry_pool_wake(uint64_t workers, uint64_t urgent)
{
	unsigned int i;

	for (i = 0; i < pool.nworkers; i++) {
		uint64_t bit = UINT64_C(1) << i;

		if (workers & bit)
			wake_worker(&pool.workers[i], (urgent & bit) != 0);
	}
}

static void pool_start(void)
{
	unsigned int i, started = 0;

	for (i = 0; i < pool.nworkers; i++) {
		if (pthread_create(&pool.workers[i].thread, NULL, worker_main, &pool.workers[i]) != 0)
			break;
		started++;
	}
	if (started < pool.nworkers) {
		FERRY_ERR("engine: started %u of %u copy workers; the application thread copies instead", started,
			  pool.nworkers);
		atomic_store_explicit(&pool.stop, true, memory_order_release);
		for (i = 0; i < started; i++) {
			wake_worker(&pool.workers[i], true);
			pthread_join(pool.workers[i].thread, NULL);
		}
		return;
	}
	if (pool.nworkers != 0)
		atomic_store_explicit(&pool.running, true, memory_order_release);
}

bool ferry_pool_start(void)
{
	pthread_once(&pool.config_once, pool_configure);
	pthread_once(&pool.start_once, pool_start);
	return atomic_load_explicit(&pool.running, memory_order_acquire);
}

void ferry_worker_pause(bool paused)
{
	unsigned int i;

	pthread_once(&pool.config_once, pool_configure);
	/*
	 * seq_cst, as the hazard protocol (B5): once every hazard was seen clear, a
	 * worker that enters a channel afterwards sees the flag and leaves it alone.
	 */
	atomic_store_explicit(&pool.paused, paused, memory_order_seq_cst);
	for (i = 0; paused && i < pool.nworkers; i++)
		while (atomic_load_explicit(&pool.workers[i].hazard, memory_order_seq_cst) != NULL)
			sched_yield();
	if (!paused && atomic_load_explicit(&pool.running, memory_order_acquire))
		for (i = 0; i < pool.nworkers; i++)
			wake_worker(&pool.workers[i], true);
}

/* Stop the workers when the library goes away so no thread runs in unmapped code. */
__attribute__((destructor)) static void pool_stop(void)
{
	unsigned int i;

	if (!atomic_load_explicit(&pool.running, memory_order_acquire))
		return;
	atomic_store_explicit(&pool.stop, true, memory_order_release);
	for (i = 0; i < pool.nworkers; i++) {
		wake_worker(&pool.workers[i], true);
		pthread_join(pool.workers[i].thread, NULL);
	}
	atomic_store_explicit(&pool.running, false, memory_order_release);
}

/* ---- registry ------------------------------------------------------------------------ */

doca_error_t ferry_pool_register(struct ferry_pool_member *member)
{
	uint32_t i, hwm;

	pthread_mutex_lock(&pool.reg_mu);
	hwm = atomic_load_explicit(&pool.reg_hwm, memory_order_relaxed);
	for (i = 0; i < FERRY_POOL_MEMBERS_MAX; i++)
		if (atomic_load_explicit(&pool.reg[i], memory_order_relaxed) == NULL)
			break;
	if (i == FERRY_POOL_MEMBERS_MAX) {
		pthread_mutex_unlock(&pool.reg_mu);
		return DOCA_ERROR_FULL;
	}
	member->index = i;
	/* release: the member's initialisation happens before a worker loads it. */
	atomic_store_explicit(&pool.reg[i], member, memory_order_release);
	if (i >= hwm)
		atomic_store_explicit(&pool.reg_hwm, i + 1, memory_order_release);
	pthread_mutex_unlock(&pool.reg_mu);
	return DOCA_SUCCESS;
}

void ferry_pool_unregister(struct ferry_pool_member *member)
{
	unsigned int i;

	pthread_mutex_lock(&pool.reg_mu);
	/* seq_cst: the hazard protocol in worker_pass relies on the total order. */
	atomic_store_explicit(&pool.reg[member->index], NULL, memory_order_seq_cst);
	pthread_mutex_unlock(&pool.reg_mu);
	for (i = 0; i < pool.nworkers; i++)
		/* seq_cst/acquire: once member is gone from the hazard, the worker is done with it. */
		while (atomic_load_explicit(&pool.workers[i].hazard, memory_order_seq_cst) == member)
			sched_yield();
}
