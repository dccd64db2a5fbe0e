/* SPDX-License-Identifier: BSD-3-Clause */
/* The ptp tests' ptp4l in memory (simptp.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "simptp.h"
#include "tb_ptp.h"
#include "tb_sim.h"

struct simptp sp4;

void sp_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void sp_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (56 - 8 * i));
}

size_t response(uint8_t *buf, uint16_t seq, uint16_t id, int64_t off, int64_t ingress, int gm,
		uint8_t ps, int64_t delay_ns)
{
	uint8_t *d;
	int n = ptpm_build_get(buf, PTPM_MAX, 0, seq, 1, id);
	assert_true(n > 0);
	buf[46] = PTPM_RESPONSE;
	d = buf + 54;
	if (id == PTPM_ID_TIME_STATUS_NP) {
		sp_put64(d, (uint64_t)off);
		sp_put64(d + 8, (uint64_t)ingress);
		d[41] = (uint8_t)gm;
		memset(d + 42, 0xab, 8);
	} else if (id == PTPM_ID_CURRENT_DATA_SET) {
		sp_put16(d, 1);
		sp_put64(d + 2, (uint64_t)(off * 65536));
		sp_put64(d + 10, (uint64_t)(delay_ns * 65536));
	} else if (id == PTPM_ID_PORT_DATA_SET) {
		memset(d, 0xcd, 8);
		sp_put16(d + 8, 1);
		d[10] = ps;
		d[22] = (uint8_t)-3;
		d[23] = PTPM_DM_E2E;
		d[25] = 2;
	}
	return (size_t)n;
}

int64_t sim_drift(void)
{
	return sp4.drift_ppm ? (tb_sim_time(sp4.clk).ns - sp4.drift_t0) * sp4.drift_ppm / 1000000
			     : 0;
}

static uint8_t *slot(size_t *len)
{
	uint8_t *out = sp4.q[sp4.tail % 16];
	*len = 0;
	return out;
}

static void queued(size_t r)
{
	sp4.qlen[sp4.tail % 16] = r;
	sp4.tail++;
}

int sim_send(void *ctx, const uint8_t *buf, size_t n)
{
	(void)ctx;
	struct ptpm_msg m;
	sp4.sent++;
	if (ptpm_parse(buf, n, &m, NULL) != 0 || sp4.silent ||
	    sp4.tail - sp4.head >= 16 - SIMPTP_PORTS)
		return 0;
	if (m.transport_specific != sp4.ts) {
		sp4.dropped_ts++; /* port_ignore: not its transportSpecific */
		return 0;
	}
	size_t r;
	uint8_t *out = slot(&r);
	if (m.id == PTPM_ID_SUBSCRIBE_EVENTS_NP) {
		sp4.subs++;
		memcpy(out, buf, n);
		out[46] = PTPM_RESPONSE;
		queued(n);
		return 0;
	}
	if (m.id == PTPM_ID_TIME_STATUS_NP)
		sp4.ingress += 125000000;
	/* a measurement's noise of a few ns, as the scripted ptp4l has */
	int64_t off = sp4.offset + sp4.ingress / 125000000 % 5 - 2 + sim_drift();
	if (m.id == PTPM_ID_PORT_DATA_SET) {
		/* one answer per port, as clock.c's loop over its ports gives */
		int np = sp4.nports > 1 ? sp4.nports : 1;
		for (int k = 0; k < np; k++) {
			out = slot(&r);
			r = response(
				out, m.seq, m.id, off, sp4.ingress, sp4.gm,
				(uint8_t)(sp4.nports > 1 ? sp4.port_states[k] : sp4.port_state),
				sp4.delay);
			sp_put16(out + 54 + 8, (uint16_t)(k + 1));
			if (sp4.p2p) {
				out[54 + 23] = PTPM_DM_P2P;
				sp_put64(out + 54 + 12, (uint64_t)(sp4.delay * 65536));
			}
			queued(r);
		}
		return 0;
	}
	r = response(out, m.seq, m.id, off, sp4.ingress, sp4.gm, (uint8_t)sp4.port_state,
		     sp4.p2p ? 0 : sp4.delay);
	queued(r);
	return 0;
}

long sim_recv(void *ctx, uint8_t *buf, size_t n)
{
	(void)ctx;
	if (sp4.head == sp4.tail)
		return -1;
	size_t len = sp4.qlen[sp4.head % 16];
	memcpy(buf, sp4.q[sp4.head % 16], len < n ? len : n);
	sp4.head++;
	return (long)len;
}

int sim_wait(void *ctx, int ms)
{
	(void)ctx;
	(void)ms;
	return sp4.head != sp4.tail;
}

void sim_run(struct timebase *tb, int steps)
{
	for (int i = 0; i < steps; i++) {
		tb_ptp_run(tb);
		tb_sim_advance(sp4.clk, 10000000);
	}
}
