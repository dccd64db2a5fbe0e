/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tscclock.h"

bool tsc_usable(const char **why)
{
	char buf[256] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		*why = "the kernel's clocksource cannot be read";
		return false;
	}
	fclose(f);
	if (strncmp(buf, "tsc", 3) != 0) {
		*why = "the kernel's clocksource is not the TSC";
		return false;
	}
	bool constant = false, nonstop = false;
	f = fopen("/proc/cpuinfo", "r");
	static char line[8192];
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	if (f)
		fclose(f);
	if (!constant || !nonstop) {
		*why = "the TSC is not invariant (no constant_tsc/nonstop_tsc)";
		return false;
	}
	*why = NULL;
	return true;
}

/* One anchor: the clock read bracketed by the tightest pair of TSC reads. */
static void sample(tsc_clock_fn clk, void *arg, uint64_t *tsc, int64_t *ns)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		uint64_t a = tsc_read();
		int64_t t = clk(arg);
		uint64_t b = tsc_read();
		if (b - a < best) {
			best = b - a;
			*tsc = a + (b - a) / 2;
			*ns = t;
		}
	}
}

static void publish(struct tscclock *c)
{
	seq3_publish(&c->pub, (int64_t)c->base_tsc, c->base_ns, (int64_t)c->mult);
}

void tscclock_fit(struct tscclock *c, uint64_t tsc0, int64_t ns0, uint64_t tsc1, int64_t ns1)
{
	uint64_t dt = tsc1 - tsc0;
	int64_t dn = ns1 - ns0;
	if (dt == 0 || dn <= 0)
		return;
	c->mult = (uint64_t)(((tsc_u128)dn << 32) / dt);
	atomic_store_explicit(&c->hz, (uint64_t)((tsc_u128)dt * 1000000000u / (uint64_t)dn),
			      memory_order_relaxed);
	c->base_tsc = tsc1;
	c->base_ns = ns1;
	publish(c);
}

int tscclock_init(struct tscclock *c, tsc_clock_fn clk, void *arg, int64_t span_ns)
{
	memset(c, 0, sizeof(*c));
	uint64_t t0, t1;
	int64_t n0, n1;
	sample(clk, arg, &t0, &n0);
	struct timespec ts = {span_ns / 1000000000, span_ns % 1000000000};
	nanosleep(&ts, NULL);
	sample(clk, arg, &t1, &n1);
	if (t1 <= t0 || n1 <= n0)
		return -1;
	tscclock_fit(c, t0, n0, t1, n1);
	c->anchors = 2;
	return 0;
}

void tscclock_anchor(struct tscclock *c, tsc_clock_fn clk, void *arg)
{
	uint64_t t;
	int64_t n;
	sample(clk, arg, &t, &n);
	/* refine the slope only over a long enough baseline (>= 10 ms) */
	if (n - c->base_ns >= 10000000)
		tscclock_fit(c, c->base_tsc, c->base_ns, t, n);
	else {
		c->base_tsc = t;
		c->base_ns = n;
		publish(c);
	}
	c->anchors++;
}
