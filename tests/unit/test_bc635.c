/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bc635 driver against its register-level simulator, and the bc635 source
 * on a simulated clock: the DPRAM command protocol, the heartbeat divider for a
 * range of TFs, heartbeat programming and the event latch, flywheeling, a lost
 * interrupt seen as a gap in the frame index, a doubled one ignored,
 * interrupts that stop, a card that does not answer, a step of the card's
 * time, the two generations' BARs and DPRAM.
 */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../tdp_test.h"

#include "bc635.h"
#include "bc635_pci.h"
#include "bc635_regs.h"
#include "bc635_sim.h"
#include "frame.h"
#include "tb_bc635.h"
#include "tb_sim.h"

#define T0 (1700000000LL * TDP_NS_PER_S)

static int64_t sim_clock(void *arg)
{
	return tb_sim_time(arg).ns;
}

static void divider(void **st)
{
	(void)st;
	/* each divider 2-65535 (the V2 guide, Command 0x14, p. 43): TF 4, 8
	 * and 10 us are 2 x 2, 2 x 4, 2 x 5 */
	static const int64_t ok[] = {16000,    100000,	   125000,    250000,	1000000,
				     10000000, 1000000000, 200000000, 15625000, 20000,
				     25000,    4000,	   8000,      10000};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		uint16_t n1 = 0, n2 = 0;
		const char *why = NULL;
		assert_int_equal(bc635_divider(ok[i], &n1, &n2, &why), 0);
		assert_true(n1 >= 2 && n2 >= 2);
		assert_int_equal((int64_t)n1 * n2 * 1000, ok[i]);
	}
	uint16_t a, b;
	const char *w;
	assert_int_equal(bc635_divider(4000, &a, &b, &w), 0);
	assert_true(a == 2 && b == 2); /* the floor: 250 kHz */
	static const struct {
		int64_t tf;
		const char *why;
	} bad[] = {
		{1500, "multiple of 1 us"},
		{3000, "at least 4 us"},
		{2000, "at least 4 us"},
		{131000, "must divide one second"},    /* 131 is prime */
		{131074000, "must divide one second"}, /* longer than a second */
		{300000, "must divide one second"},    /* 15 x 20, but 3333.3 Hz */
		{196608000, "must divide one second"},
		{0, "multiple of 1 us"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint16_t n1, n2;
		const char *why = NULL;
		assert_int_equal(bc635_divider(bad[i].tf, &n1, &n2, &why), -EINVAL);
		assert_non_null(strstr(why, bad[i].why));
	}
}

