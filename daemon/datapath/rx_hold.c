/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_mbuf.h>

#include "counters.h"
#include "rx_hold.h"

bool rx_hold_put(struct rx_hold *h, uint32_t port, int family, const uint8_t nh[16],
		 struct rte_mbuf *m, uint32_t in_port, int64_t now_ns)
{
	struct rx_hold_slot *free_slot = NULL;
	for (uint32_t i = 0; i < RX_HOLD_NEIGH; i++) {
		struct rx_hold_slot *s = &h->s[i];
		if (!s->family) {
			if (!free_slot)
				free_slot = s;
			continue;
		}
		if (s->family != family || s->port != port || memcmp(s->addr, nh, 16) != 0)
			continue;
		if (s->n == RX_HOLD_PKTS) {
			CTR_ADD(h->full, 1);
			return false;
		}
		s->in_port[s->n] = in_port;
		s->m[s->n++] = m;
		CTR_ADD(h->queued, 1);
		return true;
	}
	if (!free_slot) {
		CTR_ADD(h->full, 1);
		return false;
	}
	free_slot->family = (uint8_t)family;
	free_slot->port = port;
	memcpy(free_slot->addr, nh, 16);
	free_slot->since_ns = now_ns;
	free_slot->n = 1;
	free_slot->m[0] = m;
	free_slot->in_port[0] = in_port;
	h->used++;
	CTR_ADD(h->queued, 1);
	return true;
}

uint32_t rx_hold_take(struct rx_hold *h, struct rte_mbuf **m, uint32_t *in_port)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < RX_HOLD_NEIGH && h->used; i++) {
		struct rx_hold_slot *s = &h->s[i];
		if (!s->family)
			continue;
		for (uint8_t k = 0; k < s->n; k++) {
			m[n] = s->m[k];
			in_port[n++] = s->in_port[k];
		}
		s->family = 0;
		s->n = 0;
		h->used--;
	}
	CTR_ADD(h->released, n);
	return n;
}

uint32_t rx_hold_expire(struct rx_hold *h, int64_t now_ns)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < RX_HOLD_NEIGH && h->used; i++) {
		struct rx_hold_slot *s = &h->s[i];
		if (!s->family || now_ns - s->since_ns < RX_HOLD_NS)
			continue;
		for (uint8_t k = 0; k < s->n; k++)
			rte_pktmbuf_free(s->m[k]);
		n += s->n;
		s->family = 0;
		s->n = 0;
		h->used--;
	}
	CTR_ADD(h->expired, n);
	return n;
}
