/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpctl shield on|off|status: the frame engine's CPU at run time.
 *   on     the CPU kept for tdpd.slice (where tdpd.service runs): every other
 *          top-level slice and scope of systemd's may use only the other CPUs
 *          (AllowedCPUs, set with systemctl set-property --runtime); every
 *          IRQ that can move, the default IRQ affinity and the unbound
 *          workqueues off it; RT throttling off. The previous values go to a
 *          state file first, so off puts back exactly what was there.
 *   off    puts back what the state file says.
 *   status what is in place now.
 * Not an isolated cpuset partition: cgroup v2 puts a process's threads in
 * one cgroup, and a partition takes its CPU from every other cgroup, the
 * tdpd process's included, so its engine could never be pinned there.
 * What only the kernel command line can do (isolcpus, nohz_full, rcu_nocbs)
 * is reported with the line to add.
 */
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host.h"
#include "tdpctl.h"

#define CG "/sys/fs/cgroup"
/* where the shield of earlier releases made its partition (off removes it) */
#define CG_SHIELD CG "/tdpd-shield"
#define SYSTEMCTL "/usr/bin/systemctl"
#define TDPD_SLICE "tdpd.slice"
#define RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"
#define WQ_MASK "/sys/devices/virtual/workqueue/cpumask"
#define IRQ_DEFAULT "/proc/irq/default_smp_affinity"
/* not under /run/tdpd: tdpd.service's RuntimeDirectory, which systemd
 * removes at every stop and restart of tdpd, while the shield stays */
#define STATE_DEFAULT "/run/tdpd-shield/shield.state"

struct sh {
	struct host h;
	int cpu;
	const char *state;
	FILE *st; /* state file being written */
	int moved, pinned, warnings;
	const char *rest; /* the other online CPUs, as a list */
};

