/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The systemd notify protocol (sd_notify(3)), spoken directly: datagrams to
 * $NOTIFY_SOCKET. tdpd says READY=1 once its ports are up and its time source
 * has reported, STATUS= lines as it runs, STOPPING=1 on the way out, and feeds
 * the watchdog ($WATCHDOG_USEC) only while the frame engine advances: an
 * engine that stops making frames lets systemd restart the daemon.
 */
#ifndef TDP_NOTIFY_H
#define TDP_NOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/un.h>

struct notify {
	int fd; /* -1: not under systemd */
	struct sockaddr_un addr;
	socklen_t alen;
	int64_t watchdog_ns;  /* 0: no watchdog */
	int64_t next_feed_ns; /* monotonic */
	uint64_t fed_frames;  /* frame count at the latest feed */
	bool ready, stalled;
	uint64_t feeds, withheld; /* watchdog: fed, and ticks it was not fed at */
};

/* From the environment (NOTIFY_SOCKET, WATCHDOG_USEC, WATCHDOG_PID). 0, or
 * -errno with a message when NOTIFY_SOCKET is set but unusable. */
int notify_init(struct notify *n, char *err, size_t errlen);
void notify_close(struct notify *n);
int notify_send(struct notify *n, const char *msg);

/* Pure: whether to feed the watchdog now, given the engine's frame count.
 * Feeds at half the watchdog period, and only when frames moved on since the
 * last feed; updates the state as if fed. */
bool notify_watchdog_due(struct notify *n, int64_t now_ns, uint64_t frames);
/* notify_watchdog_due, then WATCHDOG=1 when it says so. Returns 1 if fed,
 * 0 if not due, -1 if withheld because the engine did not advance. */
int notify_watchdog(struct notify *n, int64_t now_ns, uint64_t frames);

#endif
