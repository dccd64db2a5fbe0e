/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The lock held for a process's life (lockfile.h) and the table in force
 * kept for a restart (tstate.h): a second holder refused with the first's
 * words, the lock free once its holder dies however it dies, the record
 * written whole and read back, a torn or foreign record refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lockfile.h"
#include "tstate.h"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/tdp-lockfile-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* in a child: tries the lock; exits 0 taken, 1 refused with "pid 42", 2 otherwise */
static int try_in_child(const char *path)
{
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		struct lockfile l;
		char held[128], err[256];
		int rc = lockfile_take(&l, path, "pid 7\n", held, sizeof(held), err, sizeof(err));
		char pid[16];
		lockfile_field(held, "pid", pid, sizeof(pid));
		_exit(rc == 0 ? 0 : rc == -EWOULDBLOCK && !strcmp(pid, "42") ? 1 : 2);
	}
	int st;
	assert_int_equal(waitpid(p, &st, 0), p);
	return WEXITSTATUS(st);
}

static void test_second_holder_refused(void **state)
{
	char path[128], held[64], err[256];
	snprintf(path, sizeof(path), "%s/a/b/port.lock", dir);
	struct lockfile l;
	assert_int_equal(
		lockfile_take(&l, path, "pid 42\nport in\n", held, sizeof(held), err, sizeof(err)),
		0);
	assert_int_equal(try_in_child(path), 1); /* refused, the holder named */
	lockfile_release(&l);
	assert_int_equal(try_in_child(path), 0); /* free once released */
}

static void test_freed_when_holder_dies(void **state)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/dies.lock", dir);
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	pid_t p = fork();
	assert_true(p >= 0);
	if (p == 0) {
		struct lockfile l;
		char held[8], err[64];
		if (lockfile_take(&l, path, "pid 42\n", held, sizeof(held), err, sizeof(err)) != 0)
			_exit(3);
		(void)!write(pfd[1], "x", 1);
		pause(); /* killed below, running no code of its own */
		_exit(0);
	}
	char c;
	assert_int_equal(read(pfd[0], &c, 1), 1);
	assert_int_equal(try_in_child(path), 1);
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	assert_int_equal(try_in_child(path), 0);
	close(pfd[0]);
	close(pfd[1]);
}

static void test_field(void **state)
{
	char v[16];
	lockfile_field("pid 12\nport in\ncontrol-socket /run/x\n", "port", v, sizeof(v));
	assert_string_equal(v, "in");
	lockfile_field("pid 12\nportx y\n", "port", v, sizeof(v));
	assert_string_equal(v, "");
	lockfile_field("control-socket /a/very/long/path/indeed\n", "control-socket", v, sizeof(v));
	assert_string_equal(v, "/a/very/long/pa");
}

static struct sched_table *table(const char *text)
{
	struct sched_diags d;
	sched_diags_init(&d, "t");
	struct sched_table *t = sched_parse(text, strlen(text), &d);
	sched_diags_free(&d);
	assert_non_null(t);
	return t;
}

static const char *T1 = "tdp-schedule 1\ntf 1ms\nk 10\nport out rate 100Mbit/s\n"
			"flow p port out size 78 udp-dport 7350\nframes 0-9: p 1\n";
static const char *T2 = "tdp-schedule 1\ntf 1ms\nk 20\nport out rate 100Mbit/s\n"
			"flow p port out size 78 udp-dport 7350\nframes 0-19/2: p 2\n";

static int count_tables(void)
{
	char cmd[160];
	snprintf(cmd, sizeof(cmd), "test $(ls '%s/st/tables' | wc -l) -eq", dir);
	for (int n = 0; n < 5; n++) {
		char c[200];
		snprintf(c, sizeof(c), "%s %d", cmd, n);
		if (system(c) == 0)
			return n;
	}
	return -1;
}

static void test_state_round_trip(void **state)
{
	char sd[128], err[256];
	snprintf(sd, sizeof(sd), "%s/st", dir);
	struct tstate_rec r;
	assert_int_equal(tstate_read(sd, &r, err, sizeof(err)), 1); /* none yet */
	struct tstate s;
	assert_int_equal(tstate_open(&s, sd, "/run/tdpd/tdpd.sock", err, sizeof(err)), 0);
	struct sched_table *t1 = table(T1), *t2 = table(T2);
	struct tstate_rec w = {.frame = 1234};
	snprintf(w.via, sizeof(w.via), TS_VIA_COMMIT);
	snprintf(w.name, sizeof(w.name), "plan-a\nsecond line");
	assert_int_equal(tstate_save(&s, t1, &w, err, sizeof(err)), 0);
	assert_int_equal(tstate_read(sd, &r, err, sizeof(err)), 0);
	char d1[SCHED_DIGEST_HEX];
	sched_digest(t1, d1);
	assert_string_equal(r.digest, d1);
	assert_string_equal(r.via, TS_VIA_COMMIT);
	assert_string_equal(r.name, "plan-a second line");
	assert_int_equal(r.frame, 1234);
	/* the text kept is the table's, byte for byte */
	FILE *f = fopen(r.path, "r");
	assert_non_null(f);
	char buf[512];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(n, strlen(T1));
	assert_memory_equal(buf, T1, n);
	/* a second table: both kept (the new and the one it replaced), then a
	 * third save of the first leaves two */
	w.frame = 2000;
	assert_int_equal(tstate_save(&s, t2, &w, err, sizeof(err)), 0);
	assert_int_equal(count_tables(), 2);
	assert_int_equal(tstate_save(&s, t1, &w, err, sizeof(err)), 0);
	assert_int_equal(tstate_read(sd, &r, err, sizeof(err)), 0);
	assert_string_equal(r.digest, d1);
	assert_int_equal(count_tables(), 2);
	/* a second tdpd on the directory is refused, the first named */
	struct tstate s2;
	assert_int_equal(tstate_open(&s2, sd, "/run/x.sock", err, sizeof(err)), -1);
	char want[64];
	snprintf(want, sizeof(want), "(pid %d, control socket /run/tdpd/tdpd.sock)", (int)getpid());
	/* flock is per open file: the same process opening again is refused too */
	assert_non_null(strstr(err, want));
	tstate_close(&s);
	sched_free(t1);
	sched_free(t2);
}

static void test_state_bad_record(void **state)
{
	char sd[128], path[160], err[256];
	snprintf(sd, sizeof(sd), "%s/bad", dir);
	assert_int_equal(mkdir(sd, 0755), 0);
	snprintf(path, sizeof(path), "%s/in-force", sd);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("digest 12ab\nvia schedule load\n", f); /* cut short */
	fclose(f);
	struct tstate_rec r;
	assert_int_equal(tstate_read(sd, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a record of a table in force"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_second_holder_refused),
		cmocka_unit_test(test_freed_when_holder_dies),
		cmocka_unit_test(test_field),
		cmocka_unit_test(test_state_round_trip),
		cmocka_unit_test(test_state_bad_record),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
