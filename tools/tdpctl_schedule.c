/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl schedule: check, show, create, edit, format and compare tables offline. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tdpctl.h"

static void usage(FILE *out)
{
	fputs("usage: tdpctl schedule VERB [OPTIONS] ...\n"
	      "\n"
	      "  check [--json] [-q] FILE...          parse and admit; file:line:col errors\n"
	      "  show [--json] [--svg OUT] [--rows N] FILE\n"
	      "                                       summary per port and flow, rows, picture\n"
	      "  json FILE                            the table and its summary as JSON\n"
	      "  new --tf T --k N [--guard T] [--epoch T] [--port "
	      "NAME:RATE[:MAXFRAME[:OVERHEAD]]]...\n"
	      "      [-o FILE] [--force]              a new table\n"
	      "  reserve FILE FLOW N FRAMES [-o OUT] [--dry-run]\n"
	      "                                       add N packets of FLOW in FRAMES (e.g. "
	      "0-99/10,5)\n"
	      "  release FILE FLOW N FRAMES [-o OUT] [--dry-run]\n"
	      "                                       remove them again\n"
	      "  fmt [-i] [--compact] FILE             canonical spelling (comments kept) or "
	      "compact rows\n"
	      "  diff [--json] OLD NEW                what changed, in flows and frames\n"
	      "\n"
	      "Exit status: 0 fine, 1 invalid table (diff: different), 2 usage or I/O error.\n"
	      "Nothing here needs a running daemon. See tdp-schedule(5).\n",
	      out);
}

/* A table, or NULL with *fail the exit status: 2 when the file could not be
 * read, 1 when it is not a valid table (tdpctl(8), EXIT STATUS). */
static struct sched_table *load(const char *path, int *fail)
{
	struct sched_diags d;
	sched_diags_init(&d, path);
	struct sched_table *t = sched_load(path, &d);
	sched_diags_print(&d, stderr);
	*fail = d.io ? TDPCTL_EXIT_USAGE : TDPCTL_EXIT_BAD;
	sched_diags_free(&d);
	return t;
}

static void si(double v, const char *unit, char *out, size_t n)
{
	static const char *const pre[] = {"", "k", "M", "G", "T"};
	int i = 0;
	while (v >= 1000 && i < 4) {
		v /= 1000;
		i++;
	}
	snprintf(out, n, "%.*f %s%s", i ? 1 : 0, v, pre[i], unit);
}

/* Options shared by the verbs; each verb reads the ones it takes. */
struct opts {
	bool json, quiet, dry_run, in_place, compact, force;
	const char *svg, *out, *tf, *k, *guard, *epoch;
	const char *ports[SCHED_MAX_PORTS];
	unsigned nports;
	long rows;
};

static int parse_opts(int argc, char **argv, const char *allowed, struct opts *o)
{
	enum {
		O_SVG = 256,
		O_ROWS,
		O_TF,
		O_K,
		O_GUARD,
		O_EPOCH,
		O_PORT,
		O_DRY,
		O_COMPACT,
		O_FORCE
	};
	static const struct option lo[] = {
		{"json", no_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"svg", required_argument, NULL, O_SVG},
		{"rows", required_argument, NULL, O_ROWS},
		{"tf", required_argument, NULL, O_TF},
		{"k", required_argument, NULL, O_K},
		{"guard", required_argument, NULL, O_GUARD},
		{"epoch", required_argument, NULL, O_EPOCH},
		{"port", required_argument, NULL, O_PORT},
		{"output", required_argument, NULL, 'o'},
		{"dry-run", no_argument, NULL, O_DRY},
		{"in-place", no_argument, NULL, 'i'},
		{"compact", no_argument, NULL, O_COMPACT},
		{"force", no_argument, NULL, O_FORCE},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	memset(o, 0, sizeof(*o));
	o->rows = 40;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jqo:ih", lo, NULL)) != -1) {
		const char *name = NULL;
		for (const struct option *x = lo; x->name; x++)
			if (x->val == c)
				name = x->name;
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == '?' || !name || !strstr(allowed, name)) {
			if (c != '?')
				fprintf(stderr, "tdpctl schedule %s: --%s does not apply here\n",
					argv[0], name);
			return -1;
		}
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'i':
			o->in_place = true;
			break;
		case O_SVG:
			o->svg = optarg;
			break;
		case O_ROWS: {
			char *end;
			o->rows = strtol(optarg, &end, 10);
			if (*end || o->rows < 0) {
				fprintf(stderr, "tdpctl schedule: --rows takes a number\n");
				return -1;
			}
			break;
		}
		case O_TF:
			o->tf = optarg;
			break;
		case O_K:
			o->k = optarg;
			break;
		case O_GUARD:
			o->guard = optarg;
			break;
		case O_EPOCH:
			o->epoch = optarg;
			break;
		case O_PORT:
			if (o->nports == SCHED_MAX_PORTS) {
				fprintf(stderr, "tdpctl schedule: more than %d --port options\n",
					SCHED_MAX_PORTS);
				return -1;
			}
			o->ports[o->nports++] = optarg;
			break;
		case O_DRY:
			o->dry_run = true;
			break;
		case O_COMPACT:
			o->compact = true;
			break;
		case O_FORCE:
			o->force = true;
			break;
		}
	}
	return 0;
}

