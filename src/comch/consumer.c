/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * consumer.c - doca_comch_consumer: post buffers that producers of the peer fill.
 * Design notes in fast_priv.h.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_comch_consumer.h>
#include <doca_mmap.h>
#include <ferry_mem.h>

#include "comch/fast_priv.h"
#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_memview.h"

FERRY_LOG_MODULE("comch");

static struct doca_comch_consumer *consumer_of_ctx(struct doca_ctx *ctx)
{
	return ferry_container_of(ctx, struct doca_comch_consumer, ctx);
}

static struct doca_comch_consumer_task_post_recv *task_at(struct doca_comch_consumer *c, uint32_t slot)
{
	return (struct doca_comch_consumer_task_post_recv *)((char *)c->pool.mem + (size_t)slot * c->pool.elem_size);
}

static uint32_t slot_of(const struct doca_comch_consumer *c, const struct doca_comch_consumer_task_post_recv *task)
{
	return (uint32_t)((size_t)((const char *)task - (const char *)c->pool.mem) / c->pool.elem_size);
}

static void finish(struct doca_comch_consumer *c, struct doca_comch_consumer_task_post_recv *task, doca_error_t status)
{
	task->posted = false;
	c->num_posted--;
	task->base.status = status;
	ferry_task_list_push(&c->done, &task->base);
}

/*
 * After a batch of finish(), all on the consumer's own thread: one wake of its
 * PE (no fence: the arming came before on this thread), not one per completion.
 */
static void wake_own(struct doca_comch_consumer *c)
{
	if (c->done.head != NULL && c->ctx.pe != NULL)
		ferry_pe_wake_own(c->ctx.pe);
}

static void fail_posted(struct doca_comch_consumer *c, doca_error_t status)
{
	if (c->pool.mem == NULL)
		return;
	for (uint32_t i = 0; i < c->pool.capacity; i++) {
		struct doca_comch_consumer_task_post_recv *task = task_at(c, i);

		if (task->base.state == FERRY_TASK_SUBMITTED && task->posted)
			finish(c, task, status);
	}
}

static struct doca_comch_consumer *find_consumer(const struct comch_fast_hub *hub, uint32_t id)
{
	for (struct doca_comch_consumer *c = hub->consumers; c != NULL; c = c->next)
		if (c->id == id)
			return c;
	return NULL;
}

uint32_t comch_consumer_on_done_ring(struct comch_fast_hub *hub, const struct ferry_frame_done_ring *ring,
				     const char **why)
{
	struct doca_comch_consumer *c = find_consumer(hub, ring->consumer_id);

	if (c == NULL || !c->announced) {
		/* It stopped after its CONSUMER_UP left: the peer forgets it on the CONSUMER_DOWN that follows. */
		FERRY_DBG("comch: DONE_RING for consumer %u, which is not up", ring->consumer_id);
		return 0;
	}
	/* Also while stopping: posts a producer took complete through this ring. */
	if (comch_ring_view_is_open(&c->dones) || ring->ring_cap != c->posts.cap) {
		*why = "DONE_RING twice for one consumer, or of another size than its post ring";
		return UINT32_MAX;
	}
	if (comch_ring_view_open(&c->dones, hub->dev, ring->desc, ring->desc_len, ring->ring_cap, COMCH_DONE_BYTES,
				 (uint32_t)hub->peer_pid, false, why) != DOCA_SUCCESS)
		return UINT32_MAX;
	atomic_store_explicit(&c->dones_open, true, memory_order_release); /* the consumer may poll it unlocked */
	if (c->wakeable)
		ferry_pe_wake(c->ctx.pe);
	return 0;
}

/* Close the completion ring (on the consumer's thread, hub locked): polls go by the lock again. */
static void dones_close(struct doca_comch_consumer *c)
{
	atomic_store_explicit(&c->dones_open, false, memory_order_relaxed);
	comch_ring_view_close(&c->dones);
}

