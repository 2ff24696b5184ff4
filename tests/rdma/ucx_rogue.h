/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ucx_rogue.h - a peer that speaks UCX directly, not through Ferry: a UCP
 * context of the features it asks for, one worker and, given a victim's
 * worker address (from its connection descriptor), an endpoint to it. The
 * rogue tests of tests/rdma build their attacks on it: ids nobody
 * registered, UCX's own put and get, Ferry's one-sided protocol and
 * messages sent wrong.
 */
#ifndef FERRY_TEST_UCX_ROGUE_H_
#define FERRY_TEST_UCX_ROGUE_H_

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <ucp/api/ucp.h>

#include "rdma/rdma_desc_priv.h"

struct ucx_rogue {
	ucp_context_h ctx;
	ucp_worker_h w;
	ucp_ep_h ep; /* NULL: a rogue only the victim reaches (it plays the victim's peer) */
};

static inline void ucx_rogue_open(struct ucx_rogue *r, uint64_t features, const uint8_t *victim_addr)
{
	ucp_params_t params = {.field_mask = UCP_PARAM_FIELD_FEATURES, .features = features};
	ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
				  .thread_mode = UCS_THREAD_MODE_SINGLE};
	ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
			      .address = (const ucp_address_t *)victim_addr};

	r->ep = NULL;
	assert_int_equal(ucp_init(&params, NULL, &r->ctx), UCS_OK);
	assert_int_equal(ucp_worker_create(r->ctx, &wp, &r->w), UCS_OK);
	if (victim_addr != NULL)
		assert_int_equal(ucp_ep_create(r->w, &ep, &r->ep), UCS_OK);
}

/*
 * Describe the rogue's worker as a Ferry context describes itself to the
 * victim of descriptor @p victim: a random token, connection 0,
 * @p permissions, and this process's pid, start time and boot id (so the
 * victim watches a live process, as with an honest peer). Encoded into
 * @p out (FERRY_RDMA_CONN_MAX_LEN bytes); its length returned, the fields in
 * @p pd (but the address, which is released).
 */
static inline size_t ucx_rogue_describe(struct ucx_rogue *r, const struct ferry_rdma_conn_desc *victim,
					uint32_t permissions, struct ferry_rdma_conn_desc *pd, uint8_t *out)
{
	ucp_address_t *addr = NULL;
	size_t addr_len = 0, len;

	assert_int_equal(ucp_worker_get_address(r->w, &addr, &addr_len), UCS_OK);
	assert_true(addr_len <= FERRY_RDMA_CONN_MAX_ADDR);
	memset(pd, 0, sizeof(*pd));
	while (pd->token == 0)
		assert_int_equal(getrandom(&pd->token, sizeof(pd->token), 0), sizeof(pd->token));
	pd->transport = victim->transport;
	pd->permissions = permissions;
	pd->pid = (uint32_t)getpid();
	pd->start_time = victim->start_time;
	memcpy(pd->boot_id, victim->boot_id, sizeof(pd->boot_id));
	pd->addr_len = (uint16_t)addr_len;
	pd->addr = (const uint8_t *)addr;
	len = ferry_rdma_conn_desc_encode(pd, out, FERRY_RDMA_CONN_MAX_LEN);
	assert_int_not_equal(len, 0);
	pd->addr = NULL;
	pd->addr_len = 0;
	ucp_worker_release_address(r->w, addr);
	return len;
}

/* Force-close the endpoint (its peer may be gone or stalled), then the worker and the context. */
static inline void ucx_rogue_close(struct ucx_rogue *r)
{
	ucp_request_param_t close = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = UCP_EP_CLOSE_FLAG_FORCE};
	ucs_status_ptr_t req = r->ep != NULL ? ucp_ep_close_nbx(r->ep, &close) : NULL;

	while (UCS_PTR_IS_PTR(req) && ucp_request_check_status(req) == UCS_INPROGRESS)
		ucp_worker_progress(r->w);
	if (UCS_PTR_IS_PTR(req))
		ucp_request_free(req);
	ucp_worker_destroy(r->w);
	ucp_cleanup(r->ctx);
}

#endif /* FERRY_TEST_UCX_ROGUE_H_ */
