/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "conf_priv.h"
#include "hpmode.h"
#include "tb_phc.h"
#include "tb_sim.h"
#include "tdp_sched.h"

static size_t opt_index(const struct conf_opt *o)
{
	return (size_t)(o - conf_opts);
}

const struct conf_opt *conf_find(const char *name, unsigned sect)
{
	for (const struct conf_opt *o = conf_opts; o->name; o++)
		if ((o->sect & sect) && strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

void conf_error_at(FILE *err, const char *file, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	if (line)
		fprintf(err, "%s:%u: error: ", file, line);
	else
		fprintf(err, "%s: error: ", file);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
}

/* Parses value for option o into the object at base. 0 or -1 with why. */
/* One value of each type: into *iv, or -1 and *why (whybuf holds it when
 * it is built). */
#define PARSE_ARGS                                                                            \
	const struct conf_opt *o, const char *v, int64_t *iv, const char **why, char *whybuf, \
		size_t wlen

static int parse_int(PARSE_ARGS)
{
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (errno || end == v || *end) {
		*why = "not an integer";
		return -1;
	}
	if (x < o->min || x > o->max) {
		snprintf(whybuf, wlen, "%lld is out of range %" PRId64 "..%" PRId64, x, o->min,
			 o->max);
		*why = whybuf;
		return -1;
	}
	*iv = x;
	return 0;
}

static int parse_dur(PARSE_ARGS)
{
	uint64_t ns;
	/* a sign only where the option takes one (min below 0) */
	bool neg = o->min < 0 && v[0] == '-';
	const char *t = neg ? v + 1 : v;
	if (strcmp(t, "0") == 0)
		ns = 0;
	else if (sched_num_time(t, strlen(t), &ns, why) != 0)
		return -1;
	int64_t x = ns > (uint64_t)INT64_MAX ? INT64_MAX : neg ? -(int64_t)ns : (int64_t)ns;
	if (x < o->min || x > o->max) {
		if (o->min < 0)
			snprintf(whybuf, wlen, "out of range (%" PRId64 " ns to %" PRId64 " ns)",
				 o->min, o->max);
		else
			snprintf(whybuf, wlen, "out of range (at most %" PRId64 " ns)", o->max);
		*why = whybuf;
		return -1;
	}
	*iv = x;
	return 0;
}

static int parse_rate(PARSE_ARGS)
{
	uint64_t bps;
	if (strcmp(v, "0") == 0)
		bps = 0;
	else if (sched_num_rate(v, strlen(v), &bps, why) != 0)
		return -1;
	if (bps > (uint64_t)INT64_MAX) {
		*why = "beyond the largest rate tdpd takes (9223372036854775807bit/s)";
		return -1;
	}
	*iv = (int64_t)bps;
	return 0;
}

static int parse_bool(PARSE_ARGS)
{
	static const char *const yes[] = {"yes", "on", "1", "true"}, *const no[] = {"no", "off",
										    "0", "false"};
	for (int i = 0; i < 4; i++)
		if (!strcmp(v, yes[i]) || !strcmp(v, no[i])) {
			*iv = !strcmp(v, yes[i]);
			return 0;
		}
	*why = "expected yes or no";
	return -1;
}

static int parse_enum(PARSE_ARGS)
{
	for (int i = 0; o->choices[i]; i++)
		if (strcmp(o->choices[i], v) == 0) {
			*iv = i;
			return 0;
		}
	size_t n = (size_t)snprintf(whybuf, wlen, "expected one of");
	for (int i = 0; o->choices[i] && n < wlen; i++)
		n += (size_t)snprintf(whybuf + n, wlen - n, "%s %s", i ? "," : "", o->choices[i]);
	*why = whybuf;
	return -1;
}

/* a fraction, decimal or with an exponent, kept in 1e-9 */
static int parse_frac(PARSE_ARGS)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || end == v || *end || !(x >= 0) || x > 1) {
		*why = "not a fraction from 0 to 1 (e.g. 1e-4 or 0.0001)";
		return -1;
	}
	/* the range on the value as given: one below it is refused, not rounded into it */
	int64_t ppb = (int64_t)(x * 1e9 + 0.5);
	if (x * 1e9 < (double)o->min || x * 1e9 > (double)o->max || ppb < o->min || ppb > o->max) {
		snprintf(whybuf, wlen, "%s is out of range %.9g..%.9g", v, (double)o->min / 1e9,
			 (double)o->max / 1e9);
		*why = whybuf;
		return -1;
	}
	*iv = ppb;
	return 0;
}

