/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The planner's topology file (sched_plan.h): read whole, at most
 * PLAN_MAX_BYTES, lines of any length, words without a count limit, every
 * setting and attribute given once, every bound an error at its line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sched_plan.h"

#define PERR(pl, line, ...) plan_error(pl, line, __VA_ARGS__)

static int node_find(const struct plan *pl, const char *name)
{
	for (uint32_t i = 0; i < pl->nnodes; i++)
		if (!strcmp(pl->nodes[i].name, name))
			return (int)i;
	return -1;
}

static bool name_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n >= SCHED_NAME_MAX ||
	    !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

static int num_time(struct plan *pl, uint32_t line, const char *what, const char *s, uint64_t max,
		    uint64_t *ns)
{
	const char *why = "missing";
	char m[32];
	uint64_t v;
	if (s && sched_num_time(s, strlen(s), &v, &why) == 0) {
		if (v <= max) {
			*ns = v;
			return 0;
		}
		why = "too large";
	}
	sched_fmt_time(max, m, sizeof(m));
	PERR(pl, line, "%s: '%s' is not a time up to %s (%s)", what, s ? s : "", m, why);
	return -1;
}

static int num_uint(struct plan *pl, uint32_t line, const char *what, const char *s, uint64_t lo,
		    uint64_t hi, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = s ? strtoull(s, &end, 10) : 0;
	if (!s || !*s || *s == '-' || *end || errno || x < lo || x > hi) {
		PERR(pl, line, "%s must be a whole number in %" PRIu64 "..%" PRIu64 " (got '%s')",
		     what, lo, hi, s ? s : "");
		return -1;
	}
	*v = x;
	return 0;
}

/* A setting or an attribute given twice: the second is an error naming the first. */
static bool twice(struct plan *pl, uint32_t line, uint32_t *first, const char *what)
{
	if (*first) {
		PERR(pl, line, "%s given twice (first at line %u)", what, *first);
		return true;
	}
	*first = line;
	return false;
}

/* "NODE:PORT" */
static int parse_end(struct plan *pl, uint32_t line, const char *s, struct end *e)
{
	const char *c = s ? strchr(s, ':') : NULL;
	char nm[SCHED_NAME_MAX];
	if (!c || (size_t)(c - s) >= sizeof(nm)) {
		PERR(pl, line, "link ends are NODE:PORT (got '%s')", s ? s : "");
		return -1;
	}
	memcpy(nm, s, (size_t)(c - s));
	nm[c - s] = 0;
	int n = node_find(pl, nm);
	if (n < 0) {
		PERR(pl, line,
		     "no node named '%s' (nodes are declared before the links that use them)", nm);
		return -1;
	}
	if (!name_ok(c + 1)) {
		PERR(pl, line, "bad port name '%s'", c + 1);
		return -1;
	}
	e->node = (uint32_t)n;
	snprintf(e->port, sizeof(e->port), "%s", c + 1);
	return 0;
}

/* A time source by name, or an error naming them. */
static const struct plan_time_src *time_src(struct plan *pl, uint32_t line, const char *v)
{
	const struct plan_time_src *t = v ? plan_time_src_find(v) : NULL;
	if (!t) {
		char names[128] = "";
		size_t at = 0;
		for (const struct plan_time_src *x = plan_time_srcs; x->name && at < sizeof(names);
		     x++)
			at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s",
					       at ? ", " : "", x->name);
		if (v)
			PERR(pl, line, "time: '%s' is no time source (%s)", v, names);
		else
			PERR(pl, line, "time needs a source (%s)", names);
	}
	return t;
}

