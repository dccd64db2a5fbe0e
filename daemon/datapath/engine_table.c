/* SPDX-License-Identifier: BSD-3-Clause */
/* The table lifecycle (engine_state.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "bigmem.h"
#include "engine_state.h"

/* ---- set-up ----------------------------------------------------------- */

/* A port's best-effort ring at *mem: one consumer, the engine; one producer
 * per RX core (mp: several). */
static struct rte_ring *ring_at(uint8_t **mem, uint32_t depth, bool mp)
{
	struct rte_ring *r = (struct rte_ring *)*mem;
	ssize_t sz = rte_ring_get_memsize(rte_align32pow2(depth + 1));
	if (rte_ring_init(r, "tdp", depth,
			  (mp ? 0 : RING_F_SP_ENQ) | RING_F_SC_DEQ | RING_F_EXACT_SZ) != 0)
		return NULL;
	*mem += RTE_ALIGN_CEIL((size_t)sz, RTE_CACHE_LINE_SIZE);
	return r;
}

static void flow_free(struct slab *mem, struct eng_flow *fl, uint64_t *dropped)
{
	if (!fl)
		return;
	struct rte_mbuf *m;
	uint64_t n = 0;
	for (uint32_t c = 0; fl->rxq && c < fl->nrxq; c++) {
		struct flow_rx *q = &fl->rxq[c];
		while (q->slot && flowq_dequeue(q, &m, 1) == 1) {
			rte_pktmbuf_free(m);
			n++;
		}
		if (q->early) {
			rte_pktmbuf_free(q->early);
			n++;
		}
		free(q->arr);
	}
	for (uint32_t i = 0; i < fl->ncarry; i++)
		rte_pktmbuf_free(fl->carry[i]);
	n += fl->ncarry;
	if (dropped)
		*dropped += n;
	free(fl->carry);
	slab_free(mem, fl);
}

/* A queue's slots, on lines of their own: RX cores write their queues'. */
static size_t slots_bytes(uint32_t depth)
{
	return RTE_ALIGN_CEIL(flowq_slots(depth) * sizeof(struct rte_mbuf *), RTE_CACHE_LINE_SIZE);
}

/* A flow's block of the engine's slab: the flow, its nrxq queues, their slots. */
static size_t flow_block(uint32_t depth, uint32_t nrxq)
{
	return sizeof(struct eng_flow) + nrxq * (sizeof(struct flow_rx) + slots_bytes(depth));
}

/* A pipelined flow's arrival histograms (one per RX core), made once; a flow
 * that stops being pipelined keeps them (and their counts) for a later swap
 * back. */
static int flow_arr_alloc(struct eng_flow *fl)
{
	for (uint32_t c = 0; c < fl->nrxq; c++) {
		if (fl->rxq[c].arr)
			continue;
		struct hist *h = malloc(sizeof(*h));
		if (!h)
			return -1;
		hist_init(h);
		fl->rxq[c].arr = h;
	}
	return 0;
}

static struct eng_flow *flow_new(struct slab *mem, const char *name, uint32_t port,
				 uint32_t carry_cap, uint32_t depth, uint32_t nrxq)
{
	struct eng_flow *fl = slab_alloc(mem); /* zeroed */
	if (!fl)
		return NULL;
	snprintf(fl->name, sizeof(fl->name), "%s", name);
	fl->port = port;
	fl->carry_cap = carry_cap;
	fl->carry = calloc(carry_cap + 1, sizeof(*fl->carry));
	if (!fl->carry) {
		slab_free(mem, fl);
		return NULL;
	}
	fl->rxq = (struct flow_rx *)(void *)(fl + 1);
	fl->nrxq = nrxq;
	uint8_t *slots = (uint8_t *)(fl->rxq + nrxq);
	for (uint32_t c = 0; c < nrxq; c++)
		flowq_init(&fl->rxq[c],
			   (struct rte_mbuf **)(void *)(slots + c * slots_bytes(depth)), depth);
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
			bigmem_free(nt->ports[p].flows);
		}
	for (uint32_t i = 0; i < nt->ngrow; i++)
		free(nt->grow[i].carry);
	bigmem_free(nt->flows);
	free(nt->ports);
	free(nt->grow);
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
			flow_free(nt->mem, nt->flows[f], NULL);
		nt->flows[f] = NULL;
	}
	table_free(nt);
}

