/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "counters.h"
#include "pmd.h"
#include "summary.h"

static double duty(const struct eng_stats *es, double elapsed_s)
{
	if (elapsed_s <= 0)
		return 0;
	double d = 1.0 - (double)es->sleep_ns / (elapsed_s * 1e9);
	return d < 0 ? 0 : d > 1 ? 1 : d;
}

static uint64_t rx_drops(const struct rx_stats *st)
{
	uint64_t d = 0;
	for (int i = 0; i < RXD_MAX; i++)
		d += st->drop[i];
	return d;
}

static uint32_t ncores(const struct summary_src *s)
{
	return s->nrx ? s->nrx : 1;
}

void summary_line(const struct summary_src *s, char *buf, size_t len)
{
	struct eng_stats es;
	engine_stats(s->e, &es);
	static _Thread_local struct hist h_;
	const struct hist *h = &h_;
	hist_snapshot(&h_, engine_error_hist(s->e));
	/* the flows' overflow as RX sums it: this line is written on RX core 0,
	 * which a walk of 10^6 flows would stall */
	struct rx_stats st;
	rx_sum(s->rx, ncores(s), &st);
	uint64_t ovf = st.flow_overflow;
	snprintf(buf, len,
		 "sync %s | frames %" PRIu64 " late %" PRIu64 " skipped %" PRIu64
		 " | start error p50 %" PRId64 " ns p99 %" PRId64 " ns max %" PRId64
		 " ns | rx %" PRIu64 " reserved %" PRIu64 " best-effort %" PRIu64
		 " dropped %" PRIu64 " overflow %" PRIu64,
		 tb_state_name(tb_state(s->tb)), es.frames, es.late_frames, es.skipped_frames,
		 hist_quantile(h, 0.5), hist_quantile(h, 0.99), h->count ? h->max : 0, st.pkts,
		 st.reserved, st.best_effort, rx_drops(&st), ovf);
}

const struct sched_table *summary_table(const struct summary_src *s)
{
	return engine_table_sched(engine_table_current(s->e));
}

static void flows_sum(const struct sched_table *t, struct eng_table *et, struct flow_stats *fs,
		      struct flow_rx_sum *fr)
{
	memset(fs, 0, sizeof(*fs));
	memset(fr, 0, sizeof(*fr));
	for (uint32_t f = 0; f < t->nflows; f++) {
		struct flow_stats a;
		struct flow_rx_sum b;
		engine_table_flow_stats(et, f, &a);
		engine_table_flow_rx_sum(et, f, &b, NULL);
#define ADD_FS(field, key, help) fs->field += a.field;
#define ADD_FR(field, key, help) fr->field += b.field;
		CTL_FLOW_COUNTERS(ADD_FS)
		CTL_FLOW_RX_COUNTERS(ADD_FR)
#undef ADD_FS
#undef ADD_FR
	}
}

/* one row of the flows' table: a flow, or the sum of them all */
static void flow_row(FILE *out, const char *name, const char *port, const struct flow_stats *fs,
		     const struct flow_rx_sum *fr)
{
	fprintf(out,
		"%-16s %-8s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64
		" %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
		" %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n",
		name, port, fr->enq, fs->reserved, fs->sent, fs->unused, fs->late_dropped,
		fs->late_carried + fs->tx_carried, fs->arr_late_dropped + fs->arr_late_carried,
		fr->overflow, fs->tx_drop, fs->demoted, fs->stamped, fr->route_moved, fr->link_down,
		fr->too_big);
}

/* Pipelined flows: when their packets arrived in the upstream frame (after
 * the link delay). The plan's processing time has to cover the max; the
 * margin is what is left of the frame after it. */
static void summary_arrivals(FILE *out, const struct sched_table *t, struct eng_table *et)
{
	static _Thread_local struct hist h;
	bool head = false;
	for (uint32_t f = 0; f < t->nflows; f++) {
		struct flow_rx_sum fr;
		if (!t->flows[f].alpha || !engine_table_flow_rx_sum(et, f, &fr, &h))
			continue;
		if (!head) {
			fprintf(out, "\narrivals of pipelined flows, from the start of the "
				     "upstream frame less the link delay\n");
			fprintf(out, "%-16s %5s %10s %10s %10s %10s %10s %8s %9s\n", "flow",
				"alpha", "delay ns", "packets", "p50 ns", "p99 ns", "max ns",
				"in-guard", "uncertain");
			head = true;
		}
		fprintf(out,
			"%-16s %5u %10" PRIu64 " %10" PRIu64 " %10" PRId64 " %10" PRId64
			" %10" PRId64 " %8" PRIu64 " %9" PRIu64 "\n",
			t->flows[f].name, t->flows[f].alpha, t->flows[f].delay_ns, h.count,
			hist_quantile(&h, 0.5), hist_quantile(&h, 0.99), h.count ? h.max : 0,
			fr.arr_guard, fr.arr_uncertain);
	}
}