static void parse_node(struct plan *pl, uint32_t line, char **w, int n)
{
	uint64_t v;
	uint32_t seen[5] = {0};
	if (n < 2 || !name_ok(w[1])) {
		PERR(pl, line, "%s needs a name (letters, digits, _ - ., at most 31)", w[0]);
		return;
	}
	int dup = node_find(pl, w[1]);
	if (dup >= 0 || pl->nnodes == PLAN_MAX_NODES) {
		if (dup >= 0)
			PERR(pl, line, "node %s declared twice (first at line %u)", w[1],
			     pl->nodes[dup].line);
		else
			PERR(pl, line, "more than %d nodes", PLAN_MAX_NODES);
		return;
	}
	struct node nd = {.router = w[0][0] == 'r', .min_alpha = 1, .line = line};
	snprintf(nd.name, sizeof(nd.name), "%s", w[1]);
	for (int i = 2; i < n; i += 2) {
		const char *val = i + 1 < n ? w[i + 1] : NULL;
		int rc;
		if (!strcmp(w[i], "time")) {
			if (twice(pl, line, &seen[3], "time"))
				return;
			rc = (nd.time = time_src(pl, line, val)) ? 0 : -1;
		} else if (!strcmp(w[i], "sync-error")) {
			if (twice(pl, line, &seen[4], "sync-error"))
				return;
			rc = num_time(pl, line, "sync-error", val, PLAN_MAX_PROC_NS, &nd.sync_ns);
			nd.sync_given = true;
		} else if (!nd.router) {
			PERR(pl, line, "unknown host attribute '%s' (time, sync-error)", w[i]);
			return;
		} else if (!strcmp(w[i], "node-id")) {
			if (twice(pl, line, &seen[0], "node-id"))
				return;
			if ((rc = num_uint(pl, line, "node-id", val, 0, 65535, &v)) == 0)
				nd.id = (uint32_t)v;
		} else if (!strcmp(w[i], "processing")) {
			if (twice(pl, line, &seen[1], "processing"))
				return;
			rc = num_time(pl, line, "processing", val, PLAN_MAX_PROC_NS, &nd.proc_ns);
		} else if (!strcmp(w[i], "min-alpha")) {
			if (twice(pl, line, &seen[2], "min-alpha"))
				return;
			if ((rc = num_uint(pl, line, "min-alpha", val, 1, PLAN_MAX_ALPHA, &v)) == 0)
				nd.min_alpha = (uint32_t)v;
		} else {
			PERR(pl, line,
			     "unknown router attribute '%s' (node-id, processing, min-alpha, time, "
			     "sync-error)",
			     w[i]);
			return;
		}
		if (rc)
			return;
	}
	pl->nodes[pl->nnodes++] = nd;
}

static void parse_link(struct plan *pl, uint32_t line, char **w, int n)
{
	uint32_t seen[2] = {0};
	if (pl->nlinks == PLAN_MAX_LINKS) {
		PERR(pl, line, "more than %d links", PLAN_MAX_LINKS);
		return;
	}
	struct link l = {.line = line};
	if (n < 3) {
		PERR(pl, line,
		     "a link joins two ends: link NODE:PORT NODE:PORT rate RATE [delay TIME]");
		return;
	}
	if (parse_end(pl, line, w[1], &l.e[0]) || parse_end(pl, line, w[2], &l.e[1]))
		return;
	if (l.e[0].node == l.e[1].node) {
		PERR(pl, line, "a link joins two nodes, not %s to itself",
		     pl->nodes[l.e[0].node].name);
		return;
	}
	for (int i = 3; i < n; i += 2) {
		const char *val = i + 1 < n ? w[i + 1] : NULL, *why;
		if (!strcmp(w[i], "rate")) {
			if (twice(pl, line, &seen[0], "rate"))
				return;
			if (!val || sched_num_rate(val, strlen(val), &l.rate_bps, &why) ||
			    !l.rate_bps) {
				PERR(pl, line, "rate: '%s' is not a rate such as 1Gbit/s",
				     val ? val : "");
				return;
			}
		} else if (!strcmp(w[i], "delay")) {
			if (twice(pl, line, &seen[1], "delay") ||
			    num_time(pl, line, "delay", val, PLAN_MAX_DELAY_NS, &l.delay_ns))
				return;
		} else {
			PERR(pl, line, "unknown link attribute '%s' (rate, delay)", w[i]);
			return;
		}
	}
	if (!seen[0]) {
		PERR(pl, line, "a link needs a rate");
		return;
	}
	for (uint32_t j = 0; j < pl->nlinks; j++)
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 2; b++)
				if (pl->links[j].e[a].node == l.e[b].node &&
				    !strcmp(pl->links[j].e[a].port, l.e[b].port)) {
					PERR(pl, line,
					     "port %s:%s is already on the link of line %u",
					     pl->nodes[l.e[b].node].name, l.e[b].port,
					     pl->links[j].line);
					return;
				}
	pl->links[pl->nlinks++] = l;
}

