/* SPDX-License-Identifier: BSD-3-Clause */
/* tdpctl deploy's runs of tdpctl on each router (deploy_run.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl_proto.h"
#include "deploy_run.h"
#include "tdp_mono.h"

static size_t nwords(char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

void deploy_argv_free(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

/* a word a POSIX shell reads as itself, quoted only when it must be */
static void quote_word(FILE *o, const char *w)
{
	bool plain = *w != 0;
	for (const char *p = w; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,."
			    "/-",
			    *p))
			plain = false;
	if (plain) {
		fputs(w, o);
		return;
	}
	fputc('\'', o);
	for (const char *p = w; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", o);
		else
			fputc(*p, o);
	}
	fputc('\'', o);
}

char *deploy_quote(char *const *argv)
{
	char *s = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&s, &len);
	if (!o)
		return NULL;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', o);
		quote_word(o, argv[i]);
	}
	if (fclose(o) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

char *deploy_via(const struct plan_reach *r)
{
	char *s = NULL, *q = r->exec ? deploy_quote(r->exec) : NULL;
	int n;
	if (r->ssh)
		n = asprintf(&s, "ssh %s", r->ssh);
	else if (r->exec)
		n = q ? asprintf(&s, "exec %s", q) : -1;
	else
		n = asprintf(&s, "this host");
	free(q);
	return n < 0 ? NULL : s;
}

char **deploy_argv(const struct plan_reach *r, const char *self, char *const *ssh, int timeout_ms,
		   char *const *args)
{
	char tmo[16];
	snprintf(tmo, sizeof(tmo), "%d", timeout_ms);
	/* the tdpctl command itself */
	const char *tool = r->tdpctl ? r->tdpctl : r->ssh ? "tdpctl" : self;
	size_t na = nwords(args), nt = 0;
	const char **t = calloc(na + 8, sizeof(*t));
	if (!t)
		return NULL;
	t[nt++] = tool;
	t[nt++] = "--json";
	t[nt++] = "--timeout";
	t[nt++] = tmo;
	if (r->socket) {
		t[nt++] = "--socket";
		t[nt++] = r->socket;
	}
	for (size_t i = 0; i < na; i++)
		t[nt++] = args[i];
	/* then what runs it there */
	size_t np = r->ssh ? nwords(ssh) + 2 : nwords(r->exec) + nt, n = 0;
	char **v = calloc(np + 1, sizeof(*v)), *line = NULL;
	bool oom = !v;
	if (v && r->ssh) {
		for (size_t i = 0; ssh && ssh[i]; i++)
			oom |= !(v[n++] = strdup(ssh[i]));
		oom |= !(v[n++] = strdup(r->ssh));
		/* ssh hands the remote shell one line: every word quoted for it */
		oom |= !(v[n++] = line = deploy_quote((char *const *)t));
	} else if (v) {
		for (size_t i = 0; r->exec && r->exec[i]; i++)
			oom |= !(v[n++] = strdup(r->exec[i]));
		for (size_t i = 0; i < nt; i++)
			oom |= !(v[n++] = strdup(t[i]));
	}
	free(t);
	if (oom) {
		deploy_argv_free(v);
		return NULL;
	}
	return v;
}

int deploy_start(struct drun *d, char *const *argv, int in_fd)
{
	memset(d, 0, sizeof(*d));
	d->exit = -1;
	if (!argv || !(d->out = tmpfile()) || !(d->err = tmpfile())) {
		d->errtext = strdup(argv ? strerror(errno) : "out of memory");
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		d->errtext = strdup(strerror(errno));
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		int in = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY);
		if (in < 0 || dup2(in, 0) < 0 || dup2(fileno(d->out), 1) < 0 ||
		    dup2(fileno(d->err), 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* as the child does: no race with a kill at the deadline */
	d->pid = pid;
	return 0;
}

/* What a run wrote, to its first CTL_MAX_REPLY bytes: a router that answers
 * without end is cut off there (its reply then does not parse). */
static char *slurp(FILE *f)
{
	char *s = NULL;
	size_t len = 0, total = 0;
	FILE *o = open_memstream(&s, &len);
	if (!o)
		return NULL;
	rewind(f);
	char buf[4096];
	size_t r;
	while (total < CTL_MAX_REPLY && (r = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (r > CTL_MAX_REPLY - total)
			r = CTL_MAX_REPLY - total;
		fwrite(buf, 1, r, o);
		total += r;
	}
	if (fclose(o) != 0) {
		free(s);
		return NULL;
	}
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		s[--len] = 0;
	return s;
}

void deploy_wait(struct drun *d, size_t n, int timeout_ms)
{
	int64_t deadline = (tdp_mono_ns() / 1000000) + timeout_ms;
	for (;;) {
		size_t running = 0;
		for (size_t i = 0; i < n; i++) {
			int st;
			if (d[i].pid <= 0 || d[i].exit >= 0 || d[i].timed_out)
				continue;
			pid_t w = waitpid(d[i].pid, &st, WNOHANG);
			if (w == d[i].pid)
				d[i].exit = WIFEXITED(st)
						    ? WEXITSTATUS(st)
						    : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
			else if (w < 0 && errno != EINTR)
				d[i].exit = 127;
			else
				running++;
		}
		if (!running)
			break;
		if ((tdp_mono_ns() / 1000000) >= deadline) {
			for (size_t i = 0; i < n; i++)
				if (d[i].pid > 0 && d[i].exit < 0) {
					kill(-d[i].pid, SIGKILL);
					waitpid(d[i].pid, NULL, 0);
					d[i].timed_out = true;
				}
			break;
		}
		nanosleep(&(struct timespec){.tv_nsec = 5000000}, NULL);
	}
	for (size_t i = 0; i < n; i++) {
		if (d[i].pid <= 0)
			continue;
		char *out = slurp(d[i].out);
		free(d[i].errtext);
		d[i].errtext = slurp(d[i].err);
		d[i].json = out && *out ? json_loads(out, 0, NULL) : NULL;
		free(out);
	}
}

void deploy_drun_free(struct drun *d)
{
	if (d->out)
		fclose(d->out);
	if (d->err)
		fclose(d->err);
	json_decref(d->json);
	free(d->errtext);
	memset(d, 0, sizeof(*d));
	d->exit = -1;
}
