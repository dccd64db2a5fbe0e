/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "summary.h"

static double duty(const struct eng_stats *es, double elapsed_s)
{
	if (elapsed_s <= 0)
		return 0;
	double d = 1.0 - (double)es->sleep_ns / (elapsed_s * 1e9);
	return d < 0 ? 0 : d > 1 ? 1 : d;
}

static uint64_t rx_drops(const struct rx *rx)
{
	uint64_t d = 0;
	for (int i = 0; i < RXD_MAX; i++)
		d += rx->st.drop[i];
	return d;
}

void summary_line(const struct summary_src *s, char *buf, size_t len)
{
	struct eng_stats es;
	engine_stats(s->e, &es);
	const struct hist *h = engine_error_hist(s->e);
	uint64_t ovf = 0;
	for (uint32_t f = 0; f < s->t->nflows; f++)
		ovf += __atomic_load_n(&s->rx->flow_overflow[f], __ATOMIC_RELAXED);
	snprintf(buf, len,
		 "sync %s | frames %" PRIu64 " late %" PRIu64 " skipped %" PRIu64 " | start error p50 %" PRId64 " ns p99 %" PRId64
		 " ns max %" PRId64 " ns | rx %" PRIu64 " reserved %" PRIu64 " best-effort %" PRIu64 " dropped %" PRIu64
		 " overflow %" PRIu64,
		 tb_state_name(tb_state(s->tb)), es.frames, es.late_frames, es.skipped_frames, hist_quantile(h, 0.5),
		 hist_quantile(h, 0.99), h->count ? h->max : 0, s->rx->st.pkts, s->rx->st.reserved, s->rx->st.best_effort, rx_drops(s->rx), ovf);
}

void summary_text(const struct summary_src *s, FILE *out)
{
	const struct sched_table *t = s->t;
	struct eng_stats es;
	engine_stats(s->e, &es);
	const struct hist *h = engine_error_hist(s->e);
	const struct pw *pw = engine_pw(s->e);
	fprintf(out, "tdpd: ran %.3f s on the %s timebase, TF %" PRIu64 " ns, k %u\n", s->elapsed_s, s->timebase,
		t->tf_ns, t->k);
	fprintf(out, "frames  %" PRIu64 " processed, %" PRIu64 " late, %" PRIu64 " skipped; engine busy %.1f%% of its CPU\n",
		es.frames, es.late_frames, es.skipped_frames, 100.0 * duty(&es, s->elapsed_s));
	fprintf(out, "frame-start error (push - nominal start), ns: min %" PRId64 " p50 %" PRId64 " p99 %" PRId64
		     " p99.9 %" PRId64 " max %" PRId64 " (over 1 s: %" PRIu64 ")\n",
		h->count ? h->min : 0, hist_quantile(h, 0.5), hist_quantile(h, 0.99), hist_quantile(h, 0.999),
		h->count ? h->max : 0, h->over);
	struct tb_sync sy;
	s->tb->ops->sync(s->tb, &sy);
	fprintf(out, "sync    %s: %s; offset %" PRId64 " ns, uncertainty %" PRId64 " ns; %" PRIu64 " samples (%" PRIu64
		     " bad), %" PRIu64 " faults, %" PRIu64 " transitions, %" PRIu64 " phase steps\n",
		tb_state_name(sy.state), sy.reason, sy.offset_ns, sy.uncertainty_ns, sy.samples, sy.bad_samples,
		sy.faults, sy.transitions, sy.steps);
	fprintf(out, "        frames in holdover %" PRIu64 ", unlocked %" PRIu64 ", alarm %" PRIu64 ", demoted %" PRIu64
		     "; skips %" PRIu64 ", steps back %" PRIu64 " (%" PRIu64 " frames repeated, none re-sent)\n",
		es.holdover_frames, es.unlocked_frames, es.alarm_frames, es.demoted_frames, es.skip_events, es.back_steps,
		es.repeated_frames);
	if (s->tb->ops->tick_stats) {
		const struct hist *th = engine_tick_hist(s->e);
		struct tb_tick_stats ts;
		s->tb->ops->tick_stats(s->tb, &ts);
		fprintf(out, "ticks   %" PRIu64 " taken, %" PRIu64 " timed out, %" PRIu64 " missed, %" PRIu64 " doubled, %" PRIu64
			     " spurious; tick latency from the frame start p50 %" PRId64 " ns p99 %" PRId64 " ns max %" PRId64
			     " ns\n",
			es.ticks, es.tick_timeouts, ts.missed, ts.doubled, ts.spurious, hist_quantile(th, 0.5),
			hist_quantile(th, 0.99), th->count ? th->max : 0);
	}
	fprintf(out, "wait    %" PRIu64 " sleeps, %" PRIu64 " spins, predicted oversleep %" PRId64
		     " ns, bookkeeping %" PRId64 " ns (%" PRIu64 " deferred)\n",
		pw->st.sleeps, pw->st.spins, pw->pred_ns, pw_book_ns(pw), pw->st.deferred);
	fprintf(out, "\n%-16s %-8s %10s %10s %10s %8s %8s %8s %8s %8s %8s\n", "flow", "port", "rx", "reserved", "sent",
		"unused", "late-drop", "carried", "overflow", "tx-drop", "demoted");
	for (uint32_t f = 0; f < t->nflows; f++) {
		struct flow_stats fs;
		engine_flow_stats(s->e, f, &fs);
		fprintf(out, "%-16s %-8s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
			     " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n",
			t->flows[f].name, t->ports[t->flows[f].port].name, s->rx->flow_enq[f], fs.reserved, fs.sent,
			fs.unused, fs.late_dropped, fs.late_carried, s->rx->flow_overflow[f], fs.tx_drop, fs.demoted);
	}
	fprintf(out, "\n%-10s %10s %8s %12s %12s %12s %8s %8s\n", "port", "frames", "late", "reserved", "best-effort",
		"be-bytes", "too-big", "tx-drop");
	for (uint32_t p = 0; p < t->nports; p++) {
		struct port_stats ps;
		engine_port_stats(s->e, p, &ps);
		fprintf(out, "%-10s %10" PRIu64 " %8" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %8" PRIu64
			     " %8" PRIu64 "\n",
			t->ports[p].name, ps.frames, ps.late_frames, ps.rsv_pkts, ps.be_pkts, ps.be_bytes, ps.be_too_big,
			ps.tx_drop + ps.be_tx_drop);
	}
	fprintf(out, "\nrx      %" PRIu64 " packets, %" PRIu64 " reserved, %" PRIu64 " best effort; dropped:", s->rx->st.pkts,
		s->rx->st.reserved, s->rx->st.best_effort);
	for (int i = 0; i < RXD_MAX; i++)
		fprintf(out, " %s %" PRIu64, rx_drop_name((enum rx_drop)i), s->rx->st.drop[i]);
	fputc('\n', out);
}

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

