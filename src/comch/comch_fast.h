/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch_fast.h - the Comch fast path: consumers (post-receive tasks), producers
 * (send tasks) and this side's record of the peer's consumers.
 *
 * Flow:
 *   consumer start:  export the consumer's mmap (doca_mmap_export_pci, the same
 *                    export every DMA importer uses) and its post ring (a block
 *                    of shareable memory, exported the same way)
 *                    -> CONSUMER_UP(id, imm cap, ring size, both descriptors)
 *   peer:            import both -> new-consumer event
 *   post_recv:       write (slot, generation, addr, len) into the post ring and
 *                    publish it by a release store of the ring's head: no system
 *                    call; the peer's producers poll the head (acquire)
 *   producer send:   take the oldest post, copy the buffer straight into it
 *                    (memcpy when the consumer's memory is mapped here at the same
 *                    address, else process_vm_writev through the import: one copy,
 *                    no staging) -> DONE(id, slot, generation, len, imm, producer
 *                    id) over the connection's socket -> the post-receive task
 *                    completes from the connection's progress
 *   consumer stop:   CONSUMER_DOWN(id) -> the peer forgets it, expired event.
 * A send with no posted buffer waits (submit succeeds; the producer's progress
 * polls the ring), so a program that submits and then progresses never spins on
 * submit. DOCA Comch has no event-triggered completions either: a producer with
 * waiting sends always reports pending work to its PE.
 *
 * Post ring (one per consumer, in shared memory): a header of two cache lines
 * (magic and size; the head, written only by the consumer) and a power-of-two
 * array of entries. Indices run free and are masked on access. The producer's
 * side keeps its own tail: the consumer never needs it, because a task is posted
 * at most once at a time and the ring has as many entries as tasks, rounded up.
 *
 * Trust: the ring's size comes from CONSUMER_UP, never from shared memory; every
 * entry is checked against the imported range before it is used, so a producer
 * never writes outside what the consumer exported and posted; a head that claims
 * more entries than the ring holds, or a bad entry, ends the connection. A DONE
 * must name a buffer that is posted now (slot and generation) and fit it.
 *
 * Threading: DONE and CONSUMER_UP/DOWN arrive through the Comch server's or
 * client's progress, which also keeps the list of the peer's consumers. A
 * producer reads the rings itself, from its own PE (a program may progress only
 * the producer's PE while it sends, as DOCA's high-speed sample does), but it
 * walks that list: producers and consumers must not be progressed concurrently
 * with their connection's context (one thread for all of them).
 */
#ifndef FERRY_COMCH_FAST_H_
#define FERRY_COMCH_FAST_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comch/comch_priv.h"

#define COMCH_FAST_MAX_BUF_SIZE (1u << 30) /* DOCA's guide: "1GB or more" */
#define COMCH_FAST_MAX_TASKS 65536u
#define COMCH_FAST_MAX_PER_CONN 512u       /* producers, consumers */
#define COMCH_RING_MAGIC 0x47525046u /* "FPRG" */
#define COMCH_RING_LINE 64u

/** One posted buffer, as the consumer writes it into its ring. */
struct comch_post {
	uint64_t addr;
	uint32_t len;
	uint32_t slot;
	uint32_t generation;
	uint32_t reserved;
};

/** The head of a post ring; the entries follow it. */
struct comch_ring_hdr {
	uint32_t magic;
	uint32_t cap;
	uint8_t pad0[COMCH_RING_LINE - 8];
	_Atomic uint64_t head;          /* entries published; consumer's line */
	uint8_t pad1[COMCH_RING_LINE - 8];
};

/** Bytes of a ring of @p cap entries. */
static inline size_t comch_ring_bytes(uint32_t cap)
{
	return sizeof(struct comch_ring_hdr) + (size_t)cap * sizeof(struct comch_post);
}

/** This side's view of a consumer of the peer. */
struct comch_remote_consumer {
	struct comch_remote_consumer *next;
	uint32_t id;
	uint32_t imm_data_len;
	struct doca_mmap *mmap;               /* imported from the consumer's export */
	const struct ferry_remote *remote;    /* NULL: the memory is mapped here at the same address */
	uint64_t base;
	uint64_t len;
	struct doca_mmap *ring_mmap;          /* imported post ring */
	const struct ferry_remote *ring_remote; /* NULL: the ring is mapped here */
	uint64_t ring_addr;
	uint32_t ring_cap;                    /* from CONSUMER_UP, never from shared memory */
	uint64_t tail;                        /* next entry to take (this side only) */
	bool broken;                          /* the ring lied: the connection is ending */
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
	struct comch_ring_hdr *ring;          /* shareable block, from start to stopped */
	struct doca_mmap *ring_mmap;          /* exports it to the peer */
	uint64_t ring_head;
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
/**
 * The oldest post of @p r not taken yet, checked: DOCA_SUCCESS, DOCA_ERROR_AGAIN
 * (none), or DOCA_ERROR_NOT_CONNECTED (the ring is unreadable or lies: the
 * connection is marked broken and a line logged).
 */
doca_error_t comch_fast_peek_post(struct doca_comch_connection *conn, struct comch_remote_consumer *r,
				  struct comch_post *post);
bool comch_fast_conn_usable(const struct doca_comch_connection *conn);
doca_error_t comch_fast_cap_check(const char *call, const struct doca_devinfo *devinfo, const void *out);

/* producer.c: serve waiting sends of every producer of @p conn (a consumer left). */
void comch_producers_kick(struct doca_comch_connection *conn);
void comch_producers_conn_gone(struct doca_comch_connection *conn);

/* consumer.c */
uint32_t comch_consumer_on_done(struct doca_comch_connection *conn, const struct ferry_frame_post *done,
				const char **why);
void comch_consumers_conn_gone(struct doca_comch_connection *conn);

#endif /* FERRY_COMCH_FAST_H_ */