static int parse_value(const struct conf_opt *o, const char *v, void *base, const char **why,
		       char *whybuf, size_t wlen)
{
	char *at = (char *)base + o->off;
	/* the parser of each numeric type; text is copied, a list is read elsewhere */
	typedef int parse_fn(PARSE_ARGS);
	static parse_fn *const parsers[] = {
		[CT_INT] = parse_int,	[CT_DUR] = parse_dur,	[CT_RATE] = parse_rate,
		[CT_BOOL] = parse_bool, [CT_ENUM] = parse_enum, [CT_FRAC] = parse_frac,
	};
	if (o->type == CT_STR) {
		if (strlen(v) >= CONF_STR) {
			*why = "value too long";
			return -1;
		}
		strcpy(at, v);
		return 0;
	}
	parse_fn *fn =
		(size_t)o->type < sizeof(parsers) / sizeof(parsers[0]) ? parsers[o->type] : NULL;
	if (!fn) {
		*why = "internal: not a value";
		return -1;
	}
	return fn(o, v, (int64_t *)(void *)at, why, whybuf, wlen);
}
#undef PARSE_ARGS

_Static_assert(CONF_STR == TB_STR, "a time source's text setting has the room tdpd.conf gives it");

/* before main: every use of the table (--help, the man pages) sees them */
__attribute__((constructor)) static void timebase_choices(void)
{
	size_t n = 0, at = 0;
	at += (size_t)snprintf(conf_timebase_doc, sizeof(conf_timebase_doc),
			       "where the common time reference comes from.");
	for (size_t i = 0; timebase_table[i] &&
			   n + 1 < sizeof(conf_timebase_names) / sizeof(conf_timebase_names[0]);
	     i++) {
		if (timebase_table[i] == &tb_sim_ops)
			continue;
		conf_timebase_names[n] = timebase_table[i]->name;
		if (at < sizeof(conf_timebase_doc))
			at += (size_t)snprintf(
				conf_timebase_doc + at, sizeof(conf_timebase_doc) - at, "%s %s: %s",
				n ? ";" : "", timebase_table[i]->name, timebase_table[i]->doc);
		n++;
	}
}

void *conf_opt_base(struct conf *c, const struct conf_opt *o)
{
	return o->source ? (void *)c->tb_own[o->source - 1] : (void *)c;
}

const void *conf_tb_own(const struct conf *c, const struct timebase_ops *ops)
{
	for (size_t s = 0; s < CONF_MAX_SOURCES && timebase_table[s]; s++)
		if (timebase_table[s] == ops)
			return ops->own_size ? c->tb_own[s] : NULL;
	return NULL;
}

void conf_init(struct conf *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t s = 0; timebase_table[s]; s++)
		if (timebase_table[s]->own_size > CONF_TB_OWN_MAX)
			abort(); /* a source's settings larger than their room: raise CONF_TB_OWN_MAX */
	for (const struct conf_opt *o = conf_opts; o->name; o++) {
		if (o->sect != CS_GLOBAL || !o->def)
			continue;
		const char *why;
		char wb[8];
		parse_value(o, o->def, conf_opt_base(c, o), &why, wb, sizeof(wb));
	}
}

static void list_free(struct conf_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].val);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void conf_free(struct conf *c)
{
	for (uint32_t p = 0; p < c->nports; p++) {
		list_free(&c->ports[p].address);
		list_free(&c->ports[p].neighbour);
		list_free(&c->ports[p].route);
	}
	for (uint32_t i = 0; i < c->nfiles; i++)
		free(c->files[i]);
	c->nports = 0;
	c->nfiles = 0;
}

struct conf_port *conf_port_find(struct conf *c, const char *name)
{
	for (uint32_t p = 0; p < c->nports; p++)
		if (strcmp(c->ports[p].name, name) == 0)
			return &c->ports[p];
	return NULL;
}

