/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes as text: the names of origins and lookup results, and addresses,
 * prefixes and MACs parsed from tdpd.conf and control requests (route.h).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "route.h"
#include "tdp_names.h"

const char *route_origin_name(int origin)
{
	return origin == ROUTE_ORIGIN_STATIC   ? "static"
	       : origin == ROUTE_ORIGIN_KERNEL ? "kernel"
					       : "unknown";
}

const char *route_res_name(int res)
{
	/* the results are 0 and below: indexed by their negation */
	static const char *const n[] = {
		[-ROUTE_OK] = "ok",
		[-ROUTE_NONE] = "no-route",
		[-ROUTE_NO_NEIGH] = "no-neighbour",
		[-ROUTE_LOCAL] = "local",
		[-ROUTE_NEIGH_FAILED] = "neighbour-failed",
		[-ROUTE_OTHER_PORT] = "other-port",
	};
	return TDP_NAME_OF(n, -(long)res, "unknown");
}

int route_parse_addr(const char *s, int *family, uint8_t addr[16])
{
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, s, addr) == 1) {
		*family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, addr) == 1) {
		*family = 6;
		return 0;
	}
	return -1;
}

int route_parse_prefix(const char *s, int *family, uint8_t addr[16], unsigned *len)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (route_parse_addr(buf, family, addr) != 0)
		return -1;
	unsigned max = *family == 4 ? 32 : 128;
	if (!slash) {
		*len = max;
		return 0;
	}
	char *end;
	unsigned long l = strtoul(slash + 1, &end, 10);
	if (end == slash + 1 || *end || l > max)
		return -1;
	*len = (unsigned)l;
	return 0;
}

int route_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;
	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}
