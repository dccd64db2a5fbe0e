/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "counters.h"
#include "log.h"
#include "nl.h"

/* a kernel route, neighbour, address or nexthop object, on one of our ports */
struct kent {
	uint8_t family;
	uint8_t proto;
	uint8_t len;
	bool has_gw;
	uint32_t port;
	uint32_t metric;          /* routes; the nexthop id for nexthop objects */
	uint32_t nh_id;           /* routes through a nexthop object */
	uint8_t addr[16];         /* prefix, neighbour or address */
	uint8_t gw[16];
	bool failed;              /* neighbours: NUD_FAILED */
	uint8_t mac[6];
};

struct kset {
	struct kent *v;
	size_t n, cap;
};

#define RESOLVE_MEMORY 64

struct nl {
	struct rx *rx;             /* the RX cores, nrx of them */
	uint32_t nrx;
	const struct router *base;
	struct hp_port *hp;
	uint32_t nports;
	int fd, req_fd, stop_fd;
	pthread_t th;
	bool started;
	struct kset routes, neigh, addrs, nhs;
	bool dirty;
	pthread_mutex_t lock;     /* cur, for tdpctl */
	struct router *cur;       /* built here; NULL while base is in force */
	struct nl_stats st;
	struct {                  /* recent resolve requests, not repeated within a second */
		struct rx_resolve q;
		int64_t at_ns;
	} asked[RESOLVE_MEMORY];
	unsigned asked_next;
};

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int port_of(const struct nl *n, int ifindex)
{
	for (uint32_t p = 0; p < n->nports; p++)
		if (n->hp[p].ifindex && (int)n->hp[p].ifindex == ifindex)
			return (int)p;
	return -1;
}

/* same identity: family, address and length (and metric for routes, id for nexthops) */
static struct kent *kfind(struct kset *s, const struct kent *k)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].family == k->family && s->v[i].len == k->len && s->v[i].metric == k->metric &&
		    memcmp(s->v[i].addr, k->addr, 16) == 0)
			return &s->v[i];
	return NULL;
}

