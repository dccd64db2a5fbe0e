/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdp-probe send: one probe flow at the frame starts of a table (or of --tf),
 * timed on a pinned SCHED_FIFO thread with one of three timers:
 *   predictive  sleep until just before the boundary (the frame engine's
 *               predictive wait), then poll the clock to it;
 *   nanosleep   clock_nanosleep to the boundary and send when it returns
 *               (the user-space baseline of the papers);
 *   spin        poll the clock all the time.
 * A frame the sender wakes up in too late is still sent with the index it was
 * scheduled in, so the receiver sees how late; frames that passed meanwhile
 * are skipped and counted.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "frame.h"
#include "hist.h"
#include "log.h"
#include "probe_net.h"
#include "pw.h"
#include "rt.h"
#include "tdp_probe.h"
#include "tdp_sched.h"
#include "hostclock.h"

enum timer {
	T_PREDICTIVE,
	T_NANOSLEEP,
	T_SPIN
};
static const char *const timer_names[] = {"predictive", "nanosleep", "spin", NULL};
static const char *const late_words[] = {"send", "skip", NULL};

struct send_opts {
	const char *ifname, *dpdk, *table, *flow, *frames, *json, *dst_mac;
	uint64_t tf_ns, k, per_frame, count, duration_ns, start_in_ns, size, flow_id, dscp, ttl,
		vlan, pcp;
	uint64_t stamps;    /* hop stamps to make room for */
	int late_skip;	    /* --late skip (1): no probe after its frame's send window */
	uint32_t flow_size; /* the table flow's size, 0 without one */
	uint64_t sport, dport;
	bool have_size, have_flow_id, have_dscp, have_dport, have_dst, have_src, have_vlan,
		have_pcp;
	uint8_t family, src[16], dst[16], src_family;
	int timer; /* enum timer */
	int cpu, prio;
};

struct send_plan {
	struct frame_geom g;
	uint16_t *n; /* probes per frame of the cycle */
	struct sched_table *t;
};

static void send_usage(FILE *o)
{
	fprintf(o,
		"usage: tdp-probe send (-i IF | --dpdk DEV) (--table FILE --flow NAME | --tf TIME "
		"[--k K] [--frames SET])\n"
		"                      [--count N | --duration TIME] [options]\n"
		"Sends one probe flow at frame starts. Each probe carries its flow id, sequence "
		"number,\n"
		"the absolute frame index it was scheduled in and the CTR time t1 of its send.\n\n"
		"  -i, --interface IF     send on this interface over AF_PACKET\n"
		"      --dpdk DEV         send over a DPDK port (vdev such as "
		"net_af_packet0,iface=veth0, or PCI)\n"
		"      --table FILE       the reservation table; with --flow, send where the flow "
		"is reserved\n"
		"      --flow NAME        the table's flow (also gives DSCP, UDP port, VLAN, "
		"destination, size)\n"
		"      --tf TIME          without a table: the frame length (k*TF must divide one "
		"second)\n"
		"      --k K              frames per cycle (default 1)\n"
		"      --frames SET       frames of the cycle to send in, table syntax such as "
		"0-8/2 (default all)\n"
		"      --per-frame N      probes per frame without a table (default 1)\n"
		"      --count N          stop after N probes\n"
		"      --duration TIME    stop after this long (default: 10s unless --count is "
		"given)\n"
		"      --timer KIND       predictive (default), nanosleep or spin\n"
		"      --late POLICY      a frame the sender wakes for too late: send (default) "
		"its probes with\n"
		"                         their own index, so the lateness shows in L; skip them "
		"when the\n"
		"                         frame's send window (up to the table's guard band) has "
		"passed, as a\n"
		"                         TDP source would (a pipelined router would take them for "
		"a later frame)\n"
		"      --size BYTES       frame size without FCS (default 78: 102 bytes on the "
		"wire)\n"
		"      --stamps N         make room for N hop stamps (12 bytes each, at most 15) "
		"that routers\n"
		"                         write into probes of flows with the stamp option\n"
		"      --flow-id N        id written into the probes (default: the table's flow "
		"number, else 1)\n"
		"      --src IP, --dst IP addresses (default 192.0.2.1 -> 192.0.2.2, or the flow's "
		"/32 or /128)\n"
		"      --dst-mac MAC      next hop's MAC (default ff:ff:ff:ff:ff:ff)\n"
		"      --sport N, --dport N  UDP ports (default 7350 both, or the flow's "
		"udp-dport)\n"
		"      --dscp N, --ttl N, --vlan ID, --pcp N\n"
		"      --cpu N            pin the sending thread (default: the last CPU)\n"
		"      --prio N           SCHED_FIFO priority (default 80; 0 keeps SCHED_OTHER)\n"
		"      --start-in TIME    first frame at least this far ahead, at a cycle start "
		"(default 200ms)\n"
		"      --json FILE        the sender's summary as JSON ('-' for stdout)\n"
		"  -v, --verbose / -q, --quiet\n");
}

