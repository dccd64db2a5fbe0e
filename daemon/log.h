/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging to stderr (the journal picks it up) with syslog-style levels. The
 * level is checked before the arguments are evaluated. */
#ifndef TDP_LOG_H
#define TDP_LOG_H

#include <syslog.h>

extern int tdp_log_level;
/* the program's name in front of each line (default "tdpd") */
extern const char *tdp_log_ident;

void tdp_log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "error", "warning", "notice", "info", "debug" -> LOG_*; -1 when unknown. */
int tdp_log_parse(const char *name);

#define tdp_log(level, ...)                                  \
	do {                                                 \
		if ((level) <= tdp_log_level)                \
			tdp_log_msg((level), __VA_ARGS__);   \
	} while (0)

#define log_err(...) tdp_log(LOG_ERR, __VA_ARGS__)
#define log_warn(...) tdp_log(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) tdp_log(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) tdp_log(LOG_INFO, __VA_ARGS__)
#define log_debug(...) tdp_log(LOG_DEBUG, __VA_ARGS__)

#endif
