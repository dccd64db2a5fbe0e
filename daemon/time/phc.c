/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <linux/ptp_clock.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "phc.h"
#include "tdp_names.h"

#define CLOCKFD 3
#define FD_TO_CLOCKID(fd) ((clockid_t)((((unsigned int)~(fd)) << 3) | CLOCKFD))

static int real_open(void *ctx, const char *path)
{
	(void)ctx;
	int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static void real_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

static int real_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	(void)ctx;
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

static int real_gettime(void *ctx, int fd, struct timespec *ts)
{
	(void)ctx;
	return clock_gettime(FD_TO_CLOCKID(fd), ts) < 0 ? -errno : 0;
}

static ssize_t real_read(void *ctx, int fd, void *buf, size_t n)
{
	(void)ctx;
	ssize_t r = read(fd, buf, n);
	return r < 0 ? -errno : r;
}

static int real_realtime(void *ctx, struct timespec *ts)
{
	(void)ctx;
	return clock_gettime(CLOCK_REALTIME, ts) < 0 ? -errno : 0;
}

const struct phc_io phc_io_real = {real_open, real_close,    real_ioctl, real_gettime,
				   real_read, real_realtime, NULL};

static int64_t ns_of(const struct ptp_clock_time *t)
{
	return t->sec * 1000000000LL + t->nsec;
}

const char *phc_method_name(enum phc_method m)
{
	static const char *const n[] = {[PHC_OFF_PRECISE] = "PTP_SYS_OFFSET_PRECISE",
					[PHC_OFF_EXTENDED] = "PTP_SYS_OFFSET_EXTENDED",
					[PHC_OFF_BASIC] = "PTP_SYS_OFFSET"};
	return TDP_NAME_OF(n, m, "none");
}

/* The PHC read at ph between system reads a and b: kept in *off (the PHC
 * less the system clock at the middle) when the pair is the tightest yet. */
static void tighter(int64_t a, int64_t ph, int64_t b, int64_t *best, int64_t *off)
{
	if (b - a >= 0 && b - a < *best) {
		*best = b - a;
		*off = ph - (a + (b - a) / 2);
	}
}

/* the tightest pair's width as the read's delay; -EIO when none was sound */
static int best_delay(int64_t best, int64_t *delay)
{
	if (best == INT64_MAX)
		return -EIO;
	*delay = best;
	return 0;
}

static int offset_by(struct phc *p, enum phc_method m, int64_t *off, int64_t *delay)
{
	const struct phc_io *io = p->io;
	int rc;
	if (m == PHC_OFF_PRECISE) {
		struct ptp_sys_offset_precise x;
		memset(&x, 0, sizeof(x));
		if ((rc = io->ioctl(io->ctx, p->fd, PTP_SYS_OFFSET_PRECISE, &x)))
			return rc;
		*off = ns_of(&x.device) - ns_of(&x.sys_realtime);
		*delay = 0;
		return 0;
	}
	if (m == PHC_OFF_EXTENDED) {
		struct ptp_sys_offset_extended x = {.n_samples = 5};
		if ((rc = io->ioctl(io->ctx, p->fd, PTP_SYS_OFFSET_EXTENDED, &x)))
			return rc;
		int64_t best = INT64_MAX;
		for (unsigned i = 0; i < x.n_samples; i++)
			tighter(ns_of(&x.ts[i][0]), ns_of(&x.ts[i][1]), ns_of(&x.ts[i][2]), &best,
				off);
		return best_delay(best, delay);
	}
	struct ptp_sys_offset x = {.n_samples = 5};
	if ((rc = io->ioctl(io->ctx, p->fd, PTP_SYS_OFFSET, &x)))
		return rc;
	int64_t best = INT64_MAX;
	for (unsigned i = 0; i < x.n_samples; i++)
		tighter(ns_of(&x.ts[2 * i]), ns_of(&x.ts[2 * i + 1]), ns_of(&x.ts[2 * i + 2]),
			&best, off);
	return best_delay(best, delay);
}

int phc_open(struct phc *p, const struct phc_io *io, const char *path, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	p->io = io;
	p->perout_pin = p->extts_pin = -1;
	snprintf(p->path, sizeof(p->path), "%s", path);
	p->fd = io->open(io->ctx, path);
	if (p->fd < 0) {
		int e = -p->fd;
		if (e == ENOENT)
			snprintf(err, errlen,
				 "%s: no such device: this machine has no PTP hardware clock there "
				 "(see /sys/class/ptp, and ethtool -T IFACE for the PHC of a NIC)",
				 path);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	struct ptp_clock_caps c;
	memset(&c, 0, sizeof(c));
	int rc = io->ioctl(io->ctx, p->fd, PTP_CLOCK_GETCAPS, &c);
	if (rc) {
		snprintf(err, errlen, "%s: not a PTP hardware clock (PTP_CLOCK_GETCAPS: %s)", path,
			 strerror(-rc));
		phc_close(p);
		return rc;
	}
	p->caps = (struct phc_caps){c.max_adj, c.n_ext_ts, c.n_per_out,
				    c.n_pins,  c.pps,	   c.cross_timestamping};
	static const enum phc_method order[] = {PHC_OFF_PRECISE, PHC_OFF_EXTENDED, PHC_OFF_BASIC};
	for (int i = 0; i < 3; i++) {
		if (order[i] == PHC_OFF_PRECISE && !c.cross_timestamping)
			continue;
		int64_t off, d;
		if (offset_by(p, order[i], &off, &d) == 0) {
			p->method = order[i];
			return 0;
		}
	}
	snprintf(err, errlen,
		 "%s: answers none of PTP_SYS_OFFSET_PRECISE, _EXTENDED or PTP_SYS_OFFSET", path);
	phc_close(p);
	return -EOPNOTSUPP;
}

/*
 * Stops what phc_tick_start started, so the NIC's pins do not go on toggling
 * and timestamping after tdpd: a PEROUT request with a zero period disables
 * the periodic output, an EXTTS request without PTP_ENABLE_FEATURE the input
 * (Linux Documentation/driver-api/ptp.rst; testptp's -p 0), and the pins go
 * back to PTP_PF_NONE. What fails is ignored: the clock is being closed.
 */
static void tick_stop(struct phc *p)
{
	const struct phc_io *io = p->io;
	if (p->extts_pin >= 0) {
		struct ptp_extts_request er;
		memset(&er, 0, sizeof(er));
		io->ioctl(io->ctx, p->fd, PTP_EXTTS_REQUEST, &er);
	}
	if (p->perout_pin >= 0) {
		struct ptp_perout_request pr;
		memset(&pr, 0, sizeof(pr));
		io->ioctl(io->ctx, p->fd, PTP_PEROUT_REQUEST, &pr);
	}
	int pins[2] = {p->perout_pin, p->extts_pin};
	for (int i = 0; i < 2; i++) {
		if (pins[i] < 0)
			continue;
		struct ptp_pin_desc pd;
		memset(&pd, 0, sizeof(pd));
		pd.index = (unsigned)pins[i];
		pd.func = PTP_PF_NONE;
		io->ioctl(io->ctx, p->fd, PTP_PIN_SETFUNC, &pd);
	}
	p->perout_pin = p->extts_pin = -1;
}

void phc_close(struct phc *p)
{
	if (p->fd >= 0 && p->io) {
		tick_stop(p);
		p->io->close(p->io->ctx, p->fd);
	}
	p->fd = -1;
}

int phc_offset(struct phc *p, int64_t *off, int64_t *delay)
{
	int rc = offset_by(p, p->method, off, delay);
	if (rc)
		p->errors++;
	return rc;
}

int phc_tick_start(struct phc *p, int out_pin, int in_pin, int64_t tf_ns, char *err, size_t errlen)
{
	const struct phc_io *io = p->io;
	if (p->caps.n_pins < 2 || p->caps.n_per_out < 1 || p->caps.n_ext_ts < 1) {
		snprintf(err, errlen,
			 "%s has %d pins, %d periodic outputs and %d timestamp inputs: a frame "
			 "tick needs "
			 "2, 1 and 1",
			 p->path, p->caps.n_pins, p->caps.n_per_out, p->caps.n_ext_ts);
		return -EOPNOTSUPP;
	}
	if (out_pin < 0 || in_pin < 0 || out_pin >= p->caps.n_pins || in_pin >= p->caps.n_pins ||
	    out_pin == in_pin) {
		snprintf(err, errlen, "%s: pins %d and %d: give two different pins from 0 to %d",
			 p->path, out_pin, in_pin, p->caps.n_pins - 1);
		return -EINVAL;
	}
	struct ptp_pin_desc pd;
	memset(&pd, 0, sizeof(pd));
	pd.index = (unsigned)out_pin;
	pd.func = PTP_PF_PEROUT;
	pd.chan = 0;
	/* from here on, whatever fails, tick_stop undoes what was set (a
	 * request that was never made is disabled harmlessly) */
	p->perout_pin = out_pin;
	p->extts_pin = in_pin;
	int rc = io->ioctl(io->ctx, p->fd, PTP_PIN_SETFUNC, &pd);
	if (rc == 0) {
		memset(&pd, 0, sizeof(pd));
		pd.index = (unsigned)in_pin;
		pd.func = PTP_PF_EXTTS;
		pd.chan = 0;
		rc = io->ioctl(io->ctx, p->fd, PTP_PIN_SETFUNC, &pd);
	}
	if (rc) {
		snprintf(err, errlen, "%s: PTP_PIN_SETFUNC: %s", p->path, strerror(-rc));
		tick_stop(p);
		return rc;
	}
	struct timespec now;
	if ((rc = io->gettime(io->ctx, p->fd, &now))) {
		snprintf(err, errlen, "%s: cannot read the clock: %s", p->path, strerror(-rc));
		tick_stop(p);
		return rc;
	}
	struct ptp_perout_request pr;
	memset(&pr, 0, sizeof(pr));
	pr.index = 0;
	pr.start.sec = now.tv_sec + 2; /* a whole second ahead: frame starts line up with it */
	pr.start.nsec = 0;
	pr.period.sec = tf_ns / 1000000000;
	pr.period.nsec = (unsigned)(tf_ns % 1000000000);
	if ((rc = io->ioctl(io->ctx, p->fd, PTP_PEROUT_REQUEST, &pr))) {
		snprintf(err, errlen, "%s: PTP_PEROUT_REQUEST (period %lld ns): %s", p->path,
			 (long long)tf_ns, strerror(-rc));
		tick_stop(p);
		return rc;
	}
	struct ptp_extts_request er;
	memset(&er, 0, sizeof(er));
	er.index = 0;
	er.flags = PTP_ENABLE_FEATURE | PTP_RISING_EDGE;
	if ((rc = io->ioctl(io->ctx, p->fd, PTP_EXTTS_REQUEST, &er))) {
		snprintf(err, errlen, "%s: PTP_EXTTS_REQUEST: %s", p->path, strerror(-rc));
		tick_stop(p);
		return rc;
	}
	return 0;
}

int phc_tick_read(struct phc *p, int64_t *t, int max)
{
	struct ptp_extts_event ev[8];
	if (max > 8)
		max = 8;
	ssize_t n = p->io->read(p->io->ctx, p->fd, ev, sizeof(ev[0]) * (size_t)max);
	if (n < 0)
		return n == -EAGAIN ? 0 : (int)n;
	int k = (int)((size_t)n / sizeof(ev[0]));
	for (int i = 0; i < k; i++)
		t[i] = ns_of(&ev[i].t);
	return k;
}
