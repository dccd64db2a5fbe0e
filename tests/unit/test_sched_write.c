/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing, formatting, editing and comparing tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "tdp_sched.h"
#include "testutil.h"

static struct sched_table *reparse(const char *text)
{
	struct sched_diags d;
	sched_diags_init(&d, "reparse");
	struct sched_table *t = sched_parse(text, strlen(text), &d);
	if (!t) {
		sched_diags_print(&d, stderr);
		fprintf(stderr, "--- text ---\n%s--- end ---\n", text);
	}
	sched_diags_free(&d);
	return t;
}

static void roundtrip(const struct sched_table *t)
{
	char *w = capture(sched_write, t);
	struct sched_table *b = reparse(w);
	assert_non_null(b);
	assert_true(sched_equal(t, b));
	/* the canonical form is a fixed point */
	char *w2 = capture(sched_write, b);
	assert_string_equal(w, w2);
	char *f = capture(sched_write_fmt, t);
	struct sched_table *c = reparse(f);
	assert_non_null(c);
	assert_true(sched_equal(t, c));
	free(w);
	free(w2);
	free(f);
	sched_free(b);
	sched_free(c);
}

static void roundtrip_examples(void **state)
{
	static const char *const ex[] = {"demo.tdp", "voice-video-be.tdp", "k10000.tdp"};
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		char path[512];
		struct sched_diags d;
		snprintf(path, sizeof(path), "%s/schedules/examples/%s", TDP_SRCDIR, ex[i]);
		sched_diags_init(&d, path);
		struct sched_table *t = sched_load(path, &d);
		sched_diags_print(&d, stderr);
		assert_non_null(t);
		assert_int_equal(sched_admit(t, &d), 0);
		roundtrip(t);
		sched_diags_free(&d);
		sched_free(t);
	}
}

static uint64_t rnd_state;
static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state % n);
}

/* Random valid tables: random k, flows, spans and counts; the canonical form
 * must mean the same table. The seed is printed so a failure can be replayed
 * with TDP_TEST_SEED. */
static void roundtrip_random(void **state)
{
	const char *env = getenv("TDP_TEST_SEED");
	uint64_t seed = env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL);
	static const uint32_t ks[] = {1, 2, 5, 10, 20, 50, 100, 1000, 10000};
	printf("# roundtrip_random seed %llu (TDP_TEST_SEED replays it)\n",
	       (unsigned long long)seed);
	rnd_state = seed | 1;
	for (int iter = 0; iter < 200; iter++) {
		uint32_t k = ks[rnd(sizeof(ks) / sizeof(ks[0]))], nf = 1 + rnd(12), nr = rnd(10);
		char *s = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&s, &len);
		fprintf(f, "tdp-schedule 1\ntf 1us\nk %u\nport a rate 100Gbit/s\nport b rate 40Gbit/s\n",
			k);
		for (uint32_t i = 0; i < nf; i++) {
			fprintf(f, "flow f%u port %s size %u", i, rnd(2) ? "a" : "b",
				60 + rnd(200));
			if (rnd(2))
				fprintf(f, " alpha %u delay %uns", 1 + rnd(5), rnd(1000));
			if (rnd(2))
				fprintf(f, " stamp");
			fprintf(f, " udp-dport %u\n", i);
		}
		for (uint32_t r = 0; r < nr; r++) {
			uint32_t first = rnd(k), last = first + rnd(k - first), stride = 1 + rnd(7);
			fprintf(f, "frames %u-%u/%u", first, last, stride);
			if (rnd(3) == 0) {
				uint32_t one = rnd(k);
				/* a single frame that is not in the span */
				if (one < first || one > last || (one - first) % stride)
					fprintf(f, ", %u", one);
			}
			fprintf(f, ":");
			uint32_t used = 0;
			for (uint32_t e = 0, ne = 1 + rnd(3); e < ne; e++) {
				uint32_t fl = rnd(nf);
				if (used & (1u << fl))
					continue;
				used |= 1u << fl;
				fprintf(f, "%s f%u %u", e ? "," : "", fl, rnd(3));
			}
			fprintf(f, "\n");
		}
		fclose(f);
		/* a leading ',' when the first entry was skipped: drop such tables */
		if (strstr(s, ":,")) {
			free(s);
			continue;
		}
		struct sched_table *t = reparse(s);
		if (!t)
			fail_msg("seed %llu iteration %d: generated table did not parse",
				 (unsigned long long)seed, iter);
		roundtrip(t);
		sched_free(t);
		free(s);
	}
}

/* 3000 flows all in every frame: the compact form must split its lines so
 * that the parser takes them back. */
