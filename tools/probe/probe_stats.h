/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receiver's accounting, shared by `recv` and `analyze`: per flow, the
 * sequence bookkeeping (lost, duplicated, reordered), the latency
 * L = t2 - start(frame), t2 - t1 and the inter-packet time in linear
 * histograms, and a bounded time series of the inter-packet times. Pure: the
 * caller hands in frames and their arrival times; output is text, JSON and CSV.
 */
#ifndef TDP_PROBE_STATS_H
#define TDP_PROBE_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "probe_pkt.h"

/* Linear histogram: bins of bin_ns from 0, an underflow count (negative
 * values) and an overflow count (range and above). min, max and the sum see
 * every value. */
struct lhist {
	int64_t bin_ns;
	uint32_t nbins;
	uint64_t *bin;
	uint64_t count, under, over;
	int64_t min, max;
	double sum;
};

/* At most this many bins: 80 MB per histogram. */
#define LHIST_MAX_BINS 10000000

/* 0, or -EINVAL unless 0 < bin_ns <= range_ns and the range holds at most LHIST_MAX_BINS bins. */
int lhist_init(struct lhist *h, int64_t bin_ns, int64_t range_ns);
void lhist_free(struct lhist *h);
void lhist_add(struct lhist *h, int64_t v);
/* The smallest bin upper edge below which at least q of the values lie,
 * clamped to [min, max]; under- and overflows answer min and max. 0 when empty. */
int64_t lhist_quantile(const struct lhist *h, double q);
double lhist_mean(const struct lhist *h);

/* The percentiles every report shows. */
#define PROBE_NPCT 7
extern const double probe_pct[PROBE_NPCT];
extern const char *const probe_pct_name[PROBE_NPCT];

enum probe_ts {
	PROBE_TS_HW,
	PROBE_TS_SW,
	PROBE_TS_USER,
	PROBE_TS_CAPTURE,
	PROBE_TS_N
};
const char *probe_ts_name(enum probe_ts t);

struct probe_rx_cfg {
	uint16_t port;	       /* UDP port of the probes, 0: any */
	int64_t bin_ns;	       /* histogram bin */
	int64_t range_ns;      /* histogram range, overflow above */
	int64_t series_ns;     /* first bucket width of the time series */
	uint32_t delay_frames; /* expected frames between send and arrival */
	/* the plan's alpha per hop (frames from the previous node's frame to
	 * this hop's); plan_hops 0: no plan to check the hop stamps against */
	uint32_t plan_alpha[PROBE_MAX_HOPS];
	uint32_t plan_hops;
	bool keep_records; /* for CSV */
};

struct probe_bucket {
	int64_t t0;	  /* since the flow's first packet */
	uint64_t n, nipt; /* packets, and those with an inter-packet time */
	int64_t ipt_min, ipt_max, lat_min, lat_max;
	double ipt_sum, lat_sum;
};

#define PROBE_SEQ_WINDOW 65536u
#define PROBE_SERIES_MAX 2048u

/* What the hop stamps say about one hop of a flow. Alphas from PROBE_ALPHA_LO
 * on are counted one by one; the rest in alpha_other. */
#define PROBE_ALPHA_LO (-4)
#define PROBE_ALPHA_N 36
struct probe_hop {
	uint64_t n;    /* probes with this hop's stamp */
	uint16_t node; /* the latest stamp's node id */
	uint64_t node_changes;
	uint64_t late;	   /* flagged: the hop sent it late, under its late policy */
	uint64_t off_plan; /* measured alpha other than planned */
	uint64_t alpha[PROBE_ALPHA_N], alpha_other;
	struct lhist push; /* push time - start of its frame at this hop */
	struct lhist leg;  /* previous node's push (the sender's t1) to this hop's push */
};

/* A probe that left a hop in another frame than the plan gives it. */
struct probe_offplan {
	uint64_t seq;
	uint8_t hop; /* 1-based */
	uint8_t late;
	int32_t planned, measured;
};
#define PROBE_OFFPLAN_KEEP 10

struct probe_flow {
	uint32_t id;
	uint32_t tf_ns, epoch_ns;
	uint64_t received; /* distinct sequence numbers */
	uint64_t dup, reordered, stale, oof, early;
	uint64_t next; /* highest sequence number seen + 1 */
	uint64_t sent; /* from the sender's end packet */
	bool end;
	uint64_t geometry_changes;
	int64_t first_t2, last_t2;
	uint64_t *seen; /* PROBE_SEQ_WINDOW bits */
	struct lhist lat, transit, ipt;
	struct probe_hop *hop; /* PROBE_MAX_HOPS, made at the first stamp */
	uint32_t nhops;	       /* most stamps seen on one probe */
	uint64_t hops_short;   /* probes with fewer stamps than the plan has hops */
	uint64_t off_plan;     /* probes off plan at one hop or more */
	struct probe_offplan offplan[PROBE_OFFPLAN_KEEP];
	uint32_t noffplan;
	struct lhist last_leg; /* the last hop's push to arrival */
	struct probe_bucket *series;
	uint32_t nseries;
	int64_t series_ns;
};

struct probe_rec {
	uint32_t flow;
	uint8_t hops;
	struct probe_stamp stamp[PROBE_MAX_HOPS];
	uint64_t seq;
	int64_t frame, t1, t2, lat, transit, ipt;
};

struct probe_rx {
	struct probe_rx_cfg cfg;
	struct probe_flow *flows;
	uint32_t nflows, cap;
	uint64_t frames, probes, ends, be, be_bytes;
	uint64_t foreign, shortp, malformed, flows_over;
	uint64_t ts[PROBE_TS_N];
	int64_t first_t2, last_t2;
	struct probe_rec *rec;
	uint64_t nrec, reccap, rec_lost;
};

#define PROBE_MAX_FLOWS 256

/* 0, or -EINVAL when the histogram or series settings are out of range (as lhist_init). */
int probe_rx_init(struct probe_rx *rx, const struct probe_rx_cfg *c);
void probe_rx_free(struct probe_rx *rx);
/* Accounts one received frame with arrival time t2 (CTR ns). Returns its verdict. */
enum probe_verdict probe_rx_packet(struct probe_rx *rx, const uint8_t *frame, uint32_t len,
				   int64_t t2, enum probe_ts ts);

/* Lost probes of a flow: what the sender says it sent (or the highest
 * sequence number + 1 without its end packet) minus the distinct received. */
uint64_t probe_flow_lost(const struct probe_flow *f);
/* Flows whose end packet has arrived. */
uint32_t probe_rx_ended(const struct probe_rx *rx);

/* Strings for the JSON header, all optional. */
struct probe_meta {
	const char *label, *source, *where, *timestamps, *coalescing, *rt;
};

/* One line for the live view (no newline). */
void probe_rx_line(const struct probe_rx *rx, char *buf, size_t len, double secs);
void probe_rx_text(FILE *f, const struct probe_rx *rx);
void probe_rx_json(FILE *f, const struct probe_rx *rx, const struct probe_meta *m);
int probe_rx_csv(FILE *f, const struct probe_rx *rx);

#endif
