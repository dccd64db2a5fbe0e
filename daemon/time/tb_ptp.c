/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ptp source: follows ptp4l through its management socket, with a client
 * of tdpd's own (ptp_mgmt.c). A thread of the source's own, never the engine,
 * talks to ptp4l: every ptp-poll it asks TIME_STATUS_NP and PORT_DATA_SET, and
 * it keeps a SUBSCRIBE_EVENTS_NP for port-state and time-sync notifications,
 * renewed at half its duration and again whenever ptp4l comes back.
 *
 * Two modes (ptp-mode):
 *   disciplined  ptp4l and phc2sys steer the system clock; tdpd reads it as the
 *                system source does and takes ptp4l's master offset as the
 *                sample error. Locking needs a port in SLAVE.
 *   offset       ptp4l runs with free_running 1 and steers nothing; tdpd
 *                applies ptp4l's measured master offset to its own CTR:
 *                CTR = system clock - offset(t), offset(t) a least-squares line
 *                through the latest samples (so a drifting oscillator is
 *                followed between samples). A sample is its residual against
 *                that line. A port in UNCALIBRATED is enough: with free_running
 *                ptp4l never leaves it.
 * A new sample is a TIME_STATUS_NP whose ingress time moved, and it is evidence
 * of lock only when ptp4l has measured a path delay (CURRENT_DATA_SET's
 * meanPathDelay is not 0: ptp4l keeps 0 until a delay response came, and an
 * offset computed without one is none, as on a UDPv4 port with no IPv4
 * address, which cannot send Delay_Req while Sync still arrives) and, in
 * offset mode, where no servo of ptp4l's vouches for it, when the offset is
 * not the previous one again: a measured offset varies from sample to sample;
 * sync-lock-samples identical ones in a row are a fault. Disciplined mode
 * takes ptp4l's own servo state instead: its port reaches SLAVE only when its
 * servo has locked. Each refusal is logged once, when its reason changes. No grandmaster,
 * a port in no state that syncs, ptp4l's socket gone, or no answer for three
 * polls: a fault (holdover, then unlocked when the budget is spent). Replies
 * that do not parse or that nobody asked for are counted and ignored. A
 * residual beyond sync-step that persists for sync-lock-samples samples is a
 * phase step: the line restarts from the new samples and the CTR steps with it.
 *
 * The socket is behind struct tb_ptp_io, so that the unit test drives the
 * client against a simulated ptp4l on the simulated clock (tb_ptp_new with no
 * thread, stepped by tb_ptp_run). The client's state is its thread's own; the
 * counters are relaxed counters; what others read of the sync state is the
 * shared part's (timebase.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "log.h"
#include "ptp_cfg.h"
#include "ptp_mgmt.h"
#include "seqlock.h"
#include "tb_ptp.h"
#include "tb_system.h"

#define FIT_N 16
/* a silent ptp4l is said this often while it lasts */
#define SILENT_LOG_NS (30 * (int64_t)TDP_NS_PER_S)

struct tb_ptp {
	struct timebase base;
	struct timebase *sys;
	bool own_sys;
	bool inited; /* the shared part is set up */
	int64_t mode;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	uint8_t domain;
	int64_t poll_ns;
	int sub_s; /* subscription duration */
	struct tb_ptp_io io;
	int fd; /* the real socket, when io is ours */
	pthread_t th;
	bool th_up;
	atomic_int stop;

	/* the applied offset line, published to readers through a sequence lock */
	struct seq3 line; /* a_ns, t0_ns, b_ppt (the slope, parts per trillion) */

