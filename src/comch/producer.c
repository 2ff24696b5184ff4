/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * producer.c - doca_comch_producer: send a doca_buf into a buffer that a
 * consumer of the peer posted. Design notes in fast_priv.h.
 *
 * The copy goes through a copy engine, as a DMA task's does: each producer
 * has an inline channel opened cross_process. A pass over the waiting sends
 * (under the hub's lock) claims a post per send and enqueues its copy with
 * the consumer memory's access path (chosen when it was imported: NULL when
 * mapped here, cross-memory attach otherwise); one doorbell at the end of the
 * pass, or when COMCH_PRODUCER_BATCH copies wait, copies them all (a run into
 * one consumer by cross-memory attach is one gathered process_vm_writev), and
 * each completion is then published in claim order with its copy's status.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_comch_producer.h>

#include "comch/fast_priv.h"
#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "common/ferry_util.h"
#include "core/ferry_memview.h"

FERRY_LOG_MODULE("comch");

static struct doca_comch_producer *producer_of_ctx(struct doca_ctx *ctx)
{
	return ferry_container_of(ctx, struct doca_comch_producer, ctx);
}

/* A send ends: its callback runs at the next progress (whoever ends sends wakes the PE once, see wake_own). */
static void finish(struct doca_comch_producer *p, struct doca_comch_producer_task_send *task, doca_error_t status)
{
	task->base.status = status;
	ferry_task_list_push(&p->done, &task->base);
}

/*
 * After a batch of finish(), all on the producer's own thread: one wake of
 * its PE, for a program that armed it and then submitted (no fence: the
 * arming came before on this thread), not one per send.
 */
static void wake_own(struct doca_comch_producer *p)
{
	if (p->done.head != NULL && p->ctx.pe != NULL)
		ferry_pe_wake_own(p->ctx.pe);
}

/* Tell the consumer: one entry in the completion ring this side writes for it (a taken post always gets one). */
static void publish_done(struct doca_comch_producer *p, struct comch_remote_consumer *r,
			 const struct doca_comch_producer_task_send *task, const struct comch_post *post, size_t len,
			 doca_error_t status)
{
	uint32_t imm_len = status == DOCA_SUCCESS ? task->imm_len : 0;
	uint64_t pos;
	/* Visible to the consumer at the end of the pass (ring_done_bells): one head store per batch. */
	struct comch_done *done = comch_ring_out_next(&r->dones, sizeof(*done), &pos);

	done->slot = post->slot;
	done->generation = post->generation;
	done->len = status == DOCA_SUCCESS ? (uint32_t)len : 0;
	done->producer_id = p->id;
	done->imm_len = imm_len;
	done->failed = status != DOCA_SUCCESS;
	done->reserved[0] = 0;
	done->reserved[1] = 0;
	if (imm_len != 0)
		memcpy((uint8_t *)(uintptr_t)comch_done_imm(r->dones.entries, r->dones.cap, pos), task->imm, imm_len);
	r->done_bell_due = true;
}

/* The post ring's header, where the bells are (mapped read-write here, like the claim words). */
static struct comch_ring_hdr *posts_hdr(const struct comch_remote_consumer *r)
{
	return (struct comch_ring_hdr *)(uintptr_t)r->posts.hdr;
}

/*
 * After a batch (hub locked): give back the posts taken and not used, publish
 * the completions it wrote, and wake the consumers' PEs that sleep until one
 * comes.
 */
static void ring_done_bells(struct doca_comch_producer *p)
{
	for (struct comch_remote_consumer *r = p->hub->remotes; r != NULL; r = r->next) {
		if (comch_fast_unclaim(p->hub, r, p->id))
			r->done_bell_due = true;
		if (r->done_bell_due) {
			r->done_bell_due = false;
			comch_ring_out_commit(&r->dones);
			if (r->posts.hdr != NULL)
				comch_ring_bell(&posts_hdr(r)->done_waiter);
		}
	}
}

/*
 * Take the post at the tail for a send of @p len bytes: DOCA_SUCCESS (taken:
 * ours to fill), DOCA_ERROR_AGAIN (none posted), DOCA_ERROR_TOO_BIG (it stays
 * posted), or another error. @p want: the sends of this pass still to serve,
 * so one claim takes posts for all of them (comch_fast_claim).
 */
