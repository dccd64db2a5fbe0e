/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpd's start-up: the steps, each with its up and its down, torn down in
 * exact reverse order (the configuration phase before them is prepare.c's).
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "counters.h"
#include "kif.h"
#include "portlock.h"
#include "log.h"
#include "summary.h"
#include "startup_steps.h"
#include "tdpd.h"

/* RX's arrival times: the cheap read, which any thread may make */
static tdp_time_t rx_clock(void *arg)
{
	return tb_fast_now(arg);
}

/* ---- start-up: steps, torn down in exact reverse order ------------------- */

static int notify_up(struct tdpd *d)
{
	char err[256];
	if (notify_init(&d->nt, err, sizeof(err)) != 0)
		log_warn("%s: not telling systemd", err);
	if (d->conf.log_syslog)
		tdp_log_open_syslog();
	return 0;
}

static void notify_down(struct tdpd *d)
{
	notify_close(&d->nt);
}

/* Each port's lock and the state directory's, before anything of a port is
 * touched: a second tdpd naming a held port stops here, and names the holder. */
static int locks_up(struct tdpd *d)
{
	char err[700];
	struct conf *c = &d->conf;
	for (uint32_t p = 0; p < c->nports; p++)
		d->plock[p].fd = -1;
	for (uint32_t p = 0; p < c->nports; p++) {
		int rc, tries = 0;
		/* the guard of a tdpd that died holds it while it sets the port
		 * down: a restart waits for it (at most 5 s), then brings it up */
		while ((rc = pl_take(&d->plock[p], c->ports[p].name, c->ports[p].device,
				     c->control_socket, 0, err, sizeof(err))) == -2 &&
		       tries++ < 50) {
			if (tries == 1)
				log_notice("[port %s] %s: waiting for it", c->ports[p].name, err);
			usleep(100000);
		}
		if (rc != 0) {
			log_err("[port %s] %s", c->ports[p].name, err);
			goto fail;
		}
	}
	if (tstate_open(&d->st, c->state_directory, c->control_socket, err, sizeof(err)) != 0) {
		log_err("%s", err);
		goto fail;
	}
	d->ctl.tm.state = &d->st;
	return 0;
fail:
	for (uint32_t p = 0; p < c->nports; p++)
		lockfile_release(&d->plock[p]);
	return -1;
}

static void locks_down(struct tdpd *d)
{
	d->ctl.tm.state = NULL;
	tstate_close(&d->st);
	for (uint32_t p = 0; p < d->conf.nports; p++)
		lockfile_release(&d->plock[p]);
}

/* The guard that takes the stop action if tdpd dies (guard.h): forked before
 * any thread. At a clean stop, after the host paths are released, tdpd takes
 * the action itself, then ends the guard; the ports' locks go after. */
static int guard_up(struct tdpd *d)
{
	char err[256];
	int n = pmd_eal_stale_dirs();
	if (n)
		log_info("removed %d empty DPDK runtime director%s of tdpd processes that are gone "
			 "(%s)",
			 n, n == 1 ? "y" : "ies", PMD_RUNTIME_DIR);
	if (hp_guard_start(&d->guard, (int)d->conf.stop_action, err, sizeof(err)) != 0) {
		log_err("%s", err);
		return -1;
	}
	return 0;
}

static void guard_down(struct tdpd *d)
{
	for (uint32_t p = 0; p < d->guard.narmed; p++)
		hp_stop_port(&d->hp[p], d->conf.ports[p].name, d->guard.action, "tdpd stopped");
	hp_guard_end(&d->guard);
}

/* the sockets first: a path in use stops tdpd before it takes any device */
static int sockets_up(struct tdpd *d)
{
	char err[256];
	d->ctl.conf = &d->conf;
	if (control_open(&d->ctl, err, sizeof(err)) != 0) {
		log_err("%s", err);
		return -1;
	}
	return 0;
}

static void sockets_down(struct tdpd *d)
{
	control_stop(&d->ctl);
}

static int rt_up(struct tdpd *d)
{
	rt_process_setup(&d->rtp, d->conf.mlock, d->conf.dma_latency);
	return 0;
}

static void rt_down(struct tdpd *d)
{
	rt_process_release(&d->rtp);
}

/* DPDK's EAL, on hugepages or not (pmd_huge_decide says why) */
/* the XDP program: tdpd.conf's, else the one built beside this tdpd, else
 * the installed one */
static void xdp_program(const struct conf *c, char *path, size_t len)
{
	if (c->xdp_program[0]) {
		snprintf(path, len, "%s", c->xdp_program);
		return;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		snprintf(path, len, "%s/hostpath/tdpd_xdp.o", dirname(exe));
		if (access(path, R_OK) == 0)
			return;
	}
	snprintf(path, len, "%s", TDP_XDP_PROG);
}

/* each port's kernel interface, before the EAL opens the ports */
static int hostpath_up(struct tdpd *d)
{
	char err[400], prog[PATH_MAX];
	struct conf *c = &d->conf;
	xdp_program(c, prog, sizeof(prog));
	xdpp_catch_kernel_messages();
	for (uint32_t p = 0; p < c->nports; p++) {
		struct hp_port *hp = &d->hp[p];
		struct conf_port *cp = &c->ports[p];
		if (hp_prepare(hp, cp->name, cp->device, (int)cp->host_path, cp->host_interface,
			       prog, err, sizeof(err)) != 0) {
			log_err("[port %s] %s", c->ports[p].name, err);
			hp_release(hp);
			return -1;
		}
		d->nhp = p + 1;
		hp_guard_arm(&d->guard, hp, cp->name);
		if (pmd_is_pci(cp->device))
			hp->queues = (uint16_t)tdpd_rx_cores(c, NULL);
		if (hp->mode == RXH_NONE)
			log_info("port %s: no kernel interface: the router's host stack is not "
				 "reachable through it",
				 c->ports[p].name);
		else if (hp->mode == RXH_TAP && !hp->dev_ifname[0])
			log_info("port %s: host path tap on %s, created once the port is open",
				 cp->name, hp->ifname);
		else if (hp->mode == RXH_TAP)
			log_info("port %s: host path tap on %s, created once the port is open; %s, "
				 "%u RX queue%s, every "
				 "frame to tdpd%s%.*s",
				 cp->name, hp->ifname, hp->dev_ifname, hp->queues,
				 hp->queues == 1 ? "" : "s", hp->note[0] ? "; " : "",
				 hp->note[0] ? (int)strlen(hp->note) - 2 : 0, hp->note);
		else
			log_info("port %s: host path %s on %s, %u RX queue%s%s%.*s",
				 c->ports[p].name, hp_mode_name(hp->mode), hp->ifname, hp->queues,
				 hp->queues == 1 ? "" : "s", hp->note[0] ? "; " : "",
				 hp->note[0] ? (int)strlen(hp->note) - 2 : 0, hp->note);
	}
	return 0;
}

static void hostpath_down(struct tdpd *d)
{
	while (d->nhp)
		hp_release(&d->hp[--d->nhp]);
}

static int timebase_up(struct tdpd *d)
{
	struct conf *c = &d->conf;
	char tberr[256];
	const struct timebase_ops *tbo = timebase_table[c->timebase];
	/* the sources read their own settings; the frame geometry is the table's */
	struct tb_params tp = c->tb;
	tp.own = conf_tb_own(c, tbo);
	tp.tf_ns = (int64_t)d->t->tf_ns;
	tp.epoch_ns = (int64_t)d->t->epoch_ns;
	if (tbo->create(&d->tb, &tp, tberr, sizeof(tberr)) != 0) {
		log_err("timebase %s: %s", tbo->name, tberr);
		return -1;
	}
	char desc[256];
	d->tb->ops->describe(d->tb, desc, sizeof(desc));
	log_info("timebase %s: %s", tbo->name, desc);
	if (c->time_offset_ns) {
		/* the edges of a frame tick mark the frames: an offset would move
		 * the time read but not them */
		if (d->tb->ops->tick_fd && d->tb->ops->tick_fd(d->tb) >= 0) {
			log_err("time-offset: timebase %s takes its frames from a tick, which no "
				"offset moves; set the "
				"source's own correction (the card's propagation delay, ptp4l's "
				"delayAsymmetry)",
				tbo->name);
			tb_destroy(d->tb);
			d->tb = NULL;
			return -1;
		}
		d->tb->offset_ns = c->time_offset_ns;
		log_warn("time-offset: %" PRId64 " ns added to the %s source's time",
			 c->time_offset_ns, tbo->name);
	}
	struct tb_sync sy;
	tb_sync(d->tb, &sy);
	log_notice("sync: %s (%s); in holdover the engine will %s, unlocked it will %s",
		   tb_state_name(sy.state), sy.reason, conf_action_names[c->sync_holdover_action],
		   conf_action_names[c->sync_unlocked_action]);

	return 0;
}

static void timebase_down(struct tdpd *d)
{
	tb_destroy(d->tb);
	d->tb = NULL;
}

/* the frame engine, each port paced at what it can send */
static int engine_up(struct tdpd *d)
{
	char err[256];
	struct conf *c = &d->conf;
	struct eng_port_cfg epc[SCHED_MAX_PORTS];
	for (uint32_t tp_ = 0; tp_ < d->t->nports; tp_++) {
		uint32_t p = d->table_to_port[tp_];
		uint64_t table_rate = d->t->ports[tp_].rate_bps;
		uint64_t rate = (uint64_t)c->ports[p].rate_bps;
		const char *from = "configuration";
		if (!rate && d->ports[p].link_mbps) {
			rate = (uint64_t)d->ports[p].link_mbps * 1000000ull;
			from = "PMD link speed";
		}
		if (!rate) {
			rate = table_rate;
			from = "table";
		}
		if (rate < table_rate)
			log_warn("port %s: paced at %" PRIu64
				 " bit/s (%s), below the table's %" PRIu64
				 " bit/s: admission control assumed more than the link gives",
				 c->ports[p].name, rate, from, table_rate);
		log_info("port %s: engine paces best effort at %" PRIu64 " bit/s (%s)",
			 c->ports[p].name, rate, from);
		d->pinfo[p].rate_bps = rate;
		d->pinfo[p].rate_from = from;
		epc[tp_] = (struct eng_port_cfg){.dpdk_port = d->ports[p].id,
						 .txq = 0,
						 .rate_bps = rate,
						 .overhead = d->t->ports[tp_].overhead};
		tdpd_launch_port(d, p, &epc[tp_]);
	}
	struct eng_config ec = {
		.t = d->t,
		.tb = d->tb,
		.late = c->late_policy ? LATE_CARRY : LATE_DROP,
		.node_id = (uint16_t)c->node_id,
		.flow_depth = (uint32_t)c->flow_queue_depth,
		.be_depth = (uint32_t)c->be_queue_depth,
		.rx_cores = d->nrx,
		.be_poll_ns = c->be_poll_ns,
		.ports = epc,
		.holdover_action = (enum sync_action)c->sync_holdover_action,
		.unlocked_action = (enum sync_action)c->sync_unlocked_action,
		.budget_action = (enum sync_action)c->sync_budget_action,
		.pw = {.spin_below_ns = c->spin_below_ns,
		       .min_sleep_ns = c->min_sleep_ns,
		       .margin_ns = c->wake_margin_ns,
		       .window = (uint32_t)c->oversleep_window,
		       .decay_pct = (uint32_t)c->oversleep_decay,
		       .book_init_ns = 200,
		       .max_lead_ns = c->max_lead_ns,
		       .miss_ppb = c->wake_predictor ? (uint64_t)c->wake_miss_ppb : 0},
		/* left at its default, the lead is cut to half the TF where longer */
		.launch_lead_ns = c->launch_lead_ns,
		.launch_lead_default =
			!c->set_line[conf_find("launch-lead", CS_GLOBAL) - conf_opts],
		.launch_margin_ns = c->launch_margin_ns,
	};
	d->e = engine_create(&ec, err, sizeof(err));
	if (!d->e) {
		log_err("frame engine: %s", err);
		tdpd_launch_down(d);
		return -1;
	}
	if (engine_launch_lead(d->e))
		log_info("launch-time ports: each burst handed over %" PRId64
			 " ns before its frame (launch-lead%s), "
			 "no later than %" PRId64 " ns before it (launch-margin)",
			 engine_launch_lead(d->e),
			 engine_launch_lead(d->e) < c->launch_lead_ns
				 ? ": half the TF, the default being longer"
				 : "",
			 c->launch_margin_ns);
	return 0;
}

static void engine_down(struct tdpd *d)
{
	engine_destroy(d->e);
	d->e = NULL;
	tdpd_launch_down(d);
}

/* routes, the table in force for RX and control, what a frame may hold */
static int tables_up(struct tdpd *d)
{
	char err[256];
	struct conf *c = &d->conf;
	const char *miss;
	if (router_build(d->rt, err, sizeof(err)) != 0 || router_missing(d->rt, &miss)) {
		log_err("routes: %s", router_missing(d->rt, &miss) ? miss : err);
		return -1;
	}
	d->ctl.tm.cur = dtable_new(engine_table_current(d->e),
				   d->resumed ? d->saved.name : d->schedule_path, d->origin);
	if (!d->ctl.tm.cur) {
		log_err("out of memory");
		return -1;
	}
	d->ctl.tm.cur->resumed = d->resumed;
	/* the state directory holds it already (resumed, or tdpd.conf's own) */
	d->ctl.tm.cur_saved = !strcmp(d->saved.digest, d->ctl.tm.cur->digest);
	for (uint32_t p = 0; p < c->nports; p++)
		d->be_q[p] = d->rxp[p].table_port >= 0
				     ? engine_be_ring(d->e, (uint32_t)d->rxp[p].table_port)
				     : NULL;
	d->rx[0] = (struct rx){.ports = d->rxp,
			       .nports = c->nports,
			       .tab = &d->ctl.tm.cur->rxt[0],
			       .be_q = d->be_q,
			       .table_to_port = d->table_to_port,
			       .clock = rx_clock,
			       .clock_arg = d->tb,
			       .g = *engine_geom(d->e),
			       .icmp_rate = (uint32_t)c->icmp_rate,
			       .icmp_burst = (uint32_t)c->icmp_burst,
			       .ncores = (uint16_t)d->nrx,
			       .link = d->link,
			       .moved = (uint8_t)c->moved_route,
			       .hold = &d->hold[0]};
	rx_set_router(&d->rx[0], d->rt);
	/* the ICMP errors' source on each port: its first address of each family */
	uint8_t la[CONF_MAX_PORTS * 8][17];
	uint32_t lp[CONF_MAX_PORTS * 8];
	size_t nla = router_addresses(d->rt, la, lp, CONF_MAX_PORTS * 8);
	for (size_t i = 0; i < nla && i < CONF_MAX_PORTS * 8; i++) {
		struct rx_port *rp = &d->rxp[lp[i]];
		if (la[i][0] == 4 && !rp->has_ip4) {
			memcpy(rp->ip4, la[i] + 1, 4);
			rp->has_ip4 = true;
		} else if (la[i][0] == 6 && !rp->has_ip6) {
			memcpy(rp->ip6, la[i] + 1, 16);
			rp->has_ip6 = true;
		}
	}
	/* the other RX cores: copies of core 0's ports and settings, each its
	 * own queues of the flows; ICMP errors share icmp-rate between them */
	if (d->nrx > 1) {
		d->handoff = rte_ring_create("tdpd_handoff", 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
		if (!d->handoff) {
			log_err("cannot create the RX cores' hand-off ring: %s",
				rte_strerror(rte_errno));
			return -1;
		}
		d->rx[0].handoff = d->handoff;
	}
	for (uint32_t k = 1; k < d->nrx; k++) {
		memcpy(d->rxp_core[k - 1], d->rxp, sizeof(d->rxp));
		d->rx[k] = d->rx[0];
		d->rx[k].ports = d->rxp_core[k - 1];
		d->rx[k].core = (uint16_t)k;
		d->rx[k].hold = &d->hold[k];
		d->rx[k].tab = &d->ctl.tm.cur->rxt[k];
		rx_set_router(&d->rx[k], d->rt);
	}
	for (uint32_t k = 0; k < d->nrx; k++) {
		d->rx[k].icmp_rate = rx_share((uint32_t)c->icmp_rate, d->nrx, k);
		d->rx[k].icmp_burst = rx_share((uint32_t)c->icmp_burst, d->nrx, k);
	}
	/* table loads are checked against the rings the PMDs set up */
	bool adjusted = false;
	for (uint32_t p = 0; p < c->nports; p++)
		if (d->ports[p].txd != c->ports[p].tx_desc ||
		    d->ports[p].rxd != c->ports[p].rx_desc) {
			log_notice("port %s: the PMD set up %u RX and %u TX descriptors (rx-desc "
				   "%" PRId64 ", tx-desc %" PRId64 ")",
				   c->ports[p].name, d->ports[p].rxd, d->ports[p].txd,
				   c->ports[p].rx_desc, c->ports[p].tx_desc);
			adjusted = true;
		}
	tdpd_fit_limits(d, d->t);
	if (adjusted) {
		struct sched_diags dg;
		sched_diags_init(&dg, d->schedule_path);
		sched_fit(d->t, &d->fit, &dg);
		for (size_t i = 0; i < dg.n; i++)
			log_warn("%s:%u: %s", d->schedule_path, dg.v[i].line, dg.v[i].msg);
		sched_diags_free(&dg);
	}
	d->cap = capture_new(err, sizeof(err));
	if (!d->cap)
		log_warn("%s: tdpctl capture will not work", err);
	d->ctl.cap = d->cap;
	d->ctl.fit = &d->fit;
	d->ctl.conf = c;
	d->ctl.tm.e = d->e;
	d->ctl.tm.rx = d->rx;
	d->ctl.tm.nrx = d->nrx;
	d->ctl.tm.tb = d->tb;
	d->ctl.tm.answer = control_answer;
	d->ctl.tm.answer_ctx = &d->ctl;
	d->ctl.timebase_name = d->tb->ops->name;
	d->ctl.ports = d->pinfo;
	d->ctl.nports = c->nports;
	return 0;
}

static void tables_down(struct tdpd *d)
{
	d->ctl.cap = NULL;
	capture_free(d->cap);
	d->cap = NULL;
	/* what still waited for a neighbour: dropped, counted */
	for (uint32_t k = 0; k < RX_MAX_CORES; k++)
		if (d->hold[k].used)
			CTR_ADD(d->rx[k].st.drop[RXD_NO_NEIGH],
				rx_hold_expire(&d->hold[k], INT64_MAX));
	struct rte_mbuf *m;
	while (d->handoff && rte_ring_sc_dequeue(d->handoff, (void **)&m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(d->handoff);
	d->handoff = NULL;
	tables_free(&d->ctl.tm);
	/* its fib lives in the EAL's memory: freed before the EAL goes */
	router_free(d->rt);
	d->rt = NULL;
}

/* what kernel_up sets up for the netlink thread: the ports' addresses, and
 * the ring on which RX asks for next hops to resolve */
static void kernel_free(struct tdpd *d)
{
	for (uint32_t p = 0; p < CONF_MAX_PORTS; p++) {
		free(d->nladdr[p]);
		d->nladdr[p] = NULL;
	}
	for (uint32_t k = 0; k < d->nrx; k++)
		d->rx[k].resolve = NULL;
	rte_ring_free(d->resolve);
	d->resolve = NULL;
}

/* tdpd.conf's addresses on the ports' kernel interfaces, then the kernel's
 * routes and neighbours */
static int kernel_up(struct tdpd *d)
{
	struct conf *c = &d->conf;
	bool any = false;
	for (uint32_t p = 0; p < c->nports; p++) {
		struct hp_port *hp = &d->hp[p];
		if (!hp->ifindex)
			continue;
		any = true;
		for (size_t i = 0; i < c->ports[p].address.n; i++) {
			int fam;
			uint8_t a[16];
			unsigned len;
			if (route_parse_prefix(c->ports[p].address.v[i].val, &fam, a, &len) != 0)
				continue; /* refused at --check already */
			int rc = kif_addr_add(hp->ifindex, fam, a, len);
			if (rc < 0) {
				log_err("port %s: cannot put address %s on %s: %s",
					c->ports[p].name, c->ports[p].address.v[i].val, hp->ifname,
					strerror(-rc));
				return -1;
			}
		}
	}
	if (!c->kernel_routes || !any) {
		uint8_t la[256][17];
		size_t n = router_addresses(d->rt, la, NULL, 256);
		for (uint32_t p = 0; p < c->nports; p++)
			hp_set_local(&d->hp[p], (const uint8_t(*)[17])la, n < 256 ? n : 256);
		log_info("routes and neighbours: tdpd.conf's only (%s)",
			 any ? "kernel-routes no" : "no port has a kernel interface");
		return 0;
	}
	char err[256];
	d->resolve =
		rte_ring_create_elem("tdpd_resolve", sizeof(struct rx_resolve), RX_RESOLVE_RING,
				     SOCKET_ID_ANY, RING_F_SC_DEQ); /* every RX core asks */
	if (!d->resolve) {
		log_err("cannot create the resolve ring: %s", rte_strerror(rte_errno));
		return -1;
	}
	for (uint32_t k = 0; k < d->nrx; k++)
		d->rx[k].resolve = d->resolve;
	for (uint32_t p = 0; p < c->nports; p++) {
		const struct conf_port *cp = &c->ports[p];
		d->nladdr[p] = calloc(cp->address.n ? cp->address.n : 1, sizeof(*d->nladdr[p]));
		d->nlp[p] = (struct nl_port){
			.name = cp->name, .link = &d->link[p], .addr = d->nladdr[p]};
		for (size_t i = 0; d->nladdr[p] && i < cp->address.n; i++) {
			struct nl_addr *a = &d->nladdr[p][d->nlp[p].naddr];
			int fam;
			unsigned len;
			if (route_parse_prefix(cp->address.v[i].val, &fam, a->addr, &len) == 0) {
				a->family = (uint8_t)fam;
				a->len = (uint8_t)len;
				d->nlp[p].naddr++;
			}
		}
	}
	d->nl = nl_start(d->rx, d->nrx, d->rt, d->hp, d->nlp, c->nports, err, sizeof(err));
	if (!d->nl) {
		log_err("kernel routes: %s", err);
		kernel_free(d);
		return -1;
	}
	/* tdpd.conf's router is only copied from now on: its tables make room for
	 * the next one the kernel's changes need */
	router_drop_lookup(d->rt);
	struct nl_stats st;
	nl_stats(d->nl, &st);
	log_info("routes and neighbours: tdpd.conf's, then the kernel's: %" PRIu64
		 " routes, %" PRIu64 " neighbours, %" PRIu64 " addresses on the ports' interfaces",
		 st.routes, st.neighbours, st.addresses);
	d->ctl.nl = d->nl;
	return 0;
}

static void kernel_down(struct tdpd *d)
{
	d->ctl.nl = NULL;
	nl_stop(d->nl);
	d->nl = NULL;
	kernel_free(d);
}

static const struct step {
	const char *name;
	int (*up)(struct tdpd *d);
	void (*down)(struct tdpd *d);
} steps[] = {
	{"systemd notification", notify_up, notify_down},
	{"port locks", locks_up, locks_down},
	{"guard", guard_up, guard_down},
	{"control sockets", sockets_up, sockets_down},
	{"real-time set-up", rt_up, rt_down},
	{"host path", hostpath_up, hostpath_down},
	{"DPDK", startup_eal_up, startup_eal_down},
	{"packet pool", startup_pool_up, startup_pool_down},
	{"ports", startup_ports_up, startup_ports_down},
	{"time source", timebase_up, timebase_down},
	{"frame engine", engine_up, engine_down},
	{"tables", tables_up, tables_down},
	{"kernel routes", kernel_up, kernel_down},
};

/* Brings the steps up in order; on a failure the ones up are torn down. */
int tdpd_start_up(struct tdpd *d)
{
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (steps[i].up(d) != 0) {
			log_debug("start-up stopped at: %s", steps[i].name);
			return -1;
		}
		d->nup = i + 1;
	}
	return 0;
}

/* Tears down what is up, in exact reverse order, then the configuration. */
void tdpd_shut_down(struct tdpd *d)
{
	while (d->nup)
		steps[--d->nup].down(d);
	router_free(d->rt);
	sched_free(d->t);
	conf_free(&d->conf);
}

/* What the housekeeping thread watches to log: the sync state as the engine
 * sees it, and the engine's frame jumps. */
