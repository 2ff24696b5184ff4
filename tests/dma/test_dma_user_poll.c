/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dma_user_poll.c - the user-style DMA program (dma_user_program.h, public
 * DOCA headers only) driven in polling mode: doca_pe_progress in a loop.
 */
#include "dma_user_program.h"

int main(void)
{
	return user_main(USER_POLL);
}
