/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_link.c - the link thread of an RDMA context: the reads and writes of
 * re-exports (a peer's RDMA export of an mmap it imported over PCI, which
 * its link network server serves: rdma_task.c, rdma_task_link_copy).
 *
 * Such a copy is a round trip per piece to another process's server, which
 * may be slow or stopped: up to FERRY_LINK_NET_TIMEOUT_MS each. Done inside
 * doca_task_submit under the context's lock, it held the program's thread
 * and the service thread (which serves this context's own exports) for that
 * long. Here one thread per context, started at the first such task, copies
 * them one at a time in the order they were issued, without the lock, and
 * completes each through progress (the PE is woken).
 *
 * Order on a connection is kept as a reliable connection keeps it: a task
 * issued on a connection while one of its copies is on this thread waits
 * (conn->behind_link) and is issued, in order, once the copy is done, so a
 * message announcing a write never overtakes the write.
 */
#include <pthread.h>

#include "common/ferry_log.h"
#include "rdma/rdma_priv.h"

FERRY_LOG_MODULE("rdma");

/* Issue what waited behind the copies of @p conn, in order, until one of them is a copy again. */
static void release_behind(struct doca_rdma_connection *conn)
{
	struct doca_task *t;

	while (conn->link_busy == 0 && (t = ferry_task_list_pop(&conn->behind_link)) != NULL)
		rdma_task_issue(rdma_task_of(t));
}

/* Wake the link thread: work was queued, or it must leave. */
static void link_kick(struct doca_rdma *rdma)
{
	pthread_mutex_lock(&rdma->link_mutex);
	rdma->link_kicked = true;
	pthread_cond_signal(&rdma->link_cond);
	pthread_mutex_unlock(&rdma->link_mutex);
}

/* Sleep until kicked (the context's lock is not held: the program's thread keeps its fast path meanwhile). */
static void link_sleep(struct doca_rdma *rdma)
{
	pthread_mutex_lock(&rdma->link_mutex);
	while (!rdma->link_kicked)
		pthread_cond_wait(&rdma->link_cond, &rdma->link_mutex);
	rdma->link_kicked = false;
	pthread_mutex_unlock(&rdma->link_mutex);
}

static void *link_main(void *arg)
{
	struct doca_rdma *rdma = arg;

	for (;;) {
		struct doca_rdma_connection *conn;
		struct rdma_task *task;
		struct doca_task *t;
		doca_error_t err;
		bool quit;

		ferry_biased_other_lock(&rdma->lock);
		quit = rdma->link_quit;
		t = quit ? NULL : ferry_task_list_pop(&rdma->link_queue);
		ferry_biased_other_unlock(&rdma->lock);
		if (quit)
			break;
		if (t == NULL) {
			link_sleep(rdma);
			continue;
		}
		task = rdma_task_of(t);
		conn = task->conn;
		err = rdma_task_link_copy(task);
		ferry_biased_other_lock(&rdma->lock);
		rdma_task_link_done(task, err);
		conn->link_busy--;
		release_behind(conn);
		ferry_biased_other_unlock(&rdma->lock);
		ferry_pe_wake(rdma->ctx.pe);
	}
	return NULL;
}

void rdma_link_issue(struct rdma_task *task)
{
	struct doca_rdma *rdma = task->conn->rdma;

	if (!rdma->link_running) {
		rdma->link_quit = false;
		if (pthread_create(&rdma->link_thread, NULL, link_main, rdma) != 0) {
			FERRY_ERR("%s task %p: cannot start the thread that copies re-exports",
				  rdma_task_names[task->kind], (void *)task);
			rdma_task_finish(task, DOCA_ERROR_NO_MEMORY);
			return;
		}
		rdma->link_running = true;
	}
	task->conn->link_busy++;
	ferry_task_list_push(&rdma->link_queue, &task->base);
	link_kick(rdma);
}

bool rdma_link_holds(struct rdma_task *task)
{
	struct doca_rdma_connection *conn = task->conn;

	if (conn == NULL || conn->link_busy == 0)
		return false;
	ferry_task_list_push(&conn->behind_link, &task->base);
	return true;
}

void rdma_link_flush(struct doca_rdma *rdma, doca_error_t status)
{
	struct doca_task *t;

	while ((t = ferry_task_list_pop(&rdma->link_queue)) != NULL) {
		struct rdma_task *task = rdma_task_of(t);

		task->conn->link_busy--;
		rdma_task_finish(task, status);
	}
}

void rdma_link_stop(struct doca_rdma *rdma)
{
	if (!rdma->link_running)
		return;
	ferry_biased_owner_lock(&rdma->lock);
	rdma->link_quit = true;
	ferry_biased_owner_unlock(&rdma->lock);
	link_kick(rdma);
	pthread_join(rdma->link_thread, NULL);
	rdma->link_running = false;
}
