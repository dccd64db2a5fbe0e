/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The contract between RX and the frame engine: a flow's queue and what RX
 * writes beside it, and the due frame RX marks on a pipelined flow's packets.
 * RX fills the queues (one producer), the engine empties them (one consumer);
 * nothing else of the engine is RX's business.
 */
#ifndef TDP_FLOWQ_H
#define TDP_FLOWQ_H

#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

struct hist;
struct rte_ring;

/*
 * Pipelined flows (a table's flow with alpha): RX writes into each packet the
 * frame it is due in, u + alpha, where u = frame of (arrival - delay) is the
 * frame the upstream node sent it in. When the engine stages frame x for the
 * flow it takes the packets due in x, in order; a packet due earlier is late
 * on arrival (late policy: dropped, or carried to a slot the packets due in a
 * later frame of the flow leave free), one due later waits. The due frame is
 * kept in the mbuf's hash field: in the first cache line, which RX and the
 * engine touch anyway (a dynamic field sits in the second, and writing it
 * cost RX a cache miss per packet); tdpd uses no receive hash. The field is
 * 4-byte aligned, hence the copies.
 */
/* RX's mark on a packet of an in-order flow: no due frame. A flow that a
 * table swap makes pipelined still has such packets queued from before; the
 * engine serves them in the flow's next frames, as the in-order flow would
 * have, instead of taking them for late arrivals. */
#define ENGINE_DUE_NONE INT64_MIN

static inline void engine_pkt_set_due(struct rte_mbuf *m, int64_t due)
{
	_Static_assert(sizeof(m->hash) == sizeof(int64_t), "the mbuf hash field holds a due frame");
	memcpy(&m->hash, &due, sizeof(due));
}

static inline int64_t engine_pkt_due(const struct rte_mbuf *m)
{
	int64_t due;
	memcpy(&due, &m->hash, sizeof(due));
	return due;
}

/* What RX needs of a flow: its queue, and the counters RX writes. */
struct flow_rx {
	struct rte_ring *q;
	uint64_t enq;             /* queued by RX */
	uint64_t overflow;        /* dropped by RX: the queue was full */
	/* pipelined flows (alpha): when each packet arrived, measured from the
	 * start of the upstream frame it was mapped to (after the link delay):
	 * the upstream's push offset plus the link's and this node's RX latency,
	 * the margin a plan's processing time must cover. NULL until the flow is
	 * pipelined. arr_guard counts arrivals in that frame's last guard band,
	 * where no upstream push lands: a packet that late is near the next
	 * frame, and one later still is mapped there (one frame late, or late on
	 * arrival). */
	struct hist *arr;
	uint64_t arr_guard;
	/* pipelined packets RX read the clock for so late (after a stall) that
	 * they may belong to an earlier upstream frame than the one they were
	 * mapped to: the packets a slip by whole frames can have hit */
	uint64_t arr_uncertain;
};

#endif
