/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sim source: a clock that moves only when it is read or slept on, for
 * deterministic tests. Every read costs poll_ns of simulated time; a sleep
 * ends at the asked time plus a constant oversleep, plus a one-off stall when
 * a test injects one (a descheduled engine, a late wake-up). A drift makes
 * every sleep run ppb parts per billion long, as an oscillator off frequency
 * would; the sync state is whatever the test sets.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timebase.h"

struct tb_sim {
	struct timebase base;
	int64_t now;
	int64_t poll_ns;
	int64_t oversleep_ns;
	int64_t stall_ns;
	uint64_t sleeps;
	int64_t drift_ppb;
	enum tb_state state;
	const char *reason;
	uint64_t transitions;
};

extern const struct timebase_ops tb_sim_ops;

#define SIM(tb) ((struct tb_sim *)(tb))

static tdp_time_t sim_now(struct timebase *tb)
{
	struct tb_sim *s = SIM(tb);
	s->now += s->poll_ns;
	return tdp_time(s->now);
}

static int sim_sleep_until(struct timebase *tb, tdp_time_t t)
{
	struct tb_sim *s = SIM(tb);
	if (t.ns > s->now) {
		int64_t d = t.ns - s->now;
		s->now = t.ns + tdp_ppb_of(d, s->drift_ppb);
	}
	s->now += s->oversleep_ns + s->stall_ns;
	s->stall_ns = 0;
	s->sleeps++;
	return 0;
}

static void sim_sync(struct timebase *tb, struct tb_sync *out)
{
	struct tb_sim *s = SIM(tb);
	memset(out, 0, sizeof(*out));
	out->state = s->state;
	out->last_good = tdp_time(s->now);
	snprintf(out->reason, sizeof(out->reason), "%s", s->reason ? s->reason : "");
	out->transitions = s->transitions;
}

static void sim_describe(struct timebase *tb, char *buf, size_t len)
{
	snprintf(buf, len, "simulated clock (%lld ns per read, %lld ns oversleep)",
		 (long long)SIM(tb)->poll_ns, (long long)SIM(tb)->oversleep_ns);
}

static void sim_destroy(struct timebase *tb)
{
	free(tb);
}

static int sim_create(struct timebase **out, const struct tb_params *p, char *err, size_t errlen)
{
	(void)p;
	*out = tb_sim_new(tdp_time(0), 20);
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

const struct timebase_ops tb_sim_ops = {
	.name = "sim",
	.doc = "a simulated clock for tests; moves only when read or slept on",
	.create = sim_create,
	.destroy = sim_destroy,
	.now = sim_now,
	.fast_now = sim_now,
	.sleep_until = sim_sleep_until,
	.sync = sim_sync,
	.describe = sim_describe,
};

struct timebase *tb_sim_new(tdp_time_t start, int64_t poll_ns)
{
	struct tb_sim *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->base.ops = &tb_sim_ops;
	s->now = start.ns;
	s->poll_ns = poll_ns;
	s->state = TB_LOCKED;
	s->reason = "simulated clock";
	tb_set_state(&s->base, TB_LOCKED);
	return &s->base;
}

void tb_sim_set_oversleep(struct timebase *tb, int64_t ns)
{
	SIM(tb)->oversleep_ns = ns;
}

void tb_sim_stall(struct timebase *tb, int64_t ns)
{
	SIM(tb)->stall_ns += ns;
}

void tb_sim_advance(struct timebase *tb, int64_t ns)
{
	SIM(tb)->now += ns;
}

uint64_t tb_sim_sleeps(struct timebase *tb)
{
	return SIM(tb)->sleeps;
}

tdp_time_t tb_sim_time(struct timebase *tb)
{
	return tdp_time(SIM(tb)->now);
}

void tb_sim_set_drift(struct timebase *tb, int64_t ppb)
{
	SIM(tb)->drift_ppb = ppb;
}

void tb_sim_set_state(struct timebase *tb, enum tb_state st, const char *reason)
{
	struct tb_sim *s = SIM(tb);
	if (s->state != st)
		s->transitions++;
	s->state = st;
	s->reason = reason;
	tb_set_state(tb, st);
}