/* Write text to path atomically (temporary file in the same folder, rename). */
static int write_atomic(const char *path, const char *text, size_t len)
{
	char *dup = strdup(path), tmpl[4096];
	if (!dup)
		return -ENOMEM;
	snprintf(tmpl, sizeof(tmpl), "%s/.%s.XXXXXX", dirname(dup), basename((char *)path));
	free(dup);
	int fd = mkstemp(tmpl);
	if (fd < 0)
		return -errno;
	/* keep the table's mode; a new one gets 0666 less the umask, as open(2) would */
	struct stat st;
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, stat(path, &st) == 0 ? st.st_mode & 07777 : 0666 & ~um)) {
		int e = -errno;
		close(fd);
		unlink(tmpl);
		return e;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = -errno;
		close(fd);
		unlink(tmpl);
		return e;
	}
	bool ok = fwrite(text, 1, len, f) == len && fflush(f) == 0 && fsync(fd) == 0;
	int e = ok ? 0 : -errno;
	if (fclose(f) && ok)
		e = -errno, ok = false;
	if (ok && rename(tmpl, path))
		e = -errno, ok = false;
	if (!ok)
		unlink(tmpl);
	return e;
}

static int peak(const struct sched_table *t, double *util)
{
	struct sched_port_summary *ps = calloc(t->nports + 1, sizeof(*ps));
	struct sched_flow_summary *fs = calloc(t->nflows + 1, sizeof(*fs));
	int best = -1;
	*util = 0;
	if (ps && fs) {
		sched_summarize(t, ps, fs);
		for (uint32_t p = 0; p < t->nports; p++)
			if (best < 0 || ps[p].util_max > *util) {
				best = (int)p;
				*util = ps[p].util_max;
			}
	}
	free(ps);
	free(fs);
	return best;
}

/* The options of a subcommand (allowed, as parse_opts takes them) and its
 * operands: exactly n of them, or at least one when n is -1; else its usage
 * said. 0, or TDPCTL_EXIT_USAGE. */
static int sub_args(int argc, char **argv, const char *allowed, struct opts *o, int n,
		    const char *usage)
{
	if (parse_opts(argc, argv, allowed, o))
		return TDPCTL_EXIT_USAGE;
	if (n < 0 ? optind < argc : optind + n == argc)
		return 0;
	fprintf(stderr, "usage: tdpctl schedule %s\n", usage);
	return TDPCTL_EXIT_USAGE;
}

/* ---- check ---------------------------------------------------------------- */

static void json_diags(const struct sched_diags *d)
{
	static const char *const sev[] = {"error", "warning", "note"};
	fputs("[", stdout);
	for (size_t i = 0; i < d->n; i++) {
		printf("%s{\"line\":%u,\"col\":%u,\"severity\":\"%s\",\"message\":", i ? "," : "",
		       d->v[i].line, d->v[i].col, sev[d->v[i].sev]);
		sched_json_str(stdout, d->v[i].msg);
		fputs("}", stdout);
	}
	fputs("]", stdout);
}

