/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host.h"

static void full(const struct host *h, const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", h->root, path);
}

int host_read(const struct host *h, const char *path, char *out, size_t len)
{
	char p[4096];
	full(h, path, p, sizeof(p));
	FILE *f = fopen(p, "r");
	if (!f)
		return -errno;
	out[0] = 0;
	if (!fgets(out, (int)len, f))
		out[0] = 0;
	fclose(f);
	out[strcspn(out, "\n")] = 0;
	return 0;
}

int host_write(const struct host *h, const char *path, const char *val)
{
	char p[4096];
	full(h, path, p, sizeof(p));
	/* O_TRUNC means nothing to /proc and /sys files; a fake tree needs it */
	FILE *f = fopen(p, "w");
	if (!f)
		return -errno;
	int rc = fputs(val, f) < 0 ? -errno : 0;
	if (fclose(f) != 0 && !rc)
		rc = -errno;
	return rc;
}

bool host_exists(const struct host *h, const char *path)
{
	char p[4096];
	full(h, path, p, sizeof(p));
	return access(p, F_OK) == 0;
}

static void each(const struct host *h, const char *dir, bool numbers,
		 void (*fn)(const char *name, void *arg), void *arg)
{
	char p[4096];
	full(h, dir, p, sizeof(p));
	DIR *d = opendir(p);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));)
		if (numbers ? e->d_name[0] >= '0' && e->d_name[0] <= '9' : e->d_name[0] != '.')
			fn(e->d_name, arg);
	closedir(d);
}

void host_each_number(const struct host *h, const char *dir,
		      void (*fn)(const char *name, void *arg), void *arg)
{
	each(h, dir, true, fn, arg);
}

void host_each(const struct host *h, const char *dir, void (*fn)(const char *name, void *arg),
	       void *arg)
{
	each(h, dir, false, fn, arg);
}

int host_link_base(const struct host *h, const char *path, char *out, size_t len)
{
	char p[4096], t[4096];
	full(h, path, p, sizeof(p));
	ssize_t n = readlink(p, t, sizeof(t) - 1);
	if (n < 0)
		return -errno;
	t[n] = 0;
	const char *b = strrchr(t, '/');
	snprintf(out, len, "%s", b ? b + 1 : t);
	return 0;
}

void host_list_add(char *buf, size_t len, int *n, int max, const char *item)
{
	if (*n < max) {
		size_t at = strlen(buf);
		snprintf(buf + at, len - at, "%s%s", at ? "," : "", item);
	}
	(*n)++;
}

int host_cpulist_parse(const char *s, uint8_t *set)
{
	memset(set, 0, HOST_MAX_CPUS);
	while (*s && isspace((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	for (;;) {
		char *end;
		long a = strtol(s, &end, 10), b = a;
		if (end == s || a < 0 || a >= HOST_MAX_CPUS)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= HOST_MAX_CPUS)
				return -EINVAL;
			s = end;
		}
		for (long c = a; c <= b; c++)
			set[c] = 1;
		if (*s == ',') {
			s++;
			continue;
		}
		while (*s && isspace((unsigned char)*s))
			s++;
		return *s ? -EINVAL : 0;
	}
}

void host_cpulist_format(const uint8_t *set, char *out, size_t len)
{
	size_t at = 0;
	out[0] = 0;
	for (int c = 0; c < HOST_MAX_CPUS; c++) {
		if (!set[c])
			continue;
		int e = c;
		while (e + 1 < HOST_MAX_CPUS && set[e + 1])
			e++;
		int n = e > c ? snprintf(out + at, len - at, "%s%d-%d", at ? "," : "", c, e)
			      : snprintf(out + at, len - at, "%s%d", at ? "," : "", c);
		if (n < 0 || (size_t)n >= len - at)
			return;
		at += (size_t)n;
		c = e;
	}
}

int host_cpumask_parse(const char *s, uint8_t *set)
{
	memset(set, 0, HOST_MAX_CPUS);
	size_t n = strlen(s);
	int bit = 0;
	for (size_t i = n; i-- > 0;) {
		char ch = s[i];
		if (ch == ',' || ch == '\n')
			continue;
		if (!isxdigit((unsigned char)ch))
			return -EINVAL;
		int v = isdigit((unsigned char)ch) ? ch - '0'
						   : tolower((unsigned char)ch) - 'a' + 10;
		for (int b = 0; b < 4; b++, bit++)
			if (bit < HOST_MAX_CPUS && (v >> b) & 1)
				set[bit] = 1;
	}
	return 0;
}

void host_cpumask_format(const uint8_t *set, char *out, size_t len)
{
	int top = 0;
	for (int c = 0; c < HOST_MAX_CPUS; c++)
		if (set[c])
			top = c;
	size_t at = 0;
	for (int nib = top / 4; nib >= 0 && at + 1 < len; nib--) {
		int v = 0;
		for (int b = 0; b < 4; b++)
			v |= set[nib * 4 + b] << b;
		out[at++] = "0123456789abcdef"[v];
	}
	out[at] = 0;
}
