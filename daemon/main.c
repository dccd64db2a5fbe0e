/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpd: forwards reserved flows at the frame boundaries of a reservation
 * table, best effort in the gaps. Initialises in dependency order
 * (configuration, table, routes, EAL, pool, ports, timebase, engine) and
 * tears down in reverse; the frame engine runs on its own lcore, RX and
 * housekeeping on the main one.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "coalesce.h"
#include "conf.h"
#include "control.h"
#include "engine.h"
#include "log.h"
#include "notify.h"
#include "pmd.h"
#include "route.h"
#include "rt.h"
#include "rx.h"
#include "summary.h"
#include "tdp_sched.h"
#include "timebase.h"

#define EXIT_CONFIG 2

static volatile sig_atomic_t got_signal, got_hup;

static void on_signal(int sig)
{
	got_signal = sig;
}

/* SIGHUP (a closed terminal, or a reload by habit) does not stop tdpd, nor
 * reload its table: a table changes at a frame every router agrees on, with
 * tdpctl schedule load --at. It is said in the log. */
static void on_hup(int sig)
{
	(void)sig;
	got_hup = 1;
}

struct tdpd {
	struct conf conf;
	char schedule_path[PATH_MAX];
	struct sched_table *t;    /* the table at start; the engine's in force may differ */
	struct router *rt;
	struct rte_mempool *mp;
	struct pmd_port ports[CONF_MAX_PORTS];
	struct coalesce_saved coal[CONF_MAX_PORTS];
	uint32_t nports_open;
	struct rx_port rxp[CONF_MAX_PORTS];
	struct rte_ring *be_q[CONF_MAX_PORTS];
	uint32_t table_to_port[SCHED_MAX_PORTS];
	struct control ctl;
	struct ctl_port_info pinfo[CONF_MAX_PORTS];
	struct notify nt;
	bool reported;            /* READY=1 sent */
	bool stall_logged;        /* the watchdog is being withheld, and it was said */
	int64_t next_status_ns;
	struct timebase *tb;
	struct engine *e;
	struct rx rx;
	struct sched_fit fit;     /* what one frame may hold, for every table load */
	uint32_t fit_txd[SCHED_MAX_PORTS];
	struct rt_process rtp;
	size_t nup;               /* start-up steps up */
	int eal_argc;
	char **eal_argv;
};

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- command line ------------------------------------------------------- */

/* Returns 0 to go on, 1 to exit 0 (help, version), -1 on an error (printed). */
static int parse_args(struct tdpd *d, int argc, char **argv, bool *check, bool *dump)
{
	const char *file = NULL;
	int end = argc;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			end = i;
			d->eal_argc = argc - i - 1;
			d->eal_argv = argv + i + 1;
			break;
		}
	/* first: help, version and the file, so the command line overrides it */
	for (int i = 1; i < end; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			conf_usage(stdout);
			return 1;
		}
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--version")) {
			printf("tdpd %s\n", TDP_VERSION);
			return 1;
		}
		if (!strcmp(argv[i], "--man-options") || !strcmp(argv[i], "--man-long-options")) {
			conf_man(stdout, argv[i][6] == 'l');
			return 1;
		}
		if (!strcmp(argv[i], "--list-options")) {
			conf_list_options(stdout);
			return 1;
		}
		if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--config")) {
			if (i + 1 >= end) {
				fprintf(stderr, "tdpd: %s needs a file\n", argv[i]);
				return -1;
			}
			file = argv[++i];
		} else if (!strncmp(argv[i], "--config=", 9)) {
			file = argv[i] + 9;
		}
	}
	if (file && conf_read_file(&d->conf, file, stderr) != 0)
		return -1;
	int errors = 0;
	for (int i = 1; i < end; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-f") || !strcmp(a, "--config")) {
			i++;
			continue;
		}
		if (!strncmp(a, "--config=", 9))
			continue;
		if (!strcmp(a, "--check")) {
			*check = true;
			continue;
		}
		if (!strcmp(a, "--dump-config")) {
			*dump = true;
			continue;
		}
		if (strncmp(a, "--", 2) != 0) {
			fprintf(stderr, "tdpd: unexpected argument '%s' (see tdpd --help)\n", a);
			errors++;
			continue;
		}
		char name[64];
		const char *val = NULL;
		const char *eq = strchr(a + 2, '=');
		size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		if (nl >= sizeof(name)) {
			fprintf(stderr, "tdpd: unknown option '%s'\n", a);
			errors++;
			continue;
		}
		memcpy(name, a + 2, nl);
		name[nl] = 0;
		if (eq)
			val = eq + 1;
		else if (i + 1 < end)
			val = argv[++i];
		if (!val) {
			fprintf(stderr, "tdpd: %s needs a value\n", a);
			errors++;
			continue;
		}
		if (!strcmp(name, "port")) {
			/* NAME:OPTION=VALUE */
			char buf[512];
			snprintf(buf, sizeof(buf), "%s", val);
			char *colon = strchr(buf, ':');
			char *veq = colon ? strchr(colon, '=') : NULL;
			if (!colon || !veq) {
				fprintf(stderr, "tdpd: --port takes NAME:OPTION=VALUE, not '%s'\n", val);
				errors++;
				continue;
			}
			*colon = 0;
			*veq = 0;
			if (conf_set(&d->conf, buf, colon + 1, veq + 1, "command line", 0, stderr) != 0)
				errors++;
			continue;
		}
		if (conf_set(&d->conf, NULL, name, val, "command line", 0, stderr) != 0)
			errors++;
	}
	if (!file && !errors && !*dump) {
		fprintf(stderr, "tdpd: no configuration file (-f FILE); see tdpd --help\n");
		return -1;
	}
	return errors ? -1 : 0;
}

