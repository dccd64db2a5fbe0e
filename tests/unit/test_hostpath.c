/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp_prepare refuses an af_packet port's bad qpairs devarg, before it
 * touches the kernel: each of that many sockets is served as an RX queue
 * (rxcores_net runs qpairs=2 on real sockets). A guard takes the ports of
 * the tdpd that died even while that tdpd's exit still holds their locks.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include "hostpath.h"
#include "hpmode.h"
#include "portlock.h"

static void bad_qpairs_are_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {"qpairs=0", "qpairs=17", "qpairs=2x", "qpairs="};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hp_port hp;
		char dev[96], err[256] = "";
		snprintf(dev, sizeof(dev), "net_af_packet0,iface=nowhere0,%s", bad[i]);
		assert_int_equal(hp_prepare(&hp, "in", dev, HP_AUTO, "", NULL, err, sizeof(err)),
				 -1);
		char want[64];
		snprintf(want, sizeof(want), "%s: expected 1 to 16", bad[i]);
		if (!strstr(err, want))
			fail_msg("%s: %s", dev, err);
	}
}

static struct lockfile dead_lock;

static void *exit_closes(void *arg)
{
	(void)arg;
	const struct timespec t = {0, 100000000};
	nanosleep(&t, NULL);
	lockfile_release(&dead_lock);
	return NULL;
}

/* The tdpd that died closes its descriptors one by one as it exits: the
 * guard's pipe may read as closed while the port's lock is still its. The
 * guard's take waits that out (it would have left the port to a "running
 * tdpd", itself dead) and then takes the port; another tdpd's lock it does
 * not wait for. The port is lo (every namespace has it; tdpd never serves
 * it); the locks live in PL_DIR, which needs root. */
static void guard_waits_out_the_dead_lock(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	const char *dev = "net_af_packet0,iface=lo";
	char err[600];
	int me = (int)getpid();
	/* held as the dead tdpd held it: its pid in the file */
	assert_int_equal(pl_take(&dead_lock, "in", dev, "/run/dead.sock", 0, err, sizeof(err)), 0);
	struct lockfile g;
	assert_int_equal(pl_take(&g, "in", dev, "none (a guard)", me, err, sizeof(err)), -3);
	assert_non_null(strstr(err, "whose exit has not closed it yet"));
	/* another tdpd's: refused at once, as before */
	assert_int_equal(pl_take(&g, "in", dev, "none (a guard)", me + 1, err, sizeof(err)), -1);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, exit_closes, NULL), 0);
	assert_int_equal(pl_take_from_dead(&g, "in", dev, me, err, sizeof(err)), 0);
	pthread_join(th, NULL);
	lockfile_release(&g);
}

/* A restart right after a SIGKILL: the lock still held in the dead tdpd's
 * name while its exit closes its descriptors is waited for (-2), not taken
 * for a running tdpd's; one whose holder has not written its name yet
 * likewise. */
static void restart_waits_out_an_exiting_holder(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	const char *dev = "net_af_packet0,iface=lo";
	char key[64], what[64], path[200], err[600], held[512];
	assert_int_equal(pl_key(dev, key, sizeof(key), what, sizeof(what), err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s/%s.lock", PL_DIR, key);
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0); /* its pid names no process now */
	char text[64];
	snprintf(text, sizeof(text), "pid %d\nport in\n", (int)child);
	struct lockfile dead;
	assert_int_equal(lockfile_take(&dead, path, text, held, sizeof(held), err, sizeof(err)), 0);
	struct lockfile l;
	assert_int_equal(pl_take(&l, "in", dev, "/run/new.sock", 0, err, sizeof(err)), -2);
	assert_non_null(strstr(err, "which is exiting"));
	lockfile_release(&dead);
	assert_int_equal(lockfile_take(&dead, path, "", held, sizeof(held), err, sizeof(err)), 0);
	assert_int_equal(pl_take(&l, "in", dev, "/run/new.sock", 0, err, sizeof(err)), -2);
	assert_non_null(strstr(err, "being taken by another process this moment"));
	lockfile_release(&dead);
	assert_int_equal(pl_take(&l, "in", dev, "/run/new.sock", 0, err, sizeof(err)), 0);
	lockfile_release(&l);
}

TDP_TEST_MAIN(cmocka_unit_test(bad_qpairs_are_refused),
	      cmocka_unit_test(guard_waits_out_the_dead_lock),
	      cmocka_unit_test(restart_waits_out_an_exiting_holder))
