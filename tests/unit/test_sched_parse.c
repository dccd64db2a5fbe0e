/* SPDX-License-Identifier: BSD-3-Clause */
/* The table parser: every accepted construct and every class of bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tdp_sched.h"
#include "testutil.h"

#define HDR "tdp-schedule 1\ntf 100us\nk 10\n"
#define PORT "port eth0 rate 1Gbit/s\n"

static void accepts_minimal(void **state)
{
	struct sched_table *t = parse_ok(HDR);
	assert_int_equal(t->version, 1);
	assert_int_equal(t->tf_ns, 100000);
	assert_int_equal(t->k, 10);
	assert_int_equal(t->guard_ns, 0);
	assert_int_equal(t->epoch_ns, 0);
	assert_int_equal(t->nrows, 1); /* all frames share the empty row */
	sched_free(t);
}

static void accepts_everything(void **state)
{
	struct sched_table *t = parse_ok(
		"# a comment\r\n"
		"tdp-schedule 1   # trailing comment\r\n"
		"\n"
		"tf 0.5ms\n"
		"k 20\n"
		"epoch 250us\n"
		"guard 1500ns\n"
		"flow v port p1 size 214B dscp 46 udp-dport 5004 alpha 2\n" /* port declared below */
		"flow w port p2 size 1514 dscp 34 dst 10.1.0.0/16 vlan 100 pcp 5\n"
		"flow x port p2 size 128 dscp 10 dst 2001:db8::/32 mpls 1001\n"
		"port p1 rate 2.5Gbit/s max-frame 9000 overhead 20\n"
		"port p2 rate 100Mbps\n"
		"frames 0-19/5, 3: v 2, w 1\n"
		"frame 7: x 3 w 2\n"
		"frames *: v 1\n"
		"frames */10: x 1\n");
	assert_int_equal(t->tf_ns, 500000);
	assert_int_equal(t->epoch_ns, 250000);
	assert_int_equal(t->guard_ns, 1500);
	assert_int_equal(t->nports, 2);
	assert_int_equal(t->ports[0].rate_bps, 2500000000ull);
	assert_int_equal(t->ports[0].max_frame, 9000);
	assert_int_equal(t->ports[0].overhead, 20);
	assert_int_equal(t->ports[1].rate_bps, 100000000ull);
	assert_int_equal(t->ports[1].max_frame, 1514);
	assert_int_equal(t->ports[1].overhead, 24);
	assert_int_equal(t->nflows, 3);
	const struct sched_flow *v = &t->flows[0], *w = &t->flows[1], *x = &t->flows[2];
	assert_int_equal(v->port, 0);
	assert_int_equal(v->size, 214);
	assert_int_equal(v->alpha, 2);
	assert_int_equal(v->match.fields, SCHED_M_DSCP | SCHED_M_UDP_DPORT);
	assert_int_equal(v->match.udp_dport, 5004);
	assert_int_equal(w->match.fields, SCHED_M_DSCP | SCHED_M_DST | SCHED_M_VLAN | SCHED_M_PCP);
	assert_int_equal(w->match.dst_family, 4);
	assert_int_equal(w->match.dst_len, 16);
	assert_int_equal(w->match.dst[0], 10);
	assert_int_equal(w->match.dst[1], 1);
	assert_int_equal(w->match.vlan, 100);
	assert_int_equal(w->match.pcp, 5);
	assert_int_equal(x->match.dst_family, 6);
	assert_int_equal(x->match.mpls, 1001);
	/* frame 0: v 2 (0-19/5) + v 1 (star), w 1, x 1 (star/10) */
	assert_row(t, 0, "v 3, w 1, x 1");
	assert_row(t, 3, "v 3, w 1");
	assert_row(t, 5, "v 3, w 1");
	assert_row(t, 7, "v 1, w 2, x 3");
	assert_row(t, 10, "v 3, w 1, x 1");
	assert_row(t, 1, "v 1");
	assert_row(t, 19, "v 1");
	sched_free(t);
}

