/* SPDX-License-Identifier: BSD-3-Clause */
/* The planner (sched_plan.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sched_plan.h"

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

#define PERR(pl, line, ...)                                                   \
	do {                                                                  \
		fprintf(stderr, "%s:%u: error: ", (pl)->file, (unsigned)(line)); \
		fprintf(stderr, __VA_ARGS__);                                 \
		fputc('\n', stderr);                                          \
		(pl)->errors++;                                               \
	} while (0)

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
	if (!n || n >= SCHED_NAME_MAX || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

static int num_time(struct plan *pl, uint32_t line, const char *what, const char *s, uint64_t *ns)
{
	const char *why;
	if (!s || sched_num_time(s, strlen(s), ns, &why)) {
		PERR(pl, line, "%s: '%s' is not a time (%s)", what, s ? s : "", s ? why : "missing");
		return -1;
	}
	return 0;
}

static int num_uint(struct plan *pl, uint32_t line, const char *what, const char *s, uint64_t lo, uint64_t hi,
		    uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = s ? strtoull(s, &end, 10) : 0;
	if (!s || !*s || *s == '-' || *end || errno || x < lo || x > hi) {
		PERR(pl, line, "%s must be a whole number in %" PRIu64 "..%" PRIu64 " (got '%s')", what, lo, hi, s ? s : "");
		return -1;
	}
	*v = x;
	return 0;
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
		PERR(pl, line, "no node named '%s' (nodes are declared before the links that use them)", nm);
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

static void parse_line(struct plan *pl, uint32_t line, char **w, int n, bool *have_ver)
{
	uint64_t v;
	if (!*have_ver) {
		if (n != 2 || strcmp(w[0], "tdp-topology") || strcmp(w[1], "1")) {
			PERR(pl, line, "the first line must be 'tdp-topology 1'");
			return;
		}
		*have_ver = true;
		return;
	}
	if (!strcmp(w[0], "tf") && n == 2) {
		num_time(pl, line, "tf", w[1], &pl->tf_ns);
	} else if (!strcmp(w[0], "k") && n == 2) {
		if (num_uint(pl, line, "k", w[1], 1, PLAN_MAX_K, &v) == 0)
			pl->k = (uint32_t)v;
	} else if (!strcmp(w[0], "guard") && n == 2) {
		num_time(pl, line, "guard", w[1], &pl->guard_ns);
	} else if (!strcmp(w[0], "epoch") && n == 2) {
		num_time(pl, line, "epoch", w[1], &pl->epoch_ns);
	} else if (!strcmp(w[0], "clock-error") && n == 2) {
		num_time(pl, line, "clock-error", w[1], &pl->clock_err_ns);
	} else if (!strcmp(w[0], "host") || !strcmp(w[0], "router")) {
		if (n < 2 || !name_ok(w[1])) {
			PERR(pl, line, "%s needs a name (letters, digits, _ - ., at most 31)", w[0]);
			return;
		}
		if (node_find(pl, w[1]) >= 0 || pl->nnodes == PLAN_MAX_NODES) {
			PERR(pl, line, pl->nnodes == PLAN_MAX_NODES ? "too many nodes" : "node %s declared twice", w[1]);
			return;
		}
		struct node nd = {.router = w[0][0] == 'r', .min_alpha = 1, .line = line};
		snprintf(nd.name, sizeof(nd.name), "%s", w[1]);
		for (int i = 2; i < n; i += 2) {
			const char *val = i + 1 < n ? w[i + 1] : NULL;
			if (!nd.router) {
				PERR(pl, line, "a host takes no attributes ('%s')", w[i]);
				return;
			}
			if (!strcmp(w[i], "node-id")) {
				if (num_uint(pl, line, "node-id", val, 0, 65535, &v) == 0)
					nd.id = (uint32_t)v;
			} else if (!strcmp(w[i], "processing")) {
				num_time(pl, line, "processing", val, &nd.proc_ns);
			} else if (!strcmp(w[i], "min-alpha")) {
				if (num_uint(pl, line, "min-alpha", val, 1, 1000000, &v) == 0)
					nd.min_alpha = (uint32_t)v;
			} else {
				PERR(pl, line, "unknown router attribute '%s' (node-id, processing, min-alpha)", w[i]);
				return;
			}
		}
		pl->nodes[pl->nnodes++] = nd;
	} else if (!strcmp(w[0], "link")) {
		if (pl->nlinks == PLAN_MAX_LINKS) {
			PERR(pl, line, "too many links");
			return;
		}
		struct link l = {.line = line};
		bool have_rate = false;
		if (n < 3 || parse_end(pl, line, w[1], &l.e[0]) || parse_end(pl, line, w[2], &l.e[1]))
			return;
		for (int i = 3; i < n; i += 2) {
			const char *val = i + 1 < n ? w[i + 1] : NULL, *why;
			if (!strcmp(w[i], "rate")) {
				if (!val || sched_num_rate(val, strlen(val), &l.rate_bps, &why) || !l.rate_bps) {
					PERR(pl, line, "rate: '%s' is not a rate such as 1Gbit/s", val ? val : "");
					return;
				}
				have_rate = true;
			} else if (!strcmp(w[i], "delay")) {
				if (num_time(pl, line, "delay", val, &l.delay_ns))
					return;
			} else {
				PERR(pl, line, "unknown link attribute '%s' (rate, delay)", w[i]);
				return;
			}
		}
		if (!have_rate) {
			PERR(pl, line, "a link needs a rate");
			return;
		}
		for (uint32_t j = 0; j < pl->nlinks; j++)
			for (int a = 0; a < 2; a++)
				for (int b = 0; b < 2; b++)
					if (pl->links[j].e[a].node == l.e[b].node && !strcmp(pl->links[j].e[a].port, l.e[b].port)) {
						PERR(pl, line, "port %s:%s is already on the link of line %u", pl->nodes[l.e[b].node].name,
						     l.e[b].port, pl->links[j].line);
						return;
					}
		pl->links[pl->nlinks++] = l;
	} else if (!strcmp(w[0], "flow")) {
		if (n < 2 || !name_ok(w[1]) || pl->nflows == PLAN_MAX_FLOWS) {
			PERR(pl, line, pl->nflows == PLAN_MAX_FLOWS ? "too many flows" : "flow needs a name");
			return;
		}
		struct preq f = {.line = line, .src = UINT32_MAX, .dst = UINT32_MAX};
		snprintf(f.name, sizeof(f.name), "%s", w[1]);
		for (uint32_t j = 0; j < pl->nflows; j++)
			if (!strcmp(pl->flows[j].name, f.name)) {
				PERR(pl, line, "flow %s requested twice (first at line %u)", f.name, pl->flows[j].line);
				return;
			}
		int i = 2;
		for (; i < n; i++) {
			const char *val = i + 1 < n ? w[i + 1] : NULL;
			if (!strcmp(w[i], "from") || !strcmp(w[i], "to")) {
				int nd = val ? node_find(pl, val) : -1;
				if (nd < 0) {
					PERR(pl, line, "%s: no node named '%s'", w[i], val ? val : "");
					return;
				}
				*(w[i][0] == 'f' ? &f.src : &f.dst) = (uint32_t)nd;
				i++;
			} else if (!strcmp(w[i], "path")) {
				for (i++; i < n && strcmp(w[i], "packets") && strcmp(w[i], "size") && strcmp(w[i], "match") &&
					  strcmp(w[i], "frames") && strcmp(w[i], "stamp"); i++) {
					int nd = node_find(pl, w[i]);
					if (nd < 0 || f.npath == PLAN_MAX_PATH) {
						PERR(pl, line, nd < 0 ? "path: no node named '%s'" : "path: longer than %s nodes",
						     nd < 0 ? w[i] : "32");
						return;
					}
					f.path[f.npath++] = (uint32_t)nd;
				}
				i--;
				f.explicit_path = true;
			} else if (!strcmp(w[i], "packets")) {
				if (num_uint(pl, line, "packets", val, 1, 65535, &v))
					return;
				f.packets = (uint32_t)v;
				i++;
			} else if (!strcmp(w[i], "size")) {
				if (num_uint(pl, line, "size (bytes without FCS, jumbo frames included)", val, 1, 9018, &v))
					return;
				f.size = (uint32_t)v;
				i++;
			} else if (!strcmp(w[i], "stamp")) {
				f.stamp = true;
			} else if (!strcmp(w[i], "frames")) {
				char err[160];
				if (!pl->k) {
					PERR(pl, line, "frames: give k before the flows");
					return;
				}
				f.frames = calloc(pl->k, 1);
				if (!f.frames || !val || sched_frameset_parse(val, pl->k, f.frames, err, sizeof(err))) {
					PERR(pl, line, "frames: %s", val ? err : "missing");
					free(f.frames);
					return;
				}
				i++;
			} else if (!strcmp(w[i], "match")) {
				size_t at = 0;
				for (i++; i < n; i++)
					at += (size_t)snprintf(f.match + at, at < sizeof(f.match) ? sizeof(f.match) - at : 0, "%s%s",
							       at ? " " : "", w[i]);
				if (at >= sizeof(f.match) || !at) {
					PERR(pl, line, at ? "match is too long" : "match needs keys, as in a table: dscp 46 udp-dport 7350");
					return;
				}
			} else {
				PERR(pl, line, "unknown flow attribute '%s' (from, to, path, packets, size, frames, stamp, match)", w[i]);
				return;
			}
		}
		if (f.explicit_path) {
			if (f.npath < 3) {
				PERR(pl, line, "flow %s: a path runs from a host through at least one router to a host", f.name);
				return;
			}
			f.src = f.path[0];
			f.dst = f.path[f.npath - 1];
		}
		if (f.src == UINT32_MAX || f.dst == UINT32_MAX || !f.packets || !f.size || !f.match[0]) {
			PERR(pl, line, "flow %s needs from, to (or path), packets, size and match", f.name);
			free(f.frames);
			return;
		}
		/* the match as a table will read it */
		char tbl[400];
		int tn = snprintf(tbl, sizeof(tbl), "tdp-schedule 1\ntf 1ms\nk 1\nport p rate 1Gbit/s\nflow x port p size 100 %s\n",
				  f.match);
		struct sched_diags d;
		sched_diags_init(&d, pl->file);
		struct sched_table *st = sched_parse(tbl, (size_t)tn, &d);
		if (!st) {
			PERR(pl, line, "flow %s: match '%s': %s", f.name, f.match, d.n ? d.v[0].msg : "not a match");
			free(f.frames);
		} else {
			pl->flows[pl->nflows++] = f;
		}
		sched_free(st);
		sched_diags_free(&d);
	} else {
		PERR(pl, line, "unknown directive '%s' (tdp-topology, tf, k, guard, epoch, clock-error, host, router, link, "
			       "flow)", w[0]);
	}
}

