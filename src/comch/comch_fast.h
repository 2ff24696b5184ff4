/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch_fast.h - the Comch fast path: consumers (post-receive tasks), producers
 * (send tasks) and this side's record of the peer's consumers.
 *
 * Flow, over the connection's control socket (frames in ferry_frame.h):
 *   consumer start:  export the consumer's mmap (doca_mmap_export_pci, the same
 *                    export every DMA importer uses) -> CONSUMER_UP(id, imm cap, desc)
 *   peer:            import it (doca_mmap_create_from_export) -> new-consumer event
 *   post_recv:       POST(id, slot, generation, addr, len) -> the peer queues it
 *   producer send:   take the consumer's oldest post, copy the buffer straight
 *                    into it (memcpy when the consumer's memory is mapped here at
 *                    the same address, else process_vm_writev through the import:
 *                    one copy, no staging) -> DONE(id, slot, generation, len, imm,
 *                    producer id) -> the post-receive task completes
 *   consumer stop:   CONSUMER_DOWN(id) -> the peer forgets it, expired event.
 * A send with no posted buffer waits (submit succeeds; it completes once a buffer
 * is posted), so a program that submits and then progresses never spins.
 *
 * Trust: every POST is checked against the imported range before it is queued,
 * so a producer never writes outside what the consumer exported and posted; a
 * DONE must name a buffer that is posted now (slot and generation) and fit it.
 * A frame that breaks these rules ends the connection.
 *
 * Threading: frames arrive through the Comch server's or client's progress, so
 * producers and consumers must be progressed from the same thread as their
 * connection's context (one PE for all of them, as DOCA's samples do).
 */
#ifndef FERRY_COMCH_FAST_H_
#define FERRY_COMCH_FAST_H_

#include <stdbool.h>
#include <stdint.h>

#include "comch/comch_priv.h"

#define COMCH_FAST_MAX_BUF_SIZE (1u << 30) /* DOCA's guide: "1GB or more" */
#define COMCH_FAST_MAX_TASKS 65536u
#define COMCH_FAST_MAX_PER_CONN 512u       /* producers, consumers */
#define COMCH_FAST_MAX_POSTS 65536u        /* queued posts of one peer consumer */

/** One buffer a peer consumer posted, already checked against its imported range. */
struct comch_post {
	uint64_t addr;
	uint32_t len;
	uint32_t slot;
	uint32_t generation;
};

/** This side's view of a consumer of the peer. */
struct comch_remote_consumer {
	struct comch_remote_consumer *next;
	uint32_t id;
	uint32_t imm_data_len;
	struct doca_mmap *mmap;               /* imported from the consumer's export */
	const struct ferry_remote *remote;    /* NULL: the memory is mapped here at the same address */
	uint64_t base;
	uint64_t len;
	struct comch_post *posts;             /* FIFO ring of cap entries */
	uint32_t cap;
	uint32_t head;
	uint32_t count;
};

struct doca_comch_producer_task_send {
	struct doca_task base;                /* first */
	const struct doca_buf *buf;
	uint32_t consumer_id;
	uint32_t imm_len;
	uint8_t imm[FERRY_FRAME_IMM_MAX];
	bool copied;                          /* data is in the post; its DONE still has to go */
	struct comch_post post;
};

struct doca_comch_producer {
	struct doca_ctx ctx;                  /* first */
	struct ferry_task_pool pool;
	struct doca_comch_connection *conn;   /* NULL once the connection ended */
	struct doca_comch_producer *next;     /* conn->producers */
	uint32_t id;
	doca_comch_producer_task_send_completion_cb_t ok_cb;
	doca_comch_producer_task_send_completion_cb_t err_cb;
	struct comch_task_list waiting;       /* submitted, waiting for a posted buffer (FIFO) */
	struct comch_task_list done;
};

struct doca_comch_consumer_task_post_recv {
	struct doca_task base;                /* first */
	struct doca_buf *buf;
	bool posted;
	uint32_t generation;
	uint8_t *room;                        /* where the producer writes */
	uint32_t room_len;
	uint32_t producer_id;
	uint32_t imm_len;
	uint8_t imm[FERRY_FRAME_IMM_MAX];
};

struct doca_comch_consumer {
	struct doca_ctx ctx;                  /* first */
	struct ferry_task_pool pool;
	struct doca_comch_connection *conn;   /* NULL once the connection ended */
	struct doca_comch_consumer *next;     /* conn->consumers */
	struct doca_mmap *mmap;
	uint32_t id;
	uint32_t imm_data_len;
	uint32_t next_generation;
	bool announced;                       /* CONSUMER_UP sent, DOWN not yet */
	doca_comch_consumer_task_post_recv_completion_cb_t ok_cb;
	doca_comch_consumer_task_post_recv_completion_cb_t err_cb;
	struct comch_task_list done;
};

/* fastpath.c */
uint32_t comch_fast_new_id(void);
void comch_fast_list_push(struct comch_task_list *list, struct doca_task *task);
struct doca_task *comch_fast_list_pop(struct comch_task_list *list);
uint32_t comch_fast_complete_list(struct comch_task_list *list);
struct comch_remote_consumer *comch_fast_find_remote(const struct doca_comch_connection *conn, uint32_t id);
bool comch_fast_conn_usable(const struct doca_comch_connection *conn);
doca_error_t comch_fast_cap_check(const char *call, const struct doca_devinfo *devinfo, const void *out);

/* producer.c: serve waiting sends of every producer of @p conn (a buffer was posted or a consumer left). */
void comch_producers_kick(struct doca_comch_connection *conn);
void comch_producers_conn_gone(struct doca_comch_connection *conn);

/* consumer.c */
uint32_t comch_consumer_on_done(struct doca_comch_connection *conn, const struct ferry_frame_post *done,
				const char **why);
void comch_consumers_conn_gone(struct doca_comch_connection *conn);

#endif /* FERRY_COMCH_FAST_H_ */
