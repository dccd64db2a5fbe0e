/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread: serves the control and monitor sockets (ctl_proto.h)
 * and carries table swaps through. It never writes data-plane state: a new
 * table goes to the engine with engine_table_offer and to RX with one atomic
 * pointer (rx.offer), and the old one is freed only after both have let go.
 *
 *   load -> parse, admit, build (off the data path) -> offer at frame J
 *        -> the engine adopts at J -> RX takes the new classifier
 *        -> the old table is retired -> the waiting client gets the reply.
 */
#ifndef TDP_CONTROL_H
#define TDP_CONTROL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "conf.h"
#include "ctl_proto.h"
#include "engine.h"
#include "pkt.h"
#include "rx.h"
#include "summary.h"
#include "tstate.h"

/* A table as the daemon holds it: the engine's runtime form, RX's classifier. */
struct dtable {
	struct eng_table *et;
	struct cls *cls;
	struct rx_table rxt[RX_MAX_CORES];   /* one per RX core: its queue of each flow */
	char name[256];           /* where it came from, for people */
	int64_t loaded_unix_s;
	int64_t asked_tai_ns;     /* the time a load --at resolved to; 0: the next cycle */
	char digest[SCHED_DIGEST_HEX]; /* SHA-256 of the table's text */
	char via[32];             /* how it came: tdpd.conf, schedule load, schedule commit (tstate.h) */
	bool resumed;             /* saved in force at the last stop, resumed at start */
};

/* Builds the RX side of et (which holds t), which came by via. NULL when
 * out of memory. */
struct dtable *dtable_new(struct eng_table *et, const char *name, const char *via);
void dtable_free(struct dtable *dt);

struct launch_clock;

struct ctl_port_info {
	const char *name, *device, *rate_from;  /* rate_from NULL: not in the table */
	int table_port;           /* index in the table (the engine's port), or -1 */
	uint16_t dpdk_port;
	uint8_t mac[6];
	uint32_t link_mbps;
	uint64_t rate_bps;
	char ifname[32];          /* kernel netdev behind the port, "" for DPDK-owned */
	char coalesce[160];       /* what was done about interrupt coalescing */
	const struct hp_port *hp; /* its kernel interface and XDP program; NULL: none */
	const char *push;         /* which push and why (pmd_port.push) */
	const struct launch_clock *launch; /* its device clock's map; NULL: no launch time */
	const struct port_link *link;      /* its link: up, carrier, MTU */
	uint32_t txd;             /* TX descriptors the PMD set up */
	uint16_t nq;              /* its RX (and TX) queues, for capture */
};

struct nl;
struct hp_port;
struct capture;
struct ctl_load;

/* A client of either socket, as the control thread serves it: its request
 * arriving, held while a load or a swap is under way, its reply leaving, then
 * what it still sends read and dropped so closing does not reset the reply. */
enum ctl_client_state { CL_FREE, CL_READ, CL_HELD, CL_WRITE, CL_DRAIN };
#define CTL_REFUSING 16           /* slots for clients being told "busy" */
#define CTL_SLOTS (2 * CTL_MAX_CLIENTS + CTL_REFUSING)

struct ctl_client {
	int fd;
	uint8_t state;            /* enum ctl_client_state */
	uint8_t sock;             /* 0: the control socket, 1: the monitor socket */
	bool refused;             /* told "busy" (its user has its share open) */
	unsigned uid;
	int pfd;                  /* a descriptor passed with the request, or -1 */
	char *buf;                /* the request (CTL_MAX_REQUEST + 2), then the reply */
	size_t len, off;
	int64_t deadline_ns;      /* CLOCK_MONOTONIC; what it waits for by then does not come */
};

struct control {
	/* filled in by the daemon before control_open */
	struct conf *conf;
	struct engine *e;
	struct rx *rx;             /* the RX cores, nrx of them */
	uint32_t nrx;
	struct timebase *tb;
	const char *timebase_name;
	struct ctl_port_info *ports;
	uint32_t nports;
	struct dtable *cur;
	int64_t started_mono_ns;
	const struct sched_fit *fit; /* what a frame may hold on this box; NULL: not checked */
	struct nl *nl;            /* the kernel's routes; NULL: rx->rt is tdpd.conf's and fixed */
	struct tstate *state;     /* where the table in force is kept; NULL: nowhere */
	struct capture *cap;      /* packet capture (capture.h); NULL: none */
	bool cur_saved;           /* cur is what the state directory holds */

	/* the control thread's own */
	int lfd[2];               /* control, monitor; -1 when not used */
	long gid;                 /* control-group, -1 when it does not exist */
	pthread_t th;
	bool running;
	atomic_int stop;
	struct dtable *pending;   /* offered, not yet retired */
	int waiter;               /* the client (cl[]) waiting for the pending swap, or -1 */
	int cap_waiter;           /* the client waiting for its capture to end, or -1 */
	struct ctl_client cl[CTL_SLOTS];
	struct ctl_load *load;    /* the table loader (control_load.c) */
	uint64_t clients, clients_refused;  /* connections served, and refused busy */
	bool rx_offered;
	struct dtable *last_old;  /* for the reply: what was replaced */
	/* a table staged (control_stage.c): built against the table in force,
	 * put in force only by a commit of its id */
	struct dtable *staged;
	uint64_t staged_id, next_stage_id;
	int64_t staged_expires_ns;  /* CLOCK_MONOTONIC */
	uint64_t stages, commits, aborts, expired;
	uint64_t loads, rejected, swap_dropped;
	uint64_t save_errors;     /* tables in force the state directory could not keep */
	int64_t last_swap_frame, last_swap_requested;
	char last_swap_name[256];
};