void summary_json(const struct summary_src *s, FILE *out)
{
	const struct sched_table *t = s->t;
	struct eng_stats es;
	engine_stats(s->e, &es);
	const struct hist *h = engine_error_hist(s->e);
	const struct pw *pw = engine_pw(s->e);
	fprintf(out, "{\"version\":1,\"elapsed_s\":%.6f,\"timebase\":", s->elapsed_s);
	json_str(out, s->timebase);
	fprintf(out, ",\"tf_ns\":%" PRIu64 ",\"k\":%u", t->tf_ns, t->k);
	fprintf(out, ",\"engine\":{\"frames\":%" PRIu64 ",\"late_frames\":%" PRIu64 ",\"skipped_frames\":%" PRIu64
		     ",\"sleep_ns\":%" PRIu64 ",\"duty\":%.4f,\"sleeps\":%" PRIu64 ",\"spins\":%" PRIu64
		     ",\"deferred\":%" PRIu64 ",\"predicted_oversleep_ns\":%" PRId64 ",\"skip_events\":%" PRIu64
		     ",\"back_steps\":%" PRIu64 ",\"repeated_frames\":%" PRIu64 ",\"last_jump_frames\":%" PRId64
		     ",\"holdover_frames\":%" PRIu64 ",\"unlocked_frames\":%" PRIu64 ",\"alarm_frames\":%" PRIu64
		     ",\"demoted_frames\":%" PRIu64 ",\"ticks\":%" PRIu64 ",\"tick_timeouts\":%" PRIu64 "}",
		es.frames, es.late_frames, es.skipped_frames, es.sleep_ns, duty(&es, s->elapsed_s), pw->st.sleeps,
		pw->st.spins, pw->st.deferred, pw->pred_ns, es.skip_events, es.back_steps, es.repeated_frames,
		es.last_jump_frames, es.holdover_frames, es.unlocked_frames, es.alarm_frames, es.demoted_frames, es.ticks,
		es.tick_timeouts);
	if (s->tb->ops->tick_stats) {
		const struct hist *th = engine_tick_hist(s->e);
		struct tb_tick_stats ts;
		s->tb->ops->tick_stats(s->tb, &ts);
		fprintf(out, ",\"tick\":{\"missed\":%" PRIu64 ",\"doubled\":%" PRIu64 ",\"backwards\":%" PRIu64
			     ",\"off_grid\":%" PRIu64 ",\"spurious\":%" PRIu64 ",\"latency_ns\":{\"count\":%" PRIu64
			     ",\"p50\":%" PRId64 ",\"p99\":%" PRId64 ",\"max\":%" PRId64 "}}",
			ts.missed, ts.doubled, ts.backwards, ts.off_grid, ts.spurious, th->count, hist_quantile(th, 0.5),
			hist_quantile(th, 0.99), th->count ? th->max : 0);
	}
	struct tb_sync sy;
	s->tb->ops->sync(s->tb, &sy);
	fprintf(out, ",\"sync\":{\"state\":\"%s\",\"reason\":", tb_state_name(sy.state));
	json_str(out, sy.reason ? sy.reason : "");
	fprintf(out, ",\"offset_ns\":%" PRId64 ",\"uncertainty_ns\":%" PRId64 ",\"last_good_ns\":%" PRId64
		     ",\"since_ns\":%" PRId64 ",\"samples\":%" PRIu64 ",\"bad_samples\":%" PRIu64 ",\"faults\":%" PRIu64
		     ",\"transitions\":%" PRIu64 ",\"steps\":%" PRIu64 ",\"last_step_ns\":%" PRId64 "}",
		sy.offset_ns, sy.uncertainty_ns, sy.last_good.ns, sy.since.ns, sy.samples, sy.bad_samples, sy.faults,
		sy.transitions, sy.steps, sy.last_step_ns);
	fprintf(out, ",\"start_error_ns\":{\"count\":%" PRIu64 ",\"min\":%" PRId64 ",\"p50\":%" PRId64 ",\"p99\":%" PRId64
		     ",\"p999\":%" PRId64 ",\"max\":%" PRId64 ",\"mean\":%.1f,\"under\":%" PRIu64 ",\"over\":%" PRIu64
		     ",\"bins\":[",
		h->count, h->count ? h->min : 0, hist_quantile(h, 0.5), hist_quantile(h, 0.99), hist_quantile(h, 0.999),
		h->count ? h->max : 0, hist_mean(h), h->under, h->over);
	bool first = true;
	for (unsigned b = 0; b < HIST_NBINS; b++) {
		if (!h->bin[b])
			continue;
		fprintf(out, "%s[%" PRId64 ",%" PRId64 ",%" PRIu64 "]", first ? "" : ",", hist_bin_lo(b), hist_bin_hi(b),
			h->bin[b]);
		first = false;
	}
	fprintf(out, "]},\"flows\":[");
	for (uint32_t f = 0; f < t->nflows; f++) {
		struct flow_stats fs;
		engine_flow_stats(s->e, f, &fs);
		fprintf(out, "%s{\"name\":", f ? "," : "");
		json_str(out, t->flows[f].name);
		fprintf(out, ",\"port\":");
		json_str(out, t->ports[t->flows[f].port].name);
		fprintf(out, ",\"rx\":%" PRIu64 ",\"overflow\":%" PRIu64 ",\"reserved\":%" PRIu64 ",\"sent\":%" PRIu64
			     ",\"unused\":%" PRIu64 ",\"late_dropped\":%" PRIu64 ",\"late_carried\":%" PRIu64
			     ",\"late_slots\":%" PRIu64 ",\"late_frames\":%" PRIu64 ",\"tx_drop\":%" PRIu64
			     ",\"demoted\":%" PRIu64 "}",
			s->rx->flow_enq[f], s->rx->flow_overflow[f], fs.reserved, fs.sent, fs.unused, fs.late_dropped,
			fs.late_carried, fs.late_slots, fs.late_frames, fs.tx_drop, fs.demoted);
	}
	fprintf(out, "],\"ports\":[");
	for (uint32_t p = 0; p < t->nports; p++) {
		struct port_stats ps;
		engine_port_stats(s->e, p, &ps);
		fprintf(out, "%s{\"name\":", p ? "," : "");
		json_str(out, t->ports[p].name);
		fprintf(out, ",\"frames\":%" PRIu64 ",\"late_frames\":%" PRIu64 ",\"reserved_pkts\":%" PRIu64
			     ",\"reserved_bytes\":%" PRIu64 ",\"be_pkts\":%" PRIu64 ",\"be_bytes\":%" PRIu64
			     ",\"be_too_big\":%" PRIu64 ",\"tx_drop\":%" PRIu64 ",\"be_tx_drop\":%" PRIu64 "}",
			ps.frames, ps.late_frames, ps.rsv_pkts, ps.rsv_bytes, ps.be_pkts, ps.be_bytes, ps.be_too_big,
			ps.tx_drop, ps.be_tx_drop);
	}
	fprintf(out, "],\"rx\":{\"pkts\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"reserved\":%" PRIu64 ",\"best_effort\":%" PRIu64
		     ",\"drop\":{",
		s->rx->st.pkts, s->rx->st.bytes, s->rx->st.reserved, s->rx->st.best_effort);
	for (int i = 0; i < RXD_MAX; i++) {
		fprintf(out, "%s", i ? "," : "");
		json_str(out, rx_drop_name((enum rx_drop)i));
		fprintf(out, ":%" PRIu64, s->rx->st.drop[i]);
	}
	fprintf(out, "}}}\n");
}