static char *dup_word(struct plan *pl, uint32_t line, const char *w)
{
	char *d = strdup(w);
	if (!d)
		PERR(pl, line, "out of memory");
	return d;
}

/* exec COMMAND...: the rest of the line from w[i + 1]; 0 or -1 said */
static int control_exec(struct plan *pl, uint32_t line, char **w, int n, int i,
			struct plan_reach *nr)
{
	if (nr->ssh || i + 1 == n) {
		PERR(pl, line,
		     nr->ssh ? "control %s: ssh or exec, not both"
			     : "control %s: exec needs a command",
		     w[1]);
		return -1;
	}
	if (!(nr->exec = calloc((size_t)(n - i), sizeof(*nr->exec)))) {
		PERR(pl, line, "out of memory");
		return -1;
	}
	for (int k = i + 1; k < n; k++)
		if (!(nr->exec[k - i - 1] = dup_word(pl, line, w[k])))
			return -1;
	return 0;
}

/* socket, tdpctl or ssh's value val into *slot of nr; 0 or -1 said */
static int control_value(struct plan *pl, uint32_t line, const char *node, const char *key,
			 const char *val, char **slot, struct plan_reach *nr)
{
	if (!slot) {
		PERR(pl, line, "unknown control attribute '%s' (socket, tdpctl, ssh, exec)", key);
		return -1;
	}
	if (*slot || !val) {
		PERR(pl, line,
		     *slot ? "control %s: %s given twice" : "control %s: %s needs a value", node,
		     key);
		return -1;
	}
	if (slot == &nr->socket && val[0] != '/') {
		PERR(pl, line, "control %s: socket takes an absolute path, not '%s'", node, val);
		return -1;
	}
	if (slot == &nr->ssh && val[0] == '-') {
		PERR(pl, line,
		     "control %s: ssh takes a destination ([USER@]HOST), not the option '%s'", node,
		     val);
		return -1;
	}
	return (*slot = dup_word(pl, line, val)) ? 0 : -1;
}

/* control NODE [socket PATH] [tdpctl PATH] [ssh DEST | exec WORD...]: how
 * tdpctl deploy reaches the router's tdpd. exec takes the rest of the line. */
static void parse_control(struct plan *pl, uint32_t line, char **w, int n)
{
	int x = n >= 2 ? node_find(pl, w[1]) : -1;
	if (x < 0 || !pl->nodes[x].router) {
		PERR(pl, line,
		     "control names a router declared before it (control ROUTER [socket PATH] "
		     "[tdpctl PATH] "
		     "[ssh DEST | exec COMMAND...]), not '%s'",
		     n >= 2 ? w[1] : "");
		return;
	}
	struct plan_reach *r = &pl->nodes[x].reach, nr = {.line = line};
	if (r->line) {
		PERR(pl, line, "control %s given twice (first at line %u)", w[1], r->line);
		return;
	}
	for (int i = 2; i < n; i++) {
		const char *key = w[i], *val = i + 1 < n ? w[i + 1] : NULL;
		char **slot = !strcmp(key, "socket")   ? &nr.socket
			      : !strcmp(key, "tdpctl") ? &nr.tdpctl
			      : !strcmp(key, "ssh")    ? &nr.ssh
						       : NULL;
		if (!strcmp(key, "exec")) {
			if (control_exec(pl, line, w, n, i, &nr))
				goto bad;
			break; /* the rest of the line */
		}
		if (control_value(pl, line, w[1], key, val, slot, &nr))
			goto bad;
		i++;
	}
	*r = nr;
	return;
bad:
	free(nr.socket);
	free(nr.tdpctl);
	free(nr.ssh);
	for (char **q = nr.exec; q && *q; q++)
		free(*q);
	free(nr.exec);
}

