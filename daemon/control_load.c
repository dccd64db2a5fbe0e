/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * schedule-load off the control thread (control.h). Reading a passed table
 * may wait (a FIFO, a slow disk) and parsing, admitting and building it take
 * time in proportion to the table; the control thread must keep answering
 * every other client meanwhile. So the control thread checks the request and
 * hands the descriptor to the loader thread, which reads, parses, admits and
 * builds; the control thread then hands the built table to the table manager
 * (tables.h), which offers or stages it (or answers with what was wrong). One load at a time: another is "busy".
 *
 * The engine's table in force cannot change while the loader builds against
 * it: swaps come only from offers, a load starts only when nothing is offered,
 * and the next offer is this load's, made on the control thread after it.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "control.h"
#include "ctl_proto.h"
#include "frame.h"
#include "log.h"

#define CTL_TABLE_READ_MS 5000 /* a client has this long to pass the whole table */

struct ctl_load {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int efd; /* readable: a result is waiting for the control thread */
	bool quit;
	bool busy; /* a job is out, until the control thread has its result */
	bool job;  /* the loader has a job to start */
	/* the job */
	int fd, slot;
	char name[256];
	json_t *args;
	bool stage; /* schedule-stage: kept under an id, not offered */
	int64_t started_ns;
	/* its result: a table built, or the reply that says why not */
	struct eng_table *et;
	char *reply;
};

/* Reads what a client passed; bounded in size and time. */
static char *read_passed(int fd, size_t *len, char *err, size_t errlen)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	int64_t deadline = tdp_mono_ns() + (int64_t)CTL_TABLE_READ_MS * 1000000;
	while (buf) {
		if (n + 1 >= cap) {
			if (cap > SCHED_MAX_BYTES) {
				snprintf(err, errlen, "the table is larger than %u MiB",
					 SCHED_MAX_BYTES >> 20);
				free(buf);
				return NULL;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		int64_t left = (deadline - tdp_mono_ns()) / 1000000;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (left <= 0 || poll(&p, 1, (int)left) == 0) {
			snprintf(err, errlen, "the table did not arrive within %d ms",
				 CTL_TABLE_READ_MS);
			free(buf);
			return NULL;
		}
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "reading the table: %s", strerror(errno));
			free(buf);
			return NULL;
		}
		if (r == 0) {
			buf[n] = 0;
			*len = n;
			return buf;
		}
		n += (size_t)r;
	}
	snprintf(err, errlen, "out of memory for the table");
	return NULL;
}

static json_t *diags_json(const struct sched_diags *dg, const char *name)
{
	json_t *a = json_array();
	static const char *const sev[] = {"error", "warning", "note"};
	for (size_t i = 0; i < dg->n; i++)
		json_array_append_new(a, json_pack("{ss si si ss ss}", "file", name, "line",
						   (int)dg->v[i].line, "col", (int)dg->v[i].col,
						   "severity", sev[dg->v[i].sev], "message",
						   dg->v[i].msg));
	return a;
}

/* What a frame of table t may hold: the box's limits, each of t's ports'
 * TX ring and MTU now (found by name: t's ports need not be in the order of
 * the table tdpd started with). */
static void fit_for(const struct control *c, const struct sched_table *t, struct sched_fit *f,
		    uint32_t *txd, uint32_t *mtu)
{
	*f = *c->fit;
	for (uint32_t tp = 0; tp < t->nports; tp++) {
		txd[tp] = mtu[tp] = 0;
		for (uint32_t p = 0; p < c->nports; p++)
			if (!strcmp(c->ports[p].name, t->ports[tp].name)) {
				txd[tp] = c->ports[p].txd;
				mtu[tp] = c->ports[p].link ? PL_GET(c->ports[p].link->mtu) : 0;
			}
	}
	f->tx_desc = txd;
	f->mtu = mtu;
}

/* The loader's work: the table built, or the reply that says why not. Reads
 * only what the control thread does not change while a load is out. */
