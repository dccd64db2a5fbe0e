/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading the daemon's replies: what tdpctl_ctl.c and tdpctl_prom.c share. */
#ifndef TDP_TDPCTL_JSON_H
#define TDP_TDPCTL_JSON_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

/* The integer at "a.b.c" (a real is truncated, and held to the int64 range:
 * a reply is outside input), 0 when there is none. */
static inline int64_t I(json_t *o, const char *path)
{
	/* "a.b.c" */
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	json_t *v = o;
	for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v;
	     k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	if (json_is_integer(v))
		return (int64_t)json_integer_value(v);
	if (!json_is_real(v))
		return 0;
	double x = json_real_value(v);
	return x != x ? 0 : x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : (int64_t)x;
}

/* The string at key, "" when there is none. */
static inline const char *S(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* Prometheus text format of a stats reply (tdpctl_prom.c). */
void tdpctl_prometheus(json_t *r);

#endif
