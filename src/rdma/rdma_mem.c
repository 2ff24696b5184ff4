/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_mem.c - the process's UCP context, and remote memory for DOCA RDMA:
 * doca_mmap_export_rdma enters the range in the process's export table under
 * a fresh id and a random 64-bit key, and describes the id and key
 * (rdma_desc_priv.h, kind 0); doca_mmap_create_from_export checks such a
 * descriptor and keeps them, and every request of rdma_rma.c carries them.
 * The target serves a request only inside an export it finds by id, with
 * the key matching and the access granted (rdma_mem_serve_begin). Nothing is
 * registered with UCX: the UCP context offers no RMA or AMO at all, since
 * UCX 1.13's software put, get and atomics would serve any address a peer
 * names (rdma_rma.c).
 *
 * A re-export (a PCI import reached by cross-memory attach, which UCX cannot
 * register) is described instead by its link descriptor (kind 1 of the
 * memory descriptor): its importer copies through the link's network path
 * (rdma_task.c), and nothing of it is registered here.
 *
 * Core reaches this file through core/ferry_rdma_mem.h: the ops are registered
 * by a constructor when libdoca_rdma is loaded.
 *
 * Threading: the UCP context is made with mt_workers_shared, so exports and
 * imports may come from any thread; its reference count is under a mutex.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_dev.h>
#include <doca_types.h>

#include "common/ferry_alloc.h"
#include "common/ferry_bytes.h"
#include "common/ferry_log.h"
#include "core/ferry_dev.h"
#include "core/ferry_rdma_mem.h"
#include "rdma/rdma_desc_priv.h"
#include "rdma/rdma_priv.h"

FERRY_LOG_MODULE("rdma");

/* ---- the process's UCP context ---- */

/* Whether the comma-separated @p list holds @p name. */
bool rdma_net_list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p != '\0';) {
		size_t len = strcspn(p, ",");

		if (len == n && strncmp(p, name, n) == 0)
			return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

/* UCX's shared-memory FIFO, in elements (UCX_MM_FIFO_SIZE; UCX's default is 64). */
#define RDMA_MM_FIFO_SIZE "256"

static pthread_mutex_t ucp_lock = PTHREAD_MUTEX_INITIALIZER;
static ucp_context_h ucp_ctx;
static unsigned int ucp_refs;

/*
 * The interfaces UCX's network transports may use (UCX_NET_DEVICES): those of
 * the devices bound to a network identity that this host has, or the loopback
 * interface when no device is bound (the default: reachable on this machine
 * only). The user's own UCX_NET_DEVICES wins.
 */
static void net_devices(char *out, size_t size)
{
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;
	size_t used = 0;

	out[0] = '\0';
	if (doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS) {
		for (uint32_t i = 0; i < n; i++) {
			struct ferry_net_identity id;
			char item[sizeof(id.iface) + 2];

			if (ferry_devinfo_net(list[i])[0] == '\0' ||
			    ferry_devinfo_net_resolve(list[i], &id) != DOCA_SUCCESS)
				continue;
			snprintf(item, sizeof(item), "%s", id.iface);
			if (rdma_net_list_has(out, item))
				continue;
			if (used + strlen(item) + 2 > size)
				break;
			used += (size_t)snprintf(out + used, size - used, "%s%s", used > 0 ? "," : "", item);
		}
		(void)doca_devinfo_destroy_list(list);
	}
	if (out[0] == '\0')
		snprintf(out, size, "lo");
}

/*
 * Whether UCX_TLS leaves UCX its shared-memory FIFO transports (posix, sysv):
 * UCX warns about a FIFO setting no transport takes, once per worker.
 */
static bool shared_memory_on(void)
{
	const char *tls = getenv("UCX_TLS");
	static const char *const names[] = {"sm", "shm", "mm", "posix", "sysv"};
	bool named = false;

	if (tls == NULL || *tls == '\0' || rdma_net_list_has(tls, "all"))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		named |= rdma_net_list_has(tls[0] == '^' ? tls + 1 : tls, names[i]);
	/* A list with '^' names what UCX must not use. */
	return tls[0] == '^' ? !named : named;
}

static ucs_status_t ucp_make(ucp_context_h *out)
{
	ucp_params_t params;
	ucp_config_t *config;
	ucs_status_t st;

	st = ucp_config_read(NULL, NULL, &config);
	if (st != UCS_OK)
		return st;
	if (getenv("UCX_NET_DEVICES") == NULL) {
		char devs[256];

		net_devices(devs, sizeof(devs));
		FERRY_DBG("UCX network interfaces: %s (devices' network identities)", devs);
		(void)ucp_config_modify(config, "NET_DEVICES", devs);
	}
	/*
	 * UCX notices a dead peer on an idle connection by keepalive, every 20 s
	 * by default; DOCA programs expect their tasks to fail within seconds.
	 * The user's own UCX_KEEPALIVE_INTERVAL wins.
	 */
	if (getenv("UCX_KEEPALIVE_INTERVAL") == NULL)
		(void)ucp_config_modify(config, "KEEPALIVE_INTERVAL", "1s");
	/*
	 * A put or get of a program's memory over shared memory goes through
	 * UCX's FIFO in 8 KiB pieces (docs/rdma.md), and a window of 16 writes of
	 * 64 KiB is 128 of them: with UCX's 64 FIFO elements the requester's
	 * pieces queue in UCX until the target drains it. 256 (64 KiB writes
	 * +15%, reads +10%); 512 did no better, 1024 worse. The user's own
	 * UCX_MM_FIFO_SIZE wins.
	 */
	if (getenv("UCX_MM_FIFO_SIZE") == NULL && shared_memory_on())
		(void)ucp_config_modify(config, "MM_FIFO_SIZE", RDMA_MM_FIFO_SIZE);
	memset(&params, 0, sizeof(params));
	params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_NAME;
	/* No RMA, no AMO: UCX then installs no handler that writes or reads an address a peer sends (rdma_rma.c). */
	params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
	params.mt_workers_shared = 1;
	params.name = "ferry-rdma";
	st = ucp_init(&params, config, out);
	ucp_config_release(config);
	return st;
}

doca_error_t rdma_ucp_get(ucp_context_h *ucp, const char *call)
{
	doca_error_t err = DOCA_SUCCESS;

	pthread_mutex_lock(&ucp_lock);
	if (ucp_ctx == NULL) {
		ucs_status_t st = ucp_make(&ucp_ctx);

		if (st != UCS_OK) {
			ucp_ctx = NULL;
			err = FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "UCX could not start (ucp_init: %s)",
					    ucs_status_string(st));
		}
	}
	if (err == DOCA_SUCCESS) {
		ucp_refs++;
		*ucp = ucp_ctx;
	}
	pthread_mutex_unlock(&ucp_lock);
	return err;
}