enum {
	FA_FROM,
	FA_TO,
	FA_PATH,
	FA_PACKETS,
	FA_SIZE,
	FA_FRAMES,
	FA_STAMP,
	FA_MATCH,
	FA_N
};

/* A flow attribute's FA_ index, or FA_N for a word that is none. */
static int flow_attr_index(const char *s)
{
	static const char *const kw[FA_N] = {"from", "to",     "path",	"packets",
					     "size", "frames", "stamp", "match"};
	int i = 0;
	while (i < FA_N && strcmp(s, kw[i]))
		i++;
	return i;
}

/* path NODE...: the words up to the next attribute; *i at its last node */
static int fa_path(struct plan *pl, uint32_t line, char **w, int n, int *i, struct preq *f)
{
	for ((*i)++; *i < n && flow_attr_index(w[*i]) == FA_N; (*i)++) {
		int nd = node_find(pl, w[*i]);
		if (nd < 0) {
			PERR(pl, line, "path: no node named '%s'", w[*i]);
			return -1;
		}
		for (uint32_t h = 0; h < f->npath; h++)
			if (f->path[h] == (uint32_t)nd) {
				PERR(pl, line, "path: %s appears twice (a path visits a node once)",
				     w[*i]);
				return -1;
			}
		f->path[f->npath++] = (uint32_t)nd; /* distinct nodes: at most PLAN_MAX_NODES */
	}
	(*i)--;
	f->explicit_path = true;
	return 0;
}

/* frames SET: the frames the flow may leave its source in */
static int fa_frames(struct plan *pl, uint32_t line, const char *val, struct preq *f)
{
	char err[160];
	if (!pl->k) {
		PERR(pl, line, "frames: give k before the flows");
		return -1;
	}
	f->frames = calloc(pl->k, 1);
	if (!f->frames || !val || sched_frameset_parse(val, pl->k, f->frames, err, sizeof(err))) {
		PERR(pl, line, "frames: %s", val ? (f->frames ? err : "out of memory") : "missing");
		return -1;
	}
	return 0;
}

/* match KEY VALUE...: the rest of the line, as a table's flow line has it */
static int fa_match(struct plan *pl, uint32_t line, char **w, int n, int *i, struct preq *f)
{
	size_t at = 0;
	for ((*i)++; *i < n; (*i)++) {
		size_t wl = strlen(w[*i]);
		if (at + (at ? 1 : 0) + wl >= sizeof(f->match)) {
			PERR(pl, line, "match is longer than %zu characters", sizeof(f->match) - 1);
			return -1;
		}
		if (at)
			f->match[at++] = ' ';
		memcpy(f->match + at, w[*i], wl + 1);
		at += wl;
	}
	if (!at) {
		PERR(pl, line, "match needs keys, as in a table: dscp 46 udp-dport 7350");
		return -1;
	}
	return 0;
}

