/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "capture.h"
#include "log.h"
#include "pcapng.h"
#include "rx.h"
#include "tdp_time.h"

/* a packet copied on the data path, waiting for the writer */
struct slot {
	int64_t ts_ns;
	uint32_t len, caplen;
	uint8_t dir; /* enum pcapng_dir */
	uint8_t data[CAPTURE_SNAP_MAX];
};

struct capture {
	struct rte_ring *free_q; /* slots to copy into: the data path takes, the writer gives back */
	struct rte_ring *full_q; /* copied: the data path gives, the writer takes */
	struct slot *slots;
	int efd;
	/* the session: set by capture_start before the callbacks go in */
	struct capture_req rq;
	char name[64];
	atomic_int active;    /* the callbacks take packets */
	_Atomic int64_t left; /* packets still to take */
	atomic_uint_fast64_t dropped;
	atomic_int stop; /* capture_stop asked the writer to end */
	bool running;	 /* a writer thread to join */
	pthread_t th;
	const struct rte_eth_rxtx_callback *rxcb[RX_MAX_QUEUES], *txcb[RX_MAX_QUEUES];
	struct capture_stats st;
};

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* On the data path: the burst's packets copied into free slots (one clock
 * read a burst); what finds no slot is counted, not waited for. */
static void take(struct capture *cp, struct rte_mbuf **pkts, uint16_t n, uint8_t dir)
{
	if (!atomic_load_explicit(&cp->active, memory_order_acquire))
		return;
	int64_t ts = 0;
	for (uint16_t i = 0; i < n; i++) {
		if (atomic_fetch_sub_explicit(&cp->left, 1, memory_order_relaxed) <= 0)
			return;
		struct slot *s;
		if (rte_ring_mc_dequeue(cp->free_q, (void **)&s) != 0) {
			atomic_fetch_add_explicit(&cp->dropped, 1, memory_order_relaxed);
			continue;
		}
		if (!ts)
			ts = now_ns(CLOCK_REALTIME);
		s->ts_ns = ts;
		s->len = pkts[i]->pkt_len;
		s->caplen = s->len < cp->rq.snaplen ? s->len : cp->rq.snaplen;
		s->dir = dir;
		const void *p = rte_pktmbuf_read(pkts[i], 0, s->caplen, s->data);
		if (p && p != s->data)
			memcpy(s->data, p, s->caplen);
		/* never full: it holds every slot there is */
		rte_ring_mp_enqueue(cp->full_q, s);
	}
}

static uint16_t rx_cb(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n,
		      uint16_t max, void *arg)
{
	take(arg, pkts, n, PCAPNG_DIR_IN);
	return n;
}

static uint16_t tx_cb(uint16_t port, uint16_t queue, struct rte_mbuf **pkts, uint16_t n, void *arg)
{
	take(arg, pkts, n, PCAPNG_DIR_OUT);
	return n;
}

/* 0, or -errno */
static int write_all(int fd, const uint8_t *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The callbacks out of the port's queues; after a grace period (a data-path
 * thread may be inside one) their memory goes back (rte_eth_remove_*_callback
 * leaves that to the caller). */
static void callbacks_out(struct capture *cp)
{
	const struct rte_eth_rxtx_callback *gone[2 * RX_MAX_QUEUES];
	unsigned n = 0;
	for (uint16_t q = 0; q < cp->rq.nq; q++) {
		if (cp->rxcb[q] &&
		    rte_eth_remove_rx_callback(cp->rq.dpdk_port, q, cp->rxcb[q]) == 0)
			gone[n++] = cp->rxcb[q];
		if (cp->txcb[q] &&
		    rte_eth_remove_tx_callback(cp->rq.dpdk_port, q, cp->txcb[q]) == 0)
			gone[n++] = cp->txcb[q];
		cp->rxcb[q] = cp->txcb[q] = NULL;
	}
	struct timespec grace = {0, 20000000};
	nanosleep(&grace, NULL);
	for (unsigned i = 0; i < n; i++)
		rte_free((void *)(uintptr_t)gone[i]);
}

