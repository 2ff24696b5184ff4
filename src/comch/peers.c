/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peers.c - this side's record of the peer's consumers: what a CONSUMER_UP
 * may ask of us (limits), the import of the consumer's memory and post ring
 * with every check of whose export it is, our completion ring for it, and the
 * posts producers take from its ring. Producers and consumers call this file;
 * it calls neither (fastpath.c dispatches the frames). Every call runs with the
 * hub's lock held. Design notes in fast_priv.h.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <doca_dev.h>
#include <doca_mmap.h>

#include "comch/fast_priv.h"
#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "core/ferry_dev.h"
#include "core/ferry_memview.h"

FERRY_LOG_MODULE("comch");

/* ---- the process's budget of the peers' consumers (COMCH_FAST_REMOTE_COST) ---- */

#define MAP_COUNT_DEFAULT 65530u /* the kernel's vm.max_map_count when it cannot be read */

static atomic_uint remotes_held;      /* the peers' consumers imported now, every connection together */
static atomic_ullong map_limit_cache; /* vm.max_map_count, read once (0: not yet) */

static uint64_t map_limit(void)
{
	unsigned long long limit = atomic_load_explicit(&map_limit_cache, memory_order_relaxed);
	FILE *f;

	if (limit != 0)
		return limit;
	f = fopen("/proc/sys/vm/max_map_count", "re");
	if (f == NULL || fscanf(f, "%llu", &limit) != 1 || limit == 0)
		limit = MAP_COUNT_DEFAULT;
	if (f != NULL)
		fclose(f);
	atomic_store_explicit(&map_limit_cache, limit, memory_order_relaxed);
	return limit;
}

/* Half of what the process may hold, in consumers of its peers (the open-file limit may change: read each time). */
static uint32_t remotes_budget(void)
{
	struct rlimit rl;
	uint64_t room = map_limit();

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < room)
		room = rl.rlim_cur;
	room /= 2u * COMCH_FAST_REMOTE_COST;
	return room > UINT32_MAX ? UINT32_MAX : (uint32_t)room;
}

/* Take a place in the budget for @p r; false when the budget is spent (servers on other threads count too). */
static bool remote_hold(struct comch_remote_consumer *r)
{
	uint32_t budget = remotes_budget();
	unsigned held = atomic_load_explicit(&remotes_held, memory_order_relaxed);

	do {
		if (held >= budget)
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&remotes_held, &held, held + 1, memory_order_relaxed,
							memory_order_relaxed));
	r->held = true;
	return true;
}

static void remote_release(struct comch_remote_consumer *r)
{
	if (r->held)
		atomic_fetch_sub_explicit(&remotes_held, 1, memory_order_relaxed);
	r->held = false;
}

/* ---- the peer's consumers ---- */

struct comch_remote_consumer *comch_fast_find_remote(const struct comch_fast_hub *hub, uint32_t id)
{
	struct comch_remote_consumer *r;

	for (r = hub->remotes; r != NULL; r = r->next)
		if (r->id == id)
			return r;
	return NULL;
}

/* Drop what a record of the peer's consumer holds (imports, our completion ring); the record stays. */
static void remote_free_parts(struct comch_remote_consumer *r)
{
	if (r->mmap != NULL)
		(void)doca_mmap_destroy(r->mmap);
	r->mmap = NULL;
	comch_ring_view_close(&r->posts);
	comch_ring_out_close(&r->dones);
	remote_release(r);
}

static void remote_free(struct comch_remote_consumer *r)
{
	remote_free_parts(r);
	free(r);
}

/* Create the completion ring for a consumer of the peer and tell the peer where it is. */
static doca_error_t open_dones(struct comch_fast_hub *hub, struct comch_remote_consumer *r)
{
	uint8_t frame[FERRY_FRAME_DONE_RING_MAX];
	struct ferry_frame_done_ring fr = {.consumer_id = r->id, .ring_cap = r->posts.cap};
	const void *desc = NULL;
	size_t desc_len = 0, n;
	/* Read-only for the peer: it reads completions and writes nothing here. */
	doca_error_t err = comch_ring_out_open(&r->dones, COMCH_DONE_MAGIC, r->posts.cap, COMCH_DONE_BYTES,
					       DOCA_ACCESS_FLAG_PCI_READ_ONLY, hub->dev, &desc, &desc_len);

	if (err != DOCA_SUCCESS)
		return err;
	fr.desc = desc;
	fr.desc_len = desc_len > FERRY_FRAME_DESC_MAX ? 0 : (uint16_t)desc_len;
	n = ferry_frame_build_done_ring(frame, &fr);
	if (n == 0)
		return DOCA_ERROR_NOT_SUPPORTED;
	return comch_hub_send(hub, frame, n); /* queued when the socket is full: progress sends it */
}