int plan_read(struct plan *pl, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "tdpctl plan: %s: %s\n", path, strerror(errno));
		return -1;
	}
	int rc = plan_read_stream(pl, f);
	if (f != stdin)
		fclose(f);
	return rc;
}

int plan_read_stream(struct plan *pl, FILE *f)
{
	char buf[4096];
	uint32_t line = 0;
	bool have_ver = false;
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		char *w[128];
		int n = 0;
		for (char *save = NULL, *t = strtok_r(buf, " \t\r\n", &save); t && n < 128; t = strtok_r(NULL, " \t\r\n", &save))
			w[n++] = t;
		if (n)
			parse_line(pl, line, w, n, &have_ver);
	}
	if (!have_ver)
		PERR(pl, 1, "empty topology: expected 'tdp-topology 1'");
	if (!pl->tf_ns || !pl->k)
		PERR(pl, 1, "tf and k are required");
	else if (SCHED_NS_PER_S % (pl->tf_ns * pl->k) || pl->tf_ns * pl->k > SCHED_NS_PER_S)
		PERR(pl, 1, "k x TF must divide one second");
	else if (pl->guard_ns >= pl->tf_ns)
		PERR(pl, 1, "the guard band must be shorter than TF");
	return pl->errors ? -1 : 0;
}