/* The peer's completion ring lied: end the connection (its posts fail when it is reaped). */
static uint32_t dones_broken(struct doca_comch_consumer *c, const char *rule)
{
	FERRY_ERR("comch consumer %u: the peer's completion ring %s; connection closed", c->id, rule);
	dones_close(c);
	comch_hub_break(c->hub);
	return 0;
}

/* One completion from the ring: it must name a buffer posted now (slot and generation) and fit it. */
static bool take_done(struct doca_comch_consumer *c, const struct comch_done *done)
{
	struct doca_comch_consumer_task_post_recv *task;

	if (done->slot >= c->pool.capacity)
		return false;
	task = task_at(c, done->slot);
	if (!task->posted || task->generation != done->generation || done->len > task->room_len ||
	    done->imm_len > c->imm_data_len || done->producer_id == 0)
		return false;
	if (done->failed != 0) {
		/* Taken, then the producer could not fill it: the buffer is ours again. */
		finish(c, task, DOCA_ERROR_IO_FAILED);
		return true;
	}
	/* A task freed in flight may hold a buf the program gave back: leave it alone (a MsgQ's has none). */
	if (!task->base.orphaned && task->buf != NULL && task->room != NULL) {
		if (ferry_buf_data(task->buf) == task->room) /* as posted: only the length changes */
			ferry_buf_set_data_len_trusted(task->buf, done->len);
		else
			(void)doca_buf_set_data(task->buf, task->room, done->len);
	}
	c->num_received++;
	task->producer_id = done->producer_id;
	task->imm_len = done->imm_len;
	if (done->imm_len != 0) /* at most imm_data_len (checked above): the task's room */
		memcpy(task->imm, comch_done_imm(c->dones.entries, c->dones.cap, c->dones.tail), done->imm_len);
	finish(c, task, DOCA_SUCCESS);
	return true;
}

/*
 * Nothing new in the completion ring: if the producers' process is gone (a
 * consumer progressed alone sees no connection event), what is posted fails.
 * Completions published before the end were read first.
 */
static void check_producers_alive(struct doca_comch_consumer *c)
{
	struct comch_done done;
	enum ferry_link_liveness l = comch_ring_view_writer(&c->dones);

	if (l == FERRY_LINK_LIVE ||
	    comch_ring_view_peek(&c->dones, &done, sizeof(done), sizeof(done)) != DOCA_ERROR_AGAIN)
		return;
	/* Revoked: the peer forgot this consumer (it left in order), so nothing more is written. */
	if (l == FERRY_LINK_EXITED)
		FERRY_WARN("comch consumer %u: the peer's process is gone; posted buffers fail", c->id);
	else
		FERRY_INFO("comch consumer %u: the peer left (its completion ring was revoked); posted buffers fail",
			   c->id);
	fail_posted(c, DOCA_ERROR_NOT_CONNECTED);
	dones_close(c);
	if (l == FERRY_LINK_EXITED)
		comch_hub_break(c->hub);
}

/* Read the completions the peer published since the last call (hub locked). */
static uint32_t read_dones(struct doca_comch_consumer *c)
{
	struct comch_done done;
	uint32_t n = 0;
	doca_error_t err;

	while (c->num_posted != 0 && comch_ring_view_is_open(&c->dones) &&
	       (err = comch_ring_view_peek(&c->dones, &done, sizeof(done), sizeof(done))) != DOCA_ERROR_AGAIN) {
		if (err == DOCA_ERROR_INVALID_VALUE)
			return dones_broken(c, "claims more completions than it holds");
		if (err != DOCA_SUCCESS)
			return n; /* the peer is gone: the connection's end fails the posts */
		if (!take_done(c, &done))
			return dones_broken(c, "names a buffer that is not posted, or overfills it");
		c->dones.tail++;
		n++;
	}
	if (n == 0 && c->num_posted != 0 && comch_ring_view_is_open(&c->dones) &&
	    ++c->empty_polls % COMCH_LIVENESS_EVERY == 0)
		check_producers_alive(c);
	return n;
}

/*
 * Poll the completion ring. Once the connection is gone, on this thread: what
 * is posted fails (the completions published before the end were read first,
 * while the ring was there).
 */