/* A relative table path in a file is relative to that file. */
static void resolve_schedule(struct tdpd *d)
{
	const struct conf_opt *o = conf_find("schedule", CS_GLOBAL);
	const char *from = d->conf.set_file[o - conf_opts];
	const char *p = d->conf.schedule;
	if (p[0] == '/' || !from || !strcmp(from, "command line")) {
		snprintf(d->schedule_path, sizeof(d->schedule_path), "%s", p);
		return;
	}
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", from);
	snprintf(d->schedule_path, sizeof(d->schedule_path), "%s/%s", dirname(dir), p);
}

/* ---- routes ------------------------------------------------------------- */

static int build_routes(struct tdpd *d)
{
	char err[256];
	int errors = 0;
	d->rt = router_create(d->conf.nports, err, sizeof(err));
	if (!d->rt)
		return 1;
	/* addresses and neighbours first: routes refer to neighbours */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t p = 0; p < d->conf.nports; p++) {
			struct conf_port *cp = &d->conf.ports[p];
			if (pass == 0) {
				for (size_t i = 0; i < cp->address.n; i++) {
					struct conf_item *it = &cp->address.v[i];
					int fam;
					uint8_t a[16];
					unsigned len;
					if (route_parse_prefix(it->val, &fam, a, &len) != 0) {
						fprintf(stderr, "%s:%u: error: address '%s': expected ADDR/LEN, e.g. 10.0.2.1/24\n",
							it->file, it->line, it->val);
						errors++;
					} else if (router_add_address(d->rt, p, fam, a, len, err, sizeof(err)) != 0) {
						fprintf(stderr, "%s:%u: error: address %s: %s\n", it->file, it->line, it->val, err);
						errors++;
					}
				}
				for (size_t i = 0; i < cp->neighbour.n; i++) {
					struct conf_item *it = &cp->neighbour.v[i];
					char ip[128], mac[64], extra[8];
					int fam;
					uint8_t a[16], m[6];
					if (sscanf(it->val, "%127s %63s %7s", ip, mac, extra) != 2 ||
					    route_parse_addr(ip, &fam, a) != 0 || route_parse_mac(mac, m) != 0) {
						fprintf(stderr, "%s:%u: error: neighbour '%s': expected ADDR MAC, e.g. 10.0.2.2 02:00:00:00:02:02\n",
							it->file, it->line, it->val);
						errors++;
					} else if (router_add_neighbour(d->rt, p, fam, a, m, err, sizeof(err)) != 0) {
						fprintf(stderr, "%s:%u: error: neighbour %s: %s\n", it->file, it->line, ip, err);
						errors++;
					}
				}
			} else {
				for (size_t i = 0; i < cp->route.n; i++) {
					struct conf_item *it = &cp->route.v[i];
					char pfx[128], via[8], gw[128], extra[8];
					int fam, gfam;
					uint8_t a[16], g[16];
					unsigned len;
					if (sscanf(it->val, "%127s %7s %127s %7s", pfx, via, gw, extra) != 3 || strcmp(via, "via") ||
					    route_parse_prefix(pfx, &fam, a, &len) != 0 || route_parse_addr(gw, &gfam, g) != 0 ||
					    fam != gfam) {
						fprintf(stderr, "%s:%u: error: route '%s': expected PREFIX via ADDR of one family, e.g. 10.9.0.0/16 via 10.0.2.9\n",
							it->file, it->line, it->val);
						errors++;
					} else if (router_add_route(d->rt, p, fam, a, len, g, err, sizeof(err)) != 0) {
						fprintf(stderr, "%s:%u: error: route %s: %s\n", it->file, it->line, pfx, err);
						errors++;
					}
				}
			}
		}
	for (uint32_t p = 0; p < d->conf.nports; p++) {
		struct conf_port *cp = &d->conf.ports[p];
		if (cp->peer_mac[0] && route_parse_mac(cp->peer_mac, d->rxp[p].peer_mac) != 0) {
			fprintf(stderr, "%s:%u: error: [port %s] peer-mac '%s' is not a MAC address\n", cp->file,
				cp->line, cp->name, cp->peer_mac);
			errors++;
		}
		d->rxp[p].has_peer = cp->peer_mac[0] != 0;
	}
	return errors;
}

