/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "ctl_proto.h"
#include "tdp_mono.h"

const struct ctl_cmd ctl_cmds[] = {
	{"status", false, "what the daemon is doing: table, frames, sync, errors"},
	{"ports", false, "per port: device, link, pacing rate, frames and packets"},
	{"flows", false, "per flow of the table in force: every counter"},
	{"sync", false, "the time source and its sync state"},
	{"stats", false, "every counter, the frame-start error histogram and the sync state"},
	{"routes", false,
	 "the routes in force, each with where it came from (tdpd.conf or the kernel)"},
	{"neighbours", false, "the neighbours in force, each with where it came from"},
	{"log-level", true, "the log level; with a level, sets it"},
	{"schedule-active", false, "the table in force, the one waiting, the latest swap"},
	{"schedule-load", true,
	 "validate a table and have the engine adopt it at a cycle boundary"},
	{"schedule-cancel", true,
	 "withdraw the table waiting to be adopted, before the engine takes it"},
	{"schedule-stage", true,
	 "validate and build a table, and hold it under an id until a commit or an abort"},
	{"schedule-commit", true, "have the engine adopt a staged table at a cycle boundary"},
	{"schedule-abort", true, "drop a staged table"},
	{"capture", true, "copy a port's packets into pcapng, written to the descriptor passed"},
	{NULL, false, NULL},
};