/* What the peer may ask of us for one more consumer: within the per-connection limits. */
static bool within_limits(const struct comch_fast_hub *hub, const struct ferry_frame_consumer_up *up, const char **why)
{
	if (comch_fast_find_remote(hub, up->consumer_id) != NULL)
		*why = "CONSUMER_UP for a consumer id already up";
	else if (hub->num_remotes >= COMCH_FAST_MAX_CONSUMERS)
		*why = "CONSUMER_UP beyond the consumers a connection may have "
		       "(doca_comch_consumer_cap_get_max_consumers)";
	else if (up->ring_cap > COMCH_FAST_RING_BUDGET - hub->remote_ring_entries)
		*why = "CONSUMER_UP beyond the ring entries a connection may have";
	else
		return true;
	return false;
}

/*
 * Import the memory a consumer of the peer posts from: it must be the peer's
 * own export (not ours, not a third process's), and writable.
 */
static doca_error_t import_consumer_memory(struct comch_fast_hub *hub, struct comch_remote_consumer *r,
					   const struct ferry_frame_consumer_up *up, const char **why)
{
	void *addr = NULL;
	size_t len = 0;
	doca_error_t err;

	err = doca_mmap_create_from_export(NULL, up->desc, up->desc_len, hub->dev, &r->mmap);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_get_memrange(r->mmap, &addr, &len);
	if (err != DOCA_SUCCESS) {
		*why = "CONSUMER_UP names memory that cannot be imported";
		return err;
	}
	if (ferry_mmap_exporter_pid(r->mmap) != (uint32_t)hub->peer_pid) {
		*why = "CONSUMER_UP names memory exported by another process than the peer";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if ((ferry_mmap_access(r->mmap) & DOCA_ACCESS_FLAG_PCI_READ_WRITE) == 0) {
		*why = "CONSUMER_UP names a read-only export: a producer could not write into it";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	r->base = (uint64_t)(uintptr_t)addr;
	r->len = len;
	/* Consumers' memory is often ordinary (malloc): the import picked cross-memory attach for it. */
	r->access = ferry_mmap_access_path(r->mmap);
	if (ferry_access_mapped(r->access))
		r->access = NULL;
	return DOCA_SUCCESS;
}

/* Import the consumer's memory and post ring, and answer with our completion ring. */
static doca_error_t remote_open(struct comch_fast_hub *hub, struct comch_remote_consumer *r,
				const struct ferry_frame_consumer_up *up, const char **why)
{
	doca_error_t err = import_consumer_memory(hub, r, up, why);

	if (err == DOCA_SUCCESS)
		err = comch_ring_view_open(&r->posts, hub->dev, up->ring_desc, up->ring_desc_len, up->ring_cap,
					   sizeof(struct comch_post), (uint32_t)hub->peer_pid, true, why);
	if (err == DOCA_SUCCESS && open_dones(hub, r) != DOCA_SUCCESS) {
		*why = "cannot set up the completion ring for its consumer";
		err = DOCA_ERROR_IO_FAILED;
	}
	return err;
}

static void remote_list(struct comch_fast_hub *hub, struct comch_remote_consumer *r, uint32_t ring_cap)
{
	r->next = hub->remotes;
	hub->remotes = r;
	r->ring_entries = ring_cap;
	hub->num_remotes++;
	hub->remote_ring_entries += ring_cap;
}

doca_error_t comch_peers_add(struct comch_fast_hub *hub, const struct ferry_frame_consumer_up *up, const char **why)
{
	struct comch_ep *ep = hub->ep;
	struct comch_remote_consumer *r;
	doca_error_t err;

	if (!within_limits(hub, up, why))
		return DOCA_ERROR_FULL;
	r = ferry_calloc(1, sizeof(*r));
	if (r == NULL) {
		*why = "no memory for the consumer's record";
		return DOCA_ERROR_NO_MEMORY;
	}
	if (!remote_hold(r)) {
		*why = "CONSUMER_UP beyond the consumers this process holds for its peers (half its open-file "
		       "and mapping limits)";
		free(r);
		return DOCA_ERROR_FULL;
	}
	r->id = up->consumer_id;
	r->imm_data_len = up->imm_data_len;
	err = remote_open(hub, r, up, why);
	if (err == DOCA_ERROR_NOT_FOUND) {
		/*
		 * Its exports are revoked already: the consumer stopped before we got
		 * here, and its CONSUMER_DOWN follows. Keep a record without memory
		 * (sends to it fail NOT_FOUND); the program sees it come and go.
		 */
		remote_free_parts(r);
		r->stopped = true;
		remote_list(hub, r, 0);
		FERRY_DBG("%s '%s': connection %u: peer consumer %u stopped before it was imported", ep->kind, ep->name,
			  hub->conn_id, r->id);
		return DOCA_SUCCESS;
	}
	if (err != DOCA_SUCCESS) {
		remote_free(r);
		return err;
	}
	remote_list(hub, r, up->ring_cap);
	FERRY_DBG("%s '%s': connection %u: peer consumer %u is up (access path %s)", ep->kind, ep->name, hub->conn_id,
		  r->id, ferry_access_name(ferry_mmap_access_path(r->mmap)));
	return DOCA_SUCCESS;
}

doca_error_t comch_peers_add_local(struct comch_fast_hub *hub, uint32_t id, uint32_t imm_data_len,
				   const struct comch_ring_out *posts, struct comch_ring_view *dones)
{
	struct ferry_frame_consumer_up up = {.consumer_id = id, .ring_cap = posts->cap};
	struct comch_remote_consumer *r;
	const void *desc = NULL;
	size_t desc_len = 0;
	const char *why = NULL;

	if (!within_limits(hub, &up, &why))
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_FULL, "comch msgq consumer %u: %s", id, why);
	r = ferry_calloc(1, sizeof(*r));
	if (r == NULL)
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_NO_MEMORY, "comch msgq consumer %u: no memory", id);
	r->id = id;
	r->imm_data_len = imm_data_len;
	r->imm_only = true;
	comch_ring_view_local(&r->posts, posts);
	if (comch_ring_out_open(&r->dones, COMCH_DONE_MAGIC, posts->cap, COMCH_DONE_BYTES,
				DOCA_ACCESS_FLAG_PCI_READ_ONLY, hub->dev, &desc, &desc_len) != DOCA_SUCCESS) {
		free(r);
		return FERRY_RULE_IN("doca_ctx_start", DOCA_ERROR_NO_MEMORY,
				     "comch msgq consumer %u: cannot set up its completion ring", id);
	}
	comch_ring_view_local(dones, &r->dones);
	remote_list(hub, r, posts->cap);
	return DOCA_SUCCESS;
}

