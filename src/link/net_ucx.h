/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_ucx.h - the UCX calls of the link's network path (net_server.c,
 * net_client.c), loaded from Debian's libucp.so.0 at first use.
 *
 * libdoca_common does not link UCX: a program that never exports to, or
 * imports from, another machine never loads it (libdoca_rdma links UCX
 * itself; a program with both gets one copy of the library, as dlopen of a
 * loaded library returns it). Only the declarations come from <ucp/api/ucp.h>.
 */
#ifndef FERRY_NET_UCX_H_
#define FERRY_NET_UCX_H_

#include <ucp/api/ucp.h>

#include <doca_error.h>

/* The calls the network path makes, each typed from UCX's own declaration. */
struct net_ucx {
	__typeof__(&ucp_config_read) config_read;
	__typeof__(&ucp_config_modify) config_modify;
	__typeof__(&ucp_config_release) config_release;
	__typeof__(&ucp_init_version) init_version;
	__typeof__(&ucp_cleanup) cleanup;
	__typeof__(&ucp_worker_create) worker_create;
	__typeof__(&ucp_worker_destroy) worker_destroy;
	__typeof__(&ucp_worker_progress) worker_progress;
	__typeof__(&ucp_worker_get_efd) worker_get_efd;
	__typeof__(&ucp_worker_arm) worker_arm;
	__typeof__(&ucp_worker_signal) worker_signal;
	__typeof__(&ucp_worker_set_am_recv_handler) set_am_handler;
	__typeof__(&ucp_listener_create) listener_create;
	__typeof__(&ucp_listener_destroy) listener_destroy;
	__typeof__(&ucp_listener_query) listener_query;
	__typeof__(&ucp_listener_reject) listener_reject;
	__typeof__(&ucp_conn_request_query) conn_request_query;
	__typeof__(&ucp_ep_create) ep_create;
	__typeof__(&ucp_ep_close_nbx) ep_close_nbx;
	__typeof__(&ucp_am_send_nbx) am_send_nbx;
	__typeof__(&ucp_am_recv_data_nbx) am_recv_data_nbx;
	__typeof__(&ucp_am_data_release) am_data_release;
	__typeof__(&ucp_request_check_status) request_check_status;
	__typeof__(&ucp_request_free) request_free;
	__typeof__(&ucs_status_string) status_string;
	__typeof__(&ucp_get_version) get_version;
};

/**
 * UCX's calls, loaded once per process. @p call names the public call for
 * the one log line when UCX cannot be loaded.
 * @return DOCA_SUCCESS and *out; DOCA_ERROR_NOT_SUPPORTED (no libucp.so.0,
 *         or one without a call the path needs).
 */
doca_error_t net_ucx_get(const char *call, const struct net_ucx **out);

/**
 * A UCX context for the network path: active messages and wake-ups,
 * transports from UCX_TLS, else TCP (the path exists for other machines;
 * this machine has the shared and cross-memory-attach paths), interfaces from
 * UCX_NET_DEVICES, else @p iface when not NULL, a 1 s keepalive unless
 * UCX_KEEPALIVE_INTERVAL says otherwise.
 */
doca_error_t net_ucx_context(const struct net_ucx *u, const char *iface, const char *name, const char *call,
			     ucp_context_h *out);

/**
 * A worker that one thread at a time drives, with an event fd. With a UCX
 * older than 1.21 every active-message id (0 .. 65535) has a handler (the ids
 * the path does not use drop their messages): those versions read outside
 * their handler table, or call an uninitialised entry of it, when a peer
 * sends an id nobody registered (common/ferry_ucx_am.h). The table then
 * takes 1.5 MiB per worker.
 */
doca_error_t net_ucx_worker(const struct net_ucx *u, ucp_context_h ctx, const char *call, ucp_worker_h *out, int *efd);

/** Wait for a request UCX handed back (not a pointer: done already) and free it; its final status. */
ucs_status_t net_ucx_wait(const struct net_ucx *u, ucp_worker_h w, ucs_status_ptr_t req);

#endif /* FERRY_NET_UCX_H_ */
