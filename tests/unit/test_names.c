/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Enum names from their tables (tdp_names.h): each value its name, a value
 * left out of its table or past its end the default, and the result codes
 * that count down from 0 indexed by their negation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include "hostpath.h"
#include "pkt.h"
#include "route.h"
#include "rx.h"
#include "sync.h"
#include "tdp_names.h"

static void a_table_holds_its_values_and_no_others(void **state)
{
	(void)state;
	enum {
		A,
		B,
		C,
		D
	};
	static const char *const n[] = {[A] = "a", [C] = "c"};
	assert_string_equal(TDP_NAME_OF(n, A, "?"), "a");
	assert_string_equal(TDP_NAME_OF(n, C, "?"), "c");
	assert_string_equal(TDP_NAME_OF(n, B, "?"), "?"); /* left out */
	assert_string_equal(TDP_NAME_OF(n, D, "?"), "?"); /* past the end */
	assert_string_equal(TDP_NAME_OF(n, -1, "?"), "?");
	assert_string_equal(TDP_NAME_OF(n, SIZE_MAX, "?"), "?");
}

static void codes_below_zero_by_their_negation(void **state)
{
	(void)state;
	assert_string_equal(pkt_err_name(PKT_OK), "ok");
	assert_string_equal(pkt_err_name(PKT_BAD_MPLS), "bad-mpls");
	assert_string_equal(pkt_err_name(1), "unknown");
	assert_string_equal(pkt_err_name(PKT_BAD_MPLS - 1), "unknown");
	assert_string_equal(route_res_name(ROUTE_OK), "ok");
	assert_string_equal(route_res_name(ROUTE_NO_NEIGH), "no-neighbour");
	assert_string_equal(route_res_name(ROUTE_OTHER_PORT), "other-port");
	assert_string_equal(route_res_name(1), "unknown");
	assert_string_equal(route_res_name(ROUTE_OTHER_PORT - 1), "unknown");
	assert_string_equal(route_res_name(INT32_MIN), "unknown");
}

static void every_enum_named_and_the_rest_not(void **state)
{
	(void)state;
	assert_string_equal(tb_state_name(TB_UNLOCKED), "unlocked");
	assert_string_equal(tb_state_name(TB_LOCKED), "locked");
	assert_string_equal(tb_state_name((enum tb_state)7), "?");
	assert_string_equal(hp_mode_name(RXH_TAP), "tap");
	assert_string_equal(hp_mode_name(RXH_NONE), "none");
	for (int d = 0; d < RXD_MAX; d++)
		assert_string_not_equal(rx_drop_name((enum rx_drop)d), "unknown");
	assert_string_equal(rx_drop_name(RXD_MAX), "unknown");
}

TDP_TEST_MAIN(cmocka_unit_test(a_table_holds_its_values_and_no_others),
	      cmocka_unit_test(codes_below_zero_by_their_negation),
	      cmocka_unit_test(every_enum_named_and_the_rest_not))