	/* thread-owned */
	struct {
		int64_t t, off;
	} fit[FIT_N];
	unsigned nfit, fit_at;
	struct {
		int64_t t, off;
	} pend[64];
	unsigned npend;
	int64_t last_ingress;
	int64_t path_delay_scaled; /* ptp4l's meanPathDelay, ns x 2^16; 0: none measured */
	/* every port of ptp4l's (a boundary clock has several), as PORT_DATA_SET
	 * answered for each; the clock syncs when one is SLAVE (UNCALIBRATED in
	 * offset mode): that one is `sync_port` */
	struct pport {
		uint16_t number;
		uint8_t state;
		uint8_t dm; /* delayMechanism */
		int64_t peer_delay_scaled;
		uint32_t poll; /* the poll that last heard of it */
	} ports[TB_PTP_PORTS];
	unsigned nports;
	uint32_t poll_no;
	int sync_port; /* index in ports, or -1 */
	/* transportSpecific: ptp4l answers only its own (auto: tried in turn) */
	int ts_fixed;	   /* -1: auto */
	uint8_t ts;	   /* in use */
	bool ts_found;	   /* an answer came with it */
	uint16_t ts_tried; /* bit v: tried since the last answer */
	int64_t silent_since, next_silent_log;
	int64_t last_off;   /* the previous sample's offset, and how often */
	uint32_t same_off;  /* it came again in a row */
	int64_t sample_off; /* the offset of the latest sample taken */
	char refused[160];  /* why the latest sample was not evidence */
	uint16_t seqno;
	int unanswered;
	bool was_gone, port_ok, port_known, samples_seen;
	int64_t next_poll, next_sub;
	struct tb_ptp_counters cnt; /* the thread's; others snapshot */
};

#define PTP(tb) ((struct tb_ptp *)(tb))

static int64_t offset_at(struct tb_ptp *p, int64_t t)
{
	int64_t a, t0, b;
	seq3_read(&p->line, &a, &t0, &b);
	int64_t dt = t - t0;
	return a + dt / 1000000 * b / 1000000 + dt % 1000000 * b / 1000000000000LL;
}

static void publish(struct tb_ptp *p, int64_t a, int64_t t0, int64_t b_ppt)
{
	seq3_publish(&p->line, a, t0, b_ppt);
}

static tdp_time_t ptp_now(struct timebase *tb)
{
	struct tb_ptp *p = PTP(tb);
	tdp_time_t t = tb_now(p->sys);
	return p->mode == TB_PTP_OFFSET ? tdp_time_add(t, -offset_at(p, t.ns)) : t;
}

static tdp_time_t ptp_fast_now(struct timebase *tb)
{
	struct tb_ptp *p = PTP(tb);
	tdp_time_t t = tb_fast_now(p->sys);
	return p->mode == TB_PTP_OFFSET ? tdp_time_add(t, -offset_at(p, t.ns)) : t;
}

static int ptp_sleep_until(struct timebase *tb, tdp_time_t t)
{
	struct tb_ptp *p = PTP(tb);
	if (p->mode == TB_PTP_OFFSET)
		t = tdp_time_add(t, offset_at(p, t.ns));
	return tb_sleep_until(p->sys, t);
}

static void ptp_refresh(struct timebase *tb)
{
	struct tb_ptp *p = PTP(tb);
	if (p->sys->ops->refresh)
		p->sys->ops->refresh(p->sys);
}

/* ---- the line through the samples ------------------------------------- */

static void fit_publish(struct tb_ptp *p)
{
	unsigned n = p->nfit < FIT_N ? p->nfit : FIT_N;
	if (n == 0)
		return;
	int64_t t0 = p->fit[(p->fit_at + FIT_N - 1) % FIT_N].t;
	double st = 0, so = 0, stt = 0, sto = 0;
	for (unsigned i = 0; i < n; i++) {
		double x = (double)(p->fit[i].t - t0), y = (double)p->fit[i].off;
		st += x;
		so += y;
		stt += x * x;
		sto += x * y;
	}
	double den = n * stt - st * st;
	double b = (n >= 2 && den > 0) ? (n * sto - st * so) / den : 0.0;
	double a = (so - b * st) / n;
	/* a slope beyond 1000 ppm is no oscillator: take the mean */
	if (b > 1e-3 || b < -1e-3) {
		b = 0;
		a = so / n;
	}
	publish(p, (int64_t)a, t0, (int64_t)(b * 1e12));
}

