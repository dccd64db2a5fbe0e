/* SPDX-License-Identifier: BSD-3-Clause */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "tdpd.h"
#include "watch.h"

/* The uncertainty against the table's sync budget, as the engine sees it
 * at each frame: said when it goes past (and every WATCH_MOVED_LOG_NS while
 * it stays), and when it is back within. */
static void watch_budget(struct tdpd *d, struct watch *w, int64_t now)
{
	const struct sched_table *t = engine_table_sched(engine_table_current(d->e));
	int64_t budget = sched_sync_budget(t), unc = tb_uncertainty(d->tb);
	bool over = budget >= 0 && unc > budget;
	struct eng_stats es;
	char from[64];
	if (!over && !w->over_since_ns)
		return;
	engine_stats(d->e, &es);
	if (t->sync_err_set)
		snprintf(from, sizeof(from), "the table's sync-error");
	else
		snprintf(from, sizeof(from), "a quarter of the table's %" PRIu64 " ns guard band",
			 t->guard_ns);
	int64_t act = d->conf.sync_budget_action;
	if (over) {
		if (!w->over_since_ns)
			w->over_since_ns = now;
		if (w->over_log_ns && now - w->over_log_ns < WATCH_MOVED_LOG_NS)
			return;
		tdp_log(act == SA_SERVE ? LOG_WARNING : LOG_ERR,
			"%ssync: uncertainty %" PRId64 " ns is past the sync budget, %" PRId64
			" ns (%s): this router's "
			"frames may be further from its neighbours' than the plan allows; %s "
			"(%" PRIu64 " frames over "
			"budget in all)",
			act == SA_SERVE ? "" : "ALARM: ", unc, budget, from,
			act == SA_DEMOTE ? "reserved flows demoted to best effort"
					 : "still serving reserved flows",
			es.over_budget_frames);
		w->over_log_ns = now;
	} else if (now - w->over_log_ns >= WATCH_MOVED_LOG_NS) {
		/* within again, and quiet for as long as the repeat: one line for
		 * the episode, however often it went past meanwhile */
		log_notice("sync: uncertainty %" PRId64 " ns back within the sync budget, %" PRId64
			   " ns (%s); it first "
			   "went past %.1f s ago (%" PRIu64 " frames over budget in all)",
			   unc, budget, from, (double)(now - w->over_since_ns) / 1e9,
			   es.over_budget_frames);
		w->over_since_ns = 0;
		w->over_log_ns = 0;
	}
}

/* the sync state as the engine sees it, and the engine's frame jumps */
static void watch_sync(struct tdpd *d, struct watch *w)
{
	const struct conf *c = &d->conf;
	enum tb_state st = tb_state(d->tb);
	if (st != w->state) {
		struct tb_sync sy;
		tb_sync(d->tb, &sy);
		int64_t act = st == TB_HOLDOVER	  ? c->sync_holdover_action
			      : st == TB_UNLOCKED ? c->sync_unlocked_action
						  : 0;
		const char *what =
			st == TB_LOCKED	   ? "serving reserved flows"
			: act == SA_DEMOTE ? "ALARM: reserved flows demoted to best effort"
			: act == SA_ALARM
				? "ALARM: still serving reserved flows on an unsynchronised clock"
				: "still serving reserved flows";
		tdp_log(st == TB_LOCKED	  ? LOG_NOTICE
			: act == SA_SERVE ? LOG_WARNING
					  : LOG_ERR,
			"sync: %s -> %s (%s), offset %" PRId64 " ns, uncertainty %" PRId64
			" ns: %s",
			tb_state_name(w->state), tb_state_name(st), sy.reason, sy.offset_ns,
			sy.uncertainty_ns, what);
		w->state = st;
	}
	int64_t now = tdp_mono_ns();
	watch_budget(d, w, now);
	if (now < w->next_jump_log)
		return;
	struct eng_stats es;
	engine_stats(d->e, &es);
	bool overran = es.stage_overruns != w->overruns;
	if (es.skip_events != w->skip_events || es.back_steps != w->back_steps || overran)
		w->next_jump_log = now + TDP_NS_PER_S;
	if (overran) {
		uint64_t n = es.stage_overruns - w->overruns;
		log_warn("frames: %" PRIu64 " row%s still being staged at %s frame's start "
			 "(latest: %" PRId64 " entries took %" PRId64 " us, begun %" PRId64
			 " us before the start): those frames went out after their start, late "
			 "or skipped",
			 n, n == 1 ? "" : "s", n == 1 ? "its" : "their", es.last_overrun_entries,
			 es.last_overrun_ns / 1000, es.last_overrun_lead_ns / 1000);
		w->overruns = es.stage_overruns;
	}
	if (es.skip_events != w->skip_events) {
		uint64_t ev = es.skip_events - w->skip_events,
			 after = es.overrun_skips - w->overrun_skips;
		char why[200];
		if (after)
			snprintf(why, sizeof(why),
				 "%" PRIu64 " of %" PRIu64
				 " skips right after a row staged past its start (above)%s",
				 after, ev,
				 after < ev ? ", the rest a late wake-up or the reference stepped "
					      "forward"
					    : "");
		else
			snprintf(why, sizeof(why),
				 "a late wake-up or the reference stepped forward");
		log_warn("frames: %" PRIu64
			 " frame%s skipped since the last report (latest jump %" PRId64
			 " frames): %s",
			 es.skipped_frames - w->skipped,
			 es.skipped_frames - w->skipped == 1 ? "" : "s", es.last_jump_frames, why);
		w->skip_events = es.skip_events;
		w->skipped = es.skipped_frames;
		w->overrun_skips = es.overrun_skips;
	}
	if (es.back_steps != w->back_steps) {
		log_warn("frames: the reference stepped back; %" PRIu64
			 " frame start%s came round again and their rows "
			 "were not sent twice (latest step %" PRId64 " frames)",
			 es.repeated_frames - w->repeated,
			 es.repeated_frames - w->repeated == 1 ? "" : "s", es.last_jump_frames);
		w->back_steps = es.back_steps;
		w->repeated = es.repeated_frames;
	}
}

