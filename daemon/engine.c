/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "engine.h"

#define BE_BURST 32

/* single writer: a relaxed store is enough for readers on other lcores */
#define ST_ADD(field, v) __atomic_store_n(&(field), (field) + (v), __ATOMIC_RELAXED)
#define ST_GET(field) __atomic_load_n(&(field), __ATOMIC_RELAXED)

struct seg {
	uint16_t flow;
	uint16_t n;               /* packets staged */
};

struct eng_flow {
	struct rte_ring *q;
	uint32_t port;
	uint32_t carry_cap, ncarry;
	struct rte_mbuf **carry;  /* FIFO of packets carried from late frames */
	struct flow_stats st;
} __rte_cache_aligned;

struct eng_port {
	struct eng_port_cfg c;
	struct rte_ring *be;
	struct rte_mbuf *held;    /* best effort that did not fit; goes first next time */
	struct rte_mbuf **stage;
	uint32_t nstage, stage_cap;
	struct seg *seg;
	uint32_t nseg, seg_cap;
	int64_t stage_wire_ns;
	tdp_time_t cursor;        /* when the port will have sent what it was given */
	uint32_t *flows;          /* the port's flows, for demotion */
	uint32_t nflows, demote_rr;
	struct port_stats st;
} __rte_cache_aligned;

struct engine {
	const struct sched_table *t;
	struct timebase *tb;
	struct frame_geom g;
	int64_t guard_ns;
	enum late_policy late;
	int64_t be_poll_ns;
	int64_t refresh_ns;
	tdp_time_t next_refresh;
	struct pw pw;

	enum sync_action act[3];  /* by enum tb_state */
	bool demote;              /* this frame: reserved flows go out as best effort */
	int64_t seen;             /* frame index of the latest time read, to see steps back */

	int64_t next;             /* frame to push next */
	tdp_time_t fill_end;      /* best effort may be on the wire until here */

