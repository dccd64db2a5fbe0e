/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The systemd notify protocol against a fake NOTIFY_SOCKET (a datagram socket
 * of the test's own): READY, STATUS and the watchdog, which is fed only while
 * the frame count moves.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include "notify.h"

static int fake(const char *name, bool abstract)
{
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	assert_true(s >= 0);
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	size_t len = strlen(name);
	memcpy(a.sun_path + (abstract ? 1 : 0), name, len);
	if (!abstract)
		unlink(name);
	assert_int_equal(bind(s, (struct sockaddr *)&a,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
					  (abstract ? 1 : 0))),
			 0);
	return s;
}

/* the next datagram, "" when there is none */
static const char *next_msg(int s)
{
	static char buf[512];
	ssize_t n = recv(s, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static void not_under_systemd(void **state)
{
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	struct notify n;
	char err[128];
	assert_int_equal(notify_init(&n, err, sizeof(err)), 0);
	assert_int_equal(n.fd, -1);
	assert_int_equal(n.watchdog_ns, 0);
	assert_int_equal(notify_send(&n, "READY=1"), 0);
	assert_int_equal(notify_watchdog(&n, 1000000000, 5), 0);
	notify_close(&n);
}

static void ready_and_status(void **state)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/tdp-notify-%d", (int)getpid());
	int s = fake(path, false);
	setenv("NOTIFY_SOCKET", path, 1);
	unsetenv("WATCHDOG_USEC");
	struct notify n;
	char err[128];
	assert_int_equal(notify_init(&n, err, sizeof(err)), 0);
	assert_int_equal(notify_send(&n, "READY=1\nSTATUS=forwarding"), 0);
	assert_string_equal(next_msg(s), "READY=1\nSTATUS=forwarding");
	assert_int_equal(notify_send(&n, "STOPPING=1"), 0);
	assert_string_equal(next_msg(s), "STOPPING=1");
	notify_close(&n);
	close(s);
	unlink(path);
	/* the abstract namespace, written with '@' */
	char name[64];
	snprintf(name, sizeof(name), "tdp-notify-abs-%d", (int)getpid());
	s = fake(name, true);
	char env[80];
	snprintf(env, sizeof(env), "@%s", name);
	setenv("NOTIFY_SOCKET", env, 1);
	assert_int_equal(notify_init(&n, err, sizeof(err)), 0);
	assert_int_equal(notify_send(&n, "READY=1"), 0);
	assert_string_equal(next_msg(s), "READY=1");
	notify_close(&n);
	close(s);
	/* not a path: refused with the reason */
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	assert_int_equal(notify_init(&n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "NOTIFY_SOCKET=relative/path"));
	unsetenv("NOTIFY_SOCKET");
}

static void watchdog_fed_only_while_frames_advance(void **state)
{
	char path[64];
	snprintf(path, sizeof(path), "/tmp/tdp-notify-wd-%d", (int)getpid());
	int s = fake(path, false);
	setenv("NOTIFY_SOCKET", path, 1);
	setenv("WATCHDOG_USEC", "100000", 1); /* 100 ms: fed every 50 ms */
	unsetenv("WATCHDOG_PID");
	struct notify n;
	char err[128];
	assert_int_equal(notify_init(&n, err, sizeof(err)), 0);
	assert_int_equal(n.watchdog_ns, 100000000);
	const int64_t ms = 1000000;
	assert_int_equal(notify_watchdog(&n, 0, 10), 1);
	assert_string_equal(next_msg(s), "WATCHDOG=1");
	assert_int_equal(notify_watchdog(&n, 20 * ms, 30), 0); /* not due yet */
	assert_string_equal(next_msg(s), "");
	assert_int_equal(notify_watchdog(&n, 50 * ms, 60), 1);
	assert_string_equal(next_msg(s), "WATCHDOG=1");
	/* the engine stops: due, but withheld, again and again */
	assert_int_equal(notify_watchdog(&n, 100 * ms, 60), -1);
	assert_int_equal(notify_watchdog(&n, 120 * ms, 60), -1);
	assert_string_equal(next_msg(s), "");
	assert_true(n.stalled);
	assert_int_equal(n.withheld, 2);
	/* it moves again: fed at once */
	assert_int_equal(notify_watchdog(&n, 130 * ms, 61), 1);
	assert_string_equal(next_msg(s), "WATCHDOG=1");
	assert_false(n.stalled);
	notify_close(&n);
	/* a watchdog meant for another process is not ours */
	setenv("WATCHDOG_PID", "1", 1);
	assert_int_equal(notify_init(&n, err, sizeof(err)), 0);
	assert_int_equal(n.watchdog_ns, 0);
	assert_int_equal(notify_watchdog(&n, 0, 1), 0);
	notify_close(&n);
	unsetenv("WATCHDOG_PID");
	unsetenv("WATCHDOG_USEC");
	unsetenv("NOTIFY_SOCKET");
	close(s);
	unlink(path);
}

TDP_TEST_MAIN(cmocka_unit_test(not_under_systemd), cmocka_unit_test(ready_and_status),
	      cmocka_unit_test(watchdog_fed_only_while_frames_advance))
