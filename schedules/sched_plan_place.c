/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The planner's placement (sched_plan.h): for each flow in the order given,
 * the candidate paths (the flow's own, or every simple path through routers
 * of the fewest routers and up to PLAN_PATH_SLACK more, at most
 * PLAN_MAX_PATHS of them, fewest first), and on each the least alpha per hop
 * the forwarding rule allows. Its packets are placed one at a time in
 * ingress frames whose shifted frames have room on every link of the path.
 * When some do not fit, the alpha of the router sending onto the link that
 * stopped them is raised just enough to move them onto frames of that link
 * with room (at most k - 1 more: alpha + k reaches the same frames), and the
 * flow is placed again, up to PLAN_MAX_RAISES times a path; then the next
 * path. A flow keeps one path: a router sends a flow's packets out of the one
 * port its table gives the flow. A flow that fits nowhere is an error naming,
 * per path tried, the links that stopped it and their full frames.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_plan.h"

#define PERR(pl, line, ...) plan_error(pl, line, __VA_ARGS__)
#define PLAN_MAX_PATHS 8	/* candidate paths per flow */
#define PLAN_PATH_SLACK 2	/* routers more than the fewest, at most */
#define PLAN_PATH_STEPS 1000000 /* search steps per flow */
#define PLAN_MAX_RAISES 64	/* alpha raises per path */

/* Who is linked to whom, once per plan: CSR lists of (link, direction). */
struct adj {
	uint32_t off[PLAN_MAX_NODES + 1];
	uint32_t link[2 * PLAN_MAX_LINKS];
	uint8_t dir[2 * PLAN_MAX_LINKS];
};

static void adj_build(const struct plan *pl, struct adj *a)
{
	uint32_t n = 0;
	for (uint32_t x = 0; x < pl->nnodes; x++) {
		a->off[x] = n;
		for (uint32_t l = 0; l < pl->nlinks; l++)
			for (int d = 0; d < 2; d++)
				if (pl->links[l].e[d].node == x) {
					a->link[n] = l;
					a->dir[n++] = (uint8_t)d;
				}
	}
	a->off[pl->nnodes] = n;
}

static uint32_t far_end(const struct plan *pl, const struct adj *a, uint32_t i)
{
	return pl->links[a->link[i]].e[1 - a->dir[i]].node;
}

/* The link f takes from path[h] to path[h + 1] and its direction, or -1:
 * links are links, not node pairs. Where a router already sends a placed
 * flow to the same destination on to the same node, the same link (one
 * route, one port); else, of parallel links, the one with the most room
 * left over the cycle. */
static int link_for(const struct plan *pl, const struct preq *f, uint32_t h, uint8_t *dir)
{
	uint32_t a = f->path[h], b = f->path[h + 1];
	if (h >= 1) {
		char kf[200], kg[200];
		plan_route_key(pl, f, kf, sizeof(kf));
		for (const struct preq *g = pl->flows; g < f; g++) {
			if (!g->count || g->npath < 3)
				continue;
			plan_route_key(pl, g, kg, sizeof(kg));
			for (uint32_t j = 1; j + 1 < g->npath && !strcmp(kf, kg); j++)
				if (g->path[j] == a && g->path[j + 1] == b) {
					*dir = g->dir[j];
					return (int)g->link[j];
				}
		}
	}
	int best = -1;
	uint64_t room = 0;
	for (uint32_t l = 0; l < pl->nlinks; l++)
		for (int d = 0; d < 2; d++) {
			const struct link *lk = &pl->links[l];
			if (lk->e[d].node != a || lk->e[1 - d].node != b)
				continue;
			uint64_t cap = plan_cap_bits(pl, lk), r = 0;
			for (uint32_t j = 0; j < pl->k; j++)
				r += lk->used[d] ? cap - lk->used[d][j] : cap;
			if (best < 0 || r > room) {
				best = (int)l;
				*dir = (uint8_t)d;
				room = r;
			}
		}
	return best;
}

/* ---- candidate paths ---------------------------------------------------- */

struct paths {
	uint32_t n;
	uint32_t steps; /* the search's steps, for the bound */
	uint32_t len[PLAN_MAX_PATHS];
	uint32_t node[PLAN_MAX_PATHS][PLAN_MAX_NODES];
};