static void poll_dones(struct doca_comch_consumer *c)
{
	if (c->num_posted == 0 && !c->announced)
		return;
	/*
	 * Nothing new (the common poll): no lock. The completion ring of a
	 * connection's consumer is opened by the connection's thread (then
	 * dones_open is released) and closed only on this thread, so it is
	 * there to look at. Every COMCH_LIVENESS_EVERY-th empty poll, and every
	 * poll once the connection is gone, takes the way below.
	 */
	if (atomic_load_explicit(&c->dones_open, memory_order_acquire) && c->num_posted != 0 &&
	    !atomic_load_explicit(&c->hub->gone, memory_order_relaxed) && c->dones.seen == c->dones.tail &&
	    (c->empty_polls + 1) % COMCH_LIVENESS_EVERY != 0) {
		__builtin_prefetch(c->dones.entries + (c->dones.tail & (c->dones.cap - 1)) * sizeof(struct comch_done));
		if (atomic_load_explicit(&c->dones.hdr->head, memory_order_acquire) == c->dones.tail) {
			c->empty_polls++;
			return;
		}
	}
	pthread_mutex_lock(&c->hub->lock);
	/* Still mapped after the end: what the producers published before it is data, not lost. */
	(void)read_dones(c);
	if (atomic_load_explicit(&c->hub->gone, memory_order_relaxed)) {
		fail_posted(c, DOCA_ERROR_NOT_CONNECTED);
		dones_close(c);
		c->announced = false;
	}
	pthread_mutex_unlock(&c->hub->lock);
	wake_own(c);
}

/* ---- context ops ---- */

/* The post ring: shareable memory the peer maps (read only) and polls. */
static doca_error_t ring_open(struct doca_comch_consumer *c, const void **desc, size_t *desc_len)
{
	uint32_t cap = 1;

	while (cap < c->pool.capacity)
		cap <<= 1;
	/* Read-write for the peer: its producers claim posts in it (and can harm only themselves). */
	if (comch_ring_out_open(&c->posts, COMCH_RING_MAGIC, cap, sizeof(struct comch_post),
				DOCA_ACCESS_FLAG_PCI_READ_WRITE, c->hub->dev, desc, desc_len) != DOCA_SUCCESS)
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_NO_MEMORY,
				     "comch consumer %u: cannot set up its post ring", c->id);
	return DOCA_SUCCESS;
}

static doca_error_t announce(struct doca_comch_consumer *c, const void *desc, size_t desc_len, const void *ring_desc,
			     size_t ring_desc_len)
{
	const char *call = "doca_ctx_start";
	uint8_t frame[FERRY_FRAME_UP_MAX];
	struct ferry_frame_consumer_up up = {
		.consumer_id = c->id,
		.imm_data_len = c->imm_data_len,
		.ring_cap = c->posts.cap,
		.desc = desc,
		.desc_len = desc_len > FERRY_FRAME_DESC_MAX ? 0 : (uint16_t)desc_len,
		.ring_desc = ring_desc,
		.ring_desc_len = ring_desc_len > FERRY_FRAME_DESC_MAX ? 0 : (uint16_t)ring_desc_len,
	};
	size_t n = ferry_frame_build_consumer_up(frame, &up);
	doca_error_t err;

	if (n == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED, "comch consumer %u: export descriptors too long",
				     c->id);
	/* Announced before the frame leaves: the peer's DONE_RING may come back at once. */
	pthread_mutex_lock(&c->hub->lock);
	c->announced = true;
	c->wakeable = true;
	err = comch_hub_send(c->hub, frame, n);
	if (err != DOCA_SUCCESS) {
		c->announced = false;
		c->wakeable = false;
	}
	pthread_mutex_unlock(&c->hub->lock);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN(
			call, err == DOCA_ERROR_NO_MEMORY ? DOCA_ERROR_NO_MEMORY : DOCA_ERROR_NOT_CONNECTED,
			"comch consumer %u: cannot announce it to the peer (%s)", c->id, doca_error_get_name(err));
	return DOCA_SUCCESS;
}

