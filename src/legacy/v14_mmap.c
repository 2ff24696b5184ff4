/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * v14_mmap.c - the mmap of DOCA 1.3/1.4: several chunks, populated one by one
 * after start, exported as JSON text.
 *
 * A 1.x map is a list of chunks over Ferry's core maps: each chunk is one
 * DOCA 3 doca_mmap of exactly its range, made at doca_mmap_populate with the
 * devices added so far and started at once. So every check of a range, every
 * buf and every copy goes through the core, and the JSON export wraps the
 * core's PCI export descriptor (v14_export.h). The 1.x map only keeps what
 * the core has no notion of: the order of that generation (start, then
 * devices, then chunks), its limits, and which chunk holds a range.
 *
 * The map's chunks are started exactly while the map is: doca_mmap_stop stops
 * them (revoking an export), doca_mmap_start starts them again. A device
 * added or removed after chunks exist is added to or removed from each
 * chunk's map (stopped and restarted around it, so only while no buf is out).
 *
 * The first word of the map is FERRY_MMAP_MAGIC_V14 where the core's maps
 * carry FERRY_MMAP_MAGIC: a map of one generation handed to a call of the
 * other is refused with a line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_buf_inventory.h>
#include <doca_dev.h>
#include <doca_mmap.h>

#include "common/ferry_alloc.h"
#include "common/ferry_log.h"
#include "core/ferry_dev.h"
#include "core/mem_priv.h"
#include "legacy/legacy_api.h"
#include "legacy/v14_export.h"

FERRY_LOG_MODULE("legacy");

#define V14_DEFAULT_MAX_CHUNKS  16u
#define V14_DEFAULT_MAX_DEVICES 16u
#define V14_MIN_PAGE_SIZE       4096u
#define V14_NAME_LEN            32u

/* enum doca_mmap_property of the 1.4 headers. */
#define V14_MMAP_MAX_NUM_CHUNKS  0
#define V14_MMAP_MAX_NUM_DEVICES 1

/* The chunks' core maps: local access, and the other side of PCI may read and write (1.x had no permissions). */
#define V14_CHUNK_ACCESS ((uint32_t)(DOCA_ACCESS_FLAG_LOCAL_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_WRITE))

struct v14_chunk {
	struct doca_mmap *map; /* a core map of exactly this range, started while the 1.x map is */
	void *addr;
	size_t len;
	doca_mmap_memrange_free_cb_t *free_cb;
	void *opaque;
};

/* struct doca_mmap of the 1.4 headers. */
struct ferry_v14_mmap {
	uint32_t magic; /* FERRY_MMAP_MAGIC_V14 while the map lives; first, as the core's magic is */
	char name[V14_NAME_LEN];
	bool started;
	bool ever_started; /* the limits are frozen */
	bool exported;
	bool from_export;
	uint32_t max_chunks;
	uint32_t max_devs;
	uint32_t num_devs;
	struct doca_dev **devs; /* each with a ferry_dev_get reference */
	uint32_t num_chunks;
	struct v14_chunk *chunks;
};

static uint32_t first_word(const void *obj)
{
	uint32_t magic;

	memcpy(&magic, obj, sizeof(magic));
	return magic;
}

/* The one map check of every call here: NULL, a map of DOCA 1.5 and later, garbage. */
static doca_error_t check_map(const struct ferry_v14_mmap *m, const char *call)
{
	uint32_t magic;

	if (m == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "mmap is NULL");
	magic = first_word(m);
	if (magic == FERRY_MMAP_MAGIC_V14)
		return DOCA_SUCCESS;
	if (magic == FERRY_MMAP_MAGIC)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "mmap %p was made by the doca_mmap_create of DOCA 1.5 or later (2.x, 3.x "
				     "headers); this call of DOCA 1.3/1.4 takes only maps of doca_mmap_create(name)",
				     (const void *)m);
	return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%p is not a live mmap", (const void *)m);
}

/* Lines name the DOCA call the program made, not the symbol it reached. */
#define CHECK_MAP(m, call)                                        \
	do {                                                      \
		doca_error_t check_err_ = check_map((m), (call)); \
		if (check_err_ != DOCA_SUCCESS)                   \
			return check_err_;                        \
	} while (0)