static doca_error_t take_post(struct doca_comch_producer *p, struct comch_remote_consumer *r, size_t len, uint32_t want,
			      struct comch_post *post)
{
	doca_error_t err = comch_fast_peek_post(p->hub, r, post);

	if (err != DOCA_SUCCESS)
		return err;
	err = comch_fast_claim(p->hub, r, want);
	if (err != DOCA_SUCCESS)
		return err;
	/* Taken by this side but not used: the next send may have it, or the pass gives it back. */
	if (len > post->len)
		return DOCA_ERROR_TOO_BIG;
	r->posts.tail++;
	/* Where the next post of this consumer will be: an idle progress fetches those lines ahead (prefetch_posts). */
	p->next_post_head = &r->posts.hdr->head;
	p->next_post = r->posts.entries + (r->posts.tail & (r->posts.cap - 1)) * sizeof(struct comch_post);
	return DOCA_SUCCESS;
}

/*
 * Nothing waits: bring the lines of the next post of the consumer last sent
 * to (its ring's head and entry) into this core's cache, so that the next
 * send, a reply most likely, finds the post without a wait for the
 * consumer's core. A prefetch is a hint: it never faults (the ring may be
 * gone meanwhile) and nothing is read from it; the send reads and checks the
 * ring as always.
 */
static inline void prefetch_posts(const struct doca_comch_producer *p)
{
	if (p->next_post != NULL) {
		__builtin_prefetch(p->next_post_head);
		__builtin_prefetch(p->next_post);
	}
}

/* Copy what the channel holds, then publish each completion and finish each send, in claim order. */
static void copies_flush(struct doca_comch_producer *p)
{
	struct ferry_copy_cpl cpl[COMCH_PRODUCER_BATCH];
	uint32_t n = p->num_copies, got = 0;

	if (n == 0)
		return;
	ferry_chan_doorbell(p->chan);
	/* An inline channel has copied everything at the doorbell. */
	while (got < n)
		got += ferry_chan_poll(p->chan, cpl + got, n - got);
	for (uint32_t i = 0; i < n; i++) {
		const struct comch_send_copy *c = &p->copies[i];

		publish_done(p, c->r, c->task, &c->post, c->len, cpl[i].status);
		finish(p, c->task, cpl[i].status);
		/* The consumer may start on these while the pass copies the next ones. */
		if (i + 1 == n || c->r != p->copies[i + 1].r)
			comch_ring_out_commit(&c->r->dones);
	}
	p->num_copies = 0;
}

/* A send that ends without a copy: the copies before it complete first, so sends complete in order. */
static void finish_now(struct doca_comch_producer *p, struct doca_comch_producer_task_send *task, doca_error_t status)
{
	copies_flush(p);
	finish(p, task, status);
}

/* The path to a send's own bytes: NULL when they are mapped here (nearly always). */
static inline const struct ferry_access *src_access(const struct doca_comch_producer_task_send *task)
{
	const struct doca_mmap *mmap = task->buf != NULL ? ferry_buf_mmap(task->buf) : NULL;

	return mmap != NULL && ferry_mmap_is_import(mmap) ? ferry_mmap_access_path(mmap) : NULL;
}

/*
 * Put a taken post's copy into the channel. @p checked is the consumer whose
 * memory this pass already found usable (once per pass and consumer: the
 * pass holds the hub's lock and lasts microseconds).
 */
