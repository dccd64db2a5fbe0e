/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bc635 sources: the GPS card (bc635) or its register-level simulator
 * (bc635-sim, edges in real time on the host clock), through the driver in
 * drivers/gps-bc635. The card's heartbeat is programmed to the frame rate,
 * synchronised to 1PPS, so each edge is a frame start; its time is latched in
 * EVENT0/1 and its interrupt is the tick. tick() turns an interrupt into the
 * index of the frame that started: a gap of more than one is counted as
 * missed ticks, the same index again as a doubled one (ignored).
 *
 * The card's time (TIMEREQ, TIME0/1: UTC plus the UTC-TAI offset) is read by
 * one thread only, the housekeeping thread's refresh (and once at creation),
 * to measure the card-host offset; a tick that finds the card moved against
 * the host asks for a refresh at once. A read is a sequence (TIMEREQ latch,
 * TIME0, TIME1) that another thread's read between its steps would mix with
 * its own latch, giving a time up to a second off. now(), the engine's polling
 * and its sleeping go through the host clock shifted by the offset; the
 * engine's thread touches only the interrupt and EVENT registers (tick).
 * Sync: each tick and each refresh is a sample; the flywheel flag (GPS not
 * tracked) is a fault, the time- and frequency-offset flags make a sample bad;
 * ticks that stop make the samples stop, hence holdover, then unlocked.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>

#include "bc635.h"
#include "bc635_pci.h"
#include "bc635_regs.h"
#include "bc635_sim.h"
#include "frame.h"
#include "log.h"
#include "tb_bc635.h"
#include "tb_hosted.h"
#include "tb_system.h"

struct tb_bc {
	struct timebase base;
	struct tb_hosted h; /* card CTR - host CTR */
	struct bc_bus *bus;
	bool own_bus;
	struct bc635 card;
	int64_t tai_off_ns; /* TAI - UTC */
	bool inited;	    /* the shared part is set up */
	char what[600];
};

#define BC(tb) ((struct tb_bc *)(tb))
static tdp_time_t card_now(struct tb_bc *b, uint32_t *flags)
{
	struct bc635_time t;
	bc635_read_time(&b->card, &t);
	if (flags)
		*flags = t.flags;
	return tdp_time(t.utc_ns + b->tai_off_ns);
}

/* card - host, from a card read between two host reads; the narrowest of
 * three brackets, so that one preempted read does not pass for a step */
static int64_t measure(struct tb_bc *b, uint32_t *flags)
{
	int64_t best_w = INT64_MAX, off = 0;
	for (int i = 0; i < 3; i++) {
		tdp_time_t h0 = tb_now(b->h.host);
		tdp_time_t c = card_now(b, flags);
		tdp_time_t h1 = tb_now(b->h.host);
		if (h1.ns - h0.ns < best_w) {
			best_w = h1.ns - h0.ns;
			off = c.ns - (h0.ns + (h1.ns - h0.ns) / 2);
		}
	}
	tb_hosted_set(&b->h, off);
	return off;
}

/* one sample of the card's state, from a tick (the engine's thread) */
static void sample(struct tb_bc *b, tdp_time_t now, uint32_t flags, int64_t off)
{
	if (flags & BC_T0_FLYWHEEL)
		tb_fault_nowait(&b->base, now, "GPS receiver flywheeling: not tracking satellites");
	else
		tb_sample_nowait(&b->base, now, off,
				 (flags & (BC_T0_TIME_OFFSET | BC_T0_FREQ_OFFSET))
					 ? 2 * tb_sync_cfg(&b->base)->lock_ns + 1
					 : 0);
}

static tdp_time_t bc_now(struct timebase *tb)
{
	struct tb_bc *b = BC(tb);
	return tb_hosted_now(&b->h);
}

static tdp_time_t bc_fast_now(struct timebase *tb)
{
	struct tb_bc *b = BC(tb);
	return tb_hosted_fast_now(&b->h);
}

static int bc_sleep_until(struct timebase *tb, tdp_time_t t)
{
	struct tb_bc *b = BC(tb);
	return tb_hosted_sleep_until(&b->h, t);
}

/* the housekeeping thread: the only reader of the card's time after start */
static void bc_refresh(struct timebase *tb)
{
	struct tb_bc *b = BC(tb);
	tb_hosted_refresh(&b->h);
	uint32_t flags;
	measure(b, &flags);
	/* a refresh shows the card's flags, but only ticks count as samples: ticks
	 * that stop must end in holdover */
	if (flags & BC_T0_FLYWHEEL)
		tb_fault(tb, bc_now(tb), "GPS receiver flywheeling: not tracking satellites");
}

