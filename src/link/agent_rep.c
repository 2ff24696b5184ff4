/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * agent_rep.c - the importer's check of a memory agent's reply (link_priv.h):
 * pure, so that the fuzz target (tests/link/fuzz_agent_reply.c) takes this file
 * and nothing else of the library.
 */
#include <stdbool.h>
#include <stdint.h>

#include <doca_types.h>

#include "link/link_priv.h"

doca_error_t ferry_link_check_rep(const struct ferry_export_desc *d, const struct link_rep *rep, size_t page,
				  bool has_mem, const char **why)
{
	if (rep->addr != d->addr || rep->len != d->len || rep->access != d->access) {
		*why = "the descriptor's range or permission differs from the export's (forged descriptor)";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (rep->len == 0 || rep->addr + rep->len < rep->addr ||
	    (rep->access != DOCA_ACCESS_FLAG_PCI_READ_ONLY && rep->access != DOCA_ACCESS_FLAG_PCI_READ_WRITE) ||
	    rep->reserved != 0) {
		*why = "the agent describes an empty, wrapping or unknown range";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	if (!has_mem)
		return DOCA_SUCCESS;
	if ((rep->map_base | rep->map_len | rep->mem_off) & (page - 1) || rep->map_len == 0 ||
	    rep->map_base + rep->map_len < rep->map_base || rep->mem_off + rep->map_len < rep->mem_off ||
	    rep->mem_off + rep->map_len > (uint64_t)INT64_MAX) {
		*why = "the agent describes pages that are not whole pages, or wrap";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	/* Exactly the pages that hold the range: never more of the file than the export needs. */
	if (rep->map_base != (rep->addr & ~(uint64_t)(page - 1)) ||
	    rep->map_base + rep->map_len != ((rep->addr + rep->len + page - 1) & ~(uint64_t)(page - 1))) {
		*why = "the agent describes pages other than those that hold the range";
		return DOCA_ERROR_NOT_PERMITTED;
	}
	return DOCA_SUCCESS;
}
