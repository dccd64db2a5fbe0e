/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pcapng blocks (pcapng.c) as a real reader takes them: a file of a
 * Section Header, an Interface Description and Enhanced Packets, read back
 * with libpcap (what tcpdump uses) at nanosecond precision: the link type,
 * the snap length, each packet's bytes, lengths and time. Then the layout
 * itself: lengths at both ends, 32-bit alignment, the direction option.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../tdp_test.h"

#include <pcap/pcap.h>

#include "pcapng.h"

static void read_back_by_libpcap(void **state)
{
	uint8_t buf[4096], pkt[100];
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)(i * 3);
	char path[] = "/tmp/tdp-pcapng-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t n = pcapng_shb(buf, sizeof(buf), "tdpd test");
	assert_true(n > 0);
	n += pcapng_idb(buf + n, sizeof(buf) - n, "out", 64);
	/* 64 of 100 bytes kept, then a whole 60-byte one */
	size_t a = pcapng_epb(buf + n, sizeof(buf) - n, 0, 1700000000123456789ll, pkt, 64, 100,
			      PCAPNG_DIR_OUT);
	assert_true(a > 0);
	n += a;
	n += pcapng_epb(buf + n, sizeof(buf) - n, 0, 1700000001000000001ll, pkt, 60, 60,
			PCAPNG_DIR_IN);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	assert_non_null(p);
	assert_int_equal(pcap_datalink(p), DLT_EN10MB);
	assert_int_equal(pcap_snapshot(p), 64);
	struct pcap_pkthdr *h;
	const u_char *d;
	assert_int_equal(pcap_next_ex(p, &h, &d), 1);
	assert_int_equal(h->caplen, 64);
	assert_int_equal(h->len, 100);
	assert_int_equal(h->ts.tv_sec, 1700000000);
	assert_int_equal(h->ts.tv_usec, 123456789); /* nanoseconds at this precision */
	assert_memory_equal(d, pkt, 64);
	assert_int_equal(pcap_next_ex(p, &h, &d), 1);
	assert_int_equal(h->caplen, 60);
	assert_int_equal(h->ts.tv_sec, 1700000001);
	assert_int_equal(h->ts.tv_usec, 1);
	assert_int_equal(pcap_next_ex(p, &h, &d), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}

static void layout(void **state)
{
	uint8_t buf[256], pkt[61] = {0};
	size_t n = pcapng_epb(buf, sizeof(buf), 0, 5, pkt, 61, 61, PCAPNG_DIR_IN);
	/* 28 bytes of header, 64 of data (61 padded), the direction option (8),
	 * its end (4), the trailing length (4) */
	assert_int_equal(n, 28 + 64 + 8 + 4 + 4);
	uint32_t first, last, flags;
	memcpy(&first, buf + 4, 4);
	memcpy(&last, buf + n - 4, 4);
	assert_int_equal(first, n);
	assert_int_equal(last, n);
	assert_int_equal(buf[28 + 64], 2); /* epb_flags */
	memcpy(&flags, buf + 28 + 64 + 4, 4);
	assert_int_equal(flags, 1); /* inbound */
	/* without a direction: no options, no end of options */
	assert_int_equal(pcapng_epb(buf, sizeof(buf), 0, 5, pkt, 61, 61, PCAPNG_DIR_NONE),
			 28 + 64 + 4);
	/* too small a buffer: nothing */
	assert_int_equal(pcapng_epb(buf, 64, 0, 5, pkt, 61, 61, PCAPNG_DIR_IN), 0);
	assert_int_equal(pcapng_shb(buf, 20, "x"), 0);
}

TDP_TEST_MAIN(cmocka_unit_test(read_back_by_libpcap), cmocka_unit_test(layout))
