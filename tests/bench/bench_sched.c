/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Benchmark, not a test: how fast tables parse and pass admission, and how much
 * memory the runtime form takes, for k = 10^3, 10^5, 10^6 and 10 or 10,000
 * flows. Each table puts ten flows (or all of them, when there are fewer) in
 * every frame on four 100 Gbit/s ports; TF = 1 s / k, so the cycle is a second.
 * A bare scan of the same text (counting lines and fields) runs beside it as the
 * floor any parser has to pay.
 *
 * usage: bench_sched [--json] [--repeat N]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tdp_sched.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *make_table(uint32_t k, uint32_t flows, size_t *len)
{
	char *s = NULL;
	FILE *f = open_memstream(&s, len);
	uint32_t per_frame = flows < 10 ? flows : 10, stride = flows / per_frame;
	fprintf(f, "tdp-schedule 1\ntf %uns\nk %u\n", 1000000000u / k, k);
	for (int p = 0; p < 4; p++)
		fprintf(f, "port p%d rate 100Gbit/s\n", p);
	for (uint32_t i = 0; i < flows; i++)
		fprintf(f, "flow f%u port p%u size 100 udp-dport %u\n", i, i % 4, i);
	/* flow i every stride-th frame from i mod stride */
	for (uint32_t i = 0; i < flows; i++)
		fprintf(f, "frames %u-%u/%u: f%u 1\n", i % stride, k - 1, stride, i);
	fclose(f);
	return s;
}

/* The floor: touch every byte, count lines and white-space separated fields. */
static size_t scan(const char *s, size_t n)
{
	size_t lines = 0, fields = 0;
	bool in = false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		lines += c == '\n';
		bool sp = c == ' ' || c == '\n' || c == '\t';
		fields += !sp && !in;
		in = !sp;
	}
	return lines + fields;
}

int main(int argc, char **argv)
{
	static const uint32_t ks[] = {1000, 100000, 1000000}, fl[] = {10, 10000};
	bool json = false;
	int repeat = 3;
	volatile size_t sink = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: bench_sched [--json] [--repeat N]\n");
			return 2;
		}
	}
	if (repeat < 1)
		repeat = 1;
	if (json)
		printf("[");
	else
		printf("%9s %7s %9s %10s %10s %10s %12s %8s %10s %9s %10s\n", "k", "flows", "lines",
		       "entries", "parse ms", "admit ms", "rows/s", "x scan", "rt bytes", "B/frame",
		       "B/entry");
	int first = 1;
	for (size_t a = 0; a < sizeof(ks) / sizeof(ks[0]); a++)
		for (size_t b = 0; b < sizeof(fl) / sizeof(fl[0]); b++) {
			size_t len;
			char *text = make_table(ks[a], fl[b], &len);
			double best_parse = 1e9, best_admit = 1e9, best_scan = 1e9;
			struct sched_table *t = NULL;
			for (int r = 0; r < repeat; r++) {
				struct sched_diags d;
				sched_diags_init(&d, "bench");
				double t0 = now_s();
				sink += scan(text, len);
				double t1 = now_s();
				sched_free(t);
				t = sched_parse(text, len, &d);
				double t2 = now_s();
				size_t errs = t ? sched_admit(t, &d) : 1;
				double t3 = now_s();
				if (!t || errs) {
					sched_diags_print(&d, stderr);
					return 1;
				}
				sched_diags_free(&d);
				if (t1 - t0 < best_scan)
					best_scan = t1 - t0;
				if (t2 - t1 < best_parse)
					best_parse = t2 - t1;
				if (t3 - t2 < best_admit)
					best_admit = t3 - t2;
			}
			uint64_t entries = 0; /* entries over all frames, before sharing */
			for (uint32_t f = 0; f < t->k; f++) {
				uint32_t n;
				sched_row(t, f, &n);
				entries += n;
			}
			size_t rt = sched_runtime_bytes(t);
			double per_frame = (double)(sizeof(uint32_t) * t->k +
						    sizeof(uint32_t) * (t->nrows + 1)) /
					   t->k;
			double total = best_parse + best_admit;
			uint32_t lines = 0;
			for (size_t i = 0; i < len; i++)
				lines += text[i] == '\n';
			if (json) {
				printf("%s{\"k\":%u,\"flows\":%u,\"lines\":%u,\"entries\":%llu,"
				       "\"distinct_rows\":%u,"
				       "\"distinct_entries\":%u,\"parse_s\":%.6f,\"admit_s\":%.6f,"
				       "\"scan_s\":%.6f,"
				       "\"rows_per_s\":%.0f,\"runtime_bytes\":%zu,\"bytes_per_"
				       "frame\":%.3f,\"bytes_per_entry\":%zu}",
				       first ? "" : ",", t->k, t->nflows, lines,
				       (unsigned long long)entries, t->nrows, t->row_off[t->nrows],
				       best_parse, best_admit, best_scan, t->k / total, rt,
				       per_frame, sizeof(struct sched_entry));
			} else {
				printf("%9u %7u %9u %10llu %10.1f %10.1f %12.3g %8.1f %10zu %9.2f "
				       "%10zu\n",
				       t->k, t->nflows, lines, (unsigned long long)entries,
				       best_parse * 1e3, best_admit * 1e3, t->k / total,
				       total / best_scan, rt, per_frame,
				       sizeof(struct sched_entry));
			}
			first = 0;
			sched_free(t);
			free(text);
		}
	if (json)
		printf("]\n");
	else
		printf("\nbest of %d; rows/s = k / (parse + admit); x scan = (parse + admit) / "
		       "bare scan of the same text;\n"
		       "runtime form = 4 B per frame + 4 B per distinct row + 8 B per distinct "
		       "entry (B/frame counts\n"
		       "the first two over k)\n",
		       repeat);
	return sink == 0;
}