/* ---- the peer's post rings ---- */

static doca_error_t ring_broken(struct comch_fast_hub *hub, struct comch_remote_consumer *r, const char *rule)
{
	if (!r->broken) {
		r->broken = true;
		FERRY_ERR("%s '%s': connection %u: consumer %u's post ring %s; connection closed",
			  hub->ep != NULL ? hub->ep->kind : "comch msgq", hub->ep != NULL ? hub->ep->name : "",
			  hub->conn_id, r->id, rule);
		comch_hub_break(hub);
	}
	return DOCA_ERROR_NOT_CONNECTED;
}

doca_error_t comch_fast_peek_post(struct comch_fast_hub *hub, struct comch_remote_consumer *r, struct comch_post *post)
{
	doca_error_t err;

	if (r->broken)
		return DOCA_ERROR_NOT_CONNECTED;
	if (r->stopped)
		return DOCA_ERROR_NOT_FOUND;
	err = comch_ring_view_peek(&r->posts, post, sizeof(*post), sizeof(*post));
	if (err == DOCA_ERROR_AGAIN && ++r->empty_polls % COMCH_LIVENESS_EVERY == 0) {
		/* A producer progressed alone learns here that its consumer stopped or its process died. */
		enum ferry_link_liveness l = comch_ring_view_writer(&r->posts);
		if (l == FERRY_LINK_EXITED)
			return ring_broken(hub, r, "belongs to a consumer whose process is gone");
		if (l == FERRY_LINK_REVOKED) {
			r->stopped = true;
			return DOCA_ERROR_NOT_FOUND;
		}
	}
	if (err == DOCA_ERROR_INVALID_VALUE)
		return ring_broken(hub, r, "claims more posts than it holds");
	if (err != DOCA_SUCCESS)
		return err;
	/* The one check that keeps producers inside what the consumer exported (a MsgQ's posts hold no buffer). */
	if (r->imm_only ? post->len != 0
			: (post->len == 0 || post->addr < r->base || post->len > r->len ||
			   post->addr - r->base > r->len - post->len))
		return ring_broken(hub, r, "holds a buffer outside the consumer's exported memory");
	return DOCA_SUCCESS;
}