static void fit_add(struct tb_ptp *p, int64_t t, int64_t off)
{
	p->fit[p->fit_at].t = t;
	p->fit[p->fit_at].off = off;
	p->fit_at = (p->fit_at + 1) % FIT_N;
	p->nfit++;
	fit_publish(p);
}

static void fit_reset(struct tb_ptp *p)
{
	p->nfit = 0;
	p->fit_at = 0;
}

/* ---- talking to ptp4l --------------------------------------------------- */

static void send_msg(struct tb_ptp *p, uint8_t *buf, int n)
{
	if (n > 0)
		ptpm_set_transport_specific(buf, p->ts);
	int rc = p->io.send(p->io.ctx, buf, (size_t)n);
	if (rc == 0) {
		CTR_ADD(p->cnt.requests, 1);
		if (p->was_gone) {
			p->was_gone = false;
			CTR_ADD(p->cnt.reconnects, 1);
			log_notice("ptp: %s is back", p->path);
			p->next_sub = 0; /* a restarted ptp4l knows no subscription */
		}
		return;
	}
	int e = -rc;
	CTR_ADD(p->cnt.send_errors, 1);
	if (!p->was_gone) {
		p->was_gone = true;
		log_warn("ptp: cannot reach ptp4l at %s: %s", p->path, strerror(e));
	}
	char why[160];
	snprintf(why, sizeof(why), "ptp4l socket %s: %s", p->path, strerror(e));
	tb_fault(&p->base, ptp_now(&p->base), why);
}

/* ptp4l does not answer (its socket takes our requests): a fault; with
 * transportSpecific auto the next value is tried (a gPTP ptp4l answers only
 * 1); and what was tried and what to check is said, again every
 * SILENT_LOG_NS. */
static void silent(struct tb_ptp *p, int64_t now_ns)
{
	char why[200];
	snprintf(why, sizeof(why),
		 "ptp4l at %s does not answer (domain %u, transportSpecific 0x%x)", p->path,
		 p->domain, p->ts);
	tb_fault(&p->base, ptp_now(&p->base), why);
	if (!p->silent_since)
		p->silent_since = now_ns;
	p->ts_tried |= (uint16_t)(1u << p->ts);
	if (p->ts_fixed < 0 && !p->was_gone) {
		/* 0 (IEEE 1588), then 1 (802.1AS), then the rest */
		static const uint8_t order[] = {0, 1, 2,  3,  4,  5,  6,  7,
						8, 9, 10, 11, 12, 13, 14, 15};
		unsigned i = 0;
		while (i < 16 && order[i] != p->ts)
			i++;
		p->ts = order[(i + 1) % 16];
		p->ts_found = false;
		p->unanswered = 0;
		p->next_sub = 0;
		log_debug("ptp: no answer from ptp4l at %s; asking with transportSpecific 0x%x",
			  p->path, p->ts);
	}
	if (now_ns < p->next_silent_log)
		return;
	p->next_silent_log = now_ns + SILENT_LOG_NS;
	char tried[64] = "";
	size_t w = 0;
	for (unsigned v = 0; v < 16 && w < sizeof(tried); v++)
		if (p->ts_tried & (1u << v))
			w += (size_t)snprintf(tried + w, sizeof(tried) - w, "%s0x%x", w ? "," : "",
					      v);
	log_warn("ptp: no answer from ptp4l at %s for %.0f s (domain %u; transportSpecific tried: "
		 "%s): check that "
		 "ptp4l runs with uds_address %s and domainNumber %u, that its transportSpecific "
		 "is among those "
		 "(ptp-transport-specific, or ptp-config names its file), and that tdpd may write "
		 "to the socket",
		 p->path, (double)(now_ns - p->silent_since) / 1e9, p->domain, tried, p->path,
		 p->domain);
}

