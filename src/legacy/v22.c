/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * v22.c - the calls of DOCA 1.5 and 2.x whose names DOCA 3 kept with other
 * arguments; the 2.2 headers rename them to these ferry_v22_* symbols.
 */
#include <doca_argp.h>
#include <doca_buf_inventory.h>
#include <doca_mmap.h>

#include "common/ferry_log.h"

#include "legacy/legacy_api.h"

FERRY_LOG_MODULE("legacy");

/* The 2.x argp types: JSON_OBJ sits where DOCA 3 later put DEVICE. */
#define V22_ARGP_TYPE_JSON_OBJ 4
/* DOCA_BUF_EXTENSION_LINKED_LIST: every Ferry buf can be chained. */
#define V22_BUF_EXTENSIONS     1u

doca_error_t ferry_v22_mmap_create(const union doca_data *user_data, struct doca_mmap **mmap)
{
	doca_error_t err = doca_mmap_create(mmap);

	if (err == DOCA_SUCCESS && user_data != NULL)
		(void)doca_mmap_set_user_data(*mmap, *user_data); /* cannot fail on a new map */
	return err;
}

doca_error_t ferry_v22_buf_inventory_create(const union doca_data *user_data, size_t num_elements, uint32_t extensions,
					    struct doca_buf_inventory **inventory)
{
	doca_error_t err;

	if ((extensions & ~V22_BUF_EXTENSIONS) != 0)
		return FERRY_RULE_IN("doca_buf_inventory_create", DOCA_ERROR_INVALID_VALUE,
				     "extensions %#x: only DOCA_BUF_EXTENSION_NONE and _LINKED_LIST exist", extensions);
	err = doca_buf_inventory_create(num_elements, inventory);
	if (err == DOCA_SUCCESS && user_data != NULL)
		(void)doca_buf_inventory_set_user_data(*inventory, *user_data); /* cannot fail on a new one */
	return err;
}

void ferry_v22_argp_param_set_type(struct doca_argp_param *param, int type)
{
	if (type == V22_ARGP_TYPE_JSON_OBJ) {
		FERRY_ERR("doca_argp_param_set_type: DOCA_ARGP_TYPE_JSON_OBJ flags are not offered by Ferry; the flag "
			  "keeps no type and its registration fails");
		doca_argp_param_set_type(param, DOCA_ARGP_TYPE_UNKNOWN);
		return;
	}
	/* UNKNOWN, STRING, INT and BOOLEAN have the same values in both generations. */
	doca_argp_param_set_type(param, (enum doca_argp_type)type);
}

const char *ferry_v22_version_runtime(void)
{
	return "2.2.0080";
}
