/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpctl doctor: audits the host for the frame engine's CPU, each finding
 * pass, warn or fail with what it means and the fix, then measures the CPU's
 * wake-up latency (clock_nanosleep to an absolute time, SCHED_FIFO, as
 * cyclictest does) and says which TF this box can hold.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bigmem.h"
#include "coalesce.h"
#include "host.h"
#include "tdpctl.h"
#include "doctor_finding.h"
#include "tdpctl_doctor_time.h"

static bool in_list(const struct doc *d, const char *path)
{
	char buf[4096];
	uint8_t set[HOST_MAX_CPUS];
	return host_read(&d->h, path, buf, sizeof(buf)) == 0 && host_cpulist_parse(buf, set) == 0 &&
	       set[d->cpu];
}

static void check_kernel(struct doc *d)
{
	char rt[64] = "", ver[512] = "";
	host_read(&d->h, "/sys/kernel/realtime", rt, sizeof(rt));
	host_read(&d->h, "/proc/sys/kernel/version", ver, sizeof(ver));
	if (!strcmp(rt, "1") || strstr(ver, "PREEMPT_RT"))
		finding(d, "preemption", PASS, NULL, "PREEMPT_RT kernel (%s)", ver);
	else if (strstr(ver, "PREEMPT"))
		finding(d, "preemption", WARN,
			"install a PREEMPT_RT kernel (Debian: linux-image-rt-amd64)",
			"preemptible but not PREEMPT_RT (%s): kernel sections can still delay the "
			"engine by hundreds of us",
			ver);
	else
		finding(d, "preemption", FAIL,
			"install a PREEMPT_RT kernel (Debian: linux-image-rt-amd64)",
			"no kernel preemption (%s): the engine waits for whatever the kernel is "
			"doing",
			ver);
}

static void check_isolation(struct doc *d)
{
	char fix[256];
	snprintf(fix, sizeof(fix),
		 "add isolcpus=managed_irq,domain,%d nohz_full=%d rcu_nocbs=%d to the kernel "
		 "command line",
		 d->cpu, d->cpu, d->cpu);
	if (in_list(d, "/sys/devices/system/cpu/isolated"))
		finding(d, "isolcpus", PASS, NULL,
			"CPU %d is isolated from the scheduler's load balancing", d->cpu);
	else
		finding(d, "isolcpus", WARN, fix,
			"CPU %d is not in isolcpus: ordinary tasks may be placed on it", d->cpu);
	if (in_list(d, "/sys/devices/system/cpu/nohz_full"))
		finding(d, "nohz_full", PASS, NULL,
			"CPU %d runs without the periodic tick while busy", d->cpu);
	else
		finding(d, "nohz_full", WARN, fix,
			"CPU %d is not nohz_full: the scheduler tick interrupts it every jiffy",
			d->cpu);
	char cmd[4096] = "";
	host_read(&d->h, "/proc/cmdline", cmd, sizeof(cmd));
	char *p = strstr(cmd, "rcu_nocbs=");
	uint8_t set[HOST_MAX_CPUS];
	char val[256] = "";
	if (p)
		sscanf(p + 10, "%255s", val);
	if (p && host_cpulist_parse(val, set) == 0 && set[d->cpu])
		finding(d, "rcu_nocbs", PASS, NULL, "RCU callbacks of CPU %d run elsewhere",
			d->cpu);
	else
		finding(d, "rcu_nocbs", WARN, fix, "CPU %d runs its own RCU callbacks", d->cpu);
}

struct cg_walk {
	struct doc *d;
	char open[256], part[300];
	int nopen, units;
};

/* one directory of the cgroup root: an isolated partition holding the CPU
 * (which no process outside it may be pinned to), or a top-level slice or
 * scope of systemd's but tdpd.slice whose processes may use the CPU */