/* dev_add, dev_rm, populate and export: a started map of this process's memory, not exported. */
static doca_error_t check_changeable(const struct ferry_v14_mmap *m, const char *call)
{
	if (m->from_export)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap '%s' %p was created from an export; it cannot be changed", m->name,
				     (const void *)m);
	if (m->exported)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap '%s' %p is exported; it cannot be changed any more", m->name,
				     (const void *)m);
	if (!m->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap '%s' %p is not started; DOCA 1.x starts a map first, then adds devices "
				     "and populates it",
				     m->name, (const void *)m);
	return DOCA_SUCCESS;
}

static uint32_t bufs_out(const struct ferry_v14_mmap *m)
{
	uint32_t total = 0;

	for (uint32_t i = 0; i < m->num_chunks; i++) {
		uint32_t n = 0;

		(void)doca_mmap_get_num_bufs(m->chunks[i].map, &n);
		total += n;
	}
	return total;
}

static doca_error_t check_no_bufs(const struct ferry_v14_mmap *m, const char *call, const char *what)
{
	uint32_t n = bufs_out(m);

	if (n != 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap '%s' %p still has %u buf(s) pointing into it; release them "
				     "(doca_buf_refcount_rm) before %s",
				     m->name, (const void *)m, n, what);
	return DOCA_SUCCESS;
}

static int find_dev(const struct ferry_v14_mmap *m, const struct doca_dev *dev)
{
	for (uint32_t i = 0; i < m->num_devs; i++)
		if (m->devs[i] == dev)
			return (int)i;
	return -1;
}

static void free_map(struct ferry_v14_mmap *m)
{
	for (uint32_t i = 0; i < m->num_devs; i++)
		ferry_dev_put(m->devs[i]);
	free(m->devs);
	free(m->chunks);
	m->magic = 0; /* a second destroy of the same pointer is then likely caught */
	free(m);
}

static doca_error_t new_map(const char *name, const char *call, struct ferry_v14_mmap **out)
{
	struct ferry_v14_mmap *m = ferry_calloc(1, sizeof(*m));

	if (m == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory for mmap '%s'",
				     name != NULL ? name : "");
	m->magic = FERRY_MMAP_MAGIC_V14;
	/* A label only: 1.x programs give two maps the same name. */
	if (name != NULL)
		snprintf(m->name, sizeof(m->name), "%s", name);
	m->max_chunks = V14_DEFAULT_MAX_CHUNKS;
	m->max_devs = V14_DEFAULT_MAX_DEVICES;
	*out = m;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v14_mmap_create(const char *name, struct ferry_v14_mmap **mmap)
{
	if (mmap == NULL)
		return FERRY_RULE_IN("doca_mmap_create", DOCA_ERROR_INVALID_VALUE, "mmap is NULL");
	return new_map(name, "doca_mmap_create", mmap);
}

doca_error_t ferry_v14_mmap_destroy(struct ferry_v14_mmap *mmap)
{
	const char *call = "doca_mmap_destroy";
	doca_error_t err = check_map(mmap, call);

	if (err == DOCA_SUCCESS)
		err = check_no_bufs(mmap, call, "destroying it");
	if (err != DOCA_SUCCESS)
		return err;
	/* Each chunk's memory goes back to its owner once its core map (and any export of it) is gone. */
	for (uint32_t i = 0; i < mmap->num_chunks; i++) {
		struct v14_chunk *c = &mmap->chunks[i];

		(void)doca_mmap_destroy(c->map);
		if (c->free_cb != NULL)
			c->free_cb(c->addr, c->len, c->opaque);
	}
	free_map(mmap);
	return DOCA_SUCCESS;
}

/* Start or stop every chunk's core map; on a failure, undo the ones done. */
static doca_error_t chunks_set_started(struct ferry_v14_mmap *m, bool start)
{
	for (uint32_t i = 0; i < m->num_chunks; i++) {
		doca_error_t err = start ? doca_mmap_start(m->chunks[i].map) : doca_mmap_stop(m->chunks[i].map);

		if (err != DOCA_SUCCESS) {
			while (i-- > 0)
				(void)(start ? doca_mmap_stop(m->chunks[i].map) : doca_mmap_start(m->chunks[i].map));
			return err;
		}
	}
	return DOCA_SUCCESS;
}

doca_error_t ferry_v14_mmap_start(struct ferry_v14_mmap *mmap)
{
	const char *call = "doca_mmap_start";
	doca_error_t err;

	CHECK_MAP(mmap, call);
	if (mmap->from_export)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap '%s' %p was created from an export; it is usable as is", mmap->name,
				     (void *)mmap);
	if (mmap->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "mmap '%s' %p is already started", mmap->name,
				     (void *)mmap);
	err = chunks_set_started(mmap, true);
	if (err != DOCA_SUCCESS)
		return err;
	mmap->started = true;
	mmap->ever_started = true;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v14_mmap_stop(struct ferry_v14_mmap *mmap)
{
	const char *call = "doca_mmap_stop";
	doca_error_t err;

	CHECK_MAP(mmap, call);
	if (mmap->from_export)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_PERMITTED,
				     "mmap '%s' %p was created from an export; destroy it instead", mmap->name,
				     (void *)mmap);
	if (!mmap->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "mmap '%s' %p is not started", mmap->name,
				     (void *)mmap);
	err = check_no_bufs(mmap, call, "stopping it");
	if (err == DOCA_SUCCESS)
		err = chunks_set_started(mmap, false);
	if (err != DOCA_SUCCESS)
		return err;
	mmap->started = false;
	return DOCA_SUCCESS;
}

