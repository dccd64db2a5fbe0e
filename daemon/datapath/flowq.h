/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The contract between RX and the frame engine: a flow's queue and what RX
 * writes beside it, and the due frame RX marks on a pipelined flow's packets.
 * RX fills the queues (one producer), the engine empties them (one consumer);
 * nothing else of the engine is RX's business.
 */
#ifndef TDP_FLOWQ_H
#define TDP_FLOWQ_H

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

struct hist;

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

/*
 * A flow has one such queue per RX core (rx-cpus), each with one producer:
 * the engine takes from them in turn.
 *
 * A flow's queue and what RX writes beside it: a single-producer,
 * single-consumer ring. The first cache line is RX's: its head, its view of
 * the engine's tail, the slots, the counters of every packet, the arrival
 * histogram and the flow's latest next hop; the second is the engine's: its
 * tail, its view of RX's head, its own copy of the slots' address and a
 * pipelined flow's packet taken off the head early; the third holds RX's
 * rare counters. Each
 * side reads the other's line only when its own view says the queue is full
 * (RX) or empty (the engine), so with 10^4 flows a packet costs RX one line
 * of the flow and one slot, where a DPDK ring (header, producer, consumer,
 * then the slot) and a line of counters cost five. Heads and tails count
 * packets since the start and wrap at 2^32; a slot is the count masked.
 */
struct flow_rx {
	_Atomic uint32_t head; /* packets RX queued: published with release */
	uint32_t tail_seen;    /* the engine's tail as RX last read it */
	uint32_t mask;	       /* slots - 1 (a power of two) */
	uint32_t depth;	       /* at most this many queued */
	struct rte_mbuf **slot;
	uint64_t enq;	   /* queued by RX */
	uint64_t overflow; /* dropped by RX: the queue was full */
	/* pipelined flows (alpha): when each packet arrived, measured from the
	 * start of the upstream frame it was mapped to (after the link delay):
	 * the upstream's push offset plus the link's and this node's RX latency,
	 * the margin a plan's processing time must cover. NULL until the flow is
	 * pipelined. */
	struct hist *arr;
	/* RX's cache of the route of the flow's latest IPv4 packet: the
	 * destination, the egress port and the next hop's MAC, valid while RX
	 * has the router of generation nh_gen (never 0) */
	uint32_t nh_gen;
	uint32_t nh_dst;
	uint16_t nh_port;
	uint8_t nh_mac[6];
	/* the engine's line */
	_Atomic uint32_t tail __attribute__((aligned(64))); /* packets the engine took: release */
	uint32_t head_seen;	  /* RX's head as the engine last read it */
	uint32_t c_mask;	  /* the engine's copies of mask and slot, so that a */
	struct rte_mbuf **c_slot; /* dequeue reads nothing of the line RX writes */
	struct rte_mbuf *early;	  /* pipelined: the queue's head, due in a later frame */
	/* RX's rare counts. arr_guard: pipelined arrivals in their upstream
	 * frame's last guard band, where no upstream push lands: a packet that
	 * late is near the next frame, and one later still is mapped there (one
	 * frame late, or late on arrival). arr_uncertain: pipelined packets RX
	 * read the clock for so late (after a stall) that they may belong to an
	 * earlier upstream frame than the one they were mapped to: the packets a
	 * slip by whole frames can have hit. */
	uint64_t arr_guard __attribute__((aligned(64)));
	uint64_t arr_uncertain;
	/* a moved route: the flow's packets whose route no longer leaves by the
	 * flow's port (dropped, or sent as best effort by the new route: the
	 * moved-route policy), the port they would have left by (configured
	 * port + 1) and when RX saw the latest (RX's clock, ns) */
	uint64_t route_moved;
	int64_t moved_at_ns;
	uint32_t moved_port;
	/* dropped by RX: the flow's port's link was down; the packet was over
	 * its port's MTU (a reservation is never cut in fragments) */
	uint64_t link_down;
	uint64_t too_big;
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct flow_rx) == 192, "a flow's queue is three cache lines");
_Static_assert(__builtin_offsetof(struct flow_rx, tail) == 64,
	       "RX's hot fields fill one cache line");

/* Entries a queue of depth packets has: a power of two above depth. */
static inline uint32_t flowq_slots(uint32_t depth)
{
	uint32_t n = 1;
	while (n < depth + 1)
		n <<= 1;
	return n;
}

/* An empty queue of depth packets (slot: the next power of two above depth
 * entries, owned by the caller). */
static inline void flowq_init(struct flow_rx *q, struct rte_mbuf **slot, uint32_t depth)
{
	memset(q, 0, sizeof(*q));
	q->slot = q->c_slot = slot;
	q->mask = q->c_mask = flowq_slots(depth) - 1;
	q->depth = depth;
}

/* RX: asks the CPU for the slot the next packet queued goes in. */
static inline void flowq_prefetch_slot(const struct flow_rx *q)
{
	uint32_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	__builtin_prefetch(&q->slot[h & q->mask], 1);
}

/* RX: queues up to n packets in order; returns how many (the rest are the
 * caller's). Counts nothing. */
static inline uint32_t flowq_enqueue(struct flow_rx *q, struct rte_mbuf *const *m, uint32_t n)
{
	uint32_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
	uint32_t room = q->depth - (head - q->tail_seen);
	if (room < n) {
		q->tail_seen = atomic_load_explicit(&q->tail, memory_order_acquire);
		room = q->depth - (head - q->tail_seen);
		if (room < n)
			n = room;
	}
	for (uint32_t i = 0; i < n; i++)
		q->slot[(head + i) & q->mask] = m[i];
	atomic_store_explicit(&q->head, head + n, memory_order_release);
	return n;
}

/* The engine: takes up to n packets in order; returns how many. */
static inline uint32_t flowq_dequeue(struct flow_rx *q, struct rte_mbuf **m, uint32_t n)
{
	uint32_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
	uint32_t avail = q->head_seen - tail;
	if (avail < n) {
		q->head_seen = atomic_load_explicit(&q->head, memory_order_acquire);
		avail = q->head_seen - tail;
		if (avail < n)
			n = avail;
	}
	for (uint32_t i = 0; i < n; i++)
		m[i] = q->c_slot[(tail + i) & q->c_mask];
	atomic_store_explicit(&q->tail, tail + n, memory_order_release);
	return n;
}

/* Packets queued, as the engine's side sees them now (either side may call
 * it; it reads both counts). */
static inline uint32_t flowq_count(struct flow_rx *q)
{
	uint32_t tail = atomic_load_explicit(&q->tail, memory_order_acquire);
	return atomic_load_explicit(&q->head, memory_order_acquire) - tail;
}

#endif
