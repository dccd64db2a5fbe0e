/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpd: forwards reserved flows at the frame boundaries of a reservation
 * table, best effort in the gaps. The command line, the run loop (RX, the
 * time source's refresh, the watchdog, summaries) and signals; start-up and
 * tear-down are startup.c's. The frame engine runs on its own lcore, RX and
 * housekeeping on the main one, RX cores beyond the first (rx-cpus) on lcores
 * 2, 3, ...
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
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
#include "tdp_time.h"
#include "tdpd.h"
#include "timebase.h"
#include "watch.h"

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

/* ---- command line ------------------------------------------------------- */

/* Returns 0 to go on, 1 to exit 0 (help, version), -1 on an error (printed). */
/* The options that answer and stop (help, version, the option lists): 1
 * when one of them is argv[i] (it has answered), else 0. */
static int answer_only(const char *a)
{
	if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
		conf_usage(stdout);
		return 1;
	}
	if (!strcmp(a, "-v") || !strcmp(a, "--version")) {
		printf("tdpd %s\n", TDP_VERSION);
		return 1;
	}
	if (!strcmp(a, "--man-options") || !strcmp(a, "--man-long-options")) {
		conf_man(stdout, a[6] == 'l');
		return 1;
	}
	if (!strcmp(a, "--list-options")) {
		conf_list_options(stdout);
		return 1;
	}
	return 0;
}

/* --port NAME:OPTION=VALUE: 0, or -1 (said) */
static int port_arg(struct tdpd *d, const char *val)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", val);
	char *colon = strchr(buf, ':');
	char *veq = colon ? strchr(colon, '=') : NULL;
	if (!colon || !veq) {
		fprintf(stderr, "tdpd: --port takes NAME:OPTION=VALUE, not '%s'\n", val);
		return -1;
	}
	*colon = 0;
	*veq = 0;
	return conf_set(&d->conf, buf, colon + 1, veq + 1, "command line", 0, stderr) ? -1 : 0;
}

/* --NAME VALUE or --NAME=VALUE at argv[*i] (which it moves past the value):
 * 0, or -1 (said) */
static int option_arg(struct tdpd *d, char **argv, int *i, int end)
{
	const char *a = argv[*i];
	if (strncmp(a, "--", 2) != 0) {
		fprintf(stderr, "tdpd: unexpected argument '%s' (see tdpd --help)\n", a);
		return -1;
	}
	char name[64];
	const char *val = NULL;
	const char *eq = strchr(a + 2, '=');
	size_t nl = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
	if (nl >= sizeof(name)) {
		fprintf(stderr, "tdpd: unknown option '%s'\n", a);
		return -1;
	}
	memcpy(name, a + 2, nl);
	name[nl] = 0;
	if (eq)
		val = eq + 1;
	else if (*i + 1 < end)
		val = argv[++*i];
	if (!val) {
		fprintf(stderr, "tdpd: %s needs a value\n", a);
		return -1;
	}
	if (!strcmp(name, "port"))
		return port_arg(d, val);
	return conf_set(&d->conf, NULL, name, val, "command line", 0, stderr) ? -1 : 0;
}

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
		if (answer_only(argv[i]))
			return 1;
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
		if (!strcmp(a, "-f") || !strcmp(a, "--config"))
			i++;
		else if (!strcmp(a, "--check"))
			*check = true;
		else if (!strcmp(a, "--dump-config"))
			*dump = true;
		else if (strncmp(a, "--config=", 9) && option_arg(d, argv, &i, end))
			errors++;
	}
	if (!file && !errors && !*dump) {
		fprintf(stderr, "tdpd: no configuration file (-f FILE); see tdpd --help\n");
		return -1;
	}
	return errors ? -1 : 0;
}

/* ---- run ---------------------------------------------------------------- */

/* the TAP PMD signals a readable exception interface with a real-time
 * signal to the process (F_SETSIG); its handler must not run on the engine's
 * lcore, nor on the RX cores beside the main one */
static void block_rt_signals(void)
{
	sigset_t rt;
	sigemptyset(&rt);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sigaddset(&rt, s);
	pthread_sigmask(SIG_BLOCK, &rt, NULL);
}

static int engine_lcore(void *arg)
{
	struct tdpd *d = arg;
	block_rt_signals();
	/* warnings are logged where they happen; nothing is shared with main here */
	rt_thread_setup("frame engine", -1, (int)d->conf.engine_priority);
	engine_run(d->e);
	return 0;
}

/* Polls with the main loop's idle back-off: rx-idle-sleep after 64 empty
 * polls in a row. */