/* One flow attribute at w[*i]; advances *i past its values. 0 or -1. */
static int flow_attr(struct plan *pl, uint32_t line, char **w, int n, int *i, struct preq *f,
		     uint32_t *seen)
{
	const char *a = w[*i], *val = *i + 1 < n ? w[*i + 1] : NULL;
	uint64_t v;
	int which = flow_attr_index(a);
	if (which == FA_N) {
		PERR(pl, line,
		     "unknown flow attribute '%s' (from, to, path, packets, size, frames, stamp, "
		     "match)",
		     a);
		return -1;
	}
	if (twice(pl, line, &seen[which], a))
		return -1;
	switch (which) {
	case FA_FROM:
	case FA_TO: {
		int nd = val ? node_find(pl, val) : -1;
		if (nd < 0) {
			PERR(pl, line, "%s: no node named '%s'", a, val ? val : "");
			return -1;
		}
		*(which == FA_FROM ? &f->src : &f->dst) = (uint32_t)nd;
		(*i)++;
		return 0;
	}
	case FA_PATH:
		return fa_path(pl, line, w, n, i, f);
	case FA_PACKETS:
		if (num_uint(pl, line, "packets", val, 1, 65535, &v))
			return -1;
		f->packets = (uint32_t)v;
		(*i)++;
		return 0;
	case FA_SIZE:
		if (num_uint(pl, line, "size (bytes without FCS, jumbo frames included)", val, 1,
			     9018, &v))
			return -1;
		f->size = (uint32_t)v;
		(*i)++;
		return 0;
	case FA_STAMP:
		f->stamp = true;
		return 0;
	case FA_FRAMES:
		if (fa_frames(pl, line, val, f))
			return -1;
		(*i)++;
		return 0;
	default: /* match: the rest of the line */
		return fa_match(pl, line, w, n, i, f);
	}
}

static void parse_flow(struct plan *pl, uint32_t line, char **w, int n)
{
	uint32_t seen[FA_N] = {0};
	if (pl->nflows == PLAN_MAX_FLOWS) {
		PERR(pl, line, "more than %d flows", PLAN_MAX_FLOWS);
		return;
	}
	if (n < 2 || !name_ok(w[1])) {
		PERR(pl, line, "flow needs a name (letters, digits, _ - ., at most 31)");
		return;
	}
	struct preq *f = &pl->flows[pl->nflows];
	*f = (struct preq){.line = line, .src = UINT32_MAX, .dst = UINT32_MAX};
	snprintf(f->name, sizeof(f->name), "%s", w[1]);
	for (uint32_t j = 0; j < pl->nflows; j++)
		if (!strcmp(pl->flows[j].name, f->name)) {
			PERR(pl, line, "flow %s requested twice (first at line %u)", f->name,
			     pl->flows[j].line);
			return;
		}
	for (int i = 2; i < n; i++)
		if (flow_attr(pl, line, w, n, &i, f, seen))
			goto drop;
	if (f->explicit_path) {
		if (seen[FA_FROM] || seen[FA_TO]) {
			PERR(pl, line, "flow %s: path names its ends; from and to go without it",
			     f->name);
			goto drop;
		}
		if (f->npath < 3) {
			PERR(pl, line,
			     "flow %s: a path runs from a host through at least one router to a "
			     "host",
			     f->name);
			goto drop;
		}
		f->src = f->path[0];
		f->dst = f->path[f->npath - 1];
	}
	if (f->src == UINT32_MAX || f->dst == UINT32_MAX || !f->packets || !f->size ||
	    !f->match[0]) {
		PERR(pl, line, "flow %s needs from, to (or path), packets, size and match",
		     f->name);
		goto drop;
	}
	if (f->src == f->dst) {
		PERR(pl, line, "flow %s runs from %s to itself", f->name, pl->nodes[f->src].name);
		goto drop;
	}
	/* the match as a table will read it */
	char tbl[400];
	int tn = snprintf(
		tbl, sizeof(tbl),
		"tdp-schedule 1\ntf 1ms\nk 1\nport p rate 1Gbit/s\nflow x port p size 100 %s\n",
		f->match);
	struct sched_diags d;
	sched_diags_init(&d, pl->file);
	struct sched_table *st = sched_parse(tbl, (size_t)tn, &d);
	if (!st)
		PERR(pl, line, "flow %s: match '%s': %s", f->name, f->match,
		     d.n ? d.v[0].msg : "not a match");
	else
		pl->nflows++;
	sched_free(st);
	sched_diags_free(&d);
	if (st)
		return;
drop:
	free(f->frames);
	f->frames = NULL;
}