struct walk {
	const struct plan *pl;
	const struct adj *a;
	uint32_t dst, want, steps;
	uint32_t dist[PLAN_MAX_NODES]; /* links to dst through routers; UINT32_MAX: none */
	bool on[PLAN_MAX_NODES];
	uint32_t cur[PLAN_MAX_NODES];
	struct paths *out;
};

/* every simple path of exactly w->want nodes from cur[0..depth-1] on */
static void walk_on(struct walk *w, uint32_t depth)
{
	uint32_t x = w->cur[depth - 1];
	if (x == w->dst) {
		if (depth == w->want && w->out->n < PLAN_MAX_PATHS) {
			w->out->len[w->out->n] = depth;
			memcpy(w->out->node[w->out->n++], w->cur, depth * sizeof(w->cur[0]));
		}
		return;
	}
	if (depth > 1 && !w->pl->nodes[x].router)
		return; /* hosts do not forward */
	for (uint32_t i = w->a->off[x]; i < w->a->off[x + 1]; i++) {
		uint32_t y = far_end(w->pl, w->a, i);
		if (w->out->n == PLAN_MAX_PATHS || ++w->steps > PLAN_PATH_STEPS)
			return;
		/* y must still reach dst within the nodes left; a node behind
		 * parallel links is one step of a path (link_for picks the link) */
		if (w->on[y] || w->dist[y] == UINT32_MAX || depth + 1 + w->dist[y] > w->want)
			continue;
		bool seen = false;
		for (uint32_t j = w->a->off[x]; j < i && !seen; j++)
			seen = far_end(w->pl, w->a, j) == y;
		if (seen)
			continue;
		w->on[y] = true;
		w->cur[depth] = y;
		walk_on(w, depth + 1);
		w->on[y] = false;
	}
}

/* The flow's candidate paths, fewest routers first. */
static void candidate_paths(const struct plan *pl, const struct adj *a, const struct preq *f,
			    struct paths *out)
{
	static struct walk w;
	memset(&w, 0, sizeof(w));
	w.pl = pl;
	w.a = a;
	w.dst = f->dst;
	w.out = out;
	out->n = 0;
	out->steps = 0;
	/* distances to dst, backwards through routers (links are full duplex) */
	uint32_t q[PLAN_MAX_NODES], qh = 0, qt = 0;
	for (uint32_t i = 0; i < pl->nnodes; i++)
		w.dist[i] = UINT32_MAX;
	w.dist[f->dst] = 0;
	q[qt++] = f->dst;
	while (qh < qt) {
		uint32_t x = q[qh++];
		if (x != f->dst && !pl->nodes[x].router)
			continue; /* a host is an end, never on the way */
		for (uint32_t i = a->off[x]; i < a->off[x + 1]; i++) {
			uint32_t y = far_end(pl, a, i);
			if (w.dist[y] == UINT32_MAX) {
				w.dist[y] = w.dist[x] + 1;
				q[qt++] = y;
			}
		}
	}
	if (w.dist[f->src] == UINT32_MAX)
		return;
	uint32_t least = w.dist[f->src] + 1;
	for (w.want = least;
	     w.want <= least + PLAN_PATH_SLACK && w.want <= pl->nnodes && out->n < PLAN_MAX_PATHS;
	     w.want++) {
		w.on[f->src] = true;
		w.cur[0] = f->src;
		walk_on(&w, 1);
		w.on[f->src] = false;
	}
	out->steps = w.steps;
}

/* ---- placement on one path ---------------------------------------------- */

/* Frames placement may visit in all before it stops retrying: a bound on
 * the search, not a time. */
static uint64_t max_work(const struct plan *pl)
{
	return pl->max_work ? pl->max_work : PLAN_MAX_WORK;
}

/* How many more packets of f fit when it enters in frame i: the least over
 * the path's links (and which hop that is, in *block). */
static uint64_t fits_at(const struct plan *pl, const struct preq *f, uint32_t i, uint32_t *block)
{
	uint64_t bits = plan_wire_bits(pl, f->size), best = UINT64_MAX, shift = 0;
	for (uint32_t h = 0; h + 1 < f->npath; h++) {
		const struct link *l = &pl->links[f->link[h]];
		shift += h ? f->alpha[h] : 0;
		uint32_t fr = (uint32_t)((i + shift) % pl->k);
		uint64_t n = (plan_cap_bits(pl, l) - l->used[f->dir[h]][fr]) / bits;
		if (n < best) {
			best = n;
			*block = h;
		}
	}
	return best;
}