static void ask(struct tb_ptp *p, int64_t now_ns)
{
	uint8_t buf[256];
	int n;
	if (now_ns >= p->next_sub) {
		n = ptpm_build_subscribe(buf, sizeof(buf), p->domain, p->seqno++,
					 (uint16_t)getpid(), (uint16_t)p->sub_s,
					 1u << PTPM_NOTIFY_PORT_STATE |
						 1u << PTPM_NOTIFY_TIME_SYNC);
		send_msg(p, buf, n);
		/* renewed at half its duration, well before ptp4l lets it expire */
		p->next_sub = now_ns + (int64_t)p->sub_s * TDP_NS_PER_S / 2;
	}
	if (++p->unanswered > 3)
		silent(p, now_ns);
	p->poll_no++;
	n = ptpm_build_get(buf, sizeof(buf), p->domain, p->seqno++, (uint16_t)getpid(),
			   PTPM_ID_PORT_DATA_SET);
	send_msg(p, buf, n);
	n = ptpm_build_get(buf, sizeof(buf), p->domain, p->seqno++, (uint16_t)getpid(),
			   PTPM_ID_CURRENT_DATA_SET);
	send_msg(p, buf, n);
	n = ptpm_build_get(buf, sizeof(buf), p->domain, p->seqno++, (uint16_t)getpid(),
			   PTPM_ID_TIME_STATUS_NP);
	send_msg(p, buf, n);
}

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* A sample that is not evidence of lock: a fault, logged when the reason changes. */
static void refuse(struct tb_ptp *p, tdp_time_t now, const char *why)
{
	if (strcmp(p->refused, why) != 0) {
		log_notice("ptp: not a sample of lock: %s", why);
		snprintf(p->refused, sizeof(p->refused), "%s", why);
	}
	tb_fault(&p->base, now, why);
}

/* a sample taken: its offset is the one a step keeps until it persists */
static void take(struct tb_ptp *p, tdp_time_t now, int64_t off, int64_t err)
{
	p->sample_off = off;
	tb_sample(&p->base, now, off, err);
}

/* why no port of ptp4l's syncs: each port and its state */
static void ports_why(const struct tb_ptp *p, char *why, size_t len)
{
	size_t w = (size_t)snprintf(why, len, "no port of ptp4l's syncs:");
	for (unsigned i = 0; i < p->nports && w < len; i++)
		w += (size_t)snprintf(why + w, len - w, " port %u %s", p->ports[i].number,
				      ptpm_port_state_name(p->ports[i].state));
}

