/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target for what an operator types into tdpctl schedule: the values
 * of 'new' and the flow, count and frames of 'reserve' and 'release'. The
 * input is NUL-separated values; its first byte picks the verb.
 *   new:     no value adds a line of its own: the text has one tf line, one k
 *            line and one port line per --port.
 *   reserve: on a table with LF or CRLF lines, a reservation that checks adds
 *            exactly n packets of the flow to exactly those frames, keeps
 *            the line endings, and releasing it gives the table back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tdp_sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXV 12

static const char base_lf[] =
	"tdp-schedule 1\n# a comment\ntf 100us\nk 20\nport p rate 1Gbit/s  # uplink\n"
	"port q rate 100Mbit/s\nflow a port p size 200 dscp 1\nflow b port q size 100 dscp 2\n"
	"\nframes 0-19/2: a 3\nframes 5: b 1, a 1\n";

static unsigned lines_starting(const char *t, const char *word)
{
	unsigned n = 0;
	size_t wl = strlen(word);
	for (const char *l = t; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		n += strncmp(l, word, wl) == 0;
	return n;
}

static void fuzz_new(char **v, unsigned n)
{
	struct sched_new nw = {.tf = n > 0 ? v[0] : NULL,
			       .k = n > 1 ? v[1] : NULL,
			       .guard = n > 2 && *v[2] ? v[2] : NULL,
			       .epoch = n > 3 && *v[3] ? v[3] : NULL,
			       .ports = (const char *const *)(v + 4),
			       .nports = n > 4 ? n - 4 : 0};
	char err[640];
	char *t = sched_new_text(&nw, err, sizeof(err));
	if (!t)
		return;
	if (lines_starting(t, "tf ") != 1 || lines_starting(t, "k ") != 1 ||
	    lines_starting(t, "port ") != nw.nports ||
	    lines_starting(t, "guard ") != (nw.guard != NULL) ||
	    lines_starting(t, "epoch ") != (nw.epoch != NULL) || lines_starting(t, "flow ") ||
	    lines_starting(t, "frame")) {
		fprintf(stderr, "a value added lines:\n%s", t);
		abort();
	}
	struct sched_diags d;
	sched_diags_init(&d, "new");
	sched_free(sched_parse(t, strlen(t), &d));
	sched_diags_free(&d);
	free(t);
}

static void fuzz_reserve(char **v, unsigned n, bool crlf)
{
	if (n < 3)
		return;
	char *base = malloc(sizeof(base_lf) * 2), *o = base;
	for (const char *s = base_lf; *s; s++) {
		if (*s == '\n' && crlf)
			*o++ = '\r';
		*o++ = *s;
	}
	*o = 0;
	struct sched_diags d;
	sched_diags_init(&d, "base");
	struct sched_table *t = sched_parse(base, strlen(base), &d), *nt = NULL, *back = NULL;
	if (!t)
		abort();
	char *end, err[160], *text = NULL, *text2 = NULL;
	unsigned long cnt = strtoul(v[1], &end, 10);
	uint8_t member[20];
	if (*end || !*v[1] || cnt == 0 || cnt > SCHED_MAX_N ||
	    sched_frameset_parse(v[2], t->k, member, err, sizeof(err)))
		goto out;
	text = sched_edit_reserve(t, v[0], (uint32_t)cnt, member, &d);
	if (!text || !(nt = sched_parse(text, strlen(text), &d)))
		goto out;
	/* the line endings of the file, new lines included */
	for (const char *l = text; *l; l++)
		if (*l == '\n' && (l == text || l[-1] == '\r') != crlf) {
			fprintf(stderr, "line endings changed:\n%s", text);
			abort();
		}
	int f = sched_flow_find(t, v[0]);
	if (f < 0)
		abort();
	for (uint32_t x = 0; x < t->k; x++) {
		uint32_t na, nb, ca = 0, cb = 0;
		const struct sched_entry *ea = sched_row(t, x, &na), *eb = sched_row(nt, x, &nb);
		for (uint32_t i = 0; i < na; i++)
			ca += ea[i].flow == f ? ea[i].n : 0;
		for (uint32_t i = 0; i < nb; i++)
			cb += eb[i].flow == f ? eb[i].n : 0;
		if (cb != ca + (member[x] ? cnt : 0))
			abort();
	}
	text2 = sched_edit_release(nt, v[0], (uint32_t)cnt, member, &d);
	if (!text2 || !(back = sched_parse(text2, strlen(text2), &d)) || !sched_equal(t, back)) {
		fprintf(stderr, "release did not undo the reservation:\n%s\n---\n%s", text,
			text2 ? text2 : "(none)");
		abort();
	}
out:
	sched_diags_free(&d);
	sched_free(t);
	sched_free(nt);
	sched_free(back);
	free(text);
	free(text2);
	free(base);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	char *buf = malloc(size + 1), *v[MAXV];
	unsigned n = 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = 0;
	for (char *s = buf; n < MAXV && s <= buf + size - 1; s += strlen(s) + 1)
		v[n++] = s;
	switch (data[0] % 3) {
	case 0:
		fuzz_new(v, n);
		break;
	case 1:
		fuzz_reserve(v, n, false);
		break;
	default:
		fuzz_reserve(v, n, true);
		break;
	}
	free(buf);
	return 0;
}
