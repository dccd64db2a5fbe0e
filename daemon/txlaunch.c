/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Launch time in the daemon (launch.h): a port whose PMD took the
 * send-on-timestamp offload gets a map from the CTR to its device clock,
 * sampled on the housekeeping thread every LAUNCH_SAMPLE_NS; the engine
 * pushes it by launch time once the map has a measured rate.
 */
#include <inttypes.h>
#include <stdint.h>

#include "log.h"
#include "tdpd.h"

#define LAUNCH_SAMPLE_NS 100000000LL
/* a device read slower than this is not taken into the map (rte_eth_read_clock
 * may ask the device through the kernel; the bracket bounds the map's error) */
#define LAUNCH_MAX_BRACKET_NS 50000

/* the read the engine times its frames by, so that the map is of that clock */
static tdp_time_t ctr_now(void *arg)
{
	return tb_fast_now(arg);
}

void tdpd_launch_port(struct tdpd *d, uint32_t p, struct eng_port_cfg *epc)
{
	const struct pmd_port *pp = &d->ports[p];
	log_info("port %s: pushes by %s", d->conf.ports[p].name, pp->push);
	if (!pp->launch)
		return;
	launch_clock_init(&d->lc[p], pmd_read_clock, (void *)(uintptr_t)pp->id,
			  LAUNCH_MAX_BRACKET_NS);
	d->lc_on[p] = true;
	d->pinfo[p].launch = &d->lc[p];
	epc->launch = &d->lc[p];
	epc->ts_off = pp->ts_off;
	epc->ts_flag = pp->ts_flag;
	log_info("port %s: the CPU pushes at the boundary until the device clock's rate is "
		 "measured (%lld ms)",
		 d->conf.ports[p].name, LAUNCH_RATE_SPAN_NS / 1000000);
}

void tdpd_launch_sample(struct tdpd *d, int64_t mono_now)
{
	if (mono_now < d->next_launch_sample_ns)
		return;
	d->next_launch_sample_ns = mono_now + LAUNCH_SAMPLE_NS;
	for (uint32_t p = 0; p < d->conf.nports; p++) {
		if (!d->lc_on[p])
			continue;
		launch_clock_sample(&d->lc[p], ctr_now, d->tb);
		struct launch_stats st;
		launch_clock_stats(&d->lc[p], &st);
		if (st.ready != d->lc_ready_said[p]) {
			d->lc_ready_said[p] = st.ready;
			if (st.ready)
				log_notice("port %s: launch time in use: the device clock runs "
					   "%+" PRId64 " ppb against the "
					   "CTR, the latest read took %" PRId64 " ns",
					   d->conf.ports[p].name, st.rate_ppb, st.last_bracket_ns);
			else
				log_warn("port %s: launch time suspended: the device clock or the "
					 "CTR stepped (%" PRId64 " ns off the map); the CPU pushes "
					 "until the rate is measured again",
					 d->conf.ports[p].name, st.last_miss_ns);
		}
	}
}

void tdpd_launch_down(struct tdpd *d)
{
	for (uint32_t p = 0; p < CONF_MAX_PORTS; p++)
		if (d->lc_on[p]) {
			launch_clock_fini(&d->lc[p]);
			d->lc_on[p] = false;
			d->pinfo[p].launch = NULL;
		}
}