void rdma_ucp_put(void)
{
	pthread_mutex_lock(&ucp_lock);
	if (--ucp_refs == 0) {
		ucp_cleanup(ucp_ctx);
		ucp_ctx = NULL;
	}
	pthread_mutex_unlock(&ucp_lock);
}

/* ---- export ---- */

struct rdma_mem_export {
	struct rdma_mem_export *_Atomic next; /* in the table (a range's; a re-export's is not in it) */
	uint64_t id;
	uint64_t key;
	uint8_t *base;
	uint64_t len;
	uint32_t access;
	bool in_table;
	void (*hook)(void *arg); /* after a peer's write or atomic (a sync event's wake) */
	void *hook_arg;
	size_t desc_len;
	uint8_t desc[];
};

/*
 * The table, read without a lock: a peer's request is served inside UCX's
 * progress, and a lock taken right after copying its bytes would wait for
 * every one of those stores to leave the CPU (a read's answer is copied
 * into memory the peer's CPU owns): the table lock cost half a read's time.
 * So, as userspace RCU does with membarrier: a serving context publishes the
 * id of the export it touches in its slot (plain stores) and walks the list
 * (acquire loads); a writer links or unlinks under exports_lock, and before
 * an unlinked export (its entry, its memory) may go back it makes every
 * thread of the process pass a full barrier (membarrier) and waits until each
 * slot busy then has ended its walk. Exports are few (one per mmap a program exports).
 */
static pthread_mutex_t exports_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rdma_mem_export *_Atomic exports;
static uint64_t next_export_id = 1;
static struct rdma_serve_slot *slots; /* every started context's, under exports_lock */
static pthread_once_t barrier_once = PTHREAD_ONCE_INIT;
static bool have_membarrier; /* else readers fence (correct, slower) */

static void barrier_init(void)
{
	have_membarrier = syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	if (!have_membarrier)
		FERRY_DBG("membarrier unavailable: RDMA exports are served with a fence per access");
}

void rdma_mem_slot_add(struct rdma_serve_slot *slot)
{
	pthread_once(&barrier_once, barrier_init);
	atomic_store_explicit(&slot->busy, 0, memory_order_relaxed);
	pthread_mutex_lock(&exports_lock);
	slot->next = slots;
	slots = slot;
	pthread_mutex_unlock(&exports_lock);
}

void rdma_mem_slot_remove(struct rdma_serve_slot *slot)
{
	pthread_mutex_lock(&exports_lock);
	for (struct rdma_serve_slot **at = &slots; *at != NULL; at = &(*at)->next) {
		if (*at == slot) {
			*at = slot->next;
			break;
		}
	}
	pthread_mutex_unlock(&exports_lock);
}

