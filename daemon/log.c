/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"

int tdp_log_level = LOG_INFO;
const char *tdp_log_ident = "tdpd";

static const char *const names[] = {
	[LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit", [LOG_ERR] = "error",
	[LOG_WARNING] = "warning", [LOG_NOTICE] = "notice", [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

void tdp_log_msg(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(stderr, "%s[%lld.%03ld]: %s: %s\n", tdp_log_ident, (long long)ts.tv_sec, ts.tv_nsec / 1000000,
		level >= 0 && level <= LOG_DEBUG ? names[level] : "?", buf);
}

int tdp_log_parse(const char *name)
{
	for (int i = LOG_ERR; i <= LOG_DEBUG; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -1;
}
