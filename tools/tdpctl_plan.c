/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl plan: the command line and the report around the planner
 * (schedules/sched_plan.h, which says how it plans). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sched_plan.h"
#include "tdpctl.h"

static void plan_usage(FILE *out)
{
	fputs("usage: tdpctl plan TOPOLOGY [-o DIR] [--json]\n"
	      "  plans pipeline forwarding for the flow requests of TOPOLOGY: alpha per hop, "
	      "frames\n"
	      "  admission-checked on every link, one table per router and per sending host in "
	      "DIR\n"
	      "  with the topology, for tdpctl deploy DIR (default: print the report only); "
	      "--json\n"
	      "  writes the report as JSON\n"
	      "  TOPOLOGY: see tdpctl(8), Planning a network of routers\n",
	      out);
}

/* The routes the plan takes for granted: per router, each destination its
 * flows are routed by and the next node and port, once. Text or JSON. */
static void routes(const struct plan *pl, FILE *o, bool json)
{
	bool any = false;
	for (uint32_t x = 0; x < pl->nnodes; x++)
		for (uint32_t i = 0; i < pl->nflows; i++) {
			const struct preq *f = &pl->flows[i];
			char key[200], k2[200];
			for (uint32_t h = 1; h + 1 < f->npath; h++) {
				if (f->path[h] != x)
					continue;
				plan_route_key(pl, f, key, sizeof(key));
				bool seen = false; /* by a flow before, at this router */
				for (uint32_t j = 0; j < i && !seen; j++) {
					plan_route_key(pl, &pl->flows[j], k2, sizeof(k2));
					for (uint32_t g = 1; g + 1 < pl->flows[j].npath; g++)
						seen |= pl->flows[j].path[g] == x &&
							!strcmp(key, k2);
				}
				if (seen)
					continue;
				const struct link *l = &pl->links[f->link[h]];
				const char *via = pl->nodes[f->path[h + 1]].name,
					   *port = l->e[f->dir[h]].port;
				if (json) {
					fprintf(o,
						"%s{\"router\": \"%s\", \"to\": ", any ? ", " : "",
						pl->nodes[x].name);
					sched_json_str(o, key);
					fprintf(o, ", \"next\": \"%s\", \"port\": \"%s\"}", via,
						port);
				} else {
					fprintf(o, "%s%s: %s%s -> %s (port %s)\n",
						any ? ""
						    : "\nroutes the plan takes (routers route "
						      "a flow by its destination; a route leaving "
						      "by another port drops it):\n",
						pl->nodes[x].name, key,
						strcmp(key, pl->nodes[f->dst].name)
							? ""
							: "'s addresses",
						via, port);
				}
				any = true;
			}
		}
}

static void fmt_ns(uint64_t ns, char *s, size_t n)
{
	if (ns >= 1000000)
		snprintf(s, n, "%.3f ms", ns / 1e6);
	else
		snprintf(s, n, "%.3f us", ns / 1e3);
}

/* The sync budget: each node's sync error and where it comes from, and on
 * every link into a router how far apart its ends' frames may be, what of
 * the guard band that takes (twice it) and what alpha absorbs (it). */
