/* SPDX-License-Identifier: BSD-3-Clause */
/* What tdp-probe's subcommands share, below all of them (tdp_probe.h): the
 * stop flag and its signals, option parsing, the CTR against CLOCK_REALTIME. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "probe_pcap.h"
#include "probe_stats.h"
#include "tdp_probe.h"
#include "tdp_sched.h"
#include "hostclock.h"

volatile sig_atomic_t probe_stop;

static void on_signal(int sig)
{
	(void)sig;
	probe_stop = 1;
}

void probe_on_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int probe_opt_time(const char *opt, const char *s, uint64_t *ns)
{
	const char *why = NULL;
	if (sched_num_time(s, strlen(s), ns, &why) != 0 || *ns == 0) {
		fprintf(stderr, "tdp-probe: %s: '%s' is not a time such as 100us, 1ms or 10s%s%s\n",
			opt, s, why ? ": " : "", why ? why : "");
		return -1;
	}
	return 0;
}

int probe_opt_uint(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (!*s || *s == '-' || *end || errno || x < min || x > max) {
		fprintf(stderr,
			"tdp-probe: %s: '%s' is not a whole number in %" PRIu64 "..%" PRIu64 "\n",
			opt, s, min, max);
		return -1;
	}
	*v = x;
	return 0;
}

int probe_opt_alpha(const char *opt, const char *s, uint32_t *alpha, uint32_t *n)
{
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", s);
	*n = 0;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;
		if (*n == PROBE_MAX_HOPS) {
			fprintf(stderr, "tdp-probe: %s: more than %d hops\n", opt, PROBE_MAX_HOPS);
			return -1;
		}
		if (probe_opt_uint(opt, tok, 1, 1000000, &v))
			return -1;
		alpha[(*n)++] = (uint32_t)v;
	}
	if (!*n || strlen(s) >= sizeof(buf) || s[strlen(s) - 1] == ',' || strstr(s, ",,")) {
		fprintf(stderr, "tdp-probe: %s: '%s' is not a list of alphas such as 2,1,1\n", opt,
			s);
		return -1;
	}
	return 0;
}

int probe_opt_rate(const char *opt, const char *s, uint64_t *bps)
{
	const char *why = NULL;
	if (sched_num_rate(s, strlen(s), bps, &why) != 0 || *bps == 0) {
		fprintf(stderr, "tdp-probe: %s: '%s' is not a rate such as 100Mbit/s%s%s\n", opt, s,
			why ? ": " : "", why ? why : "");
		return -1;
	}
	return 0;
}

int probe_opt_ip(const char *opt, const char *s, uint8_t *family, uint8_t ip[16])
{
	memset(ip, 0, 16);
	if (inet_pton(AF_INET, s, ip) == 1) {
		*family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, ip) == 1) {
		*family = 6;
		return 0;
	}
	fprintf(stderr, "tdp-probe: %s: '%s' is not an IPv4 or IPv6 address\n", opt, s);
	return -1;
}

/* "a, b or c" of a word list, into buf */
static const char *words_list(const char *const *w, char *buf, size_t len)
{
	size_t n = 0, at = 0;
	while (w[n])
		n++;
	buf[0] = 0;
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       i == 0	    ? ""
				       : i + 1 == n ? " or "
						    : ", ",
				       w[i]);
	return buf;
}

static int opt_word(const char *opt, const char *s, const char *const *words, int *out)
{
	for (int i = 0; words[i]; i++)
		if (!strcmp(s, words[i])) {
			*out = i;
			return 0;
		}
	char list[256];
	fprintf(stderr, "tdp-probe: %s: '%s' is not %s\n", opt, s,
		words_list(words, list, sizeof(list)));
	return -1;
}