static int flow_defaults(struct send_opts *o, const struct sched_flow *f)
{
	const struct sched_match *m = &f->match;
	if (!o->have_dscp && (m->fields & SCHED_M_DSCP))
		o->dscp = m->dscp;
	if (!o->have_dport && (m->fields & SCHED_M_UDP_DPORT))
		o->dport = m->udp_dport;
	if (!o->have_vlan && (m->fields & SCHED_M_VLAN))
		o->vlan = m->vlan, o->have_vlan = true;
	if (!o->have_pcp && (m->fields & SCHED_M_PCP))
		o->pcp = m->pcp;
	if (!o->have_dst && (m->fields & SCHED_M_DST)) {
		if (m->dst_len != (m->dst_family == 4 ? 32 : 128)) {
			fprintf(stderr,
				"tdp-probe: flow %s matches the prefix of a network; give the "
				"receiver's address "
				"with --dst\n",
				f->name);
			return -1;
		}
		o->family = m->dst_family;
		memcpy(o->dst, m->dst, 16);
		o->have_dst = true;
	}
	if (m->fields & SCHED_M_MPLS) {
		fprintf(stderr,
			"tdp-probe: flow %s matches an MPLS label; probes are IP/UDP without "
			"labels\n",
			f->name);
		return -1;
	}
	o->flow_size = f->size;
	if (!o->have_size) {
		o->size = f->size < PROBE_DEFAULT_SIZE ? f->size : PROBE_DEFAULT_SIZE;
	} else if (o->size > f->size) {
		fprintf(stderr,
			"tdp-probe: --size %" PRIu64 " is larger than flow %s's size %" PRIu32
			"; tdpd would not forward it as reserved\n",
			o->size, f->name, f->size);
		return -1;
	}
	return 0;
}

/* Builds the per-frame probe counts from the table, or from --tf/--k/--frames
 * through the table parser so that the frame-set syntax is the same. */
