/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PHC layer and the phc source through a scripted ioctl layer: this box
 * has no PTP hardware clock. The fake clock runs 37 s + 1234 ns ahead of the
 * fake CLOCK_REALTIME; the tests check the offset each ioctl gives, the
 * fall-back from PRECISE to EXTENDED to the basic ioctl, what the source says
 * it found, the pin and PEROUT/EXTTS programming of the frame tick and the
 * ticks it reads, and a clock that stops answering.
 */
#include <errno.h>
#include <linux/ptp_clock.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../tdp_test.h"

#include "frame.h"
#include "phc.h"
#include "tb_phc.h"
#include "tb_sim.h"

#define RT0 (1700000000LL * TDP_NS_PER_S)
#define OFF (37 * TDP_NS_PER_S + 1234)

static struct fake {
	struct timebase *clk;	      /* the sim clock stands for CLOCK_REALTIME and the host */
	int precise, extended, basic; /* which offset ioctls answer */
	int cross, pins, perout, extts;
	int fail_all;
	int fail_perout; /* a PEROUT request that starts one fails */
	int opened;
	struct ptp_pin_desc pin[4];
	int npin;
	struct ptp_perout_request perout_req;
	struct ptp_extts_request extts_req;
	int64_t ev[16];
	int nev;
} fk;

static int64_t rt(void)
{
	return tb_sim_time(fk.clk).ns;
}

static void pct(struct ptp_clock_time *t, int64_t ns)
{
	t->sec = ns / TDP_NS_PER_S;
	t->nsec = (uint32_t)(ns % TDP_NS_PER_S);
}

static int f_open(void *ctx, const char *path)
{
	(void)ctx;
	if (strcmp(path, "/dev/ptp3"))
		return -ENOENT;
	fk.opened++;
	return 42;
}

static void f_close(void *ctx, int fd)
{
	(void)ctx;
	assert_int_equal(fd, 42);
	fk.opened--;
}

static int f_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	(void)ctx;
	assert_int_equal(fd, 42);
	if (fk.fail_all)
		return -ENODEV;
	int64_t r = rt();
	if (req == PTP_CLOCK_GETCAPS) {
		struct ptp_clock_caps *c = arg;
		c->max_adj = 999999999;
		c->n_ext_ts = fk.extts;
		c->n_per_out = fk.perout;
		c->n_pins = fk.pins;
		c->cross_timestamping = fk.cross;
		return 0;
	}
	if (req == PTP_SYS_OFFSET_PRECISE) {
		if (!fk.precise)
			return -EOPNOTSUPP;
		struct ptp_sys_offset_precise *x = arg;
		pct(&x->device, r + OFF);
		pct(&x->sys_realtime, r);
		return 0;
	}
	if (req == PTP_SYS_OFFSET_EXTENDED) {
		if (!fk.extended)
			return -EOPNOTSUPP;
		struct ptp_sys_offset_extended *x = arg;
		assert_true(x->n_samples >= 1 && x->n_samples <= PTP_MAX_SAMPLES);
		for (unsigned i = 0; i < x->n_samples; i++) {
			/* brackets of 3 us, one of 1 us: that one must be taken */
			int64_t w = i == 2 ? 1000 : 3000, a = r + 10000 * i;
			pct(&x->ts[i][0], a);
			pct(&x->ts[i][1], a + w / 2 + OFF + (i == 2 ? 0 : 700));
			pct(&x->ts[i][2], a + w);
		}
		return 0;
	}
	if (req == PTP_SYS_OFFSET) {
		if (!fk.basic)
			return -EOPNOTSUPP;
		struct ptp_sys_offset *x = arg;
		for (unsigned i = 0; i < x->n_samples; i++) {
			pct(&x->ts[2 * i], r + 2000 * i);
			pct(&x->ts[2 * i + 1], r + 2000 * i + 1000 + OFF);
		}
		pct(&x->ts[2 * x->n_samples], r + 2000 * x->n_samples);
		return 0;
	}
	if (req == PTP_PIN_SETFUNC) {
		fk.pin[fk.npin++] = *(struct ptp_pin_desc *)arg;
		return 0;
	}
	if (req == PTP_PEROUT_REQUEST) {
		const struct ptp_perout_request *pr = arg;
		if (fk.fail_perout && (pr->period.sec || pr->period.nsec))
			return -EBUSY;
		fk.perout_req = *pr;
		return 0;
	}
	if (req == PTP_EXTTS_REQUEST) {
		fk.extts_req = *(struct ptp_extts_request *)arg;
		return 0;
	}
	return -ENOTTY;
}

