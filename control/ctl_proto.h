/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control protocol between tdpd and tdpctl. Two UNIX stream sockets, as
 * chronyd and ptp4l have: the control socket (mode 0660, root and group tdp)
 * takes every command; the monitor socket (mode 0666) only those that change
 * nothing. One request per connection:
 *
 *   client: {"version":1,"cmd":"NAME","args":{...}}\n   (at most 4096 bytes;
 *           "schedule-load" passes the table's open file descriptor along
 *           with it, SCM_RIGHTS, so the daemon needs no access to the path)
 *   daemon: {"version":1,"ok":true,"result":{...}}\n
 *        or {"version":1,"ok":false,"error":"...","code":"...", ...}\n
 *
 * then the daemon closes. A request that is malformed, too long, of another
 * version, unknown, a change on the monitor socket or from a peer without
 * permission gets an error reply and changes nothing. Error codes are stable
 * words scripts can test: malformed, too-long, version, unknown-command,
 * bad-args, read-only, permission, invalid-table, busy, too-late, internal.
 */
#ifndef TDP_CTL_PROTO_H
#define TDP_CTL_PROTO_H

#include <stdbool.h>
#include <stddef.h>

#define CTL_VERSION 1
#define CTL_MAX_REQUEST 4096
#define CTL_SOCKET_DEFAULT "/run/tdpd/tdpd.sock"
#define CTL_MONITOR_DEFAULT "/run/tdpd/tdpd-ro.sock"
#define CTL_GROUP_DEFAULT "tdp"
#define CTL_MAX_TABLE_BYTES (256u << 20)  /* a table passed to schedule-load */

struct ctl_cmd {
	const char *name;
	bool changes;             /* only on the control socket (log-level: with a level) */
	const char *help;
};

extern const struct ctl_cmd ctl_cmds[];
const struct ctl_cmd *ctl_cmd_find(const char *name);

/* Client: connects to path, sends req (a JSON line without the newline) and,
 * when pass_fd >= 0, that descriptor; reads the reply into a malloc'd,
 * NUL-terminated *reply. Fails after timeout_ms without a whole reply
 * (timeout_ms < 0: wait as long as it takes). 0 or -errno, with a message. */
int ctl_request(const char *path, const char *req, int pass_fd, int timeout_ms, char **reply, char *err,
		size_t errlen);

/* Server: a listening socket at path (a stale socket file is replaced, a live
 * one is an error), with the mode and, when gid != (gid_t)-1, the group. */
int ctl_listen(const char *path, unsigned mode, long gid, char *err, size_t errlen);
/* Reads one request line (without the newline) into buf (cap bytes), and a
 * descriptor passed with it into *fd (-1 if none). 0, -E2BIG when longer than
 * CTL_MAX_REQUEST, -ETIMEDOUT, -ECONNRESET when the peer went away early. */
int ctl_read_request(int sock, char *buf, size_t cap, int *fd, int timeout_ms);
/* Writes all of buf, giving up after timeout_ms. 0 or -errno. */
int ctl_write_all(int sock, const char *buf, size_t len, int timeout_ms);

#endif