/* ---- limits ---- */

doca_error_t doca_mmap_property_set(struct ferry_v14_mmap *mmap, int property, const uint8_t *value, size_t size)
{
	uint32_t v;

	CHECK_MAP(mmap, __func__);
	LEGACY_ARG_NOT_NULL(value);
	if (property != V14_MMAP_MAX_NUM_CHUNKS && property != V14_MMAP_MAX_NUM_DEVICES)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap '%s' %p: %d is not a doca_mmap_property", mmap->name,
				  (void *)mmap, property);
	if (size != sizeof(v))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "mmap '%s' %p: the value is a uint32_t (size 4), not %zu bytes", mmap->name,
				  (void *)mmap, size);
	if (mmap->ever_started || mmap->from_export)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
				  "mmap '%s' %p was started; its limits are set before the first doca_mmap_start",
				  mmap->name, (void *)mmap);
	memcpy(&v, value, sizeof(v));
	if (v == 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap '%s' %p: a limit of 0", mmap->name, (void *)mmap);
	if (property == V14_MMAP_MAX_NUM_CHUNKS)
		mmap->max_chunks = v;
	else
		mmap->max_devs = v;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_property_get(struct ferry_v14_mmap *mmap, int property, uint8_t *value, size_t size)
{
	uint32_t v;

	CHECK_MAP(mmap, __func__);
	LEGACY_ARG_NOT_NULL(value);
	if (property != V14_MMAP_MAX_NUM_CHUNKS && property != V14_MMAP_MAX_NUM_DEVICES)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap '%s' %p: %d is not a doca_mmap_property", mmap->name,
				  (void *)mmap, property);
	if (size < sizeof(v))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "mmap '%s' %p: the value is a uint32_t (size 4), not %zu bytes", mmap->name,
				  (void *)mmap, size);
	v = property == V14_MMAP_MAX_NUM_CHUNKS ? mmap->max_chunks : mmap->max_devs;
	memcpy(value, &v, sizeof(v));
	return DOCA_SUCCESS;
}

/* ---- devices ---- */

/* Stop a chunk's core map, change its devices, start it again (no buf is out). */
static doca_error_t chunk_change_dev(struct v14_chunk *c, struct doca_dev *dev, bool add)
{
	doca_error_t err = doca_mmap_stop(c->map);

	if (err != DOCA_SUCCESS)
		return err;
	err = add ? doca_mmap_add_dev(c->map, dev) : doca_mmap_rm_dev(c->map, dev);
	doca_error_t restart = doca_mmap_start(c->map);
	return err != DOCA_SUCCESS ? err : restart;
}