static void command_protocol(void **st)
{
	(void)st;
	struct timebase *clk = tb_sim_new(tdp_time(T0), 0);
	struct bc_sim *sim = bcsim_new(sim_clock, clk);
	struct bc635 c;
	char err[256];
	struct bc_bus *b = bcsim_bus(sim);
	/* the DPRAM's top as the public sources give it: the input area's
	 * offset 0x0102 at 0xFFE (MSB) and 0xFFF, the output area's 0x0082 at
	 * 0xFFC and 0xFFD (btfp.h 206-216) */
	static const uint8_t top[4] = {0x00, 0x82, 0x01, 0x02};
	for (int i = 0; i < 4; i++)
		assert_int_equal(b->ops->dp_rd8(b, 0xFFC + (uint32_t)i), top[i]);
	assert_int_equal(bc635_open(&c, b, err, sizeof(err)), 0);
	assert_int_equal(c.in_off, 0x0102);
	assert_int_equal(c.out_off, 0x0082);
	/* the model reply: the sub-code, then 8 ASCII bytes, no terminator;
	 * the serial a 32-bit big-endian number; the firmware 11 ASCII bytes */
	static const uint8_t model[9] = {0xF6, 'B', 'C', '6', '3', '7', 'P', 'C', 'I'};
	uint8_t got[12];
	assert_int_equal(bc635_request(&c, BC_REQ_MODEL, got, 9), 0);
	assert_memory_equal(got, model, 9);
	assert_string_equal(c.model, "BC637PCI");
	assert_true(c.has_gps);
	assert_string_equal(c.serial, "123456");
	assert_string_equal(c.firmware, "SIM 1.0");
	uint8_t cmd[8];
	assert_int_equal(bcsim_command_bytes(sim, 0, cmd), 0);
	assert_memory_equal(cmd, ((const uint8_t[]){BC_CMD_REQUEST, BC_REQ_MODEL}), 2);
	assert_int_equal(bc635_setup(&c, 250000, -1, err, sizeof(err)), 0);
	assert_int_equal(bcsim_timing_mode(sim), BC_MODE_GPS);
	assert_int_equal(c.mode, BC_MODE_GPS);
	/* 0x14 for 250 us: sync on, n1 10 and n2 25, each big-endian; then the
	 * time scale pinned: no local offset, UTC from GPS */
	assert_int_equal(bcsim_command_bytes(sim, 2, cmd), 0);
	assert_memory_equal(cmd, ((const uint8_t[]){0x14, 0x01, 0x00, 0x0A, 0x00, 0x19}), 6);
	assert_int_equal(bcsim_command_bytes(sim, 1, cmd), 0);
	assert_memory_equal(cmd, ((const uint8_t[]){0x40, 0x00}), 2);
	assert_int_equal(bcsim_command_bytes(sim, 0, cmd), 0);
	assert_memory_equal(cmd, ((const uint8_t[]){0x33, 0x00}), 2);
	assert_int_equal(bcsim_time_format(sim), BC_FORMAT_BINARY);
	assert_int_equal(bcsim_period_ns(sim), 250000);
	assert_int_equal(b->ops->rd32(b, BC_MASK), BC_INT_PERIODIC);
	assert_int_equal(b->ops->rd32(b, BC_CONTROL),
			 BC_CTL_LOCKEN | BC_CTL_EVSOURCE | BC_CTL_EVENTEN);
	assert_int_equal(c.st.commands, 3 + 1 + 5); /* open, the request above, set-up */
	/* 100 Hz: 1 MHz / (100 x 100) = [0x14 0x01 0x00 0x64 0x00 0x64]; and 1 Hz,
	 * where 1000 = 0x03E8 shows the byte order */
	assert_int_equal(bc635_setup(&c, 10000000, -1, err, sizeof(err)), 0);
	assert_int_equal(bcsim_command_bytes(sim, 2, cmd), 0);
	assert_memory_equal(cmd, ((const uint8_t[]){0x14, 0x01, 0x00, 0x64, 0x00, 0x64}), 6);
	assert_int_equal(bc635_setup(&c, 1000000000, -1, err, sizeof(err)), 0);
	assert_int_equal(bcsim_command_bytes(sim, 2, cmd), 0);
	assert_memory_equal(cmd, ((const uint8_t[]){0x14, 0x01, 0x03, 0xE8, 0x03, 0xE8}), 6);
	assert_int_equal(bcsim_period_ns(sim), 1000000000);
	assert_int_equal(bc635_setup(&c, 250000, -1, err, sizeof(err)), 0);
	assert_int_equal(c.st.commands, 9 + 15);
	/* a TF the divider cannot make is refused before anything is sent */
	assert_int_equal(bc635_setup(&c, 131000, -1, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "TF 131000 ns"));
	assert_int_equal(c.st.commands, 24);
	/* binary time: seconds, microseconds and the 100 ns digit */
	tb_sim_advance(clk, 123456700);
	struct bc635_time t;
	bc635_read_time(&c, &t);
	assert_int_equal(t.utc_ns, T0 + 123456700);
	assert_int_equal(t.flags, 0);
	/* the event latch and its lockout */
	b->ops->wr32(b, BC_EVENTREQ, 1);
	tb_sim_advance(clk, 1000);
	b->ops->wr32(b, BC_EVENTREQ, 1); /* locked: ignored */
	bc635_decode(b->ops->rd32(b, BC_EVENT0), b->ops->rd32(b, BC_EVENT1), &t);
	assert_int_equal(t.utc_ns, T0 + 123456700);
	(void)b->ops->rd32(b, BC_UNLOCK);
	b->ops->wr32(b, BC_EVENTREQ, 1);
	bc635_decode(b->ops->rd32(b, BC_EVENT0), b->ops->rd32(b, BC_EVENT1), &t);
	assert_int_equal(t.utc_ns, T0 + 123457700);
	/* read to latch, as btfp.h calls TIMEREQ and EVENTREQ and btfp.c does:
	 * the card latches on a read as on a write */
	tb_sim_advance(clk, 5000);
	(void)b->ops->rd32(b, BC_TIMEREQ);
	bc635_decode(b->ops->rd32(b, BC_TIME0), b->ops->rd32(b, BC_TIME1), &t);
	assert_int_equal(t.utc_ns, T0 + 123462700);
	(void)b->ops->rd32(b, BC_UNLOCK);
	(void)b->ops->rd32(b, BC_EVENTREQ);
	tb_sim_advance(clk, 1000);
	(void)b->ops->rd32(b, BC_EVENTREQ); /* locked: ignored */
	bc635_decode(b->ops->rd32(b, BC_EVENT0), b->ops->rd32(b, BC_EVENT1), &t);
	assert_int_equal(t.utc_ns, T0 + 123462700);
	/* TF 4 us: both dividers 2 (the V2 guide's floor) */
	assert_int_equal(bc635_setup(&c, 4000, -1, err, sizeof(err)), 0);
	assert_int_equal(bcsim_period_ns(sim), 4000);
	/* a card that never acknowledges: a timeout, counted, no hang */
	bcsim_mute(sim, true);
	uint8_t pkt[2] = {BC_CMD_TIME_FORMAT, 1};
	assert_int_equal(bc635_command(&c, pkt, 2), -ETIMEDOUT);
	assert_int_equal(c.st.command_timeouts, 1);
	struct bc635 c2;
	assert_int_equal(bc635_open(&c2, b, err, sizeof(err)), -ETIMEDOUT);
	assert_non_null(strstr(err, "does not answer"));
	bcsim_free(sim);
	clk->ops->destroy(clk);
}

