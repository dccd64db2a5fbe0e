/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "counters.h"
#include "engine.h"
#include "stamp.h"

#define BE_BURST 32
/* packets handed to the driver in one call; its count is 16 bits */
#define ENG_TX_CHUNK 4096u

/* single writer: a relaxed store is enough for readers on other lcores */

struct seg {
	uint16_t flow;
	uint16_t n;               /* packets staged */
};

/* A flow's state lives as long as the flow: a table swap that keeps a flow
 * (same name, same port) keeps its queue, its carried packets and its counters. */
struct eng_flow {
	struct rte_ring *q;
	uint32_t port;
	uint32_t carry_cap, ncarry;
	struct rte_mbuf **carry;  /* FIFO of packets carried from late frames */
	struct rte_mbuf *early;   /* pipelined: the queue's head, due in a later frame */
	struct flow_stats st;
	char name[SCHED_NAME_MAX];
	struct flow_rx rx __rte_cache_aligned;  /* written by RX */
} __rte_cache_aligned;

/* A staged probe's hop stamp, written just before the push. */
struct eng_stamp {
	struct stamp_slot s;
	uint32_t flow;
};

/* Per port and per table: the staging arrays, sized for the table's rows, and
 * the port's flows (for demotion). */
struct eng_tport {
	struct eng_stamp *stamps; /* stage_cap: the staged probes that get a stamp */
	struct rte_mbuf **stage;
	int64_t *wire_end;        /* stage_cap + 1 */
	uint32_t stage_cap;
	struct seg *seg;
	uint32_t seg_cap;
	uint32_t *flows;
	uint32_t nflows;
};

/*
 * A runtime table: built off the data path by the control side, handed over
 * with one atomic pointer, adopted by the engine at a frame boundary.
 */
struct eng_table {
	const struct sched_table *t;
	bool own_t;               /* freed with the table */
	struct eng_flow **flows;  /* t->nflows, by the table's flow index */
	uint32_t nflows;
	struct eng_tport *ports;  /* t->nports */
	uint32_t nports;
	/* carry arrays that grow at adoption: new[f] (NULL: keep), freed old ones */
	struct rte_mbuf ***grow;
	uint32_t *grow_cap;
	struct rte_mbuf ***old_carry;
	bool *kept;               /* flows[f] is the replaced table's, not new here */
	/* flows of the table replaced that this one does not keep */
	struct eng_flow **removed;
	uint32_t nremoved;
	struct eng_table *prev;   /* the table replaced, until it is retired */
	int64_t at;               /* frame requested */
	int64_t adopted;          /* frame it took effect at; INT64_MIN before */
};

struct eng_port {
	struct eng_port_cfg c;
	struct rte_ring *be;
	struct rte_mbuf *held;    /* best effort that did not fit; goes first next time */
	struct rte_mbuf **stage;  /* from the table in force */
	int64_t *wire_end;        /* wire_end[i]: wire time of stage[0..i) */
	uint32_t nstage;
	struct seg *seg;
	uint32_t nseg;
	struct eng_stamp *stamps;
	uint32_t nstamps;
	int64_t stage_wire_ns;
	tdp_time_t cursor;        /* when the port will have sent what it was given */
	uint32_t *flows;          /* the port's flows, for demotion (table in force) */
	uint32_t nflows, demote_rr;
	struct port_stats st;
} __rte_cache_aligned;

struct engine {
	const struct sched_table *t;
	struct eng_table *tab;    /* in force; the engine's own copy of pub */
	_Atomic(struct eng_table *) offer;  /* handed over, waiting for its frame */
	_Atomic(struct eng_table *) pub;    /* in force, for readers */
	uint32_t flow_depth;
	uint16_t node_id;         /* written into hop stamps */
	struct timebase *tb;
	struct frame_geom g;
	int64_t guard_ns;
	enum late_policy late;
	int64_t be_poll_ns;
	struct pw pw;

	enum sync_action act[3];  /* by enum tb_state */
	bool demote;              /* this frame: reserved flows go out as best effort */
	int64_t seen;             /* frame index of the latest time read, to see steps back */

	int64_t next;             /* frame to push next */
	tdp_time_t fill_end;      /* best effort may be on the wire until here */

	struct eng_flow **flows;  /* tab->flows */
	uint32_t nflows;
	struct eng_port *ports;
	uint32_t nports;
	void *ring_mem;           /* best-effort queues */

	int tick_fd;              /* the source's frame tick, or -1 */

	atomic_int stop;
	struct eng_stats st;
	struct hist err;
	struct hist tick_lat;
};

int64_t engine_wire_ns(uint64_t rate_bps, uint32_t overhead, uint32_t len)
{
	uint64_t bytes = (len < SCHED_MIN_FRAME ? SCHED_MIN_FRAME : len) + (uint64_t)overhead;
	return (int64_t)((bytes * 8 * 1000000000ull + rate_bps - 1) / rate_bps);
}

static inline int64_t wire_ns(const struct eng_port *p, const struct rte_mbuf *m)
{
	return engine_wire_ns(p->c.rate_bps, p->c.overhead, m->pkt_len);
}

/* ---- set-up ----------------------------------------------------------- */