/* The candidate after x that is not full, with path halving: a frame found full
 * stays full for this flow, so each is passed over once. */
static uint32_t next_open(uint32_t *nx, uint32_t x)
{
	while (nx[x] != x) {
		nx[x] = nx[nx[x]];
		x = nx[x];
	}
	return x;
}

/* f's packets per ingress frame added to (sign 1) or taken from (sign -1)
 * every link of its path */
static void book(struct plan *pl, const struct preq *f, int sign)
{
	uint64_t bits = plan_wire_bits(pl, f->size);
	for (uint32_t i = 0; i < pl->k; i++) {
		if (!f->count[i])
			continue;
		uint64_t shift = 0;
		for (uint32_t h = 0; h + 1 < f->npath; h++) {
			shift += h ? f->alpha[h] : 0;
			uint64_t *u = &pl->links[f->link[h]].used[f->dir[h]][(i + shift) % pl->k];
			*u = sign > 0 ? *u + bits * f->count[i] : *u - bits * f->count[i];
		}
	}
}

/* Scratch for one flow's placement: k + 1 entries each. */
struct scratch {
	uint32_t *cl, *nx, *blocked;
};

/* Places f's packets on its path with its alphas, booked on the links as they
 * go; spread over the allowed ingress frames, each packet takes the first
 * candidate from its spread position on with room, and a full candidate is
 * skipped from then on. blocked[i]: 1 + the hop whose link stopped ingress
 * frame i. The number placed. */
static uint32_t place(struct plan *pl, struct preq *f, struct scratch *s)
{
	uint32_t ncand = 0;
	pl->work += (uint64_t)pl->k + (uint64_t)f->packets * (f->npath - 1);
	memset(f->count, 0, pl->k * sizeof(*f->count));
	memset(s->blocked, 0, pl->k * sizeof(*s->blocked));
	for (uint32_t i = 0; i < pl->k; i++)
		if (!f->frames || f->frames[i])
			s->cl[ncand++] = i;
	for (uint32_t x = 0; x <= ncand; x++)
		s->nx[x] = x;
	uint64_t bits = plan_wire_bits(pl, f->size);
	uint32_t placed = 0, open = ncand;
	for (uint32_t p = 0; p < f->packets && open; p++) {
		uint32_t x = next_open(s->nx, (uint32_t)((uint64_t)p * ncand / f->packets)),
			 got = UINT32_MAX;
		while (open) {
			if (x == ncand)
				x = next_open(s->nx, 0); /* around the cycle */
			uint32_t i = s->cl[x], b = 0;
			if (fits_at(pl, f, i, &b) >= 1) {
				got = i;
				break;
			}
			s->blocked[i] = b + 1;
			s->nx[x] = x + 1;
			open--;
			x = next_open(s->nx, x + 1);
		}
		if (got == UINT32_MAX)
			break;
		f->count[got]++;
		uint64_t shift = 0;
		for (uint32_t h = 0; h + 1 < f->npath; h++) {
			shift += h ? f->alpha[h] : 0;
			pl->links[f->link[h]].used[f->dir[h]][(got + shift) % pl->k] += bits;
		}
		placed++;
	}
	return placed;
}

/* The hop whose link stopped most ingress frames, and the first of them. */
static uint32_t worst_hop(const struct plan *pl, const struct preq *f, const struct scratch *s,
			  uint32_t *first)
{
	uint32_t n[PLAN_MAX_NODES] = {0}, best = 0;
	*first = UINT32_MAX;
	for (uint32_t i = 0; i < pl->k; i++)
		if (s->blocked[i])
			n[s->blocked[i] - 1]++;
	/* a router's link (h >= 1): the sender's own link moves with no alpha */
	for (uint32_t h = 1; h + 1 < f->npath; h++)
		if (n[h] && (!best || n[h] > n[best]))
			best = h;
	for (uint32_t i = 0; i < pl->k && *first == UINT32_MAX; i++)
		if (s->blocked[i] == best + 1)
			*first = i;
	return best;
}