/* one table's flows in another by name: moved, kept, gone, new */
static void flows_matched_by_name(void **state)
{
	struct sched_table *a = parse_ok(HDR PORT "flow a port eth0 size 100 udp-dport 1\n"
						  "flow b port eth0 size 100 udp-dport 2\n"
						  "flow c port eth0 size 100 udp-dport 3\n"
						  "frames 0: a 1\n");
	struct sched_table *b = parse_ok(HDR PORT "flow d port eth0 size 100 udp-dport 4\n"
						  "flow c port eth0 size 100 udp-dport 3\n"
						  "flow a port eth0 size 100 udp-dport 1\n"
						  "frames 0: a 1\n");
	int32_t map[3], back[3];
	assert_int_equal(sched_flow_map(a, b, map), 0);
	assert_int_equal(map[0], 2);  /* a */
	assert_int_equal(map[1], -1); /* b: gone */
	assert_int_equal(map[2], 1);  /* c */
	assert_int_equal(sched_flow_map(b, a, back), 0);
	assert_int_equal(back[0], -1); /* d: new */
	assert_int_equal(back[1], 2);
	assert_int_equal(back[2], 0);
	sched_free(a);
	sched_free(b);
}

static void rows_add_up_and_share(void **state)
{
	struct sched_table *t = parse_ok(HDR PORT "flow a port eth0 size 100 udp-dport 1\n"
						  "flow b port eth0 size 100 udp-dport 2\n"
						  "frames 0-9: a 1\n"
						  "frames 0-9/2: a 1, b 1\n");
	/* two distinct rows: even frames a 2 b 1, odd frames a 1 */
	assert_int_equal(t->nrows, 2);
	assert_row(t, 0, "a 2, b 1");
	assert_row(t, 1, "a 1");
	assert_int_equal(t->frame_row[2], t->frame_row[0]);
	assert_int_equal(t->frame_row[9], t->frame_row[1]);
	assert_int_equal(sched_runtime_bytes(t), 10 * 4 + 3 * 4 + 3 * 8);
	sched_free(t);
}

static void rows_sorted_by_port_then_flow(void **state)
{
	struct sched_table *t = parse_ok(HDR "port p0 rate 1Gbit/s\nport p1 rate 1Gbit/s\n"
					     "flow a port p1 size 100 udp-dport 1\n"
					     "flow b port p0 size 100 udp-dport 2\n"
					     "flow c port p0 size 100 udp-dport 3\n"
					     "frames 4: a 1, c 2, b 3\n");
	uint32_t n;
	const struct sched_entry *e = sched_row(t, 4, &n);
	assert_int_equal(n, 3);
	assert_int_equal(e[0].flow, 1); /* b on p0 */
	assert_int_equal(e[1].flow, 2); /* c on p0 */
	assert_int_equal(e[2].flow, 0); /* a on p1 */
	sched_free(t);
}

/* Names are names wherever they stand: a flow may be called like a keyword. */
static void names_that_look_like_keywords(void **state)
{
	struct sched_table *t = parse_ok("tdp-schedule 1\ntf 1ms\nk 2\nport size rate 1Gbit/s\n"
					 "flow port port size size 100 dscp 1\n"
					 "flow size port size size 200 dscp 2\n"
					 "flow frames port size size 300 dscp 3\n"
					 "frames 0: port 1, size 2, frames 3\n");
	assert_int_equal(t->flows[0].port, 0);
	assert_int_equal(t->flows[0].size, 100);
	assert_int_equal(t->flows[1].size, 200);
	assert_row(t, 0, "port 1, size 2, frames 3");
	sched_free(t);
	parse_err("tdp-schedule 1\ntf 1ms\nk 2\nport eth0 rate 1Gbit/s\nflow port port nope size "
		  "100 dscp 1\n",
		  5, 16, "flow port: no port named 'nope'");
}

static void zero_packets_is_no_entry(void **state)
{
	struct sched_table *t =
		parse_ok(HDR PORT "flow a port eth0 size 100 dscp 1\nframes 0-9: a 0\n");
	assert_row(t, 3, "");
	assert_int_equal(t->nrows, 1);
	sched_free(t);
}

/* ---- errors: each asserts the position and the message -------------------- */

static void err_unknown_keyword(void **state)
{
	parse_err(HDR "tff 100us\n", 4, 1, "unknown keyword");
	parse_err(HDR PORT "port p rate 1Gbit/s speed 5\n", 5, 21, "unknown port attribute");
	parse_err(HDR PORT "flow a port eth0 size 100 tos 4\n", 5, 27, "unknown flow attribute");
}

