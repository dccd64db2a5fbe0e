/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "pkt.h"

#define ETH_HLEN 14
#define ET_IPV4 0x0800
#define ET_IPV6 0x86dd
#define ET_VLAN 0x8100
#define ET_QINQ 0x88a8
#define ET_MPLS 0x8847
#define IPPROTO_UDP_ 17

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static int parse_ip4(const uint8_t *p, uint32_t len, uint32_t off, struct pkt_info *pi)
{
	if (len < off + 20)
		return PKT_RUNT;
	const uint8_t *h = p + off;
	unsigned ihl = (h[0] & 15u) * 4;
	if ((h[0] >> 4) != 4 || ihl < 20)
		return PKT_BAD_IP;
	uint16_t tot = rd16(h + 2);
	if (tot < ihl || off + tot > len)
		return tot < ihl ? PKT_BAD_IP : PKT_RUNT;
	pi->family = 4;
	pi->l3_off = (uint16_t)off;
	pi->l3_len = tot;
	pi->dscp = h[1] >> 2;
	pi->ttl = h[8];
	memcpy(pi->dst, h + 16, 4);
	memcpy(pi->src, h + 12, 4);
	pi->proto = h[9];
	uint16_t frag = rd16(h + 6);
	if (frag & 0x1fff)
		pi->flags |= PKT_F_FRAG;
	else if (tot > ihl)
		pi->l4p_off = (uint16_t)(off + ihl);
	if (!(frag & 0x1fff) && h[9] == IPPROTO_UDP_ && tot >= ihl + 8) {
		pi->flags |= PKT_F_UDP;
		pi->udp_dport = rd16(h + ihl + 2);
		pi->l4_off = (uint16_t)(off + ihl);
	}
	return PKT_OK;
}

static int parse_ip6(const uint8_t *p, uint32_t len, uint32_t off, struct pkt_info *pi)
{
	if (len < off + 40)
		return PKT_RUNT;
	const uint8_t *h = p + off;
	if ((h[0] >> 4) != 6)
		return PKT_BAD_IP;
	uint32_t tot = 40u + rd16(h + 4);
	if (off + tot > len)
		return PKT_RUNT;
	pi->family = 6;
	pi->l3_off = (uint16_t)off;
	pi->l3_len = (uint16_t)(tot > 0xffff ? 0xffff : tot);
	pi->dscp = (uint8_t)(((h[0] & 15u) << 2) | (h[1] >> 6));
	pi->ttl = h[7];
	memcpy(pi->dst, h + 24, 16);
	memcpy(pi->src, h + 8, 16);
	uint8_t nh = h[6];
	uint32_t at = 40;
	/* hop-by-hop (0), routing (43), destination options (60) */
	for (int i = 0; i < 4 && (nh == 0 || nh == 43 || nh == 60); i++) {
		if (at + 8 > tot)
			return PKT_OK;
		uint32_t l = 8u + h[at + 1] * 8u;
		nh = h[at];
		at += l;
	}
	if (nh != 0 && nh != 43 && nh != 60 && at < tot) {
		pi->proto = nh;
		pi->l4p_off = (uint16_t)(off + at);
	}
	if (nh == IPPROTO_UDP_ && at + 8 <= tot) {
		pi->flags |= PKT_F_UDP;
		pi->udp_dport = rd16(h + at + 2);
		pi->l4_off = (uint16_t)(off + at);
	}
	return PKT_OK;
}

int pkt_parse(const uint8_t *p, uint32_t len, struct pkt_info *pi)
{
	memset(pi, 0, sizeof(*pi));
	if (len < ETH_HLEN)
		return PKT_RUNT;
	uint32_t off = 12;
	uint16_t et = rd16(p + off);
	for (int tags = 0; tags < 2 && (et == ET_VLAN || et == ET_QINQ); tags++) {
		if (len < off + 6)
			return PKT_RUNT;
		if (!(pi->flags & PKT_F_VLAN)) {
			uint16_t tci = rd16(p + off + 2);
			pi->flags |= PKT_F_VLAN;
			pi->vlan = tci & 0xfff;
			pi->pcp = (uint8_t)(tci >> 13);
		}
		off += 4;
		et = rd16(p + off);
	}
	off += 2;
	pi->ethertype = et;
	if (et == ET_MPLS) {
		bool bos = false;
		for (int i = 0; i < 16 && !bos; i++) {
			if (len < off + 4)
				return PKT_RUNT;
			uint32_t e = (uint32_t)rd16(p + off) << 16 | rd16(p + off + 2);
			if (i == 0) {
				pi->flags |= PKT_F_MPLS;
				pi->mpls = e >> 12;
			}
			bos = e & 0x100;
			off += 4;
		}
		if (!bos)
			return PKT_BAD_MPLS;
		if (len <= off)
			return PKT_OK;   /* empty payload under the label: still a labelled packet */
		switch (p[off] >> 4) {
		case 4: return parse_ip4(p, len, off, pi);
		case 6: return parse_ip6(p, len, off, pi);
		default: return PKT_OK;
		}
	}
	if (et == ET_IPV4)
		return parse_ip4(p, len, off, pi);
	if (et == ET_IPV6)
		return parse_ip6(p, len, off, pi);
	return PKT_OK;
}

