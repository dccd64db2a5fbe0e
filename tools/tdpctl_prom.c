/* SPDX-License-Identifier: BSD-3-Clause */
/* `tdpctl stats --prometheus`: the stats reply in the Prometheus text format
 * (for node_exporter's textfile collector). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "ctl_counters.h"
#include "tdpctl_json.h"

static void prom_label(const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if (*s == '\n') {
			fputs("\\n", stdout);
			continue;
		}
		putchar(*s);
	}
}

static void prom_head(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The value at key of the reply's object what ("engine", "rx.fragmented")
 * as the series name, which may carry labels (tdpd_x_total{a="b"}): its HELP
 * and TYPE once, before the first series of its name. One the reply lacks is
 * left out, never printed as 0, and named on stderr. */
static void prom_one(json_t *r, const char *what, const char *key, const char *name,
		     const char *type, const char *help)
{
	static char last[64];
	size_t base = strcspn(name, "{");
	if (strlen(last) != base || strncmp(last, name, base)) {
		snprintf(last, sizeof(last), "%.*s", (int)base, name);
		prom_head(last, type, help);
	}
	json_t *v = r;
	char path[64];
	snprintf(path, sizeof(path), "%s", what);
	for (char *save = NULL, *k = strtok_r(path, ".", &save); k; k = strtok_r(NULL, ".", &save))
		v = json_object_get(v, k);
	v = json_object_get(v, key);
	if (!json_is_integer(v)) {
		fprintf(stderr,
			"tdpctl: the daemon's reply has no %s counter \"%s\" (tdpd of another "
			"version?); left out\n",
			what, key);
		return;
	}
	printf("%s %" PRId64 "\n", name, (int64_t)json_integer_value(v));
}

/* One counter per key of defs for each flow or port in items, labelled by its
 * name (flows also by their port). A key an item lacks (a tdpd of another
 * version) is left out, never printed as 0, and named on stderr once. */
static void prom_per(json_t *items, const char *what, const char *const defs[][2], size_t ndefs)
{
	for (size_t i = 0; i < ndefs; i++) {
		char n[64];
		snprintf(n, sizeof(n), "tdpd_%s_%s_total", what, defs[i][0]);
		prom_head(n, "counter", defs[i][1]);
		size_t j;
		json_t *o;
		bool lacks = false;
		json_array_foreach(items, j, o)
		{
			if (!json_is_integer(json_object_get(o, defs[i][0]))) {
				lacks = true;
				continue;
			}
			printf("%s{%s=\"", n, what);
			prom_label(S(o, "name"));
			if (!strcmp(what, "flow")) {
				printf("\",port=\"");
				prom_label(S(o, "port"));
			}
			printf("\"} %" PRId64 "\n", I(o, defs[i][0]));
		}
		if (lacks)
			fprintf(stderr,
				"tdpctl: a %s in the daemon's reply has no counter \"%s\" (tdpd of "
				"another version?); left out\n",
				what, defs[i][0]);
	}
}

/* each port's link: up or not, its MTU, its changes */
static void prom_links(json_t *links)
{
	size_t i;
	json_t *l;
	prom_head(
		"tdpd_port_link_up", "gauge",
		"1 when the port's link is up with carrier, 0 when not; absent when not followed.");
	json_array_foreach(links, i, l) if (json_is_true(json_object_get(l, "followed")))
	{
		printf("tdpd_port_link_up{port=\"");
		prom_label(S(l, "port"));
		printf("\"} %d\n", !strcmp(S(l, "state"), "up"));
	}
	prom_head("tdpd_port_mtu_bytes", "gauge",
		  "The largest IP packet the port sends (its interface's MTU).");
	json_array_foreach(links, i, l)
	{
		printf("tdpd_port_mtu_bytes{port=\"");
		prom_label(S(l, "port"));
		printf("\"} %" PRId64 "\n", I(l, "mtu"));
	}
	prom_head("tdpd_port_link_changes_total", "counter",
		  "Link changes seen since start, down and up.");
	json_array_foreach(links, i, l)
	{
		for (int up = 0; up < 2; up++) {
			printf("tdpd_port_link_changes_total{port=\"");
			prom_label(S(l, "port"));
			printf("\",to=\"%s\"} %" PRId64 "\n", up ? "up" : "down",
			       I(l, up ? "ups" : "downs"));
		}
	}
}

/* what is wrong now: one series per alarm, 1 */
static void prom_alarms(json_t *alarms)
{
	size_t i;
	json_t *a;
	prom_head("tdpd_alarm", "gauge",
		  "1 for each condition that needs an operator: a link down, the sync budget "
		  "exceeded, a flow's route moved.");
	json_array_foreach(alarms, i, a)
	{
		printf("tdpd_alarm{kind=\"");
		prom_label(S(a, "kind"));
		printf("\",port=\"");
		prom_label(S(a, "port"));
		printf("\",flow=\"");
		prom_label(S(a, "flow"));
		printf("\"} 1\n");
	}
	prom_head("tdpd_alarms", "gauge", "Conditions that need an operator now.");
	printf("tdpd_alarms %zu\n", json_array_size(alarms));
}

