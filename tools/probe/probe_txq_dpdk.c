/* SPDX-License-Identifier: BSD-3-Clause */
/* The DPDK way out: one port brought up by pmd-glue, mbufs filled from the
 * template before the wait, stamped in place after it, one rte_eth_tx_burst. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "pmd.h"
#include "tdp_probe.h"

struct txq_dpdk {
	struct probe_txq q;
	struct pmd_port port;
	struct rte_mempool *mp;
	struct rte_mbuf *m[PROBE_TX_SLOTS];
};

static int dp_prepare(struct probe_txq *q, unsigned slot, const struct probe_tmpl *t)
{
	struct txq_dpdk *d = (struct txq_dpdk *)q;
	if (slot >= PROBE_TX_SLOTS)
		return -EINVAL;
	if (!d->m[slot]) {
		d->m[slot] = rte_pktmbuf_alloc(d->mp);
		if (!d->m[slot])
			return -ENOMEM;
	}
	struct rte_mbuf *m = d->m[slot];
	if (t->len > rte_pktmbuf_tailroom(m) + m->data_len)
		return -EMSGSIZE;
	m->data_len = (uint16_t)t->len;
	m->pkt_len = t->len;
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), t->buf, t->len);
	return 0;
}

static uint8_t *dp_slot(struct probe_txq *q, unsigned slot)
{
	return rte_pktmbuf_mtod(((struct txq_dpdk *)q)->m[slot], uint8_t *);
}

static int dp_send(struct probe_txq *q, unsigned n)
{
	struct txq_dpdk *d = (struct txq_dpdk *)q;
	uint16_t sent = rte_eth_tx_burst(d->port.id, 0, d->m, (uint16_t)n);
	/* what did not go stays in its slot for the next burst */
	for (unsigned i = 0; i < sent; i++)
		d->m[i] = NULL;
	if (sent && sent < n) {
		memmove(d->m, d->m + sent, (n - sent) * sizeof(d->m[0]));
		memset(d->m + n - sent, 0, sent * sizeof(d->m[0]));
	}
	return sent;
}

static void dp_close(struct probe_txq *q)
{
	struct txq_dpdk *d = (struct txq_dpdk *)q;
	for (unsigned i = 0; i < PROBE_TX_SLOTS; i++)
		rte_pktmbuf_free(d->m[i]);
	pmd_port_close(&d->port);
	free(d);
	pmd_eal_cleanup();
}

struct probe_txq *probe_txq_dpdk(const char *dev, int cpu, char *err, size_t errlen)
{
	const char *devs[1] = {dev};
	struct pmd_eal e = {.main_cpu = cpu < 0 ? 0 : cpu,
			    .engine_cpu = cpu < 0 ? 0 : cpu,
			    .huge = PMD_HUGE_AUTO,
			    .mbufs = 1023,
			    .devices = devs,
			    .ndevices = 1,
			    .log_level = LOG_WARNING};
	bool no_huge;
	char hmsg[400];
	if (pmd_huge_decide(e.huge, e.mbufs, 0, &e.no_huge, hmsg, sizeof(hmsg)) != 0) {
		snprintf(err, errlen, "%s", hmsg);
		return NULL;
	}
	if (pmd_eal_init(&e, &no_huge, err, errlen))
		return NULL;
	struct txq_dpdk *d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	d->mp = pmd_pool(1023, pmd_is_pci(dev), err, errlen);
	if (!d->mp || pmd_port_open(&d->port, dev, 1, 256, 256, d->mp, PMD_LAUNCH_OFF, err, errlen))
		goto fail;
	d->q = (struct probe_txq){
		.prepare = dp_prepare, .slot = dp_slot, .send = dp_send, .close = dp_close};
	memcpy(d->q.mac, d->port.mac, 6);
	d->q.link_bps = (uint64_t)d->port.link_mbps * 1000000;
	snprintf(d->q.what, sizeof(d->q.what), "DPDK port %u (%s)", d->port.id, dev);
	return &d->q;
fail:
	free(d);
	pmd_eal_cleanup();
	return NULL;
}
