/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "notify.h"

int notify_init(struct notify *n, char *err, size_t errlen)
{
	memset(n, 0, sizeof(*n));
	n->fd = -1;
	const char *wd = getenv("WATCHDOG_USEC"), *wp = getenv("WATCHDOG_PID");
	if (wd && (!wp || atol(wp) == (long)getpid())) {
		char *end;
		long long us = strtoll(wd, &end, 10);
		if (*end == 0 && us > 0)
			n->watchdog_ns = us * 1000;
	}
	const char *p = getenv("NOTIFY_SOCKET");
	if (!p || !*p)
		return 0;
	size_t len = strlen(p);
	if (len >= sizeof(n->addr.sun_path) || (p[0] != '/' && p[0] != '@')) {
		snprintf(err, errlen, "NOTIFY_SOCKET=%s: not a socket path", p);
		return -EINVAL;
	}
	n->addr.sun_family = AF_UNIX;
	memcpy(n->addr.sun_path, p, len);
	if (p[0] == '@')
		n->addr.sun_path[0] = 0; /* abstract namespace */
	n->alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	n->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (n->fd < 0) {
		snprintf(err, errlen, "notify socket: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

void notify_close(struct notify *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
}

int notify_send(struct notify *n, const char *msg)
{
	if (n->fd < 0)
		return 0;
	ssize_t r =
		sendto(n->fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&n->addr, n->alen);
	return r < 0 ? -errno : 0;
}

bool notify_watchdog_due(struct notify *n, int64_t now_ns, uint64_t frames)
{
	if (!n->watchdog_ns || now_ns < n->next_feed_ns)
		return false;
	if (frames == n->fed_frames && n->feeds) {
		n->stalled = true;
		n->withheld++;
		return false;
	}
	n->stalled = false;
	n->fed_frames = frames;
	n->feeds++;
	n->next_feed_ns = now_ns + n->watchdog_ns / 2;
	return true;
}

int notify_watchdog(struct notify *n, int64_t now_ns, uint64_t frames)
{
	uint64_t withheld = n->withheld;
	if (notify_watchdog_due(n, now_ns, frames)) {
		notify_send(n, "WATCHDOG=1");
		return 1;
	}
	return n->withheld != withheld ? -1 : 0;
}