static struct rte_ring *ring_at(uint8_t **mem, uint32_t depth)
{
	struct rte_ring *r = (struct rte_ring *)*mem;
	ssize_t sz = rte_ring_get_memsize(rte_align32pow2(depth + 1));
	if (rte_ring_init(r, "tdp", depth, RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0)
		return NULL;
	*mem += RTE_ALIGN_CEIL((size_t)sz, RTE_CACHE_LINE_SIZE);
	return r;
}

static void flow_free(struct eng_flow *fl, uint64_t *dropped)
{
	if (!fl)
		return;
	void *m;
	uint64_t n = 0;
	while (fl->q && rte_ring_sc_dequeue(fl->q, &m) == 0) {
		rte_pktmbuf_free(m);
		n++;
	}
	for (uint32_t i = 0; i < fl->ncarry; i++)
		rte_pktmbuf_free(fl->carry[i]);
	n += fl->ncarry;
	if (fl->early) {
		rte_pktmbuf_free(fl->early);
		n++;
	}
	if (dropped)
		*dropped += n;
	free(fl->q);
	free(fl->carry);
	free(fl->rx.arr);
	free(fl);
}

/* A pipelined flow's arrival histogram, made once; a flow that stops being
 * pipelined keeps it (and its counts) for a later swap back. */
static int flow_arr_alloc(struct eng_flow *fl)
{
	if (fl->rx.arr)
		return 0;
	struct hist *h = malloc(sizeof(*h));
	if (!h)
		return -1;
	hist_init(h);
	fl->rx.arr = h;
	return 0;
}

static struct eng_flow *flow_new(const char *name, uint32_t port, uint32_t carry_cap, uint32_t depth)
{
	struct eng_flow *fl = NULL;
	if (posix_memalign((void **)&fl, RTE_CACHE_LINE_SIZE, sizeof(*fl)) != 0)
		return NULL;
	memset(fl, 0, sizeof(*fl));
	snprintf(fl->name, sizeof(fl->name), "%s", name);
	fl->port = port;
	fl->carry_cap = carry_cap;
	fl->carry = calloc(carry_cap + 1, sizeof(*fl->carry));
	size_t sz = RTE_ALIGN_CEIL((size_t)rte_ring_get_memsize(rte_align32pow2(depth + 1)), RTE_CACHE_LINE_SIZE);
	void *mem = NULL;
	if (!fl->carry || posix_memalign(&mem, RTE_CACHE_LINE_SIZE, sz) != 0) {
		free(fl->carry);
		free(fl);
		return NULL;
	}
	uint8_t *at = mem;
	fl->q = ring_at(&at, depth);
	if (!fl->q) {
		free(mem);
		free(fl->carry);
		free(fl);
		return NULL;
	}
	fl->rx.q = fl->q;
	return fl;
}

/* Frees what the table owns. Its flows are shared with the tables before and
 * after it, so the callers free those they know to be the last holder of. */
static void table_free(struct eng_table *nt)
{
	if (!nt)
		return;
	if (nt->ports)
		for (uint32_t p = 0; p < nt->nports; p++) {
			free(nt->ports[p].stamps);
			free(nt->ports[p].stage);
			free(nt->ports[p].wire_end);
			free(nt->ports[p].seg);
			free(nt->ports[p].flows);
		}
	if (nt->grow)
		for (uint32_t f = 0; f < nt->nflows; f++) {
			if (nt->adopted == INT64_MIN)
				free(nt->grow[f]);
			free(nt->old_carry ? nt->old_carry[f] : NULL);
		}
	free(nt->flows);
	free(nt->ports);
	free(nt->grow);
	free(nt->grow_cap);
	free(nt->old_carry);
	free(nt->removed);
	free(nt->kept);
	if (nt->own_t)
		sched_free((struct sched_table *)nt->t);
	free(nt);
}

/* A table that will never be adopted: the flows made for it go with it, the
 * ones it kept from the table in force stay where they are. */
static void table_discard(struct eng_table *nt)
{
	for (uint32_t f = 0; nt->flows && f < nt->nflows; f++) {
		if (!nt->kept || !nt->kept[f])
			flow_free(nt->flows[f], NULL);
		nt->flows[f] = NULL;
	}
	table_free(nt);
}

struct name_ix {
	const char *name;
	uint32_t ix;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct name_ix *)a)->name, ((const struct name_ix *)b)->name);
}

/*
 * Builds the runtime form of t for engine e: a flow that the table in force
 * (cur, NULL at creation) has with the same name on the same port keeps its
 * state; the others get a queue of their own. The ports must be the engine's,
 * in the same order, with the same TF and epoch: a different frame grid needs
 * a restart.
 */