static int cmd_check(int argc, char **argv)
{
	struct opts o;
	int bad = 0;
	if (sub_args(argc, argv, "json quiet", &o, -1, "check [--json] [-q] FILE..."))
		return TDPCTL_EXIT_USAGE;
	if (o.json)
		fputs("[", stdout);
	for (int i = optind; i < argc; i++) {
		struct sched_diags d;
		sched_diags_init(&d, argv[i]);
		struct sched_table *t = sched_load(argv[i], &d);
		if (t)
			sched_admit(t, &d);
		bool ok = t && d.nerr == 0;
		if (!ok && bad != TDPCTL_EXIT_USAGE)
			bad = d.io ? TDPCTL_EXIT_USAGE : TDPCTL_EXIT_BAD;
		if (o.json) {
			printf("%s{\"file\":", i > optind ? "," : "");
			sched_json_str(stdout, argv[i]);
			printf(",\"ok\":%s,\"errors\":%zu,\"diagnostics\":", ok ? "true" : "false",
			       d.nerr);
			json_diags(&d);
			if (t)
				printf(",\"k\":%u,\"tf_ns\":%llu,\"ports\":%u,\"flows\":%u,"
				       "\"distinct_rows\":%u",
				       t->k, (unsigned long long)t->tf_ns, t->nports, t->nflows,
				       t->nrows);
			fputs("}", stdout);
		} else {
			sched_diags_print(&d, stderr);
			if (ok && !o.quiet) {
				char tf[32];
				double u;
				int p = peak(t, &u);
				sched_fmt_time(t->tf_ns, tf, sizeof(tf));
				printf("%s: ok: TF %s, k %u, %u port%s, %u flow%s, %u distinct "
				       "row%s",
				       argv[i], tf, t->k, t->nports, t->nports == 1 ? "" : "s",
				       t->nflows, t->nflows == 1 ? "" : "s", t->nrows,
				       t->nrows == 1 ? "" : "s");
				if (p >= 0)
					printf(", peak utilisation %.1f%% on %s", u * 100,
					       t->ports[p].name);
				putchar('\n');
			} else if (!ok) {
				fprintf(stderr, "%s: %zu error%s\n", argv[i], d.nerr,
					d.nerr == 1 ? "" : "s");
			}
		}
		sched_diags_free(&d);
		sched_free(t);
	}
	if (o.json)
		fputs("]\n", stdout);
	return bad;
}

/* ---- show ----------------------------------------------------------------- */

