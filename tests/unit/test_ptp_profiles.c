/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ptp source under the profiles linuxptp ships, against the ptp4l in
 * memory (simptp.h) on the sim clock: gPTP's transportSpecific 1, found by
 * asking or taken from ptp4l's configuration file; P2P, whose path delay is
 * the port's peer delay; a boundary clock, whose ports answer one by one,
 * locked by its SLAVE port whatever order they come in. And ptp4l's
 * configuration as the source reads it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include "ptp_cfg.h"
#include "simptp.h"
#include "tb_ptp.h"
#include "tb_sim.h"

/* a ptp4l in memory as the settings say, and the source on it */
static struct timebase *source(int64_t mode, int64_t ts, const char *config)
{
	struct simptp keep = sp4;
	memset(&sp4, 0, sizeof(sp4));
	sp4.ts = keep.ts;
	sp4.p2p = keep.p2p;
	sp4.nports = keep.nports;
	memcpy(sp4.port_states, keep.port_states, sizeof(sp4.port_states));
	sp4.clk = tb_sim_new(tdp_time(1000 * TDP_NS_PER_S), 1);
	sp4.offset = 2000;
	sp4.delay = 3300;
	sp4.gm = 1;
	sp4.port_state = mode == TB_PTP_OFFSET ? PTPM_PS_UNCALIBRATED : PTPM_PS_SLAVE;
	static struct tb_ptp_params pp;
	pp = (struct tb_ptp_params){.mode = mode, .poll_ns = 10000000, .transport_specific = ts};
	struct tb_params p = {.own = &pp};
	if (config)
		snprintf(pp.config, sizeof(pp.config), "%s", config);
	tb_sync_params_defaults(&p.sync);
	p.sync.lock_ns = 100000;
	p.sync.timeout_ns = 200000000;
	p.sync.holdover_ns = 300000000;
	struct tb_ptp_io io = {.send = sim_send, .recv = sim_recv, .wait = sim_wait};
	char err[256];
	struct timebase *tb = tb_ptp_new(&io, sp4.clk, &p, false, err, sizeof(err));
	if (!tb)
		fail_msg("tb_ptp_new: %s", err);
	return tb;
}

static void done(struct timebase *tb)
{
	tb_destroy(tb);
	tb_destroy(sp4.clk);
	memset(&sp4, 0, sizeof(sp4));
}

static void gptp_transport_specific_found(void **st)
{
	/* gPTP.cfg: transportSpecific 0x1. Asked with 0 first: dropped, so
	 * silent; then 1: answered, locked, and the value kept */
	sp4.ts = 1;
	struct timebase *tb = source(TB_PTP_OFFSET, -1, NULL);
	sim_run(tb, 4);
	assert_int_not_equal(tb_state(tb), TB_LOCKED);
	assert_true(sp4.dropped_ts > 0);
	sim_run(tb, 12);
	assert_int_equal(tb_state(tb), TB_LOCKED);
	struct tb_ptp_counters c;
	tb_ptp_counters(tb, &c);
	assert_int_equal(c.transport_specific, 1);
	char d[512];
	tb->ops->describe(tb, d, sizeof(d));
	assert_non_null(strstr(d, "transportSpecific 0x1 (found)"));
	/* with it fixed at 0, ptp4l never answers: never locked */
	done(tb);
	sp4.ts = 1;
	tb = source(TB_PTP_OFFSET, 0, NULL);
	sim_run(tb, 40);
	assert_int_equal(tb_state(tb), TB_UNLOCKED);
	struct tb_sync s;
	tb_sync(tb, &s);
	assert_non_null(strstr(s.reason, "does not answer (domain 0, transportSpecific 0x0)"));
	done(tb);
}

static void gptp_from_ptp4l_configuration(void **st)
{
	char path[] = "/tmp/tdp-ptp4l-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	/* the gPTP.cfg settings Debian's linuxptp ships, and a port */
	static const char cfg[] =
		"[global]\ngmCapable 1\ntransportSpecific 0x1\nnetwork_transport L2\n"
		"delay_mechanism P2P\nfree_running 1\n[eth1]\n";
	assert_int_equal(write(fd, cfg, sizeof(cfg) - 1), (ssize_t)sizeof(cfg) - 1);
	close(fd);
	sp4.ts = 1;
	sp4.p2p = 1;
	struct timebase *tb = source(TB_PTP_OFFSET, -1, path);
	sim_run(tb, 6);
	assert_int_equal(tb_state(tb), TB_LOCKED);
	assert_int_equal(sp4.dropped_ts, 0); /* asked with 1 from the first request */
	done(tb);
	unlink(path);
}