static struct eng_table *table_build(const struct engine *e, const struct sched_table *t,
				     const struct eng_table *cur, char *err, size_t errlen)
{
	struct eng_table *nt = calloc(1, sizeof(*nt));
	if (!nt) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	nt->t = t;
	nt->adopted = INT64_MIN;
	nt->at = INT64_MIN;
	nt->nflows = t->nflows;
	nt->nports = t->nports;
	nt->flows = calloc(t->nflows + 1, sizeof(*nt->flows));
	nt->kept = calloc(t->nflows + 1, sizeof(*nt->kept));
	nt->ports = calloc(t->nports + 1, sizeof(*nt->ports));
	nt->grow = calloc(t->nflows + 1, sizeof(*nt->grow));
	nt->grow_cap = calloc(t->nflows + 1, sizeof(*nt->grow_cap));
	nt->old_carry = calloc(t->nflows + 1, sizeof(*nt->old_carry));
	uint32_t *cap = calloc(t->nflows + 1, sizeof(uint32_t));
	bool *kept = cur ? calloc(cur->nflows + 1, sizeof(bool)) : NULL;
	/* the flows in force by name, so that matching 65535 flows stays n log n */
	struct name_ix *byname = cur ? calloc(cur->nflows + 1, sizeof(*byname)) : NULL;
	if (!nt->flows || !nt->kept || !nt->ports || !nt->grow || !nt->grow_cap || !nt->old_carry || !cap ||
	    (cur && (!kept || !byname))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* largest per-frame demand per flow and per port, over the distinct rows */
	for (uint32_t r = 0; r < t->nrows; r++) {
		uint32_t pk[SCHED_MAX_PORTS] = {0}, en[SCHED_MAX_PORTS] = {0};
		for (uint32_t x = t->row_off[r]; x < t->row_off[r + 1]; x++) {
			const struct sched_entry *en_ = &t->ent[x];
			uint32_t p = t->flows[en_->flow].port;
			pk[p] += en_->n;
			en[p]++;
			if (en_->n > cap[en_->flow])
				cap[en_->flow] = en_->n;
		}
		for (uint32_t p = 0; p < t->nports; p++) {
			if (pk[p] > nt->ports[p].stage_cap)
				nt->ports[p].stage_cap = pk[p];
			if (en[p] > nt->ports[p].seg_cap)
				nt->ports[p].seg_cap = en[p];
		}
	}
	for (uint32_t p = 0; p < t->nports; p++) {
		struct eng_tport *tp = &nt->ports[p];
		tp->stage = calloc(tp->stage_cap + 1, sizeof(*tp->stage));
		tp->wire_end = calloc(tp->stage_cap + 1, sizeof(*tp->wire_end));
		tp->stamps = calloc(tp->stage_cap + 1, sizeof(*tp->stamps));
		tp->seg = calloc(tp->seg_cap + 1, sizeof(*tp->seg));
		tp->flows = calloc(t->nflows + 1, sizeof(*tp->flows));
		if (!tp->stage || !tp->wire_end || !tp->stamps || !tp->seg || !tp->flows) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		for (uint32_t f = 0; f < t->nflows; f++)
			if (t->flows[f].port == p)
				tp->flows[tp->nflows++] = f;
	}
	for (uint32_t g = 0; cur && g < cur->nflows; g++)
		byname[g] = (struct name_ix){cur->flows[g]->name, g};
	if (cur)
		qsort(byname, cur->nflows, sizeof(*byname), name_cmp);
	for (uint32_t f = 0; f < t->nflows; f++) {
		const struct sched_flow *sf = &t->flows[f];
		struct eng_flow *old = NULL;
		struct name_ix key = {sf->name, 0}, *hit = cur ? bsearch(&key, byname, cur->nflows, sizeof(*byname), name_cmp)
								 : NULL;
		if (hit && cur->flows[hit->ix]->port == sf->port) {
			old = cur->flows[hit->ix];
			kept[hit->ix] = true;
		}
		if (old) {
			nt->flows[f] = old;
			nt->kept[f] = true;
			/* RX reads it only under a table where the flow is pipelined,
			 * which this one is not yet: the offer publishes it */
			if (sf->alpha && flow_arr_alloc(old) != 0) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			if (cap[f] > old->carry_cap) {
				nt->grow_cap[f] = cap[f];
				nt->grow[f] = calloc(cap[f] + 1, sizeof(**nt->grow));
				if (!nt->grow[f]) {
					snprintf(err, errlen, "out of memory");
					goto fail;
				}
			}
			continue;
		}
		nt->flows[f] = flow_new(sf->name, sf->port, cap[f], e->flow_depth);
		if (nt->flows[f] && sf->alpha && flow_arr_alloc(nt->flows[f]) != 0) {
			flow_free(nt->flows[f], NULL);
			nt->flows[f] = NULL;
		}
		if (!nt->flows[f]) {
			snprintf(err, errlen, "out of memory for the queue of flow %s", sf->name);
			goto fail;
		}
	}
	if (cur) {
		nt->removed = calloc(cur->nflows + 1, sizeof(*nt->removed));
		if (!nt->removed) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		for (uint32_t g = 0; g < cur->nflows; g++)
			if (!kept[g])
				nt->removed[nt->nremoved++] = cur->flows[g];
	}
	free(cap);
	free(kept);
	free(byname);
	return nt;
fail:
	free(cap);
	free(kept);
	free(byname);
	table_discard(nt);
	return NULL;
}

/* The engine's state follows the table: flow array, staging arrays, k, guard. */
static void table_enter(struct engine *e, struct eng_table *nt)
{
	e->tab = nt;
	e->t = nt->t;
	e->flows = nt->flows;
	e->nflows = nt->nflows;
	e->g.k = nt->t->k;
	e->guard_ns = (int64_t)nt->t->guard_ns;
	for (uint32_t p = 0; p < e->nports; p++) {
		struct eng_port *pt = &e->ports[p];
		pt->stage = nt->ports[p].stage;
		pt->wire_end = nt->ports[p].wire_end;
		pt->stamps = nt->ports[p].stamps;
		pt->seg = nt->ports[p].seg;
		pt->flows = nt->ports[p].flows;
		pt->nflows = nt->ports[p].nflows;
		pt->demote_rr = 0;
	}
}

struct engine *engine_create(const struct eng_config *c, char *err, size_t errlen)
{
	const struct sched_table *t = c->t;
	struct engine *e = NULL;
	if (posix_memalign((void **)&e, RTE_CACHE_LINE_SIZE, sizeof(*e)) != 0) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(e, 0, sizeof(*e));
	e->t = t;
	e->tb = c->tb;
	e->g = (struct frame_geom){(int64_t)t->tf_ns, (int64_t)t->epoch_ns, t->k};
	e->guard_ns = (int64_t)t->guard_ns;
	e->late = c->late;
	e->be_poll_ns = c->be_poll_ns;
	e->flow_depth = c->flow_depth;
	e->node_id = c->node_id;
	e->nports = t->nports;
	e->act[TB_LOCKED] = SA_SERVE;
	e->act[TB_HOLDOVER] = c->holdover_action;
	e->act[TB_UNLOCKED] = c->unlocked_action;
	hist_init(&e->err);
	hist_init(&e->tick_lat);
	e->tick_fd = e->tb->ops->tick_fd && e->tb->ops->tick ? e->tb->ops->tick_fd(e->tb) : -1;
	struct pw_config pc = c->pw;
	pc.tf_ns = (int64_t)t->tf_ns;
	if (pw_init(&e->pw, &pc) != 0) {
		snprintf(err, errlen, "predictive wait settings out of range");
		goto fail;
	}
	if (c->flow_depth < 1 || c->be_depth < 1) {
		snprintf(err, errlen, "queue depths must be at least 1");
		goto fail;
	}
	if (posix_memalign((void **)&e->ports, RTE_CACHE_LINE_SIZE, (e->nports + 1) * sizeof(*e->ports))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	memset(e->ports, 0, (e->nports + 1) * sizeof(*e->ports));
	size_t br = RTE_ALIGN_CEIL((size_t)rte_ring_get_memsize(rte_align32pow2(c->be_depth + 1)), RTE_CACHE_LINE_SIZE);
	if (posix_memalign(&e->ring_mem, RTE_CACHE_LINE_SIZE, br * e->nports + 64)) {
		snprintf(err, errlen, "out of memory for %zu bytes of queues", br * e->nports);
		goto fail;
	}
	uint8_t *mem = e->ring_mem;
	for (uint32_t p = 0; p < e->nports; p++) {
		struct eng_port *pt = &e->ports[p];
		pt->c = c->ports[p];
		if (pt->c.rate_bps == 0)
			pt->c.rate_bps = t->ports[p].rate_bps;
		pt->be = ring_at(&mem, c->be_depth);
		if (!pt->be) {
			snprintf(err, errlen, "cannot make the best-effort queue of port %s", t->ports[p].name);
			goto fail;
		}
	}
	struct eng_table *nt = table_build(e, t, NULL, err, errlen);
	if (!nt)
		goto fail;
	table_enter(e, nt);
	atomic_store(&e->pub, nt);
	return e;
fail:
	engine_destroy(e);
	return NULL;
}

static void free_ring(struct rte_ring *r)
{
	void *m;
	while (r && rte_ring_sc_dequeue(r, &m) == 0)
		rte_pktmbuf_free(m);
}

void engine_destroy(struct engine *e)
{
	if (!e)
		return;
	struct eng_table *off = atomic_exchange(&e->offer, NULL);
	if (off)
		table_discard(off); /* never adopted */
	if (e->tab) {
		struct eng_table *cur = e->tab;
		if (cur->prev)
			engine_table_retire(e, cur);
		for (uint32_t f = 0; f < cur->nflows; f++)
			flow_free(cur->flows[f], NULL);
		cur->nflows = 0;
		table_free(cur);
	}
	if (e->ports) {
		for (uint32_t p = 0; p < e->nports; p++) {
			free_ring(e->ports[p].be);
			for (uint32_t i = 0; i < e->ports[p].nstage; i++)
				rte_pktmbuf_free(e->ports[p].stage[i]);
			if (e->ports[p].held)
				rte_pktmbuf_free(e->ports[p].held);
		}
	}
	free(e->ring_mem);
	free(e->ports);
	free(e);
}

/* ---- table swap (control side) ------------------------------------------ */

struct eng_table *engine_table_build(struct engine *e, const struct sched_table *t, char *err, size_t errlen)
{
	const struct eng_table *cur = atomic_load_explicit(&e->pub, memory_order_acquire);
	const struct sched_table *ct = cur->t;
	if (atomic_load(&e->offer)) {
		snprintf(err, errlen, "a table is already waiting to be adopted");
		return NULL;
	}
	if (cur->prev) {
		snprintf(err, errlen, "the previous swap is still being finished");
		return NULL;
	}
	if (t->tf_ns != ct->tf_ns || t->epoch_ns != ct->epoch_ns) {
		snprintf(err, errlen, "TF or epoch differs from the table in force (TF %" PRIu64 " ns, epoch %" PRIu64
			 " ns): a new frame grid needs a restart", ct->tf_ns, ct->epoch_ns);
		return NULL;
	}
	if (t->nports != ct->nports) {
		snprintf(err, errlen, "the table has %u ports, the one in force %u: ports change only with a restart",
			 t->nports, ct->nports);
		return NULL;
	}
	for (uint32_t p = 0; p < t->nports; p++)
		if (strcmp(t->ports[p].name, ct->ports[p].name) || t->ports[p].rate_bps != ct->ports[p].rate_bps ||
		    t->ports[p].overhead != ct->ports[p].overhead) {
			snprintf(err, errlen, "port %u is %s at %" PRIu64 " bit/s (overhead %u); the table in force has %s at %"
				 PRIu64 " bit/s (overhead %u): ports change only with a restart", p + 1, t->ports[p].name,
				 t->ports[p].rate_bps, t->ports[p].overhead, ct->ports[p].name, ct->ports[p].rate_bps,
				 ct->ports[p].overhead);
			return NULL;
		}
	struct eng_table *nt = table_build(e, t, cur, err, errlen);
	if (nt)
		nt->own_t = true;
	return nt;
}

void engine_table_discard(struct engine *e, struct eng_table *nt)
{
	if (!nt)
		return;
	(void)e;
	table_discard(nt);
}

int64_t engine_table_boundary(const struct engine *e, const struct eng_table *nt, int64_t from)
{
	const struct eng_table *cur = atomic_load_explicit(&e->pub, memory_order_acquire);
	uint64_t a = cur->t->k, b = nt->t->k, x = a, y = b;
	while (y) {
		uint64_t r = x % y;
		x = y;
		y = r;
	}
	int64_t l = (int64_t)(a / x * b); /* both k*TF divide a second: so does the lcm */
	return frame_floordiv(from + l - 1, l) * l;
}

int engine_table_offer(struct engine *e, struct eng_table *nt, int64_t frame, char *err, size_t errlen)
{
	int64_t next = engine_next_frame(e);
	if (frame < next + 2) {
		snprintf(err, errlen, "frame %" PRId64 " is too close: the engine is staging frame %" PRId64
			 " (a table is adopted at least 2 frames ahead)", frame, next);
		return -EAGAIN;
	}
	nt->at = frame;
	nt->prev = atomic_load_explicit(&e->pub, memory_order_acquire);
	struct eng_table *none = NULL;
	if (!atomic_compare_exchange_strong(&e->offer, &none, nt)) {
		nt->prev = NULL;
		snprintf(err, errlen, "a table is already waiting to be adopted");
		return -EBUSY;
	}
	return 0;
}

int engine_table_withdraw(struct engine *e, struct eng_table *nt)
{
	struct eng_table *want = nt;
	if (!atomic_compare_exchange_strong(&e->offer, &want, NULL))
		return -EALREADY;
	nt->prev = NULL;
	table_discard(nt);
	return 0;
}

struct eng_table *engine_table_pending(const struct engine *e)
{
	return atomic_load_explicit(&((struct engine *)e)->offer, memory_order_acquire);
}

struct eng_table *engine_table_current(const struct engine *e)
{
	return atomic_load_explicit(&((struct engine *)e)->pub, memory_order_acquire);
}

const struct sched_table *engine_table_sched(const struct eng_table *nt)
{
	return nt->t;
}

int64_t engine_table_requested(const struct eng_table *nt)
{
	return nt->at;
}

int64_t engine_table_adopted(const struct eng_table *nt)
{
	return __atomic_load_n(&nt->adopted, __ATOMIC_ACQUIRE);
}

bool engine_table_retirable(const struct eng_table *nt)
{
	return nt->prev != NULL;
}

uint64_t engine_table_retire(struct engine *e, struct eng_table *cur)
{
	(void)e;
	uint64_t dropped = 0;
	struct eng_table *old = cur->prev;
	if (!old)
		return 0;
	for (uint32_t i = 0; i < cur->nremoved; i++)
		flow_free(cur->removed[i], &dropped);
	cur->nremoved = 0;
	for (uint32_t f = 0; f < cur->nflows; f++) {
		free(cur->old_carry[f]);
		cur->old_carry[f] = NULL;
	}
	old->nflows = 0; /* its flows are cur's or freed above */
	table_free(old);
	cur->prev = NULL;
	return dropped;
}

struct flow_rx *engine_table_flow_rx(struct eng_table *nt, uint32_t flow)
{
	return flow < nt->nflows ? &nt->flows[flow]->rx : NULL;
}

struct rte_ring *engine_flow_ring(struct engine *e, uint32_t flow)
{
	struct eng_table *cur = engine_table_current(e);
	return flow < cur->nflows ? cur->flows[flow]->q : NULL;
}

struct flow_rx *engine_flow_rx(struct engine *e, uint32_t flow)
{
	return engine_table_flow_rx(engine_table_current(e), flow);
}

struct rte_ring *engine_be_ring(struct engine *e, uint32_t port)
{
	return port < e->nports ? e->ports[port].be : NULL;
}

int64_t engine_next_frame(const struct engine *e)
{
	return CTR_GET(e->next);
}

const struct frame_geom *engine_geom(const struct engine *e)
{
	return &e->g;
}

/* ---- the hot path ------------------------------------------------------- */

static void tx(struct eng_port *p, struct rte_mbuf **pkts, uint16_t n, uint64_t *drops)
{
	uint16_t sent = rte_eth_tx_burst(p->c.dpdk_port, p->c.txq, pkts, n);
	if (sent < n) {
		for (uint16_t i = sent; i < n; i++)
			rte_pktmbuf_free(pkts[i]);
		CTR_ADD(*drops, (uint64_t)(n - sent));
	}
}

static uint32_t take(struct eng_flow *fl, struct rte_mbuf **out, uint32_t want);

/* A demoted flow's next packet: carried ones first, then its queue; round robin. */
static struct rte_mbuf *demoted_next(struct engine *e, struct eng_port *p, uint32_t *flow)
{
	for (uint32_t x = 0; x < p->nflows; x++) {
		uint32_t f = p->flows[(p->demote_rr + x) % p->nflows];
		struct rte_mbuf *m;
		if (take(e->flows[f], &m, 1) == 1) {
			p->demote_rr = (p->demote_rr + x + 1) % p->nflows;
			*flow = f;
			return m;
		}
	}
	return NULL;
}

static void be_fill(struct engine *e, struct eng_port *p, tdp_time_t now)
{
	struct rte_mbuf *burst[BE_BURST];
	uint16_t nb = 0;
	uint64_t bytes = 0;
	tdp_time_t cur = tdp_time_max(now, p->cursor);
	int64_t room = e->g.tf_ns - e->guard_ns;
	for (;;) {
		struct rte_mbuf *m = p->held;
		uint32_t dflow = UINT32_MAX;
		if (m)
			p->held = NULL;
		else if (rte_ring_sc_dequeue(p->be, (void **)&m) != 0 &&
			 (!e->demote || !(m = demoted_next(e, p, &dflow))))
			break;
		int64_t w = wire_ns(p, m);
		if (w > room) {
			rte_pktmbuf_free(m);
			CTR_ADD(p->st.be_too_big, 1);
			continue;
		}
		if (tdp_time_diff(e->fill_end, cur) < w) {
			p->held = m;
			if (dflow != UINT32_MAX)
				CTR_ADD(e->flows[dflow]->st.demoted, 1);
			break;
		}
		if (dflow != UINT32_MAX)
			CTR_ADD(e->flows[dflow]->st.demoted, 1);
		cur = tdp_time_add(cur, w);
		bytes += m->pkt_len;
		burst[nb++] = m;
		if (nb == BE_BURST) {
			CTR_ADD(p->st.be_pkts, nb);
			tx(p, burst, nb, &p->st.be_tx_drop);
			nb = 0;
		}
	}
	if (nb) {
		CTR_ADD(p->st.be_pkts, nb);
		tx(p, burst, nb, &p->st.be_tx_drop);
	}
	if (bytes) {
		CTR_ADD(p->st.be_bytes, bytes);
		p->cursor = cur;
	}
}

static void be_fill_all(struct engine *e, tdp_time_t now)
{
	for (uint32_t p = 0; p < e->nports; p++)
		if (e->demote || e->ports[p].held || !rte_ring_empty(e->ports[p].be))
			be_fill(e, &e->ports[p], now);
}

static uint32_t take_carried(struct eng_flow *fl, struct rte_mbuf **out, uint32_t want)
{
	uint32_t c = fl->ncarry < want ? fl->ncarry : want;
	if (c) {
		memcpy(out, fl->carry, c * sizeof(*out));
		fl->ncarry -= c;
		memmove(fl->carry, fl->carry + c, fl->ncarry * sizeof(*out));
	}
	return c;
}

/* Takes up to want packets of flow fl: carried ones first, then its queue. */
static uint32_t take(struct eng_flow *fl, struct rte_mbuf **out, uint32_t want)
{
	uint32_t c = take_carried(fl, out, want);
	if (c < want && fl->early) {
		out[c++] = fl->early;
		fl->early = NULL;
	}
	if (c < want)
		c += rte_ring_sc_dequeue_burst(fl->q, (void **)out + c, want - c, NULL);
	return c;
}

/* A pipelined flow's packet that missed its frame: carried behind the flow's
 * carried packets when the policy says so and there is room, else dropped. */
static void arrived_late(struct engine *e, struct eng_flow *fl, struct rte_mbuf *m)
{
	if (e->late == LATE_CARRY && fl->ncarry < fl->carry_cap) {
		fl->carry[fl->ncarry++] = m;
		CTR_ADD(fl->st.arr_late_carried, 1);
	} else {
		rte_pktmbuf_free(m);
		CTR_ADD(fl->st.arr_late_dropped, 1);
		CTR_ADD(e->ports[fl->port].st.arr_late_dropped, 1);
	}
}

/*
 * Pipelined: up to want packets due in frame x, in order; packets due earlier
 * are late on arrival, a packet due later stays at the head. Slots left free
 * go to carried packets, which were due earlier still.
 */
static uint32_t take_due(struct engine *e, struct eng_flow *fl, int64_t x, struct rte_mbuf **out, uint32_t want,
			 bool fill)
{
	uint32_t got = 0;
	while (got < want) {
		struct rte_mbuf *m = fl->early;
		if (m)
			fl->early = NULL;
		else if (rte_ring_sc_dequeue(fl->q, (void **)&m) != 0)
			break;
		int64_t d = engine_pkt_due(m);
		if (d > x) {
			fl->early = m;
			break;
		}
		if (d == x || d == ENGINE_DUE_NONE) /* the latter queued before the flow was pipelined */
			out[got++] = m;
		else
			arrived_late(e, fl, m);
	}
	if (fill && got < want)
		got += take_carried(fl, out + got, want - got);
	return got;
}

static inline uint32_t take_for(struct engine *e, uint32_t flow, int64_t x, struct rte_mbuf **out, uint32_t want)
{
	struct eng_flow *fl = e->flows[flow];
	return e->t->flows[flow].alpha ? take_due(e, fl, x, out, want, true) : take(fl, out, want);
}

/* The staged probes of a stamp flow: where their stamps go, written at the push. */
static void stamp_find(struct engine *e, struct eng_port *p, uint32_t flow, int64_t j, struct rte_mbuf **m,
		       uint32_t n)
{
	bool piped = e->t->flows[flow].alpha != 0;
	for (uint32_t i = 0; i < n; i++) {
		struct eng_stamp *st = &p->stamps[p->nstamps];
		if (stamp_locate(rte_pktmbuf_mtod(m[i], uint8_t *), m[i]->data_len, &st->s) != STAMP_OK)
			continue;
		if (piped && engine_pkt_due(m[i]) != j)
			st->s.flags |= PROBE_STAMP_LATE;
		st->flow = flow;
		p->nstamps++;
	}
}

/* Just before the push: this node, the frame and the push time into each probe. */
static void stamp_push(struct engine *e, struct eng_port *p, int64_t j, tdp_time_t t)
{
	int32_t off = (int32_t)tdp_time_diff(t, frame_start(&e->g, j));
	for (uint32_t i = 0; i < p->nstamps; i++) {
		stamp_write(&p->stamps[i].s, e->node_id, j, off);
		CTR_ADD(e->flows[p->stamps[i].flow]->st.stamped, 1);
	}
	p->nstamps = 0;
}

static void stage(struct engine *e, int64_t j)
{
	uint32_t n;
	const struct sched_entry *row = sched_row(e->t, frame_tfc(&e->g, j), &n);
	for (uint32_t p = 0; p < e->nports; p++) {
		e->ports[p].nstage = 0;
		e->ports[p].nseg = 0;
		e->ports[p].nstamps = 0;
		e->ports[p].stage_wire_ns = 0;
	}
	for (uint32_t x = 0; x < n; x++) {
		struct eng_flow *fl = e->flows[row[x].flow];
		struct eng_port *p = &e->ports[fl->port];
		struct rte_mbuf **at = p->stage + p->nstage;
		uint32_t got = take_for(e, row[x].flow, j, at, row[x].n);
		for (uint32_t i = 0; i < got; i++) {
			p->stage_wire_ns += wire_ns(p, at[i]);
			p->wire_end[p->nstage + i + 1] = p->stage_wire_ns;
		}
		if (e->t->flows[row[x].flow].stamp)
			stamp_find(e, p, row[x].flow, j, at, got);
		p->nstage += got;
		p->seg[p->nseg++] = (struct seg){row[x].flow, (uint16_t)got};
		CTR_ADD(fl->st.reserved, row[x].n);
		CTR_ADD(fl->st.unused, row[x].n - got);
	}
}

/*
 * Staged packets of flow fl that will not leave in their frame: carried to
 * the flow's next reserved frame, ahead of what it already carries (they are
 * older), when the policy says so and they fit; dropped otherwise. Returns
 * true if carried.
 */
static bool missed(struct engine *e, struct eng_flow *fl, struct rte_mbuf **m, uint32_t cnt)
{
	if (e->late == LATE_CARRY && fl->ncarry + cnt <= fl->carry_cap) {
		memmove(fl->carry + cnt, fl->carry, fl->ncarry * sizeof(*fl->carry));
		memcpy(fl->carry, m, cnt * sizeof(*fl->carry));
		fl->ncarry += cnt;
		return true;
	}
	for (uint32_t i = 0; i < cnt; i++)
		rte_pktmbuf_free(m[i]);
	return false;
}

/* The staged burst of p missed its frame: drop it or carry it, per flow. */
static void late_port(struct engine *e, struct eng_port *p)
{
	uint32_t at = 0;
	for (uint32_t s = 0; s < p->nseg; s++) {
		struct eng_flow *fl = e->flows[p->seg[s].flow];
		uint32_t cnt = p->seg[s].n;
		CTR_ADD(fl->st.late_frames, 1);
		if (missed(e, fl, p->stage + at, cnt)) {
			CTR_ADD(fl->st.late_carried, cnt);
			CTR_ADD(p->st.late_carried, cnt);
		} else {
			CTR_ADD(fl->st.late_dropped, cnt);
			CTR_ADD(p->st.late_dropped, cnt);
		}
		at += cnt;
	}
	if (p->nseg)
		CTR_ADD(p->st.late_frames, 1);
	p->nstage = 0;
	p->nseg = 0;
	p->nstamps = 0;
}

/* A frame whose start passed while the engine was away; nothing was staged. */
static void skip_frame(struct engine *e, int64_t j)
{
	uint32_t n;
	const struct sched_entry *row = sched_row(e->t, frame_tfc(&e->g, j), &n);
	uint32_t last_port = UINT32_MAX;
	struct rte_mbuf *tmp[64];
	for (uint32_t x = 0; x < n; x++) {
		struct eng_flow *fl = e->flows[row[x].flow];
		if (fl->port != last_port) {
			CTR_ADD(e->ports[fl->port].st.late_frames, 1);
			last_port = fl->port;
		}
		CTR_ADD(fl->st.reserved, row[x].n);
		CTR_ADD(fl->st.late_frames, 1);
		bool piped = e->t->flows[row[x].flow].alpha != 0;
		if (e->late == LATE_CARRY && !piped) {
			/* the packets stay queued, in order, for the flow's next frame */
			CTR_ADD(fl->st.late_slots, row[x].n);
			continue;
		}
		/* drop the frame's packets; pipelined ones due here are carried under carry */
		uint32_t left = row[x].n, got = 0, carried = 0;
		while (left) {
			uint32_t w = left < 64 ? left : 64;
			uint32_t g = piped ? take_due(e, fl, j, tmp, w, false) : take(fl, tmp, w);
			uint32_t c = 0;
			if (piped && e->late == LATE_CARRY) {
				uint32_t room = fl->carry_cap - fl->ncarry;
				c = g < room ? g : room;
				memcpy(fl->carry + fl->ncarry, tmp, c * sizeof(*tmp));
				fl->ncarry += c;
			}
			for (uint32_t i = c; i < g; i++)
				rte_pktmbuf_free(tmp[i]);
			got += g;
			carried += c;
			left -= w;
			if (g < w)
				break;
		}
		CTR_ADD(fl->st.late_carried, carried);
		CTR_ADD(fl->st.late_dropped, got - carried);
		CTR_ADD(e->ports[fl->port].st.late_carried, carried);
		CTR_ADD(e->ports[fl->port].st.late_dropped, got - carried);
		CTR_ADD(fl->st.unused, row[x].n - got);
	}
}

/*
 * Hands the driver what it has not yet taken of p's staged frame, from
 * stage[done], until it has taken all or the next packet would no longer end
 * before `end` (the frame's guard band): a TX ring smaller than the row, or a
 * driver that takes a few per call, is refilled while the port sends. The wire
 * model is the late check's: a packet starts when it is handed over or when
 * the one before it ends; a call is taken to hand its packets over as late as
 * the previous call took (measured from the time read before it, `before`),
 * and a call is offered only the packets that would end in time. Returns how
 * many the driver has taken; *cur becomes when the port will have sent them.
 */
static uint32_t tx_until(struct engine *e, struct eng_port *p, uint32_t done, tdp_time_t before, tdp_time_t end,
			 tdp_time_t *cur)
{
	uint32_t n = p->nstage;
	const int64_t *we = p->wire_end;
	while (done < n) {
		tdp_time_t now = tb_fast_now(e->tb);
		tdp_time_t at = tdp_time_max(*cur, tdp_time_add(now, tdp_time_diff(now, before)));
		int64_t room = tdp_time_diff(end, at);
		/* the packets from done on that end by `end`: wire_end is increasing */
		uint32_t lo = done, hi = n - done < ENG_TX_CHUNK ? n : done + ENG_TX_CHUNK;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo + 1) / 2;
			if (we[mid] - we[done] <= room)
				lo = mid;
			else
				hi = mid - 1;
		}
		uint32_t want = lo - done;
		if (!want)
			break;
		before = now;
		uint16_t s = rte_eth_tx_burst(p->c.dpdk_port, p->c.txq, p->stage + done, (uint16_t)want);
		CTR_ADD(p->st.push_retries, 1);
		if (s)
			*cur = tdp_time_add(at, we[done + s] - we[done]);
		done += s;
		if (s < want)
			rte_pause();
	}
	return done;
}

