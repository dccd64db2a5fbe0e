/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * schedule-load off the control thread (control.h). Reading a passed table
 * may wait (a FIFO, a slow disk) and parsing, admitting and building it take
 * time in proportion to the table; the control thread must keep answering
 * every other client meanwhile. So the control thread checks the request and
 * hands the descriptor to the loader thread, which reads, parses, admits and
 * builds; the control thread then offers the built table to the engine (or
 * answers with what was wrong). One load at a time: another is "busy".
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

#define CTL_TABLE_READ_MS 5000    /* a client has this long to pass the whole table */
#define CTL_MAX_AHEAD_S 86400     /* a table is loaded for a time at most a day ahead */

struct ctl_load {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int efd;                  /* readable: a result is waiting for the control thread */
	bool quit;
	bool busy;                /* a job is out, until the control thread has its result */
	bool job;                 /* the loader has a job to start */
	/* the job */
	int fd, slot;
	char name[256];
	json_t *args;
	bool stage;               /* schedule-stage: kept under an id, not offered */
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
	int64_t deadline = control_mono_ns() + (int64_t)CTL_TABLE_READ_MS * 1000000;
	while (buf) {
		if (n + 1 >= cap) {
			if (cap > SCHED_MAX_BYTES) {
				snprintf(err, errlen, "the table is larger than %u MiB", SCHED_MAX_BYTES >> 20);
				free(buf);
				return NULL;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		int64_t left = (deadline - control_mono_ns()) / 1000000;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (left <= 0 || poll(&p, 1, (int)left) == 0) {
			snprintf(err, errlen, "the table did not arrive within %d ms", CTL_TABLE_READ_MS);
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
		json_array_append_new(a, json_pack("{ss si si ss ss}", "file", name, "line", (int)dg->v[i].line, "col",
						   (int)dg->v[i].col, "severity", sev[dg->v[i].sev], "message",
						   dg->v[i].msg));
	return a;
}

/* What a frame of table t may hold: the box's limits, each of t's ports'
 * TX ring and MTU now (found by name: t's ports need not be in the order of
 * the table tdpd started with). */
static void fit_for(const struct control *c, const struct sched_table *t, struct sched_fit *f, uint32_t *txd,
		    uint32_t *mtu)
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
	char *buf = read_passed(fd, &len, err, sizeof(err));
	if (!buf) {
		*reply = control_reply_err("bad-args", "%s: %s", name, err);
		return NULL;
	}
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
		json_t *o = json_pack("{si sb ss ss so si}", "version", CTL_VERSION, "ok", 0, "code", "invalid-table",
				      "error", "", "diagnostics", diags_json(&dg, name), "errors", (int)dg.nerr);
		char msg[640];
		snprintf(msg, sizeof(msg), "%s: %zu error%s; the table in force (%s) stays", name, dg.nerr,
			 dg.nerr == 1 ? "" : "s", c->cur->name);
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
	struct eng_table *et = engine_table_build(c->e, t, err, sizeof(err));
	if (!et) {
		log_warn("schedule load: %s: %s; the table in force stays", name, err);
		sched_free(t);
		*reply = control_reply_err("invalid-table", "%s: %s; the table in force (%s) stays", name, err,
					   c->cur->name);
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
			log_err("control: cannot wake the control thread (eventfd): %s", strerror(errno));
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

char *control_offer(struct control *c, struct dtable *nt, json_t *args, int64_t started_ns, bool *wait)
{
	char err[512];
	struct eng_table *et = nt->et;
	json_t *at_j = json_object_get(args, "at_tai_ns"), *in_j = json_object_get(args, "in_ns");
	const struct frame_geom *g = engine_geom(c->e);
	int64_t next = engine_next_frame(c->e), from = next + 2;
	nt->asked_tai_ns = 0;
	if (at_j || in_j) {
		/* "in" counts from the request, not from the end of the load */
		int64_t in_ns = in_j ? json_integer_value(in_j) - (control_mono_ns() - started_ns) : 0;
		tdp_time_t when = {.ns = at_j ? json_integer_value(at_j) : tb_now(c->tb).ns + in_ns};
		int64_t j = frame_index(g, when);
		if (frame_start(g, j).ns < when.ns)
			j++;
		if (j < from) {
			c->rejected++;
			return control_reply_err("too-late", "TAI %" PRId64 " ns is frame %" PRId64 ", but the engine is at frame %"
					 PRId64 " (TAI %" PRId64 " ns): a table is adopted at least 2 frames ahead",
					 when.ns, j, next, tb_now(c->tb).ns);
		}
		from = j;
		nt->asked_tai_ns = when.ns;
	}
	int64_t J = engine_table_boundary(c->e, et, from);
	if (engine_table_offer(c->e, et, J, err, sizeof(err)) != 0) {
		c->rejected++;
		return control_reply_err("too-late", "%s", err);
	}
	c->pending = nt;
	c->rx_offered = false;
	const struct sched_table *t = engine_table_sched(et);
	log_notice("schedule: %s (k %u, %u flows) accepted; adopted at frame %" PRId64 " (TAI %" PRId64 " ns)",
		   nt->name, t->k, t->nflows, J, frame_start(g, J).ns);
	json_t *w = json_object_get(args, "wait");
	if (!w || json_is_true(w)) {
		*wait = true;
		return NULL;
	}
	json_t *o = json_pack("{ss sI sI sb ss}", "table", nt->name, "requested_frame", (json_int_t)J, "start_tai_ns",
			      (json_int_t)frame_start(g, J).ns, "waiting", 1, "digest", nt->digest);
	if (o && nt->asked_tai_ns)
		json_object_set_new(o, "asked_tai_ns", json_integer(nt->asked_tai_ns));
	return control_reply_ok(o);
}

/* A load whose table was built: offered, or dropped with the reply that says
 * why not. */
static char *offer(struct control *c, struct ctl_load *l, struct eng_table *et, bool *wait)
{
	struct dtable *nt = dtable_new(et, l->name, TS_VIA_LOAD);
	if (!nt) {
		engine_table_discard(c->e, et);
		return control_reply_err("internal", "out of memory");
	}
	char *reply = control_offer(c, nt, l->args, l->started_ns, wait);
	if (reply && !*wait && c->pending != nt) {
		engine_table_discard(c->e, et);
		dtable_free(nt);
	}
	return reply;
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
	bool wait = false;
	if (!et)
		c->rejected++;
	else if (l->stage)
		reply = control_stage_keep(c, et, l->name, l->args);
	else
		reply = offer(c, l, et, &wait);
	json_decref(l->args);
	l->args = NULL;
	l->slot = -1;
	l->busy = false;
	if (wait) {
		c->waiter = slot;
		return;
	}
	control_answer(c, &slot, reply ? reply : control_reply_err("internal", "out of memory"));
}

char *control_when_check(struct control *c, json_t *args)
{
	json_t *at_j = json_object_get(args, "at_tai_ns"), *in_j = json_object_get(args, "in_ns");
	if ((at_j && !json_is_integer(at_j)) || (in_j && !json_is_integer(in_j)) || (at_j && in_j))
		return control_reply_err("bad-args", "at_tai_ns or in_ns, as an integer number of nanoseconds, not both");
	/* at most CTL_MAX_AHEAD_S ahead: a table waiting for years would make every
	 * load busy (schedule-cancel withdraws one), and now + in must not overflow */
	int64_t now_ns = tb_now(c->tb).ns, max_ahead = (int64_t)CTL_MAX_AHEAD_S * TDP_NS_PER_S;
	int64_t at = at_j ? json_integer_value(at_j) : 0, in = in_j ? json_integer_value(in_j) : 0;
	if ((at_j && (at < 0 || (at > now_ns && at - now_ns > max_ahead))) || (in_j && (in < 0 || in > max_ahead)))
		return control_reply_err("bad-args", "a table is loaded for a time from now to %d s ahead (TAI %" PRId64
				 " ns now); a time further ahead or before the epoch is refused", CTL_MAX_AHEAD_S, now_ns);
	return NULL;
}

char *control_load_submit(struct control *c, json_t *args, int fd, int slot, bool stage, bool *defer)
{
	struct ctl_load *l = c->load;
	const char *what = stage ? "schedule-stage" : "schedule-load";
	if (fd < 0)
		return control_reply_err("bad-args", "%s needs the table's file descriptor passed with the request", what);
	if (c->staged)
		return control_reply_err("busy", "table %s is staged as %" PRIu64 "; commit or abort it first",
				 c->staged->name, c->staged_id);
	if (c->pending)
		return control_reply_err("busy", "table %s is waiting to be adopted at frame %" PRId64 "; load again after it",
				 c->pending->name, engine_table_requested(c->pending->et));
	if (!l)
		return control_reply_err("internal", "the table loader is not running");
	if (l->busy)
		return control_reply_err("busy", "table %s is being read and checked (for %.1f s); load again after it",
				 l->name, (double)(control_mono_ns() - l->started_ns) / 1e9);
	json_t *at_j = json_object_get(args, "at_tai_ns"), *in_j = json_object_get(args, "in_ns");
	if (stage && (at_j || in_j))
		return control_reply_err("bad-args", "a staged table is given its time by schedule-commit, not by the stage");
	json_t *ttl_j = json_object_get(args, "ttl_ms");
	if (stage && ttl_j && (!json_is_integer(ttl_j) || json_integer_value(ttl_j) < 1 ||
			       json_integer_value(ttl_j) > (json_int_t)CTL_STAGE_MAX_TTL_S * 1000))
		return control_reply_err("bad-args", "ttl_ms is how long the table stays staged: 1 ms to %d s",
				 CTL_STAGE_MAX_TTL_S);
	char *bad = control_when_check(c, args);
	if (bad)
		return bad;
	int own = dup(fd);
	if (own < 0)
		return control_reply_err("internal", "the passed descriptor: %s", strerror(errno));
	/* the client's name for the table goes into logs and replies: one line */
	const char *given = json_string_value(json_object_get(args, "name"));
	c->loads++;
	pthread_mutex_lock(&l->mu);
	control_text_copy(l->name, sizeof(l->name), given && *given ? given : "(passed table)");
	l->fd = own;
	l->slot = slot;
	l->args = json_incref(args);
	l->stage = stage;
	l->started_ns = control_mono_ns();
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
		engine_table_discard(c->e, l->et);
	free(l->reply);
	if (l->slot >= 0)
		control_answer(c, &l->slot, control_reply_err("busy", "tdpd is stopping; %s was not loaded", l->name));
	json_decref(l->args);
	close(l->efd);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
	free(l);
	c->load = NULL;
}
