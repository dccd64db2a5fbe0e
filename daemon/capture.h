/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Seeing what a port forwards: `tdpctl capture` as tcpdump for a port DPDK
 * owns. A session copies the packets of one port, as RX takes them from the
 * driver (in) and as tdpd hands them to it (out), into pcapng written to a
 * descriptor the client passed (a file, or a pipe into tcpdump -r -).
 *
 * The copies are made by ethdev RX/TX callbacks (rte_eth_add_rx_callback,
 * rte_eth_add_tx_callback), installed for the session and removed
 * after it, so a port without a session costs nothing; while one runs, each
 * captured packet costs the thread that receives or sends it a copy of at
 * most its snap length and a clock read, the frame engine included. The
 * copies go through a ring of preallocated slots to a writer thread, which
 * blocks on the descriptor as it must; what finds no free slot is counted,
 * never waited for. (DPDK's own dpdk-dumpcap attaches as a secondary
 * process, which tdpd's --in-memory EAL does not allow.)
 */
#ifndef TDP_CAPTURE_H
#define TDP_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CAPTURE_SNAP_MAX 2048 /* the most bytes kept of a packet */
#define CAPTURE_SLOTS 2048    /* packets waiting for the writer */
#define CAPTURE_COUNT_MAX 100000000ull
#define CAPTURE_SECONDS_MAX 86400

struct capture;

struct capture_req {
	const char *name; /* the port's name, for the pcapng interface */
	uint16_t dpdk_port;
	uint16_t nq;	     /* its RX and TX queues */
	bool in, out;	     /* the directions taken */
	uint64_t count;	     /* packets, then the session ends; 0: no limit */
	int64_t duration_ns; /* then it ends; 0: no limit (count or a stop must end it) */
	uint32_t snaplen;    /* 1 .. CAPTURE_SNAP_MAX */
	int fd;		     /* written to; the session closes it */
};

struct capture_stats {
	char port[64];
	uint64_t captured; /* packets written */
	uint64_t dropped;  /* taken but lost: no free slot, or not written */
	uint64_t bytes;	   /* of pcapng written */
	double seconds;
	char end[96]; /* why it ended */
};

/* At start-up: the ring the copies go through. NULL with err. */
struct capture *capture_new(char *err, size_t errlen);
/* Stops a session that runs and frees everything. */
void capture_free(struct capture *cp);
/* Readable (an eventfd) when a session has ended. */
int capture_fd(const struct capture *cp);
/* Starts a session; 0, -EBUSY (one runs), or -errno with err. rq->fd is
 * the session's from then on. */
int capture_start(struct capture *cp, const struct capture_req *rq, char *err, size_t errlen);
/* Ends the session that runs (its client went away, or tdpd stops). */
void capture_stop(struct capture *cp);
/* Once capture_fd was readable: the ended session's figures; 0, or -1 when
 * no session has ended since the last call. */
int capture_result(struct capture *cp, struct capture_stats *st);

#endif
