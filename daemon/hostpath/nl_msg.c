/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel's rtnetlink messages read into the netlink thread's sets:
 * routes of the main table out of the ports' interfaces (with every next hop
 * of a multipath route on a port), nexthop objects and groups, neighbours,
 * addresses, and the ports' links (up, carrier, MTU), which are logged and
 * published to the port's struct port_link.
 */
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "log.h"
#include "nl_priv.h"
#include "tdp_time.h"

/* linux/if.h's, which cannot be included beside net/if.h */
#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP (1 << 16)
#endif

static int port_of(const struct nl *n, int ifindex)
{
	for (uint32_t p = 0; p < n->nports; p++)
		if (n->hp[p].ifindex && (int)n->hp[p].ifindex == ifindex)
			return (int)p;
	return -1;
}

/* zeroed whole, padding too: entries are compared with memcmp */
static void kent_init(struct kent *k, uint8_t family, uint32_t port)
{
	memset(k, 0, sizeof(*k));
	k->family = family;
	k->port = port;
}

/* an entry's identity: family, address and length (and metric for
 * routes, id for nexthops), hashed */
static uint32_t kent_hash(const struct kent *k)
{
	uint8_t b[22];
	b[0] = k->family;
	b[1] = k->len;
	memcpy(b + 2, &k->metric, 4);
	memcpy(b + 6, k->addr, 16);
	return keyidx_hash(b, sizeof(b));
}

struct kwant {
	const struct kset *s;
	const struct kent *k;
};

static bool kent_same(const void *ctx, uint32_t pos)
{
	const struct kwant *w = ctx;
	const struct kent *e = &w->s->v[pos], *k = w->k;
	return e->family == k->family && e->len == k->len && e->metric == k->metric &&
	       memcmp(e->addr, k->addr, 16) == 0;
}

struct kent *nl_kfind(struct kset *s, const struct kent *k)
{
	struct kwant w = {s, k};
	uint32_t pos = keyidx_find(&s->idx, kent_hash(k), kent_same, &w);
	return pos == KEYIDX_NONE ? NULL : &s->v[pos];
}

void nl_kclear(struct kset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].x);
	s->n = 0;
	keyidx_clear(&s->idx);
}

void nl_kfree(struct kset *s)
{
	nl_kclear(s);
	free(s->v);
	keyidx_free(&s->idx);
	*s = (struct kset){0};
}

/* the same entry, next hops and all */
static bool kent_equal(const struct kent *a, const struct kent *b)
{
	if (memcmp(a, b, offsetof(struct kent, x)) != 0)
		return false;
	return a->x == b->x || (a->x && b->x && memcmp(a->x, b->x, sizeof(*a->x)) == 0);
}

static void kset_oom(struct kent *k)
{
	log_warn("kernel routes: out of memory; an entry is not followed");
	free(k->x);
}

/* Adds, replaces or (!add) removes k in s; takes k's next hops (k->x)
 * either way. */
static void kset_put(struct nl *n, struct kset *s, struct kent *k, bool add)
{
	struct kent *e = nl_kfind(s, k);
	if (!add) {
		if (e) {
			/* the last entry fills the hole */
			uint32_t at = (uint32_t)(e - s->v), last = (uint32_t)s->n - 1;
			keyidx_del(&s->idx, kent_hash(e), at);
			free(e->x);
			if (at != last) {
				keyidx_moved(&s->idx, kent_hash(&s->v[last]), last, at);
				*e = s->v[last];
			}
			s->n--;
			n->dirty = true;
		}
		free(k->x);
		return;
	}
	if (e) {
		if (!kent_equal(e, k)) {
			free(e->x);
			*e = *k;
			n->dirty = true;
		} else {
			free(k->x);
		}
		return;
	}
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 32;
		struct kent *v = realloc(s->v, nc * sizeof(*v));
		if (!v) {
			kset_oom(k);
			return;
		}
		s->v = v;
		s->cap = nc;
	}
	if (keyidx_put(&s->idx, kent_hash(k), (uint32_t)s->n) != 0) {
		kset_oom(k);
		return;
	}
	s->v[s->n++] = *k;
	n->dirty = true;
}

static void parse_attrs(struct rtattr *tb[], int max, struct rtattr *rta, int len)
{
	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type <= max)
			tb[rta->rta_type] = rta;
}

