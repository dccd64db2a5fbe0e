/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl deploy's command line: its usage, and its options into struct
 * deploy (deploy_state.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deploy_state.h"
#include "tdpctl.h"

static void deploy_usage(FILE *o)
{
	fputs("usage: tdpctl deploy DIR [--check] [--at TAI-SECONDS|+SECONDS] [--margin SECONDS]\n"
	      "                    [--allow-unsynced WHY] [--ttl SECONDS] [--timeout SECONDS]\n"
	      "                    [--ssh 'COMMAND...'] [--no-wait] [--json]\n"
	      "  puts the plan tdpctl plan wrote in DIR in force on every router at one cycle "
	      "start,\n"
	      "  or on none: every router's table is staged first; they are committed together "
	      "only\n"
	      "  when every stage succeeded and every router's clock is locked, else every stage "
	      "is\n"
	      "  aborted. The routers and how to reach them: DIR/topology's control lines.\n"
	      "  --check            stage and abort only: would the routers take the plan?\n"
	      "  --at T|+S          commit for TAI second T (or S from now), rounded up to a cycle "
	      "start\n"
	      "                     common to every table (default: --margin after the stages)\n"
	      "  --margin S         time for the commits to reach every router (default 2)\n"
	      "  --allow-unsynced WHY  commit although a router's sync is not locked, saying why\n"
	      "  --ttl S            how long a staged table waits for its commit (default 60)\n"
	      "  --timeout S        how long each step waits for every router (default 30)\n"
	      "  --ssh 'COMMAND'    what runs ssh (default 'ssh -o BatchMode=yes')\n"
	      "  --no-wait          return after the commits, not after the tables are in force\n"
	      "  Exit: 0 in force (or unchanged, or checked); 1 a router refused, is not locked or "
	      "did\n"
	      "  not adopt; 2 usage or the plan's files; 3 a router could not be reached.\n",
	      o);
}

static int parse_secs(const char *v, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double s = strtod(v, &end);
	if (end == v || *end || errno || !(s >= lo && s <= hi))
		return -1;
	*out = s;
	return 0;
}

/* --at: TAI seconds, or +SECONDS from now (at most a day) */
static int at_arg(struct deploy *dp, const char *v)
{
	double s;
	bool rel = v[0] == '+';
	/* an absolute time of 0 is no time: it would read as none given */
	if (parse_secs(v + rel, rel ? 0 : 1, rel ? 86400 : 9e9, &s)) {
		fprintf(stderr,
			"tdpctl deploy: --at takes TAI seconds or +SECONDS (at most a day), not "
			"'%s'\n",
			v);
		return TDPCTL_EXIT_USAGE;
	}
	dp->at_ns = (int64_t)(s * 1e9 + 0.5) * (rel ? -1 : 1);
	return 0;
}

/* --margin, --ttl, --timeout: seconds */
static int secs_arg(struct deploy *dp, const char *a, const char *v)
{
	double s;
	if (parse_secs(v, a[2] == 'm' ? 0.01 : 1, 3600, &s)) {
		fprintf(stderr, "tdpctl deploy: %s takes seconds, %s to 3600, not '%s'\n", a,
			a[2] == 'm' ? "0.01" : "1", v);
		return TDPCTL_EXIT_USAGE;
	}
	if (a[2] == 'm')
		dp->margin_ns = (int64_t)(s * 1e9);
	else if (a[3] == 't')
		dp->ttl_s = (int)s;
	else
		dp->timeout_ms = (int)(s * 1000);
	return 0;
}

/* --ssh: the command's words, at most 15 */
static int ssh_arg(struct deploy *dp, const char *v, char **sshbuf)
{
	int n = 0;
	free(*sshbuf);
	if (!(*sshbuf = strdup(v)))
		return TDPCTL_EXIT_USAGE;
	for (char *sv = NULL, *w = strtok_r(*sshbuf, " \t", &sv); w && n < 15;
	     w = strtok_r(NULL, " \t", &sv))
		dp->ssh[n++] = w;
	dp->ssh[n] = NULL;
	if (!n) {
		fprintf(stderr, "tdpctl deploy: --ssh needs a command\n");
		return TDPCTL_EXIT_USAGE;
	}
	return 0;
}

/* an option with a value at argv[i]: 0, or the exit status (said) */
static int value_arg(struct deploy *dp, const char *a, const char *v, char **sshbuf)
{
	if (!strcmp(a, "--at"))
		return at_arg(dp, v);
	if (!strcmp(a, "--margin") || !strcmp(a, "--ttl") || !strcmp(a, "--timeout"))
		return secs_arg(dp, a, v);
	if (!strcmp(a, "--allow-unsynced")) {
		if (!*v) {
			fprintf(stderr, "tdpctl deploy: --allow-unsynced needs the reason\n");
			return TDPCTL_EXIT_USAGE;
		}
		dp->allow_unsynced = v;
		return 0;
	}
	if (!strcmp(a, "--ssh"))
		return ssh_arg(dp, v, sshbuf);
	fprintf(stderr, "tdpctl deploy: unknown option '%s'\n", a);
	deploy_usage(stderr);
	return TDPCTL_EXIT_USAGE;
}

int deploy_parse_args(struct deploy *dp, int argc, char **argv, char **sshbuf)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			deploy_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--check")) {
			dp->check = true;
		} else if (!strcmp(a, "--json")) {
			dp->json = true;
		} else if (!strcmp(a, "--no-wait")) {
			dp->wait = false;
		} else if (a[0] == '-' && !v) {
			fprintf(stderr, "tdpctl deploy: %s needs a value\n", a);
			return TDPCTL_EXIT_USAGE;
		} else if (a[0] == '-') {
			int rc = value_arg(dp, a, v, sshbuf);
			if (rc)
				return rc;
			i++;
		} else if (!dp->dir) {
			dp->dir = a;
		} else {
			fprintf(stderr, "tdpctl deploy: one plan directory, not '%s' too\n", a);
			return TDPCTL_EXIT_USAGE;
		}
	}
	if (!dp->dir) {
		deploy_usage(stderr);
		return TDPCTL_EXIT_USAGE;
	}
	return -1;
}
