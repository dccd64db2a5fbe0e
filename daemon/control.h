/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's state, shared by its files, from the top down:
 *
 *   control_server.c   the sockets and the thread's event loop
 *   control_cmds.c     the commands, their table and dispatch
 *   control_load.c     the loader thread (read, parse, admit, build)
 *   control_capture.c, control_routes.c, control_alarm.c   replies of their commands
 *   control_clients.c  a client's reply handed over, a client closed
 *   tables.c           the table manager: a table's whole life (tables.h)
 *   control_reply.c    reply lines (control_reply.h)
 *
 * Each calls only the files below it; the table manager knows no sockets
 * (it answers a waiting client through control_answer, given as a pointer).
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
#include "tables.h"
#include "control_reply.h"
#include "tstate.h"

struct launch_clock;

struct ctl_port_info {
	const char *name, *device, *rate_from; /* rate_from NULL: not in the table */
	int table_port;			       /* index in the table (the engine's port), or -1 */
	uint16_t dpdk_port;
	uint8_t mac[6];
	uint32_t link_mbps;
	uint64_t rate_bps;
	char ifname[32];		   /* kernel netdev behind the port, "" for DPDK-owned */
	char coalesce[160];		   /* what was done about interrupt coalescing */
	const struct hp_port *hp;	   /* its kernel interface and XDP program; NULL: none */
	const char *push;		   /* which push and why (pmd_port.push) */
	const char *pmd;		   /* the PMD that drives it (pmd_port.driver) */
	const struct launch_clock *launch; /* its device clock's map; NULL: no launch time */
	const struct port_link *link;	   /* its link: up, carrier, MTU */
	uint32_t txd;			   /* TX descriptors the PMD set up */
	uint16_t nq;			   /* its RX (and TX) queues, for capture */
	bool rss;			   /* frames spread over them by RSS */
	const char *queues;		   /* why fewer than the RX cores (pmd_port.queues) */
};

struct nl;
struct hp_port;
struct capture;
struct ctl_load;

/* A client of either socket, as the control thread serves it: its request
 * arriving, held while a load or a swap is under way, its reply leaving, then
 * what it still sends read and dropped so closing does not reset the reply. */
enum ctl_client_state {
	CL_FREE,
	CL_READ,
	CL_HELD,
	CL_WRITE,
	CL_DRAIN
};
#define CTL_REFUSING 16 /* slots for clients being told "busy" */
#define CTL_SLOTS (2 * CTL_MAX_CLIENTS + CTL_REFUSING)

struct ctl_client {
	int fd;
	uint8_t state; /* enum ctl_client_state */
	uint8_t sock;  /* 0: the control socket, 1: the monitor socket */
	bool refused;  /* told "busy" (its user has its share open) */
	unsigned uid;
	int pfd;   /* a descriptor passed with the request, or -1 */
	char *buf; /* the request (CTL_MAX_REQUEST + 2), then the reply */
	size_t len, off;
	int64_t deadline_ns; /* CLOCK_MONOTONIC; what it waits for by then does not come */
};

struct control {
	/* filled in by the daemon before control_open */
	struct conf *conf;
	const char *timebase_name;
	struct ctl_port_info *ports;
	uint32_t nports;
	struct tables tm; /* the tables: in force, offered, staged (tables.h), and the
			   * engine, RX and time source they are built for */
	int64_t started_mono_ns;
	const struct sched_fit *fit; /* what a frame may hold on this box; NULL: not checked */
	struct nl *nl;	     /* the kernel's routes; NULL: rx->rt is tdpd.conf's and fixed */
	struct capture *cap; /* packet capture (capture.h); NULL: none */

	/* the control thread's own */
	int lfd[2]; /* control, monitor; -1 when not used */
	long gid;   /* control-group, -1 when it does not exist */
	pthread_t th;
	bool running;
	atomic_int stop;
	int cap_waiter; /* the client waiting for its capture to end, or -1 */
	struct ctl_client cl[CTL_SLOTS];
	struct ctl_load *load;		   /* the table loader (control_load.c) */
	uint64_t clients, clients_refused; /* connections served, and refused busy */
};

/* control_capture.c: `capture` started (its reply deferred to its end), and
 * its reply when the session has ended (capture_fd readable). */
char *control_capture_start(struct control *c, json_t *args, int fd, int slot, bool *defer);
void control_capture_finish(struct control *c);
/* The reply to routes or neighbours (control_routes.c): {"routes": [...]} or
 * {"neighbours": [...]} in force; with args "to": ADDRESS the route a packet
 * to it takes; "summary": true the table's counts. */
char *control_routes_reply(struct control *c, bool neighbours, json_t *args);
/* A port's host path: mode, interface, RX queues, the XDP program's counts. */
json_t *control_host_path_json(const struct hp_port *hp);
/* control_alarm.c: a port's link as JSON; what is wrong now, one object per
 * alarm (a port's link down, a reserved flow whose route moved off its port
 * within the last WATCH_MOVED_LOG_NS), for status, stats and Prometheus. */
json_t *control_link_json(const struct port_link *l);
json_t *control_alarms_json(struct control *c);
/* The table's sync budget against the source's uncertainty: the budget and
 * where it comes from, whether it is exceeded, the action and its frames. */
json_t *control_budget_json(struct control *c);
/* how recent a moved route must be to raise its alarm */
#define CTL_MOVED_ALARM_NS (10 * (int64_t)1000000000)

/* control_server.c: opens the sockets (errors are the daemon's to report; it
 * does not start), starts the thread (and the loader), stops both, closes and
 * removes the sockets and answers every waiting client. */
int control_open(struct control *c, char *err, size_t errlen);
int control_start(struct control *c, char *err, size_t errlen);
void control_stop(struct control *c);

/* control_cmds.c: one request of client slot (cl[], or -1), as the thread
 * serves it. Returns the reply (a JSON line) to free; *defer set when the
 * reply comes later (a table being loaded, or waiting for its swap). */
char *control_handle(struct control *c, const char *req, size_t len, int fd, int slot,
		     bool privileged, bool *defer);
/* A command of the protocol (ctl_cmds[]) without a handler, or whose handler
 * disagrees on being a change, or a handler the protocol does not name: its
 * name; NULL when the two tables agree. */
const char *control_unhandled(void);

/* control_clients.c: line becomes client *slot's reply, sent by the thread
 * (or at once, briefly, once it has stopped); *slot becomes -1. A slot of -1
 * frees line. The signature is tables_answer_fn's, with c as its ctx. */
void control_answer(void *c, int *slot, char *line);
void control_client_close(struct ctl_client *k);

/* control_load.c: the loader thread, its wake-up descriptor, a load handed
 * to it (the reply, or NULL and *defer), and its result taken to the table
 * manager. */
int control_load_start(struct control *c, char *err, size_t errlen);
void control_load_stop(struct control *c);
int control_load_fd(const struct control *c);
char *control_load_submit(struct control *c, json_t *args, int fd, int slot, bool stage,
			  bool *defer);
void control_load_finish(struct control *c);

#endif
