/* SPDX-License-Identifier: BSD-3-Clause */
/* Built without DPDK: --dpdk says so. */
#include <stdio.h>

#include "tdp_probe.h"

struct probe_txq *probe_txq_dpdk(const char *dev, int cpu, char *err, size_t errlen)
{
	(void)cpu;
	snprintf(err, errlen, "--dpdk %s: this tdp-probe was built without DPDK (libdpdk-dev)",
		 dev);
	return NULL;
}
