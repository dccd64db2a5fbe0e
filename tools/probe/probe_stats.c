/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "probe_stats.h"
#include "tdp_sched.h"
#include "tdp_names.h"

/* ---- linear histogram ----------------------------------------------------- */

int lhist_init(struct lhist *h, int64_t bin_ns, int64_t range_ns)
{
	memset(h, 0, sizeof(*h));
	if (bin_ns <= 0 || range_ns < bin_ns || range_ns / bin_ns > LHIST_MAX_BINS)
		return -EINVAL;
	h->bin_ns = bin_ns;
	h->nbins = (uint32_t)((range_ns + bin_ns - 1) / bin_ns);
	h->bin = calloc(h->nbins, sizeof(*h->bin));
	if (!h->bin)
		return -ENOMEM;
	h->min = INT64_MAX;
	h->max = INT64_MIN;
	return 0;
}

void lhist_free(struct lhist *h)
{
	free(h->bin);
	h->bin = NULL;
}

/* v counted in the least and greatest seen */
static void span_add(int64_t v, int64_t *lo, int64_t *hi)
{
	if (v < *lo)
		*lo = v;
	if (v > *hi)
		*hi = v;
}

void lhist_add(struct lhist *h, int64_t v)
{
	h->count++;
	h->sum += (double)v;
	span_add(v, &h->min, &h->max);
	if (v < 0) {
		h->under++;
		return;
	}
	uint64_t b = (uint64_t)(v / h->bin_ns);
	if (b >= h->nbins)
		h->over++;
	else
		h->bin[b]++;
}

static int64_t lbin_top(const void *ctx, uint32_t b)
{
	return (int64_t)(b + 1) * ((const struct lhist *)ctx)->bin_ns;
}

int64_t lhist_quantile(const struct lhist *h, double q)
{
	return hist_rank_walk(h->bin, h->nbins, h->count, h->under, h->min, h->max, q, lbin_top, h);
}

double lhist_mean(const struct lhist *h)
{
	return h->count ? h->sum / (double)h->count : 0.0;
}

const char *probe_ts_name(enum probe_ts t)
{
	static const char *const n[PROBE_TS_N] = {"hardware", "software", "user", "capture"};
	return TDP_NAME_OF(n, t, "?");
}

/* ---- receiver ------------------------------------------------------------- */

int probe_rx_init(struct probe_rx *rx, const struct probe_rx_cfg *c)
{
	memset(rx, 0, sizeof(*rx));
	rx->cfg = *c;
	if (c->bin_ns <= 0 || c->range_ns < c->bin_ns || c->range_ns / c->bin_ns > LHIST_MAX_BINS ||
	    c->series_ns <= 0)
		return -EINVAL;
	rx->first_t2 = INT64_MIN;
	return 0;
}

static void flow_free(struct probe_flow *f)
{
	if (f->hop) {
		for (uint32_t i = 0; i < PROBE_MAX_HOPS; i++) {
			lhist_free(&f->hop[i].push);
			lhist_free(&f->hop[i].leg);
		}
		lhist_free(&f->last_leg);
		free(f->hop);
	}
	free(f->seen);
	free(f->series);
	lhist_free(&f->lat);
	lhist_free(&f->transit);
	lhist_free(&f->ipt);
}

void probe_rx_free(struct probe_rx *rx)
{
	for (uint32_t i = 0; i < rx->nflows; i++)
		flow_free(&rx->flows[i]);
	free(rx->flows);
	free(rx->rec);
	memset(rx, 0, sizeof(*rx));
}