/* The link between nodes a and b and the direction from a, or -1. */
static int link_between(const struct plan *pl, uint32_t a, uint32_t b, uint8_t *dir)
{
	for (uint32_t l = 0; l < pl->nlinks; l++)
		for (int d = 0; d < 2; d++)
			if (pl->links[l].e[d].node == a && pl->links[l].e[1 - d].node == b) {
				*dir = (uint8_t)d;
				return (int)l;
			}
	return -1;
}

/* Fewest hops from src to dst, through routers only. */
static int shortest_path(const struct plan *pl, struct preq *f)
{
	int prev[PLAN_MAX_NODES], q[PLAN_MAX_NODES], qh = 0, qt = 0;
	for (uint32_t i = 0; i < pl->nnodes; i++)
		prev[i] = -2;
	prev[f->src] = -1;
	q[qt++] = (int)f->src;
	while (qh < qt) {
		int a = q[qh++];
		if ((uint32_t)a == f->dst)
			break;
		if ((uint32_t)a != f->src && !pl->nodes[a].router)
			continue; /* hosts do not forward */
		for (uint32_t b = 0; b < pl->nnodes; b++) {
			uint8_t d;
			if (prev[b] == -2 && link_between(pl, (uint32_t)a, b, &d) >= 0) {
				prev[b] = a;
				q[qt++] = (int)b;
			}
		}
	}
	if (prev[f->dst] == -2)
		return -1;
	uint32_t rev[PLAN_MAX_PATH], n = 0;
	for (int x = (int)f->dst; x != -1 && n < PLAN_MAX_PATH; x = prev[x])
		rev[n++] = (uint32_t)x;
	f->npath = n;
	for (uint32_t i = 0; i < n; i++)
		f->path[i] = rev[n - 1 - i];
	return 0;
}

