/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pcapng blocks on plain buffers, for `tdpctl capture`: a Section Header, an
 * Interface Description (Ethernet, nanosecond timestamps) and Enhanced
 * Packets with their direction, in the host's byte order as the format
 * allows (its byte-order magic says which). Block and option layouts from
 * the PCAP Next Generation Dump File Format (IETF opsawg draft, §4.1 SHB,
 * §4.2 IDB, §4.3 EPB, §3.5 options); tcpdump, tshark and Wireshark read it.
 */
#ifndef TDP_PCAPNG_H
#define TDP_PCAPNG_H

#include <stddef.h>
#include <stdint.h>

enum pcapng_dir {
	PCAPNG_DIR_NONE = 0,
	PCAPNG_DIR_IN = 1,
	PCAPNG_DIR_OUT = 2
};

/* Each writes one block into buf (cap bytes) and returns its length, or 0
 * when it does not fit. app: the writing program (shb_userappl); ifname: the
 * interface's name (if_name); snaplen: the most bytes kept of a packet;
 * ifid: the interface's index in the section (0 for the first IDB). */
size_t pcapng_shb(uint8_t *buf, size_t cap, const char *app);
size_t pcapng_idb(uint8_t *buf, size_t cap, const char *ifname, uint32_t snaplen);
size_t pcapng_epb(uint8_t *buf, size_t cap, uint32_t ifid, int64_t ts_ns, const uint8_t *data,
		  uint32_t caplen, uint32_t len, enum pcapng_dir dir);

#endif