void summary_text(const struct summary_src *s, FILE *out)
{
	struct eng_table *et = engine_table_current(s->e);
	const struct sched_table *t = engine_table_sched(et);
	struct eng_stats es;
	engine_stats(s->e, &es);
	const struct hist *h = engine_error_hist(s->e);
	struct pw_snap pw;
	pw_snapshot(engine_pw(s->e), &pw);
	fprintf(out, "tdpd: ran %.3f s on the %s timebase, TF %" PRIu64 " ns, k %u\n", s->elapsed_s,
		s->timebase, t->tf_ns, t->k);
	fprintf(out,
		"frames  %" PRIu64 " processed, %" PRIu64 " late, %" PRIu64 " skipped, %" PRIu64
		" staged past their start; engine busy %.1f%% of its CPU\n",
		es.frames, es.late_frames, es.skipped_frames, es.stage_overruns,
		100.0 * duty(&es, s->elapsed_s));
	fprintf(out,
		"frame-start error (push - nominal start), ns: min %" PRId64 " p50 %" PRId64
		" p99 %" PRId64 " p99.9 %" PRId64 " max %" PRId64 " (over 1 s: %" PRIu64 ")\n",
		h->count ? h->min : 0, hist_quantile(h, 0.5), hist_quantile(h, 0.99),
		hist_quantile(h, 0.999), h->count ? h->max : 0, h->over);
	struct tb_sync sy;
	tb_sync(s->tb, &sy);
	fprintf(out,
		"sync    %s: %s; offset %" PRId64 " ns, uncertainty %" PRId64 " ns; %" PRIu64
		" samples (%" PRIu64 " bad, %" PRIu64
		" not taken while the state was read), %" PRIu64 " faults, %" PRIu64
		" transitions, %" PRIu64 " phase steps\n",
		tb_state_name(sy.state), sy.reason, sy.offset_ns, sy.uncertainty_ns, sy.samples,
		sy.bad_samples, sy.busy, sy.faults, sy.transitions, sy.steps);
	fprintf(out,
		"        frames in holdover %" PRIu64 ", unlocked %" PRIu64 ", alarm %" PRIu64
		", over the sync budget %" PRIu64 ", demoted %" PRIu64 "; skips %" PRIu64
		", steps back %" PRIu64 " (%" PRIu64 " frames repeated, none re-sent)\n",
		es.holdover_frames, es.unlocked_frames, es.alarm_frames, es.over_budget_frames,
		es.demoted_frames, es.skip_events, es.back_steps, es.repeated_frames);
	if (s->tb->ops->tick) {
		const struct hist *th = engine_tick_hist(s->e);
		struct tb_tick_stats ts;
		tb_tick_stats(s->tb, &ts);
		fprintf(out,
			"ticks   %" PRIu64 " taken, %" PRIu64 " timed out, %" PRIu64
			" missed, %" PRIu64 " doubled, %" PRIu64
			" spurious; tick latency from the frame start p50 %" PRId64
			" ns p99 %" PRId64 " ns max %" PRId64 " ns\n",
			es.ticks, es.tick_timeouts, ts.missed, ts.doubled, ts.spurious,
			hist_quantile(th, 0.5), hist_quantile(th, 0.99), th->count ? th->max : 0);
	}
	char pred[48];
	if (pw.miss_ppb)
		snprintf(pred, sizeof(pred), "quantile for %.9g", (double)pw.miss_ppb / 1e9);
	else
		snprintf(pred, sizeof(pred), "max of %u", pw.window);
	fprintf(out,
		"wait    %" PRIu64 " sleeps, %" PRIu64 " spins, predicted oversleep %" PRId64
		" ns (%s), bookkeeping %" PRId64 " ns (%" PRIu64 " deferred)\n",
		pw.st.sleeps, pw.st.spins, pw.pred_ns, pred, pw.book_ns, pw.st.deferred);
	fprintf(out, "\n%-16s %-8s %10s %10s %10s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n",
		"flow", "port", "rx", "reserved", "sent", "unused", "late-drop", "carried",
		"arr-late", "overflow", "tx-drop", "demoted", "stamped", "moved", "link-dn",
		"too-big");
	/* carried: packets of late frames and the ones the driver had not taken
	 * by the guard band, moved to the flow's next reserved frame */
	struct flow_stats fs;
	struct flow_rx_sum fr;
	if (t->nflows > SUMMARY_FLOWS_MAX) {
		char all[32];
		snprintf(all, sizeof(all), "(%u flows)", t->nflows);
		flows_sum(t, et, &fs, &fr);
		flow_row(out, all, "-", &fs, &fr);
	}
	for (uint32_t f = 0; t->nflows <= SUMMARY_FLOWS_MAX && f < t->nflows; f++) {
		engine_table_flow_stats(et, f, &fs);
		engine_table_flow_rx_sum(et, f, &fr, NULL);
		flow_row(out, t->flows[f].name, t->ports[t->flows[f].port].name, &fs, &fr);
	}
	if (t->nflows <= SUMMARY_FLOWS_MAX)
		summary_arrivals(out, t, et);
	fprintf(out, "\n%-10s %10s %8s %12s %12s %12s %8s %9s %8s %8s %8s\n", "port", "frames",
		"late", "reserved", "best-effort", "be-bytes", "too-big", "late-drop", "carried",
		"tx-drop", "be-drop");
	for (uint32_t p = 0; p < t->nports; p++) {
		struct port_stats ps;
		engine_port_stats(s->e, p, &ps);
		fprintf(out,
			"%-10s %10" PRIu64 " %8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
			" %8" PRIu64 " %9" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n",
			t->ports[p].name, ps.frames, ps.late_frames, ps.rsv_pkts, ps.be_pkts,
			ps.be_bytes, ps.be_too_big, ps.late_dropped + ps.arr_late_dropped,
			ps.late_carried + ps.tx_carried, ps.tx_drop, ps.be_tx_drop);
	}
	struct rx_stats st;
	rx_sum(s->rx, ncores(s), &st);
	fprintf(out,
		"\nrx      %" PRIu64 " packets, %" PRIu64 " reserved, %" PRIu64
		" best effort; dropped:",
		st.pkts, st.reserved, st.best_effort);
	for (int i = 0; i < RXD_MAX; i++)
		fprintf(out, " %s %" PRIu64, rx_drop_name((enum rx_drop)i), st.drop[i]);
	fprintf(out, "\nhost    the host stack's, by class:");
	for (int i = PUNT_ARP; i < PUNT_MAX; i++)
		fprintf(out, " %s %" PRIu64, punt_class_name((enum punt_class)i), st.host[i]);
	fprintf(out, "\nicmp    sent:");
	for (int i = 0; i < ICMP_ERR_MAX; i++)
		fprintf(out, " %s %" PRIu64, icmp_err_name((enum icmp_err)i), st.icmp_sent[i]);
	fprintf(out,
		"; not sent: rate-limited %" PRIu64 " no-source %" PRIu64 " tx-full %" PRIu64
		"; resolve asked %" PRIu64 " (ring full %" PRIu64
		"); reserved routed by their flow's cached "
		"route %" PRIu64 "\n",
		st.icmp_rate_limited, st.icmp_no_source, st.icmp_tx_full, st.resolve_asked,
		st.resolve_ring_full, st.nh_cached);
	fprintf(out,
		"frag    %" PRIu64 " packets over the MTU fragmented into %" PRIu64 " (%" PRIu64
		" fragments lost); reserved sent as best effort by a moved route %" PRIu64 "\n",
		st.frag_pkts, st.frag_sent, st.frag_drop, st.moved_best_effort);
	uint64_t hq = 0, hr = 0, hf = 0, he = 0;
	for (uint32_t c = 0; c < ncores(s); c++)
		if (s->rx[c].hold) {
			hq += CTR_GET(s->rx[c].hold->queued);
			hr += CTR_GET(s->rx[c].hold->released);
			hf += CTR_GET(s->rx[c].hold->full);
			he += CTR_GET(s->rx[c].hold->expired);
		}
	fprintf(out,
		"held    best effort waiting for ARP/ND: %" PRIu64 " held, %" PRIu64
		" routed again once it was "
		"known; %" PRIu64 " found the queue full, %" PRIu64
		" waited too long (both in no-neighbour)\n",
		hq, hr, hf, he);
	if (ncores(s) > 1) {
		fprintf(out, "rx      by core:");
		for (uint32_t c = 0; c < ncores(s); c++)
			fprintf(out, " %u: %" PRIu64, c, CTR_GET(s->rx[c].st.pkts));
		fprintf(out,
			"; handed to core 0 to send %" PRIu64 " (refused by the driver %" PRIu64
			")\n",
			st.handoff_sent, st.handoff_drop);
	}
	/* what the drivers lost before tdpd saw it */
	for (uint32_t p = 0; p < s->ndrv; p++) {
		struct pmd_counters d;
		if (pmd_port_counters(s->drv[p].dpdk_port, &d) != 0) {
			fprintf(out, "driver  %s: no counters from the driver\n", s->drv[p].name);
			continue;
		}
		fprintf(out,
			"driver  %s: rx %" PRIu64 ", missed %" PRIu64 ", no-mbuf %" PRIu64
			", errors %" PRIu64 "; tx %" PRIu64 ", errors %" PRIu64 "\n",
			s->drv[p].name, d.ipackets, d.imissed, d.rx_nombuf, d.ierrors, d.opackets,
			d.oerrors);
	}
	for (uint32_t p = 0; p < s->ndrv && p < s->rx->nports; p++) {
		struct rx_tap_stats ts;
		rx_tap_sum(s->rx, ncores(s), p, &ts);
		if (s->drv[p].tap)
			fprintf(out,
				"tap     %s on %s: to the kernel %" PRIu64 " (refused %" PRIu64
				"); from the kernel %" PRIu64 " (dropped %" PRIu64 ")\n",
				s->drv[p].name, s->drv[p].tap, ts.to_kernel, ts.to_kernel_drop,
				ts.from_kernel, ts.from_kernel_drop);
	}
}

