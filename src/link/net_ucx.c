/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_ucx.c - UCX for the link's network path, loaded at first use
 * (net_ucx.h says why), and the context and worker both sides make.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/ferry_log.h"
#include "common/ferry_ucx_am.h"
#include "link/net_ucx.h"

#include <ucm/api/ucm.h>

FERRY_LOG_MODULE("link");

#define NET_UCX_LIBRARY "libucp.so.0"

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static struct net_ucx ucx;
static const char *load_failure; /* NULL once loaded */
static char load_detail[256];

/* One symbol; false (and the reason) when this libucp lacks it. */
static bool resolve(void *lib, const char *name, void *slot)
{
	void *fn = dlsym(lib, name);

	if (fn == NULL) {
		snprintf(load_detail, sizeof(load_detail), "%s has no %s", NET_UCX_LIBRARY, name);
		return false;
	}
	memcpy(slot, &fn, sizeof(fn)); /* a data pointer into a function pointer, as dlsym's users must */
	return true;
}

#define RESOLVE(lib, field, name) resolve((lib), (name), &ucx.field)

/*
 * The network path registers no memory, so it needs none of the memory hooks
 * UCX installs by default (patched mmap, munmap and brk, which also break
 * sanitizers' stop-the-world). When this load is what brings UCX into the
 * process and the user did not set UCX_MEM_EVENTS, they are turned off before
 * UCX uses them, as UCM allows. A program that loaded UCX itself (DOCA RDMA)
 * keeps UCX's own settings.
 */
static void without_memory_hooks(void *lib)
{
	void *opts = dlsym(lib, "ucm_global_opts");
	void *set = dlsym(lib, "ucm_set_global_opts");
	void (*set_opts)(const ucm_global_config_t *);
	ucm_global_config_t copy;

	if (opts == NULL || set == NULL || getenv("UCX_MEM_EVENTS") != NULL)
		return;
	memcpy(&set_opts, &set, sizeof(set));
	memcpy(&copy, opts, sizeof(copy));
	copy.enable_events = 0;
	set_opts(&copy);
}