static struct eng_table *load(struct control *c, const char *name, int fd, char **reply)
{
	char err[512];
	size_t len = 0;
	int64_t t0 = tdp_mono_ns();
	char *buf = read_passed(fd, &len, err, sizeof(err));
	if (!buf) {
		*reply = control_reply_err("bad-args", "%s: %s", name, err);
		return NULL;
	}
	int64_t t1 = tdp_mono_ns();
	struct sched_diags dg;
	sched_diags_init(&dg, name);
	struct sched_table *t = sched_parse(buf, len, &dg);
	free(buf);
	if (t)
		sched_admit(t, &dg);
	if (t && c->fit) {
		struct sched_fit f;
		uint32_t txd[SCHED_MAX_PORTS], mtu[SCHED_MAX_PORTS];
		fit_for(c, t, &f, txd, mtu);
		sched_fit(t, &f, &dg);
	}
	if (!t || dg.nerr) {
		json_t *o = json_pack("{si sb ss ss so si}", "version", CTL_VERSION, "ok", 0,
				      "code", "invalid-table", "error", "", "diagnostics",
				      diags_json(&dg, name), "errors", (int)dg.nerr);
		char msg[640];
		snprintf(msg, sizeof(msg), "%s: %zu error%s; the table in force (%s) stays", name,
			 dg.nerr, dg.nerr == 1 ? "" : "s", c->tm.cur->name);
		json_object_set_new(o, "error", json_string(msg));
		log_warn("schedule load: %s", msg);
		sched_diags_free(&dg);
		sched_free(t);
		*reply = control_dump_line(o);
		return NULL;
	}
	for (size_t i = 0; i < dg.n; i++)
		if (dg.v[i].sev == SCHED_WARNING)
			log_warn("schedule load: %s:%u: %s", name, dg.v[i].line, dg.v[i].msg);
	sched_diags_free(&dg);
	int64_t t2 = tdp_mono_ns();
	struct eng_table *et = engine_table_build(c->tm.e, t, err, sizeof(err));
	int64_t t3 = tdp_mono_ns();
	/* a table of 10^6 flows takes seconds: where they went */
	log_info("schedule load: %s: %zu bytes read in %.3f s, parsed and checked in %.3f s, "
		 "the engine's state built in %.3f s",
		 name, len, (double)(t1 - t0) / 1e9, (double)(t2 - t1) / 1e9,
		 (double)(t3 - t2) / 1e9);
	if (!et) {
		log_warn("schedule load: %s: %s; the table in force stays", name, err);
		sched_free(t);
		*reply = control_reply_err("invalid-table", "%s: %s; the table in force (%s) stays",
					   name, err, c->tm.cur->name);
	}
	return et;
}

static void *loader(void *arg)
{
	struct control *c = arg;
	struct ctl_load *l = c->load;
	pthread_mutex_lock(&l->mu);
	for (;;) {
		while (!l->job && !l->quit)
			pthread_cond_wait(&l->cv, &l->mu);
		if (!l->job)
			break;
		l->job = false;
		pthread_mutex_unlock(&l->mu);
		char *reply = NULL;
		struct eng_table *et = load(c, l->name, l->fd, &reply);
		close(l->fd);
		pthread_mutex_lock(&l->mu);
		l->fd = -1;
		l->et = et;
		l->reply = reply;
		uint64_t one = 1;
		if (write(l->efd, &one, sizeof(one)) != sizeof(one))
			log_err("control: cannot wake the control thread (eventfd): %s",
				strerror(errno));
	}
	pthread_mutex_unlock(&l->mu);
	return NULL;
}

int control_load_start(struct control *c, char *err, size_t errlen)
{
	struct ctl_load *l = calloc(1, sizeof(*l));
	if (!l) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	l->fd = l->slot = -1;
	l->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->efd < 0) {
		snprintf(err, errlen, "control: eventfd: %s", strerror(errno));
		free(l);
		return -1;
	}
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	c->load = l;
	int rc = pthread_create(&l->th, NULL, loader, c);
	if (rc) {
		snprintf(err, errlen, "table loader thread: %s", strerror(rc));
		close(l->efd);
		free(l);
		c->load = NULL;
		return -1;
	}
	pthread_setname_np(l->th, "tdpd-load");
	return 0;
}

