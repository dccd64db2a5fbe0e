/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"
#include "tdp_time.h"

_Atomic int tdp_log_level = LOG_INFO;
const char *tdp_log_ident = "tdpd";
static bool to_journal, to_syslog;

static const char *const names[] = {
	[LOG_EMERG] = "emerg", [LOG_ALERT] = "alert",	  [LOG_CRIT] = "crit",
	[LOG_ERR] = "error",   [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info",   [LOG_DEBUG] = "debug",
};

void tdp_log_init(void)
{
	/* "DEV:INO" of the journal's stream: stderr is it only if they match */
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	to_journal = js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(2, &st) == 0 &&
		     (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void tdp_log_open_syslog(void)
{
	openlog(tdp_log_ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	to_syslog = true;
}

void tdp_log_msg(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (level < 0 || level > LOG_DEBUG)
		level = LOG_ERR;
	if (to_journal) {
		fprintf(stderr, "<%d>%s: %s\n", level, names[level], buf);
	} else {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		fprintf(stderr, "%s[%lld.%03ld]: %s: %s\n", tdp_log_ident, (long long)ts.tv_sec,
			ts.tv_nsec / 1000000, names[level], buf);
	}
	if (to_syslog)
		syslog(level, "%s", buf);
}

int tdp_log_parse(const char *name)
{
	for (int i = LOG_ERR; i <= LOG_DEBUG; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}

int tdp_log_rl_ok(struct tdp_ratelimit *rl, int level)
{
	int64_t now = tdp_mono_ns();
	if (now - rl->begin_ns >= rl->interval_ns) {
		if (rl->suppressed)
			tdp_log_msg(level, "%llu similar message%s suppressed in the last %.1f s",
				    (unsigned long long)rl->suppressed,
				    rl->suppressed == 1 ? "" : "s",
				    (double)(now - rl->begin_ns) / 1e9);
		rl->begin_ns = now;
		rl->n = 0;
		rl->suppressed = 0;
	}
	if (rl->n < rl->burst) {
		rl->n++;
		return 1;
	}
	rl->suppressed++;
	return 0;
}
