/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fib.h"
#include "keyidx.h"
#include "route.h"
#include "tdp_names.h"

struct neigh {
	uint8_t family;
	uint8_t origin; /* ROUTE_ORIGIN_* */
	uint8_t addr[16];
	uint32_t port;
	uint8_t mac[6];
	bool failed; /* the kernel's resolution failed: no MAC */
};

enum rt_kind {
	RT_VIA,
	RT_CONNECTED,
	RT_LOCAL
};

/*
 * One route. Neighbours and our own addresses go into the fib as host routes
 * next to the prefixes, so one longest-prefix lookup answers everything: a
 * neighbour's host route carries its MAC, a route via a gateway carries the
 * gateway's MAC once it is known (has_mac), a connected prefix without a
 * neighbour for the address has none, and our own addresses are RT_LOCAL.
 */
/* a next hop: the port, the gateway (none: connected, the destination is
 * the next hop), its MAC once known, or that resolving it failed */
struct rt_hop {
	uint32_t port;
	bool has_gw, has_mac;
	bool failed; /* !has_mac because the next hop failed to resolve */
	uint8_t gw[16];
	uint8_t mac[6];
};

struct rt_entry {
	uint8_t family;
	uint8_t kind;
	uint8_t origin;
	uint8_t proto; /* the kernel's rtm_protocol for kernel routes */
	uint8_t prefix[16];
	unsigned len;
	struct rt_hop h; /* the (first) next hop */
	/* a multipath route: nnh next hops, h and the router's
	 * mp[mp .. mp + nnh - 2] */
	uint8_t nnh;
	uint32_t mp;
};

struct router {
	uint32_t nports;
	struct neigh *nb;
	size_t nnb, nb_cap;
	struct rt_entry *rt; /* connected, static and kernel routes */
	size_t nrt, rt_cap;
	struct keyidx rt_idx; /* rt by family, length and prefix */
	struct neigh *local;  /* our own addresses */
	size_t nlocal, local_cap;
	/* built: the host routes; the fib's next hop i is ent[i] below nent,
	 * then rt[i - nent] (ent_at) */
	struct rt_entry *ent;
	size_t nent;
	struct rt_hop *mp; /* multipath routes' further next hops */
	size_t nmp, mp_cap;
	struct fib *fib;
	struct fib_need need; /* built: what the fib is sized for */
	/* built: entries the fib would not take, and the first of them */
	size_t missing;
	char missing_first[96];
};

