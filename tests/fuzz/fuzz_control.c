/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for a control request as the server meets it: bytes that
 * arrive in pieces on a socket (ctl_read_step: the line, its limits, NUL
 * bytes, a half-close), then the dispatch (control_handle: JSON, protocol
 * version, command, arguments' type, a change on the monitor socket). The
 * handlers that read the engine need a running tdpd (control_net); here a
 * request reaches a handler only when it needs none (log-level). Every reply
 * is one JSON object on one line.
 *
 * Input: byte 0 bit 0 = the control socket (else the monitor), bits 1.. the
 * size of the pieces the rest arrives in.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "control.h"
#include "ctl_proto.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct conf conf;
static struct control ctl = {.conf = &conf, .tm = {.waiter = -1}, .lfd = {-1, -1}};

/* Would the request be answered before any handler, or by one that needs no engine? */
static bool no_engine(const char *req, size_t len, bool privileged)
{
	json_t *r = json_loadb(req, len, JSON_REJECT_DUPLICATES, NULL);
	bool ok = true;
	if (r && json_is_object(r) && json_is_integer(json_object_get(r, "version")) &&
	    json_integer_value(json_object_get(r, "version")) == CTL_VERSION) {
		const char *cmd = json_string_value(json_object_get(r, "cmd"));
		const struct ctl_cmd *cc = cmd ? ctl_cmd_find(cmd) : NULL;
		json_t *args = json_object_get(r, "args");
		if (cc && (!args || json_is_object(args)))
			ok = !strcmp(cmd, "log-level") || (cc->changes && !privileged);
	}
	json_decref(r);
	return ok;
}

static void one_line_json(const char *out)
{
	size_t n = strlen(out);
	if (!n || out[n - 1] != '\n' || memchr(out, '\n', n - 1)) {
		fprintf(stderr, "a reply that is not one line: %s", out);
		abort();
	}
	json_t *j = json_loads(out, 0, NULL);
	if (!j || !json_is_object(j)) {
		fprintf(stderr, "a reply that is not a JSON object: %s", out);
		abort();
	}
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool once;
	if (!once) {
		snprintf(conf.control_socket, sizeof(conf.control_socket), "/run/tdpd/tdpd.sock");
		tdp_log_level = LOG_ERR; /* the quietest level tdpd takes */
		once = true;
	}
	if (size < 1 || size > 2 * CTL_MAX_REQUEST)
		return 0;
	bool privileged = data[0] & 1;
	size_t piece = (data[0] >> 1) + 1;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return 0;
	int sndbuf = 4 * CTL_MAX_REQUEST;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	static char buf[CTL_MAX_REQUEST + 2];
	size_t len = 0;
	int fd = -1, rc = 0;
	for (size_t at = 1; at < size && rc == 0; at += piece) {
		size_t n = size - at < piece ? size - at : piece;
		if (write(sv[0], data + at, n) != (ssize_t)n)
			break;
		rc = ctl_read_step(sv[1], buf, sizeof(buf), &len, &fd);
	}
	if (rc == 0) {
		shutdown(sv[0], SHUT_WR);
		rc = ctl_read_step(sv[1], buf, sizeof(buf), &len, &fd);
	}
	if (rc == 1) {
		size_t n = strlen(buf);
		if (n > CTL_MAX_REQUEST)
			abort();
		if (no_engine(buf, n, privileged)) {
			bool defer = false;
			char *out = control_handle(&ctl, buf, n, -1, -1, privileged, &defer);
			if (defer || !out)
				abort();
			one_line_json(out);
			free(out);
			tdp_log_level = LOG_ERR;
		}
	} else if (rc == 0 || (rc != -E2BIG && rc != -EBADMSG && rc != -ECONNRESET)) {
		fprintf(stderr, "ctl_read_step after a half-close: %d\n", rc);
		abort();
	}
	if (fd >= 0)
		close(fd);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
