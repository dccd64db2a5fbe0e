/* SPDX-License-Identifier: BSD-3-Clause */
/* `tdpctl capture PORT`: tcpdump for a port tdpd owns. The file (or standard
 * output) is opened here and passed to the daemon, which writes pcapng into
 * it until the count or the time is reached; tdpctl then says what was
 * captured and lost. `tdpctl capture in -c 100 -w - | tcpdump -r -` reads it
 * live. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "tdpctl.h"
#include "tdpctl_json.h"

static int usage(FILE *out)
{
	fputs("usage: tdpctl capture PORT [-w FILE|-] [-c COUNT] [-s SECONDS] [--snaplen BYTES]\n"
	      "                      [--direction in|out|both]\n"
	      "  copies what PORT receives (in) and what tdpd hands its driver (out) into pcapng:\n"
	      "  FILE (default PORT.pcapng), or - for standard output (| tcpdump -r -); ends "
	      "after\n"
	      "  COUNT packets or SECONDS (at least one of them; default -s 10), and says how "
	      "many\n"
	      "  packets it wrote and lost. SNAPLEN at most 2048 (default). Needs the control "
	      "socket.\n",
	      out);
	return out == stdout ? 0 : TDPCTL_EXIT_USAGE;
}

static int number(const char *opt, const char *v, long long lo, long long hi, long long *out)
{
	char *end;
	errno = 0;
	long long n = strtoll(v, &end, 10);
	if (errno || *end || end == v || n < lo || n > hi) {
		fprintf(stderr, "tdpctl: capture: %s takes a number from %lld to %lld, not '%s'\n",
			opt, lo, hi, v);
		return -1;
	}
	*out = n;
	return 0;
}

/* The session asked for: -w, -c, -s, --snaplen, --direction into args (and
 * *file, *secs: -1 when not given). 0, or -1 (said). */
static int capture_args(int argc, char **argv, json_t *args, const char **file, long long *secs)
{
	long long count = 0, snap = 0;
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v) {
			fprintf(stderr, "tdpctl: capture: %s wants a value\n", o);
			return -1;
		}
		int bad = 0;
		if (!strcmp(o, "-w"))
			*file = v;
		else if (!strcmp(o, "-c"))
			bad = number(o, v, 1, 100000000, &count);
		else if (!strcmp(o, "-s"))
			bad = number(o, v, 1, 86400, secs);
		else if (!strcmp(o, "--snaplen"))
			bad = number(o, v, 1, 2048, &snap);
		else if (!strcmp(o, "--direction") &&
			 (!strcmp(v, "in") || !strcmp(v, "out") || !strcmp(v, "both")))
			json_object_set_new(args, "direction", json_string(v));
		else {
			fprintf(stderr, "tdpctl: capture: unknown argument '%s'\n", o);
			bad = 1;
		}
		if (bad) {
			usage(stderr);
			return -1;
		}
		i++;
	}
	if (*secs < 0)
		*secs = count ? 0 : 10;
	if (count)
		json_object_set_new(args, "count", json_integer(count));
	if (*secs)
		json_object_set_new(args, "seconds", json_integer(*secs));
	if (snap)
		json_object_set_new(args, "snaplen", json_integer(snap));
	return 0;
}

/* what the session got, or why not */
static void capture_report(const struct tdpctl_global *g, json_t *o, int rc, bool out,
			   const char *file)
{
	json_t *r = json_object_get(o, "result");
	FILE *f = out ? stderr : stdout;
	if (rc) {
		fprintf(stderr, "tdpctl: %s (%s)\n", S(o, "error"), S(o, "code"));
	} else if (g->json) {
		json_dumpf(r, f, JSON_INDENT(2));
		fputc('\n', f);
	} else {
		fprintf(f,
			"%" PRId64 " packets captured on port %s into %s, %" PRId64
			" lost, %.1f s (%s)\n",
			I(r, "captured"), S(r, "port"), out ? "standard output" : file,
			I(r, "dropped"), json_real_value(json_object_get(r, "seconds")),
			S(r, "end"));
	}
}

int tdpctl_capture(const struct tdpctl_global *g, int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return usage(stdout);
	if (argc < 2 || argv[1][0] == '-')
		return usage(stderr);
	const char *port = argv[1], *file = NULL;
	long long secs = -1;
	json_t *args = json_pack("{ss}", "port", port);
	if (capture_args(argc, argv, args, &file, &secs)) {
		json_decref(args);
		return TDPCTL_EXIT_USAGE;
	}
	char def[256];
	if (!file) {
		snprintf(def, sizeof(def), "%s.pcapng", port);
		file = def;
	}
	bool out = !strcmp(file, "-");
	int fd = out ? STDOUT_FILENO : open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (fd < 0) {
		fprintf(stderr, "tdpctl: capture: %s: %s\n", file, strerror(errno));
		json_decref(args);
		return TDPCTL_EXIT_USAGE;
	}
	/* the reply comes at the session's end: wait for it, with some slack */
	struct tdpctl_global gw = *g;
	if (gw.timeout_ms >= 0 && secs)
		gw.timeout_ms += (int)secs * 1000;
	else if (!secs)
		gw.timeout_ms = -1;
	int rc;
	json_t *o = tdpctl_call(&gw, true, "capture", args, fd, &rc);
	if (!out)
		close(fd);
	if (!o)
		return rc;
	capture_report(g, o, rc, out, file);
	json_decref(o);
	return rc;
}
