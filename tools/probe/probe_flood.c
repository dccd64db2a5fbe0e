/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdp-probe flood: best-effort load at a given rate (or as fast as the port
 * takes it) with fixed, ranged or listed frame sizes. The frames are probe
 * packets of kind best-effort, so a receiver counts them apart from the probes.
 * --flows spreads them over source ports, so that RSS spreads them over a
 * router's RX queues.
 */
#include <errno.h>
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
#define FLOOD_FLOWS 1024

struct flood_opts {
	const char *ifname, *dpdk, *rate_s, *sizes, *dmac;
	uint64_t count, dur, dport, dscp, ttl, seed, flows;
	struct probe_addr a; /* --dst into it; --src too, its family apart */
	uint8_t sfam;
	bool have_src;
};

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
		   "  --flows N          UDP source ports 7350 to 7350+N-1 in turn, so that RSS "
		   "spreads\n"
		   "                     the frames over a receiver's queues (default 1, at most "
		   "1024)\n"
		   "  --dst IP, --src IP, --dst-mac MAC, --dport N (default 7351), --dscp N, --ttl "
		   "N, --seed N\n");
}

struct flood_sizes {
	unsigned sz[FLOOD_SIZES], n;
	unsigned lo, hi; /* a range A-B: its ends; hi 0: a list */
};

/* --size: N, A-B or a list, each within what best effort of the family can
 * be: 0, or -1 (said) */
static int flood_sizes(const char *spec, uint8_t family, struct flood_sizes *fs)
{
	unsigned x, y;
	char tail;
	int bad = 0;
	if (sscanf(spec, "%u-%u%c", &x, &y, &tail) == 2 && x <= y) {
		fs->lo = x, fs->hi = y;
		fs->sz[fs->n++] = x;
		fs->sz[fs->n++] = y;
	} else {
		char *dup = strdup(spec), *save = NULL;
		for (char *t = strtok_r(dup, ",", &save); t && !bad;
		     t = strtok_r(NULL, ",", &save)) {
			uint64_t v;
			if (fs->n == FLOOD_SIZES) {
				fprintf(stderr, "tdp-probe: --size: at most %d sizes\n",
					FLOOD_SIZES);
				bad = 1;
			} else if (probe_opt_uint("--size", t, 1, PROBE_MAX_SIZE, &v)) {
				bad = 1;
			} else {
				fs->sz[fs->n++] = (unsigned)v;
			}
		}
		free(dup);
	}
	unsigned minsz = probe_min_be_size(family, false);
	for (unsigned i = 0; i < fs->n && !bad; i++)
		if (fs->sz[i] < minsz || fs->sz[i] > PROBE_MAX_SIZE) {
			fprintf(stderr, "tdp-probe: --size %u is outside %u..%u\n", fs->sz[i],
				minsz, PROBE_MAX_SIZE);
			bad = 1;
		}
	return bad ? -1 : 0;
}

struct flood_count {
	uint64_t sent, bytes, errors;
};

/* Frames from the templates t (one per size of fs) on q, at rate or at line
 * rate, from t0 until stopped, the duration or the count. */
