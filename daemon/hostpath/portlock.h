/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One tdpd per port. A port's device (its kernel interface in this network
 * namespace, or its PCI address) is locked by the tdpd that serves it, for
 * the life of that process (lockfile.h): a second tdpd naming it refuses to
 * start, names the holder, and touches nothing of the interface. The locks
 * live in PL_DIR, which every network namespace of the box shares (keys carry
 * the namespace). Devices with nothing to share (net_ring, net_null) and
 * interfaces that do not exist (refused later, at the host path) take none.
 */
#ifndef TDP_PORTLOCK_H
#define TDP_PORTLOCK_H

#include <stddef.h>

#include "lockfile.h"

#define PL_DIR "/run/lock/tdpd"

/* The lock's file name for device (in PL_DIR), and what it names for people
 * ("interface rin", "PCI device 0000:01:00.0"). 0; 1 when the device takes
 * no lock; -1 with err. */
int pl_key(const char *device, char *key, size_t keylen, char *what, size_t whatlen, char *err,
	   size_t errlen);
/* Takes port's lock for this process (a guard's: guard_of is the pid of the
 * tdpd that died, else 0). 0 (held, or none needed); -1 with err (held by
 * another tdpd: its pid, control socket and port named); -2 held by the
 * guard of a tdpd that died, releasing the port for a moment, or locked by
 * a process that has not written its name yet (try again); -3 (a guard
 * only) still held by the tdpd guard_of, whose exit has not closed it yet. */
int pl_take(struct lockfile *l, const char *port, const char *device, const char *control_socket,
	    int guard_of, char *err, size_t errlen);
/* A guard's take of a port of the tdpd dead (its pipe closed): the lock is
 * the dead tdpd's until its exit has closed every descriptor, so -3 is
 * waited out, every PL_EXIT_POLL_NS for at most PL_EXIT_WAIT_NS; then as
 * pl_take. */
#define PL_EXIT_POLL_NS 10000000L
#define PL_EXIT_WAIT_NS 5000000000L
int pl_take_from_dead(struct lockfile *l, const char *port, const char *device, int dead, char *err,
		      size_t errlen);

#endif