/* show's port and flow tables: -1 out of memory */
static int show_summary(const struct sched_table *t, const char *path)
{
	struct sched_port_summary *ps = calloc(t->nports + 1, sizeof(*ps));
	struct sched_flow_summary *fs = calloc(t->nflows + 1, sizeof(*fs));
	if (!ps || !fs) {
		free(ps);
		free(fs);
		return -1;
	}
	sched_summarize(t, ps, fs);
	char tf[32], cyc[32], g[32], ep[32], a[48], b[48];
	sched_fmt_time(t->tf_ns, tf, sizeof(tf));
	sched_fmt_time(t->tf_ns * t->k, cyc, sizeof(cyc));
	sched_fmt_time(t->guard_ns, g, sizeof(g));
	sched_fmt_time(t->epoch_ns, ep, sizeof(ep));
	printf("%s: TF %s, k %u (cycle %s), guard %s, epoch %s after the TAI second\n", path, tf,
	       t->k, cyc, g, ep);
	printf("runtime form: %u distinct row%s, %u entries, %zu bytes\n\n", t->nrows,
	       t->nrows == 1 ? "" : "s", t->row_off[t->nrows], sched_runtime_bytes(t));
	printf("%-16s %12s %9s %8s %26s %13s %16s\n", "port", "rate", "max-frame", "overhead",
	       "utilisation min/avg/max", "frames used", "best effort");
	for (uint32_t p = 0; p < t->nports; p++) {
		char u[64], fu[32];
		sched_fmt_rate(t->ports[p].rate_bps, a, sizeof(a));
		si(ps[p].be_bps, "bit/s", b, sizeof(b));
		snprintf(u, sizeof(u), "%.1f%% / %.1f%% / %.1f%%", ps[p].util_min * 100,
			 ps[p].util_avg * 100, ps[p].util_max * 100);
		snprintf(fu, sizeof(fu), "%u/%u", ps[p].frames_used, t->k);
		printf("%-16s %12s %9u %8u %26s %13s %16s%s\n", t->ports[p].name, a,
		       t->ports[p].max_frame, t->ports[p].overhead, u, fu, b,
		       ps[p].frames_over ? "  OVERBOOKED" : "");
	}
	printf("\n%-16s %-16s %6s %5s %11s %13s %14s %11s  %s\n", "flow", "port", "size", "alpha",
	       "pkts/cycle", "frames/cycle", "reserved", "worst wait", "match");
	for (uint32_t i = 0; i < t->nflows; i++) {
		const struct sched_flow *f = &t->flows[i];
		char m[160], al[16], w[32];
		sched_fmt_match(&f->match, m, sizeof(m));
		snprintf(al, sizeof(al), f->alpha ? "%u" : "-", f->alpha);
		si(fs[i].bps, "bit/s", b, sizeof(b));
		if (fs[i].frames_per_cycle)
			sched_fmt_time(fs[i].max_wait_ns, w, sizeof(w));
		else
			snprintf(w, sizeof(w), "never sent");
		printf("%-16s %-16s %6u %5s %11llu %13u %14s %11s  %s\n", f->name,
		       t->ports[f->port].name, f->size, al,
		       (unsigned long long)fs[i].pkts_per_cycle, fs[i].frames_per_cycle, b, w, m);
	}
	free(ps);
	free(fs);
	return 0;
}

/* show's rows, compact: at most rows of them */
static void show_rows(const struct sched_table *t, long rows)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		return;
	sched_write(t, mem);
	fclose(mem);
	printf("\nrows\n");
	long shown = 0, total = 0;
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, "frame", 5) && total++ < rows && ++shown)
			printf("  %s\n", line);
	if (total > shown)
		printf("  ... %ld more row lines (--rows N shows more)\n", total - shown);
	if (!total)
		printf("  (none: every frame is best effort)\n");
	free(buf);
}

/* show --svg: written to svg; 1 when it went to stdout (nothing more is
 * written there), 0 to a file, -1 said */
static int show_svg(const struct sched_table *t, const char *path, const char *svg)
{
	FILE *f = strcmp(svg, "-") ? fopen(svg, "w") : stdout;
	struct sched_svg_opts so = {.title = path, .width = 1200, .max_columns = 600};
	if (!f || sched_svg(t, &so, f) || (f != stdout && fclose(f))) {
		fprintf(stderr, "tdpctl: cannot write %s: %s\n", svg, strerror(errno));
		return -1;
	}
	return f == stdout;
}

static int cmd_show(int argc, char **argv, bool json_verb)
{
	struct opts o;
	int rc = 0;
	if (sub_args(argc, argv, json_verb ? "" : "json svg rows", &o, 1,
		     json_verb ? "json FILE" : "show [--json] [--svg FILE] [--rows N] FILE"))
		return TDPCTL_EXIT_USAGE;
	const char *path = argv[optind];
	int fail;
	struct sched_table *t = load(path, &fail);
	if (!t)
		return fail;
	struct sched_diags d;
	sched_diags_init(&d, path);
	if (sched_admit(t, &d)) {
		sched_diags_print(&d, stderr);
		rc = TDPCTL_EXIT_BAD;
	}
	sched_diags_free(&d);
	int svg = o.svg ? show_svg(t, path, o.svg) : 0;
	if (svg < 0)
		rc = TDPCTL_EXIT_USAGE;
	else if (svg == 1)
		; /* the SVG went to stdout: nothing more goes there */
	else if (o.json || json_verb)
		rc = sched_write_json(t, stdout) ? TDPCTL_EXIT_USAGE : rc;
	else if (show_summary(t, path))
		rc = TDPCTL_EXIT_USAGE;
	else
		show_rows(t, o.rows);
	sched_free(t);
	return rc;
}

/* ---- new ------------------------------------------------------------------ */

