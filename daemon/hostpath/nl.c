/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
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
#include "kif.h"
#include "nl_priv.h"
#include "tdp_time.h"

/* Reads what is waiting on the socket; 1 when a dump ended, 0, or -errno. */
static int nl_read(struct nl *n, int flags)
{
	char buf[32768];
	ssize_t len = recv(n->fd, buf, sizeof(buf), flags);
	if (len < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	int done = 0;
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)len);
	     h = NLMSG_NEXT(h, len)) {
		/* a dump the kernel does not know (nexthops before 5.3) ends in an error */
		if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				n->dump_intr = true;
			done = 1;
			continue;
		}
		nl_msg(n, h);
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
	req.nh.nlmsg_len = NLMSG_LENGTH(type == RTM_GETNEXTHOP ? sizeof(struct nhmsg)
					: type == RTM_GETLINK  ? sizeof(struct ifinfomsg)
							       : sizeof(struct rtmsg));
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

/* Every table of the kernel's, read whole into empty sets; a dump the kernel
 * interrupted (its tables changed under it) is read again, up to 5 times. */
static int dump_all(struct nl *n)
{
	static const int types[] = {RTM_GETLINK, RTM_GETADDR, RTM_GETNEXTHOP, RTM_GETROUTE,
				    RTM_GETNEIGH};
	int rc = 0;
	for (int tries = 0; tries < 5; tries++) {
		nl_kclear(&n->routes);
		nl_kclear(&n->neigh);
		nl_kclear(&n->addrs);
		nl_kclear(&n->nhs);
		n->dump_intr = false;
		for (size_t i = 0; i < sizeof(types) / sizeof(types[0]) && rc == 0; i++)
			rc = dump(n, types[i], AF_UNSPEC);
		if (rc < 0 || !n->dump_intr)
			break;
		CTR_ADD(n->st.dumps_redone, 1);
		log_info("kernel routes: a dump was interrupted by changes; reading the tables "
			 "again");
	}
	if (n->dump_intr)
		log_warn("kernel routes: the kernel's tables kept changing while read; the last "
			 "reading stays");
	n->dirty = true;
	return rc;
}

static const struct kent *nexthop(const struct nl *n, uint32_t id)
{
	for (size_t i = 0; i < n->nhs.n; i++)
		if (n->nhs.v[i].metric == id)
			return &n->nhs.v[i];
	return NULL;
}

/* A kernel entry's next hops on the ports: its own, or its nexthop object's
 * (a group's members that leave by a port). How many. */
static unsigned hops(const struct nl *n, const struct kent *k, struct route_nh *out)
{
	unsigned c = 0;
	if (!k->nh_id) {
		for (unsigned i = 0; i < k->nnh; i++)
			if (i == 0)
				out[c++] = (struct route_nh){.port = k->port, .has_gw = k->has_gw};
			else
				out[c++] = k->x->more[i - 1];
		if (c)
			memcpy(out[0].gw, k->gw, 16);
		return c;
	}
	const struct kent *o = nexthop(n, k->nh_id);
	if (!o)
		return 0;
	if (!o->family) {
		for (unsigned i = 0; i < o->nnh && c < ROUTE_MAX_NH; i++) {
			const struct kent *m = nexthop(n, o->x->nh_ids[i]);
			if (m && m->family == k->family) {
				out[c] = (struct route_nh){.port = m->port, .has_gw = m->has_gw};
				memcpy(out[c++].gw, m->gw, 16);
			}
		}
		return c;
	}
	if (o->family != k->family)
		return 0;
	out[0] = (struct route_nh){.port = o->port, .has_gw = o->has_gw};
	memcpy(out[0].gw, o->gw, 16);
	return 1;
}

static int by_metric(const void *a, const void *b)
{
	const struct kent *x = *(const struct kent *const *)a, *y = *(const struct kent *const *)b;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return (x > y) - (x < y); /* then the set's order */
}

/* The routes of s by metric, in the set's order within one: in one pass
 * when they have few metrics (a routing daemon's one or two, the kernel's
 * own), else by qsort. */
