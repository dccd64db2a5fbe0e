/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine benchmarks' shared helpers (bench.h). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

int cpu = 1;
bool quick;
double g_read_ns;

int64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

struct sched_table *table_from(const char *txt)
{
	struct sched_diags d;
	sched_diags_init(&d, "bench");
	struct sched_table *t = sched_parse(txt, strlen(txt), &d);
	if (!t || d.nerr) {
		sched_diags_print(&d, stderr);
		exit(1);
	}
	sched_diags_free(&d);
	return t;
}

void rt_self(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
	struct sched_param sp = {.sched_priority = 80};
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0)
		fprintf(stderr, "bench: no SCHED_FIFO (%s); figures will be worse\n",
			strerror(errno));
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

void rt_off(void)
{
	struct sched_param sp = {.sched_priority = 0};
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}

void figs_of(const struct hist *h, struct figs *f)
{
	f->p50 = hist_quantile(h, 0.5);
	f->p99 = hist_quantile(h, 0.99);
	f->p999 = hist_quantile(h, 0.999);
	f->max = h->max;
	f->n = h->count;
}

int run_cyclictest(int64_t tf_ns, uint32_t frames, struct figs *out, struct hist *h)
{
	char hf[] = "/tmp/tdpbench-hist-XXXXXX";
	int fd = mkstemp(hf);
	if (fd < 0)
		return -1;
	close(fd);
	char cmd[512];
	snprintf(cmd, sizeof(cmd),
		 "cyclictest -m -p 80 -a %d -t 1 -i %" PRId64
		 " -l %u -q -h 100000 --histfile=%s >/dev/null 2>&1",
		 cpu, tf_ns / 1000, frames, hf);
	struct rusage r0, r1;
	getrusage(RUSAGE_CHILDREN, &r0);
	int64_t w0 = mono();
	int rc = system(cmd);
	int64_t w1 = mono();
	getrusage(RUSAGE_CHILDREN, &r1);
	double used = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec -
			       r0.ru_stime.tv_sec) +
		      (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec -
			       r0.ru_stime.tv_usec) /
			      1e6;
	FILE *f = fopen(hf, "r");
	if (rc != 0 || !f) {
		if (f)
			fclose(f);
		unlink(hf);
		return -1;
	}
	uint64_t *bins = calloc(100001, sizeof(uint64_t));
	uint64_t total = 0, overflow = 0;
	int64_t max_us = 0;
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		long us;
		unsigned long long cnt;
		if (line[0] == '#') {
			long long m;
			if (sscanf(line, "# Max Latencies: %lld", &m) == 1)
				max_us = m;
			if (sscanf(line, "# Histogram Overflows: %llu", &cnt) == 1)
				overflow = cnt;
			continue;
		}
		if (sscanf(line, "%ld %llu", &us, &cnt) == 2 && us >= 0 && us <= 100000) {
			bins[us] += cnt;
			total += cnt;
			for (unsigned long long k = 0; h && k < cnt; k++)
				hist_add(h, (int64_t)us * 1000);
		}
	}
	fclose(f);
	unlink(hf);
	total += overflow;
	for (unsigned long long k = 0; h && k < overflow; k++)
		hist_add(h, 100001000); /* past the histogram cyclictest kept */
	int64_t q[3] = {-1, -1, -1};
	double want[3] = {0.5, 0.99, 0.999};
	uint64_t seen = 0;
	for (long us = 0; us <= 100000; us++) {
		seen += bins[us];
		for (int i = 0; i < 3; i++)
			if (q[i] < 0 && (double)seen >= want[i] * (double)total)
				q[i] = us * 1000;
	}
	free(bins);
	out->p50 = q[0];
	out->p99 = q[1];
	out->p999 = q[2];
	out->max = max_us * 1000;
	out->n = total;
	out->duty = w1 > w0 ? used * 1e9 / (double)(w1 - w0) : -1;
	return 0;
}
