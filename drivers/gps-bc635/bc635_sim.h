/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A register-level simulator of the bc635PCI-U behind struct bc_bus: the
 * registers, the DPRAM and its command handshake, the binary time with its
 * status flags, the heartbeat synchronised to 1PPS with its edge latched into
 * EVENT0/1 (EVSOURCE, LOCKEN, UNLOCK), and the interrupt on an eventfd.
 *
 * The card's UTC comes from a clock the caller gives (the host's, or a test's
 * simulated one). Edges happen either on a thread of the simulator's own that
 * sleeps to each one (bcsim_start), or when a test moves them on
 * (bcsim_run_to). Faults a test can inject: flywheeling and offset flags, a
 * step of the card's time, lost interrupts (the edge reaches neither INTSTAT
 * nor the host), doubled interrupts (the same edge signalled again after the
 * host unlocked the event registers), interrupts that stop, and a card that
 * never acknowledges a command.
 */
#ifndef BC635_SIM_H
#define BC635_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "bc635_bus.h"

struct bc_sim;

struct bc_sim_stats {
	uint64_t edges, irqs, lost, doubled, commands;
	uint64_t rearms,
		unlock_writes; /* interrupts let through again; writes to UNLOCK (ignored) */
};

/* utc_now returns the host's idea of UTC in ns. NULL on failure. */
struct bc_sim *bcsim_new(int64_t (*utc_now)(void *arg), void *arg);
struct bc_bus *bcsim_bus(struct bc_sim *s);
/* Edges in real time on a thread sleeping on CLOCK_REALTIME (utc_now must
 * then be that clock). 0 or -errno. */
int bcsim_start(struct bc_sim *s);
/* Edges up to utc_ns, now (tests with a simulated clock). */
void bcsim_run_to(struct bc_sim *s, int64_t utc_ns);
void bcsim_free(struct bc_sim *s);

void bcsim_set_flags(struct bc_sim *s, uint32_t t0_flags); /* BC_T0_* */
void bcsim_step(struct bc_sim *s, int64_t ns);		   /* the card's time jumps */
void bcsim_lose(struct bc_sim *s, unsigned n);		   /* the next n interrupts are lost */
void bcsim_double(struct bc_sim *s, unsigned n);	   /* the next n come twice */
void bcsim_irqs_off(struct bc_sim *s, bool off);	   /* interrupts stop */
void bcsim_mute(struct bc_sim *s, bool mute);		   /* commands are never acknowledged */
void bcsim_stats(struct bc_sim *s, struct bc_sim_stats *out);
/* The heartbeat period the card was programmed with; 0 when off. */
int64_t bcsim_period_ns(struct bc_sim *s);
uint8_t bcsim_timing_mode(struct bc_sim *s);
uint8_t bcsim_time_format(struct bc_sim *s);
/* The model the card answers (8 ASCII bytes; "BC637PCI", with GPS, by default). */
void bcsim_set_model(struct bc_sim *s, const char model[8]);
/* The first 8 bytes of the input area as the card took them, `back` commands
 * ago (0: the last). 0, or -1 when not that many were given. */
int bcsim_command_bytes(struct bc_sim *s, unsigned back, uint8_t out[8]);
/* A register as the card holds it (e.g. CONTROL's output bits at power-up). */
void bcsim_set_reg(struct bc_sim *s, uint32_t off, uint32_t v);
/* The PCI revision, and with it the generation and its DPRAM: 0x12 (the
 * default) 4 KiB, 0x20-0x2F 2 KiB. The DPRAM is laid out afresh. */
void bcsim_set_revision(struct bc_sim *s, uint8_t rev);
/* A byte of DPRAM as the card holds it (the area offsets included). */
void bcsim_dpram_poke(struct bc_sim *s, uint32_t off, uint8_t v);

#endif
