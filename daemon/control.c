/* SPDX-License-Identifier: BSD-3-Clause */
/* The control server: its two UNIX sockets and its thread (control.h); the
 * commands are control_cmds.c's. */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "control.h"
#include "ctl_proto.h"
#include "frame.h"
#include "log.h"

#define CTL_IO_MS 1000            /* a client has this long to send its request */
#define CTL_TABLE_READ_MS 5000    /* and the table it passes */
#define CTL_MAX_AHEAD_S 86400     /* a table is loaded for a time at most a day ahead */

/* ---- the thread -------------------------------------------------------- */

static bool peer_allowed(int fd, long gid, char *who, size_t wlen)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) != 0) {
		snprintf(who, wlen, "unknown peer");
		return false;
	}
	snprintf(who, wlen, "pid %d uid %u", (int)cr.pid, (unsigned)cr.uid);
	if (cr.uid == 0 || cr.uid == geteuid())
		return true;
	if (gid < 0)
		return false;
	if ((long)cr.gid == gid)
		return true;
	/* supplementary groups: the peer's, from /proc */
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)cr.pid);
	FILE *f = fopen(path, "r");
	bool ok = false;
	while (f && !ok && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Groups:", 7)) {
			char *p = line + 7, *end;
			for (long g = strtol(p, &end, 10); end != p; p = end, g = strtol(p, &end, 10))
				ok |= g == gid;
		}
	if (f)
		fclose(f);
	return ok;
}

static void serve(struct control *c, int lfd, bool control_sock)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	char req[CTL_MAX_REQUEST + 2];
	int pfd = -1;
	int rc = ctl_read_request(fd, req, sizeof(req), &pfd, CTL_IO_MS);
	char *out = NULL;
	bool defer = false;
	if (rc == -E2BIG)
		out = control_reply_err("too-long", "requests are at most %d bytes", CTL_MAX_REQUEST);
	else if (rc == -ETIMEDOUT)
		out = control_reply_err("malformed", "no whole request (a JSON line) within %d ms", CTL_IO_MS);
	else if (rc == 0) {
		char who[64];
		bool allowed = !control_sock || peer_allowed(fd, c->gid, who, sizeof(who));
		if (!allowed) {
			out = control_reply_err("permission", "%s may not use the control socket: it takes root or group %s",
					who, c->conf->control_group);
			log_warn("control socket: %s refused (not root nor in group %s)", who, c->conf->control_group);
		} else {
			out = control_handle(c, req, strlen(req), pfd, control_sock, &defer);
		}
	}
	if (pfd >= 0)
		close(pfd);
	if (defer) {
		c->waiter = fd;
		control_advance(c);
		return;
	}
	control_answer(&fd, out);
}

static void *ctl_thread(void *arg)
{
	struct control *c = arg;
	while (!atomic_load(&c->stop)) {
		struct pollfd p[2];
		int n = 0, which[2];
		for (int i = 0; i < 2; i++)
			if (c->lfd[i] >= 0) {
				p[n] = (struct pollfd){.fd = c->lfd[i], .events = POLLIN};
				which[n++] = i;
			}
		int r = poll(p, (nfds_t)n, c->pending ? 2 : 50);
		for (int i = 0; r > 0 && i < n; i++)
			if (p[i].revents & POLLIN)
				serve(c, p[i].fd, which[i] == 0);
		control_advance(c);
	}
	return NULL;
}

static int open_one(struct control *c, int i, const char *path, unsigned mode, char *err, size_t errlen)
{
	c->lfd[i] = -1;
	if (!path[0] || !strcmp(path, "none"))
		return 0;
	/* the directory the socket lives in, as /run/tdpd */
	char dir[CONF_STR];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", dir, strerror(errno));
			return -1;
		}
	}
	int fd = ctl_listen(path, mode, i == 0 ? c->gid : -1, err, errlen);
	if (fd < 0)
		return -1;
	c->lfd[i] = fd;
	return 0;
}

int control_open(struct control *c, char *err, size_t errlen)
{
	c->lfd[0] = c->lfd[1] = -1;
	c->waiter = -1;
	c->gid = -1;
	struct group gr, *res = NULL;
	char buf[4096];
	if (getgrnam_r(c->conf->control_group, &gr, buf, sizeof(buf), &res) == 0 && res)
		c->gid = (long)gr.gr_gid;
	else
		log_notice("control-group %s does not exist: only root may use the control socket (groupadd --system %s "
			   "lets others in)", c->conf->control_group, c->conf->control_group);
	if (open_one(c, 0, c->conf->control_socket, 0660, err, errlen) != 0 ||
	    open_one(c, 1, c->conf->monitor_socket, 0666, err, errlen) != 0) {
		control_stop(c);
		return -1;
	}
	if (c->lfd[0] >= 0)
		log_info("control socket %s (root%s%s), monitor socket %s", c->conf->control_socket,
			 c->gid >= 0 ? " and group " : "", c->gid >= 0 ? c->conf->control_group : "",
			 c->lfd[1] >= 0 ? c->conf->monitor_socket : "none");
	return 0;
}

int control_start(struct control *c, char *err, size_t errlen)
{
	int rc = pthread_create(&c->th, NULL, ctl_thread, c);
	if (rc) {
		snprintf(err, errlen, "control thread: %s", strerror(rc));
		return -1;
	}
	pthread_setname_np(c->th, "tdpd-ctl");
	c->running = true;
	return 0;
}

void control_stop(struct control *c)
{
	if (c->running) {
		atomic_store(&c->stop, 1);
		pthread_join(c->th, NULL);
		c->running = false;
	}
	if (c->waiter >= 0)
		control_answer(&c->waiter, control_reply_err("busy", "tdpd is stopping; the table waiting for frame %" PRId64 " was not adopted",
					     c->pending ? engine_table_requested(c->pending->et) : 0));
	if (!c->conf)
		return; /* never opened */
	const char *paths[2] = {c->conf->control_socket, c->conf->monitor_socket};
	for (int i = 0; i < 2; i++)
		if (c->lfd[i] >= 0) {
			close(c->lfd[i]);
			unlink(paths[i]);
			c->lfd[i] = -1;
		}
}

