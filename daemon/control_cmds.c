/* SPDX-License-Identifier: BSD-3-Clause */
/* The control commands: what each answers, and their dispatch table (control.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "control.h"
#include "launch.h"
#include "ctl_proto.h"
#include "frame.h"
#include "log.h"

static const char *level_name(int level)
{
	return conf_level_names[level - LOG_ERR];
}

/* ---- the commands ------------------------------------------------------ */

static struct summary_src src(struct control *c)
{
	return (struct summary_src){.e = c->tm.e,
				    .rx = c->tm.rx,
				    .nrx = c->tm.nrx,
				    .timebase = c->timebase_name,
				    .tb = c->tm.tb,
				    .elapsed_s =
					    (double)(tdp_mono_ns() - c->started_mono_ns) / 1e9};
}

static json_t *table_json(const struct dtable *dt, bool with_flows)
{
	const struct sched_table *t = engine_table_sched(dt->et);
	json_t *o = json_pack("{ss sI sI sI sI si si sI sI}", "name", dt->name, "tf_ns",
			      (json_int_t)t->tf_ns, "k", (json_int_t)t->k, "epoch_ns",
			      (json_int_t)t->epoch_ns, "guard_ns", (json_int_t)t->guard_ns, "flows",
			      (int)t->nflows, "ports", (int)t->nports, "loaded_unix_s",
			      (json_int_t)dt->loaded_unix_s, "adopted_frame",
			      (json_int_t)engine_table_adopted(dt->et));
	json_object_set_new(o, "digest", json_string(dt->digest));
	json_object_set_new(o, "origin", json_string(dt->via));
	json_object_set_new(o, "resumed", json_boolean(dt->resumed));
	if (with_flows && t->nflows > SUMMARY_FLOWS_MAX) {
		json_object_set_new(o, "flow_list_omitted", json_true());
	} else if (with_flows) {
		json_t *names = json_array();
		for (uint32_t f = 0; f < t->nflows; f++)
			json_array_append_new(names,
					      json_pack("{ss ss}", "name", t->flows[f].name, "port",
							t->ports[t->flows[f].port].name));
		json_object_set_new(o, "flow_list", names);
	}
	return o;
}

static json_t *pending_json(struct control *c)
{
	if (!c->tm.pending)
		return json_null();
	json_t *o = table_json(c->tm.pending, false);
	json_object_set_new(o, "frame", json_integer(engine_table_requested(c->tm.pending->et)));
	const struct frame_geom *g = engine_geom(c->tm.e);
	json_object_set_new(
		o, "start_tai_ns",
		json_integer(frame_start(g, engine_table_requested(c->tm.pending->et)).ns));
	return o;
}

/* where the table in force is kept for a restart, and whether it is */
static json_t *state_json(struct control *c)
{
	return json_pack("{ss? sb sI}", "directory", c->tm.state ? c->tm.state->dir : NULL, "kept",
			 c->tm.state && c->tm.cur_saved, "save_errors",
			 (json_int_t)c->tm.save_errors);
}

static json_t *cmd_status(struct control *c)
{
	struct summary_src s = src(c);
	struct eng_stats es;
	engine_stats(c->tm.e, &es);
	const struct hist *h = engine_error_hist(c->tm.e);
	static _Thread_local struct hist hs;
	hist_snapshot(&hs, h);
	struct tb_sync sy;
	tb_sync(c->tm.tb, &sy);
	json_t *rx = summary_rx_json(c->tm.rx, c->tm.nrx);
	json_int_t drops = 0;
	const char *k;
	json_t *v;
	json_object_foreach(json_object_get(rx, "drop"), k, v) drops += json_integer_value(v);
	json_t *o = json_pack(
		"{ss si sf ss sI s{ss ss sI sI} s{sI sI sI sI sI sI sI} s{sI sI sI sI} s{sI sI sI} "
		"ss}",
		"version", TDP_VERSION, "pid", (int)getpid(), "uptime_s", s.elapsed_s, "timebase",
		c->timebase_name, "tai_ns", (json_int_t)tb_now(c->tm.tb).ns, "sync", "state",
		tb_state_name(sy.state), "reason", sy.reason, "offset_ns", (json_int_t)sy.offset_ns,
		"uncertainty_ns", (json_int_t)sy.uncertainty_ns, "frames", "processed",
		(json_int_t)es.frames, "late", (json_int_t)es.late_frames, "skipped",
		(json_int_t)es.skipped_frames, "next", (json_int_t)engine_next_frame(c->tm.e),
		"alarm", (json_int_t)es.alarm_frames, "demoted", (json_int_t)es.demoted_frames,
		"staged_past_start", (json_int_t)es.stage_overruns, "start_error_ns", "p50",
		(json_int_t)hist_quantile(&hs, 0.5), "p99", (json_int_t)hist_quantile(&hs, 0.99),
		"p999", (json_int_t)hist_quantile(&hs, 0.999), "max",
		(json_int_t)(hs.count ? hs.max : 0), "rx", "pkts",
		json_integer_value(json_object_get(rx, "pkts")), "reserved",
		json_integer_value(json_object_get(rx, "reserved")), "dropped", drops, "log_level",
		level_name(tdp_log_level));
	json_decref(rx);
	json_object_set_new(o, "table", table_json(c->tm.cur, false));
	json_object_set_new(o, "pending", pending_json(c));
	json_object_set_new(o, "swaps", json_integer((json_int_t)es.swaps));
	json_object_set_new(o, "state", state_json(c));
	json_object_set_new(o, "alarms", control_alarms_json(c));
	return o;
}

