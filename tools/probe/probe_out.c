/* SPDX-License-Identifier: BSD-3-Clause */
/* The receiver's results (probe_stats.h): the line each second, the text
 * summary, JSON and CSV, per flow and per hop. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "probe_stats.h"
#include "tdp_sched.h"

const double probe_pct[PROBE_NPCT] = {0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 0.999999};
const char *const probe_pct_name[PROBE_NPCT] = {"p50",	  "p90",     "p99",	"p99.9",
						"p99.99", "p99.999", "p99.9999"};

static const struct probe_flow *busiest(const struct probe_rx *rx)
{
	const struct probe_flow *b = NULL;
	for (uint32_t i = 0; i < rx->nflows; i++)
		if (!b || rx->flows[i].received > b->received)
			b = &rx->flows[i];
	return b;
}

void probe_rx_line(const struct probe_rx *rx, char *buf, size_t len, double secs)
{
	uint64_t got = 0, lost = 0, dup = 0, reord = 0, oof = 0;
	for (uint32_t i = 0; i < rx->nflows; i++) {
		const struct probe_flow *f = &rx->flows[i];
		got += f->received;
		lost += probe_flow_lost(f);
		dup += f->dup;
		reord += f->reordered;
		oof += f->oof;
	}
	int n = snprintf(buf, len,
			 "%.0fs: %" PRIu64 " probes, %" PRIu64 " lost, %" PRIu64 " dup, %" PRIu64
			 " reordered, %" PRIu64 " out of frame",
			 secs, got, lost, dup, reord, oof);
	const struct probe_flow *f = busiest(rx);
	if (f && f->lat.count && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, " | L p50 %.1f p99 %.1f max %.1f us",
			      lhist_quantile(&f->lat, 0.5) / 1e3,
			      lhist_quantile(&f->lat, 0.99) / 1e3, f->lat.max / 1e3);
	if (n > 0 && (size_t)n < len && (rx->foreign || rx->shortp || rx->malformed || rx->be))
		snprintf(buf + n, len - (size_t)n, " | other %" PRIu64 " (be %" PRIu64 ")",
			 rx->foreign + rx->shortp + rx->malformed, rx->be);
}

static void text_row(FILE *f, const char *name, const struct lhist *h)
{
	fprintf(f, "  %-10s", name);
	if (!h->count) {
		fprintf(f, " (none)\n");
		return;
	}
	fprintf(f, " %9.3f %9.3f", h->min / 1e3, lhist_mean(h) / 1e3);
	for (int i = 0; i < PROBE_NPCT; i++)
		fprintf(f, " %9.3f", lhist_quantile(h, probe_pct[i]) / 1e3);
	fprintf(f, " %9.3f", h->max / 1e3);
	if (h->over || h->under)
		fprintf(f, "  (%" PRIu64 " over range, %" PRIu64 " below 0)", h->over, h->under);
	fputc('\n', f);
}

static void alpha_text(FILE *f, const struct probe_hop *hp)
{
	const char *sep = "";
	for (int a = 0; a < PROBE_ALPHA_N; a++)
		if (hp->alpha[a]) {
			fprintf(f, "%s%d x %" PRIu64, sep, a + PROBE_ALPHA_LO, hp->alpha[a]);
			sep = ", ";
		}
	if (hp->alpha_other)
		fprintf(f, "%sother x %" PRIu64, sep, hp->alpha_other);
}

/* Per hop: node, measured alpha against the plan, push offset and leg. */
static void hops_text(FILE *f, const struct probe_rx *rx, const struct probe_flow *fl)
{
	const struct probe_rx_cfg *c = &rx->cfg;
	if (!fl->hop) {
		if (c->plan_hops)
			fprintf(f,
				"  no hop stamps: the routers' table needs the stamp option on "
				"this flow, and the probes "
				"room (tdp-probe send --stamps %u)\n",
				c->plan_hops);
		return;
	}
	for (uint32_t k = 0; k < fl->nhops; k++) {
		const struct probe_hop *hp = &fl->hop[k];
		fprintf(f, "  hop %u node %u: %" PRIu64 " stamped, alpha ", k + 1, hp->node, hp->n);
		alpha_text(f, hp);
		if (k < c->plan_hops)
			fprintf(f, " (planned %u: %" PRIu64 " off plan)", c->plan_alpha[k],
				hp->off_plan);
		if (hp->late)
			fprintf(f, ", %" PRIu64 " sent late by the hop", hp->late);
		if (hp->node_changes)
			fprintf(f, ", node id changed %" PRIu64 " times", hp->node_changes);
		fputc('\n', f);
		char name[24];
		snprintf(name, sizeof(name), "push@%u", k + 1);
		text_row(f, name, &hp->push);
		snprintf(name, sizeof(name), "leg->%u", k + 1);
		text_row(f, name, &hp->leg);
	}
	text_row(f, "leg->rcv", &fl->last_leg);
	if (c->plan_hops) {
		fprintf(f,
			"  plan %u hops: %" PRIu64 " probes off plan, %" PRIu64
			" with fewer stamps than hops\n",
			c->plan_hops, fl->off_plan, fl->hops_short);
		for (uint32_t i = 0; i < fl->noffplan; i++) {
			const struct probe_offplan *o = &fl->offplan[i];
			fprintf(f, "    seq %" PRIu64 ": hop %u alpha %d, planned %d%s\n", o->seq,
				o->hop, o->measured, o->planned,
				o->late ? " (sent late by the hop)" : "");
		}
	}
}