uint8_t *rdma_mem_serve_begin(struct rdma_serve_slot *slot, uint64_t id, uint64_t key, uint64_t addr, uint64_t len,
			      uint32_t need, enum rdma_rma_status *status)
{
	if (have_membarrier) {
		atomic_store_explicit(&slot->busy, id, memory_order_relaxed);
		atomic_signal_fence(memory_order_seq_cst); /* the writer's membarrier is the other half */
	} else {
		atomic_exchange_explicit(&slot->busy, id, memory_order_seq_cst); /* pairs with the unlink's order */
	}
	for (struct rdma_mem_export *e = atomic_load_explicit(&exports, memory_order_seq_cst); e != NULL;
	     e = atomic_load_explicit(&e->next, memory_order_acquire)) {
		uint64_t base = (uint64_t)(uintptr_t)e->base;

		if (e->id != id)
			continue;
		if (e->key != key || addr < base || len > e->len || addr - base > e->len - len)
			break;
		if ((e->access & need) == 0) {
			*status = RDMA_RMA_NOT_PERMITTED;
			rdma_mem_serve_end(slot);
			return NULL;
		}
		slot->entry = e;
		return e->base + (addr - base);
	}
	*status = RDMA_RMA_NO_EXPORT;
	rdma_mem_serve_end(slot);
	return NULL;
}

void rdma_mem_serve_written(struct rdma_serve_slot *slot)
{
	const struct rdma_mem_export *e = slot->entry;

	if (e->hook != NULL)
		e->hook(e->hook_arg);
}

static void mem_set_write_hook(void *state, void (*hook)(void *arg), void *arg)
{
	struct rdma_mem_export *exp = state;

	/* Before anyone has the descriptor (and so the key): no request can find it yet. */
	exp->hook = hook;
	exp->hook_arg = arg;
}

void rdma_mem_serve_end(struct rdma_serve_slot *slot)
{
	/* The bytes were moved, and the table walked, before the mark goes (one writer: the slot's context). */
	atomic_store_explicit(&slot->ends, atomic_load_explicit(&slot->ends, memory_order_relaxed) + 1,
			      memory_order_release);
	atomic_store_explicit(&slot->busy, 0, memory_order_release);
}

/*
 * Wait until no context can still see an export just unlinked (exports_lock
 * held): a context walking the table for any id may be reading the
 * unlinked entry, so every slot busy at the barrier is waited for, until it
 * is idle or has ended that walk. Each walk is one request: microseconds.
 */
static void wait_for_readers(void)
{
	/* Without membarrier the unlink and these loads are sequentially consistent with the readers' marks. */
	if (have_membarrier)
		(void)syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	for (struct rdma_serve_slot *s = slots; s != NULL; s = s->next) {
		uint64_t ends = atomic_load_explicit(&s->ends, memory_order_acquire);

		while (atomic_load_explicit(&s->busy, memory_order_seq_cst) != 0 &&
		       atomic_load_explicit(&s->ends, memory_order_acquire) == ends)
			sched_yield();
	}
}

/* A key nobody can guess: the export's capability. */
static doca_error_t new_key(uint64_t *key, const char *call)
{
	if (getrandom(key, sizeof(*key), 0) != (ssize_t)sizeof(*key))
		return FERRY_RULE_IN(call, DOCA_ERROR_DRIVER, "no random bytes for an RDMA export key (getrandom)");
	return DOCA_SUCCESS;
}

static doca_error_t mem_export(void *addr, size_t len, uint32_t access, const char *call, void **state,
			       const void **desc, size_t *desc_len)
{
	struct ferry_rdma_mem_desc d;
	struct rdma_mem_export *exp;
	uint8_t body[FERRY_RDMA_MEM_KEY_LEN];
	uint64_t key;
	doca_error_t err;

	err = new_key(&key, call);
	if (err != DOCA_SUCCESS)
		return err;
	d.kind = FERRY_RDMA_MEM_KIND_KEY;
	d.addr = (uint64_t)(uintptr_t)addr;
	d.len = len;
	d.access = access;
	d.pid = (uint32_t)getpid();
	d.body_len = sizeof(body);
	d.body = body;
	exp = ferry_malloc(sizeof(*exp) + ferry_rdma_mem_desc_size(&d));
	if (exp == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "no memory for an RDMA export descriptor");
	exp->key = key;
	exp->base = addr;
	exp->len = len;
	exp->access = access;
	exp->in_table = true;
	exp->hook = NULL;
	exp->hook_arg = NULL;
	pthread_mutex_lock(&exports_lock);
	exp->id = next_export_id++;
	ferry_le_put64(body, exp->id);
	ferry_le_put64(body + 8, key);
	exp->desc_len = ferry_rdma_mem_desc_encode(&d, exp->desc, ferry_rdma_mem_desc_size(&d));
	atomic_store_explicit(&exp->next, atomic_load_explicit(&exports, memory_order_relaxed), memory_order_relaxed);
	atomic_store_explicit(&exports, exp, memory_order_release);
	pthread_mutex_unlock(&exports_lock);
	*state = exp;
	*desc = exp->desc;
	*desc_len = exp->desc_len;
	return DOCA_SUCCESS;
}