static int f_gettime(void *ctx, int fd, struct timespec *ts)
{
	(void)ctx;
	(void)fd;
	if (fk.fail_all)
		return -ENODEV;
	int64_t t = rt() + OFF;
	ts->tv_sec = t / TDP_NS_PER_S;
	ts->tv_nsec = t % TDP_NS_PER_S;
	return 0;
}

static ssize_t f_read(void *ctx, int fd, void *buf, size_t n)
{
	(void)ctx;
	(void)fd;
	if (!fk.nev)
		return -EAGAIN;
	struct ptp_extts_event *ev = buf;
	size_t k = 0;
	for (; k < (size_t)fk.nev && (k + 1) * sizeof(*ev) <= n; k++) {
		memset(&ev[k], 0, sizeof(ev[k]));
		pct(&ev[k].t, fk.ev[k]);
	}
	memmove(fk.ev, fk.ev + k, (size_t)(fk.nev - (int)k) * sizeof(fk.ev[0]));
	fk.nev -= (int)k;
	return (ssize_t)(k * sizeof(*ev));
}

static int f_realtime(void *ctx, struct timespec *ts)
{
	(void)ctx;
	ts->tv_sec = rt() / TDP_NS_PER_S;
	ts->tv_nsec = rt() % TDP_NS_PER_S;
	return 0;
}

static const struct phc_io fio = {f_open, f_close, f_ioctl, f_gettime, f_read, f_realtime, NULL};

static void reset(void)
{
	if (fk.clk)
		fk.clk->ops->destroy(fk.clk);
	memset(&fk, 0, sizeof(fk));
	fk.clk = tb_sim_new(tdp_time(RT0), 0);
}