static void cg_entry(const char *name, void *arg)
{
	struct cg_walk *w = arg;
	char p[512], v[128];
	bool tdpd = !strcmp(name, "tdpd.slice");
	snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/cpuset.cpus.partition", name);
	if (!tdpd && host_read(&w->d->h, p, v, sizeof(v)) == 0 && !strstr(v, "invalid") &&
	    (!strncmp(v, "isolated", 8) || !strncmp(v, "root", 4))) {
		snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/cpuset.cpus.effective", name);
		if (in_list(w->d, p))
			snprintf(w->part, sizeof(w->part), "%s (%s)", name, v);
	}
	size_t n = strlen(name);
	if (tdpd || n <= 6 || (strcmp(name + n - 6, ".slice") && strcmp(name + n - 6, ".scope")))
		return;
	w->units++;
	snprintf(p, sizeof(p), "/sys/fs/cgroup/%s/cpuset.cpus.effective", name);
	/* no cpuset of its own: its processes may run on every CPU */
	if (!host_exists(&w->d->h, p) || in_list(w->d, p))
		host_list_add(w->open, sizeof(w->open), &w->nopen, 4, name);
}

static void check_cpuset(struct doc *d)
{
	struct cg_walk w = {.d = d};
	host_each(&d->h, "/sys/fs/cgroup", cg_entry, &w);
	if (w.part[0])
		finding(d, "cpuset", FAIL,
			"tdpctl shield off (the shield of earlier releases made "
			"/sys/fs/cgroup/tdpd-shield), or write member to its cpuset.cpus.partition "
			"and remove it",
			"CPU %d is in the isolated cpuset partition %s: no process outside it, "
			"tdpd's included, may be pinned there",
			d->cpu, w.part);
	else if (!w.units)
		finding(d, "cpuset", WARN,
			"boot with isolcpus (above), or run under systemd with tdpctl shield on",
			"no systemd slices under /sys/fs/cgroup: nothing keeps other processes off "
			"CPU %d",
			d->cpu);
	else if (w.nopen)
		finding(d, "cpuset", WARN,
			"tdpctl shield on (or systemctl enable --now tdpd-shield)",
			"CPU %d is open to %s%s: their processes may run there", d->cpu, w.open,
			host_list_more(w.nopen, 4));
	else
		finding(d, "cpuset", PASS, NULL,
			"CPU %d is kept for tdpd.slice: no other slice or scope may use it",
			d->cpu);
}

struct walk {
	struct doc *d;
	int n;
	char list[256];
	int ptp4l, phc2sys;
};

static void irq_on_cpu(const char *irq, void *arg)
{
	struct walk *w = arg;
	char p[300];
	snprintf(p, sizeof(p), "/proc/irq/%s/effective_affinity_list", irq);
	if (!host_exists(&w->d->h, p))
		snprintf(p, sizeof(p), "/proc/irq/%s/smp_affinity_list", irq);
	if (in_list(w->d, p))
		host_list_add(w->list, sizeof(w->list), &w->n, 12, irq);
}

/* kernel threads that may run on the CPU but are not bound to it alone */
static void movable_kthread(const char *pid, void *arg)
{
	struct walk *w = arg;
	char p[300], line[512], nm[64] = "", allowed[256] = "";
	long ppid = -1;
	snprintf(p, sizeof(p), "%s/proc/%s/status", w->d->h.root, pid);
	FILE *f = fopen(p, "r");
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "Name: %63s", nm);
		sscanf(line, "PPid: %ld", &ppid);
		sscanf(line, "Cpus_allowed_list: %255s", allowed);
	}
	if (f)
		fclose(f);
	uint8_t set[HOST_MAX_CPUS];
	if (ppid != 2 || host_cpulist_parse(allowed, set) != 0 || !set[w->d->cpu])
		return;
	int ncpu = 0;
	for (int c = 0; c < HOST_MAX_CPUS; c++)
		ncpu += set[c];
	if (ncpu > 1)
		host_list_add(w->list, sizeof(w->list), &w->n, 4, nm);
}

static void check_irqs(struct doc *d)
{
	struct walk w = {.d = d};
	host_each_number(&d->h, "/proc/irq", irq_on_cpu, &w);
	if (!w.n)
		finding(d, "irqs", PASS, NULL, "no device interrupt is delivered to CPU %d",
			d->cpu);
	else
		finding(d, "irqs", WARN, "tdpctl shield on (moves every IRQ that can move)",
			"%d interrupt%s delivered to CPU %d (%s%s)", w.n, w.n == 1 ? "" : "s",
			d->cpu, w.list, host_list_more(w.n, 12));
	struct walk k = {.d = d};
	host_each_number(&d->h, "/proc", movable_kthread, &k);
	if (!k.n)
		finding(d, "kthreads", PASS, NULL, "no unbound kernel thread may run on CPU %d",
			d->cpu);
	else
		finding(d, "kthreads", WARN,
			"isolcpus=managed_irq,domain,N at boot; tdpctl shield on for workqueues",
			"%d unbound kernel thread%s may run on CPU %d (%s%s)", k.n,
			k.n == 1 ? "" : "s", d->cpu, k.list, host_list_more(k.n, 4));
}