struct conf_port *conf_port_add(struct conf *c, const char *name, const char *file, uint32_t line)
{
	if (c->nports == CONF_MAX_PORTS)
		return NULL;
	struct conf_port *p = &c->ports[c->nports++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->file = file;
	p->line = line;
	for (const struct conf_opt *o = conf_opts; o->name; o++) {
		if (o->sect != CS_PORT || !o->def)
			continue;
		const char *why;
		char wb[8];
		parse_value(o, o->def, p, &why, wb, sizeof(wb));
	}
	return p;
}

const char *conf_keep_name(struct conf *c, const char *file)
{
	for (uint32_t i = 0; i < c->nfiles; i++)
		if (strcmp(c->files[i], file) == 0)
			return c->files[i];
	if (c->nfiles == 8)
		return "config";
	c->files[c->nfiles] = strdup(file);
	return c->files[c->nfiles] ? c->files[c->nfiles++] : "config";
}

int conf_set(struct conf *c, const char *port, const char *name, const char *value,
	     const char *file, uint32_t line, FILE *err)
{
	file = conf_keep_name(c, file);
	unsigned sect = port ? CS_PORT : CS_GLOBAL;
	const struct conf_opt *o = conf_find(name, sect);
	if (!o) {
		const struct conf_opt *other = conf_find(name, port ? CS_GLOBAL : CS_PORT);
		if (other)
			conf_error_at(err, file, line, "'%s' belongs in %s", name,
				      port ? "[global]" : "a [port NAME] section");
		else
			conf_error_at(err, file, line, "unknown option '%s'", name);
		return -1;
	}
	void *base = c;
	uint32_t *set_line;
	const char **set_file;
	struct conf_port *p = NULL;
	if (port) {
		p = conf_port_find(c, port);
		if (!p) {
			conf_error_at(err, file, line, "no [port %s] section", port);
			return -1;
		}
		base = p;
		set_line = &p->set_line[opt_index(o)];
		set_file = &p->set_file[opt_index(o)];
	} else {
		base = conf_opt_base(c, o);
		set_line = &c->set_line[opt_index(o)];
		set_file = &c->set_file[opt_index(o)];
	}
	if (o->type == CT_LIST) {
		struct conf_list *l = (struct conf_list *)(void *)((char *)base + o->off);
		struct conf_item *nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
		if (!nv) {
			conf_error_at(err, file, line, "out of memory");
			return -1;
		}
		l->v = nv;
		l->v[l->n] = (struct conf_item){strdup(value), file, line};
		l->n++;
		return 0;
	}
	/* the command line overrides the file; within one file a value is given once */
	if (*set_line && *set_file == file && strcmp(file, "command line") != 0) {
		conf_error_at(err, file, line, "'%s' given twice (first at line %u)", name,
			      *set_line);
		return -1;
	}
	const char *why = NULL;
	char wb[160];
	if (parse_value(o, value, base, &why, wb, sizeof(wb)) != 0) {
		conf_error_at(err, file, line, "%s '%s': %s", name, value, why);
		return -1;
	}
	*set_line = line ? line : 1;
	*set_file = file;
	return 0;
}

int conf_rx_cpus(const char *s, int *cpus, char *why, size_t whylen)
{
	int n = 0;
	const char *p = s;
	while (*p) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 0 || v > 1023 || (*end && *end != ',')) {
			snprintf(why, whylen,
				 "'%s': expected CPU numbers 0 to 1023 separated by commas", s);
			return -1;
		}
		if (n == CONF_MAX_RX_CPUS) {
			snprintf(why, whylen,
				 "'%s': at most %d RX cores beside the housekeeping thread's", s,
				 CONF_MAX_RX_CPUS);
			return -1;
		}
		for (int i = 0; i < n; i++)
			if (cpus[i] == (int)v) {
				snprintf(why, whylen, "'%s': CPU %ld is listed twice", s, v);
				return -1;
			}
		cpus[n++] = (int)v;
		p = *end ? end + 1 : end;
		if (*end && !*p) {
			snprintf(why, whylen, "'%s': a comma ends the list", s);
			return -1;
		}
	}
	return n;
}

static void fmt_default(const struct conf_opt *o, char *buf, size_t len)
{
	if (!o->def)
		snprintf(buf, len, "%s", o->required ? "required" : "none");
	else if (!*o->def)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%s", o->def);
}

void conf_usage(FILE *out)
{
	fprintf(out,
		"usage: tdpd -f FILE [OPTIONS] [-- EAL-ARGS]\n"
		"\n"
		"Forwards reserved flows at the frame boundaries of a reservation table,\n"
		"best effort in the gaps, over DPDK. See tdpd(8) and tdpd.conf(5).\n"
		"\n"
		"  -f, --config FILE        configuration file ([global], [port NAME])\n"
		"  --port NAME:OPTION=VALUE set a port option (the port must be in the file)\n"
		"  --check                  check the configuration and the table, then exit\n"
		"  --dump-config            print the effective configuration and exit\n"
		"  -h, --help               this text\n"
		"  -v, --version            the version\n"
		"  --                       the rest goes to DPDK's EAL\n"
		"\n"
		"Global options (file: NAME VALUE in [global]; command line: --NAME VALUE):\n");
	char d[64];
	for (const struct conf_opt *o = conf_opts; o->name; o++) {
		if (o->sect != CS_GLOBAL)
			continue;
		fmt_default(o, d, sizeof(d));
		fprintf(out, "  --%s %s\n      %s [%s]\n", o->name, o->arg, o->doc, d);
	}
	fprintf(out,
		"\nPort options (file: in [port NAME]; command line: --port NAME:OPTION=VALUE):\n");
	for (const struct conf_opt *o = conf_opts; o->name; o++) {
		if (o->sect != CS_PORT)
			continue;
		fmt_default(o, d, sizeof(d));
		fprintf(out, "  %s %s\n      %s [%s]\n", o->name, o->arg, o->doc, d);
	}
}

