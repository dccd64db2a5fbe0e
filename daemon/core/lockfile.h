/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A lock held for the life of a process: an exclusive flock(2) on a file,
 * taken without waiting and released by the kernel when the last descriptor
 * of it closes, so a process that dies, however it dies, lets go. The file
 * says who holds it (a few "key value" lines the holder writes), so the one
 * refused can name the holder. The file itself stays: removing a lock file
 * another process may be opening would let two hold "the same" lock.
 */
#ifndef TDP_LOCKFILE_H
#define TDP_LOCKFILE_H

#include <stddef.h>

struct lockfile {
	int fd; /* -1: not held */
	char path[256];
};

/* Creates the directories of path (mode 0755) and takes the lock, writing
 * holder (text) into the file. 0; -EWOULDBLOCK when another process holds it,
 * its file's text in held_by (cut to fit); another -errno when the file
 * cannot be made or locked, with err saying why. */
int lockfile_take(struct lockfile *l, const char *path, const char *holder, char *held_by,
		  size_t held_len, char *err, size_t errlen);
/* Closes it, which releases the lock. */
void lockfile_release(struct lockfile *l);
/* The value of KEY in a holder text ("key value" lines), or "" (cut to fit). */
void lockfile_field(const char *text, const char *key, char *out, size_t len);

#endif
