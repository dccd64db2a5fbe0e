/* SPDX-License-Identifier: BSD-3-Clause */
/* The control server: its two UNIX sockets and its thread (control.h), an
 * event loop over every client at once, each with its deadline, so no client
 * holds up another; the commands are control_cmds.c's, loads control_load.c's,
 * the tables' life tables.c's. */
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

#include "capture.h"
#include "control.h"
#include "ctl_proto.h"
#include "frame.h"
#include "log.h"

#define CTL_IO_MS 1000 /* a client has this long to send its request */

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
			for (long g = strtol(p, &end, 10); end != p;
			     p = end, g = strtol(p, &end, 10))
				ok |= g == gid;
		}
	if (f)
		fclose(f);
	return ok;
}

/* A whole request from client i: answered, or held for a load or a swap. */
static void client_request(struct control *c, int i)
{
	struct ctl_client *k = &c->cl[i];
	char *out = NULL;
	bool defer = false;
	char who[64];
	bool control_sock = k->sock == 0;
	if (control_sock && !peer_allowed(k->fd, c->gid, who, sizeof(who))) {
		out = control_reply_err(
			"permission",
			"%s may not use the control socket: it takes root or group %s", who,
			c->conf->control_group);
		log_warn("control socket: %s refused (not root nor in group %s)", who,
			 c->conf->control_group);
	} else {
		out = control_handle(c, k->buf, strlen(k->buf), k->pfd, i, control_sock, &defer);
	}
	if (k->pfd >= 0)
		close(k->pfd);
	k->pfd = -1;
	if (defer) {
		k->state =
			CL_HELD; /* control_load_finish answers it, or makes it the swap's waiter */
		return;
	}
	int slot = i;
	control_answer(c, &slot, out);
}

/* a request arriving: answered when whole, refused when too long or late */
static void client_read(struct control *c, int i, short rev, int64_t now)
{
	struct ctl_client *k = &c->cl[i];
	int rc = rev ? ctl_read_step(k->fd, k->buf, CTL_MAX_REQUEST + 2, &k->len, &k->pfd) : 0;
	char *out = NULL;
	if (rc == 1)
		client_request(c, i);
	else if (rc == -E2BIG)
		out = control_reply_err("too-long", "requests are at most %d bytes",
					CTL_MAX_REQUEST);
	else if (rc == -EBADMSG)
		out = control_reply_err("malformed", "a NUL byte in the request");
	else if (rc < 0)
		control_client_close(k);
	else if (now >= k->deadline_ns)
		out = control_reply_err("malformed", "no whole request (a JSON line) within %d ms",
					CTL_IO_MS);
	if (out) {
		int slot = i;
		control_answer(c, &slot, out);
	}
}

/* a reply leaving; then what the client still sends is drained */
static void client_write(struct ctl_client *k, short rev, int64_t now)
{
	while (rev && k->off < k->len) {
		ssize_t n =
			send(k->fd, k->buf + k->off, k->len - k->off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			k->off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			control_client_close(k);
			return;
		}
		break;
	}
	if (k->off == k->len) {
		/* what the client still sends (the rest of an oversize
		 * request) is read and dropped, briefly, so that closing
		 * does not reset the connection before it read the reply */
		shutdown(k->fd, SHUT_WR);
		k->state = CL_DRAIN;
		k->off = 0;
		k->deadline_ns = now + 200 * 1000000LL;
	} else if (now >= k->deadline_ns) {
		control_client_close(k); /* it does not read its reply */
	}
}

/* the rest of what the client sends, read and dropped, briefly */
static void client_drain(struct ctl_client *k, short rev, int64_t now)
{
	char junk[4096];
	ssize_t n = rev ? recv(k->fd, junk, sizeof(junk), MSG_DONTWAIT) : -1;
	if (n > 0)
		k->off += (size_t)n;
	if ((rev && n == 0) || (n < 0 && rev && errno != EAGAIN && errno != EINTR) ||
	    now >= k->deadline_ns || k->off >= (1u << 20))
		control_client_close(k);
}

