/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy14_dma_local_copy.c - a DOCA 1.4 program laid out as that
 * generation's dma_local_copy sample: source and destination are two chunks
 * of one mmap, the job says how many bytes to copy, the retrieve loop spins.
 *
 *   legacy14_dma_local_copy [size [pci [event]]]   (default 1 MiB on 03:00.0)
 *
 * With "event" the work queue runs event-driven: enabled before it joins the
 * context, its handle waited on with epoll, armed and cleared around each
 * wait, and drained until DOCA_ERROR_AGAIN.
 *
 * It calls no log backend function, as 1.x programs did not, and its lines
 * still appear. Exit 0 when the destination holds the source's bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_version.h>

#include "legacy14_common.h"

DOCA_LOG_REGISTER(DMA_LOCAL_COPY);

#define PAGE_SIZE     4096
#define EVENT_WAIT_MS 10000

/* The event-driven way to run a job: submit, then sleep on the handle until its event is there. */
static doca_error_t run_dma_job_event(struct program_core_objects *state, struct doca_dma_job_memcpy *job)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct doca_event event = {0};
	doca_event_handle_t handle;
	int epfd, waits = 0;
	doca_error_t res;

	res = doca_workq_get_event_handle(state->workq, &handle);
	if (res != DOCA_SUCCESS)
		return res;
	epfd = epoll_create1(0);
	if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, handle, &ev) != 0)
		return DOCA_ERROR_OPERATING_SYSTEM;
	res = doca_workq_submit(state->workq, &job->base);
	while (res == DOCA_SUCCESS) {
		res = doca_workq_progress_retrieve(state->workq, &event, DOCA_WORKQ_RETRIEVE_FLAGS_NONE);
		if (res != DOCA_ERROR_AGAIN)
			break;
		/* Nothing yet: arm, sleep until the handle is readable, clear it, retrieve again. */
		res = doca_workq_event_handle_arm(state->workq);
		if (res != DOCA_SUCCESS)
			break;
		if (epoll_wait(epfd, &ev, 1, EVENT_WAIT_MS) != 1) {
			DOCA_LOG_ERR("The work queue's handle stayed quiet for %d ms", EVENT_WAIT_MS);
			res = DOCA_ERROR_TIME_OUT;
			break;
		}
		waits++;
		res = doca_workq_event_handle_clear(state->workq, handle);
	}
	close(epfd);
	if (res != DOCA_SUCCESS)
		return res;
	/* Drained: the next retrieve has nothing. */
	if (doca_workq_progress_retrieve(state->workq, &event, DOCA_WORKQ_RETRIEVE_FLAGS_NONE) != DOCA_ERROR_AGAIN)
		return DOCA_ERROR_UNEXPECTED;
	DOCA_LOG_INFO("Job done after %d wait(s) on the event handle", waits);
	return (doca_error_t)event.result.u64;
}

static doca_error_t dma_local_copy(const struct doca_pci_bdf *pcie_addr, char *src, char *dst, size_t size,
				   int event_driven)
{
	struct program_core_objects state = {0};
	struct doca_dma_job_memcpy dma_job;
	struct doca_dma *dma_ctx;
	struct doca_buf *src_doca_buf, *dst_doca_buf;
	struct doca_job doca_job = {0};
	size_t dst_len = 0;
	doca_error_t res, res2;

	res = doca_dma_create(&dma_ctx);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to create DMA engine: %s", doca_get_error_string(res));
		return res;
	}
	res = open_local_device(pcie_addr, &state.dev);
	if (res != DOCA_SUCCESS)
		return res;
	res = create_core_objects(&state, dma_ctx, 2);
	/* Event-driven mode is chosen before the work queue joins the context. */
	if (res == DOCA_SUCCESS && event_driven)
		res = doca_workq_set_event_driven_enable(state.workq, 1);
	if (res == DOCA_SUCCESS)
		res = init_core_objects(&state, 2);
	if (res != DOCA_SUCCESS)
		return res;

	/* Two chunks of one map; the results are or-ed together as the sample does. */
	res = doca_mmap_populate(state.mmap, dst, size, PAGE_SIZE, NULL, NULL);
	res2 = doca_mmap_populate(state.mmap, src, size, PAGE_SIZE, NULL, NULL);
	if (res != DOCA_SUCCESS || res2 != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to populate memory map: %s / %s", doca_get_error_string(res),
			     doca_get_error_string(res2));
		return res != DOCA_SUCCESS ? res : res2;
	}
	res = doca_buf_inventory_buf_by_addr(state.buf_inv, state.mmap, src, size, &src_doca_buf);
	if (res == DOCA_SUCCESS)
		res = doca_buf_inventory_buf_by_addr(state.buf_inv, state.mmap, dst, size, &dst_doca_buf);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to acquire DOCA buffer: %s", doca_get_error_string(res));
		return res;
	}

	/* The 1.3 sample builds the head apart, zeroed, and copies it in. */
	doca_job.type = DOCA_DMA_JOB_MEMCPY;
	doca_job.flags = DOCA_JOB_FLAGS_NONE;
	doca_job.ctx = state.ctx;
	doca_job.user_data.u64 = 0x14;
	dma_job.base = doca_job;
	dma_job.dst_buff = dst_doca_buf;
	dma_job.src_buff = src_doca_buf;
	dma_job.num_bytes_to_copy = size;
	res = event_driven ? run_dma_job_event(&state, &dma_job) : run_dma_job(&state, &dma_job);
	if (res == DOCA_SUCCESS)
		res = doca_buf_get_data_len(dst_doca_buf, &dst_len);
	if (res == DOCA_SUCCESS && dst_len != size) {
		DOCA_LOG_ERR("Destination data length %zu after copying %zu bytes", dst_len, size);
		res = DOCA_ERROR_UNEXPECTED;
	}
	if (res == DOCA_SUCCESS)
		DOCA_LOG_INFO("Success, memory copied and verified as correct");

	if (doca_buf_refcount_rm(src_doca_buf, NULL) != DOCA_SUCCESS ||
	    doca_buf_refcount_rm(dst_doca_buf, NULL) != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to remove DOCA buffer reference count");
		return DOCA_ERROR_UNEXPECTED;
	}
	cleanup_core_objects(&state);
	destroy_core_objects(&state, dma_ctx);
	return res;
}

int main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 1 << 20;
	struct doca_pci_bdf pcie_dev;
	char *src, *dst;
	doca_error_t res;

	if (size == 0 || parse_pci_addr(argc > 2 ? argv[2] : LEGACY14_DPU_PCI, &pcie_dev) != DOCA_SUCCESS)
		return 2;
	/* malloc memory, unaligned to the page size as the sample's is. */
	src = malloc(size + 1);
	dst = calloc(1, size + 1);
	if (src == NULL || dst == NULL)
		return 1;
	for (size_t i = 0; i < size; i++)
		src[i + 1] = (char)(i * 31 + 7);
	res = dma_local_copy(&pcie_dev, src + 1, dst + 1, size, argc > 3 && strcmp(argv[3], "event") == 0);
	if (res == DOCA_SUCCESS && memcmp(src + 1, dst + 1, size) != 0) {
		DOCA_LOG_ERR("The destination differs from the source");
		res = DOCA_ERROR_UNEXPECTED;
	}
	free(src);
	free(dst);
	if (res != DOCA_SUCCESS)
		return 1;
	printf("local copy of %zu bytes: ok (DOCA %s headers, runtime %s)\n", size, doca_version(),
	       doca_version_runtime());
	return 0;
}
