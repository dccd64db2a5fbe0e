/* SPDX-License-Identifier: BSD-3-Clause */
/* `tdpctl routes` and `tdpctl neighbours`: what is in force and where each
 * entry came from (tdpd.conf or the kernel, with the kernel's protocol). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "control.h"
#include "hostpath.h"
#include "nl.h"
#include "route.h"

/* the kernel's rtm_protocol names (iproute2's rt_protos and rt_protos.d) */
static const char *proto_name(uint8_t p, char *buf, size_t len)
{
	switch (p) {
	case 2:
		return "kernel";
	case 3:
		return "boot";
	case 4:
		return "static";
	case 11:
		return "zebra";
	case 12:
		return "bird";
	case 16:
		return "dhcp";
	case 186:
		return "bgp";
	case 187:
		return "isis";
	case 188:
		return "ospf";
	case 189:
		return "rip";
	default:
		snprintf(buf, len, "%u", p);
		return buf;
	}
}

struct collect {
	const struct control *c;
	bool neighbours;
	json_t *a;
};

static void collect(const struct router *r, void *arg)
{
	struct collect *cl = arg;
	size_t n = cl->neighbours ? router_neighbours(r, NULL, 0) : router_routes(r, NULL, 0);
	struct route_view *v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return;
	n = cl->neighbours ? router_neighbours(r, v, n) : router_routes(r, v, n);
	for (size_t i = 0; i < n; i++) {
		int af = v[i].family == 4 ? AF_INET : AF_INET6;
		char a[INET6_ADDRSTRLEN], pfx[INET6_ADDRSTRLEN + 8], gw[INET6_ADDRSTRLEN], pb[8];
		inet_ntop(af, v[i].prefix, a, sizeof(a));
		const char *port = v[i].port < cl->c->nports ? cl->c->ports[v[i].port].name : "?";
		const char *from = route_origin_name(v[i].origin);
		if (cl->neighbours) {
			char mac[18];
			snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", v[i].mac[0],
				 v[i].mac[1], v[i].mac[2], v[i].mac[3], v[i].mac[4], v[i].mac[5]);
			json_array_append_new(cl->a,
					      json_pack("{ss ss ss ss ss}", "address", a, "mac",
							v[i].failed ? "" : mac, "port", port,
							"origin", from, "state",
							v[i].failed ? "failed" : "reachable"));
			continue;
		}
		snprintf(pfx, sizeof(pfx), "%s/%u", a, v[i].len);
		json_t *o = json_pack("{ss ss ss}", "prefix", pfx, "port", port, "origin", from);
		if (v[i].origin == ROUTE_ORIGIN_KERNEL)
			json_object_set_new(o, "protocol",
					    json_string(proto_name(v[i].proto, pb, sizeof(pb))));
		if (v[i].nnh > 1) {
			/* one of an equal-cost multipath route's next hops */
			json_object_set_new(o, "nexthop", json_integer(v[i].nh_index + 1));
			json_object_set_new(o, "nexthops", json_integer(v[i].nnh));
		}
		if (v[i].has_gw) {
			inet_ntop(af, v[i].gw, gw, sizeof(gw));
			json_object_set_new(o, "via", json_string(gw));
			json_object_set_new(o, "resolved", json_boolean(v[i].resolved));
		} else {
			json_object_set_new(o, "connected", json_true());
		}
		json_array_append_new(cl->a, o);
	}
	free(v);
}

json_t *control_routes_json(struct control *c, bool neighbours)
{
	struct collect cl = {.c = c, .neighbours = neighbours, .a = json_array()};
	if (c->nl)
		nl_with_router(c->nl, collect, &cl);
	else
		collect(c->tm.rx->rt, &cl);
	json_t *o = json_pack("{so ss}", neighbours ? "neighbours" : "routes", cl.a, "kernel",
			      c->nl ? "followed" : "not followed");
	if (c->nl) {
		struct nl_stats s;
		nl_stats(c->nl, &s);
		json_t *n = json_object();
#define KEY(field, key, help) json_object_set_new(n, key, json_integer((json_int_t)s.field));
		CTL_NETLINK_COUNTERS(KEY)
#undef KEY
		json_object_set_new(o, "netlink", n);
	}
	return o;
}

json_t *control_host_path_json(const struct hp_port *hp)
{
	json_t *o = json_pack("{ss ss si}", "mode", hp_mode_name(hp->mode), "interface", hp->ifname,
			      "rx_queues", (int)hp->queues);
	uint64_t st[XDPP_NSTATS];
	if (hp->x_open && xdpp_stats(&hp->x, st) == 0) {
		json_t *x = json_object();
		for (int i = 0; i < XDPP_NSTATS; i++)
			json_object_set_new(x, xdpp_stat_name((enum xdpp_stat)i),
					    json_integer((json_int_t)st[i]));
		json_object_set_new(o, "xdp", x);
	}
	return o;
}
