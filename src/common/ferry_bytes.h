/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_bytes.h - little-endian integers in byte buffers, for the codecs of
 * the bytes that cross processes (link, sync event and RDMA descriptors): no
 * alignment needed, the same result on every host.
 */
#ifndef FERRY_BYTES_H_
#define FERRY_BYTES_H_

#include <stdint.h>

static inline void ferry_le_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void ferry_le_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void ferry_le_put64(uint8_t *p, uint64_t v)
{
	ferry_le_put32(p, (uint32_t)v);
	ferry_le_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t ferry_le_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t ferry_le_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ferry_le_get64(const uint8_t *p)
{
	return (uint64_t)ferry_le_get32(p) | (uint64_t)ferry_le_get32(p + 4) << 32;
}

#endif /* FERRY_BYTES_H_ */
