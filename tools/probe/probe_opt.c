/* SPDX-License-Identifier: BSD-3-Clause */
/* What tdp-probe's subcommands share, below all of them (tdp_probe.h): the
 * stop flag and its signals, option parsing, the CTR against CLOCK_REALTIME. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
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

int64_t probe_realtime_offset(const struct hostclock *clk)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t d = hostclock_now(clk).ns - ((int64_t)ts.tv_sec * TDP_NS_PER_S + ts.tv_nsec);
	return (d >= 0 ? d + TDP_NS_PER_S / 2 : d - TDP_NS_PER_S / 2) / TDP_NS_PER_S * TDP_NS_PER_S;
}