static int bc_tick_fd(struct timebase *tb)
{
	struct tb_bc *b = BC(tb);
	return b->bus->ops->irq_fd(b->bus);
}

static int64_t bc_tick(struct timebase *tb)
{
	struct tb_bc *b = BC(tb);
	struct bc635_time e;
	if (bc635_take_tick(&b->card, &e) != 1) {
		tb_tick_spurious(tb);
		return -1;
	}
	tdp_time_t edge = tdp_time(e.utc_ns + b->tai_off_ns);
	int64_t f = tb_tick_edge(tb, edge);
	if (f < 0)
		return -1;
	/* the edge is in the past by the interrupt latency, at most about a frame;
	 * otherwise the card's time moved against the host's: the housekeeping
	 * thread measures again, asked now */
	int64_t lat = tdp_time_diff(tb_hosted_fast_now(&b->h), edge);
	int64_t step = tb_sync_cfg(tb)->step_ns;
	if (lat < -step || lat > tb->g.tf_ns + step)
		tb_ask_refresh(tb);
	sample(b, bc_now(tb), e.flags, tb_hosted_off(&b->h));
	return f;
}

static void bc_describe(struct timebase *tb, char *buf, size_t len)
{
	snprintf(buf, len, "%s", BC(tb)->what);
}

static void bc_destroy(struct timebase *tb)
{
	struct tb_bc *b = BC(tb);
	if (b->bus && b->own_bus) {
		b->bus->ops->wr32(b->bus, BC_MASK, 0);
		b->bus->ops->close(b->bus);
	}
	tb_hosted_release(&b->h);
	if (b->inited)
		tb_fini(tb);
	free(b);
}

static struct tb_bc *bc_alloc(const struct timebase_ops *ops)
{
	struct tb_bc *b = calloc(1, sizeof(*b));
	if (b)
		b->base.ops = ops;
	return b;
}

/* Common set-up once bus and host are in place. */
static int bc_init(struct tb_bc *b, const struct tb_params *p, char *err, size_t errlen)
{
	if (p->tf_ns <= 0 || p->epoch_ns % p->tf_ns) {
		snprintf(err, errlen,
			 "the table's epoch (%" PRId64 " ns) is not a whole number of frames: "
			 "the heartbeat, synchronised to 1PPS, cannot mark its frame starts",
			 p->epoch_ns);
		return -EINVAL;
	}
	b->tai_off_ns = (int64_t)p->utc_tai_offset_s * TDP_NS_PER_S;
	int rc = bc635_open(&b->card, b->bus, err, errlen);
	if (rc == 0)
		rc = bc635_setup(&b->card, p->tf_ns, -1, err, errlen);
	if (rc)
		return rc;
	rc = tb_init(&b->base, b->base.ops, p, tb_now(b->h.host), "no heartbeat yet", err, errlen);
	if (rc)
		return rc;
	b->inited = true;
	uint32_t flags;
	measure(b, &flags);
	uint16_t n1 = 0, n2 = 0;
	const char *why;
	bc635_divider(p->tf_ns, &n1, &n2, &why);
	char bus[300];
	b->bus->ops->describe(b->bus, bus, sizeof(bus));
	snprintf(b->what, sizeof(b->what),
		 "%s; model %s, serial %s, firmware %s; timing mode %s; heartbeat 1 MHz / "
		 "(%u x %u) on 1PPS%s",
		 bus, b->card.model, b->card.serial, b->card.firmware,
		 bc635_mode_name(b->card.mode), n1, n2,
		 (flags & BC_T0_FLYWHEEL) ? "; the receiver is flywheeling (no GPS yet)" : "");
	return 0;
}

struct timebase *tb_bc635_new(struct bc_bus *bus, struct timebase *host, const struct tb_params *p,
			      char *err, size_t errlen)
{
	struct tb_bc *b = bc_alloc(&tb_bc635_ops);
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	b->bus = bus;
	b->h.host = host;
	if (bc_init(b, p, err, errlen)) {
		bc_destroy(&b->base);
		return NULL;
	}
	return &b->base;
}

static int host_up(struct tb_bc *b, struct tb_params *p, char *err, size_t errlen)
{
	struct timex tx = {0};
	if (adjtimex(&tx) >= 0 && tx.tai > 0)
		p->utc_tai_offset_s = tx.tai; /* as the system source does */
	return tb_hosted_system(&b->h, p, err, errlen);
}