static void check_cpu(struct doc *d)
{
	char p[256], buf[4096];
	snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 d->cpu);
	uint8_t set[HOST_MAX_CPUS];
	if (host_read(&d->h, p, buf, sizeof(buf)) == 0 && host_cpulist_parse(buf, set) == 0) {
		int other = -1;
		for (int c = 0; c < HOST_MAX_CPUS; c++)
			if (set[c] && c != d->cpu)
				other = c;
		char fix[128];
		snprintf(fix, sizeof(fix),
			 "echo 0 > /sys/devices/system/cpu/cpu%d/online (or nosmt at boot)", other);
		char ofile[128];
		snprintf(ofile, sizeof(ofile), "/sys/devices/system/cpu/cpu%d/online", other);
		char onl[16] = "1";
		host_read(&d->h, ofile, onl, sizeof(onl));
		if (other < 0 || !strcmp(onl, "0"))
			finding(d, "smt", PASS, NULL, "CPU %d has its core to itself", d->cpu);
		else
			finding(d, "smt", WARN, fix,
				"CPU %d shares its core with CPU %d (SMT): its load slows the "
				"engine",
				d->cpu, other);
	}
	if (host_read(&d->h, "/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof(buf)) == 0) {
		if (!strcmp(buf, "-1"))
			finding(d, "rt-throttle", PASS, NULL, "RT throttling is off");
		else
			finding(d, "rt-throttle", WARN,
				"tdpctl shield on (or sysctl kernel.sched_rt_runtime_us=-1)",
				"RT throttling takes the CPU from SCHED_FIFO tasks after %s us per "
				"second",
				buf);
	}
	snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", d->cpu);
	if (host_read(&d->h, p, buf, sizeof(buf)) != 0)
		finding(d, "governor", PASS, NULL, "no cpufreq on CPU %d (fixed frequency or a VM)",
			d->cpu);
	else if (!strcmp(buf, "performance"))
		finding(d, "governor", PASS, NULL, "CPU %d runs the performance governor", d->cpu);
	else
		finding(d, "governor", WARN, "cpupower -c N frequency-set -g performance",
			"CPU %d runs the %s governor: frequency changes stretch the engine's "
			"wake-up",
			d->cpu, buf);
	/* C-states deeper than a few us that are not disabled */
	int deep = 0;
	char deepn[128] = "";
	for (int s = 0; s < 16; s++) {
		char lat[64], dis[16] = "0", nm[64] = "";
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency",
			 d->cpu, s);
		if (host_read(&d->h, p, lat, sizeof(lat)) != 0)
			break;
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/disable",
			 d->cpu, s);
		host_read(&d->h, p, dis, sizeof(dis));
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", d->cpu,
			 s);
		host_read(&d->h, p, nm, sizeof(nm));
		if (atol(lat) > 10 && strcmp(dis, "1"))
			host_list_add(deepn, sizeof(deepn), &deep, 16, nm);
	}
	if (!deep)
		finding(d, "c-states", PASS, NULL,
			"no C-state with an exit latency over 10 us is enabled on CPU %d", d->cpu);
	else
		finding(d, "c-states", PASS, NULL,
			"C-states %s have exit latencies over 10 us; tdpd holds "
			"/dev/cpu_dma_latency at 0 while it runs "
			"(dma-latency yes), which keeps the CPU out of them",
			deepn);
}

/* Transparent huge pages, which tdpd asks for its flow arrays of 1 MiB or
 * more (the classifier's slots past about 11,000 flows of one match shape,
 * RX's and the engine's arrays of a table's flows) and its flows' state
 * (slab.c's chunks): "never" leaves them on 4 KiB pages, where a lookup at
 * 10^5 flows and more also misses the TLB. */
