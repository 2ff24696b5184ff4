/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comch_util.h - what the Comch tests and the peer program share: opening the
 * DPU-side device with the representor of a host function, or the host-side
 * device, through the public API only (ferry_test_dev.h, the way a DOCA program does it).
 */
#ifndef FERRY_TEST_COMCH_UTIL_H_
#define FERRY_TEST_COMCH_UTIL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <doca_comch.h>
#include <doca_dev.h>
#include <doca_pe.h>

#include "ferry_test_dev.h"

static inline struct doca_dev *cu_open_host_dev(void)
{
	return ferry_test_open_dev(NULL, doca_comch_cap_client_is_supported);
}

static inline struct doca_dev *cu_open_dpu_dev(void)
{
	return ferry_test_open_dev(NULL, doca_comch_cap_server_is_supported);
}

/* One emulated machine as a Comch test sees it. */
struct cu_machine {
	struct doca_pe *pe;
	struct doca_dev *host, *dpu;
	struct doca_dev_rep *rep; /* the DPU's representor of the host function */
};

/* Close what cu_machine_open opened (contexts on the PE must be destroyed first). */
static inline void cu_machine_close(struct cu_machine *m)
{
	if (m->rep != NULL)
		doca_dev_rep_close(m->rep);
	if (m->dpu != NULL)
		doca_dev_close(m->dpu);
	if (m->host != NULL)
		doca_dev_close(m->host);
	if (m->pe != NULL)
		doca_pe_destroy(m->pe);
	*m = (struct cu_machine){0};
}

/*
 * Enter a domain of this test's own ("<tag>-<pid>-<n>", so tests and their
 * runs never meet) and open a PE and both sides' devices. false when any is
 * missing (what was opened is closed again).
 */
static inline bool cu_machine_open(struct cu_machine *m, const char *tag)
{
	static unsigned seq;
	char domain[64];

	snprintf(domain, sizeof(domain), "%s-%d-%u", tag, (int)getpid(), ++seq);
	setenv("FERRY_DOMAIN", domain, 1);
	m->pe = NULL;
	m->host = cu_open_host_dev();
	m->dpu = cu_open_dpu_dev();
	m->rep = m->dpu != NULL ? ferry_test_open_rep(m->dpu, NULL) : NULL;
	if (m->host != NULL && m->rep != NULL && doca_pe_create(&m->pe) == DOCA_SUCCESS)
		return true;
	cu_machine_close(m);
	return false;
}

#endif /* FERRY_TEST_COMCH_UTIL_H_ */
