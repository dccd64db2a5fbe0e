/* SPDX-License-Identifier: BSD-3-Clause */
/* Numbers with explicit units, names, prefixes, match overlap, frame sets. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "sched_priv.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int sched_num_uint(const char *s, size_t n, uint64_t max, uint64_t *out, const char **why)
{
	uint64_t v = 0;

	if (n == 0 || !is_digit(s[0])) {
		*why = "expected a whole number";
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i])) {
			*why = "expected a whole number";
			return -1;
		}
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10) {
			*why = "number too large";
			return -1;
		}
		v = v * 10 + d;
	}
	if (v > max) {
		*why = "number out of range";
		return -1;
	}
	*out = v;
	return 0;
}

/*
 * A decimal number "123" or "1.25" followed by a unit. The value times mult
 * must be a whole number that fits 64 bits. *unit points past the digits.
 */
static int decimal(const char *s, size_t n, size_t *used, sched_u128 *mant, unsigned *fdig,
		   const char **why)
{
	size_t i = 0;
	sched_u128 m = 0;
	unsigned fd = 0, digits = 0;
	bool dot = false;

	for (; i < n; i++) {
		if (is_digit(s[i])) {
			if (++digits > 30) {
				*why = "number too large";
				return -1;
			}
			m = m * 10 + (unsigned)(s[i] - '0');
			if (dot)
				fd++;
		} else if (s[i] == '.' && !dot && digits) {
			dot = true;
		} else {
			break;
		}
	}
	if (!digits || (dot && fd == 0)) {
		*why = "expected a number";
		return -1;
	}
	*used = i;
	*mant = m;
	*fdig = fd;
	return 0;
}

static int scaled(sched_u128 mant, unsigned fd, uint64_t mult, uint64_t *out, const char *what,
		  const char **why)
{
	sched_u128 p = 1;
	for (unsigned i = 0; i < fd; i++)
		p *= 10;
	sched_u128 v = mant * mult;
	if (mant && v / mant != mult) {
		*why = "number too large";
		return -1;
	}
	if (v % p) {
		*why = what;
		return -1;
	}
	v /= p;
	if (v > UINT64_MAX) {
		*why = "number too large";
		return -1;
	}
	*out = (uint64_t)v;
	return 0;
}

static bool unit_is(const char *u, size_t n, const char *w)
{
	return strlen(w) == n && memcmp(u, w, n) == 0;
}