static void on_time_status(struct tb_ptp *p, const struct ptpm_time_status *ts)
{
	/* the state machine runs on the CTR, as tb_refresh polls it */
	tdp_time_t now = ptp_now(&p->base);
	/* no grandmaster: a fault, but where a port is SLAVE without one, as the
	 * automotive profile's static roles have it (BMCA noop, no Announce):
	 * under a BMCA a port is SLAVE only behind a grandmaster */
	const struct pport *sp = p->sync_port >= 0 ? &p->ports[p->sync_port] : NULL;
	if (!ts->gm_present && !(sp && sp->state == PTPM_PS_SLAVE)) {
		refuse(p, now, "ptp4l has no grandmaster (gmPresent false)");
		return;
	}
	if (p->port_known && !p->port_ok) {
		char why[200];
		ports_why(p, why, sizeof(why));
		tb_fault(&p->base, now, why);
		return;
	}
	if (ts->ingress_time_ns == p->last_ingress)
		return; /* no new sync since the last answer */
	p->last_ingress = ts->ingress_time_ns;
	int64_t off = ts->master_offset_ns;
	/* evidence of a measured path: E2E's meanPathDelay, or the peer delay
	 * of the syncing port under P2P (ptp4l never sets meanPathDelay then) */
	bool p2p = sp && sp->dm == PTPM_DM_P2P;
	if (p->path_delay_scaled == 0 && !(p2p && sp->peer_delay_scaled != 0)) {
		if (p2p)
			refuse(p, now,
			       "ptp4l's port has measured no peer delay (P2P, peerMeanPathDelay "
			       "0), so its "
			       "offset is none; are its Pdelay_Req answered?");
		else
			refuse(p, now,
			       "ptp4l has measured no path delay (meanPathDelay 0), so its offset "
			       "is none; "
			       "can the port send Delay_Req (an IPv4 address for UDPv4)?");
		return;
	}
	if (p->mode == TB_PTP_OFFSET) {
		if (p->samples_seen && off == p->last_off) {
			if (++p->same_off + 1 >= tb_sync_cfg(&p->base)->lock_samples) {
				char why[160];
				snprintf(why, sizeof(why),
					 "ptp4l's master offset is %" PRId64
					 " ns sample after sample; "
					 "a measured offset varies",
					 off);
				refuse(p, now, why);
			}
			return;
		}
		p->same_off = 0;
		p->last_off = off;
		p->samples_seen = true;
	}
	p->refused[0] = 0;
	if (p->mode == TB_PTP_DISCIPLINED) {
		take(p, now, off, off);
		return;
	}
	/* offset mode: the line is over the system clock's time, as ptp_now reads it */
	int64_t t = tb_now(p->sys).ns;
	int64_t resid = p->nfit ? off - offset_at(p, t) : 0;
	if (abs64(resid) > tb_sync_cfg(&p->base)->step_ns) {
		if (p->npend < 64) {
			p->pend[p->npend].t = t;
			p->pend[p->npend].off = off;
			p->npend++;
		}
		if (p->npend >= tb_sync_cfg(&p->base)->lock_samples) {
			/* it persists: the reference stepped. Restart the line from here. */
			log_warn("ptp: phase step of %" PRId64 " ns in ptp4l's master offset",
				 resid);
			fit_reset(p);
			for (unsigned i = 0; i < p->npend; i++)
				fit_add(p, p->pend[i].t, p->pend[i].off);
			p->npend = 0;
			/* counted as a step by the jump in offset; the sample fits the new line */
			take(p, now, off, 0);
			return;
		}
		take(p, now, p->sample_off, resid);
		return;
	}
	p->npend = 0;
	fit_add(p, t, off);
	take(p, now, off, resid);
}

/* A port's PORT_DATA_SET (a boundary clock answers for each of its ports):
 * its state kept, ports not heard of for three polls forgotten, and the
 * clock's verdict: the port that syncs, or a fault naming every port. */
static void on_port_ds(struct tb_ptp *p, const struct ptpm_port_ds *d)
{
	unsigned i = 0;
	while (i < p->nports && p->ports[i].number != d->port_number)
		i++;
	if (i == p->nports) {
		if (p->nports == TB_PTP_PORTS)
			return;
		p->nports++;
		p->ports[i] = (struct pport){.number = d->port_number, .state = 0};
	}
	struct pport *pp = &p->ports[i];
	if (pp->state != d->port_state)
		log_info("ptp: ptp4l port %u is %s%s", d->port_number,
			 ptpm_port_state_name(d->port_state),
			 d->delay_mechanism == PTPM_DM_P2P ? " (P2P)" : "");
	pp->state = d->port_state;
	pp->dm = d->delay_mechanism;
	pp->peer_delay_scaled = d->peer_mean_path_delay_scaled;
	pp->poll = p->poll_no;
	for (unsigned k = 0; k < p->nports;)
		if (p->poll_no - p->ports[k].poll > 3)
			p->ports[k] = p->ports[--p->nports];
		else
			k++;
	p->port_known = true;
	p->sync_port = -1;
	for (unsigned k = 0; k < p->nports && p->sync_port < 0; k++)
		if (p->ports[k].state == PTPM_PS_SLAVE ||
		    (p->mode == TB_PTP_OFFSET && p->ports[k].state == PTPM_PS_UNCALIBRATED))
			p->sync_port = (int)k;
	p->port_ok = p->sync_port >= 0;
	if (!p->port_ok) {
		char why[200];
		ports_why(p, why, sizeof(why));
		tb_fault(&p->base, ptp_now(&p->base), why);
	}
}

