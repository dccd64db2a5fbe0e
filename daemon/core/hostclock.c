/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/timex.h>

#include "hostclock.h"

static int64_t read_clock(void *arg)
{
	const struct hostclock *h = arg;
	struct timespec ts;
	clock_gettime(h->clk, &ts);
	return (int64_t)ts.tv_sec * TDP_NS_PER_S + ts.tv_nsec + h->add_ns;
}

int hostclock_init(struct hostclock *h, int which, int utc_tai_s, int fast, char *err,
		   size_t errlen)
{
	memset(h, 0, sizeof(*h));
	struct timex tx = {0};
	if (adjtimex(&tx) >= 0)
		h->kernel_tai = tx.tai;
	if (which == HC_CLOCK_AUTO)
		which = h->kernel_tai > 0 ? HC_CLOCK_TAI : HC_CLOCK_REALTIME;
	if (which == HC_CLOCK_TAI) {
		h->clk = CLOCK_TAI;
	} else {
		h->clk = CLOCK_REALTIME;
		h->add_ns = (int64_t)(h->kernel_tai > 0 ? h->kernel_tai : utc_tai_s) * TDP_NS_PER_S;
	}
	if (fast == HC_FAST_OS) {
		h->tsc_why = "fast-clock os";
		return 0;
	}
	const char *why = NULL;
	bool ok = tsc_usable(&why);
	if (!ok && fast == HC_FAST_TSC) {
		snprintf(err, errlen, "fast-clock tsc: %s", why);
		return -ENOTSUP;
	}
	if (ok && tscclock_init(&h->tsc, read_clock, h, 20000000) == 0)
		h->use_tsc = true;
	h->tsc_why = why;
	return 0;
}

tdp_time_t hostclock_now(const struct hostclock *h)
{
	return tdp_time(read_clock((void *)h));
}

tdp_time_t hostclock_fast_now(const struct hostclock *h)
{
	if (h->use_tsc)
		return tsc_to_time(&h->tsc, tsc_read());
	return tdp_time(read_clock((void *)h));
}

int hostclock_sleep_until(const struct hostclock *h, tdp_time_t t)
{
	int64_t ns = t.ns - h->add_ns;
	struct timespec ts = {ns / TDP_NS_PER_S, ns % TDP_NS_PER_S};
	return -clock_nanosleep(h->clk, TIMER_ABSTIME, &ts, NULL);
}

void hostclock_anchor(struct hostclock *h)
{
	if (h->use_tsc)
		tscclock_anchor(&h->tsc, read_clock, h);
}

void hostclock_describe(const struct hostclock *h, char *buf, size_t len)
{
	if (h->clk == CLOCK_TAI)
		snprintf(buf, len, "CLOCK_TAI (kernel UTC-TAI offset %d s)", h->kernel_tai);
	else
		snprintf(buf, len, "CLOCK_REALTIME + %lld s as TAI%s",
			 (long long)(h->add_ns / TDP_NS_PER_S),
			 h->kernel_tai ? "" : " (the kernel's UTC-TAI offset is not set)");
	size_t n = strlen(buf);
	if (h->use_tsc)
		snprintf(buf + n, len - n, "; polling the TSC at %.6f GHz mapped onto it",
			 (double)atomic_load_explicit(&((struct hostclock *)h)->tsc.hz,
						      memory_order_relaxed) /
				 1e9);
	else
		snprintf(buf + n, len - n, "; polling clock_gettime (%s)",
			 h->tsc_why ? h->tsc_why : "TSC off");
}
