/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bc635PCI-U driver: DPRAM commands, the card's time and its status flags,
 * the heartbeat at the frame rate synchronised to 1PPS with its edge latched
 * in EVENT0/1, and the interrupt that marks each edge. Works on any struct
 * bc_bus. Times are nanoseconds of the card's UTC (UNIX seconds in TIME1).
 */
#ifndef BC635_H
#define BC635_H

#include <stdbool.h>
#include <stdint.h>

#include "bc635_bus.h"

struct bc635_time {
	int64_t utc_ns;
	uint32_t flags; /* BC_T0_FLYWHEEL | BC_T0_TIME_OFFSET | BC_T0_FREQ_OFFSET */
};

struct bc635_stats {
	uint64_t commands, command_timeouts;
	uint64_t irqs, heartbeats, spurious;
};

struct bc635 {
	struct bc_bus *bus;
	uint16_t in_off, out_off;
	int cmd_timeout_us;
	char model[32], serial[32], firmware[32];
	bool has_gps; /* a bc637 (model "BC637PCI") */
	int mode;     /* the timing mode set (BC_MODE_*) */
	struct bc635_stats st;
};

/* The divider pair for a heartbeat of period tf_ns: 1 MHz / (n1 n2) = 1 / TF.
 * 0, or -EINVAL with a reason when the card cannot make it exactly. */
int bc635_divider(int64_t tf_ns, uint16_t *n1, uint16_t *n2, const char **why);

/* Checks the DPRAM layout and asks the card who it is. 0 or -errno with err. */
int bc635_open(struct bc635 *c, struct bc_bus *bus, char *err, size_t errlen);
/* One DPRAM command; 0, or -ETIMEDOUT when the card does not acknowledge. */
int bc635_command(struct bc635 *c, const uint8_t *pkt, uint32_t n);
/* 0x19: the card's answer of len bytes (the echoed sub-code first) from its
 * output area. 0, -EPROTO when the echo is wrong, or bc635_command's error. */
int bc635_request(struct bc635 *c, uint8_t what, uint8_t *out, uint32_t len);
/* The timing mode (mode < 0: GPS on a bc637, time code on a bc635; GPS on a
 * bc635 is refused), binary time, heartbeat at tf_ns synchronised to 1PPS,
 * edge latched into EVENT0/1, its interrupt enabled. */
int bc635_setup(struct bc635 *c, int64_t tf_ns, int mode, char *err, size_t errlen);
const char *bc635_mode_name(int mode);
/* Latches and reads the time now (TIMEREQ, TIME0/1). */
void bc635_read_time(struct bc635 *c, struct bc635_time *t);
/* After irq_fd became readable: takes the interrupt, acknowledges it in
 * INTSTAT, and when it was a heartbeat reads its edge from EVENT0/1 and
 * unlocks them. 1 with *edge set; 0 when there was no heartbeat. */
int bc635_take_tick(struct bc635 *c, struct bc635_time *edge);

/* TIME0/1 (or EVENT0/1) to nanoseconds and flags. */
void bc635_decode(uint32_t t0, uint32_t t1, struct bc635_time *out);

#endif
