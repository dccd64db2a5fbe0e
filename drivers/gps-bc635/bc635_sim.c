/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "bc635_regs.h"
#include "bc635_sim.h"

/* the usual layout: year at 0, GPS packets at 0x0002, output area at
 * 0x0082, input area at 0x0102 (btfp.c 310-315; btfp.h 206-216) */
#define IN_AREA 0x0102
#define OUT_AREA 0x0082
#define CMD_LOG 8

struct bc_sim {
	struct bc_bus bus;
	pthread_mutex_t lock;
	int64_t (*utc_now)(void *);
	void *arg;
	int64_t step_ns;
	uint32_t reg[0x40 / 4];
	uint8_t dp[BC_DPRAM_MAX]; /* dp_size of it is there */
	uint32_t dp_size;	  /* the card's; bus.dp_size is what it tells the driver */
	uint8_t revision;	  /* the PCI revision: the generation */
	bool locked;		  /* EVENT0/1 held (LOCKEN) until UNLOCK */
	uint8_t mode, format;
	bool sync_pps; /* edges synchronised to 1PPS (the only way tdpd programs it) */
	char model[9]; /* 8 ASCII bytes answered to 0x19 0xF6 */
	/* the time scale at power-up, the worst a card may hold: GPS time on a
	 * bc637 (18 s ahead of UTC) and a local offset observed (1 h) */
	bool gps_time, obs_local;
	int64_t local_off_ns;
	uint8_t cmd_log[CMD_LOG][8]; /* the input area's first bytes of the last commands */
	unsigned ncmd;
	int64_t period_ns, next_edge;
	uint32_t flags;
	unsigned lose, dbl;
	bool irqs_off, mute;
	bool armed;	  /* the host lets the interrupt through (INTx not masked) */
	int64_t dup_edge; /* an edge to signal again after the next UNLOCK; -1 none */
	int efd;
	pthread_t th;
	bool th_up;
	atomic_int stop;
	struct bc_sim_stats st;
};

#define SIM(b) ((struct bc_sim *)(b))

/* what the card's time is ahead of UTC: GPS time, a local offset, a step */
static int64_t card_ahead(const struct bc_sim *s)
{
	return s->step_ns + (s->gps_time && s->model[4] == '7' ? 18 * 1000000000LL : 0) +
	       (s->obs_local ? s->local_off_ns : 0);
}

static int64_t card_now(struct bc_sim *s)
{
	return s->utc_now(s->arg) + card_ahead(s);
}

static void encode(int64_t ns, uint32_t flags, uint32_t *t0, uint32_t *t1)
{
	int64_t sec = ns / 1000000000, rem = ns % 1000000000;
	*t1 = (uint32_t)sec;
	*t0 = (uint32_t)(rem / 1000) | (uint32_t)((rem % 1000) / 100) << BC_T0_100NS_SHIFT | flags;
}

static void raise_irq(struct bc_sim *s)
{
	uint64_t one = 1;
	s->st.irqs++;
	if (write(s->efd, &one, sizeof(one)) != sizeof(one))
		s->st.lost++;
}

/* The INTx line is level-triggered: asserted while INTSTAT & MASK is not 0
 * (btfp.h 421-432). The host's side (uio_pci_generic, vfio-pci) masks it when
 * it fires, until the driver lets it through again; let through while still
 * asserted, it fires again at once. */
static void line(struct bc_sim *s)
{
	if (s->armed && !s->irqs_off &&
	    (s->reg[BC_INTSTAT / 4] & s->reg[BC_MASK / 4] & BC_INT_ALL)) {
		s->armed = false;
		raise_irq(s);
	}
}

static void latch_edge(struct bc_sim *s, int64_t t, bool lock)
{
	uint32_t ctl = s->reg[BC_CONTROL / 4];
	if ((ctl & BC_CTL_EVENTEN) && (ctl & BC_CTL_EVSOURCE) && !s->locked) {
		encode(t, s->flags, &s->reg[BC_EVENT0 / 4], &s->reg[BC_EVENT1 / 4]);
		s->locked = lock && (ctl & BC_CTL_LOCKEN);
	}
	s->reg[BC_INTSTAT / 4] |= BC_INT_PERIODIC;
	line(s);
}

/* one heartbeat edge at card time t */
static void edge(struct bc_sim *s, int64_t t)
{
	s->st.edges++;
	if (s->lose) {
		s->lose--;
		s->st.lost++;
		return;
	}
	latch_edge(s, t, true);
	if (s->dbl) {
		s->dbl--;
		s->st.doubled++;
		s->dup_edge = t;
	}
}

