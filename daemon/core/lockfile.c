/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lockfile.h"

/* mkdir -p of path's directories */
static int make_dirs(const char *path)
{
	char d[256];
	snprintf(d, sizeof(d), "%s", path);
	for (char *s = d + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(d, 0755) != 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	return 0;
}

static void read_text(int fd, char *out, size_t len)
{
	if (!len)
		return;
	ssize_t n = pread(fd, out, len - 1, 0);
	out[n > 0 ? n : 0] = 0;
}

int lockfile_take(struct lockfile *l, const char *path, const char *holder, char *held_by,
		  size_t held_len, char *err, size_t errlen)
{
	l->fd = -1;
	if (held_len)
		held_by[0] = 0;
	if (strlen(path) >= sizeof(l->path)) {
		snprintf(err, errlen, "lock file path too long: %s", path);
		return -ENAMETOOLONG;
	}
	snprintf(l->path, sizeof(l->path), "%s", path);
	int rc = make_dirs(path);
	if (rc < 0) {
		snprintf(err, errlen, "cannot make the directory of %s: %s", path, strerror(-rc));
		return rc;
	}
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return rc;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		rc = -errno;
		if (rc == -EWOULDBLOCK)
			read_text(fd, held_by, held_len);
		snprintf(err, errlen, "%s is held by another process%s", path,
			 rc == -EWOULDBLOCK ? "" : ": cannot lock it");
		close(fd);
		return rc;
	}
	/* ours now: say who holds it */
	size_t n = strlen(holder);
	if (ftruncate(fd, 0) != 0 || pwrite(fd, holder, n, 0) != (ssize_t)n) {
		rc = -errno;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		close(fd);
		return rc ? rc : -EIO;
	}
	l->fd = fd;
	return 0;
}

void lockfile_release(struct lockfile *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

void lockfile_field(const char *text, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	if (!len)
		return;
	out[0] = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ') {
			const char *v = p + kl + 1;
			size_t n = strcspn(v, "\n");
			snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), v);
			return;
		}
	}
}
