/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef TDP_SCHED_PLAN_H
#define TDP_SCHED_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tdp_sched.h"

#define PLAN_MAX_NODES 256
#define PLAN_MAX_LINKS 1024
#define PLAN_MAX_FLOWS 1024
#define PLAN_MAX_K 1000000
#define PLAN_MAX_MEM (1ull << 30) /* what placing may take: counts and room per frame */
#define PLAN_MAX_WORK 10000000ull /* frames, packet hops and path steps the search visits in all */
#define PLAN_MAX_BYTES (16 << 20) /* a topology file */
#define PLAN_MAX_ALPHA 1000000	  /* as a table's alpha */
#define PLAN_MAX_PROC_NS 1000000000ull	 /* processing, clock-error, sync-error: 1 s */
#define PLAN_MAX_DELAY_NS 10000000000ull /* a link's delay: 10 s */
#define PLAN_TOPOLOGY_FILE "topology"	 /* the topology, in a plan's directory */

/* How tdpctl deploy reaches a router's tdpd: the topology's control line,
 * control NODE [socket PATH] [tdpctl PATH] [ssh DEST | exec WORD...]. */
struct plan_reach {
	uint32_t line; /* 0: no control line */
	char *socket;  /* tdpd's control socket there; NULL: its default */
	char *tdpctl;  /* tdpctl there; NULL: this one (local, exec), "tdpctl" (ssh) */
	char *ssh;     /* ssh's destination; NULL: not over ssh */
	char **exec;   /* a command prefix, NULL-terminated; NULL: none */
};

/* Where a node's time comes from, and the sync error bound that source gives
 * when the topology does not say (sched_plan.c holds the one list). */
struct plan_time_src {
	const char *name;
	uint64_t sync_ns;
	const char *why;
};
extern const struct plan_time_src plan_time_srcs[];
/* The source by name, or NULL. */
const struct plan_time_src *plan_time_src_find(const char *name);

struct node {
	char name[SCHED_NAME_MAX];
	bool router;
	uint32_t id, min_alpha;
	uint64_t proc_ns;
	uint32_t line;
	struct plan_reach reach;
	/* its sync error bound: sync-error, else its time source's, else the
	 * topology's time source's, else 0 (plan_read resolves it) */
	const struct plan_time_src *time;
	uint64_t sync_ns;
	bool sync_given;
};

struct end {
	uint32_t node;
	char port[SCHED_NAME_MAX];
};

struct link {
	struct end e[2];
	uint64_t rate_bps, delay_ns;
	uint32_t line;
	uint64_t *used[2]; /* bits reserved per frame, per direction (from e[d]) */
};

struct preq {
	char name[SCHED_NAME_MAX];
	uint32_t src, dst;
	uint32_t path[PLAN_MAX_NODES], npath; /* nodes, src first, each once */
	bool explicit_path;
	uint32_t packets, size;
	bool stamp;
	uint8_t *frames; /* ingress frames allowed; NULL: all */
	char match[200];
	uint32_t line;
	/* planned */
	uint32_t link[PLAN_MAX_NODES]; /* link from path[h] to path[h+1] */
	uint8_t dir[PLAN_MAX_NODES];
	uint32_t alpha[PLAN_MAX_NODES]; /* alpha[h] for router path[h], h >= 1 */
	uint32_t amin[PLAN_MAX_NODES];	/* the least alpha the rule allows there */
	uint32_t paths_tried;		/* candidate paths with no room before this one */
	char detour[160];		/* the fewest-router path, when it had no room */
	uint32_t *count;		/* packets per ingress frame, k */
};

