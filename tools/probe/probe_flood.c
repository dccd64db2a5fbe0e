/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdp-probe flood: best-effort load at a given rate (or as fast as the port
 * takes it) with fixed, ranged or listed frame sizes. The frames are probe
 * packets of kind best-effort, so a receiver counts them apart from the probes.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "probe_net.h"
#include "tdp_probe.h"
#include "hostclock.h"

#define FLOOD_SIZES 16

static void flood_usage(FILE *o)
{
	fprintf(o, "usage: tdp-probe flood (-i IF | --dpdk DEV) [--rate RATE|line] [--size SIZES] "
		   "[--count N | --duration TIME]\n"
		   "Best-effort load: frames of kind best-effort that receivers count apart from "
		   "the probes.\n\n"
		   "  --rate RATE        bit/s on the wire (preamble, FCS and gap included), e.g. "
		   "200Mbit/s;\n"
		   "                     'line' sends as fast as the port takes them (default "
		   "100Mbit/s)\n"
		   "  --size SIZES       frame sizes without FCS: 1500, a range 64-1500 (uniform), "
		   "or a list\n"
		   "                     64,576,1500 used in turn (default 1500)\n"
		   "  --count N, --duration TIME   when to stop (default 10s)\n"
		   "  --dst IP, --src IP, --dst-mac MAC, --dport N (default 7351), --dscp N, --ttl "
		   "N, --seed N\n");
}