static int plan_build(struct send_opts *o, struct send_plan *p)
{
	memset(p, 0, sizeof(*p));
	struct sched_diags d;
	if (o->table) {
		sched_diags_init(&d, o->table);
		p->t = sched_load(o->table, &d);
	} else {
		char buf[512];
		int n = snprintf(
			buf, sizeof(buf),
			"tdp-schedule 1\ntf %" PRIu64 "ns\nk %" PRIu64
			"\nport p rate 100Gbit/s max-frame 9018\n"
			"flow probe port p size 9000 udp-dport 1\nframes %s: probe %" PRIu64 "\n",
			o->tf_ns, o->k, o->frames ? o->frames : "*", o->per_frame);
		if (n < 0 || (size_t)n >= sizeof(buf)) {
			fprintf(stderr, "tdp-probe: --frames is too long\n");
			return -1;
		}
		sched_diags_init(&d, "--tf/--k/--frames");
		p->t = sched_parse(buf, (size_t)n, &d);
		o->flow = "probe";
	}
	if (!p->t) {
		sched_diags_print(&d, stderr);
		sched_diags_free(&d);
		return -1;
	}
	sched_diags_free(&d);
	uint32_t fi = UINT32_MAX;
	for (uint32_t i = 0; i < p->t->nflows; i++)
		if (!strcmp(p->t->flows[i].name, o->flow))
			fi = i;
	if (fi == UINT32_MAX) {
		fprintf(stderr, "tdp-probe: %s has no flow '%s'\n", o->table, o->flow);
		return -1;
	}
	if (o->table) {
		if (flow_defaults(o, &p->t->flows[fi]))
			return -1;
		if (!o->have_flow_id)
			o->flow_id = fi;
	}
	/* k*TF divides a second, so TF and the epoch fit the header's 32 bits */
	p->g = (struct frame_geom){
		.tf_ns = (int64_t)p->t->tf_ns, .epoch_ns = (int64_t)p->t->epoch_ns, .k = p->t->k};
	p->n = calloc(p->t->k, sizeof(*p->n));
	if (!p->n)
		return -1;
	uint64_t total = 0;
	for (uint32_t tfc = 0; tfc < p->t->k; tfc++) {
		uint32_t ne;
		const struct sched_entry *e = sched_row(p->t, tfc, &ne);
		for (uint32_t j = 0; j < ne; j++)
			if (e[j].flow == fi)
				p->n[tfc] = e[j].n;
		if (p->n[tfc] > PROBE_TX_SLOTS) {
			fprintf(stderr,
				"tdp-probe: flow %s has %u packets in frame %" PRIu32
				" of the cycle; "
				"tdp-probe sends at most %d per frame\n",
				o->flow, p->n[tfc], tfc, PROBE_TX_SLOTS);
			return -1;
		}
		total += p->n[tfc];
	}
	if (!total) {
		fprintf(stderr, "tdp-probe: flow %s has no reserved frame in %s\n", o->flow,
			o->table);
		return -1;
	}
	return 0;
}

static void plan_free(struct send_plan *p)
{
	free(p->n);
	sched_free(p->t);
}

struct send_stats {
	uint64_t frames, sent, errors, skipped, late;
	struct hist err; /* t1 - start(i) of each frame's first probe */
};

/* Until the boundary, or until SIGINT or SIGTERM (probe_stop) when stoppable:
 * a wait of --start-in may be long, and a signal must end it, not be spun or
 * slept through. */
static tdp_time_t wait_for(enum timer tm, const struct hostclock *clk, struct pw *pw,
			   tdp_time_t boundary, bool stoppable)
{
	tdp_time_t now = hostclock_fast_now(clk);
	if (tm == T_NANOSLEEP) {
		/* clock_nanosleep returns early with EINTR when a signal comes */
		while (tdp_time_before(now, boundary) && !(stoppable && probe_stop)) {
			hostclock_sleep_until(clk, boundary);
			now = hostclock_fast_now(clk);
		}
		return now;
	}
	if (tm == T_PREDICTIVE) {
		tdp_time_t to;
		if (pw_plan(pw, now, boundary, &to)) {
			while (hostclock_sleep_until(clk, to) == -EINTR &&
			       !(stoppable && probe_stop))
				;
			tdp_time_t woke = hostclock_fast_now(clk);
			if (pw_woke(pw, to, woke, boundary))
				pw_book_cost(pw, tdp_time_diff(hostclock_fast_now(clk), woke));
			now = hostclock_fast_now(clk);
		}
	}
	while (tdp_time_before(now, boundary) && !(stoppable && probe_stop))
		now = hostclock_fast_now(clk);
	return now;
}

