/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control server's dispatch, without an engine: every command of the
 * protocol has a handler that agrees on being a change, and what is refused
 * before a handler runs (a request that is not JSON, another protocol
 * version, an unknown command, a change asked on the monitor socket) is
 * refused with its code. log-level, which needs no engine, is answered on
 * both sockets and set only on the control one. The handlers that read the
 * engine are exercised against a running tdpd in control_net.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../tdp_test.h"
#include <jansson.h>

#include "control.h"
#include "ctl_proto.h"
#include "log.h"
#include "reply_code.h"

static struct conf conf;
static struct control ctl = {.conf = &conf, .tm = {.waiter = -1}, .lfd = {-1, -1}};

/* the reply's error code, or "ok" */
static const char *code_of(const char *req, bool privileged)
{
	bool defer = false;
	char *out = control_handle(&ctl, req, strlen(req), -1, -1, privileged, &defer);
	assert_false(defer);
	return reply_code(out, NULL);
}

static void every_command_has_its_handler(void **st)
{
	(void)st;
	assert_null(control_unhandled());
}

static void refused_before_any_handler(void **st)
{
	(void)st;
	snprintf(conf.control_socket, sizeof(conf.control_socket), "/run/tdpd/tdpd.sock");
	assert_string_equal(code_of("not json", true), "malformed");
	assert_string_equal(code_of("[1]", true), "malformed");
	assert_string_equal(code_of("{\"version\":2,\"cmd\":\"status\"}", true), "version");
	assert_string_equal(code_of("{\"version\":1}", true), "malformed");
	assert_string_equal(code_of("{\"version\":1,\"cmd\":\"status\",\"args\":3}", true),
			    "bad-args");
	assert_string_equal(code_of("{\"version\":1,\"cmd\":\"reboot\"}", true), "unknown-command");
	/* every change, on the monitor socket */
	for (const struct ctl_cmd *c = ctl_cmds; c->name; c++) {
		if (!c->changes)
			continue;
		char req[256];
		snprintf(req, sizeof(req),
			 "{\"version\":1,\"cmd\":\"%s\",\"args\":{\"level\":\"debug\"}}", c->name);
		assert_string_equal(code_of(req, false), "read-only");
	}
}

/* A reply quotes what the client sent: a parse error near bytes that are not
 * UTF-8, or an unknown command cut inside a character, must still be one
 * JSON line (an error that could not be encoded left the client with none). */
static void replies_to_bytes_that_are_not_utf8(void **st)
{
	(void)st;
	assert_string_equal(code_of("{\"versik\\\xdd\x93\x90"
				    "fag-levbl\"\"}",
				    false),
			    "malformed");
	assert_string_equal(code_of("{\"version\":1,\"cmd\":\"\xff\xfe\"}", true), "malformed");
	char req[200] = "{\"version\":1,\"cmd\":\"";
	for (int i = 0; i < 63; i++)
		strcat(req, "x");
	strcat(req, "\xc3\xa9\"}"); /* the 64-byte cut falls inside the U+00E9 */
	assert_string_equal(code_of(req, true), "unknown-command");
}

static void log_level_on_both_sockets(void **st)
{
	(void)st;
	tdp_log_level = LOG_INFO;
	assert_string_equal(code_of("{\"version\":1,\"cmd\":\"log-level\"}", false), "ok");
	assert_string_equal(code_of("{\"version\":1,\"cmd\":\"log-level\",\"args\":{}}", false),
			    "ok");
	assert_string_equal(
		code_of("{\"version\":1,\"cmd\":\"log-level\",\"args\":{\"level\":\"debug\"}}",
			false),
		"read-only");
	assert_int_equal(tdp_log_level, LOG_INFO);
	assert_string_equal(
		code_of("{\"version\":1,\"cmd\":\"log-level\",\"args\":{\"level\":\"loud\"}}",
			true),
		"bad-args");
	assert_string_equal(
		code_of("{\"version\":1,\"cmd\":\"log-level\",\"args\":{\"level\":\"debug\"}}",
			true),
		"ok");
	assert_int_equal(tdp_log_level, LOG_DEBUG);
	tdp_log_level = LOG_INFO;
}

TDP_TEST_MAIN(cmocka_unit_test(every_command_has_its_handler),
	      cmocka_unit_test(refused_before_any_handler),
	      cmocka_unit_test(replies_to_bytes_that_are_not_utf8),
	      cmocka_unit_test(log_level_on_both_sockets))