static json_t *hist_json(const struct hist *live, bool bins)
{
	static _Thread_local struct hist snap;
	const struct hist *h = &snap;
	hist_snapshot(&snap, live);
	json_t *o = json_pack(
		"{sI sI sI sI sI sI sf sI sI}", "count", (json_int_t)h->count, "min",
		(json_int_t)(h->count ? h->min : 0), "p50", (json_int_t)hist_quantile(h, 0.5),
		"p99", (json_int_t)hist_quantile(h, 0.99), "p999",
		(json_int_t)hist_quantile(h, 0.999), "max", (json_int_t)(h->count ? h->max : 0),
		"mean", hist_mean(h), "under", (json_int_t)h->under, "over", (json_int_t)h->over);
	if (o && bins) {
		json_t *b = json_array();
		for (unsigned i = 0; b && i < HIST_NBINS; i++)
			if (h->bin[i])
				json_array_append_new(b, json_pack("[I I I]",
								   (json_int_t)hist_bin_lo(i),
								   (json_int_t)hist_bin_hi(i),
								   (json_int_t)h->bin[i]));
		json_object_set_new(o, "bins", b);
	}
	return o;
}

#define J(v) ((json_int_t)(v))
/* o[key] = c->field for each counter of a list of ctl_counters.h, with
 * json_t *o and the counters' struct c in scope */