static void copy_into_post(struct doca_comch_producer *p, struct comch_remote_consumer *r,
			   struct doca_comch_producer_task_send *task, const struct comch_post *post, size_t len,
			   const struct comch_remote_consumer **checked)
{
	struct ferry_copy_xdesc x;
	doca_error_t err;

	/* Nothing to copy (a MsgQ's immediate data; its consumer may have no memory): complete in turn. */
	if (len == 0 && p->num_copies == 0) {
		publish_done(p, r, task, post, 0, DOCA_SUCCESS);
		finish(p, task, DOCA_SUCCESS);
		return;
	}
	if (len != 0 && *checked != r) {
		if (!ferry_mmap_is_usable(r->mmap)) {
			copies_flush(p);
			publish_done(p, r, task, post, len, DOCA_ERROR_NOT_CONNECTED);
			finish(p, task, DOCA_ERROR_NOT_CONNECTED);
			return;
		}
		*checked = r;
	}
	/*
	 * A run into memory mapped here goes in slices of COMCH_PRODUCER_SLICE,
	 * published one by one, so the consumer's work overlaps the producer's;
	 * one reached by cross-memory attach in runs of up to a gathered write.
	 */
	if (p->num_copies == COMCH_PRODUCER_BATCH || (r->access == NULL && p->num_copies >= COMCH_PRODUCER_SLICE))
		copies_flush(p);
	x.desc.dst = (void *)(uintptr_t)post->addr;
	x.desc.src = task->buf != NULL ? ferry_buf_data(task->buf) : NULL;
	x.desc.len = len;
	x.desc.cookie = p->num_copies;
	x.src_access = src_access(task);
	x.dst_access = len != 0 ? r->access : NULL;
	err = ferry_chan_enqueue_cross(p->chan, &x);
	if (err != DOCA_SUCCESS) {
		/* Cannot happen (the channel has room for a batch): the claimed post still gets its completion. */
		copies_flush(p);
		publish_done(p, r, task, post, len, err);
		finish(p, task, err);
		return;
	}
	p->copies[p->num_copies++] = (struct comch_send_copy){task, r, *post, len};
}

/* Move one waiting task on (hub locked): true when it is taken care of (either way), false when it still waits. */
static bool serve_one(struct doca_comch_producer *p, struct doca_comch_producer_task_send *task, uint32_t want,
		      const struct comch_remote_consumer **checked)
{
	struct comch_remote_consumer *r = comch_fast_find_remote(p->hub, task->consumer_id);
	size_t len = task->buf != NULL ? ferry_buf_data_len(task->buf) : 0; /* a MsgQ's sends may carry none */
	struct comch_post post;
	doca_error_t err;

	if (r == NULL) {
		finish_now(p, task, DOCA_ERROR_NOT_FOUND);
		return true;
	}
	if (task->imm_len > r->imm_data_len) {
		FERRY_ERR("comch producer %u: %u bytes of immediate data exceed consumer %u's %u; send fails", p->id,
			  task->imm_len, r->id, r->imm_data_len);
		finish_now(p, task, DOCA_ERROR_INVALID_VALUE);
		return true;
	}
	/* Our own buffer must be readable before a post is taken: a post taken is a post used up. */
	if (task->buf != NULL && !ferry_mmap_task_may_use(ferry_buf_mmap(task->buf))) {
		FERRY_ERR("comch producer %u: the send's buf belongs to an mmap that is stopped or gone; send fails",
			  p->id);
		finish_now(p, task, DOCA_ERROR_NOT_CONNECTED);
		return true;
	}
	err = take_post(p, r, len, want, &post);
	if (err == DOCA_ERROR_AGAIN)
		return false; /* no posted buffer yet: wait */
	p->num_sent++;
	if (err == DOCA_SUCCESS) {
		copy_into_post(p, r, task, &post, len, checked);
		return true;
	}
	if (err == DOCA_ERROR_TOO_BIG)
		FERRY_ERR("comch producer %u: %zu bytes do not fit consumer %u's posted buffer of %u; send fails",
			  p->id, len, r->id, post.len);
	finish_now(p, task, err);
	return true;
}

static void fail_waiting(struct doca_comch_producer *p, doca_error_t status)
{
	struct doca_task *t;

	while ((t = ferry_task_list_pop(&p->waiting)) != NULL)
		finish(p, ferry_container_of(t, struct doca_comch_producer_task_send, base), status);
	p->num_waiting = 0;
	wake_own(p);
}

/*
 * Serve the waiting sends in order, under the hub's lock (one lock for the
 * batch). Sends to one consumer stay in order: once one of them must wait,
 * the later ones to that consumer wait behind it (a post that turns up
 * meanwhile belongs to the oldest); sends to other consumers go on. Once the
 * connection is gone, every waiting send fails here, on the producer's thread.
 */