/*
 * Builds the runtime form of t for engine e: a flow that the table in force
 * (in_force, NULL at creation) has with the same name on the same port keeps its
 * state; the others get a queue of their own. The ports must be the engine's,
 * in the same order, with the same TF and epoch: a different frame grid needs
 * a restart.
 */
/* The largest per-frame demand of each flow (cap) and of each port (its
 * staging and segment room), over the distinct rows. */
static void table_demand(const struct sched_table *t, struct eng_table *nt, uint32_t *cap)
{
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
}

/* each port's staging room and its list of flows; 0, or -1 out of memory */
static int table_ports(const struct sched_table *t, struct eng_table *nt)
{
	for (uint32_t p = 0; p < t->nports; p++) {
		struct eng_tport *tp = &nt->ports[p];
		tp->stage = calloc(tp->stage_cap + 1, sizeof(*tp->stage));
		tp->wire_end = calloc(tp->stage_cap + 1, sizeof(*tp->wire_end));
		tp->stamps = calloc(tp->stage_cap + 1, sizeof(*tp->stamps));
		tp->seg = calloc(tp->seg_cap + 1, sizeof(*tp->seg));
		tp->flows = bigmem_calloc(t->nflows + 1, sizeof(*tp->flows));
		if (!tp->stage || !tp->wire_end || !tp->stamps || !tp->seg || !tp->flows)
			return -1;
		for (uint32_t f = 0; f < t->nflows; f++)
			if (t->flows[f].port == p)
				tp->flows[tp->nflows++] = f;
	}
	return 0;
}

/* Flow f of the new table: the one in force of its name on its port (old),
 * kept with its queue, carried packets and counters, else a new one. 0, or
 * -1 with err. */
static int table_flow(const struct engine *e, const struct sched_table *t, struct eng_table *nt,
		      uint32_t f, struct eng_flow *old, const uint32_t *cap, char *err,
		      size_t errlen)
{
	const struct sched_flow *sf = &t->flows[f];
	if (old) {
		nt->flows[f] = old;
		nt->kept[f] = true;
		/* RX reads it only under a table where the flow is pipelined,
		 * which this one is not yet: the offer publishes it */
		if (sf->alpha && flow_arr_alloc(old) != 0) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (cap[f] > old->carry_cap) {
			struct eng_grow *g = &nt->grow[nt->ngrow];
			*g = (struct eng_grow){f, cap[f], calloc(cap[f] + 1, sizeof(*g->carry))};
			if (!g->carry) {
				snprintf(err, errlen, "out of memory");
				return -1;
			}
			nt->ngrow++;
		}
		return 0;
	}
	nt->flows[f] =
		flow_new(e->flow_mem, sf->name, sf->port, cap[f], e->flow_depth, e->rx_cores);
	if (nt->flows[f] && sf->alpha && flow_arr_alloc(nt->flows[f]) != 0) {
		flow_free(e->flow_mem, nt->flows[f], NULL);
		nt->flows[f] = NULL;
	}
	if (!nt->flows[f]) {
		snprintf(err, errlen, "out of memory for the queue of flow %s", sf->name);
		return -1;
	}
	return 0;
}

/* The flows in force the new table does not keep, which the swap retires;
 * 0, or -1 out of memory. */
static int table_removed(struct eng_table *nt, const struct eng_table *in_force, const bool *kept)
{
	nt->removed = calloc(in_force->nflows + 1, sizeof(*nt->removed));
	if (!nt->removed)
		return -1;
	for (uint32_t g = 0; g < in_force->nflows; g++)
		if (!kept[g])
			nt->removed[nt->nremoved++] = in_force->flows[g];
	return 0;
}