static void kset_put(struct nl *n, struct kset *s, const struct kent *k, bool add)
{
	struct kent *e = kfind(s, k);
	if (!add) {
		if (e) {
			*e = s->v[--s->n];
			n->dirty = true;
		}
		return;
	}
	if (e) {
		/* up to the last field: the tail padding is not ours to compare */
		if (memcmp(e, k, offsetof(struct kent, mac) + sizeof(k->mac)) != 0) {
			*e = *k;
			n->dirty = true;
		}
		return;
	}
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 32;
		struct kent *v = realloc(s->v, nc * sizeof(*v));
		if (!v) {
			log_warn("kernel routes: out of memory; an entry is not followed");
			return;
		}
		s->v = v;
		s->cap = nc;
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
	struct kent k = {.family = rm->rtm_family == AF_INET ? 4 : 6, .len = rm->rtm_dst_len,
			 .proto = rm->rtm_protocol};
	copy_addr(k.addr, tb[RTA_DST], alen);
	k.metric = tb[RTA_PRIORITY] ? *(uint32_t *)RTA_DATA(tb[RTA_PRIORITY]) : 0;
	int oif = tb[RTA_OIF] ? *(int *)RTA_DATA(tb[RTA_OIF]) : 0;
	const struct rtattr *gw = tb[RTA_GATEWAY];
	if (tb[RTA_MULTIPATH] && RTA_PAYLOAD(tb[RTA_MULTIPATH]) >= sizeof(struct rtnexthop)) {
		/* one next hop per route in tdpd: the first */
		struct rtnexthop *nh = RTA_DATA(tb[RTA_MULTIPATH]);
		oif = nh->rtnh_ifindex;
		struct rtattr *nt[RTA_MAX + 1];
		parse_attrs(nt, RTA_MAX, RTNH_DATA(nh), nh->rtnh_len - (int)sizeof(*nh));
		gw = nt[RTA_GATEWAY];
	}
	if (tb[RTA_NH_ID])
		k.nh_id = *(uint32_t *)RTA_DATA(tb[RTA_NH_ID]);
	int p = port_of(n, oif);
	if (h->nlmsg_type == RTM_NEWROUTE && p < 0 && !k.nh_id) {
		/* out of an interface that is not ours: forget any older one */
		kset_put(n, &n->routes, &k, false);
		return;
	}
	k.port = p < 0 ? 0 : (uint32_t)p;
	k.has_gw = gw != NULL;
	copy_addr(k.gw, gw, alen);
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
	struct kent k = {.metric = *(uint32_t *)RTA_DATA(tb[NHA_ID])};
	if (tb[NHA_GROUP] && RTA_PAYLOAD(tb[NHA_GROUP]) >= sizeof(struct nexthop_grp)) {
		k.nh_id = ((struct nexthop_grp *)RTA_DATA(tb[NHA_GROUP]))->id;   /* its first member */
	} else {
		int p = port_of(n, tb[NHA_OIF] ? *(int *)RTA_DATA(tb[NHA_OIF]) : 0);
		if (p < 0 && h->nlmsg_type == RTM_NEWNEXTHOP) {
			kset_put(n, &n->nhs, &k, false);
			return;
		}
		k.port = p < 0 ? 0 : (uint32_t)p;
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
	struct kent k = {.family = nd->ndm_family == AF_INET ? 4 : 6, .port = (uint32_t)p};
	k.len = k.family == 4 ? 32 : 128;
	copy_addr(k.addr, tb[NDA_DST], k.family == 4 ? 4 : 16);
	bool usable = h->nlmsg_type == RTM_NEWNEIGH && tb[NDA_LLADDR] && RTA_PAYLOAD(tb[NDA_LLADDR]) == 6 &&
		      (nd->ndm_state & (NUD_REACHABLE | NUD_STALE | NUD_DELAY | NUD_PROBE | NUD_PERMANENT | NUD_NOARP));
	/* ARP/ND gave up: kept, for RX to answer Host Unreachable, also while
	 * the kernel tries once more (INCOMPLETE after FAILED), until a MAC comes */
	k.failed = !usable && h->nlmsg_type == RTM_NEWNEIGH && (nd->ndm_state & NUD_FAILED);
	const struct kent *was = kfind(&n->neigh, &k);
	if (!usable && h->nlmsg_type == RTM_NEWNEIGH && (nd->ndm_state & NUD_INCOMPLETE) && was && was->failed)
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
	struct kent k = {.family = ia->ifa_family == AF_INET ? 4 : 6, .port = (uint32_t)p};
	k.len = k.family == 4 ? 32 : 128;
	copy_addr(k.addr, tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS], k.family == 4 ? 4 : 16);
	kset_put(n, &n->addrs, &k, h->nlmsg_type == RTM_NEWADDR);
}

/* Reads what is waiting on the socket; 1 when a dump ended, 0, or -errno. */
static int nl_read(struct nl *n, int flags)
{
	char buf[32768];
	ssize_t len = recv(n->fd, buf, sizeof(buf), flags);
	if (len < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	int done = 0;
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)len); h = NLMSG_NEXT(h, len)) {
		switch (h->nlmsg_type) {
		case NLMSG_DONE:
			done = 1;
			break;
		case NLMSG_ERROR: {
			/* a dump the kernel does not know (nexthops before 5.3) ends it too */
			done = 1;
			break;
		}
		case RTM_NEWROUTE: case RTM_DELROUTE: on_route(n, h); break;
		case RTM_NEWNEIGH: case RTM_DELNEIGH: on_neigh(n, h); break;
		case RTM_NEWADDR: case RTM_DELADDR: on_addr(n, h); break;
		case RTM_NEWNEXTHOP: case RTM_DELNEXTHOP: on_nexthop(n, h); break;
		default: continue;
		}
		CTR_ADD(n->st.messages, 1);
	}
	return done;
}

