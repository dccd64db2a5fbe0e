/* SPDX-License-Identifier: BSD-3-Clause */
/* The frame loop and the counter readers (engine_state.h). */
#include <poll.h>
#include <string.h>

#include <rte_pause.h>

#include "engine_state.h"

/* ---- the hot path ------------------------------------------------------- */

static inline void maybe_adopt(struct engine *e, int64_t j)
{
	struct eng_table *nt = claim(e, j);
	if (__builtin_expect(nt != NULL, 0))
		eng_adopt(e, nt, j);
}

/*
 * Sees steps back of the reference in the times the engine reads: the frame
 * index of a read below that of an earlier one means frame starts come round
 * again. They are counted; next stays where it is, so no row goes out twice.
 */
static void note_time(struct engine *e, tdp_time_t now)
{
	int64_t i = frame_index(&e->g, now);
	if (i < e->seen) {
		CTR_ADD(e->st.back_steps, 1);
		CTR_ADD(e->st.repeated_frames, (uint64_t)(e->seen - i));
		CTR_SET(e->st.last_jump_frames, i - e->seen);
	}
	e->seen = i;
}

/*
 * The tick-driven path: waits for the tick that marks the start of frame j-1
 * (older ones, doubled and spurious ones are read and passed over), at most
 * until the precise wait for start(j) has to begin.
 */
static void await_tick(struct engine *e, int64_t j, tdp_time_t boundary)
{
	for (;;) {
		tdp_time_t now = tb_fast_now(e->tb);
		int64_t left =
			tdp_time_diff(boundary, now) - pw_lead_ns(&e->pw) - e->pw.cfg.min_sleep_ns;
		if (left <= 0) {
			CTR_ADD(e->st.tick_timeouts, 1);
			return;
		}
		struct timespec ts = {left / TDP_NS_PER_S, left % TDP_NS_PER_S};
		struct pollfd pfd = {.fd = e->tick_fd, .events = POLLIN};
		int r = ppoll(&pfd, 1, &ts, NULL);
		if (r == 0) {
			CTR_ADD(e->st.tick_timeouts, 1);
			return;
		}
		if (r < 0)
			return; /* a signal: the stop flag is looked at after this frame */
		int64_t f = e->tb->ops->tick(e->tb);
		if (f < 0)
			continue;
		CTR_ADD(e->st.ticks, 1);
		if (f ==
		    j - 1) /* an older one waited while the engine was elsewhere: not a latency */
			hist_add(&e->tick_lat,
				 tdp_time_diff(tb_fast_now(e->tb), frame_start(&e->g, f)));
		if (f >= j - 1)
			return;
	}
}

/*
 * Stages frame j, and counts it when the staging itself ran past the
 * boundary: begun before it and ended after it. The frame then goes out after
 * its start (or late, or is skipped) for the staging (a row longer than the
 * time left allows, or the engine kept from its CPU while at it: the entries
 * and the time kept tell which), not for a late wake-up or a step of the
 * reference, and the skip report says so.
 */
static void stage_timed(struct engine *e, int64_t j, tdp_time_t boundary)
{
	tdp_time_t s0 = tb_fast_now(e->tb);
	uint32_t n = eng_stage(e, j);
	tdp_time_t s1 = tb_fast_now(e->tb);
	e->overran = tdp_time_before(s0, boundary) && !tdp_time_before(s1, boundary);
	if (e->overran) {
		CTR_ADD(e->st.stage_overruns, 1);
		CTR_SET(e->st.last_overrun_ns, tdp_time_diff(s1, s0));
		CTR_SET(e->st.last_overrun_entries, (int64_t)n);
		CTR_SET(e->st.last_overrun_lead_ns, tdp_time_diff(boundary, s0));
	}
}

/*
 * Wait for the boundary of frame j: sleep in be_poll slices while filling best
 * effort, stage j, then the predictive sleep and a poll to the boundary. A
 * step back while polling (more than a frame left) goes back to sleeping.
 * Returns the time read that passed the boundary: the push time.
 */
