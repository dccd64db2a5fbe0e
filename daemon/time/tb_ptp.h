/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ptp source: follows ptp4l through its management socket (tb_ptp.c says
 * how, and when a sample is evidence of lock). Settings: its own (struct
 * tb_ptp_params, declared in tb_ptp.c as ptp-*), through tb_params.own.
 */
#ifndef TDP_TB_PTP_H
#define TDP_TB_PTP_H

#include "timebase.h"

extern const struct timebase_ops tb_ptp_ops;

#define TB_PTP_NOPTS 6			  /* tb_ptp_opts[] (tb_ptp_opts.c checks) */
extern const struct tb_opt tb_ptp_opts[]; /* ptp-*, its own settings */
struct tb_ptp_params {
	char socket[TB_STR]; /* ptp4l's management socket; "": /var/run/ptp4l */
	int64_t domain;
	int64_t mode;		    /* TB_PTP_* */
	int64_t poll_ns;	    /* how often to ask ptp4l; 0: 250 ms */
	int64_t subscribe_s;	    /* SUBSCRIBE_EVENTS_NP duration, renewed at half; 0: 60 s */
	int64_t transport_specific; /* the management messages' (ptp4l's); -1: found by asking */
	char config[TB_STR]; /* ptp4l's configuration file, read for its settings; "": none */
};
enum {
	TB_PTP_DISCIPLINED,
	TB_PTP_OFFSET
};

struct tb_ptp_counters {
	uint64_t requests, replies, notifications;
	uint64_t malformed;   /* replies that do not parse */
	uint64_t unexpected;  /* parse, but nobody asked (action, domain, id) */
	uint64_t mgmt_errors; /* MANAGEMENT_ERROR_STATUS answers */
	uint64_t send_errors; /* ptp4l's socket not reachable */
	uint64_t reconnects;
	uint64_t subscriptions;	     /* SUBSCRIBE_EVENTS_NP acknowledged */
	uint64_t transport_specific; /* the value ptp4l answered to (its transportSpecific) */
};

/* ptp4l's ports the source keeps (a boundary clock's) */
#define TB_PTP_PORTS 16
/* The client's counters; any thread. */
void tb_ptp_counters(struct timebase *tb, struct tb_ptp_counters *out);

/* How the source talks to ptp4l: a datagram socket, or a test's double of one.
 * send: 0 or -errno; recv: bytes, or -1 when there is nothing to read;
 * wait: up to ms for something to read (1: readable). */
struct tb_ptp_io {
	void *ctx;
	int (*send)(void *ctx, const uint8_t *buf, size_t n);
	long (*recv)(void *ctx, uint8_t *buf, size_t n);
	int (*wait)(void *ctx, int ms);
};

/* The ptp source over any I/O and host clock (tests: a simulated ptp4l on
 * the sim clock, stepped by tb_ptp_run); owns neither. With threaded false no
 * thread is started: tb_ptp_run drives it. NULL with a message in err. */
struct timebase *tb_ptp_new(const struct tb_ptp_io *io, struct timebase *host,
			    const struct tb_params *p, bool threaded, char *err, size_t errlen);
/* One pass of the client's loop (ask when due, read what came, time out). */
void tb_ptp_run(struct timebase *tb);

#endif