static void flood_run(const struct flood_opts *o, bool line, uint64_t rate,
		      const struct flood_sizes *fs, struct probe_tmpl *t, struct probe_txq *q,
		      struct hostclock *clk, tdp_time_t t0, struct flood_count *c)
{
	uint32_t rnd = (uint32_t)o->seed;
	uint64_t seq = 0;
	tdp_time_t due = t0;
	while (!probe_stop && (!o->count || c->sent < o->count)) {
		tdp_time_t now = hostclock_fast_now(clk);
		if (o->dur && tdp_time_diff(now, t0) >= (int64_t)o->dur)
			break;
		if (tdp_time_diff(now, due) > 10000000)
			due = now; /* after a stall, no catch-up burst */
		if (!line && tdp_time_before(now, due)) {
			if (tdp_time_diff(due, now) > 50000)
				hostclock_sleep_until(clk, due);
			continue;
		}
		unsigned n = 16;
		if (o->count && o->count - c->sent < n)
			n = (unsigned)(o->count - c->sent);
		uint64_t wire = 0;
		for (unsigned i = 0; i < n; i++) {
			rnd = rnd * 1103515245u + 12345u;
			unsigned k = fs->hi ? (rnd >> 16) % fs->n : (unsigned)(seq % fs->n);
			k = k * (unsigned)o->flows + (unsigned)(seq % o->flows);
			if (q->prepare(q, i, &t[k])) {
				/* no buffer (a DPDK pool ran dry): send what is ready */
				c->errors += n - i;
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
			c->errors += n;
		} else {
			c->sent += (uint64_t)r;
			c->errors += n - (unsigned)r;
			c->bytes += wire * (unsigned)r / n;
		}
		if (!line)
			due = tdp_time_add(due, (int64_t)(wire * 8 * TDP_NS_PER_S / rate));
	}
}

/* The frames to send: one per size and flow (size i, flow f at i * flows
 * + f), a range keeping 16 sizes spread across it; NULL, said, without
 * memory. */
static struct probe_tmpl *flood_templates(const struct flood_opts *o, struct flood_sizes *fs)
{
	if (fs->hi) {
		fs->n = FLOOD_SIZES;
		for (unsigned i = 0; i < fs->n; i++)
			fs->sz[i] =
				fs->lo + (unsigned)((uint64_t)(fs->hi - fs->lo) * i / (fs->n - 1));
	}
	struct probe_tmpl *t = calloc(fs->n * o->flows, sizeof(*t));
	if (!t) {
		fprintf(stderr, "tdp-probe: no memory for %" PRIu64 " frame templates\n",
			fs->n * o->flows);
		return NULL;
	}
	struct probe_hdr h = {.kind = PROBE_K_BE, .flow = 0, .tf_ns = 1};
	struct probe_addr a = o->a;
	for (unsigned i = 0; i < fs->n; i++)
		for (unsigned f = 0; f < o->flows; f++) {
			a.sport = (uint16_t)(o->a.sport + f);
			probe_build(&t[i * o->flows + f], &a, fs->sz[i], &h);
		}
	return t;
}

int probe_cmd_flood(int argc, char **argv)
{
	struct flood_opts o = {.sizes = "1500",
			       .dport = PROBE_DEFAULT_PORT + 1,
			       .ttl = 64,
			       .seed = 1,
			       .flows = 1,
			       .a = {.family = 4, .sport = PROBE_DEFAULT_PORT, .vlan = -1},
			       .sfam = 4};
	static const uint8_t s4[4] = {192, 0, 2, 1}, d4[4] = {192, 0, 2, 2};
	memcpy(o.a.src, s4, 4);
	memcpy(o.a.dst, d4, 4);
#define FO(f) offsetof(struct flood_opts, f)
	static const struct probe_opt opts[] = {
		{PO_ROW("interface", 'i', PO_STR, FO(ifname))},
		{PO_ROW("dpdk", 0, PO_STR, FO(dpdk))},
		{PO_ROW("rate", 0, PO_STR, FO(rate_s))},
		{PO_ROW("size", 0, PO_STR, FO(sizes))},
		{PO_ROW("count", 0, PO_UINT, FO(count)), .min = 1, .max = UINT64_MAX},
		{PO_ROW("duration", 0, PO_TIME, FO(dur))},
		{PO_ROW("dst", 0, PO_IP, FO(a.dst)), .off2 = FO(a.family)},
		{PO_ROW("src", 0, PO_IP, FO(a.src)), .seen = PO_SEEN(struct flood_opts, have_src),
		 .off2 = FO(sfam)},
		{PO_ROW("dst-mac", 0, PO_STR, FO(dmac))},
		{PO_ROW("dport", 0, PO_UINT, FO(dport)), .min = 1, .max = 65535},
		{PO_ROW("dscp", 0, PO_UINT, FO(dscp)), .max = 63},
		{PO_ROW("ttl", 0, PO_UINT, FO(ttl)), .min = 1, .max = 255},
		{PO_ROW("seed", 0, PO_UINT, FO(seed)), .max = UINT32_MAX},
		{PO_ROW("flows", 0, PO_UINT, FO(flows)), .min = 1, .max = FLOOD_FLOWS},
		{PO_ROW("help", 'h', PO_HELP, 0)},
		{.name = NULL},
	};
#undef FO
	int bad = probe_cmd_args(opts, &o, argc, argv, "flood", flood_usage, false);
	if (bad == 1)
		return 0;
	/* --rate: a rate, or line for the link's */
	uint64_t rate = 100000000;
	bool line = o.rate_s && !strcmp(o.rate_s, "line");
	if (o.rate_s && !line)
		bad |= probe_opt_rate("--rate", o.rate_s, &rate) != 0;
	if (!bad && !o.ifname == !o.dpdk)
		bad = probe_cmd_bad("flood", "give one of -i IF or --dpdk DEV");
	if (!bad && o.a.family == 6 && !o.have_src) {
		memset(o.a.src, 0, 16);
		o.a.src[0] = 0xfe, o.a.src[1] = 0x80, o.a.src[15] = 1;
		o.sfam = 6;
	}
	if (!bad && o.sfam != o.a.family)
		bad = probe_cmd_bad("flood", "--src and --dst are of different address families");
	struct flood_sizes fs = {0};
	if (!bad && flood_sizes(o.sizes, o.a.family, &fs))
		bad = 1;
	if (bad) {
		fprintf(stderr, "Try 'tdp-probe flood --help'.\n");
		return 2;
	}
	if (!o.count && !o.dur)
		o.dur = 10 * TDP_NS_PER_S;
	char err[256];
	struct probe_txq *q = o.dpdk ? probe_txq_dpdk(o.dpdk, -1, err, sizeof(err))
				     : probe_txq_packet(o.ifname, err, sizeof(err));
	if (!q) {
		fprintf(stderr, "tdp-probe: %s\n", err);
		return 1;
	}
	memcpy(o.a.src_mac, q->mac, 6);
	memset(o.a.dst_mac, 0xff, 6);
	if (o.dmac && probe_parse_mac(o.dmac, o.a.dst_mac)) {
		fprintf(stderr, "tdp-probe: --dst-mac: '%s' is not a MAC address\n", o.dmac);
		q->close(q);
		return 2;
	}
	o.a.dport = (uint16_t)o.dport;
	o.a.dscp = (uint8_t)o.dscp;
	o.a.ttl = (uint8_t)o.ttl;
	struct probe_tmpl *t = flood_templates(&o, &fs);
	if (!t) {
		q->close(q);
		return 1;
	}
	struct hostclock clk;
	if (hostclock_init(&clk, HC_CLOCK_AUTO, HC_UTC_TAI_DEFAULT_S, HC_FAST_AUTO, err,
			   sizeof(err))) {
		fprintf(stderr, "tdp-probe: clock: %s\n", err);
		free(t);
		q->close(q);
		return 1;
	}
	probe_on_signals();
	struct flood_count c = {0};
	tdp_time_t t0 = hostclock_now(&clk);
	flood_run(&o, line, rate, &fs, t, q, &clk, t0, &c);
	double secs = (double)tdp_time_diff(hostclock_now(&clk), t0) / 1e9;
	fprintf(stderr,
		"tdp-probe flood: %" PRIu64 " frames, %" PRIu64
		" errors, %.1f Mbit/s on the wire over %.2f s\n",
		c.sent, c.errors, secs > 0 ? (double)c.bytes * 8 / secs / 1e6 : 0.0, secs);
	free(t);
	q->close(q);
	return c.sent ? 0 : 1;
}
