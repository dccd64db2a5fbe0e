/* SPDX-License-Identifier: BSD-3-Clause */
/* What the UIO (bc635_pci.c) and VFIO (bc635_vfio.c) back-ends share, below
 * both (bc635_pci_bar.c). */
#ifndef BC635_PCI_BAR_H
#define BC635_PCI_BAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bc635_pci.h"

/* One BAR as the bus reaches it: mapped, p at its first byte (a BAR smaller
 * than a page sits at an offset in the mapped page), or, when not mapped,
 * through pread/pwrite on fd at off (a VFIO region). */
struct bar_io {
	volatile uint8_t *p;
	void *map;
	size_t map_len;
	int fd;
	uint64_t off, len;
};

struct pci_bus {
	struct bc_bus bus;
	struct bar_io reg, dp;
	int irq; /* /dev/uioN, or the VFIO eventfd */
	int vfio_dev, vfio_group, vfio_container;
	const struct bc_pci_host *host;
	char what[400];
};

#define PB(b) ((struct pci_bus *)(b))

/* The device's sysfs directory: ids, revision, BARs from `resource`. */
struct pci_info {
	unsigned vendor, device;
	int revision; /* -1: unread */
	uint64_t start[6], size[6];
};

int bc635_pci_info(const char *devdir, struct pci_info *pi, char *err, size_t errlen);
struct pci_bus *bc635_pci_bus_new(const struct bc_pci_host *h, const struct bc_bus_ops *ops);
void bc635_pci_release(struct pci_bus *p);
/* The layout from the device's revision and BAR sizes, with the bus's DPRAM
 * size set; 0, or -ENODEV with err. */
int bc635_pci_layout(const char *name, const struct pci_info *pi, const uint64_t size[6],
		     enum bc_bars bars, struct bc_layout *l, char *how, size_t howlen, char *err,
		     size_t errlen);

uint32_t bc635_pci_rd32(struct bc_bus *b, uint32_t off);
void bc635_pci_wr32(struct bc_bus *b, uint32_t off, uint32_t v);
uint8_t bc635_pci_dp_rd8(struct bc_bus *b, uint32_t off);
void bc635_pci_dp_wr8(struct bc_bus *b, uint32_t off, uint8_t v);
int bc635_pci_irq_fd(struct bc_bus *b);
void bc635_pci_describe(struct bc_bus *b, char *buf, size_t len);
void bc635_pci_close(struct bc_bus *b);

struct bc_bus *bc635_vfio_open(const struct bc_pci_host *h, const char *addr, enum bc_bars bars,
			       char *err, size_t errlen);

#endif