static void say(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const char *level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("%-5s ", level);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* Saves path's current value in the state file, then writes val. */
static int set_saved(struct sh *s, const char *path, const char *val)
{
	char old[4096];
	int rc = host_read(&s->h, path, old, sizeof(old));
	if (rc)
		return rc;
	if (!strcmp(old, val))
		return 0;
	rc = host_write(&s->h, path, val);
	if (rc == 0)
		fprintf(s->st, "%s\t%s\n", path, old);
	return rc;
}

/* Moves an IRQ that may be delivered to the CPU onto the others. */
static void irq_off(const char *irq, void *arg)
{
	struct sh *s = arg;
	char path[300], cur[4096];
	snprintf(path, sizeof(path), "/proc/irq/%s/smp_affinity_list", irq);
	uint8_t set[HOST_MAX_CPUS];
	if (host_read(&s->h, path, cur, sizeof(cur)) != 0 || host_cpulist_parse(cur, set) != 0 ||
	    !set[s->cpu])
		return;
	if (set_saved(s, path, s->rest) == 0)
		s->moved++;
	else
		s->pinned++; /* per-CPU interrupts (timers, IPIs) cannot move */
}

static int online(const struct host *h, uint8_t *set)
{
	char buf[4096];
	int rc = host_read(h, "/sys/devices/system/cpu/online", buf, sizeof(buf));
	return rc ? rc : host_cpulist_parse(buf, set);
}

static void boot_params(struct sh *s)
{
	char cmd[4096] = "";
	host_read(&s->h, "/proc/cmdline", cmd, sizeof(cmd));
	static const char *const params[] = {"isolcpus", "nohz_full", "rcu_nocbs"};
	char missing[256] = "";
	for (int i = 0; i < 3; i++) {
		uint8_t set[HOST_MAX_CPUS];
		bool has = false;
		char *p = strstr(cmd, params[i]);
		if (p && p[strlen(params[i])] == '=') {
			char val[256];
			sscanf(p + strlen(params[i]) + 1, "%255s", val);
			/* isolcpus may start with flags: managed_irq,domain,2-3 */
			char *v = val;
			while (*v && !(*v >= '0' && *v <= '9'))
				v = strchr(v, ',') ? strchr(v, ',') + 1 : v + strlen(v);
			has = host_cpulist_parse(v, set) == 0 && set[s->cpu];
		}
		if (!has) {
			char add[64];
			snprintf(add, sizeof(add), "%s%s=%s%d", missing[0] ? " " : "", params[i],
				 i == 0 ? "managed_irq,domain," : "", s->cpu);
			strncat(missing, add, sizeof(missing) - strlen(missing) - 1);
		}
	}
	if (missing[0]) {
		say("note",
		    "boot parameters only the kernel command line can set: add \"%s\" "
		    "(e.g. GRUB_CMDLINE_LINUX in /etc/default/grub, then update-grub and reboot)",
		    missing);
	} else {
		say("ok",
		    "the kernel was booted with CPU %d isolated (isolcpus, nohz_full, rcu_nocbs)",
		    s->cpu);
	}
}

/* The CPU to shield (the last online one unless --cpu), and the others as a
 * list and a mask; TDPCTL_EXIT_USAGE said when there is none to shield. */
static int shield_cpu(struct sh *s, char *restl, size_t ll, char *restm, size_t ml)
{
	uint8_t on[HOST_MAX_CPUS], rest[HOST_MAX_CPUS];
	if (online(&s->h, on) != 0) {
		fprintf(stderr, "tdpctl: shield: cannot read the online CPUs\n");
		return TDPCTL_EXIT_USAGE;
	}
	if (s->cpu < 0)
		for (int c = 0; c < HOST_MAX_CPUS; c++)
			if (on[c])
				s->cpu = c;
	if (s->cpu >= HOST_MAX_CPUS || !on[s->cpu]) {
		fprintf(stderr, "tdpctl: shield: CPU %d is not online\n", s->cpu);
		return TDPCTL_EXIT_USAGE;
	}
	memcpy(rest, on, sizeof(rest));
	rest[s->cpu] = 0;
	host_cpulist_format(rest, restl, ll);
	host_cpumask_format(rest, restm, ml);
	if (!restl[0]) {
		fprintf(stderr,
			"tdpctl: shield: CPU %d is the only one online; nothing could run "
			"elsewhere\n",
			s->cpu);
		return TDPCTL_EXIT_USAGE;
	}
	return 0;
}

/* The state file at sp, new (one there means the shield is on), with its
 * directories; TDPCTL_EXIT_USAGE said when it cannot be. */
static int state_new(struct sh *s, const char *sp)
{
	if (access(sp, F_OK) == 0) {
		fprintf(stderr,
			"tdpctl: shield: %s exists: the shield is on (tdpctl shield off first)\n",
			sp);
		return TDPCTL_EXIT_USAGE;
	}
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", sp);
	/* mkdir -p of the state file's directory */
	for (char *q = dir + 1; *q; q++)
		if (*q == '/') {
			*q = 0;
			mkdir(dir, 0755);
			*q = '/';
		}
	s->st = fopen(sp, "w");
	if (!s->st) {
		fprintf(stderr, "tdpctl: shield: %s: %s\n", sp, strerror(errno));
		return TDPCTL_EXIT_USAGE;
	}
	fprintf(s->st, "cpu\t%d\n", s->cpu);
	return 0;
}

/* systemctl set-property --runtime UNIT AllowedCPUs=CPUS (the systemctl of
 * the root: a stand-in in a fake tree): 0, its exit status, or -errno */
static int allowed_cpus(const struct host *h, const char *unit, const char *cpus)
{
	char exe[4096], prop[4200];
	snprintf(exe, sizeof(exe), "%s" SYSTEMCTL, h->root);
	snprintf(prop, sizeof(prop), "AllowedCPUs=%s", cpus);
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execl(exe, "systemctl", "set-property", "--runtime", unit, prop, (char *)NULL);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* a top-level slice or scope of systemd's (a directory of the cgroup root) */
static bool top_unit(const char *name)
{
	size_t n = strlen(name);
	return n > 6 && (!strcmp(name + n - 6, ".slice") || !strcmp(name + n - 6, ".scope"));
}

struct kept {
	struct sh *s;
	char names[512];
	int n, failed;
};

/* a top-level unit but tdpd.slice onto the other CPUs, its AllowedCPUs saved */
static void unit_off(const char *name, void *arg)
{
	struct kept *k = arg;
	if (!top_unit(name) || !strcmp(name, TDPD_SLICE))
		return;
	char path[4096], old[4096] = "";
	snprintf(path, sizeof(path), CG "/%s/cpuset.cpus", name);
	host_read(&k->s->h, path, old, sizeof(old)); /* empty, or none: not set */
	int rc = allowed_cpus(&k->s->h, name, k->s->rest);
	if (rc) {
		say("warn", "%s: systemctl set-property --runtime %s AllowedCPUs=%s: %s %d", name,
		    name, k->s->rest, rc < 0 ? "cannot run it:" : "exit", rc < 0 ? -rc : rc);
		k->failed++;
		return;
	}
	fprintf(k->s->st, "allowed\t%s\t%s\n", name, old);
	host_list_add(k->names, sizeof(k->names), &k->n, 6, name);
}

/* the CPU kept for tdpd.slice: systemd's other top-level slices and scopes,
 * where every other process runs, may use only the other CPUs */
static void keep_for_tdpd(struct sh *s)
{
	if (!host_exists(&s->h, "/run/systemd/system") || !host_exists(&s->h, SYSTEMCTL)) {
		say("warn",
		    "systemd is not running: CPU %d is not kept from other processes (boot with "
		    "isolcpus, below, or keep other work off it with taskset)",
		    s->cpu);
		s->warnings++;
		return;
	}
	struct kept k = {.s = s};
	host_each(&s->h, CG, unit_off, &k);
	/* the slices systemd makes later (user.slice at the first login after a
	 * boot-time shield, machine.slice for the first VM or container), by
	 * their unit files */
	static const char *const later[] = {"user.slice", "machine.slice"};
	for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++) {
		char cg[256], unit[256];
		snprintf(cg, sizeof(cg), CG "/%s", later[i]);
		snprintf(unit, sizeof(unit), "/lib/systemd/system/%s", later[i]);
		if (!host_exists(&s->h, cg) && host_exists(&s->h, unit))
			unit_off(later[i], &k);
	}
	s->warnings += k.failed != 0;
	if (k.n)
		say("ok",
		    "CPU %d kept for " TDPD_SLICE ", where tdpd.service runs: %s%s may use CPUs %s "
		    "(AllowedCPUs, until shield off or a reboot)",
		    s->cpu, k.names, host_list_more(k.n, 6), s->rest);
}

/* IRQs, unbound workqueues and RT throttling off the CPU */
static void kernel_off(struct sh *s, const char *restl, const char *restm)
{
	host_each_number(&s->h, "/proc/irq", irq_off, s);
	if (host_exists(&s->h, IRQ_DEFAULT))
		set_saved(s, IRQ_DEFAULT, restm);
	say(s->pinned ? "warn" : "ok",
	    "IRQs: %d moved off CPU %d to %s; %d could not move (per-CPU)", s->moved, s->cpu, restl,
	    s->pinned);
	if (s->pinned)
		s->warnings++;
	if (host_exists(&s->h, WQ_MASK)) {
		int rc = set_saved(s, WQ_MASK, restm);
		say(rc ? "warn" : "ok", "unbound workqueues %s CPU %d%s%s", rc ? "still on" : "off",
		    s->cpu, rc ? ": " : "", rc ? strerror(-rc) : "");
		s->warnings += rc != 0;
	}
	int rc = set_saved(s, RT_RUNTIME, "-1");
	say(rc ? "warn" : "ok", "RT throttling %s%s%s",
	    rc ? "still on" : "off (sched_rt_runtime_us -1)", rc ? ": " : "",
	    rc ? strerror(-rc) : "");
	s->warnings += rc != 0;
}

static int shield_on(struct sh *s)
{
	char restl[4096], restm[512];
	int rc = shield_cpu(s, restl, sizeof(restl), restm, sizeof(restm));
	if (rc)
		return rc;
	s->rest = restl;
	char sp[4096];
	snprintf(sp, sizeof(sp), "%s%s", s->h.root, s->state);
	rc = state_new(s, sp);
	if (rc)
		return rc;
	keep_for_tdpd(s);
	kernel_off(s, restl, restm);
	boot_params(s);
	fclose(s->st);
	printf("shield on CPU %d; undo with: tdpctl shield off (state in %s)\n", s->cpu, sp);
	return 0;
}

static int shield_off(struct sh *s)
{
	char sp[4096];
	snprintf(sp, sizeof(sp), "%s%s", s->h.root, s->state);
	FILE *f = fopen(sp, "r");
	if (!f) {
		say("ok", "no shield to undo (%s: %s)", sp, strerror(errno));
		return 0;
	}
	char line[8192];
	int restored = 0, failed = 0;
	bool rmdir_cg = false, disable = false;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *tab = strchr(line, '\t');
		if (!tab)
			continue;
		*tab = 0;
		const char *k = line, *v = tab + 1;
		if (!strcmp(k, "cpu"))
			continue;
		if (!strcmp(k, "mkdir")) {
			rmdir_cg = true;
			continue;
		}
		if (!strcmp(k, "enabled")) {
			disable = true;
			continue;
		}
		if (!strcmp(k, "allowed")) { /* allowed UNIT OLD-CPUS */
			char *old = strchr(tab + 1, '\t');
			if (old)
				*old++ = 0;
			int rc = allowed_cpus(&s->h, v, old ? old : "");
			if (rc == 0)
				restored++;
			else
				failed++;
			continue;
		}
		if (host_write(&s->h, k, v) == 0)
			restored++;
		else
			failed++;
	}
	fclose(f);
	if (rmdir_cg) {
		host_write(&s->h, CG_SHIELD "/cpuset.cpus.partition", "member");
		char p[4096];
		snprintf(p, sizeof(p), "%s" CG_SHIELD, s->h.root);
		if (rmdir(p) != 0 && errno != ENOENT) {
			/* a fake tree has files in it; the kernel's has none that count */
			char q[4200];
			static const char *const files[] = {"cpuset.cpus", "cpuset.cpus.partition"};
			for (int i = 0; i < 2; i++) {
				snprintf(q, sizeof(q), "%s/%s", p, files[i]);
				unlink(q);
			}
			rmdir(p);
		}
	}
	if (disable)
		host_write(&s->h, CG "/cgroup.subtree_control", "-cpuset");
	unlink(sp);
	say(failed ? "warn" : "ok", "shield off: %d settings put back%s%s", restored,
	    failed ? ", could not: " : "", failed ? "some (see above)" : "");
	return failed ? TDPCTL_EXIT_BAD : 0;
}