static int grow(void **v, size_t *cap, size_t want, size_t es)
{
	if (want <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 8;
	while (nc < want)
		nc *= 2;
	void *p = realloc(*v, nc * es);
	if (!p)
		return -1;
	*v = p;
	*cap = nc;
	return 0;
}

/* a route's identity (family, length, masked prefix), hashed */
static uint32_t route_hash(int family, unsigned len, const uint8_t *masked)
{
	uint8_t b[18];
	b[0] = (uint8_t)family;
	b[1] = (uint8_t)len;
	memcpy(b + 2, masked, 16);
	return keyidx_hash(b, sizeof(b));
}

struct router *router_create(uint32_t nports, char *err, size_t errlen)
{
	struct router *r = calloc(1, sizeof(*r));
	if (!r)
		snprintf(err, errlen, "out of memory");
	else
		r->nports = nports;
	return r;
}

void router_free(struct router *r)
{
	if (!r)
		return;
	router_drop_lookup(r);
	free(r->nb);
	free(r->rt);
	keyidx_free(&r->rt_idx);
	free(r->local);
	free(r->ent);
	free(r->mp);
	free(r);
}

void router_drop_lookup(struct router *r)
{
	fib_free(r->fib);
	r->fib = NULL;
}

static int dup_array(void **dst, size_t *cap, const void *src, size_t n, size_t es)
{
	*dst = NULL;
	*cap = 0;
	if (!n)
		return 0;
	if (grow(dst, cap, n, es))
		return -1;
	memcpy(*dst, src, n * es);
	return 0;
}

struct router *router_copy_static(const struct router *r)
{
	struct router *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->nports = r->nports;
	if (dup_array((void **)&c->local, &c->local_cap, r->local, r->nlocal, sizeof(*r->local)) ||
	    dup_array((void **)&c->nb, &c->nb_cap, r->nb, r->nnb, sizeof(*r->nb)) ||
	    dup_array((void **)&c->rt, &c->rt_cap, r->rt, r->nrt, sizeof(*r->rt))) {
		router_free(c);
		return NULL;
	}
	for (size_t i = 0; i < r->nlocal; i++)
		if (r->local[i].origin == ROUTE_ORIGIN_STATIC)
			c->local[c->nlocal++] = r->local[i];
	for (size_t i = 0; i < r->nnb; i++)
		if (r->nb[i].origin == ROUTE_ORIGIN_STATIC)
			c->nb[c->nnb++] = r->nb[i];
	for (size_t i = 0; i < r->nrt; i++) {
		const struct rt_entry *e = &r->rt[i];
		if (e->origin == ROUTE_ORIGIN_KERNEL)
			continue;
		if (keyidx_put(&c->rt_idx, route_hash(e->family, e->len, e->prefix),
			       (uint32_t)c->nrt) != 0) {
			router_free(c);
			return NULL;
		}
		c->rt[c->nrt++] = *e;
	}
	return c;
}

static unsigned alen(int family)
{
	return family == 4 ? 4 : 16;
}

static void mask(uint8_t *a, unsigned len)
{
	for (unsigned i = 0; i < 16; i++) {
		unsigned bits = len > i * 8 ? len - i * 8 : 0;
		if (bits < 8)
			a[i] &= (uint8_t)(0xff00u >> bits);
	}
}

static struct neigh *find_neigh(struct neigh *v, size_t n, int family, const uint8_t *addr)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].family == family && memcmp(v[i].addr, addr, alen(family)) == 0)
			return &v[i];
	return NULL;
}

struct rt_want {
	const struct router *r;
	int family;
	unsigned len;
	const uint8_t *p;
};

static bool route_same(const void *ctx, uint32_t pos)
{
	const struct rt_want *w = ctx;
	const struct rt_entry *e = &w->r->rt[pos];
	return e->family == w->family && e->len == w->len && memcmp(e->prefix, w->p, 16) == 0;
}

static struct rt_entry *find_route(struct router *r, int family, const uint8_t *prefix,
				   unsigned len)
{
	uint8_t p[16];
	memcpy(p, prefix, 16);
	mask(p, len);
	struct rt_want w = {r, family, len, p};
	uint32_t pos = keyidx_find(&r->rt_idx, route_hash(family, len, p), route_same, &w);
	return pos == KEYIDX_NONE ? NULL : &r->rt[pos];
}

static bool on_link(const struct router *r, uint32_t port, int family, const uint8_t *addr)
{
	for (size_t i = 0; i < r->nrt; i++) {
		const struct rt_entry *e = &r->rt[i];
		if (e->kind != RT_CONNECTED || e->h.port != port || e->family != family)
			continue;
		uint8_t a[16];
		memcpy(a, addr, 16);
		mask(a, e->len);
		if (memcmp(a, e->prefix, 16) == 0)
			return true;
	}
	return false;
}

static struct rt_entry *new_route(struct router *r, int family, const uint8_t *prefix, unsigned len,
				  uint32_t port, uint8_t kind, uint8_t origin)
{
	if (grow((void **)&r->rt, &r->rt_cap, r->nrt + 1, sizeof(*r->rt)))
		return NULL;
	struct rt_entry *e = &r->rt[r->nrt];
	memset(e, 0, sizeof(*e));
	e->family = (uint8_t)family;
	memcpy(e->prefix, prefix, alen(family));
	mask(e->prefix, len);
	if (keyidx_put(&r->rt_idx, route_hash(family, len, e->prefix), (uint32_t)r->nrt) != 0)
		return NULL;
	r->nrt++;
	e->len = len;
	e->h.port = port;
	e->kind = kind;
	e->origin = origin;
	e->nnh = 1;
	return e;
}