void conf_list_options(FILE *out)
{
	for (const struct conf_opt *o = conf_opts; o->name; o++)
		fprintf(out, "%s %s\n", o->sect == CS_GLOBAL ? "global" : "port", o->name);
}

static void dump_value(const struct conf_opt *o, const void *base, FILE *out)
{
	const char *at = (const char *)base + o->off;
	int64_t v = *(const int64_t *)(const void *)at;
	switch (o->type) {
	case CT_STR:
		fprintf(out, "%s", at);
		break;
	case CT_INT:
		fprintf(out, "%" PRId64, v);
		break;
	case CT_DUR:
		if (v == 0)
			fputs("0", out);
		else if (v % 1000000000 == 0)
			fprintf(out, "%" PRId64 "s", v / 1000000000);
		else if (v % 1000000 == 0)
			fprintf(out, "%" PRId64 "ms", v / 1000000);
		else if (v % 1000 == 0)
			fprintf(out, "%" PRId64 "us", v / 1000);
		else
			fprintf(out, "%" PRId64 "ns", v);
		break;
	case CT_RATE:
		fprintf(out, v ? "%" PRId64 "bit/s" : "%" PRId64, v);
		break;
	case CT_BOOL:
		fputs(v ? "yes" : "no", out);
		break;
	case CT_ENUM:
		fputs(o->choices[v], out);
		break;
	case CT_FRAC:
		fprintf(out, "%.9g", (double)v / 1e9);
		break;
	case CT_LIST:
		break;
	}
}

/* One option's line; an empty string is not set, and a comment, so that
 * what is dumped reads back as the same configuration. */
static void dump_opt(const struct conf_opt *o, const void *base, FILE *out)
{
	if (o->type == CT_STR && !*((const char *)base + o->off)) {
		fprintf(out, "# %s (not set)\n", o->name);
		return;
	}
	fprintf(out, "%s ", o->name);
	dump_value(o, base, out);
	fputc('\n', out);
}

void conf_dump(const struct conf *c, FILE *out)
{
	fprintf(out, "[global]\n");
	for (const struct conf_opt *o = conf_opts; o->name; o++) {
		if (o->sect != CS_GLOBAL)
			continue;
		dump_opt(o, conf_opt_base((struct conf *)c, o), out);
	}
	for (uint32_t p = 0; p < c->nports; p++) {
		fprintf(out, "\n[port %s]\n", c->ports[p].name);
		for (const struct conf_opt *o = conf_opts; o->name; o++) {
			if (o->sect != CS_PORT)
				continue;
			if (o->type == CT_LIST) {
				const struct conf_list *l =
					(const struct conf_list
						 *)(const void *)((const char *)&c->ports[p] +
								  o->off);
				for (size_t i = 0; i < l->n; i++)
					fprintf(out, "%s %s\n", o->name, l->v[i].val);
				continue;
			}
			dump_opt(o, &c->ports[p], out);
		}
	}
}

static const char *type_word(const struct conf_opt *o)
{
	switch (o->type) {
	case CT_DUR:
		return "a time with its unit (ns, us, ms, s), or 0";
	case CT_RATE:
		return "a rate (e.g. 1Gbit/s), or 0";
	case CT_BOOL:
		return "yes or no";
	case CT_INT:
		return "an integer";
	case CT_FRAC:
		return "a fraction (e.g. 1e-4)";
	default:
		return NULL;
	}
}

void conf_man(FILE *out, bool long_opts)
{
	char d[64];
	for (unsigned sect = CS_GLOBAL; sect <= CS_PORT; sect++) {
		if (long_opts && sect == CS_PORT)
			break;
		for (const struct conf_opt *o = conf_opts; o->name; o++) {
			if (o->sect != sect)
				continue;
			fmt_default(o, d, sizeof(d));
			if (long_opts)
				fprintf(out, ".TP\n.BI \\-\\-%s \" %s\"\n", o->name, o->arg);
			else
				fprintf(out, ".TP\n.BI %s \" %s\"\n", o->name, o->arg);
			fprintf(out, "%c%s.", toupper((unsigned char)o->doc[0]), o->doc + 1);
			const char *tw = type_word(o);
			if (tw && !long_opts)
				fprintf(out, " Takes %s", tw);
			if (o->type == CT_INT && !long_opts)
				fprintf(out, " from %" PRId64 " to %" PRId64, o->min, o->max);
			if (tw && !long_opts)
				fputc('.', out);
			fprintf(out, " %s\\fB%s\\fR.\n",
				o->required ? "" : "Default: ", o->required ? "Required" : d);
		}
	}
}
