/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging with syslog levels. The level is checked before the arguments are
 * evaluated, and may be changed at run time (tdpctl log-level). Lines go to
 * stderr: with a timestamp on a terminal or a file, with the journal's
 * "<N>" priority prefix when stderr is the journal (systemd's JOURNAL_STREAM);
 * and to syslog as well when tdp_log_open_syslog() was called.
 * tdp_log_rl() is the rate-limited form for paths that can repeat fast: at
 * most burst lines per interval, then one line saying how many were dropped.
 */
#ifndef TDP_LOG_H
#define TDP_LOG_H

#include <stdatomic.h>
#include <stdint.h>
#include <syslog.h>

extern _Atomic int tdp_log_level;
/* the program's name in front of each line (default "tdpd") */
extern const char *tdp_log_ident;

void tdp_log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "error", "warning", "notice", "info", "debug" -> LOG_*; -1 when unknown. */
int tdp_log_parse(const char *name);
/* Also send every line to syslog. */
void tdp_log_open_syslog(void);
/* Looks at JOURNAL_STREAM once: whether stderr is the journal. */
void tdp_log_init(void);

struct tdp_ratelimit {
	int64_t interval_ns;
	uint32_t burst;
	int64_t begin_ns;    /* current interval */
	uint32_t n;	     /* lines in it */
	uint64_t suppressed; /* dropped in it */
};
#define TDP_RATELIMIT(interval_ns, burst)       \
	{                                       \
		(interval_ns), (burst), 0, 0, 0 \
	}
/* Whether the next line may go out; says so when lines were dropped. */
int tdp_log_rl_ok(struct tdp_ratelimit *rl, int level);

#define tdp_log(level, ...)                                \
	do {                                               \
		if ((level) <= tdp_log_level)              \
			tdp_log_msg((level), __VA_ARGS__); \
	} while (0)

#define tdp_log_rl(rl, level, ...)                                            \
	do {                                                                  \
		if ((level) <= tdp_log_level && tdp_log_rl_ok((rl), (level))) \
			tdp_log_msg((level), __VA_ARGS__);                    \
	} while (0)

#define log_err(...) tdp_log(LOG_ERR, __VA_ARGS__)
#define log_warn(...) tdp_log(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) tdp_log(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) tdp_log(LOG_INFO, __VA_ARGS__)
#define log_debug(...) tdp_log(LOG_DEBUG, __VA_ARGS__)

#endif
