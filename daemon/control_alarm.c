/* SPDX-License-Identifier: BSD-3-Clause */
/* What is wrong now, for `tdpctl status`, `stats` and Prometheus: the ports'
 * links, the time source's uncertainty past the table's sync budget and the
 * reserved flows whose route moved off their port. Read from the counters
 * and states other threads keep; nothing here is remembered. */
#include <jansson.h>

#include "control.h"
#include "portlink.h"
#include "timebase.h"

json_t *control_link_json(const struct port_link *l)
{
	static const char *const from[] = {"none", "kernel", "driver"};
	uint32_t mf = PL_GET(l->mtu_from);
	int64_t rs = PL_GET(l->resync_ns);
	return json_pack("{ss sb sI ss sI sI sI sI sI so}", "state", port_link_word(l), "followed",
			 (int)PL_GET(l->known), "mtu", (json_int_t)PL_GET(l->mtu), "mtu_from",
			 mf < 3 ? from[mf] : "?", "downs", (json_int_t)PL_GET(l->downs), "ups",
			 (json_int_t)PL_GET(l->ups), "since_ns", (json_int_t)PL_GET(l->since_ns),
			 "resyncs", (json_int_t)PL_GET(l->resyncs), "addresses_restored",
			 (json_int_t)PL_GET(l->restored), "resync_ns",
			 rs < 0 ? json_null() : json_integer(rs));
}

json_t *control_budget_json(struct control *c)
{
	const struct sched_table *t = engine_table_sched(c->tm.cur->et);
	int64_t b = sched_sync_budget(t), u = tb_uncertainty(c->tm.tb);
	struct eng_stats es;
	engine_stats(c->tm.e, &es);
	return json_pack("{so ss sb sI ss sI sI}", "budget_ns",
			 b < 0 ? json_null() : json_integer(b), "from", sched_sync_budget_from(t),
			 "over", b >= 0 && u > b, "uncertainty_ns", (json_int_t)u, "action",
			 conf_action_names[c->conf->sync_budget_action], "over_budget_frames",
			 (json_int_t)es.over_budget_frames, "time_offset_ns",
			 (json_int_t)c->conf->time_offset_ns);
}

json_t *control_alarms_json(struct control *c)
{
	json_t *a = json_array();
	for (uint32_t p = 0; p < c->nports; p++) {
		const struct port_link *l = c->ports[p].link;
		if (l && PL_GET(l->known) && !port_link_usable(l))
			json_array_append_new(a, json_pack("{ss ss ss sI}", "kind", "link-down",
							   "port", c->ports[p].name, "state",
							   port_link_word(l), "since_ns",
							   (json_int_t)PL_GET(l->since_ns)));
	}
	struct eng_table *et = c->tm.cur->et;
	const struct sched_table *t = engine_table_sched(et);
	int64_t budget = sched_sync_budget(t), unc = tb_uncertainty(c->tm.tb);
	if (budget >= 0 && unc > budget)
		json_array_append_new(a, json_pack("{ss sI sI ss ss}", "kind", "sync-budget",
						   "uncertainty_ns", (json_int_t)unc, "budget_ns",
						   (json_int_t)budget, "from",
						   sched_sync_budget_from(t), "action",
						   conf_action_names[c->conf->sync_budget_action]));
	int64_t now = tb_now(c->tm.tb).ns;
	for (uint32_t f = 0; f < t->nflows; f++) {
		struct flow_rx_sum fr;
		engine_table_flow_rx_sum(et, f, &fr, NULL);
		if (!fr.moved_at_ns || now - fr.moved_at_ns > CTL_MOVED_ALARM_NS)
			continue;
		const char *to = fr.moved_port && fr.moved_port <= c->nports
					 ? c->ports[fr.moved_port - 1].name
					 : "none";
		json_array_append_new(
			a, json_pack("{ss ss ss ss sI sI ss}", "kind", "route-moved", "flow",
				     t->flows[f].name, "port", t->ports[t->flows[f].port].name,
				     "to_port", to, "packets", (json_int_t)fr.route_moved,
				     "last_tai_ns", (json_int_t)fr.moved_at_ns, "policy",
				     c->conf->moved_route == RX_MOVED_BEST_EFFORT ? "best-effort"
										  : "drop"));
	}
	return a;
}