static struct probe_flow *flow_get(struct probe_rx *rx, const struct probe_hdr *h)
{
	for (uint32_t i = 0; i < rx->nflows; i++)
		if (rx->flows[i].id == h->flow)
			return &rx->flows[i];
	if (rx->nflows >= PROBE_MAX_FLOWS)
		return NULL;
	if (rx->nflows == rx->cap) {
		uint32_t cap = rx->cap ? rx->cap * 2 : 4;
		struct probe_flow *n = realloc(rx->flows, cap * sizeof(*n));
		if (!n)
			return NULL;
		rx->flows = n;
		rx->cap = cap;
	}
	struct probe_flow *f = &rx->flows[rx->nflows];
	memset(f, 0, sizeof(*f));
	f->id = h->flow;
	f->tf_ns = h->tf_ns;
	f->epoch_ns = h->epoch_ns;
	f->first_t2 = INT64_MIN;
	f->series_ns = rx->cfg.series_ns;
	f->seen = calloc(PROBE_SEQ_WINDOW / 64, sizeof(uint64_t));
	f->series = calloc(PROBE_SERIES_MAX, sizeof(*f->series));
	if (!f->seen || !f->series || lhist_init(&f->lat, rx->cfg.bin_ns, rx->cfg.range_ns) ||
	    lhist_init(&f->transit, rx->cfg.bin_ns, rx->cfg.range_ns) ||
	    lhist_init(&f->ipt, rx->cfg.bin_ns, rx->cfg.range_ns)) {
		flow_free(f);
		return NULL;
	}
	rx->nflows++;
	return f;
}

static inline bool seen_test_set(uint64_t *bits, uint64_t s)
{
	uint64_t i = s % PROBE_SEQ_WINDOW;
	uint64_t m = 1ull << (i & 63);
	bool was = bits[i >> 6] & m;
	bits[i >> 6] |= m;
	return was;
}

static inline void seen_clear(uint64_t *bits, uint64_t s)
{
	uint64_t i = s % PROBE_SEQ_WINDOW;
	bits[i >> 6] &= ~(1ull << (i & 63));
}

/* The 64-bit sequence number nearest to the highest seen with these low 32 bits. */
static uint64_t seq_extend(const struct probe_flow *f, uint32_t s)
{
	if (!f->next)
		return s;
	uint64_t ref = f->next - 1;
	int64_t d = (int32_t)(s - (uint32_t)ref);
	if (d < 0 && (uint64_t)-d > ref)
		return s;
	return ref + (uint64_t)d;
}

/* Returns 0 for a new sequence number, 1 for a duplicate. */
static int seq_account(struct probe_flow *f, uint64_t s)
{
	if (s >= f->next) {
		uint64_t from = f->next;
		if (s - from >= PROBE_SEQ_WINDOW)
			memset(f->seen, 0, PROBE_SEQ_WINDOW / 8);
		else
			for (uint64_t x = from; x < s; x++)
				seen_clear(f->seen, x);
		seen_clear(f->seen, s);
		seen_test_set(f->seen, s);
		f->next = s + 1;
		f->received++;
		return 0;
	}
	if (f->next - s > PROBE_SEQ_WINDOW) {
		/* older than the window: cannot tell a duplicate; count it as reordered */
		f->stale++;
		f->reordered++;
		f->received++;
		return 0;
	}
	if (seen_test_set(f->seen, s)) {
		f->dup++;
		return 1;
	}
	f->reordered++;
	f->received++;
	return 0;
}

static void series_add(struct probe_flow *f, int64_t t, int64_t lat, int64_t ipt, bool have_ipt)
{
	uint64_t b = (uint64_t)(t / f->series_ns);
	while (b >= PROBE_SERIES_MAX) {
		/* halve the resolution: merge neighbouring buckets */
		for (uint32_t i = 0; i < PROBE_SERIES_MAX / 2; i++) {
			struct probe_bucket *a = &f->series[2 * i], *c = &f->series[2 * i + 1];
			struct probe_bucket m = *a;
			if (c->n) {
				if (!m.n) {
					m = *c;
				} else {
					m.ipt_min = m.ipt_min < c->ipt_min ? m.ipt_min : c->ipt_min;
					m.ipt_max = m.ipt_max > c->ipt_max ? m.ipt_max : c->ipt_max;
					m.lat_min = m.lat_min < c->lat_min ? m.lat_min : c->lat_min;
					m.lat_max = m.lat_max > c->lat_max ? m.lat_max : c->lat_max;
					m.ipt_sum += c->ipt_sum;
					m.lat_sum += c->lat_sum;
					m.n += c->n;
					m.nipt += c->nipt;
				}
			}
			m.t0 = (int64_t)i * 2 * f->series_ns;
			f->series[i] = m;
		}
		memset(&f->series[PROBE_SERIES_MAX / 2], 0,
		       PROBE_SERIES_MAX / 2 * sizeof(*f->series));
		f->series_ns *= 2;
		f->nseries = (f->nseries + 1) / 2;
		b = (uint64_t)(t / f->series_ns);
	}
	struct probe_bucket *k = &f->series[b];
	if (!k->n) {
		k->t0 = (int64_t)b * f->series_ns;
		k->lat_min = k->lat_max = lat;
		k->ipt_min = INT64_MAX;
		k->ipt_max = INT64_MIN;
	}
	k->n++;
	k->lat_sum += (double)lat;
	span_add(lat, &k->lat_min, &k->lat_max);
	if (have_ipt) {
		k->nipt++;
		k->ipt_sum += (double)ipt;
		span_add(ipt, &k->ipt_min, &k->ipt_max);
	}
	if (b + 1 > f->nseries)
		f->nseries = (uint32_t)b + 1;
}

