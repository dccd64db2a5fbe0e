/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"
#include "kif.h"
#include "log.h"
#include "portlock.h"

/* what goes down the pipe: a port to watch, or the word that tdpd stopped */
enum {
	GM_ARM = 1,
	GM_END = 2
};
struct guard_msg {
	uint32_t op;
	char port[32];
	struct hp_port hp;
};

void hp_stop_port(const struct hp_port *hp, const char *port, int action, const char *what)
{
	if (hp->mode == RXH_NONE || !hp->dev_ifname[0])
		return; /* no kernel interface of its own (a PCI port: through DPDK) */
	if (action == HP_STOP_KERNEL) {
		log_notice("port %s: %s: interface %s left up to the kernel (stop-action kernel): "
			   "it forwards only "
			   "if its forwarding is on, and without reserved service",
			   port, what, hp->dev_ifname);
		return;
	}
	int rc = kif_set_flags(hp->dev_ifname, IFF_UP, false);
	if (rc < 0 && rc != -ENODEV)
		log_err("port %s: %s: cannot set interface %s down: %s; its neighbours may keep "
			"routing to this "
			"router",
			port, what, hp->dev_ifname, strerror(-rc));
	else if (rc == 0)
		log_notice("port %s: %s: interface %s set down (stop-action down), so its "
			   "neighbours see the router "
			   "gone",
			   port, what, hp->dev_ifname);
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return got ? (ssize_t)got : n;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* the guard's life: collect the ports, then wait for the end of the pipe */
static void __attribute__((noreturn)) guard_run(int fd, int action, pid_t parent)
{
	static struct guard_msg armed[64];
	uint32_t n = 0;
	struct guard_msg m;
	for (;;) {
		ssize_t r = read_full(fd, &m, sizeof(m));
		if (r == (ssize_t)sizeof(m) && m.op == GM_ARM) {
			if (n < sizeof(armed) / sizeof(armed[0]))
				armed[n++] = m;
			continue;
		}
		if (r == (ssize_t)sizeof(m) && m.op == GM_END)
			_exit(0);
		break; /* the pipe's end closed (or a torn message): tdpd is gone */
	}
	if (n)
		log_err("tdpd (pid %d) ended without stopping its ports: the guard releases them",
			(int)parent);
	char what[64];
	snprintf(what, sizeof(what), "tdpd (pid %d) died", (int)parent);
	static struct lockfile lk[64];
	for (uint32_t i = 0; i < n; i++) {
		struct hp_port *hp = &armed[i].hp;
		hp->x_open = false; /* its descriptors were tdpd's */
		armed[i].port[sizeof(armed[i].port) - 1] = 0;
		/* the port's lock first: a tdpd started since owns the port now */
		char err[600];
		int rc = pl_take_from_dead(&lk[i], armed[i].port, hp->device, (int)parent, err,
					   sizeof(err));
		if (rc != 0) {
			log_notice("port %s: %s; left to it", armed[i].port, err);
			continue;
		}
		hp_release(hp);
		hp_stop_port(hp, armed[i].port, action, what);
	}
	_exit(0); /* the locks go with the guard */
}

int hp_guard_start(struct hp_guard *g, int action, char *err, size_t errlen)
{
	int p[2];
	g->pid = 0;
	g->fd = -1;
	g->action = action;
	g->narmed = 0;
	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(err, errlen, "cannot make the guard's pipe: %s", strerror(errno));
		return -1;
	}
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot fork the guard: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		/* nothing of tdpd's but stderr and the pipe: no lock, no socket held on */
		for (int fd = 3; fd < 1024; fd++)
			if (fd != p[0])
				close(fd);
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		prctl(PR_SET_NAME, "tdpd-guard", 0, 0, 0);
		guard_run(p[0], action, parent);
	}
	close(p[0]);
	g->pid = pid;
	g->fd = p[1];
	return 0;
}

int hp_guard_arm(struct hp_guard *g, const struct hp_port *hp, const char *port)
{
	if (g->fd < 0)
		return -1;
	struct guard_msg m;
	memset(&m, 0, sizeof(m));
	m.op = GM_ARM;
	snprintf(m.port, sizeof(m.port), "%s", port);
	m.hp = *hp;
	if (write(g->fd, &m, sizeof(m)) != (ssize_t)sizeof(m)) {
		log_err("the guard (pid %d) is gone: a crash of tdpd would leave port %s's "
			"interface as it is",
			(int)g->pid, port);
		return -1;
	}
	g->narmed++;
	return 0;
}

void hp_guard_end(struct hp_guard *g)
{
	if (g->fd >= 0) {
		struct guard_msg m;
		memset(&m, 0, sizeof(m));
		m.op = GM_END;
		if (write(g->fd, &m, sizeof(m)) != (ssize_t)sizeof(m))
			log_warn("the guard (pid %d) was gone before tdpd stopped", (int)g->pid);
		close(g->fd);
		g->fd = -1;
	}
	if (g->pid > 0)
		while (waitpid(g->pid, NULL, 0) < 0 && errno == EINTR)
			;
	g->pid = 0;
}