static void check_thp(struct doc *d)
{
	char line[128], mode[32] = "";
	if (host_read(&d->h, "/sys/kernel/mm/transparent_hugepage/enabled", line, sizeof(line)) ==
	    0)
		bigmem_thp_word(line, mode, sizeof(mode));
	const char *fix = "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled";
	if (!strcmp(mode, "always") || !strcmp(mode, "madvise"))
		finding(d, "thp", PASS, NULL,
			"transparent huge pages: %s (tdpd's flows' state and flow arrays of 1 "
			"MiB or more go on 2 MiB pages)",
			mode);
	else if (*mode)
		finding(d, "thp", WARN, fix,
			"transparent huge pages: %s: tables of 10^5 flows and more run slower, "
			"their flows' state and arrays on 4 KiB pages (at 10^6 flows huge "
			"pages cut RX's time by a third or more)",
			mode);
	else
		finding(d, "thp", WARN, "a kernel built with CONFIG_TRANSPARENT_HUGEPAGE",
			"this kernel has no transparent huge pages: tables of 10^5 flows and "
			"more run slower, their flows' state and arrays on 4 KiB pages");
}

static void check_clock(struct doc *d)
{
	char cs[64] = "", line[4096];
	host_read(&d->h, "/sys/devices/system/clocksource/clocksource0/current_clocksource", cs,
		  sizeof(cs));
	if (!strcmp(cs, "tsc"))
		finding(d, "clocksource", PASS, NULL, "the kernel's clock runs on the TSC");
	else
		finding(d, "clocksource", WARN,
			"clocksource=tsc tsc=reliable at boot, if the TSC is invariant",
			"the clocksource is %s: every clock read is slower than a TSC read",
			cs[0] ? cs : "unknown");
	char p[4096];
	snprintf(p, sizeof(p), "%s/proc/cpuinfo", d->h.root);
	FILE *f = fopen(p, "r");
	bool constant = false, nonstop = false;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			constant = strstr(line, " constant_tsc") != NULL;
			nonstop = strstr(line, " nonstop_tsc") != NULL;
			break;
		}
	if (f)
		fclose(f);
	if (constant && nonstop)
		finding(d, "tsc", PASS, NULL, "the TSC is invariant (constant_tsc, nonstop_tsc)");
	else
		finding(d, "tsc", WARN, "use the timebase's own clock (fast-clock no) on this box",
			"the TSC is not invariant (%s%s): tdpd's fast clock must re-anchor often",
			constant ? "" : "no constant_tsc ", nonstop ? "" : "no nonstop_tsc");
	char fr[64];
	if (host_read(&d->h, "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", fr,
		      sizeof(fr)) == 0 &&
	    atol(fr) > 0)
		finding(d, "hugepages", PASS, NULL, "%s free 2 MiB hugepages", fr);
	else
		finding(d, "hugepages", WARN,
			"echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
			"no free 2 MiB hugepages: DPDK runs with --no-huge (fine for vdevs, not "
			"for NICs)");
	check_thp(d);
}

static void check_netdevs(struct doc *d)
{
	for (int i = 0; i < d->nnetdevs; i++) {
		struct ethtool_coalesce ec;
		bool off = false;
		int rc = coalesce_get(d->netdevs[i], &ec, &off);
		char fix[160];
		snprintf(fix, sizeof(fix),
			 "ethtool -C %s rx-usecs 0 rx-frames 1 tx-usecs 0 tx-frames 1 adaptive-rx "
			 "off "
			 "adaptive-tx off (tdpd does it for its ports)",
			 d->netdevs[i]);
		if (rc == -EOPNOTSUPP)
			finding(d, "coalescing", PASS, NULL, "%s has no interrupt coalescing",
				d->netdevs[i]);
		else if (rc)
			finding(d, "coalescing", WARN, NULL, "%s: %s", d->netdevs[i],
				strerror(-rc));
		else if (off)
			finding(d, "coalescing", PASS, NULL, "%s: interrupt coalescing off",
				d->netdevs[i]);
		else
			finding(d, "coalescing", WARN, fix,
				"%s coalesces interrupts (rx %u us/%u frames, tx %u us, adaptive "
				"%s)",
				d->netdevs[i], ec.rx_coalesce_usecs, ec.rx_max_coalesced_frames,
				ec.tx_coalesce_usecs, ec.use_adaptive_rx_coalesce ? "on" : "off");
	}
}

