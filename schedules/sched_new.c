/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text of a new table from command-line values (tdpctl schedule new).
 * Every value lands in the table as one word: one that holds a space, a '#'
 * or a control character would be read as more (a newline makes lines of its
 * own), so it is refused here, before any table text exists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdp_sched.h"

static bool one_word(const char *opt, const char *v, char *err, size_t errlen)
{
	if (!*v) {
		snprintf(err, errlen, "--%s: an empty value", opt);
		return false;
	}
	for (const unsigned char *c = (const unsigned char *)v; *c; c++)
		if (*c <= ' ' || *c == 0x7f || *c == '#') {
			snprintf(err, errlen,
				 "--%s: '%.200s' is not one word (a space, a '#' or a control "
				 "character at "
				 "byte %zu)",
				 opt, v, (size_t)((const char *)c - v) + 1);
			return false;
		}
	return true;
}

/* NAME:RATE[:MAXFRAME[:OVERHEAD]]: two to four fields, none empty. */
static int port_fields(const char *v, const char **f, size_t *fl)
{
	unsigned nf = 0;
	for (const char *s = v;; s++) {
		const char *c = strchr(s, ':');
		size_t n = c ? (size_t)(c - s) : strlen(s);
		if (nf == 4 || n == 0)
			return -1;
		f[nf] = s;
		fl[nf++] = n;
		if (!c)
			return nf < 2 ? -1 : (int)nf;
		s = c;
	}
}

char *sched_new_text(const struct sched_new *nw, char *err, size_t errlen)
{
	const char *f[4];
	size_t fl[4];
	if (!nw->tf || !nw->k) {
		snprintf(err, errlen, "--tf and --k are required");
		return NULL;
	}
	if (!one_word("tf", nw->tf, err, errlen) || !one_word("k", nw->k, err, errlen) ||
	    (nw->guard && !one_word("guard", nw->guard, err, errlen)) ||
	    (nw->epoch && !one_word("epoch", nw->epoch, err, errlen)))
		return NULL;
	for (unsigned i = 0; i < nw->nports; i++)
		if (!one_word("port", nw->ports[i], err, errlen))
			return NULL;
		else if (port_fields(nw->ports[i], f, fl) < 0) {
			snprintf(err, errlen,
				 "--port %.200s: expected NAME:RATE[:MAXFRAME[:OVERHEAD]], each "
				 "field given",
				 nw->ports[i]);
			return NULL;
		}
	char *text = NULL;
	size_t len = 0;
	FILE *b = open_memstream(&text, &len);
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	fprintf(b,
		"tdp-schedule 1\n\n# time-frame length, frames per cycle (k x tf divides one "
		"second)\n"
		"tf %s\nk %s\n",
		nw->tf, nw->k);
	if (nw->guard)
		fprintf(b, "# nothing may start in the last part of a frame\nguard %s\n",
			nw->guard);
	if (nw->epoch)
		fprintf(b, "# cycle 0 starts this long after every TAI second\nepoch %s\n",
			nw->epoch);
	if (nw->nports)
		fprintf(b, "\n# output ports\n");
	for (unsigned i = 0; i < nw->nports; i++) {
		int nf = port_fields(nw->ports[i], f, fl);
		fprintf(b, "port %.*s rate %.*s", (int)fl[0], f[0], (int)fl[1], f[1]);
		if (nf > 2)
			fprintf(b, " max-frame %.*s", (int)fl[2], f[2]);
		if (nf > 3)
			fprintf(b, " overhead %.*s", (int)fl[3], f[3]);
		fprintf(b, "\n");
	}
	fprintf(b, "\n# flows: flow NAME port PORT size BYTES [alpha N] MATCH...\n"
		   "# rows:  frames SET: FLOW N, FLOW N\n");
	if (fclose(b)) {
		free(text);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return text;
}
