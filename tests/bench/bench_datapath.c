/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path's benchmark: RX (parse, classify, route, enqueue) and the
 * engine's dequeue and push on in-memory ports, against two loops on the
 * same frames in the same rounds: l2fwd-style (MAC rewrite) and
 * l3fwd-style (parse, bulk LPM, rewrite). Two tables: 4 flows matched on
 * DSCP and UDP port, and 10^4 flows matched on destination and UDP port,
 * each packet of a round to the next flow. Figures only.
 */
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_lpm.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "../sim/dpdk_env.h"
#include "../unit/pktgen.h"
#include "bigmem.h"
#include "engine.h"
#include "pkt.h"
#include "route.h"
#include "rx.h"
#include "tb_sim.h"

#include "bench.h"
#include "plot.h"

/* the "in" port's MAC, which the frames are sent to */
static const uint8_t mac_in[6] = {2, 0, 0, 0, 1, 1};
static const uint8_t next_mac[6] = {2, 0, 0, 0, 2, 2};

/* Tables of at least this many flows match on the destination (the flows'
 * cost curve matches so from 10 flows on). */
static uint32_t many_from = 257;

/* Flows of the benchmark's tables: few (DSCP 46, UDP ports 5000..) or many
 * (10.(200 + f / 65536).x.y/32, UDP port 5000). Each flow gets 16,384 / nflows packets a
 * frame (at least 1); pipelined flows have alpha 1. */
static char *dp_table(uint32_t nflows, bool piped)
{
	bool many = nflows >= many_from;
	size_t cap = 256 + (size_t)nflows * 96;
	char *txt = malloc(cap);
	size_t n = (size_t)snprintf(txt, cap,
				    "tdp-schedule 1\ntf 1ms\nk 1\n%sport out rate 100Gbit/s\n",
				    piped ? "guard 10us\n" : "");
	for (uint32_t f = 0; f < nflows; f++) {
		if (many)
			n += (size_t)snprintf(
				txt + n, cap - n,
				"flow f%u port out size 100%s dst 10.%u.%u.%u/32 udp-dport 5000\n",
				f, piped ? " alpha 1" : "", 200 + (f >> 16), f >> 8 & 255, f & 255);
		else
			n += (size_t)snprintf(txt + n, cap - n,
					      "flow f%u port out size 100%s dscp 46 udp-dport %u\n",
					      f, piped ? " alpha 1" : "", 5000 + f);
	}
	uint32_t per = nflows < 16384 ? 16384 / nflows : 1;
	/* rows add up: a line per 1,000 flows (a line holds at most 8,192 words) */
	for (uint32_t f = 0; f < nflows; f++)
		n += (size_t)snprintf(txt + n, cap - n, "%s f%u %u%s",
				      f % 1000 ? "," : "frames 0:", f, per,
				      f % 1000 == 999 || f + 1 == nflows ? "\n" : "");
	return txt;
}

/* n frames into r, frame i of flow i % nflows, as dp_table's flows match;
 * with more flows than frames, spread over them all. Returns how many went
 * in. */
static uint32_t fill_ring(struct rte_ring *r, uint32_t n, uint32_t nflows)
{
	uint32_t in = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct pg g;
		pg_defaults(&g);
		memcpy(g.dmac, mac_in, 6);
		uint32_t f = nflows > n ? (uint32_t)((uint64_t)i * nflows / n) : i % nflows;
		g.dscp = 46;
		if (nflows >= many_from) {
			g.dst[1] = (uint8_t)(200 + (f >> 16)), g.dst[2] = (uint8_t)(f >> 8),
			g.dst[3] = (uint8_t)f;
			g.dport = 5000;
		} else {
			g.dport = (uint16_t)(5000 + f);
		}
		struct rte_mbuf *m = rte_pktmbuf_alloc(env_pool());
		pg_build(&g, (uint8_t *)rte_pktmbuf_append(m, (uint16_t)g.size));
		if (rte_ring_sp_enqueue(r, m) != 0)
			rte_pktmbuf_free(m);
		else
			in++;
	}
	return in;
}

/* A router on two in-memory ports: the engine on the table, RX polling "in"
 * and routing 10.0.2.0/24 (neighbour 10.0.2.2) and 10.192.0.0/11 (via
 * 10.0.2.2) out of port 1, the table's port. */
