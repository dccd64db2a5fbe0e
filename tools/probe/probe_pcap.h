/* SPDX-License-Identifier: BSD-3-Clause */
/* Probes from a packet capture (pcap or pcapng, Ethernet or Linux cooked). */
#ifndef TDP_PROBE_PCAP_H
#define TDP_PROBE_PCAP_H

#include <pcap/pcap.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe_stats.h"

struct probe_pcap_info {
	uint64_t records;  /* every record read */
	uint64_t unusable; /* records of a link type we cannot take apart */
	uint64_t bad_time; /* records whose time does not fit 64-bit nanoseconds */
	int linktype;
};

/*
 * Feeds every record of an open capture (opened with nanosecond precision)
 * to the receiver, each stamped with its capture time + add_ns. Returns 0, or
 * -1 with err set when the capture is unreadable or not of a usable link type.
 */
int probe_pcap_read(pcap_t *p, struct probe_rx *rx, int64_t add_ns, struct probe_pcap_info *info,
		    char *err, size_t errlen);

/*
 * Opens a capture once, a pipe or a FIFO included ("-": standard input), with
 * nanosecond precision, and says in fmt what it is (its first four bytes,
 * which are then given back to libpcap). *micro is set for a pcap with
 * microsecond timestamps. NULL with err set on failure.
 */
pcap_t *probe_pcap_open(const char *path, char *fmt, size_t fmtlen, bool *micro, char *err,
			size_t errlen);

#endif