/* A MsgQ consumer comes up in place: its record and completion ring, no export, no frame. */
static doca_error_t msgq_consumer_start(struct doca_comch_consumer *c)
{
	const void *ring_desc = NULL;
	size_t ring_desc_len = 0;
	doca_error_t err = ring_open(c, &ring_desc, &ring_desc_len);

	if (err != DOCA_SUCCESS)
		return err;
	pthread_mutex_lock(&c->hub->lock);
	err = comch_peers_add_local(c->hub, c->id, c->imm_data_len, &c->posts, &c->dones);
	c->announced = err == DOCA_SUCCESS;
	c->wakeable = c->announced;
	pthread_mutex_unlock(&c->hub->lock);
	if (err != DOCA_SUCCESS) {
		comch_ring_out_close(&c->posts);
		return err;
	}
	c->num_posted = 0;
	return DOCA_ERROR_IN_PROGRESS; /* RUNNING at the next progress, as over a connection */
}

static doca_error_t consumer_start(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of_ctx(ctx);
	const char *call = "doca_ctx_start";
	const void *desc = NULL, *ring_desc = NULL;
	size_t desc_len = 0, ring_desc_len = 0;
	doca_error_t err;

	if (!comch_hub_usable(c->hub))
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_CONNECTED, "comch consumer %u: its connection has ended",
				     c->id);
	if (c->hub->msgq != NULL)
		return msgq_consumer_start(c);
	if (!ferry_mmap_is_usable(c->mmap) || (ferry_mmap_access(c->mmap) & DOCA_ACCESS_FLAG_PCI_READ_WRITE) == 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE,
				     "comch consumer %u: its mmap must be started with DOCA_ACCESS_FLAG_PCI_READ_WRITE",
				     c->id);
	err = doca_mmap_export_pci(c->mmap, c->hub->dev, &desc, &desc_len);
	if (err != DOCA_SUCCESS)
		return err; /* logged by the export */
	err = ring_open(c, &ring_desc, &ring_desc_len);
	if (err == DOCA_SUCCESS)
		err = announce(c, desc, desc_len, ring_desc, ring_desc_len);
	if (err != DOCA_SUCCESS) {
		comch_ring_out_close(&c->posts);
		return err;
	}
	c->num_posted = 0;
	/* As in DOCA, the consumer becomes RUNNING from progress once it is registered with the peer. */
	return DOCA_ERROR_IN_PROGRESS;
}

/*
 * What is wrong with the claim word @p word a stop found, or NULL when the
 * consumer cannot tell it from the truth. A count only ever covers posts the
 * producers' side saw published, and never fewer than it completed (@p done:
 * each completion is of a post it took, and it gives back only posts it has
 * not used); REVOKED is the consumer's own bit, set once, by this stop.
 */
static const char *claim_lie(const struct doca_comch_consumer *c, uint64_t word, uint64_t done)
{
	if ((word & COMCH_CLAIM_REVOKED) != 0)
		return "has REVOKED set, which only the consumer writes";
	if (word > c->posts.published)
		return "counts posts beyond the ring's head";
	if (word < done)
		return "counts fewer posts than the completions it wrote";
	return NULL;
}

/*
 * Take back every post no producer has claimed and flush it; a post a
 * producer took completes through the completion ring (fast_priv.h, claims).
 * One atomic for all: after it, no producer's claim succeeds. A count the
 * consumer can see is a lie ends the connection, and every post fails now.
 */
