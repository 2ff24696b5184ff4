/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_priv.h - the link's network access path: how an importer on another
 * machine (or in another network namespace, where the memory agent's
 * abstract socket cannot be reached and no memory can be shared) copies
 * to and from an export, over UCX (TCP by default).
 *
 *   exporter: net_server.c, one thread per process started by the first
 *             export that offers the path; it answers requests (net_wire.h)
 *             against the export table (agent.c), under the same token,
 *             range, permission and revocation rules as every other path.
 *   importer: net_client.c, one connection per import, driven by whichever
 *             thread copies (the copy engines' workers, a producer), one at
 *             a time; the access ops "net" of ferry_access.h.
 */
#ifndef FERRY_NET_PRIV_H_
#define FERRY_NET_PRIV_H_

#include <stdbool.h>
#include <stdint.h>

#include <doca_error.h>

#include "link/export_desc_priv.h"
#include "link/ferry_export.h"
#include "link/net_wire.h"

/* ---- exporter ---- */

/**
 * Make sure this process's network server listens on @p offer's address;
 * *port is where (FERRY_LINK_NET_PORT when set, else a free port).
 */
doca_error_t net_server_listen(const struct ferry_link_net_offer *offer, const char *call, uint16_t *port);

/**
 * What the server asks of the export table (agent.c), under its lock so that
 * no export is revoked mid-copy: the range and permission of export
 * @p req->export_id if @p req->token is its token (stat), or the copy
 * between the export and @p buf that @p req asks for, checked against
 * both. Codes: NOT_FOUND (no such export: never made, or revoked),
 * NOT_PERMITTED (wrong token, a write to a read-only export),
 * INVALID_VALUE (outside the export), TIME_OUT (a re-export whose copy is
 * stuck: link_export_copy_overdue). With @p buf NULL only the checks are
 * made (the server asks before it spends memory or fetches bytes).
 * *@p reexport says whether the export is a re-export: its bytes are never
 * copied here, but by its copier thread (link_export_copy_start).
 */
doca_error_t link_export_serve_net(const struct net_req *req, void *buf, struct net_rep *rep, bool *reexport);

/*
 * A copy through a re-export's path (cross-memory attach into the host, which
 * may never return: a page the host does not serve), handed by the server
 * thread to the re-export's copier thread (agent.c) and posted back to the
 * server (net_server_copied) when it ends. The fields marked "agent" are
 * agent.c's, under its lock; "server" ones the server thread's.
 */
enum net_copy_state { NET_COPY_QUEUED, NET_COPY_RUNNING, NET_COPY_ENDED };

struct net_copy {
	struct net_copy *next;     /* agent: the re-export's queue; then the server's list of ended copies */
	struct net_req req;        /* checked against the export by the server before it hands the copy */
	void *buf;                 /* a read's bounce buffer, a write's bytes: the copier's until posted back */
	doca_error_t status;       /* the copy's answer, once ended */
	enum net_copy_state state; /* agent */
	void *exp;                 /* agent: its entry, while queued or running */
	void *job;                 /* server: the request it answers; NULL once answered without it */
};

/**
 * Queue @p c (req and buf set) to its re-export's copier thread, started at
 * the re-export's first copy. DOCA_SUCCESS: net_server_copied(@p c) follows,
 * from another thread, once the copy ends (or is cancelled: the re-export
 * closed, NOT_FOUND; its copy stuck, TIME_OUT). Otherwise the request's
 * answer now, and @p c stays the caller's: NOT_FOUND, NOT_PERMITTED,
 * TIME_OUT (the re-export's copy is stuck), OPERATING_SYSTEM (no thread).
 */
doca_error_t link_export_copy_start(struct net_copy *c);

/**
 * @p c, handed with link_export_copy_start, outlived the server's deadline.
 * RUNNING: the copy does not return; its re-export is stuck from now on (one
 * line names it and the host's pid), refusing requests with TIME_OUT until
 * the copy returns, and the copies queued behind it are cancelled (TIME_OUT);
 * @p c stays the copier's, posted back when (if ever) it returns. QUEUED:
 * taken off the queue, @p c is the caller's again. ENDED: it is posted back
 * already.
 */
enum net_copy_state link_export_copy_overdue(struct net_copy *c);

/**
 * A handed copy ended (agent.c, under its lock): queue it for the server
 * thread, which answers its request (or frees it, when its request was
 * answered without it, or the server has stopped).
 */
void net_server_copied(struct net_copy *c);

/**
 * Importers the server holds a place for (connected, or closing and not yet
 * freed); 0 when it does not run. For tests that need the places of earlier
 * peers given back before they connect more.
 */
unsigned int net_server_peers(void);

/* ---- importer ---- */

struct link_net;

/**
 * Connect to the exporter's server named in @p d, and check with it (stat)
 * that the export exists, the token opens it, and its range and permission
 * are what the descriptor claims. Waits at most FERRY_LINK_NET_TIMEOUT_MS.
 */
doca_error_t net_client_open(const struct ferry_export_desc *d, const char *call, struct link_net **out);

/** The access path of the connection (ferry_access.h: ops "net"). */
const struct ferry_access *net_client_access(const struct link_net *n);

/** Live, revoked (the exporter answered that the export is gone) or exited (the connection failed). */
enum ferry_link_liveness net_client_liveness(const struct link_net *n);

void net_client_close(struct link_net *n);

#endif /* FERRY_NET_PRIV_H_ */