/* The slots copied so far, written (once the descriptor failed, only given
 * back). The written error or 0. */
static int drain(struct capture *cp, int err)
{
	static _Thread_local uint8_t buf[CAPTURE_SNAP_MAX + 64];
	struct slot *s[32];
	unsigned n;
	while ((n = rte_ring_sc_dequeue_burst(cp->full_q, (void **)s, 32, NULL)) != 0)
		for (unsigned i = 0; i < n; i++) {
			size_t b = err ? 0
				       : pcapng_epb(buf, sizeof(buf), 0, s[i]->ts_ns, s[i]->data,
						    s[i]->caplen, s[i]->len,
						    (enum pcapng_dir)s[i]->dir);
			if (!err && b && (err = write_all(cp->rq.fd, buf, b)) == 0) {
				cp->st.captured++;
				cp->st.bytes += b;
			} else {
				cp->st.dropped++;
			}
			rte_ring_sp_enqueue(cp->free_q, s[i]);
		}
	return err;
}

static void *writer(void *arg)
{
	struct capture *cp = arg;
	pthread_setname_np(pthread_self(), "tdpd-capture");
	sigset_t pipe;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, NULL); /* a reader gone is EPIPE, not a signal */
	int64_t t0 = tdp_mono_ns();
	uint8_t hdr[512];
	size_t h = pcapng_shb(hdr, sizeof(hdr), "tdpd " TDP_VERSION);
	size_t h2 = h ? pcapng_idb(hdr + h, sizeof(hdr) - h, cp->name, cp->rq.snaplen) : 0;
	int err = h && h2 ? write_all(cp->rq.fd, hdr, h + h2) : -ENOSPC;
	if (!err)
		cp->st.bytes += h + h2;
	const char *why = "";
	while (!err) {
		err = drain(cp, 0);
		if (err)
			break;
		int64_t el = tdp_mono_ns() - t0;
		if (atomic_load(&cp->stop)) {
			why = "stopped";
			break;
		}
		if (cp->rq.duration_ns && el >= cp->rq.duration_ns) {
			why = "time up";
			break;
		}
		if (atomic_load_explicit(&cp->left, memory_order_relaxed) <= 0) {
			why = "count reached";
			break;
		}
		struct timespec nap = {0, 1000000};
		nanosleep(&nap, NULL);
	}
	/* no copy after this: callbacks out (with a grace period for one still
	 * running on a data-path thread), then what they copied */
	atomic_store_explicit(&cp->active, 0, memory_order_release);
	callbacks_out(cp);
	err = drain(cp, err);
	if (err)
		snprintf(cp->st.end, sizeof(cp->st.end), "writing failed: %s", strerror(-err));
	else
		snprintf(cp->st.end, sizeof(cp->st.end), "%s", why);
	cp->st.dropped += atomic_load(&cp->dropped);
	cp->st.seconds = (double)(tdp_mono_ns() - t0) / 1e9;
	close(cp->rq.fd);
	cp->rq.fd = -1;
	uint64_t one = 1;
	if (write(cp->efd, &one, sizeof(one)) < 0)
		log_warn("capture: cannot signal the session's end: %s", strerror(errno));
	return NULL;
}