static void revoke_posted(struct doca_comch_consumer *c)
{
	uint64_t word, taken, done;
	const char *lie;

	if (c->pool.mem == NULL || c->posts.hdr == NULL)
		return;
	word = atomic_fetch_or_explicit(&c->posts.hdr->claimed, COMCH_CLAIM_REVOKED, memory_order_acq_rel);
	taken = word & ~COMCH_CLAIM_REVOKED;
	/*
	 * The completions read from this run's completion ring, under the lock
	 * (the connection's thread may be opening it); a closed one may hold the
	 * count of a run before.
	 */
	pthread_mutex_lock(&c->hub->lock);
	done = comch_ring_view_is_open(&c->dones) ? c->dones.tail : 0;
	lie = claim_lie(c, word, done);
	if (lie != NULL) {
		/* Posts below it would wait for completions that cannot come: the peer lied, so none is its. */
		FERRY_ERR("comch consumer %u: the peer's claim word %s (0x%" PRIx64 "; head %" PRIu64
			  ", completions read %" PRIu64 "); connection closed",
			  c->id, lie, word, c->posts.published, done);
		fail_posted(c, DOCA_ERROR_NOT_CONNECTED);
		dones_close(c);
		comch_hub_break(c->hub);
	}
	pthread_mutex_unlock(&c->hub->lock);
	if (lie != NULL)
		return;
	/*
	 * A count the consumer cannot tell from the truth: posts below it wait
	 * for their completions (or the connection's end), posts from it on are
	 * no producer's and are flushed now.
	 */
	for (uint32_t i = 0; i < c->pool.capacity; i++) {
		struct doca_comch_consumer_task_post_recv *task = task_at(c, i);

		if (task->base.state == FERRY_TASK_SUBMITTED && task->posted && task->ring_pos >= taken)
			finish(c, task, DOCA_ERROR_IO_FAILED);
	}
}

static void consumer_stop(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of_ctx(ctx);

	revoke_posted(c);
	wake_own(c);
}

/*
 * Every post is complete: only now may the peer forget this consumer (and its
 * completion ring). A CONSUMER_DOWN sent at stop could overtake the DONE_RING
 * the peer sent for posts it already filled, and their data would be lost.
 */
static void consumer_stopped(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of_ctx(ctx);
	uint8_t frame[FERRY_FRAME_DOWN_LEN];

	pthread_mutex_lock(&c->hub->lock);
	if (c->announced && c->hub->msgq != NULL) {
		dones_close(c); /* it reads the ring the record owns */
		(void)comch_peers_remove(c->hub, c->id);
		comch_hub_wake_users(c->hub); /* sends waiting for it fail at their next progress */
	} else if (c->announced) {
		(void)comch_hub_send(c->hub, frame, ferry_frame_build_consumer_down(frame, c->id));
	}
	c->announced = false;
	c->wakeable = false;
	dones_close(c);
	pthread_mutex_unlock(&c->hub->lock);
	comch_ring_out_close(&c->posts);
}

/* Post @p room (@p len bytes; none for a MsgQ) into the ring: no system call, no lock. */
static doca_error_t post_publish(struct doca_comch_consumer *c, struct doca_comch_consumer_task_post_recv *post,
				 void *room, uint32_t len)
{
	post->room = room;
	post->room_len = len;
	post->generation = ++c->next_generation;
	post->posted = true;
	c->num_posted++;
	struct comch_post *e = comch_ring_out_next(&c->posts, sizeof(*e), &post->ring_pos);

	e->addr = (uint64_t)(uintptr_t)room;
	e->len = len;
	e->slot = post->slot;
	e->generation = post->generation;
	e->reserved = 0;
	c->post_bell_due = true;
	/*
	 * Posted from this consumer's completion callbacks (a stream reposts),
	 * more posts follow: the progress running them publishes them together
	 * (one head store). Otherwise at once.
	 */
	if (!c->completing || c->posts.head - c->posts.published >= COMCH_PRODUCER_SLICE)
		comch_ring_out_commit(&c->posts);
	return DOCA_SUCCESS;
}