/* The source on a sim clock; edges are made as the clock moves. */
struct rig {
	struct timebase *clk, *tb;
	struct bc_sim *sim;
};

/* A bc635 has no GPS receiver: its model reply's fifth character is '5', and
 * timing mode GPS (0x06, bc637 only) is refused; it follows a time code, or
 * an external 1PPS when told (btfp.c 29-31, 348-352, 1118-1122). */
static void timing_mode_from_the_model(void **st)
{
	(void)st;
	struct timebase *clk = tb_sim_new(tdp_time(T0), 0);
	struct bc_sim *sim = bcsim_new(sim_clock, clk);
	struct bc635 c;
	char err[256];
	bcsim_set_model(sim, "BC635PCI");
	assert_int_equal(bc635_open(&c, bcsim_bus(sim), err, sizeof(err)), 0);
	assert_string_equal(c.model, "BC635PCI");
	assert_false(c.has_gps);
	assert_int_equal(bc635_setup(&c, 1000000, -1, err, sizeof(err)), 0);
	assert_int_equal(bcsim_timing_mode(sim), BC_MODE_TIMECODE);
	assert_string_equal(bc635_mode_name(c.mode), "time code");
	assert_int_equal(bc635_setup(&c, 1000000, BC_MODE_GPS, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "without a GPS receiver"));
	assert_int_equal(bcsim_timing_mode(sim), BC_MODE_TIMECODE);
	assert_int_equal(bc635_setup(&c, 1000000, BC_MODE_EXT_1PPS, err, sizeof(err)), 0);
	assert_int_equal(bcsim_timing_mode(sim), BC_MODE_EXT_1PPS);
	/* area offsets read little-endian would be 0x0201 and 0x8200: a card
	 * whose pointers say so is refused, not misread */
	bcsim_dpram_poke(sim, 0xFFC, 0x82);
	bcsim_dpram_poke(sim, 0xFFD, 0x00);
	assert_int_equal(bc635_open(&c, bcsim_bus(sim), err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "0x8200 (output)"));
	bcsim_free(sim);
	clk->ops->destroy(clk);
}

/* A card may hold GPS time (18 s ahead of UTC, bc637) and observe a local
 * offset: set-up pins UTC and no local offset, and the time read is UTC
 * (btfp.h 341-349; btfp.c 385-390). On a bc635, 0x33 is not sent. */
static void time_scale_pinned(void **st)
{
	(void)st;
	for (int gps = 1; gps >= 0; gps--) {
		struct timebase *clk = tb_sim_new(tdp_time(T0), 0);
		struct bc_sim *sim = bcsim_new(sim_clock, clk);
		struct bc635 c;
		struct bc635_time t;
		char err[256];
		if (!gps)
			bcsim_set_model(sim, "BC635PCI");
		assert_int_equal(bc635_open(&c, bcsim_bus(sim), err, sizeof(err)), 0);
		bc635_read_time(&c, &t);
		assert_int_equal(t.utc_ns, T0 + 3600 * TDP_NS_PER_S +
						   (gps ? 18 * TDP_NS_PER_S : 0)); /* power-up */
		assert_int_equal(bc635_setup(&c, 1000000, -1, err, sizeof(err)), 0);
		bc635_read_time(&c, &t);
		assert_int_equal(t.utc_ns, T0);
		uint8_t cmd[8];
		assert_int_equal(bcsim_command_bytes(sim, 0, cmd), 0);
		assert_int_equal(cmd[0], gps ? 0x33 : 0x40);
		bcsim_free(sim);
		clk->ops->destroy(clk);
	}
}

/* Edges synchronised to 1PPS restart at every second: a period that does
 * not divide the second (300 us, which tdpd refuses) leaves a 100 us gap
 * before it, where counting from the epoch would not. */
