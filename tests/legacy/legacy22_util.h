/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy22_util.h - what the DOCA 2.2 test programs share: opening a device
 * and a representor by PCI address, as the 2.2 samples' common.c does. Built
 * against the 2.2 headers only. Every failure prints the call and exits 1.
 */
#ifndef LEGACY22_UTIL_H_
#define LEGACY22_UTIL_H_

#include <doca_dev.h>

/** The device at @p pci ("bb:dd.f" or "dddd:bb:dd.f"), opened. */
struct doca_dev *l22_open_dev(const char *pci);

/** The NET representor of @p dev at @p pci, opened. */
struct doca_dev_rep *l22_open_rep(struct doca_dev *dev, const char *pci);

#endif /* LEGACY22_UTIL_H_ */
