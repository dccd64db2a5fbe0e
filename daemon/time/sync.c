/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync.h"
#include "tdp_names.h"

const char *tb_state_name(enum tb_state s)
{
	static const char *const n[] = {
		[TB_UNLOCKED] = "unlocked", [TB_HOLDOVER] = "holdover", [TB_LOCKED] = "locked"};
	return TDP_NAME_OF(n, s, "?");
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

static bool go(struct sync *s, tdp_time_t now, enum tb_state to)
{
	if (s->state == to)
		return false;
	s->state = to;
	s->since = now;
	s->transitions++;
	s->good_run = 0;
	s->bad_run = 0;
	return true;
}

int sync_init(struct sync *s, const struct sync_cfg *cfg, tdp_time_t now, const char *reason)
{
	memset(s, 0, sizeof(*s));
	if (cfg->lock_ns <= 0 || cfg->lock_samples < 1 || cfg->sample_timeout_ns <= 0 ||
	    cfg->holdover_ns < 0 || cfg->drift_ppb < 0 || cfg->step_ns <= 0)
		return -EINVAL;
	s->cfg = *cfg;
	s->state = TB_UNLOCKED;
	s->since = now;
	s->last_sample = now;
	snprintf(s->reason, sizeof(s->reason), "%s", reason ? reason : "no sample yet");
	return 0;
}

bool sync_sample(struct sync *s, tdp_time_t now, int64_t offset_ns, int64_t err_ns)
{
	s->samples++;
	if (s->have_offset && abs64(offset_ns - s->offset_ns) > s->cfg.step_ns) {
		s->steps++;
		s->last_step_ns = offset_ns - s->offset_ns;
	}
	s->have_offset = true;
	s->offset_ns = offset_ns;
	s->err_ns = abs64(err_ns);
	s->last_sample = now;
	if (s->err_ns <= s->cfg.lock_ns) {
		s->last_good = now;
		s->bad_run = 0;
		if (s->state != TB_LOCKED && ++s->good_run >= s->cfg.lock_samples) {
			snprintf(s->reason, sizeof(s->reason),
				 "%u samples within %" PRId64 " ns (offset %" PRId64 " ns)",
				 s->cfg.lock_samples, s->cfg.lock_ns, offset_ns);
			return go(s, now, TB_LOCKED);
		}
		return false;
	}
	s->bad_samples++;
	s->good_run = 0;
	if (s->state == TB_LOCKED && ++s->bad_run >= s->cfg.lock_samples) {
		snprintf(s->reason, sizeof(s->reason),
			 "%u samples beyond %" PRId64 " ns (error %" PRId64 " ns)",
			 s->cfg.lock_samples, s->cfg.lock_ns, s->err_ns);
		return go(s, now, TB_UNLOCKED);
	}
	return false;
}

bool sync_fault(struct sync *s, tdp_time_t now, const char *reason)
{
	s->faults++;
	s->good_run = 0;
	if (s->state == TB_LOCKED) {
		snprintf(s->reason, sizeof(s->reason), "%s", reason);
		return go(s, now, TB_HOLDOVER);
	}
	if (s->state == TB_UNLOCKED)
		snprintf(s->reason, sizeof(s->reason), "%s", reason);
	return false;
}

bool sync_poll(struct sync *s, tdp_time_t now)
{
	if (s->state == TB_LOCKED &&
	    tdp_time_diff(now, s->last_sample) > s->cfg.sample_timeout_ns) {
		snprintf(s->reason, sizeof(s->reason), "no sample for %" PRId64 " ms",
			 tdp_time_diff(now, s->last_sample) / 1000000);
		return go(s, now, TB_HOLDOVER);
	}
	if (s->state == TB_HOLDOVER && tdp_time_diff(now, s->since) > s->cfg.holdover_ns) {
		snprintf(s->reason, sizeof(s->reason), "holdover budget of %" PRId64 " ms spent",
			 s->cfg.holdover_ns / 1000000);
		return go(s, now, TB_UNLOCKED);
	}
	return false;
}

bool sync_force(struct sync *s, tdp_time_t now, enum tb_state st, int64_t offset_ns, int64_t err_ns,
		const char *reason)
{
	s->samples++;
	s->have_offset = true;
	s->offset_ns = offset_ns;
	s->err_ns = abs64(err_ns);
	s->last_sample = now;
	if (st == TB_LOCKED)
		s->last_good = now;
	snprintf(s->reason, sizeof(s->reason), "%s", reason);
	return go(s, now, st);
}

int64_t sync_uncertainty(const struct sync *s, tdp_time_t now)
{
	int64_t u = s->err_ns;
	if (s->state != TB_LOCKED && s->last_good.ns) {
		int64_t dt = tdp_time_diff(now, s->last_good);
		if (dt > 0)
			u += tdp_ppb_of(dt, s->cfg.drift_ppb);
	}
	return u;
}

void sync_get(const struct sync *s, tdp_time_t now, struct tb_sync *out)
{
	memset(out, 0, sizeof(*out));
	out->state = s->state;
	out->offset_ns = s->offset_ns;
	out->uncertainty_ns = sync_uncertainty(s, now);
	out->last_good = s->last_good;
	out->since = s->since;
	_Static_assert(sizeof(out->reason) == sizeof(s->reason), "the reason is copied whole");
	memcpy(out->reason, s->reason, sizeof(out->reason));
	out->samples = s->samples;
	out->bad_samples = s->bad_samples;
	out->faults = s->faults;
	out->transitions = s->transitions;
	out->steps = s->steps;
	out->last_step_ns = s->last_step_ns;
}