static int send_end(struct probe_txq *q, struct probe_tmpl *end, uint32_t sent, int64_t frame)
{
	if (q->prepare(q, 0, end))
		return -1;
	probe_stamp(end, q->slot(q, 0), sent, frame, 0);
	return q->send(q, 1) == 1 ? 0 : -1;
}

static void send_json(FILE *f, const struct send_opts *o, const struct send_plan *p,
		      const struct send_stats *s, const char *where, double cpu_pct,
		      const struct pw *pw)
{
	fprintf(f, "{\"tdp_probe_send\": 1, \"where\": ");
	sched_json_str(f, where);
	fprintf(f,
		", \"timer\": \"%s\", \"flow\": %" PRIu64 ", \"tf_ns\": %" PRId64
		", \"k\": %" PRIu32 ", \"size\": %" PRIu64 ", \"frames\": %" PRIu64
		", \"sent\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"skipped_frames\": %" PRIu64
		", \"late_frames\": %" PRIu64 ", \"cpu_percent\": %.1f, \"sleeps\": %" PRIu64
		", \"spins\": %" PRIu64,
		timer_names[o->timer], o->flow_id, p->g.tf_ns, p->g.k, o->size, s->frames, s->sent,
		s->errors, s->skipped, s->late, cpu_pct, pw->st.sleeps, pw->st.spins);
	fprintf(f, ", \"start_error_ns\": {\"count\": %" PRIu64, s->err.count);
	if (s->err.count)
		fprintf(f,
			", \"min\": %" PRId64 ", \"p50\": %" PRId64 ", \"p99\": %" PRId64
			", \"p99.9\": %" PRId64 ", \"max\": %" PRId64,
			s->err.min, hist_quantile(&s->err, 0.5), hist_quantile(&s->err, 0.99),
			hist_quantile(&s->err, 0.999), s->err.max);
	fprintf(f, "}}\n");
}