static void producer_serve(struct doca_comch_producer *p)
{
	struct ferry_task_list still = {NULL, NULL};
	uint32_t blocked[COMCH_FAST_MAX_CONSUMERS];
	uint32_t num_blocked = 0;
	const struct comch_remote_consumer *checked = NULL;
	struct doca_task *t;

	pthread_mutex_lock(&p->hub->lock);
	if (atomic_load_explicit(&p->hub->gone, memory_order_relaxed)) {
		pthread_mutex_unlock(&p->hub->lock);
		fail_waiting(p, DOCA_ERROR_NOT_CONNECTED);
		return;
	}
	uint32_t left = p->num_waiting, num_still = 0;

	while ((t = ferry_task_list_pop(&p->waiting)) != NULL) {
		struct doca_comch_producer_task_send *task = ferry_container_of(t, struct doca_comch_producer_task_send,
										base);
		bool waits = false;

		for (uint32_t i = 0; i < num_blocked && !waits; i++)
			waits = blocked[i] == task->consumer_id;
		if (!waits && !serve_one(p, task, left, &checked)) {
			waits = true;
			if (num_blocked < COMCH_FAST_MAX_CONSUMERS)
				blocked[num_blocked++] = task->consumer_id;
		}
		left -= left != 0;
		if (waits) {
			ferry_task_list_push(&still, t);
			num_still++;
			/* Every consumer of the peer waits for posts: the rest waits too, in order, without a look. */
			if (num_blocked >= p->hub->num_remotes && p->waiting.head != NULL) {
				still.tail->next = p->waiting.head;
				still.tail = p->waiting.tail;
				num_still += left;
				p->waiting.head = p->waiting.tail = NULL;
			}
		}
	}
	copies_flush(p);
	ring_done_bells(p);
	pthread_mutex_unlock(&p->hub->lock);
	p->waiting = still;
	p->num_waiting = num_still;
	wake_own(p);
}

/* Started producers may be woken by the connection's thread; stopped ones are left alone. */
static void set_wakeable(struct doca_comch_producer *p, bool wakeable)
{
	pthread_mutex_lock(&p->hub->lock);
	p->wakeable = wakeable;
	pthread_mutex_unlock(&p->hub->lock);
}

/* ---- context ops ---- */

static doca_error_t producer_start(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = producer_of_ctx(ctx);

	if (!comch_hub_usable(p->hub))
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_NOT_CONNECTED,
				     "comch producer %u: its connection has ended", p->id);
	set_wakeable(p, true);
	return DOCA_SUCCESS;
}

static void producer_stop(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = producer_of_ctx(ctx);

	set_wakeable(p, false);
	fail_waiting(p, DOCA_ERROR_IO_FAILED);
}

static doca_error_t producer_submit(struct doca_task *task)
{
	struct doca_comch_producer_task_send *send = ferry_container_of(task, struct doca_comch_producer_task_send,
									base);
	struct doca_comch_producer *p = producer_of_ctx(task->ctx);
	size_t len = 0;

	if (!comch_hub_usable(p->hub))
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_NOT_CONNECTED,
				     "comch producer %u: its connection has ended", p->id);
	if ((send->buf == NULL && p->hub->msgq == NULL) || send->imm_len > FERRY_FRAME_IMM_MAX)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "comch producer %u: send task needs a buf and at most %u bytes of "
				     "immediate data",
				     p->id, FERRY_FRAME_IMM_MAX);
	/* Its addresses are the exporter's: read here, they would be whatever this process has there. */
	if (send->buf != NULL && ferry_mmap_rdma_import(ferry_buf_mmap(send->buf)) != NULL)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_NOT_SUPPORTED,
				     "comch producer %u: the send's buf belongs to mmap %p, imported from an RDMA "
				     "export: only DOCA RDMA tasks reach that memory",
				     p->id, (const void *)ferry_buf_mmap(send->buf));
	if (send->buf != NULL)
		len = ferry_buf_data_len(send->buf);
	if (len > COMCH_FAST_MAX_BUF_SIZE)
		return FERRY_RULE_IN("doca_task_submit", DOCA_ERROR_INVALID_VALUE,
				     "comch producer %u: %zu bytes exceed the max buffer size %u", p->id, len,
				     COMCH_FAST_MAX_BUF_SIZE);
	ferry_task_list_push(&p->waiting, task);
	p->num_waiting++;
	/*
	 * Sent from this producer's own completion callbacks (a stream resubmits),
	 * more sends follow: the progress running them serves them together right
	 * after, one lock and one gathered write for all. Otherwise at once: a
	 * lone send (a reply) waits for nothing.
	 */
	if (!p->completing)
		producer_serve(p);
	return DOCA_SUCCESS;
}