/* ---- the table against the configuration --------------------------------- */

/*
 * What one frame may hold on this box (sched_fit): the pool, less what the
 * ports' RX and TX rings hold when full and what the two lcores' mempool
 * caches may keep (1.5 x their size, DPDK's flush threshold); a flow's queue;
 * each table port's TX ring. Before the ports are open the configured
 * descriptor counts, after it the ones the PMD set up.
 */
static void fit_limits(struct tdpd *d, const struct sched_table *t)
{
	uint64_t held = 2 * (PMD_POOL_CACHE + PMD_POOL_CACHE / 2);
	for (uint32_t p = 0; p < d->conf.nports; p++) {
		bool open = p < d->nports_open;
		held += open ? d->ports[p].rxd : (uint64_t)d->conf.ports[p].rx_desc;
		held += open ? d->ports[p].txd : (uint64_t)d->conf.ports[p].tx_desc;
	}
	for (uint32_t tp = 0; tp < t->nports; tp++) {
		uint32_t p = d->table_to_port[tp];
		d->fit_txd[tp] = p < d->nports_open ? d->ports[p].txd : (uint32_t)d->conf.ports[p].tx_desc;
	}
	d->fit = (struct sched_fit){.mbufs = (uint64_t)d->conf.mbufs, .mbufs_held = held,
				    .flow_depth = (uint32_t)d->conf.flow_queue_depth, .tx_desc = d->fit_txd};
}

static int load_table(struct tdpd *d)
{
	struct sched_diags dg;
	sched_diags_init(&dg, d->schedule_path);
	d->t = sched_load(d->schedule_path, &dg);
	if (d->t)
		sched_admit(d->t, &dg);
	sched_diags_print(&dg, stderr);
	int errors = (int)dg.nerr;
	sched_diags_free(&dg);
	if (!d->t || errors)
		return errors ? errors : 1;
	for (uint32_t tp = 0; tp < d->t->nports; tp++) {
		struct conf_port *cp = conf_port_find(&d->conf, d->t->ports[tp].name);
		if (!cp) {
			fprintf(stderr, "%s:%u: error: the table's port %s has no [port %s] section in %s\n",
				d->schedule_path, d->t->ports[tp].line, d->t->ports[tp].name, d->t->ports[tp].name,
				d->conf.nfiles ? d->conf.files[0] : "the configuration");
			errors++;
			continue;
		}
		d->table_to_port[tp] = (uint32_t)(cp - d->conf.ports);
	}
	for (uint32_t p = 0; p < d->conf.nports; p++) {
		d->rxp[p].table_port = sched_port_find(d->t, d->conf.ports[p].name);
	}
	if (!errors) {
		fit_limits(d, d->t);
		sched_diags_init(&dg, d->schedule_path);
		errors += (int)sched_fit(d->t, &d->fit, &dg);
		sched_diags_print(&dg, stderr);
		sched_diags_free(&dg);
	}
	return errors;
}

/* ---- run ---------------------------------------------------------------- */