static int cmd_new(int argc, char **argv)
{
	struct opts o;
	if (parse_opts(argc, argv, "tf k guard epoch port output force", &o))
		return TDPCTL_EXIT_USAGE;
	if (!o.tf || !o.k || optind != argc) {
		fprintf(stderr, "usage: tdpctl schedule new --tf T --k N [--guard T] [--epoch T] "
				"[--port NAME:RATE[:MAXFRAME[:OVERHEAD]]]... [-o FILE]\n");
		return TDPCTL_EXIT_USAGE;
	}
	char err[640];
	struct sched_new nw = {.tf = o.tf,
			       .k = o.k,
			       .guard = o.guard,
			       .epoch = o.epoch,
			       .ports = o.ports,
			       .nports = o.nports};
	char *text = sched_new_text(&nw, err, sizeof(err));
	if (!text) {
		fprintf(stderr, "tdpctl: %s\n", err);
		return TDPCTL_EXIT_USAGE;
	}
	size_t len = strlen(text);
	struct sched_diags d;
	sched_diags_init(&d, "(new table)");
	struct sched_table *t = sched_parse(text, len, &d);
	if (!t) {
		sched_diags_print(&d, stderr);
		sched_diags_free(&d);
		free(text);
		return TDPCTL_EXIT_BAD;
	}
	sched_diags_free(&d);
	sched_free(t);
	int rc = 0;
	if (!o.out || !strcmp(o.out, "-")) {
		fputs(text, stdout);
	} else if (!o.force && access(o.out, F_OK) == 0) {
		fprintf(stderr, "tdpctl: %s exists (--force replaces it)\n", o.out);
		rc = TDPCTL_EXIT_USAGE;
	} else if ((rc = write_atomic(o.out, text, len))) {
		fprintf(stderr, "tdpctl: cannot write %s: %s\n", o.out, strerror(-rc));
		rc = TDPCTL_EXIT_USAGE;
	}
	free(text);
	return rc;
}

/* ---- reserve / release ------------------------------------------------------ */

static int cmd_edit(int argc, char **argv, bool reserve)
{
	struct opts o;
	if (parse_opts(argc, argv, "output dry-run", &o))
		return TDPCTL_EXIT_USAGE;
	if (optind + 4 != argc) {
		fprintf(stderr,
			"usage: tdpctl schedule %s FILE FLOW N FRAMES [-o OUT] [--dry-run]\n",
			argv[0]);
		return TDPCTL_EXIT_USAGE;
	}
	const char *path = argv[optind], *flow = argv[optind + 1], *frames = argv[optind + 3];
	char *end, err[160];
	unsigned long n = strtoul(argv[optind + 2], &end, 10);
	if (*end || !*argv[optind + 2] || n == 0 || n > SCHED_MAX_N) {
		fprintf(stderr, "tdpctl: packet count must be 1..%d\n", SCHED_MAX_N);
		return TDPCTL_EXIT_USAGE;
	}
	int fail;
	struct sched_table *t = load(path, &fail);
	if (!t)
		return fail;
	int rc = TDPCTL_EXIT_BAD;
	uint8_t *member = malloc(t->k);
	char *text = NULL;
	struct sched_table *nt = NULL;
	struct sched_diags d;
	sched_diags_init(&d, path);
	if (!member)
		goto out;
	if (sched_frameset_parse(frames, t->k, member, err, sizeof(err))) {
		fprintf(stderr, "tdpctl: frames: %s\n", err);
		rc = TDPCTL_EXIT_USAGE;
		goto out;
	}
	text = reserve ? sched_edit_reserve(t, flow, (uint32_t)n, member, &d)
		       : sched_edit_release(t, flow, (uint32_t)n, member, &d);
	if (!text) {
		sched_diags_print(&d, stderr);
		goto out;
	}
	nt = sched_parse(text, strlen(text), &d);
	if (nt)
		sched_admit(nt, &d);
	if (!nt || d.nerr) {
		sched_diags_print(&d, stderr);
		fprintf(stderr, "tdpctl: %s would make %s invalid; nothing written\n",
			reserve ? "this reservation" : "this release", path);
		goto out;
	}
	/* what changed, for the operator */
	sched_diff(t, nt, false, stderr);
	rc = 0;
	if (o.dry_run)
		goto out;
	if (o.out && !strcmp(o.out, "-")) {
		fputs(text, stdout);
	} else {
		const char *dst = o.out ? o.out : path;
		int e = write_atomic(dst, text, strlen(text));
		if (e) {
			fprintf(stderr, "tdpctl: cannot write %s: %s\n", dst, strerror(-e));
			rc = TDPCTL_EXIT_USAGE;
		}
	}
out:
	sched_diags_free(&d);
	sched_free(t);
	sched_free(nt);
	free(member);
	free(text);
	return rc;
}