/* The path's links and directions, and the least alpha per router. 0, or -1
 * said (an explicit path that is not one). */
static int path_set(struct plan *pl, struct preq *f)
{
	for (uint32_t h = 0; h + 1 < f->npath; h++) {
		int l = link_for(pl, f, h, &f->dir[h]);
		if (l < 0) {
			PERR(pl, f->line, "flow %s: no link from %s to %s", f->name,
			     pl->nodes[f->path[h]].name, pl->nodes[f->path[h + 1]].name);
			return -1;
		}
		if (h > 0 && !pl->nodes[f->path[h]].router) {
			PERR(pl, f->line, "flow %s: %s is a host and does not forward", f->name,
			     pl->nodes[f->path[h]].name);
			return -1;
		}
		f->link[h] = (uint32_t)l;
	}
	/* every term is bounded when read (TF, guard <= 1 s, delay <= 10 s,
	 * processing, clock error and each sync error <= 1 s), so the sum
	 * cannot wrap */
	for (uint32_t h = 1; h + 1 < f->npath; h++) {
		const struct node *r = &pl->nodes[f->path[h]];
		const struct link *in = &pl->links[f->link[h - 1]];
		uint64_t late =
			pl->tf_ns - pl->guard_ns + in->delay_ns + r->proc_ns + plan_pair_ns(pl, in);
		uint64_t a = (late + pl->tf_ns - 1) / pl->tf_ns;
		if (a < r->min_alpha)
			a = r->min_alpha;
		if (a > PLAN_MAX_ALPHA) {
			PERR(pl, f->line,
			     "flow %s: router %s needs alpha %" PRIu64
			     ", more than a table allows (%d): "
			     "a longer TF, or less delay or processing",
			     f->name, r->name, a, PLAN_MAX_ALPHA);
			return -1;
		}
		f->amin[h] = f->alpha[h] = (uint32_t)(a ? a : 1);
	}
	for (uint32_t h = 0; h + 1 < f->npath; h++)
		for (int d = 0; d < 2; d++) {
			struct link *l = &pl->links[f->link[h]];
			if (!l->used[d] && !(l->used[d] = calloc(pl->k, sizeof(uint64_t)))) {
				PERR(pl, f->line, "out of memory");
				return -1;
			}
		}
	return 0;
}

/* f placed whole on its path (alphas raised where frames are full): true.
 * *raises: how many times an alpha was raised. */
static bool fit_path(struct plan *pl, struct preq *f, struct scratch *s, uint32_t *placed,
		     uint32_t *raises)
{
	for (uint32_t tries = 0;; tries++) {
		*raises = tries;
		*placed = place(pl, f, s);
		if (*placed == f->packets)
			return true;
		uint32_t first, h = worst_hop(pl, f, s, &first);
		book(pl, f, -1);
		if (h == 0 || first == UINT32_MAX || tries == PLAN_MAX_RAISES ||
		    pl->work > max_work(pl))
			return false; /* the sender's own link, or no more tries */
		/* the least raise of router path[h] that moves frame first onto a
		 * frame of its link with room; a raise of k reaches the same frames */
		const struct link *l = &pl->links[f->link[h]];
		uint64_t bits = plan_wire_bits(pl, f->size),
			 at = (first + plan_shift(f, h)) % pl->k;
		uint32_t up = 1;
		while (up < pl->k && f->alpha[h] - f->amin[h] + up < pl->k &&
		       plan_cap_bits(pl, l) - l->used[f->dir[h]][(at + up) % pl->k] < bits)
			up++;
		if (up >= pl->k || f->alpha[h] - f->amin[h] + up >= pl->k ||
		    (uint64_t)f->alpha[h] + up > PLAN_MAX_ALPHA)
			return false;
		f->alpha[h] += up;
	}
}

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The links of f's path that stopped its ingress frames, one line each. */
static void say_blocked(const struct plan *pl, const struct preq *f, const struct scratch *s,
			FILE *o, const char *indent)
{
	for (uint32_t h = 0; h + 1 < f->npath; h++) {
		uint32_t *fr = calloc(pl->k, sizeof(*fr)), nf = 0;
		for (uint32_t i = 0; fr && i < pl->k; i++)
			if (s->blocked[i] == h + 1)
				fr[nf++] = (uint32_t)((i + plan_shift(f, h)) % pl->k);
		if (nf) {
			char str[256];
			qsort(fr, nf, sizeof(*fr), u32_cmp);
			if (sched_frames_format(fr, nf, str, sizeof(str)) >= sizeof(str))
				strcpy(str + sizeof(str) - 5, "...");
			const struct link *l = &pl->links[f->link[h]];
			fprintf(o,
				"%slink %s:%s -> %s:%s (line %u) has no room for a %u-byte packet "
				"in frames %s\n",
				indent, pl->nodes[l->e[f->dir[h]].node].name, l->e[f->dir[h]].port,
				pl->nodes[l->e[1 - f->dir[h]].node].name, l->e[1 - f->dir[h]].port,
				l->line, f->size, str);
		}
		free(fr);
	}
}