static void client_io(struct control *c, int i, short rev, int64_t now)
{
	struct ctl_client *k = &c->cl[i];
	if (k->state == CL_READ)
		client_read(c, i, rev, now);
	else if (k->state == CL_WRITE)
		client_write(k, rev, now);
	else if (k->state == CL_DRAIN)
		client_drain(k, rev, now);
}

/* Clients of socket s being served (not those being told "busy"). */
static int served_on(const struct control *c, int s)
{
	int n = 0;
	for (int i = 0; i < CTL_SLOTS; i++)
		n += c->cl[i].state != CL_FREE && c->cl[i].sock == s && !c->cl[i].refused;
	return n;
}

/* New connections on socket s, which has room for one more (the thread does
 * not poll a full socket: the next wait in its backlog). On the monitor
 * socket, a user other than root past its share is answered "busy". */
static void accept_on(struct control *c, int s, int64_t now)
{
	while (served_on(c, s) < CTL_MAX_CLIENTS) {
		int fd = accept4(c->lfd[s], NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		struct ucred cr = {.uid = (uid_t)-1};
		socklen_t l = sizeof(cr);
		getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l);
		int of_uid = 0, refusing = 0, free_slot = -1;
		for (int i = 0; i < CTL_SLOTS; i++) {
			const struct ctl_client *k = &c->cl[i];
			if (k->state == CL_FREE && free_slot < 0)
				free_slot = i;
			of_uid += k->state != CL_FREE && k->sock == s && !k->refused &&
				  k->uid == cr.uid;
			refusing += k->state != CL_FREE && k->refused;
		}
		bool refuse = s == 1 && cr.uid != 0 && of_uid >= CTL_MAX_PER_UID;
		/* those told busy keep to their CTL_REFUSING slots, so a client
		 * served always finds one; past them, a flood is closed unanswered */
		char *buf = free_slot >= 0 && (!refuse || refusing < CTL_REFUSING)
				    ? malloc(CTL_MAX_REQUEST + 2)
				    : NULL;
		if (!buf) {
			close(fd);
			c->clients_refused += refuse;
			continue;
		}
		c->cl[free_slot] =
			(struct ctl_client){.fd = fd,
					    .state = CL_READ,
					    .sock = (uint8_t)s,
					    .uid = cr.uid,
					    .refused = refuse,
					    .pfd = -1,
					    .buf = buf,
					    .deadline_ns = now + (int64_t)CTL_IO_MS * 1000000};
		if (!refuse) {
			c->clients++;
			continue;
		}
		c->clients_refused++;
		int slot = free_slot;
		control_answer(
			c, &slot,
			control_reply_err("busy",
					  "%d connections of your user to this socket are open; "
					  "close one and try again",
					  of_uid));
	}
}

/* What the thread waits on: the sockets with room, the loader, a capture
 * and its client, every client not held; who[] says which each is (-1, -2
 * the sockets, -3 the loader, -4 the capture, -5 its client, else the
 * slot). *next moves to the earliest client deadline. The count. */
static int poll_set(struct control *c, struct pollfd *p, int *who, int64_t *next)
{
	int n = 0;
	bool room = false;
	for (int i = 0; i < CTL_SLOTS; i++)
		room |= c->cl[i].state == CL_FREE;
	for (int i = 0; i < 2; i++)
		if (c->lfd[i] >= 0 && room && served_on(c, i) < CTL_MAX_CLIENTS) {
			p[n] = (struct pollfd){.fd = c->lfd[i], .events = POLLIN};
			who[n++] = -1 - i;
		}
	p[n] = (struct pollfd){.fd = control_load_fd(c), .events = POLLIN};
	who[n++] = -3;
	if (c->cap) {
		/* a capture's end, and its client hanging up before it */
		p[n] = (struct pollfd){.fd = capture_fd(c->cap), .events = POLLIN};
		who[n++] = -4;
		if (c->cap_waiter >= 0) {
			p[n] = (struct pollfd){.fd = c->cl[c->cap_waiter].fd, .events = POLLRDHUP};
			who[n++] = -5;
		}
	}
	for (int i = 0; i < CTL_SLOTS; i++) {
		struct ctl_client *k = &c->cl[i];
		if (k->state == CL_FREE || k->state == CL_HELD)
			continue;
		p[n] = (struct pollfd){.fd = k->fd,
				       .events = k->state == CL_WRITE ? POLLOUT : POLLIN};
		who[n++] = i;
		if (k->deadline_ns < *next)
			*next = k->deadline_ns;
	}
	return n;
}

