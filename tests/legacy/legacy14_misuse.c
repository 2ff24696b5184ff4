/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy14_misuse.c - a DOCA 1.4 program that breaks the rules of that
 * generation, one at a time, and checks each answer: the code DOCA 1.x
 * documented and Ferry's line naming the call and the rule. Built only
 * against include/legacy/doca-1.4, plus three DOCA 3 symbols declared by hand
 * to hand a map of one generation to a call of the other.
 *
 * Order: mmap life cycle and limits, chunks, bufs, wrong generation, export
 * and forged descriptors, contexts and jobs, devices by property.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <doca_buf.h>
#include <doca_buf_inventory.h>
#include <doca_ctx.h>
#include <doca_dev.h>
#include <doca_dma.h>
#include <doca_error.h>
#include <doca_log.h>
#include <doca_mmap.h>
#include <doca_version.h>

#include "legacy14_common.h"

DOCA_LOG_REGISTER(LEGACY14_MISUSE);

/* The structs a program hands the library by pointer: the layout src/legacy/legacy_priv.h pins. */
_Static_assert(sizeof(struct doca_job) == 24, "struct doca_job");
_Static_assert(sizeof(struct doca_event) == 24, "struct doca_event");
_Static_assert(sizeof(struct doca_dma_job_memcpy) == 48, "struct doca_dma_job_memcpy with num_bytes_to_copy");
_Static_assert(offsetof(struct doca_dma_job_memcpy, num_bytes_to_copy) == 40, "num_bytes_to_copy at 40");
_Static_assert(sizeof(struct doca_pci_bdf) == 2, "struct doca_pci_bdf");

/* DOCA 3 calls (libdoca_common) and 2.2's buf_by_addr (libferry_legacy), under names of our own. */
doca_error_t doca3_mmap_create(struct doca_mmap **mmap) __asm__("doca_mmap_create");
doca_error_t doca3_mmap_start(struct doca_mmap *mmap) __asm__("doca_mmap_start");
doca_error_t doca3_mmap_destroy(struct doca_mmap *mmap) __asm__("doca_mmap_destroy");
doca_error_t v22_buf_by_addr(struct doca_buf_inventory *inv, struct doca_mmap *mmap, void *addr, size_t len,
			     struct doca_buf **buf) __asm__("doca_buf_inventory_buf_by_addr");

static int failures;
static char captured[8192];

/* Run @p call with standard output and error going to a file; keep what it printed in captured. */
#define CAPTURE(result, call)                                        \
	do {                                                         \
		FILE *tmp_ = tmpfile();                              \
		int out_ = dup(1), err_ = dup(2);                    \
		size_t n_;                                           \
		fflush(NULL);                                        \
		dup2(fileno(tmp_), 1);                               \
		dup2(fileno(tmp_), 2);                               \
		(result) = (call);                                   \
		fflush(NULL);                                        \
		dup2(out_, 1);                                       \
		dup2(err_, 2);                                       \
		close(out_);                                         \
		close(err_);                                         \
		rewind(tmp_);                                        \
		n_ = fread(captured, 1, sizeof(captured) - 1, tmp_); \
		captured[n_] = '\0';                                 \
		fclose(tmp_);                                        \
	} while (0)

