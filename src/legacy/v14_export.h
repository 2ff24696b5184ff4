/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * v14_export.h - the export descriptor of DOCA 1.3/1.4 as Ferry writes it:
 * NUL-terminated JSON text that carries Ferry's binary PCI export descriptor
 * (doca_mmap_export_pci) in hex beside the two keys 1.x programs read.
 *
 *   {"addr": 140234567680000, "len": 4194304, "ferry_export": "46525958..."}
 *
 * "addr" and "len" are the exported chunk (decimal, 0 to INT64_MAX, as
 * json-c's int64 reads them); "ferry_export" is the binary descriptor, two
 * lowercase hex digits per byte. The whole text with its NUL stays under
 * V14_EXPORT_MAX_LEN bytes, the receive buffer of the 1.x samples.
 *
 * The codec is pure (no I/O, logging or allocation): decode takes bytes from
 * another process, reads only [text, text + len) and says why it refuses.
 * It accepts exactly that object: the three keys once each, in any order,
 * JSON whitespace between tokens, no escapes, no other keys or values.
 */
#ifndef FERRY_V14_EXPORT_H_
#define FERRY_V14_EXPORT_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_error.h>

#define V14_EXPORT_MAX_LEN  1024u /* text and its NUL */
#define V14_EXPORT_MAX_BLOB 384u  /* binary descriptor bytes (Ferry's are at most 207) */

/**
 * Write the text for @p blob_len bytes of @p blob describing @p addr + @p len
 * into @p out (@p room bytes).
 * @return the bytes written with the NUL, or 0 when an argument is out of range or @p room is too small.
 */
size_t v14_export_encode(uint64_t addr, uint64_t len, const uint8_t *blob, size_t blob_len, char *out, size_t room);

/**
 * Parse @p text_len bytes at @p text: the text ends at its first NUL, which
 * must lie within @p text_len (bytes after it are ignored).
 * @param [out] blob      room for V14_EXPORT_MAX_BLOB bytes.
 * @param [out] why       on failure, a static sentence saying what is wrong.
 * @return DOCA_SUCCESS, or DOCA_ERROR_INVALID_VALUE (outputs then unspecified).
 */
doca_error_t v14_export_decode(const uint8_t *text, size_t text_len, uint64_t *addr, uint64_t *len, uint8_t *blob,
			       size_t *blob_len, const char **why);

#endif /* FERRY_V14_EXPORT_H_ */