static void *ctl_thread(void *arg)
{
	struct control *c = arg;
	struct pollfd p[5 + CTL_SLOTS];
	int who[5 + CTL_SLOTS];
	while (!atomic_load(&c->stop)) {
		int64_t now = tdp_mono_ns(), next = now + (c->tm.pending ? 2 : 50) * 1000000LL;
		int n = poll_set(c, p, who, &next);
		int64_t wait = (next - now + 999999) / 1000000;
		int r = poll(p, (nfds_t)n, wait < 0 ? 0 : (int)wait);
		now = tdp_mono_ns();
		for (int j = 0; j < n; j++) {
			short rev = r > 0 ? p[j].revents : 0;
			if (who[j] == -3) {
				if (rev & POLLIN)
					control_load_finish(c);
			} else if (who[j] == -4) {
				if (rev & POLLIN)
					control_capture_finish(c);
			} else if (who[j] == -5) {
				if (rev & (POLLRDHUP | POLLHUP | POLLERR))
					capture_stop(c->cap);
			} else if (who[j] < 0) {
				if (rev & POLLIN)
					accept_on(c, -1 - who[j], now);
			} else {
				client_io(c, who[j], rev, now);
			}
		}
		tables_advance(&c->tm);
	}
	return NULL;
}

static int open_one(struct control *c, int i, const char *path, unsigned mode, char *err,
		    size_t errlen)
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
	c->tm.waiter = -1;
	c->cap_waiter = -1;
	c->gid = -1;
	struct group gr, *res = NULL;
	char buf[4096];
	if (getgrnam_r(c->conf->control_group, &gr, buf, sizeof(buf), &res) == 0 && res)
		c->gid = (long)gr.gr_gid;
	else
		log_notice("control-group %s does not exist: only root may use the control socket "
			   "(groupadd --system %s "
			   "lets others in)",
			   c->conf->control_group, c->conf->control_group);
	if (open_one(c, 0, c->conf->control_socket, 0660, err, errlen) != 0 ||
	    open_one(c, 1, c->conf->monitor_socket, 0666, err, errlen) != 0) {
		control_stop(c);
		return -1;
	}
	if (c->lfd[0] >= 0)
		log_info("control socket %s (root%s%s), monitor socket %s", c->conf->control_socket,
			 c->gid >= 0 ? " and group " : "",
			 c->gid >= 0 ? c->conf->control_group : "",
			 c->lfd[1] >= 0 ? c->conf->monitor_socket : "none");
	return 0;
}

int control_start(struct control *c, char *err, size_t errlen)
{
	if (control_load_start(c, err, errlen) != 0)
		return -1;
	c->running = true;
	int rc = pthread_create(&c->th, NULL, ctl_thread, c);
	if (rc) {
		c->running = false;
		control_load_stop(c);
		snprintf(err, errlen, "control thread: %s", strerror(rc));
		return -1;
	}
	pthread_setname_np(c->th, "tdpd-ctl");
	return 0;
}

void control_stop(struct control *c)
{
	if (c->running) {
		atomic_store(&c->stop, 1);
		pthread_join(c->th, NULL);
		c->running = false;
	}
	control_load_stop(c);
	if (c->cap && c->cap_waiter >= 0) {
		/* a capture running: ended, its client told what it got */
		capture_stop(c->cap);
		struct pollfd pf = {.fd = capture_fd(c->cap), .events = POLLIN};
		if (poll(&pf, 1, 2000) > 0)
			control_capture_finish(c);
	}
	tables_stop(&c->tm);
	/* replies on their way: sent now, briefly; the rest closed */
	for (int i = 0; i < CTL_SLOTS; i++) {
		struct ctl_client *k = &c->cl[i];
		if (k->state == CL_WRITE)
			ctl_write_all(k->fd, k->buf + k->off, k->len - k->off, 200);
		if (k->state != CL_FREE)
			control_client_close(k);
	}
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
