/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the control side builds for RX and reads of it, off the data path:
 * RX's half of a table (one struct rx_flow per flow, for each core), the
 * drops' names, and the sums of the RX cores' counters.
 */
#include <string.h>

#include "bigmem.h"
#include "counters.h"
#include "rx.h"
#include "tdp_names.h"

const char *rx_drop_name(enum rx_drop d)
{
	static const char *const n[RXD_MAX] = {
		[RXD_RUNT] = "runt",
		[RXD_MALFORMED] = "malformed",
		[RXD_NO_ROUTE] = "no-route",
		[RXD_NO_NEIGH] = "no-neighbour",
		[RXD_HOST] = "host",
		[RXD_TTL] = "ttl-expired",
		[RXD_OWN] = "own",
		[RXD_WRONG_PORT] = "flow-route-mismatch",
		[RXD_BE_OVERFLOW] = "be-overflow",
		[RXD_TX_FULL] = "tx-full",
		[RXD_OTHER_HOST] = "other-host",
		[RXD_TOO_BIG] = "too-big",
		[RXD_LINK_DOWN] = "link-down",
	};
	return TDP_NAME_OF(n, d, "unknown");
}

void rx_sum(const struct rx *rx, uint32_t n, struct rx_stats *st)
{
	memset(st, 0, sizeof(*st));
	uint64_t *o = (uint64_t *)st;
	for (uint32_t c = 0; c < n; c++) {
		const uint64_t *a = (const uint64_t *)&rx[c].st;
		for (size_t i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
			o[i] += __atomic_load_n(&a[i], __ATOMIC_RELAXED);
	}
}

void rx_tap_sum(const struct rx *rx, uint32_t n, uint32_t port, struct rx_tap_stats *ts)
{
	memset(ts, 0, sizeof(*ts));
	for (uint32_t c = 0; c < n; c++) {
		const struct rx_tap_stats *a = &rx[c].ports[port].tap;
#define ADD(field, key, help) ts->field += CTR_GET(a->field);
		CTL_TAP_COUNTERS(ADD)
#undef ADD
	}
}

int rx_table_init(struct rx_table *rt, const struct cls *c, const struct sched_table *t)
{
	*rt = (struct rx_table){.cls = c, .t = t, .ask_apart = cls_bytes(c) >= RX_ASK_APART};
	rt->flows = bigmem_calloc(t->nflows + 1, sizeof(*rt->flows));
	return rt->flows ? 0 : -1;
}

void rx_table_set(struct rx_table *rt, uint32_t f, struct flow_rx *q)
{
	const struct sched_flow *sf = &rt->t->flows[f];
	rt->flows[f] = (struct rx_flow){
		.q = q, .delay_ns = sf->delay_ns, .alpha = sf->alpha, .port = sf->port};
}

void rx_table_fini(struct rx_table *rt)
{
	bigmem_free(rt->flows);
	rt->flows = NULL;
}
