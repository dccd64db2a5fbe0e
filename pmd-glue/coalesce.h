/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Interrupt coalescing off on a kernel netdev (what `ethtool -C IF rx-usecs 0
 * rx-frames 1 tx-usecs 0 tx-frames 1 adaptive-rx off adaptive-tx off` does),
 * keeping the old settings so they can be put back at exit. No DPDK: tdpd
 * uses it on the netdevs behind its vdevs, tdp-probe on its own interface.
 */
#ifndef TDP_COALESCE_H
#define TDP_COALESCE_H

#include <stdbool.h>
#include <linux/ethtool.h>
#include <net/if.h>

struct coalesce_saved {
	char ifname[IFNAMSIZ];
	struct ethtool_coalesce old;
	bool changed; /* restore has something to put back */
};

/*
 * Returns 0 (s->changed tells whether anything was changed), or -errno:
 * -EOPNOTSUPP for devices without coalescing (veth, lo), -EPERM without
 * CAP_NET_ADMIN, -ENODEV for no such device.
 */
int coalesce_off(const char *ifname, struct coalesce_saved *s);
/* Reads the settings; *off when coalescing is already as coalesce_off leaves it. */
int coalesce_get(const char *ifname, struct ethtool_coalesce *ec, bool *off);
/* Puts the saved settings back; 0 or -errno. Does nothing unless changed. */
int coalesce_restore(struct coalesce_saved *s);
/* One line on the outcome of coalesce_off for logs and reports. */
void coalesce_describe(const struct coalesce_saved *s, int rc, char *buf, size_t len);

#endif