static void edges_restart_each_second(void **st)
{
	(void)st;
	struct timebase *clk = tb_sim_new(tdp_time(T0 + 999000000), 0);
	struct bc_sim *sim = bcsim_new(sim_clock, clk);
	struct bc_bus *b = bcsim_bus(sim);
	struct bc635 c;
	char err[256];
	assert_int_equal(bc635_open(&c, b, err, sizeof(err)), 0);
	assert_int_equal(bc635_setup(&c, 1000000, -1, err, sizeof(err)), 0);
	static const uint8_t per[6] = {0x14, 0x01, 0x00, 15, 0x00, 20}; /* 300 us */
	assert_int_equal(bc635_command(&c, per, 6), 0);
	assert_int_equal(bcsim_period_ns(sim), 300000);
	int64_t want[] = {T0 + 999300000, T0 + 999600000, T0 + 999900000, T0 + 1000000000,
			  T0 + 1000300000};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		tb_sim_advance(clk, want[i] - tb_sim_time(clk).ns);
		bcsim_run_to(sim, tb_sim_time(clk).ns);
		struct bc635_time e;
		assert_int_equal(bc635_take_tick(&c, &e), 1);
		assert_int_equal(e.utc_ns, want[i]);
	}
	bcsim_free(sim);
	clk->ops->destroy(clk);
}

static void rig_up(struct rig *r, int64_t tf_ns)
{
	r->clk = tb_sim_new(tdp_time(T0 + 10 * TDP_NS_PER_S + tf_ns / 2), 0);
	r->sim = bcsim_new(sim_clock, r->clk);
	struct tb_params p = {.tf_ns = tf_ns, .epoch_ns = 0};
	tb_sync_params_defaults(&p.sync);
	p.sync.timeout_ns = 5 * tf_ns;
	p.sync.holdover_ns = 10 * tf_ns;
	char err[256];
	r->tb = tb_bc635_new(bcsim_bus(r->sim), r->clk, &p, err, sizeof(err));
	if (!r->tb)
		fail_msg("tb_bc635_new: %s", err);
}

static void rig_down(struct rig *r)
{
	r->tb->ops->destroy(r->tb);
	bcsim_free(r->sim);
	r->clk->ops->destroy(r->clk);
}

/* The driver's order with a level-triggered INTx: INTSTAT read and cleared,
 * then the interrupt let through again; one interrupt per edge. Let through
 * before the clear, the line (still asserted) fires a second time at once:
 * the simulator models that, and the old order counted it as spurious. CONTROL
 * is read, modified and written (its strobe and frequency output kept), and
 * UNLOCK is read, never written (btfp.h 361-402, 421-432; btfp.c 463-487, 931). */
static struct bc_bus *early_in;
static const struct bc_bus_ops *early_ops;

static int early_take(struct bc_bus *b)
{
	(void)b;
	int n = early_ops->irq_take(early_in);
	if (n > 0)
		early_ops->irq_rearm(
			early_in); /* the old order: re-armed before INTSTAT is cleared */
	return n;
}

static int no_rearm(struct bc_bus *b)
{
	(void)b;
	return 0;
}

static uint32_t early_rd32(struct bc_bus *b, uint32_t off)
{
	(void)b;
	return early_ops->rd32(early_in, off);
}
static void early_wr32(struct bc_bus *b, uint32_t off, uint32_t v)
{
	(void)b;
	early_ops->wr32(early_in, off, v);
}

static void interrupt_order_and_control(void **st)
{
	(void)st;
	struct timebase *clk = tb_sim_new(tdp_time(T0 + 500000), 0);
	struct bc_sim *sim = bcsim_new(sim_clock, clk);
	struct bc_bus *b = bcsim_bus(sim);
	struct bc635 c;
	char err[256];
	bcsim_set_reg(sim, BC_CONTROL, BC_CTL_STREN | 0x40);
	assert_int_equal(bc635_open(&c, b, err, sizeof(err)), 0);
	assert_int_equal(bc635_setup(&c, 1000000, -1, err, sizeof(err)), 0);
	assert_int_equal(b->ops->rd32(b, BC_CONTROL),
			 BC_CTL_STREN | 0x40 | BC_CTL_LOCKEN | BC_CTL_EVSOURCE | BC_CTL_EVENTEN);
	struct pollfd p = {.fd = b->ops->irq_fd(b), .events = POLLIN};
	struct bc635_time e;
	for (int k = 1; k <= 20; k++) {
		tb_sim_advance(clk, 1000000);
		bcsim_run_to(sim, tb_sim_time(clk).ns);
		assert_int_equal(poll(&p, 1, 0), 1);
		assert_int_equal(bc635_take_tick(&c, &e), 1);
		assert_int_equal(poll(&p, 1, 0),
				 0); /* cleared before re-armed: no second interrupt */
		assert_int_equal(e.utc_ns, T0 + (int64_t)k * 1000000);
	}
	struct bc_sim_stats ss;
	bcsim_stats(sim, &ss);
	assert_int_equal(ss.irqs, 20);
	assert_int_equal(ss.rearms, 20);
	assert_int_equal(ss.unlock_writes, 0);
	assert_int_equal(c.st.spurious, 0);
	/* the old order through a wrapper: every edge interrupts twice */
	static struct bc_bus_ops early;
	early.rd32 = early_rd32;
	early.wr32 = early_wr32;
	early.irq_take = early_take;
	early.irq_rearm = no_rearm;
	early_in = b;
	early_ops = b->ops;
	struct bc_bus wrapped = {&early, b->dp_size};
	c.bus = &wrapped;
	for (int k = 0; k < 5; k++) {
		tb_sim_advance(clk, 1000000);
		bcsim_run_to(sim, tb_sim_time(clk).ns);
		while (poll(&p, 1, 0) == 1)
			bc635_take_tick(&c, &e);
	}
	bcsim_stats(sim, &ss);
	assert_int_equal(ss.irqs, 20 + 2 * 5);
	assert_int_equal(c.st.spurious, 5);
	bcsim_free(sim);
	clk->ops->destroy(clk);
}

