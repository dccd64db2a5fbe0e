/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A real bc635PCI-U on the PCI bus, as a struct bc_bus: its BARs mapped (or,
 * when VFIO will not map a BAR smaller than a page, read and written through
 * the region) and its interrupt delivered through UIO (uio_pci_generic: a
 * read on /dev/uioN, re-armed by writing 1) or VFIO (an eventfd, re-armed by
 * an unmask), each re-armed by the driver only after it cleared INTSTAT.
 *
 * Two generations share the PCI id 12e2:4013; the revision in config space
 * tells them apart (bc635_regs.h): 0x12 has its registers in BAR0 and 4 KiB
 * of DPRAM in BAR1, 0x20-0x2F its registers in BAR2 and 2 KiB of DPRAM in
 * BAR3. A first-generation card with a 2 KiB BAR1 has 2 KiB of DPRAM there.
 * bc635-bars overrides the choice.
 */
#ifndef BC635_PCI_H
#define BC635_PCI_H

#include <stddef.h>
#include <stdint.h>

#include "bc635_bus.h"

/* 0,1-2k: the first generation's BARs with 2 KiB of DPRAM in BAR1, the
 * area offsets at 0x7FC-0x7FF (the QNX driver reads them at 0x7FE); auto
 * takes it when BAR1 is 2 KiB */
enum bc_bars {
	BC_BARS_AUTO,
	BC_BARS_0_1,
	BC_BARS_1_0,
	BC_BARS_2_3,
	BC_BARS_0_1_2K
};

struct bc_layout {
	int reg_bar, dp_bar;
	uint32_t dp_size;
	int generation; /* 1, 2, or 0: a revision no public source names */
};

/* From the PCI revision (-1: not read) and the sizes of BARs 0..5 (0:
 * absent): where the registers and the DPRAM are. 0, or -ENODEV; how says how
 * it was decided (for the log) or why not. */
int bc635_layout(int revision, const uint64_t size[6], enum bc_bars want, struct bc_layout *l,
		 char *how, size_t howlen);

/* Where the driver finds the kernel's interfaces: "/sys" and "/dev" and
 * ioctl(2) on a real host; a directory tree and a stand-in for VFIO's ioctls
 * in tests. */
struct bc_pci_host {
	const char *sys, *dev;
	int (*ioctl)(int fd, unsigned long req, void *arg);
};

/* dev: "uioN", "/dev/uioN" or a PCI address for VFIO ("0000:03:00.0").
 * NULL with a message in err when the card is not there or not usable. */
struct bc_bus *bc635_pci_open(const char *dev, enum bc_bars bars, char *err, size_t errlen);
struct bc_bus *bc635_pci_open_at(const struct bc_pci_host *h, const char *dev, enum bc_bars bars,
				 char *err, size_t errlen);

#endif