void probe_rx_text(FILE *f, const struct probe_rx *rx)
{
	for (uint32_t i = 0; i < rx->nflows; i++) {
		const struct probe_flow *fl = &rx->flows[i];
		fprintf(f, "flow %" PRIu32 " (TF %.3f us): ", fl->id, fl->tf_ns / 1e3);
		if (fl->end)
			fprintf(f, "sent %" PRIu64 ", ", fl->sent);
		else
			fprintf(f, "sent ? (no end packet), ");
		fprintf(f,
			"received %" PRIu64 ", lost %" PRIu64 ", duplicated %" PRIu64
			", reordered %" PRIu64 ", out of frame %" PRIu64 " (early %" PRIu64 ")\n",
			fl->received, probe_flow_lost(fl), fl->dup, fl->reordered, fl->oof,
			fl->early);
		fprintf(f, "  %-10s %9s %9s", "us", "min", "avg");
		for (int k = 0; k < PROBE_NPCT; k++)
			fprintf(f, " %9s", probe_pct_name[k]);
		fprintf(f, " %9s\n", "max");
		text_row(f, "L", &fl->lat);
		text_row(f, "t2-t1", &fl->transit);
		text_row(f, "inter-pkt", &fl->ipt);
		hops_text(f, rx, fl);
		if (fl->geometry_changes)
			fprintf(f, "  TF or epoch changed %" PRIu64 " times during the run\n",
				fl->geometry_changes);
	}
	if (!rx->nflows)
		fprintf(f, "no probes received\n");
	fprintf(f,
		"other frames: foreign %" PRIu64 ", short %" PRIu64 ", malformed %" PRIu64
		", best effort %" PRIu64 " (%" PRIu64 " bytes)\n",
		rx->foreign, rx->shortp, rx->malformed, rx->be, rx->be_bytes);
	if (rx->flows_over)
		fprintf(f, "%" PRIu64 " probes of flows beyond the first %d were not measured\n",
			rx->flows_over, PROBE_MAX_FLOWS);
}

static void json_hist(FILE *f, const struct lhist *h)
{
	fprintf(f, "{\"count\": %" PRIu64, h->count);
	if (h->count) {
		fprintf(f, ", \"min\": %" PRId64 ", \"avg\": %.1f", h->min, lhist_mean(h));
		for (int i = 0; i < PROBE_NPCT; i++)
			fprintf(f, ", \"%s\": %" PRId64, probe_pct_name[i],
				lhist_quantile(h, probe_pct[i]));
		fprintf(f, ", \"max\": %" PRId64, h->max);
	}
	fprintf(f,
		", \"underflow\": %" PRIu64 ", \"overflow\": %" PRIu64 ", \"bin_ns\": %" PRId64
		", \"bins\": [",
		h->under, h->over, h->bin_ns);
	bool first = true;
	for (uint32_t b = 0; b < h->nbins; b++) {
		if (!h->bin[b])
			continue;
		fprintf(f, "%s[%" PRId64 ", %" PRIu64 "]", first ? "" : ", ",
			(int64_t)b * h->bin_ns, h->bin[b]);
		first = false;
	}
	fprintf(f, "]}");
}

