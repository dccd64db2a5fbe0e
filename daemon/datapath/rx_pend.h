/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RX's best-effort rings of one burst (rx.c only): what the burst's packets
 * go in, grouped by ring and put in at the burst's end.
 */
#ifndef TDP_RX_PEND_H
#define TDP_RX_PEND_H

#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "counters.h"
#include "rx.h"

#define RX_PEND_BITS 7
#define RX_PEND_SLOTS (1u << RX_PEND_BITS)
_Static_assert(RX_PEND_SLOTS >= 2 * RX_BURST, "a burst's groups fill at most half the index");

/*
 * What one burst queues as best effort, grouped by ring: each group goes in
 * with one enqueue at the burst's end (a ring shared by RX cores publishes
 * its tail once per group, not once a packet), in the order its packets
 * came. A reserved packet goes straight into its flow's queue, which has no
 * other writer (rx.c).
 */
struct rx_group {
	struct rte_ring *q;
	uint16_t n;
	uint8_t h; /* its slot in rx_pend's index */
	struct rte_mbuf *m[RX_BURST];
};

struct rx_pend {
	uint16_t ng;
	/* the groups by their ring's address: index + 1, 0 empty (linear
	 * probing; at most RX_BURST of RX_PEND_SLOTS taken) */
	uint8_t ix[RX_PEND_SLOTS];
	struct rx_group g[RX_BURST];
};

static inline void pend_init(struct rx_pend *pd)
{
	pd->ng = 0;
	memset(pd->ix, 0, sizeof(pd->ix));
}

static inline void pend_add(struct rx_pend *pd, struct rte_ring *q, struct rte_mbuf *m)
{
	uint32_t h = (uint32_t)(((uintptr_t)q >> 6) * 0x9E3779B1u) >> (32 - RX_PEND_BITS);
	uint16_t i;
	for (;;) {
		i = pd->ix[h];
		if (!i) {
			i = pd->ng++;
			pd->ix[h] = (uint8_t)(i + 1);
			pd->g[i].h = (uint8_t)h;
			pd->g[i].q = q;
			pd->g[i].n = 0;
			break;
		}
		i--;
		if (pd->g[i].q == q)
			break;
		h = (h + 1) & (RX_PEND_SLOTS - 1);
	}
	pd->g[i].m[pd->g[i].n++] = m;
}

static inline void pend_flush(struct rx *rx, struct rx_pend *pd)
{
	for (uint16_t i = 0; i < pd->ng; i++) {
		struct rx_group *g = &pd->g[i];
		unsigned k = rte_ring_enqueue_burst(g->q, (void *const *)g->m, g->n, NULL);
		for (unsigned x = k; x < g->n; x++)
			rte_pktmbuf_free(g->m[x]);
		CTR_ADD(rx->st.best_effort, k);
		if (k < g->n)
			CTR_ADD(rx->st.drop[RXD_BE_OVERFLOW], g->n - k);
	}
	for (uint16_t i = 0; i < pd->ng; i++)
		pd->ix[pd->g[i].h] = 0;
	pd->ng = 0;
}

#endif
