/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which host path a port gets (hostpath.h), decided from tdpd.conf alone, so
 * that --check can refuse an impossible choice before anything starts.
 */
#ifndef TDP_HPMODE_H
#define TDP_HPMODE_H

#include <net/if.h>
#include <stddef.h>

/* host-path in tdpd.conf */
enum hp_path {
	HP_AUTO,
	HP_TAP,
	HP_NONE
};
/* stop-action in tdpd.conf: what the ports' kernel interfaces become when
 * tdpd stops or dies (guard.h) */
enum hp_stop {
	HP_STOP_DOWN,
	HP_STOP_KERNEL
};

/* What a port gets for path (HP_*) on device: *mode, an enum rx_host, and
 * for RXH_TAP the exception interface's name (interface, else "tdp-" and
 * the port's name). 0, or -1 with err (an impossible choice, a bad or too
 * long name). */
int hp_mode_for(const char *port, const char *device, int path, const char *interface, int *mode,
		char name[IF_NAMESIZE], char *err, size_t errlen);
/* The value of NAME= among a device string's arguments, or "" (cut to fit). */
void hp_devarg(const char *device, const char *name, char *out, size_t len);

#endif
