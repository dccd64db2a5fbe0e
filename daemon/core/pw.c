/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "pw.h"

/* one writer (the engine); other threads read through pw_snapshot */
#define PW_INC(f) __atomic_store_n(&(f), (f) + 1, __ATOMIC_RELAXED)

int pw_init(struct pw *p, const struct pw_config *c)
{
	if (c->tf_ns <= 0 || c->window < 1 || c->window > PW_WINDOW_MAX || c->decay_pct < 1 ||
	    c->decay_pct > 100 || c->min_sleep_ns < 0 || c->margin_ns < 0 || c->book_init_ns < 0)
		return -1;
	memset(p, 0, sizeof(*p));
	p->cfg = *c;
	p->book_ema_ns = c->book_init_ns << 3;
	if (c->miss_ppb) {
		/* a horizon of 1000 / miss keeps ~1000 samples past the quantile: fewer
		 * (100 / miss) let the estimate miss 20 % more than asked (test_pw) */
		uint64_t h = c->horizon ? c->horizon : 1000000000000ull / c->miss_ppb;
		if (h > 1000000000u)
			h = 1000000000u;
		if (pwq_init(&p->q, c->miss_ppb, h))
			return -1;
	}
	return 0;
}

int64_t pw_book_ns(const struct pw *p)
{
	return p->book_ema_ns >> 3;
}

int64_t pw_lead_ns(const struct pw *p)
{
	int64_t lead = p->pred_ns + pw_book_ns(p) + p->cfg.margin_ns;
	return p->cfg.max_lead_ns > 0 && lead > p->cfg.max_lead_ns ? p->cfg.max_lead_ns : lead;
}

static void recompute(struct pw *p)
{
	int64_t m = 0;
	for (uint32_t i = 0; i < p->n; i++)
		if (p->win[i] > m)
			m = p->win[i];
	__atomic_store_n(&p->pred_ns, m, __ATOMIC_RELAXED);
}

static void push(struct pw *p, int64_t over_ns)
{
	if (p->cfg.miss_ppb) {
		pwq_add(&p->q, over_ns);
		__atomic_store_n(&p->pred_ns, pwq_quantile(&p->q), __ATOMIC_RELAXED);
		return;
	}
	p->win[p->head] = over_ns;
	p->head = (p->head + 1) % p->cfg.window;
	if (p->n < p->cfg.window)
		p->n++;
	recompute(p);
}

static void decay(struct pw *p)
{
	if (p->cfg.miss_ppb) {
		pwq_forget_top(&p->q);
		__atomic_store_n(&p->pred_ns, pwq_quantile(&p->q), __ATOMIC_RELAXED);
		return;
	}
	if (p->cfg.decay_pct == 100)
		return;
	for (uint32_t i = 0; i < p->n; i++)
		p->win[i] = p->win[i] * p->cfg.decay_pct / 100;
	recompute(p);
}

bool pw_plan(struct pw *p, tdp_time_t now, tdp_time_t boundary, tdp_time_t *sleep_to)
{
	if (p->cfg.tf_ns >= p->cfg.spin_below_ns) {
		tdp_time_t to = tdp_time_add(boundary, -pw_lead_ns(p));
		if (tdp_time_diff(to, now) >= p->cfg.min_sleep_ns) {
			*sleep_to = to;
			PW_INC(p->st.sleeps);
			return true;
		}
		decay(p);
	}
	PW_INC(p->st.spins);
	return false;
}

static void record(struct pw *p, tdp_time_t asked, tdp_time_t woke)
{
	int64_t over = tdp_time_diff(woke, asked);
	if (over < 0) {
		PW_INC(p->st.early_wakes);
		over = 0;
	}
	push(p, over);
}

bool pw_woke(struct pw *p, tdp_time_t asked, tdp_time_t woke, tdp_time_t boundary)
{
	pw_flush(p);
	/* a sample that halves the quantile's histogram walks every bin, a
	 * cost the bookkeeping estimate does not know: after the push */
	if (tdp_time_diff(boundary, woke) < pw_book_ns(p) ||
	    (p->cfg.miss_ppb && pwq_halving_due(&p->q))) {
		p->pending = true;
		p->pend_asked = asked;
		p->pend_woke = woke;
		PW_INC(p->st.deferred);
		return false;
	}
	record(p, asked, woke);
	return true;
}

bool pw_flush(struct pw *p)
{
	if (!p->pending)
		return false;
	p->pending = false;
	record(p, p->pend_asked, p->pend_woke);
	return true;
}

void pw_book_cost(struct pw *p, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	/* ema += (x - ema) / 8, kept in ns << 3 */
	__atomic_store_n(&p->book_ema_ns, p->book_ema_ns + ns - (p->book_ema_ns >> 3),
			 __ATOMIC_RELAXED);
}

void pw_snapshot(const struct pw *p, struct pw_snap *out)
{
	out->st.sleeps = __atomic_load_n(&p->st.sleeps, __ATOMIC_RELAXED);
	out->st.spins = __atomic_load_n(&p->st.spins, __ATOMIC_RELAXED);
	out->st.deferred = __atomic_load_n(&p->st.deferred, __ATOMIC_RELAXED);
	out->st.early_wakes = __atomic_load_n(&p->st.early_wakes, __ATOMIC_RELAXED);
	out->pred_ns = __atomic_load_n(&p->pred_ns, __ATOMIC_RELAXED);
	out->book_ns = __atomic_load_n(&p->book_ema_ns, __ATOMIC_RELAXED) >> 3;
	out->miss_ppb = p->cfg.miss_ppb;
	out->window = p->cfg.window;
}
