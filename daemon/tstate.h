/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table in force, kept under the state directory (state-directory,
 * systemd's StateDirectory=tdpd), so that a restart resumes what the network
 * runs. Every table that comes into force is written there: its text as
 * tables/DIGEST.tdp, then the record `in-force` (digest, how it came, its
 * name, the frame from which it was in force), each written to a temporary
 * file, synced and renamed into place, the record last: a stop at any moment
 * leaves the old record or the new one, each naming a whole table. The
 * directory is locked for the life of the tdpd that writes it (lockfile.h).
 */
#ifndef TDP_TSTATE_H
#define TDP_TSTATE_H

#include <stdint.h>

#include "lockfile.h"
#include "tdp_sched.h"

/* how a table came into force (tstate_rec.via, the control replies' "origin") */
#define TS_VIA_CONFIG "tdpd.conf"
#define TS_VIA_LOAD "schedule load"
#define TS_VIA_COMMIT "schedule commit"

struct tstate_rec {
	char digest[SCHED_DIGEST_HEX];
	char via[32];	/* TS_VIA_* */
	char name[256]; /* the table's name as it was loaded (a path, or a name given) */
	int64_t frame;	/* the first frame it was in force */
	int64_t saved_unix_s;
	char path[512]; /* where its text is (tstate_read) */
};

struct tstate {
	char dir[256];
	struct lockfile lock;
};

/* Makes the directory (and tables/) and takes its lock. 0, or -1 with err
 * (another tdpd holds it: named). */
int tstate_open(struct tstate *s, const char *dir, const char *control_socket, char *err,
		size_t errlen);
void tstate_close(struct tstate *s);
/* The record in dir (no lock needed to read). 0; 1 when there is none; -1
 * with err (unreadable, or its table missing or not the digest it says). */
int tstate_read(const char *dir, struct tstate_rec *r, char *err, size_t errlen);
/* Writes t's text and the record r (digest and path filled in here). Tables
 * other than this one and the one it replaces are removed. 0, or -1 with err. */
int tstate_save(struct tstate *s, const struct sched_table *t, struct tstate_rec *r, char *err,
		size_t errlen);

#endif
