/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control protocol between tdpd and tdpctl. Two UNIX stream sockets, as
 * chronyd and ptp4l have: the control socket (mode 0660, root and group tdp)
 * takes every command; the monitor socket (mode 0666) only those that change
 * nothing. One request per connection:
 *
 *   client: {"version":1,"cmd":"NAME","args":{...}}\n   (at most 4096 bytes;
 *           "schedule-load" and "schedule-stage" pass the table's open file
 *           descriptor along with it, SCM_RIGHTS, so the daemon needs no
 *           access to the path)
 *   daemon: {"version":1,"ok":true,"result":{...}}\n
 *        or {"version":1,"ok":false,"error":"...","code":"...", ...}\n
 *
 * then the daemon closes. A half-close after the request ends it as a newline
 * would. The daemon serves many clients at once, each with its own deadlines
 * (1 s to send the request, 5 s to read the reply), and at most
 * CTL_MAX_CLIENTS connections per socket (the next wait in the backlog), at
 * most CTL_MAX_PER_UID of them per user other than root on the monitor socket
 * (one more is answered "busy"). A request that
 * is malformed (a NUL byte in it, too), too long, of another version, unknown,
 * a change on the monitor socket or from a peer without permission gets an
 * error reply and changes nothing. Error codes are stable
 * words scripts can test: malformed, too-long, version, unknown-command,
 * bad-args, read-only, permission, invalid-table, busy, too-late, internal;
 * and of staged tables: unknown-stage (no table staged under that id, or it
 * expired); of flows and routes: unknown-flow (flows NAME: no such flow),
 * too-big (a listing past what a reply holds: ask for one or the sum).
 */
#ifndef TDP_CTL_PROTO_H
#define TDP_CTL_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#define CTL_VERSION 1
#define CTL_MAX_REQUEST 4096
#define CTL_MAX_REPLY \
	(64u << 20) /* a reply is one line of at most this (65,535 flows' stats fit) */
#define CTL_SOCKET_DEFAULT "/run/tdpd/tdpd.sock"
#define CTL_MONITOR_DEFAULT "/run/tdpd/tdpd-ro.sock"
#define CTL_GROUP_DEFAULT "tdp"
#define CTL_MAX_CLIENTS 32 /* connections open at once, per socket */
#define CTL_MAX_PER_UID 8  /* of them per user, on the monitor socket */

struct ctl_cmd {
	const char *name;
	bool changes; /* only on the control socket (log-level: with a level) */
	const char *help;
};

extern const struct ctl_cmd ctl_cmds[];
const struct ctl_cmd *ctl_cmd_find(const char *name);

/* Client: connects to path, sends req (a JSON line without the newline) and,
 * when pass_fd >= 0, that descriptor; reads the reply into a malloc'd,
 * NUL-terminated *reply. Fails after timeout_ms without a whole reply
 * (timeout_ms < 0: wait as long as it takes). 0 or -errno, with a message. */
int ctl_request(const char *path, const char *req, int pass_fd, int timeout_ms, char **reply,
		char *err, size_t errlen);

/* Server: a listening socket at path (a stale socket file is replaced, a live
 * one is an error), with the mode and, when gid != (gid_t)-1, the group. */
int ctl_listen(const char *path, unsigned mode, long gid, char *err, size_t errlen);
/* Reads what has arrived of one request line into buf (cap bytes, *len of
 * them already read) without waiting, and a descriptor passed with it into
 * *fd (-1 if none yet; *fd is the caller's to close). 1: the request is
 * complete, NUL-terminated without its newline (a half-close also ends one);
 * 0: more is to come; -E2BIG: longer than CTL_MAX_REQUEST; -EBADMSG: a NUL
 * byte in it; -ECONNRESET: the peer closed before sending anything; -errno. */
int ctl_read_step(int sock, char *buf, size_t cap, size_t *len, int *fd);
/* Writes all of buf, giving up after timeout_ms. 0 or -errno. */
int ctl_write_all(int sock, const char *buf, size_t len, int timeout_ms);

#endif
