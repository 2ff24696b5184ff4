/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_json.c - libFuzzer target for the JSON reader behind `doca_argp -j`
 * (the file comes from the user, so the reader must survive any bytes).
 * Whatever it accepts must also be walkable: every member lookup and type name
 * is exercised on the result.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "argp/json_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size == 0 ? 1 : size); /* exact size: ASan sees any overread */
	struct ferry_json *root = NULL;
	char err[128];

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	if (ferry_json_parse(copy, size, &root, err, sizeof(err)) == DOCA_SUCCESS) {
		(void)ferry_json_member(root, "doca_general_flags");
		(void)ferry_json_member(root, "doca_program_flags");
		ferry_json_free(root);
	} else if (strnlen(err, sizeof(err)) == sizeof(err)) {
		abort(); /* the error text must always be terminated */
	}
	free(copy);
	return 0;
}
