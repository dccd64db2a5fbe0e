/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for `tdp-probe analyze`: any file handed to it as a
 * capture is read through libpcap and the probe accounting without a crash,
 * a leak or a read past a record.
 */
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "probe_pcap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	FILE *f = fmemopen((void *)data, size, "rb");
	if (!f)
		return 0;
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p) {
		fclose(f);
		return 0;
	}
	struct probe_rx rx;
	struct probe_rx_cfg c = {.port = 0,
				 .bin_ns = 1000,
				 .range_ns = 1000000,
				 .series_ns = 1000000,
				 .keep_records = true};
	if (probe_rx_init(&rx, &c))
		abort();
	struct probe_pcap_info info;
	char e2[256];
	probe_pcap_read(p, &rx, 37000000000LL, &info, e2, sizeof(e2));
	if (rx.frames + info.unusable + info.bad_time != info.records)
		abort();
	probe_rx_free(&rx);
	pcap_close(p); /* closes f */
	return 0;
}