static int dump(struct nl *n, int type, int family)
{
	struct {
		struct nlmsghdr nh;
		struct rtgenmsg g;
		char pad[16];
	} req;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(type == RTM_GETNEXTHOP ? sizeof(struct nhmsg) : sizeof(struct rtmsg));
	req.nh.nlmsg_type = (unsigned short)type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.g.rtgen_family = (unsigned char)family;
	if (send(n->fd, &req, req.nh.nlmsg_len, 0) < 0)
		return -errno;
	for (int rc = 0; rc == 0;)
		if ((rc = nl_read(n, 0)) < 0)
			return rc;
	return 0;
}

static const struct kent *nexthop(const struct nl *n, uint32_t id, int depth)
{
	for (size_t i = 0; i < n->nhs.n; i++)
		if (n->nhs.v[i].metric == id)
			return n->nhs.v[i].nh_id && depth < 2 ? nexthop(n, n->nhs.v[i].nh_id, depth + 1) : &n->nhs.v[i];
	return NULL;
}

static int by_metric(const void *a, const void *b)
{
	const struct kent *x = a, *y = b;
	return x->metric < y->metric ? -1 : x->metric > y->metric;
}

/* tdpd.conf's router plus the kernel's entries; NULL on failure */
static struct router *build(struct nl *n)
{
	struct router *r = router_copy_static(n->base);
	if (!r)
		return NULL;
	int rc = 0;
	uint64_t na = 0, nn = 0, nr = 0;
	for (size_t i = 0; i < n->addrs.n && rc >= 0; i++)
		if ((rc = router_add_kernel_address(r, n->addrs.v[i].port, n->addrs.v[i].family, n->addrs.v[i].addr)) == 0)
			na++;
	for (size_t i = 0; i < n->neigh.n && rc >= 0; i++) {
		const struct kent *k = &n->neigh.v[i];
		rc = k->failed ? router_add_kernel_failed(r, k->port, k->family, k->addr)
			       : router_add_kernel_neighbour(r, k->port, k->family, k->addr, k->mac);
		if (rc == 0)
			nn++;
	}
	/* the lowest metric first: the kernel's choice among routes to one prefix */
	qsort(n->routes.v, n->routes.n, sizeof(*n->routes.v), by_metric);
	for (size_t i = 0; i < n->routes.n && rc >= 0; i++) {
		struct kent k = n->routes.v[i];
		if (k.nh_id) {
			const struct kent *nh = nexthop(n, k.nh_id, 0);
			if (!nh || nh->family != k.family)
				continue;
			k.port = nh->port;
			k.has_gw = nh->has_gw;
			memcpy(k.gw, nh->gw, 16);
		}
		if ((rc = router_add_kernel_route(r, k.port, k.family, k.addr, k.len, k.has_gw ? k.gw : NULL, k.proto)) == 0)
			nr++;
	}
	char err[160];
	if (rc < 0 || router_build(r, err, sizeof(err)) != 0) {
		log_warn("kernel routes: cannot build the routes (%s); the ones in force stay",
			 rc < 0 ? "out of memory" : err);
		CTR_ADD(n->st.errors, 1);
		router_free(r);
		return NULL;
	}
	CTR_SET(n->st.addresses, na);
	CTR_SET(n->st.neighbours, nn);
	CTR_SET(n->st.routes, nr);
	return r;
}

/* our own addresses, for every port's XDP program */
static void set_local(struct nl *n, const struct router *r)
{
	uint8_t a[256][17];
	size_t na = router_addresses(r, a, NULL, 256);
	for (uint32_t p = 0; p < n->nports; p++)
		if (hp_set_local(&n->hp[p], (const uint8_t(*)[17])a, na < 256 ? na : 256) != 0)
			log_warn("port %u: cannot put the router's addresses in the XDP program's map", p);
}

/* Builds and hands a new router to RX; waits (a bounded while) for RX to take
 * it before the old one goes. */