static int engine_lcore(void *arg)
{
	struct tdpd *d = arg;
	/* warnings are logged where they happen; nothing is shared with main here */
	rt_thread_setup("frame engine", -1, (int)d->conf.engine_priority);
	engine_run(d->e);
	return 0;
}

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
static int eal_up(struct tdpd *d)
{
	char err[256];
	struct conf *c = &d->conf;
	const char *devs[CONF_MAX_PORTS];
	for (uint32_t p = 0; p < c->nports; p++)
		devs[p] = c->ports[p].device;
	int engine_cpu = (int)c->engine_cpu;
	if (engine_cpu < 0)
		engine_cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (engine_cpu == c->housekeeping_cpu)
		log_warn("the frame engine shares CPU %d with RX and housekeeping; give it a CPU of its own "
			 "(engine-cpu) for precise frame starts", engine_cpu);
	struct pmd_eal pe = {.main_cpu = (int)c->housekeeping_cpu, .engine_cpu = engine_cpu,
			     .huge = (int)c->huge_pages, .mbufs = (uint32_t)c->mbufs, .devices = devs,
			     .ndevices = c->nports, .log_level = tdp_log_level, .argc = d->eal_argc,
			     .argv = d->eal_argv};
	char hmsg[400];
	if (pmd_huge_decide(pe.huge, pe.mbufs, &pe.no_huge, hmsg, sizeof(hmsg)) != 0) {
		log_err("%s", hmsg);
		return -1;
	}
	bool no_huge;
	if (pmd_eal_init(&pe, &no_huge, err, sizeof(err)) != 0) {
		log_err("%s", err);
		return -1;
	}
	if (hmsg[0])
		log_notice("%s", hmsg);
	return 0;
}

static void eal_down(struct tdpd *d)
{
	pmd_eal_cleanup();
}

static int pool_up(struct tdpd *d)
{
	char err[256];
	d->mp = pmd_pool((uint32_t)d->conf.mbufs, err, sizeof(err));
	if (!d->mp) {
		log_err("%s", err);
		return -1;
	}
	return 0;
}

static void pool_down(struct tdpd *d)
{
	/* rte_eal_cleanup frees the pool's memory with the rest of the EAL's */
	d->mp = NULL;
}

/* the ports, their kernel netdevs' interrupt coalescing turned off */
static int ports_up(struct tdpd *d)
{
	char err[256];
	struct conf *c = &d->conf;
	for (uint32_t p = 0; p < c->nports; p++) {
		struct conf_port *cp = &c->ports[p];
		if (pmd_port_open(&d->ports[p], cp->device, (uint16_t)cp->rx_desc, (uint16_t)cp->tx_desc, d->mp, err,
				  sizeof(err)) != 0) {
			log_err("[port %s] %s", cp->name, err);
			return -1;
		}
		d->nports_open = p + 1;
		d->rxp[p].dpdk_port = d->ports[p].id;
		memcpy(d->rxp[p].mac, d->ports[p].mac, 6);
		const uint8_t *m = d->ports[p].mac;
		log_info("port %s: %s, DPDK port %u, MAC %02x:%02x:%02x:%02x:%02x:%02x, link %s%u Mbit/s", cp->name,
			 cp->device, d->ports[p].id, m[0], m[1], m[2], m[3], m[4], m[5],
			 d->ports[p].link_mbps ? "" : "unknown ", d->ports[p].link_mbps);
		struct ctl_port_info *pi = &d->pinfo[p];
		pi->name = cp->name;
		pi->table_port = d->rxp[p].table_port;
		pi->device = cp->device;
		pi->dpdk_port = d->ports[p].id;
		memcpy(pi->mac, m, 6);
		pi->link_mbps = d->ports[p].link_mbps;
		size_t il = strnlen(d->ports[p].ifname, sizeof(pi->ifname) - 1);
		memcpy(pi->ifname, d->ports[p].ifname, il);
		pi->ifname[il] = 0;
		if (d->ports[p].ifname[0]) {
			int rc = coalesce_off(d->ports[p].ifname, &d->coal[p]);
			coalesce_describe(&d->coal[p], rc, pi->coalesce, sizeof(pi->coalesce));
			if (rc == 0 || rc == -EOPNOTSUPP)
				log_info("port %s: interrupt coalescing %s", cp->name, pi->coalesce);
			else
				log_warn("port %s: %s", cp->name, pi->coalesce);
		} else {
			/* a PCI device bound to a DPDK driver: no netdev, no interrupts */
			snprintf(pi->coalesce, sizeof(pi->coalesce),
				 "not applicable: the PMD polls the device, its RX/TX interrupts are not used");
			log_info("port %s: DPDK-owned, %s", cp->name, pi->coalesce);
		}
	}
	return 0;
}