doca_error_t ferry_v14_mmap_dev_add(struct ferry_v14_mmap *mmap, struct doca_dev *dev)
{
	const char *call = "doca_mmap_dev_add";
	struct doca_dev **devs;
	doca_error_t err;

	CHECK_MAP(mmap, call);
	err = check_changeable(mmap, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device (mmap '%s')",
				     (void *)dev, mmap->name);
	if (find_dev(mmap, dev) >= 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_IN_USE, "device %s is already in mmap '%s' %p",
				     ferry_dev_name(dev), mmap->name, (void *)mmap);
	if (mmap->num_devs >= mmap->max_devs)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY,
				     "mmap '%s' %p already holds its maximum of %u device(s) "
				     "(DOCA_MMAP_MAX_NUM_DEVICES)",
				     mmap->name, (void *)mmap, mmap->max_devs);
	err = check_no_bufs(mmap, call, "adding a device");
	if (err != DOCA_SUCCESS)
		return err;
	devs = ferry_realloc(mmap->devs, (mmap->num_devs + 1) * sizeof(*devs));
	if (devs == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory (mmap '%s')", mmap->name);
	mmap->devs = devs;
	for (uint32_t i = 0; i < mmap->num_chunks; i++) {
		err = chunk_change_dev(&mmap->chunks[i], dev, true);
		if (err != DOCA_SUCCESS) {
			while (i-- > 0)
				(void)chunk_change_dev(&mmap->chunks[i], dev, false);
			return err;
		}
	}
	ferry_dev_get(dev);
	mmap->devs[mmap->num_devs++] = dev;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v14_mmap_dev_rm(struct ferry_v14_mmap *mmap, struct doca_dev *dev)
{
	const char *call = "doca_mmap_dev_rm";
	doca_error_t err;
	int idx;

	CHECK_MAP(mmap, call);
	err = check_changeable(mmap, call);
	if (err != DOCA_SUCCESS)
		return err;
	if (dev == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "dev is NULL");
	idx = find_dev(mmap, dev);
	if (idx < 0)
		return FERRY_RULE_IN(call, DOCA_ERROR_NOT_FOUND, "device %p was never added to mmap '%s' %p",
				     (void *)dev, mmap->name, (void *)mmap);
	err = check_no_bufs(mmap, call, "removing a device");
	if (err != DOCA_SUCCESS)
		return err;
	for (uint32_t i = 0; i < mmap->num_chunks; i++) {
		err = chunk_change_dev(&mmap->chunks[i], dev, false);
		if (err != DOCA_SUCCESS)
			return err;
	}
	mmap->devs[idx] = mmap->devs[--mmap->num_devs];
	ferry_dev_put(dev);
	return DOCA_SUCCESS;
}

/* ---- chunks ---- */

static bool overlaps(const struct v14_chunk *c, uintptr_t start, size_t len)
{
	uintptr_t c_start = (uintptr_t)c->addr;

	/* Neither range wraps (checked when each was populated). */
	return start < c_start + c->len && c_start < start + len;
}

/* A started core map of exactly [addr, addr + len) with the 1.x map's devices. */
static doca_error_t chunk_map_create(struct ferry_v14_mmap *m, void *addr, size_t len, struct doca_mmap **out)
{
	struct doca_mmap *map;
	doca_error_t err = doca_mmap_create(&map);

	if (err != DOCA_SUCCESS)
		return err;
	err = doca_mmap_set_max_num_devices(map, m->max_devs);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_memrange(map, addr, len);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_set_permissions(map, V14_CHUNK_ACCESS);
	for (uint32_t i = 0; i < m->num_devs && err == DOCA_SUCCESS; i++)
		err = doca_mmap_add_dev(map, m->devs[i]);
	if (err == DOCA_SUCCESS)
		err = doca_mmap_start(map);
	if (err != DOCA_SUCCESS) {
		(void)doca_mmap_destroy(map);
		return err;
	}
	*out = map;
	return DOCA_SUCCESS;
}

doca_error_t doca_mmap_populate(struct ferry_v14_mmap *mmap, void *addr, size_t len, size_t pg_sz,
				doca_mmap_memrange_free_cb_t *free_cb, void *opaque)
{
	struct v14_chunk *chunks;
	struct doca_mmap *map;
	doca_error_t err;

	CHECK_MAP(mmap, __func__);
	err = check_changeable(mmap, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (addr == NULL || len == 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "mmap '%s' %p: chunk %p + %zu is empty", mmap->name,
				  (void *)mmap, addr, len);
	if ((uintptr_t)addr + len < (uintptr_t)addr)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "mmap '%s' %p: chunk %p + %zu wraps around the address space", mmap->name,
				  (void *)mmap, addr, len);
	if (pg_sz < V14_MIN_PAGE_SIZE || (pg_sz & (pg_sz - 1)) != 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "mmap '%s' %p: pg_sz %zu is not a power of two of at least 4096", mmap->name,
				  (void *)mmap, pg_sz);
	if (mmap->num_chunks >= mmap->max_chunks)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY,
				  "mmap '%s' %p already holds its maximum of %u chunk(s) (DOCA_MMAP_MAX_NUM_CHUNKS)",
				  mmap->name, (void *)mmap, mmap->max_chunks);
	for (uint32_t i = 0; i < mmap->num_chunks; i++)
		if (overlaps(&mmap->chunks[i], (uintptr_t)addr, len))
			return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED,
					  "mmap '%s' %p: chunk %p + %zu overlaps chunk %p + %zu", mmap->name,
					  (void *)mmap, addr, len, mmap->chunks[i].addr, mmap->chunks[i].len);
	chunks = ferry_realloc(mmap->chunks, (mmap->num_chunks + 1) * sizeof(*chunks));
	if (chunks == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "out of memory (mmap '%s')", mmap->name);
	mmap->chunks = chunks;
	err = chunk_map_create(mmap, addr, len, &map);
	if (err != DOCA_SUCCESS)
		return err;
	mmap->chunks[mmap->num_chunks++] = (struct v14_chunk){map, addr, len, free_cb, opaque};
	return DOCA_SUCCESS;
}