static void copy_addr(uint8_t dst[16], const struct rtattr *a, unsigned alen)
{
	memset(dst, 0, 16);
	if (a && RTA_PAYLOAD(a) >= alen)
		memcpy(dst, RTA_DATA(a), alen);
}

/* Adds a next hop to k when it leaves by one of our ports; the others are
 * not tdpd's to use (the kernel forwards nothing of tdpd's ports). */
static void add_hop(const struct nl *n, struct kent *k, int oif, const struct rtattr *gw,
		    unsigned alen)
{
	int p = port_of(n, oif);
	if (p < 0 || k->nnh >= ROUTE_MAX_NH)
		return;
	if (k->nnh == 0) {
		k->port = (uint32_t)p;
		k->has_gw = gw != NULL;
		copy_addr(k->gw, gw, alen);
	} else {
		if (!k->x && !(k->x = calloc(1, sizeof(*k->x))))
			return; /* out of memory: the hops so far */
		struct route_nh *h = &k->x->more[k->nnh - 1];
		h->port = (uint32_t)p;
		h->has_gw = gw != NULL;
		copy_addr(h->gw, gw, alen);
	}
	k->nnh++;
}

static void on_route(struct nl *n, struct nlmsghdr *h)
{
	struct rtmsg *rm = NLMSG_DATA(h);
	struct rtattr *tb[RTA_MAX + 1];
	parse_attrs(tb, RTA_MAX, RTM_RTA(rm), (int)RTM_PAYLOAD(h));
	uint32_t table = tb[RTA_TABLE] ? *(uint32_t *)RTA_DATA(tb[RTA_TABLE]) : rm->rtm_table;
	if ((rm->rtm_family != AF_INET && rm->rtm_family != AF_INET6) || table != RT_TABLE_MAIN ||
	    rm->rtm_type != RTN_UNICAST)
		return;
	unsigned alen = rm->rtm_family == AF_INET ? 4 : 16;
	struct kent k;
	kent_init(&k, rm->rtm_family == AF_INET ? 4 : 6, 0);
	k.len = rm->rtm_dst_len;
	k.proto = rm->rtm_protocol;
	copy_addr(k.addr, tb[RTA_DST], alen);
	k.metric = tb[RTA_PRIORITY] ? *(uint32_t *)RTA_DATA(tb[RTA_PRIORITY]) : 0;
	if (tb[RTA_NH_ID])
		k.nh_id = *(uint32_t *)RTA_DATA(tb[RTA_NH_ID]);
	if (tb[RTA_MULTIPATH]) {
		/* every next hop of an ECMP route that leaves by a port */
		int len = (int)RTA_PAYLOAD(tb[RTA_MULTIPATH]);
		for (struct rtnexthop *nh = RTA_DATA(tb[RTA_MULTIPATH]);
		     len >= (int)sizeof(*nh) && nh->rtnh_len >= sizeof(*nh) && nh->rtnh_len <= len;
		     len -= NLMSG_ALIGN(nh->rtnh_len), nh = RTNH_NEXT(nh)) {
			struct rtattr *nt[RTA_MAX + 1];
			parse_attrs(nt, RTA_MAX, RTNH_DATA(nh), nh->rtnh_len - (int)sizeof(*nh));
			add_hop(n, &k, nh->rtnh_ifindex, nt[RTA_GATEWAY], alen);
		}
	} else {
		add_hop(n, &k, tb[RTA_OIF] ? *(int *)RTA_DATA(tb[RTA_OIF]) : 0, tb[RTA_GATEWAY],
			alen);
	}
	if (h->nlmsg_type == RTM_NEWROUTE && !k.nnh && !k.nh_id) {
		/* out of interfaces that are not ours: forget any older one */
		kset_put(n, &n->routes, &k, false);
		return;
	}
	kset_put(n, &n->routes, &k, h->nlmsg_type == RTM_NEWROUTE);
}