int sched_num_time(const char *s, size_t n, uint64_t *ns, const char **why)
{
	static const struct {
		const char *u;
		uint64_t mult;
	} units[] = {
		{"ns", 1},	     {"us", 1000},    {"\xc2\xb5s", 1000},
		{"\xce\xbcs", 1000}, {"ms", 1000000}, {"s", 1000000000},
	};
	sched_u128 m;
	unsigned fd;
	size_t used;

	if (decimal(s, n, &used, &m, &fd, why))
		return -1;
	if (used == n) {
		*why = "time needs a unit: ns, us, ms or s";
		return -1;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (unit_is(s + used, n - used, units[i].u))
			return scaled(m, fd, units[i].mult, ns, "not a whole number of nanoseconds",
				      why);
	*why = "unknown time unit (use ns, us, ms or s)";
	return -1;
}

int sched_num_rate(const char *s, size_t n, uint64_t *bps, const char **why)
{
	sched_u128 m;
	unsigned fd;
	size_t used;

	if (decimal(s, n, &used, &m, &fd, why))
		return -1;
	const char *u = s + used;
	size_t un = n - used;
	if (un == 0) {
		*why = "rate needs a unit: bit/s, kbit/s, Mbit/s or Gbit/s";
		return -1;
	}
	uint64_t mult = 1;
	switch (u[0]) {
	case 'k':
	case 'K':
		mult = 1000ull;
		u++;
		un--;
		break;
	case 'M':
		mult = 1000000ull;
		u++;
		un--;
		break;
	case 'G':
	case 'g':
		mult = 1000000000ull;
		u++;
		un--;
		break;
	case 'T':
	case 't':
		mult = 1000000000000ull;
		u++;
		un--;
		break;
	case 'm':
		*why = "'m' is milli: write M for mega (Mbit/s)";
		return -1;
	default:
		break;
	}
	if (!(unit_is(u, un, "bit/s") || unit_is(u, un, "bps"))) {
		*why = "unknown rate unit (use bit/s, kbit/s, Mbit/s, Gbit/s, Tbit/s)";
		return -1;
	}
	if (scaled(m, fd, mult, bps, "not a whole number of bit/s", why))
		return -1;
	if (*bps == 0) {
		*why = "rate must be positive";
		return -1;
	}
	return 0;
}

int sched_num_bytes(const char *s, size_t n, uint64_t max, uint64_t *out, const char **why)
{
	if (n > 1 && s[n - 1] == 'B')
		n--;
	return sched_num_uint(s, n, max, out, why);
}

int sched_num_prefix(const char *s, size_t n, struct sched_match *m, const char **why)
{
	char buf[64];
	const char *slash = memchr(s, '/', n);

	if (!slash) {
		*why = "expected an address prefix such as 10.0.0.0/24 or 2001:db8::/32";
		return -1;
	}
	size_t an = (size_t)(slash - s);
	if (an == 0 || an >= sizeof(buf)) {
		*why = "bad address";
		return -1;
	}
	memcpy(buf, s, an);
	buf[an] = 0;
	uint8_t a[16] = {0};
	unsigned bits;
	if (inet_pton(AF_INET, buf, a) == 1) {
		m->dst_family = 4;
		bits = 32;
	} else if (inet_pton(AF_INET6, buf, a) == 1) {
		m->dst_family = 6;
		bits = 128;
	} else {
		*why = "bad address";
		return -1;
	}
	uint64_t len;
	if (sched_num_uint(slash + 1, n - an - 1, bits, &len, why)) {
		*why = bits == 32 ? "prefix length must be 0..32" : "prefix length must be 0..128";
		return -1;
	}
	for (unsigned i = (unsigned)len; i < bits; i++)
		if (a[i / 8] & (0x80u >> (i % 8))) {
			*why = "host bits set after the prefix length";
			return -1;
		}
	memcpy(m->dst, a, sizeof(a));
	m->dst_len = (uint8_t)len;
	return 0;
}

uint64_t sched_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	return a;
}

bool sched_name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= SCHED_NAME_MAX)
		return false;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
		      c == '-' || c == '.'))
			return false;
	}
	return true;
}

bool sched_tok_is(const struct sched_tok *t, const char *word)
{
	return strlen(word) == t->len && memcmp(t->s, word, t->len) == 0;
}

static bool prefix_overlap(const struct sched_match *a, const struct sched_match *b)
{
	if (a->dst_family != b->dst_family)
		return false;
	unsigned len = a->dst_len < b->dst_len ? a->dst_len : b->dst_len;
	for (unsigned i = 0; i < len; i++) {
		unsigned bit = 0x80u >> (i % 8);
		if ((a->dst[i / 8] & bit) != (b->dst[i / 8] & bit))
			return false;
	}
	return true;
}

#define MK(m) offsetof(struct sched_match, m), sizeof(((struct sched_match *)0)->m)
const struct sched_match_key sched_match_keys[] = {
	{SCHED_M_DSCP, "dscp", "dscp", 63, MK(dscp), 51},
	{SCHED_M_VLAN, "vlan", "vlan", 4095, MK(vlan), 39},
	{SCHED_M_PCP, "pcp", "pcp", 7, MK(pcp), 36},
	{SCHED_M_DST, "dst", "dst", 0, 0, 0, 0},
	{SCHED_M_UDP_DPORT, "udp-dport", "udp_dport", 65535, MK(udp_dport), 20},
	{SCHED_M_MPLS, "mpls", "mpls", 1048575, MK(mpls), 0},
	{0, NULL, NULL, 0, 0, 0, 0},
};
#undef MK