static void ports_down(struct tdpd *d)
{
	while (d->nports_open) {
		uint32_t p = --d->nports_open;
		pmd_port_close(&d->ports[p]);
		coalesce_restore(&d->coal[p]);
	}
}

static int timebase_up(struct tdpd *d)
{
	struct conf *c = &d->conf;
	char tberr[256];
	const struct timebase_ops *tbo = timebase_table[c->timebase];
	/* the sources read their own settings; the frame geometry is the table's */
	struct tb_params tp = c->tb;
	tp.tf_ns = (int64_t)d->t->tf_ns;
	tp.epoch_ns = (int64_t)d->t->epoch_ns;
	if (tbo->create(&d->tb, &tp, tberr, sizeof(tberr)) != 0) {
		log_err("timebase %s: %s", tbo->name, tberr);
		return -1;
	}
	char desc[256];
	d->tb->ops->describe(d->tb, desc, sizeof(desc));
	log_info("timebase %s: %s", tbo->name, desc);
	struct tb_sync sy;
	tb_sync(d->tb, &sy);
	log_notice("sync: %s (%s); in holdover the engine will %s, unlocked it will %s", tb_state_name(sy.state),
		   sy.reason, conf_action_names[c->sync_holdover_action], conf_action_names[c->sync_unlocked_action]);

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
			log_warn("port %s: paced at %" PRIu64 " bit/s (%s), below the table's %" PRIu64
				 " bit/s: admission control assumed more than the link gives", c->ports[p].name, rate,
				 from, table_rate);
		log_info("port %s: engine paces best effort at %" PRIu64 " bit/s (%s)", c->ports[p].name, rate, from);
		d->pinfo[p].rate_bps = rate;
		d->pinfo[p].rate_from = from;
		epc[tp_] = (struct eng_port_cfg){.dpdk_port = d->ports[p].id, .txq = 0, .rate_bps = rate,
						 .overhead = d->t->ports[tp_].overhead};
	}
	struct eng_config ec = {
		.t = d->t, .tb = d->tb, .late = c->late_policy ? LATE_CARRY : LATE_DROP, .node_id = (uint16_t)c->node_id,
		.flow_depth = (uint32_t)c->flow_queue_depth, .be_depth = (uint32_t)c->be_queue_depth,
		.be_poll_ns = c->be_poll_ns, .ports = epc,
		.holdover_action = (enum sync_action)c->sync_holdover_action,
		.unlocked_action = (enum sync_action)c->sync_unlocked_action,
		.pw = {.spin_below_ns = c->spin_below_ns, .min_sleep_ns = c->min_sleep_ns,
		       .margin_ns = c->wake_margin_ns, .window = (uint32_t)c->oversleep_window,
		       .decay_pct = (uint32_t)c->oversleep_decay, .book_init_ns = 200, .max_lead_ns = c->max_lead_ns},
	};
	d->e = engine_create(&ec, err, sizeof(err));
	if (!d->e) {
		log_err("frame engine: %s", err);
		return -1;
	}
	return 0;
}

static void engine_down(struct tdpd *d)
{
	engine_destroy(d->e);
	d->e = NULL;
}

