/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv4 fragmentation (ipfrag.c), checked against RFC 791 field by field:
 * every fragment's data a multiple of 8 bytes but the last's, offsets in
 * 8-byte units, More Fragments on all but the last, only copied options in
 * the fragments after the first, each header's checksum; the data put
 * together again equal the original's. DF and a too small MTU refuse.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include "ipfrag.h"
#include "pkt.h"
#include "pktgen.h"

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* A 1514-byte frame of 1500 bytes of IPv4, with the given options (a
 * multiple of 4 bytes) inserted after the 20-byte header. */
static uint32_t frame(uint8_t *b, const uint8_t *opt, uint32_t olen, uint16_t frag)
{
	struct pg g;
	pg_defaults(&g);
	g.size = (uint32_t)(1514 - olen);
	uint32_t n = pg_build(&g, b);
	memmove(b + 14 + 20 + olen, b + 14 + 20, n - 14 - 20);
	if (olen)
		memcpy(b + 14 + 20, opt, olen);
	uint8_t *ip = b + 14;
	ip[0] = (uint8_t)(0x40 | (20 + olen) / 4);
	ip[2] = (uint8_t)((n - 14 + olen) >> 8);
	ip[3] = (uint8_t)(n - 14 + olen);
	ip[6] = (uint8_t)(frag >> 8);
	ip[7] = (uint8_t)frag;
	for (uint32_t i = 14 + 20 + olen; i < n + olen; i++)
		b[i] = (uint8_t)(i * 7);
	ip[10] = ip[11] = 0;
	uint16_t c = pkt_ip4_csum(ip, 20 + olen);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	return n + olen;
}

static void fragments_by_rfc791(void **state)
{
	/* record route (not copied, 0x07, 7 bytes), NOP, security-like copied
	 * option (0x82, 4 bytes... padded): 12 bytes */
	const uint8_t opt[12] = {0x07, 7, 4, 0, 0, 0, 0, 0x01, 0x82, 4, 0xaa, 0xbb};
	uint8_t b[1600], out[1600], data[1600];
	uint32_t n = frame(b, opt, sizeof(opt), 0);
	struct pkt_info pi;
	assert_int_equal(pkt_parse(b, n, &pi), PKT_OK);
	assert_int_equal(pi.l3_len, 1500);
	uint32_t off = 0, got = 0, frags = 0;
	int32_t k;
	const uint32_t ihl = 32, dlen = 1500 - ihl;
	while ((k = ip4_frag_next(b, n, &pi, 576, &off, out, sizeof(out))) > 0) {
		const uint8_t *ip = out + 14;
		uint32_t hl = (ip[0] & 15u) * 4, tot = rd16(ip + 2);
		assert_memory_equal(out, b, 14); /* the link layer kept */
		assert_true(tot <= 576);
		assert_int_equal((uint32_t)k, 14 + tot);
		assert_int_equal(pkt_ip4_csum(ip, hl), 0);
		uint16_t fo = rd16(ip + 6);
		assert_int_equal((fo & 0x1fff) * 8u, got);
		bool last = got + (tot - hl) == dlen;
		assert_int_equal(!!(fo & 0x2000), !last);
		if (!last)
			assert_int_equal((tot - hl) % 8, 0);
		if (frags == 0) {
			assert_int_equal(hl, ihl); /* every option in the first */
			assert_memory_equal(ip + 20, opt, sizeof(opt));
		} else {
			assert_int_equal(hl, 24); /* the copied one only, padded */
			assert_int_equal(ip[20], 0x82);
			assert_int_equal(ip[23], 0xbb);
		}
		memcpy(data + got, ip + hl, tot - hl);
		got += tot - hl;
		frags++;
	}
	assert_int_equal(k, 0);
	assert_int_equal(got, dlen);
	assert_int_equal(frags, 3); /* 544 + 552 + 372 */
	assert_memory_equal(data, b + 14 + ihl, dlen);
}

static void a_fragment_fragmented_again(void **state)
{
	/* a middle fragment (offset 100 units, MF set) cut in two: the offsets
	 * go on from 100, and the last piece keeps MF */
	uint8_t b[1600], out[1600];
	uint32_t n = frame(b, NULL, 0, 0x2000 | 100);
	struct pkt_info pi;
	assert_int_equal(pkt_parse(b, n, &pi), PKT_OK);
	uint32_t off = 0;
	int32_t k = ip4_frag_next(b, n, &pi, 1000, &off, out, sizeof(out));
	assert_true(k > 0);
	assert_int_equal(rd16(out + 14 + 6), 0x2000 | 100);
	k = ip4_frag_next(b, n, &pi, 1000, &off, out, sizeof(out));
	assert_true(k > 0);
	assert_int_equal(rd16(out + 14 + 6), 0x2000 | (100 + 976 / 8));
	assert_int_equal(ip4_frag_next(b, n, &pi, 1000, &off, out, sizeof(out)), 0);
}

static void refused(void **state)
{
	uint8_t b[1600], out[1600];
	uint32_t n = frame(b, NULL, 0, 0x4000); /* DF */
	struct pkt_info pi;
	assert_int_equal(pkt_parse(b, n, &pi), PKT_OK);
	assert_true(pi.flags & PKT_F_DF);
	uint32_t off = 0;
	assert_int_equal(ip4_frag_next(b, n, &pi, 1400, &off, out, sizeof(out)), -1);
	n = frame(b, NULL, 0, 0);
	assert_int_equal(pkt_parse(b, n, &pi), PKT_OK);
	assert_int_equal(ip4_frag_next(b, n, &pi, 67, &off, out, sizeof(out)),
			 -1); /* below RFC 791's 68 */
	assert_int_equal(ip4_frag_next(b, n, &pi, 1400, &off, out, 100), -1); /* no room */
	struct pg g;
	pg_defaults(&g);
	g.family = 6;
	g.size = 1514;
	n = pg_build(&g, b);
	assert_int_equal(pkt_parse(b, n, &pi), PKT_OK);
	assert_int_equal(ip4_frag_next(b, n, &pi, 1280, &off, out, sizeof(out)),
			 -1); /* IPv6: never */
}

TDP_TEST_MAIN(cmocka_unit_test(fragments_by_rfc791), cmocka_unit_test(a_fragment_fragmented_again),
	      cmocka_unit_test(refused))