static void load(void)
{
	void *loaded = dlopen(NET_UCX_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
	void *lib = loaded != NULL ? loaded : dlopen(NET_UCX_LIBRARY, RTLD_NOW | RTLD_LOCAL);

	load_failure = "UCX is not installed (Debian package libucx0)";
	if (lib == NULL) {
		snprintf(load_detail, sizeof(load_detail), "%s", dlerror());
		return;
	}
	if (RESOLVE(lib, config_read, "ucp_config_read") && RESOLVE(lib, config_modify, "ucp_config_modify") &&
	    RESOLVE(lib, config_release, "ucp_config_release") && RESOLVE(lib, init_version, "ucp_init_version") &&
	    RESOLVE(lib, cleanup, "ucp_cleanup") && RESOLVE(lib, worker_create, "ucp_worker_create") &&
	    RESOLVE(lib, worker_destroy, "ucp_worker_destroy") &&
	    RESOLVE(lib, worker_progress, "ucp_worker_progress") &&
	    RESOLVE(lib, worker_get_efd, "ucp_worker_get_efd") && RESOLVE(lib, worker_arm, "ucp_worker_arm") &&
	    RESOLVE(lib, worker_signal, "ucp_worker_signal") &&
	    RESOLVE(lib, set_am_handler, "ucp_worker_set_am_recv_handler") &&
	    RESOLVE(lib, listener_create, "ucp_listener_create") &&
	    RESOLVE(lib, listener_destroy, "ucp_listener_destroy") &&
	    RESOLVE(lib, listener_query, "ucp_listener_query") &&
	    RESOLVE(lib, listener_reject, "ucp_listener_reject") &&
	    RESOLVE(lib, conn_request_query, "ucp_conn_request_query") && RESOLVE(lib, ep_create, "ucp_ep_create") &&
	    RESOLVE(lib, ep_close_nbx, "ucp_ep_close_nbx") && RESOLVE(lib, am_send_nbx, "ucp_am_send_nbx") &&
	    RESOLVE(lib, am_recv_data_nbx, "ucp_am_recv_data_nbx") &&
	    RESOLVE(lib, am_data_release, "ucp_am_data_release") &&
	    RESOLVE(lib, request_check_status, "ucp_request_check_status") &&
	    RESOLVE(lib, request_free, "ucp_request_free") && RESOLVE(lib, status_string, "ucs_status_string") &&
	    RESOLVE(lib, get_version, "ucp_get_version")) {
		load_failure = NULL; /* the library stays loaded for the life of the process */
		if (loaded == NULL)
			without_memory_hooks(lib);
		return;
	}
	load_failure = "the installed UCX lacks a call the network path needs";
	dlclose(lib);
}

doca_error_t net_ucx_get(const char *call, const struct net_ucx **out)
{
	pthread_once(&load_once, load);
	if (load_failure != NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_SUPPORTED, "the network access path needs UCX: %s (%s)",
				     load_failure, load_detail);
	*out = &ucx;
	return DOCA_SUCCESS;
}

static void modify_unless_set(const struct net_ucx *u, ucp_config_t *cfg, const char *name, const char *value)
{
	char env[64];

	snprintf(env, sizeof(env), "UCX_%s", name);
	if (getenv(env) == NULL && value != NULL)
		(void)u->config_modify(cfg, name, value);
}

doca_error_t net_ucx_context(const struct net_ucx *u, const char *iface, const char *name, const char *call,
			     ucp_context_h *out)
{
	ucp_config_t *cfg;
	ucp_params_t params;
	ucs_status_t st = u->config_read(NULL, NULL, &cfg);

	if (st != UCS_OK)
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "UCX's configuration is unusable: %s",
				     u->status_string(st));
	modify_unless_set(u, cfg, "TLS", "tcp");
	modify_unless_set(u, cfg, "NET_DEVICES", iface);
	modify_unless_set(u, cfg, "KEEPALIVE_INTERVAL", "1s");
	memset(&params, 0, sizeof(params));
	params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
	params.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
	params.name = name;
	st = u->init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, cfg, out);
	u->config_release(cfg);
	if (st != UCS_OK)
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "UCX could not start (ucp_init: %s)",
				     u->status_string(st));
	return DOCA_SUCCESS;
}

doca_error_t net_ucx_worker(const struct net_ucx *u, ucp_context_h ctx, const char *call, ucp_worker_h *out, int *efd)
{
	ucp_worker_params_t wp;
	ucs_status_t st;

	memset(&wp, 0, sizeof(wp));
	wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
	wp.thread_mode = UCS_THREAD_MODE_SERIALIZED; /* the caller's lock: one thread at a time */
	st = u->worker_create(ctx, &wp, out);
	if (st == UCS_OK) {
		st = u->worker_get_efd(*out, efd);
		if (st == UCS_OK)
			st = ferry_ucx_guard_am_ids(u->set_am_handler, u->get_version,
						    *out); /* common/ferry_ucx_am.h */
		if (st != UCS_OK)
			u->worker_destroy(*out);
	}
	if (st != UCS_OK)
		return FERRY_RULE_IN(call, DOCA_ERROR_INITIALIZATION, "no UCX worker for the network path: %s",
				     u->status_string(st));
	return DOCA_SUCCESS;
}

ucs_status_t net_ucx_wait(const struct net_ucx *u, ucp_worker_h w, ucs_status_ptr_t req)
{
	ucs_status_t st;

	if (!UCS_PTR_IS_PTR(req))
		return UCS_PTR_STATUS(req);
	while ((st = u->request_check_status(req)) == UCS_INPROGRESS)
		u->worker_progress(w);
	u->request_free(req);
	return st;
}