static int64_t first_edge_after(struct bc_sim *s, int64_t t)
{
	/* synchronised to 1PPS: edges at whole multiples of the period from each
	 * second, restarting at the next (a period that does not divide the
	 * second leaves a short gap before it) */
	int64_t p = s->period_ns, sec = t / 1000000000 * 1000000000;
	int64_t e = sec + ((t - sec) / p + 1) * p;
	return e < sec + 1000000000 ? e : sec + 1000000000;
}

static void run_to_locked(struct bc_sim *s, int64_t utc)
{
	if (!s->period_ns)
		return;
	int64_t card = utc + card_ahead(s);
	if (s->next_edge == 0 || s->next_edge > card + s->period_ns ||
	    s->next_edge < card - 1000 * s->period_ns)
		s->next_edge = first_edge_after(
			s, card - s->period_ns); /* (re)start, or the card's time jumped */
	while (s->next_edge <= card) {
		edge(s, s->next_edge);
		s->next_edge = first_edge_after(s, s->next_edge);
	}
}

void bcsim_run_to(struct bc_sim *s, int64_t utc_ns)
{
	pthread_mutex_lock(&s->lock);
	run_to_locked(s, utc_ns);
	pthread_mutex_unlock(&s->lock);
}

static void command(struct bc_sim *s)
{
	const uint8_t *in = s->dp + IN_AREA;
	uint8_t *out = s->dp + OUT_AREA;
	s->st.commands++;
	memcpy(s->cmd_log[s->ncmd++ % CMD_LOG], in, 8);
	switch (in[0]) {
	case BC_CMD_TIMING_MODE:
		s->mode = in[1];
		break;
	case BC_CMD_TIME_FORMAT:
		s->format = in[1];
		break;
	case BC_CMD_PERIODIC: {
		/* sync, n1, n2; n1 and n2 big-endian (btfp_test.c 146) */
		unsigned n1 = (unsigned)in[2] << 8 | in[3], n2 = (unsigned)in[4] << 8 | in[5];
		s->sync_pps = in[1];
		s->period_ns = (n1 >= 2 && n2 >= 2) ? (int64_t)n1 * n2 * 1000 : 0;
		s->next_edge = 0;
		break;
	}
	case BC_CMD_GPS_TIMEFMT:
		s->gps_time = in[1] == BC_GPS_TIMEFMT_GPS;
		break;
	case BC_CMD_OBS_LOCAL:
		s->obs_local = in[1] & 1;
		break;
	case BC_CMD_REQUEST:
		/* the sub-code echoed, then a fixed length, no terminator
		 * (btfp.h 308-312; btfp.c 995-1019) */
		out[0] = in[1];
		if (in[1] == BC_REQ_MODEL) {
			memcpy(out + 1, s->model, 8);
		} else if (in[1] == BC_REQ_SERIAL) {
			static const uint8_t serial[4] = {0x00, 0x01, 0xe2, 0x40}; /* 123456 */
			memcpy(out + 1, serial, 4);
		} else if (in[1] == BC_REQ_FIRMWARE) {
			memcpy(out + 1, "SIM 1.0    ", 11);
		}
		break;
	}
}

/* TIMEREQ and EVENTREQ latch the time into TIME0/1 and EVENT0/1 whether
 * they are read or written: btfp.h calls them "read to latch" and btfp.c
 * reads them; LIGO's driver for the PCIe card writes TIMEREQ. The card
 * takes either. */
static void latch_request(struct bc_sim *s, uint32_t off)
{
	if (off == BC_TIMEREQ) {
		encode(card_now(s), s->flags, &s->reg[BC_TIME0 / 4], &s->reg[BC_TIME1 / 4]);
	} else if (off == BC_EVENTREQ && !s->locked) {
		encode(card_now(s), s->flags, &s->reg[BC_EVENT0 / 4], &s->reg[BC_EVENT1 / 4]);
		s->locked = s->reg[BC_CONTROL / 4] & BC_CTL_LOCKEN;
	}
}

