/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table manager: one table's life in tdpd, from built to retired, on the
 * control thread. It holds the table in force, the one offered to the engine
 * and the one staged, and every change between them:
 *
 *   built (control_load.c) -> offered at frame J  (schedule-load)
 *                          -> staged under an id   (schedule-stage)
 *   staged -> offered (commit of its id) | dropped (abort, expiry, stop)
 *   offered -> withdrawn (cancel, before the engine took it)
 *           -> adopted by the engine at J -> RX cores take its classifier
 *           -> the old table retired and freed -> kept in the state
 *              directory for a restart (tstate.h)
 *
 * It never writes data-plane state: the engine adopts by itself at J
 * (engine_table_offer), RX by one atomic pointer per core (rx.offer), and the
 * old table is freed only after both have let go. A client waiting for the
 * swap is answered through `answer`, so the manager knows no sockets: the
 * whole machine runs in a test on the engine alone (tests/sim/test_tables_sim.c).
 *
 * A staged table is built against the table in force (a flow of the same
 * name on the same port keeps its queue), so nothing else comes into force
 * while one is staged: a stage is refused while a table waits for its frame,
 * and a load or another stage while a table is staged.
 */
#ifndef TDP_TABLES_H
#define TDP_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "engine.h"
#include "rx.h"
#include "tdp_sched.h"

struct timebase;
struct tstate;

/* A table as the daemon holds it: the engine's runtime form, RX's classifier. */
struct dtable {
	struct eng_table *et;
	struct cls *cls;
	struct rx_table rxt[RX_MAX_CORES]; /* one per RX core: its queue of each flow */
	char name[256];			   /* where it came from, for people */
	int64_t loaded_unix_s;
	int64_t asked_tai_ns;	       /* the time a load --at resolved to; 0: the next cycle */
	char digest[SCHED_DIGEST_HEX]; /* SHA-256 of the table's text */
	char via[32]; /* how it came: tdpd.conf, schedule load, schedule commit (tstate.h) */
	bool resumed; /* saved in force at the last stop, resumed at start */
};

/* Builds the RX side of et (which holds t), which came by via. NULL when
 * out of memory. */
struct dtable *dtable_new(struct eng_table *et, const char *name, const char *via);
void dtable_free(struct dtable *dt);

#define CTL_STAGE_TTL_S 60 /* a staged table not committed by then is dropped */
#define CTL_STAGE_MAX_TTL_S 3600
#define CTL_MAX_AHEAD_S 86400 /* a table is offered for a time at most a day ahead */

/* Hands line (a reply, malloc'd) to client *slot and sets *slot to -1; a slot
 * of -1 frees line. The control thread's control_answer (control_clients.c). */
typedef void tables_answer_fn(void *ctx, int *slot, char *line);

struct tables {
	/* filled in by the daemon */
	struct engine *e;
	struct rx *rx; /* the RX cores, nrx of them */
	uint32_t nrx;
	struct timebase *tb;
	struct tstate *state; /* where the table in force is kept; NULL: nowhere */
	tables_answer_fn *answer;
	void *answer_ctx;

	struct dtable *cur;	/* in force */
	bool cur_saved;		/* cur is what the state directory holds */
	struct dtable *pending; /* offered, not yet retired */
	int waiter;		/* the client waiting for the pending swap, or -1 */
	bool rx_offered;
	struct dtable *staged; /* built, kept under staged_id until a commit */
	uint64_t staged_id, next_stage_id;
	int64_t staged_expires_ns; /* CLOCK_MONOTONIC */

	uint64_t loads, rejected, swap_dropped, save_errors;
	uint64_t stages, commits, aborts, expired;
	int64_t last_swap_frame, last_swap_requested;
	char last_swap_name[256];
};

/* args' at_tai_ns / in_ns, if any, checked: NULL, or the bad-args reply
 * (not an integer, both, before the epoch, more than a day ahead). */
char *tables_when_check(struct tables *tm, json_t *args);
/* NULL when a load or a stage may start; else the busy reply (a table staged,
 * or one waiting for its frame). */
char *tables_busy(struct tables *tm);
/* A load's or a stage's table, built (et) or not (NULL: reply says why):
 * offered at args' time or kept under an id; the reply, or NULL and *defer
 * when client slot waits for the swap. started_ns: when the request came
 * (CLOCK_MONOTONIC), from which args' in_ns counts. */
char *tables_built(struct tables *tm, struct eng_table *et, char *reply, const char *name,
		   json_t *args, bool stage, int64_t started_ns, int slot, bool *defer);
/* schedule-commit, -abort, -cancel: the reply, or NULL and *defer. */
char *tables_commit(struct tables *tm, json_t *args, int slot, bool *defer);
char *tables_abort(struct tables *tm, json_t *args);
char *tables_cancel(struct tables *tm);
/* One step, every loop of the control thread: the table in force kept, a
 * stage expired, a swap carried on (RX offered, the old table retired, the
 * waiter answered). */
void tables_advance(struct tables *tm);
/* The staged table as status shows it; null when none. */
json_t *tables_staged_json(const struct tables *tm);
/* At stop: the staged table dropped, the waiter told the swap will not come. */
void tables_stop(struct tables *tm);
/* Frees the tables held (after the engine and RX have stopped). */
void tables_free(struct tables *tm);

#endif
