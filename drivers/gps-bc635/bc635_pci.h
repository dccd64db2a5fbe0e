/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A real bc635PCI-U on the PCI bus, as a struct bc_bus: its BARs mapped and its
 * interrupt delivered through UIO (uio_pci_generic: a blocking read on
 * /dev/uioN, re-armed by writing 1) or VFIO (an eventfd, re-armed by an unmask),
 * each re-armed by the driver only after it cleared INTSTAT.
 * Public drivers disagree on which BAR holds the registers and which the
 * DPRAM; bc635_pick_bars decides from the BAR sizes unless told.
 */
#ifndef BC635_PCI_H
#define BC635_PCI_H

#include <stddef.h>
#include <stdint.h>

#include "bc635_bus.h"

enum bc_bars { BC_BARS_AUTO, BC_BARS_0_1, BC_BARS_1_0 };

/* From the sizes of BARs 0..5 (0: absent): the register BAR and the DPRAM BAR.
 * 0, or -ENODEV with why. *how says how it was decided, for the log. */
int bc635_pick_bars(const uint64_t size[6], enum bc_bars want, int *reg_bar, int *dp_bar, const char **how);

/* dev: "uioN", "/dev/uioN" or a PCI address for VFIO ("0000:03:00.0").
 * NULL with a message in err when the card is not there or not usable. */
struct bc_bus *bc635_pci_open(const char *dev, enum bc_bars bars, char *err, size_t errlen);

#endif