static void offset_methods(void **st)
{
	(void)st;
	struct {
		int cross, precise, extended, basic;
		enum phc_method want;
		int64_t delay;
	} cases[] = {
		{1, 1, 1, 1, PHC_OFF_PRECISE, 0},
		{0, 1, 1, 1, PHC_OFF_EXTENDED,
		 1000}, /* no cross timestamps: PRECISE is not tried */
		{1, 0, 1, 1, PHC_OFF_EXTENDED, 1000},
		{1, 0, 0, 1, PHC_OFF_BASIC, 2000},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset();
		fk.cross = cases[i].cross;
		fk.precise = cases[i].precise;
		fk.extended = cases[i].extended;
		fk.basic = cases[i].basic;
		struct phc p;
		char err[256];
		assert_int_equal(phc_open(&p, &fio, "/dev/ptp3", err, sizeof(err)), 0);
		assert_int_equal(p.method, cases[i].want);
		int64_t off, d;
		assert_int_equal(phc_offset(&p, &off, &d), 0);
		assert_int_equal(off, OFF);
		assert_int_equal(d, cases[i].delay);
		phc_close(&p);
		assert_int_equal(fk.opened, 0);
	}
	reset();
	struct phc p;
	char err[256];
	assert_int_equal(phc_open(&p, &fio, "/dev/ptp3", err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "answers none of"));
	assert_int_equal(fk.opened, 0);
	assert_int_equal(phc_open(&p, &fio, "/dev/ptp9", err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no PTP hardware clock"));
	/* and the real layer on this box, which has no PHC at all */
	assert_true(phc_open(&p, &phc_io_real, "/dev/ptp0", err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "/dev/ptp0"));
}

static void source_and_tick(void **st)
{
	(void)st;
	reset();
	fk.extended = 1;
	fk.pins = 4;
	fk.perout = 1;
	fk.extts = 2;
	struct tb_phc_params pp = {.device = "/dev/ptp3", .tick = "1,2"};
	struct tb_params p = {.own = &pp, .tf_ns = 1000000};
	tb_sync_params_defaults(&p.sync);
	char err[256];
	struct timebase *tb = tb_phc_new(&fio, fk.clk, &p, err, sizeof(err));
	if (!tb)
		fail_msg("%s", err);
	char d[400];
	tb->ops->describe(tb, d, sizeof(d));
	assert_non_null(strstr(d, "PHC /dev/ptp3: max adjustment 999999999 ppb, 2 timestamp "
				  "inputs, 1 periodic outputs, 4 pins"));
	assert_non_null(strstr(d, "offset by PTP_SYS_OFFSET_EXTENDED"));
	assert_non_null(strstr(d, "periodic output pin 1 wired to timestamp input pin 2"));
	/* the pins, the periodic output (period TF, on a whole second) and the input */
	assert_int_equal(fk.npin, 2);
	assert_int_equal(fk.pin[0].index, 1);
	assert_int_equal(fk.pin[0].func, PTP_PF_PEROUT);
	assert_int_equal(fk.pin[1].index, 2);
	assert_int_equal(fk.pin[1].func, PTP_PF_EXTTS);
	assert_int_equal(fk.perout_req.period.sec, 0);
	assert_int_equal(fk.perout_req.period.nsec, 1000000);
	assert_int_equal(fk.perout_req.start.nsec, 0);
	assert_true(fk.perout_req.start.sec * TDP_NS_PER_S > rt() + OFF);
	assert_int_equal(fk.extts_req.flags, PTP_ENABLE_FEATURE | PTP_RISING_EDGE);
	assert_int_equal(tb->ops->tick_fd(tb), 42);
	/* the clock: the PHC's time, and the fast clock shifted onto it */
	assert_int_equal(tb_now(tb).ns, rt() + OFF);
	assert_int_equal(tb_fast_now(tb).ns, rt() + OFF);
	/* ticks: three in a row, one lost, one doubled */
	int64_t s0 = (rt() + OFF) / TDP_NS_PER_S * TDP_NS_PER_S + TDP_NS_PER_S;
	struct frame_geom g = {1000000, 0, 1};
	int64_t f0 = frame_index(&g, tdp_time(s0));
	fk.ev[0] = s0;
	fk.ev[1] = s0 + 1000000 + 40; /* 40 ns late: still that frame */
	fk.nev = 2;
	assert_int_equal(tb->ops->tick(tb), f0 + 1);
	fk.ev[0] = s0 + 3000000;
	fk.ev[1] = s0 + 3000000;
	fk.nev = 2;
	assert_int_equal(tb->ops->tick(tb), f0 + 3);
	assert_int_equal(tb->ops->tick(tb), -1); /* nothing queued */
	struct tb_tick_stats ts;
	tb_tick_stats(tb, &ts);
	assert_int_equal(ts.ticks, 3);
	assert_int_equal(ts.missed, 1);
	assert_int_equal(ts.doubled, 1);
	assert_int_equal(ts.spurious, 1);
	/* samples lock it; a clock that stops answering is a fault */
	for (int i = 0; i < 4; i++) {
		tb_sim_advance(fk.clk, 100000000);
		tb_refresh(tb);
	}
	assert_int_equal(tb_state(tb), TB_LOCKED);
	fk.fail_all = 1;
	tb_refresh(tb);
	assert_int_equal(tb_state(tb), TB_HOLDOVER);
	struct tb_sync s;
	tb_sync(tb, &s);
	assert_non_null(strstr(s.reason, "PTP_SYS_OFFSET_EXTENDED failed"));
	fk.fail_all = 0;
	tb->ops->destroy(tb);
	assert_int_equal(fk.opened, 0);
	/* closed: the periodic output and the input stopped, the pins freed */
	assert_int_equal(fk.perout_req.period.sec, 0);
	assert_int_equal(fk.perout_req.period.nsec, 0);
	assert_int_equal(fk.extts_req.flags, 0);
	assert_int_equal(fk.npin, 4);
	assert_int_equal(fk.pin[2].func, PTP_PF_NONE);
	assert_int_equal(fk.pin[3].func, PTP_PF_NONE);
	assert_true((fk.pin[2].index == 1 && fk.pin[3].index == 2) ||
		    (fk.pin[2].index == 2 && fk.pin[3].index == 1));
	/* a tick the pins cannot give is refused with what the clock has */
	reset();
	fk.extended = 1;
	fk.pins = 1;
	tb = tb_phc_new(&fio, fk.clk, &p, err, sizeof(err));
	assert_null(tb);
	assert_non_null(strstr(err, "has 1 pins"));
	assert_int_equal(fk.opened, 0);
	/* a periodic output the NIC refuses: the pins already set go back to none */
	reset();
	fk.extended = 1;
	fk.pins = 4;
	fk.perout = 1;
	fk.extts = 2;
	fk.fail_perout = 1;
	tb = tb_phc_new(&fio, fk.clk, &p, err, sizeof(err));
	assert_null(tb);
	assert_non_null(strstr(err, "PTP_PEROUT_REQUEST"));
	assert_int_equal(fk.npin, 4);
	assert_int_equal(fk.pin[2].func, PTP_PF_NONE);
	assert_int_equal(fk.pin[3].func, PTP_PF_NONE);
	assert_int_equal(fk.opened, 0);
	fk.clk->ops->destroy(fk.clk);
	fk.clk = NULL;
}

TDP_TEST_MAIN(cmocka_unit_test(offset_methods), cmocka_unit_test(source_and_tick))