/* o from argv, checked: 0, 1 when --help was printed, -1 (said) when bad */
static int send_args(struct send_opts *o, int argc, char **argv)
{
#define SO(f) offsetof(struct send_opts, f)
#define SEEN(f) PO_SEEN(struct send_opts, f)
	static const struct probe_opt opts[] = {
		{PO_ROW("interface", 'i', PO_STR, SO(ifname))},
		{PO_ROW("dpdk", 0, PO_STR, SO(dpdk))},
		{PO_ROW("table", 0, PO_STR, SO(table))},
		{PO_ROW("flow", 0, PO_STR, SO(flow))},
		{PO_ROW("tf", 0, PO_TIME, SO(tf_ns))},
		{PO_ROW("k", 0, PO_UINT, SO(k)), .min = 1, .max = SCHED_MAX_K},
		{PO_ROW("frames", 0, PO_STR, SO(frames))},
		{PO_ROW("per-frame", 0, PO_UINT, SO(per_frame)), .min = 1, .max = PROBE_TX_SLOTS},
		{PO_ROW("count", 0, PO_UINT, SO(count)), .min = 1, .max = UINT32_MAX},
		{PO_ROW("duration", 0, PO_TIME, SO(duration_ns))},
		{PO_ROW("timer", 0, PO_WORD, SO(timer)), .words = timer_names},
		{PO_ROW("size", 0, PO_UINT, SO(size)), .seen = SEEN(have_size), .min = 1,
		 .max = PROBE_MAX_SIZE},
		{PO_ROW("stamps", 0, PO_UINT, SO(stamps)), .max = PROBE_MAX_HOPS},
		{PO_ROW("late", 0, PO_WORD, SO(late_skip)), .words = late_words},
		{PO_ROW("flow-id", 0, PO_UINT, SO(flow_id)), .seen = SEEN(have_flow_id),
		 .max = UINT32_MAX},
		{PO_ROW("src", 0, PO_IP, SO(src)), .seen = SEEN(have_src), .off2 = SO(src_family)},
		{PO_ROW("dst", 0, PO_IP, SO(dst)), .seen = SEEN(have_dst), .off2 = SO(family)},
		{PO_ROW("dst-mac", 0, PO_STR, SO(dst_mac))},
		{PO_ROW("sport", 0, PO_UINT, SO(sport)), .min = 1, .max = 65535},
		{PO_ROW("dport", 0, PO_UINT, SO(dport)), .seen = SEEN(have_dport), .min = 1,
		 .max = 65535},
		{PO_ROW("dscp", 0, PO_UINT, SO(dscp)), .seen = SEEN(have_dscp), .max = 63},
		{PO_ROW("ttl", 0, PO_UINT, SO(ttl)), .min = 1, .max = 255},
		{PO_ROW("vlan", 0, PO_UINT, SO(vlan)), .seen = SEEN(have_vlan), .max = 4095},
		{PO_ROW("pcp", 0, PO_UINT, SO(pcp)), .seen = SEEN(have_pcp), .max = 7},
		{PO_ROW("cpu", 0, PO_INT, SO(cpu)), .max = 4095},
		{PO_ROW("prio", 0, PO_INT, SO(prio)), .max = 99},
		{PO_ROW("start-in", 0, PO_TIME, SO(start_in_ns))},
		{PO_ROW("json", 0, PO_STR, SO(json))},
		{PO_ROW("verbose", 'v', PO_VERBOSE, 0)},
		{PO_ROW("quiet", 'q', PO_QUIET, 0)},
		{PO_ROW("help", 'h', PO_HELP, 0)},
		{.name = NULL},
	};
#undef SO
#undef SEEN
	int bad = probe_cmd_args(opts, o, argc, argv, "send", send_usage, false);
	if (bad == 1)
		return 1;
	if (!bad && !o->ifname == !o->dpdk)
		bad = probe_cmd_bad("send", "give one of -i IF or --dpdk DEV");
	if (!bad && !o->table == !o->tf_ns)
		bad = probe_cmd_bad("send", "give --table with --flow, or --tf");
	if (!bad && o->table && !o->flow)
		bad = probe_cmd_bad("send", "--table needs --flow NAME");
	if (!bad && o->table && (o->frames || o->k != 1 || o->per_frame != 1))
		bad = probe_cmd_bad("send",
				    "--k, --frames and --per-frame are for use without a table");
	if (bad) {
		fprintf(stderr, "Try 'tdp-probe send --help'.\n");
		return -1;
	}
	return 0;
}

/* The probe and its end packet for o's addresses and size on q: 0, or -1
 * (said) when the settings do not make a probe (o->size grows to hold the
 * hop stamps asked for). */