/* ---- routes ------------------------------------------------------------- */

/* Routers forward a flow's packets by their destination (a packet whose
 * route leaves by another port than its flow's is dropped as a
 * flow-route-mismatch), so flows to one destination take one next hop at
 * each router. */
void plan_route_key(const struct plan *pl, const struct preq *f, char *out, size_t len)
{
	const char *d = strstr(f->match, "dst ");
	while (d && d != f->match && d[-1] != ' ')
		d = strstr(d + 1, "dst ");
	if (d) {
		size_t n = strcspn(d + 4, " ");
		snprintf(out, len, "%.*s", (int)n, d + 4);
	} else {
		snprintf(out, len, "%s", pl->nodes[f->dst].name);
	}
}

/* A flow placed before f, to the same destination, that leaves a router of
 * path p by another next hop: its index (the hop of p, in *at, and the flow's
 * next node there, in *next), or -1. */
static int route_clash(const struct plan *pl, const struct preq *f, const uint32_t *p, uint32_t n,
		       uint32_t *at, uint32_t *next)
{
	char kf[200], kg[200];
	plan_route_key(pl, f, kf, sizeof(kf));
	for (const struct preq *g = pl->flows; g < f; g++) {
		if (!g->count || g->npath < 3)
			continue; /* not placed */
		plan_route_key(pl, g, kg, sizeof(kg));
		if (strcmp(kf, kg))
			continue;
		for (uint32_t h = 1; h + 1 < n; h++)
			for (uint32_t j = 1; j + 1 < g->npath; j++)
				if (g->path[j] == p[h] && g->path[j + 1] != p[h + 1]) {
					*at = h;
					*next = g->path[j + 1];
					return (int)(g - pl->flows);
				}
	}
	return -1;
}

static void path_words(const struct plan *pl, const uint32_t *p, uint32_t n, char *out, size_t len)
{
	size_t at = 0;
	out[0] = 0;
	for (uint32_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%s", i ? " " : "",
				       pl->nodes[p[i]].name);
}

/* The paths a flow may take, into ps: its own, or the candidates; -1 with
 * the reason said when there are none it can take. */
static int flow_paths(struct plan *pl, const struct adj *a, struct preq *f, struct paths *ps)
{
	if (pl->nodes[f->src].router || pl->nodes[f->dst].router) {
		PERR(pl, f->line, "flow %s: flows run from a host to a host", f->name);
		return -1;
	}
	if (pl->work > max_work(pl)) {
		PERR(pl, f->line,
		     "flow %s: not placed: the search had stopped before it (the planner visits at "
		     "most %llu frames and packets in all)",
		     f->name, (unsigned long long)max_work(pl));
		return -1;
	}
	if (f->explicit_path) {
		ps->n = 1;
		ps->len[0] = f->npath;
		memcpy(ps->node[0], f->path, f->npath * sizeof(f->path[0]));
	} else {
		candidate_paths(pl, a, f, ps);
		pl->work += ps->steps; /* the path search counts against the bound too */
	}
	if (!ps->n) {
		PERR(pl, f->line, "flow %s: no path from %s to %s through routers", f->name,
		     pl->nodes[f->src].name, pl->nodes[f->dst].name);
		return -1;
	}
	if (ps->len[0] < 3) {
		PERR(pl, f->line,
		     "flow %s: %s and %s are linked directly; a flow runs through at least one "
		     "router",
		     f->name, pl->nodes[f->src].name, pl->nodes[f->dst].name);
		return -1;
	}
	return 0;
}