static void err_units(void **state)
{
	parse_err("tdp-schedule 1\ntf 100\nk 10\n", 2, 4, "time needs a unit");
	parse_err("tdp-schedule 1\ntf 100xs\nk 10\n", 2, 4, "unknown time unit");
	parse_err("tdp-schedule 1\ntf 1.0001ns\nk 10\n", 2, 4, "not a whole number of nanoseconds");
	parse_err(HDR "port p rate 1000\n", 4, 13, "rate needs a unit");
	parse_err(HDR "port p rate 1mbit/s\n", 4, 13, "'m' is milli");
	parse_err(HDR "port p rate 1Gbytes/s\n", 4, 13, "unknown rate unit");
	parse_err(HDR "port p rate 0bit/s\n", 4, 13, "rate must be positive");
	parse_err(HDR "port p rate 1Gbit/s max-frame 59\n", 4, 31, "max-frame must be");
}

static void err_tf_and_cycle(void **state)
{
	parse_err("tdp-schedule 1\ntf 300us\nk 10\n", 2, 4, "does not divide one second");
	parse_err("tdp-schedule 1\ntf 100ns\nk 3\n", 3, 3, "does not divide one second");
	parse_err("tdp-schedule 1\ntf 100us\nk 20000\n", 3, 3, "does not divide one second");
	parse_err("tdp-schedule 1\ntf 2s\nk 1\n", 2, 4, "TF must be between");
	parse_err("tdp-schedule 1\ntf 10ns\nk 1\n", 2, 4, "TF must be between");
	parse_err("tdp-schedule 1\ntf 100us\nk 0\n", 3, 3, "k must be at least 1");
	parse_err(HDR "guard 100us\n", 4, 7, "guard band must be shorter than TF");
	parse_err(HDR "epoch 1ms\n", 4, 7, "epoch must be less than the cycle");
	parse_err("# comment\ntdp-schedule 1\nk 10\n", 2, 1, "no 'tf' line");
	parse_err("tdp-schedule 1\ntf 1ms\n", 1, 1, "no 'k' line");
}

/* a node's sync error bound: kept, written back, at most half the guard band */
static void sync_error_bound(void **state)
{
	(void)state;
	struct sched_table *t = parse_ok(HDR "guard 20us\nsync-error 10us\n");
	assert_true(t->sync_err_set);
	assert_int_equal(t->sync_err_ns, 10000);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(sched_write(t, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "guard 20us\nsync-error 10us\n"));
	free(buf);
	sched_free(t);
	t = parse_ok(HDR "sync-error 0ns\n");
	assert_true(t->sync_err_set && t->sync_err_ns == 0);
	sched_free(t);
	t = parse_ok(HDR);
	assert_false(t->sync_err_set);
	sched_free(t);
	parse_err(HDR "guard 20us\nsync-error 11us\n", 5, 12,
		  "more than half the guard band (20us)");
	parse_err(HDR "sync-error 1ns\n", 4, 12, "more than half the guard band");
	parse_err(HDR "guard 20us\nsync-error 1us\nsync-error 2us\n", 6, 1,
		  "'sync-error' given twice");
}

static void err_version(void **state)
{
	parse_err("tf 100us\nk 10\n", 1, 1, "must start with 'tdp-schedule 1'");
	parse_err("tdp-schedule 2\ntf 100us\nk 10\n", 1, 14, "unsupported format version 2");
	parse_err(HDR "tf 1ms\n", 4, 1, "'tf' given twice (first at line 2)");
	parse_err("tdp-schedule 1\ntf 100us\nk\n", 3, 2, "'k' needs a value");
	parse_err("tdp-schedule 1\ntf 100us\nk 10 20\n", 3, 6, "unexpected text");
}