static void json_series(FILE *f, const struct probe_flow *fl)
{
	fprintf(f, "{\"bucket_ns\": %" PRId64, fl->series_ns);
	static const char *const key[] = {"t_ns",    "n",	"ipt_min", "ipt_avg",
					  "ipt_max", "lat_min", "lat_avg", "lat_max"};
	for (int k = 0; k < 8; k++) {
		fprintf(f, ", \"%s\": [", key[k]);
		bool first = true;
		for (uint32_t i = 0; i < fl->nseries; i++) {
			const struct probe_bucket *b = &fl->series[i];
			if (!b->n)
				continue;
			bool ipt = b->nipt > 0;
			fputs(first ? "" : ", ", f);
			first = false;
			switch (k) {
			case 0:
				fprintf(f, "%" PRId64, b->t0);
				break;
			case 1:
				fprintf(f, "%" PRIu64, b->n);
				break;
			case 2:
				ipt ? fprintf(f, "%" PRId64, b->ipt_min) : fprintf(f, "null");
				break;
			case 3:
				ipt ? fprintf(f, "%.1f", b->ipt_sum / (double)b->nipt)
				    : fprintf(f, "null");
				break;
			case 4:
				ipt ? fprintf(f, "%" PRId64, b->ipt_max) : fprintf(f, "null");
				break;
			case 5:
				fprintf(f, "%" PRId64, b->lat_min);
				break;
			case 6:
				fprintf(f, "%.1f", b->lat_sum / (double)b->n);
				break;
			case 7:
				fprintf(f, "%" PRId64, b->lat_max);
				break;
			}
		}
		fputc(']', f);
	}
	fputc('}', f);
}

static void hops_json(FILE *f, const struct probe_rx *rx, const struct probe_flow *fl)
{
	const struct probe_rx_cfg *c = &rx->cfg;
	fprintf(f, ", \"hops\": [");
	for (uint32_t k = 0; fl->hop && k < fl->nhops; k++) {
		const struct probe_hop *hp = &fl->hop[k];
		fprintf(f,
			"%s{\"hop\": %u, \"node\": %u, \"stamped\": %" PRIu64 ", \"late\": %" PRIu64
			", \"node_changes\": %" PRIu64 ", \"alpha\": {",
			k ? ", " : "", k + 1, hp->node, hp->n, hp->late, hp->node_changes);
		const char *sep = "";
		for (int a = 0; a < PROBE_ALPHA_N; a++)
			if (hp->alpha[a]) {
				fprintf(f, "%s\"%d\": %" PRIu64, sep, a + PROBE_ALPHA_LO,
					hp->alpha[a]);
				sep = ", ";
			}
		fprintf(f, "}, \"alpha_other\": %" PRIu64, hp->alpha_other);
		if (k < c->plan_hops)
			fprintf(f, ", \"planned_alpha\": %u, \"off_plan\": %" PRIu64,
				c->plan_alpha[k], hp->off_plan);
		fprintf(f, ", \"push_offset\": ");
		json_hist(f, &hp->push);
		fprintf(f, ", \"leg\": ");
		json_hist(f, &hp->leg);
		fputc('}', f);
	}
	fputc(']', f);
	if (fl->hop) {
		fprintf(f, ", \"last_leg\": ");
		json_hist(f, &fl->last_leg);
	}
	if (c->plan_hops) {
		fprintf(f, ", \"plan\": {\"alpha\": [");
		for (uint32_t k = 0; k < c->plan_hops; k++)
			fprintf(f, "%s%u", k ? ", " : "", c->plan_alpha[k]);
		fprintf(f,
			"], \"off_plan\": %" PRIu64 ", \"fewer_stamps\": %" PRIu64
			", \"examples\": [",
			fl->off_plan, fl->hops_short);
		for (uint32_t i = 0; i < fl->noffplan; i++) {
			const struct probe_offplan *o = &fl->offplan[i];
			fprintf(f,
				"%s{\"seq\": %" PRIu64
				", \"hop\": %u, \"alpha\": %d, \"planned\": %d, \"late\": %s}",
				i ? ", " : "", o->seq, o->hop, o->measured, o->planned,
				o->late ? "true" : "false");
		}
		fprintf(f, "]}");
	}
}

