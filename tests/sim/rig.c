/* SPDX-License-Identifier: BSD-3-Clause */
/* The frame engine's test rig (rig.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "bc635_sim.h"
#include "dpdk_env.h"
#include "frame.h"
#include "rig.h"
#include "testutil.h"

#define TAG_OFF 14
#define TAG_MAGIC 0x7d

struct txlog txlog;

/* the rings the callback empties as a sending NIC would, by DPDK port */
static struct rte_ring *drv_ring[RTE_MAX_ETHPORTS];

static uint16_t log_tx(uint16_t port, uint16_t q, struct rte_mbuf **pkts, uint16_t n, void *arg)
{
	(void)q;
	(void)arg;
	txlog.calls++;
	if (txlog.call_ns)
		tb_sim_advance(txlog.tb, txlog.call_ns);
	if (txlog.take_max && n > txlog.take_max)
		n = txlog.take_max;
	struct rte_ring *ring = drv_ring[port];
	if (ring && rte_ring_count(ring) > rte_ring_get_capacity(ring) / 2)
		env_drain(ring);
	for (uint16_t i = 0; i < n; i++) {
		if (txlog.n == txlog.cap) {
			txlog.cap = txlog.cap ? 2 * txlog.cap : 4096;
			txlog.v = realloc(txlog.v, txlog.cap * sizeof(*txlog.v));
		}
		const uint8_t *d = rte_pktmbuf_mtod(pkts[i], const uint8_t *);
		struct txrec *r = &txlog.v[txlog.n++];
		r->t = tb_sim_time(txlog.tb).ns;
		r->port = port;
		r->flow = d[TAG_OFF] == TAG_MAGIC ? (int32_t)(d[TAG_OFF + 1] | d[TAG_OFF + 2] << 8)
						  : -1;
		memcpy(&r->seq, d + TAG_OFF + 3, 4);
		r->len = pkts[i]->pkt_len;
		r->launch = INT64_MIN;
		if (txlog.ts_flag && (pkts[i]->ol_flags & txlog.ts_flag))
			r->launch = rig_dev_to_sim(
				*RTE_MBUF_DYNFIELD(pkts[i], txlog.ts_off, uint64_t *));
	}
	return n;
}

struct rte_mbuf *mk_in(struct rte_mempool *pool, int32_t flow, uint32_t seq, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool ? pool : env_pool());
	assert_non_null(m);
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	memset(d, 0, len);
	d[TAG_OFF] = flow >= 0 ? TAG_MAGIC : 0;
	d[TAG_OFF + 1] = (uint8_t)flow;
	d[TAG_OFF + 2] = (uint8_t)(flow >> 8);
	memcpy(d + TAG_OFF + 3, &seq, 4);
	return m;
}

struct rte_mbuf *mk(int32_t flow, uint32_t seq, uint32_t len)
{
	return mk_in(NULL, flow, seq, len);
}

static int rig_no;

#define DEV_ORIGIN 123456789012345LL
#define DEV_PPM 100

uint64_t rig_dev(int64_t sim_ns)
{
	return (uint64_t)(DEV_ORIGIN + sim_ns + sim_ns / 1000000 * DEV_PPM +
			  sim_ns % 1000000 * DEV_PPM / 1000000);
}

int64_t rig_dev_to_sim(uint64_t dev)
{
	/* when the NIC sends a packet stamped dev: the first ns its clock reads dev or more */
	__extension__ __int128 d = (int64_t)dev - DEV_ORIGIN;
	int64_t t = (int64_t)(d * 1000000 / (1000000 + DEV_PPM));
	while (rig_dev(t - 1) >= dev)
		t--;
	while (rig_dev(t) < dev)
		t++;
	return t;
}

static int rig_dev_read(void *arg, uint64_t *dev)
{
	*dev = rig_dev(tb_sim_time(arg).ns);
	return 0;
}

static tdp_time_t rig_now(void *arg)
{
	return tb_sim_time(arg);
}

void rig_launch_sample(struct rig *r)
{
	for (uint32_t p = 0; p < r->t->nports; p++)
		assert_int_equal(launch_clock_sample(&r->lc[p], rig_now, r->tb), 0);
}

static int64_t sim_clock(void *arg)
{
	return tb_sim_time(arg).ns;
}

void rig_up(struct rig *r, const char *table, enum late_policy late, int64_t start_ns,
	    int64_t be_poll_ns, uint32_t depth)
{
	static const struct rig_opts defaults = {.hold = SA_SERVE, .unl = SA_SERVE};
	rig_up_with(r, table, late, start_ns, be_poll_ns, depth, &defaults);
}

