/* SPDX-License-Identifier: BSD-3-Clause */
/* The table parser's state, shared by its two halves: the lines
 * (sched_parse.c) and the resolution of names and whole-table rules at the
 * end (sched_resolve.c). */
#ifndef TDP_SCHED_PARSE_PRIV_H
#define TDP_SCHED_PARSE_PRIV_H

#include "sched_priv.h"

#define MAX_TOKS 8192

struct parser {
	struct sched_table *t;
	struct sched_diags *d;
	uint32_t line;
	struct sched_tok tok[MAX_TOKS];
	uint32_t ntok;
	/* header lines, 0 when not seen */
	uint32_t l_version, l_tf, l_k, l_epoch, l_guard, l_sync;
	bool said_version; /* the 'must start with' error is given once */
	size_t cap_ports, cap_flows, cap_rules, cap_spans, cap_ent, cap_lines;
	/* flow names of rule entries, resolved at the end: offsets into src */
	uint32_t *ent_name_off;
	uint8_t *ent_name_len;
	size_t cap_col, cap_noff, cap_nlen;
	/* where each flow's port name and size stand, for resolving and messages */
	struct flow_src {
		uint32_t port_off, port_col, size_col, delay_col;
		uint8_t port_len;
	} * fsrc;
	size_t cap_fsrc;
};

/* Names to indexes, the header's whole-table rules, the flows' ports and
 * the rows' flows, every error at its line (sched_resolve.c). */
void sched_resolve(struct parser *p);

#endif