static uint32_t sim_rd32(struct bc_bus *b, uint32_t off)
{
	struct bc_sim *s = SIM(b);
	pthread_mutex_lock(&s->lock);
	latch_request(s, off);
	uint32_t v = off < sizeof(s->reg) && !(off & 3) ? s->reg[off / 4] : 0xffffffff;
	if (off == BC_UNLOCK) {
		/* a read releases the capture lockout (btfp.h 361, 365-370; btfp.c 931) */
		s->locked = false;
		if (s->dup_edge >= 0) {
			int64_t t = s->dup_edge;
			s->dup_edge = -1;
			/* the same edge presented again; a real edge after it still latches */
			latch_edge(s, t, false);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return v;
}

static void sim_wr32(struct bc_bus *b, uint32_t off, uint32_t v)
{
	struct bc_sim *s = SIM(b);
	pthread_mutex_lock(&s->lock);
	switch (off) {
	case BC_TIMEREQ:
	case BC_EVENTREQ:
		latch_request(s, off);
		break;
	case BC_UNLOCK:
		s->st.unlock_writes++; /* no source has the card take a write here */
		break;
	case BC_CONTROL:
		s->reg[off / 4] = v;
		break;
	case BC_MASK:
		s->reg[off / 4] = v;
		line(s);
		break;
	case BC_INTSTAT:
		s->reg[off / 4] &= ~v;
		break;
	case BC_ACK:
		if (v & BC_ACK_CLEAR)
			s->reg[BC_ACK / 4] &= ~(uint32_t)BC_ACK_DONE;
		if ((v & BC_ACK_COMMAND) && !s->mute) {
			command(s);
			s->reg[BC_ACK / 4] |= BC_ACK_DONE;
		}
		break;
	}
	pthread_mutex_unlock(&s->lock);
}

static uint8_t sim_dp_rd8(struct bc_bus *b, uint32_t off)
{
	struct bc_sim *s = SIM(b);
	pthread_mutex_lock(&s->lock);
	uint8_t v = off < s->dp_size ? s->dp[off] : 0xff;
	pthread_mutex_unlock(&s->lock);
	return v;
}

static void sim_dp_wr8(struct bc_bus *b, uint32_t off, uint8_t v)
{
	struct bc_sim *s = SIM(b);
	pthread_mutex_lock(&s->lock);
	if (off < BC_DP_OUTPUT_PTR(s->dp_size))
		s->dp[off] = v;
	pthread_mutex_unlock(&s->lock);
}

static int sim_irq_fd(struct bc_bus *b)
{
	return SIM(b)->efd;
}

static int sim_irq_take(struct bc_bus *b)
{
	struct bc_sim *s = SIM(b);
	uint64_t n = 0;
	if (read(s->efd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return (int)n;
}

static int sim_irq_rearm(struct bc_bus *b)
{
	struct bc_sim *s = SIM(b);
	pthread_mutex_lock(&s->lock);
	s->armed = true;
	s->st.rearms++;
	line(s);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static void sim_describe(struct bc_bus *b, char *buf, size_t len)
{
	struct bc_sim *s = SIM(b);
	snprintf(buf, len,
		 "bc635 simulator (%s generation, PCI revision 0x%02x: registers, %u KiB of DPRAM "
		 "and "
		 "heartbeat in memory, interrupts on an eventfd%s)",
		 s->revision >= BC_REV_V2_FIRST ? "second" : "first", s->revision,
		 s->dp_size / 1024, s->th_up ? ", edges in real time" : "");
}

static void sim_close(struct bc_bus *b)
{
	bcsim_free(SIM(b));
}

static const struct bc_bus_ops sim_ops = {
	.rd32 = sim_rd32,
	.wr32 = sim_wr32,
	.dp_rd8 = sim_dp_rd8,
	.dp_wr8 = sim_dp_wr8,
	.irq_fd = sim_irq_fd,
	.irq_take = sim_irq_take,
	.irq_rearm = sim_irq_rearm,
	.close = sim_close,
	.describe = sim_describe,
};

/* The DPRAM of the generation the revision names (4 KiB on 0x12, 2 KiB on
 * 0x20-0x2F: bc635_regs.h), empty but for the area offsets at its top, most
 * significant byte first (btfp.c 317-335). */
static void layout(struct bc_sim *s, uint8_t rev)
{
	s->revision = rev;
	s->dp_size = s->bus.dp_size = rev >= BC_REV_V2_FIRST ? BC_DPRAM_SIZE_V2 : BC_DPRAM_SIZE_V1;
	memset(s->dp, 0, sizeof(s->dp));
	uint32_t top = s->dp_size;
	s->dp[BC_DP_INPUT_PTR(top)] = IN_AREA >> 8;
	s->dp[BC_DP_INPUT_PTR(top) + 1] = IN_AREA & 0xff;
	s->dp[BC_DP_OUTPUT_PTR(top)] = OUT_AREA >> 8;
	s->dp[BC_DP_OUTPUT_PTR(top) + 1] = OUT_AREA & 0xff;
}

struct bc_sim *bcsim_new(int64_t (*utc_now)(void *arg), void *arg)
{
	struct bc_sim *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->bus.ops = &sim_ops;
	s->utc_now = utc_now;
	s->arg = arg;
	s->dup_edge = -1;
	s->armed = true;
	s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->efd < 0) {
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	layout(s, BC_REV_V1);
	memcpy(s->model, "BC637PCI", 9);
	s->gps_time = s->obs_local = true;
	s->local_off_ns = 3600 * 1000000000LL;
	return s;
}

struct bc_bus *bcsim_bus(struct bc_sim *s)
{
	return &s->bus;
}

static void *edge_thread(void *arg)
{
	struct bc_sim *s = arg;
	while (!atomic_load(&s->stop)) {
		pthread_mutex_lock(&s->lock);
		int64_t now = s->utc_now(s->arg);
		run_to_locked(s, now);
		int64_t next = s->period_ns ? s->next_edge - card_ahead(s) : now + 10000000;
		pthread_mutex_unlock(&s->lock);
		if (next - now > 10000000)
			next = now +
			       10000000; /* look at the stop flag and new settings now and then */
		struct timespec ts = {next / 1000000000, next % 1000000000};
		clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

int bcsim_start(struct bc_sim *s)
{
	if (pthread_create(&s->th, NULL, edge_thread, s) != 0)
		return -EAGAIN;
	s->th_up = true;
	return 0;
}

void bcsim_free(struct bc_sim *s)
{
	if (!s)
		return;
	if (s->th_up) {
		atomic_store(&s->stop, 1);
		pthread_join(s->th, NULL);
	}
	close(s->efd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

#define LOCKED(stmt)                            \
	do {                                    \
		pthread_mutex_lock(&s->lock);   \
		stmt;                           \
		pthread_mutex_unlock(&s->lock); \
	} while (0)

void bcsim_set_flags(struct bc_sim *s, uint32_t f)
{
	LOCKED(s->flags = f & (BC_T0_FLYWHEEL | BC_T0_TIME_OFFSET | BC_T0_FREQ_OFFSET));
}

void bcsim_step(struct bc_sim *s, int64_t ns)
{
	/* the heartbeat follows the card's new time: no edges for the time jumped over */
	LOCKED(s->step_ns += ns; s->next_edge = 0);
}

void bcsim_lose(struct bc_sim *s, unsigned n)
{
	LOCKED(s->lose += n);
}

void bcsim_double(struct bc_sim *s, unsigned n)
{
	LOCKED(s->dbl += n);
}

void bcsim_irqs_off(struct bc_sim *s, bool off)
{
	pthread_mutex_lock(&s->lock);
	s->irqs_off = off;
	line(s); /* back on with INTSTAT still set: the line is asserted */
	pthread_mutex_unlock(&s->lock);
}

void bcsim_mute(struct bc_sim *s, bool mute)
{
	LOCKED(s->mute = mute);
}

void bcsim_stats(struct bc_sim *s, struct bc_sim_stats *out)
{
	LOCKED(*out = s->st);
}

int64_t bcsim_period_ns(struct bc_sim *s)
{
	int64_t p;
	LOCKED(p = s->period_ns);
	return p;
}

uint8_t bcsim_timing_mode(struct bc_sim *s)
{
	uint8_t m;
	LOCKED(m = s->mode);
	return m;
}

uint8_t bcsim_time_format(struct bc_sim *s)
{
	uint8_t m;
	LOCKED(m = s->format);
	return m;
}

void bcsim_set_model(struct bc_sim *s, const char model[8])
{
	pthread_mutex_lock(&s->lock);
	memcpy(s->model, model, 8);
	pthread_mutex_unlock(&s->lock);
}

int bcsim_command_bytes(struct bc_sim *s, unsigned back, uint8_t out[8])
{
	pthread_mutex_lock(&s->lock);
	int rc = back < CMD_LOG && back < s->ncmd ? 0 : -1;
	if (rc == 0)
		memcpy(out, s->cmd_log[(s->ncmd - 1 - back) % CMD_LOG], 8);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void bcsim_dpram_poke(struct bc_sim *s, uint32_t off, uint8_t v)
{
	pthread_mutex_lock(&s->lock);
	if (off < s->dp_size)
		s->dp[off] = v;
	pthread_mutex_unlock(&s->lock);
}

void bcsim_set_revision(struct bc_sim *s, uint8_t rev)
{
	LOCKED(layout(s, rev));
}

void bcsim_set_reg(struct bc_sim *s, uint32_t off, uint32_t v)
{
	pthread_mutex_lock(&s->lock);
	if (off < sizeof(s->reg) && !(off & 3))
		s->reg[off / 4] = v;
	pthread_mutex_unlock(&s->lock);
}
