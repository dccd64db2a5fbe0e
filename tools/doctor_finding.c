/* SPDX-License-Identifier: BSD-3-Clause */
/* One finding of tdpctl doctor, in words or as JSON (doctor_finding.h). */
#include <stdarg.h>
#include <stdio.h>

#include <jansson.h>

#include "doctor_finding.h"

static const char *const vname[] = {"pass", "warn", "fail"};

void finding(struct doc *d, const char *check, enum verdict v, const char *fix, const char *fmt,
	     ...)
{
	char detail[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	d->count[v]++;
	if (d->json) {
		json_array_append_new(d->out,
				      json_pack("{ss ss ss ss}", "check", check, "status", vname[v],
						"detail", detail, "fix", fix ? fix : ""));
		return;
	}
	printf("%-4s  %-14s %s\n", vname[v], check, detail);
	if (fix && v != PASS)
		printf("      %-14s fix: %s\n", "", fix);
}
