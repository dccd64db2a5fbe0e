/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kif.h"

unsigned kif_index(const char *ifname)
{
	return if_nametoindex(ifname);
}

static int ifreq_ioctl(const char *ifname, unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ifname);
	int rc = ioctl(fd, req, ifr) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

int kif_flags(const char *ifname)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	int rc = ifreq_ioctl(ifname, SIOCGIFFLAGS, &ifr);
	return rc < 0 ? rc : (ifr.ifr_flags & 0xffff);
}

int kif_set_flags(const char *ifname, int mask, bool on)
{
	int f = kif_flags(ifname);
	if (f < 0)
		return f;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = (short)(on ? f | mask : f & ~mask);
	return ifreq_ioctl(ifname, SIOCSIFFLAGS, &ifr);
}

int kif_channels(const char *ifname, struct kif_channels *c)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	memset(c, 0, sizeof(*c));
	ifr.ifr_data = (void *)&ch;
	int rc = ifreq_ioctl(ifname, SIOCETHTOOL, &ifr);
	if (rc == -EOPNOTSUPP) {
		c->rx = 1;
		return 0;
	}
	if (rc < 0)
		return rc;
	c->combined = ch.combined_count;
	c->max_combined = ch.max_combined;
	c->rx = ch.combined_count + ch.rx_count;
	if (!c->rx)
		c->rx = 1;
	return 0;
}

int kif_set_rx_queues(const char *ifname, uint32_t n)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_data = (void *)&ch;
	int rc = ifreq_ioctl(ifname, SIOCETHTOOL, &ifr);
	if (rc < 0)
		return rc;
	ch.cmd = ETHTOOL_SCHANNELS;
	if (ch.max_combined) {
		ch.combined_count = n;
		ch.rx_count = 0;
	} else {
		ch.rx_count = n;
	}
	return ifreq_ioctl(ifname, SIOCETHTOOL, &ifr);
}

int kif_mtu(const char *ifname)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	int rc = ifreq_ioctl(ifname, SIOCGIFMTU, &ifr);
	return rc < 0 ? rc : ifr.ifr_mtu;
}

int kif_forwarding(const char *ifname, int family, int val, int *old)
{
	char path[128], buf[16];
	snprintf(path, sizeof(path), "/proc/sys/net/%s/conf/%s/forwarding",
		 family == 6 ? "ipv6" : "ipv4", ifname);
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int rc = 0;
	if (n <= 0) {
		rc = n < 0 ? -errno : -EIO;
	} else {
		buf[n] = 0;
		*old = buf[0] == '1';
		n = snprintf(buf, sizeof(buf), "%d\n", val);
		if (pwrite(fd, buf, (size_t)n, 0) != n)
			rc = -errno;
	}
	close(fd);
	return rc;
}

int kif_addr_add(unsigned ifindex, int family, const uint8_t *addr, unsigned len)
{
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
		char attrs[64];
	} req;
	memset(&req, 0, sizeof(req));
	unsigned alen = family == 4 ? 4 : 16;
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifa));
	req.nh.nlmsg_type = RTM_NEWADDR;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	req.ifa.ifa_family = family == 4 ? AF_INET : AF_INET6;
	req.ifa.ifa_prefixlen = (unsigned char)len;
	req.ifa.ifa_index = ifindex;
	req.ifa.ifa_scope = RT_SCOPE_UNIVERSE;
	if (family == 6)
		req.ifa.ifa_flags =
			IFA_F_NODAD; /* the router's address is its own, as configured */
	unsigned short types[2] = {IFA_LOCAL, IFA_ADDRESS};
	for (int i = 0; i < 2; i++) {
		struct rtattr *ra = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
		ra->rta_type = types[i];
		ra->rta_len = (unsigned short)RTA_LENGTH(alen);
		memcpy(RTA_DATA(ra), addr, alen);
		req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(ra->rta_len);
	}
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	int rc = 0;
	struct timeval tv = {.tv_sec = 2};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0) {
		rc = -errno;
	} else {
		char buf[1024];
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		if (n < 0)
			rc = -errno;
		else if (n < (ssize_t)sizeof(*h) || !NLMSG_OK(h, (unsigned)n) ||
			 h->nlmsg_type != NLMSG_ERROR)
			rc = -EPROTO;
		else
			rc = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
	close(fd);
	return rc == -EEXIST ? 0 : rc;
}