static int send_templates(struct send_opts *o, const struct probe_txq *q, const struct send_plan *p,
			  struct probe_tmpl *tmpl, struct probe_tmpl *endt)
{
	struct probe_addr a = {.family = o->have_dst ? o->family : 4,
			       .sport = (uint16_t)o->sport,
			       .dport = (uint16_t)o->dport,
			       .dscp = (uint8_t)o->dscp,
			       .ttl = (uint8_t)o->ttl,
			       .vlan = o->have_vlan ? (int)o->vlan : -1,
			       .pcp = (uint8_t)o->pcp};
	memcpy(a.src_mac, q->mac, 6);
	memset(a.dst_mac, 0xff, 6);
	if (o->dst_mac && probe_parse_mac(o->dst_mac, a.dst_mac)) {
		fprintf(stderr,
			"tdp-probe: --dst-mac: '%s' is not a MAC address such as "
			"02:00:00:00:01:01\n",
			o->dst_mac);
		return -1;
	}
	if (!o->have_dst) {
		static const uint8_t d4[4] = {192, 0, 2, 2};
		memcpy(a.dst, d4, 4);
	} else {
		memcpy(a.dst, o->dst, 16);
	}
	if (o->have_src) {
		if (o->src_family != a.family) {
			fprintf(stderr,
				"tdp-probe: --src and --dst are of different address families\n");
			return -1;
		}
		memcpy(a.src, o->src, 16);
	} else if (a.family == 4) {
		static const uint8_t s4[4] = {192, 0, 2, 1};
		memcpy(a.src, s4, 4);
	} else {
		a.src[0] = 0xfe, a.src[1] = 0x80, a.src[15] = 1;
	}
	unsigned minsz = probe_min_size(a.family, a.vlan >= 0);
	if (o->stamps) {
		uint64_t need = minsz + PROBE_STAMP_LEN * o->stamps;
		if (o->have_size && o->size < need) {
			fprintf(stderr,
				"tdp-probe: --size %" PRIu64 " leaves room for %" PRIu64
				" hop stamps; --stamps %" PRIu64 " needs %" PRIu64 " bytes\n",
				o->size, o->size < minsz ? 0 : (o->size - minsz) / PROBE_STAMP_LEN,
				o->stamps, need);
			return -1;
		}
		if (o->flow_size && need > o->flow_size) {
			fprintf(stderr,
				"tdp-probe: --stamps %" PRIu64 " needs %" PRIu64
				"-byte probes, larger than the flow's "
				"size %" PRIu32 "; tdpd would not forward them as reserved\n",
				o->stamps, need, o->flow_size);
			return -1;
		}
		if (o->size < need)
			o->size = need;
	}
	if (o->size < minsz) {
		fprintf(stderr,
			"tdp-probe: --size %" PRIu64 " is below the %u bytes a probe needs here\n",
			o->size, minsz);
		return -1;
	}
	struct probe_hdr h = {.kind = PROBE_K_PROBE,
			      .flow = (uint32_t)o->flow_id,
			      .tf_ns = (uint32_t)p->g.tf_ns,
			      .epoch_ns = (uint32_t)p->g.epoch_ns};
	if (probe_build(tmpl, &a, (unsigned)o->size, &h)) {
		fprintf(stderr, "tdp-probe: cannot build a probe with these settings\n");
		return -1;
	}
	h.kind = PROBE_K_END;
	probe_build(endt, &a, minsz, &h);
	return 0;
}

/* The probes of every frame from i0 on, each burst at its frame's start,
 * until stopped, the duration or the count; *seq counts the probes sent.
 * Returns the last frame a burst went out in. */
