/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl deploy's plan directory read (deploy_state.h): its topology and each
 * router's table, every file a regular one of bounded size, opened without
 * waiting. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "deploy_run.h"
#include "deploy_state.h"
#include "tdpctl.h"

/* A file of the plan, opened without waiting: a regular file of at most max
 * bytes, or -1 with errno set and *why saying what it is instead (a FIFO
 * would hold the deploy, a device never end). */
int deploy_plan_file_fd(const char *path, uint64_t max, const char **why)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st = {0};
	*why = NULL;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > max) {
		int e = errno;
		*why = S_ISREG(st.st_mode) ? "larger than a plan's file can be"
					   : "not a regular file";
		close(fd);
		errno = S_ISREG(st.st_mode) ? EFBIG : e ? e : EINVAL;
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static int read_table(struct deploy_router *r)
{
	const char *why;
	int fd = deploy_plan_file_fd(r->table, SCHED_MAX_BYTES, &why);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (fd >= 0 && !f)
		close(fd);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = f ? open_memstream(&buf, &len) : NULL;
	char chunk[65536];
	size_t got;
	while (m && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, got, m);
	int bad = !f || !m || ferror(f);
	if (f)
		fclose(f);
	if (m && fclose(m) != 0)
		bad = 1;
	if (bad) {
		fprintf(stderr, "tdpctl deploy: %s: %s (the plan has a table for router %s)\n",
			r->table, why ? why : strerror(errno ? errno : EIO), r->name);
		free(buf);
		return -1;
	}
	sched_digest_bytes(buf, len, r->digest);
	struct sched_diags d;
	sched_diags_init(&d, r->table);
	struct sched_table *t = sched_parse(buf, len, &d);
	if (!t) {
		fprintf(stderr, "tdpctl deploy: %s:%u: %s\n", r->table, d.n ? d.v[0].line : 0,
			d.n ? d.v[0].msg : "not a table");
	} else {
		r->tf_ns = t->tf_ns;
		r->cycle_ns = t->tf_ns * t->k;
		r->epoch_ns = t->epoch_ns;
	}
	sched_free(t);
	sched_diags_free(&d);
	free(buf);
	return t ? 0 : -1;
}

/* DIR's topology: the routers with a table, each with its control line. */
int deploy_load_plan(struct deploy *dp, struct plan *pl)
{
	char *path = NULL;
	if (asprintf(&path, "%s/%s", dp->dir, PLAN_TOPOLOGY_FILE) < 0)
		return -1;
	const char *why;
	int fd = deploy_plan_file_fd(path, PLAN_MAX_BYTES, &why);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		fprintf(stderr, "tdpctl deploy: %s: %s (DIR is what tdpctl plan -o DIR wrote)\n",
			path, why ? why : strerror(errno));
		if (fd >= 0)
			close(fd);
		free(path);
		return -1;
	}
	pl->file = path;
	pl->overhead = 24;
	int rc = plan_read_stream(pl, f);
	fclose(f);
	if (rc == 0 && !(dp->r = calloc(pl->nnodes + 1, sizeof(*dp->r))))
		rc = -1;
	/* every router without a control line or a table is named, not the first only */
	for (uint32_t x = 0; dp->r && x < pl->nnodes; x++) {
		const struct node *nd = &pl->nodes[x];
		if (!nd->router || !plan_node_has_table(pl, x))
			continue;
		struct deploy_router *r = &dp->r[dp->n++];
		r->name = nd->name;
		r->reach = &nd->reach;
		r->result = "untouched";
		if (!nd->reach.line) {
			fprintf(stderr,
				"%s:%u: error: router %s has no control line (control %s socket "
				"PATH | ssh DEST | "
				"exec COMMAND...): tdpctl deploy cannot reach it\n",
				path, nd->line, nd->name, nd->name);
			rc = -1;
			continue;
		}
		if (asprintf(&r->table, "%s/%s.tdp", dp->dir, nd->name) < 0 ||
		    !(r->via = deploy_via(&nd->reach)) || read_table(r) != 0)
			rc = -1;
	}
	if (rc == 0 && !dp->n) {
		fprintf(stderr, "tdpctl deploy: %s: no router has a table in this plan\n", path);
		rc = -1;
	}
	for (uint32_t i = 1; rc == 0 && i < dp->n; i++)
		if (dp->r[i].tf_ns != dp->r[0].tf_ns || dp->r[i].epoch_ns != dp->r[0].epoch_ns) {
			fprintf(stderr,
				"tdpctl deploy: %s and %s differ in TF or epoch: the routers would "
				"count different "
				"frames (edited after the plan?)\n",
				dp->r[0].table, dp->r[i].table);
			rc = -1;
		}
	return rc;
}