static void order_by_metric(const struct kset *s, const struct kent **order)
{
	enum {
		FEW = 16
	};
	uint32_t m[FEW];
	size_t at[FEW] = {0};
	unsigned nm = 0, k;
	for (size_t i = 0; i < s->n; i++) {
		for (k = 0; k < nm && m[k] != s->v[i].metric; k++)
			;
		if (k == nm) {
			if (nm == FEW) {
				for (size_t j = 0; j < s->n; j++)
					order[j] = &s->v[j];
				qsort(order, s->n, sizeof(*order), by_metric);
				return;
			}
			m[nm++] = s->v[i].metric;
		}
		at[k]++;
	}
	/* each metric's first place: after every lower metric's routes */
	size_t first[FEW];
	for (k = 0; k < nm; k++) {
		first[k] = 0;
		for (unsigned j = 0; j < nm; j++)
			if (m[j] < m[k])
				first[k] += at[j];
	}
	for (size_t i = 0; i < s->n; i++) {
		for (k = 0; m[k] != s->v[i].metric; k++)
			;
		order[first[k]++] = &s->v[i];
	}
}

/* tdpd.conf's router plus the kernel's entries; NULL on failure */
static struct router *build(struct nl *n)
{
	struct router *r = router_copy_static(n->base);
	if (!r)
		return NULL;
	int rc = 0;
	uint64_t na = 0, nn = 0, nr = 0, nm = 0;
	for (size_t i = 0; i < n->addrs.n && rc >= 0; i++)
		if ((rc = router_add_kernel_address(r, n->addrs.v[i].port, n->addrs.v[i].family,
						    n->addrs.v[i].addr)) == 0)
			na++;
	for (size_t i = 0; i < n->neigh.n && rc >= 0; i++) {
		const struct kent *k = &n->neigh.v[i];
		rc = k->failed
			     ? router_add_kernel_failed(r, k->port, k->family, k->addr)
			     : router_add_kernel_neighbour(r, k->port, k->family, k->addr, k->mac);
		if (rc == 0)
			nn++;
	}
	/* the lowest metric first: the kernel's choice among routes to one
	 * prefix (an order of their own: the set's index keeps its places) */
	const struct kent **order = malloc((n->routes.n ? n->routes.n : 1) * sizeof(*order));
	if (!order)
		rc = -1;
	else
		order_by_metric(&n->routes, order);
	for (size_t i = 0; order && i < n->routes.n && rc >= 0; i++) {
		const struct kent *k = order[i];
		struct route_nh nh[ROUTE_MAX_NH];
		unsigned c = hops(n, k, nh);
		if (!c)
			continue;
		if ((rc = router_add_kernel_route(r, k->family, k->addr, k->len, nh, c,
						  k->proto)) == 0) {
			nr++;
			nm += c > 1;
		}
	}
	free(order);
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
	CTR_SET(n->st.multipath, nm);
	/* what the table could not take is said when it changes, and counted;
	 * every other route is in force, and later changes still follow */
	const char *first;
	uint64_t miss = router_missing(r, &first);
	if (miss != CTR_GET(n->st.missing)) {
		if (miss)
			log_warn("kernel routes: %" PRIu64
				 " route%s the route table could not take (the first: %s); every "
				 "other one is in force",
				 miss, miss == 1 ? "" : "s", first);
		else
			log_notice("kernel routes: every route in force again");
	}
	CTR_SET(n->st.missing, miss);
	return r;
}

/* our own addresses, for every port's XDP program */
static void set_local(struct nl *n, const struct router *r)
{
	uint8_t a[256][17];
	size_t na = router_addresses(r, a, NULL, 256);
	for (uint32_t p = 0; p < n->nports; p++)
		if (hp_set_local(&n->hp[p], (const uint8_t(*)[17])a, na < 256 ? na : 256) != 0)
			log_warn("port %u: cannot put the router's addresses in the XDP program's "
				 "map",
				 p);
}

/* Builds and hands a new router to RX; waits (a bounded while) for RX to take
 * it before the old one goes. */
