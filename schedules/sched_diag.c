/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

void sched_diags_init(struct sched_diags *d, const char *file)
{
	memset(d, 0, sizeof(*d));
	d->file = file;
}

void sched_diags_free(struct sched_diags *d)
{
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
}

void sched_diag_add(struct sched_diags *d, enum sched_sev sev, uint32_t line, uint32_t col,
		    const char *fmt, ...)
{
	va_list ap;

	if (sev == SCHED_ERROR)
		d->nerr++;
	else if (sev == SCHED_WARNING)
		d->nwarn++;
	if (d->n >= SCHED_DIAG_KEEP || sched_grow(&d->v, &d->cap, d->n + 1, sizeof(*d->v)))
		return;
	struct sched_diag *x = &d->v[d->n++];
	x->line = line;
	x->col = col;
	x->sev = sev;
	va_start(ap, fmt);
	vsnprintf(x->msg, sizeof(x->msg), fmt, ap);
	va_end(ap);
}

void sched_diags_print(const struct sched_diags *d, FILE *out)
{
	static const char *const sev[] = {"error", "warning", "note"};
	const char *file = d->file ? d->file : "<input>";

	for (size_t i = 0; i < d->n; i++) {
		const struct sched_diag *x = &d->v[i];
		if (x->line)
			fprintf(out, "%s:%u:%u: %s: %s\n", file, x->line, x->col ? x->col : 1,
				sev[x->sev], x->msg);
		else
			fprintf(out, "%s: %s: %s\n", file, sev[x->sev], x->msg);
	}
	size_t all = d->nerr + d->nwarn;
	if (all > d->n)
		fprintf(out, "%s: %zu more messages not shown\n", file, all - d->n);
}

int sched_grow(void *v, size_t *cap, size_t want, size_t es)
{
	void **p = v;
	if (want <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 8;
	while (nc < want) {
		if (nc > SIZE_MAX / 2 / es)
			return -ENOMEM;
		nc *= 2;
	}
	void *q = realloc(*p, nc * es);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = nc;
	return 0;
}

void sched_buf_put(struct sched_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (sched_grow(&b->s, &b->cap, b->len + n + 1, 1)) {
		b->oom = true;
		return;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void sched_buf_printf(struct sched_buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		sched_buf_put(b, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		b->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sched_buf_put(b, big, (size_t)n);
	free(big);
}