/* ptp4l answered: its transportSpecific is the one in use, said once */
static void answered(struct tb_ptp *p)
{
	if (p->silent_since)
		log_notice("ptp: ptp4l at %s answers again, after %.0f s", p->path,
			   (double)(tb_now(p->sys).ns - p->silent_since) / 1e9);
	p->silent_since = 0;
	p->next_silent_log = 0;
	p->ts_tried = 0;
	if (p->ts_found)
		return;
	p->ts_found = true;
	CTR_SET(p->cnt.transport_specific, p->ts);
	log_notice("ptp: ptp4l at %s answers management messages with transportSpecific 0x%x%s",
		   p->path, p->ts,
		   p->ts == 1	? " (IEEE 802.1AS, gPTP)"
		   : p->ts == 0 ? " (IEEE 1588)"
				: "");
}

static void receive(struct tb_ptp *p)
{
	uint8_t buf[PTPM_MAX];
	for (;;) {
		long n = p->io.recv(p->io.ctx, buf, sizeof(buf));
		if (n < 0)
			return;
		struct ptpm_msg m;
		const char *why;
		int rc = ptpm_parse(buf, (size_t)n, &m, &why);
		if (rc == -EBADMSG) {
			CTR_ADD(p->cnt.malformed, 1);
			log_debug("ptp: malformed reply (%s)", why);
			continue;
		}
		if (rc != 0 || m.action != PTPM_RESPONSE || m.domain != p->domain) {
			CTR_ADD(p->cnt.unexpected, 1);
			continue;
		}
		if (m.tlv_type == PTPM_TLV_ERROR_STATUS) {
			CTR_ADD(p->cnt.mgmt_errors, 1);
			log_debug("ptp: ptp4l answered management id 0x%04x with error 0x%04x",
				  m.id, m.error_id);
			continue;
		}
		/* a reply to one of our latest requests, or a notification */
		uint16_t age = (uint16_t)(p->seqno - m.seq);
		if (age <= 3) {
			CTR_ADD(p->cnt.replies, 1);
			p->unanswered = 0;
			answered(p);
		} else {
			CTR_ADD(p->cnt.notifications, 1);
		}
		switch (m.id) {
		case PTPM_ID_TIME_STATUS_NP:
			on_time_status(p, &m.u.ts);
			break;
		case PTPM_ID_PORT_DATA_SET:
			on_port_ds(p, &m.u.pds);
			break;
		case PTPM_ID_CURRENT_DATA_SET:
			p->path_delay_scaled = m.u.cds.mean_path_delay_scaled;
			break;
		case PTPM_ID_SUBSCRIBE_EVENTS_NP:
			CTR_ADD(p->cnt.subscriptions, 1);
			break;
		}
	}
}

/* One pass: ask when due, time out, read what came; returns ms until the next ask. */
static int run_once(struct tb_ptp *p)
{
	int64_t now = tb_now(p->sys).ns;
	if (now >= p->next_poll) {
		ask(p, now);
		p->next_poll = now + p->poll_ns;
	}
	tb_poll(&p->base, ptp_now(&p->base));
	receive(p);
	int64_t wait_ms = (p->next_poll - now) / 1000000;
	return (int)(wait_ms < 1 ? 1 : wait_ms > 100 ? 100 : wait_ms);
}

void tb_ptp_run(struct timebase *tb)
{
	run_once(PTP(tb));
}