const char *pkt_err_name(int err)
{
	switch (err) {
	case PKT_OK: return "ok";
	case PKT_RUNT: return "runt";
	case PKT_BAD_IP: return "bad-ip";
	case PKT_BAD_MPLS: return "bad-mpls";
	default: return "unknown";
	}
}

/* ---- classification --------------------------------------------------- */

struct cls_key {
	uint32_t mpls;
	uint16_t vlan, udp;
	uint8_t dscp, pcp, family, pad;
	uint8_t dst[16];
};

struct cls_slot {
	struct cls_key key;
	int32_t flow;           /* -1 when empty */
};

struct cls_group {
	uint32_t fields;
	uint8_t family, dst_len;
	uint32_t mask;          /* slots - 1 */
	struct cls_slot *slot;
};

struct cls {
	uint32_t ngroups;
	struct cls_group *g;
};

/* multiply-xorshift over the key's 32-bit words: a few cycles, well mixed */
static uint64_t key_hash(const struct cls_key *k)
{
	uint32_t w[sizeof(*k) / 4];
	memcpy(w, k, sizeof(w));
	uint64_t h = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		h = (h ^ w[i]) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

static void mask_prefix(uint8_t *dst, unsigned len)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned bits = len > i * 8 ? len - i * 8 : 0;
		if (bits < 8)
			dst[i] &= (uint8_t)(0xff00u >> bits);
	}
}

/* Builds the key a packet has in group g; false when it lacks a field. */
static bool pkt_key(const struct cls_group *g, const struct pkt_info *pi, struct cls_key *k)
{
	memset(k, 0, sizeof(*k));
	uint32_t f = g->fields;
	if (f & (SCHED_M_VLAN | SCHED_M_PCP)) {
		if (!(pi->flags & PKT_F_VLAN))
			return false;
		if (f & SCHED_M_VLAN)
			k->vlan = pi->vlan;
		if (f & SCHED_M_PCP)
			k->pcp = pi->pcp;
	}
	if (f & SCHED_M_MPLS) {
		if (!(pi->flags & PKT_F_MPLS))
			return false;
		k->mpls = pi->mpls;
	}
	if (f & SCHED_M_DSCP) {
		if (!pi->family)
			return false;
		k->dscp = pi->dscp;
	}
	if (f & SCHED_M_UDP_DPORT) {
		if (!(pi->flags & PKT_F_UDP))
			return false;
		k->udp = pi->udp_dport;
	}
	if (f & SCHED_M_DST) {
		if (pi->family != g->family)
			return false;
		k->family = g->family;
		memcpy(k->dst, pi->dst, g->family == 4 ? 4 : 16);
		mask_prefix(k->dst, g->dst_len);
	}
	return true;
}

static void flow_key(const struct sched_match *m, struct cls_key *k)
{
	memset(k, 0, sizeof(*k));
	if (m->fields & SCHED_M_VLAN)
		k->vlan = m->vlan;
	if (m->fields & SCHED_M_PCP)
		k->pcp = m->pcp;
	if (m->fields & SCHED_M_MPLS)
		k->mpls = m->mpls;
	if (m->fields & SCHED_M_DSCP)
		k->dscp = m->dscp;
	if (m->fields & SCHED_M_UDP_DPORT)
		k->udp = m->udp_dport;
	if (m->fields & SCHED_M_DST) {
		k->family = m->dst_family;
		memcpy(k->dst, m->dst, 16);
		mask_prefix(k->dst, m->dst_len);
	}
}