static doca_error_t consumer_submit(struct doca_task *task)
{
	struct doca_comch_consumer_task_post_recv *post = ferry_container_of(
		task, struct doca_comch_consumer_task_post_recv, base);
	struct doca_comch_consumer *c = consumer_of_ctx(task->ctx);
	void *data = NULL;
	size_t len = 0;

	if (!comch_hub_usable(c->hub))
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_NOT_CONNECTED,
				     "comch consumer %u: its connection has ended", c->id);
	if (c->hub->msgq != NULL)
		return post_publish(c, post, NULL, 0); /* a MsgQ's messages are immediate data: no buffer */
	if (post->buf == NULL || ferry_buf_mmap(post->buf) != c->mmap)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "comch consumer %u: the buf must come from the consumer's mmap", c->id);
	/* The producer writes from the data address on, up to the buffer's end. */
	data = ferry_buf_data(post->buf);
	len = ferry_buf_data_len(post->buf) + ferry_buf_room_after_data(post->buf);
	if (len == 0 || len > COMCH_FAST_MAX_BUF_SIZE)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "comch consumer %u: a posted buffer needs 1..%u bytes of room, not %zu", c->id,
				     COMCH_FAST_MAX_BUF_SIZE, len);
	return post_publish(c, post, data, (uint32_t)len);
}

/* Posts went out since the last look: publish them, and wake a producer-side PE that sleeps on this ring. */
static void ring_post_bell(struct doca_comch_consumer *c)
{
	if (!c->post_bell_due || c->posts.hdr == NULL)
		return;
	c->post_bell_due = false;
	comch_ring_out_commit(&c->posts);
	comch_ring_bell(&c->posts.hdr->post_waiter);
}

/*
 * Whether this consumer's PE may sleep with buffers posted (event mode): its
 * bell is in the ring's header and no completion came after it was put there.
 * The connection's thread wakes it when the completion ring arrives or the
 * connection ends.
 */
static bool may_sleep(struct doca_comch_consumer *c)
{
	uint64_t token = ferry_pe_bell(c->ctx.pe);
	bool quiet;

	if (token == 0 || c->posts.hdr == NULL)
		return false;
	pthread_mutex_lock(&c->hub->lock);
	if (atomic_load_explicit(&c->hub->gone, memory_order_relaxed))
		quiet = false;
	else if (!comch_ring_view_is_open(&c->dones))
		quiet = true;
	else
		quiet = comch_ring_wait_bell(&c->posts.hdr->done_waiter, token, &c->dones);
	pthread_mutex_unlock(&c->hub->lock);
	return quiet;
}

static uint32_t consumer_progress(struct doca_ctx *ctx)
{
	/* The peer reads the ring only once it handled CONSUMER_UP, so posts made from now on are safe to publish. */
	if (ctx->state == DOCA_CTX_STATE_STARTING) {
		ferry_ctx_set_running(ctx);
		return 1;
	}
	struct doca_comch_consumer *c = consumer_of_ctx(ctx);
	uint32_t n;

	poll_dones(c);
	c->completing = true;
	n = comch_list_complete(&c->done); /* callbacks may post again */
	c->completing = false;
	ring_post_bell(c);
	return n;
}

static bool consumer_has_pending(struct doca_ctx *ctx)
{
	struct doca_comch_consumer *c = consumer_of_ctx(ctx);

	if (ctx->state == DOCA_CTX_STATE_STARTING || c->done.head != NULL)
		return true;
	ring_post_bell(c);
	if (c->num_posted == 0)
		return false;
	/* Completions came lately: keep polling a moment (a wake-up costs more than a stream's gap). */
	if (comch_recently_busy(&c->spin, c->num_received))
		return true;
	/* Posted buffers: sleep if a producer will ring (event mode), else keep polling. */
	return !may_sleep(c);
}

static const struct ferry_ctx_ops consumer_ops = {
	.start = consumer_start,
	.stop = consumer_stop,
	.stopped = consumer_stopped,
	.submit = consumer_submit,
	.progress = consumer_progress,
	.has_pending = consumer_has_pending,
};

static void post_recv_complete(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data,
			       bool success)
{
	struct doca_comch_consumer *c = consumer_of_ctx(task->ctx);

	(success ? c->ok_cb : c->err_cb)(ferry_container_of(task, struct doca_comch_consumer_task_post_recv, base),
					 task_user_data, ctx_user_data);
}

/* ---- public API ---- */

