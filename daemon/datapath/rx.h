/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RX side, on the housekeeping lcore and the RX cores beside it (rx-cpus):
 * bursts of 32 from every port's queues;
 * each packet is parsed, classified by the table's flow matches and routed
 * (MAC rewrite, TTL decrement). A reserved packet goes to its flow's queue, the
 * rest to the best-effort queue of the port its route leads to; best effort for
 * a port the table does not schedule is sent at once. Everything dropped is
 * counted by reason; nothing here can crash on what arrives.
 */
#ifndef TDP_RX_H
#define TDP_RX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "ctl_counters.h"
#include "flowq.h"
#include "frame.h"
#include "icmperr.h"
#include "pkt.h"
#include "portlink.h"
#include "punt.h"
#include "route.h"
#include "rx_hold.h"
#include "tdp_sched.h"

struct rte_mbuf;
struct rte_ring;

#define RX_BURST 32
/* RX queues tdpd polls on one port (one AF_XDP socket each) */
#define RX_MAX_QUEUES 16
/* RX cores: the housekeeping thread and the rx-cpus beside it */
#define RX_MAX_CORES 8
/* classifier slots of this many bytes and more are asked for apart from the
 * parse (struct rx_table): 2 MiB, a shape of match past about 43,700 flows,
 * twice a core's L2 on the project's VM. Below it the slots stay in the
 * cache, and a pass of their own cost RX more than it saved (1-2 ns a
 * packet at 10 and 10^4 flows; docs/figures.md). */
#define RX_ASK_APART ((size_t)2 << 20)
/* addresses RX asks the kernel to resolve, waiting for nl.c */
#define RX_RESOLVE_RING 256

/* who answers for the router on a port (hostpath.h); RX counts the host's
 * frames it sees (punt.h) as RXD_HOST by class on every kind of port */
enum rx_host {
	RXH_NONE,   /* no kernel interface: nobody answers */
	RXH_KERNEL, /* net_af_packet: the kernel got its own copy */
	RXH_XDP,    /* net_af_xdp: the XDP program passed them; RX sees none */
	RXH_TAP,    /* an exception interface: RX passes them to it */
};

/* A port's exception interface, by what crossed it. */
struct rx_tap_stats {
	CTL_TAP_COUNTERS(CTL_COUNTER_FIELD) /* ctl_counters.h */
};

/* an address whose MAC RX misses, for the kernel to resolve (ARP/ND) */
struct rx_resolve {
	uint8_t family;
	uint8_t addr[16];
	uint32_t port;
};

struct rx_port {
	uint16_t dpdk_port;
	int table_port; /* index in the table, or -1 when the table does not schedule it */
	uint8_t mac[6]; /* our source MAC on this port */
	bool has_peer;
	uint8_t peer_mac[6]; /* next hop for non-IP (e.g. MPLS) packets */
	uint16_t nrxq;	     /* RX queues polled (0 counts as 1) */
	/* the source of the ICMP errors sent from this port (its first address of
	 * each family; has_ip4/6 false: none is sent, counted icmp_no_source) */
	bool has_ip4, has_ip6;
	uint8_t ip4[4], ip6[16];
	/* per queue, the clock read just before the latest burst that left the
	 * queue empty (fewer than RX_BURST): whatever the next burst holds arrived after */
	tdp_time_t drained[RX_MAX_QUEUES];
	bool drained_ok[RX_MAX_QUEUES];
	/* RXH_TAP: the exception interface's DPDK port, which takes the host's
	 * frames; what the kernel writes to it leaves this port as best effort */
	bool has_tap;
	uint16_t tap_port;
	struct rx_tap_stats tap;
};

enum rx_drop {
	RXD_RUNT,
	RXD_MALFORMED,
	RXD_NO_ROUTE,
	RXD_NO_NEIGH,
	RXD_HOST,
	RXD_TTL,
	RXD_OWN,
	RXD_WRONG_PORT,
	RXD_BE_OVERFLOW,
	RXD_TX_FULL,
	RXD_OTHER_HOST,
	RXD_TOO_BIG,
	RXD_LINK_DOWN,
	RXD_MAX
};

/* A reserved packet whose route no longer leaves by its flow's port
 * (moved-route in tdpd.conf): dropped, or sent by the new route as best
 * effort. Counted per flow either way (flowq.h). */
enum rx_moved {
	RX_MOVED_DROP,
	RX_MOVED_BEST_EFFORT
};

/* RX's counters, each declared in ctl_counters.h with its key and meaning.
 * handoff_*: on core 0, packets other RX cores handed over to send at once
 * (to a port the table does not schedule, or its exception interface); the
 * handing core counted them sent or queued (best_effort, to_kernel,
 * icmp_sent). */
struct rx_stats {
	CTL_RX_COUNTERS(CTL_PROM_FIELD)
	uint64_t drop[RXD_MAX];
	uint64_t host[PUNT_MAX]; /* the RXD_HOST drops by class */
	/* ICMP errors about ttl-expired, no-route and no-neighbour drops: sent
	 * by kind, and those not sent by reason (the rules of icmperr.h are
	 * not counted: no error is owed) */
	uint64_t icmp_sent[ICMP_ERR_MAX];
	CTL_RX_ICMP_UNSENT(CTL_PROM_FIELD)
	CTL_RX_FRAG_COUNTERS(CTL_PROM_FIELD)
};
_Static_assert(sizeof(struct rx_stats) % sizeof(uint64_t) == 0,
	       "rx_sum adds the counters as an array");