static void sync_budget(const struct plan *pl, FILE *o, bool json)
{
	char a[32], b[32], c[32];
	if (json) {
		fprintf(o, "\"sync\": {\"clock_error_ns\": %" PRIu64 ", \"nodes\": [",
			pl->clock_err_ns);
		for (uint32_t x = 0; x < pl->nnodes; x++) {
			const struct node *n = &pl->nodes[x];
			fprintf(o,
				"%s{\"name\": \"%s\", \"time\": %s%s%s, \"sync_error_ns\": %" PRIu64
				", \"given\": %s}",
				x ? ", " : "", n->name, n->time ? "\"" : "",
				n->time ? n->time->name : "null", n->time ? "\"" : "", n->sync_ns,
				n->sync_given ? "true" : "false");
		}
		fputs("], \"links\": [", o);
	} else if (!pl->sync_bounds && !pl->clock_err_ns) {
		fprintf(o, "\nsync budget: no node gives a time source or sync-error, so the plan "
			   "takes every clock to "
			   "agree; give them (tdpctl(8), time and sync-error) to have the guard "
			   "band checked\n");
		return;
	} else {
		fprintf(o, "\nsync budget (frames line up across routers only as well as their "
			   "clocks agree):\n");
		for (uint32_t x = 0; x < pl->nnodes; x++) {
			const struct node *n = &pl->nodes[x];
			fmt_ns(n->sync_ns, a, sizeof(a));
			fprintf(o, "  %-12s %-8s %s%s\n", n->name, n->time ? n->time->name : "-", a,
				n->sync_given ? " (sync-error)" : "");
		}
		if (pl->clock_err_ns) {
			fmt_ns(pl->clock_err_ns, a, sizeof(a));
			fprintf(o, "  and clock-error %s on every link\n", a);
		}
	}
	bool any = false;
	for (uint32_t l = 0; l < pl->nlinks; l++)
		for (int d = 0; d < 2; d++) {
			const struct link *lk = &pl->links[l];
			if (!plan_pair_counts(pl, lk, d))
				continue;
			uint64_t pair = plan_pair_ns(pl, lk);
			const char *from = pl->nodes[lk->e[d].node].name,
				   *to = pl->nodes[lk->e[1 - d].node].name;
			if (json) {
				fprintf(o,
					"%s{\"from\": \"%s:%s\", \"to\": \"%s:%s\", \"pair_ns\": "
					"%" PRIu64 ", \"guard_needed_ns\": %" PRIu64
					", \"guard_ns\": %" PRIu64 ", \"fits\": %s}",
					any ? ", " : "", from, lk->e[d].port, to, lk->e[1 - d].port,
					pair, 2 * pair, pl->guard_ns,
					2 * pair <= pl->guard_ns ? "true" : "false");
			} else {
				fmt_ns(pair, a, sizeof(a));
				fmt_ns(2 * pair, b, sizeof(b));
				fmt_ns(pl->guard_ns, c, sizeof(c));
				fprintf(o,
					"  link %s:%s -> %s:%s: the ends' frames may be %s apart "
					"either way; the guard band "
					"takes %s of its %s, and alpha at %s adds %s to the wait\n",
					from, lk->e[d].port, to, lk->e[1 - d].port, a, b, c, to, a);
			}
			any = true;
		}
	if (json)
		fputs("]}", o);
}

/* -o DIR, --json and the topology file: 0, 1 when --help was printed, or
 * TDPCTL_EXIT_USAGE (said) */
static int plan_args(int argc, char **argv, const char **topo, const char **out, bool *json)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			plan_usage(stdout);
			return 1;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			*out = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			*json = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "tdpctl plan: unknown option '%s'\n", argv[i]);
			plan_usage(stderr);
			return TDPCTL_EXIT_USAGE;
		} else if (!*topo) {
			*topo = argv[i];
		} else {
			plan_usage(stderr);
			return TDPCTL_EXIT_USAGE;
		}
	}
	if (!*topo) {
		plan_usage(stderr);
		return TDPCTL_EXIT_USAGE;
	}
	return 0;
}

/* Every node's table built and checked before any is written, then written
 * into out with the topology (tdpctl deploy reads its router list and control
 * lines): *tab holds *ntab tables and the topology after them. 0, or the exit
 * status (said). */