int probe_cmd_flood(int argc, char **argv)
{
	enum {
		O_DPDK = 256,
		O_RATE,
		O_SIZE,
		O_COUNT,
		O_DUR,
		O_DST,
		O_SRC,
		O_DMAC,
		O_DPORT,
		O_DSCP,
		O_TTL,
		O_SEED
	};
	static const struct option lo[] = {
		{"interface", 1, 0, 'i'}, {"dpdk", 1, 0, O_DPDK},   {"rate", 1, 0, O_RATE},
		{"size", 1, 0, O_SIZE},	  {"count", 1, 0, O_COUNT}, {"duration", 1, 0, O_DUR},
		{"dst", 1, 0, O_DST},	  {"src", 1, 0, O_SRC},	    {"dst-mac", 1, 0, O_DMAC},
		{"dport", 1, 0, O_DPORT}, {"dscp", 1, 0, O_DSCP},   {"ttl", 1, 0, O_TTL},
		{"seed", 1, 0, O_SEED},	  {"help", 0, 0, 'h'},	    {0, 0, 0, 0}};
	const char *ifname = NULL, *dpdk = NULL, *sizes = "1500", *dmac = NULL;
	uint64_t rate = 100000000, count = 0, dur = 0, dport = PROBE_DEFAULT_PORT + 1, dscp = 0,
		 ttl = 64, seed = 1;
	bool line = false, have_src = false;
	struct probe_addr a = {.family = 4, .sport = PROBE_DEFAULT_PORT, .vlan = -1};
	uint8_t sfam = 4;
	static const uint8_t s4[4] = {192, 0, 2, 1}, d4[4] = {192, 0, 2, 2};
	memcpy(a.src, s4, 4);
	memcpy(a.dst, d4, 4);
	int c, bad = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:h", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			ifname = optarg;
			break;
		case O_DPDK:
			dpdk = optarg;
			break;
		case O_RATE:
			if (!strcmp(optarg, "line"))
				line = true;
			else
				bad |= probe_opt_rate("--rate", optarg, &rate);
			break;
		case O_SIZE:
			sizes = optarg;
			break;
		case O_COUNT:
			bad |= probe_opt_uint("--count", optarg, 1, UINT64_MAX, &count);
			break;
		case O_DUR:
			bad |= probe_opt_time("--duration", optarg, &dur);
			break;
		case O_DST:
			bad |= probe_opt_ip("--dst", optarg, &a.family, a.dst);
			break;
		case O_SRC:
			bad |= probe_opt_ip("--src", optarg, &sfam, a.src);
			have_src = true;
			break;
		case O_DMAC:
			dmac = optarg;
			break;
		case O_DPORT:
			bad |= probe_opt_uint("--dport", optarg, 1, 65535, &dport);
			break;
		case O_DSCP:
			bad |= probe_opt_uint("--dscp", optarg, 0, 63, &dscp);
			break;
		case O_TTL:
			bad |= probe_opt_uint("--ttl", optarg, 1, 255, &ttl);
			break;
		case O_SEED:
			bad |= probe_opt_uint("--seed", optarg, 0, UINT32_MAX, &seed);
			break;
		case 'h':
			flood_usage(stdout);
			return 0;
		default:
			bad = 1;
		}
	}
	if (!bad && !ifname == !dpdk) {
		fprintf(stderr, "tdp-probe: flood: give one of -i IF or --dpdk DEV\n");
		bad = 1;
	}
	if (!bad && a.family == 6 && !have_src) {
		memset(a.src, 0, 16);
		a.src[0] = 0xfe, a.src[1] = 0x80, a.src[15] = 1;
		sfam = 6;
	}
	if (!bad && sfam != a.family) {
		fprintf(stderr,
			"tdp-probe: flood: --src and --dst are of different address families\n");
		bad = 1;
	}
	/* sizes: N, A-B or a list */
	unsigned sz[FLOOD_SIZES], nsz = 0, lo_sz = 0, hi_sz = 0;
	if (!bad) {
		unsigned x, y;
		char tail;
		if (sscanf(sizes, "%u-%u%c", &x, &y, &tail) == 2 && x <= y) {
			lo_sz = x, hi_sz = y;
			sz[nsz++] = x;
			sz[nsz++] = y;
		} else {
			char *dup = strdup(sizes), *save = NULL;
			for (char *t = strtok_r(dup, ",", &save); t && !bad;
			     t = strtok_r(NULL, ",", &save)) {
				uint64_t v;
				if (nsz == FLOOD_SIZES) {
					fprintf(stderr, "tdp-probe: --size: at most %d sizes\n",
						FLOOD_SIZES);
					bad = 1;
				} else if (probe_opt_uint("--size", t, 1, PROBE_MAX_SIZE, &v)) {
					bad = 1;
				} else {
					sz[nsz++] = (unsigned)v;
				}
			}
			free(dup);
		}
		unsigned minsz = probe_min_be_size(a.family, false);
		for (unsigned i = 0; i < nsz && !bad; i++)
			if (sz[i] < minsz || sz[i] > PROBE_MAX_SIZE) {
				fprintf(stderr, "tdp-probe: --size %u is outside %u..%u\n", sz[i],
					minsz, PROBE_MAX_SIZE);
				bad = 1;
			}
	}
	if (bad) {
		fprintf(stderr, "Try 'tdp-probe flood --help'.\n");
		return 2;
	}
	if (!count && !dur)
		dur = 10 * TDP_NS_PER_S;
	char err[256];
	struct probe_txq *q = dpdk ? probe_txq_dpdk(dpdk, -1, err, sizeof(err))
				   : probe_txq_packet(ifname, err, sizeof(err));
	if (!q) {
		fprintf(stderr, "tdp-probe: %s\n", err);
		return 1;
	}
	memcpy(a.src_mac, q->mac, 6);
	memset(a.dst_mac, 0xff, 6);
	if (dmac && probe_parse_mac(dmac, a.dst_mac)) {
		fprintf(stderr, "tdp-probe: --dst-mac: '%s' is not a MAC address\n", dmac);
		q->close(q);
		return 2;
	}
	a.dport = (uint16_t)dport;
	a.dscp = (uint8_t)dscp;
	a.ttl = (uint8_t)ttl;
	/* one template per size; a range keeps 16 sizes spread across it */
	static struct probe_tmpl t[FLOOD_SIZES];
	if (hi_sz) {
		nsz = FLOOD_SIZES;
		for (unsigned i = 0; i < nsz; i++)
			sz[i] = lo_sz + (unsigned)((uint64_t)(hi_sz - lo_sz) * i / (nsz - 1));
	}
	struct probe_hdr h = {.kind = PROBE_K_BE, .flow = 0, .tf_ns = 1};
	for (unsigned i = 0; i < nsz; i++)
		probe_build(&t[i], &a, sz[i], &h);
	struct hostclock clk;
	if (hostclock_init(&clk, HC_CLOCK_AUTO, HC_UTC_TAI_DEFAULT_S, HC_FAST_AUTO, err,
			   sizeof(err))) {
		fprintf(stderr, "tdp-probe: clock: %s\n", err);
		q->close(q);
		return 1;
	}
	probe_on_signals();
	uint32_t rnd = (uint32_t)seed;
	uint64_t sent = 0, bytes = 0, errors = 0, seq = 0;
	tdp_time_t t0 = hostclock_now(&clk), due = t0;
	while (!probe_stop && (!count || sent < count)) {
		tdp_time_t now = hostclock_fast_now(&clk);
		if (dur && tdp_time_diff(now, t0) >= (int64_t)dur)
			break;
		if (tdp_time_diff(now, due) > 10000000)
			due = now; /* after a stall, no catch-up burst */
		if (!line && tdp_time_before(now, due)) {
			if (tdp_time_diff(due, now) > 50000)
				hostclock_sleep_until(&clk, due);
			continue;
		}
		unsigned n = 16;
		if (count && count - sent < n)
			n = (unsigned)(count - sent);
		uint64_t wire = 0;
		for (unsigned i = 0; i < n; i++) {
			rnd = rnd * 1103515245u + 12345u;
			unsigned k = hi_sz ? (rnd >> 16) % nsz : (unsigned)(seq % nsz);
			if (q->prepare(q, i, &t[k])) {
				/* no buffer (a DPDK pool ran dry): send what is ready */
				errors += n - i;
				n = i;
				break;
			}
			if (t[k].len >= (uint32_t)t[k].hdr_off + PROBE_HDR_LEN)
				probe_stamp(&t[k], q->slot(q, i), (uint32_t)seq, 0, 0);
			seq++;
			wire += t[k].len + 24;
		}
		if (!n)
			continue;
		int r = q->send(q, n);
		if (r < 0) {
			errors += n;
		} else {
			sent += (uint64_t)r;
			errors += n - (unsigned)r;
			bytes += wire * (unsigned)r / n;
		}
		if (!line)
			due = tdp_time_add(due, (int64_t)(wire * 8 * TDP_NS_PER_S / rate));
	}
	double secs = (double)tdp_time_diff(hostclock_now(&clk), t0) / 1e9;
	fprintf(stderr,
		"tdp-probe flood: %" PRIu64 " frames, %" PRIu64
		" errors, %.1f Mbit/s on the wire over %.2f s\n",
		sent, errors, secs > 0 ? (double)bytes * 8 / secs / 1e6 : 0.0, secs);
	q->close(q);
	return sent ? 0 : 1;
}