uint32_t sched_match_get(const struct sched_match *m, const struct sched_match_key *k)
{
	const uint8_t *at = (const uint8_t *)m + k->off;
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	switch (k->size) {
	case 1:
		memcpy(&v8, at, 1);
		return v8;
	case 2:
		memcpy(&v16, at, 2);
		return v16;
	default:
		memcpy(&v32, at, 4);
		return v32;
	}
}

void sched_match_set(struct sched_match *m, const struct sched_match_key *k, uint32_t v)
{
	uint8_t *at = (uint8_t *)m + k->off;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	if (k->size == 1)
		memcpy(at, &v8, 1);
	else if (k->size == 2)
		memcpy(at, &v16, 2);
	else
		memcpy(at, &v, 4);
	m->fields |= k->field;
}

const char *sched_match_words(void)
{
	static char buf[160];
	if (!buf[0]) {
		size_t n = 0, at = 0;
		while (sched_match_keys[n].word)
			n++;
		for (size_t i = 0; i < n && at < sizeof(buf); i++)
			at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%s",
					       i == 0	    ? ""
					       : i + 1 == n ? " or "
							    : ", ",
					       sched_match_keys[i].word);
	}
	return buf;
}

bool sched_match_overlap(const struct sched_match *a, const struct sched_match *b)
{
	uint32_t both = a->fields & b->fields;
	for (const struct sched_match_key *k = sched_match_keys; k->word; k++)
		if (k->max && (both & k->field) && sched_match_get(a, k) != sched_match_get(b, k))
			return false;
	if ((both & SCHED_M_DST) && !prefix_overlap(a, b))
		return false;
	return true;
}

uint32_t sched_span_count(const struct sched_span *s)
{
	return (s->last - s->first) / s->stride + 1;
}

uint32_t sched_span_last_hit(const struct sched_span *s)
{
	return s->first + (sched_span_count(s) - 1) * s->stride;
}

/* Greedy: the longest arithmetic run from each point; runs of fewer than three
 * become single frames, unless they are adjacent (a range). */
size_t sched_spans_from_frames(const uint32_t *f, size_t n, struct sched_span *out)
{
	size_t i = 0, ns = 0;

	while (i < n) {
		struct sched_span sp = {.first = f[i], .last = f[i], .stride = 1};
		if (i + 1 < n) {
			uint32_t st = f[i + 1] - f[i];
			size_t j = i + 1;
			while (j + 1 < n && f[j + 1] - f[j] == st)
				j++;
			if (j - i + 1 >= 3 || st == 1) {
				sp.last = f[j];
				sp.stride = st;
				i = j + 1;
				out[ns++] = sp;
				continue;
			}
		}
		out[ns++] = sp;
		i++;
	}
	return ns;
}

void sched_buf_spans(struct sched_buf *b, const struct sched_span *sp, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t last = sched_span_last_hit(&sp[i]);
		const char *sep = i ? "," : "";
		if (last == sp[i].first)
			sched_buf_printf(b, "%s%u", sep, sp[i].first);
		else if (sp[i].stride == 1)
			sched_buf_printf(b, "%s%u-%u", sep, sp[i].first, last);
		else
			sched_buf_printf(b, "%s%u-%u/%u", sep, sp[i].first, last, sp[i].stride);
	}
}

void sched_buf_frames(struct sched_buf *b, const uint32_t *f, size_t n)
{
	struct sched_span *sp = malloc(sizeof(*sp) * (n + 1));
	if (!sp) {
		b->oom = true;
		return;
	}
	sched_buf_spans(b, sp, sched_spans_from_frames(f, n, sp));
	free(sp);
}

size_t sched_frames_format(const uint32_t *frames, size_t n, char *out, size_t outlen)
{
	struct sched_buf b = {0};
	sched_buf_frames(&b, frames, n);
	size_t need = b.len;
	if (outlen) {
		size_t c = need < outlen - 1 ? need : outlen - 1;
		if (b.s)
			memcpy(out, b.s, c);
		out[c] = 0;
	}
	free(b.s);
	return need;
}