/* Moves the clock one frame on and takes the ticks that came: -1 if none. */
static int64_t next_frame(struct rig *r, int64_t tf_ns, int *nticks)
{
	tb_sim_advance(r->clk, tf_ns);
	bcsim_run_to(r->sim, tb_sim_time(r->clk).ns);
	int64_t last = -1;
	*nticks = 0;
	struct pollfd p = {.fd = r->tb->ops->tick_fd(r->tb), .events = POLLIN};
	while (poll(&p, 1, 0) == 1) {
		int64_t f = r->tb->ops->tick(r->tb);
		if (f >= 0) {
			last = f;
			++*nticks;
		}
	}
	return last;
}

static void heartbeat_ticks_for_tfs(void **st)
{
	(void)st;
	static const int64_t tfs[] = {100000, 250000, 1000000, 10000000};
	for (size_t i = 0; i < sizeof(tfs) / sizeof(tfs[0]); i++) {
		struct rig r;
		rig_up(&r, tfs[i]);
		struct frame_geom g = {tfs[i], 0, 1};
		int64_t expect = frame_index(&g, tb_sim_time(r.clk)) + 1;
		for (int k = 0; k < 50; k++, expect++) {
			int n;
			int64_t f = next_frame(&r, tfs[i], &n);
			assert_int_equal(n, 1);
			assert_int_equal(f, expect);
		}
		struct tb_tick_stats ts;
		tb_tick_stats(r.tb, &ts);
		assert_int_equal(ts.ticks, 50);
		assert_int_equal(ts.missed + ts.doubled + ts.off_grid + ts.spurious, 0);
		assert_int_equal(tb_state(r.tb), TB_LOCKED);
		rig_down(&r);
	}
}

static void lost_doubled_and_stopped(void **st)
{
	(void)st;
	const int64_t tf = 1000000;
	struct rig r;
	rig_up(&r, tf);
	int n;
	int64_t f0 = next_frame(&r, tf, &n);
	/* a lost interrupt: the next tick is two frames on, and one is missed */
	bcsim_lose(r.sim, 1);
	assert_int_equal(next_frame(&r, tf, &n), -1);
	assert_int_equal(next_frame(&r, tf, &n), f0 + 2);
	struct tb_tick_stats ts;
	tb_tick_stats(r.tb, &ts);
	assert_int_equal(ts.missed, 1);
	/* a doubled one: taken once, the second ignored */
	bcsim_double(r.sim, 1);
	assert_int_equal(next_frame(&r, tf, &n), f0 + 3);
	assert_int_equal(n, 1);
	tb_tick_stats(r.tb, &ts);
	assert_int_equal(ts.doubled, 1);
	assert_int_equal(next_frame(&r, tf, &n), f0 + 4);
	assert_int_equal(tb_state(r.tb), TB_LOCKED);
	/* interrupts stop: no ticks; refreshes see no samples: holdover, unlocked */
	bcsim_irqs_off(r.sim, true);
	for (int k = 0; k < 8; k++) {
		assert_int_equal(next_frame(&r, tf, &n), -1);
		tb_refresh(r.tb);
	}
	assert_int_equal(tb_state(r.tb), TB_HOLDOVER);
	for (int k = 0; k < 12; k++) {
		next_frame(&r, tf, &n);
		tb_refresh(r.tb);
	}
	assert_int_equal(tb_state(r.tb), TB_UNLOCKED);
	/* back: locked again after four good ticks */
	bcsim_irqs_off(r.sim, false);
	for (int k = 0; k < 4; k++)
		next_frame(&r, tf, &n);
	assert_int_equal(tb_state(r.tb), TB_LOCKED);
	rig_down(&r);
}