static void *ptp_thread(void *arg)
{
	struct tb_ptp *p = arg;
	while (!atomic_load(&p->stop)) {
		int ms = run_once(p);
		p->io.wait(p->io.ctx, ms);
	}
	return NULL;
}

/* ---- the socket -------------------------------------------------------------- */

static int sock_send(void *ctx, const uint8_t *buf, size_t n)
{
	struct tb_ptp *p = ctx;
	struct sockaddr_un to = {.sun_family = AF_UNIX};
	memcpy(to.sun_path, p->path, sizeof(to.sun_path));
	ssize_t r = sendto(p->fd, buf, n, 0, (struct sockaddr *)&to, sizeof(to));
	return r == (ssize_t)n ? 0 : r < 0 ? -errno : -EMSGSIZE;
}

static long sock_recv(void *ctx, uint8_t *buf, size_t n)
{
	struct tb_ptp *p = ctx;
	return (long)recv(p->fd, buf, n, MSG_DONTWAIT);
}

static int sock_wait(void *ctx, int ms)
{
	struct tb_ptp *p = ctx;
	struct pollfd pfd = {.fd = p->fd, .events = POLLIN};
	return poll(&pfd, 1, ms);
}

/* ---- the contract --------------------------------------------------------- */

static void ptp_describe(struct timebase *tb, char *buf, size_t len)
{
	struct tb_ptp *p = PTP(tb);
	char sys[200];
	p->sys->ops->describe(p->sys, sys, sizeof(sys));
	snprintf(buf, len,
		 "ptp4l at %s, domain %u, transportSpecific 0x%x%s, %s mode (%s), asking every "
		 "%" PRId64 " ms; clock: %s",
		 p->path, p->domain, p->ts,
		 p->ts_fixed >= 0 ? ""
		 : p->ts_found	  ? " (found)"
				  : " (searching)",
		 p->mode == TB_PTP_OFFSET ? "offset" : "disciplined",
		 p->mode == TB_PTP_OFFSET
			 ? "tdpd applies ptp4l's master offset; ptp4l with free_running 1"
			 : "ptp4l and phc2sys steer the clock",
		 p->poll_ns / 1000000, sys);
}

static void ptp_destroy(struct timebase *tb)
{
	struct tb_ptp *p = PTP(tb);
	if (p->th_up) {
		atomic_store(&p->stop, 1);
		pthread_join(p->th, NULL);
	}
	if (p->fd >= 0)
		close(p->fd);
	if (p->sys && p->own_sys)
		p->sys->ops->destroy(p->sys);
	if (p->inited)
		tb_fini(tb);
	free(p);
}