uint64_t plan_wire_bits(const struct plan *pl, uint32_t size)
{
	return ((uint64_t)(size < SCHED_MIN_FRAME ? SCHED_MIN_FRAME : size) + pl->overhead) * 8;
}

uint64_t plan_cap_bits(const struct plan *pl, const struct link *l)
{
	__extension__ typedef unsigned __int128 u128;
	return (uint64_t)((u128)(pl->tf_ns - pl->guard_ns) * l->rate_bps / SCHED_NS_PER_S);
}

/* Sum of alphas up to hop h (the frame offset at which path[h] sends). */
uint64_t plan_shift(const struct preq *f, uint32_t h)
{
	uint64_t a = 0;
	for (uint32_t x = 1; x <= h; x++)
		a += f->alpha[x];
	return a;
}

static uint32_t fits_at(const struct plan *pl, const struct preq *f, uint32_t i, uint32_t *block)
{
	uint64_t bits = plan_wire_bits(pl, f->size);
	uint32_t best = UINT32_MAX;
	for (uint32_t h = 0; h + 1 < f->npath; h++) {
		const struct link *l = &pl->links[f->link[h]];
		uint32_t fr = (uint32_t)((i + plan_shift(f, h)) % pl->k);
		uint64_t room = plan_cap_bits(pl, l) - l->used[f->dir[h]][fr];
		uint32_t n = (uint32_t)(room / bits);
		if (n < best) {
			best = n;
			*block = h;
		}
	}
	return best;
}