void rig_up_with(struct rig *r, const char *table, enum late_policy late, int64_t start_ns,
		 int64_t be_poll_ns, uint32_t depth, const struct rig_opts *o)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(env_eal_init(), 0);
	r->t = parse_ok(table);
	r->tb = tb_sim_new(tdp_time(start_ns), 20);
	txlog.tb = r->tb;
	txlog.n = 0;
	txlog.take_max = 0;
	txlog.call_ns = 0;
	txlog.calls = 0;
	txlog.ts_flag = 0;
	r->launch = o->launch;
	if (o->launch) {
		assert_int_equal(rte_mbuf_dyn_tx_timestamp_register(&txlog.ts_off, &txlog.ts_flag),
				 0);
		for (uint32_t p = 0; p < r->t->nports; p++) {
			launch_clock_init(&r->lc[p], rig_dev_read, r->tb, 1000);
			assert_int_equal(launch_clock_sample(&r->lc[p], rig_now, r->tb), 0);
		}
		tb_sim_advance(r->tb, 1000000000);
		for (uint32_t p = 0; p < r->t->nports && !o->launch_unready; p++)
			assert_int_equal(launch_clock_sample(&r->lc[p], rig_now, r->tb), 0);
	}
	struct eng_port_cfg pc[4];
	for (uint32_t p = 0; p < r->t->nports; p++) {
		char name[32];
		snprintf(name, sizeof(name), "sim%d_%u", rig_no, p);
		r->port[p] = env_ring_port(name, &r->rx[p], &r->tx[p]);
		assert_true(r->port[p] >= 0);
		assert_non_null(rte_eth_add_tx_callback((uint16_t)r->port[p], 0, log_tx, NULL));
		drv_ring[r->port[p]] = r->tx[p];
		pc[p] = (struct eng_port_cfg){.dpdk_port = (uint16_t)r->port[p],
					      .txq = 0,
					      .rate_bps = 0,
					      .overhead = r->t->ports[p].overhead};
		if (o->launch) {
			pc[p].launch = &r->lc[p];
			pc[p].ts_off = txlog.ts_off;
			pc[p].ts_flag = txlog.ts_flag;
		}
	}
	rig_no++;
	struct timebase *etb = r->tb;
	if (o->bc635) {
		r->sim = bcsim_new(sim_clock, r->tb);
		struct tb_params tp = {.tf_ns = (int64_t)r->t->tf_ns,
				       .epoch_ns = (int64_t)r->t->epoch_ns};
		tb_sync_params_defaults(&tp.sync);
		char e2[256];
		r->bctb = tb_bc635_new(bcsim_bus(r->sim), r->tb, &tp, e2, sizeof(e2));
		if (!r->bctb)
			fail_msg("tb_bc635_new: %s", e2);
		etb = r->bctb;
	}
	struct eng_config c = {
		.t = r->t,
		.tb = etb,
		.late = late,
		.flow_depth = depth,
		.be_depth = 256,
		.be_poll_ns = be_poll_ns,
		.ports = pc,
		.holdover_action = o->hold,
		.unlocked_action = o->unl,
		.budget_action = o->budget,
		.launch_lead_ns = o->lead_ns,
		.launch_margin_ns = o->margin_ns,
		.pw = {.spin_below_ns = 0,
		       .min_sleep_ns = 1000,
		       .margin_ns = 500,
		       .window = 16,
		       .decay_pct = 90,
		       .book_init_ns = 100},
	};
	char err[128];
	r->e = engine_create(&c, err, sizeof(err));
	if (!r->e)
		fail_msg("engine_create: %s", err);
	engine_start(r->e);
}

void rig_down(struct rig *r)
{
	engine_destroy(r->e);
	if (r->bctb) {
		tb_destroy(r->bctb);
		bcsim_free(r->sim);
		r->bctb = NULL;
		r->sim = NULL;
	}
	for (uint32_t p = 0; p < r->t->nports; p++) {
		rte_eth_dev_stop((uint16_t)r->port[p]);
		env_drain(r->tx[p]);
	}
	r->tb->ops->destroy(r->tb);
	if (r->launch)
		for (uint32_t p = 0; p < r->t->nports; p++)
			launch_clock_fini(&r->lc[p]);
	txlog.ts_flag = 0;
	sched_free(r->t);
}