static struct eng_table *table_build(const struct engine *e, const struct sched_table *t,
				     const struct eng_table *in_force, char *err, size_t errlen)
{
	struct eng_table *nt = calloc(1, sizeof(*nt));
	if (!nt) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	nt->t = t;
	nt->mem = e->flow_mem;
	nt->adopted = INT64_MIN;
	nt->at = INT64_MIN;
	nt->nflows = t->nflows;
	nt->rx_cores = e->rx_cores;
	nt->nports = t->nports;
	nt->flows = bigmem_calloc(t->nflows + 1, sizeof(*nt->flows));
	nt->kept = calloc(t->nflows + 1, sizeof(*nt->kept));
	nt->ports = calloc(t->nports + 1, sizeof(*nt->ports));
	nt->grow = in_force ? calloc(t->nflows + 1, sizeof(*nt->grow)) : NULL;
	uint32_t *cap = calloc(t->nflows + 1, sizeof(uint32_t));
	bool *kept = in_force ? calloc(in_force->nflows + 1, sizeof(bool)) : NULL;
	/* each flow's in the table in force by name (n log n at 10^6 flows) */
	int32_t *was = in_force ? malloc((t->nflows + 1) * sizeof(*was)) : NULL;
	if (!nt->flows || !nt->kept || !nt->ports || !cap ||
	    (in_force && (!nt->grow || !kept || !was || sched_flow_map(t, in_force->t, was)))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	table_demand(t, nt, cap);
	if (table_ports(t, nt)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (uint32_t f = 0; f < t->nflows; f++) {
		const struct sched_flow *sf = &t->flows[f];
		struct eng_flow *old = NULL;
		int32_t g = was ? was[f] : -1;
		if (g >= 0 && in_force->flows[g]->port == sf->port) {
			old = in_force->flows[g];
			kept[g] = true;
		}
		if (table_flow(e, t, nt, f, old, cap, err, errlen))
			goto fail;
	}
	if (in_force && table_removed(nt, in_force, kept)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	free(cap);
	free(kept);
	free(was);
	return nt;
fail:
	free(cap);
	free(kept);
	free(was);
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
	e->rx_cores = c->rx_cores ? c->rx_cores : 1;
	e->node_id = c->node_id;
	e->nports = t->nports;
	e->act[TB_LOCKED] = SA_SERVE;
	e->act[TB_HOLDOVER] = c->holdover_action;
	e->act[TB_UNLOCKED] = c->unlocked_action;
	e->act_budget = c->budget_action;
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
	e->flow_mem = slab_new(flow_block(e->flow_depth, e->rx_cores));
	if (!e->flow_mem) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (posix_memalign((void **)&e->ports, RTE_CACHE_LINE_SIZE,
			   (e->nports + 1) * sizeof(*e->ports))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	memset(e->ports, 0, (e->nports + 1) * sizeof(*e->ports));
	size_t br = RTE_ALIGN_CEIL((size_t)rte_ring_get_memsize(rte_align32pow2(c->be_depth + 1)),
				   RTE_CACHE_LINE_SIZE);
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
		pt->be = ring_at(&mem, c->be_depth, e->rx_cores > 1);
		if (!pt->be) {
			snprintf(err, errlen, "cannot make the best-effort queue of port %s",
				 t->ports[p].name);
			goto fail;
		}
	}
	for (uint32_t p = 0; p < e->nports; p++)
		if (c->ports[p].launch)
			e->lead_ns = c->launch_lead_default && c->launch_lead_ns > e->g.tf_ns / 2
					     ? e->g.tf_ns / 2
					     : c->launch_lead_ns;
	e->launch_margin_ns = c->launch_margin_ns;
	if (e->lead_ns && (e->lead_ns > e->g.tf_ns / 2 || c->launch_margin_ns < 0 ||
			   c->launch_margin_ns >= e->lead_ns)) {
		snprintf(err, errlen,
			 "launch-lead %" PRId64 " ns must be above launch-margin (%" PRId64
			 " ns) and at most half the TF (%" PRId64 " ns)",
			 e->lead_ns, c->launch_margin_ns, e->g.tf_ns);
		goto fail;
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
			flow_free(e->flow_mem, cur->flows[f], NULL);
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
	slab_destroy(e->flow_mem);
	free(e);
}

/* ---- table swap (control side) ------------------------------------------ */

struct eng_table *engine_table_build(struct engine *e, const struct sched_table *t, char *err,
				     size_t errlen)
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
		snprintf(err, errlen,
			 "TF or epoch differs from the table in force (TF %" PRIu64
			 " ns, epoch %" PRIu64 " ns): a new frame grid needs a restart",
			 ct->tf_ns, ct->epoch_ns);
		return NULL;
	}
	if (t->nports != ct->nports) {
		snprintf(err, errlen,
			 "the table has %u ports, the one in force %u: ports change only with a "
			 "restart",
			 t->nports, ct->nports);
		return NULL;
	}
	for (uint32_t p = 0; p < t->nports; p++)
		if (strcmp(t->ports[p].name, ct->ports[p].name) ||
		    t->ports[p].rate_bps != ct->ports[p].rate_bps ||
		    t->ports[p].overhead != ct->ports[p].overhead) {
			snprintf(err, errlen,
				 "port %u is %s at %" PRIu64
				 " bit/s (overhead %u); the table in force has %s at %" PRIu64
				 " bit/s (overhead %u): ports change only with a restart",
				 p + 1, t->ports[p].name, t->ports[p].rate_bps,
				 t->ports[p].overhead, ct->ports[p].name, ct->ports[p].rate_bps,
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

int engine_table_offer(struct engine *e, struct eng_table *nt, int64_t frame, char *err,
		       size_t errlen)
{
	int64_t next = engine_next_frame(e);
	if (frame < next + 2) {
		snprintf(err, errlen,
			 "frame %" PRId64 " is too close: the engine is staging frame %" PRId64
			 " (a table is adopted at least 2 frames ahead)",
			 frame, next);
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
	uint64_t dropped = 0;
	struct eng_table *old = cur->prev;
	if (!old)
		return 0;
	for (uint32_t i = 0; i < cur->nremoved; i++)
		flow_free(e->flow_mem, cur->removed[i], &dropped);
	cur->nremoved = 0;
	for (uint32_t i = 0; i < cur->ngrow; i++) {
		free(cur->grow[i].carry);
		cur->grow[i].carry = NULL;
	}
	old->nflows = 0; /* its flows are cur's or freed above */
	table_free(old);
	cur->prev = NULL;
	return dropped;
}

struct flow_rx *engine_table_flow_rxq(struct eng_table *nt, uint32_t flow, uint32_t core)
{
	return flow < nt->nflows && core < nt->flows[flow]->nrxq ? &nt->flows[flow]->rxq[core]
								 : NULL;
}

struct flow_rx *engine_table_flow_rx(struct eng_table *nt, uint32_t flow)
{
	return engine_table_flow_rxq(nt, flow, 0);
}

struct flow_rx *engine_flow_rx(struct engine *e, uint32_t flow)
{
	return engine_table_flow_rx(engine_table_current(e), flow);
}

bool engine_table_flow_rx_sum(struct eng_table *nt, uint32_t flow, struct flow_rx_sum *out,
			      struct hist *arr)
{
	memset(out, 0, sizeof(*out));
	if (arr)
		hist_init(arr);
	bool has_arr = false;
	for (uint32_t c = 0; flow < nt->nflows && c < nt->flows[flow]->nrxq; c++) {
		const struct flow_rx *q = &nt->flows[flow]->rxq[c];
#define SUM(field, key, help) out->field += CTR_GET(q->field);
		CTL_FLOW_RX_COUNTERS(SUM)
#undef SUM
		int64_t at = CTR_GET(q->moved_at_ns);
		if (at > out->moved_at_ns) {
			out->moved_at_ns = at;
			out->moved_port = CTR_GET(q->moved_port);
		}
		if (q->arr) {
			has_arr = true;
			if (arr) {
				struct hist h;
				hist_snapshot(&h, q->arr);
				hist_merge(arr, &h);
			}
		}
	}
	return has_arr;
}

uint32_t engine_table_rx_cores(const struct eng_table *nt)
{
	return nt->rx_cores;
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

/*
 * Adopts a table handed over once frame j is at or past its frame: one
 * acquire load per frame when there is none. Nothing is staged at this point
 * (the previous frame was pushed or dropped), so the staging arrays can be
 * swapped; carried packets move to larger arrays when the new table needs
 * them. Called in frame order, also for frames walked as skipped, so every
 * frame is served by exactly one table.
 */
void eng_adopt(struct engine *e, struct eng_table *nt, int64_t j)
{
	for (uint32_t i = 0; i < nt->ngrow; i++) {
		struct eng_grow *g = &nt->grow[i];
		struct eng_flow *fl = nt->flows[g->flow];
		struct rte_mbuf **grown = g->carry;
		memcpy(grown, fl->carry, fl->ncarry * sizeof(*grown));
		g->carry = fl->carry;
		fl->carry = grown;
		fl->carry_cap = g->cap;
	}
	table_enter(e, nt);
	CTR_ADD(e->st.swaps, 1);
	if (j != nt->at)
		CTR_ADD(e->st.late_swaps, 1);
	CTR_SET(e->st.last_swap_frame, j);
	__atomic_store_n(&nt->adopted, j, __ATOMIC_RELEASE);
	atomic_store_explicit(&e->pub, nt, memory_order_release);
}