doca_error_t comch_consumer_new(struct comch_fast_hub *hub, struct doca_mmap *buf_mmap, uint32_t max,
				struct doca_comch_consumer **consumer)
{
	struct doca_comch_consumer *c = ferry_calloc(1, sizeof(*c));
	doca_error_t err = DOCA_SUCCESS;

	if (c == NULL)
		return FERRY_RULE_IN("doca_comch_consumer_create", DOCA_ERROR_NO_MEMORY, "no memory");
	ferry_ctx_init(&c->ctx, &consumer_ops, "comch_consumer", hub->dev);
	ferry_ctx_add_pool(&c->ctx, &c->pool, "comch consumer post recv",
			   sizeof(struct doca_comch_consumer_task_post_recv), post_recv_complete);
	c->id = comch_fast_new_id();
	c->mmap = buf_mmap;
	c->hub = hub;
	pthread_mutex_lock(&hub->lock);
	if (hub->num_consumers >= max) {
		err = DOCA_ERROR_FULL;
	} else {
		c->next = hub->consumers;
		hub->consumers = c;
		hub->num_consumers++;
		hub->refs++;
	}
	pthread_mutex_unlock(&hub->lock);
	if (err != DOCA_SUCCESS) {
		free(c);
		return FERRY_RULE_IN("doca_comch_consumer_create", err, "%s %u has %u consumers already",
				     hub->msgq != NULL ? "MsgQ" : "connection", hub->conn_id, max);
	}
	*consumer = c;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_create(struct doca_comch_connection *comch_connection, struct doca_mmap *buf_mmap,
					struct doca_comch_consumer **consumer)
{
	FERRY_ARG_NOT_NULL(comch_connection);
	FERRY_ARG_NOT_NULL(buf_mmap);
	FERRY_ARG_NOT_NULL(consumer);
	if (!comch_conn_is_live(comch_connection))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "connection %p is not a live, established connection",
				  (void *)comch_connection);
	return comch_consumer_new(comch_connection->hub, buf_mmap, COMCH_FAST_MAX_CONSUMERS, consumer);
}

doca_error_t doca_comch_consumer_destroy(struct doca_comch_consumer *consumer)
{
	struct comch_fast_hub *hub;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(consumer);
	err = ferry_ctx_check_destroyable(&consumer->ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	hub = consumer->hub;
	pthread_mutex_lock(&hub->lock);
	for (struct doca_comch_consumer **pp = &hub->consumers; *pp != NULL; pp = &(*pp)->next)
		if (*pp == consumer) {
			*pp = consumer->next;
			hub->num_consumers--;
			break;
		}
	pthread_mutex_unlock(&hub->lock);
	comch_hub_unref(hub);
	ferry_ctx_fini(&consumer->ctx);
	free(consumer);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	int dummy = 0;

	return comch_cap_check(__func__, devinfo, &dummy);
}

doca_error_t doca_comch_consumer_get_id(const struct doca_comch_consumer *consumer, uint32_t *id)
{
	FERRY_ARG_NOT_NULL(consumer);
	FERRY_ARG_NOT_NULL(id);
	*id = consumer->id;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks)
{
	return comch_cap_u32(__func__, devinfo, max_num_tasks, COMCH_FAST_MAX_TASKS);
}

doca_error_t doca_comch_consumer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size)
{
	return comch_cap_u32(__func__, devinfo, max_buf_size, COMCH_FAST_MAX_BUF_SIZE);
}

doca_error_t doca_comch_consumer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len)
{
	return comch_cap_u32(__func__, devinfo, max_buf_list_len, 1);
}

doca_error_t doca_comch_consumer_cap_get_max_consumers(const struct doca_devinfo *devinfo, uint32_t *max_consumers)
{
	return comch_cap_u32(__func__, devinfo, max_consumers, COMCH_FAST_MAX_CONSUMERS);
}

doca_error_t doca_comch_consumer_cap_get_max_imm_data_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_imm_data_len)
{
	return comch_cap_u32(__func__, devinfo, max_imm_data_len, FERRY_FRAME_IMM_MAX);
}

