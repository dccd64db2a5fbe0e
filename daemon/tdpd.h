/* SPDX-License-Identifier: BSD-3-Clause */
/* What main.c and startup.c share: the daemon's state and its start-up. */
#ifndef TDP_TDPD_H
#define TDP_TDPD_H

#include <limits.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>

#include "capture.h"
#include "coalesce.h"
#include "conf.h"
#include "control.h"
#include "engine.h"
#include "guard.h"
#include "hostpath.h"
#include "lockfile.h"
#include "launch.h"
#include "nl.h"
#include "portlink.h"
#include "notify.h"
#include "pmd.h"
#include "route.h"
#include "rt.h"
#include "rx.h"
#include "tdp_sched.h"
#include "timebase.h"
#include "tstate.h"

#define EXIT_CONFIG 2

struct tdpd {
	struct conf conf;
	char schedule_path[PATH_MAX];
	struct sched_table *t;	 /* the table at start; the engine's in force may differ */
	char origin[32];	 /* how t came into force (TS_VIA_*) */
	bool resumed;		 /* t is the table saved in force at the last stop */
	struct tstate_rec saved; /* the state directory's record at start, if any */
	struct tstate st;	 /* the state directory, locked while tdpd runs */
	struct lockfile plock[CONF_MAX_PORTS]; /* each port's lock (portlock.h) */
	struct hp_guard guard;		       /* acts on the ports if tdpd dies */
	struct router *rt;
	struct rte_mempool *mp;
	struct pmd_port ports[CONF_MAX_PORTS];
	struct pmd_port taps[CONF_MAX_PORTS]; /* exception interfaces (RXH_TAP) */
	struct coalesce_saved coal[CONF_MAX_PORTS];
	uint32_t nports_open;
	struct rx_port rxp[CONF_MAX_PORTS]; /* RX core 0's view of the ports */
	struct rx_port rxp_core[CONF_MAX_RX_CPUS][CONF_MAX_PORTS]; /* cores 1, 2, ...: copies of it */
	struct hp_port hp[CONF_MAX_PORTS];     /* each port's kernel interface */
	struct port_link link[CONF_MAX_PORTS]; /* each port's link: up, carrier, MTU */
	struct nl_port nlp[CONF_MAX_PORTS];    /* what the netlink thread knows of each port */
	struct nl_addr
		*nladdr[CONF_MAX_PORTS]; /* tdpd.conf's addresses, to put back after a link flap */
	uint32_t nhp;			 /* host paths prepared */
	struct nl *nl; /* routes and neighbours from the kernel; NULL: tdpd.conf's only */
	struct rte_ring *resolve; /* RX -> nl: next hops to resolve */
	struct rte_ring *be_q[CONF_MAX_PORTS];
	uint32_t table_to_port[SCHED_MAX_PORTS];
	struct control ctl;
	struct capture *cap; /* tdpctl capture's ring and writer */
	struct ctl_port_info pinfo[CONF_MAX_PORTS];
	/* launch-time ports: the device clock's map, sampled by housekeeping */
	struct launch_clock lc[CONF_MAX_PORTS];
	bool lc_on[CONF_MAX_PORTS], lc_ready_said[CONF_MAX_PORTS];
	int64_t next_launch_sample_ns;
	struct notify nt;
	bool reported;	   /* READY=1 sent */
	bool stall_logged; /* the watchdog is being withheld, and it was said */
	int64_t next_status_ns;
	struct timebase *tb;
	struct engine *e;
	struct rx rx[RX_MAX_CORES]; /* RX core 0 on the main lcore, the others on lcores 2, 3, ... */
	struct rx_hold hold[RX_MAX_CORES]; /* each RX core's packets waiting for ARP/ND */
	uint32_t nrx;
	int rx_cpu[CONF_MAX_RX_CPUS];
	struct rte_ring *handoff; /* cores > 0 -> core 0: packets to send at once */
	atomic_int rx_stop;
	struct sched_fit fit; /* what one frame may hold, for every table load */
	uint32_t fit_txd[SCHED_MAX_PORTS];
	uint32_t fit_mtu[SCHED_MAX_PORTS];
	struct rt_process rtp;
	size_t nup; /* start-up steps up */
	int eal_argc;
	char **eal_argv;
};

/* The configuration phase (tdpd --check stops after it); each returns the
 * errors it printed. */
void tdpd_resolve_schedule(struct tdpd *d);
/* RX cores the configuration asks for (1 + rx-cpus' count), their CPUs in
 * cpus (not NULL) */
uint32_t tdpd_rx_cores(const struct conf *c, int *cpus);
/* The table to start with: tdpd.conf's, or the one saved in force at the
 * last stop (start-table), in d->t, its origin said. */
int tdpd_load_table(struct tdpd *d);
/* What one frame may hold on this box, for table t (d->fit). */
void tdpd_fit_limits(struct tdpd *d, const struct sched_table *t);
int tdpd_build_routes(struct tdpd *d);
/* Brings the start-up steps up in order (notification, sockets, real-time
 * set-up, DPDK, pool, ports, time source, engine, tables); on a failure the
 * ones up are torn down. 0 or -1. */
int tdpd_start_up(struct tdpd *d);
/* Launch time (txlaunch.c): port p's engine settings (its map set up when
 * the port has launch time), every map's sample, and their release. */
void tdpd_launch_port(struct tdpd *d, uint32_t p, struct eng_port_cfg *epc);
void tdpd_launch_sample(struct tdpd *d, int64_t mono_now);
void tdpd_launch_down(struct tdpd *d);
/* Tears down what is up, in exact reverse order, then the configuration. */
void tdpd_shut_down(struct tdpd *d);

#endif