static void flywheel_and_step(void **st)
{
	(void)st;
	const int64_t tf = 1000000;
	struct rig r;
	rig_up(&r, tf);
	int n;
	for (int k = 0; k < 5; k++)
		next_frame(&r, tf, &n);
	assert_int_equal(tb_state(r.tb), TB_LOCKED);
	/* the receiver loses the satellites: holdover at the next tick */
	bcsim_set_flags(r.sim, BC_T0_FLYWHEEL);
	next_frame(&r, tf, &n);
	assert_int_equal(tb_state(r.tb), TB_HOLDOVER);
	struct tb_sync s;
	tb_sync(r.tb, &s);
	assert_non_null(strstr(s.reason, "flywheeling"));
	/* the offset flags: bad samples, no relock */
	bcsim_set_flags(r.sim, BC_T0_TIME_OFFSET);
	for (int k = 0; k < 5; k++)
		next_frame(&r, tf, &n);
	assert_true(tb_state(r.tb) != TB_LOCKED);
	bcsim_set_flags(r.sim, 0);
	for (int k = 0; k < 4; k++)
		next_frame(&r, tf, &n);
	assert_int_equal(tb_state(r.tb), TB_LOCKED);
	/* the card's time steps 5 ms forward: the ticks jump five frames, the
	 * source's clock moves with the card, and the step is counted */
	int64_t before = tdp_time_diff(r.tb->ops->fast_now(r.tb), tb_sim_time(r.clk));
	int64_t f = next_frame(&r, tf, &n);
	bcsim_step(r.sim, 5000000);
	int64_t g = next_frame(&r, tf, &n);
	assert_int_equal(g, f + 6);
	/* the engine's thread reads no card time: the tick asks the housekeeping
	 * thread to measure again, and until it has, the clock has not moved */
	assert_true(tb_refresh_asked(r.tb));
	int64_t pending = tdp_time_diff(r.tb->ops->fast_now(r.tb), tb_sim_time(r.clk));
	assert_true(pending - before > -100000 && pending - before < 100000);
	tb_refresh(r.tb);
	assert_false(tb_refresh_asked(r.tb));
	assert_int_equal(next_frame(&r, tf, &n), g + 1);
	int64_t after = tdp_time_diff(r.tb->ops->fast_now(r.tb), tb_sim_time(r.clk));
	assert_true(after - before > 4900000 && after - before < 5100000);
	tb_sync(r.tb, &s);
	assert_int_equal(s.steps, 1);
	struct tb_tick_stats ts;
	tb_tick_stats(r.tb, &ts);
	assert_int_equal(ts.missed, 5);
	rig_down(&r);
}

/* Which BARs, and how much DPRAM, from the PCI revision: 0x12 registers in
 * BAR0 and 4 KiB in BAR1 (btfp.c 249-266), 0x20-0x2F registers in BAR2 and
 * 2 KiB in BAR3 (LIGO's symmetricomGps.c); anything else only when told. */