/*
 * Pushes p's staged frame j at t: one call to the driver when it takes the
 * whole burst (the common case), else tx_until. Packets the driver has not
 * taken by the guard band follow the late policy and are counted, by flow and
 * by port with the same numbers, as tx_drop or tx_carried.
 */
static void push(struct engine *e, struct eng_port *p, int64_t j, tdp_time_t t, tdp_time_t end)
{
	uint32_t n = p->nstage;
	bool whole = true;
	if (p->nstamps)
		stamp_push(e, p, j, t);
	if (n) {
		uint32_t want = n < ENG_TX_CHUNK ? n : ENG_TX_CHUNK;
		uint32_t done = rte_eth_tx_burst(p->c.dpdk_port, p->c.txq, p->stage, (uint16_t)want);
		tdp_time_t cur = tdp_time_max(t, p->cursor);
		cur = tdp_time_add(cur, p->wire_end[done]);
		if (done < n)
			done = tx_until(e, p, done, t, end, &cur);
		uint64_t bytes = 0;
		for (uint32_t i = 0; i < done; i++)
			bytes += p->stage[i]->pkt_len;
		uint32_t at = 0;
		for (uint32_t s = 0; s < p->nseg; s++) {
			struct eng_flow *fl = e->flows[p->seg[s].flow];
			uint32_t cnt = p->seg[s].n;
			uint32_t ok = done > at ? (done - at < cnt ? done - at : cnt) : 0;
			CTR_ADD(fl->st.sent, ok);
			if (ok < cnt) {
				CTR_ADD(fl->st.late_frames, 1);
				if (missed(e, fl, p->stage + at + ok, cnt - ok)) {
					CTR_ADD(fl->st.tx_carried, cnt - ok);
					CTR_ADD(p->st.tx_carried, cnt - ok);
				} else {
					CTR_ADD(fl->st.tx_drop, cnt - ok);
					CTR_ADD(p->st.tx_drop, cnt - ok);
				}
			}
			at += cnt;
		}
		CTR_ADD(p->st.rsv_pkts, done);
		CTR_ADD(p->st.rsv_bytes, bytes);
		p->cursor = cur;
		whole = done == n;
	}
	if (p->nseg)
		CTR_ADD(*(whole ? &p->st.frames : &p->st.late_frames), 1);
	p->nstage = 0;
	p->nseg = 0;
}