static int plan_write(struct plan *pl, const char *topo, const char *out, struct plan_table **tab,
		      uint32_t *ntab)
{
	if (!(*tab = calloc(pl->nnodes + 1, sizeof(**tab)))) {
		fprintf(stderr, "tdpctl plan: out of memory\n");
		return TDPCTL_EXIT_USAGE;
	}
	int rc = 0;
	for (uint32_t x = 0; x < pl->nnodes; x++)
		if (plan_node_has_table(pl, x) &&
		    plan_table_build(pl, x, topo, &(*tab)[(*ntab)++]) != 0)
			rc = TDPCTL_EXIT_BAD;
	if (rc) {
		fprintf(stderr, "tdpctl plan: %d error%s; no tables written\n", pl->errors,
			pl->errors == 1 ? "" : "s");
		return rc;
	}
	struct plan_table *tp = &(*tab)[*ntab];
	tp->node = UINT32_MAX;
	tp->file = PLAN_TOPOLOGY_FILE;
	if (!(tp->text = malloc(pl->len + 1))) {
		fprintf(stderr, "tdpctl plan: out of memory\n");
		return TDPCTL_EXIT_USAGE;
	}
	memcpy(tp->text, pl->text, pl->len);
	tp->len = pl->len;
	struct stat st;
	if (mkdir(out, 0755) != 0 &&
	    (errno != EEXIST || stat(out, &st) != 0 || !S_ISDIR(st.st_mode))) {
		fprintf(stderr, "tdpctl plan: %s: %s\n", out,
			errno == EEXIST ? "exists and is not a directory" : strerror(errno));
		return TDPCTL_EXIT_USAGE;
	}
	if (plan_tables_write(pl, *tab, *ntab + 1, out) != 0) {
		fprintf(stderr, "tdpctl plan: no tables written\n");
		return TDPCTL_EXIT_USAGE;
	}
	return 0;
}

/* What the report says of a flow: where its last hop sends, its delay
 * bounds, its ingress frames and its alpha list. */
struct flow_bounds {
	uint32_t last;	 /* the last router's hop */
	uint64_t a;	 /* the last hop sends in ingress frame + a */
	uint64_t lo, hi; /* delay from the start of the ingress frame */
	char *frames;	 /* ingress frames, table syntax */
	char *alist;	 /* alpha per hop, "2,1,1" */
};

static int flow_bounds(const struct plan *pl, const struct preq *f, struct flow_bounds *b)
{
	b->last = f->npath - 2;
	b->a = plan_shift(f, b->last);
	const struct link *ll = &pl->links[f->link[b->last]];
	uint64_t ser =
		(plan_wire_bits(pl, f->size) * SCHED_NS_PER_S + ll->rate_bps - 1) / ll->rate_bps;
	/* the last router's frames may be off the reference by its sync error */
	uint64_t e = pl->nodes[f->path[b->last]].sync_ns;
	b->lo = b->a * pl->tf_ns + ll->delay_ns + ser;
	b->hi = b->a * pl->tf_ns + pl->tf_ns - pl->guard_ns + ll->delay_ns + e;
	b->lo = b->lo > e ? b->lo - e : 0;
	b->alist = NULL;
	b->frames = plan_ingress_frames(pl, f, 0);
	size_t alen = 0;
	FILE *am = open_memstream(&b->alist, &alen);
	for (uint32_t h = 1; am && h <= b->last; h++)
		fprintf(am, "%s%u", h > 1 ? "," : "", f->alpha[h]);
	if (!am || fclose(am) != 0 || !b->frames) {
		fprintf(stderr, "tdpctl plan: out of memory\n");
		free(b->frames);
		free(b->alist);
		return -1;
	}
	return 0;
}

static void flow_json(FILE *o, const struct plan *pl, const struct preq *f,
		      const struct flow_bounds *b, bool first)
{
	fprintf(o, "%s{\"name\": \"%s\", \"path\": [", first ? "" : ", ", f->name);
	for (uint32_t h = 0; h < f->npath; h++)
		fprintf(o, "%s\"%s\"", h ? ", " : "", pl->nodes[f->path[h]].name);
	fprintf(o, "], \"alpha\": [");
	for (uint32_t h = 1; h <= b->last; h++)
		fprintf(o, "%s%u", h > 1 ? ", " : "", f->alpha[h]);
	fprintf(o, "], \"alpha_least\": [");
	for (uint32_t h = 1; h <= b->last; h++)
		fprintf(o, "%s%u", h > 1 ? ", " : "", f->amin[h]);
	fprintf(o, "], \"instead_of\": ");
	if (f->detour[0])
		sched_json_str(o, f->detour);
	else
		fputs("null", o);
	fprintf(o,
		", \"packets\": %u, \"size\": %u, \"ingress_frames\": \"%s\", "
		"\"frames_total\": %" PRIu64 ", \"delay_min_ns\": %" PRIu64
		", \"delay_max_ns\": %" PRIu64 ", \"jitter_ns\": %" PRIu64 "}",
		f->packets, f->size, b->frames, b->a, b->lo, b->hi, b->hi - b->lo);
}