struct dp_rig {
	uint32_t nflows;
	struct sched_table *t;
	struct rte_ring *rx0, *tx0, *rx1, *tx1;
	struct timebase *tb;
	struct engine *e;
	struct cls *cls;
	struct router *rt;
	struct rx_port ports[2];
	struct rte_ring *beq[2];
	struct rx_table rxt;
	uint32_t t2p[1];
	struct rx rx;
	/* with two RX cores: port "in" has two queues, core 1 polls the second
	 * into its own queues of the flows */
	uint32_t cores;
	struct rte_ring *inrx[2], *intx[2];
	struct rx rxc1;
	struct rx_port ports1[2];
	struct rx_table rxt1;
};

static void dp_up(struct dp_rig *d, uint32_t nflows, bool piped, const char *in, const char *out,
		  uint32_t cores)
{
	memset(d, 0, sizeof(*d));
	d->nflows = nflows;
	d->cores = cores;
	char *txt = dp_table(nflows, piped);
	d->t = table_from(txt);
	free(txt);
	int pin = env_ring_port_mq(in, (uint16_t)cores, d->inrx, d->intx),
	    pout = env_ring_port(out, &d->rx1, &d->tx1);
	d->rx0 = d->inrx[0];
	d->tx0 = d->intx[0];
	d->tb = tb_sim_new(tdp_time(1000 * TDP_NS_PER_S), 1);
	struct eng_port_cfg pc = {.dpdk_port = (uint16_t)pout, .overhead = 24};
	struct eng_config c = {
		.t = d->t,
		.tb = d->tb,
		.late = LATE_DROP,
		.flow_depth = nflows > 256 ? 64 : 4096,
		.be_depth = 64,
		.ports = &pc,
		.rx_cores = cores,
		.pw = {.spin_below_ns = 0, .min_sleep_ns = 1000, .window = 4, .decay_pct = 90}};
	char err[160];
	d->e = engine_create(&c, err, sizeof(err));
	if (!d->e) {
		fprintf(stderr, "bench: %s\n", err);
		exit(1);
	}
	d->cls = cls_build(d->t);
	d->rt = router_create(2, err, sizeof(err));
	uint8_t a[16], gw[16];
	int fam;
	unsigned len;
	route_parse_prefix("10.0.2.1/24", &fam, a, &len);
	router_add_address(d->rt, 1, fam, a, len, err, sizeof(err));
	route_parse_addr("10.0.2.2", &fam, gw);
	router_add_neighbour(d->rt, 1, fam, gw, next_mac, err, sizeof(err));
	route_parse_prefix("10.192.0.0/11", &fam, a, &len);
	router_add_route(d->rt, 1, fam, a, len, gw, err, sizeof(err));
	if (router_build(d->rt, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench: %s\n", err);
		exit(1);
	}
	d->ports[0] = (struct rx_port){
		.dpdk_port = (uint16_t)pin, .table_port = -1, .nrxq = (uint16_t)cores};
	memcpy(d->ports[0].mac, mac_in, 6);
	d->ports[1] = (struct rx_port){.dpdk_port = (uint16_t)pout, .table_port = 0};
	d->ports[1].mac[0] = 0xaa;
	d->beq[1] = engine_be_ring(d->e, 0);
	if (rx_table_init(&d->rxt, d->cls, d->t) != 0) {
		fprintf(stderr, "bench: no memory for RX's table\n");
		exit(1);
	}
	for (uint32_t f = 0; f < nflows; f++)
		rx_table_set(&d->rxt, f, engine_flow_rx(d->e, f));
	d->t2p[0] = 1;
	d->rx = (struct rx){.ports = d->ports,
			    .nports = 1,
			    .tab = &d->rxt,
			    .be_q = d->beq,
			    .table_to_port = d->t2p,
			    .g = *engine_geom(d->e),
			    .ncores = (uint16_t)cores};
	rx_set_router(&d->rx, d->rt);
	if (cores < 2)
		return;
	if (rx_table_init(&d->rxt1, d->cls, d->t) != 0) {
		fprintf(stderr, "bench: no memory for RX's table\n");
		exit(1);
	}
	for (uint32_t f = 0; f < nflows; f++)
		rx_table_set(&d->rxt1, f, engine_table_flow_rxq(engine_table_current(d->e), f, 1));
	memcpy(d->ports1, d->ports, sizeof(d->ports));
	d->rxc1 = d->rx;
	d->rxc1.core = 1;
	d->rxc1.ports = d->ports1;
	d->rxc1.tab = &d->rxt1;
	rx_set_router(&d->rxc1, d->rt);
}

static void dp_drain_flows(struct dp_rig *d)
{
	struct rte_mbuf *m;
	for (uint32_t f = 0; f < d->nflows; f++) {
		while (flowq_dequeue(d->rxt.flows[f].q, &m, 1) == 1)
			rte_pktmbuf_free(m);
		while (d->cores > 1 && flowq_dequeue(d->rxt1.flows[f].q, &m, 1) == 1)
			rte_pktmbuf_free(m);
	}
}

static void dp_down(struct dp_rig *d)
{
	engine_destroy(d->e);
	cls_free(d->cls);
	router_free(d->rt);
	d->tb->ops->destroy(d->tb);
	sched_free(d->t);
	rx_table_fini(&d->rxt);
	if (d->cores > 1)
		rx_table_fini(&d->rxt1);
}

/* ---- the l3fwd-style loop ------------------------------------------------ */

/* An l3fwd-style router for the same frames: the Ethernet and IPv4 headers
 * at fixed offsets, one bulk LPM lookup per burst over a table of 1,002
 * routes, the MACs rewritten, TTL decremented with an incremental checksum
 * (RFC 1624), tx_burst. The like-for-like yardstick for RX, which also
 * classifies. Its routes out hold every frame's destination, as RX's router
 * does (10.192.0.0/11 holds the flows' 10.200.0.0 to 10.215.255.255): a
 * frame it dropped would not count in its ns a packet. */
static struct rte_lpm *l3fwd_lpm(void)
{
	struct rte_lpm_config cfg = {.max_rules = 4096, .number_tbl8s = 256};
	struct rte_lpm *lpm = rte_lpm_create("bench_l3fwd", SOCKET_ID_ANY, &cfg);
	if (!lpm)
		return NULL;
	for (uint32_t i = 0; i < 1000; i++) /* 10.100.0.0/24 ... : not ours */
		rte_lpm_add(lpm, RTE_IPV4(10, 100 + i / 256, i % 256, 0), 24, 0);
	rte_lpm_add(lpm, RTE_IPV4(10, 0, 2, 0), 24, 1);
	rte_lpm_add(lpm, RTE_IPV4(10, 192, 0, 0), 11, 1);
	return lpm;
}

static uint64_t l3fwd_burst(struct rte_lpm *lpm, uint16_t pin, uint16_t pout, const uint8_t *dmac,
			    const uint8_t *smac)
{
	struct rte_mbuf *b[32];
	uint32_t dst[32], hop[32];
	uint64_t done = 0;
	uint16_t n;
	while ((n = rte_eth_rx_burst(pin, 0, b, 32)) != 0) {
		uint16_t k = 0;
		for (uint16_t i = 0; i < n; i++) {
			struct rte_ether_hdr *eh = rte_pktmbuf_mtod(b[i], struct rte_ether_hdr *);
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
			if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
			    ip->time_to_live <= 1) {
				rte_pktmbuf_free(b[i]);
				continue;
			}
			b[k] = b[i];
			dst[k++] = rte_be_to_cpu_32(ip->dst_addr);
		}
		rte_lpm_lookup_bulk(lpm, dst, hop, k);
		uint16_t out = 0;
		for (uint16_t i = 0; i < k; i++) {
			if (!(hop[i] & RTE_LPM_LOOKUP_SUCCESS) || (hop[i] & 0xffffff) != 1) {
				rte_pktmbuf_free(b[i]);
				continue;
			}
			struct rte_ether_hdr *eh = rte_pktmbuf_mtod(b[i], struct rte_ether_hdr *);
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
			memcpy(&eh->dst_addr, dmac, 6);
			memcpy(&eh->src_addr, smac, 6);
			ip->time_to_live--;
			/* HC' = ~(~HC + ~m + m'), m the TTL/protocol word (RFC 1624) */
			uint32_t sum =
				(uint32_t)(uint16_t)~rte_be_to_cpu_16(ip->hdr_checksum) + 0xfeffu;
			sum = (sum & 0xffff) + (sum >> 16);
			sum = (sum & 0xffff) + (sum >> 16);
			ip->hdr_checksum = rte_cpu_to_be_16((uint16_t)~sum);
			b[out++] = b[i];
		}
		uint16_t s = rte_eth_tx_burst(pout, 0, b, out);
		for (uint16_t i = s; i < out; i++)
			rte_pktmbuf_free(b[i]);
		done += s;
	}
	return done;
}