void probe_rx_json(FILE *f, const struct probe_rx *rx, const struct probe_meta *m)
{
	fprintf(f, "{\"tdp_probe\": 1");
	const char *keys[] = {"label", "source", "where", "timestamps", "coalescing", "rt"};
	const char *vals[] = {m->label, m->source, m->where, m->timestamps, m->coalescing, m->rt};
	for (int i = 0; i < 6; i++) {
		if (!vals[i])
			continue;
		fprintf(f, ", \"%s\": ", keys[i]);
		sched_json_str(f, vals[i]);
	}
	fprintf(f,
		", \"bin_ns\": %" PRId64 ", \"range_ns\": %" PRId64 ", \"delay_frames\": %" PRIu32,
		rx->cfg.bin_ns, rx->cfg.range_ns, rx->cfg.delay_frames);
	fprintf(f, ", \"first_t2_ns\": %" PRId64 ", \"duration_ns\": %" PRId64,
		rx->first_t2 == INT64_MIN ? 0 : rx->first_t2,
		rx->first_t2 == INT64_MIN ? 0 : rx->last_t2 - rx->first_t2);
	fprintf(f,
		", \"frames\": {\"total\": %" PRIu64 ", \"probes\": %" PRIu64 ", \"end\": %" PRIu64
		", \"best_effort\": %" PRIu64 ", \"best_effort_bytes\": %" PRIu64
		", \"foreign\": %" PRIu64 ", \"short\": %" PRIu64 ", \"malformed\": %" PRIu64
		", \"unmeasured_flows\": %" PRIu64 "}",
		rx->frames, rx->probes, rx->ends, rx->be, rx->be_bytes, rx->foreign, rx->shortp,
		rx->malformed, rx->flows_over);
	fprintf(f, ", \"timestamped\": {");
	for (int t = 0; t < PROBE_TS_N; t++)
		fprintf(f, "%s\"%s\": %" PRIu64, t ? ", " : "", probe_ts_name((enum probe_ts)t),
			rx->ts[t]);
	fprintf(f, "}, \"flows\": [");
	for (uint32_t i = 0; i < rx->nflows; i++) {
		const struct probe_flow *fl = &rx->flows[i];
		fprintf(f,
			"%s{\"flow\": %" PRIu32 ", \"tf_ns\": %" PRIu32 ", \"epoch_ns\": %" PRIu32,
			i ? ", " : "", fl->id, fl->tf_ns, fl->epoch_ns);
		if (fl->end)
			fprintf(f, ", \"sent\": %" PRIu64, fl->sent);
		else
			fprintf(f, ", \"sent\": null");
		fprintf(f,
			", \"received\": %" PRIu64 ", \"lost\": %" PRIu64
			", \"duplicated\": %" PRIu64 ", \"reordered\": %" PRIu64
			", \"stale\": %" PRIu64 ", \"out_of_frame\": %" PRIu64
			", \"early\": %" PRIu64 ", \"geometry_changes\": %" PRIu64,
			fl->received, probe_flow_lost(fl), fl->dup, fl->reordered, fl->stale,
			fl->oof, fl->early, fl->geometry_changes);
		fprintf(f, ", \"latency\": ");
		json_hist(f, &fl->lat);
		fprintf(f, ", \"transit\": ");
		json_hist(f, &fl->transit);
		fprintf(f, ", \"inter_packet\": ");
		json_hist(f, &fl->ipt);
		fprintf(f, ", \"series\": ");
		json_series(f, fl);
		hops_json(f, rx, fl);
		fputc('}', f);
	}
	fprintf(f, "]}\n");
}

int probe_rx_csv(FILE *f, const struct probe_rx *rx)
{
	fprintf(f,
		"flow,seq,frame,t1_ns,t2_ns,latency_ns,transit_ns,inter_packet_ns,hops,stamps\n");
	for (uint64_t i = 0; i < rx->nrec; i++) {
		const struct probe_rec *r = &rx->rec[i];
		fprintf(f,
			"%" PRIu32 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
			",%" PRId64 ",%" PRId64 ",%u,",
			r->flow, r->seq, r->frame, r->t1, r->t2, r->lat, r->transit, r->ipt,
			r->hops);
		/* node:frames after i:push offset ns[:late][:launch] per hop, ';' between hops */
		for (unsigned k = 0; k < r->hops && k < PROBE_MAX_HOPS; k++)
			fprintf(f, "%s%u:%" PRId32 ":%" PRId32 "%s%s", k ? ";" : "",
				r->stamp[k].node, r->stamp[k].dframe, r->stamp[k].push_off,
				r->stamp[k].flags & PROBE_STAMP_LATE ? ":late" : "",
				r->stamp[k].flags & PROBE_STAMP_LAUNCH ? ":launch" : "");
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}
