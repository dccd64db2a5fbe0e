/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tdpd's mbuf pool against what DPDK 22.11's af_xdp PMD registers with the
 * kernel as UMEM: populated_size x object size bytes from the first object
 * (xdp_umem_configure; upstream reads the pool's real range since 24.07,
 * commit 97039941b2). A pool whose objects may not cross a page (the one a
 * PCI port needs, and rte_pktmbuf_pool_create's) has gaps at page ends, so
 * its last buffers lie past that length; the kernel refuses them from the
 * fill ring and a port stalls once they circulate. The pool tdpd builds for
 * vdev-only boxes is one block, every buffer inside, each a whole mbuf.
 * And the push a port gets from its PMD's TX offloads (launch time), and the
 * RX queues from what its PMD offers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dpdk_env.h"
#include "pmd.h"

#define N 4095

static void a_page_bound_pool_has_buffers_past_the_umem(void **state)
{
	(void)state;
	char err[256];
	struct rte_mempool *mp = pmd_pool(N, true, err, sizeof(err));
	assert_non_null(mp);
	uint64_t reg = 0;
	uint32_t out = pmd_pool_umem_outside(mp, &reg);
	/* 2368-byte objects in 4 KiB pages (--no-huge): one a page */
	assert_true(out > N / 4);
	assert_true(reg > 0);
	rte_mempool_free(mp);
}

static void the_vdev_pool_is_one_block_of_whole_mbufs(void **state)
{
	(void)state;
	char err[256];
	struct rte_mempool *mp = pmd_pool(N, false, err, sizeof(err));
	assert_non_null(mp);
	uint64_t reg = 0;
	assert_int_equal(pmd_pool_umem_outside(mp, &reg), 0);
	assert_int_equal(mp->populated_size, N);
	assert_int_equal(rte_pktmbuf_data_room_size(mp), RTE_MBUF_DEFAULT_BUF_SIZE);
	assert_int_equal(rte_pktmbuf_priv_size(mp), 0);
	/* every buffer can be taken, is a reset mbuf of this pool, and holds a
	 * full-size frame */
	struct rte_mbuf **m = calloc(N, sizeof(*m));
	assert_non_null(m);
	uint32_t got = 0;
	while (got < N && (m[got] = rte_pktmbuf_alloc(mp)) != NULL)
		got++;
	assert_true(got >= N - 2 * PMD_POOL_CACHE);
	for (uint32_t i = 0; i < got; i++) {
		assert_ptr_equal(m[i]->pool, mp);
		assert_int_equal(m[i]->data_off, RTE_PKTMBUF_HEADROOM);
		assert_non_null(rte_pktmbuf_append(m[i], 1518));
	}
	for (uint32_t i = 0; i < got; i++)
		rte_pktmbuf_free(m[i]);
	free(m);
	rte_mempool_free(mp);
}

/* The push a port gets from its PMD's TX offloads and tx-launch. */
static void launch_time_where_the_pmd_offers_it(void **state)
{
	char why[200];
	const uint64_t with = RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP | RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	assert_true(pmd_launch_decide(with, "mlx5_pci", PMD_LAUNCH_AUTO, why, sizeof(why)));
	assert_string_equal(why, "launch time: mlx5_pci offers the send-on-timestamp offload");
	assert_true(pmd_launch_decide(with, "mlx5_pci", PMD_LAUNCH_ON, why, sizeof(why)));
	assert_false(pmd_launch_decide(with, "mlx5_pci", PMD_LAUNCH_OFF, why, sizeof(why)));
	assert_string_equal(why, "the CPU at the frame boundary (tx-launch off)");
	assert_false(pmd_launch_decide(RTE_ETH_TX_OFFLOAD_MULTI_SEGS, "net_af_xdp", PMD_LAUNCH_AUTO,
				       why, sizeof(why)));
	assert_string_equal(
		why,
		"the CPU at the frame boundary: net_af_xdp offers no send-on-timestamp offload");
}

/* A PCI port asks for a queue per RX core and takes what its PMD offers:
 * three RX cores on a virtio-net NIC with two queue pairs get two queues,
 * and tdpd starts; a device without RSS on IP addresses and ports (DPDK
 * 22.11.11's net_e1000_em offers two queues and no RSS) keeps one. A vdev's
 * queues are its kernel interface's, so fewer there is refused. */
static void rx_queues_as_the_pmd_offers_them(void **state)
{
	char why[160];
	uint16_t n = 0;
	/* as asked */
	assert_int_equal(pmd_queues_decide(true, "net_virtio", 2, 2, 2, true, &n, why, sizeof(why)),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(why, "");
	assert_int_equal(
		pmd_queues_decide(true, "net_virtio", 0, 1, 1, false, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(why, "");
	/* fewer offered: as many as there are, and why */
	assert_int_equal(pmd_queues_decide(true, "net_virtio", 3, 2, 2, true, &n, why, sizeof(why)),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(why, "net_virtio offers 2 RX and 2 TX queues");
	assert_int_equal(
		pmd_queues_decide(true, "net_e1000_em", 3, 1, 1, false, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(why, "net_e1000_em offers 1 RX and 1 TX queues");
	assert_int_equal(
		pmd_queues_decide(true, "net_e1000_em", 2, 2, 2, false, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 1);
	assert_string_equal(why, "net_e1000_em offers no RSS on IP addresses and ports");
	/* a vdev: refused, n untouched */
	n = 7;
	assert_int_equal(
		pmd_queues_decide(false, "net_af_xdp", 2, 1, 1, false, &n, why, sizeof(why)), -1);
	assert_int_equal(n, 7);
	assert_string_equal(why, "2 RX queues wanted, net_af_xdp offers 1 RX and 1 TX");
	assert_int_equal(
		pmd_queues_decide(false, "net_af_xdp", 2, 2, 2, false, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 2);
}

int main(void)
{
	if (env_eal_init() != 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_page_bound_pool_has_buffers_past_the_umem),
		cmocka_unit_test(the_vdev_pool_is_one_block_of_whole_mbufs),
		cmocka_unit_test(launch_time_where_the_pmd_offers_it),
		cmocka_unit_test(rx_queues_as_the_pmd_offers_them),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