/* ---- fmt ------------------------------------------------------------------ */

static int cmd_fmt(int argc, char **argv)
{
	struct opts o;
	if (sub_args(argc, argv, "in-place compact", &o, 1, "fmt [-i] [--compact] FILE"))
		return TDPCTL_EXIT_USAGE;
	const char *path = argv[optind];
	int fail;
	struct sched_table *t = load(path, &fail), *back = NULL;
	if (!t)
		return fail;
	char *buf = NULL;
	size_t len = 0;
	int rc = TDPCTL_EXIT_USAGE;
	FILE *mem = open_memstream(&buf, &len);
	if (!mem)
		goto out;
	if (o.compact ? sched_write(t, mem) : sched_write_fmt(t, mem)) {
		fclose(mem);
		goto out;
	}
	fclose(mem);
	/* The formatted text must mean the same table. */
	struct sched_diags d;
	sched_diags_init(&d, "(formatted)");
	back = sched_parse(buf, len, &d);
	if (!back || !sched_equal(t, back)) {
		sched_diags_print(&d, stderr);
		fprintf(stderr,
			"tdpctl: internal error: the formatted table differs; %s left as it is\n",
			path);
		sched_diags_free(&d);
		goto out;
	}
	sched_diags_free(&d);
	rc = 0;
	if (o.in_place) {
		int e = write_atomic(path, buf, len);
		if (e) {
			fprintf(stderr, "tdpctl: cannot write %s: %s\n", path, strerror(-e));
			rc = TDPCTL_EXIT_USAGE;
		}
	} else {
		fwrite(buf, 1, len, stdout);
	}
out:
	free(buf);
	sched_free(t);
	sched_free(back);
	return rc;
}

/* ---- diff ----------------------------------------------------------------- */

static int cmd_diff(int argc, char **argv)
{
	struct opts o;
	if (sub_args(argc, argv, "json", &o, 2, "diff [--json] OLD NEW"))
		return TDPCTL_EXIT_USAGE;
	/* 1 means "they differ" here: a table that cannot be read or is
	 * invalid is 2 either way */
	int fail;
	struct sched_table *a = load(argv[optind], &fail), *b = load(argv[optind + 1], &fail);
	int rc = TDPCTL_EXIT_USAGE;
	if (a && b) {
		int r = sched_diff(a, b, o.json, stdout);
		rc = r < 0 ? TDPCTL_EXIT_USAGE : r;
	}
	sched_free(a);
	sched_free(b);
	return rc;
}

int tdpctl_schedule(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? TDPCTL_EXIT_USAGE : 0;
	}
	const char *v = argv[1];
	argc--;
	argv++;
	if (!strcmp(v, "check"))
		return cmd_check(argc, argv);
	if (!strcmp(v, "show"))
		return cmd_show(argc, argv, false);
	if (!strcmp(v, "json"))
		return cmd_show(argc, argv, true);
	if (!strcmp(v, "new"))
		return cmd_new(argc, argv);
	if (!strcmp(v, "reserve"))
		return cmd_edit(argc, argv, true);
	if (!strcmp(v, "release"))
		return cmd_edit(argc, argv, false);
	if (!strcmp(v, "fmt"))
		return cmd_fmt(argc, argv);
	if (!strcmp(v, "diff"))
		return cmd_diff(argc, argv);
	fprintf(stderr, "tdpctl schedule: unknown verb '%s'\n", v);
	usage(stderr);
	return TDPCTL_EXIT_USAGE;
}
