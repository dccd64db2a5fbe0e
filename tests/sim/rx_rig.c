/* SPDX-License-Identifier: BSD-3-Clause */
/* The RX tests' router (rx_rig.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dpdk_env.h"
#include "rx_rig.h"
#include "tb_sim.h"
#include "testutil.h"

const char rig_table_default[] = "tdp-schedule 1\ntf 1ms\nk 10\n"
				 "port out rate 100Mbit/s\n"
				 "flow probe port out size 100 dscp 46 udp-dport 5000\n"
				 "flow l2 port out size 100 dscp 20 mpls 77\n"
				 "frames 0: probe 1, l2 1\n";

const uint8_t mac_in[6] = {2, 0, 0, 0, 1, 1}, mac_out[6] = {2, 0, 0, 0, 2, 1};
const uint8_t host_rcv[6] = {2, 0, 0, 0, 2, 2}, host_snd[6] = {2, 0, 0, 0, 1, 2};
const uint8_t gw_far[6] = {2, 0, 0, 0, 2, 9};

void addr(const char *s, uint8_t a[16])
{
	int fam;
	assert_int_equal(route_parse_addr(s, &fam, a), 0);
}

const char *rig_table = rig_table_default;
uint32_t rig_cores = 1, rig_flow_depth = 4;
uint16_t rig_in_queues = 1;

void rig_up(struct rig *r)
{
	static int no;
	char name[32], err[160];
	memset(r, 0, sizeof(*r));
	assert_int_equal(env_eal_init(), 0);
	r->t = parse_ok(rig_table);
	r->tb = tb_sim_new(tdp_time(0), 20);
	int pid[2];
	snprintf(name, sizeof(name), "rx%d_0", no);
	pid[0] = env_ring_port_mq(name, rig_in_queues, r->inrx, r->intx);
	assert_true(pid[0] >= 0);
	r->ringrx[0] = r->inrx[0];
	r->ringtx[0] = r->intx[0];
	snprintf(name, sizeof(name), "rx%d_1", no);
	pid[1] = env_ring_port(name, &r->ringrx[1], &r->ringtx[1]);
	assert_true(pid[1] >= 0);
	no++;
	/* configured port 0 = "in" (not in the table), 1 = "out" (table port 0) */
	struct eng_port_cfg pc = {.dpdk_port = (uint16_t)pid[1], .overhead = 24};
	struct eng_config c = {.t = r->t,
			       .tb = r->tb,
			       .flow_depth = rig_flow_depth,
			       .be_depth = 8,
			       .ports = &pc,
			       .rx_cores = rig_cores,
			       .pw = {.min_sleep_ns = 1000, .window = 4, .decay_pct = 90}};
	r->e = engine_create(&c, err, sizeof(err));
	assert_non_null(r->e);
	r->cls = cls_build(r->t);
	r->rt = router_create(2, err, sizeof(err));
	uint8_t a[16], gw[16], p[16];
	int fam;
	unsigned len;
	assert_int_equal(route_parse_prefix("10.0.1.1/24", &fam, a, &len), 0);
	assert_int_equal(router_add_address(r->rt, 0, fam, a, len, err, sizeof(err)), 0);
	assert_int_equal(route_parse_prefix("10.0.2.1/24", &fam, a, &len), 0);
	assert_int_equal(router_add_address(r->rt, 1, fam, a, len, err, sizeof(err)), 0);
	addr("10.0.1.2", a);
	assert_int_equal(router_add_neighbour(r->rt, 0, 4, a, host_snd, err, sizeof(err)), 0);
	addr("10.0.2.2", a);
	assert_int_equal(router_add_neighbour(r->rt, 1, 4, a, host_rcv, err, sizeof(err)), 0);
	addr("10.0.2.9", gw);
	assert_int_equal(router_add_neighbour(r->rt, 1, 4, gw, gw_far, err, sizeof(err)), 0);
	assert_int_equal(route_parse_prefix("10.9.0.0/16", &fam, p, &len), 0);
	assert_int_equal(router_add_route(r->rt, 1, fam, p, len, gw, err, sizeof(err)), 0);
	/* a gateway that is not a neighbour on the port is refused */
	addr("10.0.1.2", gw);
	assert_int_equal(router_add_route(r->rt, 1, fam, p, len, gw, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "neither a neighbour"));
	if (router_build(r->rt, err, sizeof(err)) != 0)
		fail_msg("router_build: %s", err);

	r->ports[0] = (struct rx_port){
		.dpdk_port = (uint16_t)pid[0], .table_port = -1, .nrxq = rig_in_queues};
	memcpy(r->ports[0].mac, mac_in, 6);
	r->ports[1] =
		(struct rx_port){.dpdk_port = (uint16_t)pid[1], .table_port = 0, .has_peer = true};
	memcpy(r->ports[1].mac, mac_out, 6);
	memcpy(r->ports[1].peer_mac, host_rcv, 6);
	r->fq[0] = engine_flow_rx(r->e, 0);
	r->fq[1] = engine_flow_rx(r->e, 1);
	r->beq[0] = NULL;
	r->beq[1] = engine_be_ring(r->e, 0);
	r->t2p[0] = 1;
	r->frx[0] = engine_flow_rx(r->e, 0);
	r->frx[1] = engine_flow_rx(r->e, 1);
	assert_int_equal(rx_table_init(&r->rxt, r->cls, r->t), 0);
	rx_table_set(&r->rxt, 0, r->frx[0]);
	rx_table_set(&r->rxt, 1, r->frx[1]);
	r->rx = (struct rx){.ports = r->ports,
			    .nports = 2,
			    .tab = &r->rxt,
			    .be_q = r->beq,
			    .table_to_port = r->t2p,
			    .g = *engine_geom(r->e)};
	rx_set_router(&r->rx, r->rt);
	if (rig_cores < 2)
		return;
	snprintf(name, sizeof(name), "rx%d_handoff", no);
	r->handoff = rte_ring_create(name, 1024, SOCKET_ID_ANY, RING_F_SC_DEQ);
	assert_non_null(r->handoff);
	r->rx.ncores = 2;
	r->rx.handoff = r->handoff;
	memcpy(r->ports1, r->ports, sizeof(r->ports));
	struct eng_table *et = engine_table_current(r->e);
	r->frx1[0] = engine_table_flow_rxq(et, 0, 1);
	r->frx1[1] = engine_table_flow_rxq(et, 1, 1);
	assert_int_equal(rx_table_init(&r->rxt1, r->cls, r->t), 0);
	rx_table_set(&r->rxt1, 0, r->frx1[0]);
	rx_table_set(&r->rxt1, 1, r->frx1[1]);
	r->rx1 = r->rx;
	r->rx1.core = 1;
	r->rx1.ports = r->ports1;
	r->rx1.tab = &r->rxt1;
	rx_set_router(&r->rx1, r->rt);
}

void rig_down(struct rig *r)
{
	engine_destroy(r->e);
	router_free(r->rt);
	rx_table_fini(&r->rxt);
	rx_table_fini(&r->rxt1);
	cls_free(r->cls);
	for (int p = 0; p < 2; p++)
		env_drain(r->ringtx[p]);
	for (uint16_t q = 1; q < rig_in_queues; q++)
		env_drain(r->intx[q]);
	if (r->handoff) {
		env_drain(r->handoff);
		rte_ring_free(r->handoff);
	}
	r->tb->ops->destroy(r->tb);
	sched_free(r->t);
}

struct rte_mbuf *frame(const struct pg *g)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(env_pool());
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)g->size);
	pg_build(g, d);
	return m;
}

struct pg from_sender(const char *dst)
{
	struct pg g;
	pg_defaults(&g);
	memcpy(g.dmac, mac_in, 6);
	memcpy(g.smac, host_snd, 6);
	uint8_t a[16];
	addr(dst, a);
	memcpy(g.dst, a, 4);
	return g;
}
