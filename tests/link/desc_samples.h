/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * desc_samples.h - a valid descriptor to start from, for the decoder tests
 * and the corpus driver.
 */
#ifndef FERRY_TEST_DESC_SAMPLES_H_
#define FERRY_TEST_DESC_SAMPLES_H_

#include <string.h>

#include <doca_types.h>

#include "link/export_desc_priv.h"

static inline struct ferry_export_desc sample_desc(void)
{
	struct ferry_export_desc d;

	memset(&d, 0, sizeof(d));
	d.version = FERRY_DESC_VERSION;
	d.hints = FERRY_DESC_HINT_SHAREABLE | FERRY_DESC_HINT_CMA;
	for (int i = 0; i < 16; i++) {
		d.boot_id[i] = (uint8_t)(0xb0 + i);
		d.token[i] = (uint8_t)(0x70 + 3 * i);
	}
	d.pid = 4242;
	d.uid = 1000;
	d.start_time = 123456789;
	d.export_id = 7;
	d.addr = 0x7f0012340000ull;
	d.len = 1u << 20;
	d.access = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	d.machine = 0;
	strcpy(d.agent, "ferry-1000-default-agent-4242-123456789");
	d.agent_len = (uint16_t)strlen(d.agent);
	return d;
}

/* The same with the network section (FERRY_DESC_HINT_NET): 198.18.0.1:4242. */
static inline struct ferry_export_desc net_sample_desc(void)
{
	struct ferry_export_desc d = sample_desc();
	static const uint8_t ip[4] = {198, 18, 0, 1};

	d.hints |= FERRY_DESC_HINT_NET;
	memcpy(d.net_ipv4, ip, sizeof(ip));
	d.net_port = 4242;
	d.net_ns = 4026531840ull;
	return d;
}

/* A re-export's (FERRY_DESC_HINT_NET_ONLY): the network section, and no other way in. */
static inline struct ferry_export_desc reexport_sample_desc(void)
{
	struct ferry_export_desc d = net_sample_desc();

	d.hints = FERRY_DESC_HINT_NET | FERRY_DESC_HINT_NET_ONLY;
	return d;
}

/* Recompute the checksum after a deliberate edit, so only the edit is tested. */
static inline void reseal(uint8_t *buf, size_t len)
{
	memset(buf + 12, 0, 4);
	uint32_t crc = ferry_desc_crc32(buf, len);
	for (int i = 0; i < 4; i++)
		buf[12 + i] = (uint8_t)(crc >> (8 * i));
}

#endif /* FERRY_TEST_DESC_SAMPLES_H_ */
