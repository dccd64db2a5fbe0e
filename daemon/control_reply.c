/* SPDX-License-Identifier: BSD-3-Clause */
/* Reply lines of the control protocol (control_reply.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_reply.h"
#include "ctl_proto.h"
#include "tdp_sched.h"

char *control_dump_line(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!s)
		return NULL;
	size_t n = strlen(s);
	char *r = realloc(s, n + 2);
	if (!r) {
		free(s);
		return NULL;
	}
	r[n] = '\n';
	r[n + 1] = 0;
	return r;
}

char *control_reply_ok(json_t *result)
{
	/* a result that could not be built (a string jansson refuses, no
	 * memory) is no success: an ok without the fields the command promises
	 * would leave a client with nothing to act on */
	if (!result)
		return control_reply_err("internal", "the reply could not be built");
	return control_dump_line(
		json_pack("{si sb so}", "version", CTL_VERSION, "ok", 1, "result", result));
}

void control_text_copy(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src), o = 0;
	if (!cap)
		return;
	for (size_t i = 0; i < n;) {
		size_t len = sched_utf8_len((const unsigned char *)src + i, n - i);
		if (len == 0 || (len == 1 && ((unsigned char)src[i] < 0x20 || src[i] == 0x7f))) {
			if (o + 1 >= cap)
				break;
			dst[o++] = '?';
			i++;
			continue;
		}
		if (o + len >= cap)
			break; /* a character that does not fit whole is left out */
		memcpy(dst + o, src + i, len);
		o += len;
		i += len;
	}
	dst[o] = 0;
}

/* An error message is built from what a client sent (a parse error quotes
 * its bytes, a name is cut at a width): bytes that are not UTF-8 become '?',
 * or the reply could not be encoded at all and the client would get none. */
static void utf8_clean(char *msg)
{
	size_t n = strlen(msg);
	for (size_t i = 0; i < n;) {
		size_t len = sched_utf8_len((const unsigned char *)msg + i, n - i);
		if (len == 0) {
			msg[i] = '?';
			len = 1;
		}
		i += len;
	}
}

static json_t *err_obj(const char *code, const char *fmt, va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	utf8_clean(msg);
	return json_pack("{si sb ss ss}", "version", CTL_VERSION, "ok", 0, "code", code, "error",
			 msg);
}

char *control_reply_err(const char *code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	json_t *o = err_obj(code, fmt, ap);
	va_end(ap);
	return control_dump_line(o);
}