static void publish(struct nl *n, bool rx_running)
{
	int64_t t0 = tdp_mono_ns();
	struct router *r = build(n);
	n->last_build_ns = tdp_mono_ns() - t0;
	CTR_ADD(n->st.build_us, (uint64_t)n->last_build_ns / 1000);
	n->dirty = false;
	if (!r)
		return;
	set_local(n, r);
	if (rx_running) {
		for (uint32_t c = 0; c < n->nrx; c++)
			atomic_store_explicit(&n->rx[c].rt_offer, r, memory_order_release);
		for (uint32_t c = 0; c < n->nrx; c++)
			while (atomic_load_explicit(&n->rx[c].rt_offer, memory_order_acquire) !=
			       NULL) {
				struct pollfd pf = {.fd = n->stop_fd, .events = POLLIN};
				if (poll(&pf, 1, 1) > 0) {
					/* stopping: RX is gone too; whichever router it holds is
					 * freed by nl_stop; r too unless no core took it */
					bool taken = false;
					for (uint32_t k = 0; k < n->nrx; k++) {
						const struct router *exp = r;
						if (!atomic_compare_exchange_strong(
							    &n->rx[k].rt_offer, &exp, NULL))
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
	int64_t now = tdp_mono_ns();
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
		req.nd.ndm_flags = NTF_USE; /* start resolution, as a packet to it would */
		struct rtattr *ra = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
		ra->rta_type = NDA_DST;
		ra->rta_len = (unsigned short)RTA_LENGTH(q.family == 4 ? 4 : 16);
		memcpy(RTA_DATA(ra), q.addr, q.family == 4 ? 4 : 16);
		req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(ra->rta_len);
		if (send(n->req_fd, &req, req.nh.nlmsg_len, MSG_DONTWAIT) >= 0)
			CTR_ADD(n->st.resolve_sent, 1);
	}
}

/* tdpd.conf's addresses that the kernel no longer has on port p's interface
 * (IPv6 ones go when it is set down), put back */
static void restore(struct nl *n, uint32_t p)
{
	const struct nl_port *np = &n->np[p];
	for (uint32_t i = 0; i < np->naddr; i++) {
		const struct nl_addr *a = &np->addr[i];
		struct kent k;
		memset(&k, 0, sizeof(k));
		k.family = a->family;
		k.len = a->family == 4 ? 32 : 128;
		memcpy(k.addr, a->addr, 16);
		const struct kent *e = nl_kfind(&n->addrs, &k);
		if (e && e->port == p)
			continue;
		char txt[INET6_ADDRSTRLEN];
		inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->addr, txt, sizeof(txt));
		int rc = kif_addr_add(n->hp[p].ifindex, a->family, a->addr, a->len);
		if (rc < 0) {
			log_err("port %s: cannot put address %s/%u back on %s: %s", np->name, txt,
				a->len, n->hp[p].ifname, strerror(-rc));
			continue;
		}
		PL_SET(np->link->restored, PL_GET(np->link->restored) + 1);
		log_notice("port %s: address %s/%u put back on %s (the kernel removed it while the "
			   "link was down)",
			   np->name, txt, a->len, n->hp[p].ifname);
	}
}

/* After a link change: the kernel's tables read again whole, the addresses
 * of the ports that came up put back, a new router for RX. */
static void resync(struct nl *n)
{
	uint32_t ports = n->resync_ports, up = n->restore_ports;
	int64_t t0 = n->resync_t0;
	n->resync = false;
	n->resync_ports = n->restore_ports = 0;
	int rc = dump_all(n);
	if (rc < 0)
		log_warn("kernel routes: reading the tables again after a link change: %s",
			 strerror(-rc));
	for (uint32_t p = 0; p < n->nports; p++)
		if (up & (1u << p) && n->np[p].link)
			restore(n, p);
	publish(n, true);
	int64_t dt = tdp_mono_ns() - t0;
	CTR_ADD(n->st.resyncs, 1);
	char names[256] = "";
	size_t w = 0;
	for (uint32_t p = 0; p < n->nports; p++) {
		if (!(ports & (1u << p)) || !n->np[p].link)
			continue;
		PL_SET(n->np[p].link->resync_ns, dt);
		PL_SET(n->np[p].link->resyncs, PL_GET(n->np[p].link->resyncs) + 1);
		if (w < sizeof(names))
			w += (size_t)snprintf(names + w, sizeof(names) - w, "%s%s", w ? ", " : "",
					      n->np[p].name);
	}
	log_info("kernel routes: read again %.1f ms after the link change on %s: %" PRIu64
		 " routes, %" PRIu64 " neighbours, %" PRIu64 " addresses",
		 (double)dt / 1e6, names, CTR_GET(n->st.routes), CTR_GET(n->st.neighbours),
		 CTR_GET(n->st.addresses));
}

/* A change is published after NL_QUIET_MS without another (a routing
 * daemon's table arrives in bursts, read whole first), or, while a burst goes
 * on, NL_BURST_MS after the first unpublished one or NL_BURST_BUILDS times
 * the latest build's time, whichever is longer: a router is built whole, so
 * with a full table streaming in, the thread builds a fifth of the time and
 * reads the rest. The thread also wakes every NL_IDLE_MS to send RX's
 * resolve requests. */
#define NL_QUIET_MS 2
#define NL_BURST_MS 50
#define NL_BURST_BUILDS 4
#define NL_IDLE_MS 5

static int64_t burst_ns(const struct nl *n)
{
	int64_t b = NL_BURST_BUILDS * n->last_build_ns;
	return b > NL_BURST_MS * 1000000LL ? b : NL_BURST_MS * 1000000LL;
}

static void *thread_main(void *arg)
{
	struct nl *n = arg;
	pthread_setname_np(pthread_self(), "tdpd-netlink");
	int64_t first_dirty = 0;
	for (;;) {
		struct pollfd pf[2] = {{.fd = n->fd, .events = POLLIN},
				       {.fd = n->stop_fd, .events = POLLIN}};
		int rc = poll(pf, 2, n->dirty || n->resync ? NL_QUIET_MS : NL_IDLE_MS);
		if (rc > 0 && pf[1].revents)
			break;
		int64_t now = tdp_mono_ns();
		if (rc > 0 && pf[0].revents) {
			int r = nl_read(n, MSG_DONTWAIT);
			if (r == -ENOBUFS) {
				/* events were lost: read everything again */
				log_warn("kernel routes: the kernel's messages overflowed the "
					 "socket; reading its tables again");
				CTR_ADD(n->st.resyncs, 1);
				dump_all(n);
			}
			if ((n->dirty || n->resync) && !first_dirty)
				first_dirty = now;
			resolve(n);
			if (r >= 0 && now - first_dirty < burst_ns(n))
				continue;
		}
		resolve(n);
		if (n->resync)
			resync(n);
		if (n->dirty)
			publish(n, true);
		first_dirty = 0;
	}
	return NULL;
}

/* As large a receive buffer as the kernel allows a process with
 * CAP_NET_ADMIN (SO_RCVBUFFORCE, as zebra does), else what rmem_max allows:
 * a routing daemon's full table arrives in one burst. */
static void rcvbuf(int fd)
{
	int want = 4 << 20, got = 0;
	socklen_t gl = sizeof(got);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) == 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &gl);
	/* the kernel reports twice what it was asked, its bookkeeping included */
	if (got / 2 < want)
		log_warn("kernel routes: the rtnetlink receive buffer is %d KiB, not %d (no "
			 "CAP_NET_ADMIN for "
			 "SO_RCVBUFFORCE; net.core.rmem_max caps it): a large burst of route "
			 "changes may overflow it, "
			 "and then the tables are read again",
			 got / 2048, want / 1024);
}

