/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe's wire format, the one definition that tdp-probe (which writes and
 * reads probes) and tdpd (which writes hop stamps into them) share. A probe is
 * Ethernet, IPv4 or IPv6, UDP, and a 32-byte probe header, all in network byte
 * order:
 *
 *   0  u16  magic 0x7470 ("tp")
 *   2  u8   version (1)
 *   3  u8   kind in bits 0-1 (probe, end, best effort), hop stamps written in
 *           bits 4-7, bits 2-3 zero
 *   4  u32  flow id
 *   8  u32  sequence number (per flow, from 0; the receiver extends it to 64 bits)
 *  12  u32  TF in ns
 *  16  u32  the table's epoch in ns (below k*TF, so below one second)
 *  20  i64  absolute frame index i the packet was scheduled in
 *  28  i32  t1 - start(i): the CTR time written just before the send, as its
 *           offset from the start of its frame
 *  32       hop stamps, 12 bytes each, as many as the UDP payload has room for
 *           (at most 15; tdp-probe send --stamps N makes room for N). Routers
 *           of flows with the table's `stamp` option write them just before
 *           their push:
 *             0 u16 node id (tdpd.conf node-id)
 *             2 u8  flags: bit 0 set when the packet missed its frame at that
 *                   hop and went out under the late policy (carried); bit 1
 *                   set when the push time is the launch time the NIC was
 *                   given (handed over launch-lead earlier)
 *             3 u8  0
 *             4 i32 frame sent in there, minus i
 *             8 i32 push time there minus the start of that frame, ns
 *
 * A best-effort frame needs only the first 4 bytes (magic, version, kind), so
 * a flood can use frames down to the Ethernet minimum of 60 bytes.
 */
#ifndef TDP_PROBE_WIRE_H
#define TDP_PROBE_WIRE_H

#define PROBE_MAGIC 0x7470
#define PROBE_VERSION 1
#define PROBE_HDR_LEN 32
#define PROBE_STAMP_LEN 12
#define PROBE_MAX_HOPS 15
#define PROBE_STAMP_LATE 0x01
#define PROBE_STAMP_LAUNCH 0x02

/* byte offsets in the probe header */
#define PROBE_OFF_MAGIC 0
#define PROBE_OFF_VERSION 2
#define PROBE_OFF_KIND 3 /* kind: bits 0-1; stamps written: bits 4-7 */
#define PROBE_OFF_FLOW 4
#define PROBE_OFF_SEQ 8
#define PROBE_OFF_TF 12
#define PROBE_OFF_EPOCH 16
#define PROBE_OFF_FRAME 20
#define PROBE_OFF_T1 28

#define PROBE_KIND_MASK 0x03u
#define PROBE_HOPS_SHIFT 4

enum probe_kind {
	PROBE_K_PROBE = 0,
	PROBE_K_END = 1,
	PROBE_K_BE = 2
};

#endif