/* the l2fwd-style loop: rx_burst, rewrite both MACs, tx_burst */
static uint64_t l2fwd_burst(uint16_t pin, uint16_t pout, const uint8_t *dmac, const uint8_t *smac)
{
	struct rte_mbuf *b[32];
	uint64_t done = 0;
	uint16_t n;
	while ((n = rte_eth_rx_burst(pin, 0, b, 32)) != 0) {
		for (uint16_t i = 0; i < n; i++) {
			uint8_t *pd = rte_pktmbuf_mtod(b[i], uint8_t *);
			memcpy(pd, dmac, 6);
			memcpy(pd + 6, smac, 6);
		}
		uint16_t s = rte_eth_tx_burst(pout, 0, b, n);
		for (uint16_t i = s; i < n; i++)
			rte_pktmbuf_free(b[i]);
		done += n;
	}
	return done;
}

/* ---- the engine's reads alone ---------------------------------------------- */

/* What the engine must read for frame j and nothing more: for each entry of
 * the row, the flow's queue through the table in force (the flow's line),
 * the queue's head and tail (its two lines), and for each packet it would
 * take the slot and the packet's length (the mbuf). Takes nothing: the
 * floor the memory system sets under the engine's dequeue and push, beside
 * it in the same rounds. Returns the packets it would have taken; the
 * lengths' sum goes to reads_sink, so that the reads are made. */
