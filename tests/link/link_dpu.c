/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link_dpu.c - the DPU side of the cross-process tests: a plain DOCA program
 * that imports the host's export and DMAs from and to it, as the DPU half of
 * DOCA's dma_copy sample does.
 *
 * usage: link_dpu <descriptor hex> <host address> <length> <command>...
 * Commands, run in order, each printing one line:
 *   import          create the mmap from the export ("import <error name>")
 *   early           as import, but only as the first command: it runs before the
 *                   DMA context exists (DOCA lets a program import in either order)
 *   read <sum>      DMA host -> local, compare the checksum ("read OK|MISMATCH|<error>")
 *   write <seed>    fill local with a pattern, DMA local -> host ("write OK <sum>|<error>")
 *   imports <n>     import the same descriptor n more times at once, then destroy them
 *   wait            print "waiting" and read one line from stdin
 * A failed import ends the program (exit 0: the failure is the answer).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_mmap.h>
#include <doca_pe.h>

#include "ferry_test_dev.h"
#include "xproc_common.h"

struct side {
	struct doca_dev *dev;
	struct doca_pe *pe;
	struct doca_dma *dma;
	struct doca_buf_inventory *inv;
	struct doca_mmap *local_mmap, *remote_mmap;
	uint8_t *local;
	uint8_t *desc;
	size_t desc_len;
	uint8_t *host_addr;
	size_t len;
	uint64_t max_chunk;
	bool done;
	doca_error_t status;
};

static void on_done(struct doca_dma_task_memcpy *task, union doca_data tud, union doca_data cud)
{
	struct side *s = cud.ptr;

	(void)tud;
	s->status = doca_task_get_status(doca_dma_task_memcpy_as_task(task));
	s->done = true;
}

static int setup(struct side *s)
{
	union doca_data ud = {.ptr = s};

	if (s->dev == NULL)
		s->dev = ferry_test_open_dev("03:00.0", NULL);
	s->local = malloc(s->len);
	if (s->dev == NULL || s->local == NULL)
		return -1;
	if (doca_dma_cap_task_memcpy_get_max_buf_size(doca_dev_as_devinfo(s->dev), &s->max_chunk) != DOCA_SUCCESS)
		return -1;
	if (s->max_chunk > (64u << 20))
		s->max_chunk = 64u << 20;
	if (doca_mmap_create(&s->local_mmap) != DOCA_SUCCESS ||
	    doca_mmap_set_memrange(s->local_mmap, s->local, s->len) != DOCA_SUCCESS ||
	    doca_mmap_set_permissions(s->local_mmap, DOCA_ACCESS_FLAG_LOCAL_READ_WRITE) != DOCA_SUCCESS ||
	    doca_mmap_add_dev(s->local_mmap, s->dev) != DOCA_SUCCESS || doca_mmap_start(s->local_mmap) != DOCA_SUCCESS)
		return -1;
	if (doca_buf_inventory_create(16, &s->inv) != DOCA_SUCCESS || doca_buf_inventory_start(s->inv) != DOCA_SUCCESS)
		return -1;
	if (doca_pe_create(&s->pe) != DOCA_SUCCESS || doca_dma_create(s->dev, &s->dma) != DOCA_SUCCESS ||
	    doca_dma_task_memcpy_set_conf(s->dma, on_done, on_done, 4) != DOCA_SUCCESS ||
	    doca_ctx_set_user_data(doca_dma_as_ctx(s->dma), ud) != DOCA_SUCCESS ||
	    doca_pe_connect_ctx(s->pe, doca_dma_as_ctx(s->dma)) != DOCA_SUCCESS ||
	    doca_ctx_start(doca_dma_as_ctx(s->dma)) != DOCA_SUCCESS)
		return -1;
	return 0;
}

static enum doca_ctx_states ctx_state(struct side *s)
{
	enum doca_ctx_states st = DOCA_CTX_STATE_IDLE;

	(void)doca_ctx_get_state(doca_dma_as_ctx(s->dma), &st);
	return st;
}

/* One chunk: src data [src, src+n) into dst; returns the task's status. */
static doca_error_t copy_chunk(struct side *s, struct doca_mmap *src_mmap, void *src, struct doca_mmap *dst_mmap,
			       void *dst, size_t n)
{
	struct doca_buf *sb = NULL, *db = NULL;
	struct doca_dma_task_memcpy *task = NULL;
	union doca_data tud = {.u64 = 0};
	doca_error_t err = doca_buf_inventory_buf_get_by_data(s->inv, src_mmap, src, n, &sb);

	if (err == DOCA_SUCCESS)
		err = doca_buf_inventory_buf_get_by_addr(s->inv, dst_mmap, dst, n, &db);
	if (err == DOCA_SUCCESS)
		err = doca_dma_task_memcpy_alloc_init(s->dma, sb, db, tud, &task);
	if (err == DOCA_SUCCESS) {
		s->done = false;
		err = doca_task_submit(doca_dma_task_memcpy_as_task(task));
		while (err == DOCA_SUCCESS && !s->done)
			(void)doca_pe_progress(s->pe);
		if (err == DOCA_SUCCESS)
			err = s->status;
		doca_task_free(doca_dma_task_memcpy_as_task(task));
	}
	if (sb != NULL)
		doca_buf_dec_refcount(sb, NULL);
	if (db != NULL)
		doca_buf_dec_refcount(db, NULL);
	return err;
}

