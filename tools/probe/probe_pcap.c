/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "probe_pcap.h"

#define SLL_HLEN 16
#define SLL2_HLEN 20

int probe_pcap_read(pcap_t *p, struct probe_rx *rx, int64_t add_ns, struct probe_pcap_info *info, char *err,
		    size_t errlen)
{
	memset(info, 0, sizeof(*info));
	info->linktype = pcap_datalink(p);
	if (info->linktype != DLT_EN10MB && info->linktype != DLT_LINUX_SLL && info->linktype != DLT_LINUX_SLL2) {
		snprintf(err, errlen, "link type %s is not Ethernet or Linux cooked capture",
			 pcap_datalink_val_to_name(info->linktype) ? pcap_datalink_val_to_name(info->linktype) : "?");
		return -1;
	}
	struct pcap_pkthdr *h;
	const u_char *d;
	static uint8_t buf[65536 + 14];
	int r;
	while ((r = pcap_next_ex(p, &h, &d)) == 1) {
		info->records++;
		int64_t t = (int64_t)h->ts.tv_sec * 1000000000 + h->ts.tv_usec + add_ns;  /* tv_usec holds ns */
		const uint8_t *frame = d;
		uint32_t len = h->caplen;
		if (info->linktype != DLT_EN10MB) {
			/* rebuild an Ethernet header from the cooked one's protocol field */
			uint32_t hl = info->linktype == DLT_LINUX_SLL ? SLL_HLEN : SLL2_HLEN;
			uint32_t po = info->linktype == DLT_LINUX_SLL ? 14 : 0;
			if (len < hl || len - hl > sizeof(buf) - 14) {
				info->unusable++;
				continue;
			}
			memset(buf, 0, 12);
			memcpy(buf + 12, d + po, 2);
			memcpy(buf + 14, d + hl, len - hl);
			frame = buf;
			len = len - hl + 14;
		}
		probe_rx_packet(rx, frame, len, t, PROBE_TS_CAPTURE);
	}
	if (r == -1) {
		snprintf(err, errlen, "%s", pcap_geterr(p));
		return -1;
	}
	return 0;
}
