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
#define PLAN_MAX_K 100000
#define PLAN_MAX_PATH 32
#define PATH_MAX_PLAN 512

struct node {
	char name[SCHED_NAME_MAX];
	bool router;
	uint32_t id, min_alpha;
	uint64_t proc_ns;
	uint32_t line;
};

struct end {
	uint32_t node;
	char port[SCHED_NAME_MAX];
};

struct link {
	struct end e[2];
	uint64_t rate_bps, delay_ns;
	uint32_t line;
	uint64_t *used[2];       /* bits reserved per frame, per direction (from e[d]) */
};

struct preq {
	char name[SCHED_NAME_MAX];
	uint32_t src, dst;
	uint32_t path[PLAN_MAX_PATH], npath;  /* nodes, src first */
	bool explicit_path;
	uint32_t packets, size;
	bool stamp;
	uint8_t *frames;         /* ingress frames allowed; NULL: all */
	char match[200];
	uint32_t line;
	/* planned */
	uint32_t link[PLAN_MAX_PATH];      /* link from path[h] to path[h+1] */
	uint8_t dir[PLAN_MAX_PATH];
	uint32_t alpha[PLAN_MAX_PATH];     /* alpha[h] for router path[h], h >= 1 */
	uint32_t *count;                   /* packets per ingress frame, k */
};

struct plan {
	const char *file;
	uint64_t tf_ns, guard_ns, epoch_ns, clock_err_ns;
	uint32_t k;
	uint32_t overhead;
	struct node nodes[PLAN_MAX_NODES];
	uint32_t nnodes;
	struct link links[PLAN_MAX_LINKS];
	uint32_t nlinks;
	struct preq flows[PLAN_MAX_FLOWS];
	uint32_t nflows;
	int errors;
};

/* Reads a topology file ("-": standard input); errors go to stderr as
 * FILE:LINE: error: ..., counted in pl->errors. 0 or -1. pl->file names it. */
int plan_read(struct plan *pl, const char *path);
/* The same from a stream. */
int plan_read_stream(struct plan *pl, FILE *f);
/* Places every flow (paths, alphas, frames), in the order given; a flow
 * that does not fit is an error naming the link and the frames. 0 or -1. */
int plan_place(struct plan *pl);
/* What plan_read and plan_place allocated. */
void plan_free(struct plan *pl);

/* Frames from a flow's ingress frame to hop h's (the sum of its alphas). */
uint64_t plan_shift(const struct preq *f, uint32_t h);
/* A packet of size bytes on the wire, in bits; a link's room in one frame. */
uint64_t plan_wire_bits(const struct plan *pl, uint32_t size);
uint64_t plan_cap_bits(const struct plan *pl, const struct link *l);
/* The flow's frames at the ingress plus add, as a frame list ("0-3,7"). */
void plan_ingress_frames(const struct plan *pl, const struct preq *f, uint64_t add, char *out, size_t len);
/* Writes node x's table into dir (checked as tdpd would first); its path in path. 0 or -1. */
int plan_write_table(const struct plan *pl, uint32_t x, const char *dir, const char *from, char *path, size_t plen);
/* True when node x gets a table: a router with a link, or a host that sends. */
bool plan_node_has_table(const struct plan *pl, uint32_t x);

#endif