static void err_names(void **state)
{
	parse_err(HDR PORT "flow a port eth1 size 100 dscp 1\n", 5, 13, "no port named 'eth1'");
	parse_err(HDR PORT "flow a port eth0 size 100 dscp 1\nframes 0: b 1\n", 6, 11,
		  "no flow named 'b'");
	parse_err(HDR PORT "port eth0 rate 1Gbit/s\n", 5, 6,
		  "port eth0 defined twice (first at line 4)");
	parse_err(HDR PORT "flow a port eth0 size 100 dscp 1\nflow a port eth0 size 100 dscp 2\n",
		  6, 6, "flow a defined twice (first at line 5)");
	parse_err(HDR "port 9x rate 1Gbit/s\n", 4, 6, "bad port name");
	parse_err(HDR PORT "flow a port eth0 dscp 1\n", 5, 6, "needs a size");
	parse_err(HDR PORT "flow a size 10 dscp 1\n", 5, 6, "needs a port");
	parse_err(HDR PORT "flow a port eth0 size 10\n", 5, 6, "needs a match");
	parse_err(HDR PORT "flow a port eth0 size 1515 dscp 1\n", 5, 23,
		  "exceeds port eth0's max-frame 1514");
	parse_err(HDR PORT "flow a port eth0 size 100 dscp 1 dscp 2\n", 5, 34,
		  "attribute given twice");
}

static void err_match_values(void **state)
{
	parse_err(HDR PORT "flow a port eth0 size 100 dscp 64\n", 5, 32, "dscp must be 0..63");
	parse_err(HDR PORT "flow a port eth0 size 100 vlan 4096\n", 5, 32, "vlan must be 0..4095");
	parse_err(HDR PORT "flow a port eth0 size 100 pcp 8\n", 5, 31, "pcp must be 0..7");
	parse_err(HDR PORT "flow a port eth0 size 100 mpls 1048576\n", 5, 32, "mpls must be");
	parse_err(HDR PORT "flow a port eth0 size 100 udp-dport 65536\n", 5, 37,
		  "udp-dport must be");
	parse_err(HDR PORT "flow a port eth0 size 100 dst 10.0.0.1/24\n", 5, 31, "host bits set");
	parse_err(HDR PORT "flow a port eth0 size 100 dst 10.0.0.0/33\n", 5, 31, "prefix length");
	parse_err(HDR PORT "flow a port eth0 size 100 dst 10.0.0.300/8\n", 5, 31, "bad address");
	parse_err(HDR PORT "flow a port eth0 size 100 dst 10.0.0.0\n", 5, 31,
		  "expected an address prefix");
}

/* Pipeline options: alpha relative to the upstream node, the arrival delay, the stamp flag. */
static void pipeline_options(void **state)
{
	struct sched_table *t =
		parse_ok(HDR PORT "flow a port eth0 size 100 alpha 3 delay 20us stamp udp-dport 1\n"
				  "flow b port eth0 size 100 stamp udp-dport 2 alpha 1\n"
				  "flow c port eth0 size 100 udp-dport 3\n");
	assert_int_equal(t->flows[0].alpha, 3);
	assert_int_equal(t->flows[0].delay_ns, 20000);
	assert_true(t->flows[0].stamp);
	assert_int_equal(t->flows[0].match.udp_dport, 1);
	assert_int_equal(t->flows[1].alpha, 1);
	assert_int_equal(t->flows[1].delay_ns, 0);
	assert_true(t->flows[1].stamp);
	assert_int_equal(t->flows[1].match.udp_dport, 2);
	assert_false(t->flows[2].stamp);
	assert_int_equal(t->flows[2].alpha, 0);
	sched_free(t);
	parse_err(HDR PORT "flow a port eth0 size 100 stamp stamp udp-dport 1\n", 5, 33,
		  "attribute given twice");
	parse_err(HDR PORT "flow a port eth0 size 100 delay 5us udp-dport 1\n", 5, 33,
		  "it needs alpha");
	parse_err(HDR PORT "flow a port eth0 size 100 alpha 1 delay 100us udp-dport 1\n", 5, 41,
		  "delay must be shorter than TF");
	parse_err(HDR PORT "flow a port eth0 size 100 alpha 1 delay 5 udp-dport 1\n", 5, 41,
		  "unit");
	parse_err(HDR PORT "flow a port eth0 size 100 alpha 0 udp-dport 1\n", 5, 33,
		  "alpha must be");
}