static uint32_t rx_poll_idle(struct rx *rx, const struct conf *c, unsigned *idle)
{
	uint32_t n = rx_poll(rx);
	if (n)
		*idle = 0;
	else if (c->rx_idle_sleep_ns > 0 && ++*idle >= 64) {
		struct timespec ts = {0, c->rx_idle_sleep_ns};
		nanosleep(&ts, NULL);
	}
	return n;
}

/* An RX core beyond the first, on lcore core + 1. */
struct rx_worker {
	struct tdpd *d;
	uint32_t core;
};

static int rx_lcore(void *arg)
{
	const struct rx_worker *w = arg;
	struct tdpd *d = w->d;
	block_rt_signals();
	char name[16];
	snprintf(name, sizeof(name), "rx %u", w->core);
	rt_thread_setup(name, -1, (int)d->conf.rx_priority);
	unsigned idle = 0;
	while (!atomic_load_explicit(&d->rx_stop, memory_order_acquire))
		rx_poll_idle(&d->rx[w->core], &d->conf, &idle);
	return 0;
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
	int64_t now = tdp_mono_ns();
	struct tb_sync sy;
	if (!d->reported) {
		tb_sync(d->tb, &sy);
		if (sy.samples + sy.faults + sy.transitions == 0 || es.frames == 0)
			return;
		d->reported = true;
		char msg[640];
		snprintf(msg, sizeof(msg), "READY=1\nSTATUS=forwarding; sync %s (%s)",
			 tb_state_name(sy.state), sy.reason);
		notify_send(&d->nt, msg);
		log_info("ready: ports up, the frame engine running, sync %s",
			 tb_state_name(sy.state));
		d->next_status_ns = now + 5 * TDP_NS_PER_S;
	}
	int w = notify_watchdog(&d->nt, now, es.frames);
	if (w < 0 && !d->stall_logged) {
		log_err("the frame engine has not advanced since the last watchdog feed (frame "
			"%" PRIu64 "): the watchdog is no longer fed",
			es.frames);
		d->stall_logged = true;
	} else if (w > 0 && d->stall_logged) {
		log_notice("the frame engine advances again: the watchdog is fed");
		d->stall_logged = false;
	}
	if (now >= d->next_status_ns && d->nt.fd >= 0) {
		tb_sync(d->tb, &sy);
		char msg[640];
		snprintf(msg, sizeof(msg),
			 "STATUS=sync %s; frames %" PRIu64 ", late %" PRIu64 ", skipped %" PRIu64
			 "; table %s",
			 tb_state_name(sy.state), es.frames, es.late_frames, es.skipped_frames,
			 d->ctl.tm.cur ? d->ctl.tm.cur->name : "?");
		notify_send(&d->nt, msg);
		d->next_status_ns = now + 5 * TDP_NS_PER_S;
	}
}

/* 0, or 1 when the engine did not start or the counters asked for in
 * summary-json could not be written. */
/* The summary as JSON into path, whole or not at all: a full disk leaves
 * neither a cut file nor the temporary one, and the exit status says so. 0
 * (or no path), or 1. */
static int write_summary_json(const char *path, const struct summary_src *ss)
{
	if (!path[0])
		return 0;
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		log_err("summary-json %s: %s; the counters are only in the text above", path,
			strerror(errno));
		return 1;
	}
	summary_json(ss, f);
	bool ok = fflush(f) == 0 && !ferror(f);
	int e = errno;
	if (fclose(f) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (ok && rename(tmp, path) == 0) {
		log_info("counters written to %s", path);
		return 0;
	}
	log_err("summary-json %s: %s; the counters are only in the text above", path,
		strerror(ok ? errno : e));
	unlink(tmp);
	return 1;
}

