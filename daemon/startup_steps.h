/* SPDX-License-Identifier: BSD-3-Clause */
/* The start-up steps startup.c lists and startup_dpdk.c implements: each up
 * (0, or -1 said in the log) with its down. */
#ifndef TDP_STARTUP_STEPS_H
#define TDP_STARTUP_STEPS_H

#include "tdpd.h"

int startup_eal_up(struct tdpd *d);
void startup_eal_down(struct tdpd *d);
int startup_pool_up(struct tdpd *d);
void startup_pool_down(struct tdpd *d);
int startup_ports_up(struct tdpd *d);
void startup_ports_down(struct tdpd *d);

#endif