/* How the port's reserved bursts go out: launch time, with its clock map's
 * state, or the CPU at the boundary, and why. */
static json_t *push_json(const struct ctl_port_info *pi)
{
	json_t *o = json_pack("{ss ss}", "kind", pi->launch ? "launch-time" : "cpu", "why",
			      pi->push ? pi->push : "");
	if (pi->launch) {
		struct launch_stats st;
		launch_clock_stats(pi->launch, &st);
		json_object_set_new(o, "clock",
				    json_pack("{sb sI sI sI sI sI sI sI}", "ready", st.ready,
					      "samples", (json_int_t)st.samples, "wide",
					      (json_int_t)st.wide, "failed", (json_int_t)st.failed,
					      "steps", (json_int_t)st.steps, "last_bracket_ns",
					      (json_int_t)st.last_bracket_ns, "last_miss_ns",
					      (json_int_t)st.last_miss_ns, "rate_ppb",
					      (json_int_t)st.rate_ppb));
	}
	return o;
}

static json_t *cmd_ports(struct control *c)
{
	struct summary_src s = src(c);
	json_t *a = json_array();
	for (uint32_t p = 0; p < c->nports; p++) {
		const struct ctl_port_info *pi = &c->ports[p];
		char mac[18];
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", pi->mac[0], pi->mac[1],
			 pi->mac[2], pi->mac[3], pi->mac[4], pi->mac[5]);
		json_t *o = pi->table_port >= 0 ? summary_port_json(&s, (uint32_t)pi->table_port)
						: json_object();
		json_object_update_new(
			o,
			json_pack("{ss ss ss si ss si sI ss ss ss sb}", "name", pi->name, "device",
				  pi->device, "pmd", pi->pmd ? pi->pmd : "", "dpdk_port",
				  (int)pi->dpdk_port, "mac", mac, "link_mbps", (int)pi->link_mbps,
				  "rate_bps", (json_int_t)pi->rate_bps, "rate_from",
				  pi->rate_from ? pi->rate_from : "", "netdev", pi->ifname,
				  "coalescing", pi->coalesce, "scheduled", pi->table_port >= 0));
		if (pi->hp) {
			json_t *h = control_host_path_json(pi->hp);
			if (c->tm.rx->ports[p].has_tap) {
				struct rx_tap_stats ts;
				rx_tap_sum(c->tm.rx, c->tm.nrx ? c->tm.nrx : 1, p, &ts);
				json_object_set_new(h, "exception", summary_tap_json(&ts));
			}
			json_object_set_new(o, "host_path", h);
		}
		json_object_set_new(o, "driver", summary_drv_json(pi->dpdk_port));
		json_object_set_new(o, "push", push_json(pi));
		json_object_set_new(o, "rx",
				    json_pack("{si sb ss}", "queues", (int)pi->nq, "rss", pi->rss,
					      "why_fewer", pi->queues ? pi->queues : ""));
		if (pi->link)
			json_object_set_new(o, "link", control_link_json(pi->link));
		json_array_append_new(a, o);
	}
	return json_pack("{so}", "ports", a);
}