/* one option's value into base, as its row says */
static int opt_take(const struct probe_opt *o, void *base, const char *arg)
{
	char name[48];
	snprintf(name, sizeof(name), "--%s", o->name);
	char *at = (char *)base + o->off;
	uint64_t v;
	int rc = 0;
	switch (o->kind) {
	case PO_STR:
		*(const char **)at = arg;
		break;
	case PO_FLAG:
		*(bool *)at = true;
		break;
	case PO_UINT:
		rc = probe_opt_uint(name, arg, o->min, o->max, (uint64_t *)at);
		break;
	case PO_INT:
		rc = probe_opt_uint(name, arg, o->min, o->max, &v);
		if (!rc)
			*(int *)at = (int)v;
		break;
	case PO_TIME:
		rc = probe_opt_time(name, arg, (uint64_t *)at);
		break;
	case PO_IP:
		rc = probe_opt_ip(name, arg, (uint8_t *)base + o->off2, (uint8_t *)at);
		break;
	case PO_WORD:
		rc = opt_word(name, arg, o->words, (int *)at);
		break;
	case PO_ALPHA:
		rc = probe_opt_alpha(name, arg, (uint32_t *)at,
				     (uint32_t *)((char *)base + o->off2));
		break;
	case PO_VERBOSE:
		tdp_log_level = LOG_DEBUG;
		break;
	case PO_QUIET:
		tdp_log_level = LOG_WARNING;
		break;
	case PO_HELP:
		break;
	}
	if (o->seen)
		*(bool *)((char *)base + o->seen - 1) = true;
	return rc;
}

int probe_opts_parse(const struct probe_opt *t, void *base, int argc, char **argv)
{
	struct option lo[PROBE_MAX_OPTS + 1];
	char shorts[2 * PROBE_MAX_OPTS + 1];
	size_t n = 0, ns = 0;
	for (; t[n].name; n++) {
		if (n == PROBE_MAX_OPTS)
			abort(); /* a table longer than the parser holds: a build-time mistake */
		bool arg = t[n].kind < PO_VERBOSE && t[n].kind != PO_FLAG;
		lo[n] = (struct option){t[n].name, arg, NULL, 256 + (int)n};
		if (t[n].short_name) {
			shorts[ns++] = t[n].short_name;
			if (arg)
				shorts[ns++] = ':';
		}
	}
	lo[n] = (struct option){0, 0, 0, 0};
	shorts[ns] = 0;
	int bad = 0, c;
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct probe_opt *o = NULL;
		if (c >= 256 && c < 256 + (int)n)
			o = &t[c - 256];
		for (size_t i = 0; !o && i < n; i++)
			if (t[i].short_name && t[i].short_name == c)
				o = &t[i];
		if (!o) {
			bad = 1; /* getopt said what */
			continue;
		}
		if (o->kind == PO_HELP)
			return 1;
		bad |= opt_take(o, base, optarg) != 0;
	}
	return bad ? -1 : 0;
}

int probe_acct_init(struct probe_rx *rx, const struct probe_acct *a)
{
	struct probe_rx_cfg cfg = {.port = (uint16_t)a->port,
				   .bin_ns = (int64_t)a->bin,
				   .range_ns = (int64_t)a->range,
				   .series_ns = (int64_t)a->series,
				   .delay_frames = (uint32_t)a->delay,
				   .plan_hops = a->nplan,
				   .keep_records = a->csv != NULL};
	memcpy(cfg.plan_alpha, a->plan, sizeof(a->plan));
	if (probe_rx_init(rx, &cfg) == 0)
		return 0;
	fprintf(stderr, "tdp-probe: --range must hold between 1 and %d bins of --bin\n",
		LHIST_MAX_BINS);
	return -1;
}

int64_t probe_realtime_offset(const struct hostclock *clk)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t d = hostclock_now(clk).ns - ((int64_t)ts.tv_sec * TDP_NS_PER_S + ts.tv_nsec);
	return (d >= 0 ? d + TDP_NS_PER_S / 2 : d - TDP_NS_PER_S / 2) / TDP_NS_PER_S * TDP_NS_PER_S;
}

int probe_cmd_args(const struct probe_opt *t, void *base, int argc, char **argv, const char *cmd,
		   void (*usage)(FILE *), bool operands)
{
	int rc = probe_opts_parse(t, base, argc, argv);
	if (rc == 1) {
		usage(stdout);
		return 1;
	}
	if (rc)
		return -1;
	if (!operands && optind < argc)
		return -probe_cmd_bad(cmd, "unexpected argument '%s'", argv[optind]);
	return 0;
}

int probe_cmd_bad(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "tdp-probe: %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 1;
}