static void layout_from_the_revision(void **st)
{
	(void)st;
	struct bc_layout l;
	char how[300];
	uint64_t v1[6] = {128, 4096}, v2[6] = {0, 0, 128, 2048}, small[6] = {128, 1024, 128, 1024};
	assert_int_equal(bc635_layout(0x12, v1, BC_BARS_AUTO, &l, how, sizeof(how)), 0);
	assert_true(l.reg_bar == 0 && l.dp_bar == 1 && l.dp_size == 4096 && l.generation == 1);
	assert_non_null(strstr(how, "first generation (PCI revision 0x12)"));
	for (int rev = 0x20; rev <= 0x2f; rev++) {
		assert_int_equal(bc635_layout(rev, v2, BC_BARS_AUTO, &l, how, sizeof(how)), 0);
		assert_true(l.reg_bar == 2 && l.dp_bar == 3 && l.dp_size == 2048 &&
			    l.generation == 2);
	}
	assert_non_null(strstr(how, "second generation (PCI revision 0x2f): registers in BAR 2, 2 "
				    "KiB of DPRAM in BAR 3"));
	/* BARs too small for what the revision says */
	assert_int_equal(bc635_layout(0x12, v2, BC_BARS_AUTO, &l, how, sizeof(how)), -ENODEV);
	assert_non_null(strstr(how, "not a bc635PCI-U"));
	assert_int_equal(bc635_layout(0x21, small, BC_BARS_AUTO, &l, how, sizeof(how)), -ENODEV);
	/* a revision no public source names, or none read: only when told */
	assert_int_equal(bc635_layout(0x30, v2, BC_BARS_AUTO, &l, how, sizeof(how)), -ENODEV);
	assert_non_null(strstr(how, "PCI revision 0x30 is neither"));
	assert_int_equal(bc635_layout(0x11, v1, BC_BARS_AUTO, &l, how, sizeof(how)), -ENODEV);
	assert_int_equal(bc635_layout(-1, v1, BC_BARS_AUTO, &l, how, sizeof(how)), -ENODEV);
	assert_non_null(strstr(how, "could not be read"));
	assert_int_equal(bc635_layout(0x30, v2, BC_BARS_2_3, &l, how, sizeof(how)), 0);
	assert_true(l.reg_bar == 2 && l.dp_bar == 3 && l.dp_size == 2048 && l.generation == 0);
	assert_non_null(strstr(how, "as bc635-bars says"));
	uint64_t swapped[6] = {4096, 128};
	assert_int_equal(bc635_layout(0x12, swapped, BC_BARS_1_0, &l, how, sizeof(how)), 0);
	assert_true(l.reg_bar == 1 && l.dp_bar == 0 && l.dp_size == 4096);
	assert_int_equal(bc635_layout(0x12, v1, BC_BARS_1_0, &l, how, sizeof(how)), -ENODEV);
	/* the first generation with 2 KiB of DPRAM in BAR1: seen in BAR1's
	 * size, or chosen with 0,1-2k */
	uint64_t v1s[6] = {128, 2048}, v1t[6] = {128, 1024};
	assert_int_equal(bc635_layout(0x12, v1s, BC_BARS_AUTO, &l, how, sizeof(how)), 0);
	assert_true(l.reg_bar == 0 && l.dp_bar == 1 && l.dp_size == 2048 && l.generation == 1);
	assert_non_null(strstr(how, "2 KiB of DPRAM in BAR 1 (BAR 1 is 2 KiB)"));
	assert_int_equal(bc635_layout(0x12, v1, BC_BARS_0_1_2K, &l, how, sizeof(how)), 0);
	assert_true(l.dp_bar == 1 && l.dp_size == 2048);
	assert_non_null(strstr(how, "as bc635-bars says"));
	assert_int_equal(bc635_layout(0x12, v1t, BC_BARS_AUTO, &l, how, sizeof(how)), -ENODEV);
	/* and a card that is not there says so */
	char err[256];
	assert_null(bc635_pci_open("uio97", BC_BARS_AUTO, err, sizeof(err)));
	assert_non_null(strstr(err, "no PCI device"));
	assert_null(bc635_pci_open("0000:7f:1f.7", BC_BARS_AUTO, err, sizeof(err)));
	assert_null(bc635_pci_open("eth0", BC_BARS_AUTO, err, sizeof(err)));
	assert_non_null(strstr(err, "give uioN"));
}

/* The second generation's 2 KiB DPRAM has the area offsets at 0x7FC-0x7FF;
 * the driver finds them there, and only there, and runs the card. */
static void second_generation_dpram(void **st)
{
	(void)st;
	struct timebase *clk = tb_sim_new(tdp_time(T0), 0);
	struct bc_sim *sim = bcsim_new(sim_clock, clk);
	bcsim_set_revision(sim, 0x21);
	struct bc_bus *b = bcsim_bus(sim);
	assert_int_equal(b->dp_size, 2048);
	char what[200];
	b->ops->describe(b, what, sizeof(what));
	assert_non_null(
		strstr(what, "second generation, PCI revision 0x21: registers, 2 KiB of DPRAM"));
	static const uint8_t top[4] = {0x00, 0x82, 0x01, 0x02};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(b->ops->dp_rd8(b, 0x7FC + (uint32_t)i), top[i]);
		assert_int_equal(b->ops->dp_rd8(b, 0xFFC + (uint32_t)i), 0xff); /* nothing there */
	}
	struct bc635 c;
	char err[256];
	if (bc635_open(&c, b, err, sizeof(err)))
		fail_msg("bc635_open on the second generation: %s", err);
	assert_int_equal(c.in_off, 0x0102);
	assert_int_equal(c.out_off, 0x0082);
	assert_string_equal(c.model, "BC637PCI");
	assert_int_equal(bc635_setup(&c, 1000000, -1, err, sizeof(err)), 0);
	assert_int_equal(bcsim_period_ns(sim), 1000000);
	/* a driver that assumes the first generation's 4 KiB finds no offsets */
	b->dp_size = 4096;
	assert_int_equal(bc635_open(&c, b, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "0xffff"));
	/* and the first generation's DPRAM read as the second's neither */
	bcsim_set_revision(sim, 0x12);
	assert_int_equal(b->dp_size, 4096);
	b->dp_size = 2048;
	assert_int_equal(bc635_open(&c, b, err, sizeof(err)), -ENODEV);
	bcsim_free(sim);
	clk->ops->destroy(clk);
}