#define KEY3(field, key, help) json_object_set_new(o, key, json_integer(J(c->field)));
#define KEY4(field, key, prom, help) KEY3(field, key, help)

json_t *summary_sync_json(struct timebase *tb)
{
	struct tb_sync sy;
	tb_sync(tb, &sy);
	json_t *o = json_pack("{ss ss sI sI sI sI sI}", "state", tb_state_name(sy.state), "reason",
			      sy.reason, "offset_ns", J(sy.offset_ns), "uncertainty_ns",
			      J(sy.uncertainty_ns), "last_good_ns", J(sy.last_good.ns), "since_ns",
			      J(sy.since.ns), "last_step_ns", J(sy.last_step_ns));
	const struct tb_sync *c = &sy;
	if (o) {
		CTL_SYNC_COUNTERS(KEY3)
	}
	return o;
}

/* a flow's counters (or their sums) into o, each under its key */
static void flow_counters(json_t *o, const struct flow_stats *fs, const struct flow_rx_sum *fr)
{
	{
		const struct flow_rx_sum *c = fr;
		CTL_FLOW_RX_COUNTERS(KEY3)
	}
	{
		const struct flow_stats *c = fs;
		CTL_FLOW_COUNTERS(KEY3)
	}
}

json_t *summary_flow_json(const struct sched_table *t, struct eng_table *et, uint32_t f)
{
	struct flow_stats fs;
	engine_table_flow_stats(et, f, &fs);
	struct flow_rx_sum fr;
	static _Thread_local struct hist arr;
	bool has_arr = engine_table_flow_rx_sum(et, f, &fr, &arr);
	json_t *o = json_pack("{ss ss}", "name", t->flows[f].name, "port",
			      t->ports[t->flows[f].port].name);
	if (!o)
		return NULL;
	flow_counters(o, &fs, &fr);
	if (t->flows[f].alpha && has_arr)
		json_object_set_new(o, "arrival_ns", hist_json(&arr, false));
	return o;
}