const struct ctl_cmd *ctl_cmd_find(const char *name)
{
	for (const struct ctl_cmd *c = ctl_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* poll for ev until deadline (ms, monotonic; < 0: none). 0, or -ETIMEDOUT. */
static int wait_fd(int fd, short ev, int64_t deadline)
{
	for (;;) {
		int to = -1;
		if (deadline >= 0) {
			int64_t left = deadline - (tdp_mono_ns() / 1000000);
			if (left <= 0)
				return -ETIMEDOUT;
			to = left > 1000000 ? 1000000 : (int)left;
		}
		struct pollfd p = {.fd = fd, .events = ev};
		int r = poll(&p, 1, to);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

static int set_addr(struct sockaddr_un *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a->sun_path))
		return -ENAMETOOLONG;
	memcpy(a->sun_path, path, strlen(path));
	return 0;
}

int ctl_write_all(int sock, const char *buf, size_t len, int timeout_ms)
{
	int64_t deadline = timeout_ms < 0 ? -1 : (tdp_mono_ns() / 1000000) + timeout_ms;
	while (len) {
		ssize_t n = send(sock, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		int r = wait_fd(sock, POLLOUT, deadline);
		if (r)
			return r;
	}
	return 0;
}

int ctl_request(const char *path, const char *req, int pass_fd, int timeout_ms, char **reply,
		char *err, size_t errlen)
{
	struct sockaddr_un a;
	*reply = NULL;
	if (set_addr(&a, path)) {
		snprintf(err, errlen, "%s: socket path too long", path);
		return -ENAMETOOLONG;
	}
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	int rc;
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) != 0) {
		rc = -errno;
		if (rc == -ENOENT || rc == -ECONNREFUSED)
			snprintf(err, errlen,
				 "%s: %s: is tdpd running? (its control-socket and monitor-socket "
				 "options "
				 "say where it listens)",
				 path, strerror(-rc));
		else if (rc == -EACCES)
			snprintf(err, errlen,
				 "%s: permission denied: changes need root or the group that owns "
				 "the "
				 "socket (control-group, default %s); the monitor socket answers "
				 "everyone",
				 path, CTL_GROUP_DEFAULT);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto out;
	}
	size_t rl = strlen(req);
	char *line = malloc(rl + 2);
	if (!line) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	memcpy(line, req, rl);
	line[rl] = '\n';
	line[rl + 1] = 0;
	int64_t deadline = timeout_ms < 0 ? -1 : (tdp_mono_ns() / 1000000) + timeout_ms;
	if (pass_fd >= 0) {
		/* the descriptor rides on the first byte */
		char cbuf[CMSG_SPACE(sizeof(int))];
		memset(cbuf, 0, sizeof(cbuf));
		struct iovec iov = {.iov_base = line, .iov_len = 1};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = cbuf,
				   .msg_controllen = sizeof(cbuf)};
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
		if (sendmsg(s, &m, MSG_NOSIGNAL) != 1) {
			rc = -errno;
			snprintf(err, errlen, "%s: sending the request: %s", path, strerror(errno));
			free(line);
			goto out;
		}
		rc = ctl_write_all(s, line + 1, rl, timeout_ms);
	} else {
		rc = ctl_write_all(s, line, rl + 1, timeout_ms);
	}
	free(line);
	if (rc) {
		snprintf(err, errlen, "%s: sending the request: %s", path, strerror(-rc));
		goto out;
	}
	size_t cap = 65536, len = 0;
	ssize_t last = 0;
	char *buf = malloc(cap);
	if (!buf) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (;;) {
		/* a reply is one line: its newline ends it, and a daemon (or what
		 * answers in its place) that sends more is cut off, not held */
		if (len && memchr(buf + len - (size_t)last, '\n', (size_t)last))
			break;
		if (len >= CTL_MAX_REPLY) {
			free(buf);
			rc = -EMSGSIZE;
			snprintf(err, errlen, "%s: the reply is longer than %u MiB without its end",
				 path, CTL_MAX_REPLY >> 20);
			goto out;
		}
		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				rc = -ENOMEM;
				snprintf(err, errlen, "out of memory for the reply");
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		rc = wait_fd(s, POLLIN, deadline);
		if (rc) {
			free(buf);
			snprintf(err, errlen, "%s: no reply within %d ms", path, timeout_ms);
			goto out;
		}
		size_t room = cap - 1 - len;
		if (room > CTL_MAX_REPLY - len)
			room = CTL_MAX_REPLY - len;
		ssize_t n = recv(s, buf + len, room, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			free(buf);
			snprintf(err, errlen, "%s: reading the reply: %s", path, strerror(-rc));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		last = n;
	}
	buf[len] = 0;
	char *nl = memchr(buf, '\n', len);
	if (nl) {
		nl[1] = 0; /* the reply, without what came after its end */
		len = (size_t)(nl + 1 - buf);
	}
	if (!len) {
		free(buf);
		rc = -ECONNRESET;
		snprintf(err, errlen, "%s: the daemon closed the connection without a reply", path);
		goto out;
	}
	*reply = buf;
	rc = 0;
out:
	close(s);
	return rc;
}

int ctl_listen(const char *path, unsigned mode, long gid, char *err, size_t errlen)
{
	struct sockaddr_un a;
	if (set_addr(&a, path)) {
		snprintf(err, errlen, "%s: socket path too long (at most %zu bytes)", path,
			 sizeof(a.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -errno;
	}
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "%s exists and is not a socket; not replacing it",
				 path);
			close(s);
			return -EEXIST;
		}
		int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c >= 0 && connect(c, (struct sockaddr *)&a, sizeof(a)) == 0) {
			close(c);
			close(s);
			snprintf(err, errlen, "%s: another tdpd is listening there", path);
			return -EADDRINUSE;
		}
		if (c >= 0)
			close(c);
		unlink(path); /* stale: its daemon is gone */
	}
	/* no window in which the socket has looser permissions than asked */
	mode_t old = umask(0777 & ~mode);
	int r = bind(s, (struct sockaddr *)&a, sizeof(a));
	umask(old);
	if (r != 0) {
		r = -errno;
		snprintf(err, errlen, "%s: bind: %s", path, strerror(errno));
		close(s);
		return r;
	}
	if ((gid != -1 && chown(path, (uid_t)-1, (gid_t)gid) != 0) || chmod(path, mode) != 0) {
		r = -errno;
		snprintf(err, errlen, "%s: setting owner and mode: %s", path, strerror(errno));
		close(s);
		unlink(path);
		return r;
	}
	if (listen(s, 128) != 0) {
		r = -errno;
		snprintf(err, errlen, "%s: listen: %s", path, strerror(errno));
		close(s);
		unlink(path);
		return r;
	}
	return s;
}

int ctl_read_step(int sock, char *buf, size_t cap, size_t *len, int *fd)
{
	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(int) * 4)];
		struct iovec iov = {.iov_base = buf + *len, .iov_len = cap - 1 - *len};
		struct msghdr m = {.msg_iov = &iov,
				   .msg_iovlen = 1,
				   .msg_control = cbuf,
				   .msg_controllen = sizeof(cbuf)};
		ssize_t n = recvmsg(sock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < nfd; i++) {
				int f;
				memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				if (*fd < 0)
					*fd = f;
				else
					close(f); /* one is all a request may carry */
			}
		}
		if (n == 0) {
			/* a half-close ends a request that has no newline */
			if (!*len)
				return -ECONNRESET;
			buf[*len] = 0;
			return 1;
		}
		char *nl = memchr(buf + *len, '\n', (size_t)n);
		size_t upto = nl ? (size_t)(nl - (buf + *len)) : (size_t)n;
		if (memchr(buf + *len, 0, upto))
			return -EBADMSG;
		*len += (size_t)n;
		if (nl) {
			*nl = 0;
			return 1;
		}
		if (*len >= cap - 1 || *len > CTL_MAX_REQUEST)
			return -E2BIG;
	}
}
