/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The log: level names, the level checked before the arguments are
 * evaluated, the line's form on a file, and the rate limit with its count of
 * what it dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

static int evaluated;

static int count(void)
{
	return ++evaluated;
}

/* stderr into a temporary file while fn runs; its text */
static char *capture(void (*fn)(void))
{
	char path[] = "/tmp/tdp-test-log-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	static char buf[4096];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(path);
	return buf;
}

static void level_names(void **st)
{
	(void)st;
	assert_int_equal(tdp_log_parse("error"), LOG_ERR);
	assert_int_equal(tdp_log_parse("warning"), LOG_WARNING);
	assert_int_equal(tdp_log_parse("notice"), LOG_NOTICE);
	assert_int_equal(tdp_log_parse("info"), LOG_INFO);
	assert_int_equal(tdp_log_parse("debug"), LOG_DEBUG);
	assert_int_equal(tdp_log_parse("loud"), -1);
	assert_int_equal(tdp_log_parse(""), -1);
}

static void below_level(void)
{
	tdp_log_level = LOG_NOTICE;
	log_info("not shown %d", count());
	log_warn("shown %d", count());
}

static void level_checked_before_arguments(void **st)
{
	(void)st;
	evaluated = 0;
	char *out = capture(below_level);
	assert_int_equal(evaluated, 1);
	assert_null(strstr(out, "not shown"));
	assert_non_null(strstr(out, "warning: shown 1"));
	tdp_log_level = LOG_INFO;
}

static struct tdp_ratelimit rl = TDP_RATELIMIT(3600LL * 1000000000, 3);

static void limited(void)
{
	for (int i = 0; i < 10; i++)
		tdp_log_rl(&rl, LOG_WARNING, "burst %d", i);
	rl.begin_ns -= 3601LL * 1000000000; /* the interval is over */
	tdp_log_rl(&rl, LOG_WARNING, "after");
}

static void rate_limit_counts_what_it_drops(void **st)
{
	(void)st;
	tdp_log_level = LOG_INFO;
	char *out = capture(limited);
	assert_non_null(strstr(out, "burst 2"));
	assert_null(strstr(out, "burst 3"));
	assert_non_null(strstr(out, "7 similar messages suppressed"));
	assert_non_null(strstr(out, "after"));
}

int main(void)
{
	tdp_log_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(level_names),
		cmocka_unit_test(level_checked_before_arguments),
		cmocka_unit_test(rate_limit_counts_what_it_drops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
