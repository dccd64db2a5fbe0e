/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
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

int ptp_cfg_agree(const char *path, struct ptp_ask *p, char *err, size_t errlen)
{
	struct ptp_cfg c;
	if (ptp_cfg_read(path, &c, err, errlen) != 0)
		return -1;
	/* what the file sets; what it leaves to ptp4l's defaults or command
	 * line (-i, --uds_address=...) tdpd.conf says */
	if (c.transport_specific >= 0) {
		if (p->ts_fixed >= 0 && p->ts_fixed != c.transport_specific)
			log_warn("ptp: ptp-transport-specific %d, but ptp4l's %s says "
				 "transportSpecific 0x%x: asking "
				 "with 0x%x",
				 p->ts_fixed, path, c.transport_specific, c.transport_specific);
		p->ts_fixed = c.transport_specific;
	}
	if (c.domain >= 0 && c.domain != p->domain) {
		log_warn("ptp: ptp-domain %u, but ptp4l's %s says domainNumber %d: asking in "
			 "domain %d",
			 p->domain, path, c.domain, c.domain);
		p->domain = (uint8_t)c.domain;
	}
	if (*c.uds_address && strcmp(c.uds_address, p->path) != 0) {
		log_warn("ptp: ptp-socket %s, but ptp4l's %s says uds_address %s: asking there",
			 p->path, path, c.uds_address);
		snprintf(p->path, sizeof(p->path), "%s", c.uds_address);
	}
	if (p->offset_mode && c.free_running != 1)
		log_notice("ptp: ptp-mode offset, but ptp4l's %s does not set free_running 1: "
			   "unless its command line "
			   "does, ptp4l steers its clock and the offset tdpd applies is the one "
			   "ptp4l is removing",
			   path);
	if (!p->offset_mode && c.free_running == 1)
		log_warn("ptp: ptp-mode disciplined, but ptp4l's %s sets free_running 1: nothing "
			 "steers the clock; "
			 "use ptp-mode offset",
			 path);
	log_info("ptp: from ptp4l's %s: transportSpecific 0x%x, domain %u, socket %s, delay "
		 "mechanism %s, %d "
		 "interface%s",
		 path, p->ts_fixed >= 0 ? (unsigned)p->ts_fixed : 0u, p->domain, p->path,
		 *c.delay_mechanism ? c.delay_mechanism : "E2E", c.interfaces,
		 c.interfaces == 1 ? "" : "s");
	return 0;
}