/* the configured port a flow's packets moved to, by name */
static const char *port_name(const struct tdpd *d, uint32_t moved_port)
{
	return moved_port && moved_port <= d->conf.nports ? d->conf.ports[moved_port - 1].name
							  : "none (no route)";
}

/* Reserved flows whose route moved off their port: said when it starts, at
 * most every WATCH_MOVED_LOG_NS while it lasts, and when it ends. Reads
 * flows [from, to) of the table in force; false when that is another table
 * than the pass began with (the pass starts again). */
static bool watch_moved(struct tdpd *d, struct watch *w, int64_t now, uint32_t from, uint32_t to)
{
	struct eng_table *et = engine_table_current(d->e);
	const struct sched_table *t = engine_table_sched(et);
	if (et != w->et) {
		/* another table: each flow is primed at its first read */
		struct watch_flow *fl = calloc(t->nflows ? t->nflows : 1, sizeof(*fl));
		if (!fl)
			return false;
		free(w->fl);
		w->fl = fl;
		w->et = et;
		w->nflows = t->nflows;
		return false;
	}
	const char *policy = d->conf.moved_route == RX_MOVED_BEST_EFFORT
				     ? "sent as best effort by the new route"
				     : "dropped";
	for (uint32_t f = from; f < to && f < w->nflows; f++) {
		struct watch_flow *x = &w->fl[f];
		struct flow_rx_sum fr;
		engine_table_flow_rx_sum(et, f, &fr, NULL);
		if (!x->primed) {
			/* its counts so far are not news; a move that began and
			 * ended before this first read (a table past 1,024 flows,
			 * the first pass's seconds) is left to the counters and
			 * the alarm (moved_at_ns), not logged */
			x->seen = x->logged = fr.route_moved;
			x->guard_seen = x->guard_logged = fr.arr_guard;
			x->primed = true;
			continue;
		}
		const char *name = t->flows[f].name, *own = t->ports[t->flows[f].port].name;
		x->guard_seen = fr.arr_guard;
		if (x->guard_seen > x->guard_logged &&
		    (!x->guard_log_ns || now - x->guard_log_ns >= WATCH_MOVED_LOG_NS)) {
			log_warn("flow %s: %" PRIu64 " packet%s arrived in the guard band of the "
				 "upstream frame %s mapped to "
				 "(%" PRIu64 " in all), where a push lands only when the two "
				 "routers' frames are apart by "
				 "up to their sync errors; past the band a packet is taken for the "
				 "next frame: look at "
				 "both clocks (tdpctl sync) against the plan's sync budget, and at "
				 "the link",
				 name, x->guard_seen - x->guard_logged,
				 x->guard_seen - x->guard_logged == 1 ? "" : "s",
				 x->guard_seen - x->guard_logged == 1 ? "it was" : "they were",
				 x->guard_seen);
			x->guard_logged = x->guard_seen;
			x->guard_log_ns = now;
		}
		if (fr.route_moved > x->seen) {
			x->seen = fr.route_moved;
			x->rose_ns = now;
			if (!x->log_ns || now - x->log_ns >= WATCH_MOVED_LOG_NS) {
				log_warn("ALARM: flow %s: its route leaves by port %s, not by its "
					 "port %s: %" PRIu64
					 " reserved packet%s %s (moved-route; %" PRIu64 " in all)",
					 name, port_name(d, fr.moved_port), own,
					 x->seen - x->logged, x->seen - x->logged == 1 ? "" : "s",
					 policy, x->seen);
				x->logged = x->seen;
				x->log_ns = now;
			}
		} else if (x->log_ns && now - x->rose_ns >= WATCH_MOVED_LOG_NS) {
			log_notice("flow %s: no packet of it has left its route by port %s for "
				   "%.0f s (%" PRIu64 " %s since the last report, %" PRIu64
				   " in all)",
				   name, own, (double)(now - x->rose_ns) / 1e9, x->seen - x->logged,
				   policy, x->seen);
			x->logged = x->seen;
			x->log_ns = 0;
		}
	}
	return true;
}

void watch_init(struct watch *w, struct tdpd *d)
{
	memset(w, 0, sizeof(*w));
	w->state = tb_state(d->tb);
}

void watch(struct tdpd *d, struct watch *w)
{
	watch_sync(d, w);
	int64_t now = tdp_mono_ns();
	if (!w->next_flow) {
		if (now < w->next_moved_check)
			return;
		w->next_moved_check = now + 1000000000;
	}
	/* a slice of the pass; next_flow counts from 1 (0: no pass) */
	uint32_t from = w->next_flow ? w->next_flow - 1 : 0, to = from + WATCH_FLOWS_A_STEP;
	if (!watch_moved(d, w, now, from, to))
		w->next_flow = 1; /* a new table: a pass from its first flow */
	else if (to < w->nflows)
		w->next_flow = to + 1;
	else
		w->next_flow = 0; /* the pass is done */
}

void watch_free(struct watch *w)
{
	free(w->fl);
	w->fl = NULL;
}