	struct eng_flow *flows;
	uint32_t nflows;
	struct eng_port *ports;
	uint32_t nports;
	void *ring_mem;
	struct rte_mbuf **carry_mem;

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
	e->refresh_ns = c->refresh_ns;
	e->nflows = t->nflows;
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
	if (posix_memalign((void **)&e->flows, RTE_CACHE_LINE_SIZE, (e->nflows + 1) * sizeof(*e->flows)) ||
	    posix_memalign((void **)&e->ports, RTE_CACHE_LINE_SIZE, (e->nports + 1) * sizeof(*e->ports))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	memset(e->flows, 0, (e->nflows + 1) * sizeof(*e->flows));
	memset(e->ports, 0, (e->nports + 1) * sizeof(*e->ports));

	/* largest per-frame demand per flow and per port, over the distinct rows */
	uint32_t *port_pk = calloc(e->nports, sizeof(uint32_t));
	uint32_t *port_en = calloc(e->nports, sizeof(uint32_t));
	if (!port_pk || !port_en) {
		free(port_pk);
		free(port_en);
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (uint32_t r = 0; r < t->nrows; r++) {
		uint32_t pk[SCHED_MAX_PORTS] = {0}, en[SCHED_MAX_PORTS] = {0};
		for (uint32_t x = t->row_off[r]; x < t->row_off[r + 1]; x++) {
			const struct sched_entry *en_ = &t->ent[x];
			uint32_t p = t->flows[en_->flow].port;
			pk[p] += en_->n;
			en[p]++;
			if (en_->n > e->flows[en_->flow].carry_cap)
				e->flows[en_->flow].carry_cap = en_->n;
		}
		for (uint32_t p = 0; p < e->nports; p++) {
			if (pk[p] > port_pk[p])
				port_pk[p] = pk[p];
			if (en[p] > port_en[p])
				port_en[p] = en[p];
		}
	}

	size_t ring_bytes = 0, carry_total = 0;
	size_t fr = RTE_ALIGN_CEIL((size_t)rte_ring_get_memsize(rte_align32pow2(c->flow_depth + 1)), RTE_CACHE_LINE_SIZE);
	size_t br = RTE_ALIGN_CEIL((size_t)rte_ring_get_memsize(rte_align32pow2(c->be_depth + 1)), RTE_CACHE_LINE_SIZE);
	ring_bytes = fr * e->nflows + br * e->nports;
	for (uint32_t f = 0; f < e->nflows; f++)
		carry_total += e->flows[f].carry_cap;
	if (posix_memalign(&e->ring_mem, RTE_CACHE_LINE_SIZE, ring_bytes + 64)) {
		free(port_pk);
		free(port_en);
		snprintf(err, errlen, "out of memory for %zu bytes of queues", ring_bytes);
		goto fail;
	}
	uint8_t *mem = e->ring_mem;
	struct rte_mbuf **carry = e->carry_mem = calloc(carry_total + 1, sizeof(*carry));
	bool oom = !carry;
	for (uint32_t f = 0; f < e->nflows && !oom; f++) {
		struct eng_flow *fl = &e->flows[f];
		fl->port = t->flows[f].port;
		fl->q = ring_at(&mem, c->flow_depth);
		fl->carry = carry;
		carry += fl->carry_cap;
		oom = !fl->q;
	}
	for (uint32_t p = 0; p < e->nports && !oom; p++) {
		struct eng_port *pt = &e->ports[p];
		pt->c = c->ports[p];
		if (pt->c.rate_bps == 0)
			pt->c.rate_bps = t->ports[p].rate_bps;
		pt->be = ring_at(&mem, c->be_depth);
		pt->stage_cap = port_pk[p];
		pt->seg_cap = port_en[p];
		pt->stage = calloc(pt->stage_cap + 1, sizeof(*pt->stage));
		pt->seg = calloc(pt->seg_cap + 1, sizeof(*pt->seg));
		pt->flows = calloc(e->nflows + 1, sizeof(*pt->flows));
		oom = !pt->be || !pt->stage || !pt->seg || !pt->flows;
		for (uint32_t f = 0; f < e->nflows && !oom; f++)
			if (t->flows[f].port == p)
				pt->flows[pt->nflows++] = f;
	}
	free(port_pk);
	free(port_en);
	if (oom) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
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
	if (e->flows) {
		for (uint32_t f = 0; f < e->nflows; f++) {
			free_ring(e->flows[f].q);
			for (uint32_t i = 0; i < e->flows[f].ncarry; i++)
				rte_pktmbuf_free(e->flows[f].carry[i]);
		}
	}
	if (e->ports) {
		for (uint32_t p = 0; p < e->nports; p++) {
			free_ring(e->ports[p].be);
			for (uint32_t i = 0; i < e->ports[p].nstage; i++)
				rte_pktmbuf_free(e->ports[p].stage[i]);
			if (e->ports[p].held)
				rte_pktmbuf_free(e->ports[p].held);
			free(e->ports[p].stage);
			free(e->ports[p].seg);
			free(e->ports[p].flows);
		}
	}
	free(e->ring_mem);
	free(e->carry_mem);
	free(e->flows);
	free(e->ports);
	free(e);
}

struct rte_ring *engine_flow_ring(struct engine *e, uint32_t flow)
{
	return flow < e->nflows ? e->flows[flow].q : NULL;
}

struct rte_ring *engine_be_ring(struct engine *e, uint32_t port)
{
	return port < e->nports ? e->ports[port].be : NULL;
}

int64_t engine_next_frame(const struct engine *e)
{
	return e->next;
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
		ST_ADD(*drops, (uint64_t)(n - sent));
	}
}

static uint32_t take(struct eng_flow *fl, struct rte_mbuf **out, uint32_t want);

/* A demoted flow's next packet: carried ones first, then its queue; round robin. */
static struct rte_mbuf *demoted_next(struct engine *e, struct eng_port *p, uint32_t *flow)
{
	for (uint32_t x = 0; x < p->nflows; x++) {
		uint32_t f = p->flows[(p->demote_rr + x) % p->nflows];
		struct rte_mbuf *m;
		if (take(&e->flows[f], &m, 1) == 1) {
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
			ST_ADD(p->st.be_too_big, 1);
			continue;
		}
		if (tdp_time_diff(e->fill_end, cur) < w) {
			p->held = m;
			if (dflow != UINT32_MAX)
				ST_ADD(e->flows[dflow].st.demoted, 1);
			break;
		}
		if (dflow != UINT32_MAX)
			ST_ADD(e->flows[dflow].st.demoted, 1);
		cur = tdp_time_add(cur, w);
		bytes += m->pkt_len;
		burst[nb++] = m;
		if (nb == BE_BURST) {
			ST_ADD(p->st.be_pkts, nb);
			tx(p, burst, nb, &p->st.be_tx_drop);
			nb = 0;
		}
	}
	if (nb) {
		ST_ADD(p->st.be_pkts, nb);
		tx(p, burst, nb, &p->st.be_tx_drop);
	}
	if (bytes) {
		ST_ADD(p->st.be_bytes, bytes);
		p->cursor = cur;
	}
}

static void be_fill_all(struct engine *e, tdp_time_t now)
{
	for (uint32_t p = 0; p < e->nports; p++)
		if (e->demote || e->ports[p].held || !rte_ring_empty(e->ports[p].be))
			be_fill(e, &e->ports[p], now);
}

/* Takes up to want packets of flow fl: carried ones first, then its queue. */
static uint32_t take(struct eng_flow *fl, struct rte_mbuf **out, uint32_t want)
{
	uint32_t c = fl->ncarry < want ? fl->ncarry : want;
	if (c) {
		memcpy(out, fl->carry, c * sizeof(*out));
		fl->ncarry -= c;
		memmove(fl->carry, fl->carry + c, fl->ncarry * sizeof(*out));
	}
	if (c < want)
		c += rte_ring_sc_dequeue_burst(fl->q, (void **)out + c, want - c, NULL);
	return c;
}

static void stage(struct engine *e, int64_t j)
{
	uint32_t n;
	const struct sched_entry *row = sched_row(e->t, frame_tfc(&e->g, j), &n);
	for (uint32_t p = 0; p < e->nports; p++) {
		e->ports[p].nstage = 0;
		e->ports[p].nseg = 0;
		e->ports[p].stage_wire_ns = 0;
	}
	for (uint32_t x = 0; x < n; x++) {
		struct eng_flow *fl = &e->flows[row[x].flow];
		struct eng_port *p = &e->ports[fl->port];
		struct rte_mbuf **at = p->stage + p->nstage;
		uint32_t got = take(fl, at, row[x].n);
		for (uint32_t i = 0; i < got; i++)
			p->stage_wire_ns += wire_ns(p, at[i]);
		p->nstage += got;
		p->seg[p->nseg++] = (struct seg){row[x].flow, (uint16_t)got};
		ST_ADD(fl->st.reserved, row[x].n);
		ST_ADD(fl->st.unused, row[x].n - got);
	}
}

/* The staged burst of p missed its frame: drop it or carry it, per flow. */
static void late_port(struct engine *e, struct eng_port *p)
{
	uint32_t at = 0;
	for (uint32_t s = 0; s < p->nseg; s++) {
		struct eng_flow *fl = &e->flows[p->seg[s].flow];
		uint32_t cnt = p->seg[s].n;
		ST_ADD(fl->st.late_frames, 1);
		if (e->late == LATE_CARRY && fl->ncarry + cnt <= fl->carry_cap) {
			memmove(fl->carry + cnt, fl->carry, fl->ncarry * sizeof(*fl->carry));
			memcpy(fl->carry, p->stage + at, cnt * sizeof(*fl->carry));
			fl->ncarry += cnt;
			ST_ADD(fl->st.late_carried, cnt);
		} else {
			for (uint32_t i = 0; i < cnt; i++)
				rte_pktmbuf_free(p->stage[at + i]);
			ST_ADD(fl->st.late_dropped, cnt);
		}
		at += cnt;
	}
	if (p->nseg)
		ST_ADD(p->st.late_frames, 1);
	p->nstage = 0;
	p->nseg = 0;
}

/* A frame whose start passed while the engine was away; nothing was staged. */
static void skip_frame(struct engine *e, int64_t j)
{
	uint32_t n;
	const struct sched_entry *row = sched_row(e->t, frame_tfc(&e->g, j), &n);
	uint32_t last_port = UINT32_MAX;
	struct rte_mbuf *tmp[64];
	for (uint32_t x = 0; x < n; x++) {
		struct eng_flow *fl = &e->flows[row[x].flow];
		if (fl->port != last_port) {
			ST_ADD(e->ports[fl->port].st.late_frames, 1);
			last_port = fl->port;
		}
		ST_ADD(fl->st.reserved, row[x].n);
		ST_ADD(fl->st.late_frames, 1);
		if (e->late == LATE_CARRY) {
			/* the packets stay queued, in order, for the flow's next frame */
			ST_ADD(fl->st.late_slots, row[x].n);
			continue;
		}
		uint32_t left = row[x].n, got = 0;
		while (left) {
			uint32_t w = left < 64 ? left : 64;
			uint32_t g = take(fl, tmp, w);
			for (uint32_t i = 0; i < g; i++)
				rte_pktmbuf_free(tmp[i]);
			got += g;
			left -= w;
			if (g < w)
				break;
		}
		ST_ADD(fl->st.late_dropped, got);
		ST_ADD(fl->st.unused, row[x].n - got);
	}
}

static void push(struct engine *e, struct eng_port *p, tdp_time_t t)
{
	uint16_t n = (uint16_t)p->nstage;
	if (n) {
		uint64_t bytes = 0;
		for (uint16_t i = 0; i < n; i++)
			bytes += p->stage[i]->pkt_len;
		uint16_t sent = rte_eth_tx_burst(p->c.dpdk_port, p->c.txq, p->stage, n);
		/* attribute what the driver refused to its flows */
		uint32_t at = 0;
		for (uint32_t s = 0; s < p->nseg; s++) {
			struct eng_flow *fl = &e->flows[p->seg[s].flow];
			uint32_t cnt = p->seg[s].n, ok = 0;
			for (uint32_t i = 0; i < cnt; i++) {
				if (at + i < sent)
					ok++;
				else
					rte_pktmbuf_free(p->stage[at + i]);
			}
			ST_ADD(fl->st.sent, ok);
			if (ok < cnt)
				ST_ADD(fl->st.tx_drop, cnt - ok);
			at += cnt;
		}
		ST_ADD(p->st.rsv_pkts, sent);
		ST_ADD(p->st.rsv_bytes, bytes);
		if (sent < n)
			ST_ADD(p->st.tx_drop, (uint64_t)(n - sent));
		p->cursor = tdp_time_add(tdp_time_max(t, p->cursor), p->stage_wire_ns);
	}
	if (p->nseg)
		ST_ADD(p->st.frames, 1);
	p->nstage = 0;
	p->nseg = 0;
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
		ST_ADD(e->st.back_steps, 1);
		ST_ADD(e->st.repeated_frames, (uint64_t)(e->seen - i));
		__atomic_store_n(&e->st.last_jump_frames, i - e->seen, __ATOMIC_RELAXED);
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
			ST_ADD(e->st.tick_timeouts, 1);
			return;
		}
		struct timespec ts = {left / TDP_NS_PER_S, left % TDP_NS_PER_S};
		struct pollfd pfd = {.fd = e->tick_fd, .events = POLLIN};
		int r = ppoll(&pfd, 1, &ts, NULL);
		if (r == 0) {
			ST_ADD(e->st.tick_timeouts, 1);
			return;
		}
		if (r < 0)
			return; /* a signal: the stop flag is looked at after this frame */
		int64_t f = e->tb->ops->tick(e->tb);
		if (f < 0)
			continue;
		ST_ADD(e->st.ticks, 1);
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
				ST_ADD(e->st.sleep_ns, (uint64_t)tdp_time_diff(woke, now));
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
				ST_ADD(e->st.sleep_ns, (uint64_t)tdp_time_diff(woke, now));
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
	e->next = frame_index(&e->g, now) + 1;
	e->seen = e->next - 1;
	e->fill_end = tdp_time_add(frame_start(&e->g, e->next), -e->guard_ns);
	e->next_refresh = tdp_time_add(now, e->refresh_ns);
}