struct nl *nl_start(struct rx *rx, uint32_t nrx, const struct router *base, struct hp_port *hp,
		    const struct nl_port *np, uint32_t nports, char *err, size_t errlen)
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
	n->np = np;
	n->nports = nports;
	n->fd = n->req_fd = n->stop_fd = -1;
	pthread_mutex_init(&n->lock, NULL);
	n->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK,
				 .nl_groups = RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE | RTMGRP_NEIGH |
					      RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR |
					      RTMGRP_LINK};
	unsigned grp = RTNLGRP_NEXTHOP;
	if (n->fd < 0 || bind(n->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		snprintf(err, errlen, "rtnetlink: %s", strerror(errno));
		goto fail;
	}
	rcvbuf(n->fd);
	setsockopt(n->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
		   sizeof(grp)); /* 5.3 and later */
	n->req_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	n->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (n->req_fd < 0 || n->stop_fd < 0) {
		snprintf(err, errlen, "rtnetlink: %s", strerror(errno));
		goto fail;
	}
	int rc = dump_all(n);
	n->resync = false; /* the first reading of the links is no change */
	n->resync_ports = n->restore_ports = 0;
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
	nl_kfree(&n->routes);
	nl_kfree(&n->neigh);
	nl_kfree(&n->addrs);
	nl_kfree(&n->nhs);
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
