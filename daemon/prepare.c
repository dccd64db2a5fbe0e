/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpd's configuration phase (tdpd --check stops after it): the table to run
 * (tdpd.conf's, or the one saved in force at the last stop), the routes, and
 * what one frame may hold on this box.
 */
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "kif.h"
#include "tdpd.h"
#include "tstate.h"

/* A relative table path in a file is relative to that file. */
void tdpd_resolve_schedule(struct tdpd *d)
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

/* An error at a tdpd.conf item, said as FILE:LINE: error: ...; 1 (one error) */
__attribute__((format(printf, 2, 3))) static int item_err(const struct conf_item *it,
							  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s:%u: error: ", it->file, it->line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 1;
}

/* address ADDR/LEN of port p: 0, or 1 said */
static int add_address(struct router *rt, uint32_t p, const struct conf_item *it)
{
	char err[256];
	int fam;
	uint8_t a[16];
	unsigned len;
	if (route_parse_prefix(it->val, &fam, a, &len) != 0)
		return item_err(it, "address '%s': expected ADDR/LEN, e.g. 10.0.2.1/24", it->val);
	if (router_add_address(rt, p, fam, a, len, err, sizeof(err)) != 0)
		return item_err(it, "address %s: %s", it->val, err);
	return 0;
}

/* neighbour ADDR MAC of port p: 0, or 1 said */
static int add_neighbour(struct router *rt, uint32_t p, const struct conf_item *it)
{
	char err[256], ip[128], mac[64], extra[8];
	int fam;
	uint8_t a[16], m[6];
	if (sscanf(it->val, "%127s %63s %7s", ip, mac, extra) != 2 ||
	    route_parse_addr(ip, &fam, a) != 0 || route_parse_mac(mac, m) != 0)
		return item_err(it,
				"neighbour '%s': expected ADDR MAC, e.g. 10.0.2.2 "
				"02:00:00:00:02:02",
				it->val);
	if (router_add_neighbour(rt, p, fam, a, m, err, sizeof(err)) != 0)
		return item_err(it, "neighbour %s: %s", ip, err);
	return 0;
}

/* route PREFIX via ADDR of port p: 0, or 1 said */
static int add_route(struct router *rt, uint32_t p, const struct conf_item *it)
{
	char err[256], pfx[128], via[8], gw[128], extra[8];
	int fam, gfam;
	uint8_t a[16], g[16];
	unsigned len;
	if (sscanf(it->val, "%127s %7s %127s %7s", pfx, via, gw, extra) != 3 ||
	    strcmp(via, "via") || route_parse_prefix(pfx, &fam, a, &len) != 0 ||
	    route_parse_addr(gw, &gfam, g) != 0 || fam != gfam)
		return item_err(it,
				"route '%s': expected PREFIX via ADDR of one family, e.g. "
				"10.9.0.0/16 via 10.0.2.9",
				it->val);
	if (router_add_route(rt, p, fam, a, len, g, err, sizeof(err)) != 0)
		return item_err(it, "route %s: %s", pfx, err);
	return 0;
}

int tdpd_build_routes(struct tdpd *d)
{
	char err[256];
	int errors = 0;
	d->rt = router_create(d->conf.nports, err, sizeof(err));
	if (!d->rt)
		return 1;
	/* addresses and neighbours first: routes refer to neighbours */
	for (uint32_t p = 0; p < d->conf.nports; p++) {
		const struct conf_port *cp = &d->conf.ports[p];
		for (size_t i = 0; i < cp->address.n; i++)
			errors += add_address(d->rt, p, &cp->address.v[i]);
		for (size_t i = 0; i < cp->neighbour.n; i++)
			errors += add_neighbour(d->rt, p, &cp->neighbour.v[i]);
	}
	for (uint32_t p = 0; p < d->conf.nports; p++) {
		const struct conf_port *cp = &d->conf.ports[p];
		for (size_t i = 0; i < cp->route.n; i++)
			errors += add_route(d->rt, p, &cp->route.v[i]);
	}
	for (uint32_t p = 0; p < d->conf.nports; p++) {
		struct conf_port *cp = &d->conf.ports[p];
		if (cp->peer_mac[0] && route_parse_mac(cp->peer_mac, d->rxp[p].peer_mac) != 0) {
			fprintf(stderr,
				"%s:%u: error: [port %s] peer-mac '%s' is not a MAC address\n",
				cp->file, cp->line, cp->name, cp->peer_mac);
			errors++;
		}
		d->rxp[p].has_peer = cp->peer_mac[0] != 0;
	}
	return errors;
}

/* ---- the table against the configuration --------------------------------- */

uint32_t tdpd_rx_cores(const struct conf *c, int *cpus)
{
	int tmp[CONF_MAX_RX_CPUS];
	char why[160];
	int n = conf_rx_cpus(c->rx_cpus, cpus ? cpus : tmp, why, sizeof(why));
	return n > 0 ? 1 + (uint32_t)n : 1; /* refused by conf_check when < 0 */
}

/*
 * What one frame may hold on this box (sched_fit): the pool, less what the
 * ports' RX queues keep (pmd_rx_held: on af_xdp the fill rings) and TX rings
 * hold when full and what the lcores' (the engine's, the RX cores') mempool
 * caches may keep (1.5 x their size, DPDK's flush threshold); a flow's queue;
 * each table port's TX ring. Before the ports are open the configured
 * descriptor counts, after it the ones the PMD set up.
 */
void tdpd_fit_limits(struct tdpd *d, const struct sched_table *t)
{
	uint32_t ncores = tdpd_rx_cores(&d->conf, NULL);
	uint64_t held = (1 + ncores) * (PMD_POOL_CACHE + PMD_POOL_CACHE / 2);
	for (uint32_t p = 0; p < d->conf.nports; p++) {
		bool open = p < d->nports_open;
		uint16_t q = open ? d->ports[p].nrxq : d->hp[p].queues;
		if (!open && pmd_is_pci(d->conf.ports[p].device))
			q = (uint16_t)ncores;
		held += pmd_rx_held(d->conf.ports[p].device, q,
				    open ? d->ports[p].rxd : (uint16_t)d->conf.ports[p].rx_desc);
		held += open ? d->ports[p].txd : (uint64_t)d->conf.ports[p].tx_desc;
		int mode;
		char tap[IF_NAMESIZE], e[8];
		const struct conf_port *cp = &d->conf.ports[p];
		if (hp_mode_for(cp->name, cp->device, (int)cp->host_path, cp->host_interface, &mode,
				tap, e, sizeof(e)) == 0 &&
		    mode == RXH_TAP)
			held += HP_TAP_RXD;
	}
	for (uint32_t tp = 0; tp < t->nports; tp++) {
		uint32_t p = d->table_to_port[tp];
		d->fit_txd[tp] =
			p < d->nports_open ? d->ports[p].txd : (uint32_t)d->conf.ports[p].tx_desc;
		d->fit_mtu[tp] = p < d->nports_open ? PL_GET(d->link[p].mtu) : 0;
		if (p >= d->nports_open) {
			/* before the ports open (and in --check): the interface's own */
			char ifn[IF_NAMESIZE];
			hp_devarg(d->conf.ports[p].device, "iface", ifn, sizeof(ifn));
			int mtu = ifn[0] ? kif_mtu(ifn) : -1;
			d->fit_mtu[tp] = mtu > 0 ? (uint32_t)mtu : 0;
		}
	}
	d->fit = (struct sched_fit){.mbufs = (uint64_t)d->conf.mbufs,
				    .mbufs_held = held,
				    .flow_depth = (uint32_t)d->conf.flow_queue_depth,
				    .tx_desc = d->fit_txd,
				    .mtu = d->fit_mtu};
}

/* the table at d->schedule_path, admitted, its ports in tdpd.conf, its
 * frames within what this box holds: the errors printed */
static int load_one(struct tdpd *d)
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
			fprintf(stderr,
				"%s:%u: error: the table's port %s has no [port %s] section in "
				"%s\n",
				d->schedule_path, d->t->ports[tp].line, d->t->ports[tp].name,
				d->t->ports[tp].name,
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
		tdpd_fit_limits(d, d->t);
		sched_diags_init(&dg, d->schedule_path);
		errors += (int)sched_fit(d->t, &d->fit, &dg);
		sched_diags_print(&dg, stderr);
		sched_diags_free(&dg);
	}
	return errors;
}