/* A setting of one value (tf, k, guard, epoch, clock-error, time): 1 when
 * w[0] names one (read, or said wrong), 0 when it does not. */
static int parse_setting(struct plan *pl, uint32_t line, char **w, int n)
{
	static const char *const names[] = {"tf",	   "k",	   "guard", "epoch",
					    "clock-error", "time", NULL};
	int which = -1;
	for (int i = 0; names[i]; i++)
		if (!strcmp(w[0], names[i]))
			which = i;
	if (which < 0)
		return 0;
	if (n != 2) {
		PERR(pl, line, "%s takes one value", w[0]);
		return 1;
	}
	uint64_t v;
	switch (which) {
	case 0:
		if (!twice(pl, line, &pl->l_tf, "tf") &&
		    num_time(pl, line, "tf", w[1], SCHED_NS_PER_S, &pl->tf_ns) == 0 &&
		    pl->tf_ns < SCHED_MIN_TF_NS) {
			PERR(pl, line, "tf must be at least %dns", SCHED_MIN_TF_NS);
			pl->tf_ns = 0;
		}
		break;
	case 1:
		if (!twice(pl, line, &pl->l_k, "k") &&
		    num_uint(pl, line, "k", w[1], 1, PLAN_MAX_K, &v) == 0)
			pl->k = (uint32_t)v;
		break;
	case 2:
		if (!twice(pl, line, &pl->l_guard, "guard"))
			num_time(pl, line, "guard", w[1], SCHED_NS_PER_S, &pl->guard_ns);
		break;
	case 3:
		if (!twice(pl, line, &pl->l_epoch, "epoch"))
			num_time(pl, line, "epoch", w[1], SCHED_NS_PER_S, &pl->epoch_ns);
		break;
	case 4:
		if (!twice(pl, line, &pl->l_clock, "clock-error"))
			num_time(pl, line, "clock-error", w[1], PLAN_MAX_PROC_NS,
				 &pl->clock_err_ns);
		break;
	default:
		if (!twice(pl, line, &pl->l_time, "time"))
			pl->time = time_src(pl, line, w[1]);
		break;
	}
	return 1;
}

static void parse_line(struct plan *pl, uint32_t line, char **w, int n)
{
	if (!pl->l_version) {
		if (n != 2 || strcmp(w[0], "tdp-topology") || strcmp(w[1], "1")) {
			PERR(pl, line, "the first line must be 'tdp-topology 1'");
			return;
		}
		pl->l_version = line;
		return;
	}
	if (parse_setting(pl, line, w, n))
		return;
	if (!strcmp(w[0], "host") || !strcmp(w[0], "router"))
		parse_node(pl, line, w, n);
	else if (!strcmp(w[0], "link"))
		parse_link(pl, line, w, n);
	else if (!strcmp(w[0], "flow"))
		parse_flow(pl, line, w, n);
	else if (!strcmp(w[0], "control"))
		parse_control(pl, line, w, n);
	else
		PERR(pl, line,
		     "unknown directive '%s' (tdp-topology, tf, k, guard, epoch, clock-error, "
		     "time, host, router, "
		     "link, flow, control)",
		     w[0]);
}

/* Line l split into words at spaces and tabs into *w (grown as needed), '#'
 * to the end of the line a comment: their count, or -1 out of memory. */
static int words(char *l, char ***w, size_t *capw)
{
	char *hash = strchr(l, '#');
	if (hash)
		*hash = 0;
	int n = 0;
	for (char *save = NULL, *t = strtok_r(l, " \t\r", &save); t;
	     t = strtok_r(NULL, " \t\r", &save)) {
		if ((size_t)n == *capw) {
			char **nw = realloc(*w, sizeof(**w) * (*capw = *capw ? *capw * 2 : 64));
			if (!nw)
				return -1;
			*w = nw;
		}
		(*w)[n++] = t;
	}
	return n;
}