static int plan_flow(struct plan *pl, struct preq *f)
{
	if (!f->explicit_path && shortest_path(pl, f)) {
		PERR(pl, f->line, "flow %s: no path from %s to %s through routers", f->name, pl->nodes[f->src].name,
		     pl->nodes[f->dst].name);
		return -1;
	}
	if (pl->nodes[f->src].router || pl->nodes[f->dst].router) {
		PERR(pl, f->line, "flow %s: flows run from a host to a host", f->name);
		return -1;
	}
	for (uint32_t h = 0; h + 1 < f->npath; h++) {
		int l = link_between(pl, f->path[h], f->path[h + 1], &f->dir[h]);
		if (l < 0) {
			PERR(pl, f->line, "flow %s: no link from %s to %s", f->name, pl->nodes[f->path[h]].name,
			     pl->nodes[f->path[h + 1]].name);
			return -1;
		}
		if (h > 0 && !pl->nodes[f->path[h]].router) {
			PERR(pl, f->line, "flow %s: %s is a host and does not forward", f->name, pl->nodes[f->path[h]].name);
			return -1;
		}
		f->link[h] = (uint32_t)l;
	}
	/* the smallest alpha per router the rule allows */
	for (uint32_t h = 1; h + 1 < f->npath; h++) {
		const struct node *r = &pl->nodes[f->path[h]];
		const struct link *in = &pl->links[f->link[h - 1]];
		uint64_t late = pl->tf_ns - pl->guard_ns + in->delay_ns + r->proc_ns + pl->clock_err_ns;
		uint64_t a = (late + pl->tf_ns - 1) / pl->tf_ns;
		if (a < r->min_alpha)
			a = r->min_alpha;
		f->alpha[h] = (uint32_t)(a ? a : 1);
	}
	f->count = calloc(pl->k, sizeof(*f->count));
	if (!f->count)
		return -1;
	/* place packets one at a time, spread over the allowed ingress frames */
	uint32_t ncand = 0;
	for (uint32_t i = 0; i < pl->k; i++)
		if (!f->frames || f->frames[i])
			ncand++;
	uint32_t *cl = calloc(ncand + 1, sizeof(*cl)), *blocked = calloc(pl->k, sizeof(*blocked));
	if (!cl || !blocked) {
		free(cl);
		free(blocked);
		return -1;
	}
	ncand = 0;
	for (uint32_t i = 0; i < pl->k; i++)
		if (!f->frames || f->frames[i])
			cl[ncand++] = i;
	uint64_t bits = plan_wire_bits(pl, f->size);
	uint32_t placed = 0;
	for (uint32_t p = 0; p < f->packets; p++) {
		uint32_t start = (uint32_t)((uint64_t)p * ncand / f->packets), got = UINT32_MAX;
		for (uint32_t x = 0; x < ncand; x++) {
			uint32_t i = cl[(start + x) % ncand], b = 0;
			if (fits_at(pl, f, i, &b) >= 1) {
				got = i;
				break;
			}
			blocked[i] = b + 1;
		}
		if (got == UINT32_MAX)
			break;
		f->count[got]++;
		for (uint32_t h = 0; h + 1 < f->npath; h++)
			pl->links[f->link[h]].used[f->dir[h]][(got + plan_shift(f, h)) % pl->k] += bits;
		placed++;
	}
	if (placed < f->packets) {
		/* which link stops which ingress frames */
		PERR(pl, f->line, "flow %s: %u of %u packets per cycle fit; every allowed ingress frame is full on some link "
				  "of the path:", f->name, placed, f->packets);
		for (uint32_t h = 0; h + 1 < f->npath; h++) {
			uint32_t *fr = calloc(pl->k, sizeof(*fr)), nf = 0;
			for (uint32_t i = 0; fr && i < pl->k; i++)
				if (blocked[i] == h + 1)
					fr[nf++] = (uint32_t)((i + plan_shift(f, h)) % pl->k);
			if (nf) {
				char s[256];
				qsort(fr, nf, sizeof(*fr), u32_cmp);
				sched_frames_format(fr, nf, s, sizeof(s));
				const struct link *l = &pl->links[f->link[h]];
				fprintf(stderr, "  link %s:%s -> %s:%s (line %u) has no room for a %u-byte packet in frames %s\n",
					pl->nodes[l->e[f->dir[h]].node].name, l->e[f->dir[h]].port,
					pl->nodes[l->e[1 - f->dir[h]].node].name, l->e[1 - f->dir[h]].port, l->line, f->size, s);
			}
			free(fr);
		}
	}
	free(cl);
	free(blocked);
	return placed < f->packets ? -1 : 0;
}