/* every flow's counters (up to SUMMARY_FLOWS_MAX flows), one flow's
 * ("name"), or their sum ("summary") */
static char *cmd_flows(struct control *c, json_t *args)
{
	struct eng_table *et = c->tm.cur->et;
	const struct sched_table *t = engine_table_sched(et);
	json_t *nm = json_object_get(args, "name");
	if (nm && !json_is_string(nm))
		return control_reply_err("bad-args", "name must be a flow's name");
	if (json_is_true(json_object_get(args, "summary")))
		return control_reply_ok(json_pack("{ss so}", "table", c->tm.cur->name, "sum",
						  summary_flows_sum_json(t, et)));
	if (!nm && t->nflows > SUMMARY_FLOWS_MAX)
		return control_reply_err("too-big",
					 "%u flows are more than a reply lists (%u at the most): "
					 "ask for their sum (tdpctl flows --summary) or for one "
					 "flow (tdpctl flows NAME)",
					 t->nflows, SUMMARY_FLOWS_MAX);
	json_t *a = json_array();
	for (uint32_t f = 0; f < t->nflows; f++)
		if (!nm || !strcmp(t->flows[f].name, json_string_value(nm)))
			json_array_append_new(a, summary_flow_json(t, et, f));
	if (nm && !json_array_size(a)) {
		json_decref(a);
		char n[SCHED_NAME_MAX];
		control_text_copy(n, sizeof(n), json_string_value(nm));
		return control_reply_err("unknown-flow", "table %s has no flow '%s'",
					 c->tm.cur->name, n);
	}
	return control_reply_ok(json_pack("{ss so}", "table", c->tm.cur->name, "flows", a));
}

static json_t *cmd_sync(struct control *c)
{
	struct summary_src s = src(c);
	char desc[256];
	c->tm.tb->ops->describe(c->tm.tb, desc, sizeof(desc));
	struct eng_stats es;
	engine_stats(c->tm.e, &es);
	json_t *o = summary_sync_json(c->tm.tb);
	json_object_update_new(
		o, json_pack("{ss ss sI sI sI sI sI sI sI}", "timebase", c->timebase_name,
			     "description", desc, "tai_ns", (json_int_t)tb_now(c->tm.tb).ns,
			     "holdover_frames", (json_int_t)es.holdover_frames, "unlocked_frames",
			     (json_int_t)es.unlocked_frames, "alarm_frames",
			     (json_int_t)es.alarm_frames, "demoted_frames",
			     (json_int_t)es.demoted_frames, "back_steps", (json_int_t)es.back_steps,
			     "skip_events", (json_int_t)es.skip_events));
	json_object_set_new(o, "holdover_action",
			    json_string(conf_action_names[c->conf->sync_holdover_action]));
	json_object_set_new(o, "unlocked_action",
			    json_string(conf_action_names[c->conf->sync_unlocked_action]));
	json_object_set_new(o, "budget", control_budget_json(c));
	json_t *tick = summary_tick_json(&s);
	if (tick) {
		json_object_set_new(tick, "ticks", json_integer((json_int_t)es.ticks));
		json_object_set_new(tick, "timeouts", json_integer((json_int_t)es.tick_timeouts));
		json_object_set_new(o, "tick", tick);
	}
	return o;
}

static json_t *cmd_stats(struct control *c)
{
	struct summary_src s = src(c);
	json_t *o = summary_to_json(&s);
	json_object_set_new(o, "table", json_string(c->tm.cur->name));
	json_object_set_new(o, "control",
			    json_pack("{sI sI sI sI sI}", "loads", (json_int_t)c->tm.loads,
				      "rejected", (json_int_t)c->tm.rejected, "swap_dropped",
				      (json_int_t)c->tm.swap_dropped, "clients",
				      (json_int_t)c->clients, "clients_busy",
				      (json_int_t)c->clients_refused));
	json_t *links = json_array();
	for (uint32_t p = 0; p < c->nports; p++)
		if (c->ports[p].link) {
			json_t *l = control_link_json(c->ports[p].link);
			json_object_set_new(l, "port", json_string(c->ports[p].name));
			json_array_append_new(links, l);
		}
	json_object_set_new(o, "links", links);
	json_object_set_new(o, "alarms", control_alarms_json(c));
	return o;
}

