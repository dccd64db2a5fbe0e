/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl doctor's findings, below its checks (tdpctl_doctor.c for the CPU
 * and the kernel, tdpctl_doctor_time.c for the time sources). */
#ifndef TDPCTL_DOCTOR_FINDING_H
#define TDPCTL_DOCTOR_FINDING_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "host.h"

enum verdict {
	PASS,
	WARN,
	FAIL
};

struct doc {
	struct host h;
	int cpu;
	int64_t tf_ns, guard_ns;
	double lat_s;
	const char *netdevs[16];
	int nnetdevs;
	bool json;
	json_t *out; /* the findings, with --json */
	int count[3];
};

/* One finding: pass, warn or fail, what was found and the fix. With --json,
 * the finding is the last element of d->out (for fields of its own). */
__attribute__((format(printf, 5, 6))) void finding(struct doc *d, const char *check, enum verdict v,
						   const char *fix, const char *fmt, ...);

#endif
