/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpctl schedule stage|commit|abort: a table loaded in two phases. The stage
 * reads, checks and builds the table in the daemon and holds it under an id;
 * the commit puts it in force at a time; the abort drops it. tdpctl deploy
 * makes every router of a plan take the same steps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "tdpctl.h"

static int64_t num(json_t *o, const char *key)
{
	return (int64_t)json_integer_value(json_object_get(o, key));
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* a positive id, or 0 */
static uint64_t parse_id(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	return *s >= '0' && *s <= '9' && !*end && !errno && v <= INT64_MAX ? v : 0;
}

static int usage_err(const char *msg)
{
	fprintf(stderr, "%s\n", msg);
	return TDPCTL_EXIT_USAGE;
}

static int stage(const struct tdpctl_global *g, int argc, char **argv)
{
	const char *file = NULL, *name = NULL;
	json_t *args = json_object();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			name = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--ttl") && i + 1 < argc) {
			char *end;
			double s = strtod(argv[++i], &end);
			if (*end || !(s >= 0.001 && s <= 3600)) {
				json_decref(args);
				return usage_err("tdpctl: schedule stage --ttl takes seconds, "
						 "0.001 to 3600");
			}
			json_object_set_new(args, "ttl_ms",
					    json_integer((json_int_t)(s * 1000 + 0.5)));
		} else if (tdpctl_file_arg("stage", argv[i], &file)) {
			json_decref(args);
			return TDPCTL_EXIT_USAGE;
		}
	}
	if (!file) {
		json_decref(args);
		return usage_err("usage: tdpctl schedule stage FILE [--ttl SECONDS] [--name NAME]");
	}
	int rc;
	json_t *o = tdpctl_pass_table(g, "schedule-stage", file, name, args, &rc);
	if (!o)
		return rc;
	json_t *r = tdpctl_text_result(g, o, rc);
	if (r)
		printf("%s: staged as %" PRId64 " (digest %s, k %" PRId64 ", %" PRId64
		       " flows); commit or abort within "
		       "%.1f s\n",
		       name ? name : file, num(r, "id"), str(r, "digest"), num(r, "k"),
		       num(r, "flows"), (double)num(r, "expires_in_ms") / 1000);
	json_decref(o);
	return rc;
}

static int commit(const struct tdpctl_global *g, int argc, char **argv)
{
	uint64_t id = 0;
	json_t *args = json_object();
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--at") && i + 1 < argc) {
			if (tdpctl_at_option(argv[++i], args) != 0) {
				json_decref(args);
				return TDPCTL_EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--no-wait")) {
			json_object_set_new(args, "wait", json_false());
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "tdpctl: schedule commit: unknown option '%s'\n", argv[i]);
			json_decref(args);
			return TDPCTL_EXIT_USAGE;
		} else if (!id && (id = parse_id(argv[i])) != 0) {
			json_object_set_new(args, "id", json_integer((json_int_t)id));
		} else {
			fprintf(stderr,
				"tdpctl: schedule commit: '%s' is not a stage's id (a positive "
				"integer)\n",
				argv[i]);
			json_decref(args);
			return TDPCTL_EXIT_USAGE;
		}
	}
	if (!id) {
		json_decref(args);
		return usage_err(
			"usage: tdpctl schedule commit ID [--at TAI-SECONDS|+SECONDS] [--no-wait]");
	}
	int rc;
	json_t *o = tdpctl_call(g, true, "schedule-commit", args, -1, &rc);
	if (!o)
		return rc;
	json_t *r = tdpctl_text_result(g, o, rc);
	tdpctl_print_swap(str(r, "table"), "committed", r);
	json_decref(o);
	return rc;
}

static int abort_stage(const struct tdpctl_global *g, int argc, char **argv)
{
	uint64_t id = argc == 2 ? parse_id(argv[1]) : 0;
	if (!id)
		return usage_err("usage: tdpctl schedule abort ID");
	int rc;
	json_t *o = tdpctl_call(g, true, "schedule-abort", json_pack("{sI}", "id", (json_int_t)id),
				-1, &rc);
	if (!o)
		return rc;
	json_t *r = tdpctl_text_result(g, o, rc);
	if (r)
		printf("%s (staged as %" PRId64 "): dropped; %s stays in force\n", str(r, "table"),
		       num(r, "aborted"), str(r, "in_force"));
	json_decref(o);
	return rc;
}

int tdpctl_stage(const struct tdpctl_global *g, int argc, char **argv)
{
	if (!strcmp(argv[0], "stage"))
		return stage(g, argc, argv);
	if (!strcmp(argv[0], "commit"))
		return commit(g, argc, argv);
	return abort_stage(g, argc, argv);
}
