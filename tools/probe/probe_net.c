/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/ethernet.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "probe_net.h"

int probe_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;
	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
		return -1;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			return -1;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

static int ifreq_ioctl(unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	int rc = ioctl(fd, req, ifr) == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

int probe_if_get(const char *name, struct probe_if *pi, char *err, size_t errlen)
{
	memset(pi, 0, sizeof(*pi));
	if (!name || !*name || strlen(name) >= IFNAMSIZ) {
		snprintf(err, errlen, "'%s' is not an interface name", name ? name : "");
		return -1;
	}
	snprintf(pi->name, sizeof(pi->name), "%s", name);
	pi->index = (int)if_nametoindex(name);
	if (!pi->index) {
		snprintf(err, errlen, "interface %s: %s", name, strerror(errno));
		return -1;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	int rc = ifreq_ioctl(SIOCGIFHWADDR, &ifr);
	if (rc) {
		snprintf(err, errlen, "interface %s: no hardware address: %s", name, strerror(-rc));
		return -1;
	}
	memcpy(pi->mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ifreq_ioctl(SIOCGIFMTU, &ifr) == 0)
		pi->mtu = ifr.ifr_mtu;
	return 0;
}

static int packet_socket(const struct probe_if *pi, uint16_t proto, char *err, size_t errlen)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0) {
		snprintf(err, errlen, "AF_PACKET socket: %s%s", strerror(errno),
			 errno == EPERM ? " (needs root or CAP_NET_RAW)" : "");
		return -1;
	}
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_protocol = proto, .sll_ifindex = pi->index};
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		snprintf(err, errlen, "bind to %s: %s", pi->name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int probe_tx_open(const struct probe_if *pi, char *err, size_t errlen)
{
	int fd = packet_socket(pi, 0, err, errlen);
	if (fd < 0)
		return -1;
	int one = 1;
	/* straight to the driver: no qdisc between the frame start and the wire */
	setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	return fd;
}

int probe_rx_open(const struct probe_if *pi, char *err, size_t errlen)
{
	int fd = packet_socket(pi, htons(ETH_P_ALL), err, errlen);
	if (fd < 0)
		return -1;
	int sz = 8 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) != 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	return fd;
}

static int ts_info(const struct probe_if *pi, struct ethtool_ts_info *info)
{
	memset(info, 0, sizeof(*info));
	info->cmd = ETHTOOL_GET_TS_INFO;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", pi->name);
	ifr.ifr_data = (void *)info;
	return ifreq_ioctl(SIOCETHTOOL, &ifr);
}

static int hw_enable(int fd, const struct probe_if *pi, struct probe_tsinfo *ti)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", pi->name);
	ifr.ifr_data = (void *)&ti->old;
	if (ifreq_ioctl(SIOCGHWTSTAMP, &ifr) != 0)
		memset(&ti->old, 0, sizeof(ti->old));
	struct hwtstamp_config cfg = ti->old;
	if (cfg.rx_filter != HWTSTAMP_FILTER_ALL) {
		cfg.rx_filter = HWTSTAMP_FILTER_ALL;
		ifr.ifr_data = (void *)&cfg;
		int rc = ifreq_ioctl(SIOCSHWTSTAMP, &ifr);
		if (rc)
			return rc;
		ti->hw_changed = true;
	}
	int flags = SOF_TIMESTAMPING_RX_HARDWARE | SOF_TIMESTAMPING_RAW_HARDWARE |
		    SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) == 0 ? 0 : -errno;
}