int control_load_fd(const struct control *c)
{
	return c->load ? c->load->efd : -1;
}

void control_load_finish(struct control *c)
{
	struct ctl_load *l = c->load;
	uint64_t v;
	if (!l || read(l->efd, &v, sizeof(v)) != sizeof(v))
		return;
	pthread_mutex_lock(&l->mu);
	struct eng_table *et = l->et;
	char *reply = l->reply;
	l->et = NULL;
	l->reply = NULL;
	pthread_mutex_unlock(&l->mu);
	int slot = l->slot;
	bool defer = false;
	reply = tables_built(&c->tm, et, reply, l->name, l->args, l->stage, l->started_ns, slot,
			     &defer);
	json_decref(l->args);
	l->args = NULL;
	l->slot = -1;
	l->busy = false;
	if (!defer)
		control_answer(c, &slot,
			       reply ? reply : control_reply_err("internal", "out of memory"));
}

char *control_load_submit(struct control *c, json_t *args, int fd, int slot, bool stage,
			  bool *defer)
{
	struct ctl_load *l = c->load;
	const char *what = stage ? "schedule-stage" : "schedule-load";
	if (fd < 0)
		return control_reply_err(
			"bad-args", "%s needs the table's file descriptor passed with the request",
			what);
	char *busy = tables_busy(&c->tm);
	if (busy)
		return busy;
	if (!l)
		return control_reply_err("internal", "the table loader is not running");
	if (l->busy)
		return control_reply_err(
			"busy",
			"table %s is being read and checked (for %.1f s); load again after it",
			l->name, (double)(tdp_mono_ns() - l->started_ns) / 1e9);
	json_t *at_j = json_object_get(args, "at_tai_ns"), *in_j = json_object_get(args, "in_ns");
	if (stage && (at_j || in_j))
		return control_reply_err(
			"bad-args",
			"a staged table is given its time by schedule-commit, not by the stage");
	json_t *ttl_j = json_object_get(args, "ttl_ms");
	if (stage && ttl_j &&
	    (!json_is_integer(ttl_j) || json_integer_value(ttl_j) < 1 ||
	     json_integer_value(ttl_j) > (json_int_t)CTL_STAGE_MAX_TTL_S * 1000))
		return control_reply_err("bad-args",
					 "ttl_ms is how long the table stays staged: 1 ms to %d s",
					 CTL_STAGE_MAX_TTL_S);
	char *bad = tables_when_check(&c->tm, args);
	if (bad)
		return bad;
	int own = dup(fd);
	if (own < 0)
		return control_reply_err("internal", "the passed descriptor: %s", strerror(errno));
	/* the client's name for the table goes into logs and replies: one line */
	const char *given = json_string_value(json_object_get(args, "name"));
	c->tm.loads++;
	pthread_mutex_lock(&l->mu);
	control_text_copy(l->name, sizeof(l->name), given && *given ? given : "(passed table)");
	l->fd = own;
	l->slot = slot;
	l->args = json_incref(args);
	l->stage = stage;
	l->started_ns = tdp_mono_ns();
	l->busy = l->job = true;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	*defer = true;
	return NULL;
}

void control_load_stop(struct control *c)
{
	struct ctl_load *l = c->load;
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->quit = true;
	pthread_cond_signal(&l->cv);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->th, NULL);
	/* a load that finished after the control thread stopped: nothing was offered */
	if (l->et)
		engine_table_discard(c->tm.e, l->et);
	free(l->reply);
	if (l->slot >= 0)
		control_answer(
			c, &l->slot,
			control_reply_err("busy", "tdpd is stopping; %s was not loaded", l->name));
	json_decref(l->args);
	close(l->efd);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
	free(l);
	c->load = NULL;
}
