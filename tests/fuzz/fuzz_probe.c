/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for the probe decoder and the receiver's accounting: any
 * frame, at any arrival time, must be counted exactly once as a probe or as
 * foreign, short or malformed, without reading past it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe_stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probe_rx rx;
	static int ready;
	if (!ready) {
		struct probe_rx_cfg c = {.port = 0,
					 .bin_ns = 1000,
					 .range_ns = 1000000,
					 .series_ns = 1000000,
					 .keep_records = false};
		if (probe_rx_init(&rx, &c))
			abort();
		ready = 1;
	}
	if (size < 8)
		return 0;
	/* arrival times are clock readings: after 1970, well below 2^63 */
	uint64_t raw;
	memcpy(&raw, data, 8);
	int64_t t2 = (int64_t)(raw & ((1ull << 62) - 1));
	/* an exact copy, so reads past the end are caught */
	uint8_t *f = malloc(size - 8 ? size - 8 : 1);
	memcpy(f, data + 8, size - 8);
	uint64_t before =
		rx.probes + rx.ends + rx.be + rx.flows_over + rx.foreign + rx.shortp + rx.malformed;
	probe_rx_packet(&rx, f, (uint32_t)(size - 8), t2, PROBE_TS_SW);
	uint64_t after =
		rx.probes + rx.ends + rx.be + rx.flows_over + rx.foreign + rx.shortp + rx.malformed;
	/* a duplicate probe is counted among the probes too */
	if (after != before + 1)
		abort();
	struct probe_hdr h;
	if (probe_decode(f, (uint32_t)(size - 8), 0, &h) == PROBE_OK && h.hops > h.room)
		abort();
	free(f);
	return 0;
}
