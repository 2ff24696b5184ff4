/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_ucx_am.h - every UCX worker that takes active messages from another
 * process (the link's network path, DOCA RDMA) guards its table of handlers
 * against two bugs of UCX, which a peer reaches by sending a message of an id
 * this side never registered:
 *  - before 1.21, ucp_am_handler_common takes the message's entry, and reads
 *    its flags, before checking the id against the table's length: an id
 *    past the end is a read outside the table, as far as the peer likes (id
 *    65535: 1.5 MiB past it, a crash);
 *  - before 1.17, growing the table initialises the new id's entry over and
 *    over instead of each new entry (ucp_worker_set_am_handler_common): every
 *    other new entry is whatever the allocator had there, and a message of
 *    that id makes UCX call the stale "handler" it finds.
 * So with a UCX older than 1.21 every id gets a real handler: the largest
 * first, which sizes the table to all 65536 ids at once, then each of the
 * others, which initialises its entry. Ids the caller does not use drop
 * their messages (a rendezvous's bytes too); the caller then sets its own
 * ids' handlers over the drop. It costs 1.5 MiB of table per worker.
 *
 * Header-only: libdoca_common calls UCX through pointers it loads
 * (net_ucx.h), libdoca_rdma directly; each passes its two calls.
 */
#ifndef FERRY_UCX_AM_H_
#define FERRY_UCX_AM_H_

#include <stdint.h>

#include <ucp/api/ucp.h>

typedef ucs_status_t (*ferry_ucx_set_am_fn)(ucp_worker_h, const ucp_am_handler_param_t *);
typedef void (*ferry_ucx_version_fn)(unsigned int *, unsigned int *, unsigned int *);

/* A message of an id nobody asked for: dropped (UCS_OK: UCX releases it, rendezvous or not). */
static inline ucs_status_t ferry_ucx_drop_message(void *arg, const void *header, size_t header_length, void *data,
						  size_t length, const ucp_am_recv_param_t *param)
{
	(void)arg;
	(void)header;
	(void)header_length;
	(void)data;
	(void)length;
	(void)param;
	return UCS_OK;
}

/** Give every active-message id of @p w a handler when UCX is older than 1.21 (above). */
static inline ucs_status_t ferry_ucx_guard_am_ids(ferry_ucx_set_am_fn set, ferry_ucx_version_fn version, ucp_worker_h w)
{
	ucp_am_handler_param_t am = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB,
				     .id = UINT16_MAX,
				     .cb = ferry_ucx_drop_message};
	unsigned int major, minor, release;
	ucs_status_t st;

	version(&major, &minor, &release);
	if (major > 1 || (major == 1 && minor >= 21))
		return UCS_OK;
	st = set(w, &am);
	for (unsigned int id = 0; id < UINT16_MAX && st == UCS_OK; id++) {
		am.id = id;
		st = set(w, &am);
	}
	return st;
}

#endif /* FERRY_UCX_AM_H_ */
