/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Time-cycle reservation tables: parse, validate (admission control), build the
 * compact runtime form, write back, edit and compare.
 *
 * A table says, for every frame of the cycle (tfc = frame index mod k), how many
 * packets of which flow each output port sends in that frame. See FORMAT.md.
 */
#ifndef TDP_SCHED_H_
#define TDP_SCHED_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCHED_FORMAT_VERSION 1
#define SCHED_NAME_MAX 32 /* names are at most 31 characters */
#define SCHED_MAX_PORTS 256
/* flows of a table: the build sorts a frame's entries on port << 24 | flow */
#define SCHED_MAX_FLOWS 16777215u
#define SCHED_MAX_N 65535 /* packets of one flow in one frame */
#define SCHED_MAX_K 10000000u
#define SCHED_MAX_BYTES (256u << 20) /* a table file is at most this long */
#define SCHED_MIN_TF_NS 100
#define SCHED_NS_PER_S 1000000000ull
#define SCHED_MIN_FRAME 60 /* Ethernet minimum without FCS */

/* ---- diagnostics ------------------------------------------------------ */

enum sched_sev {
	SCHED_ERROR,
	SCHED_WARNING,
	SCHED_NOTE
};

struct sched_diag {
	uint32_t line; /* 1-based; 0 when the message is about the whole file */
	uint32_t col;  /* 1-based */
	enum sched_sev sev;
	char msg[240];
};

/* A list of diagnostics for one file. Keeps the first SCHED_DIAG_KEEP, counts all. */
#define SCHED_DIAG_KEEP 100
struct sched_diags {
	const char *file;
	struct sched_diag *v;
	size_t n, cap;
	size_t nerr, nwarn; /* all of them, also those not kept */
	uint64_t work;	    /* steps the checks and the expansion took: tests bound it */
	bool io;	    /* sched_load could not read the file (not the table's fault) */
};

