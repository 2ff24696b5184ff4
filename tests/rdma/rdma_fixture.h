/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_fixture.h - one side of a DOCA RDMA test: a progress engine, an RDMA
 * context with every task type configured, and a buffer of its own memory
 * behind a started mmap and an inventory. Public API only, so the same code
 * serves the in-process tests and the two processes of test_rdma_xproc.
 *
 * Completions are counted per side: the callbacks record the last status and
 * the task, and the tests progress until the count moves.
 */
#ifndef FERRY_RDMA_FIXTURE_H_
#define FERRY_RDMA_FIXTURE_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_error.h>
#include <doca_mmap.h>
#include <doca_pe.h>
#include <doca_rdma.h>

#define SIDE_MEM   (4u << 20) /* bytes of memory per side */
#define SIDE_TASKS 16u
#define SIDE_BUFS  64u

struct side {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_rdma *rdma;
	struct doca_ctx *ctx;
	uint8_t *mem;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	/* Completions seen by the callbacks. */
	unsigned int ok, failed;
	doca_error_t last_status;
	struct doca_task *last_task;
	/* Optional: told of every completion, after the counters (rdma_pair's streaming). */
	void (*hook)(struct side *s, struct doca_task *task, bool ok);
};

static inline void side_record(struct doca_task *task, union doca_data ctx_user_data, bool ok)
{
	struct side *s = ctx_user_data.ptr;

	if (ok)
		s->ok++;
	else
		s->failed++;
	s->last_status = doca_task_get_status(task);
	s->last_task = task;
	if (s->hook != NULL)
		s->hook(s, task, ok);
}