struct timebase *tb_ptp_new(const struct tb_ptp_io *io, struct timebase *host,
			    const struct tb_params *prm, bool threaded, char *err, size_t errlen)
{
	struct tb_ptp *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* without settings of its own: tdpd.conf's defaults */
	static const struct tb_ptp_params defaults = {.transport_specific = -1};
	const struct tb_ptp_params *own = prm->own ? prm->own : &defaults;
	p->base.ops = &tb_ptp_ops;
	p->fd = -1;
	p->sys = host;
	const char *path = *own->socket ? own->socket : "/var/run/ptp4l";
	if (strlen(path) >= sizeof(p->path)) {
		snprintf(err, errlen, "ptp-socket %s: longer than a UNIX socket path may be", path);
		goto fail;
	}
	snprintf(p->path, sizeof(p->path), "%s", path);
	p->domain = (uint8_t)own->domain;
	p->mode = own->mode;
	p->sync_port = -1;
	p->ts_fixed = own->transport_specific >= 0 && own->transport_specific <= 15
			      ? (int)own->transport_specific
			      : -1;
	if (*own->config) {
		struct ptp_ask a = {.ts_fixed = p->ts_fixed,
				    .domain = p->domain,
				    .offset_mode = p->mode == TB_PTP_OFFSET};
		snprintf(a.path, sizeof(a.path), "%s", p->path);
		if (ptp_cfg_agree(own->config, &a, err, errlen) != 0)
			goto fail;
		p->ts_fixed = a.ts_fixed;
		p->domain = a.domain;
		snprintf(p->path, sizeof(p->path), "%s", a.path);
	}
	p->ts = p->ts_fixed >= 0 ? (uint8_t)p->ts_fixed : 0;
	p->poll_ns = own->poll_ns > 0 ? own->poll_ns : 250000000;
	p->sub_s = own->subscribe_s > 0 && own->subscribe_s <= 3600 ? (int)own->subscribe_s : 60;
	if (tb_init(&p->base, &tb_ptp_ops, prm, tb_now(host), "no answer from ptp4l yet", err,
		    errlen))
		goto fail;
	p->inited = true;
	p->io = *io;
	if (threaded && pthread_create(&p->th, NULL, ptp_thread, p) != 0) {
		snprintf(err, errlen, "cannot start the ptp thread");
		goto fail;
	}
	p->th_up = threaded;
	return &p->base;
fail:
	ptp_destroy(&p->base);
	return NULL;
}

static int ptp_create(struct timebase **out, const struct tb_params *prm, char *err, size_t errlen)
{
	static atomic_int instance;
	struct tb_params sp = *prm;
	struct tb_system_params assume = {.sync_mode = TB_SYSSYNC_ASSUME};
	sp.own = &assume;
	struct timebase *sys;
	int rc = tb_system_ops.create(&sys, &sp, err, errlen);
	if (rc)
		return rc;
	/* our own address, in the abstract namespace: nothing to clean up */
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un me = {.sun_family = AF_UNIX};
	int len = snprintf(me.sun_path + 1, sizeof(me.sun_path) - 1, "tdpd-ptp.%d.%d",
			   (int)getpid(), atomic_fetch_add(&instance, 1));
	if (fd < 0 || bind(fd, (struct sockaddr *)&me,
			   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) != 0) {
		rc = -errno;
		snprintf(err, errlen, "management socket: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		sys->ops->destroy(sys);
		return rc;
	}
	/* the socket functions take the source, which exists only once made:
	 * start without a thread, put the socket in, then start the thread */
	struct tb_ptp_io none = {0};
	struct timebase *tb = tb_ptp_new(&none, sys, prm, false, err, errlen);
	if (!tb) {
		close(fd);
		sys->ops->destroy(sys);
		return -EINVAL;
	}
	struct tb_ptp *p = PTP(tb);
	p->own_sys = true;
	p->fd = fd;
	p->io = (struct tb_ptp_io){
		.ctx = p, .send = sock_send, .recv = sock_recv, .wait = sock_wait};
	if (pthread_create(&p->th, NULL, ptp_thread, p) != 0) {
		snprintf(err, errlen, "cannot start the ptp thread");
		ptp_destroy(tb);
		return -EAGAIN;
	}
	p->th_up = true;
	*out = tb;
	return 0;
}

const struct timebase_ops tb_ptp_ops = {
	.name = "ptp",
	.doc = "follows ptp4l through its management socket (ptp-socket), in ptp-mode disciplined "
	       "or offset",
	.create = ptp_create,
	.destroy = ptp_destroy,
	.now = ptp_now,
	.fast_now = ptp_fast_now,
	.sleep_until = ptp_sleep_until,
	.refresh = ptp_refresh,
	.describe = ptp_describe,
	.opts = tb_ptp_opts,
	.own_size = sizeof(struct tb_ptp_params),
};

/* The client's counters, for tests and the summary. */
void tb_ptp_counters(struct timebase *tb, struct tb_ptp_counters *out)
{
	ctr_snapshot(out, &PTP(tb)->cnt, sizeof(*out));
}