static void record(struct probe_rx *rx, const struct probe_rec *r)
{
	if (rx->nrec == rx->reccap) {
		uint64_t cap = rx->reccap ? rx->reccap * 2 : 4096;
		struct probe_rec *n = realloc(rx->rec, cap * sizeof(*n));
		if (!n) {
			rx->rec_lost++;
			return;
		}
		rx->rec = n;
		rx->reccap = cap;
	}
	rx->rec[rx->nrec++] = *r;
}

/* Histograms of the hops, made at a flow's first stamped probe: they cost
 * memory only where routers stamp. */
static int hops_make(const struct probe_rx *rx, struct probe_flow *f)
{
	f->hop = calloc(PROBE_MAX_HOPS, sizeof(*f->hop));
	if (!f->hop)
		return -1;
	int rc = lhist_init(&f->last_leg, rx->cfg.bin_ns, rx->cfg.range_ns);
	for (uint32_t i = 0; i < PROBE_MAX_HOPS && rc == 0; i++) {
		rc = lhist_init(&f->hop[i].push, rx->cfg.bin_ns, rx->cfg.range_ns);
		if (rc == 0)
			rc = lhist_init(&f->hop[i].leg, rx->cfg.bin_ns, rx->cfg.range_ns);
	}
	if (rc) {
		for (uint32_t i = 0; i < PROBE_MAX_HOPS; i++) {
			lhist_free(&f->hop[i].push);
			lhist_free(&f->hop[i].leg);
		}
		lhist_free(&f->last_leg);
		free(f->hop);
		f->hop = NULL;
	}
	return rc;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
	int64_t d;
	if (__builtin_sub_overflow(a, b, &d))
		return a > b ? INT64_MAX : INT64_MIN;
	return d;
}

/*
 * The hop stamps of one probe: per hop the measured alpha (its frame minus the
 * previous node's; the sender's is the probe's frame i), its push offset and
 * the leg from the previous node's push (t1 for the first hop). Against a
 * plan, a hop whose alpha differs makes the probe off plan.
 */
static void hops_account(struct probe_rx *rx, struct probe_flow *f, const struct probe_hdr *h,
			 uint64_t seq, int64_t t1, int64_t t2)
{
	const struct probe_rx_cfg *c = &rx->cfg;
	if (c->plan_hops && h->hops < c->plan_hops)
		f->hops_short++;
	if (!h->hops || (!f->hop && hops_make(rx, f) != 0))
		return;
	if (h->hops > f->nhops)
		f->nhops = h->hops;
	int64_t start = probe_frame_start(h), prev_frame = 0, prev_push = t1;
	bool off = false;
	for (uint32_t k = 0; k < h->hops; k++) {
		const struct probe_stamp *st = &h->stamp[k];
		struct probe_hop *hp = &f->hop[k];
		if (hp->n && hp->node != st->node)
			hp->node_changes++;
		hp->node = st->node;
		hp->n++;
		if (st->flags & PROBE_STAMP_LATE)
			hp->late++;
		int64_t a = (int64_t)st->dframe - prev_frame;
		if (a >= PROBE_ALPHA_LO && a < PROBE_ALPHA_LO + PROBE_ALPHA_N)
			hp->alpha[a - PROBE_ALPHA_LO]++;
		else
			hp->alpha_other++;
		/* probe_decode keeps the hop's frame start and push time in range;
		 * legs between times that far apart saturate */
		int64_t push = start + (int64_t)st->dframe * h->tf_ns + st->push_off;
		lhist_add(&hp->push, st->push_off);
		lhist_add(&hp->leg, sat_sub(push, prev_push));
		if (k < c->plan_hops && a != (int64_t)c->plan_alpha[k]) {
			hp->off_plan++;
			if (!off && f->noffplan < PROBE_OFFPLAN_KEEP)
				f->offplan[f->noffplan++] = (struct probe_offplan){
					seq, (uint8_t)(k + 1),
					(uint8_t)(st->flags & PROBE_STAMP_LATE),
					(int32_t)c->plan_alpha[k], (int32_t)a};
			off = true;
		}
		prev_frame = st->dframe;
		prev_push = push;
	}
	lhist_add(&f->last_leg, sat_sub(t2, prev_push));
	if (off)
		f->off_plan++;
}

