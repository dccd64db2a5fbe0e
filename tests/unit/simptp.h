/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ptp tests' ptp4l, in memory: each request is answered at once from the
 * settings, as a queue the client reads; no socket, no thread, no wall clock
 * (sim_*, driven by sim_run on the sim clock). As ptp4l does, it answers only
 * requests with its transportSpecific, answers a PORT_DATA_SET for each of
 * its ports, and under P2P reports the peer delay in PORT_DATA_SET and a
 * meanPathDelay of 0 in CURRENT_DATA_SET (linuxptp clock.c, port.c).
 * response() builds one reply as ptp4l writes it, for the threaded fake too.
 */
#ifndef TDP_SIMPTP_H
#define TDP_SIMPTP_H

#include <stddef.h>
#include <stdint.h>

#include "ptp_mgmt.h"
#include "timebase.h"

#define SIMPTP_PORTS 4

struct simptp {
	struct timebase *clk;
	int64_t offset, delay;
	int64_t drift_ppm, drift_t0; /* the offset moves by drift_ppm from drift_t0 (sim time) */
	int gm, port_state, silent;
	uint8_t ts; /* ptp4l's transportSpecific: requests with another are dropped */
	int p2p;    /* delay_mechanism P2P: the delay is the ports' peer delay */
	int nports; /* 0 or 1: one port in port_state; more: port_states */
	uint8_t port_states[SIMPTP_PORTS];
	int64_t ingress;
	uint8_t q[16][PTPM_MAX];
	size_t qlen[16];
	unsigned head, tail;
	unsigned sent, subs, dropped_ts;
};
extern struct simptp sp4;

void sp_put16(uint8_t *p, uint16_t v);
void sp_put64(uint8_t *p, uint64_t v);
/* A response to seq/id as ptp4l writes it (port 1, E2E). */
size_t response(uint8_t *buf, uint16_t seq, uint16_t id, int64_t off, int64_t ingress, int gm,
		uint8_t ps, int64_t delay_ns);
int64_t sim_drift(void);
int sim_send(void *ctx, const uint8_t *buf, size_t n);
long sim_recv(void *ctx, uint8_t *buf, size_t n);
int sim_wait(void *ctx, int ms);
/* steps of 10 ms of simulated time, one pass of the client each */
void sim_run(struct timebase *tb, int steps);

#endif