/*
 * The range stops being reachable: once out of the table no request touches
 * it (a request being served holds the table), and peers that still hold the
 * key get DOCA_ERROR_NOT_FOUND.
 */
static void mem_unexport(void *state)
{
	struct rdma_mem_export *exp = state;

	if (exp->in_table) {
		pthread_mutex_lock(&exports_lock);
		for (struct rdma_mem_export *_Atomic *at = &exports; atomic_load(at) != NULL;
		     at = &atomic_load(at)->next) {
			if (atomic_load(at) == exp) {
				atomic_store_explicit(at, atomic_load(&exp->next), memory_order_seq_cst);
				break;
			}
		}
		wait_for_readers();
		pthread_mutex_unlock(&exports_lock);
	}
	free(exp);
}

/* A re-export's descriptor: the link descriptor where a remote key would be (rdma_desc_priv.h, kind 1). */
static doca_error_t mem_export_link(const void *link_desc, size_t link_len, uint64_t addr, uint64_t len,
				    uint32_t access, const char *call, void **state, const void **desc,
				    size_t *desc_len)
{
	struct ferry_rdma_mem_desc d = {.kind = FERRY_RDMA_MEM_KIND_LINK,
					.addr = addr,
					.len = len,
					.access = access,
					.pid = (uint32_t)getpid(),
					.body_len = (uint16_t)link_len,
					.body = link_desc};
	struct rdma_mem_export *exp = ferry_calloc(1, sizeof(*exp) + ferry_rdma_mem_desc_size(&d));

	if (exp == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "no memory for an RDMA export descriptor");
	exp->desc_len = link_len <= UINT16_MAX ? ferry_rdma_mem_desc_encode(&d, exp->desc, ferry_rdma_mem_desc_size(&d))
					       : 0;
	if (exp->desc_len == 0) {
		free(exp);
		return FERRY_RULE_IN(call, DOCA_ERROR_UNEXPECTED, "a re-export of 0x%llx + %llu cannot be described",
				     (unsigned long long)addr, (unsigned long long)len);
	}
	*state = exp;
	*desc = exp->desc;
	*desc_len = exp->desc_len;
	return DOCA_SUCCESS;
}

/* ---- import ---- */

static doca_error_t mem_import(const void *desc, size_t desc_len, const char *call, void **state,
			       struct ferry_rdma_import_view *view)
{
	struct ferry_rdma_mem_import *imp;
	struct ferry_rdma_mem_desc d;
	const char *why = NULL;
	doca_error_t err;

	err = ferry_rdma_mem_desc_decode(desc, desc_len, &d, &why);
	if (err != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, err, "RDMA export descriptor refused (%zu bytes): %s", desc_len, why);
	/* A re-export's body is the link descriptor Core opens (view): no key to keep. */
	bool link = d.kind == FERRY_RDMA_MEM_KIND_LINK;

	imp = ferry_malloc(sizeof(*imp));
	if (imp == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "no memory for an RDMA import");
	imp->export_id = link ? 0 : ferry_le_get64(d.body);
	imp->key = link ? 0 : ferry_le_get64(d.body + 8);
	imp->addr = d.addr;
	imp->len = d.len;
	imp->access = d.access;
	imp->pid = d.pid;
	imp->by_link = link;
	view->addr = d.addr;
	view->len = d.len;
	view->access = d.access;
	view->link_desc = link ? d.body : NULL;
	view->link_desc_len = link ? d.body_len : 0;
	*state = imp;
	return DOCA_SUCCESS;
}

static void mem_import_close(void *state)
{
	free(state);
}

static const struct ferry_mmap_rdma_ops mem_ops = {
	.export_range = mem_export,
	.unexport = mem_unexport,
	.set_write_hook = mem_set_write_hook,
	.export_link = mem_export_link,
	.import = mem_import,
	.import_close = mem_import_close,
};

__attribute__((constructor)) static void rdma_mem_register(void)
{
	ferry_mmap_rdma_register(&mem_ops);
}