/* a top-level unit's CPUs, when something set them */
static void unit_status(const char *name, void *arg)
{
	struct sh *s = arg;
	char path[4096], cpus[4096] = "";
	snprintf(path, sizeof(path), CG "/%s/cpuset.cpus", name);
	if (top_unit(name) && host_read(&s->h, path, cpus, sizeof(cpus)) == 0 && cpus[0])
		printf("cpus     %s: CPUs %s\n", name, cpus);
}

static int shield_status(struct sh *s)
{
	char sp[4096], buf[4096];
	snprintf(sp, sizeof(sp), "%s%s", s->h.root, s->state);
	bool on = access(sp, F_OK) == 0;
	printf("shield   %s\n", on ? "on (tdpctl shield off undoes it)" : "off");
	host_each(&s->h, CG, unit_status, s);
	if (host_read(&s->h, RT_RUNTIME, buf, sizeof(buf)) == 0)
		printf("rt       sched_rt_runtime_us %s%s\n", buf,
		       !strcmp(buf, "-1") ? " (throttling off)" : "");
	if (host_read(&s->h, WQ_MASK, buf, sizeof(buf)) == 0)
		printf("wq       unbound workqueue cpumask %s\n", buf);
	if (host_read(&s->h, IRQ_DEFAULT, buf, sizeof(buf)) == 0)
		printf("irq      default affinity %s\n", buf);
	return 0;
}