enum probe_verdict probe_rx_packet(struct probe_rx *rx, const uint8_t *frame, uint32_t len,
				   int64_t t2, enum probe_ts ts)
{
	struct probe_hdr h;
	rx->frames++;
	enum probe_verdict v = probe_decode(frame, len, rx->cfg.port, &h);
	switch (v) {
	case PROBE_FOREIGN:
		rx->foreign++;
		return v;
	case PROBE_SHORT:
		rx->shortp++;
		return v;
	case PROBE_MALFORMED:
		rx->malformed++;
		return v;
	case PROBE_OK:
		break;
	}
	if (ts < PROBE_TS_N)
		rx->ts[ts]++;
	if (rx->first_t2 == INT64_MIN)
		rx->first_t2 = t2;
	rx->last_t2 = t2;
	if (h.kind == PROBE_K_BE) {
		rx->be++;
		rx->be_bytes += len;
		return v;
	}
	struct probe_flow *f = flow_get(rx, &h);
	if (!f) {
		rx->flows_over++;
		return v;
	}
	if (h.kind == PROBE_K_END) {
		rx->ends++;
		if (!f->end || h.seq > f->sent)
			f->sent = h.seq;
		f->end = true;
		return v;
	}
	rx->probes++;
	if (h.tf_ns != f->tf_ns || h.epoch_ns != f->epoch_ns) {
		f->geometry_changes++;
		f->tf_ns = h.tf_ns;
		f->epoch_ns = h.epoch_ns;
	}
	uint64_t seq = seq_extend(f, h.seq);
	if (seq_account(f, seq))
		return v; /* a duplicate is counted, not measured twice */
	int64_t start = probe_frame_start(&h);
	int64_t lat = t2 - start;
	int64_t t1 = start + h.t1_off;
	lhist_add(&f->lat, lat);
	lhist_add(&f->transit, t2 - t1);
	int64_t lo = (int64_t)rx->cfg.delay_frames * h.tf_ns;
	if (lat < lo || lat >= lo + (int64_t)h.tf_ns) {
		f->oof++;
		if (lat < lo)
			f->early++;
	}
	bool have_ipt = f->first_t2 != INT64_MIN;
	int64_t ipt = have_ipt ? t2 - f->last_t2 : 0;
	if (have_ipt)
		lhist_add(&f->ipt, ipt);
	else
		f->first_t2 = t2;
	f->last_t2 = t2;
	int64_t rel = t2 - f->first_t2;
	series_add(f, rel < 0 ? 0 : rel, lat, ipt, have_ipt);
	hops_account(rx, f, &h, seq, t1, t2);
	if (rx->cfg.keep_records) {
		struct probe_rec r = {.flow = h.flow,
				      .hops = h.hops,
				      .seq = seq,
				      .frame = h.frame,
				      .t1 = t1,
				      .t2 = t2,
				      .lat = lat,
				      .transit = t2 - t1,
				      .ipt = ipt};
		memcpy(r.stamp, h.stamp, sizeof(r.stamp));
		record(rx, &r);
	}
	return v;
}

uint64_t probe_flow_lost(const struct probe_flow *f)
{
	uint64_t expect = f->end && f->sent >= f->next ? f->sent : f->next;
	return expect > f->received ? expect - f->received : 0;
}

uint32_t probe_rx_ended(const struct probe_rx *rx)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < rx->nflows; i++)
		n += rx->flows[i].end;
	return n;
}