/*
 * Adopts a table handed over once frame j is at or past its frame: one
 * acquire load per frame when there is none. Nothing is staged at this point
 * (the previous frame was pushed or dropped), so the staging arrays can be
 * swapped; carried packets move to larger arrays when the new table needs
 * them. Called in frame order, also for frames walked as skipped, so every
 * frame is served by exactly one table.
 */
static void adopt(struct engine *e, struct eng_table *nt, int64_t j)
{
	for (uint32_t f = 0; f < nt->nflows; f++) {
		struct rte_mbuf **g = nt->grow[f];
		if (!g)
			continue;
		struct eng_flow *fl = nt->flows[f];
		memcpy(g, fl->carry, fl->ncarry * sizeof(*g));
		nt->old_carry[f] = fl->carry;
		fl->carry = g;
		fl->carry_cap = nt->grow_cap[f];
	}
	table_enter(e, nt);
	CTR_ADD(e->st.swaps, 1);
	if (j != nt->at)
		CTR_ADD(e->st.late_swaps, 1);
	CTR_SET(e->st.last_swap_frame, j);
	__atomic_store_n(&nt->adopted, j, __ATOMIC_RELEASE);
	atomic_store_explicit(&e->pub, nt, memory_order_release);
}

/* The engine takes a table offered for a frame <= j by emptying the offer
 * with one compare-and-swap, so that engine_table_withdraw, which empties it
 * the same way, either withdraws it before or finds it taken. */
