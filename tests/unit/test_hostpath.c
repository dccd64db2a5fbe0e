/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hp_prepare refuses an af_packet port's bad qpairs devarg, before it
 * touches the kernel: each of that many sockets is served as an RX queue
 * (rxcores_net runs qpairs=2 on real sockets).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hostpath.h"
#include "hpmode.h"

static void bad_qpairs_are_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {"qpairs=0", "qpairs=17", "qpairs=2x", "qpairs="};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hp_port hp;
		char dev[96], err[256] = "";
		snprintf(dev, sizeof(dev), "net_af_packet0,iface=nowhere0,%s", bad[i]);
		assert_int_equal(hp_prepare(&hp, "in", dev, HP_AUTO, "", NULL, err, sizeof(err)), -1);
		char want[64];
		snprintf(want, sizeof(want), "%s: expected 1 to 16", bad[i]);
		if (!strstr(err, want))
			fail_msg("%s: %s", dev, err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bad_qpairs_are_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
