/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_file_copy_msg.c - libFuzzer target for the file copy example's wire
 * format (examples/file_copy/file_copy_msg.c): the request the DPU side takes
 * from an untrusted host, and the reply the host takes from the DPU side.
 *
 *   meson setup build-fuzz -Dfuzz=true  (with CC=clang)
 *   build-fuzz/tests/fuzz_file_copy_msg -max_total_time=60
 *
 * Whatever a decoder accepts must satisfy every bound the DPU side relies on
 * and encode back to the same bytes; whatever it refuses must say why. Built
 * with -DFERRY_FUZZ_STANDALONE it gets a main that replays valid messages and
 * their every truncation (test 'file_copy_msg_seeds', in every build).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../examples/file_copy/file_copy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_request(const uint8_t *msg, size_t size)
{
	struct fc_request req;
	char why[160] = "";
	uint8_t again[FC_MAX_MSG_LEN];

	if (fc_request_decode(msg, size, &req, why, sizeof(why)) != FC_STATUS_OK) {
		if (why[0] == '\0')
			abort(); /* every refusal names its reason */
		return;
	}
	if (req.desc_len == 0 || req.desc_len > FC_MAX_DESC_LEN || size != FC_REQUEST_HDR_LEN + req.desc_len ||
	    req.desc != msg + FC_REQUEST_HDR_LEN || req.buf_len == 0 || req.file_size > req.buf_len ||
	    req.host_addr > UINT64_MAX - req.buf_len)
		abort();
	if (fc_request_encode(&req, again) != size || memcmp(again, msg, size) != 0)
		abort();
}

static void check_reply(const uint8_t *msg, size_t size)
{
	struct fc_reply rep;
	char why[160] = "";
	uint8_t again[FC_REPLY_LEN];

	if (fc_reply_decode(msg, size, &rep, why, sizeof(why)) != FC_STATUS_OK) {
		if (why[0] == '\0')
			abort();
		return;
	}
	fc_reply_encode(&rep, again);
	if (size != FC_REPLY_LEN || rep.status > FC_STATUS_MAX || memcmp(again, msg, size) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size == 0 ? 1 : size); /* exact size: ASan sees any overread */

	if (copy == NULL)
		return 0;
	memcpy(copy, data, size);
	check_request(copy, size);
	check_reply(copy, size);
	(void)fc_checksum(copy, size);
	free(copy);
	return 0;
}

#ifdef FERRY_FUZZ_STANDALONE
int main(void)
{
	static const uint8_t desc[100] = {7, 7, 7};
	const struct fc_request req = {.file_size = 1000,
				       .checksum = 42,
				       .host_addr = 0x10000,
				       .buf_len = 4096,
				       .desc_len = sizeof(desc),
				       .desc = desc};
	const struct fc_reply rep = {.status = FC_STATUS_CHECKSUM, .bytes = 1000, .nsec = 5};
	uint8_t msg[FC_MAX_MSG_LEN];
	size_t len = fc_request_encode(&req, msg);

	for (size_t cut = 0; cut <= len; cut++)
		LLVMFuzzerTestOneInput(msg, cut);
	fc_reply_encode(&rep, msg);
	for (size_t cut = 0; cut <= FC_REPLY_LEN; cut++)
		LLVMFuzzerTestOneInput(msg, cut);
	/* Found by the fuzzer: a reply whose reserved word is not 0 was taken (and re-encoded otherwise). */
	msg[13] = 0xc9;
	LLVMFuzzerTestOneInput(msg, FC_REPLY_LEN);
	/* The checksum sees every byte, in every position of a word. */
	for (size_t i = 0; i < 70; i++) {
		uint8_t buf[70] = {0};
		uint64_t before = fc_checksum(buf, sizeof(buf));

		buf[i] = 1;
		if (fc_checksum(buf, sizeof(buf)) == before)
			return 1;
	}
	return 0;
}
#endif
