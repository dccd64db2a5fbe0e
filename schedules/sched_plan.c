/* SPDX-License-Identifier: BSD-3-Clause */
/* The planner (sched_plan.h): the tables; the topology file is read by
 * sched_plan_read.c, the flows placed by sched_plan_place.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched_plan.h"

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

#define PERR(pl, line, ...) plan_error(pl, line, __VA_ARGS__)

void plan_error(struct plan *pl, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	FILE *o = plan_err(pl);
	if (line)
		fprintf(o, "%s:%u: error: ", pl->file, (unsigned)line);
	else
		fprintf(o, "%s: error: ", pl->file);
	va_start(ap, fmt);
	vfprintf(o, fmt, ap);
	va_end(ap);
	fputc('\n', o);
	pl->errors++;
}

/* The time sources a topology names, each with the sync error bound it
 * gives a node when the topology does not say; tdpctl(8) gives the reasons. */
const struct plan_time_src plan_time_srcs[] = {
	{"shared", 0, "one clock for every node (the routers of one host)"},
	/* locked, the card raises its time-offset flag past 2 us (5 us on a time
	 * code): btfp.h, TFP_MR_TIMEOFF; tdpd counts the flag as a bad sample */
	{"gps", 2000, "a GPS timing card, locked, without its time-offset flag (over 2 us)"},
	/* IEEE 802.1AS-2011 B.3: two time-aware systems within seven hops agree
	 * to 1 us peak to peak; half of that to each */
	{"ptp-hw", 500,
	 "PTP with hardware timestamps: 802.1AS's 1 us between two nodes within 7 hops, half each"},
	/* ptp4l with software timestamps on veth here: offsets up to 6 us
	 * (tests/net/ptp_profiles_net.sh); a loaded host needs more */
	{"ptp-sw", 20000,
	 "PTP with software timestamps: ptp4l's offsets reached 6 us on an idle VM"},
	{NULL, 0, NULL},
};

