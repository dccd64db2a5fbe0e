/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The XDP program tdpd loads on each net_af_xdp port through the PMD's
 * xdp_prog argument. It decides per frame who gets it: the kernel (XDP_PASS)
 * for what belongs to the router's host stack, tdpd's AF_XDP socket on the
 * frame's queue for the rest. The rule is punt_classify()'s in
 * daemon/core/punt.c plus the router's own addresses from tdp_local; the two
 * are held to the same answers by tests/unit/test_punt.c.
 *
 * A frame for tdpd on a queue without a socket is dropped and counted
 * (TDP_XDP_NO_SOCKET): it reaches neither side by accident.
 *
 * Maps (names are the interface to tdpd and to the PMD):
 *  xsks_map    the PMD puts each queue's socket at its queue index;
 *  tdp_local   the router's own addresses, family + 16 bytes; tdpd fills it;
 *  tdp_stats   per-CPU frame counts by outcome (enum below).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

enum {
	TDP_XDP_TO_TDPD,
	TDP_XDP_NO_SOCKET,
	TDP_XDP_ARP,
	TDP_XDP_ND,
	TDP_XDP_PTP,
	TDP_XDP_LINK,
	TDP_XDP_LOCAL,
	TDP_XDP_NSTATS
};

struct tdp_addr {
	__u8 family; /* 4 or 6 */
	__u8 pad[3];
	__u8 a[16]; /* IPv4 in the first 4 bytes, the rest zero */
};

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct tdp_addr);
	__type(value, __u32);
} tdp_local SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TDP_XDP_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} tdp_stats SEC(".maps");

static __always_inline int count(__u32 what, int action)
{
	__u64 *c = bpf_map_lookup_elem(&tdp_stats, &what);
	if (c)
		*c += 1;
	return action;
}

static __always_inline int local(__u8 family, const void *addr, __u32 n)
{
	struct tdp_addr k = {.family = family};
	__builtin_memcpy(k.a, addr, 16);
	if (n == 4)
		__builtin_memset(k.a + 4, 0, 12);
	return bpf_map_lookup_elem(&tdp_local, &k) != NULL;
}

/* PTP's ports; the callers require a multicast destination, as punt.c does */
static __always_inline int ptp_port(__u16 dport_be)
{
	return dport_be == bpf_htons(319) || dport_be == bpf_htons(320);
}

/* Past up to two VLAN tags, as pkt_parse reads them: the L3 header and its
 * ethertype in *et, or NULL when the frame ends first. */
static __always_inline void *vlan_skip(struct ethhdr *eth, void *end, __u16 *et)
{
	void *p = eth + 1;
	*et = eth->h_proto;
#pragma unroll
	for (int i = 0; i < 2; i++) {
		if (*et != bpf_htons(0x8100) && *et != bpf_htons(0x88a8))
			break;
		if (p + 4 > end)
			return NULL;
		*et = *(__u16 *)(p + 2);
		p += 4;
	}
	return p;
}

/* An IPv4 packet the host takes (PTP to a multicast group, link scope,
 * broadcast, the router's own address): its counter; 0 (TDP_XDP_TO_TDPD)
 * for tdpd. */
static __always_inline __u32 ipv4_host(__u8 *ip, void *end)
{
	if ((void *)(ip + 20) > end || (ip[0] >> 4) != 4)
		return TDP_XDP_TO_TDPD;
	__u32 ihl = (ip[0] & 15u) * 4;
	__u16 frag = *(__u16 *)(ip + 6);
	if (ihl >= 20 && ihl <= 60 && ip[9] == 17 && !(frag & bpf_htons(0x1fff)) &&
	    (ip[16] & 0xf0) == 224) {
		__u8 *udp = ip + ihl;
		if ((void *)(udp + 4) <= end && ptp_port(*(__u16 *)(udp + 2)))
			return TDP_XDP_PTP;
	}
	__u8 *d = ip + 16;
	if ((d[0] == 224 && d[1] == 0 && d[2] == 0) || (d[0] & d[1] & d[2] & d[3]) == 255)
		return TDP_XDP_LINK;
	return local(4, d, 4) ? TDP_XDP_LOCAL : TDP_XDP_TO_TDPD;
}

/* The same for IPv6, past its extension headers, with ND */
static __always_inline __u32 ipv6_host(__u8 *ip, void *end)
{
	if ((void *)(ip + 40) > end || (ip[0] >> 4) != 6)
		return TDP_XDP_TO_TDPD;
	__u8 nh = ip[6];
	__u8 *l4 = ip + 40;
	/* hop-by-hop, routing and destination options, as pkt_parse skips them */
#pragma unroll
	for (int i = 0; i < 4; i++) {
		if (nh != 0 && nh != 43 && nh != 60)
			break;
		if ((void *)(l4 + 8) > end)
			return TDP_XDP_TO_TDPD;
		nh = l4[0];
		l4 += 8 + l4[1] * 8;
	}
	if (nh == 17 && ip[24] == 0xff && (void *)(l4 + 4) <= end && ptp_port(*(__u16 *)(l4 + 2)))
		return TDP_XDP_PTP;
	if (nh == 58 && (void *)(l4 + 1) <= end && l4[0] >= 133 && l4[0] <= 137)
		return TDP_XDP_ND;
	__u8 *d = ip + 24;
	if ((d[0] == 0xfe && (d[1] & 0xc0) == 0x80) || (d[0] == 0xff && (d[1] & 0x0f) <= 2))
		return TDP_XDP_LINK;
	return local(6, d, 16) ? TDP_XDP_LOCAL : TDP_XDP_TO_TDPD;
}

SEC("xdp")
int tdpd_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 host = TDP_XDP_TO_TDPD;
	__u16 et = 0;
	void *p = (void *)(eth + 1) > end ? NULL : vlan_skip(eth, end, &et);
	if (!p)
		host = TDP_XDP_TO_TDPD;
	else if (et == bpf_htons(0x0806))
		host = TDP_XDP_ARP;
	else if (et == bpf_htons(0x88f7))
		host = TDP_XDP_PTP;
	else if (et == bpf_htons(0x0800))
		host = ipv4_host(p, end);
	else if (et == bpf_htons(0x86dd))
		host = ipv6_host(p, end);
	if (host != TDP_XDP_TO_TDPD)
		return count(host, XDP_PASS);
	__u32 q = ctx->rx_queue_index;
	if (!bpf_map_lookup_elem(&xsks_map, &q))
		return count(TDP_XDP_NO_SOCKET, XDP_DROP);
	count(TDP_XDP_TO_TDPD, 0);
	return bpf_redirect_map(&xsks_map, q, XDP_DROP);
}

char _license[] SEC("license") = "Dual BSD/GPL";
