/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptp_cfg.h"

/* an integer as ptp4l's configuration writes them (0x1, 24, -1) */
static int number(const char *v, long lo, long hi, int *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 0);
	if (errno || end == v || *end || n < lo || n > hi)
		return -1;
	*out = (int)n;
	return 0;
}

int ptp_cfg_read(const char *path, struct ptp_cfg *c, char *err, size_t errlen)
{
	*c = (struct ptp_cfg){.transport_specific = -1, .domain = -1, .free_running = -1};
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[512];
	unsigned no = 0;
	int rc = 0;
	bool global = true; /* keys before any section are ptp4l's [global] */
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		no++;
		char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		char *hash = strchr(s, '#');
		if (hash)
			*hash = 0;
		size_t n = strlen(s);
		while (n && isspace((unsigned char)s[n - 1]))
			s[--n] = 0;
		if (!n)
			continue;
		if (s[0] == '[') {
			if (s[n - 1] != ']') {
				snprintf(err, errlen, "%s:%u: a section line without its ]", path,
					 no);
				rc = -1;
				break;
			}
			global = !strcmp(s, "[global]");
			c->interfaces += !global;
			continue;
		}
		if (!global)
			continue;
		char *v = s;
		while (*v && !isspace((unsigned char)*v))
			v++;
		if (*v)
			*v++ = 0;
		while (isspace((unsigned char)*v))
			v++;
		int bad = 0;
		if (!strcmp(s, "transportSpecific"))
			bad = number(v, 0, 15, &c->transport_specific);
		else if (!strcmp(s, "domainNumber"))
			bad = number(v, 0, 255, &c->domain);
		else if (!strcmp(s, "free_running"))
			bad = number(v, 0, 1, &c->free_running);
		else if (!strcmp(s, "uds_address"))
			bad = snprintf(c->uds_address, sizeof(c->uds_address), "%s", v) >=
			      (int)sizeof(c->uds_address);
		else if (!strcmp(s, "delay_mechanism"))
			bad = snprintf(c->delay_mechanism, sizeof(c->delay_mechanism), "%s", v) >=
			      (int)sizeof(c->delay_mechanism);
		if (bad) {
			snprintf(err, errlen, "%s:%u: %s '%s' is not a value ptp4l takes", path, no,
				 s, v);
			rc = -1;
		}
	}
	fclose(f);
	return rc;
}
