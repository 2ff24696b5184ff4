/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_dma_user_epoll.c - the user-style DMA program (dma_user_program.h, public
 * DOCA headers only) driven in epoll mode: epoll_wait on the PE's notification handle,
 * with doca_pe_request_notification / doca_pe_clear_notification.
 */
#include "dma_user_program.h"

int main(void)
{
	return user_main(USER_EPOLL);
}
