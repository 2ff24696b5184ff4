/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_agent_reply.c - libFuzzer target for the importer's check of the memory
 * agent's reply (ferry_link_check_rep in src/link/agent_rep.c). The agent runs in
 * the exporter, which may lie: the reply decides which pages get mapped.
 *
 * Input: one flag byte (bit 0: a memory fd came with the reply, bits 1-2: the
 * page size), the descriptor's claim (addr u64, len u64, access u32, host
 * order) and the raw bytes of a struct link_rep as the agent sends them.
 * Shorter inputs are padded with zeros; bytes past the case are ignored.
 *
 * Property: the check accepts exactly the replies the rules allow, as worked
 * out here independently in 128-bit arithmetic: range and permission equal to
 * the descriptor's, a non-empty range that does not wrap, access PCI_READ_ONLY
 * or PCI_READ_WRITE, reserved zero; with a memory fd, whole pages that are
 * exactly the pages holding the range, and a file offset whose end fits off_t.
 * Every refusal says why, and neither argument is written to.
 *
 * In the libFuzzer build (FERRY_LIBFUZZER) a custom mutator mostly keeps the
 * reply consistent with the descriptor and its pages aligned, so mutants get
 * to the page checks instead of dying at the first comparison. Built with
 * -DFERRY_FUZZ_STANDALONE it gets a main that replays hand-made replies that
 * must pass and must fail (test 'link_agent_reply_seeds').
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <doca_types.h>

#include "link/link_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Sums of two u64 never wrap here; the oracle must not share the code's arithmetic. */
typedef unsigned __int128 u128;

#define IN_FLAGS   0
#define IN_ADDR    1
#define IN_LEN     9
#define IN_ACCESS  17
#define IN_REP     21
#define CASE_BYTES (IN_REP + sizeof(struct link_rep))

static const size_t page_sizes[4] = {4096, 8192, 16384, 65536};

struct reply_case {
	bool has_mem;
	uint8_t page_sel; /* index into page_sizes */
	struct ferry_export_desc desc;
	struct link_rep rep;
};

static void case_read(const uint8_t *data, size_t size, struct reply_case *c)
{
	uint8_t raw[CASE_BYTES] = {0};

	memcpy(raw, data, size < CASE_BYTES ? size : CASE_BYTES);
	memset(c, 0, sizeof(*c));
	c->has_mem = raw[IN_FLAGS] & 1;
	c->page_sel = (raw[IN_FLAGS] >> 1) & 3;
	memcpy(&c->desc.addr, raw + IN_ADDR, 8);
	memcpy(&c->desc.len, raw + IN_LEN, 8);
	memcpy(&c->desc.access, raw + IN_ACCESS, 4);
	memcpy(&c->rep, raw + IN_REP, sizeof(c->rep));
}

static void case_write(const struct reply_case *c, uint8_t *out)
{
	out[IN_FLAGS] = (uint8_t)((c->has_mem ? 1 : 0) | ((c->page_sel & 3) << 1));
	memcpy(out + IN_ADDR, &c->desc.addr, 8);
	memcpy(out + IN_LEN, &c->desc.len, 8);
	memcpy(out + IN_ACCESS, &c->desc.access, 4);
	memcpy(out + IN_REP, &c->rep, sizeof(c->rep));
}

static bool access_ok(uint32_t access)
{
	return access == DOCA_ACCESS_FLAG_PCI_READ_ONLY || access == DOCA_ACCESS_FLAG_PCI_READ_WRITE;
}

/* With a memory fd: whole pages, exactly those that hold [addr, end), within off_t. */
static bool pages_allowed(const struct link_rep *r, uint64_t page, u128 end)
{
	u128 first = r->addr / page * page;
	u128 last = (end + page - 1) / page * page;

	if (r->map_base % page != 0 || r->map_len % page != 0 || r->mem_off % page != 0)
		return false;
	if (r->map_base != first || (u128)r->map_base + r->map_len != last)
		return false;
	if (last > UINT64_MAX)
		return false; /* the top page of the address space: the mapping's end wraps */
	return (u128)r->mem_off + r->map_len <= INT64_MAX;
}