static void ptp_daemon(const char *pid, void *arg)
{
	struct walk *w = arg;
	char p[300], nm[64] = "";
	snprintf(p, sizeof(p), "/proc/%s/comm", pid);
	host_read(&w->d->h, p, nm, sizeof(nm));
	w->ptp4l += !strcmp(nm, "ptp4l");
	w->phc2sys += !strcmp(nm, "phc2sys");
}

/* Debian 12's phc2sys@.service requires ptp4l.service, which Debian does
 * not ship (only ptp4l@.service): it cannot start. tdpd@IFACE wants
 * tdpd-phc2sys@IFACE instead, which follows ptp4l@IFACE. */
static bool phc2sys_unit_broken(struct doc *d)
{
	static const char *const dirs[] = {"/lib/systemd/system", "/usr/lib/systemd/system",
					   "/etc/systemd/system"};
	char unit[4096] = "", p[300];
	for (size_t i = 0; i < 3 && !unit[0]; i++) {
		snprintf(p, sizeof(p), "%s/phc2sys@.service", dirs[i]);
		char path[4096];
		snprintf(path, sizeof(path), "%s%s", d->h.root, p);
		FILE *f = fopen(path, "r");
		if (f) {
			size_t n = fread(unit, 1, sizeof(unit) - 1, f);
			unit[n] = 0;
			fclose(f);
		}
	}
	if (!strstr(unit, "Requires=ptp4l.service"))
		return false;
	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s/ptp4l.service", dirs[i]);
		if (host_exists(&d->h, p))
			return false;
	}
	return true;
}

static void check_ptp(struct doc *d)
{
	struct walk w = {.d = d};
	host_each_number(&d->h, "/proc", ptp_daemon, &w);
	bool broken = phc2sys_unit_broken(d);
	const char *fix =
		"ptp-mode disciplined: systemctl enable --now tdpd@IFACE (it wants ptp4l@IFACE and "
		"tdpd-phc2sys@IFACE); ptp-mode offset: ptp4l with free_running 1 and no phc2sys, "
		"tdpd "
		"applies ptp4l's offset itself";
	if (w.ptp4l)
		finding(d, "ptp", w.phc2sys || !broken ? PASS : WARN, fix,
			"ptp4l running (%d), phc2sys %s%s", w.ptp4l,
			w.phc2sys ? "running (ptp-mode disciplined)"
				  : "not running (right for ptp-mode offset, where tdpd applies "
				    "ptp4l's offset; "
				    "ptp-mode disciplined needs it)",
			!w.phc2sys && broken ? ": linuxptp's phc2sys@.service requires a "
					       "ptp4l.service this system does "
					       "not have, so it cannot start; tdpd-phc2sys@IFACE "
					       "follows ptp4l@IFACE"
					     : "");
	else
		finding(d, "ptp", WARN, fix,
			"ptp4l is not running: the ptp timebase has nothing to follow (fine with "
			"system or bc635)%s",
			broken ? "; linuxptp's phc2sys@.service cannot start here (it requires a "
				 "ptp4l.service this system does not have): use tdpd-phc2sys@IFACE"
			       : "");
}

/* ---- wake-up latency ------------------------------------------------------ */