int tdpctl_shield(int argc, char **argv)
{
	struct sh s = {.h = {.root = ""}, .cpu = -1, .state = STATE_DEFAULT};
	const char *verb = argc > 1 ? argv[1] : NULL;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			char *end;
			long c = strtol(argv[++i], &end, 10);
			if (*end || c < 0 || c >= HOST_MAX_CPUS) {
				fprintf(stderr,
					"tdpctl: shield: --cpu takes a CPU number, not '%s'\n",
					argv[i]);
				return TDPCTL_EXIT_USAGE;
			}
			s.cpu = (int)c;
		} else if (!strcmp(argv[i], "--root") && i + 1 < argc) {
			s.h.root = argv[++i];
		} else if (!strcmp(argv[i], "--state") && i + 1 < argc) {
			s.state = argv[++i];
		} else {
			fprintf(stderr, "tdpctl: shield: unknown argument '%s'\n", argv[i]);
			verb = NULL;
			break;
		}
	}
	if (verb && !strcmp(verb, "on"))
		return shield_on(&s);
	if (verb && !strcmp(verb, "off"))
		return shield_off(&s);
	if (verb && !strcmp(verb, "status"))
		return shield_status(&s);
	fprintf(verb && !strcmp(verb, "--help") ? stdout : stderr,
		"usage: tdpctl shield on [--cpu N] | off | status  [--root DIR] [--state FILE]\n"
		"  --state FILE  what 'on' replaced, for 'off' (default " STATE_DEFAULT ")\n"
		"  on      keep CPU N for tdpd.slice and the frame engine (default: the last "
		"online CPU, tdpd's default engine-cpu)\n"
		"  off     put back what 'on' changed\n"
		"  status  what is in place\n");
	return verb && !strcmp(verb, "--help") ? 0 : TDPCTL_EXIT_USAGE;
}
