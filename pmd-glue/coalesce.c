/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coalesce.h"

static int ethtool(const char *ifname, struct ethtool_coalesce *ec)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)ec;
	int rc = ioctl(fd, SIOCETHTOOL, &ifr) == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

static bool is_off(const struct ethtool_coalesce *e)
{
	return e->rx_coalesce_usecs == 0 && e->rx_max_coalesced_frames <= 1 &&
	       e->tx_coalesce_usecs == 0 && e->tx_max_coalesced_frames <= 1 &&
	       !e->use_adaptive_rx_coalesce && !e->use_adaptive_tx_coalesce;
}

int coalesce_get(const char *ifname, struct ethtool_coalesce *ec, bool *off)
{
	if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	memset(ec, 0, sizeof(*ec));
	ec->cmd = ETHTOOL_GCOALESCE;
	int rc = ethtool(ifname, ec);
	if (rc == 0)
		*off = is_off(ec);
	return rc;
}

int coalesce_off(const char *ifname, struct coalesce_saved *s)
{
	memset(s, 0, sizeof(*s));
	if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	snprintf(s->ifname, sizeof(s->ifname), "%s", ifname);
	s->old.cmd = ETHTOOL_GCOALESCE;
	int rc = ethtool(ifname, &s->old);
	if (rc)
		return rc;
	if (is_off(&s->old))
		return 0;
	struct ethtool_coalesce ec = s->old;
	ec.cmd = ETHTOOL_SCOALESCE;
	ec.rx_coalesce_usecs = 0;
	ec.rx_max_coalesced_frames = 1;
	ec.tx_coalesce_usecs = 0;
	ec.tx_max_coalesced_frames = 1;
	ec.use_adaptive_rx_coalesce = 0;
	ec.use_adaptive_tx_coalesce = 0;
	rc = ethtool(ifname, &ec);
	if (rc == 0)
		s->changed = true;
	return rc;
}

int coalesce_restore(struct coalesce_saved *s)
{
	if (!s->changed)
		return 0;
	struct ethtool_coalesce ec = s->old;
	ec.cmd = ETHTOOL_SCOALESCE;
	int rc = ethtool(s->ifname, &ec);
	if (rc == 0)
		s->changed = false;
	return rc;
}

void coalesce_describe(const struct coalesce_saved *s, int rc, char *buf, size_t len)
{
	if (rc == 0 && s->changed)
		snprintf(buf, len, "off on %s (rx-usecs was %u, restored at exit)", s->ifname,
			 s->old.rx_coalesce_usecs);
	else if (rc == 0)
		snprintf(buf, len, "already off on %s", s->ifname);
	else if (rc == -EOPNOTSUPP)
		snprintf(buf, len, "%s has no interrupt coalescing (nothing to turn off)",
			 s->ifname);
	else
		snprintf(buf, len, "cannot turn coalescing off on %s: %s%s", s->ifname,
			 strerror(-rc), rc == -EPERM ? " (needs CAP_NET_ADMIN)" : "");
}
