/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sync state machine every time source runs: locked, holdover, unlocked.
 * Pure (no clock, no I/O): the source feeds it samples and faults with the CTR
 * time they were taken at, and polls it for timeouts; it answers whether the
 * state changed, and why.
 *
 *   UNLOCKED --lock_samples good samples in a row--> LOCKED
 *   LOCKED   --fault (reference lost) or no sample for sample_timeout--> HOLDOVER
 *   LOCKED   --lock_samples bad samples in a row--> UNLOCKED
 *   HOLDOVER --lock_samples good samples in a row--> LOCKED
 *   HOLDOVER --holdover budget spent--> UNLOCKED
 *
 * A sample carries the offset of the local clock from the reference and the
 * error the source assigns it (for a source that disciplines the clock itself
 * that is the offset; for one that applies the offset, the change against its
 * estimate). It is good when |error| <= lock_ns. In holdover the uncertainty
 * grows by drift_ppb from the last good sample. An offset that moves by more
 * than step_ns from one sample to the next is a phase step: counted, and its
 * size kept, so that the engine's frame accounting can be checked against it.
 */
#ifndef TDP_SYNC_H
#define TDP_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#include "ctl_counters.h"
#include "tdp_time.h"

enum tb_state {
	TB_UNLOCKED,
	TB_HOLDOVER,
	TB_LOCKED
};

struct sync_cfg {
	int64_t lock_ns;	   /* a sample within this is good */
	uint32_t lock_samples;	   /* good samples in a row to lock, bad ones to unlock */
	int64_t sample_timeout_ns; /* locked with no sample for this long: holdover */
	int64_t holdover_ns;	   /* budget in holdover before unlocked */
	int64_t drift_ppb;	   /* uncertainty growth without samples */
	int64_t step_ns;	   /* an offset jump beyond this is a phase step */
};

/* What a source reports (tb_sync()). */
struct tb_sync {
	enum tb_state state;
	int64_t offset_ns; /* estimated offset of the local clock from the reference */
	int64_t uncertainty_ns;
	tdp_time_t last_good;		     /* time of the last good sample; 0 if none */
	tdp_time_t since;		     /* when the current state began */
	char reason[128];		     /* why the source is in this state (a copy: the
				     * snapshot outlives the source's lock) */
	CTL_SYNC_COUNTERS(CTL_COUNTER_FIELD) /* ctl_counters.h */
	int64_t last_step_ns;		     /* size of the latest phase step */
};

struct sync {
	struct sync_cfg cfg;
	enum tb_state state;
	uint32_t good_run, bad_run;
	bool have_offset;
	int64_t offset_ns, err_ns;
	tdp_time_t last_good, last_sample, since;
	uint64_t samples, bad_samples, faults, transitions, steps;
	int64_t last_step_ns;
	char reason[128];
};

/* Defaults for the options tdpd exposes (sync-*). */
#define SYNC_DEF_LOCK_NS 1000
#define SYNC_DEF_LOCK_SAMPLES 4
#define SYNC_DEF_TIMEOUT_NS (3 * TDP_NS_PER_S)
#define SYNC_DEF_HOLDOVER_NS (60 * TDP_NS_PER_S)
#define SYNC_DEF_DRIFT_PPB 1000
#define SYNC_DEF_STEP_NS 10000

/* 0, or -EINVAL when a setting is out of range. Starts UNLOCKED. */
int sync_init(struct sync *s, const struct sync_cfg *cfg, tdp_time_t now, const char *reason);
/* A measurement. Returns true when the state changed. */
bool sync_sample(struct sync *s, tdp_time_t now, int64_t offset_ns, int64_t err_ns);
/* The source says the reference is gone (lost grandmaster, flywheeling, socket
 * closed). Returns true when the state changed. */
bool sync_fault(struct sync *s, tdp_time_t now, const char *reason);
/* Timeouts. Returns true when the state changed. */
bool sync_poll(struct sync *s, tdp_time_t now);
/* A source that cannot measure (the system clock as the kernel reports it)
 * sets its state directly, and its reason. Returns true when the state changed. */
bool sync_force(struct sync *s, tdp_time_t now, enum tb_state st, int64_t offset_ns, int64_t err_ns,
		const char *reason);
void sync_get(const struct sync *s, tdp_time_t now, struct tb_sync *out);
/* The uncertainty at now: the latest sample's error, grown by the drift
 * since the last good one when not locked. */
int64_t sync_uncertainty(const struct sync *s, tdp_time_t now);

const char *tb_state_name(enum tb_state s);

#endif