static volatile uint64_t reads_sink;

static uint64_t engine_reads(struct engine *e, const struct sched_table *t, int64_t j)
{
	uint32_t n;
	const struct sched_entry *row = sched_row(t, frame_tfc(engine_geom(e), j), &n);
	uint64_t pk = 0, sum = 0;
	for (uint32_t r = 0; r < n; r++) {
		struct flow_rx *q = engine_flow_rx(e, row[r].flow);
		uint32_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
		uint32_t have = atomic_load_explicit(&q->head, memory_order_acquire) - tail;
		uint32_t take = have < row[r].n ? have : row[r].n;
		for (uint32_t i = 0; i < take; i++)
			sum += q->c_slot[(tail + i) & q->c_mask]->pkt_len;
		pk += take;
	}
	reads_sink += sum;
	return pk;
}

/* ---- one table: RX, the engine and both loops, alternated in rounds --------- */

/* ns a packet of each, from one run of rounds */
struct dp_figs {
	double rx, engine, plain, l3, reads;
	uint64_t rx_pk, reserved, pushed, dropped;
	/* the frames each was given, and the loops' frames forwarded (a
	 * figure is ns a packet handled, so each must handle all it is given) */
	uint64_t rx_in, reads_in, plain_in, l3_in, plain_pk, l3_pk;
	uint32_t batch, fill_min; /* frames a round asks for; the fewest one got */
	/* the table, the classifier, the engine's and RX's state of the flows:
	 * malloc's and DPDK's heaps and the large arrays' mappings (bigmem.h),
	 * the route table's fib left out */
	double bytes_per_flow;
};

