/* SPDX-License-Identifier: BSD-3-Clause */
/* The per-flow queue rules (engine_state.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_pause.h>

#include "engine_state.h"

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

/* The flow's queues in turn, from the one after the previous call's first:
 * RX cores share a flow's frames alike over time. */
static inline struct flow_rx *queue_at(struct eng_flow *fl, uint32_t i)
{
	uint32_t q = fl->rr + i;
	return &fl->rxq[q < fl->nrxq ? q : q - fl->nrxq];
}

static inline void queue_turn(struct eng_flow *fl)
{
	if (++fl->rr == fl->nrxq)
		fl->rr = 0;
}

/* Takes up to want packets of flow fl: carried ones first, then its queues. */
uint32_t eng_take(struct eng_flow *fl, struct rte_mbuf **out, uint32_t want)
{
	uint32_t c = take_carried(fl, out, want);
	for (uint32_t i = 0; c < want && i < fl->nrxq; i++) {
		struct flow_rx *q = queue_at(fl, i);
		if (q->early) {
			out[c++] = q->early;
			q->early = NULL;
		}
		if (c < want)
			c += flowq_dequeue(q, out + c, want - c);
	}
	queue_turn(fl);
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
 * Pipelined: up to want packets due in frame `frame`, in order per queue;
 * packets due earlier are late on arrival, a packet due later stays at its
 * queue's head. Slots left free go to carried packets, which were due
 * earlier still.
 */
static uint32_t take_due(struct engine *e, struct eng_flow *fl, int64_t frame,
			 struct rte_mbuf **out, uint32_t want, bool fill)
{
	uint32_t got = 0;
	for (uint32_t i = 0; got < want && i < fl->nrxq; i++) {
		struct flow_rx *q = queue_at(fl, i);
		while (got < want) {
			struct rte_mbuf *m = q->early;
			if (m)
				q->early = NULL;
			else if (flowq_dequeue(q, &m, 1) != 1)
				break;
			int64_t d = engine_pkt_due(m);
			if (d > frame) {
				q->early = m;
				break;
			}
			if (d == frame ||
			    d == ENGINE_DUE_NONE) /* the latter queued before the flow was pipelined */
				out[got++] = m;
			else
				arrived_late(e, fl, m);
		}
	}
	queue_turn(fl);
	if (fill && got < want)
		got += take_carried(fl, out + got, want - got);
	return got;
}

uint32_t eng_take_for(struct engine *e, uint32_t flow, int64_t frame, struct rte_mbuf **out,
		      uint32_t want)
{
	struct eng_flow *fl = e->flows[flow];
	return e->t->flows[flow].alpha ? take_due(e, fl, frame, out, want, true)
				       : eng_take(fl, out, want);
}

/*
 * Staged packets of flow fl that will not leave in their frame: carried to
 * the flow's next reserved frame, ahead of what it already carries (they are
 * older), when the policy says so and they fit; dropped otherwise. Returns
 * true if carried.
 */
bool eng_missed(struct engine *e, struct eng_flow *fl, struct rte_mbuf **m, uint32_t cnt)
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
void eng_late_port(struct engine *e, struct eng_port *p)
{
	uint32_t at = 0;
	for (uint32_t s = 0; s < p->nseg; s++) {
		struct eng_flow *fl = e->flows[p->seg[s].flow];
		uint32_t cnt = p->seg[s].n;
		CTR_ADD(fl->st.late_frames, 1);
		if (eng_missed(e, fl, p->stage + at, cnt)) {
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
void eng_skip_frame(struct engine *e, int64_t j)
{
	uint32_t n;
	const struct sched_entry *row = sched_row(e->t, frame_tfc(&e->g, j), &n);
	uint32_t last_port = UINT32_MAX;
	struct rte_mbuf *tmp[64];
	for (uint32_t r = 0; r < n; r++) {
		struct eng_flow *fl = e->flows[row[r].flow];
		if (fl->port != last_port) {
			CTR_ADD(e->ports[fl->port].st.late_frames, 1);
			last_port = fl->port;
		}
		CTR_ADD(fl->st.reserved, row[r].n);
		CTR_ADD(fl->st.late_frames, 1);
		bool piped = e->t->flows[row[r].flow].alpha != 0;
		if (e->late == LATE_CARRY && !piped) {
			/* the packets stay queued, in order, for the flow's next frame */
			CTR_ADD(fl->st.late_slots, row[r].n);
			continue;
		}
		/* drop the frame's packets; pipelined ones due here are carried under carry */
		uint32_t left = row[r].n, got = 0, carried = 0;
		while (left) {
			uint32_t w = left < 64 ? left : 64;
			uint32_t taken =
				piped ? take_due(e, fl, j, tmp, w, false) : eng_take(fl, tmp, w);
			uint32_t c = 0;
			if (piped && e->late == LATE_CARRY) {
				uint32_t room = fl->carry_cap - fl->ncarry;
				c = taken < room ? taken : room;
				memcpy(fl->carry + fl->ncarry, tmp, c * sizeof(*tmp));
				fl->ncarry += c;
			}
			for (uint32_t i = c; i < taken; i++)
				rte_pktmbuf_free(tmp[i]);
			got += taken;
			carried += c;
			left -= w;
			if (taken < w)
				break;
		}
		CTR_ADD(fl->st.late_carried, carried);
		CTR_ADD(fl->st.late_dropped, got - carried);
		CTR_ADD(e->ports[fl->port].st.late_carried, carried);
		CTR_ADD(e->ports[fl->port].st.late_dropped, got - carried);
		CTR_ADD(fl->st.unused, row[r].n - got);
	}
}
