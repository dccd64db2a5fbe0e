/* SPDX-License-Identifier: BSD-3-Clause */
/* The bc635PCI-U register map and DPRAM command set. Each fact of the DPRAM
 * carries its public source (drivers/gps-bc635/README.md lists them). */
#ifndef BC635_REGS_H
#define BC635_REGS_H

#define BC635_VENDOR 0x12e2
#define BC635_DEVICE 0x4013

/* registers (32-bit) */
#define BC_TIMEREQ \
	0x00 /* latch the time into TIME0/1 (a read in btfp.c 362, a write in LIGO's driver) */
#define BC_EVENTREQ 0x04 /* latch the time into EVENT0/1 (a software event) */
#define BC_UNLOCK \
	0x08 /* a read releases the EVENT registers after a capture (btfp.h 361, btfp.c 931) */
#define BC_CONTROL 0x10
#define BC_ACK 0x14	/* DPRAM handshake */
#define BC_MASK 0x18	/* interrupt enables */
#define BC_INTSTAT 0x1C /* interrupt status; write 1s to clear */
#define BC_TIME0 0x30
#define BC_TIME1 0x34
#define BC_EVENT0 0x38
#define BC_EVENT1 0x3C

/* CONTROL (btfp.h 363-402): bits 0-3 the event capture; bits 4-7 the strobe
 * (enable, mode) and the frequency output's select, which are the card's
 * outputs and not the driver's to change; the rest reserved. Read, modify,
 * write. */
#define BC_CTL_LOCKEN 0x01 /* hold EVENT0/1 after a capture until UNLOCK */
#define BC_CTL_EVSOURCE \
	0x02 /* event capture from the periodic (heartbeat) output, not the EVENT input */
#define BC_CTL_EVSENSE 0x04 /* capture on the falling edge */
#define BC_CTL_EVENTEN 0x08 /* event capture on */
#define BC_CTL_EVENT_BITS 0x0f
#define BC_CTL_STREN 0x10
#define BC_CTL_STRMODE 0x20
#define BC_CTL_FREQSEL 0xc0

/* MASK and INTSTAT (btfp.h 421-432); INTSTAT bits are cleared by writing 1
 * (btfp.c 463-487). The interrupt is a level-triggered INTx: asserted while
 * INTSTAT & MASK is not 0. */
#define BC_INT_EVENT 0x01    /* event captured */
#define BC_INT_PERIODIC 0x02 /* heartbeat edge */
#define BC_INT_STROBE 0x04
#define BC_INT_1PPS 0x08
#define BC_INT_GPSPKT 0x10 /* a GPS packet from the receiver (bc637; the SDK's INT_DPA) */
#define BC_INT_ALL 0x1f
/* the second generation (PCI revision 0x20-0x2F) adds two event inputs
 * (BC637PCI.h v10: INT_EVENT2, INT_EVENT3, BC_PCI_V2_REV_ID_START/END) */
#define BC_INT_EVENT2 0x20
#define BC_INT_EVENT3 0x40
#define BC_REV_V1 0x12
#define BC_REV_V2_FIRST 0x20
#define BC_REV_V2_LAST 0x2f

/* ACK: the host writes 0x01 to clear the ready bit, 0x80 to hand the card a
 * command; the card sets bit 0 when it is done with it */
#define BC_ACK_CLEAR 0x01
#define BC_ACK_COMMAND 0x80
#define BC_ACK_DONE 0x01

/* TIME0 / EVENT0 in binary format: microseconds, the 100 ns digit, status */
#define BC_T0_USEC_MASK 0x000fffff
#define BC_T0_100NS_SHIFT 20
#define BC_T0_100NS_MASK 0xf
#define BC_T0_FLYWHEEL 0x01000000    /* not tracking the reference */
#define BC_T0_TIME_OFFSET 0x02000000 /* time offset beyond the card's threshold */
#define BC_T0_FREQ_OFFSET 0x04000000 /* frequency offset beyond the card's threshold */