static uint32_t producer_progress(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = producer_of_ctx(ctx);

	uint32_t n;

	/* Poll the consumers' post rings for the sends that wait. */
	if (p->waiting.head != NULL)
		producer_serve(p);
	else
		prefetch_posts(p);
	p->completing = true;
	n = comch_list_complete(&p->done);
	p->completing = false;
	if (p->waiting.head != NULL)
		producer_serve(p); /* what the callbacks just sent */
	return n;
}

/*
 * Whether the consumer a waiting send is for lets this PE sleep (hub locked):
 * it is up, no other PE of this side sleeps on it, our bell is in its post
 * ring's header and no post came after it was put there.
 */
static bool consumer_will_ring(struct comch_fast_hub *hub, uint32_t consumer_id, uint64_t token)
{
	struct comch_remote_consumer *r = comch_fast_find_remote(hub, consumer_id);
	uint64_t other;

	if (r == NULL || r->stopped || r->broken || r->posts.hdr == NULL)
		return false; /* the send fails at the next progress */
	other = atomic_load_explicit(&posts_hdr(r)->post_waiter, memory_order_relaxed);
	if (other != 0 && other != token)
		return false;
	return comch_ring_wait_bell(&posts_hdr(r)->post_waiter, token, &r->posts);
}

/* Whether every waiting send may wait asleep (event mode), each consumer having our bell. */
static bool may_sleep(struct doca_comch_producer *p)
{
	uint64_t token = ferry_pe_bell(p->ctx.pe);
	bool quiet = token != 0;

	pthread_mutex_lock(&p->hub->lock);
	if (atomic_load_explicit(&p->hub->gone, memory_order_relaxed))
		quiet = false;
	uint32_t last = 0; /* consumer ids are never 0; sends to one consumer tend to come in runs */
	for (struct doca_task *t = p->waiting.head; t != NULL && quiet; t = t->next) {
		uint32_t id = ferry_container_of(t, struct doca_comch_producer_task_send, base)->consumer_id;

		if (id != last)
			quiet = consumer_will_ring(p->hub, id, token);
		last = id;
	}
	pthread_mutex_unlock(&p->hub->lock);
	return quiet;
}

static bool producer_has_pending(struct doca_ctx *ctx)
{
	struct doca_comch_producer *p = producer_of_ctx(ctx);

	if (p->done.head != NULL)
		return true;
	if (p->waiting.head == NULL)
		return false;
	/* Posts came lately: keep polling a moment (a wake-up costs more than a stream's gap). */
	if (comch_recently_busy(&p->spin, p->num_sent))
		return true;
	/* Waiting sends: sleep if every consumer they wait for will ring (event mode), else keep polling. */
	return !may_sleep(p);
}

static const struct ferry_ctx_ops producer_ops = {
	.start = producer_start,
	.stop = producer_stop,
	.submit = producer_submit,
	.progress = producer_progress,
	.has_pending = producer_has_pending,
};

static void send_task_complete(struct doca_task *task, union doca_data task_user_data, union doca_data ctx_user_data,
			       bool success)
{
	struct doca_comch_producer_task_send *send = ferry_container_of(task, struct doca_comch_producer_task_send,
									base);
	struct doca_comch_producer *p = producer_of_ctx(task->ctx);

	(success ? p->ok_cb : p->err_cb)(send, task_user_data, ctx_user_data);
}

/* ---- public API ---- */

