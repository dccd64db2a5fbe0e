/* SPDX-License-Identifier: BSD-3-Clause */
/* tdp-probe's subcommands and what they share. */
#ifndef TDP_PROBE_H
#define TDP_PROBE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "probe_pkt.h"

extern volatile sig_atomic_t probe_stop;
void probe_on_signals(void);

int probe_cmd_send(int argc, char **argv);
int probe_cmd_flood(int argc, char **argv);
int probe_cmd_recv(int argc, char **argv);
int probe_cmd_analyze(int argc, char **argv);

/* Option parsing: each prints "tdp-probe: --OPT: why" and returns -1 on error. */
int probe_opt_time(const char *opt, const char *s, uint64_t *ns);
int probe_opt_uint(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v);
int probe_opt_rate(const char *opt, const char *s, uint64_t *bps);
/* "2,1,3": the plan's alpha per hop, 1..1000000 each, at most PROBE_MAX_HOPS. */
int probe_opt_alpha(const char *opt, const char *s, uint32_t *alpha, uint32_t *n);
/* "10.0.0.1" or "2001:db8::1" into a family and 16 bytes. */
int probe_opt_ip(const char *opt, const char *s, uint8_t *family, uint8_t ip[16]);

struct hostclock;
/* What to add to CLOCK_REALTIME (kernel software timestamps, pcap files) to
 * get the CTR: the UTC-TAI offset in whole seconds. */
int64_t probe_realtime_offset(const struct hostclock *clk);

struct probe_rx;
struct probe_meta;
/* The text summary, and the JSON and CSV files when asked for. */
int probe_finish(const struct probe_rx *rx, const struct probe_meta *m, const char *json,
		 const char *csv);

/* Where frames go: an AF_PACKET socket or a DPDK port. A slot is a frame
 * buffer filled before the wait and stamped after it. */
#define PROBE_TX_SLOTS 64
struct probe_txq {
	int (*prepare)(struct probe_txq *q, unsigned slot, const struct probe_tmpl *t);
	uint8_t *(*slot)(struct probe_txq *q, unsigned slot);
	/* sends slots 0..n-1; returns how many went, or -errno */
	int (*send)(struct probe_txq *q, unsigned n);
	void (*close)(struct probe_txq *q);
	char what[160];	   /* for the log: interface or device */
	uint8_t mac[6];	   /* the port's own MAC */
	uint64_t link_bps; /* 0 when unknown */
};

struct probe_txq *probe_txq_packet(const char *ifname, char *err, size_t errlen);
/* DPDK: dev is a vdev ("net_af_packet0,iface=veth0") or a PCI address;
 * NULL with err set when this build has no DPDK. */
struct probe_txq *probe_txq_dpdk(const char *dev, int cpu, char *err, size_t errlen);

#endif