#define SIDE_CBS(X)                                                                                       \
	static inline void X##_ok_cb(struct doca_rdma_task_##X *t, union doca_data u, union doca_data c)  \
	{                                                                                                 \
		(void)u;                                                                                  \
		side_record(doca_rdma_task_##X##_as_task(t), c, true);                                    \
	}                                                                                                 \
	static inline void X##_err_cb(struct doca_rdma_task_##X *t, union doca_data u, union doca_data c) \
	{                                                                                                 \
		(void)u;                                                                                  \
		side_record(doca_rdma_task_##X##_as_task(t), c, false);                                   \
	}

SIDE_CBS(receive)
SIDE_CBS(send)
SIDE_CBS(send_imm)
SIDE_CBS(read)
SIDE_CBS(write)
SIDE_CBS(write_imm)
SIDE_CBS(remote_net_sync_event_get)
SIDE_CBS(remote_net_sync_event_notify_set)
SIDE_CBS(remote_net_sync_event_notify_add)
SIDE_CBS(atomic_cmp_swp)
SIDE_CBS(atomic_fetch_add)

static inline struct doca_dev *side_open_dev(void)
{
	struct doca_devinfo **list = NULL;
	struct doca_dev *dev = NULL;
	uint32_t n = 0;

	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS)
		return NULL;
	for (uint32_t i = 0; i < n && dev == NULL; i++)
		if (doca_rdma_cap_task_send_is_supported(list[i]) != DOCA_SUCCESS ||
		    doca_dev_open(list[i], &dev) != DOCA_SUCCESS)
			dev = NULL;
	(void)doca_devinfo_destroy_list(list);
	return dev;
}

/* Create everything up to a configured, IDLE context; @p rdma_perm for the context, @p mmap_perm for its memory. */
static inline doca_error_t side_prepare(struct side *s, uint32_t rdma_perm, uint32_t mmap_perm)
{
	union doca_data ud = {.ptr = s};
	doca_error_t err;

	memset(s, 0, sizeof(*s));
	s->dev = side_open_dev();
	if (s->dev == NULL)
		return DOCA_ERROR_NOT_FOUND;
	s->mem = aligned_alloc(4096, SIDE_MEM);
	if (s->mem == NULL)
		return DOCA_ERROR_NO_MEMORY;
	memset(s->mem, 0, SIDE_MEM);
#define TRY(call)                                                                                                \
	do {                                                                                                     \
		err = (call);                                                                                    \
		if (err != DOCA_SUCCESS) {                                                                       \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, doca_error_get_name(err)); \
			return err;                                                                              \
		}                                                                                                \
	} while (0)
	TRY(doca_mmap_create(&s->mmap));
	TRY(doca_mmap_set_memrange(s->mmap, s->mem, SIDE_MEM));
	TRY(doca_mmap_set_permissions(s->mmap, mmap_perm));
	TRY(doca_mmap_add_dev(s->mmap, s->dev));
	TRY(doca_mmap_start(s->mmap));
	TRY(doca_buf_inventory_create(SIDE_BUFS, &s->inv));
	TRY(doca_buf_inventory_start(s->inv));
	TRY(doca_pe_create(&s->pe));
	TRY(doca_rdma_create(s->dev, &s->rdma));
	s->ctx = doca_rdma_as_ctx(s->rdma);
	TRY(doca_rdma_set_permissions(s->rdma, rdma_perm));
	TRY(doca_pe_connect_ctx(s->pe, s->ctx));
	TRY(doca_rdma_task_receive_set_conf(s->rdma, receive_ok_cb, receive_err_cb, SIDE_TASKS));
	TRY(doca_rdma_task_send_set_conf(s->rdma, send_ok_cb, send_err_cb, SIDE_TASKS));
	TRY(doca_rdma_task_send_imm_set_conf(s->rdma, send_imm_ok_cb, send_imm_err_cb, SIDE_TASKS));
	TRY(doca_rdma_task_read_set_conf(s->rdma, read_ok_cb, read_err_cb, SIDE_TASKS));
	TRY(doca_rdma_task_write_set_conf(s->rdma, write_ok_cb, write_err_cb, SIDE_TASKS));
	TRY(doca_rdma_task_write_imm_set_conf(s->rdma, write_imm_ok_cb, write_imm_err_cb, SIDE_TASKS));
	TRY(doca_rdma_task_remote_net_sync_event_get_set_conf(s->rdma, remote_net_sync_event_get_ok_cb,
							      remote_net_sync_event_get_err_cb, SIDE_TASKS));
	TRY(doca_rdma_task_remote_net_sync_event_notify_set_set_conf(
		s->rdma, remote_net_sync_event_notify_set_ok_cb, remote_net_sync_event_notify_set_err_cb, SIDE_TASKS));
	TRY(doca_rdma_task_remote_net_sync_event_notify_add_set_conf(
		s->rdma, remote_net_sync_event_notify_add_ok_cb, remote_net_sync_event_notify_add_err_cb, SIDE_TASKS));
	TRY(doca_rdma_task_atomic_cmp_swp_set_conf(s->rdma, atomic_cmp_swp_ok_cb, atomic_cmp_swp_err_cb, SIDE_TASKS));
	TRY(doca_rdma_task_atomic_fetch_add_set_conf(s->rdma, atomic_fetch_add_ok_cb, atomic_fetch_add_err_cb,
						     SIDE_TASKS));
	TRY(doca_ctx_set_user_data(s->ctx, ud));
#undef TRY
	return DOCA_SUCCESS;
}

/* side_prepare, then start the context (RUNNING at once). */
static inline doca_error_t side_init(struct side *s, uint32_t rdma_perm, uint32_t mmap_perm)
{
	doca_error_t err = side_prepare(s, rdma_perm, mmap_perm);

	return err != DOCA_SUCCESS ? err : doca_ctx_start(s->ctx);
}

static inline uint64_t side_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A TCP port of 127.0.0.1 nobody holds right now (for a connection manager's listener); 0 if none could be had. */
static inline uint16_t side_free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
		  getsockname(fd, (struct sockaddr *)&a, &len) == 0;

	if (fd >= 0)
		close(fd);
	return ok ? ntohs(a.sin_port) : 0;
}

/* Progress @p a (and @p b, unless NULL) until *counter reaches @p target or @p ms pass. */
static inline bool side_wait(struct side *a, struct side *b, const unsigned int *counter, unsigned int target,
			     unsigned int ms)
{
	uint64_t end = side_now_ms() + ms;

	while (*counter < target) {
		uint8_t n = doca_pe_progress(a->pe);

		if (b != NULL)
			n |= doca_pe_progress(b->pe);
		if (side_now_ms() > end)
			return false;
		if (n == 0)
			usleep(20);
	}
	return true;
}