static void err_overlap(void **state)
{
	/* same field, same value */
	parse_err(HDR PORT "flow a port eth0 size 100 dscp 1\nflow b port eth0 size 100 dscp 1\n",
		  6, 6, "flow b (dscp 1) overlaps flow a");
	/* different fields: a packet with both matches both */
	parse_err(HDR PORT
		  "flow a port eth0 size 100 dscp 1\nflow b port eth0 size 100 udp-dport 7\n",
		  6, 6, "overlaps flow a");
	/* a prefix inside another */
	parse_err(HDR PORT "flow a port eth0 size 100 dst 10.0.0.0/8\nflow b port eth0 size 100 "
			   "dst 10.1.0.0/16\n",
		  6, 6, "overlaps flow a");
	/* but these are disjoint */
	sched_free(parse_ok(HDR PORT "flow a port eth0 size 100 dscp 1 dst 10.0.0.0/16\n"
				     "flow b port eth0 size 100 dscp 1 dst 10.1.0.0/16\n"
				     "flow c port eth0 size 100 dscp 1 dst 2001:db8::/32\n"
				     "flow d port eth0 size 100 dscp 5 udp-dport 7\n"
				     "flow e port eth0 size 100 dscp 6 udp-dport 7\n"
				     "flow f port eth0 size 100 dscp 5 vlan 3 udp-dport 8\n"));
	/* a flow matching on dst alone overlaps one that does not match on dst */
	parse_err(HDR PORT "flow a port eth0 size 100 dst 10.0.0.0/16\nflow d port eth0 size 100 "
			   "dscp 5 udp-dport 7\n",
		  6, 6, "flow d (dscp 5 udp-dport 7) overlaps flow a (dst 10.0.0.0/16, line 5)");
	parse_err(HDR PORT "flow d port eth0 size 100 dscp 5 udp-dport 7\nflow f port eth0 size "
			   "100 dscp 5 vlan 3\n",
		  6, 6, "overlaps flow d");
}

static void err_rows(void **state)
{
#define F HDR PORT "flow a port eth0 size 100 dscp 1\nflow b port eth0 size 100 dscp 2\n"
	parse_err(F "frames 10: a 1\n", 7, 8, "frame 10 is outside the cycle (frames are 0..9)");
	parse_err(F "frames 5-10: a 1\n", 7, 8, "outside the cycle");
	parse_err(F "frames 5-3: a 1\n", 7, 8, "range runs backwards");
	parse_err(F "frames 0-9/0: a 1\n", 7, 8, "stride must be at least 1");
	parse_err(F "frames 5/2: a 1\n", 7, 8, "a stride needs a range");
	parse_err(F "frames 0-9 a 1\n", 7, 1, "missing ':'");
	parse_err(F "frames : a 1\n", 7, 8, "no frames before ':'");
	parse_err(F "frames 0:\n", 7, 10, "no flows after ':'");
	parse_err(F "frames 0: a\n", 7, 12, "needs a packet count");
	parse_err(F "frames 0: a 65536\n", 7, 13, "packets per frame must be 0..65535");
	parse_err(F "frames 0: a 1, a 2\n", 7, 16, "flow a listed twice in this row");
	parse_err(F "frames 0-9, 5: a 1\n", 7, 13, "frame 5 is named twice in this row");
	/* whatever the count: a frame named twice is an error in the frame set */
	parse_err(F "frames 0-9, 5: a 0\n", 7, 13, "frame 5 is named twice in this row");
	/* strided sets meet where the remainders agree: 0,2,4.. and 1,4,7 at 4 */
	parse_err(F "frames 0-9/2, 1-9/3: a 1\n", 7, 15, "frame 4 is named twice in this row");
	parse_err(F "frames 0-9/4, 2-9/6: a 1\n", 7, 15, "frame 8 is named twice in this row");
	sched_free(parse_ok(F "frames 0-9/4, 1-9/6, 2-9/4: a 1\n"));
	parse_err(F "frames 0 1: a 1\n", 7, 10, "expected ',' between frame sets");
	parse_err(F "frames 0: a 1,\n", 7, 14, "unexpected ','");
	parse_err(F "frames 0: a 60000\nframes 0: a 6000\n", 8, 1,
		  "flow a has 66000 packets in frame 0");
#undef F
}

static void err_numbers_overflow(void **state)
{
	parse_err("tdp-schedule 1\ntf 99999999999999999999999999us\nk 1\n", 2, 4,
		  "number too large");
	parse_err("tdp-schedule 99999999999999999999999\n", 1, 14, "number too large");
	parse_err(HDR "port p rate 99999999999999999999Gbit/s\n", 4, 13, "number too large");
	parse_err("tdp-schedule 1\ntf 100us\nk 18446744073709551617\n", 3, 3, "number too large");
	parse_err(HDR PORT "flow a port eth0 size 100 dscp 1\nframes 4294967296: a 1\n", 6, 8,
		  "bad frame number");
}