void tdpctl_prometheus(json_t *r)
{
#define ENG(field, key, prom, help) prom_one(r, "engine", key, prom, "counter", help);
	CTL_ENGINE_COUNTERS(ENG)
#undef ENG
	prom_one(r, "engine", "next_frame", "tdpd_next_frame", "gauge",
		 "Absolute index of the frame the engine pushes next.");
	prom_head("tdpd_tf_seconds", "gauge", "Frame length of the table in force.");
	printf("tdpd_tf_seconds %.9f\n", (double)I(r, "tf_ns") / 1e9);
	prom_head("tdpd_cycle_frames", "gauge", "Frames per cycle (k) of the table in force.");
	printf("tdpd_cycle_frames %" PRId64 "\n", I(r, "k"));

	/* the frame-start error as a histogram with fixed bounds, from the daemon's bins */
	static const double le_ns[] = {100,   250, 500, 1e3,   2.5e3, 5e3, 1e4,
				       2.5e4, 5e4, 1e5, 2.5e5, 5e5,   1e6, 1e7};
	json_t *h = json_object_get(r, "start_error_ns");
	prom_head("tdpd_frame_start_error_seconds", "histogram",
		  "Push time minus the nominal frame start (negative values count in the lowest "
		  "bucket).");
	for (size_t i = 0; i < sizeof(le_ns) / sizeof(le_ns[0]); i++) {
		int64_t c = I(h, "under");
		size_t j;
		json_t *b;
		json_array_foreach(json_object_get(h, "bins"), j,
				   b) if (json_integer_value(json_array_get(b, 1)) <= le_ns[i]) c +=
			json_integer_value(json_array_get(b, 2));
		printf("tdpd_frame_start_error_seconds_bucket{le=\"%g\"} %" PRId64 "\n",
		       le_ns[i] / 1e9, c);
	}
	printf("tdpd_frame_start_error_seconds_bucket{le=\"+Inf\"} %" PRId64 "\n", I(h, "count"));
	double mean = json_real_value(json_object_get(h, "mean"));
	printf("tdpd_frame_start_error_seconds_sum %.9f\n", mean * (double)I(h, "count") / 1e9);
	printf("tdpd_frame_start_error_seconds_count %" PRId64 "\n", I(h, "count"));

	json_t *sy = json_object_get(r, "sync");
	prom_head("tdpd_sync_state", "gauge", "1 for the time source's sync state.");
	static const char *const states[] = {"locked", "holdover", "unlocked"};
	for (int i = 0; i < 3; i++)
		printf("tdpd_sync_state{state=\"%s\"} %d\n", states[i],
		       !strcmp(S(sy, "state"), states[i]));
	prom_head("tdpd_sync_offset_seconds", "gauge",
		  "Latest offset of the time source from its reference.");
	printf("tdpd_sync_offset_seconds %.9f\n", (double)I(sy, "offset_ns") / 1e9);
	prom_head("tdpd_sync_uncertainty_seconds", "gauge",
		  "Bound on the time error (grows in holdover).");
	printf("tdpd_sync_uncertainty_seconds %.9f\n", (double)I(sy, "uncertainty_ns") / 1e9);
#define SYNC(field, key, help) prom_one(r, "sync", key, "tdpd_sync_" key "_total", "counter", help);
	CTL_SYNC_COUNTERS(SYNC)
#undef SYNC

#define DEF(field, key, help) {key, help},
	static const char *const fc[][2] = {CTL_FLOW_RX_COUNTERS(DEF) CTL_FLOW_COUNTERS(DEF)};
	prom_per(json_object_get(r, "flows"), "flow", fc, sizeof(fc) / sizeof(fc[0]));
	/* past the flows a reply lists (65,535), their sums: one series a
	 * counter, not one a flow */
	for (size_t i = 0; json_object_get(r, "flows_sum") && i < sizeof(fc) / sizeof(fc[0]); i++) {
		char n[64], k[256];
		snprintf(n, sizeof(n), "tdpd_flows_%s_total", fc[i][0]);
		size_t hl = strlen(fc[i][1]); /* its help less its full stop */
		if (hl && fc[i][1][hl - 1] == '.')
			hl--;
		snprintf(k, sizeof(k), "%.*s, summed over every flow.", (int)hl, fc[i][1]);
		prom_one(r, "flows_sum", fc[i][0], n, "counter", k);
	}
	static const char *const pc[][2] = {CTL_PORT_COUNTERS(DEF)};
#undef DEF
	prom_per(json_object_get(r, "ports"), "port", pc, sizeof(pc) / sizeof(pc[0]));
	json_t *rx = json_object_get(r, "rx");
#define RX_TOP(field, key, prom, help) prom_one(r, "rx", key, prom, "counter", help);
#define RX_UNSENT(field, key, prom, help) \
	prom_one(r, "rx.icmp_not_sent", key, prom, "counter", help);
#define RX_FRAG(field, key, prom, help) prom_one(r, "rx.fragmented", key, prom, "counter", help);
	CTL_RX_COUNTERS(RX_TOP)
	CTL_RX_FRAG_COUNTERS(RX_FRAG)
	CTL_RX_ICMP_UNSENT(RX_UNSENT)
#undef RX_TOP
#undef RX_UNSENT
#undef RX_FRAG
	prom_head("tdpd_rx_dropped_total", "counter", "Packets dropped on receive, by reason.");
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(rx, "drop"), k, v)
		printf("tdpd_rx_dropped_total{reason=\"%s\"} %" PRId64 "\n", k,
		       (int64_t)json_integer_value(v));
	prom_head("tdpd_icmp_sent_total", "counter", "ICMP errors sent, by kind.");
	json_object_foreach(json_object_get(rx, "icmp_sent"), k, v) if (json_is_integer(v))
		printf("tdpd_icmp_sent_total{kind=\"%s\"} %" PRId64 "\n", k,
		       (int64_t)json_integer_value(v));
	prom_links(json_object_get(r, "links"));
	prom_alarms(json_object_get(r, "alarms"));
}
