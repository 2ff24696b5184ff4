/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DOCA program that includes every public header and touches each library,
 * built by test_pkgconfig.sh with nothing but `pkg-config --cflags --libs`.
 * It prints which side it was built for, so the script can check the -dpu flavour.
 */
#include <stdio.h>
#include <string.h>

#include <doca_argp.h>
#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_clock.h>
#include <doca_comch.h>
#include <doca_comch_consumer.h>
#include <doca_comch_msgq.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_graph.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_mmap_advise.h>
#include <doca_pe.h>
#include <doca_rdma.h>
#include <doca_sync_event.h>
#include <doca_types.h>
#include <doca_version.h>

DOCA_LOG_REGISTER(PKGCONFIG_PROG);

int main(void)
{
	struct doca_pe *pe = NULL;
	struct doca_devinfo **list = NULL;
	uint32_t n = 0;

	if (doca_log_backend_create_standard() != DOCA_SUCCESS)
		return 1;
	if (doca_pe_create(&pe) != DOCA_SUCCESS || doca_pe_destroy(pe) != DOCA_SUCCESS)
		return 1;
	if (doca_devinfo_create_list(&list, &n) != DOCA_SUCCESS || n == 0)
		return 1;
	if (doca_dma_cap_task_memcpy_is_supported(list[0]) != DOCA_SUCCESS)
		return 1;
	if (doca_rdma_cap_task_send_is_supported(list[0]) != DOCA_SUCCESS)
		return 1;
	{
		uint32_t max_msg = 0;

		if (doca_comch_cap_get_max_msg_size(list[0], &max_msg) != DOCA_SUCCESS || max_msg == 0)
			return 1;
	}
	doca_devinfo_destroy_list(list);
	if (strcmp(doca_error_get_name(DOCA_ERROR_IN_USE), "DOCA_ERROR_IN_USE") != 0)
		return 1;
#if defined(DOCA_ARCH_DPU)
	printf("side=dpu version=%s\n", doca_version());
#elif defined(DOCA_ARCH_HOST)
	printf("side=host version=%s\n", doca_version());
#endif
	return 0;
}