static void err_empty_and_binary(void **state)
{
	parse_err("", 1, 1, "empty table");
	parse_err("\n\n# only a comment\n   \n", 1, 1, "empty table");
	parse_err("tdp-schedule 1\ntf 1\0ms\nk 1\n", 2, 5, "byte 0x00 is not text");
	parse_err("\x7f"
		  "ELF\x02\x01\x01",
		  1, 1, "byte 0x7f is not text");
	parse_err(HDR "# caf\xc3\n", 4, 6, "is not text"); /* truncated UTF-8 */
	parse_err(HDR "\xff\xfe\n", 4, 1, "byte 0xff is not text");
	/* forms RFC 3629 forbids: surrogates, overlong encodings, past U+10FFFF */
	parse_err(HDR "# \xed\xa0\x80\n", 4, 3, "byte 0xed is not text"); /* U+D800 */
	parse_err(HDR "# \xed\xbf\xbf\n", 4, 3, "byte 0xed is not text"); /* U+DFFF */
	parse_err(HDR "# \xe0\x80\xaf\n", 4, 3, "byte 0xe0 is not text"); /* '/' in three bytes */
	parse_err(HDR "# \xf0\x80\x80\xaf\n", 4, 3, "byte 0xf0 is not text"); /* ... in four */
	parse_err(HDR "# \xf4\x90\x80\x80\n", 4, 3, "byte 0xf4 is not text"); /* U+110000 */
	parse_err(HDR "# \xc1\xbf\n", 4, 3, "byte 0xc1 is not text");
	/* the edges that are allowed: U+0800, U+D7FF, U+E000, U+10000, U+10FFFF */
	sched_free(parse_ok(
		HDR
		"# \xe0\xa0\x80 \xed\x9f\xbf \xee\x80\x80 \xf0\x90\x80\x80 \xf4\x8f\xbf\xbf\n"));
	/* UTF-8 in comments and the micro sign in units are text */
	struct sched_table *t = parse_ok("tdp-schedule 1 # caf\xc3\xa9\ntf 100\xc2\xb5s\nk 10\n");
	assert_int_equal(t->tf_ns, 100000);
	sched_free(t);
}

static void no_table_on_error(void **state)
{
	/* an error anywhere means no table at all: never a silently different one */
	struct sched_diags d;
	sched_diags_init(&d, "x");
	const char *s =
		HDR PORT "flow a port eth0 size 100 dscp 1\nframes 0: a 1\nframes 99: a 1\n";
	assert_null(sched_parse(s, strlen(s), &d));
	assert_int_equal(d.nerr, 1);
	sched_diags_free(&d);
}

static void diagnostics_format(void **state)
{
	struct sched_diags d;
	char *buf = NULL;
	size_t len = 0;
	sched_diags_init(&d, "tables/x.tdp");
	const char *s = "tdp-schedule 1\ntf 300us\nk 10\n";
	assert_null(sched_parse(s, strlen(s), &d));
	FILE *f = open_memstream(&buf, &len);
	sched_diags_print(&d, f);
	fclose(f);
	assert_string_equal(buf, "tables/x.tdp:2:4: error: TF 300us does not divide one second\n");
	free(buf);
	sched_diags_free(&d);
}

static void version_not_first_is_one_error(void **state)
{
	struct sched_diags d;
	const char *s = "tf 100us\ntdp-schedule 1\nk 10\n";
	sched_diags_init(&d, "x");
	assert_null(sched_parse(s, strlen(s), &d));
	assert_int_equal(d.nerr, 1);
	assert_int_equal(d.v[0].line, 1);
	assert_non_null(strstr(d.v[0].msg, "must start with 'tdp-schedule 1'"));
	sched_diags_free(&d);
}