struct lat {
	int cpu;
	double secs;
	int64_t interval_ns;
	int64_t max_ns, n;
	int64_t *v;
	bool fifo, pinned;
};

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void *lat_thread(void *arg)
{
	struct lat *l = arg;
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET(l->cpu, &cs);
	l->pinned = pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs) == 0;
	struct sched_param sp = {.sched_priority = 80};
	l->fifo = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
	int64_t total = (int64_t)(l->secs * 1e9 / (double)l->interval_ns);
	struct timespec next, now;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (int64_t i = 0; i < total; i++) {
		int64_t t = ts_ns(&next) + l->interval_ns;
		next.tv_sec = t / 1000000000;
		next.tv_nsec = t % 1000000000;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		int64_t late = ts_ns(&now) - t;
		l->v[l->n++] = late;
		if (late > l->max_ns)
			l->max_ns = late;
	}
	return NULL;
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void check_latency(struct doc *d)
{
	if (d->lat_s <= 0)
		return;
	struct lat l = {.cpu = d->cpu, .secs = d->lat_s, .interval_ns = 200000};
	l.v = calloc((size_t)(d->lat_s * 1e9 / 200000) + 2, sizeof(int64_t));
	if (!l.v)
		return;
	if (!d->json)
		fprintf(stderr, "measuring the wake-up latency of CPU %d for %.1f s...\n", d->cpu,
			d->lat_s);
	mlockall(MCL_CURRENT | MCL_FUTURE);
	pthread_t th;
	if (pthread_create(&th, NULL, lat_thread, &l) != 0) {
		free(l.v);
		return;
	}
	pthread_join(th, NULL);
	qsort(l.v, (size_t)l.n, sizeof(int64_t), cmp64);
	int64_t p99 = l.n ? l.v[(size_t)((double)l.n * 0.99)] : 0,
		p999 = l.n ? l.v[(size_t)((double)l.n * 0.999)] : 0;
	/* the engine wakes ahead of each boundary by the worst oversleep it has
	 * seen; a frame must outlast that and the guard band. TFs divide a second. */
	static const int64_t tfs[] = {10000,   20000,	 25000,	   50000,    100000,   125000,
				      200000,  250000,	 500000,   1000000,  2000000,  2500000,
				      5000000, 10000000, 20000000, 25000000, 50000000, 100000000};
	int64_t need = l.max_ns + d->guard_ns, hold = 0;
	for (size_t i = 0; i < sizeof(tfs) / sizeof(tfs[0]) && !hold; i++)
		if (tfs[i] > need)
			hold = tfs[i];
	char what[512], holds[96];
	/* a stall longer than the largest TF tdpd offers: no TF holds it */
	if (hold)
		snprintf(holds, sizeof(holds), "this box can hold TF = %" PRId64 " us",
			 hold / 1000);
	else
		snprintf(holds, sizeof(holds), "no TF up to %" PRId64 " ms can hold that",
			 tfs[sizeof(tfs) / sizeof(tfs[0]) - 1] / 1000000);
	snprintf(what, sizeof(what),
		 "%" PRId64 " wake-ups at 200 us on CPU %d (%s, %s): p50 %" PRId64
		 " ns, p99 %" PRId64 " ns, p99.9 %" PRId64 " ns, max %" PRId64
		 " ns; with a %" PRId64 " ns guard band %s",
		 l.n, d->cpu, l.fifo ? "SCHED_FIFO 80" : "SCHED_OTHER: not root?",
		 l.pinned ? "pinned" : "not pinned", l.n ? l.v[l.n / 2] : 0, p99, p999, l.max_ns,
		 d->guard_ns, holds);
	enum verdict v = !d->tf_ns		    ? (l.fifo && hold ? PASS : WARN)
			 : hold && d->tf_ns >= hold ? PASS
						    : FAIL;
	char fix[160];
	if (hold)
		snprintf(fix, sizeof(fix),
			 "use TF >= %" PRId64
			 " us, or shield the CPU and boot it isolated (see above)",
			 hold / 1000);
	else
		snprintf(fix, sizeof(fix),
			 "find what stalls the CPU (an SMI, a hypervisor, a driver): shield it and "
			 "boot it "
			 "isolated (see above), or run on another box");
	if (d->tf_ns)
		finding(d, "latency", v, fix, "%s; the table asks for TF = %" PRId64 " us", what,
			d->tf_ns / 1000);
	else
		finding(d, "latency", v, "run as root for SCHED_FIFO", "%s", what);
	if (d->json) {
		json_t *last = json_array_get(d->out, json_array_size(d->out) - 1);
		json_object_set_new(last, "latency_ns",
				    json_pack("{sI sI sI sI sI}", "samples", (json_int_t)l.n, "p50",
					      (json_int_t)(l.n ? l.v[l.n / 2] : 0), "p99",
					      (json_int_t)p99, "p999", (json_int_t)p999, "max",
					      (json_int_t)l.max_ns));
		json_object_set_new(last, "holds_tf_ns", json_integer(hold));
	}
	free(l.v);
}

static int64_t parse_dur(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || v < 0)
		return -1;
	if (!strcmp(end, "ns"))
		return (int64_t)v;
	if (!strcmp(end, "us"))
		return (int64_t)(v * 1e3);
	if (!strcmp(end, "ms"))
		return (int64_t)(v * 1e6);
	if (!strcmp(end, "s") || !*end)
		return (int64_t)(v * 1e9);
	return -1;
}