/* Once every line is read: each node's sync error (its own, its source's,
 * the topology's source's) and the rules of the header. */
static void read_end(struct plan *pl)
{
	for (uint32_t x = 0; x < pl->nnodes; x++) {
		struct node *nd = &pl->nodes[x];
		if (!nd->time)
			nd->time = pl->time;
		if (!nd->sync_given && nd->time)
			nd->sync_ns = nd->time->sync_ns;
		pl->sync_bounds |= nd->sync_given || nd->time;
	}
	if (!pl->l_version)
		PERR(pl, 1, "empty topology: expected 'tdp-topology 1'");
	else if (!pl->l_tf || !pl->l_k)
		PERR(pl, pl->l_version, "tf and k are required");
	else if (!pl->tf_ns || !pl->k)
		; /* already reported at their lines */
	else if (pl->tf_ns > SCHED_NS_PER_S / pl->k || SCHED_NS_PER_S % (pl->tf_ns * pl->k))
		PERR(pl, pl->l_k, "k x TF must divide one second");
	else if (pl->guard_ns >= pl->tf_ns)
		PERR(pl, pl->l_guard, "the guard band must be shorter than TF");
	else if (pl->epoch_ns >= pl->tf_ns * pl->k)
		PERR(pl, pl->l_epoch, "epoch must be less than the cycle");
}

/* The whole text, line by line (words()). */
int plan_read_text(struct plan *pl, const char *buf, size_t len)
{
	char *s = malloc(len + 1), **w = NULL;
	size_t capw = 0;
	uint32_t line = 0;
	int n = 0;
	if (!s) {
		PERR(pl, 0, "out of memory");
		return -1;
	}
	memcpy(s, buf, len);
	s[len] = 0;
	free(pl->text);
	if ((pl->text = malloc(len + 1)) != NULL) {
		memcpy(pl->text, buf, len);
		pl->text[len] = 0;
		pl->len = len;
	} else {
		PERR(pl, 0, "out of memory");
	}
	for (size_t off = 0; off < len && n >= 0;) {
		char *l = s + off, *nl = memchr(l, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - l) : len - off;
		off += ll + 1;
		line++;
		l[ll] = 0;
		if (strlen(l) != ll) {
			PERR(pl, line, "a NUL byte at column %zu: not a topology", strlen(l) + 1);
			continue;
		}
		n = words(l, &w, &capw);
		if (n < 0)
			PERR(pl, line, "out of memory");
		else if (n)
			parse_line(pl, line, w, n);
	}
	if (n >= 0)
		read_end(pl);
	free(w);
	free(s);
	return pl->errors ? -1 : 0;
}

int plan_read_stream(struct plan *pl, FILE *f)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nb = NULL;
			if (cap > PLAN_MAX_BYTES) {
				PERR(pl, 0, "more than %d MiB: not a topology",
				     PLAN_MAX_BYTES >> 20);
			} else if (!(nb = realloc(buf, ncap > PLAN_MAX_BYTES + 1u
							       ? PLAN_MAX_BYTES + 1u
							       : ncap))) {
				PERR(pl, 0, "out of memory");
			}
			if (!nb) {
				free(buf);
				return -1;
			}
			buf = nb;
			cap = ncap > PLAN_MAX_BYTES + 1u ? PLAN_MAX_BYTES + 1u : ncap;
		}
		size_t r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		PERR(pl, 0, "read error: %s", strerror(errno));
		free(buf);
		return -1;
	}
	int rc = plan_read_text(pl, buf ? buf : "", len);
	free(buf);
	return rc;
}

int plan_read(struct plan *pl, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct stat st;
	if (!f) {
		fprintf(stderr, "tdpctl plan: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tdpctl plan: %s: is a directory, not a topology\n", path);
		fclose(f);
		return -1;
	}
	int rc = plan_read_stream(pl, f);
	if (f != stdin)
		fclose(f);
	return rc;
}