static void row_line_limits(void **state)
{
	/* 1025 flows in one line: refused with a hint; 1024 are fine */
	for (int n = 1024; n <= 1025; n++) {
		char *s = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&s, &len);
		fprintf(f, "tdp-schedule 1\ntf 400ns\nk 2500\nport p rate 100Gbit/s\n");
		for (int i = 0; i < n; i++)
			fprintf(f, "flow f%d port p size 60 udp-dport %d\n", i, i);
		fprintf(f, "frames 0:");
		for (int i = 0; i < n; i++)
			fprintf(f, "%s f%d 1", i ? "," : "", i);
		fprintf(f, "\n");
		/* and as many frame sets, k = 2500: 0,2,4,... one per set */
		fprintf(f, "frames ");
		for (int i = 0; i < n; i++)
			fprintf(f, "%s%d", i ? "," : "", 2 * i);
		fprintf(f, ": f0 1\n");
		fclose(f);
		struct sched_diags d;
		sched_diags_init(&d, "x");
		struct sched_table *t = sched_parse(s, len, &d);
		if (n == 1024) {
			assert_non_null(t);
		} else {
			assert_null(t);
			assert_int_equal(d.nerr, 2);
			assert_int_equal(d.v[0].line, 5 + n);
			assert_non_null(
				strstr(d.v[0].msg,
				       "more than 1024 flows in one line; split it (rows add up)"));
			assert_int_equal(d.v[1].line, 6 + n);
			assert_non_null(strstr(
				d.v[1].msg,
				"more than 1024 frame sets in one line; split it (rows add up)"));
		}
		sched_diags_free(&d);
		sched_free(t);
		free(s);
	}
}

static void many_errors_are_capped(void **state)
{
	struct sched_diags d;
	char *s = malloc(200 * 16 + 64);
	size_t n = (size_t)sprintf(s, "tdp-schedule 1\n");
	for (int i = 0; i < 200; i++)
		n += (size_t)sprintf(s + n, "bogus %d\n", i);
	sched_diags_init(&d, "x");
	assert_null(sched_parse(s, n, &d));
	assert_int_equal(d.nerr, 200);
	assert_int_equal(d.n, SCHED_DIAG_KEEP);
	sched_diags_free(&d);
	free(s);
}

/* FORMAT.md's table of match keys names every key the parser takes, with
 * its range, and no other: the documentation is held to sched_match_keys[] */
static void format_lists_the_match_keys(void **state)
{
	(void)state;
	char path[512];
	snprintf(path, sizeof(path), "%s/schedules/FORMAT.md", TDP_SRCDIR);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char doc[1 << 16];
	size_t n = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[n] = 0;
	int rows = 0;
	for (const char *p = doc; (p = strstr(p, "\n  | `")); p++)
		rows++;
	int keys = 0;
	for (const struct sched_match_key *k = sched_match_keys; k->word; k++, keys++) {
		char row[64], range[32];
		snprintf(row, sizeof(row), "\n  | `%s ", k->word);
		const char *at = strstr(doc, row);
		assert_non_null(at);
		if (!k->max)
			continue;
		snprintf(range, sizeof(range), "..%u |", k->max);
		const char *end = strchr(at + 1, '\n');
		const char *r = strstr(at, range);
		assert_true(r && r < end);
	}
	assert_int_equal(rows, keys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepts_minimal),
		cmocka_unit_test(format_lists_the_match_keys),
		cmocka_unit_test(accepts_everything),
		cmocka_unit_test(rows_add_up_and_share),
		cmocka_unit_test(flows_matched_by_name),
		cmocka_unit_test(rows_sorted_by_port_then_flow),
		cmocka_unit_test(names_that_look_like_keywords),
		cmocka_unit_test(zero_packets_is_no_entry),
		cmocka_unit_test(err_unknown_keyword),
		cmocka_unit_test(err_units),
		cmocka_unit_test(err_tf_and_cycle),
		cmocka_unit_test(sync_error_bound),
		cmocka_unit_test(err_version),
		cmocka_unit_test(err_names),
		cmocka_unit_test(err_match_values),
		cmocka_unit_test(pipeline_options),
		cmocka_unit_test(err_overlap),
		cmocka_unit_test(err_rows),
		cmocka_unit_test(err_numbers_overflow),
		cmocka_unit_test(err_empty_and_binary),
		cmocka_unit_test(no_table_on_error),
		cmocka_unit_test(diagnostics_format),
		cmocka_unit_test(version_not_first_is_one_error),
		cmocka_unit_test(row_line_limits),
		cmocka_unit_test(many_errors_are_capped),
	};
	return cmocka_run_group_tests_name("sched_parse", tests, NULL, NULL);
}
