/* SPDX-License-Identifier: BSD-3-Clause */
/* The AF_PACKET way out: frames in plain buffers, one sendmmsg per burst. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe_net.h"
#include "tdp_probe.h"

struct txq_packet {
	struct probe_txq q;
	int fd;
	uint32_t len[PROBE_TX_SLOTS];
	struct mmsghdr msg[PROBE_TX_SLOTS];
	struct iovec iov[PROBE_TX_SLOTS];
	uint8_t buf[PROBE_TX_SLOTS][PROBE_MAX_SIZE];
};

static int pk_prepare(struct probe_txq *q, unsigned slot, const struct probe_tmpl *t)
{
	struct txq_packet *p = (struct txq_packet *)q;
	if (slot >= PROBE_TX_SLOTS)
		return -EINVAL;
	memcpy(p->buf[slot], t->buf, t->len);
	p->len[slot] = t->len;
	return 0;
}

static uint8_t *pk_slot(struct probe_txq *q, unsigned slot)
{
	return ((struct txq_packet *)q)->buf[slot];
}

static int pk_send(struct probe_txq *q, unsigned n)
{
	struct txq_packet *p = (struct txq_packet *)q;
	if (n == 1)
		return send(p->fd, p->buf[0], p->len[0], 0) < 0 ? -errno : 1;
	for (unsigned i = 0; i < n; i++) {
		p->iov[i] = (struct iovec){p->buf[i], p->len[i]};
		p->msg[i].msg_hdr = (struct msghdr){.msg_iov = &p->iov[i], .msg_iovlen = 1};
	}
	int r = sendmmsg(p->fd, p->msg, n, 0);
	return r < 0 ? -errno : r;
}

static void pk_close(struct probe_txq *q)
{
	struct txq_packet *p = (struct txq_packet *)q;
	close(p->fd);
	free(p);
}

struct probe_txq *probe_txq_packet(const char *ifname, char *err, size_t errlen)
{
	struct probe_if pi;
	if (probe_if_get(ifname, &pi, err, errlen))
		return NULL;
	struct txq_packet *p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->fd = probe_tx_open(&pi, err, errlen);
	if (p->fd < 0) {
		free(p);
		return NULL;
	}
	p->q = (struct probe_txq){
		.prepare = pk_prepare, .slot = pk_slot, .send = pk_send, .close = pk_close};
	memcpy(p->q.mac, pi.mac, 6);
	snprintf(p->q.what, sizeof(p->q.what), "%s (AF_PACKET)", pi.name);
	return &p->q;
}
