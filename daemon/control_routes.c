/* SPDX-License-Identifier: BSD-3-Clause */
/* `tdpctl routes` and `tdpctl neighbours`: what is in force and where each
 * entry came from (tdpd.conf or the kernel, with the kernel's protocol); the
 * route a packet to an address takes; a table's counts when it is too big to
 * list in one reply. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "control.h"
#include "control_reply.h"
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

/* Routes a reply lists at the most: about 160 bytes of JSON each, so the
 * reply stays well inside CTL_MAX_REPLY; a bigger table is counted
 * (--summary) or asked about one address at a time. */
#define ROUTES_LIST_MAX 200000

struct collect {
	const struct control *c;
	bool neighbours, summary, to;
	int family;
	uint8_t addr[16];
	size_t total; /* views the table has: a list is refused past the most */
	json_t *a, *sum;
};

static json_t *routes_summary_json(const struct router *r)
{
	struct route_summary *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	router_summary(r, s);
	json_t *o = json_pack("{sI sI sI sI sI sI}", "ipv4", (json_int_t)s->routes[0], "ipv6",
			      (json_int_t)s->routes[1], "tdpd_conf", (json_int_t)s->tdpd_conf,
			      "multipath", (json_int_t)s->multipath, "neighbours",
			      (json_int_t)s->neighbours, "fib_bytes", (json_int_t)s->fib_bytes);
	json_t *proto = json_object(), *len4 = json_object(), *len6 = json_object();
	char pb[8], lb[8];
	for (int p = 0; p < 256; p++)
		if (s->by_proto[p])
			json_object_set_new(proto, proto_name((uint8_t)p, pb, sizeof(pb)),
					    json_integer((json_int_t)s->by_proto[p]));
	for (int f = 0; f < 2; f++)
		for (int l = 0; l <= 128; l++)
			if (s->by_len[f][l]) {
				snprintf(lb, sizeof(lb), "/%d", l);
				json_object_set_new(f ? len6 : len4, lb,
						    json_integer((json_int_t)s->by_len[f][l]));
			}
	json_object_set_new(o, "kernel_by_protocol", proto);
	json_object_set_new(o, "ipv4_by_length", len4);
	json_object_set_new(o, "ipv6_by_length", len6);
	free(s);
	return o;
}

static void collect(const struct router *r, void *arg)
{
	struct collect *cl = arg;
	if (cl->summary) {
		cl->sum = routes_summary_json(r);
		return;
	}
	size_t n = cl->neighbours ? router_neighbours(r, NULL, 0)
		   : cl->to	  ? router_match(r, cl->family, cl->addr, NULL, 0)
				  : router_routes(r, NULL, 0);
	cl->total = n;
	if (!cl->neighbours && n > ROUTES_LIST_MAX)
		return;
	struct route_view *v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return;
	n = cl->neighbours ? router_neighbours(r, v, n)
	    : cl->to	   ? router_match(r, cl->family, cl->addr, v, n)
			   : router_routes(r, v, n);
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
		if (v[i].origin == ROUTE_ORIGIN_KERNEL && !v[i].neighbour && !v[i].local)
			json_object_set_new(o, "protocol",
					    json_string(proto_name(v[i].proto, pb, sizeof(pb))));
		if (v[i].nnh > 1) {
			/* one of an equal-cost multipath route's next hops */
			json_object_set_new(o, "nexthop", json_integer(v[i].nh_index + 1));
			json_object_set_new(o, "nexthops", json_integer(v[i].nnh));
		}
		if (v[i].local) {
			json_object_set_new(o, "local", json_true());
		} else if (v[i].neighbour) {
			json_object_set_new(o, "neighbour", json_true());
			if (v[i].resolved) {
				char mac[18];
				snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
					 v[i].mac[0], v[i].mac[1], v[i].mac[2], v[i].mac[3],
					 v[i].mac[4], v[i].mac[5]);
				json_object_set_new(o, "mac", json_string(mac));
			}
		} else if (v[i].has_gw) {
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

char *control_routes_reply(struct control *c, bool neighbours, json_t *args)
{
	struct collect cl = {.c = c, .neighbours = neighbours, .a = json_array()};
	const char *to = json_string_value(json_object_get(args, "to"));
	cl.summary = !neighbours && json_is_true(json_object_get(args, "summary"));
	if (!neighbours && to) {
		cl.to = true;
		cl.family = inet_pton(AF_INET, to, cl.addr) == 1    ? 4
			    : inet_pton(AF_INET6, to, cl.addr) == 1 ? 6
								    : 0;
		if (!cl.family) {
			json_decref(cl.a);
			char t[64];
			control_text_copy(t, sizeof(t), to);
			return control_reply_err("bad-args", "'%s' is not an IPv4 or IPv6 address",
						 t);
		}
	}
	if (c->nl)
		nl_with_router(c->nl, collect, &cl);
	else
		collect(c->tm.rx->rt, &cl);
	if (!neighbours && !cl.to && !cl.summary && cl.total > ROUTES_LIST_MAX) {
		json_decref(cl.a);
		return control_reply_err(
			"too-big",
			"%zu routes are more than a reply lists (%u at the most): "
			"ask for their counts (tdpctl routes --summary) or for the "
			"route to one address (tdpctl routes ADDRESS)",
			cl.total, ROUTES_LIST_MAX);
	}
	json_t *o = json_pack("{ss}", "kernel", c->nl ? "followed" : "not followed");
	if (cl.summary)
		json_object_set_new(o, "summary", cl.sum ? cl.sum : json_null());
	else
		json_object_set_new(o, neighbours ? "neighbours" : "routes", cl.a);
	if (cl.summary)
		json_decref(cl.a);
	if (cl.to)
		json_object_set_new(o, "to", json_string(to));
	if (c->nl) {
		struct nl_stats s;
		nl_stats(c->nl, &s);
		json_t *n = json_object();
#define KEY(field, key, help) json_object_set_new(n, key, json_integer((json_int_t)s.field));
		CTL_NETLINK_COUNTERS(KEY)
#undef KEY
		json_object_set_new(o, "netlink", n);
	}
	return control_reply_ok(o);
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
