/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fast_priv.h - the Comch fast path: consumers (post-receive tasks), producers
 * (send tasks) and this side's record of the peer's consumers.
 *
 * Flow:
 *   consumer start:  export the consumer's mmap (doca_mmap_export_pci, the same
 *                    export every DMA importer uses) and its post ring (a block
 *                    of shareable memory, exported read-write: producers claim
 *                    posts in it)
 *                    -> CONSUMER_UP(id, imm cap, ring size, both descriptors)
 *   peer:            import both (the ring mapped anywhere), create and export a
 *                    read-only completion ring for that consumer
 *                    -> DONE_RING(id, size, descriptor); new-consumer event
 *   consumer:        imports the completion ring (from its connection's progress)
 *   post_recv:       write (slot, generation, addr, len) into the post ring,
 *                    then a release store of its head (one per slice of posts
 *                    made by completion callbacks): no system call
 *   producer send:   acquire load of the post ring's head, claim the oldest
 *                    post with the run the pass has sends for (one
 *                    compare-and-swap of the ring's claim count), copy the
 *                    buffer straight into it (memcpy when the consumer's memory
 *                    is mapped here at the same address, else process_vm_writev
 *                    through the import: one copy, no staging), write (slot,
 *                    generation, len, producer id, imm, failed) into the
 *                    completion ring and release its head (once per slice);
 *                    the send completes
 *   consumer:        its progress polls the completion ring (acquire; no lock
 *                    while it is empty) and completes the post-receive tasks
 *   consumer stop:   REVOKED set in the claim count: posts at or above the
 *                    count are flushed, those below complete through the
 *                    completion ring; CONSUMER_DOWN(id) -> the peer forgets it,
 *                    expired event.
 * A send with no posted buffer waits (submit succeeds; the producer's progress
 * polls the ring).
 *
 * Event mode: a producer whose sends wait for posts, or a consumer whose posts
 * wait for completions, need not keep its PE busy. When the program requests a
 * notification, it writes its PE's bell token into the post ring's header
 * (post_waiter, done_waiter), then looks at the ring once more (the store and
 * that look are ordered by a full fence against the peer's publish and its
 * look at the token: one of the two sees the other), and lets the PE sleep if
 * nothing came. The peer, after a batch of posts (consumer) or completions
 * (producer side), looks at the token and rings the bell if one is there. Only
 * one producer-side PE sleeps on a consumer's posts at a time; another polls.
 *
 * Rings (post: consumer writes, producers' side reads; completion: the other way
 * round), one of each per consumer, in shared memory: a header of four cache
 * lines (magic and size; the head, written only by the writer; the doorbell
 * tokens, in post rings; the claim count, in post rings) and a power-of-two
 * array of entries (24-byte posts, 32-byte completions followed by an area for
 * their immediate data). Indices run free and are masked on access. The reader keeps its own tail; the writer never needs it: a task is
 * posted at most once at a time, both rings have as many entries as post-receive
 * tasks (rounded up), and a completion follows a taken post.
 *
 * Trust: a ring's size comes from CONSUMER_UP (reader) or this side's choice
 * (writer) and stays in private memory, never read back from the ring; the
 * consumer's memory and ring must be the peer process's own exports, the memory
 * writable; every entry is checked against the imported range before it is used,
 * so a producer never writes outside what the consumer exported and posted; a
 * head that claims more entries than the ring holds, or a bad entry, ends the
 * connection. A completion must name a buffer that is posted now (slot and
 * generation), fit it and carry no more immediate data than the consumer takes.
 * A connection holds at most COMCH_FAST_MAX_CONSUMERS of the peer's consumers.
 *
 * Threading (DOCA's model: one thread per PE at a time, any number of PEs):
 * each producer and consumer may run on a PE and thread of its own while
 * another thread progresses the connection's server or client. What they share
 * with the connection is its hub (struct comch_fast_hub), under the hub's lock:
 * the list of the peer's consumers with their imports and our completion rings,
 * the socket for fast-path frames, the lists of this side's producers and
 * consumers. The connection's thread changes them (CONSUMER_UP/DOWN, DONE_RING,
 * the connection's end) and wakes the PEs concerned; a producer or consumer
 * acts on the change on its own thread, at its next progress (a waiting send
 * fails, a posted buffer is flushed). The hub outlives the connection: each
 * producer and consumer holds a reference until it is destroyed. A producer
 * takes the lock once per batch of sends (claim, copy, completion), a consumer
 * once per poll that finds completions (and every COMCH_LIVENESS_EVERY-th empty
 * one); posting a buffer takes no lock.
 */
#ifndef FERRY_COMCH_FAST_H_
#define FERRY_COMCH_FAST_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "comch/comch_priv.h"
#include "engine/ferry_engine.h"
#include "link/ferry_access.h"
#include "link/ferry_export.h"

#define COMCH_FAST_MAX_BUF_SIZE  (1u << 30) /* DOCA's guide: "1GB or more" */
#define COMCH_FAST_MAX_TASKS     65536u
#define COMCH_FAST_MAX_PRODUCERS 512u /* per connection */
/*
 * Consumers per connection, each side: a peer's consumer costs this side an
 * import of its memory and post ring and a completion ring (fds, mappings),
 * so the peer may announce no more than this many at once.
 */
#define COMCH_FAST_MAX_CONSUMERS 64u
/*
 * What one consumer of a peer costs this process: fds and mappings (two
 * imports and a completion ring), three of each. 64 per connection times 512
 * connections is far more than a process may open, so the peers' consumers of
 * all connections together take at most half of its open-file limit and of the
 * kernel's mapping limit (vm.max_map_count); the other half stays for new
 * connections and the program's own work. A CONSUMER_UP beyond ends its
 * connection.
 */
#define COMCH_FAST_REMOTE_COST   3u
/* Ring entries of the peer's consumers, summed, per connection (64 MiB of completion rings). */
#define COMCH_FAST_RING_BUDGET   (1u << 20)
/*
 * Fast-path frames that may wait for room on a connection's socket (beyond
 * what the socket holds): a peer that leaves them unread this long does not
 * read its socket, and one more ends the connection (else a peer that
 * announces and withdraws consumers without reading would grow the queue
 * for as long as it goes on).
 */
#define COMCH_FAST_OUT_MAX       1024u
#define COMCH_RING_MAGIC         0x47525046u /* "FPRG" */
#define COMCH_DONE_MAGIC         0x47524446u /* "FDRG" */
#define COMCH_RING_LINE          64u

/*
 * Who owns a post: the claim word of its post ring (the header's producers'
 * line, the one word of the ring both sides write). It counts the posts the
 * producers' side took, a ring position that runs free: posts below it are
 * the producers', posts from it on are still offered. A producer takes a run
 * of posts (as many as it has sends for, up to what is published) with one
 * compare-and-swap from the count it knows to the count plus the run, before
 * it writes a byte of any; what it took and could not use at the end of its
 * pass it gives back the same way. A stopping consumer sets COMCH_CLAIM_REVOKED
 * in the word (fetch-or) and flushes only the posts at or above the count it
 * got: after that no compare-and-swap of a producer succeeds. A taken post
 * completes through the completion ring (data, or an error status), never by
 * the flush: so no byte lands in a buffer after its post-receive task
 * completed with an error. The word is the peer's to write: a count the stop
 * can see is false (REVOKED already set, beyond the published head, below the
 * completions read) ends the connection (consumer.c, claim_lie).
 */
#define COMCH_CLAIM_REVOKED (1ull << 63)

/** One posted buffer, as the consumer writes it into its ring. */
struct comch_post {
	uint64_t addr;
	uint32_t len;
	uint32_t slot;
	uint32_t generation;
	uint32_t reserved; /* 0 */
};

/*
 * One filled post, as the producers' side writes it into the completion ring:
 * half a cache line, so a reader takes two per line it fetches. Its immediate
 * data, if any, is in the ring's immediate area (comch_done_imm), which only
 * messages that carry some touch.
 */
struct comch_done {
	uint32_t slot;
	uint32_t generation;
	uint32_t len;
	uint32_t producer_id;
	uint32_t imm_len;
	uint32_t failed; /* non-zero: the producer took the post but could not fill it */
	uint32_t reserved[2];
};

/** The head of a post or completion ring; the entries follow it. */
struct comch_ring_hdr {
	uint32_t magic;
	uint32_t cap;
	uint8_t pad0[COMCH_RING_LINE - 8];
	_Atomic uint64_t head; /* entries published; consumer's line */
	uint8_t pad1[COMCH_RING_LINE - 8];
	/*
	 * Doorbells (post rings only; see "Event mode" above): the bell token
	 * (ferry_pe_bell) of a PE that sleeps until this ring or the completion
	 * ring moves, 0 for none. The side that moves the ring takes the token
	 * (exchange to 0) and rings it: one system call per sleep, none per
	 * message while the sleeper is awake.
	 */
	_Atomic uint64_t post_waiter; /* a producer-side PE waiting for posts */
	_Atomic uint64_t done_waiter; /* the consumer's PE waiting for completions */
	uint8_t pad2[COMCH_RING_LINE - 16];
	/* Post rings only: the claim word (see above), on a line of its own: only the producers' side writes it. */
	_Atomic uint64_t claimed;
	uint8_t pad3[COMCH_RING_LINE - 8];
};

_Static_assert(sizeof(struct comch_post) == 24, "post ring entries are 24 bytes");
_Static_assert(sizeof(struct comch_done) == COMCH_RING_LINE / 2, "completion ring entries are half a cache line");
/* Bytes a completion ring holds per entry: the entry and room for its immediate data. */
#define COMCH_DONE_BYTES (sizeof(struct comch_done) + FERRY_FRAME_IMM_MAX)

/** Bytes of a post ring of @p cap entries. */
static inline size_t comch_ring_bytes(uint32_t cap)
{
	return sizeof(struct comch_ring_hdr) + (size_t)cap * sizeof(struct comch_post);
}

/** Bytes of a completion ring of @p cap entries: the header, the entries, then their immediate data. */
static inline size_t comch_done_ring_bytes(uint32_t cap)
{
	return sizeof(struct comch_ring_hdr) + (size_t)cap * COMCH_DONE_BYTES;
}

/** Where the immediate data of the completion at @p pos is, in a ring of @p cap entries starting at @p entries. */
static inline const uint8_t *comch_done_imm(const uint8_t *entries, uint32_t cap, uint64_t pos)
{
	return entries + (size_t)cap * sizeof(struct comch_done) + (size_t)(pos & (cap - 1)) * FERRY_FRAME_IMM_MAX;
}

/* Entries a reader asks the writer's core for at once when it finds new ones (prefetch hints). */
#define COMCH_PREFETCH_ENTRIES 12u

/** This side's end of a ring the peer writes (posts, or completions). */
struct comch_ring_view {
	struct ferry_link_import *imp;    /* mapped here, anywhere */
	const struct comch_ring_hdr *hdr; /* in that mapping */
	const uint8_t *entries;
	uint32_t cap;  /* from a frame, never from shared memory */
	uint64_t tail; /* next entry to read (this side only) */
	uint64_t seen; /* the head at the last look, checked (tail <= seen <= tail + cap) */
	bool local;    /* a MsgQ's ring, read where its writer writes it (no import) */
};

/** Whether @p view reads a ring now (imported, or a MsgQ's own). */
static inline bool comch_ring_view_is_open(const struct comch_ring_view *view)
{
	return view->imp != NULL || view->local;
}

/** A ring this side writes and the peer reads. */
struct comch_ring_out {
	struct comch_ring_hdr *hdr; /* shareable block */
	uint8_t *entries;
	struct doca_mmap *mmap; /* exports it */
	uint32_t cap;           /* this side's choice, kept here: never read back */
	uint64_t head;          /* entries written */
	uint64_t published;     /* the head the reader may see (entries written before a commit) */
};

/** A fast-path frame that waits for room on the connection's socket (order kept). */
struct comch_fast_frame {
	struct comch_fast_frame *next;
	size_t len;
	uint8_t bytes[];
};

/** What a connection shares with its producers and consumers across threads (see Threading above). */
struct comch_fast_hub {
	pthread_mutex_t lock; /* guards all below but the atomics */
	uint32_t refs;        /* the connection while it lasts, each producer and consumer */
	atomic_bool gone;     /* the connection ended: set once, under the lock */
	atomic_bool broken;   /* the peer broke the fast path: its connection's thread ends it */
	struct comch_ep *ep;  /* the connection's endpoint; NULL once gone */
	int fd;               /* the connection's socket; -1 once gone */
	pid_t peer_pid;
	uint32_t conn_id;
	struct doca_dev *dev;
	struct doca_comch_producer *producers;
	struct doca_comch_consumer *consumers;
	uint32_t num_producers;
	uint32_t num_consumers;
	struct comch_remote_consumer *remotes;
	uint32_t num_remotes;              /* the peer's consumers that are up (<= COMCH_FAST_MAX_CONSUMERS) */
	uint32_t remote_ring_entries;      /* their rings' entries, summed (<= COMCH_FAST_RING_BUDGET) */
	struct comch_fast_frame *out_head; /* frames waiting for room on the socket */
	struct comch_fast_frame **out_tail;
	uint32_t num_out;             /* how many (<= COMCH_FAST_OUT_MAX) */
	struct doca_comch_msgq *msgq; /* a MsgQ's hub: no connection, consumers come up in place */
};

/** This side's view of a consumer of the peer. */
struct comch_remote_consumer {
	struct comch_remote_consumer *next;
	uint32_t id;
	uint32_t imm_data_len;
	struct doca_mmap *mmap;            /* imported from the consumer's export */
	const struct ferry_access *access; /* its path (cma), NULL when mapped here at the same address */
	uint64_t base;
	uint64_t len;
	struct comch_ring_view posts; /* the consumer's post ring (mapped read-write: claims) */
	struct comch_ring_out dones;  /* the completions this side writes for it */
	bool broken;                  /* the ring lied: the connection is ending */
	bool stopped;                 /* it revoked its post ring: CONSUMER_DOWN is on its way */
	uint32_t ring_entries;        /* counted in hub->remote_ring_entries */
	bool held;                    /* counted in the process's budget of the peers' consumers (peers.c) */
	bool done_bell_due;           /* completions published since the consumer's bell was looked at */
	bool imm_only;                /* a MsgQ consumer: posts carry no buffer, messages are immediate data */
	uint32_t empty_polls;         /* polls of its empty post ring since its writer was last looked at */
	uint64_t claimed_to; /* posts [posts.tail, claimed_to) are taken by this side, not used yet (in a pass) */
};

/* Empty polls of a ring between two looks at whether its writer still writes it (a clock read each). */
#define COMCH_LIVENESS_EVERY 64u

struct doca_comch_producer_task_send {
	struct doca_task base; /* first */
	const struct doca_buf *buf;
	uint32_t consumer_id;
	uint32_t imm_len;
	uint8_t imm[FERRY_FRAME_IMM_MAX];
};

/*
 * Event mode's spin window: a producer or consumer whose ring moved within
 * COMCH_SPIN_NS of the program's request for a notification keeps its PE
 * busy instead of sleeping, so a stream pays no wake-up per batch; idle, it
 * sleeps after that long. Only read when the program arms its PE.
 */
#define COMCH_SPIN_NS 200000u

struct comch_spin {
	uint64_t seen;    /* the progress counter at the last look */
	uint64_t busy_ns; /* when it last moved */
};

/** Whether @p counter moved since the last look, or within COMCH_SPIN_NS of it. */
static inline bool comch_recently_busy(struct comch_spin *spin, uint64_t counter)
{
	uint64_t now = ferry_link_now_ns();

	if (counter != spin->seen) {
		spin->seen = counter;
		spin->busy_ns = now;
		return true;
	}
	return now - spin->busy_ns < COMCH_SPIN_NS;
}

/*
 * A producer's copies in flight (enqueued in its channel, not yet polled)
 * before one doorbell: a run of sends into a consumer reached by cross-memory
 * attach is then one gathered write (engine_inline.c).
 */
#define COMCH_PRODUCER_BATCH FERRY_ACCESS_GATHER_MAX
/* Copies into memory mapped here published together (see copy_into_post). */
#define COMCH_PRODUCER_SLICE 8u

/** A send whose copy is in the producer's channel: what its completion needs. */
struct comch_send_copy {
	struct doca_comch_producer_task_send *task;
	struct comch_remote_consumer *r;
	struct comch_post post;
	size_t len;
};

struct doca_comch_producer {
	struct doca_ctx ctx; /* first */
	struct ferry_task_pool pool;
	struct comch_fast_hub *hub;       /* referenced until destroy */
	struct doca_comch_producer *next; /* hub->producers */
	bool wakeable;                    /* started: the connection's thread may wake its PE (under the lock) */
	uint32_t id;
	uint64_t num_sent; /* posts taken, ever */
	bool completing;   /* its completion callbacks run: sends they submit are served after them */
	struct comch_spin spin;
	doca_comch_producer_task_send_completion_cb_t ok_cb;
	doca_comch_producer_task_send_completion_cb_t err_cb;
	struct ferry_task_list waiting; /* submitted, waiting for a posted buffer (FIFO) */
	uint32_t num_waiting;           /* how many (a pass claims posts for that many at once) */
	const void *next_post_head;     /* prefetch hints (never read): the post ring last sent to, */
	const void *next_post;          /* and its next post */
	struct ferry_task_list done;
	/* Its copy engine (an inline cross-process channel), used under the hub's lock, and what it holds. */
	struct ferry_chan *chan;
	uint32_t num_copies;
	struct comch_send_copy copies[COMCH_PRODUCER_BATCH];
};

struct doca_comch_consumer_task_post_recv {
	struct doca_task base; /* first */
	struct doca_buf *buf;
	bool posted;
	uint32_t generation;
	uint32_t slot;     /* its index in the consumer's task pool (set at alloc) */
	uint64_t ring_pos; /* where the post went in the post ring */
	uint8_t *room;     /* where the producer writes */
	uint32_t room_len;
	uint32_t producer_id;
	uint32_t imm_len;
	uint8_t imm[FERRY_FRAME_IMM_MAX];
};

struct doca_comch_consumer {
	struct doca_ctx ctx; /* first */
	struct ferry_task_pool pool;
	struct comch_fast_hub *hub;       /* referenced until destroy */
	struct doca_comch_consumer *next; /* hub->consumers */
	bool wakeable;                    /* started: the connection's thread may wake its PE (under the lock) */
	struct doca_mmap *mmap;
	uint32_t id;
	uint32_t imm_data_len;
	uint32_t next_generation;
	struct comch_ring_out posts;  /* from start to stopped */
	struct comch_ring_view dones; /* the peer's completion ring, once DONE_RING came (under the lock) */
	atomic_bool dones_open;       /* a connection's dones are open: its thread may poll them without the lock */
	bool revoked;                 /* stopping: OFFERED posts were taken back */
	uint32_t num_posted;
	bool announced;        /* CONSUMER_UP sent, DOWN not yet */
	bool post_bell_due;    /* posts put since the producers' bell was looked at (committed with it) */
	bool completing;       /* its completion callbacks run: their posts are committed after them (or per slice) */
	uint32_t empty_polls;  /* polls of the empty completion ring since its writer was last looked at */
	uint64_t num_received; /* posts filled, ever */
	struct comch_spin spin;
	doca_comch_consumer_task_post_recv_completion_cb_t ok_cb;
	doca_comch_consumer_task_post_recv_completion_cb_t err_cb;
	struct ferry_task_list done;
};

/* hub.c: the hub (every call but new, ref, unref and usable with the lock held) */
/** A hub for @p conn, just established, with one reference (the connection's). */
struct comch_fast_hub *comch_hub_new(struct doca_comch_connection *conn);
/** A MsgQ's hub: no connection, no socket (consumers come up in place). */
struct comch_fast_hub *comch_hub_new_local(struct doca_comch_msgq *msgq, struct doca_dev *dev);
/** Its connection (or MsgQ) ends: users learn it on their threads; drops that reference. */
void comch_hub_close(struct comch_fast_hub *hub);
/** Drop a reference; the last one frees the hub. */
void comch_hub_unref(struct comch_fast_hub *hub);
/** Whether producers and consumers may use the connection (read without the lock: a hint, checked again under it). */
bool comch_hub_usable(const struct comch_fast_hub *hub);
/** Whether @p (a program's pointer) is an established connection producers and consumers may use. */
bool comch_conn_is_live(const struct doca_comch_connection *conn);
/**
 * Send a fast-path frame on the connection, or queue it behind others
 * (NOT_CONNECTED once gone; FULL, logged, and the connection is ending,
 * when COMCH_FAST_OUT_MAX frames wait already).
 */
doca_error_t comch_hub_send(struct comch_fast_hub *hub, const uint8_t *frame, size_t len);
/** The peer broke the fast path: flag it and wake the connection's thread, which ends the connection. */
void comch_hub_break(struct comch_fast_hub *hub);
/** Wake the PEs of this side's started producers and consumers: the connection changed. */
void comch_hub_wake_users(struct comch_fast_hub *hub);
/** A new unique id for a producer or consumer (never 0). */
uint32_t comch_fast_new_id(void);

/* peers.c: the peer's consumers (called with the hub's lock held) */
struct comch_remote_consumer *comch_fast_find_remote(const struct comch_fast_hub *hub, uint32_t id);

/* ring.c: the shared rings */
/**
 * Create a ring of @p cap entries of @p entry_size bytes that this side writes,
 * exported to the peer for @p dev with @p access (a PCI permission).
 */
doca_error_t comch_ring_out_open(struct comch_ring_out *ring, uint32_t magic, uint32_t cap, size_t entry_size,
				 uint32_t access, struct doca_dev *dev, const void **desc, size_t *desc_len);
void comch_ring_out_close(struct comch_ring_out *ring);
/**
 * The entry (@p size bytes) at the head, for the caller to fill in place, not
 * yet visible to the reader; *@p pos is its position. Filling the shared entry
 * field by field spares a copy of a struct just assembled on the stack, whose
 * wide reload the CPU cannot forward from the narrow stores that built it.
 */
static inline void *comch_ring_out_next(struct comch_ring_out *ring, size_t size, uint64_t *pos)
{
	*pos = ring->head++;
	return ring->entries + (*pos & (ring->cap - 1)) * size;
}

/** Write @p entry (@p size bytes) at the head, not yet visible to the reader. Returns its position. */
static inline uint64_t comch_ring_out_put(struct comch_ring_out *ring, const void *entry, size_t size)
{
	uint64_t pos;

	memcpy(comch_ring_out_next(ring, size, &pos), entry, size);
	return pos;
}

/** Make the entries put so far visible: one release store of the head. */
static inline void comch_ring_out_commit(struct comch_ring_out *ring)
{
	/* Release: the reader's acquire load of the head makes the entries visible with it. */
	if (ring->hdr != NULL && ring->head != ring->published) {
		atomic_store_explicit(&ring->hdr->head, ring->head, memory_order_release);
		ring->published = ring->head;
	}
}

/** Put @p entry and commit it at once. Returns its position. */
uint64_t comch_ring_out_publish(struct comch_ring_out *ring, const void *entry, size_t size);
/**
 * Import a ring the peer writes: it must be exported by @p writer_pid (the
 * connection's peer), hold @p cap entries of @p entry_size bytes and, if
 * @p writable (a post ring: this side claims posts in it), be exported
 * read-write. On a refusal *why completes "the peer's frame ...".
 */
doca_error_t comch_ring_view_open(struct comch_ring_view *view, struct doca_dev *dev, const uint8_t *desc,
				  uint16_t desc_len, uint32_t cap, size_t entry_size, uint32_t writer_pid,
				  bool writable, const char **why);
void comch_ring_view_close(struct comch_ring_view *view);
/** Read @p ring where it is written (a MsgQ: same process, no export). */
void comch_ring_view_local(struct comch_ring_view *view, const struct comch_ring_out *ring);
/** Whether the ring's writer still writes it: live, revoked (it stopped), or exited. */
enum ferry_link_liveness comch_ring_view_writer(const struct comch_ring_view *view);
/**
 * Read the first @p size bytes of the entry at the view's tail (entries are
 * @p stride bytes apart) into @p entry. DOCA_SUCCESS,
 * DOCA_ERROR_AGAIN (nothing new), DOCA_ERROR_NOT_CONNECTED (unreadable), or
 * DOCA_ERROR_INVALID_VALUE (the head claims more entries than the ring holds).
 * The caller checks the entry and advances tail.
 */
static inline doca_error_t comch_ring_view_peek(struct comch_ring_view *view, void *entry, size_t stride, size_t size)
{
	if (!comch_ring_view_is_open(view))
		return DOCA_ERROR_NOT_CONNECTED;
	/*
	 * The head is read again only once the entries it announced are used up:
	 * a batch costs one look at the writer's line, not one per entry.
	 */
	if (view->seen == view->tail) {
		uint64_t head;

		/*
		 * The entry's line on its way together with the head's (a hint: it
		 * never faults, nothing is read from it before the head says so): a
		 * new entry costs one wait for the writer's core, not two in a row.
		 */
		__builtin_prefetch(view->entries + (view->tail & (view->cap - 1)) * stride);
		head = atomic_load_explicit(&view->hdr->head, memory_order_acquire); /* the writer's release */

		if (head == view->tail)
			return DOCA_ERROR_AGAIN;
		if (head - view->tail > view->cap)
			return DOCA_ERROR_INVALID_VALUE;
		view->seen = head;
		/* The other entries announced, up to a slice and a half, on their way at once too (hints). */
		for (uint64_t pos = view->tail + 1; pos != head && pos - view->tail < COMCH_PREFETCH_ENTRIES; pos++)
			__builtin_prefetch(view->entries + (pos & (view->cap - 1)) * stride);
	}
	memcpy(entry, view->entries + (view->tail & (view->cap - 1)) * stride, size);
	/*
	 * The peer may rewrite the entry at any time: the caller checks and uses
	 * only this copy. The compiler must not read the shared entry again in its
	 * stead (now that the copy is inline), so it forgets what memory holds here.
	 */
	atomic_signal_fence(memory_order_seq_cst);
	return DOCA_SUCCESS;
}

/** Ring the bell whose token is in @p slot, if any (after a full fence: see Event mode). */
void comch_ring_bell(_Atomic uint64_t *slot);
/** Leave @p token in @p slot, then whether @p view has an entry past its tail: if not, sleeping is safe. */
bool comch_ring_wait_bell(_Atomic uint64_t *slot, uint64_t token, const struct comch_ring_view *view);

/* peers.c, continued */
/**
 * The oldest post of @p r not taken yet, checked: DOCA_SUCCESS, DOCA_ERROR_AGAIN
 * (none), DOCA_ERROR_NOT_FOUND (the consumer stopped: its ring is revoked), or
 * DOCA_ERROR_NOT_CONNECTED (the ring is unreadable or lies, or its consumer's
 * process is gone: the connection is marked broken and a line logged).
 */
doca_error_t comch_fast_peek_post(struct comch_fast_hub *hub, struct comch_remote_consumer *r, struct comch_post *post);
/**
 * Make the post at the tail of @p r this side's: taken already in this pass,
 * or taken now with up to @p want - 1 more after it (one compare-and-swap of
 * the claim word). DOCA_SUCCESS, DOCA_ERROR_NOT_FOUND (the consumer revoked
 * its posts: it stops), DOCA_ERROR_NOT_CONNECTED (the word lies: the
 * connection is marked broken).
 */
doca_error_t comch_fast_claim(struct comch_fast_hub *hub, struct comch_remote_consumer *r, uint32_t want);
/**
 * End of a producer's pass: give back the posts of @p r taken and not used.
 * If the consumer revoked meanwhile they are its flush no more: each gets a
 * failed completion (no byte was written). Returns whether completions were put.
 */
bool comch_fast_unclaim(struct comch_fast_hub *hub, struct comch_remote_consumer *r, uint32_t producer_id);
/**
 * Record a consumer the peer announced: DOCA_SUCCESS (ready, or already
 * stopped: a record without memory), else the frame breaks the protocol
 * (*why says how; the caller ends the connection).
 */
doca_error_t comch_peers_add(struct comch_fast_hub *hub, const struct ferry_frame_consumer_up *up, const char **why);
/**
 * A MsgQ consumer comes up (hub locked): its record, reading its post ring in
 * place, with a completion ring it reads in place too. Immediate data only.
 */
doca_error_t comch_peers_add_local(struct comch_fast_hub *hub, uint32_t id, uint32_t imm_data_len,
				   const struct comch_ring_out *posts, struct comch_ring_view *dones);
/** Forget the peer's consumer @p id; false when there is none. */
bool comch_peers_remove(struct comch_fast_hub *hub, uint32_t id);
/** Forget every consumer of the peer (the connection ends). */
void comch_peers_clear(struct comch_fast_hub *hub);

/*
 * producer.c, consumer.c: a producer or consumer on @p hub (a connection's or a
 * MsgQ's), FULL when the hub has @p max of them already (counted under its lock).
 */
doca_error_t comch_producer_new(struct comch_fast_hub *hub, uint32_t max, struct doca_comch_producer **producer);
doca_error_t comch_consumer_new(struct comch_fast_hub *hub, struct doca_mmap *buf_mmap, uint32_t max,
				struct doca_comch_consumer **consumer);

/* consumer.c (called by fastpath.c, with the hub's lock held) */
uint32_t comch_consumer_on_done_ring(struct comch_fast_hub *hub, const struct ferry_frame_done_ring *ring,
				     const char **why);

#endif /* FERRY_COMCH_FAST_H_ */