/* routes, the table in force for RX and control, what a frame may hold */
static int tables_up(struct tdpd *d)
{
	char err[256];
	struct conf *c = &d->conf;
	if (router_build(d->rt, err, sizeof(err)) != 0) {
		log_err("routes: %s", err);
		return -1;
	}
	d->ctl.cur = dtable_new(engine_table_current(d->e), d->schedule_path);
	if (!d->ctl.cur) {
		log_err("out of memory");
		return -1;
	}
	for (uint32_t p = 0; p < c->nports; p++)
		d->be_q[p] = d->rxp[p].table_port >= 0 ? engine_be_ring(d->e, (uint32_t)d->rxp[p].table_port) : NULL;
	d->rx = (struct rx){.ports = d->rxp, .nports = c->nports, .rt = d->rt, .tab = &d->ctl.cur->rxt,
			    .be_q = d->be_q, .table_to_port = d->table_to_port, .clock = rx_clock, .clock_arg = d->tb,
			    .g = *engine_geom(d->e)};
	/* table loads are checked against the rings the PMDs set up */
	bool adjusted = false;
	for (uint32_t p = 0; p < c->nports; p++)
		if (d->ports[p].txd != c->ports[p].tx_desc || d->ports[p].rxd != c->ports[p].rx_desc) {
			log_notice("port %s: the PMD set up %u RX and %u TX descriptors (rx-desc %" PRId64 ", tx-desc %"
				   PRId64 ")", c->ports[p].name, d->ports[p].rxd, d->ports[p].txd, c->ports[p].rx_desc,
				   c->ports[p].tx_desc);
			adjusted = true;
		}
	fit_limits(d, d->t);
	if (adjusted) {
		struct sched_diags dg;
		sched_diags_init(&dg, d->schedule_path);
		sched_fit(d->t, &d->fit, &dg);
		for (size_t i = 0; i < dg.n; i++)
			log_warn("%s:%u: %s", d->schedule_path, dg.v[i].line, dg.v[i].msg);
		sched_diags_free(&dg);
	}
	d->ctl.fit = &d->fit;
	d->ctl.conf = c;
	d->ctl.e = d->e;
	d->ctl.rx = &d->rx;
	d->ctl.tb = d->tb;
	d->ctl.timebase_name = d->tb->ops->name;
	d->ctl.ports = d->pinfo;
	d->ctl.nports = c->nports;
	return 0;
}

static void tables_down(struct tdpd *d)
{
	control_free_tables(&d->ctl);
	/* its LPM tables live in the EAL's memory: freed before the EAL goes */
	router_free(d->rt);
	d->rt = NULL;
}

static const struct step {
	const char *name;
	int (*up)(struct tdpd *d);
	void (*down)(struct tdpd *d);
} steps[] = {
	{"systemd notification", notify_up, notify_down},
	{"control sockets", sockets_up, sockets_down},
	{"real-time set-up", rt_up, rt_down},
	{"DPDK", eal_up, eal_down},
	{"packet pool", pool_up, pool_down},
	{"ports", ports_up, ports_down},
	{"time source", timebase_up, timebase_down},
	{"frame engine", engine_up, engine_down},
	{"tables", tables_up, tables_down},
};

/* Brings the steps up in order; on a failure the ones up are torn down. */
static int start_up(struct tdpd *d)
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
static void shut_down(struct tdpd *d)
{
	while (d->nup)
		steps[--d->nup].down(d);
	router_free(d->rt);
	sched_free(d->t);
	conf_free(&d->conf);
}

/* What the housekeeping thread watches to log: the sync state as the engine
 * sees it, and the engine's frame jumps. */
struct watch {
	enum tb_state state;
	uint64_t skip_events, back_steps, repeated;
	uint64_t skipped;
	int64_t next_jump_log;    /* monotonic ns: skips and steps are logged at most once a second */
};

static void watch(struct tdpd *d, struct watch *w)
{
	const struct conf *c = &d->conf;
	enum tb_state st = tb_state(d->tb);
	if (st != w->state) {
		struct tb_sync sy;
		tb_sync(d->tb, &sy);
		int64_t act = st == TB_HOLDOVER ? c->sync_holdover_action
			      : st == TB_UNLOCKED ? c->sync_unlocked_action : 0;
		const char *what = st == TB_LOCKED ? "serving reserved flows"
				   : act == SA_DEMOTE ? "ALARM: reserved flows demoted to best effort"
				   : act == SA_ALARM ? "ALARM: still serving reserved flows on an unsynchronised clock"
						     : "still serving reserved flows";
		tdp_log(st == TB_LOCKED ? LOG_NOTICE : act == SA_SERVE ? LOG_WARNING : LOG_ERR,
			"sync: %s -> %s (%s), offset %" PRId64 " ns, uncertainty %" PRId64 " ns: %s",
			tb_state_name(w->state), tb_state_name(st), sy.reason, sy.offset_ns, sy.uncertainty_ns, what);
		w->state = st;
	}
	int64_t now = mono_ns();
	if (now < w->next_jump_log)
		return;
	struct eng_stats es;
	engine_stats(d->e, &es);
	if (es.skip_events != w->skip_events || es.back_steps != w->back_steps)
		w->next_jump_log = now + TDP_NS_PER_S;
	if (es.skip_events != w->skip_events) {
		log_warn("frames: %" PRIu64 " frame%s skipped since the last report (latest jump %" PRId64
			 " frames): a late wake-up or the reference stepped forward",
			 es.skipped_frames - w->skipped, es.skipped_frames - w->skipped == 1 ? "" : "s",
			 es.last_jump_frames);
		w->skip_events = es.skip_events;
		w->skipped = es.skipped_frames;
	}
	if (es.back_steps != w->back_steps) {
		log_warn("frames: the reference stepped back; %" PRIu64 " frame start%s came round again and their rows "
			 "were not sent twice (latest step %" PRId64 " frames)",
			 es.repeated_frames - w->repeated, es.repeated_frames - w->repeated == 1 ? "" : "s",
			 es.last_jump_frames);
		w->back_steps = es.back_steps;
		w->repeated = es.repeated_frames;
	}
}