int probe_ts_setup(int fd, const struct probe_if *pi, enum probe_ts_want want,
		   struct probe_tsinfo *ti)
{
	memset(ti, 0, sizeof(*ti));
	ti->phc = -1;
	struct ethtool_ts_info info;
	int irc = ts_info(pi, &info);
	bool hw = irc == 0 && (info.so_timestamping & SOF_TIMESTAMPING_RX_HARDWARE) &&
		  (info.rx_filters & (1u << HWTSTAMP_FILTER_ALL));
	bool sw = irc != 0 || (info.so_timestamping & SOF_TIMESTAMPING_RX_SOFTWARE);
	if (irc == 0)
		ti->phc = info.phc_index;
	if (want == PROBE_WANT_USER) {
		ti->got = PROBE_TS_USER;
		snprintf(ti->why, sizeof(ti->why),
			 "user space (asked for): the clock read after the frame is received");
		return 0;
	}
	if (want == PROBE_WANT_HW || (want == PROBE_WANT_AUTO && hw)) {
		int rc = hw ? hw_enable(fd, pi, ti) : -EOPNOTSUPP;
		if (rc == 0) {
			ti->got = PROBE_TS_HW;
			snprintf(ti->why, sizeof(ti->why),
				 "hardware: %s stamps every frame with PHC /dev/ptp%d, "
				 "taken as TAI",
				 pi->name, ti->phc);
			return 0;
		}
		if (want == PROBE_WANT_HW) {
			snprintf(ti->why, sizeof(ti->why),
				 "%s cannot stamp every received frame in hardware (%s)", pi->name,
				 hw ? strerror(-rc)
				    : "ethtool -T shows no hardware-receive with filter all");
			return -1;
		}
	}
	if (sw) {
		int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
		if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) == 0) {
			ti->got = PROBE_TS_SW;
			snprintf(ti->why, sizeof(ti->why),
				 "software: the kernel stamps each frame as the driver hands "
				 "it up (SO_TIMESTAMPING)%s",
				 want == PROBE_WANT_AUTO ? "; no hardware timestamps on this "
							   "interface"
							 : "");
			return 0;
		}
	}
	if (want == PROBE_WANT_SW) {
		snprintf(ti->why, sizeof(ti->why), "%s has no software receive timestamps",
			 pi->name);
		return -1;
	}
	ti->got = PROBE_TS_USER;
	snprintf(ti->why, sizeof(ti->why),
		 "user space: %s has neither hardware nor kernel receive timestamps", pi->name);
	return 0;
}

void probe_ts_restore(const struct probe_if *pi, struct probe_tsinfo *ti)
{
	if (!ti->hw_changed)
		return;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", pi->name);
	ifr.ifr_data = (void *)&ti->old;
	ifreq_ioctl(SIOCSHWTSTAMP, &ifr);
	ti->hw_changed = false;
}

int probe_recv_batch(int fd, struct probe_rxbatch *b, int timeout_ms)
{
	static __thread struct mmsghdr msg[PROBE_BATCH];
	static __thread struct iovec iov[PROBE_BATCH];
	static __thread struct sockaddr_ll from[PROBE_BATCH];
	static __thread char ctl[PROBE_BATCH][256];
	b->n = 0;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int pr = poll(&p, 1, timeout_ms);
	if (pr < 0)
		return errno == EINTR ? 0 : -errno;
	if (pr == 0)
		return 0;
	for (int i = 0; i < PROBE_BATCH; i++) {
		iov[i] = (struct iovec){b->buf[i], PROBE_RXBUF};
		msg[i].msg_hdr = (struct msghdr){.msg_name = &from[i],
						 .msg_namelen = sizeof(from[i]),
						 .msg_iov = &iov[i],
						 .msg_iovlen = 1,
						 .msg_control = ctl[i],
						 .msg_controllen = sizeof(ctl[i])};
	}
	int n = recvmmsg(fd, msg, PROBE_BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		b->len[i] = msg[i].msg_len;
		b->ts_sw[i] = b->ts_hw[i] = 0;
		b->outgoing[i] = from[i].sll_pkttype == PACKET_OUTGOING;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg[i].msg_hdr); c;
		     c = CMSG_NXTHDR(&msg[i].msg_hdr, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMPING)
				continue;
			struct timespec ts[3];
			memcpy(ts, CMSG_DATA(c), sizeof(ts));
			b->ts_sw[i] = (int64_t)ts[0].tv_sec * 1000000000 + ts[0].tv_nsec;
			b->ts_hw[i] = (int64_t)ts[2].tv_sec * 1000000000 + ts[2].tv_nsec;
		}
	}
	b->n = (uint32_t)n;
	return n;
}