/*
 * DPRAM: 4 KiB on the first generation (PCI revision 0x12, in BAR1), 2 KiB on
 * the second (revisions 0x20-0x2F, PCIe, in BAR3; registers in BAR2: LIGO's
 * symmetricomGps.c maps BAR2 and BAR3). At its top, 16-bit offsets of the
 * areas, most significant byte first: the input area (host to card) at
 * top-2/top-1, usually 0x0102, and the output area (card to host) at
 * top-4/top-3, usually 0x0082 (btfp.h 206-216; btfp.c 317-335, which reads
 * byte[top-2] << 8 | byte[top-1]; LIGO's driver finds the same areas at 0x102
 * and 0x82 of BAR3). The DPRAM is read and written a byte at a time (btfp.h).
 */
#define BC_DPRAM_SIZE_V1 4096
#define BC_DPRAM_SIZE_V2 2048
#define BC_DPRAM_MAX 4096
#define BC_DP_INPUT_PTR(top) ((top)-2u)	 /* MSB; LSB at top-1 */
#define BC_DP_OUTPUT_PTR(top) ((top)-4u) /* MSB; LSB at top-3 */
#define BC_DP_AREA_MAX 128

/* 1 or 2 from the PCI revision; 0 for one no public source names */
static inline int bc635_generation(unsigned rev)
{
	return rev == BC_REV_V1 ? 1 : rev >= BC_REV_V2_FIRST && rev <= BC_REV_V2_LAST ? 2 : 0;
}

/* Where a generation has its registers and its DPRAM (btfp.c 249-266: BAR0
 * and BAR1; LIGO's symmetricomGps.c: BAR2 and BAR3) and how large that is. */
struct bc635_bars_of {
	int reg_bar, dp_bar;
	unsigned dp_size;
};
static inline struct bc635_bars_of bc635_bars_of(int generation)
{
	return generation == 2 ? (struct bc635_bars_of){2, 3, BC_DPRAM_SIZE_V2}
			       : (struct bc635_bars_of){0, 1, BC_DPRAM_SIZE_V1};
}

/* commands (first byte of the input area) */
#define BC_CMD_TIMING_MODE 0x10 /* 1 byte: mode */
#define BC_CMD_TIME_FORMAT 0x11 /* 1 byte: 0 decimal, 1 binary */
/* 1 byte sync-to-1PPS, then n1 and n2 as 16-bit big-endian words: a
 * heartbeat of 1 MHz / (n1 n2) (btfp_test.c 146 reads them back with
 * be16toh) */
#define BC_CMD_PERIODIC 0x14
#define BC_CMD_REQUEST 0x19 /* 1 byte: what; the answer in the output area */
/* the time scale: 0x33 0 = UTC, 1 = GPS time (UTC + leap seconds), bc637
 * (btfp.h 341-343; btfp.c 385-390); 0x40 0 = do not observe the local time
 * offset of 0x1D (btfp.h 323, 347-349) */
#define BC_CMD_GPS_TIMEFMT 0x33
#define BC_GPS_TIMEFMT_UTC 0x00
#define BC_GPS_TIMEFMT_GPS 0x01
#define BC_CMD_OBS_LOCAL 0x40
#define BC_OBS_LOCAL_OFF 0x00

/* timing modes (BC637PCI.h v10: MODE_IRIG 0, MODE_FREE 1, MODE_1PPS 2,
 * MODE_RTC 3, MODE_GPS 6): GPS only on the bc637 (btfp.c 29-31, 1118-1122),
 * whose model reply has '7' as its fifth character (btfp.c 348-352; the
 * SDK's ManufData: model5 '5' or '7') */
#define BC_MODE_TIMECODE 0x00
#define BC_MODE_FREE 0x01
#define BC_MODE_EXT_1PPS 0x02
#define BC_MODE_RTC 0x03
#define BC_MODE_GPS 0x06
#define BC_FORMAT_BINARY 0x01

/* 0x19 sub-codes. The answer echoes the sub-code in the output area's first
 * byte and has a fixed length, that byte included, with no terminator
 * (btfp.h 308-312; btfp.c 995-1019) */
#define BC_REQ_MODEL 0xF6 /* 8 ASCII bytes, "BC635PCI" or "BC637PCI" */
#define BC_REQ_MODEL_LEN 9
#define BC_REQ_SERIAL 0xFE /* a 32-bit big-endian number */
#define BC_REQ_SERIAL_LEN 5
#define BC_REQ_FIRMWARE 0x4F /* 11 ASCII bytes (the PCI firmware revision) */
#define BC_REQ_FIRMWARE_LEN 12

#endif
