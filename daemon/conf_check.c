/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What only the whole configuration can tell (conf_check), and what it says
 * against this box (conf_check_box): tdpd --check runs both, and start runs
 * both before anything opens, so that --check refuses what start would, at
 * the option's line.
 */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "conf_priv.h"
#include "hostpath.h"
#include "pmd.h"
#include "tb_phc.h"

static size_t opt_index(const struct conf_opt *o)
{
	return (size_t)(o - conf_opts);
}

/* where a [global] option was set, for a message at its line */
static const char *gfile(const struct conf *c, const char *name, uint32_t *line)
{
	size_t i = opt_index(conf_find(name, CS_GLOBAL));
	*line = c->set_line[i];
	return c->set_file[i]	? c->set_file[i]
	       : c->set_line[i] ? "command line"
	       : c->nfiles	? c->files[0]
				: "config";
}

static const char *pfile(const struct conf_port *cp, const char *name, uint32_t *line)
{
	size_t i = opt_index(conf_find(name, CS_PORT));
	*line = cp->set_line[i] ? cp->set_line[i] : cp->line;
	return cp->set_line[i] && cp->set_file[i] ? cp->set_file[i] : cp->file;
}

/* The same DPDK device (name before the first comma) or the same kernel
 * interface behind two vdevs. */
static bool same_device(const char *a, const char *b)
{
	size_t la = strcspn(a, ","), lb = strcspn(b, ",");
	if (la == lb && strncmp(a, b, la) == 0)
		return true;
	const char *ia = strstr(a, "iface="), *ib = strstr(b, "iface=");
	if (!ia || !ib)
		return false;
	ia += 6;
	ib += 6;
	size_t na = strcspn(ia, ","), nb = strcspn(ib, ",");
	return na == nb && strncmp(ia, ib, na) == 0;
}

/* rx-cpus, phc-tick, launch-margin against launch-lead */
static int check_globals(const struct conf *c, FILE *err)
{
	int errors = 0;
	int rxc[CONF_MAX_RX_CPUS];
	char rxwhy[160];
	if (conf_rx_cpus(c->rx_cpus, rxc, rxwhy, sizeof(rxwhy)) < 0) {
		size_t i = opt_index(conf_find("rx-cpus", CS_GLOBAL));
		conf_error_at(err, c->set_file[i] ? c->set_file[i] : "command line", c->set_line[i],
			      "rx-cpus %s", rxwhy);
		errors++;
	}
	int po, pi;
	const struct tb_phc_params *phc = conf_tb_own(c, &tb_phc_ops);
	if (phc && tb_phc_pins(phc->tick, &po, &pi)) {
		size_t oi = (size_t)(conf_find("phc-tick", CS_GLOBAL) - conf_opts);
		conf_error_at(
			err, c->set_file[oi] ? c->set_file[oi] : "command line", c->set_line[oi],
			"phc-tick '%s': give none, or two different pin numbers OUT,IN", phc->tick);
		errors++;
	}
	if (c->launch_margin_ns >= c->launch_lead_ns) {
		size_t mi = opt_index(conf_find("launch-margin", CS_GLOBAL)),
		       li = opt_index(conf_find("launch-lead", CS_GLOBAL));
		size_t at = c->set_line[mi] ? mi : li;
		conf_error_at(
			err, c->set_file[at] ? c->set_file[at] : "command line", c->set_line[at],
			"launch-margin (%" PRId64 " ns) must be below launch-lead (%" PRId64 " ns)",
			c->launch_margin_ns, c->launch_lead_ns);
		errors++;
	}
	return errors;
}

/* every required option given, in [global] and in each port */
static int check_required(const struct conf *c, FILE *err)
{
	int errors = 0;
	for (const struct conf_opt *o = conf_opts; o->name; o++) {
		if (!o->required)
			continue;
		if (o->sect == CS_GLOBAL && !c->set_line[opt_index(o)]) {
			conf_error_at(err, c->nfiles ? c->files[0] : "config", 0,
				      "'%s' is required in [global] (%s)", o->name, o->doc);
			errors++;
		}
		for (uint32_t p = 0; o->sect == CS_PORT && p < c->nports; p++)
			if (!c->ports[p].set_line[opt_index(o)]) {
				conf_error_at(err, c->ports[p].file, c->ports[p].line,
					      "[port %s] needs '%s' (%s)", c->ports[p].name,
					      o->name, o->doc);
				errors++;
			}
	}
	return errors;
}

/* each port's host path and exception interface, no two on one device or interface */
static int check_ports(const struct conf *c, FILE *err)
{
	int errors = 0;
	size_t hpi = opt_index(conf_find("host-path", CS_PORT)),
	       hii = opt_index(conf_find("host-interface", CS_PORT));
	char taps[CONF_MAX_PORTS][IF_NAMESIZE];
	for (uint32_t p = 0; p < c->nports; p++) {
		const struct conf_port *cp = &c->ports[p];
		int mode;
		char why[200];
		taps[p][0] = 0;
		if (!cp->device[0])
			continue;
		if (hp_mode_for(cp->name, cp->device, (int)cp->host_path, cp->host_interface, &mode,
				taps[p], why, sizeof(why)) != 0) {
			size_t at = cp->set_line[hii] ? hii : cp->set_line[hpi] ? hpi : 0;
			conf_error_at(err, at ? cp->set_file[at] : cp->file,
				      at ? cp->set_line[at] : cp->line, "[port %s] %s", cp->name,
				      why);
			errors++;
		}
		for (uint32_t q = 0; q < p && taps[p][0]; q++)
			if (strcmp(taps[p], taps[q]) == 0) {
				conf_error_at(
					err, cp->file, cp->line,
					"[port %s] has the exception interface %s of [port %s]: "
					"name one with host-interface",
					cp->name, taps[p], c->ports[q].name);
				errors++;
			}
	}
	for (uint32_t p = 0; p < c->nports; p++)
		for (uint32_t q = 0; q < p; q++)
			if (c->ports[p].device[0] &&
			    same_device(c->ports[p].device, c->ports[q].device)) {
				conf_error_at(err, c->ports[p].file, c->ports[p].line,
					      "[port %s] uses the device or interface of [port %s]",
					      c->ports[p].name, c->ports[q].name);
				errors++;
			}
	return errors;
}