/* Ingress frames of a flow as a frame list. */
void plan_ingress_frames(const struct plan *pl, const struct preq *f, uint64_t add, char *out, size_t len)
{
	uint32_t *fr = calloc(pl->k, sizeof(*fr)), n = 0;
	if (!fr) {
		snprintf(out, len, "?");
		return;
	}
	for (uint32_t i = 0; i < pl->k; i++)
		if (f->count[i])
			fr[n++] = (uint32_t)((i + add) % pl->k);
	qsort(fr, n, sizeof(*fr), u32_cmp);
	sched_frames_format(fr, n, out, len);
	free(fr);
}

/* The table of node x: its link ports, the flows it sends, their frames. */
int plan_write_table(const struct plan *pl, uint32_t x, const char *dir, const char *from, char *path, size_t plen)
{
	const struct node *nd = &pl->nodes[x];
	snprintf(path, plen, "%s/%s.tdp", dir, nd->name);
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	if (!o)
		return -1;
	char t[32];
	fprintf(o, "tdp-schedule 1\n# %s %s, planned by tdpctl plan from %s", nd->router ? "router" : "host", nd->name, from);
	if (nd->router)
		fprintf(o, "; run tdpd with node-id %u", nd->id);
	sched_fmt_time(pl->tf_ns, t, sizeof(t));
	fprintf(o, "\ntf %s\nk %u\n", t, pl->k);
	if (pl->epoch_ns) {
		sched_fmt_time(pl->epoch_ns, t, sizeof(t));
		fprintf(o, "epoch %s\n", t);
	}
	if (pl->guard_ns) {
		sched_fmt_time(pl->guard_ns, t, sizeof(t));
		fprintf(o, "guard %s\n", t);
	}
	for (uint32_t l = 0; l < pl->nlinks; l++)
		for (int d = 0; d < 2; d++)
			if (pl->links[l].e[d].node == x) {
				char r[32], mf[32] = "";
				sched_fmt_rate(pl->links[l].rate_bps, r, sizeof(r));
				/* room for the largest flow sent here, jumbo frames included */
				uint32_t big = 1514;
				for (uint32_t i = 0; i < pl->nflows; i++)
					for (uint32_t h = 0; h + 1 < pl->flows[i].npath; h++)
						if (pl->flows[i].link[h] == l && pl->flows[i].dir[h] == d && pl->flows[i].size > big)
							big = pl->flows[i].size;
				if (big > 1514)
					snprintf(mf, sizeof(mf), " max-frame %u", big);
				fprintf(o, "port %s rate %s%s   # to %s\n", pl->links[l].e[d].port, r, mf,
					pl->nodes[pl->links[l].e[1 - d].node].name);
			}
	for (uint32_t i = 0; i < pl->nflows; i++) {
		const struct preq *f = &pl->flows[i];
		for (uint32_t h = 0; f->count && h + 1 < f->npath; h++) {
			if (f->path[h] != x)
				continue;
			fprintf(o, "flow %s port %s size %u", f->name, pl->links[f->link[h]].e[f->dir[h]].port, f->size);
			if (h > 0) {
				const struct link *in = &pl->links[f->link[h - 1]];
				uint64_t d = in->delay_ns > pl->clock_err_ns ? in->delay_ns - pl->clock_err_ns : 0;
				uint64_t whole = d / pl->tf_ns;
				fprintf(o, " alpha %" PRIu64, f->alpha[h] - whole);
				if (d % pl->tf_ns) {
					sched_fmt_time(d % pl->tf_ns, t, sizeof(t));
					fprintf(o, " delay %s", t);
				}
				if (f->stamp)
					fprintf(o, " stamp");
			}
			fprintf(o, " %s\n", f->match);
			char fr[512];
			plan_ingress_frames(pl, f, plan_shift(f, h), fr, sizeof(fr));
			/* the same count in every frame, or one line per frame */
			uint32_t c0 = 0;
			bool same = true;
			for (uint32_t j = 0; j < pl->k; j++)
				if (f->count[j]) {
					if (c0 && f->count[j] != c0)
						same = false;
					c0 = f->count[j];
				}
			if (same) {
				fprintf(o, "frames %s: %s %u\n", fr, f->name, c0);
			} else {
				for (uint32_t j = 0; j < pl->k; j++)
					if (f->count[j])
						fprintf(o, "frame %" PRIu64 ": %s %u\n", (j + plan_shift(f, h)) % pl->k, f->name, f->count[j]);
			}
		}
	}
	fclose(o);
	/* a table the daemon takes: parse and admit it before it is written */
	struct sched_diags d;
	sched_diags_init(&d, path);
	struct sched_table *st = sched_parse(buf, len, &d);
	if (st)
		sched_admit(st, &d);
	int rc = 0;
	if (!st || d.nerr) {
		sched_diags_print(&d, stderr);
		fprintf(stderr, "tdpctl plan: the table planned for %s does not check (see above); the request is at fault "
				"when two flows can match the same packet\n", nd->name);
		rc = -1;
	} else {
		FILE *w = fopen(path, "w");
		if (!w || fwrite(buf, 1, len, w) != len || fclose(w) != 0) {
			fprintf(stderr, "tdpctl plan: %s: %s\n", path, strerror(errno));
			rc = -1;
		}
	}
	sched_free(st);
	sched_diags_free(&d);
	free(buf);
	return rc;
}