static inline struct eng_table *claim(struct engine *e, int64_t j)
{
	struct eng_table *nt = atomic_load_explicit(&e->offer, memory_order_acquire);
	if (__builtin_expect(nt == NULL, 1) || j < nt->at)
		return NULL;
	return atomic_compare_exchange_strong_explicit(&e->offer, &nt, NULL, memory_order_acq_rel,
						       memory_order_acquire) ? nt : NULL;
}

static inline void maybe_adopt(struct engine *e, int64_t j)
{
	struct eng_table *nt = claim(e, j);
	if (__builtin_expect(nt != NULL, 0))
		adopt(e, nt, j);
}

/*
 * Sees steps back of the reference in the times the engine reads: the frame
 * index of a read below that of an earlier one means frame starts come round
 * again. They are counted; next stays where it is, so no row goes out twice.
 */
static void note_time(struct engine *e, tdp_time_t now)
{
	int64_t i = frame_index(&e->g, now);
	if (i < e->seen) {
		CTR_ADD(e->st.back_steps, 1);
		CTR_ADD(e->st.repeated_frames, (uint64_t)(e->seen - i));
		CTR_SET(e->st.last_jump_frames, i - e->seen);
	}
	e->seen = i;
}

/*
 * The tick-driven path: waits for the tick that marks the start of frame j-1
 * (older ones, doubled and spurious ones are read and passed over), at most
 * until the precise wait for start(j) has to begin.
 */