/* Keeps every flow's queue at `want` packets and best effort at be_want. */
void top_up(struct rig *r, uint32_t want, uint32_t be_want, const uint32_t *be_sizes, size_t nbs)
{
	for (uint32_t f = 0; f < r->t->nflows; f++) {
		struct flow_rx *q = engine_flow_rx(r->e, f);
		while (flowq_count(q) < want) {
			struct rte_mbuf *m = mk((int32_t)f, r->seq[f]++, r->t->flows[f].size);
			assert_int_equal(flowq_enqueue(q, &m, 1), 1);
		}
	}
	for (uint32_t p = 0; p < r->t->nports && nbs; p++) {
		struct rte_ring *q = engine_be_ring(r->e, p);
		while (rte_ring_count(q) < be_want) {
			uint32_t len = be_sizes[r->be_seq % nbs];
			assert_int_equal(rte_ring_sp_enqueue(q, mk(-1, r->be_seq++, len)), 0);
		}
	}
}

void drain_all(struct rig *r)
{
	for (uint32_t p = 0; p < r->t->nports; p++)
		env_drain(r->tx[p]);
}

uint32_t row_n(const struct sched_table *t, uint32_t tfc, uint32_t flow)
{
	uint32_t n, sum = 0;
	const struct sched_entry *e = sched_row(t, tfc, &n);
	for (uint32_t i = 0; i < n; i++)
		if (e[i].flow == flow)
			sum += e[i].n;
	return sum;
}

int port_of(const struct rig *r, uint16_t dpdk)
{
	for (uint32_t p = 0; p < r->t->nports; p++)
		if (r->port[p] == dpdk)
			return (int)p;
	return -1;
}

/*
 * Checks the log with a link model of its own: a packet starts on the wire
 * when it is handed over or when the one before it ends, whichever is later.
 * Reserved packets must start in their frame and end by its guard band; best
 * effort must end by the guard band of the frame it starts in. Returns, per
 * frame and flow, the count seen (for the caller's exact comparison).
 */
void check_wire(const struct rig *r, size_t from, size_t to)
{
	const struct frame_geom *g = engine_geom(r->e);
	int64_t free_at[4] = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
	for (size_t i = from; i < to; i++) {
		const struct txrec *x = &txlog.v[i];
		int p = port_of(r, x->port);
		assert_true(p >= 0);
		int64_t start = x->t > free_at[p] ? x->t : free_at[p];
		int64_t end = start + engine_wire_ns(r->t->ports[p].rate_bps,
						     r->t->ports[p].overhead, x->len);
		int64_t f = frame_index(g, tdp_time(start));
		int64_t limit = frame_start(g, f).ns + g->tf_ns - (int64_t)r->t->guard_ns;
		if (end > limit)
			fail_msg("packet %zu (flow %d) on the wire %lld..%lld crosses the guard "
				 "band of frame %lld at %lld",
				 i, x->flow, (long long)start, (long long)end, (long long)f,
				 (long long)limit);
		if (x->flow >= 0)
			assert_int_equal(frame_index(g, tdp_time(x->t)), f);
		free_at[p] = end;
	}
}

int64_t step(struct rig *r)
{
	if (r->sim)
		bcsim_run_to(r->sim, tb_sim_time(r->tb).ns);
	return engine_step(r->e);
}

void run_to_tfc(struct rig *r, uint32_t tfc)
{
	for (int i = 0; i < 20 && frame_tfc(engine_geom(r->e), engine_next_frame(r->e)) != tfc;
	     i++) {
		top_up(r, 4, 0, NULL, 0);
		engine_step(r->e);
		drain_all(r);
	}
	assert_int_equal(frame_tfc(engine_geom(r->e), engine_next_frame(r->e)), tfc);
}

/* The log of one flow's sequence numbers, with the tfc each left in. */
size_t seqs_of(const struct rig *r, int32_t flow, size_t from, uint32_t *seq, uint32_t *tfc,
	       size_t max)
{
	size_t n = 0;
	for (size_t i = from; i < txlog.n && n < max; i++)
		if (txlog.v[i].flow == flow) {
			seq[n] = txlog.v[i].seq;
			tfc[n] = frame_tfc(engine_geom(r->e),
					   frame_index(engine_geom(r->e), tdp_time(txlog.v[i].t)));
			n++;
		}
	return n;
}

void late_wakeup(struct rig *r, int64_t stall_ns)
{
	/* the next sleep ends stall_ns after the predicted wake-up */
	tb_sim_stall(r->tb, stall_ns);
	top_up(r, 4, 0, NULL, 0);
	engine_step(r->e);
	drain_all(r);
}

/* the tests of late frames and of the clock share it */
const char table_late[] = "tdp-schedule 1\ntf 1ms\nk 10\nguard 10us\n"
			  "port out rate 10Mbit/s\n"
			  "flow a port out size 100 udp-dport 1\n"
			  "flow b port out size 100 udp-dport 2\n"
			  "frames 0: a 2\n"
			  "frames 2: b 1\n"
			  "frames 4: a 1\n";