int conf_check(const struct conf *c, FILE *err)
{
	int errors = check_globals(c, err) + check_required(c, err);
	if (c->nports == 0) {
		conf_error_at(err, c->nfiles ? c->files[0] : "config", 0, "no [port NAME] section");
		errors++;
	}
	return errors + check_ports(c, err);
}

/* The kernel interface a vdev names (iface=), or "". */
static void iface_of(const char *device, char out[IF_NAMESIZE])
{
	hp_devarg(device, "iface", out, IF_NAMESIZE);
}

int conf_check_box(const struct conf *c, FILE *err)
{
	int errors = 0;
	uint32_t line;
	const char *f;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	/* CPUs this box has: an out-of-range CPU is a configuration error, not a DPDK one */
	static const char *const cpu_opts[] = {"engine-cpu", "housekeeping-cpu"};
	int64_t cpus[] = {c->engine_cpu, c->housekeeping_cpu};
	for (int i = 0; i < 2; i++)
		if (cpus[i] >= ncpu) {
			f = gfile(c, cpu_opts[i], &line);
			conf_error_at(err, f, line, "%s %lld: this machine has CPUs 0..%ld online",
				      cpu_opts[i], (long long)cpus[i], ncpu - 1);
			errors++;
		}
	int rx[CONF_MAX_RX_CPUS];
	char why[160];
	int nrx = conf_rx_cpus(c->rx_cpus, rx, why, sizeof(why));
	int64_t engine = c->engine_cpu < 0 ? ncpu - 1 : c->engine_cpu;
	if (engine == c->housekeeping_cpu && engine < ncpu) {
		f = gfile(c, "engine-cpu", &line);
		fprintf(err,
			"%s:%u: warning: the frame engine shares CPU %lld with RX and "
			"housekeeping: give it a CPU of "
			"its own (engine-cpu) for precise frame starts\n",
			f, line, (long long)engine);
	}
	for (int i = 0; i < nrx; i++) {
		f = gfile(c, "rx-cpus", &line);
		if (rx[i] >= ncpu) {
			conf_error_at(err, f, line,
				      "rx-cpus: CPU %d: this machine has CPUs 0..%ld online", rx[i],
				      ncpu - 1);
			errors++;
		} else if (rx[i] == engine || rx[i] == c->housekeeping_cpu) {
			/* start warns of it too: a shared CPU works, slower */
			fprintf(err,
				"%s:%u: warning: rx-cpus: CPU %d is %s's too: give each RX core a "
				"CPU of its own\n",
				f, line, rx[i],
				rx[i] == engine ? "the frame engine" : "housekeeping");
		}
	}
	if (c->xdp_program[0]) {
		struct stat st;
		f = gfile(c, "xdp-program", &line);
		const char *bad = stat(c->xdp_program, &st) != 0 ? strerror(errno)
				  : !S_ISREG(st.st_mode)	 ? "not a file"
								 : NULL;
		if (bad) {
			conf_error_at(err, f, line, "xdp-program %s: %s", c->xdp_program, bad);
			errors++;
		}
	}
	for (uint32_t p = 0; p < c->nports; p++) {
		const struct conf_port *cp = &c->ports[p];
		if (cp->tx_launch == PMD_LAUNCH_ON && !pmd_is_pci(cp->device)) {
			/* the vdevs tdpd runs on have no send-on-timestamp offload */
			f = pfile(cp, "tx-launch", &line);
			conf_error_at(err, f, line,
				      "[port %s] tx-launch on: %.*s offers no send-on-timestamp "
				      "offload (a "
				      "NIC's PMD may): auto or off",
				      cp->name, (int)strcspn(cp->device, ","), cp->device);
			errors++;
		}
		if (!cp->host_interface[0])
			continue;
		for (uint32_t q = 0; q < c->nports; q++) {
			char ifn[IF_NAMESIZE];
			iface_of(c->ports[q].device, ifn);
			if (ifn[0] && !strcmp(ifn, cp->host_interface)) {
				f = pfile(cp, "host-interface", &line);
				conf_error_at(err, f, line,
					      "[port %s] host-interface %s is the interface of "
					      "[port %s]'s "
					      "device: name the exception interface otherwise",
					      cp->name, cp->host_interface, c->ports[q].name);
				errors++;
			}
		}
	}
	return errors;
}

int conf_check_table(const struct conf *c, uint64_t tf_ns, FILE *err)
{
	uint32_t line;
	const char *f = gfile(c, "launch-lead", &line);
	/* left at its default the lead is cut to half the TF; given, it is at
	 * most that (tdpd.conf(5)), whichever ports launch */
	if (line && (uint64_t)c->launch_lead_ns > tf_ns / 2) {
		conf_error_at(err, f, line,
			      "launch-lead %" PRId64
			      " ns is more than half the table's TF (%" PRIu64 " ns)",
			      c->launch_lead_ns, tf_ns);
		return 1;
	}
	return 0;
}