static void flow_text(FILE *o, const struct plan *pl, const struct preq *f,
		      const struct flow_bounds *b, const char *out)
{
	fprintf(o, "\nflow %s: ", f->name);
	for (uint32_t h = 0; h < f->npath; h++)
		fprintf(o, "%s%s", h ? " -> " : "", pl->nodes[f->path[h]].name);
	fprintf(o, ", %u packet%s per cycle of %u bytes\n", f->packets, f->packets == 1 ? "" : "s",
		f->size);
	if (f->detour[0])
		fprintf(o, "  (the path of the fewest routers, %s, has no room for it)\n",
			f->detour);
	fprintf(o, "  %-4s %-12s %-26s %5s  %s\n", "hop", "node", "from", "alpha",
		"sends in frames");
	fprintf(o, "  %-4u %-12s %-26s %5s  %s\n", 0u, pl->nodes[f->path[0]].name, "(ingress)", "-",
		b->frames);
	for (uint32_t h = 1; h <= b->last; h++) {
		const struct link *in = &pl->links[f->link[h - 1]];
		char from[80], *frh = plan_ingress_frames(pl, f, plan_shift(f, h));
		snprintf(from, sizeof(from), "%s:%s", pl->nodes[in->e[f->dir[h - 1]].node].name,
			 in->e[f->dir[h - 1]].port);
		fprintf(o, "  %-4u %-12s %-26s %5u  %s", h, pl->nodes[f->path[h]].name, from,
			f->alpha[h], frh ? frh : "?");
		if (f->alpha[h] != f->amin[h])
			fprintf(o, "  (raised from %u: frames full)", f->amin[h]);
		fputc('\n', o);
		free(frh);
	}
	char s1[32], s2[32], s3[32];
	fmt_ns(b->lo, s1, sizeof(s1));
	fmt_ns(b->hi, s2, sizeof(s2));
	fmt_ns(b->hi - b->lo, s3, sizeof(s3));
	fprintf(o,
		"  the last hop sends in ingress frame + %" PRIu64
		"; delay from the start of the ingress frame "
		"%s .. %s, jitter at most %s (under one TF)\n",
		b->a, s1, s2, s3);
	if (f->stamp)
		fprintf(o,
			"  verify: tdp-probe send --table %s/%s.tdp --flow %s --stamps %u "
			"...; tdp-probe recv "
			"--alpha %s --frame-delay %" PRIu64 " ...\n",
			out ? out : "DIR", pl->nodes[f->path[0]].name, f->name, b->last, b->alist,
			b->a);
}

/* each direction of a link on some path: its busiest frame and its mean */
static void links_text(FILE *o, const struct plan *pl)
{
	for (uint32_t l = 0; l < pl->nlinks; l++)
		for (int d = 0; d < 2; d++) {
			const struct link *lk = &pl->links[l];
			uint64_t sum = 0, mx = 0;
			if (!lk->used[d])
				continue; /* on no path */
			for (uint32_t j = 0; j < pl->k; j++) {
				sum += lk->used[d][j];
				if (lk->used[d][j] > mx)
					mx = lk->used[d][j];
			}
			if (!sum)
				continue;
			fprintf(o,
				"link %s:%s -> %s:%s: reserved %.1f%% of the frame at "
				"most, %.1f%% on average\n",
				pl->nodes[lk->e[d].node].name, lk->e[d].port,
				pl->nodes[lk->e[1 - d].node].name, lk->e[1 - d].port,
				100.0 * (double)mx / (double)plan_cap_bits(pl, lk),
				100.0 * (double)sum / pl->k / (double)plan_cap_bits(pl, lk));
		}
}

