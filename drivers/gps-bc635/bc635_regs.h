/* SPDX-License-Identifier: BSD-3-Clause */
/* The bc635PCI-U register map and DPRAM command set, from the public manual. */
#ifndef BC635_REGS_H
#define BC635_REGS_H

#define BC635_VENDOR 0x12e2
#define BC635_DEVICE 0x4013

/* registers (32-bit) */
#define BC_TIMEREQ 0x00   /* write: latch the time into TIME0/1 */
#define BC_EVENTREQ 0x04  /* write: latch the time into EVENT0/1 (a software event) */
#define BC_UNLOCK 0x08    /* write: release the EVENT registers after a capture */
#define BC_CONTROL 0x10
#define BC_ACK 0x14       /* DPRAM handshake */
#define BC_MASK 0x18      /* interrupt enables */
#define BC_INTSTAT 0x1C   /* interrupt status; write 1s to clear */
#define BC_TIME0 0x30
#define BC_TIME1 0x34
#define BC_EVENT0 0x38
#define BC_EVENT1 0x3C

/* CONTROL */
#define BC_CTL_LOCKEN 0x01    /* hold EVENT0/1 after a capture until UNLOCK */
#define BC_CTL_EVSOURCE 0x02  /* event capture from the periodic (heartbeat) output, not the EVENT input */
#define BC_CTL_EVSENSE 0x04   /* capture on the falling edge */
#define BC_CTL_EVENTEN 0x08   /* event capture on */

/* MASK and INTSTAT */
#define BC_INT_EVENT 0x01     /* event captured */
#define BC_INT_PERIODIC 0x02  /* heartbeat edge */
#define BC_INT_STROBE 0x04
#define BC_INT_1PPS 0x08
#define BC_INT_DPRAM 0x10     /* DPRAM output data ready */

/* ACK: the host writes 0x01 to clear the ready bit, 0x80 to hand the card a
 * command; the card sets bit 0 when it is done with it */
#define BC_ACK_CLEAR 0x01
#define BC_ACK_COMMAND 0x80
#define BC_ACK_DONE 0x01

/* TIME0 / EVENT0 in binary format: microseconds, the 100 ns digit, status */
#define BC_T0_USEC_MASK 0x000fffff
#define BC_T0_100NS_SHIFT 20
#define BC_T0_100NS_MASK 0xf
#define BC_T0_FLYWHEEL 0x01000000      /* not tracking the reference */
#define BC_T0_TIME_OFFSET 0x02000000   /* time offset beyond the card's threshold */
#define BC_T0_FREQ_OFFSET 0x04000000   /* frequency offset beyond the card's threshold */

/* DPRAM: 4 KiB; the little-endian 16-bit words at 0xFFE and 0xFFC give the
 * offsets of the input area (host to card) and the output area (card to host) */
#define BC_DPRAM_SIZE 4096
#define BC_DP_INPUT_PTR 0xFFE
#define BC_DP_OUTPUT_PTR 0xFFC
#define BC_DP_AREA_MAX 128

/* commands (first byte of the input area) */
#define BC_CMD_TIMING_MODE 0x10   /* 1 byte: mode */
#define BC_CMD_TIME_FORMAT 0x11   /* 1 byte: 0 decimal, 1 binary */
#define BC_CMD_PERIODIC 0x14      /* 1 byte sync-to-1PPS, u16 n1, u16 n2 (little endian): 1 MHz / (n1 n2) */
#define BC_CMD_REQUEST 0x19       /* 1 byte: what; the answer in the output area */

#define BC_MODE_GPS 0x06
#define BC_FORMAT_BINARY 0x01
#define BC_REQ_MODEL 0x0A
#define BC_REQ_SERIAL 0x0F
#define BC_REQ_FIRMWARE 0x06

#endif