static void p2p_peer_delay_is_the_evidence(void **st)
{
	/* P2P: meanPathDelay stays 0, the peer delay is in PORT_DATA_SET */
	sp4.p2p = 1;
	struct timebase *tb = source(TB_PTP_OFFSET, 0, NULL);
	sim_run(tb, 6);
	assert_int_equal(tb_state(tb), TB_LOCKED);
	/* no peer delay measured (no Pdelay_Resp): no evidence, unlocked */
	done(tb);
	sp4.p2p = 1;
	tb = source(TB_PTP_OFFSET, 0, NULL);
	sp4.delay = 0;
	sim_run(tb, 30);
	assert_int_equal(tb_state(tb), TB_UNLOCKED);
	struct tb_sync s;
	tb_sync(tb, &s);
	assert_non_null(strstr(s.reason, "no peer delay (P2P, peerMeanPathDelay 0)"));
	done(tb);
}

static void boundary_clock_locks_by_its_slave_port(void **st)
{
	/* three ports, the SLAVE in the middle, then first, then last: the
	 * order the answers come in decides nothing */
	static const uint8_t orders[3][3] = {{PTPM_PS_MASTER, PTPM_PS_SLAVE, PTPM_PS_MASTER},
					     {PTPM_PS_SLAVE, PTPM_PS_MASTER, PTPM_PS_MASTER},
					     {PTPM_PS_MASTER, PTPM_PS_MASTER, PTPM_PS_SLAVE}};
	for (int o = 0; o < 3; o++) {
		sp4.nports = 3;
		memcpy(sp4.port_states, orders[o], 3);
		struct timebase *tb = source(TB_PTP_DISCIPLINED, 0, NULL);
		sim_run(tb, 8);
		assert_int_equal(tb_state(tb), TB_LOCKED);
		/* the slave port goes MASTER (the grandmaster is gone upstream):
		 * no port syncs, a fault naming every port */
		sp4.port_states[o == 0 ? 1 : o == 1 ? 0 : 2] = PTPM_PS_MASTER;
		sim_run(tb, 2);
		assert_int_equal(tb_state(tb), TB_HOLDOVER);
		struct tb_sync s;
		tb_sync(tb, &s);
		assert_non_null(strstr(s.reason, "no port of ptp4l's syncs: port"));
		assert_non_null(strstr(s.reason, "port 3 MASTER"));
		done(tb);
	}
}

static void automotive_static_slave(void **st)
{
	/* automotive-slave.cfg: BMCA noop, no Announce from the master: the
	 * port is SLAVE from the start and gmPresent stays false */
	sp4.ts = 1;
	sp4.p2p = 1;
	struct timebase *tb = source(TB_PTP_OFFSET, 1, NULL);
	sp4.gm = 0;
	sp4.port_state = PTPM_PS_SLAVE;
	sim_run(tb, 8);
	assert_int_equal(tb_state(tb), TB_LOCKED);
	done(tb);
	/* a port only UNCALIBRATED without a grandmaster is no lock */
	sp4.ts = 1;
	sp4.p2p = 1;
	tb = source(TB_PTP_OFFSET, 1, NULL);
	sp4.gm = 0;
	sim_run(tb, 30);
	assert_int_equal(tb_state(tb), TB_UNLOCKED);
	struct tb_sync s;
	tb_sync(tb, &s);
	assert_non_null(strstr(s.reason, "gmPresent false"));
	done(tb);
}

static void ptp4l_configuration_read(void **st)
{
	char path[] = "/tmp/tdp-ptp4l-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char cfg[] =
		"# automotive-slave.cfg's kind\n[global]\ntransportSpecific 0x1  # gPTP\n"
		"domainNumber 24\nuds_address /run/ptp4l-x\nfree_running 1\n"
		"delay_mechanism P2P\nlogSyncInterval -3\n[eth0]\ntransportSpecific 0x0\n[eth1]\n";
	assert_int_equal(write(fd, cfg, sizeof(cfg) - 1), (ssize_t)sizeof(cfg) - 1);
	close(fd);
	struct ptp_cfg c;
	char err[256];
	assert_int_equal(ptp_cfg_read(path, &c, err, sizeof(err)), 0);
	assert_int_equal(c.transport_specific, 1); /* [global]'s: the UNIX socket port's */
	assert_int_equal(c.domain, 24);
	assert_string_equal(c.uds_address, "/run/ptp4l-x");
	assert_int_equal(c.free_running, 1);
	assert_string_equal(c.delay_mechanism, "P2P");
	assert_int_equal(c.interfaces, 2);
	fd = open(path, O_WRONLY | O_TRUNC);
	static const char bad[] = "[global]\ntransportSpecific 0x1\ndomainNumber 300\n";
	assert_int_equal(write(fd, bad, sizeof(bad) - 1), (ssize_t)sizeof(bad) - 1);
	close(fd);
	assert_int_equal(ptp_cfg_read(path, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":3: domainNumber '300' is not a value ptp4l takes"));
	unlink(path);
	assert_int_equal(ptp_cfg_read(path, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
}

TDP_TEST_MAIN(cmocka_unit_test(gptp_transport_specific_found),
	      cmocka_unit_test(gptp_from_ptp4l_configuration),
	      cmocka_unit_test(p2p_peer_delay_is_the_evidence),
	      cmocka_unit_test(boundary_clock_locks_by_its_slave_port),
	      cmocka_unit_test(automotive_static_slave), cmocka_unit_test(ptp4l_configuration_read))