static void await_tick(struct engine *e, int64_t j, tdp_time_t boundary)
{
	for (;;) {
		tdp_time_t now = tb_fast_now(e->tb);
		int64_t left = tdp_time_diff(boundary, now) - pw_lead_ns(&e->pw) - e->pw.cfg.min_sleep_ns;
		if (left <= 0) {
			CTR_ADD(e->st.tick_timeouts, 1);
			return;
		}
		struct timespec ts = {left / TDP_NS_PER_S, left % TDP_NS_PER_S};
		struct pollfd pfd = {.fd = e->tick_fd, .events = POLLIN};
		int r = ppoll(&pfd, 1, &ts, NULL);
		if (r == 0) {
			CTR_ADD(e->st.tick_timeouts, 1);
			return;
		}
		if (r < 0)
			return; /* a signal: the stop flag is looked at after this frame */
		int64_t f = e->tb->ops->tick(e->tb);
		if (f < 0)
			continue;
		CTR_ADD(e->st.ticks, 1);
		if (f == j - 1) /* an older one waited while the engine was elsewhere: not a latency */
			hist_add(&e->tick_lat, tdp_time_diff(tb_fast_now(e->tb), frame_start(&e->g, f)));
		if (f >= j - 1)
			return;
	}
}

/*
 * Wait for the boundary of frame j: sleep in be_poll slices while filling best
 * effort, stage j, then the predictive sleep and a poll to the boundary. A
 * step back while polling (more than a frame left) goes back to sleeping.
 * Returns the time read that passed the boundary: the push time.
 */
