/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A stopped or dead tdpd looks gone. When tdpd stops, its ports' kernel
 * interfaces take the stop action (stop-action in tdpd.conf):
 *  - down: the interface is set down, so the link's far end loses carrier
 *    and its routing protocols withdraw this router at once (on veth and on
 *    most NICs; a PCI port bound to DPDK is set down through DPDK at a clean
 *    stop, and after a crash its neighbours see the router's hellos stop);
 *  - kernel: the interface stays up, tdpd's XDP program gone and the IPv4
 *    forwarding switch as it was: the kernel forwards, with no reserved
 *    service (frames are no longer timed), if its forwarding is on.
 * A clean stop takes the action itself (hp_stop_port). For a death that runs
 * no code of tdpd's (SIGKILL, a crash), tdpd forks a guard at start, before
 * any thread, holding the read end of a pipe: when tdpd's end closes without
 * the word that it stopped, the guard releases each port as tdpd would have
 * (its XDP program, promiscuous flag, queue count, forwarding switch) and
 * takes the stop action, logs it, and exits. The guard ignores SIGINT,
 * SIGTERM and SIGHUP, which a terminal or systemd sends the whole group.
 */
#ifndef TDP_GUARD_H
#define TDP_GUARD_H

#include <stdint.h>
#include <sys/types.h>

#include "hostpath.h"
#include "hpmode.h"

struct hp_guard {
	pid_t pid;  /* 0: none */
	int fd;	    /* the write end; -1: none */
	int action; /* enum hp_stop */
	uint32_t narmed;
};

/* The stop action on one port's kernel interface (after hp_release); logs
 * what it did, as "what" says (the clean stop, or the guard). */
void hp_stop_port(const struct hp_port *hp, const char *port, int action, const char *what);
/* Forks the guard. Call before any thread is started. 0 or -1 with err. */
int hp_guard_start(struct hp_guard *g, int action, char *err, size_t errlen);
/* Hands it port's kernel interface, prepared (hp_prepare): from now on it
 * acts on it if tdpd dies. 0 or -1 (the guard is gone: logged). */
int hp_guard_arm(struct hp_guard *g, const struct hp_port *hp, const char *port);
/* tdpd stops: the guard exits without acting, and is waited for. */
void hp_guard_end(struct hp_guard *g);

#endif
