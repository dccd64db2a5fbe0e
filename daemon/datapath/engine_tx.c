/* SPDX-License-Identifier: BSD-3-Clause */
/* The port TX (engine_state.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "engine_state.h"

static void tx(struct eng_port *p, struct rte_mbuf **pkts, uint16_t n, uint64_t *drops)
{
	uint16_t sent = rte_eth_tx_burst(p->c.dpdk_port, p->c.txq, pkts, n);
	if (sent < n) {
		for (uint16_t i = sent; i < n; i++)
			rte_pktmbuf_free(pkts[i]);
		CTR_ADD(*drops, (uint64_t)(n - sent));
	}
}

/* A demoted flow's next packet: carried ones first, then its queue; round robin. */
static struct rte_mbuf *demoted_next(struct engine *e, struct eng_port *p, uint32_t *flow)
{
	for (uint32_t x = 0; x < p->nflows; x++) {
		uint32_t f = p->flows[(p->demote_rr + x) % p->nflows];
		struct rte_mbuf *m;
		if (eng_take(e->flows[f], &m, 1) == 1) {
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
	tdp_time_t at = tdp_time_max(now, p->cursor);
	int64_t room = e->g.tf_ns - e->guard_ns;
	/* the frame being filled starts at fstart; a packet that would start
	 * before it (a launch-time port handed frame j over a lead early, with
	 * nothing of its own in j) ends by the guard band of the frame before */
	tdp_time_t fstart = tdp_time_add(e->fill_end, e->guard_ns - e->g.tf_ns);
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
		tdp_time_t lim = tdp_time_before(at, fstart) ? tdp_time_add(fstart, -e->guard_ns)
							     : e->fill_end;
		if (tdp_time_diff(lim, at) < w) {
			p->held = m;
			if (dflow != UINT32_MAX)
				CTR_ADD(e->flows[dflow]->st.demoted, 1);
			break;
		}
		if (dflow != UINT32_MAX)
			CTR_ADD(e->flows[dflow]->st.demoted, 1);
		at = tdp_time_add(at, w);
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
		p->cursor = at;
	}
}

void eng_be_fill_all(struct engine *e, tdp_time_t now)
{
	for (uint32_t p = 0; p < e->nports; p++)
		if (e->demote || e->ports[p].held || !rte_ring_empty(e->ports[p].be))
			be_fill(e, &e->ports[p], now);
}

/* The staged probes of a stamp flow: where their stamps go, written at the push. */
static void stamp_find(struct engine *e, struct eng_port *p, uint32_t flow, int64_t j,
		       struct rte_mbuf **m, uint32_t n)
{
	bool piped = e->t->flows[flow].alpha != 0;
	for (uint32_t i = 0; i < n; i++) {
		struct eng_stamp *st = &p->stamps[p->nstamps];
		if (stamp_locate(rte_pktmbuf_mtod(m[i], uint8_t *), m[i]->data_len, &st->s) !=
		    STAMP_OK)
			continue;
		if (piped && engine_pkt_due(m[i]) != j)
			st->s.flags |= PROBE_STAMP_LATE;
		st->flow = flow;
		p->nstamps++;
	}
}

/* Just before the push: this node, the frame and the push time into each
 * probe; with launch times, the burst's launch time, flagged as such. */
static void stamp_push(struct engine *e, struct eng_port *p, int64_t j, tdp_time_t t, bool launch)
{
	int32_t off = (int32_t)tdp_time_diff(t, frame_start(&e->g, j));
	for (uint32_t i = 0; i < p->nstamps; i++) {
		if (launch)
			p->stamps[i].s.flags |= PROBE_STAMP_LAUNCH;
		stamp_write(&p->stamps[i].s, e->node_id, j, off);
		CTR_ADD(e->flows[p->stamps[i].flow]->st.stamped, 1);
	}
	p->nstamps = 0;
}

uint32_t eng_stage(struct engine *e, int64_t j)
{
	uint32_t n;
	const struct sched_entry *row = sched_row(e->t, frame_tfc(&e->g, j), &n);
	for (uint32_t p = 0; p < e->nports; p++) {
		e->ports[p].nstage = 0;
		e->ports[p].nseg = 0;
		e->ports[p].nstamps = 0;
		e->ports[p].stage_wire_ns = 0;
	}
	for (uint32_t r = 0; r < n; r++) {
		struct eng_flow *fl = e->flows[row[r].flow];
		struct eng_port *p = &e->ports[fl->port];
		struct rte_mbuf **at = p->stage + p->nstage;
		uint32_t got = eng_take_for(e, row[r].flow, j, at, row[r].n);
		for (uint32_t i = 0; i < got; i++) {
			p->stage_wire_ns += wire_ns(p, at[i]);
			p->wire_end[p->nstage + i + 1] = p->stage_wire_ns;
		}
		if (e->t->flows[row[r].flow].stamp)
			stamp_find(e, p, row[r].flow, j, at, got);
		p->nstage += got;
		p->seg[p->nseg++] = (struct seg){row[r].flow, got};
		CTR_ADD(fl->st.reserved, row[r].n);
		CTR_ADD(fl->st.unused, row[r].n - got);
	}
	return n;
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
 * many the driver has taken; *cursor becomes when the port will have sent them.
 */
static uint32_t tx_until(struct engine *e, struct eng_port *p, uint32_t done, tdp_time_t before,
			 tdp_time_t end, tdp_time_t *cursor)
{
	uint32_t n = p->nstage;
	const int64_t *we = p->wire_end;
	while (done < n) {
		tdp_time_t now = tb_fast_now(e->tb);
		tdp_time_t at =
			tdp_time_max(*cursor, tdp_time_add(now, tdp_time_diff(now, before)));
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
		uint16_t s =
			rte_eth_tx_burst(p->c.dpdk_port, p->c.txq, p->stage + done, (uint16_t)want);
		CTR_ADD(p->st.push_retries, 1);
		if (s)
			*cursor = tdp_time_add(at, we[done + s] - we[done]);
		done += s;
		if (s < want)
			rte_pause();
	}
	return done;
}

/* Each staged packet's launch time: the burst's start plus the wire time of
 * the packets before it, on the device's clock. */
static void launch_set(struct eng_port *p, const struct launch_map *lm, tdp_time_t base)
{
	for (uint32_t i = 0; i < p->nstage; i++) {
		struct rte_mbuf *m = p->stage[i];
		*RTE_MBUF_DYNFIELD(m, p->c.ts_off, uint64_t *) =
			launch_dev(lm, tdp_time_add(base, p->wire_end[i]));
		m->ol_flags |= p->c.ts_flag;
	}
}

/*
 * Pushes p's staged frame j at t: one call to the driver when it takes the
 * whole burst (the common case), else tx_until. Packets the driver has not
 * taken by the guard band follow the late policy and are counted, by flow and
 * by port with the same numbers, as tx_drop or tx_carried. With lm, t is the
 * frame's start, a lead ahead: each packet goes with its launch time, and one
 * not taken loses it (carried, it goes out by the CPU's timing or again with
 * a launch time of its next frame).
 */
void eng_push(struct engine *e, struct eng_port *p, int64_t j, tdp_time_t t, tdp_time_t end,
	      const struct launch_map *lm)
{
	uint32_t n = p->nstage;
	bool whole = true;
	tdp_time_t base = tdp_time_max(t, p->cursor);
	if (p->nstamps)
		stamp_push(e, p, j, lm ? base : t, lm != NULL);
	if (n) {
		if (lm)
			launch_set(p, lm, base);
		uint32_t want = n < ENG_TX_CHUNK ? n : ENG_TX_CHUNK;
		uint32_t done =
			rte_eth_tx_burst(p->c.dpdk_port, p->c.txq, p->stage, (uint16_t)want);
		tdp_time_t cursor = tdp_time_add(base, p->wire_end[done]);
		if (done < n)
			done = tx_until(e, p, done, t, end, &cursor);
		if (lm)
			for (uint32_t i = done; i < n; i++)
				p->stage[i]->ol_flags &= ~p->c.ts_flag;
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
				if (eng_missed(e, fl, p->stage + at + ok, cnt - ok)) {
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
		p->cursor = cursor;
		whole = done == n;
	}
	if (p->nseg) {
		CTR_ADD(*(whole ? &p->st.frames : &p->st.late_frames), 1);
		if (lm)
			CTR_ADD(p->st.launch_frames, 1);
	}
	p->nstage = 0;
	p->nseg = 0;
}