static void publish(struct nl *n, bool rx_running)
{
	struct router *r = build(n);
	n->dirty = false;
	if (!r)
		return;
	set_local(n, r);
	if (rx_running) {
		for (uint32_t c = 0; c < n->nrx; c++)
			atomic_store_explicit(&n->rx[c].rt_offer, r, memory_order_release);
		for (uint32_t c = 0; c < n->nrx; c++)
			while (atomic_load_explicit(&n->rx[c].rt_offer, memory_order_acquire) != NULL) {
				struct pollfd pf = {.fd = n->stop_fd, .events = POLLIN};
				if (poll(&pf, 1, 1) > 0) {
					/* stopping: RX is gone too; whichever router it holds is
					 * freed by nl_stop; r too unless no core took it */
					bool taken = false;
					for (uint32_t k = 0; k < n->nrx; k++) {
						const struct router *exp = r;
						if (!atomic_compare_exchange_strong(&n->rx[k].rt_offer, &exp, NULL))
							taken = true;
					}
					if (!taken) {
						router_free(r);
						return;
					}
					c = n->nrx;
					break;
				}
			}
	} else {
		for (uint32_t c = 0; c < n->nrx; c++)
			rx_set_router(&n->rx[c], r);
	}
	pthread_mutex_lock(&n->lock);
	struct router *old = n->cur;
	n->cur = r;
	CTR_ADD(n->st.rebuilds, 1);
	pthread_mutex_unlock(&n->lock);
	router_free(old);
}

static void resolve(struct nl *n)
{
	struct rx_resolve q;
	int64_t now = mono_ns();
	while (n->rx->resolve && rte_ring_sc_dequeue_elem(n->rx->resolve, &q, sizeof(q)) == 0) {
		bool recent = false;
		for (unsigned i = 0; i < RESOLVE_MEMORY && !recent; i++)
			recent = n->asked[i].at_ns && now - n->asked[i].at_ns < 1000000000 &&
				 memcmp(&n->asked[i].q, &q, sizeof(q)) == 0;
		if (recent || q.port >= n->nports || !n->hp[q.port].ifindex)
			continue;
		n->asked[n->asked_next].q = q;
		n->asked[n->asked_next].at_ns = now;
		n->asked_next = (n->asked_next + 1) % RESOLVE_MEMORY;
		struct {
			struct nlmsghdr nh;
			struct ndmsg nd;
			char attrs[32];
		} req;
		memset(&req, 0, sizeof(req));
		req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.nd));
		req.nh.nlmsg_type = RTM_NEWNEIGH;
		req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE;
		req.nd.ndm_family = q.family == 4 ? AF_INET : AF_INET6;
		req.nd.ndm_ifindex = (int)n->hp[q.port].ifindex;
		req.nd.ndm_state = NUD_NONE;
		req.nd.ndm_flags = NTF_USE;   /* start resolution, as a packet to it would */
		struct rtattr *ra = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
		ra->rta_type = NDA_DST;
		ra->rta_len = (unsigned short)RTA_LENGTH(q.family == 4 ? 4 : 16);
		memcpy(RTA_DATA(ra), q.addr, q.family == 4 ? 4 : 16);
		req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(ra->rta_len);
		if (send(n->req_fd, &req, req.nh.nlmsg_len, MSG_DONTWAIT) >= 0)
			CTR_ADD(n->st.resolve_sent, 1);
	}
}