/* The post ring's header, where the claim word is (mapped read-write here: its export is PCI_READ_WRITE). */
static struct comch_ring_hdr *posts_hdr(const struct comch_remote_consumer *r)
{
	return (struct comch_ring_hdr *)(uintptr_t)r->posts.hdr;
}

doca_error_t comch_fast_claim(struct comch_fast_hub *hub, struct comch_remote_consumer *r, uint32_t want)
{
	uint64_t tail = r->posts.tail, expected = tail;
	/* Only what the checked head announced (comch_fast_peek_post found one at the tail). */
	uint64_t n = r->posts.seen - tail;

	if (r->claimed_to != tail)
		return DOCA_SUCCESS; /* taken earlier in this pass */
	if (n > want)
		n = want != 0 ? want : 1;
	/* Before the first byte is written: a stopping consumer flushes only what it finds unclaimed. */
	if (atomic_compare_exchange_strong_explicit(&posts_hdr(r)->claimed, &expected, tail + n, memory_order_acq_rel,
						    memory_order_acquire)) {
		r->claimed_to = tail + n;
		return DOCA_SUCCESS;
	}
	if (expected == (tail | COMCH_CLAIM_REVOKED)) {
		r->stopped = true; /* its CONSUMER_DOWN is on its way */
		return DOCA_ERROR_NOT_FOUND;
	}
	return ring_broken(hub, r, "has a claim word that this side did not write");
}

bool comch_fast_unclaim(struct comch_fast_hub *hub, struct comch_remote_consumer *r, uint32_t producer_id)
{
	uint64_t expected = r->claimed_to;
	bool put = false;

	if (r->claimed_to == r->posts.tail)
		return false;
	if (atomic_compare_exchange_strong_explicit(&posts_hdr(r)->claimed, &expected, r->posts.tail,
						    memory_order_acq_rel, memory_order_acquire)) {
		r->claimed_to = r->posts.tail;
		return false;
	}
	if (expected != (r->claimed_to | COMCH_CLAIM_REVOKED)) {
		(void)ring_broken(hub, r, "has a claim word that this side did not write");
		r->claimed_to = r->posts.tail;
		return false;
	}
	/* Revoked meanwhile: the consumer counts these as taken, so each completes, failed (nothing was written). */
	r->stopped = true;
	while (r->posts.tail != r->claimed_to) {
		struct comch_post post;
		struct comch_done done = {.producer_id = producer_id, .failed = 1};

		memcpy(&post, r->posts.entries + (r->posts.tail & (r->posts.cap - 1)) * sizeof(post), sizeof(post));
		done.slot = post.slot;
		done.generation = post.generation;
		comch_ring_out_put(&r->dones, &done, sizeof(done));
		r->posts.tail++;
		put = true;
	}
	return put;
}

static void remote_unlink(struct comch_fast_hub *hub, struct comch_remote_consumer *gone)
{
	struct comch_remote_consumer **pp;

	for (pp = &hub->remotes; *pp != NULL; pp = &(*pp)->next)
		if (*pp == gone) {
			*pp = gone->next;
			hub->num_remotes--;
			hub->remote_ring_entries -= gone->ring_entries;
			return;
		}
}

bool comch_peers_remove(struct comch_fast_hub *hub, uint32_t id)
{
	struct comch_remote_consumer *r = comch_fast_find_remote(hub, id);

	if (r == NULL)
		return false;
	remote_unlink(hub, r);
	remote_free(r);
	return true;
}

void comch_peers_clear(struct comch_fast_hub *hub)
{
	struct comch_remote_consumer *r;

	while ((r = hub->remotes) != NULL) {
		remote_unlink(hub, r);
		remote_free(r);
	}
}