const struct plan_time_src *plan_time_src_find(const char *name)
{
	for (const struct plan_time_src *t = plan_time_srcs; t->name; t++)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

uint64_t plan_pair_ns(const struct plan *pl, const struct link *l)
{
	return pl->nodes[l->e[0].node].sync_ns + pl->nodes[l->e[1].node].sync_ns + pl->clock_err_ns;
}

bool plan_pair_counts(const struct plan *pl, const struct link *l, int d)
{
	return pl->nodes[l->e[1 - d].node].router && plan_node_has_table(pl, l->e[d].node);
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

/* Ingress frames of a flow as a frame list. */
char *plan_ingress_frames(const struct plan *pl, const struct preq *f, uint64_t add)
{
	uint32_t *fr = calloc((size_t)pl->k + 1, sizeof(*fr)), n = 0;
	char *out = NULL;
	if (!fr)
		return NULL;
	for (uint32_t i = 0; i < pl->k; i++)
		if (f->count[i])
			fr[n++] = (uint32_t)((i + add) % pl->k);
	qsort(fr, n, sizeof(*fr), u32_cmp);
	size_t need = sched_frames_format(fr, n, NULL, 0);
	if ((out = malloc(need + 1)))
		sched_frames_format(fr, n, out, need + 1);
	free(fr);
	return out;
}

/* The text of a table, and for each line the topology line it comes from. */
struct emit {
	FILE *o;
	uint32_t *src;
	uint32_t n, cap;
	bool oom;
};

static void out_line(struct emit *e, uint32_t src, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void out_line(struct emit *e, uint32_t src, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(e->o, fmt, ap);
	va_end(ap);
	fputc('\n', e->o);
	if (e->n == e->cap) {
		uint32_t *ns = realloc(e->src, sizeof(*ns) * (e->cap = e->cap ? e->cap * 2 : 64));
		if (!ns) {
			e->oom = true;
			return;
		}
		e->src = ns;
	}
	e->src[e->n++] = src;
}

/* A flow's frames at hop h, c packets each, as frames lines of at most
 * PLAN_ROW_FRAMES frames each (a line holds at most 1,024 frame sets: rows
 * add up, so a long list is split, never cut). */
#define PLAN_ROW_FRAMES 512
static void frames_lines(const struct plan *pl, const struct preq *f, uint32_t h, uint32_t c,
			 struct emit *e)
{
	uint32_t *fr = calloc((size_t)pl->k + 1, sizeof(*fr)), n = 0;
	if (!fr) {
		e->oom = true;
		return;
	}
	uint64_t add = plan_shift(f, h);
	for (uint32_t i = 0; i < pl->k; i++)
		if (f->count[i])
			fr[n++] = (uint32_t)((i + add) % pl->k);
	qsort(fr, n, sizeof(*fr), u32_cmp);
	for (uint32_t at = 0; at < n; at += PLAN_ROW_FRAMES) {
		uint32_t m = n - at < PLAN_ROW_FRAMES ? n - at : PLAN_ROW_FRAMES;
		size_t need = sched_frames_format(fr + at, m, NULL, 0);
		char *s = malloc(need + 1);
		if (!s) {
			e->oom = true;
			break;
		}
		sched_frames_format(fr + at, m, s, need + 1);
		out_line(e, f->line, "frames %s: %s %u", s, f->name, c);
		free(s);
	}
	free(fr);
}

/* The header: version, where it came from, tf, k, epoch, guard, sync error */
static void plan_header(const struct plan *pl, uint32_t x, const char *path, struct emit *e)
{
	const struct node *nd = &pl->nodes[x];
	char t[32], from[256];
	/* the topology's name in a comment: one line, whatever the name holds */
	snprintf(from, sizeof(from), "%s", path);
	for (char *c = from; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	out_line(e, pl->l_version, "tdp-schedule 1");
	if (nd->router)
		out_line(e, nd->line,
			 "# router %s, planned by tdpctl plan from %s; run tdpd with node-id %u",
			 nd->name, from, nd->id);
	else
		out_line(e, nd->line, "# host %s, planned by tdpctl plan from %s", nd->name, from);
	sched_fmt_time(pl->tf_ns, t, sizeof(t));
	out_line(e, pl->l_tf, "tf %s", t);
	out_line(e, pl->l_k, "k %u", pl->k);
	if (pl->epoch_ns) {
		sched_fmt_time(pl->epoch_ns, t, sizeof(t));
		out_line(e, pl->l_epoch, "epoch %s", t);
	}
	if (pl->guard_ns) {
		sched_fmt_time(pl->guard_ns, t, sizeof(t));
		out_line(e, pl->l_guard, "guard %s", t);
	}
	if (pl->sync_bounds) {
		sched_fmt_time(nd->sync_ns, t, sizeof(t));
		out_line(e, nd->line, "sync-error %s   # %s", t,
			 nd->sync_given ? "as the topology gives it"
			 : nd->time	? nd->time->name
					: "none given");
	}
}

/* Link l's port on side d: its rate, and room for the largest flow sent
 * there (jumbo frames included) */
static void render_port(const struct plan *pl, uint32_t l, int d, struct emit *e)
{
	char r[32], mf[32] = "";
	sched_fmt_rate(pl->links[l].rate_bps, r, sizeof(r));
	uint32_t big = 1514;
	for (uint32_t i = 0; i < pl->nflows; i++)
		for (uint32_t h = 0; h + 1 < pl->flows[i].npath; h++)
			if (pl->flows[i].link[h] == l && pl->flows[i].dir[h] == d &&
			    pl->flows[i].size > big)
				big = pl->flows[i].size;
	if (big > 1514)
		snprintf(mf, sizeof(mf), " max-frame %u", big);
	out_line(e, pl->links[l].line, "port %s rate %s%s   # to %s", pl->links[l].e[d].port, r, mf,
		 pl->nodes[pl->links[l].e[1 - d].node].name);
}

/* Flow f at hop h > 0: its alpha, delay and stamp, into opts. The earliest
 * arrival of a push at start(u) is the link's delay less how far the two
 * clocks may be apart; whole frames of it move into alpha, and when it is
 * negative the table maps arrivals to u - 1 and sends one frame later. */
static void hop_opts(const struct plan *pl, const struct preq *f, uint32_t h, char *opts,
		     size_t len)
{
	const struct link *in = &pl->links[f->link[h - 1]];
	int64_t d = (int64_t)in->delay_ns - (int64_t)plan_pair_ns(pl, in), tf = (int64_t)pl->tf_ns;
	int64_t whole = d >= 0 ? d / tf : -((-d + tf - 1) / tf);
	int at = snprintf(opts, len, " alpha %" PRId64, (int64_t)f->alpha[h] - whole);
	if (d - whole * tf) {
		char t[32];
		sched_fmt_time((uint64_t)(d - whole * tf), t, sizeof(t));
		at += snprintf(opts + at, len - (size_t)at, " delay %s", t);
	}
	if (f->stamp)
		snprintf(opts + at, len - (size_t)at, " stamp");
}

/* Flow f's line at hop h and its frames: the same count in every frame, or
 * one line per frame */
static void render_flow(const struct plan *pl, const struct preq *f, uint32_t h, struct emit *e)
{
	char opts[96] = "";
	if (h > 0)
		hop_opts(pl, f, h, opts, sizeof(opts));
	out_line(e, f->line, "flow %s port %s size %u%s %s", f->name,
		 pl->links[f->link[h]].e[f->dir[h]].port, f->size, opts, f->match);
	uint32_t c0 = 0;
	bool same = true;
	for (uint32_t j = 0; j < pl->k; j++)
		if (f->count[j]) {
			if (c0 && f->count[j] != c0)
				same = false;
			c0 = f->count[j];
		}
	if (same)
		frames_lines(pl, f, h, c0, e);
	else
		for (uint32_t j = 0; j < pl->k; j++)
			if (f->count[j])
				out_line(e, f->line, "frame %" PRIu64 ": %s %u",
					 (j + plan_shift(f, h)) % pl->k, f->name, f->count[j]);
}

static void render(const struct plan *pl, uint32_t x, const char *path, struct emit *e)
{
	plan_header(pl, x, path, e);
	for (uint32_t l = 0; l < pl->nlinks; l++)
		for (int d = 0; d < 2; d++)
			if (pl->links[l].e[d].node == x)
				render_port(pl, l, d, e);
	for (uint32_t i = 0; i < pl->nflows; i++) {
		const struct preq *f = &pl->flows[i];
		for (uint32_t h = 0; f->count && h + 1 < f->npath; h++)
			if (f->path[h] == x)
				render_flow(pl, f, h, e);
	}
}

int plan_table_build(struct plan *pl, uint32_t x, const char *from, struct plan_table *t)
{
	struct emit e = {0};
	memset(t, 0, sizeof(*t));
	t->node = x;
	if (!(e.o = open_memstream(&t->text, &t->len))) {
		PERR(pl, 0, "out of memory");
		return -1;
	}
	render(pl, x, from, &e);
	if (fclose(e.o) != 0 || e.oom) {
		free(e.src);
		PERR(pl, 0, "out of memory");
		return -1;
	}
	t->src = e.src;
	t->nsrc = e.n;
	/* a table the daemon takes: parsed and admitted before anything is
	 * written; its errors point at the topology lines behind them */
	struct sched_diags d;
	sched_diags_init(&d, pl->file);
	struct sched_table *st = sched_parse(t->text, t->len, &d);
	if (st)
		sched_admit(st, &d);
	for (size_t i = 0; i < d.n; i++)
		if (d.v[i].sev == SCHED_ERROR)
			PERR(pl,
			     d.v[i].line && d.v[i].line <= t->nsrc ? t->src[d.v[i].line - 1] : 0,
			     "the table for %s does not check: %s", pl->nodes[x].name, d.v[i].msg);
	int rc = !st || d.nerr ? -1 : 0;
	if (d.nerr > d.n)
		PERR(pl, 0, "the table for %s: %zu more errors", pl->nodes[x].name, d.nerr - d.n);
	sched_free(st);
	sched_diags_free(&d);
	return rc;
}

void plan_table_free(struct plan_table *t)
{
	free(t->text);
	free(t->src);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

int plan_tables_write(struct plan *pl, struct plan_table *t, uint32_t n, const char *dir)
{
	uint32_t done = 0, renamed = 0;
	char *tmp = NULL;
	int rc = 0;
	for (; done < n && rc == 0; done++) {
		FILE *w = NULL;
		free(tmp);
		tmp = NULL;
		int pr = t[done].file ? asprintf(&t[done].path, "%s/%s", dir, t[done].file)
				      : asprintf(&t[done].path, "%s/%s.tdp", dir,
						 pl->nodes[t[done].node].name);
		if (pr < 0) {
			t[done].path = NULL;
			PERR(pl, 0, "out of memory");
			rc = -1;
		} else if (asprintf(&tmp, "%s.tmp", t[done].path) < 0) {
			tmp = NULL;
			PERR(pl, 0, "out of memory");
			rc = -1;
		} else if (!(w = fopen(tmp, "w")) ||
			   fwrite(t[done].text, 1, t[done].len, w) != t[done].len ||
			   fflush(w) != 0 || ferror(w)) {
			PERR(pl, 0, "%s: %s", tmp, strerror(errno));
			rc = -1;
		}
		if (w && fclose(w) != 0 && rc == 0) {
			PERR(pl, 0, "%s: %s", tmp, strerror(errno));
			rc = -1;
		}
	}
	free(tmp);
	/* every table is on disk under its temporary name: put them in place,
	 * or take every one of them away (those renamed already too: a plan
	 * half in place is worse than none) */
	for (uint32_t i = 0; i < done; i++) {
		char *tp = NULL;
		if (!t[i].path || asprintf(&tp, "%s.tmp", t[i].path) < 0)
			continue;
		if (rc == 0 && rename(tp, t[i].path) != 0) {
			PERR(pl, 0, "%s: %s; the tables of this plan already in place are removed",
			     t[i].path, strerror(errno));
			rc = -1;
			for (uint32_t j = 0; j < renamed; j++)
				unlink(t[j].path);
		} else if (rc == 0) {
			renamed++;
		}
		if (rc != 0)
			unlink(tp);
		free(tp);
	}
	return rc;
}

void plan_free(struct plan *pl)
{
	for (uint32_t l = 0; l < pl->nlinks; l++)
		for (int d = 0; d < 2; d++) {
			free(pl->links[l].used[d]);
			pl->links[l].used[d] = NULL;
		}
	for (uint32_t x = 0; x < pl->nnodes; x++) {
		struct plan_reach *r = &pl->nodes[x].reach;
		free(r->socket);
		free(r->tdpctl);
		free(r->ssh);
		for (char **w = r->exec; w && *w; w++)
			free(*w);
		free(r->exec);
		memset(r, 0, sizeof(*r));
	}
	free(pl->text);
	pl->text = NULL;
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