struct capture *capture_new(char *err, size_t errlen)
{
	struct capture *cp = calloc(1, sizeof(*cp));
	if (!cp) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	cp->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	cp->slots = calloc(CAPTURE_SLOTS, sizeof(*cp->slots));
	/* a ring of N holds N - 1: one more than the slots */
	cp->free_q =
		rte_ring_create("tdpd_cap_free", CAPTURE_SLOTS * 2, SOCKET_ID_ANY, RING_F_SP_ENQ);
	cp->full_q =
		rte_ring_create("tdpd_cap_full", CAPTURE_SLOTS * 2, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (cp->efd < 0 || !cp->slots || !cp->free_q || !cp->full_q) {
		snprintf(err, errlen, "cannot set up packet capture: %s",
			 cp->efd < 0 ? strerror(errno) : "out of memory");
		capture_free(cp);
		return NULL;
	}
	for (uint32_t i = 0; i < CAPTURE_SLOTS; i++)
		rte_ring_sp_enqueue(cp->free_q, &cp->slots[i]);
	return cp;
}

int capture_fd(const struct capture *cp)
{
	return cp->efd;
}

int capture_start(struct capture *cp, const struct capture_req *rq, char *err, size_t errlen)
{
	if (cp->running) {
		snprintf(err, errlen, "a capture of port %s is running", cp->name);
		return -EBUSY;
	}
	cp->rq = *rq;
	snprintf(cp->name, sizeof(cp->name), "%s", rq->name);
	if (cp->rq.nq > RX_MAX_QUEUES)
		cp->rq.nq = RX_MAX_QUEUES;
	memset(&cp->st, 0, sizeof(cp->st));
	snprintf(cp->st.port, sizeof(cp->st.port), "%s", rq->name);
	atomic_store(&cp->dropped, 0);
	atomic_store(&cp->stop, 0);
	atomic_store(&cp->left, rq->count ? (int64_t)rq->count : INT64_MAX);
	atomic_store_explicit(&cp->active, 1, memory_order_release);
	int rc = 0;
	for (uint16_t q = 0; q < cp->rq.nq && !rc; q++) {
		if (rq->in && !(cp->rxcb[q] = rte_eth_add_rx_callback(rq->dpdk_port, q, rx_cb, cp)))
			rc = -rte_errno;
		if (!rc && rq->out &&
		    !(cp->txcb[q] = rte_eth_add_tx_callback(rq->dpdk_port, q, tx_cb, cp)))
			rc = -rte_errno;
	}
	if (!rc && pthread_create(&cp->th, NULL, writer, cp) != 0)
		rc = -EAGAIN;
	if (rc) {
		atomic_store(&cp->active, 0);
		callbacks_out(cp);
		snprintf(err, errlen, "cannot capture on port %s: %s", rq->name, strerror(-rc));
		return rc;
	}
	cp->running = true;
	char lim[64] = "";
	if (rq->count)
		snprintf(lim, sizeof(lim), "%llu packets", (unsigned long long)rq->count);
	if (rq->duration_ns)
		snprintf(lim + strlen(lim), sizeof(lim) - strlen(lim), "%s%.0f s",
			 rq->count ? " or " : "", (double)rq->duration_ns / 1e9);
	log_notice("capture: port %s, %s%s%s, %s, %u bytes a packet", cp->name, rq->in ? "in" : "",
		   rq->in && rq->out ? " and " : "", rq->out ? "out" : "", lim, rq->snaplen);
	return 0;
}

void capture_stop(struct capture *cp)
{
	if (cp && cp->running)
		atomic_store(&cp->stop, 1);
}

int capture_result(struct capture *cp, struct capture_stats *st)
{
	uint64_t v;
	if (read(cp->efd, &v, sizeof(v)) != (ssize_t)sizeof(v) || !cp->running)
		return -1;
	pthread_join(cp->th, NULL);
	cp->running = false;
	*st = cp->st;
	log_notice("capture: port %s ended (%s): %llu packets written, %llu lost, %.1f s", st->port,
		   st->end, (unsigned long long)st->captured, (unsigned long long)st->dropped,
		   st->seconds);
	return 0;
}

void capture_free(struct capture *cp)
{
	if (!cp)
		return;
	if (cp->running) {
		capture_stop(cp);
		pthread_join(cp->th, NULL);
	}
	if (cp->efd >= 0)
		close(cp->efd);
	rte_ring_free(cp->free_q);
	rte_ring_free(cp->full_q);
	free(cp->slots);
	free(cp);
}
