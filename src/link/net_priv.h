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
 * INVALID_VALUE (outside the export). With @p buf NULL only the checks are
 * made (the server asks before it spends memory or fetches bytes).
 */
doca_error_t link_export_serve_net(const struct net_req *req, void *buf, struct net_rep *rep);

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