/* the tables written, and the end of the report */
static void tables_report(FILE *o, const struct plan_table *tab, uint32_t ntab, const char *out,
			  bool json)
{
	if (json) {
		fprintf(o, "], \"tables\": [");
		for (uint32_t x = 0; x < ntab; x++) {
			fputs(x ? ", " : "", o);
			sched_json_str(o, tab[x].path); /* a directory's name may need escapes */
		}
		fprintf(o, "]");
		if (out) {
			fprintf(o, ", \"topology\": ");
			sched_json_str(o, tab[ntab].path);
		}
		fprintf(o, "}\n");
		return;
	}
	for (uint32_t x = 0; x < ntab; x++)
		fprintf(o, "wrote %s\n", tab[x].path);
	if (out)
		fprintf(o,
			"wrote %s (the topology, for tdpctl deploy)\ndeploy: tdpctl deploy "
			"%s (--check first: "
			"every router stages its table, then drops it)\n",
			tab[ntab].path, out);
}

/* The report: the plan's figures, then each flow, the links, the sync
 * budget and the routes, in words or JSON; 0, or the exit status (said). */
static int plan_report(FILE *o, const struct plan *pl, const char *topo, const char *out, bool json)
{
	char tf[32];
	sched_fmt_time(pl->tf_ns, tf, sizeof(tf));
	if (json)
		fprintf(o,
			"{\"tf_ns\": %" PRIu64 ", \"k\": %u, \"guard_ns\": %" PRIu64
			", \"flows\": [",
			pl->tf_ns, pl->k, pl->guard_ns);
	else
		fprintf(o, "plan from %s: TF %s, k %u, guard %" PRIu64 " ns, %u flows\n", topo, tf,
			pl->k, pl->guard_ns, pl->nflows);
	for (uint32_t i = 0; i < pl->nflows; i++) {
		struct flow_bounds b;
		if (flow_bounds(pl, &pl->flows[i], &b) != 0)
			return TDPCTL_EXIT_USAGE;
		if (json)
			flow_json(o, pl, &pl->flows[i], &b, i == 0);
		else
			flow_text(o, pl, &pl->flows[i], &b, out);
		free(b.frames);
		free(b.alist);
	}
	if (json) {
		fprintf(o, "], ");
		sync_budget(pl, o, true);
		fprintf(o, ", \"routes\": [");
		routes(pl, o, true);
	} else {
		fprintf(o, "\n");
		links_text(o, pl);
		sync_budget(pl, o, false);
		routes(pl, o, false);
	}
	return 0;
}

int tdpctl_plan(int argc, char **argv)
{
	const char *topo = NULL, *out = NULL;
	bool json = false;
	int rc = plan_args(argc, argv, &topo, &out, &json);
	if (rc)
		return rc == 1 ? 0 : rc;
	static struct plan pl;
	struct plan_table *tab = NULL;
	uint32_t ntab = 0;
	memset(&pl, 0, sizeof(pl));
	pl.file = topo;
	pl.overhead = 24;
	if (plan_read(&pl, topo)) {
		rc = TDPCTL_EXIT_BAD;
		goto done;
	}
	if (plan_place(&pl) != 0) {
		fprintf(stderr, "tdpctl plan: %d error%s; no tables written\n", pl.errors,
			pl.errors == 1 ? "" : "s");
		rc = TDPCTL_EXIT_BAD;
		goto done;
	}
	if (out && (rc = plan_write(&pl, topo, out, &tab, &ntab)) != 0)
		goto done;
	rc = plan_report(stdout, &pl, topo, out, json);
	if (!rc)
		tables_report(stdout, tab, ntab, out, json);
done:
	for (uint32_t x = 0; tab && x <= ntab; x++)
		plan_table_free(&tab[x]);
	free(tab);
	plan_free(&pl);
	return rc;
}