static doca_error_t copy(struct side *s, bool to_host)
{
	for (size_t off = 0; off < s->len; off += s->max_chunk) {
		size_t n = s->len - off < s->max_chunk ? s->len - off : s->max_chunk;
		doca_error_t err = to_host ? copy_chunk(s, s->local_mmap, s->local + off, s->remote_mmap,
							s->host_addr + off, n)
					   : copy_chunk(s, s->remote_mmap, s->host_addr + off, s->local_mmap,
							s->local + off, n);
		if (err != DOCA_SUCCESS)
			return err;
	}
	return DOCA_SUCCESS;
}

static int parse_hex(struct side *s, const char *hex)
{
	size_t n = strlen(hex) / 2;

	s->desc = malloc(n ? n : 1);
	if (s->desc == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		s->desc[i] = (uint8_t)v;
	}
	s->desc_len = n;
	return 0;
}

static void cmd_imports(struct side *s, int n)
{
	struct doca_mmap **more = calloc((size_t)n, sizeof(*more));
	doca_error_t err = DOCA_SUCCESS;
	int i;

	for (i = 0; i < n && err == DOCA_SUCCESS; i++)
		err = doca_mmap_create_from_export(NULL, s->desc, s->desc_len, s->dev, &more[i]);
	for (int k = 0; k < n; k++)
		if (more[k] != NULL)
			doca_mmap_destroy(more[k]);
	free(more);
	printf("imports %s\n", err == DOCA_SUCCESS ? "OK" : doca_error_get_name(err));
}

/* The device and the import, before setup creates anything else. */
static doca_error_t open_early(struct side *s)
{
	s->dev = ferry_test_open_dev("03:00.0", NULL);
	if (s->dev == NULL)
		return DOCA_ERROR_NOT_FOUND;
	return doca_mmap_create_from_export(NULL, s->desc, s->desc_len, s->dev, &s->remote_mmap);
}

int main(int argc, char **argv)
{
	struct side s;
	int first = 4;

	memset(&s, 0, sizeof(s));
	if (argc < 4 || parse_hex(&s, argv[1]) != 0)
		return 2;
	s.host_addr = (uint8_t *)(uintptr_t)strtoull(argv[2], NULL, 0);
	s.len = strtoull(argv[3], NULL, 0);
	if (argc > 4 && strcmp(argv[4], "early") == 0) {
		doca_error_t err = open_early(&s);

		printf("import %s\n", doca_error_get_name(err));
		if (err != DOCA_SUCCESS)
			return 0;
		first = 5;
	}
	if (setup(&s) != 0) {
		printf("setup failed\n");
		return 3;
	}
	for (int i = first; i < argc; i++) {
		doca_error_t err;
		if (strcmp(argv[i], "import") == 0) {
			err = doca_mmap_create_from_export(NULL, s.desc, s.desc_len, s.dev, &s.remote_mmap);
			printf("import %s\n", doca_error_get_name(err));
			if (err != DOCA_SUCCESS)
				break;
		} else if (strcmp(argv[i], "read") == 0 && i + 1 < argc) {
			uint64_t want = strtoull(argv[++i], NULL, 16);
			memset(s.local, 0, s.len);
			err = copy(&s, false);
			if (err != DOCA_SUCCESS)
				printf("read %s\n", doca_error_get_name(err));
			else
				printf("read %s\n", xp_sum(s.local, s.len) == want ? "OK" : "MISMATCH");
		} else if (strcmp(argv[i], "write") == 0 && i + 1 < argc) {
			xp_fill(s.local, s.len, strtoull(argv[++i], NULL, 0));
			err = copy(&s, true);
			if (err != DOCA_SUCCESS)
				printf("write %s\n", doca_error_get_name(err));
			else
				printf("write OK %" PRIx64 "\n", xp_sum(s.local, s.len));
		} else if (strcmp(argv[i], "imports") == 0 && i + 1 < argc) {
			cmd_imports(&s, atoi(argv[++i]));
		} else if (strcmp(argv[i], "wait") == 0) {
			char line[16];
			printf("waiting\n");
			fflush(stdout);
			if (fgets(line, sizeof(line), stdin) == NULL)
				break;
		}
		fflush(stdout);
	}
	fflush(stdout);
	/* A failed copy stops the context (as DOCA's DMA does): progress it to IDLE before destroying it. */
	doca_ctx_stop(doca_dma_as_ctx(s.dma));
	for (int i = 0; i < 100000 && ctx_state(&s) != DOCA_CTX_STATE_IDLE; i++)
		(void)doca_pe_progress(s.pe);
	doca_dma_destroy(s.dma);
	doca_pe_destroy(s.pe);
	if (s.remote_mmap != NULL)
		doca_mmap_destroy(s.remote_mmap);
	doca_mmap_destroy(s.local_mmap);
	doca_buf_inventory_destroy(s.inv);
	doca_dev_close(s.dev);
	free(s.local);
	free(s.desc);
	return 0;
}