/* SHA-256 of a file's bytes, as sched_digest gives it of a table read from
 * it; "" when it cannot be read */
static void file_digest(const char *path, char hex[SCHED_DIGEST_HEX])
{
	hex[0] = 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		char *b = realloc(buf, cap * 2);
		if (!b || cap >= SCHED_MAX_BYTES) {
			free(b ? b : buf);
			buf = NULL;
			break;
		}
		buf = b;
		cap *= 2;
	}
	if (buf && !ferror(f))
		sched_digest_bytes(buf, n, hex);
	free(buf);
	fclose(f);
}

/*
 * The table to start with. The network runs the table last put in force
 * (by schedule load or commit, tdpctl deploy): with start-table saved, the
 * default, a restart resumes it from the state directory, and says so when
 * tdpd.conf names another. A saved record of tdpd.conf's own table is no
 * reason to resume: tdpd.conf is its source, and an edit there is meant.
 * A saved table that no longer fits this configuration is said, and
 * tdpd.conf's runs.
 */
int tdpd_load_table(struct tdpd *d)
{
	char conf_path[PATH_MAX], err[400], conf_digest[SCHED_DIGEST_HEX];
	snprintf(conf_path, sizeof(conf_path), "%s", d->schedule_path);
	snprintf(d->origin, sizeof(d->origin), "%s", TS_VIA_CONFIG);
	d->resumed = false;
	const char *dir = d->conf.state_directory;
	int rc = tstate_read(dir, &d->saved, err, sizeof(err));
	if (rc < 0)
		log_warn("%s: it is ignored, tdpd.conf's table runs", err);
	file_digest(conf_path, conf_digest);
	bool differs = rc == 0 && strcmp(d->saved.digest, conf_digest) != 0;
	if (rc == 0 && strcmp(d->saved.via, TS_VIA_CONFIG) != 0 && differs) {
		if (d->conf.start_table == START_TABLE_CONFIG) {
			log_warn("start-table config: tdpd.conf's table %s (digest %.16s) runs, "
				 "not the one in force at the "
				 "last stop (%s by %s at frame %" PRId64
				 ", digest %.16s): this router may now run another "
				 "plan than its neighbours",
				 conf_path, conf_digest, d->saved.name, d->saved.via,
				 d->saved.frame, d->saved.digest);
		} else {
			snprintf(d->schedule_path, sizeof(d->schedule_path), "%s", d->saved.path);
			char got[SCHED_DIGEST_HEX] = "";
			int errors = load_one(d);
			if (d->t)
				sched_digest(d->t, got);
			if (!errors && !strcmp(got, d->saved.digest)) {
				d->resumed = true;
				snprintf(d->origin, sizeof(d->origin), "%s", d->saved.via);
				log_notice("resuming the table in force at the last stop: %s, put "
					   "in force by %s at frame %" PRId64
					   " (digest %.16s, kept in %s), not tdpd.conf's %s "
					   "(digest %.16s): the "
					   "network runs it (start-table saved)",
					   d->saved.name, d->saved.via, d->saved.frame,
					   d->saved.digest, dir, conf_path, conf_digest);
				return 0;
			}
			log_err("the table in force at the last stop (%s, %s at frame %" PRId64
				", kept as %s) %s: "
				"tdpd.conf's %s runs instead, and this router may now run another "
				"plan than its "
				"neighbours",
				d->saved.name, d->saved.via, d->saved.frame, d->saved.path,
				errors ? "does not fit this configuration (above)"
				       : "is not the table its record names",
				conf_path);
			sched_free(d->t);
			d->t = NULL;
			snprintf(d->schedule_path, sizeof(d->schedule_path), "%s", conf_path);
		}
	} else if (rc == 0 && differs) {
		log_notice(
			"tdpd.conf's table %s changed since the last run (digest %.16s, was %.16s)",
			conf_path, conf_digest, d->saved.digest);
	}
	return load_one(d);
}