/* the card through UIO or VFIO, as bc635-device and bc635-bars say */
static int card_bus(struct tb_bc *b, const struct tb_params *p0, char *err, size_t errlen)
{
	static const struct tb_bc635_params defaults = {.device = "uio0"};
	const struct tb_bc635_params *own = p0->own ? p0->own : &defaults;
	b->bus = bc635_pci_open(own->device, (enum bc_bars)own->bars, err, errlen);
	b->own_bus = b->bus != NULL;
	return b->bus ? 0 : -ENODEV;
}

static int64_t realtime_ns(void *arg)
{
	(void)arg;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * TDP_NS_PER_S + ts.tv_nsec;
}

/* the simulator of the card's registers, on the host's clock */
static int sim_bus(struct tb_bc *b, const struct tb_params *p0, char *err, size_t errlen)
{
	(void)p0;
	struct bc_sim *sim = bcsim_new(realtime_ns, NULL);
	if (!sim || bcsim_start(sim) != 0) {
		snprintf(err, errlen, "cannot start the bc635 simulator");
		bcsim_free(sim);
		return -ENOMEM;
	}
	b->bus = bcsim_bus(sim);
	b->own_bus = true;
	return 0;
}

/* A bc635 source on the host clock and the bus bus_up opens */
static int bc_create_on(struct timebase **out, const struct timebase_ops *ops,
			int (*bus_up)(struct tb_bc *, const struct tb_params *, char *, size_t),
			const struct tb_params *p0, char *err, size_t errlen)
{
	struct tb_params p = *p0;
	struct tb_bc *b = bc_alloc(ops);
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int rc = host_up(b, &p, err, errlen);
	if (rc == 0)
		rc = bus_up(b, p0, err, errlen);
	if (rc == 0)
		rc = bc_init(b, &p, err, errlen);
	if (rc) {
		bc_destroy(&b->base);
		return rc;
	}
	*out = &b->base;
	return 0;
}

static int bc_create(struct timebase **out, const struct tb_params *p0, char *err, size_t errlen)
{
	return bc_create_on(out, &tb_bc635_ops, card_bus, p0, err, errlen);
}

static int bc_sim_create(struct timebase **out, const struct tb_params *p0, char *err,
			 size_t errlen)
{
	return bc_create_on(out, &tb_bc635_sim_ops, sim_bus, p0, err, errlen);
}

/* the card's own settings (bc635-sim has none) */
static const char *const bars_names[] = {"auto", "0,1",	   "1,0",
					 "2,3",	 "0,1-2k", NULL}; /* enum bc_bars */
static const struct tb_opt bc_opts[] = {
	{"bc635-device", TB_OPT_STR, "uio0", 0, 0, NULL, offsetof(struct tb_bc635_params, device),
	 "DEV",
	 "bc635 timebase: the card through UIO (uioN or /dev/uioN, uio_pci_generic bound) or VFIO "
	 "(its PCI address, vfio-pci bound)"},
	{"bc635-bars", TB_OPT_ENUM, "auto", 0, 0, bars_names,
	 offsetof(struct tb_bc635_params, bars), "auto|0,1|1,0|2,3|0,1-2k",
	 "bc635 timebase: which BARs hold the registers and the DPRAM (0,1 and 1,0 with 4 KiB of "
	 "it, 2,3 and 0,1-2k with 2 KiB); auto decides from the PCI revision (0x12: 0,1, or 0,1-2k "
	 "when BAR 1 is 2 KiB; 0x20-0x2F: 2,3)"},
	{NULL, TB_OPT_STR, NULL, 0, 0, NULL, 0, NULL, NULL},
};
_Static_assert(sizeof(bc_opts) / sizeof(bc_opts[0]) - 1 == TB_BC635_NOPTS,
	       "TB_BC635_NOPTS counts bc_opts[]");

/* the card and its simulator differ only in how the bus is made */
#define BC_OPS(nm, dc, cr, op, sz)                                                             \
	{                                                                                      \
		.name = nm, .doc = dc, .create = cr, .destroy = bc_destroy, .now = bc_now,     \
		.fast_now = bc_fast_now, .sleep_until = bc_sleep_until, .refresh = bc_refresh, \
		.tick_fd = bc_tick_fd, .tick = bc_tick, .describe = bc_describe, .opts = op,   \
		.own_size = sz,                                                                \
	}

const struct timebase_ops tb_bc635_ops = BC_OPS(
	"bc635", "the bc635PCI-U GPS card (bc635-device), frame ticks from its heartbeat interrupt",
	bc_create, bc_opts, sizeof(struct tb_bc635_params));

const struct timebase_ops tb_bc635_sim_ops = BC_OPS(
	"bc635-sim",
	"the bc635 register-level simulator on the host clock, the whole GPS path without the card",
	bc_sim_create, NULL, 0);
