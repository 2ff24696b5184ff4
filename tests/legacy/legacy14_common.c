/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy14_common.c - the shared part of the DOCA 1.4 test programs (see
 * legacy14_common.h): the calls a 1.3/1.4 DMA program makes, in its order.
 */
#include <stdlib.h>
#include <string.h>

#include <doca_log.h>

#include "legacy14_common.h"

DOCA_LOG_REGISTER(DMA_COMMON);

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

doca_error_t parse_pci_addr(const char *text, struct doca_pci_bdf *out)
{
	int b1, b0, d1, d0, f;

	if (text == NULL || strlen(text) != 7 || text[2] != ':' || text[5] != '.')
		return DOCA_ERROR_INVALID_VALUE;
	b1 = hex_digit(text[0]);
	b0 = hex_digit(text[1]);
	d1 = hex_digit(text[3]);
	d0 = hex_digit(text[4]);
	f = hex_digit(text[6]);
	if (b1 < 0 || b0 < 0 || d1 < 0 || d0 < 0 || f < 0 || d1 * 16 + d0 >= PCI_DEVICE_MAX_VALUE ||
	    f >= PCI_FUNCTION_MAX_VALUE)
		return DOCA_ERROR_INVALID_VALUE;
	out->raw = 0;
	out->bus = (uint16_t)(b1 * 16 + b0);
	out->device = (uint16_t)(d1 * 16 + d0);
	out->function = (uint16_t)f;
	return DOCA_SUCCESS;
}

doca_error_t open_local_device(const struct doca_pci_bdf *pci, struct doca_dev **dev)
{
	struct doca_devinfo **dev_list;
	uint32_t nb_devs;
	uint32_t caps = 0;
	doca_error_t res;

	res = doca_devinfo_list_create(&dev_list, &nb_devs);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to load doca devices list: %s", doca_get_error_string(res));
		return res;
	}
	res = DOCA_ERROR_NOT_FOUND;
	for (uint32_t i = 0; i < nb_devs; i++) {
		struct doca_pci_bdf found;

		if (doca_devinfo_property_get(dev_list[i], DOCA_DEVINFO_PROPERTY_PCI_ADDR, (uint8_t *)&found,
					      sizeof(found)) != DOCA_SUCCESS ||
		    found.raw != pci->raw)
			continue;
		if (doca_dma_devinfo_caps_get(dev_list[i], &caps) != DOCA_SUCCESS ||
		    (caps & DOCA_DMA_CAP_HW_OFFLOAD) == 0)
			continue;
		res = doca_dev_open(dev_list[i], dev);
		break;
	}
	doca_devinfo_list_destroy(dev_list);
	if (res != DOCA_SUCCESS)
		DOCA_LOG_ERR("No DMA device at %02x:%02x.%x: %s", pci->bus, pci->device, pci->function,
			     doca_get_error_string(res));
	return res;
}

doca_error_t create_core_objects(struct program_core_objects *state, struct doca_dma *dma, uint32_t max_bufs)
{
	doca_error_t res;

	res = doca_mmap_create("my_mmap", &state->mmap);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to create mmap: %s", doca_get_error_string(res));
		return res;
	}
	res = doca_buf_inventory_create("my_inventory", max_bufs, DOCA_BUF_EXTENSION_NONE, &state->buf_inv);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Unable to create buffer inventory: %s", doca_get_error_string(res));
		return res;
	}
	state->ctx = doca_dma_as_ctx(dma);
	res = doca_workq_create(LEGACY14_WORKQ_DEPTH, &state->workq);
	if (res != DOCA_SUCCESS)
		DOCA_LOG_ERR("Unable to create work queue: %s", doca_get_error_string(res));
	return res;
}

doca_error_t init_core_objects(struct program_core_objects *state, uint32_t max_chunks)
{
	doca_error_t res;

	res = doca_mmap_property_set(state->mmap, DOCA_MMAP_MAX_NUM_CHUNKS, (const uint8_t *)&max_chunks,
				     sizeof(max_chunks));
	if (res == DOCA_SUCCESS)
		res = doca_mmap_start(state->mmap);
	if (res == DOCA_SUCCESS)
		res = doca_mmap_dev_add(state->mmap, state->dev);
	if (res == DOCA_SUCCESS)
		res = doca_buf_inventory_start(state->buf_inv);
	if (res == DOCA_SUCCESS)
		res = doca_ctx_dev_add(state->ctx, state->dev);
	if (res == DOCA_SUCCESS)
		res = doca_ctx_start(state->ctx);
	if (res == DOCA_SUCCESS)
		res = doca_ctx_workq_add(state->ctx, state->workq);
	if (res != DOCA_SUCCESS)
		DOCA_LOG_ERR("Unable to initialize the core objects: %s", doca_get_error_string(res));
	return res;
}

void cleanup_core_objects(struct program_core_objects *state)
{
	doca_error_t res;

	res = doca_ctx_workq_rm(state->ctx, state->workq);
	if (res == DOCA_SUCCESS)
		res = doca_ctx_stop(state->ctx);
	if (res == DOCA_SUCCESS)
		res = doca_ctx_dev_rm(state->ctx, state->dev);
	if (res == DOCA_SUCCESS)
		res = doca_mmap_dev_rm(state->mmap, state->dev);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Cleanup failed: %s", doca_get_error_string(res));
		exit(1);
	}
}

void destroy_core_objects(struct program_core_objects *state, struct doca_dma *dma)
{
	doca_error_t res;

	res = doca_workq_destroy(state->workq);
	if (res == DOCA_SUCCESS)
		res = doca_dma_destroy(dma);
	if (res == DOCA_SUCCESS)
		res = doca_buf_inventory_destroy(state->buf_inv);
	if (res == DOCA_SUCCESS)
		res = doca_mmap_destroy(state->mmap);
	if (res == DOCA_SUCCESS)
		res = doca_dev_close(state->dev);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Destroy failed: %s", doca_get_error_string(res));
		exit(1);
	}
}

doca_error_t run_dma_job(struct program_core_objects *state, struct doca_dma_job_memcpy *job)
{
	struct doca_event event = {0};
	doca_error_t res;

	res = doca_workq_submit(state->workq, &job->base);
	if (res != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to submit DMA job: %s", doca_get_error_string(res));
		return res;
	}
	/* The 1.3 samples spin with an empty loop. */
	while ((res = doca_workq_progress_retrieve(state->workq, &event, DOCA_WORKQ_RETRIEVE_FLAGS_NONE)) ==
	       DOCA_ERROR_AGAIN)
		;
	if (res != DOCA_SUCCESS && res != DOCA_ERROR_IO_FAILED) {
		DOCA_LOG_ERR("Failed to retrieve DMA job: %s", doca_get_error_string(res));
		return res;
	}
	if (event.type != DOCA_DMA_JOB_MEMCPY || event.user_data.u64 != job->base.user_data.u64) {
		DOCA_LOG_ERR("Event of type %d, user data %#llx: not the job's", event.type,
			     (unsigned long long)event.user_data.u64);
		return DOCA_ERROR_UNEXPECTED;
	}
	if ((doca_error_t)event.result.u64 != DOCA_SUCCESS)
		DOCA_LOG_ERR("DMA job failed: %s", doca_get_error_string((doca_error_t)event.result.u64));
	return (doca_error_t)event.result.u64;
}
