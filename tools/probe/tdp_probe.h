/* SPDX-License-Identifier: BSD-3-Clause */
/* tdp-probe's subcommands and what they share. */
#ifndef TDP_PROBE_H
#define TDP_PROBE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
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

/* Options from a table: each row names an option, what kind of value it
 * takes and where in the subcommand's options struct it goes (offsetof),
 * with a bool set when it is given (seen). Errors are said as the single
 * parsers above say them. */
enum probe_opt_kind {
	PO_STR,	    /* const char *, the argument itself */
	PO_UINT,    /* uint64_t in min..max */
	PO_INT,	    /* int in min..max */
	PO_TIME,    /* uint64_t ns, above 0 */
	PO_IP,	    /* uint8_t[16], its family (4 or 6) at off2 */
	PO_WORD,    /* int: the index of the argument in words */
	PO_ALPHA,   /* uint32_t[PROBE_MAX_HOPS], their count (uint32_t) at off2 */
	PO_FLAG,    /* bool set, no argument */
	PO_VERBOSE, /* no argument: the log at debug */
	PO_QUIET,   /* no argument: the log at warnings */
	PO_HELP,    /* no argument: probe_opts_parse returns 1 */
};
#define PROBE_MAX_OPTS 40
struct probe_opt {
	const char *name; /* the long option, without its dashes */
	char short_name;  /* 0: none */
	enum probe_opt_kind kind;
	size_t off;  /* where the value goes */
	size_t seen; /* PO_SEEN(type, field): a bool set when it is given; 0: none */
	uint64_t min, max;
	const char *const *words; /* PO_WORD: NULL-terminated */
	size_t off2;		  /* PO_IP, PO_ALPHA: see above */
};
/* A row's name, short name, kind and place, then any of .seen, .min, .max,
 * .words, .off2 by name. */
#define PO_ROW(n, sh, k, o) .name = (n), .short_name = (sh), .kind = (k), .off = (o)
#define PO_SEEN(type, field) (offsetof(type, field) + 1)
/* Parses argv by t (ended by a row without a name) into base: 0, 1 when
 * --help was asked (nothing after it is read), -1 when an option was bad
 * (said on stderr). optind is left at the first operand. */
int probe_opts_parse(const struct probe_opt *t, void *base, int argc, char **argv);
/* The same for the subcommand cmd: 1 when --help was asked (usage has
 * written it to stdout), -1 for a bad option or, unless the subcommand takes
 * operands, an operand (said), else 0. */
int probe_cmd_args(const struct probe_opt *t, void *base, int argc, char **argv, const char *cmd,
		   void (*usage)(FILE *), bool operands);
/* "tdp-probe: CMD: what is wrong" on stderr; 1, as bad |= takes it */
__attribute__((format(printf, 2, 3))) int probe_cmd_bad(const char *cmd, const char *fmt, ...);

/* What recv and analyze account probes by, and where they write it: the
 * probes' UDP port, the histograms' bins, range and series, the frame delay,
 * the plan's alpha per hop, JSON, CSV and a label. */
struct probe_acct {
	const char *json, *csv, *label;
	uint64_t port, bin, range, series, delay;
	uint32_t plan[PROBE_MAX_HOPS], nplan;
};
#define PROBE_ACCT_DEFAULTS                                                                     \
	{                                                                                       \
		.port = PROBE_DEFAULT_PORT, .bin = 1000, .range = 100000000, .series = 10000000 \
	}
/* their option rows, for a struct type with a struct probe_acct member m */
#define PROBE_ACCT_ROWS(type, m)                                                              \
	{PO_ROW("port", 0, PO_UINT, offsetof(type, m.port)), .max = 65535},                   \
		{PO_ROW("bin", 0, PO_TIME, offsetof(type, m.bin))},                           \
		{PO_ROW("range", 0, PO_TIME, offsetof(type, m.range))},                       \
		{PO_ROW("series", 0, PO_TIME, offsetof(type, m.series))},                     \
		{PO_ROW("frame-delay", 0, PO_UINT, offsetof(type, m.delay)), .max = 1000000}, \
		{PO_ROW("alpha", 0, PO_ALPHA, offsetof(type, m.plan)),                        \
		 .off2 = offsetof(type, m.nplan)},                                            \
		{PO_ROW("json", 0, PO_STR, offsetof(type, m.json))},                          \
		{PO_ROW("csv", 0, PO_STR, offsetof(type, m.csv))},                            \
	{                                                                                     \
		PO_ROW("label", 0, PO_STR, offsetof(type, m.label))                           \
	}
struct probe_rx;
/* rx set up to account as a says: 0, or -1 (said) when --range holds no
 * whole bin of --bin or too many */
int probe_acct_init(struct probe_rx *rx, const struct probe_acct *a);

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