static void roundtrip_wide_rows(void **state)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	fprintf(f, "tdp-schedule 1\ntf 1ms\nk 4\nport p rate 100Gbit/s\n");
	for (int i = 0; i < 3000; i++)
		fprintf(f, "flow f%d port p size 60 udp-dport %d\n", i, i);
	for (int i = 0; i < 3000; i += 500) {
		fprintf(f, "frames *:");
		for (int j = i; j < i + 500; j++)
			fprintf(f, "%s f%d 1", j > i ? "," : "", j);
		fprintf(f, "\n");
	}
	fclose(f);
	struct sched_table *t = reparse(s);
	assert_non_null(t);
	uint32_t n;
	sched_row(t, 3, &n);
	assert_int_equal(n, 3000);
	roundtrip(t);
	sched_free(t);
	free(s);
}

static const char *const commented = "# header comment\n"
				     "tdp-schedule   1\n"
				     "tf 100000ns   # frame\n"
				     "k 10\n"
				     "\n"
				     "port eth0 rate 1000Mbit/s   # the uplink\n"
				     "flow voice port eth0 size 200 udp-dport 5004 dscp 46\n"
				     "flow video port eth0 size 1514 dscp 34\n"
				     "# rows\n"
				     "frames 0-9/1: voice 1     # every frame\n"
				     "frames 0-8/2: video 2\n";

static void fmt_keeps_comments(void **state)
{
	struct sched_table *t = parse_ok(commented);
	char *f = capture(sched_write_fmt, t);
	assert_string_equal(f, "# header comment\n"
			       "tdp-schedule 1\n"
			       "tf 100us  # frame\n"
			       "k 10\n"
			       "\n"
			       "port eth0 rate 1Gbit/s max-frame 1514 overhead 24  # the uplink\n"
			       "flow voice port eth0 size 200 dscp 46 udp-dport 5004\n"
			       "flow video port eth0 size 1514 dscp 34\n"
			       "# rows\n"
			       "frames 0-9: voice 1  # every frame\n"
			       "frames 0-8/2: video 2\n");
	free(f);
	sched_free(t);
}

static void write_layers_by_flow(void **state)
{
	struct sched_table *t = parse_ok(commented);
	char *w = capture(sched_write, t);
	assert_string_equal(w, "tdp-schedule 1\ntf 100us\nk 10\n\n"
			       "port eth0 rate 1Gbit/s max-frame 1514 overhead 24\n\n"
			       "flow voice port eth0 size 200 dscp 46 udp-dport 5004\n"
			       "flow video port eth0 size 1514 dscp 34\n\n"
			       "frames 0-9: voice 1\n"
			       "frames 0-8/2: video 2\n");
	free(w);
	sched_free(t);
}

static char *edit(const struct sched_table *t, bool reserve, const char *flow, uint32_t n,
		  const char *set)
{
	uint8_t *m = malloc(t->k);
	char err[128];
	struct sched_diags d;
	assert_int_equal(sched_frameset_parse(set, t->k, m, err, sizeof(err)), 0);
	sched_diags_init(&d, "edit");
	char *out = reserve ? sched_edit_reserve(t, flow, n, m, &d)
			    : sched_edit_release(t, flow, n, m, &d);
	if (!out)
		sched_diags_print(&d, stderr);
	sched_diags_free(&d);
	free(m);
	return out;
}

static void reserve_same_set_edits_that_line(void **state)
{
	struct sched_table *t = parse_ok(commented);
	char *out = edit(t, true, "video", 1, "0-8/2");
	assert_non_null(out);
	/* only the video line changes; everything else is byte for byte */
	size_t len = strlen(commented), tail = strlen("video 2\n");
	assert_int_equal(strlen(out), len);
	assert_memory_equal(out, commented, len - tail);
	assert_string_equal(out + len - tail, "video 3\n");
	free(out);
	/* a flow not yet on that line is added to it; the comment stays */
	out = edit(t, true, "video", 2, "0-9");
	assert_non_null(strstr(out, "frames 0-9: voice 1, video 2  # every frame\n"));
	free(out);
	sched_free(t);
}

static void reserve_new_set_appends(void **state)
{
	struct sched_table *t = parse_ok(commented);
	char *out = edit(t, true, "voice", 2, "3,5,7");
	assert_non_null(out);
	size_t n = strlen(commented);
	assert_memory_equal(out, commented, n);
	assert_string_equal(out + n, "frames 3-7/2: voice 2\n");
	struct sched_table *b = reparse(out);
	assert_row(b, 3, "voice 3");
	assert_row(b, 4, "voice 1, video 2");
	free(out);
	sched_free(b);
	sched_free(t);
}