doca_error_t comch_producer_new(struct comch_fast_hub *hub, uint32_t max, struct doca_comch_producer **producer)
{
	struct doca_comch_producer *p = ferry_calloc(1, sizeof(*p));
	doca_error_t err = DOCA_SUCCESS;

	if (p == NULL)
		return FERRY_RULE_IN("doca_comch_producer_create", DOCA_ERROR_NO_MEMORY, "no memory");
	struct ferry_chan_cfg cfg = {.kind = FERRY_ENGINE_INLINE, .depth = COMCH_PRODUCER_BATCH, .cross_process = true};

	if (ferry_chan_open(&cfg, &p->chan) != DOCA_SUCCESS) {
		free(p);
		return FERRY_RULE_IN("doca_comch_producer_create", DOCA_ERROR_NO_MEMORY,
				     "no memory for its copy engine");
	}
	ferry_ctx_init(&p->ctx, &producer_ops, "comch_producer", hub->dev);
	ferry_ctx_add_pool(&p->ctx, &p->pool, "comch producer send", sizeof(struct doca_comch_producer_task_send),
			   send_task_complete);
	p->id = comch_fast_new_id();
	p->hub = hub;
	pthread_mutex_lock(&hub->lock);
	if (hub->num_producers >= max) {
		err = DOCA_ERROR_FULL;
	} else {
		p->next = hub->producers;
		hub->producers = p;
		hub->num_producers++;
		hub->refs++;
	}
	pthread_mutex_unlock(&hub->lock);
	if (err != DOCA_SUCCESS) {
		ferry_chan_close(p->chan);
		free(p);
		return FERRY_RULE_IN("doca_comch_producer_create", err, "%s %u has %u producers already",
				     hub->msgq != NULL ? "MsgQ" : "connection", hub->conn_id, max);
	}
	*producer = p;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_create(struct doca_comch_connection *comch_connection,
					struct doca_comch_producer **producer)
{
	FERRY_ARG_NOT_NULL(comch_connection);
	FERRY_ARG_NOT_NULL(producer);
	if (!comch_conn_is_live(comch_connection))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "connection %p is not a live, established connection",
				  (void *)comch_connection);
	return comch_producer_new(comch_connection->hub, COMCH_FAST_MAX_PRODUCERS, producer);
}