/* A neighbour or an address of ours appended to v (n of cap): NULL out of
 * memory. */
static struct neigh *push_neigh(struct neigh **v, size_t *n, size_t *cap, uint32_t port, int family,
				const uint8_t *addr, uint8_t origin)
{
	if (grow((void **)v, cap, *n + 1, sizeof(**v)))
		return NULL;
	struct neigh *e = &(*v)[(*n)++];
	memset(e, 0, sizeof(*e));
	e->family = (uint8_t)family;
	e->origin = origin;
	memcpy(e->addr, addr, alen(family));
	e->port = port;
	return e;
}

int router_add_address(struct router *r, uint32_t port, int family, const uint8_t *addr,
		       unsigned len, char *err, size_t errlen)
{
	if (find_neigh(r->local, r->nlocal, family, addr)) {
		snprintf(err, errlen, "address given twice");
		return -1;
	}
	if (!new_route(r, family, addr, len, port, RT_CONNECTED, ROUTE_ORIGIN_STATIC) ||
	    !push_neigh(&r->local, &r->nlocal, &r->local_cap, port, family, addr,
			ROUTE_ORIGIN_STATIC)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int add_neigh(struct router *r, uint32_t port, int family, const uint8_t *addr,
		     const uint8_t mac[6], uint8_t origin)
{
	struct neigh *n = push_neigh(&r->nb, &r->nnb, &r->nb_cap, port, family, addr, origin);
	if (!n)
		return -1;
	memcpy(n->mac, mac, 6);
	return 0;
}

int router_add_neighbour(struct router *r, uint32_t port, int family, const uint8_t *addr,
			 const uint8_t mac[6], char *err, size_t errlen)
{
	if (find_neigh(r->nb, r->nnb, family, addr)) {
		snprintf(err, errlen, "neighbour given twice");
		return -1;
	}
	if (add_neigh(r, port, family, addr, mac, ROUTE_ORIGIN_STATIC)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int router_add_route(struct router *r, uint32_t port, int family, const uint8_t *prefix,
		     unsigned len, const uint8_t *gw, char *err, size_t errlen)
{
	uint8_t g[16] = {0};
	memcpy(g, gw, alen(family));
	const struct neigh *n = find_neigh(r->nb, r->nnb, family, g);
	if (n ? n->port != port : !on_link(r, port, family, g)) {
		char a[INET6_ADDRSTRLEN];
		inet_ntop(family == 4 ? AF_INET : AF_INET6, g, a, sizeof(a));
		snprintf(err, errlen,
			 "gateway %s is neither a neighbour nor on a prefix of this port", a);
		return -1;
	}
	struct rt_entry *e = new_route(r, family, prefix, len, port, RT_VIA, ROUTE_ORIGIN_STATIC);
	if (!e) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	e->h.has_gw = true;
	memcpy(e->h.gw, g, 16);
	return 0;
}

int router_add_kernel_neighbour(struct router *r, uint32_t port, int family, const uint8_t *addr,
				const uint8_t mac[6])
{
	struct neigh *n = find_neigh(r->nb, r->nnb, family, addr);
	if (!n)
		return add_neigh(r, port, family, addr, mac, ROUTE_ORIGIN_KERNEL);
	if (n->origin == ROUTE_ORIGIN_STATIC)
		return 1;
	memcpy(n->mac, mac, 6);
	n->port = port;
	n->failed = false;
	return 0;
}

int router_add_kernel_failed(struct router *r, uint32_t port, int family, const uint8_t *addr)
{
	static const uint8_t none[6];
	struct neigh *n = find_neigh(r->nb, r->nnb, family, addr);
	if (n)
		return n->origin == ROUTE_ORIGIN_STATIC
			       ? 1
			       : 0; /* a resolved one of the kernel's wins too */
	if (add_neigh(r, port, family, addr, none, ROUTE_ORIGIN_KERNEL))
		return -1;
	r->nb[r->nnb - 1].failed = true;
	return 0;
}

int router_add_kernel_route(struct router *r, int family, const uint8_t *prefix, unsigned len,
			    const struct route_nh *nh, unsigned nnh, uint8_t proto)
{
	if (find_route(r, family, prefix, len))
		return 1; /* tdpd.conf's (or an address's) wins; the kernel's first of a kind */
	if (nnh < 1 || nnh > ROUTE_MAX_NH)
		return 1;
	if (nnh > 1 && grow((void **)&r->mp, &r->mp_cap, r->nmp + nnh - 1, sizeof(*r->mp)))
		return -1;
	struct rt_entry *e = new_route(r, family, prefix, len, nh[0].port,
				       nh[0].has_gw ? RT_VIA : RT_CONNECTED, ROUTE_ORIGIN_KERNEL);
	if (!e)
		return -1;
	e->proto = proto;
	if (nh[0].has_gw) {
		e->h.has_gw = true;
		memcpy(e->h.gw, nh[0].gw, alen(family));
	}
	e->nnh = (uint8_t)nnh;
	e->mp = (uint32_t)r->nmp;
	for (unsigned i = 1; i < nnh; i++) {
		struct rt_hop *h = &r->mp[r->nmp++];
		memset(h, 0, sizeof(*h));
		h->port = nh[i].port;
		h->has_gw = nh[i].has_gw;
		if (h->has_gw)
			memcpy(h->gw, nh[i].gw, alen(family));
	}
	return 0;
}

static int add_ent(struct router *r, size_t *cap, const struct rt_entry *src)
{
	if (grow((void **)&r->ent, cap, r->nent + 1, sizeof(*r->ent)))
		return -1;
	r->ent[r->nent++] = *src;
	return 0;
}

static int add_host(struct router *r, size_t *cap, const struct neigh *n, uint8_t kind)
{
	struct rt_entry e;
	memset(&e, 0, sizeof(e));
	e.family = n->family;
	e.kind = kind;
	e.origin = n->origin;
	memcpy(e.prefix, n->addr, 16);
	e.len = n->family == 4 ? 32 : 128;
	e.nnh = 1;
	e.h.port = n->port;
	e.h.has_mac = kind == RT_VIA && !n->failed;
	e.h.failed = n->failed;
	memcpy(e.h.mac, n->mac, 6);
	return add_ent(r, cap, &e);
}

/* a gateway's MAC from the neighbours, when it is one on the hop's port */
static void resolve_hop(const struct router *r, int family, struct rt_hop *h)
{
	const struct neigh *n = h->has_gw ? find_neigh(r->nb, r->nnb, family, h->gw) : NULL;
	bool here = n && n->port == h->port;
	h->has_mac = here && !n->failed;
	h->failed = here && n->failed;
	if (h->has_mac)
		memcpy(h->mac, n->mac, 6);
}

static int build_entries(struct router *r)
{
	size_t cap = 0;
	r->nent = 0;
	/* host routes: our addresses, then neighbours (a neighbour that is also
	 * our own address is a configuration slip; ours wins, added first) */
	for (size_t i = 0; i < r->nlocal; i++)
		if (add_host(r, &cap, &r->local[i], RT_LOCAL) != 0)
			return -1;
	for (size_t i = 0; i < r->nnb; i++)
		if (!find_neigh(r->local, r->nlocal, r->nb[i].family, r->nb[i].addr) &&
		    !find_route(r, r->nb[i].family, r->nb[i].addr,
				r->nb[i].family == 4 ? 32 : 128) &&
		    add_host(r, &cap, &r->nb[i], RT_VIA) != 0)
			return -1;
	/* the routes' gateways' MACs, in place: a router is built once */
	for (size_t i = 0; i < r->nrt; i++) {
		struct rt_entry *e = &r->rt[i];
		for (unsigned k = 0; k < e->nnh; k++)
			resolve_hop(r, e->family, k ? &r->mp[e->mp + k - 1] : &e->h);
	}
	return 0;
}

/* the fib's next hop i: a host route, then a route */
static inline const struct rt_entry *ent_at(const struct router *r, size_t i)
{
	return i < r->nent ? &r->ent[i] : &r->rt[i - r->nent];
}

static void ent_prefix(const void *ctx, size_t i, int *family, const uint8_t **prefix,
		       unsigned *len)
{
	const struct rt_entry *e = ent_at(ctx, i);
	*family = e->family;
	*prefix = e->prefix;
	*len = e->len;
}

int router_build(struct router *r, char *err, size_t errlen)
{
	size_t n = 0;
	if (build_entries(r) != 0 ||
	    fib_need_of(&r->need, n = r->nent + r->nrt, ent_prefix, r) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t first = 0;
	r->fib = fib_build(&r->need, n, ent_prefix, r, &r->missing, &first, err, errlen);
	/* No memory for every group (route-memory): half as many, and half
	 * again, down to none; the longest prefixes, which go in last, are the
	 * ones left out, counted and named, and every other route is in force.
	 * Without memory for the first levels the build fails: the router in
	 * force stays. */
	bool short_of_groups = false;
	while (!r->fib && (r->need.g4 || r->need.g6)) {
		r->need.g4 /= 2;
		r->need.g6 /= 2;
		short_of_groups = true;
		r->fib = fib_build(&r->need, n, ent_prefix, r, &r->missing, &first, err, errlen);
	}
	if (!r->fib)
		return -1;
	if (r->missing) {
		const struct rt_entry *e = ent_at(r, first);
		char a[INET6_ADDRSTRLEN] = "?";
		inet_ntop(e->family == 4 ? AF_INET : AF_INET6, e->prefix, a, sizeof(a));
		if (short_of_groups)
			snprintf(r->missing_first, sizeof(r->missing_first),
				 "%s/%u (route-memory is full)", a, e->len);
		else
			snprintf(r->missing_first, sizeof(r->missing_first),
				 "%s/%u (past %u entries)", a, e->len, FIB_NH_MAX + 1);
	}
	return 0;
}

uint64_t router_bytes(const struct router *r)
{
	return r->fib ? fib_bytes(&r->need) : 0;
}

size_t router_missing(const struct router *r, const char **first)
{
	if (first)
		*first = r->missing_first;
	return r->missing;
}

static inline uint32_t ip4_of(const struct pkt_info *pi)
{
	return (uint32_t)pi->dst[0] << 24 | (uint32_t)pi->dst[1] << 16 | (uint32_t)pi->dst[2] << 8 |
	       pi->dst[3];
}

/* A multipath route's pick for the packet: a hash of its addresses, its
 * protocol and its transport ports, so one transport flow keeps one path. */
static uint32_t flow_hash(const struct pkt_info *pi)
{
	unsigned n = pi->family == 4 ? 4 : 16;
	uint64_t h = (uint64_t)pi->proto << 32 | pi->l4_ports;
	for (unsigned i = 0; i < n; i += 4) {
		uint32_t s, d;
		memcpy(&s, pi->src + i, 4);
		memcpy(&d, pi->dst + i, 4);
		h = (h ^ s ^ (uint64_t)d << 32) * 0x9E3779B97F4A7C15ull;
		h = h << 31 | h >> 33;
	}
	/* MurmurHash3's 64-bit finaliser: every input bit reaches the low ones */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h;
}

/* Next hop k of entry e (0: its own) */
static inline const struct rt_hop *hop_of(const struct router *r, const struct rt_entry *e,
					  unsigned k)
{
	return k ? &r->mp[e->mp + k - 1] : &e->h;
}

/* Next hop k of entry e as the packet's route. */
static int nh_result(const struct router *r, const struct rt_entry *e, unsigned k,
		     const struct pkt_info *pi, uint32_t *port, uint8_t mac[6], uint8_t nh[16])
{
	const struct rt_hop *h = hop_of(r, e, k);
	*port = h->port;
	if (h->has_mac) {
		memcpy(mac, h->mac, 6);
		return ROUTE_OK;
	}
	if (nh)
		memcpy(nh, h->has_gw ? h->gw : pi->dst, 16);
	return h->failed ? ROUTE_NEIGH_FAILED : ROUTE_NO_NEIGH;
}

/* What the fib's next hop hop says for the packet. */
static int hop_result(const struct router *r, uint32_t hop, const struct pkt_info *pi,
		      uint32_t *port, uint8_t mac[6], uint8_t nh[16])
{
	const struct rt_entry *e = ent_at(r, hop);
	*port = e->h.port;
	if (e->kind == RT_LOCAL)
		return ROUTE_LOCAL;
	return nh_result(r, e, e->nnh > 1 ? flow_hash(pi) % e->nnh : 0, pi, port, mac, nh);
}

static int fib_hop(const struct router *r, const struct pkt_info *pi, uint32_t *hop)
{
	uint32_t nh = FIB_NONE;
	if (pi->family == 4) {
		uint32_t ip = ip4_of(pi);
		fib_lookup4(r->fib, &ip, &nh, 1);
	} else if (pi->family == 6) {
		fib_lookup6(r->fib, (const uint8_t(*)[16])pi->dst, &nh, 1);
	}
	*hop = nh;
	return nh == FIB_NONE ? -1 : 0;
}

int router_lookup_port(const struct router *r, const struct pkt_info *pi, uint32_t want,
		       uint32_t *port, uint8_t mac[6])
{
	uint32_t hop;
	if (fib_hop(r, pi, &hop) != 0)
		return ROUTE_NONE;
	const struct rt_entry *e = ent_at(r, hop);
	if (e->kind != RT_LOCAL)
		for (unsigned k = 0; k < e->nnh; k++)
			if (hop_of(r, e, k)->port == want)
				return nh_result(r, e, k, pi, port, mac, NULL);
	int rc = hop_result(r, hop, pi, port, mac, NULL);
	return rc == ROUTE_LOCAL || rc == ROUTE_NONE ? rc : ROUTE_OTHER_PORT;
}

int router_lookup(const struct router *r, const struct pkt_info *pi, uint32_t *port, uint8_t mac[6],
		  uint8_t nh[16])
{
	uint32_t hop;
	if (fib_hop(r, pi, &hop) != 0)
		return ROUTE_NONE;
	return hop_result(r, hop, pi, port, mac, nh);
}

void router_lookup_bulk(const struct router *r, const struct pkt_info *const *pi, uint32_t n,
			struct route_hop *out)
{
	/* IPv4 first in the arrays, IPv6 from the end */
	uint32_t ip[ROUTE_BULK_MAX], hop[ROUTE_BULK_MAX], at[ROUTE_BULK_MAX], n4 = 0, n6 = 0;
	uint8_t ip6[ROUTE_BULK_MAX][16];
	for (uint32_t i = 0; i < n; i++) {
		if (n4 + n6 == ROUTE_BULK_MAX || (pi[i]->family != 4 && pi[i]->family != 6)) {
			out[i].res =
				(int8_t)router_lookup(r, pi[i], &out[i].port, out[i].mac, NULL);
		} else if (pi[i]->family == 4) {
			at[n4] = i;
			ip[n4++] = ip4_of(pi[i]);
		} else {
			n6++;
			at[ROUTE_BULK_MAX - n6] = i;
			memcpy(ip6[ROUTE_BULK_MAX - n6], pi[i]->dst, 16);
		}
	}
	if (n4)
		fib_lookup4(r->fib, ip, hop, n4);
	if (n6)
		fib_lookup6(r->fib, (const uint8_t(*)[16])ip6 + ROUTE_BULK_MAX - n6,
			    hop + ROUTE_BULK_MAX - n6, n6);
	for (uint32_t k = 0; k < ROUTE_BULK_MAX; k++) {
		if (k == n4)
			k = ROUTE_BULK_MAX - n6; /* on to the IPv6 ones */
		if (k >= ROUTE_BULK_MAX)
			break;
		struct route_hop *o = &out[at[k]];
		o->res = hop[k] != FIB_NONE
				 ? (int8_t)hop_result(r, hop[k], pi[at[k]], &o->port, o->mac, NULL)
				 : ROUTE_NONE;
	}
}

/* entry e's views, one a next hop, into v[n..] below max; the count after */
static size_t entry_views(const struct router *r, const struct rt_entry *e, struct route_view *v,
			  size_t n, size_t max)
{
	for (unsigned k = 0; k < e->nnh; k++, n++) {
		if (n >= max)
			continue;
		const struct rt_hop *h = hop_of(r, e, k);
		v[n] = (struct route_view){.family = e->family,
					   .len = e->len,
					   .port = h->port,
					   .has_gw = h->has_gw,
					   .origin = e->origin,
					   .proto = e->proto,
					   .connected = e->kind == RT_CONNECTED && !k,
					   .local = e->kind == RT_LOCAL,
					   .neighbour = e->kind == RT_VIA && !e->h.has_gw,
					   .nh_index = (uint8_t)k,
					   .nnh = e->nnh};
		memcpy(v[n].prefix, e->prefix, 16);
		memcpy(v[n].gw, h->gw, 16);
		memcpy(v[n].mac, h->mac, 6);
		const struct neigh *nb =
			h->has_gw ? find_neigh(r->nb, r->nnb, e->family, h->gw) : NULL;
		/* a neighbour's host route: whether its MAC is known */
		v[n].resolved = v[n].neighbour ? h->has_mac : !h->has_gw || (nb && !nb->failed);
	}
	return n;
}

size_t router_routes(const struct router *r, struct route_view *v, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nrt; i++)
		n = entry_views(r, &r->rt[i], v, n, max);
	return n;
}

size_t router_match(const struct router *r, int family, const uint8_t *addr, struct route_view *v,
		    size_t max)
{
	struct pkt_info pi = {.family = (uint8_t)family};
	memcpy(pi.dst, addr, family == 4 ? 4 : 16);
	uint32_t hop;
	if (!r->fib || fib_hop(r, &pi, &hop) != 0)
		return 0;
	return entry_views(r, ent_at(r, hop), v, 0, max);
}

void router_summary(const struct router *r, struct route_summary *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < r->nrt; i++) {
		const struct rt_entry *e = &r->rt[i];
		s->routes[e->family == 6]++;
		s->by_len[e->family == 6][e->len > 128 ? 128 : e->len]++;
		if (e->origin == ROUTE_ORIGIN_KERNEL)
			s->by_proto[e->proto]++;
		else
			s->tdpd_conf++;
		s->multipath += e->nnh > 1;
	}
	s->neighbours = r->nnb;
	s->fib_bytes = router_bytes(r);
}

size_t router_neighbours(const struct router *r, struct route_view *v, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nnb; i++, n++)
		if (n < max) {
			const struct neigh *nb = &r->nb[i];
			v[n] = (struct route_view){.family = nb->family,
						   .len = nb->family == 4 ? 32 : 128,
						   .port = nb->port,
						   .origin = nb->origin,
						   .resolved = !nb->failed,
						   .failed = nb->failed};
			memcpy(v[n].prefix, nb->addr, 16);
			memcpy(v[n].mac, nb->mac, 6);
		}
	return n;
}

size_t router_addresses(const struct router *r, uint8_t (*a)[17], uint32_t *port, size_t max)
{
	for (size_t i = 0; i < r->nlocal && i < max; i++) {
		a[i][0] = r->local[i].family;
		memcpy(a[i] + 1, r->local[i].addr, 16);
		if (port)
			port[i] = r->local[i].port;
	}
	return r->nlocal;
}

int router_add_kernel_address(struct router *r, uint32_t port, int family, const uint8_t *addr)
{
	if (find_neigh(r->local, r->nlocal, family, addr))
		return 1;
	return push_neigh(&r->local, &r->nlocal, &r->local_cap, port, family, addr,
			  ROUTE_ORIGIN_KERNEL)
		       ? 0
		       : -1;
}
