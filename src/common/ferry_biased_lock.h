/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_biased_lock.h - a lock biased towards one side: the program's
 * thread (the "owner": the thread of a context's PE, which DOCA requires
 * to be one at a time) takes it with plain loads and stores, no locked
 * instruction; Ferry's own background threads (the "others": a service
 * thread, a copier) pay for that with a system call each time.
 *
 * Why: an uncontended mutex is two locked instructions per section, and a
 * locked instruction waits for every store before it to leave the store
 * buffer. On a 64 B RDMA ping-pong over shared memory those stores are
 * UCX's writes into the peer's FIFO, so the context's lock, taken at every
 * progress and submit, was a third of the sender's samples (perf, 2026-11-25).
 *
 * How (asymmetric Dekker): the owner announces itself (owner_inside = 1) and
 * then reads other_wants with no fence between; another thread sets
 * other_wants, then membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) runs a full
 * fence on every thread of the process, then it reads owner_inside. So
 * either the owner sees other_wants and falls back to the mutex, or the
 * other sees owner_inside and waits for the owner to leave (at most one
 * section: the owner enters no new one on the fast path while other_wants is
 * set). The others exclude each other, and an owner on the fallback, with
 * the mutex.
 *
 * Without membarrier (an old kernel, a seccomp filter), and under TSan
 * (which cannot see the fence membarrier makes), every side takes the mutex:
 * the lock is then a plain mutex.
 *
 * A condition variable cannot wait on it: a thread that sleeps while others
 * want the lock keeps the owner on the fallback.
 */
#ifndef FERRY_BIASED_LOCK_H_
#define FERRY_BIASED_LOCK_H_

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#define FERRY_BIASED_LOCK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FERRY_BIASED_LOCK_TSAN 1
#endif
#endif

struct ferry_biased_lock {
	pthread_mutex_t mutex;
	_Atomic uint32_t owner_inside; /* written by the owner only */
	_Atomic uint32_t other_wants;  /* written by others only, under the mutex */
	bool owner_fell_back;          /* the owner's current section holds the mutex (the owner's own) */
	bool biased;                   /* false: every side takes the mutex */
};

/* Whether this process may use membarrier's private expedited command (registered once, on the first ask). */
static inline bool ferry_biased_lock_supported(void)
{
#ifdef FERRY_BIASED_LOCK_TSAN
	return false;
#else
	static _Atomic int state; /* 0: not asked, 1: yes, -1: no */
	int s = atomic_load_explicit(&state, memory_order_acquire);

	if (s == 0) {
		long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

		s = cmds >= 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0 &&
				    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0
			    ? 1
			    : -1;
		atomic_store_explicit(&state, s, memory_order_release);
	}
	return s > 0;
#endif
}

static inline void ferry_biased_lock_init(struct ferry_biased_lock *l)
{
	pthread_mutex_init(&l->mutex, NULL);
	atomic_init(&l->owner_inside, 0);
	atomic_init(&l->other_wants, 0);
	l->owner_fell_back = false;
	l->biased = ferry_biased_lock_supported();
}

static inline void ferry_biased_lock_fini(struct ferry_biased_lock *l)
{
	pthread_mutex_destroy(&l->mutex);
}

/* The owner's side: the program's thread, one at a time. */
static inline void ferry_biased_owner_lock(struct ferry_biased_lock *l)
{
	if (l->biased) {
		atomic_store_explicit(&l->owner_inside, 1, memory_order_relaxed);
		/* No fence: the others' membarrier makes one here when it matters. */
		atomic_signal_fence(memory_order_seq_cst);
		/* Acquire: the sections of the others before it are seen. */
		if (atomic_load_explicit(&l->other_wants, memory_order_acquire) == 0)
			return;
		atomic_store_explicit(&l->owner_inside, 0, memory_order_release);
		l->owner_fell_back = true;
	}
	pthread_mutex_lock(&l->mutex);
}

static inline void ferry_biased_owner_unlock(struct ferry_biased_lock *l)
{
	if (l->biased && !l->owner_fell_back) {
		atomic_store_explicit(&l->owner_inside, 0, memory_order_release);
		return;
	}
	l->owner_fell_back = false;
	pthread_mutex_unlock(&l->mutex);
}

/*
 * Another thread's side: a system call, and a wait for the owner to leave
 * its section. membarrier cannot fail once registered, unless the program
 * installed a seccomp filter against it since: then this thread never enters
 * unfenced; it lets go (the owner goes on, on the mutex if it saw the flag)
 * and tries again a millisecond later, for as long as the filter stands
 * (what waits for this thread, a context's stop, waits too: a stall, never
 * two sections at once).
 */
static inline void ferry_biased_other_lock(struct ferry_biased_lock *l)
{
	for (;;) {
		pthread_mutex_lock(&l->mutex);
		if (!l->biased)
			return;
		atomic_store_explicit(&l->other_wants, 1, memory_order_relaxed);
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0)
			break;
		atomic_store_explicit(&l->other_wants, 0, memory_order_release);
		pthread_mutex_unlock(&l->mutex);
		usleep(1000);
	}
	while (atomic_load_explicit(&l->owner_inside, memory_order_acquire) != 0)
		sched_yield();
}

static inline void ferry_biased_other_unlock(struct ferry_biased_lock *l)
{
	if (l->biased)
		atomic_store_explicit(&l->other_wants, 0, memory_order_release);
	pthread_mutex_unlock(&l->mutex);
}

#endif /* FERRY_BIASED_LOCK_H_ */