static void on_nexthop(struct nl *n, struct nlmsghdr *h)
{
	struct nhmsg *nm = NLMSG_DATA(h);
	struct rtattr *tb[NHA_MAX + 1];
	parse_attrs(tb, NHA_MAX, (struct rtattr *)((char *)nm + NLMSG_ALIGN(sizeof(*nm))),
		    (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*nm))));
	if (!tb[NHA_ID])
		return;
	struct kent k;
	kent_init(&k, 0, 0);
	k.metric = *(uint32_t *)RTA_DATA(tb[NHA_ID]);
	if (tb[NHA_GROUP]) {
		/* a group: its members' ids, resolved when the router is built */
		const struct nexthop_grp *g = RTA_DATA(tb[NHA_GROUP]);
		size_t ng = RTA_PAYLOAD(tb[NHA_GROUP]) / sizeof(*g);
		if (!(k.x = calloc(1, sizeof(*k.x)))) {
			kset_oom(&k);
			return;
		}
		for (size_t i = 0; i < ng && k.nnh < ROUTE_MAX_NH; i++)
			k.x->nh_ids[k.nnh++] = g[i].id;
		k.nh_id = k.nnh ? k.x->nh_ids[0] : 0;
	} else {
		int p = port_of(n, tb[NHA_OIF] ? *(int *)RTA_DATA(tb[NHA_OIF]) : 0);
		if (p < 0 && h->nlmsg_type == RTM_NEWNEXTHOP) {
			kset_put(n, &n->nhs, &k, false);
			return;
		}
		k.port = p < 0 ? 0 : (uint32_t)p;
		k.nnh = 1;
		k.family = nm->nh_family == AF_INET6 ? 6 : 4;
		k.has_gw = tb[NHA_GATEWAY] != NULL;
		copy_addr(k.gw, tb[NHA_GATEWAY], k.family == 4 ? 4 : 16);
	}
	kset_put(n, &n->nhs, &k, h->nlmsg_type == RTM_NEWNEXTHOP);
}

static void on_neigh(struct nl *n, struct nlmsghdr *h)
{
	struct ndmsg *nd = NLMSG_DATA(h);
	struct rtattr *tb[NDA_MAX + 1];
	parse_attrs(tb, NDA_MAX, (struct rtattr *)((char *)nd + NLMSG_ALIGN(sizeof(*nd))),
		    (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*nd))));
	int p = port_of(n, nd->ndm_ifindex);
	if ((nd->ndm_family != AF_INET && nd->ndm_family != AF_INET6) || p < 0 || !tb[NDA_DST])
		return;
	struct kent k;
	kent_init(&k, nd->ndm_family == AF_INET ? 4 : 6, (uint32_t)p);
	k.len = k.family == 4 ? 32 : 128;
	copy_addr(k.addr, tb[NDA_DST], k.family == 4 ? 4 : 16);
	bool usable = h->nlmsg_type == RTM_NEWNEIGH && tb[NDA_LLADDR] &&
		      RTA_PAYLOAD(tb[NDA_LLADDR]) == 6 &&
		      (nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE |
					NUD_PERMANENT | NUD_NOARP));
	/* ARP/ND gave up: kept, for RX to answer Host Unreachable, also while
	 * the kernel tries once more (INCOMPLETE after FAILED), until a MAC comes */
	k.failed = !usable && h->nlmsg_type == RTM_NEWNEIGH && (nd->ndm_state & NUD_FAILED);
	const struct kent *was = nl_kfind(&n->neigh, &k);
	if (!usable && h->nlmsg_type == RTM_NEWNEIGH && (nd->ndm_state & NUD_INCOMPLETE) && was &&
	    was->failed)
		return;
	if (usable)
		memcpy(k.mac, RTA_DATA(tb[NDA_LLADDR]), 6);
	kset_put(n, &n->neigh, &k, usable || k.failed);
}

static void on_addr(struct nl *n, struct nlmsghdr *h)
{
	struct ifaddrmsg *ia = NLMSG_DATA(h);
	struct rtattr *tb[IFA_MAX + 1];
	parse_attrs(tb, IFA_MAX, IFA_RTA(ia), (int)IFA_PAYLOAD(h));
	int p = port_of(n, (int)ia->ifa_index);
	if ((ia->ifa_family != AF_INET && ia->ifa_family != AF_INET6) || p < 0)
		return;
	struct kent k;
	kent_init(&k, ia->ifa_family == AF_INET ? 4 : 6, (uint32_t)p);
	k.len = k.family == 4 ? 32 : 128;
	copy_addr(k.addr, tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS], k.family == 4 ? 4 : 16);
	kset_put(n, &n->addrs, &k, h->nlmsg_type == RTM_NEWADDR);
}

