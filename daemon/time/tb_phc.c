/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The phc source: a PTP hardware clock (phc-device), taken as TAI as ptp4l
 * keeps it. now() reads the PHC; polling and sleeping go through the host
 * clock shifted by PHC - host, measured with the best offset ioctl the clock
 * answers at start and at every refresh. Each measurement is a sync sample
 * whose error is how far the offset moved from the last one; a measurement
 * that fails is a fault. With phc-tick OUT,IN the PHC's periodic output on pin
 * OUT, wired to its timestamp input on pin IN, gives the frame tick: each
 * EXTTS event is a frame start. The start-up log says what the clock has.
 * now() reads the PHC (a syscall any thread may make); the offset is measured
 * by refresh, on the housekeeping thread, and published for the others.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "log.h"
#include "phc.h"
#include "tb_hosted.h"
#include "tb_phc.h"
#include "tb_system.h"

struct tb_phc {
	struct timebase base;
	struct tb_hosted h; /* PHC - host CTR */
	struct phc phc;
	bool have_off;
	bool inited; /* the shared part is set up */
	char what[400];
};

#define PH(tb) ((struct tb_phc *)(tb))

/* PHC - host; 0 or -errno */
static int measure(struct tb_phc *p, int64_t *out)
{
	int64_t off_rt, delay;
	int rc = phc_offset(&p->phc, &off_rt, &delay);
	if (rc)
		return rc;
	struct timespec rt;
	tdp_time_t h = tb_now(p->h.host);
	p->phc.io->realtime(p->phc.io->ctx, &rt);
	int64_t rt_minus_host = (int64_t)rt.tv_sec * TDP_NS_PER_S + rt.tv_nsec - h.ns;
	*out = off_rt + rt_minus_host;
	return 0;
}

static void sample(struct tb_phc *p)
{
	int64_t off;
	int rc = measure(p, &off);
	/* the state machine runs on the CTR, as tb_refresh polls it */
	tdp_time_t now = tb_hosted_now(&p->h);
	if (rc) {
		char why[160];
		snprintf(why, sizeof(why), "%s: %s failed: %s", p->phc.path,
			 phc_method_name(p->phc.method), strerror(-rc));
		tb_fault(&p->base, now, why);
	} else {
		int64_t moved = p->have_off ? off - tb_hosted_off(&p->h) : 0;
		tb_hosted_set(&p->h, off);
		p->have_off = true;
		tb_sample(&p->base, now, off, moved);
	}
}

static tdp_time_t phc_now(struct timebase *tb)
{
	struct tb_phc *p = PH(tb);
	struct timespec ts;
	if (p->phc.io->gettime(p->phc.io->ctx, p->phc.fd, &ts) == 0)
		return tdp_time((int64_t)ts.tv_sec * TDP_NS_PER_S + ts.tv_nsec);
	return tb_hosted_now(&p->h);
}

static tdp_time_t phc_fast_now(struct timebase *tb)
{
	struct tb_phc *p = PH(tb);
	return tb_hosted_fast_now(&p->h);
}

static int phc_sleep_until(struct timebase *tb, tdp_time_t t)
{
	struct tb_phc *p = PH(tb);
	return tb_hosted_sleep_until(&p->h, t);
}

static void phc_refresh(struct timebase *tb)
{
	struct tb_phc *p = PH(tb);
	tb_hosted_refresh(&p->h);
	sample(p);
}

static int phc_tick_fd(struct timebase *tb)
{
	struct tb_phc *p = PH(tb);
	return p->phc.perout_pin >= 0 ? p->phc.fd : -1;
}

static int64_t phc_tick(struct timebase *tb)
{
	struct tb_phc *p = PH(tb);
	int64_t t[8];
	int n = phc_tick_read(&p->phc, t, 8);
	if (n <= 0) {
		tb_tick_spurious(tb);
		return -1;
	}
	int64_t f = -1;
	for (int i = 0; i < n; i++) {
		int64_t g = tb_tick_edge(tb, tdp_time(t[i]));
		if (g >= 0)
			f = g;
	}
	return f;
}

static void phc_describe(struct timebase *tb, char *buf, size_t len)
{
	snprintf(buf, len, "%s", PH(tb)->what);
}

static void phc_destroy(struct timebase *tb)
{
	struct tb_phc *p = PH(tb);
	phc_close(&p->phc);
	tb_hosted_release(&p->h);
	if (p->inited)
		tb_fini(tb);
	free(p);
}