static tdp_time_t wait_and_stage(struct engine *e, int64_t j, tdp_time_t boundary)
{
	struct timebase *tb = e->tb;
	if (e->tick_fd >= 0)
		await_tick(e, j, boundary);
	tdp_time_t now = tb_fast_now(tb);
	e->overran = false;
	if (e->be_poll_ns > 0) {
		for (;;) {
			eng_be_fill_all(e, now);
			int64_t left = tdp_time_diff(boundary, now) - pw_lead_ns(&e->pw);
			if (left < e->be_poll_ns + e->pw.cfg.min_sleep_ns)
				break;
			tdp_time_t to = tdp_time_add(now, e->be_poll_ns);
			tb_sleep_until(tb, to);
			tdp_time_t woke = tb_fast_now(tb);
			if (tdp_time_before(now, woke))
				CTR_ADD(e->st.sleep_ns, (uint64_t)tdp_time_diff(woke, now));
			pw_woke(&e->pw, to, woke, boundary);
			note_time(e, woke);
			now = woke;
		}
	}
	if (!e->demote)
		stage_timed(e, j, boundary);
	eng_be_fill_all(e, now);
	for (;;) {
		now = tb_fast_now(tb);
		tdp_time_t to;
		if (pw_plan(&e->pw, now, boundary, &to)) {
			tb_sleep_until(tb, to);
			tdp_time_t woke = tb_fast_now(tb);
			if (tdp_time_before(now, woke))
				CTR_ADD(e->st.sleep_ns, (uint64_t)tdp_time_diff(woke, now));
			if (pw_woke(&e->pw, to, woke, boundary))
				pw_book_cost(&e->pw, tdp_time_diff(tb_fast_now(tb), woke));
			note_time(e, woke);
			now = tb_fast_now(tb);
		}
		while (tdp_time_before(now, boundary) &&
		       tdp_time_diff(boundary, now) <= e->g.tf_ns) {
			rte_pause();
			now = tb_fast_now(tb);
		}
		if (!tdp_time_before(now, boundary))
			return now;
		note_time(e, now);
		eng_be_fill_all(e, now);
	}
}

void engine_start(struct engine *e)
{
	tdp_time_t now = tb_now(e->tb);
	CTR_SET(e->next, frame_index(&e->g, now) + 1);
	if (e->tab->adopted == INT64_MIN)
		__atomic_store_n(&e->tab->adopted, e->next, __ATOMIC_RELEASE);
	e->seen = e->next - 1;
	e->fill_end = tdp_time_add(frame_start(&e->g, e->next), -e->guard_ns);
}

/* ---- the step of one frame, in named steps ---------------------------- */

/* 1. The table for frame j, and what the sync state asks of the frame: its
 * state's action, and the budget's when the uncertainty exceeds the table's
 * sync budget (the stricter of the two is applied). */
static enum sync_action step_begin(struct engine *e, int64_t j, enum tb_state *ss, bool *over)
{
	maybe_adopt(e, j);
	*ss = tb_state(e->tb);
	enum sync_action act = e->act[*ss];
	int64_t budget = sched_sync_budget(e->tab->t);
	*over = budget >= 0 && tb_uncertainty(e->tb) > budget;
	e->demote = act == SA_DEMOTE || (*over && e->act_budget == SA_DEMOTE);
	note_time(e, tb_fast_now(e->tb));
	return act;
}

/* 3. What the frame's wake-up was: its start error and its sync state. */
static void step_count(struct engine *e, tdp_time_t pushed_at, tdp_time_t start, enum tb_state ss,
		       enum sync_action act, bool over)
{
	hist_add(&e->err, tdp_time_diff(pushed_at, start));
	CTR_ADD(e->st.frames, 1);
	if (ss == TB_HOLDOVER)
		CTR_ADD(e->st.holdover_frames, 1);
	else if (ss == TB_UNLOCKED)
		CTR_ADD(e->st.unlocked_frames, 1);
	if (act == SA_ALARM)
		CTR_ADD(e->st.alarm_frames, 1);
	if (over)
		CTR_ADD(e->st.over_budget_frames, 1);
	if (e->demote)
		CTR_ADD(e->st.demoted_frames, 1);
}

/* 4a. Woke in frame woke_in > j: j and every frame up to woke_in are late.
 * The frames passed are walked (at most one cycle) so that each row's
 * packets follow the late policy and each table takes effect in order. */
static void step_skip(struct engine *e, int64_t j, int64_t woke_in)
{
	for (uint32_t p = 0; p < e->nports; p++)
		eng_late_port(e, &e->ports[p]);
	int64_t skipped = woke_in - j;
	int64_t walk = skipped < (int64_t)e->g.k ? skipped : (int64_t)e->g.k;
	if (e->demote)
		walk = 0; /* no reservation is being served: nothing to account */
	for (int64_t k = 1; k <= walk; k++) {
		maybe_adopt(e, j + k);
		eng_skip_frame(e, j + k);
	}
	/* a table due in the frames not walked took effect at its own frame */
	struct eng_table *nt = claim(e, woke_in);
	if (nt)
		eng_adopt(e, nt, nt->at);
	CTR_ADD(e->st.late_frames, 1);
	CTR_ADD(e->st.skipped_frames, (uint64_t)skipped);
	CTR_ADD(e->st.skip_events, 1);
	CTR_SET(e->st.last_jump_frames, skipped);
	CTR_SET(e->next, woke_in + 1);
}

/* A port's push at t, or its late policy when the burst would no longer end
 * before the guard band at `end`. True when late. */
static bool push_port(struct engine *e, struct eng_port *pt, int64_t j, tdp_time_t t,
		      tdp_time_t end, const struct launch_map *lm)
{
	if (pt->nstage && tdp_time_diff(end, tdp_time_max(t, pt->cursor)) < pt->stage_wire_ns) {
		eng_late_port(e, pt);
		return true;
	}
	eng_push(e, pt, j, t, end, lm);
	return false;
}