/* @p call answers @p want and, unless @p line is NULL, prints a line holding @p line. */
#define EXPECT(call, want, line)                                                                                 \
	do {                                                                                                     \
		doca_error_t got_;                                                                               \
		CAPTURE(got_, call);                                                                             \
		if (got_ != (want)) {                                                                            \
			printf("FAIL %s:%d: %s answered %s, expected %s\n%s", __FILE__, __LINE__, #call,         \
			       doca_get_error_name(got_), doca_get_error_name(want), captured);                  \
			failures++;                                                                              \
		} else if ((line) != NULL && strstr(captured, (line) != NULL ? (line) : "") == NULL) {           \
			printf("FAIL %s:%d: %s printed no line with '%s' (printed: '%s')\n", __FILE__, __LINE__, \
			       #call, (const char *)(line), captured);                                           \
			failures++;                                                                              \
		}                                                                                                \
	} while (0)

#define OK(call) EXPECT(call, DOCA_SUCCESS, NULL)

static void must(int cond, const char *what)
{
	if (!cond) {
		printf("FAIL: %s\n", what);
		failures++;
	}
}

static struct doca_dev *open_dev(const char *pci)
{
	struct doca_pci_bdf bdf;
	struct doca_dev *dev = NULL;

	if (parse_pci_addr(pci, &bdf) != DOCA_SUCCESS || open_local_device(&bdf, &dev) != DOCA_SUCCESS) {
		printf("FAIL: no device at %s\n", pci);
		exit(1);
	}
	return dev;
}

static int freed;

static void count_free(void *addr, size_t len, void *opaque)
{
	(void)addr;
	(void)len;
	freed += *(int *)opaque;
}

/* ---- the map's life cycle, limits, chunks and bufs ---- */

static void mmap_rules(struct doca_dev *dpu, struct doca_dev *host)
{
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *buf;
	uint32_t two = 2, one = 1, zero = 0, got = 0;
	uint8_t *desc;
	size_t desc_len;
	int weight = 1;
	char *mem = malloc(3 * 8192 + 1);
	char *a = mem + 1, *b = mem + 1 + 8192, *c = mem + 1 + 2 * 8192; /* unaligned, as malloc gives */

	OK(doca_buf_inventory_create("inv", 4, DOCA_BUF_EXTENSION_NONE, &inv));
	OK(doca_buf_inventory_start(inv));
	OK(doca_mmap_create(NULL, &mmap));
	/* DOCA 1.x: start first, then devices, then chunks. */
	EXPECT(doca_mmap_dev_add(mmap, dpu), DOCA_ERROR_NOT_PERMITTED, "not started");
	EXPECT(doca_mmap_populate(mmap, a, 8192, 4096, NULL, NULL), DOCA_ERROR_NOT_PERMITTED, "not started");
	EXPECT(doca_mmap_export(mmap, dpu, &desc, &desc_len), DOCA_ERROR_NOT_PERMITTED, "not started");
	EXPECT(doca_mmap_property_set(mmap, DOCA_MMAP_MAX_NUM_CHUNKS, (const uint8_t *)&two, 2),
	       DOCA_ERROR_INVALID_VALUE, "uint32_t");
	EXPECT(doca_mmap_property_set(mmap, (enum doca_mmap_property)7, (const uint8_t *)&two, 4),
	       DOCA_ERROR_INVALID_VALUE, "doca_mmap_property");
	EXPECT(doca_mmap_property_set(mmap, DOCA_MMAP_MAX_NUM_CHUNKS, (const uint8_t *)&zero, 4),
	       DOCA_ERROR_INVALID_VALUE, "limit of 0");
	OK(doca_mmap_property_set(mmap, DOCA_MMAP_MAX_NUM_CHUNKS, (const uint8_t *)&two, sizeof(two)));
	OK(doca_mmap_property_set(mmap, DOCA_MMAP_MAX_NUM_DEVICES, (const uint8_t *)&one, sizeof(one)));
	OK(doca_mmap_start(mmap));
	EXPECT(doca_mmap_start(mmap), DOCA_ERROR_BAD_STATE, "already started");
	EXPECT(doca_mmap_property_set(mmap, DOCA_MMAP_MAX_NUM_CHUNKS, (const uint8_t *)&one, sizeof(one)),
	       DOCA_ERROR_NOT_PERMITTED, "before the first doca_mmap_start");
	OK(doca_mmap_property_get(mmap, DOCA_MMAP_MAX_NUM_CHUNKS, (uint8_t *)&got, sizeof(got)));
	must(got == 2, "property_get gives MAX_NUM_CHUNKS back");

	/* Devices: once each, up to the limit. */
	EXPECT(doca_mmap_dev_add(mmap, NULL), DOCA_ERROR_INVALID_VALUE, "not an open device");
	OK(doca_mmap_dev_add(mmap, dpu));
	EXPECT(doca_mmap_dev_add(mmap, dpu), DOCA_ERROR_IN_USE, "already in mmap");
	EXPECT(doca_mmap_dev_add(mmap, host), DOCA_ERROR_NO_MEMORY, "DOCA_MMAP_MAX_NUM_DEVICES");
	EXPECT(doca_mmap_dev_rm(mmap, host), DOCA_ERROR_NOT_FOUND, "never added");

	/* Chunks: page size a power of two >= 4096, no overlap, up to the limit. */
	EXPECT(doca_mmap_populate(mmap, a, 8192, 1024, NULL, NULL), DOCA_ERROR_INVALID_VALUE, "pg_sz");
	EXPECT(doca_mmap_populate(mmap, a, 8192, 6144, NULL, NULL), DOCA_ERROR_INVALID_VALUE, "pg_sz");
	EXPECT(doca_mmap_populate(mmap, NULL, 8192, 4096, NULL, NULL), DOCA_ERROR_INVALID_VALUE, "empty");
	EXPECT(doca_mmap_populate(mmap, a, 0, 4096, NULL, NULL), DOCA_ERROR_INVALID_VALUE, "empty");
	OK(doca_mmap_populate(mmap, a, 8192, 4096, count_free, &weight));
	EXPECT(doca_mmap_populate(mmap, a + 100, 100, 4096, NULL, NULL), DOCA_ERROR_NOT_PERMITTED, "overlaps");
	EXPECT(doca_mmap_populate(mmap, a - 1, 2, 4096, NULL, NULL), DOCA_ERROR_NOT_PERMITTED, "overlaps");
	OK(doca_mmap_populate(mmap, b, 8192, 8192, count_free, &weight));
	EXPECT(doca_mmap_populate(mmap, c, 8192, 4096, NULL, NULL), DOCA_ERROR_NO_MEMORY, "DOCA_MMAP_MAX_NUM_CHUNKS");
	EXPECT(doca_mmap_export(mmap, dpu, &desc, &desc_len), DOCA_ERROR_NOT_SUPPORTED, "one chunk");

	/* Bufs lie inside one chunk; while one is out the map stays as it is. */
	EXPECT(doca_buf_inventory_buf_by_addr(inv, mmap, c, 16, &buf), DOCA_ERROR_INVALID_VALUE, "no chunk");
	EXPECT(doca_buf_inventory_buf_by_addr(inv, mmap, a + 8000, 400, &buf), DOCA_ERROR_INVALID_VALUE, "no chunk");
	OK(doca_buf_inventory_buf_by_addr(inv, mmap, b + 10, 100, &buf));
	EXPECT(doca_buf_refcount_add(buf, NULL), DOCA_ERROR_NOT_SUPPORTED, "one holder");
	EXPECT(doca_mmap_destroy(mmap), DOCA_ERROR_NOT_PERMITTED, "buf(s) pointing into it");
	EXPECT(doca_mmap_stop(mmap), DOCA_ERROR_NOT_PERMITTED, "buf(s) pointing into it");
	EXPECT(doca_mmap_dev_rm(mmap, dpu), DOCA_ERROR_NOT_PERMITTED, "buf(s) pointing into it");
	EXPECT(doca_buf_inventory_destroy(inv), DOCA_ERROR_IN_USE, NULL);
	OK(doca_buf_refcount_rm(buf, NULL));

	/* Stopped: nothing changes and no buf is taken; started again, it all comes back. */
	OK(doca_mmap_stop(mmap));
	EXPECT(doca_mmap_stop(mmap), DOCA_ERROR_BAD_STATE, "not started");
	EXPECT(doca_mmap_dev_rm(mmap, dpu), DOCA_ERROR_NOT_PERMITTED, "not started");
	EXPECT(doca_buf_inventory_buf_by_addr(inv, mmap, a, 16, &buf), DOCA_ERROR_BAD_STATE, "not started");
	OK(doca_mmap_start(mmap));
	OK(doca_buf_inventory_buf_by_addr(inv, mmap, a, 8192, &buf));
	OK(doca_buf_refcount_rm(buf, NULL));
	/* A device removed after populate leaves every chunk; added back, it joins each again. */
	OK(doca_mmap_dev_rm(mmap, dpu));
	OK(doca_mmap_dev_add(mmap, dpu));
	OK(doca_mmap_destroy(mmap));
	must(freed == 2, "the free callback ran once per chunk at destroy");
	OK(doca_buf_inventory_destroy(inv));
	free(mem);
}

/* ---- a map of one generation handed to a call of the other ---- */

static void wrong_generation(struct doca_dev *dpu)
{
	struct doca_mmap *v14, *doca3;
	struct doca_buf_inventory *inv;
	struct doca_buf *buf;
	uint64_t garbage[16] = {0};
	char *mem = malloc(4096);

	OK(doca_buf_inventory_create("inv", 1, DOCA_BUF_EXTENSION_NONE, &inv));
	OK(doca_buf_inventory_start(inv));
	OK(doca_mmap_create("v14", &v14));
	OK(doca_mmap_start(v14));
	OK(doca_mmap_dev_add(v14, dpu));
	OK(doca_mmap_populate(v14, mem, 4096, 4096, NULL, NULL));
	/* A 1.x map in DOCA 3's and 2.2's calls. */
	EXPECT(doca3_mmap_start(v14), DOCA_ERROR_INVALID_VALUE, "doca_mmap_start: mmap");
	EXPECT(v22_buf_by_addr(inv, v14, mem, 64, &buf), DOCA_ERROR_INVALID_VALUE, "DOCA 1.3/1.4");
	EXPECT(doca3_mmap_destroy(v14), DOCA_ERROR_INVALID_VALUE, "DOCA 1.3/1.4");
	/* A DOCA 3 (or 2.2) map in 1.4's calls. */
	OK(doca3_mmap_create(&doca3));
	EXPECT(doca_mmap_populate(doca3, mem, 4096, 4096, NULL, NULL), DOCA_ERROR_INVALID_VALUE, "DOCA 1.5 or later");
	EXPECT(doca_mmap_start(doca3), DOCA_ERROR_INVALID_VALUE, "doca_mmap_start: mmap");
	EXPECT(doca_buf_inventory_buf_by_addr(inv, doca3, mem, 64, &buf), DOCA_ERROR_INVALID_VALUE,
	       "DOCA 1.5 or later");
	EXPECT(doca_mmap_destroy(doca3), DOCA_ERROR_INVALID_VALUE, "DOCA 1.5 or later");
	OK(doca3_mmap_destroy(doca3));
	/* Neither: garbage. */
	EXPECT(doca_mmap_start((struct doca_mmap *)garbage), DOCA_ERROR_INVALID_VALUE, "not a live mmap");
	EXPECT(doca3_mmap_start((struct doca_mmap *)garbage), DOCA_ERROR_INVALID_VALUE, "not a live mmap");
	OK(doca_mmap_destroy(v14));
	OK(doca_buf_inventory_destroy(inv));
	free(mem);
}

/* ---- export, import and forged text ---- */

static void export_rules(struct doca_dev *dpu, struct doca_dev *host)
{
	struct doca_mmap *mmap, *remote;
	struct doca_buf_inventory *inv;
	struct doca_buf *buf;
	char *text, forged[2048];
	uint8_t *again;
	size_t len, again_len;
	uint32_t one = 1;
	uint64_t not_a_dev[16] = {0};
	char *mem = malloc(65536);
	char *p;

	OK(doca_buf_inventory_create("inv", 1, DOCA_BUF_EXTENSION_NONE, &inv));
	OK(doca_buf_inventory_start(inv));
	OK(doca_mmap_create("sender", &mmap));
	OK(doca_mmap_start(mmap));
	OK(doca_mmap_dev_add(mmap, host));
	EXPECT(doca_mmap_export(mmap, host, (uint8_t **)&text, &len), DOCA_ERROR_NOT_PERMITTED, "no chunk");
	OK(doca_mmap_populate(mmap, mem, 65536, 4096, NULL, NULL));
	EXPECT(doca_mmap_export(mmap, dpu, (uint8_t **)&text, &len), DOCA_ERROR_INVALID_VALUE, "was not added");
	EXPECT(doca_mmap_export(mmap, host, NULL, &len), DOCA_ERROR_INVALID_VALUE, "is NULL");
	EXPECT(doca_mmap_export(mmap, (struct doca_dev *)not_a_dev, (uint8_t **)&text, &len), DOCA_ERROR_INVALID_VALUE,
	       "not an open device");
	OK(doca_mmap_export(mmap, host, (uint8_t **)&text, &len));
	must(len == strlen(text) + 1 && len < 1024, "the export is NUL-terminated text under 1024 bytes");
	must(strstr(text, "\"addr\"") != NULL && strstr(text, "\"len\": 65536") != NULL, "the text has addr and len");
	/* One export per map; an exported map is final. */
	EXPECT(doca_mmap_export(mmap, host, &again, &again_len), DOCA_ERROR_NOT_PERMITTED, "exported");
	EXPECT(doca_mmap_dev_add(mmap, dpu), DOCA_ERROR_NOT_PERMITTED, "exported");
	EXPECT(doca_mmap_populate(mmap, mem + 65536 - 1, 1, 4096, NULL, NULL), DOCA_ERROR_NOT_PERMITTED, "exported");

	/* Forged and truncated texts are refused with the reason. */
	EXPECT(doca_mmap_create_from_export("r", (uint8_t *)text, len - 1, dpu, &remote), DOCA_ERROR_INVALID_VALUE,
	       "not NUL-terminated");
	EXPECT(doca_mmap_create_from_export("r", (uint8_t *)text, len / 2, dpu, &remote), DOCA_ERROR_INVALID_VALUE,
	       "not NUL-terminated");
	memset(forged, ' ', sizeof(forged));
	memcpy(forged, text, len);
	forged[sizeof(forged) - 1] = '\0';
	EXPECT(doca_mmap_create_from_export("r", (uint8_t *)forged, sizeof(forged), dpu, &remote),
	       DOCA_ERROR_INVALID_VALUE, "longer than 1024");
	/* A larger len than exported. */
	snprintf(forged, sizeof(forged), "%s", text);
	p = strstr(forged, "65536");
	memcpy(p, "65537", 5);
	EXPECT(doca_mmap_create_from_export("r", (uint8_t *)forged, len, dpu, &remote), DOCA_ERROR_INVALID_VALUE,
	       "the descriptor says");
	/* One hex digit of the binary descriptor changed. */
	snprintf(forged, sizeof(forged), "%s", text);
	p = strstr(forged, "ferry_export\": \"") + strlen("ferry_export\": \"") + 40;
	*p = *p == '0' ? '1' : '0';
	EXPECT(doca_mmap_create_from_export("r", (uint8_t *)forged, len, dpu, &remote), DOCA_ERROR_INVALID_VALUE, NULL);
	/* An extra key, an upper-case digit. */
	snprintf(forged, sizeof(forged), "{\"x\": 1, %s", text + 1);
	EXPECT(doca_mmap_create_from_export("r", (uint8_t *)forged, strlen(forged) + 1, dpu, &remote),
	       DOCA_ERROR_INVALID_VALUE, "other than addr");
	snprintf(forged, sizeof(forged), "%s", text);
	p = strchr(strstr(forged, "ferry_export\": \"") + 16, 'a');
	if (p != NULL) {
		*p = 'A';
		EXPECT(doca_mmap_create_from_export("r", (uint8_t *)forged, len, dpu, &remote),
		       DOCA_ERROR_INVALID_VALUE, "hex digit");
	}

	/* The real text, as the receiver passes it (strlen + 1). */
	OK(doca_mmap_create_from_export("my_mmap", (uint8_t *)text, strlen(text) + 1, dpu, &remote));
	EXPECT(doca_mmap_property_set(remote, DOCA_MMAP_MAX_NUM_CHUNKS, (const uint8_t *)&one, sizeof(one)),
	       DOCA_ERROR_NOT_PERMITTED, NULL);
	EXPECT(doca_mmap_start(remote), DOCA_ERROR_NOT_PERMITTED, "created from an export");
	EXPECT(doca_mmap_dev_add(remote, host), DOCA_ERROR_NOT_PERMITTED, "created from an export");
	EXPECT(doca_mmap_populate(remote, mem, 16, 4096, NULL, NULL), DOCA_ERROR_NOT_PERMITTED,
	       "created from an export");
	EXPECT(doca_mmap_export(remote, dpu, &again, &again_len), DOCA_ERROR_NOT_PERMITTED, "created from an export");
	OK(doca_buf_inventory_buf_by_addr(inv, remote, mem, 65536, &buf));
	OK(doca_buf_refcount_rm(buf, NULL));
	OK(doca_mmap_destroy(remote));
	/* The sender destroys its exported, started map without dev_rm, then frees the text. */
	OK(doca_mmap_destroy(mmap));
	free(text);
	OK(doca_buf_inventory_destroy(inv));
	free(mem);
}

/* ---- contexts and jobs ---- */

static void ctx_rules(struct doca_dev *dpu)
{
	struct doca_dma *dma;
	struct doca_ctx *ctx;
	struct doca_workq *workq;
	struct doca_mmap *mmap;
	struct doca_buf_inventory *inv;
	struct doca_buf *src, *dst, *big;
	struct doca_dma_job_memcpy job = {0};
	char *mem = calloc(1, 8192);

	OK(doca_dma_create(&dma));
	ctx = doca_dma_as_ctx(dma);
	OK(doca_workq_create(4, &workq));
	EXPECT(doca_ctx_start(ctx), DOCA_ERROR_INVALID_VALUE, NULL);
	EXPECT(doca_ctx_workq_add(ctx, workq), DOCA_ERROR_BAD_STATE, NULL);
	OK(doca_ctx_dev_add(ctx, dpu));
	EXPECT(doca_ctx_dev_add(ctx, dpu), DOCA_ERROR_IN_USE, NULL);
	OK(doca_ctx_start(ctx));
	EXPECT(doca_ctx_dev_rm(ctx, dpu), DOCA_ERROR_BAD_STATE, NULL);
	OK(doca_ctx_workq_add(ctx, workq));
	EXPECT(doca_ctx_workq_add(ctx, workq), DOCA_ERROR_IN_USE, NULL);
	EXPECT(doca_ctx_stop(ctx), DOCA_ERROR_NOT_PERMITTED, NULL);
	EXPECT(doca_workq_destroy(workq), DOCA_ERROR_IN_USE, NULL);
	must(doca_dma_destroy(dma) != DOCA_SUCCESS, "a started DMA context on a work queue is not destroyed");

	OK(doca_buf_inventory_create(NULL, 3, DOCA_BUF_EXTENSION_NONE, &inv));
	EXPECT(doca_buf_inventory_create(NULL, 2, 1, &inv), DOCA_ERROR_INVALID_VALUE, "DOCA_BUF_EXTENSION_NONE");
	OK(doca_buf_inventory_start(inv));
	OK(doca_mmap_create(NULL, &mmap));
	OK(doca_mmap_start(mmap));
	OK(doca_mmap_dev_add(mmap, dpu));
	OK(doca_mmap_populate(mmap, mem, 8192, 4096, NULL, NULL));
	OK(doca_buf_inventory_buf_by_addr(inv, mmap, mem, 4096, &src));
	OK(doca_buf_inventory_buf_by_addr(inv, mmap, mem + 4096, 4096, &dst));
	job.base.type = DOCA_DMA_JOB_MEMCPY;
	job.base.ctx = ctx;
	job.src_buff = src;
	job.dst_buff = dst;
	EXPECT(doca_workq_submit(workq, &job.base), DOCA_ERROR_INVALID_VALUE, "num_bytes_to_copy is 0");
	job.num_bytes_to_copy = 8192;
	EXPECT(doca_workq_submit(workq, &job.base), DOCA_ERROR_INVALID_VALUE,
	       "doca_workq_submit: dma memcpy job: "
	       "num_bytes_to_copy 8192 is more than the source");
	OK(doca_buf_inventory_buf_by_addr(inv, mmap, mem, 8192, &big));
	job.src_buff = big;
	EXPECT(doca_workq_submit(workq, &job.base), DOCA_ERROR_INVALID_VALUE, "than the destination");
	OK(doca_buf_refcount_rm(big, NULL));
	job.src_buff = src;
	job.src_buff = NULL;
	job.num_bytes_to_copy = 16;
	EXPECT(doca_workq_submit(workq, &job.base), DOCA_ERROR_INVALID_VALUE, "NULL");
	job.src_buff = src;
	job.base.type = DOCA_DMA_JOB_MEMCPY + 1;
	EXPECT(doca_workq_submit(workq, &job.base), DOCA_ERROR_INVALID_VALUE, NULL);
	OK(doca_buf_refcount_rm(src, NULL));
	OK(doca_buf_refcount_rm(dst, NULL));

	OK(doca_ctx_workq_rm(ctx, workq));
	OK(doca_ctx_stop(ctx));
	OK(doca_ctx_dev_rm(ctx, dpu));
	OK(doca_mmap_dev_rm(mmap, dpu));
	OK(doca_workq_destroy(workq));
	OK(doca_dma_destroy(dma));
	OK(doca_buf_inventory_destroy(inv));
	OK(doca_mmap_destroy(mmap));
	free(mem);
}

/* ---- devices by property, remote functions ---- */

static void device_rules(struct doca_dev *dpu)
{
	struct doca_devinfo *info = doca_dev_as_devinfo(dpu);
	struct doca_devinfo_remote **remotes;
	struct doca_dev_remote *rdev;
	struct doca_pci_bdf bdf, want;
	uint8_t vuid[128], big[300];
	char iface[256];
	uint32_t n = 0;
	int type = -1;
	struct doca_dev *none = NULL;

	OK(doca_devinfo_property_get(info, DOCA_DEVINFO_PROPERTY_PCI_ADDR, (uint8_t *)&bdf, sizeof(bdf)));
	must(bdf.bus == 0x03 && bdf.device == 0 && bdf.function == 0, "the DPU device is at 03:00.0");
	/* Fields by name; raw is the usual packing, bus:8 device:5 function:3. */
	OK(parse_pci_addr("b1:1f.7", &want));
	must(want.raw == (0xb1 << 8 | 0x1f << 3 | 7), "raw packs bus, device and function");
	EXPECT(parse_pci_addr("b1:20.0", &want), DOCA_ERROR_INVALID_VALUE, NULL);
	memset(big, 0xff, sizeof(big));
	OK(doca_devinfo_property_get(info, DOCA_DEVINFO_PROPERTY_PCI_ADDR, big, 8));
	must(memcmp(big, &bdf, sizeof(bdf)) == 0 && big[2] == 0 && big[7] == 0 && big[8] == 0xff,
	     "a larger buffer is zero-filled to its size");
	EXPECT(doca_devinfo_property_get(info, DOCA_DEVINFO_PROPERTY_PCI_ADDR, big, 1), DOCA_ERROR_INVALID_VALUE,
	       "sizeof(struct doca_pci_bdf)");
	EXPECT(doca_devinfo_property_get(info, DOCA_DEVINFO_PROPERTY_VUID, vuid, sizeof(vuid)),
	       DOCA_ERROR_NOT_SUPPORTED, "VUID");
	EXPECT(doca_devinfo_property_get(info, (enum doca_devinfo_property)42, big, sizeof(big)),
	       DOCA_ERROR_INVALID_VALUE, "doca_devinfo_property");
	OK(doca_devinfo_property_get(info, DOCA_DEVINFO_PROPERTY_IFACE_NAME, (uint8_t *)iface, sizeof(iface)));
	must(iface[0] != '\0', "the device has an interface name");
	EXPECT(doca_dev_open(NULL, &none), DOCA_ERROR_INVALID_VALUE, NULL);

	/* The DPU side's remote functions: the host PF among them. */
	OK(doca_devinfo_remote_list_create(dpu, DOCA_DEV_REMOTE_FILTER_NET, &remotes, &n));
	must(n >= 1, "the DPU device has a remote function");
	OK(parse_pci_addr(LEGACY14_HOST_PCI, &want));
	for (uint32_t i = 0; i < n; i++) {
		OK(doca_devinfo_remote_property_get(remotes[i], DOCA_DEVINFO_REMOTE_PROPERTY_PCI_ADDR, (uint8_t *)&bdf,
						    sizeof(bdf)));
		if (bdf.raw != want.raw)
			continue;
		OK(doca_devinfo_remote_property_get(remotes[i], DOCA_DEVINFO_REMOTE_PROPERTY_VUID, vuid, sizeof(vuid)));
		must(vuid[0] != 0 && vuid[sizeof(vuid) - 1] == 0, "the remote function has a NUL-padded VUID");
		OK(doca_devinfo_remote_property_get(remotes[i], DOCA_DEVINFO_REMOTE_PROPERTY_PCI_FUNC_TYPE,
						    (uint8_t *)&type, sizeof(type)));
		must(type == DOCA_PCI_FUNC_PF, "the host function is a PF");
		OK(doca_dev_remote_open(remotes[i], &rdev));
		OK(doca_dev_remote_close(rdev));
	}
	must(type == DOCA_PCI_FUNC_PF, "the host PF is among the remote functions");
	EXPECT(doca_devinfo_remote_list_create(dpu, (enum doca_dev_remote_filter)(1 << 9), &remotes, &n),
	       DOCA_ERROR_INVALID_VALUE, "filter");
	OK(doca_devinfo_remote_list_destroy(remotes));
}

int main(void)
{
	struct doca_dev *dpu = open_dev(LEGACY14_DPU_PCI);
	struct doca_dev *host = open_dev(LEGACY14_HOST_PCI);

	must(strcmp(doca_version_runtime(), DOCA_VER_STRING) == 0, "runtime and header versions agree");
	must(strcmp(doca_get_error_name(DOCA_ERROR_AGAIN), "DOCA_ERROR_AGAIN") == 0, "doca_get_error_name");
	mmap_rules(dpu, host);
	wrong_generation(dpu);
	export_rules(dpu, host);
	ctx_rules(dpu);
	device_rules(dpu);
	OK(doca_dev_close(host));
	OK(doca_dev_close(dpu));
	if (failures != 0) {
		printf("%d failure(s)\n", failures);
		return 1;
	}
	printf("DOCA 1.4 misuse: every rule answered as documented\n");
	return 0;
}