int64_t engine_step(struct engine *e)
{
	int64_t j = e->next;
	tdp_time_t start = frame_start(&e->g, j);
	enum tb_state ss = tb_state(e->tb);
	enum sync_action act = e->act[ss];
	e->demote = act == SA_DEMOTE;
	note_time(e, tb_fast_now(e->tb));
	tdp_time_t t = wait_and_stage(e, j, start);
	int64_t cur = frame_index(&e->g, t);
	e->seen = cur;
	hist_add(&e->err, tdp_time_diff(t, start));
	ST_ADD(e->st.frames, 1);
	if (ss == TB_HOLDOVER)
		ST_ADD(e->st.holdover_frames, 1);
	else if (ss == TB_UNLOCKED)
		ST_ADD(e->st.unlocked_frames, 1);
	if (act == SA_ALARM)
		ST_ADD(e->st.alarm_frames, 1);
	else if (act == SA_DEMOTE)
		ST_ADD(e->st.demoted_frames, 1);
	if (cur > j) {
		/* woke in a later frame: j and every frame up to the current one are late */
		for (uint32_t p = 0; p < e->nports; p++)
			late_port(e, &e->ports[p]);
		int64_t skipped = cur - j;
		int64_t walk = skipped < (int64_t)e->g.k ? skipped : (int64_t)e->g.k;
		if (e->demote)
			walk = 0; /* no reservation is being served: nothing to account */
		for (int64_t x = 1; x <= walk; x++)
			skip_frame(e, j + x);
		ST_ADD(e->st.late_frames, 1);
		ST_ADD(e->st.skipped_frames, (uint64_t)skipped);
		ST_ADD(e->st.skip_events, 1);
		__atomic_store_n(&e->st.last_jump_frames, skipped, __ATOMIC_RELAXED);
		e->next = cur + 1;
	} else {
		tdp_time_t end = tdp_time_add(start, e->g.tf_ns - e->guard_ns);
		bool late = false;
		for (uint32_t p = 0; p < e->nports; p++) {
			struct eng_port *pt = &e->ports[p];
			if (pt->nstage && tdp_time_diff(end, tdp_time_max(t, pt->cursor)) < pt->stage_wire_ns) {
				late_port(e, pt);
				late = true;
			} else {
				push(e, pt, t);
			}
		}
		if (late)
			ST_ADD(e->st.late_frames, 1);
		e->next = j + 1;
	}
	__atomic_store_n(&e->st.last_push_ns, t.ns, __ATOMIC_RELAXED);

	/* bookkeeping that waited for the push */
	if (e->pw.pending) {
		tdp_time_t b0 = tb_fast_now(e->tb);
		pw_flush(&e->pw);
		pw_book_cost(&e->pw, tdp_time_diff(tb_fast_now(e->tb), b0));
	}
	if (e->refresh_ns > 0 && e->tb->ops->refresh && !tdp_time_before(t, e->next_refresh)) {
		e->tb->ops->refresh(e->tb);
		e->next_refresh = tdp_time_add(t, e->refresh_ns);
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

#define COPY_STATS(dst, src, type)                                                   \
	do {                                                                         \
		const uint64_t *s_ = (const uint64_t *)(src);                        \
		uint64_t *d_ = (uint64_t *)(dst);                                    \
		for (size_t i_ = 0; i_ < sizeof(type) / sizeof(uint64_t); i_++)      \
			d_[i_] = __atomic_load_n(&s_[i_], __ATOMIC_RELAXED);         \
	} while (0)

void engine_flow_stats(const struct engine *e, uint32_t flow, struct flow_stats *out)
{
	COPY_STATS(out, &e->flows[flow].st, struct flow_stats);
}

void engine_port_stats(const struct engine *e, uint32_t port, struct port_stats *out)
{
	COPY_STATS(out, &e->ports[port].st, struct port_stats);
}

void engine_stats(const struct engine *e, struct eng_stats *out)
{
	COPY_STATS(out, &e->st, struct eng_stats);
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