static void release_splits_lines(void **state)
{
	struct sched_table *t = parse_ok(commented);
	char *out = edit(t, false, "voice", 1, "0-4");
	assert_non_null(out);
	/* the untouched frames keep the line and its comment */
	assert_non_null(strstr(out, "frames 5-9: voice 1  # every frame\n"));
	struct sched_table *b = reparse(out);
	assert_row(b, 0, "video 2");
	assert_row(b, 3, "");
	assert_row(b, 5, "voice 1");
	free(out);
	sched_free(b);
	/* releasing all of a line's only flow leaves its comment */
	out = edit(t, false, "voice", 1, "*");
	assert_non_null(strstr(out, "\n# every frame\nframes 0-8/2: video 2\n"));
	free(out);
	sched_free(t);
}

static void release_takes_newest_first(void **state)
{
	struct sched_table *t = parse_ok("tdp-schedule 1\ntf 1ms\nk 4\nport p rate 1Gbit/s\n"
					 "flow a port p size 100 dscp 1\n"
					 "frames 0-3: a 2\nframes 0-1: a 1\n");
	char *out = edit(t, false, "a", 2, "0");
	/* frame 0 had 3: 1 comes from the last line, 1 from the first */
	struct sched_table *b = reparse(out);
	assert_row(b, 0, "a 1");
	assert_row(b, 1, "a 3");
	assert_row(b, 2, "a 2");
	assert_string_equal(strstr(out, "frames"), "frames 1-3: a 2\nframe 0: a 1\nframe 1: a 1\n");
	free(out);
	sched_free(b);
	sched_free(t);
}

static void release_too_much_fails(void **state)
{
	struct sched_table *t = parse_ok(commented);
	uint8_t m[10];
	char err[64];
	struct sched_diags d;
	sched_diags_init(&d, "edit");
	assert_int_equal(sched_frameset_parse("0-3", 10, m, err, sizeof(err)), 0);
	assert_null(sched_edit_release(t, "video", 1, m, &d));
	assert_non_null(strstr(d.v[0].msg, "fewer than 1 packets in frames 1,3; nothing released"));
	sched_diags_free(&d);
	sched_diags_init(&d, "edit");
	assert_null(sched_edit_reserve(t, "nosuch", 1, m, &d));
	assert_non_null(strstr(d.v[0].msg, "no flow named 'nosuch'"));
	sched_diags_free(&d);
	sched_free(t);
}

static void frameset_parse(void **state)
{
	uint8_t m[20];
	char err[128];
	assert_int_equal(sched_frameset_parse("0-9/3,15,*/10", 20, m, err, sizeof(err)), 0);
	const char *want = "10010010011000010000";
	for (int i = 0; i < 20; i++)
		assert_int_equal(m[i], want[i] - '0');
	assert_int_equal(sched_frameset_parse("20", 20, m, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "frames are 0..19"));
	assert_int_equal(sched_frameset_parse("5-1", 20, m, err, sizeof(err)), -1);
	assert_int_equal(sched_frameset_parse("1-5/0", 20, m, err, sizeof(err)), -1);
	assert_int_equal(sched_frameset_parse("x", 20, m, err, sizeof(err)), -1);
	assert_int_equal(sched_frameset_parse("", 20, m, err, sizeof(err)), -1);
}

static void frames_format(void **state)
{
	char s[128];
	uint32_t a[] = {0, 10, 20, 30, 31, 32, 33, 40, 50};
	sched_frames_format(a, 9, s, sizeof(s));
	assert_string_equal(s, "0-30/10,31-33,40,50");
	uint32_t b[] = {7};
	sched_frames_format(b, 1, s, sizeof(s));
	assert_string_equal(s, "7");
	uint32_t c[] = {1, 2};
	sched_frames_format(c, 2, s, sizeof(s));
	assert_string_equal(s, "1-2");
	uint32_t d[] = {1, 5};
	sched_frames_format(d, 2, s, sizeof(s));
	assert_string_equal(s, "1,5");
}