json_t *summary_flows_sum_json(const struct sched_table *t, struct eng_table *et)
{
	struct flow_stats fs;
	struct flow_rx_sum fr;
	flows_sum(t, et, &fs, &fr);
	json_t *o = json_pack("{sI}", "flows", (json_int_t)t->nflows);
	if (!o)
		return NULL;
	flow_counters(o, &fs, &fr);
	return o;
}

json_t *summary_port_json(const struct summary_src *s, uint32_t p)
{
	struct port_stats ps;
	engine_port_stats(s->e, p, &ps);
	json_t *o = json_pack("{ss}", "name", summary_table(s)->ports[p].name);
	if (!o)
		return NULL;
	const struct port_stats *c = &ps;
	CTL_PORT_COUNTERS(KEY3)
	return o;
}

json_t *summary_engine_json(const struct summary_src *s)
{
	struct eng_stats es;
	engine_stats(s->e, &es);
	struct pw_snap pw;
	pw_snapshot(engine_pw(s->e), &pw);
	json_t *o = json_pack(
		"{sf sI sI sI sI sI sI sI sI sI sI sI}", "duty", duty(&es, s->elapsed_s), "sleeps",
		J(pw.st.sleeps), "spins", J(pw.st.spins), "deferred", J(pw.st.deferred),
		"predicted_oversleep_ns", J(pw.pred_ns), "last_jump_frames", J(es.last_jump_frames),
		"last_swap_frame", J(es.last_swap_frame), "next_frame", J(engine_next_frame(s->e)),
		"last_push_ns", J(es.last_push_ns), "last_overrun_ns", J(es.last_overrun_ns),
		"last_overrun_entries", J(es.last_overrun_entries), "last_overrun_lead_ns",
		J(es.last_overrun_lead_ns));
	if (!o)
		return NULL;
	const struct eng_stats *c = &es;
	CTL_ENGINE_COUNTERS(KEY4)
	json_object_set_new(
		o, "predictor",
		pw.miss_ppb ? json_pack("{ss sf}", "kind", "quantile", "miss_target",
					(double)pw.miss_ppb / 1e9)
			    : json_pack("{ss si}", "kind", "max", "window", (int)pw.window));
	return o;
}

/* RX's counters; a NULL object takes none (jansson drops what is set in it) */
static json_t *rx_json(const struct rx_stats *c)
{
	json_t *o = json_object(), *drop = json_object(), *host = json_object(),
	       *icmp = json_object();
	CTL_RX_COUNTERS(KEY4)
	for (int i = 0; i < RXD_MAX; i++)
		json_object_set_new(drop, rx_drop_name((enum rx_drop)i),
				    json_integer(J(c->drop[i])));
	for (int i = PUNT_ARP; i < PUNT_MAX; i++)
		json_object_set_new(host, punt_class_name((enum punt_class)i),
				    json_integer(J(c->host[i])));
	for (int i = 0; i < ICMP_ERR_MAX; i++)
		json_object_set_new(icmp, icmp_err_name((enum icmp_err)i),
				    json_integer(J(c->icmp_sent[i])));
	json_object_set_new(o, "drop", drop);
	json_object_set_new(o, "host", host);
	json_object_set_new(o, "icmp_sent", icmp);
	json_t *outer = o;
	o = json_object();
	CTL_RX_ICMP_UNSENT(KEY4)
	json_object_set_new(outer, "icmp_not_sent", o);
	o = json_object();
	CTL_RX_FRAG_COUNTERS(KEY4)
	json_object_set_new(outer, "fragmented", o);
	return outer;
}