int plan_place(struct plan *pl)
{
	for (uint32_t l = 0; l < pl->nlinks; l++)
		for (int d = 0; d < 2; d++) {
			pl->links[l].used[d] = calloc(pl->k, sizeof(uint64_t));
			if (!pl->links[l].used[d]) {
				fprintf(stderr, "tdpctl plan: out of memory\n");
				pl->errors++;
				return -1;
			}
		}
	for (uint32_t i = 0; i < pl->nflows; i++)
		plan_flow(pl, &pl->flows[i]);
	return pl->errors ? -1 : 0;
}

void plan_free(struct plan *pl)
{
	for (uint32_t l = 0; l < pl->nlinks; l++)
		for (int d = 0; d < 2; d++) {
			free(pl->links[l].used[d]);
			pl->links[l].used[d] = NULL;
		}
	for (uint32_t i = 0; i < pl->nflows; i++) {
		free(pl->flows[i].frames);
		free(pl->flows[i].count);
		pl->flows[i].frames = NULL;
		pl->flows[i].count = NULL;
	}
}

bool plan_node_has_table(const struct plan *pl, uint32_t x)
{
	bool sends = false;
	for (uint32_t i = 0; i < pl->nflows; i++)
		for (uint32_t h = 0; h + 1 < pl->flows[i].npath; h++)
			sends |= pl->flows[i].path[h] == x;
	bool linked = false;
	for (uint32_t l = 0; l < pl->nlinks; l++)
		linked |= pl->links[l].e[0].node == x || pl->links[l].e[1].node == x;
	/* a router with no link has no port to schedule */
	return linked && (pl->nodes[x].router || sends);
}