/* A port's link: up or down (administratively, or its carrier), its MTU.
 * Only the kernel interface behind the device counts (an exception
 * interface's state is not the wire's). */
static void on_link(struct nl *n, struct nlmsghdr *h)
{
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	int p = -1;
	for (uint32_t i = 0; i < n->nports && p < 0; i++)
		if (n->hp[i].dev_ifindex && (int)n->hp[i].dev_ifindex == ifi->ifi_index &&
		    n->np[i].link)
			p = (int)i;
	if (p < 0)
		return;
	struct rtattr *tb[IFLA_MAX + 1];
	parse_attrs(tb, IFLA_MAX, IFLA_RTA(ifi), (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi))));
	struct port_link *l = n->np[p].link;
	const char *name = n->np[p].name, *ifn = n->hp[p].dev_ifname;
	bool gone = h->nlmsg_type == RTM_DELLINK;
	uint32_t up = !gone && (ifi->ifi_flags & IFF_UP),
		 carrier = up && (ifi->ifi_flags & IFF_LOWER_UP);
	uint32_t mtu = tb[IFLA_MTU] && RTA_PAYLOAD(tb[IFLA_MTU]) >= 4
			       ? *(uint32_t *)RTA_DATA(tb[IFLA_MTU])
			       : 0;
	if (mtu && mtu != PL_GET(l->mtu)) {
		if (PL_GET(l->mtu))
			log_notice("port %s: interface %s's MTU %u -> %u", name, ifn,
				   PL_GET(l->mtu), mtu);
		PL_SET(l->mtu, mtu);
		PL_SET(l->mtu_from, PL_FROM_KERNEL);
	}
	bool known = PL_GET(l->known);
	bool was = known && PL_GET(l->admin_up) && PL_GET(l->carrier), is = up && carrier;
	if (known && PL_GET(l->admin_up) == up && PL_GET(l->carrier) == carrier)
		return;
	PL_SET(l->admin_up, up);
	PL_SET(l->carrier, carrier);
	PL_SET(l->known, 1);
	if (!known) {
		if (!is)
			log_warn("port %s: link %s on %s: nothing is forwarded out of it", name,
				 port_link_word(l), ifn);
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	PL_SET(l->since_ns, (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec);
	if (was != is) {
		if (is) {
			PL_SET(l->ups, PL_GET(l->ups) + 1);
			log_notice("port %s: link up on %s (MTU %u): its routes and addresses are "
				   "read again",
				   name, ifn, PL_GET(l->mtu));
			n->restore_ports |= 1u << p;
		} else {
			PL_SET(l->downs, PL_GET(l->downs) + 1);
			log_warn("port %s: link down on %s (%s): routes through it are read again "
				 "from the kernel",
				 name, ifn,
				 gone ? "the interface is gone"
				 : up ? "no carrier"
				      : "set down");
		}
	}
	PL_SET(l->resync_ns, -1);
	if (!n->resync) {
		n->resync_t0 = tdp_mono_ns();
	}
	n->resync = true;
	n->resync_ports |= 1u << p;
}

void nl_msg(struct nl *n, struct nlmsghdr *h)
{
	/* each kind of message the thread follows, new and deleted alike */
	static void (*const on[])(struct nl *, struct nlmsghdr *) = {
		[RTM_NEWROUTE] = on_route,     [RTM_DELROUTE] = on_route,
		[RTM_NEWNEIGH] = on_neigh,     [RTM_DELNEIGH] = on_neigh,
		[RTM_NEWADDR] = on_addr,       [RTM_DELADDR] = on_addr,
		[RTM_NEWNEXTHOP] = on_nexthop, [RTM_DELNEXTHOP] = on_nexthop,
		[RTM_NEWLINK] = on_link,       [RTM_DELLINK] = on_link,
	};
	if (h->nlmsg_flags & NLM_F_DUMP_INTR)
		n->dump_intr = true;
	if (h->nlmsg_type >= sizeof(on) / sizeof(on[0]) || !on[h->nlmsg_type])
		return;
	on[h->nlmsg_type](n, h);
	CTR_ADD(n->st.messages, 1);
}
