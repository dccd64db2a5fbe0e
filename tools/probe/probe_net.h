/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdp-probe's kernel side: an AF_PACKET socket on one interface for sending
 * whole frames, and one for receiving them with their arrival timestamps
 * (hardware where the NIC has them, kernel software SO_TIMESTAMPING, or none,
 * in which case the receiver reads the clock itself).
 */
#ifndef TDP_PROBE_NET_H
#define TDP_PROBE_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/net_tstamp.h>
#include <net/if.h>

#include "probe_stats.h"

struct probe_if {
	char name[IFNAMSIZ];
	int index;
	uint8_t mac[6];
	int mtu;
};

int probe_if_get(const char *name, struct probe_if *pi, char *err, size_t errlen);
/* A socket that sends frames on the interface, bypassing the qdisc. -1 on error. */
int probe_tx_open(const struct probe_if *pi, char *err, size_t errlen);
/* A socket that receives every frame arriving on the interface. -1 on error. */
int probe_rx_open(const struct probe_if *pi, char *err, size_t errlen);

enum probe_ts_want {
	PROBE_WANT_AUTO,
	PROBE_WANT_HW,
	PROBE_WANT_SW,
	PROBE_WANT_USER
};

struct probe_tsinfo {
	enum probe_ts got;
	int phc;	 /* PHC index the NIC reported, -1 if none */
	bool hw_changed; /* SIOCSHWTSTAMP changed the NIC; restore at exit */
	struct hwtstamp_config old;
	char why[240]; /* how the choice was made, for the log and the JSON */
};

/* Chooses and enables the receive timestamps. 0, or -1 with ti->why set when
 * the wanted kind is not available. */
int probe_ts_setup(int fd, const struct probe_if *pi, enum probe_ts_want want,
		   struct probe_tsinfo *ti);
void probe_ts_restore(const struct probe_if *pi, struct probe_tsinfo *ti);

#define PROBE_BATCH 32
#define PROBE_RXBUF 9216

struct probe_rxbatch {
	uint32_t n;
	uint32_t len[PROBE_BATCH];
	int64_t ts_sw[PROBE_BATCH]; /* CLOCK_REALTIME ns, 0 when absent */
	int64_t ts_hw[PROBE_BATCH]; /* the NIC's clock, 0 when absent */
	bool outgoing[PROBE_BATCH]; /* our own transmissions, seen by the tap */
	uint8_t buf[PROBE_BATCH][PROBE_RXBUF];
};

/* Waits up to timeout_ms and receives what is there. Returns the number of
 * frames (0 on timeout), or -errno. */
int probe_recv_batch(int fd, struct probe_rxbatch *b, int timeout_ms);

/* Parses "aa:bb:cc:dd:ee:ff". 0 or -1. */
int probe_parse_mac(const char *s, uint8_t mac[6]);

#endif