static int doctor_usage(FILE *f)
{
	fprintf(f,
		"usage: tdpctl doctor [--cpu N] [--tf T] [--guard T] [--latency T] [--netdev "
		"IF]... [--json] [--root DIR]\n"
		"  --cpu      the frame engine's CPU (default: the last online, tdpd's default)\n"
		"  --tf       the table's frame length, to judge the measured latency against\n"
		"  --guard    the table's guard band (default 20us)\n"
		"  --latency  how long to measure the wake-up latency (default 2s; 0 skips it)\n"
		"  --netdev   a kernel netdev behind a port: its interrupt coalescing\n"
		"  --root     read /proc and /sys under DIR (a copy of another box's, or a "
		"test's)\n"
		"Exit status: 0 no failure, 1 a check failed, 2 usage.\n");
	return f == stdout ? 0 : TDPCTL_EXIT_USAGE;
}

/* argv into d: 0, 1 when --help was printed, or TDPCTL_EXIT_USAGE (said) */
static int doctor_args(struct doc *d, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int64_t ns = v ? parse_dur(v) : -1;
		if (!strcmp(a, "--json")) {
			d->json = true;
			continue;
		}
		if (!strcmp(a, "--help")) {
			doctor_usage(stdout);
			return 1;
		}
		if (!v)
			return doctor_usage(stderr);
		i++;
		if (!strcmp(a, "--root")) {
			d->h.root = v;
		} else if (!strcmp(a, "--cpu")) {
			char *end;
			long c = strtol(v, &end, 10);
			if (*end || end == v || c < 0 || c >= HOST_MAX_CPUS) {
				fprintf(stderr,
					"tdpctl: doctor: --cpu takes a CPU number, not '%s'\n", v);
				return TDPCTL_EXIT_USAGE;
			}
			d->cpu = (int)c;
		} else if ((!strcmp(a, "--tf") || !strcmp(a, "--guard")) && ns >= 0) {
			*(a[2] == 't' ? &d->tf_ns : &d->guard_ns) = ns;
		} else if (!strcmp(a, "--latency") && ns >= 0 && ns <= 600 * 1000000000LL) {
			d->lat_s = (double)ns / 1e9;
		} else if (!strcmp(a, "--netdev") && d->nnetdevs < 16) {
			d->netdevs[d->nnetdevs++] = v;
		} else {
			return doctor_usage(stderr);
		}
	}
	return 0;
}

int tdpctl_doctor(int argc, char **argv)
{
	struct doc d = {.h = {.root = ""}, .cpu = -1, .guard_ns = 20000, .lat_s = 2};
	int rc = doctor_args(&d, argc, argv);
	if (rc)
		return rc == 1 ? 0 : rc;
	if (d.cpu < 0) {
		char buf[4096];
		uint8_t set[HOST_MAX_CPUS];
		if (host_read(&d.h, "/sys/devices/system/cpu/online", buf, sizeof(buf)) == 0 &&
		    host_cpulist_parse(buf, set) == 0)
			for (int c = 0; c < HOST_MAX_CPUS; c++)
				if (set[c])
					d.cpu = c;
		if (d.cpu < 0)
			d.cpu = 0;
	}
	if (d.json)
		d.out = json_array();
	else
		printf("auditing CPU %d for the frame engine\n", d.cpu);
	check_kernel(&d);
	check_isolation(&d);
	check_cpuset(&d);
	check_irqs(&d);
	check_cpu(&d);
	check_clock(&d);
	check_netdevs(&d);
	check_ptp(&d);
	check_time_sources(&d);
	check_cards(&d);
	check_latency(&d);
	if (d.json) {
		json_t *o = json_pack("{si so s{si si si}}", "cpu", d.cpu, "findings", d.out,
				      "summary", "pass", d.count[PASS], "warn", d.count[WARN],
				      "fail", d.count[FAIL]);
		json_dumpf(o, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(o);
	} else {
		printf("%d pass, %d warn, %d fail\n", d.count[PASS], d.count[WARN], d.count[FAIL]);
	}
	return d.count[FAIL] ? TDPCTL_EXIT_BAD : 0;
}
