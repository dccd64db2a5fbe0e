/* SPDX-License-Identifier: BSD-3-Clause */
/* `capture`: a port's packets into pcapng on the descriptor the client
 * passed (capture.h). The reply waits for the session's end, which comes
 * with its count, its time, the reader going away, or the client hanging up. */
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "capture.h"
#include "control.h"
#include "log.h"

static int64_t int_arg(json_t *args, const char *key, int64_t dflt, int64_t lo, int64_t hi,
		       bool *bad)
{
	json_t *v = json_object_get(args, key);
	if (!v)
		return dflt;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		*bad = true;
		return dflt;
	}
	return json_integer_value(v);
}

char *control_capture_start(struct control *c, json_t *args, int fd, int slot, bool *defer)
{
	if (!c->cap)
		return control_reply_err("internal", "packet capture is not set up");
	const char *name = json_string_value(json_object_get(args, "port"));
	const struct ctl_port_info *pi = NULL;
	for (uint32_t p = 0; name && p < c->nports; p++)
		if (!strcmp(c->ports[p].name, name))
			pi = &c->ports[p];
	if (!pi)
		return control_reply_err("bad-args",
					 "capture: no port '%.64s' (tdpctl ports lists them)",
					 name ? name : "");
	bool bad = false;
	int64_t count = int_arg(args, "count", 0, 0, (int64_t)CAPTURE_COUNT_MAX, &bad);
	int64_t secs = int_arg(args, "seconds", 0, 0, CAPTURE_SECONDS_MAX, &bad);
	int64_t snap = int_arg(args, "snaplen", CAPTURE_SNAP_MAX, 1, CAPTURE_SNAP_MAX, &bad);
	const char *dir = json_string_value(json_object_get(args, "direction"));
	if (json_object_get(args, "direction") &&
	    (!dir || (strcmp(dir, "in") && strcmp(dir, "out") && strcmp(dir, "both"))))
		bad = true;
	if (bad)
		return control_reply_err(
			"bad-args",
			"capture: count 0..%llu, seconds 0..%d, snaplen 1..%d, direction "
			"in, out or both",
			(unsigned long long)CAPTURE_COUNT_MAX, CAPTURE_SECONDS_MAX,
			CAPTURE_SNAP_MAX);
	if (!count && !secs)
		return control_reply_err("bad-args",
					 "capture: give a count or seconds (a session must end)");
	if (fd < 0)
		return control_reply_err(
			"bad-args", "capture: no descriptor to write the packets to was passed");
	if (c->cap_waiter >= 0)
		return control_reply_err("busy",
					 "capture: another capture is running; one at a time");
	int own = dup(fd);
	struct capture_req rq = {.name = pi->name,
				 .dpdk_port = pi->dpdk_port,
				 .nq = pi->nq ? pi->nq : 1,
				 .in = !dir || strcmp(dir, "out"),
				 .out = !dir || strcmp(dir, "in"),
				 .count = (uint64_t)count,
				 .duration_ns = secs * 1000000000,
				 .snaplen = (uint32_t)snap,
				 .fd = own};
	char err[200];
	int rc = own < 0 ? -1 : capture_start(c->cap, &rq, err, sizeof(err));
	if (rc) {
		if (own >= 0)
			close(own);
		return control_reply_err(rc == -16 /* EBUSY */ ? "busy" : "internal", "capture: %s",
					 own < 0 ? "cannot keep the descriptor" : err);
	}
	c->cap_waiter = slot;
	*defer = true;
	return NULL;
}

void control_capture_finish(struct control *c)
{
	struct capture_stats st;
	if (capture_result(c->cap, &st) != 0)
		return;
	control_answer(c, &c->cap_waiter,
		       control_reply_ok(json_pack(
			       "{ss sI sI sI sf ss}", "port", st.port, "captured",
			       (json_int_t)st.captured, "dropped", (json_int_t)st.dropped, "bytes",
			       (json_int_t)st.bytes, "seconds", st.seconds, "end", st.end)));
}