/* Stop the context and progress until IDLE (both sides progress: the peer may be in the middle of something). */
static inline bool side_stop(struct side *s, struct side *other)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;
	uint64_t end = side_now_ms() + 5000;

	(void)doca_ctx_stop(s->ctx);
	for (;;) {
		(void)doca_ctx_get_state(s->ctx, &st);
		if (st == DOCA_CTX_STATE_IDLE)
			return true;
		if (side_now_ms() > end)
			return false;
		(void)doca_pe_progress(s->pe);
		if (other != NULL)
			(void)doca_pe_progress(other->pe);
	}
}

static inline void side_fini(struct side *s)
{
	if (s->rdma != NULL)
		(void)doca_rdma_destroy(s->rdma);
	if (s->pe != NULL)
		(void)doca_pe_destroy(s->pe);
	if (s->inv != NULL) {
		(void)doca_buf_inventory_stop(s->inv);
		(void)doca_buf_inventory_destroy(s->inv);
	}
	if (s->mmap != NULL) {
		(void)doca_mmap_stop(s->mmap);
		(void)doca_mmap_destroy(s->mmap);
	}
	if (s->dev != NULL)
		(void)doca_dev_close(s->dev);
	free(s->mem);
	memset(s, 0, sizeof(*s));
}

/* A buf over [off, off + len) of the side's memory, holding @p data_len bytes of data. */
static inline struct doca_buf *side_buf(struct side *s, size_t off, size_t len, size_t data_len)
{
	struct doca_buf *buf = NULL;

	if (doca_buf_inventory_buf_get_by_args(s->inv, s->mmap, s->mem + off, len, s->mem + off, data_len, &buf) !=
	    DOCA_SUCCESS)
		return NULL;
	return buf;
}

/* A buf over a remote mmap (imported), at the exporter's address @p addr. */
static inline struct doca_buf *side_remote_buf(struct side *s, struct doca_mmap *remote, void *addr, size_t len,
					       size_t data_len)
{
	struct doca_buf *buf = NULL;

	if (doca_buf_inventory_buf_get_by_args(s->inv, remote, addr, len, addr, data_len, &buf) != DOCA_SUCCESS)
		return NULL;
	return buf;
}

/* A recognisable byte at offset @p i of message @p seed. */
static inline uint8_t pattern_byte(uint32_t seed, size_t i)
{
	return (uint8_t)((i * 131u) ^ (seed * 7u) ^ (i >> 8));
}

static inline void pattern_fill(uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pattern_byte(seed, i);
}

static inline bool pattern_check(const uint8_t *p, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pattern_byte(seed, i))
			return false;
	return true;
}

/* ---- two processes: the out-of-band channel, length-prefixed blobs over a pipe ---- */

/* Send @p len bytes of @p p as one blob; false when the pipe took less. */
static inline bool oob_put(int fd, const void *p, size_t len)
{
	uint32_t n = (uint32_t)len;

	return write(fd, &n, sizeof(n)) == (ssize_t)sizeof(n) && write(fd, p, len) == (ssize_t)len;
}

/* Receive one blob of at most @p room bytes into @p p (*@p len its size); false on a short or oversized one. */
static inline bool oob_get(int fd, void *p, size_t room, size_t *len)
{
	uint32_t n = 0;
	size_t got = 0;

	if (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n) || n > room)
		return false;
	while (got < n) {
		ssize_t r = read(fd, (uint8_t *)p + got, n - got);

		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	*len = n;
	return true;
}

/* Export a connection of @p s, hand its descriptor over @p out, connect to the peer's from @p in; NULL on failure. */
static inline struct doca_rdma_connection *oob_connect(struct side *s, int out, int in)
{
	static uint8_t peer[65536];
	struct doca_rdma_connection *conn = NULL;
	const void *desc;
	size_t len = 0;

	if (doca_rdma_export(s->rdma, &desc, &len, &conn) != DOCA_SUCCESS || !oob_put(out, desc, len) ||
	    !oob_get(in, peer, sizeof(peer), &len) || doca_rdma_connect(s->rdma, peer, len, conn) != DOCA_SUCCESS)
		return NULL;
	return conn;
}

#endif /* FERRY_RDMA_FIXTURE_H_ */
