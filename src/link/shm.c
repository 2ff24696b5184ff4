/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * shm.c - ferry_mem_alloc_shared: memfd-backed blocks that an exporter's
 * memory agent can hand to importers. A small registry maps addresses back
 * to their memfd so doca_mmap_export_pci can tell shareable ranges apart.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include <ferry_mem.h>

#include "link/ferry_export.h"

struct shm_block {
	struct shm_block *next;
	void *base;
	size_t len;
	int fd;
	uint32_t holds; /* ferry_shm_hold: unmapped at the last release once freed */
	bool freed;     /* its owner freed it (it left shm_blocks) */
};

static pthread_mutex_t shm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shm_block *shm_blocks;

/*
 * Where blocks go. An importer maps a block at the exporter's own address, so
 * the address must be free in the importer too; the kernel's default spot is
 * the same in two processes forked from one parent (or started alike). Blocks
 * therefore go to a random 2 MiB-aligned place in a 512 GiB window that neither
 * the kernel's mmap area, the program (PIE at 0x5555...) nor its heap use on
 * 47-bit x86-64 and 48-bit arm64, and that ASan and TSan (old and new
 * layouts) both count as application memory: TSan kills a process that maps
 * outside it. If that fails (another address-space layout) the kernel picks.
 */
#define SHM_WINDOW_START 0x560000000000ull
#define SHM_WINDOW_LEN   0x008000000000ull
#define SHM_ALIGN        (2ull << 20)
#define SHM_TRIES        8

static void *map_block(int fd, size_t len)
{
	for (int i = 0; i < SHM_TRIES && len < SHM_WINDOW_LEN; i++) {
		uint64_t r;
		if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
			break;
		uint64_t slots = (SHM_WINDOW_LEN - len) / SHM_ALIGN;
		void *hint = (void *)(uintptr_t)(SHM_WINDOW_START + (r % slots) * SHM_ALIGN);
		void *p = mmap(hint, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
		if (p == hint)
			return p;
		if (p != MAP_FAILED)
			munmap(p, len); /* a kernel without NOREPLACE took it as a mere hint */
	}
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

static size_t round_to_pages(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (size > SIZE_MAX - page)
		return 0;
	return (size + page - 1) & ~(page - 1);
}

void *ferry_mem_alloc_shared(size_t size)
{
	size_t len = round_to_pages(size);
	struct shm_block *blk;

	if (size == 0 || len == 0) {
		errno = size == 0 ? EINVAL : ENOMEM;
		return NULL;
	}
	blk = calloc(1, sizeof(*blk));
	if (blk == NULL)
		return NULL;
	blk->fd = memfd_create("ferry-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (blk->fd < 0)
		goto fail_blk;
	if (ftruncate(blk->fd, (off_t)len) != 0)
		goto fail_fd;
	/*
	 * Fixed size from now on: no peer can shrink it under the other (SIGBUS).
	 * Not F_SEAL_SEAL: a read-only export adds F_SEAL_FUTURE_WRITE later.
	 */
	if (fcntl(blk->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
		goto fail_fd;
	blk->base = map_block(blk->fd, len);
	if (blk->base == MAP_FAILED)
		goto fail_fd;
	blk->len = len;
	pthread_mutex_lock(&shm_lock);
	blk->next = shm_blocks;
	shm_blocks = blk;
	pthread_mutex_unlock(&shm_lock);
	return blk->base;

fail_fd:;
	int saved = errno;
	close(blk->fd);
	errno = saved;
fail_blk:
	free(blk);
	return NULL;
}

static void block_unmap(struct shm_block *blk)
{
	munmap(blk->base, blk->len);
	close(blk->fd);
	free(blk);
}

int ferry_mem_free_shared(void *addr)
{
	struct shm_block **link, *blk = NULL;

	if (addr == NULL)
		return 0;
	pthread_mutex_lock(&shm_lock);
	for (link = &shm_blocks; *link != NULL; link = &(*link)->next) {
		if ((*link)->base == addr) {
			blk = *link;
			*link = blk->next;
			break;
		}
	}
	if (blk != NULL && blk->holds > 0) {
		blk->freed = true; /* an import of it still reads it: the last release unmaps */
		blk = NULL;
		pthread_mutex_unlock(&shm_lock);
		return 0;
	}
	pthread_mutex_unlock(&shm_lock);
	if (blk == NULL) {
		errno = EINVAL;
		return -1;
	}
	block_unmap(blk);
	return 0;
}

struct shm_block *ferry_shm_hold(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	struct shm_block *found = NULL;

	pthread_mutex_lock(&shm_lock);
	for (struct shm_block *blk = shm_blocks; blk != NULL && found == NULL; blk = blk->next)
		if (a >= (uintptr_t)blk->base && a - (uintptr_t)blk->base < blk->len)
			found = blk;
	if (found != NULL)
		found->holds++;
	pthread_mutex_unlock(&shm_lock);
	return found;
}

void ferry_shm_release(struct shm_block *blk)
{
	bool unmap;

	if (blk == NULL)
		return;
	pthread_mutex_lock(&shm_lock);
	unmap = --blk->holds == 0 && blk->freed;
	pthread_mutex_unlock(&shm_lock);
	if (unmap)
		block_unmap(blk);
}

doca_error_t ferry_shm_lookup(const void *addr, size_t len, int *fd_dup, void **block_base)
{
	uintptr_t a = (uintptr_t)addr;
	doca_error_t err = DOCA_ERROR_NOT_FOUND;

	pthread_mutex_lock(&shm_lock);
	for (struct shm_block *blk = shm_blocks; blk != NULL; blk = blk->next) {
		uintptr_t base = (uintptr_t)blk->base;
		if (a < base || a - base > blk->len || len > blk->len - (a - base))
			continue;
		*fd_dup = fcntl(blk->fd, F_DUPFD_CLOEXEC, 0);
		*block_base = blk->base;
		err = *fd_dup >= 0 ? DOCA_SUCCESS : DOCA_ERROR_OPERATING_SYSTEM;
		break;
	}
	pthread_mutex_unlock(&shm_lock);
	return err;
}