/* On the housekeeping (RX) thread, which never waits for a client: READY=1
 * once the time source has reported, STATUS= every few seconds, the watchdog
 * while the engine's frames advance. (Fed from the control thread, a client
 * that holds it, up to the 5 s a table may take to arrive, got a healthy
 * daemon killed by a WatchdogSec of 5 s.) */
static void housekeeping_tick(struct tdpd *d)
{
	struct eng_stats es;
	engine_stats(d->e, &es);
	int64_t now = mono_ns();
	struct tb_sync sy;
	if (!d->reported) {
		tb_sync(d->tb, &sy);
		if (sy.samples + sy.faults + sy.transitions == 0 || es.frames == 0)
			return;
		d->reported = true;
		char msg[640];
		snprintf(msg, sizeof(msg), "READY=1\nSTATUS=forwarding; sync %s (%s)", tb_state_name(sy.state), sy.reason);
		notify_send(&d->nt, msg);
		log_info("ready: ports up, the frame engine running, sync %s", tb_state_name(sy.state));
		d->next_status_ns = now + 5 * TDP_NS_PER_S;
	}
	int w = notify_watchdog(&d->nt, now, es.frames);
	if (w < 0 && !d->stall_logged) {
		log_err("the frame engine has not advanced since the last watchdog feed (frame %" PRIu64
			"): the watchdog is no longer fed", es.frames);
		d->stall_logged = true;
	} else if (w > 0 && d->stall_logged) {
		log_notice("the frame engine advances again: the watchdog is fed");
		d->stall_logged = false;
	}
	if (now >= d->next_status_ns && d->nt.fd >= 0) {
		tb_sync(d->tb, &sy);
		char msg[640];
		snprintf(msg, sizeof(msg), "STATUS=sync %s; frames %" PRIu64 ", late %" PRIu64 ", skipped %" PRIu64
			 "; table %s", tb_state_name(sy.state), es.frames, es.late_frames, es.skipped_frames,
			 d->ctl.cur ? d->ctl.cur->name : "?");
		notify_send(&d->nt, msg);
		d->next_status_ns = now + 5 * TDP_NS_PER_S;
	}
}