struct plan {
	const char *file;
	uint64_t tf_ns, guard_ns, epoch_ns, clock_err_ns;
	const struct plan_time_src *time; /* the topology's time source; NULL: none given */
	bool sync_bounds; /* a node or the topology gave a time source or sync-error */
	uint32_t k;
	uint32_t overhead;
	struct node nodes[PLAN_MAX_NODES];
	uint32_t nnodes;
	struct link links[PLAN_MAX_LINKS];
	uint32_t nlinks;
	struct preq flows[PLAN_MAX_FLOWS];
	uint32_t nflows;
	int errors;
	FILE *err;  /* where errors go; NULL: stderr */
	char *text; /* the topology as read (tdpctl plan -o keeps it) */
	size_t len;
	/* where each setting was given (0: not given) */
	uint32_t l_version, l_tf, l_k, l_guard, l_epoch, l_clock, l_time;
	uint64_t work;	   /* frames visited by placement so far */
	uint64_t max_work; /* then no more retries; 0: PLAN_MAX_WORK */
};

/* A table planned for one node, in memory until every table checks. */
struct plan_table {
	uint32_t node;
	char *text;
	size_t len;
	uint32_t *src; /* the topology line behind each line of text */
	uint32_t nsrc;
	const char *file; /* its name in the directory; NULL: NODE.tdp */
	char *path;	  /* once written */
};

/* Reads a topology file ("-": standard input), at most PLAN_MAX_BYTES; errors
 * go to stderr as FILE:LINE: error: ..., counted in pl->errors. 0 or -1.
 * pl->file names it. */
int plan_read(struct plan *pl, const char *path);
/* The same from a stream, and from text in memory. */
int plan_read_stream(struct plan *pl, FILE *f);
int plan_read_text(struct plan *pl, const char *buf, size_t len);
/* Places every flow (paths, alphas, frames), in the order given
 * (sched_plan_place.c says how); a flow that does not fit is an error naming,
 * per path tried, the links and the frames. 0 or -1. */
int plan_place(struct plan *pl);
/* What plan_read and plan_place allocated. */
void plan_free(struct plan *pl);
static inline FILE *plan_err(const struct plan *pl)
{
	return pl->err ? pl->err : stderr;
}
/* "FILE:LINE: error: ..." on plan_err (no LINE when 0), counted. */
void plan_error(struct plan *pl, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* What routers route f's packets by: its match's dst prefix, or else its
 * destination node's name. Flows with the same key take one next hop at each
 * router (sched_plan_place.c). */
void plan_route_key(const struct plan *pl, const struct preq *f, char *out, size_t len);
/* How far apart the frames of the two nodes a link joins may be, either way:
 * both their sync errors and the topology's clock-error. */
uint64_t plan_pair_ns(const struct plan *pl, const struct link *l);
/* True when the frames at the two ends of link l, sent from end d, must
 * line up: a router receives there from a node with a table. */
bool plan_pair_counts(const struct plan *pl, const struct link *l, int d);
/* Frames from a flow's ingress frame to hop h's (the sum of its alphas). */
uint64_t plan_shift(const struct preq *f, uint32_t h);
/* A packet of size bytes on the wire, in bits; a link's room in one frame. */
uint64_t plan_wire_bits(const struct plan *pl, uint32_t size);
uint64_t plan_cap_bits(const struct plan *pl, const struct link *l);
/* The flow's frames at the ingress plus add, as a frame list ("0-3,7"), of
 * any length; the caller frees it. NULL when out of memory. */
char *plan_ingress_frames(const struct plan *pl, const struct preq *f, uint64_t add);
/* True when node x gets a table: a router with a link, or a host that sends. */
bool plan_node_has_table(const struct plan *pl, uint32_t x);
/* Node x's table, checked as tdpd would check it; a table that does not check
 * is reported at the topology lines behind it. 0 or -1. */
int plan_table_build(struct plan *pl, uint32_t x, const char *from, struct plan_table *t);
/* Writes every table into dir as NODE.tdp (or its file): each to a temporary file first,
 * then all renamed, so a failure leaves no table of this plan. 0 or -1. */
int plan_tables_write(struct plan *pl, struct plan_table *t, uint32_t n, const char *dir);
void plan_table_free(struct plan_table *t);

#endif
