/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How the bc635 driver reaches a card: 32-bit registers, the DPRAM byte by byte
 * (4 KiB on the first generation, 2 KiB on the second), and an fd that becomes
 * readable on an interrupt. Implemented by
 * the UIO and VFIO back-ends (bc635_pci.c) for a real card and by the
 * register-level simulator (bc635_sim.c); the driver cannot tell them apart.
 */
#ifndef BC635_BUS_H
#define BC635_BUS_H

#include <stddef.h>
#include <stdint.h>

struct bc_bus;

struct bc_bus_ops {
	uint32_t (*rd32)(struct bc_bus *b, uint32_t off);
	void (*wr32)(struct bc_bus *b, uint32_t off, uint32_t v);
	uint8_t (*dp_rd8)(struct bc_bus *b, uint32_t off);
	void (*dp_wr8)(struct bc_bus *b, uint32_t off, uint8_t v);
	/* readable when the card interrupted; -1 when there is none */
	int (*irq_fd)(struct bc_bus *b);
	/* consumes what made irq_fd readable; returns the interrupts counted
	 * since the last call (0: none; < 0: -errno) */
	int (*irq_take)(struct bc_bus *b);
	/* lets the interrupt through again (UIO: write 1; VFIO: unmask). The
	 * line is level-triggered: re-armed while INTSTAT still asserts it, it
	 * fires again at once, so the driver clears INTSTAT first */
	int (*irq_rearm)(struct bc_bus *b);
	void (*close)(struct bc_bus *b);
	void (*describe)(struct bc_bus *b, char *buf, size_t len);
};

struct bc_bus {
	const struct bc_bus_ops *ops;
	uint32_t dp_size; /* the DPRAM's size: its area offsets are at its top */
};

#endif