static int64_t send_frames(const struct send_opts *o, const struct send_plan *p,
			   struct probe_txq *q, struct hostclock *clk, struct pw *pw,
			   struct probe_tmpl *tmpl, int64_t i0, struct send_stats *s, uint32_t *seq)
{
	int64_t stop_frame =
		o->duration_ns ? i0 + (int64_t)(o->duration_ns / (uint64_t)p->g.tf_ns) : INT64_MAX;
	/* --late skip: a probe goes out before its frame's guard band starts,
	 * or not at all; send: while the header's t1 offset can say how late */
	const int64_t late_ns = o->late_skip ? p->g.tf_ns - (int64_t)p->t->guard_ns : INT32_MAX;
	int64_t i = i0, last = i0;
	int64_t refresh_at = hostclock_now(clk).ns + 100000000;
	tdp_time_t now;
	while (!probe_stop && i < stop_frame && (!o->count || *seq < o->count)) {
		uint32_t n = p->n[frame_tfc(&p->g, i)];
		if (!n) {
			i++;
			continue;
		}
		if (o->count && *seq + n > o->count)
			n = (uint32_t)(o->count - *seq);
		uint32_t ready = 0;
		while (ready < n && q->prepare(q, ready, tmpl) == 0)
			ready++;
		if (ready < n) {
			/* no buffer for the rest (a DPDK pool ran dry): they count as send errors */
			s->errors += n - ready;
			n = ready;
			if (!n) {
				i++;
				continue;
			}
		}
		tdp_time_t start = frame_start(&p->g, i);
		now = wait_for(o->timer, clk, pw, start, true);
		if (tdp_time_before(now, start)) {
			/* stopped while waiting: nothing goes before its frame
			 * (the prepared slots are the queue's, freed at close) */
			break;
		}
		if (tdp_time_diff(now, start) >= late_ns) {
			/* past the send window: the frame is skipped */
			s->skipped++;
		} else {
			for (uint32_t j = 0; j < n; j++) {
				/* the first probe's t1 is the time the window was checked at */
				tdp_time_t t1 = j ? hostclock_fast_now(clk) : now;
				probe_stamp(tmpl, q->slot(q, j), *seq + j, i,
					    (int32_t)tdp_time_diff(t1, start));
				if (j == 0)
					hist_add(&s->err, tdp_time_diff(t1, start));
			}
			int sent = q->send(q, n);
			if (sent < 0) {
				s->errors += n;
				log_debug("send: %s", strerror(-sent));
			} else {
				s->sent += (uint64_t)sent;
				s->errors += n - (uint32_t)sent;
				*seq += (uint32_t)sent;
			}
			s->frames++;
			last = i;
		}
		if (pw->pending)
			pw_flush(pw);
		now = hostclock_fast_now(clk);
		if (now.ns >= refresh_at) {
			hostclock_anchor(clk);
			refresh_at = now.ns + 100000000;
		}
		int64_t cur = frame_index(&p->g, now);
		if (cur > i) {
			/* woke in a later frame: those in between are gone */
			s->late++;
			s->skipped += (uint64_t)(cur - i);
			i = cur + 1;
		} else {
			i++;
		}
	}
	return last;
}