struct timebase *tb_phc_new(const struct phc_io *io, struct timebase *host,
			    const struct tb_params *prm, char *err, size_t errlen)
{
	struct tb_phc *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->base.ops = &tb_phc_ops;
	p->h.host = host;
	p->phc.fd = -1;
	static const struct tb_phc_params defaults = {.tick = "none"};
	const struct tb_phc_params *own = prm->own ? prm->own : &defaults;
	const char *dev = *own->device ? own->device : "/dev/ptp0";
	int out_pin, in_pin;
	if (tb_phc_pins(*own->tick ? own->tick : "none", &out_pin, &in_pin)) {
		snprintf(err, errlen,
			 "phc-tick '%s': give none, or two different pin numbers OUT,IN",
			 own->tick);
		goto fail;
	}
	bool tick = out_pin >= 0;
	if (tick && (prm->tf_ns <= 0 || prm->epoch_ns % prm->tf_ns)) {
		snprintf(err, errlen,
			 "the table's epoch (%" PRId64
			 " ns) is not a whole number of frames: a tick "
			 "started on a whole second cannot mark its frame starts",
			 prm->epoch_ns);
		goto fail;
	}
	if (tb_init(&p->base, &tb_phc_ops, prm, tb_now(host), "not measured yet", err, errlen))
		goto fail;
	p->inited = true;
	if (phc_open(&p->phc, io, dev, err, errlen))
		goto fail;
	int64_t off;
	int rc = measure(p, &off);
	if (rc) {
		snprintf(err, errlen, "%s: cannot measure its offset: %s", dev, strerror(-rc));
		goto fail;
	}
	tb_hosted_set(&p->h, off);
	p->have_off = true;
	if (tick && phc_tick_start(&p->phc, out_pin, in_pin, prm->tf_ns, err, errlen))
		goto fail;
	const struct phc_caps *c = &p->phc.caps;
	int n = snprintf(p->what, sizeof(p->what),
			 "PHC %s: max adjustment %d ppb, %d timestamp inputs, %d periodic outputs, "
			 "%d pins, PPS %s, "
			 "cross timestamps %s; offset by %s",
			 dev, c->max_adj_ppb, c->n_ext_ts, c->n_per_out, c->n_pins,
			 c->pps ? "yes" : "no", c->cross_timestamping ? "yes" : "no",
			 phc_method_name(p->phc.method));
	if (n > 0 && (size_t)n < sizeof(p->what)) {
		if (tick)
			snprintf(p->what + n, sizeof(p->what) - (size_t)n,
				 "; frame tick from periodic output pin %d wired to timestamp "
				 "input pin %d",
				 out_pin, in_pin);
		else
			snprintf(p->what + n, sizeof(p->what) - (size_t)n,
				 "; no frame tick (phc-tick none): the clock alone");
	}
	return &p->base;
fail:
	phc_destroy(&p->base);
	return NULL;
}

static int phc_create(struct timebase **out, const struct tb_params *prm, char *err, size_t errlen)
{
	struct tb_hosted h = {0};
	int rc = tb_hosted_system(&h, prm, err, errlen);
	if (rc)
		return rc;
	*out = tb_phc_new(&phc_io_real, h.host, prm, err, errlen);
	if (!*out) {
		tb_hosted_release(&h);
		return -ENODEV;
	}
	PH(*out)->h.own_host = true;
	return 0;
}

#define PO(m) offsetof(struct tb_phc_params, m)
static const struct tb_opt phc_opts[] = {
	{"phc-device", TB_OPT_STR, "/dev/ptp0", 0, 0, NULL, PO(device), "PATH",
	 "phc timebase: the PTP hardware clock (ethtool -T IFACE names a NIC's)"},
	{"phc-tick", TB_OPT_STR, "none", 0, 0, NULL, PO(tick), "none|OUT,IN",
	 "phc timebase: the frame tick from the clock's periodic output on pin OUT wired to its "
	 "timestamp input on pin IN; none uses the clock alone"},
	{NULL, TB_OPT_STR, NULL, 0, 0, NULL, 0, NULL, NULL},
};
_Static_assert(sizeof(phc_opts) / sizeof(phc_opts[0]) - 1 == TB_PHC_NOPTS,
	       "TB_PHC_NOPTS counts phc_opts[]");
#undef PO

const struct timebase_ops tb_phc_ops = {
	.name = "phc",
	.doc = "a PTP hardware clock (phc-device) read directly, with a frame tick from its pins "
	       "(phc-tick)",
	.create = phc_create,
	.destroy = phc_destroy,
	.now = phc_now,
	.fast_now = phc_fast_now,
	.sleep_until = phc_sleep_until,
	.refresh = phc_refresh,
	.tick_fd = phc_tick_fd,
	.tick = phc_tick,
	.describe = phc_describe,
	.opts = phc_opts,
	.own_size = sizeof(struct tb_phc_params),
};

int tb_phc_pins(const char *v, int *out, int *in)
{
	char extra;
	*out = *in = -1;
	if (!strcmp(v, "none"))
		return 0;
	if (sscanf(v, "%d,%d%c", out, in, &extra) != 2 || *out < 0 || *in < 0 || *out > 255 ||
	    *in > 255 || *out == *in) {
		*out = *in = -1;
		return -1;
	}
	return 0;
}
