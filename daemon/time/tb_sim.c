/* SPDX-License-Identifier: BSD-3-Clause */
/* The sim source (tb_sim.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tb_sim.h"

struct tb_sim {
	struct timebase base;
	int64_t now;
	int64_t poll_ns;
	int64_t oversleep_ns;
	int64_t stall_ns;
	uint64_t sleeps;
	int64_t drift_ppb;
};

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

static void sim_describe(struct timebase *tb, char *buf, size_t len)
{
	snprintf(buf, len, "simulated clock (%lld ns per read, %lld ns oversleep)",
		 (long long)SIM(tb)->poll_ns, (long long)SIM(tb)->oversleep_ns);
}

static void sim_destroy(struct timebase *tb)
{
	tb_fini(tb);
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
	.describe = sim_describe,
};

struct timebase *tb_sim_new(tdp_time_t start, int64_t poll_ns)
{
	struct tb_sim *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->now = start.ns;
	s->poll_ns = poll_ns;
	struct tb_params p = {0};
	char err[64];
	if (tb_init(&s->base, &tb_sim_ops, &p, start, "simulated clock", err, sizeof(err))) {
		free(s);
		return NULL;
	}
	tb_sim_set_state(&s->base, TB_LOCKED, "simulated clock");
	return &s->base;
}

void tb_sim_set_oversleep(struct timebase *tb, int64_t ns)
{
	SIM(tb)->oversleep_ns = ns;
}

void tb_sim_set_poll(struct timebase *tb, int64_t ns)
{
	SIM(tb)->poll_ns = ns;
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
	tb_force(tb, tb_sim_time(tb), st, 0, 0, reason ? reason : "");
}
