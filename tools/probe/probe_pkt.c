/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "pkt.h"
#include "probe_pkt.h"
#include "tdp_names.h"

static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, (uint16_t)(v >> 16));
	wr16(p + 2, (uint16_t)v);
}

static inline void wr64(uint8_t *p, uint64_t v)
{
	wr32(p, (uint32_t)(v >> 32));
	wr32(p + 4, (uint32_t)v);
}

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) << 16 | rd16(p + 2);
}

static inline uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) << 32 | rd32(p + 4);
}

/* One's complement sum of 16-bit words; an odd tail is padded with zero. */
static uint32_t sum16(const uint8_t *p, uint32_t len, uint32_t acc)
{
	uint64_t s = acc;
	for (; len >= 2; p += 2, len -= 2)
		s += rd16(p);
	if (len)
		s += (uint32_t)p[0] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Pseudo header sum for the UDP checksum. */
static uint32_t pseudo_sum(const uint8_t *ip, int family, uint32_t udp_len)
{
	uint32_t s;
	if (family == 4)
		s = sum16(ip + 12, 8, 0);
	else
		s = sum16(ip + 8, 32, 0);
	s += 17 + (udp_len & 0xffff) + (udp_len >> 16);
	return s;
}

unsigned probe_min_size(int family, bool vlan)
{
	return 14u + (vlan ? 4u : 0u) + (family == 6 ? 40u : 20u) + 8u + PROBE_HDR_LEN;
}

unsigned probe_min_be_size(int family, bool vlan)
{
	unsigned n = probe_min_size(family, vlan) - PROBE_HDR_LEN + 4;
	return n < 60 ? 60 : n;
}

void probe_hdr_write(uint8_t *p, const struct probe_hdr *h)
{
	wr16(p + PROBE_OFF_MAGIC, PROBE_MAGIC);
	p[PROBE_OFF_VERSION] = h->version;
	p[PROBE_OFF_KIND] =
		(uint8_t)((h->kind & PROBE_KIND_MASK) | (uint8_t)(h->hops << PROBE_HOPS_SHIFT));
	wr32(p + PROBE_OFF_FLOW, h->flow);
	wr32(p + PROBE_OFF_SEQ, h->seq);
	wr32(p + PROBE_OFF_TF, h->tf_ns);
	wr32(p + PROBE_OFF_EPOCH, h->epoch_ns);
	wr64(p + PROBE_OFF_FRAME, (uint64_t)h->frame);
	wr32(p + PROBE_OFF_T1, (uint32_t)h->t1_off);
	for (unsigned i = 0; i < h->room; i++) {
		uint8_t *q = p + PROBE_HDR_LEN + PROBE_STAMP_LEN * i;
		const struct probe_stamp z = {0}, *s = i < h->hops ? &h->stamp[i] : &z;
		wr16(q, s->node);
		q[2] = s->flags;
		q[3] = 0;
		wr32(q + 4, (uint32_t)s->dframe);
		wr32(q + 8, (uint32_t)s->push_off);
	}
}

enum probe_verdict probe_hdr_read(const uint8_t *p, uint32_t len, struct probe_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (len < 2)
		return PROBE_SHORT;
	if (rd16(p) != PROBE_MAGIC)
		return PROBE_FOREIGN;
	if (len >= 4 && (p[3] & 3u) == PROBE_K_BE && len < PROBE_HDR_LEN) {
		/* a short best-effort frame: magic, version and kind only */
		h->version = p[2];
		h->kind = PROBE_K_BE;
		return h->version == PROBE_VERSION && !(p[3] & 0xfc) ? PROBE_OK : PROBE_MALFORMED;
	}
	if (len < PROBE_HDR_LEN)
		return PROBE_SHORT;
	h->version = p[PROBE_OFF_VERSION];
	h->kind = p[PROBE_OFF_KIND] & PROBE_KIND_MASK;
	h->hops = p[PROBE_OFF_KIND] >> PROBE_HOPS_SHIFT;
	uint32_t room = (len - PROBE_HDR_LEN) / PROBE_STAMP_LEN;
	h->room = (uint8_t)(room > PROBE_MAX_HOPS ? PROBE_MAX_HOPS : room);
	h->flow = rd32(p + PROBE_OFF_FLOW);
	h->seq = rd32(p + PROBE_OFF_SEQ);
	h->tf_ns = rd32(p + PROBE_OFF_TF);
	h->epoch_ns = rd32(p + PROBE_OFF_EPOCH);
	h->frame = (int64_t)rd64(p + PROBE_OFF_FRAME);
	h->t1_off = (int32_t)rd32(p + PROBE_OFF_T1);
	if (h->version != PROBE_VERSION || h->kind == 3 || (p[3] & 0x0c) || h->tf_ns == 0 ||
	    h->epoch_ns >= 1000000000u || h->hops > h->room)
		return PROBE_MALFORMED;
	/* start(i) and t1 must be times after 1970 that fit */
	if (h->frame < 0 || h->frame > (INT64_MAX - h->epoch_ns - INT32_MAX) / h->tf_ns)
		return PROBE_MALFORMED;
	for (unsigned i = 0; i < h->hops; i++) {
		const uint8_t *q = p + PROBE_HDR_LEN + PROBE_STAMP_LEN * i;
		h->stamp[i] = (struct probe_stamp){rd16(q), q[2], (int32_t)rd32(q + 4),
						   (int32_t)rd32(q + 8)};
		/* a hop's frame is a frame whose start fits as the probe's does,
		 * so that its push time (start + push offset) fits too */
		int64_t fr = h->frame + h->stamp[i].dframe;
		if (fr < 0 || fr > (INT64_MAX - h->epoch_ns - INT32_MAX) / h->tf_ns)
			return PROBE_MALFORMED;
	}
	return PROBE_OK;
}

int probe_build(struct probe_tmpl *t, const struct probe_addr *a, unsigned size,
		const struct probe_hdr *h)
{
	bool vlan = a->vlan >= 0;
	unsigned min = h->kind == PROBE_K_BE ? probe_min_be_size(a->family, vlan)
					     : probe_min_size(a->family, vlan);
	if ((a->family != 4 && a->family != 6) || size < min || size > PROBE_MAX_SIZE ||
	    a->vlan > 4095 || a->pcp > 7 || a->dscp > 63 || h->tf_ns == 0 || h->kind > 2)
		return -1;
	uint8_t *b = t->buf;
	memset(b, 0, size);
	memcpy(b, a->dst_mac, 6);
	memcpy(b + 6, a->src_mac, 6);
	unsigned off = 12;
	if (vlan) {
		wr16(b + off, 0x8100);
		wr16(b + off + 2, (uint16_t)(a->pcp << 13 | a->vlan));
		off += 4;
	}
	wr16(b + off, a->family == 4 ? 0x0800 : 0x86dd);
	off += 2;
	uint8_t *ip = b + off;
	unsigned iplen = size - off;
	if (a->family == 4) {
		ip[0] = 0x45;
		ip[1] = (uint8_t)(a->dscp << 2);
		wr16(ip + 2, (uint16_t)iplen);
		wr16(ip + 6, 0x4000); /* DF */
		ip[8] = a->ttl;
		ip[9] = 17;
		memcpy(ip + 12, a->src, 4);
		memcpy(ip + 16, a->dst, 4);
		wr16(ip + 10, (uint16_t)~fold(sum16(ip, 20, 0)));
		off += 20;
	} else {
		wr32(ip, 6u << 28 | (uint32_t)a->dscp << 22);
		wr16(ip + 4, (uint16_t)(iplen - 40));
		ip[6] = 17;
		ip[7] = a->ttl;
		memcpy(ip + 8, a->src, 16);
		memcpy(ip + 24, a->dst, 16);
		off += 40;
	}
	uint8_t *udp = b + off;
	uint32_t udp_len = size - off;
	wr16(udp, a->sport);
	wr16(udp + 2, a->dport);
	wr16(udp + 4, (uint16_t)udp_len);
	t->l4_off = (uint16_t)off;
	t->hdr_off = (uint16_t)(off + 8);
	struct probe_hdr hh = *h;
	hh.version = PROBE_VERSION;
	hh.hops = 0;
	hh.seq = 0;
	hh.frame = 0;
	hh.t1_off = 0;
	if (udp_len - 8 >= PROBE_HDR_LEN) {
		uint32_t room = (udp_len - 8 - PROBE_HDR_LEN) / PROBE_STAMP_LEN;
		hh.room = (uint8_t)(room > PROBE_MAX_HOPS ? PROBE_MAX_HOPS : room);
		probe_hdr_write(udp + 8, &hh);
	} else {
		uint8_t tmp[PROBE_HDR_LEN];
		hh.room = 0;
		probe_hdr_write(tmp, &hh);
		memcpy(udp + 8, tmp, udp_len - 8);
	}
	t->len = size;
	t->csum_base = sum16(udp, udp_len, pseudo_sum(ip, a->family, udp_len));
	/* valid as built; probe_stamp fixes it for the fields it writes */
	uint16_t c = (uint16_t)~fold(t->csum_base);
	wr16(udp + 6, c ? c : 0xffff);
	return 0;
}

void probe_stamp(struct probe_tmpl *t, uint8_t *frame, uint32_t seq, int64_t frame_idx,
		 int32_t t1_off)
{
	uint8_t *p = frame + t->hdr_off;
	wr32(p + PROBE_OFF_SEQ, seq);
	wr64(p + PROBE_OFF_FRAME, (uint64_t)frame_idx);
	wr32(p + PROBE_OFF_T1, (uint32_t)t1_off);
	uint64_t s = t->csum_base;
	s += (seq >> 16) + (seq & 0xffff);
	uint64_t f = (uint64_t)frame_idx;
	s += (f >> 48) + ((f >> 32) & 0xffff) + ((f >> 16) & 0xffff) + (f & 0xffff);
	uint32_t o = (uint32_t)t1_off;
	s += (o >> 16) + (o & 0xffff);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	uint16_t c = (uint16_t)~s;
	wr16(frame + t->l4_off + 6, c ? c : 0xffff);
}

enum probe_verdict probe_decode(const uint8_t *frame, uint32_t len, uint16_t port,
				struct probe_hdr *h)
{
	memset(h, 0, sizeof(*h));
	struct pkt_info pi;
	int rc = pkt_parse(frame, len, &pi);
	if (rc == PKT_RUNT)
		return PROBE_SHORT;
	if (rc != PKT_OK)
		return PROBE_MALFORMED;
	if (!(pi.flags & PKT_F_UDP))
		return PROBE_FOREIGN;
	const uint8_t *udp = frame + pi.l4_off;
	uint32_t avail = (uint32_t)pi.l3_off + pi.l3_len - pi.l4_off;
	/* best effort is recognised on any port: a flood goes where the probes do not */
	if (port && pi.udp_dport != port &&
	    !(avail >= 12 && rd16(udp + 8) == PROBE_MAGIC && (udp[11] & 3u) == PROBE_K_BE))
		return PROBE_FOREIGN;
	uint32_t udp_len = rd16(udp + 4);
	if (udp_len < 8 || udp_len > avail)
		return avail >= 10 && rd16(udp + 8) == PROBE_MAGIC ? PROBE_MALFORMED
								   : PROBE_FOREIGN;
	enum probe_verdict v = probe_hdr_read(udp + 8, udp_len - 8, h);
	if (v != PROBE_OK)
		return v;
	if (rd16(udp + 6) != 0) {
		const uint8_t *ip = frame + pi.l3_off;
		if (fold(sum16(udp, udp_len, pseudo_sum(ip, pi.family, udp_len))) != 0xffff)
			return PROBE_MALFORMED;
	}
	return PROBE_OK;
}

const char *probe_verdict_name(enum probe_verdict v)
{
	static const char *const n[] = {[PROBE_OK] = "ok",
					[PROBE_FOREIGN] = "foreign",
					[PROBE_SHORT] = "short",
					[PROBE_MALFORMED] = "malformed"};
	return TDP_NAME_OF(n, v, "?");
}

const char *probe_kind_name(unsigned kind)
{
	static const char *const n[] = {"probe", "end", "best-effort", "?"};
	return n[kind & 3u];
}