static bool reply_allowed(const struct reply_case *c)
{
	const struct link_rep *r = &c->rep;
	u128 end = (u128)r->addr + r->len;

	if (r->addr != c->desc.addr || r->len != c->desc.len || r->access != c->desc.access)
		return false;
	if (r->len == 0 || end > UINT64_MAX || !access_ok(r->access) || r->reserved != 0)
		return false;
	return !c->has_mem || pages_allowed(r, page_sizes[c->page_sel], end);
}

/* Check one case against the oracle; false (with a line on stderr) when a property fails. */
static bool run_case(const struct reply_case *c, bool *accepted)
{
	struct reply_case before = *c;
	const char *why = NULL;
	doca_error_t err = ferry_link_check_rep(&c->desc, &c->rep, page_sizes[c->page_sel], c->has_mem, &why);

	*accepted = err == DOCA_SUCCESS;
	if (memcmp(&before, c, sizeof(before)) != 0) {
		fprintf(stderr, "check_rep wrote to its input\n");
		return false;
	}
	if (!*accepted && (why == NULL || why[0] == '\0')) {
		fprintf(stderr, "check_rep refused (%d) without saying why\n", (int)err);
		return false;
	}
	if (*accepted != reply_allowed(c)) {
		fprintf(stderr, "check_rep %s a reply the rules %s\n", *accepted ? "accepted" : "refused",
			*accepted ? "forbid" : "allow");
		return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reply_case c;
	bool accepted;

	case_read(data, size, &c);
	if (!run_case(&c, &accepted))
		abort();
	return 0;
}

#ifdef FERRY_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

#include "ferry_fuzz.h" /* tests/lib: the mutators' shared helpers */

static void copy_across(uint64_t *rep, uint64_t *desc, bool to_rep)
{
	if (to_rep)
		*rep = *desc;
	else
		*desc = *rep;
}

/* Mostly make the reply say what the descriptor says (either side may win). */
static void agree(struct reply_case *c, uint32_t *s)
{
	bool to_rep = !ferry_fuzz_one_in(s, 2);

	if (!ferry_fuzz_one_in(s, 8))
		copy_across(&c->rep.addr, &c->desc.addr, to_rep);
	if (!ferry_fuzz_one_in(s, 8))
		copy_across(&c->rep.len, &c->desc.len, to_rep);
	if (!access_ok(c->rep.access) && !ferry_fuzz_one_in(s, 4))
		c->rep.access = ferry_fuzz_one_in(s, 2) ? DOCA_ACCESS_FLAG_PCI_READ_ONLY
							: DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	if (!ferry_fuzz_one_in(s, 8))
		c->desc.access = c->rep.access;
	if (!ferry_fuzz_one_in(s, 8))
		c->rep.reserved = 0;
}

/* Mostly whole pages, often exactly the right ones, at a file offset that fits. */
static void align_pages(struct reply_case *c, uint32_t *s)
{
	struct link_rep *r = &c->rep;
	uint64_t page = page_sizes[c->page_sel];
	u128 first = r->addr / page * page;
	u128 last = ((u128)r->addr + r->len + page - 1) / page * page;

	r->map_base = ferry_fuzz_one_in(s, 4) ? r->map_base & ~(page - 1) : (uint64_t)first;
	r->map_len = ferry_fuzz_one_in(s, 4) ? r->map_len & ~(page - 1) : (uint64_t)(last - first);
	if (!ferry_fuzz_one_in(s, 4))
		r->mem_off &= ~(page - 1);
	if (!ferry_fuzz_one_in(s, 2))
		r->mem_off &= (1ull << 40) - 1; /* a plausible file, far from the off_t limit */
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	struct reply_case c;
	uint32_t s = seed | 1; /* xorshift never leaves 0 */

	size = LLVMFuzzerMutate(data, size, max_size);
	if (max_size < CASE_BYTES)
		return size;
	case_read(data, size, &c);
	if (!ferry_fuzz_one_in(&s, 8))
		agree(&c, &s);
	if (c.has_mem && !ferry_fuzz_one_in(&s, 4))
		align_pages(&c, &s);
	case_write(&c, data);
	return CASE_BYTES; /* the case is the whole input: no dead tail for the mutator */
}
#endif /* FERRY_LIBFUZZER */

#ifdef FERRY_FUZZ_STANDALONE
/* A read-write export of 5000 bytes that starts inside a page, served with its memory fd. */
static struct reply_case good_case(uint8_t page_sel, bool has_mem)
{
	struct reply_case c;
	uint64_t page = page_sizes[page_sel];

	memset(&c, 0, sizeof(c));
	c.has_mem = has_mem;
	c.page_sel = page_sel;
	c.desc.addr = 0x7f0012340123ull;
	c.desc.len = 5000;
	c.desc.access = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	c.rep.magic = LINK_MSG_MAGIC;
	c.rep.addr = c.desc.addr;
	c.rep.len = c.desc.len;
	c.rep.access = c.desc.access;
	c.rep.map_base = c.rep.addr & ~(page - 1);
	c.rep.map_len = ((c.rep.addr + c.rep.len + page - 1) & ~(page - 1)) - c.rep.map_base;
	c.rep.mem_off = 16 * page;
	return c;
}

/* Run one hand-made reply: the properties must hold and the verdict must be @p want_ok. */
static int replay(const char *name, const struct reply_case *c, bool want_ok)
{
	uint8_t bytes[CASE_BYTES];
	bool accepted;

	if (!run_case(c, &accepted) || accepted != want_ok) {
		fprintf(stderr, "seed '%s': expected %s\n", name, want_ok ? "accepted" : "refused");
		return 1;
	}
	/* The same case as bytes, and every truncation of it, through the fuzz entry. */
	case_write(c, bytes);
	for (size_t cut = 0; cut <= CASE_BYTES; cut++)
		LLVMFuzzerTestOneInput(bytes, cut);
	return 0;
}

static int replay_passing(void)
{
	struct reply_case c = good_case(0, true);
	int bad = replay("unaligned range, 4 KiB pages", &c, true);

	c = good_case(3, true);
	bad += replay("unaligned range, 64 KiB pages", &c, true);
	c = good_case(0, false);
	c.rep.map_base = 123; /* ignored: no memory fd, nothing gets mapped */
	c.rep.map_len = 0;
	c.rep.mem_off = UINT64_MAX;
	bad += replay("no memory fd, page fields ignored", &c, true);
	c = good_case(0, true);
	c.desc.access = c.rep.access = DOCA_ACCESS_FLAG_PCI_READ_ONLY;
	c.desc.addr = c.rep.addr = c.rep.map_base = 0x7f0000000000ull;
	c.desc.len = c.rep.len = c.rep.map_len = 1u << 20;
	c.rep.mem_off = 0;
	bad += replay("read-only, page-aligned range", &c, true);
	return bad;
}

/* What a lying or broken agent might send, each one rule broken. */
static int replay_failing(void)
{
	struct reply_case c = good_case(0, true);
	int bad = 0;

	c.desc.len += 4096;
	bad += replay("forged length (descriptor claims more)", &c, false);
	c = good_case(0, true);
	c.desc.access = DOCA_ACCESS_FLAG_PCI_READ_WRITE;
	c.rep.access = DOCA_ACCESS_FLAG_PCI_READ_ONLY;
	bad += replay("flipped permission", &c, false);
	c = good_case(0, true);
	c.rep.map_base += 4096;
	bad += replay("pages that miss the range", &c, false);
	c = good_case(0, true);
	c.rep.map_len += 4096;
	bad += replay("map_len larger than needed", &c, false);
	c = good_case(0, true);
	c.rep.mem_off += 8;
	bad += replay("file offset not page aligned", &c, false);
	c = good_case(0, true);
	c.rep.mem_off = INT64_MAX & ~4095ull;
	bad += replay("file offset past off_t", &c, false);
	c = good_case(0, true);
	c.rep.reserved = 1;
	bad += replay("reserved not zero", &c, false);
	c = good_case(0, false);
	c.desc.access = c.rep.access = DOCA_ACCESS_FLAG_PCI_READ_WRITE | DOCA_ACCESS_FLAG_PCI_READ_ONLY;
	bad += replay("both permissions", &c, false);
	c = good_case(0, true);
	c.rep.map_len = 0;
	bad += replay("no pages", &c, false);
	c = good_case(0, false);
	c.desc.len = c.rep.len = 0;
	bad += replay("empty range", &c, false);
	c = good_case(0, false);
	c.desc.addr = c.rep.addr = UINT64_MAX - 100;
	bad += replay("range wraps", &c, false);
	return bad;
}

int main(void)
{
	int bad = replay_passing() + replay_failing();

	if (bad != 0)
		return 1;
	printf("agent reply seeds: all verdicts as expected\n");
	return 0;
}
#endif /* FERRY_FUZZ_STANDALONE */