/* ---- export and import ---- */

doca_error_t doca_mmap_export(struct ferry_v14_mmap *mmap, const struct doca_dev *dev, uint8_t **export_desc,
			      size_t *export_desc_len)
{
	char text[V14_EXPORT_MAX_LEN];
	const void *blob;
	size_t blob_len, n;
	uint8_t *out;
	doca_error_t err;

	CHECK_MAP(mmap, __func__);
	LEGACY_ARG_NOT_NULL(dev);
	LEGACY_ARG_NOT_NULL(export_desc);
	LEGACY_ARG_NOT_NULL(export_desc_len);
	err = check_changeable(mmap, __func__);
	if (err != DOCA_SUCCESS)
		return err;
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device (mmap '%s')",
				  (const void *)dev, mmap->name);
	if (find_dev(mmap, dev) < 0)
		return FERRY_RULE(DOCA_ERROR_INVALID_VALUE,
				  "device %s was not added to mmap '%s' %p (doca_mmap_dev_add)", ferry_dev_name(dev),
				  mmap->name, (void *)mmap);
	if (mmap->num_chunks == 0)
		return FERRY_RULE(DOCA_ERROR_NOT_PERMITTED, "mmap '%s' %p has no chunk; doca_mmap_populate one first",
				  mmap->name, (void *)mmap);
	if (mmap->num_chunks > 1)
		return FERRY_RULE(DOCA_ERROR_NOT_SUPPORTED,
				  "mmap '%s' %p has %u chunks; Ferry exports maps of one chunk (a descriptor names "
				  "one addr and len)",
				  mmap->name, (void *)mmap, mmap->num_chunks);
	err = doca_mmap_export_pci(mmap->chunks[0].map, dev, &blob, &blob_len);
	if (err != DOCA_SUCCESS)
		return err;
	n = v14_export_encode((uint64_t)(uintptr_t)mmap->chunks[0].addr, mmap->chunks[0].len, blob, blob_len, text,
			      sizeof(text));
	if (n == 0)
		return FERRY_RULE(DOCA_ERROR_UNEXPECTED, "mmap '%s' %p: the descriptor does not fit 1024 bytes of JSON",
				  mmap->name, (void *)mmap);
	out = ferry_malloc(n); /* the caller frees it with free() */
	if (out == NULL)
		return FERRY_RULE(DOCA_ERROR_NO_MEMORY, "out of memory for the descriptor of mmap '%s'", mmap->name);
	memcpy(out, text, n);
	mmap->exported = true;
	*export_desc = out;
	*export_desc_len = n;
	return DOCA_SUCCESS;
}

