/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ferry_abi.h - which internal functions leave libdoca_common.
 *
 * Every library is built with -fvisibility=hidden and a version script
 * (src/libdoca_<lib>.map). Applications see DOCA's API (DOCA_STABLE and
 * DOCA_EXPERIMENTAL in include/) and the documented Ferry calls of
 * include/ferry_mem.h, under the version node FERRY_0.
 *
 * The sibling libraries (libdoca_argp, libdoca_dma, libdoca_comch) also call a
 * few internal functions of libdoca_common. Those, and only those, carry
 * FERRY_PRIVATE_API on their declaration and are listed in the FERRY_PRIVATE_0
 * node of src/libdoca_common.map. The node is not for applications: it may
 * change with any release. tests/build/test_abi.sh fails when the list and the
 * siblings' real imports differ.
 *
 * A sibling that starts calling another libdoca_common function: mark its
 * declaration FERRY_PRIVATE_API and add its name to FERRY_PRIVATE_0 (without
 * both, the sibling does not link: "undefined reference").
 */
#ifndef FERRY_ABI_H_
#define FERRY_ABI_H_

#define FERRY_PRIVATE_API __attribute__((visibility("default")))

#endif /* FERRY_ABI_H_ */