json_t *summary_rx_json(const struct rx *rx, uint32_t nrx)
{
	if (!nrx)
		nrx = 1;
	struct rx_stats st;
	rx_sum(rx, nrx, &st);
	json_t *o = rx_json(&st);
	uint64_t hq = 0, hr = 0, hf = 0, he = 0;
	for (uint32_t c = 0; c < nrx; c++)
		if (rx[c].hold) {
			hq += CTR_GET(rx[c].hold->queued);
			hr += CTR_GET(rx[c].hold->released);
			hf += CTR_GET(rx[c].hold->full);
			he += CTR_GET(rx[c].hold->expired);
		}
	/* best effort that waited for ARP/ND: the full and expired are in drop's no-neighbour */
	json_object_set_new(o, "held",
			    json_pack("{sI sI sI sI}", "queued", J(hq), "released", J(hr), "full",
				      J(hf), "expired", J(he)));
	json_t *cores = json_array();
	for (uint32_t c = 0; o && cores && c < nrx; c++) {
		rx_sum(rx + c, 1, &st);
		json_array_append_new(cores, rx_json(&st));
	}
	json_object_set_new(o, "cores", cores);
	return o;
}

json_t *summary_drv_json(uint16_t dpdk_port)
{
	struct pmd_counters d;
	if (pmd_port_counters(dpdk_port, &d) != 0)
		return json_null();
	return json_pack("{sI sI sI sI sI sI}", "rx", J(d.ipackets), "missed", J(d.imissed),
			 "no_mbuf", J(d.rx_nombuf), "rx_errors", J(d.ierrors), "tx", J(d.opackets),
			 "tx_errors", J(d.oerrors));
}

json_t *summary_tap_json(const struct rx_tap_stats *c)
{
	json_t *o = json_object();
	if (o) {
		CTL_TAP_COUNTERS(KEY3)
	}
	return o;
}

json_t *summary_tick_json(const struct summary_src *s)
{
	if (!s->tb->ops->tick)
		return NULL;
	const struct hist *th = engine_tick_hist(s->e);
	struct tb_tick_stats ts;
	tb_tick_stats(s->tb, &ts);
	return json_pack("{sI sI sI sI sI so}", "missed", J(ts.missed), "doubled", J(ts.doubled),
			 "backwards", J(ts.backwards), "off_grid", J(ts.off_grid), "spurious",
			 J(ts.spurious), "latency_ns", hist_json(th, false));
}

json_t *summary_to_json(const struct summary_src *s)
{
	struct eng_table *et = engine_table_current(s->e);
	const struct sched_table *t = engine_table_sched(et);
	json_t *o = json_pack("{si sf ss sI sI}", "version", 1, "elapsed_s", s->elapsed_s,
			      "timebase", s->timebase, "tf_ns", J(t->tf_ns), "k", J(t->k));
	json_object_set_new(o, "engine", summary_engine_json(s));
	json_t *tick = summary_tick_json(s);
	if (tick)
		json_object_set_new(o, "tick", tick);
	json_object_set_new(o, "sync", summary_sync_json(s->tb));
	json_object_set_new(o, "start_error_ns", hist_json(engine_error_hist(s->e), true));
	if (t->nflows > SUMMARY_FLOWS_MAX) {
		json_object_set_new(o, "flows_sum", summary_flows_sum_json(t, et));
	} else {
		json_t *fl = json_array();
		for (uint32_t f = 0; f < t->nflows; f++)
			json_array_append_new(fl, summary_flow_json(t, et, f));
		json_object_set_new(o, "flows", fl);
	}
	json_t *pt = json_array();
	for (uint32_t p = 0; p < t->nports; p++)
		json_array_append_new(pt, summary_port_json(s, p));
	json_object_set_new(o, "ports", pt);
	json_object_set_new(o, "rx", summary_rx_json(s->rx, s->nrx));
	json_t *dr = json_object();
	for (uint32_t p = 0; p < s->ndrv; p++)
		json_object_set_new(dr, s->drv[p].name, summary_drv_json(s->drv[p].dpdk_port));
	json_object_set_new(o, "driver", dr);
	json_t *tp = json_object();
	for (uint32_t p = 0; p < s->ndrv && p < s->rx->nports; p++)
		if (s->drv[p].tap) {
			struct rx_tap_stats ts;
			rx_tap_sum(s->rx, ncores(s), p, &ts);
			json_object_set_new(tp, s->drv[p].name, summary_tap_json(&ts));
		}
	json_object_set_new(o, "exception", tp);
	return o;
}

int summary_json(const struct summary_src *s, FILE *out)
{
	json_t *o = summary_to_json(s);
	if (!o)
		return -1;
	int rc = json_dumpf(o, out, JSON_COMPACT);
	fputc('\n', out);
	json_decref(o);
	return rc;
}
