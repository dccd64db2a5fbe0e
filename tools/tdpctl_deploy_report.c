/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl deploy's report (deploy_state.h): a line per router and the
 * outcome, or one JSON object. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "deploy_state.h"
#include "tdpctl_json.h"

void deploy_report_json(const struct deploy *dp)
{
	json_t *o = json_pack("{ss ss ss* sb}", "plan", dp->dir, "outcome", dp->outcome, "why",
			      dp->why[0] ? dp->why : NULL, "check", dp->check);
	json_object_set_new(o, "allow_unsynced",
			    dp->allow_unsynced ? json_string(dp->allow_unsynced) : json_null());
	json_object_set_new(o, "at_tai_ns", dp->T ? json_integer(dp->T) : json_null());
	json_object_set_new(o, "frame",
			    dp->frame != INT64_MIN && dp->T ? json_integer(dp->frame)
							    : json_null());
	json_t *a = json_array();
	for (uint32_t i = 0; i < dp->n; i++) {
		const struct deploy_router *r = &dp->r[i];
		json_t *x = json_pack("{ss ss ss ss ss ss ss}", "name", r->name, "via",
				      r->via ? r->via : "", "table", r->table ? r->table : "",
				      "digest", r->digest, "in_force_before", r->old_digest, "sync",
				      r->sync, "result", r->result);
		json_object_set_new(x, "sync_reason", json_string(r->sync_why));
		json_object_set_new(x, "in_force_before_origin", json_string(r->old_origin));
		json_object_set_new(x, "undone", r->undone ? json_string(r->undone) : json_null());
		json_object_set_new(x, "stage_id",
				    r->stage_id ? json_integer(r->stage_id) : json_null());
		json_object_set_new(x, "frame", r->frame ? json_integer(r->frame) : json_null());
		json_object_set_new(x, "error", r->error ? json_incref(r->error) : json_null());
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "routers", a);
	json_dumpf(o, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(o);
}

void deploy_report_text(const struct deploy *dp)
{
	printf("%-12s %-10s %-18s %-12s %-18s %-22s %s\n", "router", "sync", "digest", "result",
	       "in force before", "by", "via");
	for (uint32_t i = 0; i < dp->n; i++) {
		const struct deploy_router *r = &dp->r[i];
		char dg[20], od[20];
		snprintf(dg, sizeof(dg), "%.16s", r->digest);
		snprintf(od, sizeof(od), "%.16s", r->old_digest[0] ? r->old_digest : "?");
		printf("%-12s %-10s %-18s %-12s %-18s %-22s %s\n", r->name,
		       r->sync[0] ? r->sync : "?", dg, r->result, od,
		       r->old_origin[0] ? r->old_origin : "?", r->via);
		if (r->sync[0] && strcmp(r->sync, "locked"))
			printf("  sync: %s\n", r->sync_why);
		if (r->error) {
			printf("  %s: %s\n", S(r->error, "code"), S(r->error, "message"));
			size_t k;
			json_t *dg2;
			json_array_foreach(json_object_get(r->error, "diagnostics"), k, dg2) printf(
				"  %s:%" PRId64 ":%" PRId64 ": %s: %s\n", r->table, I(dg2, "line"),
				I(dg2, "col"), S(dg2, "severity"), S(dg2, "message"));
		}
	}
	printf("%s: %s\n", dp->outcome, dp->why);
	if (dp->allow_unsynced)
		printf("committed with routers not locked: %s\n", dp->allow_unsynced);
}