void sched_diags_init(struct sched_diags *d, const char *file);
void sched_diags_free(struct sched_diags *d);
void sched_diag_add(struct sched_diags *d, enum sched_sev sev, uint32_t line, uint32_t col,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* True when the next message would only be counted: callers skip the work of
 * composing it (sched_diag_add still counts it). */
static inline bool sched_diag_full(const struct sched_diags *d)
{
	return d->n >= SCHED_DIAG_KEEP;
}
/* "file:line:col: error: msg" lines, plus a count of those not kept. */
void sched_diags_print(const struct sched_diags *d, FILE *out);

/* ---- the table -------------------------------------------------------- */

struct sched_port {
	char name[SCHED_NAME_MAX];
	uint64_t rate_bps;  /* link rate, bit/s */
	uint32_t max_frame; /* largest frame, bytes, destination MAC to payload end, no FCS */
	uint32_t overhead;  /* per-packet wire overhead: preamble+SFD, FCS, IFG (default 24) */
	uint32_t line;
};

enum sched_match_field {
	SCHED_M_DSCP = 1u << 0,
	SCHED_M_VLAN = 1u << 1,
	SCHED_M_PCP = 1u << 2,
	SCHED_M_DST = 1u << 3,
	SCHED_M_UDP_DPORT = 1u << 4,
	SCHED_M_MPLS = 1u << 5,
};

struct sched_match {
	uint32_t fields; /* enum sched_match_field bits */
	uint8_t dscp;	 /* 0..63 */
	uint8_t pcp;	 /* 0..7 */
	uint16_t vlan;	 /* 0..4095 */
	uint16_t udp_dport;
	uint32_t mpls;	    /* 20-bit label */
	uint8_t dst_family; /* 4 or 6 */
	uint8_t dst_len;    /* prefix length */
	uint8_t dst[16];    /* network byte order, host bits zero */
};

/* The match keys, declared once, in the order the table's text and JSON
 * give them: the parser, the writer, the JSON, equality and the overlap
 * check all read this table. A new key: its enum bit and member above, its
 * row in sched_match_keys[] (sched_num.c), and where RX finds it in a packet
 * (daemon/core/pkt.c). dst is the one prefix; the others are exact values. */
struct sched_match_key {
	uint32_t field;	  /* enum sched_match_field */
	const char *word; /* in the table's text */
	const char *json; /* its key in sched_write_json */
	uint32_t max;	  /* its largest value; 0: the prefix (dst) */
	uint16_t off;	  /* its member of struct sched_match (an exact key) */
	uint8_t size;	  /* the member's size in bytes: 1, 2 or 4 */
	uint8_t shift;	  /* where it sits in the overlap check's key of exact values */
};
extern const struct sched_match_key sched_match_keys[]; /* ended by a NULL word */
/* an exact key's value in m, and m's value of it set */
uint32_t sched_match_get(const struct sched_match *m, const struct sched_match_key *k);
void sched_match_set(struct sched_match *m, const struct sched_match_key *k, uint32_t v);
/* "dscp, vlan, pcp, dst, udp-dport or mpls" */
const char *sched_match_words(void);

struct sched_flow {
	char name[SCHED_NAME_MAX];
	uint16_t port; /* index into ports */
	uint32_t size; /* largest packet, bytes, as sched_port.max_frame */
	/*
	 * Pipeline forwarding: a packet the upstream node sent in frame u is sent
	 * here in frame u + alpha (0: not pipelined; the flow's queue is served in
	 * order). It arrived no earlier than start(u) + delay_ns, so a packet that
	 * arrives at t was sent upstream in frame floor((t - epoch - delay)/TF).
	 */
	uint32_t alpha;
	uint64_t delay_ns; /* < TF */
	bool stamp;	   /* write this node's hop stamp into probe packets */
	struct sched_match match;
	uint32_t line;
};

/* Runtime entry: n packets of flow in this frame. 8 bytes: a 32-bit flow
 * index (n is at most SCHED_MAX_N). */
struct sched_entry {
	uint32_t flow;
	uint32_t n;
};

/* One frame-set item of a row line: first, first+stride, ... <= last. */
struct sched_span {
	uint32_t first, last, stride;
	uint32_t col;
};

/* A row line of the file as written: a frame set and the entries it adds. */
struct sched_rule {
	uint32_t line;
	uint32_t span_off, nspan; /* into table.spans */
	uint32_t ent_off, nent;	  /* into table.rule_ent / rule_col */
};

enum sched_line_kind {
	SCHED_L_BLANK,
	SCHED_L_COMMENT,
	SCHED_L_VERSION,
	SCHED_L_TF,
	SCHED_L_K,
	SCHED_L_EPOCH,
	SCHED_L_GUARD,
	SCHED_L_SYNC,
	SCHED_L_PORT,
	SCHED_L_FLOW,
	SCHED_L_ROW,
};

/* Every line of the source, so an edit can keep comments and layout. */
struct sched_line {
	uint32_t off, len; /* in table.src, without the newline */
	uint32_t comment;  /* offset of '#' within the line, or UINT32_MAX */
	uint8_t kind;	   /* enum sched_line_kind */
	uint32_t idx;	   /* port, flow or rule index for those kinds */
};

struct sched_table {
	uint32_t version;
	uint64_t tf_ns;	      /* time-frame length; divides one second */
	uint32_t k;	      /* frames per cycle; k*tf_ns divides one second */
	uint64_t epoch_ns;    /* cycle 0 starts this long after every TAI second */
	uint64_t guard_ns;    /* end of each frame in which nothing may start */
	uint64_t sync_err_ns; /* this node's sync error bound, as planned (sync-error) */
	bool sync_err_set;    /* sync-error given */

	struct sched_port *ports;
	uint32_t nports;
	struct sched_flow *flows;
	uint32_t nflows;

	/* the rows as written */
	struct sched_rule *rules;
	uint32_t nrules;
	struct sched_span *spans;
	uint32_t nspans;
	struct sched_entry *rule_ent;
	uint32_t *rule_col; /* column of each rule entry, for messages */
	uint32_t nrule_ent;

	/*
	 * Runtime form, O(1) by tfc: row = frame_row[tfc]; its entries are
	 * ent[row_off[row] .. row_off[row+1]), sorted by (port, flow). Identical
	 * rows are stored once. Memory: 4 bytes per frame, 4 per distinct row,
	 * 8 per entry of a distinct row.
	 */
	uint32_t *frame_row;	 /* k */
	uint32_t *row_off;	 /* nrows + 1 */
	struct sched_entry *ent; /* row_off[nrows] */
	uint32_t nrows;

	/* the source */
	char *src;
	size_t src_len;
	struct sched_line *lines;
	uint32_t nlines;
	char *file;
};

/* Parse and build. Returns NULL (with errors in d) unless the table is well
 * formed; admission is separate (sched_admit). buf need not be NUL-terminated. */
struct sched_table *sched_parse(const char *buf, size_t len, struct sched_diags *d);
/* Read a file and parse it. path "-" reads standard input. */
struct sched_table *sched_load(const char *path, struct sched_diags *d);
void sched_free(struct sched_table *t);

/* The table's digest: SHA-256 of its text as read (t->src), in lowercase
 * hex; the same bytes give the same digest on every router (sched_digest.c). */
#define SCHED_DIGEST_HEX 65
void sched_digest(const struct sched_table *t, char hex[SCHED_DIGEST_HEX]);
void sched_digest_bytes(const void *buf, size_t len, char hex[SCHED_DIGEST_HEX]);

/* The sync error a node may have and the table still line up: its
 * sync-error, else a quarter of the guard band (a pair of nodes apart by
 * both their errors, either way: twice that), else -1 (no band, no bound). */
static inline int64_t sched_sync_budget(const struct sched_table *t)
{
	return t->sync_err_set ? (int64_t)t->sync_err_ns
	       : t->guard_ns   ? (int64_t)(t->guard_ns / 4)
			       : -1;
}
/* Where that budget comes from, as replies name it. */
static inline const char *sched_sync_budget_from(const struct sched_table *t)
{
	return t->sync_err_set ? "sync-error" : t->guard_ns ? "guard/4" : "none";
}

static inline const struct sched_entry *sched_row(const struct sched_table *t, uint32_t tfc,
						  uint32_t *n)
{
	uint32_t r = t->frame_row[tfc];
	*n = t->row_off[r + 1] - t->row_off[r];
	return t->ent + t->row_off[r];
}

int sched_flow_find(const struct sched_table *t, const char *name);
/* map[i] (a->nflows of them): a's flow i in b by name, or -1. b's names
 * sorted once, so that tables of 10^6 flows match in n log n. 0, or
 * -ENOMEM. */
int sched_flow_map(const struct sched_table *a, const struct sched_table *b, int32_t *map);
int sched_port_find(const struct sched_table *t, const char *name);

/* Bytes the runtime form takes (frame_row, row_off, ent). */
size_t sched_runtime_bytes(const struct sched_table *t);

/* ---- admission control ------------------------------------------------ */

/* Wire bits of one packet of flow f: max(size, 60) + overhead, times 8. */
uint64_t sched_wire_bits(const struct sched_table *t, uint32_t flow);
/* Bits that fit in TF minus the guard band at the port's rate (floor). */
uint64_t sched_port_capacity_bits(const struct sched_table *t, uint32_t port);

/* Checks every frame and port; one error per overbooked distinct row and port,
 * naming frames, port, flows and the excess. Returns the number of errors. */
size_t sched_admit(const struct sched_table *t, struct sched_diags *d);

/* What the box holds of one frame, beside what the wire carries: packet
 * buffers in the pool (less those the ports' rings and the lcores' caches
 * hold), packets a flow's queue holds, TX descriptors per port (in table
 * order; NULL or 0: not known). A zero limit is not checked. */
struct sched_fit {
	uint64_t mbufs, mbufs_held;
	uint32_t flow_depth;
	const uint32_t *tx_desc;
	/* per table port: the largest IP packet the port sends (its interface's
	 * MTU), 0 or NULL: not checked */
	const uint32_t *mtu;
};

/* Checks every distinct row against lim: an error for a flow whose size
 * exceeds its port's MTU (plus the Ethernet header, and a VLAN tag or an
 * MPLS label the flow's match says it carries: a reservation is for whole
 * packets, never fragments), an error for a row whose packets
 * need more buffers than the pool can give at once, or a flow that sends more
 * in a frame than its queue holds; a warning for a port that sends more in a
 * frame than its TX ring holds (the engine refills it while the port sends).
 * Returns the number of errors. */
size_t sched_fit(const struct sched_table *t, const struct sched_fit *lim, struct sched_diags *d);

struct sched_port_summary {
	uint64_t capacity_bits;		     /* per frame, before the guard band */
	double util_min, util_avg, util_max; /* reserved wire time / (TF - guard) */
	uint32_t frames_used;		     /* frames with any reservation */
	uint32_t frames_over;		     /* overbooked frames */
	double be_bps;			     /* average rate left to best effort */
	double reserved_bps;		     /* reserved wire rate, averaged over the cycle */
};

struct sched_flow_summary {
	uint64_t pkts_per_cycle;
	uint32_t frames_per_cycle;
	double bps; /* packets x size x 8 / cycle */
	double pps;
	uint64_t max_wait_ns; /* worst wait of a packet arriving to an empty queue */
};

/* Fills arrays of nports and nflows elements. */
void sched_summarize(const struct sched_table *t, struct sched_port_summary *ps,
		     struct sched_flow_summary *fs);

/* ---- units, shared with the daemon's configuration ---------------------- */

/* "100us", "1.5ms", "2s": nanoseconds. "1Gbit/s", "100Mbps": bit/s. "10.0.0.0/8",
 * "2001:db8::/32": a destination prefix (m->dst*, m->fields gets SCHED_M_DST).
 * Each returns 0, or -1 with a short reason in *why. s need not be terminated. */
int sched_num_time(const char *s, size_t n, uint64_t *ns, const char **why);
int sched_num_rate(const char *s, size_t n, uint64_t *bps, const char **why);
int sched_num_prefix(const char *s, size_t n, struct sched_match *m, const char **why);
/* The greatest common divisor (a, when b is 0). */
uint64_t sched_gcd(uint64_t a, uint64_t b);

/* The length (1 to 4) of the UTF-8 sequence at s as RFC 3629 §4 allows it
 * (no overlong forms, surrogates or code points past U+10FFFF), or 0 when
 * the bytes there are not one; n bytes are readable. Shared with the
 * daemon's control replies. */
size_t sched_utf8_len(const unsigned char *s, size_t n);

/* ---- frame sets ------------------------------------------------------- */

/* Parse "0-99/10,5,*" against k. Returns 0 or -1 with a message in err. */
int sched_frameset_parse(const char *s, uint32_t k, uint8_t *member, char *err, size_t errlen);
/* Writes a sorted frame list as compact spans ("0-90/10,95"). Returns chars needed. */
size_t sched_frames_format(const uint32_t *frames, size_t n, char *out, size_t outlen);

/* ---- a new table -------------------------------------------------------- */

struct sched_new {
	const char *tf, *k, *guard, *epoch; /* as given; tf and k required */
	const char *const *ports;	    /* NAME:RATE[:MAXFRAME[:OVERHEAD]] */
	unsigned nports;
};
/* The text of a new table with this header and these ports, not yet parsed;
 * NULL with err set when a value is not one word or a port not 2..4 fields. */
char *sched_new_text(const struct sched_new *nw, char *err, size_t errlen);

/* ---- writing ---------------------------------------------------------- */

/* Units: largest exact unit. */
void sched_fmt_time(uint64_t ns, char *out, size_t len);
void sched_fmt_rate(uint64_t bps, char *out, size_t len);
void sched_fmt_match(const struct sched_match *m, char *out, size_t len);

/* Canonical form from the table: header, ports, flows, one row line per distinct
 * row (frames grouped and compressed). Comments are not kept. */
int sched_write(const struct sched_table *t, FILE *out);
/* Each line in canonical spelling, comments and blank lines kept, rows as written. */
int sched_write_fmt(const struct sched_table *t, FILE *out);
int sched_write_json(const struct sched_table *t, FILE *out);
/* A JSON string literal, escaped. */
void sched_json_str(FILE *out, const char *s);

/* ---- editing (on the source, keeping comments and layout) ------------- */

/* Add n packets of flow to the frames in member[0..k). Returns new source text
 * (malloc'd) or NULL with errors in d. */
char *sched_edit_reserve(const struct sched_table *t, const char *flow, uint32_t n,
			 const uint8_t *member, struct sched_diags *d);
char *sched_edit_release(const struct sched_table *t, const char *flow, uint32_t n,
			 const uint8_t *member, struct sched_diags *d);

/* ---- comparing -------------------------------------------------------- */

/* Human-readable (or JSON) difference; returns 0 when equal, 1 when different. */
int sched_diff(const struct sched_table *a, const struct sched_table *b, bool json, FILE *out);
/* Same header, ports, flows and per-frame rows. */
bool sched_equal(const struct sched_table *a, const struct sched_table *b);

#endif