static char *cmd_log_level(struct control *c, json_t *args)
{
	json_t *lv = json_object_get(args, "level");
	if (lv) {
		int l = json_is_string(lv) ? tdp_log_parse(json_string_value(lv)) : -1;
		if (l < 0)
			return control_reply_err(
				"bad-args",
				"log level must be error, warning, notice, info or debug");
		int was = tdp_log_level;
		tdp_log_level = l;
		log_notice("log level %s -> %s (control socket)", level_name(was), level_name(l));
	}
	return control_reply_ok(json_pack("{ss}", "level", level_name(tdp_log_level)));
}

static json_t *cmd_schedule_active(struct control *c, json_t *args)
{
	struct eng_stats es;
	engine_stats(c->tm.e, &es);
	json_t *o =
		json_pack("{so so so sI sI sI sI}", "table", table_json(c->tm.cur, true), "pending",
			  pending_json(c), "staged", tables_staged_json(&c->tm), "swaps",
			  (json_int_t)es.swaps, "late_swaps", (json_int_t)es.late_swaps, "loads",
			  (json_int_t)c->tm.loads, "rejected", (json_int_t)c->tm.rejected);
	json_object_set_new(o, "stages",
			    json_pack("{sI sI sI sI}", "staged", (json_int_t)c->tm.stages,
				      "committed", (json_int_t)c->tm.commits, "aborted",
				      (json_int_t)c->tm.aborts, "expired",
				      (json_int_t)c->tm.expired));
	json_object_set_new(o, "state", state_json(c));
	if (c->tm.last_swap_name[0])
		json_object_set_new(o, "last_swap",
				    json_pack("{ss sI sI}", "name", c->tm.last_swap_name, "frame",
					      (json_int_t)c->tm.last_swap_frame, "requested",
					      (json_int_t)c->tm.last_swap_requested));
	if (json_is_true(json_object_get(args, "source"))) {
		const struct sched_table *t = engine_table_sched(c->tm.cur->et);
		json_object_set_new(o, "source",
				    json_stringn(t->src ? t->src : "", t->src ? t->src_len : 0));
	}
	return o;
}

/* ---- dispatch ------------------------------------------------------------ */

struct request {
	json_t *args; /* NULL: none */
	int fd;	      /* a descriptor passed with the request, or -1 */
	int slot;     /* the client's (control.h), for a reply that comes later */
	bool *defer;  /* set: the reply comes later (a table waiting for its frame) */
};

enum handler_kind {
	H_READ,
	H_CHANGE,
	H_CHANGE_WITH_ARG
};

struct handler {
	const char *name; /* as in ctl_cmds[] */
	enum handler_kind kind;
	const char *change; /* what the change is, for the read-only refusal */
	const char *arg;    /* H_CHANGE_WITH_ARG: the argument that makes it one */
	char *(*fn)(struct control *c, const struct request *rq);
};

static char *h_status(struct control *c, const struct request *rq)
{
	return control_reply_ok(cmd_status(c));
}

static char *h_ports(struct control *c, const struct request *rq)
{
	return control_reply_ok(cmd_ports(c));
}

static char *h_flows(struct control *c, const struct request *rq)
{
	return cmd_flows(c, rq->args);
}

static char *h_sync(struct control *c, const struct request *rq)
{
	return control_reply_ok(cmd_sync(c));
}

static char *h_stats(struct control *c, const struct request *rq)
{
	return control_reply_ok(cmd_stats(c));
}

static char *h_routes(struct control *c, const struct request *rq)
{
	return control_routes_reply(c, false, rq->args);
}

static char *h_neighbours(struct control *c, const struct request *rq)
{
	return control_routes_reply(c, true, rq->args);
}

static char *h_log_level(struct control *c, const struct request *rq)
{
	return cmd_log_level(c, rq->args);
}

static char *h_schedule_active(struct control *c, const struct request *rq)
{
	return control_reply_ok(cmd_schedule_active(c, rq->args));
}

static char *h_schedule_load(struct control *c, const struct request *rq)
{
	return control_load_submit(c, rq->args, rq->fd, rq->slot, false, rq->defer);
}

static char *h_schedule_stage(struct control *c, const struct request *rq)
{
	return control_load_submit(c, rq->args, rq->fd, rq->slot, true, rq->defer);
}

static char *h_schedule_commit(struct control *c, const struct request *rq)
{
	return tables_commit(&c->tm, rq->args, rq->slot, rq->defer);
}

static char *h_schedule_abort(struct control *c, const struct request *rq)
{
	return tables_abort(&c->tm, rq->args);
}