/* What RX reads of a reserved flow for each of its packets, side by side so
 * that a packet costs one line of them: this core's queue of the flow, and
 * the flow's port, alpha and link delay as the table gives them (in struct
 * sched_flow they sit past its name, a line of their own). */
struct rx_flow {
	struct flow_rx *q;
	uint64_t delay_ns;
	uint32_t alpha;
	uint32_t port; /* the table's port index */
} __attribute__((aligned(32)));

/* What RX classifies against: a table, its classifier and its flows. */
struct rx_table {
	const struct cls *cls;
	const struct sched_table *t;
	struct rx_flow *flows; /* per flow of t */
	/* the classifier's slots asked for in a pass after the parse, not
	 * amid it: where they are too many to stay in the cache
	 * (RX_ASK_APART bytes), each miss held the parse up */
	bool ask_apart;
};

/* rt for one RX core: t's flows, each without its queue until rx_table_set
 * gives it. 0, or -1 without memory (rt then holds nothing). */
int rx_table_init(struct rx_table *rt, const struct cls *c, const struct sched_table *t);
/* flow f of rt's table: this core's queue of it, q */
void rx_table_set(struct rx_table *rt, uint32_t f, struct flow_rx *q);
void rx_table_fini(struct rx_table *rt);

/*
 * One RX core (rx-cpus): core c of ncores polls queues c, c + ncores, ... of
 * every port into its own queue of each flow (engine.h); core 0 also polls
 * the exception interfaces and sends what the others hand over for TX
 * queues that are its own. Each core has its struct rx, its ports' state and
 * its counters.
 */
struct rx {
	struct rx_port *ports;
	uint32_t nports;
	uint16_t core, ncores;
	/* with several cores: what cores > 0 send at once, for core 0 to send
	 * (multi-producer, core 0 consumes); NULL with one core */
	struct rte_ring *handoff;
	const struct router *rt;
	/* rt's generation, which the flows' cached routes carry (flowq.h):
	 * one more at each router rx_set_router installs; 0 (never set):
	 * nothing is cached */
	uint32_t rt_gen;
	/* a new router from nl.c: taken at the next poll, which then stores
	 * NULL here to say the old one is no longer in use */
	_Atomic(const struct router *) rt_offer;
	/* ICMP errors: a token bucket of icmp_burst, icmp_rate a second
	 * (0: none sent), on rx->now */
	uint32_t icmp_rate, icmp_burst;
	int64_t icmp_tokens_ns; /* the bucket's content as time since it was empty */
	tdp_time_t icmp_last;
	bool icmp_started;
	struct rte_ring *resolve; /* of struct rx_resolve *; NULL: nobody resolves */
	const struct rx_table *tab;
	/* a new table from the control side: taken at the next poll, which then
	 * stores NULL here to say the old one is no longer in use */
	_Atomic(const struct rx_table *) offer;
	struct rte_ring **be_q; /* per configured port; NULL: send at once */
	/* arrival time of the burst in hand, for pipelined flows' due frames:
	 * rx_poll reads clock(clock_arg) before each burst (for drained) and
	 * once more after a burst with packets (for now) */
	tdp_time_t now;
	/* and the earliest it can have arrived (since_ok: known): a pipelined
	 * packet that can have arrived before the guard band that ends the
	 * upstream frame before the one now gives is counted as uncertain */
	tdp_time_t since;
	bool since_ok;
	tdp_time_t (*clock)(void *arg);
	void *clock_arg;
	struct frame_geom g;
	uint32_t *table_to_port; /* table port -> configured port */
	/* each configured port's link (its MTU, up or down); NULL: not known,
	 * nothing checked */
	const struct port_link *link;
	uint8_t moved; /* enum rx_moved */
	/* best effort waiting for its next hop's MAC (rx_hold.h); NULL: dropped */
	struct rx_hold *hold;
	struct rx_stats st;
};

const char *rx_drop_name(enum rx_drop d);

/* Handles one received packet (takes ownership), arrived at rx->now (and
 * after rx->since when since_ok). */
void rx_packet(struct rx *rx, uint32_t in_port, struct rte_mbuf *m);
/* Routes by rt from the next packet on (the flows' cached routes are of the
 * router before). Before the first rx_poll; after, routers are offered. */
void rx_set_router(struct rx *rx, const struct router *rt);
/* Takes a table offered by the control side and a router offered by nl.c,
 * then one burst from every queue of every port;
 * returns packets received. The daemon's main loop calls it (with its idle
 * back-off, stats and stop checks). */
uint32_t rx_poll(struct rx *rx);
/* Core 0, when the other cores have stopped: everything left in the
 * hand-off sent (or counted handoff_drop). Returns how many it took. */
uint32_t rx_drain_handoff(struct rx *rx);
/* core's share of a limit shared by n RX cores (icmp-rate, icmp-burst): the
 * shares add up to total exactly, the first total % n cores one more. */
static inline uint32_t rx_share(uint32_t total, uint32_t n, uint32_t core)
{
	return n ? total / n + (core < total % n) : total;
}
/* The counters of n cores summed (relaxed reads). */
void rx_sum(const struct rx *rx, uint32_t n, struct rx_stats *st);
void rx_tap_sum(const struct rx *rx, uint32_t n, uint32_t port, struct rx_tap_stats *ts);

#endif