doca_error_t ferry_v14_mmap_create_from_export(const char *name, const uint8_t *export_desc, size_t export_desc_len,
					       struct doca_dev *dev, struct ferry_v14_mmap **mmap)
{
	const char *call = "doca_mmap_create_from_export";
	uint8_t blob[V14_EXPORT_MAX_BLOB];
	size_t blob_len = 0, range_len = 0;
	uint64_t addr = 0, len = 0;
	void *range_addr = NULL;
	struct ferry_v14_mmap *m = NULL;
	struct doca_mmap *map;
	const char *why = NULL;
	doca_error_t err;

	if (export_desc == NULL || dev == NULL || mmap == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL",
				     export_desc == NULL ? "export_desc" : (dev == NULL ? "dev" : "mmap"));
	if (!ferry_dev_is_open(dev))
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "dev %p is not an open device", (void *)dev);
	if (v14_export_decode(export_desc, export_desc_len, &addr, &len, blob, &blob_len, &why) != DOCA_SUCCESS)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s (%zu bytes given)", why, export_desc_len);
	err = doca_mmap_create_from_export(NULL, blob, blob_len, dev, &map);
	if (err != DOCA_SUCCESS)
		return err;
	/* The text's addr and len are what the program reads; they must be the export's own range. */
	(void)doca_mmap_get_memrange(map, &range_addr, &range_len);
	if ((uint64_t)(uintptr_t)range_addr != addr || (uint64_t)range_len != len) {
		(void)doca_mmap_destroy(map);
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
				     "the descriptor says addr %llu len %llu, but its export covers %p + %zu",
				     (unsigned long long)addr, (unsigned long long)len, range_addr, range_len);
	}
	err = new_map(name, call, &m);
	if (err == DOCA_SUCCESS) {
		m->chunks = ferry_calloc(1, sizeof(*m->chunks));
		m->devs = ferry_calloc(1, sizeof(*m->devs));
		if (m->chunks == NULL || m->devs == NULL) {
			free_map(m);
			err = FERRY_RULE_IN(call, DOCA_ERROR_NO_MEMORY, "out of memory for an imported mmap");
		}
	}
	if (err != DOCA_SUCCESS) {
		(void)doca_mmap_destroy(map);
		return err;
	}
	m->chunks[0] = (struct v14_chunk){map, range_addr, range_len, NULL, NULL};
	m->num_chunks = 1;
	m->max_chunks = 1;
	ferry_dev_get(dev);
	m->devs[0] = dev;
	m->num_devs = 1;
	m->started = true;
	m->ever_started = true;
	m->from_export = true;
	*mmap = m;
	return DOCA_SUCCESS;
}

/* ---- bufs ---- */

doca_error_t ferry_v14_buf_inventory_buf_by_addr(struct doca_buf_inventory *inventory, struct ferry_v14_mmap *mmap,
						 void *addr, size_t len, struct doca_buf **buf)
{
	const char *call = "doca_buf_inventory_buf_by_addr";
	doca_error_t err = check_map(mmap, call);

	if (err != DOCA_SUCCESS)
		return err;
	if (inventory == NULL || buf == NULL)
		return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE, "%s is NULL",
				     inventory == NULL ? "inventory" : "buf");
	if (!mmap->started)
		return FERRY_RULE_IN(call, DOCA_ERROR_BAD_STATE, "mmap '%s' %p is not started", mmap->name,
				     (void *)mmap);
	for (uint32_t i = 0; i < mmap->num_chunks; i++) {
		struct v14_chunk *c = &mmap->chunks[i];
		uintptr_t start = (uintptr_t)addr, c_start = (uintptr_t)c->addr;

		if (start >= c_start && start - c_start <= c->len && len <= c->len - (start - c_start))
			return doca_buf_inventory_buf_get_by_args(inventory, c->map, addr, len, addr, 0, buf);
	}
	return FERRY_RULE_IN(call, DOCA_ERROR_INVALID_VALUE,
			     "range %p + %zu lies in no chunk of mmap '%s' %p (%u chunk(s))", addr, len, mmap->name,
			     (void *)mmap, mmap->num_chunks);
}