static void diff_tables(void **state)
{
	struct sched_table *a = parse_ok(commented);
	char *out = edit(a, true, "voice", 2, "3,5,7");
	struct sched_table *b = reparse(out);
	char *txt = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&txt, &len);
	assert_int_equal(sched_diff(a, b, false, f), 1);
	fclose(f);
	assert_string_equal(txt, "frames 3-7/2: voice 1 -> 3\n");
	free(txt);
	f = open_memstream(&txt, &len);
	assert_int_equal(sched_diff(a, a, true, f), 0);
	fclose(f);
	assert_string_equal(txt, "{\"changes\":[],\"equal\":true}\n");
	free(txt);
	struct sched_table *c =
		parse_ok("tdp-schedule 1\ntf 50us\nk 10\nport eth0 rate 10Gbit/s\n"
			 "flow voice port eth0 size 200 udp-dport 5004 dscp 46\n"
			 "flow ctrl port eth0 size 100 dscp 48\nframes 0: ctrl 1\n");
	f = open_memstream(&txt, &len);
	assert_int_equal(sched_diff(a, c, false, f), 1);
	fclose(f);
	assert_string_equal(txt, "tf: 100us -> 50us\n"
				 "port eth0: rate 1Gbit/s max-frame 1514 overhead 24 -> rate "
				 "10Gbit/s max-frame 1514 overhead 24\n"
				 "flow video: removed (was port eth0 size 1514 dscp 34)\n"
				 "flow ctrl: added (port eth0 size 100 dscp 48)\n"
				 "frames 0-9: voice 1 -> 0\n"
				 "frames 0-8/2: video 2 -> 0\n"
				 "frame 0: ctrl 0 -> 1\n");
	free(txt);
	free(out);
	sched_free(a);
	sched_free(b);
	sched_free(c);
}

/* more distinct (flow, from, to) changes than the diff's first group table
 * holds (512): it grows, and every change is still said once, in order */
static void diff_many_changes(void **state)
{
	(void)state;
	enum {
		N = 700
	};
	char *ta = NULL, *tb = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&ta, &la), *fb = open_memstream(&tb, &lb);
	const char *head = "tdp-schedule 1\ntf 100us\nk 1000\nport eth0 rate 1Gbit/s\n";
	fputs(head, fa);
	fputs(head, fb);
	for (int i = 0; i < N; i++) {
		fprintf(fa, "flow f%d port eth0 size 100 udp-dport %d\n", i, 1000 + i);
		fprintf(fb, "flow f%d port eth0 size 100 udp-dport %d\n", i, 1000 + i);
	}
	for (int i = 0; i < N; i++) {
		fprintf(fa, "frames %d: f%d 1\n", i, i);
		fprintf(fb, "frames %d: f%d 2\n", i, i);
	}
	fclose(fa);
	fclose(fb);
	struct sched_table *a = parse_ok(ta), *b = parse_ok(tb);
	char *txt = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&txt, &len);
	assert_int_equal(sched_diff(a, b, false, f), 1);
	fclose(f);
	int lines = 0;
	for (char *p = txt; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, N);
	assert_non_null(strstr(txt, "frame 0: f0 1 -> 2\n"));
	assert_non_null(strstr(txt, "frame 699: f699 1 -> 2\n"));
	assert_true(strstr(txt, "frame 511: f511") < strstr(txt, "frame 512: f512"));
	free(txt);
	free(ta);
	free(tb);
	sched_free(a);
	sched_free(b);
}

static void json_export(void **state)
{
	struct sched_table *t = parse_ok(commented);
	char *j = capture(sched_write_json, t);
	assert_non_null(strstr(j, "\"tf_ns\":100000,\"k\":10,"));
	assert_non_null(strstr(
		j, "{\"frames\":\"0-8/2\",\"count\":5,\"entries\":[{\"flow\":\"voice\",\"n\":1},"
		   "{\"flow\":\"video\",\"n\":2}]}"));
	assert_non_null(strstr(j, "\"match\":{\"dscp\":46,\"udp_dport\":5004}"));
	assert_non_null(strstr(j, "\"runtime\":{\"distinct_rows\":2,\"entries\":3,\"bytes\":76}"));
	free(j);
	sched_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roundtrip_examples),
		cmocka_unit_test(diff_many_changes),
		cmocka_unit_test(roundtrip_random),
		cmocka_unit_test(roundtrip_wide_rows),
		cmocka_unit_test(fmt_keeps_comments),
		cmocka_unit_test(write_layers_by_flow),
		cmocka_unit_test(reserve_same_set_edits_that_line),
		cmocka_unit_test(reserve_new_set_appends),
		cmocka_unit_test(release_splits_lines),
		cmocka_unit_test(release_takes_newest_first),
		cmocka_unit_test(release_too_much_fails),
		cmocka_unit_test(frameset_parse),
		cmocka_unit_test(frames_format),
		cmocka_unit_test(diff_tables),
		cmocka_unit_test(json_export),
	};
	return cmocka_run_group_tests_name("sched_write", tests, NULL, NULL);
}
