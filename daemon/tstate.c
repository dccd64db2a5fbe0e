/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tstate.h"

#define REC "in-force"

int tstate_open(struct tstate *s, const char *dir, const char *control_socket, char *err,
		size_t errlen)
{
	char path[300], holder[400], held[400], e[300];
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	s->lock.fd = -1;
	snprintf(path, sizeof(path), "%s/tables", dir);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "state-directory %s: %s", dir, strerror(errno));
		return -1;
	}
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "state-directory %s: %s: %s", dir, path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/lock", dir);
	snprintf(holder, sizeof(holder), "pid %d\ncontrol-socket %s\n", (int)getpid(),
		 control_socket);
	int rc = lockfile_take(&s->lock, path, holder, held, sizeof(held), e, sizeof(e));
	if (rc == -EWOULDBLOCK) {
		char pid[16], sock[256];
		lockfile_field(held, "pid", pid, sizeof(pid));
		lockfile_field(held, "control-socket", sock, sizeof(sock));
		snprintf(err, errlen,
			 "state-directory %s belongs to a running tdpd (pid %s, control socket "
			 "%s): give "
			 "each tdpd its own",
			 dir, pid[0] ? pid : "?", sock[0] ? sock : "?");
		return -1;
	}
	if (rc < 0) {
		snprintf(err, errlen, "state-directory %s: %s", dir, e);
		return -1;
	}
	return 0;
}

void tstate_close(struct tstate *s)
{
	lockfile_release(&s->lock);
}

/* writes buf to path through path.tmp: written, synced, renamed */
static int write_atomic(const char *path, const void *buf, size_t len, char *err, size_t errlen)
{
	char tmp[600];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	ssize_t n = write(fd, buf, len);
	int e = n == (ssize_t)len ? 0 : n < 0 ? errno : ENOSPC;
	if (!e && fsync(fd) != 0)
		e = errno;
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) != 0)
		e = errno;
	if (e) {
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -1;
	}
	return 0;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

static void field(const char *text, const char *key, char *out, size_t len)
{
	lockfile_field(text, key, out, len);
}

int tstate_read(const char *dir, struct tstate_rec *r, char *err, size_t errlen)
{
	char path[600], text[2048], v[64];
	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/" REC, dir);
	FILE *f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = 0;
	fclose(f);
	field(text, "digest", r->digest, sizeof(r->digest));
	field(text, "via", r->via, sizeof(r->via));
	field(text, "name", r->name, sizeof(r->name));
	field(text, "frame", v, sizeof(v));
	r->frame = strtoll(v, NULL, 10);
	field(text, "saved", v, sizeof(v));
	r->saved_unix_s = strtoll(v, NULL, 10);
	if (strlen(r->digest) != SCHED_DIGEST_HEX - 1 ||
	    strspn(r->digest, "0123456789abcdef") != SCHED_DIGEST_HEX - 1 || !r->via[0]) {
		snprintf(err, errlen,
			 "%s: not a record of a table in force (digest and via expected)", path);
		return -1;
	}
	snprintf(r->path, sizeof(r->path), "%s/tables/%s.tdp", dir, r->digest);
	return 0;
}

/* removes tables/ files but keep and keep2 */
static void prune(const char *dir, const char *keep, const char *keep2)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/tables", dir);
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l != SCHED_DIGEST_HEX - 1 + 4 || strcmp(e->d_name + l - 4, ".tdp") != 0)
			continue;
		if (!strncmp(e->d_name, keep, SCHED_DIGEST_HEX - 1) ||
		    (keep2[0] && !strncmp(e->d_name, keep2, SCHED_DIGEST_HEX - 1)))
			continue;
		snprintf(path, sizeof(path), "%s/tables/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
}

int tstate_save(struct tstate *s, const struct sched_table *t, struct tstate_rec *r, char *err,
		size_t errlen)
{
	struct tstate_rec old;
	char e[8], path[600], tdir[300];
	if (tstate_read(s->dir, &old, e, sizeof(e)) != 0)
		old.digest[0] = 0;
	sched_digest(t, r->digest);
	r->saved_unix_s = (int64_t)time(NULL);
	snprintf(tdir, sizeof(tdir), "%s/tables", s->dir);
	snprintf(r->path, sizeof(r->path), "%s/%s.tdp", tdir, r->digest);
	if (write_atomic(r->path, t->src ? t->src : "", t->src ? t->src_len : 0, err, errlen) != 0)
		return -1;
	sync_dir(tdir);
	char text[1024];
	/* a name is one line */
	char name[256];
	snprintf(name, sizeof(name), "%s", r->name);
	for (char *q = name; *q; q++)
		if (*q == '\n' || *q == '\r')
			*q = ' ';
	int n = snprintf(text, sizeof(text),
			 "# the table tdpd had in force; tdpd writes this file, a restart resumes "
			 "the table\n"
			 "digest %s\nvia %s\nname %s\nframe %" PRId64 "\nsaved %" PRId64 "\n",
			 r->digest, r->via, name, r->frame, r->saved_unix_s);
	snprintf(path, sizeof(path), "%s/" REC, s->dir);
	if (write_atomic(path, text, (size_t)n, err, errlen) != 0)
		return -1;
	sync_dir(s->dir);
	prune(s->dir, r->digest, old.digest);
	return 0;
}