/* What one path of a flow's search came to */
struct tries {
	uint32_t best;	  /* most packets any path took */
	uint32_t clashes; /* paths refused by another flow's routes */
	FILE *why;	  /* what stopped each path */
};

/* Path p of ps for f: 1 placed, 0 not (why said to t->why), -1 an error. */
static int try_path(struct plan *pl, struct preq *f, const struct paths *ps, uint32_t p,
		    struct scratch *s, struct tries *t)
{
	char words[512];
	uint32_t at, next, placed = 0, raises = 0;
	path_words(pl, ps->node[p], ps->len[p], words, sizeof(words));
	int g = route_clash(pl, f, ps->node[p], ps->len[p], &at, &next);
	if (g >= 0) {
		/* routes by destination: not a path this flow can take */
		char key[200];
		plan_route_key(pl, f, key, sizeof(key));
		fprintf(t->why, "  path %s: %s sends %s to %s (flow %s), not to %s\n", words,
			pl->nodes[ps->node[p][at]].name, key, pl->nodes[next].name,
			pl->flows[g].name, pl->nodes[ps->node[p][at + 1]].name);
		t->clashes++;
		if (!p)
			snprintf(f->detour, sizeof(f->detour), "%s", words);
		return 0;
	}
	f->npath = ps->len[p];
	memcpy(f->path, ps->node[p], f->npath * sizeof(f->path[0]));
	if (path_set(pl, f) != 0)
		return -1;
	if (fit_path(pl, f, s, &placed, &raises)) {
		f->paths_tried = p;
		return 1;
	}
	if (!p)
		snprintf(f->detour, sizeof(f->detour), "%s", words);
	if (placed > t->best)
		t->best = placed;
	if (ps->n > 1)
		fprintf(t->why, "  path %s: %u fit (alpha raised %u time%s):\n", words, placed,
			raises, raises == 1 ? "" : "s");
	say_blocked(pl, f, s, t->why, ps->n > 1 ? "    " : "  ");
	return 0;
}

/* Why no path took the flow: what stopped each (why, whylen long). */
static void say_unplaced(struct plan *pl, const struct preq *f, const struct paths *ps,
			 const struct tries *t, const char *why, size_t whylen)
{
	if (whylen && !t->clashes)
		PERR(pl, f->line,
		     "flow %s: %u of %u packets per cycle fit; every allowed ingress frame is full "
		     "on some link of %s:",
		     f->name, t->best, f->packets, ps->n > 1 ? "each path tried" : "the path");
	else if (whylen)
		PERR(pl, f->line,
		     "flow %s: no path takes its %u packets per cycle (at most %u fit); each path "
		     "tried:",
		     f->name, f->packets, t->best);
	if (whylen)
		fputs(why, plan_err(pl));
	else if (pl->work > max_work(pl))
		PERR(pl, f->line, "flow %s: not placed: the search had stopped before it", f->name);
	if (pl->work > max_work(pl))
		fprintf(plan_err(pl),
			"  (the search stopped: the planner visits at most %llu frames and packets "
			"in all)\n",
			(unsigned long long)max_work(pl));
}