doca_error_t doca_comch_producer_destroy(struct doca_comch_producer *producer)
{
	struct comch_fast_hub *hub;
	doca_error_t err;

	FERRY_ARG_NOT_NULL(producer);
	err = ferry_ctx_check_destroyable(&producer->ctx, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	hub = producer->hub;
	pthread_mutex_lock(&hub->lock);
	for (struct doca_comch_producer **pp = &hub->producers; *pp != NULL; pp = &(*pp)->next)
		if (*pp == producer) {
			*pp = producer->next;
			hub->num_producers--;
			break;
		}
	pthread_mutex_unlock(&hub->lock);
	comch_hub_unref(hub);
	ferry_ctx_fini(&producer->ctx);
	ferry_chan_close(producer->chan);
	free(producer);
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_cap_is_supported(const struct doca_devinfo *devinfo)
{
	int dummy = 0;

	return comch_cap_check(__func__, devinfo, &dummy);
}

doca_error_t doca_comch_producer_get_id(const struct doca_comch_producer *producer, uint32_t *id)
{
	FERRY_ARG_NOT_NULL(producer);
	FERRY_ARG_NOT_NULL(id);
	*id = producer->id;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_cap_get_max_num_tasks(const struct doca_devinfo *devinfo, uint32_t *max_num_tasks)
{
	return comch_cap_u32(__func__, devinfo, max_num_tasks, COMCH_FAST_MAX_TASKS);
}

doca_error_t doca_comch_producer_cap_get_max_buf_size(const struct doca_devinfo *devinfo, uint32_t *max_buf_size)
{
	return comch_cap_u32(__func__, devinfo, max_buf_size, COMCH_FAST_MAX_BUF_SIZE);
}

doca_error_t doca_comch_producer_cap_get_max_buf_list_len(const struct doca_devinfo *devinfo,
							  uint32_t *max_buf_list_len)
{
	return comch_cap_u32(__func__, devinfo, max_buf_list_len, 1);
}

doca_error_t doca_comch_producer_cap_get_max_producers(const struct doca_devinfo *devinfo, uint32_t *max_producers)
{
	return comch_cap_u32(__func__, devinfo, max_producers, COMCH_FAST_MAX_PRODUCERS);
}

struct doca_ctx *doca_comch_producer_as_ctx(struct doca_comch_producer *producer)
{
	return producer == NULL ? NULL : &producer->ctx;
}

doca_error_t doca_comch_producer_task_send_set_conf(struct doca_comch_producer *producer,
						    doca_comch_producer_task_send_completion_cb_t task_completion_cb,
						    doca_comch_producer_task_send_completion_cb_t task_error_cb,
						    uint32_t num_send_tasks)
{
	const char *call = __func__;
	doca_error_t err;

	if (producer == NULL || task_completion_cb == NULL || task_error_cb == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "producer and both callbacks must not be NULL");
	if (num_send_tasks > COMCH_FAST_MAX_TASKS)
		return FERRY_RULE_IN(
			call, DOCA_ERROR_INVALID_VALUE,
			"comch producer %u: %u tasks exceed the cap %u (doca_comch_producer_cap_get_max_num_tasks)",
			producer->id, num_send_tasks, COMCH_FAST_MAX_TASKS);
	err = ferry_task_pool_configure(&producer->pool, num_send_tasks, call);
	if (err != DOCA_SUCCESS)
		return err;
	producer->ok_cb = task_completion_cb;
	producer->err_cb = task_error_cb;
	return DOCA_SUCCESS;
}

doca_error_t doca_comch_producer_task_send_alloc_init(struct doca_comch_producer *producer, const struct doca_buf *buf,
						      uint8_t *imm_data, uint32_t imm_data_len, uint32_t consumer_id,
						      struct doca_comch_producer_task_send **task)
{
	const char *call = __func__;
	struct doca_task *base = NULL;
	struct doca_comch_producer_task_send *send;
	doca_error_t err;

	if (producer == NULL || task == NULL || (imm_data == NULL && imm_data_len != 0) ||
	    (buf == NULL && producer->hub->msgq == NULL))
		return FERRY_RULE_IN(
			call, DOCA_ERROR_INVALID_VALUE,
			"producer, buf (but on a MsgQ), task (and imm_data when imm_data_len > 0) must not "
			"be NULL");
	if (imm_data_len > FERRY_FRAME_IMM_MAX)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "comch producer %u: %u bytes of immediate data exceed the cap %u", producer->id,
				     imm_data_len, FERRY_FRAME_IMM_MAX);
	err = ferry_task_pool_get(&producer->pool, call, &base);
	if (err != DOCA_SUCCESS)
		return err;
	send = ferry_container_of(base, struct doca_comch_producer_task_send, base);
	send->buf = buf;
	send->consumer_id = consumer_id;
	send->imm_len = imm_data_len;
	if (imm_data_len != 0)
		memcpy(send->imm, imm_data, imm_data_len);
	*task = send;
	return DOCA_SUCCESS;
}

const struct doca_buf *doca_comch_producer_task_send_get_buf(struct doca_comch_producer_task_send *task)
{
	return task == NULL ? NULL : task->buf;
}

void doca_comch_producer_task_send_set_buf(struct doca_comch_producer_task_send *task, const struct doca_buf *buf)
{
	if (task != NULL)
		task->buf = buf;
}

uint32_t doca_comch_producer_task_send_get_consumer_id(struct doca_comch_producer_task_send *task)
{
	return task == NULL ? 0 : task->consumer_id;
}

void doca_comch_producer_task_send_set_consumer_id(struct doca_comch_producer_task_send *task,
						   const uint32_t consumer_id)
{
	if (task != NULL)
		task->consumer_id = consumer_id;
}

uint8_t *doca_comch_producer_task_send_get_imm_data(struct doca_comch_producer_task_send *task)
{
	return task == NULL ? NULL : task->imm;
}

uint32_t doca_comch_producer_task_send_get_imm_data_len(struct doca_comch_producer_task_send *task)
{
	return task == NULL ? 0 : task->imm_len;
}

void doca_comch_producer_task_send_set_imm_data(struct doca_comch_producer_task_send *task, uint8_t *imm_data,
						uint32_t imm_data_len)
{
	if (task == NULL || (imm_data == NULL && imm_data_len != 0) || imm_data_len > FERRY_FRAME_IMM_MAX) {
		FERRY_ERR("%s: task %p: immediate data must be 0..%u bytes", __func__, (void *)task,
			  FERRY_FRAME_IMM_MAX);
		return;
	}
	task->imm_len = imm_data_len;
	if (imm_data_len != 0)
		memcpy(task->imm, imm_data, imm_data_len);
}

struct doca_task *doca_comch_producer_task_send_as_task(struct doca_comch_producer_task_send *task)
{
	return task == NULL ? NULL : &task->base;
}