int probe_cmd_send(int argc, char **argv)
{
	struct send_opts o = {.k = 1,
			      .per_frame = 1,
			      .start_in_ns = 200000000,
			      .size = PROBE_DEFAULT_SIZE,
			      .flow_id = 1,
			      .ttl = 64,
			      .sport = PROBE_DEFAULT_PORT,
			      .dport = PROBE_DEFAULT_PORT,
			      .timer = T_PREDICTIVE,
			      .cpu = -2,
			      .prio = 80};
	int ar = send_args(&o, argc, argv);
	if (ar)
		return ar > 0 ? 0 : 2;
	if (!o.count && !o.duration_ns)
		o.duration_ns = 10 * TDP_NS_PER_S;

	struct send_plan p;
	if (plan_build(&o, &p)) {
		plan_free(&p);
		return 2;
	}
	int rc = 1;
	char err[256];
	struct hostclock clk;
	struct probe_txq *q = NULL;
	struct rt_process rp = {.dma_fd = -1};
	struct send_stats s;
	memset(&s, 0, sizeof(s));
	hist_init(&s.err);

	if (o.cpu == -2) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		o.cpu = n > 0 ? (int)n - 1 : -1;
	}
	q = o.dpdk ? probe_txq_dpdk(o.dpdk, o.cpu, err, sizeof(err))
		   : probe_txq_packet(o.ifname, err, sizeof(err));
	if (!q) {
		fprintf(stderr, "tdp-probe: %s\n", err);
		goto out;
	}
	static struct probe_tmpl tmpl, endt;
	if (send_templates(&o, q, &p, &tmpl, &endt)) {
		rc = 2;
		goto out;
	}

	if (hostclock_init(&clk, HC_CLOCK_AUTO, HC_UTC_TAI_DEFAULT_S, HC_FAST_AUTO, err,
			   sizeof(err))) {
		fprintf(stderr, "tdp-probe: clock: %s\n", err);
		goto out;
	}
	char desc[256];
	hostclock_describe(&clk, desc, sizeof(desc));
	log_info("clock: %s", desc);
	struct pw pw;
	struct pw_config pc = {.tf_ns = p.g.tf_ns,
			       .spin_below_ns = 20000,
			       .min_sleep_ns = 10000,
			       .margin_ns = 2000,
			       .window = 32,
			       .decay_pct = 95,
			       .book_init_ns = 200};
	pw_init(&pw, &pc);

	rt_process_setup(&rp, true, true);
	rt_thread_setup("sender", o.cpu, o.prio);
	probe_on_signals();

	/* first frame: a cycle start at least start-in ahead */
	tdp_time_t now = hostclock_now(&clk);
	int64_t i0 = frame_index(&p.g, tdp_time_add(now, (int64_t)o.start_in_ns));
	i0 = (i0 / p.g.k + 1) * p.g.k;
	log_notice("sending flow %" PRIu64 " (%s) on %s: TF %" PRId64 " ns, k %" PRIu32 ", %" PRIu64
		   " bytes, timer %s, from frame %" PRId64 " (in %.3f s)",
		   o.flow_id, o.flow, q->what, p.g.tf_ns, p.g.k, o.size, timer_names[o.timer], i0,
		   (double)tdp_time_diff(frame_start(&p.g, i0), now) / 1e9);
	struct rusage ru0, ru1;
	getrusage(RUSAGE_THREAD, &ru0);
	tdp_time_t t_begin = hostclock_now(&clk);
	uint32_t seq = 0;
	int64_t last = send_frames(&o, &p, q, &clk, &pw, &tmpl, i0, &s, &seq);
	getrusage(RUSAGE_THREAD, &ru1);
	tdp_time_t t_end = hostclock_now(&clk);
	/* the end packets say how many probes there were; three against loss,
	 * each at the start of a later frame the flow owns, with its index, so
	 * that routers that serve a pipelined flow in exactly its frames forward
	 * them like the probes */
	int64_t ei = last;
	for (int e = 0; seq && e < 3; e++) { /* none when nothing was sent */
		for (uint32_t x = 0; x < p.g.k; x++)
			if (p.n[frame_tfc(&p.g, ++ei)])
				break;
		wait_for(T_NANOSLEEP, &clk, &pw, frame_start(&p.g, ei), false);
		if (send_end(q, &endt, seq, ei))
			log_warn("could not send the end packet");
	}
	double cpu_ns = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru1.ru_stime.tv_sec -
				 ru0.ru_stime.tv_sec) *
				1e9 +
			(double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec +
				 ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) *
				1e3;
	double wall = (double)tdp_time_diff(t_end, t_begin);
	double cpu_pct = wall > 0 ? 100.0 * cpu_ns / wall : 0;
	fprintf(stderr,
		"tdp-probe send: %" PRIu64 " probes in %" PRIu64 " frames, %" PRIu64
		" send errors, %" PRIu64 " frames skipped, %" PRIu64
		" woke in a later frame; timer %s, CPU %.1f%%\n",
		s.sent, s.frames, s.errors, s.skipped, s.late, timer_names[o.timer], cpu_pct);
	if (s.err.count)
		fprintf(stderr,
			"  t1 - frame start: min %.3f p50 %.3f p99 %.3f p99.9 %.3f max %.3f us\n",
			s.err.min / 1e3, hist_quantile(&s.err, 0.5) / 1e3,
			hist_quantile(&s.err, 0.99) / 1e3, hist_quantile(&s.err, 0.999) / 1e3,
			s.err.max / 1e3);
	if (o.json) {
		FILE *jf = strcmp(o.json, "-") ? fopen(o.json, "w") : stdout;
		if (!jf) {
			fprintf(stderr, "tdp-probe: %s: %s\n", o.json, strerror(errno));
			goto out;
		}
		send_json(jf, &o, &p, &s, q->what, cpu_pct, &pw);
		if (jf != stdout)
			fclose(jf);
	}
	rc = s.sent ? 0 : 1;
out:
	rt_process_release(&rp);
	if (q)
		q->close(q);
	plan_free(&p);
	return rc;
}