static void *thread_main(void *arg)
{
	struct nl *n = arg;
	pthread_setname_np(pthread_self(), "tdpd-netlink");
	for (;;) {
		struct pollfd pf[2] = {{.fd = n->fd, .events = POLLIN}, {.fd = n->stop_fd, .events = POLLIN}};
		int rc = poll(pf, 2, 20);
		if (rc > 0 && pf[1].revents)
			break;
		if (rc > 0 && pf[0].revents) {
			int r = nl_read(n, MSG_DONTWAIT);
			if (r == -ENOBUFS) {
				/* events were lost: read everything again */
				log_warn("kernel routes: the kernel's messages overflowed the socket; reading its tables again");
				n->routes.n = n->neigh.n = n->addrs.n = n->nhs.n = 0;
				dump(n, RTM_GETADDR, AF_UNSPEC);
				dump(n, RTM_GETNEXTHOP, AF_UNSPEC);
				dump(n, RTM_GETROUTE, AF_UNSPEC);
				dump(n, RTM_GETNEIGH, AF_UNSPEC);
				n->dirty = true;
			}
			/* a burst of changes (a routing daemon's table) is read whole first */
			if (r >= 0)
				continue;
		}
		resolve(n);
		if (n->dirty)
			publish(n, true);
	}
	return NULL;
}

struct nl *nl_start(struct rx *rx, uint32_t nrx, const struct router *base, struct hp_port *hp, uint32_t nports,
		    char *err, size_t errlen)
{
	struct nl *n = calloc(1, sizeof(*n));
	if (!n) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	n->rx = rx;
	n->nrx = nrx ? nrx : 1;
	n->base = base;
	n->hp = hp;
	n->nports = nports;
	n->fd = n->req_fd = n->stop_fd = -1;
	pthread_mutex_init(&n->lock, NULL);
	n->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK,
				 .nl_groups = RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE | RTMGRP_NEIGH |
					      RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR};
	int rcvbuf = 4 << 20;
	unsigned grp = RTNLGRP_NEXTHOP;
	if (n->fd < 0 || bind(n->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		snprintf(err, errlen, "rtnetlink: %s", strerror(errno));
		goto fail;
	}
	setsockopt(n->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(n->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp, sizeof(grp));   /* 5.3 and later */
	n->req_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	n->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (n->req_fd < 0 || n->stop_fd < 0) {
		snprintf(err, errlen, "rtnetlink: %s", strerror(errno));
		goto fail;
	}
	int rc = 0;
	int types[] = {RTM_GETADDR, RTM_GETNEXTHOP, RTM_GETROUTE, RTM_GETNEIGH};
	for (size_t i = 0; i < 4 && rc == 0; i++)
		rc = dump(n, types[i], AF_UNSPEC);
	if (rc < 0) {
		snprintf(err, errlen, "rtnetlink dump: %s", strerror(-rc));
		goto fail;
	}
	publish(n, false);
	if (!n->cur) {
		snprintf(err, errlen, "the first routes from the kernel did not build");
		goto fail;
	}
	if (pthread_create(&n->th, NULL, thread_main, n) != 0) {
		snprintf(err, errlen, "cannot start the netlink thread");
		goto fail;
	}
	n->started = true;
	return n;
fail:
	for (uint32_t c = 0; c < n->nrx; c++)
		rx_set_router(&n->rx[c], base);
	nl_stop(n);
	return NULL;
}

void nl_stop(struct nl *n)
{
	if (!n)
		return;
	if (n->started) {
		uint64_t one = 1;
		if (write(n->stop_fd, &one, sizeof(one)) < 0)
			log_warn("kernel routes: cannot stop the thread: %s", strerror(errno));
		pthread_join(n->th, NULL);
	}
	for (uint32_t c = 0; c < n->nrx; c++)
		rx_set_router(&n->rx[c], n->base);
	router_free(n->cur);
	free(n->routes.v);
	free(n->neigh.v);
	free(n->addrs.v);
	free(n->nhs.v);
	int fds[3] = {n->fd, n->req_fd, n->stop_fd};
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

void nl_stats(struct nl *n, struct nl_stats *s)
{
	ctr_snapshot(s, &n->st, sizeof(*s));
}

void nl_with_router(struct nl *n, void (*fn)(const struct router *r, void *arg), void *arg)
{
	pthread_mutex_lock(&n->lock);
	fn(n->cur ? n->cur : n->base, arg);
	pthread_mutex_unlock(&n->lock);
}
