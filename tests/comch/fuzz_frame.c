/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_frame.c - libFuzzer target for the control-socket frame parser
 * (src/link/frame.c), the one parser of bytes a Comch peer sends us.
 *
 *   meson setup build-fuzz -Dfuzz=true  (with CC=clang)
 *   build-fuzz/tests/comch/fuzz_comch_frame -max_total_time=60
 *
 * Built with -DFERRY_FUZZ_STANDALONE it gets a small main that replays seed
 * frames and their every truncation, so the target stays compiled and exercised
 * in ordinary builds (test 'comch_fuzz_seeds').
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comch/frame_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse with a few message-size limits; whatever is accepted must be self-consistent. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t limits[] = {0, 64, 4080, UINT32_MAX};
	uint8_t *copy = malloc(size == 0 ? 1 : size); /* exact size: ASan sees any overread */

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		struct ferry_frame f;
		const char *why = NULL;

		if (ferry_frame_parse(copy, size, limits[i], &f, &why) != DOCA_SUCCESS) {
			if (why == NULL)
				abort(); /* every refusal names its rule */
			continue;
		}
		if ((size_t)f.payload_len + FERRY_FRAME_HDR_LEN != size || f.payload != copy + FERRY_FRAME_HDR_LEN)
			abort();
		if (f.type == FERRY_FRAME_HELLO &&
		    (memchr(f.u.hello.name, '\0', f.u.hello.name_len) != NULL ||
		     (size_t)f.u.hello.dev_len + f.u.hello.name_len + FERRY_FRAME_HELLO_FIXED != f.payload_len))
			abort();
		if (f.type == FERRY_FRAME_MSG && f.payload_len > limits[i])
			abort();
		if (f.type == FERRY_FRAME_CONSUMER_UP &&
		    (f.u.up.consumer_id == 0 || f.u.up.imm_data_len > FERRY_FRAME_IMM_MAX || f.u.up.desc_len == 0 ||
		     f.u.up.desc_len > FERRY_FRAME_DESC_MAX || f.u.up.ring_desc_len == 0 ||
		     f.u.up.ring_desc_len > FERRY_FRAME_DESC_MAX || (f.u.up.ring_cap & (f.u.up.ring_cap - 1)) != 0 ||
		     f.u.up.desc_len + f.u.up.ring_desc_len + FERRY_FRAME_UP_FIXED != f.payload_len))
			abort();
		if (f.type == FERRY_FRAME_DONE_RING &&
		    (f.u.done_ring.consumer_id == 0 || (f.u.done_ring.ring_cap & (f.u.done_ring.ring_cap - 1)) != 0 ||
		     f.u.done_ring.desc_len == 0 ||
		     f.u.done_ring.desc_len + FERRY_FRAME_DONE_RING_FIXED != f.payload_len))
			abort();
	}
	free(copy);
	return 0;
}

#ifdef FERRY_FUZZ_STANDALONE
int main(void)
{
	static const uint8_t desc[40] = {1, 2, 3};
	const struct ferry_frame_done_ring done = {.consumer_id = 3, .ring_cap = 64, .desc = desc, .desc_len = 40};
	const struct ferry_frame_consumer_up up = {.consumer_id = 3,
						   .imm_data_len = 16,
						   .ring_cap = 64,
						   .desc = desc,
						   .desc_len = 40,
						   .ring_desc = desc,
						   .ring_desc_len = 30};
	uint8_t seeds[7][FERRY_FRAME_REFUSE_MAX];
	size_t lens[7];

	lens[0] = ferry_frame_build_hello(seeds[0], 4080, 64, 0, "b1:00.0", "server");
	lens[1] = ferry_frame_build_welcome(seeds[1], 4080, 64, 1);
	lens[2] = ferry_frame_build_refuse(seeds[2], DOCA_ERROR_NOT_FOUND, "no such server");
	ferry_frame_put_header(seeds[3], FERRY_FRAME_MSG, 8);
	memset(seeds[3] + FERRY_FRAME_HDR_LEN, 'm', 8);
	lens[3] = FERRY_FRAME_HDR_LEN + 8;
	lens[4] = ferry_frame_build_consumer_up(seeds[4], &up);
	lens[5] = ferry_frame_build_consumer_down(seeds[5], 3);
	lens[6] = ferry_frame_build_done_ring(seeds[6], &done);
	for (int s = 0; s < 7; s++)
		for (size_t cut = 0; cut <= lens[s]; cut++)
			LLVMFuzzerTestOneInput(seeds[s], cut);
	return 0;
}
#endif