static char *h_schedule_cancel(struct control *c, const struct request *rq)
{
	return tables_cancel(&c->tm);
}

static char *h_capture(struct control *c, const struct request *rq)
{
	return control_capture_start(c, rq->args, rq->fd, rq->slot, rq->defer);
}

static const struct handler handlers[] = {
	{"status", H_READ, NULL, NULL, h_status},
	{"ports", H_READ, NULL, NULL, h_ports},
	{"flows", H_READ, NULL, NULL, h_flows},
	{"sync", H_READ, NULL, NULL, h_sync},
	{"stats", H_READ, NULL, NULL, h_stats},
	{"routes", H_READ, NULL, NULL, h_routes},
	{"neighbours", H_READ, NULL, NULL, h_neighbours},
	{"log-level", H_CHANGE_WITH_ARG, "setting the log level", "level", h_log_level},
	{"schedule-active", H_READ, NULL, NULL, h_schedule_active},
	{"schedule-load", H_CHANGE, "loading a table", NULL, h_schedule_load},
	{"schedule-cancel", H_CHANGE, "cancelling a table", NULL, h_schedule_cancel},
	{"schedule-stage", H_CHANGE, "staging a table", NULL, h_schedule_stage},
	{"schedule-commit", H_CHANGE, "committing a staged table", NULL, h_schedule_commit},
	{"schedule-abort", H_CHANGE, "aborting a staged table", NULL, h_schedule_abort},
	{"capture", H_CHANGE, "capturing a port's packets", NULL, h_capture},
	{NULL, H_READ, NULL, NULL, NULL},
};

static const struct handler *handler_find(const char *name)
{
	for (const struct handler *h = handlers; h->name; h++)
		if (!strcmp(h->name, name))
			return h;
	return NULL;
}

const char *control_unhandled(void)
{
	for (const struct ctl_cmd *cc = ctl_cmds; cc->name; cc++) {
		const struct handler *h = handler_find(cc->name);
		if (!h || (h->kind != H_READ) != cc->changes)
			return cc->name;
	}
	for (const struct handler *h = handlers; h->name; h++)
		if (!ctl_cmd_find(h->name))
			return h->name;
	return NULL;
}

char *control_handle(struct control *c, const char *req, size_t len, int fd, int slot,
		     bool privileged, bool *defer)
{
	*defer = false;
	json_error_t je;
	json_t *r = json_loadb(req, len, JSON_REJECT_DUPLICATES, &je);
	if (!r || !json_is_object(r)) {
		json_decref(r);
		return control_reply_err("malformed", "the request is not a JSON object: %s",
					 r ? "" : je.text);
	}
	char *out = NULL;
	json_t *ver = json_object_get(r, "version"), *cmd = json_object_get(r, "cmd");
	json_t *args = json_object_get(r, "args");
	if (!json_is_integer(ver) || json_integer_value(ver) != CTL_VERSION) {
		out = control_reply_err("version",
					"this tdpd speaks protocol version %d; the request has %s",
					CTL_VERSION, json_is_integer(ver) ? "another" : "none");
		goto done;
	}
	if (!json_is_string(cmd)) {
		out = control_reply_err("malformed", "the request has no \"cmd\" string");
		goto done;
	}
	if (args && !json_is_object(args)) {
		out = control_reply_err("bad-args", "\"args\" must be an object");
		goto done;
	}
	const char *name = json_string_value(cmd);
	const struct handler *h = handler_find(name);
	if (!h || !ctl_cmd_find(name)) {
		out = control_reply_err("unknown-command",
					"unknown command '%.64s' (tdpctl --help lists them)", name);
		goto done;
	}
	/* a change only on the control socket; log-level is one only with a level */
	bool change = h->kind == H_CHANGE ||
		      (h->kind == H_CHANGE_WITH_ARG && json_object_get(args, h->arg));
	if (change && !privileged) {
		out = control_reply_err("read-only", "%s is a change: use the control socket %s",
					h->change, c->conf->control_socket);
		goto done;
	}
	struct request rq = {.args = args, .fd = fd, .slot = slot, .defer = defer};
	out = h->fn(c, &rq);
done:
	json_decref(r);
	if (!out && !*defer)
		out = control_reply_err("internal", "out of memory");
	return out;
}

/* ---- swaps ------------------------------------------------------------- */