static void run(struct tdpd *d)
{
	struct conf *c = &d->conf;
	struct summary_src ss = {.e = d->e, .rx = &d->rx, .timebase = d->tb->ops->name, .tb = d->tb};
	struct watch w = {.state = tb_state(d->tb)};
	rt_thread_setup("rx", -1, (int)c->rx_priority);
	int64_t t0 = mono_ns();
	int64_t next_stats = c->stats_interval_ns ? t0 + c->stats_interval_ns : INT64_MAX;
	int64_t next_refresh = c->clock_refresh_ns ? t0 + c->clock_refresh_ns : INT64_MAX;
	int64_t deadline = c->duration_ns ? t0 + c->duration_ns : INT64_MAX;
	if (rte_eal_remote_launch(engine_lcore, d, 1) != 0) {
		log_err("cannot start the frame engine on its lcore");
		return;
	}
	d->ctl.started_mono_ns = t0;
	char err[256];
	if (control_start(&d->ctl, err, sizeof(err)) != 0)
		log_err("%s: running without control sockets", err);
	log_notice("forwarding: %u flows on %u ports, TF %" PRIu64 " ns, k %u, late policy %s", d->t->nflows,
		   d->t->nports, d->t->tf_ns, d->t->k, conf_late_names[c->late_policy]);
	unsigned idle = 0, tick = 0;
	while (!got_signal) {
		if (got_hup) {
			got_hup = 0;
			log_notice("SIGHUP: ignored; tdpd goes on (a table changes with tdpctl schedule load --at, at a "
				   "frame every router agrees on)");
		}
		uint32_t n = rx_poll(&d->rx);
		if (n)
			idle = 0;
		else if (c->rx_idle_sleep_ns > 0 && ++idle >= 64) {
			struct timespec ts = {0, c->rx_idle_sleep_ns};
			nanosleep(&ts, NULL);
		}
		if ((++tick & 255) == 0) {
			int64_t now = mono_ns();
			if (now >= next_stats) {
				char line[512];
				ss.elapsed_s = (double)(now - t0) / 1e9;
				summary_line(&ss, line, sizeof(line));
				log_info("%s", line);
				next_stats = now + c->stats_interval_ns;
			}
			/* the time source's periodic work (re-anchoring, device reads,
			 * syscalls) runs here, never on the engine's thread */
			if (now >= next_refresh || tb_refresh_asked(d->tb)) {
				tb_refresh(d->tb);
				next_refresh = c->clock_refresh_ns ? now + c->clock_refresh_ns : INT64_MAX;
			}
			watch(d, &w);
			housekeeping_tick(d);
			if (now >= deadline)
				break;
		}
	}
	if (got_signal)
		log_notice("%s: stopping", strsignal(got_signal));
	notify_send(&d->nt, "STOPPING=1");
	control_stop(&d->ctl);
	engine_stop(d->e);
	rte_eal_mp_wait_lcore();
	ss.elapsed_s = (double)(mono_ns() - t0) / 1e9;
	summary_text(&ss, stdout);
	fflush(stdout);
	if (c->summary_json[0]) {
		char tmp[PATH_MAX];
		snprintf(tmp, sizeof(tmp), "%s.tmp", c->summary_json);
		FILE *f = fopen(tmp, "w");
		if (f) {
			summary_json(&ss, f);
			if (fclose(f) == 0 && rename(tmp, c->summary_json) == 0)
				log_info("counters written to %s", c->summary_json);
			else
				log_warn("summary-json %s: %s", c->summary_json, strerror(errno));
		} else {
			log_warn("summary-json %s: %s", c->summary_json, strerror(errno));
		}
	}
}

int main(int argc, char **argv)
{
	static struct tdpd d;
	bool check = false, dump = false;
	conf_init(&d.conf);
	d.ctl.lfd[0] = d.ctl.lfd[1] = d.ctl.waiter = -1;
	d.nt.fd = -1;
	tdp_log_init();
	int rc = parse_args(&d, argc, argv, &check, &dump);
	if (rc != 0) {
		conf_free(&d.conf);
		return rc > 0 ? 0 : EXIT_CONFIG;
	}
	if (dump) {
		conf_dump(&d.conf, stdout);
		conf_free(&d.conf);
		return 0;
	}
	tdp_log_level = tdp_log_parse(conf_level_names[d.conf.log_level]);
	int errors = conf_check(&d.conf, stderr);
	/* CPUs this box has: an out-of-range CPU is a configuration error, not a DPDK one */
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	static const char *const cpu_opts[] = {"engine-cpu", "housekeeping-cpu"};
	int64_t cpus[] = {d.conf.engine_cpu, d.conf.housekeeping_cpu};
	for (int i = 0; i < 2; i++) {
		size_t oi = (size_t)(conf_find(cpu_opts[i], CS_GLOBAL) - conf_opts);
		if (cpus[i] >= ncpu) {
			fprintf(stderr, "%s:%u: error: %s %lld: this machine has CPUs 0..%ld online\n",
				d.conf.set_file[oi] ? d.conf.set_file[oi] : "command line", d.conf.set_line[oi],
				cpu_opts[i], (long long)cpus[i], ncpu - 1);
			errors++;
		}
	}
	if (!errors) {
		resolve_schedule(&d);
		errors += load_table(&d);
	}
	if (!errors)
		errors += build_routes(&d);
	if (errors) {
		fprintf(stderr, "tdpd: %d error%s; nothing started\n", errors, errors == 1 ? "" : "s");
		shut_down(&d);
		return EXIT_CONFIG;
	}
	if (check) {
		printf("tdpd: configuration and table are valid: %u ports, %u flows, TF %" PRIu64 " ns, k %u\n",
		       d.conf.nports, d.t->nflows, d.t->tf_ns, d.t->k);
		shut_down(&d);
		return 0;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	if (start_up(&d) != 0) {
		shut_down(&d);
		return 1;
	}
	run(&d);
	shut_down(&d);
	log_notice("stopped");
	return 0;
}