void sched_fmt_time(uint64_t ns, char *out, size_t len)
{
	if (ns && ns % 1000000000ull == 0)
		snprintf(out, len, "%llus", (unsigned long long)(ns / 1000000000ull));
	else if (ns && ns % 1000000ull == 0)
		snprintf(out, len, "%llums", (unsigned long long)(ns / 1000000ull));
	else if (ns && ns % 1000ull == 0)
		snprintf(out, len, "%lluus", (unsigned long long)(ns / 1000ull));
	else
		snprintf(out, len, "%lluns", (unsigned long long)ns);
}

void sched_fmt_rate(uint64_t bps, char *out, size_t len)
{
	static const struct {
		uint64_t m;
		const char *u;
	} u[] = {{1000000000000ull, "Tbit/s"},
		 {1000000000ull, "Gbit/s"},
		 {1000000ull, "Mbit/s"},
		 {1000ull, "kbit/s"}};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (bps % u[i].m == 0) {
			snprintf(out, len, "%llu%s", (unsigned long long)(bps / u[i].m), u[i].u);
			return;
		}
	snprintf(out, len, "%llubit/s", (unsigned long long)bps);
}

void sched_fmt_match(const struct sched_match *m, char *out, size_t len)
{
	struct sched_buf b = {0};

	for (const struct sched_match_key *k = sched_match_keys; k->word; k++) {
		if (!(m->fields & k->field))
			continue;
		if (k->max) {
			sched_buf_printf(&b, " %s %u", k->word, sched_match_get(m, k));
			continue;
		}
		char a[64];
		inet_ntop(m->dst_family == 4 ? AF_INET : AF_INET6, m->dst, a, sizeof(a));
		sched_buf_printf(&b, " %s %s/%u", k->word, a, m->dst_len);
	}
	snprintf(out, len, "%s", b.s ? b.s + 1 : "");
	free(b.s);
}

int sched_frameset_parse(const char *s, uint32_t k, uint8_t *member, char *err, size_t errlen)
{
	const char *why;
	size_t n = strlen(s);

	if (n == 0) {
		snprintf(err, errlen, "empty frame set");
		return -1;
	}
	memset(member, 0, k);
	for (size_t i = 0; i <= n;) {
		size_t j = i;
		while (j < n && s[j] != ',')
			j++;
		const char *it = s + i;
		size_t len = j - i;
		const char *slash = memchr(it, '/', len);
		size_t body = slash ? (size_t)(slash - it) : len;
		uint64_t first, last, stride = 1;
		if (slash &&
		    (sched_num_uint(slash + 1, len - body - 1, UINT32_MAX, &stride, &why) ||
		     !stride)) {
			snprintf(err, errlen, "bad stride in '%.*s'", (int)len, it);
			return -1;
		}
		if ((body == 1 && it[0] == '*') || (body == 3 && !memcmp(it, "all", 3))) {
			first = 0;
			last = k - 1;
		} else {
			const char *dash = memchr(it, '-', body);
			size_t fl = dash ? (size_t)(dash - it) : body;
			if (sched_num_uint(it, fl, UINT32_MAX, &first, &why) ||
			    (dash &&
			     sched_num_uint(dash + 1, body - fl - 1, UINT32_MAX, &last, &why))) {
				snprintf(err, errlen,
					 "bad frame set item '%.*s' (use N, N-M, N-M/S or *)",
					 (int)len, it);
				return -1;
			}
			if (!dash)
				last = first;
			if (slash && !dash) {
				snprintf(err, errlen, "'%.*s': a stride needs a range", (int)len,
					 it);
				return -1;
			}
		}
		if (last < first) {
			snprintf(err, errlen, "'%.*s': range runs backwards", (int)len, it);
			return -1;
		}
		if (last >= k) {
			snprintf(err, errlen, "'%.*s': frames are 0..%u", (int)len, it, k - 1);
			return -1;
		}
		for (uint64_t f = first; f <= last; f += stride)
			member[f] = 1;
		i = j + 1;
	}
	return 0;
}
