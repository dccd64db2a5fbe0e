/* SPDX-License-Identifier: BSD-3-Clause */
/* Probes from a packet capture (pcap or pcapng, Ethernet or Linux cooked). */
#ifndef TDP_PROBE_PCAP_H
#define TDP_PROBE_PCAP_H

#include <pcap/pcap.h>
#include <stddef.h>
#include <stdint.h>

#include "probe_stats.h"

struct probe_pcap_info {
	uint64_t records;     /* every record read */
	uint64_t unusable;    /* records of a link type we cannot take apart */
	int linktype;
};

/*
 * Feeds every record of an open capture (opened with nanosecond precision)
 * to the receiver, each stamped with its capture time + add_ns. Returns 0, or
 * -1 with err set when the capture is unreadable or not of a usable link type.
 */
int probe_pcap_read(pcap_t *p, struct probe_rx *rx, int64_t add_ns, struct probe_pcap_info *info, char *err,
		    size_t errlen);

#endif