static bool same_shape(const struct cls_group *g, const struct sched_match *m)
{
	if (g->fields != m->fields)
		return false;
	if (!(m->fields & SCHED_M_DST))
		return true;
	return g->family == m->dst_family && g->dst_len == m->dst_len;
}

void cls_free(struct cls *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->ngroups; i++)
		free(c->g[i].slot);
	free(c->g);
	free(c);
}

struct cls *cls_build(const struct sched_table *t)
{
	struct cls *c = calloc(1, sizeof(*c));
	uint32_t *count = calloc(t->nflows + 1, sizeof(*count));
	uint32_t *gof = calloc(t->nflows + 1, sizeof(*gof));
	if (!c || !count || !gof)
		goto fail;
	c->g = calloc(t->nflows + 1, sizeof(*c->g));
	if (!c->g)
		goto fail;
	for (uint32_t f = 0; f < t->nflows; f++) {
		const struct sched_match *m = &t->flows[f].match;
		uint32_t g = 0;
		while (g < c->ngroups && !same_shape(&c->g[g], m))
			g++;
		if (g == c->ngroups) {
			c->g[g].fields = m->fields;
			c->g[g].family = (m->fields & SCHED_M_DST) ? m->dst_family : 0;
			c->g[g].dst_len = (m->fields & SCHED_M_DST) ? m->dst_len : 0;
			c->ngroups++;
		}
		gof[f] = g;
		count[g]++;
	}
	for (uint32_t g = 0; g < c->ngroups; g++) {
		uint32_t slots = 4;
		while (slots < 2 * count[g])
			slots <<= 1;
		c->g[g].mask = slots - 1;
		c->g[g].slot = malloc(slots * sizeof(struct cls_slot));
		if (!c->g[g].slot)
			goto fail;
		for (uint32_t s = 0; s < slots; s++)
			c->g[g].slot[s].flow = -1;
	}
	for (uint32_t f = 0; f < t->nflows; f++) {
		struct cls_group *g = &c->g[gof[f]];
		struct cls_key k;
		flow_key(&t->flows[f].match, &k);
		uint32_t s = (uint32_t)key_hash(&k) & g->mask;
		while (g->slot[s].flow >= 0)
			s = (s + 1) & g->mask;
		g->slot[s].key = k;
		g->slot[s].flow = (int32_t)f;
	}
	free(count);
	free(gof);
	return c;
fail:
	free(count);
	free(gof);
	cls_free(c);
	return NULL;
}

int cls_lookup(const struct cls *c, const struct pkt_info *pi)
{
	for (uint32_t i = 0; i < c->ngroups; i++) {
		const struct cls_group *g = &c->g[i];
		struct cls_key k;
		if (!pkt_key(g, pi, &k))
			continue;
		uint32_t s = (uint32_t)key_hash(&k) & g->mask;
		while (g->slot[s].flow >= 0) {
			if (memcmp(&g->slot[s].key, &k, sizeof(k)) == 0)
				return g->slot[s].flow;
			s = (s + 1) & g->mask;
		}
	}
	return -1;
}

uint32_t cls_groups(const struct cls *c)
{
	return c->ngroups;
}

/* ---- forwarding rewrite ----------------------------------------------- */

uint16_t pkt_ip4_csum(const uint8_t *hdr, unsigned len)
{
	uint32_t sum = 0;
	for (unsigned i = 0; i + 1 < len; i += 2)
		sum += rd16(hdr + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

int pkt_forward(uint8_t *frame, const struct pkt_info *pi, const uint8_t src[6], const uint8_t dst[6])
{
	/* a labelled packet is switched on its label; its IP header is left alone */
	bool ip = pi->family && !(pi->flags & PKT_F_MPLS);
	if (ip && pi->ttl <= 1)
		return -1;
	memcpy(frame, dst, 6);
	memcpy(frame + 6, src, 6);
	if (!ip)
		return 0;
	uint8_t *h = frame + pi->l3_off;
	if (pi->family == 4) {
		/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') over the TTL/protocol word */
		uint16_t old = rd16(h + 8);
		h[8]--;
		uint16_t new = rd16(h + 8);
		uint32_t sum = (uint16_t)~rd16(h + 10) + (uint32_t)(uint16_t)~old + new;
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		uint16_t c = (uint16_t)~sum;
		h[10] = (uint8_t)(c >> 8);
		h[11] = (uint8_t)c;
	} else if (pi->family == 6) {
		h[7]--;
	}
	return 0;
}