static int plan_flow(struct plan *pl, const struct adj *a, struct preq *f)
{
	static struct paths ps;
	if (flow_paths(pl, a, f, &ps) != 0)
		return -1;
	struct scratch s = {calloc((size_t)pl->k + 1, sizeof(uint32_t)),
			    calloc((size_t)pl->k + 1, sizeof(uint32_t)),
			    calloc((size_t)pl->k + 1, sizeof(uint32_t))};
	f->count = calloc(pl->k, sizeof(*f->count));
	if (!f->count || !s.cl || !s.nx || !s.blocked) {
		PERR(pl, f->line, "out of memory");
		free(s.cl);
		free(s.nx);
		free(s.blocked);
		return -1;
	}
	/* each path in turn; the first that takes every packet is the flow's.
	 * What stopped the others is said only when none does. */
	int rc = 0;
	char *why = NULL;
	size_t whylen = 0;
	struct tries t = {.why = open_memstream(&why, &whylen)};
	f->detour[0] = 0;
	/* the bound holds for a flow's first path too: once spent, every flow
	 * left is refused at once, saying so */
	for (uint32_t p = 0; t.why && p < ps.n && rc == 0 && pl->work <= max_work(pl); p++)
		rc = try_path(pl, f, &ps, p, &s, &t);
	if (!t.why)
		PERR(pl, f->line, "out of memory");
	else if (fclose(t.why) == 0 && rc != 1 && why)
		say_unplaced(pl, f, &ps, &t, why, whylen);
	if (rc != 1) {
		/* not placed: no later flow's routes are held to its path */
		f->detour[0] = 0;
		free(f->count);
		f->count = NULL;
	}
	free(why);
	free(s.cl);
	free(s.nx);
	free(s.blocked);
	return rc == 1 ? 0 : -1;
}

/* A node's sync error and where it comes from, for a refusal. */
static void sync_said(const struct plan *pl, uint32_t x, char *out, size_t len)
{
	const struct node *n = &pl->nodes[x];
	char t[32];
	sched_fmt_time(n->sync_ns, t, sizeof(t));
	snprintf(out, len, "%s's %s (%s)", n->name, t,
		 n->sync_given ? "sync-error"
		 : n->time     ? n->time->name
			       : "none given");
}

/* Every link into a router: the frames at its two ends may be apart by the
 * pair's errors either way, so arrivals mapped with the delay less that
 * spread over twice it; the guard band must hold it, or a packet is taken
 * for the wrong upstream frame. */
static void sync_check(struct plan *pl)
{
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		const struct link *lk = &pl->links[l];
		uint64_t pair = plan_pair_ns(pl, lk);
		if (2 * pair <= pl->guard_ns)
			continue;
		for (int d = 0; d < 2; d++) {
			if (!plan_pair_counts(pl, lk, d))
				continue;
			char a[96], b[96], p[32], g[32], need[32], ce[64] = "";
			sync_said(pl, lk->e[d].node, a, sizeof(a));
			sync_said(pl, lk->e[1 - d].node, b, sizeof(b));
			sched_fmt_time(pair, p, sizeof(p));
			sched_fmt_time(2 * pair, need, sizeof(need));
			sched_fmt_time(pl->guard_ns, g, sizeof(g));
			if (pl->clock_err_ns) {
				char c[32];
				sched_fmt_time(pl->clock_err_ns, c, sizeof(c));
				snprintf(ce, sizeof(ce), " and clock-error %s", c);
			}
			PERR(pl, lk->line,
			     "link %s:%s -> %s:%s: the clocks at its ends may be %s apart either "
			     "way (%s, %s%s): "
			     "the guard band must be at least %s, twice that, or %s takes packets "
			     "for the wrong "
			     "upstream frame; guard is %s",
			     pl->nodes[lk->e[d].node].name, lk->e[d].port,
			     pl->nodes[lk->e[1 - d].node].name, lk->e[1 - d].port, p, a, b, ce,
			     need, pl->nodes[lk->e[1 - d].node].name, g);
			break; /* one refusal a link */
		}
	}
}

int plan_place(struct plan *pl)
{
	static struct adj a;
	/* what placing will hold at most: counts per flow, room per link and
	 * direction, and one flow's scratch, each an array of k */
	uint64_t need = (uint64_t)pl->k * (4ull * pl->nflows + 16ull * pl->nlinks + 12);
	if (need > PLAN_MAX_MEM) {
		PERR(pl, pl->l_k,
		     "k %u with %u flows and %u links takes %llu MiB to plan, more than %llu MiB: "
		     "a smaller k, "
		     "or fewer flows or links",
		     pl->k, pl->nflows, pl->nlinks, (unsigned long long)(need >> 20),
		     PLAN_MAX_MEM >> 20);
		return -1;
	}
	adj_build(pl, &a);
	/* a link's room per frame is kept only for links some path uses */
	for (uint32_t i = 0; i < pl->nflows; i++)
		plan_flow(pl, &a, &pl->flows[i]);
	/* once the paths say which nodes send */
	sync_check(pl);
	return pl->errors ? -1 : 0;
}