/* A bus in front of the simulator's that, once armed, runs the engine's
 * refresh (its card reads) between another caller's TIME0 and TIME1 reads:
 * the interleaving two threads can produce, made deterministic. */
static struct {
	struct bc_bus bus;
	struct bc_bus *in;
	struct timebase *clk, *tb;
	bool armed, inside;
	int fired;
} wb;

static uint32_t wb_rd32(struct bc_bus *b, uint32_t off)
{
	(void)b;
	uint32_t v = wb.in->ops->rd32(wb.in, off);
	if (off == BC_TIME0 && wb.armed && !wb.inside) {
		wb.armed = false;
		wb.inside = true;
		tb_sim_advance(wb.clk, 2000); /* past the second boundary */
		tb_refresh(wb.tb);
		wb.inside = false;
		wb.fired++;
	}
	return v;
}
static void wb_wr32(struct bc_bus *b, uint32_t off, uint32_t v)
{
	(void)b;
	wb.in->ops->wr32(wb.in, off, v);
}
static uint8_t wb_dp_rd8(struct bc_bus *b, uint32_t off)
{
	(void)b;
	return wb.in->ops->dp_rd8(wb.in, off);
}
static void wb_dp_wr8(struct bc_bus *b, uint32_t off, uint8_t v)
{
	(void)b;
	wb.in->ops->dp_wr8(wb.in, off, v);
}
static int wb_irq_fd(struct bc_bus *b)
{
	(void)b;
	return wb.in->ops->irq_fd(wb.in);
}
static int wb_irq_take(struct bc_bus *b)
{
	(void)b;
	return wb.in->ops->irq_take(wb.in);
}
static int wb_irq_rearm(struct bc_bus *b)
{
	(void)b;
	return wb.in->ops->irq_rearm(wb.in);
}
static void wb_close(struct bc_bus *b)
{
	(void)b;
}
static void wb_describe(struct bc_bus *b, char *buf, size_t len)
{
	(void)b;
	snprintf(buf, len, "wrapped simulator");
}
static const struct bc_bus_ops wb_ops = {wb_rd32,      wb_wr32,	  wb_dp_rd8,
					 wb_dp_wr8,    wb_irq_fd, wb_irq_take,
					 wb_irq_rearm, wb_close,  wb_describe};

/*
 * now() called by the control thread while the engine's refresh reads the
 * card, 1 us before a second: a read is TIMEREQ, TIME0 (microseconds), TIME1
 * (seconds), so the other latch between TIME0 and TIME1 gives this second's
 * microseconds with the next second: a time 1 s ahead. now() must not read
 * the card off the engine's thread at all.
 */
static void now_beside_the_engine(void **st)
{
	(void)st;
	wb.clk = tb_sim_new(tdp_time(T0 + 20 * TDP_NS_PER_S - 1000), 0);
	struct bc_sim *sim = bcsim_new(sim_clock, wb.clk);
	wb.in = bcsim_bus(sim);
	wb.bus.ops = &wb_ops;
	wb.bus.dp_size = wb.in->dp_size;
	struct tb_params p = {.tf_ns = 1000000, .epoch_ns = 0};
	tb_sync_params_defaults(&p.sync);
	char err[256];
	wb.tb = tb_bc635_new(&wb.bus, wb.clk, &p, err, sizeof(err));
	if (!wb.tb)
		fail_msg("tb_bc635_new: %s", err);
	wb.armed = true;
	wb.fired = 0;
	tdp_time_t t = tb_now(wb.tb);
	tdp_time_t host = tb_fast_now(wb.tb); /* the host clock and the measured offset */
	int64_t d = tdp_time_diff(t, host);
	if (d > 1000000 || d < -1000000)
		fail_msg("now() is %lld ns from the card's time (the refresh ran inside it: %d)",
			 (long long)d, wb.fired);
	wb.tb->ops->destroy(wb.tb);
	bcsim_free(sim);
	wb.clk->ops->destroy(wb.clk);
}

TDP_TEST_MAIN(cmocka_unit_test(divider), cmocka_unit_test(command_protocol),
	      cmocka_unit_test(timing_mode_from_the_model),
	      cmocka_unit_test(interrupt_order_and_control), cmocka_unit_test(time_scale_pinned),
	      cmocka_unit_test(edges_restart_each_second),
	      cmocka_unit_test(heartbeat_ticks_for_tfs), cmocka_unit_test(lost_doubled_and_stopped),
	      cmocka_unit_test(flywheel_and_step), cmocka_unit_test(layout_from_the_revision),
	      cmocka_unit_test(second_generation_dpram), cmocka_unit_test(now_beside_the_engine))