doca_error_t doca_comch_consumer_get_imm_data_len(const struct doca_comch_consumer *consumer, uint32_t *imm_data_len)
{
	FERRY_ARG_NOT_NULL(consumer);
	FERRY_ARG_NOT_NULL(imm_data_len);
	*imm_data_len = consumer->imm_data_len;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_set_imm_data_len(struct doca_comch_consumer *consumer, uint32_t imm_data_len)
{
	const char *call = __func__;
	doca_error_t err;

	if (consumer == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "consumer is NULL");
	err = ferry_ctx_check_idle(&consumer->ctx, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (imm_data_len > FERRY_FRAME_IMM_MAX)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "comch consumer %u: %u bytes exceed the cap %u "
				     "(doca_comch_consumer_cap_get_max_imm_data_len)",
				     consumer->id, imm_data_len, FERRY_FRAME_IMM_MAX);
	consumer->imm_data_len = imm_data_len;
	return DOCA_SUCCESS;
}

struct doca_ctx *doca_comch_consumer_as_ctx(struct doca_comch_consumer *consumer)
{
	return consumer == NULL ? NULL : &consumer->ctx;
}

doca_error_t doca_comch_consumer_task_post_recv_set_conf(
	struct doca_comch_consumer *consumer, doca_comch_consumer_task_post_recv_completion_cb_t task_completion_cb,
	doca_comch_consumer_task_post_recv_completion_cb_t task_error_cb, uint32_t num_post_recv_tasks)
{
	const char *call = __func__;
	doca_error_t err;

	if (consumer == NULL || task_completion_cb == NULL || task_error_cb == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "consumer and both callbacks must not be NULL");
	if (num_post_recv_tasks > COMCH_FAST_MAX_TASKS)
		return FERRY_RULE_IN(
			call, DOCA_ERROR_INVALID_VALUE,
			"comch consumer %u: %u tasks exceed the cap %u (doca_comch_consumer_cap_get_max_num_tasks)",
			consumer->id, num_post_recv_tasks, COMCH_FAST_MAX_TASKS);
	err = ferry_task_pool_configure(&consumer->pool, num_post_recv_tasks, call);
	if (err != DOCA_SUCCESS)
		return err;
	consumer->ok_cb = task_completion_cb;
	consumer->err_cb = task_error_cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_consumer_task_post_recv_alloc_init(struct doca_comch_consumer *consumer, struct doca_buf *buf,
							   struct doca_comch_consumer_task_post_recv **task)
{
	const char *call = __func__;
	struct doca_task *base = NULL;
	doca_error_t err;

	if (consumer == NULL || task == NULL || (buf == NULL && consumer->hub->msgq == NULL))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "consumer, buf (but on a MsgQ) and task must not be NULL");
	err = ferry_task_pool_get(&consumer->pool, call, &base);
	if (err != DOCA_SUCCESS)
		return err;
	*task = ferry_container_of(base, struct doca_comch_consumer_task_post_recv, base);
	(*task)->buf = buf;
	(*task)->slot = slot_of(consumer, *task); /* once here: a division, not one per post */
	return DOCA_SUCCESS;
}

struct doca_buf *doca_comch_consumer_task_post_recv_get_buf(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? NULL : task->buf;
}

void doca_comch_consumer_task_post_recv_set_buf(struct doca_comch_consumer_task_post_recv *task, struct doca_buf *buf)
{
	if (task != NULL)
		task->buf = buf;
}

uint32_t doca_comch_consumer_task_post_recv_get_producer_id(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? 0 : task->producer_id;
}

uint8_t *doca_comch_consumer_task_post_recv_get_imm_data(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? NULL : task->imm;
}

uint32_t doca_comch_consumer_task_post_recv_get_imm_data_len(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? 0 : task->imm_len;
}

struct doca_task *doca_comch_consumer_task_post_recv_as_task(struct doca_comch_consumer_task_post_recv *task)
{
	return task == NULL ? NULL : &task->base;
}
