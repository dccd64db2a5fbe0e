/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reply lines of the control protocol (ctl_proto.h), below every file that
 * answers: a result, an error, any object as one JSON line, and text a client
 * sent made fit for a log or a reply. No state: the table manager (tables.h),
 * the loader and the commands all build their replies here.
 */
#ifndef TDP_CONTROL_REPLY_H
#define TDP_CONTROL_REPLY_H

#include <stddef.h>

#include <jansson.h>

/* Reply lines, malloc'd, ending in '\n'; NULL only when out of memory. A
 * result that could not be built (NULL) is an "internal" error, never an ok. */
char *control_reply_ok(json_t *result);
char *control_reply_err(const char *code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* o (its reference taken) as one line */
char *control_dump_line(json_t *o);
/* src into dst (cap bytes with the NUL) as one line of UTF-8 for logs and
 * replies: cut before a character that does not fit whole, a byte that is
 * not UTF-8 or a control character written as '?'. */
void control_text_copy(char *dst, size_t cap, const char *src);

#endif
