/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * file_copy.h - what the two sides of the file copy example share: the wire
 * format of the one request and the one reply they exchange over Comch, the
 * checksum, and small helpers for flags and devices.
 *
 * The conversation: the host exports the buffer that holds the file and sends
 * a request (file size, checksum, the export descriptor, the buffer's address
 * and length); the DPU imports the export, pulls the file with DMA, checks it
 * and answers with a reply (status, bytes, nanoseconds of the copy).
 *
 * Every integer on the wire is little-endian and sits at a fixed offset, so a
 * message means the same on every compiler; nothing is cast from the buffer.
 * Each side treats the other as untrusted: fc_request_decode and
 * fc_reply_decode check every field before anything uses it.
 */
#ifndef FERRY_EXAMPLE_FILE_COPY_H_
#define FERRY_EXAMPLE_FILE_COPY_H_

#include <stddef.h>
#include <stdint.h>

#include <doca_argp.h>
#include <doca_dev.h>
#include <doca_error.h>

#define FC_MAGIC           0x50434646u /* "FFCP" as little-endian bytes */
#define FC_VERSION         1u
#define FC_TYPE_REQUEST    1u
#define FC_TYPE_REPLY      2u
#define FC_REQUEST_HDR_LEN 48u   /* the request's fixed part; the descriptor follows */
#define FC_REPLY_LEN       32u   /* the reply has no variable part */
#define FC_MAX_DESC_LEN    2048u /* far above what DOCA or Ferry produce */
#define FC_MAX_MSG_LEN     (FC_REQUEST_HDR_LEN + FC_MAX_DESC_LEN)
#define FC_DEFAULT_SERVICE "ferry-file-copy"

/* The reply's status: why the DPU side refused or failed, 0 when the file arrived intact. */
enum fc_status {
	FC_STATUS_OK = 0,
	FC_STATUS_BAD_REQUEST = 1, /* the message is malformed: length, magic, version, type, a field */
	FC_STATUS_TOO_LARGE = 2,   /* the file is larger than the DPU side accepts (-m) */
	FC_STATUS_BAD_EXPORT = 3,  /* the descriptor does not import, or the range lies outside it */
	FC_STATUS_NO_MEMORY = 4,
	FC_STATUS_DMA_FAILED = 5,
	FC_STATUS_CHECKSUM = 6, /* the copy differs from what the host sent */
	FC_STATUS_WRITE_FAILED = 7,
	FC_STATUS_MAX = FC_STATUS_WRITE_FAILED,
};

/* A request, decoded. @c desc points into the received message. */
struct fc_request {
	uint64_t file_size; /* bytes to copy, from host_addr on */
	uint64_t checksum;  /* fc_checksum of those bytes */
	uint64_t host_addr; /* the exported buffer's address in the host process */
	uint64_t buf_len;   /* the exported buffer's length; file_size <= buf_len */
	uint32_t desc_len;
	const uint8_t *desc;
};

struct fc_reply {
	uint32_t status; /* enum fc_status */
	uint64_t bytes;  /* bytes copied and verified */
	uint64_t nsec;   /* duration of the DMA copy on the DPU side */
};

/* Encode @p req into @p out (room for FC_MAX_MSG_LEN); returns the length, 0 when desc_len is out of bounds. */
size_t fc_request_encode(const struct fc_request *req, uint8_t *out);

/*
 * Decode and check a request of @p len bytes. On failure returns
 * FC_STATUS_BAD_REQUEST and writes a one-line reason into @p why.
 */
enum fc_status fc_request_decode(const uint8_t *msg, size_t len, struct fc_request *req, char *why, size_t why_len);

void fc_reply_encode(const struct fc_reply *rep, uint8_t out[FC_REPLY_LEN]);
enum fc_status fc_reply_decode(const uint8_t *msg, size_t len, struct fc_reply *rep, char *why, size_t why_len);

const char *fc_status_name(uint32_t status);

/* A fast 64-bit checksum (four multiply-rotate lanes, then a final mix); not cryptographic. */
uint64_t fc_checksum(const void *data, size_t len);

/* Fill @p len bytes with a pseudo-random stream from @p seed (xorshift64*). */
void fc_fill_random(void *data, size_t len, uint64_t seed);

double fc_now(void);

/* Register one doca_argp flag (@p short_name may be NULL). */
doca_error_t fc_add_param(const char *short_name, const char *long_name, const char *descr, doca_argp_param_cb_t cb,
			  enum doca_argp_type type);

/* Copy a string flag into @p dst of @p size bytes; DOCA_ERROR_INVALID_VALUE when it does not fit. */
doca_error_t fc_copy_flag(char *dst, size_t size, const char *flag, const char *what);

/* Open the device at @p pci on which @p cap answers DOCA_SUCCESS. */
doca_error_t fc_open_dev(const char *pci, doca_error_t (*cap)(const struct doca_devinfo *), struct doca_dev **dev);

/* Start DOCA logging: the program's lines on stdout/stderr, the SDK's warnings on stderr. */
doca_error_t fc_log_init(void);

#endif /* FERRY_EXAMPLE_FILE_COPY_H_ */