static tdp_time_t wait_and_stage(struct engine *e, int64_t j, tdp_time_t boundary)
{
	struct timebase *tb = e->tb;
	if (e->tick_fd >= 0)
		await_tick(e, j, boundary);
	tdp_time_t now = tb_fast_now(tb);
	if (e->be_poll_ns > 0) {
		for (;;) {
			be_fill_all(e, now);
			int64_t left = tdp_time_diff(boundary, now) - pw_lead_ns(&e->pw);
			if (left < e->be_poll_ns + e->pw.cfg.min_sleep_ns)
				break;
			tdp_time_t to = tdp_time_add(now, e->be_poll_ns);
			tb_sleep_until(tb, to);
			tdp_time_t woke = tb_fast_now(tb);
			if (tdp_time_before(now, woke))
				CTR_ADD(e->st.sleep_ns, (uint64_t)tdp_time_diff(woke, now));
			pw_woke(&e->pw, to, woke, boundary);
			note_time(e, woke);
			now = woke;
		}
	}
	if (!e->demote)
		stage(e, j);
	be_fill_all(e, now);
	for (;;) {
		now = tb_fast_now(tb);
		tdp_time_t to;
		if (pw_plan(&e->pw, now, boundary, &to)) {
			tb_sleep_until(tb, to);
			tdp_time_t woke = tb_fast_now(tb);
			if (tdp_time_before(now, woke))
				CTR_ADD(e->st.sleep_ns, (uint64_t)tdp_time_diff(woke, now));
			if (pw_woke(&e->pw, to, woke, boundary))
				pw_book_cost(&e->pw, tdp_time_diff(tb_fast_now(tb), woke));
			note_time(e, woke);
			now = tb_fast_now(tb);
		}
		while (tdp_time_before(now, boundary) && tdp_time_diff(boundary, now) <= e->g.tf_ns) {
			rte_pause();
			now = tb_fast_now(tb);
		}
		if (!tdp_time_before(now, boundary))
			return now;
		note_time(e, now);
		be_fill_all(e, now);
	}
}

void engine_start(struct engine *e)
{
	tdp_time_t now = tb_now(e->tb);
	CTR_SET(e->next, frame_index(&e->g, now) + 1);
	if (e->tab->adopted == INT64_MIN)
		__atomic_store_n(&e->tab->adopted, e->next, __ATOMIC_RELEASE);
	e->seen = e->next - 1;
	e->fill_end = tdp_time_add(frame_start(&e->g, e->next), -e->guard_ns);
}

int64_t engine_step(struct engine *e)
{
	int64_t j = e->next;
	maybe_adopt(e, j);
	tdp_time_t start = frame_start(&e->g, j);
	enum tb_state ss = tb_state(e->tb);
	enum sync_action act = e->act[ss];
	e->demote = act == SA_DEMOTE;
	note_time(e, tb_fast_now(e->tb));
	tdp_time_t t = wait_and_stage(e, j, start);
	int64_t cur = frame_index(&e->g, t);
	e->seen = cur;
	hist_add(&e->err, tdp_time_diff(t, start));
	CTR_ADD(e->st.frames, 1);
	if (ss == TB_HOLDOVER)
		CTR_ADD(e->st.holdover_frames, 1);
	else if (ss == TB_UNLOCKED)
		CTR_ADD(e->st.unlocked_frames, 1);
	if (act == SA_ALARM)
		CTR_ADD(e->st.alarm_frames, 1);
	else if (act == SA_DEMOTE)
		CTR_ADD(e->st.demoted_frames, 1);
	if (cur > j) {
		/* woke in a later frame: j and every frame up to the current one are late */
		for (uint32_t p = 0; p < e->nports; p++)
			late_port(e, &e->ports[p]);
		int64_t skipped = cur - j;
		int64_t walk = skipped < (int64_t)e->g.k ? skipped : (int64_t)e->g.k;
		if (e->demote)
			walk = 0; /* no reservation is being served: nothing to account */
		for (int64_t x = 1; x <= walk; x++) {
			maybe_adopt(e, j + x);
			skip_frame(e, j + x);
		}
		/* a table due in the frames not walked took effect at its own frame */
		struct eng_table *nt = claim(e, cur);
		if (nt)
			adopt(e, nt, nt->at);
		CTR_ADD(e->st.late_frames, 1);
		CTR_ADD(e->st.skipped_frames, (uint64_t)skipped);
		CTR_ADD(e->st.skip_events, 1);
		CTR_SET(e->st.last_jump_frames, skipped);
		CTR_SET(e->next, cur + 1);
	} else {
		tdp_time_t end = tdp_time_add(start, e->g.tf_ns - e->guard_ns);
		bool late = false;
		for (uint32_t p = 0; p < e->nports; p++) {
			struct eng_port *pt = &e->ports[p];
			if (pt->nstage && tdp_time_diff(end, tdp_time_max(t, pt->cursor)) < pt->stage_wire_ns) {
				late_port(e, pt);
				late = true;
			} else {
				push(e, pt, j, t, end);
			}
		}
		if (late)
			CTR_ADD(e->st.late_frames, 1);
		CTR_SET(e->next, j + 1);
	}
	CTR_SET(e->st.last_push_ns, t.ns);

	/* bookkeeping that waited for the push */
	if (e->pw.pending) {
		tdp_time_t b0 = tb_fast_now(e->tb);
		pw_flush(&e->pw);
		pw_book_cost(&e->pw, tdp_time_diff(tb_fast_now(e->tb), b0));
	}
	/* best effort in the frame we are in, up to its guard band */
	e->fill_end = tdp_time_add(frame_start(&e->g, e->next), -e->guard_ns);
	be_fill_all(e, tb_fast_now(e->tb));
	return j;
}

void engine_run(struct engine *e)
{
	engine_start(e);
	while (!atomic_load_explicit(&e->stop, memory_order_relaxed))
		engine_step(e);
}

void engine_stop(struct engine *e)
{
	atomic_store(&e->stop, 1);
}

/* ---- reading counters ---------------------------------------------------- */

void engine_table_flow_stats(const struct eng_table *nt, uint32_t flow, struct flow_stats *out)
{
	ctr_snapshot(out, &nt->flows[flow]->st, sizeof(struct flow_stats));
}

void engine_flow_stats(const struct engine *e, uint32_t flow, struct flow_stats *out)
{
	engine_table_flow_stats(engine_table_current(e), flow, out);
}

void engine_port_stats(const struct engine *e, uint32_t port, struct port_stats *out)
{
	ctr_snapshot(out, &e->ports[port].st, sizeof(struct port_stats));
}

void engine_stats(const struct engine *e, struct eng_stats *out)
{
	ctr_snapshot(out, &e->st, sizeof(struct eng_stats));
}

const struct hist *engine_error_hist(const struct engine *e)
{
	return &e->err;
}

const struct hist *engine_tick_hist(const struct engine *e)
{
	return &e->tick_lat;
}

const struct pw *engine_pw(const struct engine *e)
{
	return &e->pw;
}