static uint64_t heap_now(void)
{
	struct rte_malloc_socket_stats st;
	struct mallinfo2 mi = mallinfo2();
	struct bigmem_use bu;
	bigmem_use(&bu);
	uint64_t sum = mi.uordblks + mi.hblkhd + bu.mapped;
	for (int s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (rte_malloc_get_socket_stats(s, &st) == 0)
			sum += st.heap_allocsz_bytes;
	return sum;
}

/* A round's frames into port in's ring, the fewest a round got kept */
static uint32_t dp_fill(struct dp_rig *d, struct dp_figs *f)
{
	uint32_t in = fill_ring(d->rx0, f->batch, d->nflows);
	if (in < f->fill_min)
		f->fill_min = in;
	return in;
}

/* RX, the engine and both loops on the same frames, alternated in rounds of
 * batch frames */
static void dp_measure(uint32_t nflows, uint32_t batch, uint32_t rounds, struct dp_figs *f)
{
	char in[32], out[32];
	snprintf(in, sizeof(in), "dp_in%u_%u", nflows, many_from);
	snprintf(out, sizeof(out), "dp_out%u_%u", nflows, many_from);
	struct dp_rig d;
	*f = (struct dp_figs){.batch = batch, .fill_min = batch};
	uint64_t h0 = heap_now();
	dp_up(&d, nflows, false, in, out, 1);
	f->bytes_per_flow = ((double)(heap_now() - h0) - (double)router_bytes(d.rt)) / nflows;
	uint16_t pin = d.ports[0].dpdk_port, pout = d.ports[1].dpdk_port;
	struct rte_lpm *lpm = l3fwd_lpm();
	int64_t rx_ns = 0, tx_ns = 0, plain_ns = 0, l3_ns = 0, rd_ns = 0;
	uint64_t rx_pk = 0, tx_pk = 0, plain_pk = 0, l3_pk = 0, rd_pk = 0;
	rt_self();
	engine_start(d.e);
	for (uint32_t r = 0; r < rounds; r++) {
		/* classify + enqueue */
		f->rx_in += dp_fill(&d, f);
		int64_t t0 = mono();
		uint32_t got;
		while ((got = rx_poll(&d.rx)) != 0)
			rx_pk += got;
		rx_ns += mono() - t0;
		/* dequeue + push: one frame */
		t0 = mono();
		engine_step(d.e);
		tx_ns += mono() - t0;
		tx_pk += rte_ring_count(d.tx1);
		env_drain(d.tx1);
		dp_drain_flows(&d);
		f->plain_in += dp_fill(&d, f);
		t0 = mono();
		plain_pk += l2fwd_burst(pin, pout, next_mac, d.ports[1].mac);
		plain_ns += mono() - t0;
		env_drain(d.tx1);
		if (lpm) {
			f->l3_in += dp_fill(&d, f);
			t0 = mono();
			l3_pk += l3fwd_burst(lpm, pin, pout, next_mac, d.ports[1].mac);
			l3_ns += mono() - t0;
			env_drain(d.tx1);
		}
		/* the engine's reads alone, after RX as the engine is */
		f->reads_in += dp_fill(&d, f);
		while (rx_poll(&d.rx) != 0)
			;
		t0 = mono();
		rd_pk += engine_reads(d.e, d.t, engine_next_frame(d.e));
		rd_ns += mono() - t0;
		dp_drain_flows(&d);
	}
	rt_off();
	f->reads = (double)rd_ns / (double)(rd_pk ? rd_pk : 1);
	f->rx = (double)rx_ns / (double)(rx_pk ? rx_pk : 1);
	f->engine = (double)tx_ns / (double)(tx_pk ? tx_pk : 1);
	f->plain = (double)plain_ns / (double)(plain_pk ? plain_pk : 1);
	f->l3 = l3_pk ? (double)l3_ns / (double)l3_pk : 0;
	f->rx_pk = rx_pk;
	f->plain_pk = plain_pk;
	f->l3_pk = l3_pk;
	f->reserved = d.rx.st.reserved;
	f->pushed = tx_pk;
	f->dropped = 0;
	for (int i = 0; i < RXD_MAX; i++)
		f->dropped += d.rx.st.drop[i];
	if (lpm)
		rte_lpm_free(lpm);
	dp_down(&d);
}

/* Whether the NAME-style loop forwarded all it was given; else says so */
static bool loop_whole(uint32_t nflows, const char *name, uint64_t sent, uint64_t given)
{
	if (sent != given)
		fprintf(stderr,
			"bench: %u flows: the %s-style loop forwarded %" PRIu64 " of the %" PRIu64
			" frames it was given\n",
			nflows, name, sent, given);
	return sent == given;
}

/* Whether every round got the frames it asked for, RX queued every frame it
 * was given to the frame's flow and each loop forwarded every frame it was
 * given; else says on stderr what fell short: a figure is ns a packet
 * handled, and one that handled fewer is not comparable. */
static bool dp_whole(uint32_t nflows, const struct dp_figs *f)
{
	if (f->fill_min < f->batch)
		fprintf(stderr, "bench: %u flows: a round got %u of the %u frames it asked for\n",
			nflows, f->fill_min, f->batch);
	bool ok = f->fill_min == f->batch;
	if (f->reserved != f->rx_in + f->reads_in || f->dropped) {
		fprintf(stderr,
			"bench: %u flows: RX queued %" PRIu64 " of the %" PRIu64
			" frames it was given to their flows, dropped %" PRIu64 "\n",
			nflows, f->reserved, f->rx_in + f->reads_in, f->dropped);
		ok = false;
	}
	ok = loop_whole(nflows, "l2fwd", f->plain_pk, f->plain_in) && ok;
	return loop_whole(nflows, "l3fwd", f->l3_pk, f->l3_in) && ok;
}

static void datapath_case(uint32_t nflows, const char *what)
{
	struct dp_figs f;
	dp_measure(nflows, 4000, quick ? 50 : 250, &f);
	printf("\n== data path, in-memory ports (net_ring), one core, %s, 100-byte packets\n",
	       what);
	printf("  plain loop (l2fwd: MAC rewrite)     %7.2f Mpps = %.1f ns/packet\n", 1e3 / f.plain,
	       f.plain);
	printf("  l3fwd-style (parse, bulk LPM over 1,002 routes, rewrite, TTL and checksum) %7.2f "
	       "Mpps = %.1f ns/packet\n",
	       f.l3 > 0 ? 1e3 / f.l3 : 0, f.l3);
	printf("  RX: parse, classify, route, enqueue %7.2f Mpps = %.1f ns/packet  (%.2fx the "
	       "plain loop, %.2fx the "
	       "l3fwd-style loop; 25 GbE 64-byte frames: 27 ns)\n",
	       1e3 / f.rx, f.rx, f.plain / f.rx, f.l3 > 0 ? f.l3 / f.rx : 0);
	printf("  engine: dequeue + push (one frame)  %7.2f Mpps   (%.2fx the plain loop; target "
	       ">= 0.8x)\n",
	       1e3 / f.engine, f.plain / f.engine);
	printf("  (%" PRIu64 " packets classified, %" PRIu64 " reserved, %" PRIu64
	       " pushed, %" PRIu64 " dropped by RX)\n",
	       f.rx_pk, f.reserved, f.pushed, f.dropped);
	if (!dp_whole(nflows, &f))
		exit(1);
}

/* ---- the flows' cost curve --------------------------------------------------- */

/* ns a packet against flows: RX, the engine and the two loops */
static void curve_svg(const char *path, const uint32_t *n, const struct dp_figs *f, int rows)
{
	double x[8], y[5][8];
	for (int i = 0; i < rows && i < 8; i++) {
		x[i] = n[i];
		y[0][i] = f[i].rx, y[1][i] = f[i].engine, y[2][i] = f[i].reads;
		y[3][i] = f[i].plain, y[4][i] = f[i].l3;
	}
	const struct plot_line l[5] = {{"RX", y[0], NULL, NULL, NULL},
				       {"engine", y[1], NULL, NULL, NULL},
				       {"the engine's reads alone", y[2], NULL, NULL, NULL},
				       {"l2fwd-style", y[3], NULL, NULL, NULL},
				       {"l3fwd-style", y[4], NULL, NULL, NULL}};
	plot_svg(path, "reserved flows", "ns a packet, one core", 6, x, rows < 8 ? rows : 8, l, 5);
}

/* RX and the engine from 10 flows to 10^6, every
 * table matching on destination /32 and UDP port, each packet of a round to
 * the next flow (past 16,000 flows, spread over them all); beside the two
 * loops and the engine's reads alone in the same rounds. The rounds carry
 * 16,000 packets (the pool's share), so with more flows than that the
 * engine's frame holds flows without a packet: its ns a packet pushed
 * counts those entries too. */
void bench_flows_curve(const char *svg, uint32_t only)
{
	static const uint32_t counts[] = {10, 100, 1000, 10000, 100000, 1000000};
	enum {
		ROWS = sizeof(counts) / sizeof(counts[0])
	};
	struct dp_figs f[ROWS];
	uint32_t saved = many_from;
	many_from = 1;
	printf("\n== reserved flows, 10 to 10^6 (destination /32 and UDP port), one core, "
	       "100-byte packets, rounds of 16,000\n");
	printf("%8s %9s %9s %9s %9s %9s %8s %9s %9s %12s\n", "flows", "RX ns", "engine ns",
	       "reads ns", "l2fwd ns", "l3fwd ns", "RX/l3fwd", "eng/l2fwd", "eng/reads",
	       "bytes/flow");
	bool found = false, whole = true;
	for (int i = 0; i < ROWS; i++) {
		if (only && counts[i] != only) {
			f[i] = (struct dp_figs){0};
			continue;
		}
		found = true;
		dp_measure(counts[i], 16000, quick ? 10 : 40, &f[i]);
		printf("%8u %9.1f %9.1f %9.1f %9.1f %9.1f %8.2f %9.2f %9.2f %12.0f\n", counts[i],
		       f[i].rx, f[i].engine, f[i].reads, f[i].plain, f[i].l3,
		       f[i].l3 > 0 ? f[i].rx / f[i].l3 : 0, f[i].engine / f[i].plain,
		       f[i].engine / f[i].reads, f[i].bytes_per_flow);
		fflush(stdout);
		whole = dp_whole(counts[i], &f[i]) && whole;
	}
	many_from = saved;
	if (!found)
		printf("--flows %u: not one of the curve's counts (10, 100, ..., 1000000)\n", only);
	else if (whole)
		printf("every row: each round's frames all given, RX queued each to its flow, and "
		       "both loops forwarded each\n");
	else
		exit(1);
	if (svg) {
		char path[512];
		snprintf(path, sizeof(path), "%s-flows.svg", svg);
		curve_svg(path, counts, f, ROWS);
		printf("plot: %s\n", path);
	}
}

/* ---- RX on one core and on two ------------------------------------------------ */

/* RX core 1 on a thread of its own: polls its queue dry each round it is given. */
struct rx_side {
	struct rx *rx;
	_Atomic uint32_t round, done;
	_Atomic int stop;
	uint64_t got;
};

static void *rx_side_run(void *arg)
{
	struct rx_side *w = arg;
	uint32_t seen = 0;
	while (!atomic_load(&w->stop)) {
		uint32_t r = atomic_load_explicit(&w->round, memory_order_acquire);
		if (r == seen) {
			rte_pause();
			continue;
		}
		uint32_t got;
		while ((got = rx_poll(w->rx)) != 0)
			w->got += got;
		seen = r;
		atomic_store_explicit(&w->done, r, memory_order_release);
	}
	return NULL;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The same packets through RX on one core (queue 0 alone) and on two (a
 * queue each, at once), alternating which goes first round by round; the
 * ratio of two cores' aggregate rate to one's per block of 10 rounds. */
static void rx_cores_case(uint32_t nflows, const char *what)
{
	const uint32_t batch = 2000, rounds = quick ? 40 : 200, block = 10;
	char in[32], out[32];
	snprintf(in, sizeof(in), "rc_in%u", nflows);
	snprintf(out, sizeof(out), "rc_out%u", nflows);
	struct dp_rig d;
	dp_up(&d, nflows, false, in, out, 2);
	struct rx_side w = {.rx = &d.rxc1};
	pthread_t th;
	if (pthread_create(&th, NULL, rx_side_run, &w) != 0) {
		fprintf(stderr, "bench: cannot start the second RX core's thread\n");
		exit(1);
	}
	/* a CPU of its own: the EAL pinned this thread, and a thread it starts
	 * inherits the pin */
	int here = sched_getcpu(), ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET((here + 1) % ncpu, &cs);
	if (ncpu < 2 || pthread_setaffinity_np(th, sizeof(cs), &cs) != 0)
		printf("\n(the second RX core's thread could not get a CPU of its own: %d "
		       "online)\n",
		       ncpu);
	int64_t ns[2] = {0, 0}, bns[2] = {0, 0};
	uint64_t pk[2] = {0, 0}, bpk[2] = {0, 0};
	double ratio[200 / 10];
	uint32_t nratio = 0;
	for (uint32_t r = 0; r < rounds; r++) {
		for (int k = 0; k < 2; k++) {
			int cores = (k + (int)r) % 2 ? 2 : 1;
			if (cores == 1) {
				fill_ring(d.inrx[0], 2 * batch, nflows);
			} else {
				fill_ring(d.inrx[0], batch, nflows);
				fill_ring(d.inrx[1], batch, nflows);
			}
			uint64_t before = w.got, n = 0;
			uint32_t got;
			int64_t t0 = mono();
			if (cores == 2)
				atomic_store_explicit(&w.round, r + 1, memory_order_release);
			while ((got = rx_poll(&d.rx)) != 0)
				n += got;
			if (cores == 2)
				while (atomic_load_explicit(&w.done, memory_order_acquire) != r + 1)
					rte_pause();
			int64_t el = mono() - t0;
			n += w.got - before;
			ns[cores - 1] += el;
			pk[cores - 1] += n;
			bns[cores - 1] += el;
			bpk[cores - 1] += n;
			dp_drain_flows(&d);
			env_drain(d.tx1);
		}
		if ((r + 1) % block == 0 && bns[0] && bns[1] && bpk[0]) {
			ratio[nratio++] = ((double)bpk[1] / (double)bns[1]) /
					  ((double)bpk[0] / (double)bns[0]);
			bns[0] = bns[1] = 0;
			bpk[0] = bpk[1] = 0;
		}
	}
	atomic_store(&w.stop, 1);
	pthread_join(th, NULL);
	qsort(ratio, nratio, sizeof(*ratio), dcmp);
	double one = (double)pk[0] / (double)ns[0] * 1e3, two = (double)pk[1] / (double)ns[1] * 1e3;
	printf("\n== RX on one core and on two, %s (a queue per core, its own queue of each "
	       "flow)\n",
	       what);
	printf("  one core                 %7.2f Mpps = %.1f ns/packet\n", one, 1e3 / one);
	printf("  two cores, together      %7.2f Mpps = %.1f ns/packet  (%.2fx one core; per block "
	       "of %u rounds: "
	       "median %.2fx, range %.2f-%.2fx over %u blocks)\n",
	       two, 1e3 / two, two / one, block, nratio ? ratio[nratio / 2] : 0,
	       nratio ? ratio[0] : 0, nratio ? ratio[nratio - 1] : 0, nratio);
	dp_down(&d);
}

void bench_datapath(void)
{
	datapath_case(4, "4 flows (DSCP, UDP port)");
	datapath_case(10000, "10^4 flows (destination /32, UDP port)");
	rx_cores_case(4, "4 flows");
	rx_cores_case(10000, "10^4 flows");
}

/* ---- pipelined flows --------------------------------------------------------- */

static tdp_time_t bench_rx_clock(void *arg)
{
	return tb_fast_now(arg);
}

/*
 * RX alone, in order and pipelined: the pipelined pass reads the clock
 * before each burst and after each burst with packets (as tdpd's RX does),
 * maps each packet to its due frame and adds its arrival to the flow's
 * histogram. The difference per packet is what pipelining costs RX.
 */
static double rx_pass(struct timebase *clk, bool piped, const char *in, const char *out)
{
	const uint32_t batch = 4000, rounds = quick ? 50 : 250;
	struct dp_rig d;
	dp_up(&d, 4, piped, in, out, 1);
	if (piped) {
		d.rx.clock = bench_rx_clock;
		d.rx.clock_arg = clk;
	}
	int64_t ns = 0;
	uint64_t pk = 0;
	rt_self();
	for (uint32_t r = 0; r < rounds; r++) {
		fill_ring(d.rx0, batch, 4);
		int64_t t0 = mono();
		uint32_t got;
		while ((got = rx_poll(&d.rx)) != 0)
			pk += got;
		ns += mono() - t0;
		dp_drain_flows(&d);
	}
	rt_off();
	dp_down(&d);
	return (double)ns / (double)pk;
}

void bench_rx_piped(struct timebase *clk)
{
	double in_order = rx_pass(clk, false, "rxo_in", "rxo_out"),
	       piped = rx_pass(clk, true, "rxp_in", "rxp_out");
	printf("\n== RX of pipelined flows, in-memory ports, one core, 4 flows, 100-byte packets, "
	       "bursts of 32\n");
	printf("  in order                            %7.1f ns/packet\n", in_order);
	printf("  pipelined: clock per burst, due frame, arrival histogram\n");
	printf("                                      %7.1f ns/packet   (+%.1f ns)\n", piped,
	       piped - in_order);
}