/* Launch-time ports, handed over a lead before start: each with its launch
 * times when its map is ready and the hand-over is no later than start -
 * launch-margin, else marked for the CPU push at start. True when a marked
 * port has a row to push. */
static bool push_launch(struct engine *e, int64_t j, tdp_time_t start, tdp_time_t pushed_at,
			tdp_time_t end, bool *late)
{
	tdp_time_t by = tdp_time_add(start, -e->launch_margin_ns);
	bool cpu = false;
	for (uint32_t p = 0; p < e->nports; p++) {
		struct eng_port *pt = &e->ports[p];
		struct launch_map lm;
		pt->cpu_push = true;
		if (pt->c.launch && launch_map_get(pt->c.launch, &lm) &&
		    !tdp_time_before(by, pushed_at)) {
			pt->cpu_push = false;
			*late |= push_port(e, pt, j, start, end, &lm);
		} else if (pt->c.launch && pt->nseg) {
			CTR_ADD(*(tdp_time_before(by, pushed_at) ? &pt->st.launch_late
								 : &pt->st.launch_unready),
				1);
		}
		cpu |= pt->cpu_push && pt->nseg;
	}
	return cpu;
}

/* 4b. On time: each port pushes its burst, or follows the late policy when
 * the burst would no longer end before the guard band. With launch-time
 * ports, those go first and the others after a poll to start(j). */
static void step_push(struct engine *e, int64_t j, tdp_time_t start, tdp_time_t pushed_at)
{
	tdp_time_t end = tdp_time_add(start, e->g.tf_ns - e->guard_ns);
	bool late = false;
	if (e->lead_ns && push_launch(e, j, start, pushed_at, end, &late)) {
		while (tdp_time_before(pushed_at, start)) {
			rte_pause();
			pushed_at = tb_fast_now(e->tb);
		}
	}
	for (uint32_t p = 0; p < e->nports; p++) {
		struct eng_port *pt = &e->ports[p];
		if (!e->lead_ns || pt->cpu_push)
			late |= push_port(e, pt, j, pushed_at, end, NULL);
	}
	if (late)
		CTR_ADD(e->st.late_frames, 1);
	CTR_SET(e->next, j + 1);
}

/* 5. Bookkeeping that waited for the push, then best effort in the frame we
 * are in, up to its guard band. */
static void step_end(struct engine *e)
{
	if (e->pw.pending) {
		tdp_time_t b0 = tb_fast_now(e->tb);
		pw_flush(&e->pw);
		pw_book_cost(&e->pw, tdp_time_diff(tb_fast_now(e->tb), b0));
	}
	e->fill_end = tdp_time_add(frame_start(&e->g, e->next), -e->guard_ns);
	eng_be_fill_all(e, tb_fast_now(e->tb));
}

int64_t engine_step(struct engine *e)
{
	int64_t j = e->next;
	tdp_time_t start = frame_start(&e->g, j);
	enum tb_state ss;
	bool over;
	enum sync_action act = step_begin(e, j, &ss, &over);
	/* 2. stage frame j and wait for its start, or a launch lead before it;
	 * the time read past that */
	tdp_time_t target = tdp_time_add(start, -e->lead_ns);
	tdp_time_t pushed_at = wait_and_stage(e, j, target);
	int64_t woke_in = frame_index(&e->g, pushed_at);
	e->seen = woke_in;
	step_count(e, pushed_at, target, ss, act, over);
	if (woke_in > j) {
		if (e->overran)
			CTR_ADD(e->st.overrun_skips, 1);
		step_skip(e, j, woke_in);
	} else {
		step_push(e, j, start, pushed_at);
	}
	CTR_SET(e->st.last_push_ns, pushed_at.ns);
	step_end(e);
	return j;
}

void engine_run(struct engine *e)
{
	engine_start(e);
	while (!atomic_load_explicit(&e->stop, memory_order_relaxed))
		engine_step(e);
}

void engine_stop(struct engine *e)
{
	atomic_store(&e->stop, 1);
}

/* ---- reading counters ---------------------------------------------------- */

void engine_table_flow_stats(const struct eng_table *nt, uint32_t flow, struct flow_stats *out)
{
	ctr_snapshot(out, &nt->flows[flow]->st, sizeof(struct flow_stats));
}

void engine_flow_stats(const struct engine *e, uint32_t flow, struct flow_stats *out)
{
	engine_table_flow_stats(engine_table_current(e), flow, out);
}

void engine_port_stats(const struct engine *e, uint32_t port, struct port_stats *out)
{
	ctr_snapshot(out, &e->ports[port].st, sizeof(struct port_stats));
}

void engine_stats(const struct engine *e, struct eng_stats *out)
{
	ctr_snapshot(out, &e->st, sizeof(struct eng_stats));
}

const struct hist *engine_error_hist(const struct engine *e)
{
	return &e->err;
}

const struct hist *engine_tick_hist(const struct engine *e)
{
	return &e->tick_lat;
}

int64_t engine_launch_lead(const struct engine *e)
{
	return e->lead_ns;
}

const struct pw *engine_pw(const struct engine *e)
{
	return &e->pw;
}