static int run(struct tdpd *d)
{
	struct conf *c = &d->conf;
	struct summary_src ss = {
		.e = d->e, .rx = d->rx, .nrx = d->nrx, .timebase = d->tb->ops->name, .tb = d->tb};
	struct watch w;
	watch_init(&w, d);
	rt_thread_setup("rx", -1, (int)c->rx_priority);
	int64_t t0 = tdp_mono_ns();
	int64_t next_stats = c->stats_interval_ns ? t0 + c->stats_interval_ns : INT64_MAX;
	int64_t next_refresh = c->clock_refresh_ns ? t0 + c->clock_refresh_ns : INT64_MAX;
	int64_t deadline = c->duration_ns ? t0 + c->duration_ns : INT64_MAX;
	if (rte_eal_remote_launch(engine_lcore, d, 1) != 0) {
		log_err("cannot start the frame engine on its lcore");
		return 1;
	}
	static struct rx_worker rw[RX_MAX_CORES];
	for (uint32_t k = 1; k < d->nrx; k++) {
		rw[k] = (struct rx_worker){d, k};
		if (rte_eal_remote_launch(rx_lcore, &rw[k], k + 1) != 0) {
			log_err("cannot start RX core %u on its lcore", k);
			atomic_store(&d->rx_stop, 1);
			engine_stop(d->e);
			rte_eal_mp_wait_lcore();
			return 1;
		}
	}
	if (d->nrx > 1)
		log_info("RX: %u cores (the housekeeping CPU and rx-cpus %s)", d->nrx, c->rx_cpus);
	d->ctl.started_mono_ns = t0;
	char err[256];
	if (control_start(&d->ctl, err, sizeof(err)) != 0)
		log_err("%s: running without control sockets", err);
	log_notice("forwarding: %u flows on %u ports, TF %" PRIu64 " ns, k %u, late policy %s",
		   d->t->nflows, d->t->nports, d->t->tf_ns, d->t->k,
		   conf_late_names[c->late_policy]);
	unsigned idle = 0, tick = 0;
	while (!got_signal) {
		if (got_hup) {
			got_hup = 0;
			log_notice("SIGHUP: ignored; tdpd goes on (a table changes with tdpctl "
				   "schedule load --at, at a "
				   "frame every router agrees on)");
		}
		rx_poll_idle(&d->rx[0], c, &idle);
		if ((++tick & 255) == 0) {
			int64_t now = tdp_mono_ns();
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
				next_refresh =
					c->clock_refresh_ns ? now + c->clock_refresh_ns : INT64_MAX;
			}
			tdpd_launch_sample(d, now);
			watch(d, &w);
			housekeeping_tick(d);
			if (now >= deadline)
				break;
		}
	}
	watch_free(&w);
	if (got_signal)
		log_notice("%s: stopping", strsignal(got_signal));
	notify_send(&d->nt, "STOPPING=1");
	/* the other RX cores stop with core 0, which no longer drains the
	 * hand-off; what they handed over before they stopped is sent below */
	atomic_store_explicit(&d->rx_stop, 1, memory_order_release);
	control_stop(&d->ctl);
	engine_stop(d->e);
	rte_eal_mp_wait_lcore();
	rx_drain_handoff(&d->rx[0]);
	ss.elapsed_s = (double)(tdp_mono_ns() - t0) / 1e9;
	struct summary_drv drv[CONF_MAX_PORTS];
	for (uint32_t p = 0; p < d->nports_open; p++)
		drv[p] = (struct summary_drv){.name = c->ports[p].name,
					      .dpdk_port = d->ports[p].id,
					      .tap = d->rxp[p].has_tap ? d->hp[p].ifname : NULL};
	ss.drv = drv;
	ss.ndrv = d->nports_open;
	summary_text(&ss, stdout);
	fflush(stdout);
	return write_summary_json(c->summary_json, &ss);
}

int main(int argc, char **argv)
{
	static struct tdpd d;
	bool check = false, dump = false;
	conf_init(&d.conf);
	d.ctl.lfd[0] = d.ctl.lfd[1] = d.ctl.tm.waiter = -1;
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
	/* what start would refuse, --check refuses, at the option's line */
	int errors = conf_check(&d.conf, stderr);
	errors += conf_check_box(&d.conf, stderr);
	if (!errors) {
		tdpd_resolve_schedule(&d);
		errors += tdpd_load_table(&d);
	}
	if (!errors)
		errors += conf_check_table(&d.conf, d.t->tf_ns, stderr);
	if (!errors)
		errors += tdpd_build_routes(&d);
	if (errors) {
		fprintf(stderr, "tdpd: %d error%s; nothing started\n", errors,
			errors == 1 ? "" : "s");
		tdpd_shut_down(&d);
		return EXIT_CONFIG;
	}
	if (check) {
		printf("tdpd: configuration and table are valid: %u ports, %u flows, TF %" PRIu64
		       " ns, k %u\n",
		       d.conf.nports, d.t->nflows, d.t->tf_ns, d.t->k);
		tdpd_shut_down(&d);
		return 0;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	if (tdpd_start_up(&d) != 0) {
		tdpd_shut_down(&d);
		return 1;
	}
	rc = run(&d);
	tdpd_shut_down(&d);
	log_notice("stopped");
	return rc;
}