/* control_capture.c: `capture` started (its reply deferred to its end), and
 * its reply when the session has ended (capture_fd readable). */
char *control_capture_start(struct control *c, json_t *args, int fd, int slot, bool *defer);
void control_capture_finish(struct control *c);
/* {"routes": [...]} or {"neighbours": [...]} in force (control_routes.c). */
json_t *control_routes_json(struct control *c, bool neighbours);
/* A port's host path: mode, interface, RX queues, the XDP program's counts. */
json_t *control_host_path_json(const struct hp_port *hp);
/* control_alarm.c: a port's link as JSON; what is wrong now, one object per
 * alarm (a port's link down, a reserved flow whose route moved off its port
 * within the last WATCH_MOVED_LOG_NS), for status, stats and Prometheus. */
/* src into dst (cap bytes with the NUL) as one line of UTF-8 for logs and
 * replies: cut before a character that does not fit whole, a byte that is
 * not UTF-8 or a control character written as '?'. */
void control_text_copy(char *dst, size_t cap, const char *src);
json_t *control_link_json(const struct port_link *l);
json_t *control_alarms_json(struct control *c);
/* The table's sync budget against the source's uncertainty: the budget and
 * where it comes from, whether it is exceeded, the action and its frames. */
json_t *control_budget_json(struct control *c);
/* how recent a moved route must be to raise its alarm */
#define CTL_MOVED_ALARM_NS (10 * (int64_t)1000000000)

/* Opens the sockets (errors are the daemon's to report; it does not start). */
int control_open(struct control *c, char *err, size_t errlen);
int control_start(struct control *c, char *err, size_t errlen);
/* Stops the thread, closes and removes the sockets; answers a waiting client. */
void control_stop(struct control *c);
/* Frees the tables it holds (after the engine and RX have stopped). */
void control_free_tables(struct control *c);

/* One request of client slot (cl[], or -1), as the thread serves it. Returns
 * the reply (a JSON line) to free; *defer set when the reply comes later (a
 * table being loaded, or waiting for its swap). */
char *control_handle(struct control *c, const char *req, size_t len, int fd, int slot, bool privileged, bool *defer);
/* A command of the protocol (ctl_cmds[]) without a handler, or whose handler
 * disagrees on being a change, or a handler the protocol does not name: its
 * name; NULL when the two tables agree. */
const char *control_unhandled(void);

/* control_cmds.c's: CLOCK_MONOTONIC in ns; reply lines (malloc'd) from a
 * result, an error, an object. */
int64_t control_mono_ns(void);
char *control_reply_ok(json_t *result);
char *control_reply_err(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *control_dump_line(json_t *o);
/* control.c's: line becomes client *slot's reply, sent by the thread (or at
 * once, briefly, once it has stopped); *slot becomes -1. A slot of -1 frees line. */
void control_answer(struct control *c, int *slot, char *line);

/* control_load.c's: the loader thread, its wake-up descriptor, a load handed
 * to it (the reply, or NULL and *defer), and its result taken. */
int control_load_start(struct control *c, char *err, size_t errlen);
void control_load_stop(struct control *c);
int control_load_fd(const struct control *c);
char *control_load_submit(struct control *c, json_t *args, int fd, int slot, bool stage, bool *defer);
void control_load_finish(struct control *c);
/* args' at_tai_ns / in_ns, if any, checked: NULL, or the bad-args reply
 * (not an integer, both, before the epoch, more than a day ahead). */
char *control_when_check(struct control *c, json_t *args);
/* A built table put on offer to the engine at the first cycle boundary at or
 * after args' at_tai_ns / in_ns (counted from started_ns, CLOCK_MONOTONIC),
 * or the next one. NULL and *wait: offered, the reply comes with the swap;
 * otherwise the reply, and on a refusal nt is neither offered nor freed. */
char *control_offer(struct control *c, struct dtable *nt, json_t *args, int64_t started_ns, bool *wait);

#define CTL_STAGE_TTL_S 60          /* a staged table not committed by then is dropped */
#define CTL_STAGE_MAX_TTL_S 3600

/* control_stage.c's: a table built by a stage, kept under an id (the reply);
 * commit and abort of it; its expiry, checked every loop; what the status
 * says of it; dropping it at stop. */
char *control_stage_keep(struct control *c, struct eng_table *et, const char *name, json_t *args);
char *control_stage_commit(struct control *c, json_t *args, int slot, bool *defer);
char *control_stage_abort(struct control *c, json_t *args);
void control_stage_expire(struct control *c);
json_t *control_stage_json(struct control *c);
void control_stage_drop(struct control *c);
/* One step of a swap in progress (the thread calls it every loop). */
void control_advance(struct control *c);

#endif
